"""A flag is the name of its field, one name one meaning: ``--n-bins`` sets the bins of
``auc_binned``, ``ece`` and ``mce``, ``--relative-error`` the relative error of H and of
``ap_approx``, ``--compression`` the compressed list's.  The former flags (``--epsilon``,
``--ap-approx-epsilon``, ``--auc-approx-epsilon``, ``--bins``) set their own metric's
field alone, for one release, with one warning line on standard error.
"""

import numpy as np
import pytest
from cli_helpers import PRECIOUS, csv_text, leftovers, read_table, run_cli

import hmeasure_stream as hs
from hmeasure_stream.cli import build_parser

WINDOW = 60


@pytest.fixture(scope="module")
def points():
    rng = np.random.default_rng(23)
    p = np.round(rng.random(240), 3)
    y = (rng.random(240) < p).astype(int)
    return y, p


@pytest.fixture
def stream(tmp_path, points):
    path = tmp_path / "probabilities.csv"
    path.write_text(csv_text(*points))
    return path


def _run(stream, capsys, *args):
    code, written, err = run_cli([stream, "--window", WINDOW, "--no-progress", *args], capsys)
    assert code == 0, err
    return read_table(written)[1], err


def _windows(points):
    y, p = points
    for end in range(len(y)):
        part = slice(max(0, end + 1 - WINDOW), end + 1)
        if len(set(y[part].tolist())) == 2:
            yield end, y[part], p[part]


def _summary(err):
    """Standard error without the run's closing summary line."""
    return [line for line in err.splitlines() if "rows (" not in line]


def test_n_bins_sets_every_metric_of_bins(stream, capsys, points):
    values, err = _run(stream, capsys, "--metrics", "auc_binned,ece,mce", "--n-bins", "4")
    assert _summary(err) == []
    for end, y, p in _windows(points):
        assert values["auc_binned"][end] == hs.binned_auc(y, p, n_bins=4).auc, end
        assert values["ece"][end] == pytest.approx(hs.calibration_error(y, p, n_bins=4),
                                                   rel=1e-12, abs=1e-15), end
        assert values["mce"][end] == pytest.approx(
            hs.calibration_error(y, p, n_bins=4, norm="max"), rel=1e-12, abs=1e-15), end


def test_each_metric_keeps_its_default_without_the_flag(stream, capsys, points):
    values, _ = _run(stream, capsys, "--metrics", "auc_binned,ece")
    for end, y, p in _windows(points):
        assert values["auc_binned"][end] == hs.binned_auc(y, p, n_bins=1000).auc, end
        assert values["ece"][end] == pytest.approx(hs.calibration_error(y, p, n_bins=10),
                                                   rel=1e-12, abs=1e-15), end


def test_relative_error_sets_h_and_the_average_precision(stream, capsys, points):
    values, _ = _run(stream, capsys, "--metrics", "h,ap_approx", "--priors", "0.4,0.6",
                     "--relative-error", "0.2")
    for end, y, p in _windows(points):
        exact_h = hs.h_measure(y, p, priors=(0.4, 0.6))
        assert abs(values["h"][end] - exact_h) <= 0.2 * (1 - exact_h) + 1e-12, end
        exact_ap = hs.average_precision(y, p)
        assert abs(values["ap_approx"][end] - exact_ap) <= 0.2 * exact_ap + 1e-12, end


@pytest.mark.parametrize(("old", "new", "metrics"), [
    (["--epsilon", "0.1"], ["--relative-error", "0.1"], "h,auc"),
    (["--auc-approx-epsilon", "0.3"], ["--compression", "0.3"], "auc_approx"),
    (["--bins", "5"], ["--n-bins", "5"], "auc_binned"),
    (["--ap-approx-epsilon", "0.1"], ["--relative-error", "0.1"], "ap_approx"),
])
def test_a_former_flag_gives_the_same_values_and_one_warning(stream, capsys, old, new,
                                                             metrics):
    extra = ["--severity-ratio", "prior"] if metrics.startswith("h") else []
    former, err = _run(stream, capsys, "--metrics", metrics, *extra, *old)
    current, current_err = _run(stream, capsys, "--metrics", metrics, *extra, *new)
    assert _summary(err) == [f"hmeasure-stream: warning: {old[0]} is deprecated and will "
                             f"be removed in the next release; use {new[0]}"]
    assert _summary(current_err) == []
    for name in current:
        np.testing.assert_array_equal(former[name], current[name])


def test_a_former_flag_sets_its_own_metric_alone(stream, capsys, points):
    """--ap-approx-epsilon was the average precision's: H stays exact beside it, and
    --bins leaves ece at its 10 bins."""
    values, _ = _run(stream, capsys, "--metrics", "h,ap_approx", "--ap-approx-epsilon", "0.3")
    exact, _ = _run(stream, capsys, "--metrics", "h")
    np.testing.assert_array_equal(values["h"], exact["h"])
    values, _ = _run(stream, capsys, "--metrics", "auc_binned,ece", "--bins", "3")
    for end, y, p in _windows(points):
        assert values["auc_binned"][end] == hs.binned_auc(y, p, n_bins=3).auc, end
        assert values["ece"][end] == pytest.approx(hs.calibration_error(y, p, n_bins=10),
                                                   rel=1e-12, abs=1e-15), end


@pytest.mark.parametrize(("args", "message"), [
    (["--metrics", "auc_binned", "--bins", "3", "--n-bins", "4"],
     "give --n-bins only (--bins is its former name), not both"),
    (["--metrics", "h", "--epsilon", "0.1", "--relative-error", "0.1"],
     "give --relative-error only (--epsilon is its former name), not both"),
    (["--metrics", "ece", "--bins", "3"], "--bins goes with --metrics auc_binned"),
    (["--metrics", "auc", "--n-bins", "3"], "--n-bins goes with --metrics auc_binned or ece "
     "or mce"),
    (["--metrics", "auc", "--relative-error", "0.1"],
     "--relative-error goes with --metrics h or auch or ks or mer or mwl or ap_approx"),
])
def test_a_misused_flag_is_one_line_and_costs_no_file(stream, capsys, tmp_path, args, message):
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    code, written, err = run_cli([stream, "--out", out, "--no-progress", *args], capsys)
    assert (code, written) == (2, "")
    assert err == f"hmeasure-stream: error: {message}\n"
    assert out.read_text() == PRECIOUS and leftovers(tmp_path) == []


def test_the_help_names_each_flag_once():
    text = build_parser().format_help()
    for flag in ("--n-bins", "--relative-error", "--compression"):
        assert sum(line.lstrip().startswith(flag) for line in text.splitlines()) == 1, flag
    for former in ("--epsilon", "--ap-approx-epsilon", "--auc-approx-epsilon", "--bins"):
        assert former not in text
