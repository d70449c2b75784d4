"""The command-line monitor: ``hmeasure-stream`` / ``python -m hmeasure_stream``.

Reads a stream of (label, score) rows from a file in chunks, so a file larger
than memory works, and writes the metrics over a sliding window (or over every
prefix) after each row, or after every K-th row.  Without a file it runs on
the stream embedded in the package and prints a summary.

Bad input ends the run with a one-line message on stderr and exit code 2.
"""

import argparse
import csv
import sys
from pathlib import Path

import numpy as np

from hmeasure_stream import SlidingWindow, __version__, h_measure
from hmeasure_stream._validation import check_cost, check_positive, check_priors
from hmeasure_stream.cli._reading import InputError, read_chunks

AVAILABLE_METRICS = ("auc", "h")


# ----------------------------------------------------------------------------
# Monitoring


class Monitor:
    """Metrics over a sliding window of a stream that arrives in chunks.

    A :class:`~hmeasure_stream.SlidingWindow` carries the window across
    chunks and chooses the engines (exact AUC, the maintained hull for H, or
    ApproxH with ``epsilon``).  H with fixed priors or R's "prior" severity
    ratio and no ``epsilon`` cannot be maintained exactly: it is then computed
    from the window's points for each emitted row (O(w log w) per emitted row).
    """

    def __init__(self, window, metrics, every=1, h_options=None, epsilon=None):
        h_options = h_options or {}
        self.window = window
        self.metrics = metrics
        self.every = every
        self.h_options = h_options
        self.recompute_h = "h" in metrics and epsilon is None and (
            h_options.get("priors") is not None or h_options.get("severity_ratio") == "prior")
        tracked = ("auc", *(["h"] if "h" in metrics and not self.recompute_h else []))
        self.tracker = SlidingWindow(window, tracked, epsilon=epsilon, **h_options)
        self.rows = 0
        self.class_counts = np.zeros(2, dtype=np.int64)
        # With recompute_h, the points the next chunk still needs: the window's.
        self.tail_labels = np.empty(0, dtype=np.int8)
        self.tail_scores = np.empty(0, dtype=np.float64)

    def process(self, labels, scores):
        """Feed one chunk; return (rows emitted, {metric: values}) for it."""
        values = self.tracker.update(labels, scores)
        rows = np.arange(self.rows, self.rows + labels.shape[0])
        emitted = (rows + 1) % self.every == 0
        result = {name: values[name][emitted] for name in self.metrics if name in values}
        if self.recompute_h:
            all_labels = np.concatenate([self.tail_labels, labels])
            all_scores = np.concatenate([self.tail_scores, scores])
            start = self.tail_labels.shape[0]
            result["h"] = np.array([
                self._h_of_window(all_labels, all_scores, start + int(offset))
                for offset in np.flatnonzero(emitted)
            ])
            keep = all_labels.shape[0] if self.window is None else self.window
            self.tail_labels = all_labels[-keep:].copy()
            self.tail_scores = all_scores[-keep:].copy()
        self.rows += labels.shape[0]
        self.class_counts += np.bincount(labels, minlength=2)[:2]
        return rows[emitted], result

    def _h_of_window(self, labels, scores, end):
        begin = 0 if self.window is None else max(0, end + 1 - self.window)
        part_labels = labels[begin:end + 1]
        if part_labels.min() == part_labels.max():
            return np.nan
        return h_measure(part_labels, scores[begin:end + 1], **self.h_options)

    @property
    def last_auc(self):
        return self.tracker.auc

    def final_h(self):
        if not self.recompute_h:
            return self.tracker.h
        if self.tail_labels.shape[0] == 0:
            return np.nan
        return self._h_of_window(self.tail_labels, self.tail_scores,
                                 self.tail_labels.shape[0] - 1)


# ----------------------------------------------------------------------------
# Command line


def _metrics(text):
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    unknown = [name for name in names if name not in AVAILABLE_METRICS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown metric(s) {', '.join(unknown) or '(none given)'}; "
            f"available: {', '.join(AVAILABLE_METRICS)}"
        )
    return names


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _window(text):
    if text.lower() in ("none", "all", "prefix"):
        return None
    return _positive_int(text)


def _positive_float(text):
    try:
        return check_positive(float(text), "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}") from None


