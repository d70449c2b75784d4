"""DynamicH.report against hmeasure_report of the current points, after every operation."""

import math
import pickle

import numpy as np
import pytest
from machines import PointSetMachine, point_set_test
from reference_impl import r_misclass_counts, r_style_report

from hmeasure_stream import DynamicH, HCost, Threshold, hmeasure_report

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


def fixed_level_candidates(y, s, w, key, level):
    """R's lookup for a Spec.Sens/Sens.Spec key, a class CDF equal to the level decided both ways.

    With weights that are not exact binary fractions the class CDFs are sums
    rounded in different orders by the structure and from scratch; where a
    CDF equals the level exactly, either may fall on either side of it.  The
    CDFs here are exact (Fractions of the float weights), compared with the
    level up to 1e-12 in each direction.
    """
    from fractions import Fraction

    weights = [Fraction(float(v)) for v in w]
    totals = [sum(v for a, v in zip(y, weights, strict=True) if a == label) for label in (0, 1)]
    cdf = {0: [Fraction(0)], 1: [Fraction(0)]}
    for t in sorted(set(s.tolist())):
        for label in (0, 1):
            cdf[label].append(cdf[label][-1] + sum(
                v for a, b, v in zip(y, s, weights, strict=True) if a == label and b == t))
    f0 = [float(v / totals[0]) for v in cdf[0]]
    f1 = [float(v / totals[1]) for v in cdf[1]]
    if key.startswith("Spec.Sens"):
        xcurve, ycurve, x = f1, f0, 1 - level
    else:
        xcurve, ycurve, x = f0, [1 - v for v in f1], level
    values = []
    for margin in (1e-12, -1e-12):
        i = next(k for k in range(len(xcurve)) if xcurve[k] > x + margin)
        x1, x2, y1, y2 = xcurve[i - 1], xcurve[i], ycurve[i - 1], ycurve[i]
        weight_y2 = (x2 - x) / (x2 - x1) if x2 - x1 > 0 else 1.0
        values.append((1 - weight_y2) * y1 + weight_y2 * y2)
    return values


def assert_report_matches(tracker, points, levels=(0.95,), threshold=0.5, alpha=2.0, beta=2.0,
                          exact=True):
    report = tracker.report(list(levels), threshold=threshold)
    y = np.array([p[0] for p in points], dtype=int)
    s = np.array([p[1] for p in points], dtype=float)
    w = np.array([p[2] for p in points], dtype=float)
    if not points or not (w[y == 0].sum() > 0 and w[y == 1].sum() > 0):
        assert all(math.isnan(value) for value in report.values())
        return report
    expected = hmeasure_report(y, s, sample_weight=None if exact else w, alpha=alpha,
                               beta=beta, sens_spec_levels=list(levels), threshold=threshold)
    assert list(report) == list(expected)
    for key, value in expected.items():
        if math.isnan(value):
            assert math.isnan(report[key]), key
        elif not exact and key.startswith(("Spec.Sens", "Sens.Spec")):
            level = next(value for value in levels if key[9:] == str(math.floor(value * 100)))
            candidates = fixed_level_candidates(y, s, w, key, level)
            assert any(report[key] == pytest.approx(value, rel=1e-9, abs=1e-12)
                       for value in candidates), (key, report[key], candidates)
        elif exact and key not in ("H", "AUCH", "KS", "MER", "MWL"):
            # Unit weights: the same comparisons and float expressions.  (H and
            # AUCH are sums formed differently; KS, MER and MWL may be reached
            # at two points whose rounded values differ by an ulp.)
            assert report[key] == value, (key, report[key], value)
        else:
            assert report[key] == pytest.approx(value, rel=1e-9, abs=1e-12), key
    return report


