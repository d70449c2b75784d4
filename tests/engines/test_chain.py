"""The pool of hull chains: split/join by position against Python lists."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hmeasure_stream._engines._chain import ChainPool

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")


@pytest.mark.parametrize("seed", range(6))
def test_random_splits_and_joins_match_lists(seed):
    rng = np.random.default_rng(seed)
    pool = ChainPool(1, seed)
    chains = []  # (root, list of (d_neg, d_pos))
    for _ in range(300):
        action = rng.integers(3)
        if action == 0 or not chains:
            n = int(rng.integers(0, 8))
            items = [(float(rng.integers(0, 5)), float(rng.integers(0, 5))) for _ in range(n)]
            root = pool.chain_from([a for a, _ in items], [b for _, b in items])
            chains.append((root, items))
        elif action == 1:
            k = int(rng.integers(len(chains)))
            root, items = chains.pop(k)
            cut = int(rng.integers(0, len(items) + 1))
            left, right = pool.split_chain(root, cut)
            chains += [(left, items[:cut]), (right, items[cut:])]
        elif len(chains) >= 2:
            a = chains.pop(int(rng.integers(len(chains))))
            b = chains.pop(int(rng.integers(len(chains))))
            chains.append((pool.join_chains(a[0], b[0]), a[1] + b[1]))
        for root, items in chains:
            pool._check_chain(root)
            d_neg, d_pos = pool.vertices(root) if root >= 0 else (np.empty(0), np.empty(0))
            assert list(zip(d_neg, d_pos, strict=True)) == items
            if items:
                assert pool.cd_buffer[root, 0] == sum(a for a, _ in items)
                assert pool.cd_buffer[root, 1] == sum(b for _, b in items)
                assert pool.size_buffer[root] == len(items)
                assert tuple(pool.first_buffer[root]) == items[0]
    # Every slot is either in a chain or free.
    in_chains = sum(len(items) for _, items in chains)
    assert pool.n_used == in_chains
    for root, _ in chains:
        if root >= 0:
            pool.free_chain(root)
    assert pool.n_used == 0


def random_convex_chain(rng, max_edges=8, coordinate=6):
    """Edge vectors with non-negative integer components and strictly decreasing slopes."""
    count = int(rng.integers(1, max_edges + 1))
    edges = {}
    for _ in range(count):
        dx, dy = int(rng.integers(0, coordinate)), int(rng.integers(0, coordinate))
        if dx == 0 and dy == 0:
            dx = 1
        key = Fraction(dy, dx) if dx else Fraction(10**9)
        old = edges.get(key, (0, 0))
        edges[key] = (old[0] + dx, old[1] + dy)  # equal slopes merge into one edge
    return [edges[key] for key in sorted(edges, reverse=True)]


def brute_bridge(left, right):
    """(vertices kept from the left chain, first kept vertex of the right chain), exactly."""
    points, x, y = [(0, 0)], 0, 0
    for dx, dy in left + right:
        x, y = x + dx, y + dy
        points.append((x, y))
    hull = []
    for index, point in enumerate(points):
        while len(hull) >= 2:
            (_, o), (_, a) = hull[-2], hull[-1]
            cross = (a[0] - o[0]) * (point[1] - o[1]) - (a[1] - o[1]) * (point[0] - o[0])
            if cross >= 0:
                hull.pop()
            else:
                break
        hull.append((index, point))
    kept = [index for index, _ in hull]
    keep_left = sum(1 for index in kept if 1 <= index <= len(left))
    assert kept[:keep_left + 1] == list(range(keep_left + 1))  # a prefix of the left chain
    first_right = next(index for index in kept if index > len(left)) - len(left)
    return keep_left, first_right


@pytest.mark.parametrize("slow", [True, False], ids=["nested", "alg5"])
@pytest.mark.parametrize("seed", range(8))
def test_bridge_equals_brute_force(seed, slow):
    rng = np.random.default_rng(seed)
    pool = ChainPool(1, seed)
    for _ in range(400):
        left = random_convex_chain(rng, max_edges=int(rng.choice([1, 3, 12])))
        right = random_convex_chain(rng, max_edges=int(rng.choice([1, 3, 12])))
        a = pool.chain_from([float(dx) for dx, _ in left], [float(dy) for _, dy in left])
        b = pool.chain_from([float(dx) for dx, _ in right], [float(dy) for _, dy in right])
        assert pool.find_bridge(a, b, slow) == brute_bridge(left, right), (left, right)
        pool.free_chain(a)
        pool.free_chain(b)


def test_bridge_through_a_collinear_vertex_with_the_crossing_at_the_junction():
    # Found by a stress run: a4 lies on the bridge a3-b1, and the lines of
    # a's next edge and b's previous edge cross exactly above the junction.
    left = [(0, 4), (3, 6), (6, 6), (8, 4), (2, 0)]
    right = [(0, 1), (1, 0)]
    assert brute_bridge(left, right) == (3, 1)
    pool = ChainPool(1, 0)
    for seed_shape in range(20):  # several tree shapes of the same chains
        pool = ChainPool(1, seed_shape)
        a = pool.chain_from([float(dx) for dx, _ in left], [float(dy) for _, dy in left])
        b = pool.chain_from([float(dx) for dx, _ in right], [float(dy) for _, dy in right])
        assert pool.find_bridge(a, b) == (3, 1)
        assert pool.find_bridge(a, b, True) == (3, 1)


def upper_hull_edges(edges):
    """Edge vectors of the upper hull of the prefix sums of ``edges`` (exact)."""
    points = [(0, 0)]
    for dx, dy in edges:
        points.append((points[-1][0] + dx, points[-1][1] + dy))
    hull = []
    for point in points:
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            if (a[0] - o[0]) * (point[1] - o[1]) - (a[1] - o[1]) * (point[0] - o[0]) >= 0:
                hull.pop()
            else:
                break
        if not hull or hull[-1] != point:
            hull.append(point)
    return [(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(hull)]


@pytest.mark.parametrize("seed", range(6))
def test_merge_gives_the_hull_and_unmerge_restores_both_chains(seed):
    rng = np.random.default_rng(seed)
    pool = ChainPool(1, seed)
    for _ in range(300):
        left = random_convex_chain(rng, max_edges=int(rng.choice([1, 4, 15])))
        right = random_convex_chain(rng, max_edges=int(rng.choice([1, 4, 15])))
        if rng.random() < 0.1:
            left = []
        if rng.random() < 0.1:
            right = []
        a = pool.chain_from([float(dx) for dx, _ in left], [float(dy) for _, dy in left])
        b = pool.chain_from([float(dx) for dx, _ in right], [float(dy) for _, dy in right])
        merged, record = pool.merge_chains(a, b)
        expected = upper_hull_edges(left + right)
        got = list(zip(*pool.vertices(merged), strict=True)) if merged >= 0 else []
        assert got == [(float(x), float(y)) for x, y in expected]
        if merged >= 0:
            pool._check_chain(merged)
        a, b = pool.unmerge_chain(merged, record)
        for root, edges in ((a, left), (b, right)):
            got = list(zip(*pool.vertices(root), strict=True)) if root >= 0 else []
            assert got == [(float(x), float(y)) for x, y in edges]
            if root >= 0:
                pool._check_chain(root)
                pool.free_chain(root)
    assert pool.n_used == 0


@pytest.mark.parametrize(("alpha", "beta"), [(2.0, 2.0), (0.5, 3.0), (4.0, 1.5)])
@pytest.mark.parametrize("seed", range(5))
def test_incremental_hull_aggregates_give_h_and_auch(seed, alpha, beta):
    from hmeasure_stream._engines._cost import max_loss

    from hmeasure_stream import h_measure, hmeasure_report

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 300))
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = np.round(rng.normal(size=n) + y, 1)
    pool = ChainPool(1, seed, alpha, beta)
    chain = -1
    for score in np.unique(s)[::-1]:  # groups from the highest score down
        group_neg = float(np.sum((s == score) & (y == 0)))
        group_pos = float(np.sum((s == score) & (y == 1)))
        chain, _ = pool.merge_chains(chain, pool.chain_from([group_neg], [group_pos]))
        pool._check_chain(chain)
    n_neg, n_pos = float(np.sum(y == 0)), float(np.sum(y == 1))
    assert tuple(pool.cd_buffer[chain]) == (n_neg, n_pos)
    assert np.isnan(pool.ch_buffer[chain])  # loss terms stay pending until read
    loss = pool.settled_loss(chain) / n
    pi0, pi1 = n_neg / n, n_pos / n
    h_value = 1.0 - loss / max_loss(pi0, pi1, alpha, beta)
    assert h_value == pytest.approx(h_measure(y, s, alpha=alpha, beta=beta), rel=1e-12, abs=1e-14)
    auch = pool.area_buffer[chain] / (n_neg * n_pos)
    assert auch == pytest.approx(hmeasure_report(y, s)["AUCH"], rel=1e-13)


@pytest.mark.parametrize(
    ("alpha", "beta"),
    [(1.0, 1.0), (2.0, 2.0), (2.0, 3.0), (3.0, 17.0), (20.0, 20.0), (1.0, 39.0), (2.5, 2.0), (25.0, 25.0)],
)
def test_edge_loss_closed_form_equals_scipy_incomplete_beta(alpha, beta):
    """Integer shapes use binomial sums (alpha + beta <= 40), the rest scipy: both equal scipy."""
    from scipy.special import betainc, betaincc

    pool = ChainPool(1, 0, alpha, beta)
    assert pool.integer_order == (alpha + beta if alpha + beta <= 40 and alpha % 1 == 0 and beta % 1 == 0 else 0)
    rng = np.random.default_rng(7)
    edges = [(0.0, 1.0), (1.0, 0.0), (1.0, 1.0), (1e6, 1.0), (1.0, 1e6), (3.0, 5.0)]
    edges += [tuple(map(float, pair)) for pair in rng.exponential(size=(200, 2)) * 10.0 ** rng.integers(-3, 7, (200, 1))]
    for d_neg, d_pos in edges:
        cost = d_pos / (d_neg + d_pos)
        expected = (d_neg * alpha / (alpha + beta) * betainc(alpha + 1, beta, cost)
                    + d_pos * beta / (alpha + beta) * betaincc(alpha, beta + 1, cost))
        assert pool.edge_loss(d_neg, d_pos) == pytest.approx(expected, rel=1e-13, abs=1e-300)
    assert pool.edge_loss(0.0, 0.0) == 0.0


@pytest.mark.parametrize(("field", "component", "change", "message"), [
    ("cd_buffer", 0, 1.0, "stale aggregates"),
    ("cd_buffer", 1, -0.5, "stale aggregates"),
    ("area_buffer", None, 0.25, "stale aggregates"),
    ("size_buffer", None, 1, "stale aggregates"),
    ("first_buffer", 1, 2.0, "stale aggregates"),
    ("h_buffer", None, 0.125, "loss term of slot"),
])
def test_check_chain_detects_a_corrupted_field(field, component, change, message):
    pool = ChainPool(1, 3)
    rng = np.random.default_rng(4)
    root = pool.chain_from(rng.integers(0, 5, 40).astype(float),
                           rng.integers(1, 5, 40).astype(float))
    pool.settled_loss(root)  # compute every loss term, so none is pending
    pool._check_chain(root)
    buffer = getattr(pool, field)
    # Corrupt the root's subtree value, or (the loss term) one vertex's own.
    slot = root if field != "h_buffer" else int(pool.in_order(root)[7])
    if component is None:
        buffer[slot] += change
    else:
        buffer[slot, component] += change
    with pytest.raises(AssertionError, match=message):
        pool._check_chain(root)


def test_check_chain_only_reads():
    pool = ChainPool(1, 5)
    root = pool.chain_from([1.0, 2.0, 0.0, 3.0], [2.0, 1.0, 1.0, 0.5])
    before = {name: buffer.copy() for name, buffer in pool._buffers().items()}
    pool._check_chain(root)  # loss terms are pending (NaN): they stay so
    assert np.isnan(pool.ch_buffer[root])
    for name, buffer in pool._buffers().items():
        np.testing.assert_array_equal(buffer, before[name])
