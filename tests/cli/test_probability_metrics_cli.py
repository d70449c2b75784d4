"""The metrics of probabilities (Brier, log loss, ECE, MCE, expected AUC) on the command line."""

import pytest
from cli_helpers import probability_stream, read_table, run_cli, written_rows
from sklearn.metrics import brier_score_loss, log_loss

from hmeasure_stream import calibration_error, expected_auc


def test_each_row_equals_the_from_scratch_values(tmp_path, capsys):
    path, y, p = probability_stream(tmp_path, 120, 4)
    window = 40
    code, out, err = run_cli([path, "--window", window, "--every", 7,
                              "--metrics", "brier,log_loss,ece,mce,expected_auc"], capsys)
    assert code == 0, err
    rows, values = read_table(out)
    assert rows.tolist() == written_rows(120, 7).tolist()
    for k, row in enumerate(rows):
        part = slice(max(0, row + 1 - window), row + 1)
        assert values["brier"][k] == pytest.approx(brier_score_loss(y[part], p[part]), rel=1e-12)
        assert values["log_loss"][k] == pytest.approx(log_loss(y[part], p[part], labels=[0, 1]),
                                                      rel=1e-12)
        assert values["ece"][k] == pytest.approx(calibration_error(y[part], p[part]), abs=1e-12)
        assert values["mce"][k] == pytest.approx(
            calibration_error(y[part], p[part], norm="max"), abs=1e-12)
        assert values["expected_auc"][k] == pytest.approx(expected_auc(p[part]), rel=1e-12)


def test_a_score_that_is_no_probability_names_its_line(tmp_path, capsys):
    path = tmp_path / "stream.csv"
    path.write_text("label,score\n1,0.5\n0,0.25\n1,1.5\n")
    out_path = tmp_path / "out.csv"
    out_path.write_text("precious\n")
    code, _, err = run_cli([path, "--metrics", "auc,brier", "--out", out_path], capsys)
    assert code == 2
    assert err.strip() == (f"hmeasure-stream: error: {path}:4: score 1.5 is not a probability "
                           "in [0, 1], which --metrics brier reads the scores as")
    assert out_path.read_text() == "precious\n"
