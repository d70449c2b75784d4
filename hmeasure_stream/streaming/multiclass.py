"""Multi-class AUC of a changing set of points: ``DynamicMulticlassAUC``.

One-vs-rest keeps one exact binary AUC engine per class; Hand and Till's
one-vs-one keeps one per ordered pair of classes, over the points of those
two classes.  Every engine of ``DynamicMulticlassAUC`` is a blocked exact
binary engine (``BlockedAUCEngine``: sorted blocks of scores, the engine of
:class:`DynamicAUC`), so each binary AUC is exact and a
point costs O(c log n) for c classes; a single point enters all its engines in
one compiled all-or-nothing call.  The window engine ``MulticlassWindow`` has
the same blocked engines.
"""

from __future__ import annotations

import math
import pickle
from collections.abc import Iterator, Sequence
from typing import Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._core.classes import AVERAGES as _AVERAGES
from hmeasure_stream._core.classes import METHODS as _METHODS
from hmeasure_stream._core.classes import as_label_array as _as_label_array
from hmeasure_stream._core.classes import averaged
from hmeasure_stream._core.classes import check_score_matrix as _check_score_matrix
from hmeasure_stream._core.classes import encode_given as _encode_given
from hmeasure_stream._engines._blocked import BlockedAUCEngine, update_row
from hmeasure_stream._engines._protocol import Status
from hmeasure_stream._engines._ring import ClassRing, PointRing
from hmeasure_stream._validation import (
    Duration,
    FloatArray,
    Label,
    Window,
    check_option,
    check_weight_value,
    check_weights,
)
from hmeasure_stream.streaming._base import (
    Pickled,
    _check_removable,
    check_capacity,
    check_forgetting,
    claimed,
    forgetting_times,
    make_forgetting,
    merge_scale_message,
    out_of_range_message,
    points_batch,
)
from hmeasure_stream.streaming._window_rules import half_life_of, window_of

__all__ = ["DynamicMulticlassAUC", "MulticlassWindow"]


#: Class codes: each point's class as its index in ``classes``.
_Codes = NDArray[np.intp]


