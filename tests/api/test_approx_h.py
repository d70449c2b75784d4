"""ApproxH: the guarantee |H' - H| <= eps (1 - H) against the exact from-scratch H."""

import copy
import math
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import labelled_scores

from hmeasure_stream import ApproxH, DynamicH, HCost, h_measure, roc_hull, sliding_window

# The from-scratch functions are the references here, on random data whose AUC may
# be below 0.5: their InvertedScoresWarning is tested in test_pos_label.py.
pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

EPSILONS = (0.01, 0.1, 0.5, 1.0, 2.0)
# (priors, cost options) pairs: fixed priors, R's default severity, alpha/beta, SR numbers.
SETTINGS = [
    ((0.3, 0.7), {}),
    ((0.95, 0.05), {}),
    (None, {}),
    (None, {"severity_ratio": "prior"}),
    ((0.2, 0.8), {"severity_ratio": "prior"}),
    ((0.5, 0.5), {"severity_ratio": 0.3}),
    ((0.7, 0.3), {"alpha": 0.7, "beta": 3.5}),
    (None, {"alpha": 3.0, "beta": 1.0}),
]


def within_bound(approximate, y, s, epsilon, priors, options, sample_weight=None):
    exact = h_measure(y, s, priors=priors, sample_weight=sample_weight, **options)
    assert abs(approximate - exact) <= epsilon * (1.0 - exact) + 1e-12, (approximate, exact)
    return exact


def random_stream(rng, n):
    y = rng.integers(0, 2, n)
    if rng.random() < 0.3:  # heavy imbalance
        y = (rng.random(n) < rng.choice([0.02, 0.97])).astype(int)
    y[:2] = [0, 1]
    decimals = int(rng.choice([0, 1, 2, 8]))  # few distinct scores force ties
    s = np.round(rng.normal(size=n) + rng.uniform(0, 3) * y, decimals)
    return y, s


@pytest.mark.parametrize(("priors", "options"), SETTINGS)
def test_guarantee_holds_on_random_streams_for_every_epsilon(priors, options):
    rng = np.random.default_rng(11)
    for _ in range(12):
        y, s = random_stream(rng, int(rng.integers(2, 4000)))
        for epsilon in EPSILONS:
            tracker = ApproxH(epsilon, priors, **options)
            tracker.add_many(y, s)
            within_bound(tracker.h, y, s, epsilon, priors, options)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("seed", range(3))
def test_guarantee_after_every_insertion_and_deletion(epsilon, seed):
    rng = np.random.default_rng(seed)
    priors, options = SETTINGS[seed * 2]
    tracker = ApproxH(epsilon, priors, capacity=1, **options)
    points = []
    for step in range(250):
        if points and rng.random() < 0.45:
            label, score = points.pop(int(rng.integers(len(points))))
            tracker.remove(label, score)
        else:
            label, score = int(rng.integers(2)), float(rng.integers(12))
            tracker.add(label, score)
            points.append((label, score))
        if step % 10 == 0:
            tracker._check()
        y = np.array([p[0] for p in points])
        s = np.array([p[1] for p in points])
        if len(points) and 0 < y.sum() < len(y):
            within_bound(tracker.h, y, s, epsilon, priors, options)
        else:
            assert math.isnan(tracker.h)


@given(
    labelled_scores(max_size=60, weighted=True),
    st.sampled_from(EPSILONS),
    st.sampled_from(SETTINGS),
)
def test_guarantee_with_weights(data, epsilon, setting):
    y, s, w = data
    priors, options = setting
    tracker = ApproxH(epsilon, priors, **options)
    tracker.add_many(y, s, sample_weight=w)
    within_bound(tracker.h, y, s, epsilon, priors, options, sample_weight=w)


def test_priors_from_the_data_agree_with_dynamic_h_and_auch_and_auc_are_exact(rng):
    y, s = rng.integers(0, 2, 5000), np.round(rng.normal(size=5000), 2)
    exact = DynamicH()
    exact.add_many(y, s)
    for epsilon in EPSILONS:
        tracker = ApproxH(epsilon)
        tracker.add_many(y, s)
        assert abs(tracker.h - exact.h) <= epsilon * (1 - exact.h) + 1e-12
        assert (tracker.auc, tracker.auch) == (exact.auc, exact.auch)
    # With a tiny epsilon no vertex can be skipped: the subset is the hull.
    tracker = ApproxH(1e-12)
    tracker.add_many(y, s)
    assert tracker.h == pytest.approx(exact.h, rel=1e-13)
    info = tracker.subset_info()
    assert info["subset_vertices"] == info["hull_vertices"] == len(roc_hull(y, s)[0])


def concave_stream(groups):
    """A ROC curve whose every group is a hull vertex: group k has k negatives and
    groups - k + 1 positives at its own score, slopes strictly decreasing."""
    y, s = [], []
    for k in range(1, groups + 1):
        score = float(groups - k)
        y += [0] * k + [1] * (groups - k + 1)
        s += [score] * (groups + 1)
    return np.array(y), np.array(s)


