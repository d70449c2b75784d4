"""MOA's window measures: "kappa", "kappa_m", "prevalence", "sauc" (and "gmean").

Two kinds of reference: MOA itself (``WindowAUCImbalancedPerformanceEvaluator``
of the jar CapyMOA ships, its values after every row stored in
tests/data/moa_window.json by tools/make_moa_window_reference.py), and the
definitions computed from scratch on the rows each window covers:
scikit-learn's ``cohen_kappa_score``, counted accuracies, and the scored AUC's
pair sum in exact rationals (``fractions``).
"""

import json
import math
import pickle
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from reference_impl import window_points
from sklearn.metrics import cohen_kappa_score

from hmeasure_stream import METRICS, SlidingWindow, Threshold, sliding_window

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "moa_window.json").read_text())
MOA_METRICS = ("auc", "sauc", "gmean", "kappa", "kappa_m", "prevalence", "er", "sens")
# MOA predicts class 1 when its vote for class 1 is the larger, score > 0.5; the
# package's rule is score >= threshold: the least double above 0.5 gives MOA's rule.
MOA_RULE = Threshold(float(np.nextafter(0.5, 1.0)))
NEW = ("kappa", "kappa_m", "prevalence", "sauc")


def moa_streams():
    return sorted(REFERENCE["streams"])


def window_rows(stream, end):
    """The labels and MOA's scores of the window that ends at row ``end``."""
    start = max(0, end + 1 - stream["width"])
    return (np.array(stream["y"][start:end + 1]),
            np.array(stream["moa_score"][start:end + 1]))


def tie_term(y, s):
    """MOA's extra term of the scored AUC: half the tied score, summed over the tied pairs
    of a class 1 and a class 0 point, over the pairs (exact)."""
    positives, negatives = s[y == 1], s[y == 0]
    tied = sum(Fraction(float(p)) * int(np.sum(negatives == p)) for p in positives)
    return float(tied / (2 * len(positives) * len(negatives)))


@pytest.mark.parametrize("name", moa_streams())
def test_the_window_metrics_equal_moa_after_every_row(name):
    stream = REFERENCE["streams"][name]
    moa = stream["measurements"]
    y, s = np.array(stream["y"]), np.array(stream["moa_score"])
    ours = sliding_window(y, s, stream["width"], (*MOA_METRICS, MOA_RULE))
    for end in range(len(y)):
        wy, ws = window_rows(stream, end)
        neg, pos = int(np.sum(wy == 0)), int(np.sum(wy == 1))
        ratio = moa["Pos/Neg ratio"][end]
        assert ours["prevalence"][end] == pos / (neg + pos)
        if neg == 0:
            # MOA's ratio W1 / W0 is Double.MAX_VALUE without class 0.
            assert ratio == np.finfo(float).max
        else:
            assert ratio == pos / neg
        if not (neg and pos):
            # A class absent: MOA's AUC and sAUC are 1, the package's nan (the window's
            # rule for every metric of two classes).
            assert moa["AUC"][end] == moa["sAUC"][end] == 1.0
            for metric in ("auc", "sauc", "gmean", "kappa", "kappa_m", "sens"):
                assert np.isnan(ours[metric][end]), (metric, end)
            continue
        # The same arithmetic on the same counts: the same bits.
        assert ours["auc"][end] == moa["AUC"][end], end
        assert ours["gmean"][end] == moa["G-Mean"][end], end
        assert ours["kappa"][end] == moa["Kappa"][end], end
        assert ours["sens"][end] == moa["Recall"][end], end
        # 1 - er rounds the error rate's ratio once more than MOA's correct / n.
        assert 1 - ours["er"][end] == pytest.approx(moa["Accuracy"][end], abs=2e-16)
        # Kappa-M against the window's majority, from MOA's accuracy (the same bits).
        majority = max(neg, pos) / (neg + pos)
        accuracy = moa["Accuracy"][end]
        assert ours["kappa_m"][end] == (accuracy - majority) / (1 - majority), end
        # The scored AUC: MOA's sums differ from the package's in order (rounding,
        # within 1e-12) and by MOA's tie term (exact, computed apart).
        assert ours["sauc"][end] - tie_term(wy, ws) == pytest.approx(
            moa["sAUC"][end], abs=1e-12), end


def test_moa_kappa_m_takes_the_stream_majority_over_the_whole_stream():
    # MOA's KappaM: its baseline is the accuracy over every row so far of predicting, at
    # each row, the majority class of the window then (class 0 unless class 1 is more).
    for name in moa_streams():
        stream = REFERENCE["streams"][name]
        correct = 0
        for end, label in enumerate(stream["y"]):
            wy, _ = window_rows(stream, end)
            correct += (1 if np.sum(wy == 1) > np.sum(wy == 0) else 0) == label
            baseline = correct / (end + 1)
            accuracy = stream["measurements"]["Accuracy"][end]
            with np.errstate(divide="ignore", invalid="ignore"):
                expected = np.float64(accuracy - baseline) / np.float64(1 - baseline)
            got = stream["measurements"]["KappaM"][end]
            assert got == expected or (np.isnan(got) and np.isnan(expected)), (name, end)


