"""Reliability of times, durations and pickles (issue 30, items 6, 9, 17 and 18).

Time windows and decay over times more than 2^63 ns apart, against a brute
force in Python integers; ambiguous duration units refused with the unit to
use, in the API and the command line; every pickle protocol on every
structure; inconsistent pickles refused with a ValueError, never a crash (run
in a subprocess, so that a crash cannot take the test run with it).
"""

import copyreg
import io
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from reference_impl import brute_auc_value
from registry import EVERY_STATE, FORGETTING, STRUCTURES, centuries

import hmeasure_stream as hs
from hmeasure_stream.cli import main

DAY = 86400 * 10**9
# Times from 1680 to 2261: up to 1.8e19 ns apart, beyond int64's 9.2e18.
DATES = ["1680-01-01", "1700-03-01", "1750-06-01", "1900-01-01", "1969-12-31T23:59:59",
         "2000-01-01", "2100-01-01", "2250-01-01", "2261-06-01"]
TIMES = np.array(DATES, dtype="datetime64[ns]")
LABELS = [0, 1, 1, 0, 1, 0, 0, 1, 1]
SCORES = [0.3, 0.7, 0.2, 0.6, 0.9, 0.1, 0.8, 0.4, 0.5]
WEIGHTS = [1.0, 2.0, 0.5, 1.5, 1.0, 3.0, 0.25, 1.0, 2.0]


def inside(period, upto):
    """Indices of the points a time window of ``period`` ns holds after point ``upto``."""
    times = [int(t) for t in TIMES.astype(np.int64)]
    return [k for k in range(upto + 1) if times[upto] - times[k] < period]


# The structures of the registry (tests/registry.py) that take a window, by their maker.
TIMED = {name: lambda window, make=STRUCTURES[name].make: make(window=window)
         for name in FORGETTING}


# ---------------------------------------------------------------------------
# Item 6: time windows and decay over times more than 2^63 ns apart.

@pytest.mark.parametrize("window", ["106000d", "100000d", "40000d", "1d"])
@pytest.mark.parametrize("name", sorted(TIMED))
@pytest.mark.parametrize("batch", [False, True])
def test_a_time_window_over_centuries_holds_the_points_inside_it(name, window, batch):
    period = hs._validation.check_duration(window, "window")
    tracker = TIMED[name](window)
    weights = WEIGHTS if STRUCTURES[name].weighted else [1.0] * len(WEIGHTS)
    for k in range(len(DATES)):
        if batch:
            tracker.add_many(LABELS[k:k + 1], SCORES[k:k + 1], weights[k:k + 1],
                             times=TIMES[k:k + 1])
        else:
            tracker.add(LABELS[k], SCORES[k], weights[k], time=TIMES[k])
        held = inside(period, k)
        assert len(tracker) == len(held)
        expected = brute_auc_value([LABELS[i] for i in held], [SCORES[i] for i in held],
                             [weights[i] for i in held])
        assert tracker.auc == pytest.approx(expected, nan_ok=True)
        tracker._check()


def test_a_sliding_window_of_time_over_centuries_against_brute_force():
    period = 106000 * DAY
    values = hs.SlidingWindow("106000d", ("auc",)).update(LABELS, SCORES, WEIGHTS,
                                                           times=TIMES)["auc"]
    for k in range(len(DATES)):
        held = inside(period, k)
        assert values[k] == pytest.approx(brute_auc_value(
            [LABELS[i] for i in held], [SCORES[i] for i in held], [WEIGHTS[i] for i in held]),
            nan_ok=True)


@pytest.mark.parametrize("name", sorted(TIMED))
def test_times_more_than_292_years_apart_are_in_order(name):
    tracker = TIMED[name]("1d")
    far = np.array(["1700-01-01", "2200-01-01"], dtype="datetime64[ns]")
    tracker.add_many([0, 1], [0.1, 0.2], times=far)  # not "going backwards"
    assert len(tracker) == 1 and tracker.weight_pos == 1.0
    with pytest.raises(ValueError, match="must not go backwards"):
        tracker.add_many([0, 1], [0.1, 0.2], times=far[::-1])
    assert len(tracker) == 1


