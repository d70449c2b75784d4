"""asv benchmarks of binned_auc and BinnedAUC (interleaved ratios: ratios.py --part binned)."""

import numpy as np

from hmeasure_stream import BinnedAUC, binned_auc


def _data(n):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    return y, 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 2 * y)))


class BinnedAucFromScratch:
    params = ([10**4, 10**5, 10**6, 10**7], [None, "loglog"])
    param_names = ["n", "transform"]

    def setup(self, n, transform):
        self.y, self.s = _data(n)

    def time_binned_auc(self, n, transform):
        binned_auc(self.y, self.s, n_bins=1000, transform=transform,
                   loglog_alpha=None if transform is None else 0.2)

    def time_searchsorted_baseline(self, n, transform):
        np.searchsorted(np.linspace(0, 1, 1001), self.s)


class BinnedAucUpdates:
    params = [10**3, 10**4, 10**5, 10**6]
    param_names = ["bins"]

    def setup(self, bins):
        self.y, self.s = _data(10**5)
        self.tracker = BinnedAUC(bins)
        self.tracker.add_many(self.y, self.s)
        self.labels, self.scores = self.y[:2000].tolist(), self.s[:2000].tolist()

    def time_update_and_read(self, bins):
        tracker = self.tracker
        for label, score in zip(self.labels, self.scores, strict=True):
            tracker.add(label, score)
            tracker.remove(label, score)
            _ = tracker.auc

    def peakmem_structure(self, bins):
        BinnedAUC(bins).add_many(self.y, self.s)
