"""DelayedAUC: predictions whose labels arrive late, against recomputation from scratch.

The state machine keeps its own model of the window (every prediction with
its position, label and fate) and recomputes after each step, from the
model alone: the realized AUC (an O(n^2) count of pairs), H and DeLong's
interval (the from-scratch functions), the expected AUC (an O(n^2) count of
the parts' pairs, and ``expected_auc``) and the pending count.
"""

import datetime
import math
import pickle
import re
import warnings

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from reference_impl import brute_auc_value, columns
from sklearn.metrics import brier_score_loss
from sklearn.metrics import log_loss as sk_log_loss

import hmeasure_stream as hs
from hmeasure_stream import Compression, ConfidenceLevel, DelayedAUC, HCost

KEYS = st.integers(0, 7)
SCORES = st.sampled_from([0.0, 0.2, 0.5, 0.5, 0.8, 1.0])
PROBS = st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0])
LABELS = st.sampled_from([0, 1, -1, True, False])


def close(actual, expected, tolerance=1e-9):
    if math.isnan(expected):
        return math.isnan(actual)
    return abs(actual - expected) <= tolerance


def unchanged_after(monitor, call, error):
    """``call`` is refused with ``error`` and leaves ``monitor`` byte-identical."""
    before = pickle.dumps(monitor)
    with pytest.raises(error):
        call()
    assert pickle.dumps(monitor) == before


