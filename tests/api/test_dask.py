"""hmeasure_stream.dask on a real LocalCluster (2 worker processes) against the in-memory functions.

Every value is compared with the package's in-memory function on the same
rows (which the other test modules check against brute force, scikit-learn,
R), and the AUCs also with scikit-learn directly.
"""

import math
import warnings

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from dask.delayed import Delayed
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import cross_val_predict

import hmeasure_stream as hs
from hmeasure_stream import dask as hsd
from hmeasure_stream._demo import load_default_stream

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py, and
# binned_auc's OutOfRangeScoresWarning (scores beyond (0, 1)) in test_messages.py.
pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning"),
              pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")]

AUC_TOL = 1e-12
H_TOL = 1e-9


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=":0", memory_limit="3GiB") as cluster:
        with Client(cluster) as client:
            yield client


def _digits():
    y, s = load_default_stream()
    return y.astype(np.int64), s


def _cancer():
    data = load_breast_cancer()
    x = (data.data - data.data.mean(axis=0)) / data.data.std(axis=0)
    model = LogisticRegression(C=0.05, max_iter=2000)
    # Out-of-fold probabilities rounded to 2 decimals: many ties, across partitions.
    proba = cross_val_predict(model, x, data.target, cv=5, method="predict_proba")[:, 1]
    return data.target.astype(np.int64), np.round(proba, 2)


def _datasets():
    rng = np.random.default_rng(20261122)
    y_digits, s_digits = _digits()
    y_cancer, s_cancer = _cancer()
    n = 5000
    y_skew = rng.integers(0, 2, n)
    s_skew = np.where(rng.random(n) < 0.9, 0.5, np.round(rng.normal(y_skew * 0.3, 1.0), 3))
    # Sorted by label: the first partitions hold class 0 only, the last class 1 only.
    y_sorted = np.sort(rng.integers(0, 2, 3000))
    s_sorted = np.round(rng.normal(y_sorted * 0.5, 1.0), 1)
    return {
        "digits": (y_digits, s_digits),
        "cancer_ties": (y_cancer, s_cancer),
        "skew90": (y_skew, s_skew),
        "class_absent_in_partitions": (y_sorted, s_sorted),
    }


DATASETS = _datasets()


def _weights(n, seed=3):
    rng = np.random.default_rng(seed)
    w = rng.exponential(1.0, n)
    w[rng.random(n) < 0.05] = 0.0
    return w


def _as_arrays(y, s, w=None, chunks=257):
    out = [da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)]
    out.append(None if w is None else da.from_array(w, chunks=chunks))
    return out


def _as_columns(y, s, w=None, npartitions=7):
    frame = pd.DataFrame({"label": y, "score": s})
    if w is not None:
        frame["weight"] = w
    df = dd.from_pandas(frame, npartitions=npartitions, sort=False)
    return df["label"], df["score"], (df["weight"] if w is not None else None)


@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.parametrize("weighted", [False, True])
def test_auc_h_hull_equal_in_memory(client, name, weighted):
    y, s = DATASETS[name]
    w = _weights(len(y)) if weighted else None
    for yd, sd, wd in (_as_arrays(y, s, w), _as_columns(y, s, w)):
        # One compute: the three share their range partition (equal task keys).
        got, h, (fpr, tpr) = dask.compute(
            hsd.auc(yd, sd, sample_weight=wd, compute=False),
            hsd.h_measure(yd, sd, sample_weight=wd, compute=False),
            hsd.roc_hull(yd, sd, sample_weight=wd, compute=False),
        )
        expected = hs.auc(y, s, sample_weight=w)
        if weighted:
            assert got == pytest.approx(expected, rel=AUC_TOL, abs=AUC_TOL)
        else:
            assert got == expected  # exact integer arithmetic on both sides
        assert got == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
        assert h == pytest.approx(hs.h_measure(y, s, sample_weight=w), abs=H_TOL)
        fpr_mem, tpr_mem = hs.roc_hull(y, s, sample_weight=w)
        if weighted:
            # Rounding may keep or drop a vertex within 1e-12 of a straight line.
            area = np.sum(np.diff(fpr) * (tpr[1:] + tpr[:-1])) / 2
            area_mem = np.sum(np.diff(fpr_mem) * (tpr_mem[1:] + tpr_mem[:-1])) / 2
            assert area == pytest.approx(area_mem, abs=1e-12)
        else:
            np.testing.assert_array_equal(fpr, fpr_mem)
            np.testing.assert_array_equal(tpr, tpr_mem)


