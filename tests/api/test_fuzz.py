"""Fuzz every public function and class with generated odd and bad input.

Each argument is drawn as a list of values (valid ones, huge and tiny
magnitudes, integers beyond 2**53 and int64, NaN, inf, None, strings, ...)
and put in a container (list, tuple, numpy array of the inferred dtype or of
dtype object, pandas Series, masked array, generator, 2-d array, scalar).
The test decides on its own, element by element, whether the input is valid
and what it means: labels 0/1, scores compared exactly as Python numbers
(Fractions), weights as float64.  Then:

* valid input gives the value of the same call on the canonical float64
  arrays of that meaning (scores replaced by their exact dense ranks for the
  functions that depend on the order only), bit for bit, and ``auc`` gives
  the exact brute-force value;
* invalid input raises ValueError whose message names a bad argument, and
  a structure is byte-identical (pickle) after the refusal; a removal of
  what is not there raises KeyError.
"""

import math
import pickle
from collections.abc import Iterator
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import registry
from hypothesis import given, settings
from hypothesis import strategies as st
from reference_impl import brute_auc, brute_upper_hull, h_exact, roc_points_exact
from registry import EXACT_WEIGHTED, STATES, STRUCTURES
from sklearn.metrics import roc_curve

from hmeasure_stream import (
    DynamicAUC,
    DynamicH,
    SlidingWindow,
    auc_test,
    binned_auc,
    crisp_vus,
    h_measure,
    hmeasure_report,
    multiclass_auc,
    roc_hull,
    roc_points,
)

NAN, INF = float("nan"), float("inf")

VALID_LABELS = [0, 1, True, False, 0.0, 1.0, np.int8(1), np.uint64(0), np.float32(1.0),
                Fraction(1), np.bool_(True)]
# -1 is class 0 where the labels of an argument are all -1 or 1 (scikit-learn's rule), and
# for one point; mixed with 0 in one argument it is a third label.
SIGNED_LABELS = [-1, -1.0, np.int8(-1), np.float32(-1.0)]
BAD_LABELS = [2, -2, 0.5, NAN, None, "1", 2**70, INF]
VALID_SCORES = [0.0, -0.0, 0.25, -3.5, 1e308, -1e308, 5e-324, 7, 2**53, True, 0.1,
                np.float32(0.1), np.float16(0.5), np.int64(-9), Fraction(1, 3)]
BIG_SCORES = [2**53 + 1, 2**64 + 1, 2**64, -(2**70), np.uint64(2**63 + 5), Fraction(10**400, 3)]
BAD_SCORES = [NAN, INF, -INF, None, "0.5", 1j]
WEIGHT_VALUES = [0.0, 0.5, 1.0, 3.0, 7, Fraction(1, 3)]
SCALES = [1.0, 2.0**-990, 2.0**990, 1e-300, 1e300, 1e160]
BAD_WEIGHTS = [-1.0, NAN, INF, None, "1", 2**1024]
CONTAINERS = ["list", "tuple", "array", "object", "series", "masked", "unmasked",
              "generator", "2d", "scalar"]


class Invalid(Exception):
    """The test's own verdict: the argument is not valid input."""


def contain(values, kind):
    """``values`` in a container of the given kind."""
    if kind == "list":
        return list(values)
    if kind == "tuple":
        return tuple(values)
    if kind == "generator":
        return (value for value in values)
    if kind == "object":
        array = np.empty(len(values), dtype=object)
        array[:] = values
        return array
    if kind == "series":
        return pd.Series(values, dtype=object if any(v is None for v in values) else None)
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, OverflowError):
        return list(values)
    if kind == "array":
        return array
    if kind == "2d":
        return array.reshape(1, -1)
    if kind == "scalar":
        return values[0] if len(values) else 0.5
    mask = np.zeros(len(values), dtype=bool)
    if kind == "masked" and len(values):
        mask[-1] = True
    return np.ma.array(array, mask=mask)