class DynamicMulticlassAUC(Pickled):
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
    window : int, str, datetime.timedelta or numpy.timedelta64, optional
        The last ``window`` points (an int), or those whose time is in (t - window, t], t
        the newest (a duration: :meth:`add_many` then needs ``times``), as for
        :class:`DynamicAUC`.  None: every point until removed.  One-vs-rest only.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        Exponential decay as for :class:`DynamicAUC`: a point of age a (in points or time)
        weighs 2^(-a / half_life) times its weight, and leaves after 60 half-lives.
        Combines with ``window``.  One-vs-rest only.

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
    O(c log n) per point for c classes (c binary engines for one-vs-rest,
    c (c - 1) for one-vs-one, a point entering 2 (c - 1) of them); reading
    ``auc`` O(c) or O(c^2).  The binary AUCs are exact, the average a float
    mean.  ``remove`` takes the row as added (KeyError, nothing changed,
    when an engine has no such entry).  With ``window`` or ``half_life``
    each class engine forgets through its own ``Forgetting``, as
    :class:`DynamicAUC`'s engine; ``remove`` and ``merge`` are then refused
    (the points leave by age).  The averages are those of T.
    Fawcett, "An introduction to ROC analysis", Pattern Recognition Letters
    27, 2006, and D. J. Hand and R. J. Till, "A simple generalisation of the
    area under the ROC curve for multiple class classification problems",
    Machine Learning 45, 2001.

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

    # ``_forgettings``: None, or with a window or decay one ``Forgetting`` per class engine
    # (every point enters every engine, so they forget alike; the class weights are then
    # read from the engines).
    __slots__ = ("_average", "_classes", "_engines", "_forgettings", "_index", "_mass",
                 "_method", "_sizes")

    def __init__(self, classes: Sequence[Label], *, method: Literal["ovr", "ovo"] = "ovr",
                 average: Literal["macro", "weighted"] = "macro", capacity: int = 16,
                 window: Window = None, half_life: Duration | None = None) -> None:
        check_option(method, "method", _METHODS)
        check_option(average, "average", tuple(a for a in _AVERAGES if a is not None))
        classes, _ = _encode_given(np.empty(0), classes)
        if len(classes) < 2:
            raise ValueError(f"classes must name at least 2 classes, got {classes!r}")
        capacity = check_capacity(capacity)
        self._classes = classes
        self._index = {label: k for k, label in enumerate(classes)}
        self._method = method
        self._average = average
        c = len(classes)
        pairs = c if method == "ovr" else c * c
        forgetting = make_forgetting(window, half_life)  # (checks both)
        if forgetting is not None and method == "ovo":
            raise ValueError(
                "window= and half_life= are for method='ovr': a pair's engine holds the "
                "points of its two classes only, so it cannot forget by the age of every "
                "point")
        self._engines = [BlockedAUCEngine(capacity) for _ in range(pairs)]
        self._forgettings = (None if forgetting is None else
                             [forgetting, *(make_forgetting(window, half_life)
                                            for _ in range(pairs - 1))])
        self._mass = np.zeros(c)
        self._sizes = np.zeros(c, dtype=np.int64)

    # ------------------------------------------------------------------
    # The entries a point gives the engines.

    def _entries(self, codes: _Codes, scores: FloatArray
                 ) -> Iterator[tuple[int, NDArray[np.bool_], FloatArray, Any]]:
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

    def _batch(self, y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None
               ) -> tuple[_Codes, FloatArray, FloatArray | None]:
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

    def add_many(self, y_true: ArrayLike, y_score: ArrayLike,
                 sample_weight: ArrayLike | None = None, *,
                 times: ArrayLike | None = None) -> None:
        """Add a batch of points: O(k c log n) for k points.

        ``y_true`` of shape (k,), each one of ``classes``; ``y_score`` of
        shape (k, c), finite, in the column order of ``classes``;
        ``sample_weight`` finite, >= 0 (default 1); ``times`` as
        :meth:`DynamicAUC.add_many` takes them (required with a duration).
        ValueError if an entry is invalid; nothing is added.  The points
        that leave the window or pass the drop age leave.
        """
        codes, scores, weights = self._batch(y_true, y_score, sample_weight)
        with claimed(*self._engines):  # every engine's batch, or none
            _check_scale(self._engines, self._method, codes, weights)
            if self._forgettings is not None:
                self._forget_add(codes, scores, weights, times)
                return
            forgetting_times(None, times, codes.shape[0])  # (checked, not kept)
            for engine, is_pos, column, rows in self._entries(codes, scores):
                refused = self._engines[engine].add_many(
                    np.ascontiguousarray(is_pos).view(np.uint8), np.ascontiguousarray(column),
                    None if weights is None else np.ascontiguousarray(weights[rows]))
                assert refused < 0  # (checked above)
            self._count(codes, weights, 1)

    def _forget_add(self, codes: _Codes, scores: FloatArray, weights: FloatArray | None,
                    times: ArrayLike | None) -> None:
        """A checked batch into every class engine through its ``Forgetting``."""
        forgettings = cast("list[Any]", self._forgettings)
        times = forgetting_times(forgettings[0], times, codes.shape[0])
        for (engine, is_pos, column, _), forgetting in zip(
                self._entries(codes, scores), forgettings, strict=True):
            refused = self._engines[engine].forget_add_many(
                forgetting, np.ascontiguousarray(is_pos).view(np.uint8),
                np.ascontiguousarray(column), weights, times)
            assert refused < 0  # (checked by the caller)

    def _refuse_forgetting(self, operation: str) -> None:
        if self._forgettings is not None:
            raise ValueError(
                f"{operation} is not available with a window or half-life: its points have "
                "ages and leave by themselves")

    def _class_mass(self) -> FloatArray:
        """Each class's weight (with decay: relative to the newest point)."""
        if self._forgettings is None:
            return self._mass
        return np.array([engine.weight_pos / forgetting.newest_factor()
                         for engine, forgetting in zip(self._engines, self._forgettings,
                                                       strict=True)])

    def _count(self, codes: _Codes, weights: FloatArray | None, sign: int) -> None:
        c = len(self._classes)
        self._sizes += sign * np.bincount(codes, minlength=c)
        self._mass += sign * np.bincount(codes, weights=weights, minlength=c)
        self._mass[self._sizes == 0] = 0.0  # exactly zero once a class is gone

    def remove_many(self, y_true: ArrayLike, y_score: ArrayLike,
                    sample_weight: ArrayLike | None = None) -> None:
        """Remove a batch of points (as added): O(k c log n).

        KeyError if an engine holds no entry for a row (counting repeats) or
        not its weight, ValueError if an entry is invalid or the structure has
        a window or half-life; nothing changes.
        """
        self._refuse_forgetting("remove_many")
        codes, scores, weights = self._batch(y_true, y_score, sample_weight)
        with claimed(*self._engines):  # every check, then every removal
            entries = []
            for index, in_class, column, rows in self._entries(codes, scores):
                entry = (self._engines[index], np.ascontiguousarray(in_class).view(np.uint8),
                         np.ascontiguousarray(column),
                         None if weights is None else np.ascontiguousarray(weights[rows]))
                _check_removable(*entry)
                entries.append(entry)
            for engine, is_pos, column, entry_weights in entries:
                engine.remove_many(is_pos, column, entry_weights)
            self._count(codes, weights, -1)

    def _plain_row(self, y_true: Label, y_score: Any
                   ) -> tuple[int, list[float]] | tuple[None, None]:
        """(class code, list of c finite float scores) of a plain point, or (None, None) to
        take the batch path (which validates and names the problem)."""
        try:
            code = self._index.get(y_true)
        except TypeError:
            return None, None
        if code is None:
            return None, None
        c = len(self._classes)
        kind = type(y_score)
        if (kind is list or kind is tuple) and len(y_score) == c and all(
                type(score) is float for score in y_score):
            scores = list(y_score)
        elif kind is np.ndarray and y_score.shape == (c,) and y_score.dtype.kind == "f":
            scores = y_score.tolist()
        else:
            row = np.asarray(y_score, dtype=np.float64)
            if row.shape != (c,):
                return None, None
            scores = row.tolist()
        if not all(map(math.isfinite, scores)):
            return None, None
        return code, scores

    def add(self, y_true: Label, y_score: ArrayLike, weight: float = 1.0, *,
            time: object = None) -> None:
        """Add one point: O(c log n).  See :meth:`add_many`."""
        if self._forgettings is not None or time is not None:
            # (one row of scores and its time, as add_many's lists of them)
            self.add_many([y_true], cast("Any", [y_score]), [weight],
                          times=None if time is None else cast("Any", [time]))
            return
        self._point(y_true, y_score, weight, True)

    def remove(self, y_true: Label, y_score: ArrayLike, weight: float = 1.0) -> None:
        """Remove one point: O(c log n).  See :meth:`remove_many`."""
        self._refuse_forgetting("remove")
        self._point(y_true, y_score, weight, False)

    def _point(self, y_true: Label, y_score: Any, weight: float, adding: bool) -> None:
        """One point in or out of every engine of its class, all or nothing."""
        weight = check_weight_value(weight)
        code, scores = self._plain_row(y_true, y_score)
        engines = self._engines
        with claimed(*engines):  # (the engines and the class sizes together)
            # All entries checked, then all applied, in one compiled call.
            if code is None or scores is None or update_row(engines, code, scores, weight, adding,
                                            self._method == "ovo") != Status.DONE:
                # Not the plain case, or refused: the batch path validates and names the
                # problem (or, for a removal, the point that is not there).
                batch = self.add_many if adding else self.remove_many
                batch([y_true], [y_score], [weight])
                return
            self._sizes[code] += 1 if adding else -1
            self._mass[code] += weight if adding else -weight
            if self._sizes[code] == 0:
                self._mass[code] = 0.0

    def merge(self, other: DynamicMulticlassAUC) -> None:
        """Add the points of another structure over the same ``classes`` and ``method``.

        ``other`` is not changed (its ``average`` may differ).  O(m c log(n +
        m)), m the smaller size; exact.  ValueError, changing nothing, if
        ``other`` is not a DynamicMulticlassAUC or its classes or method
        differ.
        """
        if not isinstance(other, DynamicMulticlassAUC):
            raise ValueError(
                f"merge takes a DynamicMulticlassAUC, got {type(other).__name__}"
            )
        self._refuse_forgetting("merge")
        other._refuse_forgetting("merge")
        if other._classes != self._classes or [type(k) for k in other._classes] != [
                type(k) for k in self._classes]:
            raise ValueError(
                f"cannot merge a DynamicMulticlassAUC over classes {other._classes!r} into one "
                f"over {self._classes!r}: the classes (in column order) must be the same"
            )
        if other._method != self._method:
            raise ValueError(
                f"cannot merge a DynamicMulticlassAUC with method={other._method!r} into one "
                f"with method={self._method!r}"
            )
        with claimed(*self._engines, *other._engines):
            larger, smaller = (other, self) if len(other) > len(self) else (self, other)
            batches = [points_batch(engine) for engine in smaller._engines]
            for engine, (_, scores, weights) in zip(larger._engines, batches, strict=True):
                # (Unit weights too: the other side may hold weights of another scale.)
                if engine.stored_weights(weights, scores.shape[0], True)[1] >= 0:
                    raise ValueError(merge_scale_message(self._engines[0].scale,
                                                         other._engines[0].scale))
            engines = self._engines
            if larger is other:
                engines = [pickle.loads(pickle.dumps(engine)) for engine in other._engines]
            with claimed(*engines):  # (engines taken over are claimed before they are seen)
                for engine, batch in zip(engines, batches, strict=True):
                    refused = engine.add_many(*batch)
                    assert refused < 0  # (checked above)
                self._engines = engines
                self._sizes = self._sizes + other._sizes
                self._mass = self._mass + other._mass

    # ------------------------------------------------------------------

    def _values(self) -> FloatArray:
        c = len(self._classes)
        values = np.array([engine.auc for engine in self._engines])
        if self._method == "ovr":
            return values
        values = values.reshape(c, c)
        np.fill_diagonal(values, np.nan)
        return values

    @property
    def auc(self) -> float:
        """The averaged AUC; nan while undefined.  O(c) (ovr) or O(c^2) (ovo)."""
        if self._method == "ovr":
            # Without numpy for c scalars: the same terms and sums as ``averaged``.
            ovr = [engine.auc for engine in self._engines]
            mass = self._class_mass()
            if not all(weight > 0 for weight in mass.tolist()) or any(
                    value != value for value in ovr):
                return float("nan")
            return float(averaged(ovr, self._method, self._average, mass))
        values = self._values()
        if not all(mass > 0 for mass in self._mass.tolist()):
            return float("nan")
        defined = values[~np.eye(len(self._classes), dtype=bool)]  # (ovo: off the diagonal)
        if any(value != value for value in defined.tolist()):
            return float("nan")
        return float(averaged(values, self._method, self._average, self._mass))

    def per_class(self) -> FloatArray:
        """One-vs-rest: each class's AUC against the rest (nan where undefined)."""
        if self._method != "ovr":
            raise ValueError("per_class() is for method='ovr'; use pairwise() with 'ovo'")
        return self._values()

    def pairwise(self) -> FloatArray:
        """One-vs-one: the c x c matrix of A(i|j) (nan on the diagonal and where undefined)."""
        if self._method != "ovo":
            raise ValueError("pairwise() is for method='ovo'; use per_class() with 'ovr'")
        return self._values()

    @property
    def classes(self) -> list[Label]:
        """The class labels, in the column order of the score rows."""
        return list(self._classes)

    @property
    def class_weights(self) -> FloatArray:
        """Total weight of each class's current points, in the order of ``classes`` (with
        decay: decayed, relative to the newest point)."""
        return cast(FloatArray, self._class_mass().copy())

    @property
    def window(self) -> Window:
        """The window: a number of points, a duration (``numpy.timedelta64``), or None."""
        forgetting = self._forgettings[0] if self._forgettings else None
        return cast("Window", window_of(forgetting))

    @property
    def half_life(self) -> Duration | None:
        """The half-life: a number of points, a duration (``numpy.timedelta64``), or None."""
        forgetting = self._forgettings[0] if self._forgettings else None
        return cast("Duration | None", half_life_of(forgetting))

    @property
    def nbytes(self) -> int:
        """Bytes held by the engines' buffers."""
        return sum(engine.nbytes for engine in self._engines)

    def __len__(self) -> int:
        if self._forgettings is not None:
            return int(self._engines[0].n_points)
        return int(self._sizes.sum())

    def __repr__(self) -> str:
        return (f"DynamicMulticlassAUC(classes={self._classes!r}, method={self._method!r}, "
                f"points={len(self)}, auc={self.auc!r})")

    def _check_pickle(self) -> None:
        """On load: one engine per class or ordered pair, each holding the points the
        class sizes say (with a window or decay: the points of its ``Forgetting``)."""
        if self._forgettings is not None:
            self._check_forgettings()
            return
        _check_engine_sizes(self._engines, self._method, self._sizes)

    def _check_forgettings(self) -> None:
        forgettings = cast("list[Any]", self._forgettings)
        if len(forgettings) != len(self._engines):
            raise AssertionError(f"{len(forgettings)} windows for {len(self._engines)} engines")
        for engine, forgetting in zip(self._engines, forgettings, strict=True):
            check_forgetting(engine, forgetting)
            if engine.n_points != self._engines[0].n_points:
                raise AssertionError("the class engines hold different numbers of points")

    def _check(self) -> bool:
        """Every engine's invariants, and the class weights against the engines'."""
        for engine in self._engines:
            engine._check()
        if self._forgettings is not None:
            self._check_forgettings()
            return True
        _check_engine_sizes(self._engines, self._method, self._sizes)
        c = len(self._classes)
        if self._method == "ovr":
            masses = np.array([engine.weight_pos for engine in self._engines])
        else:
            masses = np.array([self._engines[i * c + (i + 1) % c].weight_pos
                               for i in range(c)])
        if not np.allclose(masses, self._mass, rtol=1e-12, atol=1e-12):
            raise AssertionError(f"class weights {self._mass} != engines' {masses}")
        return True


