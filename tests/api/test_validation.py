"""Every bad input is refused with a ValueError that says what is wrong and where."""

import numpy as np
import pandas as pd
import pytest

from hmeasure_stream import auc, h_measure, hmeasure_report, roc_hull

FUNCTIONS = [auc, h_measure, roc_hull, hmeasure_report]
Y = [0, 1, 0, 1]
S = [0.1, 0.4, 0.35, 0.8]


@pytest.fixture(params=FUNCTIONS, ids=lambda f: f.__name__)
def metric(request):
    return request.param


@pytest.fixture(params=[None, [1.0, 2.0, 1.0, 0.5]], ids=["unweighted", "weighted"])
def weights(request):
    return request.param


@pytest.mark.parametrize(
    ("y", "s", "message"),
    [
        (Y, [0.1, np.nan, 0.3, 0.2], r"y_score must contain only finite values; found nan at position 1"),
        (Y, [0.1, 0.2, np.inf, -np.inf], r"found inf at position 2 \(and 1 more\)"),
        ([0, 2, 1, 0], S, r"y_true must contain only labels 0 and 1.*found 2 at position 1"),
        ([0, 1, -1, 1], S, r"found -1 at position 2"),
        ([0.0, 1.0, 0.5, 1.0], S, r"found 0.5 at position 2"),
        ([0.0, 1.0, np.nan, 1.0], S, r"found nan at position 2"),
        ([0, 1, 0], S, r"different lengths: 3 and 4"),
        ([[0, 1], [0, 1]], [[0.1, 0.2], [0.3, 0.4]], r"y_true must be 1-d, got an array of shape \(2, 2\)"),
        (Y, np.column_stack([S, S]), r"y_score must be 1-d, one score per point, got an array "
                                     r"of shape \(4, 2\): pass the scores of class 1, y_score\[:, 1\]"),
        (Y, np.ones((4, 3)), r"y_score must be 1-d.*shape \(4, 3\); scores of several classes"),
        (Y, np.ones((4, 1, 1)), r"y_score must be 1-d, got an array of shape \(4, 1, 1\)"),
        (1, 0.5, r"y_true must be 1-d array-like, got a scalar"),
        ([], [], r"y_true is empty"),
        ([1, 1, 1, 1], S, r"only one class is present: y_true has no points of class 0"),
        ([0, 0, 0, 0], S, r"no points of class 1"),
        (["a", "b", "a", "b"], S, r"y_true must contain labels 0/1 or booleans, got an array of dtype <U1"),
        (Y, ["a", "b", "c", "d"], r"y_score must be numeric, got an array of dtype <U1"),
        (Y, np.array(S) * 1j, r"y_score must be real"),
        (Y, np.array([0.1, None, 0.3, 0.2], dtype=object), r"y_score must be numeric; found None at position 1"),
        (Y, pd.Series(S, dtype="Float64").where([True, False, True, True]), r"found nan at position 1"),
    ],
)
def test_bad_data_is_refused(metric, weights, y, s, message):
    with pytest.raises(ValueError, match=message):
        metric(y, s, sample_weight=weights)


@pytest.mark.parametrize(
    ("w", "message"),
    [
        ([1.0, -1.0, 1.0, 1.0], r"sample_weight must be non-negative; found -1.0 at position 1"),
        ([1.0, 1.0, np.nan, 1.0], r"sample_weight must contain only finite values; found nan at position 2"),
        ([1.0, 1.0, 1.0, np.inf], r"found inf at position 3"),
        ([1.0, 1.0, 1.0], r"sample_weight has 3 entries but there are 4 points"),
        ([0.0, 1.0, 0.0, 1.0], r"only one class is present: y_true has no points of class 0 \(with positive weight\)"),
        (["x"] * 4, r"sample_weight must be numeric"),
    ],
)
def test_bad_weights_are_refused(metric, w, message):
    with pytest.raises(ValueError, match=message):
        metric(Y, S, sample_weight=w)


H_FUNCTIONS = [h_measure, hmeasure_report]


@pytest.mark.parametrize("function", H_FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 0}, r"alpha must be a finite number > 0, got 0.0"),
        ({"alpha": -1.5}, r"alpha must be a finite number > 0"),
        ({"beta": 0.0}, r"beta must be a finite number > 0"),
        ({"beta": np.inf}, r"beta must be a finite number > 0"),
        ({"alpha": np.nan}, r"alpha must be a finite number > 0"),
        ({"alpha": "2"}, r"alpha must be a positive number, got '2'"),
        ({"severity_ratio": 0}, r"severity_ratio must be a finite number > 0"),
        ({"severity_ratio": -2}, r"severity_ratio must be a finite number > 0"),
        ({"severity_ratio": "default"}, r'severity_ratio must be a number > 0 or "prior"'),
        ({"severity_ratio": 1.0, "alpha": 3.0}, r"pass either severity_ratio or alpha/beta"),
        ({"severity_ratio": "prior", "beta": 1.0}, r"pass either severity_ratio or alpha/beta"),
        ({"priors": (0.5, 0.6)}, r"priors must sum to 1"),
        ({"priors": (0.0, 1.0)}, r"priors must both lie in \(0, 1\)"),
        ({"priors": 0.5}, r"priors must be a pair"),
        ({"priors": (0.2, 0.3, 0.5)}, r"priors must be a pair"),
    ],
)
def test_bad_parameters_are_refused(function, kwargs, message):
    with pytest.raises(ValueError, match=message):
        function(Y, S, **kwargs)


def test_parameters_are_checked_before_the_data():
    with pytest.raises(ValueError, match="alpha"):
        h_measure([1, 1], [np.nan, 0.0], alpha=-1)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_input_arrays_are_not_modified():
    y = np.array([0, 1, 0, 1, 1])
    s = np.array([0.5, 0.1, 0.9, 0.3, 0.3])
    w = np.array([1.0, 2.0, 0.5, 1.0, 1.0])
    copies = (y.copy(), s.copy(), w.copy())
    for function in FUNCTIONS:
        function(y, s)
        function(y, s, sample_weight=w)
    for original, copy in zip((y, s, w), copies, strict=True):
        np.testing.assert_array_equal(original, copy)
