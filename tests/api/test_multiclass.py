"""multiclass_auc: one-vs-rest and Hand-Till one-vs-one AUC against scikit-learn and brute force."""

import itertools
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import brute_auc
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_predict
from sklearn.naive_bayes import GaussianNB
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from hmeasure_stream import auc, multiclass_auc

# --------------------------------------------------------------------------- real data


def _rounded_rows(proba, decimals):
    """Probabilities rounded (ties), the last column completing each row to 1 (sklearn
    requires rows summing to 1)."""
    rounded = np.round(proba, decimals)
    rounded[:, -1] = 1.0 - rounded[:, :-1].sum(axis=1)
    return rounded


def _cross_validated(loader, model, decimals, string_labels):
    data = loader()
    folds = StratifiedKFold(5, shuffle=True, random_state=0)
    proba = cross_val_predict(model, data.data, data.target, cv=folds, method="predict_proba")
    scores = proba if decimals is None else _rounded_rows(proba, decimals)
    y = np.asarray(data.target_names)[data.target] if string_labels else data.target
    return y, scores


@pytest.fixture(scope="module", params=["iris-knn", "wine-logistic", "digits-nb"])
def real_data(request):
    if request.param == "iris-knn":  # k-NN probabilities are multiples of 1/7: many ties
        y, s = _cross_validated(load_iris, KNeighborsClassifier(7), None, True)
    elif request.param == "wine-logistic":
        model = make_pipeline(StandardScaler(), LogisticRegression(C=0.05, max_iter=1000))
        y, s = _cross_validated(load_wine, model, 2, False)
    else:
        y, s = _cross_validated(load_digits, GaussianNB(var_smoothing=0.05), 3, False)
    # The data really has ties in the scores within a column.
    assert all(np.unique(s[:, k]).size < s.shape[0] * 0.9 for k in range(s.shape[1]))
    return y, s


@pytest.mark.parametrize("method", ["ovr", "ovo"])
@pytest.mark.parametrize("average", ["macro", "weighted"])
def test_matches_scikit_learn_on_real_data(real_data, method, average):
    y, s = real_data
    expected = roc_auc_score(y, s, multi_class=method, average=average)
    assert multiclass_auc(y, s, method=method, average=average) == pytest.approx(
        expected, rel=1e-13
    )


def test_ovr_per_class_matches_scikit_learn_on_real_data(real_data):
    y, s = real_data
    expected = roc_auc_score(y, s, multi_class="ovr", average=None)
    np.testing.assert_allclose(multiclass_auc(y, s, average=None), expected, rtol=1e-13)


def test_ovr_weighted_by_samples_matches_scikit_learn_on_real_data(real_data, rng):
    y, s = real_data
    w = rng.exponential(size=y.shape[0])
    for average in ("macro", "weighted", None):
        expected = roc_auc_score(y, s, multi_class="ovr", average=average, sample_weight=w)
        np.testing.assert_allclose(
            multiclass_auc(y, s, average=average, sample_weight=w), expected, rtol=1e-12
        )


def test_ovo_matrix_entries_are_the_pairs_binary_auc(real_data):
    y, s = real_data
    classes = np.unique(y)
    matrix = multiclass_auc(y, s, method="ovo", average=None)
    assert matrix.shape == (classes.size, classes.size)
    assert np.isnan(np.diag(matrix)).all()
    for i, j in itertools.permutations(range(classes.size), 2):
        pair = (y == classes[i]) | (y == classes[j])
        is_i = y[pair] == classes[i]
        # The same correctly rounded value as the package's binary AUC of the pair...
        assert matrix[i, j] == auc(is_i, s[pair, i])
        # ... and scikit-learn's.
        assert matrix[i, j] == pytest.approx(roc_auc_score(is_i, s[pair, i]), rel=1e-13)


