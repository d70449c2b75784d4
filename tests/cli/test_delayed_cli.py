"""The command line on a stream whose labels arrive late (--delayed).

Every written row is checked against a recomputation of its window from the
rows read so far: the AUC of the labelled predictions by counting pairs, and
the expected AUC of all predictions by counting the pairs of their parts
(p as class 1 and 1 - p as class 0 at the score; a prediction's two parts
tie with each other).
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from cli_helpers import brute_auc, read_table, run_cli, written_rows
from reference_impl import brute_expected_auc


def _delayed_stream(n, seed, *, window_slack=None):
    """(csv text, rows): n predictions, each labelled after a random delay (or never)."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random(n), 2)  # ties
    probs = np.round(rng.random(n), 3)
    labels = (rng.random(n) < probs).astype(int)
    delays = rng.integers(0, window_slack or 6, size=n)
    never = rng.random(n) < 0.2
    events = []  # (position, kind, id)
    for i in range(n):
        events.append((i, 0, i))
        if not never[i]:
            events.append((i + int(delays[i]) + 0.5, 1, i))
    events.sort()
    rows = []
    for _, kind, key in events:
        if kind == 0:
            rows.append((f"id{key}", "", repr(float(scores[key])), repr(float(probs[key]))))
        else:
            rows.append((f"id{key}", str(labels[key]), "", ""))
    text = "id,label,score,prob\n" + "".join(",".join(row) + "\n" for row in rows)
    return text, rows


def _replay(rows, window, use_probs):
    """The expected output columns, row by row, of --delayed --window window."""
    order, scores, probs, labelled = [], {}, {}, {}
    auc, expected, pending = [], [], []
    for key, label, score, prob in rows:
        if label == "":
            order.append(key)
            scores[key] = Fraction(score)
            probs[key] = Fraction(prob) if use_probs else Fraction(score)
            if window is not None and len(order) > window:
                gone = order.pop(0)
                del scores[gone], probs[gone]
                labelled.pop(gone, None)
        else:
            labelled[key] = int(label)
        held = [k for k in order if k in labelled]
        auc.append(brute_auc([labelled[k] for k in held], [scores[k] for k in held]))
        value = brute_expected_auc(
            [Fraction(labelled[k]) if k in labelled else probs[k] for k in scores],
            list(scores.values()))
        expected.append(math.nan if value is None else float(value))
        pending.append(len(order) - len(held))
    return np.array(auc), np.array(expected), np.array(pending, dtype=float)


@pytest.mark.parametrize(("window", "use_probs"), [(None, True), (25, True), (25, False)])
def test_every_row_equals_the_recomputed_window(tmp_path, capsys, window, use_probs):
    text, rows = _delayed_stream(80, seed=3)
    path = tmp_path / "stream.csv"
    path.write_text(text)
    args = [path, "--delayed", "--id-col", "id", "--window", window or "all"]
    if use_probs:
        args += ["--prob-col", "prob"]
    code, out, err = run_cli(args, capsys)
    assert code == 0, err
    assert out.splitlines()[0] == "row,id,auc,expected_auc,n_pending"
    body = [line.split(",") for line in out.strip().splitlines()[1:]]
    assert [fields[1] for fields in body] == [row[0] for row in rows]
    written_rows, _ = read_table("\n".join(
        [",".join(["row", "auc", "expected_auc", "n_pending"])]
        + [",".join([fields[0], *fields[2:]]) for fields in body]))
    assert written_rows.tolist() == list(range(len(rows)))
    auc, expected, pending = _replay(rows, window, use_probs)
    values = np.array([[float(v) for v in fields[2:]] for fields in body])
    np.testing.assert_array_equal(values[:, 0], auc)
    np.testing.assert_allclose(values[:, 1], expected, rtol=1e-12, atol=0)
    assert np.isnan(values[:, 1]).tolist() == np.isnan(expected).tolist()
    np.testing.assert_array_equal(values[:, 2], pending)


def test_every_k_rows_and_an_alert_on_the_expected_auc(tmp_path, capsys):
    text, rows = _delayed_stream(60, seed=5)
    path = tmp_path / "stream.csv"
    path.write_text(text)
    code, out, err = run_cli([path, "--delayed", "--id-col", "id", "--prob-col", "prob",
                              "--every", 7, "--alert", "expected_auc<0.99"], capsys)
    assert code == 0, err
    written, values = read_table("\n".join(
        line.split(",", 2)[0] + "," + line.split(",", 2)[2] for line in out.strip().splitlines()))
    assert written.tolist() == written_rows(len(rows), 7).tolist()
    _, expected, _ = _replay(rows, 1000, True)
    np.testing.assert_allclose(values["expected_auc"], expected[written], rtol=1e-12)
    assert "alert: expected_auc<0.99" in err