def random_operations(seed, steps, weighted, distinct):
    """A random sequence of ("add" | "remove", point) with ties, weights and emptying."""
    rng = np.random.default_rng(seed)
    present, operations = [], []
    for _ in range(steps):
        if present and rng.random() < 0.4:
            point = present.pop(int(rng.integers(len(present))))
            operations.append(("remove", point))
        else:
            weight = float(rng.choice([0.5, 1.0, 2.0, 3.25])) if weighted else 1.0
            point = (int(rng.integers(2)), float(rng.integers(-distinct, distinct + 1)) / 4,
                     weight)
            present.append(point)
            operations.append(("add", point))
    return operations


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("first_report", ["start", "late"])
def test_report_after_every_operation(seed, weighted, first_report):
    """Capacity 1; the lower hull tracked from the start, or built from 30 points."""
    tracker = DynamicH(capacity=1)
    if first_report == "start":
        assert all(math.isnan(value) for value in tracker.report().values())
    points = []
    for step, (kind, point) in enumerate(random_operations(seed, 90, weighted, [2, 6, 40][seed % 3])):
        if kind == "add":
            tracker.add(*point)
            points.append(point)
        else:
            tracker.remove(*point)
            points.remove(point)
        if first_report == "late" and step < 30:
            continue
        threshold = [0.5, 0.0, -0.25, 1.0][step % 4]
        assert_report_matches(tracker, points, levels=(0.95, 0.5, 0.295), threshold=threshold,
                              exact=not weighted)
        tracker._check()


@pytest.mark.parametrize("seed", range(4))
def test_report_batches_cost_and_pickle(seed):
    rng = np.random.default_rng(100 + seed)
    n = 400
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y * rng.uniform(-1, 2), 1)
    tracker = DynamicH(alpha=3.0, beta=1.5)
    tracker.add_many(y[:200], s[:200])
    assert_report_matches(tracker, [(a, b, 1.0) for a, b in zip(y[:200], s[:200], strict=True)],
                          alpha=3.0, beta=1.5)
    tracker.add_many(y[200:], s[200:])
    tracker.remove_many(y[:150], s[:150])
    points = [(a, b, 1.0) for a, b in zip(y[150:], s[150:], strict=True)]
    report = assert_report_matches(tracker, points, alpha=3.0, beta=1.5)
    copy = pickle.loads(pickle.dumps(tracker))
    copy._check()
    assert copy.report() == report
    # The copy keeps maintaining its lower hull.
    copy.add_many(y[:10], s[:10])
    copy._check()
    assert_report_matches(copy, points + [(a, b, 1.0) for a, b in zip(y[:10], s[:10], strict=True)],
                          alpha=3.0, beta=1.5)


def test_report_against_independent_r_definitions():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.uniform(size=300) * 0.6 + y * 0.3, 2)
    tracker = DynamicH(severity_ratio=0.5)
    tracker.add_many(y, s)
    report = tracker.report(sens_spec_levels=[0.9, 0.95])
    for level in (0.9, 0.95):
        reference = r_style_report(y, s, severity_ratio=0.5, level=level)
        percent = math.floor(level * 100)
        assert report[f"Spec.Sens{percent}"] == pytest.approx(reference["Spec.Sens"], rel=1e-12)
        assert report[f"Sens.Spec{percent}"] == pytest.approx(reference["Sens.Spec"], rel=1e-12)
    for key in ("KS", "MER", "MWL"):
        assert report[key] == pytest.approx(reference[key], rel=1e-12), key
    for key, value in r_misclass_counts(y, s, 0.5, at_or_above=True).items():
        assert report[key] == pytest.approx(value, rel=1e-12), key


def test_report_refuses_bad_arguments_and_changes_nothing():
    tracker = DynamicH()
    tracker.add_many([0, 1, 1, 0], [0.1, 0.7, 0.3, 0.4])
    before = pickle.dumps(tracker)
    for bad in (0, 1.0, "0.9", [0.5, 2.0]):
        with pytest.raises(ValueError, match="level"):
            tracker.report(bad)
    for bad in (np.nan, "0.5", None):
        with pytest.raises(ValueError, match="threshold"):
            tracker.report(threshold=bad)
    assert pickle.dumps(tracker) == before