def test_decay_over_centuries_weighs_by_the_exact_ages():
    half_life = 106000 * DAY
    tracker = hs.DynamicAUC(half_life="106000d")
    times = [int(t) for t in TIMES.astype(np.int64)]
    for k in range(len(DATES)):
        tracker.add(LABELS[k], SCORES[k], WEIGHTS[k], time=TIMES[k])
        decayed = [WEIGHTS[i] * 2.0 ** (-(times[k] - times[i]) / half_life)
                   for i in range(k + 1)]
        assert tracker.weight_pos == pytest.approx(
            sum(d for d, y in zip(decayed, LABELS, strict=False) if y == 1), rel=1e-12)
        assert tracker.weight_neg == pytest.approx(
            sum(d for d, y in zip(decayed, LABELS, strict=False) if y == 0), rel=1e-12)
        assert tracker.auc == pytest.approx(brute_auc_value(LABELS[:k + 1], SCORES[:k + 1], decayed),
                                            nan_ok=True)
        tracker._check()


def test_decay_over_centuries_on_a_sliding_window_and_dynamic_h():
    half_life = 106000 * DAY
    times = [int(t) for t in TIMES.astype(np.int64)]
    values = hs.SlidingWindow(None, ("auc",), half_life="106000d").update(
        LABELS, SCORES, WEIGHTS, times=TIMES)["auc"]
    for k in range(len(DATES)):
        decayed = [WEIGHTS[i] * 2.0 ** (-(times[k] - times[i]) / half_life)
                   for i in range(k + 1)]
        assert values[k] == pytest.approx(brute_auc_value(LABELS[:k + 1], SCORES[:k + 1], decayed),
                                          nan_ok=True)
    tracker = hs.DynamicH(half_life="106000d")
    tracker.add_many(LABELS, SCORES, WEIGHTS, times=TIMES)
    decayed = [w * 2.0 ** (-(times[-1] - t) / half_life)
               for w, t in zip(WEIGHTS, times, strict=True)]
    assert tracker.h == pytest.approx(hs.h_measure(LABELS, SCORES, sample_weight=decayed),
                                      rel=1e-12)


def test_epoch_seconds_that_round_to_2_63_ns_are_refused():
    tracker = hs.DynamicAUC(window="1d")
    with pytest.raises(ValueError, match="is not a finite time in seconds"):
        tracker.add_many([0], [0.5], times=np.array([2.0**63 / 1e9]))
    assert len(tracker) == 0


# ---------------------------------------------------------------------------
# Item 9: durations whose unit is ambiguous are refused, saying which unit to use.

@pytest.mark.parametrize(("text", "use"), [("1M", "'min' for minutes"),
                                           ("5MS", "'ms' for milliseconds"),
                                           ("3Ms", "'ms' for milliseconds"),
                                           ("2 M", "'min' for minutes"),
                                           ("1h30M", "'min' for minutes"),
                                           ("2Y", "give days or weeks"),
                                           ("1 month", "give days or weeks")])
@pytest.mark.parametrize("option", ["window", "half_life"])
def test_an_ambiguous_duration_is_refused_saying_which_unit_to_use(text, use, option):
    with pytest.raises(ValueError, match=rf"{option} '{text}' is (ambiguous|not a fixed).*{use}"):
        hs.DynamicAUC(**{option: text})
    with pytest.raises(ValueError, match=use):
        hs.SlidingWindow(text if option == "window" else 5, ("auc",),
                         **({"half_life": text} if option == "half_life" else {}))


@pytest.mark.parametrize(("text", "expected"), [
    ("1m", np.timedelta64(1, "m")), ("5ms", np.timedelta64(5, "ms")),
    ("1Min", np.timedelta64(1, "m")), ("3 mins", np.timedelta64(3, "m")),
    ("2H", np.timedelta64(2, "h")), ("1h30min", np.timedelta64(90, "m")),
    ("7 days", np.timedelta64(7, "D")), ("10us", np.timedelta64(10, "us"))])
def test_unambiguous_durations_keep_their_meaning(text, expected):
    assert hs.DynamicAUC(window=text).window == expected


@pytest.mark.parametrize(("text", "use"), [("1M", "'min' for minutes"),
                                           ("5MS", "'ms' for milliseconds")])
