"""Partial areas under the ROC curve read from the sorted blocks in O(log n + BLOCK).

Private engine of ``DynamicAUC.partial_auc`` and of the window metric
``"pauc"`` (``record_box``).  The box is ``_partial.pyx``'s: the region
under the curve between false positives A and B and true positives C and D,
in class weights.  The curve runs from the highest score down; the segment
of a distinct score starts at (u0, t0) = (class 0, class 1 weight above it)
and ends g0, g1 (its class weights) further.  Along the curve u0, u0 + g0,
t0 and t0 + g1 never decrease, so each of "the first segment whose u0
reaches A", "the first whose u0 + g0 passes B", ... is found by one descent
of the blocked engine's segment tree and a scan of one block
(``_blocked_first``; those a side at an end of an axis makes trivial are
skipped), and the segments the from-scratch kernel treats alike form runs
of consecutive scores between such boundaries:

- the runs wholly inside the box add g0 (t0 + g1 / 2 - C) each: over a run of
  scores with class 1 weight T above it, 2 T (its class 0 weight) + its pair
  weight (twice its Mann-Whitney statistic).  With unit weights the searches
  carry the pair weight of the points above them (from the pair sums the
  engine keeps after ``track_variance``) and the run's is a difference of two
  of those, in exact integers; with weights it is summed over O(log n) nodes
  and two blocks (``_blocked_range``), every term >= 0;
- the run at or above D adds (D - C) times its class 0 weight;
- at most four segments cross a side of the box (one per side); their area
  is ``segment_box_area`` of ``_partial.pxd``, as from scratch.

So the area is summed without visiting the points in between, and it is
split as the from-scratch kernel splits it.  With unit weights the corners
are integers, the sides are compared through their floors and ceilings, and
the segments crossing a side are returned as integers.  ``read_partial``
(all of ``DynamicAUC.partial_auc`` for plain arguments) then combines the
parts, and the McClish correction, in double-double arithmetic with a
rigorous error bound (``exact_fraction``) and returns the float nearest to
every value within the bound: the exact area (or McClish value) correctly
rounded, the same as from scratch (an exact zero is recognised from its
parts).  When the bound leaves that in doubt (a value within about 2**-90 of
a midpoint between floats, as with dyadic sides and small counts, or one of
extreme magnitude) it answers None, and ``DynamicAUC`` cuts the segments in
exact rational arithmetic (``partial._exact_area``) instead.
"""

from libc.math cimport INFINITY, NAN, fma
from libc.stdint cimport int32_t, int64_t

from hmeasure_stream._engines._blocked cimport BLOCK, BlockedAUCEngine

from hmeasure_stream._engines._numeric cimport compensated_add
from hmeasure_stream._engines._partial cimport exact_floor_ceil, segment_box_area


cdef struct Found:
    # A distinct score's segment of the curve (``node`` its slot), or node -1 for none (the
    # point beyond the lowest score: key -inf, u0 and t0 the class totals).
    # ``pairs``: with unit weights, the pair weight of the points above it.
    int32_t node
    double key
    double u0, t0, g0, g1, pairs


cdef struct Aggregate:
    # Class weights and pair weight of a run of consecutive scores.
    double neg, pos, pairs


cdef inline void _append(Aggregate* run, double neg, double pos, double pairs) noexcept nogil:
    """``run`` followed by a block of higher scores (pairs across: class 0 of ``run``)."""
    run.pairs = run.pairs + pairs + 2.0 * run.neg * pos
    run.neg = run.neg + neg
    run.pos = run.pos + pos


cdef inline void _between(BlockedAUCEngine blocked, Found* start, Found* end,
                          Aggregate* run) noexcept nogil:
    """The aggregates of the run from ``start`` down to just before ``end`` (lower score).

    With unit weights from what the descents found, in exact integers: the
    points above ``end`` are the run followed by the points above ``start``,
    so the run's pair weight is the difference of the two pair weights above
    less the pairs across (its class 0 times their class 1).  With weights
    summed from O(log n) nodes and two blocks (``_blocked_range``), every term >= 0.
    """
    if blocked.weighted:
        _blocked_range(blocked, end.key, start.key, run)
        return
    run.neg = end.u0 - start.u0
    run.pos = end.t0 - start.t0
    run.pairs = end.pairs - start.pairs - 2.0 * run.neg * start.t0


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


