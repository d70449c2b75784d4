"""``pos_label``: any two labels on every entry point, and the warning about inverted scores."""

import enum
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from reference_impl import brute_auc, h_by_integration
from registry import BINARY_FUNCTIONS, FUNCTIONS
from registry import STRUCTURES as REGISTERED_STRUCTURES
from sklearn.metrics import roc_auc_score

import hmeasure_stream as hs
from hmeasure_stream import (
    Classes,
    DynamicAUC,
    InvertedScoresWarning,
    SlidingWindow,
)


class Outcome(enum.Enum):
    CHURN = "churn"
    STAY = "stay"


Y01 = [0, 1, 0, 1, 1, 0, 1, 0, 0, 1]
S = [0.1, 0.8, 0.35, 0.3, 0.9, 0.4, 0.6, 0.2, 0.7, 0.65]
NAMES = ["neg" if y == 0 else "pos" for y in Y01]

# Every from-scratch function of binary labels, and every structure (tests/registry.py).
FROM_SCRATCH = {name: FUNCTIONS[name] for name in BINARY_FUNCTIONS}
STRUCTURES = {name: (structure.make, structure.metric)
              for name, structure in REGISTERED_STRUCTURES.items()}


def same(a, b):
    if isinstance(b, dict):
        assert list(a) == list(b)
        a, b = list(a.values()), list(b.values())
    np.testing.assert_array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float))


@pytest.fixture(autouse=True)
def _quiet_inverted():
    # auc_test's reversed scores have an AUC below 0.5; the warning is tested below.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=InvertedScoresWarning)
        yield


@pytest.mark.parametrize("name", sorted(FROM_SCRATCH))
@pytest.mark.parametrize(
    ("labels", "pos_label"),
    [
        (NAMES, "pos"),
        ([2.5 if y else -7 for y in Y01], 2.5),
        ([Outcome.CHURN if y else Outcome.STAY for y in Y01], Outcome.CHURN),
        (np.array(NAMES, dtype=object), "pos"),
        ([bool(y) for y in Y01], True),
    ],
    ids=["strings", "floats", "enum", "object-array", "bools"],
)
def test_two_labels_equal_their_0_1_encoding(name, labels, pos_label):
    function = FROM_SCRATCH[name]
    same(function(labels, S, pos_label=pos_label), function(Y01, S))


@pytest.mark.parametrize("name", sorted(FROM_SCRATCH))
def test_pos_label_zero_swaps_the_classes(name):
    swapped = [1 - y for y in Y01]
    same(FROM_SCRATCH[name](Y01, S, pos_label=0), FROM_SCRATCH[name](swapped, S))


def test_values_against_independent_references():
    assert hs.auc(NAMES, S, pos_label="pos") == pytest.approx(roc_auc_score(Y01, S), abs=1e-15)
    assert hs.auc(NAMES, S, pos_label="neg") == float(brute_auc([1 - y for y in Y01], S))
    assert hs.h_measure(NAMES, S, pos_label="pos") == pytest.approx(
        h_by_integration(Y01, S, 2.0, 2.0), abs=1e-9)


@pytest.mark.parametrize("name", sorted(FROM_SCRATCH))
def test_minus_one_and_one_read_as_0_1_by_every_from_scratch_function(name):
    signed = np.array([1 if y else -1 for y in Y01], dtype=np.int8)
    same(FROM_SCRATCH[name](signed, S), FROM_SCRATCH[name](Y01, S))
    same(FROM_SCRATCH[name](signed.astype(float).tolist(), S), FROM_SCRATCH[name](Y01, S))


def test_minus_one_and_one_are_accepted_without_pos_label():
    signed = [1 if y else -1 for y in Y01]
    assert hs.auc(signed, S) == hs.auc(Y01, S) == float(brute_auc(Y01, S))
    assert hs.auc(signed, S) == pytest.approx(roc_auc_score(signed, S), abs=1e-15)
    assert hs.h_measure(np.array(signed, dtype=np.int8), S) == hs.h_measure(Y01, S)


@pytest.mark.parametrize("name", sorted(FROM_SCRATCH))
def test_a_third_label_is_named_with_its_position(name):
    labels = list(NAMES)
    labels[6] = "maybe"
    with pytest.raises(ValueError, match=r"y_true must hold two labels, pos_label='pos' \(class 1\) "
                       r"and one other \(class 0, here 'neg'\); found a third, 'maybe', at position 6"):
        FROM_SCRATCH[name](labels, S, pos_label="pos")


