#!/usr/bin/env bash
# Set up .venv and run the main job: the monitor on the embedded default stream.
# Arguments are passed to `hmeasure-stream`.  The set-up installs the command
# line's extra (matplotlib for --plot, pyarrow for parquet and fast CSV, tqdm
# for the progress bar, pandas for times), so that what the docs show works.
source "$(dirname "${BASH_SOURCE[0]}")/_setup.sh" "cli"
exec hmeasure-stream "$@"
