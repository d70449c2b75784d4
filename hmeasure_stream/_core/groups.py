"""Groups of distinct scores with their class weights, and the summaries they merge into.

Private.  A *group* is a distinct score with the class 0 and class 1 weight
of its points; the groups from the highest score down are the ROC curve's
steps.  From arrays: :func:`roc_groups` and :func:`auc_value` (``metrics``,
``multiclass``), the hull with the cost in effect (:func:`hull_and_cost`)
and H (:func:`groups_h_and_auc`); the groups of the expected ROC curve of
probabilities (:func:`expected_groups`, for ``expected``).  For ``dask``: a
partition's groups (:func:`groups_of`), their cut at range boundaries
(:func:`cut`), a range's pieces merged (:func:`merge`), a range's mergeable
summary (:func:`summarise`: its class weights, twice its Mann-Whitney count
and its hulls' edges), the whole from the ranges' summaries (:class:`Whole`)
and a range's piece of a partial area (:func:`box_piece`); for the AUC
without weights a partition's scores by class (:func:`split_classes_of`),
cut by value (:func:`cut_classes`) and a range's summary from its scores
sorted once (:func:`sorted_range_summary`).  The compiled
kernels are the engines' (``_scratch``, ``_ranges``, ``_partial``).
"""

import itertools
import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from hmeasure_stream._core.report import exact_sum, hull_h, unit
from hmeasure_stream._engines import _kway, _partial, _ranges, _scratch
from hmeasure_stream._validation import (
    EXACT_COUNT_LIMIT,
    FloatArray,
    check_both_classes,
    exact_path,
    labels_as_is_pos,
    normalized_weights,
    raise_bad_label,
    raise_bad_score,
    sort_scores,
    sorted_classes,
    stable_order,
    weighted_groups,
)

# exact_sum is report's, exported here too for the modules that sum groups.
__all__ = ["Whole", "auc_value", "box_piece", "cut", "cut_classes", "exact_sum",
           "expected_groups", "groups_auc", "groups_h_and_auc", "groups_of", "hull_and_cost",
           "hull_h_and_auc", "merge", "roc_groups", "roc_hull_edges", "roc_sums",
           "sorted_range_summary", "split_classes_of", "summarise", "totals"]


# ---------------------------------------------------------------------------
# Arrays in memory


def roc_groups(y_true, y_score, sample_weight, metric, with_keys=False, normalize=True):
    """Class weights of each distinct score, highest score first (preceded by the
    distinct scores with ``with_keys``).

    int64 counts for unit weights (exact arithmetic downstream), float64
    otherwise: scaled by a power of two with ``normalize`` (for what does not
    depend on the weights' scale), else as given.
    """
    if exact_path(y_score, sample_weight):
        neg, pos = sorted_classes(y_true, y_score, metric)
        return _scratch.groups_sorted_classes(neg, pos, with_keys)
    return weighted_groups(y_true, y_score, sample_weight, metric, with_keys, normalize)


def roc_hull_edges(y_true: ArrayLike, y_score: ArrayLike, sample_weight: ArrayLike | None,
                   metric: str) -> tuple[Any, Any, Any, Any, Any]:
    """The ROC hull of arrays, ``(fp, tp, edge_neg, edge_pos)`` as ``upper_hull(...,
    with_edges=True)`` of :func:`roc_groups`, and twice the Mann-Whitney U.

    Unit weights take one compiled pass over the sorted classes that never
    stores the groups (``hull_sorted_classes``).
    """
    if exact_path(y_score, sample_weight):
        neg, pos = sorted_classes(y_true, y_score, metric)
        return _scratch.hull_sorted_classes(neg, pos)
    group_neg, group_pos = weighted_groups(y_true, y_score, sample_weight, metric)
    return (*_scratch.upper_hull(group_neg, group_pos, True),
            _scratch.auc2_groups(group_neg, group_pos))


