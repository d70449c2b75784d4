import warnings

import numpy as np
import pandas as pd
import pytest
from hmeasure import h_score
from reference_impl import (
    h_by_integration,
    r_misclass_counts,
    r_style_report,
    to_unit_interval,
)
from scipy.stats import ks_2samp
from sklearn.metrics import roc_auc_score

from hmeasure_stream import h_measure, hmeasure_report, roc_hull

KEYS = ["H", "Gini", "AUC", "AUCH", "KS", "MER", "MWL", "Spec.Sens95", "Sens.Spec95"]
THRESHOLD_KEYS = ["ER", "Sens", "Spec", "Precision", "Recall", "TPR", "FPR", "F", "Youden",
                  "TP", "FP", "TN", "FN"]


def classifier(seed, n, decimals):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.normal(size=n) + y * rng.uniform(0.0, 2.5)
    return y, (s if decimals is None else np.round(s, decimals))


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("seed", range(25))
def test_report_matches_r_definitions(seed):
    y, s = classifier(seed, [5, 40, 300][seed % 3], [None, 1, 0][seed % 4 % 3])
    report = hmeasure_report(y, s, severity_ratio="prior")
    assert list(report) == KEYS + THRESHOLD_KEYS
    reference = r_style_report(y, s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        port = h_score(y, to_unit_interval(s))
    assert report["H"] == pytest.approx(port, rel=1e-11, abs=1e-12)
    assert report["AUC"] == pytest.approx(roc_auc_score(y, s), rel=1e-13)
    assert report["Gini"] == pytest.approx(2 * roc_auc_score(y, s) - 1, rel=1e-12, abs=1e-15)
    assert report["KS"] == pytest.approx(ks_2samp(s[y == 0], s[y == 1]).statistic, rel=1e-13)
    for key in ("KS", "MER", "MWL"):
        assert report[key] == pytest.approx(reference[key], rel=1e-12, abs=1e-15)
    assert report["Spec.Sens95"] == pytest.approx(reference["Spec.Sens"], rel=1e-12, abs=1e-15)
    assert report["Sens.Spec95"] == pytest.approx(reference["Sens.Spec"], rel=1e-12, abs=1e-15)
    fpr, tpr = roc_hull(y, s)
    assert report["AUCH"] == pytest.approx(np.trapezoid(tpr, fpr), rel=1e-13)
    assert report["AUCH"] >= report["AUC"] - 1e-15


@pytest.mark.parametrize("ratio", [0.1, 1.0, 7.0])
def test_report_severity_ratio_sets_mwl_and_h(ratio):
    y, s = classifier(3, 200, 1)
    report = hmeasure_report(y, s, severity_ratio=ratio)
    assert report["MWL"] == pytest.approx(r_style_report(y, s, ratio)["MWL"], rel=1e-12)
    assert report["H"] == h_measure(y, s, severity_ratio=ratio)


def test_report_alpha_beta_use_the_mode_for_mwl():
    y, s = classifier(4, 150, 1)
    # Beta(2, 2) has mode 1/2, i.e. severity ratio 1.
    assert hmeasure_report(y, s)["MWL"] == pytest.approx(
        r_style_report(y, s, 1.0)["MWL"], rel=1e-12
    )
    # Beta(3, 5): mode 1/3, severity ratio 1/2.
    report = hmeasure_report(y, s, alpha=3.0, beta=5.0)
    assert report["MWL"] == pytest.approx(r_style_report(y, s, 0.5)["MWL"], rel=1e-12)
    assert report["H"] == pytest.approx(h_by_integration(y, s, 3.0, 5.0), rel=1e-7)


def test_report_several_levels_and_names():
    y, s = classifier(5, 300, None)
    report = hmeasure_report(y, s, sens_spec_levels=[0.9, 0.99, 0.295])
    assert list(report)[7:13] == [
        "Spec.Sens90", "Spec.Sens99", "Spec.Sens29",
        "Sens.Spec90", "Sens.Spec99", "Sens.Spec29",
    ]
    for level, percent in [(0.9, 90), (0.99, 99), (0.295, 29)]:
        reference = r_style_report(y, s, level=level)
        assert report[f"Spec.Sens{percent}"] == pytest.approx(reference["Spec.Sens"], rel=1e-12)
        assert report[f"Sens.Spec{percent}"] == pytest.approx(reference["Sens.Spec"], rel=1e-12)


def test_report_as_frame():
    y, s = classifier(6, 100, None)
    frame = hmeasure_report(y, s, as_frame=True)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == KEYS + THRESHOLD_KEYS
    assert frame.shape == (1, len(KEYS + THRESHOLD_KEYS))
    assert frame.iloc[0].to_dict() == hmeasure_report(y, s)


def test_report_with_weights_equals_repetition():
    y, s = classifier(8, 120, 1)
    w = np.random.default_rng(8).integers(1, 4, 120)
    weighted = hmeasure_report(y, s, sample_weight=w)
    repeated = hmeasure_report(np.repeat(y, w), np.repeat(s, w))
    for key in KEYS + THRESHOLD_KEYS:
        assert weighted[key] == pytest.approx(repeated[key], rel=1e-12, abs=1e-15), key


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.2, "0.9", True])
def test_report_refuses_bad_level(level):
    with pytest.raises(ValueError, match="level"):
        hmeasure_report([0, 1], [0.1, 0.2], sens_spec_levels=level)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("threshold", [0.5, 0.0, -1.0, 2.0])
def test_threshold_metrics_match_r_definitions(seed, threshold):
    y, s = classifier(seed, [6, 40, 200][seed % 3], [None, 1, 0][seed % 4 % 3])
    w = None if seed % 2 else np.random.default_rng(seed).integers(0, 4, len(y)) + 0.5
    report = hmeasure_report(y, s, sample_weight=w, threshold=threshold)
    reference = r_misclass_counts(y, s, threshold, w, at_or_above=True)
    for key in THRESHOLD_KEYS:
        if np.isnan(reference[key]):
            assert np.isnan(report[key]), key
        else:
            assert report[key] == pytest.approx(reference[key], rel=1e-12, abs=1e-15), key


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_threshold_metrics_edge_cases():
    # Nothing at or above the threshold: precision 0/0 is nan in R, F too.
    report = hmeasure_report([0, 1, 1], [0.1, 0.2, 0.4])
    assert (report["TP"], report["FP"], report["TN"], report["FN"]) == (0.0, 0.0, 1.0, 2.0)
    assert np.isnan(report["Precision"]) and np.isnan(report["F"])
    assert report["ER"] == 2 / 3 and report["Sens"] == 0.0 and report["Spec"] == 1.0
    # Only class 0 above: precision 0, F = 2 / (1/0 + 1/0) = 0 as in R.
    report = hmeasure_report([0, 1, 1], [0.9, 0.2, 0.3])
    assert report["Precision"] == 0.0 and report["F"] == 0.0
    assert report["Youden"] == -1.0 and report["FPR"] == 1.0


@pytest.mark.parametrize("threshold", [np.nan, np.inf, "0.5", None])
def test_report_refuses_bad_threshold(threshold):
    with pytest.raises(ValueError, match="threshold"):
        hmeasure_report([0, 1], [0.1, 0.2], threshold=threshold)
