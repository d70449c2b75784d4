"""``--by COLUMN``: one window per segment, its output the Python segments' values.

Each row's metrics are those of ``SlidingWindow.update(..., by=keys)`` on the
same rows (itself equal to separate windows per segment: tests/api/test_segments.py),
whatever the chunks and ``--every``, from a file, a pipe, .npz and parquet; the key
is written after ``row`` under the column's name; alerts watch each segment apart.
"""

import subprocess

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import PRECIOUS, refused, run_cli, start

from hmeasure_stream import SlidingWindow

N_ROWS = 600
METRICS = ("auc", "h", "ap", "sens")
NAMES = np.array(["north", "south", "east", "west", "island"])


@pytest.fixture
def stream(rng):
    y = rng.integers(0, 2, N_ROWS)
    s = np.round(rng.random(N_ROWS) * 0.6 + 0.3 * y, 2)  # ties, around the threshold 0.5
    keys = NAMES[rng.integers(0, NAMES.size, N_ROWS)]
    return y, s, keys


def _csv(y, s, keys):
    lines = ["label,score,region"]
    lines += [f"{int(a)},{float(b)!r},{key}" for a, b, key in zip(y, s, keys, strict=True)]
    return "\n".join(lines) + "\n"


def _table(text, by="region"):
    """The output CSV: (header, rows, keys as written, {metric: values})."""
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    body = [line.split(",") for line in lines[1:]]
    rows = np.array([int(fields[0]) for fields in body], dtype=np.int64)
    keys = [fields[1] for fields in body]
    return header, rows, keys, {name: np.array([float(fields[k]) for fields in body])
                                for k, name in enumerate(header) if k >= 2}


def _python(y, s, keys, window, metrics=METRICS):
    return SlidingWindow(window, ("auc", *[m for m in metrics if m != "auc"])).update(
        y, s, by=keys)


@pytest.mark.parametrize("chunk_size", ["1", "7", "1000"])
@pytest.mark.parametrize("every", ["1", "4"])
def test_by_output_equals_the_python_segments(tmp_path, capsys, stream, chunk_size, every):
    y, s, keys = stream
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s, keys))
    code, out, err = run_cli([path, "--no-progress", "--by", "region", "--window", "25",
                              "--metrics", ",".join(METRICS), "--every", every,
                              "--chunk-size", chunk_size], capsys)
    assert code == 0, err
    header, rows, written, table = _table(out)
    assert header == ["row", "region", *METRICS]
    np.testing.assert_array_equal(rows, np.arange(int(every) - 1, N_ROWS, int(every)))
    assert written == keys[rows].tolist()
    expected = _python(y, s, keys, 25)
    for name in METRICS:
        np.testing.assert_array_equal(table[name], expected[name][rows], err_msg=name)
    assert err.startswith(f"hmeasure-stream: {N_ROWS} rows (")
    assert f"window of 25 rows, by region (5 segments; last: region {keys[-1]})" in err
    alone = SlidingWindow(25, ("auc", "h"))
    alone.update(y[keys == keys[-1]], s[keys == keys[-1]])
    assert err.rstrip().endswith(f"last: AUC {alone['auc']:.6f}, H {alone['h']:.6f}")


def test_by_from_a_pipe_equals_the_file(tmp_path, capsys, stream):
    y, s, keys = stream
    text = _csv(y, s, keys)
    path = tmp_path / "scores.csv"
    path.write_text(text)
    options = ["--by", "region", "--window", "40", "--metrics", "auc,sens", "--every", "3"]
    code, from_file, err = run_cli([path, "--no-progress", *options], capsys)
    assert code == 0, err
    process = start(["-", *options], stdin=subprocess.PIPE)
    from_pipe, pipe_err = process.communicate(text, timeout=300)
    assert process.returncode == 0, pipe_err
    assert from_pipe == from_file
    _, rows, _, table = _table(from_pipe)
    expected = _python(y, s, keys, 40, ("auc", "sens"))
    np.testing.assert_array_equal(table["auc"], expected["auc"][rows])
    np.testing.assert_array_equal(table["sens"], expected["sens"][rows])


