# The package's threshold rule on the order engine (see _read_threshold.pyx).

from hmeasure_stream._engines._blocked cimport BlockedAUCEngine, RecordStep

cdef void at_or_above(BlockedAUCEngine engine, double threshold, double* above_neg,
                      double* above_pos, double* total_neg, double* total_pos) noexcept nogil
cdef void above(BlockedAUCEngine engine, double threshold, double* above_neg,
                double* above_pos, double* total_neg, double* total_pos) noexcept nogil
cdef void threshold_metrics(BlockedAUCEngine engine, double threshold,
                            double* out) noexcept nogil
cdef int attach_at(BlockedAUCEngine engine, RecordStep step, double threshold,
                   tuple columns, str module) except -1