@pytest.mark.parametrize("n_ranges", [1, 2, 5, 40])
def test_any_number_of_ranges(client, n_ranges):
    y, s = DATASETS["cancer_ties"]
    yd, sd, _ = _as_arrays(y, s, chunks=50)
    assert hsd.auc(yd, sd, n_ranges=n_ranges) == hs.auc(y, s)
    assert hsd.h_measure(yd, sd, n_ranges=n_ranges, severity_ratio=0.3) == pytest.approx(
        hs.h_measure(y, s, severity_ratio=0.3), abs=H_TOL
    )


@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.parametrize("weighted", [False, True])
def test_report_equals_in_memory(client, name, weighted):
    y, s = DATASETS[name]
    w = _weights(len(y), seed=5) if weighted else None
    yd, sd, wd = _as_arrays(y, s, w, chunks=301)
    options = {"severity_ratio": "prior", "sens_spec_levels": (0.8, 0.95)}
    got = hsd.hmeasure_report(yd, sd, sample_weight=wd, **options)
    expected = hs.hmeasure_report(y, s, sample_weight=w, **options)
    assert list(got) == list(expected)
    for key, value in expected.items():
        tol = AUC_TOL if key in ("AUC", "Gini", "KS") else H_TOL
        assert got[key] == pytest.approx(value, abs=tol), key
    frame = hsd.hmeasure_report(yd, sd, priors=(0.7, 0.3), alpha=3.0, beta=1.5,
                                sample_weight=wd, as_frame=True)
    expected = hs.hmeasure_report(y, s, priors=(0.7, 0.3), alpha=3.0, beta=1.5,
                                  sample_weight=w, as_frame=True)
    pd.testing.assert_frame_equal(frame, expected, rtol=0, atol=H_TOL)


@pytest.mark.parametrize("name", ["digits", "cancer_ties", "skew90"])
@pytest.mark.parametrize("weighted", [False, True])
def test_partial_auc_and_delong_equal_in_memory(client, name, weighted):
    y, s = DATASETS[name]
    w = _weights(len(y), seed=7) if weighted else None
    yd, sd, wd = _as_columns(y, s, w, npartitions=9)
    boxes = (
        {},
        {"fpr_range": (0.0, 0.2), "correction": "mcclish"},
        {"tpr_range": (0.9, 1.0)},
        {"fpr_range": (0.1, 0.6), "tpr_range": (0.5, 0.95)},
    )
    *areas, interval = dask.compute(
        *[hsd.partial_auc(yd, sd, sample_weight=wd, compute=False, **box) for box in boxes],
        hsd.auc_ci(yd, sd, sample_weight=wd, level=0.9, compute=False),
    )
    for box, got in zip(boxes, areas, strict=True):
        expected = hs.partial_auc(y, s, sample_weight=w, **box)
        assert got == pytest.approx(expected, rel=AUC_TOL, abs=AUC_TOL), box
    (low, high), estimate = interval, interval.estimate
    expected = hs.auc_ci(y, s, sample_weight=w, level=0.9)
    assert estimate == pytest.approx(expected.estimate, rel=AUC_TOL, abs=AUC_TOL)
    assert low == pytest.approx(expected.low, rel=1e-10)
    assert high == pytest.approx(expected.high, rel=1e-10)
    # The variance itself, through the width of the interval.
    variance = (hs.auc_variance(y, s, sample_weight=w))
    z = 1.6448536269514722
    if 0 < low and high < 1:
        assert ((high - low) / (2 * z)) ** 2 == pytest.approx(variance, rel=1e-9)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("transform", [None, "loglog"])
def test_binned_auc_equals_in_memory(client, weighted, transform):
    rng = np.random.default_rng(11)
    n = 200_003  # the log-log alpha sample strides across partitions (step 4)
    y = rng.integers(0, 2, n)
    s = 1.0 / (1.0 + np.exp(-rng.normal(2.0 * y - 1.0, 2.0)))
    w = _weights(n, seed=13) if weighted else None
    yd, sd, wd = _as_arrays(y, s, w, chunks=30_011)
    got = hsd.binned_auc(yd, sd, n_bins=64, transform=transform, sample_weight=wd)
    expected = hs.binned_auc(y, s, n_bins=64, transform=transform, sample_weight=w)
    assert got.loglog_alpha == expected.loglog_alpha
    np.testing.assert_allclose(got.counts_neg, expected.counts_neg, rtol=1e-12)
    np.testing.assert_allclose(got.counts_pos, expected.counts_pos, rtol=1e-12)
    assert got.auc == pytest.approx(expected.auc, rel=AUC_TOL)
    assert got.max_error == pytest.approx(expected.max_error, rel=AUC_TOL)
    assert got.expected_error == pytest.approx(expected.expected_error, rel=1e-10)
    assert (got.n_below, got.n_above) == (expected.n_below, expected.n_above)
    assert abs(got.auc - hs.auc(y, s, sample_weight=w)) <= got.max_error