def build_parser():
    parser = argparse.ArgumentParser(
        prog="hmeasure-stream",
        description=(
            "Monitor a classifier's AUC and H-measure over a stream of (label, score) rows: "
            "the metrics over a sliding window (or every prefix) after each row. "
            "Without FILE, runs on the stream embedded in the package."
        ),
    )
    parser.add_argument("file", nargs="?", metavar="FILE",
                        help="CSV with a header row (or .npz; .parquet with pyarrow)")
    parser.add_argument("--window", type=_window, default=1000,
                        help="window length in rows, or 'all' for every prefix (default: 1000)")
    parser.add_argument("--metrics", type=_metrics, default=("auc",),
                        help="comma-separated metrics: auc, h (default: auc)")
    parser.add_argument("--out", metavar="OUT.csv",
                        help="write the metrics to this CSV (default: standard output)")
    parser.add_argument("--every", type=_positive_int, default=1, metavar="K",
                        help="write every K-th row only (default: every row)")
    parser.add_argument("--label-col", default="label", help="label column (default: label)")
    parser.add_argument("--score-col", default="score", help="score column (default: score)")
    parser.add_argument("--plot", metavar="OUT.png", help="plot the metrics over time (matplotlib)")
    parser.add_argument("--alpha", type=float, default=2.0, help="H: Beta alpha (default 2)")
    parser.add_argument("--beta", type=float, default=2.0, help="H: Beta beta (default 2)")
    parser.add_argument("--severity-ratio", metavar="SR",
                        help="H: R's severity ratio, a number or 'prior' (instead of alpha/beta)")
    parser.add_argument("--priors", metavar="P0,P1", help="H: fixed class priors")
    parser.add_argument("--epsilon", type=_positive_float, metavar="EPS",
                        help="H: approximate within EPS * (1 - H), O(log^2 w) per row for any "
                             "priors (without it, H with --priors or --severity-ratio prior "
                             "is recomputed from the window for each written row)")
    parser.add_argument("--chunk-size", type=_positive_int, default=65536, help=argparse.SUPPRESS)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _h_options(args):
    severity = args.severity_ratio
    if severity is not None and severity != "prior":
        try:
            severity = float(severity)
        except ValueError:
            raise InputError(
                f"--severity-ratio must be a number or 'prior', got {severity!r}"
            ) from None
    priors = None
    if args.priors is not None:
        try:
            priors = check_priors(tuple(float(p) for p in args.priors.split(",")))
        except ValueError as error:
            raise InputError(f"--priors: {error}") from None
    options = {"alpha": args.alpha, "beta": args.beta, "severity_ratio": severity,
               "priors": priors}
    try:
        check_cost(**options)
    except ValueError as error:
        raise InputError(str(error)) from None
    return options


def _progress(path, enabled):
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return tqdm(total=Path(path).stat().st_size if path else None, unit="B", unit_scale=True,
                desc="hmeasure-stream", file=sys.stderr, leave=False)


def run(args, stdout):
    h_options = _h_options(args)
    monitor = Monitor(args.window, args.metrics, args.every, h_options, args.epsilon)
    out_handle = open(args.out, "w", newline="") if args.out else stdout
    plotted_rows, plotted = [], {name: [] for name in args.metrics}
    progress = _progress(args.file, not args.no_progress and sys.stderr.isatty())
    try:
        writer = csv.writer(out_handle, lineterminator="\n")
        writer.writerow(["row", *args.metrics])
        for labels, scores in read_chunks(args.file, args.label_col, args.score_col,
                                          args.chunk_size):
            rows, values = monitor.process(labels, scores)
            columns = [values[name] for name in args.metrics]
            for index, row in enumerate(rows):
                writer.writerow([int(row), *(repr(float(c[index])) for c in columns)])
            if args.plot:
                plotted_rows.append(rows)
                for name in args.metrics:
                    plotted[name].append(values[name])
            if progress is not None:
                progress.update(labels.nbytes + scores.nbytes)
    finally:
        if progress is not None:
            progress.close()
        if args.out:
            out_handle.close()
    if monitor.rows == 0:
        raise InputError(f"{args.file}: no data rows")
    if args.plot:
        _plot(args.plot, plotted_rows, plotted, args.window)
    summary = stdout if args.out else sys.stderr
    span = "every prefix" if args.window is None else f"window of {args.window} rows"
    final = [f"AUC {monitor.last_auc:.6f}"]
    if "h" in args.metrics:
        final.append(f"H {monitor.final_h():.6f}")
    print(
        f"hmeasure-stream: {monitor.rows} rows ({monitor.class_counts[1]} of class 1), "
        f"{span}; last: {', '.join(final)}",
        file=summary,
    )
    return 0


def _plot(path, rows, values, window):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        from hmeasure_stream.plotting import plot_metrics
    except ImportError:
        raise InputError("--plot needs matplotlib (pip install matplotlib)") from None
    x = np.concatenate(rows) if rows else np.empty(0)
    metrics = {name: np.concatenate(parts) if parts else np.empty(0)
               for name, parts in values.items()}
    title = "every prefix" if window is None else f"sliding window of {window} rows"
    ax = plot_metrics(metrics, rows=x, title=f"hmeasure-stream: {title}")
    ax.figure.savefig(path, dpi=120)
    plt.close(ax.figure)


def main(argv=None, stdout=None):
    """Entry point; returns the exit code (2 for bad input, with a one-line message)."""
    stdout = sys.stdout if stdout is None else stdout
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.file is None:
            from hmeasure_stream._demo import run_demo

            run_demo(window=1000 if args.window is None else args.window, out=stdout)
            return 0
        return run(args, stdout)
    except InputError as error:
        print(f"hmeasure-stream: error: {error}", file=sys.stderr)
        return 2
    except OSError as error:
        print(f"hmeasure-stream: error: {error}", file=sys.stderr)
        return 2
