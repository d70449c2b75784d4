"""Segments of a window (``by=``): equal to separate windows per segment.

``SlidingWindow.update(..., by=)`` and ``sliding_window(..., by=)`` give each
segment a window of its own; every value here is compared with windows built
apart, one per segment and fed that segment's rows only (and, where cheap,
with the brute-force AUC of each segment's last rows), in random chunks and
across pickling.
"""

import pickle

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from reference_impl import brute_auc_value, h_exact, r_misclass_counts

import hmeasure_stream as hs
from hmeasure_stream import dask as hsd

METRICS = ("auc", "h", "ap", "sens")
#: (window, half_life, whether the rows need times) of each kind of window.
KINDS = {
    "count": (7, None, False),
    "time": ("5s", None, True),
    "decay": (None, 4.0, False),
    "prefix": (None, None, False),
}


def _stream(rng, n, n_segments):
    y = rng.integers(0, 2, n)
    # Scores on a grid of 0.05 (ties within a segment) around the threshold 0.5.
    s = np.round(rng.random(n) * 20) / 20
    w = rng.exponential(1.0, n)
    times = np.cumsum(rng.integers(0, 3, n))  # seconds, with ties
    codes = rng.integers(0, n_segments, n)
    return y, s, w, times, codes


def _chunks(rng, n):
    cuts = np.sort(rng.choice(np.arange(1, n), size=min(n - 1, 6), replace=False))
    return list(zip([0, *cuts], [*cuts, n], strict=True))


def _separate(make, y, s, w, times, keys, chunks):
    """Each segment's rows through a window of its own, chunk by chunk: the values in row
    order and the windows by key."""
    windows, out = {}, {name: np.full(len(y), -1.0) for name in METRICS}
    keys = list(keys)
    for start, stop in chunks:
        for key in dict.fromkeys(keys[start:stop]):
            rows = np.array([i for i in range(start, stop) if keys[i] == key])
            window = windows.setdefault(key, make())
            values = window.update(y[rows], s[rows], None if w is None else w[rows],
                                   times=None if times is None else times[rows])
            for name in METRICS:
                out[name][rows] = values[name]
    return out, windows


def _same_results(first, second):
    """Whether two windows' results agree, nan with nan (dicts compare nan as unequal)."""
    return first.keys() == second.keys() and all(
        np.array_equal(first[name], second[name], equal_nan=True) for name in first)


def _assert_same(got, expected):
    assert got.keys() == expected.keys()
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("weighted", [False, True])
def test_update_by_equals_separate_windows_in_chunks_and_after_pickling(kind, weighted):
    rng = np.random.default_rng([11, weighted, len(kind)])
    window, half_life, timed = KINDS[kind]
    y, s, w, times, codes = _stream(rng, 400, 6)
    w = w if weighted else None
    times = times if timed else None
    keys = np.array(["north", "south", "east", "west", "up", "down"])[codes]

    def make():
        return hs.SlidingWindow(window, METRICS, half_life=half_life)

    chunks = _chunks(rng, len(y))
    expected, separate = _separate(make, y, s, w, times, keys, chunks)
    segmented = make()
    got = {name: np.full(len(y), -1.0) for name in METRICS}
    for number, (start, stop) in enumerate(chunks):
        part = slice(start, stop)
        values = segmented.update(y[part], s[part], None if w is None else w[part],
                                  times=None if times is None else times[part], by=keys[part])
        for name in METRICS:
            got[name][part] = values[name]
        if number == len(chunks) // 2:
            segmented = pickle.loads(pickle.dumps(segmented))
        assert segmented._check()
    _assert_same(got, expected)
    assert list(segmented.segments()) == list(dict.fromkeys(keys.tolist()))
    final = segmented.segments()
    assert final.keys() == separate.keys()
    assert all(_same_results(final[key], window.results()) for key, window in separate.items())
    assert len(segmented) == sum(len(window) for window in separate.values())
    for key, window in separate.items():
        assert _same_results(segmented.segment(key).results(), window.results())


