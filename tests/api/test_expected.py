"""expected_auc and expected_h_measure: the metrics of probabilities before the labels arrive.

Checked against the O(n^2) definition in exact rational arithmetic (every pair
of points, the pair of a point with itself a tie), the H-measure of all the
expected ROC points integrated exactly (``reference_impl.h_exact``), the
package's ``auc`` and ``h_measure`` when every probability is 0 or 1, and
NannyML's CBPE estimate stored by ``tools/make_nannyml_cbpe_reference.py``.
"""

import json
import math
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference_impl import brute_expected_auc, expected_parts, h_by_integration, h_exact

from hmeasure_stream import (
    InvertedScoresWarning,
    auc,
    expected_auc,
    expected_h_measure,
    h_measure,
)

DATA = Path(__file__).resolve().parents[1] / "data"


def random_case(rng, n, ties=True, weights=True, extremes=True):
    p = rng.random(n)
    if extremes:
        p[rng.random(n) < 0.2] = 0.0
        p[rng.random(n) < 0.2] = 1.0
    # Scores that rank the points roughly as their probabilities do (ties: few values).
    s = 3 * p + rng.normal(size=n)
    s = np.round(s) if ties else s
    # Point 0 gives both expected classes a positive weight: the metrics are defined.
    p[0] = 0.05 + 0.9 * p[0]
    w = None
    if weights:
        w = rng.exponential(size=n)
        w[rng.random(n) < 0.15] = 0.0
        w[0] = 1.0
    return p, s, w


# ---------------------------------------------------------------------------
# The definition


