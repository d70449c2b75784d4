"""CPU time per step of a plain DynamicAUC at 10^6 points, for paired runs of two builds.

Run ``python asv_benchmarks/dynamic_step.py`` with each build's interpreter in turn,
pinned to one core (``taskset -c 1``); it prints nanoseconds per step on stderr.
"""
# The plain DynamicAUC step at 10^6 points: a count window of 10^6 filled, then 2 * 10^6
# more points, each an insertion and a removal (unit weights).
import sys
import time

import numpy as np

from hmeasure_stream import DynamicAUC

rng = np.random.default_rng(0)
n = 10**6
y = rng.integers(0, 2, 3 * n)
s = rng.normal(size=3 * n) + y
tracker = DynamicAUC(window=n)
tracker.add_many(y[:n], s[:n])
start = time.process_time()
for k in range(n, 3 * n, 10**5):
    tracker.add_many(y[k:k + 10**5], s[k:k + 10**5])
elapsed = time.process_time() - start
print(f"{elapsed / (2 * n) * 1e9:.1f} ns/step", file=sys.stderr)
