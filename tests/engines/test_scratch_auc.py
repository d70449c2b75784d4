"""The exact 2U merge of the sorted classes (_scratch.auc2_sorted_classes).

Checked against the O(n^2) Mann-Whitney count of every pair, in Python (small
inputs) and by numpy (inputs long enough to cut the merge into stretches).
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import mann_whitney_2u

from hmeasure_stream._engines import _scratch

# Few distinct values (many ties), both zeros, extreme magnitudes.
SPECIAL = [-1e308, -2.5, -5e-324, -0.0, 0.0, 5e-324, 1.0, 1.0 + 2**-52, 1e308]
values = st.one_of(st.sampled_from(SPECIAL), st.integers(-3, 3).map(float))


def reference_2u(neg, pos):
    """2U by reference_impl's count of every pair (numpy's comparisons for arrays)."""
    y = [0] * len(neg) + [1] * len(pos)
    if isinstance(neg, np.ndarray):
        return mann_whitney_2u(np.array(y), np.concatenate([neg, pos]))
    return mann_whitney_2u(y, list(neg) + list(pos))


def twice_u(neg, pos):
    return _scratch.auc2_sorted_classes(np.sort(np.asarray(neg, dtype=np.float64)),
                                        np.sort(np.asarray(pos, dtype=np.float64)))


@given(st.lists(values, max_size=30), st.lists(values, max_size=30))
def test_equals_fraction_mann_whitney(neg, pos):
    result = twice_u(neg, pos)
    assert type(result) is int
    assert result == reference_2u(neg, pos)


@pytest.mark.parametrize(("neg", "pos", "expected"), [
    ([-0.0], [0.0], 1),            # -0.0 == 0.0: a tie
    ([0.0, -0.0], [-0.0, 0.0], 4),
    ([5e-324], [-5e-324], 0),
    ([-1e308], [1e308], 2),
    ([1.0], [1.0 + 2**-52], 2),
    ([], [1.0, 2.0], 0),           # one class empty: no pairs
    ([1.0, 2.0], [], 0),
])
def test_special_values(neg, pos, expected):
    assert twice_u(neg, pos) == expected == reference_2u(neg, pos)


@pytest.mark.parametrize("n_distinct", [1, 2, 3, 17, None])
@pytest.mark.parametrize(("n_neg", "n_pos", "shift"), [
    (1, 1500, 0.0), (1500, 1, 0.0), (800, 1200, 0.0), (1200, 800, 0.7),
    (1000, 1000, 50.0),   # every class 1 score above every class 0 score
    (1000, 1000, -50.0),  # every class 0 score above every class 1 score
    (1000, 7, -0.3), (7, 1000, 0.3),
])
def test_long_inputs_equal_all_pairs(rng, n_distinct, n_neg, n_pos, shift):
    if n_distinct is None:
        neg, pos = rng.normal(size=n_neg), rng.normal(size=n_pos) + shift
    else:
        neg = rng.integers(0, n_distinct, n_neg) * 1.0
        pos = rng.integers(0, n_distinct, n_pos) + np.round(shift)
        neg[::3] = -0.0 * neg[::3]  # zeros of both signs in one run of ties
    neg, pos = np.sort(neg), np.sort(pos)
    assert _scratch.auc2_sorted_classes(neg, pos) == reference_2u(neg, pos)


def test_long_runs_straddling_every_cut(rng):
    # Runs of equal scores far longer than a quarter of the merge.
    neg = np.sort(np.repeat([0.0, 1.0, 2.0], [900, 5, 1100]))
    pos = np.sort(np.repeat([-1.0, 1.0, 2.0, 3.0], [3, 1000, 700, 2]))
    assert _scratch.auc2_sorted_classes(neg, pos) == reference_2u(neg, pos)


# The radix sort of the class scores (_scratch.radix_sort).
finite = st.floats(allow_nan=False, allow_infinity=False)


@given(st.lists(st.one_of(finite, values), max_size=200))
def test_radix_sort_orders_like_sorted(scores):
    array = np.array(scores, dtype=np.float64)
    _scratch.radix_sort(array)
    # Equal as numbers to Python's sort (-0.0 == 0.0), and nondecreasing.
    assert array.tolist() == sorted(scores)
    assert np.all(array[1:] >= array[:-1])


LONG_KINDS = ["normal", "unit", "ties", "signed zeros", "extremes"]


def long_scores(rng, kind, n=70_000):
    return {
        "normal": rng.normal(size=n) * 1e3,
        "unit": rng.random(n),  # shared high bytes: passes skipped
        "ties": rng.integers(-3, 3, n) * 0.5,  # (argsort: ties keep their input order)
        "signed zeros": rng.choice([-0.0, 0.0, 1.0], n),  # (argsort: -0.0 and 0.0 tie)
        "extremes": rng.choice(SPECIAL, n) * rng.random(n),
    }[kind]


@pytest.mark.parametrize("kind", LONG_KINDS)
def test_radix_sort_long_inputs(rng, kind):
    scores = long_scores(rng, kind)
    expected = np.sort(scores)
    _scratch.radix_sort(scores)
    np.testing.assert_array_equal(scores, expected)  # -0.0 == 0.0 here too
    assert np.all(scores[1:] >= scores[:-1])


def test_radix_sort_short_inputs():
    for scores in ([], [2.0], [2.0, -2.0], [-0.0, 0.0, -0.0]):
        array = np.array(scores, dtype=np.float64)
        _scratch.radix_sort(array)
        assert array.tolist() == sorted(scores)


@given(st.lists(st.one_of(st.sampled_from(SPECIAL), st.floats(allow_nan=False,
                                                              allow_infinity=False)),
                max_size=60))
def test_radix_argsort_is_numpys_stable_order(scores):
    array = np.array(scores, dtype=np.float64)
    order = _scratch.radix_argsort(array)
    assert order.dtype == np.int64
    np.testing.assert_array_equal(order, np.argsort(array, kind="stable"))


@pytest.mark.parametrize("kind", LONG_KINDS)
def test_radix_argsort_long_inputs(rng, kind):
    scores = long_scores(rng, kind)
    before = scores.copy()
    np.testing.assert_array_equal(_scratch.radix_argsort(scores),
                                  np.argsort(scores, kind="stable"))
    np.testing.assert_array_equal(scores, before)  # (read only)
