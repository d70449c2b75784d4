"""Command-line entry point: ``hmeasure-stream`` / ``python -m hmeasure_stream``."""

import argparse
import sys

from hmeasure_stream import __version__
from hmeasure_stream._demo import run_demo


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="hmeasure-stream",
        description=(
            "Monitor a classifier's AUC and H-measure over a stream of (label, score) "
            "pairs. Without arguments, runs on the stream embedded in the package."
        ),
    )
    parser.add_argument(
        "--window",
        type=int,
        default=300,
        help="sliding-window length for the demo's windowed metrics (default: 300)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    args = parser.parse_args(argv)
    if args.window < 2:
        parser.exit(2, f"{parser.prog}: error: --window must be at least 2, got {args.window}\n")
    run_demo(window=args.window, out=sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