def test_ovo_with_integer_weights_equals_repeated_points(real_data, rng):
    # scikit-learn has no weighted ovo; integer weights are repetitions.
    y, s = real_data
    w = rng.integers(0, 4, size=y.shape[0])
    w[np.unique(y, return_index=True)[1]] = 1  # every class keeps a point
    repeated = np.repeat(np.arange(y.shape[0]), w)
    for average in ("macro", "weighted"):
        expected = roc_auc_score(y[repeated], s[repeated], multi_class="ovo", average=average)
        assert multiclass_auc(
            y, s, method="ovo", average=average, sample_weight=w
        ) == pytest.approx(expected, rel=1e-12)
    np.testing.assert_allclose(
        multiclass_auc(y, s, method="ovo", average=None, sample_weight=w),
        multiclass_auc(y[repeated], s[repeated], method="ovo", average=None),
        rtol=1e-12,
    )


def test_labels_in_any_order_name_the_columns(real_data, rng):
    y, s = real_data
    classes = list(np.unique(y).tolist())
    permutation = rng.permutation(len(classes))
    labels = [classes[k] for k in permutation]
    for method in ("ovr", "ovo"):
        for average in ("macro", "weighted"):
            assert multiclass_auc(
                y, s[:, permutation], method=method, average=average, classes=labels
            ) == pytest.approx(
                roc_auc_score(y, s, multi_class=method, average=average, labels=classes),
                rel=1e-13,
            )
    np.testing.assert_array_equal(
        multiclass_auc(y, s[:, permutation], average=None, classes=labels),
        multiclass_auc(y, s, average=None)[permutation],
    )
    np.testing.assert_array_equal(
        multiclass_auc(y, s[:, permutation], method="ovo", average=None, classes=labels),
        multiclass_auc(y, s, method="ovo", average=None)[np.ix_(permutation, permutation)],
    )


def test_invariant_to_increasing_transforms_of_each_column(real_data):
    y, s = real_data
    transformed = np.column_stack([np.exp(3 * s[:, 0]) - 7, *(s[:, 1:].T * 5 + 1)])
    for method in ("ovr", "ovo"):
        assert multiclass_auc(y, transformed, method=method) == multiclass_auc(
            y, s, method=method
        )


# ------------------------------------------------------------------ exact brute force


def _brute_a(y, s, i, j, w=None):
    """A(i|j) in exact fractions: P(score_i of a class-i point > that of a class-j point),
    the brute-force AUC of the class i and class j points, column i as the score."""
    kept = [p for p in range(len(y)) if y[p] in (i, j)]
    return brute_auc([int(y[p] == i) for p in kept], [s[p][i] for p in kept],
                     None if w is None else [w[p] for p in kept])


def _brute_ovr(y, s, k, w=None):
    """AUC of class k against the rest, column k as the score, in exact fractions."""
    return brute_auc([int(label == k) for label in y], [row[k] for row in s], w)


@st.composite
def multiclass_data(draw, weighted=False, fractional=False):
    """(y, s, w); ``fractional``: weights of 0 and non-integer weights too."""
    n_classes = draw(st.integers(2, 5))
    n = draw(st.integers(n_classes, 30))
    y = draw(st.lists(st.integers(0, n_classes - 1), min_size=n, max_size=n))
    y[:n_classes] = range(n_classes)  # every class present
    y = draw(st.permutations(y))
    values = st.integers(-3, 3)  # few values: many ties
    s = draw(st.lists(st.lists(values, min_size=n_classes, max_size=n_classes),
                      min_size=n, max_size=n))
    if not weighted:
        return y, s, None
    if not fractional:
        w = draw(st.lists(st.integers(1, 5), min_size=n, max_size=n))
        return y, s, w
    w = draw(st.lists(st.one_of(st.just(0.0), st.floats(0.01, 10.0)), min_size=n, max_size=n))
    for k in range(n_classes):  # every class keeps a positive weight
        first = y.index(k)
        w[first] = max(w[first], 0.5)
    return y, s, w


