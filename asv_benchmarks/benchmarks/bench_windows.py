"""asv benchmarks of windows and decay on the structures (ratios: ratios.py --part windows)."""

from collections import deque

import numpy as np

from hmeasure_stream import DynamicAUC, DynamicH, sliding_window

STEPS = 5_000
WINDOW = 1000


def _stream(n, seed=0):
    rng = np.random.default_rng(seed)
    times = 1.7e9 + np.cumsum(rng.choice([0.0, 0.5, 1.0, 2.5], size=n))
    return rng.integers(0, 2, n).tolist(), rng.random(n).tolist(), times.tolist()


class StructureWindows:
    """One Python-level step (add, read) on a full window, against manual removals."""

    params = [["DynamicAUC", "DynamicH"],
              ["count", "manual count", "time", "manual time", "decay", "plain"]]
    param_names = ["structure", "kind"]

    def setup(self, structure, kind):
        make = {"DynamicAUC": DynamicAUC, "DynamicH": DynamicH}[structure]
        options = {"count": {"window": WINDOW}, "time": {"window": f"{WINDOW}s"},
                   "decay": {"half_life": WINDOW / 60}}.get(kind, {})
        self.tracker = make(**options)
        self.kind = kind
        self.queue = deque()
        self.labels, self.scores, self.times = _stream(2 * WINDOW + STEPS)
        self._run(range(2 * WINDOW))  # fill the window
        self.steps = range(2 * WINDOW, 2 * WINDOW + STEPS)

    def _run(self, indices):
        tracker, queue, kind = self.tracker, self.queue, self.kind
        labels, scores, times = self.labels, self.scores, self.times
        for i in indices:
            if kind in ("count", "decay"):
                tracker.add(labels[i], scores[i])
            elif kind == "time":
                tracker.add(labels[i], scores[i], time=times[i])
            elif kind == "manual time":
                while queue and queue[0][0] <= times[i] - WINDOW:
                    _, label, score = queue.popleft()
                    tracker.remove(label, score)
                tracker.add(labels[i], scores[i])
                queue.append((times[i], labels[i], scores[i]))
            else:  # manual count, plain (the decay's points held, unit weights)
                tracker.add(labels[i], scores[i])
                queue.append((labels[i], scores[i]))
                if len(queue) > WINDOW:
                    tracker.remove(*queue.popleft())
            _ = tracker.auc

    def time_steps(self, structure, kind):
        self._run(self.steps)


class SlidingWindowTimes:
    """sliding_window with a time window or decay, per call on 10^5 points."""

    params = [["1000s", "decay", "count"]]
    param_names = ["kind"]

    def setup(self, kind):
        labels, scores, times = _stream(100_000)
        self.y, self.s, self.t = np.array(labels), np.array(scores), np.array(times)

    def time_sliding_window(self, kind):
        if kind == "decay":
            sliding_window(self.y, self.s, None, ("auc", "h"), half_life=WINDOW / 60)
        elif kind == "count":
            sliding_window(self.y, self.s, WINDOW, ("auc", "h"))
        else:
            sliding_window(self.y, self.s, kind, ("auc", "h"), times=self.t)


class WindowMemory:
    """Peak memory of a count window fed 10^6 points in batches: flat in the stream length."""

    def setup(self):
        rng = np.random.default_rng(0)
        self.y, self.s = rng.integers(0, 2, 10**6), rng.random(10**6)

    def peakmem_count_window(self):
        tracker = DynamicAUC(window=WINDOW)
        for start in range(0, 10**6, 10**5):
            tracker.add_many(self.y[start:start + 10**5], self.s[start:start + 10**5])
