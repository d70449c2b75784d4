"""The command line on a stream whose labels arrive late, with decay (--delayed
--half-life): every written row against a weighted recomputation by counting pairs."""

import numpy as np
from cli_helpers import run_cli
from test_delayed_cli import _delayed_stream


def _weighted_auc(parts):
    """sum of w1 w0 over (class 1, class 0) pairs above (half if tied) over the product of
    the class weights; nan without weight in a class.  O(n^2)."""
    pos = [(s, w) for y, s, w in parts if y == 1 and w > 0]
    neg = [(s, w) for y, s, w in parts if y == 0 and w > 0]
    total_pos, total_neg = sum(w for _, w in pos), sum(w for _, w in neg)
    if not (total_pos > 0 and total_neg > 0):
        return float("nan")
    pairs = sum(wp * wn * (1.0 if sp > sn else 0.5 if sp == sn else 0.0)
                for sp, wp in pos for sn, wn in neg)
    return pairs / (total_pos * total_neg)


def test_every_row_equals_the_weighted_recomputation(tmp_path, capsys):
    half_life = 4.0
    text, rows = _delayed_stream(70, seed=8)
    path = tmp_path / "stream.csv"
    path.write_text(text)
    code, out, err = run_cli([path, "--delayed", "--id-col", "id", "--prob-col", "prob",
                              "--window", "all", "--half-life", half_life], capsys)
    assert code == 0, err
    body = [line.split(",") for line in out.strip().splitlines()[1:]]
    assert len(body) == len(rows)
    numbers, scores, probs, labelled = {}, {}, {}, {}
    for (key, label, score, prob), fields in zip(rows, body, strict=True):
        if label == "":
            numbers[key] = len(numbers)
            scores[key], probs[key] = float(score), float(prob)
        else:
            labelled[key] = int(label)
        newest = len(numbers) - 1
        weight = {k: 2.0 ** (-(newest - n) / half_life) for k, n in numbers.items()}
        auc = _weighted_auc([(labelled[k], scores[k], weight[k]) for k in labelled])
        expected = _weighted_auc([part for k in numbers for part in (
            [(labelled[k], scores[k], weight[k])] if k in labelled
            else [(1, scores[k], probs[k] * weight[k]),
                  (0, scores[k], (1 - probs[k]) * weight[k])])])
        written = [float(value) for value in fields[2:]]
        np.testing.assert_allclose(written[:2], [auc, expected], rtol=1e-12, atol=1e-15)
        assert written[2] == len(numbers) - len(labelled)
