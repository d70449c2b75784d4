"""The reader hands out every row once, in order, whatever chunk size its caller asks for.

The monitor changes ``chunk_size`` between chunks to pace its progress bar;
each reader (CSV by pyarrow and by the csv module, compressed, CR line ends,
live input, parquet, npz) is driven here by a caller that sets a new chunk
size, drawn at random, after every chunk, and the rows read are compared with
the rows written.
"""

import argparse
import gzip
import os
import threading

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import brute_auc, read_table, run_cli

from hmeasure_stream.cli._reading import open_source

N = 30_000


def options(chunk_size, extra=()):
    return argparse.Namespace(label_col="label", score_col="score", chunk_size=chunk_size,
                              encoding=None, delimiter=None, decimal_comma=False,
                              extra_columns=[(name, "--keep-cols") for name in extra],
                              pos_label=None, delayed=False)


@pytest.fixture
def table():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, N)
    s = np.round(rng.random(N), 4)
    ids = [f"r{k}" for k in range(N)]
    return y, s, ids


def csv_bytes(y, s, ids, newline="\n", quoted=False):
    rows = [f'{a},{b!r},"{i}"' if quoted else f"{a},{b!r},{i}"
            for a, b, i in zip(y.tolist(), s.tolist(), ids, strict=True)]
    return newline.join(["label,score,id", *rows, ""]).encode()


def read_all(path, sizes, extra=("id",)):
    """Every chunk of ``path``, the caller setting the chunk size to the next of ``sizes``
    after each chunk (as the progress bar's pacing does)."""
    given = options(int(next(sizes)), extra)
    source = open_source(str(path), given)
    chunks = []
    try:
        for chunk in source.chunks():
            chunks.append(chunk)
            given.chunk_size = int(next(sizes))
    finally:
        source.close()
    return chunks


def random_sizes(seed):
    """Chunk sizes from 1 to beyond a pyarrow block's rows, then some huge ones."""
    rng = np.random.default_rng(seed)
    while True:
        yield rng.choice([rng.integers(1, 10), rng.integers(1, 3000),
                          rng.integers(3000, 200_000)])


def check(chunks, y, s, ids, lines=None):
    labels = np.concatenate([chunk.labels for chunk in chunks])
    scores = np.concatenate([chunk.scores for chunk in chunks])
    np.testing.assert_array_equal(labels, y)
    np.testing.assert_array_equal(scores, s)
    assert [value for chunk in chunks for value in chunk.extras["id"]] == ids
    if lines is not None:
        np.testing.assert_array_equal(np.concatenate([chunk.lines for chunk in chunks]), lines)


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("layout", ["plain", "quoted", "crlf", "cr", "gzip"])
def test_csv_rows_survive_a_chunk_size_changed_after_every_chunk(tmp_path, table, layout,
                                                                 seed):
    y, s, ids = table
    newline = {"crlf": "\r\n", "cr": "\r"}.get(layout, "\n")
    # Quotes send every block to Python's csv module.
    data = csv_bytes(y, s, ids, newline, quoted=layout == "quoted")
    path = tmp_path / "rows.csv"
    if layout == "gzip":
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    check(read_all(path, random_sizes(seed)), y, s, ids, np.arange(2, N + 2))


def test_csv_rows_survive_a_chunk_size_that_shrinks_and_grows(tmp_path, table):
    y, s, ids = table
    path = tmp_path / "rows.csv"
    path.write_bytes(csv_bytes(y, s, ids))
    # The progress bar's pattern: small first, then larger, then smaller again.
    sizes = iter([1024, 5000, 65536, 3, 65536, 1, *[7919] * 100])
    check(read_all(path, sizes), y, s, ids, np.arange(2, N + 2))


def test_live_rows_survive_a_chunk_size_changed_after_every_chunk(tmp_path, table):
    y, s, ids = table
    fifo = tmp_path / "rows.fifo"
    os.mkfifo(fifo)
    data = csv_bytes(y, s, ids)

    def writer():
        with open(fifo, "wb") as handle:
            for start in range(0, len(data), 50_000):  # blocks of several writes
                handle.write(data[start:start + 50_000])
                handle.flush()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        check(read_all(fifo, random_sizes(4)), y, s, ids, np.arange(2, N + 2))
    finally:
        thread.join()


