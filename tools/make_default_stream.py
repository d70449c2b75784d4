"""Regenerate hmeasure_stream/data/default_stream.csv, the embedded default stream.

Real data, real classifier: the UCI optical handwritten digits (as shipped
inside scikit-learn, no download), task "digit >= 5", scored by a Gaussian
naive Bayes classifier with 5-fold out-of-fold predictions, in the dataset's
original order.  Run: python tools/make_default_stream.py
"""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import cross_val_predict
from sklearn.naive_bayes import GaussianNB

OUT = Path(__file__).resolve().parents[1] / "hmeasure_stream" / "data" / "default_stream.csv"


def main():
    digits = load_digits()
    label = (digits.target >= 5).astype(int)
    proba = cross_val_predict(GaussianNB(), digits.data, label, cv=5, method="predict_proba")
    # Log-odds keep the ordering that saturated probabilities would lose to ties.
    with np.errstate(divide="ignore"):
        score = np.log(proba[:, 1]) - np.log(proba[:, 0])
    score = np.clip(score, -700.0, 700.0)
    with OUT.open("w") as handle:
        handle.write("# UCI optdigits (scikit-learn load_digits), label = digit >= 5,\n")
        handle.write("# score = log-odds of GaussianNB, 5-fold out-of-fold; original order\n")
        handle.write("label,score\n")
        for y, s in zip(label, score, strict=True):
            handle.write(f"{y},{s:.6g}\n")
    print(f"wrote {OUT} ({label.size} rows)")


if __name__ == "__main__":
    main()
