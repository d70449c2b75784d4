"""The metric table is the one source of the window metrics, their options and engines."""

import dataclasses
import math
import pickle
import warnings

import numpy as np
import pytest
from reference_impl import brute_auc, delong_paired_exact
from scipy import stats
from sklearn.metrics import average_precision_score, cohen_kappa_score

import hmeasure_stream
from hmeasure_stream import (
    METRICS,
    WINDOW_METRICS,
    APApprox,
    Binning,
    CalibrationBins,
    Classes,
    Compression,
    ConfidenceLevel,
    FixedRates,
    HCost,
    InvertedScoresWarning,
    PartialRange,
    SlidingWindow,
    Threshold,
    auc_ci,
    auc_variance,
    binned_auc,
    brier_score,
    calibration_error,
    coords,
    expected_auc,
    h_measure,
    hmeasure_report,
    log_loss,
    multiclass_auc,
    partial_auc,
    sliding_window,
)
from hmeasure_stream import metric_table as table
from hmeasure_stream.cli import AVAILABLE_METRICS, build_parser

WINDOW = 40
N = 150
# The options each metric is checked with (beside its defaults).
OPTIONS = {
    "h": HCost(alpha=3.0, beta=1.5), "auch": HCost(alpha=3.0, beta=1.5),
    "auc_approx": Compression(0.2), "auc_binned": Binning(n_bins=20),
    "pauc": PartialRange(fpr_range=(0.0, 0.3), correction="mcclish"),
    "ks": HCost(severity_ratio=0.5), "mer": HCost(severity_ratio=0.5),
    "mwl": HCost(severity_ratio=0.5),
    **{name: Threshold(0.4) for name in ("er", "sens", "spec", "precision", "f", "youden",
                                         "gmean", "kappa", "kappa_m")},
    **{name: ConfidenceLevel(0.9) for name in ("auc_var", "auc_lo", "auc_hi")},
    **{name: FixedRates(specificity=0.8, sensitivity=0.7)
       for name in ("sens_at_spec", "spec_at_sens")},
    "multiclass_auc": Classes(["a", "b", "c"], method="ovo"),
    "ap_approx": APApprox(0.05),
    "ece": CalibrationBins(4), "mce": CalibrationBins(4),
}
# The metrics of a second model on the same rows (y_score2).
SECOND_MODEL = ("auc2", "auc_diff", "auc_diff_p")
# The metrics of the scores read as probabilities of class 1 (defined with one class).
PROBABILITY = ("brier", "log_loss", "ece", "mce", "expected_auc", "sauc")
# The metrics of one class as well (not nan while a class is absent).
ONE_CLASS = ("brier", "log_loss", "ece", "mce", "expected_auc", "prevalence")
# R hmeasure's names of the report's metrics (hmeasure_report's keys).
REPORT = {"ks": "KS", "mer": "MER", "mwl": "MWL", "er": "ER", "sens": "Sens", "spec": "Spec",
          "precision": "Precision", "f": "F", "youden": "Youden", "auch": "AUCH"}


def binary_stream(seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, N)
    s = np.round(rng.normal(size=N) * 0.8 + y * 0.7, 1)  # ties
    return y, s


