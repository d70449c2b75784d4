"""hmeasure_report and DynamicH.report against R hmeasure 1.0-2's ``HMeasure(...)$metrics``.

The values were computed once by tools/make_r_hmeasure_reference.py and stored
with their inputs in tests/data/r_hmeasure_report.json.
"""

import json
import math
from pathlib import Path

import numpy as np
import pytest
from reference_impl import r_misclass_counts, r_style_report, r_threshold

from hmeasure_stream import DynamicH, hmeasure_report

DATA = json.loads((Path(__file__).parents[1] / "data" / "r_hmeasure_report.json").read_text())
CASES = [(name, index) for name, entry in DATA["datasets"].items()
         for index in range(len(entry["reports"]))]


def at_knife_edge(y, s, key, level):
    """Whether a class CDF value (a count over the class size) is the lookup's level itself.

    There R's ``cumsum`` of per-score fractions, rounded, lands on either side
    of the level by chance; the package compares the correctly rounded CDF
    (as ``r_style_report``, an independent transcription, does).
    """
    label, x = (1, 1.0 - level) if key.startswith("Spec.Sens") else (0, level)
    counts = np.cumsum([np.sum((y == label) & (s == t)) for t in np.unique(s)])
    return bool(np.any(np.abs(counts / np.sum(y == label) - x) < 1e-12))


def assert_equal_to_r(report, expected, y, s, ratio):
    assert list(report) == list(expected)
    for key, value in expected.items():
        if key.startswith(("Spec.Sens", "Sens.Spec")):
            level = float(key[-2:]) / 100
            if at_knife_edge(y, s, key, level):
                reference = r_style_report(y, s, ratio, level)[key[:9]]
                assert report[key] == pytest.approx(reference, rel=1e-12), key
                continue
        if value is None:
            assert math.isnan(report[key]), key
        else:
            # R forms H from pbeta differences: agreement to 1e-9 there, 1e-12 elsewhere.
            tolerance = 1e-9 if key == "H" else 1e-12
            assert report[key] == pytest.approx(value, rel=tolerance, abs=tolerance), key


def test_reference_versions():
    assert DATA["hmeasure_version"] == "1.0.2"
    assert DATA["r_version"].startswith("4.")


@pytest.mark.parametrize(("name", "index"), CASES)
def test_hmeasure_report_equals_r(name, index):
    entry = DATA["datasets"][name]
    case = entry["reports"][index]
    ratio = case["severity_ratio"]
    y, s = np.array(entry["y"]), np.array(entry["s"])
    # R classifies s > t; the package's rule is s >= t: R's t is the next double here.
    report = hmeasure_report(y, s, severity_ratio="prior" if ratio == "prior" else float(ratio),
                             sens_spec_levels=DATA["levels"],
                             threshold=r_threshold(case["threshold"]))
    assert_equal_to_r(report, case["metrics"], y, s, None if ratio == "prior" else float(ratio))


@pytest.mark.parametrize(("name", "index"), [case for case in CASES
                                             if DATA["datasets"][case[0]]["reports"][case[1]]
                                             ["severity_ratio"] != "prior"])
def test_dynamic_report_equals_r(name, index):
    entry = DATA["datasets"][name]
    case = entry["reports"][index]
    tracker = DynamicH(severity_ratio=float(case["severity_ratio"]))
    # Built in two halves with a removal in between: maintained, not from scratch.
    y, s = np.array(entry["y"]), np.array(entry["s"])
    half = len(y) // 2
    tracker.add_many(y[:half], s[:half])
    tracker.report()
    tracker.add_many(y[half:], s[half:])
    tracker.add(1, 0.123456)
    tracker.remove(1, 0.123456)
    assert_equal_to_r(tracker.report(DATA["levels"], threshold=r_threshold(case["threshold"])),
                      case["metrics"], y, s, float(case["severity_ratio"]))


@pytest.mark.parametrize("name", ["heavy_ties", "imbalance"])
def test_scores_at_the_threshold_are_class_1_unlike_r(name):
    """The stored data hold scores equal to a threshold: there the package's rule
    (class 1 when s >= t) counts them as class 1 where R's (s > t) does not."""
    entry = DATA["datasets"][name]
    y, s = np.array(entry["y"]), np.array(entry["s"])
    for case in entry["reports"]:
        t = case["threshold"]
        if not np.any(s == t):
            continue
        ours = hmeasure_report(y, s, sens_spec_levels=DATA["levels"], threshold=t)
        counted = r_misclass_counts(y, s, t, at_or_above=True)
        assert (ours["TP"], ours["FP"]) == (counted["TP"], counted["FP"])
        assert ours["TP"] + ours["FP"] > case["metrics"]["TP"] + case["metrics"]["FP"]
        break
    else:
        pytest.fail(f"no score of {name} equals a threshold")


def test_the_knife_edge_is_exercised():
    """The stored data hold a level a class CDF reaches exactly, where R differs by rounding."""
    entry = DATA["datasets"]["continuous"]
    y, s = np.array(entry["y"]), np.array(entry["s"])
    assert at_knife_edge(y, s, "Sens.Spec95", 0.95)
    report = entry["reports"][0]
    ours = hmeasure_report(y, s, sens_spec_levels=DATA["levels"], threshold=report["threshold"])
    assert ours["Sens.Spec95"] != pytest.approx(report["metrics"]["Sens.Spec95"], abs=1e-3)
