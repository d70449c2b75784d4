"""DeLong's variance and interval maintained by DynamicAUC and the window metrics
"auc_var", "auc_lo", "auc_hi" (issue 17, item 2).

Checked against DeLong's definition in exact fractions (O(n^2), placements from
``reference_impl``, written independently of the package), against the from-scratch
``auc_variance`` / ``auc_ci`` (which equal R pROC: tests/data/proc_delong.json, used
here too), after every operation of random sequences with ties (``_check`` after each,
which also verifies the new aggregates), in a hypothesis state machine, and after 10^7
updates (no drift).
"""

import io
import json
import math
import pickle
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st
from machines import PointSetMachine, point_set_test
from reference_impl import columns, delong_variance_exact
from scipy import stats

from hmeasure_stream import (
    ConfidenceLevel,
    DynamicAUC,
    DynamicH,
    SlidingWindow,
    auc_ci,
    auc_variance,
    partial_auc,
    sliding_window,
)
from hmeasure_stream._engines._blocked import BlockedAUCEngine
from hmeasure_stream._engines._read_delong import variance
from hmeasure_stream.cli import main

# Random data: the from-scratch references may see an AUC below 0.5.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

PROC = json.loads((Path(__file__).parents[1] / "data" / "proc_delong.json").read_text())
INTERVAL = ("auc", "auc_var", "auc_lo", "auc_hi")


# ---------------------------------------------------------------------------
# The definition, exact and O(n^2)


def tolerance(points):
    """Rounding allowed in weighted mode: the variance is a difference of mean squared
    placements (<= 1) and the squared AUC, each divided by W - 1."""
    total = {0: 0.0, 1: 0.0}
    for label, _, weight in points:
        total[label] += weight
    return 1e-12 * (1.0 / (total[0] - 1.0) + 1.0 / (total[1] - 1.0))


def assert_variance(tracker, points, exact):
    expected = delong_variance_exact(*columns(points))
    maintained = tracker.auc_variance
    interval = tracker.auc_ci()
    if expected is None:
        assert math.isnan(maintained)
        assert math.isnan(interval.low) and math.isnan(interval.high)
        return
    if exact:
        # Exact integers rounded once (plus the denominator's few roundings).
        assert maintained == pytest.approx(float(expected), rel=1e-14, abs=0.0)
        if expected == 0:
            assert maintained == 0.0
    else:
        assert abs(maintained - float(expected)) <= 1e-12 * float(expected) + tolerance(points)
    y = [p[0] for p in points]
    s = [p[1] for p in points]
    w = None if exact else [p[2] for p in points]
    scratch = auc_variance(y, s, sample_weight=w)
    assert maintained == pytest.approx(scratch, rel=1e-12, abs=tolerance(points))
    low, high = auc_ci(y, s, sample_weight=w)
    assert interval.estimate == tracker.auc
    # sqrt(v) moves by dv / (2 sqrt(v)); z < 2.
    spread = 1e-12 + (0.0 if exact else tolerance(points) / math.sqrt(max(scratch, 1e-300)))
    assert interval.low == pytest.approx(low, rel=1e-12, abs=spread)
    assert interval.high == pytest.approx(high, rel=1e-12, abs=spread)


# ---------------------------------------------------------------------------
# After every operation


@pytest.mark.parametrize("seed", range(12))
def test_random_sequences_equal_the_definition_after_every_operation(seed):
    rng = np.random.default_rng(seed)
    weighted = seed % 2 == 1
    distinct = [2, 4, 15, None][seed % 4]
    tracker = DynamicAUC(variance=True, capacity=1)
    points = []
    for step in range(160):
        if points and rng.random() < 0.4:
            label, score, weight = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score, weight)
        elif rng.random() < 0.15:
            size = int(rng.integers(1, 5))
            batch = [(int(rng.integers(2)),
                      float(rng.normal()) if distinct is None else float(rng.integers(distinct)),
                      float(rng.choice([0.5, 1.0, 2.0, 3.25])) if weighted else 1.0)
                     for _ in range(size)]
            tracker.add_many(*(list(column) for column in zip(*batch, strict=True)))
            points.extend(batch)
        else:
            label = int(rng.integers(2))
            score = float(rng.normal()) if distinct is None else float(rng.integers(distinct))
            weight = float(rng.choice([0.0, 0.5, 1.0, 2.0, 3.25])) if weighted else 1.0
            tracker.add(label, score, weight)
            points.append((label, score, weight))
        tracker._check()
        if step % 3 == 0 or len(points) < 12:
            assert_variance(tracker, points, exact=not weighted)
    for label, score, weight in points:
        tracker.remove(label, score, weight)
        tracker._check()
    assert math.isnan(tracker.auc_variance)
    tracker.add_many([0, 0, 1, 1], [1.0, 2.0, 1.5, 3.0])
    assert_variance(tracker, [(0, 1.0, 1.0), (0, 2.0, 1.0), (1, 1.5, 1.0), (1, 3.0, 1.0)],
                    exact=True)