def read(container, column=False):
    """The elements a container stands for, as Python objects; Invalid if it stands for none.

    With ``column`` (scores), an (n, 1) array is its n elements, as the package documents.
    """
    if container is None or isinstance(container, Iterator):
        raise Invalid
    if isinstance(container, np.ma.MaskedArray):
        if np.ma.count_masked(container):
            raise Invalid
        container = container.data
    try:
        array = np.asarray(container)
    except (TypeError, ValueError, OverflowError):
        raise Invalid from None
    if column and array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1 or array.dtype.kind not in "biufO":
        raise Invalid
    if array.dtype.kind == "f" and array.dtype.itemsize > 8:
        raise Invalid  # (not generated)
    return [value.item() if isinstance(value, np.generic) else value
            for value in array.tolist()]


def is_number(value):
    return (isinstance(value, (int, float, Fraction, np.number, np.bool_))
            and not isinstance(value, complex))


def as_float(value):
    try:
        return float(value)
    except OverflowError:
        return math.inf


def label_of(value):
    if not is_number(value) or (isinstance(value, float) and math.isnan(value)):
        raise Invalid
    if value == 1:
        return 1.0
    if value == 0:
        return 0.0
    raise Invalid


def score_of(value, exact_float):
    """A score as an exact Python number (Fraction), or as the float64 a structure keeps."""
    if not is_number(value):
        raise Invalid
    if isinstance(value, (float, np.floating)) and not math.isfinite(value):
        raise Invalid
    if not exact_float:
        return Fraction(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) \
            and abs(int(value)) > 2**53:
        raise Invalid
    if not math.isfinite(as_float(value)):
        raise Invalid
    return as_float(value)


def weight_of(value):
    if not is_number(value):
        raise Invalid
    weight = as_float(value)
    if not (math.isfinite(weight) and weight >= 0):
        raise Invalid
    return weight


def dense_ranks(scores):
    order = {value: rank for rank, value in enumerate(sorted(set(scores)))}
    return np.array([order[value] for value in scores], dtype=np.float64)


@st.composite
def arguments(draw, n_min=0):
    """Values of y_true, y_score, sample_weight (or None) and their containers."""
    n = draw(st.integers(n_min, 7))
    labels = draw(st.lists(st.sampled_from(VALID_LABELS), min_size=n, max_size=n))
    if n and draw(st.integers(0, 3)) == 0:
        # -1/1 labels, all of them (then read as 0/1), or now and then a -1 among 0/1.
        mixed = draw(st.booleans())
        labels = [draw(st.sampled_from(SIGNED_LABELS)) if (not label and not mixed)
                  or draw(st.integers(0, 5)) == 0 else label for label in labels]
    if n >= 2 and draw(st.booleans()):
        labels[:2] = [0, 1]
    scores = draw(st.lists(st.sampled_from(VALID_SCORES[:6]), min_size=n, max_size=n))
    if draw(st.booleans()):
        scores = draw(st.lists(st.sampled_from(VALID_SCORES + BIG_SCORES), min_size=n,
                               max_size=n))
    scale = draw(st.sampled_from(SCALES))
    weights = None
    if draw(st.booleans()):
        weights = [value * scale if scale != 1.0 else value
                   for value in draw(st.lists(st.sampled_from(WEIGHT_VALUES), min_size=n,
                                              max_size=n))]
    # Now and then one bad element, a length mismatch, an odd container.
    for values, bad in ((labels, BAD_LABELS), (scores, BAD_SCORES), (weights, BAD_WEIGHTS)):
        if values and draw(st.integers(0, 5)) == 0:
            values[draw(st.integers(0, len(values) - 1))] = draw(st.sampled_from(bad))
    if n and draw(st.integers(0, 9)) == 0:
        victim = draw(st.sampled_from([labels, scores] + ([weights] if weights else [])))
        victim.pop()
    kinds = [draw(st.sampled_from(CONTAINERS)) if draw(st.integers(0, 2)) == 0 else "array"
             for _ in range(3)]
    if weights and kinds[2] == "scalar" and weights[0] is None:
        # The scalar None as sample_weight means unit weights: valid, unlike a None element.
        kinds[2] = "array"
    return (labels, scores, weights), kinds


