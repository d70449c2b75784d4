"""--pos-label: labels other than 0/1 in CSV, .npz and parquet, in chunks and on stdin.

Every value is checked against the AUC counted pair by pair in exact
arithmetic on the window's rows, with the class of each row decided here
from the labels as written (class 1: the row's label is the --pos-label).
"""

import subprocess
import sys
import warnings

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import PRECIOUS, read_table, run_cli, window_aucs

from hmeasure_stream import InvertedScoresWarning, auc

WINDOW = 9


@pytest.fixture
def stream(rng):
    n = 80
    y = rng.integers(0, 2, n)
    y[:3] = (0, 0, 1)  # the first rows: "ham" is read first (class 0 learned before class 1)
    s = np.round(rng.normal(size=n) + 0.9 * y, 1)  # rounded: ties
    return y, s


def words_csv(words, s, header="label,score"):
    return header + "\n" + "".join(f"{w},{float(b)!r}\n" for w, b in zip(words, s, strict=True))


def spam_ham(y):
    return np.where(y == 1, "spam", "ham")


def check_auc_column(text, y, s, window=WINDOW):
    rows, values = read_table(text)
    np.testing.assert_array_equal(rows, np.arange(len(y)))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, window), rtol=1e-14, atol=0)
    return values


@pytest.mark.parametrize("chunk_size", [1, 7, 65536])
def test_csv_spam_ham_equals_pair_counting_per_window(tmp_path, capsys, stream, chunk_size):
    y, s = stream
    path = tmp_path / "mail.csv"
    path.write_text(words_csv(spam_ham(y), s))
    code, out, err = run_cli([path, "--pos-label", "spam", "--window", WINDOW,
                              "--chunk-size", chunk_size, "--no-progress"], capsys)
    assert code == 0, err
    values = check_auc_column(out, y, s)
    # The last full window also equals the package's from-scratch auc with pos_label.
    last = slice(len(y) - WINDOW, len(y))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InvertedScoresWarning)
        expected = auc(spam_ham(y)[last], s[last], pos_label="spam")
    assert values["auc"][-1] == pytest.approx(expected, abs=1e-15)
    assert f"{len(y)} rows ({int(y.sum())} of class 1)" in err


def test_csv_class_one_read_first_and_spaces(tmp_path, capsys, stream):
    y, s = stream
    y = y.copy()
    y[0] = 1  # "spam" first: the class 0 label is learned later
    words = np.where(y == 1, " spam", "ham ")  # surrounding spaces are ignored
    path = tmp_path / "mail.csv"
    path.write_text(words_csv(words, s))
    code, out, err = run_cli([path, "--pos-label", "spam", "--window", WINDOW,
                              "--chunk-size", 5, "--no-progress"], capsys)
    assert code == 0, err
    check_auc_column(out, y, s)


