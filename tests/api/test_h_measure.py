import warnings

import numpy as np
import pytest
from hmeasure import h_score
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import h_by_integration, to_unit_interval
from sklearn.metrics import roc_auc_score
from strategies import labelled_scores

from hmeasure_stream import InvertedScoresWarning, h_measure

SEVERITY_RATIOS = [0.05, 0.3, 1.0, 2.5, 20.0]


def port_h(y, s, severity_ratio=None):
    """H from the `hmeasure` package (a port of R's), on scores mapped into [0, 1]."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return h_score(np.asarray(y), to_unit_interval(s), severity_ratio=severity_ratio)


def random_classifier(rng, n, decimals=None):
    y = rng.integers(0, 2, n)
    y[:2] = [0, 1]
    s = rng.normal(size=n) + y * rng.uniform(-0.5, 3.0)
    if decimals is not None:
        s = np.round(s, decimals)
    return y, s


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("seed", range(40))
def test_h_measure_equals_r_port(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 400))
    y, s = random_classifier(rng, n, decimals=[None, 1, 0][seed % 3])
    # The port's severity_ratio=None is R's default "prior".
    assert h_measure(y, s, severity_ratio="prior") == pytest.approx(
        port_h(y, s), rel=1e-11, abs=1e-12
    )
    for ratio in SEVERITY_RATIOS:
        assert h_measure(y, s, severity_ratio=ratio) == pytest.approx(
            port_h(y, s, ratio), rel=1e-11, abs=1e-12
        )
    # Beta(2, 2) is R's severity ratio 1.
    assert h_measure(y, s) == pytest.approx(port_h(y, s, 1.0), rel=1e-11, abs=1e-12)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("n", [10_000, 200_000])
def test_h_measure_equals_r_port_on_large_input(rng, n):
    y, s = random_classifier(rng, n, decimals=2)
    for ratio in [None, 0.5, 4.0]:
        ours = h_measure(y, s, severity_ratio="prior" if ratio is None else ratio)
        assert ours == pytest.approx(port_h(y, s, ratio), rel=1e-10)


def test_h_measure_heavy_imbalance_equals_r_port(rng):
    n = 20_000
    y = (rng.random(n) < 0.002).astype(int)
    s = rng.normal(size=n) + 2.0 * y
    for ratio in [None, 0.01, 1.0]:
        ours = h_measure(y, s, severity_ratio="prior" if ratio is None else ratio)
        assert ours == pytest.approx(port_h(y, s, ratio), rel=1e-10)


def test_h_measure_is_not_flipped_below_half(rng):
    y, s = random_classifier(rng, 500)
    s = -s - 2.0 * y  # clearly worse than random
    assert roc_auc_score(y, s) < 0.3
    with pytest.warns(InvertedScoresWarning, match="the scores rank class 0 above class 1"):
        ours = h_measure(y, s, severity_ratio="prior")
    # The port does not flip either; R would report H(y, -s).
    assert ours == pytest.approx(port_h(y, s), rel=1e-11, abs=1e-12)
    assert ours < 0.05 < h_measure(y, -s, severity_ratio="prior")


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(
    labelled_scores(max_size=25),
    st.floats(0.3, 6.0),
    st.floats(0.3, 6.0),
    st.one_of(st.none(), st.floats(0.02, 0.98)),
)
def test_h_measure_equals_numerical_integration(data, alpha, beta, pi1):
    y, s = data
    priors = None if pi1 is None else (1.0 - pi1, pi1)
    expected = h_by_integration(y, s, alpha, beta, priors)
    assert h_measure(y, s, alpha=alpha, beta=beta, priors=priors) == pytest.approx(
        expected, rel=1e-7, abs=1e-8
    )


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@given(labelled_scores(max_size=20, weighted=True), st.floats(0.5, 4.0), st.floats(0.5, 4.0))
def test_weighted_h_measure_equals_numerical_integration(data, alpha, beta):
    y, s, w = data
    expected = h_by_integration(y, s, alpha, beta, w=w)
    assert h_measure(y, s, alpha=alpha, beta=beta, sample_weight=w) == pytest.approx(
        expected, rel=1e-7, abs=1e-8
    )


def test_severity_ratio_prior_uses_the_priors_in_effect(rng):
    y, s = random_classifier(rng, 60, decimals=1)
    expected = h_by_integration(y, s, 2.0, 1.0 + 0.8 / 0.2, priors=(0.8, 0.2))
    got = h_measure(y, s, severity_ratio="prior", priors=(0.8, 0.2))
    assert got == pytest.approx(expected, rel=1e-7)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
def test_priors_equal_to_class_proportions_change_nothing(rng):
    y, s = random_classifier(rng, 400, decimals=1)
    pi1 = y.mean()
    assert h_measure(y, s, priors=(1 - pi1, pi1)) == pytest.approx(h_measure(y, s), rel=1e-13)


def test_integer_weights_equal_repetition(rng):
    y, s = random_classifier(rng, 300, decimals=1)
    w = rng.integers(1, 5, 300)
    for kwargs in ({}, {"severity_ratio": "prior"}, {"alpha": 1.5, "beta": 3.0}):
        assert h_measure(y, s, sample_weight=w, **kwargs) == pytest.approx(
            h_measure(np.repeat(y, w), np.repeat(s, w), **kwargs), rel=1e-12
        )


def test_h_measure_depends_only_on_the_order_of_scores(rng):
    y, s = random_classifier(rng, 200, decimals=1)
    assert h_measure(y, s) == h_measure(y, np.exp(s / 4)) == h_measure(y, 10 * s - 3)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize(
    ("y", "s", "expected"),
    [
        ([0, 1], [0.2, 0.7], 1.0),
        ([0, 0, 1, 1], [1, 2, 3, 4], 1.0),
        ([0, 1], [0.7, 0.2], 0.0),
        ([0, 1, 0, 1], [5, 5, 5, 5], 0.0),
    ],
)
def test_h_measure_extreme_cases(y, s, expected):
    for kwargs in ({}, {"severity_ratio": 0.2}, {"alpha": 0.5, "beta": 0.7}):
        assert h_measure(y, s, **kwargs) == pytest.approx(expected, abs=1e-15)
