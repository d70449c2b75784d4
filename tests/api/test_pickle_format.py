"""Every structure pickles in one format, and refuses a pickle of another format."""

import pickle

import numpy as np
import pytest
from registry import EVERY_STATE

Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])
S = np.array([0.1, 0.8, 0.35, 0.3, 0.9, 0.4, 0.6, 0.2])


def filled(name):
    """Structure ``name`` of the registry (tests/registry.py) fed Y and S."""
    stream = EVERY_STATE[name]
    tracker = stream.make()
    stream.feed(tracker, Y, S, None)
    return tracker


@pytest.mark.parametrize("name", sorted(EVERY_STATE))
def test_a_pickle_round_trip_keeps_everything(name):
    tracker = filled(name)
    copy = pickle.loads(pickle.dumps(tracker))
    assert pickle.dumps(copy) == pickle.dumps(tracker)
    assert copy.__getstate__().keys() == tracker.__getstate__().keys()
    # What it reads, bit for bit (nan as nan).
    read = EVERY_STATE[name].read
    copied, original = read(copy), read(tracker)
    assert type(copied) is type(original)
    assert pickle.dumps(copied) == pickle.dumps(original)
    copy._check()


@pytest.mark.parametrize("name", sorted(EVERY_STATE))
@pytest.mark.parametrize("written", [0, 1, 2, 4, None, "3"])
def test_a_pickle_of_another_format_is_refused(name, written):
    state = filled(name).__getstate__()
    assert state["format"] == 3
    if written is None:
        del state["format"]
    else:
        state["format"] = written
    blank = type(filled(name)).__new__(type(filled(name)))
    with pytest.raises(ValueError, match=(
            rf"cannot unpickle this {type(blank).__name__}: it was written in pickle format "
            rf"{written!r}, and this version of hmeasure_stream reads format 3 only")):
        blank.__setstate__(state)
