"""A hypothesis state machine shared by every structure over a set of weighted points."""

import pickle

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule


class PointSetMachine(RuleBasedStateMachine):
    """Random single and batch updates, weighted or not, pickle round trips and refusals.

    A subclass sets ``scores`` (a strategy), ``make()`` (a new structure) and
    ``matches(tracker, points, exact)`` (asserts against the from-scratch
    reference).  After every step the structure's ``_check()`` runs and must
    leave it byte-identical.
    """

    labels = st.integers(0, 1)
    scores = st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.5])
    weights = st.sampled_from([1.0, 1.0, 1.0, 0.5, 3.0, 0.0, 1e-3])

    def __init__(self):
        super().__init__()
        self.tracker = self.make()
        self.points = []
        self.exact = True

    def make(self):
        raise NotImplementedError

    def matches(self, tracker, points, exact):
        raise NotImplementedError

    # The rules draw from the strategies of the instance's class, so that a subclass's
    # ``labels``, ``scores`` and ``weights`` take effect.
    def _point(self, data):
        return data.draw(self.labels), data.draw(self.scores), data.draw(self.weights)

    @rule(data=st.data())
    def add(self, data):
        label, score, weight = self._point(data)
        self.tracker.add(label, score, weight)
        self.points.append((label, score, weight))
        self.exact &= weight == 1.0

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove(self, data):
        label, score, weight = self.points.pop(
            data.draw(st.integers(0, len(self.points) - 1)))
        self.tracker.remove(label, score, weight)

    @rule(data=st.data())
    def add_many(self, data):
        batch = data.draw(st.lists(st.tuples(self.labels, self.scores, self.weights),
                                   max_size=6))
        y, s, w = (list(column) for column in zip(*batch, strict=True)) if batch else ([],) * 3
        self.tracker.add_many(y, s, sample_weight=w)
        self.points.extend(batch)
        self.exact &= all(weight == 1.0 for weight in w)

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove_many(self, data):
        chosen = data.draw(st.sets(st.integers(0, len(self.points) - 1), max_size=5))
        batch = [self.points[i] for i in sorted(chosen)]
        self.points = [p for i, p in enumerate(self.points) if i not in chosen]
        if batch:
            y, s, w = (list(column) for column in zip(*batch, strict=True))
            self.tracker.remove_many(y, s, sample_weight=w)

    @rule()
    def pickle_round_trip(self):
        self.tracker = pickle.loads(pickle.dumps(self.tracker))

    @rule(data=st.data())
    def remove_absent_is_refused(self, data):
        label, score, _ = self._point(data)
        if not any(p[0] == label and p[1] == score for p in self.points):
            before = pickle.dumps(self.tracker)
            with pytest.raises(KeyError):
                self.tracker.remove(label, score)
            assert pickle.dumps(self.tracker) == before

    @invariant()
    def matches_reference(self):
        # The check only reads: the structure is byte-identical after it.
        before = pickle.dumps(self.tracker)
        self.tracker._check()
        assert pickle.dumps(self.tracker) == before
        if not self.points:
            self.exact = True
        self.matches(self.tracker, self.points, self.exact)


def point_set_test(machine):
    """The pytest test of a PointSetMachine subclass: marked slow, with the profile's
    examples (every step checks the whole structure: ``_check()``, the byte-identical
    pickle and the from-scratch reference, over up to 50 steps an example).
    """
    return pytest.mark.slow(machine.TestCase)