def roc_sums(group_neg, group_pos, keys=None):
    """Cumulative class weights (fp, tp) of the ROC points, from (0, 0) to (N0, N1), float64
    (and with ``keys``, the groups' distinct scores, the threshold of each point after
    the first).

    One point per group of positive weight, from the highest score down.  A
    group of weight 0 (points of weight 0 only) is absent, as scikit-learn's
    ``roc_curve`` drops the rows of weight 0: it would repeat the point before
    it.  The one rule of every ROC curve read off groups (from scratch and on
    the structures); the hull kernel skips such groups on its own.
    """
    present = (group_neg > 0) | (group_pos > 0)
    if not present.all():
        group_neg, group_pos = group_neg[present], group_pos[present]
        keys = None if keys is None else keys[present]
    fp = np.concatenate(([0.0], np.cumsum(group_neg, dtype=np.float64)))
    tp = np.concatenate(([0.0], np.cumsum(group_pos, dtype=np.float64)))
    return (fp, tp) if keys is None else (fp, tp, keys)


def auc_value(y_true, y_score, sample_weight=None) -> float:
    """The AUC of ``auc`` without its warning (also the one-vs-rest AUCs of ``multiclass_auc``)."""
    if exact_path(y_score, sample_weight):
        neg, pos = sorted_classes(y_true, y_score, "AUC")
        twice_u = _scratch.auc2_sorted_classes(neg, pos)
        return twice_u / (2 * neg.shape[0] * pos.shape[0])
    return groups_auc(*weighted_groups(y_true, y_score, sample_weight, "AUC"))


def groups_auc(group_neg, group_pos) -> float:
    """The AUC of float64 groups, both classes of positive weight."""
    twice_u = _scratch.auc2_groups(group_neg, group_pos)
    return unit(twice_u / (2.0 * exact_sum(group_neg) * exact_sum(group_pos)))


def expected_groups(probs: FloatArray, scores: FloatArray,
                    weights: FloatArray | None) -> tuple[FloatArray, FloatArray]:
    """Groups of the expected ROC curve of validated probabilities of class 1.

    Each point is its class 1 part, weight w p, and its class 0 part, weight
    w (1 - p), at its score: one sort of the n scores orders the 2n parts,
    which the kernel reads through the order in place.  The weights (None:
    unit weights, no array) are scaled by a power of two first, as for labels.
    """
    # Stable, as for labels: tied parts are summed in the order ``auc`` sums them.
    scaled = None if weights is None else normalized_weights(weights)
    return _scratch.groups_expected(stable_order(scores), scores, scaled, probs)


def hull_and_cost(y_true, y_score, sample_weight, spec):
    """ROC groups, the hull (vertices and edges) and the cost parameters in effect for this data."""
    group_neg, group_pos = roc_groups(y_true, y_score, sample_weight, "The H-measure")
    hull = _scratch.upper_hull(group_neg, group_pos, True)
    return group_neg, group_pos, hull, spec.at(float(hull[0][-1]), float(hull[1][-1]))


def hull_h_and_auc(hull_fp, hull_tp, edge_neg, edge_pos, twice_u, spec) -> tuple[float, float]:
    """The H of ``h_measure`` from the ROC hull (vertices and edges) with the cost ``spec``
    (a ``CostRule``) sets for its class weights, and the AUC from 2U (for the warning
    about inverted scores)."""
    weight_neg, weight_pos = float(hull_fp[-1]), float(hull_tp[-1])
    value = hull_h(edge_neg, edge_pos, spec.at(weight_neg, weight_pos))
    return value, twice_u / (2.0 * weight_neg * weight_pos)


def groups_h_and_auc(group_neg, group_pos, spec):
    """``hull_h_and_auc`` of groups (O(n) next to the sorts)."""
    return hull_h_and_auc(*_scratch.upper_hull(group_neg, group_pos, True),
                          _scratch.auc2_groups(group_neg, group_pos), spec)


# ---------------------------------------------------------------------------
# dask: partitions, ranges and the whole


def groups_of(labels, scores, weights, names=("y_true", "y_score")):
    """Groups of validated-shape labels and scores (values checked here, ``names`` in messages)."""
    if weights is None:
        neg, pos = split_classes_of(labels, scores, names)
        sort_scores(neg)
        sort_scores(pos)
        return _scratch.groups_sorted_classes(neg, pos, True)
    label_name, score_name = names
    is_pos = labels_as_is_pos(labels, label_name)
    raise_bad_score(scores, score_name)
    return _scratch.groups_weighted(stable_order(scores), scores, is_pos, weights, True)