def reference(name, options, y, s):
    """The metric of one window from scratch (None: the window must give nan)."""
    if name == "auc":
        return brute_auc(y, s)
    if name == "h":
        return h_measure(y, s, alpha=options.alpha, beta=options.beta)
    if name in REPORT:
        cost = options if isinstance(options, HCost) else HCost()
        threshold = options.threshold if isinstance(options, Threshold) else 0.5
        return hmeasure_report(y, s, alpha=cost.alpha, beta=cost.beta,
                               severity_ratio=cost.severity_ratio,
                               threshold=threshold)[REPORT[name]]
    if name == "gmean":
        # MOA's G-mean at the threshold, counted (class 1 at or above it).
        threshold = options.threshold if isinstance(options, Threshold) else 0.5
        predicted = s >= threshold
        return np.sqrt(np.mean(predicted[y == 1]) * np.mean(~predicted[y == 0]))
    if name in ("kappa", "kappa_m"):
        # Cohen's kappa (scikit-learn's), and Kappa-M against the window's majority class.
        threshold = options.threshold if isinstance(options, Threshold) else 0.5
        predicted = (s >= threshold).astype(int)
        if name == "kappa":
            return cohen_kappa_score(y, predicted)
        majority = max(np.mean(y), 1 - np.mean(y))
        return (np.mean(predicted == y) - majority) / (1 - majority)
    if name == "prevalence":
        return np.mean(y)
    if name == "sauc":
        # Wu, Flach and Ferri's scored AUC, pair by pair.
        gaps = s[y == 1][:, None] - s[y == 0][None, :]
        return None if gaps.size == 0 else np.mean(np.where(gaps > 0, gaps, 0.0))
    if name in ("sens_at_spec", "spec_at_sens"):
        # pROC's values (stored reference values of coords in test_curves.py).
        at, read = (("specificity", "sensitivity") if name == "sens_at_spec"
                    else ("sensitivity", "specificity"))
        return coords(y, s, getattr(options, at), input=at, ret=read)[read][0]
    if name == "ap":
        return average_precision_score(y, s)
    if name == "brier":
        return brier_score(y, s)
    if name == "log_loss":
        return log_loss(y, s)
    if name in ("ece", "mce"):
        return calibration_error(y, s, n_bins=options.n_bins,
                                 norm="l1" if name == "ece" else "max")
    if name == "expected_auc":
        return expected_auc(s) if 0 < s.sum() < len(s) else None
    if name == "auc_binned":
        return binned_auc(y, s, n_bins=options.n_bins).auc
    if name == "pauc":
        return partial_auc(y, s, fpr_range=options.fpr_range, correction=options.correction)
    if name == "auc_var":
        return auc_variance(y, s) if min(np.bincount(y, minlength=2)) >= 2 else None
    if name in ("auc_lo", "auc_hi"):
        if min(np.bincount(y, minlength=2)) < 2:
            return None
        interval = auc_ci(y, s, level=options.level)
        return interval.low if name == "auc_lo" else interval.high
    raise AssertionError(name)


def second_reference(name, y, s, s2):
    """The metrics of two models by their O(n^2) definitions (DeLong's paired test)."""
    if name == "auc2":
        return brute_auc(y, s2)
    if name == "auc_diff":
        return brute_auc(y, s) - brute_auc(y, s2)
    paired = delong_paired_exact(list(y), list(s), list(s2))
    if paired is None:
        return None
    difference, variance = paired
    if variance == 0:
        return 1.0 if difference == 0 else 0.0
    return 2 * stats.norm.sf(abs(float(difference)) / math.sqrt(variance))


def test_the_table_is_the_one_list_of_window_metrics():
    assert WINDOW_METRICS == tuple(METRICS) == hmeasure_stream.streaming.WINDOW_METRICS
    assert set(WINDOW_METRICS) == set(OPTIONS) | {"auc", "ap", "brier", "log_loss",
                                                  "expected_auc", "prevalence", "sauc",
                                                  *SECOND_MODEL}
    assert AVAILABLE_METRICS == tuple(name for name in METRICS if METRICS[name].cli)
    assert set(AVAILABLE_METRICS) <= set(WINDOW_METRICS)
    parser = build_parser()
    metrics = next(a for a in parser._actions if a.dest == "metrics")
    for name in WINDOW_METRICS:
        assert (name in metrics.help) == (name in AVAILABLE_METRICS)
        assert (METRICS[name].description in metrics.help) == (name in AVAILABLE_METRICS)
        assert name not in dir(SlidingWindow)  # read as window[name], listed by no help()
    # Every need is one of the capabilities the engine choice knows.
    capabilities = {table.EXACT_AUC, table.HULL, table.REPORT, table.LOWER_HULL, table.THRESHOLD,
                    table.VARIANCE, table.PARTIAL_BOX, table.BINS, table.COMPRESSED,
                    table.MULTICLASS, table.LEVEL, table.CURVE_WALK, table.PRECISION_GROUPS,
                    table.CALIBRATION, table.SECOND_SCORE, table.CLASS_TOTALS}
    for metric in METRICS.values():
        assert metric.needs and metric.needs <= capabilities, metric.name
        assert metric.options is None or metric.name in OPTIONS


