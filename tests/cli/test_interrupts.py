"""Ctrl-C and a closed pipe: one line (or none), the right exit code, consistent output.

The monitor reads a FIFO fed by the test, so the test knows how many rows it
has read when the interrupt arrives: the monitor writes and flushes the output
of every chunk, and then waits for more rows.
"""

import os
import signal
import time

import numpy as np
import pytest
from cli_helpers import (
    PRECIOUS,
    assert_every_third_row_kept,
    csv_text,
    leftovers,
    open_writer,
    read_table,
    start,
    wait_for_lines,
    window_aucs,
)

from hmeasure_stream.cli import Terminated, _Interrupts

N_ROWS, CHUNK, WINDOW = 1000, 100, 50
# Ctrl-C, and SIGTERM (kill, docker stop, systemd, CI time-outs) handled as it is:
# (signal, exit code: 128 + its number, how the line names it).
STOPS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated (SIGTERM)")]
STOP_IDS = ["SIGINT", "SIGTERM"]


@pytest.fixture
def rows(rng):
    y = rng.integers(0, 2, N_ROWS)
    return y, np.round(rng.normal(size=N_ROWS) + y, 2)


@pytest.mark.parametrize("stop", STOPS, ids=STOP_IDS)
def test_ctrl_c_on_standard_output(tmp_path, rows, stop):
    signum, status, event = stop
    y, s = rows
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    process = start([fifo, "--window", WINDOW, "--chunk-size", CHUNK])
    writer = open_writer(fifo, process)
    try:
        os.write(writer, csv_text(y, s).encode())
        lines = [process.stdout.readline() for _ in range(N_ROWS + 1)]
        process.send_signal(signum)
        rest, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert process.returncode == status
    assert err == (f"hmeasure-stream: {event} after 1000 rows; standard output holds the "
                   "output for rows 0..999\n")
    assert rest == ""
    got_rows, values = read_table("".join(lines))
    np.testing.assert_array_equal(got_rows, np.arange(N_ROWS))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-14)


@pytest.mark.parametrize("stop", STOPS, ids=STOP_IDS)
def test_ctrl_c_leaves_out_holding_the_rows_read(tmp_path, rows, stop):
    signum, status, event = stop
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
        process.send_signal(signum)
        stdout, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert_every_third_row_kept(process, stdout, err, status, event, out, y, s, WINDOW)


@pytest.mark.parametrize("stop", STOPS, ids=STOP_IDS)
def test_ctrl_c_before_any_row_leaves_out_unchanged(tmp_path, stop):
    signum, status, event = stop
    fifo, out = tmp_path / "pipe", tmp_path / "out.csv"
    os.mkfifo(fifo)
    out.write_text(PRECIOUS)
    process = start([fifo, "--out", out])
    writer = open_writer(fifo, process)
    try:
        os.write(writer, b"label,sco")
        process.send_signal(signum)
        stdout, err = process.communicate(timeout=120)
    finally:
        os.close(writer)
    assert process.returncode == status and stdout == ""
    assert err == f"hmeasure-stream: {event} before any row was read; {out} is unchanged\n"
    assert out.read_text() == PRECIOUS
    assert leftovers(tmp_path) == [] and not (tmp_path / "out.csv.partial").exists()


@pytest.mark.parametrize("signum, raised", [(signal.SIGINT, KeyboardInterrupt),
                                             (signal.SIGTERM, Terminated)], ids=STOP_IDS)
def test_an_interrupt_waits_for_the_chunk_being_written(signum, raised):
    previous = signal.getsignal(signum)
    reached = False
    with _Interrupts() as interrupts:
        with pytest.raises(raised):
            with interrupts.deferred():
                os.kill(os.getpid(), signum)
                reached = True
        assert reached
        with pytest.raises(raised):
            os.kill(os.getpid(), signum)
            time.sleep(1)  # not reached: the interrupt is raised at once
    assert signal.getsignal(signum) == previous
    if signum == signal.SIGINT:
        assert previous is signal.default_int_handler


def test_a_closed_pipe_ends_quietly(tmp_path, rng):
    y = rng.integers(0, 2, 30000)
    path = tmp_path / "s.csv"
    path.write_text(csv_text(y, rng.normal(size=y.shape[0])))
    # Chunks of 1000 rows: the header comes with the first chunk's rows (fitting in the
    # pipe), and a reader gone is seen by the next write (a write cut short by it is not).
    process = start([path, "--window", "10", "--chunk-size", "1000"])
    assert process.stdout.readline() == "row,auc\n"
    process.stdout.close()
    err = process.stderr.read()
    process.stderr.close()
    process.wait(timeout=120)
    assert (process.returncode, err) == (141, "")
