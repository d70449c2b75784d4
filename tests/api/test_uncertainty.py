"""DeLong's variance, the AUC's confidence intervals and DeLong's paired test.

Checked against R pROC (values generated once by tools/make_proc_delong_reference.py,
stored in tests/data/proc_delong.json), against the O(n^2) definitions in exact
fractions, against exact midrank arithmetic on large inputs, and the bootstrap
against its exactly enumerated distribution.
"""

import itertools
import json
import math
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from reference_impl import delong_paired_exact, placements_exact, psi
from scipy import stats
from sklearn.metrics import roc_auc_score
from strategies import labelled_scores

import hmeasure_stream as hs
from hmeasure_stream import auc_ci, auc_test, auc_variance, uncertainty
from hmeasure_stream.uncertainty import AUCInterval, AUCTestResult

DATA = json.loads((Path(__file__).parents[1] / "data" / "proc_delong.json").read_text())
DATASETS = DATA["datasets"]
REL = 1e-12


def close(actual, expected, rel=REL):
    """Relative agreement; zero must be matched exactly."""
    return math.isclose(actual, expected, rel_tol=rel, abs_tol=0.0)


# ---------------------------------------------------------------------------
# Independent O(n^2) definitions in exact fractions


def brute_variance(y, s, w=None):
    """DeLong's variance by its definition (frequency weights), exact."""
    v10, v01, area = placements_exact(y, s, w)
    total_cases = sum(wi for _, wi in v10)
    total_controls = sum(wj for _, wj in v01)
    s10 = sum(wi * (v - area) ** 2 for v, wi in v10) / (total_cases - 1)
    s01 = sum(wj * (v - area) ** 2 for v, wj in v01) / (total_controls - 1)
    return s10 / total_cases + s01 / total_controls


def two_classes(weighted=False):
    return labelled_scores(min_each=2, weighted=weighted, max_size=30)


# ---------------------------------------------------------------------------
# Against R pROC


def test_reference_file_names_its_versions():
    assert DATA["r_version"].startswith("4.")
    assert DATA["proc_version"].startswith("1.18")
    assert len(DATASETS) >= 6
    assert len(DATASETS["default_stream"]["y"]) == 1797


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("which", ["1", "2"])
def test_variance_equals_proc(name, which):
    entry = DATASETS[name]
    y, s = entry["y"], entry["s" + which]
    assert close(auc_variance(y, s), entry["var" + which])
    assert close(auc_variance(np.array(y, bool), np.array(s)), entry["var" + which])


@pytest.mark.parametrize("name", sorted(DATASETS))
@pytest.mark.parametrize("which", ["1", "2"])
@pytest.mark.parametrize("level", DATA["levels"])
def test_delong_interval_equals_proc(name, which, level):
    entry = DATASETS[name]
    low, middle, high = entry["ci" + which][str(level)]
    result = auc_ci(entry["y"], entry["s" + which], level=level)
    assert isinstance(result, AUCInterval)
    assert close(result.low, low)
    assert close(result.high, high)
    # pROC's AUC (trapezoids) and the middle of its interval (the mean of the
    # placements) may differ from the exact fraction by an ulp.
    assert close(result.estimate, middle, rel=1e-15)
    assert close(result.estimate, entry["auc" + which], rel=1e-15)


@pytest.mark.parametrize("name", sorted(DATASETS))
def test_paired_test_equals_proc(name):
    entry = DATASETS[name]
    expected = entry["test"]
    result = auc_test(entry["y"], entry["s1"], entry["s2"])
    assert isinstance(result, AUCTestResult)
    assert close(result.difference, expected["auc1"] - expected["auc2"], rel=1e-14)
    if math.isinf(expected["statistic"]):
        assert result.statistic == expected["statistic"]
        assert result.std_error == 0.0
    else:
        assert close(result.statistic, expected["statistic"])
    assert close(result.pvalue, expected["pvalue"])


def test_degenerate_reference_cases_are_what_they_claim():
    # The reference covers a zero variance, a zero-error test with equal and
    # with different AUCs: check the data is what exercises those branches.
    separated = DATASETS["separated_vs_constant"]
    assert separated["var1"] == 0.0 and separated["var2"] == 0.0
    assert separated["ci1"]["0.95"] == [1.0, 1.0, 1.0]
    assert math.isinf(separated["test"]["statistic"]) and separated["test"]["pvalue"] == 0.0
    identical = DATASETS["identical"]["test"]
    assert identical["statistic"] == 0.0 and identical["pvalue"] == 1.0


