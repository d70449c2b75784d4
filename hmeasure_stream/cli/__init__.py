"""The command-line monitor: ``hmeasure-stream`` / ``python -m hmeasure_stream``.

Reads a stream of (label, score) rows from a file in chunks, so a file larger
than memory works, and writes the metrics over a sliding window (or over every
prefix) after each row, or after every K-th row.  Without a file it prints a
summary of the stream embedded in the package (or, given options that shape
the output, monitors that stream).

A user error (bad input, bad options, a write of output that fails or is cut
short: a full disk, the file-size limit) ends the run with a one-line message
on stderr and exit code 2, and never costs a file: the output goes to a
temporary file in the same directory, renamed over ``--out`` only when the run
succeeds, and removed on any failure.
An ``--out`` that is not a regular file (a FIFO, a terminal, ``/dev/null``,
``/dev/stdout``) is written in place and never replaced; a block device is
refused.  Ctrl-C ends with one line, exit code 130, and ``--out`` holding the
output of the rows read so far; SIGTERM (``kill``, ``docker stop``, systemd)
likewise, with exit code 143 (128 + the signal's number).  Ctrl-C while the
program starts (numpy and scipy import) is one line and exit code 130.
Nothing is written before the first chunk of rows is checked.

A live input (``-`` for standard input, or a FIFO; a growing file through
``tail -n +1 -F FILE | hmeasure-stream -``) may never end: its rows are
handed out as soon as they are read, each output row is written and flushed
at once, and ``--out`` is written as ``OUT.partial`` (a visible name, refused
if it exists), renamed to ``OUT`` when the run ends (end of input, Ctrl-C)
and removed on an error.

``--time-col`` gives the rows' times, for ``--window 24h`` and a
``--half-life`` in time; ``--id-col`` and ``--keep-cols`` are copied to the
output rows.

``--alert METRIC<VALUE`` (or ``>``) watches a written metric: a line on stderr
each time the condition becomes true and each time it clears, and with
``--fail-on-alert`` exit code 3 at the end of a run in which one fired.

``--by COLUMN`` gives each segment (each value of the column, as text in a CSV)
a window of its own: each row's metrics are its segment's, the key is written
after ``row`` in a column named COLUMN, and an alert watches each segment apart
and names it.
"""

import contextlib
import importlib
import os
import select
import sys
import time

from hmeasure_stream import __version__
from hmeasure_stream._startup import INTERRUPTED
from hmeasure_stream._startup import release as _release_startup_sigint


def main(argv=None, stdout=None):
    """Entry point; returns the exit code (2 for a user error, with a one-line message).

    ``--version`` alone is answered here, as argparse answers it (the line on
    standard output, then ``SystemExit(0)``), without importing the monitor:
    its options are made from the metric table, which needs numpy.
    """
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv == ["--version"]:
        return _version()
    return importlib.import_module("hmeasure_stream.cli._command").main(argv, stdout)


def _version():
    _release_startup_sigint()
    try:
        _Stream(sys.stdout, "standard output").write(f"hmeasure-stream {__version__}\n")
    except _WriteError as error:
        _say(f"hmeasure-stream: error: {error}")
        return 2
    except KeyboardInterrupt:
        _say(INTERRUPTED)
        return 130
    except BrokenPipeError:
        return quiet_broken_pipe()
    raise SystemExit(0)


def quiet_broken_pipe():
    """The reader of standard output left (``| head``): stop quietly, as other tools do
    (exit code 141, standard output sent to the null device for the interpreter's exit)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 141


# ----------------------------------------------------------------------------
# Output that never costs a file (the rest is the monitor's: _command._Output)


class _WriteError(Exception):
    """A write of output that failed or was cut short (a full disk, the file-size limit):
    ``cannot write WHERE: why``, a user error (exit code 2)."""

    @classmethod
    def of(cls, where, error):
        """The failure of a write to ``where`` that raised ``error`` (an OSError, ...)."""
        return cls(f"cannot write {where}: {getattr(error, 'strerror', None) or error}")


def _write_all(descriptor, data, where):
    """Write all of ``data`` to the file descriptor, or raise :class:`_WriteError` naming
    ``where``: the one check of every write of output.

    A write may be cut short (the file-size limit, a full disk): the rest goes to the
    next write, which then reports the failure.  BrokenPipeError passes: the reader
    left, a quiet end (``main``).
    """
    view = memoryview(data)
    while view:
        try:
            written = os.write(descriptor, view)
        except BlockingIOError:  # a descriptor made non-blocking by the program that gave it
            if os.name == "nt":  # (select waits on sockets only there)
                time.sleep(0.01)
            else:
                select.select([], [descriptor], [])
            continue
        except BrokenPipeError:
            raise
        except OSError as error:
            raise _WriteError.of(where, error) from None
        if written == 0:
            raise _WriteError(f"cannot write {where}: nothing was written")
        view = view[written:]


class _Stream:
    """Standard output or standard error (or a text stream given to :func:`main`), each
    write reaching it in whole or raising :class:`_WriteError`.

    Python's text layer drops the rest of a write cut short when the stream is
    unbuffered (``PYTHONUNBUFFERED=1``), and reports a buffered one's failure
    only when it flushes, at exit: the text goes to the file descriptor by
    :func:`_write_all`, after what the stream holds.  A stream without a
    descriptor (``io.StringIO``) is written as it is; a closed one (None:
    Python found the descriptor closed) takes nothing.
    """

    def __init__(self, stream, name=None):
        self.stream = stream
        if name is None:
            name = "standard output" if stream is sys.stdout else "standard error"
        self.name = name
        try:
            self.descriptor = stream.fileno()
        except (AttributeError, OSError, ValueError):  # (io.UnsupportedOperation: OSError)
            self.descriptor = None

    def write(self, text):
        if self.stream is None:
            return
        try:
            self.stream.flush()
            if self.descriptor is None:
                self.stream.write(text)
                self.stream.flush()
                return
            data = text.encode(getattr(self.stream, "encoding", None) or "utf-8",
                               getattr(self.stream, "errors", None) or "strict")
        except BrokenPipeError:
            raise
        except (OSError, UnicodeEncodeError) as error:
            raise _WriteError.of(self.name, error) from None
        _write_all(self.descriptor, data, self.name)

    def flush(self):
        """Nothing waits: each write is complete."""


def _say(line):
    """A closing line on standard error (an error, an interruption): nothing more can be
    said if it cannot be written."""
    with contextlib.suppress(OSError, _WriteError):
        _Stream(sys.stderr, "standard error").write(line + "\n")


def __getattr__(name):
    """The monitor's names (``Monitor``, ``build_parser``, ...), imported on first use
    (PEP 562)."""
    if name.startswith("__") or name == "_command":  # (the import system's questions)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    try:
        return getattr(importlib.import_module("hmeasure_stream.cli._command"), name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


__all__ = ["AVAILABLE_METRICS", "DELIMITERS", "Monitor", "build_parser", "main", "run"]
