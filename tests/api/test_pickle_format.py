"""Every structure pickles in one format, and refuses a pickle of another format."""

import pickle

import numpy as np
import pytest
from registry import STRUCTURES, readings

import hmeasure_stream as hs

Y = [0, 1, 0, 1, 1, 0, 1, 0]
S = [0.1, 0.8, 0.35, 0.3, 0.9, 0.4, 0.6, 0.2]

MAKERS = {
    **{name: structure.make for name, structure in STRUCTURES.items()},
    "DynamicMulticlassAUC": lambda: hs.DynamicMulticlassAUC([0, 1]),
    "SlidingWindow": lambda: hs.SlidingWindow(4, ("auc", "h", "pauc", "auc_var")),
}


def filled(name):
    tracker = MAKERS[name]()
    if name == "DynamicMulticlassAUC":
        tracker.add_many(Y, np.column_stack([-np.array(S), S]))
    elif name == "SlidingWindow":
        tracker.update(Y, S)
    else:
        tracker.add_many(Y, S)
    return tracker


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_pickle_round_trip_keeps_everything(name):
    tracker = filled(name)
    copy = pickle.loads(pickle.dumps(tracker))
    assert pickle.dumps(copy) == pickle.dumps(tracker)
    if name in STRUCTURES:
        assert readings(copy) == pytest.approx(readings(tracker), nan_ok=True)
    elif name == "SlidingWindow":
        assert copy.results() == tracker.results()
    else:
        assert copy.auc == tracker.auc
    copy._check()


@pytest.mark.parametrize("name", sorted(MAKERS))
@pytest.mark.parametrize("written", [0, 2, None, "1"])
def test_a_pickle_of_another_format_is_refused(name, written):
    state = filled(name).__getstate__()
    assert state["format"] == 1
    if written is None:
        del state["format"]
    else:
        state["format"] = written
    blank = type(filled(name)).__new__(type(filled(name)))
    with pytest.raises(ValueError, match=(
            rf"cannot unpickle this {type(blank).__name__}: it was written in pickle format "
            rf"{written!r}, and this version of hmeasure_stream reads format 1 only")):
        blank.__setstate__(state)