@pytest.mark.parametrize("kind", KINDS)
def test_sliding_window_by_equals_sliding_window_per_segment(kind):
    rng = np.random.default_rng([12, len(kind)])
    window, half_life, timed = KINDS[kind]
    y, s, w, times, codes = _stream(rng, 300, 5)
    times = times if timed else None
    got = hs.sliding_window(y, s, window, METRICS, sample_weight=w, times=times,
                            half_life=half_life, by=codes)
    for code in range(5):
        rows = np.flatnonzero(codes == code)
        alone = hs.sliding_window(y[rows], s[rows], window, METRICS, sample_weight=w[rows],
                                  times=None if times is None else times[rows],
                                  half_life=half_life)
        for name in METRICS:
            np.testing.assert_array_equal(got[name][rows], alone[name], err_msg=name)
    # The same values as the window fed in one chunk.
    streamed = hs.SlidingWindow(window, METRICS, half_life=half_life).update(
        y, s, w, times=times, by=codes)
    for name in METRICS:
        np.testing.assert_allclose(got[name], streamed[name], rtol=1e-12, atol=1e-12)


def test_count_window_segments_against_brute_force():
    """Each row's AUC, H and sensitivity are those of the last 5 rows of its segment,
    from scratch (exact Fractions, R's counts at the threshold)."""
    rng = np.random.default_rng(13)
    y, s, _, _, codes = _stream(rng, 120, 4)
    window = hs.SlidingWindow(5, METRICS)
    got = {name: [] for name in METRICS}
    for start, stop in _chunks(rng, len(y)):
        values = window.update(y[start:stop], s[start:stop], by=codes[start:stop])
        for name in METRICS:
            got[name].extend(values[name])
    for i in range(len(y)):
        rows = np.flatnonzero(codes[:i + 1] == codes[i])[-5:]
        yp, sp = y[rows], s[rows]
        both = 0 < yp.sum() < len(yp)
        assert got["auc"][i] == pytest.approx(brute_auc_value(yp, sp), abs=1e-15, nan_ok=True)
        expected_h = float(h_exact(yp.tolist(), sp.tolist())) if both else np.nan
        assert got["h"][i] == pytest.approx(expected_h, abs=1e-12, nan_ok=True)
        # The package's rule: class 1 when score >= threshold.
        # (nan while a class is absent from the window)
        sens = r_misclass_counts(yp, sp, 0.5, at_or_above=True)["Sens"] if both else np.nan
        assert got["sens"][i] == pytest.approx(float(sens), abs=1e-15, nan_ok=True)


def test_a_segment_ring_grows_to_its_window_and_then_slides():
    """A segment's ring starts small and doubles: through every size up to the window
    and past it, its values are a full window's."""
    rng = np.random.default_rng(14)
    n = 700
    y, s = rng.integers(0, 2, n), rng.random(n)
    codes = (rng.random(n) < 0.5).astype(np.int64)
    window = hs.SlidingWindow(150, ("auc", "h"))
    alone = {code: hs.SlidingWindow(150, ("auc", "h")) for code in (0, 1)}
    start = 0
    for size in (1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 179):
        part = slice(start, start + size)
        got = window.update(y[part], s[part], by=codes[part])
        for code in (0, 1):
            rows = np.flatnonzero(codes[part] == code)
            expected = alone[code].update(y[part][rows], s[part][rows])
            np.testing.assert_array_equal(got["auc"][rows], expected["auc"])
            np.testing.assert_array_equal(got["h"][rows], expected["h"])
        start += size
        assert window._check()
    assert start == n
    for code in (0, 1):
        assert len(window.segment(code)) == 150
        assert window.segment(code).results() == alone[code].results()
        assert window.segment(code)._rings[0].slots == 150


