"""binned_auc and loglog_transform against independent implementations.

The naive rules below are written from the definitions (Bouckaert, Sec. 4,
with the continuous log-log transform) with Python floats and ``math.log``
(the C library's log, as the compiled kernel uses), and the AUC of the bins
is computed pair by pair in exact fractions, not with the trapezoid sum.
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import LOG_LOG_2, brute_auc, naive_bin, naive_loglog
from scipy.special import expit
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB
from strategies import labelled_scores

from hmeasure_stream import auc, binned_auc, loglog_transform
from hmeasure_stream.datasets import load_default_stream

# Scores outside score_range are part of what the bins are checked on here: their
# OutOfRangeScoresWarning is tested in test_messages.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")


def naive_counts(y, s, m, lo=0.0, hi=1.0, alpha=None, w=None):
    neg, pos = [0] * m, [0] * m
    for k, (label, score) in enumerate(zip(y, s, strict=True)):
        j = naive_bin(float(score), m, lo, hi, alpha)
        weight = 1 if w is None else Fraction(float(w[k]))
        if label == 1:
            pos[j] += weight
        else:
            neg[j] += weight
    return neg, pos


def pairwise_binned_auc(neg, pos):
    """AUC of bin numbers as scores, pair by pair (ties one half), and the triangle bound."""
    total = sum(neg) * sum(pos)
    wins = sum(
        Fraction(neg[i]) * pos[j] * (1 if j > i else Fraction(1, 2) if j == i else 0)
        for i in range(len(neg))
        for j in range(len(pos))
        if neg[i] and pos[j]
    )
    bound = sum(Fraction(a) * b for a, b in zip(neg, pos, strict=True)) / 2
    return wins / total, bound / total


def paper_expected_error(neg, pos):
    total = float(sum(neg) + sum(pos))
    return math.fsum(
        math.sqrt(float(a) ** 2 + float(b) ** 2) / total * math.sqrt(float(a + b) / total) / 3
        for a, b in zip(neg, pos, strict=True)
    )


def estimated_alpha(s, lo=0.0, hi=1.0):
    """The documented rule, re-implemented: strided sample, 1% of t, capped at 1/4.

    The rule's constants (65536, 0.01, 1/4) are written out here on purpose,
    not imported: the test checks the documented values.
    """
    step = math.ceil(len(s) / 65536)
    t = []
    for score in list(s)[::step]:
        r = (float(score) - lo) / (hi - lo)
        value = min(r, 1.0 - r)
        if 0.0 < value <= 0.5:
            t.append(value)
    if not t:
        t_q = 0.25
    else:
        t.sort()
        t_q = min(t[math.floor(0.01 * (len(t) - 1))], 0.25)
    return 1.0 / (2.0 * (math.log(-math.log(t_q)) - LOG_LOG_2))


@st.composite
def binned_inputs(draw, weighted=False):
    data = draw(labelled_scores(weighted=weighted, max_size=30))
    s = data[1]
    # A range that cuts off some scores now and then.
    top = float(max(abs(s.min()), abs(s.max()), 0.25))
    lo = draw(st.sampled_from([-top, -top / 2, 0.0]))
    hi = draw(st.sampled_from([top, top / 2, top * 1.5]))
    m = draw(st.sampled_from([1, 2, 3, 7, 10, 100]))
    return data, m, (lo, hi)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(binned_inputs(), st.sampled_from([None, 0.05, 0.2, 0.7]))
def test_binned_auc_equals_pairwise_auc_of_naive_bins(case, alpha):
    (y, s), m, (lo, hi) = case
    transform = None if alpha is None else "loglog"
    result = binned_auc(y, s, n_bins=m, score_range=(lo, hi), transform=transform,
                        loglog_alpha=alpha)
    neg, pos = naive_counts(y, s, m, lo, hi, alpha)
    assert result.counts_neg.tolist() == neg
    assert result.counts_pos.tolist() == pos
    exact_binned, bound = pairwise_binned_auc(neg, pos)
    # Unit weights: both are the correctly rounded exact fractions.
    assert result.auc == float(exact_binned)
    assert result.max_error == float(bound)
    assert result.expected_error == pytest.approx(paper_expected_error(neg, pos), rel=1e-12)
    assert result.n_below == int(np.sum(s < lo))
    assert result.n_above == int(np.sum(s > hi))
    exact = brute_auc(list(y), list(s))
    assert abs(exact - exact_binned) <= bound


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(binned_inputs(weighted=True), st.sampled_from([None, 0.1]))
def test_weighted_binned_auc_against_naive_weighted_bins(case, alpha):
    (y, s, w), m, (lo, hi) = case
    transform = None if alpha is None else "loglog"
    result = binned_auc(y, s, n_bins=m, score_range=(lo, hi), transform=transform,
                        loglog_alpha=alpha, sample_weight=w)
    neg, pos = naive_counts(y, s, m, lo, hi, alpha, w)
    np.testing.assert_allclose(result.counts_neg, [float(v) for v in neg], rtol=1e-13)
    np.testing.assert_allclose(result.counts_pos, [float(v) for v in pos], rtol=1e-13)
    exact_binned, bound = pairwise_binned_auc(neg, pos)
    assert result.auc == pytest.approx(float(exact_binned), rel=1e-12, abs=1e-14)
    assert result.max_error == pytest.approx(float(bound), rel=1e-12, abs=1e-14)
    assert result.expected_error == pytest.approx(paper_expected_error(neg, pos), rel=1e-12)
    exact = brute_auc(list(y), list(s), list(w))
    assert abs(float(exact) - result.auc) <= result.max_error + 1e-12
    # The weighted pass counts the points outside the range as the unweighted one.
    assert result.n_below == int(np.sum(s < lo))
    assert result.n_above == int(np.sum(s > hi))


def real_streams():
    y, log_odds = load_default_stream()
    cancer = load_breast_cancer()
    proba = cross_val_predict(GaussianNB(), cancer.data, cancer.target, cv=5,
                              method="predict_proba")[:, 1]
    return {
        "digits log-odds": (y, log_odds, (float(log_odds.min()), float(log_odds.max()))),
        "digits probabilities": (y, expit(log_odds), (0.0, 1.0)),
        "breast cancer probabilities": (cancer.target, proba, (0.0, 1.0)),
    }


@pytest.mark.parametrize("name", sorted(real_streams()))
@pytest.mark.parametrize("bins", [10, 100, 1000])
@pytest.mark.parametrize("transform", [None, "loglog"])
def test_exact_auc_within_max_error_on_real_streams(name, bins, transform):
    y, s, score_range = real_streams()[name]
    if transform == "loglog" and score_range != (0.0, 1.0):
        # Log-odds mapped to [0, 1] linearly are not probabilities, but the rule still holds.
        score_range = (score_range[0] - 1.0, score_range[1] + 1.0)
    result = binned_auc(y, s, n_bins=bins, transform=transform, score_range=score_range)
    assert abs(auc(y, s) - result.auc) <= result.max_error + 1e-12
    assert result.counts_neg.sum() == np.sum(y == 0)
    assert result.counts_pos.sum() == np.sum(y == 1)


@pytest.mark.slow
@pytest.mark.parametrize("bins", [10, 100, 1000])
@pytest.mark.parametrize("transform", [None, "loglog"])
@pytest.mark.parametrize("ties", [False, True])
def test_exact_auc_within_max_error_on_large_random_data(rng, bins, transform, ties):
    n = 100_000
    y = rng.integers(0, 2, n)
    s = expit(rng.normal(size=n) * 6 + 1.5 * y)
    if ties:
        s = np.round(s, 3)
    w = rng.exponential(size=n)
    result = binned_auc(y, s, n_bins=bins, transform=transform)
    assert abs(auc(y, s) - result.auc) <= result.max_error + 1e-12
    weighted = binned_auc(y, s, n_bins=bins, transform=transform, sample_weight=w,
                          loglog_alpha=result.loglog_alpha)
    assert abs(auc(y, s, sample_weight=w) - weighted.auc) <= weighted.max_error + 1e-12
    # The same bins with unit weights: float counts equal to the integer counts.
    unit = binned_auc(y, s, n_bins=bins, transform=transform, sample_weight=np.ones(n),
                      loglog_alpha=result.loglog_alpha)
    assert unit.counts_neg.tolist() == result.counts_neg.tolist()
    assert unit.auc == pytest.approx(result.auc, rel=1e-13)
    assert unit.max_error == pytest.approx(result.max_error, rel=1e-12)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("alpha", [1e-4, 3e-4])
def test_tiny_loglog_alpha_bins_without_overflow_warnings(rng, alpha):
    # exp((1/2 - u) / alpha) overflows for the outer edges: they are 0 and 1.
    # (pytest turns any RuntimeWarning into an error.)
    m = 50
    y = rng.integers(0, 2, 2000)
    s = np.concatenate([rng.random(1000), expit(rng.normal(size=1000) * 40)])
    result = binned_auc(y, s, n_bins=m, transform="loglog", loglog_alpha=alpha)
    neg, pos = naive_counts(y, s, m, alpha=alpha)
    assert result.counts_neg.tolist() == neg
    assert result.counts_pos.tolist() == pos
    edges = result.edges
    assert edges[0] == 0.0 and edges[-1] == 1.0
    assert (np.diff(edges) >= 0).all()
    # Bins of width 1/50 in T: every edge but the middle one is beyond what
    # float64 resolves near 0 and 1, so they collapse to 0 and 1.
    assert (edges[1:m // 2] == 0.0).all() and (edges[m // 2 + 1:-1] == 1.0).all()
    assert edges[m // 2] == pytest.approx(0.5, abs=1e-15)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_halves_add_up_to_the_whole(rng):
    n = 50_001
    y = rng.integers(0, 2, n)
    s = expit(rng.standard_cauchy(size=n))
    w = rng.exponential(size=n)
    for transform in (None, "loglog"):
        whole = binned_auc(y, s, n_bins=64, transform=transform)
        alpha = whole.loglog_alpha
        first = binned_auc(y[:20_000], s[:20_000], n_bins=64, transform=transform,
                           loglog_alpha=alpha)
        second = binned_auc(y[20_000:], s[20_000:], n_bins=64, transform=transform,
                            loglog_alpha=alpha)
        assert (first.counts_neg + second.counts_neg).tolist() == whole.counts_neg.tolist()
        assert (first.counts_pos + second.counts_pos).tolist() == whole.counts_pos.tolist()
        weighted = [
            binned_auc(y[part], s[part], n_bins=64, transform=transform, loglog_alpha=alpha,
                       sample_weight=w[part])
            for part in (slice(None), slice(None, 20_000), slice(20_000, None))
        ]
        np.testing.assert_allclose(
            weighted[1].counts_pos + weighted[2].counts_pos, weighted[0].counts_pos, rtol=1e-12
        )


def test_estimated_alpha_follows_the_documented_rule(rng):
    for n in (50, 100_003):
        y = rng.integers(0, 2, n)
        s = expit(rng.normal(size=n) * 20)
        s[:5] = [0.0, 1.0, 0.5, -0.25, 2.0]
        result = binned_auc(y, s, n_bins=10, transform="loglog")
        assert result.loglog_alpha == pytest.approx(estimated_alpha(s), rel=1e-12)
        shifted = binned_auc(y, 3 * s - 1, n_bins=10, transform="loglog", score_range=(-1, 2))
        assert shifted.loglog_alpha == pytest.approx(estimated_alpha(3 * s - 1, -1, 2),
                                                     rel=1e-12)
    # Scores all within [1/4, 3/4]: the cap, alpha = 1 / (2 log 2).
    capped = binned_auc([0, 1, 0, 1], [0.3, 0.6, 0.5, 0.7], transform="loglog")
    assert capped.loglog_alpha == pytest.approx(1 / (2 * math.log(2)), rel=1e-14)
    # Only 0 and 1: nothing to estimate from, the same cap.
    ends = binned_auc([0, 1, 1], [0.0, 1.0, 1.0], transform="loglog")
    assert ends.loglog_alpha == pytest.approx(1 / (2 * math.log(2)), rel=1e-14)
    assert ends.counts_neg[0] == 1 and ends.counts_pos[-1] == 2
    # The smallest positive double bounds alpha from below.
    assert estimated_alpha([5e-324] * 10) == pytest.approx(0.0716, abs=5e-5)


def test_loglog_transform_values_and_continuity():
    alpha = 0.1
    r = np.concatenate([np.linspace(1e-12, 1 - 1e-12, 200_001), [0.5]])
    t = loglog_transform(r, alpha)
    assert t.tolist() == [naive_loglog(float(v), alpha) for v in r]
    assert loglog_transform([0.5], alpha)[0] == 0.5
    # Increasing on a fine grid ...
    grid = np.linspace(1e-9, 1 - 1e-9, 1_000_001)
    assert (np.diff(loglog_transform(grid, alpha)) > 0).all()
    # ... and continuous: steps shrink with the grid (Lipschitz on [1e-9, 1 - 1e-9],
    # derivative alpha / (r |log r|) <= 5e6 alpha there), including across 1/2.
    h = grid[1] - grid[0]
    steps = np.diff(loglog_transform(grid, alpha))
    assert steps.max() <= 5e6 * alpha * h * 1.01
    half = 0.5 + np.array([-1e-12, -1e-15, 0.0, 1e-15, 1e-12])
    values = loglog_transform(half, alpha)
    assert (np.diff(values) > 0).all()
    assert np.abs(values - 0.5).max() < 1e-11
    # Symmetric, and the ends.
    assert loglog_transform([1e-3], alpha)[0] == pytest.approx(
        1 - loglog_transform([1 - 1e-3], alpha)[0], abs=1e-12
    )
    assert loglog_transform([0.0, 1.0], alpha).tolist() == [-math.inf, math.inf]


def test_printed_formula_would_jump_at_one_half():
    # Why the correction: without log(log 2) the two branches meet going down.
    def printed(r, a):
        if r <= 0.5:
            return 0.5 - a * math.log(-math.log(r))
        return 0.5 + a * math.log(-math.log(1 - r))

    a = 0.1
    left, right = printed(0.5, a), printed(np.nextafter(0.5, 1), a)
    assert left - right == pytest.approx(-2 * a * LOG_LOG_2, rel=1e-9)
    corrected = loglog_transform([0.5, np.nextafter(0.5, 1)], a)
    assert 0 <= corrected[1] - corrected[0] < 1e-15


def test_paper_observation_loglog_bins_several_times_tighter():
    # The embedded naive Bayes stream as probabilities: crowded near 0 and 1.
    y, log_odds = load_default_stream()
    p = expit(log_odds)
    assert np.mean((p < 1e-6) | (p > 1 - 1e-6)) > 0.6
    linear = binned_auc(y, p, n_bins=100)
    loglog = binned_auc(y, p, n_bins=100, transform="loglog")
    exact = auc(y, p)
    assert linear.max_error > 4 * loglog.max_error
    assert abs(exact - loglog.auc) * 4 < abs(exact - linear.auc)
    assert abs(exact - loglog.auc) <= loglog.max_error


def test_result_object():
    result = binned_auc([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], n_bins=5)
    assert result.n_bins == 5
    assert result.transform is None and result.loglog_alpha is None
    np.testing.assert_array_equal(result.edges, [0.0, 0.2, 0.4, 0.6, 0.8, 1.0])
    assert result.counts_neg.dtype == np.int64
    with pytest.raises(ValueError, match="read-only"):
        result.counts_neg[0] = 3
    with pytest.raises(AttributeError):
        result.auc = 0.5
    weighted = binned_auc([0, 1], [0.1, 0.9], sample_weight=[0.5, 2])
    assert weighted.counts_pos.dtype == np.float64 and weighted.counts_pos.sum() == 2.0
    shifted = binned_auc([0, 1], [10, 30], n_bins=4, score_range=(10, 30))
    np.testing.assert_array_equal(shifted.edges, [10, 15, 20, 25, 30])
    assert shifted.counts_neg.tolist() == [1, 0, 0, 0]
    assert shifted.counts_pos.tolist() == [0, 0, 0, 1]


def test_one_bin_and_perfect_separation():
    one = binned_auc([0, 1, 1], [0.2, 0.4, 0.9], n_bins=1)
    assert (one.auc, one.max_error) == (0.5, 0.5)
    separated = binned_auc([0, 0, 1, 1], [0.01, 0.2, 0.7, 0.99], n_bins=2)
    assert (separated.auc, separated.max_error) == (1.0, 0.0)


BAD_INPUTS = [
    ({"n_bins": 0}, "n_bins must be an integer >= 1, got 0"),
    ({"n_bins": 2.5}, "n_bins must be an integer >= 1, got 2.5"),
    ({"n_bins": True}, "n_bins must be an integer >= 1, got True"),
    ({"transform": "log"}, "transform must be one of None, 'loglog'; got 'log'"),
    ({"transform": "linear"}, "transform must be one of None, 'loglog'; got 'linear'"),
    ({"loglog_alpha": 0.1}, "loglog_alpha is only used with transform='loglog'"),
    ({"transform": "loglog", "loglog_alpha": 0.0}, "loglog_alpha must be a finite number > 0, got 0.0"),
    ({"transform": "loglog", "loglog_alpha": float("nan")}, "loglog_alpha must be a finite number > 0, got nan"),
    ({"transform": "loglog", "loglog_alpha": "a"}, "loglog_alpha must be a positive number, got 'a'"),
    ({"score_range": (1.0, 0.0)}, "score_range must be finite with low < high, got (1.0, 0.0)"),
    ({"score_range": (0.0, float("inf"))}, "score_range must be finite with low < high"),
    ({"score_range": (-1e308, 1e308)}, "score_range must be finite with low < high"),
    ({"score_range": 1.0}, "score_range must be a pair of numbers (low, high), got 1.0"),
    ({"score_range": ("a", 1)}, "score_range must be a pair of numbers (low, high)"),
    ({"sample_weight": [1, -1, 1, 1]}, "sample_weight must be non-negative; found -1.0 at position 1"),
    ({"sample_weight": [1, 1]}, "sample_weight has 2 entries but there are 4 points"),
]


@pytest.mark.parametrize(("kwargs", "message"), BAD_INPUTS)
def test_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match="^" + _escape(message)):
        binned_auc([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8], **kwargs)


def _escape(text):
    import re

    return re.escape(text)


@pytest.mark.parametrize("transform", [None, "loglog"])
def test_bad_data(transform):
    kw = {"transform": transform}
    with pytest.raises(ValueError, match=r"y_score must contain only finite values; found nan at position 2"):
        binned_auc([0, 1, 0], [0.1, 0.9, np.nan], **kw)
    with pytest.raises(ValueError, match=r"y_score must contain only finite values; found inf at position 0"):
        binned_auc([0, 1, 0], [np.inf, 0.9, 0.2], **kw)
    with pytest.raises(ValueError, match=r"y_true must contain only labels 0 and 1 \(or booleans\); found 2 at position 1"):
        binned_auc([0, 2, 1], [0.1, 0.9, 0.2], **kw)
    with pytest.raises(ValueError, match=r"The binned AUC is undefined when only one class is present: y_true has no points of class 1"):
        binned_auc([0, 0], [0.1, 0.9], **kw)
    with pytest.raises(ValueError, match=r"y_true and y_score have different lengths: 3 and 2"):
        binned_auc([0, 1, 0], [0.1, 0.9], **kw)
    with pytest.raises(ValueError, match=r"y_true is empty"):
        binned_auc([], [], **kw)
    with pytest.raises(ValueError, match=r"class 0 \(with positive weight\)"):
        binned_auc([0, 1], [0.1, 0.9], sample_weight=[0, 1], **kw)


def test_loglog_transform_bad_input():
    with pytest.raises(ValueError, match=r"r must hold values in \[0, 1\]; found 1.5 at position 1"):
        loglog_transform([0.2, 1.5], 0.1)
    with pytest.raises(ValueError, match=r"r must hold values in \[0, 1\]; found nan at position 0"):
        loglog_transform([np.nan], 0.1)
    with pytest.raises(ValueError, match=r"alpha must be a finite number > 0, got -1.0"):
        loglog_transform([0.2], -1)
    with pytest.raises(ValueError, match=r"r must be 1-d"):
        loglog_transform([[0.2]], 0.1)
