"""MOA's window evaluator of scores, backed by a window: ``MOAWindowEvaluator``.

MOA's ``moa.evaluation.WindowAUCImbalancedPerformanceEvaluator``, which
CapyMOA wraps as ``capymoa.evaluation.AnomalyDetectionWindowedEvaluator``,
reports over a window of the last rows the AUC, the scored AUC, the accuracy,
Cohen's kappa, a periodical holdout AUC, the class ratio, the G-mean, the
recall and Kappa-M.  :class:`MOAWindowEvaluator` takes the same calls as
CapyMOA's evaluator (``update(y_target_index, score)``, ``auc()``,
``s_auc()``, ``metrics_header()``, ``metrics()``, ``metrics_dict()``, with
CapyMOA's names) and gives MOA's values after every row, MOA's conventions
included: the AUC and the scored AUC are 1.0 while a class is absent; a tie of
a class 1 and a class 0 score in the scored AUC counts minus half the score
(MOA's sums weigh a tie by one half on one side and by one on the other);
Kappa-M's baseline is the accuracy, over the whole stream, of predicting at
each row the majority class of the window then.  The window metrics of the
package (:class:`~hmeasure_stream.SlidingWindow`'s ``"sauc"``, ``"kappa"``,
``"kappa_m"``, ...) follow the package's conventions instead: docs page
"Coming from MOA, river and pROC".

The AUC and the scored AUC come from a :class:`~hmeasure_stream.SlidingWindow`
(O(log W) a row, where MOA walks its window, O(W) a read; the rows added since
the last read enter it in one update at the next); the measures at MOA's
prediction (MOA's rule, below) from counts kept here, O(1) a row.

MOA's score of a row is its normalised vote for class 1: with CapyMOA's votes
``[1 - score, score]``, ``score / ((1 - score) + score)`` (0 if that is nan),
and its predicted class is that of the larger vote, class 0 on a tie: class 1
exactly when ``score > 0.5``.  The package's threshold rule is ``score >=
threshold`` (docs/api.rst, "Thresholds"), so MOA's predictions are those of
``Threshold(numpy.nextafter(0.5, 1))``.
"""

from __future__ import annotations

import math
import sys
from collections import deque
from fractions import Fraction

import numpy as np

from hmeasure_stream._validation import check_integer
from hmeasure_stream.streaming import SlidingWindow

__all__ = ["MOAWindowEvaluator"]

#: MOA's measurements in its order, by CapyMOA's names (``metrics_header``).
MEASUREMENTS = ("instances", "auc", "s_auc", "Accuracy", "Kappa", "Periodical holdout AUC",
                "Pos/Neg ratio", "G-Mean", "Recall", "KappaM")


