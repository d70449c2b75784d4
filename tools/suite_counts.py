"""How much the test suite checks: tests, assertions and Hypothesis examples.

Usage::

    python tools/suite_counts.py [--run] [--json FILE] [PYTEST_ARGS ...]

Without ``--run`` nothing is run: pytest collects (``--collect-only``, so no
build is needed beyond an importable package) and the script prints

* the tests collected, and those of them that are Hypothesis tests;
* the Hypothesis budget: the sum over those tests of ``max_examples`` (the
  settings each test runs with, the profile of ``tests/conftest.py`` included)
  and, for the state machines, of ``max_examples * stateful_step_count`` (the
  most steps they may take);
* the ``assert`` statements written in the test files (counted in their source).

With ``--run`` the tests are run too (in this process: pass ``-n 0`` when the
configuration asks for xdist) and the script adds what was executed:

* the passing ``assert`` statements executed in the test modules and in the
  helper modules next to them (pytest's ``pytest_assertion_pass`` hook);
* the Hypothesis examples executed (test cases reported by Hypothesis's
  observability callbacks: those generated, replayed and shrunk).

``--json FILE`` writes the counts per test file, to compare two checkouts file by
file.  The other arguments go to pytest, e.g. ``python tools/suite_counts.py
tests/api/test_fuzz.py`` or, from another checkout, ``python
/work/main/tools/suite_counts.py --rootdir . tests``.
"""

import ast
import json
import os
import sys
from collections import Counter
from pathlib import Path

import pytest


def _hypothesis_budget(item):
    """(max_examples, most steps) of a Hypothesis test, or None for another test."""
    function = getattr(item, "obj", None)
    if not getattr(function, "is_hypothesis_test", False):
        return None
    from hypothesis import settings as Settings

    machine = getattr(function, "_hypothesis_state_machine_class", None)
    if machine is not None:  # a RuleBasedStateMachine's TestCase
        chosen = getattr(item.cls, "settings", None) or Settings()
        return chosen.max_examples, chosen.max_examples * chosen.stateful_step_count
    chosen = getattr(function, "_hypothesis_internal_use_settings", None) or Settings()
    return chosen.max_examples, 0


def _asserts_in(path):
    try:
        tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return 0
    return sum(isinstance(node, ast.Assert) for node in ast.walk(tree))


class Counts:
    """A pytest plugin counting per test file."""

    def __init__(self, run):
        self.run = run
        self.per_file = {}
        self.helper_asserts = 0
        self.examples = Counter()
        self.asserts_run = Counter()
        self._current = None

    def _file(self, path):
        return self.per_file.setdefault(str(path), Counter())

    @pytest.hookimpl(tryfirst=True)
    def pytest_configure(self, config):
        if not self.run:
            return
        # The helper modules next to the tests (machines.py, reference_impl.py, ...)
        # are rewritten too, so that their asserts are counted when they pass.
        tests = Path(str(config.rootpath)) / "tests"
        helpers = [p.stem for p in tests.rglob("*.py")
                   if not p.name.startswith(("test_", "conftest"))]
        pytest.register_assert_rewrite(*helpers)
        from hypothesis.internal import observability

        # Coverage per example is not wanted here (and slow before Python 3.12).
        observability.OBSERVABILITY_COLLECT_COVERAGE = False
        observability.add_observability_callback(self._observed, all_threads=True)

    def pytest_collection_finish(self, session):
        for item in session.items:
            counts = self._file(item.path)
            counts["tests"] += 1
            budget = _hypothesis_budget(item)
            if budget is not None:
                counts["hypothesis_tests"] += 1
                counts["example_budget"] += budget[0]
                counts["stateful_step_budget"] += budget[1]
        for name in self.per_file:
            self.per_file[name]["assert_statements"] = _asserts_in(name)
        root = Path(str(session.config.rootpath)) / "tests"
        self.helper_asserts = sum(_asserts_in(p) for p in root.rglob("*.py")
                                  if not p.name.startswith("test_"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._current = str(item.path)
        try:
            return (yield)
        finally:
            self._current = None

    def pytest_assertion_pass(self, item, lineno, orig, expl):
        self.asserts_run[str(item.path)] += 1

    def _observed(self, observation, thread_id=None):
        if getattr(observation, "type", None) == "test_case" and self._current:
            self.examples[self._current] += 1

    def totals(self):
        total = Counter()
        for counts in self.per_file.values():
            total.update(counts)
        total["assert_statements_in_helpers"] = self.helper_asserts
        if self.run:
            total["asserts_executed"] = sum(self.asserts_run.values())
            total["hypothesis_examples_executed"] = sum(self.examples.values())
        return total

    def table(self):
        rows = {}
        for name, counts in sorted(self.per_file.items()):
            row = dict(counts)
            if self.run:
                row["asserts_executed"] = self.asserts_run[name]
                row["hypothesis_examples_executed"] = self.examples[name]
            rows[name] = row
        return rows


def main(argv):
    run = "--run" in argv
    argv = [a for a in argv if a != "--run"]
    out = None
    if "--json" in argv:
        at = argv.index("--json")
        out = argv[at + 1]
        del argv[at:at + 2]
    # As ``python -m pytest`` does: the working directory is importable (tests import
    # ``tests.reference_impl``).
    sys.path.insert(0, os.getcwd())
    counts = Counts(run)
    args = ["-p", "no:cacheprovider", *argv]
    if run:
        args = ["-o", "enable_assertion_pass_hook=true", "-q", *args]
    else:
        args = ["--collect-only", "-q", *args]
    status = pytest.main(args, plugins=[counts])
    total = counts.totals()
    print()
    for key in ("tests", "hypothesis_tests", "example_budget", "stateful_step_budget",
                "assert_statements", "assert_statements_in_helpers", "asserts_executed",
                "hypothesis_examples_executed"):
        if key in total or key == "tests":
            print(f"{key:32} {total[key]}")
    if out:
        Path(out).write_text(json.dumps({"totals": dict(total), "files": counts.table()},
                                        indent=1, sort_keys=True) + "\n")
    return int(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
