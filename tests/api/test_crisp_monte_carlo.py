"""The Monte Carlo VUS of a set of crisp classifiers (crisp_vus with method="monte carlo").

Checked against the exact volume of the set for 3 classes (Qhull, itself checked in
test_crisp.py), against an independent estimate by one feasibility program per sample for
4 classes, by regions known to be equal or nested (same samples, same random_state), and
for the extremes.
"""

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from hmeasure_stream import crisp_vus


def _classifier(rng, c, skill):
    return np.array([rng.dirichlet(np.ones(c) + skill * np.eye(c)[i]) for i in range(c)])


def _trivial(c, j):
    z = np.zeros((c, c))
    z[:, j] = 1.0
    return z


@pytest.mark.parametrize("seed, sizes", [(0, (4, 4)), (1, (2, 6, 3)), (2, (1, 8)),
                                         (3, (5, 0, 9, 2))])
def test_three_classes_set_within_four_errors_of_the_exact_volume(seed, sizes):
    rng = np.random.default_rng(seed)
    rates = [_classifier(rng, 3, skill) for skill in sizes]
    exact = crisp_vus(rates).vus
    estimate = crisp_vus(rates, method="monte carlo", n_samples=60_000, random_state=seed)
    assert estimate.method == "monte carlo" and estimate.n_samples == 60_000
    assert 0 < estimate.std_error < 1e-3
    assert abs(estimate.vus - exact) < 4 * estimate.std_error
    # The set does better than each of its classifiers alone.
    assert estimate.vus >= max(crisp_vus(z).vus for z in rates) - 4 * estimate.std_error


def _discarded_by_program(v, rates):
    """The definition: some h_0..h_{c-1}, mu_1..mu_m >= 0 summing to 1 with
    v_ij >= h_j + sum_k mu_k z^k_ij for every i != j (one feasibility program)."""
    c = v.shape[0]
    pairs = list(itertools.permutations(range(c), 2))
    a_ub = np.array([[1.0 if g == j else 0.0 for g in range(c)] + [z[i, j] for z in rates]
                     for i, j in pairs])
    result = linprog(np.zeros(a_ub.shape[1]), A_ub=a_ub, b_ub=[v[i, j] for i, j in pairs],
                     A_eq=np.ones((1, a_ub.shape[1])), b_eq=[1.0], bounds=(0, None),
                     method="highs")
    return result.status == 0


@pytest.mark.slow
def test_four_classes_set_agrees_with_an_independent_estimate():
    rng = np.random.default_rng(11)
    rates = [_classifier(rng, 4, 6), _classifier(rng, 4, 6), _classifier(rng, 4, 3)]
    n = 2000
    draws = np.random.default_rng(5).exponential(size=(n, 4, 4))
    samples = draws / draws.sum(axis=2, keepdims=True)
    fraction = np.mean([_discarded_by_program(v, rates) for v in samples])
    volume = (1 / 6) ** 4
    reference, reference_error = volume * fraction, volume * math.sqrt(
        fraction * (1 - fraction) / n)
    result = crisp_vus(rates, n_samples=100_000, random_state=2)
    assert result.method == "monte carlo"
    assert abs(result.vus - reference) < 4 * math.hypot(result.std_error, reference_error)


def test_same_samples_decide_the_same_for_equal_regions():
    # Regions known to be equal give the same estimate on the same samples.
    rng = np.random.default_rng(21)
    c = 4
    a = _classifier(rng, c, 5)
    b = _classifier(rng, c, 3)
    single = crisp_vus(a, method="monte carlo", n_samples=20_000, random_state=8)
    # A mix of a classifier with a trivial one is already in the hull.
    mixed = [a, 0.5 * a + 0.5 * _trivial(c, 2), _trivial(c, 0)]
    assert crisp_vus(mixed, n_samples=20_000, random_state=8) == single
    # Every trivial classifier discards the same region; as a set, too.
    trivial = crisp_vus(_trivial(c, 1), n_samples=20_000, random_state=8)
    assert crisp_vus([_trivial(c, j) for j in range(c)], n_samples=20_000,
                     random_state=8) == trivial
    assert crisp_vus(np.full((c, c), 1 / c), n_samples=20_000, random_state=8) == trivial
    # Nested regions, same samples: the set discards at least what each member does.
    both = crisp_vus([a, b], n_samples=20_000, random_state=8)
    alone_b = crisp_vus(b, method="monte carlo", n_samples=20_000, random_state=8)
    assert both.vus >= max(single.vus, alone_b.vus)
    assert trivial.vus <= min(single.vus, alone_b.vus)


def test_extremes_for_four_classes():
    perfect = crisp_vus([_classifier(np.random.default_rng(0), 4, 2), np.eye(4)],
                        n_samples=3000, random_state=1)
    assert perfect.vus == (1 / 6) ** 4 and perfect.std_error == 0.0
    # The trivial classifiers' region of 4 classes is {sum_j min_(i != j) v_ij >= 1}, a
    # share of about 7.6e-5 of V: estimated directly on 10^6 other uniform classifiers.
    trivial = crisp_vus([_trivial(4, 0), _trivial(4, 3)], n_samples=400_000, random_state=1)
    hits, n = 0, 0
    direct = np.random.default_rng(99)
    for _ in range(10):
        draws = direct.exponential(size=(100_000, 4, 4))
        v = draws / draws.sum(axis=2, keepdims=True)
        column_minima = sum(v[:, [i for i in range(4) if i != j], j].min(axis=1)
                            for j in range(4))
        hits += int(np.count_nonzero(column_minima >= 1))
        n += 100_000
    fraction = hits / n
    reference_error = (1 / 6) ** 4 * math.sqrt(fraction * (1 - fraction) / n)
    assert 0 < trivial.vus
    assert abs(trivial.vus - (1 / 6) ** 4 * fraction) < 4 * math.hypot(trivial.std_error,
                                                                      reference_error)


def test_reproducible_with_random_state():
    rng = np.random.default_rng(31)
    rates = [_classifier(rng, 4, 4), _classifier(rng, 4, 4)]
    first = crisp_vus(rates, n_samples=20_000, random_state=4)
    assert crisp_vus(rates, n_samples=20_000, random_state=4) == first
    generator = np.random.default_rng(4)
    assert crisp_vus(rates, n_samples=20_000, random_state=generator) == first
    other = crisp_vus(rates, n_samples=20_000, random_state=5)
    assert other != first
    assert abs(other.vus - first.vus) < 5 * math.hypot(other.std_error, first.std_error)
    # The exact three-class path is unchanged by the Monte Carlo options.
    three = [_classifier(rng, 3, 4), _classifier(rng, 3, 4)]
    assert crisp_vus(three, random_state=4) == crisp_vus(three)
    assert crisp_vus(three).method == "exact" and crisp_vus(three).std_error == 0.0