@pytest.mark.parametrize(
    "name", sorted(name for name, entry in DATASETS.items() if "boot1" in entry)
)
def test_bootstrap_interval_within_monte_carlo_error_of_proc(name):
    entry = DATASETS[name]
    n_boot = DATA["boot_n"]
    level = entry["boot1"]["level"]
    proc_low, _, proc_high = entry["boot1"]["ci"]
    result = auc_ci(
        entry["y"], entry["s1"], level=level, method="bootstrap", n_boot=n_boot, random_state=5
    )
    assert close(result.estimate, entry["auc1"], rel=1e-15)
    # Standard error of a sample quantile, sqrt(p (1 - p) / B) / density, with
    # the density of the AUC's normal approximation (DeLong's sd); two
    # independent Monte Carlo estimates differ by sqrt(2) times that.
    sd = math.sqrt(entry["var1"])
    tail = (1 - level) / 2
    density = stats.norm.pdf(stats.norm.ppf(tail)) / sd
    standard_error = math.sqrt(2 * tail * (1 - tail) / n_boot) / density
    assert abs(result.low - proc_low) < 5 * standard_error
    assert abs(result.high - proc_high) < 5 * standard_error
    # Not vacuous: the tolerance is a small fraction of the interval's width.
    assert 5 * standard_error < 0.2 * (proc_high - proc_low)


def test_single_point_class_proc_gives_na_and_we_refuse():
    single = DATA["single_case"]
    # pROC's var() and ci.auc() return NA (stored as null) for a class of one point.
    assert single["var"] is None
    assert single["ci"] == [None, None, None]
    message = "DeLong's variance needs at least two points of each class: y_true has 1 point of class 1"
    with pytest.raises(ValueError, match=f"^{message}$"):
        auc_variance(single["y"], single["s"])
    with pytest.raises(ValueError, match="at least two points of each class"):
        auc_ci(single["y"], single["s"])
    with pytest.raises(ValueError, match="at least two points of each class"):
        auc_test(single["y"], single["s"], single["s"])
    # The bootstrap is defined: each resample repeats the single point.
    result = auc_ci(single["y"], single["s"], method="bootstrap", n_boot=200, random_state=0)
    assert result.estimate == 0.75
    assert 0 <= result.low <= result.high <= 1


# ---------------------------------------------------------------------------
# Against the definitions


@given(two_classes())
def test_variance_equals_exact_definition(data):
    y, s = data
    assert close(auc_variance(y, s), float(brute_variance(list(y), list(s))))


@given(two_classes(weighted=True))
def test_weighted_variance_equals_exact_definition(data):
    y, s, w = data
    weights = [Fraction(float(v)) for v in w]
    assume(sum(wi for wi, yi in zip(weights, y, strict=True) if yi == 1) > 1)
    assume(sum(wi for wi, yi in zip(weights, y, strict=True) if yi == 0) > 1)
    expected = float(brute_variance(list(y), list(s), list(w)))
    assert auc_variance(y, s, sample_weight=w) == pytest.approx(expected, rel=1e-11, abs=0)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(two_classes(), st.data())
def test_integer_weights_equal_repeated_points(data, draw):
    y, s = data
    counts = np.array(draw.draw(st.lists(st.integers(0, 4), min_size=len(y), max_size=len(y))))
    repeated_y, repeated_s = np.repeat(y, counts), np.repeat(s, counts)
    assume(min(np.count_nonzero(repeated_y == 0), np.count_nonzero(repeated_y == 1)) >= 2)
    expected = auc_variance(repeated_y, repeated_s)
    assert auc_variance(y, s, sample_weight=counts) == pytest.approx(expected, rel=1e-12, abs=0)
    weighted_ci = auc_ci(y, s, sample_weight=counts)
    repeated_ci = auc_ci(repeated_y, repeated_s)
    assert weighted_ci == pytest.approx(repeated_ci, rel=1e-12, abs=1e-15)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(two_classes(), st.floats(0.5, 0.999))
def test_delong_interval_is_normal_interval_around_auc(data, level):
    y, s = data
    exact = brute_variance(list(y), list(s))
    area = roc_auc_score(y, s)
    z = stats.norm.ppf((1 + level) / 2)
    result = auc_ci(y, s, level=level)
    assert result.estimate == pytest.approx(area, rel=1e-15)
    assert result.low == pytest.approx(max(0.0, area - z * math.sqrt(exact)), rel=1e-12, abs=1e-15)
    assert result.high == pytest.approx(min(1.0, area + z * math.sqrt(exact)), rel=1e-12, abs=1e-15)


