import io
import subprocess
import sys

import numpy as np
import pytest
from cli_helpers import written_rows
from sklearn.metrics import roc_auc_score

from hmeasure_stream import h_measure, sliding_window
from hmeasure_stream._demo import run_demo
from hmeasure_stream.cli import main
from hmeasure_stream.datasets import load_default_stream


def write_csv(path, y, s, extra_header="", label="label", score="score"):
    with open(path, "w") as handle:
        if extra_header:
            handle.write(extra_header)
        handle.write(f"id,{label},{score}\n")
        for i, (a, b) in enumerate(zip(y, s, strict=True)):
            handle.write(f"{i},{int(a)},{float(b)!r}\n")


def read_output(path):
    table = np.genfromtxt(path, delimiter=",", names=True)
    return table


@pytest.fixture
def stream(rng):
    n = 2000
    y = rng.integers(0, 2, n)
    s = np.round(rng.normal(size=n) + 0.8 * y, 2)
    return y, s


@pytest.mark.parametrize("chunk_size", ["7", "256", "100000"])
@pytest.mark.parametrize("window", ["50", "all"])
def test_monitor_equals_sliding_window_across_chunks(tmp_path, stream, chunk_size, window):
    y, s = stream
    source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
    write_csv(source, y, s, extra_header="# a comment line\n")
    code = main([str(source), "--window", window, "--out", str(out),
                 "--chunk-size", chunk_size, "--no-progress"], stdout=io.StringIO())
    assert code == 0
    table = read_output(out)
    expected = sliding_window(y, s, None if window == "all" else int(window))["auc"]
    np.testing.assert_array_equal(table["row"], np.arange(len(y)))
    np.testing.assert_array_equal(table["auc"], expected)


@pytest.mark.parametrize("chunk_size", ["7", "300", "100000"])
@pytest.mark.parametrize(("window", "every"), [("50", "3"), ("50", "120"), ("400", "61"),
                                                ("1", "2")])
def test_monitor_every_k_rows_counts_the_pairs_of_each_written_window(
        tmp_path, stream, chunk_size, window, every):
    # The AUC alone, written every K rows: only those windows are computed, from the
    # window's last rows carried across chunks; the summary reads the last window.
    y, s = stream
    source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
    write_csv(source, y, s)
    summary = io.StringIO()
    code = main([str(source), "--window", window, "--every", every, "--out", str(out),
                 "--chunk-size", chunk_size, "--no-progress"], stdout=summary)
    assert code == 0
    table = read_output(out)
    rows = written_rows(len(y), int(every))
    np.testing.assert_array_equal(table["row"], rows)
    for row, value in zip(rows, np.atleast_1d(table["auc"]), strict=True):
        part = slice(max(0, row + 1 - int(window)), row + 1)
        pos, neg = s[part][y[part] == 1], s[part][y[part] == 0]
        pairs = (2 * (pos[:, None] > neg).sum() + (pos[:, None] == neg).sum())
        expected = pairs / (2 * pos.size * neg.size) if pos.size and neg.size else np.nan
        np.testing.assert_equal(value, expected)
    last = slice(len(y) - int(window), len(y))
    last_auc = roc_auc_score(y[last], s[last]) if len(set(y[last])) == 2 else np.nan
    assert summary.getvalue().strip().endswith(
        "last: AUC nan" if np.isnan(last_auc) else f"last: AUC {last_auc:.6f}")


def test_monitor_h_column_and_every(tmp_path, stream):
    y, s = stream
    source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
    write_csv(source, y, s, label="truth", score="p")
    code = main([str(source), "--window", "300", "--metrics", "auc,h", "--every", "97",
                 "--label-col", "truth", "--score-col", "p", "--severity-ratio", "0.5",
                 "--out", str(out), "--chunk-size", "128"], stdout=io.StringIO())
    assert code == 0
    table = read_output(out)
    rows = written_rows(len(y), 97)
    np.testing.assert_array_equal(table["row"], rows)
    for row, auc_value, h_value in zip(table["row"], table["auc"], table["h"], strict=True):
        part = slice(max(0, int(row) - 299), int(row) + 1)
        assert auc_value == pytest.approx(roc_auc_score(y[part], s[part]), rel=1e-13)
        assert h_value == pytest.approx(h_measure(y[part], s[part], severity_ratio=0.5),
                                        rel=1e-12)


