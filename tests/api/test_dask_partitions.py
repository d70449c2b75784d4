"""hmeasure_stream.dask on every way of partitioning: parquet directories, 1 to 1000 partitions.

Every public function of ``hmeasure_stream.dask`` is compared with the
package's in-memory function on the same rows (the other test modules check
those against brute force, scikit-learn and R): with ``==`` where the
in-memory value is exact (unit weights), to 1e-12 with weights.  The graph of
a call on P partitions has O(P) tasks (counted after dask's optimisation).
The threaded scheduler runs everything here (test_dask.py runs a cluster).
"""

import math
from fractions import Fraction

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.base import collections_to_expr

import hmeasure_stream as hs
from hmeasure_stream import dask as hsd
from hmeasure_stream._core import groups as groups_module
from hmeasure_stream.binned import BinnedAUCResult

pytestmark = [pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")]

WEIGHTED_TOL = 1e-12
BINARY = ("auc", "h_measure", "roc_hull", "hmeasure_report", "partial_auc", "auc_ci",
          "binned_auc")


@pytest.fixture(autouse=True)
def _threads():
    with dask.config.set(scheduler="threads"):
        yield


def _data(n=3000, seed=20260801):
    """Labels, scores rounded to 2 decimals (ties across partitions), weights (some 0),
    segments and three-class labels with a score matrix."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(0.6 * y, 1.0), 2)
    w = rng.exponential(1.0, n)
    w[rng.random(n) < 0.05] = 0.0
    codes = rng.integers(0, 3, n)
    logits = rng.normal(0, 1, (n, 3)) + np.eye(3)[codes]
    matrix = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)
    return pd.DataFrame({
        "seg": rng.choice(["a", "b", "c", "d"], n, p=[0.5, 0.3, 0.15, 0.05]),
        "label": y, "score": s, "weight": w, "klass": codes,
        "p0": matrix[:, 0], "p1": matrix[:, 1], "p2": matrix[:, 2],
        "other": rng.random(n), "more": rng.random(n),  # columns the metrics never read
    })


FRAME = _data()
# The same rows with integer segments: dask converts string columns partition by
# partition as it builds a graph (about 2 ms each), which would dominate 1000 partitions.
NUMERIC = FRAME.assign(seg=FRAME["seg"].map({"a": 0, "b": 1, "c": 2, "d": 3}).astype(np.int64))


def _binary_calls(yd, sd, wd):
    """Lazy results of the binary functions, in BINARY's order."""
    return (
        hsd.auc(yd, sd, sample_weight=wd, compute=False),
        hsd.h_measure(yd, sd, sample_weight=wd, severity_ratio=0.4, compute=False),
        hsd.roc_hull(yd, sd, sample_weight=wd, compute=False),
        hsd.hmeasure_report(yd, sd, sample_weight=wd, sens_spec_levels=(0.8, 0.95),
                            compute=False),
        hsd.partial_auc(yd, sd, sample_weight=wd, fpr_range=(0.0, 0.3), correction="mcclish",
                        compute=False),
        hsd.auc_ci(yd, sd, sample_weight=wd, level=0.9, compute=False),
        hsd.binned_auc(yd, sd, sample_weight=wd, n_bins=50, score_range=(-5.0, 5.0),
                       compute=False),
    )


def _in_memory(frame, weighted):
    y, s = frame["label"].to_numpy(), frame["score"].to_numpy()
    w = frame["weight"].to_numpy() if weighted else None
    return (
        hs.auc(y, s, sample_weight=w),
        hs.h_measure(y, s, sample_weight=w, severity_ratio=0.4),
        hs.roc_hull(y, s, sample_weight=w),
        hs.hmeasure_report(y, s, sample_weight=w, sens_spec_levels=(0.8, 0.95)),
        hs.partial_auc(y, s, sample_weight=w, fpr_range=(0.0, 0.3), correction="mcclish"),
        hs.auc_ci(y, s, sample_weight=w, level=0.9),
        hs.binned_auc(y, s, sample_weight=w, n_bins=50, score_range=(-5.0, 5.0)),
    )


def _same(got, expected, exact, what):
    """``got == expected`` (exact) or to a relative 1e-12, through tuples, dicts, arrays."""
    if isinstance(expected, dict):
        assert list(got) == list(expected), what
        for key in expected:
            _same(got[key], expected[key], exact, (what, key))
    elif isinstance(expected, BinnedAUCResult):
        for field in ("counts_neg", "counts_pos", "auc", "max_error", "expected_error",
                      "n_below", "n_above"):
            _same(getattr(got, field), getattr(expected, field), exact, (what, field))
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), what
        for k, (a, b) in enumerate(zip(got, expected, strict=True)):
            _same(a, b, exact, (what, k))
    elif isinstance(expected, np.ndarray):
        if exact:
            np.testing.assert_array_equal(got, expected, err_msg=str(what))
        else:
            np.testing.assert_allclose(got, expected, rtol=WEIGHTED_TOL, atol=WEIGHTED_TOL,
                                       err_msg=str(what))
    elif exact:
        assert got == expected or (math.isnan(got) and math.isnan(expected)), what
    else:
        assert got == pytest.approx(expected, rel=WEIGHTED_TOL, abs=WEIGHTED_TOL,
                                    nan_ok=True), what


