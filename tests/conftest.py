import os

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

# The README's test command replays the same examples on every run, for everyone: each
# test's examples come from a hash of the test (derandomize) and no example database is read
# or written, so the selection and the examples are the same from one run to the next.
# Random exploration is an explicit opt-in: HYPOTHESIS_PROFILE=explore (1000 new examples a
# test each run, failures kept in .hypothesis/ to replay).
settings.register_profile(
    "default",
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
    database=None,
)
settings.register_profile("explore", parent=settings.get_profile("default"),
                          max_examples=1000, derandomize=False,
                          database=DirectoryBasedExampleDatabase(".hypothesis/examples"))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)