def test_csv_numeric_labels_with_pos_label(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "numbers.csv"
    # 0/1 written as 0/1.0: numbers compare by value.
    path.write_text(words_csv(np.where(y == 1, "1.0", "0"), s))
    code, out, err = run_cli([path, "--pos-label", "1", "--window", WINDOW, "--no-progress"],
                             capsys)
    assert code == 0, err
    check_auc_column(out, y, s)
    # --pos-label 0: the label 0 is class 1.
    code, out, err = run_cli([path, "--pos-label", "0", "--window", WINDOW, "--no-progress"],
                             capsys)
    assert code == 0, err
    check_auc_column(out, 1 - y, s)
    # Labels 3 and 7.
    path.write_text(words_csv(np.where(y == 1, "7", "3"), s))
    code, out, err = run_cli([path, "--pos-label", "7", "--window", WINDOW, "--no-progress"],
                             capsys)
    assert code == 0, err
    check_auc_column(out, y, s)


@pytest.mark.parametrize("chunk_size", [4, 65536])
def test_third_label_is_one_line_naming_the_line(tmp_path, capsys, stream, chunk_size):
    y, s = stream
    words = spam_ham(y).astype(object)
    words[40] = "eggs"  # data row 40: line 42 (the header is line 1)
    path = tmp_path / "mail.csv"
    path.write_text(words_csv(words, s))
    out_file = tmp_path / "metrics.csv"
    out_file.write_text(PRECIOUS)
    code, _, err = run_cli([path, "--pos-label", "spam", "--window", WINDOW, "--out",
                              out_file, "--chunk-size", chunk_size, "--no-progress"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{path}:42: a third label 'eggs'" in err
    assert "'spam' is class 1 and 'ham'" in err
    assert out_file.read_text() == PRECIOUS
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mail.csv", "metrics.csv"]


def test_pos_label_absent_is_named(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "mail.csv"
    path.write_text(words_csv(spam_ham(y), s))
    code, _, err = run_cli([path, "--pos-label", "Spam", "--no-progress"], capsys)
    assert code == 2
    assert err.count("\n") == 1
    # Row 2 (line 4) is the first "spam": a second other label while "Spam" was never seen.
    assert f"{path}:4: label 'spam': no label so far is --pos-label 'Spam'" in err


def test_without_pos_label_a_word_label_suggests_it(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "mail.csv"
    path.write_text(words_csv(np.where(y == 1, "yes", "no"), s))
    code, _, err = run_cli([path, "--no-progress"], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert f"{path}:2: label 'no' is not 0/1" in err and "--pos-label" in err
    code, _, err = run_cli([path, "--pos-label", "", "--no-progress"], capsys)
    assert code == 2 and "--pos-label needs a label" in err
    # --pos-label describes FILE.
    code, _, err = run_cli(["--pos-label", "yes"], capsys)
    assert code == 2 and "--pos-label describes FILE" in err


def test_npz_string_and_numeric_labels(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "mail.npz"
    np.savez(path, label=spam_ham(y), score=s)
    code, out, err = run_cli([path, "--pos-label", "spam", "--window", WINDOW,
                              "--chunk-size", 6, "--no-progress"], capsys)
    assert code == 0, err
    check_auc_column(out, y, s)
    # Without --pos-label: one line suggesting it.
    code, _, err = run_cli([path, "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--pos-label" in err
    # Integer labels 2/5: VALUE converted to the column's type ("5" and "5.0" are 5).
    np.savez(path, label=np.where(y == 1, 5, 2).astype(np.int32), score=s)
    for value in ("5", "5.0"):
        code, out, err = run_cli([path, "--pos-label", value, "--window", WINDOW,
                                  "--no-progress"], capsys)
        assert code == 0, err
        check_auc_column(out, y, s)
    code, _, err = run_cli([path, "--pos-label", "spam", "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--pos-label 'spam' is not a value of array 'label'" in err
    # Booleans: --pos-label false makes False class 1.
    np.savez(path, label=y.astype(bool), score=s)
    code, out, err = run_cli([path, "--pos-label", "false", "--window", WINDOW,
                              "--no-progress"], capsys)
    assert code == 0, err
    check_auc_column(out, 1 - y, s)
    # A third label in an array: its position.
    labels = spam_ham(y).astype("<U4")
    labels[33] = "eggs"
    np.savez(path, label=labels, score=s)
    code, _, err = run_cli([path, "--pos-label", "spam", "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert f"{path}: array 'label' at position 33: a third label 'eggs'" in err


def test_parquet_string_labels(tmp_path, capsys, stream):
    y, s = stream
    path = tmp_path / "mail.parquet"
    parquet.write_table(pyarrow.table({"label": spam_ham(y).tolist(), "score": s}), path)
    code, out, err = run_cli([path, "--pos-label", "spam", "--window", WINDOW,
                              "--chunk-size", 11, "--no-progress"], capsys)
    assert code == 0, err
    check_auc_column(out, y, s)
    code, _, err = run_cli([path, "--no-progress"], capsys)
    assert code == 2 and err.count("\n") == 1 and "--pos-label" in err


def test_stdin_in_chunks_keeps_the_class_zero_label(stream):
    y, s = stream
    done = subprocess.run(
        [sys.executable, "-m", "hmeasure_stream", "-", "--pos-label", "spam", "--window",
         str(WINDOW), "--chunk-size", "3", "--no-progress"],
        input=words_csv(spam_ham(y), s), capture_output=True, text=True, timeout=120,
        check=False)
    assert done.returncode == 0, done.stderr
    check_auc_column(done.stdout, y, s)
    # A third label in a later chunk is refused against the label learned in the first.
    words = spam_ham(y).astype(object)
    words[70] = "HAM"
    done = subprocess.run(
        [sys.executable, "-m", "hmeasure_stream", "-", "--pos-label", "spam", "--chunk-size",
         "3", "--no-progress"],
        input=words_csv(words, s), capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert "<stdin>:72: a third label 'HAM'" in done.stderr