cdef struct BoxSides:
    # The box in class weights (A, B on class 0, C, D on class 1) and, to compare
    # the segments with, each side's floor and ceiling: the integers around it with
    # unit weights (u > A iff u > floor(A), u >= A iff u >= ceil(A)), itself otherwise.
    double low_a, high_b, low_c, high_d
    double floor_a, ceil_a, floor_b, ceil_b, floor_c, ceil_c, floor_d, ceil_d


cdef inline void _box_sides(double a, double b, double c, double d, double total_neg,
                            double total_pos, bint weighted, BoxSides* sides) noexcept nogil:
    """The sides of the box [a, b] x [c, d] of rates, once for a read's searches and sums."""
    sides.low_a = a * total_neg
    sides.high_b = b * total_neg
    sides.low_c = c * total_pos
    sides.high_d = d * total_pos
    if weighted:
        sides.floor_a = sides.ceil_a = sides.low_a
        sides.floor_b = sides.ceil_b = sides.high_b
        sides.floor_c = sides.ceil_c = sides.low_c
        sides.floor_d = sides.ceil_d = sides.high_d
    else:
        exact_floor_ceil(a, total_neg, &sides.floor_a, &sides.ceil_a)
        exact_floor_ceil(b, total_neg, &sides.floor_b, &sides.ceil_b)
        exact_floor_ceil(c, total_pos, &sides.floor_c, &sides.ceil_c)
        exact_floor_ceil(d, total_pos, &sides.floor_d, &sides.ceil_d)


cdef void _combine(Found* found, BlockedAUCEngine blocked, BoxSides* sides,
                   BoxParts* parts) noexcept nogil:
    """The parts of the box of ``sides`` from the seven segments found (``box_parts``'
    searches, in order)."""
    cdef Found cross_a, start_a, cross_b, cross_c, start_c, cross_d, start_d
    cdef Found* start
    cdef Found* end
    cdef Aggregate inside, above
    cdef double rest = 0.0, rest_comp = 0.0, area = 0.0, area_comp = 0.0
    cdef double low_a = sides.low_a, high_b = sides.high_b
    cdef double low_c = sides.low_c, high_d = sides.high_d
    cdef double ceil_a = sides.ceil_a, ceil_b = sides.ceil_b
    cdef double ceil_c = sides.ceil_c, ceil_d = sides.ceil_d
    cdef bint cut_a, cut_c
    parts.n_cuts = 0
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
        _between(blocked, start, end, &inside)
        parts.twice_inside = 2.0 * start.t0 * inside.neg + inside.pairs
        parts.width_inside = inside.neg
        compensated_add(&area, &area_comp, (start.t0 - low_c) * inside.neg)
        compensated_add(&area, &area_comp, 0.5 * inside.pairs)
    # At or above D: from the latest of start_a, cross_d, start_d to before cross_b.
    start = _later(_later(&start_a, &cross_d), &start_d)
    if start.node >= 0 and start.key > cross_b.key:
        _between(blocked, start, &cross_b, &above)
        parts.width_above = above.neg
        compensated_add(&area, &area_comp, (high_d - low_c) * above.neg)
    parts.area = area + area_comp


cdef inline bint _passes(double value, double threshold, bint strict) noexcept nogil:
    return value > threshold or (not strict and value == threshold)


cdef inline void _beyond_all(BlockedAUCEngine blocked, Found* out) noexcept nogil:
    """The point beyond the lowest score: nothing below it, everything above it."""
    out.node = -1
    out.key = -INFINITY
    out.u0 = blocked.tree[3]
    out.t0 = blocked.tree[4]
    out.g0 = out.g1 = 0.0
    out.pairs = blocked.tree[5]


cdef inline void _segment_at(BlockedAUCEngine blocked, int32_t slot, double u0, double t0,
                             double pairs, Found* out) noexcept nogil:
    out.node = slot
    out.key = blocked.key[slot]
    out.u0 = u0
    out.t0 = t0
    out.g0 = blocked._held(slot, False)
    out.g1 = blocked._held(slot, True)
    out.pairs = pairs