@pytest.mark.parametrize("method", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted", None])
def test_multiclass_equals_in_memory(client, method, average):
    rng = np.random.default_rng(17)
    n, c = 2000, 4
    names = np.array(["ant", "bee", "cat", "dog"])
    codes = rng.integers(0, c, n)
    logits = rng.normal(0, 1, (n, c)) + np.eye(c)[codes] * 1.2
    scores = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)
    y = names[codes]
    yd = da.from_array(y, chunks=333)
    sd = da.from_array(scores, chunks=(333, 2))  # column chunks are joined
    got = hsd.multiclass_auc(yd, sd, method=method, average=average)
    expected = hs.multiclass_auc(y, scores, method=method, average=average)
    np.testing.assert_allclose(got, expected, rtol=0, atol=AUC_TOL)
    # The one-vs-rest AUCs also from scikit-learn, class by class.
    if method == "ovr" and average is None:
        for k, name in enumerate(names):
            assert got[k] == pytest.approx(roc_auc_score(y == name, scores[:, k]), abs=1e-12)


def test_multiclass_frame_with_weights(client):
    rng = np.random.default_rng(23)
    n, c = 1500, 3
    codes = rng.integers(0, c, n)
    scores = np.round(rng.random((n, c)) + np.eye(c)[codes] * 0.4, 2)
    w = _weights(n, seed=29)
    frame = pd.DataFrame(scores, columns=["p0", "p1", "p2"])
    frame["label"] = codes
    frame["w"] = w
    df = dd.from_pandas(frame, npartitions=6, sort=False)
    for method in ("ovr", "ovo"):
        got = hsd.multiclass_auc(df["label"], df[["p0", "p1", "p2"]], method=method,
                                 average=None, sample_weight=df["w"])
        expected = hs.multiclass_auc(codes, scores, method=method, average=None,
                                     sample_weight=w)
        np.testing.assert_allclose(got, expected, rtol=0, atol=AUC_TOL)
    got = hsd.multiclass_auc(df["label"], df[["p2", "p0", "p1"]], classes=[2, 0, 1])
    expected = hs.multiclass_auc(codes, scores[:, [2, 0, 1]], classes=[2, 0, 1])
    assert got == pytest.approx(expected, abs=AUC_TOL)


def test_multiclass_with_a_listed_class_without_points_as_in_memory(client):
    # scikit-learn's rules (a pair without points left out; weight 0; nan), as in memory.
    rng = np.random.default_rng(41)
    n = 900
    codes = rng.integers(0, 3, n)
    scores = np.round(rng.random((n, 4)) + np.eye(4)[codes] * 0.5, 2)
    yd, sd = da.from_array(codes, chunks=200), da.from_array(scores, chunks=(200, 4))
    for method, average in (("ovo", "macro"), ("ovo", "weighted"), ("ovr", "weighted"),
                            ("ovr", None), ("ovo", None)):
        got = hsd.multiclass_auc(yd, sd, method=method, average=average, classes=[0, 1, 2, 3])
        expected = hs.multiclass_auc(codes, scores, method=method, average=average,
                                     classes=[0, 1, 2, 3])
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected))
        np.testing.assert_allclose(got, expected, rtol=0, atol=AUC_TOL)
    with pytest.raises(ValueError, match=r"class 3 \(column 3\) has no points"):
        hsd.multiclass_auc(yd, sd, method="ovr", classes=[0, 1, 2, 3])


def test_empty_partitions(client):
    y, s = DATASETS["cancer_ties"]
    chunks = ((0, 100, 0, 0, 200, len(y) - 300, 0),)
    yd, sd = da.from_array(y, chunks=chunks), da.from_array(s, chunks=chunks)
    assert hsd.auc(yd, sd) == hs.auc(y, s)
    assert hsd.h_measure(yd, sd) == pytest.approx(hs.h_measure(y, s), abs=H_TOL)
    report = hsd.hmeasure_report(yd, sd)
    for key, value in hs.hmeasure_report(y, s).items():
        assert report[key] == pytest.approx(value, abs=H_TOL), key
    # A dask DataFrame whose filter empties some partitions (unknown lengths).
    frame = pd.DataFrame({"label": y, "score": s, "keep": np.arange(len(y)) % 200 < 60})
    df = dd.from_pandas(frame, npartitions=8, sort=False)
    df = df[df["keep"]]
    kept = frame[frame["keep"]]
    assert hsd.auc(df["label"], df["score"]) == hs.auc(kept["label"], kept["score"])
    w = _weights(len(y))
    wd = da.from_array(w, chunks=chunks)
    assert hsd.auc(yd, sd, sample_weight=wd) == pytest.approx(
        hs.auc(y, s, sample_weight=w), rel=AUC_TOL
    )


