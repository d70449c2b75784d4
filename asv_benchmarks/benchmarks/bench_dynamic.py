"""asv benchmarks of the streaming structures and sliding_window (peers: ratios.py)."""

import numpy as np

from hmeasure_stream import (
    ApproxH,
    DynamicAUC,
    DynamicH,
    HCost,
    SlidingWindow,
    sliding_window,
)

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

    def peakmem_sliding_window(self, window):
        sliding_window(self.y, self.s, window)


class _PythonLoop:
    """One Python-level step: add a point, remove the oldest, read the metric."""

    params = [10**3, 10**5]
    param_names = ["window"]
    metric = "auc"

    def make_tracker(self):
        raise NotImplementedError

    def setup(self, window, *options):
        # A cyclic stream: the tracker always holds the last `window` points.
        y, s = _stream(window + STEPS)
        self.y, self.s = y.tolist(), s.tolist()
        self.length = window + STEPS
        self.tracker = self.make_tracker(*options)
        self.tracker.add_many(y[:window], s[:window])
        self.position = window

    def time_add_remove_read(self, window, *options):
        new = self.position % self.length
        old = (self.position - window) % self.length
        self.tracker.add(self.y[new], self.s[new])
        self.tracker.remove(self.y[old], self.s[old])
        _ = getattr(self.tracker, self.metric)  # reading is part of the step
        self.position += 1


class DynamicAUCPythonLoop(_PythonLoop):
    def make_tracker(self):
        return DynamicAUC()


class DynamicHPythonLoop(_PythonLoop):
    metric = "h"

    def make_tracker(self):
        return DynamicH()


class ApproxHPythonLoop(_PythonLoop):
    params = ([10**3, 10**5], [0.1, 1.0])
    param_names = ["window", "epsilon"]
    metric = "h"

    def make_tracker(self, epsilon):
        return ApproxH(epsilon, priors=(0.3, 0.7))


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


class SlidingWindowApproxH:
    """Per-step cost of the approximate H (fixed priors) in the compiled loop."""

    params = ([2 * 10**4, 10**5], [0.1, 1.0])
    param_names = ["window", "epsilon"]
    timeout = 600

    def setup(self, window, epsilon):
        self.y, self.s = _stream(window + 5_000)

    def time_sliding_window_approx_h(self, window, epsilon):
        sliding_window(self.y, self.s, window,
                       metrics=HCost(relative_error=epsilon, priors=(0.3, 0.7)))


class DynamicHMemory:
    """Memory of the hull structures holding n distinct scores (unit weights)."""

    params = ([10**3, 10**6], ["DynamicH", "ApproxH"])
    param_names = ["n", "structure"]
    timeout = 600

    def setup(self, n, structure):
        self.y, self.s = _stream(n)
        self.make = DynamicH if structure == "DynamicH" else lambda: ApproxH(0.1)

    def peakmem_add_many(self, n, structure):
        tracker = self.make()
        tracker.add_many(self.y, self.s)

    def track_structure_bytes_per_point(self, n, structure):
        tracker = self.make()
        tracker.add_many(self.y, self.s)
        return tracker.nbytes / n

    track_structure_bytes_per_point.unit = "bytes/point"


class DynamicHReport:
    """Reading DynamicH.report() (R hmeasure's summary) of n points, against its growth."""

    params = [10**4, 10**5, 10**6]
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        y, s = _stream(n)
        self.tracker = DynamicH()
        self.tracker.add_many(y, s)
        self.tracker.report()  # builds the lower hull once

    def time_report(self, n):
        self.tracker.report()


class DynamicAUCVariance:
    """DeLong's variance maintained by DynamicAUC: reads, and window steps with it."""

    params = [10**4, 10**5, 10**6]
    param_names = ["n"]
    timeout = 300

    def setup(self, n):
        y, s = _stream(n + STEPS)
        self.tracker = DynamicAUC(variance=True)
        self.tracker.add_many(y[:n], s[:n])
        self.y, self.s = y[n:], s[n:]

    def time_read_auc_variance(self, n):
        _ = self.tracker.auc_variance

    def time_read_auc_ci(self, n):
        self.tracker.auc_ci(0.95)


class SlidingWindowVariance:
    """A window step (add, remove, record) of the AUC with and without its variance."""

    params = ([10**3, 10**5], [("auc",), ("auc", "auc_var", "auc_lo", "auc_hi")])
    param_names = ["window", "metrics"]
    timeout = 300

    def setup(self, window, metrics):
        self.y, self.s = _stream(window + STEPS)
        self.window = window
        self.metrics = metrics

    def time_update(self, window, metrics):
        tracker = SlidingWindow(window, metrics)
        tracker.update(self.y, self.s)


class DynamicAUCUpdates:
    """add_many then remove_many of n points, with and without the variance."""

    params = ([10**5, 10**6], [False, True])
    param_names = ["n", "variance"]
    timeout = 300

    def setup(self, n, variance):
        self.y, self.s = _stream(n)
        self.order = np.random.default_rng(1).permutation(n)

    def time_add_remove(self, n, variance):
        tracker = DynamicAUC(variance=variance)
        tracker.add_many(self.y, self.s)
        tracker.remove_many(self.y[self.order], self.s[self.order])


class DynamicAUCApproxAP:
    """Reading DynamicAUC.average_precision within epsilon of n points, against its growth."""

    params = ([10**4, 10**5, 10**6], [0.1, 0.01])
    param_names = ["n", "epsilon"]
    timeout = 300

    def setup(self, n, epsilon):
        y, s = _stream(n)
        self.tracker = DynamicAUC()
        self.tracker.add_many(y, s)

    def time_read_average_precision(self, n, epsilon):
        self.tracker.average_precision(relative_error=epsilon)
