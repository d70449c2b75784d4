"""Issue 11: any weight scale, exact big integers, honest removals, odd parameters."""

import pickle
from fractions import Fraction

import numpy as np
import pytest
from reference_impl import brute_auc, h_by_integration

from hmeasure_stream import (
    ApproxAUC,
    ApproxH,
    DynamicAUC,
    DynamicH,
    DynamicMulticlassAUC,
    SlidingWindow,
    auc,
    binned_auc,
    h_measure,
    hmeasure_report,
    multiclass_auc,
    partial_auc,
    roc_hull,
    roc_points,
    sliding_window,
)

Y6 = [0, 1, 0, 1, 1, 0]
S6 = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]


# --- Row 2: every result invariant under one common weight scale -------------------


def _same(got, expected, scale):
    """Bit for bit for a power of two; within rounding of the weights otherwise."""
    if np.frexp(scale)[0] == 0.5:
        np.testing.assert_array_equal(got, expected)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-14, atol=1e-15)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("scale", [1e160, 1e-200, 1e307, 1e-300, 2.0**-1000, 2.0**1000])
def test_from_scratch_results_do_not_depend_on_a_common_weight_scale(scale):
    weights, unit = [scale] * 6, [1.0] * 6
    _same(auc(Y6, S6, sample_weight=weights), float(brute_auc(Y6, S6)), scale)
    assert h_measure(Y6, S6, sample_weight=weights) == pytest.approx(
        h_by_integration(Y6, S6, 2.0, 2.0), rel=1e-9)
    for function in (roc_hull, roc_points):
        for got, expected in zip(function(Y6, S6, sample_weight=weights),
                                 function(Y6, S6), strict=True):
            _same(got, expected, scale)
    # The confusion weights TP, FP, TN, FN are sums of weights: they scale with them.
    counts = ("TP", "FP", "TN", "FN")
    report = hmeasure_report(Y6, S6, sample_weight=weights)
    unit_report = hmeasure_report(Y6, S6, sample_weight=unit)
    _same([v for k, v in report.items() if k not in counts],
          [v for k, v in unit_report.items() if k not in counts], scale)
    _same(partial_auc(Y6, S6, fpr_range=(0, 0.5), sample_weight=weights),
          partial_auc(Y6, S6, fpr_range=(0, 0.5), sample_weight=unit), scale)
    _same(binned_auc(Y6, S6, n_bins=4, sample_weight=weights).auc,
          binned_auc(Y6, S6, n_bins=4, sample_weight=unit).auc, scale)


@pytest.mark.parametrize("scale", [1e160, 1e-200, 1e300, 1e-300, 2.0**-990])
def test_structures_do_not_depend_on_a_common_weight_scale(scale):
    for kind in (DynamicAUC, DynamicH):
        plain, scaled = kind(), kind()
        plain.add_many(Y6, S6)
        scaled.add_many(Y6, S6, sample_weight=[scale] * 6)
        scaled._check()
        _same(scaled.auc, plain.auc, scale)
        assert plain.auc == float(brute_auc(Y6, S6))
        if kind is DynamicH:
            _same(scaled.h, plain.h, scale)
            _same(scaled.auch, plain.auch, scale)
        assert scaled.weight_pos == pytest.approx(3 * scale, rel=1e-15)
        # One point at a time, and removals in the same units.
        single = kind()
        for label, score in zip(Y6, S6, strict=True):
            single.add(label, score, scale)
        single.remove(0, 0.1, scale)
        plain.remove(0, 0.1)
        single._check()
        _same(single.auc, plain.auc, scale)
        assert len(single) == 5


def test_a_weight_far_from_the_structures_scale_is_refused_and_changes_nothing():
    tracker = DynamicAUC()
    tracker.add_many([0, 1], [0.1, 0.9], sample_weight=[1e-150, 2e-150])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"weight must lie within a factor 2\*\*400"):
        tracker.add(1, 0.5, 1.0)
    with pytest.raises(ValueError, match=r"sample_weight must .*found 1e\+100 at position 1"):
        tracker.add_many([0, 1], [0.2, 0.3], sample_weight=[1e-150, 1e100])
    window = SlidingWindow(3)
    window.update([0, 1], [0.1, 0.9], sample_weight=[1.0, 1.0])
    window_before = pickle.dumps(window)
    with pytest.raises(ValueError, match=r"sample_weight must .*found 1e-200 at position 0"):
        window.update([0], [0.5], sample_weight=[1e-200])
    assert pickle.dumps(window) == window_before
    assert pickle.dumps(tracker) == before
    # An emptied structure starts afresh at any scale.
    tracker.remove_many([0, 1], [0.1, 0.9], sample_weight=[1e-150, 2e-150])
    tracker.add_many([0, 1], [0.1, 0.9], sample_weight=[1e100, 1e100])
    assert tracker.auc == 1.0