@pytest.mark.parametrize("weighted", [False, True])
def test_a_segment_from_one_point_past_its_window_equals_a_lone_window(weighted):
    """A segment's ring (a few slots at first) and engine (one block) grow as its points
    arrive, one at a time and then in chunks, through a pickle taken midway, past the
    window's 300 points and the engine's first block: every value is a lone window's
    fed the same points, and the invariants hold after each chunk."""
    rng = np.random.default_rng(16)
    sizes = [1] * 20 + [2, 3, 7, 30, 64, 1, 200, 5, 400]
    n = sum(sizes)
    y, s = rng.integers(0, 2, n), rng.random(n)
    w = rng.exponential(1.0, n) if weighted else None
    window = hs.SlidingWindow(300, METRICS)
    alone = hs.SlidingWindow(300, METRICS)
    other = np.zeros(2, dtype=np.int64)  # (a second segment of two rows each chunk)
    start = 0
    for chunk, size in enumerate(sizes):
        part = slice(start, start + size)
        by = np.concatenate([np.ones(size, dtype=np.int64), other])
        rows = np.r_[np.arange(start, start + size), 0, 1]
        got = window.update(y[rows], s[rows], None if w is None else w[rows], by=by)
        expected = alone.update(y[part], s[part], None if w is None else w[part])
        for name in METRICS:
            np.testing.assert_array_equal(got[name][:size], expected[name])
        assert window._check()
        if chunk == 22:
            window = pickle.loads(pickle.dumps(window))
            assert window._check()
        start += size
    segment = window.segment(1)
    assert len(segment) == len(alone) == 300
    assert segment.results() == alone.results()
    assert segment._rings[0].slots == segment._rings[0].capacity == 300
    assert segment._engines[0].n_blocks > 1


def test_a_new_segment_of_one_block_of_points_keeps_one_block():
    """A segment's engine made for a chunk of up to 128 distinct scores holds them in its
    one first block: no block is reserved for splits that cannot happen (and values stay
    a lone window's)."""
    rng = np.random.default_rng(17)
    for n in (1, 100, 128):
        y, s = rng.integers(0, 2, n), rng.random(n)
        window = hs.SlidingWindow(1000)
        got = window.update(y, s, by=np.zeros(n, dtype=np.int64))
        np.testing.assert_array_equal(got["auc"], hs.SlidingWindow(1000).update(y, s)["auc"])
        engine = window.segment(0)._engines[0]
        assert (engine.block_capacity, engine.n_blocks) == (1, 1)
        assert window._check()
    window.update(rng.integers(0, 2, 1), rng.random(1), by=[0])  # (the 129th: a split)
    assert window.segment(0)._engines[0].n_blocks == 2
    assert window._check()


def test_memory_follows_each_segments_points():
    """10**4 segments of three points in windows of 10**4: a few kilobytes each, not the
    window's 170 kilobytes of ring (10**8 slots in all)."""
    rng = np.random.default_rng(15)
    n_segments = 10_000
    codes = np.repeat(np.arange(n_segments), 3)[rng.permutation(3 * n_segments)]
    y, s = rng.integers(0, 2, codes.size), rng.random(codes.size)
    window = hs.SlidingWindow(10_000)
    window.update(y, s, by=codes)
    assert len(window.segments()) == n_segments
    assert len(window) == 3 * n_segments
    one = hs.SlidingWindow(10_000)
    one.update(y[:3], s[:3])
    assert one.nbytes > 170_000  # (a lone window's ring has the window's size)
    assert window.nbytes < n_segments * 4_000


