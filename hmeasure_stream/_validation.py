"""Input checking and conversion shared by every public entry point.

Each check raises ``ValueError`` with a message that names the argument, says
what is wrong and, for a bad element, gives its position and value.
"""

import bisect
import dataclasses
import datetime
import functools
import importlib
import math
import numbers
import re
import sys
import warnings
from collections.abc import Callable, Iterator
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
from numpy.typing import NDArray

from hmeasure_stream._engines import _scratch
from hmeasure_stream._engines._cost import CostRule
from hmeasure_stream._engines._scratch import LABEL_DTYPES

# The public API's aliases, re-exported (``X as X``): the modules import them with the checks.
from hmeasure_stream.typing import Correction as Correction
from hmeasure_stream.typing import Duration as Duration
from hmeasure_stream.typing import FloatArray as FloatArray
from hmeasure_stream.typing import Label as Label
from hmeasure_stream.typing import Labels as Labels
from hmeasure_stream.typing import Priors as Priors
from hmeasure_stream.typing import Probabilities as Probabilities
from hmeasure_stream.typing import RandomState as RandomState
from hmeasure_stream.typing import RateRange as RateRange
from hmeasure_stream.typing import Scores as Scores
from hmeasure_stream.typing import SeverityRatio as SeverityRatio
from hmeasure_stream.typing import Weights as Weights
from hmeasure_stream.typing import Window as Window


class InvertedScoresWarning(UserWarning):
    """The scores rank class 0 above class 1: the AUC is below 0.5.

    Issued by the from-scratch functions (:func:`~hmeasure_stream.auc`,
    :func:`~hmeasure_stream.h_measure`, ...).  Often the scores are those of
    the other class (``predict_proba(X)[:, 0]`` instead of ``[:, 1]``) or
    ``pos_label`` names the wrong class.  The value is never flipped (R's
    hmeasure flips such scores; this package reports what the scores do).
    Silence it with ``warnings.filterwarnings("ignore",
    category=hmeasure_stream.InvertedScoresWarning)`` (or inside a
    ``warnings.catch_warnings()`` block) when a low AUC is expected.

    See Also
    --------
    hmeasure_stream.auc : one of the functions that issue it.

    Examples
    --------
    >>> import warnings
    >>> from hmeasure_stream import InvertedScoresWarning, auc
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     value = auc([0, 0, 1, 1], [0.9, 0.8, 0.2, 0.1])
    >>> value, caught[0].category is InvertedScoresWarning
    (0.0, True)
    >>> with warnings.catch_warnings():
    ...     warnings.filterwarnings("ignore", category=InvertedScoresWarning)
    ...     auc([0, 0, 1, 1], [0.9, 0.8, 0.2, 0.1])  # silenced; the value is not flipped
    0.0
    """


InvertedScoresWarning.__module__ = "hmeasure_stream"


def warn_if_inverted(auc_value, function, stacklevel=3):
    """Issue :class:`InvertedScoresWarning` when ``auc_value`` < 0.5."""
    if auc_value < 0.5:
        warnings.warn(
            f"{function}: the AUC is {auc_value:.6g} < 0.5, so the scores rank class 0 above "
            "class 1; perhaps they are the other class's scores (predict_proba(X)[:, 0] "
            "instead of [:, 1]) or pos_label names the wrong class. The value is not flipped. "
            "To silence: warnings.filterwarnings('ignore', "
            "category=hmeasure_stream.InvertedScoresWarning)",
            InvertedScoresWarning,
            stacklevel=stacklevel,
        )


#: Integers of at most this magnitude are all exact as float64.
EXACT_INT_LIMIT = 2**53

def as_1d(values, name, allow_empty=False, *, column=False) -> NDArray[Any]:
    """``values`` as a 1-d numpy array, refusing scalars, matrices and (by default) empty input.

    Masked arrays with masked entries are refused (the mask would otherwise be
    dropped silently), and so are iterators, which numpy would wrap as one
    opaque object.  With ``column`` (scores) the rule of :func:`score_column`
    applies to 2-d input.
    """
    values = unmasked(values, name)
    try:
        array = np.asarray(values)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"{name} could not be read as an array: {exc}") from None
    if column and array.ndim == 2:
        array = score_column(array, name)
    if array.ndim != 1:
        if array.ndim == 0:
            raise ValueError(f"{name} must be 1-d array-like, got a scalar ({array!r})")
        raise ValueError(f"{name} must be 1-d, got an array of shape {array.shape}")
    if array.size == 0 and not allow_empty:
        raise ValueError(f"{name} is empty: at least one point is needed")
    return array


def score_column(array, name):
    """A 2-d array of scores as its one column: the rule of every score input.

    An (n, 1) array is its n scores (a one-column frame, ``reshape(-1, 1)``, a
    regressor's output).  An (n, 2) array is what ``predict_proba`` returns for
    two classes: which column is class 1 is not for the metric to guess, so it
    is refused with the column to pass.  Wider arrays are one score per class,
    for :func:`~hmeasure_stream.multiclass_auc`.
    """
    if array.shape[1] == 1:
        return array[:, 0]
    if array.shape[1] == 2:
        raise ValueError(
            f"{name} must be 1-d, one score per point, got an array of shape {array.shape}: "
            f"pass the scores of class 1, {name}[:, 1] for predict_proba's output (the column "
            "of pos_label, by default estimator.classes_[1])"
        )
    if array.shape[1] > 2:
        raise ValueError(
            f"{name} must be 1-d, one score per point, got an array of shape {array.shape}; "
            "scores of several classes (one column each) go to multiclass_auc"
        )
    return array  # no column: refused by the caller as not 1-d


def unmasked(values, name):
    """``values`` unless numpy would misread them: None, iterators, masked entries.

    A masked array without masked entries gives its data.
    """
    if values is None:
        raise ValueError(f"{name} must be array-like, got None")
    # numpy.ma loads on first use (tens of milliseconds): until it is loaded, no
    # masked array exists.
    masked_arrays = sys.modules.get("numpy.ma")
    if masked_arrays is not None and isinstance(values, masked_arrays.MaskedArray):
        if np.ma.count_masked(values):
            raise ValueError(
                f"{name} is a masked array with {np.ma.count_masked(values)} masked "
                "entries: masks are not honoured; drop the masked points from every "
                "argument (e.g. with the mask's inverse) first"
            )
        values = np.ma.getdata(values)
    elif isinstance(values, Iterator):
        raise ValueError(
            f"{name} must be array-like (a list, numpy array or pandas Series), got "
            f"an iterator ({type(values).__name__}): pass list(...) of it"
        )
    return values


def _is_number(value):
    """A real number: bools, Python and numpy integers and floats, Fractions, Decimals."""
    return isinstance(value, (numbers.Real, np.bool_, Decimal))


def _object_numbers(array, name):
    """An object array (Python ints beyond int64, a pandas nullable column, ...) checked.

    Every element must be a real number; ``None``, ``pd.NA`` and strings are
    refused with their position.  Returns (float64 array, exact) where
    ``exact`` tells whether every element is exactly its float64 value (so
    that the float64 array keeps every comparison and tie).
    """
    for position, value in enumerate(array):
        if not _is_number(value):
            raise ValueError(f"{name} must be numeric; found {value!r} at position {position}")
    as_float = np.empty(array.shape[0], dtype=np.float64)
    for position, value in enumerate(array):
        try:
            as_float[position] = float(value)
        except OverflowError:
            as_float[position] = (math.inf if value > 0 else -math.inf)
    exact = all(
        math.isfinite(rounded) and rounded == value
        for rounded, value in zip(as_float.tolist(), array.tolist(), strict=True)
        if not (isinstance(value, float) and not math.isfinite(value))
    )
    return as_float, exact


def _object_to_float(array, name):
    """Numeric conversion of an object array; a number too large for float64 is refused."""
    as_float, _ = _object_numbers(array, name)
    for position, value in enumerate(array.tolist()):
        if math.isinf(as_float[position]) and not (
            isinstance(value, float) and math.isinf(value)
        ):
            raise ValueError(
                f"{name} must contain only values finite as float64; found "
                f"{value!r} at position {position}"
            )
    return as_float


class _NoLabel:
    """The class 0 label of a mapping that has not seen one yet."""

    __slots__ = ()

    def __repr__(self):
        return "NO_LABEL"

    def __reduce__(self):
        return "NO_LABEL"


NO_LABEL = _NoLabel()


def check_pos_label(pos_label):
    """``pos_label``: None or a hashable, non-missing value (returned as a plain Python value)."""
    if pos_label is None:
        return None
    try:
        hash(pos_label)
    except TypeError:
        raise ValueError(f"pos_label must be hashable (a label), got {pos_label!r}") from None
    if is_missing(pos_label):
        raise ValueError(f"pos_label must be a label, got the missing value {pos_label!r}")
    return pos_label.item() if isinstance(pos_label, np.generic) else pos_label


def is_missing(value):
    """None, NaN, NaT or pandas' NA."""
    if value is None:
        return True
    try:
        return bool(value != value)
    except (TypeError, ValueError):
        return True  # pandas.NA: its comparisons are NA, which has no truth value


def same_label(value, label):
    """``value == label`` for two labels, False when they do not compare (pandas.NA, ...)."""
    try:
        return bool(value == label)
    except (TypeError, ValueError):
        return False


