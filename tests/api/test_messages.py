"""What the package tells its user: one-line install hints for missing optional
dependencies, no warning leaking from numpy's time parsing, and a word (or a refusal)
when a binned AUC's scores fall outside its score range.

The suite turns every warning into an error (pyproject.toml), so a call here that
issues no ``pytest.warns`` would fail on any warning that leaked.
"""

import datetime
import importlib
import pickle
import re
import sys
from pathlib import Path

import numpy as np
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: scripts/_setup.sh installs tomli
    import tomli as tomllib

import hmeasure_stream
from hmeasure_stream import BinnedAUC, DynamicAUC, OutOfRangeScoresWarning, binned_auc
from hmeasure_stream._validation import check_time_value, check_times


def hide(monkeypatch, *packages):
    """Make ``packages`` (and every submodule imported so far) unimportable for one test."""
    for name in list(sys.modules):
        if name.partition(".")[0] in packages:
            monkeypatch.setitem(sys.modules, name, None)
    for package in packages:
        monkeypatch.setitem(sys.modules, package, None)


def assert_one_line_hint(error, needed_by, install):
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith(needed_by + " needs ")
    assert message.endswith(f"pip install '{install}'")
    assert error.value.__cause__ is None and error.value.__suppress_context__


# ---------------------------------------------------------------- optional dependencies

@pytest.mark.parametrize("module, missing, extra", [
    ("hmeasure_stream.river", "river", "river"),
    ("hmeasure_stream.dask", "dask", "dask"),
    ("hmeasure_stream.dask", "pandas", "dask"),
])
def test_an_adapter_without_its_dependency_names_the_extras_requirement(monkeypatch, module,
                                                                        missing, extra):
    # The command installs the missing module as the extra would (its requirement in
    # pyproject.toml), and works from a clone: it names no package of ours.
    pyproject = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())
    requirement, = [r for r in pyproject["project"]["optional-dependencies"][extra]
                    if re.match(rf"{missing}\b", r)]
    monkeypatch.delitem(sys.modules, module, raising=False)
    hide(monkeypatch, missing)
    with pytest.raises(ImportError) as error:
        importlib.import_module(module)
    assert_one_line_hint(error, module, requirement)
    assert f"needs {missing}, which is not installed" in str(error.value)
    assert "hmeasure_stream[" not in str(error.value)


def test_the_adapters_import_with_their_dependencies():
    river = importlib.import_module("hmeasure_stream.river")
    dask = importlib.import_module("hmeasure_stream.dask")
    assert river.ROCAUC().works_with is not None and callable(dask.auc)


def test_functions_with_an_optional_dependency_name_what_to_install(monkeypatch):
    from hmeasure_stream.datasets import load_default_stream
    from hmeasure_stream.scorers import h_scorer

    hide(monkeypatch, "pandas", "sklearn")
    with pytest.raises(ImportError) as error:
        load_default_stream(as_frame=True)
    assert_one_line_hint(error, "load_default_stream(as_frame=True)", "pandas")
    with pytest.raises(ImportError) as error:
        hmeasure_stream.hmeasure_report([0, 1, 0, 1], [0.1, 0.8, 0.4, 0.3], as_frame=True)
    assert_one_line_hint(error, "hmeasure_report(as_frame=True)", "pandas")
    with pytest.raises(ImportError) as error:
        h_scorer()
    assert_one_line_hint(error, "hmeasure_stream.scorers", "scikit-learn>=1.4")


# ---------------------------------------------------------------- ISO times without pandas

def nanoseconds(*fields, offset_minutes=0):
    """Nanoseconds since the epoch of a wall-clock time at a UTC offset, by the standard library."""
    zone = datetime.timezone(datetime.timedelta(minutes=offset_minutes))
    moment = datetime.datetime(*fields, tzinfo=zone)
    epoch = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
    delta = moment - epoch
    return (delta.days * 86400 + delta.seconds) * 10**9 + delta.microseconds * 1000


ZONED = [
    ("2024-03-01T12:00:00Z", nanoseconds(2024, 3, 1, 12)),
    ("2024-03-01 12:00:00.25Z", nanoseconds(2024, 3, 1, 12, 0, 0, 250000)),
    ("2024-03-01T13:30:00+01:30", nanoseconds(2024, 3, 1, 13, 30, offset_minutes=90)),
    ("2024-03-01T07:00-0500", nanoseconds(2024, 3, 1, 7, offset_minutes=-300)),
    ("2024-03-01T14+02", nanoseconds(2024, 3, 1, 14, offset_minutes=120)),
    ("2024-03-01T12:00:00", nanoseconds(2024, 3, 1, 12)),  # no zone: UTC
    ("2024-03-01", nanoseconds(2024, 3, 1)),
]


@pytest.mark.parametrize("with_pandas", [True, False])
def test_iso_times_with_a_zone_are_their_utc_instants_without_a_warning(monkeypatch,
                                                                         with_pandas):
    if not with_pandas:
        hide(monkeypatch, "pandas")
    texts = [text for text, _ in ZONED]
    expected = [value for _, value in ZONED]
    np.testing.assert_array_equal(check_times(texts, len(texts)), expected)
    assert [check_time_value(text) for text in texts] == expected


def test_a_time_window_reads_z_times_without_pandas_and_without_a_warning(monkeypatch):
    hide(monkeypatch, "pandas")
    hours = ["2024-03-01T00:00:00Z", "2024-03-01T00:30:00Z", "2024-03-01T02:00:00+01:00",
             "2024-03-01T01:10:00Z"]
    recent = DynamicAUC(window="1h")
    recent.add_many([0, 1, 0], [0.2, 0.9, 0.4], times=hours[:3])
    recent.add(1, 0.3, time=hours[3])
    # The window (00:10, 01:10] holds the points of 00:30, 01:00 and 01:10.
    reference = DynamicAUC()
    reference.add_many([1, 0, 1], [0.9, 0.4, 0.3])
    assert (len(recent), recent.auc) == (3, reference.auc)


