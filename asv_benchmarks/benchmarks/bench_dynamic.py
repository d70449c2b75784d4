"""asv benchmarks of DynamicAUC and sliding_window (peers: asv_benchmarks/ratios.py)."""

import numpy as np

from hmeasure_stream import DynamicAUC, DynamicH, sliding_window

STEPS = 20_000


def _stream(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, n), rng.random(n)


class SlidingWindowAUC:
    """Per-step cost of the compiled sliding-window loop (add + remove + read)."""

    params = [10**3, 10**4, 10**5, 10**6]
    param_names = ["window"]
    timeout = 300

    def setup(self, window):
        self.y, self.s = _stream(window + STEPS)

    def time_sliding_window(self, window):
        sliding_window(self.y, self.s, window)


class DynamicAUCPythonLoop:
    """One Python-level step: add a point, remove the oldest, read the AUC."""

    params = [10**3, 10**5]
    param_names = ["window"]

    def setup(self, window):
        # A cyclic stream: the tracker always holds the last `window` points.
        y, s = _stream(window + STEPS)
        self.y, self.s = y.tolist(), s.tolist()
        self.length = window + STEPS
        self.tracker = DynamicAUC()
        self.tracker.add_many(y[:window], s[:window])
        self.position = window

    def time_add_remove_read(self, window):
        new = self.position % self.length
        old = (self.position - window) % self.length
        self.tracker.add(self.y[new], self.s[new])
        self.tracker.remove(self.y[old], self.s[old])
        _ = self.tracker.auc  # reading is part of the step
        self.position += 1


class DynamicAUCMemory:
    """Peak memory of a structure holding n distinct scores (unit weights)."""

    params = [10**3, 10**6]
    param_names = ["n"]

    def setup(self, n):
        self.y, self.s = _stream(n)

    def peakmem_add_many(self, n):
        tracker = DynamicAUC()
        tracker.add_many(self.y, self.s)

    def track_structure_bytes_per_point(self, n):
        tracker = DynamicAUC()
        tracker.add_many(self.y, self.s)
        return tracker.nbytes / n

    track_structure_bytes_per_point.unit = "bytes/point"


class SlidingWindowH:
    """Per-step cost of the maintained hull in the compiled sliding-window loop."""

    params = [2 * 10**4, 10**5, 10**6]
    param_names = ["window"]
    timeout = 600

    def setup(self, window):
        self.y, self.s = _stream(window + 5_000)

    def time_sliding_window_h(self, window):
        sliding_window(self.y, self.s, window, metrics=("h", "auch"))


class DynamicHMemory:
    """Memory of DynamicH holding n distinct scores (unit weights)."""

    params = [10**3, 10**6]
    param_names = ["n"]
    timeout = 600

    def setup(self, n):
        self.y, self.s = _stream(n)

    def peakmem_add_many(self, n):
        tracker = DynamicH()
        tracker.add_many(self.y, self.s)

    def track_structure_bytes_per_point(self, n):
        tracker = DynamicH()
        tracker.add_many(self.y, self.s)
        return tracker.nbytes / n

    track_structure_bytes_per_point.unit = "bytes/point"
