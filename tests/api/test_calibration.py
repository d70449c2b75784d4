"""brier_score, log_loss, calibration_error and calibration_report.

Against scikit-learn (``brier_score_loss``, ``log_loss``, ``calibration_curve``
and an expected calibration error summed from its curve with the bins'
counts found point by point), against plain-Python loops over the points
of the definitions (weights, the terms of Murphy's and Stephenson et al.'s
decomposition), with ties, weights, zero weights and every kind of label.
"""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import registry
from reference_impl import brute_bins, brute_edges, brute_report
from registry import PROBABILITY_FUNCTIONS, public_name
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

import hmeasure_stream as hs
from hmeasure_stream import (
    brier_score,
    calibration_error,
    calibration_report,
    log_loss,
)


def cases(seed, count, weighted=None):
    """Small random inputs: ties (probabilities on a grid), 0 and 1, zero weights;
    one class absent now and then."""
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(1, 40))
        y = rng.integers(0, 2, n)
        if trial % 5 == 0:
            p = rng.integers(0, 11, n) / 10  # ties, on the uniform edges, 0 and 1
        elif trial % 5 == 1:
            p = rng.choice([0.0, 0.25, 0.5, 1.0], n)
        else:
            p = rng.random(n)
        w = None
        if weighted or (weighted is None and trial % 2):
            w = rng.choice([0.0, 0.5, 1.0, 2.5, 3.0], n)
            w[0] = 1.0
        yield y, p, w


def values(report):
    """The fields of a report, in order, as a dict."""
    return {field.name: getattr(report, field.name) for field in dataclasses.fields(report)}


# ---------------------------------------------------------------------------
# Against scikit-learn


@pytest.mark.parametrize("seed", range(3))
def test_brier_score_equals_scikit_learn(seed):
    for y, p, w in cases(seed, 60):
        expected = brier_score_loss(y, p, sample_weight=w)
        assert brier_score(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-13,
                                                                   abs=1e-16)


@pytest.mark.parametrize("seed", range(3))
def test_log_loss_equals_scikit_learn(seed):
    # labels=[0, 1]: scikit-learn's own value with one class absent (without, it refuses).
    for y, p, w in cases(seed, 60):
        expected = sk_log_loss(y, p, sample_weight=w, labels=[0, 1])
        assert log_loss(y, p, sample_weight=w) == pytest.approx(expected, rel=1e-13,
                                                                abs=1e-16)


def test_log_loss_clips_certain_probabilities_as_scikit_learn():
    eps = np.finfo(np.float64).eps
    y = [1, 0, 1, 0, 1, 0]
    p = [0.0, 1.0, 1.0, 0.0, eps / 4, 1 - eps / 4]
    assert log_loss(y, p) == pytest.approx(sk_log_loss(y, p), rel=1e-15)
    assert log_loss([1], [0.0]) == pytest.approx(-math.log(eps), rel=1e-15)
    assert log_loss([0, 1], [0.0, 1.0]) == pytest.approx(-math.log(1 - eps), rel=1e-15)


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [1, 2, 5, 10, 17])
def test_bins_equal_calibration_curve(strategy, n_bins):
    for y, p, _ in cases(n_bins, 40, weighted=False):
        prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
        report = calibration_report(y, p, n_bins=n_bins, strategy=strategy)
        np.testing.assert_allclose(report.prob_true, prob_true, rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(report.prob_pred, prob_pred, rtol=1e-14, atol=1e-15)
        # The ECE summed from scikit-learn's curve, each bin's count found point by point.
        counts = np.bincount(brute_bins(p, brute_edges(p, np.ones(len(p)), n_bins, strategy)),
                             minlength=n_bins)
        counts = counts[counts > 0]
        gaps = np.abs(prob_true - prob_pred)
        expected_ece = math.fsum((counts * gaps).tolist()) / len(y)
        np.testing.assert_array_equal(report.bin_weight, counts.astype(float))
        assert report.ece == pytest.approx(expected_ece, rel=1e-13, abs=1e-16)
        assert report.mce == pytest.approx(gaps.max(), rel=1e-13, abs=1e-16)
        assert calibration_error(y, p, n_bins=n_bins, strategy=strategy) == report.ece
        assert calibration_error(y, p, n_bins=n_bins, strategy=strategy,
                                 norm="max") == report.mce


def test_probabilities_on_the_edges_fall_below_as_in_calibration_curve():
    y = [0, 1, 1, 0, 1, 0, 1, 1]
    p = [0.0, 0.2, 0.4, 0.5, 0.6, 0.8, 1.0, 0.5]
    report = calibration_report(y, p, n_bins=5)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=5)
    np.testing.assert_array_equal(report.prob_pred, prob_pred)
    np.testing.assert_array_equal(report.prob_true, prob_true)
    # 0.2 is in the first bin with 0.0, 0.4 in the second, 0.8 in the fourth; 0.6 is
    # below linspace's edge 3 / 5 = 0.6000000000000001, in the third bin with 0.5 and 0.5.
    np.testing.assert_array_equal(report.bin_index, [0, 1, 2, 3, 4])
    np.testing.assert_array_equal(report.bin_weight, [2, 1, 3, 1, 1])