def test_moa_reference_records_its_versions_and_definitions():
    assert REFERENCE["moa_version"] and REFERENCE["capymoa_version"]
    assert REFERENCE["capymoa_names"]["AUC"] == "auc"
    assert REFERENCE["capymoa_names"]["sAUC"] == "s_auc"
    widths = {stream["width"] for stream in REFERENCE["streams"].values()}
    assert {1, 7, 100} <= widths
    # MOA's AUC: Mann-Whitney with ties one half, checked here on its own data.
    for stream in REFERENCE["streams"].values():
        for end in range(len(stream["y"])):
            wy, ws = window_rows(stream, end)
            positives, negatives = ws[wy == 1], ws[wy == 0]
            if len(positives) and len(negatives):
                wins = sum(float(np.sum(p > negatives)) + 0.5 * float(np.sum(p == negatives))
                           for p in positives)
                assert stream["measurements"]["AUC"][end] == wins / (len(positives) * len(negatives))


def test_the_package_rule_at_one_half_differs_from_moa_only_at_one_half():
    # At 0.5 MOA's vote is a tie (class 0); the package's rule predicts class 1.
    stream = REFERENCE["streams"]["quarters_w7"]
    y, s = np.array(stream["y"]), np.array(stream["moa_score"])
    ours = sliding_window(y, s, stream["width"], ("sens", Threshold(0.5)))
    differs = 0
    for end in range(len(y)):
        wy, ws = window_rows(stream, end)
        if not (np.any(wy == 0) and np.any(wy == 1)):
            continue
        if np.any((ws == 0.5) & (wy == 1)):
            differs += ours["sens"][end] != stream["measurements"]["Recall"][end]
        else:
            assert ours["sens"][end] == stream["measurements"]["Recall"][end]
    assert differs > 0


# ---------------------------------------------------------------------------
# The definitions, from scratch, on random windows.

def stream_of(rng, n):
    """Probabilities with ties, 0, 1 and the threshold 0.5 among them."""
    p = np.round(rng.uniform(size=n), 1)
    p[rng.uniform(size=n) < 0.05] = 0.0
    p[rng.uniform(size=n) < 0.05] = 1.0
    y = (rng.uniform(size=n) < p).astype(int)
    return y, p


def exact_sauc(y, p, w):
    """sum over class 1 i, class 0 j, p_i > p_j of w_i w_j (p_i - p_j), over W1 W0,
    in exact rationals; None while a class weighs nothing."""
    positives = [(Fraction(float(pi)), Fraction(float(wi)))
                 for pi, wi, yi in zip(p, w, y, strict=True) if yi == 1]
    negatives = [(Fraction(float(pj)), Fraction(float(wj)))
                 for pj, wj, yj in zip(p, w, y, strict=True) if yj == 0]
    total_pos = sum(wi for _, wi in positives)
    total_neg = sum(wj for _, wj in negatives)
    if not (total_pos and total_neg):
        return None
    pairs = sum(wi * wj * (pi - pj) for pi, wi in positives for pj, wj in negatives
                if pi > pj)
    return float(pairs / (total_pos * total_neg))


def expected_values(y, p, w, threshold):
    """The four metrics of the rows (y, p, w) by their definitions (None: nan)."""
    total_neg, total_pos = math.fsum(w[y == 0]), math.fsum(w[y == 1])
    total = total_neg + total_pos
    values = {"prevalence": total_pos / total if total > 0 else None,
              "sauc": exact_sauc(y, p, w)}
    predicted = (p >= threshold).astype(int)
    if total_neg > 0 and total_pos > 0:
        values["kappa"] = cohen_kappa_score(y, predicted, sample_weight=w, labels=[0, 1])
        accuracy = math.fsum(w[predicted == y]) / total
        majority = max(total_neg, total_pos) / total
        values["kappa_m"] = (accuracy - majority) / (1 - majority)
    else:
        values["kappa"] = values["kappa_m"] = None
    return values


def assert_window(values, i, y, p, w, threshold=0.5):
    for name, expected in expected_values(y, p, w, threshold).items():
        got = values[name][i]
        if expected is None:
            assert np.isnan(got), (name, i)
        else:
            assert got == pytest.approx(expected, rel=1e-12, abs=1e-14), (name, i)


