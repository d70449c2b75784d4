"""The compiled exactly rounded sum equals ``math.fsum`` (an independent implementation)."""

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from hmeasure_stream._engines._scratch import exactly_rounded_sum

# Magnitudes up to 1e300 and at most 200 values: no partial sum overflows.
finite = st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_subnormal=True)


@given(st.lists(finite, max_size=200))
def test_equals_fsum_for_any_finite_values(values):
    assert exactly_rounded_sum(np.array(values, dtype=np.float64)) == math.fsum(values)


@given(st.lists(st.sampled_from([1.0, -1.0, 2.0**-53, -(2.0**-53), 2.0**-106, 2.0**60,
                                 -(2.0**60), 5e-324, 0.1, 0.7]), max_size=60))
def test_equals_fsum_on_cancellation_and_halfway_cases(values):
    assert exactly_rounded_sum(np.array(values, dtype=np.float64)) == math.fsum(values)


def test_halfway_rounds_to_even_and_wide_ranges():
    cases = [[1.0, 2.0**-53, 2.0**-106], [1.0, 2.0**-53, -(2.0**-106)],
             [1.0, 2.0**-53], [1.0 + 2.0**-52, 2.0**-53],
             [1e308, 1.0, -1e308], [5e-324] * 7, [0.1] * 10, [],
             list(np.random.default_rng(0).normal(scale=1e10, size=10_000))]
    for values in cases:
        assert exactly_rounded_sum(np.array(values, dtype=np.float64)) == math.fsum(values)
    # The exact sum of 10**6 values of every exponent
    rng = np.random.default_rng(1)
    values = rng.normal(size=10**6) * 2.0 ** rng.integers(-60, 60, size=10**6)
    assert exactly_rounded_sum(values) == math.fsum(values.tolist())