@given(two_classes(), st.data())
def test_paired_test_equals_exact_definition(data, draw):
    y, s1 = data
    s2 = np.array(draw.draw(st.lists(st.integers(-3, 3), min_size=len(y), max_size=len(y))))
    difference, variance = delong_paired_exact(list(y), list(s1), list(s2))
    result = auc_test(y, s1, s2)
    assert result.difference == float(difference)
    assert close(result.std_error, math.sqrt(variance))
    if variance > 0:
        z = float(difference) / math.sqrt(variance)
        assert close(result.statistic, z)
        assert close(result.pvalue, 2 * stats.norm.sf(abs(z)))
    elif difference == 0:
        assert (result.statistic, result.pvalue) == (0.0, 1.0)
    else:
        assert result.statistic == math.copysign(math.inf, difference)
        assert result.pvalue == 0.0


@given(two_classes(weighted=True), st.data())
def test_weighted_paired_test_equals_exact_definition(data, draw):
    y, s1, w = data
    s2 = np.array(draw.draw(st.lists(st.integers(-3, 3), min_size=len(y), max_size=len(y))))
    reference = delong_paired_exact(list(y), list(s1), list(s2), list(w))
    if reference is None:  # a class of total weight <= 1
        with pytest.raises(ValueError, match=r"total weight > 1 in each|only one class is"):
            auc_test(y, s1, s2, sample_weight=w)
        return
    difference, variance = reference
    result = auc_test(y, s1, s2, sample_weight=w)
    assert result.difference == pytest.approx(float(difference), rel=1e-12, abs=1e-15)
    assert result.std_error == pytest.approx(math.sqrt(variance), rel=1e-9, abs=1e-15)
    if variance > 1e-20:
        z = float(difference) / math.sqrt(variance)
        assert result.statistic == pytest.approx(z, rel=1e-9, abs=1e-12)
        assert result.pvalue == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-9, abs=1e-12)


def test_paired_test_with_unit_weights_is_the_unweighted_test(rng):
    y, s1, s2 = rng.integers(0, 2, 300), rng.integers(0, 9, 300), rng.normal(size=300)
    assert auc_test(y, s1, s2, sample_weight=np.ones(300)) == auc_test(y, s1, s2)
    doubled = auc_test(np.repeat(y, 2), np.repeat(s1, 2), np.repeat(s2, 2))
    weighted = auc_test(y, s1, s2, sample_weight=np.full(300, 2.0))
    for field in ("difference", "std_error", "statistic", "pvalue"):
        assert getattr(weighted, field) == pytest.approx(getattr(doubled, field), rel=1e-12)


def test_the_unpaired_test_refuses_weights():
    with pytest.raises(ValueError, match="sample_weight applies to the paired test"):
        auc_test([0, 1, 0, 1], [1, 2, 3, 4], [1, 2, 3, 4], y_true2=[0, 1, 0, 1],
                 sample_weight=[1, 1, 1, 1])


def test_paired_test_is_antisymmetric_and_pairs_points(rng):
    n = 400
    y = rng.integers(0, 2, n)
    s1 = rng.normal(size=n) + y
    s2 = s1 + rng.normal(size=n) * 0.5
    forward, backward = auc_test(y, s1, s2), auc_test(y, s2, s1)
    assert backward.statistic == -forward.statistic
    assert backward.pvalue == forward.pvalue
    # Pairing matters: shuffling the second classifier's points within a class
    # leaves its AUC but breaks the correlation, so the error grows.
    shuffled = s2.copy()
    for label in (0, 1):
        where = np.flatnonzero(y == label)
        shuffled[where] = s2[rng.permutation(where)]
    unpaired = auc_test(y, s1, shuffled)
    assert unpaired.difference == pytest.approx(forward.difference, rel=1e-12)
    assert unpaired.std_error > 2 * forward.std_error