@pytest.mark.parametrize(
    ("labels", "message"),
    [
        (NAMES, r"got an array of dtype <U3; it holds the two labels 'neg' and 'pos': pass pos_label="),
        (np.array(NAMES, dtype=object), r"y_true must be numeric; found 'neg' at position 0; it holds the two labels 'neg' and 'pos': pass pos_label"),
        ([2 * y for y in Y01], r"found 2 at position 1 \(and 4 more\); it holds the two labels 0 and 2: pass pos_label"),
        ([y + 1 for y in Y01], r"found 2 at position 1 \(and 4 more\); it holds the two labels 1 and 2: pass pos_label"),
        (["a", "b", "c", *NAMES[3:]], r"got an array of dtype <U3; for other labels pass pos_label="),
    ],
)
def test_other_labels_without_pos_label_ask_for_it(labels, message):
    with pytest.raises(ValueError, match=message):
        hs.auc(labels, S)


@pytest.mark.parametrize(
    ("labels", "pos_label", "message"),
    [
        (["pos", None, *NAMES[2:]], "pos", r"y_true has a missing label \(None\) at position 1"),
        ([1.0, np.nan, 0.0, *Y01[3:]], 1.0, r"y_true has a missing label \(nan\) at position 1"),
        ([1.0, 0.0, np.nan, *Y01[3:]], 1.0, r"y_true has a missing label \(nan\) at position 2"),
        (np.array(["pos", "neg", pd.NA, *NAMES[3:]], dtype=object), "pos",
         r"y_true has a missing label \(<NA>\) at position 2"),
        (pd.Series(["pos", "neg", None, *NAMES[3:]], dtype="string"), "pos",
         r"y_true has a missing label \(<NA>\) at position 2"),
        (NAMES, ["pos"], r"pos_label must be hashable \(a label\), got \['pos'\]"),
        (NAMES, float("nan"), r"pos_label must be a label, got the missing value nan"),
        (["pos"] * 10, "pos", r"only one class is present: y_true has no points of class 0"),
        (NAMES, "POS", r"pos_label='POS' is not a label of y_true, which holds 'neg' and 'pos' \(at position 1\) and perhaps more: pos_label must be one of them"),
        (["neg"] * 10, "pos", r"only one class is present: y_true has no points of class 1"),
    ],
)
def test_missing_labels_and_bad_pos_labels_are_refused(labels, pos_label, message):
    with pytest.raises(ValueError, match=message):
        hs.auc(labels, S, pos_label=pos_label)


# ---------------------------------------------------------------------------
# Structures: pos_label fixed at construction.

def feed(tracker, labels, scores):
    """Adds one by one, in a batch, removes one and a batch: every labelled entry point."""
    tracker.add(labels[0], scores[0])
    tracker.add_many(labels[1:8], scores[1:8])
    tracker.remove(labels[3], scores[3])
    tracker.remove_many(labels[4:6], scores[4:6])
    tracker.add_many(labels[8:], scores[8:])
    return tracker


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
def test_structures_map_labels_as_their_0_1_encoding(kind):
    make, metric = STRUCTURES[kind]
    labelled = feed(make(pos_label="pos"), NAMES, S)
    plain = feed(make(), Y01, S)
    assert getattr(labelled, metric) == getattr(plain, metric)
    assert len(labelled) == len(plain)
    assert labelled.pos_label == "pos" and plain.pos_label is None
    copy = pickle.loads(pickle.dumps(labelled))
    copy.add("neg", 0.5)
    plain.add(0, 0.5)
    assert getattr(copy, metric) == getattr(plain, metric)
    labelled._check()


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
def test_structures_refuse_a_third_label_unchanged(kind):
    make, _ = STRUCTURES[kind]
    tracker = make(pos_label="pos")
    tracker.add_many(["pos", "neg", "pos"], [0.2, 0.4, 0.7])
    calls = [
        (lambda: tracker.add("maybe", 0.5),
         r"y_true must be pos_label='pos' \(class 1\) or the other label 'neg' \(class 0\), got 'maybe'"),
        (lambda: tracker.remove("maybe", 0.4),
         r"got 'maybe'"),
        (lambda: tracker.add_many(["pos", "neg", "maybe"], [0.1, 0.2, 0.3]),
         r"here 'neg'\); found a third, 'maybe', at position 2"),
        (lambda: tracker.remove_many(["maybe"], [0.4]),
         r"found a third, 'maybe', at position 0"),
        (lambda: tracker.add(None, 0.4), r"got None"),
    ]
    for call, message in calls:
        before = pickle.dumps(tracker)
        with pytest.raises(ValueError, match=message):
            call()
        assert pickle.dumps(tracker) == before


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
def test_a_refused_call_does_not_fix_the_class_0_label(kind):
    make, _ = STRUCTURES[kind]
    tracker = make(pos_label="pos")
    tracker.add("pos", 0.3)
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="y_score"):
        tracker.add("neg", float("nan"))
    with pytest.raises(ValueError, match="y_score"):
        tracker.add_many(["neg", "pos"], [0.2, float("inf")])
    with pytest.raises(KeyError):
        tracker.remove("other", 0.3)  # not present: the label "other" is not learned
    assert pickle.dumps(tracker) == before
    tracker.add("other", 0.1)  # so "other" may still become class 0
    with pytest.raises(ValueError, match="got 'neg'"):
        tracker.add("neg", 0.1)


