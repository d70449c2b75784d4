"""Regenerate tests/data/proc_coords.json: R pROC's operating points and tests.

For each dataset (fixed seeds: ties, continuous scores, heavy imbalance, the
embedded real stream hmeasure_stream/data/default_stream.csv) R pROC computes,
with ``roc(y, s, levels=c(0, 1), direction="<")`` so that it never flips a
curve:

- ``coords(roc, "all", ret=...)`` (up to 500 points): every threshold of the curve with its
  specificity, sensitivity, accuracy, precision, npv, tp, fp, tn, fn and
  youden (pROC's thresholds are midpoints between distinct scores, with
  -Inf and Inf at the ends);
- ``coords`` at given thresholds (scores, midpoints, beyond both ends), at
  given specificities and sensitivities (pROC interpolates between the
  curve's points; the threshold is then NA), and ``x="best"`` with
  ``best.method`` "youden" and "closest.topleft";
- ``roc.test(..., method="delong")``: paired with alternatives "two.sided",
  "less", "greater"; unpaired (two independent samples); ``cov(roc1, roc2,
  method="delong")`` of the paired curves;
- ``ci.auc`` of a partial AUC (stratified bootstrap, fixed seed, a large
  ``boot.n``): the 2.5 %, 50 % and 97.5 % quantiles of the resampled partial
  AUCs (pROC's middle number is their median), for a Monte Carlo comparison.

The inputs are stored with the outputs, so the tests need neither R nor this
script.  Requires R with pROC and jsonlite (Debian: ``apt-get install
r-base-core r-cran-proc r-cran-jsonlite``).  Run:
python tools/make_proc_coords_reference.py
"""

import csv
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "proc_coords.json"
STREAM = ROOT / "hmeasure_stream" / "data" / "default_stream.csv"
BOOT_N = 4000
BOOT_SEED = 20261
RET = ("threshold", "specificity", "sensitivity", "accuracy", "precision", "npv", "tp", "fp",
       "tn", "fn", "youden")
TARGETS = (0.0, 0.1, 0.25, 0.5, 0.8, 0.9, 0.95, 1.0)
PARTIAL = ((0.8, 1.0, "specificity"), (0.9, 1.0, "sensitivity"))

R_SCRIPT = r"""
suppressPackageStartupMessages({library(pROC); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
input <- fromJSON(args[1], simplifyVector = TRUE)
ret <- input$ret
frame <- function(x) {
  # coords' data frame (or matrix, in older pROC) as a list of columns.
  x <- as.data.frame(x)
  lapply(as.list(x[ret]), function(v) as.numeric(v))
}
make <- function(y, s) roc(y, s, levels = c(0, 1), direction = "<", quiet = TRUE)
result <- list(r_version = paste(R.version$major, R.version$minor, sep = "."),
               proc_version = as.character(packageVersion("pROC")), datasets = list())
for (name in names(input$datasets)) {
  d <- input$datasets[[name]]
  r1 <- make(d$y, d$s1)
  r2 <- make(d$y, d$s2)
  entry <- list()
  if (length(d$y) <= 500) {
    entry$all <- frame(coords(r1, "all", ret = ret, transpose = FALSE))
  }
  entry$at_threshold <- frame(coords(r1, d$thresholds, input = "threshold", ret = ret,
                                     transpose = FALSE))
  entry$at_specificity <- frame(coords(r1, input$targets, input = "specificity", ret = ret,
                                       transpose = FALSE))
  entry$at_sensitivity <- frame(coords(r1, input$targets, input = "sensitivity", ret = ret,
                                       transpose = FALSE))
  entry$best_youden <- frame(coords(r1, "best", best.method = "youden", ret = ret,
                                    transpose = FALSE))
  entry$best_topleft <- frame(coords(r1, "best", best.method = "closest.topleft", ret = ret,
                                     transpose = FALSE))
  tests <- list()
  for (alternative in c("two.sided", "less", "greater")) {
    t <- roc.test(r1, r2, method = "delong", paired = TRUE, alternative = alternative)
    tests[[alternative]] <- list(statistic = unname(t$statistic), p_value = t$p.value)
  }
  entry$paired <- tests
  entry$cov <- cov(r1, r2, method = "delong")
  half <- seq_len(length(d$y)) %% 2 == 0
  ra <- make(d$y[half], d$s1[half])
  rb <- make(d$y[!half], d$s2[!half])
  tests <- list()
  for (alternative in c("two.sided", "less", "greater")) {
    t <- roc.test(ra, rb, method = "delong", paired = FALSE, alternative = alternative)
    tests[[alternative]] <- list(statistic = unname(t$statistic), p_value = t$p.value,
                                 auc1 = unname(t$estimate[1]), auc2 = unname(t$estimate[2]))
  }
  entry$unpaired <- tests
  if (d$boot) {
    partial <- list()
    for (k in seq_len(nrow(input$partial))) {
      lo <- as.numeric(input$partial[k, 1]); hi <- as.numeric(input$partial[k, 2])
      focus <- input$partial[k, 3]
      rp <- roc(d$y, d$s1, levels = c(0, 1), direction = "<", quiet = TRUE,
                partial.auc = c(hi, lo), partial.auc.focus = focus,
                partial.auc.correct = FALSE)
      set.seed(input$boot_seed)
      ci <- ci.auc(rp, conf.level = 0.95, method = "bootstrap", boot.n = input$boot_n,
                   boot.stratified = TRUE, progress = "none")
      partial[[k]] <- list(range = c(lo, hi), focus = focus, ci = as.numeric(ci))
    }
    entry$partial_ci <- partial
  }
  result$datasets[[name]] <- entry
}
# Every number as its shortest exact decimal text (jsonlite prints 15 digits).
exact <- function(x) sprintf("%.17g", x)
result <- rapply(result, exact, classes = c("numeric", "integer"), how = "replace")
writeLines(toJSON(result, auto_unbox = TRUE), args[2])
"""


