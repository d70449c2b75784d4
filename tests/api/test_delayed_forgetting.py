"""DelayedAUC decays by ``Forgetting``'s rule (``decay_newest``): over long streams, with
many rescales, its values equal the from-scratch weighted ones with weights
2^(-age / half_life), and the step itself agrees with a direct computation and with the
compiled path the windows use."""

import math
from fractions import Fraction

import numpy as np
import pytest
from reference_impl import brute_auc_value, expected_parts

from hmeasure_stream import DelayedAUC
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._ring import DROP_EXPONENTS, RESCALE_EXPONENTS, Forgetting

SECOND = 10**9


def _stream(n, seed, timed):
    """Labels, probabilities, scores (with ties) and times in ns (None by count)."""
    rng = np.random.default_rng(seed)
    probs = rng.uniform(0.01, 0.99, n)
    labels = (rng.random(n) < probs).astype(np.int64)
    scores = np.round(probs + rng.normal(0.0, 0.2, n), 2)
    times = np.cumsum(rng.integers(0, 4, n)) * SECOND if timed else None
    return labels, probs, scores, times


@pytest.mark.parametrize(("half_life", "in_units", "timed"),
                         [(37.3, 37.3, False), ("41s", 41.0 * SECOND, True)])
def test_decayed_auc_after_a_long_stream_is_the_weighted_auc_from_scratch(
        half_life, in_units, timed):
    """10^5 predictions in batches, each batch's labels (four in five) given one batch
    late: predictions enter the engines out of age order, the anchor moves and every
    weight is rescaled dozens of times."""
    n, chunk = 100_000, 1000
    labels, probs, scores, times = _stream(n, 5, timed)
    labelled = np.random.default_rng(6).random(n) < 0.8
    monitor = DelayedAUC(half_life=half_life)
    keys = np.arange(n)
    for start in range(0, n + chunk, chunk):
        part = slice(start, min(start + chunk, n))
        if start < n:
            monitor.predict_many(keys[part], scores[part], probs[part],
                                 times=None if times is None
                                 else times[part].astype("datetime64[ns]"))
        late = slice(start - chunk, start)
        if start >= chunk:
            # Only those still held: the older ones left unlabelled (counted late).
            held = labelled[late] & np.array([key in monitor for key in keys[late].tolist()],
                                             dtype=bool)
            monitor.label_many(keys[late][held], labels[late][held])
    assert monitor._decay.rescales >= 30
    assert monitor._check()

    ages = (times[-1] - times) if timed else (n - 1 - keys)
    held = ages <= DROP_EXPONENTS * in_units
    assert len(monitor) == held.sum()
    weights = 2.0 ** (-ages / in_units)
    known = held & labelled
    expected = brute_auc_value(labels[known], scores[known], weights[known], exact=False)
    assert monitor.auc == pytest.approx(expected, rel=1e-12, abs=0)
    y_prob = np.where(labelled, labels, probs)[held]
    parts = expected_parts(y_prob, scores[held], weights[held])
    assert monitor.expected_auc == pytest.approx(brute_auc_value(*parts, exact=False),
                                                 rel=1e-12, abs=0)


def test_decay_newest_is_the_direct_exponent_with_its_rescales():
    """Each step's factor is 2^((x - x0) / h) divided by 2^K for the K half-lives the
    anchor moved so far, computed exactly; a rescale happens exactly when the exponent
    would pass RESCALE_EXPONENTS, by its floor."""
    half_life = 0.37
    h = Fraction(half_life)
    decay = Forgetting(half_life=half_life)
    rng = np.random.default_rng(8)
    positions = 1000 + np.cumsum(rng.integers(1, 5, 400))
    start, moved, rescales = int(positions[0]), 0, 0
    for index, position in enumerate(positions.tolist()):
        factor, rescale = decay.decay_newest(position, index == 0)
        exponent = (position - start) / h - moved  # exact, before this step's rescale
        if exponent > RESCALE_EXPONENTS:
            assert rescale == (math.floor(exponent), 2.0 ** -math.floor(exponent))
            moved += math.floor(exponent)
            rescales += 1
        else:
            assert rescale is None
        assert decay.newest_position() == position and decay.step == position + 1
        assert math.log2(factor) == pytest.approx(float((position - start) / h - moved),
                                                  abs=1e-9)
        assert decay.factor_at(position) == factor
        assert 0.0 <= decay.anchor_fraction < 1.0
    assert rescales == decay.rescales >= 10
    # The anchor is the start moved by the whole half-lives, to within its rounding.
    anchor = decay.anchor + Fraction(decay.anchor_fraction)
    assert float(anchor - start - moved * h) == pytest.approx(0.0, abs=1e-9)