@pytest.mark.parametrize("options", [["--severity-ratio", "prior"], ["--priors", "0.7,0.3"],
                                     ["--alpha", "0.8", "--beta", "3"]])
def test_monitor_h_with_every_cost_option(tmp_path, stream, options):
    y, s = stream
    source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
    write_csv(source, y, s)
    assert main([str(source), "--window", "200", "--metrics", "h", "--every", "150",
                 "--out", str(out), "--chunk-size", "300", *options], stdout=io.StringIO()) == 0
    table = read_output(out)
    kwargs = {"--severity-ratio": {"severity_ratio": "prior"},
              "--priors": {"priors": (0.7, 0.3)},
              "--alpha": {"alpha": 0.8, "beta": 3.0}}[options[0]]
    for row, h_value in zip(table["row"], table["h"], strict=True):
        part = slice(max(0, int(row) - 199), int(row) + 1)
        assert h_value == pytest.approx(h_measure(y[part], s[part], **kwargs), rel=1e-11)


@pytest.mark.filterwarnings("ignore::hmeasure_stream.InvertedScoresWarning")
@pytest.mark.parametrize("options", [["--severity-ratio", "prior"], ["--priors", "0.9,0.1"],
                                     ["--priors", "0.3,0.7", "--severity-ratio", "prior"]])
@pytest.mark.parametrize("epsilon", ["0.05", "1"])
def test_monitor_approximate_h_across_chunks(tmp_path, stream, options, epsilon):
    """--relative-error: H from ApproxH, within relative_error (1 - H) of h_measure on every window."""
    y, s = stream
    source, out = tmp_path / "scores.csv", tmp_path / "out.csv"
    write_csv(source, y, s)
    assert main([str(source), "--window", "250", "--metrics", "auc,h", "--relative-error", epsilon,
                 "--out", str(out), "--chunk-size", "333", *options], stdout=io.StringIO()) == 0
    table = read_output(out)
    kwargs = {"priors": tuple(map(float, options[options.index("--priors") + 1].split(",")))
              if "--priors" in options else None,
              "severity_ratio": "prior" if "--severity-ratio" in options else None}
    np.testing.assert_array_equal(table["auc"], sliding_window(y, s, 250)["auc"])
    # The subset depends on the random shape of the hull's trees, so the values
    # are not those of another structure, but every one is within the bound.
    for row in range(len(y)):
        part = slice(max(0, row - 249), row + 1)
        if y[part].min() == y[part].max():
            assert np.isnan(table["h"][row])
            continue
        exact = h_measure(y[part], s[part], **kwargs)
        assert abs(table["h"][row] - exact) <= float(epsilon) * (1 - exact) + 1e-12


def test_monitor_npz_input_and_plot(tmp_path, stream):
    y, s = stream
    source, out, plot = tmp_path / "scores.npz", tmp_path / "out.csv", tmp_path / "plot.png"
    np.savez(source, label=y, score=s)
    assert main([str(source), "--window", "100", "--metrics", "auc,h", "--every", "50",
                 "--out", str(out), "--plot", str(plot)], stdout=io.StringIO()) == 0
    assert plot.stat().st_size > 10_000
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    table = read_output(out)
    np.testing.assert_array_equal(table["auc"], sliding_window(y, s, 100)["auc"][49::50])