@pytest.mark.parametrize(("text", "args", "message"), [
    ("id,label,score\na,,0.5\nb,1,\n", ["--unmatched-labels", "raise"],
     "stream.csv:3: label: no prediction with key 'b'"),
    ("id,label,score\na,,0.5\na,,0.7\n", [], "stream.csv:3"),
    ("id,label,score\na,,0.5\na,1,\na,0,\n", [], "stream.csv:4"),
    ("id,label,score\na,,zero\n", [], "stream.csv:2: score 'zero' is not a number"),
    ("id,label,score\na,,0.5\na,yes,\n", [], "stream.csv:3: label 'yes'"),
    ("id,label,score,p\na,,0.5,1.5\n", ["--prob-col", "p"], "stream.csv:2"),
])
def test_a_bad_row_is_one_line_naming_it(tmp_path, capsys, text, args, message):
    path = tmp_path / "stream.csv"
    path.write_text(text)
    out_path = tmp_path / "out.csv"
    out_path.write_text("precious\n")
    code, _, err = run_cli([path, "--delayed", "--id-col", "id", "--out", out_path, *args],
                           capsys)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and message in err, err
    assert out_path.read_text() == "precious\n"


def test_a_label_matching_no_prediction_is_counted_and_the_run_goes_on(tmp_path, capsys):
    """Labels for ids never predicted (b, c) or gone more than a window (a, predicted at
    row 0 of a window of 2): dropped and counted; the realized AUC is that of d and e."""
    path = tmp_path / "stream.csv"
    path.write_text("id,label,score\na,,0.1\nb,1,\nd,,0.2\ne,,0.9\nf,,0.5\ng,,0.5\n"
                    "h,,0.5\na,0,\nc,0,\nh,1,\ng,0,\n")
    code, out, err = run_cli([path, "--delayed", "--id-col", "id", "--window", 2], capsys)
    assert code == 0, err
    assert "; 3 labels matched no prediction (an id never predicted, or gone more than a " \
           "window), ignored" in err
    _, values = read_table("\n".join(line.split(",", 2)[0] + "," + line.split(",", 2)[2]
                                     for line in out.strip().splitlines()))
    # The last window holds g (class 0, 0.5) and h (class 1, 0.5): a tie, AUC 1/2.
    assert values["auc"][-1] == brute_auc([0, 1], [0.5, 0.5]) == 0.5


@pytest.mark.parametrize(("args", "message"), [
    (["--delayed"], "--delayed needs --id-col"),
    (["--id-col", "id", "--prob-col", "p"], "--prob-col goes with --delayed"),
    (["--id-col", "id", "--unmatched-labels", "count"], "--unmatched-labels goes with --delayed"),
    (["--delayed", "--id-col", "id", "--min-periods", "3"], "--min-periods does not go"),
    (["--id-col", "id", "--alert", "n_pending>3"], "which only --delayed writes"),
])
def test_options_that_do_not_fit_are_refused(tmp_path, capsys, args, message):
    path = tmp_path / "stream.csv"
    path.write_text("id,label,score\na,,0.5\na,1,\n")
    code, _, err = run_cli([path, *args], capsys)
    assert code == 2 and message in err, err


def test_an_array_format_is_refused(tmp_path, capsys):
    path = tmp_path / "stream.npz"
    np.savez(path, id=np.arange(3), label=np.array([0, 1, 0]), score=np.array([0.1, 0.2, 0.3]))
    code, _, err = run_cli([path, "--delayed", "--id-col", "id"], capsys)
    assert code == 2 and "--delayed reads a CSV stream" in err, err


def test_a_label_after_its_prediction_left_the_window_is_ignored_and_counted(tmp_path, capsys):
    path = tmp_path / "stream.csv"
    path.write_text("id,label,score\na,,0.9\nb,,0.2\nc,,0.7\na,1,\nb,0,\nc,1,\n")
    code, out, err = run_cli([path, "--delayed", "--id-col", "id", "--window", 2], capsys)
    assert code == 0, err
    assert out.strip().splitlines()[-1] == "5,c,1.0,1.0,0"
    assert "1 labels arrived after their prediction left the window, ignored" in err


def test_delayed_refuses_the_window_metric_expected_auc(tmp_path, capsys):
    path = tmp_path / "stream.csv"
    path.write_text("id,label,score\na,,0.5\na,1,\n")
    code, _, err = run_cli([path, "--delayed", "--id-col", "id", "--metrics", "auc,expected_auc"],
                           capsys)
    assert code == 2 and "leave it out of --metrics" in err, err
