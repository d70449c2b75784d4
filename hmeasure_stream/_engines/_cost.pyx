"""The H-measure's cost distribution, its rules and its loss arithmetic.

The one owner of the cost rules of the package: R hmeasure's severity ratio,
the priors taken from the data or fixed, and the loss of a ROC hull edge.

Notation (Hand, "Measuring classifier performance: a coherent alternative to
the area under the ROC curve"; Tatti, "Maintaining AUC and H-measure over
time", Sec. 2).  Class 1 is expected to score higher.  ``c`` in [0, 1] is
the normalised cost of a false positive (so 1 - c is that of a false
negative) and the loss of the hull vertex with rates (FPR, TPR) is
``c * pi0 * FPR + (1 - c) * pi1 * (1 - TPR)``.  The H-measure averages the
minimum loss over c ~ u = Beta(alpha, beta) and normalises it by the loss of
the best trivial classifier:

    H = 1 - L / L_max.

Summing the loss by parts over the hull edges (Tatti, Eq. 7, for any priors)
gives, for edge j with rate steps (dx_j, dy_j),

    a_j = pi0 dx_j,  b_j = pi1 dy_j,  c_j = b_j / (a_j + b_j),
    L = sum_j a_j I(c_j) + b_j J(c_j),
    I(c) = int_0^c t u(t) dt   = alpha / (alpha + beta) * betainc(alpha + 1, beta, c),
    J(c) = int_c^1 (1-t) u(t) dt = beta / (alpha + beta) * betaincc(alpha, beta + 1, c),
    L_max = pi0 I(pi1) + pi1 J(pi1).

Every term is non-negative, so the sum loses no precision to cancellation.
With priors estimated from the data, a_j and b_j are the edge's class
weights over the total weight and c_j depends on the edge alone, which is
what makes H maintainable under updates (Tatti, Sec. 5.3).

For integer shapes a, b (Beta(2, 2), the default, and severity ratios 1/k)
the incomplete beta functions are finite binomial sums of positive terms,
evaluated directly (``integer_order`` = a + b); scipy's betainc otherwise,
loaded on first use: importing scipy.special is most of a second of start-up
that the default shapes never need.
"""

import numpy as np

from cpython.pycapsule cimport PyCapsule_GetPointer
from libc.math cimport NAN, floor


# C(m, j) for m, j <= MAX_INTEGER_ORDER (Pascal's triangle: exact integers in doubles).
cdef double _binomial[MAX_INTEGER_ORDER + 1][MAX_INTEGER_ORDER + 1]


cdef void _fill_binomial() noexcept:
    cdef int m, j
    for m in range(MAX_INTEGER_ORDER + 1):
        for j in range(MAX_INTEGER_ORDER + 1):
            _binomial[m][j] = 0.0
        _binomial[m][0] = 1.0
        for j in range(1, m + 1):
            _binomial[m][j] = _binomial[m - 1][j - 1] + _binomial[m - 1][j]


_fill_binomial()


# scipy's incomplete beta functions once loaded (``_load_incomplete_beta``).
cdef IncompleteBeta _incomplete_beta
_incomplete_beta.lower = NULL
_incomplete_beta.upper = NULL


cdef int _load_incomplete_beta() except -1:
    from hmeasure_stream._engines import _incomplete_beta as module
    global _incomplete_beta
    _incomplete_beta = (<IncompleteBeta*>PyCapsule_GetPointer(
        module.functions, incomplete_beta_capsule()))[0]
    return 0


cdef void _ensure_incomplete_beta() noexcept with gil:
    # Called from nogil loss loops; the import fails only if scipy is broken,
    # and then the loss terms are nan (the error is reported as unraisable).
    if _incomplete_beta.lower == NULL:
        _load_incomplete_beta()


