"""The one choice of sort of the from-scratch functions (``_validation.sort_scores``).

Both branches are forced (numpy's sort, the compiled radix sort) and must
give numpy's order on awkward inputs; the choice by CPU features is read off
stand-in feature tables; the single-pass hull of ``h_measure`` is checked
against the hull of groups counted by ``np.unique`` and against brute force.
"""

import numpy as np
import pytest
from numpy._core import _multiarray_umath
from reference_impl import brute_upper_hull, h_exact, mann_whitney_2u, roc_points_exact
from sklearn.metrics import roc_auc_score

import hmeasure_stream as hs
from hmeasure_stream import _validation
from hmeasure_stream._engines import _scratch

SUBNORMALS = [5e-324, -5e-324, 2.2e-308 / 3, -1e-310]
AWKWARD = [-0.0, 0.0, 1e308, -1e308, 1.7976931348623157e308, -2.2250738585072014e-308,
           *SUBNORMALS, 1.0, 1.0 + 2**-52, 1.0 - 2**-53]

# None: numpy's sort at every size; 1: the radix sort at every size; 2**12:
# the choice on a CPU where numpy's sort is scalar.
BRANCHES = [None, 1, 2**12]


def awkward_scores(rng, kind, n):
    return {
        "signed zeros": rng.choice([-0.0, 0.0], n),
        "zeros and subnormals": rng.choice([-0.0, 0.0, *SUBNORMALS], n),
        "extremes": rng.choice(AWKWARD, n),
        "scaled extremes": rng.choice(AWKWARD, n) * rng.random(n),
        "ties": rng.integers(-3, 3, n) * 0.5,
        "normal": rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n),
        "unit": rng.random(n),
    }[kind]


def bits_unsigned_zero(values):
    return np.where(values == 0, 0.0, values).view(np.uint64)


@pytest.mark.parametrize("radix_sort_min", BRANCHES)
@pytest.mark.parametrize("kind", ["signed zeros", "zeros and subnormals", "extremes",
                                  "scaled extremes", "ties", "normal", "unit"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 100, 2**12 - 1, 2**12, 2**12 + 1, 2**16 + 3])
def test_sort_scores_equals_numpy_sort(monkeypatch, rng, radix_sort_min, kind, n):
    monkeypatch.setattr(_validation, "RADIX_SORT_MIN", radix_sort_min)
    scores = awkward_scores(rng, kind, n)
    expected = np.sort(scores)
    result = scores.copy()
    _validation.sort_scores(result)
    # Equal as numbers to numpy's order (-0.0 == 0.0), nondecreasing, and the
    # same bit patterns: the sort moves values, never changes one.  Except the
    # sign of a zero: numpy's vectorised sort (x86-simd-sort, AVX2) may return
    # -0.0 for 0.0 among signed zeros and subnormals; they compare equal.
    np.testing.assert_array_equal(result, expected)
    assert np.all(result[1:] >= result[:-1])
    np.testing.assert_array_equal(np.sort(bits_unsigned_zero(result)),
                                  np.sort(bits_unsigned_zero(scores)))
    if radix_sort_min is not None and n >= radix_sort_min:
        # The radix sort keeps every bit; -0.0 before 0.0.
        np.testing.assert_array_equal(np.sort(result.view(np.uint64)),
                                      np.sort(scores.view(np.uint64)))
        zeros = np.signbit(result[result == 0])
        assert np.all(zeros[1:] <= zeros[:-1])