def signed_labels(labels):
    """Labels all -1 or 1, some -1: the from-scratch functions read them as scikit-learn."""
    return (all(is_number(v) and not (isinstance(v, float) and math.isnan(v))
                and (v == 1 or v == -1) for v in labels)
            and any(v == -1 for v in labels))


def meaning(values, kinds, exact_float):
    """(labels, scores, weights, bad argument names) as the test understands them.

    Labels all -1 or 1 (some -1) are read as 0/1, by the functions and the structures alike.
    """
    names = ("y_true", "y_score", "sample_weight")
    read_values, bad = [], set()
    for name, value, kind in zip(names, values, kinds, strict=True):
        if value is None:
            read_values.append(None)
            continue
        try:
            read_values.append(read(contain(value, kind), column=name == "y_score"))
        except Invalid:
            bad.add(name)
            read_values.append(None)
    labels, scores, weights = read_values
    converters = (label_of, lambda v: score_of(v, exact_float), weight_of)
    if labels is not None and signed_labels(labels):
        converters = (lambda v: float(v == 1), *converters[1:])
    for index, (name, converter) in enumerate(zip(names, converters, strict=True)):
        if read_values[index] is None:
            continue
        try:
            read_values[index] = [converter(v) for v in read_values[index]]
        except Invalid:
            bad.add(name)
    labels, scores, weights = read_values
    if labels is not None and scores is not None and len(labels) != len(scores):
        bad.update(("y_true", "y_score"))
    if weights is not None and scores is not None and len(weights) != len(scores):
        bad.add("sample_weight")
    return labels, scores, weights, bad


def function_meaning(values, kinds, exact_float=False):
    """As ``meaning``, for a from-scratch function: empty input is refused too."""
    labels, scores, weights, bad = meaning(values, kinds, exact_float)
    if labels is not None and len(labels) == 0:
        bad.add("y_true")
    if scores is not None and len(scores) == 0:
        bad.add("y_score")
    return labels, scores, weights, bad


def outcome(function, *args, **kwargs):
    try:
        return function(*args, **kwargs)
    except ValueError as error:
        return ValueError(str(error))


def same(got, expected):
    if isinstance(expected, Exception):
        assert isinstance(got, Exception) and str(got) == str(expected)
    elif isinstance(expected, dict):
        assert list(got) == list(expected)
        for key in expected:
            same(got[key], expected[key])
    elif isinstance(expected, tuple):
        for a, b in zip(got, expected, strict=True):
            same(a, b)
    elif hasattr(expected, "_fields") or hasattr(expected, "__dataclass_fields__"):
        same(tuple(vars(got).values()) if hasattr(got, "__dict__") else tuple(got),
             tuple(vars(expected).values()) if hasattr(expected, "__dict__")
             else tuple(expected))
    else:
        np.testing.assert_array_equal(np.asarray(got), np.asarray(expected), strict=True)


def assert_refused(got, bad):
    assert isinstance(got, Exception), f"accepted input invalid in {bad}"
    assert any(name in str(got) for name in bad), (str(got), bad)


def second_scores(scores):
    return list(reversed(scores))


