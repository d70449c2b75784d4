"""The command-line monitor itself (``hmeasure_stream.cli``): the options, the windows,
the output.

Imported by :func:`hmeasure_stream.cli.main` for every command line but
``--version``, which needs neither numpy nor the metric table its options are
made from.
"""

import argparse
import contextlib
import dataclasses
import decimal
import math
import os
import re
import signal
import stat
import sys
import threading
import time
import warnings
from importlib import resources
from pathlib import Path

import numpy as np

from hmeasure_stream import (
    AlertMonitor,
    AlertRule,
    DelayedAUC,
    InvertedScoresWarning,
    SlidingWindow,
    __version__,
    h_measure,
)
from hmeasure_stream._core.text import csv_field, csv_rows
from hmeasure_stream._startup import INTERRUPTED
from hmeasure_stream._startup import release as _release_startup_sigint
from hmeasure_stream._validation import (
    DurationUnitError,
    check_duration,
    check_positive,
    is_duration,
    requirements_of,
)
from hmeasure_stream.cli._output import _say, _Stream, _write_all, _WriteError, quiet_broken_pipe
from hmeasure_stream.cli._reading import (
    DELIMITERS,
    STDIN,
    InputError,
    check_encoding,
    open_source,
    parse_scores,
    second_scores,
)
from hmeasure_stream.metric_table import (
    METRICS,
    REPORT,
    SECOND_SCORE,
    APApprox,
    Binning,
    Compression,
    HCost,
    Threshold,
    first_improbable,
)
from hmeasure_stream.streaming._window_rules import (
    COUNT_LIMIT,
    check_count,
    check_window_counts,
    mask_short,
    metrics_argument,
)

#: The metrics of the table that --metrics offers (1-d scores, options among the flags').
AVAILABLE_METRICS = tuple(name for name, metric in METRICS.items() if metric.cli)
#: The metrics of a second model (``--score2-col``).
SECOND_MODEL_METRICS = tuple(name for name in AVAILABLE_METRICS
                             if SECOND_SCORE in METRICS[name].needs)
#: The options objects whose fields are flags made from the table (``_TABLE_FLAGS``);
#: H's and the threshold's flags are written out, for their own parsing.
_TABLE_OPTIONS = tuple(dict.fromkeys(
    METRICS[name].options for name in AVAILABLE_METRICS
    if METRICS[name].options not in (None, HCost, Threshold)))
def _options_of(options):
    """The metrics --metrics offers whose options are of this class."""
    return [name for name in AVAILABLE_METRICS if METRICS[name].options is options]


def _flag_of(field):
    """An option field's flag: ``--field-name``.  One word, one meaning: the fields of
    one name (``relative_error``, ``n_bins``) in several options classes share one flag,
    which sets each of them for the metrics asked."""
    return "--" + field.name.replace("_", "-")


#: (flag, dest, options class, field) of each field with a help of ``_TABLE_OPTIONS``
#: (the dest is the field's name, shared by the classes with a field of that name).
_TABLE_FLAGS = tuple((_flag_of(field), field.name, options, field)
                     for options in _TABLE_OPTIONS for field in dataclasses.fields(options)
                     if "help" in field.metadata)
#: (flag, dest, options class) of every metric option: H's and the threshold's, written out
#: in the parser, and the table's (``_TABLE_FLAGS``).
_OPTION_FLAGS = (*((_flag_of(f), f.name, options)
                   for options in (HCost, Threshold) for f in dataclasses.fields(options)
                   if f.init),
                 *((flag, dest, options) for flag, dest, options, _ in _TABLE_FLAGS))
#: The former spellings of option flags, for one release: (old flag, options class, field);
#: each sets its class's field alone, with a note on standard error naming the new flag.
_RENAMED_FLAGS = (("--epsilon", HCost, "relative_error"),
                  ("--ap-approx-epsilon", APApprox, "relative_error"),
                  ("--auc-approx-epsilon", Compression, "compression"),
                  ("--bins", Binning, "n_bins"))


def _renamed_dest(flag):
    """Where the parser keeps a former flag's value (its class's field alone)."""
    return "renamed" + flag.replace("-", "_")
# R hmeasure's KS, MER, MWL: the exact hull, with the window's class proportions.
_REPORT_METRICS = tuple(name for name in AVAILABLE_METRICS if REPORT in METRICS[name].needs)
#: The columns --delayed writes after the metrics (DelayedAUC's results).
DELAYED_COLUMNS = ("expected_auc", "n_pending")
#: The largest --window and --every (no stream is longer).
MAX_COUNT = 2**62
MAX_CHUNK = 2**24

# Options that shape the monitor's output: given without FILE, the monitor
# runs on the embedded stream instead of the demo's summary.
_MONITOR_OPTIONS = ("out", "metrics", "every", "plot", "alert", "fail_on_alert", "half_life",
                    "false_alarm_rate", "alert_drop", "reference_rows", "reference",
                    *dict.fromkeys(dest for _, dest, _ in _OPTION_FLAGS),
                    *(_renamed_dest(flag) for flag, _, _ in _RENAMED_FLAGS))
# Options that describe FILE: refused without it.
_FILE_OPTIONS = ("label_col", "pos_label", "score_col", "encoding", "delimiter",
                 "decimal_comma", "time_col", "id_col", "keep_cols", "delayed", "prob_col",
                 "unmatched_labels", "by", "score2_col")
_DEFAULTS = {"metrics": ("auc",), "every": 1, "alpha": 2.0, "beta": 2.0, "alert": [],
             "fail_on_alert": False, "threshold": 0.5,
             "label_col": "label", "score_col": "score", "decimal_comma": False,
             "keep_cols": (), "delayed": False, "unmatched_labels": "count"}
#: Seconds of work a chunk is cut to while the progress bar shows (it refreshes after each).
_PROGRESS_PACE = 0.2


# ----------------------------------------------------------------------------
# Monitoring


