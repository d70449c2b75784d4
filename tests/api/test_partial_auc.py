"""partial_auc, weighted_auc and weighted_auc_error_bound against independent computations.

References: R pROC 1.18 (values generated once by tools/make_proc_partial_reference.py),
scikit-learn's roc_auc_score(max_fpr=), exact rational arithmetic (the partial area
integrated over the true positive rate, the weighted AUC by its O(n^2) definition),
and numerical quadrature.
"""

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from reference_impl import roc_points_exact
from sklearn.metrics import roc_auc_score
from strategies import labelled_scores

from hmeasure_stream import auc, partial_auc, weighted_auc, weighted_auc_error_bound

PROC = json.loads((Path(__file__).parents[1] / "data" / "proc_partial_auc.json").read_text())


# ---------------------------------------------------------------------------
# Independent references
# ---------------------------------------------------------------------------


def exact_roc_polyline(y, s, w=None):
    """ROC points as Fractions in curve order (the sorted distinct points), by counting."""
    return sorted(roc_points_exact(y, s, w))


def exact_box_area(points, fpr_range=(0, 1), tpr_range=(0, 1)):
    """Area of {(u, t): a <= u <= b, c <= t <= d, t <= roc(u)}, exactly, sliced along t.

    For each true positive rate t the slice is {u in [a, b] : u >= g(t)}, g(t) the
    smallest FPR at which the curve reaches t, linear on every rising segment: the
    integrand max(0, b - max(a, g(t))) is linear between the segment's ends and the
    levels where g crosses a or b, so the trapezoidal rule on those points is exact.
    (The code under test integrates along u instead.)
    """
    a, b = (Fraction(v) for v in fpr_range)
    c, d = (Fraction(v) for v in tpr_range)
    total = Fraction(0)
    for (u0, t0), (u1, t1) in itertools.pairwise(points):
        lo, hi = max(t0, c), min(t1, d)
        if not (t1 > t0 and hi > lo):
            continue

        def g(t, u0=u0, t0=t0, u1=u1, t1=t1):
            return u0 + (t - t0) * (u1 - u0) / (t1 - t0)

        def slice_width(t, g=g):
            return max(Fraction(0), b - max(a, g(t)))

        levels = {lo, hi}
        if u1 != u0:
            for u in (a, b):
                t = t0 + (u - u0) * (t1 - t0) / (u1 - u0)
                if lo < t < hi:
                    levels.add(t)
        levels = sorted(levels)
        for t_lo, t_hi in itertools.pairwise(levels):
            total += (t_hi - t_lo) * (slice_width(t_lo) + slice_width(t_hi)) / 2
    return total


def brute_weighted_auc(y, s, weight, w=None):
    """Maurer and Pontil's plug-in estimator by its double sum, in Fractions (O(n^2)).

    W is applied to the float nearest the exact v_j; everything else is exact.
    """
    w = [Fraction(1)] * len(y) if w is None else [Fraction(float(v)) for v in w]
    neg = [(si, wi) for yi, si, wi in zip(y, s, w, strict=True) if yi == 0]
    pos = [(si, wi) for yi, si, wi in zip(y, s, w, strict=True) if yi == 1]
    total_neg = sum(wi for _, wi in neg)
    total_pos = sum(wi for _, wi in pos)
    total = Fraction(0)
    for x_j, w_j in neg:
        v_j = sum(w_k for x_k, w_k in neg if x_k <= x_j) / total_neg
        weight_j = Fraction(float(weight(np.array([float(v_j)]))[0]))
        for x_i, w_i in pos:
            step = 1 if x_i > x_j else Fraction(1, 2) if x_i == x_j else 0
            total += w_i * w_j * step * weight_j
    return total / (total_neg * total_pos)


def mcclish_diagonal(low, high, focus):
    """Area of the diagonal's strip: the integral of u (FPR focus) or 1 - t (TPR focus)."""
    if focus == "fpr":
        return (high**2 - low**2) / 2
    return (high - low) - (high**2 - low**2) / 2


def mcclish(area, low, high, focus):
    """McClish's standardisation, from its definition: the diagonal's area and the strip's."""
    diagonal = mcclish_diagonal(low, high, focus)
    return (1 + (area - diagonal) / ((high - low) - diagonal)) / 2


bounds = st.one_of(
    st.sampled_from([0.0, 0.1, 0.125, 0.2, 0.25, 1 / 3, 0.5, 0.75, 0.9, 1.0]),
    st.floats(0.0, 1.0),
)


