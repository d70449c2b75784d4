"""Windows and decay on the structures (DynamicAUC, DynamicH, ApproxH), against from scratch.

Every value is compared with a computation on the rows the window covers,
chosen here by brute force from the whole stream: the exact weighted
Mann-Whitney AUC (O(n^2), tests/reference_impl.py) and ``h_measure`` (tested
against R's hmeasure elsewhere) with ``sample_weight = 2^(-age / half_life)``.
"""

import datetime
import pickle

import numpy as np
import pandas as pd
import pytest
from reference_impl import brute_auc, brute_auc_value

from hmeasure_stream import ApproxH, DynamicAUC, DynamicH, h_measure

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

# Decayed points leave after this many half-lives (2^-60 of the newest), in every structure.
DROP = 60

STRUCTURES = {
    "auc": lambda **kw: DynamicAUC(**kw),
    "h": lambda **kw: DynamicH(**kw),
    "approx_h": lambda **kw: ApproxH(0.05, **kw),
}


def stream(rng, n, ties=True):
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y, 1 if ties else 12)
    return y, s


def assert_values(structure, kind, y, s, w=None):
    """The structure's metrics equal the from-scratch ones of (y, s, w)."""
    y, s = np.asarray(y), np.asarray(s)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    both = w[y == 1].sum() > 0 and w[y == 0].sum() > 0
    if not both:
        assert np.isnan(structure.auc)
        return
    assert structure.auc == pytest.approx(brute_auc_value(y, s, w, exact=False), abs=1e-10)
    if kind == "h":
        assert structure.h == pytest.approx(h_measure(y, s, sample_weight=w), abs=1e-10)
    elif kind == "approx_h":
        exact = h_measure(y, s, sample_weight=w)
        assert abs(structure.h - exact) <= 0.05 * (1 - exact) + 1e-9


# ----------------------------------------------------------------------
# Count windows


@pytest.mark.parametrize("kind", list(STRUCTURES))
@pytest.mark.parametrize("window", [1, 2, 7])
def test_count_window_equals_the_last_rows(kind, window, rng):
    y, s = stream(rng, 60)
    tracker = STRUCTURES[kind](window=window, capacity=1)
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]))
        tracker._check()
        low = max(0, i + 1 - window)
        assert len(tracker) == i + 1 - low
        assert_values(tracker, kind, y[low:i + 1], s[low:i + 1])


def test_count_window_is_exact_with_unit_weights(rng):
    y, s = stream(rng, 80)
    tracker = DynamicAUC(window=9)
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]))
        rows = slice(max(0, i - 8), i + 1)
        if len(set(y[rows].tolist())) == 2:
            assert tracker.auc == float(brute_auc(y[rows].tolist(), s[rows].tolist()))


@pytest.mark.parametrize("kind", list(STRUCTURES))
def test_count_window_batches_enter_and_leave_in_one_call(kind, rng):
    y, s = stream(rng, 300)
    w = rng.choice([0.5, 1.0, 2.0, 3.25], size=len(y))
    tracker = STRUCTURES[kind](window=10, capacity=1)
    start = 0
    while start < len(y):
        stop = min(len(y), start + int(rng.integers(0, 25)))  # batches longer than the window
        tracker.add_many(y[start:stop], s[start:stop], sample_weight=w[start:stop])
        tracker._check()
        low = max(0, stop - 10)
        assert_values(tracker, kind, y[low:stop], s[low:stop], w[low:stop])
        start = stop


# ----------------------------------------------------------------------
# Time windows


def irregular_times(rng, n):
    """Seconds since the epoch with gaps of 0 (ties), small and large."""
    gaps = rng.choice([0, 0, 1, 2, 5, 30], size=n)
    return 1.7e9 + np.cumsum(gaps).astype(float)


