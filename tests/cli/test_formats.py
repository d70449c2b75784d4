"""What the monitor reads: compression, encodings, delimiters, binaries, big integers.

Each input is read into the metrics of its stream, checked against the AUC
counted pair by pair in exact arithmetic on the rows as written.
"""

import bz2
import codecs
import contextlib
import gzip
import lzma
import os
import stat

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import (
    PRECIOUS,
    brute_auc,
    csv_text,
    leftovers,
    read_table,
    run_cli,
    window_aucs,
    written_rows,
)

from hmeasure_stream import h_measure
from hmeasure_stream._demo import load_default_stream

WINDOW = 7


@pytest.fixture
def stream(rng):
    n = 60
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.8 * y, 1)  # rounded: ties
    return y, s


def check_output(text, y, s, window=WINDOW):
    rows, values = read_table(text)
    np.testing.assert_array_equal(rows, np.arange(len(y)))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, window), rtol=1e-14)


def monitor(path, capsys, *options, window=WINDOW):
    code, out, err = run_cli([path, "--window", window, "--chunk-size", "8", *options], capsys)
    assert code == 0, err
    return out


@pytest.mark.parametrize(("opener", "name"), [(open, "s.csv"), (gzip.open, "s.csv.gz"),
                                              (bz2.open, "s.csv.bz2"), (lzma.open, "s.csv.xz"),
                                              (gzip.open, "s.csv"), (lzma.open, "s.data")])
def test_compressed_csv_is_read_whatever_its_name(tmp_path, capsys, stream, opener, name):
    y, s = stream
    path = tmp_path / name
    with opener(path, "wb") as handle:
        handle.write(csv_text(y, s).encode())
    check_output(monitor(path, capsys), y, s)


@pytest.mark.parametrize(("encoding", "delimiter", "options"), [
    ("utf-8-sig", ",", []),                          # Excel's "CSV UTF-8": a BOM
    ("utf-16", "\t", []),                            # Excel's "Unicode text": UTF-16, tabs
    ("utf-16-be", ";", []),
    ("utf-32", ",", []),
    ("latin-1", ";", ["--encoding", "latin-1"]),
    ("cp1252", "\t", ["--encoding", "cp1252"]),
    ("utf-8", "|", ["--delimiter", "|"]),
    ("utf-8", " ", ["--delimiter", "space"]),
])
def test_encodings_and_delimiters(tmp_path, capsys, stream, encoding, delimiter, options):
    y, s = stream
    name = "José" if encoding == "latin-1" else "José €"
    lines = [delimiter.join(["label", "score", "name"])]
    # A name holding the delimiter is quoted: a row has as many fields as the header.
    field = f'"{name}"' if delimiter in name else name
    lines += [delimiter.join([str(int(a)), repr(float(b)), field])
              for a, b in zip(y, s, strict=True)]
    data = ("\n".join(lines) + "\n").encode(encoding)
    if encoding == "utf-16-be":
        data = codecs.BOM_UTF16_BE + data
    path = tmp_path / "s.csv"
    path.write_bytes(data)
    check_output(monitor(path, capsys, *options), y, s)


def test_excel_csv_with_a_bom_reads_the_first_column(tmp_path, capsys):
    path = tmp_path / "excel.csv"
    path.write_bytes(b"\xef\xbb\xbflabel,score\r\n0,0.2\r\n1,0.7\r\n0,0.9\r\n")
    out = monitor(path, capsys, window="all")
    assert read_table(out)[1]["auc"][-1] == 0.5


def test_comments_blank_lines_quotes_and_decimal_comma(tmp_path, capsys, stream):
    y, s = stream
    lines = ["# exported", "", 'id;"label";score']
    lines += [f'"r;{k}";{a};{str(b).replace(".", ",")}' + ("\n# mid-stream note" if k == 5 else "")
              for k, (a, b) in enumerate(zip(y, s, strict=True))]
    path = tmp_path / "s.csv"
    path.write_text("\r\n".join(lines) + "\r\n")
    check_output(monitor(path, capsys, "--decimal-comma"), y, s)