@st.composite
def ranges(draw):
    low, high = sorted((draw(bounds), draw(bounds)))
    if low == high:
        low, high = (0.0, high) if high > 0 else (0.0, 1.0)
    return low, high


# ---------------------------------------------------------------------------
# pROC
# ---------------------------------------------------------------------------


def test_proc_reference_file_records_versions():
    assert PROC["proc_version"].startswith("1.18")
    assert PROC["r_version"].startswith("R version 4")
    assert len(PROC["cases"]) == 140
    assert {case["focus"] for case in PROC["cases"]} == {"specificity", "sensitivity"}
    # pROC's default McClish refuses (NA) curves below the diagonal in some cases.
    assert any(case["pauc_mcclish_r_default"] is None for case in PROC["cases"])


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize(
    "case",
    PROC["cases"],
    ids=[f"{c['dataset']}-{c['focus']}-{c['range'][0]}-{c['range'][1]}" for c in PROC["cases"]],
)
def test_partial_auc_equals_proc(case):
    data = PROC["datasets"][case["dataset"]]
    y, s = np.array(data["y"]), np.array(data["s"])
    key = "fpr_range" if case["focus"] == "specificity" else "tpr_range"
    span = tuple(case["range"])
    assert auc(y, s) == pytest.approx(case["auc"], abs=1e-12)
    assert partial_auc(y, s, **{key: span}) == pytest.approx(case["pauc"], abs=1e-12)
    corrected = partial_auc(y, s, **{key: span}, correction="mcclish")
    assert corrected == pytest.approx(case["pauc_mcclish"], abs=1e-12)
    # pROC's default returns NA exactly when the curve is below the diagonal in
    # the range (corrected value below 1/2); otherwise the same value.
    if case["pauc_mcclish_r_default"] is None:
        assert corrected < 0.5
    else:
        assert corrected >= 0.5 - 1e-12
        assert corrected == pytest.approx(case["pauc_mcclish_r_default"], abs=1e-12)


# ---------------------------------------------------------------------------
# scikit-learn's max_fpr
# ---------------------------------------------------------------------------


@given(labelled_scores(weighted=True, max_size=60), st.floats(0.001, 1.0))
def test_mcclish_fpr_equals_scikit_learn_max_fpr(data, max_fpr):
    y, s, w = data
    expected = roc_auc_score(y, s, max_fpr=max_fpr)
    got = partial_auc(y, s, fpr_range=(0, max_fpr), correction="mcclish")
    assert got == pytest.approx(expected, abs=1e-12)
    expected = roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=w)
    got = partial_auc(y, s, fpr_range=(0, max_fpr), correction="mcclish", sample_weight=w)
    assert got == pytest.approx(expected, abs=1e-12)


def raw_area_from_scikit_learn(y, s, max_fpr, sample_weight=None):
    """The uncorrected area over FPR [0, m], undoing scikit-learn's McClish standardisation."""
    corrected = roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=sample_weight)
    low, high = max_fpr**2 / 2, max_fpr
    return low + (2 * corrected - 1) * (high - low)


@pytest.mark.slow
@pytest.mark.parametrize("n", [1_000, 200_000])
@pytest.mark.parametrize("decimals", [None, 1])
def test_large_inputs_match_scikit_learn(rng, n, decimals):
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.7 * y
    if decimals is not None:
        s = np.round(s, decimals)
    w = rng.exponential(size=n)
    for m in (0.01, 0.2, 0.5):
        assert partial_auc(y, s, fpr_range=(0, m)) == pytest.approx(
            raw_area_from_scikit_learn(y, s, m), abs=1e-12
        )
        assert partial_auc(y, s, fpr_range=(0, m), sample_weight=w) == pytest.approx(
            raw_area_from_scikit_learn(y, s, m, w), abs=1e-11
        )
        # A TPR range [0, m] is the strip m wide minus the area, left of the curve,
        # of the curve with the classes swapped (the curve mirrored in the diagonal).
        assert partial_auc(y, s, tpr_range=(0, m)) == pytest.approx(
            m - raw_area_from_scikit_learn(1 - y, s, m), abs=1e-12
        )
        # A range [a, b] is the difference of two ranges starting at 0.
        assert partial_auc(y, s, fpr_range=(m, 0.7)) == pytest.approx(
            raw_area_from_scikit_learn(y, s, 0.7) - raw_area_from_scikit_learn(y, s, m),
            abs=1e-12,
        )