cdef void _blocked_first(BlockedAUCEngine blocked, bint on_pos, bint at_end, bint strict,
                         double threshold, Found* out) noexcept nogil:
    """One of ``box_parts``' searches: the first segment from the highest score down
    whose coordinate (u or t, at its start or ``at_end``) passes ``threshold``.

    A descent of the segment tree from the root, the higher half first, carrying
    the class weights (and the pair weight) above, to the block where the segment
    ends past the threshold, then a scan of that block from its top key down:
    O(log n + BLOCK).  A search on the segments' starts finds the first segment
    ending at or past the threshold, k; the first starting there is k itself if
    it starts there, else the segment after k (the start of one is the end of
    the one before).  Thresholds of starts are > 0 (a side at 0 is no search).
    """
    cdef double u = 0.0, t = 0.0, pairs = 0.0, g0, g1, value
    cdef Py_ssize_t node = 1, right
    cdef int32_t block, index, slot, position
    if not _passes(blocked.tree[3 + on_pos], threshold, strict):
        _beyond_all(blocked, out)
        return
    while node < blocked.leaves:
        right = 2 * node + 1
        value = (t if on_pos else u) + blocked.tree[3 * right + on_pos]
        if _passes(value, threshold, strict):
            node = right
        else:
            pairs = pairs + blocked.tree[3 * right + 2] + 2.0 * blocked.tree[3 * right] * t
            u = u + blocked.tree[3 * right]
            t = t + blocked.tree[3 * right + 1]
            node = 2 * node
    block = blocked.block_at_leaf[node - blocked.leaves]
    index = blocked.size[block] - 1
    while True:
        slot = block * BLOCK + index
        g0 = blocked._held(slot, False)
        g1 = blocked._held(slot, True)
        value = t + g1 if on_pos else u + g0
        if _passes(value, threshold, strict) or index == 0:
            break
        pairs = pairs + g0 * g1 + 2.0 * g0 * t
        u = u + g0
        t = t + g1
        index -= 1
    if at_end or _passes(t if on_pos else u, threshold, strict):
        _segment_at(blocked, slot, u, t, pairs, out)
        return
    # The segment after: the next lower key, in this block or the previous one.
    pairs = pairs + g0 * g1 + 2.0 * g0 * t
    u = u + g0
    t = t + g1
    if index > 0:
        _segment_at(blocked, slot - 1, u, t, pairs, out)
        return
    position = blocked._locate(blocked.key[slot])
    if position == 0:
        _beyond_all(blocked, out)
        return
    block = blocked.order[position - 1]
    _segment_at(blocked, block * BLOCK + blocked.size[block] - 1, u, t, pairs, out)


cdef void _blocked_range(BlockedAUCEngine blocked, double low, double high,
                         Aggregate* run) noexcept nogil:
    """The aggregates of the scores s with low < s <= high on the blocks, from the lowest
    up: the keys of the end blocks and the segment-tree nodes covering the blocks
    between (every term >= 0)."""
    cdef int32_t low_position = blocked._locate(low), high_position = blocked._locate(high)
    cdef int32_t block, index, slot, depth = 0
    cdef Py_ssize_t left, right
    cdef Py_ssize_t stack[64]
    cdef double g0, g1
    run.neg = run.pos = run.pairs = 0.0
    block = blocked.order[low_position]
    for index in range(blocked.size[block]):
        slot = block * BLOCK + index
        if blocked.key[slot] > low and blocked.key[slot] <= high:
            g0 = blocked._held(slot, False)
            g1 = blocked._held(slot, True)
            _append(run, g0, g1, g0 * g1)
    if high_position == low_position:
        return
    left = blocked.leaves + blocked.leaf_of_block[block] + 1
    right = blocked.leaves + blocked.leaf_of_block[blocked.order[high_position]] - 1
    while left <= right:
        if left & 1:
            _append(run, blocked.tree[3 * left], blocked.tree[3 * left + 1],
                    blocked.tree[3 * left + 2])
            left += 1
        if not (right & 1):
            stack[depth] = right
            depth += 1
            right -= 1
        left >>= 1
        right >>= 1
    while depth > 0:
        depth -= 1
        right = stack[depth]
        _append(run, blocked.tree[3 * right], blocked.tree[3 * right + 1],
                blocked.tree[3 * right + 2])
    block = blocked.order[high_position]
    for index in range(blocked.size[block]):
        slot = block * BLOCK + index
        if blocked.key[slot] > high:
            break
        g0 = blocked._held(slot, False)
        g1 = blocked._held(slot, True)
        _append(run, g0, g1, g0 * g1)


