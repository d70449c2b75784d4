import os
import signal
from pathlib import Path

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


# The Ctrl-C tests press Ctrl-C on a monitor run in the foreground.  A shell that starts
# the suite in the background without job control (``bash scripts/test.sh &`` in a script,
# nohup) ignores SIGINT in it, every process started from it inherits the ignored signal
# across exec, and a monitor that inherits it rightly leaves it ignored (docs/command_line.rst):
# the tests would then wait for an interrupt that never comes.  Their processes get SIGINT
# as a foreground program has it.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)



# The files that take longest (a build, the docs, the type checks, the largest stress
# tests), measured by CPU time; with the slow-marked files they are started first.
LONGEST_FILES = ("test_packaging.py", "test_docs_build.py", "engines/test_blocked_pma.py",
                 "test_project.py")


def pytest_collection_modifyitems(config, items):
    """Run the longest files first, then the files holding slow tests, then the others.

    ``scripts/test.sh`` hands the files to the workers in this order (``--dist loadfile
    --no-loadscope-reorder``): the long files start at once and the many short ones
    fill in at the end, so the workers finish together.  (xdist's own order, the files
    with the most tests first, would start the few-test builds last.)  Within each
    group the files keep their order.
    """
    root = Path(__file__).parent
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}

    def group(item):
        try:
            name = item.path.relative_to(root).as_posix()
        except ValueError:  # the package's doctests, the notebooks
            name = None
        if name in LONGEST_FILES:
            return 0, LONGEST_FILES.index(name)
        # The notebooks start a kernel each: not the last to run either.
        return (1 if item.path in slow_files or item.path.suffix == ".ipynb" else 2), 0

    items.sort(key=group)