@pytest.mark.parametrize("kind", list(STRUCTURES))
@pytest.mark.parametrize("window", ["10s", datetime.timedelta(seconds=3), np.timedelta64(45, "s")])
def test_time_window_equals_the_rows_in_the_period(kind, window, rng):
    y, s = stream(rng, 120)
    t = irregular_times(rng, len(y))
    period = {"10s": 10, datetime.timedelta(seconds=3): 3}.get(window, 45)
    tracker = STRUCTURES[kind](window=window, capacity=1)
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]), time=float(t[i]))
        tracker._check()
        rows = (t > t[i] - period) & (np.arange(len(y)) <= i)
        assert len(tracker) == rows.sum()
        assert_values(tracker, kind, y[rows], s[rows])


@pytest.mark.parametrize("kind", list(STRUCTURES))
def test_time_window_batches_with_ties_in_time(kind, rng):
    y, s = stream(rng, 400)
    t = irregular_times(rng, len(y))
    stamps = pd.to_datetime(t, unit="s")
    tracker = STRUCTURES[kind](window="1min", capacity=1)
    start = 0
    while start < len(y):
        stop = min(len(y), start + int(rng.integers(1, 40)))
        tracker.add_many(y[start:stop], s[start:stop], times=stamps[start:stop])
        tracker._check()
        rows = (t > t[stop - 1] - 60) & (np.arange(len(y)) < stop)
        assert_values(tracker, kind, y[rows], s[rows])
        start = stop


def test_every_time_format_gives_the_same_window(rng):
    y, s = stream(rng, 50)
    seconds = 1.7e9 + np.cumsum(rng.integers(0, 4, len(y)))
    stamps = pd.to_datetime(seconds, unit="s")
    formats = [
        seconds,                                            # epoch seconds (float)
        seconds.astype(np.int64),                           # epoch seconds (int)
        stamps.values,                                      # datetime64[ns]
        stamps.values.astype("datetime64[s]"),              # another unit
        pd.Series(stamps).dt.tz_localize("UTC").dt.tz_convert("Europe/Helsinki"),
        [stamp.isoformat() for stamp in stamps],            # ISO 8601 strings
        list(stamps.to_pydatetime()),                       # datetime objects
    ]
    values = []
    for times in formats:
        tracker = DynamicAUC(window="5s")
        tracker.add_many(y, s, times=times)
        values.append((tracker.auc, len(tracker)))
    singles = DynamicAUC(window=datetime.timedelta(seconds=5))
    for i in range(len(y)):
        singles.add(int(y[i]), float(s[i]), time=stamps[i])
    values.append((singles.auc, len(singles)))
    assert len(set(values)) == 1
    rows = seconds > seconds[-1] - 5
    assert values[0] == (brute_auc_value(y[rows], s[rows]), rows.sum())


# ----------------------------------------------------------------------
# Decay


@pytest.mark.parametrize("kind", list(STRUCTURES))
@pytest.mark.parametrize("half_life", [0.5, 3, 7.5])
def test_decay_in_points_equals_weighted_from_scratch(kind, half_life, rng):
    # 0.5 points: the stored weights are rescaled every ~32 points and points
    # leave after 30; 3 and 7.5 are a whole and a fractional half-life.
    y, s = stream(rng, 600)
    w = rng.choice([1.0, 2.0, 0.25], size=len(y))
    tracker = STRUCTURES[kind](half_life=half_life, capacity=1)
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]), float(w[i]))
        if i % 37 == 0 or i == len(y) - 1:
            tracker._check()
            age = i - np.arange(i + 1)
            held = age <= DROP * half_life
            decayed = w[:i + 1] * 2.0 ** (-age / half_life)
            assert len(tracker) == held.sum()
            # The AUC against every point ever added (the dropped ones weigh < 2^-60) ...
            if len(set(y[:i + 1][held].tolist())) == 2:
                assert tracker.auc == pytest.approx(
                    brute_auc_value(y[:i + 1], s[:i + 1], decayed, exact=False), abs=1e-10)
            # ... and every metric against the points held.
            assert_values(tracker, kind, y[:i + 1][held], s[:i + 1][held], decayed[held])
    assert tracker._forgetting.rescales > 0
    # The class weights as decayed relative to the newest point.
    age = len(y) - 1 - np.arange(len(y))
    decayed = w * 2.0 ** (-age / half_life) * (age <= DROP * half_life)
    assert tracker.weight_pos == pytest.approx(decayed[y == 1].sum(), rel=1e-12)
    assert tracker.weight_neg == pytest.approx(decayed[y == 0].sum(), rel=1e-12)


