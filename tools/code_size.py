"""Lines of code of the package's classes and functions (Python and Cython).

A line of code is a line that is not blank, not only a comment and not part of a
string literal standing alone as a statement (a docstring).  A class counts every
line of its body (its methods included); a function counts its own lines, those
of functions nested in it included.

Usage::

    python tools/code_size.py [--top N] [PATH ...]

prints the largest classes and functions of the ``.py``, ``.pyx`` and ``.pxd``
files under the paths (default: the package).  The limits the project keeps
(``tests/test_project.py``) are read from :func:`sizes`.
"""

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_HEADER = re.compile(
    r"^(?P<indent>[ ]*)(?:async\s+)?(?:(?:cdef|cpdef)\s+(?:public\s+|readonly\s+)?)?"
    r"(?P<kind>class|def)\b"
    r"|^(?P<cindent>[ ]*)(?:cdef|cpdef)\s+(?!class\b)(?!extern\b)(?!enum\b)(?!struct\b)"
    r"[^=()]*?\b(?P<cname>\w+)\s*\(")
_NAME = re.compile(r"\b(?:class|def)\s+(\w+)")
_STRING_START = re.compile(r"^[ ]*[rRbBuUfF]{0,2}(\"\"\"|''')")


def _code_lines(text):
    """The lines of ``text`` as (number, indent, stripped) for the lines of code."""
    lines = text.splitlines()
    result = []
    inside = None
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if inside is not None:
            if inside in stripped:
                inside = None
            continue
        if not stripped or stripped.startswith("#"):
            continue
        start = _STRING_START.match(line)
        if start:
            quote = start.group(1)
            rest = stripped[stripped.index(quote) + 3:]
            if quote not in rest:
                inside = quote
            continue
        result.append((number, len(line) - len(line.lstrip(" ")), stripped))
        # A triple-quoted string opened within a line of code (an expression's
        # text) continues on the lines below: they are code.
    return result


def sizes(path):
    """(kind, qualified name, first line, lines of code) of each class and function."""
    text = Path(path).read_text()
    lines = _code_lines(text)
    found = []
    stack = []  # (indent, kind, name, first line, index into found)
    for number, indent, stripped in lines:
        while stack and indent <= stack[-1][0]:
            stack.pop()
        for entry in stack:
            found[entry[4]][3] += 1
        header = _HEADER.match(" " * indent + stripped)
        if header is None or (stripped.endswith("nogil") and "(" not in stripped):
            continue
        if header.group("kind"):
            kind = header.group("kind")
            match = _NAME.search(stripped)
            if match is None:
                continue
            name = match.group(1)
        else:
            if not stripped.rstrip().endswith(":") and ")" in stripped \
                    and not stripped.rstrip().endswith((",", "(")):
                # a declaration (``cdef int f(int x)`` in a .pxd), not a definition
                continue
            kind, name = "def", header.group("cname")
        qualified = ".".join([entry[2] for entry in stack] + [name])
        found.append([kind, qualified, number, 1])
        stack.append((indent, kind, name, number, len(found) - 1))
    return [tuple(item) for item in found]


def package_sizes(paths=None):
    """{(file, kind, name): lines of code} of the files under ``paths``."""
    paths = [Path(p) for p in (paths or [ROOT / "hmeasure_stream"])]
    result = {}
    for base in paths:
        files = [base] if base.is_file() else sorted(
            p for suffix in ("*.py", "*.pyx") for p in base.rglob(suffix))
        for file in files:
            relative = file.resolve().relative_to(ROOT) if file.resolve().is_relative_to(ROOT) \
                else file
            for kind, name, _, size in sizes(file):
                result[str(relative), kind, name] = size
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args(argv)
    table = package_sizes(args.paths)
    for kind in ("class", "def"):
        print(f"largest {'classes' if kind == 'class' else 'functions'}:")
        ranked = sorted(((size, file, name) for (file, k, name), size in table.items()
                         if k == kind), reverse=True)
        for size, file, name in ranked[:args.top]:
            print(f"  {size:5d}  {file}:{name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