def test_compute_false_returns_a_dask_object(client):
    y, s = DATASETS["digits"]
    yd, sd, _ = _as_arrays(y, s)
    lazy = [
        hsd.auc(yd, sd, compute=False),
        hsd.h_measure(yd, sd, compute=False),
        hsd.hmeasure_report(yd, sd, compute=False),
        hsd.partial_auc(yd, sd, fpr_range=(0, 0.1), compute=False),
        hsd.auc_ci(yd, sd, compute=False),
        hsd.binned_auc(yd, sd, n_bins=10, score_range=(-200, 200), compute=False),
        hsd.roc_hull(yd, sd, compute=False),
    ]
    assert all(isinstance(value, Delayed) for value in lazy)
    values = dask.compute(*lazy)
    assert values[0] == hs.auc(y, s)
    assert values[1] == pytest.approx(hs.h_measure(y, s), abs=H_TOL)
    assert values[2]["KS"] == pytest.approx(hs.hmeasure_report(y, s)["KS"], abs=AUC_TOL)
    assert values[3] == pytest.approx(hs.partial_auc(y, s, fpr_range=(0, 0.1)), rel=AUC_TOL)
    assert values[4].estimate == hs.auc(y, s)
    assert values[5].auc == hs.binned_auc(y, s, n_bins=10, score_range=(-200, 200)).auc
    np.testing.assert_array_equal(values[6][0], hs.roc_hull(y, s)[0])


def test_data_errors_name_the_partition(client):
    y, s = DATASETS["digits"]
    bad = s.copy()
    bad[600] = np.nan
    yd, sd, _ = _as_arrays(y, bad, chunks=257)
    with pytest.raises(ValueError, match=r"y_score must contain only finite values; found nan "
                                         r"at position 86 \(in partition 2\)"):
        hsd.auc(yd, sd)
    labels = y.copy()
    labels[5] = 2
    yd, sd, _ = _as_arrays(labels, s, chunks=257)
    with pytest.raises(ValueError, match=r"y_true must contain only labels 0 and 1.*"
                                         r"found 2 at position 5 \(in partition 0\)"):
        hsd.h_measure(yd, sd)
    yd, sd, _ = _as_arrays(np.zeros(len(y), dtype=int), s)
    with pytest.raises(ValueError, match="AUC is undefined when only one class is present"):
        hsd.auc(yd, sd)
    empty = da.from_array(np.empty(0), chunks=10)
    with pytest.raises(ValueError, match="y_true is empty"):
        hsd.auc(empty, empty)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        hsd.auc(*_as_arrays(y, s, -np.ones(len(y)))[:2], sample_weight=da.from_array(
            -np.ones(len(y)), chunks=257))


def test_input_errors_at_once():
    y, s = DATASETS["digits"]
    yd, sd, _ = _as_arrays(y, s)
    with pytest.raises(ValueError, match="y_score must be a dask array or a dask DataFrame "
                                         "column, got ndarray"):
        hsd.auc(yd, s)
    with pytest.raises(ValueError, match="y_true must be 1-d"):
        hsd.auc(da.zeros((4, 2)), sd)
    frame = dd.from_pandas(pd.DataFrame({"a": y, "b": s}), npartitions=3)
    with pytest.raises(ValueError, match="numbers of partitions differ"):
        hsd.auc(frame["a"], dd.from_pandas(pd.Series(s), npartitions=2))
    with pytest.raises(ValueError, match="must be one column"):
        hsd.auc(frame, sd)
    with pytest.raises(ValueError, match="alpha must be a finite number > 0"):
        hsd.h_measure(yd, sd, alpha=-1.0, compute=False)
    with pytest.raises(ValueError, match="n_ranges must be an integer >= 1"):
        hsd.auc(yd, sd, n_ranges=0)
    with pytest.raises(ValueError, match='method="bootstrap" is not available'):
        hsd.auc_ci(yd, sd, method="bootstrap")
    with pytest.raises(ValueError, match="y_true and y_score have different lengths"):
        hsd.auc(yd[:-1], sd)


