"""river metrics backed by the exact engines: ``ROCAUC``, ``HMeasure``,
``AveragePrecision``, ``LogLoss`` and ``BrierScore``.

The classes follow the protocol of ``river.metrics`` (``update``,
``revert``, ``get``, ``works_with``, ``bigger_is_better``,
``requires_labels``), so they drop into
``river.evaluate.progressive_val_score``, ``river.utils.Rolling`` or any loop
that feeds a river metric.  Each keeps its points in a
:class:`~hmeasure_stream.DynamicAUC` or :class:`~hmeasure_stream.DynamicH`
(the log loss and Brier score: in the exact sums of the windows'
``"log_loss"`` and ``"brier"``), with the same ``window`` and ``half_life``
options: after every point its value is that of
:class:`~hmeasure_stream.SlidingWindow` on the same points.

river is an optional dependency: ``pip install hmeasure_stream[river]``.
Importing ``hmeasure_stream`` does not import river; importing this
module does.
"""

from __future__ import annotations

from typing import Any, Literal

from hmeasure_stream._validation import Duration, Label, Window, import_optional
from hmeasure_stream.streaming import DynamicAUC, DynamicH
from hmeasure_stream.streaming._probability_sums import ProbabilitySums

river_base: Any
metrics_base: Any
river_base, metrics_base = import_optional(
    "river.base", "river.metrics.base", needed_by="hmeasure_stream.river",
    install="hmeasure_stream[river]")

__all__ = ["ROCAUC", "AveragePrecision", "BrierScore", "HMeasure", "LogLoss"]


_BinaryMetric: Any = metrics_base.BinaryMetric


class _ExactMetric(_BinaryMetric):  # type: ignore[misc]  # river has no types
    """A binary river metric whose points live in one of the package's structures.

    Subclasses build ``self._tracker`` and read their value from it in
    :meth:`get`.  ``pos_val`` is river's name for the label of class 1; it
    is the structure's ``pos_label``.
    """

    _tracker: DynamicAUC | DynamicH | ProbabilitySums
    pos_val: Label

    def _score(self, y_pred: float | dict[Label, float]) -> float:
        # A classifier's predict_proba_one gives {label: probability}; an
        # anomaly detector a score.  A class the model has not seen yet has no
        # entry: probability 0, as river's own metrics read it.
        if isinstance(y_pred, dict):
            return y_pred.get(self.pos_val, 0.0)
        return y_pred

    def update(self, y_true: Label, y_pred: float | dict[Label, float], w: float = 1.0, *,
               time: object = None) -> None:
        """Add one point: its label, the model's prediction and its weight.

        Parameters
        ----------
        y_true : hashable
            The label: ``pos_val`` (class 1) or the one other label (class 0).
        y_pred : float or dict
            The score of class 1, or ``predict_proba_one``'s dict (its entry
            for ``pos_val`` is the score; a missing entry counts as 0).
        w : float, default=1.0
            The point's weight, finite and >= 0.
        time : optional
            The point's time, required when ``window`` or ``half_life`` is a
            duration (see :meth:`hmeasure_stream.DynamicAUC.add`).

        Raises
        ------
        ValueError
            If the label is a third one, or the score, weight or time is
            invalid; nothing changes.
        """
        self._tracker.add(y_true, self._score(y_pred), w, time=time)

    def revert(self, y_true: Label, y_pred: float | dict[Label, float],
               w: float = 1.0) -> None:
        """Remove a point added before (the same label, prediction and weight).

        Raises
        ------
        KeyError
            If no such point is held (river's own rolling metric ignores
            such a call); nothing changes.
        """
        self._tracker.remove(y_true, self._score(y_pred), w)

    @property
    def bigger_is_better(self) -> bool:
        return True

    @property
    def requires_labels(self) -> bool:
        # Scores, not predicted labels: progressive_val_score then calls
        # predict_proba_one.
        return False

    @property
    def works_with_weights(self) -> bool:
        return True

    def works_with(self, model: object) -> bool:
        """Classifiers (via ``predict_proba_one``) and anomaly detectors (their scores)."""
        return isinstance(model, (river_base.Classifier, river_base.AnomalyDetector,
                                  river_base.AnomalyFilter))

    def __len__(self) -> int:
        return len(self._tracker)


class _WindowMetric(_ExactMetric):
    """A metric of one structure taking the window options alone (``window``,
    ``half_life``, ``pos_val``); ``_track`` builds it, a DynamicAUC unless a
    subclass says otherwise."""

    def __init__(self, window: Window = None, half_life: Duration | None = None,
                 pos_val: Label = True) -> None:
        self.window = window
        self.half_life = half_life
        self.pos_val = pos_val
        self._tracker = self._track(window, half_life, pos_val)

    def _track(self, window: Window, half_life: Duration | None, pos_val: Label
               ) -> DynamicAUC | ProbabilitySums:
        return DynamicAUC(window=window, half_life=half_life, pos_label=pos_val)


