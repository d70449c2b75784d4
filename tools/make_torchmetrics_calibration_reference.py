"""Regenerate tests/data/torchmetrics_calibration.json: torchmetrics' calibration errors.

torchmetrics' ``binary_calibration_error(preds, target, n_bins, norm)`` for norms
"l1", "l2" and "max" and a few bin counts, on fixed-seed streams whose
probabilities lie on no inner bin edge (torchmetrics puts a probability on an
inner edge in the bin above, scikit-learn's ``calibration_curve`` and the
package in the bin below).  The inputs are stored with the outputs and the
versions, so the tests need neither torch nor this script.  Run it with a
python that has torch and torchmetrics:
/path/to/python tools/make_torchmetrics_calibration_reference.py
"""

import json
from pathlib import Path

import numpy as np
import torch
import torchmetrics
from torchmetrics.functional.classification import binary_calibration_error

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "torchmetrics_calibration.json"
N_BINS = (5, 10, 15)
NORMS = ("l1", "l2", "max")


def streams():
    """name -> (y, p): calibrated, overconfident and small, none on an inner edge."""
    rng = np.random.default_rng(2026)
    result = {}
    p = rng.uniform(size=2000)
    result["calibrated"] = ((rng.uniform(size=2000) < p).astype(int), p)
    p = rng.uniform(size=2000)
    result["overconfident"] = ((rng.uniform(size=2000) < 0.5 + (p - 0.5) / 2).astype(int), p)
    p = rng.uniform(size=37)
    result["small"] = ((rng.uniform(size=37) < p**2).astype(int), p)
    edges = {k / n for n in N_BINS for k in range(1, n)}
    for _, p in result.values():
        assert not edges.intersection(p.tolist())
    return result


def main():
    result = {"torch_version": torch.__version__, "torchmetrics_version": torchmetrics.__version__,
              "streams": {}}
    for name, (y, p) in streams().items():
        values = {}
        for n_bins in N_BINS:
            for norm in NORMS:
                value = binary_calibration_error(torch.tensor(p, dtype=torch.float64),
                                                 torch.tensor(y), n_bins=n_bins, norm=norm)
                values[f"{norm}/{n_bins}"] = float(value)
        result["streams"][name] = {"y": y.tolist(), "p": p.tolist(), "values": values}
    OUT.write_text(json.dumps(result, separators=(",", ":")) + "\n")
    print(f"wrote {OUT}: torch {torch.__version__}, torchmetrics {torchmetrics.__version__}")


if __name__ == "__main__":
    main()