def _segments_frame(rng):
    """Segments from large (many partitions) to tiny, one with a single class."""
    sizes = {"big": 6000, "mid": 2500, "small": 300, "tiny": 12, "onlyneg": 40, "skewed": 3000}
    parts = []
    for name, size in sizes.items():
        y = rng.integers(0, 2, size)
        if name == "onlyneg":
            y[:] = 0
        s = np.round(rng.normal(y * 0.8, 1.0), 2)
        if name == "skewed":
            s[rng.random(size) < 0.9] = 0.25
        parts.append(pd.DataFrame({"seg": name, "label": y, "score": s,
                                   "w": rng.exponential(1.0, size)}))
    frame = pd.concat(parts, ignore_index=True)
    return frame.iloc[rng.permutation(len(frame))].reset_index(drop=True)


@pytest.mark.parametrize("weighted", [False, True])
def test_grouped_equals_in_memory_per_segment(client, rng, weighted):
    frame = _segments_frame(rng)
    df = dd.from_pandas(frame, npartitions=8, sort=False)
    metrics = ("auc", "h", "auch", "gini", "ks", "mer", "mwl")
    table = hsd.grouped(df, by="seg", label="label", score="score",
                        weight="w" if weighted else None, metrics=metrics,
                        severity_ratio=0.5, small_rows=1000)
    assert list(table.columns) == ["n_neg", "n_pos", *metrics]
    assert sorted(table.index) == list(table.index) == sorted(frame["seg"].unique())
    names = {"auc": "AUC", "h": "H", "auch": "AUCH", "gini": "Gini", "ks": "KS", "mer": "MER",
             "mwl": "MWL"}
    for segment, rows in frame.groupby("seg"):
        w = rows["w"].to_numpy() if weighted else None
        y, s = rows["label"].to_numpy(), rows["score"].to_numpy()
        weight = np.ones(len(y)) if w is None else w
        assert table.loc[segment, "n_neg"] == pytest.approx(weight[y == 0].sum(), rel=1e-12)
        assert table.loc[segment, "n_pos"] == pytest.approx(weight[y == 1].sum(), rel=1e-12)
        if segment == "onlyneg":
            assert table.loc[segment, list(metrics)].isna().all()
            continue
        report = hs.hmeasure_report(y, s, sample_weight=w, severity_ratio=0.5)
        for metric in metrics:
            assert table.loc[segment, metric] == pytest.approx(
                report[names[metric]], abs=H_TOL
            ), (segment, metric)
        if not weighted:
            assert table.loc[segment, "auc"] == hs.auc(y, s)


def test_grouped_default_threshold_and_refusals(client, rng):
    frame = _segments_frame(rng)
    df = dd.from_pandas(frame, npartitions=4, sort=False)
    table = hsd.grouped(df, by="seg", label="label", score="score")
    for segment, rows in frame.groupby("seg"):
        if segment == "onlyneg":
            assert math.isnan(table.loc[segment, "auc"])
            continue
        assert table.loc[segment, "auc"] == hs.auc(rows["label"], rows["score"])
        assert table.loc[segment, "h"] == pytest.approx(
            hs.h_measure(rows["label"], rows["score"]), abs=H_TOL
        )
    with pytest.raises(ValueError, match="metrics must be among"):
        hsd.grouped(df, by="seg", label="label", score="score", metrics=("auc", "brier"))
    with pytest.raises(ValueError, match="label='y' is not a column of df"):
        hsd.grouped(df, by="seg", label="y", score="score")
    bad = frame.copy()
    bad.loc[bad.index[bad["seg"] == "big"][7], "label"] = 3
    with pytest.raises(ValueError, match=r"label must contain only labels 0 and 1.*"
                                         r"\(in segment 'big'\)"):
        hsd.grouped(dd.from_pandas(bad, npartitions=4, sort=False), by="seg", label="label",
                    score="score", small_rows=1000)


# ---------------------------------------------------------------------------
# pos_label: the class 0 label agreed over all partitions


def _words(y, pos="spam", neg="ham"):
    return np.where(y == 1, pos, neg).astype(object)