def cut(groups, bounds, n_ranges):
    """The groups of a partition cut into n_ranges pieces by value (empty pieces pad)."""
    keys, neg, pos = groups
    cuts = [0, *_ranges.cut_points(keys, bounds).tolist(), keys.shape[0]]
    pieces = [(keys[a:b], neg[a:b], pos[a:b]) for a, b in itertools.pairwise(cuts)]
    empty = (keys[:0], neg[:0], pos[:0])
    return tuple(pieces + [empty] * (n_ranges - len(pieces)))


def split_classes_of(labels, scores, names=("y_true", "y_score")):
    """Validated-shape unit-weight labels and scores as (class 0, class 1) scores, unsorted."""
    label_name, score_name = names
    buffer = np.empty(scores.shape[0], dtype=np.float64)
    n_neg, bad_label, bad_score = _scratch.split_by_class(labels, scores, buffer)
    if bad_label:
        raise_bad_label(labels, label_name)
    if bad_score:
        raise_bad_score(scores, score_name)
    return buffer[:n_neg], buffer[n_neg:]


def cut_classes(classes, bounds, n_ranges):
    """A partition's unsorted (class 0, class 1) scores cut into n_ranges pieces by value.

    Range r holds the scores in (b_r, b_{r-1}] of the decreasing ``bounds``
    (as :func:`cut`; empty pieces pad): a tuple of (class 0, class 1) pairs.
    """
    pieces = []
    for values in classes:
        regrouped, starts = _ranges.bucket_by_range(values, bounds)
        cuts = [regrouped[a:b] for a, b in itertools.pairwise(starts.tolist())]
        pieces.append(cuts + [regrouped[:0]] * (n_ranges - len(cuts)))
    return tuple(zip(*pieces, strict=True))


def sorted_range_summary(pieces):
    """The summary (as :func:`summarise`, without hulls) of one range's unsorted pieces.

    Each class's scores from all the pieces are gathered and sorted, and 2U
    counted from the two sorted classes (``_scratch.auc2_sorted_classes``,
    as in memory).  Its first field is the range's number of points (not of
    groups: the ties are never collapsed).
    """
    neg = np.concatenate([piece[0] for piece in pieces])
    pos = np.concatenate([piece[1] for piece in pieces])
    sort_scores(neg)
    sort_scores(pos)
    if neg.shape[0] + pos.shape[0] >= EXACT_COUNT_LIMIT:
        return summarise(_scratch.groups_sorted_classes(neg, pos, True), False, False)
    twice_u = int(_scratch.auc2_sorted_classes(neg, pos))
    return neg.shape[0] + pos.shape[0], neg.shape[0], pos.shape[0], twice_u, None, None


def merge(*pieces):
    """One range's pieces from every partition merged into its groups, equal scores summed.

    One pass of a loser tree over the pieces (``_kway.merge_groups``): each
    group is read and written once, equal scores in the order of the pieces.
    """
    items = [piece for piece in pieces if piece[0].shape[0]]
    if len(items) <= 1:
        return items[0] if items else pieces[0]
    return _kway.merge_groups(items)


def merged_counts(pieces):
    """``(groups, N0, N1, 2U)`` of the int64 pieces merged, the groups never stored."""
    return _kway.merged_counts(list(pieces))


def merged_hull(pieces):
    """As :func:`merged_counts`, with the upper ROC hull built as the merged groups come."""
    return _kway.merged_hull(list(pieces))


def _edges(fp, tp):
    return np.diff(fp), np.diff(tp)


def summarise(groups, lower, hull=True):
    """(groups, N0, N1, 2U, upper hull edges, lower hull edges) of one range.

    The lower hull is that of the range's ROC points reflected through their
    centre (``upper_hull`` of the groups from the lowest score up).  Hulls
    not asked for are None.
    """
    _, neg, pos = groups
    exact = neg.dtype == np.int64
    if exact and int(neg.sum()) + int(pos.sum()) >= EXACT_COUNT_LIMIT:
        # As in memory (exact_path): the int64 products of counts (2U, the hull's cross
        # products) could wrap from about 3e9 points a class.
        neg, pos, exact = neg.astype(np.float64), pos.astype(np.float64), False
    if exact:
        weight_neg, weight_pos = int(neg.sum()), int(pos.sum())
        twice_u = int(_scratch.auc2_groups(neg, pos))
    else:
        weight_neg, weight_pos = exact_sum(neg), exact_sum(pos)
        twice_u = float(_scratch.auc2_groups(neg, pos))
    upper = _edges(*_scratch.upper_hull(neg, pos)) if hull else None
    low = None
    if lower:
        low = _edges(*_scratch.upper_hull(neg[::-1].copy(), pos[::-1].copy()))
    return neg.shape[0], weight_neg, weight_pos, twice_u, upper, low


