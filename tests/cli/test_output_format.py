"""The monitor's rows are written as Python writes them: each float as ``repr`` gives it.

The float64 metrics go through a compiled formatter (``_engines._format``);
its text is checked here against ``repr`` on the floats that are hard to
write (every binary exponent, subnormals, powers of ten and their
neighbours, exact ties between two shortest decimals, the neighbours of
2^53), and the command line's output against the in-memory
:func:`~hmeasure_stream.sliding_window` of the same rows, formatted with
``repr``: every row, every 1000th, over a window of rows, of time, by
segments and with a second model's scores.
"""

import math
import struct

import numpy as np
import pytest
from cli_helpers import run_cli

from hmeasure_stream import sliding_window
from hmeasure_stream._engines._format import format_float, format_rows


def _from_bits(bits):
    return struct.unpack("<d", struct.pack("<Q", bits))[0]


def _hard_floats():
    rng = np.random.default_rng(47)
    values = []
    # Random significands at every biased exponent (0: the subnormals), both signs, and
    # each exponent's smallest and largest significands (2^e itself: the narrower
    # interval below a power of two).
    for exponent in range(2047):
        for significand in [*rng.integers(0, 2**52, 24).tolist(), 0, 1, 2**52 - 1]:
            values.append(_from_bits((exponent << 52) | significand))
            values.append(-values[-1])
    # Random bit patterns (nan and inf among them, by chance or not).
    values += [_from_bits(bits) for bits in rng.integers(0, 2**64, 20000, dtype=np.uint64)
               .tolist()]
    # Subnormals: the smallest, small multiples, the largest; the smallest normal.
    values += [_from_bits(bits) for bits in (1, 2, 3, 10, 999, 2**52 - 1, 2**52)]
    values += [k * 5e-324 for k in range(1, 2000)]
    # Powers of ten, and the floats either side.
    for power in range(-325, 309):
        value = float(f"1e{power}")
        values += [value, math.nextafter(value, 0.0), math.nextafter(value, math.inf)]
    # Ties: at 2^50 <= x < 2^51 a quarter is half of the last digit's unit, and the two
    # 16-digit decimals either side are both inside the float's interval.
    values += [2.0**50 + k + fraction for k in range(0, 2**50, 2**50 // 997)
               for fraction in (0.25, 0.75)]
    # The neighbours of 2^53 (where the spacing of the floats doubles) and of 2^54.
    for power in (53, 54):
        values += [2.0**power + k for k in range(-64, 65)]
        values += [math.nextafter(2.0**power, 0.0), math.nextafter(2.0**power, math.inf)]
    # Whole numbers, short decimals, where the layout changes (1e16, 1e-05).
    values += [float(k) for k in range(-1000, 1000)]
    values += [k / 1000 for k in range(-1000, 1001)] + [k / 2**20 for k in range(5000)]
    values += [1e16, 9999999999999998.0, 1e-4, 1e-5, 0.00011, 123456789012345678.0,
               0.1, 0.2, 0.3, 1 / 3, 2 / 3, 1.7976931348623157e308, 2.2250738585072014e-308,
               0.0, -0.0, math.nan, -math.nan, math.inf, -math.inf]
    values += rng.random(20000).tolist() + rng.normal(size=20000).tolist()
    return values


HARD = _hard_floats()


def test_each_float_is_written_as_repr_writes_it():
    wrong = [(repr(value), format_float(value)) for value in HARD
             if format_float(value) != repr(value)]
    assert wrong == []


def test_rows_are_written_as_a_percent_format_writes_them():
    rng = np.random.default_rng(5)
    n = len(HARD) // 2
    columns = [np.array(HARD[:n]), np.array(HARD[n:2 * n])]
    rows = rng.integers(-2**63, 2**63 - 1, n, dtype=np.int64)
    rows[:3] = [0, -2**63, 2**63 - 1]
    # Text of any kind of str (numpy's from an .npz), and not ASCII.
    fields = [[f"k{index % 7}é" for index in range(n)], [np.str_("a,b")] * n]
    expected = "".join(f"{row},{a},{b},{x!r},{y!r}\n" for row, a, b, x, y in zip(
        rows.tolist(), *fields, *(column.tolist() for column in columns), strict=True))
    assert format_rows(rows, fields, columns) == expected
    assert format_rows(rows[:0], [[], []], [column[:0] for column in columns]) == ""


def test_columns_of_another_length_are_refused():
    with pytest.raises(ValueError, match="columns: a column of 2 values for 3 rows"):
        format_rows(np.arange(3), [], [np.zeros(2)])
    with pytest.raises(ValueError, match="fields: a column of 1 fields for 3 rows"):
        format_rows(np.arange(3), [["a"]], [np.zeros(3)])
    with pytest.raises(TypeError):
        format_rows(np.arange(1), [[b"a"]], [np.zeros(1)])


N_ROWS = 25000
WINDOW = 10000


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, N_ROWS)
    s = rng.normal(size=N_ROWS) + 0.7 * y
    s2 = np.round(rng.normal(size=N_ROWS) + 0.4 * y, 2)  # (ties)
    seconds = 1_700_000_000 + np.cumsum(rng.integers(0, 3, N_ROWS))
    segments = rng.choice(["north", "south", "east"], N_ROWS)
    return y, s, s2, seconds, segments