@pytest.mark.parametrize("name", ["cancer_ties", "class_absent_in_partitions"])
@pytest.mark.parametrize("weighted", [False, True])
def test_pos_label_string_labels_equal_in_memory(client, name, weighted):
    # "class_absent_in_partitions": the first partitions hold "ham" only, the last "spam"
    # only, so no partition alone sees both labels.
    y, s = DATASETS[name]
    words = _words(y)
    w = _weights(len(y), seed=19) if weighted else None
    box = {"fpr_range": (0.0, 0.3), "correction": "mcclish"}
    options = {"severity_ratio": 0.4}
    for yd, sd, wd in (_as_arrays(words, s, w, chunks=149), _as_columns(words, s, w)):
        got = dask.compute(
            hsd.auc(yd, sd, sample_weight=wd, pos_label="spam", compute=False),
            hsd.h_measure(yd, sd, sample_weight=wd, pos_label="spam", compute=False, **options),
            hsd.roc_hull(yd, sd, sample_weight=wd, pos_label="spam", compute=False),
            hsd.hmeasure_report(yd, sd, sample_weight=wd, pos_label="spam", compute=False),
            hsd.partial_auc(yd, sd, sample_weight=wd, pos_label="spam", compute=False, **box),
            hsd.auc_ci(yd, sd, sample_weight=wd, pos_label="spam", compute=False),
            hsd.binned_auc(yd, sd, sample_weight=wd, pos_label="spam", n_bins=16,
                           compute=False),
        )
        auc, h, (fpr, tpr), report, partial, ci, binned = got
        (low, high), estimate = ci, ci.estimate
        expected = hs.auc(words, s, sample_weight=w, pos_label="spam")
        # The in-memory function with the same pos_label, and the 0/1 labels directly.
        assert expected == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
        assert auc == pytest.approx(expected, rel=AUC_TOL, abs=AUC_TOL)
        if not weighted:
            assert auc == expected
        assert h == pytest.approx(
            hs.h_measure(words, s, sample_weight=w, pos_label="spam", **options), abs=H_TOL)
        fpr_mem, tpr_mem = hs.roc_hull(words, s, sample_weight=w, pos_label="spam")
        np.testing.assert_allclose(fpr, fpr_mem, atol=1e-12)
        np.testing.assert_allclose(tpr, tpr_mem, atol=1e-12)
        report_mem = hs.hmeasure_report(words, s, sample_weight=w, pos_label="spam")
        assert list(report) == list(report_mem)
        for key, value in report_mem.items():
            assert report[key] == pytest.approx(value, abs=H_TOL), key
        assert partial == pytest.approx(
            hs.partial_auc(words, s, sample_weight=w, pos_label="spam", **box), abs=AUC_TOL)
        interval = hs.auc_ci(words, s, sample_weight=w, pos_label="spam")
        assert estimate == pytest.approx(interval.estimate, abs=AUC_TOL)
        assert (low, high) == pytest.approx((interval.low, interval.high), rel=1e-10)
        binned_mem = hs.binned_auc(words, s, sample_weight=w, pos_label="spam", n_bins=16)
        np.testing.assert_allclose(binned.counts_neg, binned_mem.counts_neg, rtol=1e-12)
        np.testing.assert_allclose(binned.counts_pos, binned_mem.counts_pos, rtol=1e-12)
        assert binned.auc == pytest.approx(binned_mem.auc, rel=AUC_TOL)


def test_pos_label_numeric_and_class_zero_choice(client):
    y, s = DATASETS["digits"]
    # pos_label=0 on 0/1 labels: class 1 is the label 0, so the AUC is 1 - AUC.
    yd, sd, _ = _as_arrays(y, s, chunks=300)
    assert hsd.auc(yd, sd, pos_label=0) == pytest.approx(1.0 - roc_auc_score(y, s), abs=1e-12)
    # Labels 7/3 (neither 0/1): refused without pos_label, read with it.
    sevens = np.where(y == 1, 7, 3)
    yd, sd, _ = _as_arrays(sevens, s, chunks=300)
    assert hsd.auc(yd, sd, pos_label=7) == hs.auc(y, s)
    with pytest.raises(ValueError, match="y_true must contain only labels 0 and 1"):
        hsd.auc(yd, sd)


def test_pos_label_third_label_names_it_and_its_partition(client):
    y, s = DATASETS["digits"]
    words = _words(y)
    words[600] = "eggs"  # partition 2 of chunks of 257, position 86
    for yd, sd, _ in (_as_arrays(words, s, chunks=257),):
        for function in (hsd.auc, hsd.h_measure, hsd.roc_hull, hsd.hmeasure_report,
                         hsd.partial_auc, hsd.auc_ci, hsd.binned_auc):
            with pytest.raises(ValueError, match=r"found a third, 'eggs', at position 86 "
                                                 r"\(in partition 2\)"):
                function(yd, sd, pos_label="spam")
    # A missing label is named too.
    words = _words(y)
    words[300] = None
    yd, sd, _ = _as_arrays(words, s, chunks=257)
    with pytest.raises(ValueError, match=r"missing label \(None\) at position 43 "
                                         r"\(in partition 1\)"):
        hsd.auc(yd, sd, pos_label="spam")


