"""Regenerate tests/data/proc_best_weights.json: pROC's best thresholds with weights.

On the datasets of tests/data/proc_coords.json (their inputs are read from it),
R pROC computes ``coords(roc, "best", best.method=..., best.weights=c(cost,
prevalence), ret=...)`` for both methods ("youden", "closest.topleft") and each
pair of weights of ``WEIGHTS``, with ``roc(y, s, levels=c(0, 1), direction="<")``.
pROC's columns ``youden`` and ``closest.topleft`` are its weighted criteria
(sensitivity + r specificity and (1 - sensitivity)^2 + r (1 - specificity)^2,
r = (1 - prevalence) / (cost prevalence)), stored as pROC gives them.

The outputs are stored with R's and pROC's versions, so the tests need neither R
nor this script.  Requires R with pROC and jsonlite (Debian: ``apt-get install
r-base-core r-cran-proc r-cran-jsonlite``).  Run:
python tools/make_proc_best_weights_reference.py
"""

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_proc_coords_reference import OUT as COORDS
from make_proc_coords_reference import run_r

OUT = COORDS.parent / "proc_best_weights.json"
RET = ("threshold", "specificity", "sensitivity", "tp", "fp", "youden", "closest.topleft")
# (cost of a false negative relative to a false positive, prevalence of class 1)
WEIGHTS = ((1.0, 0.5), (2.0, 0.5), (0.5, 0.5), (1.0, 0.1), (1.0, 0.9), (3.0, 0.2), (0.7, 0.35))
METHODS = ("youden", "closest.topleft")

R_SCRIPT = r"""
suppressPackageStartupMessages({library(pROC); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
input <- fromJSON(args[1], simplifyVector = TRUE)
frame <- function(x) lapply(as.list(as.data.frame(x)[input$ret]), as.numeric)
result <- list(r_version = paste(R.version$major, R.version$minor, sep = "."),
               proc_version = as.character(packageVersion("pROC")), datasets = list())
for (name in names(input$datasets)) {
  d <- input$datasets[[name]]
  r <- roc(d$y, d$s1, levels = c(0, 1), direction = "<", quiet = TRUE)
  calls <- list()
  for (k in seq_len(nrow(input$weights))) {
    for (method in input$methods) {
      w <- as.numeric(input$weights[k, ])
      calls[[length(calls) + 1]] <- list(
        method = method, weights = w,
        coords = frame(coords(r, "best", best.method = method, best.weights = w,
                              ret = input$ret, transpose = FALSE)))
    }
  }
  result$datasets[[name]] <- calls
}
exact <- function(x) sprintf("%.17g", x)
result <- rapply(result, exact, classes = c("numeric", "integer"), how = "replace")
writeLines(toJSON(result, auto_unbox = TRUE), args[2])
"""


def main():
    stored = json.loads(COORDS.read_text())
    inputs = {name: {"y": data["input"]["y"], "s1": data["input"]["s1"]}
              for name, data in stored["datasets"].items()}
    payload = {"ret": list(RET), "methods": list(METHODS),
               "weights": [list(w) for w in WEIGHTS], "datasets": inputs}
    output = run_r(R_SCRIPT, payload)
    result = {"r_version": output["r_version"], "proc_version": output["proc_version"],
              "source": COORDS.name, "ret": list(RET), "datasets": output["datasets"]}
    OUT.write_text(json.dumps(result, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: R {result['r_version']}, pROC {result['proc_version']}")


if __name__ == "__main__":
    main()
