"""Multi-class inputs and averages shared by ``multiclass_auc``, the streaming structures and dask.

Private: the labels as an array, their codes (sorted, or in the order of
``classes``), the score matrix, and the one-vs-rest / one-vs-one averages.
"""

import numpy as np

from hmeasure_stream._core.report import exact_sum
from hmeasure_stream._validation import as_1d, check_scores, unmasked

__all__ = ["AVERAGES", "METHODS", "as_label_array", "averaged", "check_finite_matrix",
           "check_score_matrix", "encode_given", "encode_sorted"]

METHODS = ("ovr", "ovo")
AVERAGES = ("macro", "weighted", None)


def as_label_array(y_true):
    """``y_true`` as a 1-d array; a list of tuples (hashable labels) becomes an object array."""
    y_true = unmasked(y_true, "y_true")
    try:
        array = np.asarray(y_true)
    except (TypeError, ValueError):
        array = None
    mixed = (
        array is not None and array.dtype.kind in "US" and not hasattr(y_true, "dtype")
        and not all(isinstance(value, (str, bytes)) for value in y_true)
    )  # numpy turned a list of strings and other values into strings
    if (array is None or array.ndim > 1 or mixed) and not isinstance(y_true, np.ndarray):
        try:
            values = list(y_true)
        except TypeError:
            values = None
        if values is not None:
            array = np.empty(len(values), dtype=object)
            array[:] = values
    # The shape checks (and, for what numpy cannot read, the reason) of every input.
    array = as_1d(y_true if array is None else array, "y_true")
    if array.dtype.kind == "f":
        nan = np.flatnonzero(np.isnan(array))
        if nan.size:
            raise ValueError(f"y_true must not contain NaN; found one at position {nan[0]}")
    return array


def _hashable_or_raise(value, name, position):
    try:
        hash(value)
    except TypeError:
        raise ValueError(
            f"{name} must contain hashable labels; found {value!r} at position {position}"
        ) from None


def encode_sorted(array):
    """Sorted distinct labels of ``array`` and each point's index among them."""
    kind = array.dtype.kind
    if kind in "iub":
        as_int = array.astype(np.int64, copy=False) if kind == "b" else array
        low, high = int(as_int.min()), int(as_int.max())
        if high - low <= max(4 * array.shape[0], 1 << 16):
            # Small range: a lookup table instead of a sort, O(n + range).
            shifted = (as_int - low).astype(np.intp, copy=False)
            present = np.bincount(shifted) > 0
            table = np.cumsum(present) - 1
            values = np.flatnonzero(present) + low
            classes = values.astype(bool) if kind == "b" else values.astype(array.dtype)
            return list(classes.tolist()), table[shifted].astype(np.intp, copy=False)
    if kind != "O":
        classes, codes = np.unique(array, return_inverse=True)
        return list(classes.tolist()), codes.astype(np.intp, copy=False)
    for position, value in enumerate(array):
        _hashable_or_raise(value, "y_true", position)
    distinct = set(array.tolist())
    try:
        classes = sorted(distinct)
    except TypeError:
        raise ValueError(
            "y_true holds labels that cannot be sorted together "
            f"({sorted(map(repr, distinct))[:4]}...); pass classes= to give the column "
            "order of y_score"
        ) from None
    index = {label: k for k, label in enumerate(classes)}
    return classes, np.fromiter((index[v] for v in array.tolist()), np.intp, array.shape[0])


def encode_given(array, labels):
    """Each point's index in ``labels`` (the column order), refusing labels not in it.

    ``labels`` is the ``classes`` argument of the public functions and structures.
    """
    if isinstance(labels, (str, bytes)) or not hasattr(labels, "__iter__"):
        raise ValueError(f"classes must be a sequence of class labels, got {labels!r}")
    labels = list(labels.tolist() if isinstance(labels, np.ndarray) else labels)
    index = {}
    for position, label in enumerate(labels):
        _hashable_or_raise(label, "classes", position)
        if isinstance(label, float) and label != label:
            raise ValueError(f"classes must not contain NaN; found one at position {position}")
        if label in index:
            raise ValueError(
                f"classes must be distinct; {label!r} is at positions {index[label]} "
                f"and {position}"
            )
        index[label] = position
    given = np.asarray(labels) if labels else np.empty(0)
    if array.dtype.kind in "biuf" and given.ndim == 1 and given.dtype.kind in "biuf":
        # Numeric labels: a binary search in the sorted labels, O(n log c).
        sorter = np.argsort(given, kind="stable")
        ordered = given[sorter]
        found = np.searchsorted(ordered, array)
        found = np.minimum(found, ordered.shape[0] - 1)
        missing = np.flatnonzero(ordered[found] != array)
        if missing.size:
            position = int(missing[0])
            raise ValueError(
                f"y_true contains a label not in classes: {array[position].item()!r} "
                f"at position {position}"
            )
        return labels, sorter[found].astype(np.intp, copy=False)
    codes = np.empty(array.shape[0], dtype=np.intp)
    for position, value in enumerate(array.tolist()):
        _hashable_or_raise(value, "y_true", position)
        code = index.get(value)
        if code is None:
            raise ValueError(
                f"y_true contains a label not in classes: {value!r} at position {position}"
            )
        codes[position] = code
    return labels, codes