def midrank_variance_exact(y, s):
    """DeLong's variance from midranks (Sun and Xu's formula), in exact rationals.

    Twice the placement numerators from scipy's midranks: 2 (midrank among all -
    midrank within the class); the sums of squares in Python integers, so the
    result is exact (no cancellation can occur).
    """
    y = np.asarray(y)
    s = np.asarray(s)
    cases, controls = s[y == 1], s[y == 0]
    m, n = cases.shape[0], controls.shape[0]
    all_ranks = stats.rankdata(s)
    # 2 * (midrank among all - midrank within the class) = 2 #{other class below} + #equal
    a = [int(v) for v in 2 * (all_ranks[y == 1] - stats.rankdata(cases))]
    b = [2 * m - int(v) for v in 2 * (all_ranks[y == 0] - stats.rankdata(controls))]
    twice_u = sum(a)
    assert twice_u == sum(b)
    # Sums of squared deviations of the numerators, sum a^2 - (sum a)^2 / m.
    ss_cases = Fraction(m * sum(v * v for v in a) - twice_u * twice_u, m)
    ss_controls = Fraction(n * sum(v * v for v in b) - twice_u * twice_u, n)
    # Placements are a / 2n and b / 2m.
    return ss_cases / (m * (m - 1) * (2 * n) ** 2) + ss_controls / (n * (n - 1) * (2 * m) ** 2)


@pytest.mark.slow
@pytest.mark.parametrize("case", ["near_separated", "ties", "imbalanced"])
def test_variance_on_large_inputs_equals_exact_midrank_arithmetic(rng, case):
    n = 200_000
    if case == "near_separated":
        # AUC within 1e-8 of 1: the variance is tiny next to AUC^2, where
        # E[X^2] - E[X]^2 in floating point would lose every digit.
        y = rng.integers(0, 2, n)
        s = y * 10.0 + rng.random(n)
        s[np.flatnonzero(y == 1)[:3]] = 0.5
    elif case == "ties":
        y = rng.integers(0, 2, n)
        s = rng.integers(0, 7, n) + y
    else:
        y = (rng.random(n) < 0.002).astype(int)
        s = rng.normal(size=n) + 2 * y
    expected = float(midrank_variance_exact(y, s))
    assert close(auc_variance(y, s), expected)
    # The float (weighted) path with unit weights agrees to rounding.
    assert auc_variance(y, s, sample_weight=np.ones(n)) == pytest.approx(expected, rel=1e-9)


def test_weights_zero_remove_points_and_scale_changes_the_sample_size(rng):
    n = 300
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)
    w = np.where(rng.random(n) < 0.3, 0.0, 1.0)
    keep = w > 0
    assert auc_variance(y, s, sample_weight=w) == pytest.approx(
        auc_variance(y[keep], s[keep]), rel=1e-12
    )
    # Doubling every weight doubles the sample: the variance is about halved.
    doubled = auc_variance(y, s, sample_weight=np.full(n, 2.0))
    assert doubled == pytest.approx(auc_variance(np.tile(y, 2), np.tile(s, 2)), rel=1e-12)


def test_input_kinds_agree(rng):
    n = 50
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 10, n)
    expected = auc_variance(y, s)
    assert auc_variance(list(y), list(s)) == expected
    assert auc_variance(y.astype(bool), s.astype(np.int8)) == expected
    assert auc_variance(pd.Series(y), pd.Series(s.astype(float))) == expected
    assert auc_test(pd.Series(y), s, list(s)) == (0.0, 1.0, 0.0, 0.0, np.inf)


# ---------------------------------------------------------------------------
# The bootstrap


def exact_bootstrap_distribution(cases, controls):
    """AUC of every equally likely stratified resample, as a Counter of Fractions.

    Every tuple of draws with replacement is enumerated; tuples drawing the same
    multiset of scores have the same AUC, so they are tallied per multiset first.
    """
    case_sets = Counter(tuple(sorted(xs)) for xs in itertools.product(cases, repeat=len(cases)))
    control_sets = Counter(
        tuple(sorted(ts)) for ts in itertools.product(controls, repeat=len(controls))
    )
    distribution = Counter()
    for xs, case_ways in case_sets.items():
        for ts, control_ways in control_sets.items():
            total = sum(psi(x, t) for x in xs for t in ts)
            distribution[total / (len(xs) * len(ts))] += case_ways * control_ways
    return distribution


