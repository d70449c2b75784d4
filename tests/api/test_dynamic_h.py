import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from machines import PointSetMachine, point_set_test
from strategies import labelled_scores

from hmeasure_stream import (
    ApproxH,
    DynamicAUC,
    DynamicH,
    auc,
    h_measure,
    hmeasure_report,
    roc_hull,
    sliding_window,
)

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def assert_matches(tracker, points, alpha=2.0, beta=2.0, exact=True):
    y = np.array([p[0] for p in points], dtype=int)
    s = np.array([p[1] for p in points], dtype=float)
    w = np.array([p[2] for p in points], dtype=float) if points else np.empty(0)
    if not points or not (w[y == 0].sum() > 0 and w[y == 1].sum() > 0):
        assert np.isnan(tracker.h) and np.isnan(tracker.auch) and np.isnan(tracker.auc)
        return
    expected_h = h_measure(y, s, alpha=alpha, beta=beta, sample_weight=w)
    assert tracker.h == pytest.approx(expected_h, rel=1e-11 if exact else 1e-9, abs=1e-13)
    assert tracker.auch == pytest.approx(
        hmeasure_report(y, s, sample_weight=w)["AUCH"], rel=1e-12, abs=1e-14)
    if exact:
        assert tracker.auc == auc(y, s)
        fpr, tpr = tracker.hull()
        expected_fpr, expected_tpr = roc_hull(y, s)
        np.testing.assert_array_equal(fpr, expected_fpr)
        np.testing.assert_array_equal(tpr, expected_tpr)
    else:
        assert tracker.auc == pytest.approx(auc(y, s, sample_weight=w), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize(("alpha", "beta"), [(2.0, 2.0), (0.6, 3.0), (5.0, 1.2)])
@pytest.mark.parametrize("seed", range(6))
def test_random_sequences_against_from_scratch_checking_every_step(seed, alpha, beta):
    rng = np.random.default_rng(seed)
    distinct = [3, 25, None][seed % 3]
    tracker = DynamicH(alpha, beta, capacity=1)
    points = []
    for _ in range(200):
        if points and rng.random() < 0.45:
            label, score, _ = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score)
        else:
            label = int(rng.integers(2))
            score = float(rng.normal()) if distinct is None else float(rng.integers(distinct))
            tracker.add(label, score)
            points.append((label, score, 1.0))
        tracker._check()
        assert_matches(tracker, points, alpha, beta)
    for label, score, _ in points:
        tracker.remove(label, score)
    tracker._check()
    assert len(tracker) == 0 and np.isnan(tracker.h)


@pytest.mark.parametrize("seed", range(4))
def test_weighted_sequences(seed):
    rng = np.random.default_rng(seed)
    tracker = DynamicH(capacity=1)
    points = []
    for _ in range(150):
        if points and rng.random() < 0.45:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score, weight)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(12))
            weight = float(rng.choice([0.5, 1.0, 2.0, rng.exponential()]))
            tracker.add(label, score, weight)
            points.append((label, score, weight))
        tracker._check()
        assert_matches(tracker, points, exact=False)


def test_severity_ratio_matches_h_measure(rng):
    y, s = rng.integers(0, 2, 300), np.round(rng.normal(size=300), 1)
    for ratio in (0.1, 1.0, 7.0):
        tracker = DynamicH(severity_ratio=ratio)
        tracker.add_many(y, s)
        assert tracker.h == pytest.approx(h_measure(y, s, severity_ratio=ratio), rel=1e-11)


def test_prior_severity_ratio_and_bad_parameters_are_refused():
    with pytest.raises(ValueError, match=r"severity_ratio='prior' make H impossible to maintain exactly"):
        DynamicH(severity_ratio="prior")
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        DynamicH(alpha=0)
    with pytest.raises(ValueError, match="pass either severity_ratio or alpha/beta"):
        DynamicH(alpha=3.0, severity_ratio=2.0)
    with pytest.raises(ValueError, match="capacity must be at least 1"):
        DynamicH(capacity=0)
    with pytest.raises(ValueError, match="undefined while a class is absent"):
        DynamicH().hull()