def test_quantile_bins_with_many_ties_equal_calibration_curve():
    y = np.array([0, 1] * 15)
    p = np.repeat([0.1, 0.3, 0.3, 0.3, 0.9], 6)
    for n_bins in (2, 3, 4, 7):
        prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy="quantile")
        report = calibration_report(y, p, n_bins=n_bins, strategy="quantile")
        np.testing.assert_allclose(report.prob_true, prob_true, rtol=1e-15)
        np.testing.assert_allclose(report.prob_pred, prob_pred, rtol=1e-15)


# ---------------------------------------------------------------------------
# Against loops over the points: weights, the decomposition


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", range(2))
def test_report_equals_the_definitions_point_by_point(strategy, seed):
    for y, p, w in cases(100 + seed, 60):
        n_bins = int(np.random.default_rng(len(y)).integers(1, 12))
        report = calibration_report(y, p, n_bins=n_bins, strategy=strategy, sample_weight=w)
        expected = brute_report(y, p, w, n_bins, strategy)
        for name, value in expected.items():
            np.testing.assert_allclose(getattr(report, name), value, rtol=1e-12, atol=1e-15,
                                       err_msg=name)
        assert report.brier == brier_score(y, p, sample_weight=w)
        assert report.ece == calibration_error(y, p, n_bins=n_bins, strategy=strategy,
                                               sample_weight=w)
        assert report.mce == calibration_error(y, p, n_bins=n_bins, strategy=strategy,
                                               norm="max", sample_weight=w)
        # Murphy's terms and the two within-bin ones add up to the Brier score.
        total = (report.reliability - report.resolution + report.uncertainty
                 + report.within_bin_variance - report.within_bin_covariance)
        assert total == pytest.approx(report.brier, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
def test_murphy_identity_with_one_probability_per_bin(rng, weighted):
    # Probabilities constant in each of 10 uniform bins: brier = REL - RES + UNC.
    for _ in range(30):
        n = int(rng.integers(1, 200))
        levels = (np.arange(10) + rng.random(10)) / 10
        p = levels[rng.integers(0, 10, n)]
        y = (rng.random(n) < p).astype(int)
        w = rng.choice([0.0, 1.0, 2.0, 0.3], n) if weighted else None
        if weighted:
            w[0] = 1.0
        report = calibration_report(y, p, sample_weight=w)
        expected = brute_report(y, p, w, 10, "uniform")
        assert report.within_bin_variance == pytest.approx(0, abs=1e-30)
        assert report.within_bin_covariance == pytest.approx(0, abs=1e-15)
        assert report.reliability - report.resolution + report.uncertainty == pytest.approx(
            report.brier, rel=1e-12, abs=1e-15)
        for name in ("reliability", "resolution", "uncertainty", "brier"):
            assert getattr(report, name) == pytest.approx(expected[name], rel=1e-12,
                                                          abs=1e-15), name


def test_murphy_terms_of_a_small_example_by_hand():
    # Bins [0, .5) and [.5, 1]: p = .2 for labels 0, 0, 1 and p = .7 for 0, 1, 1.
    report = calibration_report([0, 0, 1, 0, 1, 1], [0.2, 0.2, 0.2, 0.7, 0.7, 0.7], n_bins=2)
    assert report.reliability == pytest.approx(((0.2 - 1 / 3) ** 2 + (0.7 - 2 / 3) ** 2) / 2,
                                               rel=1e-14)
    assert report.resolution == pytest.approx(1 / 36, rel=1e-14)
    assert report.uncertainty == 0.25
    assert report.brier == pytest.approx((2 * 0.04 + 0.64 + 0.49 + 2 * 0.09) / 6, rel=1e-14)
    assert report.ece == pytest.approx((abs(0.2 - 1 / 3) + abs(0.7 - 2 / 3)) / 2, rel=1e-14)


@pytest.mark.parametrize("seed", range(2))
def test_integer_weights_are_repeated_points(seed):
    # (Uniform bins; quantile edges count each point of positive weight once.)
    for y, p, _ in cases(200 + seed, 40, weighted=False):
        w = np.random.default_rng(len(y)).integers(0, 4, len(y))
        w[0] = 1
        repeated = np.repeat(y, w), np.repeat(p, w)
        for function in (brier_score, log_loss, calibration_error):
            assert function(y, p, sample_weight=w) == pytest.approx(
                function(*repeated), rel=1e-12, abs=1e-15), function.__name__
        one, many = calibration_report(y, p, sample_weight=w), calibration_report(*repeated)
        np.testing.assert_array_equal(one.bin_weight, many.bin_weight)
        np.testing.assert_allclose(one.prob_true, many.prob_true, rtol=1e-13)


def test_zero_weights_are_absent_and_unit_weights_are_none(rng):
    y = rng.integers(0, 2, 50)
    p = rng.random(50)
    w = rng.choice([0.0, 1.0], 50)
    w[:2] = 1.0
    kept = w > 0
    for strategy in ("uniform", "quantile"):
        with_zeros = calibration_report(y, p, strategy=strategy, n_bins=4, sample_weight=w)
        without = calibration_report(y[kept], p[kept], strategy=strategy, n_bins=4)
        ones = calibration_report(y[kept], p[kept], strategy=strategy, n_bins=4,
                                  sample_weight=np.ones(kept.sum()))
        for report in (with_zeros, ones):
            for name, expected in values(without).items():
                np.testing.assert_allclose(getattr(report, name), expected, rtol=1e-14,
                                           atol=1e-16, err_msg=name)


def test_weight_scale_changes_nothing_but_the_bin_weights(rng):
    y = rng.integers(0, 2, 30)
    p = rng.random(30)
    w = rng.random(30)
    plain = calibration_report(y, p, sample_weight=w, strategy="quantile", n_bins=3)
    scaled = calibration_report(y, p, sample_weight=w * 2.0**-700, strategy="quantile",
                                n_bins=3)
    for name, got in values(scaled).items():
        expected = getattr(plain, name)
        if name == "bin_weight":
            expected = expected * 2.0**-700
        np.testing.assert_array_equal(got, expected, err_msg=name)


# ---------------------------------------------------------------------------
# Labels


Y = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0]
P = [0.1, 0.8, 0.6, 0.35, 0.9, 0.5, 0.2, 0.4, 0.7, 0.3]
# The calibration functions of the registry (tests/registry.py), with their options.
FUNCTIONS = {name: registry.FUNCTIONS[name] for name in sorted(PROBABILITY_FUNCTIONS)}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@pytest.mark.parametrize(
    ("labels", "pos_label"),
    [
        (["yes" if v else "no" for v in Y], "yes"),
        ([1 if v else -1 for v in Y], None),
        ([bool(v) for v in Y], None),
        (pd.Series(["b" if v else "a" for v in Y]), "b"),
        ([3.5 if v else -2 for v in Y], 3.5),
    ],
    ids=["strings", "-1/1", "bools", "series", "floats"],
)
def test_labels_read_as_everywhere(name, labels, pos_label):
    function = FUNCTIONS[name]
    expected = function(Y, P)
    np.testing.assert_array_equal(function(labels, P, pos_label=pos_label), expected)
    np.testing.assert_array_equal(function(np.array(Y), pd.Series(P)), expected)
    np.testing.assert_array_equal(function(pd.Series(Y), np.array(P)[:, None]), expected)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_pos_label_zero_swaps_the_classes(name):
    swapped = [1 - v for v in Y]
    np.testing.assert_array_equal(FUNCTIONS[name](Y, P, pos_label=0),
                                  FUNCTIONS[name](swapped, P))