def test_a_bad_time_string_still_names_its_position_without_pandas(monkeypatch):
    hide(monkeypatch, "pandas")
    with pytest.raises(ValueError, match=r"times\[1\] = '2024-13-01T00:00Z' is not an ISO"):
        check_times(["2024-03-01T00:00Z", "2024-13-01T00:00Z"], 2)


# ---------------------------------------------------------------- binned AUC's score range

Y = np.array([0, 1, 0, 1, 0, 1, 0, 1])
S = np.array([-1.5, 0.9, 0.2, 2.0, 0.4, 1.25, 0.1, 0.7])   # 1 below (0, 1), 2 above
SPAN = r"3 of 8 scores \(in \[-1\.5, 2\.0\]\) lie outside score_range \(0\.0, 1\.0\)"


def test_binned_auc_warns_of_scores_outside_the_range_with_their_count_and_span():
    with pytest.warns(OutOfRangeScoresWarning, match=SPAN + ".*end bins") as caught:
        result = binned_auc(Y, S, n_bins=4)
    assert len(caught) == 1 and caught[0].filename == __file__
    # The value is unchanged: the end bins hold what clipping the scores puts there.
    clipped = binned_auc(Y, np.clip(S, 0.0, 1.0), n_bins=4)
    assert (result.auc, result.max_error, result.n_below, result.n_above) == (
        clipped.auc, clipped.max_error, 1, 2)
    np.testing.assert_array_equal(result.counts_pos, clipped.counts_pos)


def test_binned_auc_strict_refuses_scores_outside_the_range():
    with pytest.raises(ValueError, match=r"binned_auc: " + SPAN + ", and strict=True refuses"):
        binned_auc(Y, S, n_bins=4, strict=True)
    assert binned_auc(Y, S, n_bins=4, strict=True, score_range=(-1.5, 2.0)).n_above == 0
    with pytest.raises(ValueError, match="strict must be one of False, True; got 1"):
        binned_auc(Y, S, n_bins=4, strict=1)


def test_scores_on_the_range_ends_are_inside():
    binned_auc([0, 1, 0, 1], [0.0, 1.0, 0.5, 0.75], n_bins=4)              # no warning
    binned_auc([0, 1, 0, 1], [0.0, 1.0, 0.5, 0.75], transform="loglog", strict=True)
    tracker = BinnedAUC(4, strict=True)
    tracker.add_many([0, 1], [0.0, 1.0])
    tracker.add(1, 1.0)
    assert (tracker.result().n_below, tracker.result().n_above) == (0, 0)


def test_the_issue_example_decision_values_need_their_range():
    """Scores on the scale of a linear model's decision values, as in the issue."""
    rng = np.random.default_rng(33)
    y = rng.integers(0, 2, 2000)
    s = rng.normal(size=2000) + 1.5 * y
    exact = hmeasure_stream.auc(y, s)
    with pytest.warns(OutOfRangeScoresWarning, match=r"of 2000 scores \(in \[-"):
        coarse = binned_auc(y, s, n_bins=100)
    fitted = binned_auc(y, s, n_bins=100, score_range=(s.min(), s.max()))
    assert abs(fitted.auc - exact) <= fitted.max_error < coarse.max_error


def test_binned_auc_structure_warns_when_points_outside_the_range_are_added():
    tracker = BinnedAUC(4)
    with pytest.warns(OutOfRangeScoresWarning, match=r"BinnedAUC: " + SPAN) as caught:
        tracker.add_many(Y, S)
    assert caught[0].filename == __file__
    with pytest.warns(OutOfRangeScoresWarning,
                      match=r"BinnedAUC: the score 1\.7 lies outside score_range") as caught:
        tracker.add(1, 1.7)
    assert caught[0].filename == __file__
    tracker.remove(1, 1.7)                     # removing them says nothing
    tracker.remove_many(Y[:2], S[:2])
    tracker._check()
    reference = binned_auc(Y[2:], np.clip(S[2:], 0, 1), n_bins=4)
    assert (tracker.auc, tracker.result().n_above) == (reference.auc, 2)


def test_a_strict_structure_refuses_and_stays_byte_identical():
    tracker = BinnedAUC(4, strict=True)
    inside = (S >= 0) & (S <= 1)
    tracker.add_many(Y[inside], S[inside])
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"BinnedAUC: " + SPAN + ", and strict=True"):
        tracker.add_many(Y, S)
    with pytest.raises(ValueError, match=r"the score -0\.25 lies outside score_range"):
        tracker.add(0, -0.25)
    other = BinnedAUC(4)
    with pytest.warns(OutOfRangeScoresWarning):
        other.add_many(Y, S)
    with pytest.raises(ValueError, match=r"holds 3 point\(s\) outside score_range"):
        tracker.merge(other)
    assert pickle.dumps(tracker) == before
    tracker._check()
    copy = pickle.loads(before)
    with pytest.raises(ValueError, match="strict=True"):
        copy.add(1, 3.0)


def test_a_strict_loglog_structure_refuses_before_freezing_its_alpha():
    tracker = BinnedAUC(8, transform="loglog", strict=True)
    before = pickle.dumps(tracker)
    with pytest.raises(ValueError, match=r"the score 1\.5 lies outside"):
        tracker.add(1, 1.5)
    assert pickle.dumps(tracker) == before and tracker.loglog_alpha is None