class ROCAUC(_WindowMetric):
    """Exact AUC as a river metric, over every point, a window, or with decay.

    The Mann-Whitney AUC of the points seen (ties counting one half), kept in
    a :class:`~hmeasure_stream.DynamicAUC`: O(log n) per update, O(1) per
    :meth:`get`.

    Parameters
    ----------
    window : int, str, datetime.timedelta or numpy.timedelta64, optional
        Keep the last ``window`` points (an int), or the points of the last
        period (a duration, with ``time=`` on each update), as
        :class:`~hmeasure_stream.DynamicAUC`.  None: every point.
    half_life : float or duration, optional
        Exponential decay, as :class:`~hmeasure_stream.DynamicAUC`.
    pos_val : hashable, default=True
        The label of class 1 (river's name for ``pos_label``); the first other
        label seen is class 0 and a third one is refused.

    See Also
    --------
    hmeasure_stream.DynamicAUC : the structure behind it.

    Notes
    -----
    river's own metrics differ: ``river.metrics.ROCAUC`` approximates the
    curve with a fixed grid of thresholds; ``river.metrics.RollingROCAUC``
    (river 0.26) is exact for distinct scores but, for a class 0 point tied
    with class 1 points, gives the integer part of (c + c') / 2, c and c'
    counting the class 1 points scoring at least and strictly more than it,
    instead of that half-integer: each tie group with an odd number of class 1
    points loses half a pair per tied class 0 point.  It also returns 0 (not
    nan) while a class is absent, takes no weights, costs O(w) per ``get``
    for a window of w points, and ignores a ``revert`` of a point it does
    not hold (this class raises KeyError).  Labels are compared with
    ``pos_val`` (river converts them to int).

    References
    ----------
    N. Tatti, "Maintaining AUC and H-measure over time".

    D. Brzezinski and J. Stefanowski, "Prequential AUC: properties of the area
    under the ROC curve for data streams with concept drift", Knowledge and
    Information Systems 52, 2017.

    Examples
    --------
    >>> from hmeasure_stream.river import ROCAUC
    >>> metric = ROCAUC(window=4)
    >>> for y, p in zip([0, 1, 0, 1, 0, 1], [0.3, 0.5, 0.5, 0.7, 0.1, 0.5]):
    ...     metric.update(y, p)
    >>> metric.get()  # the last four points; the tie at 0.5 counts one half
    0.875
    >>> metric.update(True, {False: 0.2, True: 0.8})  # predict_proba_one's dict
    >>> metric.get(), len(metric)
    (1.0, 4)
    """

    _tracker: DynamicAUC

    def get(self) -> float:
        """The AUC of the points held; nan while a class is absent.  O(1)."""
        return self._tracker.auc


class HMeasure(_ExactMetric):
    """Exact H-measure as a river metric, over every point, a window, or with decay.

    Hand's H-measure of the points seen, with the class priors of those
    points, kept in a :class:`~hmeasure_stream.DynamicH`: O(log n) hull merges
    per update.

    Parameters
    ----------
    alpha, beta : float, default=2.0
        The Beta distribution of the cost, as for
        :func:`~hmeasure_stream.h_measure`.
    severity_ratio : float, optional
        R hmeasure's parameterisation instead of alpha/beta (a number > 0).
    window, half_life : optional
        As for :class:`ROCAUC`.
    pos_val : hashable, default=True
        The label of class 1, as for :class:`ROCAUC`.

    See Also
    --------
    hmeasure_stream.DynamicH : the structure behind it.
    hmeasure_stream.h_measure : the same value from scratch.

    Notes
    -----
    Each update costs O(log n) hull merges for n points held (the ROC hull changes);
    :meth:`get` reads the H-measure from the hull in O(h) for h hull
    vertices.  river has no H-measure.

    References
    ----------
    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    N. Tatti, "Maintaining AUC and H-measure over time".

    Examples
    --------
    >>> from hmeasure_stream import h_measure
    >>> from hmeasure_stream.river import HMeasure
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8]
    >>> metric = HMeasure()
    >>> for label, score in zip(y, s):
    ...     metric.update(label, score)
    >>> round(metric.get(), 6), round(h_measure(y, s), 6)
    (0.674074, 0.674074)
    """

    _tracker: DynamicH

    def __init__(self, alpha: float = 2.0, beta: float = 2.0,
                 severity_ratio: float | Literal["prior"] | None = None, window: Window = None,
                 half_life: Duration | None = None, pos_val: Label = True) -> None:
        self.alpha = alpha
        self.beta = beta
        self.severity_ratio = severity_ratio
        self.window = window
        self.half_life = half_life
        self.pos_val = pos_val
        self._tracker = DynamicH(alpha, beta, severity_ratio, window=window,
                                 half_life=half_life, pos_label=pos_val)

    def get(self) -> float:
        """The H-measure of the points held; nan while a class is absent."""
        return self._tracker.h