cdef inline void _binomial_tails(int order, int split, double p, double q,
                                 double* above, double* below) noexcept nogil:
    """Sums of C(m, j) p^j q^(m - j) over j > split and over j < split (m = order, q = 1 - p).

    Every term is non-negative, so both sums are accurate to a few ulps.  The
    coefficients come from the table, so no term waits for a division.
    """
    cdef double p_power[MAX_INTEGER_ORDER + 1]
    cdef double q_power = 1.0, term
    cdef const double* coefficient = _binomial[order]
    cdef int j
    p_power[0] = 1.0
    for j in range(1, order + 1):
        p_power[j] = p_power[j - 1] * p
    above[0] = 0.0
    below[0] = 0.0
    # From j = m down, so that q^(m - j) is built up by one product per term.
    for j in range(order, -1, -1):
        term = coefficient[j] * p_power[j] * q_power
        if j > split:
            above[0] += term
        elif j < split:
            below[0] += term
        q_power *= q


cdef int integer_order_of(double alpha, double beta) noexcept nogil:
    """alpha + beta when both are integers >= 1 small enough for the binomial sums, else 0."""
    if (alpha == floor(alpha) and beta == floor(beta) and alpha >= 1.0 and beta >= 1.0
            and alpha + beta <= MAX_INTEGER_ORDER):
        return <int>(alpha + beta)
    return 0


cdef double edge_loss(double rate_neg, double rate_pos, double alpha, double beta,
                      int integer_order) noexcept nogil:
    """a I(c) + b J(c) for an edge of (prior-weighted) rates a, b; c = b / (a + b).

    See the module docstring; ``integer_order`` from ``integer_order_of``.
    """
    cdef double total = rate_neg + rate_pos, cost, upper, lower
    if not total > 0.0:
        return 0.0
    cost = rate_pos / total
    if integer_order:
        # With m = a + b and t_j = C(m, j) c^j (1 - c)^(m - j):
        # betainc(a + 1, b, c) = sum of t_j over j > a and
        # betaincc(a, b + 1, c) = sum over j < a (the binomial tail identities).
        _binomial_tails(integer_order, <int>alpha, cost, rate_neg / total, &upper, &lower)
    else:
        if _incomplete_beta.lower == NULL:
            _ensure_incomplete_beta()
            if _incomplete_beta.lower == NULL:
                return NAN
        upper = _incomplete_beta.lower(alpha + 1.0, beta, cost)
        lower = _incomplete_beta.upper(alpha, beta + 1.0, cost)
    return (rate_neg * alpha / (alpha + beta) * upper
            + rate_pos * beta / (alpha + beta) * lower)


cdef class CostRule:
    """A cost distribution and class priors, as the public layer validated them.

    ``severity_ratio`` (a number, or ``"prior"`` for R's default SR = pi1 / pi0)
    replaces alpha and beta by R hmeasure's Beta(2, 1 + 1/SR).  ``priors``
    None takes the class proportions of the data.  No validation here.
    """

    def __init__(self, double alpha=2.0, double beta=2.0, severity_ratio=None, priors=None):
        self.severity_ratio = severity_ratio
        self.cost.pi0 = NAN if priors is None else float(priors[0])
        self.cost.pi1 = NAN if priors is None else float(priors[1])
        self.cost.ratio_from_priors = isinstance(severity_ratio, str)
        if severity_ratio is None:
            self.cost.alpha, self.cost.beta = alpha, beta
        elif self.cost.ratio_from_priors:
            self.cost.alpha, self.cost.beta = 2.0, NAN
        else:
            self.cost.alpha, self.cost.beta = 2.0, severity_beta(float(severity_ratio))

    @property
    def priors(self):
        """(pi0, pi1) fixed from outside, or None for the class proportions of the data."""
        if self.cost.pi0 != self.cost.pi0:
            return None
        return (self.cost.pi0, self.cost.pi1)

    @property
    def exact_on_structures(self):
        """Whether H under this rule splits into independent hull-edge terms (Sec. 5.3).

        True when the priors come from the data and the Beta shape does not
        depend on them: the exact maintained H applies.
        """
        return self.priors is None and not self.cost.ratio_from_priors

    @property
    def shape(self):
        """(alpha, beta) when they do not depend on the data, else None."""
        if self.cost.ratio_from_priors:
            return None
        return (self.cost.alpha, self.cost.beta)

    def at(self, double weight_neg, double weight_pos):
        """``(pi0, pi1, alpha, beta, severity_ratio)`` in effect for these class weights.

        ``severity_ratio`` is None when the distribution was given by alpha
        and beta, and the number in effect otherwise.
        """
        cdef double pi0, pi1, alpha, beta
        resolve_cost(&self.cost, weight_neg, weight_pos, &pi0, &pi1, &alpha, &beta)
        if self.severity_ratio is None:
            ratio = None
        elif self.cost.ratio_from_priors:
            ratio = pi1 / pi0
        else:
            ratio = float(self.severity_ratio)
        return pi0, pi1, alpha, beta, ratio

    def __reduce__(self):
        given = (self.cost.alpha, self.cost.beta) if self.severity_ratio is None else (2.0, 2.0)
        return (CostRule, (*given, self.severity_ratio, self.priors))

    def __repr__(self):
        return (f"CostRule(shape={self.shape!r}, severity_ratio={self.severity_ratio!r}, "
                f"priors={self.priors!r})")