class DelayedMachine(RuleBasedStateMachine):
    """Predict, label, forget and pickle at random, over a window by count, time or none,
    with decay by count or time or without, unmatched labels counted or raising."""

    @initialize(window=st.sampled_from([None, 1, 3, 6, "5s"]),
                metrics=st.sampled_from([("auc",), ("auc", "h"), (HCost(),)]),
                half_life=st.sampled_from([None, None, 0.5, 2, "1s"]),
                unmatched_labels=st.sampled_from(["count", "raise"]))
    def start(self, window, metrics, half_life, unmatched_labels):
        self.window = window
        self.metrics = metrics
        self.half_life = half_life
        self.timed = window == "5s" or half_life == "1s"
        self.raises = unmatched_labels == "raise"
        self.monitor = DelayedAUC(window, metrics, half_life=half_life,
                                  unmatched_labels=unmatched_labels)
        self.records = []  # every prediction made: dicts, in order
        self.now = 0
        self.late = 0
        self.unmatched = 0

    # -- the model ----------------------------------------------------------

    def latest(self, key):
        return next((r for r in reversed(self.records) if r["key"] == key), None)

    def held(self):
        return [r for r in self.records if r["state"] == "held"]

    def age(self, record, ahead=0, now=None):
        """The prediction's age in half-lives (0 without decay), ``ahead`` predictions
        after the newest, at ``now`` (default: the newest's time)."""
        now = self.now if now is None else now
        if self.half_life is None:
            return 0.0
        if self.half_life == "1s":
            return now - record["time"]
        return (len(self.records) - 1 + ahead - record["number"]) / self.half_life

    def weight(self, record):
        return 2.0 ** -self.age(record)

    def out_of(self, record, factor, ahead=0, now=None):
        """Whether ``record`` is out of ``factor`` windows (and 60 half-lives), ``ahead``
        predictions after the newest, at ``now``."""
        now = self.now if now is None else now
        if self.age(record, ahead, now) > factor * 60:
            return True
        if self.window is None:
            return False
        if self.window == "5s":
            return record["time"] <= now - factor * 5
        return record["number"] <= len(self.records) - 1 + ahead - factor * self.window

    def holds(self, key, ahead=1, now=None):
        """Whether ``key`` is held when the prediction ``ahead`` after the newest enters at
        ``now``: its prediction is in the window and does not leave it then."""
        record = self.latest(key)
        return (record is not None and record["state"] == "held"
                and not self.out_of(record, 1, ahead, now))

    def slide(self):
        for record in self.held():
            if self.out_of(record, 1):
                record["state"] = "left"

    # -- the rules ----------------------------------------------------------

    @rule(key=KEYS, score=SCORES, prob=PROBS, step=st.integers(0, 3))
    def predict(self, key, score, prob, step):
        time = None
        if self.timed:
            time = self.now + step
        if self.holds(key, now=time):
            unchanged_after(self.monitor, lambda: self.monitor.predict(key, score, prob,
                                                                       time=time), ValueError)
            return
        self.monitor.predict(key, score, prob, time=time)
        if time is not None:
            self.now = time
        self.records.append({"key": key, "score": score, "prob": prob, "label": None,
                             "late": None, "state": "held", "time": time,
                             "number": len(self.records)})
        self.slide()

    @rule(key=KEYS, y=LABELS)
    def label(self, key, y):
        record = self.latest(key)
        is_pos = int(y == 1)
        if record is not None and record["state"] == "held":
            if record["label"] is not None:
                unchanged_after(self.monitor, lambda: self.monitor.label(key, y), ValueError)
                return
            self.monitor.label(key, y)
            record["label"] = is_pos
            return
        if (record is not None and record["state"] == "left" and record["label"] is None
                and not self.out_of(record, 2)):
            if record["late"] is not None:  # a late label counted already
                unchanged_after(self.monitor, lambda: self.monitor.label(key, y), ValueError)
                return
            self.monitor.label(key, y)
            record["late"] = is_pos
            self.late += 1
            return
        if self.raises:
            unchanged_after(self.monitor, lambda: self.monitor.label(key, y), KeyError)
            return
        self.monitor.label(key, y)
        self.unmatched += 1

    def label_fate(self, key):
        """What labelling ``key`` does: "held", "late", "unmatched", or the error it
        raises."""
        record = self.latest(key)
        if record is not None and record["state"] == "held":
            return ValueError if record["label"] is not None else "held"
        if (record is not None and record["state"] == "left" and record["label"] is None
                and not self.out_of(record, 2)):
            return ValueError if record["late"] is not None else "late"
        return KeyError if self.raises else "unmatched"

    @rule(batch=st.lists(st.tuples(KEYS, SCORES, PROBS, st.integers(0, 3)), max_size=4),
          as_array=st.booleans())
    def predict_many(self, batch, as_array):
        """A batch: as many predict calls, or refused whole (a key twice or in the window)."""
        keys = [key for key, *_ in batch]
        scores = [score for _, score, _, _ in batch]
        probs = [prob for _, _, prob, _ in batch]
        times = (np.cumsum([step for *_, step in batch]) + self.now).tolist()
        call = lambda: self.monitor.predict_many(  # noqa: E731
            np.array(keys) if as_array else keys, scores, probs,
            times=times if self.timed else None)
        if len(set(keys)) < len(keys) or any(
                self.holds(key, ahead + 1, time if self.timed else None)
                for ahead, (key, time) in enumerate(zip(keys, times, strict=True))):
            unchanged_after(self.monitor, call, ValueError)
            return
        call()
        for key, score, prob, time in zip(keys, scores, probs, times, strict=True):
            if self.timed:
                self.now = time
            self.records.append({"key": key, "score": score, "prob": prob, "label": None,
                                 "late": None, "state": "held",
                                 "time": time if self.timed else None,
                                 "number": len(self.records)})
            self.slide()

    @rule(keys=st.lists(KEYS, max_size=3), bits=st.lists(st.booleans(), min_size=3,
                                                         max_size=3),
          style=st.sampled_from([(0, 1), (-1, 1), (False, True)]))
    def label_many(self, keys, bits, style):
        """A batch of labels: as many label calls, or refused whole."""
        ys = [style[bit] for bit in bits[:len(keys)]]
        call = lambda: self.monitor.label_many(keys, ys)  # noqa: E731
        if len(set(keys)) < len(keys):
            unchanged_after(self.monitor, call, ValueError)
            return
        fates = [self.label_fate(key) for key in keys]
        refused = next((fate for fate in fates if not isinstance(fate, str)), None)
        if refused is not None:
            unchanged_after(self.monitor, call, refused)
            return
        call()
        for key, bit, fate in zip(keys, bits[:len(keys)], fates, strict=True):
            record = self.latest(key)
            if fate == "held":
                record["label"] = int(bit)
            elif fate == "late":
                record["late"] = int(bit)
                self.late += 1
            else:
                self.unmatched += 1

    @rule(key=KEYS)
    def forget(self, key):
        record = self.latest(key)
        if record is not None and record["state"] == "held":
            self.monitor.forget(key)
            record["state"] = "forgotten"
        else:
            unchanged_after(self.monitor, lambda: self.monitor.forget(key), KeyError)

    @rule()
    def pickle_round_trip(self):
        self.monitor = pickle.loads(pickle.dumps(self.monitor))

    @rule(score=st.sampled_from([math.nan, math.inf, "a"]), prob=st.sampled_from([-0.1, 1.5]))
    def bad_prediction(self, score, prob):
        unchanged_after(self.monitor, lambda: self.monitor.predict(99, score, 0.5, time=self.now),
                        ValueError)
        unchanged_after(self.monitor, lambda: self.monitor.predict(99, 0.5, prob, time=self.now),
                        ValueError)
        unchanged_after(self.monitor, lambda: self.monitor.predict(99, 2.0, time=self.now),
                        ValueError)  # prob defaults to the score: not in [0, 1]
        unchanged_after(self.monitor, lambda: self.monitor.predict([1], 0.5, time=self.now),
                        ValueError)  # an unhashable key

    @precondition(lambda self: self.timed and self.now > 0)
    @rule()
    def time_going_back_is_refused(self):
        unchanged_after(self.monitor, lambda: self.monitor.predict(99, 0.5, time=self.now - 1),
                        ValueError)
        unchanged_after(self.monitor, lambda: self.monitor.predict(99, 0.5), ValueError)

    @precondition(lambda self: any(r["label"] is None for r in self.held()))
    @rule(y=st.sampled_from([2, 0.5, "x", None]))
    def bad_label_is_refused(self, y):
        key = next(r["key"] for r in self.held() if r["label"] is None)
        unchanged_after(self.monitor, lambda: self.monitor.label(key, y), ValueError)

    # -- the comparison with recomputation from scratch -----------------------

    @invariant()
    def matches_scratch(self):
        monitor = self.monitor
        assert monitor._check()
        held = self.held()
        labelled = [r for r in held if r["label"] is not None]
        assert len(monitor) == len(held)
        assert all(r["key"] in monitor for r in held)
        pending = len(held) - len(labelled)
        assert monitor.n_pending == pending
        assert monitor.n_late_labels == self.late
        assert monitor.n_unmatched_labels == self.unmatched
        assert (math.isnan(monitor.pending_share) if not held
                else monitor.pending_share == pending / len(held))
        y = [r["label"] for r in labelled]
        s = [r["score"] for r in labelled]
        w = [self.weight(r) for r in labelled]  # (sample weights relative to the newest)
        realized = brute_auc_value(y, s, w)
        assert close(monitor.auc, realized)
        results = monitor.results()
        assert close(results["auc"], realized)
        n_pos, n_neg = sum(y), len(y) - sum(y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", hs.InvertedScoresWarning)
            try:
                interval = hs.auc_ci(y, s, sample_weight=w)
                (low, high), estimate = interval, interval.estimate
            except ValueError:  # DeLong's variance needs two points (weight > 1) per class
                assert math.isnan(results["auc_lo"]) and math.isnan(monitor.auc_ci.high)
            else:
                assert close(monitor.auc_ci.low, low) and close(results["auc_lo"], low)
                assert close(monitor.auc_ci.high, high) and close(results["auc_hi"], high)
                assert close(monitor.auc_ci.estimate, estimate)
            if "h" in results:
                h = hs.h_measure(y, s, sample_weight=w) if n_pos and n_neg else math.nan
                assert close(results["h"], h) and close(monitor.h, h)
            parts = [part for r in held for part in (
                [(r["label"], r["score"], self.weight(r))] if r["label"] is not None
                else [(1, r["score"], r["prob"] * self.weight(r)),
                      (0, r["score"], (1.0 - r["prob"]) * self.weight(r))])]
            expected = brute_auc_value(*columns(parts))
            assert close(monitor.expected_auc, expected)
            assert close(results["expected_auc"], expected)
            probs = [r["prob"] if r["label"] is None else r["label"] for r in held]
            scores = [r["score"] for r in held]
            weights = [self.weight(r) for r in held]
            if not math.isnan(expected):
                assert close(monitor.expected_auc,
                             hs.expected_auc(probs, scores, sample_weight=weights))
                if "h" in results:
                    assert close(results["expected_h"],
                                 hs.expected_h_measure(probs, scores, sample_weight=weights))
        assert results["n_pending"] == pending


DelayedMachine.TestCase.settings = settings(max_examples=120, stateful_step_count=40,
                                            deadline=None)
TestDelayedMachine = DelayedMachine.TestCase


def test_example_values():
    """The docstring's example, against the definitions counted by hand."""
    monitor = DelayedAUC(window=1000)
    for key, score in enumerate([0.9, 0.2, 0.7, 0.4]):
        monitor.predict(key, score)
    # Parts (class 1, class 0): 0.9/0.1 at 0.9, 0.2/0.8 at 0.2, 0.7/0.3 at 0.7, 0.4/0.6 at 0.4.
    assert monitor.expected_auc == pytest.approx(
        brute_auc_value(*columns([(1, s, s) for s in (0.9, 0.2, 0.7, 0.4)]
                                 + [(0, s, 1 - s) for s in (0.9, 0.2, 0.7, 0.4)])))
    monitor.label(0, 1)
    monitor.label(1, 0)
    monitor.label(3, 1)
    assert monitor.auc == 1.0  # class 1 at 0.9 and 0.4, class 0 at 0.2: both above
    assert monitor.n_pending == 1 and monitor.pending_share == 0.25


def test_window_by_count_keeps_the_last_predictions_made():
    monitor = DelayedAUC(window=3)
    for key in range(5):
        monitor.predict(key, 0.1 * key)
    assert len(monitor) == 3 and [k in monitor for k in range(5)] == [False] * 2 + [True] * 3
    monitor.forget(3)  # a forgotten prediction does not bring an older one back
    assert len(monitor) == 2 and 1 not in monitor
    monitor.label(1, 1)  # late: its prediction left the window
    assert monitor.n_late_labels == 1 and monitor.n_pending == 2
    with pytest.raises(ValueError, match="labelled already"):
        monitor.label(1, 0)
    monitor.label("never", 1)  # never predicted: dropped and counted
    monitor.label(3, 0)  # forgotten: likewise
    assert (monitor.n_unmatched_labels, monitor.n_late_labels, monitor.n_pending) == (2, 1, 2)
    assert math.isnan(monitor.auc) and monitor._check()


def test_late_label_memory_is_two_windows():
    for unmatched_labels in ("count", "raise"):
        monitor = DelayedAUC(window=2, unmatched_labels=unmatched_labels)
        for key in range(7):
            monitor.predict(key, 0.5)
        # Held: 5, 6; remembered as late: 3, 4 (within the last 4 predictions); 0-2 not.
        monitor.label(3, 0)
        monitor.label(4, 1)
        for key in (0, 1, 2):
            if unmatched_labels == "raise":
                unchanged_after(monitor, lambda key=key, monitor=monitor: monitor.label(key, 1),
                                KeyError)
                with pytest.raises(KeyError, match="more than a window ago"):
                    monitor.label(key, 1)
            else:
                monitor.label(key, 1)
        assert monitor.n_late_labels == 2
        assert monitor.n_unmatched_labels == (3 if unmatched_labels == "count" else 0)
        assert monitor.n_pending == 2 and math.isnan(monitor.auc)
        assert monitor._check()


def test_a_second_late_label_is_refused_while_remembered_then_unmatched():
    """A second label is a ValueError while the monitor remembers the prediction, and
    matches nothing once the memory (two windows) has passed it."""
    monitor = DelayedAUC(window=2)
    for key in range(3):
        monitor.predict(key, 0.5)
    monitor.label(0, 1)  # late: prediction 0 left as 2 entered
    unchanged_after(monitor, lambda: monitor.label(0, 0), ValueError)
    monitor.predict(3, 0.4)
    unchanged_after(monitor, lambda: monitor.label(0, 0), ValueError)  # 0 in the last 4
    monitor.predict(4, 0.3)  # 0 is out of the last 4 predictions
    monitor.label(0, 0)
    assert (monitor.n_late_labels, monitor.n_unmatched_labels) == (1, 1)
    assert len(monitor) == 2 and monitor.n_pending == 2 and monitor._check()


def test_a_key_predicted_again_after_leaving_names_the_new_prediction():
    monitor = DelayedAUC(window=2)
    monitor.predict("a", 0.9)
    monitor.predict("b", 0.2)
    monitor.predict("c", 0.7)  # "a" leaves, unlabelled: remembered
    monitor.predict("a", 0.1)  # "b" leaves; "a" names the new prediction
    monitor.label("a", 1)  # the new one's label, not a late label
    monitor.label("c", 0)
    assert (monitor.n_late_labels, monitor.n_unmatched_labels, monitor.n_pending) == (0, 0, 0)
    assert monitor.auc == 0.0  # class 1 at 0.1 below class 0 at 0.7
    monitor.label("b", 1)  # late
    monitor.predict("d", 0.5)  # "c" leaves labelled: forgotten at once
    monitor.label("c", 1)
    assert (monitor.n_late_labels, monitor.n_unmatched_labels) == (1, 1)
    assert monitor._check()


def test_the_unmatched_labels_option_is_checked_once():
    for value in ("drop", "Count", "", None, True, 0, ["count"]):
        with pytest.raises(ValueError, match=(
                rf"^unmatched_labels must be one of 'count', 'raise'; got {re.escape(repr(value))}$")):
            DelayedAUC(10, unmatched_labels=value)
    counted = DelayedAUC(10)  # the default counts
    counted.label("x", 1)
    assert counted.n_unmatched_labels == 1 and counted._check()


def test_raise_keeps_the_key_error_and_counts_late_labels():
    monitor = DelayedAUC(window=2, unmatched_labels="raise")
    for key in range(4):
        monitor.predict(key, 0.25 * key)
    for key, match in [("never", "'never'"), (-1, "-1")]:
        unchanged_after(monitor, lambda key=key: monitor.label(key, 1), KeyError)
        with pytest.raises(KeyError, match=match):
            monitor.label(key, 1)
    monitor.forget(3)
    unchanged_after(monitor, lambda: monitor.label(3, 1), KeyError)  # forgotten
    # One unmatched key refuses the whole batch, byte for byte.
    unchanged_after(monitor, lambda: monitor.label_many([2, 1, "never"], [1, 1, 0]), KeyError)
    assert monitor.n_pending == 1 and monitor.n_late_labels == 0
    monitor.label_many([2, 1], [1, 0])  # 2 held, 1 late
    assert (monitor.n_late_labels, monitor.n_unmatched_labels, monitor.n_pending) == (1, 0, 0)
    assert math.isnan(monitor.auc) and monitor._check()  # one labelled prediction held


def test_a_counted_batch_applies_the_matched_labels_and_counts_the_others():
    monitor = DelayedAUC(window=3)
    for key, score in enumerate([0.9, 0.8, 0.3, 0.6, 0.1]):
        monitor.predict(key, score)
    # Held: 2, 3, 4; remembered: 0, 1.
    monitor.label_many(["x", 3, 0, 4, "y", 2], [1, 1, 0, 0, 0, 1])
    assert (monitor.n_late_labels, monitor.n_unmatched_labels, monitor.n_pending) == (1, 2, 0)
    assert monitor.auc == brute_auc_value([1, 1, 0], [0.3, 0.6, 0.1])
    # A second label refuses the whole batch, the unmatched keys in it too.
    unchanged_after(monitor, lambda: monitor.label_many(["z", 3], [1, 1]), ValueError)
    unchanged_after(monitor, lambda: monitor.label_many(["z", 0], [1, 1]), ValueError)
    # An invalid label as well.
    unchanged_after(monitor, lambda: monitor.label_many(["z"], [2]), ValueError)
    assert monitor.n_unmatched_labels == 2 and monitor._check()


def test_the_counts_survive_pickling_and_are_checked_on_load():
    monitor = DelayedAUC(window=2)
    for key in range(4):
        monitor.predict(key, 0.5)
    monitor.label(0, 1)  # late
    monitor.label("gone", 1)
    copy = pickle.loads(pickle.dumps(monitor))
    assert (copy.n_late_labels, copy.n_unmatched_labels) == (1, 1)
    assert pickle.dumps(copy) == pickle.dumps(monitor) and copy._check()
    copy.label("gone again", 0)
    assert (copy.n_unmatched_labels, monitor.n_unmatched_labels) == (2, 1)
    raising = pickle.loads(pickle.dumps(DelayedAUC(window=2, unmatched_labels="raise")))
    unchanged_after(raising, lambda: raising.label("gone", 1), KeyError)  # the option kept
    state = monitor.__getstate__()
    blank = DelayedAUC.__new__(DelayedAUC)
    for changed, match in [
        ({"_n_unmatched_labels": -1}, "n_unmatched_labels is -1"),
        ({"_n_late_labels": 0}, "1 remembered predictions labelled late, 0 late labels"),
        ({"_unmatched_labels": "drop"}, "unmatched_labels is 'drop'"),
        ({"_unmatched_labels": "raise"}, "1 unmatched labels counted, though they raise"),
    ]:
        with pytest.raises(ValueError, match=f"cannot unpickle this DelayedAUC: {match}"):
            blank.__setstate__({**state, **changed})
    for name in ("_n_unmatched_labels", "_unmatched_labels"):
        lacking = {key: value for key, value in state.items() if key != name}
        with pytest.raises(ValueError, match=rf"its state lacks \['{name}'\]"):
            DelayedAUC.__new__(DelayedAUC).__setstate__(lacking)


def test_duration_window():
    monitor = DelayedAUC("2h", metrics=("auc", "h"))
    start = datetime.datetime(2026, 1, 1)
    for hour, (key, score, y) in enumerate([("a", 0.9, 1), ("b", 0.1, 0), ("c", 0.6, 0),
                                            ("d", 0.3, 1)]):
        monitor.predict(key, score, time=start + datetime.timedelta(hours=hour))
        monitor.label(key, y)
    assert monitor.window == np.timedelta64(2 * 3600 * 10**9, "ns")
    assert len(monitor) == 2 and monitor.auc == 0.0  # c (0.6, class 0) above d (0.3, class 1)
    with pytest.raises(ValueError, match="backwards"):
        monitor.predict("e", 0.5, time=start)
    with pytest.raises(ValueError, match="time is required"):
        monitor.predict("e", 0.5)


def test_pos_label_and_probabilities_apart_from_scores():
    monitor = DelayedAUC(pos_label="fraud")
    monitor.predict("a", 3.0, 0.9)
    monitor.predict("b", -1.0, 0.2)
    monitor.predict("c", 1.0, 0.5)
    monitor.label("a", "fraud")
    monitor.label("b", "ok")
    with pytest.raises(ValueError):
        monitor.label("c", "other")
    assert monitor.auc == 1.0
    assert monitor.expected_auc == pytest.approx(hs.expected_auc([1, 0, 0.5], [3.0, -1.0, 1.0]))


def test_options_and_refusals():
    with pytest.raises(ValueError, match=r"half_life is not available with .*auc_approx"):
        DelayedAUC(10, metrics=("auc", Compression(0.1)), half_life=5)
    for half_life in (0, -1.0, math.inf, True, "soon"):
        with pytest.raises(ValueError, match="half_life"):
            DelayedAUC(10, half_life=half_life)
    with pytest.raises(ValueError, match="time is required"):
        DelayedAUC(10, half_life="1h").predict(0, 0.5)
    with pytest.raises(ValueError, match="auc_binned"):
        DelayedAUC(10, metrics=("auc", "auc_binned"))
    with pytest.raises(ValueError, match="multiclass_auc"):
        DelayedAUC(10, metrics=hs.Classes([0, 1, 2]))
    with pytest.raises(ValueError, match="follows expected_auc itself"):
        DelayedAUC(10, metrics=("auc", "expected_auc"))
    for window in (0, -1, 1.5, True, "soon"):
        with pytest.raises(ValueError):
            DelayedAUC(window)
    monitor = DelayedAUC(metrics=("auc", Compression(0.1), ConfidenceLevel(0.9)))
    with pytest.raises(AttributeError, match="expected_h"):
        monitor.expected_h  # noqa: B018
    with pytest.raises(AttributeError, match="'h'"):
        monitor.h  # noqa: B018
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 40)
    s = rng.normal(size=40) + y
    for key in range(40):
        monitor.predict(key, s[key], 0.5)
        monitor.label(key, int(y[key]))
    assert monitor._check()
    low, high = hs.auc_ci(y, s, level=0.9)
    assert monitor.auc_ci == pytest.approx((low, high))
    assert monitor.auc_ci.estimate == pytest.approx(hs.auc(y, s))
    assert abs(monitor.auc_approx - hs.auc(y, s)) <= 0.1 * hs.auc(y, s) / 2
    assert set(monitor.results()) == {"auc", "auc_approx", "auc_lo", "auc_hi", "expected_auc",
                                      "n_pending", "pending_share"}