class Monitor:
    """Metrics over a sliding window of a stream that arrives in chunks.

    One :class:`~hmeasure_stream.SlidingWindow` carries the window for the
    whole run: each row is fed to it once, and the values of the rows
    written (every K-th row with ``--every K``) are read from what it
    returns.  It chooses the engines (exact AUC, the maintained hull for H,
    or ApproxH with ``relative_error``), forgets the points of a window of rows, of
    time (``"24h"``) or of a half-life (both need the rows' times:
    ``process(..., times=...)``), and makes the values nan while the window
    holds fewer than ``min_periods`` rows.  A window longer than the stream
    has values over every prefix; the window's ring is allocated at the
    window's size, its pages zero until rows are written to them (memory for
    the rows read where the system commits pages lazily: Linux, macOS).

    H with fixed priors or R's "prior" severity ratio and no ``relative_error``
    cannot be maintained exactly: it is then computed from the window's
    last rows, kept here, for each written row (O(w log w) per written row).

    ``segmented``: each row comes with its segment's key (``process(...,
    keys=...)``, ``--by``), and each segment has a window of its own.
    """

    def __init__(self, window, metrics, every=1, options=(), half_life=None, min_periods=1,
                 segmented=False):
        given = {type(option): option for option in options}
        cost = given.get(HCost, HCost())
        self.timed = is_duration(window) or half_life is not None
        if not self.timed and window is not None and window <= COUNT_LIMIT:
            try:  # the windows' one rule
                check_window_counts(window, min_periods)
            except ValueError as error:
                raise InputError(str(error)) from None
        self.min_periods = min_periods
        self.window = window
        self.metrics = metrics
        self.columns = metrics
        self.every = every
        self.h_options = {name: getattr(cost, name)
                          for name in ("alpha", "beta", "severity_ratio", "priors")}
        self.recompute_h = ("h" in metrics and cost.relative_error is None
                            and not cost.rule.exact_on_structures)
        if self.recompute_h and self.timed:
            raise InputError("H with --priors or --severity-ratio prior over a window of time "
                             "or with --half-life needs --relative-error")
        if self.recompute_h and segmented:
            raise InputError("H with --priors or --severity-ratio prior over segments (--by) "
                             "needs --relative-error")
        self.segmented = segmented
        self.last_key = None
        names = ("auc", *[name for name in metrics
                          if name != "auc" and not (name == "h" and self.recompute_h)])
        # Each metric's options, given once for all the metrics that share them.
        self.tracked = metrics_argument({name: given.get(METRICS[name].options)
                                         for name in names})
        # No structure holds more rows than a window's most points: a longer window of
        # rows never fills, and its values are those of every prefix.
        held = window
        if not self.timed and window is not None and window > COUNT_LIMIT:
            held = None
        try:
            self.tracker = SlidingWindow(held, self.tracked, half_life=half_life,
                                         min_periods=min_periods)
        except ValueError as error:  # options the window's engines refuse
            raise InputError(str(error)) from None
        self.rows = 0
        self.class_counts = np.zeros(2, dtype=np.int64)
        # With recompute_h: the window's last rows (all rows without a window), for H.
        self.tail_labels = np.empty(0, dtype=np.int8)
        self.tail_scores = np.empty(0, dtype=np.float64)

    def process(self, labels, scores, times=None, keys=None, scores2=None):
        """Feed one chunk; return (rows emitted, {metric: values}) for it.

        ``times``: the rows' times (int64 nanoseconds since the epoch),
        required with a window of time or a half-life; ``keys``: the rows'
        segments (an array), with ``segmented``; ``scores2``: a second model's
        scores, with its metrics.  The window reads the rows written only."""
        rows = np.arange(self.rows, self.rows + labels.shape[0])
        emitted = (rows + 1) % self.every == 0
        more = {} if scores2 is None else {"y_score2": scores2}
        if self.segmented:
            more["by"] = keys
            if keys.shape[0]:
                self.last_key = keys[-1]
        values = self.tracker.update(labels, scores, times=times, at=np.flatnonzero(emitted),
                                     **more)
        result = {name: values[name] for name in self.metrics if name in values}
        if self.recompute_h:
            result["h"] = self._recomputed_h(*self._with_tail(labels, scores), emitted)
            mask_short({"h": result["h"]}, self.min_periods, rows[emitted] + 1, self.window)
        self.rows += labels.shape[0]
        self.class_counts += np.bincount(labels, minlength=2)[:2]
        return rows[emitted], result

    def _with_tail(self, labels, scores):
        """The window's last rows and the chunk's, and where the chunk starts in them; the
        window's last rows are then those of this chunk."""
        all_labels = np.concatenate([self.tail_labels, labels])
        all_scores = np.concatenate([self.tail_scores, scores])
        keep = all_labels.shape[0] if self.window is None else self.window
        start = self.tail_labels.shape[0]
        self.tail_labels = all_labels[-keep:].copy()
        self.tail_scores = all_scores[-keep:].copy()
        return all_labels, all_scores, start

    def _recomputed_h(self, all_labels, all_scores, start, emitted):
        """H with priors fixed from outside, from the window's points for each emitted row
        (``all_*``: the window's last rows and the chunk's, which starts at ``start``)."""
        return np.array([
            self._h_of_window(all_labels, all_scores, start + int(offset))
            for offset in np.flatnonzero(emitted)
        ], dtype=np.float64)

    def _h_of_window(self, labels, scores, end):
        begin = 0 if self.window is None else max(0, end + 1 - self.window)
        part_labels = labels[begin:end + 1]
        if part_labels.min() == part_labels.max():
            return np.nan
        with warnings.catch_warnings():  # a window below AUC 0.5 is a value to report
            warnings.simplefilter("ignore", InvertedScoresWarning)
            return h_measure(part_labels, scores[begin:end + 1], **self.h_options)

    def last_values(self):
        """{column: values} of the stream's last row, one value each: the window's
        values after the last row are that row's."""
        window = self.last_window
        values = {name: np.array([self.final_h() if name == "h" else window[name]],
                                 dtype=np.float64) for name in self.columns}
        if self.recompute_h:
            mask_short({"h": values["h"]}, self.min_periods, np.array([self.rows]),
                       self.window)
        return values

    @property
    def last_window(self):
        """The window of the last row (its segment's, with ``segmented``)."""
        return self.tracker.segment(self.last_key) if self.segmented else self.tracker

    @property
    def last_auc(self):
        return self.last_window["auc"]

    def final_h(self):
        if not self.recompute_h:
            return self.last_window["h"]
        if self.tail_labels.shape[0] == 0:
            return np.nan
        return self._h_of_window(self.tail_labels, self.tail_scores,
                                 self.tail_labels.shape[0] - 1)


class DelayedMonitor:
    """Metrics of a stream whose labels arrive late (``--delayed``), by
    :class:`~hmeasure_stream.DelayedAUC`.

    A row with an empty label is a prediction of its id (``--id-col``), with
    its score and the probability of class 1 (``--prob-col``, else the
    score); a later row with the same id and a label labels it.  The window
    counts predictions (or spans their times).  After each row the written
    columns are the realized metrics (of the labelled predictions in the
    window), the expected AUC of all of them and the number still pending.
    """

    def __init__(self, window, metrics, every=1, options=(), half_life=None,
                 unmatched_labels="count"):
        given = {type(option): option for option in options}
        tracked = metrics_argument({name: given.get(METRICS[name].options)
                                    for name in metrics})
        try:
            self.tracker = DelayedAUC(window, tracked, half_life=half_life,
                                      unmatched_labels=unmatched_labels)
        except ValueError as error:
            raise InputError(str(error)) from None
        self.timed = is_duration(window) or half_life is not None
        self.window = window
        self.metrics = metrics
        self.columns = (*metrics, *DELAYED_COLUMNS)
        self.every = every
        self.rows = 0
        self.class_counts = np.zeros(2, dtype=np.int64)

    def process(self, labels, scores, times=None, *, keys, probs=None, lines=None, path=""):
        """Feed one chunk's rows in order; return (rows emitted, {column: values}).

        ``keys``: the rows' ids; ``probs``: the predictions' probabilities
        (nan on label rows) or None; ``lines``: where each row is, for messages."""
        tracker, every = self.tracker, self.every
        emitted, written = [], []
        for index in range(labels.shape[0]):
            label = int(labels[index])
            try:
                if label < 0:
                    tracker.predict(keys[index], float(scores[index]),
                                    None if probs is None else float(probs[index]),
                                    time=None if times is None else times[index])
                else:
                    tracker.label(keys[index], label)
                    self.class_counts[label] += 1
            except (ValueError, KeyError) as error:
                where = path if lines is None else f"{path}:{lines[index]}"
                message = error.args[0] if isinstance(error, KeyError) else error
                raise InputError(f"{where}: {message}") from None
            row = self.rows + index
            if (row + 1) % every == 0:
                emitted.append(row)
                # The written columns alone (results() also computes DeLong's interval).
                written.append([getattr(tracker, name) for name in self.columns])
        self.rows += labels.shape[0]
        return np.array(emitted, dtype=np.int64), self._columns(written)

    def _columns(self, written):
        """{column: values} of the written rows' values (a list per row, in column
        order): the count of pending predictions as integers, the metrics as floats."""
        return {name: np.array([values[column] for values in written],
                               dtype=np.int64 if name == "n_pending" else np.float64)
                for column, name in enumerate(self.columns)}

    def last_values(self):
        """{column: values} of the stream's last row (as :meth:`Monitor.last_values`)."""
        return self._columns([[getattr(self.tracker, name) for name in self.columns]])

    @property
    def last_auc(self):
        return self.tracker.auc

    def final_h(self):
        return self.tracker.h


# ----------------------------------------------------------------------------
# Command line


class _UsageError(Exception):
    """A bad option, found while parsing."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (no usage block)."""

    def error(self, message):
        raise _UsageError(message)

    def _print_message(self, message, file=None):
        # --help and --version: written in whole or an error (argparse ignores a failure).
        if message:
            _Stream(file or sys.stderr).write(message)


def _metrics(text):
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in AVAILABLE_METRICS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown metric(s) {', '.join(unknown) or '(none given)'}; "
            f"available: {', '.join(AVAILABLE_METRICS)}"
        )
    return names


