"""Reading a stream of (label, score) rows from a file, in chunks.

The format is recognised by the file's first bytes, not by its name: gzip,
bzip2 and xz compression, a zip archive of ``.npy`` arrays (``.npz``),
parquet, and otherwise text (CSV).  A name that promises a format the bytes do
not hold (a text file named ``.npz``) is refused.  Text is decoded by its
byte-order mark (UTF-8 as Excel writes it, UTF-16, UTF-32), else by
``encoding`` (UTF-8 by default); a byte that does not decode is reported with
its offset, and UTF-16 or UTF-32 without a mark is refused unless ``encoding``
names its byte order (``utf-16-le``).  A line ends with LF, CRLF or a lone CR (old Mac files).  CSV
rows are reported by their physical line number in the file (comment lines
starting with ``#`` and blank lines count), and each must have as many fields
as the header.  Scores are decimal numbers as CSV writes them (ASCII digits,
no ``_``); an integer written beyond 2**53 that float64 cannot hold
(``9007199254740993`` or ``9007199254740993.0``) is refused, since distinct
scores would tie.  The last line of a live input (standard input, a FIFO)
must end with a line end: a stream that stops in the middle of
a row (a writer killed while writing ``1,0.75``, cut at ``1,0.``) is refused
rather than read as another score.  A line equal to the header row is
skipped (``tail -F`` passes on the header of each file rotated in).  Nothing
is ever unpickled.

The text is decoded here (to name the byte offset and line of a byte that
does not decode) and parsed by pyarrow's CSV reader in blocks of whole lines;
a block with a quote, a comment or a blank line (whose rows are not its
lines), or in which pyarrow stops or finds a score that needs its text (not
finite, or beyond 2**53), is read by Python's ``csv`` module, which names the
line of the problem.

Chunks hold ``chunk_size`` rows as the option stands when each is cut (the
caller may change it between chunks).  A column copied to the output that is
also the label or score column is copied as written and read as labels or
scores too.  Parquet columns dictionary-encoded (pandas categoricals) are read
as the values they encode.

Every problem with the input is an :class:`InputError`: one line, naming the
file and where in it.
"""

import bz2
import codecs
import csv
import functools
import gzip
import io
import itertools
import lzma
import math
import os
import re
import stat
import sys
import zipfile
import zlib
from pathlib import Path
from typing import NamedTuple

import numpy as np

from hmeasure_stream._validation import (
    EXACT_INT_LIMIT,
    check_scores,
    equal_mask,
    exact_integers,
    first_other_labels,
)
from hmeasure_stream.metric_table import METRICS, value_metrics

#: Delimiters tried on the header row when none is given.
DELIMITERS = (",", ";", "\t")

_LABELS = {"0": 0, "1": 1, "0.0": 0, "1.0": 1, "-1": 0, "-1.0": 0, "false": 0, "true": 1}
# An integer as a CSV writes it, maybe with a fraction of zeros: 9007199254740993(.0).
_INTEGER = re.compile(r"\s*([+-]?\d+)(?:\.0*)?\s*\Z")
# LF, CRLF or a lone CR (universal newlines, as Python's text files read them).
_LINE_END = re.compile(r"\r\n|\r|\n")
_BLOCK = 1 << 20
_BLANK_OR_COMMENT = frozenset(" \t\r\f\v#")
# A "line" longer than this is not a CSV row (a binary file or a missing newline).
_MAX_LINE = 1 << 24

_COMPRESSIONS = {
    "gzip": (b"\x1f\x8b", gzip.open, (gzip.BadGzipFile, zlib.error)),
    "bzip2": (b"BZh", bz2.open, ()),
    "xz": (b"\xfd7zXZ\x00", lzma.open, (lzma.LZMAError,)),
}
_CONTAINERS = {"npz": (b"PK\x03\x04", b"PK\x05\x06"), "parquet": (b"PAR1",)}
# Recognised and refused, with what to do instead.
_REFUSED = (
    (b"\x93NUMPY", "a single .npy array: save the labels and scores together with "
                   "numpy.savez(path, label=..., score=...)"),
    (b"(\xb5/\xfd", "zstandard-compressed: decompress it, or compress with gzip, bzip2 or xz"),
    (b"7z\xbc\xaf'\x1c", "a 7-zip archive: extract it first"),
    (b"ARROW1", "an Arrow IPC (Feather) file: write parquet, .npz or CSV"),
    (b"\xd0\xcf\x11\xe0", "an old Excel workbook (.xls): save it as CSV"),
)
_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


class InputError(Exception):
    """A problem with the input or the options, reported in one line (exit code 2)."""


