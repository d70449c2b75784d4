"""The maintained ROC hull when the weights it holds span far more than float64's mantissa.

A hull vertex's coordinates are sums of weights; when the weights held at one
time differ by more than 2^53, the difference of two such sums loses the
small edges between them entirely.  The hull's orientation tests must never
depend on such differences.  Every step is checked against an exact H
computed here in rational arithmetic (the hull of the ROC points in
Fractions, the Beta(2, 2) cost integrated in closed form), and against the
package's from-scratch ``h_measure``.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest

from hmeasure_stream import ApproxH, DynamicH, h_measure

# h_measure is a reference here, on random data whose AUC may be below 0.5: its
# InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def _exact_upper_hull(y, s, w):
    """Vertices (F, T) of the upper ROC hull in exact class weights, from (0, 0).

    Groups of equal scores from the highest score down, cumulative weights in
    Fractions (each weight read exactly as its float), Andrew's monotone chain
    keeping only strictly clockwise turns.
    """
    groups = {}
    for label, score, weight in zip(y, s, w, strict=True):
        neg, pos = groups.get(score, (Fraction(0), Fraction(0)))
        if label:
            pos += Fraction(float(weight))
        else:
            neg += Fraction(float(weight))
        groups[score] = (neg, pos)
    hull = [(Fraction(0), Fraction(0))]
    fp = tp = Fraction(0)
    for score in sorted(groups, reverse=True):
        fp += groups[score][0]
        tp += groups[score][1]
        while len(hull) >= 2:
            (ax, ay), (bx, by) = hull[-2], hull[-1]
            # Keep b only if the turn a -> b -> (fp, tp) is strictly clockwise.
            if (bx - ax) * (tp - by) - (by - ay) * (fp - bx) < 0:
                break
            hull.pop()
        if (fp, tp) != hull[-1]:
            hull.append((fp, tp))
    return hull


def _integral(F, R, a, b):
    """int_a^b (c F + (1 - c) R) 6 c (1 - c) dc, exactly (the Beta(2, 2) density)."""

    def antiderivative(c):
        return F * (2 * c**3 - Fraction(3, 2) * c**4) + R * (
            3 * c**2 - 4 * c**3 + Fraction(3, 2) * c**4)

    return antiderivative(b) - antiderivative(a)


def exact_h(y, s, w, priors=None):
    """Hand's H-measure with Beta(2, 2) costs, exactly (a Fraction).

    In units where a vertex's loss at cost c is c x + (1 - c) (pi1 - y), with
    x = pi0 F / N0 and y = pi1 T / N1 (the normalised rates times the
    priors), vertex k of the hull is optimal for c between the critical costs
    of its two edges, c = dy / (dx + dy) (decreasing along the hull).
    """
    hull = _exact_upper_hull(y, s, w)
    n0, n1 = hull[-1]
    if priors is None:
        pi0, pi1 = n0 / (n0 + n1), n1 / (n0 + n1)
    else:
        pi0, pi1 = (Fraction(float(p)) for p in priors)
    points = [(pi0 * fp / n0, pi1 * tp / n1) for fp, tp in hull]
    # Critical costs: vertex k is optimal on (cuts[k + 1], cuts[k]).
    cuts = [Fraction(1)]
    for (ax, ay), (bx, by) in itertools.pairwise(points):
        cuts.append((by - ay) / ((bx - ax) + (by - ay)))
    cuts.append(Fraction(0))
    loss = sum(_integral(x, pi1 - yk, cuts[k + 1], cuts[k])
               for k, (x, yk) in enumerate(points))
    loss_max = _integral(Fraction(0), pi1, pi1, Fraction(1)) + _integral(
        pi0, Fraction(0), Fraction(0), pi1)
    return 1 - loss / loss_max


def test_exact_h_reference_agrees_with_h_measure_at_ordinary_weights(rng):
    # The reference itself: unit and ordinary weights, where floats lose nothing.
    for _ in range(20):
        n = int(rng.integers(2, 40))
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        s = np.round(rng.normal(size=n) + y, 1)
        w = rng.uniform(0.1, 3.0, n)
        assert float(exact_h(y, s, w)) == pytest.approx(
            h_measure(y, s, sample_weight=w), abs=1e-12)
        priors = (0.3, 0.7)
        assert float(exact_h(y, s, w, priors)) == pytest.approx(
            h_measure(y, s, sample_weight=w, priors=priors), abs=1e-12)


def growing_stream(seed, steps, growth, sequential_scores):
    """Point i: label i % 2, weight (1 + u) 2^(growth i), score i or uniform."""
    rng = np.random.default_rng(seed)
    y = np.arange(steps) % 2
    s = np.arange(steps, dtype=float) if sequential_scores else rng.random(steps)
    w = (1.0 + rng.random(steps)) * 2.0 ** (growth * np.arange(steps))
    return y, s, w


# (seed, steps, growth, window, sequential scores): the newest point weighs
# 2^(growth window) times the oldest one held, 2^62 .. 2^65.  Each of these
# kept a wrong hull before the orientation tests were made independent of
# the coordinates' magnitude (their _check failed first at steps 76, 182,
# 346 and about 1150).
SPREADS = [
    (6, 199, 2.0, 31, False),
    (3, 199, 2.0, 31, True),
    (0, 399, 1.0, 64, False),
    (1, 1400, 0.25, 260, True),
]


@pytest.mark.parametrize(("seed", "steps", "growth", "window", "sequential"), SPREADS)
def test_dynamic_h_holds_the_exact_hull_across_a_wide_spread_of_weights(
        seed, steps, growth, window, sequential):
    y, s, w = growing_stream(seed, steps, growth, sequential)
    tracker = DynamicH(capacity=1)
    for i in range(steps):
        tracker.add(int(y[i]), float(s[i]), float(w[i]))
        if i >= window:
            tracker.remove(int(y[i - window]), float(s[i - window]), float(w[i - window]))
        tracker._check()
        held = slice(max(0, i - window + 1), i + 1)
        if len(set(y[held].tolist())) < 2:
            continue
        # Exact H at every step of the short runs; at every 7th of the long one.
        if steps < 1000 or i % 7 == 0:
            assert tracker.h == pytest.approx(float(exact_h(y[held], s[held], w[held])),
                                              abs=1e-10)
        assert tracker.h == pytest.approx(h_measure(y[held], s[held], sample_weight=w[held]),
                                          abs=1e-10)


@pytest.mark.parametrize(("seed", "steps", "growth", "window", "sequential"), SPREADS[:3])
def test_approx_h_stays_within_its_bound_across_a_wide_spread_of_weights(
        seed, steps, growth, window, sequential):
    y, s, w = growing_stream(seed, steps, growth, sequential)
    priors, epsilon = (0.4, 0.6), 0.05
    tracker = ApproxH(epsilon, priors=priors, capacity=1)
    for i in range(steps):
        tracker.add(int(y[i]), float(s[i]), float(w[i]))
        if i >= window:
            tracker.remove(int(y[i - window]), float(s[i - window]), float(w[i - window]))
        tracker._check()
        held = slice(max(0, i - window + 1), i + 1)
        if len(set(y[held].tolist())) < 2:
            continue
        exact = float(exact_h(y[held], s[held], w[held], priors))
        assert abs(tracker.h - exact) <= epsilon * (1.0 - exact) + 1e-10


@pytest.mark.slow
def test_decay_holds_sixty_half_lives_in_the_hull(rng):
    # Points leave at 2^-60 of the newest, as in DynamicAUC: with a half-life of
    # 20 points the tracker holds 1201 points whose weights span 2^60.
    half_life, n = 20, 5000
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    w = rng.uniform(0.5, 2.0, n)
    tracker = DynamicH(half_life=half_life)
    for i in range(n):
        tracker.add(int(y[i]), float(s[i]), float(w[i]))
        tracker._check()
        held = np.arange(max(0, i - 60 * half_life), i + 1)
        assert len(tracker) == held.size
        decayed = w[held] * 2.0 ** (-(i - held) / half_life)
        if len(set(y[held].tolist())) < 2:
            continue
        assert tracker.h == pytest.approx(
            h_measure(y[held], s[held], sample_weight=decayed), abs=1e-10)
        if i % 500 == 0 or i == n - 1:
            assert tracker.h == pytest.approx(
                float(exact_h(y[held], s[held], decayed)), abs=1e-10)
    assert tracker._forgetting.rescales > 0


@pytest.mark.slow
def test_approx_h_with_decay_holds_sixty_half_lives(rng):
    half_life, n, epsilon, priors = 20, 3000, 0.05, (0.5, 0.5)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + y
    tracker = ApproxH(epsilon, priors=priors, half_life=half_life)
    for i in range(n):
        tracker.add(int(y[i]), float(s[i]))
        if i % 10 and i != n - 1:
            continue
        tracker._check()
        held = np.arange(max(0, i - 60 * half_life), i + 1)
        assert len(tracker) == held.size
        if len(set(y[held].tolist())) < 2:
            continue
        exact = h_measure(y[held], s[held], sample_weight=2.0 ** (-(i - held) / half_life),
                          priors=priors)
        assert abs(tracker.h - exact) <= epsilon * (1.0 - exact) + 1e-10