# --- Row 3: Python ints beyond int64 ------------------------------------------------


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_integers_beyond_int64_are_ranked_exactly_from_scratch():
    scores = [0, 2**64 + 1, 2**64, 5]
    assert auc([0, 1, 0, 1], scores) == 0.75
    assert h_measure([0, 1, 0, 1], scores) == h_measure([0, 1, 0, 1], [0, 3, 2, 1])
    assert sliding_window([0, 1, 0, 1], scores, 3)["auc"][-1] == auc([1, 0, 1], scores[1:])
    odd = [Fraction(1, 3), 2**70, Fraction(10**400, 3), 0.25, 2**70 + 1, 2**70]
    assert auc([0, 1, 0, 1, 0, 0], odd) == float(brute_auc([0, 1, 0, 1, 0, 0], odd))


@pytest.mark.parametrize("kind", [DynamicAUC, DynamicH])
def test_structures_refuse_integers_not_exact_as_float64(kind):
    tracker = kind()
    with pytest.raises(ValueError, match=r"y_score must hold integers of magnitude <= 2\*\*53.*"
                                         r"found 18446744073709551617 at position 1"):
        tracker.add_many([0, 1, 0, 1], [0, 2**64 + 1, 2**64, 5])
    with pytest.raises(ValueError, match=r"y_score must be exact as float64"):
        tracker.add(1, 2**64 + 1)
    assert len(tracker) == 0


# --- Row 4: honest removals ----------------------------------------------------------


def test_removing_part_of_the_last_points_weight_keeps_the_point():
    tracker = DynamicAUC()
    tracker.add(0, 0.1)
    tracker.add(1, 0.5, 2.0)
    tracker.remove(1, 0.5, 1.0)
    tracker._check()
    assert tracker.weight_pos == 1.0
    assert len(tracker) == 2
    assert tracker.auc == 1.0
    tracker.remove(1, 0.5, 1.0)
    assert tracker.weight_pos == 0.0 and len(tracker) == 1


@pytest.mark.parametrize("kind", [DynamicAUC, DynamicH])
def test_the_removal_tolerance_is_relative_to_the_points_own_weight(kind):
    tracker = kind()
    tracker.add_many([0, 1, 1], [0.1, 0.9, 0.5], sample_weight=[1.0, 1e9, 1.0])
    before = pickle.dumps(tracker)
    # 1e-9 of the class total (1e9) would let this pass and zero the point's weight.
    with pytest.raises(KeyError, match=r"cannot remove weight 1.5 .* they weigh 1.0"):
        tracker.remove(1, 0.5, 1.5)
    with pytest.raises(KeyError, match=r"removes weight 1.5 from the points with y_true=1"):
        tracker.remove_many([1], [0.5], sample_weight=[1.5])
    assert pickle.dumps(tracker) == before
    tracker.remove(1, 0.5, 1.0 + 1e-12)  # rounding of the point's own weight is fine
    tracker._check()
    assert len(tracker) == 2 and tracker.weight_pos == 1e9


# --- Row 11: results inside [0, 1] -----------------------------------------------


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_results_stay_inside_the_unit_interval():
    value = auc([1, 0, 0, 0], [3, 0, 2, 1], sample_weight=[0.4, 0.9, 0.5, 1])
    assert value == 1.0
    value = h_measure([1, 0, 1, 1, 1], [3, 3, 2, 0, 3], sample_weight=[0.6, 0.2, 0.6, 0.5, 0.2])
    assert value == 0.0
    report = hmeasure_report([1, 0, 0, 0], [3, 0, 2, 1], sample_weight=[0.4, 0.9, 0.5, 1])
    assert all(0.0 <= report[key] <= 1.0 for key in report
               if key not in ("Gini", "Youden", "TP", "FP", "TN", "FN"))


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_results_inside_the_unit_interval_on_random_weighted_input():
    rng = np.random.default_rng(11)
    for _ in range(300):
        n = int(rng.integers(2, 7))
        y = rng.integers(0, 2, n)
        y[:2] = (0, 1)
        s = rng.integers(0, 4, n).astype(float)
        w = np.round(rng.random(n), 1) + 0.1
        values = [auc(y, s, sample_weight=w), h_measure(y, s, sample_weight=w),
                  multiclass_auc(np.where(y == 1, "b", "a"), np.column_stack([-s, s]),
                                 sample_weight=w)]
        tracker = DynamicH()
        tracker.add_many(y, s, w)
        values += [tracker.auc, tracker.h, tracker.auch]
        assert all(0.0 <= value <= 1.0 for value in values), (y, s, w, values)