def test_blank_lines_in_large_blocks_are_no_rows_and_lines_keep_their_numbers(tmp_path,
                                                                           capsys):
    # Blocks of plain rows (the fast reader's), with blank lines in the second block and
    # after the last row: the rows of the file without them; then a score that is no
    # probability further on, found after the block is read, is named by its line.
    rng = np.random.default_rng(3)
    n = 120_000  # (some 2.5 MB: several blocks of text)
    y = rng.integers(0, 2, n)
    s = np.round(rng.random(n) * 0.7 + 0.3 * y, 4)
    rows = [f"{a},{b!r}" for a, b in zip(y.tolist(), s.tolist(), strict=True)]
    lines = ["label,score", *rows[:70_000], "", "", *rows[70_000:], ""]
    path = tmp_path / "s.csv"
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli([path, "--window", 1000, "--no-progress"], capsys)
    assert code == 0, err
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(["label,score", *rows]) + "\n")
    assert out == run_cli([plain, "--window", 1000, "--no-progress"], capsys)[1]
    assert read_table(out)[0].tolist() == list(range(n))
    lines[100_002] = "1,1.5"  # the row of physical line 100003 (2 blank lines before)
    path.write_text("\n".join(lines) + "\n")
    code, out, err = run_cli([path, "--window", 1000, "--metrics", "auc,brier",
                              "--no-progress"], capsys)
    assert code == 2
    assert err == (f"hmeasure-stream: error: {path}:100003: score 1.5 is not a probability "
                   "in [0, 1], which --metrics brier reads the scores as\n")


def test_npz_and_parquet_by_content_whatever_the_name(tmp_path, capsys, stream):
    y, s = stream
    npz = tmp_path / "s.npz"
    np.savez(npz, label=y.astype(bool), score=s.astype(np.float32))
    renamed = tmp_path / "s.csv"
    os.link(npz, renamed)
    table = tmp_path / "s.parquet"
    parquet.write_table(pyarrow.table({"label": y.astype(np.int8), "score": s}), table)
    for path in (npz, renamed):
        check_output(monitor(path, capsys), y, s.astype(np.float32).astype(np.float64))
    check_output(monitor(table, capsys), y, s)


def test_npz_integers_beyond_2_53_are_ranked_exactly(tmp_path, capsys, rng):
    """float64 would merge 2**60 + k for small k; the ranks keep every comparison."""
    n = 40
    y = rng.integers(0, 2, n)
    offsets = rng.integers(0, 6, n)
    s = np.array([2**60 + int(k) for k in offsets], dtype=np.uint64)
    path = tmp_path / "s.npz"
    np.savez(path, label=y, score=s)
    out = monitor(path, capsys, window="5")
    exact = window_aucs(y.tolist(), [int(v) for v in s], 5)
    np.testing.assert_allclose(read_table(out)[1]["auc"], exact, rtol=1e-14)
    assert not np.allclose(exact, window_aucs(y, s.astype(np.float64), 5), equal_nan=True)


def test_csv_integers_up_to_2_53_and_exactly_representable_ones_are_read(tmp_path, capsys):
    path = tmp_path / "s.csv"
    path.write_text("label,score\n0,9007199254740992\n1,1152921504606846976\n0,-9007199254740992\n")
    out = monitor(path, capsys, window="all")
    assert read_table(out)[1]["auc"][-1] == 1.0


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_duplicate_metrics_give_one_column(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, s))
    out = monitor(path, capsys, "--metrics", "h,auc,h", "--every", "5")
    lines = out.splitlines()
    assert lines[0] == "row,h,auc"
    rows, values = read_table(out)
    for row, value in zip(rows, values["h"], strict=True):
        part = slice(max(0, row + 1 - WINDOW), row + 1)
        expected = h_measure(y[part], s[part]) if 0 < y[part].sum() < len(y[part]) else np.nan
        np.testing.assert_allclose(value, expected, rtol=1e-12)


