"""DynamicMulticlassAUC.merge: the union of two point sets, exactly, and its refusals."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from hmeasure_stream import DynamicAUC, DynamicMulticlassAUC, SlidingWindow, multiclass_auc

CLASSES = ["x", "y", "z"]


def _points(draw_size, rng, c=3, weighted=False):
    labels = [CLASSES[k] for k in rng.integers(0, c, draw_size)]
    rows = np.round(rng.random((draw_size, c)), 1)
    weights = rng.choice([0.5, 1.0, 3.0], draw_size) if weighted else None
    return labels, rows, weights


def _tracker(method, labels, rows, weights=None, capacity=1):
    tracker = DynamicMulticlassAUC(CLASSES, method=method, capacity=capacity)
    if labels:
        tracker.add_many(labels, rows, weights)
    return tracker


def _values(tracker, method):
    return tracker.per_class() if method == "ovr" else tracker.pairwise()


@given(st.integers(0, 30), st.integers(0, 30), st.sampled_from(["ovr", "ovo"]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_merge_equals_one_structure_of_all_points(size_a, size_b, method, weighted, seed):
    rng = np.random.default_rng(seed)
    la, ra, wa = _points(size_a, rng, weighted=weighted)
    lb, rb, wb = _points(size_b, rng, weighted=weighted)
    a, b = _tracker(method, la, ra, wa), _tracker(method, lb, rb, wb)
    b_before = pickle.dumps(b)
    a.merge(b)
    a._check()
    assert pickle.dumps(b) == b_before  # other unchanged
    labels, rows = la + lb, np.concatenate([ra, rb])
    weights = None if not weighted else np.concatenate([wa, wb])
    whole = _tracker(method, labels, rows, weights)
    assert len(a) == len(labels)
    np.testing.assert_allclose(a.class_weights, whole.class_weights, rtol=1e-14)
    merged, single = _values(a, method), _values(whole, method)
    assert np.array_equal(np.isnan(merged), np.isnan(single))
    if weighted:
        np.testing.assert_allclose(merged, single, rtol=1e-12, atol=1e-14)
    else:
        np.testing.assert_array_equal(merged, single)  # exact integers underneath
    if all(label in labels for label in CLASSES):
        # Against the from-scratch function (independent of the engines).
        scratch = multiclass_auc(labels, rows, method=method, average=None, classes=CLASSES,
                                 sample_weight=weights)
        np.testing.assert_allclose(merged, scratch, rtol=1e-12, atol=1e-14)
        assert a.auc == pytest.approx(multiclass_auc(labels, rows, method=method,
                                                     classes=CLASSES, sample_weight=weights),
                                      abs=1e-14)
    # Every point of either side can be removed again: counts were carried over.
    if lb:
        a.remove_many(lb, rb, wb)
        a._check()
        assert len(a) == size_a


@pytest.mark.parametrize("method", ["ovr", "ovo"])
def test_larger_other_is_copied_and_smaller_added(rng, method):
    big = _points(3000, rng)
    small = _points(20, rng)
    tracker_small = _tracker(method, *small)
    tracker_big = _tracker(method, *big, capacity=16)
    big_before = pickle.dumps(tracker_big)
    tracker_small.merge(tracker_big)
    assert pickle.dumps(tracker_big) == big_before
    tracker_small._check()
    labels = small[0] + big[0]
    rows = np.concatenate([small[1], big[1]])
    np.testing.assert_array_equal(
        _values(tracker_small, method),
        multiclass_auc(labels, rows, method=method, average=None, classes=CLASSES))
    # It keeps working on its own, independent of the structure it copied.
    tracker_small.remove_many(big[0][:500], big[1][:500])
    tracker_small._check()
    assert pickle.dumps(tracker_big) == big_before
    assert tracker_small.auc == pytest.approx(
        multiclass_auc(labels[:20] + labels[520:], np.concatenate([rows[:20], rows[520:]]),
                       method=method, classes=CLASSES), abs=1e-15)


def test_merge_with_itself_doubles_every_point(rng):
    labels, rows, _ = _points(40, rng)
    tracker = _tracker("ovo", labels, rows)
    tracker.merge(tracker)
    tracker._check()
    assert len(tracker) == 80
    np.testing.assert_array_equal(
        tracker.pairwise(),
        multiclass_auc(labels * 2, np.concatenate([rows, rows]), method="ovo", average=None,
                       classes=CLASSES))


def test_merge_across_averages_keeps_its_own_average(rng):
    la, ra, _ = _points(30, rng)
    lb, rb, _ = _points(30, rng)
    a = DynamicMulticlassAUC(CLASSES, average="weighted")
    a.add_many(la, ra)
    b = DynamicMulticlassAUC(CLASSES, average="macro")
    b.add_many(lb, rb)
    a.merge(b)
    assert a.auc == pytest.approx(multiclass_auc(la + lb, np.concatenate([ra, rb]),
                                                 average="weighted", classes=CLASSES),
                                  abs=1e-15)


@pytest.mark.parametrize("other, message", [
    (DynamicMulticlassAUC(["x", "y", "z"], method="ovo"), "method='ovo' into one with"),
    (DynamicMulticlassAUC(["x", "z", "y"]), "the classes .in column order. must be the same"),
    (DynamicMulticlassAUC(["x", "y"]), "over classes"),
    (DynamicMulticlassAUC(["x", "y", "z", "w"]), "over classes"),
    (DynamicAUC(), "merge takes a DynamicMulticlassAUC, got DynamicAUC"),
    (SlidingWindow(3), "got SlidingWindow"),
    ([("x", [0.1, 0.2, 0.3])], "got list"),
])
def test_refusals_leave_both_byte_identical(rng, other, message):
    labels, rows, _ = _points(25, rng)
    tracker = _tracker("ovr", labels, rows)
    if isinstance(other, DynamicMulticlassAUC):
        k = len(other.classes)
        other.add_many(other.classes, np.eye(k))
    before, other_before = pickle.dumps(tracker), pickle.dumps(other)
    with pytest.raises(ValueError, match=message):
        tracker.merge(other)
    assert pickle.dumps(tracker) == before
    assert pickle.dumps(other) == other_before


def test_numeric_labels_of_another_type_are_refused():
    a = DynamicMulticlassAUC([0, 1, 2])
    b = DynamicMulticlassAUC([0.0, 1.0, 2.0])
    b.add(0.0, [0.5, 0.2, 0.3])
    before = pickle.dumps(a)
    with pytest.raises(ValueError, match="over classes"):
        a.merge(b)
    assert pickle.dumps(a) == before


def test_weights_too_far_apart_are_refused_before_any_change():
    a = DynamicMulticlassAUC(CLASSES)
    a.add_many(CLASSES, np.eye(3), [1.0, 2.0, 3.0])
    b = DynamicMulticlassAUC(CLASSES)
    b.add_many(CLASSES, np.eye(3), [1e-130, 1e-130, 1e-130])
    before, other_before = pickle.dumps(a), pickle.dumps(b)
    with pytest.raises(ValueError, match="2\\*\\*400"):
        a.merge(b)
    assert pickle.dumps(a) == before and pickle.dumps(b) == other_before
