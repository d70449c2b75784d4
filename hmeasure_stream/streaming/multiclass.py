"""Multi-class AUC of a changing set of points: ``DynamicMulticlassAUC``.

One-vs-rest keeps one exact binary AUC engine per class; Hand and Till's
one-vs-one keeps one per ordered pair of classes, over the points of those
two classes.  Every engine is the score treap of :class:`DynamicAUC`, so each
binary AUC is exact and a point costs O(c log n) for c classes.
"""

import numpy as np

from hmeasure_stream._engines._auc import AUCEngine
from hmeasure_stream._validation import check_option, check_weight_value, check_weights
from hmeasure_stream.multiclass import (
    _AVERAGES,
    _METHODS,
    _as_label_array,
    _check_score_matrix,
    _encode_given,
    averaged,
)
from hmeasure_stream.streaming._base import _check_removable, check_structure_options

__all__ = ["DynamicMulticlassAUC"]


class DynamicMulticlassAUC:
    """Exact multi-class AUC of a set of points that changes one point (or batch) at a time.

    A point is a label (one of ``classes``) and a row of c class scores (the
    scores need not sum to 1), with an optional weight.  The AUC is the
    one-vs-rest average of Fawcett or Hand and Till's one-vs-one M, equal to
    :func:`~hmeasure_stream.multiclass_auc` of the current points.

    Parameters
    ----------
    classes : sequence of hashable
        The class labels, in the column order of the score rows (at least 2).
    method : {"ovr", "ovo"}, default "ovr"
        One-vs-rest: each class against all others, on its own column.
        One-vs-one: the mean over pairs of (A(i|j) + A(j|i)) / 2, each pair on
        the points of those two classes.
    average : {"macro", "weighted"}, default "macro"
        The plain mean, or weighted by class weight (pairs by the weight of
        their two classes), as scikit-learn.
    capacity : int, default=16
        Initial room of each binary engine, in distinct scores.
    seed : int, optional
        Seed of the engines' random priorities.

    Attributes
    ----------
    auc : float
        The averaged AUC; nan while it is undefined (a class without points, or
        a binary AUC without both of its classes).
    classes : list
        The class labels.
    class_weights : ndarray
        Total weight of each class.

    See Also
    --------
    multiclass_auc : the same from scratch.
    DynamicAUC : one binary engine.

    Notes
    -----
    One-vs-rest: c binary engines, each point enters all of them (class k's
    engine with the point positive when its label is k, scored by column k):
    O(c log n) per point.  One-vs-one: c (c - 1) engines, engine (i, j) over
    the points of classes i and j scored by column i, positive for class i; a
    point of class y enters the 2 (c - 1) engines of its class: O(c log n).
    Reading ``auc`` is O(c) or O(c^2); the binary AUCs are exact (unit
    weights: exact integers), the average is a float mean.

    Rows are not remembered as wholes: ``remove`` takes out, in every engine,
    the entry the row gives it, and refuses (KeyError, nothing changed) when an
    engine has no such entry.  Remove the rows you added.

    References
    ----------
    T. Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters
    27, 2006.

    D. J. Hand and R. J. Till, "A simple generalisation of the area under the
    ROC curve for multiple class classification problems", Machine Learning
    45, 2001.

    Examples
    --------
    >>> from hmeasure_stream import DynamicMulticlassAUC
    >>> tracker = DynamicMulticlassAUC(["cat", "dog", "emu"])
    >>> tracker.add_many(["cat", "dog", "emu", "cat"],
    ...                  [[0.7, 0.2, 0.1], [0.3, 0.4, 0.3], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3]])
    >>> tracker.auc
    0.8055555555555555
    >>> tracker.remove("cat", [0.2, 0.5, 0.3])
    >>> tracker.auc, tracker.per_class().tolist()
    (1.0, [1.0, 1.0, 1.0])
    """

    __slots__ = ("_average", "_classes", "_engines", "_index", "_mass", "_method", "_sizes")

    def __init__(self, classes, *, method="ovr", average="macro", capacity=16, seed=None):
        check_option(method, "method", _METHODS)
        check_option(average, "average", tuple(a for a in _AVERAGES if a is not None))
        classes, _ = _encode_given(np.empty(0), classes)
        if len(classes) < 2:
            raise ValueError(f"classes must name at least 2 classes, got {classes!r}")
        capacity, seed = check_structure_options(capacity, seed)
        self._classes = classes
        self._index = {label: k for k, label in enumerate(classes)}
        self._method = method
        self._average = average
        c = len(classes)
        pairs = c if method == "ovr" else c * c
        self._engines = [AUCEngine(capacity, None if seed is None else seed + k)
                         for k in range(pairs)]
        self._mass = np.zeros(c)
        self._sizes = np.zeros(c, dtype=np.int64)

    # ------------------------------------------------------------------
    # The entries a point gives the engines.

    def _entries(self, codes, scores):
        """(engine index, is_pos, score column) of every entry the points give.

        ovr: engine k, positive when the code is k, column k.  ovo: for a point
        of class y and every other class j, engine (y, j) positive on column y
        and engine (j, y) negative on column j.
        """
        c = len(self._classes)
        if self._method == "ovr":
            for k in range(c):
                yield k, codes == k, scores[:, k], slice(None)
            return
        for i in range(c):
            for j in range(c):
                if i != j:
                    rows = (codes == i) | (codes == j)
                    yield i * c + j, codes[rows] == i, scores[rows, i], rows

    def _batch(self, y_true, y_score, sample_weight):
        labels = _as_label_array(y_true)
        codes = _encode_given(labels, self._classes)[1]
        scores = np.ascontiguousarray(_check_score_matrix(y_score, labels.shape[0]))
        if scores.shape[1] != len(self._classes):
            raise ValueError(
                f"y_score has {scores.shape[1]} columns but there are "
                f"{len(self._classes)} classes"
            )
        weights = None if sample_weight is None else check_weights(sample_weight,
                                                                   labels.shape[0])
        return codes, scores, weights

    def add_many(self, y_true, y_score, sample_weight=None):
        """Add a batch of points: O(k c log n) for k points.

        Parameters
        ----------
        y_true : array-like of shape (k,)
            Labels, each one of ``classes``.
        y_score : array-like of shape (k, c)
            Score rows, finite, in the column order of ``classes``.
        sample_weight : array-like of shape (k,), optional
            Weights, finite and >= 0 (default 1).

        Raises
        ------
        ValueError
            If an entry is invalid; nothing is added.
        """
        codes, scores, weights = self._batch(y_true, y_score, sample_weight)
        for engine, is_pos, column, rows in self._entries(codes, scores):
            self._engines[engine].add_many(
                np.ascontiguousarray(is_pos).view(np.uint8), np.ascontiguousarray(column),
                None if weights is None else np.ascontiguousarray(weights[rows]))
        self._count(codes, weights, 1)

    def _count(self, codes, weights, sign):
        c = len(self._classes)
        self._sizes += sign * np.bincount(codes, minlength=c)
        self._mass += sign * np.bincount(codes, weights=weights, minlength=c)
        self._mass[self._sizes == 0] = 0.0  # exactly zero once a class is gone

    def remove_many(self, y_true, y_score, sample_weight=None):
        """Remove a batch of points: O(k c log n).

        Raises
        ------
        KeyError
            If an engine holds no entry for a row (counting repeats) or not its
            weight; nothing is removed.
        ValueError
            If an entry is invalid; nothing is removed.
        """
        codes, scores, weights = self._batch(y_true, y_score, sample_weight)
        entries = []
        for engine, is_pos, column, rows in self._entries(codes, scores):
            entry = (self._engines[engine], np.ascontiguousarray(is_pos).view(np.uint8),
                     np.ascontiguousarray(column),
                     None if weights is None else np.ascontiguousarray(weights[rows]))
            _check_removable(*entry)
            entries.append(entry)
        for engine, is_pos, column, entry_weights in entries:
            engine.remove_many(is_pos, column, entry_weights)
        self._count(codes, weights, -1)

    def _point_entries(self, y_true, y_score):
        """(engine, is_pos, score) of a plain point's entries, or None to take the batch path."""
        try:
            code = self._index.get(y_true)
        except TypeError:
            return None, None
        if code is None:
            return None, None
        row = np.asarray(y_score, dtype=np.float64)
        if row.shape != (len(self._classes),) or not np.isfinite(row).all():
            return None, None
        scores = row.tolist()
        c = len(self._classes)
        if self._method == "ovr":
            return code, [(self._engines[k], k == code, scores[k]) for k in range(c)]
        return code, [entry for j in range(c) if j != code
                      for entry in ((self._engines[code * c + j], True, scores[code]),
                                    (self._engines[j * c + code], False, scores[j]))]

    def add(self, y_true, y_score, weight=1.0):
        """Add one point: O(c log n).  See :meth:`add_many`."""
        weight = check_weight_value(weight)
        code, entries = self._point_entries(y_true, y_score)
        if entries is None:
            # Not the plain case: the batch path validates and names the problem.
            self.add_many([y_true], [y_score], [weight])
            return
        for engine, is_pos, score in entries:
            engine.add(is_pos, score, weight)
        self._sizes[code] += 1
        self._mass[code] += weight

    def remove(self, y_true, y_score, weight=1.0):
        """Remove one point: O(c log n).  See :meth:`remove_many`."""
        weight = check_weight_value(weight)
        code, entries = self._point_entries(y_true, y_score)
        if entries is None or not all(engine.holds(is_pos, score, weight)
                                      for engine, is_pos, score in entries):
            # Not there, or not the plain case: the batch path refuses with the reason.
            self.remove_many([y_true], [y_score], [weight])
            return
        for engine, is_pos, score in entries:
            engine.remove(is_pos, score, weight)
        self._sizes[code] -= 1
        self._mass[code] -= weight
        if self._sizes[code] == 0:
            self._mass[code] = 0.0

    # ------------------------------------------------------------------

    def _values(self):
        c = len(self._classes)
        values = np.array([engine.auc for engine in self._engines])
        if self._method == "ovr":
            return values
        values = values.reshape(c, c)
        np.fill_diagonal(values, np.nan)
        return values

    @property
    def auc(self):
        """The averaged AUC; nan while undefined.  O(c) (ovr) or O(c^2) (ovo)."""
        values = self._values()
        if not all(mass > 0 for mass in self._mass.tolist()):
            return float("nan")
        defined = values if self._method == "ovr" else values[~np.eye(len(self._classes),
                                                                      dtype=bool)]
        if any(value != value for value in defined.tolist()):
            return float("nan")
        return averaged(values, self._method, self._average, self._mass)

    def per_class(self):
        """One-vs-rest: each class's AUC against the rest (nan where undefined)."""
        if self._method != "ovr":
            raise ValueError("per_class() is for method='ovr'; use pairwise() with 'ovo'")
        return self._values()

    def pairwise(self):
        """One-vs-one: the c x c matrix of A(i|j) (nan on the diagonal and where undefined)."""
        if self._method != "ovo":
            raise ValueError("pairwise() is for method='ovo'; use per_class() with 'ovr'")
        return self._values()

    @property
    def classes(self):
        """The class labels, in the column order of the score rows."""
        return list(self._classes)

    @property
    def class_weights(self):
        """Total weight of each class's current points, in the order of ``classes``."""
        return self._mass.copy()

    @property
    def nbytes(self):
        """Bytes held by the engines' buffers."""
        return sum(engine.nbytes for engine in self._engines)

    def __len__(self):
        return int(self._sizes.sum())

    def __repr__(self):
        return (f"DynamicMulticlassAUC(classes={self._classes!r}, method={self._method!r}, "
                f"points={len(self)}, auc={self.auc!r})")

    def _check(self):
        """Every engine's invariants, and the class weights against the engines'."""
        for engine in self._engines:
            engine._check()
        c = len(self._classes)
        for index, engine in enumerate(self._engines):
            i, j = divmod(index, c)
            expected = (self._sizes.sum() if self._method == "ovr"
                        else 0 if i == j else self._sizes[i] + self._sizes[j])
            if engine.n_points != expected:
                raise AssertionError(f"engine {index} holds {engine.n_points} points, "
                                     f"the class sizes say {expected}")
        if self._method == "ovr":
            masses = np.array([engine.weight_pos for engine in self._engines])
        else:
            masses = np.array([self._engines[i * c + (i + 1) % c].weight_pos
                               for i in range(c)])
        if not np.allclose(masses, self._mass, rtol=1e-12, atol=1e-12):
            raise AssertionError(f"class weights {self._mass} != engines' {masses}")
        return True
