"""Time hmeasure_stream against its peers in one process and print the ratios.

The machine this runs on is shared and noisy, so every contender is timed in
interleaved rounds (one call each per round) and the median per contender is
reported; ratios are taken between medians measured side by side.

    python asv_benchmarks/ratios.py                        # everything
    python asv_benchmarks/ratios.py --part scratch --sizes 1000000 --rounds 15
    python asv_benchmarks/ratios.py --part sort --rounds 21
    python asv_benchmarks/ratios.py --part streaming
    python asv_benchmarks/ratios.py --part hull
    python asv_benchmarks/ratios.py --part report
    python asv_benchmarks/ratios.py --part partial --sizes 1000000
    python asv_benchmarks/ratios.py --part partial_stream
    python asv_benchmarks/ratios.py --part multiclass --sizes 1000000
    python asv_benchmarks/ratios.py --part approx_auc
    python asv_benchmarks/ratios.py --part dask --dask-sizes 10000000 30000000
    python asv_benchmarks/ratios.py --part windows
    python asv_benchmarks/ratios.py --part variance
    python asv_benchmarks/ratios.py --part labels
    python asv_benchmarks/ratios.py --part derived
    python asv_benchmarks/ratios.py --part operating
    python asv_benchmarks/ratios.py --part delayed
    python asv_benchmarks/ratios.py --part ap_stream
    python asv_benchmarks/ratios.py --part segments --rounds 5
    python asv_benchmarks/ratios.py --part times

Parts: ``scratch`` (auc, h_measure vs np.sort, scikit-learn, hmeasure),
``sort`` (the from-scratch functions that sort -- auc, h_measure, roc_curve,
average_precision -- against np.sort of the same scores, with the targets
auc / np.sort and h_measure / auc, average_precision / auc timed alone, and
brier_score against scikit-learn's brier_score_loss; then, in a child process
started with numpy's vectorised sort disabled, auc against numpy's scalar
sort, which the package's own sort must beat),
``streaming`` (DynamicAUC, sliding_window vs river's RollingROCAUC and MOA's
``WindowAUCImbalancedPerformanceEvaluator`` at windows 10^3 to 10^5, MOA in its own
JVM with the jar of CapyMOA's environment, ``MOA_PYTHON``, or ``MOA_JAR``; skipped
with a note when absent),
``hull`` (DynamicH vs the hmeasure package, ApproxH vs h_measure, and the
time and actual error of ApproxH against epsilon on the embedded real stream),
``partial`` (partial_auc and weighted_auc against auc and scikit-learn's
``max_fpr``, on distinct and on tied scores; then ``partial_stream``),
``partial_stream`` (``DynamicAUC.partial_auc`` read at 10^4 to 10^6 points,
random ranges of both foci and two-way, against ``partial_auc`` from scratch
on the same points), ``multiclass`` (multiclass_auc
against c calls of auc; a streaming one-vs-rest step against scikit-learn on
the window; also alone as ``multiclass_window``: SlidingWindow's
"multiclass_auc" per step against the binary window), ``binned`` (binned_auc
against one searchsorted pass,
BinnedAUC's step from 10^3 to 10^6 bins), ``approx_auc`` (the table of
Section 6 of Tatti's "Efficient estimation of AUC in a sliding window":
ApproxAUC's actual error and time per step against epsilon, next to the
exact treap, the Fenwick ``sliding_window`` and the from-scratch AUC of each
window, on the embedded real stream and on a larger real stream) and ``dask``
(not in ``all``: minutes, and gigabytes per worker): ``hmeasure_stream.dask.auc``
and ``.h_measure`` on a LocalCluster of 2 single-threaded worker processes, rows
generated on the workers, against ``auc`` / ``h_measure`` on the same rows in
this process, with each worker's peak memory.  ``variance`` (DeLong's variance
maintained by DynamicAUC): an update with and without the variance (unit and
other weights), reads of ``auc_variance`` from 10^4 to 10^6 points, the memory.
``derived`` (DynamicAUC's derived reads on its sorted blocks): the step add +
remove + ``auc`` plain, with ``variance=True``, after one ``partial_auc`` read and
after one ``auc_variance`` read, at 10^4 to 10^6 points, and the first derived
read's time at 10^6.  ``operating`` (``DynamicAUC.coords`` at a threshold, a
specificity and a sensitivity from 10^4 to 10^6 points, and ``coords`` from scratch).
``delayed`` (``DelayedAUC``: per predict, label and ``results()`` with a window of
10^4 and 10^6 predictions; ``expected_auc`` per chunk of 10^4 and 10^5 points, from
scratch and streaming, against NannyML's CBPE per chunk, timed in a child process of
NannyML's own environment, ``NANNYML_PYTHON``, skipped with a note when absent).
``ap_stream`` (the average precision on streams): ``DynamicAUC.average_precision``
within epsilon = 0.01 read at 10^4 to 10^6 points (its growth) next to the exact
read, then the window metrics ``"ap"`` and ``"ap_approx"`` per step of
``SlidingWindow`` against river's ``RollingPRAUC`` at windows 10^3 and 10^5.
``segments`` (``by=``): 10^6 rows over 10^4 segments (windows of 1000 points, the
AUC) against one window over the same rows, fed in one call and in chunks of 65536
rows (as the command line reads them), ``sliding_window(..., by=)`` against
``sliding_window``, with the target segments / one window <= 3; and the bytes of 10^4
segments of three points in windows of 10^4.
``times`` (times given as text): ``sliding_window(y, s, "1h", times=...)`` over 10^5
rows with ISO 8601 text (a pandas column of object and of ``string[pyarrow]`` dtype, a
list) against the same instants as a datetime64 column, target text / datetime64 <= 3.
Needs the ``bench`` extra (scikit-learn, hmeasure, river).
"""

import argparse
import itertools
import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np
from hmeasure import h_score
from sklearn.metrics import brier_score_loss, roc_auc_score

from hmeasure_stream import (
    APApprox,
    ApproxAUC,
    ApproxH,
    BinnedAUC,
    Classes,
    Compression,
    DynamicAUC,
    DynamicH,
    DynamicMulticlassAUC,
    SlidingWindow,
    auc,
    average_precision,
    binned_auc,
    brier_score,
    coords,
    h_measure,
    hmeasure_report,
    multiclass_auc,
    partial_auc,
    roc_curve,
    sliding_window,
    weighted_auc,
)
from hmeasure_stream._validation import stable_order
from hmeasure_stream.datasets import load_default_stream

