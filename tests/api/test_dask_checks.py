"""hmeasure_stream.dask: its messages, task counts and exact-path guards against the in-memory
functions'."""

import re
from fractions import Fraction

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.base import collections_to_expr

import hmeasure_stream as hs
from hmeasure_stream import dask as hsd
from hmeasure_stream._engines import _kway

RNG = np.random.default_rng(20261201)
Y = RNG.integers(0, 2, 40)
S = np.round(RNG.normal(Y * 0.7, 1.0), 1)
W = RNG.exponential(1.0, 40)


def _in_memory_message(*args, **kwargs):
    with pytest.raises(ValueError) as info:
        hs.auc(*args, **kwargs)
    return str(info.value)


def test_length_message_of_arrays_is_the_in_memory_one():
    expected = _in_memory_message(Y, S, sample_weight=W[:-1])
    assert expected == "sample_weight has 39 entries but there are 40 points"
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        hsd.auc(da.from_array(Y, chunks=9), da.from_array(S, chunks=9),
                sample_weight=da.from_array(W[:-1], chunks=9))
    expected = _in_memory_message(Y[:-1], S)
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        hsd.auc(da.from_array(Y[:-1], chunks=9), da.from_array(S, chunks=9))


def test_unknown_chunks_of_y_score_are_kept():
    # y_true's known chunks cannot be imposed on y_score's unknown ones: the partitions
    # are taken as they are, their numbers checked.
    unknown = dd.from_pandas(pd.Series(S), npartitions=4).to_dask_array()
    assert np.isnan(unknown.shape[0])
    assert hsd.auc(da.from_array(Y, chunks=10), unknown) == hs.auc(Y, S)
    with pytest.raises(ValueError, match="numbers of partitions differ"):
        hsd.auc(da.from_array(Y, chunks=20), unknown)
    # With y_true setting the chunks, the weights are compared with it.
    expected = _in_memory_message(Y, S, sample_weight=W[:-1])
    with pytest.raises(ValueError, match=f"^{re.escape(expected)}$"):
        hsd.auc(da.from_array(Y, chunks=10), unknown,
                sample_weight=da.from_array(W[:-1], chunks=10))


def test_length_message_of_frames_is_the_in_memory_one():
    y = dd.from_pandas(pd.Series(Y), npartitions=2)
    w = dd.from_pandas(pd.Series(W[:-1]), npartitions=2)
    s = dd.from_pandas(pd.Series(S), npartitions=2)
    w_sizes = w.map_partitions(len).compute().tolist()
    y_sizes = y.map_partitions(len).compute().tolist()
    k = next(i for i, (a, b) in enumerate(zip(w_sizes, y_sizes, strict=True)) if a != b)
    expected = _in_memory_message(Y[:y_sizes[k]], S[:y_sizes[k]],
                                  sample_weight=W[:w_sizes[k]])
    with pytest.raises(ValueError,
                       match=f"^{re.escape(expected)} \\(in partition {k}\\)$"):
        hsd.auc(y, s, sample_weight=w)
    s_short = dd.from_pandas(pd.Series(S[:-1]), npartitions=2)
    expected = _in_memory_message(Y[:y_sizes[k]], S[:w_sizes[k]])
    with pytest.raises(ValueError,
                       match=f"^{re.escape(expected)} \\(in partition {k}\\)$"):
        hsd.auc(y, s_short)


def _tasks(*lazy):
    return len(collections_to_expr(list(lazy), optimize_graph=True).optimize().__dask_graph__())


# The docs, beyond the inputs' own tasks: the AUC (its points sorted by range) about
# 1 task a partition with one range and R + 3 with R ranges (the class split, the
# sample, the cut and its R pieces, and 1 task for 7 samples); the metrics of the
# merged groups about 1.15 with one range and 1.15 R + 3 with R (the trees of merges:
# 1 task for 7 keys).
_DOCUMENTED_TASKS = {
    "auc": lambda n_ranges: 1.0 if n_ranges == 1 else n_ranges + 3.15,
    "h_measure": lambda n_ranges: 1.15 if n_ranges == 1 else 1.15 * n_ranges + 3,
}