def test_pos_label_absent_everywhere(client):
    y, s = DATASETS["digits"]
    words = _words(y)
    yd, sd, _ = _as_arrays(words, s, chunks=257)
    # Misspelt: "spam" and "ham" are both other labels.
    with pytest.raises(ValueError, match=r"pos_label='Spam' is not a label of y_true, which "
                                         r"holds '(ham|spam)' and '(ham|spam)'"):
        hsd.auc(yd, sd, pos_label="Spam")
    # Only one label at all: one class.
    yd, sd, _ = _as_arrays(np.full(len(y), "ham", dtype=object), s, chunks=257)
    with pytest.raises(ValueError, match="only one class is present"):
        hsd.auc(yd, sd, pos_label="spam")
    with pytest.raises(ValueError, match="pos_label must be hashable"):
        hsd.auc(yd, sd, pos_label=["spam"])


def test_grouped_with_pos_label(client, rng):
    frame = _segments_frame(rng)
    frame["label"] = np.where(frame["label"] == 1, "yes", "no")
    df = dd.from_pandas(frame, npartitions=5, sort=False)
    table = hsd.grouped(df, by="seg", label="label", score="score", metrics=("auc", "h"),
                        small_rows=1000, pos_label="yes")
    for segment, rows in frame.groupby("seg"):
        y = (rows["label"] == "yes").to_numpy().astype(int)
        assert table.loc[segment, "n_pos"] == y.sum()
        assert table.loc[segment, "n_neg"] == len(y) - y.sum()
        if segment == "onlyneg":
            assert table.loc[segment, ["auc", "h"]].isna().all()
            continue
        assert table.loc[segment, "auc"] == pytest.approx(
            roc_auc_score(y, rows["score"]), abs=1e-12)
        assert table.loc[segment, "auc"] == hs.auc(rows["label"], rows["score"],
                                                    pos_label="yes")
        assert table.loc[segment, "h"] == pytest.approx(
            hs.h_measure(rows["label"], rows["score"], pos_label="yes"), abs=H_TOL)
    bad = frame.copy()
    bad.loc[bad.index[bad["seg"] == "tiny"][0], "label"] = "maybe"
    with pytest.raises(ValueError, match=r"found a third, 'maybe'.*\(in partition \d\)"):
        hsd.grouped(dd.from_pandas(bad, npartitions=5, sort=False), by="seg", label="label",
                    score="score", pos_label="yes")


def test_pos_label_class_one_only_in_the_first_partitions(client):
    # Sorted descending: the first partitions hold "spam" (class 1) only, so the class 0
    # label is learned from a later partition; one partition holds both labels.
    y, s = DATASETS["class_absent_in_partitions"]
    y, s = y[::-1].copy(), s[::-1].copy()
    words = _words(y)
    yd, sd, _ = _as_arrays(words, s, chunks=400)
    assert hsd.auc(yd, sd, pos_label="spam") == hs.auc(y, s)
    assert hsd.auc(yd, sd, pos_label="spam") == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert hsd.h_measure(yd, sd, pos_label="ham") == pytest.approx(
        hs.h_measure(1 - y, s), abs=H_TOL)
    words[-1] = "eggs"  # the last partition: a third label after the agreed pair
    yd, sd, _ = _as_arrays(words, s, chunks=400)
    last = (len(y) - 1) // 400
    with pytest.raises(ValueError, match=rf"found a third, 'eggs', at position "
                                         rf"{(len(y) - 1) % 400} \(in partition {last}\)"):
        hsd.auc(yd, sd, pos_label="spam")


# -- what reaches the user: the binned AUC's scores outside its range, no other warning


def _outside_scores():
    """Scores below 0 in the first partition only; the largest score in the last
    partition, which holds none outside (0, 1) above: the span is the whole's."""
    rng = np.random.default_rng(33)
    y = rng.integers(0, 2, 1200)
    s = 1.0 / (1.0 + np.exp(-rng.normal(2.0 * y - 1.0, 1.0)))
    s[[3, 40, 250]] = [-0.5, -2.25, -0.125]  # partition 0 of chunks of 300
    s[[700, 1100]] = [1.5, 1.75]  # partitions 2 and 3
    return y, s


def _one_warning(caught):
    assert [w.category for w in caught] == [hs.OutOfRangeScoresWarning], [
        str(w.message) for w in caught]
    return str(caught[0].message)


