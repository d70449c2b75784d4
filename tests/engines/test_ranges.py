"""The range-partition kernels (_ranges) against numpy's unique/searchsorted on random ties."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from hmeasure_stream._engines import _ranges

scores_lists = st.lists(st.integers(-6, 6).map(lambda v: v / 2), max_size=40)


def _reference_groups(neg, pos, w_neg=None, w_pos=None):
    """Distinct scores from the highest down with class weights, by np.unique."""
    w_neg = np.ones(len(neg)) if w_neg is None else np.asarray(w_neg)
    w_pos = np.ones(len(pos)) if w_pos is None else np.asarray(w_pos)
    keys = np.unique(np.concatenate([neg, pos]))[::-1]
    group_neg = np.array([w_neg[np.asarray(neg) == k].sum() for k in keys])
    group_pos = np.array([w_pos[np.asarray(pos) == k].sum() for k in keys])
    return keys, group_neg, group_pos


@given(scores_lists, scores_lists)
def test_groups_sorted_equals_unique(neg, pos):
    neg, pos = np.sort(np.array(neg, dtype=float)), np.sort(np.array(pos, dtype=float))
    keys, group_neg, group_pos = _ranges.groups_sorted(neg, pos)
    ref_keys, ref_neg, ref_pos = _reference_groups(neg, pos)
    np.testing.assert_array_equal(keys, ref_keys)
    np.testing.assert_array_equal(group_neg, ref_neg)
    np.testing.assert_array_equal(group_pos, ref_pos)
    assert group_neg.dtype == np.int64


@given(scores_lists.flatmap(lambda s: st.tuples(
    st.just(s), st.lists(st.booleans(), min_size=len(s), max_size=len(s)),
    st.lists(st.floats(0, 5), min_size=len(s), max_size=len(s)))))
def test_groups_weighted_equals_unique(data):
    scores, is_pos, weights = (np.array(v, dtype=float) for v in data)
    is_pos = is_pos.astype(bool)
    order = np.argsort(scores, kind="stable").astype(np.int64)
    keys, group_neg, group_pos = _ranges.groups_weighted(
        order, scores, is_pos.view(np.uint8), weights
    )
    ref = _reference_groups(scores[~is_pos], scores[is_pos], weights[~is_pos], weights[is_pos])
    np.testing.assert_array_equal(keys, ref[0])
    np.testing.assert_allclose(group_neg, ref[1], rtol=1e-12)
    np.testing.assert_allclose(group_pos, ref[2], rtol=1e-12)


@given(scores_lists, st.lists(st.integers(-7, 7).map(lambda v: v / 2), max_size=6))
def test_cut_points_count_keys_above_each_bound(keys, bounds):
    keys = np.unique(np.array(keys, dtype=float))[::-1].copy()
    bounds = np.unique(np.array(bounds, dtype=float))[::-1].copy()
    cuts = _ranges.cut_points(keys, bounds)
    np.testing.assert_array_equal(cuts, [np.count_nonzero(keys > b) for b in bounds])


@given(scores_lists, scores_lists, scores_lists, scores_lists, st.booleans())
def test_merge_two_is_the_groups_of_the_union(neg_a, pos_a, neg_b, pos_b, weighted):
    def groups(neg, pos):
        keys, gn, gp = _ranges.groups_sorted(np.sort(np.array(neg, dtype=float)),
                                             np.sort(np.array(pos, dtype=float)))
        if weighted:
            return keys, gn * 0.5, gp * 0.5
        return keys, gn, gp

    keys, group_neg, group_pos = _ranges.merge_two(*groups(neg_a, pos_a), *groups(neg_b, pos_b))
    scale = 0.5 if weighted else 1
    ref_keys, ref_neg, ref_pos = _reference_groups(neg_a + neg_b, pos_a + pos_b)
    np.testing.assert_array_equal(keys, ref_keys)
    np.testing.assert_array_equal(group_neg, ref_neg * scale)
    np.testing.assert_array_equal(group_pos, ref_pos * scale)