def equal_mask(array, label):
    """Element-wise ``array == label`` as a bool array, whatever the two types."""
    kind = array.dtype.kind
    numeric_label = isinstance(label, (numbers.Number, np.bool_)) and not isinstance(label, str)
    if (kind in "biuf" and numeric_label) or (kind in "US" and isinstance(label, (str, bytes))):
        return np.asarray(array == label, dtype=bool)
    if kind in "biufUSmM":
        # numpy arrays never equal a label of another kind (1 != "1", as in Python).
        if kind in "mM":
            return np.asarray(array == label, dtype=bool)
        return np.zeros(array.shape[0], dtype=bool)
    if isinstance(label, (str, bytes, numbers.Number, np.generic)):
        # An object array against a scalar label: numpy compares element by element
        # in compiled code (unless an element does not compare, as pandas.NA).
        try:
            equal = array == label
            if isinstance(equal, np.ndarray) and equal.dtype == bool:
                return equal
        except (TypeError, ValueError):
            pass
    return np.fromiter((same_label(value, label) for value in array.tolist()), dtype=bool,
                       count=array.shape[0])


def first_other_labels(array, excluded, limit=2):
    """The first ``limit`` distinct labels of ``array`` where ``excluded`` is False.

    In order of first appearance, each as ``(value, position)`` with numpy
    scalars as plain Python values; a missing label (None, NaN, NA) ends the
    list, since nothing equals it.  The one search for "the class 0 label and
    a third one" of :func:`binary_labels`, the CLI's ``--pos-label`` and the
    per-partition pass of :mod:`hmeasure_stream.dask`.
    """
    candidates = np.flatnonzero(~np.asarray(excluded, dtype=bool))
    found = []
    while candidates.size and len(found) < limit:
        position = int(candidates[0])
        value = array[position]
        value = value.item() if isinstance(value, np.generic) else value
        found.append((value, position))
        if is_missing(value):
            break
        candidates = candidates[~equal_mask(array[candidates], value)]
    return found


def binary_labels(y_true, pos_label=None, *, neg_label=NO_LABEL, name="y_true",
                  allow_empty=False, signed=True):
    """THE mapping of labels to the classes 1 and 0; every entry point taking labels calls it.

    With ``pos_label`` (any hashable: a string, a number, a bool, ...) the
    labels equal to it are class 1 and those equal to ``neg_label`` class 0;
    while ``neg_label`` is ``NO_LABEL`` the first other label found becomes
    it.  Any third value (or a missing one: None, NaN, NA) is refused with
    its position.  Returns ``(labels, neg_label)``: labels as uint8 1/0 and
    the class 0 label (``NO_LABEL`` when none was seen).

    Without ``pos_label`` the labels must be 0/1 or booleans (the kernels
    check each value in their own pass), or -1/1 with ``signed`` (as
    scikit-learn: 1 is class 1); the returned array is then the input in a
    dtype the kernels take and ``neg_label`` is returned unchanged.  Other
    labels (strings, two numbers other than these) are refused with a message
    saying to pass ``pos_label``.
    """
    array = as_1d(y_true, name, allow_empty)
    if pos_label is None:
        return _default_labels(array, name, signed), neg_label
    is_pos = equal_mask(array, pos_label)
    if neg_label is NO_LABEL:
        others = first_other_labels(array, is_pos)
        if others:
            neg_label, first = others[0]
            if is_missing(neg_label):
                raise ValueError(f"{name} has a missing label ({neg_label!r}) at position {first}")
        third = others[1:]
        # pos_label absent from labels that fix the class 0 label: perhaps misspelt.
        pos_found = bool(is_pos.any())
    else:
        third = first_other_labels(array, is_pos | equal_mask(array, neg_label), limit=1)
        pos_found = True
    if third:
        value, position = third[0]
        raise ValueError(third_label_message(name, value, position, pos_label, neg_label,
                                             pos_found))
    return np.ascontiguousarray(is_pos).view(np.uint8), neg_label


def third_label_message(name, value, position, pos_label, neg_label, pos_found=True):
    if is_missing(value):
        return f"{name} has a missing label ({value!r}) at position {position}"
    if not pos_found:
        return (
            f"pos_label={pos_label!r} is not a label of {name}, which holds {neg_label!r} and "
            f"{value!r} (at position {position}) and perhaps more: pos_label must be one of them"
        )
    return (
        f"{name} must hold two labels, pos_label={pos_label!r} (class 1) and one other "
        f"(class 0, here {neg_label!r}); found a third, {value!r}, at position {position}"
    )


def binary_label_value(value, pos_label=None, neg_label=NO_LABEL, name="y_true"):
    """One label as ``(is_pos, neg_label)``: the scalar case of :func:`binary_labels`.

    Without ``pos_label``: 0/1, -1/1 or a boolean.  With it, as
    :func:`binary_labels` maps each element of an array.
    """
    if pos_label is None:
        return check_label_value(value, name), neg_label
    if same_label(value, pos_label):
        return True, neg_label
    if isinstance(value, np.generic):
        value = value.item()
    if neg_label is NO_LABEL:
        if is_missing(value):
            raise ValueError(f"{name} must be a label, got the missing value {value!r}")
        return False, value
    if same_label(value, neg_label):
        return False, neg_label
    raise ValueError(
        f"{name} must be pos_label={pos_label!r} (class 1) or the other label "
        f"{neg_label!r} (class 0), got {value!r}"
    )


class LabelMap:
    """A structure's ``pos_label`` and the class 0 label it has seen (fixed from then on).

    Immutable: mapping labels returns the map to keep once the call succeeds
    (itself, or a new one that learned the class 0 label), so a refused call
    leaves the structure as it was.
    """

    __slots__ = ("neg", "pos")

    def __init__(self, pos, neg=NO_LABEL):
        self.pos = pos
        self.neg = neg

    def one(self, value, name="y_true"):
        """One label as ``(is_pos, map)``."""
        is_pos, neg = binary_label_value(value, self.pos, self.neg, name)
        return is_pos, (self if neg is self.neg else LabelMap(self.pos, neg))

    def many(self, y_true, name="y_true", allow_empty=True):
        """An array of labels as ``(uint8 0/1 array, map)``."""
        labels, neg = binary_labels(y_true, self.pos, neg_label=self.neg, name=name,
                                    allow_empty=allow_empty)
        return labels, (self if neg is self.neg else LabelMap(self.pos, neg))

    def __getstate__(self):
        return (self.pos, self.neg)

    def __setstate__(self, state):
        self.pos, self.neg = state


def merged_label_map(mine, theirs):
    """The label map of the union of two structures' points, or ValueError.

    Both must have the same ``pos_label`` (or none); the class 0 labels they
    learned must agree, and one that only ``theirs`` learned is kept.
    """
    if mine is None and theirs is None:
        return None
    if mine is None or theirs is None or not same_label(mine.pos, theirs.pos):
        raise ValueError(
            "cannot merge structures with different pos_label: "
            f"{None if mine is None else mine.pos!r} and "
            f"{None if theirs is None else theirs.pos!r}"
        )
    if theirs.neg is NO_LABEL or (mine.neg is not NO_LABEL and same_label(mine.neg, theirs.neg)):
        return mine
    if mine.neg is NO_LABEL:
        return theirs
    raise ValueError(
        f"cannot merge: with pos_label={mine.pos!r} the class 0 label is {mine.neg!r} here "
        f"and {theirs.neg!r} in the other structure"
    )


def labels_many(label_map, y_true):
    """``(y_true as 0/1, the map to keep once the call succeeds)``; unchanged without a map."""
    return (y_true, None) if label_map is None else label_map.many(y_true)


def label_one(label_map, value):
    """``(the label as class 1/0, the map to keep)``: the scalar case of :func:`labels_many`."""
    return (value, None) if label_map is None else label_map.one(value)


def label_map(pos_label):
    """A structure's :class:`LabelMap` for ``pos_label`` (None without one)."""
    pos_label = check_pos_label(pos_label)
    return None if pos_label is None else LabelMap(pos_label)


def _pos_label_hint(labels, otherwise=""):
    """The advice to pass ``pos_label``, naming the labels when there are exactly two."""
    try:
        distinct = sorted(set(np.asarray(labels).tolist()), key=repr)
    except TypeError:
        distinct = ()
    if len(distinct) != 2 or any(is_missing(value) for value in distinct):
        return otherwise
    return (
        f"; it holds the two labels {distinct[0]!r} and {distinct[1]!r}: pass "
        "pos_label=<the label of class 1>"
    )


def _default_labels(array, name, signed):
    """Labels without ``pos_label``, as a contiguous array the kernels accept.

    Booleans are viewed as uint8 (no copy); numeric dtypes outside the
    kernels' set are converted to float64, where 0 and 1 are still exact.
    With ``signed``, labels that are all -1 or 1 become 0/1.
    """
    kind = array.dtype.kind
    if kind == "b":
        array = array.view(np.uint8)
    elif kind == "O":
        try:
            array = _object_to_float(array, name)
        except ValueError as exc:
            raise ValueError(f"{exc}{_pos_label_hint(array)}") from None
    elif kind not in "iuf":
        raise ValueError(
            f"{name} must contain labels 0/1 or booleans, got an array of dtype {array.dtype}"
            + _pos_label_hint(array, "; for other labels pass pos_label=<the label of class 1>")
        )
    if signed:
        as_binary = signed_as_binary(array)
        if as_binary is not None:
            return as_binary
    if array.dtype not in LABEL_DTYPES:
        array = array.astype(np.float64)
    return np.ascontiguousarray(array)