def test_decay_newest_refuses_going_back_and_a_forgetting_without_decay():
    by_count, by_time = Forgetting(half_life=2.0), Forgetting(half_life=5.0, decay_by_time=True)
    by_count.decay_newest(3, True)
    by_time.decay_newest(7, True)
    with pytest.raises(ValueError, match="step 3 is not after the newest, 3"):
        by_count.decay_newest(3, False)
    with pytest.raises(ValueError, match="time 6 is before the newest, 7"):
        by_time.decay_newest(6, False)
    assert (by_count.step, by_time.newest_time) == (4, 7)  # unchanged
    assert by_time.decay_newest(7, False) == (1.0, None)  # (a tie in time: the same factor)
    with pytest.raises(ValueError, match="no half-life"):
        Forgetting(count=3).decay_newest(0, True)


@pytest.mark.parametrize("timed", [False, True])
def test_decay_newest_is_the_rule_of_the_compiled_path(timed):
    """A Forgetting fed points through an engine (the windows' compiled path) and one given
    the same positions through ``decay_newest`` keep the same anchor and rescales, and the
    engine's stored weights are the factors ``decay_newest`` returned, rescaled since:
    bit for bit.  By time, a gap past the drop age empties the window and re-anchors."""
    n, half_life = 3000, (2.5 * SECOND if timed else 2.5)
    rng = np.random.default_rng(9)
    times = np.cumsum(rng.integers(0, 3, n)) * SECOND
    times[2000:] += 10**6 * SECOND  # (by time: every point leaves, the anchor moves there)
    windowed = Forgetting(half_life=half_life, decay_by_time=timed, needs_time=timed)
    engine = BlockedAUCEngine(16)
    assert engine.forget_add_many(windowed, rng.integers(0, 2, n).astype(np.uint8),
                                  rng.random(n), None, times if timed else None) == -1
    decay = Forgetting(half_life=half_life, decay_by_time=timed)
    factors = np.empty(n)
    positions = times if timed else np.arange(n)
    for index, position in enumerate(positions.tolist()):
        empty = index == 0 or (timed and index == 2000)
        factors[index], rescale = decay.decay_newest(position, empty)
        if rescale is not None:
            factors[:index] *= rescale[1]
    assert (windowed.anchor, windowed.anchor_fraction, windowed.rescales) == (
        decay.anchor, decay.anchor_fraction, decay.rescales)
    assert decay.rescales >= 10
    held = windowed.ring.size
    _, _, stored = windowed.ring.points()
    np.testing.assert_array_equal(stored / stored[-1], factors[-held:] / factors[-1])
    assert windowed.newest_factor() == pytest.approx(factors[-1], rel=1e-15)


def test_a_pickle_of_the_layout_before_forgetting_is_refused():
    """A state of the previous format (the decay as a tuple and an ``_anchor``) is refused
    with the format message, as every structure's of another format."""
    monitor = DelayedAUC(half_life=3.0)
    monitor.predict(0, 0.4)
    state = monitor.__getstate__()
    assert state["format"] == 3 and isinstance(state["_decay"], Forgetting)
    old = {**state, "format": 1, "_decay": (3.0, False, 180.0), "_anchor": (0, 0.0),
           "_newest_decay_at": 0}
    blank = DelayedAUC.__new__(DelayedAUC)
    with pytest.raises(ValueError, match="written in pickle format 1, and this version of "
                                         "hmeasure_stream reads format 3 only"):
        blank.__setstate__(old)