@pytest.mark.parametrize("seed", [1, 2])
def test_parquet_rows_survive_a_chunk_size_changed_after_every_chunk(tmp_path, table, seed):
    y, s, ids = table
    path = tmp_path / "rows.parquet"
    parquet.write_table(pyarrow.table({"label": y, "score": s, "id": ids}), path,
                        row_group_size=4096)
    check(read_all(path, random_sizes(seed)), y, s, ids, np.arange(N))


@pytest.mark.parametrize("seed", [1, 2])
def test_npz_rows_survive_a_chunk_size_changed_after_every_chunk(tmp_path, table, seed):
    y, s, ids = table
    path = tmp_path / "rows.npz"
    np.savez(path, label=y, score=s, id=np.array(ids))
    check(read_all(path, random_sizes(seed)), y, s, ids, np.arange(N))


@pytest.mark.parametrize("path_kind", ["csv", "parquet", "npz"])
def test_each_chunk_has_the_size_asked_for(tmp_path, table, path_kind):
    """A chunk holds the rows asked for when the file has them (the pace of the bar)."""
    y, s, ids = table
    path = tmp_path / f"rows.{path_kind}"
    if path_kind == "csv":
        path.write_bytes(csv_bytes(y, s, ids))
    elif path_kind == "parquet":
        parquet.write_table(pyarrow.table({"label": y, "score": s, "id": ids}), path,
                            row_group_size=4096)
    else:
        np.savez(path, label=y, score=s, id=np.array(ids))
    asked = [int(size) for size in np.random.default_rng(5).integers(1, 9000, 200)]
    chunks = read_all(path, iter(asked))
    got = [chunk.labels.shape[0] for chunk in chunks]
    # Each chunk but the last has the size set before it was read.
    assert got[:-1] == asked[:len(got) - 1]
    assert 0 < got[-1] <= asked[len(got) - 1]
    check(chunks, y, s, ids)


def test_parquet_integer_scores_reach_the_monitor_exactly(tmp_path):
    """int64 scores up to 2**53 in magnitude are handed on as float64 that equal them."""
    limit = 2**53
    s = np.array([limit, limit - 1, -limit, 3, limit - 2, -(limit - 1)] * 50, dtype=np.int64)
    y = np.arange(s.shape[0]) % 2
    path = tmp_path / "rows.parquet"
    parquet.write_table(pyarrow.table({"label": y, "score": s, "id": s}), path,
                        row_group_size=64)
    chunks = read_all(path, random_sizes(6))
    scores = np.concatenate([chunk.scores for chunk in chunks])
    assert scores.dtype == np.float64
    assert [int(value) for value in scores.tolist()] == s.tolist()
    assert [int(value) for chunk in chunks for value in chunk.extras["id"]] == s.tolist()



@pytest.mark.parametrize(("metrics", "named"), [("auc,er", "er"), ("brier", "brier"),
                                                ("auc,auc_binned", "auc_binned")])
def test_npz_integers_beyond_float64_with_a_metric_of_their_values(tmp_path, capsys, metrics,
                                                                   named):
    """Dense ranks keep the scores' order, not the values a threshold, a bin or a
    probability reads: such a metric on integers float64 cannot hold is refused."""
    limit = 2**53
    path = tmp_path / "rows.npz"
    np.savez(path, label=np.array([1, 0, 1, 0]),
             score=np.array([limit + 1, 1, limit + 3, 0], dtype=np.int64))
    code, out, err = run_cli([path, "--metrics", metrics, "--no-progress"], capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "position 0: score 9007199254740993" in err
    assert f"--metrics {named}" in err


def test_npz_integers_beyond_float64_are_ranked_for_the_auc(tmp_path, capsys):
    limit = 2**53
    y = [1, 0, 1, 0, 1]
    s = [limit + 1, limit + 2, limit + 3, 0, limit + 2]
    path = tmp_path / "rows.npz"
    np.savez(path, label=np.array(y), score=np.array(s, dtype=np.int64))
    code, out, err = run_cli([path, "--metrics", "auc,h", "--no-progress"], capsys)
    assert code == 0, err
    _, values = read_table(out)
    np.testing.assert_allclose(values["auc"], [brute_auc(y[:k], s[:k]) for k in range(1, 6)])