def _check_binary(yd, sd, wd, frame):
    got = dask.compute(*_binary_calls(yd, sd, wd))
    expected = _in_memory(frame, wd is not None)
    for name, a, b in zip(BINARY, got, expected, strict=True):
        _same(a, b, wd is None, name)


def _check_multiclass(yd, md, wd, frame):
    codes = frame["klass"].to_numpy()
    matrix = frame[["p0", "p1", "p2"]].to_numpy()
    w = frame["weight"].to_numpy() if wd is not None else None
    for method, average in (("ovr", "macro"), ("ovo", "weighted"), ("ovo", None)):
        got = hsd.multiclass_auc(yd, md, method=method, average=average, sample_weight=wd)
        expected = hs.multiclass_auc(codes, matrix, method=method, average=average,
                                     sample_weight=w)
        _same(got, expected, wd is None, (method, average))


def _check_grouped(df, frame, weighted):
    metrics = ("auc", "h", "auch", "gini", "ks", "mer", "mwl")
    table = hsd.grouped(df, by="seg", label="label", score="score",
                        weight="weight" if weighted else None, metrics=metrics)
    names = {"auc": "AUC", "h": "H", "auch": "AUCH", "gini": "Gini", "ks": "KS",
             "mer": "MER", "mwl": "MWL"}
    assert list(table.index) == sorted(frame["seg"].unique())
    for segment, rows in frame.groupby("seg"):
        w = rows["weight"].to_numpy() if weighted else None
        report = hs.hmeasure_report(rows["label"].to_numpy(), rows["score"].to_numpy(),
                                    sample_weight=w)
        for metric in metrics:
            _same(float(table.loc[segment, metric]), report[names[metric]], not weighted,
                  (segment, metric))


# ---------------------------------------------------------------------------
# The inputs: a parquet directory, frames, series, arrays


def _write_parquet(frame, directory, n_files, row_group_size=None):
    directory.mkdir()
    for k, rows in enumerate(np.array_split(np.arange(len(frame)), n_files)):
        frame.iloc[rows].to_parquet(directory / f"part.{k}.parquet",
                                    row_group_size=row_group_size)
    return directory


@pytest.fixture(scope="module")
def parquet_dirs(tmp_path_factory):
    root = tmp_path_factory.mktemp("parquet")
    return {
        "files": _write_parquet(FRAME, root / "files", 10),
        "row_groups": _write_parquet(FRAME, root / "row_groups", 3, row_group_size=250),
    }


def _read(parquet_dirs, kind):
    if kind == "files":
        return dd.read_parquet(parquet_dirs["files"])
    return dd.read_parquet(parquet_dirs["row_groups"], split_row_groups=True)


