"""Shared helpers of the command-line tests: writing inputs, running the monitor, checking."""

import errno
import io
import os
import subprocess
import sys
import time

import numpy as np

# The AUC by counting all pairs, as a float (nan without a class), for the tests here.
from reference_impl import brute_auc_value as brute_auc

from hmeasure_stream.cli import main

PRECIOUS = "precious: a file a failed run must never touch\n"


def written_rows(n, every):
    """The rows ``--every`` writes of a stream of ``n`` rows: every ``every``-th, and the
    last row (numbered from 0)."""
    rows = list(range(every - 1, n, every))
    if n and (not rows or rows[-1] != n - 1):
        rows.append(n - 1)
    return np.array(rows, dtype=np.int64)


def csv_text(y, s, header="label,score", delimiter=","):
    lines = [header.replace(",", delimiter)]
    lines += [f"{int(a)}{delimiter}{float(b)!r}" for a, b in zip(y, s, strict=True)]
    return "\n".join(lines) + "\n"


def probability_stream(directory, n, seed):
    """A CSV of n scores that are calibrated probabilities (3 decimals) and labels drawn
    from them: (path, labels, probabilities)."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.random(n), 3)
    y = (rng.random(n) < p).astype(int)
    path = directory / "probabilities.csv"
    path.write_text(csv_text(y, p))
    return path, y, p


def run_cli(args, capsys):
    """Run ``main`` in this process: (exit code, standard output, standard error)."""
    buffer = io.StringIO()
    code = main([str(arg) for arg in args], stdout=buffer)
    captured = capsys.readouterr()
    return code, buffer.getvalue() + captured.out, captured.err


def refused(args, capsys, message):
    """Run ``main`` on ``args`` and check a user error: exit 2, nothing on standard
    output, one line on standard error holding ``message``."""
    code, out, err = run_cli(args, capsys)
    assert (code, out) == (2, "")
    assert err.startswith("hmeasure-stream: error: ") and message in err, err
    assert err.count("\n") == 1


def read_table(text):
    """The monitor's CSV output as (rows, {metric: values})."""
    lines = text.strip().splitlines()
    names = lines[0].split(",")
    body = [line.split(",") for line in lines[1:]]
    rows = np.array([int(fields[0]) for fields in body], dtype=np.int64)
    return rows, {name: np.array([float(fields[k + 1]) for fields in body])
                  for k, name in enumerate(names[1:])}


def window_aucs(y, s, window):
    """Brute-force AUC of the window ending at every row (window None: every prefix)."""
    y, s = list(y), list(s)
    return np.array([brute_auc(y[max(0, end + 1 - (window or end + 1)):end + 1],
                               s[max(0, end + 1 - (window or end + 1)):end + 1])
                     for end in range(len(y))])


def leftovers(directory):
    """Temporary files a run left behind in ``directory``."""
    return sorted(name for name in os.listdir(directory) if name.endswith(".tmp"))


def assert_every_third_row_kept(process, stdout, err, status, event, out, y, s, window):
    """After a stop (``event``, exit ``status``) of a run with ``--every 3`` that had read
    every row of (y, s) from a live input: the one line on stderr, ``out`` holding every
    third row's values, and no temporary or partial file left beside it."""
    n = y.shape[0]
    assert process.returncode == status and stdout == ""
    assert err == (f"hmeasure-stream: {event} after {n} rows; {out} holds the output for "
                   f"rows 0..{n - 1}\n")
    got_rows, values = read_table(out.read_text())
    np.testing.assert_array_equal(got_rows, np.arange(2, n, 3))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, window)[2::3], rtol=1e-14)
    assert leftovers(out.parent) == []
    assert not out.with_name(out.name + ".partial").exists()


def start(args, **options):
    """The monitor in a subprocess (``python -m hmeasure_stream``), its pipes as text."""
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, **options}
    return subprocess.Popen(
        [sys.executable, "-m", "hmeasure_stream", *map(str, args), "--no-progress"],
        text=True, **pipes,
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
    """Wait until a file matching ``path_pattern`` in ``directory`` holds ``count`` lines."""
    deadline = time.monotonic() + timeout
    while True:
        for path in directory.glob(path_pattern):
            if path.read_text().count("\n") >= count:
                return
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the monitor never wrote its output"
        time.sleep(0.02)