def test_string_labels_against_scikit_learn():
    labels = ["ham" if v else "spam" for v in Y]
    w = [1, 2, 0, 1, 3, 1, 1, 0.5, 1, 2]
    assert brier_score(labels, P, sample_weight=w, pos_label="ham") == pytest.approx(
        brier_score_loss(labels, P, sample_weight=w, pos_label="ham"), rel=1e-14)
    # scikit-learn's log_loss takes the labels' sorted order: "spam" is its class 1.
    assert log_loss(labels, P, sample_weight=w, pos_label="spam") == pytest.approx(
        sk_log_loss(labels, P, sample_weight=w), rel=1e-14)
    prob_true, prob_pred = calibration_curve(labels, P, pos_label="ham", n_bins=4)
    report = calibration_report(labels, P, pos_label="ham", n_bins=4)
    np.testing.assert_allclose(report.prob_true, prob_true, rtol=1e-15)
    np.testing.assert_allclose(report.prob_pred, prob_pred, rtol=1e-15)


def test_one_class_absent_leaves_every_value_defined():
    for y in ([0, 0, 0, 0], [1, 1, 1, 1], ["a"] * 4):
        pos_label = "z" if isinstance(y[0], str) else None
        p = [0.0, 0.3, 0.3, 0.9]
        y01 = [0] * 4 if pos_label else y
        assert brier_score(y, p, pos_label=pos_label) == pytest.approx(
            brier_score_loss(y01, p), rel=1e-15)
        assert log_loss(y, p, pos_label=pos_label) == pytest.approx(
            sk_log_loss(y01, p, labels=[0, 1]), rel=1e-15)
        report = calibration_report(y, p, n_bins=2, pos_label=pos_label)
        share = float(y01[0])
        assert report.uncertainty == report.resolution == 0
        np.testing.assert_array_equal(report.prob_true, [share, share])
        # Bins [0, .5) (0, .3, .3: mean .2) and [.5, 1] (.9).
        assert report.ece == pytest.approx(0.75 * abs(0.2 - share) + 0.25 * abs(0.9 - share),
                                           rel=1e-14)


