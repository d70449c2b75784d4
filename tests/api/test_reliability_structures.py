"""Refusals that change nothing and threads on every structure (issue 30, items 1-4, 7, 19).

A refused call leaves a structure byte-identical (its pickle before and after);
concurrent use of one structure is refused with the engines' RuntimeError and
never leaves it inconsistent: after threads hammer a structure, ``_check()``
holds and the points held are exactly those of the calls that succeeded,
compared with a from-scratch computation of those points.
"""

import pickle
import threading

import numpy as np
import pytest
from registry import STRUCTURES

import hmeasure_stream as hs

FAR = 2.0 ** -450  # a weight more than 2**400 from 1


def _unchanged(structures, call, error=ValueError, match=None):
    """``call()`` raises ``error`` and leaves every structure byte-identical."""
    before = [pickle.dumps(structure) for structure in structures]
    with pytest.raises(error, match=match):
        call()
    assert [pickle.dumps(structure) for structure in structures] == before
    for structure in structures:
        structure._check()


# ---------------------------------------------------------------------------
# Item 1: merge across weight scales more than 2**400 apart.

@pytest.mark.parametrize("make", [hs.DynamicAUC, hs.DynamicH])
@pytest.mark.parametrize("small_first", [True, False])
def test_merge_across_scales_is_refused(make, small_first):
    unit = make()
    unit.add_many([0, 1], [0.1, 0.9])
    far = make()
    far.add_many([0, 1, 0, 1, 1], [0.2, 0.3, 0.4, 0.5, 0.6], np.full(5, FAR))
    mine, theirs = (unit, far) if small_first else (far, unit)
    _unchanged([mine, theirs], lambda: mine.merge(theirs), match="2\\*\\*400")
    assert (len(unit), len(far)) == (2, 5)


@pytest.mark.parametrize("method", ["ovr", "ovo"])
@pytest.mark.parametrize("unit_first", [True, False])
def test_multiclass_merge_across_scales_is_refused(method, unit_first):
    classes = ["a", "b", "c"]
    rows = [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6]]
    unit = hs.DynamicMulticlassAUC(classes, method=method)
    unit.add_many(classes, rows)  # unit weights: no weights in its points batch
    far = hs.DynamicMulticlassAUC(classes, method=method)
    far.add_many([*classes, "a"], [*rows, [0.5, 0.2, 0.3]], np.full(4, FAR))
    mine, theirs = (unit, far) if unit_first else (far, unit)
    _unchanged([mine, theirs], lambda: mine.merge(theirs), match="2\\*\\*400")


# ---------------------------------------------------------------------------
# Item 2: windows over hull metrics refuse weights out of scale.

@pytest.mark.parametrize("metrics", [("h",), ("auch",), ("auc", "h"), ("h", "auc_binned"),
                                     ("auc",)])
@pytest.mark.parametrize("window", [3, None])
def test_window_refuses_weights_out_of_scale(metrics, window):
    weights = [1.0, 1.0, FAR, 1.0]
    with pytest.raises(ValueError, match="2\\*\\*400"):
        hs.sliding_window([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.4], window, metrics,
                          sample_weight=weights)
    tracker = hs.SlidingWindow(window, metrics)
    first = tracker.update([0, 1], [0.1, 0.9])
    _unchanged([tracker], lambda: tracker.update([0, 1], [0.3, 0.4], [FAR, 1.0]),
               match="2\\*\\*400")
    # The next accepted chunk's values are written, not stale memory.
    values = tracker.update([0, 1], [0.3, 0.4])
    expected = hs.sliding_window([0, 1, 0, 1], [0.1, 0.9, 0.3, 0.4], window, metrics)
    for name, column in values.items():
        np.testing.assert_array_equal(column, expected[name][2:])
        np.testing.assert_array_equal(first[name], expected[name][:2])


