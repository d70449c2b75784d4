"""DelayedAUC's late and unmatched labels, against a plain-Python model of the monitor.

The model keeps the held predictions in order (a dict), a window by count, and
the predictions that left it unlabelled while they are among the last two
windows.  A label for a held key applies, one for a remembered key counts as
late, any other one is unmatched: counted (the default) or a KeyError that
changes nothing.  After every step the monitor's realized AUC (brute force over
the model's labelled held predictions), expected AUC, counts and invariants are
compared with the model's.
"""

import math
import pickle

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from reference_impl import brute_auc, brute_expected_auc

from hmeasure_stream import DelayedAUC

KEYS = st.integers(0, 5)
SCORES = st.sampled_from([0.1, 0.3, 0.3, 0.6, 0.9])
PROBS = st.sampled_from([0.0, 0.25, 0.5, 1.0])


def refused(monitor, call, error):
    """``call`` raises ``error`` and leaves ``monitor``'s pickle byte for byte."""
    before = pickle.dumps(monitor)
    with pytest.raises(error):
        call()
    assert pickle.dumps(monitor) == before


class LateLabelsMachine(RuleBasedStateMachine):
    """Predictions (keys reused after they leave), labels, batches of labels, forgetting
    and pickling over a window of a few predictions."""

    @initialize(window=st.sampled_from([1, 2, 3, 5]),
                unmatched_labels=st.sampled_from(["count", "count", "raise"]))
    def start(self, window, unmatched_labels):
        self.window = window
        self.raises = unmatched_labels == "raise"
        self.monitor = DelayedAUC(window, unmatched_labels=unmatched_labels)
        self.made = 0  # predictions made; the next one's number
        self.held = {}  # key -> [number, score, prob, label or None], oldest first
        self.left = {}  # key -> [number, late label or None]: left unlabelled, remembered
        self.out_of_memory = set()  # keys out of the memory since their last prediction
        self.late = 0
        self.unmatched = 0

    # -- the model -------------------------------------------------------------

    def slide(self):
        """After prediction ``self.made - 1``: the window keeps the last ``window``
        numbers, the memory the unlabelled ones among the last ``2 * window``."""
        newest = self.made - 1
        for key in [key for key, held in self.held.items() if held[0] <= newest - self.window]:
            number, _, _, label = self.held.pop(key)
            if label is None:
                self.left[key] = [number, None]
        for key in [key for key, (number, _) in self.left.items()
                    if number <= newest - 2 * self.window]:
            del self.left[key]
            self.out_of_memory.add(key)

    def fate(self, key):
        """What a label for ``key`` does: "held", "late", "unmatched", or the error."""
        if key in self.held:
            return ValueError if self.held[key][3] is not None else "held"
        if key in self.left:
            return ValueError if self.left[key][1] is not None else "late"
        return KeyError if self.raises else "unmatched"

    def label_keys(self):
        """The keys a label is drawn from: any key, "never" (never predicted), and again the
        held ones, the remembered ones (twice) and those just out of the memory."""
        return st.sampled_from([*range(6), "never", *self.held, *self.left, *self.left,
                                *sorted(self.out_of_memory)])

    def apply(self, key, fate, label):
        if fate == "held":
            self.held[key][3] = label
        elif fate == "late":
            self.left[key][1] = label
            self.late += 1
        else:
            self.unmatched += 1

    # -- the rules -------------------------------------------------------------

    @rule(key=KEYS, score=SCORES, prob=PROBS)
    def predict(self, key, score, prob):
        # A held key is free once its prediction leaves as this one enters.
        if key in self.held and self.held[key][0] > self.made - self.window:
            refused(self.monitor, lambda: self.monitor.predict(key, score, prob), ValueError)
            return
        self.monitor.predict(key, score, prob)
        self.made += 1
        self.slide()  # (an earlier prediction of the key leaves here, if it was held)
        self.left.pop(key, None)  # the key names the new prediction
        self.out_of_memory.discard(key)
        self.held[key] = [self.made - 1, score, prob, None]

    @rule(data=st.data(), score=SCORES, prob=PROBS)
    def predict_a_free_key(self, data, score, prob):
        """A prediction the monitor takes (a key not held, or one leaving as it enters),
        so that predictions leave the window and keys come back."""
        free = [key for key in range(6)
                if key not in self.held or self.held[key][0] <= self.made - self.window]
        self.predict(data.draw(st.sampled_from(free)), score, prob)

    @rule(data=st.data(), label=st.integers(0, 1))
    def label(self, data, label):
        key = data.draw(self.label_keys())
        fate = self.fate(key)
        if not isinstance(fate, str):
            refused(self.monitor, lambda: self.monitor.label(key, label), fate)
            return
        self.monitor.label(key, label)
        self.apply(key, fate, label)

    @rule(data=st.data(), labels=st.lists(st.integers(0, 1), min_size=4, max_size=4))
    def label_many(self, data, labels):
        """All or nothing: a key given twice, a second label or (with "raise") an
        unmatched key refuses the batch; else each label as ``label``."""
        keys = data.draw(st.lists(self.label_keys(), max_size=4))
        labels = labels[:len(keys)]
        fates = [self.fate(key) for key in keys]
        error = (ValueError if len(set(keys)) < len(keys)
                 else next((fate for fate in fates if not isinstance(fate, str)), None))
        if error is not None:
            refused(self.monitor, lambda: self.monitor.label_many(keys, labels), error)
            return
        self.monitor.label_many(keys, labels)
        for key, fate, label in zip(keys, fates, labels, strict=True):
            self.apply(key, fate, label)

    @rule(key=KEYS)
    def forget(self, key):
        if key in self.held:
            self.monitor.forget(key)
            del self.held[key]  # and not remembered: a later label is unmatched
        else:
            refused(self.monitor, lambda: self.monitor.forget(key), KeyError)

    @rule()
    def pickle_round_trip(self):
        self.monitor = pickle.loads(pickle.dumps(self.monitor))

    # -- the comparison --------------------------------------------------------

    @invariant()
    def agrees_with_the_model(self):
        monitor = self.monitor
        assert monitor._check()
        labelled = [held for held in self.held.values() if held[3] is not None]
        assert len(monitor) == len(self.held)
        assert all(key in monitor for key in self.held)
        assert monitor._n_labelled == len(labelled)
        assert monitor.n_pending == len(self.held) - len(labelled)
        assert monitor.n_late_labels == self.late
        assert monitor.n_unmatched_labels == self.unmatched
        y = [label for *_, label in labelled]
        s = [score for _, score, _, _ in labelled]
        if 0 < sum(y) < len(y):
            assert monitor.auc == pytest.approx(float(brute_auc(y, s)), abs=1e-12)
        else:
            assert math.isnan(monitor.auc)
        probs = [prob if label is None else label for _, _, prob, label in self.held.values()]
        expected = brute_expected_auc(probs, [score for _, score, _, _ in self.held.values()])
        if expected is None:
            assert math.isnan(monitor.expected_auc)
        else:
            assert monitor.expected_auc == pytest.approx(float(expected), abs=1e-12)


LateLabelsMachine.TestCase.settings = settings(max_examples=80, stateful_step_count=40)
TestLateLabelsMachine = LateLabelsMachine.TestCase