class MulticlassWindow(Pickled):
    """The window engine of the metric ``"multiclass_auc"`` of :class:`SlidingWindow`.

    One-vs-rest: class k's exact binary engine follows the window in its own
    compiled loop (its own ring of the points' column k), one call per class
    and chunk.  One-vs-one: the pair engines of :class:`DynamicMulticlassAUC`,
    each point added to and the leaving one removed from the 2 (c - 1) engines
    of its class, in a Python loop over the chunk.  The window's labels and
    weights are kept (and, for one-vs-one, its score rows) in a ``ClassRing``
    to know which point leaves and the class weights of each window.

    The class weights of each window are exact integers with unit weights;
    with weights they are kept incrementally and recomputed from the window's
    points at the end of a chunk once max(w, 1024) steps have passed since
    the last recomputation, so they do not drift.
    """

    #: The engine keeps its own window (SlidingWindow gives it no PointRing).
    own_window = True
    columns = ("multiclass_auc",)

    def value(self, name: str) -> float:
        """The current value of the column ``name`` of ``columns``."""
        return float(getattr(self, name))

    __slots__ = ("_average", "_classes", "_counts", "_engines", "_mass", "_method", "_ring",
                 "_rings", "_since_exact", "_window")

    def __init__(self, window: int | None, classes: Sequence[Label] | None, method: str,
                 average: str, capacity: int) -> None:
        # ``method`` and ``average`` come checked from the metric table's Classes.
        classes, _ = _encode_given(np.empty(0), classes)
        if len(classes) < 2:
            raise ValueError(f"classes must name at least 2 classes, got {classes!r}")
        c = len(classes)
        self._classes = classes
        self._method = method
        self._average = average
        self._window = window
        pairs = c if method == "ovr" else c * c
        self._engines = [BlockedAUCEngine(capacity) for _ in range(pairs)]
        self._rings = ([PointRing(0 if window is None else window) for _ in range(c)]
                       if method == "ovr" else None)
        self._ring = (None if window is None
                      else ClassRing(window, c if method == "ovo" else 0))
        self._counts = np.zeros(c, dtype=np.int64)
        self._mass = np.zeros(c)
        self._since_exact = 0

    def checked(self, y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None,
                allow_empty: bool = True) -> tuple[_Codes, FloatArray, FloatArray | None]:
        """A validated chunk: (codes, Fortran (k, c) scores, weights or None)."""
        if allow_empty and _is_empty(y_true):
            if not _is_empty(y_score) or not (sample_weight is None
                                              or _is_empty(sample_weight)):
                raise ValueError("y_true is empty but y_score or sample_weight is not")
            return (np.empty(0, dtype=np.intp), np.empty((0, len(self._classes)), order="F"),
                    None)
        labels = _as_label_array(y_true)
        codes = _encode_given(labels, self._classes)[1]
        scores = _check_score_matrix(y_score, labels.shape[0])
        if scores.shape[1] != len(self._classes):
            raise ValueError(
                f"y_score has {scores.shape[1]} columns but classes names "
                f"{len(self._classes)} classes"
            )
        weights = None if sample_weight is None else check_weights(sample_weight,
                                                                   labels.shape[0])
        return codes, scores, weights

    def slide(self, codes: _Codes, scores: FloatArray, weights: FloatArray | None
              ) -> FloatArray:
        """Feed a checked chunk; the averaged AUC of the window after each of its points."""
        with claimed(*self._engines):  # the engines, the rings and the class counts together
            _check_scale(self._engines, self._method, codes, weights)
            return self._slide(codes, scores, weights)

    def _slide(self, codes: _Codes, scores: FloatArray, weights: FloatArray | None
               ) -> FloatArray:
        n, c = codes.shape[0], len(self._classes)
        unit_weights = np.ones(n)
        point_weights = unit_weights if weights is None else weights
        if self._ring is None:
            left_codes, left_weights = np.empty(0, dtype=np.intp), np.empty(0)
            left_rows = None
        else:
            left_codes, left_weights, left_rows = self._ring.push(
                codes, point_weights, np.ascontiguousarray(scores) if self._method == "ovo"
                else None)
        if self._method == "ovr":
            rings = cast("list[PointRing]", self._rings)
            values = np.empty((n, c))
            out = np.empty((n, 1))
            for k in range(c):
                self._engines[k].slide(rings[k], (codes == k).view(np.uint8),
                                       np.ascontiguousarray(scores[:, k]),
                                       None if weights is None else weights, out)
                values[:, k] = out[:, 0]
        else:
            values = self._slide_pairs(codes, scores, point_weights, left_codes, left_weights,
                                       left_rows)
        masses = self._masses(codes, point_weights, left_codes, left_weights, weights is None)
        return self._averages(values, masses)

    def _slide_pairs(self, codes: _Codes, scores: FloatArray, weights: FloatArray,
                     left_codes: _Codes, left_weights: FloatArray,
                     left_rows: FloatArray | None) -> FloatArray:
        """One-vs-one: the c x c values of A(i|j) after each point (flattened rows)."""
        n, c = codes.shape[0], len(self._classes)
        engines = self._engines
        current = np.array([engine.auc for engine in engines])
        values = np.empty((n, c * c))
        first_left = n - left_codes.shape[0]
        rows = scores.tolist()
        code_list, weight_list = codes.tolist(), weights.tolist()
        left_row_list = [] if left_rows is None else left_rows.tolist()
        left_code_list, left_weight_list = left_codes.tolist(), left_weights.tolist()
        others = [[j for j in range(c) if j != y] for y in range(c)]
        for t in range(n):
            y, row, weight = code_list[t], rows[t], weight_list[t]
            for j in others[y]:
                engines[y * c + j].add(True, row[y], weight)
                engines[j * c + y].add(False, row[j], weight)
            touched = [y]
            if t >= first_left:
                k = t - first_left
                x, old, old_weight = left_code_list[k], left_row_list[k], left_weight_list[k]
                for j in others[x]:
                    _removed(engines[x * c + j].remove(True, old[x], old_weight))
                    _removed(engines[j * c + x].remove(False, old[j], old_weight))
                touched.append(x)
            for x in touched:
                for j in others[x]:
                    current[x * c + j] = engines[x * c + j].auc
                    current[j * c + x] = engines[j * c + x].auc
            values[t] = current
        return values

    def _masses(self, codes: _Codes, weights: FloatArray, left_codes: _Codes,
                left_weights: FloatArray, unit: bool) -> FloatArray:
        """Each class's count (and weight) in the window after each point: (n, c) arrays."""
        n, c = codes.shape[0], len(self._classes)
        steps = np.zeros((n, c))
        counts = np.zeros((n, c), dtype=np.int64)
        counts[np.arange(n), codes] = 1
        first_left = n - left_codes.shape[0]
        counts[np.arange(first_left, n), left_codes] -= 1
        counts = self._counts + np.cumsum(counts, axis=0)
        if unit:
            masses = counts.astype(np.float64)
        else:
            np.add.at(steps, (np.arange(n), codes), weights)
            np.subtract.at(steps, (np.arange(first_left, n), left_codes), left_weights)
            masses = self._mass + np.cumsum(steps, axis=0)
            masses[counts == 0] = 0.0
        if n:
            self._counts = counts[-1].copy()
            self._mass = masses[-1].copy()
            self._since_exact += n
            if not unit and self._ring is not None and self._since_exact >= max(
                    self._ring.capacity, 1024):
                held_codes, held_weights, _ = self._ring.points()
                self._mass = np.asarray(np.bincount(held_codes, weights=held_weights,
                                                    minlength=c), dtype=np.float64)
                self._since_exact = 0
        return masses

    def _averages(self, values: FloatArray, masses: FloatArray) -> FloatArray:
        """The macro or weighted average of each step's values; nan while a class is absent."""
        n, c = masses.shape
        if self._method == "ovo":
            upper = np.triu_indices(c, 1)
            cube = values.reshape(n, c, c)
            terms = (cube[:, upper[0], upper[1]] + cube[:, upper[1], upper[0]]) / 2
            weights = masses[:, upper[0]] + masses[:, upper[1]]
        else:
            terms, weights = values, masses
        undefined = np.isnan(terms).any(axis=1) | ~(masses > 0).all(axis=1)
        if self._average == "macro":
            result = terms.mean(axis=1)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                result = (terms * weights).sum(axis=1) / weights.sum(axis=1)
        result[undefined] = np.nan
        return cast(FloatArray, result)

    @property
    def multiclass_auc(self) -> float:
        """The averaged AUC of the current window; nan while a class is absent."""
        c = len(self._classes)
        values = np.array([engine.auc for engine in self._engines])[None, :]
        if self._method == "ovo":
            values = values.reshape(1, c * c)
        return float(self._averages(values, self._mass[None, :])[0])

    @property
    def classes(self) -> list[Label]:
        return list(self._classes)

    @property
    def n_points(self) -> int:
        return int(self._counts.sum())

    @property
    def nbytes(self) -> int:
        held = sum(engine.nbytes for engine in self._engines)
        if self._rings is not None:
            held += sum(buffer.nbytes for ring in self._rings
                        for buffer in (ring.is_pos_buffer, ring.score_buffer,
                                       ring.weight_buffer))
        return held + (0 if self._ring is None else self._ring.nbytes)

    def _check_pickle(self) -> None:
        """On load: one engine per class or ordered pair, each holding the points the
        class counts say."""
        _check_engine_sizes(self._engines, self._method, self._counts)

    def _check(self) -> bool:
        """The engines' invariants, and the class counts against the engines and the ring."""
        c = len(self._classes)
        for engine in self._engines:
            engine._check()
        _check_engine_sizes(self._engines, self._method, self._counts)
        if self._method == "ovr":
            held = [int(engine.items()[4].sum()) for engine in self._engines]
            if held != self._counts.tolist():
                raise AssertionError(f"class counts {self._counts} != engines' {held}")
            if self._window is not None:
                for ring in self._rings or []:
                    if ring.size != self._counts.sum():
                        raise AssertionError(f"a ring holds {ring.size} points")
        if self._ring is not None:
            self._ring._check()
            codes, weights, _ = self._ring.points()
            counts = np.bincount(codes, minlength=c)
            if counts.tolist() != self._counts.tolist():
                raise AssertionError(f"ring's class counts {counts} != {self._counts}")
            if not np.allclose(np.bincount(codes, weights=weights, minlength=c), self._mass,
                               rtol=1e-9, atol=1e-12):
                raise AssertionError(f"ring's class weights differ from {self._mass}")
        return True


