"""The merge step of the from-scratch passes over sorted classes (``next_group``).

``groups_sorted_classes`` forms the groups with it; ``_partial.box_area_counts``
takes its groups from the same step as it goes, and is checked through
``partial_auc`` against exact integration and pROC (tests/api/test_partial_auc.py).
"""

import numpy as np
import pytest

from hmeasure_stream._engines import _scratch


@pytest.mark.parametrize("distinct", [3, 20, 10_000])
def test_groups_of_sorted_classes_equal_counts_by_numpy(rng, distinct):
    for _ in range(40):
        n_neg, n_pos = (int(v) for v in rng.integers(1, 60, 2))
        neg = np.sort(rng.integers(0, distinct, n_neg).astype(float))
        pos = np.sort(rng.integers(0, distinct, n_pos).astype(float))
        keys = np.unique(np.concatenate([neg, pos]))[::-1]
        got_keys, got_neg, got_pos = _scratch.groups_sorted_classes(neg, pos, True)
        np.testing.assert_array_equal(got_keys, keys)
        np.testing.assert_array_equal(got_neg, [np.count_nonzero(neg == k) for k in keys])
        np.testing.assert_array_equal(got_pos, [np.count_nonzero(pos == k) for k in keys])


@pytest.mark.parametrize("distinct", [3, 20, 10_000])
def test_box_parts_of_ranges_of_groups_add_up_to_those_of_the_sorted_classes(rng, distinct):
    """``box_area_count_groups`` (dask's ranges of groups) by the rule of ``box_area_counts``:
    the ranges' integer parts, each range starting at the counts above it, add up to the
    whole's, whose area is checked against integration and pROC through ``partial_auc``."""
    from hmeasure_stream._core.partial import count_group_parts, side_bounds
    from hmeasure_stream._engines import _partial

    for _ in range(60):
        n_neg, n_pos = (int(v) for v in rng.integers(1, 60, 2))
        neg = np.sort(rng.integers(0, distinct, n_neg).astype(float))
        pos = np.sort(rng.integers(0, distinct, n_pos).astype(float))
        _, group_neg, group_pos = _scratch.groups_sorted_classes(neg, pos, True)
        a, b = np.sort(rng.choice(np.linspace(0, 1, 21), 2, replace=False))
        c, d = np.sort(rng.choice(np.linspace(0, 1, 11), 2, replace=False))
        box = ((float(a), float(b)), (float(c), float(d)))
        whole = _partial.box_area_counts(neg, pos, *side_bounds(*box, n_neg, n_pos))
        cuts = sorted(int(k) for k in rng.integers(0, group_neg.shape[0] + 1, 3))
        parts, fp, tp = [], 0, 0
        for start, stop in zip([0, *cuts], [*cuts, group_neg.shape[0]], strict=True):
            piece_neg = np.ascontiguousarray(group_neg[start:stop], dtype=np.int64)
            piece_pos = np.ascontiguousarray(group_pos[start:stop], dtype=np.int64)
            parts.append(count_group_parts(piece_neg, piece_pos, fp, tp, *box, n_neg, n_pos))
            fp, tp = fp + int(piece_neg.sum()), tp + int(piece_pos.sum())
        assert tuple(sum(p[k] for p in parts) for k in range(3)) == whole[:3]
        assert sorted(cut for p in parts for cut in p[3]) == sorted(whole[3])
