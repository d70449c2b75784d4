"""Time hmeasure_stream against its peers in one process and print the ratios.

The machine this runs on is shared and noisy, so every contender is timed in
interleaved rounds (one call each per round) and the median per contender is
reported; ratios are taken between medians measured side by side.

    python asv_benchmarks/ratios.py                 # 10^4, 10^5, 10^6 points
    python asv_benchmarks/ratios.py --sizes 1000000 --rounds 15

Needs the ``bench`` extra (scikit-learn, hmeasure).
"""

import argparse
import statistics
import time
import warnings

import numpy as np
from hmeasure import h_score
from sklearn.metrics import roc_auc_score

from hmeasure_stream import auc, h_measure

# (name, speed target on 10^6 points): "a / b <= x" means median(a) <= x * median(b).
TARGETS = [
    ("auc", "np.sort", 1.5),
    ("auc", "roc_auc_score", 1 / 4),
    ("h_measure", "hmeasure.h_score", 1 / 10),
]


def make_data(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    # Scores in [0, 1]: the hmeasure package refuses anything else.
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + y)))
    return y, s


def contenders(y, s):
    return {
        "np.sort": lambda: np.sort(s),
        "auc": lambda: auc(y, s),
        "roc_auc_score": lambda: roc_auc_score(y, s),
        "h_measure": lambda: h_measure(y, s),
        "hmeasure.h_score": lambda: h_score(y, s, severity_ratio=1.0),
    }


def time_interleaved(functions, rounds, slow_rounds):
    """Median seconds per function; the slowest peers get fewer rounds."""
    samples = {name: [] for name in functions}
    for function in functions.values():
        function()  # warm-up: imports, caches, first-call overheads
    for index in range(rounds):
        for name, function in functions.items():
            if index >= slow_rounds and name in ("roc_auc_score", "hmeasure.h_score"):
                continue
            start = time.perf_counter()
            function()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5, 10**6])
    parser.add_argument("--rounds", type=int, default=11, help="timed rounds per contender")
    parser.add_argument("--slow-rounds", type=int, default=5, help="rounds for slow peers")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)

    warnings.simplefilter("ignore")
    all_met = True
    for n in args.sizes:
        y, s = make_data(n, args.seed)
        # Same values: the comparison is about speed only.
        assert abs(auc(y, s) - roc_auc_score(y, s)) < 1e-12
        assert abs(h_measure(y, s) - h_score(y, s, severity_ratio=1.0)) < 1e-10
        medians = time_interleaved(contenders(y, s), args.rounds, args.slow_rounds)
        print(f"\nn = {n:,} (median of {args.rounds} rounds; peers {args.slow_rounds})")
        for name, seconds in medians.items():
            print(f"  {name:<18}{seconds * 1e3:10.2f} ms")
        print("  ratios:")
        print(f"    auc / np.sort              {medians['auc'] / medians['np.sort']:8.2f}")
        print(f"    roc_auc_score / auc        {medians['roc_auc_score'] / medians['auc']:8.2f}")
        print(
            f"    hmeasure.h_score / h_measure "
            f"{medians['hmeasure.h_score'] / medians['h_measure']:6.2f}"
        )
        if n == 10**6:
            print("  targets at 10^6 points:")
            for ours, peer, bound in TARGETS:
                ratio = medians[ours] / medians[peer]
                met = ratio <= bound
                all_met &= met
                print(
                    f"    {ours} / {peer} = {ratio:.3f} (target <= {bound:.3f}): "
                    f"{'met' if met else 'NOT MET'}"
                )
    return 0 if all_met else 1


if __name__ == "__main__":
    raise SystemExit(main())
