"""Text labels stored in every type a user's tools write: the same stream, the same output.

A pandas categorical written to parquet is a dictionary-encoded column;
pandas' string dtypes are (large) strings; pyarrow may write string views.
Each is read with ``--pos-label spam`` as the plain strings are, and as the
labels 0/1 of the same rows.
"""

import numpy as np
import pandas as pd
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import read_table, run_cli, window_aucs

WINDOW = 9
N = 60


@pytest.fixture
def stream():
    rng = np.random.default_rng(14)
    y = rng.integers(0, 2, N)
    s = np.round(rng.random(N) + 0.4 * y, 2)
    words = np.where(y == 1, "spam", "ham")
    return y, s, words


def write(directory, kind, words, s, model):
    """The stream with labels ``words`` stored as ``kind``; its path."""
    path = directory / f"rows-{kind}.parquet"
    if kind == "csv":
        path = directory / "rows.csv"
        path.write_text("label,score,model\n" + "".join(
            f"{w},{b!r},{m}\n" for w, b, m in zip(words, s.tolist(), model, strict=True)))
    elif kind == "npz":
        path = directory / "rows.npz"
        np.savez(path, label=words, score=s, model=np.array(model))
    elif kind.startswith("pandas"):
        dtype = kind.split(":", 1)[1]
        labels = pd.Categorical(words) if dtype == "category" else pd.array(words, dtype=dtype)
        pd.DataFrame({"label": labels, "score": s,
                      "model": pd.Categorical(model)}).to_parquet(path, row_group_size=16)
    else:
        types = {"string": pyarrow.string(), "large_string": pyarrow.large_string(),
                 "string_view": pyarrow.string_view()}
        if kind == "dictionary":
            labels = pyarrow.array(list(words)).dictionary_encode()
        else:
            labels = pyarrow.array(list(words), types[kind])
        parquet.write_table(pyarrow.table({"label": labels, "score": s, "model": model}), path,
                            row_group_size=16)
    return path


KINDS = ["csv", "npz", "string", "large_string", "string_view", "dictionary",
         "pandas:category", "pandas:string[python]", "pandas:string[pyarrow]", "pandas:object"]


@pytest.mark.parametrize("kind", KINDS)
def test_text_labels_of_every_type_read_as_plain_strings(tmp_path, capsys, stream, kind):
    y, s, words = stream
    model = [f"m{k % 3}" for k in range(N)]
    options = ["--window", WINDOW, "--pos-label", "spam", "--chunk-size", 7,
               "--keep-cols", "model", "--no-progress"]
    code, plain, err = run_cli([write(tmp_path, "string", words, s, model), *options], capsys)
    assert code == 0, err
    code, out, err = run_cli([write(tmp_path, kind, words, s, model), *options], capsys)
    assert code == 0, err
    assert out == plain
    lines = out.splitlines()
    assert lines[0] == "row,model,auc"
    assert [line.split(",")[1] for line in lines[1:]] == model
    _, values = read_table("\n".join(line.split(",", 2)[0] + "," + line.split(",", 2)[2]
                                     for line in lines))
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-13)


@pytest.mark.parametrize("kind", ["dictionary", "pandas:category", "string_view",
                                  "large_string"])
def test_text_labels_without_pos_label_are_refused_with_the_hint(tmp_path, capsys, stream,
                                                                 kind):
    _, s, words = stream
    path = write(tmp_path, kind, words, s, ["m"] * N)
    code, out, err = run_cli([path, "--no-progress"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "give the label of class 1 with --pos-label" in err


@pytest.mark.parametrize("pos_label", [None, "1"])
def test_a_categorical_of_integers(tmp_path, capsys, stream, pos_label):
    y, s, _ = stream
    path = tmp_path / "rows.parquet"
    pd.DataFrame({"label": pd.Categorical(y), "score": s}).to_parquet(path)
    options = [] if pos_label is None else ["--pos-label", pos_label]
    code, out, err = run_cli([path, "--window", WINDOW, "--no-progress", *options], capsys)
    assert code == 0, err
    _, values = read_table(out)
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-13)


def test_a_dictionary_of_integers(tmp_path, capsys, stream):
    """Labels 0/1 dictionary-encoded in the arrow table (parquet may store them plain)."""
    y, s, _ = stream
    path = tmp_path / "rows.parquet"
    parquet.write_table(pyarrow.table({"label": pyarrow.array(y).dictionary_encode(),
                                       "score": s}), path, row_group_size=16)
    code, out, err = run_cli([path, "--window", WINDOW, "--chunk-size", 5, "--no-progress"],
                             capsys)
    assert code == 0, err
    _, values = read_table(out)
    np.testing.assert_allclose(values["auc"], window_aucs(y, s, WINDOW), rtol=1e-13)