def test_the_calibration_of_the_labelled_predictions():
    """The window metrics of probabilities read the labelled predictions' scores."""
    rng = np.random.default_rng(8)
    p = rng.random(60)
    y = (rng.random(60) < p).astype(int)
    monitor = DelayedAUC(metrics=("auc", "brier", "log_loss"))
    for key in range(60):
        monitor.predict(key, float(p[key]))
        if key % 3:
            monitor.label(key, int(y[key]))
    labelled = np.arange(60) % 3 != 0
    assert monitor.brier == pytest.approx(brier_score_loss(y[labelled], p[labelled]),
                                          rel=1e-12)
    assert monitor.log_loss == pytest.approx(sk_log_loss(y[labelled], p[labelled]), rel=1e-12)


def test_no_drift_over_many_updates():
    """Parts added and removed many times leave the from-scratch value."""
    rng = np.random.default_rng(11)
    n = 20_000
    probs = rng.random(n)
    scores = np.round(probs * 50) / 50  # ties
    labels = rng.random(n) < probs
    monitor = DelayedAUC(window=500)
    for key in range(n):
        monitor.predict(key, scores[key], probs[key])
        if key >= 100:
            monitor.label(key - 100, bool(labels[key - 100]))
    held = np.arange(n - 500, n)
    known = held < n - 100
    y_prob = np.where(known, labels[held], probs[held])
    assert monitor.expected_auc == pytest.approx(hs.expected_auc(y_prob, scores[held]),
                                                 abs=1e-12)
    assert monitor.auc == pytest.approx(hs.auc(labels[held][known], scores[held][known]),
                                        abs=1e-15)
    assert monitor._check()


