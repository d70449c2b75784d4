# Declarations of the partial areas read from the sorted blocks: the area of
# the ROC curve inside a box in O(log n + BLOCK), also recorded by a blocked
# engine for the window metric "pauc" (``record_box``).

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine


cdef struct BoxParts:
    # The area of the curve inside the box, in the units of the class
    # weights, split as the from-scratch kernel splits it (_partial.pyx):
    # twice_inside / 2 - C * width_inside + (D - C) * width_above + rest.
    # With unit weights the first three are exact integers (held as doubles,
    # exact below 2**53), the segments are classified against the exact sides
    # (their floors and ceilings) and ``rest`` is the cut segments' area in
    # floating point.  ``area`` is that sum, from non-negative pieces.
    double twice_inside
    double width_inside
    double width_above
    double rest
    double area
    double total_neg
    double total_pos
    # With unit weights, the segments crossing a side (u0, t0, g0, g1), exact
    # integers, for an exact rational cut (``partial._exact_area``).
    int n_cuts
    double cuts[4][4]


cdef bint box_parts(BlockedAUCEngine blocked, double a, double b, double c, double d,
                    BoxParts* parts) noexcept nogil
cdef double box_fraction(BlockedAUCEngine blocked, double a, double b, double c,
                         double d) noexcept nogil
cdef double mcclish(double area, double a, double b, double c, double d,
                    bint has_fpr, bint has_tpr) noexcept nogil