@pytest.mark.parametrize("seed", range(4))
def test_one_pair_weight_serves_the_variance_and_the_partial_area(seed):
    # The subtree pair weight (2U of each subtree) is the partial area's and the
    # variance's: kept by the variance's increments, it must still give the
    # from-scratch partial area, and the variance the definition's value.
    rng = np.random.default_rng(seed)
    tracker = DynamicAUC(variance=True, capacity=1)
    plain = DynamicAUC(capacity=1)  # its pair sums start with its first read
    points = []
    for step in range(150):
        if points and rng.random() < 0.4:
            label, score, _ = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score)
            plain.remove(label, score)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(1 + seed * 6))
            tracker.add(label, score)
            plain.add(label, score)
            points.append((label, score, 1.0))
        tracker._check()
        if step == 75:
            tracker = pickle.loads(pickle.dumps(tracker))
        y = [p[0] for p in points]
        if 0 < sum(y) < len(y):
            for fpr_range in ((0.1, 0.7), (0.0, 0.35)):
                assert tracker.partial_auc(fpr_range=fpr_range) == partial_auc(
                    y, [p[1] for p in points], fpr_range=fpr_range)
        if step % 5 == 0:
            assert_variance(tracker, points, exact=True)
    # Nothing is stored for the variance in unit mode beyond the pair weights.
    assert tracker.nbytes == plain.nbytes


def test_all_ties_and_separated_classes_are_exact():
    tracker = DynamicAUC(capacity=1)
    tracker.add_many([0, 0, 1, 1, 1], [2.0, 2.0, 2.0, 2.0, 2.0])
    assert tracker.auc == 0.5 and tracker.auc_variance == 0.0  # every placement is 1/2
    tracker.remove_many([0, 0, 1, 1, 1], [2.0] * 5)
    tracker.add_many([0, 0, 1, 1], [0.0, 1.0, 2.0, 3.0])
    assert tracker.auc == 1.0 and tracker.auc_variance == 0.0
    interval = tracker.auc_ci()
    assert (*interval, interval.estimate) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("name", sorted(PROC["datasets"]))
@pytest.mark.parametrize("which", ["1", "2"])
def test_maintained_variance_equals_proc(name, which):
    entry = PROC["datasets"][name]
    y, s = entry["y"], entry["s" + which]
    tracker = DynamicAUC()
    tracker.add_many(y, s)
    assert tracker.auc_variance == pytest.approx(entry["var" + which], rel=1e-12, abs=0.0)
    for level in PROC["levels"]:
        low, _, high = entry["ci" + which][str(level)]
        interval = tracker.auc_ci(level)
        assert interval.low == pytest.approx(low, rel=1e-12, abs=0.0)
        assert interval.high == pytest.approx(high, rel=1e-12, abs=0.0)
    # Removing the second half and adding it back (in reverse order) changes nothing.
    half = len(y) // 2
    tracker.remove_many(y[half:], s[half:])
    tracker.add_many(y[half:][::-1], s[half:][::-1])
    assert tracker.auc_variance == pytest.approx(entry["var" + which], rel=1e-12, abs=0.0)


