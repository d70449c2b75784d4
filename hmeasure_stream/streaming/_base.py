"""What every streaming structure shares: batch validation, refusals, the point-set protocol.

The structures keep their points in a compiled engine (``_engines``) and
only validate, translate refusals into exceptions and document here.
"""

import pickle

import numpy as np

from hmeasure_stream._engines._pool import MAX_CAPACITY
from hmeasure_stream._engines._scratch import upper_hull
from hmeasure_stream._engines._treap import Status
from hmeasure_stream._validation import (
    check_label_value,
    check_labels,
    check_same_length,
    check_score_value,
    check_scores,
    check_seed,
    check_weight_value,
    check_weights,
    labels_as_is_pos,
    raise_bad_score,
)


def checked_batch(y_true, y_score, sample_weight, allow_empty=True, ranks=False):
    """Validated batch as (is_pos uint8, scores float64, weights float64 or None for unit)."""
    labels = check_labels(y_true, allow_empty=allow_empty)
    scores = check_scores(y_score, allow_empty=allow_empty, ranks=ranks)
    check_same_length(labels, scores)
    is_pos = labels_as_is_pos(labels)
    raise_bad_score(scores)
    if sample_weight is None:
        return is_pos, scores, None
    return is_pos, scores, check_weights(sample_weight, scores.shape[0])


def checked_point(y_true, y_score, weight):
    """One point as the plain Python values the engines' fast path takes (or ValueError)."""
    return check_label_value(y_true), check_score_value(y_score), check_weight_value(weight)


def check_structure_options(capacity, seed):
    """The options every structure takes: (capacity, seed as an int or None)."""
    return check_capacity(capacity), check_seed(seed)


def out_of_range_message(engine, weights, index, name):
    """The refusal of a weight the structure cannot store next to those it holds."""
    if weights is None or np.ndim(weights) == 0:
        weight = 1.0 if weights is None else weights
        where = ""
    else:
        weight = np.asarray(weights)[index].item()
        where = f" at position {index}"
    return (
        f"{name} must lie within a factor 2**400 (about 1e120) of the weights the "
        f"structure holds (its scale is set by the first positive weight added, here "
        f"{engine.scale!r}); found {weight!r}{where}. Weights of any common scale are "
        "fine: an emptied structure starts afresh"
    )


def check_capacity(capacity):
    if (isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer))
            or not 1 <= capacity <= MAX_CAPACITY):
        raise ValueError(
            f"capacity must be an integer >= 1 and <= {MAX_CAPACITY}, got {capacity!r}"
        )
    return int(capacity)


def _missing_message(engine, is_pos, score, weight, status):
    point = f"y_true={int(is_pos)}, y_score={score!r}"
    if status == Status.NOT_PRESENT:
        return f"no point with {point} to remove"
    held = float(engine.weights_at(np.array([score]), is_pos)[0])
    return (
        f"cannot remove weight {weight!r} from the points with {point}: "
        f"they weigh {held!r} in total"
    )


def _check_removable(engine, is_pos, scores, weights):
    """Refuse a batch that removes more points or weight than a (label, score) holds."""
    stored, refused = engine.stored_weights(weights, scores.shape[0], False)
    if stored is None:
        stored = np.ones(scores.shape[0])
    _check_counts(engine, is_pos, scores)
    if refused >= 0:
        weight = 1.0 if weights is None else weights[refused].item()
        raise KeyError(
            f"remove_many: position {refused} removes weight {weight!r}, but no point "
            "present weighs that: the structure holds weights of scale "
            f"{engine.scale!r} (within a factor 2**400), or none of positive weight"
        )
    if engine.exact:
        odd = np.flatnonzero(stored != 1.0)
        if odd.size:
            k = odd[0]
            weight = 1.0 if weights is None else weights[k].item()
            raise KeyError(
                f"remove_many: every point present has weight {engine.scale!r}, but "
                f"position {k} removes weight {weight!r}"
            )
    for label in (0, 1):
        mask = is_pos == label
        if not mask.any():
            continue
        distinct, inverse = np.unique(scores[mask], return_inverse=True)
        removed = np.bincount(inverse, weights=stored[mask])
        k = engine.first_excess(distinct, bool(label), removed)
        if k >= 0:
            held_weight = engine.weights_at(distinct[k:k + 1], bool(label))[0]
            raise KeyError(
                f"remove_many: the batch removes weight {float(removed[k] * engine.scale)!r} from "
                f"the points with y_true={label}, y_score={distinct[k].item()!r}, which "
                f"weigh {held_weight.item()!r}"
            )


