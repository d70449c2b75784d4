"""The corpus of user errors: each is one line on stderr, exit code 2, and costs no file.

Every case runs with ``--out`` naming a file that exists before the run: it
must still hold its bytes afterwards, and no temporary file may be left.
"""

import bz2
import gzip
import lzma
import os
import re
import zipfile

import numpy as np
import pyarrow
import pyarrow.parquet as parquet
import pytest
from cli_helpers import PRECIOUS, leftovers, run_cli

ROWS = "label,score\n1,0.5\n0,0.25\n1,0.75\n"


def text(content, name="scores.csv", encoding="utf-8"):
    def write(directory):
        path = directory / name
        path.write_bytes(content if isinstance(content, bytes) else content.encode(encoding))
        return path
    return write


def npz(name="scores.npz", **arrays):
    def write(directory):
        path = directory / name
        with open(path, "wb") as handle:
            np.savez(handle, **arrays)
        return path
    return write


def table(name="scores.parquet", **columns):
    def write(directory):
        path = directory / name
        parquet.write_table(pyarrow.table(columns), path)
        return path
    return write


def latin1_csv(directory):
    path = directory / "scores.csv"
    path.write_bytes("label,score,name\n1,0.5,Ana\n0,0.25,José\n".encode("latin-1"))
    return path


def compressed(opener, content, name):
    def write(directory):
        path = directory / name
        with opener(path, "wb") as handle:
            handle.write(content)
        return path
    return write


