"""The cost distribution of the H-measure and H computed from ROC hull edges.

Notation (Hand 2009; seed 000, Sec. 2).  Class 1 is expected to score
higher.  ``c`` in [0, 1] is the normalised cost of a false positive (so 1 - c
is that of a false negative) and the loss of the hull vertex with rates
(FPR, TPR) is ``c * pi0 * FPR + (1 - c) * pi1 * (1 - TPR)``.  The H-measure
averages the minimum loss over c ~ u = Beta(alpha, beta) and normalises it by
the loss of the best trivial classifier:

    H = 1 - L / L_max.

Summing the loss by parts over the hull edges (the derivation of seed 000,
Eq. 7, for any priors) gives, for edge j with rate steps (dx_j, dy_j),

    a_j = pi0 dx_j,  b_j = pi1 dy_j,  c_j = b_j / (a_j + b_j),
    L = sum_j a_j I(c_j) + b_j J(c_j),
    I(c) = int_0^c t u(t) dt   = alpha / (alpha + beta) * betainc(alpha + 1, beta, c),
    J(c) = int_c^1 (1-t) u(t) dt = beta / (alpha + beta) * betaincc(alpha, beta + 1, c),
    L_max = pi0 I(pi1) + pi1 J(pi1).

Every term is non-negative, so the sum loses no precision to cancellation.
With priors estimated from the data, a_j and b_j are the edge's class
weights over the total weight and c_j depends on the edge alone, which is
what makes H maintainable under updates (seed 000, Sec. 5.3).
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from hmeasure_stream._validation import check_positive

_DEFAULT_ALPHA = 2.0
_DEFAULT_BETA = 2.0


@dataclass(frozen=True)
class CostSpec:
    """A validated choice of cost distribution and class priors.

    Data-independent: ``at`` resolves it against the class weights of the
    data (priors estimated from the data, R's ``severity_ratio="prior"``).
    """

    alpha: float
    beta: float
    severity_ratio: float | str | None
    priors: tuple[float, float] | None

    def at(self, weight_neg, weight_pos):
        """``(pi0, pi1, alpha, beta, severity_ratio)`` in effect for these class weights.

        ``severity_ratio`` is None when the distribution was given by alpha
        and beta.
        """
        if self.priors is None:
            total = weight_neg + weight_pos
            pi0, pi1 = weight_neg / total, weight_pos / total
        else:
            pi0, pi1 = self.priors
        ratio = self.severity_ratio
        if ratio is None:
            return pi0, pi1, self.alpha, self.beta, None
        if ratio == "prior":
            ratio = pi1 / pi0
        # R hmeasure's parameterisation: Beta(2, 1 + 1/SR), mode SR / (1 + SR).
        return pi0, pi1, 2.0, 1.0 + 1.0 / ratio, ratio


def resolve_cost(alpha=_DEFAULT_ALPHA, beta=_DEFAULT_BETA, severity_ratio=None, priors=None):
    """Validate the H-measure options shared by every function and structure.

    ``severity_ratio`` (a number > 0 or ``"prior"``) replaces alpha and beta
    by R's Beta(2, 1 + 1/SR); passing it with alpha or beta other than their
    defaults is refused as contradictory.
    """
    alpha = check_positive(alpha, "alpha")
    beta = check_positive(beta, "beta")
    if severity_ratio is not None:
        if (alpha, beta) != (_DEFAULT_ALPHA, _DEFAULT_BETA):
            raise ValueError(
                "pass either severity_ratio or alpha/beta, not both: severity_ratio=SR "
                f"means Beta(2, 1 + 1/SR), which contradicts alpha={alpha}, beta={beta}"
            )
        if isinstance(severity_ratio, str):
            if severity_ratio != "prior":
                raise ValueError(
                    f'severity_ratio must be a number > 0 or "prior", got {severity_ratio!r}'
                )
        else:
            severity_ratio = check_positive(severity_ratio, "severity_ratio")
    if priors is not None:
        priors = check_priors(priors)
    return CostSpec(alpha, beta, severity_ratio, priors)


def check_priors(priors):
    """``priors=(pi0, pi1)``: two probabilities in (0, 1) that sum to 1."""
    try:
        pi0, pi1 = priors
        pi0, pi1 = float(pi0), float(pi1)
    except (TypeError, ValueError):
        raise ValueError(f"priors must be a pair (pi0, pi1) of numbers, got {priors!r}") from None
    if not (0 < pi0 < 1 and 0 < pi1 < 1):
        raise ValueError(f"priors must both lie in (0, 1), got ({pi0!r}, {pi1!r})")
    if not math.isclose(pi0 + pi1, 1.0, rel_tol=0, abs_tol=1e-9):
        raise ValueError(f"priors must sum to 1, got {pi0!r} + {pi1!r} = {pi0 + pi1!r}")
    return pi0, pi1


def integral_cost(c, alpha, beta):
    """I(c) = int_0^c t u(t) dt for u = Beta(alpha, beta)."""
    return alpha / (alpha + beta) * special.betainc(alpha + 1.0, beta, c)


def integral_benefit_above(c, alpha, beta):
    """J(c) = int_c^1 (1 - t) u(t) dt for u = Beta(alpha, beta)."""
    return beta / (alpha + beta) * special.betaincc(alpha, beta + 1.0, c)


def max_loss(pi0, pi1, alpha, beta):
    """L_max: the loss of the best trivial classifier (all class 0 or all class 1)."""
    return pi0 * integral_cost(pi1, alpha, beta) + pi1 * integral_benefit_above(pi1, alpha, beta)


def h_from_hull(hull_fp, hull_tp, pi0, pi1, alpha, beta):
    """H from the hull vertices' cumulative class weights (from (0, 0) to (N0, N1))."""
    hull_fp = np.asarray(hull_fp, dtype=np.float64)
    hull_tp = np.asarray(hull_tp, dtype=np.float64)
    step_neg = pi0 * (np.diff(hull_fp) / hull_fp[-1])
    step_pos = pi1 * (np.diff(hull_tp) / hull_tp[-1])
    edge_cost = step_pos / (step_neg + step_pos)
    loss = np.sum(
        step_neg * integral_cost(edge_cost, alpha, beta)
        + step_pos * integral_benefit_above(edge_cost, alpha, beta)
    )
    return 1.0 - float(loss) / float(max_loss(pi0, pi1, alpha, beta))


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
