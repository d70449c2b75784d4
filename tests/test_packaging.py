"""The release artefacts: an sdist and a wheel built as a release builds them.

``python -m build`` makes the sdist from the repository and the wheel from
the sdist, so the wheel is proof that the sdist holds everything needed to
build.  The wheel is then installed into a fresh virtual environment (its
dependencies, numpy and scipy, come from this one's site-packages) and used
from outside the source tree: the functions, the compiled engines, the data
file and the command line.

The one build is shared by the tests of this module.  Its C is compiled
without optimisation (``-Doptimization=0``): a release's wheel holds the same
files, and what the tests check is which files the artefacts hold and that
the installed wheel runs, not its speed (the rest of the suite runs the
optimised build of the editable install).  That makes the compiler's part of
the build about four times cheaper.
"""

import os
import re
import subprocess
import sys
import sysconfig
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.slow


def _tracked(*patterns):
    listed = subprocess.run(["git", "ls-files", "-z", *patterns], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    return {name for name in listed.split("\0") if name}


def _project_version():
    """The version, from its one source: the project() of the top-level meson.build."""
    found = re.search(r"project\([^)]*?version:\s*'([^']+)'", (ROOT / "meson.build").read_text(),
                      re.S)
    assert found is not None
    return found.group(1)


@pytest.fixture(scope="module")
def artefacts(tmp_path_factory):
    """(sdist, wheel) built by ``python -m build`` (no isolation: this venv has the tools)."""
    if not (ROOT / ".git").exists():
        pytest.fail("the sdist is made from the git repository: run from a clone")
    out = tmp_path_factory.mktemp("dist")
    # The build tools (meson, ninja, cython) are this environment's, found on PATH.
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    built = subprocess.run([sys.executable, "-m", "build", "--no-isolation",
                            "-Csetup-args=-Doptimization=0", "--outdir", str(out), str(ROOT)],
                           capture_output=True, text=True,
                           env={**os.environ, "PATH": path})
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    sdists, wheels = sorted(out.glob("*.tar.gz")), sorted(out.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, (sdists, wheels)
    return sdists[0], wheels[0]


def test_version_has_one_source(artefacts):
    version = _project_version()
    sdist, wheel = artefacts
    assert sdist.name == f"hmeasure_stream-{version}.tar.gz"
    assert wheel.name.startswith(f"hmeasure_stream-{version}-")
    assert not re.search(r"^version\s*=", (ROOT / "pyproject.toml").read_text(), re.M)
    assert "__version__ =" not in (ROOT / "hmeasure_stream" / "__init__.py").read_text()


def test_sdist_holds_every_tracked_file(artefacts):
    sdist, _ = artefacts
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    missing = _tracked() - names
    assert not missing, sorted(missing)[:20]


def test_wheel_holds_the_modules_and_no_sources(artefacts):
    _, wheel = artefacts
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    modules = _tracked("hmeasure_stream/*.py")
    assert modules - names == set(), sorted(modules - names)
    for source in _tracked("hmeasure_stream/*.pyx"):
        stem = source[:-len(".pyx")]
        assert any(name.startswith(stem + ".") and name.endswith((".so", ".pyd"))
                   for name in names), f"no compiled module for {source}"
    assert "hmeasure_stream/_version.py" in names
    types = _tracked("hmeasure_stream/_engines/*.pyi") | {"hmeasure_stream/py.typed"}
    assert types - names == set(), sorted(types - names)
    assert "hmeasure_stream/data/default_stream.csv" in names
    unneeded = sorted(name for name in names
                      if name.endswith((".pyx", ".pxd", ".c", ".h", ".build", ".in"))
                      or name.startswith(("tests/", "docs/", "asv_benchmarks/", "tools/")))
    assert not unneeded, unneeded[:20]


def test_wheel_installs_and_runs_in_a_fresh_environment(artefacts, tmp_path):
    _, wheel = artefacts
    env = tmp_path / "env"
    # No pip in the fresh environment: this one's pip installs into it (--python).
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
    python = env / "bin" / "python"
    purelib = subprocess.run([str(python), "-c",
                              "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             check=True, capture_output=True, text=True).stdout.strip()
    # numpy and scipy from this environment, appended after the fresh site-packages.
    Path(purelib, "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python),
                    "--disable-pip-version-check", "-q", "install", "--no-deps", "--no-index",
                    str(wheel)], check=True)
    y = [0, 1, 1, 0, 1, 0, 0, 1]
    s = [0.1, 0.4, 0.35, 0.8, 0.9, 0.2, 0.35, 0.6]
    smoke = (
        "import hmeasure_stream as h\n"
        "print(h.__file__)\n"
        "print(h.__version__)\n"
        f"print(repr(h.auc({y}, {s})))\n"
        "t = h.DynamicAUC()\n"
        f"t.add_many({y}, {s})\n"
        "print(repr(t.auc))\n"
        "from hmeasure_stream.datasets import load_default_stream\n"
        "print(len(load_default_stream()[0]))\n"
    )
    lines = subprocess.run([str(python), "-c", smoke], cwd=tmp_path, check=True,
                           capture_output=True, text=True).stdout.splitlines()
    assert lines[0].startswith(purelib), lines[0]
    assert lines[1] == _project_version()
    expected = roc_auc_score(y, s)
    assert float(lines[2]) == expected and float(lines[3]) == expected
    assert int(lines[4]) > 0
    command = env / "bin" / "hmeasure-stream"
    version = subprocess.run([str(command), "--version"], check=True, capture_output=True,
                             text=True).stdout
    assert version.split() == ["hmeasure-stream", _project_version()]
    rows = tmp_path / "rows.csv"
    rows.write_text("label,score\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s, strict=True)))
    written = subprocess.run([str(command), str(rows), "--window", "all"], cwd=tmp_path,
                             check=True, capture_output=True, text=True).stdout.splitlines()
    assert written[0] == "row,auc"
    assert np.isclose(float(written[-1].split(",")[1]), expected, rtol=0, atol=0)