# ---------------------------------------------------------------------------
# Exact areas (integration along the TPR, in Fractions)
# ---------------------------------------------------------------------------


@given(labelled_scores(), ranges(), ranges())
# A narrow range at the far end of a diagonal (all scores tied): 0.99999 * 3
# class 0 points is not an integer, and the side cuts the diagonal.
@example(data=(np.array([0, 1, 0, 0]), np.zeros(4)), fpr_range=(0.99999, 1.0),
         tpr_range=(0.0, 1.0))
# 0.1 * 10 rounds to exactly 1.0 in floats, the exact side (the float 0.1 times
# 10) is a little above 1: the segment from 1 to 2 crosses it.
@example(data=(np.array([0] * 10 + [1] * 10), np.arange(20.0) % 7), fpr_range=(0.1, 0.7),
         tpr_range=(0.3, 0.9))
# A range of subnormal width: the correction divides by the width squared.
@example(data=(np.array([0, 1, 0, 1, 0]), np.array([0.0, 1.0, 1.0, 2.0, 3.0])),
         fpr_range=(2.0**-1070, 2.0**-1060), tpr_range=(0.0, 5e-324))
def test_partial_areas_equal_exact_integration(data, fpr_range, tpr_range):
    y, s = data
    points = exact_roc_polyline(list(y), list(s))
    # Unit weights: the exact area, correctly rounded (float() of a Fraction is).
    for kwargs in ({"fpr_range": fpr_range}, {"tpr_range": tpr_range},
                   {"fpr_range": fpr_range, "tpr_range": tpr_range}):
        exact = exact_box_area(points, **kwargs)
        assert partial_auc(y, s, **kwargs) == float(exact)
    for focus, span in (("fpr", fpr_range), ("tpr", tpr_range)):
        key = f"{focus}_range"
        exact = exact_box_area(points, **{key: span})
        expected = mcclish(exact, Fraction(span[0]), Fraction(span[1]), focus)
        got = partial_auc(y, s, **{key: span}, correction="mcclish")
        if abs(expected) > Fraction(np.finfo(np.float64).max):
            # A correction of a range of subnormal width can exceed the float range.
            assert got == (np.inf if expected > 0 else -np.inf)
        else:
            # The standardised exact area, correctly rounded, however narrow the range.
            assert got == float(expected)


@given(labelled_scores(weighted=True), ranges(), ranges())
def test_weighted_partial_areas_equal_exact_integration(data, fpr_range, tpr_range):
    y, s, w = data
    # One more point, of weight zero: it changes nothing.
    y, s, w = np.append(y, 1), np.append(s, s[0]), np.append(w, 0.0)
    points = exact_roc_polyline(list(y), list(s), list(w))
    for kwargs in ({"fpr_range": fpr_range}, {"tpr_range": tpr_range},
                   {"fpr_range": fpr_range, "tpr_range": tpr_range}):
        exact = exact_box_area(points, **kwargs)
        got = partial_auc(y, s, **kwargs, sample_weight=w)
        assert got == pytest.approx(float(exact), abs=1e-12)


def test_exact_area_at_vertices_is_correctly_rounded(rng):
    # Distinct scores and ranges on multiples of 1/n0 and 1/n1: no segment is cut
    # by a side of the box, so the result is the exact fraction rounded once.
    y = rng.permutation(np.repeat([0, 1], [160, 120]))
    s = rng.permutation(280) / 7
    points = exact_roc_polyline(list(y), list(s))
    for kwargs in ({"fpr_range": (0.125, 0.625)}, {"fpr_range": (0.5, 1.0)},
                   {"tpr_range": (0.25, 0.875)},
                   {"fpr_range": (0.0, 0.375), "tpr_range": (0.5, 0.75)}):
        assert partial_auc(y, s, **kwargs) == float(exact_box_area(points, **kwargs))


