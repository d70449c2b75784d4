"""Measure the false alarms and the detection delay of the alerts with a stated rate.

Binormal streams with an exactly known AUC: class 0 scores ~ N(0, 1), class 1
~ N(d, 1), AUC = Phi(d / sqrt(2)).  Each stream is in control at the limit
(AUC 0.80) for ``--rows`` rows, where every alarm is false; then the AUC drops
to 0.70 and the delay is the rows from the drop to the first alarm, over
``--replicates`` drops (each a copy of the monitor at the end of the in-control
rows, fed its own rows after the drop, for at most ``--drop-windows`` windows).

For each window and each ``every`` (rows between looks), the table gives the
boundary c, the false alarms of :class:`~hmeasure_stream.AlertMonitor`
(``AlertRule(below=0.80, false_alarm_rate=R)``) against the rate R allows
(R * rows), those of the point alert (on when the window's AUC < 0.80, a
false alarm each time it comes on) on the same stream, and the delays.  The
correlation of z between windows L rows apart is printed against
max(0, 1 - L / w), the derivation's model.

Then the drop rule, ``AlertRule(drop=0, reference_rows=N)``, on streams that
stay at 0.80 (its null at the boundary): the reference's error is shared by a
stream's looks, so its false alarms are counted over many streams, each with
its own reference.

Windows of time (``--time-windows 500 2000``, in seconds, rows arriving as a
Poisson process): the false alarms only, against the rate and the point alert.

Run: ``python tools/alert_simulation.py`` (a few minutes on two cores);
``--rows 10000000 --rates 1e-4`` for a longer run.
"""

from __future__ import annotations

import argparse
import copy
import math
import time

import numpy as np
from scipy.special import ndtri

from hmeasure_stream import AlertMonitor, AlertRule, SlidingWindow

LIMIT, DROPPED = 0.80, 0.70
CHUNK = 1 << 17


def separation(auc):
    """d of the binormal stream of AUC ``auc``: Phi(d / sqrt(2)) = auc."""
    return math.sqrt(2) * float(ndtri(auc))


def stream(rng, n, auc, share):
    """n rows of the binormal stream of AUC ``auc`` (a share ``share`` of class 1)."""
    y = (rng.random(n) < share).astype(np.int8)
    return y, rng.normal(size=n) + y * separation(auc)


def chunks(seed, n, auc, share):
    rng = np.random.default_rng(seed)
    for start in range(0, n, CHUNK):
        yield stream(rng, min(CHUNK, n - start), auc, share)


def point_alarms(aucs, every, offset=0):
    """The times the point alert comes on at the looks (rows r with (r + 1) % every == 0)."""
    rows = offset + np.arange(aucs.shape[0])
    look = aucs[((rows + 1) % every == 0) & ~np.isnan(aucs)]
    on = look < LIMIT
    return int(np.count_nonzero(on[1:] & ~on[:-1]) + (on[0] if on.size else 0))


