"""The monitor on a terminal, with its progress bar, writes what it writes without it.

Each run has its standard error on a pseudo-terminal (and for one, standard
input too), as a user's shell gives it, so the progress bar is shown and the
monitor paces its chunks by time to move it; every byte of the output (standard
output or ``--out``) is compared with the same run with ``--no-progress``.
The files are long enough for the chunk size to change while they are read
(the first chunk is small, the next ones paced); ``test_reader_chunk_sizes``
drives the same change deterministically.
"""

import fcntl
import gzip
import os
import pty
import re
import struct
import subprocess
import sys
import termios
import threading

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest

# More rows than a block of CSV text holds (about 10**6 bytes).
N = 150_000
TIMEOUT = 120
# What the bar writes: tqdm's rate, in bytes of a file or rows of a stream.
BAR = re.compile(rb"hmeasure-stream: .*(B|rows)/s")


@pytest.fixture(scope="module")
def stream():
    rng = np.random.default_rng(20261201)
    y = rng.integers(0, 2, N)
    s = np.round(rng.random(N) * 0.7 + 0.3 * y, 4)  # rounded: ties
    return y, s


def csv_bytes(y, s, newline="\n"):
    rows = [f"{a},{b!r}" for a, b in zip(y.tolist(), s.tolist(), strict=True)]
    return newline.join(["label,score", *rows, ""]).encode()


def write_input(directory, kind, y, s):
    """The stream as a file of ``kind``; its path."""
    if kind == "parquet":
        path = directory / "rows.parquet"
        parquet.write_table(pyarrow.table({"label": y, "score": s}), path,
                            row_group_size=50_000)
    elif kind == "npz":
        path = directory / "rows.npz"
        np.savez(path, label=y, score=s)
    else:
        newline = {"crlf": "\r\n", "cr": "\r"}.get(kind, "\n")
        data = csv_bytes(y, s, newline)
        path = directory / ("rows.csv.gz" if kind == "gzip" else "rows.csv")
        path.write_bytes(gzip.compress(data, compresslevel=1) if kind == "gzip" else data)
    return path


def _drain(pipe, into):
    into.append(pipe.read())


def _drain_terminal(master, into):
    while True:
        try:
            data = os.read(master, 1 << 16)
        except OSError:  # EIO: every process holding the terminal has ended
            return
        if not data:
            return
        into.append(data)


def _terminal():
    """A pseudo-terminal of 24 x 120 (tqdm draws nothing on a terminal 0 columns wide)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    return master, slave


def run(args, stdin=None, terminal=True, stdin_terminal=False):
    """The monitor in a subprocess: (exit code, standard output, what the terminal showed).

    ``terminal``: standard error is a pseudo-terminal, else a pipe.  ``stdin``: bytes
    written to standard input, through a pipe, or with ``stdin_terminal`` typed on a
    second pseudo-terminal (without echo), a line at a time, and ended by Ctrl-D.
    """
    command = [sys.executable, "-m", "hmeasure_stream", *map(str, args)]
    opened, threads, shown, out = [], [], [], []
    if terminal:
        master, slave = _terminal()
        opened += [master, slave]
        error_target = slave
    else:
        error_target = subprocess.PIPE
    input_target = subprocess.DEVNULL if stdin is None else subprocess.PIPE
    if stdin_terminal:
        keys, typed = _terminal()
        attributes = termios.tcgetattr(typed)
        attributes[3] &= ~termios.ECHO  # lflag: the rows are not echoed back
        termios.tcsetattr(typed, termios.TCSANOW, attributes)
        opened += [keys, typed]
        input_target = typed
    try:
        with subprocess.Popen(command, stdin=input_target, stdout=subprocess.PIPE,
                              stderr=error_target) as process:
            if terminal:
                os.close(slave)
                opened.remove(slave)
                threads.append(threading.Thread(target=_drain_terminal, args=(master, shown)))
            else:
                threads.append(threading.Thread(target=_drain, args=(process.stderr, shown)))
            threads.append(threading.Thread(target=_drain, args=(process.stdout, out)))
            if stdin_terminal:
                os.close(typed)
                opened.remove(typed)
                threads.append(threading.Thread(target=_type, args=(keys, stdin)))
            elif stdin is not None:
                threads.append(threading.Thread(target=_feed, args=(process.stdin, stdin)))
            for thread in threads:
                thread.start()
            code = process.wait(timeout=TIMEOUT)
            for thread in threads:
                thread.join(timeout=TIMEOUT)
    finally:
        for descriptor in opened:
            os.close(descriptor)
    return code, b"".join(out), b"".join(shown)


def _feed(pipe, data):
    try:
        pipe.write(data)
        pipe.close()
    except BrokenPipeError:  # the monitor failed; its message tells why
        pass


def _type(keys, data):
    """Type ``data``'s lines on a terminal, then Ctrl-D (the end of input)."""
    try:
        for line in data.splitlines(keepends=True):
            os.write(keys, line)
        os.write(keys, b"\x04")
    except OSError:
        pass


def assert_same_output(args, stdin=None, out=None, stdin_terminal=False, rows=N):
    """The run on a terminal shows the bar and writes every byte of the run without it."""
    code, stdout, shown = run(args, stdin, stdin_terminal=stdin_terminal)
    assert code == 0, shown.decode(errors="replace")
    assert BAR.search(shown), shown[:500]
    on_terminal = stdout if out is None else out.read_bytes()
    code, stdout, err = run([*args, "--no-progress"], stdin, terminal=False,
                            stdin_terminal=stdin_terminal)
    assert code == 0, err.decode(errors="replace")
    assert not BAR.search(err)
    without_bar = stdout if out is None else out.read_bytes()
    summary = (stdout if out is not None else err).decode()
    assert f"hmeasure-stream: {rows} rows" in summary
    assert on_terminal.count(b"\n") > 1
    # Compared as lines first: a failure names the first row that differs, not megabytes.
    assert on_terminal.count(b"\n") == without_bar.count(b"\n")
    assert on_terminal == without_bar


@pytest.mark.parametrize(("kind", "every", "chunk_size", "to_file"), [
    ("csv", 1, None, False),
    ("csv", 7, 3000, True),
    ("csv", 1000, 100, True),
    ("gzip", 7, None, True),
    ("crlf", 1000, 3000, False),
    ("cr", 1, None, True),
    ("parquet", 7, 3000, True),
    ("npz", 1000, None, False),
])
def test_a_file_on_a_terminal_is_read_whole(tmp_path, stream, kind, every, chunk_size,
                                            to_file):
    y, s = stream
    path = write_input(tmp_path, kind, y, s)
    args = [path, "--window", 1000, "--every", every]
    if chunk_size is not None:
        args += ["--chunk-size", chunk_size]
    out = tmp_path / "metrics.csv" if to_file else None
    if out is not None:
        args += ["--out", out]
    assert_same_output(args, out=out)


@pytest.mark.parametrize(("every", "chunk_size"), [(7, None), (1000, 3000)])
def test_standard_input_on_a_terminal_is_read_whole(stream, every, chunk_size):
    y, s = stream
    args = ["-", "--window", 1000, "--every", every]
    if chunk_size is not None:
        args += ["--chunk-size", chunk_size]
    assert_same_output(args, stdin=csv_bytes(y, s))


def test_rows_typed_on_a_terminal_are_read_whole(stream):
    """Standard input a terminal too: the rows come a line at a time."""
    y, s = stream
    n = 1000
    assert_same_output(["-", "--window", 100, "--every", 7], stdin=csv_bytes(y[:n], s[:n]),
                       stdin_terminal=True, rows=n)
