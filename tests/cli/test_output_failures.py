"""A write of output that fails or is cut short ends the run with one line and exit code 2.

Standard output on a full device (``/dev/full``), standard output, ``--out`` and
``--plot`` cut by the file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored, as ``ulimit -f``
leaves a shell's children), with Python's buffered and unbuffered standard streams
(``PYTHONUNBUFFERED=1``, common in containers), small outputs and large ones.  A failed
run never costs a file: OUT and the plot hold their bytes, no temporary is left.  A
reader of standard output that leaves (``| head``) still ends the run quietly.
"""

import errno
import io
import os
import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import PRECIOUS, csv_text, leftovers, read_table, run_cli, window_aucs

import hmeasure_stream.cli

SMALL, LARGE = 50, 20000
WINDOW = 40
# The monitor with a file-size limit: the modules it imports (and the caches they write)
# come first, then the limit, then the command line as the script runs it.
LIMITED = """
import resource, signal, sys
import matplotlib.pyplot
from hmeasure_stream.cli import main
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
sys.exit(main(sys.argv[2:]))
"""
BUFFERING = [pytest.param({}, id="buffered"), pytest.param({"PYTHONUNBUFFERED": "1"},
                                                            id="unbuffered")]
SIZES = [pytest.param(SMALL, id="small"), pytest.param(LARGE, id="large")]
ENOSPC, EFBIG = os.strerror(errno.ENOSPC), os.strerror(errno.EFBIG)


@pytest.fixture(scope="module")
def streams(tmp_path_factory):
    rng = np.random.default_rng(7)
    directory = tmp_path_factory.mktemp("inputs")
    found = {}
    for n in (SMALL, LARGE):
        y = rng.integers(0, 2, n)
        s = np.round(rng.normal(size=n) + y, 3)
        path = directory / f"scores_{n}.csv"
        path.write_text(csv_text(y, s))
        found[n] = (path, y, s)
    return found


def environment(extra):
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}
    return {**env, **extra}


def monitor(args, env, stdout, limit=None, stderr=subprocess.PIPE):
    """Run the command line (``python -m hmeasure_stream``, or under a file-size limit):
    (exit code, standard error)."""
    command = ([sys.executable, "-m", "hmeasure_stream"] if limit is None
               else [sys.executable, "-c", LIMITED, str(limit)])
    process = subprocess.run([*command, *map(str, args), "--no-progress"], stdout=stdout,
                             stderr=stderr, env=environment(env), text=True, timeout=600)
    return process.returncode, process.stderr


def expected_table(y, s):
    return np.arange(y.shape[0]), window_aucs(y, s, WINDOW)


@pytest.mark.parametrize("env", BUFFERING)
@pytest.mark.parametrize("n", SIZES)
def test_standard_output_on_a_full_device_is_an_error(streams, env, n):
    path, _, _ = streams[n]
    with open("/dev/full", "w") as full:
        code, err = monitor([path, "--window", WINDOW], env, full)
    assert (code, err) == (2, f"hmeasure-stream: error: cannot write standard output: "
                              f"{ENOSPC}\n")


@pytest.mark.parametrize("env", BUFFERING)
@pytest.mark.parametrize("n", SIZES)
def test_standard_output_cut_by_the_file_size_limit_is_an_error(tmp_path, streams, env, n):
    path, y, s = streams[n]
    limit = 512 if n == SMALL else 65536
    target = tmp_path / "stdout.csv"
    with open(target, "w") as handle:
        code, err = monitor([path, "--window", WINDOW], env, handle, limit=limit)
    assert (code, err) == (2, f"hmeasure-stream: error: cannot write standard output: "
                              f"{EFBIG}\n")
    # What was written is the beginning of the output, up to the limit.
    text = target.read_text()
    assert len(text) == limit
    complete = text[:text.rindex("\n") + 1]
    rows, values = read_table(complete)
    expected_rows, expected_auc = expected_table(y, s)
    np.testing.assert_array_equal(rows, expected_rows[:rows.shape[0]])
    np.testing.assert_allclose(values["auc"], expected_auc[:rows.shape[0]], rtol=1e-14)


