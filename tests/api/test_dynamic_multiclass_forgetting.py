"""DynamicMulticlassAUC with ``window=`` and ``half_life=``, as DynamicAUC takes them: after
every batch its AUC is ``multiclass_auc`` from scratch of the points the window holds,
weighted 2^(-age / half_life)."""

import itertools
import pickle

import numpy as np
import pytest

from hmeasure_stream import DynamicMulticlassAUC, multiclass_auc

CLASSES = ["cat", "dog", "emu"]
SECOND = 10**9


def _stream(n, seed):
    rng = np.random.default_rng(seed)
    codes = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    scores = np.round(rng.random((n, 3)) + 0.6 * np.eye(3)[codes], 1)  # with ties
    times = np.cumsum(rng.integers(0, 3, n)) * SECOND
    return np.array(CLASSES, dtype=object)[codes], scores, times


def _from_scratch(labels, scores, ages, window, half_life, average, held_by_time=None):
    held = np.ones(labels.shape[0], dtype=bool)
    if window is not None:
        held[:-window] = False
    if held_by_time is not None:
        held &= held_by_time
    weights = None
    if half_life is not None:
        held &= ages <= 60 * half_life
        weights = 2.0 ** (-ages[held] / half_life)
    if len(set(labels[held])) < 3:
        return np.nan
    return multiclass_auc(labels[held], scores[held], classes=CLASSES, average=average,
                          sample_weight=weights)


@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize(("window", "half_life", "timed"), [
    (25, None, False), (None, 6.5, False), (40, 9.0, False), (None, "4s", True),
    ("30s", None, True), ("30s", "7s", True)])
def test_auc_is_multiclass_auc_of_the_window(average, window, half_life, timed):
    labels, scores, times = _stream(600, 3)
    tracker = DynamicMulticlassAUC(CLASSES, average=average, window=window,
                                   half_life=half_life)
    rng = np.random.default_rng(5)
    cuts = np.cumsum(rng.integers(1, 9, 200))
    cuts = [0, *cuts[cuts < labels.shape[0]].tolist(), labels.shape[0]]
    in_seconds = {"4s": 4.0, "7s": 7.0}.get(half_life, half_life)
    for start, stop in itertools.pairwise(cuts):
        chunk_times = times[start:stop].astype("datetime64[ns]") if timed else None
        if stop - start == 1:
            tracker.add(labels[start], scores[start],
                        time=None if chunk_times is None else chunk_times[0])
        else:
            tracker.add_many(labels[start:stop], scores[start:stop], times=chunk_times)
        seen = slice(0, stop)
        ages = ((times[stop - 1] - times[seen]) / SECOND if timed
                else np.arange(stop)[::-1].astype(float))
        by_time = (times[stop - 1] - times[seen] < 30 * SECOND) if window == "30s" else None
        expected = _from_scratch(labels[seen], scores[seen], ages,
                                 window if isinstance(window, int) else None, in_seconds,
                                 average, by_time)
        np.testing.assert_allclose(tracker.auc, expected, rtol=1e-12, atol=0)
    assert tracker._check()
    copy = pickle.loads(pickle.dumps(tracker))
    assert copy.auc == tracker.auc and len(copy) == len(tracker)


def test_window_and_half_life_read_back():
    tracker = DynamicMulticlassAUC(CLASSES, window=10, half_life=2.5)
    assert (tracker.window, tracker.half_life) == (10, 2.5)
    timed = DynamicMulticlassAUC(CLASSES, window="1h", half_life="10min")
    assert timed.window == np.timedelta64(3600 * SECOND, "ns")
    assert timed.half_life == np.timedelta64(600 * SECOND, "ns")


def test_class_weights_are_the_decayed_weights_of_the_window():
    labels, scores, _ = _stream(200, 8)
    tracker = DynamicMulticlassAUC(CLASSES, window=50, half_life=10.0)
    tracker.add_many(labels, scores)
    ages = np.arange(200)[::-1].astype(float)
    weights = np.where(ages < 50, 2.0 ** (-ages / 10.0), 0.0)
    expected = [weights[labels == name].sum() for name in CLASSES]
    np.testing.assert_allclose(tracker.class_weights, expected, rtol=1e-12)
    assert len(tracker) == 50


def test_a_duration_needs_times_and_a_refusal_changes_nothing():
    labels, scores, _ = _stream(20, 9)
    tracker = DynamicMulticlassAUC(CLASSES, window="1h")
    tracker.add_many(labels[:10], scores[:10], times=np.arange(10) * SECOND)
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match="times is required"):
        tracker.add_many(labels[10:], scores[10:])
    with pytest.raises(ValueError, match="must not go backwards"):
        tracker.add_many(labels[10:12], scores[10:12], times=[0, 1])
    with pytest.raises(ValueError, match="remove"):
        tracker.remove(labels[0], scores[0])
    with pytest.raises(ValueError, match="merge"):
        tracker.merge(DynamicMulticlassAUC(CLASSES))
    assert pickle.dumps(tracker) == before


def test_times_are_checked_without_a_window():
    tracker = DynamicMulticlassAUC(CLASSES)
    with pytest.raises(ValueError, match="times"):
        tracker.add_many(["cat", "dog"], [[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]], times=[1.0])
    assert len(tracker) == 0


def test_one_vs_one_with_a_window_is_refused():
    with pytest.raises(ValueError, match="are for method='ovr'"):
        DynamicMulticlassAUC(CLASSES, method="ovo", window=10)
    with pytest.raises(ValueError, match="half_life"):
        DynamicMulticlassAUC(CLASSES, half_life=0)