@pytest.mark.parametrize(
    ("cases", "controls"),
    [
        # Few ties: the drawn indices are counted.
        ([0.2, 0.5, 0.5, 0.9, 1.5], [0.1, 0.5, 0.7, 0.9]),
        # Many ties: per-class multinomial counts over the distinct scores.
        ([1, 1, 1, 2, 2, 3], [0, 0, 1, 1, 1, 2]),
    ],
)
@pytest.mark.parametrize("batch_resamples", [None, 7])
def test_bootstrap_resamples_follow_the_exact_bootstrap_distribution(
    monkeypatch, cases, controls, batch_resamples
):
    if batch_resamples is not None:
        size = max(len(set(cases) | set(controls)), len(cases), len(controls))
        monkeypatch.setattr(uncertainty, "_BOOT_BATCH_ELEMENTS", batch_resamples * size)
    # The resampled AUCs of a public auc_ci call, recorded on their way to the quantiles.
    recorded = []
    resample = uncertainty._bootstrap_aucs

    def recording(*args):
        recorded.append(resample(*args))
        return recorded[-1]

    monkeypatch.setattr(uncertainty, "_bootstrap_aucs", recording)
    distribution = exact_bootstrap_distribution(cases, controls)
    total = sum(distribution.values())
    values = sorted(distribution)
    n_boot = 200_000 if batch_resamples is None else 30_000
    y = [1] * len(cases) + [0] * len(controls)
    auc_ci(y, cases + controls, method="bootstrap", n_boot=n_boot, random_state=11)
    (aucs,) = recorded
    assert aucs.shape == (n_boot,)
    # Every AUC is 2U / 2mn for an integer 2U.
    scale = 2 * len(cases) * len(controls)
    twice_u, counts = np.unique(np.rint(aucs * scale).astype(int), return_counts=True)
    np.testing.assert_array_equal(twice_u / scale, aucs[np.unique(aucs, return_index=True)[1]])
    observed = {Fraction(int(u), scale): int(c) for u, c in zip(twice_u, counts, strict=True)}
    assert set(observed) <= set(values)
    expected_counts = np.array([distribution[v] * n_boot / total for v in values])
    observed_counts = np.array([observed.get(v, 0) for v in values])
    # Pool the rare values so that every expected count is large enough.
    rare = expected_counts < 20
    if rare.any():
        expected_counts = np.append(expected_counts[~rare], expected_counts[rare].sum())
        observed_counts = np.append(observed_counts[~rare], observed_counts[rare].sum())
    assert expected_counts.shape[0] >= 10  # a real distribution, not a few atoms
    statistic, pvalue = stats.chisquare(observed_counts, expected_counts)
    assert pvalue > 1e-4, (statistic, pvalue)
    mean = sum(v * c for v, c in distribution.items()) / total
    sd = math.sqrt(float(sum((v - mean) ** 2 * c for v, c in distribution.items()) / total))
    assert abs(aucs.mean() - float(mean)) < 5 * sd / math.sqrt(n_boot)


def test_bootstrap_interval_is_percentile_of_the_resamples(monkeypatch):
    # The resampling replaced by a known sample of AUCs: the interval must be
    # its (1 - level) / 2 and (1 + level) / 2 quantiles, R's type 7 (linear).
    known = np.array([0.9, 0.2, 0.6, 0.5, 0.3])
    calls = []

    def fixed(neg, pos, n_boot, rng):
        calls.append((sorted(neg), sorted(pos), n_boot, rng))
        return known.copy()

    monkeypatch.setattr(uncertainty, "_bootstrap_aucs", fixed)
    y = np.array([0, 0, 1, 0, 1, 1, 0, 1, 1, 0])
    s = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.2, 0.9])
    generator = np.random.default_rng(3)
    result = auc_ci(y, s, level=0.8, method="bootstrap", n_boot=5, random_state=generator)
    # Sorted: 0.2, 0.3, 0.5, 0.6, 0.9.  Type 7 at p: h = (5 - 1) p, so p = 0.1
    # gives 0.2 + 0.4 (0.3 - 0.2) and p = 0.9 gives 0.6 + 0.6 (0.9 - 0.6).
    assert result.low == pytest.approx(0.24, abs=1e-15)
    assert result.high == pytest.approx(0.78, abs=1e-15)
    assert result.estimate == roc_auc_score(y, s)
    ((neg, pos, n_boot, rng),) = calls
    assert (neg, pos) == (sorted(s[y == 0]), sorted(s[y == 1]))
    assert n_boot == 5 and rng is generator


def test_bootstrap_is_reproducible_and_seeded():
    y = [0, 1] * 30
    s = list(range(60))
    first = auc_ci(y, s, method="bootstrap", n_boot=500, random_state=1)
    assert first == auc_ci(y, s, method="bootstrap", n_boot=500, random_state=1)
    generator = np.random.default_rng(1)
    assert first == auc_ci(y, s, method="bootstrap", n_boot=500, random_state=generator)
    assert first != auc_ci(y, s, method="bootstrap", n_boot=500, random_state=2)


