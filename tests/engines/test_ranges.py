"""The range-partition kernels (_ranges) against numpy's unique/searchsorted on random ties."""

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from hmeasure_stream._engines import _ranges, _scratch

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
    keys, group_neg, group_pos = _scratch.groups_sorted_classes(neg, pos, True)
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
    keys, group_neg, group_pos = _scratch.groups_weighted(
        order, scores, is_pos.view(np.uint8), weights, True
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


@given(st.lists(st.tuples(scores_lists, scores_lists), min_size=1, max_size=7), st.booleans())
def test_merge_runs_is_the_groups_of_all_runs(runs, weighted):
    pieces = []
    for neg, pos in runs:
        keys, gn, gp = _scratch.groups_sorted_classes(np.sort(np.array(neg, dtype=float)),
                                             np.sort(np.array(pos, dtype=float)), True)
        pieces.append((keys, gn * 0.5, gp * 0.5) if weighted else (keys, gn, gp))
    starts = np.concatenate(([0], np.cumsum([len(p[0]) for p in pieces]))).astype(np.int64)
    keys, group_neg, group_pos = _ranges.merge_runs(
        *(np.concatenate([p[k] for p in pieces]) for k in range(3)), starts
    )
    all_neg = [v for neg, _ in runs for v in neg]
    all_pos = [v for _, pos in runs for v in pos]
    ref_keys, ref_neg, ref_pos = _reference_groups(all_neg, all_pos)
    scale = 0.5 if weighted else 1
    np.testing.assert_array_equal(keys, ref_keys)
    np.testing.assert_array_equal(group_neg, ref_neg * scale)
    np.testing.assert_array_equal(group_pos, ref_pos * scale)


@given(st.lists(st.integers(-7, 7).map(lambda v: v / 2), max_size=40),
       st.lists(st.integers(-7, 7).map(lambda v: v / 2), max_size=6))
def test_bucket_by_range_keeps_each_range_in_input_order(values, bounds):
    values = np.array(values, dtype=float)
    bounds = np.unique(np.array(bounds, dtype=float))[::-1].copy()
    regrouped, starts = _ranges.bucket_by_range(values, bounds)
    # Range 0 above b_0, range r in (b_r, b_{r-1}], the last at or below the last bound.
    edges = [np.inf, *bounds.tolist(), -np.inf]
    expected = [values[(values <= hi) & (values > lo)] for hi, lo in itertools.pairwise(edges)]
    if not bounds.size:
        expected = [values]
    assert starts.tolist() == [0, *np.cumsum([len(e) for e in expected]).tolist()]
    for r, part in enumerate(expected):
        np.testing.assert_array_equal(regrouped[starts[r]:starts[r + 1]], part)


def test_bucket_by_range_puts_signed_zeros_together():
    values = np.array([0.0, -0.0, 1.0, -1.0, -0.0])
    regrouped, starts = _ranges.bucket_by_range(values, np.array([0.0]))
    assert starts.tolist() == [0, 1, 5]
    np.testing.assert_array_equal(np.signbit(regrouped[1:]), [False, True, True, True])
