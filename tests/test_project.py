"""The project's own promises: docs build, linters pass, README and CI agree."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(command, **kwargs):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, **kwargs)


@pytest.mark.slow
def test_docs_build_without_warnings(tmp_path):
    result = run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(tmp_path / "doctrees"), "docs", str(tmp_path / "html")],
        timeout=600,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "html" / "generated" / "hmeasure_stream.h_measure.html").exists()


def test_ruff_passes():
    result = run([sys.executable, "-m", "ruff", "check", "."], timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


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
