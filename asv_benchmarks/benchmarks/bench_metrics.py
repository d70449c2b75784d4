"""asv benchmarks of the from-scratch metrics (peers: asv_benchmarks/ratios.py)."""

import numpy as np

from hmeasure_stream import (
    auc,
    average_precision,
    h_measure,
    hmeasure_report,
    roc_curve,
    roc_hull,
)


def _data(n, ties=False):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    if ties:
        s = np.round(s, 1)
    return y, s, rng.exponential(size=n)


class Auc:
    params = ([10**4, 10**5, 10**6], [False, True])
    param_names = ["n", "ties"]

    def setup(self, n, ties):
        self.y, self.s, self.w = _data(n, ties)

    def time_auc(self, n, ties):
        auc(self.y, self.s)

    def time_auc_weighted(self, n, ties):
        auc(self.y, self.s, sample_weight=self.w)

    def time_numpy_sort_baseline(self, n, ties):
        np.sort(self.s)

    def peakmem_auc(self, n, ties):
        auc(self.y, self.s)


class Curves:
    """The curves, which sort as ``auc`` does (the sort's ratios: ``ratios.py --part sort``)."""

    params = ([10**4, 10**5, 10**6], [False, True])
    param_names = ["n", "ties"]

    def setup(self, n, ties):
        self.y, self.s, _ = _data(n, ties)

    def time_roc_curve(self, n, ties):
        roc_curve(self.y, self.s)

    def time_average_precision(self, n, ties):
        average_precision(self.y, self.s)


class HMeasure:
    params = ([10**4, 10**5, 10**6], [False, True])
    param_names = ["n", "ties"]

    def setup(self, n, ties):
        self.y, self.s, self.w = _data(n, ties)

    def time_h_measure(self, n, ties):
        h_measure(self.y, self.s)

    def time_h_measure_fixed_priors(self, n, ties):
        h_measure(self.y, self.s, severity_ratio="prior", priors=(0.9, 0.1))

    def time_h_measure_weighted(self, n, ties):
        h_measure(self.y, self.s, sample_weight=self.w)

    def time_roc_hull(self, n, ties):
        roc_hull(self.y, self.s)

    def time_hmeasure_report(self, n, ties):
        hmeasure_report(self.y, self.s)

    def peakmem_h_measure(self, n, ties):
        h_measure(self.y, self.s)


class Plots:
    """The plot helpers (matplotlib, Agg backend): ROC with hull, metrics over time."""

    params = [10**4, 10**5]
    param_names = ["n"]

    def setup(self, n):
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot

        from hmeasure_stream import sliding_window

        self.pyplot = pyplot
        self.y, self.s, _ = _data(n)
        self.curves = sliding_window(self.y, self.s, 1000, metrics=("auc", "h"))

    def time_plot_roc(self, n):
        from hmeasure_stream.plotting import plot_roc

        plot_roc(self.y, self.s)
        self.pyplot.close("all")

    def time_plot_metrics(self, n):
        from hmeasure_stream.plotting import plot_metrics

        plot_metrics(self.curves)
        self.pyplot.close("all")