def truncated(opener, name):
    def write(directory):
        path = directory / name
        with opener(path, "wb") as handle:
            handle.write(("label,score\n" + "1,0.5\n0,0.25\n" * 5000).encode())
        data = path.read_bytes()
        path.write_bytes(data[:len(data) // 2])
        return path
    return write


def corrupt_npz(directory):
    path = directory / "scores.npz"
    with open(path, "wb") as handle:
        np.savez(handle, label=np.array([0, 1] * 50), score=np.arange(100.0))
    data = bytearray(path.read_bytes())
    data[60:80] = b"\xff" * 20  # inside the first member's data: a bad CRC or header
    path.write_bytes(bytes(data))
    return path


def zip_without_arrays(directory):
    path = directory / "scores.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("notes.txt", "hello")
    return path


def pickled_npz(directory):
    path = directory / "scores.npz"
    scores = np.array([0.5, "x", None], dtype=object)
    with open(path, "wb") as handle:
        np.savez(handle, label=np.array([0, 1, 1]), score=scores)
    return path


def truncated_npz(directory):
    path = directory / "scores.npz"
    with open(path, "wb") as handle:
        np.savez(handle, label=np.array([0, 1] * 500), score=np.arange(1000.0))
    path.write_bytes(path.read_bytes()[:5000])
    return path


def renamed(write, new_name):
    def rename(directory):
        path = write(directory)
        target = directory / new_name
        path.rename(target)
        return target
    return rename


def corrupt_parquet(where):
    def write(directory):
        path = directory / "scores.parquet"
        parquet.write_table(pyarrow.table({"label": [0, 1] * 500, "score": np.arange(1000.0)}),
                            path, row_group_size=100)
        data = bytearray(path.read_bytes())
        if where == "footer":
            data[-8:-4] = b"\xff\xff\xff\x7f"  # the footer's length
        else:
            data[len(data) // 2:len(data) // 2 + 400] = b"\xff" * 400  # pages in the middle
        path.write_bytes(bytes(data))
        return path
    return write


def directory_input(directory):
    path = directory / "adir"
    path.mkdir()
    return path


def missing(directory):
    return directory / "nosuch.csv"


def csv_file(directory):
    return text(ROWS)(directory)


CASES = {
    # Row 1 and 15: inputs checked before anything is written.
    "missing input": (missing, [], r"nosuch.csv: no such file"),
    "directory input": (directory_input, [], r"adir: is a directory; give a file"),
    "out is the input": (csv_file, ["--out", "{input}"],
                         r"--out .*scores.csv is the input file: it would be overwritten"),
    "plot is the out": (csv_file, ["--out", "{out_png}", "--plot", "{out_png}"],
                        r"--plot .* is the --out file"),
    "out is a directory": (csv_file, ["--out", "{dir}"], r"--out .*: is a directory"),
    "out in a missing directory": (csv_file, ["--out", "{dir}/nowhere/out.csv"],
                                   r"--out .*nowhere/out.csv: directory .* does not exist"),
    "plot in a missing directory": (csv_file, ["--plot", "{dir}/nowhere/p.png"],
                                    r"--plot .*: directory .*nowhere does not exist"),
    # Row 5: encodings.
    "latin-1 bytes": (latin1_csv, [],
                      r"scores.csv: byte offset 37 \(line 3\): bytes b'\\xe9\\n' are not valid "
                      r"utf-8; pass --encoding"),
    "latin-1 in gzip": (compressed(gzip.open, "label,score\n1,0.5\n0,0.2\xe9\n".encode("latin-1"),
                                   "scores.csv.gz"), [],
                        r"byte offset 23 of the decompressed text \(line 3\): bytes b'\\xe9\\n'"),
    "cp1252 byte undefined": (text(b"label,score,note\n1,0.5,\x81\n"), ["--encoding", "cp1252"],
                              r"byte offset 23 \(line 2\): bytes b'\\x81\\n' are not valid cp1252"),
    "utf-16 without a BOM": (text("label,score\n1,0.5\n", encoding="utf-16-le"), [],
                             r"byte offset 1 \(line 1\): a NUL byte: not a text file, or "
                             r"UTF-16/UTF-32 text without a byte-order mark"),
    "unknown encoding": (csv_file, ["--encoding", "klingon"],
                         r"argument --encoding: unknown encoding 'klingon'"),
    "not a text encoding": (csv_file, ["--encoding", "base64"],
                            r"argument --encoding: 'base64' is not a text encoding"),
    # Row 16: physical line numbers.
    "bad score after comments": (text("# exported by X\n# model v2\nlabel,score\n1,0.5\n0,abc\n"),
                                 [], r"scores.csv:5: score 'abc' is not a number"),
    "bad label after blank lines": (text("label,score\n\n1,0.5\n\n# note\n2,0.1\n"), [],
                                    r"scores.csv:6: label '2' is not 0/1"),
    "bad score with CRLF": (text("label,score\r\n1,0.5\r\n0,x\r\n"), [],
                            r"scores.csv:3: score 'x' is not a number"),
    "bad score in bzip2": (compressed(bz2.open, b"# c\nlabel,score\n1,0.5\n0,nan\n",
                                      "scores.csv.bz2"), [],
                           r"scores.csv.bz2:4: score 'nan' is not a finite number"),
    "bad score after the first chunk": (
        text("label,score\n" + "1,0.5\n0,0.25\n" * 300 + "1,oops\n"), ["--chunk-size", "64"],
        r"scores.csv:602: score 'oops' is not a number"),
    "bad score with a BOM": (text(b"\xef\xbb\xbflabel,score\n1,0.5\n0,-\n"), [],
                             r"scores.csv:3: score '-' is not a number"),
    "too few columns": (text("id,label,score\n1,1,0.5\n2,0\n"), [],
                        r"scores.csv:3: expected 3 columns, found 2"),
    "empty file": (text(""), [], r"scores.csv: the file is empty$"),
    "empty npz": (text("", "scores.npz"), [], r"scores.npz: the file is empty$"),
    "only comments": (text("# nothing\n\n"), [], r"the file is empty"),
    "header only": (text("label,score\n"), [], r"scores.csv: no data rows"),
    "a gzip file with only a header": (compressed(gzip.open, b"label,score\n", "s.csv.gz"), [],
                                       r"s.csv.gz: no data rows"),
    # Delimiters and columns.
    "one column": (text("label score\n1 0.5\n"), [],
                   r"no column 'label' \(--label-col\); the header has 1 column\(s\): "
                   r"'label score' \(pass --delimiter"),
    "missing score column": (text("label,value\n1,0.5\n"), [],
                             r"scores.csv:1: no column 'score' \(--score-col\); the header has 2 "
                             r"column\(s\): 'label', 'value'"),
    "duplicate column": (text("label,score,score\n1,0.5,0.6\n"), [],
                         r"the header names column 'score' 2 times"),
    "decimal comma": (text("label;score\n1;0,5\n"), [],
                      r"scores.csv:2: score '0,5' is not a number \(a decimal comma\? pass "
                      r"--decimal-comma\)"),
    "bad delimiter": (csv_file, ["--delimiter", "ab"], r"argument --delimiter: must be one"),
    "quote as delimiter": (csv_file, ["--delimiter", '"'], r"argument --delimiter"),
    # Rows 5, 7-8: compression and binaries.
    "truncated gzip": (truncated(gzip.open, "scores.csv.gz"), [], r"scores.csv.gz: corrupt gzip"),
    "truncated bzip2": (truncated(bz2.open, "scores.csv.bz2"), [],
                        r"scores.csv.bz2: corrupt bzip2"),
    "truncated xz": (truncated(lzma.open, "scores.csv.xz"), [], r"scores.csv.xz: corrupt xz"),
    "gzip header only": (text(b"\x1f\x8b\x08\x00garbage"), [], r"corrupt gzip data"),
    "compressed npz": (compressed(gzip.open, b"PK\x03\x04rest", "scores.npz.gz"), [],
                       r"gzip-compressed binary data .*decompress .npz or parquet files first"),
    "text named npz": (text(ROWS, "scores.npz"), [],
                       r"scores.npz: named .npz but it is text \(its first bytes are "
                       r"b'label,sc'\)"),
    "text named parquet": (text(ROWS, "scores.parquet"), [], r"named .parquet but it is text"),
    "npz named parquet": (npz("scores.parquet", label=[0, 1], score=[0.1, 0.2]), [],
                          r"named .parquet but it is a zip archive"),
    "npy": (lambda d: (np.save(d / "scores.npy", np.arange(3.0)), d / "scores.npy")[1], [],
            r"a single .npy array: save the labels and scores together"),
    "text named npy": (text(ROWS, "scores.npy"), [], r"not a .npy array"),
    "xlsx": (zip_without_arrays, [], r"no array 'label' \(--label-col\); the archive holds "
                                     r"'notes.txt'"),
    "spreadsheet name": (renamed(zip_without_arrays, "book.xlsx"), [],
                         r"book.xlsx: a spreadsheet workbook: save it as CSV"),
    "zstandard": (text(b"(\xb5/\xfd\x00\x00rest"), [], r"zstandard-compressed"),
    "corrupt npz": (corrupt_npz, [], r"scores.npz: .*(cannot be read|not a readable)"),
    "truncated npz": (lambda d: truncated_npz(d), [], r"scores.npz: not a readable .npz archive"),
    "pickled object array": (pickled_npz, [],
                             r"array 'score' holds Python objects, which are never unpickled"),
    "npz without label": (npz(truth=[0, 1], score=[0.1, 0.2]), [],
                          r"no array 'label' \(--label-col\); the archive holds 'truth', 'score'"),
    "npz string scores": (npz(label=[0, 1], score=np.array(["0.1", "0.2"])), [],
                          r"array 'score': scores must be real numbers; its values are not "
                          r"numbers \(type <U3\)"),
    "npz complex scores": (npz(label=[0, 1], score=np.array([0.1 + 1j, 0.2])), [],
                           r"array 'score': scores must be real numbers; its values are complex"),
    "npz string labels": (npz(label=np.array(["a", "b"]), score=[0.1, 0.2]), [],
                          r"array 'label': labels must be 0/1, -1/1 or booleans"),
    "npz 2-d scores": (npz(label=[0, 1], score=np.array([[0.1], [0.2]])), [],
                       r"array 'score' must be 1-d, got shape \(2, 1\)"),
    "npz lengths differ": (npz(label=[0, 1, 1], score=[0.1, 0.2]), [],
                           r"arrays 'label' and 'score' have different lengths: 3 and 2"),
    "npz bad label": (npz(label=[0, 1, 2], score=[0.1, 0.2, 0.3]), [],
                      r"array 'label' at position 2: label 2 is not 0/1"),
    "npz infinite score": (npz(label=[0, 1, 1], score=[0.1, np.inf, 0.3]), [],
                           r"array 'score' at position 1: score inf is not finite"),
    "npz empty": (npz(label=np.array([], dtype=np.int8), score=np.array([])), [],
                  r"scores.npz: no data rows"),
    "parquet without label": (table(truth=[0, 1], score=[0.1, 0.2]), [],
                              r"no column 'label' \(--label-col\); columns are: 'truth', 'score'"),
    "parquet string scores": (table(label=[0, 1], score=["0.1", "0.2"]), [],
                              r"column 'score' holds string values; scores must be numbers"),
    "parquet null score": (table(label=[0, 1, 1], score=[0.1, None, 0.3]), [],
                           r"column 'score' at position 1: the value is missing \(null\)"),
    "parquet bad label": (table(label=[0, 1, 3], score=[0.1, 0.2, 0.3]), ["--chunk-size", "2"],
                          r"column 'label' at position 2: label 3 is not 0/1"),
    "corrupt parquet footer": (corrupt_parquet("footer"), [],
                               r"scores.parquet: not a readable parquet file"),
    "corrupt parquet pages": (corrupt_parquet("pages"), ["--chunk-size", "100"],
                              r"scores.parquet: corrupt parquet data after row [1-9]\d*: "),
    "parquet header only": (text(b"PAR1\x00\x00"), ["--no-progress"],
                            r"scores.csv: not a readable parquet file"),
    # Row 17: integers beyond 2**53.
    "csv integer beyond 2**53": (text("label,score\n1,9007199254740993\n0,9007199254740992\n"),
                                 [], r"scores.csv:2: score 9007199254740993 is an integer beyond "
                                     r"2\*\*53, which float64 cannot hold exactly"),
    "parquet integer beyond 2**53": (
        table(label=[0, 1, 0], score=pyarrow.array([1, 2**60 + 1, 3], pyarrow.int64())), [],
        r"column 'score' at position 1: score 1152921504606846977 is an integer beyond 2\*\*53"),
    # Row 9: absurd options refused while parsing.
    "huge window": (csv_file, ["--window", "99999999999999999999999"],
                    r"argument --window: must be from 1 to 4611686018427387904, got "
                    r"99999999999999999999999"),
    "huge every": (csv_file, ["--every", "99999999999999999999"],
                   r"argument --every: must be from 1 to 4611686018427387904"),
    "zero window": (csv_file, ["--window", "0"], r"argument --window: window must be at least 1; "
                    r"got 0"),
    "fractional window": (csv_file, ["--window", "2.5"], r"'2.5' is not a whole number"),
    "nan every": (csv_file, ["--every", "nan"], r"argument --every: 'nan' is not a whole number"),
    "huge chunk size": (csv_file, ["--chunk-size", "1e30"], r"argument --chunk-size"),
    "plot without an image extension": (csv_file, ["--plot", "{dir}/out.txt"],
                                        r"argument --plot: '.*out.txt' does not end with an "
                                        r"image extension matplotlib writes \(.*\.png"),
    "plot without extension": (csv_file, ["--plot", "{dir}/plot"], r"argument --plot"),
    "unknown metric": (csv_file, ["--metrics", "auc,gini"],
                       r"argument --metrics: unknown metric\(s\) gini"),
    "no metric": (csv_file, ["--metrics", ","], r"unknown metric\(s\) \(none given\)"),
    "relative error zero": (csv_file, ["--relative-error", "0"], r"argument --relative-error: must be a number > 0"),
    "unknown option": (csv_file, ["--windw", "3"], r"unrecognized arguments: --windw 3"),
    "two files": (csv_file, ["other.csv"], r"unrecognized arguments"),
    # H options.
    "severity ratio": (csv_file, ["--metrics", "h", "--severity-ratio", "x"],
                       r"--severity-ratio must be a number or 'prior'"),
    "priors": (csv_file, ["--metrics", "h", "--priors", "0.5,0.7"], r"--priors: priors must sum to 1"),
    "alpha": (csv_file, ["--metrics", "h", "--alpha", "-1"], r"alpha must be a finite number > 0"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_user_error_is_one_line_exit_2_and_costs_no_file(tmp_path, capsys, case):
    write, args, message = CASES[case]
    source = write(tmp_path)
    out = tmp_path / "out.csv"
    out.write_text(PRECIOUS)
    before = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    filled = [arg.format(input=source, out=out, out_png=tmp_path / "out.png", dir=tmp_path)
              for arg in args]
    if "--out" not in filled:
        filled += ["--out", str(out)]
    code, _, err = run_cli([source, *filled], capsys)
    assert code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert err.startswith("hmeasure-stream: error: ") and "Traceback" not in err
    if message is not None:
        assert re.search(message, err), err
    after = {path.name: path.read_bytes() for path in tmp_path.iterdir() if path.is_file()}
    assert after == before  # no file changed, none created, none removed
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("option", [["--label-col", "y"], ["--score-col", "p"],
                                    ["--encoding", "latin-1"], ["--delimiter", ";"],
                                    ["--decimal-comma"]])
def test_file_options_without_a_file_are_refused(capsys, option):
    code, out, err = run_cli(option, capsys)
    assert code == 2 and out == ""
    assert err == f"hmeasure-stream: error: {option[0]} describes FILE, and no FILE was given\n"


def test_out_equal_to_the_input_through_a_link_is_refused(tmp_path, capsys):
    source = tmp_path / "scores.csv"
    source.write_text(ROWS)
    link = tmp_path / "link.csv"
    os.link(source, link)
    code, _, err = run_cli([source, "--out", link], capsys)
    assert code == 2 and "is the input file" in err
    assert source.read_text() == ROWS
