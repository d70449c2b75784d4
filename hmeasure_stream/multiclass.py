"""Multi-class AUC from scratch: one-vs-rest and Hand and Till's one-vs-one M.

Both are built from exact binary AUCs, one sort per column of the scores:
one-vs-rest calls :func:`hmeasure_stream.metrics.auc` once per class; one-vs-one
sorts each class's scores of each column once and merges them pairwise with
the binary AUC's compiled kernels (``_scratch``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._core.classes import AVERAGES as _AVERAGES
from hmeasure_stream._core.classes import METHODS as _METHODS
from hmeasure_stream._core.classes import as_label_array as _as_label_array
from hmeasure_stream._core.classes import averaged
from hmeasure_stream._core.classes import check_classes_present as _check_classes_present
from hmeasure_stream._core.classes import check_score_matrix as _check_score_matrix
from hmeasure_stream._core.classes import encode_given as _encode_given
from hmeasure_stream._core.classes import encode_sorted as _encode_sorted
from hmeasure_stream._core.groups import auc_value as _auc_value
from hmeasure_stream._engines import _scratch
from hmeasure_stream._validation import (
    FloatArray,
    Label,
    check_option,
    check_weights,
    normalized_weights,
)

__all__ = ["multiclass_auc"]


def _ovo_matrix(codes: NDArray[Any], scores: FloatArray, class_sizes: NDArray[Any],
                weights: FloatArray | None, present: NDArray[Any]) -> FloatArray:
    """``A[i, j]``: probability that a class-i point outscores a class-j point in column i.

    NaN where class i or j is not ``present`` (no points of positive weight).

    The points are grouped by class once; then, per column, each class's
    scores are sorted and class i's are merged with every other class's by
    the binary AUC's kernels: exact 2U for unit weights; with weights the
    compensated 2U of each direction over the pair's groups, A(i|j) being
    U(i over j) / (U(i over j) + U(j over i)) (in [0, 1] however it rounds).
    """
    n_classes = scores.shape[1]
    small = codes.astype(np.uint8 if n_classes <= 256 else np.uint32)
    order = np.argsort(small, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(class_sizes)))
    parts = [slice(bounds[k], bounds[k + 1]) for k in range(n_classes)]
    if weights is not None:
        grouped_weights = weights[order]
    result = np.full((n_classes, n_classes), np.nan)
    for i in range(n_classes):
        column = scores[order, i]
        if weights is None:
            for part in parts:
                column[part].sort()
            high = column[parts[i]]
            for j in range(n_classes):
                if j != i and present[i] and present[j]:
                    twice_u = _scratch.auc2_sorted_classes(column[parts[j]], high)
                    result[i, j] = twice_u / (2 * int(class_sizes[i]) * int(class_sizes[j]))
            continue
        ranked = np.empty_like(column)
        ranked_weights = np.empty_like(column)
        for part in parts:
            rank = np.argsort(column[part], kind="stable")
            ranked[part] = column[part][rank]
            ranked_weights[part] = grouped_weights[part][rank]
        high, high_weight = ranked[parts[i]], ranked_weights[parts[i]]
        for j in range(n_classes):
            if j != i and present[i] and present[j]:
                group_neg, group_pos = _scratch.groups_sorted_weighted(
                    ranked[parts[j]], ranked_weights[parts[j]], high, high_weight
                )
                # Both directions' 2U are sums of terms >= 0, computed alike;
                # they add up to 2 W_i W_j.
                twice_wins = _scratch.auc2_groups(group_neg, group_pos)
                twice_losses = _scratch.auc2_groups(group_pos, group_neg)
                result[i, j] = twice_wins / (twice_wins + twice_losses)
    return result


def multiclass_auc(y_true: ArrayLike, y_score: ArrayLike, *, method: Literal["ovr", "ovo"] = "ovr",
                   average: Literal["macro", "weighted"] | None = "macro",
                   classes: Sequence[Label] | None = None,
                   sample_weight: ArrayLike | None = None) -> float | FloatArray:
    """Multi-class AUC: one-vs-rest (Fawcett) or one-vs-one (Hand and Till's M), exactly.

    Each class has its own column of scores.  One-vs-rest measures how well
    each class's column ranks that class above all other points; one-vs-one
    measures, for each pair of classes, how well each of the two columns
    separates the two classes.  Equal to scikit-learn's ``roc_auc_score``
    with ``multi_class`` where that is defined.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Class labels, any hashable values (numbers, strings, tuples, ...).
    y_score : array-like of shape (n, c)
        Scores of each point for each class: column k scores the k-th class
        (in sorted label order, or in the order of ``classes``).  Any finite
        reals; rows need not sum to 1.
    method : {"ovr", "ovo"}, default "ovr"
        ``"ovr"``: the AUC of each class against all the others, the class's
        own column as the score.  ``"ovo"``: Hand and Till's M, the mean over
        pairs of classes {i, j} of (A(i|j) + A(j|i)) / 2, where A(i|j) is the
        AUC of class i against class j on the points of these two classes,
        column i as the score.
    average : {"macro", "weighted", None}, default "macro"
        ``"macro"``: the plain mean over classes (ovr) or pairs (ovo).
        ``"weighted"``: weighted by prevalence, as scikit-learn: each class by
        its share of the points (ovr), each pair by the share of the points
        in its two classes (ovo).  ``None``: no average; the per-class AUCs
        (ovr), or the c x c matrix of A(i|j) (ovo, NaN on the diagonal).
        A class of ``classes`` without points (of positive weight), as in
        scikit-learn: left out of the pairs (ovo), weight 0 ("weighted"
        ovr), NaN in the values of ``None``; a "macro" ovr mean is then
        undefined.
    classes : sequence of hashable, optional
        The class of each column of ``y_score``, in column order (any order,
        each class once).  By default the sorted distinct labels of
        ``y_true``, which must be as many as the columns.
    sample_weight : array-like of shape (n,), optional
        Non-negative finite weight of each point.  Every count in the
        definitions becomes a sum of weights.

    Returns
    -------
    float or ndarray of float64
        The averaged AUC in [0, 1]; with ``average=None`` an array of shape
        (c,) (ovr) or (c, c) (ovo).

    Raises
    ------
    ValueError
        If ``y_true`` is not 1-d or is empty, ``y_score`` is not 2-d with one
        row per point and at least 2 columns or holds a value that is not a
        finite number, the classes of ``y_true`` are not as many as the
        columns (without ``classes``) or a label is missing from ``classes``,
        ``classes`` repeats a class, a weight is negative or not finite,
        fewer than two classes have points (of positive weight), or one has
        none and the average is an ovr "macro" mean (undefined), or
        ``method`` or ``average`` is not one of the options.

    See Also
    --------
    hmeasure_stream.auc : the binary AUC each of these is made of.
    crisp_auc_approximations : one-point versions for crisp classifiers.

    Notes
    -----
    Equal to ``sklearn.metrics.roc_auc_score(y_true, y_score,
    multi_class=method, average=average, labels=classes)`` where scikit-learn
    defines it (it wants rows summing to 1, sorted ``classes``, no
    ``sample_weight`` with ``"ovo"`` and an average for ``"ovo"``), also when
    a class of ``labels`` has no points; where scikit-learn returns nan (an
    ovr "macro" mean with such a class, fewer than two classes) this
    function raises.

    O(c n log n) time and O(c n) memory: ``"ovr"`` is c calls of
    :func:`~hmeasure_stream.auc` (each sorts the n scores of its column, in
    two classes); ``"ovo"`` groups the points by class once, then for each
    column i sorts each class's scores and merges class i's with every other
    class's in one compiled pass each, O(n log n + c n) per column.  Without
    weights the counts are exact integers and each A(i|j) is the correctly
    rounded value of 2U / (2 n_i n_j), as :func:`~hmeasure_stream.auc` of the
    pair's points gives it.  With weights each pair's 2U is summed with
    compensation over the class weights of its distinct scores, as
    :func:`~hmeasure_stream.auc` does, in both directions: A(i|j) is the
    wins of class i over the sum of its wins and losses (which is
    2 W_i W_j), accurate also near 0 and never above 1.

    References
    ----------
    T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
    Letters 27 (2006).  D. J. Hand and R. J. Till, "A simple generalisation
    of the area under the ROC curve for multiple class classification
    problems", Machine Learning 45 (2001).

    Examples
    --------
    >>> from hmeasure_stream import multiclass_auc
    >>> y = ["cat", "dog", "emu", "cat", "dog", "emu", "cat"]
    >>> scores = [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.2, 0.2, 0.6], [0.3, 0.5, 0.2],
    ...           [0.5, 0.3, 0.2], [0.1, 0.3, 0.6], [0.4, 0.4, 0.2]]
    >>> multiclass_auc(y, scores)
    0.7972222222222222
    >>> multiclass_auc(y, scores, average=None)  # cat, dog, emu against the rest
    array([0.79166667, 0.6       , 1.        ])
    >>> multiclass_auc(y, scores, method="ovo")
    0.8125
    >>> multiclass_auc(y, scores, method="ovo", average="weighted")
    0.8035714285714286
    >>> multiclass_auc(y, scores, method="ovo", average=None)  # A(i|j)
    array([[       nan, 0.58333333, 1.        ],
           [0.41666667,        nan, 0.875     ],
           [1.        , 1.        ,        nan]])

    A listed class without points ("fox") is left out of the pairs, as in
    scikit-learn's ``roc_auc_score(..., multi_class="ovo", labels=...)``:

    >>> wide = [[*row, 0.0] for row in scores]
    >>> multiclass_auc(y, wide, method="ovo", classes=["cat", "dog", "emu", "fox"])
    0.8125
    """
    method = check_option(method, "method", _METHODS)
    average = check_option(average, "average", _AVERAGES)
    array = _as_label_array(y_true)
    scores = _check_score_matrix(y_score, array.shape[0])
    n_classes = scores.shape[1]
    if classes is None:
        classes, codes = _encode_sorted(array)
        if len(classes) != n_classes:
            raise ValueError(
                f"y_true has {len(classes)} classes but y_score has {n_classes} columns; "
                "pass classes= to name the class of each column"
            )
    else:
        classes, codes = _encode_given(array, classes)
        if len(classes) != n_classes:
            raise ValueError(
                f"classes has {len(classes)} classes but y_score has {n_classes} columns"
            )
    weights = None
    class_sizes = np.bincount(codes, minlength=n_classes)
    if sample_weight is not None:
        # One power of two for all: the results do not depend on the weights' scale.
        weights = normalized_weights(check_weights(sample_weight, array.shape[0]))
        class_mass = np.bincount(codes, weights=weights, minlength=n_classes)
    else:
        class_mass = class_sizes.astype(np.float64)
    # As scikit-learn with a listed class absent from y_true: one-vs-one
    # averages over the pairs of present classes, a "weighted" one-vs-rest
    # gives the absent class weight 0, and the per-class values are nan for
    # it; a "macro" one-vs-rest mean has an undefined term.
    present = _check_classes_present(classes, class_mass, method, average,
                                     sample_weight is not None)
    if method == "ovr":
        values = np.array([
            _auc_value(codes == k, scores[:, k], weights) if present[k] else np.nan
            for k in range(n_classes)
        ])
    else:
        values = _ovo_matrix(codes, scores, class_sizes, weights, present)
    value: float | FloatArray = averaged(values, method, average, class_mass)
    return value


