"""asv benchmarks of labels that arrive late: DelayedAUC per step and the expected AUC from
scratch (peers, NannyML's CBPE among them: ratios.py --part delayed)."""

import numpy as np

from hmeasure_stream import DelayedAUC, expected_auc


class DelayedAUCStep:
    """One step of a full window: predict a new key (the oldest leaves), label the key
    predicted ten steps before, read every value."""

    params = ([10**3, 10**5], [None, "decay"])
    param_names = ["window", "half_life"]
    timeout = 300

    def setup(self, window, half_life):
        rng = np.random.default_rng(0)
        self.length = 2 * window + 10
        self.scores = rng.random(self.length).tolist()
        self.labels = (rng.random(self.length) < np.asarray(self.scores)).tolist()
        self.monitor = DelayedAUC(window, ("auc", "h"),
                                  half_life=None if half_life is None else window / 10)
        for key in range(window):
            self.monitor.predict(key, self.scores[key])
            if key >= 10:
                self.monitor.label(key - 10, self.labels[key - 10])
        self.key = window

    def time_predict_label_read(self, window, half_life):
        key = self.key
        self.key = key + 1
        self.monitor.predict(key, self.scores[key % self.length])
        self.monitor.label(key - 10, self.labels[(key - 10) % self.length])
        self.monitor.results()


class ExpectedAUC:
    """The expected AUC of n calibrated probabilities from scratch (one stable sort)."""

    params = [10**4, 10**5, 10**6]
    param_names = ["n"]

    def setup(self, n):
        self.probs = np.random.default_rng(0).beta(2.0, 5.0, n)

    def time_expected_auc(self, n):
        expected_auc(self.probs)
