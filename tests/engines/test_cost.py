"""The per-edge loss term of the H-measure (Tatti, Eq. 7): closed form against scipy."""

import numpy as np
import pytest
from scipy.special import betainc, betaincc

from hmeasure_stream._engines._cost import loss_of_edge


@pytest.mark.parametrize(
    ("alpha", "beta"),
    [(1.0, 1.0), (2.0, 2.0), (2.0, 3.0), (3.0, 17.0), (20.0, 20.0), (1.0, 39.0), (2.5, 2.0),
     (25.0, 25.0)],
)
def test_edge_loss_closed_form_equals_scipy_incomplete_beta(alpha, beta):
    """Integer shapes use binomial sums (alpha + beta <= 40), the rest scipy: both equal
    a I_c(alpha + 1, beta) + b (1 - I_c(alpha, beta + 1)) by scipy, c = b / (a + b)."""
    rng = np.random.default_rng(7)
    edges = [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (1e6, 1.0), (1.0, 1e6), (3.0, 5.0)]
    edges += [tuple(map(float, pair))
              for pair in rng.exponential(size=(200, 2)) * 10.0 ** rng.integers(-3, 7, (200, 1))]
    for d_neg, d_pos in edges:
        cost = d_pos / (d_neg + d_pos)
        expected = (d_neg * alpha / (alpha + beta) * betainc(alpha + 1, beta, cost)
                    + d_pos * beta / (alpha + beta) * betaincc(alpha, beta + 1, cost))
        assert loss_of_edge(d_neg, d_pos, alpha, beta) == pytest.approx(expected, rel=1e-13,
                                                                         abs=1e-300)
    assert loss_of_edge(0.0, 0.0, alpha, beta) == 0.0
