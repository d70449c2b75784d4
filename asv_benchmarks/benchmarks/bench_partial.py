"""asv benchmarks of partial_auc and weighted_auc (interleaved ratios: ratios.py --part partial)."""

import numpy as np

from hmeasure_stream import auc, partial_auc, weighted_auc


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
