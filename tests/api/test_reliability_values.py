"""Values at the edges of float64 and of the input rules, against independent computations.

* H of data whose classes weigh more than 2**53 apart (decayed points), against the
  exact rational integral of the minimum loss (``reference_impl.h_exact``);
* the VUS of confusion matrices whose rows overflow when summed, against the exact
  values of the rates they stand for;
* the ROC points of data with weights of zero, against scikit-learn's ``roc_curve``,
  which treats such a row as absent;
* the messages of refused options and lengths.
"""

import itertools
import math

import numpy as np
import pytest
from reference_impl import brute_upper_hull, h_exact, roc_points_exact
from sklearn.metrics import roc_curve

from hmeasure_stream import (
    DynamicAUC,
    DynamicH,
    auc,
    binned_auc,
    crisp_auc_approximations,
    crisp_vus,
    h_measure,
    hmeasure_report,
    roc_hull,
    roc_points,
    weighted_auc_error_bound,
)
from hmeasure_stream.scorers import h_scorer, partial_auc_scorer

pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

# ---------------------------------------------------------------------------
# H when one class weighs less than 2**-53 of the other


def _decayed(n, step=60):
    """Weights of n points a ``step`` of half-lives apart, the newest weighing 1."""
    return [2.0 ** (-step * (n - 1 - k)) for k in range(n)]


def test_h_keeps_the_steps_below_the_rounding_of_the_class_weights():
    # Class 0 weighs 2**-120, class 1 weighs 1 + 2**-60 (1.0 in float64): the step of the
    # class 1 point of weight 2**-60 is lost in the hull's cumulative weights, yet with
    # priors (2**-120, 1) it decides the loss.  Exact H: 1.5046...e-36.
    y, s, w = [0, 1, 1], [1.0, 0.0, 2.0], _decayed(3)
    exact = float(h_exact(y, s, w))
    assert exact == pytest.approx(1.504632769052528e-36, rel=1e-12)
    assert h_measure(y, s, sample_weight=w) == pytest.approx(exact, abs=1e-12)
    assert hmeasure_report(y, s, sample_weight=w)["H"] == pytest.approx(exact, abs=1e-12)
    tracker = DynamicH()
    tracker.add_many(y, s, w)
    assert tracker.h == pytest.approx(exact, abs=1e-12)


def test_h_of_a_decayed_stream_equals_the_structure_and_the_exact_value():
    # The stream of the issue: half_life="1s", two points at 0 s and one a minute later,
    # so class 0 weighs 2**-60 of class 1.  Exact H: 3/8 (to 1e-36).
    y, s, seconds = [0, 1, 1], [1.0, 0.0, 2.0], [0, 0, 60]
    tracker = DynamicH(half_life="1s")
    for label, score, second in zip(y, s, seconds, strict=True):
        tracker.add(label, score, time=np.datetime64(second, "s"))
    w = [2.0**-60, 2.0**-60, 1.0]  # the decay factors at the last point's time
    exact = float(h_exact(y, s, w))
    assert exact == pytest.approx(0.375, rel=1e-15)
    assert tracker.h == pytest.approx(exact, abs=1e-12)
    assert h_measure(y, s, sample_weight=w) == pytest.approx(exact, abs=1e-12)
    assert hmeasure_report(y, s, sample_weight=w)["H"] == pytest.approx(exact, abs=1e-12)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_h_of_every_small_decayed_input_equals_the_exact_value(n):
    w = _decayed(n)
    for y in itertools.product([0, 1], repeat=n):
        if len(set(y)) < 2:
            continue
        for s in itertools.permutations(range(n)):
            exact = float(h_exact(list(y), list(s), w))
            got = h_measure(list(y), list(s), sample_weight=w)
            assert got == pytest.approx(exact, abs=1e-12), (y, s)
            report = hmeasure_report(list(y), list(s), sample_weight=w)
            assert report["H"] == pytest.approx(exact, abs=1e-12), (y, s)


