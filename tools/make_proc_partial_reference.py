"""Regenerate tests/data/proc_partial_auc.json: partial AUCs computed by R's pROC.

Builds a few datasets with fixed seeds (continuous scores, heavy ties within
and across the classes, a curve below the diagonal, a tiny one whose ranges
fall inside single segments, strong imbalance) plus the stream embedded in the
package (real data), runs pROC on each of them for both foci, several ranges,
with and without the McClish correction, and writes the inputs, the outputs
and the R and pROC versions to one JSON file.  The test suite reads that file
and never needs R.

Requires ``Rscript`` with the packages pROC and jsonlite (Debian:
``apt-get install r-base-core r-cran-proc``).  Run from anywhere:

    python tools/make_proc_partial_reference.py
"""

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "proc_partial_auc.json"
STREAM = ROOT / "hmeasure_stream" / "data" / "default_stream.csv"

RANGES = [
    (0.0, 0.1), (0.0, 0.2), (0.0, 0.5), (0.1, 0.3), (0.25, 0.75),
    (0.5, 1.0), (0.9, 1.0), (0.0, 1.0), (0.3, 0.31), (0.123, 0.456),
]

# For each dataset, focus and range: the plain partial area, the McClish
# correction with allow.invalid.partial.auc.correct=TRUE (the formula always)
# and with pROC's default (NA with a warning below the diagonal).
R_SCRIPT = r"""
suppressPackageStartupMessages({library(pROC); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
input <- fromJSON(args[1], simplifyVector = TRUE)
fmt <- function(x) if (is.na(x)) NA else sprintf("%.17g", x)
cases <- list()
for (name in names(input$datasets)) {
  d <- input$datasets[[name]]
  r <- roc(response = d$y, predictor = d$s, levels = c(0, 1), direction = "<",
           quiet = TRUE)
  full <- as.numeric(auc(r))
  for (k in seq_len(nrow(input$ranges))) {
    lo <- input$ranges[k, 1]
    hi <- input$ranges[k, 2]
    for (focus in c("specificity", "sensitivity")) {
      bounds <- if (focus == "specificity") c(1 - lo, 1 - hi) else c(hi, lo)
      plain <- as.numeric(auc(r, partial.auc = bounds, partial.auc.focus = focus))
      corrected <- as.numeric(auc(r, partial.auc = bounds, partial.auc.focus = focus,
                                  partial.auc.correct = TRUE,
                                  allow.invalid.partial.auc.correct = TRUE))
      default <- suppressWarnings(as.numeric(
        auc(r, partial.auc = bounds, partial.auc.focus = focus,
            partial.auc.correct = TRUE)))
      cases[[length(cases) + 1]] <- list(
        dataset = name, focus = focus, range = c(lo, hi), auc = fmt(full),
        pauc = fmt(plain), pauc_mcclish = fmt(corrected),
        pauc_mcclish_r_default = fmt(default))
    }
  }
}
out <- list(r_version = R.version.string,
            proc_version = as.character(packageVersion("pROC")),
            cases = cases)
writeLines(toJSON(out, auto_unbox = TRUE, na = "null", digits = NA), args[2])
"""


def datasets():
    """Inputs with fixed seeds; scores rounded to short decimals (exact in both languages)."""
    rng = np.random.default_rng(20261121)
    data = {}

    y = rng.integers(0, 2, 40)
    data["continuous"] = (y, np.round(rng.normal(size=40) + 1.2 * y, 6))

    y = rng.integers(0, 2, 60)
    data["ties_five_levels"] = (y, np.clip(rng.integers(0, 4, 60) + y, 0, 4).astype(float))

    y = rng.integers(0, 2, 400)
    data["ties_rounded"] = (y, np.round(rng.normal(size=400) + 0.8 * y, 1))

    y = (rng.random(300) < 0.04).astype(int)
    y[:2] = 1
    data["imbalanced_ties"] = (y, np.round(rng.normal(size=300) + 1.5 * y, 1))

    y = rng.integers(0, 2, 50)
    data["below_diagonal"] = (y, np.round(rng.normal(size=50) - 0.6 * y, 2))

    data["tiny"] = (np.array([0, 1, 0, 1, 0]), np.array([0.2, 0.4, 0.4, 0.9, 0.1]))

    table = np.loadtxt(STREAM, delimiter=",", comments="#", skiprows=3)
    data["default_stream"] = (table[:, 0].astype(int), table[:, 1])
    return {
        name: {"y": [int(v) for v in y], "s": [float(v) for v in s]}
        for name, (y, s) in data.items()
    }


def main():
    inputs = {"datasets": datasets(), "ranges": [list(r) for r in RANGES]}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "input.json").write_text(json.dumps(inputs))
        (tmp / "script.R").write_text(R_SCRIPT)
        subprocess.run(
            ["Rscript", str(tmp / "script.R"), str(tmp / "input.json"), str(tmp / "output.json")],
            check=True,
        )
        output = json.loads((tmp / "output.json").read_text())
    number_keys = ("auc", "pauc", "pauc_mcclish", "pauc_mcclish_r_default")
    cases = [
        {**case, **{key: None if case[key] is None else float(case[key]) for key in number_keys}}
        for case in output["cases"]
    ]
    result = {
        "generated_by": "tools/make_proc_partial_reference.py",
        "r_version": output["r_version"],
        "proc_version": output["proc_version"],
        "call": (
            'roc(response=y, predictor=s, levels=c(0, 1), direction="<"); '
            'auc(roc, partial.auc=bounds, partial.auc.focus=focus[, partial.auc.correct=TRUE'
            "[, allow.invalid.partial.auc.correct=TRUE]]) with bounds = c(1 - lo, 1 - hi) "
            "for focus specificity (range = FPR) and c(hi, lo) for sensitivity (range = TPR)"
        ),
        "datasets": inputs["datasets"],
        "cases": cases,
    }
    OUT.parent.mkdir(exist_ok=True)
    with OUT.open("w") as handle:
        json.dump(result, handle, separators=(",", ":"))
        handle.write("\n")
    print(f"wrote {OUT} ({len(cases)} cases, R {result['r_version']}, "
          f"pROC {result['proc_version']})")


if __name__ == "__main__":
    main()