def signed_as_binary(array):
    """Numeric labels that are all -1 or 1 (at least one -1) as uint8 0/1, else None."""
    if array.dtype.kind in "if" and array.size and array.min() == -1:
        is_one = array == 1
        if np.all(is_one | (array == -1)):
            return np.ascontiguousarray(is_one).view(np.uint8)
    return None


def check_labels(y_true, name="y_true", allow_empty=False, pos_label=None,
                 signed=True) -> NDArray[Any]:
    """``y_true`` as a contiguous array the kernels accept (see :func:`binary_labels`).

    Without ``pos_label`` the values are checked later (by the kernels).
    """
    return binary_labels(y_true, pos_label, name=name, allow_empty=allow_empty,
                         signed=signed)[0]


def with_pos_label(y_true, pos_label, name="y_true") -> Any:
    """``y_true`` as class labels 0/1 when ``pos_label`` is given, else unchanged.

    The from-scratch functions call this first: their input checks then see
    labels 0/1 (the mapping is :func:`binary_labels`).
    """
    if pos_label is None:
        return y_true
    return binary_labels(y_true, check_pos_label(pos_label), name=name)[0]


def check_scores(y_score, name="y_score", allow_empty=False, ranks=True, column=True) -> FloatArray:
    """``y_score`` as contiguous float64 carrying the same order and ties.

    With ``column`` (scores of points, the default) a 2-d ``y_score`` follows
    :func:`score_column`: an (n, 1) column is read as its n scores.  Integers
    beyond 2**53 and extended-precision floats are not all exact as float64.
    With ``ranks=True`` (a whole array at once) they are replaced by their
    dense ranks, which preserves every comparison between scores: a function
    that shows scores or compares them with a threshold takes the
    :class:`ScoreScale` of :func:`ranked_scores` with them.  With
    ``ranks=False`` (points stored in a structure, compared with later points)
    such integers are refused and extended-precision floats are rounded to
    float64.  Finiteness is checked separately (``raise_bad_score`` / the
    split kernel).
    """
    if ranks:
        return ranked_scores(y_score, name, allow_empty, column)[0]
    array = as_1d(y_score, name, allow_empty, column=column)
    if array.size == 0:
        return np.empty(0, dtype=np.float64)
    kind = array.dtype.kind
    if kind == "O":
        return np.ascontiguousarray(_object_floats(array, name))
    if kind in "iu" and not exact_integers(array):
        _raise_at_first((array > EXACT_INT_LIMIT) | (array < -EXACT_INT_LIMIT), array, name,
                        "hold integers of magnitude <= 2**53 (exact as float64)")
    _check_real(array, name)
    return np.ascontiguousarray(array, dtype=np.float64)


def labels_and_ranked_scores(y_true, y_score, pos_label) -> tuple[Any, FloatArray, "ScoreScale"]:
    """``y_true`` read with ``pos_label`` and ``y_score`` by :func:`ranked_scores`.

    The labels' shape is checked first, so a bad ``y_true`` is named before the
    scores, as by every function that checks the two together.
    """
    y_true = with_pos_label(y_true, pos_label)
    as_1d(y_true, "y_true")
    return (y_true, *ranked_scores(y_score))


def ranked_scores(y_score, name="y_score", allow_empty=False,
                  column=True) -> tuple[FloatArray, "ScoreScale"]:
    """``y_score`` as contiguous float64 of the same order and ties, and its :class:`ScoreScale`.

    Scores all exact as float64 are converted (the scale is the identity);
    otherwise (integers beyond 2**53, extended-precision floats, Python
    numbers beyond float64) the float64 array holds their dense ranks and the
    scale the sorted distinct scores, the way back to the user's values.
    """
    array = as_1d(y_score, name, allow_empty, column=column)
    if array.size == 0:
        return np.empty(0, dtype=np.float64), EXACT_SCALE
    kind = array.dtype.kind
    if kind == "O":
        as_float, exact = _object_numbers(array, name)
        values = array.tolist()
        for position, value in enumerate(values):
            if not _finite_number(value):
                raise ValueError(f"{name} must contain only finite values; found {value!r} "
                                 f"at position {position}")
        if exact:
            return as_float, EXACT_SCALE
        return _ranked_objects(values)
    _check_real(array, name)
    if kind in "iu" and not exact_integers(array):
        return _ranked_array(array)
    if kind == "f" and array.dtype.itemsize > 8:
        raise_bad_score(array, name)
        as_double = array.astype(np.float64)
        if not np.array_equal(as_double, array):
            return _ranked_array(array)
        return as_double, EXACT_SCALE
    return np.ascontiguousarray(array, dtype=np.float64), EXACT_SCALE


def _check_real(array, name):
    """Refuse arrays of a dtype that is not real numbers (complex, strings, dates)."""
    if array.dtype.kind == "c":
        raise ValueError(f"{name} must be real, got an array of dtype {array.dtype}")
    if array.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got an array of dtype {array.dtype}")


def exact_integers(array):
    """Whether an integer array's values are all exact as float64 (magnitude <= 2**53)."""
    return array.dtype.itemsize < 8 or (
        int(array.max()) <= EXACT_INT_LIMIT and int(array.min()) >= -EXACT_INT_LIMIT)


def _object_floats(array, name):
    """An object array of scores a structure keeps: float64, refusing what is not exact
    integers of magnitude <= 2**53 or finite as float64 (other values are rounded)."""
    as_float, _ = _object_numbers(array, name)
    for position, value in enumerate(array.tolist()):
        if not _finite_number(value):
            raise ValueError(
                f"{name} must contain only finite values; found {value!r} at position {position}"
            )
        if not math.isfinite(as_float[position]) or (
            isinstance(value, (numbers.Integral, np.integer)) and abs(value) > EXACT_INT_LIMIT
        ):
            raise ValueError(
                f"{name} must hold integers of magnitude <= 2**53 (exact as float64) and "
                f"values finite as float64; found {value!r} at position {position}"
            )
    return as_float


def _ranked_array(array):
    """Dense ranks of a numeric array, and the scale holding its distinct values."""
    ranks, distinct = _ranks_and_distinct(array)
    return ranks.astype(np.float64), ScoreScale(distinct)


def _ranked_objects(values):
    """Dense ranks of Python numbers under Python's exact comparisons, and their scale."""
    values = [value.item() if isinstance(value, np.generic) and value.dtype.itemsize <= 8
              else value for value in values]
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = np.empty(len(values), dtype=np.float64)
    distinct = []
    for index in order:
        if not distinct or values[index] != distinct[-1]:
            distinct.append(values[index])
        ranks[index] = len(distinct) - 1
    scale_values = np.empty(len(distinct), dtype=object)
    scale_values[:] = distinct
    return ranks, ScoreScale(scale_values)