def integral_cost(c, alpha, beta):
    """I(c) = int_0^c t u(t) dt for u = Beta(alpha, beta)."""
    from scipy import special
    return alpha / (alpha + beta) * special.betainc(alpha + 1.0, beta, c)


def integral_benefit_above(c, alpha, beta):
    """J(c) = int_c^1 (1 - t) u(t) dt for u = Beta(alpha, beta)."""
    from scipy import special
    return beta / (alpha + beta) * special.betaincc(alpha, beta + 1.0, c)


def max_loss(pi0, pi1, alpha, beta):
    """L_max: the loss of the best trivial classifier (all class 0 or all class 1)."""
    return pi0 * integral_cost(pi1, alpha, beta) + pi1 * integral_benefit_above(pi1, alpha, beta)


def h_from_edges(edge_neg, edge_pos, pi0, pi1, alpha, beta):
    """H from the class weights of the hull's edges, in order from (0, 0).

    Each edge's rate steps are its own weights over the class totals, so an
    edge far below the rounding of the cumulative weights (a point decayed by
    2**-60 next to one of weight 1) keeps its loss term: with priors that
    make it count (the other class weighing 2**-120) it decides H.
    """
    edge_neg = np.asarray(edge_neg, dtype=np.float64)
    edge_pos = np.asarray(edge_pos, dtype=np.float64)
    step_neg = pi0 * (edge_neg / np.sum(edge_neg))
    step_pos = pi1 * (edge_pos / np.sum(edge_pos))
    # An edge of two zero steps (weights below 2**-1074 of their class) has no loss.
    edge = (step_neg + step_pos) > 0.0
    step_neg, step_pos = step_neg[edge], step_pos[edge]
    edge_cost = step_pos / (step_neg + step_pos)
    loss = np.sum(
        step_neg * integral_cost(edge_cost, alpha, beta)
        + step_pos * integral_benefit_above(edge_cost, alpha, beta)
    )
    return 1.0 - float(loss) / float(max_loss(pi0, pi1, alpha, beta))


def h_from_hull(hull_fp, hull_tp, pi0, pi1, alpha, beta):
    """H from the hull vertices' cumulative class weights (from (0, 0) to (N0, N1)).

    The edges are the differences of the vertices: a step below their
    rounding is lost; callers holding the edges use ``h_from_edges``.
    """
    return h_from_edges(np.diff(hull_fp), np.diff(hull_tp), pi0, pi1, alpha, beta)


def loss_of_edge(double rate_neg, double rate_pos, double alpha, double beta):
    """``edge_loss`` for Python callers (tests): a I(c) + b J(c), c = b / (a + b)."""
    return edge_loss(rate_neg, rate_pos, alpha, beta, integer_order_of(alpha, beta))


def mwl_cost(alpha, beta, severity_ratio):
    """The single cost c at which R's minimum weighted loss (MWL) is evaluated.

    R uses SR / (1 + SR), the mode of its Beta(2, 1 + 1/SR).  For a
    distribution given by alpha and beta we use its mode as well, or its mean
    when the mode is not interior (alpha <= 1 or beta <= 1).
    """
    if severity_ratio is not None:
        return severity_ratio / (1.0 + severity_ratio)
    if alpha > 1 and beta > 1:
        return (alpha - 1.0) / (alpha + beta - 2.0)
    return alpha / (alpha + beta)
