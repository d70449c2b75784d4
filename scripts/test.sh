#!/usr/bin/env bash
# Set up .venv with the test dependencies and run the whole test suite.
# Arguments are passed to pytest.
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh" "test"
exec python -m pytest "$@"