def check_encoding(name):
    """``name`` as a text encoding Python knows, or ValueError."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise ValueError(f"unknown encoding {name!r}") from None
    # Codecs such as base64 or rot13 are marked as not encoding text (str.encode refuses them).
    if not getattr(info, "_is_text_encoding", True):
        raise ValueError(f"{name!r} is not a text encoding")
    return info.name


# ----------------------------------------------------------------------------
# Bytes


class _CountingReader(io.RawIOBase):
    """A binary stream that hands out some bytes already read first and counts the rest."""

    def __init__(self, prefix, raw):
        self._prefix = prefix
        self._raw = raw
        self.position = 0

    def readable(self):
        return True

    def readinto(self, buffer):
        if self._prefix:
            count = min(len(buffer), len(self._prefix))
            buffer[:count] = self._prefix[:count]
            self._prefix = self._prefix[count:]
        else:
            count = self._raw.readinto(buffer) or 0
        self.position += count
        return count

    def close(self):
        self._raw.close()
        super().close()


def _read_prefix(stream, size):
    """Up to ``size`` first bytes of a stream (fewer only at its end)."""
    prefix = b""
    while len(prefix) < size:
        part = stream.read(size - len(prefix))
        if not part:
            break
        prefix += part
    return prefix


def _sniff(prefix):
    for kind, (magic, _, _) in _COMPRESSIONS.items():
        if prefix.startswith(magic):
            return kind
    for kind, magics in _CONTAINERS.items():
        if prefix.startswith(magics):
            return kind
    for magic, _ in _REFUSED:
        if prefix.startswith(magic):
            return "refused"
    return "text"


def _refusal(prefix):
    return next(reason for magic, reason in _REFUSED if prefix.startswith(magic))


# ----------------------------------------------------------------------------
# Text


class _Blocks:
    """The decoded text of a binary stream, in blocks of whole physical lines.

    Yields ``(text, first, n_lines)``: ``n_lines`` lines that each end with
    LF (LF, CRLF and CR read as LF), ``first`` the physical number (from 1)
    of the first.
    ``line`` counts the lines handed out; ``offset`` the bytes of the
    (decompressed) stream decoded so far.  ``live``: a last line without a
    line end is a row cut short (InputError).
    """

    def __init__(self, stream, path, encoding, decompression_errors, compressed, live=False):
        self.stream = stream
        self.live = live
        self.path = path
        self.encoding = encoding
        self.errors = (EOFError, OSError, *decompression_errors)
        self.compressed = compressed
        self.line = 0

    def _where(self, offset):
        kind = " of the decompressed text" if self.compressed else ""
        return f"{self.path}: byte offset {offset}{kind}"

    def _read(self):
        try:
            return self.stream.read1(_BLOCK)
        except self.errors as error:
            raise InputError(
                f"{self.path}: corrupt {self.compressed or 'file'} data after {self.offset} "
                f"bytes{' of text' if self.compressed else ''}: {error}"
            ) from None

    def _decode_error(self, error, start, carry):
        offset = start + error.start
        bad = error.object[error.start:error.start + 4]
        before = bytes(error.object[:error.start]).decode(self.encoding, "replace")
        raise InputError(
            f"{self._where(offset)} (line {self.line + 1 + _line_ends(carry + before)}): "
            f"bytes {bytes(bad)!r} are not valid {self.encoding}; pass --encoding "
            "(e.g. latin-1 or cp1252), or save the file as UTF-8"
        ) from None

    def __iter__(self):
        self.offset = 0
        first = b""
        while len(first) < 4:
            part = self._read()
            if not part:
                break
            first += part
        encoding, skip = self.encoding, 0
        for bom, name in _BOMS:
            if first.startswith(bom):
                encoding, skip = name, len(bom)
                break
        self.encoding = encoding
        if not skip and codecs.lookup(encoding).name in ("utf-16", "utf-32"):
            self._no_byte_order(first, codecs.lookup(encoding).name)
        decoder = codecs.getincrementaldecoder(encoding)()
        self.offset = skip
        block = first[skip:]
        carry = ""
        while True:
            start = self.offset - len(decoder.getstate()[0])
            try:
                text = decoder.decode(block, not block)
            except UnicodeDecodeError as error:
                self._decode_error(error, start, carry)
            except UnicodeError as error:  # a codec's own check, not of a byte
                raise InputError(f"{self._where(start)}: the text cannot be decoded as "
                                 f"{self.encoding}: {error}") from None
            self.offset += len(block)
            if "\x00" in text:
                self._nul(text, start, carry)
            text = carry + text
            # A CR at the end of a block may be the first half of a CRLF: kept for the next.
            held = 1 if block and text.endswith("\r") else 0
            end = max(text.rfind("\n", 0, len(text) - held),
                      text.rfind("\r", 0, len(text) - held)) + 1
            whole, carry = text[:end], text[end:]
            if "\r" in whole:
                whole = whole.replace("\r\n", "\n").replace("\r", "\n")
            if len(carry) > _MAX_LINE:
                raise InputError(
                    f"{self.path}:{self.line + whole.count(chr(10)) + 1}: a line longer than "
                    f"{_MAX_LINE} characters: not a CSV file?"
                )
            if whole:
                n_lines = whole.count("\n")
                yield whole, self.line + 1, n_lines
                self.line += n_lines
            if not block:
                break
            block = self._read()
        if carry:
            if carry.strip() and not carry.lstrip().startswith("#") and self.live:
                raise InputError(
                    f"{self.path}:{self.line + 1}: the input ended in the middle of a row "
                    f"({carry!r}, without a line end): was its writer stopped while "
                    "writing? Each row of a live input must end with a line end")
            yield carry + "\n", self.line + 1, 1
            self.line += 1

    def _no_byte_order(self, first, name):
        """Refuse UTF-16 or UTF-32 without a byte-order mark: their byte order is unknown.

        (Python's ``utf-16`` codec refuses such a stream too; decoding it in the
        machine's byte order would make the file's meaning depend on the machine.)
        The order is suggested when the first characters' zero bytes show it, as
        the zero high bytes of ASCII text do.
        """
        width = 2 if name == "utf-16" else 4
        units = [first[k:k + width] for k in range(0, min(len(first), 64) - width + 1, width)]
        little = sum(unit[0] != 0 and unit[-1] == 0 for unit in units)
        big = sum(unit[0] == 0 and unit[-1] != 0 for unit in units)
        if little and not big:
            advice = f"its first bytes look little-endian: pass --encoding {name}-le"
        elif big and not little:
            advice = f"its first bytes look big-endian: pass --encoding {name}-be"
        else:
            advice = f"pass --encoding {name}-le or {name}-be"
        raise InputError(f"{self.path}: no byte-order mark at the start, which {name.upper()} "
                         f"text needs to tell its byte order; {advice}")

    def _nul(self, text, start, carry):
        index = text.index("\x00")
        offset = start + len(text[:index].encode(self.encoding))
        line = self.line + 1 + _line_ends(carry + text[:index])
        raise InputError(
            f"{self._where(offset)} (line {line}): a NUL byte: not a text file, or "
            "UTF-16/UTF-32 text without a byte-order mark (pass --encoding utf-16-le)"
        )


def _numbered_rows(text, first):
    """(physical number, line) of a block's lines that are neither blank nor comments."""
    for number, line in enumerate(text.split("\n")[:-1], first):
        head = line[:1]
        # Blank lines and comments: a first character that is blank or "#".
        if (head and head not in _BLANK_OR_COMMENT) or (
                line.strip() and not line.lstrip().startswith("#")):
            yield number, line + "\n"