class _Alert:
    """``--alert``: a metric, ``<`` or ``>``, a limit; it fires when the condition
    becomes true on a written row and clears when it becomes false (nan: no change).
    With segments (``--by``) it watches each segment apart, and its lines name it."""

    _SYNTAX = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*([<>])\s*(\S+)\s*")

    def __init__(self, text):
        match = self._SYNTAX.fullmatch(text)
        if match is None:
            raise argparse.ArgumentTypeError(
                f"bad alert {text!r}: write METRIC<VALUE or METRIC>VALUE, e.g. 'auc<0.8'")
        self.metric, self.operator, limit = match.groups()
        if self.metric not in (*AVAILABLE_METRICS, *DELAYED_COLUMNS):
            raise argparse.ArgumentTypeError(
                f"unknown metric {self.metric!r} in alert {text!r}; "
                f"available: {', '.join(AVAILABLE_METRICS)} (and with --delayed "
                f"{', '.join(DELAYED_COLUMNS)})")
        try:
            self.limit = float(limit)
        except ValueError:
            self.limit = math.nan
        if not math.isfinite(self.limit):
            raise argparse.ArgumentTypeError(
                f"bad alert {text!r}: the limit {limit!r} is not a finite number")
        self.text = f"{self.metric}{self.operator}{limit}"
        self.active = False
        self.active_in = {}  # with segments: each segment's state, by key
        self.fired = 0

    def check(self, rows, column, keys=None, by=None):
        """The stderr lines of this chunk's crossings (rows and values as written); with
        ``keys`` (the written rows' segments, of the column ``by``), of each segment's
        crossings, in row order."""
        if keys is None:
            crossings, self.active = self._crossings(rows, column, self.active, "")
            return [line for _, line in crossings]
        members = {}
        for index, key in enumerate(keys):
            members.setdefault(key, []).append(index)
        crossings = []
        for key, indices in members.items():
            found, self.active_in[key] = self._crossings(
                rows[indices], column[indices], self.active_in.get(key, False),
                f", {by} {csv_field(key)}")
            crossings.extend(found)
        return [line for _, line in sorted(crossings, key=lambda crossing: crossing[0])]

    def _crossings(self, rows, column, active, where):
        """((row, line) of each crossing of rows whose state before is ``active``, the
        state after); ``where`` follows the row in the lines."""
        known = ~np.isnan(column)
        with np.errstate(invalid="ignore"):
            holds = column < self.limit if self.operator == "<" else column > self.limit
        states = holds[known]
        if states.size == 0:
            return [], active
        previous = np.concatenate(([active], states[:-1]))
        crossings = []
        for index in np.flatnonzero(states != previous):
            row, value = int(rows[known][index]), float(column[known][index])
            event = "alert" if states[index] else "alert cleared"
            crossings.append((row, f"hmeasure-stream: {event}: {self.text} at row {row}"
                                   f"{where} ({self.metric}={value!r})"))
        self.fired += int(np.count_nonzero(states & ~previous))
        return crossings, bool(states[-1])


class _EvidenceAlert:
    """``--alert 'auc<LIMIT'`` with ``--false-alarm-rate``, or ``--alert-drop``: an
    :class:`~hmeasure_stream.AlertMonitor` of the rule over the window of rows, fed the
    rows as they are read, looking at the rows written; its lines name the row and the
    evidence (the estimate and its upper confidence bound)."""

    def __init__(self, rule, text, window, every, reference=None):
        self.monitor = AlertMonitor(rule, window, every, reference=reference)
        self.text = text

    @property
    def fired(self):
        return self.monitor.n_fired

    def check_rows(self, labels, scores, times=None):
        """The stderr lines of the alarms that fire or clear in this chunk's rows (their
        ``times`` with a window of time)."""
        lines = []
        rate = self.monitor.rule.false_alarm_rate
        for event in self.monitor.update(labels, scores, times=times):
            if event.kind == "fired":
                lines.append(f"hmeasure-stream: alert: {self.text} at row {event.row} "
                             f"(auc={event.estimate!r}, upper bound {event.bound:.6f} < "
                             f"{event.limit:.6f}; false-alarm rate {rate:g} per row)")
            else:
                lines.append(f"hmeasure-stream: alert cleared: {self.text} at row "
                             f"{event.row} (auc={event.estimate!r}, upper bound "
                             f"{event.bound:.6f} >= {event.limit:.6f})")
        return lines


def _finite_float(text):
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text!r}")
    return value


def _count(text, limit=MAX_COUNT, name=None):
    """A whole number of rows from 1 to ``limit``: 5000, 5_000 or 5e3; with ``name``, a
    window's count (``--window``, ``--min-periods``) as every window checks it, but that a
    window of rows longer than a window holds is every prefix (it never fills)."""
    try:
        value = decimal.Decimal(text.strip().replace("_", ""))
        whole = value.is_finite() and value == value.to_integral_value()
    except (ArithmeticError, ValueError):
        whole = False
    if not whole:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number")
    if name is not None and not (name == "window" and value > COUNT_LIMIT):
        try:
            return check_count(int(value), name)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None
    if not 1 <= value <= limit:
        raise argparse.ArgumentTypeError(f"must be from 1 to {limit}, got {text}")
    return int(value)


def _duration(text):
    """A duration such as 15min, 24h, 7d: the text itself, checked."""
    try:
        check_duration(text.strip(), "the duration")
    except DurationUnitError as error:  # "1M": a duration, but its unit is ambiguous
        raise argparse.ArgumentTypeError(str(error)) from None
    except ValueError:
        return None
    return text.strip()


def _window(text):
    if text.strip().lower() in ("none", "all", "prefix"):
        return None
    duration = _duration(text)
    if duration is not None:
        return duration
    try:
        return _count(text, name="window")
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(
            f"{error}; give a number of rows, a duration such as 15min, 24h or 7d (with "
            "--time-col), or 'all'") from None


def _half_life(text):
    duration = _duration(text)
    if duration is not None:
        return duration
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(
            f"must be a number of rows > 0 or a duration such as 30min, 12h or 2d (with "
            f"--time-col), got {text!r}")
    return value