def test_by_reads_npz_keys_beyond_2_53_and_parquet_categoricals(tmp_path, capsys, stream):
    y, s, keys = stream
    codes = np.searchsorted(np.sort(NAMES), keys)
    big = np.int64(2**53) + codes.astype(np.int64)  # distinct, though one float64
    archive = tmp_path / "scores.npz"
    np.savez(archive, label=y, score=s, region=big)
    code, out, err = run_cli([archive, "--no-progress", "--by", "region", "--window", "30",
                              "--chunk-size", "64"], capsys)
    assert code == 0, err
    _, rows, written, table = _table(out)
    assert written == [str(key) for key in big.tolist()]
    np.testing.assert_array_equal(table["auc"], _python(y, s, big, 30, ("auc",))["auc"])

    frame = pyarrow.table({"label": pyarrow.array(y.astype(np.int8)),
                           "score": pyarrow.array(s),
                           "region": pyarrow.array(keys.tolist()).dictionary_encode()})
    table_path = tmp_path / "scores.parquet"
    parquet.write_table(frame, table_path)
    code, out, err = run_cli([table_path, "--no-progress", "--by", "region", "--window", "30",
                              "--chunk-size", "100"], capsys)
    assert code == 0, err
    _, rows, written, table = _table(out)
    np.testing.assert_array_equal(rows, np.arange(N_ROWS))
    assert written == keys.tolist()
    np.testing.assert_array_equal(table["auc"], _python(y, s, keys, 30, ("auc",))["auc"])


def test_alerts_watch_each_segment_and_name_it(tmp_path, capsys, stream):
    y, s, keys = stream
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s, keys))
    code, _, err = run_cli([path, "--no-progress", "--by", "region", "--window", "20",
                            "--alert", "auc<0.7", "--chunk-size", "50"], capsys)
    assert code == 0, err
    # Each segment's crossings of auc < 0.7, from the Python values, in row order.
    values = _python(y, s, keys, 20, ("auc",))["auc"]
    expected, state = [], {}
    for row, (key, value) in enumerate(zip(keys, values, strict=True)):
        if np.isnan(value):
            continue
        below = bool(value < 0.7)
        if below != state.get(key, False):
            event = "alert" if below else "alert cleared"
            expected.append(f"hmeasure-stream: {event}: auc<0.7 at row {row}, region {key} "
                            f"(auc={float(value)!r})")
        state[key] = below
    assert expected
    assert err.splitlines()[:-1] == expected


def test_a_missing_key_is_one_line_exit_2_and_the_rows_written_stay(tmp_path):
    """An empty key on line 6: exit 2 with one line naming it; the rows of the chunks
    before it are on standard output, and an --out file is left as it was."""
    text = "label,score,region\n0,0.1,a\n1,0.9,a\n0,0.3,b\n1,0.7,b\n1,0.4,\n0,0.2,a\n"
    process = start(["-", "--by", "region", "--window", "3", "--chunk-size", "2"],
                    stdin=subprocess.PIPE)
    out, err = process.communicate(text, timeout=300)
    assert process.returncode == 2
    assert err == ("hmeasure-stream: error: <stdin>:6: the segment key (--by region) is "
                   "missing (empty): every row needs one\n")
    assert out == "row,region,auc\n0,a,nan\n1,a,1.0\n2,b,nan\n3,b,1.0\n"
    path = tmp_path / "scores.csv"
    path.write_text(text)
    kept = tmp_path / "out.csv"
    kept.write_text(PRECIOUS)
    process = start([path, "--by", "region", "--out", kept])
    out, err = process.communicate(timeout=300)
    assert process.returncode == 2
    assert err == (f"hmeasure-stream: error: {path}:6: the segment key (--by region) is "
                   "missing (empty): every row needs one\n")
    assert kept.read_text() == PRECIOUS


def test_a_nan_key_of_an_array_names_its_position(tmp_path, capsys):
    archive = tmp_path / "scores.npz"
    np.savez(archive, label=[0, 1, 0, 1], score=[0.1, 0.2, 0.3, 0.4],
             region=[1.0, 2.0, np.nan, 1.0])
    code, out, err = run_cli([archive, "--no-progress", "--by", "region"], capsys)
    assert code == 2
    assert err == (f"hmeasure-stream: error: {archive}: row at position 2: the segment key "
                   "(--by region) is missing (nan): every row needs one\n")
    assert out == ""


@pytest.mark.parametrize(("options", "message"), [
    (["--by", "nowhere"], "no column 'nowhere' (--by)"),
    (["--by", "region", "--delayed", "--id-col", "region"], "--by does not go with --delayed"),
    (["--by", "auc"], "--by auc: the segment column is written under its name"),
    (["--by", "row"], "--by row: the segment column is written under its name"),
    (["--by", "region", "--keep-cols", "region"], "--by region is written after row"),
    (["--by", "region", "--metrics", "h", "--priors", "0.3,0.7"],
     "H with --priors or --severity-ratio prior over segments (--by) needs --relative-error"),
])
def test_by_refusals(tmp_path, capsys, options, message):
    path = tmp_path / "scores.csv"
    path.write_text("label,score,region\n0,0.1,a\n1,0.9,b\n")
    refused([path, "--no-progress", *options], capsys, message)


def test_by_describes_a_file(capsys):
    code, out, err = run_cli(["--by", "region"], capsys)
    assert code == 2
    assert out == ""
    assert err == "hmeasure-stream: error: --by describes FILE, and no FILE was given\n"
