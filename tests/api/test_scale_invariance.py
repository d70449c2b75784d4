"""Multiplying every weight by 2**k, k in [-990, 990], changes no metric, bit for bit.

Every metric of the package is invariant under one common factor on the
weights; the code scales weights by powers of two, which is exact, so the
results must be identical, not merely close.  Totals (``n_neg``, the counts
of ``binned_auc``) scale by exactly 2**k.  (DeLong's variance treats weights
as frequencies and is not scale-invariant by definition.)
"""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from registry import (
    EXACT_WEIGHTED,
    SCALE_INVARIANT_FUNCTIONS,
    STRUCTURES,
    function_value,
    readings,
)
from strategies import labelled_scores

from hmeasure_stream import (
    BinnedAUC,
    Binning,
    DynamicMulticlassAUC,
    SlidingWindow,
    binned_auc,
    sliding_window,
)

EXPONENTS = st.integers(-990, 990)


def same(got, expected):
    """Equal bit for bit (nan equal to nan), for scalars, arrays, tuples and dicts."""
    if isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            same(got[key], expected[key])
    elif isinstance(expected, tuple):
        assert len(got) == len(expected)
        for a, b in zip(got, expected, strict=True):
            same(a, b)
    else:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), strict=True)


class Refused(str):
    """The message of a ValueError, as an outcome."""


def outcome(function, *args, **kwargs):
    """The result, or the message of the ValueError raised."""
    try:
        return function(*args, **kwargs)
    except ValueError as error:
        return Refused(error)


@given(data=labelled_scores(weighted=True), k=EXPONENTS)
def test_sliding_window(data, k):
    # The function's treaps take random priorities, and with float weights the
    # rounding of their sums depends on the shape: equal to rounding, not bit for bit
    # (SlidingWindow with a seed is, below).
    y, s, w = data
    metrics = ("auc", "h", "auch")
    plain = sliding_window(y, s, 5, metrics=metrics, sample_weight=w)
    scaled = sliding_window(y, s, 5, metrics=metrics, sample_weight=np.ldexp(w, k))
    for name in metrics:
        np.testing.assert_allclose(scaled[name], plain[name], rtol=1e-13, atol=1e-15)


def with_zeros(data, zeros):
    y, s, w = data
    w = w.copy()
    mask = np.zeros(len(w), dtype=bool)
    mask[:len(zeros[:len(w)])] = zeros[:len(w)]
    w[mask] = 0.0
    return y, s, w


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")
@given(data=labelled_scores(weighted=True), k=EXPONENTS,
       zeros=st.lists(st.booleans(), max_size=40))
def test_from_scratch_functions(data, k, zeros):
    y, s, w = with_zeros(data, zeros)
    scaled = np.ldexp(w, k)
    for name in SCALE_INVARIANT_FUNCTIONS:
        expected = outcome(function_value, name, y, s, sample_weight=w)
        got = outcome(function_value, name, y, s, sample_weight=scaled)
        if isinstance(expected, Refused):
            assert isinstance(got, Refused) and got == expected, name
        else:
            same(got, expected)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(data=labelled_scores(weighted=True), k=EXPONENTS)
def test_binned_auc(data, k):
    y, s, w = data
    s = (s - s.min()) / (np.ptp(s) or 1.0)
    plain = binned_auc(y, s, n_bins=7, sample_weight=w)
    scaled = binned_auc(y, s, n_bins=7, sample_weight=np.ldexp(w, k))
    for field in ("auc", "max_error", "expected_error", "edges"):
        same(getattr(scaled, field), getattr(plain, field))
    same(scaled.counts_neg, np.ldexp(plain.counts_neg, k))
    same(scaled.counts_pos, np.ldexp(plain.counts_pos, k))


@given(data=labelled_scores(weighted=True, max_size=30), k=EXPONENTS,
       operations=st.lists(st.tuples(st.sampled_from(["add", "remove", "add_many",
                                                      "remove_many"]),
                                     st.integers(0, 10**6)), min_size=1, max_size=12))
