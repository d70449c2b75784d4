"""Hypothesis strategies shared by the tests."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def labelled_scores(draw, min_size=2, max_size=40, weighted=False, distinct=None):
    """(y, s[, w]) with both classes present; few distinct scores force ties."""
    n = draw(st.integers(min_size, max_size))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    position = draw(st.integers(0, n - 2))
    y[position], y[position + 1] = 0, 1
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
    w = draw(
        st.lists(
            st.one_of(st.integers(1, 5).map(float), st.floats(0.01, 10.0)),
            min_size=n,
            max_size=n,
        )
    )
    return np.array(y), np.array(s), np.array(w)