def test_h_with_other_shapes_and_fixed_priors_keeps_the_small_steps():
    y, s, w = [0, 1, 1], [1.0, 0.0, 2.0], [2.0**-60, 2.0**-60, 1.0]
    for alpha, beta in [(2, 2), (1, 1), (3, 2), (2, 5), (1, 7)]:
        exact = float(h_exact(y, s, w, alpha=alpha, beta=beta))
        assert h_measure(y, s, alpha=alpha, beta=beta, sample_weight=w) == pytest.approx(
            exact, abs=1e-12)
    for priors in [(0.5, 0.5), (0.001, 0.999)]:
        exact = float(h_exact(y, s, w, priors=priors))
        assert h_measure(y, s, priors=priors, sample_weight=w) == pytest.approx(
            exact, abs=1e-12)


# ---------------------------------------------------------------------------
# Confusion matrices whose row sums overflow


def test_crisp_vus_of_rows_summing_beyond_the_float64_range():
    # Each row stands for the rates (1/2, 1/2): the diagonal classifier, VUS 1/2.
    assert crisp_vus([[1e308, 1e308], [1e308, 1e308]]).vus == pytest.approx(0.5, rel=1e-15)
    assert crisp_vus([[1.5e308, 0.5e308], [0.0, 1.7e308]]).vus == pytest.approx(
        (1 + 1.0 - 0.25) / 2, rel=1e-15)  # rates (3/4, 1/4), (0, 1): one-point AUC 7/8
    # Three classes: every row (1/3, 1/3, 1/3), the trivial classifier, VUS 1/180.
    assert crisp_vus(np.full((3, 3), 1.7e308)).vus == pytest.approx(1 / 180, rel=1e-9)
    # A set: one classifier of rows beyond the range, one of ordinary counts.
    stack = np.array([np.full((2, 2), 1e308), [[3.0, 1.0], [1.0, 3.0]]])
    assert crisp_vus(stack).vus == pytest.approx(0.75, rel=1e-15)


def test_crisp_auc_approximations_of_rows_summing_beyond_the_float64_range():
    huge = crisp_auc_approximations(np.full((3, 3), 1.7e308))
    ordinary = crisp_auc_approximations(np.full((3, 3), 1.0))
    assert list(huge) == list(ordinary)
    for name, expected in ordinary.items():
        assert huge[name] == pytest.approx(expected, rel=1e-15), name


# ---------------------------------------------------------------------------
# Points of zero weight are absent from the ROC curve, as in scikit-learn


def _sklearn_points(y, s, w):
    fpr, tpr, _ = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    return fpr, tpr


def _zero_weight_cases():
    yield [0, 0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5], [1, 1, 1, 0.5, 0]  # the issue's
    yield [0, 1, 0, 1], [0.9, 0.9, 0.1, 0.5], [0, 2, 1, 1]  # a tie with a zero weight
    yield [1, 0, 1, 0, 1], [5.0, 4.0, 3.0, 2.0, 1.0], [0, 0, 1, 1, 0]
    rng = np.random.default_rng(30)
    for _ in range(40):
        n = int(rng.integers(4, 30))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = rng.integers(0, 6, n).astype(float)
        w = rng.choice([0.0, 0.0, 0.5, 1.0, 3.0], n)
        w[:2] = 1.0
        yield y.tolist(), s.tolist(), w.tolist()