@pytest.mark.parametrize("keys", [
    pytest.param(lambda codes: np.int64(2**53) + codes.astype(np.int64), id="int64-beyond-2**53"),
    pytest.param(lambda codes: np.array(["a", "b", "c", "ab"])[codes], id="strings"),
    pytest.param(lambda codes: pd.Series(pd.Categorical(np.array(["x", "y", "z", "w"])[codes])),
                 id="pandas-categorical"),
    pytest.param(lambda codes: pd.Series(codes, dtype="int32"), id="pandas-int"),
    pytest.param(lambda codes: [("region", int(code)) for code in codes], id="tuples"),
    pytest.param(lambda codes: [int(code) if code % 2 else str(code) for code in codes],
                 id="mixed-list"),
])
def test_keys_of_every_kind_make_one_segment_per_value(keys):
    rng = np.random.default_rng(16)
    codes = rng.integers(0, 4, 200)
    y, s = rng.integers(0, 2, 200), rng.random(200)
    by = keys(codes)
    got = hs.SlidingWindow(6).update(y, s, by=by)["auc"]
    for code in range(4):
        rows = np.flatnonzero(codes == code)
        np.testing.assert_array_equal(got[rows], hs.SlidingWindow(6).update(y[rows], s[rows])["auc"])
    window = hs.SlidingWindow(6)
    window.update(y, s, by=by)
    assert len(window.segments()) == 4


def test_int64_keys_beyond_2_53_stay_apart():
    """2**53 and 2**53 + 1 are one float64 but two segments."""
    window = hs.SlidingWindow(3)
    keys = np.array([2**53, 2**53 + 1, 2**53, 2**53 + 1], dtype=np.int64)
    values = window.update([0, 1, 1, 0], [0.2, 0.1, 0.9, 0.3], by=keys)["auc"]
    np.testing.assert_array_equal(values, [np.nan, np.nan, 1.0, 0.0])
    assert list(window.segments()) == [2**53, 2**53 + 1]
    assert window.segment(2**53 + 1)["auc"] == 0.0


def test_mixed_keys_are_compared_as_python_values():
    window = hs.SlidingWindow(3)
    window.update([0, 1, 0, 1], [0.1, 0.9, 0.8, 0.2], by=[1, 1, "1", "1"])
    assert window.segments() == {1: {"auc": 1.0}, "1": {"auc": 0.0}}


@pytest.mark.parametrize(("by", "message"), [
    ([1, None, 2], r"by\[1\] is None: every row needs a segment key"),
    (np.array([1.0, 2.0, np.nan]), r"by\[2\] is nan"),
    (["a", float("nan"), "b"], r"by\[1\] is nan"),
    (pd.Series(pd.Categorical(["a", None, "b"])), r"by\[1\] is nan"),
    (pd.Series(["a", "b", pd.NA], dtype="string"), r"by\[2\] is <NA>"),
    (np.array(["2026-01-01", "NaT", "2026-01-02"], dtype="datetime64[s]"), r"by\[1\] is"),
    ([1, [2], 3], r"by\[1\] is \[2\], which is not hashable"),
    ([1, 2], r"by has 2 keys for 3 rows"),
    (np.zeros((3, 2)), r"by must be 1-d"),
    ("abc", r"by must hold one segment key per row"),
    (5, r"by must hold one segment key per row"),
])
def test_a_bad_key_is_refused_naming_its_row_and_nothing_changes(by, message):
    window = hs.SlidingWindow(4, ("auc", "h"))
    window.update([0, 1, 1], [0.1, 0.8, 0.3], by=["a", "b", "a"])
    before = pickle.dumps(window)
    with pytest.raises(ValueError, match=message):
        window.update([1, 0, 0], [0.4, 0.5, 0.6], by=by)
    assert pickle.dumps(window) == before
    assert window.segments()["a"] == {"auc": 1.0, "h": 1.0}
    assert list(window.segments()) == ["a", "b"]
    with pytest.raises(ValueError, match=message):
        hs.sliding_window([1, 0, 0], [0.4, 0.5, 0.6], 3, by=by)


