"""Properties every function and structure of the registry has, as scikit-learn's
``sklearn/metrics/tests/test_common.py``.

Over ``registry.FUNCTIONS``, ``registry.STRUCTURES`` and ``registry.STREAMS``:

* the value does not depend on the order of the samples (permuted with their weights);
* weights: all-ones weights equal no weights, integer weights equal repeating the
  samples, a common scale of the weights changes nothing, and a zero weight equals
  removing the sample.

The data are seeded; the weights are multiples of 1/4 with small sums, so every sum of
weights is exact and the exact metrics are compared with ``==``.  The exceptions are
named in the tables below with their reasons.
"""

import dataclasses
import math

import numpy as np
import pytest
from registry import (
    FREQUENCY_WEIGHTS,
    FUNCTIONS,
    NOT_IN_REGISTRY,
    OPTIONS_AND_RESULTS,
    ROUNDED_UNDER_SCALE,
    STREAMS,
    STRUCTURES,
    function_value,
    readings,
    registered_names,
)

import hmeasure_stream as hs

# (Random scores may rank class 0 higher, and lie outside a binned score range.)
pytestmark = [pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning"),
              pytest.mark.filterwarnings("ignore::hmeasure_stream.OutOfRangeScoresWarning")]

#: Values computed in floating point after the exact sums of weights: sums of products
#: of probabilities (or their logarithms) with the weights, rounded in the order the
#: points come in; DeLong's variance, the partial areas, the weighted and standardized
#: AUC, the binned AUC's error bounds, rounded differently along the weighted and the
#: unweighted paths.  Equal to a few units in the last place: relative ROUNDED.
ROUNDED_SUMS = frozenset({"brier_score", "log_loss", "calibration_error",
                          "calibration_error max quantile", "calibration_report",
                          "auc_variance", "auc_ci", "auc max_fpr", "partial fpr",
                          "partial tpr", "partial two-way", "weighted_auc"})
ROUNDED_STRUCTURES = frozenset({"BinnedAUC"})
ROUNDED = 1e-13

#: Quantile bins have the percentiles of the points as edges, as scikit-learn's
#: calibration_curve, whatever their weights: repeated points move them, weights do not.
UNWEIGHTED_EDGES = frozenset({"calibration_error max quantile"})

#: Functions that take no sample weights.
NO_WEIGHTS = frozenset({"auc_test"})

#: Structures whose window or decay holds (and weighs) the points by their order, by
#: definition: the order invariance is not theirs.
ORDERED = frozenset(name for name, structure in STRUCTURES.items()
                    if not structure.keeps_points)

#: The approximate summaries of the ordered stream: their compressed state, hence their
#: estimate (within its guarantee), depends on the order of the points.
ORDER_DEPENDENT_ESTIMATES = frozenset({"ApproxAUC", "ApproxH", "ApproxH prior"})

#: Structures that take no weights other than 1.
UNWEIGHTED = frozenset({name for name, s in STRUCTURES.items() if not s.weighted}
                       | {name for name, s in STREAMS.items() if not s.weighted})

#: The sliding windows of the registry (4 rows) read their rows in order.
ORDERED_FUNCTIONS = frozenset({"sliding_window", "sliding_window moa"})


def same(got, expected, rel=0.0):
    """Equal values (nan equal to nan; ``rel``: a relative tolerance), through tuples,
    lists, dicts, arrays and dataclasses."""
    if dataclasses.is_dataclass(got):
        got, expected = dataclasses.astuple(got), dataclasses.astuple(expected)
    if isinstance(got, dict):
        return got.keys() == expected.keys() and all(same(got[k], expected[k], rel)
                                                     for k in got)
    if isinstance(got, tuple | list) or (isinstance(got, np.ndarray) and got.dtype == object):
        return len(got) == len(expected) and all(same(a, b, rel)
                                                 for a, b in zip(got, expected, strict=True))
    got, expected = np.asarray(got, dtype=float), np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        return False
    if rel == 0.0:
        return bool(np.array_equal(got, expected, equal_nan=True))
    return bool(np.allclose(got, expected, rtol=rel, atol=0.0, equal_nan=True))