@pytest.mark.parametrize("window", [1, 7, 40])
def test_window_ks_mer_mwl_match_the_report_of_every_window(window):
    from hmeasure_stream import SlidingWindow, sliding_window

    rng = np.random.default_rng(window)
    n = 160
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + y * 0.8, 1)
    values = sliding_window(y, s, window=window,
                            metrics=("ks", "auc", "mer", "mwl", HCost(severity_ratio=0.5)))
    for end in range(n):
        part = slice(max(0, end + 1 - window), end + 1)
        if len(set(y[part].tolist())) < 2:
            assert all(np.isnan(values[key][end]) for key in ("ks", "mer", "mwl"))
            continue
        expected = hmeasure_report(y[part], s[part], severity_ratio=0.5)
        for key in ("KS", "MER", "MWL"):
            assert values[key.lower()][end] == pytest.approx(expected[key], rel=1e-12), (end, key)
    tracker = SlidingWindow(window, metrics=("mwl", "ks", HCost(severity_ratio=0.5)))
    tracker.update(y, s)
    np.testing.assert_equal([tracker["ks"], tracker["mwl"]], [values["ks"][-1], values["mwl"][-1]])
    with pytest.raises(ValueError, match="cannot be combined with relative_error="):
        SlidingWindow(window, metrics=("ks", HCost(relative_error=0.1)))


class DynamicHReportMachine(PointSetMachine):
    """Random updates (weights 0 and 1e-3 included), batches, pickles: report() each step."""

    def make(self):
        tracker = DynamicH(capacity=1)
        tracker.report()  # the lower hull is maintained from the start
        return tracker

    def matches(self, tracker, points, exact):
        assert_report_matches(tracker, points, levels=(0.95, 0.5), threshold=0.75, exact=exact)


TestDynamicHReportMachine = point_set_test(DynamicHReportMachine)


@pytest.mark.parametrize(("window", "threshold", "weighted"),
                         [(1, 0.5, False), (9, 0.0, False), (40, 0.25, True), (None, 0.5, True)])
def test_window_threshold_metrics_match_r_definitions(window, threshold, weighted):
    from hmeasure_stream import SlidingWindow, sliding_window

    names = ("er", "sens", "spec", "precision", "f", "youden")
    keys = ("ER", "Sens", "Spec", "Precision", "F", "Youden")
    rng = np.random.default_rng(3 if window is None else window)
    n = 120
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) * 0.5 + y * 0.5, 1)
    w = rng.choice([0.5, 1.0, 2.0], n) if weighted else None
    values = sliding_window(y, s, window=window, metrics=("auc", *names, Threshold(threshold)),
                            sample_weight=w)
    for end in range(n):
        part = slice(0 if window is None else max(0, end + 1 - window), end + 1)
        if len(set(y[part].tolist())) < 2:
            assert all(np.isnan(values[name][end]) for name in names)
            continue
        reference = r_misclass_counts(y[part], s[part], threshold,
                                      None if w is None else w[part], at_or_above=True)
        for name, key in zip(names, keys, strict=True):
            if np.isnan(reference[key]):
                assert np.isnan(values[name][end]), (end, name)
            else:
                assert values[name][end] == pytest.approx(reference[key], rel=1e-12,
                                                          abs=1e-15), (end, name)
    tracker = SlidingWindow(window, metrics=("f", "er", Threshold(threshold)))
    tracker.update(y, s, w)
    np.testing.assert_equal(tracker.threshold_metrics(),
                            {"f": values["f"][-1], "er": values["er"][-1]})
    copy = pickle.loads(pickle.dumps(tracker))
    np.testing.assert_equal(copy.threshold_metrics(), tracker.threshold_metrics())
    with pytest.raises(ValueError, match="threshold"):
        SlidingWindow(window, metrics=("er", Threshold(np.inf)))