@pytest.mark.parametrize("env", BUFFERING)
@pytest.mark.parametrize("n", SIZES)
def test_out_cut_by_the_file_size_limit_costs_no_file(tmp_path, streams, env, n):
    path, _, _ = streams[n]
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    limit = 512 if n == SMALL else 65536
    code, err = monitor([path, "--window", WINDOW, "--out", out], env, subprocess.PIPE,
                        limit=limit)
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]
    assert out.read_text() == PRECIOUS
    assert (code, err) == (2, f"hmeasure-stream: error: cannot write --out {out}: {EFBIG}\n")


@pytest.mark.parametrize("env", BUFFERING)
def test_out_on_a_full_device_is_an_error(streams, env):
    path, _, _ = streams[LARGE]
    code, err = monitor([path, "--window", WINDOW, "--out", "/dev/full"], env,
                        subprocess.PIPE)
    assert (code, err) == (2, f"hmeasure-stream: error: cannot write --out /dev/full: "
                              f"{ENOSPC}\n")


def test_plot_cut_by_the_file_size_limit_costs_no_file(tmp_path, streams):
    path, _, _ = streams[SMALL]
    out, plot = tmp_path / "out.csv", tmp_path / "plot.png"
    out.write_text(PRECIOUS)
    plot.write_text(PRECIOUS)
    # The metrics' CSV (about 1 kB) fits under the limit, the image does not.
    code, err = monitor([path, "--window", WINDOW, "--out", out, "--plot", plot], {},
                        subprocess.PIPE, limit=4096)
    assert (code, err) == (2, f"hmeasure-stream: error: cannot write --plot {plot}: "
                              f"{EFBIG}\n")
    assert out.read_text() == PRECIOUS and plot.read_text() == PRECIOUS
    assert sorted(os.listdir(tmp_path)) == ["out.csv", "plot.png"]


@pytest.mark.parametrize("env", BUFFERING)
def test_alerts_on_a_full_standard_error_are_an_error(tmp_path, streams, env):
    path, _, _ = streams[SMALL]
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    with open("/dev/full", "w") as full:
        code, _ = monitor([path, "--window", WINDOW, "--out", out, "--alert", "auc>0.01"],
                          env, subprocess.PIPE, stderr=full)
    assert code == 2
    assert out.read_text() == PRECIOUS and leftovers(tmp_path) == []


