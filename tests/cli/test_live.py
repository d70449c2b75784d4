"""Live input: standard input, a FIFO, a growing file (through tail -F), time windows,
decay, copied columns, ``auch`` and the progress bar.

Every value is checked against a from-scratch computation on the rows of each
window (exact pair counting, or weighted pair counting for decay).
"""

import csv
import datetime
import fcntl
import itertools
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import textwrap
import threading
import time
from fractions import Fraction

import numpy as np
import pytest
from cli_helpers import PRECIOUS, brute_auc, csv_text, read_table, run_cli, window_aucs
from reference_impl import brute_upper_hull, roc_points_exact

TIMEOUT = 120


def command(*args):
    return [sys.executable, "-m", "hmeasure_stream", *map(str, args)]


def start(*args, **kwargs):
    kwargs.setdefault("stdout", subprocess.PIPE)
    kwargs.setdefault("stderr", subprocess.PIPE)
    return subprocess.Popen(command(*args), **kwargs)


class LineReader:
    """Lines of a child's output pipe, read without blocking past a deadline."""

    def __init__(self, pipe):
        self.descriptor = pipe.fileno()
        self.buffer = b""

    def lines(self, count, process, timeout=TIMEOUT):
        """Wait until ``count`` whole lines have arrived in all; return them all (text)."""
        deadline = time.monotonic() + timeout
        while (have := self.buffer.count(b"\n")) < count:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"only {have} of {count} lines came"
            ready, _, _ = select.select([self.descriptor], [], [], min(remaining, 0.5))
            if ready:
                part = os.read(self.descriptor, 1 << 16)
                assert part, f"the output ended after {have} lines"
                self.buffer += part
            else:
                assert process.poll() is None, process.communicate()
        return self.buffer.decode().splitlines(keepends=True)[:count]

    def finish(self, process, timeout=TIMEOUT):
        """Everything the child wrote to this pipe, its stderr and exit code, once it ends."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            assert remaining > 0, "the monitor did not end"
            ready, _, _ = select.select([self.descriptor], [], [], min(remaining, 0.5))
            if ready:
                part = os.read(self.descriptor, 1 << 16)
                if not part:
                    break
                self.buffer += part
        err = process.stderr.read()
        process.stdout.close()
        process.stderr.close()
        return process.wait(timeout), self.buffer.decode(), err.decode()


def rows_of(y, s, start=0, extra=None):
    """CSV data lines (no header) of rows ``start..``; ``extra``: more fields per row."""
    return "".join(
        f"{int(a)},{float(b)!r}{'' if extra is None else ',' + extra[i]}\n"
        for i, (a, b) in enumerate(zip(y[start:], s[start:], strict=True), start))


@pytest.fixture
def stream(rng):
    n = 600
    y = rng.integers(0, 2, n)
    return y, np.round(rng.normal(size=n) + y, 1)  # rounded: ties


def assert_auc_column(text, expected, rows=None):
    got_rows, values = read_table(text)
    np.testing.assert_array_equal(got_rows, np.arange(len(expected)) if rows is None else rows)
    np.testing.assert_allclose(values["auc"], expected, rtol=1e-13, atol=0)


# ----------------------------------------------------------------------------
# Standard input and FIFOs


def test_standard_input_piped(stream):
    y, s = stream
    done = subprocess.run(command("-", "--window", 40, "--no-progress"),
                          input=csv_text(y, s), capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    assert_auc_column(done.stdout, window_aucs(y, s, 40))
    assert done.stderr.startswith(f"hmeasure-stream: {len(y)} rows ({int(y.sum())} of class 1)")


def test_standard_input_rows_come_out_while_the_stream_goes_on(stream):
    y, s = stream
    process = start("-", "--window", 30, "--no-progress", stdin=subprocess.PIPE)
    reader = LineReader(process.stdout)
    process.stdin.write(("label,score\n" + rows_of(y[:100], s[:100])).encode())
    process.stdin.flush()
    # The first 100 rows are answered while standard input is still open.
    reader.lines(101, process)
    process.stdin.write(rows_of(y, s, 100).encode())
    process.stdin.close()
    code, out, err = reader.finish(process)
    assert code == 0, err
    assert_auc_column(out, window_aucs(y, s, 30))


def test_a_fifo_is_read_as_rows_arrive(tmp_path, stream):
    y, s = stream
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    process = start(fifo, "--window", 25, "--no-progress")
    reader = LineReader(process.stdout)
    answered = []

    def writer():
        # Opening blocks until the monitor opens its end.
        with open(fifo, "w") as handle:
            handle.write("label,score\n")
            for begin in range(0, len(y), 150):
                handle.write(rows_of(y[:begin + 150], s[:begin + 150], begin))
                handle.flush()
                # The next batch is written only once this one is answered: a reader
                # that waited for the end of the stream would never answer.
                answered.append(reader.lines(2 + begin + min(150, len(y) - begin) - 1, process))

    thread = threading.Thread(target=writer)
    thread.start()
    thread.join(TIMEOUT)
    assert not thread.is_alive()
    assert len(answered) == 4
    code, out, err = reader.finish(process)
    assert code == 0, err
    assert_auc_column(out, window_aucs(y, s, 25))


@pytest.mark.parametrize("chunk_size", [1, 7, 1000])
def test_chunked_reading_equals_the_whole_file(tmp_path, capsys, stream, chunk_size):
    y, s = stream
    path = tmp_path / "rows.csv"
    path.write_text(csv_text(y, s))
    whole = run_cli([path, "--window", 50, "--no-progress"], capsys)
    chunked = run_cli([path, "--window", 50, "--no-progress", "--chunk-size", chunk_size],
                      capsys)
    assert whole[0] == chunked[0] == 0
    assert chunked[1] == whole[1]
    assert_auc_column(chunked[1], window_aucs(y, s, 50))


# ----------------------------------------------------------------------------
# A live input's --out, and a file that grows (tail -F)


def test_a_partial_out_file_is_not_overwritten(tmp_path):
    out = tmp_path / "m.csv"
    (tmp_path / "m.csv.partial").write_text(PRECIOUS)
    done = subprocess.run(command("-", "--out", out), input=b"label,score\n1,0.5\n0,0.2\n",
                          capture_output=True, timeout=TIMEOUT, check=False)
    assert done.returncode == 2
    assert done.stderr.decode() == (
        f"hmeasure-stream: error: --out {out}: {out}.partial exists (another run writing "
        "there, or one that was killed): remove it\n")
    assert (tmp_path / "m.csv.partial").read_text() == PRECIOUS and not out.exists()


ROTATOR = textwrap.dedent("""
    import json, os, sys, time
    path, flag = sys.argv[1], sys.argv[2]
    actions = json.load(sys.stdin)
    # Only once the monitor has read the first file (or the test gave up on it).
    deadline = time.monotonic() + 120
    while not os.path.exists(flag) and time.monotonic() < deadline:
        time.sleep(0.02)
    for action, argument in actions:
        if action == "append":
            with open(path, "a") as handle:
                handle.write(argument)
        elif action == "rename":  # logrotate's default, Python's rotating log handlers
            os.rename(path, argument)
        elif action == "truncate":  # logrotate's copytruncate
            os.truncate(path, 0)
        time.sleep(0.4)