def test_pickle_format_and_consistency_are_checked():
    monitor = DelayedAUC(window=4, metrics=("auc", "h"))
    for key, (score, y) in enumerate([(0.9, 1), (0.2, 0), (0.6, None), (0.4, 1)]):
        monitor.predict(key, score)
        if y is not None:
            monitor.label(key, y)
    copy = pickle.loads(pickle.dumps(monitor))
    assert pickle.dumps(copy) == pickle.dumps(monitor) and copy._check()
    assert copy.results() == pytest.approx(monitor.results(), nan_ok=True)
    state = monitor.__getstate__()
    blank = DelayedAUC.__new__(DelayedAUC)
    with pytest.raises(ValueError, match="pickle format 1"):
        blank.__setstate__({**state, "format": 1})
    with pytest.raises(ValueError, match="labelled predictions"):
        blank.__setstate__({**state, "_n_labelled": 2})  # three are labelled


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")  # (1 point)
@pytest.mark.parametrize(("half_life", "label_every", "lag"),
                         [(1, 1, 3), (1, 70, 3), (0.37, 3, 40), (7, 2, 100)])
def test_decay_drops_and_rescales_as_weighted_from_scratch(half_life, label_every, lag):
    """Over many half-lives (the anchor moves, weights are divided by 2**k, predictions
    leave at 60 half-lives), the values equal the from-scratch ones with sample weights
    2^(-age / half_life); with label_every=70 the realized engine holds one point of
    weight a power of two at each rescale."""
    rng = np.random.default_rng(17)
    n = 1200
    probs = rng.random(n)
    scores = np.round(probs * 20) / 20
    labels = rng.random(n) < probs
    monitor = DelayedAUC(metrics=("auc", "h", "brier"), half_life=half_life)
    for key in range(n):
        monitor.predict(key, scores[key], probs[key])
        if key >= lag and (key - lag) % label_every == 0:
            monitor.label(key - lag, bool(labels[key - lag]))
        if key % 50 == 49 or key < 5:
            assert monitor._check()
            ages = key - np.arange(key + 1)
            held = ages <= 60 * half_life  # (as the structure compares: no rounding apart)
            weights = 2.0 ** (-ages / half_life)
            known = held & (np.arange(key + 1) <= key - lag) & (
                (np.arange(key + 1) % label_every) == 0)
            assert len(monitor) == held.sum() and monitor.n_pending == (held & ~known).sum()
            y, s, w = labels[:key + 1][known], scores[:key + 1][known], weights[known]
            if 0 < y.sum() < y.size:
                assert monitor.auc == pytest.approx(hs.auc(y, s, sample_weight=w), abs=1e-12)
                assert monitor.h == pytest.approx(hs.h_measure(y, s, sample_weight=w),
                                                  abs=1e-12)
                assert monitor.brier == pytest.approx(
                    brier_score_loss(y, s, sample_weight=w), abs=1e-12)  # (of the scores)
            y_prob = np.where(known, labels[:key + 1], probs[:key + 1])[held]
            assert monitor.expected_auc == pytest.approx(
                hs.expected_auc(y_prob, scores[:key + 1][held], sample_weight=weights[held]),
                abs=1e-12)
    assert monitor._decay.anchor > 0 and monitor._decay.rescales > 0  # weights were rescaled