@pytest.mark.parametrize("kind", ["auc", "h"])
def test_decay_in_time_with_a_window_equals_weighted_from_scratch(kind, rng):
    y, s = stream(rng, 600)
    t = irregular_times(rng, len(y))
    tracker = STRUCTURES[kind](window="10min", half_life="20s", capacity=1)
    start = 0
    while start < len(y):
        stop = min(len(y), start + int(rng.integers(1, 30)))
        tracker.add_many(y[start:stop], s[start:stop],
                         times=pd.to_datetime(t[start:stop], unit="s"))
        tracker._check()
        newest = t[stop - 1]
        rows = ((np.arange(len(y)) < stop) & (t > newest - 600)
                & (newest - t <= DROP * 20))
        assert_values(tracker, kind, y[rows], s[rows], 2.0 ** (-(newest - t[rows]) / 20))
        start = stop
    assert tracker._forgetting.rescales > 0


def test_decay_after_a_long_pause_keeps_only_the_new_points(rng):
    tracker = DynamicH(half_life="1s")
    tracker.add_many([0, 1, 0, 1], [0.1, 0.9, 0.8, 0.2], times=[0.0, 0.5, 1.0, 1.5])
    tracker.add_many([1, 0], [0.3, 0.4], times=[1e6, 1e6 + 1])  # 10^6 half-lives later
    tracker._check()
    assert len(tracker) == 2
    assert tracker.auc == 0.0
    assert (tracker.weight_neg, tracker.weight_pos) == (1.0, 0.5)  # relative to the newest point


def test_decay_count_window_combined(rng):
    y, s = stream(rng, 200)
    tracker = DynamicAUC(window=15, half_life=4)
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]))
        low = max(0, i - 14)
        age = i - np.arange(low, i + 1)
        assert_values(tracker, "auc", y[low:i + 1], s[low:i + 1], 2.0 ** (-age / 4))
    tracker._check()


# ----------------------------------------------------------------------
# Retractions


@pytest.mark.parametrize("kind", ["auc", "h"])
@pytest.mark.parametrize("options", [{"window": 12}, {"window": "20s"},
                                     {"half_life": 2.5}, {"window": 30, "half_life": "7s"}])
def test_retractions_with_a_window(kind, options, rng):
    y, s = stream(rng, 250)
    w = rng.choice([1.0, 2.0], size=len(y))
    t = irregular_times(rng, len(y))
    tracker = STRUCTURES[kind](capacity=1, **options)
    present = np.zeros(len(y), dtype=bool)
    probe = STRUCTURES[kind](**options)  # the same stream without the retractions
    for i in range(len(y)):
        tracker.add(int(y[i]), float(s[i]), float(w[i]), time=t[i])
        probe.add(int(y[i]), float(s[i]), float(w[i]), time=t[i])
        present[i] = True
        held_rows = probe._forgetting.ring.size  # the rows the window covers
        covered = np.zeros(len(y), dtype=bool)
        covered[i + 1 - held_rows:i + 1] = True
        if rng.random() < 0.3:
            candidates = np.flatnonzero(present & covered)
            if candidates.size:
                # Retract a random point still in the window: the oldest of equal ones.
                j = int(rng.choice(candidates))
                tracker.remove(int(y[j]), float(s[j]), float(w[j]))
                same = np.flatnonzero(present & covered & (y == y[j]) & (s == s[j])
                                      & (w == w[j]))
                present[same[0]] = False
        tracker._check()
        rows = present & covered
        if "half_life" in options:
            half = options["half_life"]
            if isinstance(half, str):
                age = (t[i] - t) / pd.Timedelta(half).total_seconds()
            else:
                age = (i - np.arange(len(y))) / half
            weights = w * 2.0 ** -age
        else:
            weights = w
        rows &= weights > 0
        if "window" in options and isinstance(options["window"], str):
            rows &= t > t[i] - pd.Timedelta(options["window"]).total_seconds()
        assert len(tracker) == rows.sum()
        assert_values(tracker, kind, y[rows], s[rows], weights[rows])