@pytest.mark.parametrize("kind", ["files", "row_groups"])
@pytest.mark.parametrize("weighted", [False, True])
def test_read_parquet_directory_equals_in_memory(parquet_dirs, kind, weighted):
    df = _read(parquet_dirs, kind)
    assert df.npartitions == (10 if kind == "files" else 12)
    frame = df.compute()  # the rows in dask's order
    wd = df["weight"] if weighted else None
    _check_binary(df["label"], df["score"], wd, frame)
    _check_multiclass(df["klass"], df[["p0", "p1", "p2"]], wd, frame)
    _check_grouped(df, frame, weighted)


def _from_pandas(frame, n_parts):
    """``dd.from_pandas``, persisted beyond 100 partitions: dask slices the frame for every
    partition each time a graph of it is built (about 3 ms a partition), which would
    dominate 1000 partitions; the graph-size test builds them unpersisted."""
    df = dd.from_pandas(frame, npartitions=n_parts, sort=False)
    return df.persist() if n_parts > 100 else df


def _forms(frame, n_parts):
    """(name, labels, scores, weights, classes, score matrix) of the same rows, n_parts
    partitions."""
    df = _from_pandas(frame, n_parts)
    yield ("frame columns", df["label"], df["score"], df["weight"], df["klass"],
           df[["p0", "p1", "p2"]])

    def series(column):
        return _from_pandas(frame[column], n_parts)

    matrix = _from_pandas(frame[["p0", "p1", "p2"]], n_parts)
    yield ("separate series", series("label"), series("score"), series("weight"),
           series("klass"), matrix)
    chunks = -(-len(frame) // n_parts)

    def array(column):
        return da.from_array(frame[column].to_numpy(), chunks=chunks)

    scores = da.from_array(frame[["p0", "p1", "p2"]].to_numpy(), chunks=(chunks, 3))
    yield "arrays", array("label"), array("score"), array("weight"), array("klass"), scores


@pytest.mark.parametrize("n_parts", [1, 10, 100, pytest.param(1000, marks=pytest.mark.slow)])
def test_any_number_of_partitions_equals_in_memory(n_parts):
    for form, yd, sd, wd, kd, md in _forms(NUMERIC, n_parts):
        assert yd.npartitions == n_parts, form
        for weights in (None, wd):
            _check_binary(yd, sd, weights, NUMERIC)
        _check_multiclass(kd, md, None, NUMERIC)
    _check_grouped(_from_pandas(NUMERIC, n_parts), NUMERIC, weighted=False)


def test_unknown_divisions_and_empty_partitions():
    df = dd.from_pandas(FRAME, npartitions=40, sort=False).clear_divisions()
    assert not df.known_divisions
    for weights in (None, df["weight"]):
        _check_binary(df["label"], df["score"], weights, FRAME)
    # A filter that empties most partitions (rows kept in blocks of 75 of every 750).
    keep = (np.arange(len(FRAME)) % 750) < 75
    frame = FRAME.assign(keep=keep)
    df = dd.from_pandas(frame, npartitions=40, sort=False)
    df = df[df["keep"]]
    kept = frame[keep]
    lengths = df.map_partitions(len).compute().tolist()
    assert lengths.count(0) >= 20 and sum(lengths) == len(kept)
    for weights in (None, df["weight"]):
        _check_binary(df["label"], df["score"], weights, kept)
    _check_multiclass(df["klass"], df[["p0", "p1", "p2"]], df["weight"], kept)
    _check_grouped(df, kept, weighted=True)
    # Arrays with empty chunks.
    chunks = ((0, 1000, 0, 0, 1500, 0, 500, 0),)
    arrays = [da.from_array(FRAME[c].to_numpy(), chunks=chunks)
              for c in ("label", "score", "weight")]
    _check_binary(*arrays, FRAME)


# ---------------------------------------------------------------------------
# The size of the graph: O(P) tasks


def _tasks(*lazy):
    """Tasks of the optimised graph that computing ``lazy`` runs (as dask.compute builds it)."""
    return len(collections_to_expr(list(lazy), optimize_graph=True).optimize().__dask_graph__())


def _all_lazy(n_parts):
    df = dd.from_pandas(NUMERIC, npartitions=n_parts, sort=False)
    yd, sd, wd = df["label"], df["score"], df["weight"]
    calls = dict(zip(BINARY, _binary_calls(yd, sd, wd), strict=True))
    calls["binned_auc loglog"] = hsd.binned_auc(yd, sd, sample_weight=wd, transform="loglog",
                                                compute=False)
    calls["pos_label"] = hsd.auc(yd, sd, pos_label=1, compute=False)
    calls["multiclass ovo"] = hsd.multiclass_auc(df["klass"], df[["p0", "p1", "p2"]],
                                                 method="ovo", compute=False)
    calls["multiclass ovr"] = hsd.multiclass_auc(df["klass"], df[["p0", "p1", "p2"]],
                                                 sample_weight=wd, compute=False)
    return df, calls


def _grouped_tasks(df, monkeypatch):
    """Tasks of every graph grouped() computes (it computes at once)."""
    counted = []
    compute = dask.compute

    def counting(*args, **kwargs):
        counted.append(_tasks(*args))
        return compute(*args, **kwargs)

    monkeypatch.setattr(hsd.dask, "compute", counting)
    hsd.grouped(df, by="seg", label="label", score="score", weight="weight",
                metrics=("auc", "h", "ks"), pos_label=1)
    monkeypatch.undo()
    return sum(counted)


# Tasks per partition and a constant: the input's own tasks (from_pandas, and the
# columns put side by side: 2 per partition), the per-partition work (1 to 3 passes),
# and the trees (one node per 7 children).
PER_PARTITION, CONSTANT = 6, 40


@pytest.mark.slow
def test_the_graph_grows_linearly_in_partitions(monkeypatch):
    measured = {}
    for n_parts in (10, 100, 1000):
        df, calls = _all_lazy(n_parts)
        assert df.npartitions == n_parts
        sizes = {name: _tasks(lazy) for name, lazy in calls.items()}
        sizes["grouped"] = _grouped_tasks(df, monkeypatch)
        measured[n_parts] = sizes
        too_many = {name: size for name, size in sizes.items()
                    if size > PER_PARTITION * n_parts + CONSTANT}
        assert too_many == {}, (n_parts, too_many)
    # And about linearly: ten times the partitions, at most ten times the tasks and more.
    for name in measured[10]:
        assert measured[1000][name] <= 10.5 * measured[100][name], name


def test_ranges_cost_tasks_per_partition_per_range():
    df = dd.from_pandas(NUMERIC, npartitions=100, sort=False)
    for n_ranges in (2, 5):
        lazy = hsd.hmeasure_report(df["label"], df["score"], n_ranges=n_ranges, compute=False)
        # Input 2, groups 1, sample 1, cut 1, and per range a piece and its tree's share.
        assert _tasks(lazy) <= (5 + 1.2 * n_ranges) * 100 + 40
        assert lazy.compute() == hs.hmeasure_report(FRAME["label"], FRAME["score"])


# ---------------------------------------------------------------------------
# The AUC's merge that keeps only counts, on partitions of every kind


def _one_class_blocks(n=4000, seed=20261202):
    """Rows whose first fifth is class 0 only and last fifth class 1 only, scores rounded
    to 1 decimal (ties across partitions), string and categorical labels, weights, and
    a column that empties some partitions when filtered on."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[: n // 5] = 0
    y[-n // 5:] = 1
    words = np.where(y == 1, "spam", "ham")
    return pd.DataFrame({
        "label": y, "score": np.round(rng.normal(0.5 * y, 1.0), 1),
        "word": pd.array(words, dtype="string"),
        "category": pd.Categorical(words, categories=["spam", "ham"]),
        "weight": rng.exponential(1.0, n), "keep": (np.arange(n) % 1000) < 600,
    })


def _brute_twice_u(y, s):
    """2U by comparing every pair."""
    pos, neg = s[y == 1], s[y == 0]
    return int(2 * (pos[:, None] > neg[None, :]).sum() + (pos[:, None] == neg[None, :]).sum())


def _brute_auc(y, s):
    """2U / (2 N0 N1) by comparing every pair, exactly."""
    return float(Fraction(_brute_twice_u(y, s), 2 * np.sum(y == 1) * np.sum(y == 0)))


@pytest.mark.parametrize("n_parts", [1, 7, 400])
def test_auc_of_counts_equals_pairs_on_any_partitions(n_parts):
    frame = _one_class_blocks()
    df = _from_pandas(frame, n_parts)
    # Filtered: rows kept in blocks of 600 of every 1000, so that at 400 partitions most
    # of every 10 in a row are emptied or hold one class only.
    for data, rows in ((df, frame), (df[df["keep"]], frame[frame["keep"]])):
        y, s = rows["label"].to_numpy(), rows["score"].to_numpy()
        expected = _brute_auc(y, s)
        assert hs.auc(y, s) == expected
        sd = data["score"]
        # Columns of one frame (one projection), and a Series of another collection.
        assert hsd.auc(data["label"], sd) == expected
        assert hsd.auc(data["label"].map_partitions(pd.Series.copy), sd) == expected
        assert hsd.auc(data["word"], sd, pos_label="spam") == expected
        assert hsd.auc(data["category"], sd, pos_label="spam") == expected
        assert hsd.auc(data["label"], sd, n_ranges=3) == expected
        w = rows["weight"].to_numpy()
        assert hsd.auc(data["label"], sd, sample_weight=data["weight"]) == pytest.approx(
            hs.auc(y, s, sample_weight=w), rel=WEIGHTED_TOL)
    lengths = df[df["keep"]].map_partitions(len).compute().tolist()
    assert len(lengths) == n_parts
    if n_parts == 400:
        assert lengths.count(0) >= 100


@pytest.mark.parametrize("n_ranges", [1, 2, 3, 8])
def test_auc_by_sorted_ranges_on_ties_at_the_boundaries(n_ranges):
    # Few distinct scores (signed zeros among them), so that the boundaries fall on
    # ties, some ranges are empty and some partitions hold one class only.
    rng = np.random.default_rng(7)
    n = 3000
    y = rng.integers(0, 2, n)
    s = rng.choice([-1.5, -0.0, 0.0, 0.5, 2.0], n) + 0.0 * y
    y[:400] = 0
    frame = pd.DataFrame({"label": y, "score": s})
    expected = _brute_auc(y, s)
    for n_parts in (1, 5, 60):
        df = _from_pandas(frame, n_parts)
        assert hsd.auc(df["label"], df["score"], n_ranges=n_ranges) == expected
    one_score = pd.DataFrame({"label": y, "score": np.full(n, 0.25)})
    df = _from_pandas(one_score, 5)
    assert hsd.auc(df["label"], df["score"], n_ranges=n_ranges) == 0.5


def test_sorted_range_summary_beyond_exact_counts_is_the_groups_summary(monkeypatch):
    # From EXACT_COUNT_LIMIT points 2U could wrap in int64: the range's summary is then
    # that of its groups in floats (as the merge of groups and the path in memory).
    rng = np.random.default_rng(3)
    neg, pos = rng.normal(size=50).round(1), rng.normal(0.5, size=70).round(1)
    pieces = [(neg[:20], pos[:30]), (neg[20:], pos[30:])]
    exact = groups_module.sorted_range_summary(pieces)
    assert exact[1:4] == (50, 70, _brute_twice_u(np.r_[np.zeros(50), np.ones(70)],
                                                 np.r_[neg, pos]))
    monkeypatch.setattr(groups_module, "EXACT_COUNT_LIMIT", 100)
    floats = groups_module.sorted_range_summary(pieces)
    assert isinstance(floats[3], float) and floats[1:4] == (50.0, 70.0, float(exact[3]))
