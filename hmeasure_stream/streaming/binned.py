"""The binned AUC of a changing set of points: ``BinnedAUC``, O(log m) per update."""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._core.binning import TRANSFORMS as _TRANSFORMS
from hmeasure_stream._core.binning import check_strict as _check_strict
from hmeasure_stream._core.binning import edges_of as _edges
from hmeasure_stream._core.binning import estimate_alpha as _estimate_alpha
from hmeasure_stream._core.binning import outside_range as _outside_range
from hmeasure_stream._engines._binning import bin_indices, bin_of_score
from hmeasure_stream._engines._protocol import Status
from hmeasure_stream._engines._ring import PointRing
from hmeasure_stream._validation import (
    Duration,
    FloatArray,
    Label,
    Window,
    label_map,
    label_one,
    labels_many,
    merged_label_map,
    renamed_keyword,
)
from hmeasure_stream.binned import BinnedAUCResult
from hmeasure_stream.metric_table import Binning
from hmeasure_stream.streaming._base import (
    Pickled,
    checked_batch,
    checked_point,
    claimed,
    merge_refusal,
    merge_scale_message,
    out_of_range_message,
)
from hmeasure_stream.streaming._engine_choice import bins_engine
from hmeasure_stream.streaming._window_rules import (
    check_window_counts,
    refuse_decay,
    refuse_duration,
)

if TYPE_CHECKING:
    from hmeasure_stream._engines._bin_tree import BinTree

__all__ = ["BinnedAUC"]