def test_retraction_refusals_leave_the_structure_unchanged():
    tracker = DynamicAUC(window=3)
    tracker.add_many([0, 1, 1, 0], [0.1, 0.5, 0.7, 0.2], sample_weight=[1, 2, 1, 1])
    before = pickle.dumps(tracker)
    with pytest.raises(KeyError, match=r"no point with y_true=0, y_score=0.1 in the window"):
        tracker.remove(0, 0.1)  # it has left the window
    with pytest.raises(KeyError, match=r"weight 1.0 in the window"):
        tracker.remove(1, 0.5)  # it was added with weight 2
    with pytest.raises(KeyError):
        tracker.remove_many([1, 1], [0.7, 0.7])  # only one is there
    assert pickle.dumps(tracker) == before
    tracker.remove_many([1, 0], [0.5, 0.2], sample_weight=[2, 1])
    assert len(tracker) == 1 and tracker.weight_pos == 1.0


# ----------------------------------------------------------------------
# Refusals, pickling, memory


@pytest.mark.parametrize("kind", list(STRUCTURES))
def test_times_going_backwards_are_refused_and_change_nothing(kind):
    tracker = STRUCTURES[kind](window="1h")
    tracker.add_many([0, 1], [0.2, 0.6], times=["2024-05-01T10:00", "2024-05-01T10:05"])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"times\[2\] \(2024-05-01T09:00:00.000000000\) is "
                                         r"before times\[1\]"):
        tracker.add_many([0, 1, 0], [0.1, 0.2, 0.3],
                         times=["2024-05-01T10:06", "2024-05-01T10:07", "2024-05-01T09:00"])
    with pytest.raises(ValueError, match=r"times\[0\] .* is before the newest time"):
        tracker.add_many([0], [0.1], times=["2024-05-01T10:04"])
    with pytest.raises(ValueError, match=r"time must not go backwards"):
        tracker.add(1, 0.3, time=np.datetime64("2024-05-01T10:04:59"))
    with pytest.raises(ValueError, match=r"time is required"):
        tracker.add(1, 0.3)
    with pytest.raises(ValueError, match=r"times is required"):
        tracker.add_many([1], [0.3])
    with pytest.raises(ValueError, match=r"times has 1 entries for 2 points"):
        tracker.add_many([1, 0], [0.3, 0.4], times=["2024-05-01T11:00"])
    with pytest.raises(ValueError, match=r"times\[1\] = 'yesterday' is not an ISO 8601 time"):
        tracker.add_many([1, 0], [0.3, 0.4], times=["2024-05-01T11:00", "yesterday"])
    with pytest.raises(ValueError, match=r"y_true must be 0/1"):
        tracker.add(3, 0.3, time="2024-05-01T11:00")
    assert pickle.dumps(tracker) == before


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"window": 0}, r"window must be at least 1; got 0"),
        ({"window": 2.5}, r"window must be an integer from 1 to 2147483647"),
        ({"window": True}, r"window must be an integer from 1 to 2147483647"),
        ({"window": "5 parsecs"}, r"window '5 parsecs' is not a duration"),
        ({"window": "-5min"}, r"is not a duration"),
        ({"window": datetime.timedelta(0)}, r"window must be a positive duration"),
        ({"window": np.timedelta64(1, "M")}, r"window must be a fixed duration"),
        ({"half_life": 0}, r"half_life must be a positive number"),
        ({"half_life": float("inf")}, r"half_life must be a positive number"),
        ({"half_life": "soon"}, r"half_life 'soon' is not a duration"),
    ],
)
def test_bad_windows_and_half_lives(options, message):
    with pytest.raises(ValueError, match=message):
        DynamicAUC(**options)


