"""Files, signals and odd input: special files as --out, SIGTERM, Ctrl-C while starting,
CR line ends, rows with a wrong number of fields, numbers a CSV does not hold.

Signals are sent only once the monitor is known to be where the test wants it:
the output file holds the rows counted, a marker file exists, or the monitor is
blocked writing to a full pipe that the test has not read.  Nothing waits on a
guessed delay.
"""

import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import (
    PRECIOUS,
    assert_every_third_row_kept,
    csv_text,
    leftovers,
    open_writer,
    read_table,
    run_cli,
    start,
    wait_for_lines,
    window_aucs,
)

TIMEOUT = 120
N_ROWS, CHUNK, WINDOW = 1000, 100, 50


@pytest.fixture
def rows(rng):
    y = rng.integers(0, 2, N_ROWS)
    return y, np.round(rng.normal(size=N_ROWS) + y, 2)


def expected_output(capsys, source, *options):
    """The monitor's CSV for ``source`` written to standard output (the summary goes to
    standard error)."""
    code, out, _ = run_cli([source, "--no-progress", *options], capsys)
    assert code == 0
    return out


def device_node(directory):
    """A character device like /dev/null (1, 3) made in ``directory``, or /dev/null itself
    where device nodes cannot be made (not root); either way, one that is never a
    regular file."""
    path = directory / "null"
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        descriptor = os.open(path, os.O_WRONLY)  # (a filesystem mounted nodev refuses)
        os.close(descriptor)
    except OSError:
        path.unlink(missing_ok=True)
        return Path(os.devnull)
    return path


def identity(path):
    status = os.stat(path)
    return status.st_dev, status.st_ino, status.st_mode, status.st_rdev


# ----------------------------------------------------------------------------
# Item 11: --out on a special file is written in place, never replaced


def test_out_on_a_fifo_is_written_to_its_reader(tmp_path, capsys, rows):
    y, s = rows
    source = tmp_path / "s.csv"
    source.write_text(csv_text(y[:200], s[:200]))
    fifo = tmp_path / "metrics"
    os.mkfifo(fifo)
    # The reader's end is open first (not blocking), so the monitor's open does not wait;
    # the output (under 64 KiB) fits in the FIFO's buffer until it is read.
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        code, out, err = run_cli([source, "--window", WINDOW, "--out", fifo, "--no-progress"],
                                 capsys)
        received = b""
        while part := os.read(reader, 1 << 16):
            received += part
    except BlockingIOError:  # the monitor still holds its end open: a bug
        raise AssertionError("the FIFO was not closed by the monitor") from None
    finally:
        os.close(reader)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received.decode() == expected_output(capsys, source, "--window", WINDOW)
    got_rows, values = read_table(received.decode())
    np.testing.assert_array_equal(got_rows, np.arange(200))
    np.testing.assert_allclose(values["auc"], window_aucs(y[:200], s[:200], WINDOW),
                               rtol=1e-14)
    assert out.startswith("hmeasure-stream: 200 rows")  # the summary: stdout is free
    assert leftovers(tmp_path) == [] and not (tmp_path / "metrics.partial").exists()


@pytest.mark.parametrize("live", [False, True], ids=["file", "stdin"])
def test_out_on_a_device_node_is_written_in_place(tmp_path, rows, live):
    y, s = rows
    device = device_node(tmp_path)
    before = identity(device)
    text = csv_text(y, s)
    if live:  # standard input from a pipe: a live input, whose --out is OUT.partial
        process = start(["-", "--out", device], stdin=subprocess.PIPE)
        out, err = process.communicate(text, timeout=TIMEOUT)
    else:
        source = tmp_path / "s.csv"
        source.write_text(text)
        process = start([source, "--out", device])
        out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert identity(device) == before
    assert stat.S_ISCHR(os.stat(device).st_mode)
    assert out.startswith(f"hmeasure-stream: {N_ROWS} rows") and err == ""
    assert leftovers(tmp_path) == [] and not Path(f"{device}.partial").exists()


def test_out_on_dev_stdout_is_standard_output(tmp_path, capsys, rows):
    y, s = rows
    source = tmp_path / "s.csv"
    source.write_text(csv_text(y, s))
    process = start([source, "--window", WINDOW, "--out", "/dev/stdout"])
    out, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert out == expected_output(capsys, source, "--window", WINDOW)
    # The summary goes to stderr, as without --out: standard output holds the CSV alone.
    assert err.startswith(f"hmeasure-stream: {N_ROWS} rows") and err.count("\n") == 1