cdef bint box_parts(BlockedAUCEngine blocked, double a, double b, double c, double d,
                    BoxParts* parts) noexcept nogil:
    """The area of the curve in the box [a, b] x [c, d] (rates), split as from scratch.

    The engine keeps its pair sums (``track_variance``).  Returns False
    (``parts`` untouched but the totals) when a class has no weight.  Seven
    searches (``_blocked_first``) and two range sums: O(log n + BLOCK).  With
    unit weights the corners are integers and each side is compared through
    its floor or ceiling (``exact_floor_ceil``), so the segments are
    classified exactly, as ``_partial.box_area_counts`` does.
    """
    cdef Found found[7]
    cdef BoxSides sides
    cdef double total_neg = 0.0, total_pos = 0.0
    if blocked.n_blocks:
        total_neg = blocked.tree[3]
        total_pos = blocked.tree[4]
    parts.total_neg = total_neg
    parts.total_pos = total_pos
    if not (total_neg > 0.0 and total_pos > 0.0):
        return False
    _box_sides(a, b, c, d, total_neg, total_pos, blocked.weighted, &sides)
    # The searches a side at an end of the axis makes trivial are skipped (only where
    # that is exact: a side at 0 in both modes, since the sums are >= 0; a side at the
    # total only with integer counts).  With A = 0 no segment starts before A (no cut),
    # and the first segment at or after A is the first one, stood for by a start before
    # every score; likewise C = 0.  With B = the class 0 total (D = the class 1 total)
    # no segment passes it: none, as the search would find, and nothing is at or above D.
    if a == 0.0:
        _beyond_all(blocked, &found[0])
        _before_all(&found[1])
    else:
        _blocked_first(blocked, False, True, True, sides.floor_a, &found[0])
        _blocked_first(blocked, False, False, False, sides.ceil_a, &found[1])
    if b == 1.0 and not blocked.weighted:
        _beyond_all(blocked, &found[2])
    else:
        _blocked_first(blocked, False, True, True, sides.floor_b, &found[2])
    if c == 0.0:
        _beyond_all(blocked, &found[3])
        _before_all(&found[4])
    else:
        _blocked_first(blocked, True, True, True, sides.floor_c, &found[3])
        _blocked_first(blocked, True, False, False, sides.ceil_c, &found[4])
    if d == 1.0 and not blocked.weighted:
        _beyond_all(blocked, &found[5])
        _beyond_all(blocked, &found[6])
    else:
        _blocked_first(blocked, True, True, True, sides.floor_d, &found[5])
        _blocked_first(blocked, True, False, False, sides.ceil_d, &found[6])
    _combine(found, blocked, &sides, parts)
    return True


cdef inline void _before_all(Found* start) noexcept nogil:
    """The start of the curve, before every score (an engine with points)."""
    start.node = 0
    start.key = INFINITY
    start.u0 = start.t0 = start.g0 = start.g1 = start.pairs = 0.0


cdef double box_fraction(BlockedAUCEngine blocked, double a, double b, double c,
                         double d) noexcept nogil:
    """The area in the box as a fraction of the unit square; nan when a class is absent.

    With unit weights the parts are combined with error-free products and
    a compensated sum (within an ulp or two of the exact rational value that
    ``DynamicAUC.partial_auc`` rounds once); with weights the area of
    non-negative pieces over the class totals, as from scratch.
    """
    cdef BoxParts parts
    cdef double low_c, high_d, product, span, back, span_error, sum_ = 0.0, comp = 0.0
    if not box_parts(blocked, a, b, c, d, &parts):
        return NAN
    if blocked.weighted:
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


cdef bint _source_parts(BlockedAUCEngine blocked, double a, double b, double c, double d,
                        BoxParts* parts) except -1:
    """``box_parts``, the engine keeping its pair sums from now on if it did not."""
    if not blocked.placements:
        blocked.track_variance()
    return box_parts(blocked, a, b, c, d, parts)


def box_area_parts(BlockedAUCEngine blocked, double a, double b, double c, double d):
    """The area of the curve in the box [a, b] x [c, d] (rates), O(log n + BLOCK)
    (``_source_parts``).

    None when a class has no weight.  With unit weights the tuple
    ``(twice_inside, width_inside, width_above, cuts, total_neg, total_pos)``
    of ``_partial.box_area_counts`` (ints; ``cuts`` the segments crossing a
    side, as tuples of ints) for the exact combination; with weights
    ``(area, total_neg, total_pos)``, the area in class weights.
    """
    cdef BoxParts parts
    cdef int k
    if not _source_parts(blocked, a, b, c, d, &parts):
        return None
    if blocked.weighted:
        return parts.area, parts.total_neg, parts.total_pos
    cuts = [tuple(<int64_t>parts.cuts[k][field] for field in range(4))
            for k in range(parts.n_cuts)]
    return (<int64_t>parts.twice_inside, <int64_t>parts.width_inside,
            <int64_t>parts.width_above, cuts,
            <int64_t>parts.total_neg, <int64_t>parts.total_pos)