def totals(summaries):
    """Class weights, offsets and 2U of the whole from the ranges' summaries.

    2U is the ranges' own plus, for each range, twice its class 0 weight
    times the class 1 weight of the ranges above it: exact integers without
    weights, compensated sums with them.
    """
    exact = all(isinstance(s[1], int) for s in summaries)
    add = sum if exact else math.fsum
    weights_neg = [s[1] for s in summaries]
    weights_pos = [s[2] for s in summaries]
    fp_offsets = [add(weights_neg[:r]) for r in range(len(summaries))]
    tp_offsets = [add(weights_pos[:r]) for r in range(len(summaries))]
    terms = [s[3] for s in summaries]
    terms += [2 * w * above for w, above in zip(weights_neg, tp_offsets, strict=True)]
    return exact, add(weights_neg), add(weights_pos), fp_offsets, tp_offsets, add(terms)


class Whole:
    """The whole data from the ranges' summaries: totals, offsets, 2U, the hulls."""

    def __init__(self, summaries, metric):
        n_groups = [s[0] for s in summaries]
        if sum(n_groups) == 0:
            raise ValueError("y_true is empty: at least one point is needed")
        self.group_offsets = np.concatenate(([0], np.cumsum(n_groups)))[:-1].tolist()
        (self.unit_weights, self.weight_neg, self.weight_pos, self.fp_offsets, self.tp_offsets,
         self.twice_u) = totals(summaries)
        check_both_classes(self.weight_neg, self.weight_pos, metric)
        self.summaries = summaries

    @property
    def auc(self):
        if self.unit_weights:
            return self.twice_u / (2 * self.weight_neg * self.weight_pos)
        return float(self.twice_u / (2.0 * self.weight_neg * self.weight_pos))

    def hull(self, with_edges=False):
        """Vertices (fp, tp) of the ROC hull of the whole: the hull of the ranges' hulls.

        With ``with_edges`` also the class weights of its edges (``upper_hull``).
        """
        edge_neg = np.concatenate([s[4][0] for s in self.summaries])
        edge_pos = np.concatenate([s[4][1] for s in self.summaries])
        return _scratch.upper_hull(edge_neg, edge_pos, with_edges)

    def lower_hull(self):
        """Vertices (fp, tp) of the lower convex hull of the ROC points, from (N0, N1) down."""
        edge_neg = np.concatenate([s[5][0] for s in reversed(self.summaries)])
        edge_pos = np.concatenate([s[5][1] for s in reversed(self.summaries)])
        fp, tp = _scratch.upper_hull(edge_neg, edge_pos)
        return self.weight_neg - fp, self.weight_pos - tp

    def h_measure(self, spec):
        """H of the whole on its hull, with the cost ``spec`` (a ``CostRule``) sets for it."""
        hull_fp, hull_tp, edge_neg, edge_pos = self.hull(with_edges=True)
        return hull_h(edge_neg, edge_pos, spec.at(float(hull_fp[-1]), float(hull_tp[-1])))

    def context(self, **extra):
        """What a range needs for its second step (small: offsets and totals)."""
        return {
            "unit_weights": self.unit_weights,
            "weight_neg": self.weight_neg,
            "weight_pos": self.weight_pos,
            "twice_u": self.twice_u,
            "fp_offsets": self.fp_offsets,
            "tp_offsets": self.tp_offsets,
            "group_offsets": self.group_offsets,
            **extra,
        }


def box_piece(groups, context, r, box):
    """This range's part of the area in the box, with the box translated to the range's start.

    The area in weight units (float64 groups; class counts go to
    ``partial.count_group_parts``, exact), None for an empty range.
    """
    _, neg, pos = groups
    a, b, c, d = box
    weight_neg, weight_pos = context["weight_neg"], context["weight_pos"]
    above_neg, above_pos = context["fp_offsets"][r], context["tp_offsets"][r]
    if neg.shape[0] == 0:
        return None
    return _partial.box_area_groups(
        neg, pos, a * weight_neg - above_neg, b * weight_neg - above_neg,
        c * weight_pos - above_pos, d * weight_pos - above_pos,
    )