def exact_number(value):
    """A real number as a Python value that compares exactly with any other: numpy
    integers as int, extended-precision floats as a Fraction, others unchanged."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        if value.dtype.itemsize > 8 and np.isfinite(value):
            return Fraction(*value.as_integer_ratio())
        return float(value)
    if isinstance(value, np.bool_):
        return int(value)
    return value


def check_threshold(value, name="threshold"):
    """A threshold: a finite real number, returned exact (a Python number, or a numpy
    extended-precision float), compared with scores exactly (class 1 when score >= it)."""
    if isinstance(value, (bool, np.bool_)) or not _is_number(value):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    if not _finite_number(value) or (isinstance(value, np.floating) and not np.isfinite(value)):
        raise ValueError(f"{name} must be finite, got {value!r}")
    if isinstance(value, np.floating) and value.dtype.itemsize > 8:
        return value
    return exact_number(value)


def least_double_at_or_above(value) -> float:
    """The least float64 f with ``x >= value`` exactly when ``x >= f`` for every float64 x
    (``inf`` above the float64 range); exact comparisons, never rounding."""
    if isinstance(value, float):
        return value
    try:
        rounded = float(value)
    except OverflowError:
        rounded = math.inf if value > 0 else -math.inf
    if rounded < value:
        rounded = math.nextafter(rounded, math.inf)
    elif rounded == -math.inf:
        rounded = -sys.float_info.max
    return rounded


def threshold_key(value, name="threshold", scale=None) -> float:
    """The float64 key k of a threshold t: a score is >= t exactly when its key is >= k.

    ``t`` is checked by :func:`check_threshold` (kept exact, never rounded to a
    double); ``scale`` is the :class:`ScoreScale` of the scores, None for
    float64 scores as the engines hold them.  The package's one threshold rule
    (docs/api.rst, "Thresholds") in the kernels' terms.
    """
    threshold = check_threshold(value, name)
    return (EXACT_SCALE if scale is None else scale).key(threshold)


class ScoreScale:
    """How the float64 scores the kernels see relate to the user's scores.

    The identity (:data:`EXACT_SCALE`) when every score is exact as float64;
    otherwise the kernels see dense ranks 0 .. k - 1 and ``distinct`` holds
    the k sorted distinct scores as given (int64, uint64, an extended float
    dtype, or objects for Python numbers).  Every reading that shows a score
    (a curve's thresholds) or compares one with a threshold goes through it,
    so ranks never leave the package.
    """

    __slots__ = ("_exact", "distinct")

    def __init__(self, distinct=None):
        self.distinct = distinct
        self._exact = None

    @property
    def ranked(self) -> bool:
        return self.distinct is not None

    def values(self, keys):
        """The user's scores of float64 keys (finite, scores of the kernels)."""
        if self.distinct is None:
            return keys
        return self.distinct[np.asarray(keys).astype(np.intp)]

    def thresholds(self, keys, before=(), after=()):
        """The user's values of keys, between infinities ``before`` and ``after``: an
        array of the scores' dtype, or of objects when that dtype holds no infinity."""
        values = self.values(keys)
        if values.dtype.kind in "iu" and (before or after):
            values = values.astype(object)
        if not (before or after):
            return values
        return np.concatenate((np.array(before, dtype=values.dtype), values,
                               np.array(after, dtype=values.dtype)))

    def key(self, threshold) -> float:
        """The float64 key k of a checked threshold t: a score is >= t exactly when its
        key is >= k: the package's one threshold rule (docs/api.rst, "Thresholds") in the
        kernels' terms."""
        if self.distinct is None:
            return least_double_at_or_above(threshold)
        if self._exact is None:
            self._exact = [exact_number(value) for value in self.distinct]
        # The number of distinct scores below t: the ranks at or above it are >= t.
        return float(bisect.bisect_left(self._exact, exact_number(threshold)))

    def keys(self, thresholds):
        """:meth:`key` of each threshold of a 1-d array or list, as float64."""
        return np.array([self.key(value) for value in thresholds], dtype=np.float64)

    def midpoints(self, low_keys, high_keys):
        """A threshold between each pair of consecutive distinct scores a < b (their keys):
        their midpoint in the scores' own type, or b where that type has no value strictly
        between them (so a < t <= b: the rule puts a below and b at or above)."""
        low, high = self.values(low_keys), self.values(high_keys)
        if low.dtype.kind == "f":
            return _float_midpoints(low, high)
        result = np.empty(low.shape[0], dtype=object)
        for index, (a, b) in enumerate(zip(low.tolist(), high.tolist(), strict=True)):
            middle = (Fraction(a) + Fraction(b)) / 2
            if isinstance(a, int) and isinstance(b, int):
                middle = math.ceil(middle)
            result[index] = middle
        return result


def _float_midpoints(low, high):
    """(a + b) / 2 of floats a < b without overflow, b where it rounds to a."""
    with np.errstate(over="ignore", invalid="ignore"):
        middle = (low + high) / 2
    huge = np.isinf(middle) & np.isfinite(low) & np.isfinite(high)
    if huge.any():
        middle[huge] = low[huge] / 2 + high[huge] / 2
    with np.errstate(invalid="ignore"):
        return np.where(middle > low, middle, high)


#: The scale of scores exact as float64: keys are the scores themselves.
EXACT_SCALE = ScoreScale()


def _finite_number(value):
    if isinstance(value, Decimal):
        return value.is_finite()
    if isinstance(value, (float, np.floating)):
        return math.isfinite(value)
    return True


def dense_ranks(values):
    """Each value's rank among the distinct values (equal values share one), and their number.

    Ranks are int64, 0 .. count - 1; O(n log n).
    """
    ranks, distinct = _ranks_and_distinct(values)
    return ranks, distinct.shape[0]


def _ranks_and_distinct(values):
    """Each value's dense rank (int64) and the sorted distinct values."""
    order = np.argsort(values)
    ordered = values[order]
    starts = np.empty(ordered.shape[0], dtype=bool)
    starts[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    ranks = np.empty(ordered.shape[0], dtype=np.int64)
    ranks[order] = np.cumsum(starts) - 1
    return ranks, ordered[starts]


def check_same_length(labels, scores, label_name="y_true", score_name="y_score"):
    if labels.shape[0] != scores.shape[0]:
        raise ValueError(
            f"{label_name} and {score_name} have different lengths: "
            f"{labels.shape[0]} and {scores.shape[0]}"
        )


def _raise_at_first(bad_mask, values, name, requirement, report_count=True):
    """Raise ``ValueError`` naming the first flagged element (no-op when none is)."""
    bad = np.flatnonzero(bad_mask)
    if bad.size:
        position = int(bad[0])
        more = f" (and {bad.size - 1} more)" if report_count and bad.size > 1 else ""
        raise ValueError(
            f"{name} must {requirement}; found {values[position].item()!r} "
            f"at position {position}{more}"
        )


def raise_bad_label(labels, name="y_true"):
    """Raise for the first label that is neither 0 nor 1 (no-op when all are)."""
    bad = (labels != 0) & (labels != 1)
    if bad.any():
        try:
            _raise_at_first(bad, labels, name, "contain only labels 0 and 1 (or booleans)")
        except ValueError as exc:
            raise ValueError(f"{exc}{_pos_label_hint(labels)}") from None


def raise_bad_score(scores, name="y_score"):
    """Raise for the first score that is NaN or infinite (no-op when all are finite)."""
    _raise_at_first(~np.isfinite(scores), scores, name, "contain only finite values")


def labels_as_is_pos(labels, name="y_true") -> NDArray[np.uint8]:
    """Checked labels as a uint8 array: 1 for class 1, 0 for class 0."""
    raise_bad_label(labels, name)
    return np.ascontiguousarray(labels == 1).view(np.uint8)


def check_weights(sample_weight, n_points, name="sample_weight") -> FloatArray:
    """``sample_weight`` as contiguous float64 of length ``n_points``, finite and >= 0."""
    # Empty is refused below as a length mismatch, which says what was expected.
    weights = as_1d(sample_weight, name, allow_empty=True)
    if weights.dtype.kind == "O":
        weights = _object_to_float(weights, name)
    elif weights.dtype.kind not in "biuf":
        raise ValueError(f"{name} must be numeric, got an array of dtype {weights.dtype}")
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    if weights.shape[0] != n_points:
        raise ValueError(
            f"{name} has {weights.shape[0]} entries but there are {n_points} points"
        )
    raise_bad_score(weights, name)
    _raise_at_first(weights < 0, weights, name, "be non-negative", report_count=False)
    return weights


def check_probabilities(y_prob, name="y_prob") -> FloatArray:
    """``y_prob`` as contiguous float64 probabilities: finite and in [0, 1]."""
    # No ranks: a probability is a value, not only an order.
    probs = check_scores(y_prob, name, ranks=False)
    raise_bad_probability(probs, name)
    return probs


def raise_bad_probability(probs, name="y_prob"):
    """ValueError at the first value of float64 ``probs`` that is not finite or not in
    [0, 1] (the one rule of probabilities of class 1)."""
    raise_bad_score(probs, name)
    _raise_at_first((probs < 0) | (probs > 1), probs, name,
                    "lie in [0, 1] (probabilities of class 1)")


def check_both_classes(weight_neg, weight_pos, metric, name="y_true"):
    """Refuse input in which one class has no (weight of) points: the metric is undefined."""
    for weight, present, absent in ((weight_pos, 0, 1), (weight_neg, 1, 0)):
        if not weight > 0:
            raise ValueError(
                f"{metric} is undefined when only one class is present: {name} has no "
                f"points of class {absent} (with positive weight), only of class {present}"
            )


def _as_float(value):
    """float(value), or a signed infinity for a number beyond the float64 range."""
    try:
        return float(value)
    except OverflowError:
        return (math.inf if value > 0 else -math.inf)


def check_positive(value, name) -> float:
    """A finite real number > 0, returned as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a positive number, got {value!r}")
    value = _as_float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return value


def check_probability_level(value, name) -> float:
    """A number strictly between 0 and 1, returned as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1), got {value!r}")
    value = _as_float(value)
    if not 0 < value < 1:
        raise ValueError(f"{name} must be in (0, 1), got {value!r}")
    return value


def check_rate(value, name) -> float:
    """A rate: a number in [0, 1], returned as float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    value = _as_float(value)
    if not 0 <= value <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return value


def check_label_value(value, name="y_true"):
    """One label, 0/1, -1/1 or a boolean, as a bool (True for class 1)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, numbers.Real):
        if value == 1:
            return True
        if value == 0 or value == -1:
            return False
    raise ValueError(f"{name} must be 0/1, -1/1 or a boolean, got {value!r}")