def record_box(BlockedAUCEngine blocked, double a, double b, double c, double d,
               bint has_fpr, bint has_tpr, bint corrected):
    """Have ``blocked`` record the partial area in the box [a, b] x [c, d] (rates) in
    ``slide``, McClish-corrected with ``corrected`` (the window metric "pauc"); it keeps
    its pair sums from now on.  O(log n + BLOCK) a point."""
    cdef double params[7]
    box = (a, b, c, d, has_fpr, has_tpr, corrected)
    blocked.track_variance()
    for index, value in enumerate(box):
        params[index] = value
    blocked.attach(_record_pauc, params, 7, ("pauc",), (__name__, "record_box", box))


cdef Py_ssize_t _record_pauc(BlockedAUCEngine blocked, const double* box, double* row,
                             Py_ssize_t column) noexcept nogil:
    """The partial area of ``record_box``'s box (nan while a class is absent)."""
    cdef double area = box_fraction(blocked, box[0], box[1], box[2], box[3])
    if box[6] != 0.0 and (box[4] != 0.0 or box[5] != 0.0) and area == area:
        area = mcclish(area, box[0], box[1], box[2], box[3], box[4] != 0.0, box[5] != 0.0)
    elif area == area:
        area = min(max(area, 0.0), 1.0)
    row[column] = area
    return 1


# ----------------------------------------------------------------------
# The public read in one compiled call: ``DynamicAUC.partial_auc``.
#
# With unit weights the area is the rational number that ``partial._exact_area``
# and ``partial._corrected_exact`` compute in Python integers and round once.
# Here it is evaluated in double-double arithmetic (about 106 bits) together
# with a rigorous bound on its error (running error analysis: every operation
# adds its own rounding bound and propagates the bounds of its operands); when
# every number within the bound rounds to the same float, that float is the
# correctly rounded exact value, bit for bit the Python result; an area known
# to be exactly 0 from its parts is 0.  Otherwise (the exact value within
# about 2**-90 of the midpoint of two floats, extreme magnitudes) the read
# answers None and the caller takes the Python path.  The bounds are generous
# (each operation is charged 2**-96 of its operands' magnitude, at least 32
# times the published bounds of the double-word algorithms of Joldes, Muller
# and Popescu, "Tight and rigorous error bounds for basic building blocks of
# double-word arithmetic", plus 2**-1000 for a possible underflow) and the
# final bound is doubled to cover the rounding of the bound's own arithmetic.

from libc.math cimport fabs, floor, nextafter

from numpy import float64 as _float64


cdef struct Num:
    # The exact value lies within ``err`` of hi + lo (a normalised double-word:
    # hi is hi + lo rounded to nearest).
    double hi, lo, err


cdef double _RELATIVE = 1.262177448353619e-29    # 2**-96
cdef double _TINY = 9.332636185032189e-302       # 2**-1000
cdef double _SMALLEST_RATE = 3.054936363499605e-151  # 2**-500


cdef inline Num _exact(double value) noexcept nogil:
    cdef Num out
    out.hi = value
    out.lo = 0.0
    out.err = 0.0
    return out


cdef inline Num _two_sum(double x, double y) noexcept nogil:
    """x + y exactly (Knuth's TwoSum)."""
    cdef Num out
    cdef double s = x + y, back = s - x
    out.hi = s
    out.lo = (x - (s - back)) + (y - back)
    out.err = 0.0
    return out


cdef inline Num _two_product(double x, double y) noexcept nogil:
    """x y exactly (barring underflow), by fma."""
    cdef Num out
    out.hi = x * y
    out.lo = fma(x, y, -out.hi)
    out.err = 0.0
    return out


cdef inline void _fast_two_sum(double x, double y, double* hi, double* lo) noexcept nogil:
    """x + y exactly for |x| >= |y| (or x = 0)."""
    hi[0] = x + y
    lo[0] = y - (hi[0] - x)


