"""``--false-alarm-rate R``: alerts on evidence, the lines those of ``AlertMonitor``.

``--alert 'auc<LIMIT' --false-alarm-rate R`` and ``--alert-drop D`` (with
``--reference-rows N`` or ``--reference FILE``) fire and clear at the rows and
with the evidence of :class:`~hmeasure_stream.AlertMonitor` on the same rows
(whose false-alarm rate tools/alert_simulation.py measures, and
tests/api/test_alerts_rate.py checks), whatever the chunks and ``--every``,
from a file and a pipe; each misuse is one line and exit 2.
"""

import subprocess

import numpy as np
import pytest
from cli_helpers import PRECIOUS, refused, run_cli, start

from hmeasure_stream import AlertMonitor, AlertRule

N_ROWS = 12_000


@pytest.fixture(scope="module")
def dropping():
    """A binormal stream at AUC 0.80 for 6000 rows, then at 0.70 (ties: rounded)."""
    rng = np.random.default_rng(45)
    y = rng.integers(0, 2, N_ROWS)
    separation = np.where(np.arange(N_ROWS) < 6000, 1.19, 0.74)
    return y, np.round(y * separation + rng.normal(size=N_ROWS), 3)


def _csv(y, s):
    return "label,score\n" + "".join(f"{a},{b!r}\n" for a, b in zip(y.tolist(), s.tolist(),
                                                                      strict=True))


# (with --out, the summary line goes to standard output: standard error holds the alerts)


def _expected(monitor, y, s, text):
    """The lines of the monitor's events on the stream, as the command line writes them."""
    lines = []
    rate = monitor.rule.false_alarm_rate
    for event in monitor.update(y, s):
        if event.kind == "fired":
            lines.append(f"hmeasure-stream: alert: {text} at row {event.row} "
                         f"(auc={event.estimate!r}, upper bound {event.bound:.6f} < "
                         f"{event.limit:.6f}; false-alarm rate {rate:g} per row)")
        else:
            lines.append(f"hmeasure-stream: alert cleared: {text} at row {event.row} "
                         f"(auc={event.estimate!r}, upper bound {event.bound:.6f} >= "
                         f"{event.limit:.6f})")
    return lines


@pytest.mark.parametrize(("window", "every", "chunk_size"), [
    (500, 1, "1000"), (500, 7, "1"), (1000, 100, "333"), (2000, 1000, "65536")])
def test_the_lines_are_the_alert_monitor_events(tmp_path, capsys, dropping, window, every,
                                               chunk_size):
    y, s = dropping
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s))
    code, _, err = run_cli([path, "--no-progress", "--out", tmp_path / "out.csv", "--window",
                            str(window), "--every", str(every), "--alert", "auc<0.8",
                            "--false-alarm-rate", "1e-4", "--chunk-size", chunk_size], capsys)
    assert code == 0, err
    monitor = AlertMonitor(AlertRule(below=0.8, false_alarm_rate=1e-4), window, every)
    expected = _expected(monitor, y, s, "auc<0.8")
    assert monitor.n_fired >= 1  # the drop at row 6000 is found
    assert err.splitlines() == expected


def test_a_drop_from_the_first_rows_or_a_reference_file(tmp_path, capsys, dropping):
    y, s = dropping
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s))
    options = ["--no-progress", "--window", "1000", "--every", "50", "--alert-drop", "0.03",
               "--false-alarm-rate", "1e-5", "--out", tmp_path / "out.csv"]
    code, _, err = run_cli([path, *options, "--reference-rows", "3000"], capsys)
    assert code == 0, err
    rule = AlertRule(drop=0.03, false_alarm_rate=1e-5, reference_rows=3000)
    expected = _expected(AlertMonitor(rule, 1000, 50), y, s,
                         "auc dropped by more than 0.03 from the first 3000 rows")
    assert expected and err.splitlines() == expected
    reference = tmp_path / "last_month.csv"
    reference.write_text(_csv(y[:3000], s[:3000]))
    process = start(["-", *options, "--reference", reference], stdin=subprocess.PIPE)
    _, err = process.communicate(_csv(y[3000:], s[3000:]), timeout=300)
    assert process.returncode == 0, err
    rule = AlertRule(drop=0.03, false_alarm_rate=1e-5)
    monitor = AlertMonitor(rule, 1000, 50, reference=(y[:3000], s[:3000]))
    expected = _expected(monitor, y[3000:], s[3000:],
                         f"auc dropped by more than 0.03 from {reference}")
    assert expected and err.splitlines() == expected