def _line_ends(text):
    return len(_LINE_END.findall(text))


def _label_code(text):
    """0 or 1 for a CSV label 0/1, -1/1 or true/false (any case, spaces around), else None."""
    code = _LABELS.get(text)
    return _LABELS.get(text.strip().lower()) if code is None else code


def _parse_labels(texts, lines, path, classes=None):
    if classes is not None:
        return classes.text(texts, lines)
    codes = list(map(_label_code, texts))
    if None in codes:
        index = codes.index(None)
        raise InputError(
            f"{path}:{lines[index]}: label {texts[index]!r} is not 0/1 "
            "(or -1/1, true/false); for other labels give the label of class 1 "
            "with --pos-label"
        )
    return np.array(codes, dtype=np.int8)


def _label_key(text):
    """A CSV label as compared with --pos-label: a finite number by its value, else its text.

    Surrounding whitespace is ignored; text is compared case-sensitively.
    """
    stripped = text.strip()
    try:
        value = float(stripped)
    except ValueError:
        return stripped
    return value if math.isfinite(value) else stripped


def _array_key(value, array, path, name):
    """--pos-label VALUE as an element of ``array``'s type (npz, parquet), or InputError."""
    kind = array.dtype.kind
    if kind in "US" or kind == "O":
        return value
    if kind == "b":
        lowered = value.strip().lower()
        if lowered in ("true", "1"):
            return True
        if lowered in ("false", "0"):
            return False
    else:
        try:
            number = float(value)
        except ValueError:
            number = None
        if number is not None and math.isfinite(number):
            if kind == "f":
                return number
            if number.is_integer():
                return int(number)
    raise InputError(
        f"{path}: --pos-label {value!r} is not a value of {name}, whose labels are "
        f"{array.dtype} values"
    )


class PositiveLabel:
    """``--pos-label``: labels equal to it are class 1; the first other one is class 0.

    The class 0 label is learned from the first row that is not class 1 and
    kept for the rest of the stream (every chunk); any third label is an
    :class:`InputError` naming where it is and its value.
    """

    def __init__(self, value, path):
        self.value = value
        self.path = path
        self.key = _label_key(value)
        self.neg = None  # (key, value as read, where)
        self.seen_pos = False

    def text(self, texts, lines):
        """CSV labels (text) as int8 0/1; ``lines``: their line numbers."""
        table = {text: _label_key(text) for text in set(texts)}
        empty = [index for index, text in enumerate(texts) if table[text] == ""]
        if empty:
            raise InputError(f"{self.path}:{lines[empty[0]]}: the label is empty")
        keys = np.empty(len(texts), dtype=object)
        keys[:] = [table[text] for text in texts]
        return self._map(keys, keys == self.key, texts, _Where(self.path, lines))

    def array(self, labels, name, start):
        """npz/parquet labels as int8 0/1; ``start``: the position of the first."""
        key = _array_key(self.value, labels, self.path, name)
        is_pos = np.asarray(labels == key, dtype=bool)
        if labels.dtype.kind == "f":
            missing = np.flatnonzero(np.isnan(labels))
            if missing.size:
                raise InputError(f"{self.path}: {name} at position {start + int(missing[0])}: "
                                 "the label is missing (nan)")
        where = _Positions(self.path, name, start)
        return self._map(labels, is_pos, labels, where)

    def _map(self, keys, is_pos, shown, where):
        is_pos = np.asarray(is_pos, dtype=bool)
        if self.neg is None:
            first = first_other_labels(keys, is_pos, limit=1)
            if first:
                key, index = first[0]
                self.neg = (key, _plain(shown[index]), where[index])
        if self.neg is not None:
            third = first_other_labels(keys, is_pos | equal_mask(keys, self.neg[0]), limit=1)
            if third:
                index = third[0][1]
                value = _plain(shown[index])
                seen = self.seen_pos or bool(is_pos[:index].any())
                _, neg_value, neg_where = self.neg
                if not seen:
                    raise InputError(
                        f"{where[index]}: label {value!r}: no label so far is --pos-label "
                        f"{self.value!r} and this is a second other label besides "
                        f"{neg_value!r} (at {neg_where}): is --pos-label the label of class 1 "
                        "as it is written in the file?"
                    )
                raise InputError(
                    f"{where[index]}: a third label {value!r}: --pos-label {self.value!r} is "
                    f"class 1 and {neg_value!r} (first at {neg_where}) class 0"
                )
        self.seen_pos = self.seen_pos or bool(is_pos.any())
        return is_pos.astype(np.int8)


def _plain(value):
    return value.item() if isinstance(value, np.generic) else value


class _Positions:
    """``where[k]``: the row at ``start + k`` of an array, for messages."""

    def __init__(self, path, name, start):
        self.path, self.name, self.start = path, name, start

    def __getitem__(self, index):
        return f"{self.path}: {self.name} at position {self.start + index}"


def _parse_score(text, where, decimal_comma):
    if decimal_comma:
        text = text.replace(",", ".")
    try:
        # float() also reads 1_000 and digits of other scripts: not numbers a CSV holds.
        if "_" in text or not text.isascii():
            raise ValueError(text)
        return float(text)
    except ValueError:
        hint = ""
        if not decimal_comma and "," in text:
            try:
                float(text.replace(",", "."))
                hint = " (a decimal comma? pass --decimal-comma)"
            except ValueError:
                pass
        raise InputError(f"{where}: score {text!r} is not a number{hint}") from None