@pytest.mark.parametrize("name", sorted(_DOCUMENTED_TASKS))
@pytest.mark.parametrize("n_ranges", [1, 2, 5])
def test_tasks_per_partition_as_documented(name, n_ranges):
    n_parts = 700
    frame = pd.DataFrame({"label": np.arange(7000) % 2, "score": np.arange(7000) % 97})
    df = dd.from_pandas(frame, npartitions=n_parts, sort=False)
    inputs = n_parts  # from_pandas: the two columns of one frame are read by one task
    lazy = getattr(hsd, name)(df["label"], df["score"], n_ranges=n_ranges, compute=False)
    own = _tasks(lazy) - inputs
    assert abs(own / n_parts - _DOCUMENTED_TASKS[name](n_ranges)) < 0.3


def _huge_counts():
    """Two groups of 2**32 points of each class, unit weights: 2 N0 N1 = 2**67."""
    count = 2**32
    groups = (np.array([2.0, 1.0]), np.array([count, count], dtype=np.int64),
              np.array([count, count], dtype=np.int64))
    context = {"unit_weights": True, "weight_neg": 2 * count, "weight_pos": 2 * count,
               "fp_offsets": [0], "tp_offsets": [0], "twice_u": 2 * count * count * 2}
    return groups, context


@pytest.mark.parametrize(("fpr", "tpr", "expected"), [
    ((0.0, 1.0), (0.0, 1.0), 0.5),  # two diagonal segments: the area under the diagonal
    ((0.0, 0.5), (0.0, 1.0), 0.125),
    ((0.25, 1.0), (0.5, 1.0), 0.125),  # the triangle above tpr 0.5, right of 0.5
])
def test_partial_auc_beyond_int64_counts(fpr, tpr, expected):
    groups, context = _huge_counts()
    box = (*fpr, *tpr)
    piece = hsd._box_part(groups, context, 0, box)
    options = (fpr, tpr, fpr, tpr, None)
    assert hsd._partial_of(options, context, [piece]) == pytest.approx(expected, rel=1e-12)


def test_partial_auc_takes_the_float_path_beyond_the_limit(monkeypatch):
    from hmeasure_stream import _validation

    y, s = Y, S
    exact = hs.partial_auc(y, s, fpr_range=(0.1, 0.6))
    monkeypatch.setattr(_validation, "EXACT_COUNT_LIMIT", 30)
    monkeypatch.setattr(hsd, "EXACT_COUNT_LIMIT", 30)
    in_memory = hs.partial_auc(y, s, fpr_range=(0.1, 0.6))
    assert in_memory == pytest.approx(exact, rel=1e-12)

    def refused(*args):
        raise AssertionError("the exact path at 40 points with a limit of 30")

    monkeypatch.setattr(hsd, "_exact_box_piece", refused)
    for n_ranges in (1, 3):
        value = hsd.partial_auc(da.from_array(y, chunks=7), da.from_array(s, chunks=7),
                                fpr_range=(0.1, 0.6), n_ranges=n_ranges)
        assert value == pytest.approx(in_memory, rel=1e-12)


def test_report_threshold_is_the_exact_one():
    y = np.array([0, 1, 0, 1, 1, 0])
    s = np.array([1 / 3, 0.2, 0.9, 0.5, 0.4, 0.1])
    threshold = Fraction(1, 3)  # above the double 1/3: the point scored 1/3 is class 0
    expected = hs.hmeasure_report(y, s, threshold=threshold)
    got = hsd.hmeasure_report(da.from_array(y, chunks=4), da.from_array(s, chunks=4),
                              threshold=threshold)
    assert got.keys() == expected.keys()
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=1e-12, nan_ok=True), key
    rounded = hs.hmeasure_report(y, s, threshold=1 / 3)
    assert rounded["FP"] != expected["FP"]