def test_two_way_area_on_real_stream_equals_quadrature():
    data = PROC["datasets"]["default_stream"]
    y, s = np.array(data["y"]), np.array(data["s"])
    # The ROC curve from its definition: one point per distinct score.
    distinct = np.unique(s)[::-1]
    fpr = np.array([0.0] + [np.mean(s[y == 0] >= t) for t in distinct])
    tpr = np.array([0.0] + [np.mean(s[y == 1] >= t) for t in distinct])
    for (a, b), (c, d) in (((0.0, 0.3), (0.6, 0.95)), ((0.05, 0.5), (0.2, 1.0)),
                           ((0.0, 1.0), (0.9, 1.0))):
        grid = a + (b - a) * (np.arange(1_000_000) + 0.5) / 1_000_000  # midpoint rule
        height = np.clip(np.interp(grid, fpr, tpr), c, d) - c
        quadrature = height.mean() * (b - a)
        got = partial_auc(y, s, fpr_range=(a, b), tpr_range=(c, d))
        assert got == pytest.approx(quadrature, abs=1e-8)


# ---------------------------------------------------------------------------
# partial_auc: identities
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(labelled_scores(weighted=True))
def test_without_range_partial_auc_is_auc(data):
    y, s, w = data
    assert partial_auc(y, s) == auc(y, s)
    assert partial_auc(y, s, correction="mcclish") == auc(y, s)
    assert partial_auc(y, s, fpr_range=(0, 1), tpr_range=(0, 1)) == auc(y, s)
    assert partial_auc(y, s, sample_weight=w) == pytest.approx(
        auc(y, s, sample_weight=w), abs=1e-14
    )


@given(labelled_scores(), ranges(), ranges())
def test_ranges_split_additively(data, fpr_range, tpr_range):
    y, s = data
    (a, b), (c, d) = fpr_range, tpr_range
    middle = (a + b) / 2
    whole = partial_auc(y, s, fpr_range=(a, b), tpr_range=(c, d))
    if a < middle < b:
        left = partial_auc(y, s, fpr_range=(a, middle), tpr_range=(c, d))
        right = partial_auc(y, s, fpr_range=(middle, b), tpr_range=(c, d))
        assert left + right == pytest.approx(whole, abs=1e-14)
    assert 0 <= whole <= (b - a) * (d - c) + 1e-15


def test_integer_weights_are_repetitions(rng):
    y = rng.integers(0, 2, 200)
    s = np.round(rng.normal(size=200) + y, 1)
    w = rng.integers(0, 4, 200)
    y_rep, s_rep = np.repeat(y, w), np.repeat(s, w)
    for kwargs in ({"fpr_range": (0.1, 0.4)}, {"tpr_range": (0.3, 0.95)},
                   {"fpr_range": (0.2, 0.6), "tpr_range": (0.5, 0.9)}):
        assert partial_auc(y, s, **kwargs, sample_weight=w) == pytest.approx(
            partial_auc(y_rep, s_rep, **kwargs), abs=1e-14
        )


def test_accepts_the_usual_input_types():
    import pandas as pd

    y = [False, False, True, False, True, True, False, True]
    s = np.array([1, 2, 3, 4, 5, 9, 3, 8], dtype=np.int16)
    expected = partial_auc(np.array(y, dtype=int), s.astype(float), fpr_range=(0, 0.5))
    assert partial_auc(y, s, fpr_range=(0, 0.5)) == expected
    assert partial_auc(pd.Series(y), pd.Series(s), fpr_range=[0, 0.5]) == expected
    assert partial_auc(y, s, fpr_range=np.array([0, 0.5])) == expected
    assert partial_auc(y, s, fpr_range=(0, 1 / 2)) == expected


# ---------------------------------------------------------------------------
# weighted_auc
# ---------------------------------------------------------------------------

WEIGHTS = {
    "one": lambda v: np.ones_like(v),
    "identity": lambda v: v,
    "ramp": lambda v: np.clip((v - 0.3) / 0.4, 0.0, 1.0),
    "bump": lambda v: np.exp(-((v - 0.7) ** 2) / 0.02),
    "step": lambda v: (v >= 0.5).astype(float),
}


