"""Segment-tree work and step time of BlockedAUCEngine on a random sliding window.

A maintainer's diagnostic (it reads the engine's private counters, so it is not an
asv benchmark): for each window size, fill the engine with random points, run
``--warmup`` steps of "add one random point, remove the oldest" to reach a steady
state, then report per update (an add or a remove) the segment-tree leaves changed
and the inner nodes recomputed (``_counters``: mean, and the most in one update), and
the median time per step of a
Python loop add + remove + auc, rounds interleaved between the engines compared.

Compare with another build of the engine (e.g. the one before gapped leaves,
compiled as a module ``_blocked_before`` in a directory)::

    python tools/bench_blocked_leaves.py --windows 10000 100000 1000000
    python tools/bench_blocked_leaves.py --before-dir /tmp/pma_before --time-windows 1000 1000000
"""

import argparse
import importlib
import statistics
import sys
import time

import numpy as np

from hmeasure_stream._engines._blocked import BlockedAUCEngine


def stream(window, steps, seed):
    rng = np.random.default_rng(seed)
    labels = (rng.random(window + steps) < 0.5).tolist()
    scores = rng.random(window + steps).tolist()
    return labels, scores


def filled(cls, labels, scores, window):
    engine = cls(1)
    engine.add_many(np.array(labels[:window], dtype=np.uint8), np.array(scores[:window]))
    return engine


def run(engine, labels, scores, window, start, steps):
    add, remove = engine.add, engine.remove
    for t in range(start, start + steps):
        add(labels[window + t], scores[window + t])
        remove(labels[t], scores[t])
        engine.auc  # noqa: B018 -- reading is part of the step


def counts(engines, window, warmup, measured, seed):
    labels, scores = stream(window, warmup + measured, seed)
    rows = []
    for name, cls in engines:
        engine = filled(cls, labels, scores, window)
        run(engine, labels, scores, window, 0, warmup)
        start_leaves, start_nodes = engine._counters()
        most_leaves = most_nodes = 0
        last_leaves, last_nodes = start_leaves, start_nodes
        for t in range(2 * warmup, 2 * (warmup + measured)):
            if t % 2 == 0:
                engine.add(labels[window + t // 2], scores[window + t // 2])
            else:
                engine.remove(labels[t // 2], scores[t // 2])
            leaves, nodes = engine._counters()
            most_leaves = max(most_leaves, leaves - last_leaves)
            most_nodes = max(most_nodes, nodes - last_nodes)
            last_leaves, last_nodes = leaves, nodes
        updates = 2 * measured
        rows.append((name, window, engine.n_blocks, engine.leaves,
                     (last_leaves - start_leaves) / updates, (last_nodes - start_nodes) / updates,
                     most_leaves, most_nodes))
    return rows


def times(engines, window, warmup, steps, rounds, seed):
    labels, scores = stream(window, warmup + steps * rounds, seed)
    states = [(name, filled(cls, labels, scores, window)) for name, cls in engines]
    for _, engine in states:
        run(engine, labels, scores, window, 0, warmup)
    per_step = {name: [] for name, _ in states}
    for r in range(rounds):
        for name, engine in states:
            start = time.perf_counter()
            run(engine, labels, scores, window, warmup + r * steps, steps)
            per_step[name].append((time.perf_counter() - start) / steps)
    return {name: statistics.median(values) for name, values in per_step.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, nargs="*", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--time-windows", type=int, nargs="*", default=[])
    parser.add_argument("--before-dir", help="directory holding a module _blocked_before")
    parser.add_argument("--warmup", type=int, default=200_000)
    parser.add_argument("--measured", type=int, default=200_000)
    parser.add_argument("--steps", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=9)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    engines = [("after", BlockedAUCEngine)]
    if args.before_dir:
        sys.path.insert(0, args.before_dir)
        engines.insert(0, ("before", importlib.import_module("_blocked_before").BlockedAUCEngine))
    for window in args.windows:
        for name, w, blocks, leaves, leaf_rate, node_rate, most_leaves, most_nodes in counts(
                engines, window, args.warmup, args.measured, args.seed):
            print(f"{name:6s} window {w:>8d}  blocks {blocks:6d}  leaves {leaves:7d}  "
                  f"per update: leaves changed {leaf_rate:8.4f} (max {most_leaves:6d})  "
                  f"nodes recomputed {node_rate:9.3f} (max {most_nodes:6d})", flush=True)
    for window in args.time_windows:
        medians = times(engines, window, min(args.warmup, 5 * window), args.steps, args.rounds,
                        args.seed)
        print(f"window {window:>8d}  median us per step (add+remove+auc): "
              + "  ".join(f"{name} {1e6 * value:.3f}" for name, value in medians.items()),
              flush=True)


if __name__ == "__main__":
    main()