def parse_scores(texts, lines, path, decimal_comma):
    try:
        if decimal_comma:
            texts = [text.replace(",", ".") for text in texts]
        joined = "".join(texts)
        if "_" in joined or not joined.isascii():
            raise ValueError("not a CSV number")
        scores = np.array(list(map(float, texts)), dtype=np.float64)
    except ValueError:
        for index, text in enumerate(texts):
            _parse_score(text, f"{path}:{lines[index]}", decimal_comma)
        raise
    bad = np.flatnonzero(~np.isfinite(scores))
    if bad.size:
        index = int(bad[0])
        raise InputError(f"{path}:{lines[index]}: score {texts[index]!r} is not a finite number")
    for index in np.flatnonzero(np.abs(scores) >= EXACT_INT_LIMIT).tolist():
        text = texts[index]
        integer = _INTEGER.match(text)
        if integer and int(integer.group(1)) != int(scores[index]):
            raise InputError(
                f"{path}:{lines[index]}: score {text.strip()} is an integer beyond 2**53, "
                "which float64 cannot hold exactly (distinct scores would tie); a stream read "
                "in chunks cannot rank them: save the columns as .npz (whose integer scores "
                "are ranked exactly), or rescale the scores"
            )
    return scores


def _choose_delimiter(header_line, wanted):
    """The delimiter among DELIMITERS that makes a header with the wanted columns."""
    best = None
    for delimiter in DELIMITERS:
        names = [name.strip() for name in next(csv.reader([header_line], delimiter=delimiter))]
        if all(name in names for name in wanted):
            return delimiter
        if best is None or len(names) > best[1]:
            best = (delimiter, len(names))
    return best[0]


def _header_indices(header, header_number, path, options):
    """The positions of the label, score and extra columns in the header."""
    wanted = [(options.label_col, "--label-col"), (options.score_col, "--score-col"),
              *((name, option) for name, option in _extra_columns(options))]
    indices = {}
    for name, option in wanted:
        if name not in header:
            hint = (" (pass --delimiter if the columns are separated by another character)"
                    if len(header) == 1 else "")
            raise InputError(
                f"{path}:{header_number}: no column {name!r} ({option}); the header has "
                f"{len(header)} column(s): {', '.join(map(repr, header))}{hint}"
            )
        if header.count(name) > 1:
            raise InputError(
                f"{path}:{header_number}: the header names column {name!r} "
                f"{header.count(name)} times"
            )
        indices[name] = header.index(name)
    return indices


def _extra_columns(options):
    """(name, option) of the columns read besides the labels and scores, in order."""
    extra = getattr(options, "extra_columns", None) or ()
    return list(extra)


def _csv_rows(stream, path, options, compressed, decompression_errors, handle, live):
    """The chunks of a CSV stream, after ``None`` once the header is checked.

    Each block of text is parsed by pyarrow when it holds no quote, comment
    or blank line (so its rows are its physical lines); a block pyarrow
    cannot read to the end (a bad value, a ragged row), and every block
    without pyarrow, is read by :func:`_parse_rows`, which names the line of
    the first problem.
    """
    blocks = iter(_Blocks(stream, path, options.encoding or "utf-8", decompression_errors,
                          compressed, live))
    try:
        text, number = "", None
        for text, first, _ in blocks:
            number = next((number for number, _ in _numbered_rows(text, first)), None)
            if number is not None:
                break
        if number is None:
            raise InputError(f"{path}: the file is empty (no header row)")
        lines = text.split("\n")
        header_line = lines[number - first]
        wanted = (options.label_col, options.score_col)
        try:
            delimiter = options.delimiter or _choose_delimiter(header_line, wanted)
            header = [name.strip() for name in next(csv.reader([header_line],
                                                               delimiter=delimiter))]
        except csv.Error as error:
            raise InputError(f"{path}:{number}: the header row: {error}") from None
        indices = _header_indices(header, number, path, options)
        parser = _BlockParser(path, options, delimiter, header, indices)
        yield None
        rest = "\n".join(lines[number - first + 1:])
        after_header = (rest, number + 1, rest.count("\n"))
        # Chunks across blocks (a live input's rows handed out at the end of each block):
        # a problem stops the run at the chunk it is in.
        pending = _Pending(options)
        for text, first, n_lines in itertools.chain([after_header], blocks):
            for part in parser.parse(text, first, n_lines, pending.room):
                yield from pending.add(part)
            if live:
                yield from pending.flush()
        yield from pending.flush()
    finally:
        stream.close()
        handle.close()


class _Where:
    """``where[k]``: ``path:line`` of the k-th row, for messages."""

    def __init__(self, path, lines):
        self.path, self.lines = path, lines

    def __getitem__(self, index):
        return f"{self.path}:{self.lines[index]}"


