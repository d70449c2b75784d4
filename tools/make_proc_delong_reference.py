"""Regenerate tests/data/proc_delong.json: R pROC's DeLong and bootstrap values.

For each dataset (fixed seeds: ties, continuous scores, heavy imbalance, a
class of two points, perfect separation, and the embedded real stream
hmeasure_stream/data/default_stream.csv) R pROC computes, with
``roc(y, s, levels=c(0, 1), direction="<")`` so that it never flips a curve:

- ``var(roc, method="delong")`` and ``auc(roc)``;
- ``ci.auc(roc, method="delong")`` at levels 0.9, 0.95, 0.99;
- ``roc.test(roc1, roc2, method="delong", paired=TRUE)``: Z and the p-value;
- for some datasets ``ci.auc(roc, method="bootstrap")`` (stratified) with a
  fixed seed and a large ``boot.n``, for a Monte Carlo comparison;
- and what pROC does when a class has a single point (NA, stored as null).

The inputs are stored with the outputs, so the tests need neither R nor this
script.  Requires R with pROC (Debian: ``apt-get install r-base-core
r-cran-proc``).  Run: python tools/make_proc_delong_reference.py
"""

import csv
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "proc_delong.json"
STREAM = ROOT / "hmeasure_stream" / "data" / "default_stream.csv"
LEVELS = (0.9, 0.95, 0.99)
BOOT_N = 20000
BOOT_SEED = 20260

R_SCRIPT = r"""
suppressPackageStartupMessages(library(pROC))
args <- commandArgs(trailingOnly = TRUE)
dir <- args[1]
boot_n <- as.integer(args[2])
boot_seed <- as.integer(args[3])
levels_ci <- c(0.9, 0.95, 0.99)
g <- function(x) sprintf("%.17g", x)
out <- file(file.path(dir, "out.txt"), "w")
emit <- function(...) writeLines(paste(..., sep = " "), out)
emit("r_version", R.version$major, R.version$minor)
emit("proc_version", as.character(packageVersion("pROC")))
names <- readLines(file.path(dir, "names.txt"))
for (name in names) {
  d <- read.csv(file.path(dir, paste0(name, ".csv")))
  boot <- d$boot[1] == 1
  r1 <- roc(d$y, d$s1, levels = c(0, 1), direction = "<", quiet = TRUE)
  r2 <- roc(d$y, d$s2, levels = c(0, 1), direction = "<", quiet = TRUE)
  emit(name, "auc1", g(as.numeric(auc(r1))))
  emit(name, "auc2", g(as.numeric(auc(r2))))
  emit(name, "var1", g(var(r1, method = "delong")))
  emit(name, "var2", g(var(r2, method = "delong")))
  for (level in levels_ci) {
    ci <- ci.auc(r1, conf.level = level, method = "delong")
    emit(name, "ci1", level, g(ci[1]), g(ci[2]), g(ci[3]))
    ci <- ci.auc(r2, conf.level = level, method = "delong")
    emit(name, "ci2", level, g(ci[1]), g(ci[2]), g(ci[3]))
  }
  t <- roc.test(r1, r2, method = "delong", paired = TRUE)
  emit(name, "test", g(t$statistic), g(t$p.value), g(t$estimate[1]), g(t$estimate[2]))
  if (boot) {
    set.seed(boot_seed)
    ci <- ci.auc(r1, conf.level = 0.95, method = "bootstrap", boot.n = boot_n,
                 boot.stratified = TRUE, progress = "none")
    emit(name, "boot1", 0.95, g(ci[1]), g(ci[2]), g(ci[3]))
  }
}
# A class with a single point.
y <- c(0, 0, 0, 1, 0)
s <- c(0.1, 0.5, 0.3, 0.4, 0.2)
r <- roc(y, s, levels = c(0, 1), direction = "<", quiet = TRUE)
emit("single_case", "var", g(var(r, method = "delong")))
ci <- ci.auc(r, method = "delong")
emit("single_case", "ci", g(ci[1]), g(ci[2]), g(ci[3]))
close(out)
"""


