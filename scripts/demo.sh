#!/usr/bin/env bash
# Set up .venv and run the main job: the monitor on the embedded default stream.
# Arguments are passed to `hmeasure-stream`.
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh" ""
exec hmeasure-stream "$@"
