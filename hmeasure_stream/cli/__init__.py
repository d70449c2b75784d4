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

import importlib
import sys

from hmeasure_stream import __version__
from hmeasure_stream._startup import INTERRUPTED
from hmeasure_stream._startup import release as _release_startup_sigint
from hmeasure_stream.cli._output import _say, _Stream, _WriteError, quiet_broken_pipe


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