def lag_correlations(window, n, share, seed):
    """The correlation of z = (AUC - limit) / se between windows L rows apart."""
    sliding = SlidingWindow(window, metrics=("auc", "auc_var"))
    parts = []
    for y, s in chunks(seed, n, LIMIT, share):
        values = sliding.update(y, s)
        parts.append((values["auc"] - LIMIT) / np.sqrt(values["auc_var"]))
    z = np.concatenate(parts)[window:]
    return {lag: float(np.corrcoef(z[:-lag], z[lag:])[0, 1])
            for lag in (max(1, window // 10), window // 2, window)}


def delays(monitor, window, replicates, drop_windows, share, seed):
    """Rows from the drop to the first look with the alarm on, of each replicate (None:
    none within ``drop_windows`` windows).  A replicate is the monitor fed two more
    windows of its own in-control rows, then the rows after the drop."""
    found = []
    every = monitor.every
    for replicate in range(replicates):
        copied = copy.deepcopy(monitor)
        rng = np.random.default_rng([seed, replicate])
        copied.update(*stream(rng, 2 * window, LIMIT, share))
        start, delay = copied.n_rows, None
        first_look = start + (-(start + 1)) % every  # first r >= start, (r + 1) % every == 0
        on = copied.in_alarm
        n = drop_windows * window
        for begin in range(0, n, CHUNK):
            for event in copied.update(*stream(rng, min(CHUNK, n - begin), DROPPED, share)):
                if on and event.row > first_look:  # on at the first look after the drop
                    delay = first_look - start + 1
                elif event.kind == "fired":
                    delay = event.row - start + 1
                on = event.kind == "fired"
                if delay is not None:
                    break
            if delay is None and on:
                delay = first_look - start + 1
            if delay is not None:
                break
        found.append(delay)
    return found


def run(args):
    print(f"binormal streams, class 1 share {args.share}: AUC {LIMIT} for {args.rows} rows "
          f"(d = {separation(LIMIT):.4f}), then {DROPPED} (d = {separation(DROPPED):.4f})")
    for window in args.windows:
        print(f"window {window}: corr(z_t, z_t+L) vs max(0, 1 - L/w): " + ", ".join(
            f"L={lag}: {value:.3f} vs {max(0.0, 1 - lag / window):.3f}"
            for lag, value in lag_correlations(window, min(args.rows, 400 * window),
                                               args.share, args.seed + 1).items()))
    header = (f"{'R':>7} {'window':>6} {'every':>5} {'c':>5} {'alarms':>6} {'se':>5} {'R*rows':>7} "
              f"{'per row':>9} {'point':>6} {'point/row':>9} {'delay rows':>10} "
              f"{'windows (median, 90%)':>21} {'missed':>6}")
    print(header)
    for rate in args.rates:
        for window in args.windows:
            sliding = SlidingWindow(window, metrics=("auc",))
            aucs = np.concatenate([sliding.update(y, s)["auc"]
                                   for y, s in chunks(args.seed, args.rows, LIMIT, args.share)])
            for every in args.every:
                monitor = AlertMonitor(AlertRule(below=LIMIT, false_alarm_rate=rate), window,
                                       every)
                fired = []
                for y, s in chunks(args.seed, args.rows, LIMIT, args.share):
                    fired += [event.row for event in monitor.update(y, s)
                              if event.kind == "fired"]
                # The standard error of the count from its spread over 10 stretches of rows
                # (the alarms come in clusters: more than Poisson's).
                batches = np.bincount(np.array(fired, dtype=int) * 10 // args.rows,
                                      minlength=10)
                spread = float(np.std(batches, ddof=1) * math.sqrt(10))
                found = delays(monitor, window, args.replicates, args.drop_windows, args.share,
                               args.seed + 2)
                caught = np.array([d for d in found if d is not None], dtype=float)
                median = np.median(caught) if caught.size else math.nan
                p90 = np.quantile(caught, 0.9) if caught.size else math.nan
                point = point_alarms(aucs, every)
                print(f"{rate:7.0e} {window:6d} {every:5d} {monitor.boundary:5.2f} "
                      f"{monitor.n_fired:6d} {spread:5.0f} {rate * args.rows:7.1f} "
                      f"{monitor.n_fired / args.rows:9.2e} {point:6d} "
                      f"{point / args.rows:9.2e} {median:10.0f} "
                      f"{median / window:10.2f} {p90 / window:10.2f} "
                      f"{found.count(None):6d}", flush=True)


def timed_chunks(seed, n, auc, share, gap):
    """The chunks of ``chunks`` with the rows' times: arrivals of a Poisson process of
    ``gap`` seconds between rows on average (datetime64[ns])."""
    clock = np.random.default_rng([seed, 1])
    start = np.datetime64("2026-01-01T00:00:00", "ns")
    elapsed = 0.0
    for y, s in chunks(seed, n, auc, share):
        seconds = elapsed + np.cumsum(clock.exponential(gap, y.shape[0]))
        elapsed = float(seconds[-1])
        yield y, s, start + (seconds * 1e9).astype("timedelta64[ns]")


def time_run(args):
    """False alarms of ``AlertRule(below=0.80)`` over windows of time (``--time-windows``
    seconds, a row every second on average: the rows a window holds vary), and the point
    alert's, on streams at 0.80."""
    print(f"windows of time: a row every {args.gap:g} s on average (Poisson arrivals), "
          f"{args.rows} rows at AUC {LIMIT}")
    print(f"{'R':>7} {'window':>8} {'every':>5} {'alarms':>6} {'se':>5} {'R*rows':>7} "
          f"{'per row':>9} {'point':>6} {'point/row':>9}")
    for rate in args.rates:
        for seconds in args.time_windows:
            window = f"{seconds}s"
            sliding = SlidingWindow(window, metrics=("auc",))
            aucs = np.concatenate([sliding.update(y, s, times=t)["auc"] for y, s, t
                                   in timed_chunks(args.seed, args.rows, LIMIT, args.share,
                                                   args.gap)])
            for every in args.every:
                monitor = AlertMonitor(AlertRule(below=LIMIT, false_alarm_rate=rate), window,
                                       every)
                fired = []
                for y, s, t in timed_chunks(args.seed, args.rows, LIMIT, args.share, args.gap):
                    fired += [event.row for event in monitor.update(y, s, times=t)
                              if event.kind == "fired"]
                batches = np.bincount(np.array(fired, dtype=int) * 10 // args.rows,
                                      minlength=10)
                spread = float(np.std(batches, ddof=1) * math.sqrt(10))
                point = point_alarms(aucs, every)
                print(f"{rate:7.0e} {window:>8} {every:5d} {monitor.n_fired:6d} {spread:5.0f} "
                      f"{rate * args.rows:7.1f} {monitor.n_fired / args.rows:9.2e} "
                      f"{point:6d} {point / args.rows:9.2e}", flush=True)


def reference_run(args):
    """False alarms of ``AlertRule(drop=0, reference_rows=N)`` on streams that stay at 0.80:
    the reference's error is shared by every look of a stream, so the rate is an average
    over many streams, each with its own reference."""
    print(f"drop from a reference of {args.reference_rows} rows (drop=0): "
          f"{args.reference_streams} streams of {args.reference_length} rows at AUC {LIMIT}")
    print(f"{'R':>7} {'window':>6} {'every':>5} {'alarms':>6} {'se':>5} {'R*rows':>7} "
          f"{'per row':>9} {'streams with one':>16}")
    for rate in args.rates:
        for window, every in ((2000, 10), (2000, 100)):
            counts = []
            for stream_number in range(args.reference_streams):
                rule = AlertRule(drop=0.0, false_alarm_rate=rate,
                                 reference_rows=args.reference_rows)
                monitor = AlertMonitor(rule, window, every)
                for y, s in chunks([args.seed + 3, stream_number],
                                   args.reference_rows + args.reference_length, LIMIT,
                                   args.share):
                    monitor.update(y, s)
                counts.append(monitor.n_fired)
            rows = args.reference_streams * args.reference_length
            total = sum(counts)
            spread = float(np.std(counts, ddof=1) * math.sqrt(len(counts)))
            print(f"{rate:7.0e} {window:6d} {every:5d} {total:6d} {spread:5.0f} "
                  f"{rate * rows:7.1f} {total / rows:9.2e} "
                  f"{np.count_nonzero(counts):16d}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**6, help="in-control rows per stream")
    parser.add_argument("--rates", type=float, nargs="+", default=[1e-4, 1e-5],
                        help="false alarms per row the rule allows")
    parser.add_argument("--windows", type=int, nargs="+", default=[500, 2000, 10**4])
    parser.add_argument("--every", type=int, nargs="+", default=[1, 10, 100, 1000])
    parser.add_argument("--replicates", type=int, default=20, help="drops per stream")
    parser.add_argument("--drop-windows", type=int, default=10,
                        help="windows of rows after a drop before it counts as missed")
    parser.add_argument("--share", type=float, default=0.5, help="share of class 1")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--reference-rows", type=int, default=10_000,
                        help="rows of the reference period of the drop rule")
    parser.add_argument("--reference-streams", type=int, default=50,
                        help="streams of the drop rule, each with its reference")
    parser.add_argument("--reference-length", type=int, default=200_000,
                        help="rows of each such stream after its reference")
    parser.add_argument("--time-windows", type=int, nargs="+", default=[],
                        help="windows of time, in seconds: only they are measured")
    parser.add_argument("--gap", type=float, default=1.0,
                        help="with --time-windows: mean seconds between rows")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    if args.time_windows:
        time_run(args)
    else:
        run(args)
        reference_run(args)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
