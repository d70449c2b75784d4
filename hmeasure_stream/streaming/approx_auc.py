"""AUC within a relative error, from a compressed list: ``ApproxAUC``."""

from __future__ import annotations

from typing import Any, Literal

from numpy.typing import ArrayLike

from hmeasure_stream._engines._approx_auc import ApproxAUCEngine
from hmeasure_stream._validation import (
    Duration,
    Label,
    Window,
    check_unit_weights,
    check_weight_value,
    label_map,
    renamed_attributes,
    renamed_keyword,
)
from hmeasure_stream.metric_table import Compression
from hmeasure_stream.streaming._base import (
    RENAMED_ATTRIBUTES,
    WindowedPointSet,
    check_structure_options,
    checked_batch,
    make_forgetting,
)
from hmeasure_stream.streaming._engine_choice import compressed_engine
from hmeasure_stream.streaming._window_rules import refuse_decay

__all__ = ["ApproxAUC"]


def _unit_weight(weight: float) -> float:
    """1.0, or ValueError: an invalid weight as everywhere, any other valid one refused."""
    if type(weight) is float and weight == 1.0:
        return weight
    if check_weight_value(weight) != 1.0:
        raise ValueError(
            "ApproxAUC takes unit weights only (its compressed list counts points one by "
            f"one), got weight={weight!r}"
        )
    return 1.0


class ApproxAUC(WindowedPointSet):
    """AUC within a relative error compression / 2 of a set of points that changes.

    Keeps the points in a score tree and, over it, a *(1 + compression)-compressed list* of score
    groups, from which it reads an estimate auc' of the exact AUC of the current points (as
    :func:`~hmeasure_stream.auc`) with ``|auc' - auc| <= compression * auc / 2``, or
    ``<= compression * (1 - auc) / 2`` with ``relative_to="1-auc"`` (Prop. 1 and the remark after
    it).  Points of weight 1, refusals, windows and threads as in :class:`DynamicAUC`.

    Parameters
    ----------
    compression : float
        The compression, > 0 (the paper's epsilon; ``epsilon=``: deprecated): the bound above.
        Smaller is more exact and slower.  As :class:`~hmeasure_stream.Compression` checks it.
    relative_to : {"auc", "1-auc"}, default="auc"
        What the error is relative to.  ``"1-auc"`` builds the list over class 1 and estimates
        1 - auc: the tighter bound for good classifiers, whose AUC is near 1.
    window, pos_label, capacity
        As in :class:`DynamicAUC`.
    half_life : None
        Refused unless None: decay weighs the points, and the list counts points one by one.
    seed : int, optional
        Seed of the score tree's random priorities (no value depends on it).

    See Also
    --------
    DynamicAUC : the exact AUC, cheaper still to maintain (see Notes).
    sliding_window : ``metrics="auc_approx"`` over every window of an array.

    Notes
    -----
    An update costs O(log n + log n / compression): the tree, then a walk and compression of the
    list, of at most ``2 log k / log(1 + compression) + 3`` groups for k points of the listed
    class (Prop. 2); reading ``auc`` walks the list once in exact integers.  The exact AUC of
    :class:`DynamicAUC` is cheaper to maintain; the estimate is what the paper compares with
    recomputing each window.  Unit weights only: the list's repair (Lemma 1) needs counts that
    change by one.  N. Tatti, "Efficient
    estimation of AUC in a sliding window", ECML PKDD 2018, Secs. 3-4.

    Examples
    --------
    >>> from hmeasure_stream import ApproxAUC, auc
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8, 0.6, 0.7]
    >>> tracker = ApproxAUC(compression=0.5)
    >>> tracker.add_many(y, s)
    >>> tracker.auc, auc(y, s), tracker.compressed_size
    (0.82, 0.84, 3)
    >>> abs(tracker.auc - auc(y, s)) <= 0.5 * auc(y, s) / 2
    True
    >>> tracker.remove(0, 0.6)
    >>> tracker.auc, auc(y[:8] + y[9:], s[:8] + s[9:])
    (0.925, 0.9)
    """

    __slots__ = ()

    def __init__(self, compression: float | None = None, *,
                 relative_to: Literal["auc", "1-auc"] = "auc", window: Window = None,
                 half_life: Duration | None = None, pos_label: Label = None,
                 capacity: int = 16, seed: int | None = None,
                 epsilon: float | None = None) -> None:
        compression = renamed_keyword("ApproxAUC", "epsilon", "compression", epsilon,
                                      compression)
        if compression is None:
            raise TypeError("ApproxAUC() missing 1 required argument: 'compression'")
        refuse_decay(["auc_approx"], half_life)
        self._labels = label_map(pos_label)
        options = Compression(compression, relative_to)
        self._forgetting = make_forgetting(window, None)
        self._engine: ApproxAUCEngine = compressed_engine(
            options, *check_structure_options(capacity, seed))

    __getattr__ = renamed_attributes(**RENAMED_ATTRIBUTES, epsilon="compression")

    def _checked_batch(self, y_true: ArrayLike, y_score: ArrayLike,
                       sample_weight: ArrayLike | None) -> tuple[Any, Any, None]:
        is_pos, scores, weights = checked_batch(y_true, y_score, sample_weight)
        check_unit_weights(weights, "ApproxAUC")
        return is_pos, scores, None

    def add(self, y_true: Label, y_score: float, weight: float = 1.0, *,
            time: object = None) -> None:
        """Add one point (weight 1 only), as :meth:`DynamicAUC.add`: O(log n + compressed_size)."""
        WindowedPointSet.add(self, y_true, y_score, _unit_weight(weight), time=time)

    def remove(self, y_true: Label, y_score: float, weight: float = 1.0) -> None:
        """Remove one point (weight 1 only), as :meth:`DynamicAUC.remove`: O(log n + m)."""
        WindowedPointSet.remove(self, y_true, y_score, _unit_weight(weight))

    @property
    def auc(self) -> float:
        """The estimate of the AUC (Alg. 4); nan while a class is absent.  O(compressed_size)."""
        return self._engine.auc_approx

    @property
    def compression(self) -> float:
        """The compression: the bound is compression / 2, relative."""
        return self._engine.epsilon

    @property
    def relative_to(self) -> str:
        """``"auc"`` or ``"1-auc"``: what the error bound is relative to."""
        return "1-auc" if self._engine.flip else "auc"

    @property
    def compressed_size(self) -> int:
        """Score groups in the compressed list C, without its two sentinels.  O(1)."""
        return int(self._engine.compressed_entries)

    def __repr__(self) -> str:
        window = "" if self.window is None else f"window={self.window!r}, "
        return (
            f"ApproxAUC(points={len(self)}, {window}compression={self.compression!r}, "
            f"relative_to={self.relative_to!r}, auc={self.auc!r})"
        )