def test_decay_by_time_with_a_count_window_and_late_labels():
    """A count window with a half-life in time: both rules make predictions leave, and a
    label arrives late within two windows (and 120 half-lives)."""
    monitor = DelayedAUC(window=3, half_life="10s")
    for key, (time, score) in enumerate([(0, 0.9), (700, 0.2), (1300, 0.8), (1301, 0.3),
                                         (1302, 0.6)]):
        monitor.predict(key, score, time=time)
    # 0 and 1 left by decay (more than 60 half-lives old), 1 by the count window too.
    assert len(monitor) == 3 and 0 not in monitor and 1 not in monitor
    monitor.label(1, 0)  # 602 s old: within 120 half-lives and two windows: counted
    assert monitor.n_late_labels == 1
    monitor.label(0, 1)  # 1302 s old: beyond 120 half-lives, unmatched
    assert (monitor.n_late_labels, monitor.n_unmatched_labels) == (1, 1)
    monitor.label(2, 1)
    monitor.label(3, 0)
    monitor.label(4, 1)
    w = 2.0 ** (-np.array([2.0, 1.0, 0.0]) / 10)
    assert monitor.auc == pytest.approx(hs.auc([1, 0, 1], [0.8, 0.3, 0.6], sample_weight=w))
    assert monitor._check()


