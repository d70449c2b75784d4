"""merge() of DynamicAUC and DynamicH: the union of two point sets, exactly."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import brute_auc, h_by_integration
from strategies import labelled_scores

from hmeasure_stream import (
    ApproxH,
    DynamicAUC,
    DynamicH,
    SlidingWindow,
    auc,
    h_measure,
    roc_hull,
)

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def _tracker(kind, y, s, w=None, **options):
    tracker = kind(capacity=1, **options)
    tracker.add_many(y, s, w)
    return tracker


@given(labelled_scores(max_size=25), labelled_scores(max_size=25))
def test_dynamic_auc_merge_is_the_union(first, second):
    (y1, s1), (y2, s2) = first, second
    a = _tracker(DynamicAUC, y1, s1)
    b = _tracker(DynamicAUC, y2, s2)
    b_before = pickle.dumps(b)
    a.merge(b)
    a._check()
    assert pickle.dumps(b) == b_before  # other unchanged
    y, s = [*y1, *y2], [*s1, *s2]
    assert len(a) == len(y)
    assert a.weight_neg == sum(1 for v in y if v == 0)
    if 0 < sum(y) < len(y):
        assert a.auc == float(brute_auc(y, s))
    # Every point of either side can be removed again: counts were carried over.
    a.remove_many(y2, s2)
    a._check()
    assert len(a) == len(y1)


@given(labelled_scores(weighted=True, max_size=20), labelled_scores(weighted=True, max_size=20))
def test_weighted_merge_keeps_counts_and_weights(first, second):
    (y1, s1, w1), (y2, s2, w2) = first, second
    a = _tracker(DynamicAUC, y1, s1, w1)
    b = _tracker(DynamicAUC, y2, s2, w2)
    a.merge(b)
    a._check()
    y, s, w = [*y1, *y2], [*s1, *s2], [*w1, *w2]
    assert len(a) == len(y)
    w0 = sum(wi for yi, wi in zip(y, w, strict=True) if yi == 0)
    w1_total = sum(wi for yi, wi in zip(y, w, strict=True) if yi == 1)
    assert a.weight_neg == pytest.approx(w0, rel=1e-12, abs=1e-12)
    if w0 > 0 and w1_total > 0:
        assert a.auc == pytest.approx(float(brute_auc(y, s, w)), rel=1e-12, abs=1e-15)
    # The points of b can be removed one by one with their own weights.
    for label, score, weight in zip(y2, s2, w2, strict=True):
        a.remove(label, score, weight)
    a._check()
    assert len(a) == len(y1)


@given(labelled_scores(max_size=20), labelled_scores(max_size=20),
       st.sampled_from([(2.0, 2.0), (3.0, 1.5)]))
def test_dynamic_h_merge_equals_h_of_the_union(first, second, shape):
    (y1, s1), (y2, s2) = first, second
    alpha, beta = shape
    a = _tracker(DynamicH, y1, s1, alpha=alpha, beta=beta)
    b = _tracker(DynamicH, y2, s2, alpha=alpha, beta=beta)
    a.merge(b)
    a._check()
    y, s = [*y1, *y2], [*s1, *s2]
    if 0 < sum(y) < len(y):
        assert a.h == pytest.approx(h_by_integration(y, s, alpha, beta), abs=1e-9)
        fpr, tpr = a.hull()
        fpr_ref, tpr_ref = roc_hull(y, s)
        np.testing.assert_array_equal(fpr, fpr_ref)
        np.testing.assert_array_equal(tpr, tpr_ref)


def test_larger_other_is_copied_and_smaller_added(rng):
    y_big, s_big = rng.integers(0, 2, 5000), np.round(rng.normal(size=5000), 2)
    y_small, s_small = rng.integers(0, 2, 30), np.round(rng.normal(size=30), 2)
    for kind in (DynamicAUC, DynamicH):
        small = _tracker(kind, y_small, s_small)
        big = _tracker(kind, y_big, s_big)
        big_before = pickle.dumps(big)
        small.merge(big)
        assert pickle.dumps(big) == big_before
        small._check()
        y, s = np.concatenate([y_small, y_big]), np.concatenate([s_small, s_big])
        assert small.auc == auc(y, s)
        assert len(small) == len(y)
        if kind is DynamicH:
            assert small.h == pytest.approx(h_measure(y, s), abs=1e-9)
        # It keeps working as a structure of its own.
        small.remove_many(y_big[:100], s_big[:100])
        small._check()
        assert small.auc == auc(y[130:].tolist() + y_small.tolist(),
                                s[130:].tolist() + s_small.tolist())


def test_merge_across_kinds_and_self(rng):
    y, s = rng.integers(0, 2, 200), np.round(rng.normal(size=200), 1)
    h = _tracker(DynamicH, y[:120], s[:120])
    plain = _tracker(DynamicAUC, y[120:], s[120:])
    h.merge(plain)
    assert h.h == pytest.approx(h_measure(y, s), abs=1e-9)
    plain.merge(h)  # a DynamicAUC takes the points of a DynamicH
    assert plain.auc == auc(np.concatenate([y, y[120:]]), np.concatenate([s, s[120:]]))
    approx = ApproxH(0.1, priors=(0.5, 0.5))
    approx.add_many(y, s)
    doubled = _tracker(DynamicAUC, y, s)
    doubled.merge(approx)
    doubled.merge(DynamicAUC())  # an empty structure adds nothing
    assert doubled.auc == auc(np.concatenate([y, y]), np.concatenate([s, s]))
    itself = _tracker(DynamicAUC, y, s)
    itself.merge(itself)
    assert len(itself) == 400 and itself.auc == auc(y, s)


def test_refusals_leave_both_unchanged(rng):
    y, s = rng.integers(0, 2, 50), rng.normal(size=50)
    h = _tracker(DynamicH, y, s)
    other = _tracker(DynamicH, y, s, severity_ratio=0.5)
    approx = ApproxH(0.1)
    approx.add_many(y, s)
    before = pickle.dumps(h), pickle.dumps(other)
    with pytest.raises(ValueError, match=r"cannot merge a DynamicH with Beta\(2.0, 3.0\) into "
                                         r"one with Beta\(2.0, 2.0\)"):
        h.merge(other)
    with pytest.raises(ValueError, match="cannot merge an ApproxH into a DynamicH"):
        h.merge(approx)
    with pytest.raises(ValueError, match="merge takes a DynamicH or a DynamicAUC, got "
                                         "SlidingWindow"):
        h.merge(SlidingWindow(10))
    assert (pickle.dumps(h), pickle.dumps(other)) == before
    a = _tracker(DynamicAUC, y, s)
    a_before = pickle.dumps(a)
    with pytest.raises(ValueError, match="merge takes a DynamicAUC, DynamicH or ApproxH"):
        a.merge([(0, 0.5)])
    assert pickle.dumps(a) == a_before


@pytest.mark.parametrize("kind", [DynamicAUC, DynamicH])
def test_merge_with_pos_label_learns_and_checks_labels(kind):
    spam = kind(pos_label="spam")
    spam.add_many(["spam", "ham", "spam"], [0.9, 0.2, 0.4])
    fresh = kind(pos_label="spam")
    fresh.add_many(["spam"], [0.7])  # no class 0 label learned yet
    fresh.merge(spam)
    # The union's AUC, from scratch on 0/1 labels: class 1 = "spam".
    assert fresh.auc == auc([1, 1, 0, 1], [0.7, 0.9, 0.2, 0.4])
    # The class 0 label learned from the other structure is kept: a third label is refused.
    with pytest.raises(ValueError, match="'eggs'"):
        fresh.add("eggs", 0.5)
    fresh.add("ham", 0.5)
    assert len(fresh) == 5


@pytest.mark.parametrize("kind", [DynamicAUC, DynamicH])
@pytest.mark.parametrize(
    ("mine", "theirs", "message"),
    [
        ({"pos_label": "spam"}, {}, "different pos_label: 'spam' and None"),
        ({}, {"pos_label": 1}, "different pos_label: None and 1"),
        ({"pos_label": "spam"}, {"pos_label": "ham"}, "different pos_label: 'spam' and 'ham'"),
    ],
)
def test_merge_refuses_other_pos_label(kind, mine, theirs, message):
    first, second = kind(**mine), kind(**theirs)
    first.add_many([mine.get("pos_label", 1)] * 2, [0.3, 0.6])
    second.add_many([theirs.get("pos_label", 1)], [0.5])
    before = pickle.dumps(first), pickle.dumps(second)
    with pytest.raises(ValueError, match=message):
        first.merge(second)
    assert (pickle.dumps(first), pickle.dumps(second)) == before


@pytest.mark.parametrize("kind", [DynamicAUC, DynamicH])
def test_merge_refuses_other_class_0_label(kind):
    first, second = kind(pos_label="spam"), kind(pos_label="spam")
    first.add_many(["spam", "ham"], [0.6, 0.2])
    second.add_many(["spam", "eggs"], [0.5, 0.4])
    before = pickle.dumps(first), pickle.dumps(second)
    with pytest.raises(ValueError, match="class 0 label is 'ham' here and 'eggs' in the other"):
        first.merge(second)
    assert (pickle.dumps(first), pickle.dumps(second)) == before
