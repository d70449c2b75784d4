"""The project's own promises: linters pass, README and CI agree (the docs build:
tests/test_docs_build.py)."""

import ast
import collections
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(command, **kwargs):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, **kwargs)


def test_ruff_passes():
    result = run([sys.executable, "-m", "ruff", "check", "."], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.fixture(scope="module")
def mypy_cache(tmp_path_factory):
    """One mypy cache for the type checks of this module (the package's modules are
    read once)."""
    return tmp_path_factory.mktemp("mypy_cache")


def mypy(cache, *arguments):
    executable = shutil.which("mypy", path=str(Path(sys.executable).parent))
    return run([executable, "--cache-dir", str(cache), *arguments], timeout=600)


def test_mypy_passes(mypy_cache):
    # pyproject.toml's [tool.mypy]: strict but the modules listed as not yet strict.
    result = mypy(mypy_cache)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Success: no issues found" in result.stdout


def test_engine_stubs_match_the_compiled_modules(mypy_cache):
    # stubtest imports each compiled engine and compares it with its .pyi: every
    # name, class and signature (Cython's own module attributes allowlisted).
    stubs = sorted(ROOT.glob("hmeasure_stream/_engines/*.pyi"))
    assert len(stubs) >= 15
    modules = [f"hmeasure_stream._engines.{stub.stem}" for stub in stubs]
    executable = shutil.which("stubtest", path=str(Path(sys.executable).parent))
    result = run([executable, "--mypy-config-file", "pyproject.toml", "--allowlist",
                  "tests/data/stubtest_allowlist.txt", *modules],
                 timeout=600, env={**os.environ, "MYPY_CACHE_DIR": str(mypy_cache)})
    assert result.returncode == 0, result.stdout + result.stderr


# A user's code against the package's types, and three mistakes mypy must refuse.
TYPED_SNIPPET = '''\
"""A user's code against the package's types: tests/test_project.py checks it with mypy."""

import numpy as np

from hmeasure_stream import (
    DynamicAUC,
    DynamicH,
    ROCCurve,
    SlidingWindow,
    auc,
    h_measure,
    roc_curve,
    sliding_window,
)

y_true = np.array([0, 1, 1, 0, 1])
y_score = np.array([0.1, 0.8, 0.6, 0.3, 0.9])

value: float = auc(y_true, y_score)
h: float = h_measure([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.5], severity_ratio=0.5)

dynamic = DynamicAUC(window=100)
dynamic.add(1, 0.7)
dynamic.add_many(y_true, y_score)
current: float = dynamic.auc
total_weight: float = dynamic.weight_pos + dynamic.weight_neg
held: int = len(dynamic)

hull = DynamicH(half_life=50.0)
hull.add_many(y_true, y_score)
h_now: float = hull.h

window = SlidingWindow(200, metrics=("auc", "h"), min_periods=10)
rows = window.update(y_true, y_score)
auc_column = rows["auc"]

curve: ROCCurve = roc_curve(y_true, y_score)
fpr_first: float = float(curve.fpr[0])
thresholds = curve.thresholds

over_array = sliding_window(y_true, y_score, 3, metrics=("auc",))
'''

WRONG_SNIPPET = '''\
"""Mistakes mypy must refuse against the package's types (tests/test_project.py)."""

from hmeasure_stream import DynamicAUC, SlidingWindow, roc_curve

window = SlidingWindow(100, min_periods="10")  # min_periods is an int, not a str
dynamic = DynamicAUC(window=100)
dynamic.add(1, 0.5, weight="heavy")  # a weight is a number
curve = roc_curve([0, 1], [0.2, 0.8])
print(curve.false_positive_rates)  # no such field of ROCCurve
'''


def test_a_user_snippet_type_checks_and_a_wrong_one_is_refused(mypy_cache, tmp_path):
    # Run from the repository root, mypy reads the package's sources, its py.typed
    # and the engines' stubs, as it reads them installed.
    (tmp_path / "good.py").write_text(TYPED_SNIPPET)
    (tmp_path / "wrong.py").write_text(WRONG_SNIPPET)
    good = mypy(mypy_cache, "--strict", "--follow-imports=silent", str(tmp_path / "good.py"))
    assert good.returncode == 0, good.stdout + good.stderr
    wrong = mypy(mypy_cache, "--strict", "--follow-imports=silent", str(tmp_path / "wrong.py"))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    errors = [line for line in wrong.stdout.splitlines() if ": error:" in line]
    refused_lines = sorted({int(line.split(":")[1]) for line in errors})
    # The three mistakes (a str count, a str weight, a field ROCCurve has not), each refused.
    assert refused_lines == [5, 7, 9], wrong.stdout
    assert 'has no attribute "false_positive_rates"' in wrong.stdout


def test_cython_lint_passes():
    sources = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("hmeasure_stream/_engines/*.p[xy][dx]"))
    assert "hmeasure_stream/_engines/_scratch.pyx" in sources
    executable = shutil.which("cython-lint", path=str(Path(sys.executable).parent))
    result = run([executable, *sources], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^\$ (.+)$", section, flags=re.MULTILINE)
    assert commands == ["bash scripts/demo.sh", "bash scripts/test.sh"]
    ci = (ROOT / ".ci" / "run").read_text()
    skipped = ("#", "set ", "cd ")
    run_lines = [line for line in ci.splitlines() if line and not line.startswith(skipped)]
    assert run_lines == ["bash scripts/test.sh"]


def test_readme_opens_with_the_two_commands_saying_what_they_do_and_how_long():
    readme = (ROOT / "README.md").read_text()
    headings = re.findall(r"^## (.+)$", readme, flags=re.MULTILINE)
    assert headings[0] == "Two commands"
    # Before them only the title and the one-line summary; no other command.
    assert len(readme.split("## Two commands", 1)[0].strip().splitlines()) <= 3
    assert re.findall(r"^\$ (.+)$", readme, flags=re.MULTILINE)[:2] == [
        "bash scripts/demo.sh", "bash scripts/test.sh"]
    section = readme.split("## Two commands", 1)[1].split("\n## ", 1)[0]
    for command in ("bash scripts/demo.sh", "bash scripts/test.sh"):
        told = re.search(rf"^- `{re.escape(command)}` (.+?)(?=^- |\Z)", section,
                         flags=re.MULTILINE | re.DOTALL)
        assert told and re.search(r"about\s+\d+\s+minutes\s+on\s+2\s+cores", told.group(1)), command


def test_readme_links_its_docs_pages_and_states_r_default_h_with_h():
    readme = (ROOT / "README.md").read_text()
    pages = re.findall(r"\]\((docs/[\w/]+\.rst)\)", readme)
    assert len(set(pages)) >= 8
    assert [page for page in pages if not (ROOT / page).is_file()] == []
    # The default H and R's, where H is first explained (before the first example).
    offers = readme.split("## What it offers", 1)[1].split("## Example", 1)[0]
    assert "Beta(2, 2)" in offers and 'h_measure(y, s, severity_ratio="prior")' in offers


def test_import_contracts_pass():
    """The layers of pyproject.toml's [tool.importlinter] hold (docs/implementation.rst)."""
    executable = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    # grimp reads the package's source files: the editable install's finder
    # (meson-python) is told to step aside, so the import system finds the
    # source tree (lint-imports puts the working directory first on the path).
    builds = [finder._build_path for finder in sys.meta_path if hasattr(finder, "_build_path")]
    env = {**os.environ, "MESONPY_EDITABLE_SKIP": os.pathsep.join(builds)}
    result = run([executable, "--no-cache"], timeout=300, env=env)
    assert "Analyzed" in result.stdout, result.stdout + result.stderr
    assert result.returncode == 0, result.stdout + result.stderr


# An import of the package in Cython: ``cimport``, ``from ... cimport`` or a
# plain import, at the start of a line.
PYX_IMPORT = re.compile(r"^\s*(?:from|c?import)\s+(hmeasure_stream\b[\w.]*)", re.MULTILINE)


def test_engines_import_nothing_above_them():
    """Rule (a) for the compiled sources, which import-linter does not read."""
    sources = sorted(ROOT.glob("hmeasure_stream/_engines/*.p[xy][dx]"))
    imported = {
        (path.name, module)
        for path in sources for module in PYX_IMPORT.findall(path.read_text())
    }
    assert ("_auc.pyx", "hmeasure_stream._engines._treap") in imported  # the scan sees cimports
    above = sorted((name, module) for name, module in imported
                   if not module.startswith("hmeasure_stream._engines"))
    assert above == []


# The tools of the layers contract (c) in pyproject.toml, above the public layer.
TOOLS = ("__main__", "cli", "dask", "plotting", "river", "moa", "scorers", "_demo", "alerts")


def test_tools_import_no_engine():
    """Rule (b) for the compiled engines, which import-linter does not see (grimp reads
    .py files only): no tool imports ``hmeasure_stream._engines``, even inside a function."""
    paths = [path for name in TOOLS for path in
             ([ROOT / "hmeasure_stream" / f"{name}.py"] if name != "cli"
              else sorted((ROOT / "hmeasure_stream" / "cli").glob("*.py")))]
    assert all(path.is_file() for path in paths) and len(paths) > len(TOOLS)
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            modules = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                       else [alias.name for alias in node.names]
                       if isinstance(node, ast.Import) else [])
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {module}" for module in modules
                      if module.startswith("hmeasure_stream._engines")]
    assert found == []