class AveragePrecision(_WindowMetric):
    """Exact average precision as a river metric, over every point, a window, or with decay.

    :func:`~hmeasure_stream.average_precision` of the points seen (the area
    under the precision-recall steps), kept in a
    :class:`~hmeasure_stream.DynamicAUC`: O(log n) per update, O(n) per
    :meth:`get` for n distinct scores held; the window metric ``"ap"``.

    Parameters
    ----------
    window, half_life, pos_val
        As for :class:`ROCAUC`.

    See Also
    --------
    hmeasure_stream.average_precision : the same value from scratch.
    ROCAUC : the AUC of the same points.

    Notes
    -----
    river's ``RollingPRAUC`` is the trapezoidal area under the curve, which
    overstates the precision between thresholds; this is scikit-learn's
    ``average_precision_score``.

    Examples
    --------
    >>> from hmeasure_stream import average_precision
    >>> from hmeasure_stream.river import AveragePrecision
    >>> y, s = [0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.6, 0.7]
    >>> metric = AveragePrecision(window=4)
    >>> for label, score in zip(y, s):
    ...     metric.update(label, score)
    >>> metric.get() == average_precision(y[-4:], s[-4:])
    True
    """

    _tracker: DynamicAUC

    def get(self) -> float:
        """The average precision of the points held; nan while a class is absent.  O(n)."""
        return self._tracker.average_precision()


class _ProbabilityMetric(_WindowMetric):
    """A river metric of the probabilities of class 1, lower is better."""

    _tracker: ProbabilitySums
    _name: str

    def _track(self, window: Window, half_life: Duration | None, pos_val: Label
               ) -> ProbabilitySums:
        return ProbabilitySums(self._name, window, half_life, pos_val)

    def get(self) -> float:
        """The value over the points held (nan while none weighs).  O(1)."""
        return self._tracker.value

    @property
    def bigger_is_better(self) -> bool:
        return False

    def works_with(self, model: object) -> bool:
        """Classifiers, whose ``predict_proba_one`` gives the probabilities."""
        return isinstance(model, river_base.Classifier)


class LogLoss(_ProbabilityMetric):
    """Exact log loss as a river metric, over every point, a window, or with decay.

    :func:`~hmeasure_stream.log_loss` of the points seen, each probability
    clipped to [eps, 1 - eps] (eps = 2.2e-16, scikit-learn's); the window
    metric ``"log_loss"``.  O(1) per update and :meth:`get`; the sums are
    kept exactly (a revert undoes its update bit for bit).

    Parameters
    ----------
    window, half_life, pos_val
        As for :class:`ROCAUC`.

    See Also
    --------
    hmeasure_stream.log_loss : the same value from scratch.
    BrierScore : the mean squared error of the same probabilities.

    Notes
    -----
    ``river.metrics.LogLoss`` clips at 1e-15 and keeps a running mean
    (rounded at each update and revert); the values agree to rounding for
    probabilities within [1e-15, 1 - 1e-15].  A revert of a point not held
    raises KeyError (river's subtracts whatever it is given): the points held
    are kept in order, memory O(n) for n points (river's: O(1)), and a revert
    looks its point up among them, O(n) at most.

    Examples
    --------
    >>> from hmeasure_stream import log_loss
    >>> from hmeasure_stream.river import LogLoss
    >>> metric = LogLoss(window=3)
    >>> for label, p in zip([True, False, False, True], [0.9, 0.1, 0.2, 0.65]):
    ...     metric.update(label, p)
    >>> metric.get() == log_loss([False, False, True], [0.1, 0.2, 0.65])
    True
    """

    _name = "log_loss"


class BrierScore(_ProbabilityMetric):
    """Exact Brier score as a river metric, over every point, a window, or with decay.

    :func:`~hmeasure_stream.brier_score` of the points seen, the mean
    squared difference between label (1 for ``pos_val``, else 0) and
    probability; the window metric ``"brier"``.  O(1) per update and
    :meth:`get`; the sums are kept exactly.

    Parameters
    ----------
    window, half_life, pos_val
        As for :class:`ROCAUC`.

    See Also
    --------
    hmeasure_stream.brier_score : the same value from scratch.
    LogLoss : the log loss of the same probabilities.

    Notes
    -----
    river has no Brier score; it is ``river.metrics.MSE`` of the labels as
    0/1 and the probabilities.  The points held are kept, as for
    :class:`LogLoss`.

    Examples
    --------
    >>> from hmeasure_stream.river import BrierScore
    >>> metric = BrierScore()
    >>> for label, p in zip([True, False, False, True], [0.9, 0.1, 0.2, 0.65]):
    ...     metric.update(label, {True: p, False: 1 - p})  # predict_proba_one's dict
    >>> round(metric.get(), 6)  # (0.01 + 0.01 + 0.04 + 0.1225) / 4
    0.045625
    """

    _name = "brier"
