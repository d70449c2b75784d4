"""Partial areas under the ROC curve read from the score treap in O(log n).

Private engine of ``DynamicAUC.partial_auc`` and of the window metric
``"pauc"``.  The box is ``_partial.pyx``'s: the region under the curve
between false positives A and B and true positives C and D, in class
weights.  The curve runs from the highest score down; the segment of a
distinct score starts at (u0, t0) = (class 0, class 1 weight above it) and
ends g0, g1 (its class weights) further.  Along the curve u0, u0 + g0, t0 and
t0 + g1 never decrease, so each of "the first segment whose u0 reaches A",
"the first whose u0 + g0 passes B", ... is found by one order-statistic
descent from the root (``_first_all``: the seven descents advance in
lockstep, so their cache misses overlap), and the segments the from-scratch
kernel treats alike form runs of consecutive scores between such boundaries:

- the runs wholly inside the box add g0 (t0 + g1 / 2 - C) each: over a run of
  scores with class 1 weight T above it, 2 T (its class 0 weight) + its pair
  weight (twice its Mann-Whitney statistic), both summed over O(log n)
  subtrees (``_range``) from the treap's aggregates ``subtree_neg``,
  ``subtree_pos`` and ``subtree_pairs``;
- the run at or above D adds (D - C) times its class 0 weight;
- at most four segments cross a side of the box (one per side); their area
  is ``segment_box_area`` of ``_partial.pxd``, as from scratch.

So the area is summed without visiting the points in between, and it is
split as the from-scratch kernel splits it.  With unit weights the corners
are integers, the sides are compared through their floors and ceilings, and
the segments crossing a side are returned as integers: ``DynamicAUC`` cuts
them in exact rational arithmetic (``partial._exact_area``), so its value is
the exact area correctly rounded, the same as from scratch.
"""

from libc.math cimport INFINITY, NAN, fma
from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._auc cimport AUCEngine

from hmeasure_stream._engines._auc import stored_scale
from hmeasure_stream._engines._numeric cimport compensated_add
from hmeasure_stream._engines._partial cimport exact_floor_ceil, segment_box_area
from hmeasure_stream._engines._treap cimport ScoreTreap


cdef struct Found:
    # A distinct score's segment of the curve, or node -1 for none.
    int32_t node
    double key
    double u0, t0, g0, g1


cdef struct Aggregate:
    # Class weights and pair weight of a run of consecutive scores.
    double neg, pos, pairs


cdef struct Descent:
    # One search of ``_first_all`` under way: what it looks for and where it is.
    bint on_pos, at_end, strict
    double threshold
    int32_t node
    double above_neg, above_pos


cdef inline void _first_step(ScoreTreap tree, Descent* search, Found* out) noexcept nogil:
    """One level of a search for the first segment whose coordinate passes a threshold."""
    cdef int32_t node = search.node
    cdef int32_t child = tree.right[node]
    cdef double u0 = search.above_neg, t0 = search.above_pos, g0, g1, value
    if child >= 0:
        u0 = u0 + tree.subtree_neg[child]
        t0 = t0 + tree.subtree_pos[child]
    g0 = tree.node_neg(node)
    g1 = tree.node_pos(node)
    if search.on_pos:
        value = t0 + g1 if search.at_end else t0
    else:
        value = u0 + g0 if search.at_end else u0
    if value > search.threshold or (not search.strict and value == search.threshold):
        out.node = node
        out.key = tree.key[node]
        out.u0 = u0
        out.t0 = t0
        out.g0 = g0
        out.g1 = g1
        search.node = child
    else:
        search.above_neg = u0 + g0
        search.above_pos = t0 + g1
        search.node = tree.left[node]


cdef void _first_all(ScoreTreap tree, Descent* searches, Found* out, int count) noexcept nogil:
    """For each search, the first segment from the highest score down whose coordinate
    passes its threshold.

    The coordinate is u (class 0) or, ``on_pos``, t (class 1), at the start
    of the segment or, ``at_end``, at its end; it passes when > threshold
    (``strict``) or >= threshold.  It never decreases along the curve, so
    one descent finds the first: O(depth).  ``out[k].node`` is -1 when none
    does.  The descents are independent and advance a level each in turn,
    so that the memory latencies of their paths overlap instead of adding up.
    """
    cdef int k, active = count
    for k in range(count):
        out[k].node = -1
        out[k].key = -INFINITY
        searches[k].node = tree.root
        searches[k].above_neg = 0.0
        searches[k].above_pos = 0.0
    while active:
        active = 0
        for k in range(count):
            if searches[k].node >= 0:
                _first_step(tree, &searches[k], &out[k])
                active += searches[k].node >= 0


