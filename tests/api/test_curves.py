"""roc_curve, precision_recall_curve, average_precision and coords.

Against scikit-learn (the curves and average precision, with ties, weights,
zero weights, pos_label and both drop_intermediate settings), against a
brute force of the definitions, and against R pROC's ``coords`` stored in
tests/data/proc_coords.json (tools/make_proc_coords_reference.py).
"""

import functools
import json
import pickle
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from reference_impl import h_exact
from scipy import stats
from sklearn import metrics as skm

import hmeasure_stream as hs
from hmeasure_stream import uncertainty

PROC = json.loads((Path(__file__).parents[1] / "data" / "proc_coords.json").read_text())


def cases(seed, count):
    """Small random inputs: ties, weights with zeros, both classes present."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(2, 30))
        y = rng.integers(0, 2, n)
        y[:2] = (0, 1)
        s = rng.integers(0, 6, n) / 2 if trial % 3 else rng.normal(size=n)
        w = None
        if trial % 2:
            w = rng.choice([0.0, 0.5, 1.0, 2.5], n)
            w[:2] = 1.0
        yield y, s, w


@pytest.mark.parametrize("drop", [True, False])
@pytest.mark.parametrize(("ours", "theirs"), [(hs.roc_curve, skm.roc_curve),
                                              (hs.precision_recall_curve,
                                               skm.precision_recall_curve)])
def test_curves_equal_scikit_learn(ours, theirs, drop):
    for y, s, w in cases(1, 200):
        got = ours(y, s, sample_weight=w, drop_intermediate=drop)
        expected = theirs(y, s, sample_weight=w, drop_intermediate=drop)
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-13)


def test_average_precision_equals_scikit_learn_and_the_definition():
    for y, s, w in cases(3, 300):
        value = hs.average_precision(y, s, sample_weight=w)
        assert value == pytest.approx(skm.average_precision_score(y, s, sample_weight=w),
                                      rel=1e-12)
        # The definition in exact fractions: over the distinct scores from the highest
        # down, the recall each adds times the precision at and above it.
        weights = [Fraction(1)] * len(y) if w is None else [Fraction(v) for v in w.tolist()]
        total_pos = sum(wi for yi, wi in zip(y, weights, strict=True) if yi == 1)
        expected = Fraction(0)
        for t in sorted(set(s.tolist()), reverse=True):
            at = [(yi, wi) for yi, si, wi in zip(y, s, weights, strict=True) if si == t]
            above = [(yi, wi) for yi, si, wi in zip(y, s, weights, strict=True) if si >= t]
            tp = sum(wi for yi, wi in above if yi == 1)
            predicted = sum(wi for _, wi in above)
            added = sum(wi for yi, wi in at if yi == 1)
            if added:
                expected += added / total_pos * tp / predicted
        assert value == pytest.approx(float(expected), rel=1e-13)


def test_zero_weight_points_are_absent_as_in_scikit_learn():
    y, s = [0, 0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5]
    w = [1, 1, 1, 0.5, 0]
    fpr, tpr, thresholds = hs.roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    np.testing.assert_array_equal(thresholds, [np.inf, 0.4, 0.3, 0.2, 0.1])
    np.testing.assert_allclose(tpr, [0, 1 / 3, 1, 1, 1])
    np.testing.assert_allclose(fpr, [0, 0, 0, 0.5, 1])
    dropped = [0, 1, 2, 3]
    np.testing.assert_allclose(
        hs.roc_curve(y, s, sample_weight=w, drop_intermediate=False).fpr,
        hs.roc_curve(np.take(y, dropped), np.take(s, dropped),
                     sample_weight=np.take(w, dropped), drop_intermediate=False).fpr)


def test_pos_label_and_signed_labels_read_the_same_curve():
    y = np.array([0, 1, 1, 0, 1, 0, 0])
    s = np.array([0.2, 0.9, 0.4, 0.4, 0.7, 0.1, 0.8])
    expected = hs.roc_curve(y, s)
    for labels, pos_label in ((np.where(y == 1, "spam", "ham"), "spam"), (2 * y - 1, None),
                              (y.astype(bool), None)):
        got = hs.roc_curve(labels, s, pos_label=pos_label)
        for a, b in zip(got, expected, strict=True):
            np.testing.assert_array_equal(a, b)
    assert hs.average_precision(np.where(y == 1, "a", "b"), s, pos_label="a") == (
        hs.average_precision(y, s))


def test_results_are_named_tuples():
    curve = hs.roc_curve([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.4], drop_intermediate=False)
    assert isinstance(curve, hs.ROCCurve)
    np.testing.assert_array_equal(curve.thresholds, [np.inf, 0.8, 0.4, 0.3, 0.1])
    pr = hs.precision_recall_curve([0, 1, 0, 1], [0.1, 0.8, 0.3, 0.4])
    assert isinstance(pr, hs.PrecisionRecallCurve)
    np.testing.assert_array_equal(pr.thresholds, [0.1, 0.3, 0.4, 0.8])


@pytest.mark.parametrize("seed", range(40))
@pytest.mark.parametrize("drop_intermediate", [False, True])
def test_det_curve_equals_sklearn(seed, drop_intermediate):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 80))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, 8, n) * 0.25 if seed % 3 else rng.normal(size=n)
    w = rng.choice([0.0, 0.5, 1.0, 3.0], n) if seed % 2 else None
    if w is not None:
        w[:2] = 1.0
    ours = hs.det_curve(y, s, sample_weight=w, drop_intermediate=drop_intermediate)
    theirs = skm.det_curve(y, s, sample_weight=w, drop_intermediate=drop_intermediate)
    assert isinstance(ours, hs.DETCurve)
    for got, expected in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(got, expected)


def test_det_curve_points_are_counted_at_their_thresholds():
    # Brute force: at each threshold t, "score >= t" counted point by point; the curve
    # runs from the last point without false positives to the first without misses.
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 25, 300) + 3 * y
    labels = np.where(y == 1, "spam", "ham")
    fpr, fnr, thresholds = hs.det_curve(labels, s, pos_label="spam")
    assert np.all(np.diff(thresholds) > 0)
    for k, t in enumerate(thresholds):
        assert fpr[k] == np.mean(s[y == 0] >= t) and fnr[k] == np.mean(s[y == 1] < t)
    # Every distinct score between the ends, and the ends where the rates reach 0.
    inside = np.unique(s[(s >= thresholds[0]) & (s <= thresholds[-1])])
    np.testing.assert_array_equal(thresholds, inside)
    assert len(thresholds) > 1 and fpr[-1] == 0 < fpr[-2] and fnr[0] == 0 < fnr[1]


def test_det_curve_keeps_integer_scores_beyond_2_53():
    base = 2**60
    s = np.array([base, base + 1, base + 2, base + 3], dtype=np.int64)
    fpr, fnr, thresholds = hs.det_curve([0, 1, 0, 1], s)
    assert thresholds.tolist() == [base + 1, base + 2, base + 3]
    np.testing.assert_array_equal(fpr, [0.5, 0.5, 0.0])
    np.testing.assert_array_equal(fnr, [0.0, 0.5, 0.5])


@pytest.mark.parametrize("function", [hs.roc_curve, hs.precision_recall_curve,
                                      hs.average_precision, hs.det_curve])
def test_one_class_is_refused(function):
    with pytest.raises(ValueError, match="class"):
        function([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match="class"):
        function([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=[0, 1, 1])


# ---------------------------------------------------------------------------
# coords against pROC


def proc_column(values):
    return np.array([np.nan if v is None else v for v in np.atleast_1d(values)], dtype=float)


def assert_like_proc(ours, theirs, where):
    for name in PROC["ret"]:
        got = ours[name]
        if name == "youden":
            # pROC's column is sensitivity + specificity; the package's J is one less.
            got = got + 1.0
        np.testing.assert_allclose(got, proc_column(theirs[name]), rtol=1e-12, atol=1e-14,
                                   err_msg=f"{where}: {name}")


@pytest.mark.parametrize("name", sorted(PROC["datasets"]))
def test_coords_equal_proc(name):
    data = PROC["datasets"][name]
    inputs, proc = data["input"], data["proc"]
    y, s = np.array(inputs["y"]), np.array(inputs["s1"])
    ret = PROC["ret"]
    if "all" in proc:
        assert_like_proc(hs.coords(y, s, "all", ret=ret), proc["all"], "all")
    assert_like_proc(hs.coords(y, s, inputs["thresholds"], ret=ret), proc["at_threshold"],
                     "threshold")
    for kind in ("specificity", "sensitivity"):
        assert_like_proc(hs.coords(y, s, PROC["targets"], input=kind, ret=ret),
                         proc[f"at_{kind}"], kind)
    assert_like_proc(hs.coords(y, s, "best", ret=ret), proc["best_youden"], "best youden")
    assert_like_proc(hs.coords(y, s, "best", best_method="closest_topleft", ret=ret),
                     proc["best_topleft"], "best closest.topleft")


PROC_WEIGHTS = json.loads((Path(__file__).parents[1] / "data" / "proc_best_weights.json")
                          .read_text())
WEIGHTED_CALLS = [(name, k) for name, calls in sorted(PROC_WEIGHTS["datasets"].items())
                  for k in range(len(calls))]


def weighted_like_proc(columns, weights):
    """The package's coords columns in pROC's names and meanings with ``best.weights``:
    its youden is sensitivity + r specificity, its closest.topleft (1 - sensitivity)^2 +
    r (1 - specificity)^2, r = (1 - prevalence) / (cost prevalence)."""
    cost, prevalence = weights
    r = (1 - prevalence) / (cost * prevalence)
    sens, spec = columns["sensitivity"], columns["specificity"]
    return {"threshold": columns["threshold"], "specificity": spec, "sensitivity": sens,
            "tp": columns["tp"], "fp": columns["fp"], "youden": sens + r * spec,
            "closest.topleft": (1 - sens) ** 2 + r * (1 - spec) ** 2}


@pytest.mark.parametrize("structure", [False, True])
@pytest.mark.parametrize(("name", "k"), WEIGHTED_CALLS)
def test_best_weights_pick_procs_thresholds(name, k, structure):
    call = PROC_WEIGHTS["datasets"][name][k]
    inputs = PROC["datasets"][name]["input"]
    y, s = np.array(inputs["y"]), np.array(inputs["s1"])
    method = call["method"].replace(".", "_")
    weights = tuple(call["weights"])
    ret = ("threshold", "specificity", "sensitivity", "tp", "fp")
    if structure:
        tracker = hs.DynamicAUC()
        tracker.add_many(y, s)
        ours = tracker.coords("best", ret=ret, best_method=method, best_weights=weights)
    else:
        ours = hs.coords(y, s, "best", ret=ret, best_method=method, best_weights=weights)
    ours = weighted_like_proc(ours, weights)
    for column in PROC_WEIGHTS["ret"]:
        # The same thresholds, as many as pROC's ties, each with pROC's values.
        np.testing.assert_allclose(ours[column], proc_column(call["coords"][column]),
                                   rtol=1e-12, atol=1e-14,
                                   err_msg=f"{name} {method} {weights}: {column}")


@pytest.mark.parametrize("seed", range(6))
def test_best_weights_maximise_the_weighted_criterion(seed):
    # Brute force: every threshold "score >= t" over the distinct scores (and above all),
    # its criterion counted point by point; the chosen thresholds attain the best value.
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, 8, n) + 0.5 * y
    w = rng.choice([0.5, 1.0, 3.0], n)
    cost, prevalence = float(rng.uniform(0.2, 5)), float(rng.uniform(0.05, 0.95))
    r = (1 - prevalence) / (cost * prevalence)
    for method in ("youden", "closest_topleft"):
        best = hs.coords(y, s, "best", ret=("threshold", "sensitivity", "specificity"),
                         best_method=method, best_weights=(cost, prevalence), sample_weight=w)

        def criterion(t, method=method):
            sens = w[(y == 1) & (s >= t)].sum() / w[y == 1].sum()
            spec = w[(y == 0) & (s < t)].sum() / w[y == 0].sum()
            if method == "youden":
                return sens + r * spec
            return -((1 - sens) ** 2 + r * (1 - spec) ** 2)

        values = [criterion(t) for t in (*np.unique(s), np.inf)]
        assert best["threshold"].size >= 1
        for t in best["threshold"]:
            assert criterion(t) == pytest.approx(max(values), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("weights", [(0, 0.5), (-1, 0.5), (1, 0), (1, 1), (1, 1.5),
                                     (np.inf, 0.5), (1, np.nan), (True, 0.5), (1,),
                                     (1, 0.5, 2), "ab", None, (1e-310, 0.5)])
def test_best_weights_refused(weights):
    y, s = [0, 1, 0, 1], [0.1, 0.8, 0.3, 0.4]
    with pytest.raises(ValueError, match="best_weights must be"):
        hs.coords(y, s, "best", best_weights=weights)
    tracker = hs.DynamicAUC()
    tracker.add_many(y, s)
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="best_weights must be"):
        tracker.coords("best", best_weights=weights)
    assert pickle.dumps(tracker) == before


def test_default_best_weights_are_the_unweighted_criteria():
    rng = np.random.default_rng(3)
    y, s = rng.integers(0, 2, 300), rng.integers(0, 30, 300)
    for method in ("youden", "closest_topleft"):
        plain = hs.coords(y, s, "best", best_method=method)
        weighted = hs.coords(y, s, "best", best_method=method, best_weights=(1, 0.5))
        for column in plain:
            np.testing.assert_array_equal(plain[column], weighted[column])


def test_coords_at_a_threshold_counts_the_points_at_or_above_it():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    s = rng.integers(0, 20, 200) / 4
    w = rng.random(200)
    for t in (-1.0, 0.0, 1.25, 2.6, 4.75, 5.0, np.inf, -np.inf):
        got = hs.coords(y, s, t, ret=("tp", "fp", "tn", "fn", "sensitivity", "specificity",
                                      "accuracy", "precision", "npv", "youden"),
                        sample_weight=w)
        chosen = s >= t
        tp, fp = w[chosen & (y == 1)].sum(), w[chosen & (y == 0)].sum()
        fn, tn = w[~chosen & (y == 1)].sum(), w[~chosen & (y == 0)].sum()
        expected = {"tp": tp, "fp": fp, "tn": tn, "fn": fn,
                    "sensitivity": tp / (tp + fn), "specificity": tn / (tn + fp),
                    "accuracy": (tp + tn) / w.sum(),
                    "precision": tp / (tp + fp) if tp + fp else np.nan,
                    "npv": tn / (tn + fn) if tn + fn else np.nan,
                    "youden": tp / (tp + fn) + tn / (tn + fp) - 1}
        for key, value in expected.items():
            np.testing.assert_allclose(got[key], [value], rtol=1e-12, atol=1e-12,
                                       err_msg=f"t={t} {key}")


def test_coords_refuses_bad_requests():
    y, s = [0, 1, 0, 1], [0.1, 0.8, 0.3, 0.4]
    with pytest.raises(ValueError, match="input"):
        hs.coords(y, s, 0.5, input="fpr")
    with pytest.raises(ValueError, match="ret"):
        hs.coords(y, s, 0.5, ret=("threshold", "auc"))
    with pytest.raises(ValueError, match="best_method"):
        hs.coords(y, s, "best", best_method="topleft")
    with pytest.raises(ValueError, match="x"):
        hs.coords(y, s, "middle")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        hs.coords(y, s, 1.5, input="specificity")
    with pytest.raises(ValueError, match="x"):
        hs.coords(y, s, np.nan)


# ---------------------------------------------------------------------------
# DeLong's tests and covariance against pROC (same reference file)

ALTERNATIVES = {"two.sided": "two-sided", "less": "less", "greater": "greater"}


@pytest.mark.parametrize("name", sorted(PROC["datasets"]))
def test_delong_tests_and_covariance_equal_proc(name):
    data = PROC["datasets"][name]
    inputs, proc = data["input"], data["proc"]
    y, s1, s2 = (np.array(inputs[key]) for key in ("y", "s1", "s2"))
    for r_name, alternative in ALTERNATIVES.items():
        paired = hs.auc_test(y, s1, s2, alternative=alternative)
        assert paired.statistic == pytest.approx(proc["paired"][r_name]["statistic"],
                                                 rel=1e-9)
        assert paired.pvalue == pytest.approx(proc["paired"][r_name]["p_value"], rel=1e-9)
        # pROC's unpaired samples: the even-numbered points (1-based) scored by the first
        # classifier, the odd-numbered by the second.
        even = np.arange(1, len(y) + 1) % 2 == 0
        unpaired = hs.auc_test(y[even], s1[even], s2[~even], y_true2=y[~even],
                               alternative=alternative)
        expected = proc["unpaired"][r_name]
        assert unpaired.difference == pytest.approx(expected["auc1"] - expected["auc2"],
                                                    rel=1e-12, abs=1e-15)
        assert unpaired.statistic == pytest.approx(expected["statistic"], rel=1e-9)
        assert unpaired.pvalue == pytest.approx(expected["p_value"], rel=1e-9)
    assert hs.auc_covariance(y, s1, s2) == pytest.approx(proc["cov"], rel=1e-9)


def test_covariance_by_definition_and_with_itself():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 60)
    y[:2] = (0, 1)
    s1, s2 = rng.integers(0, 5, 60) + y, rng.normal(size=60) + y
    assert hs.auc_covariance(y, s1, s1) == pytest.approx(hs.auc_variance(y, s1), rel=1e-12)
    # DeLong's definition with the O(n^2) placements.
    pos, neg = y == 1, y == 0

    def placements(s):
        v10 = np.array([np.mean((s[neg] < a) + 0.5 * (s[neg] == a)) for a in s[pos]])
        v01 = np.array([np.mean((b < s[pos]) + 0.5 * (b == s[pos])) for b in s[neg]])
        return v10, v01

    (a10, a01), (b10, b01) = placements(s1), placements(s2)
    expected = (np.cov(a10, b10)[0, 1] / pos.sum() + np.cov(a01, b01)[0, 1] / neg.sum())
    assert hs.auc_covariance(y, s1, s2) == pytest.approx(expected, rel=1e-12)


def test_unpaired_test_by_definition():
    rng = np.random.default_rng(9)
    y1, y2 = rng.integers(0, 2, 50), rng.integers(0, 2, 70)
    y1[:2] = y2[:2] = (0, 1)
    s1, s2 = rng.normal(size=50) + y1, rng.normal(size=70) + 0.5 * y2
    result = hs.auc_test(y1, s1, s2, y_true2=y2, alternative="greater")
    difference = hs.auc(y1, s1) - hs.auc(y2, s2)
    se = np.sqrt(hs.auc_variance(y1, s1) + hs.auc_variance(y2, s2))
    assert result.difference == pytest.approx(difference, rel=1e-12)
    assert result.std_error == pytest.approx(se, rel=1e-12)
    # pROC's Student t with Welch and Satterthwaite's degrees of freedom.
    v1, v2 = hs.auc_variance(y1, s1), hs.auc_variance(y2, s2)
    df = (v1 + v2) ** 2 / (v1 ** 2 / 49 + v2 ** 2 / 69)
    assert result.df == pytest.approx(df, rel=1e-12)
    assert result.pvalue == pytest.approx(stats.t.sf(difference / se, df), rel=1e-9)
    with pytest.raises(ValueError, match="alternative"):
        hs.auc_test(y1, s1, s1, alternative="two.sided")


# ---------------------------------------------------------------------------
# Bootstrap intervals


@pytest.mark.parametrize("name", [name for name, data in sorted(PROC["datasets"].items())
                                  if "partial_ci" in data["proc"]])
def test_bootstrap_interval_of_a_partial_auc_agrees_with_proc(name):
    data = PROC["datasets"][name]
    y, s = np.array(data["input"]["y"]), np.array(data["input"]["s1"])
    for entry in data["proc"]["partial_ci"]:
        low, high = entry["range"]
        # pROC's range of specificities (or sensitivities) [low, high].
        box = ({"fpr_range": (1 - high, 1 - low)} if entry["focus"] == "specificity"
               else {"tpr_range": (low, high)})
        statistic = functools.partial(hs.partial_auc, **box)
        n_boot = PROC["boot_n"]
        ours = hs.bootstrap_ci(y, s, statistic, n_boot=n_boot, random_state=11)
        assert ours.estimate == statistic(y, s)
        # pROC's three numbers are its resampled statistics' 2.5 %, 50 % and 97.5 %
        # quantiles.  Within Monte Carlo error: each lies between the quantiles, one
        # percentage point (two for the median) either side, of resamples drawn here
        # independently; and our ends between the same.  (Seeded, so the test is
        # deterministic; the bands are about three standard errors of the difference of
        # two estimates at n_boot = 4000.)
        values = resampled(y, s, statistic, n_boot, 11)
        for proc_value, our_value, p, width in zip(
                entry["ci"], (ours.low, None, ours.high), (0.025, 0.5, 0.975),
                (0.01, 0.02, 0.01), strict=True):
            band = np.quantile(values, [p - width, p + width])
            assert band[0] <= proc_value <= band[1], (entry, p, proc_value, band)
            if our_value is not None:
                assert band[0] <= our_value <= band[1], (entry, p, our_value, band)


def resampled(y, s, statistic, n_boot, seed):
    """The statistics of stratified resamples, written out independently."""
    rng = np.random.default_rng(seed + 1)
    neg, pos = np.flatnonzero(y == 0), np.flatnonzero(y == 1)
    values = []
    for _ in range(n_boot):
        drawn = np.concatenate((rng.integers(0, neg.size, neg.size),
                                neg.size + rng.integers(0, pos.size, pos.size)))
        order = np.concatenate((neg, pos))[drawn]
        values.append(statistic(y[order], s[order]))
    return np.array(values)


def recorded_bootstrap(y, s, statistic, **options):
    """bootstrap_ci with a statistic that records every (labels, scores) it is called with."""
    calls = []

    def recording(y_true, y_score):
        calls.append((np.array(y_true), np.array(y_score)))
        return statistic(y_true, y_score)

    return hs.bootstrap_ci(y, s, recording, **options), calls


def h_exact_value(y, s):
    return float(h_exact(y.tolist(), s.tolist()))


@pytest.mark.parametrize(("statistic", "independent"), [
    (hs.average_precision, skm.average_precision_score),
    (hs.h_measure, h_exact_value),
])
def test_bootstrap_interval_is_the_percentiles_of_stratified_resamples(statistic, independent):
    # What the statistic is called with, read back: the data, then n_boot resamples that
    # each keep both class sizes and draw only points of their own class; the ends are
    # the percentiles of the resamples' values computed independently (scikit-learn's
    # average precision, H in exact rational arithmetic).
    rng = np.random.default_rng(21)
    y = rng.integers(0, 2, 24)
    y[:4] = (0, 1, 0, 1)
    s = np.round(rng.normal(size=24) + y, 1)
    n_boot = 99
    result, calls = recorded_bootstrap(y, s, statistic, level=0.9, n_boot=n_boot,
                                       random_state=3)
    assert len(calls) == n_boot + 1
    (y0, s0), resamples = calls[0], calls[1:]
    assert np.array_equal(y0, y) and np.array_equal(s0, s)
    assert result.estimate == pytest.approx(independent(y, s), rel=1e-12)
    drawn_from = {label: set(s[y == label].tolist()) for label in (0, 1)}
    for y_b, s_b in resamples:
        for label in (0, 1):
            assert np.count_nonzero(y_b == label) == np.count_nonzero(y == label)
            assert set(s_b[y_b == label].tolist()) <= drawn_from[label]
    values = np.array([independent(y_b, s_b) for y_b, s_b in resamples])
    assert np.unique(values).size > 10  # resamples differ
    expected = np.quantile(values, [0.05, 0.95])
    assert (result.low, result.high) == pytest.approx(tuple(expected), rel=1e-12)


def test_bootstrap_interval_of_average_precision_within_monte_carlo_error():
    # A brute stratified bootstrap written here (``resampled``, its own stream) with
    # scikit-learn's average precision: our ends lie between its quantiles one and a half
    # percentage points either side (about three standard errors of the difference at
    # n_boot = 2000).
    rng = np.random.default_rng(22)
    y = rng.integers(0, 2, 80)
    y[:2] = (0, 1)
    s = np.round(rng.normal(size=80) + y, 1)
    n_boot = 2000
    ours = hs.bootstrap_ci(y, s, hs.average_precision, n_boot=n_boot, random_state=7)
    values = resampled(y, s, skm.average_precision_score, n_boot, 7)
    for value, p in ((ours.low, 0.025), (ours.high, 0.975)):
        band = np.quantile(values, [p - 0.015, p + 0.015])
        assert band[0] <= value <= band[1], (p, value, band)


def test_bootstrap_resamples_do_not_depend_on_the_batch_size(monkeypatch):
    rng = np.random.default_rng(23)
    y = rng.integers(0, 2, 30)
    y[:2] = (0, 1)
    s = rng.normal(size=30) + y
    whole, whole_calls = recorded_bootstrap(y, s, hs.average_precision, n_boot=50,
                                            random_state=4)
    # Three resamples per draw of the generator.
    monkeypatch.setattr(uncertainty, "_BOOT_INDEX_ELEMENTS", 3 * 30 + 2)
    batched, batched_calls = recorded_bootstrap(y, s, hs.average_precision, n_boot=50,
                                                random_state=4)
    assert batched == whole
    for (y_a, s_a), (y_b, s_b) in zip(whole_calls, batched_calls, strict=True):
        assert np.array_equal(y_a, y_b) and np.array_equal(s_a, s_b)


def test_bootstrap_warns_of_inverted_scores_of_the_data_only():
    # Class 1 ranks higher (AUC 0.56) but a resample of ten points often does not.
    y = [0, 0, 1, 0, 1, 1, 0, 1, 0, 1]
    s = [0.1, 0.6, 0.3, 0.4, 0.5, 0.9, 0.35, 0.2, 0.8, 0.7]
    assert hs.auc(y, s) == 0.56
    resamples = recorded_bootstrap(y, s, hs.auc, n_boot=200, random_state=0)[1]
    assert min(skm.roc_auc_score(*resample) for resample in resamples) < 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hs.bootstrap_ci(y, s, hs.h_measure, n_boot=200, random_state=0)
    inverted = [1 - value for value in y]
    with pytest.warns(hs.InvertedScoresWarning) as caught:
        hs.bootstrap_ci(inverted, s, hs.h_measure, n_boot=200, random_state=0)
    assert len(caught) == 1


def test_bootstrap_ci_refuses_bad_requests():
    y, s = [0, 1, 0, 1], [0.1, 0.8, 0.3, 0.4]
    with pytest.raises(ValueError, match="callable"):
        hs.bootstrap_ci(y, s, "auc")
    with pytest.raises(ValueError, match="level"):
        hs.bootstrap_ci(y, s, hs.auc, level=1.0)
    with pytest.raises(ValueError, match="n_boot"):
        hs.bootstrap_ci(y, s, hs.auc, n_boot=0)
    with pytest.raises(ValueError, match="two points"):
        hs.bootstrap_ci([0, 1, 0], [0.1, 0.8, 0.3], hs.auc)


# ---------------------------------------------------------------------------
# The minimum-cost threshold


def test_min_cost_threshold_by_brute_force():
    for y, s, w in cases(12, 150):
        weights = np.ones(len(y)) if w is None else w
        for cost, priors in ((0.5, None), (0.2, None), (0.9, (0.3, 0.7))):
            got = hs.min_cost_threshold(y, s, cost=cost, priors=priors, sample_weight=w)
            n0, n1 = weights[y == 0].sum(), weights[y == 1].sum()
            pi0, pi1 = priors or (n0 / (n0 + n1), n1 / (n0 + n1))
            best = None
            for t in [np.inf, *sorted(set(s[weights > 0].tolist()), reverse=True)]:
                chosen = s >= t
                fpr = weights[chosen & (y == 0)].sum() / n0
                tpr = weights[chosen & (y == 1)].sum() / n1
                loss = cost * pi0 * fpr + (1 - cost) * pi1 * (1 - tpr)
                if best is None or loss < best[1] - 1e-12:
                    best = (t, loss, fpr, tpr)
            assert got.loss == pytest.approx(best[1], rel=1e-12, abs=1e-15)
            chosen = s >= got.threshold
            assert got.fpr == pytest.approx(weights[chosen & (y == 0)].sum() / n0, abs=1e-12)
            assert got.tpr == pytest.approx(weights[chosen & (y == 1)].sum() / n1, abs=1e-12)


def test_h_measure_averages_the_minimum_loss_over_costs():
    # H = 1 - E[L_min(c)] / E[min(c pi0, (1 - c) pi1)] for c ~ Beta(2, 2), by quadrature.
    rng = np.random.default_rng(13)
    y = rng.integers(0, 2, 80)
    s = np.round(rng.normal(size=80) + y, 1)
    pi0, pi1 = np.mean(y == 0), np.mean(y == 1)
    c = np.linspace(0, 1, 4001)[1:-1]
    density = stats.beta(2, 2).pdf(c)
    lost = np.array([hs.min_cost_threshold(y, s, cost=v).loss for v in c])
    trivial = np.minimum(c * pi0, (1 - c) * pi1)
    h = 1 - np.trapezoid(lost * density, c) / np.trapezoid(trivial * density, c)
    assert h == pytest.approx(hs.h_measure(y, s), abs=2e-6)


def test_min_cost_threshold_by_severity_ratio_and_refusals():
    y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.7]
    assert hs.min_cost_threshold(y, s, severity_ratio=1.5) == hs.min_cost_threshold(
        y, s, cost=0.6)
    with pytest.raises(ValueError, match="exactly one"):
        hs.min_cost_threshold(y, s)
    with pytest.raises(ValueError, match="exactly one"):
        hs.min_cost_threshold(y, s, cost=0.5, severity_ratio=1.0)
    with pytest.raises(ValueError, match="cost"):
        hs.min_cost_threshold(y, s, cost=1.0)
    with pytest.raises(ValueError, match="priors"):
        hs.min_cost_threshold(y, s, cost=0.5, priors=(0.5, 0.6))