def test_a_window_of_time_gives_the_alert_monitor_events(tmp_path, capsys, dropping):
    y, s = dropping
    seconds = np.cumsum(np.random.default_rng(2).integers(0, 5, N_ROWS))  # ties, bursts
    stamps = np.datetime64("2026-12-01T00:00:00", "s") + seconds.astype("timedelta64[s]")
    path = tmp_path / "scores.csv"
    path.write_text("label,score,ts\n" + "".join(
        f"{a},{b!r},{t}Z\n" for a, b, t in zip(y.tolist(), s.tolist(), stamps.astype(str),
                                              strict=True)))
    code, _, err = run_cli([path, "--no-progress", "--time-col", "ts", "--window", "30min",
                            "--every", "20", "--alert", "auc<0.8", "--false-alarm-rate",
                            "1e-4", "--chunk-size", "777", "--out", tmp_path / "out.csv"],
                           capsys)
    assert code == 0, err
    monitor = AlertMonitor(AlertRule(below=0.8, false_alarm_rate=1e-4), "30min", 20)
    events = monitor.update(y, s, times=stamps)
    assert monitor.n_fired >= 1
    lines = err.splitlines()
    assert len(lines) == len(events)
    for line, event in zip(lines, events, strict=True):
        assert f"at row {event.row} (auc={event.estimate!r}, upper bound {event.bound:.6f}" in line


def test_fail_on_alert_counts_the_alerts_on_evidence(tmp_path, capsys, dropping):
    y, s = dropping
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y[:5000], s[:5000]))  # in control: no alarm at this rate
    options = ["--no-progress", "--window", "2000", "--every", "100", "--alert", "auc<0.7",
               "--false-alarm-rate", "1e-6", "--fail-on-alert", "--out", tmp_path / "o.csv"]
    code, _, err = run_cli([path, *options], capsys)
    assert code == 0, err
    path.write_text(_csv(y, s))
    code, _, err = run_cli([path, *[o if o != "auc<0.7" else "auc<0.78" for o in options]],
                           capsys)
    assert code == 3, err


def test_a_reference_of_one_class_is_one_line_and_the_out_file_stays(tmp_path, dropping):
    y, s = dropping
    path = tmp_path / "scores.csv"
    path.write_text(_csv(y, s))
    reference = tmp_path / "reference.csv"
    reference.write_text("label,score\n1,0.3\n1,0.4\n1,0.9\n")
    kept = tmp_path / "out.csv"
    kept.write_text(PRECIOUS)
    process = start([path, "--alert-drop", "0.05", "--reference", reference,
                     "--false-alarm-rate", "1e-4", "--out", kept])
    _, err = process.communicate(timeout=300)
    assert process.returncode == 2
    assert err.startswith(f"hmeasure-stream: error: {reference}: the reference: ")
    assert err.count("\n") == 1
    assert kept.read_text() == PRECIOUS


@pytest.mark.parametrize(("options", "message"), [
    (["--false-alarm-rate", "1e-4"], "--false-alarm-rate needs an alert: --alert 'auc<LIMIT'"),
    (["--false-alarm-rate", "0"], "argument --false-alarm-rate: must be a number from 1e-12"),
    (["--false-alarm-rate", "1e-4", "--alert", "auc>0.8"],
     "--false-alarm-rate applies to --alert 'auc<LIMIT' and --alert-drop; --alert 'auc>0.8'"),
    (["--false-alarm-rate", "1e-4", "--alert", "h<0.5", "--metrics", "auc,h"],
     "--alert 'h<0.5' is not one"),
    (["--false-alarm-rate", "1e-4", "--alert", "auc<0.8", "--window", "all"],
     "--false-alarm-rate needs a window (--window N rows or a duration, without --half-life)"),
    (["--false-alarm-rate", "1e-4", "--alert", "auc<0.8", "--half-life", "100"],
     "--false-alarm-rate needs a window"),
    (["--false-alarm-rate", "1e-4", "--alert", "auc<0.8", "--by", "label"],
     "--false-alarm-rate does not go with --by"),
    (["--false-alarm-rate", "1e-4", "--alert-drop", "0.05"],
     "--alert-drop needs one reference: --reference-rows N"),
    (["--false-alarm-rate", "1e-4", "--alert-drop", "1.5", "--reference-rows", "100"],
     "argument --alert-drop: must be a drop of the AUC in [0, 1)"),
    (["--false-alarm-rate", "1e-4", "--alert-drop", "0.1", "--reference-rows", "3"],
     "--reference-rows must be at least 4"),
    (["--alert-drop", "0.05", "--reference-rows", "100"], "--alert-drop goes with "
                                                           "--false-alarm-rate"),
    (["--false-alarm-rate", "1e-4", "--alert", "auc<0.8", "--reference-rows", "100"],
     "--reference-rows goes with --alert-drop"),
])
def test_misuses_are_one_line_and_exit_2(tmp_path, capsys, options, message):
    path = tmp_path / "scores.csv"
    path.write_text("label,score\n0,0.1\n1,0.9\n0,0.3\n1,0.7\n")
    refused([path, "--no-progress", *options], capsys, message)