def test_auc_ci_beyond_int64_counts():
    from scipy.stats import norm

    groups, context = _huge_counts()
    context = {**context, "auc": 0.5}
    interval = hsd._interval_of(context, 0.95, [hsd._delong_piece(groups, context, 0)])
    # Every placement is 1/2 -+ 1/4: the variance of each class's mean is
    # (1/16) / (2K - 1) for its 2K points, K = 2**32.
    variance = 2 * (1 / 16) / (2 * 2**32 - 1)
    half = norm.ppf(0.975) * variance ** 0.5
    assert interval.estimate == 0.5
    assert interval.low == pytest.approx(0.5 - half, rel=1e-9)
    assert interval.high == pytest.approx(0.5 + half, rel=1e-9)


def test_ranges_beyond_the_exact_count_limit_take_the_float_path(monkeypatch):
    """A range of more than EXACT_COUNT_LIMIT points is summarised in float64, as in memory:
    its int64 products of counts (2U, the hull's cross products) could wrap (from about
    3e9 points a class)."""
    from hmeasure_stream._core import groups

    y, s = Y, S
    expected = {"auc": hs.auc(y, s), "h": hs.h_measure(y, s),
                "report": hs.hmeasure_report(y, s)}
    auc2_groups = groups._scratch.auc2_groups

    def float_beyond_the_limit(neg, pos):
        assert not (neg.dtype == np.int64 and int(neg.sum()) + int(pos.sum()) >= 30), \
            "int64 counts of a range beyond the limit"
        return auc2_groups(neg, pos)

    def below_the_limit(merged):
        # The last merges that count (and build the hull) do it in int64 only below it.
        def checked(pieces):
            assert sum(int(p[1].sum()) + int(p[2].sum()) for p in pieces) < 30, \
                "int64 counts of a merge beyond the limit"
            return merged(pieces)
        return checked

    monkeypatch.setattr(groups, "EXACT_COUNT_LIMIT", 30, raising=False)
    monkeypatch.setattr(hsd, "EXACT_COUNT_LIMIT", 30)
    monkeypatch.setattr(groups._scratch, "auc2_groups", float_beyond_the_limit)
    for name in ("merged_counts", "merged_hull"):
        monkeypatch.setattr(_kway, name, below_the_limit(getattr(_kway, name)))
    for n_ranges in (1, 3):
        yd, sd = da.from_array(y, chunks=7), da.from_array(s, chunks=7)
        assert hsd.auc(yd, sd, n_ranges=n_ranges) == pytest.approx(expected["auc"], rel=1e-12)
        assert hsd.h_measure(yd, sd, n_ranges=n_ranges) == pytest.approx(expected["h"],
                                                                         rel=1e-12)
        report = hsd.hmeasure_report(yd, sd, n_ranges=n_ranges)
        assert report == pytest.approx(expected["report"], rel=1e-12)


def _runs_merged(runs):
    """Groups of runs merged by a dict (equal keys summed), highest first; and 2U by pairs."""
    merged = {}
    for keys, neg, pos in runs:
        for key, n, p in zip(keys.tolist(), neg.tolist(), pos.tolist(), strict=True):
            total = merged.setdefault(key, [0, 0])
            total[0] += n
            total[1] += p
    keys = sorted(merged, reverse=True)
    twice_u = sum(merged[a][0] * merged[b][1] * (2 if b > a else 1)
                  for a in keys for b in keys if b >= a)
    return keys, merged, twice_u


