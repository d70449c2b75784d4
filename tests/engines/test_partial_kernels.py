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