""")


def start_rotator(path, actions, process, out, rows):
    """Run ``actions`` on ``path`` once ``process`` has answered ``rows`` rows in OUT.partial."""
    flag = path.parent / "go"
    rotator = subprocess.Popen([sys.executable, "-c", ROTATOR, str(path), str(flag)],
                               stdin=subprocess.PIPE, text=True)
    rotator.stdin.write(json.dumps(actions))
    rotator.stdin.close()
    partial = out.parent / (out.name + ".partial")
    deadline = time.monotonic() + TIMEOUT
    while not (partial.exists() and partial.read_text().count("\n") >= 1 + rows):
        assert time.monotonic() < deadline and process.poll() is None, process.communicate()
        time.sleep(0.05)
    flag.touch()
    return rotator


def follow_rotated(path, out, actions, rows, *options):
    """Run ``tail -F path | hmeasure-stream -`` while ``actions`` rotate the file (once the
    monitor has answered ``rows`` rows); (exit code, standard output, standard error).

    tail ends once the actions are done, which ends the monitor's input."""
    tail = subprocess.Popen(["tail", "-s", "0.05", "-n", "+1", "-F", str(path)],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    process = start("-", *options, "--out", out, "--no-progress", stdin=tail.stdout)
    tail.stdout.close()
    rotator = start_rotator(path, actions, process, out, rows)
    assert rotator.wait(TIMEOUT) == 0
    time.sleep(0.5)  # for tail to pass on the last rows
    tail.terminate()
    tail.wait(TIMEOUT)
    stdout, err = process.communicate(timeout=TIMEOUT)
    return process.returncode, stdout, err


def test_tail_F_goes_on_through_rotations(tmp_path, stream):
    # Renamed away and created anew (with and without a header row), then truncated in
    # place: tail -F passes every row on once, in order; a repeated header row is skipped.
    y, s = stream
    path, out = tmp_path / "live.csv", tmp_path / "metrics.csv"
    path.write_text("label,score\n" + rows_of(y[:100], s[:100]))
    text = rows_of(y, s)
    lines = text.splitlines(keepends=True)

    def rows(start, stop):
        return "".join(lines[start:stop])

    half = rows(100, 150)[:37]  # a row cut in the middle
    actions = [
        ["append", half], ["append", rows(100, 150)[37:]],
        ["rename", str(tmp_path / "live.csv.1")],
        ["append", "label,score\n" + rows(150, 220)], ["append", rows(220, 300)],
        ["rename", str(tmp_path / "live.csv.2")],
        ["append", rows(300, 450)],  # no header row: the rows go on
        ["truncate", None],
        ["append", "label,score\n" + rows(450, 600)],
    ]
    code, stdout, err = follow_rotated(path, out, actions, 100, "--window", 60)
    assert (code, err) == (0, b"")
    assert stdout.decode().startswith(f"hmeasure-stream: {len(y)} rows")
    assert_auc_column(out.read_text(), window_aucs(y, s, 60))
    assert (tmp_path / "live.csv.1").read_text() == "label,score\n" + rows(0, 150)
    assert path.read_text() == "label,score\n" + rows(450, 600)


def test_tail_F_a_row_of_a_rotated_file_is_named_by_its_line_on_standard_input(tmp_path,
                                                                               stream):
    y, s = stream
    path, out = tmp_path / "live.csv", tmp_path / "metrics.csv"
    path.write_text("label,score\n" + rows_of(y[:50], s[:50]))
    out.write_text(PRECIOUS)
    actions = [["rename", str(tmp_path / "old.csv")],
               ["append", "label,score\n1,0.5\n# a comment\nspam,0.1\n"]]
    code, stdout, err = follow_rotated(path, out, actions, 50)
    assert (code, stdout) == (2, b"")
    assert err.decode() == (
        "hmeasure-stream: error: <stdin>:55: label 'spam' is not 0/1 (or -1/1, true/false); "
        "for other labels give the label of class 1 with --pos-label\n")
    assert out.read_text() == PRECIOUS and not (tmp_path / "metrics.csv.partial").exists()


def test_tail_F_a_file_rotated_while_empty_waits_for_its_rows(tmp_path, stream):
    # The new file exists but is still empty (or the path is missing between the rename
    # and the creation): tail waits for it.
    y, s = stream
    path, out = tmp_path / "live.csv", tmp_path / "metrics.csv"
    path.write_text("label,score\n" + rows_of(y[:80], s[:80]))
    actions = [["rename", str(tmp_path / "live.csv.1")], ["append", ""],
               ["append", rows_of(y[80:200], s[80:200])]]
    code, stdout, err = follow_rotated(path, out, actions, 80, "--window", 30)
    assert code == 0, err
    assert stdout.decode().startswith("hmeasure-stream: 200 rows")
    assert_auc_column(out.read_text(), window_aucs(y[:200], s[:200], 30))


# ----------------------------------------------------------------------------
# Time windows, decay, copied columns


def irregular_times(rng, n):
    """Seconds since the epoch: bursts, quiet hours, and ties in time."""
    gaps = rng.choice([0, 0, 1, 7, 60, 600, 3600], size=n)
    return 1_700_000_000 + np.cumsum(gaps)


def time_window_aucs(y, s, t, period):
    """Brute-force AUC of the rows with time in (t_end - period, t_end], for each row."""
    return np.array([brute_auc([a for a, u in zip(y[:end + 1], t[:end + 1], strict=True)
                                if u > t[end] - period],
                               [b for b, u in zip(s[:end + 1], t[:end + 1], strict=True)
                                if u > t[end] - period])
                     for end in range(len(y))])


def iso(seconds):
    return datetime.datetime.fromtimestamp(int(seconds), datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


@pytest.mark.parametrize("as_iso", [True, False])
@pytest.mark.parametrize("chunk_size", [5, 65536])
def test_time_window_with_an_id_column(tmp_path, capsys, rng, stream, as_iso, chunk_size):
    y, s = stream
    t = irregular_times(rng, len(y))
    shown = [iso(u) if as_iso else str(u) for u in t]
    ids = [f"req-{k:04d}" for k in range(len(y))]
    notes = [f'"note {k}, ""quoted"""' if k % 50 == 0 else f"n{k}" for k in range(len(y))]
    path = tmp_path / "rows.csv"
    path.write_text("ts,id,label,score,note\n" + "".join(
        f"{shown[k]},{ids[k]},{int(y[k])},{float(s[k])!r},{notes[k]}\n"
        for k in range(len(y))))
    code, out, err = run_cli([path, "--time-col", "ts", "--window", "2h", "--id-col", "id",
                              "--keep-cols", "note", "--chunk-size", chunk_size,
                              "--no-progress"], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "row,ts,id,note,auc"
    body = list(csv.reader(lines[1:]))
    assert [row[1] for row in body] == shown
    assert [row[2] for row in body] == ids
    assert [row[3] for row in body] == [next(csv.reader([note]))[0] for note in notes]
    assert body[0][3] == 'note 0, "quoted"'

    values = np.array([float(row[4]) for row in body])
    np.testing.assert_allclose(values, time_window_aucs(y, s, t, 7200), rtol=1e-13, atol=0)
    assert err.startswith(f"hmeasure-stream: {len(y)} rows ({int(y.sum())} of class 1), "
                          "window of 2h (by ts)")


def weighted_auc(y, s, w):
    """Weighted AUC by counting every pair (ties one half), in float64."""
    y, s, w = map(np.asarray, (y, s, w))
    positive, negative = y == 1, y == 0
    if not positive.any() or not negative.any():
        return np.nan
    sp, wp, sn, wn = s[positive], w[positive], s[negative], w[negative]
    pairs = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    return float(wp @ pairs @ wn / (wp.sum() * wn.sum()))


@pytest.mark.parametrize(("window", "span"), [("all", "every prefix"),
                                              ("40", "window of 40 rows")])
def test_half_life_in_rows_against_weighted_pairs(tmp_path, capsys, stream, window, span):
    y, s = stream
    path = tmp_path / "rows.csv"
    path.write_text(csv_text(y, s))
    code, out, err = run_cli([path, "--window", window, "--half-life", 25, "--chunk-size", 77,
                              "--no-progress"], capsys)
    assert code == 0, err
    expected = []
    for end in range(len(y)):
        begin = 0 if window == "all" else max(0, end + 1 - int(window))
        ages = end - np.arange(begin, end + 1)
        expected.append(weighted_auc(y[begin:end + 1], s[begin:end + 1], 2.0 ** (-ages / 25)))
    got_rows, values = read_table(out)
    np.testing.assert_array_equal(got_rows, np.arange(len(y)))
    np.testing.assert_allclose(values["auc"], expected, rtol=1e-10, atol=0)
    assert f"{span}, half-life 25 rows" in err


def test_half_life_in_time_with_a_window_of_time(tmp_path, capsys, rng, stream):
    y, s = stream
    t = irregular_times(rng, len(y))
    path = tmp_path / "rows.csv"
    path.write_text("label,score,t\n" + rows_of(y, s, extra=[str(u) for u in t]))
    code, out, err = run_cli([path, "--time-col", "t", "--window", "3h", "--half-life", "30min",
                              "--no-progress"], capsys)
    assert code == 0, err
    expected = []
    for end in range(len(y)):
        inside = (t[:end + 1] > t[end] - 3 * 3600)
        weights = 2.0 ** (-(t[end] - t[:end + 1][inside]) / 1800)
        expected.append(weighted_auc(y[:end + 1][inside], s[:end + 1][inside], weights))
    got_rows, values = read_table(out)
    np.testing.assert_array_equal(got_rows, np.arange(len(y)))
    np.testing.assert_allclose(values["auc"], expected, rtol=1e-10, atol=0)


def test_times_going_backwards_name_the_row(tmp_path, capsys):
    path, out = tmp_path / "rows.csv", tmp_path / "m.csv"
    path.write_text("t,label,score\n# a comment\n2026-11-22T10:00:00Z,1,0.5\n"
                    "2026-11-22T10:05:00Z,0,0.2\n2026-11-22T10:01:00Z,1,0.7\n")
    out.write_text(PRECIOUS)
    code, stdout, err = run_cli([path, "--time-col", "t", "--window", "1h", "--out", out],
                                capsys)
    assert (code, stdout) == (2, "")
    assert err == (f"hmeasure-stream: error: {path}:5: time '2026-11-22T10:01:00Z' is before "
                   f"the time of the row before it ('2026-11-22T10:05:00Z' at {path}:4): "
                   "times must not go backwards\n")
    assert out.read_text() == PRECIOUS


def test_times_going_backwards_across_chunks(tmp_path, capsys):
    path = tmp_path / "rows.csv"
    path.write_text("t,label,score\n100,1,0.5\n200,0,0.2\n150,1,0.7\n")
    code, _, err = run_cli([path, "--time-col", "t", "--window", "1h", "--chunk-size", 2],
                           capsys)
    assert code == 2
    assert err == (f"hmeasure-stream: error: {path}:4: time '150' is before the time of the "
                   f"row before it ('200' at {path}:3): times must not go backwards\n")


@pytest.mark.parametrize(("args", "message"), [
    (["--window", "24h"], "--window 24h is a duration: give the column of the rows' times "
                          "with --time-col"),
    (["--half-life", "1h"], "--half-life 1h is a duration: give the column of the rows' times "
                            "with --time-col"),
    (["--half-life", "10", "--metrics", "h", "--severity-ratio", "prior"],
     "H with --priors or --severity-ratio prior over a window of time or with --half-life "
     "needs --relative-error"),
    (["--keep-cols", "auc"], "the copied column 'auc' would have the name of an output column "
                             "(row or a metric)"),
])
def test_option_errors(tmp_path, capsys, args, message):
    path = tmp_path / "rows.csv"
    path.write_text("label,score,auc\n1,0.5,3\n")
    code, out, err = run_cli([path, *args], capsys)
    assert (code, out, err) == (2, "", f"hmeasure-stream: error: {message}\n")


def test_a_bad_time_is_named(tmp_path, capsys):
    path = tmp_path / "rows.csv"
    path.write_text("t,label,score\n2026-11-22T10:00:00Z,1,0.5\nyesterday,0,0.2\n")
    code, _, err = run_cli([path, "--time-col", "t", "--window", "1h"], capsys)
    assert code == 2
    assert err == (f"hmeasure-stream: error: {path}:3: time 'yesterday' (--time-col t) is not "
                   "an ISO 8601 time\n")


# ----------------------------------------------------------------------------
# auch and the progress bar


def brute_auch(y, s):
    """Area under the upper ROC hull, from its vertices by the O(n^3) definition."""
    if len(set(y)) < 2:
        return float("nan")
    vertices = brute_upper_hull(roc_points_exact(y, s))
    area = sum((b[0] - a[0]) * (a[1] + b[1]) / 2
               for a, b in itertools.pairwise(vertices))
    return float(Fraction(area))


def test_auch_among_the_metrics(tmp_path, capsys, rng):
    y = rng.integers(0, 2, 60)
    s = np.round(rng.normal(size=60) + y, 1)
    path = tmp_path / "rows.csv"
    path.write_text(csv_text(y, s))
    code, out, err = run_cli([path, "--window", 12, "--metrics", "auc,auch", "--chunk-size", 9],
                             capsys)
    assert code == 0, err
    _, values = read_table(out)
    expected = [brute_auch(list(y[max(0, end - 11):end + 1]), list(s[max(0, end - 11):end + 1]))
                for end in range(60)]
    np.testing.assert_allclose(values["auch"], expected, rtol=1e-13, atol=0)
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, 12), rtol=1e-13, atol=0)


def test_no_progress_bar_when_stderr_is_a_pipe(tmp_path, stream):
    y, s = stream
    path = tmp_path / "rows.csv"
    path.write_text(csv_text(y, s))
    done = subprocess.run(command(path, "--window", 10), capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)
    assert done.returncode == 0
    assert done.stderr == (f"hmeasure-stream: {len(y)} rows ({int(y.sum())} of class 1), "
                           f"window of 10 rows; last: AUC {window_aucs(y, s, 10)[-1]:.6f}\n")


def test_the_progress_bar_counts_rows_on_a_terminal(tmp_path, rng):
    y = rng.integers(0, 2, 5000)
    s = rng.normal(size=5000)
    path = tmp_path / "rows.csv"
    path.write_text(csv_text(y, s))
    controller, terminal = pty.openpty()
    # A terminal of 100 columns (tqdm draws nothing on one of width 0).
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    try:
        process = subprocess.Popen(command("-", "--window", 10, "--out", tmp_path / "m.csv"),
                                   stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                   stderr=terminal, env={**os.environ, "TQDM_MININTERVAL": "0"})
        os.close(terminal)
        process.stdin.write(csv_text(y, s).encode())
        process.stdin.close()
        shown = b""
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    part = os.read(controller, 1 << 16)
                except OSError:  # the terminal closed with the process
                    break
                if not part:
                    break
                shown += part
            elif process.poll() is not None:
                break
        assert process.wait(TIMEOUT) == 0
    finally:
        os.close(controller)
    # The bar of a stream counts rows.
    assert re.search(rb"hmeasure-stream: \d+ rows", shown), shown


def test_the_progress_bar_of_a_file_counts_bytes_and_rows(tmp_path, rng):
    y = rng.integers(0, 2, 200_000)
    path = tmp_path / "rows.csv"
    path.write_text(csv_text(y, rng.normal(size=y.shape[0])))
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))
    try:
        # Every update drawn (tqdm's mininterval 0, from its environment): a run faster
        # than tqdm's 0.1 s between redraws still shows the bar's counts.
        process = subprocess.Popen(command(path, "--window", 10, "--out", tmp_path / "m.csv"),
                                   stdout=subprocess.DEVNULL, stderr=terminal,
                                   env={**os.environ, "TQDM_MININTERVAL": "0"})
        os.close(terminal)
        shown = b""
        while True:
            ready, _, _ = select.select([controller], [], [], 0.5)
            if ready:
                try:
                    part = os.read(controller, 1 << 16)
                except OSError:
                    break
                if not part:
                    break
                shown += part
            elif process.poll() is not None:
                break
        assert process.wait(TIMEOUT) == 0
    finally:
        os.close(controller)
    # Against the file's size in bytes, with the rows read beside it.
    total = f"{path.stat().st_size / 2**20:.2f}M".encode()
    assert re.search(rb"\| *[\d.]+[kM]?/" + total + rb" \[[^]]*, [1-9]\d* rows\]", shown), shown


