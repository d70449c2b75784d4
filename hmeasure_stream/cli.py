"""The command-line monitor: ``hmeasure-stream`` / ``python -m hmeasure_stream``.

Reads a stream of (label, score) rows from a file in chunks, so a file larger
than memory works, and writes the metrics over a sliding window (or over every
prefix) after each row, or after every K-th row.  Without a file it runs on
the stream embedded in the package and prints a summary.

Bad input ends the run with a one-line message on stderr and exit code 2.
"""

import argparse
import csv
import math
import sys
from pathlib import Path

import numpy as np

from hmeasure_stream import __version__
from hmeasure_stream._cost import check_priors, resolve_cost
from hmeasure_stream._dynamic import AUCEngine
from hmeasure_stream._validation import check_positive
from hmeasure_stream.metrics import h_measure
from hmeasure_stream.streaming import ApproxH, DynamicH

AVAILABLE_METRICS = ("auc", "h")
_LABELS = {"0": 0, "1": 1, "0.0": 0, "1.0": 1, "false": 0, "true": 1}


class InputError(Exception):
    """A problem with the input or the options, reported in one line (exit code 2)."""


# ----------------------------------------------------------------------------
# Reading


def _parse_label(text, where):
    label = _LABELS.get(text.strip().lower())
    if label is None:
        raise InputError(f"{where}: label {text!r} is not 0/1 (or true/false)")
    return label


def _parse_score(text, where):
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"{where}: score {text!r} is not a number") from None
    if not math.isfinite(score):
        raise InputError(f"{where}: score {text!r} is not a finite number")
    return score


def _csv_chunks(path, label_col, score_col, chunk_size):
    """Yield (labels int8, scores float64) arrays of at most ``chunk_size`` rows."""
    with open(path, newline="") as handle:
        lines = (line for line in handle if not line.lstrip().startswith("#"))
        reader = csv.reader(lines)
        header = next(reader, None)
        if header is None:
            raise InputError(f"{path}: the file is empty")
        header = [name.strip() for name in header]
        for wanted, option in ((label_col, "--label-col"), (score_col, "--score-col")):
            if wanted not in header:
                raise InputError(
                    f"{path}: no column {wanted!r} ({option}); columns are: {', '.join(header)}"
                )
        label_index, score_index = header.index(label_col), header.index(score_col)
        labels, scores = [], []
        for row in reader:
            if not row:
                continue
            # Line numbers count from 1 and include the header (comments excluded).
            where = f"{path}:{reader.line_num}"
            if len(row) <= max(label_index, score_index):
                raise InputError(f"{where}: expected {len(header)} columns, found {len(row)}")
            labels.append(_parse_label(row[label_index], where))
            scores.append(_parse_score(row[score_index], where))
            if len(labels) == chunk_size:
                yield np.array(labels, dtype=np.int8), np.array(scores, dtype=np.float64)
                labels, scores = [], []
        if labels:
            yield np.array(labels, dtype=np.int8), np.array(scores, dtype=np.float64)


def _npz_chunks(path, label_col, score_col, chunk_size):
    with np.load(path) as archive:
        for wanted in (label_col, score_col):
            if wanted not in archive.files:
                raise InputError(
                    f"{path}: no array {wanted!r}; arrays are: {', '.join(archive.files)}"
                )
        labels, scores = archive[label_col], archive[score_col]
    if labels.ndim != 1 or labels.shape != scores.shape:
        raise InputError(f"{path}: {label_col!r} and {score_col!r} must be 1-d of equal length")
    for start in range(0, labels.shape[0], chunk_size):
        part = slice(start, start + chunk_size)
        yield _checked_columns(path, start, labels[part], scores[part])