def test_results_are_plain_floats_and_a_frozen_report():
    report = calibration_report(Y, P)
    assert isinstance(report, hs.CalibrationReport)
    with pytest.raises(dataclasses.FrozenInstanceError):
        report.brier = 0.0
    for name in ("prob_true", "prob_pred", "bin_weight", "bin_index", "bin_edges"):
        with pytest.raises(ValueError, match="read-only"):
            getattr(report, name)[0] = 0
    assert type(brier_score(Y, P)) is float
    assert type(log_loss(Y, P)) is float
    assert type(calibration_error(Y, P)) is float
    for name in ("brier", "ece", "mce", "reliability", "resolution", "uncertainty",
                 "within_bin_variance", "within_bin_covariance"):
        assert type(getattr(report, name)) is float, name
    assert report.bin_index.dtype == np.int64
    assert report.bin_edges.shape == (11,)


# ---------------------------------------------------------------------------
# Refusals

# Every calibration function of the registry, called here with bad probabilities.
ALL = [getattr(hs, name) for name in sorted({public_name(name)
                                             for name in PROBABILITY_FUNCTIONS})]


@pytest.mark.parametrize("function", ALL, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("y", "p", "message"),
    [
        ([0, 1, 1], [0.2, 1.5, 2.0],
         r"^y_prob must lie in \[0, 1\] \(probabilities of class 1\); found 1.5 at position 1 \(and 1 more\)$"),
        ([0, 1, 1], [0.2, 0.5, -0.1],
         r"^y_prob must lie in \[0, 1\] \(probabilities of class 1\); found -0.1 at position 2$"),
        ([0, 1, 1], [0.2, np.nan, 0.5],
         r"^y_prob must contain only finite values; found nan at position 1$"),
        ([0, 1, 1], [np.inf, 0.5, 0.5],
         r"^y_prob must contain only finite values; found inf at position 0$"),
        ([], [], r"^y_true is empty: at least one point is needed$"),
        ([0, 1], [0.5], r"^y_true and y_prob have different lengths: 2 and 1$"),
        ([0, 2, 1], [0.1, 0.2, 0.3],
         r"^y_true must contain only labels 0 and 1 \(or booleans\); found 2 at position 1"),
        ([0, 1], ["a", "b"], r"^y_prob must be numeric, got an array of dtype <U1$"),
    ],
)
def test_bad_input_is_refused(function, y, p, message):
    with pytest.raises(ValueError, match=message):
        function(y, p)


