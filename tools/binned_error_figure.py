"""Draw docs/_static/binned_error.png: binned AUC error against the number of bins.

Like Bouckaert's Figs. 4-5 (*Efficient AUC learning curve calculation*): the
actual error |exact AUC - binned AUC|, the bound max_error and the paper's
expected_error, for linear and log-log bins, on

* the paper's simple model (balanced classes, x1, x2 ~ N(y, 1), a binary x3),
  10 000 points scored by the exact naive Bayes posterior;
* the package's embedded stream (UCI digits, "digit >= 5", Gaussian naive
  Bayes) mapped to probabilities, which crowd near 0 and 1.

Run: python tools/binned_error_figure.py  (prints the numbers it plots)
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from scipy.special import expit

from hmeasure_stream import auc, binned_auc
from hmeasure_stream.datasets import load_default_stream

OUT = Path(__file__).resolve().parents[1] / "docs" / "_static" / "binned_error.png"
BINS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000]
# Errors of exactly 0 are drawn at this floor of the log axis.
FLOOR = 1e-8


def simple_model(n=10_000, seed=1):
    """The paper's model P(y) P(x1|y) P(x2|y) P(x3|y), scored by its posterior P(y=1|x)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x1 = rng.normal(y, 1.0)
    x2 = rng.normal(y, 1.0)
    # P(x3 = 0 | y = 0) = P(x3 = 1 | y = 1) = 1/4.
    x3 = (rng.random(n) < np.where(y == 1, 0.25, 0.75)).astype(int)
    log_odds = (x1 - 0.5) + (x2 - 0.5) + np.where(x3 == 1, -np.log(3.0), np.log(3.0))
    return y, expit(log_odds)


def curves(y, p):
    exact = auc(y, p)
    rows = {}
    for transform in (None, "loglog"):
        alpha = binned_auc(y, p, transform=transform).loglog_alpha
        rows[transform] = np.array([
            (abs(exact - r.auc), r.max_error, r.expected_error)
            for r in (
                binned_auc(y, p, n_bins=m, transform=transform, loglog_alpha=alpha) for m in BINS
            )
        ])
    return exact, rows


def main():
    y_digits, log_odds = load_default_stream()
    datasets = {
        "Simple model (paper Sec. 4.3), 10 000 points": simple_model(),
        "Digits ≥ 5, Gaussian naive Bayes, 1797 points": (y_digits, expit(log_odds)),
    }
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.4), sharey=True)
    colors = {None: "tab:blue", "loglog": "tab:red"}
    names = {None: "linear bins", "loglog": "log-log bins"}
    for ax, (title, (y, p)) in zip(axes, datasets.items(), strict=True):
        exact, rows = curves(y, p)
        print(f"{title}: exact AUC {exact:.6f}")
        for transform, table in rows.items():
            color = colors[transform]
            ax.plot(BINS, np.maximum(table[:, 0], FLOOR), "o-", color=color,
                    label=f"{names[transform]}: actual error")
            ax.plot(BINS, table[:, 1], "--", color=color,
                    label=f"{names[transform]}: max_error (bound)")
            ax.plot(BINS, table[:, 2], ":", color=color,
                    label=f"{names[transform]}: expected_error")
            for m, (err, bound, expected) in zip(BINS, table, strict=True):
                print(f"  {names[transform]:<13} bins {m:>5}: error {err:.2e}  "
                      f"max_error {bound:.2e}  expected_error {expected:.2e}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("number of bins")
        ax.grid(True, which="major", alpha=0.3)
    axes[0].set_ylabel(f"AUC error (0 drawn at {FLOOR:g})")
    axes[1].legend(fontsize=7.5, loc="lower left")
    fig.suptitle("Binned AUC: error against the number of bins", fontsize=11)
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