def test_durations_parse():
    expected = {"15min": np.timedelta64(15, "m"), "24h": np.timedelta64(24, "h"),
                "7d": np.timedelta64(7, "D"), "1h30min": np.timedelta64(90, "m"),
                "1.5s": np.timedelta64(1500, "ms"), "250ms": np.timedelta64(250, "ms"),
                "2 days": np.timedelta64(2, "D"), "1w": np.timedelta64(7, "D"),
                " 3 Hours ": np.timedelta64(3, "h"), "10us": np.timedelta64(10, "us")}
    for text, duration in expected.items():
        assert DynamicAUC(window=text).window == duration
    assert DynamicAUC(window=5).window == 5
    assert DynamicAUC(half_life="1h").half_life == np.timedelta64(3600 * 10**9, "ns")
    assert DynamicAUC(half_life=3).half_life == 3.0
    assert DynamicAUC().window is None and DynamicAUC().half_life is None


def test_structures_without_a_window_ignore_valid_times():
    tracker = DynamicAUC()
    tracker.add(1, 0.5, time="2024-01-01")
    tracker.add_many([0], [0.2], times=[0.0])
    assert len(tracker) == 2
    with pytest.raises(ValueError, match=r"time must be a time"):
        tracker.add(1, 0.5, time=[1])


def test_merge_refuses_structures_with_a_window():
    windowed, plain = DynamicAUC(window=3), DynamicAUC()
    with pytest.raises(ValueError, match=r"cannot merge a DynamicAUC with a window"):
        plain.merge(windowed)


@pytest.mark.parametrize("kind", list(STRUCTURES))
def test_pickling_mid_stream_with_a_time_window(kind, rng):
    y, s = stream(rng, 300)
    t = irregular_times(rng, len(y))
    tracker = STRUCTURES[kind](window="30s", half_life="10s")
    tracker.add_many(y[:150], s[:150], times=t[:150])
    copy = pickle.loads(pickle.dumps(tracker))
    copy._check()
    for i in range(150, 300):
        tracker.add(int(y[i]), float(s[i]), time=t[i])
        copy.add(int(y[i]), float(s[i]), time=t[i])
        assert (copy.auc, len(copy)) == (tracker.auc, len(tracker)) or (
            np.isnan(copy.auc) and np.isnan(tracker.auc))
    if kind != "auc":
        assert copy.h == tracker.h or (np.isnan(copy.h) and np.isnan(tracker.h))
    copy._check()


@pytest.mark.parametrize("options", [{"window": 100}, {"window": "100s"}, {"half_life": 2}])
def test_memory_stays_flat(options, rng):
    tracker = DynamicH(**options)
    n = 200_000
    y, s = rng.integers(0, 2, n), rng.random(n)
    t = np.arange(n, dtype=float)
    sizes = []
    for start in range(0, n, 20_000):
        tracker.add_many(y[start:start + 20_000], s[start:start + 20_000],
                         times=t[start:start + 20_000])
        sizes.append((tracker.nbytes, tracker._forgetting.ring.slots))
    assert len(tracker) <= 121
    # The engine reserves at most one block (4096 points) beyond the window.
    assert sizes[-1] == sizes[1]
    assert tracker._forgetting.ring.slots <= 8192


@pytest.mark.slow
def test_memory_stays_flat_over_ten_million_points():
    rng = np.random.default_rng(7)
    tracker = DynamicAUC(window=1000)
    first = None
    for _ in range(50):
        tracker.add_many(rng.integers(0, 2, 200_000), rng.random(200_000))
        first = first or (tracker.nbytes, tracker._forgetting.ring.slots)
        assert (tracker.nbytes, tracker._forgetting.ring.slots) == first
    assert len(tracker) == 1000
    tracker._check()


