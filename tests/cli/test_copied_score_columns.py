"""A copied column (--keep-cols, --id-col, --time-col) that is also the score or label column.

The copy holds the user's text (CSV) or values (npz, parquet); the scores
and labels are read as numbers, as without the copy: the metrics are those
of the run without it.
"""

import csv
import io
import os
import select
import subprocess
import sys
import time

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import brute_auc, read_table, run_cli, window_aucs, written_rows

TIMEOUT = 120


def body(text):
    """The output's data lines split into fields."""
    return [line.split(",") for line in text.strip().splitlines()[1:]]


@pytest.mark.parametrize("copy", [["--keep-cols", "score"], ["--id-col", "score"],
                                  ["--keep-cols", "label,score"]])
def test_one_row_file_with_the_score_copied(tmp_path, capsys, copy):
    path = tmp_path / "one.csv"
    path.write_text("label,score\n1,0.90\n")
    code, out, err = run_cli([path, "--metrics", "auc,brier", "--no-progress", *copy], capsys)
    assert code == 0, err
    lines = out.splitlines()
    copied = copy[1].split(",")
    assert lines[0] == ",".join(["row", *copied, "auc", "brier"])
    fields = lines[1].split(",")
    assert fields[1:1 + len(copied)] == [{"label": "1", "score": "0.90"}[name]
                                         for name in copied]
    assert fields[-2] == "nan"  # one class: the AUC is undefined
    assert float(fields[-1]) == pytest.approx((1 - 0.9) ** 2, rel=1e-12)


def test_one_row_file_with_the_label_copied(tmp_path, capsys):
    path = tmp_path / "one.csv"
    path.write_text("label,score\ntrue,0.25\n")
    code, out, err = run_cli([path, "--metrics", "brier", "--no-progress",
                              "--keep-cols", "label"], capsys)
    assert code == 0, err
    row = out.splitlines()[1].split(",")
    assert row[:2] == ["0", "true"]
    assert float(row[2]) == pytest.approx((1 - 0.25) ** 2, rel=1e-12)


@pytest.fixture
def stream():
    rng = np.random.default_rng(41)
    n = 150_000
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) * 0.6 + 0.4 * y, 3)
    # The score as a user may write it: trailing zeros and exponents are copied as written.
    texts = [f"{value:.3f}" if k % 3 == 0 else f"{value:.2e}" if k % 3 == 1 else repr(value)
             for k, value in enumerate(s.tolist())]
    return y, np.array([float(text) for text in texts]), texts


@pytest.mark.parametrize("copy", [["--keep-cols", "score"], ["--id-col", "score"],
                                  ["--keep-cols", "label"], ["--id-col", "label"],
                                  ["--keep-cols", "score,label"]])
def test_a_large_file_with_the_score_or_label_copied(tmp_path, capsys, stream, copy):
    y, s, texts = stream
    path = tmp_path / "rows.csv"
    labels = ["yes" if value else "no" for value in y.tolist()]
    path.write_text("label,score\n" + "".join(
        f"{label},{text}\n" for label, text in zip(labels, texts, strict=True)))
    common = [path, "--window", 500, "--every", 97, "--metrics", "auc,brier,h",
              "--pos-label", "yes", "--no-progress"]
    code, plain, err = run_cli(common, capsys)
    assert code == 0, err
    code, out, err = run_cli([*common, *copy], capsys)
    assert code == 0, err
    copied = copy[1].split(",")
    rows = body(out)
    written = written_rows(len(y), 97)
    assert [int(fields[0]) for fields in rows] == written.tolist()
    original = {"score": texts, "label": labels}
    for k, name in enumerate(copied):
        assert [fields[1 + k] for fields in rows] == [original[name][i] for i in written]
    # The metrics are those of the run without the copy.
    assert [[fields[0], *fields[1 + len(copied):]] for fields in rows] == body(plain)
    _, values = read_table(plain)
    # The first rows and the last (which --every writes as well).
    checked = [0, 1, 2, -1]
    np.testing.assert_allclose(values["brier"][checked], [
        np.mean((y[max(0, i - 499):i + 1] - s[max(0, i - 499):i + 1]) ** 2)
        for i in written[checked]], rtol=1e-12)
    np.testing.assert_allclose(values["auc"][checked],
                               [brute_auc(y[max(0, i - 499):i + 1], s[max(0, i - 499):i + 1])
                                for i in written[checked]], rtol=1e-12)