def test_window_refused_chunk_leaves_loglog_alpha_unset():
    tracker = hs.SlidingWindow(3, (hs.Binning(n_bins=4, transform="loglog"),))
    _unchanged([tracker], lambda: tracker.update([0, 1], [0.3, 0.4], [1.0, FAR]),
               match="2\\*\\*400")
    values = tracker.update([0, 1, 0], [0.2, 0.7, 0.4])
    np.testing.assert_array_equal(
        values["auc_binned"],
        hs.sliding_window([0, 1, 0], [0.2, 0.7, 0.4], 3,
                          (hs.Binning(n_bins=4, transform="loglog"),))["auc_binned"])


# ---------------------------------------------------------------------------
# Item 3: DynamicMulticlassAUC refuses additions out of scale.

@pytest.mark.parametrize("method", ["ovr", "ovo"])
def test_multiclass_add_out_of_scale_is_refused(method):
    tracker = hs.DynamicMulticlassAUC(["a", "b", "c"], method=method)
    tracker.add("a", [0.1, 0.2, 0.7])
    tracker.add_many(["b", "c"], [[0.3, 0.3, 0.4], [0.2, 0.2, 0.6]])
    _unchanged([tracker], lambda: tracker.add("b", [0.3, 0.3, 0.4], FAR), match="2\\*\\*400")
    _unchanged([tracker], lambda: tracker.add_many(["b", "a"], [[0.3, 0.3, 0.4]] * 2,
                                                   [1.0, FAR]),
               match="position 1")
    tracker.remove("a", [0.1, 0.2, 0.7])
    assert len(tracker) == 2


# ---------------------------------------------------------------------------
# Item 7: BinnedAUC's points outside the range and the log-log alpha.

def test_binned_remove_never_added_point_outside_the_range():
    tracker = hs.BinnedAUC(4)
    tracker.add_many([0, 1], [0.1, 0.9])
    _unchanged([tracker], lambda: tracker.remove(1, 5.0), KeyError, "above")
    _unchanged([tracker], lambda: tracker.remove_many([1], [5.0]), KeyError, "above")
    _unchanged([tracker], lambda: tracker.remove(0, -5.0), KeyError, "below")
    with pytest.warns(hs.OutOfRangeScoresWarning, match=r"the score 5\.0 lies outside"):
        tracker.add(1, 5.0)
    tracker.remove(1, 5.0)
    assert (tracker.result().n_below, tracker.result().n_above) == (0, 0)


def test_binned_refused_remove_leaves_loglog_alpha_unset():
    tracker = hs.BinnedAUC(4, transform="loglog")
    _unchanged([tracker], lambda: tracker.remove_many([0, 1], [0.5, 0.7]), KeyError)
    assert tracker.loglog_alpha is None
    tracker.add_many([0, 1, 0], [0.2, 0.7, 0.4])
    assert tracker.loglog_alpha == hs.binned_auc([0, 1, 0], [0.2, 0.7, 0.4], n_bins=4,
                                                 transform="loglog").loglog_alpha


# ---------------------------------------------------------------------------
# Items 4 and 19: threads on every structure.

def _guard_error(error):
    return isinstance(error, RuntimeError) and "another thread" in str(error)