def check_score_value(value, name="y_score") -> float:
    """One finite real score as a float64; integers must be exact as float64."""
    if not _is_number(value):
        raise ValueError(f"{name} must be a real number, got {value!r}")
    if not _finite_number(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    try:
        score = float(value)
    except OverflowError:
        score = math.inf
    if not math.isfinite(score):
        raise ValueError(f"{name} must be finite as a float64, got {value!r}")
    if isinstance(value, (numbers.Integral, np.integer)) and abs(int(value)) > EXACT_INT_LIMIT:
        raise ValueError(
            f"{name} must be exact as float64: the integer {value!r} exceeds 2**53"
        )
    return score


def check_weight_value(value, name="weight") -> float:
    """One finite weight >= 0 as a float."""
    if isinstance(value, (bool, np.bool_)) or not _is_number(value):
        raise ValueError(f"{name} must be a non-negative number, got {value!r}")
    try:
        weight = float(value)
    except OverflowError:
        weight = math.inf
    if not (math.isfinite(weight) and weight >= 0):
        raise ValueError(f"{name} must be finite and >= 0, got {value!r}")
    return weight


def normalized_weights(weights, is_pos=None) -> FloatArray:
    """Checked weights times the power of two 2**-e of :func:`weight_exponent`
    (:func:`scaled_weights` without the exponent)."""
    return scaled_weights(weights, is_pos)[0]


def scaled_weights(weights, is_pos=None) -> tuple[FloatArray, int]:
    """Checked weights times the power of two 2**-e of :func:`weight_exponent`, and e
    (for results in the weights' own units, such as counts).

    Every metric of the package is invariant under multiplying all weights by
    one constant; scaling by a power of two is exact, so the scaled weights,
    and every result computed from them, are the same bit for bit whatever
    the constant (from 1e-300 to 1e300), and sums and products of weights
    neither overflow nor lose the small ones.  Every positive weight stays
    positive: a class whose weights are all tiny next to the other's is
    still present.  ``is_pos`` (class 1 as uint8), when the weights are of
    labelled points, bounds the products by those of the two classes.
    """
    exponent = weight_exponent(weights, is_pos)
    if exponent == 0:
        return weights, 0
    scaled = np.ldexp(weights, -exponent)
    if exponent > 0:
        # Only beyond any exact scaling (weights spanning about 2**1500 within the
        # points of the largest ones): those that would vanish become the least double.
        np.copyto(scaled, _TINY_WEIGHT, where=(scaled == 0) & (weights > 0))
    return scaled, exponent


# The least positive double.
_TINY_WEIGHT = 5e-324


def weight_exponent(weights, is_pos=None) -> int:
    """The exponent e of the power of two 2**-e that :func:`scaled_weights` scales by
    (0 when no weight is positive).

    The largest weight is brought into [1, 2), unless the smallest positive
    one would then leave the normal range (lose bits or vanish): then all are
    scaled up just enough to keep it normal, which is exact.  The scaling is
    bounded so that the sum of n scaled weights and the products of two sums
    (of the two classes with ``is_pos``, else of any) stay below 2**1022;
    only where the weights span more than that allows (about 2**1500) do the
    smallest lose bits, rounded up to stay positive.
    """
    if not weights.shape[0]:
        return 0
    largest = float(weights.max())
    if not largest > 0:
        return 0
    positive = weights[weights > 0] if float(weights.min()) <= 0 else weights
    top = math.frexp(largest)[1]
    bottom = math.frexp(float(positive.min()))[1]
    # 2**(top - 1) <= largest < 2**top; the smallest, >= 2**(bottom - 1), stays
    # normal (>= 2**-1022) when scaled by 2**-e for e <= bottom + 1021.
    exponent = min(top - 1, bottom + 1021)
    count = weights.shape[0].bit_length()  # n < 2**count
    tops: tuple[int, ...] = (top, top)
    if is_pos is not None:
        pos = is_pos.view(bool)
        tops = tuple(math.frexp(float(part.max()))[1] if part.shape[0] and part.max() > 0
                     else -1074 for part in (weights[~pos], weights[pos]))
    # Sums below 2**(top - e + count) <= 2**1022; products of the two below 2**1022.
    floor = max(top + count - 1022, -((1022 - sum(tops) - 2 * count) // 2))
    return max(exponent, floor)


def check_cost(alpha=2.0, beta=2.0, severity_ratio=None, priors=None) -> CostRule:
    """Validate the H-measure options shared by every function and structure.

    Returns the engines' ``CostRule``, which owns the rules (R's severity
    ratio, priors from the data).

    ``severity_ratio`` (a number > 0 or ``"prior"``) replaces alpha and beta
    by R's Beta(2, 1 + 1/SR); passing it with alpha or beta other than their
    defaults is refused as contradictory.
    """
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    if severity_ratio is not None:
        if (alpha, beta) != (2.0, 2.0):
            raise ValueError(
                "pass either severity_ratio or alpha/beta, not both: severity_ratio=SR "
                f"means Beta(2, 1 + 1/SR), which contradicts alpha={alpha}, beta={beta}"
            )
        if isinstance(severity_ratio, str):
            if severity_ratio != "prior":
                raise ValueError(
                    f'severity_ratio must be a number > 0 or "prior", got {severity_ratio!r}'
                )
        else:
            severity_ratio = check_positive(severity_ratio, "severity_ratio")
    if priors is not None:
        priors = check_priors(priors)
    return CostRule(alpha, beta, severity_ratio, priors)


def check_priors(priors):
    """``priors=(pi0, pi1)``: two probabilities in (0, 1) that sum to 1."""
    try:
        pi0, pi1 = priors
        pi0, pi1 = float(pi0), float(pi1)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"priors must be a pair (pi0, pi1) of numbers, got {priors!r}") from None
    if not (0 < pi0 < 1 and 0 < pi1 < 1):
        raise ValueError(f"priors must both lie in (0, 1), got ({pi0!r}, {pi1!r})")
    if not math.isclose(pi0 + pi1, 1.0, rel_tol=0, abs_tol=1e-9):
        raise ValueError(f"priors must sum to 1, got {pi0!r} + {pi1!r} = {pi0 + pi1!r}")
    return pi0, pi1


# ---------------------------------------------------------------------------
# Shared by the from-scratch functions: the binary input prologue (labels,
# scores, weights, split by class), the exact-path rule and scalar options.

# Beyond this many points, products of unit counts could overflow int64 in
# the exact kernels; such inputs take the float64 (weighted) path.
EXACT_COUNT_LIMIT = 2**31


def exact_path(y_score, sample_weight):
    """Unit weights and few enough points for int64 counts: the exact kernels apply."""
    return sample_weight is None and np.shape(y_score)[:1] < (EXACT_COUNT_LIMIT,)


def binary_input(y_true, y_score, sample_weight=None, *, score_name="y_score", ranks=True,
                 signed=True, label_name="y_true"):
    """Converted labels, scores and weights (None without ``sample_weight``) of one length.

    The labels and scores are not yet checked element by element: a kernel
    flags bad ones in its own pass and :func:`raise_flagged` names the first.
    With ``signed=False`` labels -1/1 are left as they are (the caller then
    converts them with :func:`signed_as_binary` when a kernel flags them).
    """
    labels = check_labels(y_true, label_name, signed=signed)
    scores = check_scores(y_score, score_name, ranks=ranks)
    check_same_length(labels, scores, label_name, score_name)
    weights = None if sample_weight is None else check_weights(sample_weight, scores.shape[0])
    return labels, scores, weights


def raise_flagged(labels, scores, bad_label, bad_score, score_name="y_score",
                  label_name="y_true"):
    """Raise for the first bad label (then score) when a kernel flagged one."""
    if bad_label:
        raise_bad_label(labels, label_name)
    if bad_score:
        raise_bad_score(scores, score_name)


def split_classes(y_true, y_score, metric=None, score_name="y_score", label_name="y_true"):
    """Validated unit-weight input split by class in one compiled pass.

    Returns ``(neg, pos)``: the class 0 scores in input order and the class 1
    scores in reversed input order (both views of one new buffer).  With a
    ``metric``, refuses input in which one class is absent.
    """
    # Labels -1/1 are rare: rather than a pass looking for them, the split
    # runs again on converted labels when it flags a label.
    labels, scores, _ = binary_input(y_true, y_score, score_name=score_name, signed=False,
                                     label_name=label_name)
    buffer = np.empty(scores.shape[0], dtype=np.float64)
    n_neg, bad_label, bad_score = _scratch.split_by_class(labels, scores, buffer)
    if bad_label:
        as_binary = signed_as_binary(labels)
        if as_binary is not None:
            labels = as_binary
            n_neg, bad_label, bad_score = _scratch.split_by_class(labels, scores, buffer)
    raise_flagged(labels, scores, bad_label, bad_score, score_name, label_name)
    if metric is not None:
        check_both_classes(n_neg, buffer.shape[0] - n_neg, metric, label_name)
    return buffer[:n_neg], buffer[n_neg:]


def _numpy_sort_vectorised():
    """Whether numpy sorts float64 with a vectorised quicksort on this CPU.

    numpy (>= 2.0) dispatches ``np.sort`` of float64 at run time: to
    x86-simd-sort where the CPU has AVX2 or AVX-512 (the targets named
    ``X86_V3`` and ``X86_V4`` from numpy 2.4, ``AVX2`` and ``AVX512_SKX``
    before), to Highway's vqsort on ARM (``ASIMD``), else to its scalar
    introsort.  The target must also be one numpy was built with.
    """
    try:
        from numpy._core._multiarray_umath import (
            __cpu_baseline__,
            __cpu_dispatch__,
            __cpu_features__,
        )
    except ImportError:  # a numpy without the introspection: assume the scalar sort
        return False
    built = set(__cpu_baseline__) | set(__cpu_dispatch__)
    # numpy 2.4 dispatches on the x86-64 levels: disabling X86_V3 (by
    # NPY_DISABLE_CPU_FEATURES) leaves AVX2 reported but unused.
    x86 = ("X86_V3", "X86_V4") if "X86_V3" in __cpu_features__ else ("AVX2", "AVX512_SKX")
    return any(__cpu_features__.get(name, False) and name in built
               for name in (*x86, "ASIMD"))


#: Whether numpy's sort of float64 is vectorised here (read once, at import).
NUMPY_SORT_VECTORISED = _numpy_sort_vectorised()

# The one choice of sort for the from-scratch functions.  numpy's vectorised
# sort beats the compiled radix sort (eight linear passes over memory) at
# every size: 2 to 2.8 times faster from 2**10 to 2**20 doubles on an AVX2
# machine.  numpy's scalar sort loses to it from 2**12 doubles on (0.35 to
# 0.6 of its time; docs/performance.rst).  None: never the radix sort.
RADIX_SORT_MIN = None if NUMPY_SORT_VECTORISED else 2**12


def sort_scores(values):
    """Sort validated (finite) float64 scores ascending, in place.

    By numpy, or by the compiled radix sort from ``RADIX_SORT_MIN`` scores
    where numpy's sort is not vectorised; the results are the same (-0.0
    and 0.0 compare equal, so either may come first among them).
    """
    if RADIX_SORT_MIN is not None and values.shape[0] >= RADIX_SORT_MIN:
        _scratch.radix_sort(values)
    else:
        values.sort()


def stable_order(scores):
    """The stable ascending order (int64) of validated (finite) float64 scores: ties, -0.0
    with 0.0 among them, in input order, as ``np.argsort(scores, kind="stable")``.

    By the compiled LSD radix sort, O(n): numpy's stable sort of doubles is a
    merge sort that no machine vectorises (docs/performance.rst).
    """
    return _scratch.radix_argsort(scores)


def sorted_classes(y_true, y_score, metric, score_name="y_score", label_name="y_true"):
    """Validated unit-weight input split by class, each class's scores sorted ascending."""
    neg, pos = split_classes(y_true, y_score, metric, score_name, label_name)
    sort_scores(neg)
    sort_scores(pos)
    return neg, pos


def weighted_input(y_true, y_score, sample_weight, metric, *, normalize=True):
    """Validated weighted input: class 1 as uint8, scores, weights (ones without weights).

    Refuses input in which one class has no positive weight.  With
    ``normalize``, the weights are scaled by a power of two (for metrics that
    do not depend on their scale); without, they stay as given (frequency
    weights, as DeLong's variance reads them).
    """
    labels, scores, weights = binary_input(y_true, y_score, sample_weight)
    is_pos = labels_as_is_pos(labels)
    if weights is None:
        weights = np.ones(scores.shape[0])
    elif normalize:
        # One power of two for all: the results do not depend on the weights' scale.
        weights = normalized_weights(weights, is_pos)
    raise_bad_score(scores)
    pos_mask = is_pos.view(bool)
    check_both_classes(weights[~pos_mask].sum(), weights[pos_mask].sum(), metric)
    return is_pos, scores, weights


def weighted_groups(y_true, y_score, sample_weight, metric, with_keys=False, normalize=True):
    """Validated weighted input as class weights per distinct score, highest first
    (preceded by the distinct scores with ``with_keys``; ``normalize`` as for
    :func:`weighted_input`)."""
    is_pos, scores, weights = weighted_input(y_true, y_score, sample_weight, metric,
                                             normalize=normalize)
    return _scratch.groups_weighted(stable_order(scores), scores, is_pos, weights, with_keys)


def weighted_classes(y_true, y_score, sample_weight, metric, *, normalize=True):
    """Validated weighted input split by class: ``(neg, neg_weight, pos, pos_weight)``.

    Each class's scores ascending (ties in input order) with their weights;
    one sort of all the points.  ``normalize`` as for :func:`weighted_input`.
    """
    is_pos, scores, weights = weighted_input(y_true, y_score, sample_weight, metric,
                                             normalize=normalize)
    order = stable_order(scores)
    ordered_pos = is_pos.view(bool)[order]
    neg_order, pos_order = order[~ordered_pos], order[ordered_pos]
    return scores[neg_order], weights[neg_order], scores[pos_order], weights[pos_order]


def check_rows(rows, n_points, name="at") -> NDArray[np.int64]:
    """Row indices of a batch of ``n_points``: integers, strictly increasing, in
    [0, n_points), as a contiguous int64 array; a message names the user's value."""
    array = as_1d(rows, name, allow_empty=True)
    if array.dtype.kind not in "iu" and array.size:
        # Each value as given: Python integers beyond int64 make an object array, and
        # numpy makes floats of int64 and uint64 scalars together.
        items = list(rows) if isinstance(rows, (list, tuple)) else array.tolist()
        wrong = next((k for k, item in enumerate(items) if isinstance(item, (bool, np.bool_))
                      or not isinstance(item, numbers.Integral)), None)
        if wrong is not None:
            raise ValueError(f"{name} must hold row indices (integers): {name}[{wrong}] = "
                             f"{items[wrong]!r}")
        array = np.array([int(item) for item in items], dtype=object)
    # (Compared in the given type: a uint64 beyond int64 or a Python integer is not wrapped.)
    outside = np.flatnonzero((array < 0) | (array >= n_points))
    if outside.size:
        raise ValueError(f"{name}[{outside[0]}] = {array[outside[0]]} is not a row of the "
                         f"{n_points} points (0 to {n_points - 1})")
    array = np.ascontiguousarray(array, dtype=np.int64)
    back = np.flatnonzero(array[1:] <= array[:-1])
    if back.size:
        k = back[0] + 1
        raise ValueError(f"{name} must increase strictly: {name}[{k}] = {array[k]} follows "
                         f"{array[k - 1]}")
    return array


def check_integer(value, name, minimum) -> int:
    """An integer (Python or numpy, not a bool) >= ``minimum``, returned as int."""
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, numbers.Integral)
        or value < minimum
    ):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_option(value, name, options) -> Any:
    """``value`` if it is one of ``options`` (strings or None), else ``ValueError``."""
    for option in options:
        if value is option or (
            isinstance(option, str) and isinstance(value, str) and value == option
        ):
            return option
    choices = ", ".join(repr(option) for option in options)
    raise ValueError(f"{name} must be one of {choices}; got {value!r}")


