"""asv benchmarks of partial_auc, weighted_auc and DynamicAUC.partial_auc.

Interleaved ratios: ratios.py --part partial and --part partial_stream.
"""

import numpy as np

from hmeasure_stream import (
    DynamicAUC,
    PartialRange,
    auc,
    partial_auc,
    sliding_window,
    weighted_auc,
)


def _data(n, ties=False):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    if ties:
        s = np.round(s, 1)
    return y, s, rng.exponential(size=n)


class PartialAuc:
    params = ([10**4, 10**5, 10**6], [False, True])
    param_names = ["n", "ties"]

    def setup(self, n, ties):
        self.y, self.s, self.w = _data(n, ties)

    def time_auc_baseline(self, n, ties):
        auc(self.y, self.s)

    def time_fpr_range(self, n, ties):
        partial_auc(self.y, self.s, fpr_range=(0.1, 0.9), correction="mcclish")

    def time_tpr_range(self, n, ties):
        partial_auc(self.y, self.s, tpr_range=(0.8, 1.0))

    def time_two_way(self, n, ties):
        partial_auc(self.y, self.s, fpr_range=(0.05, 0.95), tpr_range=(0.2, 0.9))

    def time_fpr_range_weighted(self, n, ties):
        partial_auc(self.y, self.s, fpr_range=(0.1, 0.9), sample_weight=self.w)

    def time_weighted_auc(self, n, ties):
        weighted_auc(self.y, self.s, np.sqrt)

    def peakmem_fpr_range(self, n, ties):
        partial_auc(self.y, self.s, fpr_range=(0.1, 0.9))


class DynamicAUCPartialRead:
    """DynamicAUC.partial_auc: O(log n) per read, against partial_auc from scratch."""

    params = ([10**4, 10**5, 10**6],)
    param_names = ["n"]

    def setup(self, n):
        self.y, self.s, _ = _data(n)
        self.tracker = DynamicAUC()
        self.tracker.add_many(self.y, self.s)

    def time_read_fpr_range(self, n):
        self.tracker.partial_auc(fpr_range=(0.1, 0.4))

    def time_read_tpr_range_mcclish(self, n):
        self.tracker.partial_auc(tpr_range=(0.8, 1.0), correction="mcclish")

    def time_read_two_way(self, n):
        self.tracker.partial_auc(fpr_range=(0.05, 0.95), tpr_range=(0.2, 0.9))

    def time_from_scratch_fpr_range(self, n):
        partial_auc(self.y, self.s, fpr_range=(0.1, 0.4))


class SlidingWindowPartial:
    """The window metric "pauc" (one partial read per point) against "auc" on the treap."""

    params = ([10**3, 10**5],)
    param_names = ["window"]

    def setup(self, window):
        self.y, self.s, self.w = _data(2 * 10**5)

    def time_pauc(self, window):
        sliding_window(self.y, self.s, window, metrics=(PartialRange(fpr_range=(0.0, 0.2)),))

    def time_auc_weighted_treap(self, window):
        sliding_window(self.y, self.s, window, sample_weight=self.w)
