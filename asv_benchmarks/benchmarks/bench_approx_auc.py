"""asv benchmarks of ApproxAUC and the "auc_approx" window metric (the table: ratios.py)."""

import numpy as np

from hmeasure_stream import ApproxAUC, Compression, sliding_window

STEPS = 20_000


def _stream(n, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, rng.normal(size=n) + y


class ApproxAUCPythonLoop:
    """One Python-level step: add a point, remove the oldest, read the estimate."""

    params = ([10**3, 10**5], [0.01, 0.1, 1.0])
    param_names = ["window", "epsilon"]

    def setup(self, window, epsilon):
        y, s = _stream(window + STEPS)
        self.y, self.s = y.tolist(), s.tolist()
        self.length = window + STEPS
        self.tracker = ApproxAUC(epsilon)
        self.tracker.add_many(y[:window], s[:window])
        self.position = window

    def time_add_remove_read(self, window, epsilon):
        new = self.position % self.length
        old = (self.position - window) % self.length
        self.tracker.add(self.y[new], self.s[new])
        self.tracker.remove(self.y[old], self.s[old])
        _ = self.tracker.auc
        self.position += 1

    def time_read(self, window, epsilon):
        _ = self.tracker.auc


class SlidingWindowApproxAUC:
    """The compiled window loop with the estimate recorded at every step."""

    params = ([10**3, 10**4, 10**5], [0.01, 0.1, 1.0])
    param_names = ["window", "epsilon"]
    timeout = 600

    def setup(self, window, epsilon):
        self.y, self.s = _stream(window + STEPS)

    def time_sliding_window_auc_approx(self, window, epsilon):
        sliding_window(self.y, self.s, window, metrics=Compression(epsilon))

    def peakmem_sliding_window_auc_approx(self, window, epsilon):
        sliding_window(self.y, self.s, window, metrics=Compression(epsilon))


class ApproxAUCMemory:
    """Memory of a structure holding n distinct scores."""

    params = ([10**3, 10**6], [0.1, 1.0])
    param_names = ["n", "epsilon"]
    timeout = 600

    def setup(self, n, epsilon):
        self.y, self.s = _stream(n)

    def peakmem_add_many(self, n, epsilon):
        tracker = ApproxAUC(epsilon)
        tracker.add_many(self.y, self.s)

    def track_structure_bytes_per_point(self, n, epsilon):
        tracker = ApproxAUC(epsilon)
        tracker.add_many(self.y, self.s)
        return tracker.nbytes / n

    track_structure_bytes_per_point.unit = "bytes/point"