def check_score_matrix(y_score, n_points):
    """``y_score`` as a Fortran-ordered float64 (n, c) matrix (contiguous columns), finite."""
    y_score = unmasked(y_score, "y_score")
    try:
        matrix = np.asarray(y_score)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"y_score could not be read as an array: {exc}") from None
    if matrix.ndim != 2:
        raise ValueError(
            "y_score must be 2-d, of shape (n_samples, n_classes), got an array of shape "
            f"{matrix.shape}"
        )
    if matrix.shape[0] != n_points:
        raise ValueError(
            f"y_true and y_score have different lengths: {n_points} and {matrix.shape[0]}"
        )
    if matrix.shape[1] < 2:
        raise ValueError(
            f"y_score must have one column per class, at least 2; got {matrix.shape[1]}"
        )
    if matrix.dtype == np.float64:
        scores = np.asfortranarray(matrix)
    else:
        scores = np.empty(matrix.shape, dtype=np.float64, order="F")
        for column in range(matrix.shape[1]):
            scores[:, column] = check_scores(matrix[:, column], name=f"y_score[:, {column}]")
    return check_finite_matrix(scores)


def check_finite_matrix(scores):
    """``scores`` (a float64 matrix) if every value is finite; else a ValueError naming one."""
    finite = np.isfinite(scores)
    if not finite.all():
        row, column = np.argwhere(~finite)[0]
        raise ValueError(
            "y_score must contain only finite values; found "
            f"{scores[row, column].item()!r} at row {row}, column {column}"
        )
    return scores


def check_classes_present(classes, class_mass, method, average, weighted):
    """Which classes have points (mass > 0); ValueError where a listed class without
    points leaves the average undefined (fewer than two classes with points, or an ovr
    "macro" mean), naming the first such class."""
    present = np.asarray(class_mass) > 0
    empty = np.flatnonzero(~present)
    if empty.size and (np.count_nonzero(present) < 2
                       or (method == "ovr" and average == "macro")):
        k = int(empty[0])
        with_weight = " (with positive weight)" if weighted else ""
        raise ValueError(
            f"multi-class AUC is undefined: class {classes[k]!r} (column {k}) has no "
            f"points{with_weight} in y_true"
        )
    return present


def averaged(values, method, average, class_mass):
    """The average of per-class (ovr) or pairwise (ovo, a c x c matrix of A(i|j)) AUCs.

    Shared by :func:`multiclass_auc` and the streaming structure (so both give
    the same float).  ``class_mass`` is each class's weight; "weighted" weighs
    a class by its mass (ovr) and a pair by the mass of its two classes (ovo),
    as scikit-learn does.  Sums are exactly rounded (``math.fsum``'s value); O(c^2).

    A class of mass 0 (absent) is left out where scikit-learn leaves it out:
    its pairs (ovo), its term of weight 0 ("weighted" ovr).  Its term of a
    "macro" ovr mean is kept (undefined: the caller refuses it first).
    """
    if average is None:
        return values
    mass = [float(m) for m in class_mass]
    if method == "ovr":
        terms, weights = (values.tolist() if isinstance(values, np.ndarray) else values), mass
        if average == "weighted":
            terms, weights = zip(*[(v, w) for v, w in zip(terms, weights, strict=True)
                                   if w > 0], strict=True)
    else:
        matrix, c = values.tolist(), len(mass)
        pairs = [(i, j) for i in range(c) for j in range(i + 1, c)
                 if mass[i] > 0 and mass[j] > 0]
        terms = [(matrix[i][j] + matrix[j][i]) / 2 for i, j in pairs]
        weights = [mass[i] + mass[j] for i, j in pairs]
    if average == "macro":
        return exact_sum(terms) / len(terms)
    terms, weights = np.asarray(terms, dtype=np.float64), np.asarray(weights, dtype=np.float64)
    return exact_sum(terms * weights) / exact_sum(weights)