cdef inline Num _negative(Num x) noexcept nogil:
    x.hi = -x.hi
    x.lo = -x.lo
    return x


cdef inline Num _add(Num x, Num y) noexcept nogil:
    """x + y (accurate double-word sum, relative error below 3u**2 + 13u**3)."""
    cdef Num out
    cdef double s, e, t, f
    s = x.hi + y.hi
    f = s - x.hi
    e = (x.hi - (s - f)) + (y.hi - f)
    t = x.lo + y.lo
    f = t - x.lo
    f = (x.lo - (t - f)) + (y.lo - f)
    e = e + t
    _fast_two_sum(s, e, &s, &e)
    e = e + f
    _fast_two_sum(s, e, &out.hi, &out.lo)
    out.err = x.err + y.err + _RELATIVE * (fabs(x.hi) + fabs(y.hi)) + _TINY
    return out


cdef inline Num _times(Num x, double y) noexcept nogil:
    """x y for an exact double y (relative error below 2u**2)."""
    cdef Num out
    cdef double p = x.hi * y
    cdef double e = fma(x.hi, y, -p)
    e = fma(x.lo, y, e)
    _fast_two_sum(p, e, &out.hi, &out.lo)
    out.err = x.err * fabs(y) + _RELATIVE * 2.0 * fabs(x.hi * y) + _TINY
    return out


cdef inline Num _multiply(Num x, Num y) noexcept nogil:
    """x y (double-word product, relative error below 5u**2)."""
    cdef Num out
    cdef double p = x.hi * y.hi
    cdef double e = fma(x.hi, y.hi, -p)
    e = e + fma(x.hi, y.lo, x.lo * y.hi)
    _fast_two_sum(p, e, &out.hi, &out.lo)
    out.err = (2.0 * (fabs(x.hi) * y.err + fabs(y.hi) * x.err) + x.err * y.err
               + _RELATIVE * 2.0 * fabs(x.hi * y.hi) + _TINY)
    return out


cdef inline bint _divide(Num x, Num y, Num* out) noexcept nogil:
    """x / y (double-word quotient, relative error below 15u**2 + 56u**3).

    False when y may be zero or its error is not small against it.
    """
    cdef double quotient, residual_hi, residual_lo, tail
    cdef Num back
    if not fabs(y.hi) > 4.0 * y.err or y.hi == 0.0:
        return False
    quotient = x.hi / y.hi
    back = _times(y, quotient)
    residual_hi = x.hi - back.hi
    residual_lo = x.lo - back.lo
    tail = (residual_hi + residual_lo) / y.hi
    _fast_two_sum(quotient, tail, &out.hi, &out.lo)
    # |X / Y - x / y| <= (|y| e_x + |x| e_y) / (|Y| |y|) with |Y| >= |y| / 2.
    out.err = (4.0 * (x.err + 2.0 * fabs(quotient) * y.err) / fabs(y.hi)
               + _RELATIVE * 4.0 * fabs(quotient) + _TINY)
    return True


cdef inline Num _positive_square(Num x) noexcept nogil:
    """max(x, 0)**2; where the sign is in doubt both candidates are within 4 e_x**2."""
    cdef Num out
    if x.hi > 0.0:
        out = _multiply(x, x)
    else:
        out = _exact(0.0)
    out.err = out.err + 4.0 * x.err * x.err + _TINY
    return out


cdef inline bint _less(Num x, Num y) noexcept nogil:
    """x < y for exact normalised double-words (rounding to nearest is monotonic)."""
    return x.hi < y.hi or (x.hi == y.hi and x.lo < y.lo)


cdef inline Num _height(Num t0_minus_side, double g0, Num u, double u0, double g1) noexcept nogil:
    """g0 (t(u) - side) for the segment's line t: (t0 - side) g0 + (u - u0) g1."""
    return _add(_times(t0_minus_side, g0), _times(_add(u, _exact(-u0)), g1))


