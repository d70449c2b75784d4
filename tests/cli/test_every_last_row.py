"""``--every K`` writes every K-th row and the stream's last row, whatever the options.

The lines written with ``--every K`` must be, byte for byte, the lines of the same
rows written with every row: the K-th rows and, when the row count is no multiple of
K, the last row (its values are the window's after the last row).  Each case runs
with small chunks, so that the last row falls in a later chunk than the first.
"""

import numpy as np
import pytest
from cli_helpers import run_cli

N = 157  # no multiple of the K below


def stream_file(tmp_path):
    rng = np.random.default_rng(12)
    y = rng.integers(0, 2, N)
    s = np.round(rng.normal(size=N) + y, 2)
    p = np.round(1 / (1 + np.exp(-s)), 3)
    s2 = np.round(s + rng.normal(size=N), 2)
    segment = rng.choice(["north", "south", "east"], N)
    start = np.datetime64("2026-03-01T00:00:00")
    times = start + np.cumsum(rng.integers(1, 120, N)).astype("timedelta64[s]")
    path = tmp_path / "rows.csv"
    lines = ["label,score,prob,score2,segment,time"]
    lines += [f"{a},{b!r},{c!r},{d!r},{e},{t}Z" for a, b, c, d, e, t in
              zip(y.tolist(), s.tolist(), p.tolist(), s2.tolist(), segment.tolist(),
                  times.astype(str).tolist(), strict=True)]
    path.write_text("\n".join(lines) + "\n")
    return path


CASES = {
    "count window": ["--window", "40"],
    "every prefix": ["--window", "all", "--metrics", "auc,h"],
    "min periods": ["--window", "40", "--min-periods", "30", "--metrics", "auc,ap,f"],
    "time window": ["--window", "1h", "--time-col", "time", "--metrics", "auc,h"],
    "half-life": ["--window", "all", "--half-life", "30", "--metrics", "auc,brier",
                  "--score-col", "prob"],
    "segments": ["--window", "25", "--by", "segment", "--metrics", "auc,sens"],
    "two models": ["--window", "40", "--score2-col", "score2",
                   "--metrics", "auc,auc2,auc_diff"],
    "h recomputed": ["--window", "50", "--metrics", "auc,h", "--severity-ratio", "prior"],
}


@pytest.mark.parametrize("every", [1, 5, 10, 200])
@pytest.mark.parametrize("case", sorted(CASES))
def test_every_k_writes_the_k_th_rows_and_the_last(tmp_path, capsys, case, every):
    path = stream_file(tmp_path)
    options = [*CASES[case], "--chunk-size", "16", "--no-progress"]
    code, all_rows, err = run_cli([path, *options], capsys)
    assert code == 0, err
    code, out, err_k = run_cli([path, *options, "--every", every], capsys)
    assert code == 0, err_k
    header, *lines = all_rows.splitlines(keepends=True)
    assert len(lines) == N
    kept = [line for row, line in enumerate(lines) if (row + 1) % every == 0 or row == N - 1]
    assert out == header + "".join(kept)
    # The summary's last values are the last row's, written or not.
    assert err_k == err


@pytest.mark.parametrize("every", [4, 1000])
def test_delayed_labels_every_k_writes_the_last_row(tmp_path, capsys, every):
    # Predictions (empty label) and, a few rows later, their labels: the last row a label.
    rng = np.random.default_rng(5)
    lines = ["id,label,score"]
    pending = []
    for i in range(61):
        lines.append(f"p{i},,{float(np.round(rng.random(), 2))!r}")
        pending.append(i)
        if rng.random() < 0.7:
            key = pending.pop(0)
            lines.append(f"p{key},{int(rng.integers(0, 2))},")
    lines += [f"p{key},{int(rng.integers(0, 2))}," for key in pending]
    path = tmp_path / "late.csv"
    path.write_text("\n".join(lines) + "\n")
    options = [path, "--delayed", "--id-col", "id", "--window", "30", "--chunk-size", "8",
               "--no-progress"]
    code, all_rows, err = run_cli(options, capsys)
    assert code == 0, err
    code, out, err_k = run_cli([*options, "--every", every], capsys)
    assert code == 0, err_k
    header, *written = all_rows.splitlines(keepends=True)
    n = len(lines) - 1
    kept = [line for row, line in enumerate(written) if (row + 1) % every == 0 or row == n - 1]
    assert out == header + "".join(kept) and err_k == err


def test_plot_without_matplotlib_names_the_requirement(tmp_path, capsys, monkeypatch):
    # As on a machine without the cli extra: one line, exit 2, a command that works from a
    # clone (the extra's requirement, not the package's extra, which is on no index).
    import sys

    for name in list(sys.modules):
        if name.partition(".")[0] == "matplotlib":
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    code, out, err = run_cli([stream_file(tmp_path), "--plot", tmp_path / "p.png"], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.rstrip().endswith("needs matplotlib, which is not installed: "
                                 "pip install 'matplotlib>=3.7'")
    assert not (tmp_path / "p.png").exists()
