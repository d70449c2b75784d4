"""Ctrl-C and a closed pipe: one line (or none), the right exit code, consistent output.

The monitor reads a FIFO fed by the test, so the test knows how many rows it
has read when the interrupt arrives: the monitor writes and flushes the output
of every chunk, and then waits for more rows.
"""

import errno
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from cli_helpers import PRECIOUS, csv_text, leftovers, read_table, window_aucs

from hmeasure_stream.cli import _Interrupts

N_ROWS, CHUNK, WINDOW = 1000, 100, 50


def start(args):
    return subprocess.Popen(
        [sys.executable, "-m", "hmeasure_stream", *map(str, args), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


def open_writer(fifo, process, timeout=120):
    """Open the FIFO for writing once the monitor has opened it for reading."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the monitor never opened its input"
        time.sleep(0.02)
    os.set_blocking(descriptor, True)
    return descriptor


def wait_for_lines(path_pattern, directory, count, process, timeout=120):
    deadline = time.monotonic() + timeout
    while True:
        for path in directory.glob(path_pattern):
            if path.read_text().count("\n") >= count:
                return
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the monitor never wrote its output"
        time.sleep(0.02)


@pytest.fixture
def rows(rng):
    y = rng.integers(0, 2, N_ROWS)
    return y, np.round(rng.normal(size=N_ROWS) + y, 2)


def test_ctrl_c_on_standard_output(tmp_path, rows):
    y, s = rows
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    process = start([fifo, "--window", WINDOW, "--chunk-size", CHUNK])
    writer = open_writer(fifo, process)
    try:
        os.write(writer, csv_text(y, s).encode())
        lines = [process.stdout.readline() for _ in range(N_ROWS + 1)]
        process.send_signal(signal.SIGINT)
        rest, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert process.returncode == 130
    assert err == ("hmeasure-stream: interrupted after 1000 rows; standard output holds the "
                   "output for rows 0..999\n")
    assert rest == ""
    got_rows, values = read_table("".join(lines))
    np.testing.assert_array_equal(got_rows, np.arange(N_ROWS))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-14)


def test_ctrl_c_leaves_out_holding_the_rows_read(tmp_path, rows):
    y, s = rows
    fifo, out = tmp_path / "pipe", tmp_path / "out.csv"
    os.mkfifo(fifo)
    out.write_text(PRECIOUS)
    process = start([fifo, "--window", WINDOW, "--chunk-size", CHUNK, "--every", "3",
                     "--out", out])
    writer = open_writer(fifo, process)
    try:
        os.write(writer, csv_text(y, s).encode())
        # A FIFO is a live input: the output is in OUT.partial until the run ends.
        wait_for_lines("out.csv.partial", tmp_path, 1 + N_ROWS // 3, process)
        process.send_signal(signal.SIGINT)
        stdout, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert process.returncode == 130 and stdout == ""
    assert err == (f"hmeasure-stream: interrupted after 1000 rows; {out} holds the output for "
                   "rows 0..999\n")
    got_rows, values = read_table(out.read_text())
    np.testing.assert_array_equal(got_rows, np.arange(2, N_ROWS, 3))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW)[2::3], rtol=1e-14)
    assert leftovers(tmp_path) == []
    assert not (tmp_path / "out.csv.partial").exists()


def test_ctrl_c_before_any_row_leaves_out_unchanged(tmp_path):
    fifo, out = tmp_path / "pipe", tmp_path / "out.csv"
    os.mkfifo(fifo)
    out.write_text(PRECIOUS)
    process = start([fifo, "--out", out])
    writer = open_writer(fifo, process)
    try:
        os.write(writer, b"label,sco")
        process.send_signal(signal.SIGINT)
        stdout, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert process.returncode == 130 and stdout == ""
    assert err == f"hmeasure-stream: interrupted before any row was read; {out} is unchanged\n"
    assert out.read_text() == PRECIOUS
    assert leftovers(tmp_path) == []


def test_an_interrupt_waits_for_the_chunk_being_written():
    reached = False
    with _Interrupts() as interrupts:
        with pytest.raises(KeyboardInterrupt):
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGINT)
                reached = True
        assert reached
        with pytest.raises(KeyboardInterrupt):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(1)  # not reached: the interrupt is raised at once
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_closed_pipe_ends_quietly(tmp_path, rng):
    y = rng.integers(0, 2, 30000)
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, rng.normal(size=y.shape[0])))
    process = start([path, "--window", "10"])
    assert process.stdout.readline() == "row,auc\n"
    process.stdout.close()
    err = process.stderr.read()
    process.stderr.close()
    process.wait(timeout=120)
    assert (process.returncode, err) == (141, "")