def test_a_window_longer_than_the_stream_gives_every_prefix(tmp_path, capsys, stream):
    """The window of 10**15 rows is never filled: prefix values, memory for the rows read."""
    y, s = stream
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, s))
    code, out, err = run_cli([path, "--window", "1e15", "--metrics", "auc,h",
                              "--chunk-size", "16"], capsys)
    assert code == 0, err
    check_output(out, y, s, window=None)
    assert (f"hmeasure-stream: {len(y)} rows ({y.sum()} of class 1), window of "
            "1000000000000000 rows, longer than the stream (every value is over the prefix); "
            f"last: AUC {brute_auc(y, s):.6f}, H {h_measure(y, s):.6f}\n") == err


@pytest.mark.parametrize("chunk_size", ["3", "7", "60", "1000"])
def test_the_window_fills_inside_a_chunk(tmp_path, capsys, stream, chunk_size):
    y, s = stream
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, s))
    code, out, err = run_cli([path, "--window", "20", "--chunk-size", chunk_size], capsys)
    assert code == 0, err
    check_output(out, y, s, window=20)


def test_every_beyond_the_stream_writes_the_last_row(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, s))
    code, every_row, _ = run_cli([path], capsys)
    code_k, out, err = run_cli([path, "--every", "1000"], capsys)
    assert code == code_k == 0
    lines = every_row.splitlines(keepends=True)
    assert out == lines[0] + lines[-1]  # the header and the last row, as every row has it
    assert "no row written" not in err


def test_options_without_a_file_run_the_monitor_on_the_embedded_stream(tmp_path, capsys):
    out = tmp_path / "x.csv"
    code, stdout, err = run_cli(["--out", out, "--metrics", "h", "--window", "300",
                                 "--every", "500"], capsys)
    assert code == 0, err
    y, s = load_default_stream()
    rows, values = read_table(out.read_text())
    np.testing.assert_array_equal(rows, written_rows(len(y), 500))
    assert rows[-1] == len(y) - 1 != 1499
    for row, value in zip(rows, values["h"], strict=True):
        np.testing.assert_allclose(value, h_measure(y[row - 299:row + 1], s[row - 299:row + 1]),
                                   rtol=1e-12)
    assert stdout.startswith(f"hmeasure-stream: {len(y)} rows")


def test_counts_in_scientific_notation(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, s))
    code, out, _ = run_cli([path, "--window", "7e0", "--every", "1_0"], capsys)
    assert code == 0
    rows, values = read_table(out)
    np.testing.assert_array_equal(rows, np.arange(9, len(y), 10))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, 7)[9::10], rtol=1e-14)


def test_a_successful_run_replaces_out_keeping_its_permissions(tmp_path, capsys, stream):
    y, s = stream
    path, out = tmp_path / "s.csv", tmp_path / "out.csv"
    path.write_text(csv_text(y, s))
    out.write_text(PRECIOUS)
    out.chmod(0o640)
    code, _, err = run_cli([path, "--window", WINDOW, "--out", out], capsys)
    assert code == 0, err
    check_output(out.read_text(), y, s)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_fifo_is_read_as_a_stream(tmp_path, capsys, stream):
    import threading

    y, s = stream
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    data = gzip.compress(csv_text(y, s).encode())

    def feed():
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as handle:
            for start in range(0, len(data), 100):
                handle.write(data[start:start + 100])
                handle.flush()

    feeder = threading.Thread(target=feed, daemon=True)
    feeder.start()
    try:
        check_output(monitor(fifo, capsys), y, s)
    finally:
        if feeder.is_alive():  # the monitor did not read it all: release the writer
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        feeder.join(timeout=60)


def test_parquet_decimal_scores_and_nullable_free_columns(tmp_path, capsys, stream):
    from decimal import Decimal

    y, s = stream
    path = tmp_path / "s.parquet"
    scores = pyarrow.array([Decimal(repr(float(v))) for v in s], pyarrow.decimal128(6, 1))
    parquet.write_table(pyarrow.table({"label": pyarrow.array(y.astype(bool)), "score": scores}),
                        path, row_group_size=13)
    check_output(monitor(path, capsys), y, s)
