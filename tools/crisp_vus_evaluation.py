"""Rank random crisp 3-class classifiers by their exact VUS and by each approximation.

Reproduces the evaluation of Ferri, Hernandez-Orallo and Salido, "Volume under
the ROC surface for multi-class problems" (ECML 2003): how often does a
one-point approximation order two classifiers differently from the exact VUS?

Discrepancy of a measure: the share of pairs of classifiers with different
exact VUS that the measure orders the other way (a tie in the measure counts
one half).  The slides do not state their sampling or their discrepancy; both
are this script's choice, stated in docs/multiclass.rst.

Usage: python tools/crisp_vus_evaluation.py [--n 500] [--seed 2003]
Prints the reStructuredText table pasted into docs/multiclass.rst.
"""

import argparse
import time

import numpy as np
import scipy

import hmeasure_stream
from hmeasure_stream import crisp_auc_approximations, crisp_vus

NAMES = [
    ("macro_average", "Macro-avg"),
    ("macro_average_modified", "Mod-avg (t=0.76)"),
    ("one_point_trivial", "1-p trivial"),
    ("hand_till_1b", "HT1b"),
    ("hand_till_2", "HT2"),
    ("hand_till_3", "HT3"),
]


def discrepancy(exact, measure):
    """Share of pairs with distinct exact values ordered the other way (ties one half)."""
    i, j = np.triu_indices(exact.shape[0], 1)
    d_exact = exact[i] - exact[j]
    keep = np.abs(d_exact) > 1e-12
    d_measure = measure[i][keep] - measure[j][keep]
    product = np.sign(d_exact[keep]) * np.sign(d_measure)
    return float(np.mean((product < 0) + 0.5 * (product == 0)))


def classifiers(rng, n, skill):
    """n confusion matrices of rates, row i drawn from Dirichlet(1 + skill e_i)."""
    return np.array([[rng.dirichlet(np.ones(3) + skill * np.eye(3)[i]) for i in range(3)]
                     for _ in range(n)])


def evaluate(rng, n, skill):
    rates = classifiers(rng, n, skill)
    start = time.process_time()
    exact = np.array([crisp_vus(m).vus for m in rates])
    seconds = time.process_time() - start
    table = {key: np.array([crisp_auc_approximations(m)[key] for m in rates])
             for key, _ in NAMES}
    row = {label: discrepancy(exact, table[key]) for key, label in NAMES}
    accuracies = np.einsum("kii->ki", rates)
    grid = np.round(np.arange(-3.0, 4.0001, 0.02), 2)
    best_t, best = None, np.inf
    for t in grid:
        if t == 0:
            values = np.exp(np.log(accuracies).mean(axis=1))
        else:
            values = np.mean(accuracies**t, axis=1) ** (1 / t)
        value = discrepancy(exact, values)
        if value < best:
            best_t, best = t, value
    discarded = int(np.sum(np.abs(exact - 1 / 180) < 1e-12))
    return row, (best_t, best), exact, seconds, discarded


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=2003)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"hmeasure_stream {hmeasure_stream.__version__}, numpy {np.__version__}, "
          f"scipy {scipy.__version__}; {args.n} classifiers per row, seed {args.seed}\n")
    header = ["Classifiers", *[label for _, label in NAMES], "Best t (its discrepancy)"]
    rows = []
    for skill, name in ((0.0, "uniform (skill 0)"), (2.0, "skill 2"), (6.0, "skill 6")):
        row, (best_t, best), exact, seconds, discarded = evaluate(rng, args.n, skill)
        rows.append([name, *[f"{row[label]:.4f}" for _, label in NAMES],
                     f"{best_t:.2f} ({best:.4f})"])
        print(f"{name}: exact VUS from {exact.min():.5f} to {exact.max():.5f} "
              f"(median {np.median(exact):.5f}); {discarded} at the minimum 1/180; "
              f"{1e3 * seconds / args.n:.1f} ms CPU per exact VUS")
    widths = [max(len(r[k]) for r in [header, *rows]) for k in range(len(header))]
    line = "  ".join("=" * w for w in widths)
    print()
    print(line)
    print("  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True)).rstrip())
    print(line)
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip())
    print(line)


if __name__ == "__main__":
    main()
