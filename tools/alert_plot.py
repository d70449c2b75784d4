"""Draw docs/_static/alert_default_stream.png: an alert with a stated false-alarm rate on
the embedded stream, beside the point alert.

The stream is :func:`~hmeasure_stream.datasets.load_default_stream` (1797 rows of
a real classifier's scores); the window holds 200 rows and the alert looks every
10 rows, ``AlertRule(below=0.80, false_alarm_rate=1e-3)``: at most one false
alarm per thousand rows of a stream whose AUC stays at 0.80.

Run: python tools/alert_plot.py  (prints the alarms it draws)
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from hmeasure_stream import AlertMonitor, AlertRule, alert_boundary, sliding_window
from hmeasure_stream.datasets import load_default_stream

OUT = Path(__file__).resolve().parents[1] / "docs" / "_static" / "alert_default_stream.png"
WINDOW, EVERY, LIMIT, RATE = 200, 10, 0.80, 1e-3


def main():
    y, s = load_default_stream()
    rows = np.arange(y.shape[0])
    values = sliding_window(y, s, WINDOW, ("auc", "auc_var"))
    estimate, se = values["auc"], np.sqrt(values["auc_var"])
    c = alert_boundary(RATE, WINDOW, EVERY)
    monitor = AlertMonitor(AlertRule(below=LIMIT, false_alarm_rate=RATE), WINDOW, EVERY)
    events = monitor.update(y, s)
    for event in events:
        print(f"{event.kind} at row {event.row}: auc={event.estimate:.3f}, "
              f"bound={event.bound:.3f} (c={event.boundary:.2f})")
    looks = rows[((rows + 1) % EVERY == 0) & (rows >= WINDOW - 1)]
    below = estimate[looks] < LIMIT
    point = looks[1:][below[1:] & ~below[:-1]]
    print(f"the point alert fires {point.size} times (rows {', '.join(map(str, point))})")

    fig, ax = plt.subplots(figsize=(8, 4))
    full = rows >= WINDOW - 1
    ax.plot(rows[full], estimate[full], color="C0", label=f"AUC of the last {WINDOW} rows")
    ax.plot(looks, estimate[looks] + c * se[looks], color="C0", alpha=0.5, linestyle="--",
            label=f"upper bound: AUC + {c:.2f} se (DeLong)")
    ax.axhline(LIMIT, color="black", linewidth=0.8)
    ax.plot(point, estimate[point], "x", color="C3", label="point alert fires (AUC < 0.80)")
    starts = [event.row for event in events if event.kind == "fired"]
    ends = [event.row for event in events if event.kind == "cleared"] + [rows[-1]]
    for number, (start, end) in enumerate(zip(starts, ends, strict=False)):
        ax.axvspan(start, end, color="C1", alpha=0.25,
                   label=f"alarm (false-alarm rate {RATE:g} per row)" if number == 0 else None)
    ax.set_xlabel("row")
    ax.set_ylabel("AUC")
    ax.set_ylim(0.6, 1.0)
    ax.legend(loc="lower left", fontsize="small")
    fig.tight_layout()
    fig.savefig(OUT, dpi=120)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