def check_random_state(random_state, name="random_state"):
    """A numpy Generator from ``random_state`` (None, int, SeedSequence or Generator)."""
    try:
        return np.random.default_rng(random_state)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be None, a non-negative int, a numpy SeedSequence or a "
            f"numpy Generator, got {random_state!r}"
        ) from None


def check_relative_to(value, name="relative_to"):
    """What an approximate AUC's error is relative to: "auc" or "1-auc"."""
    if not (isinstance(value, str) and value in ("auc", "1-auc")):
        raise ValueError(f'{name} must be "auc" or "1-auc", got {value!r}')
    return value


def check_unit_weights(weights, owner, name="sample_weight"):
    """Refuse checked weights (a float64 array, or None for unit) other than 1."""
    if weights is None:
        return
    odd = np.flatnonzero(weights != 1.0)
    if odd.size:
        k = odd[0]
        raise ValueError(
            f"{name}: {owner} takes unit weights only (its compressed list counts points "
            f"one by one), got {weights[k].item()!r} at position {k}"
        )


def check_seed(seed) -> int | None:
    """``seed``: None or an integer (numpy integers included), returned as a Python int."""
    if seed is None:
        return None
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed must be an integer or None, got {seed!r}")
    return int(seed)


def level_names(levels):
    """Levels in (0, 1) by the names of their percentages in report keys.

    A level is read as the decimal its own type prints (``np.float32(0.95)``
    is 0.95, not 0.949999988...).  Its name is R's, the whole part of that
    decimal times 100 computed exactly (``0.29`` -> ``"29"``, where R's
    ``floor(0.29 * 100)`` gives 28), unless another level has the same whole
    part: then each of them is named by its percentage with its decimals
    (``0.951`` -> ``"95.1"``, ``0.959`` -> ``"95.9"``).  A repeated level is
    kept once.  Returns a dict name -> level, in the given order.
    """
    percents = {}
    for given in levels:
        value, percent = _level_percent(given)
        percents.setdefault(percent, value)
    whole = [int(percent) for percent in percents]
    names = {}
    for (percent, value), integral in zip(percents.items(), whole, strict=True):
        if whole.count(integral) == 1:
            names[str(integral)] = value
        else:
            names[format(percent.normalize(), "f")] = value
    return names


def _level_percent(value):
    """A level as a float in (0, 1) and as the exact decimal percentage it was written as."""
    check_probability_level(value, "sens_spec_levels")
    text = str(value) if isinstance(value, (np.floating, Decimal)) else repr(_as_float(value))
    try:
        decimal = Decimal(text)
    except ArithmeticError:
        decimal = Decimal(_as_float(value))
    value = check_probability_level(float(decimal), "level")
    return value, decimal * 100


