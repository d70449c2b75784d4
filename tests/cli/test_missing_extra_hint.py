"""The command line without its extra: the hint is a command that works from a clone."""

import sys

from cli_helpers import csv_text, run_cli


def test_plot_without_matplotlib_names_the_requirement(tmp_path, capsys, monkeypatch):
    # As on a machine without the cli extra: one line, exit 2, the extra's requirement
    # (not the package's extra, which is on no index), and no plot file.
    for name in list(sys.modules):
        if name.partition(".")[0] == "matplotlib":
            monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    path = tmp_path / "rows.csv"
    path.write_text(csv_text([0, 1, 0, 1], [0.1, 0.8, 0.4, 0.3]))
    code, out, err = run_cli([path, "--plot", tmp_path / "p.png"], capsys)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.rstrip().endswith("needs matplotlib, which is not installed: "
                                 "pip install 'matplotlib>=3.7'")
    assert not (tmp_path / "p.png").exists()