def test_structure_options_are_checked():
    with pytest.raises(ValueError, match="pos_label must be hashable"):
        DynamicAUC(pos_label=["pos"])
    with pytest.raises(ValueError, match="pos_label does not apply to 'multiclass_auc'"):
        SlidingWindow(3, Classes(["a", "b", "c"]), pos_label="a")
    # Without pos_label, every structure takes 0/1, -1/1 or booleans (-1 is class 0).
    with pytest.raises(ValueError, match=r"y_true must be 0/1, -1/1 or a boolean, got 2"):
        DynamicAUC().add(2, 0.5)


SIGNED = [1 if y else -1 for y in Y01]


@pytest.mark.parametrize("kind", sorted(STRUCTURES))
@pytest.mark.parametrize("dtype", [np.int8, np.float64, object])
def test_structures_read_minus_one_and_one_as_0_1(kind, dtype):
    # The same rule as the from-scratch functions: -1 is class 0 (scikit-learn's labels).
    make, metric = STRUCTURES[kind]
    signed = feed(make(), np.array(SIGNED, dtype=dtype), S)
    plain = feed(make(), Y01, S)
    assert getattr(signed, metric) == getattr(plain, metric)
    assert len(signed) == len(plain) > 0
    signed._check()


def test_minus_one_among_zeros_is_a_third_label_in_a_batch():
    tracker = DynamicAUC()
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"y_true must contain only labels 0 and 1 "
                       r"\(or booleans\); found -1 at position 1"):
        tracker.add_many([0, -1, 1], [0.1, 0.2, 0.3])
    assert pickle.dumps(tracker) == before


def test_windows_read_minus_one_and_one_as_0_1():
    expected = hs.sliding_window(Y01, S, 4, ("auc", "h"))
    window = SlidingWindow(4, ("auc", "h"))
    got = np.concatenate([window.update(SIGNED[:5], S[:5])["h"],
                          window.update(np.array(SIGNED[5:], dtype=float), S[5:])["h"]])
    same(got, expected["h"])
    same(hs.sliding_window(SIGNED, S, 4, "auc")["auc"], expected["auc"])


def test_sliding_window_chunks_with_pos_label():
    window = SlidingWindow(4, ("auc", "h"), pos_label="pos")
    first = window.update(NAMES[:6], S[:6])
    second = window.update(NAMES[6:], S[6:])
    expected = hs.sliding_window(Y01, S, 4, ("auc", "h"))
    for metric in ("auc", "h"):
        same(np.concatenate([first[metric], second[metric]]), expected[metric])
    before = pickle.dumps(window)
    with pytest.raises(ValueError, match="found a third, 'x', at position 1"):
        window.update(["pos", "x"], [0.1, 0.2])
    assert pickle.dumps(window) == before


# ---------------------------------------------------------------------------
# The warning about inverted scores.

INVERTED = [1 - y for y in Y01]  # these labels make the scores rank class 0 higher


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: hs.auc(INVERTED, S), "auc"),
        (lambda: hs.auc(INVERTED, S, sample_weight=[1.0] * 10), "auc"),
        (lambda: hs.h_measure(INVERTED, S), "h_measure"),
        (lambda: hs.hmeasure_report(INVERTED, S), "hmeasure_report"),
        (lambda: hs.binned_auc(INVERTED, S), "binned_auc"),
        (lambda: hs.auc_ci(INVERTED, S), "auc_ci"),
        (lambda: hs.auc_ci(INVERTED, S, method="bootstrap", n_boot=10, random_state=0), "auc_ci"),
        (lambda: hs.auc(NAMES, S, pos_label="neg"), "auc"),
    ],
)
def test_auc_below_one_half_warns(call, name):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.warns(InvertedScoresWarning,
                          match=rf"^{name}: the AUC is 0\.2 < 0\.5, so the scores rank class 0 "
                                r"above class 1; perhaps they are the other class's scores"):
            call()


def test_the_value_is_not_flipped_and_the_warning_can_be_silenced():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=InvertedScoresWarning)
        assert hs.auc(INVERTED, S) == float(brute_auc(INVERTED, S)) == 0.2
        assert hs.auc(INVERTED, S) == pytest.approx(roc_auc_score(INVERTED, S), abs=1e-15)
        assert hs.h_measure(INVERTED, S) == hs.h_measure(INVERTED, S)


def test_one_half_and_above_do_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert hs.auc([0, 1, 0, 1], [0.5, 0.5, 0.5, 0.5]) == 0.5
        assert hs.auc(Y01, S) == 0.8
        hs.h_measure(Y01, S)
        # Structures never warn: their value changes with every point.
        tracker = DynamicAUC()
        tracker.add_many(INVERTED, S)
        assert tracker.auc == 0.2


def test_the_warning_is_public():
    assert issubclass(InvertedScoresWarning, UserWarning)
    assert "InvertedScoresWarning" in hs.__all__
