"""crisp_vus and crisp_auc_approximations: the VUS of crisp classifiers (Ferri et al.)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.optimize import linprog
from scipy.spatial import ConvexHull, HalfspaceIntersection

from hmeasure_stream import crisp_auc_approximations, crisp_vus
from hmeasure_stream.crisp import CrispVUS

# ------------------------------------------------------------- independent references


def _uniform_valid(rng, n, c):
    """n classifiers uniform in the valid space: each row's off-diagonal rates uniform in the
    unit cube, redrawn until their sum is at most 1 (rejection sampling)."""
    v = np.zeros((n, c, c))
    for i in range(c):
        others = [j for j in range(c) if j != i]
        rows = np.empty((0, c - 1))
        while rows.shape[0] < n:
            draw = rng.random((2 * n * math.factorial(c - 1), c - 1))
            rows = np.vstack([rows, draw[draw.sum(axis=1) <= 1]])
        v[:, i, others] = rows[:n]
        v[:, i, i] = 1 - rows[:n].sum(axis=1)
    return v


def _g(v, z, h):
    """sum_j min_{i != j} (v_ij - h z_ij) + h - 1 for each sample (h: one value per sample)."""
    c = z.shape[0]
    total = h - 1.0
    for j in range(c):
        total = total + np.min(
            [v[:, i, j] - h * z[i, j] for i in range(c) if i != j], axis=0
        )
    return total


def _discarded_golden(v, z):
    """The discard condition of the slides: some h_d in [0, h_max] with g(h_d) >= 0, found by
    golden-section search (g is concave in h_d)."""
    c = z.shape[0]
    h_max = np.ones(v.shape[0])
    for i, j in itertools.permutations(range(c), 2):
        if z[i, j] > 0:
            h_max = np.minimum(h_max, v[:, i, j] / z[i, j])
    low, high = np.zeros_like(h_max), h_max.copy()
    ratio = (math.sqrt(5) - 1) / 2
    for _ in range(90):
        a = high - ratio * (high - low)
        b = low + ratio * (high - low)
        left_better = _g(v, z, a) > _g(v, z, b)
        high = np.where(left_better, b, high)
        low = np.where(left_better, low, a)
    best = np.maximum(_g(v, z, (low + high) / 2), np.maximum(_g(v, z, 0.0 * h_max),
                                                               _g(v, z, h_max)))
    return best >= -1e-12


def _discarded_lp(v, zs):
    """Discard by a set: some h_0..h_{c-1}, mu_1..mu_m >= 0 summing to 1 with
    v_ij >= h_j + sum_k mu_k z^k_ij for every i != j (a linear feasibility problem)."""
    c = zs[0].shape[0]
    pairs = list(itertools.permutations(range(c), 2))
    a_ub = np.zeros((len(pairs), c + len(zs)))
    for row, (i, j) in enumerate(pairs):
        a_ub[row, j] = 1.0
        for k, z in enumerate(zs):
            a_ub[row, c + k] = z[i, j]
    a_eq = np.ones((1, c + len(zs)))
    hits = 0
    for sample in v:
        b_ub = np.array([sample[i, j] for i, j in pairs])
        result = linprog(np.zeros(c + len(zs)), A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=[1.0],
                         bounds=(0, None), method="highs")
        hits += result.status == 0
    return hits


def _lifted_hull_volume(z):
    """Exact volume by a second route: the region is (conv(trivial, z) + orthant) within V;
    inside the unit cube that is the hull of the generators with coordinates raised to 1.

    This is the construction crisp_vus uses for a *set* of classifiers
    (``crisp._halfspaces_set``), rewritten here: it is an independent check of the
    single-classifier route (Fourier-Motzkin elimination) only.  Sets are checked
    against linear programs (``_discarded_lp``)."""
    c = z.shape[0]
    pairs = list(itertools.permutations(range(c), 2))
    pairs.sort()
    generators = [[1.0 if j == k else 0.0 for _, j in pairs] for k in range(c)]
    generators.append([z[i, j] for i, j in pairs])
    points = {tuple(1.0 if up else x for x, up in zip(g, mask, strict=True))
              for g in generators for mask in itertools.product((0, 1), repeat=len(pairs))}
    hull = ConvexHull(np.array(sorted(points)))
    rows = [[1.0 if i == r else 0.0 for i, _ in pairs] + [-1.0] for r in range(c)]
    halfspaces = np.vstack([hull.equations, rows])
    inside = np.full(len(pairs), 0.45 if c == 3 else 0.75)
    return ConvexHull(HalfspaceIntersection(halfspaces, inside).intersections).volume


def _mc_vus(rng, z, n):
    """Independent Monte Carlo VUS and its standard error (3 or more classes)."""
    c = z.shape[0]
    fraction = np.mean(_discarded_golden(_uniform_valid(rng, n, c), z))
    volume = (1 / math.factorial(c - 1)) ** c
    return volume * fraction, volume * math.sqrt(fraction * (1 - fraction) / n)


def _random_classifier(rng, c, skill):
    """Rows from Dirichlet distributions with ``skill`` extra weight on the right class."""
    return np.array([rng.dirichlet(np.ones(c) + skill * np.eye(c)[i]) for i in range(c)])


# ---------------------------------------------------------------- known exact values


def test_perfect_classifier_has_the_whole_valid_space():
    assert crisp_vus(np.eye(3)).vus == pytest.approx(1 / 8, abs=1e-14)
    assert crisp_vus(np.eye(2)).vus == pytest.approx(1.0, abs=1e-14)  # two classes: the AUC
    assert crisp_vus([[0.3, 0.7], [0.3, 0.7]]).vus == pytest.approx(0.5, abs=1e-14)
    assert crisp_vus(np.diag([5, 9, 2])) == crisp_vus(np.eye(3))  # counts are normalised
    result = crisp_vus(np.eye(3))
    assert isinstance(result, CrispVUS)
    assert (result.std_error, result.method, result.n_samples) == (0.0, "exact", 0)


@pytest.mark.parametrize(
    "h", [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1 / 3, 1 / 3, 1 / 3), (0.5, 0.5, 0),
          (0.2, 0.3, 0.5), (0.7, 0.1, 0.2)]
)
def test_every_trivial_classifier_has_one_180th(h):
    # Theorem 1 of the slides: the trivial classifiers discard exactly 1/180.
    confusion = np.tile(h, (3, 1))
    assert crisp_vus(confusion).vus == pytest.approx(1 / 180, abs=1e-14)


def test_classifiers_below_a_trivial_one_have_one_180th(rng):
    # Every off-diagonal rate at least that of a trivial classifier: already discarded.
    for _ in range(5):
        h = rng.dirichlet(np.ones(3))
        worse = np.tile(h, (3, 1))
        for i in range(3):  # move some of each row's correct share to a wrong class
            j = (i + 1) % 3
            moved = worse[i, i] * rng.random()
            worse[i, i] -= moved
            worse[i, j] += moved
        assert crisp_vus(worse).vus == pytest.approx(1 / 180, abs=1e-14)


def test_two_classes_give_the_one_point_auc(rng):
    # AUC2 = max(1/2, 1 - r_01 / 2 - r_10 / 2) (the slides' two-class formula).
    for _ in range(20):
        z = rng.dirichlet([1, 1], size=2)
        assert crisp_vus(z).vus == pytest.approx(max(0.5, 1 - (z[0, 1] + z[1, 0]) / 2),
                                                 abs=1e-14)


def test_exact_volume_equals_the_lifted_hull_construction(rng):
    for skill in (0, 2, 8):
        z = _random_classifier(rng, 3, skill)
        assert crisp_vus(z).vus == pytest.approx(_lifted_hull_volume(z), abs=1e-13)
    z = _random_classifier(rng, 2, 1)
    assert crisp_vus(z).vus == pytest.approx(_lifted_hull_volume(z), abs=1e-13)


# -------------------------------------------------------------------------- properties


def test_invariant_to_relabelling_the_classes(rng):
    for skill in (0, 3):
        z = _random_classifier(rng, 3, skill)
        base = crisp_vus(z).vus
        for permutation in itertools.permutations(range(3)):
            p = list(permutation)
            assert crisp_vus(z[np.ix_(p, p)]).vus == pytest.approx(base, abs=1e-14)


def test_monotone_when_the_classifier_improves(rng):
    z = _random_classifier(rng, 3, 2)
    previous = crisp_vus(z).vus
    for step in range(12):
        i = step % 3
        j = (i + 1 + step // 3 % 2) % 3
        moved = z[i, j] * 0.3  # a share of one error becomes correct
        z[i, j] -= moved
        z[i, i] += moved
        current = crisp_vus(z).vus
        assert current > previous
        previous = current
    assert previous < 1 / 8


@pytest.mark.slow
def test_set_of_classifiers(rng):
    a = _random_classifier(rng, 3, 3)
    b = _random_classifier(rng, 3, 3)
    trivial = np.full((3, 3), 1 / 3)
    # Adding a trivial classifier changes nothing (and takes the hull route).
    assert crisp_vus([a, trivial]).vus == pytest.approx(crisp_vus(a).vus, abs=1e-13)
    assert crisp_vus([a]).vus == pytest.approx(crisp_vus(a).vus, abs=1e-15)
    both = crisp_vus([a, b]).vus
    assert both > max(crisp_vus(a).vus, crisp_vus(b).vus)
    assert crisp_vus([a, b, np.eye(3)]).vus == pytest.approx(1 / 8, abs=1e-13)
    # Against an independent Monte Carlo estimate with a linear program per sample.
    n = 1500
    local = np.random.default_rng(7)
    fraction = _discarded_lp(_uniform_valid(local, n, 3), [a, b]) / n
    error = math.sqrt(fraction * (1 - fraction) / n) / 8
    assert abs(both - fraction / 8) < 4 * error


@pytest.mark.slow
@pytest.mark.parametrize("skill", [0, 1, 4, 12])
def test_exact_volume_within_four_errors_of_independent_monte_carlo(skill):
    rng = np.random.default_rng(100 + skill)
    z = _random_classifier(rng, 3, skill)
    estimate, error = _mc_vus(rng, z, 120_000)
    assert abs(crisp_vus(z).vus - estimate) < 4 * error


def test_qhull_precision_failure_is_recovered():
    # With the first interior point Qhull's vertex enumeration of this near-perfect
    # classifier's region stops with a topology error; the result must still be right.
    z = np.array([
        [0.8831514817022258, 0.06541734294720752, 0.05143117535056673],
        [0.0018079081517411973, 0.9822264924274324, 0.015965599420826284],
        [0.04584963686411992, 0.00038798116632398743, 0.9537623819695562],
    ])
    estimate, error = _mc_vus(np.random.default_rng(4), z, 100_000)
    assert abs(crisp_vus(z).vus - estimate) < 4 * error


def test_packaged_monte_carlo_agrees_with_exact_for_three_classes(rng):
    z = _random_classifier(rng, 3, 4)
    result = crisp_vus(z, method="monte carlo", n_samples=100_000, random_state=3)
    assert result.method == "monte carlo" and result.n_samples == 100_000
    assert 0 < result.std_error < 1e-3
    assert abs(result.vus - crisp_vus(z).vus) < 4 * result.std_error
    again = crisp_vus(z, method="monte carlo", n_samples=100_000, random_state=3)
    assert again == result


@pytest.mark.parametrize("skill", [0, 5])
def test_four_classes_monte_carlo_agrees_with_independent_estimate(skill):
    rng = np.random.default_rng(200 + skill)
    z = _random_classifier(rng, 4, skill)
    result = crisp_vus(z, n_samples=60_000, random_state=rng)
    assert result.method == "monte carlo"
    estimate, error = _mc_vus(np.random.default_rng(9), z, 60_000)
    assert abs(result.vus - estimate) < 4 * math.hypot(error, result.std_error)


def test_four_classes_perfect_classifier_has_the_whole_valid_space():
    result = crisp_vus(np.eye(4), n_samples=1000, random_state=0)
    assert result.vus == (1 / 6) ** 4
    assert result.std_error == 0.0


# ---------------------------------------------------------------------- approximations


def _slides_formulas(m):
    """The slides' formulas for 3 classes, in their notation v_xy = rate of actual x
    predicted y, in exact fractions; t = 1 for the modified macro-average."""
    (vaa, vab, vac), (vba, vbb, vbc), (vca, vcb, vcc) = m
    half = Fraction(1, 2)
    auc_rest = [
        max(half, 1 - (vab + vac) / (vaa + vab + vac) / 2
            - (vba + vca) / (vba + vca + vbb + vbc + vcb + vcc) / 2),
        max(half, 1 - (vba + vbc) / (vbb + vba + vbc) / 2
            - (vab + vcb) / (vab + vcb + vaa + vac + vca + vcc) / 2),
        max(half, 1 - (vca + vcb) / (vcc + vca + vcb) / 2
            - (vac + vbc) / (vac + vbc + vaa + vab + vba + vbb) / 2),
    ]
    return {
        "macro_average": (vaa + vbb + vcc) / 3,
        "macro_average_modified": (vaa + vbb + vcc) / 3,
        "one_point_trivial": max(Fraction(1, 3), 1 - (vba + vca + vab + vcb + vac + vbc) / 3),
        "hand_till_1b": (max(half, 1 - (vba + vab) / 2) + max(half, 1 - (vca + vac) / 2)
                         + max(half, 1 - (vcb + vbc) / 2)) / 3,
        "hand_till_2": (max(half, 1 - (vba / (vba + vbb) + vab / (vaa + vab)) / 2)
                        + max(half, 1 - (vca / (vca + vcc) + vac / (vaa + vac)) / 2)
                        + max(half, 1 - (vcb / (vcb + vcc) + vbc / (vbb + vbc)) / 2)) / 3,
        "hand_till_3": sum(auc_rest) / 3,
    }


def test_approximations_follow_the_slides_formulas(rng):
    for _ in range(30):
        counts = rng.integers(0, 20, size=(3, 3)) + 3 * np.eye(3, dtype=int)
        rates = [[Fraction(int(x), int(row.sum())) for x in row] for row in counts]
        expected = _slides_formulas(rates)
        got = crisp_auc_approximations(counts, t=1)
        assert list(got) == list(expected)
        for name, value in expected.items():
            assert got[name] == pytest.approx(float(value), abs=1e-15), name


def test_modified_macro_average_is_the_generalised_mean():
    m = np.array([[0.5, 0.25, 0.25], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])
    acc = [0.5, 0.8, 0.4]
    for t in (0.76, 2.0, -1.0, 3.5):
        expected = (sum(a**t for a in acc) / 3) ** (1 / t)
        assert crisp_auc_approximations(m, t=t)["macro_average_modified"] == pytest.approx(
            expected, rel=1e-14
        )
    assert crisp_auc_approximations(m, t=0)["macro_average_modified"] == pytest.approx(
        (0.5 * 0.8 * 0.4) ** (1 / 3), rel=1e-14
    )
    assert crisp_auc_approximations(m, t=-1e-9)["macro_average_modified"] == pytest.approx(
        (0.5 * 0.8 * 0.4) ** (1 / 3), rel=1e-8
    )
    # A class never predicted right: the geometric and lower means are 0.
    zero = np.array([[0.0, 1.0, 0.0], [0.1, 0.8, 0.1], [0.3, 0.3, 0.4]])
    assert crisp_auc_approximations(zero, t=0)["macro_average_modified"] == 0.0
    assert crisp_auc_approximations(zero, t=-2)["macro_average_modified"] == 0.0
    assert crisp_auc_approximations(zero, t=2)["macro_average_modified"] == pytest.approx(
        math.sqrt((0.64 + 0.16) / 3), rel=1e-14
    )


def test_two_classes_approximations_equal_the_exact_vus(rng):
    for _ in range(10):
        z = rng.dirichlet([1, 1], size=2)
        got = crisp_auc_approximations(z)
        exact = crisp_vus(z).vus
        for name in ("one_point_trivial", "hand_till_1b", "hand_till_3"):
            assert got[name] == pytest.approx(exact, abs=1e-14)


def test_hand_till_2_is_nan_when_a_pair_has_no_point_left():
    # Class 0 is always predicted as class 2: the pair {0, 1} has no class-0 point.
    m = np.array([[0.0, 0.0, 1.0], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]])
    got = crisp_auc_approximations(m)
    assert math.isnan(got["hand_till_2"])
    assert not any(math.isnan(v) for k, v in got.items() if k != "hand_till_2")


def test_perfect_and_trivial_approximations():
    perfect = crisp_auc_approximations(np.eye(4))
    assert all(value == 1.0 for value in perfect.values())
    trivial = crisp_auc_approximations(np.tile([0.2, 0.5, 0.3], (3, 1)))
    assert trivial["macro_average"] == pytest.approx(1 / 3)
    assert trivial["one_point_trivial"] == pytest.approx(1 / 3)
    for name in ("hand_till_2", "hand_till_3"):
        assert trivial[name] == pytest.approx(0.5)
    # hand_till_1b compares unrestricted rates: 1 - (h_i + h_j) / 2 per pair, 1 - 1/c overall.
    assert trivial["hand_till_1b"] == pytest.approx(2 / 3)


# -------------------------------------------------------------------------- bad inputs


@pytest.mark.parametrize(
    ("confusion", "kwargs", "message"),
    [
        ([1, 2, 3], {}, r"^confusion must have shape \(c, c\) or a set of shape \(m, c, c\); got shape \(3,\)$"),
        (np.ones((2, 3)), {}, r"^confusion must be square \(rows: actual class, columns: predicted class\); got shape \(2, 3\)$"),
        ([[1.0]], {}, r"^confusion must cover at least 2 classes; got shape \(1, 1\)$"),
        (np.ones((0, 3, 3)), {}, r"^confusion is an empty set of classifiers$"),
        (np.ones((1, 1, 3, 3)), {}, r"^confusion must have shape"),
        ([[1, np.nan], [1, 1]], {}, r"^confusion must contain only finite values; found nan at \[0, 1\]$"),
        ([[1, 2], [-1, 1]], {}, r"^confusion must be non-negative; found -1.0 at \[1, 0\]$"),
        ([[[1, 0], [0, 1]], [[1, 0], [0, 0]]], {},
         r"^confusion row 1 of classifier 1 sums to 0: actual class 1 has no points, so its rates are undefined$"),
        ([["a", "b"], ["c", "d"]], {}, r"^confusion must be numeric"),
        ([[1, {}], [1, 1]], {}, r"^confusion must be numeric; found \{\} at \[0, 1\]$"),
        ([[[1, 0], [0, 1]], [[1, 0], [{1}, 1]]], {}, r"^confusion must be numeric; found \{1\} at \[1, 1, 0\]$"),
        (np.eye(3), {"method": "qhull"}, r"^method must be one of 'auto', 'exact', 'monte carlo'; got 'qhull'$"),
        (np.eye(3), {"n_samples": 0}, r"^n_samples must be an integer >= 1, got 0$"),
        (np.eye(3), {"n_samples": 10.0}, r"^n_samples must be an integer >= 1, got 10.0$"),
        (np.eye(3), {"n_samples": True}, r"^n_samples must be an integer >= 1, got True$"),
        (np.eye(4), {"random_state": "seed"},
         r"^random_state must be None, a non-negative int, a numpy SeedSequence or a numpy Generator, got 'seed'$"),
        (np.eye(3), {"random_state": -1},
         r"^random_state must be None, a non-negative int, a numpy SeedSequence or a numpy Generator, got -1$"),
        (np.eye(4), {"method": "exact"}, r"^method='exact' is available for 2 and 3 classes; confusion has 4$"),
    ],
)
def test_crisp_vus_bad_input(confusion, kwargs, message):
    with pytest.raises(ValueError, match=message):
        crisp_vus(confusion, **kwargs)


def test_crisp_vus_set_of_four_classes_is_a_monte_carlo_estimate():
    # The set's Monte Carlo is tested in test_crisp_monte_carlo.py.
    result = crisp_vus([np.eye(4), np.full((4, 4), 0.25)], n_samples=500, random_state=0)
    assert result.method == "monte carlo" and result.n_samples == 500
    assert result.vus == (1 / 6) ** 4 and result.std_error == 0.0


@pytest.mark.parametrize(
    ("confusion", "kwargs", "message"),
    [
        (np.ones((2, 3, 3)), {}, r"^confusion must have shape \(c, c\); got shape \(2, 3, 3\)$"),
        ([[0, 0], [1, 1]], {}, r"^confusion row 0 sums to 0: actual class 0 has no points"),
        (np.eye(3), {"t": math.nan}, r"^t must be a finite real number, got nan$"),
        (np.eye(3), {"t": "1"}, r"^t must be a finite real number, got '1'$"),
        (np.eye(3), {"t": True}, r"^t must be a finite real number, got True$"),
    ],
)
def test_approximations_bad_input(confusion, kwargs, message):
    with pytest.raises(ValueError, match=message):
        crisp_auc_approximations(confusion, **kwargs)