@pytest.mark.parametrize("weighted", [False, True])
def test_binned_auc_scores_outside_the_range_warn_once_for_the_whole(client, weighted):
    y, s = _outside_scores()
    w = _weights(len(y), seed=5) if weighted else None
    n_outside = int(np.count_nonzero((s < 0.0) | (s > 1.0)))
    low, high = float(np.min(s)), float(np.max(s))
    assert (n_outside, low, high) == (5, -2.25, 1.75)
    # Each partition alone sees fewer of them and a narrower span.
    assert all(np.count_nonzero((part < 0) | (part > 1)) < n_outside
               for part in np.split(s, 4))
    yd, sd, wd = _as_arrays(y, s, w, chunks=300)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = hsd.binned_auc(yd, sd, n_bins=20, sample_weight=wd)
    message = _one_warning(caught)
    assert caught[0].filename == __file__  # the caller's line, not a task's
    assert message.startswith(
        f"hmeasure_stream.dask.binned_auc: {n_outside} of {len(s)} scores (in "
        f"[{low!r}, {high!r}]) lie outside score_range (0.0, 1.0)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected = hs.binned_auc(y, s, n_bins=20, sample_weight=w)
    assert [str(w.message) for w in caught
            if w.category is hs.OutOfRangeScoresWarning] == [
        message.replace("hmeasure_stream.dask.binned_auc", "binned_auc")]
    assert (got.n_below, got.n_above) == (expected.n_below, expected.n_above) == (3, 2)
    assert got.auc == pytest.approx(expected.auc, rel=AUC_TOL)
    # Delayed: the same warning when computed.
    lazy = hsd.binned_auc(yd, sd, n_bins=20, sample_weight=wd, compute=False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert lazy.compute(scheduler="sync").auc == got.auc
    assert _one_warning(caught) == message


def test_binned_auc_strict_refuses_scores_outside_the_range(client):
    y, s = _outside_scores()
    yd, sd, _ = _as_arrays(y, s, chunks=300)
    refusal = (r"hmeasure_stream\.dask\.binned_auc: 5 of 1200 scores \(in \[-2\.25, 1\.75\]\) "
               r"lie outside score_range \(0\.0, 1\.0\), and strict=True refuses them")
    with pytest.raises(ValueError, match=refusal):
        hsd.binned_auc(yd, sd, n_bins=20, strict=True)
    lazy = hsd.binned_auc(yd, sd, n_bins=20, strict=True, compute=False)
    with pytest.raises(ValueError, match=refusal):
        lazy.compute()
    with pytest.raises(ValueError, match="strict must be one of"):
        hsd.binned_auc(yd, sd, strict="yes")
    # Within a range that holds them: no word, and the same counts as in memory.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = hsd.binned_auc(yd, sd, n_bins=20, strict=True, score_range=(-2.25, 1.75))
    assert caught == []
    expected = hs.binned_auc(y, s, n_bins=20, strict=True, score_range=(-2.25, 1.75))
    np.testing.assert_array_equal(got.counts_neg, expected.counts_neg)
    assert (got.n_below, got.n_above) == (0, 0)


def test_the_dask_functions_issue_no_warning(client):
    # Every task runs in this process (sync scheduler), so a numpy or pandas warning
    # raised in any of them would be caught here.
    y, s = DATASETS["cancer_ties"]
    labels = np.where(y == 1, 2, np.where(s > 0.5, 1, 0))
    frame = pd.DataFrame({"seg": np.where(np.arange(len(y)) % 3 == 0, "a", "b"),
                          "label": y, "score": s})
    in_process = {"scheduler": "sync", "dataframe.shuffle.method": "tasks"}
    with dask.config.set(in_process), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for yd, sd, wd in (_as_arrays(y, s, _weights(len(y))), _as_columns(y, s)):
            hsd.auc(yd, sd, sample_weight=wd)
            hsd.h_measure(yd, sd, sample_weight=wd)
            hsd.roc_hull(yd, sd, sample_weight=wd)
            hsd.hmeasure_report(yd, sd, sample_weight=wd)
            hsd.hmeasure_report(yd, sd, sample_weight=wd, as_frame=True)
            hsd.partial_auc(yd, sd, sample_weight=wd, fpr_range=(0, 0.2))
            hsd.auc_ci(yd, sd, sample_weight=wd)
            hsd.binned_auc(yd, sd, sample_weight=wd, n_bins=32)
            hsd.binned_auc(yd, sd, sample_weight=wd, n_bins=32, transform="loglog")
        scores = np.column_stack([1 - s, s, s * (1 - s)])
        hsd.multiclass_auc(da.from_array(labels, chunks=100),
                           da.from_array(scores, chunks=(100, 3)))
        hsd.grouped(dd.from_pandas(frame, npartitions=4, sort=False), by="seg",
                    label="label", score="score", metrics=("auc", "h", "ks"))
    assert [f"{w.category.__name__}: {w.message}" for w in caught] == []