# ----------------------------------------------------------------------
# Random sequences of every operation, _check after each, from capacity 1


@pytest.mark.parametrize("seed", range(6))
def test_random_operation_sequences(seed):
    rng = np.random.default_rng(seed)
    options = [{"window": 5}, {"window": "4s"}, {"half_life": 0.75},
               {"window": 8, "half_life": "2s"}, {"half_life": 3}, {"window": 1}][seed]
    tracker = DynamicH(capacity=1, **options)
    rows = []  # (y, s, w, t, step, present)
    now, step = 0.0, 0
    for _ in range(300):
        action = rng.random()
        if action < 0.55:
            y, s, w = int(rng.integers(2)), float(rng.integers(6)), float(rng.choice([1, 2, 0]))
            now += float(rng.choice([0, 0.5, 1, 3]))
            tracker.add(y, s, w, time=now)
            rows.append([y, s, w, now, step, True])
            step += 1
        elif action < 0.8:
            k = int(rng.integers(1, 6))
            ys = rng.integers(0, 2, k)
            ss = rng.integers(0, 6, k).astype(float)
            ts = now + np.cumsum(rng.choice([0, 0.5, 1], size=k))
            tracker.add_many(ys, ss, times=ts)
            now = float(ts[-1])
            for j in range(k):
                rows.append([int(ys[j]), float(ss[j]), 1.0, float(ts[j]), step, True])
                step += 1
        else:
            before = pickle.dumps(tracker)
            y, s = int(rng.integers(2)), float(rng.integers(6))
            try:
                tracker.remove(y, s)
            except KeyError:
                assert pickle.dumps(tracker) == before
            else:
                live = [row for row in rows if row[5] and covered(row, options, now, step)
                        and row[0] == y and row[1] == s and row[2] == 1.0]
                live[0][5] = False
        tracker._check()
        held = [row for row in rows if row[5] and covered(row, options, now, step)]
        assert len(tracker) == len(held)
        if held:
            ys, ss, ws = (np.array([row[k] for row in held]) for k in range(3))
            ws = ws * np.array([decay(row, options, now, step) for row in held])
            assert_values(tracker, "h", ys, ss, ws)


def covered(row, options, now, step):
    window, half_life = options.get("window"), options.get("half_life")
    if isinstance(window, int) and row[4] < step - window:
        return False
    if isinstance(window, str) and row[3] <= now - pd.Timedelta(window).total_seconds():
        return False
    if half_life is not None:
        age = (now - row[3]) / pd.Timedelta(half_life).total_seconds() if isinstance(
            half_life, str) else (step - 1 - row[4]) / half_life
        return age <= DROP
    return True


def decay(row, options, now, step):
    half_life = options.get("half_life")
    if half_life is None:
        return 1.0
    if isinstance(half_life, str):
        return 2.0 ** (-(now - row[3]) / pd.Timedelta(half_life).total_seconds())
    return 2.0 ** (-(step - 1 - row[4]) / half_life)


# ----------------------------------------------------------------------
# sliding_window and SlidingWindow: times, half_life, min_periods


def reference_rows(i, t, window_seconds=None, count=None):
    rows = np.arange(len(t)) <= i
    if window_seconds is not None:
        rows &= t > t[i] - window_seconds
    if count is not None:
        rows &= np.arange(len(t)) > i - count
    return rows


@pytest.mark.parametrize("metrics", [("auc",), ("auc", "h", "auch")])
def test_sliding_window_with_a_time_window(metrics, rng):
    from hmeasure_stream import sliding_window

    y, s = stream(rng, 250)
    t = irregular_times(rng, len(y))
    values = sliding_window(y, s, "20s", metrics, times=pd.to_datetime(t, unit="s"))
    for i in range(len(y)):
        rows = reference_rows(i, t, window_seconds=20)
        if len(set(y[rows].tolist())) < 2:
            assert np.isnan(values["auc"][i])
            continue
        assert values["auc"][i] == pytest.approx(brute_auc_value(y[rows], s[rows]), abs=1e-12)
        if "h" in metrics:
            assert values["h"][i] == pytest.approx(h_measure(y[rows], s[rows]), abs=1e-10)


