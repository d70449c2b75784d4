"""Importing the package loads no heavy optional or deferred module.

scipy.special and scipy.optimize (with scipy.spatial) are most of a second of
start-up; they load on first use: the incomplete beta functions for H with
non-integer Beta shapes, the normal quantiles of confidence intervals, the
tests' p-values, the crisp VUS.  Each test runs in a fresh interpreter.
"""

import json
import subprocess
import sys

import numpy as np
import pytest

import hmeasure_stream
from tests.reference_impl import h_by_integration, placements_exact

DEFERRED = ("scipy", "pandas", "pyarrow", "matplotlib", "dask", "river", "sklearn", "polars",
            "numpy.ma")


def fresh(code):
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


LOADED = """
import json, sys
{statement}
print(json.dumps(sorted({{name.partition(".")[0] for name in sys.modules}} | {{"numpy.ma"}}
                  & set(sys.modules))))
"""


@pytest.mark.parametrize("statement", [
    "import hmeasure_stream as hs; hs.auc",
    # numpy.ma too: the input checks look for masked arrays without loading it.
    "import hmeasure_stream as hs; hs.SlidingWindow(3).update([0, 1, 1, 0], [.1, .4, .3, .2])",
])
def test_import_loads_no_deferred_module(statement):
    loaded = fresh(LOADED.format(statement=statement))
    assert "numpy" in loaded  # (the listing sees the imports)
    assert [name for name in DEFERRED if name in loaded] == []


@pytest.mark.parametrize("statement", ["import hmeasure_stream", "import hmeasure_stream.cli",
                                       "from hmeasure_stream import __version__"])
def test_the_package_imports_its_names_on_first_use(statement):
    # The package alone, or the command line's entry point: no numpy yet.
    loaded = fresh(LOADED.format(statement=statement))
    assert "hmeasure_stream" in loaded and "numpy" not in loaded


NAMES = """
import importlib, json
import hmeasure_stream as hs
listed = sorted(dir(hs))
found = {}
for name in hs.__all__:
    value = getattr(hs, name)
    home = getattr(value, "__module__", None)  # (a class's, a function's)
    found[name] = home if getattr(importlib.import_module(home or "builtins"), name,
                                  None) is value else None
from hmeasure_stream import metric_table
constants = [hs.METRICS is metric_table.METRICS,
             hs.WINDOW_METRICS is metric_table.WINDOW_METRICS]
try:
    hs.no_such_name
    missing = None
except AttributeError as error:
    missing = str(error)
print(json.dumps([listed, found, constants, missing,
                  sorted(set(vars(hs)) & set(hs.__all__))]))
"""


def test_every_public_name_is_its_module_s_object():
    listed, found, constants, missing, bound = fresh(NAMES)
    names = sorted(hmeasure_stream.__all__)
    assert set(names) <= set(listed)
    # Each class and function is the object of the module that defines it; the table's
    # constants are the table's.
    assert sorted(name for name, home in found.items() if home is None) == [
        "METRICS", "WINDOW_METRICS", "__version__"]
    # (the warnings say they are hmeasure_stream's: their module is the package)
    assert {home.partition(".")[0] for home in found.values() if home} == {"hmeasure_stream"}
    assert constants == [True, True]
    assert missing == "module 'hmeasure_stream' has no attribute 'no_such_name'"
    assert bound == names  # (each looked up once, then found without __getattr__)


CLI = """
import io, json, sys
from hmeasure_stream.cli import main
try:
    code = main({argv!r}, stdout=io.StringIO())
except SystemExit as done:  # --version
    code = done.code
print(json.dumps([code, sorted({{name.partition(".")[0] for name in sys.modules}})]))
"""


@pytest.mark.parametrize(("argv", "used"), [
    (["--version"], ()),
    # pyarrow reads the CSV (its CSV reader, in blocks of whole lines); nothing else deferred.
    (["{path}", "--window", "50", "--metrics", "auc,h", "--no-progress"], ("pyarrow",)),
    (["{path}", "--window", "50", "--every", "7", "--alert", "auc<0.3", "--no-progress"],
     ("pyarrow",)),
])
def test_the_command_line_loads_only_what_its_run_uses(tmp_path, argv, used):
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 300)
    path = tmp_path / "rows.csv"
    path.write_text("label,score\n" + "".join(f"{label},{score!r}\n" for label, score in
                                              zip(y.tolist(), (rng.random(300) + y).tolist(), strict=True)))
    code, loaded = fresh(CLI.format(argv=[arg.format(path=path) for arg in argv]))
    assert code == 0
    # --version alone: argparse's answer without the monitor, its options or numpy.
    assert ("numpy" in loaded) == (argv != ["--version"])
    assert [name for name in DEFERRED if name in loaded and name not in used] == []
    assert "tqdm" not in loaded  # (standard error is no terminal)


FIRST_USE = """
import json, sys
import numpy as np
import hmeasure_stream as hs
rng = np.random.default_rng(3)
y = rng.integers(0, 2, 300)
s = np.round(rng.normal(size=300) + y, 1)
before = "scipy.special" in sys.modules
h = hs.DynamicH(alpha=2.5, beta=0.7)
h.add_many(y, s)
structure = h.h                   # the incomplete beta, first used in a compiled loop
interval = hs.auc_ci(y, s)        # the normal quantiles, first used
print(json.dumps([before, "scipy.special" in sys.modules, structure, [*interval, interval.estimate]]))
"""


def test_deferred_scipy_loads_on_first_use_with_the_same_values():
    before, after, structure, interval = fresh(FIRST_USE)
    assert before is False and after is True
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300) + y, 1)
    assert structure == pytest.approx(h_by_integration(y, s, 2.5, 0.7), abs=1e-9)
    # DeLong's interval by its definition: the AUC -+ z(0.975) sqrt(var(V10)/m + var(V01)/n).
    from scipy import stats

    v10, v01, area = placements_exact(y.tolist(), s.tolist())
    variance = (np.var([float(v) for v, _ in v10], ddof=1) / len(v10)
                + np.var([float(v) for v, _ in v01], ddof=1) / len(v01))
    half_width = stats.norm.ppf(0.975) * np.sqrt(variance)
    assert interval == pytest.approx([float(area) - half_width, float(area) + half_width,
                                      float(area)], abs=1e-12)