# The functions of the registry (tests/registry.py) whose value depends on the scores
# only through their order, called f(y, s, w); and a window's update.
ORDER_ONLY = {
    **{name: lambda y, s, w, function=registry.FUNCTIONS[name]: function(y, s,
                                                                         sample_weight=w)
       for name in sorted(registry.ORDER_ONLY)},
    "SlidingWindow.update": lambda y, s, w: SlidingWindow(2, ("auc", "auch"),
                                                          seed=1).update(y, s, w),
}


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@settings(max_examples=300)
@given(drawn=arguments())
def test_functions_of_the_order(drawn):
    values, kinds = drawn
    labels, scores, weights, bad = function_meaning(values, kinds)
    odd = [contain(value, kind) if value is not None else None
           for value, kind in zip(values, kinds, strict=True)]
    for name, function in ORDER_ONLY.items():
        got = outcome(function, *odd)
        if name == "SlidingWindow.update":
            structure_bad = meaning(values, kinds, exact_float=True)[3]
            if structure_bad:
                assert_refused(got, structure_bad)
                continue
        elif bad:
            assert_refused(got, bad)
            continue
        canonical = (np.array(labels), dense_ranks(scores),
                     None if weights is None else np.array(weights))
        expected = outcome(function, *canonical)
        if (name == "sliding_window" and weights is not None
                and not isinstance(expected, Exception)):
            # Random treap priorities: with float weights the sums' rounding depends on
            # the shape, so equal to rounding (SlidingWindow with a seed is bit for bit).
            np.testing.assert_allclose(got, expected, rtol=1e-13, atol=1e-15)
            continue
        same(got, expected)
        if name == "auc" and not isinstance(got, Exception):
            expected = brute_auc(labels, scores, weights)
            if weights is None:
                assert got == float(expected)
            else:
                assert got == pytest.approx(float(expected), rel=1e-12, abs=1e-300)
    if not bad:
        twice = outcome(auc_test, odd[0], odd[1], second_scores(list(odd[1])) if isinstance(
            odd[1], (list, tuple)) else odd[1][::-1])
        same(twice, outcome(auc_test, np.array(labels), dense_ranks(scores),
                            dense_ranks(second_scores(scores))))


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")
@given(drawn=arguments())
def test_binned_auc(drawn):
    values, kinds = drawn
    labels, scores, weights, bad = function_meaning(values, kinds, exact_float=True)
    odd = [contain(value, kind) if value is not None else None
           for value, kind in zip(values, kinds, strict=True)]
    got = outcome(binned_auc, odd[0], odd[1], n_bins=5, score_range=(-4.0, 8.0),
                  sample_weight=odd[2])
    if bad:
        assert_refused(got, bad)
        return
    expected = outcome(binned_auc, np.array(labels), np.array(scores, dtype=np.float64),
                       n_bins=5, score_range=(-4.0, 8.0),
                       sample_weight=None if weights is None else np.array(weights))
    same(got, expected)


@given(drawn=arguments(), kind=st.sampled_from(CONTAINERS))
def test_multiclass_auc(drawn, kind):
    values, kinds = drawn
    _, scores, weights, bad = meaning(values, kinds, exact_float=True)
    bad.discard("y_true")  # any hashable labels are classes here
    if scores is None or bad or len(scores) < 2:
        return
    classes = ["b" if index % 2 else "a" for index in range(len(scores))]
    matrix = np.column_stack([-np.array(scores), np.array(scores)])
    got = outcome(multiclass_auc, contain(classes, kind), matrix,
                  sample_weight=None if weights is None else contain(values[2], kinds[2]))
    if kind in ("generator", "2d", "scalar", "masked"):
        assert_refused(got, {"y_true"})
        return
    same(got, outcome(multiclass_auc, np.array(classes), matrix,
                      sample_weight=None if weights is None else np.array(weights)))


@given(entries=st.lists(st.sampled_from([0, 1, 3, 2.5, Fraction(1, 2), 2**60, 1e300, 1.7e308]),
                        min_size=9, max_size=9),
       bad=st.sampled_from([None, -1.0, NAN, INF, "x"]), where=st.integers(0, 8),
       kind=st.sampled_from(["array", "object", "list", "masked", "unmasked", "generator"]),
       corrupt=st.booleans())
