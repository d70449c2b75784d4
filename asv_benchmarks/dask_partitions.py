"""Wall seconds of ``hmeasure_stream.dask.auc`` on the threaded scheduler, against memory.

Two comparisons, each timed in interleaved rounds (medians printed):

* ``--case big``: 10**7 rows in 10 partitions, ``hmeasure_stream.auc`` of the
  numpy arrays against ``hmeasure_stream.dask.auc`` of the columns of
  ``dd.from_pandas(frame, npartitions=10)``, of ``dd.read_parquet`` of a
  directory of 10 files and of one file of 10 row groups (target: dask at
  most 2x memory);
* ``--case many``: 10**6 rows in 20 and in 400 partitions, from pandas, from
  a directory of parquet files and from one parquet file of as many row
  groups (target: 400 partitions at most 10x 20 partitions).

Each case also times what the call cannot avoid: reading the same files
into memory with pandas before ``hmeasure_stream.auc`` (``--case big``), and
dask computing the length of every partition of the two columns, which
reads them and nothing more (``--case many``).

Labels 0/1 (int8) and scores ``normal + 0.7 label`` (almost all distinct).
Every dask value is checked equal to the in-memory one first (the warm-up).

    python asv_benchmarks/dask_partitions.py                   # both cases, 5 rounds
    taskset -c 1 python asv_benchmarks/dask_partitions.py --case many --rounds 3
"""

import argparse
import os
import statistics
import tempfile
import time

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd

import hmeasure_stream
from hmeasure_stream import dask as hsd


def make_frame(rows, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, rows).astype(np.int8)
    return pd.DataFrame({"y": y, "s": rng.normal(size=rows) + 0.7 * y})


def parquet_dir(frame, n_files, where):
    """``frame`` written as ``n_files`` parquet files of consecutive rows."""
    path = os.path.join(where, f"parts-{len(frame)}-{n_files}")
    os.makedirs(path)
    bounds = np.linspace(0, len(frame), n_files + 1).round().astype(int)
    for k in range(n_files):
        frame.iloc[bounds[k]:bounds[k + 1]].to_parquet(
            os.path.join(path, f"part-{k:04d}.parquet"), index=False)
    return path


def parquet_row_groups(frame, n_groups, where):
    """``frame`` written as one parquet file of ``n_groups`` row groups."""
    path = os.path.join(where, f"groups-{len(frame)}-{n_groups}.parquet")
    frame.to_parquet(path, index=False, row_group_size=-(-len(frame) // n_groups))
    return path


def dask_auc(collection):
    return lambda: hsd.auc(collection["y"], collection["s"])


def interleaved(functions, rounds):
    samples = {name: [] for name in functions}
    for _ in range(rounds):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            samples[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in samples.items()}


def report(title, medians, rounds):
    print(f"\n{title} (threaded scheduler; median of {rounds} interleaved rounds; "
          f"load average {os.getloadavg()[0]:.1f}; {len(os.sched_getaffinity(0))} cores)")
    for name, seconds in medians.items():
        print(f"  {name:44s} {seconds:8.3f} s")


def big_case(rounds, where, rows=10**7, parts=10):
    frame = make_frame(rows)
    y, s = frame["y"].to_numpy(), frame["s"].to_numpy()
    expected = hmeasure_stream.auc(y, s)
    from_pandas = dd.from_pandas(frame, npartitions=parts)
    directory = parquet_dir(frame, parts, where)
    parquet = dd.read_parquet(directory)
    groups = dd.read_parquet(parquet_row_groups(frame, parts, where), split_row_groups=True)

    def read_then_auc():
        read = pd.read_parquet(directory)
        return hmeasure_stream.auc(read["y"].to_numpy(), read["s"].to_numpy())

    functions = {
        "in-memory auc": lambda: hmeasure_stream.auc(y, s),
        "pandas read_parquet, in-memory auc": read_then_auc,
        f"dask auc, from_pandas ({from_pandas.npartitions} parts)": dask_auc(from_pandas),
        f"dask auc, read_parquet ({parquet.npartitions} files)": dask_auc(parquet),
        f"dask auc, row groups ({groups.npartitions} parts)": dask_auc(groups),
    }
    for name, function in functions.items():
        assert function() == expected, name
    medians = interleaved(functions, rounds)
    report(f"{rows:,} rows in {parts} partitions", medians, rounds)
    base = medians["in-memory auc"]
    for name, seconds in list(medians.items())[2:]:
        print(f"  ratio {name} / in-memory auc: {seconds / base:5.2f}  (target <= 2)")
    read = medians["pandas read_parquet, in-memory auc"]
    for name, seconds in list(medians.items())[3:]:
        print(f"  ratio {name} / pandas read_parquet and auc: {seconds / read:5.2f}")


def dask_read(collection):
    """Dask reading the two columns and nothing more (the length of each partition)."""
    return lambda: collection[["y", "s"]].map_partitions(len).compute()


def many_case(rounds, where, rows=10**6, counts=(20, 400)):
    frame = make_frame(rows)
    expected = hmeasure_stream.auc(frame["y"].to_numpy(), frame["s"].to_numpy())
    functions, reads = {}, {}
    for parts in counts:
        sources = {
            f"from_pandas, {parts} parts": dd.from_pandas(frame, npartitions=parts),
            f"read_parquet, {parts} files": dd.read_parquet(parquet_dir(frame, parts, where)),
            f"row groups, {parts} parts": dd.read_parquet(
                parquet_row_groups(frame, parts, where), split_row_groups=True),
        }
        for name, collection in sources.items():
            functions[name] = dask_auc(collection)
            reads[f"{name}: reading alone"] = dask_read(collection)
    for name, function in functions.items():
        assert function() == expected, name
    medians = interleaved({**functions, **reads}, rounds)
    report(f"{rows:,} rows in {' and '.join(map(str, counts))} partitions", medians, rounds)
    for source in ("from_pandas", "read_parquet", "row groups"):
        few, many = (medians[name] for name in functions if name.startswith(source))
        few_read, many_read = (medians[name] for name in reads if name.startswith(source))
        extra = counts[1] - counts[0]
        print(f"  ratio {source} {counts[1]} / {counts[0]}: {many / few:5.2f}  (target <= 10);"
              f" reading alone {many_read / few_read:5.2f}; each partition more:"
              f" {1e3 * (many - few) / extra:.3f} ms, reading alone"
              f" {1e3 * (many_read - few_read) / extra:.3f} ms")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=("big", "many", "both"), default="both")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with dask.config.set(scheduler="threads"), tempfile.TemporaryDirectory() as where:
        if args.case in ("big", "both"):
            big_case(args.rounds, where)
        if args.case in ("many", "both"):
            many_case(args.rounds, where)


if __name__ == "__main__":
    main()
