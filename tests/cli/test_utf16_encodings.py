"""UTF-16 and UTF-32 input, with and without a byte-order mark.

A byte-order mark decides (whatever ``--encoding`` says); without one,
``--encoding utf-16-le`` / ``utf-16-be`` give the byte order, and
``--encoding utf-16`` cannot tell it: one line, exit code 2, naming the file
and the encoding that the bytes look like.
"""

import codecs
import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import csv_text, read_table, run_cli, window_aucs

WINDOW = 5


@pytest.fixture
def stream():
    rng = np.random.default_rng(16)
    y = rng.integers(0, 2, 40)
    return y, np.round(rng.random(40) + 0.3 * y, 2)


def check(out, y, s):
    rows, values = read_table(out)
    np.testing.assert_array_equal(rows, np.arange(len(y)))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-13)


def monitor(path, capsys, *options):
    return run_cli([path, "--window", WINDOW, "--chunk-size", 7, "--no-progress", *options],
                   capsys)


@pytest.mark.parametrize("bom", [codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE])
@pytest.mark.parametrize("given", [[], ["--encoding", "utf-16"], ["--encoding", "utf-16-le"],
                                   ["--encoding", "utf-16-be"], ["--encoding", "latin-1"]])
def test_a_byte_order_mark_decides(tmp_path, capsys, stream, bom, given):
    y, s = stream
    codec = "utf-16-le" if bom == codecs.BOM_UTF16_LE else "utf-16-be"
    path = tmp_path / "rows.csv"
    path.write_bytes(bom + csv_text(y, s).encode(codec))
    code, out, err = monitor(path, capsys, *given)
    assert code == 0, err
    check(out, y, s)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
def test_without_a_mark_the_named_byte_order_reads(tmp_path, capsys, stream, codec):
    y, s = stream
    path = tmp_path / "rows.csv"
    path.write_bytes(csv_text(y, s).encode(codec))
    code, out, err = monitor(path, capsys, "--encoding", codec)
    assert code == 0, err
    check(out, y, s)


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"])
@pytest.mark.parametrize("spelled", [str.upper, lambda name: name.replace("-", "")])
def test_without_a_mark_utf16_cannot_tell_the_byte_order(tmp_path, capsys, stream, codec,
                                                         spelled):
    y, s = stream
    path = tmp_path / "rows.csv"
    path.write_bytes(csv_text(y, s).encode(codec))
    given = spelled(codec[:6])  # UTF-16, utf16, ...
    code, out, err = monitor(path, capsys, "--encoding", given)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"hmeasure-stream: error: {path}: ")
    assert "byte-order mark" in err
    assert f"--encoding {codec}" in err  # the order its bytes show


def test_without_a_mark_on_standard_input(stream):
    y, s = stream
    done = subprocess.run(
        [sys.executable, "-m", "hmeasure_stream", "-", "--encoding", "utf-16", "--no-progress"],
        input=csv_text(y, s).encode("utf-16-be"), capture_output=True, timeout=120,
        check=False)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("hmeasure-stream: error: <stdin>: ")
    assert "--encoding utf-16-be" in err


def test_without_a_mark_and_no_hint_when_the_bytes_do_not_show_an_order(tmp_path, capsys):
    """Text with no ASCII (no zero byte to tell the order by) still gets one line."""
    path = tmp_path / "rows.csv"
    path.write_bytes("ŁŃ".encode("utf-16-le") * 4)
    code, _, err = monitor(path, capsys, "--encoding", "utf-16")
    assert code == 2
    assert err.count("\n") == 1 and "byte-order mark" in err
    assert "pass --encoding utf-16-le or utf-16-be" in err