# --- Row 12: odd parameters are ValueErrors naming the argument ----------------------


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: sliding_window(Y6, S6, 2**63), "window"),
        (lambda: sliding_window(Y6, S6, 2**31), "window"),
        (lambda: SlidingWindow(2**62), "window"),
        (lambda: sliding_window(Y6, S6, 3, metrics=None), "metrics"),
        (lambda: SlidingWindow(3, metrics=None), "metrics"),
        (lambda: DynamicAUC(capacity=2**31), "capacity"),
        (lambda: DynamicAUC().add(1, Fraction(10**400, 3)), "y_score"),
        (lambda: DynamicAUC().add(1, 0.5, 2**1024), "weight"),
        (lambda: DynamicAUC().remove(1, 0.5, 2**1024), "weight"),
        (lambda: ApproxAUC(0.1, seed="x"), "seed"),
        (lambda: ApproxAUC(0.1, seed=1.5), "seed"),
        (lambda: SlidingWindow(3, seed="x"), "seed"),
        (lambda: h_measure(Y6, S6, alpha=2**1024), "alpha"),
        (lambda: ApproxH(relative_error=10**400), "relative_error"),
        (lambda: auc(Y6, S6, sample_weight=[1.0] * 5 + [2**1024]), "sample_weight"),
        (lambda: hmeasure_report(Y6, S6, sens_spec_levels=Fraction(10**400, 3)), "level"),
        (lambda: hmeasure_report(Y6, S6, sens_spec_levels=[]), "level"),
        (lambda: hmeasure_report(Y6, S6, sens_spec_levels=None), "level"),
    ],
)
def test_odd_parameters_are_value_errors_naming_the_argument(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_a_window_longer_than_the_stream_is_every_prefix():
    np.testing.assert_array_equal(sliding_window(Y6, S6, 2**31 - 1)["auc"],
                                  sliding_window(Y6, S6, None)["auc"])


def test_a_numpy_seed_at_the_top_of_its_range_is_taken():
    tracker = SlidingWindow(6, seed=np.uint64(2**64 - 1))
    tracker.update(Y6, S6)
    assert tracker["auc"] == float(brute_auc(Y6, S6))


@pytest.mark.parametrize(
    "make", [DynamicAUC, DynamicH, lambda **kw: ApproxH(0.1, **kw),
             lambda **kw: DynamicMulticlassAUC([0, 1], **kw)])
def test_structures_with_nothing_random_take_no_seed(make):
    # Their sorted blocks use no randomness, so a seed would be a no-op.
    with pytest.raises(TypeError, match="seed"):
        make(seed=1)


# --- Row 13: report keys -------------------------------------------------------------


def test_report_keys_are_distinct_and_correctly_rounded():
    report = hmeasure_report(Y6, S6, sens_spec_levels=[0.29, 0.951, 0.959])
    assert [key for key in report if key.startswith("Spec.")] == [
        "Spec.Sens29", "Spec.Sens95.1", "Spec.Sens95.9"]
    assert [key for key in report if key.startswith("Sens.")] == [
        "Sens.Spec29", "Sens.Spec95.1", "Sens.Spec95.9"]
    single = hmeasure_report(Y6, S6, sens_spec_levels=np.float32(0.95))
    assert single["Spec.Sens95"] == hmeasure_report(Y6, S6, sens_spec_levels=0.95)["Spec.Sens95"]
    assert "Spec.Sens95" in hmeasure_report(Y6, S6, sens_spec_levels=np.array([0.95], dtype=np.float32))
    # R's name when no other level shares it; a repeated level once.
    assert [key for key in hmeasure_report(Y6, S6, sens_spec_levels=[0.975, 0.975])
            if key.startswith(("Spec.", "Sens."))] == ["Spec.Sens97", "Sens.Spec97"]


# --- Row 14: masked arrays --------------------------------------------------------


@pytest.mark.parametrize("argument", ["y_true", "y_score", "sample_weight"])
def test_masked_entries_are_refused_not_dropped(argument):
    arrays = {"y_true": [0, 1, 0, 1], "y_score": [0.1, 0.9, 0.2, 0.8],
              "sample_weight": [1.0, 1.0, 1.0, 1.0]}
    arrays[argument] = np.ma.array(arrays[argument], mask=[0, 1, 0, 0])
    for call in (
        lambda: auc(arrays["y_true"], arrays["y_score"], sample_weight=arrays["sample_weight"]),
        lambda: DynamicAUC().add_many(arrays["y_true"], arrays["y_score"],
                                      arrays["sample_weight"]),
    ):
        with pytest.raises(ValueError, match=f"{argument} is a masked array with 1 masked"):
            call()
    # Nothing masked: the data is used as it is.
    assert auc(np.ma.array([0, 1]), np.ma.array([0.2, 0.7], mask=[0, 0])) == 1.0


# --- Row 15: accurate messages ----------------------------------------------------


def test_none_and_generators_get_accurate_messages():
    with pytest.raises(ValueError, match=r"y_true must be numeric; found None at position 1"):
        auc([0, None, 0, 1], [0.1, 0.2, 0.3, 0.4])
    with pytest.raises(ValueError, match=r"y_score must be numeric; found None at position 2"):
        auc([0, 1, 0, 1], np.array([0.1, 0.2, None, 0.4], dtype=object))
    with pytest.raises(ValueError, match=r"y_true must be array-like .* got an iterator "
                                         r"\(generator\): pass list"):
        auc((v for v in [0, 1]), [0.1, 0.2])
    with pytest.raises(ValueError, match=r"y_score must be array-like .* iterator"):
        DynamicAUC().add_many([0, 1], iter([0.1, 0.2]))
    with pytest.raises(ValueError, match=r"y_true must be array-like, got None"):
        auc(None, [0.1])
