"""The compressed-list engine: the estimate is Eq. 5 of its list, the checker only reads
and catches a corrupted structure."""

import pickle
from fractions import Fraction

import numpy as np
import pytest

from hmeasure_stream import ApproxAUC


def eq5_estimate(y, s, compressed_keys, flip):
    """The paper's Eq. 5 from the points and the scores kept in C, in Fractions.

    Written from the proof of Prop. 1, not from Alg. 4: a point of the other
    class at a score kept in C counts the listed points below it and half of
    those at it; anywhere else it counts the average of hp(u) + p(u) and hp(w)
    for the kept scores u below and w above it (the sentinels -inf and +inf
    when there is none).
    """
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    listed_label = 1 if flip else 0
    listed = np.sort(s[y == listed_label])
    others = s[y != listed_label]
    kept = sorted(compressed_keys)

    def below(t):
        return int(np.searchsorted(listed, t, "left"))

    def through(t):
        return int(np.searchsorted(listed, t, "right"))

    total = Fraction(0)
    for t in others.tolist():
        if t in kept:
            total += Fraction(below(t) + through(t), 2)
            continue
        lower = [k for k in kept if k < t]
        upper = [k for k in kept if k > t]
        start = through(lower[-1]) if lower else 0
        end = below(upper[0]) if upper else len(listed)
        total += Fraction(start + end, 2)
    estimate = total / (len(listed) * len(others))
    return 1 - estimate if flip else estimate


@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
@pytest.mark.parametrize("epsilon", [0.01, 0.3, 1.0, 5.0])
def test_estimate_is_eq5_of_the_maintained_list(epsilon, relative_to):
    rng = np.random.default_rng(int(epsilon * 100) + len(relative_to))
    tracker = ApproxAUC(epsilon, relative_to=relative_to, capacity=1)
    points = []
    for step in range(600):
        if points and rng.random() < 0.4:
            label, score = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score)
        else:
            label = int(rng.random() < 0.3)
            score = float(rng.integers(0, 40)) if step % 2 else float(rng.normal())
            tracker.add(label, score)
            points.append((label, score))
        if step % 7 == 0 and points:
            y = [p[0] for p in points]
            s = [p[1] for p in points]
            if 0 < sum(y) < len(y):
                keys = tracker._engine.compressed_keys()
                assert len(keys) == tracker.compressed_size
                assert tracker.auc == float(eq5_estimate(y, s, keys.tolist(),
                                                         relative_to == "1-auc"))


def fresh(relative_to="auc"):
    rng = np.random.default_rng(21)
    tracker = ApproxAUC(0.2, relative_to=relative_to, capacity=1, seed=2)
    y, s = rng.integers(0, 2, 400), np.round(rng.normal(size=400), 1)
    tracker.add_many(y, s)
    for label, score in zip(y[:50], s[:50], strict=True):
        tracker.remove(int(label), float(score))
    return tracker


@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
def test_check_only_reads(relative_to):
    tracker = fresh(relative_to)
    before = pickle.dumps(tracker)
    assert tracker._check()
    assert pickle.dumps(tracker) == before


def second_entry(engine):
    """A list entry of C after the head's successor (a real node with a gap)."""
    first = int(engine.c_next_buffer[0])
    return first, int(engine.c_next_buffer[first])


@pytest.mark.parametrize("corruption", ["gap_p", "gap_c_listed", "gap_c_other", "c_link",
                                        "p_back_link", "counter", "stray_entry", "eq4",
                                        "treap_sum"])
def test_check_detects_a_corrupted_list(corruption):
    tracker = fresh()
    engine = tracker._engine
    first, second = second_entry(engine)
    if corruption == "gap_p":
        engine.gap_other_p_buffer[first] += 1
        message = r"gn\(v; P\)"
    elif corruption == "gap_c_listed":
        engine.gap_listed_c_buffer[first] -= 1
        message = "gaps of entry"
    elif corruption == "gap_c_other":
        engine.gap_other_c_buffer[second] += 1
        message = "gaps of entry"
    elif corruption == "c_link":
        # Skip an entry of C: the gaps no longer match, or Eq. 3 fails.
        engine.c_next_buffer[first] = engine.c_next_buffer[second]
        message = "gaps of entry|Eq. 3|the counter"
    elif corruption == "p_back_link":
        following = int(engine.p_next_buffer[first])
        engine.p_prev_buffer[following] = 0
        message = "back link"
    elif corruption == "counter":
        engine_counter_mismatch = tracker.compressed_size + 1
        # The counter is read-only from Python: corrupt it through pickling's state.
        state = list(engine.__reduce__()[1])
        state[6] = engine_counter_mismatch
        tracker._engine = engine.__reduce__()[0](*state)
        message = "the counter says"
    elif corruption == "stray_entry":
        # An entry outside C (and P) with a link.
        free = int(np.flatnonzero(engine.c_next_buffer == -2)[-1])
        engine.c_next_buffer[free] = 1
        message = "outside C"
    elif corruption == "eq4":
        # Put the next entry of P into C, with correct gaps: only Eq. 4 can tell.
        candidates = [entry for entry in range(2, len(engine.p_next_buffer))
                      if engine.c_next_buffer[entry] >= 0
                      and engine.c_next_buffer[engine.p_next_buffer[entry]] == -2]
        entry = candidates[-1]
        following = int(engine.p_next_buffer[entry])
        listed = engine.tree.field("count_neg")[entry - 2]
        engine.gap_listed_c_buffer[following] = engine.gap_listed_c_buffer[entry] - listed
        engine.gap_other_c_buffer[following] = (engine.gap_other_c_buffer[entry]
                                                - engine.gap_other_p_buffer[entry])
        engine.gap_listed_c_buffer[entry] = listed
        engine.gap_other_c_buffer[entry] = engine.gap_other_p_buffer[entry]
        engine.c_next_buffer[following] = engine.c_next_buffer[entry]
        engine.c_next_buffer[entry] = following
        state = list(engine.__reduce__()[1])
        state[6] += 1
        tracker._engine = engine.__reduce__()[0](*state)
        message = "Eq. 4 fails"
    else:
        engine.tree.field("subtree_neg")[engine.tree.root] += 1.0
        message = "stale class 0 subtree aggregate"
    with pytest.raises(AssertionError, match=message):
        tracker._check()


def test_engine_pickle_round_trip_continues_identically():
    tracker = fresh("1-auc")
    clone = pickle.loads(pickle.dumps(tracker))
    clone._check()
    rng = np.random.default_rng(4)
    y, s = rng.integers(0, 2, 200), np.round(rng.normal(size=200), 1)
    for target in (tracker, clone):
        target.add_many(y, s)
        target.remove_many(y[:150], s[:150])
    assert clone.auc == tracker.auc
    assert clone.compressed_size == tracker.compressed_size
    np.testing.assert_array_equal(clone._engine.compressed_keys(),
                                  tracker._engine.compressed_keys())
    clone._check()
