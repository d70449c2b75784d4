"""R's report from its three routes: arrays, a dask collection and DynamicH, key for key.

``hmeasure_report`` reads every ROC point, ``hmeasure_stream.dask`` the
ranges' hulls and lookup candidates, ``DynamicH.report`` the maintained hull;
the keys (the fixed levels' names included) and the values must agree, and
the fixed-level values equal R's lookup transcribed in ``reference_impl``.
"""

import math

import dask
import dask.array as da
import numpy as np
import pytest
from reference_impl import r_style_report

from hmeasure_stream import DynamicH, hmeasure_report
from hmeasure_stream import dask as hsd

# Random scores may rank class 0 higher: the warning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

# Whole percents R would floor differently (0.29), two levels sharing a whole
# percent (0.951, 0.959), and common ones.
LEVELS = [0.95, 0.29, 0.951, 0.959, 0.5, 0.9]


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


def points(seed, n=301, ties=False, weighted=False):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = rng.normal(size=n) + 0.8 * y
    if ties:
        s = np.round(s, 1)
    w = rng.exponential(size=n) if weighted else None
    return y, s, w


def chunked(*arrays):
    return [None if a is None else da.from_array(a, chunks=37) for a in arrays]


def assert_same_report(got, expected, rel):
    assert list(got) == list(expected)
    for key, value in expected.items():
        if math.isnan(value):
            assert math.isnan(got[key]), key
        else:
            assert got[key] == pytest.approx(value, rel=rel, abs=rel * 1e-3), key


def test_dask_names_a_level_by_its_whole_percent_as_written():
    y, s, _ = points(1)
    report = hsd.hmeasure_report(*chunked(y, s), sens_spec_levels=0.29)
    assert [key for key in report if key[4:9] == ".Sens" or key[4:9] == ".Spec"] == [
        "Spec.Sens29", "Sens.Spec29"]
    reference = r_style_report(y, s, level=0.29)
    assert report["Spec.Sens29"] == pytest.approx(reference["Spec.Sens"], rel=1e-12)
    assert report["Sens.Spec29"] == pytest.approx(reference["Sens.Spec"], rel=1e-12)


def test_dask_keeps_two_levels_of_one_whole_percent_apart():
    y, s, _ = points(2)
    report = hsd.hmeasure_report(*chunked(y, s), sens_spec_levels=[0.951, 0.959])
    names = ["Spec.Sens95.1", "Spec.Sens95.9", "Sens.Spec95.1", "Sens.Spec95.9"]
    assert [key for key in report if key.startswith(("Spec.Sens", "Sens.Spec"))] == names
    for level, name in ((0.951, "95.1"), (0.959, "95.9")):
        reference = r_style_report(y, s, level=level)
        assert report[f"Spec.Sens{name}"] == pytest.approx(reference["Spec.Sens"], rel=1e-12)
        assert report[f"Sens.Spec{name}"] == pytest.approx(reference["Sens.Spec"], rel=1e-12)


@pytest.mark.parametrize("seed", [3, 4])
@pytest.mark.parametrize("ties", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_three_reports_agree_key_for_key(seed, ties, weighted):
    y, s, w = points(seed, ties=ties, weighted=weighted)
    options = {"alpha": 3.0, "beta": 1.5, "sens_spec_levels": LEVELS, "threshold": 0.3}
    expected = hmeasure_report(y, s, sample_weight=w, **options)
    yd, sd, wd = chunked(y, s, w)
    # Sums formed in another order (ranges, maintained hulls): equal to rounding.
    rel = 1e-9 if weighted else 1e-12
    assert_same_report(hsd.hmeasure_report(yd, sd, sample_weight=wd, **options), expected, rel)
    tracker = DynamicH(alpha=3.0, beta=1.5)
    tracker.add_many(y, s, w)
    assert_same_report(tracker.report(LEVELS, threshold=0.3), expected, rel)
