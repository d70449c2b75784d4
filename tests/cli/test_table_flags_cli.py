"""The metric table's options as flags: each metric with options on the command line, each
written row against a from-scratch computation of its window."""

import dataclasses
import math

import numpy as np
import pytest
from cli_helpers import (
    PRECIOUS,
    brute_auc,
    csv_text,
    probability_stream,
    read_table,
    run_cli,
    written_rows,
)
from scipy import stats
from sklearn.metrics import average_precision_score, roc_auc_score

from hmeasure_stream import binned_auc, calibration_error, coords
from hmeasure_stream.cli import AVAILABLE_METRICS, build_parser
from hmeasure_stream.metric_table import METRICS, HCost, Threshold
from tests.reference_impl import placements_exact

WINDOW, EVERY = 60, 9


@pytest.fixture
def stream(tmp_path):
    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300) + y, 2)  # ties
    path = tmp_path / "stream.csv"
    path.write_text(csv_text(y, s))
    return path, y, s


def written(stream, capsys, *options):
    path, y, s = stream
    code, out, err = run_cli([path, "--window", WINDOW, "--every", EVERY, "--no-progress",
                              *options], capsys)
    assert code == 0, err
    rows, values = read_table(out)
    assert rows.tolist() == written_rows(len(y), EVERY).tolist()
    windows = [slice(max(0, row + 1 - WINDOW), row + 1) for row in rows]
    return values, [(y[part], s[part]) for part in windows]


def test_partial_auc_over_a_range_of_fpr_equals_scikit_learns_max_fpr(stream, capsys):
    values, windows = written(stream, capsys, "--metrics", "pauc", "--fpr-range", "0,0.2",
                              "--correction", "mcclish")
    expected = [roc_auc_score(y, s, max_fpr=0.2) for y, s in windows]
    np.testing.assert_allclose(values["pauc"], expected, rtol=1e-12)


def test_rates_at_a_fixed_rate_equal_procs_coords(stream, capsys):
    values, windows = written(stream, capsys, "--metrics", "sens_at_spec,spec_at_sens",
                              "--specificity", 0.8, "--sensitivity", 0.7)
    sens = [coords(y, s, 0.8, input="specificity", ret="sensitivity")["sensitivity"][0]
            for y, s in windows]
    spec = [coords(y, s, 0.7, input="sensitivity", ret="specificity")["specificity"][0]
            for y, s in windows]
    np.testing.assert_allclose(values["sens_at_spec"], sens, rtol=1e-12)
    np.testing.assert_allclose(values["spec_at_sens"], spec, rtol=1e-12)


def test_approximate_metrics_keep_their_bounds(stream, capsys):
    values, windows = written(stream, capsys, "--metrics", "auc_approx,ap_approx",
                              "--compression", 0.05, "--relative-error", 0.02)
    for approx, ap, (y, s) in zip(values["auc_approx"], values["ap_approx"], windows,
                                  strict=True):
        exact = brute_auc(y, s)
        assert abs(approx - exact) <= 0.05 * exact / 2 + 1e-12
        exact_ap = average_precision_score(y, s)
        assert abs(ap - exact_ap) <= 0.02 * exact_ap + 1e-12


def test_binned_auc_with_its_bins_and_range(stream, capsys):
    # "=": a range whose low end is negative is not taken for a flag.
    values, windows = written(stream, capsys, "--metrics", "auc_binned", "--n-bins", 20,
                              "--score-range=-3,4")
    expected = [binned_auc(y, s, n_bins=20, score_range=(-3, 4)).auc for y, s in windows]
    np.testing.assert_allclose(values["auc_binned"], expected, rtol=1e-12)


def test_delong_interval_at_the_level_given(stream, capsys):
    values, windows = written(stream, capsys, "--metrics", "auc_lo,auc_hi", "--level", 0.9)
    z = stats.norm.ppf(0.95)
    for low, high, (y, s) in zip(values["auc_lo"], values["auc_hi"], windows, strict=True):
        v10, v01, area = placements_exact(y.tolist(), s.tolist())
        spread = math.sqrt(np.var([float(v) for v, _ in v10], ddof=1) / len(v10)
                           + np.var([float(v) for v, _ in v01], ddof=1) / len(v01))
        assert (low, high) == pytest.approx((max(float(area) - z * spread, 0.0),
                                             min(float(area) + z * spread, 1.0)), abs=1e-12)


def test_calibration_bins(tmp_path, capsys):
    path, y, p = probability_stream(tmp_path, 200, 3)
    code, out, err = run_cli([path, "--window", WINDOW, "--metrics", "ece", "--n-bins", 4],
                             capsys)
    assert code == 0, err
    _, values = read_table(out)
    expected = [calibration_error(y[max(0, k + 1 - WINDOW):k + 1],
                                  p[max(0, k + 1 - WINDOW):k + 1], n_bins=4)
                for k in range(200)]
    np.testing.assert_allclose(values["ece"], expected, atol=1e-12)


@pytest.mark.parametrize(("options", "message"), [
    (["--metrics", "auc_approx"], "--metrics auc_approx needs --compression"),
    (["--fpr-range", "0,0.2"], "--fpr-range goes with --metrics pauc"),
    (["--metrics", "pauc", "--fpr-range", "0,2"],
     "--fpr-range: fpr_range must satisfy 0 <= low < high <= 1, got (0.0, 2.0)"),
    (["--metrics", "auc_binned", "--transform", "log"],
     "--transform: transform must be one of None, 'loglog'; got 'log'"),
    (["--metrics", "ece", "--n-bins", "0"], "--n-bins: n_bins must be"),
    (["--metrics", "pauc", "--fpr-range", "0,inf"],
     "argument --fpr-range: '0,inf' is not finite"),
])
def test_a_bad_table_flag_is_one_line_and_costs_no_file(stream, capsys, tmp_path, options,
                                                       message):
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    code, _, err = run_cli([stream[0], "--out", out, *options], capsys)
    assert code == 2
    assert err.startswith(f"hmeasure-stream: error: {message}") and err.count("\n") == 1, err
    assert out.read_text() == PRECIOUS


def test_every_option_of_the_table_is_a_flag():
    # The flags are made from the table: each documented field of the options of the
    # metrics --metrics offers is --field, or --metric-field when another flag has that
    # name (H's and the threshold's flags are written out by hand).
    flags = {option for action in build_parser()._actions for option in action.option_strings}
    for name in AVAILABLE_METRICS:
        options = METRICS[name].options
        if options in (None, HCost, Threshold):
            continue
        owners = [other for other in AVAILABLE_METRICS if METRICS[other].options is options]
        for field in dataclasses.fields(options):
            if "help" in field.metadata:
                named = {f"--{prefix}{field.name}".replace("_", "-")
                         for prefix in ("", *(f"{owner}_" for owner in owners))}
                assert named & flags, (name, field.name)
    assert {"auc_approx", "auc_binned", "pauc", "sens_at_spec", "spec_at_sens",
            "ap_approx"} <= set(AVAILABLE_METRICS)
