"""One name per idea: ``relative_error`` (H and the average precision within a relative
error), ``compression`` (Tatti's compressed list) and ``n_bins`` (every count of bins).

The former spellings (``epsilon`` for the first two, ``bins``) keep working for one
release, as keywords and as attributes, each with a DeprecationWarning that names the
new one and points at the caller's line; the values they give are those of the new
names, checked here against independent computations.
"""

import dataclasses
import inspect
import pickle

import numpy as np
import pytest
from reference_impl import brute_auc

import hmeasure_stream as hs

# (class, former keyword, keyword, a value)
OPTIONS = [(hs.HCost, "epsilon", "relative_error", 0.2),
           (hs.APApprox, "epsilon", "relative_error", 0.05),
           (hs.Compression, "epsilon", "compression", 0.3),
           (hs.Binning, "bins", "n_bins", 7)]


@pytest.mark.parametrize(("options", "old", "new", "value"), OPTIONS,
                         ids=[options.__name__ for options, *_ in OPTIONS])
def test_an_options_former_keyword_gives_the_new_field_with_a_warning(options, old, new,
                                                                     value):
    with pytest.warns(DeprecationWarning, match=rf"{options.__name__}: {old}= is deprecated "
                      rf"and will be removed in the next release; use {new}=") as caught:
        former = options(**{old: value})
    assert caught[0].filename == __file__  # the caller's line, not the package's
    assert former == options(**{new: value})
    assert getattr(former, new) == value
    with pytest.warns(DeprecationWarning, match=rf"\.{old} is deprecated.*use \.{new}"):
        assert getattr(former, old) == value
    # The former name is no field: replace, fields, repr, pickles and help know the new one.
    assert old not in {field.name for field in dataclasses.fields(options)}
    assert old not in inspect.signature(options).parameters
    assert dataclasses.replace(former) == former
    assert pickle.loads(pickle.dumps(former)) == former
    assert f"{new}={value!r}" in repr(former) and f"({old}=" not in repr(former)
    assert f" {old}=" not in repr(former)


@pytest.mark.parametrize(("options", "old", "new", "value"), OPTIONS,
                         ids=[options.__name__ for options, *_ in OPTIONS])
def test_both_spellings_at_once_are_refused(options, old, new, value):
    with pytest.raises(ValueError, match=rf"give {new}= only \({old}= is its deprecated "
                       "name\\), not both"):
        options(**{old: value, new: value * 2})


def test_an_unknown_attribute_is_still_an_attribute_error():
    with pytest.raises(AttributeError, match="'HCost' object has no attribute 'epsilon2'"):
        hs.HCost().epsilon2  # noqa: B018


def _stream(n=300, seed=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return y, np.round(rng.normal(size=n) + 0.8 * y, 2)


def test_approx_h_former_keyword_and_attribute():
    y, s = _stream()
    priors = (0.3, 0.7)
    new = hs.ApproxH(relative_error=0.1, priors=priors)
    with pytest.warns(DeprecationWarning, match="ApproxH: epsilon= is deprecated") as caught:
        old = hs.ApproxH(epsilon=0.1, priors=priors)
    assert caught[0].filename == __file__
    new.add_many(y, s)
    old.add_many(y, s)
    exact = hs.h_measure(y, s, priors=priors)
    assert old.h == new.h and abs(new.h - exact) <= 0.1 * (1 - exact)
    with pytest.warns(DeprecationWarning, match=r"ApproxH: \.epsilon is deprecated"):
        assert old.epsilon == 0.1 == new.relative_error
    # The weights' former names still read through the same rule.
    with pytest.warns(DeprecationWarning, match=r"\.n_pos is deprecated"):
        assert old.n_pos == int(y.sum())
    with pytest.raises(TypeError, match="ApproxH\\(\\) missing 1 required argument"):
        hs.ApproxH()


def test_approx_auc_former_keyword_and_attribute():
    y, s = _stream()
    with pytest.warns(DeprecationWarning, match="ApproxAUC: epsilon= is deprecated"):
        old = hs.ApproxAUC(epsilon=0.3, seed=1)
    new = hs.ApproxAUC(compression=0.3, seed=1)
    old.add_many(y, s)
    new.add_many(y, s)
    exact = brute_auc(y.tolist(), s.tolist())
    assert old.auc == new.auc and abs(new.auc - exact) <= 0.3 * exact / 2
    with pytest.warns(DeprecationWarning, match=r"ApproxAUC: \.epsilon is deprecated"):
        assert old.epsilon == 0.3 == new.compression
    with pytest.raises(ValueError, match="give compression= only"):
        hs.ApproxAUC(0.3, epsilon=0.3 * 2)


def test_average_precision_former_keyword():
    y, s = _stream(2000)
    tracker = hs.DynamicAUC()
    tracker.add_many(y, s)
    with pytest.warns(DeprecationWarning, match="average_precision: epsilon= is deprecated"):
        old = tracker.average_precision(epsilon=0.05)
    exact = tracker.average_precision()
    assert old == tracker.average_precision(relative_error=0.05)
    assert exact == pytest.approx(hs.average_precision(y, s), rel=1e-12)
    assert abs(old - exact) <= 0.05 * exact


def test_one_name_for_the_number_of_bins_everywhere():
    """``n_bins`` in the functions, the structures, the options and the windows."""
    y, s = _stream()
    p = 1 / (1 + np.exp(-s))
    values = hs.sliding_window(y, p, 50, metrics=("auc_binned", "ece", hs.Binning(n_bins=9),
                                                  hs.CalibrationBins(n_bins=9)))
    tracker = hs.BinnedAUC(n_bins=9)
    tracker.add_many(y[-50:], p[-50:])
    assert values["auc_binned"][-1] == tracker.auc == hs.binned_auc(y[-50:], p[-50:],
                                                                     n_bins=9).auc
    assert values["ece"][-1] == pytest.approx(
        hs.calibration_error(y[-50:], p[-50:], n_bins=9), rel=1e-12)
    for callable_ in (hs.binned_auc, hs.calibration_error, hs.calibration_report,
                      hs.BinnedAUC, hs.Binning, hs.CalibrationBins):
        assert "n_bins" in inspect.signature(callable_).parameters, callable_