@pytest.mark.parametrize("window", [None, 25, "30s"])
def test_sliding_window_with_decay(window, rng):
    from hmeasure_stream import sliding_window

    y, s = stream(rng, 300)
    t = irregular_times(rng, len(y))
    values = sliding_window(y, s, window, ("auc", "h"), times=t, half_life=6)
    for i in range(0, len(y), 7):
        rows = reference_rows(i, t, window_seconds=30 if window == "30s" else None,
                              count=window if isinstance(window, int) else None)
        age = i - np.arange(len(y))
        rows_h = rows & (age <= DROP * 6)
        weights = 2.0 ** (-age / 6)
        if len(set(y[rows_h].tolist())) < 2:
            continue
        assert values["auc"][i] == pytest.approx(
            brute_auc_value(y[rows], s[rows], weights[rows], exact=False), abs=1e-10)
        assert values["h"][i] == pytest.approx(
            h_measure(y[rows_h], s[rows_h], sample_weight=weights[rows_h]), abs=1e-10)


@pytest.mark.parametrize("window", [None, 4, 10, "9s"])
def test_min_periods_gives_nan_until_the_window_is_full_enough(window, rng):
    from hmeasure_stream import sliding_window

    y, s = stream(rng, 60)
    t = irregular_times(rng, len(y))
    plain = sliding_window(y, s, window, ("auc", "h"), times=t)
    masked = sliding_window(y, s, window, ("auc", "h"), times=t, min_periods=4)
    for i in range(len(y)):
        rows = reference_rows(i, t, window_seconds=9 if window == "9s" else None,
                              count=window if isinstance(window, int) else None)
        for name in ("auc", "h"):
            if rows.sum() < 4:
                assert np.isnan(masked[name][i])
            else:  # (H's last bits depend on the random shape of the trees)
                np.testing.assert_allclose(masked[name][i], plain[name][i], rtol=1e-13)
    # the Fenwick path of the AUC alone
    alone = sliding_window(y, s, window, times=t, min_periods=4)["auc"]
    np.testing.assert_array_equal(alone, masked["auc"])


@pytest.mark.parametrize(("window", "half_life"), [("15s", None), (12, 5), (None, "4s")])
def test_sliding_window_in_chunks_equals_one_call_and_pickles(window, half_life, rng):
    from hmeasure_stream import SlidingWindow, sliding_window

    y, s = stream(rng, 400)
    t = irregular_times(rng, len(y))
    whole = sliding_window(y, s, window, ("auc", "h"), times=t, min_periods=3,
                           half_life=half_life)
    monitor = SlidingWindow(window, ("auc", "h"), min_periods=3, half_life=half_life)
    pieces, start = [], 0
    while start < len(y):
        stop = min(len(y), start + int(rng.integers(1, 60)))
        pieces.append(monitor.update(y[start:stop], s[start:stop], times=t[start:stop]))
        monitor._check()
        monitor = pickle.loads(pickle.dumps(monitor))
        start = stop
    for name in ("auc", "h"):
        # (With weights the treap's shape, hence the last bit, depends on the chunking.)
        np.testing.assert_allclose(np.concatenate([p[name] for p in pieces]), whole[name],
                                   rtol=0 if half_life is None else 1e-12,
                                   atol=0 if half_life is None else 1e-12)