class _BlockParser:
    """The rows of blocks of CSV text as :class:`Chunk` s."""

    def __init__(self, path, options, delimiter, header, indices):
        self.path = path
        self.options = options
        self.delimiter = delimiter
        self.header = header
        self.columns = [options.label_col, options.score_col,
                        *(name for name, _ in _extra_columns(options))]
        self.positions = [indices[name] for name in self.columns]
        self.delayed = getattr(options, "delayed", False)
        self.classes = _classes(options, path)
        try:
            import pyarrow
            import pyarrow.csv
        except ImportError:  # pragma: no cover - pyarrow comes with the cli extra
            self.arrow = None
            return
        self.arrow = pyarrow
        names = [f"f{index}" for index in range(len(header))]
        label_position, score_position, *copied = self.positions
        # Each column is read once: scores that are also copied (or the labels) as their
        # text, which the copy holds, then parsed.
        self.score_text = self.delayed or score_position in (label_position, *copied)
        types = {names[position]: pyarrow.string() for position in copied}
        types[names[score_position]] = (pyarrow.string() if self.score_text
                                        else pyarrow.float64())
        # The labels as a dictionary of their few distinct texts, each read once.
        types[names[label_position]] = (pyarrow.string() if self.delayed else
                                        pyarrow.dictionary(pyarrow.int32(), pyarrow.string()))
        read = list(dict.fromkeys(self.positions))
        # The table's column of each of self.columns.
        self.slots = [read.index(position) for position in self.positions]
        self.read = functools.partial(
            pyarrow.csv.read_csv,
            read_options=pyarrow.csv.ReadOptions(column_names=names, use_threads=False,
                                                 block_size=1 << 26),
            parse_options=pyarrow.csv.ParseOptions(delimiter=delimiter),
            convert_options=pyarrow.csv.ConvertOptions(
                column_types=types, include_columns=[names[i] for i in read],
                null_values=[], strings_can_be_null=False,
                decimal_point="," if options.decimal_comma else "."))

    def parse(self, text, first, n_lines, room):
        """The rows of ``text``, ``n_lines`` lines whose first is line ``first`` of the file,
        in chunks;
        on a problem, the chunks before the one of ``room`` rows, then of chunk_size rows,
        that holds it."""
        if not text:
            return
        if self.arrow is not None and "#" not in text and '"' not in text:
            try:
                table = self.read(self.arrow.py_buffer(text.encode("utf-8")))
            except self.arrow.ArrowInvalid:
                table = None
            # pyarrow skips blank lines: a table of fewer rows than lines had one, and the
            # slow path numbers the rows by their lines.
            if table is not None and table.num_rows == n_lines:
                chunk = self._columns(table, np.arange(first, first + table.num_rows))
                if chunk is not None:
                    yield chunk
                    return
        yield from _parse_rows(_numbered_rows(text, first), self, room)

    def _columns(self, table, lines):
        """The chunk of a table pyarrow read, or None for the slow path to name a problem."""
        columns = [table.column(index).chunks for index in self.slots]

        def texts(column):
            return [text for chunk in column for text in chunk.to_pylist()]

        extras = {name: texts(column)
                  for name, column in zip(self.columns[2:], columns[2:], strict=True)}
        if self.delayed:
            return _delayed_chunk(texts(columns[0]), texts(columns[1]), lines, self.path,
                                  self.classes, self.options.decimal_comma, extras)
        if self.score_text:
            try:
                scores = np.concatenate([_values(self._float_scores(chunk), np.float64)
                                         for chunk in columns[1]])
            except self.arrow.ArrowInvalid:
                return None
        else:
            scores = np.concatenate([_values(chunk, np.float64) for chunk in columns[1]])
        if not (np.isfinite(scores).all() and (np.abs(scores) < EXACT_INT_LIMIT).all()):
            return None  # the text of the scores names the problem
        if self.classes is not None:
            labels = self.classes.text(texts(columns[0]), lines)
        else:
            parts = []
            for chunk in columns[0]:
                codes = [_label_code(text) for text in chunk.dictionary.to_pylist()]
                if None in codes:
                    return None
                parts.append(np.array(codes, dtype=np.int8)[_values(chunk.indices, np.int32)])
            labels = np.concatenate(parts)
        return Chunk(labels, scores, lines, extras)


    def _float_scores(self, texts):
        """A chunk of score texts as float64, converted by pyarrow as a score column it
        reads as numbers is (ArrowInvalid where one is not a number: the slow path names
        it)."""
        import pyarrow.compute

        if self.options.decimal_comma:
            # (A decimal point is a number too there, as ``parse_scores`` reads it.)
            texts = pyarrow.compute.replace_substring(texts, ",", ".")
        return pyarrow.compute.cast(texts, self.arrow.float64())


def _values(array, dtype):
    """The values of a pyarrow array without nulls, as numpy's (Array.to_numpy imports
    pandas)."""
    return np.frombuffer(array.buffers()[1], dtype=dtype, count=len(array),
                         offset=array.offset * np.dtype(dtype).itemsize)


def _chunk_rows(options):
    """The rows of the next chunk as ``options.chunk_size`` asks for them now (at least
    one): the one reading of the option."""
    return max(int(options.chunk_size), 1)


class _Pending:
    """Rows read and not yet handed out, handed out in chunks of ``options.chunk_size``.

    The size is read afresh for each chunk, and each chunk is cut before it is
    handed out: the caller may change ``chunk_size`` between chunks (the
    monitor paces its progress bar so), and every row is still handed out
    once, in order.
    """

    def __init__(self, options):
        self.options = options
        self.parts = []
        self.start = 0  # the rows of parts[0] already handed out
        self.held = 0  # the rows of parts not handed out

    @property
    def size(self):
        """The size of the next chunk, as asked for now."""
        return _chunk_rows(self.options)

    @property
    def room(self):
        """The rows the next chunk still lacks (at least one)."""
        return max(self.size - self.held, 1)

    def add(self, part):
        """Keep the rows of ``part``; yield every chunk they complete."""
        if part.labels.shape[0]:
            self.parts.append(part)
            self.held += part.labels.shape[0]
        while self.held >= self.size:
            yield self._take(self.size)

    def flush(self):
        """Yield every row held, in chunks of at most ``chunk_size``."""
        while self.held:
            yield self._take(min(self.held, self.size))

    def _take(self, size):
        if len(self.parts) > 1:
            # Joined once per part added: what is left of the first is under a chunk.
            self.parts = [_joined([_rows(self.parts[0], self.start, None), *self.parts[1:]])]
            self.start = 0
        stop = self.start + size
        chunk = _rows(self.parts[0], self.start, stop)
        self.held -= size
        self.parts, self.start = (self.parts, stop) if self.held else ([], 0)
        return chunk


def _joined(chunks):
    """One chunk of the rows of ``chunks`` in order."""
    if len(chunks) == 1:
        return chunks[0]
    return Chunk(*(np.concatenate([getattr(chunk, field) for chunk in chunks])
                   for field in ("labels", "scores", "lines")),
                 {name: _concatenated([chunk.extras[name] for chunk in chunks])
                  for name in chunks[0].extras})


def _concatenated(parts):
    """The values of an extra column's parts: arrays (npz, parquet) or lists (CSV text)."""
    if isinstance(parts[0], np.ndarray):
        return np.concatenate(parts)
    return [value for part in parts for value in part]


def _rows(chunk, start, stop):
    """The rows ``start:stop`` of a chunk."""
    return Chunk(chunk.labels[start:stop], chunk.scores[start:stop], chunk.lines[start:stop],
                 {name: values[start:stop] for name, values in chunk.extras.items()})


