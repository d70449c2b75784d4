"""asv benchmarks of multiclass_auc (interleaved ratios: ratios.py --part multiclass)."""

import numpy as np

from hmeasure_stream import auc, multiclass_auc


class MulticlassAuc:
    params = ([10**4, 10**5, 10**6], [3, 10])
    param_names = ["n", "classes"]

    def setup(self, n, classes):
        rng = np.random.default_rng(0)
        self.y = rng.integers(0, classes, n)
        self.s = np.asfortranarray(
            rng.dirichlet(np.ones(classes), size=n) + 0.3 * np.eye(classes)[self.y]
        )
        self.w = rng.exponential(size=n)

    def time_auc_per_class_baseline(self, n, classes):
        for k in range(classes):
            auc(self.y == k, self.s[:, k])

    def time_ovr(self, n, classes):
        multiclass_auc(self.y, self.s)

    def time_ovo(self, n, classes):
        multiclass_auc(self.y, self.s, method="ovo")

    def time_ovo_weighted(self, n, classes):
        multiclass_auc(self.y, self.s, method="ovo", sample_weight=self.w)