def _pos_label(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("--pos-label needs a label (it is empty)")
    return text


def _column_names(text):
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise argparse.ArgumentTypeError(f"give column names separated by commas, got {text!r}")
    return tuple(dict.fromkeys(names))


def _column_name(text):
    if not text.strip():
        raise argparse.ArgumentTypeError("give a column name (it is empty)")
    return text.strip()


def _chunk_size(text):
    return _count(text, MAX_CHUNK)


def _false_alarm_rate(text):
    try:
        return AlertRule(below=1.0, false_alarm_rate=_finite_float(text)).false_alarm_rate
    except (ValueError, argparse.ArgumentTypeError):
        raise argparse.ArgumentTypeError(
            f"must be a number from 1e-12 to 1 (false alarms per row), got {text!r}") from None


def _drop(text):
    try:
        return AlertRule(drop=_finite_float(text), reference_rows=4).drop
    except (ValueError, argparse.ArgumentTypeError):
        raise argparse.ArgumentTypeError(
            f"must be a drop of the AUC in [0, 1), got {text!r}") from None


def _positive_float(text):
    try:
        return check_positive(float(text), "the value")
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number > 0, got {text!r}") from None


def _encoding(text):
    try:
        return check_encoding(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _delimiter(text):
    named = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": " ",
             "pipe": "|"}
    value = named.get(text.lower(), text)
    if len(value) != 1 or value in "\"\r\n" or value.isalnum():
        raise argparse.ArgumentTypeError(
            f"must be one character other than a letter, digit, quote or newline "
            f"(or tab, comma, semicolon, space, pipe), got {text!r}"
        )
    return value


def _plot_formats():
    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        return None
    return sorted(FigureCanvasBase.get_supported_filetypes())


def _plot_path(text):
    formats = _plot_formats()
    if formats is None:
        matplotlib, = requirements_of("hmeasure_stream[cli]", "matplotlib")
        raise argparse.ArgumentTypeError(
            f"needs matplotlib, which is not installed: pip install '{matplotlib}'")
    extension = Path(text).suffix.lower().lstrip(".")
    if extension not in formats:
        raise argparse.ArgumentTypeError(
            f"{text!r} does not end with an image extension matplotlib writes "
            f"({', '.join('.' + name for name in formats)})"
        )
    return text


def build_parser():
    parser = _Parser(
        prog="hmeasure-stream",
        description=(
            "Monitor a classifier's AUC and H-measure over a stream of (label, score) rows: "
            "the metrics over a sliding window (or every prefix) after each row. "
            "Without FILE, prints a summary of the stream embedded in the package; "
            "with options that shape the output (--out, --metrics, --every, --plot, "
            "the H options, --window all), monitors that stream."
        ),
    )
    parser.add_argument(
        "file", nargs="?", metavar="FILE",
        help="CSV with a header row (optionally gzip/bzip2/xz-compressed), .npz, or "
             ".parquet (with pyarrow); recognised by content. '-' is standard input; "
             "standard input and FIFOs are read as rows arrive, and each output row is "
             "written as soon as its input row is read")
    parser.add_argument("--window", type=_window, default=1000,
                        help="window length in rows, 'all' for every prefix, or a duration "
                             "such as 15min, 24h or 7d (with --time-col: the rows whose time "
                             "is in (t - duration, t], t the row's time) (default: 1000 rows); "
                             "until the stream fills a window of rows, the values are those "
                             "of the prefix")
    parser.add_argument("--half-life", type=_half_life, metavar="H",
                        help="exponential decay: a row of age a weighs 2^(-a/H) against the "
                             "newest; H in rows (with --delayed: in predictions), or a "
                             "duration such as 30min with --time-col; combines with --window "
                             "(give --window all for decay alone)")
    parser.add_argument("--min-periods", type=lambda text: _count(text, name="min_periods"),
                        default=1, metavar="N",
                        help="the metrics are nan until the window holds N rows (as "
                             "pandas' rolling min_periods; default: 1)")
    parser.add_argument("--time-col", metavar="TS",
                        help="column of the rows' times: ISO 8601 (2026-11-22T21:00:00Z) or "
                             "seconds since the epoch; they must not go backwards; copied to "
                             "the output")
    parser.add_argument("--id-col", metavar="COL",
                        help="column copied to each output row (e.g. a request id); with "
                             "--delayed, the id that ties a label to its prediction")
    parser.add_argument("--delayed", action="store_true", default=None,
                        help="labels arrive late (CSV): a row with an empty label is a "
                             "prediction of its --id-col id, a later row with that id and a "
                             "label labels it (its score is not read); the window counts "
                             "predictions (or spans their times), the metrics are those of "
                             "the labelled predictions, and expected_auc (all predictions, "
                             "the pending ones counted by their probability) and n_pending "
                             "are written after them")
    parser.add_argument("--prob-col", metavar="COL",
                        help="with --delayed: the column of the predictions' probabilities "
                             "of class 1, for expected_auc (default: the scores)")
    parser.add_argument("--unmatched-labels", choices=("count", "raise"), default=None,
                        help="--delayed: a label matching no prediction held or remembered "
                             "(an id never predicted, or gone more than a window) is counted "
                             "in the summary (count, the default) or ends the run (raise)")
    parser.add_argument("--score2-col", metavar="COL",
                        help="column of a second model's scores on the same rows, for the "
                             "metrics auc2, auc_diff and auc_diff_p (champion against "
                             "challenger on one window)")
    parser.add_argument("--keep-cols", type=_column_names, metavar="A,B",
                        help="more columns copied to each output row")
    parser.add_argument("--by", metavar="COLUMN", type=_column_name,
                        help="column of the rows' segments (e.g. a region): each segment "
                             "(each value, compared as text in a CSV) has a window of its "
                             "own, each row's metrics are its segment's, the key is written "
                             "after row in a column named COLUMN, and --alert watches each "
                             "segment")
    parser.add_argument("--metrics", type=_metrics,
                        help="comma-separated metrics: " + "; ".join(
                            f"{name}: {METRICS[name].description}"
                            for name in AVAILABLE_METRICS).replace("%", "%%")
                        + " (default: auc)")
    parser.add_argument("--threshold", type=_finite_float, metavar="T",
                        help=f"threshold of {', '.join(_options_of(Threshold))}: "
                             + _help(Threshold, "threshold"))
    parser.add_argument("--out", metavar="OUT.csv",
                        help="write the metrics to this CSV (default: standard output); "
                             "replaced only when the run succeeds (or is interrupted); a "
                             "FIFO or device (/dev/stdout) is written in place; "
                             "while a live input (a FIFO, '-' from a pipe) is read, "
                             "the rows are in OUT.partial as they come")
    parser.add_argument("--every", type=_count, metavar="K",
                        help="write every K-th row only, and the last row (default: every row)")
    parser.add_argument("--label-col", help="label column (default: label)")
    parser.add_argument("--pos-label", metavar="VALUE", type=_pos_label,
                        help="the label of class 1, for labels other than 0/1 (e.g. spam); "
                             "the first other label read is class 0 and any third label is "
                             "an error. CSV: labels and VALUE are compared as numbers when "
                             "both are numbers (1 matches 1.0), else as text (case-sensitive, "
                             "surrounding spaces ignored); .npz/parquet: VALUE is converted "
                             "to the label column's type (default: labels 0/1 or "
                             "true/false)")
    parser.add_argument("--score-col", help="score column (default: score)")
    parser.add_argument("--delimiter", type=_delimiter,
                        help="CSV delimiter (default: whichever of comma, semicolon and tab "
                             "makes a header with both columns)")
    parser.add_argument("--decimal-comma", action="store_true", default=None,
                        help="CSV scores are written with a decimal comma (0,75)")
    parser.add_argument("--encoding", type=_encoding,
                        help="text encoding of a CSV without a byte-order mark (default: utf-8)")
    parser.add_argument("--plot", metavar="OUT.png", type=_plot_path,
                        help="plot the metrics over time (matplotlib; .png, .pdf, .svg, ...)")
    _add_metric_option_flags(parser)
    _add_alert_flags(parser)
    parser.add_argument("--chunk-size", type=_chunk_size, default=65536, help=argparse.SUPPRESS)
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser


def _add_alert_flags(parser):
    """--alert and what goes with it: the point alerts, the alerts on evidence (a stated
    false-alarm rate, a drop from a reference) and --fail-on-alert."""
    parser.add_argument("--alert", type=_Alert, action="append", metavar="METRIC<VALUE",
                        help="write a line to stderr when a written metric crosses a limit "
                             "(METRIC<VALUE or METRIC>VALUE, e.g. 'auc<0.8'; the metric must "
                             "be in --metrics; repeatable), and another when it clears")
    parser.add_argument("--false-alarm-rate", type=_false_alarm_rate, metavar="R",
                        help="--alert 'auc<LIMIT' and --alert-drop fire on evidence only: "
                             "when the window's upper confidence bound (DeLong) is below the "
                             "limit, at a boundary such that a stream whose true AUC stays at "
                             "or above the limit raises on average at most R false alarms per "
                             "row, whatever --window and --every (not with --half-life)")
    parser.add_argument("--alert-drop", type=_drop, metavar="D",
                        help="with --false-alarm-rate: alert when the window's AUC is, with "
                             "evidence, more than D below the reference's AUC (the first N "
                             "rows, --reference-rows N, or the rows of --reference FILE)")
    parser.add_argument("--reference-rows", type=lambda text: _count(
                            text, name="--reference-rows"), metavar="N",
                        help="--alert-drop: the reference is the first N rows (not in the "
                             "window then)")
    parser.add_argument("--reference", metavar="FILE",
                        help="--alert-drop: the reference is the rows of FILE (read with the "
                             "same column options)")
    parser.add_argument("--fail-on-alert", action="store_true", default=None,
                        help="exit with code 3 if any alert fired (for cron and CI)")


def _add_metric_option_flags(parser):
    """The metric options' flags: H's written out, the table's (one per field name) and
    the former spellings, hidden."""
    parser.add_argument("--alpha", type=float, help="H: " + _help(HCost, "alpha"))
    parser.add_argument("--beta", type=float, help="H: " + _help(HCost, "beta"))
    parser.add_argument("--severity-ratio", metavar="SR",
                        help="H: " + _help(HCost, "severity_ratio"))
    parser.add_argument("--priors", metavar="P0,P1", help="H: " + _help(HCost, "priors"))
    parser.add_argument("--relative-error", type=_positive_float, metavar="E",
                        help="H: " + _help(HCost, "relative_error") + " (without it, H with "
                             "--priors or --severity-ratio prior is recomputed from the "
                             "window for each written row); " + _table_help("relative_error"))
    written = {"--relative-error"}  # (a flag of several classes: made once)
    for flag, dest, _, field in _TABLE_FLAGS:
        if flag not in written:
            written.add(flag)
            parser.add_argument(flag, dest=dest, type=_option_value,
                                metavar=field.metadata.get("metavar"), help=_table_help(dest))
    for flag, options, _ in _RENAMED_FLAGS:
        parser.add_argument(flag, dest=_renamed_dest(flag), help=argparse.SUPPRESS,
                            type=_positive_float if options is HCost else _option_value)


def _option_value(text):
    """A table flag's value: an integer, a finite number, a word, or a pair A,B of them
    (the options object checks it)."""
    values = []
    for part in text.split(","):
        part = part.strip()
        try:
            value = int(part)
        except ValueError:
            try:
                value = float(part)
            except ValueError:
                value = part
            else:
                if not math.isfinite(value):
                    raise argparse.ArgumentTypeError(f"{text!r} is not finite") from None
        values.append(value)
    return values[0] if len(values) == 1 else tuple(values)


def _check_option_flags(args, given):
    """Refuse a metric option's flag (among ``given``, the dests set on the command line)
    when no metric of ``--metrics`` has options of a class it sets; note each former flag
    used on standard error, and refuse it beside its new spelling."""
    asked = {METRICS[name].options for name in args.metrics}
    for flag, dest in dict.fromkeys((flag, dest) for flag, dest, _ in _OPTION_FLAGS):
        owners = [options for f, d, options in _OPTION_FLAGS if (f, d) == (flag, dest)]
        if dest in given and not asked.intersection(owners):
            metrics = [name for options in owners for name in _options_of(options)]
            raise _UsageError(f"{flag} goes with --metrics {' or '.join(metrics)}")
    for flag, options, name in _RENAMED_FLAGS:
        if _renamed_dest(flag) not in given:
            continue
        new = _flag_of(next(f for f in dataclasses.fields(options) if f.name == name))
        if name in given:
            raise _UsageError(f"give {new} only ({flag} is its former name), not both")
        if options not in asked:
            raise _UsageError(f"{flag} goes with --metrics {' or '.join(_options_of(options))}")
        _say(f"hmeasure-stream: warning: {flag} is deprecated and will be removed in the "
             f"next release; use {new}")


def _field_value(args, options, name):
    """The value the command line gives the field ``name`` of ``options``: its former
    flag's (``_RENAMED_FLAGS``), else its flag's (None: not given)."""
    for flag, owner, field in _RENAMED_FLAGS:
        if (owner, field) == (options, name) and getattr(args, _renamed_dest(flag)) is not None:
            return getattr(args, _renamed_dest(flag))
    return getattr(args, name)


def _table_options(args):
    """The options objects of the table's flags, for the metrics asked."""
    chosen = []
    for options in _TABLE_OPTIONS:
        flags = [(flag, field, _field_value(args, options, dest)) for flag, dest, owner, field
                 in _TABLE_FLAGS if owner is options]
        given = {field.name: value for _, field, value in flags if value is not None}
        asked = [name for name in args.metrics if METRICS[name].options is options]
        if not asked:
            continue
        for flag, field, value in flags:
            if value is None and field.default is dataclasses.MISSING:
                raise InputError(f"--metrics {asked[0]} needs {flag}")
        try:
            chosen.append(options(**given))
        except ValueError as error:
            shown = ", ".join(flag for flag, _, value in flags if value is not None)
            raise InputError(f"{shown}: {error}") from None
    return tuple(chosen)


def _help(options, name):
    """The help of a flag: that of the option's field in the metric table."""
    return next(f.metadata["help"] for f in dataclasses.fields(options) if f.name == name)


def _table_help(dest):
    """The help of the table's flag of the fields named ``dest``: each class's, after the
    metrics it serves."""
    return "; ".join(f"{', '.join(_options_of(options))}: {field.metadata['help']}"
                     for _, name, options, field in _TABLE_FLAGS if name == dest)


def _metric_options(args):
    """The options objects of the metric table, from the flags."""
    severity = args.severity_ratio
    if severity is not None and severity != "prior":
        try:
            severity = float(severity)
        except ValueError:
            raise InputError(
                f"--severity-ratio must be a number or 'prior', got {severity!r}"
            ) from None
    priors = args.priors
    if priors is not None:
        try:
            priors = tuple(float(p) for p in priors.split(","))
        except ValueError:
            raise InputError(f"--priors: priors must be a pair (pi0, pi1) of numbers, got "
                             f"{args.priors!r}") from None
    try:
        cost = HCost(alpha=args.alpha, beta=args.beta, severity_ratio=severity,
                     priors=priors,
                     relative_error=_field_value(args, HCost, "relative_error"))
    except ValueError as error:
        message = str(error)
        raise InputError(f"--priors: {message}" if message.startswith("priors") else message
                         ) from None
    return cost, Threshold(args.threshold), *_table_options(args)


# ----------------------------------------------------------------------------
# Output that never costs a file


class Terminated(BaseException):
    """SIGTERM (``kill``, ``docker stop``, systemd, a CI time-out), raised as Ctrl-C is."""


def _stop(signum):
    return KeyboardInterrupt() if signum == signal.SIGINT else Terminated()


class _Interrupts:
    """Ctrl-C (SIGINT) raises KeyboardInterrupt and SIGTERM :class:`Terminated`, except
    while a chunk's output is written.

    Inside :meth:`deferred` the signal waits for the end of the block, so the
    output always ends with a whole chunk.  Installed only in the main
    thread, and not for a signal that is ignored (SIGINT in a background job).
    """

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self._deferring = False
        self._pending = None
        self._previous = {}

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for signum in self._SIGNALS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *exc_info):
        for signum, previous in self._previous.items():
            if previous is None:  # a handler not set from Python: put the default back
                previous = (signal.default_int_handler if signum == signal.SIGINT
                            else signal.SIG_DFL)
            signal.signal(signum, previous)

    def _handle(self, signum, frame):
        if self._deferring:
            self._pending = self._pending or signum
        else:
            raise _stop(signum)

    @contextlib.contextmanager
    def deferred(self, reraise=True):
        self._deferring = True
        try:
            yield
        finally:
            self._deferring = False
        if self._pending is not None and reraise:
            signum, self._pending = self._pending, None
            raise _stop(signum)