def fewest_geometric_subset(y, s, epsilon):
    """The fewest hull vertices, ends included, such that every hull vertex is kept or lies
    between two consecutive kept ones within a factor 1 + eps on x and on N1 - y
    (greedy farthest jumps, which is optimal for these nested conditions)."""
    fpr, tpr = roc_hull(y, s)
    n_neg, n_pos = (y == 0).sum(), (y == 1).sum()
    x, height = np.rint(fpr * n_neg), np.rint(tpr * n_pos)
    kept, at = 1, 0
    while at < len(x) - 1:
        to = at + 1
        while (to + 1 < len(x) and x[to + 1] <= (1 + epsilon) * x[at]
               and n_pos - height[at] <= (1 + epsilon) * (n_pos - height[to + 1])):
            to += 1
        at, kept = to, kept + 1
    return kept


def test_subset_is_small_on_a_large_hull_and_shrinks_with_epsilon():
    y, s = concave_stream(400)  # 160 400 points, 400 hull edges
    sizes = []
    for epsilon in EPSILONS:
        tracker = ApproxH(epsilon, priors=(0.4, 0.6))
        tracker.add_many(y, s)
        within_bound(tracker.h, y, s, epsilon, (0.4, 0.6), {})
        info = tracker.subset_info()
        assert info["hull_vertices"] == len(roc_hull(y, s)[0]) == 401
        sizes.append(info["subset_vertices"])
        # The walk keeps at least the fewest vertices any subset meeting the
        # conditions of Props 5-6 needs, and (here) at most twice as many: its
        # tree decomposition costs little over the greedy optimum.
        fewest = fewest_geometric_subset(y, s, epsilon)
        assert fewest <= info["subset_vertices"] <= 2 * fewest
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[1] < 0.6 * 401 and sizes[-1] < 401 / 8


def test_subset_size_grows_like_log_n_over_epsilon():
    """The kept vertices follow geometric spacing: doubling the hull adds a constant."""
    kept = {}
    for groups in (200, 400, 800):
        tracker = ApproxH(0.1, priors=(0.5, 0.5))
        tracker.add_many(*concave_stream(groups))
        kept[groups] = tracker.subset_info()["subset_vertices"]
    # Hull size doubles twice (200 -> 800 edges); the subset grows far slower.
    assert kept[800] < 2 * kept[200]
    assert kept[800] - kept[400] <= 2 * (kept[400] - kept[200]) + 10


def test_sliding_window_with_epsilon_matches_per_window_guarantee(rng):
    y, s = rng.integers(0, 2, 600), np.round(rng.normal(size=600), 1)
    for priors, options in SETTINGS[:5]:
        result = sliding_window(y, s, 80,
                                metrics=("h", "auc", HCost(relative_error=0.2, priors=priors, **options)))
        for end in range(0, 600, 7):
            part = slice(max(0, end - 79), end + 1)
            if 0 < y[part].sum() < len(y[part]):
                within_bound(result["h"][end], y[part], s[part], 0.2, priors, options)
            else:
                assert np.isnan(result["h"][end])


def test_sliding_window_is_reproducible_and_agrees_with_a_python_loop(rng):
    y, s = rng.integers(0, 2, 400), np.round(rng.normal(size=400), 2)
    y[:2] = [0, 1]
    tracker = ApproxH(0.5, priors=(0.8, 0.2))
    looped = []
    for i in range(400):
        tracker.add(int(y[i]), float(s[i]))
        if i >= 50:
            tracker.remove(int(y[i - 50]), float(s[i - 50]))
        looped.append(tracker.h)
    result = sliding_window(y, s, 50, metrics=HCost(relative_error=0.5, priors=(0.8, 0.2)))["h"]
    again = sliding_window(y, s, 50, metrics=HCost(relative_error=0.5, priors=(0.8, 0.2)))["h"]
    np.testing.assert_array_equal(result, again)
    for i in range(1, 400):
        part = slice(max(0, i - 49), i + 1)
        if y[part].min() == y[part].max():
            assert np.isnan(result[i]) and np.isnan(looped[i])
            continue
        exact = h_measure(y[part], s[part], priors=(0.8, 0.2))
        assert abs(result[i] - exact) <= 0.5 * (1 - exact) + 1e-12
        assert abs(looped[i] - exact) <= 0.5 * (1 - exact) + 1e-12