def test_crisp_vus(entries, bad, where, kind, corrupt):
    rows = [list(entries[i:i + 3]) for i in (0, 3, 6)]
    if corrupt:
        rows[where // 3][where % 3] = bad
    if kind == "generator":
        confusion = (row for row in rows)
    elif kind == "list":
        confusion = rows
    else:
        array = np.array(rows, dtype=object if kind == "object" else None)
        confusion = (np.ma.array(array, mask=np.eye(3, dtype=bool) & (kind == "masked"))
                     if kind in ("masked", "unmasked") else array)
    got = outcome(crisp_vus, confusion, method="exact")
    invalid = corrupt or kind in ("generator", "masked") or any(
        sum(float(v) for v in row) == 0 for row in rows)
    if invalid:
        assert_refused(got, {"confusion"})
        return
    same(got, outcome(crisp_vus, np.array([[float(v) for v in row] for row in rows]),
                      method="exact"))
    # The rates of a row do not change when it is divided by a power of two (exact): the
    # same VUS from entries far inside the float64 range.
    scaled = [[math.ldexp(float(v), -1000) for v in row] for row in rows]
    assert got.vus == pytest.approx(crisp_vus(scaled, method="exact").vus, rel=1e-12)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@settings(max_examples=150)
@given(labels=st.lists(st.sampled_from([0, 1]), min_size=2, max_size=6),
       data=st.data())
def test_zero_and_decayed_weights_against_independent_values(labels, data):
    """Weights of 0 (absent points) and of 2**-60 k (points a minute apart, half-life 1 s).

    ROC points against scikit-learn's roc_curve, the hull by definition, H against the
    exact rational integral, from scratch and on the structures.
    """
    n = len(labels)
    labels[:2] = [0, 1]
    scores = data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0, 3.0, 1e308, -1e308]),
                                min_size=n, max_size=n))
    weights = data.draw(st.lists(st.sampled_from([0.0, 1.0, 2.0**-60, 2.0**-120, 3.0]),
                                 min_size=n, max_size=n))
    present = [k for k in range(n) if weights[k] > 0]
    sub = [[values[k] for k in present] for values in (labels, scores, weights)]
    if len(set(sub[0])) < 2:
        assert_refused(outcome(h_measure, labels, scores, sample_weight=weights), {"y_true"})
        return
    # (scikit-learn takes differences of the scores: it is given their ranks.)
    fpr, tpr, _ = roc_curve(labels, dense_ranks(scores), sample_weight=weights,
                            drop_intermediate=False)
    vertices = brute_upper_hull(roc_points_exact(*sub))
    exact = float(h_exact(*sub))
    structures = (DynamicAUC(), DynamicH())
    for tracker in structures:
        tracker.add_many(labels, scores, weights)
    for got in (roc_points(labels, scores, sample_weight=weights),
                *(tracker.roc_points() for tracker in structures)):
        np.testing.assert_allclose(got[0], fpr, rtol=1e-13, atol=1e-300)
        np.testing.assert_allclose(got[1], tpr, rtol=1e-13, atol=1e-300)
    got = roc_hull(labels, scores, sample_weight=weights)
    np.testing.assert_allclose(got[0], [float(x) for x, _ in vertices], rtol=1e-13)
    np.testing.assert_allclose(got[1], [float(y) for _, y in vertices], rtol=1e-13)
    assert h_measure(labels, scores, sample_weight=weights) == pytest.approx(exact, abs=1e-12)
    assert hmeasure_report(labels, scores, sample_weight=weights)["H"] == pytest.approx(
        exact, abs=1e-12)
    assert structures[1].h == pytest.approx(exact, abs=1e-12)


# ---------------------------------------------------------------------------
# Structures: every operation either does what the canonical operation does to a
# twin fed canonical input, or is refused and leaves the structure byte-identical.

def readings(tracker):
    return list(registry.readings(tracker).values())