cdef inline bint _cut_exact(double u0, double t0, double g0, double g1, Num low_a, Num high_b,
                            Num low_c, Num high_d, Num* out, bint* zero) noexcept nogil:
    """``partial._cut_area``: the area in the box under the segment, g0 > 0.

    For g1 > 0 the integral of (t - C)+ - (t - D)+ over [low, high], with
    the line t of slope g1 / g0, is [y_C(high)+**2 - y_C(low)+**2
    - y_D(high)+**2 + y_D(low)+**2] / (2 g0 g1), y_S(u) = g0 (t(u) - S): no
    branch on an inexact comparison.  The comparisons of the ends are exact.
    ``zero`` tells an area known to be exactly 0 (then ``out`` is 0, no
    error): the segment misses [A, B], or stays at or below C there.
    """
    cdef Num low, high, level, t0_c, t0_d, total, scale, top
    zero[0] = True
    out[0] = _exact(0.0)
    if not g0 > 0.0:
        return False
    low = low_a if _less(_exact(u0), low_a) else _exact(u0)
    high = high_b if _less(high_b, _exact(u0 + g0)) else _exact(u0 + g0)
    if not _less(low, high):
        return True
    if g1 == 0.0:
        level = _exact(t0)
        if not _less(low_c, level):  # t0 <= C: the segment runs at or below C
            return True
        if _less(high_d, level):
            level = high_d
        zero[0] = False
        out[0] = _multiply(_add(level, _negative(low_c)), _add(high, _negative(low)))
        return True
    t0_c = _add(_exact(t0), _negative(low_c))
    top = _height(t0_c, g0, high, u0, g1)
    if top.hi < 0.0 and -top.hi > 2.0 * top.err:  # certainly below C at its highest
        return True
    zero[0] = False
    t0_d = _add(_exact(t0), _negative(high_d))
    total = _add(_add(_positive_square(top),
                      _negative(_positive_square(_height(t0_c, g0, low, u0, g1)))),
                 _add(_positive_square(_height(t0_d, g0, low, u0, g1)),
                      _negative(_positive_square(_height(t0_d, g0, high, u0, g1)))))
    scale = _two_product(2.0 * g0, g1)
    return _divide(total, scale, out)


cdef inline bint _plain_rate(double rate) noexcept nogil:
    """Zero or at least 2**-500: the products with counts stay clear of underflow."""
    return rate == 0.0 or rate >= _SMALLEST_RATE


cdef inline bint _rounded(Num value, double* out) noexcept nogil:
    """The float nearest to every number within the bound of ``value``, if they share one."""
    cdef double hi = value.hi, half
    if not (fabs(hi) >= 1e-200 and fabs(hi) <= 1e200):
        return False
    half = 0.5 * min(nextafter(hi, INFINITY) - hi, hi - nextafter(hi, -INFINITY))
    if fabs(value.lo) + 2.0 * value.err < half * (1.0 - 9.313225746154785e-10):  # 1 - 2**-30
        out[0] = hi
        return True
    return False


cdef bint exact_fraction(BoxParts* parts, double a, double b, double c, double d,
                         bint mcclish_over_fpr, bint mcclish_over_tpr,
                         double* out) noexcept nogil:
    """The unit-weight area (McClish-corrected over one range if asked), correctly rounded.

    The value of ``partial._exact_area`` followed by ``partial._corrected_exact``;
    False when the bound leaves the rounding in doubt (then the caller
    computes it in Python integers).
    """
    cdef Num low_a, high_b, low_c, high_d, area, cut, fraction, width, middle, excess
    cdef Num room, ratio
    cdef double low, high
    cdef bint zero, cut_zero
    cdef int k
    if not (_plain_rate(a) and _plain_rate(b) and _plain_rate(c) and _plain_rate(d)):
        return False
    low_a = _two_product(a, parts.total_neg)
    high_b = _two_product(b, parts.total_neg)
    low_c = _two_product(c, parts.total_pos)
    high_d = _two_product(d, parts.total_pos)
    # twice_inside / 2 - C width_inside + (D - C) width_above + the cuts.
    area = _add(_add(_exact(0.5 * parts.twice_inside),
                     _negative(_times(low_c, parts.width_inside))),
                _times(_add(high_d, _negative(low_c)), parts.width_above))
    # Every part is >= 0, so the area is exactly 0 when each part is known to be:
    # the segments inside add g0 (t0 + g1 / 2 - C) >= 0 each, 0 in all only if
    # they run along C, an integer (with |C| < 2**53 hi is an integer and lo 0
    # exactly when C is), and then twice_inside = 2 C width_inside exactly.
    zero = parts.width_above == 0.0 and (
        parts.twice_inside == 0.0 if parts.width_inside == 0.0 else
        low_c.lo == 0.0 and low_c.hi == floor(low_c.hi)
        and parts.twice_inside < 9007199254740992.0  # 2**53: the product below is exact
        and parts.twice_inside == 2.0 * low_c.hi * parts.width_inside)
    for k in range(parts.n_cuts):
        if not _cut_exact(parts.cuts[k][0], parts.cuts[k][1], parts.cuts[k][2],
                          parts.cuts[k][3], low_a, high_b, low_c, high_d, &cut, &cut_zero):
            return False
        area = _add(area, cut)
        zero = zero and cut_zero
    if zero:
        if not (mcclish_over_fpr or mcclish_over_tpr):
            out[0] = 0.0
            return True
        area = _exact(0.0)
    if not _divide(area, _two_product(parts.total_neg, parts.total_pos), &fraction):
        return False
    if not (mcclish_over_fpr or mcclish_over_tpr):
        return _rounded(fraction, out)
    low = a if mcclish_over_fpr else c
    high = b if mcclish_over_fpr else d
    if high - low < _SMALLEST_RATE:
        return False
    width = _two_sum(high, -low)
    middle = _two_sum(low, high)
    if not _divide(fraction, width, &ratio):
        return False
    if mcclish_over_fpr:
        # 1/2 + (A / (h - l) - (l + h) / 2) / ((1 - l) + (1 - h))
        excess = _add(ratio, _times(_negative(middle), 0.5))
        room = _add(_exact(2.0), _negative(middle))
    else:
        # 1/2 + (A / (h - l) - 1 + (l + h) / 2) / (l + h)
        excess = _add(_add(ratio, _exact(-1.0)), _times(middle, 0.5))
        room = middle
    if not _divide(excess, room, &ratio):
        return False
    return _rounded(_add(ratio, _exact(0.5)), out)


