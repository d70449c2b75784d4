"""Step time and work of BlockedHullEngine (the engine of DynamicH) on a sliding window.

A maintainer's diagnostic (it drives the private engine and reads its counters, so it is
not an asv benchmark).  Data as ``asv_benchmarks/ratios.py`` ``make_data``.  For each
window the engine is filled with the first ``window`` points; a step is the Python loop
"add the next point, remove the oldest, read H", checked against ``h_measure`` from
scratch before and after.  The median seconds per step over ``--rounds`` rounds of
``--steps`` steps is reported, with the load average.  Also per update (an add or a
remove): segment-tree leaves and inner nodes recomputed, hull edges copied and loss terms
computed; the root hull's vertices; and bytes per point::

    python tools/bench_blocked_hull.py --windows 20000 100000 1000000
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np

from hmeasure_stream._engines._blocked_hull import BlockedHullEngine
from hmeasure_stream.metrics import h_measure


def make_data(n, seed):
    # As asv_benchmarks/ratios.py make_data.
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y)))
    return y, s


def run_steps(engine, labels, scores, start, window, steps):
    add, remove = engine.add, engine.remove
    began = time.perf_counter()
    for index in range(start, start + steps):
        add(labels[index + window], scores[index + window])
        remove(labels[index], scores[index])
        engine.h  # noqa: B018 (the read is timed)
    return (time.perf_counter() - began) / steps


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, nargs="+", default=[20_000, 100_000, 1_000_000])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for window in args.windows:
        total = window + args.steps * (args.rounds + 1)
        y, s = make_data(total, args.seed)
        labels, scores = [bool(v) for v in y.tolist()], s.tolist()
        engine = BlockedHullEngine(capacity=window)
        engine.add_many(y[:window].astype(np.uint8), s[:window])
        assert abs(engine.h - h_measure(y[:window], s[:window])) < 1e-12
        start = 0
        run_steps(engine, labels, scores, start, window, args.steps)  # warm-up round
        samples, counters = [], []
        for _ in range(args.rounds):
            start += args.steps
            before = engine._counters()
            samples.append(run_steps(engine, labels, scores, start, window, args.steps))
            counters.append([(b - a) / (2 * args.steps)
                             for a, b in zip(before, engine._counters(), strict=True)])
        end = start + args.steps
        assert abs(engine.h - h_measure(y[end:end + window], s[end:end + window])) < 1e-12
        work = np.median(np.array(counters), axis=0)
        print(f"window {window}: load {os.getloadavg()[0]:.2f}; per step (add+remove+h) "
              f"median {statistics.median(samples) * 1e6:.2f} us")
        print(f"  per update: leaves {work[0]:.2f}, inner nodes {work[1]:.2f}, "
              f"edges copied {work[2]:.1f}, loss terms {work[3]:.2f}; "
              f"root hull {len(engine.hull_vertices()[0])} vertices, leaves {engine.leaves}")
        print(f"  bytes per point: {engine.nbytes / window:.1f} "
              f"(hulls {engine.hull_nbytes / window:.1f})")
        sys.stdout.flush()

if __name__ == "__main__":
    main()