def _parse_rows(numbered, parser, room):
    """The rows of (line number, line) pairs, read with Python's csv module, in chunks of
    ``room`` rows, then of chunk_size rows; each is checked when it is full."""
    path, header, delimiter = parser.path, parser.header, parser.delimiter
    label_index, score_index, *extra = parser.positions
    pairs = list(zip(parser.columns[2:], extra, strict=True))
    number = 0

    def source():
        nonlocal number
        for number, line in numbered:  # noqa: B007 - read by the loop below
            yield line

    def chunk():
        lines = np.array(numbers, dtype=np.int64)
        if parser.delayed:
            return _delayed_chunk(label_texts, score_texts, lines, path, parser.classes,
                                  parser.options.decimal_comma, extras)
        return Chunk(_parse_labels(label_texts, lines, path, parser.classes),
                     parse_scores(score_texts, lines, path, parser.options.decimal_comma),
                     lines, extras)

    def fresh():
        return [], [], [], {name: [] for name in parser.columns[2:]}

    label_texts, score_texts, numbers, extras = fresh()
    try:
        for row in csv.reader(source(), delimiter=delimiter):
            if len(row) != len(header):
                _ragged(row, header, delimiter, f"{path}:{number}")
            if row[label_index].strip() == header[label_index] and [
                    name.strip() for name in row] == header:
                continue  # the header again: a file rotated in under ``tail -F``
            label_texts.append(row[label_index])
            score_texts.append(row[score_index])
            for name, index in pairs:
                extras[name].append(row[index])
            numbers.append(number)
            if len(numbers) >= room:
                yield chunk()
                label_texts, score_texts, numbers, extras = fresh()
                room = _chunk_rows(parser.options)
    except csv.Error as error:
        raise InputError(f"{path}:{number}: {error}") from None
    if numbers:
        yield chunk()


def _delayed_chunk(label_texts, score_texts, numbers, path, classes, decimal_comma, extras):
    """Rows of a stream whose labels arrive late (``--delayed``).

    A row with an empty label is a prediction: its label is -1 and its score
    is read.  A row with a label labels an earlier prediction: its label is
    read (0/1, or by ``--pos-label``) and its score, which may be empty, is
    not (nan).
    """
    predicted = np.array([not text.strip() for text in label_texts], dtype=bool)
    labels = np.full(len(label_texts), -1, dtype=np.int8)
    scores = np.full(len(label_texts), np.nan)
    if not predicted.all():
        labelled = np.flatnonzero(~predicted)
        labels[labelled] = _parse_labels([label_texts[index] for index in labelled],
                                         numbers[labelled], path, classes)
    if predicted.any():
        scores[predicted] = parse_scores([score_texts[index] for index in
                                          np.flatnonzero(predicted)],
                                         numbers[predicted], path, decimal_comma)
    return Chunk(labels, scores, numbers, extras)


def _ragged(row, header, delimiter, where):
    """Refuse a row with fewer or more fields than the header (a field is never dropped)."""
    hint = ""
    if len(row) > len(header) and delimiter == ",":
        hint = ("; a decimal comma (0,75) in a comma-separated file? Quote such values, or "
                "separate the columns with ';' and pass --decimal-comma")
    raise InputError(f"{where}: expected {len(header)} columns, found {len(row)}{hint}")


# ----------------------------------------------------------------------------
# Arrays: npz and parquet


def _classes(options, path):
    """The stream's :class:`PositiveLabel` with --pos-label, else None."""
    value = getattr(options, "pos_label", None)
    return None if value is None else PositiveLabel(value, path)


def _array_labels(labels, path, name, start=0, classes=None):
    if classes is not None:
        return classes.array(labels, name, start)
    if labels.dtype.kind not in "biuf":
        raise InputError(
            f"{path}: {name}: labels must be 0/1, -1/1 or booleans, got values of type "
            f"{labels.dtype}; "
            "for other labels give the label of class 1 with --pos-label"
        )
    is_pos = labels == 1
    bad = np.flatnonzero(~is_pos & (labels != 0) & (labels != -1))
    if bad.size:
        position = int(bad[0])
        raise InputError(
            f"{path}: {name} at position {start + position}: label "
            f"{labels[position].item()!r} is not 0/1 (or -1/1)"
        )
    return is_pos.astype(np.int8)


def _exact_integers(scores, path, name, start, why):
    """Refuse integer scores beyond 2**53 (float64 does not hold them all exactly)."""
    if scores.size and not exact_integers(scores):
        position = int(np.flatnonzero(
            (scores > EXACT_INT_LIMIT) | (scores < -EXACT_INT_LIMIT))[0])
        raise InputError(
            f"{path}: {name} at position {start + position}: score "
            f"{scores[position].item()} is an integer beyond 2**53, which float64 cannot hold "
            f"exactly; {why}"
        )


def _array_scores(scores, path, name, start=0, ranks=False):
    if scores.dtype.kind in "iu" and not ranks:
        _exact_integers(scores, path, name, start,
                        "a stream read in chunks cannot rank them: save the columns as .npz "
                        "(whose integer scores are ranked exactly), or as float64")
    if scores.dtype.kind not in "biuf":
        what = "complex" if scores.dtype.kind == "c" else "not numbers"
        raise InputError(
            f"{path}: {name}: scores must be real numbers; its values are {what} "
            f"(type {scores.dtype})"
        )
    try:
        # Whole arrays: integers beyond 2**53 become their dense ranks (same order and ties).
        values = check_scores(scores, name, allow_empty=True, ranks=ranks)
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None
    bad = np.flatnonzero(~np.isfinite(values))
    if bad.size:
        position = int(bad[0])
        raise InputError(
            f"{path}: {name} at position {start + position}: score "
            f"{values[position].item()!r} is not finite"
        )
    return values


def second_scores(chunk, column, source, decimal_comma):
    """A chunk's second model's scores (``--score2-col``) as float64, or InputError naming
    the row: CSV text parsed as the scores are, an array's column as its scores are."""
    values = chunk.extras[column]
    name = f"column {column!r} (--score2-col)"
    if isinstance(values, np.ndarray):
        start = int(chunk.lines[0]) if len(chunk.lines) else 0
        return _array_scores(values, source.path, name, start)
    try:
        return parse_scores(values, list(chunk.lines), source.path, decimal_comma)
    except InputError as error:
        raise InputError(f"{error} in {name}") from None


_NPZ_ERRORS = (ValueError, OSError, EOFError, KeyError, zipfile.BadZipFile, zlib.error)