@pytest.mark.parametrize("env", BUFFERING)
def test_a_closed_pipe_still_ends_quietly(streams, env):
    path, _, _ = streams[LARGE]
    process = subprocess.Popen(
        [sys.executable, "-m", "hmeasure_stream", str(path), "--window", "10",
         "--chunk-size", "1000", "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment(env))
    assert process.stdout.readline() == "row,auc\n"
    process.stdout.close()
    err = process.stderr.read()
    process.stderr.close()
    process.wait(timeout=600)
    assert (process.returncode, err) == (141, "")


class _Refusing:
    """os.open refusing to create files in one directory, as a read-only one does (a root
    user may write in any directory its permissions close)."""

    def __init__(self, directory, error):
        self.directory, self.error, self.open = str(directory), error, os.open

    def __call__(self, path, flags, *args, **kwargs):
        if os.path.dirname(os.path.realpath(path)) == self.directory and flags & os.O_CREAT:
            raise OSError(self.error, os.strerror(self.error), path)
        return self.open(path, flags, *args, **kwargs)


@pytest.mark.parametrize("error", [errno.EACCES, errno.EROFS], ids=["EACCES", "EROFS"])
@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_a_read_only_directory_is_one_line_and_costs_no_file(tmp_path, capsys, monkeypatch,
                                                            streams, error, option):
    path, _, _ = streams[SMALL]
    closed, other = tmp_path / "closed", tmp_path / "other"
    closed.mkdir()
    other.mkdir()
    names = {"--out": "out.csv", "--plot": "plot.png"}
    targets = {flag: (closed if flag == option else other) / name
               for flag, name in names.items()}
    for target in targets.values():
        target.write_text(PRECIOUS)
    monkeypatch.setattr(hmeasure_stream.cli.os, "open", _Refusing(closed.resolve(), error))
    code, written, err = run_cli([path, "--window", WINDOW, "--out", targets["--out"],
                                  "--plot", targets["--plot"], "--no-progress"], capsys)
    assert (code, written) == (2, "")
    assert err == (f"hmeasure-stream: error: {option} {targets[option]}: cannot write in "
                   f"{closed.resolve()}: {os.strerror(error)}\n")
    for target in targets.values():
        assert target.read_text() == PRECIOUS
    assert os.listdir(closed) == [targets[option].name]
    assert os.listdir(other) == [targets["--plot" if option == "--out" else "--out"].name]


def test_standard_output_written_in_whole_in_process(streams, capsys):
    # A text stream without a file descriptor (as tests and embedding programs pass) gets
    # the same text.
    path, y, s = streams[SMALL]
    buffer = io.StringIO()
    assert hmeasure_stream.cli.main([str(path), "--window", str(WINDOW), "--no-progress"],
                                    stdout=buffer) == 0
    rows, values = read_table(buffer.getvalue())
    expected_rows, expected_auc = expected_table(y, s)
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_allclose(values["auc"], expected_auc, rtol=1e-14)
    assert capsys.readouterr().err.startswith(f"hmeasure-stream: {SMALL} rows")


@pytest.mark.parametrize("env", BUFFERING)
@pytest.mark.parametrize("args", [["--help"], ["--version"], []], ids=["help", "version",
                                                                     "demo"])
def test_help_version_and_the_demo_on_a_full_device_are_an_error(env, args):
    # (argparse ignores a failed write of --help or --version: exit code 0, text lost.)
    with open("/dev/full", "w") as full:
        process = subprocess.run([sys.executable, "-m", "hmeasure_stream", *args],
                                 stdout=full, stderr=subprocess.PIPE, text=True,
                                 env=environment(env), timeout=600)
    assert (process.returncode, process.stderr) == (
        2, f"hmeasure-stream: error: cannot write standard output: {ENOSPC}\n")


def test_summary_on_a_full_standard_output_is_an_error_that_touches_no_file(tmp_path,
                                                                            streams):
    # With --out the closing summary goes to standard output, written before --out and
    # --plot are renamed over their paths: a lost summary leaves both as they were.
    path, _, _ = streams[SMALL]
    out, plot = tmp_path / "out.csv", tmp_path / "plot.png"
    out.write_text(PRECIOUS)
    plot.write_text(PRECIOUS)
    with open("/dev/full", "w") as full:
        code, err = monitor([path, "--window", WINDOW, "--out", out, "--plot", plot], {},
                            full)
    assert (code, err) == (2, f"hmeasure-stream: error: cannot write standard output: "
                              f"{ENOSPC}\n")
    assert out.read_text() == PRECIOUS and plot.read_text() == PRECIOUS
    assert leftovers(tmp_path) == []


def test_summary_to_a_closed_pipe_still_completes_out(tmp_path, streams):
    # The reader of standard output left: a quiet end (141), and --out holds every row.
    path, y, s = streams[SMALL]
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    reading, writing = os.pipe()
    os.close(reading)
    try:
        code, err = monitor([path, "--window", WINDOW, "--out", out], {}, writing)
    finally:
        os.close(writing)
    assert (code, err) == (141, "")
    rows, values = read_table(out.read_text())
    expected_rows, expected_auc = expected_table(y, s)
    np.testing.assert_array_equal(rows, expected_rows)
    np.testing.assert_allclose(values["auc"], expected_auc, rtol=1e-14)
    assert leftovers(tmp_path) == []