@pytest.mark.parametrize("kind", ["npz", "parquet"])
def test_arrays_with_the_score_copied(tmp_path, capsys, kind):
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 40)
    s = np.round(rng.random(40), 2)
    path = tmp_path / f"rows.{kind}"
    if kind == "npz":
        np.savez(path, label=y, score=s)
    else:
        parquet.write_table(pyarrow.table({"label": y, "score": s}), path)
    code, out, err = run_cli([path, "--window", 9, "--keep-cols", "score,label",
                              "--chunk-size", 7, "--no-progress"], capsys)
    assert code == 0, err
    rows = body(out)
    assert [float(fields[1]) for fields in rows] == s.tolist()
    assert [int(fields[2]) for fields in rows] == y.tolist()
    np.testing.assert_allclose([float(fields[3]) for fields in rows], window_aucs(y, s, 9),
                               rtol=1e-13)


def test_live_rows_with_the_score_copied():
    """Standard input answered a row at a time: each chunk is one row."""
    rows = [(1, "0.90"), (0, "0.10"), (1, "0.7"), (0, "0.80")]
    process = subprocess.Popen(
        [sys.executable, "-m", "hmeasure_stream", "-", "--metrics", "auc,brier",
         "--keep-cols", "score", "--no-progress"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    with process:
        received = b""
        process.stdin.write(b"label,score\n")
        for count, (label, text) in enumerate(rows, 1):
            process.stdin.write(f"{label},{text}\n".encode())
            process.stdin.flush()
            # Wait for this row's output before the next row is written.
            deadline = time.monotonic() + TIMEOUT
            while received.count(b"\n") < count + 1:
                assert time.monotonic() < deadline, received
                ready, _, _ = select.select([process.stdout], [], [], 0.5)
                if ready:
                    part = os.read(process.stdout.fileno(), 1 << 16)
                    assert part, process.stderr.read()
                    received += part
        process.stdin.close()
        received += process.stdout.read()
        err = process.stderr.read().decode()
        assert process.wait(timeout=TIMEOUT) == 0, err
    got = body(received.decode())
    assert [fields[1] for fields in got] == [text for _, text in rows]
    y = [label for label, _ in rows]
    s = [float(text) for _, text in rows]
    expected_auc = [brute_auc(y[:k + 1], s[:k + 1]) for k in range(len(rows))]
    np.testing.assert_allclose([float(fields[2]) for fields in got], expected_auc)
    np.testing.assert_allclose([float(fields[3]) for fields in got],
                               [np.mean((np.array(y[:k + 1]) - s[:k + 1]) ** 2)
                                for k in range(len(rows))], rtol=1e-12)


@pytest.mark.parametrize("decimal_comma", [False, True], ids=["point", "comma"])
def test_copied_scores_of_a_plain_block_are_parsed_in_compiled_code(tmp_path, capsys,
                                                                    monkeypatch,
                                                                    decimal_comma):
    # A block without quotes, comments or problems is read by pyarrow whole: the scores
    # whose text is copied are converted there too, not one by one in Python.
    import hmeasure_stream.cli._reading as reading

    def refused(*args, **kwargs):
        raise AssertionError("parse_scores called for a plain block")

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.random(500), 4)
    delimiter = ";" if decimal_comma else ","
    texts = [f"{value!r}".replace(".", ",") if decimal_comma else f"{value!r}"
             for value in s.tolist()]
    path = tmp_path / "rows.csv"
    path.write_text(f"label{delimiter}score\n" + "".join(
        f"{label}{delimiter}{text}\n" for label, text in zip(y.tolist(), texts, strict=True)))
    monkeypatch.setattr(reading, "parse_scores", refused)
    flags = ["--decimal-comma", "--delimiter", ";"] if decimal_comma else []
    code, out, err = run_cli([path, "--window", "100", "--keep-cols", "score", *flags,
                              "--no-progress"], capsys)
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["row", "score", "auc"]
    assert [row[1] for row in rows[1:]] == texts
    np.testing.assert_allclose([float(row[2]) for row in rows[1:]], window_aucs(y, s, 100),
                               rtol=1e-12)