@pytest.mark.parametrize("n_runs", [1, 2, 3, 8, 9, 64, 70])
def test_merges_of_runs_equal_a_dict_merge(n_runs):
    # Runs with ties across them, empty runs and runs of one class, as the partitions
    # send them; a loser tree of any number of leaves.
    rng = np.random.default_rng(n_runs)
    runs = []
    for k in range(n_runs):
        size = 0 if k % 5 == 4 else int(rng.integers(1, 40))
        keys = np.sort(rng.choice(np.arange(-30, 30) / 4, size, replace=False))[::-1].copy()
        neg = rng.integers(0, 4, size) if k % 3 else np.zeros(size, dtype=np.int64)
        pos = rng.integers(1, 4, size) if k % 3 == 2 else rng.integers(0, 4, size)
        runs.append((keys, neg.astype(np.int64), pos.astype(np.int64)))
    keys, merged, twice_u = _runs_merged(runs)
    got_keys, got_neg, got_pos = _kway.merge_groups(runs)
    assert got_keys.tolist() == keys
    assert got_neg.dtype == np.int64
    assert got_neg.tolist() == [merged[key][0] for key in keys]
    assert got_pos.tolist() == [merged[key][1] for key in keys]
    n_neg = sum(n for n, _ in merged.values())
    n_pos = sum(p for _, p in merged.values())
    assert _kway.merged_counts(runs) == (len(keys), n_neg, n_pos, twice_u)
    # Weights: the same merge in float64, sums of the same terms (exact here: quarters).
    weighted = [(k, n / 4, p / 4) for k, n, p in runs]
    got_keys, got_neg, got_pos = _kway.merge_groups(weighted)
    assert got_keys.tolist() == keys
    assert got_neg.tolist() == [merged[key][0] / 4 for key in keys]
    assert got_pos.tolist() == [merged[key][1] / 4 for key in keys]


def test_equal_keys_keep_the_first_runs_sign_of_zero():
    # -0.0 == 0.0: one group, whose key is the one of the earliest run holding it.
    plus = (np.array([1.0, 0.0]), np.array([1, 1]), np.array([0, 1]))
    minus = (np.array([-0.0]), np.array([2]), np.array([3]))
    for runs, negative in (([plus, minus], False), ([minus, plus], True),
                           ([minus, minus, plus], True)):
        keys, neg, pos = _kway.merge_groups(runs)
        assert keys.tolist() == [1.0, 0.0]
        assert bool(np.signbit(keys[1])) is negative
        assert neg.tolist() == [1, 1 + 2 * (len(runs) - 1)]
        assert pos.tolist() == [0, 1 + 3 * (len(runs) - 1)]


@pytest.mark.parametrize("n_runs", [1, 3, 9])
def test_hull_of_merged_runs_is_the_hull_of_the_merge(n_runs):
    # Points on a convex curve (every group a vertex), collinear runs and groups of
    # weight 0: the streamed hull against the upper hull of the stored merge, and against
    # the vertices kept by brute force (a point is a vertex if it lies strictly above
    # the chord of its neighbours among the kept ones).
    rng = np.random.default_rng(40 + n_runs)
    runs = []
    for k in range(n_runs):
        size = int(rng.integers(0, 300))
        keys = np.sort(rng.choice(np.arange(-400, 400) / 8, size, replace=False))[::-1].copy()
        neg = rng.integers(0, 3, size).astype(np.int64)
        pos = rng.integers(0, 3, size).astype(np.int64)
        if k == 0:
            neg[::7] = 0
            pos[::7] = 0
        runs.append((keys, neg, pos))
    keys, neg, pos = _kway.merge_groups(runs)
    summary = hsd._summarise((keys, neg, pos), False, True)
    m, n_neg, n_pos, twice_u, (edge_neg, edge_pos) = _kway.merged_hull(runs)
    assert (m, n_neg, n_pos, twice_u) == summary[:4]
    assert edge_neg.dtype == np.int64
    np.testing.assert_array_equal(edge_neg, summary[4][0])
    np.testing.assert_array_equal(edge_pos, summary[4][1])
    # Brute force: the ROC points, and the upper hull by repeated removal of any point
    # not strictly above the chord of its neighbours.
    points = [(0, 0)]
    for n, p in zip(neg.tolist(), pos.tolist(), strict=True):
        if n or p:
            points.append((points[-1][0] + n, points[-1][1] + p))
    changed = True
    while changed:
        changed = False
        for k in range(1, len(points) - 1):
            (ax, ay), (bx, by), (cx, cy) = points[k - 1], points[k], points[k + 1]
            if (bx - ax) * (cy - ay) - (by - ay) * (cx - ax) >= 0:  # not a clockwise turn
                del points[k]
                changed = True
                break
    assert np.diff([x for x, _ in points]).tolist() == edge_neg.tolist()
    assert np.diff([y for _, y in points]).tolist() == edge_pos.tolist()