class BinnedAUC(Pickled):
    """Binned AUC, with its error bound, of a set of points that changes one point at a time.

    The same bins, AUC, bound and estimate as :func:`~hmeasure_stream.binned_auc`
    of the current points, kept in a tree over the bins: O(log m) per update
    for m bins, O(1) to read, and exact merges of structures with the same
    bins (per shard, per machine).

    Parameters
    ----------
    n_bins : int
        Number of bins m (>= 1); ``bins=`` is its deprecated spelling.
    transform : {None, "loglog"}, default None
        Linear bins, or Bouckaert's log-log bins (continuous form; see
        :func:`~hmeasure_stream.loglog_transform`).
    loglog_alpha : float, optional
        The log-log transform's alpha.  None: estimated from the first batch
        added, as :func:`~hmeasure_stream.binned_auc` does, and then frozen so
        that every later point is binned with it.
    score_range : (float, float), default (0.0, 1.0)
        The scores' range mapped to [0, 1]; scores added outside it go to the
        end bins (counted in ``n_below`` / ``n_above``) with an
        :class:`~hmeasure_stream.OutOfRangeScoresWarning` saying how many and their span.
    pos_label : hashable, optional
        The label of class 1 (a string, number, bool, ...): the first other
        label added is class 0 from then on and a third one is refused.
        Default: labels 0/1, -1/1 or booleans.
    strict : bool, default False
        Refuse to add scores outside ``score_range`` (ValueError, nothing
        added; a merge of a structure holding such points too) instead of
        warning.
    window : int, optional
        The last ``window`` points added (the older ones leave as new ones
        arrive; ``remove`` and ``merge`` are then refused).  None: every point
        until removed.  A duration is refused: the bins slide over a count.
    half_life : None
        Refused unless None: decay weighs the points, and the bins count unit weights.
    bins : int, optional
        Deprecated name of ``n_bins`` (removed in the next release).

    Attributes
    ----------
    auc : float
        The binned AUC; nan while a class is absent.
    max_error : float
        The bound: the exact AUC of the points lies within ``auc +- max_error``.
    expected_error : float
        Bouckaert's random-walk estimate (a heuristic, not a bound).
    loglog_alpha : float or None
        The frozen alpha (None before the first batch, or for linear bins).

    See Also
    --------
    binned_auc : the same from scratch.
    DynamicAUC : the exact AUC, O(log n) per update.

    Notes
    -----
    O(log m) per update for m bins, O(1) per read, O(m) memory whatever the
    number of points.  Nothing is accumulated, so values after any number
    of updates equal the from-scratch ones (exactly with unit weights).
    The method is that of R. R. Bouckaert, "Efficient AUC learning curve
    calculation", Australasian Joint Conference on Artificial Intelligence
    2006, Sec. 4.

    Examples
    --------
    >>> from hmeasure_stream import BinnedAUC, binned_auc
    >>> tracker = BinnedAUC(4)
    >>> tracker.add_many([0, 0, 1, 1], [0.1, 0.6, 0.55, 0.9])
    >>> tracker.auc, tracker.max_error
    (0.875, 0.125)
    >>> tracker.remove(0, 0.6)
    >>> tracker.auc == binned_auc([0, 1, 1], [0.1, 0.55, 0.9], n_bins=4).auc
    True
    """

    # With a window: the ring of the window's points, which the tree slides over, and
    # the steps (numbers of the points added) of those outside the range, each side.
    __slots__ = ("_added", "_alpha", "_bins", "_labels", "_outside", "_outside_steps",
                 "_range", "_ring", "_strict", "_transform", "_tree")

    def __init__(self, n_bins: int | None = None, *, transform: Literal["loglog"] | None = None,
                 loglog_alpha: float | None = None,
                 score_range: tuple[float, float] = (0.0, 1.0), pos_label: Label = None,
                 strict: bool = False, window: Window = None,
                 half_life: Duration | None = None, bins: int | None = None) -> None:
        n_bins = renamed_keyword("BinnedAUC", "bins", "n_bins", bins, n_bins)
        if n_bins is None:
            raise TypeError("BinnedAUC() missing 1 required argument: 'n_bins'")
        refuse_decay(["auc_binned"], half_life)
        refuse_duration(["auc_binned"], window)
        window = check_window_counts(window)[0]
        self._ring = None if window is None else PointRing(cast("int", window))
        self._added = 0
        self._outside_steps: tuple[deque[int], deque[int]] = (deque(), deque())
        self._labels = label_map(pos_label)
        # The window's options object checks them, as for the metric "auc_binned".
        binning = Binning(n_bins, transform, loglog_alpha, score_range)
        self._bins = binning.n_bins
        self._alpha: float | None = cast("float | None", binning.loglog_alpha)
        self._transform = cast("str | None", binning.transform)
        self._range = binning.score_range
        self._strict = _check_strict(strict)
        self._outside = np.zeros(2, dtype=np.int64)  # points below / above the range
        self._tree: BinTree = bins_engine(binning)

    def _binned(self, y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None
                ) -> tuple[NDArray[np.int64], NDArray[np.uint8], FloatArray, FloatArray | None,
                           NDArray[np.int64], float | None]:
        """(bins, is_pos, scores, weights, points below / above the range, the log-log alpha): a
        batch's alpha is estimated while none is frozen, and frozen only once it is added."""
        is_pos, scores, weights = checked_batch(y_true, y_score, sample_weight)
        alpha = self._alpha
        if self._transform is not None and alpha is None and scores.size:
            # Frozen from the first batch: every later point is binned alike.
            alpha = _estimate_alpha(scores, *self._range)
        lo, hi = self._range
        bins = np.empty(scores.shape[0], dtype=np.int64)
        bin_indices(scores, lo, hi - lo, self._bins, _TRANSFORMS[self._transform],
                    0.0 if alpha is None else alpha, bins)
        outside = np.array([np.count_nonzero(scores < lo), np.count_nonzero(scores > hi)])
        return bins, is_pos, scores, weights, outside, alpha

    def add_many(self, y_true: ArrayLike, y_score: ArrayLike,
                 sample_weight: ArrayLike | None = None) -> None:
        """Add a batch of points: O(k log m).

        ValueError, adding nothing, if an entry is invalid, a weight is
        2**400 times larger or smaller than the first positive weight held, or
        (``strict``) a score lies outside ``score_range``; without ``strict``
        such scores issue an :class:`~hmeasure_stream.OutOfRangeScoresWarning`.
        """
        with claimed(self._tree):  # (the tree, the counts outside the range, alpha, labels)
            y_true, labels = labels_many(self._labels, y_true)
            bins, is_pos, scores, weights, outside, alpha = self._binned(y_true, y_score,
                                                                         sample_weight)
            n_outside = int(outside.sum())
            if self._strict:
                _outside_range(n_outside, scores, self._range, True, "BinnedAUC")
            if self._ring is None:
                refused = self._tree.apply(bins, is_pos, weights, True)
            else:
                refused = self._slide(is_pos, scores, weights, alpha)
            if refused >= 0:
                raise ValueError(out_of_range_message(self._tree, weights, refused,
                                                      "sample_weight"))
            self._outside += outside
            if self._ring is not None:
                self._forget_outside(scores)
            self._alpha = alpha
            self._labels = labels
        _outside_range(n_outside, scores, self._range, False, "BinnedAUC")

    def _slide(self, is_pos: NDArray[np.uint8], scores: FloatArray, weights: FloatArray | None,
               alpha: float | None) -> int:
        """Add a batch to a window: the tree bins each point as ``_binned`` does and removes
        the one it pushes out of the ring.  The index of a weight refused, or -1."""
        lo, hi = self._range
        self._tree.set_binning(lo, hi - lo, _TRANSFORMS[self._transform],
                               0.0 if alpha is None else alpha)
        out = np.empty((scores.shape[0], 1))
        return int(self._tree.slide(self._ring, is_pos, scores, weights, out))

    def _forget_outside(self, scores: FloatArray) -> None:
        """Count the batch's points outside the range and forget those that left the
        window."""
        lo, hi = self._range
        for side, outside in enumerate((scores < lo, scores > hi)):
            steps = self._outside_steps[side]
            steps.extend((self._added + np.flatnonzero(outside)).tolist())
            oldest = self._added + scores.shape[0] - cast("PointRing", self._ring).capacity
            while steps and steps[0] < oldest:
                steps.popleft()
                self._outside[side] -= 1
        self._added += scores.shape[0]

    def _refuse_removal(self) -> None:
        if self._ring is not None:
            raise ValueError("a BinnedAUC with a window forgets its points itself: remove "
                             "is not available (the bins slide over the last points added)")

    def remove_many(self, y_true: ArrayLike, y_score: ArrayLike,
                    sample_weight: ArrayLike | None = None) -> None:
        """Remove a batch of points: O(k log m).

        KeyError if a bin holds fewer points or less weight of a class than
        the batch removes, or the batch removes more points below or above the
        range than were added there; ValueError if an entry is invalid; nothing
        changes.
        """
        self._refuse_removal()
        with claimed(self._tree):
            y_true, labels = labels_many(self._labels, y_true)
            bins, is_pos, _, weights, outside, _ = self._binned(y_true, y_score, sample_weight)
            for side in (0, 1):
                if outside[side] > self._outside[side]:
                    raise KeyError(self._missing_outside(side, int(outside[side])))
            w = np.ones(bins.shape[0]) if weights is None else weights
            for label in (0, 1):
                mask = is_pos == label
                distinct, inverse, needed = np.unique(bins[mask], return_inverse=True,
                                                      return_counts=True)
                removed = np.bincount(inverse, weights=w[mask])
                counts = self._tree.count_buffer[distinct, label]
                for k, b in enumerate(distinct.tolist()):
                    if needed[k] > counts[k] or not self._tree.holds(b, label, removed[k]):
                        raise KeyError(self._missing(b, label, int(needed[k]),
                                                     float(removed[k])))
            failed = self._tree.apply(bins, is_pos, weights, False)
            assert failed < 0  # checked above
            self._outside -= outside
            self._labels = labels

    def _missing_outside(self, side: int, count: int) -> str:
        where = ("below", "n_below") if side == 0 else ("above", "n_above")
        return (f"the points remove {count} point(s) {where[0]} the score range "
                f"{self._range}, but {int(self._outside[side])} were added there "
                f"({where[1]})")

    def _missing(self, bin_index: int, label: int, count: int, weight: float) -> str:
        held = self._tree.class_weights()[bin_index, label]
        return (f"the points remove {count} point(s) of weight {weight!r} with y_true={label} "
                f"from bin {bin_index}, which holds "
                f"{int(self._tree.count_buffer[bin_index, label])} of weight {float(held)!r}")

    def _point(self, y_true: Label, y_score: float, weight: float, adding: bool) -> bool:
        """One point: validated, binned and applied without building arrays."""
        tree = self._tree
        with claimed(tree):  # (the tree, the counts outside the range and the labels together)
            y_true, labels = label_one(self._labels, y_true)
            is_pos, score, weight = checked_point(y_true, y_score, weight)
            if self._transform is not None and self._alpha is None:
                return False  # the alpha is estimated from a batch
            lo, hi = self._range
            side = 0 if score < lo else 1 if score > hi else -1
            if side >= 0 and not adding and self._outside[side] == 0:
                raise KeyError(self._missing_outside(side, 1))
            if side >= 0 and adding and self._strict:
                _outside_range(1, np.array([score]), self._range, True, "BinnedAUC")
            bin_index = bin_of_score(score, lo, hi - lo, self._bins,
                                     _TRANSFORMS[self._transform],
                                     0.0 if self._alpha is None else self._alpha)
            status = tree.point(bin_index, is_pos, weight, adding)
            if status == Status.OUT_OF_RANGE:
                raise ValueError(out_of_range_message(tree, weight, 0, "weight"))
            if status != Status.DONE:
                raise KeyError(self._missing(bin_index, int(is_pos), 1, weight))
            if side >= 0:
                self._outside[side] += 1 if adding else -1
            self._labels = labels
        if side >= 0 and adding:
            _outside_range(1, np.array([score]), self._range, False, "BinnedAUC", stacklevel=4)
        return True

    def add(self, y_true: Label, y_score: float, weight: float = 1.0) -> None:
        """Add one point: O(log m).  See :meth:`add_many`."""
        if self._ring is not None or not self._point(y_true, y_score, weight, True):
            self.add_many([y_true], [y_score], [weight])

    def remove(self, y_true: Label, y_score: float, weight: float = 1.0) -> None:
        """Remove one point: O(log m).  See :meth:`remove_many`."""
        self._refuse_removal()
        if not self._point(y_true, y_score, weight, False):
            self.remove_many([y_true], [y_score], [weight])

    @property
    def pos_label(self) -> Label:
        """The label of class 1 given at construction (None: labels are 0/1 or booleans)."""
        return None if self._labels is None else self._labels.pos

    def merge(self, other: BinnedAUC) -> None:
        """Add another structure's points (the same bins required): O(m).

        ValueError if the bins (number, range, transform, alpha) or the
        labels differ, or this structure is ``strict`` and the other holds
        points outside the score range.
        """
        if not isinstance(other, BinnedAUC):
            raise ValueError(f"can only merge a BinnedAUC, got {type(other).__name__}")
        for owner in (self, other):
            if owner._ring is not None:
                raise ValueError(merge_refusal(owner))
        with claimed(self._tree, other._tree):
            labels = merged_label_map(self._labels, other._labels)
            alpha = self._alpha
            if alpha is None and other._alpha is not None and len(self) == 0:
                alpha = other._alpha
            mine = (self._bins, self._range, self._transform, alpha)
            theirs = (other._bins, other._range, other._transform, other._alpha)
            if mine != theirs and len(other):
                raise ValueError(
                    f"cannot merge different bins: (bins, score_range, transform, "
                    f"loglog_alpha) {mine} and {theirs}"
                )
            if self._strict and other._outside.any():
                raise ValueError(
                    f"BinnedAUC: the other structure holds {int(other._outside.sum())} "
                    f"point(s) outside score_range {self._range}, and strict=True refuses "
                    "them")
            if not self._tree.add_counts(other._tree):
                raise ValueError(merge_scale_message(self._tree.scale, other._tree.scale))
            self._outside += other._outside
            self._alpha = alpha
            self._labels = labels

    @property
    def auc(self) -> float:
        """The binned AUC; nan while a class is absent.  O(1)."""
        neg, pos, twice_area, _, _ = self._tree.root()
        if not (neg > 0 and pos > 0):
            return float("nan")
        return float(twice_area / (2.0 * neg * pos))

    @property
    def max_error(self) -> float:
        """Bound on the binned AUC's distance to the exact one; nan if a class is absent."""
        neg, pos, _, ties, _ = self._tree.root()
        if not (neg > 0 and pos > 0):
            return float("nan")
        return float(ties / (2.0 * neg * pos))

    @property
    def expected_error(self) -> float:
        """Bouckaert's random-walk estimate of the error; nan while a class is absent."""
        neg, pos, _, _, walk = self._tree.root()
        if not (neg > 0 and pos > 0):
            return float("nan")
        total = neg + pos
        return float(walk / (3.0 * total * np.sqrt(total)))

    @property
    def window(self) -> int | None:
        """The number of points the window keeps (None: every point until removed)."""
        return None if self._ring is None else int(self._ring.capacity)

    @property
    def loglog_alpha(self) -> float | None:
        """The log-log transform's frozen alpha (None: linear bins, or no batch seen yet)."""
        return self._alpha

    def result(self) -> BinnedAUCResult:
        """The state as :func:`~hmeasure_stream.binned_auc` returns it: O(m).

        Raises ValueError while a class is absent.
        """
        weights = self._tree.class_weights()
        counts = self._tree.count_buffer
        unit = bool(np.all(weights == counts))
        neg, pos = (counts[:, 0].copy(), counts[:, 1].copy()) if unit else \
            (weights[:, 0].copy(), weights[:, 1].copy())
        if not (neg.sum() > 0 and pos.sum() > 0):
            raise ValueError("the binned AUC is undefined while a class is absent")
        for array in (neg, pos):
            array.setflags(write=False)
        edges = _edges(self._bins, *self._range, self._transform, self._alpha)
        edges.setflags(write=False)
        return BinnedAUCResult(auc=self.auc, max_error=self.max_error,
                               expected_error=self.expected_error, edges=edges,
                               counts_neg=neg, counts_pos=pos, n_below=int(self._outside[0]),
                               n_above=int(self._outside[1]), transform=self._transform,
                               loglog_alpha=self._alpha)

    @property
    def nbytes(self) -> int:
        """Bytes held by the tree's buffers (O(m), whatever the number of points)."""
        return self._tree.nbytes

    def __len__(self) -> int:
        return int(self._tree.n_points)

    def __repr__(self) -> str:
        return f"BinnedAUC(n_bins={self._bins}, points={len(self)}, auc={self.auc!r})"

    def _check(self) -> None:
        """The tree's invariants (reads only)."""
        if np.any(self._outside < 0) or self._outside.sum() > len(self):
            raise AssertionError(f"points outside the range {self._outside} out of {len(self)}")
        if self._ring is not None:
            scores = self._ring.points()[1]
            lo, hi = self._range
            held = [int(np.count_nonzero(scores < lo)), int(np.count_nonzero(scores > hi))]
            if (self._ring.size != len(self) or held != self._outside.tolist()
                    or held != [len(steps) for steps in self._outside_steps]):
                raise AssertionError(f"the window's {self._ring.size} points, {held} outside "
                                     f"the range, and the tree's {len(self)}, "
                                     f"{self._outside.tolist()} differ")
        self._tree._check()

