"""DeLong's variance and interval of the AUC, read from the order engine.

A reader: the engine keeps the placements (``track_variance``: the pair
sums of every block and node and DeLong's sums of squared placement
numerators, Q1 and Q0 exactly in unit mode, the centred M1 and M0 with
weights); the variance is read from them and the root's class weights in
O(1) (``_delong.delong_variance``), the interval as ``auc_ci``'s, the AUC
plus normal quantiles times the standard error, clipped to [0, 1].
``attach`` is the window metrics ``auc_var``, ``auc_lo`` and ``auc_hi``.
"""

from libc.math cimport NAN

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine
from hmeasure_stream._engines._delong cimport (
    caller_units,
    delong_interval,
    delong_variance,
    exact_pairs,
)

#: The columns ``attach`` records.
COLUMNS = ("auc_var", "auc_lo", "auc_hi")


cdef double variance_of(BlockedAUCEngine engine, double scale) noexcept nogil:
    """DeLong's variance with weights as frequencies, a stored weight of 1 counting
    ``scale``; nan without the placements, or while a class has total weight <= 1."""
    if engine.n_blocks == 0 or not engine.placements:
        return NAN
    return delong_variance(
        engine.weighted, engine.tree[3], engine.tree[4],
        exact_pairs(engine.twice_u, engine.twice_u_compensation), engine.square_pos,
        engine.square_neg, engine.square_tree[2] if engine.weighted else 0.0,
        engine.square_tree[3] if engine.weighted else 0.0, scale)


def variance(BlockedAUCEngine engine, double scale):
    """``variance_of``: nan unless ``engine.track_variance()`` was called."""
    return variance_of(engine, scale)


cdef Py_ssize_t _record(BlockedAUCEngine engine, const double* params, double* row,
                        Py_ssize_t column) noexcept nogil:
    # The variance and interval of the AUC in row[0], weights in the caller's units
    # (with decay relative to the newest point).
    delong_interval(row[0], variance_of(engine, caller_units(engine.inverse_scale,
                                                             engine.newest_decay)),
                    params[0], params[1], row + column)
    return 3


def attach(BlockedAUCEngine engine, double quantile_low, double quantile_high):
    """Have ``engine`` record ``COLUMNS`` after each step of a window: DeLong's variance and
    the AUC plus the normal quantiles ``quantile_low`` and ``quantile_high`` times its
    standard error, clipped to [0, 1]; turns on ``track_variance``."""
    cdef double params[2]
    engine.track_variance()
    params[0] = quantile_low
    params[1] = quantile_high
    engine.attach(_record, params, 2, COLUMNS,
                  (__name__, "attach", (quantile_low, quantile_high)))
