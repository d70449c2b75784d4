"""DynamicMulticlassAUC against the from-scratch function and scikit-learn after every step."""

import pickle

import numpy as np
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from sklearn.metrics import roc_auc_score

from hmeasure_stream import DynamicMulticlassAUC, multiclass_auc

CLASSES = ["a", "b", "c", "d"]


def expected(points, method, average, classes=CLASSES):
    """The from-scratch value of the points, nan where a class is absent."""
    if not points:
        return np.nan
    labels = [p[0] for p in points]
    weights = np.array([p[2] for p in points])
    mass = {k: weights[[label == k for label in labels]].sum() for k in classes}
    if any(not mass[k] > 0 for k in classes):
        return np.nan
    return multiclass_auc(labels, np.array([p[1] for p in points]), method=method,
                          average=average, classes=classes, sample_weight=weights)


@pytest.mark.parametrize("method", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
@pytest.mark.parametrize("seed", range(3))
def test_random_sequences_against_from_scratch(method, average, seed):
    rng = np.random.default_rng(seed)
    tracker = DynamicMulticlassAUC(CLASSES, method=method, average=average, capacity=1)
    points = []
    weighted = seed == 2
    for step in range(250):
        if points and rng.random() < 0.4:
            label, row, weight = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, row, weight)
        elif rng.random() < 0.2:
            k = int(rng.integers(1, 6))
            batch = [(CLASSES[int(rng.integers(4))], np.round(rng.random(4), 1),
                      float(rng.choice([0.5, 1.0, 2.0])) if weighted else 1.0)
                     for _ in range(k)]
            tracker.add_many([b[0] for b in batch], [b[1] for b in batch],
                             [b[2] for b in batch])
            points.extend(batch)
        else:
            point = (CLASSES[int(rng.integers(4))], np.round(rng.random(4), 1),
                     float(rng.choice([0.5, 1.0, 2.0])) if weighted else 1.0)
            tracker.add(*point)
            points.append(point)
        tracker._check()
        assert len(tracker) == len(points)
        value = expected(points, method, average)
        if np.isnan(value):
            assert np.isnan(tracker.auc)
        elif weighted:
            assert tracker.auc == pytest.approx(value, rel=1e-12)
        else:
            # Unit weights: every binary AUC exact, the same float mean.
            assert tracker.auc == value
        if step % 50 == 0:
            tracker = pickle.loads(pickle.dumps(tracker))


@pytest.mark.parametrize(("method", "average"), [("ovr", "macro"), ("ovr", "weighted"),
                                                 ("ovo", "macro"), ("ovo", "weighted")])
def test_sliding_window_over_real_probabilities_equals_scikit_learn(method, average):
    from sklearn.datasets import load_wine
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x, y = load_wine(return_X_y=True)
    order = np.random.default_rng(0).permutation(len(y))
    x, y = x[order], y[order]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    p = np.round(cross_val_predict(model, x, y, cv=5, method="predict_proba"), 2)  # ties
    p /= p.sum(axis=1, keepdims=True)  # scikit-learn wants rows summing to 1
    window = 60
    tracker = DynamicMulticlassAUC([0, 1, 2], method=method, average=average)
    for i in range(len(y)):
        tracker.add(int(y[i]), p[i])
        if i >= window:
            tracker.remove(int(y[i - window]), p[i - window])
        part = slice(max(0, i + 1 - window), i + 1)
        if len(np.unique(y[part])) < 3:
            assert np.isnan(tracker.auc)
            continue
        reference = roc_auc_score(y[part], p[part], multi_class=method, average=average)
        assert tracker.auc == pytest.approx(reference, rel=1e-12)
    ovr = DynamicMulticlassAUC([0, 1, 2])
    ovr.add_many(y, p)
    np.testing.assert_allclose(ovr.per_class(), roc_auc_score(y, p, multi_class="ovr",
                                                             average=None), rtol=1e-12)


def test_refusals_change_nothing():
    tracker = DynamicMulticlassAUC(["x", "y", "z"], method="ovo")
    tracker.add_many(["x", "y", "z"], [[0.5, 0.3, 0.2], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
    before = pickle.dumps(tracker)
    for bad, message in ((("w", [0.1, 0.2, 0.7]), "label not in classes"),
                         (("x", [0.1, 0.2]), "columns"),
                         (("x", [0.1, np.nan, 0.2]), "finite"),
                         ((["x"], [[0.1, 0.2, 0.3]], [-1.0]), "non-negative")):
        with pytest.raises(ValueError, match=message):
            if isinstance(bad[0], list):
                tracker.add_many(*bad)
            else:
                tracker.add(*bad)
        assert pickle.dumps(tracker) == before
    with pytest.raises(KeyError):
        tracker.remove("x", [0.5, 0.3, 0.25])
    with pytest.raises(KeyError):
        tracker.remove_many(["x", "x"], [[0.5, 0.3, 0.2]] * 2)
    assert pickle.dumps(tracker) == before
    with pytest.raises(ValueError, match="per_class"):
        tracker.per_class()
    for classes in (["x"], ["x", "x"], [[1], [2]]):
        with pytest.raises(ValueError):
            DynamicMulticlassAUC(classes)
    with pytest.raises(ValueError, match="method"):
        DynamicMulticlassAUC(["x", "y"], method="ova")


class MulticlassMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.tracker = DynamicMulticlassAUC(CLASSES[:3], method="ovo", capacity=1)
        self.points = []

    @rule(label=st.sampled_from(CLASSES[:3]),
          row=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0]), min_size=3, max_size=3),
          weight=st.sampled_from([1.0, 1.0, 0.5, 0.0]))
    def add(self, label, row, weight):
        self.tracker.add(label, row, weight)
        self.points.append((label, row, weight))

    @precondition(lambda self: self.points)
    @rule(data=st.data())
    def remove(self, data):
        label, row, weight = self.points.pop(data.draw(st.integers(0, len(self.points) - 1)))
        self.tracker.remove(label, row, weight)

    @invariant()
    def matches(self):
        before = pickle.dumps(self.tracker)
        self.tracker._check()
        assert pickle.dumps(self.tracker) == before
        value = expected(self.points, "ovo", "macro", CLASSES[:3])
        if np.isnan(value):
            assert np.isnan(self.tracker.auc)
        else:
            assert self.tracker.auc == pytest.approx(value, rel=1e-12)


MulticlassMachine.TestCase.settings = settings(max_examples=60)
TestMulticlassMachine = pytest.mark.slow(MulticlassMachine.TestCase)