def _is_private(module):
    return any(part.startswith("_") and part != "__init__" for part in module.split("."))


def test_no_module_imports_a_private_name_of_a_public_sibling():
    """Shared helpers come from hmeasure_stream._core or _validation, never from a sibling."""
    found = []
    for path in sorted((ROOT / "hmeasure_stream").rglob("*.py")):
        importer = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        importer = importer.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith("hmeasure_stream")):
                continue
            if _is_private(node.module) or node.module == importer:
                continue
            names = [alias.name for alias in node.names if alias.name.startswith("_")
                     and not alias.name.startswith("__")]
            if names:
                found.append(f"{importer}:{node.lineno} {node.module} {names}")
    assert found == []


def test_help_of_every_public_class_fits_in_165_lines():
    """help() of a public class reads in one screenful or two: the details live in the docs.

    (Three screenfuls of 55 lines: a structure's help lists some twenty reads and updates,
    a line of summary each, after the class's own docstring.)"""
    import inspect
    import pydoc

    import hmeasure_stream

    classes = {name: getattr(hmeasure_stream, name) for name in hmeasure_stream.__all__
               if inspect.isclass(getattr(hmeasure_stream, name))}
    assert {"DynamicAUC", "DynamicH", "ApproxH", "ApproxAUC", "SlidingWindow"} <= set(classes)
    lengths = {name: len(pydoc.render_doc(cls, renderer=pydoc.plaintext).splitlines())
               for name, cls in classes.items()}
    assert {name: n for name, n in lengths.items() if n > 165} == {}


