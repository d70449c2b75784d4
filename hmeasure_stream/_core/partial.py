"""The exact partial area under the ROC curve and its McClish correction.

Private; shared by ``partial_auc``, ``DynamicAUC.partial_auc`` and
``hmeasure_stream.dask.partial_auc``.  With unit weights the area is kept as
a ratio of integers and rounded once, at the end.
"""

import math
from fractions import Fraction

from hmeasure_stream._engines import _partial

__all__ = ["corrected", "count_group_parts", "exact_area", "side_bounds", "sides"]


def sides(fpr_box, tpr_box, n_neg, n_pos):
    """The box's sides A, B, C, D in class counts, exactly: four integers over one power of two.

    Returns ``(A, B, C, D, den)`` with the sides A / den, ..., D / den (the
    float rates are fractions over powers of two).
    """
    (a, b), (c, d) = fpr_box, tpr_box
    ratios = [float(rate).as_integer_ratio() for rate in (a, b, c, d)]
    den = max(rate_den for _, rate_den in ratios)
    counts = (n_neg, n_neg, n_pos, n_pos)
    return (*(num * (den // rate_den) * count
              for (num, rate_den), count in zip(ratios, counts, strict=True)), den)


def side_bounds(fpr_box, tpr_box, n_neg, n_pos):
    """The floor and ceiling of each side A, B, C, D of the box in class counts, exactly.

    The eight integers the count kernels compare the curve's integer corners
    with (``_partial.box_area_counts``): a side's floor and ceiling are equal
    when it is an integer.
    """
    *numerators, den = sides(fpr_box, tpr_box, n_neg, n_pos)
    bounds = []
    for numerator in numerators:
        bounds += [numerator // den, -(-numerator // den)]
    return bounds


def count_group_parts(group_neg, group_pos, fp, tp, fpr_box, tpr_box, n_neg, n_pos):
    """The integer parts of the box's area (as ``exact_area`` takes them) of a range of
    groups of class counts starting at the corner (fp, tp) of a curve of n_neg, n_pos points.
    """
    return _partial.box_area_count_groups(group_neg, group_pos, fp, tp,
                                          *side_bounds(fpr_box, tpr_box, n_neg, n_pos))


def _cut_area(u0, t0, g0, g1, low_a, high_b, low_c, high_d, den):
    """The exact area in the box under the segment (u0, t0) -> (u0 + g0, t0 + g1), g0 > 0.

    The sides are ``low_a / den``, ..., ``high_d / den`` (``sides``).  The
    integral over u in [A, B] of the segment's height clamped to [C, D],
    minus C: zero where the height is at most C, a trapezoid where it is
    between C and D, D - C beyond.  Returned as ``(numerator, denominator)``
    of integers: in units of 1 / den the corners are integers, and the points
    where the segment reaches C and D are integers over g1.
    """
    u0, t0, g0 = u0 * den, t0 * den, g0 * den
    low = max(low_a, u0)
    high = min(high_b, u0 + g0)
    if not high > low:
        return 0, 1
    g0 //= den
    if g1 == 0:
        return (min(max(t0, low_c), high_d) - low_c) * (high - low), den * den
    # u in units of 1 / (den g1), heights in units of 1 / (den g0).
    start, low, high = u0 * g1, low * g1, high * g1
    at_c = min(max(start + (low_c - t0) * g0, low), high)
    at_d = min(max(start + (high_d - t0) * g0, low), high)
    height_c = t0 * g0 + at_c - start
    height_d = t0 * g0 + at_d - start
    numerator = ((at_d - at_c) * (height_c + height_d - 2 * low_c * g0)
                 + 2 * g0 * (high_d - low_c) * (high - at_d))
    return numerator, 2 * den * den * g0 * g1


def exact_area(twice_inside, width_inside, width_above, cuts, fpr_box, tpr_box, n_neg,
                n_pos):
    """The unit-weight box area over n_neg n_pos, exact, from its integer parts.

    The parts of ``_partial.box_area_counts`` (shared with
    ``DynamicAUC.partial_auc``): the segments inside the box and at or above
    its top summed in integers, and the few segments crossing a side, which
    are cut here in exact rational arithmetic.  Returns the pair
    ``(numerator, denominator)`` of ints (for ``corrected``, which rounds
    once).
    """
    low_a, high_b, low_c, high_d, den = sides(fpr_box, tpr_box, n_neg, n_pos)
    # twice_inside / 2 - C width_inside + (D - C) width_above, over 2 den^2.
    numerator = den * (twice_inside * den - 2 * low_c * width_inside
                       + 2 * (high_d - low_c) * width_above)
    denominator = 2 * den * den
    for cut in cuts:
        cut_numerator, cut_denominator = _cut_area(*cut, low_a, high_b, low_c, high_d, den)
        numerator = numerator * cut_denominator + cut_numerator * denominator
        denominator *= cut_denominator
    return numerator, denominator * n_neg * n_pos


def corrected(area, fpr_box, tpr_box, fpr_range, tpr_range, correction):
    """The partial area ``area`` of the box, McClish-standardised if asked (checked options).

    ``area`` is exact, a pair ``(numerator, denominator)`` of ints
    (``exact_area``) or a Fraction (unit weights; the correction is then
    exact too, rounded once: a narrow range's A - A_min is not lost to
    cancellation), or a float.
    """
    if isinstance(area, Fraction):
        area = area.numerator, area.denominator
    if isinstance(area, tuple):
        return _corrected_exact(*area, fpr_box, tpr_box, fpr_range, tpr_range, correction)
    if correction is None or (fpr_range is None and tpr_range is None):
        return min(max(float(area), 0.0), 1.0)
    # (1 + (A - A_min) / (A_max - A_min)) / 2 divided through by the width, with
    # A_max - A_min in closed form.
    if tpr_range is None:
        low, high = fpr_box
        mean = area / (high - low)
        excess = mean - (low + high) / 2  # the diagonal's mean height is (low + high) / 2
        twice_room = (1 - low) + (1 - high)
    else:
        low, high = tpr_box
        mean = area / (high - low)
        excess = mean - 1 + (low + high) / 2  # the diagonal's mean of 1 - t
        twice_room = low + high
    return float(0.5 + excess / twice_room)


def _corrected_exact(numerator, denominator, fpr_box, tpr_box, fpr_range, tpr_range,
                     correction):
    """``corrected`` of the exact area numerator / denominator (ints, denominator > 0).

    In integers, with one correctly rounded division (Python's int / int) at
    the end: the bounds l = p / q and h = r / q over one power of two q, A the
    area, the McClish value is

    - over FPRs: 1/2 + (A / (h - l) - (l + h) / 2) / ((1 - l) + (1 - h));
    - over TPRs: 1/2 + (A / (h - l) - 1 + (l + h) / 2) / (l + h).
    """
    if correction is None or (fpr_range is None and tpr_range is None):
        return min(max(numerator / denominator, 0.0), 1.0)
    low, high = fpr_box if tpr_range is None else tpr_box
    (p, p_den), (r, r_den) = float(low).as_integer_ratio(), float(high).as_integer_ratio()
    q = max(p_den, r_den)
    p, r = p * (q // p_den), r * (q // r_den)
    width = denominator * (r - p)  # (h - l) q times the area's denominator
    if tpr_range is None:
        room = 2 * q - p - r  # ((1 - l) + (1 - h)) q
        top = width * room + 2 * q * q * numerator - width * (p + r)
    else:
        room = p + r  # (l + h) q
        top = width * room + 2 * q * q * numerator - 2 * q * width + width * (p + r)
    bottom = 2 * width * room
    # (pROC's McClish value may leave [0, 1] by definition; a range of
    # subnormal width may even take it beyond the float range.)
    try:
        return top / bottom
    except OverflowError:
        return math.inf if top > 0 else -math.inf
