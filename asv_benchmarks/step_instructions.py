"""Instructions a step of the engines executes, counted by cachegrind, for one or two installs.

Each case feeds a structure S more points after a warm-up; the count a step
is the difference of the instructions of a run with S steps and one with
none (``valgrind --tool=cachegrind --cache-sim=no``), so imports and set-up
cancel out.  Counts do not depend on the machine's load, which makes them the
comparison of two commits on a shared machine (wall times there spread by a
third).  One BLAS thread, a fixed hash seed and no cyclic garbage collection
(whose passes over the script's own lists depend on what else was allocated)
keep the counts those of the steps.

    python asv_benchmarks/step_instructions.py                       # this Python
    python asv_benchmarks/step_instructions.py OLD/bin/python NEW/bin/python

Each Python must import ``hmeasure_stream`` from an install (run it from a
directory without the package's source tree), and valgrind must be on PATH.
"""

import os
import subprocess
import sys
import tempfile

CASE = r'''
import gc
import sys
import numpy as np
import hmeasure_stream as hs

gc.disable()  # (a collection traverses the lists below: counts of the script, not the step)

case, steps = sys.argv[1], int(sys.argv[2])
rng = np.random.default_rng(0)
warm = 10**5 if case == "window_1e5" else 10**4
n = warm + steps
y = rng.integers(0, 2, n).astype(bool)
s = rng.normal(size=n) + y
times = (1.7e9 + np.cumsum(rng.choice([0.0, 0.5, 1.0, 2.5], size=n))).tolist() if (
    case == "time") else None


def chunks(feed, size):
    for start in range(0, n, size):
        feed(y[start:start + size], s[start:start + size])


if case == "window_1e5":
    chunks(hs.DynamicAUC(window=10**5).add_many, 10**4)
elif case == "unbounded":
    chunks(hs.DynamicAUC().add_many, 5000)
elif case == "decay":
    chunks(hs.DynamicAUC(half_life=2000).add_many, 5000)
elif case in ("auc_h", "four_metrics"):
    metrics = ("auc", "h") if case == "auc_h" else ("auc", "ap", "auc_lo", "sens")
    chunks(hs.SlidingWindow(10**4, metrics).update, 5000)
else:  # one point at a time from Python, and a read
    options = {"count": {"window": 10**4}, "time": {"window": "10000s"},
               "half_life": {"half_life": 2000}}[case]
    tracker = hs.DynamicAUC(**options)
    labels, scores = y.tolist(), s.tolist()
    for i in range(n):
        tracker.add(labels[i], scores[i], **({"time": times[i]} if case == "time" else {}))
        if i >= warm:
            _ = tracker.auc
'''

# (case, steps)
CASES = [("window_1e5", 200_000), ("unbounded", 40_000), ("decay", 40_000),
         ("auc_h", 40_000), ("four_metrics", 4_000), ("count", 20_000), ("time", 20_000),
         ("half_life", 20_000)]


def instructions(python, script, case, steps):
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    done = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                           "--cachegrind-out-file=/dev/null", python, script, case,
                           str(steps)], capture_output=True, text=True, env=env, check=True)
    line = next(line for line in done.stderr.splitlines() if "I   refs" in line)
    return int(line.split(":")[1].replace(",", ""))


def main():
    pythons = sys.argv[1:] or [sys.executable]
    with tempfile.TemporaryDirectory() as directory:
        script = os.path.join(directory, "case.py")
        with open(script, "w") as handle:
            handle.write(CASE)
        print("instructions a step (cachegrind), " + " | ".join(pythons))
        for case, steps in CASES:
            counts = [(instructions(python, script, case, steps)
                       - instructions(python, script, case, 0)) // steps
                      for python in pythons]
            print(f"  {case:<14}" + "".join(f"{count:>12,}" for count in counts))


if __name__ == "__main__":
    main()