def test_sliding_window_refusals():
    from hmeasure_stream import SlidingWindow, sliding_window

    with pytest.raises(ValueError, match=r"times is required"):
        sliding_window([0, 1], [0.1, 0.2], "1h")
    with pytest.raises(ValueError, match=r"times must not go backwards: times\[1\]"):
        sliding_window([0, 1], [0.1, 0.2], "1h", times=[5.0, 4.0])
    with pytest.raises(ValueError, match=r"min_periods"):
        sliding_window([0, 1], [0.1, 0.2], 2, min_periods=0)
    with pytest.raises(ValueError, match=r"half_life is not available"):
        SlidingWindow(10, ("auc", "auc_binned"), half_life=3)
    monitor = SlidingWindow("1h", ("auc", "h"))
    monitor.update([0, 1], [0.1, 0.2], times=[10.0, 20.0])
    before = pickle.dumps(monitor)
    with pytest.raises(ValueError, match=r"times\[0\] .* is before the newest time"):
        monitor.update([0], [0.3], times=[15.0])
    assert pickle.dumps(monitor) == before


@pytest.mark.parametrize("metrics", [("auc", "auc_var", "auc_lo", "auc_hi"),
                                     ("auc", "h", "auch", "auc_var", "ks", "auc_lo", "auc_hi")])
@pytest.mark.parametrize(("window", "half_life", "weighted"),
                         [(30, None, False), (30, None, True), (None, 7, False), (25, 4, True)])
def test_window_interval_from_the_blocked_engine_equals_scratch(metrics, window, half_life,
                                                                weighted, rng):
    # DeLong's variance and interval come from the blocked engine that computes the AUC
    # (and the hull): one engine and one ring; every window against auc_variance and
    # auc_ci on its rows with the decayed weights, in chunks, checked and pickled.
    from hmeasure_stream import ConfidenceLevel, SlidingWindow, auc_ci, auc_variance

    y, s = stream(rng, 200)
    w = rng.choice([0.5, 1.0, 2.0, 3.0], len(y)) if weighted else np.ones(len(y))
    monitor = SlidingWindow(window, (*metrics, ConfidenceLevel(0.9)), half_life=half_life)
    (engine,) = monitor._engines
    assert engine.columns[-3:] == ("auc_var", "auc_lo", "auc_hi")
    pieces, start = [], 0
    while start < len(y):
        stop = min(len(y), start + int(rng.integers(1, 40)))
        pieces.append(monitor.update(y[start:stop], s[start:stop],
                                     w[start:stop] if weighted else None))
        monitor._check()
        monitor = pickle.loads(pickle.dumps(monitor))
        start = stop
    values = {name: np.concatenate([p[name] for p in pieces]) for name in metrics}
    checked = 0
    for i in range(len(y)):
        rows = np.arange(len(y)) <= i
        if window is not None:
            rows &= np.arange(len(y)) > i - window
        weights = w * (1.0 if half_life is None else 2.0 ** (-(i - np.arange(len(y))) / half_life))
        totals = [weights[rows & (y == label)].sum() for label in (0, 1)]
        if not (totals[0] > 1 and totals[1] > 1):
            for name in ("auc_var", "auc_lo", "auc_hi"):
                assert np.isnan(values[name][i]), (name, i)
            continue
        variance = auc_variance(y[rows], s[rows], sample_weight=weights[rows])
        low, high = auc_ci(y[rows], s[rows], level=0.9, sample_weight=weights[rows])
        # Float weights: DeLong's spreads are differences of rounded terms, a few ulps of
        # A^2 where the variance is 0, which the interval sees through the square root.
        exact = not weighted and half_life is None
        tolerance = {"rel": 1e-12 if exact else 1e-9, "abs": 1e-15}
        assert values["auc_var"][i] == pytest.approx(variance, **tolerance), i
        tolerance["abs"] = 1e-14 if exact else 2.0 * np.sqrt(tolerance["abs"])
        assert values["auc_lo"][i] == pytest.approx(low, **tolerance), i
        assert values["auc_hi"][i] == pytest.approx(high, **tolerance), i
        checked += 1
    assert checked > len(y) // 2
    assert monitor["auc_var"] == pytest.approx(values["auc_var"][-1], rel=1e-12)
    assert monitor["auc_hi"] == pytest.approx(values["auc_hi"][-1], rel=1e-12)