cdef inline int _fast_range(object value, double* low, double* high) noexcept:
    """1 for a range (a tuple or list) of two floats (float or numpy.float64, or the ints
    0 and 1) with 0 <= low < high <= 1, 0 for None, -1 for anything else (left to the
    full validation of the Python layer)."""
    cdef object first, second
    if value is None:
        low[0] = 0.0
        high[0] = 1.0
        return 0
    if type(value) is tuple:
        if len(<tuple>value) != 2:
            return -1
        first = (<tuple>value)[0]
        second = (<tuple>value)[1]
    elif type(value) is list:
        if len(<list>value) != 2:
            return -1
        first = (<list>value)[0]
        second = (<list>value)[1]
    else:
        return -1
    if not (_fast_bound(first, low) and _fast_bound(second, high)):
        return -1
    if not 0.0 <= low[0] < high[0] <= 1.0:
        return -1
    return 1


cdef inline bint _fast_bound(object value, double* out) noexcept:
    if type(value) is float or type(value) is _float64:
        out[0] = <double>value
        return True
    if type(value) is int and (value == 0 or value == 1):
        out[0] = 1.0 if value == 1 else 0.0
        return True
    return False


def read_partial(BlockedAUCEngine blocked, fpr_range, tpr_range, correction):
    """``DynamicAUC.partial_auc`` in one compiled call, or None for the Python path.

    None when the arguments are not plain (ranges other than None or a tuple
    or list of two floats in order within [0, 1], a correction other than
    None or "mcclish", "mcclish" with both ranges: the Python layer validates
    them and explains), or when, with unit weights, the exact value's
    rounding is in doubt (``exact_fraction``); otherwise the value the Python
    path returns, bit for bit.
    """
    cdef double a, b, c, d, area, value
    cdef int has_fpr = _fast_range(fpr_range, &a, &b)
    cdef int has_tpr = _fast_range(tpr_range, &c, &d)
    cdef bint corrected
    cdef BoxParts parts
    if has_fpr < 0 or has_tpr < 0:
        return None
    if correction is None:
        corrected = False
    elif isinstance(correction, str) and correction == "mcclish" and not (has_fpr and has_tpr):
        corrected = has_fpr or has_tpr
    else:
        return None
    if not _source_parts(blocked, a, b, c, d, &parts):
        return NAN
    if blocked.weighted:
        area = parts.area / parts.total_neg / parts.total_pos
        if corrected:
            return mcclish(area, a, b, c, d, has_fpr, has_tpr)
        return min(max(area, 0.0), 1.0)
    if exact_fraction(&parts, a, b, c, d, corrected and not has_tpr, corrected and has_tpr,
                      &value):
        return value
    return None
