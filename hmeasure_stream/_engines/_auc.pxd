# Declarations of the exact AUC engine on the score treap (Tatti,
# "Maintaining AUC and H-measure over time", Sec. 4): the base of the engine of
# ApproxAUC, whose lists are threaded through the treap's nodes.

from hmeasure_stream._engines._protocol cimport PointEngine
from hmeasure_stream._engines._treap cimport ScoreTreap

cdef class AUCEngine(PointEngine):
    cdef readonly ScoreTreap tree
    # Unit weights: 2U of Props 1-2, an exact integer (compensated pair).
    cdef double twice_u
    cdef double twice_u_compensation

    cdef int _tree_update(self, bint is_pos, double score, double weight,
                          bint adding) except -1 nogil
    cdef double _auc(self) noexcept nogil