def _same_file(first, second):
    try:
        return os.path.samefile(first, second)
    except OSError:
        return os.path.realpath(first) == os.path.realpath(second)


def _special(path, option):
    """Whether ``path`` names an existing file other than a regular one (a FIFO, a
    terminal, /dev/null, /dev/stdout): one written to in place, never replaced."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # a new file
    if stat.S_ISBLK(mode):
        raise InputError(f"{option} {path}: is a block device (a disk): give a file")
    return not stat.S_ISREG(mode)


def _check_target(path, option, others):
    """Refuse an output path that would overwrite an input or another output."""
    if os.path.isdir(path):
        raise InputError(f"{option} {path}: is a directory")
    directory = os.path.dirname(os.path.realpath(path))
    if not _special(path, option) and not os.path.isdir(directory):
        raise InputError(f"{option} {path}: directory {directory} does not exist")
    for other, what in others:
        if other is not None and _same_file(path, other):
            raise InputError(f"{option} {path} is {what}: it would be overwritten")


class _Target:
    """A file written under a temporary name in its directory, renamed when complete.

    ``partial``: the temporary name is ``OUT.partial`` (for a live input,
    whose output is followed as it comes), refused if it exists.  A special
    file (a FIFO, a device) is written to in place: ``temporary`` is its
    path, opened by the writer (``descriptor`` None), and nothing is renamed.
    """

    def __init__(self, path, option, partial=False):
        self.shown = f"{option} {path}"
        self.special = _special(path, option)
        if self.special:
            self.path = self.temporary = path
            self.descriptor = None
            return
        self.path = os.path.realpath(path)
        directory, name = os.path.split(self.path)
        if partial:
            temporary = f"{path}.partial"
            try:
                self.descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL,
                                          0o666)
            except FileExistsError:
                raise InputError(
                    f"{option} {path}: {temporary} exists (another run writing there, or "
                    "one that was killed): remove it") from None
            except OSError as error:
                raise InputError(f"{option} {path}: cannot write {temporary}: "
                                 f"{error.strerror}") from None
            self.temporary = temporary
            return
        for attempt in range(100):
            temporary = os.path.join(directory, f".{name}.{os.getpid()}.{attempt}.tmp")
            try:
                # Mode 0o666 less the umask, as for any new file.
                descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
                break
            except FileExistsError:
                continue
            except OSError as error:
                raise InputError(
                    f"{option} {path}: cannot write in {directory}: {error.strerror}"
                ) from None
        else:
            raise InputError(f"{option} {path}: cannot create a temporary file in {directory}")
        self.temporary = temporary
        self.descriptor = descriptor

    def commit(self):
        """Rename the complete file over the path; on a failure, remove it (_WriteError)."""
        if self.special:
            return
        try:
            with contextlib.suppress(FileNotFoundError):
                # Keep the permissions of the file replaced.
                os.chmod(self.temporary, stat.S_IMODE(os.stat(self.path).st_mode))
            os.replace(self.temporary, self.path)
        except OSError as error:
            self.discard()
            raise _WriteError.of(self.shown, error) from None

    def discard(self):
        if self.special:
            return
        with contextlib.suppress(OSError):
            os.unlink(self.temporary)


class _Output:
    """The metrics' CSV: ``--out`` through a temporary file, or standard output
    (a :class:`_Stream`).

    An ``--out`` that names standard output itself (``/dev/stdout``, or the
    file the shell redirected it to) is standard output: written as it is,
    appended to after ``>>``, never replaced.  Every write is whole or a
    :class:`_WriteError`; after any failure, the temporary file is removed.
    """

    def __init__(self, path, stdout, partial=False):
        self.target = self.descriptor = None
        if path is None or _is_stream(path, stdout):
            self.handle, self.name = stdout, "standard output"
            return
        self.target = _Target(path, "--out", partial)
        self.descriptor = self.target.descriptor
        self.name = path
        if self.descriptor is None:  # a special file, written in place (a FIFO waits)
            try:
                self.descriptor = os.open(path, os.O_WRONLY)
            except OSError as error:
                raise InputError(f"--out {path}: {error.strerror}") from None

    def write(self, text):
        if self.target is None:
            self.handle.write(text)
        else:
            _write_all(self.descriptor, text.encode("utf-8"), self.target.shown)

    def finish(self):
        """Complete the file (its last write that can fail); :meth:`commit` renames it."""
        if self.target is None or self.descriptor is None:
            return
        try:
            if not self.target.special:
                os.fsync(self.descriptor)
            descriptor, self.descriptor = self.descriptor, None
            os.close(descriptor)  # (where some file systems report a write that failed)
        except OSError as error:
            self.discard()
            raise _WriteError.of(self.target.shown, error) from None

    def commit(self):
        if self.target is None:
            return
        self.finish()
        self.target.commit()

    def discard(self):
        if self.target is None:
            return
        if self.descriptor is not None:
            with contextlib.suppress(OSError):
                os.close(self.descriptor)
            self.descriptor = None
        self.target.discard()


def _is_stream(path, stream):
    """Whether ``path`` is the file open as ``stream`` (a :class:`_Stream`; e.g.
    ``/dev/stdout``)."""
    if stream.descriptor is None:
        return False
    try:
        return os.path.samestat(os.stat(path), os.fstat(stream.descriptor))
    except OSError:
        return False


def _progress(source, enabled):
    """A tqdm bar on stderr: rows read, and the bytes of a regular file against its size."""
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    if source.position is None:
        return tqdm(unit=" rows", desc="hmeasure-stream", file=sys.stderr, leave=False)
    return tqdm(total=source.size, unit="B", unit_scale=True, unit_divisor=1024,
                desc="hmeasure-stream", file=sys.stderr, leave=False)


def _advance(progress, source, rows_read, rows):
    if source.position is None:
        progress.update(rows)
    else:
        progress.set_postfix_str(f"{rows_read} rows", refresh=False)
        progress.update(source.position - progress.n)


class _Times:
    """The rows' times (``--time-col``) as int64 nanoseconds since the epoch, checked.

    The first value decides how the column is read: seconds since the epoch
    when it is a number, ISO 8601 otherwise (with pandas when installed).
    Times must not go backwards, across chunks too.
    """

    def __init__(self, column, source):
        self.column = column
        self.source = source
        self.epoch = None
        self.last = None  # (nanoseconds, text, where) of the previous row

    def _bad(self, values, lines):
        for value, line in zip(values, lines, strict=True):
            try:
                self._convert([value])
            except (ValueError, TypeError, OverflowError):
                kind = "seconds since the epoch" if self.epoch else "an ISO 8601 time"
                problem = "is empty" if not str(value).strip() else f"is not {kind}"
                raise InputError(
                    f"{self.source.where(line)}: time {value!r} (--time-col "
                    f"{self.column}) {problem}") from None
        raise InputError(f"{self.source.path}: the times of column {self.column!r} "
                         "cannot be read")

    def _convert(self, values):
        array = np.asarray(values)
        if array.dtype.kind == "M":
            if np.isnat(array).any():
                raise ValueError("NaT")
            return array.astype("datetime64[ns]").astype(np.int64)
        if self.epoch:
            seconds = array.astype(np.float64)
            if not (np.isfinite(seconds).all() and (np.abs(seconds) < 9.2e9).all()):
                raise ValueError("out of range")
            return np.round(seconds * 1e9).astype(np.int64)
        try:
            import pandas
        except ImportError:  # pragma: no cover - pandas comes with the cli extra
            return self._convert(array.astype(str).astype("datetime64[ns]"))
        times = pandas.to_datetime(array.astype(str), utc=True, format="ISO8601")
        if times.isna().any():  # an empty cell, or "NaT"
            raise ValueError("NaT")
        return np.asarray(times.as_unit("ns").asi8, dtype=np.int64)

    def parse(self, values, lines):
        if len(values) == 0:
            return np.empty(0, dtype=np.int64)
        if self.epoch is None:
            first = values[0]
            if isinstance(first, (str, np.str_)):
                try:
                    float(first)
                    self.epoch = True
                except ValueError:
                    self.epoch = False
            else:
                self.epoch = np.asarray(values).dtype.kind in "biuf"
        try:
            times = self._convert(values)
        except (ValueError, TypeError, OverflowError):
            self._bad(values, lines)
        previous = np.concatenate(([self.last[0]], times[:-1])) if self.last else times[:-1]
        later = times if self.last else times[1:]
        back = np.flatnonzero(later < previous)
        if back.size:
            k = int(back[0]) + (0 if self.last else 1)
            before = self.last if k == 0 else (times[k - 1], values[k - 1],
                                               self.source.where(lines[k - 1]))
            raise InputError(
                f"{self.source.where(lines[k])}: time {_shown(values[k])} is before the time "
                f"of the row before it ({_shown(before[1])} at {before[2]}): times must not "
                "go backwards")
        self.last = (times[-1], values[-1], self.source.where(lines[-1]))
        return times


def _shown(value):
    return repr(str(value))


def _interrupted(rows, output, out, stop):
    """Keep the output of the rows read, if any; the one line that says so."""
    event = "interrupted" if isinstance(stop, KeyboardInterrupt) else "terminated (SIGTERM)"
    if rows == 0:
        if output is not None:
            output.discard()
        unchanged = f"; {out} is unchanged" if out is not None else ""
        return f"{event} before any row was read{unchanged}"
    output.commit()
    return f"{event} after {rows} rows; {output.name} holds the output for rows 0..{rows - 1}"


def _release(progress, plot_target):
    """Close the progress bar and remove the unfinished plot: every end of a run but its
    success does so."""
    if progress is not None:
        progress.close()
    if plot_target is not None:
        plot_target.discard()


def _copied_columns(args):
    """The input columns copied to the output rows: the time, the id, --keep-cols."""
    return list(dict.fromkeys(name for name in (args.time_col, args.id_col, *args.keep_cols)
                              if name is not None))


def _extra_columns(args, copied):
    """(column, option) of every input column read besides the labels and the scores:
    those ``copied`` to the output, the probabilities, the segments, the second scores."""
    options = {args.time_col: "--time-col", args.id_col: "--id-col",
               **{name: "--keep-cols" for name in args.keep_cols}}
    extra = [(name, options[name]) for name in copied]
    for name, option in ((args.prob_col, "--prob-col"), (args.by, "--by"),
                         (args.score2_col, "--score2-col")):
        if name is not None and name not in copied:
            extra.append((name, option))
    return extra


class _WrittenRows:
    """The rows a run writes: each written row's point alerts said, its line on the
    output (the header with the first rows, once they are checked: a bad first row
    leaves no header-only output), its values kept for the plot."""

    def __init__(self, args, monitor, copied, stderr):
        self.args, self.monitor, self.stderr, self.output = args, monitor, stderr, None
        self.kept_columns = ([] if args.by is None else [args.by]) + copied
        self.header = ",".join(["row", *self.kept_columns, *monitor.columns]) + "\n"
        self.plotted_rows, self.plotted = [], {name: [] for name in monitor.columns}

    def write(self, rows, values, chunk, first_row, chunk_times, evidence_lines=()):
        """Write ``rows`` (the stream's row numbers) of ``chunk`` with their ``values``,
        after the point alerts on them and the evidence alerts' lines."""
        args = self.args
        columns = [values[name] for name in self.monitor.columns]
        kept = [[chunk.extras[name][index] for index in (rows - first_row).tolist()]
                for name in self.kept_columns]
        keys = kept[0] if args.by is not None else None
        for alert in args.alert:
            for line in alert.check(rows, values[alert.metric], keys, args.by):
                self.stderr.write(line + "\n")
        for line in evidence_lines:
            self.stderr.write(line + "\n")
        self.output.write(self.header + csv_rows(rows, columns, kept))
        self.header = ""
        if args.plot is not None:
            self.plotted_rows.append(rows if chunk_times is None
                                     else chunk_times[rows - first_row])
            for name, column in zip(self.monitor.columns, columns, strict=True):
                self.plotted[name].append(column)


def run(args, stdout):
    stdout = stdout if isinstance(stdout, _Stream) else _Stream(stdout, "standard output")
    stderr = _Stream(sys.stderr, "standard error")
    if args.delayed:
        monitor = DelayedMonitor(args.window, args.metrics, args.every, _metric_options(args),
                                 args.half_life, args.unmatched_labels)
    else:
        monitor = Monitor(args.window, args.metrics, args.every, _metric_options(args),
                          args.half_life, args.min_periods, segmented=args.by is not None)
    args.delayed_columns = [name for name in (args.prob_col,) if name is not None]
    is_file = args.file != STDIN
    if args.out is not None:
        _check_target(args.out, "--out", [(args.file if is_file else None, "the input file")])
    if args.plot is not None:
        _check_target(args.plot, "--plot", [(args.file if is_file else None, "the input file"),
                                             (args.out, "the --out file")])
    copied = _copied_columns(args)
    args.extra_columns = _extra_columns(args, copied)
    evidence = _evidence_alerts(args)
    written = _WrittenRows(args, monitor, copied, stderr)
    committed, left = 0, None

    with _Interrupts() as interrupts:
        output = plot_target = progress = None
        try:
            with contextlib.closing(open_source(args.file, args)) as source:
                times = _Times(args.time_col, source) if args.time_col is not None else None
                output = written.output = _Output(args.out, stdout, partial=source.live)
                if args.plot is not None:
                    plot_target = _Target(args.plot, "--plot")
                    if plot_target.descriptor is not None:
                        os.close(plot_target.descriptor)
                progress = _progress(source, not args.no_progress and sys.stderr.isatty())
                largest_chunk, started = args.chunk_size, time.monotonic()
                if progress is not None:
                    args.chunk_size = min(largest_chunk, 1024)  # then paced
                for chunk in source.chunks():
                    first_row = monitor.rows
                    chunk_times = (None if times is None
                                   else times.parse(chunk.extras[args.time_col], chunk.lines)
                                   .view("datetime64[ns]"))
                    _check_probability_scores(args.metrics, chunk, source)
                    more = _delayed_rows(args, chunk, source)
                    if args.by is not None:
                        more = {"keys": _segment_keys(chunk, args.by, source)}
                    if args.score2_col is not None:
                        more["scores2"] = second_scores(chunk, args.score2_col, source,
                                                        args.decimal_comma)
                    try:
                        rows, values = monitor.process(chunk.labels, chunk.scores, chunk_times,
                                                       **more)
                    except ValueError as error:
                        raise InputError(f"{source.path}: {error}") from None
                    # Alerts and rows under one deferral: a Ctrl-C or SIGTERM lands
                    # between chunks, never inside an alert's line.
                    with interrupts.deferred():
                        evidence_lines = [line for alert in evidence for line in
                                          alert.check_rows(chunk.labels, chunk.scores,
                                                           chunk_times)]
                        written.write(rows, values, chunk, first_row, chunk_times,
                                      evidence_lines)
                        committed = monitor.rows
                    last = chunk, first_row, chunk_times
                    if progress is not None:
                        _advance(progress, source, monitor.rows, chunk.labels.shape[0])
                        # Chunks of about _PROGRESS_PACE seconds of work, so the bar moves.
                        now = time.monotonic()
                        per_row = (now - started) / max(chunk.labels.shape[0], 1)
                        args.chunk_size = int(min(largest_chunk, max(
                            1, _PROGRESS_PACE / max(per_row, 1e-9))))
                        started = now
            if progress is not None:
                progress.close()
            if monitor.rows == 0:
                raise InputError(f"{source.path}: no data rows")
            if monitor.rows % args.every:  # the last row, which --every K did not write
                with interrupts.deferred():
                    written.write(np.array([monitor.rows - 1]), monitor.last_values(), *last)
            if plot_target is not None:
                try:
                    _plot(plot_target.temporary, Path(args.plot).suffix.lstrip(".").lower(),
                          written.plotted_rows, written.plotted, args)
                except OSError as error:
                    raise _WriteError.of(plot_target.shown, error) from None
            output.finish()
            # The summary is written before anything is renamed: one that cannot be
            # written leaves every file as it was; a reader that left (a closed pipe)
            # still gets the complete output.
            summary = stderr if output.target is None else stdout
            try:
                summary.write(_summary(args, monitor) + "\n")
            except BrokenPipeError as error:
                left = error
            with interrupts.deferred(reraise=False):
                output.commit()
                if plot_target is not None:
                    plot_target.commit()
        except (KeyboardInterrupt, Terminated) as stop:
            with interrupts.deferred(reraise=False):
                _release(progress, plot_target)
                message = _interrupted(committed, output, args.out, stop)
            _say(f"hmeasure-stream: {message}")
            return _exit_status(stop)
        except BaseException:
            # Every failure: no temporary file left, whatever signal arrives meanwhile.
            with interrupts.deferred(reraise=False):
                _release(progress, plot_target)
                if output is not None:
                    output.discard()
            raise
    if left is not None:
        raise left
    if args.fail_on_alert and any(alert.fired for alert in [*args.alert, *evidence]):
        return 3
    return 0


def _segment_keys(chunk, column, source):
    """The chunk's segment keys (``--by``) as an array, or InputError naming the first row
    whose key is missing: an empty CSV field, a nan or None of an array."""
    values = chunk.extras[column]
    if isinstance(values, np.ndarray):
        keys = values
        if keys.dtype.kind == "f":
            missing = np.isnan(keys)
        elif keys.dtype.kind == "O":
            missing = np.array([key is None or key != key for key in keys.tolist()], dtype=bool)
        else:
            missing = np.zeros(keys.shape[0], dtype=bool)
    else:  # CSV text: the keys as written
        keys = np.array(values, dtype=str) if values else np.empty(0, dtype=str)
        missing = np.char.str_len(np.char.strip(keys)) == 0
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        raise InputError(f"{source.where(chunk.lines[row])}: the segment key (--by {column}) "
                         f"is missing ({_plain_key(values[row])}): every row needs one")
    return keys


def _plain_key(value):
    """A missing key as it reads: empty for CSV text, else its repr."""
    if isinstance(value, str) and not value.strip():
        return "empty"
    return repr(value.item() if isinstance(value, np.generic) else value)


def _check_probability_scores(metrics, chunk, source):
    """Refuse a score outside [0, 1] when a metric reads the scores as probabilities,
    naming its line (the window would name its position in the chunk)."""
    found = first_improbable(metrics, chunk.scores)
    if found is not None:
        name, row = found
        raise InputError(
            f"{source.where(chunk.lines[row])}: score {float(chunk.scores[row])!r} is not a "
            f"probability in [0, 1], which --metrics {name} reads the scores as")


def _delayed_rows(args, chunk, source):
    """What :meth:`DelayedMonitor.process` reads besides labels and scores (nothing
    without --delayed): the ids, the probabilities (--prob-col) and the lines."""
    if not args.delayed:
        return {}
    probs = None
    if args.prob_col is not None:
        predicted = chunk.labels < 0
        probs = np.full(chunk.labels.shape[0], np.nan)
        probs[predicted] = parse_scores(
            [text for text, is_prediction in zip(chunk.extras[args.prob_col], predicted,
                                                  strict=True) if is_prediction],
            chunk.lines[predicted].tolist(), source.path, args.decimal_comma)
    return {"keys": chunk.extras[args.id_col], "probs": probs, "lines": chunk.lines,
            "path": source.path}


def _exit_status(stop):
    """128 + the signal's number, as a shell reports a process the signal ended."""
    return 128 + (signal.SIGINT if isinstance(stop, KeyboardInterrupt) else signal.SIGTERM)


def _summary(args, monitor):
    if args.window is None:
        span = "every prefix"
    elif is_duration(args.window):
        span = f"window of {args.window} (by {args.time_col})"
    elif args.delayed:
        span = f"window of {args.window} predictions"
    elif args.window > monitor.rows:
        span = (f"window of {args.window} rows, longer than the stream "
                "(every value is over the prefix)")
    else:
        span = f"window of {args.window} rows"
    if args.half_life is not None:
        span += (f", half-life {args.half_life}" if is_duration(args.half_life)
                 else f", half-life {args.half_life:g} rows")
    if args.by is not None:
        count = len(monitor.tracker.segments())
        span += (f", by {args.by} ({count} segment{'' if count == 1 else 's'}; last: "
                 f"{args.by} {csv_field(monitor.last_key)})")
    final = [f"AUC {monitor.last_auc:.6f}"]
    if "h" in args.metrics:
        final.append(f"H {monitor.final_h():.6f}")
    counts = f"{monitor.class_counts[1]} of class 1"
    if args.delayed:
        tracker = monitor.tracker
        counts = (f"{monitor.rows - monitor.class_counts.sum()} predictions, "
                  f"{monitor.class_counts.sum()} labels ({counts}); {tracker.n_pending} of "
                  f"the window's {len(tracker)} predictions pending; {tracker.n_late_labels} "
                  "labels arrived after their prediction left the window, ignored; "
                  f"{tracker.n_unmatched_labels} labels matched no prediction (an id never "
                  "predicted, or gone more than a window), ignored")
        final.append(f"expected AUC {tracker.expected_auc:.6f}")
    return (f"hmeasure-stream: {monitor.rows} rows ({counts}), "
            f"{span}; last: {', '.join(final)}")


def _plot(path, image_format, rows, values, args):
    """Draw the written rows' metrics against their row numbers, or their times (UTC)
    with --time-col, titled with the window as given (rows, a duration, a half-life)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hmeasure_stream.plotting import plot_metrics

    timed = args.time_col is not None
    empty = np.empty(0, dtype="datetime64[ns]" if timed else np.int64)
    x = np.concatenate(rows) if rows else empty
    metrics = {name: np.concatenate(parts) if parts else np.empty(0)
               for name, parts in values.items()}
    described = {"window": args.window, "half_life": args.half_life}
    if args.delayed and args.window is not None and not is_duration(args.window):
        # A window of predictions (other rows hold labels): said here, not as rows.
        title = f"sliding window of {args.window} predictions"
        if args.half_life is not None:
            title += ", half-life " + (args.half_life if is_duration(args.half_life)
                                       else f"{args.half_life:g} predictions")
        described = {"title": title}
    ax = plot_metrics(metrics, rows=x, xlabel=f"{args.time_col} (UTC)" if timed else "row",
                      **described)
    ax.figure.savefig(path, dpi=120, format=image_format)
    plt.close(ax.figure)


def _complete(args):
    """Fill in the defaults; refuse FILE's options without FILE."""
    given = {name for name in (*_MONITOR_OPTIONS, *_FILE_OPTIONS)
             if getattr(args, name) is not None}
    if args.file is None:
        stray = [name for name in _FILE_OPTIONS if name in given]
        if stray:
            option = "--" + stray[0].replace("_", "-")
            raise _UsageError(f"{option} describes FILE, and no FILE was given")
    for name, value in _DEFAULTS.items():
        if getattr(args, name) is None:
            setattr(args, name, value)
    _check_option_flags(args, given)
    for option, value in (("--window", args.window), ("--half-life", args.half_life)):
        if is_duration(value) and args.time_col is None:
            raise _UsageError(f"{option} {value} is a duration: give the column of the rows' "
                              "times with --time-col")
    args.columns = (*args.metrics, *DELAYED_COLUMNS) if args.delayed else args.metrics
    if args.delayed:
        if args.id_col is None:
            raise _UsageError("--delayed needs --id-col, the column of the ids that tie "
                              "labels to their predictions")
        if args.min_periods != 1:
            raise _UsageError("--min-periods does not go with --delayed (n_pending and the "
                              "realized metrics' nan tell how many are labelled)")
        if "expected_auc" in args.metrics:
            raise _UsageError("--delayed writes expected_auc (of every prediction, the pending "
                              "ones by their probability) after the metrics: leave it out of "
                              "--metrics")
    else:
        for name in ("prob_col", "unmatched_labels"):
            if name in given:
                raise _UsageError(f"--{name.replace('_', '-')} goes with --delayed")
    if args.by is not None:
        if args.delayed:
            raise _UsageError("--by does not go with --delayed")
        if args.plot is not None:
            raise _UsageError("--by does not go with --plot (one line per segment would "
                              "mix): plot the output of one segment")
        if args.by == "row" or args.by in args.columns:
            raise _UsageError(f"--by {args.by}: the segment column is written under its "
                              "name, which would be that of an output column (row or a "
                              "metric)")
        if args.by in _copied_columns(args):
            raise _UsageError(f"--by {args.by} is written after row: leave it out of "
                              "--time-col, --id-col and --keep-cols")
    second = [name for name in args.metrics if name in SECOND_MODEL_METRICS]
    if second and args.score2_col is None:
        raise _UsageError(f"--metrics {','.join(second)} compare two models on the same rows: "
                          "give the column of the second model's scores with --score2-col")
    if args.score2_col is not None and not second:
        raise _UsageError(f"--score2-col {args.score2_col} is read by the metrics "
                          f"{', '.join(SECOND_MODEL_METRICS)} only: add one to --metrics")
    if second and args.delayed:
        raise _UsageError(f"--metrics {','.join(second)} (two models) do not go with --delayed")
    for name in _copied_columns(args):
        if name == "row" or name in args.columns:
            raise _UsageError(f"the copied column {name!r} would have the name of an output "
                              "column (row or a metric)")
    for alert in args.alert:
        if alert.metric in DELAYED_COLUMNS and not args.delayed:
            raise _UsageError(f"--alert {alert.text!r} watches {alert.metric!r}, which only "
                              "--delayed writes")
        if alert.metric not in args.columns:
            raise _UsageError(
                f"--alert {alert.text!r} watches {alert.metric!r}, which is not in --metrics "
                f"({','.join(args.metrics)}): add it there")
    _check_evidence_alerts(args)
    report = [name for name in args.metrics if name in _REPORT_METRICS]
    if report and (_field_value(args, HCost, "relative_error") is not None
                   or args.priors is not None or args.severity_ratio == "prior"):
        raise _UsageError(
            f"--metrics {','.join(report)} come from the exact hull, with the window's class "
            "proportions: they cannot be combined with --relative-error, --priors or "
            "--severity-ratio prior")
    return bool(given) or args.window is None


def _check_evidence_alerts(args):
    """--false-alarm-rate, --alert-drop and the reference: the rules of the alerts that
    fire on evidence (``args.evidence``: (rule, text) each), the point alerts they
    replace removed from ``args.alert``."""
    args.evidence = []
    drop_options = [f"--{name.replace('_', '-')}" for name in ("alert_drop", "reference_rows",
                                                               "reference")
                    if getattr(args, name) is not None]
    if args.false_alarm_rate is None:
        if drop_options:
            raise _UsageError(f"{drop_options[0]} goes with --false-alarm-rate (an alert on "
                              "evidence, at a stated rate of false alarms)")
        return
    for option, refused in (("--delayed", args.delayed), ("--by", args.by is not None)):
        if refused:
            raise _UsageError(f"--false-alarm-rate does not go with {option}")
    if args.window is None or args.half_life is not None:
        raise _UsageError("--false-alarm-rate needs a window (--window N rows or a duration, "
                          "without --half-life): its boundary is that of the window's rows")
    if not is_duration(args.window) and args.window < 2:
        raise _UsageError("--false-alarm-rate needs a window of at least 2 rows")
    for alert in args.alert:
        if (alert.metric, alert.operator) != ("auc", "<"):
            raise _UsageError(f"--false-alarm-rate applies to --alert 'auc<LIMIT' and "
                              f"--alert-drop; --alert {alert.text!r} is not one")
        try:
            rule = AlertRule(below=alert.limit, false_alarm_rate=args.false_alarm_rate)
        except ValueError as error:
            raise _UsageError(f"--alert {alert.text!r}: {error}") from None
        args.evidence.append((rule, alert.text))
    if args.alert_drop is not None:
        if (args.reference_rows is None) == (args.reference is None):
            raise _UsageError("--alert-drop needs one reference: --reference-rows N (the "
                              "first N rows) or --reference FILE")
        if args.reference_rows is not None and args.reference_rows < 4:
            raise _UsageError("--reference-rows must be at least 4")
        rule = AlertRule(drop=args.alert_drop, false_alarm_rate=args.false_alarm_rate,
                         reference_rows=args.reference_rows)
        where = (f"the first {args.reference_rows} rows" if args.reference is None
                 else f"{args.reference}")
        args.evidence.append((rule, f"auc dropped by more than {args.alert_drop:g} from "
                                    f"{where}"))
    elif drop_options:
        raise _UsageError(f"{drop_options[0]} goes with --alert-drop")
    if not args.evidence:
        raise _UsageError("--false-alarm-rate needs an alert: --alert 'auc<LIMIT' or "
                          "--alert-drop D")
    args.alert = []


def _evidence_alerts(args):
    """The alerts of ``args.evidence``, their reference read (an --alert-drop's
    --reference FILE, with the input's column options)."""
    alerts = []
    for rule, text in args.evidence:
        reference = None
        if rule.drop is not None and rule.reference_rows is None:
            with contextlib.closing(open_source(args.reference, args)) as source:
                chunks = [(chunk.labels, chunk.scores) for chunk in source.chunks()]
            labels = np.concatenate([labels for labels, _ in chunks] or [np.empty(0)])
            scores = np.concatenate([scores for _, scores in chunks] or [np.empty(0)])
            reference = (labels, scores)
        try:
            alerts.append(_EvidenceAlert(rule, text, args.window, args.every, reference))
        except ValueError as error:
            raise InputError(f"{args.reference}: the reference: {error}") from None
    return alerts


def main(argv=None, stdout=None):
    """:func:`hmeasure_stream.cli.main` but for ``--version`` alone."""
    stdout = _Stream(sys.stdout if stdout is None else stdout, "standard output")
    try:
        _release_startup_sigint()
        args = build_parser().parse_args(argv)
        monitor_embedded = _complete(args)
        if args.file is None and not monitor_embedded:
            from hmeasure_stream._demo import run_demo

            run_demo(window=args.window, out=stdout)
            return 0
        if args.file is None:
            embedded = resources.files("hmeasure_stream") / "data" / "default_stream.csv"
            with resources.as_file(embedded) as path:
                args.file = str(path)
                return run(args, stdout)
        return run(args, stdout)
    except (_UsageError, InputError, _WriteError) as error:
        _say(f"hmeasure-stream: error: {error}")
        return 2
    except KeyboardInterrupt as stop:  # while starting (e.g. importing) or the demo runs
        _say(INTERRUPTED)
        return _exit_status(stop)
    except BrokenPipeError:
        return quiet_broken_pipe()
    except OSError as error:
        _say(f"hmeasure-stream: error: {error}")
        return 2


__all__ = ["AVAILABLE_METRICS", "DELIMITERS", "Monitor", "build_parser", "run"]
