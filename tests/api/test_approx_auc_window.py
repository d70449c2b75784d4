"""ApproxAUC over a window: the bound of Tatti's Prop. 1 holds for the window's points."""

import pickle

import numpy as np
import pytest
from reference_impl import brute_auc

from hmeasure_stream import ApproxAUC


@pytest.mark.parametrize("relative_to", ["auc", "1-auc"])
@pytest.mark.parametrize("epsilon", [0.05, 0.5])
def test_count_window_keeps_the_bound_after_every_point(rng, relative_to, epsilon):
    window = 25
    y = rng.integers(0, 2, 150)
    s = np.round(rng.normal(size=150) + y, 1)  # ties
    tracker = ApproxAUC(epsilon, relative_to=relative_to, window=window)
    for k in range(len(y)):
        tracker.add(int(y[k]), float(s[k]))
        tracker._check()
        start = max(0, k + 1 - window)
        labels, scores = y[start:k + 1].tolist(), s[start:k + 1].tolist()
        assert len(tracker) == len(labels)
        if 0 < sum(labels) < len(labels):
            exact = float(brute_auc(labels, scores))
            slack = exact if relative_to == "auc" else 1.0 - exact
            assert abs(tracker.auc - exact) <= epsilon * slack / 2 + 1e-12
        else:
            assert np.isnan(tracker.auc)


def test_time_window_in_batches_and_a_pickle(rng):
    y = rng.integers(0, 2, 60)
    s = rng.random(60)
    times = np.cumsum(rng.integers(0, 300, 60)).astype(float)  # seconds
    tracker = ApproxAUC(0.1, window="15min")
    tracker.add_many(y[:30], s[:30], times=times[:30])
    copy = pickle.loads(pickle.dumps(tracker))
    for target in (tracker, copy):
        target.add_many(y[30:], s[30:], times=times[30:])
        target._check()
    inside = times > times[-1] - 900
    assert len(tracker) == len(copy) == int(inside.sum())
    exact = float(brute_auc(y[inside].tolist(), s[inside].tolist()))
    assert tracker.auc == copy.auc
    assert abs(tracker.auc - exact) <= 0.1 * exact / 2 + 1e-12
    assert tracker.window == np.timedelta64(900, "s")


def test_decay_and_weights_are_refused_clearly():
    with pytest.raises(ValueError, match=r"half_life is not available with \['auc_approx'\]: "
                       r"decay weighs the points"):
        ApproxAUC(0.1, half_life=10)
    tracker = ApproxAUC(0.1, window=3)
    tracker.add_many([0, 1], [0.2, 0.8])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"unit weights only"):
        tracker.add_many([0, 1], [0.1, 0.2], sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match=r"unit weights only"):
        tracker.add(1, 0.3, 0.5)
    with pytest.raises(ValueError, match=r"time is required"):
        ApproxAUC(0.1, window="1h").add(1, 0.3)
    assert pickle.dumps(tracker) == before
