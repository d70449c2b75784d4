import datetime
import pickle
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from hmeasure import h_score
from matplotlib.colors import to_rgb, to_rgba
from reference_impl import to_unit_interval
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score, roc_curve

from hmeasure_stream import ApproxH, DynamicAUC, DynamicH, roc_hull, sliding_window
from hmeasure_stream.plotting import RocDisplay, plot_metrics, plot_reliability, plot_roc

matplotlib.use("Agg")
import matplotlib.pyplot as plt


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def data(rng):
    y = rng.integers(0, 2, 400)
    s = np.round(rng.normal(size=400) + y, 1)
    return y, s


def legend_texts(ax):
    return [text.get_text() for text in ax.get_legend().get_texts()]


def port_h(y, s):
    """H with Beta(2, 2) costs (severity ratio 1) from the `hmeasure` package, R's port."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return h_score(np.asarray(y), to_unit_interval(s), severity_ratio=1.0)


# -- plot_roc -----------------------------------------------------------------


def test_plot_roc_draws_the_roc_curve_and_the_hull(data):
    y, s = data
    ax = plot_roc(y, s, label="model")
    _diagonal, curve, hull = ax.lines
    fpr, tpr, _ = roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(curve.get_xdata(), fpr, atol=1e-15)
    np.testing.assert_allclose(curve.get_ydata(), tpr, atol=1e-15)
    hull_fpr, hull_tpr = roc_hull(y, s)
    np.testing.assert_allclose(hull.get_xdata(), hull_fpr, rtol=1e-15)
    np.testing.assert_allclose(hull.get_ydata(), hull_tpr, rtol=1e-15)
    assert ax.get_xlabel() == "false positive rate"
    assert ax.get_ylabel() == "true positive rate"


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_plot_roc_legend_shows_the_auc_and_h_once_per_classifier(data):
    y, s = data
    ax = plot_roc(y, s, label="model A", h=True)
    s_b = np.round(s + np.random.default_rng(1).normal(size=s.shape[0]), 1)
    plot_roc(y, s_b, label="model B", ax=ax)
    plot_roc(y, -s, ax=ax, hull=False)
    assert legend_texts(ax) == [
        f"model A (AUC = {roc_auc_score(y, s):.3f}, H = {port_h(y, s):.3f})",
        f"model B (AUC = {roc_auc_score(y, s_b):.3f})",
        f"AUC = {roc_auc_score(y, -s):.3f}",
    ]
    # One chance diagonal however many curves; the legend says which line is which.
    assert sum(line.get_linestyle() == ":" for line in ax.lines) == 1
    assert ax.get_legend().get_title().get_text() == "solid: ROC curve, dashed: convex hull"


def test_plot_roc_h_options_reach_h_measure(data):
    y, s = data
    ax = plot_roc(y, s, h={"severity_ratio": "prior"})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = h_score(np.asarray(y), to_unit_interval(s))  # the port's default: "prior"
    assert legend_texts(ax) == [f"AUC = {roc_auc_score(y, s):.3f}, H = {expected:.3f}"]


def test_hull_is_distinct_from_its_curve_in_colour_and_style(data):
    y, s = data
    display = RocDisplay.from_predictions(y, s, color="tab:orange", label="m")
    curve, hull = display.line_, display.hull_line_
    assert to_rgb(curve.get_color()) == to_rgb("tab:orange")
    # The hull: the same hue, darker, dashed, with a marker at each vertex.
    assert to_rgb(hull.get_color()) == pytest.approx(
        tuple(0.55 * c for c in to_rgb("tab:orange")))
    assert curve.get_linestyle() == "-"
    assert hull.get_linestyle() == "--"
    assert hull.get_marker() == "o"
    assert display.ax_ is curve.axes and display.figure_ is curve.figure
    # The legend entry shows curve and hull side by side.
    (handle,) = display.ax_.get_legend().legend_handles
    assert handle is not None


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_plot_roc_uses_the_axes_colour_cycle_and_passes_keywords(data):
    y, s = data
    fig, ax = plt.subplots()
    plot_roc(y, s, ax=ax, label="a")
    plot_roc(y, -s, ax=ax, label="b", linewidth=3.0, chance=False)
    curves = [line for line in ax.lines if line.get_label() and line.get_label()[0] != "_"]
    assert [to_rgba(line.get_color()) for line in curves] == [to_rgba("C0"), to_rgba("C1")]
    assert curves[1].get_linewidth() == 3.0
    assert ax.figure is fig


@pytest.mark.parametrize("structure", [DynamicAUC, DynamicH, lambda: ApproxH(0.5)])
def test_plot_roc_of_a_structure_equals_its_arrays(data, structure):
    y, s = data
    tracker = structure()
    tracker.add_many(y, s)
    from_structure = plot_roc(tracker).lines
    from_arrays = plot_roc(y, s).lines
    for a, b in zip(from_structure, from_arrays, strict=True):
        np.testing.assert_allclose(a.get_xydata(), b.get_xydata(), rtol=1e-15)
        assert a.get_label() == b.get_label()


def test_plot_roc_shows_the_h_of_a_dynamic_h(data):
    y, s = data
    tracker = DynamicH()
    tracker.add_many(y, s)
    ax = plot_roc(tracker, h=True, label="live")
    assert legend_texts(ax) == [
        f"live (AUC = {roc_auc_score(y, s):.3f}, H = {port_h(y, s):.3f})"]


def test_plot_roc_refuses_bad_calls(data):
    y, s = data
    tracker = DynamicAUC()
    with pytest.raises(ValueError, match="undefined while a class is absent"):
        plot_roc(tracker)
    tracker.add_many(y, s)
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="either a DynamicAUC or arrays"):
        plot_roc(tracker, s)
    with pytest.raises(ValueError, match="h=True needs a DynamicH or ApproxH; a DynamicAUC"):
        plot_roc(tracker, h=True)
    with pytest.raises(ValueError, match="h options are for arrays"):
        plot_roc(tracker, h={"alpha": 3})
    assert pickle.dumps(tracker) == before
    with pytest.raises(ValueError, match="y_score is required"):
        plot_roc(y)
    with pytest.raises(ValueError, match="only one class"):
        plot_roc(np.ones(5), np.arange(5.0))
    with pytest.raises(ValueError, match="h must be True, False or a dict"):
        plot_roc(y, s, h="yes")
    with pytest.raises(ValueError, match="structure must be a DynamicAUC"):
        RocDisplay.from_structure([0, 1])


# -- plot_metrics -------------------------------------------------------------


def test_plot_metrics_draws_each_metric(data):
    y, s = data
    result = sliding_window(y, s, 50)
    ax = plot_metrics(result, rows=np.arange(400) + 1000, title="t")
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_xdata(), np.arange(400) + 1000)
    np.testing.assert_array_equal(line.get_ydata(), result["auc"])
    assert ax.get_title() == "t"
    assert ax.get_xlabel() == "row"
    assert ax.get_ylabel() == "AUC"


def test_plot_metrics_keeps_labels_as_given_and_names_the_y_axis():
    values = np.linspace(0.5, 0.9, 20)
    ax = plot_metrics({"AUC of Model v2": values, "auc": values[::-1], "h": values / 2})
    assert legend_texts(ax) == ["AUC of Model v2", "AUC", "H"]
    assert ax.get_ylabel() == "metric value"
    assert [to_rgba(line.get_color()) for line in ax.lines] == [
        to_rgba("C0"), to_rgba("C1"), to_rgba("C2")]
    ax = plot_metrics({"x": values}, ylabel="AUC (window of 1000)", xlabel="case",
                      colors={"x": "black"})
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("case", "AUC (window of 1000)")
    assert to_rgba(ax.lines[0].get_color()) == to_rgba("black")


def test_plot_metrics_min_periods_hides_the_partial_windows(data):
    y, s = data
    result = sliding_window(y, s, 50)
    ax = plot_metrics(result, min_periods=50)
    drawn = ax.lines[0].get_ydata()
    assert np.isnan(drawn[:49]).all()
    # From the first full window on, the values are the full windows' AUCs.
    for end in (50, 51, 200, 400):
        assert drawn[end - 1] == pytest.approx(roc_auc_score(y[end - 50:end], s[end - 50:end]),
                                               abs=1e-15)
    assert not np.isnan(result["auc"][:49]).all()  # the input is left as it was


def test_plot_metrics_time_axis_from_the_index_or_rows():
    times = pd.date_range("2026-01-01", periods=500, freq="h", name="scored at")
    frame = pd.DataFrame({"auc": np.linspace(0.6, 0.8, 500)}, index=times)
    ax = plot_metrics(frame)
    assert ax.get_xlabel() == "scored at"
    formatter = ax.xaxis.get_major_formatter()
    assert type(formatter).__name__ == "ConciseDateFormatter"
    assert matplotlib.dates.num2date(ax.lines[0].get_xdata(orig=False)[0]).replace(
        tzinfo=None) == datetime.datetime(2026, 1, 1)
    stamps = np.datetime64("2026-03-01T00:00") + np.arange(500) * np.timedelta64(1, "m")
    ax = plot_metrics({"auc": np.full(500, 0.7)}, rows=stamps)
    assert ax.get_xlabel() == "time"
    assert type(ax.xaxis.get_major_formatter()).__name__ == "ConciseDateFormatter"
    ax = plot_metrics({"auc": [0.5, 0.6]}, rows=pd.Index([10, 20], name="batch"))
    assert ax.get_xlabel() == "batch"


def test_plot_metrics_reference_lines_and_bands():
    n = 30
    auc_values = np.linspace(0.7, 0.9, n)
    lower, upper = auc_values - 0.05, auc_values + 0.05
    ax = plot_metrics({"auc": auc_values}, reference={"alert": 0.75},
                      bands={"auc": (lower, upper), "target": (0.8, 0.85)})
    assert legend_texts(ax) == ["AUC", "AUC band", "target", "alert"]
    alert = ax.lines[1]
    assert list(alert.get_ydata()) == [0.75, 0.75]
    band, target = ax.collections
    # The band of a metric takes its colour; the band's outline is the bounds.
    assert to_rgb(band.get_facecolor()[0]) == to_rgb(ax.lines[0].get_color())
    vertices = band.get_paths()[0].vertices
    assert vertices[:, 1].min() == pytest.approx(lower.min())
    assert vertices[:, 1].max() == pytest.approx(upper.max())
    target_y = target.get_paths()[0].vertices[:, 1]
    assert (target_y.min(), target_y.max()) == pytest.approx((0.8, 0.85))
    ax = plot_metrics({"auc": auc_values}, reference=[0.6, 0.9])
    assert legend_texts(ax) == ["AUC", "0.6", "0.9"]


def test_plot_metrics_legend_is_outside_the_data():
    ax = plot_metrics({"auc": np.linspace(0, 1, 50), "h": np.linspace(1, 0, 50)})
    ax.figure.canvas.draw()
    renderer = ax.figure.canvas.get_renderer()
    legend_box = ax.get_legend().get_window_extent(renderer)
    assert legend_box.x0 >= ax.get_window_extent(renderer).x1
    assert plot_metrics({"auc": [0.5]}, legend=False).get_legend() is None


@pytest.mark.parametrize(
    ("metrics", "kwargs", "message"),
    [
        (None, {}, "metrics must map metric names to arrays of values .*; got NoneType"),
        ([0.5, 0.6], {}, "metrics must map metric names .*; got list"),
        ({"auc": 0.5}, {}, r"metrics\['auc'\] must be a 1-d array of values in stream order; got 0.5"),
        ({"auc": None}, {}, r"metrics\['auc'\] must be a 1-d array"),
        ({}, {}, "metrics is empty"),
        ({"auc": ["a", "b"]}, {}, r"metrics\['auc'\] must hold numbers"),
        ({"auc": [[0.5]]}, {}, r"metrics\['auc'\] must be a 1-d array of values; got shape \(1, 1\)"),
        ({"auc": [0.5, 0.6], "h": [0.1]}, {}, r"metrics\['h'\] has 1 values but metrics\['auc'\] has 2"),
        ({"auc": [0.5, 0.6]}, {"rows": [1, 2, 3]}, r"rows must be 1-d with one value per metric value \(2\)"),
        ({"auc": [0.5]}, {"min_periods": 0}, "min_periods must be a positive integer or None; got 0"),
        ({"auc": [0.5]}, {"min_periods": 2.5}, "min_periods must be a positive integer"),
        ({"auc": [0.5]}, {"reference": "high"}, "reference must be a number, a list of numbers or a dict of label to number; got 'high'"),
        ({"auc": [0.5]}, {"reference": {"x": np.nan}}, r"reference\['x'\] must be a finite number"),
        ({"auc": [0.5]}, {"bands": {"ci": 0.5}}, r"bands\['ci'\] must be a pair \(lower, upper\)"),
        ({"auc": [0.5]}, {"bands": {"ci": ([1, 2], 0.9)}}, r"bands\['ci'\]: a bound has 2 values, the metrics 1"),
        ({"auc": [0.5]}, {"bands": [(0, 1)]}, "bands must be a dict"),
        ({"auc": [0.5]}, {"colors": "red"}, "colors must be a dict"),
    ],
)
def test_plot_metrics_refuses_bad_input_with_a_clear_message(metrics, kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_metrics(metrics, **kwargs)
    assert plt.get_fignums() == []  # refused before a figure is made


# -- plot_reliability and the probability metrics -------------------------------


def test_plot_reliability_draws_calibration_curve_diagonal_and_bin_counts(rng):
    p = np.round(rng.uniform(size=300), 3)
    y = (rng.uniform(size=300) < p ** 1.5).astype(int)
    ax = plot_reliability(y, p, n_bins=8, label="model")
    diagonal, curve = ax.get_lines()
    np.testing.assert_array_equal(diagonal.get_xydata(), [[0, 0], [1, 1]])
    prob_true, prob_pred = calibration_curve(y, p, n_bins=8)
    np.testing.assert_allclose(curve.get_xdata(), prob_pred, rtol=1e-12)
    np.testing.assert_allclose(curve.get_ydata(), prob_true, rtol=1e-12)
    # The bars: one per bin of points, its height the bin's count.
    (bars,) = [other for other in ax.figure.axes if other is not ax]
    heights = [patch.get_height() for patch in bars.patches]
    index = np.searchsorted(np.linspace(0, 1, 9)[1:-1], p)
    counts = np.bincount(index, minlength=8)
    assert heights == counts[counts > 0].tolist()
    assert sum(heights) == 300
    assert legend_texts(ax)[0] == "perfectly calibrated"
    assert legend_texts(ax)[1].startswith("model (ECE = ")
    # A second model on the same axes: one diagonal; quantile bins.
    ax = plot_reliability(1 - y, 1 - p, strategy="quantile", ax=ax, counts=False)
    assert [line.get_gid() for line in ax.get_lines()].count(
        "hmeasure_stream-chance") == 1


def test_plot_reliability_refuses_what_calibration_report_refuses():
    with pytest.raises(ValueError, match="y_prob"):
        plot_reliability([0, 1], [0.2, 1.5])
    with pytest.raises(ValueError, match="n_bins"):
        plot_reliability([0, 1], [0.2, 0.5], n_bins=0)
    assert plt.get_fignums() == []


def test_plot_metrics_shows_the_probability_metrics_beyond_one(rng):
    p = rng.uniform(size=200)
    y = (rng.uniform(size=200) < 1 - p).astype(int)  # badly calibrated: log loss above 1
    result = sliding_window(y, p, 40, ("brier", "log_loss", "ece", "expected_auc"))
    ax = plot_metrics(result, min_periods=40)
    assert legend_texts(ax) == ["Brier", "log loss", "ECE", "expected AUC"]
    top = np.nanmax(result["log_loss"][39:])
    assert top > 1 and ax.get_ylim()[1] >= top