def single_meaning(label, score, weight):
    """The canonical (label, score, weight) of one point, or Invalid."""
    if isinstance(label, (bool, np.bool_)):
        canonical_label = int(label)
    elif is_number(label) and label == -1:
        canonical_label = 0  # one point: -1 is class 0
    else:
        canonical_label = int(label_of(label))
    if isinstance(weight, (bool, np.bool_)):
        raise Invalid
    return canonical_label, score_of(score, True), weight_of(weight)


def stored_exponent(weights, exponent):
    """The structure's scale after adding ``weights`` (its documented rule): the binary
    exponent of the first positive weight since it was last empty; and whether every
    weight lies within 2**400 of it."""
    for weight in weights:
        if exponent is None and weight > 0:
            exponent = math.frexp(weight)[1] - 1
    def stored_fits(weight):
        # weight / 2**exponent = m 2**d, m in [0.5, 1), within [2**-400, 2**400]
        mantissa, power = math.frexp(weight)
        d = power - exponent
        return -399 <= d <= 400 or (d == 401 and mantissa == 0.5)

    fits = all(weight == 0 or stored_fits(weight) for weight in weights)
    return exponent, fits


def takes_or_refuses(call, arguments, bad, tracker, before):
    """Call; True if taken (as it must be when nothing is ``bad``), False if refused with
    a ValueError naming a bad argument and ``tracker`` pickled as ``before``."""
    try:
        call(*arguments)
    except ValueError as error:
        assert bad, f"refused valid input: {error}"
        assert any(name in str(error) for name in bad), (str(error), bad)
        assert pickle.dumps(tracker) == before
        return False
    assert not bad, f"accepted input invalid in {bad}"
    return True


@settings(max_examples=120)
@given(steps=st.lists(st.tuples(st.sampled_from(["add_many", "add", "remove", "remove_many"]),
                                arguments(), st.integers(0, 10**6)), min_size=1, max_size=6),
       which=st.sampled_from(EXACT_WEIGHTED))
def test_structures(steps, which):
    tracker, twin = STRUCTURES[which].make(), STRUCTURES[which].make()
    held = []  # canonical points
    exponent = None
    for operation, (values, kinds), pick in steps:
        before = pickle.dumps(tracker)
        if operation == "add_many":
            labels, scores, weights, bad = meaning(values, kinds, exact_float=True)
            odd = [contain(value, kind) if value is not None else None
                   for value, kind in zip(values, kinds, strict=True)]
            if not bad and scores:
                new_exponent, fits = stored_exponent(
                    [1.0] * len(scores) if weights is None else weights, exponent)
                if not fits:
                    bad = {"sample_weight"}
            if not takes_or_refuses(tracker.add_many, odd, bad, tracker, before):
                continue
            canonical = [np.array(labels), np.array(scores, dtype=np.float64),
                         None if weights is None else np.array(weights)]
            twin.add_many(*canonical)
            ones = [1.0] * len(scores) if weights is None else weights
            held.extend(zip(labels, scores, ones, strict=True))
            if scores:
                exponent = new_exponent
        elif operation == "add":
            labels, scores, weights = values
            point = (labels[0] if labels else None, scores[0] if scores else None,
                     weights[0] if weights else 1.0)
            try:
                expected = single_meaning(*point)
            except Invalid:
                expected = None
            if expected is not None:
                new_exponent, fits = stored_exponent([expected[2]], exponent)
                expected = expected if fits else None
            try:
                tracker.add(*point)
            except ValueError as error:
                assert expected is None, f"refused {point}: {error}"
                assert any(name in str(error) for name in ("y_true", "y_score", "weight"))
                assert pickle.dumps(tracker) == before
                continue
            assert expected is not None, f"accepted {point}"
            twin.add(*expected)
            held.append(expected)
            exponent = new_exponent
        else:
            count = 1 if operation == "remove" else pick % 3 + 1
            if held and pick % 4:
                chosen = [held[(pick + j) % len(held)] for j in range(min(count, len(held)))]
                chosen = list(dict.fromkeys(chosen))
                present = True
            else:
                chosen = [(pick % 2, 123.5 + pick % 3, 1.0)]  # never added
                present = False
            try:
                if operation == "remove":
                    tracker.remove(*chosen[0])
                else:
                    tracker.remove_many(*(np.array(column) for column in zip(*chosen, strict=True)))
            except KeyError as error:
                assert not present, f"refused removing a present point: {error}"
                assert "y_true=" in str(error) and "y_score=" in str(error)
                assert pickle.dumps(tracker) == before
                continue
            assert present
            if operation == "remove":
                twin.remove(*chosen[0])
            else:
                twin.remove_many(*(np.array(column) for column in zip(*chosen, strict=True)))
            for point in chosen:
                held.remove(point)
            if not held:
                exponent = None
        tracker._check()
        np.testing.assert_array_equal(readings(tracker), readings(twin), strict=True)
        if held:
            y = [p[0] for p in held]
            if 0 < sum(y) < len(y) and all(p[2] > 0 for p in held):
                expected = brute_auc(y, [p[1] for p in held], [p[2] for p in held])
                assert tracker.auc == pytest.approx(float(expected), rel=1e-12)