def test_a_bad_chunk_leaves_the_segments_as_they_were():
    """A score refused in one segment's rows (a probability metric) or a time that goes
    back: nothing of the chunk reaches any segment, and the stream goes on as if it never
    came."""
    window = hs.SlidingWindow("10s", ("auc", "brier"))
    window.update([0, 1], [0.2, 0.7], times=[0, 1], by=["a", "b"])
    before = pickle.dumps(window)
    with pytest.raises(ValueError, match=r"y_score has 1\.5 at position 1"):
        window.update([0, 1], [0.3, 1.5], times=[2, 3], by=["a", "b"])
    with pytest.raises(ValueError, match=r"times"):
        window.update([0, 1], [0.3, 0.5], times=[2, 0], by=["b", "a"])
    with pytest.raises(ValueError, match=r"times"):
        window.update([0], [0.3], times=[0.5], by=["c"])  # before b's newest, 1 s
    assert pickle.dumps(window) == before
    got = window.update([1, 0], [0.9, 0.1], times=[2, 3], by=["a", "b"])["auc"]
    np.testing.assert_array_equal(got, [1.0, 1.0])


def test_segments_and_plain_updates_do_not_mix():
    window = hs.SlidingWindow(4)
    window.update([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match="fed without by="):
        window.update([0, 1], [0.1, 0.2], by=["a", "a"])
    segmented = hs.SlidingWindow(4)
    segmented.update([0, 1], [0.1, 0.2], by=["a", "a"])
    with pytest.raises(ValueError, match="follows segments"):
        segmented.update([0, 1], [0.1, 0.2])
    with pytest.raises(ValueError, match=r"segment\(key\)\['auc'\]"):
        segmented["auc"]
    with pytest.raises(KeyError, match="no segment 'b'"):
        segmented.segment("b")
    assert repr(segmented) == "SlidingWindow(window=4, metrics=('auc',), points=2, segments=1)"
    assert window.segments() == {}
    classes = hs.SlidingWindow(4, ["multiclass_auc", hs.Classes([0, 1, 2])])
    with pytest.raises(ValueError, match="by= is not available with 'multiclass_auc'"):
        classes.update([0, 1], np.eye(3)[:2], by=["a", "b"])
    with pytest.raises(ValueError, match="by= is not available with 'multiclass_auc'"):
        hs.sliding_window([0, 1, 2], np.eye(3), 2, metrics="multiclass_auc", by=[1, 1, 1])


def test_an_empty_chunk_makes_no_segment():
    window = hs.SlidingWindow(3)
    values = window.update([], [], by=[])
    assert values["auc"].shape == (0,)
    assert window.segments() == {}


def test_sliding_window_by_at_reads_the_rows_of_at():
    rng = np.random.default_rng(17)
    y, s, _, _, codes = _stream(rng, 100, 3)
    every = hs.sliding_window(y, s, 8, ("auc", "h"), by=codes)
    at = np.array([3, 40, 41, 99])
    chosen = hs.sliding_window(y, s, 8, ("auc", "h"), by=codes, at=at)
    for name in ("auc", "h"):
        np.testing.assert_array_equal(chosen[name], every[name][at])


@pytest.mark.parametrize("window", [None, 30])
def test_dask_grouped_equals_the_segments_final_values(window):
    """``hmeasure_stream.dask.grouped`` on the rows each segment's window holds at the
    end (all of them, or each segment's last 30) gives its final AUC and H."""
    rng = np.random.default_rng(18)
    n = 2_000
    codes = rng.integers(0, 7, n)
    y, s = rng.integers(0, 2, n), np.round(rng.random(n), 3)
    segmented = hs.SlidingWindow(window, ("auc", "h"))
    for start, stop in _chunks(rng, n):
        segmented.update(y[start:stop], s[start:stop], by=codes[start:stop])
    frame = pd.DataFrame({"seg": codes, "label": y, "score": s})
    if window is not None:
        frame = frame.groupby("seg", group_keys=False).tail(window)
    with dask.config.set(scheduler="threads"):
        table = hsd.grouped(dd.from_pandas(frame, npartitions=4, sort=False), by="seg",
                            label="label", score="score", metrics=("auc", "h"))
    final = segmented.segments()
    assert sorted(final) == list(table.index)
    for key, values in final.items():
        assert values["auc"] == table.loc[key, "auc"]
        assert values["h"] == pytest.approx(table.loc[key, "h"], rel=1e-12)
