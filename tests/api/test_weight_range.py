"""Weights spanning more than the float64 exponent range: every positive weight counts.

The from-scratch functions scale all weights by one power of two; a weight
that the scaling would flush to zero must stay positive, so that a class of
tiny weights next to a class of huge ones is still present.  The values are
scikit-learn's, which sums the weights as given.
"""

from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import average_precision_score, roc_auc_score

from hmeasure_stream import (
    auc,
    average_precision,
    expected_auc,
    h_measure,
    hmeasure_report,
    roc_curve,
)

TINY = 5e-324  # the least positive double

CASES = [
    # (labels, scores, weights)
    ([0, 1], [0.1, 0.2], [1e200, 1e-200]),
    ([0, 1], [0.1, 0.2], [1e308, TINY]),
    ([1, 0], [0.2, 0.1], [1e-200, 1e200]),
    ([0, 1, 0, 1], [0.1, 0.2, 0.3, 0.05], [1e308, TINY, 0.0, 0.0]),
    ([0, 1, 1, 0, 1], [0.1, 0.2, 0.3, 0.4, 0.25], [1e200, 1e-200, 3e-200, 0.0, 0.0]),
    ([0, 0, 1, 1, 1], [0.3, 0.1, 0.2, 0.4, 0.15], [1e250, 2e250, 1e-250, 4e-250, 2e-250]),
    ([1, 0, 1, 0], [0.9, 0.1, 0.2, 0.3], [1e-300, 1e300, 1e300, 1e-300]),
]


@pytest.mark.parametrize(("y", "s", "w"), CASES)
def test_auc_equals_scikit_learn(y, s, w):
    assert auc(y, s, sample_weight=w) == pytest.approx(roc_auc_score(y, s, sample_weight=w),
                                                       rel=1e-15)


@pytest.mark.parametrize(("y", "s", "w"), CASES)
def test_average_precision_equals_scikit_learn(y, s, w):
    assert average_precision(y, s, sample_weight=w) == pytest.approx(
        average_precision_score(y, s, sample_weight=w), rel=1e-12, abs=1e-300)


@pytest.mark.parametrize(("y", "s", "w"), CASES)
def test_roc_curve_equals_exact_rates(y, s, w):
    """Every score of positive weight is a threshold; its rates are the exact class
    weights at or above it over the class totals (Fractions), correctly rounded."""
    fpr, tpr, thresholds = roc_curve(y, s, sample_weight=w, drop_intermediate=False)
    present = sorted({score for score, weight in zip(s, w, strict=True) if weight > 0},
                     reverse=True)
    assert thresholds.tolist() == [np.inf, *present]
    exact = [Fraction(weight) for weight in w]
    totals = [sum(e for e, label in zip(exact, y, strict=True) if label == c) for c in (0, 1)]
    for t, f, r in zip(thresholds, fpr, tpr, strict=True):
        at_or_above = [sum(e for e, label, score in zip(exact, y, s, strict=True)
                           if label == c and score >= t) for c in (0, 1)]
        # The cumulative sums round once per step: within an ulp or two of the exact rates.
        assert (f, r) == pytest.approx((float(at_or_above[0] / totals[0]),
                                        float(at_or_above[1] / totals[1])), rel=1e-15)


def test_h_measure_of_separated_classes_is_one():
    for w in ([1e200, 1e-200], [1e308, TINY], [TINY, 1e308]):
        assert h_measure([0, 1], [0.1, 0.2], sample_weight=w) == 1.0


def test_expected_auc_with_tiny_weights():
    # Certain labels: the expected AUC is the AUC of those labels.
    p, s = [0.0, 1.0, 1.0], [0.1, 0.3, 0.2]
    w = [1e300, 1e-300, 3e-300]
    assert expected_auc(p, s, sample_weight=w) == roc_auc_score([0, 1, 1], s, sample_weight=w)


def vanishing_share(rare, spread, tiny):
    """Points whose class ``rare`` weighs ``spread``**-2 of the other, and H's limit there:
    the usual formula on moderate weights with the prior ``tiny`` given to that class."""
    y = np.array([1, 0, 1, 0, 1, 0])
    s = [0.9, 0.5, 0.6, 0.4, 0.45, 0.1]
    moderate = np.array([1.0, 1, 3, 2, 1, 1])
    w = np.where(y == rare, 1 / spread, spread) * moderate
    priors = (tiny, 1 - tiny) if rare == 0 else (1 - tiny, tiny)
    return y, s, w, h_measure(y, s, sample_weight=moderate, priors=priors)


@pytest.mark.parametrize("rare", [0, 1])
def test_h_measure_when_a_class_share_is_below_float64(rare):
    """A class weighing less than 2**-1074 of the other: H is its limit as that prior
    goes to 0, which the usual formula approaches with a small prior given."""
    y, s, w, limit = vanishing_share(rare, 1e200, 1e-9)
    assert h_measure(y, s, sample_weight=w) == pytest.approx(limit, abs=1e-6)
    assert 0.0 < limit < 1.0


@pytest.mark.parametrize("rare", [0, 1])
def test_every_h_agrees_when_a_class_share_is_below_float64(rare):
    """h_measure, hmeasure_report's H and dask's H take the same limit at a vanishing
    class share: that of the usual formula with a tiny prior given."""
    import dask.array as da

    from hmeasure_stream import dask as hsd

    y, s, w, limit = vanishing_share(rare, 1e300, 1e-12)
    assert 0.0 < limit < 1.0
    value = h_measure(y, s, sample_weight=w)
    assert value == pytest.approx(limit, abs=1e-9)
    assert hmeasure_report(y, s, sample_weight=w)["H"] == value
    chunks = (da.from_array(y, chunks=2), da.from_array(np.array(s), chunks=2),
              da.from_array(w, chunks=2))
    assert hsd.h_measure(*chunks[:2], sample_weight=chunks[2]) == value
    assert hsd.hmeasure_report(*chunks[:2], sample_weight=chunks[2])["H"] == value
