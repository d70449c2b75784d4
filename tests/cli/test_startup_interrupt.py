"""Ctrl-C while the command line starts: one line and exit code 130 once its code runs.

Before the program's first line runs, the interpreter itself is starting (its
``site`` module, the ``.pth`` files of the environment, ``-m``'s search for
the package), and a Ctrl-C there is answered by Python: the process ends by
the signal, or with ``Fatal Python error: init_import_site`` (or another
``init_`` step, or a ``KeyboardInterrupt`` traceback outside the package),
exit code 1.  The
documentation says so.  From the package's first line on, the outcome is
always one line and 130.

The interrupts below are sent at several delays after the start; each outcome
must be one of those allowed, whatever the machine's speed.  Where the test
must know the program's code runs, it waits for a sign of it (numpy mapped in
the process, the input FIFO opened), not for a time.
"""

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import open_writer

import hmeasure_stream

PACKAGE = Path(hmeasure_stream.__file__).resolve().parent
DOCS = Path(__file__).resolve().parents[2] / "docs" / "command_line.rst"
OURS = {"hmeasure-stream: interrupted\n",
        "hmeasure-stream: interrupted before any row was read\n"}
INTERPRETER = "Fatal Python error: init_import_site"
SCRIPT = Path(sys.executable).parent / "hmeasure-stream"
COMMANDS = [pytest.param([sys.executable, "-m", "hmeasure_stream"], id="python -m"),
            pytest.param([str(SCRIPT)], id="script",
                         marks=pytest.mark.skipif(not SCRIPT.exists(),
                                                  reason="no hmeasure-stream script"))]


def _line_of(path, text):
    return next(number for number, line in enumerate(path.read_text().splitlines(), 1)
                if text in line)


# The package's lines that run before its handler of SIGINT is installed.
BEFORE_OURS = {
    PACKAGE / "__init__.py": _line_of(PACKAGE / "__init__.py",
                                      "from hmeasure_stream import _startup"),
    PACKAGE / "_startup.py": _line_of(PACKAGE / "_startup.py",
                                      "signal.signal(signal.SIGINT, _interrupted)"),
}


def before_our_code(err):
    """Whether a KeyboardInterrupt traceback arose before the package's handler was
    installed: none of its frames in the package, but on the lines that install it."""
    if not err.startswith("Traceback") or not err.endswith("KeyboardInterrupt\n"):
        return False
    for path, line in re.findall(r'File "([^"]+)", line (\d+)', err):
        path = Path(path).resolve()
        if path.is_relative_to(PACKAGE):
            if path not in BEFORE_OURS:
                return False
            limit = BEFORE_OURS[path]
            if int(line) > limit or (path.name == "__init__.py" and int(line) != limit):
                return False
    return True


def outcome(returncode, err):
    """The kind of an interrupted start's outcome, or None if it is not allowed."""
    if returncode == 130 and err in OURS:
        return "one line, 130"
    if returncode == -signal.SIGINT and err == "":
        return "ended by the signal"  # before Python's own handler exists
    if (returncode == 1 and re.match(r"Fatal Python error: init_\w+: ", err)
            and err.endswith("KeyboardInterrupt\n")):
        return "interpreter's start"
    # (Python ends by the signal itself after an unhandled KeyboardInterrupt.)
    if returncode in (1, -signal.SIGINT) and before_our_code(err):
        return "before the package"
    return None


def interrupt(command, wait, source="-", env=None):
    """Start the monitor on ``source`` (a standard input that never ends), wait
    (``wait(process)``), send SIGINT: (exit code, standard error)."""
    process = subprocess.Popen([*command, str(source), "--no-progress"], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, **(env or {})})
    try:
        wait(process)
        process.send_signal(signal.SIGINT)
        _, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return process.returncode, err


def test_the_docs_name_the_interpreters_answer():
    text = " ".join(DOCS.read_text().split())
    assert INTERPRETER in text and "another ``init_`` step" in text
    assert "before the program's first line runs" in text


@pytest.mark.parametrize("compiling", [False, True], ids=["byte-code cached", "compiling"])
@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_after_any_short_delay_has_an_allowed_outcome(tmp_path, command, compiling):
    # Which outcome a delay gives depends on the machine's speed; that it is one of those
    # allowed does not.  The outcomes sure to be 130 are those of the tests below, which
    # wait for a sign that the package runs.  Without byte-code caches (a fresh or
    # read-only install) every module is compiled as it imports: a longer start.
    env = ({"PYTHONPYCACHEPREFIX": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
           if compiling else {})
    delays = [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.7, 1.0]
    if compiling:
        delays += [1.25, 1.5, 2.0, 2.5, 3.0]
    for delay in delays:
        code, err = interrupt(command, lambda process, delay=delay: time.sleep(delay), env=env)
        assert outcome(code, err) is not None, (delay, code, err)


def _numpy_mapped(process):
    """Wait until numpy's compiled core is mapped in the process: the package, which
    imports it, has started (its first line installs the handler)."""
    maps = Path(f"/proc/{process.pid}/maps")
    deadline = time.monotonic() + 600
    while "_multiarray_umath" not in maps.read_text():
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "numpy never imported"
        time.sleep(0.001)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs /proc")
@pytest.mark.parametrize("command", COMMANDS)
def test_ctrl_c_while_the_package_imports_is_one_line_and_130(command):
    for _ in range(3):
        code, err = interrupt(command, _numpy_mapped)
        assert (code, err in OURS) == (130, True), err


@pytest.mark.parametrize("delay", [0.0, 0.05, 0.3, 1.0])
def test_ctrl_c_once_the_monitor_waits_for_rows_is_one_line_and_130(tmp_path, delay):
    fifo = tmp_path / "rows"
    os.mkfifo(fifo)
    writers = []

    def opened(process):
        writers.append(open_writer(fifo, process))
        time.sleep(delay)

    try:
        code, err = interrupt([sys.executable, "-m", "hmeasure_stream"], opened, fifo)
    finally:
        for writer in writers:
            os.close(writer)
    assert (code, err) == (130, "hmeasure-stream: interrupted before any row was read\n")
