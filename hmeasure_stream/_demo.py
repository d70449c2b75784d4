"""The demo run by ``hmeasure-stream`` without arguments: the embedded default stream."""

import numpy as np

from hmeasure_stream.datasets import load_default_stream
from hmeasure_stream.metrics import h_measure, hmeasure_report
from hmeasure_stream.streaming import sliding_window


def run_demo(window, out):
    y_true, y_score = load_default_stream()
    n = y_true.shape[0]
    print("hmeasure_stream demo: the embedded default stream", file=out)
    print(
        f"  {n} points (UCI digits, 'digit >= 5' by Gaussian naive Bayes), "
        f"{int(y_true.sum())} of class 1",
        file=out,
    )
    print("\nWhole stream (R hmeasure's summary, Beta(2, 2) cost distribution):", file=out)
    for name, value in hmeasure_report(y_true, y_score).items():
        print(f"  {name:<12}{value:.6f}", file=out)
    print("\nWhole stream, R's default severity ratio (pi1/pi0):", file=out)
    print(f"  H           {h_measure(y_true, y_score, severity_ratio='prior'):.6f}", file=out)

    window = min(window, n)
    # The AUC after every point, by the streaming engine (O(log window) a step).
    windowed_auc = sliding_window(y_true, y_score, window)["auc"]
    print(f"\nSliding window of the last {window} points:", file=out)
    print(f"  {'end':>6}  {'AUC':>8}  {'H':>8}", file=out)
    for end in np.linspace(window, n, num=6, dtype=int):
        part = slice(end - window, end)
        y_part, s_part = y_true[part], y_score[part]
        if y_part.min() == y_part.max():
            print(f"  {end:>6}  {'nan':>8}  {'nan':>8}", file=out)
            continue
        h_value = h_measure(y_part, s_part)
        print(f"  {end:>6}  {windowed_auc[end - 1]:8.4f}  {h_value:8.4f}", file=out)