CLASS_PROBABILITIES = (brier_score, log_loss)  # also (n, k) probabilities of k classes


@pytest.mark.parametrize("function", ALL, ids=lambda f: f.__name__)
def test_predict_proba_output(function):
    # (n, 2) probabilities: the scores of the classes, which the two multi-class scores
    # read as their class 1 column; every other function asks for that column.
    y, matrix = [0, 1, 1], [[0.5, 0.5], [0.2, 0.8], [0.75, 0.25]]
    if function in CLASS_PROBABILITIES:
        assert function(y, matrix) == function(y, [0.5, 0.8, 0.25])
        return
    with pytest.raises(ValueError, match=(
            r"^y_prob must be 1-d, one score per point, got an array of shape \(3, 2\): pass "
            r"the scores of class 1, y_prob\[:, 1\] for predict_proba")):
        function(y, matrix)


@pytest.mark.parametrize("function", ALL, ids=lambda f: f.__name__)
def test_weights_are_checked(function):
    with pytest.raises(ValueError, match=r"^sample_weight must be non-negative; found -1.0 at "
                                         r"position 1$"):
        function([0, 1], [0.1, 0.9], sample_weight=[1, -1])
    with pytest.raises(ValueError, match=r"^sample_weight has 1 entries but there are 2 points$"):
        function([0, 1], [0.1, 0.9], sample_weight=[1])
    with pytest.raises(ValueError, match=r"is undefined when every point weighs 0: "
                                         r"sample_weight has no positive entry$"):
        function([0, 1], [0.1, 0.9], sample_weight=[0, 0.0])


@pytest.mark.parametrize("function", [calibration_error, calibration_report],
                         ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"n_bins": 0}, r"^n_bins must be an integer >= 1, got 0$"),
        ({"n_bins": 2.5}, r"^n_bins must be an integer >= 1, got 2.5$"),
        ({"n_bins": True}, r"^n_bins must be an integer >= 1, got True$"),
        ({"n_bins": "10"}, r"^n_bins must be an integer >= 1, got '10'$"),
        ({"strategy": "kmeans"},
         r"^strategy must be one of 'uniform', 'quantile'; got 'kmeans'$"),
        ({"strategy": None}, r"^strategy must be one of 'uniform', 'quantile'; got None$"),
    ],
)
def test_bad_binning_is_refused(function, options, message):
    with pytest.raises(ValueError, match=message):
        function([0, 1], [0.1, 0.9], **options)


def test_bad_norm_is_refused():
    with pytest.raises(ValueError, match=r"^norm must be one of 'l1', 'l2', 'max'; got 'l3'$"):
        calibration_error([0, 1], [0.1, 0.9], norm="l3")


