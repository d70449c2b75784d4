"""asv benchmarks of pos_label and the river adapter (peers: ratios.py --part labels)."""

import numpy as np

from hmeasure_stream import DynamicAUC, auc

POINTS = 20_000


def _stream(n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 2, n), rng.random(n)


class AddLoop:
    """DynamicAUC.add of labels 0/1, and of string labels with pos_label."""

    params = ["ints", "strings"]
    param_names = ["labels"]

    def setup(self, labels):
        y, s = _stream(POINTS)
        self.scores = s.tolist()
        if labels == "ints":
            self.labels, self.options = y.tolist(), {}
        else:
            self.labels = np.where(y == 1, "pos", "neg").tolist()
            self.options = {"pos_label": "pos"}

    def time_add(self, labels):
        add = DynamicAUC(**self.options).add
        for label, score in zip(self.labels, self.scores, strict=True):
            add(label, score)


class FromScratchLabels:
    """auc of 10^6 points: labels 0/1, and strings with pos_label (one more pass)."""

    params = ["ints", "strings"]
    param_names = ["labels"]

    def setup(self, labels):
        y, self.s = _stream(10**6)
        self.y, self.options = y, {}
        if labels == "strings":
            self.y, self.options = np.where(y == 1, "pos", "neg"), {"pos_label": "pos"}

    def time_auc(self, labels):
        auc(self.y, self.s, **self.options)


class RiverROCAUC:
    """hmeasure_stream.river.ROCAUC: update + get per point, in a window of 1000."""

    def setup(self):
        y, s = _stream(POINTS)
        self.labels, self.scores = y.astype(bool).tolist(), s.tolist()

    def time_update_get(self):
        from hmeasure_stream.river import ROCAUC

        metric = ROCAUC(window=1000)
        for label, score in zip(self.labels, self.scores, strict=True):
            metric.update(label, score)
            metric.get()