def check_rate_range(value, name) -> tuple[float, float]:
    """``value`` as a pair of floats (low, high) with 0 <= low < high <= 1; None is (0, 1).

    The range of false or true positive rates of a partial AUC.
    """
    if value is None:
        return 0.0, 1.0
    if not (isinstance(value, (tuple, list)) and len(value) == 2) and (
        isinstance(value, (str, bytes)) or np.ndim(value) != 1 or len(value) != 2
    ):
        raise ValueError(f"{name} must be a pair (low, high) of numbers, got {value!r}")
    pair = []
    for bound in value:
        if isinstance(bound, (bool, np.bool_)) or not isinstance(bound, numbers.Real):
            raise ValueError(f"{name} must be a pair (low, high) of numbers, got {value!r}")
        pair.append(float(bound))
    low, high = pair
    if not 0.0 <= low < high <= 1.0:
        raise ValueError(f"{name} must satisfy 0 <= low < high <= 1, got ({low!r}, {high!r})")
    return low, high


def check_max_fpr(value, name="max_fpr") -> float | None:
    """scikit-learn's ``max_fpr``: None, or a number in (0, 1] returned as float."""
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a number in (0, 1], got {value!r}")
    value = _as_float(value)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")
    return value


def check_partial_correction(correction, fpr_range, tpr_range):
    """The correction of a partial AUC: None or "mcclish", the latter over one range only."""
    check_option(correction, "correction", (None, "mcclish"))
    if correction == "mcclish" and fpr_range is not None and tpr_range is not None:
        raise ValueError(
            "correction='mcclish' standardises a partial area over one range; it is not "
            "defined for the two-way area (both fpr_range and tpr_range given)"
        )
    return correction


# ----------------------------------------------------------------------
# Times and durations of windows and decay: int64 nanoseconds since the epoch.

_NS = {"ns": 1, "nanosecond": 1, "us": 10**3, "microsecond": 10**3, "ms": 10**6,
       "millisecond": 10**6, "s": 10**9, "sec": 10**9, "second": 10**9, "m": 60 * 10**9,
       "min": 60 * 10**9, "minute": 60 * 10**9, "h": 3600 * 10**9, "hour": 3600 * 10**9,
       "d": 86400 * 10**9, "day": 86400 * 10**9, "w": 604800 * 10**9, "week": 604800 * 10**9}
_INT64_MAX = 2**63 - 1


# Units whose meaning depends on their case: "m" is minutes and "ms" milliseconds, but
# "M" is months in pandas and ISO 8601 and "MS" pandas' month start; any other spelling
# of them is refused rather than guessed.
_CASE_SENSITIVE = ("m", "ms")
# Calendar units: not a fixed number of nanoseconds.
_CALENDAR = ("y", "yr", "year", "mo", "mon", "month")


class DurationUnitError(ValueError):
    """A duration whose unit is ambiguous or not a fixed length (says which unit to use)."""


def _duration_unit(unit, text, name):
    """The key of ``_NS`` for a unit as written; None if unknown; DurationUnitError if
    ambiguous or a calendar unit."""
    folded = unit.lower()
    singular = folded[:-1] if folded.endswith("s") and folded not in _NS else folded
    if folded in _CASE_SENSITIVE and unit != folded:
        meanings = ("months or minutes; write 'min' for minutes (months are not a fixed "
                    "duration: give days, e.g. '30d')" if folded == "m" else
                    "month starts, megaseconds or milliseconds; write 'ms' for milliseconds")
        raise DurationUnitError(f"{name} {text!r} is ambiguous: {unit!r} could mean {meanings}")
    if singular in _CALENDAR:
        raise DurationUnitError(
            f"{name} {text!r} is not a fixed duration: {unit!r} (months or years) varies "
            "in length; give days or weeks, e.g. '30d' or '52w'")
    return singular if singular in _NS else None


def _parse_duration_string(text, name="duration"):
    """``"15min"``, ``"24h"``, ``"1h30min"``, ``"1.5 days"`` as nanoseconds, or None (not a
    duration); DurationUnitError for an ambiguous or calendar unit (``"1M"``)."""
    parts = re.findall(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]+)\s*", text)
    if not parts or "".join(re.findall(r"\s*(?:\d+(?:\.\d*)?|\.\d+)\s*[a-zA-Z]+\s*", text)) \
            != text:
        return None
    total = 0
    for number, written in parts:
        unit = _duration_unit(written, text, name)
        if unit is None:
            return None
        total += round(float(number) * _NS[unit]) if "." in number else int(number) * _NS[unit]
    return total


def check_duration(value, name):
    """A positive duration as int nanoseconds: a string such as ``"15min"``, ``"24h"`` or
    ``"7d"`` (units ns, us, ms, s, min, h, d, w and their long names, in any case but
    ``m`` and ``ms``: ``"M"`` and ``"MS"`` are refused as ambiguous, as are months and
    years), a ``datetime.timedelta`` (``pandas.Timedelta`` too) or a ``numpy.timedelta64``."""
    nanoseconds = None
    if isinstance(value, str):
        nanoseconds = _parse_duration_string(value, name)
        if nanoseconds is None:
            raise ValueError(
                f"{name} {value!r} is not a duration: give a number and a unit such as "
                "'15min', '24h', '7d' or '1h30min' (units ns, us, ms, s, min, h, d, w); "
                "a number of points is an int, not a string"
            )
    elif isinstance(value, np.timedelta64):
        if np.isnat(value) or np.datetime_data(value.dtype)[0] in ("Y", "M", "generic"):
            raise ValueError(f"{name} must be a fixed duration, got {value!r}")
        nanoseconds = int(value.astype("timedelta64[ns]").astype(np.int64))
    elif isinstance(value, datetime.timedelta):
        nanoseconds = getattr(value, "value", None)  # pandas.Timedelta: exact nanoseconds
        if not isinstance(nanoseconds, (int, np.integer)):
            nanoseconds = ((value.days * 86400 + value.seconds) * 10**6
                           + value.microseconds) * 1000
        nanoseconds = int(nanoseconds)
    if nanoseconds is None:
        raise ValueError(f"{name} must be a duration, got {value!r}")
    if not 0 < nanoseconds <= _INT64_MAX:
        raise ValueError(f"{name} must be a positive duration, got {value!r}")
    return nanoseconds


def is_duration(value) -> bool:
    """Whether ``value`` is meant as a duration (a string, timedelta or timedelta64)."""
    return isinstance(value, (str, datetime.timedelta, np.timedelta64))


def _seconds_to_ns(seconds, name):
    if isinstance(seconds, (int, np.integer)):
        nanoseconds = int(seconds) * 10**9
    else:
        seconds = float(seconds)
        if not math.isfinite(seconds):
            raise ValueError(f"{name} must be a finite number of seconds, got {seconds!r}")
        nanoseconds = round(seconds * 1e9)
    if not -_INT64_MAX <= nanoseconds <= _INT64_MAX:
        raise ValueError(f"{name} {seconds!r} is out of the range of datetime64[ns]")
    return nanoseconds


def check_time_value(value, name="time"):
    """One point's time as int nanoseconds since the epoch (UTC).

    Accepted: a number (seconds since the epoch), a ``numpy.datetime64``, a
    ``datetime.datetime`` or ``pandas.Timestamp`` (naive ones are taken as
    UTC, aware ones converted), or an ISO 8601 string.
    """
    if isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be a time, got {value!r}")
    if isinstance(value, numbers.Real):
        return _seconds_to_ns(value, name)
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise ValueError(f"{name} is NaT: every point needs a time")
        return int(value.astype("datetime64[ns]").astype(np.int64))
    if isinstance(value, datetime.datetime):
        exact = getattr(value, "value", None)  # pandas.Timestamp: nanoseconds since the epoch
        if isinstance(exact, (int, np.integer)):
            return int(exact)
        if value.tzinfo is not None:
            value = value.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = value - datetime.datetime(1970, 1, 1)
        return ((delta.days * 86400 + delta.seconds) * 10**6 + delta.microseconds) * 1000
    if isinstance(value, datetime.date):
        return check_time_value(datetime.datetime(value.year, value.month, value.day), name)
    if isinstance(value, str):
        return int(_parse_time_strings(np.array([value]), name, alone=True)[0])
    raise ValueError(
        f"{name} must be a time (seconds since the epoch, datetime64, datetime, Timestamp "
        f"or an ISO 8601 string), got {value!r}"
    )


# An ISO 8601 time of day followed by its zone: "Z" (UTC) or the offset from
# UTC, "+hh:mm", "+hhmm" or "+hh".  numpy reads a zone with a UserWarning
# (datetime64 has none), so without pandas the zone is read here.
_ZONED_TIME = re.compile(r"(.*\d[T ]\d\d(?:[:.,\d]*\d)?)(?:Z|([+-])(\d\d)(?::?(\d\d))?)")


def _numpy_times(values):
    """ISO 8601 strings as int64 nanoseconds since the epoch (UTC), by numpy alone."""
    local = values.copy()
    offsets = np.zeros(values.shape[0], dtype=np.int64)
    for position, text in enumerate(values.tolist()):
        zoned = _ZONED_TIME.fullmatch(text)
        if zoned is None:  # no zone: UTC, as numpy reads it
            continue
        local[position] = zoned[1]
        if zoned[2] is not None:
            minutes = int(zoned[3]) * 60 + int(zoned[4] or 0)
            offsets[position] = (minutes if zoned[2] == "+" else -minutes) * 60 * 10**9
    return local.astype("datetime64[ns]").astype(np.int64) - offsets