@pytest.mark.parametrize("name", [name for name in WINDOW_METRICS if name != "multiclass_auc"])
@pytest.mark.parametrize("with_options", [False, True])
def test_every_binary_metric_equals_its_reference_on_every_window(name, with_options):
    if name == "auc_approx" and not with_options:
        with pytest.raises(ValueError, match=r"'auc_approx' needs Compression\(compression=...\)"):
            sliding_window([0, 1], [0.1, 0.2], 2, name)
        return
    y, s = binary_stream(WINDOW_METRICS.index(name))
    if name in PROBABILITY:
        s = np.round(1 / (1 + np.exp(-2 * s)), 1)  # probabilities (ties, 0 and 1 among them)
    options = OPTIONS.get(name) if with_options else None
    metrics = (name, options) if options is not None else name
    default = METRICS[name].options() if METRICS[name].options and not with_options else options
    s2 = binary_stream(100 + WINDOW_METRICS.index(name))[1]
    both = name in SECOND_MODEL
    values = sliding_window(y, s, WINDOW, metrics, **({"y_score2": s2} if both else {}))[name]
    monitor = SlidingWindow(WINDOW, metrics)

    def update(window, part):
        return window.update(y[part], s[part], **({"y_score2": s2[part]} if both else {}))

    in_chunks = np.concatenate([update(monitor, slice(55))[name],
                                update(pickle.loads(pickle.dumps(monitor)), slice(55, N))[name]])
    np.testing.assert_array_equal(np.isnan(in_chunks), np.isnan(values))
    np.testing.assert_allclose(in_chunks, values, rtol=1e-12, atol=1e-15)
    update(monitor, slice(55, N))
    assert monitor[name] == pytest.approx(values[-1], rel=1e-12, nan_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvertedScoresWarning)
        # (the references' binned_auc of scores beyond the default score_range)
        warnings.simplefilter("ignore", hmeasure_stream.OutOfRangeScoresWarning)
        for end in range(N):
            part = slice(max(0, end + 1 - WINDOW), end + 1)
            if y[part].min() == y[part].max() and name not in ONE_CLASS:
                assert np.isnan(values[end]), end
                continue
            if name == "auc_approx":
                exact = brute_auc(y[part], s[part])
                assert abs(values[end] - exact) <= default.compression * float(exact) / 2 + 1e-12, end
                continue
            if name == "ap_approx":
                exact = float(average_precision_score(y[part], s[part]))
                assert abs(values[end] - exact) <= default.relative_error * exact, end
                continue
            expected = (second_reference(name, y[part], s[part], s2[part]) if both
                        else reference(name, default, y[part], s[part]))
            expected = None if expected is None else float(expected)
            if expected is None or np.isnan(expected):
                assert np.isnan(values[end]), end
            else:
                assert values[end] == pytest.approx(expected, rel=1e-9, abs=1e-12), end


@pytest.mark.parametrize("options", [Classes(["a", "b", "c"]), OPTIONS["multiclass_auc"]])
def test_the_multiclass_metric_equals_multiclass_auc(options):
    rng = np.random.default_rng(4)
    labels = np.array(["a", "b", "c"])[rng.integers(0, 3, N)]
    scores = rng.dirichlet(np.ones(3), N)
    values = sliding_window(labels, scores, WINDOW, options)["multiclass_auc"]
    named = sliding_window(labels, scores, WINDOW, "multiclass_auc")["multiclass_auc"]
    if options.method == "ovr":
        np.testing.assert_array_equal(values, named)  # labels sorted from the data
    monitor = SlidingWindow(WINDOW, options)
    np.testing.assert_array_equal(monitor.update(labels, scores)["multiclass_auc"], values)
    for end in range(N):
        part = slice(max(0, end + 1 - WINDOW), end + 1)
        if len(set(labels[part])) < 3:
            assert np.isnan(values[end])
            continue
        expected = multiclass_auc(labels[part], scores[part], classes=list(options.classes),
                                  method=options.method, average=options.average)
        assert values[end] == pytest.approx(expected, rel=1e-12), end