@pytest.mark.parametrize("seed", range(40))
def test_expected_auc_is_the_quadratic_definition_with_ties_and_weights(seed):
    rng = np.random.default_rng(seed)
    p, s, w = random_case(rng, int(rng.integers(1, 25)), ties=seed % 3 != 0,
                          weights=seed % 2 == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvertedScoresWarning)
        value = expected_auc(p, s, sample_weight=w)
    assert value == pytest.approx(float(brute_expected_auc(p, s, w)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("seed", range(12))
def test_expected_auc_with_default_scores_is_that_of_the_probabilities(seed):
    rng = np.random.default_rng(100 + seed)
    p, _, w = random_case(rng, int(rng.integers(2, 20)), weights=seed % 2 == 0)
    p[1:] = np.where(np.arange(1, len(p)) % 2, np.round(p[1:], 1), p[1:])  # tied probabilities
    value = expected_auc(p, sample_weight=w)
    assert value == pytest.approx(float(brute_expected_auc(p, p, w)), rel=1e-12, abs=1e-15)
    assert value == expected_auc(p, p, sample_weight=w)
    # Only the order of the scores counts: a strictly increasing map of them is the same.
    assert value == expected_auc(p, np.exp(3 * p) - 7, sample_weight=w)


def test_a_point_paired_with_itself_is_a_tie():
    # One point: only the pair (i, i), a tie: one half, whatever p.
    assert expected_auc([0.3]) == 0.5
    # Two points: p1 (1 - p2) above, the two self pairs halves.
    p = [0.2, 0.9]
    count = 0.9 * 0.8 + (0.2 * 0.8 + 0.9 * 0.1) / 2
    assert expected_auc(p) == pytest.approx(count / (1.1 * 0.9), rel=1e-15)


@pytest.mark.parametrize("seed", range(20))
def test_expected_h_measure_is_h_of_every_expected_roc_point_integrated_exactly(seed):
    rng = np.random.default_rng(200 + seed)
    p, s, w = random_case(rng, int(rng.integers(1, 14)), ties=seed % 3 != 0,
                          weights=seed % 2 == 0)
    y2, s2, w2 = expected_parts(p, s, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvertedScoresWarning)
        value = expected_h_measure(p, s, sample_weight=w)
        cost = expected_h_measure(p, s, alpha=1, beta=3, sample_weight=w)
    assert value == pytest.approx(float(h_exact(y2, s2, w2)), rel=1e-9, abs=1e-12)
    assert cost == pytest.approx(float(h_exact(y2, s2, w2, alpha=1, beta=3)),
                                 rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_expected_h_measure_severity_ratio_reads_the_expected_priors(seed):
    rng = np.random.default_rng(300 + seed)
    p, s, w = random_case(rng, 12, weights=seed % 2 == 0)
    weights = np.ones(len(p)) if w is None else w
    pi1 = (weights * p).sum() / weights.sum()
    pi0 = 1 - pi1
    y2, s2, w2 = expected_parts(p, s, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvertedScoresWarning)
        prior = expected_h_measure(p, s, severity_ratio="prior", sample_weight=w)
        half = expected_h_measure(p, s, severity_ratio=0.5, sample_weight=w)
    # R's SR = pi1 / pi0 is Beta(2, 1 + pi0 / pi1); SR = 0.5 is Beta(2, 3).
    assert prior == pytest.approx(h_by_integration(y2, s2, 2, 1 + pi0 / pi1, w=w2),
                                  rel=1e-6, abs=1e-9)
    assert half == pytest.approx(float(h_exact(y2, s2, w2, alpha=2, beta=3)),
                                 rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------------
# Known labels, weight scale, inputs


@pytest.mark.parametrize("seed", range(10))
def test_probabilities_zero_or_one_are_the_labels(seed):
    rng = np.random.default_rng(400 + seed)
    n = int(rng.integers(2, 40))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.integers(0, 6, n).astype(float) if seed % 2 else rng.random(n)
    w = rng.exponential(size=n) if seed % 3 else None
    if w is not None:
        w[rng.random(n) < 0.2] = 0.0
        w[:2] = 1.0
    p = y.astype(float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvertedScoresWarning)
        assert expected_auc(p, s, sample_weight=w) == auc(y, s, sample_weight=w)
        assert (expected_h_measure(p, s, sample_weight=w)
                == h_measure(y, s, sample_weight=w))
        assert (expected_h_measure(p, s, severity_ratio="prior", sample_weight=w)
                == h_measure(y, s, severity_ratio="prior", sample_weight=w))


@pytest.mark.parametrize("function", [expected_auc, expected_h_measure])
def test_invariant_under_a_common_weight_scale(function):
    rng = np.random.default_rng(7)
    p, s, w = random_case(rng, 30)
    w[1] = 1.0
    p[1] = 0.5
    reference = function(p, s, sample_weight=w)
    # A power of two scales every part exactly: the same value bit for bit.
    for scale in (2.0**-900, 0.5, 8.0, 2.0**900):
        assert function(p, s, sample_weight=w * scale) == reference
    # Another scale rounds the parts w p and w (1 - p) differently: up to rounding.
    for scale in (3.0, 1e-7, 1e250):
        assert function(p, s, sample_weight=w * scale) == pytest.approx(reference, rel=1e-13)
    assert function(p, s, sample_weight=np.ones(len(p))) == function(p, s)


def test_pandas_series_and_lists_are_read_as_arrays():
    rng = np.random.default_rng(11)
    p, s, w = random_case(rng, 25)
    index = np.arange(100, 125)[::-1]
    for function in (expected_auc, expected_h_measure):
        reference = function(p, s, sample_weight=w)
        assert function(pd.Series(p, index=index), pd.Series(s, index=index),
                        sample_weight=pd.Series(w, index=index)) == reference
        assert function(p.tolist(), s.tolist(), sample_weight=w.tolist()) == reference
        assert function(pd.Series(p, index=index)) == function(p)
        assert function(p, s.reshape(-1, 1), sample_weight=w) == reference


def test_scores_are_evaluated_as_given_with_the_warning_of_inverted_scores():
    p = np.array([0.1, 0.3, 0.6, 0.9])
    with pytest.warns(InvertedScoresWarning, match="expected_auc: the AUC is"):
        value = expected_auc(p, -p)
    assert value == pytest.approx(float(brute_expected_auc(p, -p)), rel=1e-15)
    assert value < 0.5
    with pytest.warns(InvertedScoresWarning, match="expected_h_measure: the AUC is"):
        expected_h_measure(p, -p)


# ---------------------------------------------------------------------------
# Refusals


@pytest.mark.parametrize("function", [expected_auc, expected_h_measure])
@pytest.mark.parametrize(("args", "kwargs", "message"), [
    (([0.2, 1.5, 0.3],), {},
     r"y_prob must lie in \[0, 1\] \(probabilities of class 1\); found 1.5 at position 1"),
    (([0.2, 0.5, -0.25, 2.0],), {},
     r"y_prob must lie in \[0, 1\] \(probabilities of class 1\); found -0.25 at position 2 "
     r"\(and 1 more\)"),
    (([0.2, np.nan],), {}, "y_prob must contain only finite values; found nan at position 1"),
    (([0.2, 0.5], [1.0, np.inf]), {},
     "y_score must contain only finite values; found inf at position 1"),
    (([0.2, 0.5], [1.0, 2.0, 3.0]), {},
     "y_prob and y_score have different lengths: 2 and 3"),
    (([0.2, 0.5],), {"sample_weight": [1.0, -1.0]},
     "sample_weight must be non-negative; found -1.0 at position 1"),
    (([0.2, 0.5],), {"sample_weight": [1.0]},
     "sample_weight has 1 entries but there are 2 points"),
    (([],), {}, "y_prob is empty"),
    (([[0.2, 0.8], [0.4, 0.6]],), {}, r"y_prob must be 1-d.*y_prob\[:, 1\]"),
    ((["a", "b"],), {}, "y_prob must be numeric"),
    (([0.0, 0.0, 0.0], [1, 2, 3]), {},
     "is undefined when the expected weight of class 1 is 0: every probability in y_prob "
     "is 0"),
    (([1.0, 1.0],), {},
     "is undefined when the expected weight of class 0 is 0: every probability in y_prob "
     "is 1"),
    (([1.0, 0.4, 1.0],), {"sample_weight": [1.0, 0.0, 2.0]}, "expected weight of class 0 is 0"),
])
def test_bad_input_is_refused_saying_what_and_where(function, args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        function(*args, **kwargs)


def test_undefined_probabilities_name_the_function_and_the_weights():
    with pytest.raises(ValueError, match=r"^expected_auc is undefined .* is 1 \(among the "
                                         r"points of positive weight\)$"):
        expected_auc([1.0, 0.3], sample_weight=[1.0, 0.0])
    with pytest.raises(ValueError, match=r"^expected_h_measure is undefined"):
        expected_h_measure([0.0, 0.0])


def test_bad_cost_options_are_refused():
    with pytest.raises(ValueError, match="pass either severity_ratio or alpha/beta"):
        expected_h_measure([0.2, 0.7], severity_ratio=2.0, alpha=3.0)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        expected_h_measure([0.2, 0.7], alpha=-1.0)
    with pytest.raises(ValueError, match='severity_ratio must be a number > 0 or "prior"'):
        expected_h_measure([0.2, 0.7], severity_ratio="posterior")


# ---------------------------------------------------------------------------
# NannyML's CBPE estimate


def _nannyml_cases():
    path = DATA / "nannyml_cbpe.json"
    return json.loads(path.read_text())


def test_equals_nannyml_cbpe_estimate():
    stored = _nannyml_cases()
    assert stored["nannyml_version"]
    assert len(stored["cases"]) >= 3
    for case in stored["cases"]:
        y_prob = np.array(case["y_prob"])
        y_score = y_prob if case["y_score"] is None else np.array(case["y_score"])
        # NannyML sorts by the score: with ties its curve depends on their order.
        assert np.unique(y_score).shape == y_score.shape
        # NannyML rounds the cumulative class weights to 5 decimals before the
        # trapezoids: each ROC coordinate is off by at most 5e-6 over its class
        # weight, which moves the area by at most their sum (see the script).
        weight_pos = math.fsum(y_prob)
        weight_neg = math.fsum(1 - y_prob)
        tolerance = 5e-6 / weight_pos + 5e-6 / weight_neg + 1e-12
        value = expected_auc(y_prob, case["y_score"])
        assert abs(value - case["roc_auc"]) <= tolerance, case["name"]