@pytest.mark.parametrize("window", [1, 7, 40, None])
@pytest.mark.parametrize("weighted", [False, True])
def test_count_windows_and_prefixes_equal_the_definitions(window, weighted, rng):
    y, p = stream_of(rng, 150)
    w = rng.choice([0.5, 1.0, 3.0], size=len(y)) if weighted else np.ones(len(y))
    threshold = 0.5 if window != 7 else 0.3
    metrics = (*NEW, Threshold(threshold))
    values = sliding_window(y, p, window, metrics, sample_weight=w if weighted else None)
    monitor = SlidingWindow(window, metrics)
    first = monitor.update(y[:60], p[:60], w[:60] if weighted else None)
    rest = pickle.loads(pickle.dumps(monitor)).update(y[60:], p[60:],
                                                      w[60:] if weighted else None)
    for name in NEW:
        chunks = np.concatenate([first[name], rest[name]])
        np.testing.assert_allclose(chunks, values[name], rtol=1e-13, atol=1e-15)
    for i in range(len(y)):
        start = 0 if window is None else max(0, i + 1 - window)
        assert_window(values, i, y[start:i + 1], p[start:i + 1], w[start:i + 1], threshold)


def test_duration_windows_equal_the_definitions(rng):
    y, p = stream_of(rng, 150)
    w = rng.choice([1.0, 3.0, 0.5], size=len(y))
    t = np.cumsum(rng.choice([0.0, 1.0, 2.5, 7.0], size=len(y))) + 1.7e9
    values = sliding_window(y, p, "20s", NEW, sample_weight=w,
                            times=pd.to_datetime(t, unit="s"))
    for i in range(len(y)):
        rows = (np.arange(len(y)) <= i) & (t > t[i] - 20)
        assert_window(values, i, y[rows], p[rows], w[rows])


@pytest.mark.parametrize("half_life", [0.5, 7.5])
def test_decay_equals_the_decayed_weights(half_life, rng):
    # 0.5: the stored weights are rescaled every ~32 points, points leave after 30.
    y, p = stream_of(rng, 200)
    w = rng.choice([1.0, 2.0, 0.25], size=len(y))
    tracker = SlidingWindow(None, NEW, half_life=half_life)
    chunks = [tracker.update(y[start:start + 37], p[start:start + 37], w[start:start + 37])
              for start in range(0, len(y), 37)]
    values = {name: np.concatenate([chunk[name] for chunk in chunks]) for name in NEW}
    for i in range(0, len(y), 3):
        _, rows, decay = window_points(y, np.arange(len(y)), i, None, half_life)
        for name, expected in expected_values(y[rows], p[rows], w[rows] * decay,
                                              0.5).items():
            if expected is None:
                assert np.isnan(values[name][i])
            else:
                # (Decay's stored weights round below 2^-1074 of their units.)
                assert values[name][i] == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_no_drift_of_the_scored_auc_after_many_updates(rng):
    # The engines hold the window's points, not running sums: the state after 20000 rows
    # is that of the last 30.
    y, p = stream_of(rng, 20000)
    tracker = SlidingWindow(30, "sauc")
    tracker.update(y, p)
    assert tracker["sauc"] == pytest.approx(exact_sauc(y[-30:], p[-30:], np.ones(30)),
                                            rel=1e-13, abs=1e-15)


def test_a_one_class_window_and_scores_outside_the_unit_interval():
    values = sliding_window([1, 1, 0], [0.2, 0.7, 0.4], 2, NEW)
    assert values["prevalence"].tolist() == [1.0, 1.0, 0.5]
    for name in ("kappa", "kappa_m", "sauc"):
        assert np.isnan(values[name][0]) and np.isnan(values[name][1])
    # The last window, (0.7, class 1) and (0.4, class 0): predicted right at 0.5.
    assert values["kappa"][2] == 1.0 and values["sauc"][2] == pytest.approx(0.3)
    assert values["kappa_m"][2] == 1.0  # (1 - 1/2) / (1 - 1/2): the majority is 1/2
    tracker = SlidingWindow(5, ("sauc", "kappa"))
    tracker.update([0, 1, 1], [0.2, 0.6, 0.9])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"'sauc'.*1\.5 at position 1"):
        tracker.update([0, 1], [0.2, 1.5])
    assert pickle.dumps(tracker) == before


def test_the_table_declares_each_metric_once():
    assert METRICS["kappa"].options is Threshold and METRICS["kappa_m"].options is Threshold
    assert METRICS["kappa"].reader.identity(Threshold(0.3)) == METRICS[
        "kappa_m"].reader.identity(Threshold(0.3))  # one step records both
    assert METRICS["prevalence"].options is None and METRICS["sauc"].options is None
    # An options object does not ask for them by itself (the six of R's report do).
    assert "kappa" not in SlidingWindow(5, Threshold(0.2)).metrics
    tracker = SlidingWindow(5, ("kappa", "auc", Threshold(0.2), "prevalence", "sauc"))
    assert tracker.metrics == ("kappa", "auc", "prevalence", "sauc")
    tracker.update([0, 1, 0, 1], [0.1, 0.3, 0.25, 0.9])
    assert tracker["kappa"] == cohen_kappa_score([0, 1, 0, 1], [0, 1, 1, 1])
    assert tracker.results()["prevalence"] == 0.5
