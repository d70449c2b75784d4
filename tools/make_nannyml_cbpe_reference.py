"""Regenerate tests/data/nannyml_cbpe.json: NannyML's CBPE estimate of the ROC AUC.

NannyML is not a dependency of hmeasure_stream: run this in a virtual
environment of its own, from the repository root::

    python3 -m venv /work/nannyml-venv
    /work/nannyml-venv/bin/pip install nannyml
    /work/nannyml-venv/bin/python tools/make_nannyml_cbpe_reference.py

What NannyML computes (nannyml/performance_estimation/confidence_based/
metrics.py, ``BinaryClassificationAUROC._estimate`` and ``estimate_roc_auc``):
the points of a chunk are sorted by the model's uncalibrated score,
descending; the cumulative sums of the calibrated probabilities are the
expected true positives, the cumulative counts minus them the expected false
positives; both are rounded to 5 decimals, divided by their totals, and the
area under these points is the trapezoid rule (scikit-learn's ``auc``).  For
distinct scores a trapezoid between consecutive points is the area of one
point's step (1 - p_i, p_i): half of p_i (1 - p_i) for the point with itself
and p_j (1 - p_i) for every point j above it, the expected Mann-Whitney count
of ``hmeasure_stream.expected_auc`` exactly.  With tied scores NannyML's
curve depends on the order its sort leaves the ties in (a path through the
tied points instead of the diagonal), so every data set here has distinct
scores.  The rounding to 5 decimals moves each true (false) positive rate by
at most 5e-6 over the expected class 1 (class 0) weight, and the trapezoid
area by at most the sum of the two: the test's tolerance.

Calibration: CBPE fits a calibrator on the reference data (isotonic by
default) and uses it when it lowers the calibration error there; the
estimate then reads the calibrated probabilities for the classes and the
uncalibrated scores for the order.  Two kinds of data sets:

- ``noop``: probabilities already calibrated (the labels of the reference
  data are drawn from them), with ``calibrator=NoopCalibrator()``, so CBPE
  uses them as they are: ``expected_auc(p)`` with the scores defaulting to
  the probabilities;
- ``isotonic``: scores q**3 of true probabilities q (miscalibrated, in the
  same order), CBPE's default isotonic calibration fitted on the reference
  data; the probabilities stored are the calibrator's output on the analysis
  points, exactly those CBPE's estimate read, and the scores the model's:
  ``expected_auc(y_prob, y_score)``.  (Isotonic probabilities have ties; the
  scores do not.)

One chunk is all the analysis points (``chunk_number=1``).  NannyML 0.13.1's
install resolves for a long time (gcsfs, s3fs, FLAML[automl]); for this
script ``pip install --no-deps nannyml`` followed by numpy, scipy, pandas,
scikit-learn, pyarrow, category-encoders, matplotlib, plotly, seaborn,
pydantic, rich, click, PyYAML, Jinja2, pyfiglet, lightgbm, FLAML, APScheduler,
segment-analytics-python, python-dotenv, fsspec and statsmodels suffices.
"""

import json
import os
import warnings
from importlib.metadata import version
from pathlib import Path

# NannyML sends usage statistics unless told not to (nannyml/usage_logging.py).
os.environ["NML_DISABLE_USAGE_LOGGING"] = "1"

import nannyml
import numpy as np
import pandas as pd
from nannyml.calibration import NoopCalibrator

OUT = Path(__file__).resolve().parents[1] / "tests" / "data" / "nannyml_cbpe.json"


def frame(scores, labels=None):
    data = {"y_pred_proba": scores, "y_pred": (scores >= 0.5).astype(int)}
    if labels is not None:
        data["y_true"] = labels
    return pd.DataFrame(data)


def distinct_probabilities(rng, n, a, b):
    """n distinct draws of Beta(a, b) (redrawn until distinct)."""
    while True:
        values = rng.beta(a, b, n)
        if np.unique(values).shape[0] == n:
            return values


def cbpe_estimate(reference, analysis, calibrator):
    """CBPE's estimated roc_auc of the analysis points in one chunk, and the fitted estimator."""
    options = {"calibrator": calibrator} if calibrator is not None else {}
    estimator = nannyml.CBPE(
        metrics=["roc_auc"], y_pred_proba="y_pred_proba", y_pred="y_pred", y_true="y_true",
        problem_type="classification_binary", chunk_number=1, **options,
    )
    estimator.fit(reference)
    table = estimator.estimate(analysis).filter(period="analysis").to_df()
    values = table[("roc_auc", "value")].to_numpy()
    assert values.shape == (1,), values
    return float(values[0]), estimator


def main():
    rng = np.random.default_rng(20261127)
    cases = []
    for name, n, (a, b) in [("noop small", 12, (1.0, 1.0)), ("noop 500", 500, (2.0, 5.0)),
                            ("noop 1500", 1500, (0.5, 0.5))]:
        reference_p = distinct_probabilities(rng, 2000, a, b)
        reference = frame(reference_p, (rng.random(2000) < reference_p).astype(int))
        p = distinct_probabilities(rng, n, a, b)
        value, _ = cbpe_estimate(reference, frame(p), NoopCalibrator())
        cases.append({"name": name, "calibration": "noop", "y_prob": p.tolist(),
                      "y_score": None, "roc_auc": value})
    for name, n in [("isotonic 400", 400), ("isotonic 1000", 1000)]:
        reference_q = distinct_probabilities(rng, 5000, 2.0, 2.0)
        reference = frame(reference_q**3, (rng.random(5000) < reference_q).astype(int))
        q = distinct_probabilities(rng, n, 2.0, 2.0)
        scores = q**3
        value, estimator = cbpe_estimate(reference, frame(scores), None)
        assert estimator.needs_calibration, "CBPE chose not to calibrate q**3"
        probs = np.asarray(estimator.calibrator.calibrate(scores), dtype=float)
        cases.append({"name": name, "calibration": "isotonic", "y_prob": probs.tolist(),
                      "y_score": scores.tolist(), "roc_auc": value})
    header = {
        "generator": "tools/make_nannyml_cbpe_reference.py",
        "nannyml_version": version("nannyml"),
        "what": "CBPE(metrics=['roc_auc'], chunk_number=1) estimate on the analysis points; "
                "y_score null: the scores are the probabilities",
    }
    # One line per case: the arrays are long.
    lines = [json.dumps(case) for case in cases]
    text = json.dumps(header, indent=1)[:-2] + ',\n "cases": [\n' + ",\n".join(lines) + "\n]}\n"
    json.loads(text)
    OUT.write_text(text)
    print(f"wrote {OUT} ({len(cases)} cases, nannyml {version('nannyml')})")


if __name__ == "__main__":
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        main()