def datasets():
    """name -> (y, s1, s2, bootstrap?) with fixed seeds."""
    rng = np.random.default_rng(31)
    result = {}
    n = 40
    y = rng.integers(0, 2, n)
    result["small_ties"] = (y, rng.integers(0, 5, n) + y, rng.integers(0, 4, n) + 2 * y, True)
    n = 300
    y = rng.integers(0, 2, n)
    s1 = np.round(rng.normal(size=n) + 1.2 * y, 6)
    s2 = np.round(s1 + rng.normal(size=n), 6)
    result["continuous"] = (y, s1, s2, True)
    n = 2000
    y = (rng.random(n) < 0.02).astype(int)
    s1 = np.round(rng.normal(size=n) + 1.5 * y, 1)
    s2 = np.round(0.5 * s1 + rng.normal(size=n), 1)
    result["heavy_imbalance"] = (y, s1, s2, False)
    with STREAM.open() as handle:
        rows = list(csv.reader(line for line in handle if not line.startswith("#")))
    y = np.array([int(row[0]) for row in rows[1:]])
    s1 = np.array([float(row[1]) for row in rows[1:]])
    result["default_stream"] = (y, s1, np.round(s1 / 10.0), False)
    return result


def thresholds_of(scores):
    """Thresholds to ask about: some scores, midpoints between them, beyond both ends."""
    distinct = np.unique(scores)
    picks = distinct[np.linspace(0, distinct.shape[0] - 1, 6).astype(int)]
    middles = (distinct[:-1] + distinct[1:]) / 2
    middles = middles[np.linspace(0, middles.shape[0] - 1, 4).astype(int)]
    return [float(v) for v in (*picks, *middles, distinct[0] - 1, distinct[-1] + 1)]


def from_r(value):
    """R's numbers printed with 17 digits as floats (R's NA as None, Inf as inf); names
    (pROC's focus) stay strings."""
    if isinstance(value, dict):
        return {key: from_r(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_r(item) for item in value]
    if value in ("NA", "NaN"):
        return None
    try:
        return float(value)
    except ValueError:
        return value


def run_r(script, payload):
    """Run the R ``script`` on ``payload`` (written as JSON, the script's first argument;
    the second is where it writes its JSON): what it wrote, numbers as Python reads them."""
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "input.json").write_text(json.dumps(payload))
        (tmp / "script.R").write_text(script)
        subprocess.run(["Rscript", str(tmp / "script.R"), str(tmp / "input.json"),
                        str(tmp / "output.json")], check=True)
        return from_r(json.loads((tmp / "output.json").read_text()))


def main():
    data = datasets()
    payload = {
        "ret": list(RET),
        "targets": list(TARGETS),
        "partial": [list(p) for p in PARTIAL],
        "boot_n": BOOT_N,
        "boot_seed": BOOT_SEED,
        "datasets": {
            name: {"y": [int(v) for v in y], "s1": [float(v) for v in s1],
                   "s2": [float(v) for v in s2], "boot": boot,
                   "thresholds": thresholds_of(s1)}
            for name, (y, s1, s2, boot) in data.items()
        },
    }
    output = run_r(R_SCRIPT, payload)
    result = {"r_version": output["r_version"], "proc_version": output["proc_version"],
              "ret": payload["ret"], "targets": payload["targets"],
              "boot_n": BOOT_N, "boot_seed": BOOT_SEED, "datasets": {}}
    for name, inputs in payload["datasets"].items():
        result["datasets"][name] = {"input": inputs, "proc": output["datasets"][name]}
    OUT.parent.mkdir(exist_ok=True)
    # Infinities as JSON's non-standard literal Infinity (Python's json reads it).
    OUT.write_text(json.dumps(result, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: R {result['r_version']}, pROC {result['proc_version']}")


if __name__ == "__main__":
    main()