def test_refusals_leave_the_structure_unchanged():
    tracker = DynamicH()
    tracker.add_many([0, 1, 0, 1, 1], [0.1, 0.5, 0.5, 0.9, 0.9])
    before = pickle.dumps(tracker)
    for call, error in (
        (lambda: tracker.remove(1, 0.1), KeyError),
        (lambda: tracker.remove(0, 0.5, 3.0), KeyError),
        (lambda: tracker.add(2, 0.5), ValueError),
        (lambda: tracker.add(1, float("nan")), ValueError),
        (lambda: tracker.remove_many([1, 1, 1], [0.9, 0.9, 0.9]), KeyError),
        (lambda: tracker.add_many([0, 1], [0.1, np.inf]), ValueError),
    ):
        with pytest.raises(error):
            call()
        assert pickle.dumps(tracker) == before
    tracker._check()


def test_pickle_and_deepcopy_round_trip(rng):
    tracker = DynamicH(alpha=1.5, beta=3.0, capacity=2)
    y, s = rng.integers(0, 2, 400), np.round(rng.normal(size=400), 2)
    tracker.add_many(y, s)
    for duplicate in (lambda t: pickle.loads(pickle.dumps(t)), copy.deepcopy):
        clone = duplicate(tracker)
        clone._check()
        assert (clone.h, clone.auch, clone.auc) == (tracker.h, tracker.auch, tracker.auc)
        more_y, more_s = rng.integers(0, 2, 60), rng.normal(size=60)
        for target in (tracker, clone):
            target.add_many(more_y, more_s)
            target.remove_many(more_y[:30], more_s[:30])
        assert (clone.h, clone.auch, clone.auc) == (tracker.h, tracker.auch, tracker.auc)
        clone._check()


class DynamicHMachine(PointSetMachine):
    def make(self):
        return DynamicH(capacity=1)

    def matches(self, tracker, points, exact):
        assert_matches(tracker, points, exact=exact)


TestDynamicHMachine = point_set_test(DynamicHMachine)


@given(labelled_scores(max_size=50, weighted=True), st.one_of(st.none(), st.integers(1, 60)))
def test_sliding_window_h_and_auch_equal_from_scratch(data, window):
    y, s, w = data
    result = sliding_window(y, s, window, metrics=("h", "auch", "auc"))
    weighted = sliding_window(y, s, window, metrics=("h",), sample_weight=w)
    assert list(result) == ["h", "auch", "auc"]
    for i in range(len(y)):
        part = slice(0 if window is None else max(0, i + 1 - window), i + 1)
        yp, sp, wp = y[part], s[part], w[part]
        if yp.min() == yp.max():
            assert np.isnan(result["h"][i]) and np.isnan(result["auch"][i])
            continue
        assert result["h"][i] == pytest.approx(h_measure(yp, sp), rel=1e-11, abs=1e-13)
        assert result["auch"][i] == pytest.approx(hmeasure_report(yp, sp)["AUCH"], rel=1e-12)
        assert result["auc"][i] == auc(yp, sp)
        assert weighted["h"][i] == pytest.approx(
            h_measure(yp, sp, sample_weight=wp), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("structure", [DynamicAUC, DynamicH, lambda: ApproxH(0.1)])
def test_an_emptied_weighted_structure_returns_to_unit_mode(structure):
    """One emptied-structure rule for every engine: back to exact unit weights."""
    tracker = structure()
    tracker.add(0, 0.3)
    tracker.add(1, 0.7)
    unit_bytes = tracker.nbytes
    tracker.add(1, 0.9, 2.5)  # switches to weighted mode
    assert tracker.nbytes > unit_bytes
    tracker.remove_many([0, 1, 1], [0.3, 0.7, 0.9], sample_weight=[1.0, 1.0, 2.5])
    assert len(tracker) == 0 and tracker.nbytes == unit_bytes
    tracker._check()
    tracker.add(0, 0.5)
    before = pickle.dumps(tracker)
    # Every point present weighs 1: removing another weight is refused, as a missing point.
    with pytest.raises(KeyError, match=r"cannot remove weight 0\.5"):
        tracker.remove(0, 0.5, weight=0.5)
    assert pickle.dumps(tracker) == before
    tracker.remove(0, 0.5)
    assert len(tracker) == 0