@given(multiclass_data())
def test_unweighted_values_are_the_correctly_rounded_fractions(data):
    y, s, _ = data
    c = len(s[0])
    ovr = multiclass_auc(y, s, average=None)
    ovo = multiclass_auc(y, s, method="ovo", average=None)
    for k in range(c):
        assert ovr[k] == float(_brute_ovr(y, s, k))
    for i, j in itertools.permutations(range(c), 2):
        assert ovo[i, j] == float(_brute_a(y, s, i, j))
    m = sum((_brute_a(y, s, i, j) + _brute_a(y, s, j, i)) / 2
            for i, j in itertools.combinations(range(c), 2)) / (c * (c - 1) // 2)
    assert multiclass_auc(y, s, method="ovo") == pytest.approx(float(m), rel=1e-15)


@given(multiclass_data(weighted=True))
def test_weighted_values_equal_exact_fractions(data):
    y, s, w = data
    c = len(s[0])
    ovr = multiclass_auc(y, s, average=None, sample_weight=w)
    ovo = multiclass_auc(y, s, method="ovo", average=None, sample_weight=w)
    for k in range(c):
        assert ovr[k] == pytest.approx(float(_brute_ovr(y, s, k, w)), rel=1e-14)
    for i, j in itertools.permutations(range(c), 2):
        assert ovo[i, j] == pytest.approx(float(_brute_a(y, s, i, j, w)), rel=1e-14)
    mass = [sum(Fraction(w[p]) for p in range(len(y)) if y[p] == k) for k in range(c)]
    pairs = list(itertools.combinations(range(c), 2))
    values = [(_brute_a(y, s, i, j, w) + _brute_a(y, s, j, i, w)) / 2 for i, j in pairs]
    weights = [mass[i] + mass[j] for i, j in pairs]
    expected = sum(v * m for v, m in zip(values, weights, strict=True)) / sum(weights)
    assert multiclass_auc(
        y, s, method="ovo", average="weighted", sample_weight=w
    ) == pytest.approx(float(expected), rel=1e-14)
    expected_ovr = sum(_brute_ovr(y, s, k, w) * mass[k] for k in range(c)) / sum(mass)
    assert multiclass_auc(y, s, average="weighted", sample_weight=w) == pytest.approx(
        float(expected_ovr), rel=1e-14
    )


@given(multiclass_data(weighted=True, fractional=True))
def test_weighted_ovo_with_zero_and_fractional_weights_equals_exact_fractions(data):
    y, s, w = data
    c = len(s[0])
    ovo = multiclass_auc(y, s, method="ovo", average=None, sample_weight=w)
    for i, j in itertools.permutations(range(c), 2):
        expected = _brute_a(y, s, i, j, [Fraction(v) for v in w])
        assert ovo[i, j] == pytest.approx(float(expected), rel=1e-13, abs=1e-300)
        assert 0.0 <= ovo[i, j] <= 1.0


def test_weighted_ovo_near_zero_keeps_its_relative_accuracy(rng):
    # Class 0 scores below class 1 in column 0 except one point of tiny weight:
    # A(0|1) is about 1e-9.  Summing the wins directly keeps it to rounding;
    # 1 minus the losses would leave only an absolute error of about 1e-16.
    n = 1000
    y = np.repeat([0, 1], n)
    s = np.zeros((2 * n, 2))
    s[:n, 0] = rng.random(n)
    s[n:, 0] = 2 + rng.random(n)
    s[0, 0] = 5.0
    s[:, 1] = -s[:, 0]
    w = rng.uniform(0.3, 3.0, 2 * n)
    w[0] = 1e-6
    got = multiclass_auc(y, s, method="ovo", average=None, sample_weight=w)[0, 1]
    weights = [Fraction(float(v)) for v in w]
    expected = weights[0] / sum(weights[:n])  # the one winning point beats every class 1 point
    assert 1e-10 < expected < 1e-8
    assert got == pytest.approx(float(expected), rel=1e-12)


@pytest.mark.slow
def test_large_random_input_matches_scikit_learn(rng):
    n, c = 60_000, 6
    y = rng.integers(0, c, n)
    s = rng.dirichlet(np.ones(c), size=n) + 0.3 * np.eye(c)[y]
    s = np.round(s / s.sum(axis=1, keepdims=True), 3)
    s[:, -1] = 1 - s[:, :-1].sum(axis=1)
    for method in ("ovr", "ovo"):
        for average in ("macro", "weighted"):
            assert multiclass_auc(y, s, method=method, average=average) == pytest.approx(
                roc_auc_score(y, s, multi_class=method, average=average), rel=1e-12
            )


# ------------------------------------------------------------------------- input kinds


def test_two_classes_are_the_binary_aucs():
    y = np.array([0, 1, 1, 0, 1, 0, 0])
    s = np.array([[0.9, 0.1], [0.3, 0.8], [0.5, 0.5], [0.6, 0.6], [0.2, 0.7], [0.8, 0.3],
                  [0.4, 0.4]])
    ovr = multiclass_auc(y, s, average=None)
    assert ovr[0] == auc(y == 0, s[:, 0]) == pytest.approx(roc_auc_score(y == 0, s[:, 0]))
    assert ovr[1] == auc(y, s[:, 1]) == pytest.approx(roc_auc_score(y, s[:, 1]))
    assert ovr[0] == 11 / 12  # class 0: 11 of its 12 pairs with class 1 ranked right
    matrix = multiclass_auc(y, s, method="ovo", average=None)
    assert matrix[0, 1] == ovr[0] and matrix[1, 0] == ovr[1]


def test_hashable_labels_of_any_kind():
    s = np.array([[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3],
                  [0.5, 0.1, 0.4], [0.2, 0.2, 0.6]])
    codes = [0, 1, 2, 1, 0, 2]
    expected = multiclass_auc(codes, s, average=None)
    # Strings, tuples, booleans mixed with None: any hashable, with labels giving the order.
    names = ["a", "b", "c"]
    assert np.array_equal(multiclass_auc([names[k] for k in codes], s, average=None), expected)
    tuples = [(0, "x"), (1, "y"), (2, "z")]
    assert np.array_equal(multiclass_auc([tuples[k] for k in codes], s, average=None),
                          expected)
    mixed = [None, "b", 3.5]
    assert np.array_equal(
        multiclass_auc([mixed[k] for k in codes], s, average=None, classes=mixed), expected
    )
    # Numeric labels of another dtype, and a pandas Series / DataFrame.
    floats = np.array([10.0, -2.5, 7.0])
    order = [1, 2, 0]  # sorted order of floats: -2.5, 7.0, 10.0
    assert np.array_equal(
        multiclass_auc(floats[codes], s[:, [0, 1, 2]][:, [1, 2, 0]], average=None),
        expected[order],
    )
    series = pd.Series([names[k] for k in codes])
    frame = pd.DataFrame(s, columns=names)
    assert np.array_equal(multiclass_auc(series, frame, average=None), expected)


def test_integer_and_boolean_scores():
    y = [0, 1, 2, 0, 1, 2, 0]
    s = np.array([[3, 1, 0], [1, 2, 2], [0, 1, 5], [2, 2, 1], [1, 3, 0], [1, 1, 4],
                  [0, 0, 0]], dtype=np.int16)
    assert multiclass_auc(y, s) == multiclass_auc(y, s.astype(float))
    big = s.astype(np.int64) * 2**60  # beyond 2**53: compared through their ranks
    assert multiclass_auc(y, big, method="ovo") == multiclass_auc(y, s, method="ovo")
    b = s > 1
    assert multiclass_auc(y, b) == multiclass_auc(y, b.astype(float))


# -------------------------------------------------------------------------- bad inputs

_Y = [0, 1, 2, 0, 1, 2]
_S = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7], [0.3, 0.4, 0.3], [0.5, 0.1, 0.4],
      [0.2, 0.2, 0.6]]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"y_score": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]},
         r"^y_score must be 2-d, of shape \(n_samples, n_classes\), got an array of shape \(6,\)$"),
        ({"y_score": np.zeros((6, 3, 1))}, r"^y_score must be 2-d.*shape \(6, 3, 1\)$"),
        ({"y_score": _S[:5]}, r"^y_true and y_score have different lengths: 6 and 5$"),
        ({"y_score": [[0.1]] * 6}, r"^y_score must have one column per class, at least 2; got 1$"),
        ({"y_score": [r[:2] for r in _S]},
         r"^y_true has 3 classes but y_score has 2 columns; pass classes= to name the class of each column$"),
        ({"y_score": [*_S[:3], [0.3, np.nan, 0.3], *_S[4:]]},
         r"^y_score must contain only finite values; found nan at row 3, column 1$"),
        ({"y_score": [*_S[:4], [0.3, 0.1, -np.inf], _S[5]]},
         r"^y_score must contain only finite values; found -inf at row 4, column 2$"),
        ({"y_score": [["a", "b", "c"]] * 6}, r"^y_score\[:, 0\] must be numeric"),
        ({"y_true": []}, r"^y_true is empty"),
        ({"y_true": 3}, r"^y_true must be 1-d array-like, got a scalar"),
        ({"y_true": [0, 1, 2, 0, 1, np.nan]}, r"^y_true must not contain NaN; found one at position 5$"),
        ({"y_true": [0, 1, 2, 0, 1, 7], "classes": [0, 1, 2]},
         r"^y_true contains a label not in classes: 7 at position 5$"),
        ({"y_true": ["a", "b", "c", "a", "b", "d"], "classes": ["a", "b", "c"]},
         r"^y_true contains a label not in classes: 'd' at position 5$"),
        ({"classes": [0, 1, 1]}, r"^classes must be distinct; 1 is at positions 1 and 2$"),
        ({"y_true": [0, 1, 0, 0, 1, 1], "classes": [0, 1]},
         r"^classes has 2 classes but y_score has 3 columns$"),
        ({"classes": [0, [1], 2]}, r"^classes must contain hashable labels; found \[1\] at position 1$"),
        ({"classes": "abc"}, r"^classes must be a sequence of class labels, got 'abc'$"),
        ({"y_true": [0, 1, 1, 0, 1, 1], "classes": [0, 1, 2]},
         r"^multi-class AUC is undefined: class 2 \(column 2\) has no points in y_true$"),
        ({"y_true": [0, 1, 3, 0, 1, 1], "classes": [0, 3, 1, 2], "y_score": [[*r, 0] for r in _S]},
         r"^multi-class AUC is undefined: class 2 \(column 3\) has no points in y_true$"),
        ({"sample_weight": [1, 1, 0, 1, 1, 0]},
         r"^multi-class AUC is undefined: class 2 \(column 2\) has no points \(with positive weight\) in y_true$"),
        ({"sample_weight": [1, 1, 1, -1, 1, 1]}, r"^sample_weight must be non-negative; found -1.0 at position 3$"),
        ({"sample_weight": [1, 1, 1]}, r"^sample_weight has 3 entries but there are 6 points$"),
        ({"method": "ova"}, r"^method must be one of 'ovr', 'ovo'; got 'ova'$"),
        ({"average": "micro"}, r"^average must be one of 'macro', 'weighted', None; got 'micro'$"),
        ({"y_true": [0, "a", 2, 0, "a", 2]},  # not silently made strings by numpy
         r"^y_true holds labels that cannot be sorted together .*; pass classes= to give the column order of y_score$"),
        ({"y_true": [0, [1], 2, 0, 1, 2]}, r"^y_true must contain hashable labels; found \[1\] at position 1$"),
    ],
)
def test_bad_input_raises_a_clear_error(kwargs, message):
    arguments = {"y_true": _Y, "y_score": _S, **kwargs}
    y, s = arguments.pop("y_true"), arguments.pop("y_score")
    with pytest.raises(ValueError, match=message):
        multiclass_auc(y, s, **arguments)
    # (One-vs-one with a listed class without points has scikit-learn's value:
    # tests/api/test_sklearn_ergonomics.py.)
    if "method" not in kwargs and "average" not in kwargs and "has no points" not in message:
        with pytest.raises(ValueError, match=message):
            multiclass_auc(y, s, method="ovo", **arguments)