@pytest.mark.parametrize("name", sorted(WEIGHTS))
@given(data=labelled_scores())
def test_weighted_auc_equals_double_sum_definition(name, data):
    y, s = data
    weight = WEIGHTS[name]
    expected = brute_weighted_auc(list(y), list(s), weight)
    assert weighted_auc(y, s, weight) == pytest.approx(float(expected), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", sorted(WEIGHTS))
@given(data=st.data())
def test_weighted_auc_with_sample_weight_equals_double_sum_definition(name, data):
    # A step W jumps where the rounding of fractional cumulative weights could
    # differ from the exact v_j: it gets integer weights (0 included), whose
    # cumulative sums are exact, so v_j is the same correctly rounded ratio.
    y, s, w = data.draw(labelled_scores(weighted=True, integer_weights=name == "step"))
    weight = WEIGHTS[name]
    expected = brute_weighted_auc(list(y), list(s), weight, list(w))
    got = weighted_auc(y, s, weight, sample_weight=w)
    assert got == pytest.approx(float(expected), rel=1e-12, abs=1e-15)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(labelled_scores(weighted=True))
def test_weighted_auc_with_constant_weight_is_auc(data):
    y, s, w = data
    assert weighted_auc(y, s, lambda v: np.ones_like(v)) == auc(y, s)
    assert weighted_auc(y, s, lambda v: 1.0) == auc(y, s)  # a scalar is a constant W
    assert weighted_auc(y, s, lambda v: np.full_like(v, 2.5)) == pytest.approx(2.5 * auc(y, s))
    assert weighted_auc(y, s, lambda v: np.ones_like(v), sample_weight=w) == pytest.approx(
        auc(y, s, sample_weight=w), rel=1e-13
    )


def test_weighted_auc_calls_weight_once_with_every_class_0_point():
    calls = []

    def weight(v):
        calls.append(v.copy())
        return v

    y = [0, 1, 0, 0, 1, 0]
    s = [0.3, 0.9, 0.1, 0.3, 0.2, 0.8]
    weighted_auc(y, s, weight)
    assert len(calls) == 1
    # Class 0 scores 0.1, 0.3, 0.3, 0.8: fractions at or below each, ties sharing the top.
    np.testing.assert_array_equal(np.sort(calls[0]), [0.25, 0.75, 0.75, 1.0])


def test_step_weight_is_the_non_interpolated_partial_area(rng):
    # Without ties the class 0 point with v = k / n0 owns the FPR strip
    # [1 - k/n0, 1 - k/n0 + 1/n0]: a step over whole strips is partial_auc.
    n = 500
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    n_neg = int(np.sum(y == 0))
    for i, j in ((0, n_neg // 5), (n_neg // 4, n_neg // 2), (10, n_neg)):

        def step(v, i=i, j=j):
            k = np.rint(v * n_neg)
            return ((k >= n_neg - j + 1) & (k <= n_neg - i)).astype(float)

        assert weighted_auc(y, s, step) == pytest.approx(
            partial_auc(y, s, fpr_range=(i / n_neg, j / n_neg)), abs=1e-13
        )


def test_weighted_auc_integer_weights_are_repetitions(rng):
    y = rng.integers(0, 2, 150)
    s = np.round(rng.normal(size=150) + y, 1)
    w = rng.integers(0, 4, 150)
    for weight in WEIGHTS.values():
        assert weighted_auc(y, s, weight, sample_weight=w) == pytest.approx(
            weighted_auc(np.repeat(y, w), np.repeat(s, w), weight), rel=1e-12
        )


@pytest.mark.parametrize("n_neg", [2, 10, 51, 400])
def test_proposition_1_law_gives_fraction_at_zero_when_at_least_half(rng, n_neg):
    # Class 0 at scores 0 and 1 with probability 1/2 each, class 1 at 1/2 and
    # W = 1 on [1/2, 1]: the estimator is p 1{p >= 1/2}, p the fraction of class 0
    # at 0 (whose v is p), while the population value is 1/2 (see docs/partial_auc.rst).
    for _ in range(20):
        neg = rng.integers(0, 2, n_neg).astype(float)
        y = np.concatenate([np.zeros(n_neg, int), np.ones(7, int)])
        s = np.concatenate([neg, np.full(7, 0.5)])
        p = Fraction(int(np.sum(neg == 0)), n_neg)
        got = weighted_auc(y, s, lambda v: (v >= 0.5).astype(float))
        assert got == (float(p) if p >= Fraction(1, 2) else 0.0)


# ---------------------------------------------------------------------------
# weighted_auc_error_bound
# ---------------------------------------------------------------------------


def test_error_bound_values():
    # n = 800 and delta = 4 e^-4 make sqrt(2 ln(4/delta) / n) = 1/10.
    delta = 4 * math.exp(-4)
    # min(p0, p1) = 1/4: (L + 9 M) / (1/16) / 10.
    assert weighted_auc_error_bound(200, 600, delta=delta, w_max=1, w_lipschitz=1) == (
        pytest.approx(16.0, rel=1e-14)
    )
    assert weighted_auc_error_bound(600, 200, delta=delta, w_max=0.5, w_lipschitz=2.5) == (
        pytest.approx(1.6 * 7, rel=1e-14)
    )
    # min(p0, p1) = 1/2
    assert weighted_auc_error_bound(400, 400, delta=delta, w_max=1, w_lipschitz=0) == (
        pytest.approx(3.6, rel=1e-14)
    )
    assert weighted_auc_error_bound(400, 400, delta=delta, w_max=0, w_lipschitz=0) == 0.0


def test_error_bound_is_nan_outside_the_event():
    delta = 4 * math.exp(-4)  # the event needs min(n0, n1) / 800 > 1/10
    assert math.isnan(weighted_auc_error_bound(79, 721, delta=delta, w_max=1, w_lipschitz=1))
    assert math.isnan(weighted_auc_error_bound(721, 79, delta=delta, w_max=1, w_lipschitz=1))
    assert math.isfinite(weighted_auc_error_bound(81, 719, delta=delta, w_max=1, w_lipschitz=1))
    # A class absent is not an event outside A_delta: the bound is undefined, refused.
    with pytest.raises(ValueError, match="n_neg is 0: class 0 is absent"):
        weighted_auc_error_bound(0, 10**9, delta=0.5, w_max=1, w_lipschitz=1)


def test_error_bound_holds_for_the_empirical_error_on_a_known_distribution():
    # Class 0 uniform on [0, 1] (so v = F0(y) = y), class 1 with CDF x^2 on [0, 1],
    # each point of class 1 with probability 1/2; W(v) = v (sup 1, Lipschitz 1).
    # The population value is the integral of P(X1 > y) W(y) = (1 - y^2) y: 1/4.
    rng = np.random.default_rng(2014)
    n, delta = 200_000, 0.05
    errors, bounds = [], []
    for _ in range(20):
        y = rng.integers(0, 2, n)
        u = rng.random(n)
        s = np.where(y == 1, np.sqrt(u), u)
        errors.append(abs(weighted_auc(y, s, lambda v: v) - 0.25))
        n_pos = int(y.sum())
        bounds.append(weighted_auc_error_bound(n - n_pos, n_pos, delta=delta, w_max=1,
                                               w_lipschitz=1))
    # Theorem 2: each error exceeds its bound with probability below delta (the
    # bound is loose: the errors are hundreds of times smaller).
    assert all(error <= bound for error, bound in zip(errors, bounds, strict=True))
    # The errors are those of an estimator of 1/4 at this n (order 1/sqrt(n)).
    assert 1e-5 < max(errors) < 0.01
    assert min(bounds) < 0.3  # not vacuous: below the range [0, 1] of the estimates


def test_error_bound_shrinks_as_one_over_root_n():
    first = weighted_auc_error_bound(10**4, 10**4, delta=0.01, w_max=1, w_lipschitz=5)
    second = weighted_auc_error_bound(10**6, 10**6, delta=0.01, w_max=1, w_lipschitz=5)
    assert second == pytest.approx(first / 10, rel=1e-12)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------

Y = [0, 1, 0, 1]
S = [0.1, 0.4, 0.35, 0.8]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"fpr_range": (0.5, 0.2)}, "fpr_range must satisfy 0 <= low < high <= 1, got (0.5, 0.2)"),
        ({"fpr_range": (0.3, 0.3)}, "fpr_range must satisfy 0 <= low < high <= 1, got (0.3, 0.3)"),
        ({"tpr_range": (-0.1, 0.5)}, "tpr_range must satisfy 0 <= low < high <= 1, got (-0.1, 0.5)"),
        ({"tpr_range": (0.5, 1.5)}, "tpr_range must satisfy 0 <= low < high <= 1, got (0.5, 1.5)"),
        ({"fpr_range": (0.0, float("nan"))}, "fpr_range must satisfy 0 <= low < high <= 1, got (0.0, nan)"),
        ({"fpr_range": 0.2}, "fpr_range must be a pair (low, high) of numbers, got 0.2"),
        ({"fpr_range": (0, 0.1, 0.2)}, "fpr_range must be a pair (low, high) of numbers, got (0, 0.1, 0.2)"),
        ({"tpr_range": "01"}, "tpr_range must be a pair (low, high) of numbers, got '01'"),
        ({"tpr_range": (False, True)}, "tpr_range must be a pair (low, high) of numbers, got (False, True)"),
        ({"fpr_range": ("0", "1")}, "fpr_range must be a pair (low, high) of numbers, got ('0', '1')"),
        ({"correction": "McClish"}, "correction must be one of None, 'mcclish'; got 'McClish'"),
        ({"correction": True}, "correction must be one of None, 'mcclish'; got True"),
        (
            {"fpr_range": (0, 0.5), "tpr_range": (0.5, 1), "correction": "mcclish"},
            "correction='mcclish' standardises a partial area over one range; it is not "
            "defined for the two-way area (both fpr_range and tpr_range given)",
        ),
    ],
)
def test_partial_auc_refuses_bad_options(kwargs, message):
    with pytest.raises(ValueError) as info:
        partial_auc(Y, S, **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("y", "s", "kwargs", "message"),
    [
        ([1, 1], [0.1, 0.2], {}, "The partial AUC is undefined when only one class is present: "
         "y_true has no points of class 0 (with positive weight), only of class 1"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, 0]}, "The partial AUC is undefined when only "
         "one class is present: y_true has no points of class 1 (with positive weight), only of class 0"),
        ([0, 2], [0.1, 0.2], {}, "y_true must contain only labels 0 and 1 (or booleans); found 2 at position 1; it holds the two labels 0 and 2: pass pos_label=<the label of class 1>"),
        ([0, 1], [0.1, np.inf], {}, "y_score must contain only finite values; found inf at position 1"),
        ([0, 1], [0.1], {}, "y_true and y_score have different lengths: 2 and 1"),
        ([0, 1], [0.1, 0.2], {"sample_weight": [1, -1]}, "sample_weight must be non-negative; found -1.0 at position 1"),
    ],
)
def test_partial_auc_refuses_bad_data(y, s, kwargs, message):
    with pytest.raises(ValueError) as info:
        partial_auc(y, s, fpr_range=(0, 0.5), **kwargs)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("weight", "message"),
    [
        (0.5, "weight must be a callable W(v) on [0, 1], got 0.5"),
        (lambda v: v[:1], "weight must be vectorised: called on an array of shape (2,) it returned shape (1,)"),
        (lambda v: v - 0.6, "weight must return finite values >= 0 on [0, 1]; weight(0.5) returned -0.09999999999999998"),
        (lambda v: v / 0.0, "weight must return finite values >= 0 on [0, 1]; weight(0.5) returned inf"),
        (lambda v: "heavy", "weight must return numbers: weight(v) returned str"),
    ],
)
def test_weighted_auc_refuses_bad_weight(weight, message):
    with pytest.raises(ValueError) as info, np.errstate(divide="ignore"):
        weighted_auc([0, 1, 0, 1], [0.1, 0.4, 0.35, 0.8], weight)
    assert str(info.value) == message