@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("seed", range(5))
def test_rms_calibration_error_from_the_bins(strategy, seed):
    # norm="l2": the root of the bins' squared gaps averaged by the bins' weights, the bins
    # those of calibration_curve (brute force over the points of each bin).
    rng = np.random.default_rng(seed)
    n = 500
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p**1.5).astype(int)
    w = rng.uniform(0.5, 2, n) if seed % 2 else np.ones(n)
    edges = np.asarray(brute_edges(p, w, 8, strategy))
    bins = np.searchsorted(edges[1:-1], p)
    squares = total = 0.0
    for b in range(8):
        inside = bins == b
        if w[inside].sum() > 0:
            gap = np.average(p[inside], weights=w[inside]) - np.average(y[inside],
                                                                     weights=w[inside])
            squares += w[inside].sum() * gap**2
            total += w[inside].sum()
    got = calibration_error(y, p, n_bins=8, strategy=strategy, norm="l2",
                            sample_weight=w if seed % 2 else None)
    assert got == pytest.approx(math.sqrt(squares / total), rel=1e-12)
    assert calibration_error(y, p, n_bins=8, strategy=strategy, norm="l1") <= got + 1e-15


def test_options_are_checked_before_the_data():
    with pytest.raises(ValueError, match=r"^n_bins must be"):
        calibration_error([0, 1], [0.1, 1.9], n_bins=0)


def test_numpy_integers_are_bins():
    assert calibration_error(Y, P, n_bins=np.int64(4)) == calibration_error(Y, P, n_bins=4)


# -- probabilities of k classes: brier_score and log_loss of an (n, k) y_prob -------------

def class_probabilities(rng, n, k, dyadic=False):
    """n rows of k probabilities summing to 1 (multiples of 1/64 with ``dyadic``, exact
    in float64 and in their sums)."""
    if dyadic:
        cuts = np.sort(rng.integers(0, 65, (n, k - 1)), axis=1)
        edges = np.column_stack([np.zeros(n, int), cuts, np.full(n, 64)])
        return np.diff(edges, axis=1) / 64
    raw = rng.gamma(0.7, size=(n, k))
    return raw / raw.sum(axis=1, keepdims=True)


@pytest.mark.parametrize("k", [2, 3, 5])
@pytest.mark.parametrize("seed", range(4))
def test_class_probabilities_equal_scikit_learn(k, seed):
    rng = np.random.default_rng(seed)
    n = 300
    names = np.array(["ant", "bee", "cat", "dog", "eel"][:k])
    y = names[rng.integers(0, k, n)]
    y[:k] = names
    probs = class_probabilities(rng, n, k)
    w = rng.uniform(0, 3, n) if seed % 2 else None
    np.testing.assert_allclose(brier_score(y, probs, sample_weight=w),
                               brier_score_loss(y, probs, sample_weight=w), rtol=1e-14)
    np.testing.assert_allclose(log_loss(y, probs, sample_weight=w),
                               sk_log_loss(y, probs, sample_weight=w), rtol=1e-14)
    # A listed class without points, and float32 rows (their sums off by float32's rounding).
    wide = np.column_stack([probs, np.zeros(n)])
    classes = [*names, "fox"]
    np.testing.assert_allclose(log_loss(y, wide, classes=classes),
                               sk_log_loss(y, wide, labels=classes), rtol=1e-14)
    np.testing.assert_allclose(brier_score(y, wide, classes=classes),
                               brier_score_loss(y, wide, labels=classes), rtol=1e-14)
    single = probs.astype(np.float32)
    np.testing.assert_allclose(log_loss(y, single),
                               log_loss(y, single.astype(np.float64)), rtol=0)


