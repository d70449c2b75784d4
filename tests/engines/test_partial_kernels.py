"""The from-scratch partial-area kernel on sorted classes against the one on groups."""

import numpy as np
import pytest

from hmeasure_stream._engines import _partial, _scratch


@pytest.mark.parametrize("distinct", [3, 20, 10_000])
def test_the_pass_over_sorted_classes_equals_the_pass_over_groups(rng, distinct):
    # Same parts for random boxes, scores with and without ties; the groups come from
    # numpy's unique counts (independent of the merge both kernels share).
    for _ in range(40):
        n_neg, n_pos = (int(v) for v in rng.integers(1, 60, 2))
        neg = np.sort(rng.integers(0, distinct, n_neg).astype(float))
        pos = np.sort(rng.integers(0, distinct, n_pos).astype(float))
        keys = np.unique(np.concatenate([neg, pos]))[::-1]
        group_neg = np.array([np.count_nonzero(neg == k) for k in keys], dtype=np.int64)
        group_pos = np.array([np.count_nonzero(pos == k) for k in keys], dtype=np.int64)
        a, b = sorted(rng.uniform(0, n_neg, 2))
        c, d = sorted(rng.uniform(0, n_pos, 2))
        bounds = [int(np.floor(a)), int(np.ceil(a)), int(np.floor(b)), int(np.ceil(b)),
                  int(np.floor(c)), int(np.ceil(c)), int(np.floor(d)), int(np.ceil(d))]
        expected = _partial.box_area_counts(group_neg, group_pos, *bounds)
        assert _partial.box_area_sorted_classes(neg, pos, *bounds) == expected
        got_neg, got_pos = _scratch.groups_sorted_classes(neg, pos)
        np.testing.assert_array_equal(got_neg, group_neg)
        np.testing.assert_array_equal(got_pos, group_pos)
