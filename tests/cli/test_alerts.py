"""``--alert`` and ``--fail-on-alert``, run as a subprocess as cron or CI would."""

import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import csv_text, read_table, window_aucs

from hmeasure_stream import hmeasure_report


def run(args, cwd):
    completed = subprocess.run(
        [sys.executable, "-m", "hmeasure_stream", *map(str, args), "--no-progress"],
        capture_output=True, text=True, cwd=cwd, check=False)
    return completed.returncode, completed.stdout, completed.stderr


def drifting_stream(seed=0, n=240):
    """Good, then bad (labels unrelated to scores), then good again."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 2.0 * y, 2)
    bad = slice(n // 3, 2 * n // 3)
    s[bad] = np.round(rng.normal(size=n // 3), 2)
    return y, s


def expected_lines(values, rows, metric, operator, limit, text):
    """The crossings, found by walking the values one by one."""
    lines, active = [], False
    for row, value in zip(rows, values, strict=True):
        if np.isnan(value):
            continue
        holds = value < limit if operator == "<" else value > limit
        if holds != active:
            event = "alert" if holds else "alert cleared"
            lines.append(f"hmeasure-stream: {event}: {text} at row {int(row)} "
                         f"({metric}={float(value)!r})")
            active = holds
    return lines


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("every", [1, 7])
def test_alert_lines_at_each_crossing_and_exit_codes(tmp_path, every):
    y, s = drifting_stream()
    (tmp_path / "in.csv").write_text(csv_text(y, s))
    window = 40
    args = ["in.csv", "--window", window, "--every", every, "--metrics", "auc,ks",
            "--alert", "auc<0.8", "--alert", "ks > 0.5"]
    code, out, err = run(args, tmp_path)
    assert code == 0, err
    rows, table = read_table(out)
    aucs = window_aucs(y, s, window)[rows]
    np.testing.assert_array_equal(table["auc"], aucs)
    kss = [hmeasure_report(y[max(0, r + 1 - window):r + 1], s[max(0, r + 1 - window):r + 1])["KS"]
           if len(set(y[max(0, r + 1 - window):r + 1].tolist())) == 2 else np.nan for r in rows]
    np.testing.assert_allclose(table["ks"], kss, rtol=1e-12)
    auc_lines = expected_lines(table["auc"], rows, "auc", "<", 0.8, "auc<0.8")
    ks_lines = expected_lines(table["ks"], rows, "ks", ">", 0.5, "ks>0.5")
    alert_lines = [line for line in err.splitlines() if ": alert" in line]
    assert sorted(alert_lines) == sorted(auc_lines + ks_lines)
    # The drift makes the AUC fall below 0.8 and recover.
    assert any(": alert: auc<0.8" in line for line in auc_lines)
    assert any("alert cleared: auc<0.8" in line for line in auc_lines)
    # Lines of one alert come in row order.
    assert [line for line in alert_lines if "auc<0.8" in line] == auc_lines
    code, _, err_fail = run([*args, "--fail-on-alert"], tmp_path)
    assert code == 3
    assert [line for line in err_fail.splitlines() if ": alert" in line] == alert_lines


def test_no_crossing_exits_0_with_fail_on_alert(tmp_path):
    y, s = drifting_stream()
    (tmp_path / "in.csv").write_text(csv_text(y, s))
    code, _, err = run(["in.csv", "--window", 40, "--alert", "auc<0.01", "--alert", "auc>1.5",
                        "--fail-on-alert", "--out", "out.csv"], tmp_path)
    assert code == 0, err
    assert ": alert" not in err
    assert (tmp_path / "out.csv").exists()


@pytest.mark.parametrize(("alert", "message"), [
    ("gini<0.8", "unknown metric 'gini'"),
    ("auc<=0.8", "bad alert"),
    ("auc 0.8", "bad alert"),
    ("auc<high", "not a finite number"),
    ("auc<nan", "not a finite number"),
    ("<0.8", "bad alert"),
    ("h<0.5", "not in --metrics"),
])
def test_bad_alert_is_one_line_exit_2(tmp_path, alert, message):
    y, s = drifting_stream(n=30)
    (tmp_path / "in.csv").write_text(csv_text(y, s))
    (tmp_path / "out.csv").write_text("precious\n")
    code, out, err = run(["in.csv", "--alert", alert, "--out", "out.csv"], tmp_path)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert "Traceback" not in err
    assert (tmp_path / "out.csv").read_text() == "precious\n"


def test_report_metrics_refuse_approximate_or_fixed_priors(tmp_path):
    y, s = drifting_stream(n=30)
    (tmp_path / "in.csv").write_text(csv_text(y, s))
    for extra in (["--relative-error", "0.1"], ["--priors", "0.5,0.5"], ["--severity-ratio", "prior"]):
        code, _, err = run(["in.csv", "--metrics", "auc,mer", *extra], tmp_path)
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "exact hull" in err


def test_threshold_metrics_and_an_alert_on_one(tmp_path):
    y, s = drifting_stream(n=90)
    (tmp_path / "in.csv").write_text(csv_text(y, s))
    code, out, err = run(["in.csv", "--window", 30, "--metrics", "auc,er,f", "--threshold", 1.0,
                          "--alert", "er>0.3"], tmp_path)
    assert code == 0, err
    rows, table = read_table(out)
    for row, er, f_score in zip(rows, table["er"], table["f"], strict=True):
        part = slice(max(0, row + 1 - 30), row + 1)
        if len(set(y[part].tolist())) < 2:
            assert np.isnan(er) and np.isnan(f_score)
            continue
        predicted = s[part] >= 1.0  # class 1 at or above the threshold
        errors = np.sum(predicted != (y[part] == 1))
        assert er == errors / len(y[part])
        tp, fp = np.sum(predicted & (y[part] == 1)), np.sum(predicted & (y[part] == 0))
        fn = np.sum(~predicted & (y[part] == 1))
        expected_f = 2 * tp / (2 * tp + fp + fn)
        assert f_score == pytest.approx(expected_f, rel=1e-12) or (np.isnan(f_score) and tp + fp == 0)
    assert expected_lines(table["er"], rows, "er", ">", 0.3, "er>0.3") == [
        line for line in err.splitlines() if ": alert" in line]
    code, _, err = run(["in.csv", "--metrics", "er", "--threshold", "high"], tmp_path)
    assert code == 2 and "--threshold" in err and len(err.strip().splitlines()) == 1
