"""CPU seconds of the command-line monitor on a CSV, against its start-up and pandas.read_csv.

Writes a CSV of (label, score) rows, then times in interleaved rounds, each
in a child process, by the CPU time (user + system) the children used
(``resource.getrusage(RUSAGE_CHILDREN)``):

* ``start-up``: ``python -c "import hmeasure_stream.cli._command"``, the
  monitor's imports (``hmeasure_stream.cli`` itself is the entry point alone);
* ``python -c pass`` and ``hmeasure-stream --version``, which imports no
  monitor;
* ``cli --every K``: ``python -m hmeasure_stream FILE --window W --every K``;
* ``cli every row``: the same, writing every row;
* ``pandas.read_csv`` and ``pyarrow.csv.read_csv`` of the same file, timed
  inside the child (``time.process_time``, the import left out).

Prints the medians, and the monitor's CPU beyond the start-up.

    python asv_benchmarks/cli_read.py                      # 10**6 rows, window 10**4, K 1000
    python asv_benchmarks/cli_read.py --rows 100000 --rounds 3
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile

import numpy as np

READER = ("import sys, time, {module}; start = time.process_time(); {call}(sys.argv[1]); "
          "print(time.process_time() - start)")


def write_csv(path, rows, seed=0):
    """Labels 0/1 and scores as Python's repr writes them (17 significant digits)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, rows)
    scores = rng.normal(size=rows) + labels
    with open(path, "w") as handle:
        handle.write("label,score\n")
        handle.writelines(f"{label},{score!r}\n"
                          for label, score in zip(labels.tolist(), scores.tolist(), strict=True))


def child_cpu(command):
    """CPU seconds (user + system) of a child process run to its end, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), done.stdout


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--window", type=int, default=10**4)
    parser.add_argument("--every", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as directory:
        data, out = os.path.join(directory, "rows.csv"), os.path.join(directory, "out.csv")
        write_csv(data, args.rows)
        monitor = [python, "-m", "hmeasure_stream", data, "--window", str(args.window),
                   "--no-progress", "--out", out]
        contenders = {
            "start-up": lambda: child_cpu(
                [python, "-c", "import hmeasure_stream.cli._command"])[0],
            "python -c pass": lambda: child_cpu([python, "-c", "pass"])[0],
            "--version": lambda: child_cpu([python, "-m", "hmeasure_stream", "--version"])[0],
            f"cli --every {args.every}": lambda: child_cpu(
                [*monitor, "--every", str(args.every)])[0],
            "cli every row": lambda: child_cpu(monitor)[0],
            "pandas.read_csv": lambda: float(child_cpu(
                [python, "-c", READER.format(module="pandas", call="pandas.read_csv"),
                 data])[1]),
            "pyarrow.csv.read_csv": lambda: float(child_cpu(
                [python, "-c", READER.format(module="pyarrow.csv",
                                             call="pyarrow.csv.read_csv"), data])[1]),
        }
        times = {name: [] for name in contenders}
        for _ in range(args.rounds):
            for name, run in contenders.items():
                times[name].append(run())
    medians = {name: statistics.median(values) for name, values in times.items()}
    print(f"{args.rows} rows, window {args.window}, median of {args.rounds} interleaved "
          "rounds, CPU seconds (user + system)")
    for name, value in medians.items():
        print(f"  {name:<24}{value:8.3f}")
    start_up = medians["start-up"]
    for name in (f"cli --every {args.every}", "cli every row"):
        print(f"  {name + ' - start-up':<36}{medians[name] - start_up:8.3f}")
    print(f"  {'--version - python -c pass':<36}"
          f"{medians['--version'] - medians['python -c pass']:8.3f}")


if __name__ == "__main__":
    main()