def _hammer(operations_of_thread, threads=4):
    """Run each thread's operations (callables) at once; returns, per thread, whether
    each call succeeded (True) or met the guard (False).  Anything else fails."""
    outcomes = [[] for _ in range(threads)]
    errors = []
    barrier = threading.Barrier(threads)

    def run(index):
        barrier.wait()
        for operation in operations_of_thread(index, outcomes[index]):
            try:
                operation()
                outcomes[index].append(True)
            except Exception as error:  # (only the guard's refusal is allowed)
                if not _guard_error(error):
                    errors.append(error)
                    return
                outcomes[index].append(False)

    workers = [threading.Thread(target=run, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert not errors, errors
    return outcomes


def _binary_batches(index, n=20000, rounds=3):
    """Thread ``index``'s batches: its own scores, so that the points are its own."""
    rng = np.random.default_rng(index)
    batches = []
    for _ in range(rounds):
        y = rng.integers(0, 2, n)
        batches.append((y, index + (rng.random(n) + y) * 0.25))  # within [index, index + 0.5)
    return batches


def _operations(tracker, batches, singles, outcomes):
    """add_many of each batch, remove_many of its even rows if it was taken, then the
    single points; ``outcomes`` gets each call's outcome before the next is made."""
    for labels, scores in batches:
        yield lambda labels=labels, scores=scores: tracker.add_many(labels, scores)
        if outcomes[-1]:
            yield lambda labels=labels, scores=scores: tracker.remove_many(labels[::2],
                                                                           scores[::2])
        for label, score in singles:
            yield lambda label=label, score=score: tracker.add(label, score)


def _held(outcomes, batches, singles):
    """The points (labels, scores) that the successful calls of ``_operations`` leave."""
    taken = iter(outcomes)
    labels, scores = [], []
    for batch_labels, batch_scores in batches:
        if next(taken):
            keep = np.ones(batch_labels.size, dtype=bool)
            if next(taken):
                keep[::2] = False
            labels.append(batch_labels[keep])
            scores.append(batch_scores[keep])
        for label, score in singles:
            if next(taken):
                labels.append(np.array([label]))
                scores.append(np.array([score]))
    assert next(taken, None) is None
    return labels, scores


def _binary_singles(index):
    return [(k % 2, index + 0.75 + k / 1000) for k in range(20)]


KEEPING = sorted(name for name, structure in STRUCTURES.items() if structure.keeps_points)


# (Threads 2 and 3 feed BinnedAUC scores beyond its score_range on purpose, and whether
# one of their batches gets past the guard depends on the interleaving: the warning is
# ignored so that the outcome cannot depend on the schedule.)
@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")
@pytest.mark.parametrize("name", KEEPING)
def test_threads_on_binary_structures(name):
    tracker = STRUCTURES[name].make()
    outcomes = _hammer(lambda index, outcomes: _operations(
        tracker, _binary_batches(index), _binary_singles(index), outcomes))
    tracker._check()
    parts = [_held(outcomes[index], _binary_batches(index), _binary_singles(index))
             for index in range(4)]
    y = np.concatenate([piece for labels, _ in parts for piece in labels])
    s = np.concatenate([piece for _, scores in parts for piece in scores])
    assert len(tracker) == y.size
    if name == "BinnedAUC":
        result, expected = tracker.result(), hs.binned_auc(y, s, n_bins=8,
                                                           score_range=(-2.0, 2.0))
        np.testing.assert_array_equal(result.counts_neg, expected.counts_neg)
        np.testing.assert_array_equal(result.counts_pos, expected.counts_pos)
        assert (result.n_below, result.n_above) == (expected.n_below, expected.n_above)
        return
    assert (tracker.weight_neg, tracker.weight_pos) == (float(np.sum(y == 0)), float(np.sum(y == 1)))
    if name.startswith("Dynamic"):
        assert tracker.auc == hs.auc(y, s)


@pytest.mark.parametrize("metrics", [("auc",), ("h", "auc_binned"), ("auc_approx",)])
def test_threads_on_sliding_window(metrics):
    if "auc_approx" in metrics:
        metrics = (*metrics, hs.Compression(compression=0.1))
    tracker = hs.SlidingWindow(None, metrics=metrics)
    batches = {index: _binary_batches(index) for index in range(4)}

    def operations(index, outcomes):
        for y, s in batches[index]:
            yield lambda y=y, s=s: tracker.update(y, s / 4)

    outcomes = _hammer(operations)
    tracker._check()
    taken = [batch for index in range(4)
             for batch, ok in zip(batches[index], outcomes[index], strict=True) if ok]
    y = np.concatenate([batch[0] for batch in taken])
    s = np.concatenate([batch[1] for batch in taken]) / 4
    assert len(tracker) == y.size
    if metrics == ("auc",):
        assert tracker["auc"] == hs.auc(y, s)
    if "h" in metrics:
        assert tracker["h"] == pytest.approx(hs.h_measure(y, s), rel=1e-12)


@pytest.mark.parametrize("method", ["ovr", "ovo"])
def test_threads_on_multiclass(method):
    classes = [0, 1, 2]
    tracker = hs.DynamicMulticlassAUC(classes, method=method)

    def batches(index, n=3000, rounds=3):
        rng = np.random.default_rng(index)
        labels = [rng.integers(0, 3, n) for _ in range(rounds)]
        return [(y, index + (rng.random((n, 3)) + np.eye(3)[y]) * 0.25) for y in labels]

    def singles(index):
        return [(k % 3, [index + 0.8 + k / 100] * 3) for k in range(10)]

    outcomes = _hammer(lambda index, outcomes: _operations(tracker, batches(index),
                                                           singles(index), outcomes))
    tracker._check()
    parts = [_held(outcomes[index], batches(index), singles(index)) for index in range(4)]
    labels = np.concatenate([piece for labels, _ in parts for piece in labels])
    rows = np.concatenate([piece for _, rows in parts for piece in rows])
    assert len(tracker) == labels.size
    assert tracker.class_weights.tolist() == np.bincount(labels, minlength=3).tolist()
    assert tracker.auc == pytest.approx(hs.multiclass_auc(labels, rows, method=method),
                                        rel=1e-12)


def test_threads_on_multiclass_window():
    tracker = hs.SlidingWindow(None, metrics=(hs.Classes(classes=[0, 1, 2], method="ovo"),))

    def batch(index, n=2000):
        rng = np.random.default_rng(index)
        labels = rng.integers(0, 3, n)
        return labels, index + (rng.random((n, 3)) + np.eye(3)[labels]) * 0.25

    outcomes = _hammer(lambda index, outcomes: [lambda: tracker.update(*batch(index))])
    tracker._check()
    taken = [batch(index) for index in range(4) if outcomes[index][0]]
    assert len(tracker) == sum(labels.size for labels, _ in taken)


def test_threads_remove_many_reports_no_false_absence():
    # Item 19: the presence check runs under the claim, so a removal of points that are
    # there is taken or refused as concurrent use, never as "not present".
    tracker = hs.DynamicAUC()
    # Among the scores of the other thread's batches: their blocks split and merge.
    mine = (np.array([0, 1] * 50), np.linspace(7.0, 7.5, 100) + 1e-7)
    tracker.add_many(*mine)
    other = _binary_batches(7, n=20000, rounds=1)[0]
    errors = []

    def taken(call, batch):
        """Whether ``call(*batch)`` succeeded (False: refused as concurrent use)."""
        try:
            call(*batch)
            return True
        except Exception as error:  # (only the guard's refusal is allowed)
            if not _guard_error(error):
                errors.append(error)
                raise
            return False

    def churn():
        for _ in range(20):
            if errors:
                return
            if taken(tracker.add_many, other):
                while not taken(tracker.remove_many, other):
                    pass

    worker = threading.Thread(target=churn)
    worker.start()
    try:
        while worker.is_alive():
            # (Retrying a refused call may wait for the other thread to finish: the
            # claim refuses, it does not queue.)
            if taken(tracker.remove_many, mine):
                while not taken(tracker.add_many, mine):
                    pass
    finally:
        worker.join()
    assert not errors, errors
    tracker._check()
    assert len(tracker) == 100
    assert tracker.auc == hs.auc(*mine)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_threads_binned_batches_lose_nothing():
    # Item 4: long batches (the bins' compiled loop runs without the GIL) at once.
    tracker = hs.BinnedAUC(64)
    rng = np.random.default_rng(0)
    y, s = rng.integers(0, 2, 200000), rng.random(200000)
    outcomes = _hammer(lambda index, outcomes: [lambda: tracker.add_many(y, s)] * 3, threads=2)
    tracker._check()
    taken = sum(sum(outcome) for outcome in outcomes)
    assert len(tracker) == taken * y.size
    expected = hs.binned_auc(y, s, n_bins=64)
    np.testing.assert_array_equal(tracker.result().counts_neg, taken * expected.counts_neg)
    np.testing.assert_array_equal(tracker.result().counts_pos, taken * expected.counts_pos)