@pytest.mark.parametrize(("options", "changed"), [
    (HCost(), "alpha"), (PartialRange(), "fpr_range"), (Binning(), "n_bins"),
    (Compression(0.1), "compression"), (Threshold(), "threshold"), (ConfidenceLevel(), "level"),
    (Classes(), "method"), (APApprox(), "relative_error"),
    (Classes(), "method"), (CalibrationBins(), "n_bins"),
])
def test_options_are_frozen_hashable_and_pickle(options, changed):
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(options, changed, 1)
    assert pickle.loads(pickle.dumps(options)) == options
    assert hash(options) == hash(dataclasses.replace(options))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: HCost(alpha=0), "alpha must be a finite number > 0"),
    (lambda: HCost(beta="x"), "beta must be a positive number"),
    (lambda: HCost(severity_ratio="x"), "severity_ratio"),
    (lambda: HCost(priors=(0.5, 0.6)), "priors must sum to 1"),
    (lambda: HCost(relative_error=-1), "relative_error must be a finite number > 0"),
    (lambda: PartialRange(fpr_range=(0.6, 0.2)), "fpr_range must satisfy"),
    (lambda: PartialRange(tpr_range="ab"), "tpr_range must be a pair"),
    (lambda: PartialRange(correction="other"), "correction"),
    (lambda: PartialRange((0, 0.5), (0, 0.5), "mcclish"), "two-way"),
    (lambda: Binning(n_bins=0), "n_bins must be an integer >= 1"),
    (lambda: Binning(transform="log"), "transform"),
    (lambda: Binning(loglog_alpha=0.5), "loglog_alpha is only used with transform='loglog'"),
    (lambda: Binning(score_range=(1, 0)), "score_range must be finite with low < high"),
    (lambda: Compression(0), "compression must be a finite number > 0"),
    (lambda: Compression(0.1, relative_to="auc'"), 'relative_to must be "auc" or "1-auc"'),
    (lambda: Threshold(np.inf), "threshold must be finite"),
    (lambda: ConfidenceLevel(1.0), r"level must be in \(0, 1\)"),
    (lambda: Classes(method="ovx"), "method"),
    (lambda: Classes(average=None), "average=None is not available in a window"),
    (lambda: Classes(average="micro"), "average"),
    (lambda: APApprox(1.0), r"relative_error must be in \(0, 1\)"),
    (lambda: CalibrationBins(0), "n_bins must be an integer >= 1"),
])
def test_bad_options_are_refused_naming_the_option(make, message):
    with pytest.raises(ValueError, match=message):
        make()


def test_options_are_validated_once(monkeypatch):
    calls = []
    check_cost = table.check_cost
    monkeypatch.setattr(table, "check_cost", lambda *a: calls.append(a) or check_cost(*a))
    cost = HCost(severity_ratio=0.5)
    y, s = binary_stream()
    monitor = SlidingWindow(WINDOW, ("h", "mwl", cost))
    monitor.update(y, s)
    sliding_window(y, s, WINDOW, ("h", "ks", cost))
    assert len(calls) == 1


def test_options_objects_stand_for_their_metrics_and_are_shared():
    assert table.metric_options(HCost(relative_error=0.1)) == {"h": HCost(relative_error=0.1)}
    assert list(table.metric_options(Threshold(0.3))) == [
        "er", "sens", "spec", "precision", "f", "youden"]
    assert list(table.metric_options(ConfidenceLevel(0.9))) == ["auc_lo", "auc_hi"]
    assert table.metric_options(APApprox(0.2)) == {"ap_approx": APApprox(0.2)}
    # Named metrics of the class take the object and it adds none of its own.
    cost = HCost(alpha=3.0)
    assert table.metric_options(("auch", "auc", cost, "mwl")) == {
        "auch": cost, "auc": None, "mwl": cost}
    assert table.metric_options(("f", Threshold(0.2))) == {"f": Threshold(0.2)}
    with pytest.raises(ValueError, match="metrics holds two HCost options"):
        table.metric_options((HCost(), HCost(alpha=3.0)))
    with pytest.raises(ValueError, match=r"unknown metric\(s\) \[3\]"):
        table.metric_options(("auc", 3))


