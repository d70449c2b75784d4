"""``--score2-col COLUMN``: two models on one window, the output the Python values.

Each written row's ``auc2``, ``auc_diff`` and ``auc_diff_p`` are those of
``sliding_window(..., y_score2=)`` on the same rows (itself ``auc_test`` on each
window's rows: tests/api/test_two_models.py), whatever the chunks and ``--every``,
from CSV, a pipe, .npz and parquet, with segments; a bad second score is one line
and exit 2, and an --out file is left as it was.
"""

import subprocess

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import PRECIOUS, refused, run_cli, start, written_rows
from test_progress_terminal import assert_same_output

from hmeasure_stream import auc_test, sliding_window

N_ROWS = 400
METRICS = ("auc", "auc2", "auc_diff", "auc_diff_p")


@pytest.fixture
def stream(rng):
    y = rng.integers(0, 2, N_ROWS)
    champion = np.round(rng.random(N_ROWS) * 0.6 + 0.3 * y, 2)  # ties
    challenger = np.round(rng.random(N_ROWS) * 0.8 + 0.15 * y, 2)
    keys = np.array(["web", "app"])[rng.integers(0, 2, N_ROWS)]
    return y, champion, challenger, keys


def _csv(y, s, s2, keys):
    lines = ["label,score,challenger,channel"]
    lines += [f"{int(a)},{float(b)!r},{float(c)!r},{key}"
              for a, b, c, key in zip(y, s, s2, keys, strict=True)]
    return "\n".join(lines) + "\n"


def _table(text):
    lines = text.strip().splitlines()
    header = lines[0].split(",")
    body = [line.split(",") for line in lines[1:]]
    rows = np.array([int(fields[0]) for fields in body], dtype=np.int64)
    return header, rows, {name: np.array([float(fields[k]) for fields in body])
                          for k, name in enumerate(header) if name in METRICS}


@pytest.mark.parametrize("chunk_size", ["1", "7", "1000"])
@pytest.mark.parametrize("every", ["1", "9"])
def test_the_output_equals_the_python_values(tmp_path, capsys, stream, chunk_size, every):
    y, s, s2, keys = stream
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s, s2, keys))
    code, out, err = run_cli([path, "--no-progress", "--score2-col", "challenger",
                              "--window", "60", "--metrics", ",".join(METRICS),
                              "--every", every, "--chunk-size", chunk_size], capsys)
    assert code == 0, err
    header, rows, table = _table(out)
    assert header == ["row", *METRICS]
    np.testing.assert_array_equal(rows, written_rows(N_ROWS, int(every)))
    expected = sliding_window(y, s, 60, METRICS, y_score2=s2)
    for name in METRICS:
        np.testing.assert_array_equal(table[name], expected[name][rows], err_msg=name)
    last = auc_test(y[-60:], s[-60:], s2[-60:])
    if int(every) == 1:
        assert table["auc_diff_p"][-1] == last.pvalue


def test_a_pipe_npz_and_parquet_give_the_file_values(tmp_path, capsys, stream):
    y, s, s2, keys = stream
    text = _csv(y, s, s2, keys)
    options = ["--score2-col", "challenger", "--window", "50", "--metrics", "auc_diff,auc_diff_p",
               "--every", "5"]
    path = tmp_path / "scores.csv"
    path.write_text(text)
    code, from_file, err = run_cli([path, "--no-progress", *options], capsys)
    assert code == 0, err
    process = start(["-", *options], stdin=subprocess.PIPE)
    from_pipe, pipe_err = process.communicate(text, timeout=300)
    assert process.returncode == 0, pipe_err
    assert from_pipe == from_file
    archive = tmp_path / "scores.npz"
    np.savez(archive, label=y, score=s, challenger=s2)
    frame = pyarrow.table({"label": pyarrow.array(y.astype(np.int8)),
                           "score": pyarrow.array(s), "challenger": pyarrow.array(s2)})
    table_path = tmp_path / "scores.parquet"
    parquet.write_table(frame, table_path)
    for source in (archive, table_path):
        code, out, err = run_cli([source, "--no-progress", "--chunk-size", "33", *options],
                                 capsys)
        assert code == 0, err
        assert out == from_file, source
    _, rows, table = _table(from_file)
    expected = sliding_window(y, s, 50, ("auc_diff", "auc_diff_p"), y_score2=s2)
    np.testing.assert_array_equal(table["auc_diff_p"], expected["auc_diff_p"][rows])


