"""asv benchmarks of multiclass_auc (interleaved ratios: ratios.py --part multiclass)."""

import numpy as np

from hmeasure_stream import DynamicMulticlassAUC, auc, multiclass_auc


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


class MulticlassWindow:
    """sliding_window's "multiclass_auc" (window 10^4, 5 classes) against the binary window."""

    params = [["ovr", "ovo"]]
    param_names = ["method"]

    def setup(self, method):
        from hmeasure_stream import Classes, sliding_window

        self.sliding_window = sliding_window
        self.classes = Classes
        rng = np.random.default_rng(0)
        n, classes = 50_000, 5
        self.y = rng.integers(0, classes, n)
        self.s = rng.normal(size=(n, classes)) + np.eye(classes)[self.y]
        self.binary = (self.y == 0).astype(np.int64)
        self.weights = np.full(n, 1.5)

    def time_binary_auc_baseline(self, method):
        # Weights keep the treap path (unit weights would take the Fenwick tree).
        self.sliding_window(self.binary, self.s[:, 0], 10_000, sample_weight=self.weights)

    def time_multiclass_auc(self, method):
        self.sliding_window(self.y, self.s, 10_000, self.classes(method=method))


class DynamicMulticlassStep:
    """A DynamicMulticlassAUC step (add + remove + read, c = 5) at several window sizes: the
    per-class engines are BlockedAUCEngine (sorted blocks), whose step should grow slowly."""

    params = ([10**3, 10**4, 10**5, 10**6], ["ovr", "ovo"])
    param_names = ["window", "method"]
    timeout = 300

    def setup(self, window, method):
        rng = np.random.default_rng(0)
        classes, self.steps = 5, 2000
        y = rng.integers(0, classes, window + self.steps)
        logits = rng.normal(size=(window + self.steps, classes)) + 1.5 * np.eye(classes)[y]
        p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
        self.tracker = DynamicMulticlassAUC(list(range(classes)), method=method)
        self.tracker.add_many(y[:window], p[:window])
        self.labels, self.rows, self.window = y.tolist(), list(p), window

    def time_steps(self, window, method):
        tracker, labels, rows = self.tracker, self.labels, self.rows
        for i in range(window, window + self.steps):
            tracker.add(labels[i], rows[i])
            tracker.remove(labels[i - window], rows[i - window])
            _ = tracker.auc
        for i in range(window + self.steps - 1, window - 1, -1):  # back to the start
            tracker.add(labels[i - window], rows[i - window])
            tracker.remove(labels[i], rows[i])
