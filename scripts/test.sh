#!/usr/bin/env bash
# Set up .venv with the test dependencies and run the whole test suite.
# Arguments are passed to pytest (after ours, so that -n 0 runs one process).
# One worker per logical core; the tests of a file share a worker, so each
# file's set-up (a build, a compiled stream, a mypy cache) is made once.  The
# files go to the workers in the order tests/conftest.py gives (the long ones
# first), not in xdist's order (the files with the most tests first).
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh" "test"
exec python -m pytest -n logical --dist loadfile --no-loadscope-reorder "$@"