def test_weighted_auc_refuses_one_class():
    with pytest.raises(ValueError, match=r"^The weighted AUC is undefined when only one class"):
        weighted_auc([0, 0], [0.1, 0.2], lambda v: v)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        ((-1, 5), {}, "n_neg must be an integer >= 0, got -1"),
        ((5, 2.0), {}, "n_pos must be an integer >= 0, got 2.0"),
        ((True, 5), {}, "n_neg must be an integer >= 0, got True"),
        ((0, 0), {}, "n_neg and n_pos are both 0: the bound needs at least one point"),
        ((5, 5), {"delta": 0}, "delta must be in (0, 1), got 0.0"),
        ((5, 5), {"delta": 1}, "delta must be in (0, 1), got 1.0"),
        ((5, 5), {"delta": "0.1"}, "delta must be a number in (0, 1), got '0.1'"),
        ((5, 5), {"w_max": -1}, "w_max must be finite and >= 0, got -1"),
        ((5, 5), {"w_lipschitz": math.inf}, "w_lipschitz must be finite and >= 0, got inf"),
        ((5, 5), {"w_lipschitz": None}, "w_lipschitz must be a non-negative number, got None"),
    ],
)
def test_error_bound_refuses_bad_arguments(args, kwargs, message):
    options = {"delta": 0.05, "w_max": 1.0, "w_lipschitz": 1.0, **kwargs}
    with pytest.raises(ValueError) as info:
        weighted_auc_error_bound(*args, **options)
    assert str(info.value) == message