def test_results_are_frozen():
    result = auc_ci([0, 0, 1, 1], [1, 2, 3, 2])
    with pytest.raises(AttributeError):
        result.low = 0.0
    with pytest.raises(AttributeError):
        result.estimate = 0.0
    low, high = result
    assert (low, high) == (result.low, result.high)
    test = auc_test([0, 0, 1, 1], [1, 2, 3, 2], [1, 3, 2, 2])
    statistic, pvalue, difference, std_error, df = test
    assert (statistic, pvalue) == (test.statistic, test.pvalue)
    assert (difference, std_error, df) == (test.difference, test.std_error, test.df)


# ---------------------------------------------------------------------------
# Bad input


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"level": 0}, "level must be in (0, 1), got 0.0"),
        ({"level": 1.5}, "level must be in (0, 1), got 1.5"),
        ({"level": "0.9"}, "level must be a number in (0, 1), got '0.9'"),
        ({"level": True}, "level must be a number in (0, 1), got True"),
        ({"method": "wald"}, "method must be one of 'delong', 'bootstrap'; got 'wald'"),
        ({"method": "bootstrap", "n_boot": 0}, "n_boot must be an integer >= 1, got 0"),
        ({"method": "bootstrap", "n_boot": 10.0}, "n_boot must be an integer >= 1, got 10.0"),
        ({"method": "bootstrap", "n_boot": True}, "n_boot must be an integer >= 1, got True"),
        ({"n_boot": -5}, "n_boot must be an integer >= 1, got -5"),
        (
            {"method": "bootstrap", "random_state": "seed"},
            "random_state must be None, a non-negative int, a numpy SeedSequence or a numpy "
            "Generator, got 'seed'",
        ),
        (
            {"random_state": -1},
            "random_state must be None, a non-negative int, a numpy SeedSequence or a numpy "
            "Generator, got -1",
        ),
        (
            {"method": "bootstrap", "sample_weight": [1, 1, 1, 1]},
            'sample_weight is not supported with method="bootstrap"; use method="delong"',
        ),
    ],
)
def test_auc_ci_refuses_bad_options(kwargs, message):
    with pytest.raises(ValueError) as excinfo:
        auc_ci([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], **kwargs)
    assert str(excinfo.value) == message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda: auc_variance([0, 0, 0], [1, 2, 3]),
            "DeLong's variance is undefined when only one class is present: y_true has no "
            "points of class 1 (with positive weight), only of class 0",
        ),
        (
            lambda: auc_variance([0, 1, 1], [1, 2, 3]),
            "DeLong's variance needs at least two points of each class: y_true has 1 point "
            "of class 0",
        ),
        (
            lambda: auc_variance([0, 2, 1], [1, 2, 3]),
            "y_true must contain only labels 0 and 1 (or booleans); found 2 at position 1",
        ),
        (
            lambda: auc_variance([0, 1, 1], [1, np.nan, 3]),
            "y_score must contain only finite values; found nan at position 1",
        ),
        (
            lambda: auc_variance([0, 1, 1], [1, 2]),
            "y_true and y_score have different lengths: 3 and 2",
        ),
        (
            lambda: auc_variance([], []),
            "y_true is empty: at least one point is needed",
        ),
        (
            lambda: auc_variance([0, 0, 1, 1], [1, 2, 3, 4], sample_weight=[1, 1, 0.5, 0.5]),
            "DeLong's variance needs a total weight > 1 in each class (weights count points): "
            "class 1 has total weight 1.0",
        ),
        (
            lambda: auc_variance([0, 0, 1, 1], [1, 2, 3, 4], sample_weight=[1, -1, 1, 1]),
            "sample_weight must be non-negative; found -1.0 at position 1",
        ),
        (
            lambda: auc_variance([0, 0, 1, 1], [1, 2, 3, 4], sample_weight=[1, 1, 1]),
            "sample_weight has 3 entries but there are 4 points",
        ),
        (
            lambda: auc_ci([0, 0, 1, 1], [1, 2, 3, 4], sample_weight=[0, 0, 1, 1]),
            "DeLong's confidence interval is undefined when only one class is present: y_true "
            "has no points of class 0 (with positive weight), only of class 1",
        ),
        (
            lambda: auc_ci([1, 1, 1], [1, 2, 3], method="bootstrap"),
            "The bootstrap confidence interval is undefined when only one class is present: "
            "y_true has no points of class 0 (with positive weight), only of class 1",
        ),
        (
            lambda: auc_test([0, 0, 1, 1], [1, 2, 3, 4], [1, 2, 3]),
            "y_true and y_score2 have different lengths: 4 and 3",
        ),
        (
            lambda: auc_test([0, 0, 1, 1], [1, 2, np.inf, 4], [1, 2, 3, 4]),
            "y_score1 must contain only finite values; found inf at position 2",
        ),
        (
            lambda: auc_test([0, 0, 1, 1], [1, 2, 3, 4], ["a", "b", "c", "d"]),
            "y_score2 must be numeric, got an array of dtype <U1",
        ),
        (
            lambda: auc_test([0, 0, 0, 1], [1, 2, 3, 4], [1, 2, 3, 4]),
            "DeLong's test needs at least two points of each class: y_true has 1 point of "
            "class 1",
        ),
    ],
)
def test_bad_input_is_refused_with_its_reason(call, message):
    with pytest.raises(ValueError) as excinfo:
        call()
    assert str(excinfo.value) == message