def test_out_on_dev_stdout_appended_to_a_file_keeps_the_file(tmp_path, capsys, rows):
    y, s = rows
    source = tmp_path / "s.csv"
    source.write_text(csv_text(y, s))
    log = tmp_path / "log.txt"
    log.write_text(PRECIOUS)
    with open(log, "a") as appended:  # the shell's ">> log.txt"
        process = start([source, "--window", WINDOW, "--out", "/dev/stdout"], stdout=appended)
        _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, err
    assert log.read_text() == PRECIOUS + expected_output(capsys, source,
                                                         "--window", WINDOW)
    assert leftovers(tmp_path) == []


def test_out_on_a_block_device_is_refused(tmp_path, capsys):
    source = tmp_path / "s.csv"
    source.write_text("label,score\n1,0.5\n0,0.25\n")
    disk = tmp_path / "disk"
    try:
        os.mknod(disk, stat.S_IFBLK | 0o600, os.makedev(7, 200))  # a loop device's numbers
    except OSError:  # not root: an existing block device (the refusal opens nothing)
        disk = next(path for path in Path("/dev").iterdir()
                    if stat.S_ISBLK(os.lstat(path).st_mode))
    before = identity(disk)
    code, out, err = run_cli([source, "--out", disk], capsys)
    assert (code, out) == (2, "")
    assert err == f"hmeasure-stream: error: --out {disk}: is a block device (a disk): give a file\n"
    assert identity(disk) == before
    assert leftovers(tmp_path) == []


# ----------------------------------------------------------------------------
# Item 12: SIGTERM is handled as Ctrl-C: the rows read so far, one line, 128 + 15


# (SIGTERM on a FIFO, on standard output and before any row: test_interrupts.py.)


