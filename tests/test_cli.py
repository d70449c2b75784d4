import io
import subprocess
import sys

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from hmeasure_stream import __main__ as cli
from hmeasure_stream import h_measure
from hmeasure_stream._demo import load_default_stream


def test_default_stream_is_real_and_nontrivial():
    y, s = load_default_stream()
    assert y.shape == s.shape == (1797,)
    assert set(np.unique(y)) == {0, 1}
    assert 0.6 < roc_auc_score(y, s) < 0.95


def test_demo_prints_the_metrics_of_the_default_stream(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    y, s = load_default_stream()
    assert f"AUC         {roc_auc_score(y, s):.6f}" in out
    assert f"H           {h_measure(y, s):.6f}" in out
    last = y[-300:], s[-300:]
    assert f"{roc_auc_score(*last):8.4f}  {h_measure(*last):8.4f}" in out


def test_demo_refuses_a_bad_window():
    with pytest.raises(SystemExit) as excinfo:
        cli.main(["--window", "1"])
    assert excinfo.value.code == 2


def test_module_entry_point_runs():
    result = subprocess.run(
        [sys.executable, "-m", "hmeasure_stream", "--window", "500"],
        capture_output=True, text=True, check=True, timeout=300,
    )
    assert "Sliding window of the last 500 points" in result.stdout


def test_demo_writes_to_the_given_stream():
    from hmeasure_stream._demo import run_demo

    buffer = io.StringIO()
    run_demo(window=100, out=buffer)
    assert "last 100 points" in buffer.getvalue()