@pytest.mark.parametrize("seed", range(6))
def test_class_probabilities_by_the_definitions(seed):
    # Exact: dyadic probabilities and integer weights, the sums as fractions.
    from fractions import Fraction

    rng = np.random.default_rng(seed)
    n, k = 60, 4
    y = rng.integers(0, k, n)
    y[:k] = range(k)
    probs = class_probabilities(rng, n, k, dyadic=True)
    w = rng.integers(0, 4, n).astype(float)
    w[0] = 1.0
    squares = sum(Fraction(w[i]) * sum((Fraction(probs[i, c]) - (c == y[i]))**2
                                       for c in range(k)) for i in range(n))
    assert brier_score(y, probs, sample_weight=w) == float(squares / Fraction(w.sum()))
    own = np.clip(probs[np.arange(n), y], np.finfo(float).eps, 1 - np.finfo(float).eps)
    expected = math.fsum(-w[i] * math.log(own[i]) for i in range(n)) / math.fsum(w)
    assert log_loss(y, probs, sample_weight=w) == pytest.approx(expected, rel=1e-15)
    # Classes in another column order: the columns follow them.
    order = [2, 0, 3, 1]
    assert brier_score(y, probs[:, order], classes=order) == brier_score(y, probs)


@pytest.mark.parametrize("function", CLASS_PROBABILITIES, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("y", "p", "options", "message"),
    [
        (["a", "b", "c"], [[0.5, 0.5, 0], [0, 1, 0], [0.2, 0.2, 0.5]], {},
         r"^each row of y_prob must sum to 1 \(the probabilities of the classes\); row 2 "
         r"sums to 0.9"),
        (["a", "b", "c"], [[0.5, 0.5, 0], [1.5, -0.5, 0], [0, 0, 1]], {},
         r"^y_prob\[:, 0\] must lie in \[0, 1\].*found 1.5 at position 1"),
        (["a", "b", "c"], [[0.5, 0.5, 0], [np.nan, 1, 0], [0, 0, 1]], {},
         r"^y_prob\[:, 0\] must contain only finite values; found nan at position 1$"),
        (["a", "b"], [[0.5, 0.5, 0], [0, 1, 0]], {},
         r"^y_true has 2 classes but y_prob has 3 columns; pass classes= to name"),
        (["a", "b"], [[0.5, 0.5, 0], [0, 1, 0]], {"classes": ["a", "b"]},
         r"^classes has 2 classes but y_prob has 3 columns$"),
        (["a", "z"], [[0.5, 0.5, 0], [0, 1, 0]], {"classes": ["a", "b", "c"]},
         r"^y_true contains a label not in classes: 'z' at position 1$"),
        (["a", "b"], [[0.5, 0.5, 0]], {"classes": ["a", "b", "c"]},
         r"^y_true and y_prob have different lengths: 2 and 1$"),
        (["a", "b", "c"], [[0.5, 0.5, 0], [0, 1, 0], [0, 0, 1]], {"pos_label": "a"},
         r"^pos_label names class 1 of the probabilities of one class"),
        ([0, 1], [0.2, 0.7], {"classes": [0, 1]},
         r"^classes= names the columns of an \(n, k\) y_prob"),
    ],
)
def test_class_probabilities_refused(function, y, p, options, message):
    with pytest.raises(ValueError, match=message):
        function(y, p, **options)
    with pytest.raises(ValueError, match=r"sample_weight must be non-negative"):
        function(["a", "b"], [[0.5, 0.5], [0, 1]], sample_weight=[1, -1])


TORCHMETRICS = json.loads((Path(__file__).parents[1] / "data" / "torchmetrics_calibration.json")
                          .read_text())


@pytest.mark.parametrize("name", sorted(TORCHMETRICS["streams"]))
def test_calibration_errors_equal_torchmetrics(name):
    # torchmetrics' binary_calibration_error (l1, l2, max), stored by
    # tools/make_torchmetrics_calibration_reference.py; no probability on an inner edge.
    stream = TORCHMETRICS["streams"][name]
    for key, theirs in stream["values"].items():
        norm, n_bins = key.split("/")
        ours = calibration_error(stream["y"], stream["p"], n_bins=int(n_bins), norm=norm)
        assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-15), key