@pytest.fixture(scope="module")
def stream_file(tmp_path_factory, stream):
    y, s, s2, seconds, segments = stream
    path = tmp_path_factory.mktemp("format") / "rows.csv"
    path.write_text("label,score,score2,t,region\n" + "".join(
        f"{a},{b!r},{c!r},{t},{g}\n" for a, b, c, t, g in zip(
            y.tolist(), s.tolist(), s2.tolist(), seconds.tolist(), segments.tolist(),
            strict=True)))
    return path


def _expected(header, rows, copied, columns):
    """The CSV the monitor writes, from the values alone (repr of each)."""
    lines = [",".join(header) + "\n"]
    for index in rows.tolist():
        fields = [str(index), *(str(values[index]) for values in copied),
                  *(repr(float(values[index])) for values in columns)]
        lines.append(",".join(fields) + "\n")
    return "".join(lines)


@pytest.mark.parametrize("every", [1, 1000])
@pytest.mark.parametrize("case", ["rows", "min_periods", "time", "by", "score2"])
def test_the_output_is_the_windows_values_as_repr_writes_them(capsys, stream, stream_file,
                                                              case, every):
    y, s, s2, seconds, segments = stream
    # Chunks of 12000, 12000 and 1000 rows: the window's points carried from one chunk to
    # the next, in chunks longer than the window and in one shorter.
    args = [stream_file, "--window", str(WINDOW), "--every", str(every), "--no-progress",
            "--chunk-size", "12000"]
    metrics, copied, header = ("auc",), [], ["row"]
    options = {"window": WINDOW}
    if case == "min_periods":
        args += ["--min-periods", "5000"]
        options["min_periods"] = 5000
    elif case == "time":
        args[2] = "2h"
        args += ["--time-col", "t"]
        options = {"window": "2h", "times": (seconds * 10**9).astype("datetime64[ns]")}
        copied, header = [seconds], ["row", "t"]
    elif case == "by":
        args += ["--by", "region"]
        options["by"] = segments
        copied, header = [segments], ["row", "region"]
    elif case == "score2":
        metrics = ("auc", "auc2", "auc_diff")
        args += ["--score2-col", "score2", "--metrics", ",".join(metrics)]
        options["y_score2"] = s2
    code, out, _ = run_cli(args, capsys)
    assert code == 0
    values = sliding_window(y, s, metrics=metrics, **options)
    rows = np.flatnonzero((np.arange(N_ROWS) + 1) % every == 0)
    assert out == _expected([*header, *metrics], rows, copied,
                            [values[name] for name in metrics])
