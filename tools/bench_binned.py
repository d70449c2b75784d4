"""Time binned_auc against single numpy passes over the same scores (medians).

Run: python tools/bench_binned.py [n] [bins]   (default 10**7 points, 1000 bins)
"""

import sys
import timeit

import numpy as np

from hmeasure_stream import binned_auc


def interleaved_medians(cases, repeat=11):
    """Median seconds of each case, the cases timed in turn (shared machine noise)."""
    times = {name: [] for name in cases}
    for _ in range(repeat):
        for name, func in cases.items():
            times[name].append(timeit.timeit(func, number=1))
    return {name: float(np.median(values)) for name, values in times.items()}


def main():
    n = int(float(sys.argv[1])) if len(sys.argv) > 1 else 10**7
    m = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n).astype(np.int8)
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) * 4 + 2 * y)))
    edges = np.linspace(0.0, 1.0, m + 1)
    index = np.minimum((s * m).astype(np.int64), m - 1)
    alpha = binned_auc(y, s, n_bins=m, transform="loglog").loglog_alpha
    cases = {
        "np.searchsorted(edges, s)": lambda: np.searchsorted(edges, s),
        "np.bincount(bin index)": lambda: np.bincount(index, minlength=m),
        "numpy: floor(m s) then bincount": lambda: np.bincount(
            np.minimum((s * m).astype(np.int64), m - 1), minlength=m
        ),
        "binned_auc linear": lambda: binned_auc(y, s, n_bins=m),
        "binned_auc loglog, alpha given": lambda: binned_auc(
            y, s, n_bins=m, transform="loglog", loglog_alpha=alpha
        ),
        "binned_auc loglog, alpha estimated": lambda: binned_auc(
            y, s, n_bins=m, transform="loglog"
        ),
    }
    print(f"n = {n}, bins = {m}; median of 11 interleaved runs")
    for name, seconds in interleaved_medians(cases).items():
        print(f"  {name:<36} {seconds * 1e3:8.1f} ms")


if __name__ == "__main__":
    main()
