"""One rule for every window front end: the counts (window, min_periods, capacity), the
refusal of decay for the unit-weight engines, and the reads of a window.

Each front end (SlidingWindow, sliding_window, plot_metrics, the structures' window=,
the command line) refuses the same bad value with the same message; the values a window
reads are compared with the from-scratch functions on the window's points.
"""

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

from hmeasure_stream import (
    ApproxAUC,
    BinnedAUC,
    Classes,
    Compression,
    DelayedAUC,
    DynamicAUC,
    DynamicH,
    SlidingWindow,
    binned_auc,
    h_measure,
    sliding_window,
)
from hmeasure_stream.metric_table import METRICS, SECOND_SCORE
from tests.reference_impl import brute_auc_value

pytestmark = pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")

LIMIT = 2**31 - 1  # the most points a window's ring holds
Y = np.array([0, 1, 0, 1, 1, 0, 1, 0, 0, 1])
S = np.array([0.2, 0.9, 0.4, 0.3, 0.8, 0.1, 0.7, 0.6, 0.5, 0.35])


def _plot(**options):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from hmeasure_stream.plotting import plot_metrics

    try:
        plot_metrics({"auc": np.full(10, 0.5)}, **options)
    finally:
        plt.close("all")


def _cli(tmp_path, *arguments):
    """(exit code, stderr) of the command line on a small CSV."""
    path = tmp_path / "in.csv"
    path.write_text("label,score\n" + "".join(f"{y},{s}\n" for y, s in zip(Y, S, strict=True)))
    done = subprocess.run([sys.executable, "-m", "hmeasure_stream", str(path), *arguments],
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stderr


PYTHON_FRONT_ENDS = {
    "SlidingWindow": lambda **kw: SlidingWindow(kw.pop("window", 3), **kw),
    "sliding_window": lambda **kw: sliding_window(Y, S, kw.pop("window", 3), **kw),
    "plot_metrics": lambda **kw: _plot(**kw),
}

# Bad counts and the one message each front end gives for them.
BAD_COUNTS = [
    (0, "{name} must be at least 1; got 0"),
    (-3, "{name} must be at least 1; got -3"),
    (LIMIT + 1, f"{{name}} must be at most {LIMIT}, the most points a window holds; got "
                f"{LIMIT + 1}"),
]


@pytest.mark.parametrize("front_end", [*PYTHON_FRONT_ENDS, "DynamicAUC", "cli"])
@pytest.mark.parametrize(("value", "message"), BAD_COUNTS)
def test_every_front_end_refuses_a_bad_count_window_alike(tmp_path, front_end, value, message):
    expected = message.format(name="window")
    if front_end == "cli" and value > LIMIT:
        # A window of rows longer than a window holds never fills: every prefix.
        assert _cli(tmp_path, "--window", str(value))[0] == 0
        return
    if front_end == "cli":
        code, err = _cli(tmp_path, "--window", str(value))
        assert code == 2
        assert len(err.splitlines()) == 1, err
        assert expected in err
        return
    build = PYTHON_FRONT_ENDS.get(front_end, lambda **kw: DynamicAUC(**kw))
    with pytest.raises(ValueError) as raised:
        build(window=value)
    assert str(raised.value) == expected


@pytest.mark.parametrize("front_end", [*PYTHON_FRONT_ENDS, "DynamicAUC"])
@pytest.mark.parametrize("value", [2.5, True, np.float64(3.0)])
def test_every_front_end_refuses_a_window_that_is_not_a_count_alike(front_end, value):
    build = PYTHON_FRONT_ENDS.get(front_end, lambda **kw: DynamicAUC(**kw))
    with pytest.raises(ValueError) as raised:
        build(window=value)
    assert str(raised.value) == (
        f"window must be an integer from 1 to {LIMIT} (a number of points), a duration such "
        f"as '24h' (a datetime.timedelta, a numpy.timedelta64), or None; got {value!r}")


@pytest.mark.parametrize("front_end", [*PYTHON_FRONT_ENDS, "cli"])
@pytest.mark.parametrize(("value", "message"), BAD_COUNTS)
def test_every_front_end_refuses_a_bad_min_periods_alike(tmp_path, front_end, value, message):
    expected = message.format(name="min_periods")
    if front_end == "cli":
        code, err = _cli(tmp_path, "--min-periods", str(value))
        assert code == 2
        assert len(err.splitlines()) == 1, err
        assert expected in err
        return
    with pytest.raises(ValueError) as raised:
        PYTHON_FRONT_ENDS[front_end](min_periods=value)
    assert str(raised.value) == expected


@pytest.mark.parametrize("front_end", [*PYTHON_FRONT_ENDS, "cli"])
def test_every_front_end_refuses_min_periods_beyond_the_window_alike(tmp_path, front_end):
    """Every value would be nan: refused, as pandas' rolling refuses it."""
    expected = "min_periods (6) must not exceed the window (5 points): every value would be nan"
    if front_end == "cli":
        code, err = _cli(tmp_path, "--window", "5", "--min-periods", "6")
        assert code == 2
        assert len(err.splitlines()) == 1, err
        assert expected in err
        return
    with pytest.raises(ValueError) as raised:
        PYTHON_FRONT_ENDS[front_end](window=5, min_periods=6)
    assert str(raised.value) == expected


@pytest.mark.parametrize("build", [
    lambda capacity: SlidingWindow(3, capacity=capacity),
    lambda capacity: DynamicAUC(capacity=capacity),
    lambda capacity: DynamicH(capacity=capacity),
], ids=["SlidingWindow", "DynamicAUC", "DynamicH"])
@pytest.mark.parametrize(("value", "message"), BAD_COUNTS)
def test_every_structure_refuses_a_bad_capacity_alike(build, value, message):
    with pytest.raises(ValueError) as raised:
        build(value)
    assert str(raised.value) == message.format(name="capacity")


def test_min_periods_masks_alike_in_chunks_in_one_call_and_at_rows(tmp_path):
    """nan exactly where the window holds fewer than min_periods points (here the first
    three rows of a window of 4), by chunks, in one call, at chosen rows, on the CLI."""
    expected = np.array([np.nan if row < 3 else brute_auc_value(Y[max(0, row - 3):row + 1],
                                                         S[max(0, row - 3):row + 1])
                         for row in range(10)])
    window = SlidingWindow(4, min_periods=4)
    chunked = np.concatenate([window.update(Y[:2], S[:2])["auc"],
                              window.update(Y[2:], S[2:])["auc"]])
    np.testing.assert_allclose(chunked, expected)
    np.testing.assert_allclose(sliding_window(Y, S, 4, min_periods=4)["auc"], expected)
    np.testing.assert_allclose(sliding_window(Y, S, 4, min_periods=4, at=[1, 2, 3, 9])["auc"],
                               expected[[1, 2, 3, 9]])
    code, err = _cli(tmp_path, "--window", "4", "--min-periods", "4", "--out",
                     str(tmp_path / "out.csv"))
    assert code == 0, err
    written = np.genfromtxt(tmp_path / "out.csv", delimiter=",", names=True)
    np.testing.assert_allclose(written["auc"], expected)


DECAY_MESSAGE = ("half_life is not available with ['{name}']: decay weighs the points, and "
                 "their engines count unit weights only; use window=, or the exact 'auc' "
                 "(DynamicAUC(half_life=...)) with decay")


@pytest.mark.parametrize(("name", "build"), [
    ("auc_approx", lambda: SlidingWindow(None, ("auc_approx", Compression(0.1)), half_life=5)),
    ("auc_binned", lambda: SlidingWindow(None, "auc_binned", half_life=5)),
    ("auc_approx", lambda: sliding_window(Y, S, None, ("auc_approx", Compression(0.1)),
                                          half_life=5)),
    ("auc_approx", lambda: DelayedAUC(None, ("auc_approx", Compression(0.1)), half_life=5)),
    ("auc_approx", lambda: ApproxAUC(0.1, half_life=5)),
    ("auc_binned", lambda: BinnedAUC(4, half_life=5)),
], ids=["SlidingWindow-approx", "SlidingWindow-binned", "sliding_window", "DelayedAUC",
        "ApproxAUC", "BinnedAUC"])
def test_every_unit_weight_engine_refuses_decay_alike(name, build):
    with pytest.raises(ValueError) as raised:
        build()
    assert str(raised.value) == DECAY_MESSAGE.format(name=name)


# ----------------------------------------------------------------------------------------
# A window's reads.

def _filled(window_size=5, metrics=("auc", "h", "brier")):
    window = SlidingWindow(window_size, metrics)
    window.update(Y, S)
    return window


def test_a_window_reads_its_chosen_metrics_by_name():
    window = _filled()
    last_y, last_s = Y[-5:], S[-5:]
    assert window["auc"] == pytest.approx(brute_auc_value(last_y, last_s), abs=1e-12)
    assert window["h"] == pytest.approx(h_measure(last_y, last_s), abs=1e-12)
    assert window["brier"] == pytest.approx(np.mean((last_s - last_y) ** 2), abs=1e-12)
    results = window.results()
    assert list(results) == ["auc", "h", "brier"]
    assert results == {name: window[name] for name in ("auc", "h", "brier")}
    assert all(type(value) is float for value in results.values())


def test_a_metric_not_chosen_is_a_key_error_naming_the_chosen():
    window = _filled(metrics=("h",))
    with pytest.raises(KeyError, match=r"'auc' is not among this window's metrics \['h'\]"):
        window["auc"]
    with pytest.raises(KeyError, match="'gini' is not among"):
        window["gini"]


def test_help_lists_no_metric_attribute():
    import pydoc

    text = pydoc.render_doc(SlidingWindow, renderer=pydoc.plaintext)
    assert not any(line.strip() in ("auch", "brier", "ece", "sens_at_spec")
                   for line in text.splitlines())
    assert "brier" not in dir(SlidingWindow)


@pytest.mark.parametrize("name", list(METRICS))
def test_the_old_attribute_reads_warn_and_give_the_same_value(name):
    """Each spelling of the previous API (``window.auc``, ``window.h``, ...), for a release."""
    if name == "multiclass_auc":
        window = SlidingWindow(5, Classes(classes=[0, 1, 2]))
        window.update([0, 1, 2, 1], [[0.6, 0.3, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8],
                                     [0.3, 0.4, 0.3]])
    else:
        window = SlidingWindow(5, Compression(0.1) if name == "auc_approx" else name)
        window.update(Y, S, **({"y_score2": S[::-1]} if SECOND_SCORE in METRICS[name].needs
                               else {}))
    with pytest.warns(DeprecationWarning, match=rf"window\[{name!r}\]"):
        value = getattr(window, name)
    assert value == pytest.approx(window[name], nan_ok=True)


def test_an_old_attribute_of_a_metric_not_chosen_is_still_an_attribute_error():
    window = _filled(metrics=("h",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        with pytest.raises(AttributeError, match="'brier' is not among"):
            window.brier  # noqa: B018
        assert not hasattr(window, "brier")
    with pytest.raises(AttributeError):
        window.not_a_metric  # noqa: B018


def test_a_window_with_reads_pickles():
    window = _filled()
    again = pickle.loads(pickle.dumps(window))
    assert again.results() == window.results()


# ----------------------------------------------------------------------------------------
# BinnedAUC over a count window.

@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("size", [1, 3, 7, 40])
def test_a_binned_window_equals_binned_auc_of_its_points(size, weighted):
    rng = np.random.default_rng(11)
    n = 60
    y = rng.integers(0, 2, n)
    s = np.round(rng.uniform(-0.1, 1.1, n), 2)  # some outside the range
    w = rng.integers(1, 4, n).astype(float) if weighted else None
    tracker = BinnedAUC(8, window=size)
    for start, stop in ((0, 5), (5, 6), (6, 33), (33, n)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the scores outside the range
            tracker.add_many(y[start:stop], s[start:stop],
                             None if w is None else w[start:stop])
        low = max(0, stop - size)
        window_y, window_s = y[low:stop], s[low:stop]
        window_w = None if w is None else w[low:stop]
        assert len(tracker) == stop - low
        if 0 < window_y.sum() < len(window_y):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                expected = binned_auc(window_y, window_s, n_bins=8, sample_weight=window_w)
            result = tracker.result()
            assert tracker.auc == pytest.approx(expected.auc, abs=1e-12)
            assert tracker.max_error == pytest.approx(expected.max_error, abs=1e-12)
            np.testing.assert_allclose(result.counts_neg, expected.counts_neg)
            np.testing.assert_allclose(result.counts_pos, expected.counts_pos)
            assert (result.n_below, result.n_above) == (expected.n_below, expected.n_above)
        else:
            assert np.isnan(tracker.auc)
        tracker._check()


def test_a_binned_window_point_by_point_equals_the_batch():
    rng = np.random.default_rng(5)
    y, s = rng.integers(0, 2, 30), rng.uniform(0, 1, 30)
    one, batch = BinnedAUC(6, window=4), BinnedAUC(6, window=4)
    for label, score in zip(y, s, strict=True):
        one.add(int(label), float(score))
    batch.add_many(y, s)
    assert one.result().counts_pos.tolist() == batch.result().counts_pos.tolist()
    assert one.auc == batch.auc == binned_auc(y[-4:], s[-4:], n_bins=6).auc
    assert one.window == 4 and BinnedAUC(6).window is None
    again = pickle.loads(pickle.dumps(one))
    again.add(1, 0.5)
    one.add(1, 0.5)
    assert again.auc == one.auc and len(again) == 4


def test_a_binned_window_refuses_what_a_window_cannot_do():
    tracker = BinnedAUC(4, window=3)
    tracker.add_many([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8])
    before = tracker.result()
    with pytest.raises(ValueError, match="a window given as a duration is not available with "
                                         "'auc_binned'"):
        BinnedAUC(4, window="1h")
    with pytest.raises(ValueError, match="window must be at least 1"):
        BinnedAUC(4, window=0)
    with pytest.raises(ValueError, match="forgets its points itself"):
        tracker.remove(1, 0.9)
    with pytest.raises(ValueError, match="cannot merge a BinnedAUC with a window"):
        tracker.merge(BinnedAUC(4))
    with pytest.raises(ValueError, match="cannot merge a BinnedAUC with a window"):
        BinnedAUC(4).merge(tracker)
    after = tracker.result()
    assert after.counts_neg.tolist() == before.counts_neg.tolist()
    assert after.counts_pos.tolist() == before.counts_pos.tolist()
