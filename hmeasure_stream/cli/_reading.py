"""Reading a stream of (label, score) rows from CSV, npz or parquet files, in chunks."""

import csv
import math
from pathlib import Path

import numpy as np

_LABELS = {"0": 0, "1": 1, "0.0": 0, "1.0": 1, "false": 0, "true": 1}


class InputError(Exception):
    """A problem with the input or the options, reported in one line (exit code 2)."""


# ----------------------------------------------------------------------------
# Reading


def _parse_label(text, where):
    label = _LABELS.get(text.strip().lower())
    if label is None:
        raise InputError(f"{where}: label {text!r} is not 0/1 (or true/false)")
    return label


def _parse_score(text, where):
    try:
        score = float(text)
    except ValueError:
        raise InputError(f"{where}: score {text!r} is not a number") from None
    if not math.isfinite(score):
        raise InputError(f"{where}: score {text!r} is not a finite number")
    return score


def _csv_chunks(path, label_col, score_col, chunk_size):
    """Yield (labels int8, scores float64) arrays of at most ``chunk_size`` rows."""
    with open(path, newline="") as handle:
        lines = (line for line in handle if not line.lstrip().startswith("#"))
        reader = csv.reader(lines)
        header = next(reader, None)
        if header is None:
            raise InputError(f"{path}: the file is empty")
        header = [name.strip() for name in header]
        for wanted, option in ((label_col, "--label-col"), (score_col, "--score-col")):
            if wanted not in header:
                raise InputError(
                    f"{path}: no column {wanted!r} ({option}); columns are: {', '.join(header)}"
                )
        label_index, score_index = header.index(label_col), header.index(score_col)
        labels, scores = [], []
        for row in reader:
            if not row:
                continue
            # Line numbers count from 1 and include the header (comments excluded).
            where = f"{path}:{reader.line_num}"
            if len(row) <= max(label_index, score_index):
                raise InputError(f"{where}: expected {len(header)} columns, found {len(row)}")
            labels.append(_parse_label(row[label_index], where))
            scores.append(_parse_score(row[score_index], where))
            if len(labels) == chunk_size:
                yield np.array(labels, dtype=np.int8), np.array(scores, dtype=np.float64)
                labels, scores = [], []
        if labels:
            yield np.array(labels, dtype=np.int8), np.array(scores, dtype=np.float64)


def _npz_chunks(path, label_col, score_col, chunk_size):
    with np.load(path) as archive:
        for wanted in (label_col, score_col):
            if wanted not in archive.files:
                raise InputError(
                    f"{path}: no array {wanted!r}; arrays are: {', '.join(archive.files)}"
                )
        labels, scores = archive[label_col], archive[score_col]
    if labels.ndim != 1 or labels.shape != scores.shape:
        raise InputError(f"{path}: {label_col!r} and {score_col!r} must be 1-d of equal length")
    for start in range(0, labels.shape[0], chunk_size):
        part = slice(start, start + chunk_size)
        yield _checked_columns(path, start, labels[part], scores[part])


def _checked_columns(path, start, labels, scores):
    """A chunk of array columns as (labels int8, scores float64), or the first bad row."""
    bad = np.flatnonzero((labels != 0) & (labels != 1))
    if bad.size:
        row = start + int(bad[0])
        raise InputError(f"{path}: row {row}: label {labels[bad[0]]!r} is not 0/1")
    scores = np.asarray(scores, dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        row = start + int(bad[0])
        raise InputError(f"{path}: row {row}: score {scores[bad[0]]!r} is not finite")
    return labels.astype(np.int8), scores


def read_chunks(path, label_col="label", score_col="score", chunk_size=65536):
    """Yield the stream in file order as (labels int8, scores float64) chunks."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{path}: no such file")
    if path.suffix == ".npz":
        return _npz_chunks(path, label_col, score_col, chunk_size)
    if path.suffix == ".parquet":
        return _parquet_chunks(path, label_col, score_col, chunk_size)
    return _csv_chunks(path, label_col, score_col, chunk_size)


def _parquet_chunks(path, label_col, score_col, chunk_size):
    try:
        import pyarrow.parquet as parquet
    except ImportError:
        raise InputError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from None
    reader = parquet.ParquetFile(path)
    start = 0
    for batch in reader.iter_batches(batch_size=chunk_size, columns=[label_col, score_col]):
        labels = batch.column(label_col).to_numpy(zero_copy_only=False)
        scores = batch.column(score_col).to_numpy(zero_copy_only=False)
        yield _checked_columns(path, start, labels, scores)
        start += labels.shape[0]
