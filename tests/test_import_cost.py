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
    "import hmeasure_stream",
    "import hmeasure_stream.cli",
    # numpy.ma too: the input checks look for masked arrays without loading it.
    "import hmeasure_stream as hs; hs.SlidingWindow(3).update([0, 1, 1, 0], [.1, .4, .3, .2])",
])
def test_import_loads_no_deferred_module(statement):
    loaded = fresh(LOADED.format(statement=statement))
    assert "numpy" in loaded  # (the listing sees the imports)
    assert [name for name in DEFERRED if name in loaded] == []


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
    assert "numpy" in loaded or argv == ["--version"]
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