cdef inline void _search(Descent* search, bint on_pos, bint at_end, bint strict,
                         double threshold) noexcept nogil:
    search.on_pos = on_pos
    search.at_end = at_end
    search.strict = strict
    search.threshold = threshold


cdef inline void _append(Aggregate* run, double neg, double pos, double pairs) noexcept nogil:
    """``run`` followed by a block of higher scores (pairs across: class 0 of ``run``)."""
    run.pairs = run.pairs + pairs + 2.0 * run.neg * pos
    run.neg = run.neg + neg
    run.pos = run.pos + pos


cdef inline void _prepend(Aggregate* run, double neg, double pos, double pairs) noexcept nogil:
    """A block of lower scores followed by ``run``."""
    run.pairs = pairs + run.pairs + 2.0 * neg * run.pos
    run.neg = neg + run.neg
    run.pos = pos + run.pos


cdef void _range(ScoreTreap tree, double low, double high, Aggregate* run) noexcept nogil:
    """The aggregates of the scores s with low < s <= high, from O(depth) subtrees.

    Below the node where the searches for ``low`` and ``high`` part, the
    left path adds whole right subtrees and the right path whole left
    subtrees: every term is >= 0, nothing cancels.
    """
    cdef int32_t node = tree.root, top, child
    cdef double g0, g1
    run.neg = 0.0
    run.pos = 0.0
    run.pairs = 0.0
    while node >= 0:
        if tree.key[node] <= low:
            node = tree.right[node]
        elif tree.key[node] > high:
            node = tree.left[node]
        else:
            break
    if node < 0:
        return
    top = node
    run.neg = tree.node_neg(top)
    run.pos = tree.node_pos(top)
    run.pairs = run.neg * run.pos
    node = tree.left[top]
    while node >= 0:
        if tree.key[node] > low:
            child = tree.right[node]
            if child >= 0:
                _prepend(run, tree.subtree_neg[child], tree.subtree_pos[child],
                         tree.subtree_pairs[child])
            g0 = tree.node_neg(node)
            g1 = tree.node_pos(node)
            _prepend(run, g0, g1, g0 * g1)
            node = tree.left[node]
        else:
            node = tree.right[node]
    node = tree.right[top]
    while node >= 0:
        if tree.key[node] <= high:
            child = tree.left[node]
            if child >= 0:
                _append(run, tree.subtree_neg[child], tree.subtree_pos[child],
                        tree.subtree_pairs[child])
            g0 = tree.node_neg(node)
            g1 = tree.node_pos(node)
            _append(run, g0, g1, g0 * g1)
            node = tree.right[node]
        else:
            node = tree.left[node]


cdef inline Found* _later(Found* first, Found* second) noexcept nogil:
    """The one further along the curve (lower score; none is beyond every score)."""
    return first if first.key <= second.key else second


cdef inline void _cut(Found* segment, double a, double b, double c, double d,
                      double* rest, double* rest_comp, BoxParts* parts) noexcept nogil:
    cdef int k = parts.n_cuts
    compensated_add(rest, rest_comp, segment_box_area(segment.u0, segment.t0, segment.g0,
                                                      segment.g1, a, b, c, d))
    if k < 4:
        parts.cuts[k][0] = segment.u0
        parts.cuts[k][1] = segment.t0
        parts.cuts[k][2] = segment.g0
        parts.cuts[k][3] = segment.g1
        parts.n_cuts = k + 1