def _check_engine_sizes(engines: Sequence[Any], method: str, sizes: NDArray[np.int64]) -> None:
    """AssertionError unless there is one engine per class (ovr) or per ordered pair of
    classes (ovo) and each holds the points of its classes (``sizes``, per class)."""
    c = len(sizes)
    if len(engines) != (c if method == "ovr" else c * c):
        raise AssertionError(f"{len(engines)} engines for {c} classes ({method})")
    for index, engine in enumerate(engines):
        i, j = divmod(index, c)
        expected = (sizes.sum() if method == "ovr"
                    else 0 if i == j else sizes[i] + sizes[j])
        if engine.n_points != expected:
            raise AssertionError(f"engine {index} holds {engine.n_points} points, "
                                 f"the class sizes say {expected}")


def _check_scale(engines: Sequence[Any], method: str, codes: _Codes,
                 weights: FloatArray | None) -> None:
    """Refuse (ValueError) a weight an engine cannot store next to those it holds (unit
    weights too: the engines may hold weights of another scale), before any changes."""
    if method == "ovr":
        # Every point enters every engine: one answers for all.
        checks = [(engines[0], np.arange(codes.shape[0]))]
    else:
        c = math.isqrt(len(engines))
        checks = [(engines[i * c + j], np.flatnonzero((codes == i) | (codes == j)))
                  for i in range(c) for j in range(c) if i != j]
    for engine, positions in checks:
        if positions.size:
            part = None if weights is None else np.ascontiguousarray(weights[positions])
            refused = engine.stored_weights(part, positions.shape[0], True)[1]
            if refused >= 0:
                raise ValueError(out_of_range_message(engine, weights, positions[refused],
                                                      "sample_weight"))


def _is_empty(values: Any) -> bool:
    try:
        return len(values) == 0
    except TypeError:
        return False


def _removed(status: int) -> None:
    if status:
        raise AssertionError(f"a window's point was not in its engine (status {status})")
