"""Extended-precision (longdouble) scores in an .npz archive: a metric of the scores'
values reads them rounded to float64, as the structures do; an order metric ranks them."""

import numpy as np
import pytest
from cli_helpers import brute_auc, read_table, run_cli
from sklearn.metrics import brier_score_loss

pytestmark = pytest.mark.skipif(np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant,
                                reason="longdouble is float64 on this platform")


def extended_stream(tmp_path):
    rng = np.random.default_rng(11)
    y = rng.integers(0, 2, 60)
    # Sevenths are not exact as float64: their ranks (0..6) are not probabilities.
    s = rng.integers(0, 8, 60).astype(np.longdouble) / np.longdouble(7)
    path = tmp_path / "rows.npz"
    np.savez(path, label=y, score=s)
    return path, y, s


def test_npz_longdouble_scores_with_a_metric_of_their_values_are_rounded(tmp_path, capsys):
    path, y, s = extended_stream(tmp_path)
    code, out, err = run_cli([path, "--metrics", "auc,brier", "--no-progress"], capsys)
    assert code == 0, err
    _, values = read_table(out)
    rounded = s.astype(np.float64)
    expected = [brier_score_loss(y[:k], rounded[:k]) for k in range(1, y.shape[0] + 1)]
    np.testing.assert_allclose(values["brier"], expected, rtol=1e-12)
    np.testing.assert_allclose(values["auc"][-1], brute_auc(y, rounded), rtol=1e-12)


def test_npz_longdouble_scores_for_the_auc_keep_their_order(tmp_path, capsys):
    path, y, s = extended_stream(tmp_path)
    code, out, err = run_cli([path, "--metrics", "auc", "--no-progress"], capsys)
    assert code == 0, err
    _, values = read_table(out)
    np.testing.assert_allclose(values["auc"][-1], brute_auc(y, s), rtol=1e-12)
