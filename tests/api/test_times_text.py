"""Times given as text (and as pandas and Arrow time columns) are read in one pass.

Every container of ISO 8601 text -- a list, numpy str and object arrays, pandas columns
of object and string dtypes, Arrow string arrays -- gives the int64 nanoseconds computed
here from the instants the text was written from, which are also those of the same
instants as datetime64 and of ``check_time_value`` on each entry alone; refusals name
the first entry that is not a time and its position, wherever it lies in a long column.
"""

import datetime
import sys

import numpy as np
import pandas as pd
import pytest

from hmeasure_stream import SlidingWindow, sliding_window
from hmeasure_stream._validation import check_time_value, check_times

EPOCH = datetime.datetime(1970, 1, 1)
# Offsets from UTC in minutes, written "Z", "+hh:mm", "-hhmm", "+hh" or not at all (UTC).
OFFSETS = [0, 120, -300, 330, -30, 840, -720, 345]


@pytest.fixture
def rng():
    return np.random.default_rng(20260047)


def hide(monkeypatch, *packages):
    """Make ``packages`` (and every submodule imported so far) unimportable for one test."""
    for name in list(sys.modules):
        if name.partition(".")[0] in packages:
            monkeypatch.setitem(sys.modules, name, None)


def written(rng, instant):
    """ISO 8601 text of ``instant`` (ns) in a random shape, and the ns it stands for
    (the instant cut to the digits written)."""
    offset = int(rng.choice(OFFSETS))
    digits = int(rng.choice([-3, -2, -1, 0, 1, 3, 6, 9, 9]))  # < 0: day, hour, minute
    local = instant + offset * 60 * 10**9
    step = {-3: 86400 * 10**9, -2: 3600 * 10**9, -1: 60 * 10**9}.get(digits,
                                                                     10 ** (9 - max(digits, 0)))
    local -= local % step
    moment = EPOCH + datetime.timedelta(microseconds=(local // 10**9) * 10**6)
    text = f"{moment:%Y-%m-%d}"
    if digits == -3:  # a date alone: its midnight, UTC
        return text, local
    text += "T" if rng.random() < 0.7 else " "
    text += {-2: f"{moment:%H}", -1: f"{moment:%H:%M}"}.get(digits, f"{moment:%H:%M:%S}")
    if digits > 0:
        text += f".{local % 10**9:09d}"[:digits + 1]
    style = int(rng.integers(0, 4))
    if offset == 0 and style == 0:
        return text, local  # no zone: UTC
    if offset == 0 and style == 1:
        return text + "Z", local
    sign, size = ("+" if offset >= 0 else "-"), abs(offset)
    hours, minutes = divmod(size, 60)
    zone = [f"{sign}{hours:02d}:{minutes:02d}", f"{sign}{hours:02d}{minutes:02d}",
            f"{sign}{hours:02d}:{minutes:02d}", f"{sign}{hours:02d}"][style]
    if style == 3 and minutes:
        zone = f"{sign}{hours:02d}:{minutes:02d}"
    return text + zone, local - offset * 60 * 10**9


def random_texts(rng, n):
    """n texts of random instants from 1900 to 2200 (ties among them), and their ns."""
    low, high = -70 * 365 * 86400 * 10**9, 230 * 365 * 86400 * 10**9
    instants = [int(x) for x in rng.integers(low, high, n)]
    for k in rng.integers(0, n, n // 10):  # ties: an instant again, maybe written otherwise
        instants[int(k)] = instants[int(rng.integers(0, n))]
    pairs = [written(rng, instant) for instant in instants]
    return [text for text, _ in pairs], np.array([value for _, value in pairs], dtype=np.int64)


def text_containers(texts):
    yield "list", list(texts)
    yield "numpy str", np.array(texts)
    yield "numpy object", np.array(texts, dtype=object)
    yield "numpy str objects", np.array([np.str_(text) for text in texts] + [None],
                                        dtype=object)[:-1]
    yield "pandas object", pd.Series(texts, dtype=object)
    yield "pandas string[python]", pd.Series(texts, dtype="string[python]")
    yield "pandas object index", pd.Index(texts, dtype=object)
    try:
        import pyarrow as pa
    except ImportError:
        return
    yield "pandas string[pyarrow]", pd.Series(texts, dtype="string[pyarrow]")
    yield "pandas ArrowDtype string", pd.Series(texts, dtype=pd.ArrowDtype(pa.string()))
    yield "arrow string", pa.array(texts)
    yield "arrow large_string", pa.array(texts, pa.large_string())
    half = len(texts) // 2
    yield "arrow chunked", pa.chunked_array([pa.array(texts[:half], pa.string()),
                                             pa.array(texts[half:], pa.string())])


def time_containers(nanoseconds):
    stamps = nanoseconds.astype("datetime64[ns]")
    yield "datetime64[ns]", stamps
    yield "pandas datetime64", pd.Series(stamps)
    utc = pd.Series(stamps).dt.tz_localize("UTC")
    for zone in ("UTC", "Europe/Helsinki", "America/St_Johns", "Asia/Kathmandu"):
        yield f"pandas {zone}", utc.dt.tz_convert(zone)
        yield f"pandas index {zone}", pd.DatetimeIndex(utc).tz_convert(zone)
    try:
        import pyarrow as pa
    except ImportError:
        return
    yield "arrow timestamp", pa.array(nanoseconds, pa.timestamp("ns"))
    yield "arrow timestamp UTC", pa.array(nanoseconds, pa.timestamp("ns", tz="UTC"))
    yield "arrow timestamp Tokyo", pa.array(nanoseconds, pa.timestamp("ns", tz="Asia/Tokyo"))
    for zone in (None, "UTC", "Asia/Tokyo"):
        kind = pa.timestamp("ns", tz=zone)
        yield f"pandas ArrowDtype {zone}", pd.Series(pa.array(nanoseconds, kind),
                                                     dtype=pd.ArrowDtype(kind))


def test_every_text_container_gives_the_written_nanoseconds(rng):
    texts, expected = random_texts(rng, 3000)
    assert [check_time_value(text) for text in texts] == expected.tolist()
    np.testing.assert_array_equal(check_times(expected.astype("datetime64[ns]"), 3000),
                                  expected)
    for kind, times in text_containers(texts):
        got = check_times(times, len(texts))
        assert got.dtype == np.int64, kind
        np.testing.assert_array_equal(got, expected, err_msg=kind)


def test_every_time_column_gives_its_instants(rng):
    expected = np.sort(rng.integers(-2 * 10**18, 7 * 10**18, 2000))
    for kind, times in time_containers(expected):
        np.testing.assert_array_equal(check_times(times, len(expected)), expected, err_msg=kind)


def test_text_without_pandas_gives_the_same_nanoseconds(monkeypatch, rng):
    texts, expected = random_texts(rng, 1000)
    hide(monkeypatch, "pandas")
    assert [check_time_value(text) for text in texts] == expected.tolist()
    for times in (texts, np.array(texts), np.array(texts, dtype=object)):
        np.testing.assert_array_equal(check_times(times, len(texts)), expected)


# Read today as these nanoseconds (with pandas), in every container and alone.
ACCEPTED = {
    "2024-03-01 12:00:00.123456789123": 1709294400123456789,  # (cut to the nanosecond)
    "  2024-03-01": 1709251200000000000,
    "20240301": 1709251200000000000,
    "2024": 1704067200000000000,
    "2024-03": 1709251200000000000,
    "2024-03-01T12:00:00 +02:00": 1709287200000000000,
    "2024-03-01T12:00:00Z ": 1709294400000000000,
    "2024-03-01T12:00:00-00:00": 1709294400000000000,
    "2024-03-01T12:00:00+14:00": 1709244000000000000,
    "1969-12-31T23:59:59.999999999Z": -1,
    "2262-04-11T23:47:16.854775807Z": 2**63 - 1,
    "2024-03-01\x00": 1709251200000000000,  # (numpy's str arrays strip a NUL at the end)
}
# Refused today, with pandas and without: not ISO 8601 times.
REFUSED = ["1.7e9", "2024-W01", "2024-060", "2024-03-01T24:00:00", "2024-03-01t12:00",
           "2024-02-30", "yesterday", "2024-13-01T00:00Z", "x"]
# Refused with pandas (numpy alone warns of a zone it cannot place, or reads them).
REFUSED_WITH_PANDAS = [
    *REFUSED, "2024-03-01T12:00:00,5Z", "2024-03-01T12:00:00+02:00:00",
    "2024-03-01T12:00:00z", "1700000000", "2024-03-01T12:00:00+25:00", "2262-04-12",
    "1677-09-21", "1677-09-21T00:12:43.145224192Z"]

def test_the_shapes_read_today_give_the_same_nanoseconds_in_every_container():
    texts, expected = list(ACCEPTED), list(ACCEPTED.values())
    assert [check_time_value(text) for text in texts] == expected
    for kind, times in text_containers(texts):
        assert check_times(times, len(texts)).tolist() == expected, kind


@pytest.mark.parametrize("bad", REFUSED_WITH_PANDAS)
def test_a_refused_entry_is_named_with_its_position_in_every_container(bad):
    texts = ["2024-03-01T00:00Z", "2024-03-01T01:00+01:00", bad, "also not a time"]
    message = f"times[2] = {bad!r} is not an ISO 8601 time"
    for kind, times in text_containers(texts):
        with pytest.raises(ValueError) as error:
            check_times(times, len(texts))
        assert str(error.value) == message, kind
    with pytest.raises(ValueError) as error:
        check_time_value(bad)
    assert str(error.value) == f"time = {bad!r} is not an ISO 8601 time"  # (one value: no [0])


@pytest.mark.parametrize("missing", ["NaT", "", "now", "today"])
def test_no_time_is_refused_in_every_container(missing):
    """Both parsers read "NaT" and "" as NaT, and "now" and "today" as the moment of the
    call: none is a point's time."""
    texts = ["2024-03-01T00:00Z", missing, "2024-03-01T01:00Z"]
    for kind, times in text_containers(texts):
        with pytest.raises(ValueError) as error:
            check_times(times, len(texts))
        assert str(error.value) == f"times[1] = {missing!r} is not an ISO 8601 time", kind
    with pytest.raises(ValueError, match=f"^time = {missing!r} is not an ISO 8601 time$"):
        check_time_value(missing)


@pytest.mark.parametrize("with_pandas", [True, False])
def test_the_first_bad_entry_of_a_long_column_is_named(monkeypatch, rng, with_pandas):
    texts, _ = random_texts(rng, 20000)
    refused = REFUSED_WITH_PANDAS if with_pandas else REFUSED
    if not with_pandas:
        hide(monkeypatch, "pandas")
    for _ in range(4):
        column = list(texts)
        first = int(rng.integers(0, len(column)))
        bad = str(rng.choice(refused))
        column[first] = bad
        for later in rng.integers(first, len(column), int(rng.integers(0, 3))):
            column[int(later)] = str(rng.choice(refused))
        containers = [column, np.array(column, dtype=object)]
        if with_pandas:
            containers.append(pd.Series(column))
        for times in containers:
            with pytest.raises(ValueError) as error:
                check_times(times, len(column))
            assert str(error.value) == f"times[{first}] = {bad!r} is not an ISO 8601 time"


def test_text_among_other_times_is_read_entry_by_entry(rng):
    texts, expected = random_texts(rng, 50)
    mixed = np.array(texts, dtype=object)
    mixed[::3] = list(expected[::3].astype("datetime64[ns]"))
    mixed[1::7] = [value / 1e9 for value in expected[1::7].tolist()]
    np.testing.assert_array_equal(check_times(mixed, len(mixed)),
                                  [check_time_value(value) for value in mixed])
    with pytest.raises(ValueError, match=r"^times\[4\] must be a time .* got <NA>$"):
        check_times(pd.Series([*texts[:4], None, *texts[5:]], dtype="string[python]"), 50)


def test_sliding_window_and_update_equal_with_text_and_datetime64(rng):
    n = 4000
    offsets = np.cumsum(rng.choice([0, 0, 1, 7, 60, 900], n) * 10**9 + rng.integers(0, 10**9, n))
    nanoseconds = 1_709_251_200 * 10**9 + offsets
    shapes = [written(rng, int(value)) for value in nanoseconds]
    texts = [text for text, _ in shapes]
    nanoseconds = np.maximum.accumulate(np.array([value for _, value in shapes]))
    # (cut to the digits written, an instant can fall before the one before: those rows
    # are written again at the greatest so far, as text with nine digits)
    for k in np.flatnonzero(np.array([value for _, value in shapes]) != nanoseconds):
        texts[k] = np.datetime_as_string(np.datetime64(int(nanoseconds[k]), "ns"),
                                         unit="ns") + "Z"
    stamps = pd.Series(nanoseconds.astype("datetime64[ns]"))
    y, s = rng.integers(0, 2, n), rng.random(n)
    s[rng.integers(0, n, n // 5)] = 0.5  # ties among the scores too
    metrics = ("auc", "h", "brier")
    expected = sliding_window(y, s, "1h", metrics, times=stamps)
    for kind, times in text_containers(texts):
        if kind == "numpy str objects":
            continue  # (the same as "numpy object" below a window)
        got = sliding_window(y, s, "1h", metrics, times=times)
        for name in metrics:
            np.testing.assert_array_equal(got[name], expected[name], err_msg=f"{kind} {name}")
    by_text, by_time = SlidingWindow("1h", metrics), SlidingWindow("1h", metrics)
    series = pd.Series(texts)
    for start in range(0, n, 700):
        part = slice(start, start + 700)
        got = by_text.update(y[part], s[part], times=series[part])
        want = by_time.update(y[part], s[part], times=stamps[part])
        for name in metrics:
            np.testing.assert_array_equal(got[name], want[name])
            np.testing.assert_array_equal(got[name], expected[name][part])


def test_a_missing_arrow_time_with_a_zone_is_refused_as_one_without():
    pa = pytest.importorskip("pyarrow")
    for zone in (None, "UTC", "Asia/Tokyo"):
        kind = pa.timestamp("ns", tz=zone)
        times = pd.Series(pa.array([10**18, None, 10**18], kind), dtype=pd.ArrowDtype(kind))
        with pytest.raises(ValueError, match=r"^times\[1\] is NaT: every point needs a time$"):
            check_times(times, 3)
