"""hmeasure_stream.moa.MOAWindowEvaluator: CapyMOA's calls, MOA's values after every row.

The reference is MOA itself: tests/data/moa_window.json holds, after every row
of each stream, what MOA's ``WindowAUCImbalancedPerformanceEvaluator`` (the
jar CapyMOA ships) reported, fed as CapyMOA feeds it
(tools/make_moa_window_reference.py).
"""

import json
import math
import pickle
from pathlib import Path

import pytest

from hmeasure_stream.moa import MEASUREMENTS, MOAWindowEvaluator

REFERENCE = json.loads((Path(__file__).parents[1] / "data" / "moa_window.json").read_text())
# The measurements whose arithmetic is MOA's own (counts, one division each): its bits.
SAME_BITS = ("instances", "auc", "Accuracy", "Kappa", "Periodical holdout AUC",
             "Pos/Neg ratio", "G-Mean", "Recall", "KappaM")


def same(got, expected):
    return got == expected or (math.isnan(got) and math.isnan(expected))


@pytest.mark.parametrize("name", sorted(REFERENCE["streams"]))
def test_every_measurement_equals_moa_after_every_row(name):
    stream = REFERENCE["streams"][name]
    measured = stream["measurements"]
    evaluator = MOAWindowEvaluator(window=stream["width"])
    assert evaluator.metrics_header() == [REFERENCE["capymoa_names"][moa]
                                          for moa in REFERENCE["measurement_names"]]
    for row, (label, score) in enumerate(zip(stream["y"], stream["score"], strict=True)):
        evaluator.update(label, score)
        if row == 40:
            evaluator = pickle.loads(pickle.dumps(evaluator))
        values = evaluator.metrics_dict()
        for moa_name, key in REFERENCE["capymoa_names"].items():
            expected = measured[moa_name][row]
            if key in SAME_BITS:
                assert same(values[key], expected), (name, row, key, values[key], expected)
            else:
                # The scored AUC: MOA walks its window summing scores in another order.
                assert values[key] == pytest.approx(expected, abs=1e-12), (name, row)
        assert evaluator.auc() == values["auc"] == measured["AUC"][row]
        assert evaluator.s_auc() == values["s_auc"]
        assert evaluator.get_instances_seen() == row + 1


@pytest.mark.parametrize("every", [13, 150])
def test_reads_between_many_rows_equal_moa(every):
    # The rows since the last read enter the window at once: the holdout AUCs among them
    # are those of their rows.
    for name, stream in REFERENCE["streams"].items():
        evaluator = MOAWindowEvaluator(window=stream["width"])
        rows = list(zip(stream["y"], stream["score"], strict=True))
        for row, (label, score) in enumerate(rows):
            evaluator.update(label, score)
            if row % every == every - 1 or row == len(rows) - 1:
                values = evaluator.metrics_dict()
                for moa_name, key in REFERENCE["capymoa_names"].items():
                    expected = stream["measurements"][moa_name][row]
                    assert values[key] == pytest.approx(expected, abs=1e-12, nan_ok=True), (
                        name, row, key)


def test_before_the_first_row_and_bad_rows():
    evaluator = MOAWindowEvaluator(window=3)
    assert evaluator.metrics()[0] == 0.0 and all(math.isnan(v) for v in evaluator.metrics()[1:])
    assert math.isnan(evaluator.auc())
    assert list(evaluator.metrics_dict()) == list(MEASUREMENTS)
    evaluator.update(1, 0.75)
    before = pickle.dumps(evaluator)
    for label, score, message in ((2, 0.5, "y_target_index must be the class index 0 or 1"),
                                  (True, 0.5, "y_target_index"),
                                  (1.0, 0.5, "y_target_index"),
                                  (0, 1.5, r"score must be a real number in \[0, 1\]"),
                                  (0, math.nan, "score"), (0, "0.5", "score")):
        with pytest.raises(ValueError, match=message):
            evaluator.update(label, score)
    assert pickle.dumps(evaluator) == before
    for bad in (0, -1, 2.0, True):
        with pytest.raises(ValueError, match="window must be an integer >= 1"):
            MOAWindowEvaluator(window=bad)
    assert repr(MOAWindowEvaluator(7)) == "MOAWindowEvaluator(window=7)"
    assert MOAWindowEvaluator().window == 500


def test_moa_conventions_on_a_small_stream():
    evaluator = MOAWindowEvaluator(window=2)
    evaluator.update(1, 0.5)
    # One class: MOA's AUC and sAUC are 1; at 0.5 the votes tie and MOA predicts class 0.
    assert evaluator.auc() == evaluator.s_auc() == 1.0
    assert evaluator.metrics_dict()["Recall"] == 0.0
    evaluator.update(0, 0.5)
    # A tie of the two classes at 0.5: AUC 1/2; MOA's sAUC counts minus half the score.
    assert evaluator.auc() == 0.5
    assert evaluator.s_auc() == -0.25
    assert evaluator.metrics_dict()["Pos/Neg ratio"] == 1.0
