"""Hypothesis strategies shared by the tests."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def labelled_scores(draw, min_size=2, max_size=40, weighted=False, distinct=None,
                    min_each=1, integer_weights=False):
    """(y, s[, w]) with both classes present; few distinct scores force ties.

    ``min_each``: at least that many points of each class.  ``integer_weights``:
    weights are whole numbers (exact cumulative sums), some of them 0.
    """
    n = draw(st.integers(max(min_size, 2 * min_each), max(max_size, 2 * min_each)))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    if min_each == 1:
        position = draw(st.integers(0, n - 2))
        y[position], y[position + 1] = 0, 1
        chosen = [position, position + 1]
    else:
        chosen = draw(st.permutations(range(n)))[:2 * min_each]
        for k, position in enumerate(chosen):
            y[position] = k % 2
    if distinct is None:
        distinct = draw(st.sampled_from([2, 3, 5, 1000]))
    s = draw(
        st.lists(
            st.integers(-distinct, distinct).map(lambda v: v / 4),
            min_size=n,
            max_size=n,
        )
    )
    if not weighted:
        return np.array(y), np.array(s)
    if not integer_weights:
        values = st.one_of(st.integers(1, 5).map(float), st.floats(0.01, 10.0))
        w = draw(st.lists(values, min_size=n, max_size=n))
        return np.array(y), np.array(s), np.array(w)
    w = draw(st.lists(st.integers(0, 5).map(float), min_size=n, max_size=n))
    for position in chosen:  # each class keeps a positive weight
        w[position] = max(w[position], 1.0)
    return np.array(y), np.array(s), np.array(w)