@given(values=arguments(n_min=1), kind=st.sampled_from(CONTAINERS))
def test_structures_refuse_a_weight_far_from_their_scale(values, kind):
    tracker = DynamicAUC()
    tracker.add_many([0, 1], [0.0, 1.0], sample_weight=[1.0, 1.0])
    before = pickle.dumps(tracker)
    (labels, _, _), _ = values
    n = max(1, len(labels))
    weights = contain([2.0**500] * n, kind)
    with pytest.raises(ValueError):
        tracker.add_many([0] * n, [0.5] * n, weights)
    with pytest.raises(ValueError, match="weight"):
        tracker.add(1, 0.5, 2.0**-500)
    assert pickle.dumps(tracker) == before


# The other structures: a batch is taken as its canonical meaning or refused,
# naming a bad argument, with the structure byte-identical.

OTHER_STRUCTURES = {
    **{name: (STRUCTURES[name].make, readings) for name in sorted(STRUCTURES)
       if STRUCTURES[name].keeps_points and name not in EXACT_WEIGHTED},
    # A window of 3 rows with binned and exact AUCs (tests/registry.py).
    "SlidingWindow binned": (STATES["SlidingWindow binned"].make,
                             STATES["SlidingWindow binned"].read),
}


# (BinnedAUC takes the fuzzed scores beyond its score_range with a warning.)
@pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")
@settings(max_examples=200)
@given(batches=st.lists(arguments(), min_size=1, max_size=3),
       name=st.sampled_from(sorted(OTHER_STRUCTURES)))
def test_other_structures_take_or_refuse_a_batch(batches, name):
    make, readings_of = OTHER_STRUCTURES[name]
    tracker, twin = make(), make()
    exponent = None
    for values, kinds in batches:
        labels, scores, weights, bad = meaning(values, kinds, exact_float=True)
        if not bad and scores:
            ones = [1.0] * len(scores) if weights is None else weights
            new_exponent, fits = stored_exponent(ones, exponent)
            unit_only = name in STRUCTURES and not STRUCTURES[name].weighted
            if not fits or (unit_only and any(w != 1.0 for w in ones)):
                bad = {"sample_weight"}
        odd = [contain(value, kind) if value is not None else None
               for value, kind in zip(values, kinds, strict=True)]
        before = pickle.dumps(tracker)
        call = tracker.update if name == "SlidingWindow binned" else tracker.add_many
        if not takes_or_refuses(call, odd, bad, tracker, before):
            continue
        canonical = [np.array(labels, dtype=np.int64), np.array(scores, dtype=np.float64),
                     None if weights is None else np.array(weights)]
        (twin.update if name == "SlidingWindow binned" else twin.add_many)(*canonical)
        if scores:
            exponent = new_exponent
        tracker._check()
        np.testing.assert_array_equal(readings_of(tracker), readings_of(twin), strict=True)