def test_pickle_and_deepcopy_round_trip(rng):
    tracker = ApproxH(0.3, priors=(0.6, 0.4), severity_ratio="prior")
    y, s = rng.integers(0, 2, 300), np.round(rng.normal(size=300), 1)
    tracker.add_many(y, s)
    for clone in (pickle.loads(pickle.dumps(tracker)), copy.deepcopy(tracker)):
        assert clone.h == tracker.h and clone.relative_error == 0.3
        clone.remove_many(y[:100], s[:100])
        clone._check()
        within_bound(clone.h, y[100:], s[100:], 0.3, (0.6, 0.4), {"severity_ratio": "prior"})
    assert len(tracker) == 300


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"relative_error": 0}, r"relative_error must be a finite number > 0, got 0.0"),
        ({"relative_error": -0.5}, r"relative_error must be a finite number > 0, got -0.5"),
        ({"relative_error": float("nan")}, r"relative_error must be a finite number > 0, got nan"),
        ({"relative_error": float("inf")}, r"relative_error must be a finite number > 0, got inf"),
        ({"relative_error": True}, r"relative_error must be a positive number, got True"),
        ({"relative_error": "0.1"}, r"relative_error must be a positive number, got '0.1'"),
        ({"relative_error": 0.1, "priors": (0.5, 0.6)}, r"priors must sum to 1"),
        ({"relative_error": 0.1, "priors": (0.0, 1.0)}, r"priors must both lie in \(0, 1\)"),
        ({"relative_error": 0.1, "priors": 0.5}, r"priors must be a pair"),
        ({"relative_error": 0.1, "severity_ratio": "posterior"}, r'severity_ratio must be a number > 0 or "prior"'),
        ({"relative_error": 0.1, "severity_ratio": 2.0, "alpha": 3.0}, r"pass either severity_ratio or alpha/beta"),
        ({"relative_error": 0.1, "alpha": 0.0}, r"alpha must be a finite number > 0"),
    ],
)
def test_bad_parameters_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ApproxH(**kwargs)


def test_sliding_window_refuses_fixed_priors_without_a_relative_error():
    with pytest.raises(ValueError, match=r"give relative_error= .* for H within"):
        sliding_window([0, 1, 0], [0.1, 0.2, 0.3], 2, metrics=HCost(priors=(0.5, 0.5)))
    with pytest.raises(ValueError, match=r"give relative_error= .* for H within"):
        sliding_window([0, 1, 0], [0.1, 0.2, 0.3], 2, metrics=HCost(severity_ratio="prior"))
    with pytest.raises(ValueError, match="relative_error must be a finite number > 0"):
        sliding_window([0, 1, 0], [0.1, 0.2, 0.3], 2, metrics=HCost(relative_error=-1))


def test_refused_updates_leave_the_structure_unchanged():
    tracker = ApproxH(0.1, priors=(0.5, 0.5))
    tracker.add_many([0, 1, 1], [0.1, 0.5, 0.7])
    before = pickle.dumps(tracker)
    with pytest.raises(KeyError, match=r"no point with y_true=0, y_score=0\.5"):
        tracker.remove(0, 0.5)
    with pytest.raises(ValueError, match="nan"):
        tracker.add(1, float("nan"))
    assert pickle.dumps(tracker) == before


def test_dynamic_h_refuses_the_prior_severity_ratio_as_the_windows_do():
    """One refusal for H that cannot be maintained: DynamicH's is the windows'."""
    with pytest.raises(ValueError) as structure:
        DynamicH(severity_ratio="prior")
    with pytest.raises(ValueError) as window:
        sliding_window([0, 1], [0.1, 0.2], 2, metrics=HCost(severity_ratio="prior"))
    assert str(structure.value) == str(window.value)
    assert "give relative_error= (ApproxH, or HCost in a window)" in str(structure.value)


@pytest.mark.parametrize("epsilon", EPSILONS)
def test_subset_meets_the_conditions_of_props_5_and_6(epsilon):
    """Every hull vertex is in Q or lies between two consecutive Q vertices that are
    within a factor 1 + eps on x (the FPR term) and on N1 - y (the FNR term)."""
    rng = np.random.default_rng(5)
    for trial in range(30):
        y, s = concave_stream(int(rng.integers(5, 120))) if trial % 2 else random_stream(rng, 3000)
        tracker = ApproxH(epsilon, priors=(0.5, 0.5))
        tracker.add_many(y, s)
        q_x, q_y = tracker._engine.subset_vertices()
        fpr, tpr = roc_hull(y, s)
        n_neg, n_pos = (y == 0).sum(), (y == 1).sum()
        hull_x, hull_y = np.rint(fpr * n_neg), np.rint(tpr * n_pos)
        assert (q_x[0], q_y[0], q_x[-1], q_y[-1]) == (0, 0, n_neg, n_pos)
        kept = set(zip(q_x.tolist(), q_y.tolist(), strict=True))
        assert kept <= set(zip(hull_x.tolist(), hull_y.tolist(), strict=True))
        for x, y_ in zip(hull_x, hull_y, strict=True):
            if (x, y_) in kept:
                continue
            j = np.searchsorted(q_x, x) - 1  # q_x[j] < x < q_x[j + 1]
            assert q_x[j + 1] <= (1 + epsilon) * q_x[j]
            assert n_pos - q_y[j] <= (1 + epsilon) * (n_pos - q_y[j + 1])
        # And H' is the H of the subset's chain with these priors.
        from hmeasure_stream._engines._cost import h_from_hull
        assert tracker.h == pytest.approx(h_from_hull(q_x, q_y, 0.5, 0.5, 2.0, 2.0), rel=1e-12)
