"""The command line's writes to standard output and standard error: each whole or a
:class:`_WriteError` (the files of ``--out`` are the monitor's, ``_command._Output``).

Apart from the monitor, with the standard library alone: ``--version`` writes
its line with them before anything else is imported.
"""

import contextlib
import os
import select
import sys
import time


def quiet_broken_pipe():
    """The reader of standard output left (``| head``): stop quietly, as other tools do
    (exit code 141, standard output sent to the null device for the interpreter's exit)."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 141


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