cdef bint box_parts(ScoreTreap tree, double a, double b, double c, double d,
                    BoxParts* parts) noexcept nogil:
    """The area of the curve in the box [a, b] x [c, d] (rates), split as from scratch.

    Returns False (``parts`` untouched but the totals) when a class has no
    weight.  Seven descents and two range sums: O(log n).  With unit weights
    the corners are integers and each side is compared through its floor or
    ceiling (``exact_floor_ceil``), so the segments are classified exactly, as
    ``_partial.box_area_counts`` does.
    """
    cdef Found cross_a, start_a, cross_b, cross_c, start_c, cross_d, start_d
    cdef Found found[7]
    cdef Descent searches[7]
    cdef Found* start
    cdef Found* end
    cdef Aggregate inside, above
    cdef double total_neg = 0.0, total_pos = 0.0, rest = 0.0, rest_comp = 0.0
    cdef double low_a, high_b, low_c, high_d, area = 0.0, area_comp = 0.0
    cdef double floor_a, ceil_a, floor_b, ceil_b, floor_c, ceil_c, floor_d, ceil_d
    cdef bint cut_a, cut_c
    if tree.root >= 0:
        total_neg = tree.subtree_neg[tree.root]
        total_pos = tree.subtree_pos[tree.root]
    parts.total_neg = total_neg
    parts.total_pos = total_pos
    if not (total_neg > 0.0 and total_pos > 0.0):
        return False
    # The box in class weights, as the from-scratch kernel's arguments.
    low_a = a * total_neg
    high_b = b * total_neg
    low_c = c * total_pos
    high_d = d * total_pos
    if tree.weighted:
        floor_a = ceil_a = low_a
        floor_b = ceil_b = high_b
        floor_c = ceil_c = low_c
        floor_d = ceil_d = high_d
    else:
        # Integer corners: u > A iff u > floor(A), u >= A iff u >= ceil(A), ...
        exact_floor_ceil(a, total_neg, &floor_a, &ceil_a)
        exact_floor_ceil(b, total_neg, &floor_b, &ceil_b)
        exact_floor_ceil(c, total_pos, &floor_c, &ceil_c)
        exact_floor_ceil(d, total_pos, &floor_d, &ceil_d)
    parts.n_cuts = 0
    _search(&searches[0], False, True, True, floor_a)     # u0 + g0 > A
    _search(&searches[1], False, False, False, ceil_a)    # u0 >= A
    _search(&searches[2], False, True, True, floor_b)     # u0 + g0 > B
    _search(&searches[3], True, True, True, floor_c)      # t0 + g1 > C
    _search(&searches[4], True, False, False, ceil_c)     # t0 >= C
    _search(&searches[5], True, True, True, floor_d)      # t0 + g1 > D
    _search(&searches[6], True, False, False, ceil_d)     # t0 >= D
    _first_all(tree, searches, found, 7)
    cross_a, start_a, cross_b = found[0], found[1], found[2]
    cross_c, start_c, cross_d, start_d = found[3], found[4], found[5], found[6]
    # The segments cut by a side, from the highest score down (the order of
    # the kernel's sum).  Between start_a and cross_b lie the segments wholly
    # within [A, B]: the run where C and D are looked at.
    cut_a = cross_a.node >= 0 and cross_a.u0 < ceil_a  # u0 < A
    if cut_a:
        _cut(&cross_a, low_a, high_b, low_c, high_d, &rest, &rest_comp, parts)
    cut_c = (cross_c.node >= 0 and cross_c.t0 < ceil_c and cross_c.g0 > 0.0
             and start_a.node >= 0 and cross_c.key <= start_a.key and cross_c.key > cross_b.key)
    if cut_c:
        _cut(&cross_c, low_a, high_b, low_c, high_d, &rest, &rest_comp, parts)
    if (cross_d.node >= 0 and cross_d.t0 < ceil_d and cross_d.g0 > 0.0
            and not (cut_c and cross_d.node == cross_c.node)
            and start_a.node >= 0 and cross_d.key <= start_a.key
            and cross_d.key > cross_b.key):
        _cut(&cross_d, low_a, high_b, low_c, high_d, &rest, &rest_comp, parts)
    if cross_b.node >= 0 and cross_b.u0 < ceil_b and not (cut_a and cross_b.node == cross_a.node):
        _cut(&cross_b, low_a, high_b, low_c, high_d, &rest, &rest_comp, parts)
    parts.rest = rest + rest_comp
    # Inside: from the later of start_a, start_c to before the earlier of cross_b, cross_d.
    parts.twice_inside = 0.0
    parts.width_inside = 0.0
    parts.width_above = 0.0
    start = _later(&start_a, &start_c)
    end = &cross_b if cross_b.key >= cross_d.key else &cross_d
    compensated_add(&area, &area_comp, parts.rest)
    if start.node >= 0 and start.key > end.key:
        _range(tree, end.key, start.key, &inside)
        parts.twice_inside = 2.0 * start.t0 * inside.neg + inside.pairs
        parts.width_inside = inside.neg
        compensated_add(&area, &area_comp, (start.t0 - low_c) * inside.neg)
        compensated_add(&area, &area_comp, 0.5 * inside.pairs)
    # At or above D: from the latest of start_a, cross_d, start_d to before cross_b.
    start = _later(_later(&start_a, &cross_d), &start_d)
    if start.node >= 0 and start.key > cross_b.key:
        _range(tree, cross_b.key, start.key, &above)
        parts.width_above = above.neg
        compensated_add(&area, &area_comp, (high_d - low_c) * above.neg)
    parts.area = area + area_comp
    return True