def test_monitor_writes_to_stdout_with_summary_on_stderr(tmp_path, stream, capsys):
    y, s = stream
    source = tmp_path / "scores.csv"
    write_csv(source, y[:30], s[:30])
    buffer = io.StringIO()
    assert main([str(source), "--window", "10"], stdout=buffer) == 0
    lines = buffer.getvalue().splitlines()
    assert lines[0] == "row,auc" and len(lines) == 31
    assert "hmeasure-stream: 30 rows" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("content", "args", "message"),
    [
        ("label,score\n1,0.5\n0,abc\n", [], r"scores.csv:3: score 'abc' is not a number"),
        ("label,score\n1,0.5\n2,0.1\n", [], r"scores.csv:3: label '2' is not 0/1"),
        ("label,score\n1,nan\n", [], r"scores.csv:2: score 'nan' is not a finite number"),
        ("label,value\n1,0.5\n", [], r"no column 'score' \(--score-col\); the header has 2 column\(s\): 'label', 'value'"),
        ("label,score\n1\n", [], r"scores.csv:2: expected 2 columns, found 1"),
        ("", [], r"the file is empty"),
        ("label,score\n", [], r"no data rows"),
        ("label,score\n1,0.5\n", ["--metrics", "h", "--severity-ratio", "x"], r"--severity-ratio must be a number or 'prior'"),
        ("label,score\n1,0.5\n", ["--metrics", "h", "--priors", "0.5,0.7"], r"--priors: priors must sum to 1"),
        ("label,score\n1,0.5\n", ["--metrics", "h", "--alpha", "-1"], r"alpha must be a finite number > 0"),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(tmp_path, capsys, content, args, message):
    source = tmp_path / "scores.csv"
    source.write_text(content)
    code = main([str(source), "--out", str(tmp_path / "out.csv"), *args], stdout=io.StringIO())
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("hmeasure-stream: error: ")
    import re

    assert re.search(message, err), err


def test_missing_file_and_bad_options(tmp_path, capsys):
    assert main([str(tmp_path / "missing.csv")], stdout=io.StringIO()) == 2
    assert "no such file" in capsys.readouterr().err
    for bad in (["--window", "0"], ["--metrics", "auc,gini"], ["--every", "x"],
                ["--relative-error", "0"], ["--relative-error", "-1"], ["--relative-error", "nan"], ["--relative-error", "x"]):
        assert main(["file.csv", *bad]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("hmeasure-stream: error: argument ")


def test_default_stream_is_real_and_nontrivial():
    y, s = load_default_stream()
    assert y.shape == s.shape == (1797,)
    assert set(np.unique(y)) == {0, 1}
    assert 0.6 < roc_auc_score(y, s) < 0.95


def test_without_file_runs_on_the_embedded_stream():
    buffer = io.StringIO()
    assert main(["--window", "300"], stdout=buffer) == 0
    out = buffer.getvalue()
    y, s = load_default_stream()
    assert f"AUC         {roc_auc_score(y, s):.6f}" in out
    assert f"H           {h_measure(y, s):.6f}" in out
    last = y[-300:], s[-300:]
    assert f"{roc_auc_score(*last):8.4f}  {h_measure(*last):8.4f}" in out


def test_console_entry_points_run(tmp_path):
    source = tmp_path / "scores.csv"
    write_csv(source, [0, 1, 0, 1], [0.1, 0.9, 0.2, 0.3])
    for command in ([sys.executable, "-m", "hmeasure_stream"],):
        result = subprocess.run([*command, str(source), "--window", "2"],
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        assert result.stdout.splitlines() == [
            "row,auc", "0,nan", "1,1.0", "2,1.0", "3,1.0",
        ]
        bad = subprocess.run([*command, str(tmp_path / "nope.csv")],
                             capture_output=True, text=True, timeout=300)
        assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_demo_writes_to_the_given_stream():
    buffer = io.StringIO()
    run_demo(window=100, out=buffer)
    assert "last 100 points" in buffer.getvalue()