@pytest.mark.parametrize("case", list(_zero_weight_cases()))
def test_roc_points_drop_the_points_of_zero_weight_as_scikit_learn(case):
    y, s, w = case
    expected = _sklearn_points(y, s, w)
    for got in (roc_points(y, s, sample_weight=w), _structure_points(DynamicAUC(), y, s, w),
                _structure_points(DynamicH(), y, s, w)):
        assert len(got[0]) == len(expected[0])
        np.testing.assert_allclose(got[0], expected[0], rtol=1e-14, atol=1e-15)
        np.testing.assert_allclose(got[1], expected[1], rtol=1e-14, atol=1e-15)
    # The hull of those points, by definition (exact rationals), and the AUC.
    present = [k for k in range(len(y)) if w[k] > 0]
    sub = ([y[k] for k in present], [s[k] for k in present], [w[k] for k in present])
    vertices = brute_upper_hull(roc_points_exact(*sub))
    hull = roc_hull(y, s, sample_weight=w)
    np.testing.assert_allclose(hull[0], [float(x) for x, _ in vertices], rtol=1e-14)
    np.testing.assert_allclose(hull[1], [float(t) for _, t in vertices], rtol=1e-14)
    assert auc(y, s, sample_weight=w) == pytest.approx(auc(*sub[:2], sample_weight=sub[2]),
                                                        rel=1e-14)


def _structure_points(tracker, y, s, w):
    tracker.add_many(y, s, w)
    return tracker.roc_points()


def test_roc_points_of_the_issue():
    fpr, tpr = roc_points([0, 0, 1, 1, 1], [.1, .2, .3, .4, .5], sample_weight=[1, 1, 1, .5, 0])
    np.testing.assert_array_equal(fpr, [0.0, 0.0, 0.0, 0.5, 1.0])
    np.testing.assert_allclose(tpr, [0.0, 1 / 3, 1.0, 1.0, 1.0], rtol=1e-15)


# ---------------------------------------------------------------------------
# Messages


def test_an_empty_weight_array_of_the_wrong_length_is_a_length_mismatch():
    with pytest.raises(ValueError, match="sample_weight has 0 entries but there are 2 points"):
        auc([0, 1], [0.1, 0.2], sample_weight=[])
    with pytest.raises(ValueError, match="sample_weight has 0 entries but there are 3 points"):
        h_measure([0, 1, 1], [0.1, 0.2, 0.3], sample_weight=np.array([]))


def test_too_many_bins_are_refused_naming_the_limit():
    with pytest.raises(ValueError, match=r"bins must be at most 16777216 \(2\*\*24\)"):
        binned_auc([0, 1], [0.2, 0.7], n_bins=10**12)
    # The limit itself is taken.
    assert binned_auc([0, 1], [0.2, 0.7], n_bins=2**24).auc == 1.0


@pytest.mark.parametrize("options, name", [
    ({"alpha": -1.0}, "alpha"),
    ({"beta": math.nan}, "beta"),
    ({"severity_ratio": "posterior"}, "severity_ratio"),
    ({"severity_ratio": 0.5, "alpha": 3.0}, "severity_ratio"),
    ({"priors": (0.5, 0.6)}, "priors"),
])
def test_h_scorer_refuses_invalid_options_when_made(options, name):
    with pytest.raises(ValueError, match=name):
        h_scorer(**options)


@pytest.mark.parametrize("options, name", [
    ({"fpr_range": (0.5, 0.2)}, "fpr_range"),
    ({"tpr_range": (0.0, 1.5)}, "tpr_range"),
    ({"correction": "mcclsh"}, "correction"),
    ({"fpr_range": (0, 0.5), "tpr_range": (0.5, 1), "correction": "mcclish"}, "correction"),
])
def test_partial_auc_scorer_refuses_invalid_options_when_made(options, name):
    with pytest.raises(ValueError, match=name):
        partial_auc_scorer(**options)


@pytest.mark.parametrize("counts, name", [((0, 10), "n_neg"), ((10, 0), "n_pos"),
                                          ((0, 10**9), "n_neg")])
def test_weighted_auc_error_bound_refuses_an_absent_class(counts, name):
    with pytest.raises(ValueError, match=f"{name} is 0: class {name == 'n_pos':d} is absent"):
        weighted_auc_error_bound(*counts, delta=0.5, w_max=1, w_lipschitz=1)