cdef double box_fraction(ScoreTreap tree, double a, double b, double c, double d) noexcept nogil:
    """The area in the box as a fraction of the unit square; nan when a class is absent.

    With unit weights the parts are combined with error-free products and
    a compensated sum (within an ulp or two of the exact rational value that
    ``DynamicAUC.partial_auc`` rounds once); with weights the area of
    non-negative pieces over the class totals, as from scratch.
    """
    cdef BoxParts parts
    cdef double low_c, high_d, product, span, back, span_error, sum_ = 0.0, comp = 0.0
    if not box_parts(tree, a, b, c, d, &parts):
        return NAN
    if tree.weighted:
        return parts.area / parts.total_neg / parts.total_pos
    low_c = c * parts.total_pos
    high_d = d * parts.total_pos
    compensated_add(&sum_, &comp, 0.5 * parts.twice_inside)
    product = low_c * parts.width_inside
    compensated_add(&sum_, &comp, -product)
    compensated_add(&sum_, &comp, -fma(low_c, parts.width_inside, -product))
    span = high_d - low_c  # and its rounding error (Knuth's TwoSum)
    back = span - high_d
    span_error = (high_d - (span - back)) + (-low_c - back)
    product = span * parts.width_above
    compensated_add(&sum_, &comp, product)
    compensated_add(&sum_, &comp, fma(span, parts.width_above, -product))
    compensated_add(&sum_, &comp, span_error * parts.width_above)
    compensated_add(&sum_, &comp, parts.rest)
    return (sum_ + comp) / (parts.total_neg * parts.total_pos)


cdef double mcclish(double area, double a, double b, double c, double d,
                    bint has_fpr, bint has_tpr) noexcept nogil:
    """McClish's standardisation of a partial area over one range (``partial._corrected``)."""
    cdef double mean, excess, twice_room
    if not has_tpr:
        mean = area / (b - a)
        excess = mean - (a + b) / 2.0
        twice_room = (1.0 - a) + (1.0 - b)
    else:
        mean = area / (d - c)
        excess = mean - 1.0 + (c + d) / 2.0
        twice_room = c + d
    return 0.5 + excess / twice_room


def box_area_parts(ScoreTreap tree, double a, double b, double c, double d):
    """The area of the curve in the box [a, b] x [c, d] (rates) from the treap, O(log n).

    None when a class has no weight.  With unit weights the tuple
    ``(twice_inside, width_inside, width_above, cuts, total_neg, total_pos)``
    of ``_partial.box_area_counts`` (ints; ``cuts`` the segments crossing a
    side, as tuples of ints) for the exact combination; with weights
    ``(area, total_neg, total_pos)``, the area in class weights.
    """
    cdef BoxParts parts
    cdef int k
    if not box_parts(tree, a, b, c, d, &parts):
        return None
    if tree.weighted:
        return parts.area, parts.total_neg, parts.total_pos
    cuts = [tuple(<int64_t>parts.cuts[k][field] for field in range(4))
            for k in range(parts.n_cuts)]
    return (<int64_t>parts.twice_inside, <int64_t>parts.width_inside,
            <int64_t>parts.width_above, cuts,
            <int64_t>parts.total_neg, <int64_t>parts.total_pos)


cdef class PartialAUCEngine(AUCEngine):
    """The score treap following the AUC and one partial AUC: the window metric "pauc".

    ``set_box`` fixes the box (rates) and the McClish correction; ``_record``
    writes the AUC and the partial AUC (O(log n) each point).
    """

    def set_box(self, double a, double b, double c, double d, bint has_fpr, bint has_tpr,
                bint corrected):
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.has_fpr = has_fpr
        self.has_tpr = has_tpr
        self.corrected = corrected

    cdef double _pauc(self) noexcept nogil:
        cdef double area = box_fraction(self.tree, self.a, self.b, self.c, self.d)
        if self.corrected and (self.has_fpr or self.has_tpr) and area == area:
            return mcclish(area, self.a, self.b, self.c, self.d, self.has_fpr, self.has_tpr)
        return min(max(area, 0.0), 1.0) if area == area else area

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        out[row, 0] = self._auc()
        out[row, 1] = self._pauc()

    @property
    def columns(self):
        return ("auc", "pauc")

    @property
    def pauc(self):
        return self._pauc()

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_partial_engine,
                (self.tree, self.twice_u, self.twice_u_compensation, self.inverse_scale,
                 (self.a, self.b, self.c, self.d, self.has_fpr, self.has_tpr, self.corrected)))


def _rebuild_partial_engine(tree, twice_u, compensation, inverse_scale, box):
    cdef PartialAUCEngine engine = PartialAUCEngine.__new__(PartialAUCEngine)
    engine.tree = tree
    engine.twice_u = twice_u
    engine.twice_u_compensation = compensation
    engine.inverse_scale = stored_scale(tree, inverse_scale)
    engine.set_box(*box)
    return engine
