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
    ax = plot_roc(y, s, name="model")
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
    ax = plot_roc(y, s, name="model A", h=True)
    s_b = np.round(s + np.random.default_rng(1).normal(size=s.shape[0]), 1)
    plot_roc(y, s_b, name="model B", ax=ax)
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
    display = RocDisplay.from_predictions(y, s, color="tab:orange", name="m")
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
    plot_roc(y, s, ax=ax, name="a")
    plot_roc(y, -s, ax=ax, name="b", linewidth=3.0, chance=False)
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
    ax = plot_roc(tracker, h=True, name="live")
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
        ({"auc": [0.5]}, {"min_periods": 0}, "min_periods must be at least 1; got 0"),
        ({"auc": [0.5]}, {"min_periods": 2.5}, "min_periods must be an integer from 1 to"),
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
    ax = plot_reliability(y, p, n_bins=8, name="model")
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


def test_plot_metrics_zooms_to_what_is_drawn():
    # A wobble of 0.94 to 0.96 with a band 0.93 to 0.97: the axis spans the band with a
    # margin of 5% of it, so the wobble fills the axes instead of 2% of [0, 1].
    x = np.linspace(0, 6, 300)
    auc = 0.95 + 0.01 * np.sin(x)
    values = {"auc": auc, "auc_lo": auc - 0.01, "auc_hi": auc + 0.01, "h": auc - 0.05}
    ax = plot_metrics(values)
    low, high = float(values["h"].min()), float(values["auc_hi"].max())  # ~0.89, ~0.97
    span = high - low
    np.testing.assert_allclose(ax.get_ylim(), (low - 0.05 * span, high + 0.05 * span))
    # Hidden values (min_periods) do not count; reference lines do.
    wild = auc.copy()
    wild[:10] = 0.2
    ax = plot_metrics({"auc": wild}, min_periods=11, reference=0.9)
    top = float(wild[10:].max())
    np.testing.assert_allclose(ax.get_ylim(), (0.9 - 0.05 * (top - 0.9),
                                               top + 0.05 * (top - 0.9)))
    # "full" keeps [0, 1]; a pair is taken as given; a flat line gets a span.
    assert plot_metrics(values, ylim="full").get_ylim() == pytest.approx((-0.02, 1.02))
    assert plot_metrics(values, ylim=(0.5, 1)).get_ylim() == (0.5, 1.0)
    np.testing.assert_allclose(plot_metrics({"auc": np.full(5, 0.8)}).get_ylim(),
                               (0.76, 0.84))
    # Nothing finite to draw: [0, 1].
    assert plot_metrics({"auc": np.full(5, np.nan)}).get_ylim() == pytest.approx((-0.02, 1.02))


@pytest.mark.parametrize("ylim", ["zoom", (1, 0), (0, np.inf), (0,), 3, ("a", "b")])
def test_plot_metrics_refuses_a_bad_ylim(ylim):
    with pytest.raises(ValueError, match="ylim"):
        plot_metrics({"auc": np.linspace(0.5, 0.9, 5)}, ylim=ylim)
    assert plt.get_fignums() == []


# -- plot_metrics over time: the date axis, the window in words, the band's level ----


def _hours(n, start="2026-03-01T00:00"):
    rng = np.random.default_rng(7)
    steps = rng.integers(1, 600, n).astype("timedelta64[s]")
    return np.datetime64(start) + np.cumsum(steps)