def test_batches_are_all_or_nothing():
    monitor = DelayedAUC(window="1h", half_life="10min", pos_label="fraud",
                         unmatched_labels="raise")
    monitor.predict_many(["a", "b", "c"], [0.9, 0.2, 0.6], [0.8, 0.1, 0.5],
                         times=np.array(["2026-11-28T10:00", "2026-11-28T10:05",
                                         "2026-11-28T10:05"], dtype="datetime64[ns]"))
    monitor.label_many(["a", "b"], ["fraud", "ok"])
    assert (len(monitor), monitor.n_pending) == (3, 1)
    w = 2.0 ** (-np.array([5.0, 0.0]) / 10)
    assert monitor.auc == 1.0
    assert monitor.expected_auc == pytest.approx(hs.expected_auc(
        [1, 0, 0.5], [0.9, 0.2, 0.6], sample_weight=[w[0], w[1], w[1]]))
    for call, error, match in [
        (lambda: monitor.predict_many(["d", "d"], [0.1, 0.2], times=[1.8e9, 1.8e9]), ValueError,
         "given twice"),
        (lambda: monitor.predict_many(["d", "a"], [0.1, 0.2], times=["2026-11-28T10:30"] * 2),
         ValueError, "already in the window"),
        (lambda: monitor.predict_many(["d"], [0.1]), ValueError, "times is required"),
        (lambda: monitor.predict_many(["d"], [0.1], times=["2026-11-28T09:00"]), ValueError,
         "backwards"),
        (lambda: monitor.predict_many(["d", "e"], [0.1, 1.5], times=[1.8e9, 1.8e9]), ValueError,
         r"y_score \(the probabilities by default\)"),
        (lambda: monitor.predict_many(["d", "e"], [0.1], times=[1.8e9]), ValueError,
         "different lengths"),
        (lambda: monitor.predict_many("de", [0.1, 0.2], times=[1.8e9, 1.8e9]), ValueError,
         "sequence of keys"),
        (lambda: monitor.label_many(["c", "zz"], ["ok", "ok"]), KeyError, "zz"),
        (lambda: monitor.label_many(["c", "a"], ["ok", "ok"]), ValueError, "labelled already"),
        (lambda: monitor.label_many(["c"], ["maybe"]), ValueError, "maybe"),
    ]:
        unchanged_after(monitor, call, error)
        with pytest.raises(error, match=match):
            call()
    assert monitor._check()
