"""Labels -1/1 in CSV and .npz: read as 0/1, as by every function and structure.

Every value is checked against the AUC counted pair by pair in exact
arithmetic on the window's rows (class 1: the rows labelled 1).
"""

import numpy as np
import pytest
from cli_helpers import read_table, run_cli, window_aucs

WINDOW = 9


@pytest.fixture
def stream(rng):
    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    s = np.round(rng.normal(size=n) + 0.9 * y, 1)  # rounded: ties
    return y, s


@pytest.mark.parametrize("written", ["-1", "-1.0", " -1 "])
def test_csv_minus_one_is_class_0(tmp_path, capsys, stream, written):
    y, s = stream
    path = tmp_path / "scores.csv"
    path.write_text("label,score\n" + "".join(
        f"{'1' if label else written},{float(score)!r}\n" for label, score in zip(y, s, strict=True)))
    code, out, err = run_cli([path, "--window", WINDOW, "--chunk-size", 7, "--no-progress"],
                             capsys)
    assert code == 0, err
    rows, values = read_table(out)
    np.testing.assert_array_equal(rows, np.arange(len(y)))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-14, atol=0)


def test_npz_minus_one_is_class_0(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "scores.npz"
    np.savez(path, label=np.where(y == 1, 1, -1).astype(np.int8), score=s)
    code, out, err = run_cli([path, "--window", WINDOW, "--no-progress"], capsys)
    assert code == 0, err
    _, values = read_table(out)
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-14, atol=0)


def test_npz_other_label_is_refused(tmp_path, capsys):
    path = tmp_path / "scores.npz"
    np.savez(path, label=np.array([1, -1, -2]), score=[0.1, 0.2, 0.3])
    code, out, err = run_cli([path, "--no-progress"], capsys)
    assert (code, out) == (2, "")
    assert err.endswith("array 'label' at position 2: label -2 is not 0/1 (or -1/1)\n")