def _check_counts(engine, is_pos, scores):
    """Refuse a batch that removes more points than a (label, score) holds."""
    for label in (0, 1):
        mask = is_pos == label
        if not mask.any():
            continue
        distinct, needed = np.unique(scores[mask], return_counts=True)
        held = engine.counts_at(distinct, bool(label))
        short = np.flatnonzero(needed > held)
        if short.size:
            k = short[0]
            raise KeyError(
                f"remove_many: the batch removes {needed[k]} point(s) with "
                f"y_true={label}, y_score={distinct[k].item()!r}, but {held[k]} "
                "are present"
            )


def points_batch(engine):
    """A batch (is_pos, scores, weights or None) whose addition re-creates the engine's points.

    From the engine's score groups with their point counts: with unit
    weights each point once; with weights, the points of one score and class
    as one point carrying their total weight and the others with weight 0,
    which leaves the same counts and weights in a structure.
    """
    keys, weight_neg, weight_pos, count_neg, count_pos = engine.tree.items()
    parts = []
    for label, weights, counts in ((0, weight_neg, count_neg), (1, weight_pos, count_pos)):
        present = counts > 0
        counts = counts[present].astype(np.int64)
        scores = np.repeat(keys[present], counts)
        batch_weights = None
        if not engine.exact:
            batch_weights = np.zeros(scores.shape[0])
            batch_weights[np.cumsum(counts) - 1] = weights[present]
        parts.append((np.full(scores.shape[0], label, dtype=np.uint8), scores, batch_weights))
    is_pos = np.concatenate([part[0] for part in parts])
    scores = np.concatenate([part[1] for part in parts])
    # The engine stores weights in units of ``scale`` (a power of two: exact).
    scale = engine.scale
    if engine.exact:
        return is_pos, scores, None if scale == 1.0 else np.full(scores.shape[0], scale)
    return is_pos, scores, np.concatenate([part[2] for part in parts]) * scale


def merge_points(structure, other):
    """Add the points of ``other`` to ``structure`` (both checked compatible by the caller).

    The smaller point set is added to the larger: when ``other`` holds more
    points and has the same kind of engine, ``structure`` takes a copy of
    its engine and adds its own points to it.
    """
    if len(other) > len(structure) and type(other._engine) is type(structure._engine):
        engine = pickle.loads(pickle.dumps(other._engine))
        engine.add_many(*points_batch(structure._engine))
        structure._engine = engine
        return
    structure._engine.add_many(*points_batch(other._engine))