@pytest.mark.parametrize("option", ["--window", "--half-life"])
def test_the_command_line_refuses_an_ambiguous_duration(tmp_path, capsys, text, use, option):
    source = tmp_path / "scores.csv"
    source.write_text("label,score,t\n1,0.5,1\n0,0.25,2\n")
    code = main([str(source), "--time-col", "t", option, text], stdout=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 1 and f"argument {option}: " in err and use in err, err


# ---------------------------------------------------------------------------
# Item 17: every pickle protocol round-trips every structure.

SCORES_2D = np.column_stack([-np.array(SCORES), SCORES])


def _filled(name):
    """Structure ``name`` of the registry (tests/registry.py) fed the points, with their
    weights where it takes them."""
    stream = EVERY_STATE[name]
    tracker = stream.make()
    stream.feed(tracker, np.array(LABELS), np.array(SCORES),
                np.array(WEIGHTS) if stream.weighted else None)
    return tracker


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
@pytest.mark.parametrize("name", sorted(EVERY_STATE))
def test_every_pickle_protocol_round_trips(name, protocol):
    tracker = _filled(name)
    copy = pickle.loads(pickle.dumps(tracker, protocol=protocol))
    assert type(copy) is type(tracker)
    assert pickle.dumps(copy, protocol=4) == pickle.dumps(tracker, protocol=4)
    assert _state(copy) == _state(tracker)
    read = EVERY_STATE[name].read
    assert _state(read(copy)) == _state(read(tracker))
    copy._check()
    # Both go on alike.
    if isinstance(tracker, hs.SlidingWindow):
        later = centuries(len(LABELS))[-1] + np.arange(1, 3) * np.timedelta64(1, "D")
        more = {"times": later} if name.endswith("time") else {}
        rows = SCORES_2D[:2] if name.endswith("multiclass") else SCORES[:2]
        mine, theirs = (t.update(LABELS[:2], rows, **more) for t in (tracker, copy))
        assert mine.keys() == theirs.keys()
        for key in mine:
            np.testing.assert_array_equal(mine[key], theirs[key])
    assert _state(copy) == _state(tracker)


def _state(value):
    """Everything a pickle writes of ``value``, as comparable values: arrays as their type,
    shape and bytes, floats as hexadecimal (nan equal to itself).  (The pickles' bytes
    may differ where equal dtype objects are shared or not.)"""
    if isinstance(value, np.ndarray):
        return ("array", value.dtype.str, value.shape, value.tobytes())
    if isinstance(value, float):
        return ("float", value.hex())
    if isinstance(value, (list, tuple)):
        return tuple(_state(item) for item in value)
    if isinstance(value, dict):
        return tuple((key, _state(item)) for key, item in value.items())
    if isinstance(value, (str, int, bytes, type(None), np.generic)) or callable(value):
        return ("value", repr(value))
    if hasattr(type(value), "__slots__") and hasattr(value, "__getstate__"):
        return (type(value).__name__, _state(value.__getstate__()))
    function, arguments = value.__reduce__()[:2]
    return (getattr(function, "__name__", repr(function)), _state(arguments))


# ---------------------------------------------------------------------------
# Item 18: a pickle whose engine state is inconsistent is refused on load.

class _Crafted:
    """Pickles as ``function(*arguments)``: an engine's reduction with altered arguments."""

    def __init__(self, function, arguments):
        self.function, self.arguments = function, arguments

    def __reduce__(self):
        return self.function, self.arguments


class _Structure:
    """Pickles as a structure of class ``cls`` with the slots ``state``."""

    def __init__(self, cls, state):
        self.cls, self.state = cls, state

    def __reduce__(self):
        return copyreg._reconstructor, (self.cls, object, None), self.state


# Each corruption: (structure, what is altered, code altering ``args``, the engine's
# reduction arguments; ``buffers`` is args[1] for blocked engines).
_CORRUPTIONS = {
    "blocked: an order id out of range": ("DynamicAUC", "args[1][6][0] = 10**6"),
    "blocked: a truncated key buffer": ("DynamicAUC", "args[1][0] = args[1][0][:5]"),
    "blocked: more blocks than ids": ("DynamicAUC", "args[3] += 3"),
    "blocked: a block size beyond its buffer": ("DynamicAUC", "args[1][4][args[1][6][0]] = 10**6"),
    "blocked: a slot out of range": ("DynamicAUC", "args[1][10][args[1][6][0]] = 10**7"),
    "blocked: a leaf naming a free block": ("DynamicAUC", "args[1][11][-1] = 1"),
    "blocked: leaves not a power of two": ("DynamicAUC", "args[5] = 3"),
    "blocked: wrong dtype": ("DynamicAUC", "args[1][1] = args[1][1].astype(np.int64)"),
    "blocked: n_points": ("DynamicAUC", "args[7] += 1"),
    "blocked: a negative count": ("DynamicAUC", "args[1][1][args[1][6][0] * 128] = -5"),
    "hull: an order id out of range": ("DynamicH", "args[0][1][6][0] = -7"),
    "hull: truncated tree": ("DynamicH", "args[0][1][9] = args[0][1][9][:3]"),
    "approx: the treap's root out of range": ("ApproxAUC", "tree[1] = 10**6"),
    "approx: a treap link out of range": ("ApproxAUC", "tree[3][3]['slots_buffer'][0, 0] = 99"),
    "approx: a treap cycle": ("ApproxAUC",
                              "tree[3][3]['slots_buffer'][:, 0] = tree[1]; "
                              "tree[3][3]['slots_buffer'][:, 1] = -1"),
    "approx: slots in use": ("ApproxAUC", "tree[3][1] += 1"),
    "approx: a truncated treap buffer":
        ("ApproxAUC", "tree[3][3]['sums_buffer'] = tree[3][3]['sums_buffer'][:2]"),
    "approx: a list link out of range": ("ApproxAUC", "args[7]['p_next_buffer'][0] = 10**6"),
    "approx: a list entry count": ("ApproxAUC", "args[5] = 10**6"),
    "bins: counts of the wrong size": ("BinnedAUC", "args[3] = args[3][:2]"),
    "bins: bins beyond the buffers": ("BinnedAUC", "args[0] = 10**9"),
    "bins: n_points": ("BinnedAUC", "args[1] = -1"),
    "ring: head out of range": ("SlidingWindow", "ring[1] = 10**6"),
    "ring: size beyond its slots": ("SlidingWindow", "ring[2] = 10**6"),
    "ring: a truncated buffer": ("SlidingWindow", "ring[4] = ring[4][:1]"),
    "window: a ring without times": ("DynamicAUC time", "ring[6] = None"),
    "window: live points miscounted": ("DynamicAUC time", "forget[9] += 3"),
    "window: head out of range": ("DynamicAUC time", "ring[1] = -4"),
    "window: points the engine does not hold": ("DynamicAUC time", "ring[4][:] = 7.0"),
}

_CORRUPT_SCRIPT = textwrap.dedent('''
    import copyreg, pickle, sys
    import numpy as np
    import hmeasure_stream as hs
    sys.path[:0] = [{tests!r}, {tests!r} + "/.."]
    from test_reliability_time_pickle import _CORRUPTIONS, _Crafted, _Structure, _corrupted

    for case in {cases!r}:
        data = _corrupted(case)
        try:
            tracker = pickle.loads(data)
        except ValueError as error:
            print(case, "| refused |", str(error).splitlines()[0], flush=True)
            continue
        except Exception as error:
            print(case, "| raised", type(error).__name__, "|", error, flush=True)
            continue
        print(case, "| accepted", flush=True)
''')


def _deep_list(value):
    """Tuples as lists, arrays copied (so a corruption can assign into them)."""
    if isinstance(value, tuple):
        return [_deep_list(item) for item in value]
    if isinstance(value, dict):
        return {key: _deep_list(item) for key, item in value.items()}
    if isinstance(value, np.ndarray):
        return value.copy()
    return value


def _deep_tuple(value):
    if isinstance(value, list):
        return tuple(_deep_tuple(item) for item in value)
    if isinstance(value, dict):
        return {key: _deep_tuple(item) for key, item in value.items()}
    return value


def _corrupted(case):
    """The pickle of a filled structure with one corruption of its engine's state."""
    kind, code = _CORRUPTIONS[case]
    if kind == "DynamicAUC time":
        tracker = hs.DynamicAUC(window="106000d")
        tracker.add_many(LABELS, SCORES, WEIGHTS, times=TIMES)
    elif kind == "SlidingWindow":
        tracker = hs.SlidingWindow(4, ("auc",))
        tracker.update(LABELS, SCORES)
    else:
        tracker = {"DynamicAUC": hs.DynamicAUC, "DynamicH": hs.DynamicH,
                   "ApproxAUC": lambda: hs.ApproxAUC(0.1),
                   "BinnedAUC": lambda: hs.BinnedAUC(8)}[kind]()
        rng = np.random.default_rng(5)
        tracker.add_many(rng.integers(0, 2, 600), rng.random(600).round(3))
    state = tracker.__getstate__()
    if kind == "SlidingWindow":
        function, arguments = state["_rings"][0].__reduce__()
        ring = _deep_list(arguments)
        exec(code, {"np": np, "ring": ring})
        state["_rings"] = [_Crafted(function, _deep_tuple(ring))]
    elif kind == "DynamicAUC time":
        function, arguments = state["_forgetting"].__reduce__()
        forget = _deep_list(arguments)
        ring_function, ring_arguments = forget[-1].__reduce__()
        ring = _deep_list(ring_arguments)
        exec(code, {"np": np, "ring": ring, "forget": forget})
        forget[-1] = _Crafted(ring_function, _deep_tuple(ring))
        state["_forgetting"] = _Crafted(function, _deep_tuple(forget))
    else:
        slot = "_tree" if kind == "BinnedAUC" else "_engine"
        function, arguments = state[slot].__reduce__()
        args = _deep_list(arguments)
        tree = None
        if kind == "ApproxAUC":
            tree_function, tree_arguments = args[2].__reduce__()
            tree = _deep_list(tree_arguments)
        exec(code, {"np": np, "args": args, "tree": tree})
        if tree is not None:
            args[2] = _Crafted(tree_function, _deep_tuple(tree))
        state[slot] = _Crafted(function, _deep_tuple(args))
    return pickle.dumps(_Structure(type(tracker), state))


def test_a_crafted_pickle_loads_when_nothing_is_corrupted():
    for kind in ("DynamicAUC", "DynamicH", "ApproxAUC", "BinnedAUC", "SlidingWindow",
                 "DynamicAUC time"):
        _CORRUPTIONS["intact " + kind] = (kind, "pass")
        try:
            tracker = pickle.loads(_corrupted("intact " + kind))
        finally:
            del _CORRUPTIONS["intact " + kind]
        tracker._check()


def test_an_inconsistent_pickle_is_refused_never_a_crash():
    import pathlib

    tests = str(pathlib.Path(__file__).parent)
    script = _CORRUPT_SCRIPT.format(tests=tests, cases=sorted(_CORRUPTIONS))
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, (run.returncode, run.stdout, run.stderr[-2000:])
    lines = dict(line.split(" | ", 1) for line in run.stdout.splitlines())
    assert sorted(lines) == sorted(_CORRUPTIONS), run.stdout
    wrong = {case: line for case, line in lines.items() if not line.startswith("refused")}
    assert not wrong, wrong
    for case, line in lines.items():
        assert "cannot unpickle" in line, (case, line)


@pytest.mark.parametrize("make", [
    lambda: hs.DynamicMulticlassAUC([0, 1, 2]),
    lambda: hs.DynamicMulticlassAUC([0, 1, 2], method="ovo"),
])
def test_a_multiclass_pickle_whose_sizes_disagree_with_its_engines_is_refused(make):
    tracker = make()
    tracker.add_many([0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]] + 0.1)
    state = tracker.__getstate__()
    state["_sizes"] = state["_sizes"] + np.array([1, 0, 0])
    blank = type(tracker).__new__(type(tracker))
    with pytest.raises(ValueError, match=r"cannot unpickle this DynamicMulticlassAUC: engine "
                                         r"\d+ holds \d+ points, the class sizes say \d+"):
        blank.__setstate__(state)


def test_a_multiclass_window_pickle_with_engines_missing_is_refused():
    window = hs.SlidingWindow(5, hs.Classes([0, 1, 2]))
    window.update([0, 1, 2, 1], np.eye(3)[[0, 1, 2, 2]] + 0.1)
    engine = window._engines[0]
    state = engine.__getstate__()
    state["_engines"] = state["_engines"][:2]
    blank = type(engine).__new__(type(engine))
    with pytest.raises(ValueError, match=r"cannot unpickle this MulticlassWindow: 2 engines "
                                         r"for 3 classes \(ovr\)"):
        blank.__setstate__(state)