def test_weights_count_as_frequencies_and_a_common_scale_matters():
    # Integer weights are repeated points; all weights 2 are every point twice.
    tracker = DynamicAUC()
    tracker.add_many([0, 0, 1, 1, 0], [0.1, 0.4, 0.35, 0.8, 0.6], sample_weight=[2, 1, 3, 1, 1])
    repeated = DynamicAUC()
    repeated.add_many([0, 0, 0, 1, 1, 1, 1, 0], [0.1, 0.1, 0.4, 0.35, 0.35, 0.35, 0.8, 0.6])
    assert tracker.auc_variance == pytest.approx(repeated.auc_variance, rel=1e-13)
    doubled = DynamicAUC()  # unit mode (every stored weight 1) in units of 2
    doubled.add_many([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[2.0] * 4)
    assert doubled.auc_variance == pytest.approx(
        float(delong_variance_exact([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], [2] * 4)),
        rel=1e-14)
    assert doubled.auc_variance < auc_variance([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    # A class of total weight <= 1: undefined (auc_variance refuses it).
    light = DynamicAUC()
    light.add_many([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8], sample_weight=[0.5, 0.5, 1.0, 1.0])
    assert math.isnan(light.auc_variance) and not math.isnan(light.auc)


def test_decayed_weights_relative_to_the_newest_point():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300) + y, 1)
    tracker = DynamicAUC(half_life=40.0, variance=True)
    for chunk in np.array_split(np.arange(300), 7):
        tracker.add_many(y[chunk], s[chunk])
        end = chunk[-1] + 1
        ages = end - 1 - np.arange(end)
        weights = 2.0 ** (-ages / 40.0)
        assert tracker.auc_variance == pytest.approx(
            auc_variance(y[:end], s[:end], sample_weight=weights), rel=1e-9)


def test_count_window_and_merge_and_pickle():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 400)
    s = rng.integers(0, 30, 400) / 10
    windowed = DynamicAUC(window=100, variance=True)
    windowed.add_many(y, s)
    assert windowed.auc_variance == pytest.approx(auc_variance(y[-100:], s[-100:]), rel=1e-13)
    copy = pickle.loads(pickle.dumps(windowed))
    assert copy.auc_variance == windowed.auc_variance
    copy.add_many(y[:50], s[:50])
    windowed.add_many(y[:50], s[:50])
    assert copy.auc_variance == windowed.auc_variance
    # merge: the larger side's engine is copied, or the smaller one's points added.
    for first, second in ((slice(0, 50), slice(50, 400)), (slice(0, 350), slice(350, 400))):
        east, west = DynamicAUC(variance=True), DynamicAUC(variance=bool(first.stop > 100))
        east.add_many(y[first], s[first])
        west.add_many(y[second], s[second])
        east.merge(west)
        east._check()
        assert east.auc_variance == pytest.approx(auc_variance(y, s), rel=1e-13)
    # A DynamicH's points merge in as well.
    hull = DynamicH()
    hull.add_many(y[:200], s[:200])
    east = DynamicAUC(variance=True)
    east.add_many(y[200:], s[200:])
    east.merge(hull)
    assert east.auc_variance == pytest.approx(auc_variance(y, s), rel=1e-13)


def test_variance_enabled_on_a_filled_engine_and_back_to_unit_mode():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200).astype(np.uint8)
    s = rng.integers(0, 12, 200).astype(np.float64)
    engine = BlockedAUCEngine(1, block_limit=3)
    engine.add_many(y, s, None)
    assert math.isnan(variance(engine, 1.0))  # not tracked yet
    engine.track_variance()  # O(n) once, on the points held
    engine._check()
    assert variance(engine, 1.0) == pytest.approx(auc_variance(y, s), rel=1e-14)
    w = rng.uniform(0.5, 2.0, 200)
    engine.add_many(y, s, w)  # weighted mode from here
    engine._check()
    both_w = np.concatenate([np.ones(200), w])
    assert variance(engine, engine.scale) == pytest.approx(
        auc_variance(np.tile(y, 2), np.tile(s, 2), sample_weight=both_w), rel=1e-11)
    engine.remove_many(y, s, w)
    engine.remove_many(y, s, None)
    engine._check()
    assert engine.unit_weights and math.isnan(variance(engine, 1.0))
    engine.add_many(y, s, None)  # unit mode again, exact
    engine._check()
    assert variance(engine, 1.0) == pytest.approx(auc_variance(y, s), rel=1e-14)