@pytest.mark.parametrize("given", ["auc,h", "auc, h", "auc h", "auc;h;ap"])
def test_a_comma_separated_string_is_told_to_be_a_tuple(given):
    # The command line's --metrics spelling, given in Python: the message says what to pass.
    names = tuple(given.replace(",", " ").replace(";", " ").split())
    y, s = binary_stream()
    with pytest.raises(ValueError, match=(rf"^metrics={given!r} is one string: pass the names "
                                          rf"as a tuple, metrics={names!r}".replace("(", r"\(")
                                          .replace(")", r"\)"))):
        sliding_window(y, s, WINDOW, metrics=given)
    assert list(sliding_window(y, s, WINDOW, metrics=names)) == list(names)
    # A string that is no list of names keeps the message of an unknown metric.
    with pytest.raises(ValueError, match=r"unknown metric\(s\) \['auc,hh'\]"):
        sliding_window(y, s, WINDOW, metrics="auc,hh")
    y, s = binary_stream()
    shared = sliding_window(y, s, WINDOW, ("auch", "h", HCost(alpha=3.0, beta=1.5)))
    np.testing.assert_array_equal(
        shared["h"], sliding_window(y, s, WINDOW, HCost(alpha=3.0, beta=1.5))["h"])
    assert list(shared) == ["auch", "h"]


@pytest.mark.parametrize(("metrics", "engines"), [
    (("auc",), ["BlockedAUCEngine"]),
    (("auc", "h", "ks"), ["BlockedHullEngine"]),
    (("auc", "pauc"), ["BlockedAUCEngine"]),
    (("auc", "auc_binned"), ["BlockedAUCEngine", "BinTree"]),
    (("auc_binned",), ["BinTree"]),
    ((Compression(0.1), "auc"), ["ApproxAUCEngine"]),
    (("er", "auc_lo", "auc_binned", Compression(0.1), "mwl"),
     ["BlockedHullEngine", "BinTree", "ApproxAUCEngine"]),
    # Every metric read from the score order on one engine: one ring, one copy.
    (("auc", "h", "auch", "auc_var", "ks", "mer"), ["BlockedHullEngine"]),
    (("auc", "auc_var", "auc_lo", "auc_hi"), ["BlockedAUCEngine"]),
    (("pauc", "auc_hi"), ["BlockedAUCEngine"]),
    (("h", "pauc", "youden", "auc_var"), ["BlockedHullEngine"]),
    (("auc", "mer", "mwl"), ["BlockedHullEngine"]),
    ((Classes([0, 1, 2]),), ["MulticlassWindow"]),
    # The probability metrics: one engine of exact sums, the order engine only if asked.
    (("brier", "log_loss", CalibrationBins(5), "expected_auc"), ["CalibrationEngine"]),
    (("auc", "ece", "h"), ["BlockedHullEngine", "CalibrationEngine"]),
    # MOA's measures: the order engine's readers and the probabilities' engine.
    (("sauc", "prevalence", "kappa_m"), ["BlockedAUCEngine", "CalibrationEngine"]),
    (("sauc",), ["CalibrationEngine"]),
])
def test_engines_follow_the_needs_of_the_table(metrics, engines):
    monitor = SlidingWindow(5, metrics)
    assert [type(e).__name__ for e in monitor._engines] == engines
    assert len(monitor._rings) == len(engines)
    # Every metric is read from the first engine that computes it.
    chosen = table.metric_options(metrics)
    for name in chosen:
        assert any(METRICS[name].column in e.columns for e in monitor._engines), name
    if engines == ["BlockedHullEngine"] and "ks" in chosen and "auc_var" in chosen:
        assert monitor._engines[0].columns == (
            "auc", "h", "auch", "ks", "mer", "mwl", "auc_var", "auc_lo", "auc_hi")
    if engines == ["BlockedHullEngine"]:
        # The lower hull (a second hull per node) only for KS.
        assert monitor._engines[0].has_lower == ("ks" in chosen)
    if "youden" in chosen:
        # The readers' columns follow the engine's own, in the table's order.
        assert monitor._engines[0].columns == (
            "auc", "h", "auch", "pauc", "er", "sens", "spec", "precision", "f", "youden",
            "auc_var", "auc_lo", "auc_hi")


def test_plot_labels_and_bands_come_from_the_table():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from hmeasure_stream.plotting import plot_metrics

    y, s = binary_stream()
    result = sliding_window(y, s, WINDOW, ("auc", "h", "auc_lo", "auc_hi", "mer"))
    ax = plot_metrics(result)
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == ["AUC", "H", "mer", "AUC 95% CI (DeLong)"]
    assert [METRICS[name].label for name in ("auc", "h", "auch")] == ["AUC", "H", "AUCH"]