def test_with_segments_each_segment_compares_the_models(tmp_path, capsys, stream):
    y, s, s2, keys = stream
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s, s2, keys))
    code, out, err = run_cli([path, "--no-progress", "--score2-col", "challenger", "--by",
                              "channel", "--window", "30", "--metrics", "auc2,auc_diff_p",
                              "--chunk-size", "64"], capsys)
    assert code == 0, err
    _, rows, table = _table(out)
    np.testing.assert_array_equal(rows, np.arange(N_ROWS))
    expected = sliding_window(y, s, 30, ("auc2", "auc_diff_p"), y_score2=s2, by=keys)
    np.testing.assert_array_equal(table["auc2"], expected["auc2"])
    np.testing.assert_array_equal(table["auc_diff_p"], expected["auc_diff_p"])


def test_a_bad_second_score_is_one_line_exit_2_and_the_out_file_stays(tmp_path):
    text = "label,score,challenger\n0,0.1,0.2\n1,0.9,0.8\n0,0.3,x\n1,0.7,0.4\n"
    path = tmp_path / "scores.csv"
    path.write_text(text)
    kept = tmp_path / "out.csv"
    kept.write_text(PRECIOUS)
    process = start([path, "--score2-col", "challenger", "--metrics", "auc2", "--out", kept])
    out, err = process.communicate(timeout=300)
    assert process.returncode == 2
    assert err == (f"hmeasure-stream: error: {path}:4: score 'x' is not a number in column "
                   "'challenger' (--score2-col)\n")
    assert kept.read_text() == PRECIOUS
    process = start(["-", "--score2-col", "challenger", "--metrics", "auc2", "--chunk-size",
                     "2"], stdin=subprocess.PIPE)
    out, err = process.communicate(text, timeout=300)
    assert process.returncode == 2
    assert out == "row,auc2\n0,nan\n1,1.0\n"  # the rows of the chunks before it stay
    archive = tmp_path / "scores.npz"
    np.savez(archive, label=[0, 1, 0], score=[0.1, 0.2, 0.3], challenger=[0.1, np.inf, 0.3])
    process = start([archive, "--score2-col", "challenger", "--metrics", "auc2"])
    out, err = process.communicate(timeout=300)
    assert process.returncode == 2
    assert err == (f"hmeasure-stream: error: {archive}: column 'challenger' (--score2-col) "
                   "at position 1: score inf is not finite\n")


@pytest.mark.parametrize(("options", "message"), [
    (["--metrics", "auc,auc_diff"], "--metrics auc_diff compare two models on the same rows: "
                                    "give the column of the second model's scores with "
                                    "--score2-col"),
    (["--score2-col", "challenger"], "--score2-col challenger is read by the metrics auc2, "
                                     "auc_diff, auc_diff_p only"),
    (["--score2-col", "nowhere", "--metrics", "auc2"], "no column 'nowhere' (--score2-col)"),
    (["--score2-col", "challenger", "--metrics", "auc2", "--delayed", "--id-col", "label"],
     "--metrics auc2 (two models) do not go with --delayed"),
])
def test_refusals(tmp_path, capsys, options, message):
    path = tmp_path / "scores.csv"
    path.write_text("label,score,challenger\n0,0.1,0.3\n1,0.9,0.2\n")
    refused([path, "--no-progress", *options], capsys, message)


def test_score2_col_describes_a_file(capsys):
    code, out, err = run_cli(["--score2-col", "challenger"], capsys)
    assert (code, out) == (2, "")
    assert err == "hmeasure-stream: error: --score2-col describes FILE, and no FILE was given\n"


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_on_a_terminal_with_its_progress_bar_every_row_is_written(tmp_path, kind):
    """Standard error a pseudo-terminal (the bar shown, chunks paced by time): the same
    bytes as without the bar, and the Python values."""
    rng = np.random.default_rng(5)
    n = 60_000
    y = rng.integers(0, 2, n)
    s, s2 = (np.round(rng.random(n) * 0.7 + shift * y, 3) for shift in (0.3, 0.2))
    if kind == "parquet":
        path = tmp_path / "rows.parquet"
        parquet.write_table(pyarrow.table({"label": y, "score": s, "challenger": s2}), path,
                            row_group_size=20_000)
    else:
        path = tmp_path / "rows.csv"
        path.write_text(_csv(y, s, s2, np.full(n, "web")))
    out = tmp_path / "metrics.csv"
    args = [path, "--score2-col", "challenger", "--window", 2000, "--metrics",
            "auc2,auc_diff_p", "--every", 1500, "--out", out]
    assert_same_output(args, out=out, rows=n)
    _, rows, table = _table(out.read_text().split("hmeasure-stream")[0])
    expected = sliding_window(y, s, 2000, ("auc2", "auc_diff_p"), y_score2=s2,
                              at=np.arange(1499, n, 1500))
    np.testing.assert_array_equal(rows, np.arange(1499, n, 1500))
    np.testing.assert_array_equal(table["auc_diff_p"], expected["auc_diff_p"])