def test_first_read_starts_maintaining_the_variance():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 2, 300)
    s = rng.integers(0, 20, 300) / 4
    w = rng.choice([0.5, 1.0, 3.0], 300)
    for weights in (None, w):
        tracker = DynamicAUC()
        tracker.add_many(y[:200], s[:200], sample_weight=None if weights is None else w[:200])
        assert not tracker._engine.tracks_variance  # opt-in: updates cost nothing more
        points = [(int(a), float(b), 1.0 if weights is None else float(c))
                  for a, b, c in zip(y, s, w, strict=True)]
        assert_variance(tracker, points[:200], exact=weights is None)  # O(n) once
        assert tracker._engine.tracks_variance
        for index in range(200, 300):
            tracker.add(*points[index])
            tracker.remove(*points[index - 200])
            tracker._check()
        assert_variance(tracker, points[100:], exact=weights is None)
    with pytest.raises(ValueError, match="variance must be True or False"):
        DynamicAUC(variance="yes")


def test_refused_calls_change_nothing():
    tracker = DynamicAUC()
    tracker.add_many([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    before = pickle.dumps(tracker)
    for level in (0.0, 1.0, 1.5, "0.9", True, float("nan")):
        with pytest.raises(ValueError, match="level"):
            tracker.auc_ci(level)
    with pytest.raises(KeyError):
        tracker.remove(1, 0.5)
    assert pickle.dumps(tracker) == before


def test_interval_uses_the_normal_quantiles():
    tracker = DynamicAUC()
    y = [0, 0, 1, 0, 1, 1, 0, 1, 1, 0]
    s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.15, 0.6]
    tracker.add_many(y, s)
    spread = math.sqrt(float(delong_variance_exact(list(y), list(s))))
    for level in (0.5, 0.9, 0.99):
        z = stats.norm.ppf((1 + level) / 2)
        low, high = tracker.auc_ci(level)
        assert low == pytest.approx(max(tracker.auc - z * spread, 0.0), rel=1e-13)
        assert high == pytest.approx(min(tracker.auc + z * spread, 1.0), rel=1e-13)


class VarianceMachine(PointSetMachine):
    """Random single and batch updates, weighted or not: the variance after each step."""

    scores = st.sampled_from([-1.0, 0.0, 0.25, 0.5, 2.0])
    weights = st.sampled_from([1.0, 1.0, 1.0, 0.5, 3.0, 0.0, 2.0])

    def make(self):
        return DynamicAUC(variance=True, capacity=1)

    def matches(self, tracker, points, exact):
        assert_variance(tracker, points, exact)


TestVarianceMachine = point_set_test(VarianceMachine)


# ---------------------------------------------------------------------------
# No drift


def exact_unit_variance(y, s):
    """DeLong's variance for unit weights from exact integer placement counts (O(n log n),
    numpy grouping and Python integers), as a Fraction."""
    values, inverse = np.unique(s, return_inverse=True)
    neg = np.bincount(inverse[y == 0], minlength=values.size).tolist()
    pos = np.bincount(inverse[y == 1], minlength=values.size).tolist()
    m, n = sum(pos), sum(neg)
    below = [0]
    for count in neg[:-1]:
        below.append(below[-1] + count)
    above = [0]
    for count in reversed(pos[1:]):
        above.append(above[-1] + count)
    above.reverse()
    a = [(2 * below[k] + neg[k], pos[k]) for k in range(values.size)]
    b = [(2 * above[k] + pos[k], neg[k]) for k in range(values.size)]
    twice_u = sum(value * count for value, count in a)
    spread_pos = Fraction(sum(count * (m * value - twice_u) ** 2 for value, count in a),
                          m * (2 * m * n) ** 2 * (m - 1))
    spread_neg = Fraction(sum(count * (n * value - twice_u) ** 2 for value, count in b),
                          n * (2 * m * n) ** 2 * (n - 1))
    return spread_pos + spread_neg


@pytest.mark.slow
def test_no_drift_after_ten_million_updates():
    rng = np.random.default_rng(17)
    n, window = 5_000_000, 2000
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 500, n) / 7.0  # many ties
    tracker = DynamicAUC(window=window, variance=True)
    for chunk in np.array_split(np.arange(n), 10):
        tracker.add_many(y[chunk], s[chunk])  # 2 updates a point once the window is full
    tracker._check()  # the 128-bit sums equal their recomputation exactly
    expected = exact_unit_variance(y[-window:], s[-window:])
    assert tracker.auc_variance == pytest.approx(float(expected), rel=1e-14, abs=0.0)
    assert tracker.auc_variance == pytest.approx(auc_variance(y[-window:], s[-window:]),
                                                 rel=1e-13)
    # Weighted: the subtree sums are recomputed from the children, nothing accumulates.
    w = rng.uniform(0.1, 10.0, n // 5)
    weighted = DynamicAUC(window=window, variance=True)
    weighted.add_many(y[:n // 5], s[:n // 5], sample_weight=w)
    weighted._check()
    assert weighted.auc_variance == pytest.approx(
        auc_variance(y[n // 5 - window:n // 5], s[n // 5 - window:n // 5],
                     sample_weight=w[-window:]), rel=1e-10)


def test_large_counts_stay_exact(rng):
    # The sums of squares beyond 2**53, and m times them (formed in the read) beyond 2**64.
    n = 400_000
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 3000, n).astype(np.float64)
    tracker = DynamicAUC(variance=True)
    tracker.add_many(y, s)
    tracker._check()
    squares = tracker._engine.placement_squares()
    assert min(squares) > 2**53 and squares[0] * int(y.sum()) > 2**64
    assert tracker.auc_variance == pytest.approx(float(exact_unit_variance(y, s)), rel=1e-14)


@pytest.mark.slow
def test_sums_of_squares_beyond_two_to_the_64_stay_exact():
    rng = np.random.default_rng(2)
    n = 6_000_000
    y = (rng.random(n) < 1 / 3).astype(np.int64)
    s = rng.integers(0, 3000, n).astype(np.float64)
    tracker = DynamicAUC(variance=True)
    for chunk in np.array_split(np.arange(n), 4):
        tracker.add_many(y[chunk], s[chunk])
    tracker._check()  # the 128-bit sums equal their recomputation in Python integers
    assert min(tracker._engine.placement_squares()) > 2**64
    assert tracker.auc_variance == pytest.approx(float(exact_unit_variance(y, s)), rel=1e-14)
    tracker.remove_many(y[: n // 2], s[: n // 2])
    tracker._check()
    assert tracker.auc_variance == pytest.approx(
        float(exact_unit_variance(y[n // 2:], s[n // 2:])), rel=1e-14)


# ---------------------------------------------------------------------------
# Window metrics


def window_reference(y, s, w, end, length, level=0.95):
    part = slice(max(0, end + 1 - length), end + 1)
    yy, ss = y[part], s[part]
    ww = None if w is None else w[part]
    totals = [np.sum(np.where(yy == label, 1.0 if ww is None else ww, 0.0)) for label in (0, 1)]
    if not (totals[0] > 1 and totals[1] > 1):
        return None
    return auc_variance(yy, ss, sample_weight=ww), auc_ci(yy, ss, level=level, sample_weight=ww)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("length", [1, 5, 40])
def test_sliding_window_interval_equals_scratch_on_every_window(rng, weighted, length):
    n = 300
    y = rng.integers(0, 2, n)
    s = rng.integers(0, 8, n) / 4
    w = rng.choice([0.5, 1.0, 2.0, 4.0], n) if weighted else None
    result = sliding_window(y, s, length, metrics=(*INTERVAL, ConfidenceLevel(0.9)),
                            sample_weight=w)
    assert set(result) == set(INTERVAL)
    for end in range(n):
        expected = window_reference(y, s, w, end, length, level=0.9)
        if expected is None:
            for name in INTERVAL[1:]:
                assert np.isnan(result[name][end])
            continue
        variance, (low, high) = expected
        assert result["auc_var"][end] == pytest.approx(variance, rel=1e-12, abs=1e-15)
        assert result["auc_lo"][end] == pytest.approx(low, rel=1e-12, abs=1e-14)
        assert result["auc_hi"][end] == pytest.approx(high, rel=1e-12, abs=1e-14)


def test_sliding_window_chunks_properties_and_other_metrics(rng):
    n = 500
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)
    whole = sliding_window(y, s, 60, metrics=("h", "auc_lo", "auc_hi", "auc_var", "sens"))
    monitor = SlidingWindow(60, metrics=("h", "auc_lo", "auc_hi", "auc_var", "sens"))
    parts = [monitor.update(y[chunk], s[chunk]) for chunk in np.array_split(np.arange(n), 9)]
    monitor._check()
    for name in ("auc_lo", "auc_hi", "auc_var", "sens"):  # exact: the same in any chunks
        np.testing.assert_array_equal(np.concatenate([p[name] for p in parts]), whole[name])
    np.testing.assert_allclose(np.concatenate([p["h"] for p in parts]), whole["h"], rtol=1e-12)
    variance, (low, _) = window_reference(y, s, None, n - 1, 60)
    assert monitor["auc_var"] == pytest.approx(variance, rel=1e-12)
    assert (monitor["auc_lo"], monitor["auc_hi"]) == (whole["auc_lo"][-1], whole["auc_hi"][-1])
    assert monitor["auc_lo"] == pytest.approx(low, rel=1e-12)
    restored = pickle.loads(pickle.dumps(monitor))
    assert restored.update(y[:10], s[:10])["auc_hi"].tolist() == \
        monitor.update(y[:10], s[:10])["auc_hi"].tolist()
    with pytest.raises(KeyError, match="auc_var"):
        _ = SlidingWindow(5)["auc_var"]
    with pytest.raises(ValueError, match="level"):
        SlidingWindow(5, metrics=("auc_lo", ConfidenceLevel(level=1.0)))


def test_window_with_decay_and_duration(rng):
    n = 240
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1)
    times = np.arange(n) * 10.0
    result = sliding_window(y, s, "600s", metrics=("auc_var",), times=times, half_life="300s")
    for end in (50, 120, n - 1):
        inside = (times > times[end] - 600) & (np.arange(n) <= end)
        weights = 2.0 ** (-(times[end] - times[inside]) / 300.0)
        assert result["auc_var"][end] == pytest.approx(
            auc_variance(y[inside], s[inside], sample_weight=weights), rel=1e-9)


def test_cli_writes_the_interval_and_alerts_on_it(tmp_path, rng):
    n = 400
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 2)
    source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
    source.write_text("label,score\n" + "".join(
        f"{int(a)},{float(b)!r}\n" for a, b in zip(y, s, strict=True)))
    code = main([str(source), "--window", "100", "--metrics", "auc,auc_lo,auc_hi,auc_var",
                 "--out", str(out), "--chunk-size", "64", "--no-progress"],
                stdout=io.StringIO())
    assert code == 0
    table = np.genfromtxt(out, delimiter=",", names=True)
    expected = sliding_window(y, s, 100, metrics=INTERVAL)
    for name in INTERVAL:
        np.testing.assert_allclose(table[name], expected[name], rtol=1e-15, atol=0)


def test_plot_draws_the_interval_as_a_band(rng):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    from hmeasure_stream.plotting import plot_metrics

    y = rng.integers(0, 2, 200)
    s = rng.normal(size=200) + y
    result = sliding_window(y, s, 50, metrics=("auc", "auc_lo", "auc_hi"))
    ax = plot_metrics(result)
    assert [line.get_label() for line in ax.get_lines()] == ["AUC"]
    assert [text.get_text() for text in ax.get_legend().get_texts()] == [
        "AUC", "AUC 95% CI (DeLong)"]
    (band,) = ax.collections
    # The band's outline spans the interval (nan where undefined).
    vertices = band.get_paths()[0].vertices
    assert np.nanmin(vertices[:, 1]) == pytest.approx(np.nanmin(result["auc_lo"]))
    assert np.nanmax(vertices[:, 1]) == pytest.approx(np.nanmax(result["auc_hi"]))
    matplotlib.pyplot.close(ax.figure)