def test_structures(data, k, operations):
    y, s, w = data
    points = list(zip(y.tolist(), s.tolist(), w.tolist(), strict=True))
    for name in EXACT_WEIGHTED:
        plain, scaled = STRUCTURES[name].make(), STRUCTURES[name].make()
        held = []
        for operation, pick in operations:
            if operation in ("add", "remove") or not points:
                chosen = [points[pick % len(points)]]
            else:
                chosen = [points[(pick + j) % len(points)] for j in range(pick % 4 + 1)]
            if operation.startswith("remove"):
                chosen = [held[(pick + j) % len(held)] for j in range(len(chosen))] if held else []
                if len(set(chosen)) != len(chosen):
                    chosen = chosen[:1]
            for tracker, factor in ((plain, 0), (scaled, k)):
                if operation in ("add", "remove"):
                    for label, score, weight in chosen:
                        getattr(tracker, operation)(label, score, float(np.ldexp(weight, factor)))
                elif chosen:
                    labels, scores, weights = (np.array(column) for column in zip(*chosen, strict=True))
                    getattr(tracker, operation)(labels, scores, np.ldexp(weights, factor))
            if operation.startswith("remove"):
                for point in chosen:
                    held.remove(point)
            else:
                held.extend(chosen)
            scaled._check()
            same(readings(scaled, roc=True, totals=False), readings(plain, roc=True, totals=False))
            assert scaled.weight_neg == np.ldexp(plain.weight_neg, k), name
            assert scaled.weight_pos == np.ldexp(plain.weight_pos, k), name


@given(data=labelled_scores(weighted=True, max_size=30), k=EXPONENTS,
       cut=st.integers(0, 30), metrics=st.sampled_from([("auc",), ("auc", "h", "auch")]))
def test_sliding_window_in_chunks(data, k, cut, metrics):
    y, s, w = data
    plain, scaled = SlidingWindow(4, metrics, seed=9), SlidingWindow(4, metrics, seed=9)
    for part in (slice(0, cut), slice(cut, None)):
        got = scaled.update(y[part], s[part], np.ldexp(w[part], k))
        same(got, plain.update(y[part], s[part], w[part]))
    scaled._check()


@given(data=labelled_scores(weighted=True, max_size=30), k=EXPONENTS,
       cut=st.integers(0, 30), drop=st.integers(0, 30))
def test_binned_and_multiclass_structures(data, k, cut, drop):
    y, s, w = data
    s = (s - s.min()) / (np.ptp(s) or 1.0)
    scores = np.column_stack([-s, s])
    made = {factor: (BinnedAUC(6), DynamicMulticlassAUC([0, 1], average="weighted"),
                     DynamicMulticlassAUC([0, 1], method="ovo"))
            for factor in (0, k)}
    for factor, (binned, ovr, ovo) in made.items():
        for part in (slice(0, cut), slice(cut, None)):
            if not y[part].size:
                continue
            binned.add_many(y[part], s[part], np.ldexp(w[part], factor))
            ovr.add_many(y[part], scores[part], np.ldexp(w[part], factor))
            ovo.add_many(y[part], scores[part], np.ldexp(w[part], factor))
        # Remove one point again, with its weight in the structure's scale.
        j = drop % len(y)
        binned.remove(int(y[j]), float(s[j]), float(np.ldexp(w[j], factor)))
        ovr.remove(int(y[j]), scores[j], float(np.ldexp(w[j], factor)))
        binned._check()
    (b0, r0, o0), (b1, r1, o1) = made[0], made[k]
    same((b1.auc, b1.max_error, b1.expected_error), (b0.auc, b0.max_error, b0.expected_error))
    if not np.isnan(b0.auc):
        # (Counts are integers while every weight held is 1.)
        result0, result1 = b0.result(), b1.result()
        for field in ("counts_neg", "counts_pos"):
            same(np.asarray(getattr(result1, field), dtype=np.float64),
                 np.ldexp(getattr(result0, field), k))
    same((r1.auc, r1.per_class(), o1.auc, o1.pairwise()),
         (r0.auc, r0.per_class(), o0.auc, o0.pairwise()))


@given(data=labelled_scores(weighted=True, max_size=30), k=EXPONENTS)
def test_sliding_window_binned(data, k):
    y, s, w = data
    s = (s - s.min()) / (np.ptp(s) or 1.0)
    plain = SlidingWindow(4, (Binning(n_bins=5),)).update(y, s, w)
    scaled = SlidingWindow(4, (Binning(n_bins=5),)).update(y, s, np.ldexp(w, k))
    same(scaled, plain)


def test_binned_structure_refuses_a_weight_far_from_its_scale():
    import pickle

    tracker = BinnedAUC(4)
    tracker.add(1, 0.5, 1e-200)
    before = pickle.dumps(tracker)
    for call in (lambda: tracker.add(0, 0.2, 1e200),
                 lambda: tracker.add_many([0, 1], [0.1, 0.2], [1e-199, 1e200])):
        with pytest.raises(ValueError, match=r"weight.*2\*\*400.*found 1e\+200"):
            call()
        assert pickle.dumps(tracker) == before
    other = BinnedAUC(4)
    other.add(0, 0.1, 1e200)
    with pytest.raises(ValueError, match="cannot merge"):
        tracker.merge(other)
    assert pickle.dumps(tracker) == before
    # Emptied, the structure takes any scale again.
    tracker.remove(1, 0.5, 1e-200)
    tracker.add(0, 0.2, 1e200)
    tracker._check()
    assert len(tracker) == 1