def _npz_arrays(handle, path, options):
    try:
        archive = np.load(handle, allow_pickle=False)
    except _NPZ_ERRORS as error:
        raise InputError(f"{path}: not a readable .npz archive: {error}") from None
    arrays = {}
    with archive:
        for name, option in ((options.label_col, "--label-col"),
                             (options.score_col, "--score-col"), *_extra_columns(options)):
            if name not in archive.files:
                raise InputError(
                    f"{path}: no array {name!r} ({option}); the archive holds "
                    f"{', '.join(map(repr, archive.files)) or 'no .npy arrays'}"
                )
            try:
                arrays[name] = archive[name]
            except ValueError as error:
                if "allow_pickle" in str(error):
                    raise InputError(
                        f"{path}: array {name!r} holds Python objects, which are never "
                        "unpickled: save numbers"
                    ) from None
                raise InputError(f"{path}: array {name!r} cannot be read: {error}") from None
            except _NPZ_ERRORS as error:
                raise InputError(f"{path}: array {name!r} cannot be read: {error}") from None
    return arrays


def _csv_only(path, options, kind):
    """Refuse --delayed for an array format (its labels have no empty value)."""
    if getattr(options, "delayed", False):
        raise InputError(f"{path}: --delayed reads a CSV stream (an empty label is a "
                         f"prediction); this is {kind}")


def _npz_rows(path, options):
    _csv_only(path, options, "an .npz archive")
    # The archive is read whole (np.load cannot read an .npy member in parts).
    with open(path, "rb") as handle:
        arrays = _npz_arrays(handle, path, options)
    labels, scores = arrays[options.label_col], arrays[options.score_col]
    for name, array in arrays.items():
        if array.ndim != 1:
            raise InputError(f"{path}: array {name!r} must be 1-d, got shape {array.shape}")
        if array.shape != labels.shape:
            raise InputError(
                f"{path}: arrays {options.label_col!r} and {name!r} have different "
                f"lengths: {labels.shape[0]} and {array.shape[0]}"
            )
    labels = _array_labels(labels, path, f"array {options.label_col!r}",
                           classes=_classes(options, path))
    name = f"array {options.score_col!r}"
    # As the structures read them: ranks keep the order only; a metric of the scores'
    # values reads them as float64 (extended floats rounded, integers beyond 2**53 refused).
    reading = value_metrics(name for name in getattr(options, "metrics", None) or ()
                            if name in METRICS)
    if reading and scores.dtype.kind in "iu":
        _exact_integers(scores, path, name, 0, f"--metrics {reading[0]} reads the scores' "
                        "values, not only their order (which npz integers are ranked by)")
    scores = _array_scores(scores, path, name, ranks=not reading)
    yield None
    pending = _Pending(options)
    yield from pending.add(Chunk(labels, scores, np.arange(labels.shape[0]),
                                 {name: arrays[name] for name, _ in _extra_columns(options)}))
    yield from pending.flush()


def _parquet_rows(path, options):
    _csv_only(path, options, "a parquet file")
    try:
        import pyarrow
        import pyarrow.parquet as parquet
    except ImportError:
        raise InputError(f"{path}: reading parquet needs pyarrow (pip install pyarrow)") from None
    errors = (pyarrow.ArrowException, OSError, ValueError)
    try:
        reader = parquet.ParquetFile(path)
        schema = reader.schema_arrow
    except errors as error:
        raise InputError(f"{path}: not a readable parquet file: {error}") from None
    with reader:
        for name, option in ((options.label_col, "--label-col"),
                             (options.score_col, "--score-col"), *_extra_columns(options)):
            if name not in schema.names:
                raise InputError(
                    f"{path}: no column {name!r} ({option}); columns are: "
                    f"{', '.join(map(repr, schema.names))}"
                )
        classes = _classes(options, path)
        for name, role in ((options.label_col, "labels"), (options.score_col, "scores")):
            kind = schema.field(name).type
            # A dictionary-encoded column (a pandas categorical) holds values of its
            # dictionary's type; it is decoded as it is read.
            stored = kind.value_type if pyarrow.types.is_dictionary(kind) else kind
            text = _arrow_text(pyarrow, stored)
            if not (pyarrow.types.is_integer(stored) or pyarrow.types.is_floating(stored)
                    or pyarrow.types.is_boolean(stored)
                    or (role == "scores" and pyarrow.types.is_decimal(stored))
                    or (role == "labels" and classes is not None and text)):
                hint = ("; for text labels give the label of class 1 with --pos-label"
                        if role == "labels" and text else "")
                raise InputError(
                    f"{path}: column {name!r} holds {kind} values; {role} must be "
                    f"numbers{hint}"
                )
        # Batches of the chunk size asked for at the start, cut into chunks of the size
        # asked for at each chunk.
        batch_size = _chunk_rows(options)
        yield None
        start = 0
        pending = _Pending(options)
        extra = [name for name, _ in _extra_columns(options)]
        batches = reader.iter_batches(batch_size=batch_size,
                                      columns=list(dict.fromkeys(
                                          [options.label_col, options.score_col, *extra])))
        while True:
            try:
                batch = next(batches, None)
            except errors as error:
                raise InputError(f"{path}: corrupt parquet data after row {start}: {error}") \
                    from None
            if batch is None:
                yield from pending.flush()
                return
            columns = []
            for name in (options.label_col, options.score_col):
                column = _decoded(pyarrow, batch.column(name))
                if column.null_count:
                    position = start + column.is_null().index(True).as_py()
                    raise InputError(f"{path}: column {name!r} at position {position}: "
                                     "the value is missing (null)")
                if pyarrow.types.is_decimal(column.type):
                    # Decimal scores are rounded to float64, as a CSV's decimal text is.
                    column = column.cast(pyarrow.float64())
                columns.append(column.to_numpy(zero_copy_only=False))
            extras = {}
            for name in extra:
                column = _decoded(pyarrow, batch.column(name))
                if column.null_count:
                    position = start + column.is_null().index(True).as_py()
                    raise InputError(f"{path}: column {name!r} at position {position}: "
                                     "the value is missing (null)")
                extras[name] = column.to_numpy(zero_copy_only=False)
            yield from pending.add(Chunk(
                _array_labels(columns[0], path, f"column {options.label_col!r}", start,
                              classes),
                _array_scores(columns[1], path, f"column {options.score_col!r}", start),
                np.arange(start, start + batch.num_rows), extras))
            start += batch.num_rows


