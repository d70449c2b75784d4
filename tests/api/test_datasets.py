import csv
from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.metrics import roc_auc_score

import hmeasure_stream
from hmeasure_stream import _demo
from hmeasure_stream.datasets import load_default_stream

CSV = Path(hmeasure_stream.__file__).parent / "data" / "default_stream.csv"


def rows_of_the_file():
    with CSV.open(newline="") as handle:
        lines = [line for line in handle if not line.startswith("#")]
    table = list(csv.DictReader(lines))
    return [int(row["label"]) for row in table], [float(row["score"]) for row in table]


def test_load_default_stream_returns_the_file_as_arrays():
    labels, scores = rows_of_the_file()
    y, s = load_default_stream()
    assert y.dtype == np.int8 and s.dtype == np.float64
    assert y.tolist() == labels and s.tolist() == scores
    # The labels are "digit >= 5" of UCI digits as scikit-learn ships them, in order.
    assert labels == (load_digits().target >= 5).astype(int).tolist()
    assert roc_auc_score(labels, scores) > 0.75  # informative: class 1 scores higher


def test_load_default_stream_as_a_frame():
    labels, scores = rows_of_the_file()
    frame = load_default_stream(as_frame=True)
    assert list(frame.columns) == ["label", "score"]
    assert frame["label"].tolist() == labels and frame["score"].tolist() == scores


def test_the_demo_runs_on_the_public_loader():
    assert _demo.load_default_stream is load_default_stream