class PointSet:
    """What every structure over a set of (label, score, weight) points shares.

    ``_engine`` is the compiled engine holding the points (an ``AUCEngine``
    or one built on it).  Single points go to the engine's compiled fast
    path; values it does not take (``Status.UNCHECKED``) are validated here
    and sent again.
    """

    __slots__ = ("_engine",)

    def add(self, y_true, y_score, weight=1.0):
        """Add one point: one update (see the class for its cost).

        Parameters
        ----------
        y_true : int or bool
            Its label, 0/1 or a boolean.
        y_score : float
            Its score, a finite real number.
        weight : float, default=1.0
            Its weight, finite and >= 0.

        Raises
        ------
        ValueError
            If the label, score or weight is invalid, or the weight is more
            than 2**400 times larger or smaller than the first positive weight
            of the structure; nothing changes.
        """
        status = self._engine.add(y_true, y_score, weight)
        if status:  # (DONE is 0: no enum comparison on the hot path)
            if status == Status.UNCHECKED:
                y_true, y_score, weight = checked_point(y_true, y_score, weight)
                status = self._engine.add(y_true, y_score, weight)
            if status == Status.OUT_OF_RANGE:
                raise ValueError(out_of_range_message(self._engine, weight, 0, "weight"))

    def remove(self, y_true, y_score, weight=1.0):
        """Remove one point: one update (see the class for its cost).

        Parameters
        ----------
        y_true : int or bool
            Its label, 0/1 or a boolean.
        y_score : float
            Its score.
        weight : float, default=1.0
            The weight it was added with.  The last point of a label at a
            score leaves only with its whole weight (within a relative 1e-9 of
            the weight): removing less takes that weight and leaves the point
            there with the rest.

        Raises
        ------
        KeyError
            If no point with this label and score is present, or the weight
            exceeds their total weight; nothing changes.
        ValueError
            If the label, score or weight is invalid; nothing changes.
        """
        status = self._engine.remove(y_true, y_score, weight)
        if status:  # the rare paths, off the hot one
            y_true, y_score, weight = checked_point(y_true, y_score, weight)
            if status == Status.UNCHECKED:
                status = self._engine.remove(y_true, y_score, weight)
            if status:
                raise KeyError(_missing_message(self._engine, y_true, y_score, weight, status))

    def add_many(self, y_true, y_score, sample_weight=None):
        """Add a batch of points, in one compiled loop: k updates for k points.

        Parameters
        ----------
        y_true : array-like of shape (k,)
            Labels, 0/1 or bool.
        y_score : array-like of shape (k,)
            Scores, finite real numbers.
        sample_weight : array-like of shape (k,), optional
            Weights, finite and >= 0 (default 1).

        Raises
        ------
        ValueError
            If any entry is invalid, or a weight is more than 2**400 times
            larger or smaller than the first positive weight of the
            structure; nothing is added.
        """
        is_pos, scores, weights = checked_batch(y_true, y_score, sample_weight)
        refused = self._engine.add_many(is_pos, scores, weights)
        if refused >= 0:
            raise ValueError(
                out_of_range_message(self._engine, weights, refused, "sample_weight"))

    def remove_many(self, y_true, y_score, sample_weight=None):
        """Remove a batch of points, in one compiled loop: k updates for k points.

        Parameters
        ----------
        y_true : array-like of shape (k,)
            Labels, 0/1 or bool.
        y_score : array-like of shape (k,)
            Scores.
        sample_weight : array-like of shape (k,), optional
            The weights the points were added with (default 1).

        Raises
        ------
        KeyError
            If the batch removes a point that is not present (counting
            repeats) or more weight than a label and score hold; nothing is
            removed.
        ValueError
            If any entry is invalid; nothing is removed.
        """
        is_pos, scores, weights = checked_batch(y_true, y_score, sample_weight)
        _check_removable(self._engine, is_pos, scores, weights)
        failed = self._engine.remove_many(is_pos, scores, weights)
        if failed >= 0:
            # Not reachable after the check above; undo rather than leave half a batch.
            done = None if weights is None else weights[:failed]
            self._engine.add_many(is_pos[:failed], scores[:failed], done)
            weight = 1.0 if weights is None else float(weights[failed])
            raise KeyError(_missing_message(self._engine, bool(is_pos[failed]),
                                            float(scores[failed]), weight,
                                            Status.WEIGHT_EXCEEDS))

    def roc_points(self):
        """(fpr, tpr) of the current points' ROC curve, as :func:`~hmeasure_stream.roc_points`.

        O(n) for n distinct scores (they are kept sorted).  Raises ValueError
        while a class is absent.
        """
        _, group_neg, group_pos = self._groups()
        fp = np.concatenate(([0.0], np.cumsum(group_neg)))
        tp = np.concatenate(([0.0], np.cumsum(group_pos)))
        return fp / fp[-1], tp / tp[-1]

    def hull(self):
        """(fpr, tpr) of the ROC convex hull's vertices, as :func:`~hmeasure_stream.roc_hull`.

        O(n) for n distinct scores (the hull of the sorted points).  Raises
        ValueError while a class is absent.
        """
        _, group_neg, group_pos = self._groups()
        fp, tp = upper_hull(group_neg, group_pos)
        return fp / fp[-1], tp / tp[-1]

    def _groups(self):
        scores, group_neg, group_pos = self._engine.score_groups()
        if not (group_neg.sum() > 0 and group_pos.sum() > 0):
            raise ValueError("the ROC curve is undefined while a class is absent")
        return scores, group_neg, group_pos

    @property
    def auc(self):
        """The AUC of the current points (nan while a class is absent).  O(1)."""
        return self._engine.auc

    @property
    def n_neg(self):
        """Total weight of class 0."""
        return self._engine.weight_neg

    @property
    def n_pos(self):
        """Total weight of class 1."""
        return self._engine.weight_pos

    @property
    def nbytes(self):
        """Bytes held by the structure's buffers."""
        return self._engine.nbytes

    def __len__(self):
        return int(self._engine.n_points)

    def _check(self):
        """Verify every invariant of the structure in O(n), reading only (for tests)."""
        return self._engine._check()