def _parse_time_strings(array, name, alone=False):
    """ISO 8601 strings (an array of str, or of objects that are all str) as int64
    nanoseconds since the epoch (UTC), read in one pass; a ValueError names the first
    entry that is not a time, and its position (``alone``: one value, named ``name``)."""

    def refuse(position):
        where = name if alone else f"{name}[{position}]"
        raise ValueError(f"{where} = {str(array[position])!r} is not an ISO 8601 time")

    try:
        import pandas
    except ImportError:
        pandas = None

    def parse(values):
        if pandas is not None:
            return pandas.to_datetime(values, utc=True, format="ISO8601").as_unit("ns").asi8
        return _numpy_times(values.astype(str))

    try:
        values = parse(array)
    except (ValueError, TypeError) as exc:
        error = exc
    else:
        # Both parsers read "NaT" and "" as NaT (-2**63) and "now" and "today" as the
        # moment of the call: none of them is the time of a point.
        missing = (values == np.iinfo(np.int64).min) | (array == "now") | (array == "today")
        if not missing.any():
            return values
        refuse(int(np.flatnonzero(missing)[0]))
    # Each entry is read on its own, so the first that fails alone is found by halving
    # (O(n) in all, where one call per entry costs ~0.1 ms with pandas): when the first
    # half of the part that fails reads, the failure is in the second.
    text = array.astype(str)  # (the entries as check_time_value reads each)
    start, stop = 0, text.shape[0]
    while stop - start > 1:
        middle = (start + stop) // 2
        try:
            parse(text[start:middle])
            start = middle
        except (ValueError, TypeError):
            stop = middle
    # (Should the halving end on an entry that reads alone, every entry is tried.)
    for position in [start, *range(text.shape[0])]:
        try:
            parse(text[position:position + 1])
        except (ValueError, TypeError):
            refuse(position)
    raise error


def check_times(times, n_points, name="times"):
    """Times of a batch as an int64 array of nanoseconds (see ``check_time_value``)."""
    dtype = getattr(times, "dtype", None)
    # A tz-aware pandas column, or one of Arrow timestamps with a zone (pandas.ArrowDtype,
    # whose values numpy would otherwise get as Timestamp objects): its UTC instants.
    timezone = getattr(dtype, "tz", None) or getattr(getattr(dtype, "pyarrow_dtype", None),
                                                     "tz", None)
    if timezone is not None:
        if hasattr(times, "dt"):
            times = times.dt.tz_convert("UTC").dt.tz_localize(None)
        else:  # a DatetimeIndex
            times = times.tz_convert("UTC").tz_localize(None)
    array = as_1d(times, name, allow_empty=True)
    if array.shape[0] != n_points:
        raise ValueError(f"{name} has {array.shape[0]} entries for {n_points} points")
    kind = array.dtype.kind
    if kind == "M":
        if np.datetime_data(array.dtype)[0] == "generic" and array.size:
            raise ValueError(f"{name} are datetime64 without a unit")
        nat = np.isnat(array)
        if nat.any():
            raise ValueError(f"{name}[{np.flatnonzero(nat)[0]}] is NaT: every point needs a time")
        return array.astype("datetime64[ns]").astype(np.int64)
    if kind in "iu":
        big = np.abs(array.astype(np.float64)) > _INT64_MAX / 1e9
        if big.any():
            k = np.flatnonzero(big)[0]
            raise ValueError(f"{name}[{k}] = {array[k]!r} seconds is out of range")
        return array.astype(np.int64) * 10**9
    if kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):
            nanoseconds = np.round(array.astype(np.float64) * 1e9)
            # (2^63 itself, the rounding of 2^63 - 1, would wrap to the year 1677.)
            bad = ~np.isfinite(nanoseconds) | (np.abs(nanoseconds) >= 2.0**63)
        if bad.any():
            k = np.flatnonzero(bad)[0]
            raise ValueError(
                f"{name}[{k}] = {array[k]!r} is not a finite time in seconds since the epoch")
        return nanoseconds.astype(np.int64)
    if kind in "US":
        return np.asarray(_parse_time_strings(array.astype(str), name), dtype=np.int64)
    if kind == "O":
        values = array.tolist()
        types = set(map(type, values))
        if values and types <= {str, np.str_}:  # text, as a pandas column of it gives
            # Read whole, as the same entries in a numpy str array (a list's way, and
            # check_time_value's for each); that array is made only where it differs:
            # numpy's str objects, or a NUL, which it strips from the end of an entry.
            plain = types == {str} and "\x00" not in "".join(values)
            return _parse_time_strings(array if plain else array.astype(str), name)
        return np.array([check_time_value(value, f"{name}[{position}]")
                         for position, value in enumerate(array.tolist())], dtype=np.int64)
    raise ValueError(f"{name} must be times, got an array of dtype {array.dtype}")


def import_optional(*modules: str, needed_by: str, install: str) -> Any:
    """Import optional dependencies: the module (or a tuple of them, in order).

    A missing one raises ImportError in one line naming what needs it and
    the pip command that installs it, instead of the bare
    ``ModuleNotFoundError``.  ``install`` is a pip requirement, or one of the
    package's extras (``"hmeasure_stream[cli]"``), named in the command by
    the extra's requirement of the missing module (``'matplotlib>=3.7'``):
    the package is not on an index, so ``pip install 'hmeasure_stream[cli]'``
    would fail from a clone, where the requirement itself installs.
    """
    imported = []
    for name in modules:
        try:
            imported.append(importlib.import_module(name))
        except ModuleNotFoundError as error:
            missing = (error.name or name).partition(".")[0]
            command = " ".join(f"'{requirement}'"
                               for requirement in requirements_of(install, missing))
            raise ImportError(
                f"{needed_by} needs {missing}, which is not installed: pip install {command}"
            ) from None
    return imported[0] if len(imported) == 1 else tuple(imported)


def requirements_of(install: str, module: str) -> list[str]:
    """The pip requirements that install ``module``: ``install`` itself, or for an extra
    of this package its requirement of ``module`` (all of the extra's if none is named
    so), from the installed package's metadata."""
    import importlib.metadata

    project, _, extra = install.partition("[")
    if project != "hmeasure_stream" or not extra.endswith("]"):
        return [install]
    try:
        requires = importlib.metadata.requires("hmeasure_stream") or []
    except importlib.metadata.PackageNotFoundError:
        return [install]
    marker = f'extra == "{extra[:-1]}"'
    of_extra = [r.partition(";")[0].strip() for r in requires if r.partition(";")[2].strip()
                == marker]
    named = [r for r in of_extra
             if re.split(r"[\[<>=!~ ]", r, maxsplit=1)[0].lower().replace("-", "_") == module]
    return named or of_extra or [install]


# -- Renamed keywords and attributes -------------------------------------------
# One rule for every renamed name: the old one keeps working for one release,
# with a DeprecationWarning naming the new one.  A renamed keyword stays in the
# signature, default None (as scikit-learn's deprecated parameters), so that no
# wrapper frame moves the stack levels of the function's own warnings.


def _deprecation(old: str, new: str, where: str) -> str:
    return (f"{where}: {old} is deprecated and will be removed in the next release; "
            f"use {new}")


def renamed_keyword(where: str, old: str, new: str, old_value: Any, new_value: Any,
                    new_default: Any = None, stacklevel: int = 3) -> Any:
    """The value of keyword ``new``, or of its deprecated name ``old`` (not None)
    with a DeprecationWarning; both given (``new`` not at its default) is a
    ValueError naming them."""
    if old_value is None:
        return new_value
    if new_value is not new_default and new_value != new_default:
        raise ValueError(f"{where}: give {new}= only ({old}= is its deprecated name), "
                         "not both")
    warnings.warn(_deprecation(f"{old}=", f"{new}=", where), DeprecationWarning,
                  stacklevel=stacklevel)
    return old_value


def renamed_fields(**renamed: str) -> Callable[[type], type]:
    """A decorator of a dataclass whose fields ``new`` were called ``old`` (old=new):
    its ``__init__`` takes each old name as a keyword (:func:`renamed_keyword`), and
    the old attribute reads the new one (:func:`renamed_attributes`).  The old names
    are no fields, so ``dataclasses.replace``, ``fields`` and ``repr`` know the new
    ones alone."""
    def decorate(cls: type) -> type:
        init = vars(cls)["__init__"]
        defaults = {f.name: f.default for f in dataclasses.fields(cls)}

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            for old, new in renamed.items():
                if old in kwargs:
                    kwargs[new] = renamed_keyword(cls.__name__, old, new, kwargs.pop(old),
                                                  kwargs.get(new, defaults[new]),
                                                  defaults[new])
            init(self, *args, **kwargs)

        setattr(cls, "__init__", __init__)  # noqa: B010 (mypy refuses the assignment)
        setattr(cls, "__getattr__", renamed_attributes(**renamed))  # noqa: B010
        return cls

    return decorate


def renamed_attributes(**renamed: str) -> Callable[[Any, str], Any]:
    """A class's ``__getattr__`` that reads each deprecated name of ``renamed`` (old=new)
    as its new name, for one release, with a DeprecationWarning: called only for names
    that are not attributes, so help() lists the new names alone."""
    def __getattr__(self: Any, name: str) -> Any:
        if name not in renamed:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        warnings.warn(_deprecation(f".{name}", f".{renamed[name]}", type(self).__name__),
                      DeprecationWarning, stacklevel=2)
        return getattr(self, renamed[name])

    return __getattr__