def datasets():
    """name -> (y, s1, s2, bootstrap?) with fixed seeds."""
    rng = np.random.default_rng(17)
    result = {}

    n = 40
    y = rng.integers(0, 2, n)
    result["small_ties"] = (
        y, rng.integers(0, 5, n) + y, rng.integers(0, 4, n) + 2 * y, True,
    )

    n = 500
    y = rng.integers(0, 2, n)
    s1 = np.round(rng.normal(size=n) + 1.2 * y, 6)
    s2 = np.round(s1 + rng.normal(size=n), 6)
    result["continuous"] = (y, s1, s2, True)

    n = 3000
    y = (rng.random(n) < 0.01).astype(int)
    s1 = np.round(rng.normal(size=n) + 1.5 * y, 1)
    s2 = np.round(0.5 * s1 + rng.normal(size=n), 1)
    result["heavy_imbalance"] = (y, s1, s2, True)

    n = 300
    y = np.zeros(n, dtype=int)
    y[[17, 250]] = 1
    s1 = np.round(rng.normal(size=n) + 2.0 * y, 3)
    s2 = np.round(rng.normal(size=n) + y, 3)
    result["two_cases"] = (y, s1, s2, False)

    n = 60
    y = rng.integers(0, 2, n)
    y[:2] = (0, 1)
    s1 = np.round(y + rng.random(n) * 0.9, 4)  # perfectly separated: variance 0
    s2 = np.full(n, 0.5)  # constant: AUC 1/2, variance 0
    result["separated_vs_constant"] = (y, s1, s2, False)

    n = 80
    y = rng.integers(0, 2, n)
    s1 = rng.integers(0, 3, n) + y
    result["identical"] = (y, s1, s1.copy(), False)  # test: difference 0, error 0

    with STREAM.open() as handle:
        rows = list(csv.reader(line for line in handle if not line.startswith("#")))
    y = np.array([int(row[0]) for row in rows[1:]])
    s1 = np.array([float(row[1]) for row in rows[1:]])
    # A coarser classifier on the same points: the log-odds rounded to tens.
    s2 = np.round(s1 / 10.0)
    result["default_stream"] = (y, s1, s2, True)
    return result


def as_number(text):
    """R's printed number; R's NA (a missing value, e.g. a variance of one point) as None."""
    return None if text == "NA" else float(text)


def main():
    data = datasets()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "names.txt").write_text("\n".join(data) + "\n")
        for name, (y, s1, s2, boot) in data.items():
            with (tmp / f"{name}.csv").open("w") as handle:
                handle.write("y,s1,s2,boot\n")
                for yi, a, b in zip(y, s1, s2, strict=True):
                    handle.write(f"{int(yi)},{float(a)!r},{float(b)!r},{int(boot)}\n")
        (tmp / "script.R").write_text(R_SCRIPT)
        subprocess.run(
            ["Rscript", str(tmp / "script.R"), str(tmp), str(BOOT_N), str(BOOT_SEED)],
            check=True,
        )
        lines = [line.split() for line in (tmp / "out.txt").read_text().splitlines()]

    result = {"boot_n": BOOT_N, "boot_seed": BOOT_SEED, "levels": list(LEVELS), "datasets": {}}
    for line in lines:
        if line[0] == "r_version":
            result["r_version"] = f"{line[1]}.{line[2]}"
            continue
        if line[0] == "proc_version":
            result["proc_version"] = line[1]
            continue
        name, key, *values = line
        if name == "single_case":
            entry = result.setdefault("single_case", {
                "y": [0, 0, 0, 1, 0], "s": [0.1, 0.5, 0.3, 0.4, 0.2],
            })
            entry[key] = [as_number(v) for v in values] if len(values) > 1 else as_number(
                values[0]
            )
            continue
        if name not in result["datasets"]:
            y, s1, s2, _ = data[name]
            result["datasets"][name] = {
                "y": [int(v) for v in y],
                "s1": [float(v) for v in s1],
                "s2": [float(v) for v in s2],
            }
        entry = result["datasets"][name]
        if key in ("ci1", "ci2"):
            entry.setdefault(key, {})[values[0]] = [as_number(v) for v in values[1:]]
        elif key == "boot1":
            entry[key] = {"level": float(values[0]), "ci": [as_number(v) for v in values[1:]]}
        elif key == "test":
            entry[key] = dict(
                zip(("statistic", "pvalue", "auc1", "auc2"), map(as_number, values),
                    strict=True)
            )
        else:
            entry[key] = as_number(values[0])
    OUT.parent.mkdir(exist_ok=True)
    # Infinities as JSON's non-standard literal Infinity (Python's json reads it).
    OUT.write_text(json.dumps(result, indent=None, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: R {result['r_version']}, pROC {result['proc_version']}")


if __name__ == "__main__":
    main()