def test_engine_classes_and_functions_stay_within_their_size():
    """The largest compiled engine class has at most 700 lines of code, and no function of
    the package more than 120 (``tools/code_size.py``: no blank, comment or docstring
    line): a reader goes in a module of its own, not into the order engine."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("code_size", ROOT / "tools" / "code_size.py")
    code_size = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(code_size)
    table = code_size.package_sizes([ROOT / "hmeasure_stream"])
    engines = {name: size for (file, kind, name), size in table.items()
               if kind == "class" and "/_engines/" in file}
    assert "BlockedAUCEngine" in engines and engines["BlockedAUCEngine"] > 300
    assert {name: size for name, size in engines.items() if size > 700} == {}
    functions = {f"{file}:{name}": size for (file, kind, name), size in table.items()
                 if kind == "def"}
    assert functions["hmeasure_stream/_engines/_blocked.pyx:BlockedAUCEngine._update"] > 50
    assert {name: size for name, size in functions.items() if size > 120} == {}


def test_every_test_module_has_a_basename_of_its_own():
    """The test directories are not packages: pytest imports each module by its basename,
    and a second module of the same basename fails the collection of the whole suite."""
    modules = collections.defaultdict(list)
    for path in (ROOT / "tests").rglob("test_*.py"):
        modules[path.name].append(str(path.relative_to(ROOT)))
    assert {name: paths for name, paths in modules.items() if len(paths) > 1} == {}