@pytest.mark.parametrize("as_type", ["datetime64", "pandas", "pandas utc", "datetime"])
def test_plot_metrics_draws_times_at_their_date_numbers(as_type):
    stamps = _hours(300)
    # The times' own date numbers: days since matplotlib's epoch, from the standard library.
    epoch = datetime.datetime(1970, 1, 1)
    expected = [(t - epoch) / datetime.timedelta(days=1)
                for t in stamps.astype("datetime64[us]").tolist()]
    rows = {"datetime64": stamps, "pandas": pd.DatetimeIndex(stamps),
            "pandas utc": pd.DatetimeIndex(stamps).tz_localize("UTC"),
            "datetime": stamps.astype("datetime64[us]").tolist()}[as_type]
    values = np.linspace(0.6, 0.9, 300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = plot_metrics({"auc": values}, rows=rows, window="2h")
        ax.figure.canvas.draw()
    assert [str(w.message) for w in caught] == []
    np.testing.assert_allclose(ax.lines[0].get_xdata(orig=False), expected, rtol=0,
                               atol=1e-9)
    np.testing.assert_allclose(ax.lines[0].get_xdata(orig=False),
                               matplotlib.dates.date2num(stamps), rtol=0, atol=1e-12)
    assert isinstance(ax.xaxis.get_major_formatter(), matplotlib.dates.ConciseDateFormatter)
    assert isinstance(ax.xaxis.get_major_locator(), matplotlib.dates.AutoDateLocator)
    assert ax.get_title() == "sliding window of 2 h"
    assert ax.get_xlabel() == "time"
    # The ticks are times within the data's span (not row numbers).
    ticks = [tick for tick in ax.get_xticks()
             if expected[0] <= tick <= expected[-1]]
    assert len(ticks) >= 2


@pytest.mark.parametrize(("window", "half_life", "title"), [
    (200, None, "sliding window of 200 rows"),
    (1, None, "sliding window of 1 row"),
    (np.int64(50), None, "sliding window of 50 rows"),
    ("2h", None, "sliding window of 2 h"),
    ("24h", None, "sliding window of 24 h"),
    ("1h30min", None, "sliding window of 1 h 30 min"),
    ("1.5 days", None, "sliding window of 1.5 days"),
    (datetime.timedelta(minutes=90), None, "sliding window of 1 h 30 min"),
    (np.timedelta64(36, "h"), None, "sliding window of 1 d 12 h"),
    (pd.Timedelta(seconds=45, milliseconds=250), None, "sliding window of 45 s 250 ms"),
    (None, None, "every prefix"),
    (None, 50, "exponential decay, half-life 50 rows"),
    (None, "30min", "exponential decay, half-life 30 min"),
    ("3h", "30min", "sliding window of 3 h, half-life 30 min"),
    (500, 100.5, "sliding window of 500 rows, half-life 100.5 rows"),
    (500, np.timedelta64(2, "h"), "sliding window of 500 rows, half-life 2 h"),
])
def test_plot_metrics_says_the_window_in_its_units(window, half_life, title):
    ax = plot_metrics({"auc": [0.5, 0.6]}, window=window, half_life=half_life)
    assert ax.get_title() == title
    assert ax.get_legend().get_title().get_text() == ""
    # With a title of one's own, the window is the legend's title.
    ax = plot_metrics({"auc": [0.5, 0.6]}, window=window, half_life=half_life, title="model A")
    assert ax.get_title() == "model A"
    assert ax.get_legend().get_title().get_text() == title


def test_plot_metrics_without_a_window_says_none():
    ax = plot_metrics({"auc": [0.5, 0.6]})
    assert ax.get_title() == ""
    assert ax.get_legend().get_title().get_text() == ""


@pytest.mark.parametrize("level", [None, 0.9, 0.99, 0.999])
def test_plot_metrics_band_says_its_confidence_level(rng, level):
    from hmeasure_stream import ConfidenceLevel, auc_ci

    y = rng.integers(0, 2, 300)
    s = rng.normal(size=300) + y
    options = ConfidenceLevel() if level is None else ConfidenceLevel(level)
    result = sliding_window(y, s, 100, metrics=("auc", options))
    percent = {None: "95%", 0.9: "90%", 0.99: "99%", 0.999: "99.9%"}[level]
    for given in ({} if level is None else {"level": level}, {"level": options}):
        ax = plot_metrics(result, **given)
        assert legend_texts(ax) == ["AUC", f"AUC {percent} CI (DeLong)"]
        (band,) = ax.collections
        # The band's last interval is that of the last window at this level.
        interval = auc_ci(y[-100:], s[-100:], level=options.level)
        top = band.get_paths()[0].vertices
        assert np.nanmax(top[:, 1]) >= interval.high - 1e-12
        assert result["auc_hi"][-1] == pytest.approx(interval.high, abs=1e-12)
        assert result["auc_lo"][-1] == pytest.approx(interval.low, abs=1e-12)
    # A band of one's own keeps its name: its level is not known.
    ax = plot_metrics({"auc": result["auc"]},
                      bands={"auc": (result["auc_lo"], result["auc_hi"])})
    assert legend_texts(ax) == ["AUC", "AUC band"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"window": 0}, r"window must be at least 1; got 0"),
    ({"window": 2.5}, "window must be an integer from 1 to .*; got 2.5"),
    ({"window": True}, "window must be an integer from 1 to .*; got True"),
    ({"window": "2 parsecs"}, "window '2 parsecs' is not a duration"),
    ({"window": "1M"}, "window '1M' is ambiguous"),
    ({"half_life": 0}, "half_life must be a number of rows > 0 or a duration; got 0"),
    ({"half_life": float("nan")}, "half_life must be a number of rows > 0"),
    ({"half_life": "-1h"}, "half_life '-1h' is not a duration"),
    ({"level": 1.5}, "level must be"),
    ({"level": "95%"}, "level must be"),
])
def test_plot_metrics_refuses_a_bad_window_or_level(kwargs, message):
    with pytest.raises(ValueError, match=message):
        plot_metrics({"auc": [0.5, 0.6]}, **kwargs)
    assert plt.get_fignums() == []


def test_plotting_without_matplotlib_names_the_extra(monkeypatch):
    import sys

    for name in list(sys.modules):
        if name.partition(".")[0] == "matplotlib":
            monkeypatch.setitem(sys.modules, name, None)
    calls = [lambda: plot_metrics({"auc": [0.5, 0.6]}), lambda: plot_roc([0, 1], [0.2, 0.8]),
             lambda: plot_reliability([0, 1], [0.2, 0.8])]
    for call in calls:
        with pytest.raises(ImportError) as error:
            call()
        assert str(error.value) == ("hmeasure_stream.plotting needs matplotlib, which is not "
                                    "installed: pip install 'matplotlib>=3.7'")
        assert error.value.__cause__ is None and error.value.__suppress_context__


def test_plot_metrics_issues_no_numpy_or_pandas_warning(rng):
    y = rng.integers(0, 2, 200)
    s = rng.normal(size=200) + y
    stamps = _hours(200)
    result = sliding_window(y, s, "1h", metrics=("auc", "h", "auc_lo", "auc_hi"),
                            times=stamps)
    frame = pd.DataFrame(result, index=pd.DatetimeIndex(stamps, name="at").tz_localize("UTC"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for ax in (
            plot_metrics(result, rows=stamps, window="1h", min_periods=10),
            plot_metrics(frame, window="1h"),
            plot_metrics({name: frame[name] for name in frame}),
            plot_metrics({"auc": np.full(5, np.nan), "h": np.full(5, np.nan)}),
            plot_metrics({"auc": np.full(5, 0.5)}, min_periods=50),
            plot_metrics({"auc": np.empty(0)}, rows=np.empty(0, dtype="datetime64[ns]"),
                         window="1h"),
            plot_metrics({"auc": np.empty(0)}, window=10),
        ):
            ax.figure.canvas.draw()
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
