"""The command line's start-up: Ctrl-C while the package imports is one line, exit code 130.

Importing numpy and scipy takes seconds on a cold start, long before
:func:`hmeasure_stream.cli.main` can catch anything, and Python would answer
a Ctrl-C there with a ``KeyboardInterrupt`` traceback.  The package imports
this module first.  When the process is the command line (the
``hmeasure-stream`` script, or ``python -m hmeasure_stream``), SIGINT ends it
with one line and exit code 130 until ``main`` starts and hands SIGINT back
to Python's own handler (:func:`release`); in any other process nothing
changes.  Before the package's first line runs, the interpreter is still
starting, and answers a Ctrl-C itself (``docs/command_line.rst``).
"""

import contextlib
import os
import signal
import sys

#: The line of a Ctrl-C while the command line starts (here, and in ``main``).
INTERRUPTED = "hmeasure-stream: interrupted"
_MODULE = "hmeasure_stream"
_SCRIPTS = ("hmeasure-stream", "hmeasure-stream.exe", "hmeasure-stream-script.py")


def _is_command_line():
    if sys.argv and os.path.basename(sys.argv[0]) in _SCRIPTS:
        return True
    # python [options] -m hmeasure_stream ...: sys.argv[0] is "-m" while the package imports.
    argv = getattr(sys, "orig_argv", [])
    return any(word == "-m" + _MODULE or (word == "-m" and following == _MODULE)
               for word, following in zip(argv, [*argv[1:], ""], strict=True))


def _interrupted(signum, frame):
    # The process ends here: an exception raised by a handler is lost when the code it
    # interrupts swallows it (seen while the import system compiled a module: the
    # program then went on), and nothing is open for output yet.
    with contextlib.suppress(OSError):
        os.write(2, f"{INTERRUPTED}\n".encode())
    os._exit(128 + signum)


def release():
    """Give SIGINT back to Python's handler (KeyboardInterrupt), if this module took it."""
    if signal.getsignal(signal.SIGINT) is _interrupted:
        signal.signal(signal.SIGINT, signal.default_int_handler)


# Only Python's own handler is replaced: not an ignored SIGINT (a background job), nor
# the handler of a program that imports the package.
if _is_command_line() and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
    signal.signal(signal.SIGINT, _interrupted)