def data(seed, n=40):
    """Labels, tied scores and weights (multiples of 1/4 up to 2: exact sums)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    s = np.round(rng.normal(size=n) + y, 1)
    w = rng.integers(1, 9, n) / 4
    return y, s, w


SEEDS = [1, 2, 3]


# ---------------------------------------------------------------------------
# The registry covers the public API


def test_every_public_name_is_in_the_registry_or_excused():
    excused = set(NOT_IN_REGISTRY) | OPTIONS_AND_RESULTS
    missing = sorted(set(hs.__all__) - registered_names() - excused)
    assert not missing, f"declare these in tests/registry.py or in NOT_IN_REGISTRY: {missing}"
    assert registered_names() <= set(hs.__all__)
    assert not registered_names() & excused


# ---------------------------------------------------------------------------
# From-scratch functions


def function_tolerance(name):
    return ROUNDED if name in ROUNDED_SUMS else 0.0


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(set(FUNCTIONS) - ORDERED_FUNCTIONS))
def test_function_ignores_the_order_of_the_samples(name, seed):
    y, s, w = data(seed)
    order = np.random.default_rng(seed + 100).permutation(len(y))
    expected = function_value(name, y, s)
    got = function_value(name, y[order], s[order])
    assert same(got, expected, function_tolerance(name)), (got, expected)
    if name not in NO_WEIGHTS:
        expected = function_value(name, y, s, sample_weight=w)
        got = function_value(name, y[order], s[order], sample_weight=w[order])
        assert same(got, expected, function_tolerance(name)), (got, expected)


WEIGHTED_FUNCTIONS = sorted(set(FUNCTIONS) - NO_WEIGHTS)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", WEIGHTED_FUNCTIONS)
def test_function_weights_of_one_equal_no_weights(name, seed):
    y, s, _ = data(seed)
    got = function_value(name, y, s, sample_weight=np.ones(len(y)))
    assert same(got, function_value(name, y, s), function_tolerance(name))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(set(WEIGHTED_FUNCTIONS) - ORDERED_FUNCTIONS
                                        - UNWEIGHTED_EDGES))
def test_function_integer_weights_equal_repeated_samples(name, seed):
    y, s, _ = data(seed)
    counts = np.random.default_rng(seed).integers(1, 4, len(y))
    got = function_value(name, y, s, sample_weight=counts.astype(float))
    expected = function_value(name, np.repeat(y, counts), np.repeat(s, counts))
    # (A repeated point is many points: where weights are not frequencies the variance
    # would differ; DeLong's are frequencies, so it equals too.)
    assert same(got, expected, function_tolerance(name)), (got, expected)


@pytest.mark.parametrize("scale", [2.0**-10, 3.0, 1e6])
@pytest.mark.parametrize("name", sorted(set(WEIGHTED_FUNCTIONS) - FREQUENCY_WEIGHTS
                                        - ROUNDED_UNDER_SCALE))
def test_function_ignores_a_common_scale_of_the_weights(name, scale):
    # Scaled by 3 or 1e6 the weights' sums round differently from the unscaled ones:
    # equal to rounding (relative 1e-12); a power of 2 scales exactly.
    y, s, w = data(7)
    got = function_value(name, y, s, sample_weight=w * scale)
    expected = function_value(name, y, s, sample_weight=w)
    rel = 0.0 if scale == 2.0**-10 and name not in ROUNDED_SUMS else 1e-12
    assert same(got, expected, rel), (got, expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(set(WEIGHTED_FUNCTIONS) - ORDERED_FUNCTIONS))
def test_function_zero_weight_equals_removing_the_sample(name, seed):
    y, s, w = data(seed)
    gone = np.zeros(len(y), dtype=bool)
    gone[[5, 11, 17]] = True
    zeroed = np.where(gone, 0.0, w)
    got = function_value(name, y, s, sample_weight=zeroed)
    expected = function_value(name, y[~gone], s[~gone], sample_weight=w[~gone])
    assert same(got, expected, function_tolerance(name)), (got, expected)


# ---------------------------------------------------------------------------
# Structures, read at the end of the stream


def structure_tolerance(name):
    return ROUNDED if name in ROUNDED_STRUCTURES else 0.0


def structure_value(name, y, s, w=None, totals=True):
    """What structure ``name`` reads after the stream (y, s, w) (w None: no weights)."""
    if name in STREAMS:
        stream = STREAMS[name]
        subject = stream.make()
        stream.feed(subject, y, s, w)
        return stream.read(subject)
    tracker = STRUCTURES[name].make()
    tracker.add_many(y, s, w)
    return readings(tracker, roc=name in ROC_READERS, totals=totals)


#: The structures that read the ROC points and the hull.
ROC_READERS = frozenset(name for name in STRUCTURES
                        if hasattr(STRUCTURES[name].make(), "roc_points"))

ALL_STRUCTURES = sorted(set(STRUCTURES) | set(STREAMS))
WEIGHTED_STRUCTURES = sorted(set(ALL_STRUCTURES) - UNWEIGHTED)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(set(ALL_STRUCTURES) - ORDERED
                                        - ORDER_DEPENDENT_ESTIMATES))
def test_structure_ignores_the_order_of_the_samples(name, seed):
    y, s, w = data(seed)
    order = np.random.default_rng(seed + 100).permutation(len(y))
    for weights in (None, None if name in UNWEIGHTED else w):
        expected = structure_value(name, y, s, weights)
        got = structure_value(name, y[order], s[order],
                              None if weights is None else weights[order])
        assert same(got, expected, structure_tolerance(name)), (got, expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", WEIGHTED_STRUCTURES)
def test_structure_weights_of_one_equal_no_weights(name, seed):
    y, s, _ = data(seed)
    assert same(structure_value(name, y, s, np.ones(len(y))), structure_value(name, y, s),
                structure_tolerance(name))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(set(WEIGHTED_STRUCTURES) - ORDERED))
def test_structure_integer_weights_equal_repeated_samples(name, seed):
    y, s, _ = data(seed)
    counts = np.random.default_rng(seed).integers(1, 4, len(y))
    got = structure_value(name, y, s, counts.astype(float))
    expected = structure_value(name, np.repeat(y, counts), np.repeat(s, counts))
    if isinstance(got, dict):
        # The count of points held is a count, not a weight.
        got, expected = dict(got), dict(expected)
        got.pop("len", None)
        expected.pop("len", None)
    assert same(got, expected, structure_tolerance(name)), (got, expected)


@pytest.mark.parametrize("scale", [2.0**-10, 3.0, 1e6])
@pytest.mark.parametrize("name", WEIGHTED_STRUCTURES)
def test_structure_ignores_a_common_scale_of_the_weights(name, scale):
    # (The class weights scale with the weights: read without them.)  A power of 2
    # scales exactly; 3 and 1e6 round the sums differently: relative 1e-12.
    y, s, w = data(7)
    got = structure_value(name, y, s, w * scale, totals=False)
    expected = structure_value(name, y, s, w, totals=False)
    exact = scale == 2.0**-10 and name not in ROUNDED_STRUCTURES
    assert same(got, expected, 0.0 if exact else 1e-12), (got, expected)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", sorted(set(WEIGHTED_STRUCTURES) - ORDERED))
def test_structure_zero_weight_equals_removing_the_sample(name, seed):
    y, s, w = data(seed)
    gone = np.zeros(len(y), dtype=bool)
    gone[[5, 11, 17]] = True
    got = structure_value(name, y, s, np.where(gone, 0.0, w))
    expected = structure_value(name, y[~gone], s[~gone], w[~gone])
    if isinstance(got, dict):
        got, expected = dict(got), dict(expected)
        assert got.pop("len", len(y) - 3) in (len(y) - 3, len(y))
        expected.pop("len", None)
    assert same(got, expected, structure_tolerance(name)), (got, expected)


def test_the_tables_name_registered_subjects():
    for table in (ROUNDED_SUMS, ORDERED_FUNCTIONS, UNWEIGHTED_EDGES, NO_WEIGHTS):
        assert table <= set(FUNCTIONS)
    for table in (ORDERED, ORDER_DEPENDENT_ESTIMATES, UNWEIGHTED, ROUNDED_STRUCTURES):
        assert table <= set(ALL_STRUCTURES)
    assert math.isfinite(ROUNDED)
