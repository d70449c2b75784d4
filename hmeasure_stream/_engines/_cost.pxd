# Declarations of the H-measure's cost rules and loss arithmetic: the one
# owner of R hmeasure's severity-ratio rule and of the per-edge loss term
# (Hand, "Measuring classifier performance"; Tatti, "Maintaining AUC and
# H-measure over time", Sec. 5.3, Eq. 7).

from libc.stdint cimport int32_t


cdef struct Cost:
    # A cost distribution Beta(alpha, beta) and class priors.
    double pi0               # nan: the class proportions of the data
    double pi1
    double alpha
    double beta              # nan with ratio_from_priors: resolved against the priors
    bint ratio_from_priors   # R's severity_ratio="prior": SR = pi1 / pi0


cdef inline double severity_beta(double ratio) noexcept nogil:
    """R hmeasure's severity ratio SR as the Beta's second shape: Beta(2, 1 + 1/SR)."""
    return 1.0 + 1.0 / ratio


cdef inline void resolve_cost(const Cost* cost, double weight_neg, double weight_pos,
                              double* pi0, double* pi1, double* alpha,
                              double* beta) noexcept nogil:
    """The priors and Beta shape in effect for data of these class weights."""
    if cost.pi0 != cost.pi0:
        pi0[0] = weight_neg / (weight_neg + weight_pos)
        pi1[0] = weight_pos / (weight_neg + weight_pos)
    else:
        pi0[0] = cost.pi0
        pi1[0] = cost.pi1
    alpha[0] = cost.alpha
    beta[0] = severity_beta(pi1[0] / pi0[0]) if cost.ratio_from_priors else cost.beta


cdef enum:
    # Closed-form loss terms up to alpha + beta = 40: every C(m, j) is an
    # exact double.
    MAX_INTEGER_ORDER = 40


ctypedef double (*IncompleteBetaFunction)(double, double, double) noexcept nogil


cdef struct IncompleteBeta:
    # scipy's betainc and betaincc, loaded on first use (``_incomplete_beta``).
    IncompleteBetaFunction lower
    IncompleteBetaFunction upper


cdef inline const char* incomplete_beta_capsule() noexcept nogil:
    """The name of the capsule that carries them."""
    return b"hmeasure_stream._engines._incomplete_beta.functions"


cdef int integer_order_of(double alpha, double beta) noexcept nogil
cdef double edge_loss(double rate_neg, double rate_pos, double alpha, double beta,
                      int integer_order) noexcept nogil


cdef struct SubsetWalk:
    # Alg. 3 (Subset) over a hull with its H-measure loss summed on the way.
    double epsilon
    double total_neg           # the hull's end point (N0, N1)
    double total_pos
    double rate_neg            # pi0 / N0 and pi1 / N1: class weight -> prior-weighted rate
    double rate_pos
    double alpha
    double beta
    int integer_order
    double previous_x          # the last vertex put in the subset Q
    double previous_y
    double loss                # sum of the loss terms of Q's edges so far
    int32_t count              # vertices put in Q so far
    double* record_x           # if not NULL: Q's vertices are written here (for tests)
    double* record_y


cdef inline void subset_edge(SubsetWalk* walk, double x, double y) noexcept nogil:
    """Put the vertex (x, y) in Q: add the loss term of the edge from Q's previous vertex.

    With float weights, coordinates summed in different orders may differ by
    an ulp; a difference below zero is rounding and counts as zero.
    """
    walk.loss += edge_loss(walk.rate_neg * max(x - walk.previous_x, 0.0),
                           walk.rate_pos * max(y - walk.previous_y, 0.0),
                           walk.alpha, walk.beta, walk.integer_order)
    if walk.record_x != NULL:
        walk.record_x[walk.count] = x
        walk.record_y[walk.count] = y
    walk.previous_x = x
    walk.previous_y = y
    walk.count += 1


cdef class CostRule:
    cdef Cost cost
    cdef readonly object severity_ratio   # None, a number, or "prior", as given
