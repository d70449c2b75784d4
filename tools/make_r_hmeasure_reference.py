"""Regenerate tests/data/r_hmeasure_report.json: R hmeasure's ``HMeasure(...)$metrics``.

For a few datasets (fixed seeds: heavy ties, continuous scores, imbalance, the
embedded real stream hmeasure_stream/data/default_stream.csv mapped to (0, 1))
R hmeasure 1.0-2 computes ``HMeasure(y, s, threshold=t, level=c(0.9, 0.95),
severity.ratio=SR)`` for R's default severity ratio (NA: pi1 / pi0) and for
SR = 0.5, at thresholds 0.5 and another one: every column of ``$metrics``
(H, Gini, AUC, AUCH, KS, MER, MWL, Spec.SensXX, Sens.SpecXX, ER, Sens,
Spec, Precision, Recall, TPR, FPR, F, Youden, TP, FP, TN, FN).  The
datasets are chosen with AUC > 0.5, where R does not flip the scores.

The inputs are stored with the outputs, so the tests need neither R nor this
script.  Requires R with the hmeasure package (CRAN; offline, ``R CMD INSTALL
-l LIBRARY hmeasure-source-directory``, then pass ``--r-library LIBRARY``).
Run: python tools/make_r_hmeasure_reference.py [--r-library DIR]
"""

import argparse
import csv
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "r_hmeasure_report.json"
STREAM = ROOT / "hmeasure_stream" / "data" / "default_stream.csv"
LEVELS = (0.9, 0.95)

R_SCRIPT = r"""
suppressPackageStartupMessages(library(hmeasure))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
g <- function(x) sprintf("%.17g", x)
out <- file(file.path(dir, "out.txt"), "w")
emit <- function(...) writeLines(paste(..., sep = " "), out)
emit("r_version", R.version$major, R.version$minor)
emit("hmeasure_version", as.character(packageVersion("hmeasure")))
names <- readLines(file.path(dir, "names.txt"))
for (name in names) {
  d <- read.csv(file.path(dir, paste0(name, ".csv")))
  for (ratio in c(NA, 0.5)) {
    for (threshold in c(0.5, d$other_threshold[1])) {
      m <- HMeasure(d$y, d$s, threshold = threshold, level = c(0.9, 0.95),
                    severity.ratio = ratio)$metrics
      for (key in colnames(m)) {
        emit(name, ifelse(is.na(ratio), "prior", g(ratio)), g(threshold), key, g(m[1, key]))
      }
    }
  }
}
close(out)
"""


def datasets():
    """name -> (y, s, another threshold) with fixed seeds; every AUC > 0.5."""
    rng = np.random.default_rng(2017)
    result = {}

    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    result["heavy_ties"] = (y, (rng.integers(0, 4, n) + 2 * y) / 8.0, 0.375)

    n = 400
    y = rng.integers(0, 2, n)
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.2 * y)))
    result["continuous"] = (y, np.round(s, 8), 0.7)

    n = 1500
    y = (rng.random(n) < 0.04).astype(int)
    y[:2] = (0, 1)
    s = 1.0 / (1.0 + np.exp(-(rng.normal(size=n) + 1.5 * y - 2.0)))
    result["imbalance"] = (y, np.round(s, 3), 0.2)

    with STREAM.open() as handle:
        rows = list(csv.reader(line for line in handle if not line.startswith("#")))
    y = np.array([int(row[0]) for row in rows[1:]])
    log_odds = np.array([float(row[1]) for row in rows[1:]])
    # Probabilities from the log-odds, rounded (ties), so that 0.5 is a natural threshold.
    s = np.round(1.0 / (1.0 + np.exp(-np.clip(log_odds, -700, 700))), 4)
    result["default_stream"] = (y, s, 0.9)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--r-library", help="R library holding the hmeasure package")
    args = parser.parse_args()
    environment = dict(os.environ)
    if args.r_library:
        environment["R_LIBS"] = args.r_library
    data = datasets()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "names.txt").write_text("\n".join(data) + "\n")
        for name, (y, s, other) in data.items():
            with (tmp / f"{name}.csv").open("w") as handle:
                handle.write("y,s,other_threshold\n")
                for yi, si in zip(y, s, strict=True):
                    handle.write(f"{int(yi)},{float(si)!r},{other!r}\n")
        (tmp / "script.R").write_text(R_SCRIPT)
        subprocess.run(["Rscript", str(tmp / "script.R"), str(tmp)], check=True,
                       env=environment)
        lines = [line.split() for line in (tmp / "out.txt").read_text().splitlines()]

    result = {"levels": list(LEVELS), "datasets": {}}
    for line in lines:
        if line[0] == "r_version":
            result["r_version"] = f"{line[1]}.{line[2]}"
            continue
        if line[0] == "hmeasure_version":
            result["hmeasure_version"] = line[1]
            continue
        name, ratio, threshold, key, value = line
        if name not in result["datasets"]:
            y, s, _ = data[name]
            result["datasets"][name] = {"y": [int(v) for v in y], "s": [float(v) for v in s],
                                        "reports": []}
        reports = result["datasets"][name]["reports"]
        if not reports or (reports[-1]["severity_ratio"], reports[-1]["threshold"]) != (
                ratio, float(threshold)):
            reports.append({"severity_ratio": ratio, "threshold": float(threshold),
                            "metrics": {}})
        reports[-1]["metrics"][key] = None if value == "NA" else float(value)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: R {result['r_version']}, hmeasure {result['hmeasure_version']}")


if __name__ == "__main__":
    main()