def test_paired_test_refuses_too_many_points_naming_them(monkeypatch):
    # 2**31 points are too many to build here: the limit is lowered instead.
    monkeypatch.setattr(uncertainty, "EXACT_COUNT_LIMIT", 6)
    assert auc_test([0, 0, 1, 1, 1], [1, 2, 3, 4, 5], [5, 4, 3, 2, 1]).difference == 1.0
    with pytest.raises(ValueError) as excinfo:
        auc_test([0, 0, 0, 1, 1, 1], [1, 2, 3, 4, 5, 6], [6, 5, 4, 3, 2, 1])
    assert str(excinfo.value) == (
        "y_true has 6 points; auc_test supports fewer than 2**31 (exact int64 placements)"
    )


# The unpaired test: each message names the argument the caller passed.
Y1, S1 = [0, 0, 1, 1], [1, 2, 3, 4]
Y2, S2 = [0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5]


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: auc_test(Y1, [1, 2, np.inf, 4], S2, y_true2=Y2),
         "y_score1 must contain only finite values; found inf at position 2"),
        (lambda: auc_test(Y1, S1, [0.1, 0.2, np.nan, 0.4, 0.5], y_true2=Y2),
         "y_score2 must contain only finite values; found nan at position 2"),
        (lambda: auc_test(Y1, S1, ["a", "b", "c", "d", "e"], y_true2=Y2),
         "y_score2 must be numeric, got an array of dtype <U1"),
        (lambda: auc_test(Y1, [1, 2, 3], S2, y_true2=Y2),
         "y_true and y_score1 have different lengths: 4 and 3"),
        (lambda: auc_test(Y1, S1, S2[:4], y_true2=Y2),
         "y_true2 and y_score2 have different lengths: 5 and 4"),
        (lambda: auc_test(Y1, S1, S2, y_true2=[0, 1, 2, 1, 1]),
         "y_true2 must contain only labels 0 and 1 (or booleans); found 2 at position 2"),
        (lambda: auc_test(Y1, S1, S2, y_true2=[1, 1, 1, 1, 1]),
         "DeLong's test is undefined when only one class is present: y_true2 has no points "
         "of class 0 (with positive weight), only of class 1"),
        (lambda: auc_test(Y1, S1, S2, y_true2=[0, 1, 1, 1, 1]),
         "DeLong's test needs at least two points of each class: y_true2 has 1 point of "
         "class 0"),
        (lambda: auc_test([0, 1, 1, 1], S1, S2, y_true2=Y2),
         "DeLong's test needs at least two points of each class: y_true has 1 point of "
         "class 0"),
        (lambda: auc_test(["n", "n", "p", "p"], S1, S2, y_true2=["n", "p", "n", "q", "p"],
                          pos_label="p"),
         "y_true2 must hold two labels, pos_label='p' (class 1) and one other (class 0, here "
         "'n'); found a third, 'q', at position 3"),
        (lambda: auc_test(["n", "n", "p", "p"], S1, S2, y_true2=["n", "n", "r", "r", "n"],
                          pos_label="p"),
         "pos_label='p' is not a label of y_true2, which holds 'n' and 'r'"),
        (lambda: auc_test(Y1, S1, S2, y_true2=["a", "b", "a", "b", "a"]),
         "y_true2 must contain labels 0/1 or booleans, got an array of dtype <U1"),
        (lambda: auc_test(Y1, S1, S2, y_true2=[Y2]),
         "y_true2 must be 1-d, got an array of shape (1, 5)"),
        (lambda: auc_test(Y1, S1, S2, y_true2=[]),
         "y_true2 is empty: at least one point is needed"),
    ],
)
def test_unpaired_test_names_the_arguments_in_its_messages(call, message):
    with pytest.raises(ValueError, match=re.escape(message)) as excinfo:
        call()
    # No argument of that name: the unpaired test has y_score1 and y_score2.
    assert re.search(r"\by_score\b", str(excinfo.value)) is None