def _arrow_text(pyarrow, kind):
    """Whether an arrow type holds text (strings, large strings, string views)."""
    return (pyarrow.types.is_string(kind) or pyarrow.types.is_large_string(kind)
            or getattr(pyarrow.types, "is_string_view", lambda _: False)(kind))


def _decoded(pyarrow, column):
    """A parquet column's values: a dictionary-encoded column as the values it encodes."""
    return column.dictionary_decode() if pyarrow.types.is_dictionary(column.type) else column


# ----------------------------------------------------------------------------
# The source


class Chunk(NamedTuple):
    """Consecutive rows: labels (int8), scores (float64), where each row is in
    the file (CSV line numbers, or positions in the arrays), and the extra
    columns asked for (name -> the rows' values: text for CSV)."""

    labels: np.ndarray
    scores: np.ndarray
    lines: np.ndarray
    extras: dict


class Source:
    """An input file whose format and header are checked; ``chunks()`` reads its rows.

    ``position`` and ``size`` measure the progress in bytes of the file (None
    when unknown: a stream).  ``live``: the input may never end (standard
    input, a FIFO); its rows are handed out as soon as they are read.
    """

    def __init__(self, path, rows, counter=None, live=False, kind="text"):
        self.path = path
        self._rows = rows
        self._counter = counter
        self.live = live
        self.kind = kind
        self.size = None
        if not live:
            try:
                self.size = Path(path).stat().st_size or None
            except OSError:
                self.size = None

    @property
    def position(self):
        return None if self._counter is None or self.size is None else self._counter.position

    def where(self, line):
        """Where a row of a chunk is, for messages: ``path:line`` or ``path: position k``."""
        if self.kind == "text":
            return f"{self.path}:{line}"
        return f"{self.path}: row at position {line}"

    def chunks(self):
        """Yield the stream in file order as :class:`Chunk` s."""
        yield from self._rows

    def close(self):
        self._rows.close()


STDIN = "-"
STDIN_NAME = "<stdin>"


def _open_raw(path):
    """The file (or standard input for ``-``) unbuffered, and whether it is a regular file."""
    if str(path) == STDIN:
        try:
            handle = open(sys.stdin.fileno(), "rb", buffering=0, closefd=False)
        except (OSError, ValueError, AttributeError):
            raise InputError("standard input cannot be read (it is closed)") from None
        return handle, stat.S_ISREG(os.fstat(handle.fileno()).st_mode)
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path}: is a directory; give a file")
    try:
        handle = open(path, "rb", buffering=0)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot be read: {error.strerror or error}") from None
    return handle, stat.S_ISREG(os.fstat(handle.fileno()).st_mode)


def open_source(path, options):
    """Open ``path``, recognise its format and check its header or arrays.

    ``path`` ``-`` is standard input.  ``options`` carries ``label_col``,
    ``score_col``, ``chunk_size``, ``encoding``, ``delimiter``,
    ``decimal_comma`` and ``extra_columns`` ((name, option) of other columns
    to read).  Standard input and FIFOs are read as their rows come (a file
    that grows is read so by ``tail -n +1 -F FILE | hmeasure-stream -``).
    Raises :class:`InputError` for anything wrong found so far; later rows
    are checked as they are read.
    """
    handle, regular = _open_raw(path)
    shown = STDIN_NAME if str(path) == STDIN else Path(path)
    live = not regular
    try:
        prefix = _read_prefix(handle, 8)
        if not prefix:
            raise InputError(f"{shown}: the file is empty" if regular else
                             f"{shown}: the stream ended before any data")
        kind = _sniff(prefix)
        suffix = "" if str(path) == STDIN else Path(path).suffix.lower()
        promised = {".npz": "npz", ".parquet": "parquet"}.get(suffix)
        if suffix == ".npy" and kind != "refused":
            raise InputError(f"{shown}: not a .npy array (its first bytes are {prefix!r})")
        if kind == "refused":
            raise InputError(f"{shown}: {_refusal(prefix)}")
        if suffix in (".xlsx", ".xlsm", ".ods"):
            raise InputError(f"{shown}: a spreadsheet workbook: save it as CSV")
        if promised is not None and kind != promised:
            described = {"text": "text", "npz": "a zip archive",
                         "parquet": "a parquet file"}.get(kind, f"{kind}-compressed")
            raise InputError(
                f"{shown}: named {suffix} but it is {described} (its first bytes are {prefix!r})"
            )
        if kind in ("npz", "parquet"):
            if not regular or str(path) == STDIN:
                raise InputError(f"{shown}: {kind} data can only be read from a file given "
                                 "by its path (it is read by seeking)")
            handle.close()
            reader = _npz_rows if kind == "npz" else _parquet_rows
            rows = reader(Path(path), options)
            next(rows)
            return Source(shown, rows, kind=kind)
        counter = _CountingReader(prefix, handle)
        stream = io.BufferedReader(counter, _BLOCK)
        compressed, errors = None, ()
        if kind in _COMPRESSIONS:
            _, opener, errors = _COMPRESSIONS[kind]
            compressed = kind
            stream = opener(stream, "rb")
            try:
                inner = stream.peek(8)[:8]
            except (EOFError, OSError, *errors) as error:
                raise InputError(f"{shown}: corrupt {kind} data: {error}") from None
            if _sniff(inner) != "text":
                raise InputError(
                    f"{shown}: {kind}-compressed binary data (its first bytes are {inner!r}): "
                    "only text is read compressed; decompress .npz or parquet files first"
                )
        rows = _csv_rows(stream, shown, options, compressed, errors, handle, live)
        next(rows)
        return Source(shown, rows, counter, live=live)
    except BaseException:
        handle.close()
        raise