def _java_divide(numerator: float, denominator: float) -> float:
    """``numerator / denominator`` as Java divides doubles: x / 0 is +-inf, 0 / 0 nan."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(numerator) / np.float64(denominator))


class MOAWindowEvaluator:
    """MOA's ``WindowAUCImbalancedPerformanceEvaluator`` over the last ``window`` rows.

    The calls of CapyMOA's ``AnomalyDetectionWindowedEvaluator`` and MOA's
    values after every row (see the module docstring for MOA's conventions).

    Parameters
    ----------
    window : int, default=500
        The rows of the window (MOA's ``width`` option, default 500).

    See Also
    --------
    hmeasure_stream.SlidingWindow : the window metrics, in the package's conventions.

    Examples
    --------
    >>> from hmeasure_stream.moa import MOAWindowEvaluator
    >>> evaluator = MOAWindowEvaluator(window=3)
    >>> for y, score in [(0, 0.2), (1, 0.9), (0, 0.6), (1, 0.4)]:
    ...     evaluator.update(y, score)
    >>> evaluator.auc()
    0.5
    >>> evaluator.metrics_dict()["Accuracy"]
    0.3333333333333333
    """

    def __init__(self, window: int = 500) -> None:
        self._width = check_integer(window, "window", 1)
        self._window = SlidingWindow(self._width, ("auc", "sauc"))
        # The rows not yet in the window (it takes them in one update at the next read).
        self._pending_y: list[int] = []
        self._pending_score: list[float] = []
        # The window's rows (label, score, correct), class counts and correct predictions.
        self._rows: deque[tuple[int, float, bool]] = deque()
        self._counts = [0, 0]
        self._correct = [0, 0]
        self._predicted = [0, 0]
        # The class 0 / class 1 counts at each score, and the sum over tied pairs of the
        # tied score, exactly.
        self._at: dict[float, list[int]] = {}
        self._ties = Fraction(0)
        self._seen = 0
        self._majority_correct = 0
        # MOA's holdout AUCs: the window's AUC after rows kW - 1, by row (the last two).
        self._snapshots: dict[int, float] = {}

    def update(self, y_target_index: int, score: float) -> None:
        """Add one row: its class index (0 or 1) and the model's score for class 1.

        Parameters
        ----------
        y_target_index : int
            The row's class index, 0 or 1 (CapyMOA's: the index in the schema).
        score : float
            The model's score for class 1, in [0, 1].

        Raises
        ------
        ValueError
            On a class index other than 0 or 1, or a score that is not a real number
            in [0, 1] (nothing is added).
        """
        if (isinstance(y_target_index, (bool, np.bool_))
                or not isinstance(y_target_index, (int, np.integer))
                or y_target_index not in (0, 1)):
            raise ValueError(f"y_target_index must be the class index 0 or 1, got "
                             f"{y_target_index!r}")
        if (isinstance(score, (bool, np.bool_))
                or not isinstance(score, (int, float, np.integer, np.floating))
                or not 0.0 <= float(score) <= 1.0):
            raise ValueError(f"score must be a real number in [0, 1], got {score!r}")
        votes = (1.0 - float(score), float(score))
        # MOA's normalised vote (Java's double arithmetic is IEEE's, as Python's).
        seen = votes[1] / (votes[0] + votes[1])
        if math.isnan(seen):
            seen = 0.0
        label = int(y_target_index)
        correct = (votes[1] > votes[0]) == (label == 1)
        if len(self._rows) == self._width:
            self._move(*self._rows.popleft(), adding=False)
        self._move(label, seen, correct, adding=True)
        self._rows.append((label, seen, correct))
        self._pending_y.append(label)
        self._pending_score.append(seen)
        self._seen += 1
        # MOA's Kappa-M baseline: the window's majority (class 0 unless class 1 is more).
        majority = 1 if self._counts[1] > self._counts[0] else 0
        self._majority_correct += majority == label

    def _move(self, label: int, score: float, correct: bool, *, adding: bool) -> None:
        step = 1 if adding else -1
        at = self._at.setdefault(score, [0, 0])
        if not adding:
            at[label] -= 1
        if at[1 - label]:
            # The tied pairs the row makes (or made) with the other class at its score.
            self._ties += step * Fraction(score) * at[1 - label]
        if adding:
            at[label] += 1
        elif at == [0, 0]:
            del self._at[score]
        self._counts[label] += step
        self._correct[label] += step * correct
        self._predicted[label if correct else 1 - label] += step

    def _flush(self) -> None:
        """The pending rows into the window, and the holdout AUCs among them."""
        if not self._pending_y:
            return
        first = self._seen - len(self._pending_y)
        aucs = self._window.update(self._pending_y, self._pending_score)["auc"]
        self._pending_y, self._pending_score = [], []
        for row in range(first + self._width - 1 - first % self._width, self._seen,
                         self._width):
            # (MOA keeps the window's AUC at each multiple of the width: 1 for one class.)
            value = float(aucs[row - first])
            self._snapshots[row] = 1.0 if math.isnan(value) else value
        newest = max(self._snapshots, default=-1)
        self._snapshots = {row: value for row, value in self._snapshots.items()
                           if row >= newest - self._width}

    def _both(self) -> bool:
        return bool(self._counts[0] and self._counts[1])

    def _auc(self) -> float:
        if not self._both():
            return 1.0
        self._flush()
        return float(self._window["auc"])

    def _s_auc(self) -> float:
        if not self._both():
            return 1.0
        self._flush()
        pairs = self._counts[0] * self._counts[1]
        return float(self._window["sauc"]) - float(self._ties / (2 * pairs))

    def _holdout(self) -> float:
        """MOA's periodical holdout AUC after the last row: the AUC kept at the last row
        kW - 1 before it (0 before row W)."""
        kept = (self._seen - 1) // self._width * self._width - 1
        if kept < 0:
            return 0.0
        self._flush()
        return self._snapshots[kept]

    def auc(self) -> float:
        """The window's AUC (ties count one half; 1.0 while a class is absent)."""
        return self._auc() if self._seen else math.nan

    def s_auc(self) -> float:
        """The window's scored AUC, MOA's (1.0 while a class is absent)."""
        return self._s_auc() if self._seen else math.nan

    def get_instances_seen(self) -> int:
        """The rows added so far."""
        return self._seen

    def metrics_header(self) -> list[str]:
        """The names of :meth:`metrics`, CapyMOA's."""
        return list(MEASUREMENTS)

    def metrics(self) -> list[float]:
        """MOA's measurements after the last row, in the order of :meth:`metrics_header`
        (nan before the first row, where MOA has no estimator yet)."""
        if not self._seen:
            return [0.0] + [math.nan] * (len(MEASUREMENTS) - 1)
        held = len(self._rows)
        neg, pos = self._counts
        accuracy = (self._correct[0] + self._correct[1]) / held
        chance = (self._predicted[0] / held) * (neg / held) + (
            self._predicted[1] / held) * (pos / held)
        baseline = self._majority_correct / self._seen
        gmean = math.sqrt(_java_divide(self._correct[1], pos) * _java_divide(
            self._correct[0], neg))
        return [float(self._seen), self._auc(), self._s_auc(), accuracy,
                _java_divide(accuracy - chance, 1.0 - chance), self._holdout(),
                pos / neg if neg else sys.float_info.max, gmean,
                _java_divide(self._correct[1], pos),
                _java_divide(accuracy - baseline, 1.0 - baseline)]

    def metrics_dict(self) -> dict[str, float]:
        """:meth:`metrics` by the names of :meth:`metrics_header`."""
        return dict(zip(MEASUREMENTS, self.metrics(), strict=True))

    @property
    def window(self) -> int:
        """The rows of the window."""
        return self._width

    def __repr__(self) -> str:
        return f"MOAWindowEvaluator(window={self._width})"