def test_bootstrap_ci_reads_an_n_by_1_score_column_as_its_scores():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60)
    s = rng.normal(size=60) + y
    flat = hs.bootstrap_ci(y, s, hs.auc, n_boot=50, random_state=1)
    assert hs.bootstrap_ci(y, s[:, None], hs.auc, n_boot=50, random_state=1) == flat
    with pytest.raises(ValueError, match=r"y_score\[:, 1\]"):
        hs.bootstrap_ci(y, np.column_stack([-s, s]), hs.auc, n_boot=50)


# ---------------------------------------------------------------------------
# Every interval unpacks as scipy's ConfidenceInterval: (low, high)


def delayed_interval(y, s):
    """DelayedAUC's interval of labelled predictions (every one labelled)."""
    monitor = hs.DelayedAUC()
    monitor.predict_many(range(len(y)), s, np.full(len(y), 0.5))
    monitor.label_many(range(len(y)), y)
    return monitor.auc_ci


def dynamic_interval(y, s):
    tracker = hs.DynamicAUC()
    tracker.add_many(y, s)
    return tracker.auc_ci()


def dask_interval(y, s):
    hsd = pytest.importorskip("hmeasure_stream.dask")
    da = pytest.importorskip("dask.array")
    return hsd.auc_ci(da.from_array(np.asarray(y), chunks=50), da.from_array(np.asarray(s), chunks=50))


DELONG_INTERVALS = {
    "auc_ci": lambda y, s: auc_ci(y, s),
    "DynamicAUC.auc_ci": dynamic_interval,
    "DelayedAUC.auc_ci": delayed_interval,
    "dask.auc_ci": dask_interval,
}
BOOTSTRAP_INTERVALS = {
    "auc_ci bootstrap": lambda y, s: auc_ci(y, s, method="bootstrap", n_boot=200, random_state=0),
    "bootstrap_ci": lambda y, s: hs.bootstrap_ci(y, s, hs.auc, n_boot=200, random_state=0),
}


@pytest.mark.parametrize("producer", sorted(DELONG_INTERVALS))
def test_delong_intervals_unpack_as_low_high_with_proc_values(producer):
    entry = DATASETS["default_stream"]
    proc_low, proc_auc, proc_high = entry["ci1"]["0.95"]
    interval = DELONG_INTERVALS[producer](entry["y"], entry["s1"])
    low, high = interval
    assert close(low, proc_low, rel=1e-10) and close(high, proc_high, rel=1e-10)
    assert (interval.low, interval.high) == (low, high)
    assert close(interval.estimate, proc_auc, rel=1e-12)
    # pROC's order (low, auc, high) cannot silently swap the AUC and the bound.
    with pytest.raises(ValueError, match="not enough values to unpack"):
        lo, auc, hi = interval  # noqa: RUF059 (a pROC user's line)
    assert len(interval) == 2


@pytest.mark.parametrize("producer", sorted(BOOTSTRAP_INTERVALS))
def test_bootstrap_intervals_unpack_as_low_high(producer):
    entry = DATASETS["default_stream"]
    interval = BOOTSTRAP_INTERVALS[producer](entry["y"], entry["s1"])
    low, high = interval
    assert low < entry["auc1"] < high
    assert interval.estimate == pytest.approx(roc_auc_score(entry["y"], entry["s1"]), rel=1e-12)
    with pytest.raises(ValueError, match="not enough values to unpack"):
        lo, auc, hi = interval  # noqa: RUF059 (a pROC user's line)


def test_interval_keeps_its_estimate_through_pickle_repr_and_comparison():
    import pickle

    interval = uncertainty.ConfidenceInterval(0.25, 0.75, 0.5)
    assert repr(interval) == "ConfidenceInterval(low=0.25, high=0.75, estimate=0.5)"
    copy = pickle.loads(pickle.dumps(interval))
    assert (copy.low, copy.high, copy.estimate) == (0.25, 0.75, 0.5)
    assert type(copy) is uncertainty.ConfidenceInterval
    assert copy == interval and interval == (0.25, 0.75)
    assert interval != uncertainty.ConfidenceInterval(0.25, 0.75, 0.6)
    assert interval._asdict() == {"low": 0.25, "high": 0.75, "estimate": 0.5}
    with pytest.raises(AttributeError):
        interval.estimate = 0.0
    assert interval.estimate == 0.5