def test_sigterm_on_standard_input_leaves_out_holding_the_rows_read(tmp_path, capsys, rows):
    y, s = rows
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    options = ["--window", WINDOW, "--chunk-size", CHUNK, "--every", "3", "--out", out]
    # Standard input from a pipe kept open (as from tail -F): it never ends by itself.
    process = start(["-", *options], stdin=subprocess.PIPE)
    process.stdin.write(csv_text(y, s))
    process.stdin.flush()
    # A live input: the output is in OUT.partial until the run ends.
    wait_for_lines("out.csv.partial", tmp_path, 1 + N_ROWS // 3, process)
    process.send_signal(signal.SIGTERM)
    stdout, err = process.communicate(timeout=TIMEOUT)
    assert_every_third_row_kept(process, stdout, err, 143, "terminated (SIGTERM)", out, y, s,
                                WINDOW)
    # Nothing left behind stops the next run.
    done = subprocess.run([sys.executable, "-m", "hmeasure_stream", "-", *map(str, options)],
                          input=csv_text(y, s), text=True, capture_output=True,
                          timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr


def test_sigterm_while_a_file_is_read_leaves_no_temporary_file(tmp_path):
    # Labels 0, 1, 0, 1, ... with rising scores: over a window of 2 rows the AUC is 1, 0,
    # 1, 0, ..., so --alert 'auc<0.5' writes a line to stderr at every row.  The test reads
    # none of them: once the pipe is full (64 KiB, about 900 lines) the monitor blocks in
    # the middle of the file, holding a hidden temporary output of whole chunks.
    n = 20000
    y, s = np.arange(n) % 2, np.arange(n, dtype=np.float64)
    source, out = tmp_path / "s.csv", tmp_path / "out.csv"
    source.write_text(csv_text(y, s))
    out.write_text(PRECIOUS)
    process = start([source, "--window", 2, "--chunk-size", CHUNK, "--alert", "auc<0.5",
                     "--out", out])
    # It cannot end before its 20000 alert lines (1.4 MB) are read.
    wait_for_lines(".out.csv.*.tmp", tmp_path, 1 + CHUNK, process)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 143
    last = err.splitlines()[-1]
    match = re.fullmatch(rf"hmeasure-stream: terminated \(SIGTERM\) after (\d+) rows; "
                         rf"{re.escape(str(out))} holds the output for rows 0\.\.(\d+)", last)
    assert match, err[-500:]
    read = int(match.group(1))
    assert int(match.group(2)) == read - 1 and read % CHUNK == 0 and CHUNK <= read < n
    assert all(line.startswith("hmeasure-stream: alert") for line in err.splitlines()[:-1])
    got_rows, values = read_table(out.read_text())
    np.testing.assert_array_equal(got_rows, np.arange(read))
    np.testing.assert_array_equal(values["auc"], window_aucs(y[:read], s[:read], 2))
    assert leftovers(tmp_path) == []


# ----------------------------------------------------------------------------
# Item 13: Ctrl-C while the monitor starts


# Loaded by Python at start-up (sitecustomize on PYTHONPATH): the first import of
# GATE_MODULE waits there for the test's Ctrl-C, once GATE_MARKER says it has begun.
GATE = textwrap.dedent("""
    import os, sys, time

    class Gate:
        def find_spec(self, name, path=None, target=None):
            if name != os.environ["GATE_MODULE"]:
                return None
            sys.meta_path.remove(self)
            open(os.environ["GATE_MARKER"], "w").close()
            time.sleep(120)
            return None

    sys.meta_path.insert(0, Gate())
""")


def entry_point(kind):
    if kind == "-m":
        return [sys.executable, "-m", "hmeasure_stream"]
    script = Path(sys.executable).with_name("hmeasure-stream")
    assert script.exists(), "the hmeasure-stream script is installed with the package"
    return [str(script)]


@pytest.mark.parametrize("module", ["numpy", "matplotlib"])
@pytest.mark.parametrize("kind", ["-m", "script"])
def test_ctrl_c_while_starting_is_one_line(tmp_path, kind, module):
    # numpy: while the package imports; matplotlib: while --plot is checked.
    source = tmp_path / "s.csv"
    source.write_text("label,score\n1,0.5\n0,0.25\n")
    (tmp_path / "sitecustomize.py").write_text(GATE)
    marker = tmp_path / "importing"
    environment = {**os.environ, "GATE_MODULE": module, "GATE_MARKER": str(marker),
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path),
                                                               os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(
        [*entry_point(kind), source, "--plot", tmp_path / "p.png", "--out", tmp_path / "o.csv"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    deadline = time.monotonic() + TIMEOUT
    while not marker.exists():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{module} was never imported"
        time.sleep(0.02)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, out, err) == (130, "", "hmeasure-stream: interrupted\n")
    assert sorted(path.name for path in tmp_path.iterdir()
                  if path.name != "__pycache__") == ["importing", "s.csv", "sitecustomize.py"]


# ----------------------------------------------------------------------------
# Item 14: CR line ends


CR_ROWS = "label,score\r1,0.5\r0,0.25\r1,0.75\r0,0.5\r"


@pytest.mark.parametrize("ends", ["\r", "\r\n", "\n", "mixed"])
def test_every_line_end_reads_the_same_rows(tmp_path, capsys, ends):
    lines = ["# exported", "label,score", "1,0.5", "", "0,0.25", "1,0.75", "0,0.5"]
    if ends == "mixed":
        text = "".join(line + end for line, end in zip(lines, ["\r", "\n", "\r\n"] * 3, strict=False))
    else:
        text = ends.join(lines) + ends
    source = tmp_path / "s.csv"
    source.write_bytes(text.encode())
    code, out, err = run_cli([source, "--window", "all", "--no-progress"], capsys)
    assert code == 0, err
    got_rows, values = read_table(out)
    np.testing.assert_array_equal(got_rows, np.arange(4))
    np.testing.assert_array_equal(values["auc"],
                                  window_aucs([1, 0, 1, 0], [0.5, 0.25, 0.75, 0.5], None))


def test_cr_line_ends_in_blocks_split_between_cr_and_lf(tmp_path, capsys, rng):
    # More than one 1 MiB block: a CRLF may be cut between two reads.
    n = 120000
    y, s = rng.integers(0, 2, n), np.round(rng.normal(size=n), 3)
    source = tmp_path / "s.csv"
    source.write_bytes(csv_text(y, s).replace("\n", "\r\n").encode())
    code, out, err = run_cli([source, "--window", 1000, "--every", 997, "--no-progress"],
                             capsys)
    assert code == 0, err
    reference = tmp_path / "lf.csv"
    reference.write_text(csv_text(y, s))
    assert out == expected_output(capsys, reference, "--window", 1000, "--every", 997)


def test_cr_line_ends_on_standard_input():
    done = subprocess.run([sys.executable, "-m", "hmeasure_stream", "-", "--window", "all",
                           "--no-progress"], input=CR_ROWS.encode(), capture_output=True,
                          timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    got_rows, values = read_table(done.stdout.decode())
    np.testing.assert_array_equal(got_rows, np.arange(4))
    np.testing.assert_array_equal(values["auc"],
                                  window_aucs([1, 0, 1, 0], [0.5, 0.25, 0.75, 0.5], None))


def test_a_bad_row_after_cr_line_ends_has_its_line_number(tmp_path, capsys):
    source = tmp_path / "s.csv"
    source.write_bytes(b"# c\rlabel,score\r1,0.5\r\r0,x\r")
    code, out, err = run_cli([source, "--no-progress"], capsys)
    assert (code, out) == (2, "")
    assert err == f"hmeasure-stream: error: {source}:5: score 'x' is not a number\n"


# ----------------------------------------------------------------------------
# Item 15: fields and numbers


def test_a_live_row_cut_without_a_line_end_is_refused(tmp_path):
    fifo, out = tmp_path / "pipe", tmp_path / "out.csv"
    os.mkfifo(fifo)
    out.write_text(PRECIOUS)
    process = start([fifo, "--out", out])
    writer = open_writer(fifo, process)
    os.write(writer, b"label,score\n1,0.5\n0,0.25\n1,0.")
    os.close(writer)  # the writer stops in the middle of a row
    stdout, err = process.communicate(timeout=TIMEOUT)
    assert (process.returncode, stdout) == (2, "")
    assert err == (f"hmeasure-stream: error: {fifo}:4: the input ended in the middle of a row "
                   "('1,0.', without a line end): was its writer stopped while writing? Each "
                   "row of a live input must end with a line end\n")
    assert out.read_text() == PRECIOUS
    assert leftovers(tmp_path) == [] and not (tmp_path / "out.csv.partial").exists()


def test_a_file_may_end_without_a_line_end(tmp_path, capsys):
    source = tmp_path / "s.csv"
    source.write_text("label,score\n1,0.5\n0,0.25")
    code, out, err = run_cli([source, "--no-progress"], capsys)
    assert code == 0, err
    assert out.startswith("row,auc\n0,nan\n1,1.0\n")


def test_a_blank_or_comment_last_line_of_a_live_input_is_no_row(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hmeasure_stream", "-", "--no-progress"],
                          input=b"label,score\n1,0.5\n0,0.25\n# end", capture_output=True,
                          timeout=TIMEOUT, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode() == "row,auc\n0,nan\n1,1.0\n"


FIELDS = "expected {header} columns, found {found}"
DECIMAL_COMMA = ("; a decimal comma (0,75) in a comma-separated file? Quote such values, or "
                 "separate the columns with ';' and pass --decimal-comma")

# (content, options, the message after "hmeasure-stream: error: PATH")
BAD_ROWS = {
    "decimal comma in a comma file": ("label,score\n1,0.5\n1,0,75\n", [],
                                      ":3: " + FIELDS.format(header=2, found=3) + DECIMAL_COMMA),
    "a trailing field": ("label,score\n1,0.5,\n", [],
                         ":2: " + FIELDS.format(header=2, found=3) + DECIMAL_COMMA),
    "more fields, semicolons": ("label;score\n1;0.5\n0;0.25;x\n", [],
                                ":3: " + FIELDS.format(header=2, found=3)),
    "a missing unread field": ("label,score,note\n1,0.5,a\n0,0.25\n", [],
                               ":3: " + FIELDS.format(header=3, found=2)),
    "more fields after CR line ends": ("label,score\r1,0.5\r0,0,25\r", [],
                                       ":3: " + FIELDS.format(header=2, found=3)
                                       + DECIMAL_COMMA),
    "more fields in a later chunk": ("label,score\n" + "1,0.5\n" * 100 + "0,0,5\n",
                                     ["--chunk-size", "7"],
                                     ":102: " + FIELDS.format(header=2, found=3)
                                     + DECIMAL_COMMA),
    "digits grouped with _": ("label,score\n1,0.5\n0,1_000\n", [],
                              ":3: score '1_000' is not a number"),
    "_ after a decimal comma": ("label;score\n1;0,5\n0;1_0,5\n", ["--decimal-comma"],
                                ":3: score '1_0.5' is not a number"),
    "arabic-indic digits": ("label,score\n1,0.5\n0,\u0663\n", [],
                            ":3: score '\u0663' is not a number"),
    "fullwidth digits": ("label,score\n1,0.5\n0,\uff11.5\n", [],
                         ":3: score '\uff11.5' is not a number"),
    "integer beyond 2**53 with a fraction": (
        "label,score\n1,9007199254740993.0\n0,9007199254740992\n", [],
        ":2: score 9007199254740993.0 is an integer beyond 2**53, which float64 cannot hold "
        "exactly"),
    "negative integer beyond 2**53 with a point": (
        "label,score\n1,-9007199254740995.\n0,1\n", [],
        ":2: score -9007199254740995. is an integer beyond 2**53"),
    "integer beyond 2**53 with a decimal comma": (
        "label;score\n1;0,5\n0;9007199254740993,00\n", ["--decimal-comma"],
        ":3: score 9007199254740993.00 is an integer beyond 2**53"),
    "header too long for a CSV field": ("x" * 200000 + "\n1,0.5\n", [],
                                        ":1: the header row: field larger than field limit"),
    "empty time": ("label,score,t\n1,0.5,2026-01-01T00:00:00Z\n0,0.25,\n", ["--time-col", "t",
                                                                            "--window", "1h"],
                   ":3: time '' (--time-col t) is empty"),
    "empty first time": ("label,score,t\n1,0.5,\n0,0.25,2026-01-01T00:00:00Z\n",
                         ["--time-col", "t", "--window", "1h"],
                         ":2: time '' (--time-col t) is empty"),
    "empty epoch time": ("label,score,t\n1,0.5,1700000000\n0,0.25, \n",
                         ["--time-col", "t", "--window", "1h"],
                         ":3: time ' ' (--time-col t) is empty"),
    "NaT time": ("label,score,t\n1,0.5,2026-01-01T00:00:00Z\n0,0.25,NaT\n",
                 ["--time-col", "t", "--window", "1h"],
                 ":3: time 'NaT' (--time-col t) is not an ISO 8601 time"),
}


@pytest.mark.parametrize("case", sorted(BAD_ROWS))
def test_a_bad_row_is_one_line_and_nothing_is_written(tmp_path, capsys, case):
    content, options, message = BAD_ROWS[case]
    source = tmp_path / "s.csv"
    source.write_text(content)
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    for target in ([], ["--out", out]):  # standard output, then a file
        code, stdout, err = run_cli([source, "--no-progress", *options, *target], capsys)
        assert code == 2, err
        # Item 16: not even the CSV header before the first chunk is checked; standard
        # output holds the chunks before the bad one (of 7 rows: rows 0..97 before row 100).
        written = 98 if case == "more fields in a later chunk" and not target else 0
        assert stdout == ("row,auc\n" + "".join(f"{row},nan\n" for row in range(written))
                          if written else ""), err
        expected = f"hmeasure-stream: error: {source}{message}"
        assert err.startswith(expected) and err.count("\n") == 1, err
        if "beyond" in message:
            assert err.endswith("(distinct scores would tie); a stream read in chunks cannot "
                                "rank them: save the columns as .npz (whose integer scores "
                                "are ranked exactly), or rescale the scores\n"), err
        elif "field limit" not in message:
            assert err == expected + "\n"
    assert out.read_text() == PRECIOUS and leftovers(tmp_path) == []


@pytest.mark.parametrize("text, value", [
    ("9007199254740992.0", 2.0**53), ("-9007199254740992", -2.0**53),
    ("9007199254740994.000", 2.0**53 + 2), ("1e16", 1e16), ("9007199254740993.5", 2.0**53 + 2),
    (" 0.5 ", 0.5), ("+.5", 0.5), ("5.", 5.0), ("1E-3", 1e-3),
])
def test_numbers_a_csv_holds_are_read(tmp_path, capsys, text, value):
    # Integers float64 holds exactly; decimals (not integers) rounded, as any CSV decimal.
    source = tmp_path / "s.csv"
    source.write_text(f"label,score\n1,{text}\n0,{value!r}\n0,{float(np.nextafter(value, -np.inf))!r}\n")
    code, out, err = run_cli([source, "--window", "all", "--no-progress"], capsys)
    assert code == 0, err
    _, values = read_table(out)
    # Equal to the second row's score (a tie), above the third's.
    np.testing.assert_array_equal(values["auc"], [np.nan, 0.5, 0.75])


# ----------------------------------------------------------------------------
# Item 16: nothing reaches the output before the first row is checked


def test_a_bad_first_row_on_a_live_input_writes_no_header():
    done = subprocess.run([sys.executable, "-m", "hmeasure_stream", "-", "--no-progress"],
                          input=b"label,score\n1,oops\n", capture_output=True,
                          timeout=TIMEOUT, check=False)
    assert (done.returncode, done.stdout) == (2, b"")
    assert done.stderr == b"hmeasure-stream: error: <stdin>:2: score 'oops' is not a number\n"


def test_the_header_comes_with_the_first_checked_chunk(tmp_path, capsys):
    source = tmp_path / "s.csv"
    source.write_text("label,score\n1,0.5\n0,0.25\n")
    code, out, err = run_cli([source, "--every", 5, "--no-progress"], capsys)
    assert code == 0, err
    assert out == "row,auc\n1,1.0\n"  # --every 5 > 2 rows: the last row alone