@pytest.mark.parametrize("radix_sort_min", BRANCHES)
def test_metrics_equal_independent_values_on_both_branches(monkeypatch, rng, radix_sort_min):
    monkeypatch.setattr(_validation, "RADIX_SORT_MIN", radix_sort_min)
    n = 2**13 + 5
    y = rng.integers(0, 2, n)
    # Extremes without 1e308 (scikit-learn's differences of thresholds overflow).
    s = rng.choice([*AWKWARD[:2], *AWKWARD[6:], 1e300, -1e300], n) + rng.integers(0, 3, n) * y
    assert hs.auc(y, s) == roc_auc_score(y, s)
    # Small enough for the exact references: every point goes through the
    # radix sort with radix_sort_min=1.
    y_small, s_small = y[:60], rng.choice([-0.0, 0.0, *SUBNORMALS, 1.0], 60)
    assert hs.auc(y_small, s_small) == float(mann_whitney_2u(y_small, s_small)
                                              / (2 * (y_small == 0).sum() * (y_small == 1).sum()))
    assert hs.h_measure(y_small, s_small) == pytest.approx(float(h_exact(y_small, s_small)),
                                                           abs=1e-13)


def test_numpy_sort_vectorised_reads_the_dispatch_targets(monkeypatch):
    def choice(features, built=("X86_V2", "X86_V3", "X86_V4", "AVX2", "AVX512_SKX")):
        monkeypatch.setattr(_multiarray_umath, "__cpu_features__", features)
        monkeypatch.setattr(_multiarray_umath, "__cpu_baseline__", [])
        monkeypatch.setattr(_multiarray_umath, "__cpu_dispatch__", list(built))
        return _validation._numpy_sort_vectorised()

    # numpy >= 2.4 names the x86 targets by level; AVX2 alone (X86_V3 disabled) is not used.
    assert choice({"X86_V3": True, "X86_V4": False, "AVX2": True})
    assert choice({"X86_V3": False, "X86_V4": True, "AVX2": True})
    assert not choice({"X86_V3": False, "X86_V4": False, "AVX2": True})
    # numpy 2.0 to 2.3: AVX2 and AVX512_SKX.
    assert choice({"AVX2": True, "AVX512_SKX": False})
    assert choice({"AVX2": False, "AVX512_SKX": True})
    assert not choice({"AVX": True, "AVX2": False, "AVX512_SKX": False})
    # ARM: Highway's vqsort on ASIMD (baseline there).
    assert choice({"ASIMD": True}, built=("ASIMD",))
    # A target numpy was built without is not used.
    assert not choice({"X86_V3": True, "X86_V4": False}, built=("X86_V2",))
    assert not choice({})


def groups_by_unique(neg, pos):
    """Class counts per distinct score, highest first, by np.unique (no merge)."""
    keys = np.unique(np.concatenate([neg, pos]))[::-1]
    return (np.array([(neg == k).sum() for k in keys], dtype=np.int64),
            np.array([(pos == k).sum() for k in keys], dtype=np.int64))


@pytest.mark.parametrize("n_distinct", [2, 5, 40, 10**6])
@pytest.mark.parametrize("n_neg, n_pos", [(1, 1), (1, 7), (9, 1), (60, 80)])
def test_hull_sorted_classes_equals_hull_of_counted_groups(rng, n_distinct, n_neg, n_pos):
    neg = np.sort(rng.integers(0, n_distinct, n_neg).astype(float))
    pos = np.sort(rng.integers(0, n_distinct, n_pos).astype(float))
    fp, tp, edge_neg, edge_pos, twice_u = _scratch.hull_sorted_classes(neg, pos)
    expected = _scratch.upper_hull(*groups_by_unique(neg, pos), True)
    for got, want in zip((fp, tp, edge_neg, edge_pos), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    y = np.r_[np.zeros(n_neg, int), np.ones(n_pos, int)]
    s = np.r_[neg, pos]
    assert twice_u == mann_whitney_2u(y, s)
    points = [(p[0] * n_neg, p[1] * n_pos) for p in roc_points_exact(y, s)]
    assert list(zip(fp.tolist(), tp.tolist(), strict=True)) == brute_upper_hull(points)


def test_hull_sorted_classes_refuses_a_missing_class():
    with pytest.raises(ValueError, match="both classes"):
        _scratch.hull_sorted_classes(np.array([]), np.array([1.0]))