# (name, speed target on 10^6 points): "a / b <= x" means median(a) <= x * median(b).
TARGETS = [
    ("auc", "np.sort", 1.3),
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
    neg, pos = s[y == 0], s[y == 1]
    return {
        "np.sort": lambda: np.sort(s),
        # The sorts inside auc: each class's scores, copied and sorted in place.
        "class sorts": lambda: (neg.copy().sort(), pos.copy().sort()),
        "auc": lambda: auc(y, s),
        "roc_auc_score": lambda: roc_auc_score(y, s),
        "h_measure": lambda: h_measure(y, s),
        "hmeasure.h_score": lambda: h_score(y, s, severity_ratio=1.0),
    }


def time_interleaved(functions, rounds, slow_rounds, warm_up=True):
    """Median seconds per function; the slowest peers get fewer rounds."""
    samples = {name: [] for name in functions}
    for function in functions.values() if warm_up else ():
        function()  # warm-up: imports, caches, first-call overheads
    for index in range(rounds):
        for name, function in functions.items():
            if index >= slow_rounds and (name in ("roc_auc_score", "hmeasure.h_score")
                                         or name.startswith("sklearn")):
                continue
            start = time.perf_counter()
            function()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def scratch_part(args):
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
        # auc against numpy sorting the two classes (auc radix-sorts classes of
        # 2**16 scores or more): negative when auc's sort is the faster.
        overhead = (medians["auc"] - medians["class sorts"]) * 1e3
        print(f"    auc - class sorts (numpy)  {overhead:8.2f} ms")
        print(f"    roc_auc_score / auc        {medians['roc_auc_score'] / medians['auc']:8.2f}")
        print(
            f"    hmeasure.h_score / h_measure "
            f"{medians['hmeasure.h_score'] / medians['h_measure']:6.2f}"
        )
        if n == 10**6:
            print("  targets at 10^6 points:")
            for ours, peer, bound in TARGETS:
                ratio = medians[ours] / medians[peer]
                all_met &= report_target(f"{ours} / {peer}", ratio, "<=", bound)
    return all_met


# Targets of the sort part at 10^6 points (issue 31, item 7).
SORT_TARGETS = [
    ("auc", "np.sort", 1.3),
    ("h_measure", "auc", 2.0),
]
# numpy's CPU features whose removal leaves it its scalar sort (numpy 2.x on x86-64):
# the package then sorts with its own radix sort, which must beat numpy's there.
SCALAR_NUMPY = {"NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR"}


def sort_contenders(y, s):
    return {
        "np.sort": lambda: np.sort(s),
        "auc": lambda: auc(y, s),
        "h_measure": lambda: h_measure(y, s),
        "roc_curve": lambda: roc_curve(y, s),
        "average_precision": lambda: average_precision(y, s),
    }


def brier_contenders(y, s):
    return {
        "brier_score": lambda: brier_score(y, s),
        "brier_score_loss": lambda: brier_score_loss(y, s),
    }


def stable_contenders(y, s):
    weights = np.full(s.shape[0], 0.5)
    return {
        "np.argsort stable": lambda: np.argsort(s, kind="stable"),
        "stable_order": lambda: stable_order(s),
        "auc weighted": lambda: auc(y, s, sample_weight=weights),
    }


def sort_part(args):
    """The from-scratch functions against np.sort of the same scores (and
    ``brier_score`` against scikit-learn's); with
    ``--scalar-numpy`` (a child process that numpy's vectorised sort is
    disabled in) ``auc`` against numpy's scalar sort only."""
    if args.scalar_numpy:
        y, s = make_data(10**6, args.seed)
        medians = time_interleaved({"np.sort": lambda: np.sort(s), "auc": lambda: auc(y, s)},
                                   args.rounds, args.rounds)
        print(f"  numpy's scalar sort: np.sort {medians['np.sort'] * 1e3:.2f} ms, "
              f"auc {medians['auc'] * 1e3:.2f} ms")
        return report_target("auc / scalar np.sort at 10^6 (the package's own sort)",
                             medians["auc"] / medians["np.sort"], "<=", 1.0)
    print("\nsort: the from-scratch functions against np.sort of the same scores")
    all_met = True
    for n in args.sizes:
        y, s = make_data(n, args.seed)
        medians = time_interleaved(sort_contenders(y, s), args.rounds, args.rounds)
        print(f"\nn = {n:,} (median of {args.rounds} interleaved rounds)")
        for name, seconds in medians.items():
            print(f"  {name:<22}{seconds * 1e3:10.2f} ms")
        print("  ratios:")
        for ours, peer in [("auc", "np.sort"), ("h_measure", "auc"),
                           ("roc_curve", "auc"), ("average_precision", "auc")]:
            print(f"    {ours + ' / ' + peer:<44}{medians[ours] / medians[peer]:8.2f}")
        # The stable order of the weighted paths (``stable_order``: the radix argsort)
        # against numpy's stable argsort, and the weighted AUC it serves.
        stable = time_interleaved(stable_contenders(y, s), args.rounds, args.rounds)
        for name, seconds in stable.items():
            print(f"  {name:<22}{seconds * 1e3:10.2f} ms")
        print(f"    {'stable_order / np.argsort stable':<44}"
              f"{stable['stable_order'] / stable['np.argsort stable']:8.2f}")
        if n == 10**6:
            print("  targets at 10^6 points:")
            for ours, peer, bound in SORT_TARGETS:
                all_met &= report_target(f"{ours} / {peer}", medians[ours] / medians[peer],
                                         "<=", bound)
            # The two alone, each after the other: in the table above average_precision
            # follows roc_curve, whose freed arrays its own buffers fault back in (some
            # 5 ms here), and auc follows np.sort.
            alone = sort_contenders(y, s)
            pair = time_interleaved({name: alone[name] for name in ("auc", "average_precision")},
                                    args.rounds, args.rounds)
            print(f"  auc {pair['auc'] * 1e3:.2f} ms and average_precision "
                  f"{pair['average_precision'] * 1e3:.2f} ms, interleaved alone")
            all_met &= report_target("average_precision / auc",
                                     pair["average_precision"] / pair["auc"], "<=", 1.5)
            # The Brier score against scikit-learn's on the same probabilities.
            assert abs(brier_score(y, s) - brier_score_loss(y, s)) < 1e-12
            brier = time_interleaved(brier_contenders(y, s), args.rounds, args.rounds)
            print(f"  brier_score {brier['brier_score'] * 1e3:.2f} ms and scikit-learn's "
                  f"brier_score_loss {brier['brier_score_loss'] * 1e3:.2f} ms, interleaved")
            all_met &= report_target("brier_score / brier_score_loss",
                                     brier["brier_score"] / brier["brier_score_loss"], "<=", 1.0)
    # Where numpy's sort is scalar the package chooses its radix sort: measured in a
    # child process started with numpy's vectorised sort disabled.
    print("\nsort where numpy's sort is scalar (a child process, "
          f"{SCALAR_NUMPY['NPY_DISABLE_CPU_FEATURES']!r} disabled):")
    child = subprocess.run(
        [sys.executable, __file__, "--part", "sort", "--scalar-numpy",
         "--rounds", str(args.rounds), "--seed", str(args.seed)],
        env={**os.environ, **SCALAR_NUMPY}, capture_output=True, text=True, check=False)
    print(child.stdout.rstrip() or child.stderr.rstrip())
    return all_met and child.returncode == 0


def report_target(name, value, relation, bound):
    met = value <= bound if relation == "<=" else value >= bound
    print(f"    {name} = {value:.3f} (target {relation} {bound:g}): {'met' if met else 'NOT MET'}")
    return met


def river_step_seconds(window, steps, seed, name="RollingROCAUC"):
    """River's RollingROCAUC (or rolling metric ``name``): update + get per step, after
    filling the window."""
    from river import metrics

    y, s = make_data(window + steps, seed)
    labels, scores = y.astype(bool).tolist(), s.tolist()
    metric = getattr(metrics, name)(window_size=window)
    for i in range(window):
        metric.update(labels[i], scores[i])
    start = time.perf_counter()
    for i in range(window, window + steps):
        metric.update(labels[i], scores[i])
        metric.get()
    return (time.perf_counter() - start) / steps


# --- MOA's windowed AUC evaluator, beside river in part "streaming" ---------------

#: MOA runs on the JVM; its jar comes with CapyMOA, in an environment of its own
#: (not a dependency).  MOA_JAR names the jar directly, else MOA_PYTHON's capymoa has it.
MOA_PYTHON = os.environ.get("MOA_PYTHON", "/work/moa-venv/bin/python")

# A driver compiled with javac against MOA's jar: argv = data file (little-endian
# float64 pairs label, score), window, steps.  It fills the window, then times
# ``steps`` updates each followed by a read of the window's AUC, once to warm the
# JIT and once measured, on fresh estimators; prints seconds per step and the AUC
# read after the last step (to compare values with ours).
_MOA_DRIVER = """
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.DoubleBuffer;
import java.nio.file.Files;
import java.nio.file.Paths;
import moa.evaluation.WindowAUCImbalancedPerformanceEvaluator;

public class MoaWindowStep {
    public static void main(String[] args) throws Exception {
        DoubleBuffer data = ByteBuffer.wrap(Files.readAllBytes(Paths.get(args[0])))
            .order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer();
        int n = data.remaining() / 2;
        boolean[] positive = new boolean[n];
        double[] score = new double[n];
        for (int i = 0; i < n; i++) {
            positive[i] = data.get() == 1.0;
            score[i] = data.get();
        }
        int window = Integer.parseInt(args[1]);
        int steps = Integer.parseInt(args[2]);
        double[] last = new double[1];
        run(positive, score, window, steps, last);
        double seconds = run(positive, score, window, steps, last);
        System.out.println(seconds / steps + " " + Double.toString(last[0]));
    }

    static double run(boolean[] positive, double[] score, int window, int steps, double[] last) {
        var evaluator = new WindowAUCImbalancedPerformanceEvaluator();
        evaluator.widthOption.setValue(window);
        evaluator.reset(2);
        var estimator = evaluator.getAucEstimator();
        for (int i = 0; i < window; i++) {
            estimator.add(score[i], positive[i], (score[i] >= 0.5) == positive[i]);
        }
        double sink = 0.0;
        long start = System.nanoTime();
        for (int i = window; i < window + steps; i++) {
            estimator.add(score[i], positive[i], (score[i] >= 0.5) == positive[i]);
            sink += estimator.getAUC();
        }
        long stop = System.nanoTime();
        last[0] = estimator.getAUC();
        if (Double.isNaN(sink)) {
            System.err.println("no AUC");
        }
        return (stop - start) * 1e-9;
    }
}
"""


def _moa_jar():
    """(the path of MOA's jar, where it comes from), or None with a printed note saying
    why MOA is skipped."""
    jar, version = os.environ.get("MOA_JAR"), "MOA_JAR"
    if jar is None and os.path.exists(MOA_PYTHON):
        found = subprocess.run(
            [MOA_PYTHON, "-c", "import capymoa, pathlib; print(capymoa.__version__); "
             "print(pathlib.Path(capymoa.__file__).parent / 'jar' / 'moa.jar')"],
            capture_output=True, text=True, check=False)
        if found.returncode == 0:
            version, jar = found.stdout.split()
            version = f"capymoa {version}"
    missing = [tool for tool in ("java", "javac") if shutil.which(tool) is None]
    if jar is None or not os.path.exists(jar) or missing:
        why = f"no {' or '.join(missing)} on PATH" if missing else (
            f"no MOA jar: set MOA_JAR, or MOA_PYTHON to the python of an environment with "
            f"capymoa (tried {MOA_PYTHON})")
        print(f"  (MOA column skipped: {why})")
        return None
    return jar, version


#: Steps timed per window: MOA reads the AUC in O(W), so fewer at larger windows.
MOA_STEPS = {10**3: 20_000, 10**4: 3_000, 10**5: 300}


class MoaEvaluator:
    """MOA's ``WindowAUCImbalancedPerformanceEvaluator`` timed in its own JVM: the driver
    is compiled once into a temporary folder, each call runs one measured pass."""

    def __init__(self, jar, version, folder):
        self.jar, self.version, self.folder = jar, version, folder
        with open(os.path.join(folder, "MoaWindowStep.java"), "w") as source:
            source.write(_MOA_DRIVER)
        subprocess.run(["javac", "-cp", jar, "-d", folder,
                        os.path.join(folder, "MoaWindowStep.java")], check=True)

    def step(self, window, steps, seed):
        """(seconds per update + AUC read, the AUC after the last step)."""
        y, s = make_data(window + steps, seed)
        path = os.path.join(self.folder, f"rows-{window}-{steps}-{seed}.bin")
        if not os.path.exists(path):
            np.column_stack([y.astype("<f8"), s.astype("<f8")]).tofile(path)
        done = subprocess.run(
            ["java", "-Xss16m", "-cp", os.pathsep.join([self.jar, self.folder]),
             "MoaWindowStep", path, str(window), str(steps)],
            capture_output=True, text=True, check=True)
        seconds, last = done.stdout.split()
        return float(seconds), float(last)


def sliding_step_seconds(window, steps, seed):
    """sliding_window's compiled loop, per point of a stream of window + steps."""
    y, s = make_data(window + steps, seed)
    start = time.perf_counter()
    sliding_window(y, s, window)
    return (time.perf_counter() - start) / (window + steps)


def loop_step_seconds(window, steps, seed):
    """A Python loop of DynamicAUC.add + remove + .auc, per step."""
    y, s = make_data(window + steps, seed)
    labels, scores = y.tolist(), s.tolist()
    tracker = DynamicAUC()
    tracker.add_many(y[:window], s[:window])
    start = time.perf_counter()
    for i in range(window, window + steps):
        tracker.add(labels[i], scores[i])
        tracker.remove(labels[i - window], scores[i - window])
        _ = tracker.auc  # reading is part of the step
    return (time.perf_counter() - start) / steps


def structure_bytes_per_point(tracker, n, seed):
    y, s = make_data(n, seed)
    tracker.add_many(y, s)
    return tracker.nbytes / n


def median_of(function, rounds, *args):
    return statistics.median(function(*args) for _ in range(rounds))


def interleaved_rounds(measures, rounds):
    """Median per name of ``measures`` (callables returning seconds), each called once per
    round in turn, so that contenders compared in a ratio see the same moments of a shared
    machine (blocks of rounds one contender after another would not)."""
    samples = {name: [] for name in measures}
    for _ in range(rounds):
        for name, measure in measures.items():
            samples[name].append(measure())
    return {name: statistics.median(values) for name, values in samples.items()}


def streaming_part(args):
    rounds = max(5, args.rounds)
    print(f"\nstreaming AUC, per step (median of {rounds} interleaved rounds)")
    measures = {
        "river 10^3": lambda: river_step_seconds(10**3, 20_000, args.seed),
        "loop 10^3": lambda: loop_step_seconds(10**3, 50_000, args.seed),
        "loop 10^6": lambda: loop_step_seconds(10**6, 50_000, args.seed),
        "river 10^5": lambda: river_step_seconds(10**5, 300, args.seed),
    }
    for window in (10**3, 10**4, 10**5, 10**6):
        measures[f"sliding {window}"] = (
            lambda window=window: sliding_step_seconds(window, 10**6, args.seed))
    found = _moa_jar()
    with tempfile.TemporaryDirectory() as folder:
        moa = MoaEvaluator(*found, folder) if found is not None else None
        moa_last = {}
        for window, steps in MOA_STEPS.items():
            if moa is not None:
                def moa_measure(window=window, steps=steps):
                    seconds, moa_last[window] = moa.step(window, steps, args.seed)
                    return seconds
                measures[f"moa {window}"] = moa_measure
        medians = interleaved_rounds(measures, rounds)
    river_small, river_large = medians["river 10^3"], medians["river 10^5"]
    loop_small, loop_large = medians["loop 10^3"], medians["loop 10^6"]
    sliding = {w: medians[f"sliding {w}"] for w in (10**3, 10**4, 10**5, 10**6)}
    print(f"  river RollingROCAUC, window 10^3   {river_small * 1e6:10.3f} us")
    print(f"  river RollingROCAUC, window 10^5   {river_large * 1e6:10.3f} us")
    for window, seconds in sliding.items():
        print(f"  sliding_window, window {window:<9,} {seconds * 1e6:10.3f} us")
    print(f"  DynamicAUC Python loop, window 10^3 {loop_small * 1e6:9.3f} us")
    print(f"  DynamicAUC Python loop, window 10^6 {loop_large * 1e6:9.3f} us"
          f" (growth {loop_large / loop_small:.2f}x: sorted blocks)")
    if moa is not None:
        print(f"  MOA WindowAUCImbalancedPerformanceEvaluator ({moa.version}), update + AUC read:")
        for window, steps in MOA_STEPS.items():
            y, s = make_data(window + steps, args.seed)
            ours = float(sliding_window(y, s, window)["auc"][-1])
            print(f"    window {window:<9,} {medians[f'moa {window}'] * 1e6:10.3f} us "
                  f"= {medians[f'moa {window}'] / sliding[window]:9.1f}x sliding_window"
                  f"; last AUC MOA {moa_last[window]!r}, ours {ours!r}")
    bytes_per_point = structure_bytes_per_point(DynamicAUC(), 10**6, args.seed)
    print(f"  DynamicAUC memory at 10^6 points  {bytes_per_point:10.1f} bytes/point")
    print("  targets:")
    met = report_target("river / sliding_window at 10^5", river_large / sliding[10**5], ">=", 500)
    met &= report_target("river / sliding_window at 10^3", river_small / sliding[10**3], ">=", 5)
    met &= report_target("river / Python loop at 10^3", river_small / loop_small, ">=", 4)
    met &= report_target("Python loop growth 10^3 -> 10^6", loop_large / loop_small, "<=", 3)
    met &= report_target("step growth 10^3 -> 10^6", sliding[10**6] / sliding[10**3], "<=", 3)
    met &= report_target("bytes per point at 10^6", bytes_per_point, "<=", 64)
    return met


def loop_h_seconds(tracker, window, steps, seed):
    """A Python loop of add + remove + .h on a filled window, per step."""
    y, s = make_data(window + steps, seed)
    labels, scores = y.tolist(), s.tolist()
    tracker.add_many(y[:window], s[:window])
    start = time.perf_counter()
    for i in range(window, window + steps):
        tracker.add(labels[i], scores[i])
        tracker.remove(labels[i - window], scores[i - window])
        _ = tracker.h
    return (time.perf_counter() - start) / steps


def compiled_h_seconds(window, steps, seed):
    """SlidingWindow's compiled loop (metrics "h") per step, the window filled beforehand."""
    y, s = make_data(window + steps, seed)
    tracker = SlidingWindow(window, metrics="h")
    tracker.update(y[:window], s[:window])
    start = time.perf_counter()
    tracker.update(y[window:], s[window:])
    return (time.perf_counter() - start) / steps


def window_seconds(function, window, rounds, seed, data=None):
    """Median time of a from-scratch function on windows of a (random) stream."""
    y, s = make_data(window * 2, seed) if data is None else data
    times = []
    for index in range(rounds):
        offset = index * window // rounds
        start = time.perf_counter()
        function(y[offset:offset + window], s[offset:offset + window])
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def epsilon_table(epsilons, window):
    """Time per step and actual error of ApproxH against eps on the embedded stream."""
    y, s = load_default_stream()
    priors = (0.5, 0.5)
    exact = np.array([
        h_measure(y[max(0, i - window + 1):i + 1], s[max(0, i - window + 1):i + 1],
                  priors=priors)
        if 0 < y[max(0, i - window + 1):i + 1].sum() < min(i + 1, window) else np.nan
        for i in range(len(y))
    ])
    defined = ~np.isnan(exact)
    print(f"\nApproxH on the embedded stream ({len(y)} points, UCI digits, naive Bayes), "
          f"window {window}, priors {priors}")
    print("    epsilon   us/step   max |H'-H|/(1-H)   max |H'-H|   mean subset/hull")
    for epsilon in epsilons:
        tracker = ApproxH(epsilon, priors=priors)
        values, ratios = np.empty(len(y)), []
        start = time.perf_counter()
        for i in range(len(y)):
            tracker.add(int(y[i]), float(s[i]))
            if i >= window:
                tracker.remove(int(y[i - window]), float(s[i - window]))
            values[i] = tracker.h
        seconds = (time.perf_counter() - start) / len(y)
        for i in range(window, len(y), 25):
            info = tracker_info_at(y, s, i, window, epsilon, priors)
            ratios.append(info["subset_vertices"] / info["hull_vertices"])
        error = np.abs(values[defined] - exact[defined])
        relative = np.max(error / (1 - exact[defined]))
        assert relative <= epsilon + 1e-12
        print(f"    {epsilon:7.2f} {seconds * 1e6:9.2f} {relative:18.2e} {np.max(error):12.2e}"
              f" {np.mean(ratios):18.2f}")


def tracker_info_at(y, s, end, window, epsilon, priors):
    tracker = ApproxH(epsilon, priors=priors)
    tracker.add_many(y[end - window + 1:end + 1], s[end - window + 1:end + 1])
    return tracker.subset_info()


def hull_part(args):
    rounds = max(5, args.rounds)
    window = 10**5
    print(f"\nmaintained H-measure, per step = add + remove + read "
          f"(median of {rounds} interleaved rounds)")
    data = make_data(window * 2, args.seed)
    calls = itertools.count()

    def one_window(function):
        # Each round takes the next of ``rounds`` windows of the stream of 2 x 10^5 points.
        offset = next(calls) % rounds * window // rounds
        return _seconds(lambda: function(data[0][offset:offset + window],
                                         data[1][offset:offset + window]))

    measures = {
        "package": lambda: one_window(lambda y, s: h_score(y, s, severity_ratio=1.0)),
        "loop h": lambda: loop_h_seconds(DynamicH(), window, 20_000, args.seed),
        "scratch": lambda: one_window(lambda y, s: h_measure(y, s, priors=(0.3, 0.7))),
        "loop approx": lambda: loop_h_seconds(ApproxH(0.1, priors=(0.3, 0.7)), window, 20_000,
                                              args.seed),
    }
    for w in (2 * 10**4, 10**5, 10**6):
        measures[f"compiled {w}"] = lambda w=w: compiled_h_seconds(w, 20_000, args.seed)
    medians = interleaved_rounds(measures, rounds)
    package, scratch = medians["package"], medians["scratch"]
    loop_h, loop_approx = medians["loop h"], medians["loop approx"]
    compiled = {w: medians[f"compiled {w}"] for w in (2 * 10**4, 10**5, 10**6)}
    print(f"  hmeasure package, one window of 10^5  {package * 1e3:10.2f} ms")
    print(f"  h_measure (priors), window of 10^5    {scratch * 1e3:10.2f} ms")
    print(f"  DynamicH Python loop, window 10^5     {loop_h * 1e6:10.2f} us")
    print(f"  ApproxH(0.1) Python loop, window 10^5 {loop_approx * 1e6:10.2f} us")
    for w, seconds in compiled.items():
        print(f"  sliding_window h, window {w:<10,}  {seconds * 1e6:10.2f} us")
    bytes_per_point = structure_bytes_per_point(DynamicH(), 10**6, args.seed)
    print(f"  DynamicH memory at 10^6 points        {bytes_per_point:10.1f} bytes/point")
    print("  targets:")
    met = report_target("hmeasure package / DynamicH loop at 10^5", package / loop_h, ">=", 1e4)
    met &= report_target("step growth 2x10^4 -> 10^6", compiled[10**6] / compiled[2 * 10**4],
                         "<=", 4)
    met &= report_target("bytes per point at 10^6", bytes_per_point, "<=", 256)
    met &= report_target("h_measure / ApproxH(0.1) loop at 10^5", scratch / loop_approx, ">=",
                         100)
    epsilon_table((0.01, 0.1, 0.5, 1.0, 2.0), 300)
    return met


def report_read_seconds(tracker, reads):
    """Median seconds of one ``report()`` read, over batches of ``reads`` reads."""
    def batch():
        for _ in range(reads):
            tracker.report()
    return median_of(lambda: _seconds(batch), 7) / reads


def report_part(args):
    """DynamicH.report(): reads against hmeasure_report from scratch, and their growth."""
    print("\nDynamicH.report() read (median of 7 batches) vs hmeasure_report from scratch")
    reads, scratch = {}, {}
    for n in (10**4, 10**5, 10**6):
        y, s = make_data(n, args.seed)
        tracker = DynamicH()
        tracker.add_many(y, s)
        tracker.report()  # builds the lower hull once
        reads[n] = report_read_seconds(tracker, 2000)
        scratch[n] = median_of(lambda y=y, s=s: _seconds(lambda: hmeasure_report(y, s)),
                               max(3, args.slow_rounds))
        print(f"  n = {n:<9,} report() {reads[n] * 1e6:9.2f} us   "
              f"hmeasure_report {scratch[n] * 1e3:9.2f} ms   ratio {scratch[n] / reads[n]:10.0f}")
    window = 10**5
    plain = median_of(lambda: loop_h_seconds(DynamicH(), window, 20_000, args.seed), 3)
    def tracked():
        tracker = DynamicH()
        tracker.report()  # from now on the lower hull is maintained as well
        return tracker

    with_lower = median_of(lambda: loop_h_seconds(tracked(), window, 20_000, args.seed), 3)
    print(f"  DynamicH step (add + remove + h), window 10^5: {plain * 1e6:.2f} us; "
          f"with the report's lower hull {with_lower * 1e6:.2f} us")
    print("  targets:")
    met = report_target("hmeasure_report / report() at 10^6", scratch[10**6] / reads[10**6],
                        ">=", 1000)
    met &= report_target("report() growth 10^4 -> 10^6", reads[10**6] / reads[10**4], "<=", 4)
    return met


def partial_contenders(y, s, w):
    return {
        "auc": lambda: auc(y, s),
        "partial_auc()": lambda: partial_auc(y, s),
        "partial_auc fpr (0, 0.2)": lambda: partial_auc(y, s, fpr_range=(0, 0.2)),
        "partial_auc fpr (0.1, 0.9) mcclish": lambda: partial_auc(
            y, s, fpr_range=(0.1, 0.9), correction="mcclish"),
        "partial_auc tpr (0.8, 1)": lambda: partial_auc(y, s, tpr_range=(0.8, 1)),
        "partial_auc two-way": lambda: partial_auc(
            y, s, fpr_range=(0.05, 0.95), tpr_range=(0.2, 0.9)),
        "partial_auc fpr weighted": lambda: partial_auc(
            y, s, fpr_range=(0.1, 0.9), sample_weight=w),
        "weighted_auc sqrt": lambda: weighted_auc(y, s, np.sqrt),
        "sklearn max_fpr=0.2": lambda: roc_auc_score(y, s, max_fpr=0.2),
    }


def partial_part(args):
    """partial_auc within 1.5x of auc at 10^6 points, on distinct and on tied scores."""
    met = True
    for ties in (False, True):
        for n in args.sizes:
            rng = np.random.default_rng(args.seed)
            y = rng.integers(0, 2, n)
            s = rng.normal(size=n) + 0.7 * y
            if ties:
                s = np.round(s, 1)
            w = rng.exponential(size=n)
            contenders = partial_contenders(y, s, w)
            medians = time_interleaved(contenders, args.rounds, args.slow_rounds)
            base = medians["auc"]
            print(f"\npartial AUC, n = {n:,}, {'tied' if ties else 'distinct'} scores "
                  f"(median of {args.rounds} rounds)")
            for name, seconds in medians.items():
                print(f"  {name:36s} {seconds * 1e3:9.2f} ms   / auc {seconds / base:5.2f}")
            if n == 10**6:
                worst = max(value for name, value in medians.items()
                            if name.startswith("partial_auc") and "weighted" not in name)
                met &= report_target("slowest unweighted partial_auc / auc at 10^6",
                                     worst / base, "<=", 1.5)
    return met


def partial_options(index, low, high):
    """The arguments of read ``index``: fpr, tpr, two-way, McClish in turn."""
    return [{"fpr_range": (low, high)}, {"tpr_range": (low, high)},
            {"fpr_range": (low, high), "tpr_range": (low / 2, high)},
            {"fpr_range": (low, high), "correction": "mcclish"}][index % 4]


def partial_reads(tracker, ranges):
    """One read per range (``partial_options``' kinds in turn); seconds per read."""
    start = time.perf_counter()
    for index, (low, high) in enumerate(ranges):
        kind = index % 4
        if kind == 0:
            tracker.partial_auc(fpr_range=(low, high))
        elif kind == 1:
            tracker.partial_auc(tpr_range=(low, high))
        elif kind == 2:
            tracker.partial_auc(fpr_range=(low, high), tpr_range=(low / 2, high))
        else:
            tracker.partial_auc(fpr_range=(low, high), correction="mcclish")
    return (time.perf_counter() - start) / len(ranges)


def partial_stream_part(args):
    """DynamicAUC.partial_auc: >= 1000x faster than from scratch at 10^6, <= 3x growth."""
    sizes = sorted(set(args.sizes) | {10**4, 10**6})
    rng = np.random.default_rng(args.seed)
    bounds = np.sort(rng.random((400, 2)), axis=1)
    ranges = [(float(a), float(b)) for a, b in bounds if b > a]
    trackers, scratch = {}, {}
    for n in sizes:
        y = rng.integers(0, 2, n)
        s = rng.normal(size=n) + 0.7 * y
        tracker = DynamicAUC()
        tracker.add_many(y, s)
        for index, (low, high) in enumerate(ranges[:20]):  # the same values, each kind
            options = partial_options(index, low, high)
            assert tracker.partial_auc(**options) == partial_auc(y, s, **options), options
        trackers[n] = tracker
        scratch[n] = (y, s)
    # Interleaved rounds: every size's reads, then the from-scratch calls.
    reads = {n: [] for n in sizes}
    from_scratch = {n: [] for n in sizes}
    for _ in range(args.rounds):
        for n in sizes:
            reads[n].append(partial_reads(trackers[n], ranges))
        for n in sizes:
            y, s = scratch[n]
            start = time.perf_counter()
            partial_auc(y, s, fpr_range=(0.1, 0.4))
            from_scratch[n].append(time.perf_counter() - start)
    print(f"\nDynamicAUC.partial_auc read (random ranges, {len(ranges)} reads per round; "
          f"median of {args.rounds} rounds)")
    read = {n: statistics.median(values) for n, values in reads.items()}
    full = {n: statistics.median(values) for n, values in from_scratch.items()}
    for n in sizes:
        print(f"  n = {n:>9,}  read {read[n] * 1e6:8.2f} us   partial_auc from scratch "
              f"{full[n] * 1e3:9.2f} ms   ratio {full[n] / read[n]:10.0f}")
    print("  targets:")
    met = report_target("from scratch / read at 10^6", full[10**6] / read[10**6], ">=", 1000)
    met &= report_target("read growth 10^4 -> 10^6", read[10**6] / read[10**4], "<=", 3)
    return met


def multiclass_contenders(y, s, w, c):
    return {
        "c x auc": lambda: [auc(y == k, s[:, k]) for k in range(c)],
        "multiclass_auc ovr": lambda: multiclass_auc(y, s),
        "multiclass_auc ovo": lambda: multiclass_auc(y, s, method="ovo"),
        "multiclass_auc ovo weighted": lambda: multiclass_auc(
            y, s, method="ovo", sample_weight=w),
    }


def multiclass_part(args):
    """multiclass_auc (ovr and ovo, c = 5) within 1.5x of c calls of auc, at 10^6 points."""
    met = True
    c = 5
    for n in args.sizes:
        rng = np.random.default_rng(args.seed)
        y = rng.integers(0, c, n)
        s = np.asfortranarray(rng.dirichlet(np.ones(c), size=n) + 0.3 * np.eye(c)[y])
        w = rng.exponential(size=n)
        medians = time_interleaved(multiclass_contenders(y, s, w, c), args.rounds,
                                   args.slow_rounds)
        base = medians["c x auc"]
        print(f"\nmulti-class AUC, n = {n:,}, c = {c} (median of {args.rounds} rounds)")
        for name, seconds in medians.items():
            print(f"  {name:36s} {seconds * 1e3:9.2f} ms   / c x auc {seconds / base:5.2f}")
        if n == 10**6:
            for name in ("multiclass_auc ovr", "multiclass_auc ovo"):
                met &= report_target(f"{name} / c x auc at 10^6", medians[name] / base,
                                     "<=", 1.5)
    return met


def multiclass_stream_part(args):
    """A streaming one-vs-rest step (add + remove + read), window 10^5, 5 classes, against
    scikit-learn's roc_auc_score(multi_class="ovr") on the window."""
    window, classes, steps = 10**5, 5, 2000
    rng = np.random.default_rng(args.seed)
    y = rng.integers(0, classes, window + steps)
    logits = rng.normal(size=(window + steps, classes)) + 1.5 * np.eye(classes)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    tracker = DynamicMulticlassAUC(list(range(classes)))
    tracker.add_many(y[:window], p[:window])
    labels, rows = y.tolist(), list(p)
    start = time.perf_counter()
    for i in range(window, window + steps):
        tracker.add(labels[i], rows[i])
        tracker.remove(labels[i - window], rows[i - window])
        _ = tracker.auc
    step = (time.perf_counter() - start) / steps
    peer = window_seconds(lambda yy, pp: roc_auc_score(yy, pp, multi_class="ovr"), window,
                          5, args.seed, (y, p))
    print(f"\nmulti-class one-vs-rest, window 10^5, {classes} classes")
    print(f"  DynamicMulticlassAUC Python loop step   {step * 1e6:10.2f} us")
    print(f"  roc_auc_score(multi_class='ovr') window {peer * 1e3:10.2f} ms")
    print("  targets:")
    return report_target("roc_auc_score / streaming step", peer / step, ">=", 1000)


def multiclass_window_part(args):
    """SlidingWindow's "multiclass_auc" (ovr and ovo, c = 5, window 10^5) per step, in chunks
    of 1000 points, against the binary "auc" window on the same stream (a step of the ovr
    window is c binary steps, so the target is within 1.5 c of one binary step)."""
    window, classes, steps, chunk = 10**5, 5, 20_000, 1000
    rng = np.random.default_rng(args.seed)
    y = rng.integers(0, classes, window + steps)
    logits = rng.normal(size=(window + steps, classes)) + 1.5 * np.eye(classes)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    binary = (y == 0).astype(np.int64)
    filled = {}
    for name, options in (("auc", {}), ("ovr", {"method": "ovr"}), ("ovo", {"method": "ovo"})):
        if name == "auc":
            tracker = SlidingWindow(window)
            tracker.update(binary[:window], p[:window, 0])
        else:
            tracker = SlidingWindow(window, Classes(range(classes), **options))
            tracker.update(y[:window], p[:window])
        filled[name] = pickle.dumps(tracker)
    rounds = max(3, args.rounds // 2)
    times = {name: [] for name in filled}
    for round_index in range(rounds):
        start_step = window + (round_index % (steps // chunk)) * chunk
        part = slice(start_step, start_step + chunk)
        for name, state in filled.items():
            tracker = pickle.loads(state)
            begin = time.perf_counter()
            if name == "auc":
                tracker.update(binary[part], p[part, 0])
            else:
                tracker.update(y[part], p[part])
            times[name].append((time.perf_counter() - begin) / chunk)
    step = {name: statistics.median(values) for name, values in times.items()}
    print(f"\nSlidingWindow per step, window 10^5, chunks of {chunk}, {classes} classes "
          f"(median of {rounds} rounds)")
    print(f"  binary 'auc'                   {step['auc'] * 1e6:9.2f} us")
    print(f"  'multiclass_auc' ovr           {step['ovr'] * 1e6:9.2f} us "
          f"({step['ovr'] / step['auc']:.1f}x binary)")
    print(f"  'multiclass_auc' ovo           {step['ovo'] * 1e6:9.2f} us "
          f"({step['ovo'] / step['auc']:.1f}x binary)")
    print("  targets:")
    return report_target("ovr step / (c x binary step)", step["ovr"] / (classes * step["auc"]),
                         "<=", 1.5)


def binned_part(args):
    """binned_auc at 10^7 points against one searchsorted / bincount pass; BinnedAUC
    update + read from 10^3 to 10^6 bins."""
    n = 10**7
    rng = np.random.default_rng(args.seed)
    y = rng.integers(0, 2, n)
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 2 * y)))
    edges = np.linspace(0.0, 1.0, 1001)
    index = np.minimum((s * 1000).astype(np.int64), 999)
    medians = time_interleaved({
        "np.searchsorted": lambda: np.searchsorted(edges, s),
        "np.bincount": lambda: np.bincount(index, minlength=1000),
        "binned_auc linear": lambda: binned_auc(y, s, n_bins=1000),
        "binned_auc loglog": lambda: binned_auc(y, s, n_bins=1000, transform="loglog",
                                                loglog_alpha=0.2),
    }, max(3, args.rounds // 2), max(3, args.rounds // 2))
    print(f"\nbinned AUC, n = {n:,}, 1000 bins (median of {max(3, args.rounds // 2)} rounds)")
    for name, seconds in medians.items():
        print(f"  {name:22s} {seconds * 1e3:9.2f} ms")
    steps = {}
    for bins in (10**3, 10**4, 10**5, 10**6):
        tracker = BinnedAUC(bins)
        tracker.add_many(y[:10**5], s[:10**5])
        labels, scores = y[:3000].tolist(), s[:3000].tolist()

        def step(tracker=tracker, labels=labels, scores=scores):
            for label, score in zip(labels, scores, strict=True):
                tracker.add(label, score)
                tracker.remove(label, score)
                _ = tracker.auc

        steps[bins] = median_of(lambda function=step: _seconds(function), 5) / 3000
        print(f"  BinnedAUC add + remove + read, {bins:>9,} bins {steps[bins] * 1e6:8.2f} us")
    print("  targets:")
    met = report_target("binned_auc linear / np.searchsorted at 10^7",
                        medians["binned_auc linear"] / medians["np.searchsorted"], "<=", 1.5)
    met &= report_target("binned_auc loglog / np.searchsorted at 10^7",
                         medians["binned_auc loglog"] / medians["np.searchsorted"], "<=", 1.5)
    met &= report_target("BinnedAUC step growth 10^3 -> 10^6 bins",
                         steps[10**6] / steps[10**3], "<=", 3)
def digits_stream(seed):
    """A larger real stream: every one-vs-rest task of UCI digits, four classifiers.

    The digits (1797 images, as shipped with scikit-learn, no download) are
    scored out of fold (5-fold ``cross_val_predict``, ``predict_proba``) by
    Gaussian naive Bayes, a standardised logistic regression, 15 nearest
    neighbours and a random forest; the stream is, for each classifier and
    each digit d, the task "digit == d" with the probability of d as the
    score, the 1797 images in the dataset's order: 71 880 points, 10 % of
    class 1, many ties (neighbour votes, forest votes, saturated naive Bayes).
    """
    from sklearn.datasets import load_digits
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_val_predict
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    features, digits = load_digits(return_X_y=True)
    classifiers = [
        GaussianNB(),
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        KNeighborsClassifier(15),
        RandomForestClassifier(100, random_state=seed),
    ]
    labels, scores = [], []
    for classifier in classifiers:
        probabilities = cross_val_predict(classifier, features, digits, cv=5,
                                          method="predict_proba")
        for digit in range(10):
            labels.append((digits == digit).astype(np.int8))
            scores.append(probabilities[:, digit])
    return np.concatenate(labels), np.concatenate(scores)


def approx_errors(estimates, exact, relative_to):
    """Relative errors |auc' - auc| / auc (or / (1 - auc)) where defined and nonzero."""
    scale = exact if relative_to == "auc" else 1.0 - exact
    defined = ~np.isnan(exact) & (scale > 0)
    return np.abs(estimates[defined] - exact[defined]) / scale[defined]


def compressed_sizes(y, s, window, epsilon, relative_to):
    """|C| after every step of a Python loop (not timed)."""
    tracker = ApproxAUC(epsilon, relative_to=relative_to)
    labels, scores = y.tolist(), s.tolist()
    sizes = np.empty(len(labels))
    for i in range(len(labels)):
        tracker.add(labels[i], scores[i])
        if i >= window:
            tracker.remove(labels[i - window], scores[i - window])
        sizes[i] = tracker.compressed_size
    return sizes[window:] if len(labels) > window else sizes


def approx_table(name, y, s, window, epsilons, rounds):
    """The Section 6 table for one stream: error and time per step against epsilon."""
    n = len(y)
    contenders = {
        "treap (DynamicAUC's engine)": lambda: SlidingWindow(window, "auc").update(y, s),
        "Fenwick sliding_window": lambda: sliding_window(y, s, window),
    }
    for epsilon in epsilons:
        for relative_to in ("auc", "1-auc"):
            contenders[f"approx {epsilon:g} {relative_to}"] = (
                lambda e=epsilon, r=relative_to: SlidingWindow(
                    window, Compression(e, relative_to=r)).update(y, s))
    medians = time_interleaved(contenders, rounds, rounds)
    # The O(k) baseline of the paper: the AUC of a window from scratch.
    starts = np.linspace(0, max(n - window, 0), 25, dtype=int)
    scratch = statistics.median(
        _seconds(lambda a=a: auc(y[a:a + window], s[a:a + window])) for a in starts)
    exact = sliding_window(y, s, window)["auc"]
    print(f"\nApproxAUC on {name}: {n:,} points, window {window:,} "
          f"(time: median of {rounds} interleaved runs of the compiled loop, "
          "per step = add + remove + read)")
    print("  relative_to   epsilon  bound eps/2   mean rel err   max rel err   mean |C|"
          "   us/step   vs treap")
    met = True
    treap = medians["treap (DynamicAUC's engine)"] / n
    for relative_to in ("auc", "1-auc"):
        for epsilon in epsilons:
            estimates = SlidingWindow(
                window, Compression(epsilon, relative_to=relative_to)).update(y, s)["auc_approx"]
            errors = approx_errors(estimates, exact, relative_to)
            sizes = compressed_sizes(y, s, window, epsilon, relative_to)
            step = medians[f"approx {epsilon:g} {relative_to}"] / n
            print(f"  {relative_to:<12}{epsilon:8g}{epsilon / 2:13.3g}{errors.mean():15.2e}"
                  f"{errors.max():14.2e}{sizes.mean():11.1f}{step * 1e6:10.3f}"
                  f"{step / treap:10.1f}x")
            met &= errors.max() <= epsilon / 2 * (1 + 1e-9)
    fenwick = medians["Fenwick sliding_window"] / n
    print(f"  exact, treap of DynamicAUC (SlidingWindow 'auc')     {treap * 1e6:10.3f} us/step")
    print(f"  exact, Fenwick sliding_window (whole array known)    {fenwick * 1e6:10.3f} us/step")
    approx = medians[f"approx {epsilons[1]:g} auc"] / n
    print(f"  exact, auc() of one window from scratch, O(k log k)  {scratch * 1e6:10.3f} us"
          f" ({scratch / approx:.1f}x the step of epsilon {epsilons[1]:g})")
    return met


def _seconds(function):
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def approx_auc_part(args):
    """Tatti's Section 6 on real streams: actual error against the guarantee, time per step."""
    rounds = max(3, args.rounds // 3)
    epsilons = (0.01, 0.1, 0.5, 1.0)
    y, s = load_default_stream()
    # A pass over the short stream takes milliseconds: many more rounds.
    met = approx_table("the embedded stream (UCI digits >= 5, naive Bayes)", y, s, 1000,
                       epsilons, 10 * rounds)
    y, s = digits_stream(args.seed)
    for window in (1000, 10_000):
        met &= approx_table("digits one-vs-rest, 4 classifiers", y, s, window, epsilons,
                            rounds)
    print("  target:")
    return report_target("max error within the bound epsilon / 2 (1: yes)", float(met), ">=", 1)


def _worker_peak_bytes():
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def dask_part(args):
    """Exact AUC and H on a LocalCluster: time against one process, memory per worker."""
    import dask.array as da
    from dask.distributed import Client, LocalCluster, wait

    from hmeasure_stream import dask as hsd

    met = True
    for n in args.dask_sizes:
        # A fresh cluster for every size: a fresh peak memory per worker.
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          dashboard_address=":0", memory_limit=args.dask_memory) as cluster, \
                Client(cluster) as client:
            chunk = max(10**6, -(-n // 40))
            rng = da.random.default_rng(args.seed)
            y = rng.integers(0, 2, size=n, chunks=chunk, dtype=np.int8)
            s = rng.normal(size=n, chunks=chunk) + 0.7 * y
            y, s = client.persist([y, s])
            wait([y, s])
            y_local, s_local = y.compute(), s.compute()
            assert hsd.auc(y, s) == auc(y_local, s_local)
            assert abs(hsd.h_measure(y, s) - h_measure(y_local, s_local)) <= 1e-9
            # Interleaved: the cluster idles while this process computes, and back.
            functions = {
                "dask auc": lambda y=y, s=s: hsd.auc(y, s),
                "auc": lambda y=y_local, s=s_local: auc(y, s),
                "dask h_measure": lambda y=y, s=s: hsd.h_measure(y, s),
                "h_measure": lambda y=y_local, s=s_local: h_measure(y, s),
            }
            load = os.getloadavg()[0]
            # (the checks above were the warm-up)
            medians = time_interleaved(functions, args.dask_rounds, args.dask_rounds,
                                       warm_up=False)
            peaks = client.run(_worker_peak_bytes)
            del functions, y_local, s_local
            print(f"\ndask, n = {n:,} rows in {y.npartitions} partitions, 2 workers x 1 thread "
                  f"(median of {args.dask_rounds} rounds; load average {load:.1f} at start, "
                  f"{os.getloadavg()[0]:.1f} at end)")
            for name, seconds in medians.items():
                where = "cluster" if name.startswith("dask") else "1 process"
                print(f"  {name:16s} {seconds:8.2f} s   ({where}; "
                      f"{n / seconds / (2 if where == 'cluster' else 1) / 1e6:6.2f} M rows/s "
                      f"per {'worker' if where == 'cluster' else 'process'})")
            print("  peak memory per worker: "
                  + ", ".join(f"{value / 2**30:.2f} GiB" for value in peaks.values()))
            ratio = medians["dask auc"] / medians["auc"]
            met &= report_target("dask auc / in-memory auc", ratio, "<=", 2.0)
            met &= report_target("dask h_measure / in-memory auc",
                                 medians["dask h_measure"] / medians["auc"], "<=", 2.0)
            met &= report_target("peak worker memory (GiB)",
                                 max(peaks.values()) / 2**30, "<=", 3.0)
            del y, s
    return met


class _Feeder:
    """One Python-level step per call of ``step`` over a pre-generated stream (cycled):
    the structures keep their state from round to round, in their steady state."""

    def __init__(self, n, seed, period):
        rng = np.random.default_rng(seed)
        self.labels = rng.integers(0, 2, n).tolist()
        self.scores = rng.random(n).tolist()
        # Irregular times: on average ``period / 1000`` seconds apart, ties included.
        gaps = rng.choice([0.0, 0.5, 1.0, 2.5], size=n) * period / 1000
        self.times = (1.7e9 + np.cumsum(gaps)).tolist()
        self.n = n
        self.position = 0

    def chunk(self, steps):
        start = self.position
        self.position = (start + steps) % (self.n - steps)
        return range(start, start + steps)


def windows_part(args):
    """Windows and decay on the structures against the same loop with manual removals."""
    from collections import deque

    from hmeasure_stream import DynamicH

    steps, rounds = 5_000, max(7, args.rounds)
    window, period, half_life = 1000, 1000.0, 1000 / 60  # ~1000 points held by each
    print(f"\nwindows and decay on the structures, per step "
          f"(median of {rounds} interleaved rounds of {steps} steps)")
    met = True
    for name, make in (("DynamicAUC", DynamicAUC), ("DynamicH", DynamicH)):
        feeder = {key: _Feeder(200_000, args.seed, period) for key in
                  ("count", "manual count", "time", "manual time", "decay", "plain")}
        count, time_window = make(window=window), make(window=f"{int(period)}s")
        decay, plain = make(half_life=half_life), make()
        manual_count, manual_time, plain_queue = make(), make(), deque()
        count_queue, time_queue = deque(), deque()
        held_by_decay = int(60 * half_life)

        def structure_count(feed=feeder["count"], tracker=count):
            labels, scores = feed.labels, feed.scores
            for i in feed.chunk(steps):
                tracker.add(labels[i], scores[i])
                _ = tracker.auc

        def manual_count_loop(feed=feeder["manual count"], tracker=manual_count,
                              queue=count_queue):
            labels, scores = feed.labels, feed.scores
            for i in feed.chunk(steps):
                tracker.add(labels[i], scores[i])
                queue.append((labels[i], scores[i]))
                if len(queue) > window:
                    tracker.remove(*queue.popleft())
                _ = tracker.auc

        def structure_time(feed=feeder["time"], tracker=time_window):
            labels, scores, times = feed.labels, feed.scores, feed.times
            for i in feed.chunk(steps):
                tracker.add(labels[i], scores[i], time=times[i])
                _ = tracker.auc

        def manual_time_loop(feed=feeder["manual time"], tracker=manual_time,
                             queue=time_queue):
            labels, scores, times = feed.labels, feed.scores, feed.times
            for i in feed.chunk(steps):
                now = times[i]
                if now < (queue[-1][0] if queue else now):
                    raise ValueError("times go backwards")  # what the structure checks
                while queue and queue[0][0] <= now - period:
                    _, label, score = queue.popleft()
                    tracker.remove(label, score)
                tracker.add(labels[i], scores[i])
                queue.append((now, labels[i], scores[i]))
                _ = tracker.auc

        def structure_decay(feed=feeder["decay"], tracker=decay):
            labels, scores = feed.labels, feed.scores
            for i in feed.chunk(steps):
                tracker.add(labels[i], scores[i])
                _ = tracker.auc

        def plain_window(feed=feeder["plain"], tracker=plain, queue=plain_queue,
                         held_by_decay=held_by_decay):
            # The plain update: the same number of points held, unit weights.
            labels, scores = feed.labels, feed.scores
            for i in feed.chunk(steps):
                tracker.add(labels[i], scores[i])
                queue.append((labels[i], scores[i]))
                if len(queue) > held_by_decay:
                    tracker.remove(*queue.popleft())
                _ = tracker.auc

        functions = {"count window": structure_count, "manual count": manual_count_loop,
                     "time window": structure_time, "manual time": manual_time_loop,
                     "decay": structure_decay, "plain": plain_window}
        for function in functions.values():  # fill the windows
            for _ in range(3):
                function()
        medians = time_interleaved(functions, rounds, rounds)
        for key, seconds in medians.items():
            print(f"  {name} {key:<14} {seconds / steps * 1e6:8.3f} us")
        print(f"  {name} points held: count {len(count)}, time {len(time_window)}, "
              f"decay {len(decay)}, plain {len(plain)}")
        met &= report_target(f"{name} count window / manual removals",
                             medians["count window"] / medians["manual count"], "<=", 1.2)
        met &= report_target(f"{name} time window / manual removals",
                             medians["time window"] / medians["manual time"], "<=", 1.2)
        met &= report_target(f"{name} decay / plain update",
                             medians["decay"] / medians["plain"], "<=", 1.5)
    # Batches: add_many through a window against add_many + remove_many by hand.
    y, s = make_data(2_000_000, args.seed)
    batch = 10_000

    def windowed_batches():
        tracker = DynamicAUC(window=window)
        for start in range(0, y.shape[0], batch):
            tracker.add_many(y[start:start + batch], s[start:start + batch])

    def manual_batches():
        tracker = DynamicAUC()
        for start in range(0, y.shape[0], batch):
            tracker.add_many(y[start:start + batch], s[start:start + batch])
            low = max(0, start + batch - window)
            old = max(0, start - window)
            tracker.remove_many(y[old:low], s[old:low])

    def decayed_batches():
        tracker = DynamicAUC(half_life=half_life)
        for start in range(0, y.shape[0], batch):
            tracker.add_many(y[start:start + batch], s[start:start + batch])

    medians = time_interleaved({"windowed add_many": windowed_batches,
                                "manual add_many + remove_many": manual_batches,
                                "decayed add_many": decayed_batches}, max(3, rounds // 3), 3)
    for key, seconds in medians.items():
        print(f"  DynamicAUC {key:<30} {seconds / y.shape[0] * 1e9:8.1f} ns/point")
    met &= report_target("DynamicAUC windowed add_many / manual",
                         medians["windowed add_many"] / medians["manual add_many + remove_many"],
                         "<=", 1.2)
    return met


def fill_and_empty_seconds(variance, y, s, weights, order):
    """Seconds per update of a DynamicAUC filled with the points, then emptied (``order``)."""
    tracker = DynamicAUC(variance=variance)
    start = time.perf_counter()
    tracker.add_many(y, s, sample_weight=weights)
    tracker.remove_many(y[order], s[order],
                        sample_weight=None if weights is None else weights[order])
    return (time.perf_counter() - start) / (2 * y.shape[0])


def variance_part(args):
    """DeLong's variance maintained: the cost of an update with it, its reads' growth."""
    rounds = max(7, args.rounds)
    print(f"\nDeLong's variance maintained by DynamicAUC (median of {rounds} interleaved "
          "rounds of add_many + remove_many of every point)")
    met = True
    for n in (10**5, 10**6):
        y, s = make_data(n, args.seed)
        order = np.random.default_rng(args.seed).permutation(n)
        for weights in (None, np.random.default_rng(args.seed).uniform(0.5, 2.0, n)):
            samples = {False: [], True: []}
            for _ in range(rounds):
                for variance in samples:
                    samples[variance].append(
                        fill_and_empty_seconds(variance, y, s, weights, order))
            plain, tracked = (statistics.median(samples[v]) for v in (False, True))
            kind = "unit weights" if weights is None else "weights"
            print(f"  n = {n:<9,} {kind:<13} {plain * 1e9:8.1f} ns/update, with the variance "
                  f"{tracked * 1e9:8.1f} ns/update")
            bound = 1.3 if weights is None else 1.5
            met &= report_target(f"update with / without the variance, {kind}, n = {n:,}",
                                 tracked / plain, "<=", bound)
    reads = {}
    for n in (10**4, 10**5, 10**6):
        y, s = make_data(n, args.seed)
        tracker = DynamicAUC(variance=True)
        tracker.add_many(y, s)

        def read_batch(tracker=tracker):
            for _ in range(2000):
                _ = tracker.auc_variance

        reads[n] = median_of(lambda read_batch=read_batch: _seconds(read_batch), 7) / 2000
        print(f"  n = {n:<9,} auc_variance read {reads[n] * 1e9:8.1f} ns")
        if n == 10**6:
            print(f"  DynamicAUC(variance=True) memory at 10^6 points {tracker.nbytes / n:6.1f} "
                  "bytes/point")
    met &= report_target("auc_variance read growth 10^4 -> 10^6", reads[10**6] / reads[10**4],
                         "<=", 4)
    return met


def derived_steps(tracker, labels, scores, first, steps):
    """Steps ``first .. first + steps - 1`` of a sliding stream on ``tracker`` (which holds
    the ``n`` points before ``first``): add point i, remove point i - n, read ``auc``;
    seconds per step."""
    n = len(tracker)
    start = time.perf_counter()
    for i in range(first, first + steps):
        tracker.add(labels[i], scores[i])
        tracker.remove(labels[i - n], scores[i - n])
        _ = tracker.auc
    return (time.perf_counter() - start) / steps


def derived_part(args):
    """DynamicAUC's derived reads on its sorted blocks: what a step costs once they started."""
    rounds, steps = max(7, args.rounds), 3000
    print(f"\nDynamicAUC step add + remove + auc (median of {rounds} interleaved rounds of "
          f"{steps} steps), plain and once the derived reads started")
    kinds = {
        "plain": lambda tracker: None,
        "variance=True": None,
        "after partial_auc": lambda tracker: tracker.partial_auc(fpr_range=(0.1, 0.4)),
        "after auc_variance": lambda tracker: tracker.auc_variance,
    }
    step = {}
    for n in (10**4, 10**5, 10**6):
        y, s = make_data(n + rounds * steps, args.seed)
        labels, scores = y.tolist(), s.tolist()
        trackers = {}
        for kind, start in kinds.items():
            tracker = DynamicAUC(variance=start is None)
            tracker.add_many(y[:n], s[:n])
            if start is not None:
                start(tracker)
            trackers[kind] = tracker
        samples = {kind: [] for kind in kinds}
        for index in range(rounds):
            for kind, tracker in trackers.items():
                samples[kind].append(
                    derived_steps(tracker, labels, scores, n + index * steps, steps))
        for kind in kinds:
            step[n, kind] = statistics.median(samples[kind])
        print(f"  n = {n:<9,} " + "  ".join(
            f"{kind} {step[n, kind] * 1e6:6.3f} us" for kind in kinds))
    n = 10**6
    y, s = make_data(n, args.seed)
    first = {"partial_auc": [], "auc_variance": []}
    cpu = {kind: [] for kind in first}
    for _ in range(3):
        for kind in first:
            tracker = DynamicAUC()
            tracker.add_many(y, s)
            start, start_cpu = time.perf_counter(), time.process_time()
            if kind == "partial_auc":
                tracker.partial_auc(fpr_range=(0.1, 0.4))
            else:
                _ = tracker.auc_variance
            first[kind].append(time.perf_counter() - start)
            cpu[kind].append(time.process_time() - start_cpu)
    first = {kind: statistics.median(values) for kind, values in first.items()}
    for kind, seconds in first.items():
        # (CPU time too: on a shared machine the wall time includes waiting for a core.)
        print(f"  first {kind} read at 10^6 points {seconds * 1e3:8.2f} ms "
              f"(CPU {statistics.median(cpu[kind]) * 1e3:.2f} ms)")
    print("  targets:")
    met = True
    for kind in ("variance=True", "after partial_auc", "after auc_variance"):
        met &= report_target(f"step {kind} / plain at 10^6", step[n, kind] / step[n, "plain"],
                             "<=", 1.3)
        met &= report_target(f"step {kind} growth 10^4 -> 10^6",
                             step[n, kind] / step[10**4, kind], "<=", 3)
    for kind, seconds in first.items():
        met &= report_target(f"first {kind} read at 10^6 (ms)", seconds * 1e3, "<=", 10)
    # One engine and one ring for every metric read from the score order.
    window = 10**6
    y, s = make_data(2 * window, args.seed)
    held = {}
    for metrics in (("auc",), ("auc", "h", "auch", "auc_var", "ks", "mer")):
        monitor = SlidingWindow(window, metrics)
        monitor.update(y, s)
        held[metrics] = monitor.nbytes
        print(f"  SlidingWindow({window:,}, {metrics}) holds {monitor.nbytes / 2**20:6.2f} MiB")
    met &= report_target("SlidingWindow of 10^6 with six metrics / AUC only (memory)",
                         held[("auc", "h", "auch", "auc_var", "ks", "mer")] / held[("auc",)],
                         "<=", 1.6)
    return met


def labels_part(args):
    """pos_label on the single-point path, and the river adapter against river's own metric."""
    from river import metrics

    from hmeasure_stream.river import ROCAUC

    n, window = 200_000, 1000
    y, s = make_data(n, args.seed)
    ints, strings = y.tolist(), np.where(y == 1, "pos", "neg").tolist()
    scores, flags = s.tolist(), y.astype(bool).tolist()

    def add_loop(labels, **options):
        def run():
            add = DynamicAUC(**options).add
            for label, score in zip(labels, scores, strict=True):
                add(label, score)
        return run

    def metric_loop(metric):
        def run():
            fresh = metric()
            update, get = fresh.update, fresh.get
            for label, score in zip(flags[:50_000], scores[:50_000], strict=True):
                update(label, score)
                get()
        return run

    seconds = time_interleaved({
        "ints": add_loop(ints), "strings": add_loop(strings, pos_label="pos"),
        "ours": metric_loop(lambda: ROCAUC(window=window)),
        "river": metric_loop(lambda: metrics.RollingROCAUC(window_size=window)),
    }, args.rounds, args.rounds)
    print(f"\nlabels: DynamicAUC.add loop of {n:,} points (median of {args.rounds} interleaved)")
    print(f"  labels 0/1 (no pos_label)        {seconds['ints'] / n * 1e9:8.1f} ns/add")
    print(f"  strings with pos_label=\"pos\"     {seconds['strings'] / n * 1e9:8.1f} ns/add")
    print(f"river metrics, update + get per step, window {window}")
    print(f"  hmeasure_stream.river.ROCAUC     {seconds['ours'] / 50_000 * 1e6:8.3f} us")
    print(f"  river RollingROCAUC              {seconds['river'] / 50_000 * 1e6:8.3f} us")
    print("  targets:")
    met = report_target("pos_label strings / 0-1 ints", seconds["strings"] / seconds["ints"],
                        "<=", 2.0)
    met &= report_target("river RollingROCAUC / ROCAUC", seconds["river"] / seconds["ours"],
                         ">=", 1.0)
    return met


def operating_part(args):
    """DynamicAUC's operating-point reads (coords at a threshold, a specificity, a
    sensitivity) from 10^4 to 10^6 points, against coords from scratch."""
    reads, rounds = 2000, max(7, args.rounds)
    kinds = {"threshold": np.linspace(-1.0, 2.0, reads),
             "specificity": np.linspace(0.0, 1.0, reads),
             "sensitivity": np.linspace(0.0, 1.0, reads)}
    print(f"\nDynamicAUC.coords, one value per call (median of {rounds} interleaved rounds "
          f"of {reads} calls; in brackets, per value of one call with {reads} values), and "
          "coords from scratch")
    per_read, scratch = {}, {}
    for n in (10**4, 10**5, 10**6):
        y, s = make_data(n, args.seed)
        tracker = DynamicAUC()
        tracker.add_many(y, s)

        def calls(kind, tracker=tracker):
            def run():
                read = tracker.coords
                for value in kinds[kind].tolist():
                    read(value, input=kind, ret=("threshold", "sensitivity", "specificity"))
            return run

        def one_call(kind, tracker=tracker):
            def run():
                tracker.coords(kinds[kind], input=kind,
                               ret=("threshold", "sensitivity", "specificity"))
            return run

        seconds = time_interleaved({**{kind: calls(kind) for kind in kinds},
                                    **{(kind, "batch"): one_call(kind) for kind in kinds}},
                                   rounds, rounds)
        for kind in kinds:
            per_read[n, kind] = seconds[kind] / reads
            per_read[n, kind, "batch"] = seconds[kind, "batch"] / reads
        def from_scratch(y=y, s=s):
            start = time.perf_counter()
            coords(y, s, 0.5, input="specificity")
            return time.perf_counter() - start

        scratch[n] = median_of(from_scratch, 3)
        print(f"  n = {n:<9,} " + "  ".join(
            f"at {kind} {per_read[n, kind] * 1e6:6.2f} us "
            f"({per_read[n, kind, 'batch'] * 1e6:5.2f} in one call)" for kind in kinds)
            + f"  (from scratch {scratch[n] * 1e3:.1f} ms)")
    print("  targets:")
    met = True
    for kind in kinds:
        met &= report_target(f"coords at a {kind}: growth 10^4 -> 10^6",
                             per_read[10**6, kind] / per_read[10**4, kind], "<=", 3)
        met &= report_target(f"coords at {reads} {kind} values in one call: growth "
                             "10^4 -> 10^6", per_read[10**6, kind, "batch"]
                             / per_read[10**4, kind, "batch"], "<=", 3)
    return met


# --- part "delayed": DelayedAUC, and expected_auc against NannyML's CBPE -----------

#: NannyML lives in a virtual environment of its own (it is not a dependency).
NANNYML_PYTHON = os.environ.get("NANNYML_PYTHON", "/work/nannyml-venv/bin/python")

# Run by NANNYML_PYTHON: CBPE's estimated ROC AUC per chunk of the probabilities
# in argv[1] (a .npy file), chunks of argv[2] points, argv[3] rounds; prints JSON
# medians in seconds per chunk: the whole ``CBPE.estimate`` (one chunk per
# ``chunk_size`` points, the reference fitted once beforehand, probabilities
# taken as calibrated), and its ROC AUC function ``estimate_roc_auc`` alone.
_NANNYML_SCRIPT = """
import json, os, statistics, sys, time, warnings
os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"
warnings.simplefilter("ignore")
import numpy as np, pandas as pd, nannyml
from nannyml.calibration import NoopCalibrator
from nannyml.performance_estimation.confidence_based.metrics import estimate_roc_auc
p = np.load(sys.argv[1]); chunk = int(sys.argv[2]); rounds = int(sys.argv[3])
rng = np.random.default_rng(0)
def frame(q, labels=None):
    data = {"y_pred_proba": q, "y_pred": (q >= 0.5).astype(int)}
    if labels is not None:
        data["y_true"] = labels
    return pd.DataFrame(data)
reference = frame(p[:chunk], (rng.random(chunk) < p[:chunk]).astype(int))
estimator = nannyml.CBPE(metrics=["roc_auc"], y_pred_proba="y_pred_proba", y_pred="y_pred",
                         y_true="y_true", problem_type="classification_binary",
                         chunk_size=chunk, calibrator=NoopCalibrator())
estimator.fit(reference)
analysis = frame(p)
chunks = p.shape[0] // chunk
whole, bare = [], []
estimator.estimate(analysis)
for _ in range(rounds):
    start = time.perf_counter(); estimator.estimate(analysis)
    whole.append((time.perf_counter() - start) / chunks)
    start = time.perf_counter()
    for k in range(chunks):
        estimate_roc_auc(p[k * chunk:(k + 1) * chunk], p[k * chunk:(k + 1) * chunk])
    bare.append((time.perf_counter() - start) / chunks)
print(json.dumps({"estimate": statistics.median(whole), "estimate_roc_auc": statistics.median(bare),
                  "version": nannyml.__version__}))
"""


def _nannyml_per_chunk(probs, chunk, rounds):
    """NannyML's seconds per chunk (a dict), or None with a printed note when its
    environment is absent or fails."""
    import json

    if not os.path.exists(NANNYML_PYTHON):
        print(f"  (NannyML column skipped: no {NANNYML_PYTHON}; set NANNYML_PYTHON to the "
              "python of an environment with nannyml)")
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "probs.npy")
        np.save(path, probs)
        done = subprocess.run([NANNYML_PYTHON, "-c", _NANNYML_SCRIPT, path, str(chunk),
                               str(rounds)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"  (NannyML column skipped: its process failed: "
              f"{done.stderr.strip().splitlines()[-1:]})")
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def _delayed_steady_state(n, metrics, rounds, seed, m=10_000, half_life=None):
    """Seconds per predict, label and results() of a DelayedAUC holding a window of n
    predictions (each predict pushes the oldest out; with ``half_life`` in predictions
    too), median of ``rounds`` rounds of m calls each."""
    from hmeasure_stream import DelayedAUC

    rng = np.random.default_rng(seed)
    total = n + rounds * m
    scores = rng.random(total)
    labels = (rng.random(total) < scores).tolist()
    scores = scores.tolist()
    monitor = DelayedAUC(window=n, metrics=metrics, half_life=half_life)
    for key in range(n):  # the window filled, nine in ten labelled
        monitor.predict(key, scores[key])
        if key % 10:
            monitor.label(key, labels[key])
    samples = {"predict": [], "label": [], "read": []}
    for round_index in range(rounds):
        keys = range(n + round_index * m, n + (round_index + 1) * m)
        start = time.perf_counter()
        for key in keys:
            monitor.predict(key, scores[key])
        samples["predict"].append((time.perf_counter() - start) / m)
        start = time.perf_counter()
        for key in keys:
            monitor.label(key, labels[key])
        samples["label"].append((time.perf_counter() - start) / m)
        start = time.perf_counter()
        for _ in range(m // 10):
            monitor.results()
        samples["read"].append((time.perf_counter() - start) / (m // 10))
    return {name: statistics.median(values) for name, values in samples.items()}


def delayed_part(args):
    """DelayedAUC per predict, label and read; expected_auc per chunk against NannyML."""
    from hmeasure_stream import DelayedAUC, expected_auc

    rounds = max(5, args.rounds // 2)
    print(f"\nDelayedAUC, a window of n predictions, steady state (each predict pushes the "
          f"oldest out; median of {rounds} rounds of 10^4 calls)")
    for metrics, decay in ((("auc",), False), (("auc", "h"), False), (("auc",), True)):
        for n in (10**4, 10**6):
            # With decay: a half-life of n / 100 predictions, so that the weights are
            # divided by 2**k every 64 half-lives (0.64 n predictions) during the rounds.
            seconds = _delayed_steady_state(n, metrics, rounds, args.seed,
                                            half_life=n / 100 if decay else None)
            name = "+".join(metrics) + (", half-life n/100" if decay else "")
            print(f"  {name:<6} n = {n:<9,} predict {seconds['predict'] * 1e6:6.2f} "
                  f"us, label {seconds['label'] * 1e6:6.2f} us, results() "
                  f"{seconds['read'] * 1e6:6.2f} us")
    yardstick = median_of(_weighted_step_seconds, rounds, args.seed)
    print(f"  (yardstick in the same run: DynamicAUC.add + remove of a point of weight 0.3 at "
          f"10^4 points, {yardstick * 1e6:.2f} us)")
    print("expected AUC of a chunk: ours from scratch and streaming, NannyML's CBPE "
          f"(median of {rounds} rounds)")
    for chunk in (10**4, 10**5):
        chunks = max(2, 10**6 // chunk)
        probs = np.random.default_rng(args.seed).beta(2.0, 5.0, chunk * chunks)
        ours = median_of(_seconds_per_chunk, rounds, expected_auc, probs, chunk)
        monitor = DelayedAUC(window=chunk)
        values = probs.tolist()

        per_update = median_of(_streaming_seconds, max(3, rounds // 2), monitor,
                               values[:2 * chunk], itertools.count())
        theirs = _nannyml_per_chunk(probs, chunk, rounds)
        line = (f"  chunk {chunk:<7,} expected_auc {ours * 1e3:8.3f} ms/chunk, streaming "
                f"{per_update * 1e6:5.2f} us/update ({per_update * chunk * 1e3:8.2f} ms/chunk)")
        if theirs is not None:
            line += (f"; NannyML {theirs['version']} CBPE.estimate "
                     f"{theirs['estimate'] * 1e3:8.3f} ms/chunk ({theirs['estimate'] / ours:5.1f}x "
                     f"ours), estimate_roc_auc {theirs['estimate_roc_auc'] * 1e3:8.3f} ms/chunk "
                     f"({theirs['estimate_roc_auc'] / ours:4.1f}x ours)")
        print(line)
    return True


def _weighted_step_seconds(seed, n=10_000):
    """Seconds per add + remove of a weighted point in a DynamicAUC of n points."""
    scores = np.random.default_rng(seed).random(2 * n).tolist()
    tracker = DynamicAUC()
    for score in scores[:n]:
        tracker.add(score < 0.5, score, 0.3)
    start = time.perf_counter()
    for old, new in zip(scores[:n], scores[n:], strict=True):
        tracker.add(new < 0.5, new, 0.3)
        tracker.remove(old < 0.5, old, 0.3)
    return (time.perf_counter() - start) / n


def _streaming_seconds(monitor, probs, keys):
    """Seconds per prediction entering ``monitor`` with a read of its expected AUC."""
    start = time.perf_counter()
    for prob in probs:
        monitor.predict(next(keys), prob)
        _ = monitor.expected_auc
    return (time.perf_counter() - start) / len(probs)


def _seconds_per_chunk(function, probs, chunk):
    start = time.perf_counter()
    for k in range(probs.shape[0] // chunk):
        function(probs[k * chunk:(k + 1) * chunk])
    return (time.perf_counter() - start) / (probs.shape[0] // chunk)
def ap_read_part(args):
    """``DynamicAUC.average_precision(relative_error=0.01)`` read from 10^4 to 10^6 points."""
    reads, rounds = 200, max(7, args.rounds)
    print(f"\nDynamicAUC.average_precision, per read (median of {rounds} interleaved rounds "
          f"of {reads} reads within epsilon = 0.01; the exact read: one per round)")
    trackers = {}
    for n in (10**4, 10**5, 10**6):
        y, s = make_data(n, args.seed)
        trackers[n] = DynamicAUC()
        trackers[n].add_many(y, s)

    def approx(tracker):
        read = tracker.average_precision
        return lambda: [read(relative_error=0.01) for _ in range(reads)]

    seconds = time_interleaved({**{("approx", n): approx(t) for n, t in trackers.items()},
                                **{("exact", n): t.average_precision
                                   for n, t in trackers.items()}}, rounds, rounds)
    for n in trackers:
        print(f"  n = {n:<9,} within 0.01 {seconds['approx', n] / reads * 1e6:8.2f} us   "
              f"exact {seconds['exact', n] * 1e6:10.1f} us")
    print("  targets:")
    return report_target("average_precision(relative_error=0.01): growth 10^4 -> 10^6",
                         seconds["approx", 10**6] / seconds["approx", 10**4], "<=", 3)


def filled_window(metric, window, steps, seed):
    """A SlidingWindow of ``metric`` that holds the first ``window`` points, pickled (each
    round times a fresh copy: filling a window of "ap" is O(window^2)), and the next
    ``steps`` points."""
    y, s = make_data(window + steps, seed)
    monitor = SlidingWindow(window, metric)
    monitor.update(y[:window], s[:window])
    return pickle.dumps(monitor), y[window:], s[window:]


def window_metric_step_seconds(filled):
    """SlidingWindow's step (add, the oldest point out, the metric recorded), per step."""
    blob, y, s = filled
    monitor = pickle.loads(blob)
    start = time.perf_counter()
    monitor.update(y, s)
    return (time.perf_counter() - start) / len(y)


def ap_window_part(args):
    """The window metrics "ap" and "ap_approx" per step against river's RollingPRAUC."""
    rounds = max(5, args.rounds // 2)
    # Steps per round: river, "ap_approx", "ap".
    steps = {10**3: (2000, 20_000, 5000), 10**5: (20, 2000, 100)}
    print(f"\naverage precision over a sliding window, per step (median of {rounds} "
          "interleaved rounds; river's RollingPRAUC is a trapezoid area, O(window) a step)")
    measures = {}
    for window, (river_steps, approx_steps, exact_steps) in steps.items():
        approx = filled_window(APApprox(0.01), window, approx_steps, args.seed)
        exact = filled_window("ap", window, exact_steps, args.seed)
        measures["river", window] = (lambda w=window, k=river_steps:
                                     river_step_seconds(w, k, args.seed, "RollingPRAUC"))
        measures["ap_approx", window] = lambda f=approx: window_metric_step_seconds(f)
        measures["ap", window] = lambda f=exact: window_metric_step_seconds(f)
    medians = interleaved_rounds(measures, rounds)
    met = True
    for window in steps:
        river, approx, exact = (medians[name, window] for name in ("river", "ap_approx", "ap"))
        print(f"  window {window:<7,} river RollingPRAUC {river * 1e6:10.2f} us   "
              f"\"ap\" {exact * 1e6:9.2f} us   \"ap_approx\" (0.01) {approx * 1e6:7.2f} us   "
              f"river / ap {river / exact:7.1f}   river / ap_approx {river / approx:8.1f}")
    print("  targets:")
    for window in steps:
        met &= report_target(f"river / ap_approx at window {window:,}",
                             medians["river", window] / medians["ap_approx", window], ">=", 1)
    return met


def _fed(window, y, s, by, chunk):
    """Feed (y, s) to ``window`` in chunks of ``chunk`` rows, with their segments ``by``."""
    for start in range(0, y.shape[0], chunk):
        part = slice(start, start + chunk)
        if by is None:
            window.update(y[part], s[part])
        else:
            window.update(y[part], s[part], by=by[part])


def segments_part(args, n=10**6, n_segments=10**4, window=1000):
    """Segments (``by=``) against one window over the same rows, and their memory."""
    from hmeasure_stream import SlidingWindow, sliding_window

    rng = np.random.default_rng(args.seed)
    y, s = rng.integers(0, 2, n), rng.random(n)
    keys = rng.integers(0, n_segments, n)
    rounds = max(3, args.rounds // 2)
    functions = {}
    for chunk in (n, 65536):
        functions[f"one window, chunks of {chunk}"] = (
            lambda chunk=chunk: _fed(SlidingWindow(window), y, s, None, chunk))
        functions[f"segments, chunks of {chunk}"] = (
            lambda chunk=chunk: _fed(SlidingWindow(window), y, s, keys, chunk))
    functions["sliding_window"] = lambda: sliding_window(y, s, window)
    functions["sliding_window by="] = lambda: sliding_window(y, s, window, by=keys)
    seconds = time_interleaved(functions, rounds, rounds, warm_up=False)
    print(f"\nSegments: {n:,} rows over {n_segments:,} segments (about {n // n_segments} rows "
          f"each), windows of {window} points, the AUC (median of {rounds} rounds)")
    for name, value in seconds.items():
        print(f"  {name:<32} {value:7.3f} s")
    met = report_target("segments / one window, one call",
                        seconds[f"segments, chunks of {n}"] / seconds[f"one window, chunks of {n}"],
                        "<=", 3)
    print(f"    segments / one window, chunks of 65536 = "
          f"{seconds['segments, chunks of 65536'] / seconds['one window, chunks of 65536']:.3f}")
    print(f"    sliding_window by= / sliding_window = "
          f"{seconds['sliding_window by='] / seconds['sliding_window']:.3f}")
    small = SlidingWindow(10**4)
    codes = np.repeat(np.arange(n_segments), 3)[rng.permutation(3 * n_segments)]
    small.update(rng.integers(0, 2, codes.size), rng.random(codes.size), by=codes)
    alone = SlidingWindow(10**4)
    print(f"  {n_segments:,} segments of 3 points in windows of 10^4: {small.nbytes / 1e6:.1f} MB "
          f"({small.nbytes / n_segments:,.0f} bytes each; an empty lone window of 10^4 holds "
          f"{alone.nbytes:,} bytes)")
    return met


def times_part(args, n=10**5):
    """sliding_window over a duration with its times as ISO 8601 text against datetime64."""
    import pandas as pd

    rng = np.random.default_rng(args.seed)
    y, s = rng.integers(0, 2, n), rng.random(n)
    # Irregular arrivals with sub-second parts, about 1000 rows an hour.
    stamps = (np.datetime64("2024-03-01T00:00:00", "ns")
              + np.cumsum(rng.integers(0, 7_200_000_000, n)).astype("timedelta64[ns]"))
    text = np.datetime_as_string(stamps, unit="ns", timezone="UTC")  # "...123456789Z"
    inputs = {"datetime64 Series": pd.Series(stamps),
              "ISO text Series": pd.Series(text, dtype=object), "ISO text list": text.tolist()}
    try:
        inputs["ISO string[pyarrow]"] = pd.Series(text, dtype="string[pyarrow]")
    except ImportError:
        pass
    functions = {name: (lambda times=times: sliding_window(y, s, "1h", times=times))
                 for name, times in inputs.items()}
    rounds = max(5, args.rounds)
    seconds = time_interleaved(functions, rounds, rounds)
    print(f"\ntimes given as text: sliding_window(y, s, '1h', times=...) over {n:,} rows "
          f"(median of {rounds} interleaved rounds)")
    for name, value in seconds.items():
        ratio = value / seconds["datetime64 Series"]
        print(f"  {name:<24} {value:8.4f} s   / datetime64 {ratio:6.2f}")
    return report_target("ISO text Series / datetime64 Series",
                         seconds["ISO text Series"] / seconds["datetime64 Series"], "<=", 3)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=["all", "scratch", "sort", "streaming", "hull", "partial",
                                           "partial_stream", "multiclass", "multiclass_window",
                                           "binned", "approx_auc", "dask", "windows", "report",
                                           "labels", "variance", "derived", "operating",
                                           "delayed", "ap_stream", "segments", "times"],
                        default="all")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10**4, 10**5, 10**6])
    parser.add_argument("--rounds", type=int, default=11, help="timed rounds per contender")
    parser.add_argument("--slow-rounds", type=int, default=5, help="rounds for slow peers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scalar-numpy", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--dask-sizes", type=int, nargs="+", default=[10**7, 3 * 10**7],
                        help="rows for --part dask (add 100000000 if memory allows)")
    parser.add_argument("--dask-rounds", type=int, default=3)
    parser.add_argument("--dask-memory", default="3GiB", help="memory limit per worker")
    args = parser.parse_args(argv)

    warnings.simplefilter("ignore")
    all_met = True
    if args.part in ("all", "scratch"):
        all_met &= scratch_part(args)
    if args.part in ("all", "sort"):
        all_met &= sort_part(args)
    if args.part in ("all", "streaming"):
        all_met &= streaming_part(args)
    if args.part in ("all", "hull"):
        all_met &= hull_part(args)
    if args.part in ("all", "report"):
        all_met &= report_part(args)
    if args.part in ("all", "partial"):
        all_met &= partial_part(args)
    if args.part in ("all", "partial", "partial_stream"):
        all_met &= partial_stream_part(args)
    if args.part in ("all", "multiclass"):
        all_met &= multiclass_part(args)
        all_met &= multiclass_stream_part(args)
    if args.part in ("all", "multiclass", "multiclass_window"):
        all_met &= multiclass_window_part(args)
    if args.part in ("all", "binned"):
        all_met &= binned_part(args)
    if args.part in ("all", "approx_auc"):
        all_met &= approx_auc_part(args)
    if args.part == "dask":
        all_met &= dask_part(args)
    if args.part in ("all", "windows"):
        all_met &= windows_part(args)
    if args.part in ("all", "operating"):
        all_met &= operating_part(args)
    if args.part in ("all", "labels"):
        all_met &= labels_part(args)
    if args.part in ("all", "variance"):
        all_met &= variance_part(args)
    if args.part in ("all", "derived"):
        all_met &= derived_part(args)
    if args.part in ("all", "delayed"):
        all_met &= delayed_part(args)
    if args.part in ("all", "ap_stream"):
        all_met &= ap_read_part(args)
        all_met &= ap_window_part(args)
    if args.part in ("all", "segments"):
        all_met &= segments_part(args)
    if args.part in ("all", "times"):
        all_met &= times_part(args)
    return 0 if all_met else 1


if __name__ == "__main__":
    raise SystemExit(main())