def test_npz_columns_copied_and_times_as_datetime64(tmp_path, capsys, rng, stream):
    y, s = stream
    t = irregular_times(rng, len(y))
    path = tmp_path / "rows.npz"
    np.savez(path, label=y, score=s, ts=t.astype("datetime64[s]"), rid=np.arange(len(y)) * 3)
    code, out, err = run_cli([path, "--time-col", "ts", "--window", "90min", "--id-col", "rid",
                              "--chunk-size", 64, "--no-progress"], capsys)
    assert code == 0, err
    body = [line.split(",") for line in out.splitlines()]
    assert body[0] == ["row", "ts", "rid", "auc"]
    assert [row[1] for row in body[1:]] == [str(u) for u in t.astype("datetime64[s]")]
    assert [int(row[2]) for row in body[1:]] == list(range(0, 3 * len(y), 3))
    np.testing.assert_allclose([float(row[3]) for row in body[1:]],
                               time_window_aucs(y, s, t, 5400), rtol=1e-13, atol=0)


def test_npz_on_standard_input_is_refused(tmp_path):
    path = tmp_path / "rows.npz"
    np.savez(path, label=np.array([0, 1]), score=np.array([0.1, 0.2]))
    with open(path, "rb") as handle:
        done = subprocess.run(command("-"), stdin=handle, capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("hmeasure-stream: error: <stdin>: npz data can only be read from a "
                           "file given by its path (it is read by seeking)\n")


@pytest.mark.parametrize(("window", "chunk_size"), [("40", "7"), ("40", "1000"), ("all", "13")])
def test_min_periods_with_a_row_window(tmp_path, capsys, stream, window, chunk_size):
    y, s = stream
    path = tmp_path / "rows.csv"
    path.write_text("label,score\n" + rows_of(y, s))
    code, out, err = run_cli([path, "--window", window, "--min-periods", "25", "--chunk-size",
                              chunk_size, "--metrics", "auc,h", "--no-progress"], capsys)
    assert code == 0, err
    rows, values = read_table(out)
    expected = window_aucs(y, s, None if window == "all" else int(window))
    expected[:24] = np.nan  # fewer than 25 rows in the window (the prefix) so far
    np.testing.assert_array_equal(rows, np.arange(len(y)))
    np.testing.assert_array_equal(values["auc"], expected)
    assert np.all(np.isnan(values["h"][:24])) and not np.any(np.isnan(values["h"][24:]))


def test_min_periods_with_a_time_window(tmp_path, capsys, rng, stream):
    y, s = stream
    t = irregular_times(rng, len(y))
    path = tmp_path / "rows.csv"
    path.write_text("label,score,t\n" + rows_of(y, s, extra=[str(u) for u in t]))
    code, out, err = run_cli([path, "--time-col", "t", "--window", "1h", "--min-periods", "20",
                              "--no-progress"], capsys)
    assert code == 0, err
    expected = time_window_aucs(y, s, t, 3600)
    held = np.array([np.sum(t[:end + 1] > t[end] - 3600) for end in range(len(y))])
    assert 0 < np.sum(held < 20) < len(y)  # both kinds of rows occur
    expected[held < 20] = np.nan
    _, values = read_table(out)
    np.testing.assert_array_equal(values["auc"], expected)


def test_min_periods_longer_than_the_window_is_refused(tmp_path, capsys, stream):
    y, s = stream
    path, out = tmp_path / "rows.csv", tmp_path / "m.csv"
    path.write_text("label,score\n" + rows_of(y, s))
    out.write_text(PRECIOUS)
    code, stdout, err = run_cli([path, "--window", "30", "--min-periods", "31", "--out", out],
                                capsys)
    assert (code, stdout) == (2, "")
    assert err == ("hmeasure-stream: error: min_periods (31) must not exceed the window (30 "
                   "points): every value would be nan\n")
    assert out.read_text() == PRECIOUS