def _checked_columns(path, start, labels, scores):
    """A chunk of array columns as (labels int8, scores float64), or the first bad row."""
    bad = np.flatnonzero((labels != 0) & (labels != 1))
    if bad.size:
        row = start + int(bad[0])
        raise InputError(f"{path}: row {row}: label {labels[bad[0]]!r} is not 0/1")
    scores = np.asarray(scores, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        row = start + int(bad[0])
        raise InputError(f"{path}: row {row}: score {scores[bad[0]]!r} is not finite")
    return labels.astype(np.int8), scores


def read_chunks(path, label_col="label", score_col="score", chunk_size=65536):
    """Yield the stream in file order as (labels int8, scores float64) chunks."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.suffix == ".npz":
        return _npz_chunks(path, label_col, score_col, chunk_size)
    if path.suffix == ".parquet":
        return _parquet_chunks(path, label_col, score_col, chunk_size)
    return _csv_chunks(path, label_col, score_col, chunk_size)


def _parquet_chunks(path, label_col, score_col, chunk_size):
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise InputError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from None
    reader = parquet.ParquetFile(path)
    start = 0
    for batch in reader.iter_batches(batch_size=chunk_size, columns=[label_col, score_col]):
        labels = batch.column(label_col).to_numpy(zero_copy_only=False)
        scores = batch.column(score_col).to_numpy(zero_copy_only=False)
        yield _checked_columns(path, start, labels, scores)
        start += labels.shape[0]


# ----------------------------------------------------------------------------
# Monitoring


class Monitor:
    """Metrics over a sliding window of a stream that arrives in chunks.

    The AUC comes from the exact O(log w) engine and the H-measure from the
    maintained ROC hull (O(log^2 w) per row), both carried across chunks.
    With ``epsilon``, H comes from ApproxH (within epsilon (1 - H), any
    priors).  Without it, H with fixed priors or R's "prior" severity ratio
    cannot be maintained exactly; it is then computed from the window's points
    for each emitted row (O(w log w) per emitted row).
    """

    def __init__(self, window, metrics, every=1, h_options=None, epsilon=None):
        self.window = window
        self.metrics = metrics
        self.every = every
        self.h_options = h_options or {}
        self.hull_engine = None
        self.approximate = None
        if "h" in metrics and epsilon is not None:
            tracker = ApproxH(epsilon, **self.h_options)
            self.hull_engine = tracker._engine
            self.approximate = tracker._approximate
        elif "h" in metrics and self.h_options.get("priors") is None and (
                self.h_options.get("severity_ratio") != "prior"):
            self.hull_engine = DynamicH(self.h_options.get("alpha", 2.0),
                                        self.h_options.get("beta", 2.0),
                                        self.h_options.get("severity_ratio"))._engine
        self.engine = self.hull_engine.auc_engine if self.hull_engine else AUCEngine(16)
        self.rows = 0
        self.class_counts = np.zeros(2, dtype=np.int64)
        # The points the next chunk still needs: the last `window` ones (all for a prefix).
        self.tail_labels = np.empty(0, dtype=np.uint8)
        self.tail_scores = np.empty(0, dtype=np.float64)
        self.last = {}

    def process(self, labels, scores):
        """Feed one chunk; return (rows emitted, {metric: values}) for it."""
        is_pos = np.concatenate([self.tail_labels, labels.astype(np.uint8)])
        all_scores = np.concatenate([self.tail_scores, scores])
        start = self.tail_labels.shape[0]
        window = 0 if self.window is None else self.window
        auc_values = np.empty(labels.shape[0], dtype=np.float64)
        first_row = self.rows
        rows = np.arange(first_row, first_row + labels.shape[0])
        emitted = (rows + 1) % self.every == 0
        result = {}
        if self.hull_engine is not None:
            h_values = np.empty(labels.shape[0], dtype=np.float64)
            auch_values = np.empty(labels.shape[0], dtype=np.float64)
            self.hull_engine.sliding(is_pos, all_scores, None, window, h_values, auch_values,
                                     auc_values, start, self.approximate)
        else:
            self.engine.sliding(is_pos, all_scores, None, window, auc_values, start)
        if "auc" in self.metrics:
            result["auc"] = auc_values[emitted]
        if "h" in self.metrics:
            if self.hull_engine is not None:
                result["h"] = h_values[emitted]
            else:
                result["h"] = np.array([
                    self._h_of_window(is_pos, all_scores, start + int(offset))
                    for offset in np.flatnonzero(emitted)
                ])
        self.rows += labels.shape[0]
        self.class_counts += np.bincount(labels, minlength=2)[:2]
        keep = is_pos.shape[0] if self.window is None else self.window
        self.tail_labels = is_pos[-keep:].copy()
        self.tail_scores = all_scores[-keep:].copy()
        self.last = {"auc": float(auc_values[-1])} if labels.shape[0] else self.last
        return rows[emitted], result

    def _h_of_window(self, is_pos, scores, end):
        begin = 0 if self.window is None else max(0, end + 1 - self.window)
        part_labels = is_pos[begin:end + 1]
        if part_labels.min() == part_labels.max():
            return np.nan
        return h_measure(part_labels, scores[begin:end + 1], **self.h_options)

    def final_h(self):
        if self.approximate is not None:
            return self.hull_engine.approx_h(*self.approximate)
        if self.hull_engine is not None:
            return self.hull_engine.h
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
        resolve_cost(**options)
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
    final = [f"AUC {monitor.last['auc']:.6f}"]
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
