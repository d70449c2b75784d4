"""Plots of ROC curves with their convex hull, precision-recall curves, reliability
diagrams, and of metrics over time.

The displays (:class:`RocDisplay`, :class:`PrecisionRecallDisplay`,
:class:`ReliabilityDisplay`) are shaped as scikit-learn's: ``from_predictions``,
``from_estimator``, ``plot``, ``name=`` for the legend, ``line_``, ``ax_`` and
``figure_`` after drawing.

Requires matplotlib (``pip install 'hmeasure_stream[cli]'``); it is imported
only when a plot is drawn, and its absence is said in one line naming that extra.
"""

from __future__ import annotations

import datetime
import math
import numbers
import re
import weakref
from collections.abc import Hashable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream import (
    ApproxAUC,
    ApproxH,
    CalibrationReport,
    ConfidenceLevel,
    DynamicAUC,
    DynamicH,
    auc,
    average_precision,
    calibration_report,
    h_measure,
    precision_recall_curve,
    roc_hull,
    roc_points,
)
from hmeasure_stream._validation import (
    check_duration,
    check_option,
    import_optional,
    renamed_attributes,
    renamed_keyword,
)
from hmeasure_stream.metric_table import METRICS
from hmeasure_stream.streaming._window_rules import check_window_counts

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.container import BarContainer
    from matplotlib.figure import Figure, SubFigure
    from matplotlib.lines import Line2D
    from matplotlib.typing import ColorType

#: A duration as the windows take it: ``"2h"``, a timedelta or a numpy timedelta64.
Duration = str | datetime.timedelta | np.timedelta64
#: A structure whose ROC curve and hull the ROC plots draw (it keeps its points).
PointSet = DynamicAUC | DynamicH | ApproxH | ApproxAUC

#: The structures that keep their points (their ROC curve and hull can be drawn).
_POINT_SETS = (DynamicAUC, DynamicH, ApproxH, ApproxAUC)

__all__ = ["PrecisionRecallDisplay", "ReliabilityDisplay", "RocDisplay", "plot_metrics",
           "plot_reliability", "plot_roc"]

# The convex hull drawn with each ROC curve, so that the legend shows one
# entry per classifier (curve and hull side by side) however many share an Axes.
_HULL_OF_CURVE: weakref.WeakKeyDictionary[Artist, Line2D] = weakref.WeakKeyDictionary()
_CHANCE_GID = "hmeasure_stream-chance"
_HULL_TITLE = "solid: ROC curve, dashed: convex hull"
# The bands of the metric table: the metric each is drawn around, by its two ends.
_BANDS: dict[str, list[str | None]] = {}
for _metric in METRICS.values():
    if _metric.band is not None:
        _BANDS.setdefault(_metric.band[0], [None, None])[_metric.band[1]] = _metric.name
del _metric


def _pyplot() -> Any:
    return import_optional("matplotlib.pyplot", needed_by="hmeasure_stream.plotting",
                           install="hmeasure_stream[cli]")


def _darker(color: ColorType, factor: float = 0.55) -> tuple[float, ...]:
    """The same hue, darker: the hull's colour next to its curve's."""
    from matplotlib.colors import to_rgb

    return tuple(factor * channel for channel in to_rgb(color))


def _check_h(h: bool | dict[str, Any] | None) -> bool | dict[str, Any]:
    if isinstance(h, bool) or h is None:
        return bool(h)
    if isinstance(h, dict):
        return h
    raise ValueError(
        f"h must be True, False or a dict of h_measure options; got {type(h).__name__} {h!r}"
    )


#: The ``response_method`` values of ``from_estimator``, as scikit-learn's displays take them.
_RESPONSE_METHODS = ("auto", "predict_proba", "decision_function")


def _default_name(estimator: object) -> str:
    """The legend's default name of an estimator: its class name, or for a
    Pipeline (a ``steps`` list of (name, step) pairs) its last step's."""
    steps = getattr(estimator, "steps", None)
    if isinstance(steps, list) and steps and isinstance(steps[-1], tuple):
        estimator = steps[-1][-1]
    return type(estimator).__name__


def _estimator_scores(estimator: Any, X: Any, response_method: str, pos_label: Hashable | None,
                      where: str) -> tuple[NDArray[Any], Hashable]:
    """The scores of class ``pos_label`` (default: ``classes_[-1]``) of a fitted binary
    classifier on ``X``, and that label.

    ``"auto"`` reads ``predict_proba`` when the estimator has it, else
    ``decision_function``; a ``predict_proba`` gives the column of ``pos_label``,
    a ``decision_function`` (the score of ``classes_[1]``) is negated when
    ``pos_label`` is ``classes_[0]``.
    """
    response_method = check_option(response_method, "response_method", _RESPONSE_METHODS)
    kind = type(estimator).__name__
    classes = getattr(estimator, "classes_", None)
    if classes is None or np.ndim(classes) != 1:
        raise ValueError(f"{where}: estimator must be a fitted binary classifier (with "
                         f"classes_); got {kind}")
    classes = np.asarray(classes).tolist()  # (Python values, as the messages show them)
    if len(classes) != 2:
        raise ValueError(f"{where}: estimator must be a binary classifier; {kind} has "
                         f"{len(classes)} classes {classes!r}")
    if pos_label is None:
        pos_label = classes[-1]
    elif pos_label not in classes:
        raise ValueError(f"{where}: pos_label={pos_label!r} is not a class of the estimator, "
                         f"whose classes_ are {classes!r}")
    methods = (("predict_proba", "decision_function") if response_method == "auto"
               else (response_method,))
    for method in methods:
        respond = getattr(estimator, method, None)  # (a Pipeline hides what its last step lacks)
        if respond is not None:
            break
    else:
        raise ValueError(f"{where}: {kind} has no {' or '.join(methods)}")
    scores = np.asarray(respond(X))
    if method == "predict_proba":
        scores = scores[:, classes.index(pos_label)]
    elif pos_label == classes[0]:
        scores = -scores
    return scores, pos_label


def _named(where: str, name: str | None, label: str | None) -> str | None:
    """``name=``, or the deprecated ``label=`` it replaces (the legend's name: in this
    package a label is a class label)."""
    return cast("str | None", renamed_keyword(where, "label", "name", label, name, stacklevel=4))


class RocDisplay:
    """The ROC curve and convex hull of one classifier, with its AUC (and H), to plot.

    Build it with :meth:`from_predictions` (arrays), :meth:`from_estimator`
    (a fitted classifier and data) or :meth:`from_structure` (a
    :class:`~hmeasure_stream.DynamicAUC`, :class:`~hmeasure_stream.DynamicH`
    or :class:`~hmeasure_stream.ApproxH`); each draws it at once, as
    :func:`plot_roc` does.  Call :meth:`plot` again to draw it on other axes.

    Parameters
    ----------
    fpr, tpr : array-like
        The ROC curve: false and true positive rates of its points, as
        :func:`~hmeasure_stream.roc_points` returns them.
    hull_fpr, hull_tpr : array-like
        The vertices of its convex hull, as :func:`~hmeasure_stream.roc_hull`
        returns them.
    roc_auc : float
        The AUC, shown in the legend.
    h : float, optional
        The H-measure, shown in the legend when given.
    name : str, optional
        The classifier's name, shown in the legend before its AUC.
    label : str, optional
        Deprecated name of ``name`` (a label is a class label here); removed
        in the next release.

    Attributes
    ----------
    line_ : matplotlib.lines.Line2D
        The ROC curve drawn by the last :meth:`plot`.
    hull_line_ : matplotlib.lines.Line2D or None
        The convex hull drawn by the last :meth:`plot` (None without hull).
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Their figure.

    See Also
    --------
    plot_roc : the same in one call, returning the axes.
    PrecisionRecallDisplay : the precision-recall curve.
    hmeasure_stream.roc_hull : the hull's vertices.

    Notes
    -----
    The hull is drawn dashed, in a darker shade of the curve's colour, with
    a marker at each vertex; in the legend each classifier has one entry,
    its curve and hull side by side, labelled with its AUC (and H).
    Drawing is O(n) for n ROC points.  Like scikit-learn's
    ``RocCurveDisplay`` with ``drop_intermediate=False``: every distinct
    score is a point of the curve.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream.plotting import RocDisplay
    >>> y = [0, 0, 1, 0, 1, 1]
    >>> display = RocDisplay.from_predictions(y, [0.1, 0.2, 0.3, 0.4, 0.5, 0.9], name="model")
    >>> display.roc_auc
    0.8888888888888888
    >>> [text.get_text() for text in display.ax_.get_legend().get_texts()]
    ['model (AUC = 0.889)']

    From a fitted classifier, named after it:

    >>> from sklearn.linear_model import LogisticRegression
    >>> X = [[0.1], [0.2], [0.3], [0.4], [0.5], [0.9]]
    >>> display = RocDisplay.from_estimator(LogisticRegression().fit(X, y), X, y)
    >>> display.legend_label()
    'LogisticRegression (AUC = 0.889)'
    """

    __getattr__ = renamed_attributes(label="name")

    def __init__(self, fpr: ArrayLike, tpr: ArrayLike, hull_fpr: ArrayLike,
                 hull_tpr: ArrayLike, *, roc_auc: float, h: float | None = None,
                 name: str | None = None, label: str | None = None) -> None:
        self.fpr = np.asarray(fpr, dtype=np.float64)
        self.tpr = np.asarray(tpr, dtype=np.float64)
        self.hull_fpr = np.asarray(hull_fpr, dtype=np.float64)
        self.hull_tpr = np.asarray(hull_tpr, dtype=np.float64)
        self.roc_auc = float(roc_auc)
        self.h = None if h is None else float(h)
        self.name = renamed_keyword("RocDisplay", "label", "name", label, name)
        self.line_: Line2D | None = None
        self.hull_line_: Line2D | None = None
        self.ax_: Axes | None = None
        self.figure_: Figure | SubFigure | None = None

    @classmethod
    def from_predictions(cls, y_true: ArrayLike, y_score: ArrayLike, *,
                         sample_weight: ArrayLike | None = None,
                         h: bool | dict[str, Any] = False, name: str | None = None,
                         ax: Axes | None = None, hull: bool = True,
                         color: ColorType | None = None, chance: bool = True,
                         pos_label: Hashable | None = None, label: str | None = None,
                         **kwargs: Any) -> RocDisplay:
        """Compute the ROC curve, hull and AUC of labels and scores, and plot them.

        Parameters
        ----------
        y_true : array-like of shape (n,)
            Labels, 0/1 or bool (any two labels with ``pos_label``); class 1
            is the class expected to score higher.
        y_score : array-like of shape (n,)
            Scores, finite real numbers.
        sample_weight : array-like of shape (n,), optional
            Weights of the points.
        h : bool or dict, default=False
            Also show the H-measure in the legend: True for
            :func:`~hmeasure_stream.h_measure`'s defaults, or a dict of its
            options (``alpha``, ``beta``, ``severity_ratio``, ``priors``).
        name, ax, hull, color, chance, **kwargs
            As for :meth:`plot`.
        pos_label : hashable, optional
            The label of class 1, as for :func:`~hmeasure_stream.auc`.
        label : str, optional
            Deprecated name of ``name``; removed in the next release.

        Returns
        -------
        RocDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            If the labels or scores are invalid or a class is absent.
        """
        name = _named("RocDisplay.from_predictions", name, label)
        h_options = _check_h(h)
        common: dict[str, Any] = {"sample_weight": sample_weight, "pos_label": pos_label}
        fpr, tpr = roc_points(y_true, y_score, **common)
        vertices = roc_hull(y_true, y_score, **common)
        hull_fpr, hull_tpr = vertices[0], vertices[1]
        h_value = None
        if h_options is not False:
            options = {} if h_options is True else h_options
            h_value = h_measure(y_true, y_score, **common, **options)
        display = cls(fpr, tpr, hull_fpr, hull_tpr, name=name, h=h_value,
                      roc_auc=auc(y_true, y_score, **common))
        return display.plot(ax, hull=hull, color=color, chance=chance, **kwargs)

    @classmethod
    def from_estimator(cls, estimator: Any, X: ArrayLike, y: ArrayLike, *,
                       sample_weight: ArrayLike | None = None,
                       response_method: Literal["auto", "predict_proba",
                                                "decision_function"] = "auto",
                       pos_label: Hashable | None = None, name: str | None = None,
                       h: bool | dict[str, Any] = False, ax: Axes | None = None,
                       hull: bool = True, color: ColorType | None = None,
                       chance: bool = True, **kwargs: Any) -> RocDisplay:
        """Plot the ROC curve, hull and AUC of a fitted binary classifier on data.

        As scikit-learn's ``RocCurveDisplay.from_estimator``: the scores are
        the estimator's for class ``pos_label``, then
        :meth:`from_predictions` draws them.

        Parameters
        ----------
        estimator : fitted classifier
            A binary classifier with ``classes_`` (or a Pipeline ending in
            one) and ``predict_proba`` or ``decision_function``.
        X : array-like of shape (n, n_features)
            The data it scores.
        y : array-like of shape (n,)
            Their labels, among the estimator's ``classes_``.
        sample_weight : array-like of shape (n,), optional
            Weights of the points.
        response_method : {"auto", "predict_proba", "decision_function"}, default="auto"
            Which scores: ``"auto"`` reads ``predict_proba`` when the
            estimator has it, else ``decision_function``.
        pos_label : hashable, optional
            The class whose scores are read, class 1 of the curve: its
            ``predict_proba`` column, or ``decision_function`` negated when
            it is ``classes_[0]``.  Default: ``classes_[-1]``.
        name : str, optional
            The name in the legend.  Default: the estimator's class name (a
            Pipeline's: its last step's).
        h, ax, hull, color, chance, **kwargs
            As for :meth:`from_predictions`.

        Returns
        -------
        RocDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            If the estimator is not a fitted binary classifier, has no
            method ``response_method`` asks for, or ``response_method`` or
            ``pos_label`` is not one of its choices; else as for
            :meth:`from_predictions`.

        Notes
        -----
        scikit-learn names a Pipeline "Pipeline"; this display names it after
        the classifier it ends in.
        """
        scores, pos_label = _estimator_scores(estimator, X, response_method, pos_label,
                                              "RocDisplay.from_estimator")
        return cls.from_predictions(
            y, scores, sample_weight=sample_weight, pos_label=pos_label, h=h, ax=ax, hull=hull,
            name=_default_name(estimator) if name is None else name, color=color,
            chance=chance, **kwargs)

    @classmethod
    def from_structure(cls, structure: PointSet, *, h: bool | dict[str, Any] = False,
                       name: str | None = None, ax: Axes | None = None, hull: bool = True,
                       color: ColorType | None = None, chance: bool = True,
                       label: str | None = None, **kwargs: Any) -> RocDisplay:
        """Plot the ROC curve, hull and AUC of a structure's current points.

        Parameters
        ----------
        structure : DynamicAUC, DynamicH or ApproxH
            The structure; its points are already sorted, so this is O(n) for
            n distinct scores.
        h : bool, default=False
            Also show its H-measure (:class:`~hmeasure_stream.DynamicH` and
            :class:`~hmeasure_stream.ApproxH` only, with their own options).
        name, ax, hull, color, chance, **kwargs
            As for :meth:`plot`.
        label : str, optional
            Deprecated name of ``name``; removed in the next release.

        Returns
        -------
        RocDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            If a class is absent, or ``h`` is asked of a structure without H.
        """
        name = _named("RocDisplay.from_structure", name, label)
        kind = type(structure).__name__
        if not isinstance(structure, _POINT_SETS):
            raise ValueError(
                f"structure must be a DynamicAUC, DynamicH or ApproxH; got {kind}"
            )
        h_options = _check_h(h)
        if isinstance(h_options, dict):
            raise ValueError(
                f"h options are for arrays; a {kind} computes H with the options it was built with"
            )
        if h_options and not hasattr(type(structure), "h"):
            raise ValueError(f"h=True needs a DynamicH or ApproxH; a {kind} has no H-measure")
        fpr, tpr = structure.roc_points()
        vertices = structure.hull()
        hull_fpr, hull_tpr = vertices[0], vertices[1]
        display = cls(fpr, tpr, hull_fpr, hull_tpr, roc_auc=structure.auc,
                      h=structure.h if h_options and isinstance(structure, (DynamicH, ApproxH))
                      else None, name=name)
        return display.plot(ax, hull=hull, color=color, chance=chance, **kwargs)

    def legend_label(self, name: str | None = None, *, label: str | None = None) -> str:
        """The legend text: the name (if any) then the AUC (and H) to 3 decimals.

        Parameters
        ----------
        name : str, optional
            Instead of the display's own name.
        label : str, optional
            Deprecated name of ``name``; removed in the next release.

        Returns
        -------
        str
            For example ``"model (AUC = 0.889, H = 0.412)"``, or
            ``"AUC = 0.889"`` without a name.
        """
        name = _named("RocDisplay.legend_label", name, label)
        name = self.name if name is None else name
        values = f"AUC = {self.roc_auc:.3f}"
        if self.h is not None:
            values += f", H = {self.h:.3f}"
        return f"{name} ({values})" if name else values

    def plot(self, ax: Axes | None = None, *, name: str | None = None, hull: bool = True,
             color: ColorType | None = None, chance: bool = True, label: str | None = None,
             **kwargs: Any) -> RocDisplay:
        """Draw the curve (and hull) on ``ax``, with one legend entry.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (a new square figure when None).  Curves drawn on
            the same axes share one legend, one entry per classifier.
        name : str, optional
            The classifier's name in the legend (default: the display's).
        hull : bool, default=True
            Also draw the convex hull, dashed, in a darker shade.
        color : color, optional
            The curve's colour (default: the axes' next colour).
        chance : bool, default=True
            Draw the diagonal of a random classifier (once per axes).
        label : str, optional
            Deprecated name of ``name``; removed in the next release.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot` for the curve, e.g.
            ``linewidth`` or ``linestyle``.

        Returns
        -------
        RocDisplay
            This display, with ``line_``, ``hull_line_``, ``ax_`` and
            ``figure_`` set.
        """
        name = _named("RocDisplay.plot", name, label)
        kwargs = _line_kwargs(kwargs)
        ax = _new_axes(ax, (4.8, 4.8))
        if chance and not _has_chance_line(ax):
            ax.plot([0, 1], [0, 1], color="0.6", linewidth=0.8, linestyle=":",
                    label="_chance", gid=_CHANCE_GID)
        self.line_ = ax.plot(self.fpr, self.tpr, **{
            "linewidth": 1.6, **kwargs, "color": color, "label": self.legend_label(name),
        })[0]
        self.hull_line_ = None
        if hull:
            self.hull_line_ = ax.plot(
                self.hull_fpr, self.hull_tpr, color=_darker(self.line_.get_color()),
                linestyle=(0, (4, 2)), linewidth=1.3, marker="o", markersize=3.5,
                markerfacecolor="white", markeredgewidth=0.9, label="_convex hull",
            )[0]
            _HULL_OF_CURVE[self.line_] = self.hull_line_
        _unit_square(ax, "false positive rate", "true positive rate")
        ax.set_aspect("equal")
        _roc_legend(ax)
        self.ax_, self.figure_ = ax, ax.figure
        return self


def _line_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The keywords of a curve, matplotlib's aliases (``lw``, ``ls``) spelt out."""
    _pyplot()  # (its absence said in one line)
    from matplotlib.cbook import normalize_kwargs
    from matplotlib.lines import Line2D

    return normalize_kwargs(kwargs, Line2D)


def _new_axes(ax: Axes | None, size: tuple[float, float]) -> Axes:
    """``ax``, or the axes of a new figure of ``size`` inches."""
    if ax is None:
        _, ax = _pyplot().subplots(figsize=size, layout="constrained")
    return cast("Axes", ax)


def _has_chance_line(ax: Axes) -> bool:
    """The axes already hold a reference line (chance, perfect calibration): one each."""
    return any(line.get_gid() == _CHANCE_GID for line in ax.get_lines())


def _unit_square(ax: Axes, xlabel: str, ylabel: str) -> None:
    """Both axes over [0, 1], a margin for the lines on the edges, named."""
    ax.set_xlim(-0.01, 1.01)
    ax.set_ylim(-0.01, 1.01)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)


def _roc_legend(ax: Axes) -> None:
    """One legend entry per ROC curve on ``ax``, its hull beside it."""
    from matplotlib.legend_handler import HandlerTuple

    handles, labels = ax.get_legend_handles_labels()
    with_hull = [(h, _HULL_OF_CURVE[h]) if h in _HULL_OF_CURVE else h for h in handles]
    any_hull = any(isinstance(h, tuple) for h in with_hull)
    ax.legend(with_hull, labels, loc="lower right", fontsize="small",
              title=_HULL_TITLE if any_hull else None, title_fontsize="small",
              handler_map={tuple: HandlerTuple(ndivide=None, pad=0.6)}, handlelength=4.0)


def plot_roc(y_true: ArrayLike | PointSet, y_score: ArrayLike | None = None, *,
             sample_weight: ArrayLike | None = None, ax: Axes | None = None, hull: bool = True,
             name: str | None = None, color: ColorType | None = None,
             h: bool | dict[str, Any] = False, chance: bool = True,
             pos_label: Hashable | None = None, label: str | None = None,
             **kwargs: Any) -> Axes:
    """Plot the ROC curve and its convex hull, with the AUC (and H) in the legend.

    The curve joins the ROC points of the distinct scores (ties as diagonal
    segments); the hull is the one :func:`~hmeasure_stream.h_measure` and the
    AUCH are computed on.  Called again on the same ``ax``, it overlays
    another classifier: one legend entry per classifier.

    Parameters
    ----------
    y_true : array-like of shape (n,), or DynamicAUC, DynamicH or ApproxH
        Labels (0/1 or bool), or a structure whose current points to plot.
    y_score : array-like of shape (n,), optional
        Scores; required with labels, not allowed with a structure.
    sample_weight : array-like of shape (n,), optional
        Weights of the points (arrays only).
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when None).
    hull : bool, default=True
        Also draw the convex hull, dashed, in a darker shade of the curve's colour.
    name : str, optional
        The classifier's name, shown in the legend before its AUC.
    color : color, optional
        The curve's colour (default: the axes' next colour).
    h : bool or dict, default=False
        Also show the H-measure in the legend: True for the defaults of
        :func:`~hmeasure_stream.h_measure` (a structure: its own H), or a
        dict of ``h_measure`` options (arrays only).
    chance : bool, default=True
        Draw the diagonal of a random classifier (once per axes).
    pos_label : hashable, optional
        With arrays, the label of class 1, as for :func:`~hmeasure_stream.auc`.
    label : str, optional
        Deprecated name of ``name`` (a label is a class label here); removed
        in the next release.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` for the curve.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (:class:`RocDisplay` gives the lines as well).

    Raises
    ------
    ValueError
        If the labels, scores or weights are invalid, a class is absent, a
        structure comes with scores, or H is asked of a DynamicAUC.

    See Also
    --------
    RocDisplay : the same, keeping the lines and values.
    hmeasure_stream.roc_hull : the hull's vertices.

    Notes
    -----
    O(n log n) for arrays; O(n) for a structure (its points are already sorted).
    Ties are drawn as diagonal segments, the half credit the AUC gives them.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream.plotting import plot_roc
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> ax = plot_roc(y, [0.1, 0.2, 0.3, 0.4, 0.5, 0.9, 0.35, 0.8], name="model A", h=True)
    >>> ax = plot_roc(y, [0.3, 0.1, 0.2, 0.6, 0.5, 0.4, 0.7, 0.8], name="model B", ax=ax)
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['model A (AUC = 0.875, H = 0.674)', 'model B (AUC = 0.562)']
    """
    name = _named("plot_roc", name, label)
    if isinstance(y_true, _POINT_SETS):
        if y_score is not None or sample_weight is not None:
            raise ValueError(
                f"pass either a {type(y_true).__name__} or arrays (y_true, y_score), not both"
            )
        display = RocDisplay.from_structure(y_true, h=h, name=name, ax=ax, hull=hull,
                                            color=color, chance=chance, **kwargs)
        return cast("Axes", display.ax_)  # (set by plot)
    if y_score is None:
        raise ValueError("y_score is required with arrays (y_true, y_score)")
    display = RocDisplay.from_predictions(y_true, y_score, sample_weight=sample_weight, h=h,
                                          name=name, ax=ax, hull=hull, color=color,
                                          chance=chance, pos_label=pos_label, **kwargs)
    return cast("Axes", display.ax_)


def _values(name: object, values: Any, what: str = "metrics") -> NDArray[np.float64]:
    """A metric's values as a 1-d float array, or a ValueError naming it."""
    if values is None or np.ndim(values) == 0:
        raise ValueError(
            f"{what}[{name!r}] must be a 1-d array of values in stream order; got {values!r}"
        )
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{what}[{name!r}] must hold numbers (nan where undefined)") from None
    if array.ndim != 1:
        raise ValueError(
            f"{what}[{name!r}] must be a 1-d array of values; got shape {array.shape}"
        )
    return array


def _columns(metrics: Any) -> list[tuple[Any, Any, NDArray[np.float64]]]:
    if not hasattr(metrics, "items"):
        raise ValueError(
            "metrics must map metric names to arrays of values (such as the dict "
            f"sliding_window returns, or a pandas DataFrame); got {type(metrics).__name__}"
        )
    columns = [(name, values, _values(name, values)) for name, values in metrics.items()]
    if not columns:
        raise ValueError("metrics is empty: give at least one metric to plot")
    first, _, first_values = columns[0]
    for name, _, array in columns[1:]:
        if array.shape != first_values.shape:
            raise ValueError(
                f"metrics[{name!r}] has {array.shape[0]} values but metrics[{first!r}] has "
                f"{first_values.shape[0]}"
            )
    return columns


def _metric_label(name: object) -> str:
    """A metric's name in the legend: its label in the metric table, else the name."""
    return METRICS[name].label if name in METRICS else str(name)


def _band(name: object, bounds: Any, n: int) -> list[NDArray[np.float64]]:
    """(lower, upper) of a band as two arrays of n values, or a ValueError naming it."""
    if not isinstance(bounds, (tuple, list)) or len(bounds) != 2:
        raise ValueError(f"bands[{name!r}] must be a pair (lower, upper); got {bounds!r}")
    arrays = []
    for bound in bounds:
        if np.ndim(bound) == 0:
            if isinstance(bound, bool) or not isinstance(bound, numbers.Real):
                raise ValueError(f"bands[{name!r}]: a bound must be a number or an array; "
                                 f"got {bound!r}")
            arrays.append(np.full(n, float(bound)))
            continue
        array = _values(name, bound, "bands")
        if array.shape[0] != n:
            raise ValueError(f"bands[{name!r}]: a bound has {array.shape[0]} values, the "
                             f"metrics {n}")
        arrays.append(array.copy())
    return arrays


def _is_time(x: NDArray[Any]) -> bool:
    if np.issubdtype(x.dtype, np.datetime64):
        return True
    return x.dtype == object and x.size > 0 and isinstance(x[0], datetime.date)


def _references(reference: float | Sequence[float] | dict[str, float] | None
                ) -> list[tuple[str, float]]:
    if reference is None:
        return []
    pairs: list[tuple[str | None, Any]]
    if isinstance(reference, dict):
        pairs = list(reference.items())
    elif isinstance(reference, numbers.Real):
        pairs = [(None, reference)]
    elif isinstance(reference, (list, tuple, np.ndarray)):
        pairs = [(None, value) for value in reference]
    else:
        raise ValueError(
            "reference must be a number, a list of numbers or a dict of label to number; got "
            f"{reference!r}"
        )
    checked: list[tuple[str, float]] = []
    for label, value in pairs:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
            value
        ):
            where = "reference" if label is None else f"reference[{label!r}]"
            raise ValueError(f"{where} must be a finite number; got {value!r}")
        checked.append((f"{float(value):g}" if label is None else str(label), float(value)))
    return checked


class _NotGiven:
    """The default of ``window``: None already means every prefix."""

    def __repr__(self) -> str:
        return "<not given>"


_NOT_GIVEN = _NotGiven()
# The types of a duration (pandas.Timedelta is a datetime.timedelta).
_DURATIONS = (str, datetime.timedelta, np.timedelta64)
# A duration in words: its whole units, largest first ("1 h 30 min").
_UNITS = (("d", 86400 * 10**9), ("h", 3600 * 10**9), ("min", 60 * 10**9), ("s", 10**9),
          ("ms", 10**6), ("us", 10**3), ("ns", 1))


def _duration_text(value: Duration, name: str) -> str:
    """A duration in words: a string as written, spaced ("1h30min" as "1 h 30 min"), a
    timedelta as its whole units (90 minutes as "1 h 30 min")."""
    nanoseconds = check_duration(value, name)
    if isinstance(value, str):
        return " ".join(f"{number} {unit}" for number, unit in
                        re.findall(r"(\d+(?:\.\d*)?|\.\d+)\s*([a-zA-Z]+)", value))
    parts = []
    for unit, size in _UNITS:
        count, nanoseconds = divmod(nanoseconds, size)
        if count:
            parts.append(f"{count} {unit}")
    return " ".join(parts)


def _rows_text(value: float, name: str) -> str:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
            math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a number of rows > 0 or a duration; got {value!r}")
    return f"{value:g} row" + ("" if value == 1 else "s")


def _window_text(window: int | Duration | _NotGiven | None, half_life: float | Duration | None
                 ) -> str | None:
    """The window in words: "sliding window of 200 rows", "sliding window of 2 h",
    "every prefix", with ", half-life 30 min" when the points decay; None if not given."""
    if isinstance(window, _NotGiven) and half_life is None:
        return None
    if window is None or isinstance(window, _NotGiven):
        text = "every prefix" if half_life is None else "exponential decay"
    elif isinstance(window, _DURATIONS):
        text = f"sliding window of {_duration_text(window, 'window')}"
    else:  # a count, as the windows check it
        text = f"sliding window of {_rows_text(check_window_counts(window)[0], 'window')}"
    if half_life is not None:
        text += ", half-life " + (_duration_text(half_life, "half_life")
                                  if isinstance(half_life, _DURATIONS)
                                  else _rows_text(half_life, "half_life"))
    return text


def _level_text(level: float | ConfidenceLevel | None) -> str:
    """The legend's words for the interval of the metric table: "95% CI (DeLong)"."""
    if level is None:
        level = ConfidenceLevel()
    elif not isinstance(level, ConfidenceLevel):
        level = ConfidenceLevel(level)
    return f"{100 * level.level:.10g}% CI (DeLong)"


def _check_ylim(ylim: object) -> str | tuple[float, float]:
    """``plot_metrics``' ``ylim``: "data", "full" or a pair of finite numbers, low < high."""
    if isinstance(ylim, str):
        return str(check_option(ylim, "ylim", ("data", "full")))
    try:
        low, high = (float(value) for value in ylim)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        low = high = np.nan
    if not (np.isfinite(low) and np.isfinite(high) and low < high):
        raise ValueError(f"ylim must be 'data', 'full' or (low, high) with low < high, got "
                         f"{ylim!r}")
    return low, high


def _value_limits(ylim: str | tuple[float, float], drawn: list[np.ndarray],
                  references: list[float]) -> tuple[float, float]:
    """The value axis' limits for ``ylim`` (checked) and the values drawn."""
    if not isinstance(ylim, str):
        return ylim
    finite = [values[np.isfinite(values)] for values in drawn]
    finite = [values for values in finite if values.size]
    if ylim == "full" or not (finite or references):
        # [0, 1], or up to the largest value (a log loss is not bounded by 1).
        top = max((float(values.max()) for values in finite), default=1.0)
        return -0.02, max(1.0, top) * 1.02
    low = min([float(values.min()) for values in finite] + references)
    high = max([float(values.max()) for values in finite] + references)
    # A flat line gets a span of its own size (or 0.01 at 0), not a zero-height axis.
    margin = 0.05 * (high - low) if high > low else max(0.01, 0.05 * abs(high))
    return low - margin, high + margin


def plot_metrics(metrics: Mapping[Any, ArrayLike] | pd.DataFrame, *,
                 rows: ArrayLike | None = None, ax: Axes | None = None, title: str | None = None,
                 window: int | Duration | _NotGiven | None = _NOT_GIVEN,
                 half_life: float | Duration | None = None,
                 level: float | ConfidenceLevel | None = None, min_periods: int | None = None,
                 xlabel: str | None = None, ylabel: str | None = None,
                 reference: float | Sequence[float] | dict[str, float] | None = None,
                 bands: dict[str, tuple[ArrayLike | float, ArrayLike | float]] | None = None,
                 colors: dict[str, ColorType] | None = None, legend: bool = True,
                 ylim: Literal["data", "full"] | tuple[float, float] = "data") -> Axes:
    """Plot metrics over time, e.g. the result of :func:`~hmeasure_stream.sliding_window`.

    One line per metric, on a shared value axis zoomed to what is drawn,
    against the stream position or time (a date axis), with the legend to
    the right of the axes, outside the data.

    Parameters
    ----------
    metrics : dict of str to array-like, or pandas.DataFrame
        Each metric's values in stream order (nan where undefined), all of
        the same length.  The legend shows the names as given, except the
        metrics of the metric table :data:`~hmeasure_stream.METRICS`, shown
        by their ``label``: ``"auc"``, ``"h"`` and ``"auch"`` as AUC, H and AUCH.
    rows : array-like, optional
        The x value of each metric value: row numbers, or times
        (``datetime64``, ``datetime`` or a pandas DatetimeIndex, drawn with
        concise date ticks).  Default: the index of ``metrics`` when it is a
        pandas DataFrame (or its values are Series), else 0, 1, 2, ...
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when None).
    title : str, optional
        Title of the axes.  Default: the window in words, when ``window`` or
        ``half_life`` is given.
    window : int, str, datetime.timedelta, numpy.timedelta64 or None, optional
        The window the metrics were computed over, as given to
        :func:`~hmeasure_stream.sliding_window`, said in words: a number of
        rows as "sliding window of 200 rows", a duration as "sliding window
        of 2 h" (``"90min"`` as "1 h 30 min"), None as "every prefix".  It is
        the title, or the legend's title when ``title`` is given.  Default:
        not said.
    half_life : float, str, datetime.timedelta or numpy.timedelta64, optional
        The half-life of the points' decay, as given to
        :func:`~hmeasure_stream.sliding_window`, said after the window:
        "sliding window of 2 h, half-life 30 min" ("exponential decay,
        half-life 500 rows" with ``window=None``).
    level : float or ConfidenceLevel, optional
        The confidence level of DeLong's interval (``"auc_lo"``,
        ``"auc_hi"``) when it is drawn as a band, shown in the legend ("AUC
        95% CI (DeLong)"): that of the
        :class:`~hmeasure_stream.ConfidenceLevel` the metrics were computed
        with.  Default: ``ConfidenceLevel``'s default, 0.95.
    min_periods : int, optional
        Leave out the first ``min_periods - 1`` values, e.g. pass the window
        length for the values of :func:`~hmeasure_stream.sliding_window`,
        whose first values come from partial windows of fewer points (they
        swing widely at the start).  Default: draw every value.
    xlabel : str, optional
        Label of the x axis.  Default: the name of ``rows`` (or of the
        index) when it has one, else "time" for times and "row" for numbers.
    ylabel : str, optional
        Label of the y axis.  Default: the metric's name for one metric,
        else "metric value".
    reference : float, sequence of float, or dict of str to float, optional
        Horizontal reference lines, e.g. a threshold that should not be
        crossed; a dict gives each line its legend label.
    bands : dict of str to (lower, upper), optional
        Shaded bands, e.g. the confidence interval of a metric: each bound an
        array of the metrics' length or a number.  A band named like a metric
        takes that metric's colour (and hides with it under ``min_periods``).
        A band named like a metric is "AUC band" in the legend (its level is
        not known).  When ``metrics`` holds both ends of a band of the metric
        table (its ``band``: ``"auc_lo"`` and ``"auc_hi"``, the DeLong
        interval of :func:`~hmeasure_stream.sliding_window`), they are drawn
        as the band of their metric (``"auc"``), labelled with ``level``,
        rather than as lines, unless ``bands`` already has one for it (or
        they are the only metrics).
    colors : dict of str to color, optional
        The colour of some or all metrics (default: the axes' colour cycle).
    legend : bool, default=True
        Draw the legend (outside the axes, on the right).
    ylim : {"data", "full"} or (float, float), default "data"
        The value axis: ``"data"`` from the least to the largest value drawn
        (lines shown, bands and reference lines), with a margin of 5% of
        that span, so that a wobble of 0.94 to 0.96 and its band are seen;
        ``"full"`` the metrics' whole range [0, 1] (up to the largest value
        when one is above 1, as a log loss); a pair, those limits.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        If ``metrics`` is not a mapping of names to 1-d numeric arrays of one
        length, ``rows``, ``min_periods``, ``reference`` or ``bands`` do not
        fit it, or ``window``, ``half_life``, ``level`` or ``ylim`` is not one.

    See Also
    --------
    hmeasure_stream.sliding_window : the metrics over every window of an array.
    hmeasure_stream.SlidingWindow : the same over a stream that arrives in chunks.

    Notes
    -----
    O(n) for n values of each metric.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream import sliding_window
    >>> from hmeasure_stream.datasets import load_default_stream
    >>> from hmeasure_stream.plotting import plot_metrics
    >>> y, s = load_default_stream()
    >>> result = sliding_window(y, s, 200, metrics=("auc", "h"))
    >>> ax = plot_metrics(result, min_periods=200, reference={"alert": 0.8}, window=200)
    >>> ax.get_title()
    'sliding window of 200 rows'
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['AUC', 'H', 'alert']
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('row', 'metric value')

    Over time, with DeLong's interval at 90%:

    >>> import numpy as np
    >>> from hmeasure_stream import ConfidenceLevel
    >>> times = np.datetime64("2026-01-01") + np.arange(len(y)) * np.timedelta64(1, "m")
    >>> result = sliding_window(y, s, "2h", metrics=("auc", ConfidenceLevel(0.9)), times=times)
    >>> ax = plot_metrics(result, rows=times, window="2h", level=0.9, min_periods=120)
    >>> ax.get_title(), ax.get_xlabel()
    ('sliding window of 2 h', 'time')
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['AUC', 'AUC 90% CI (DeLong)']
    """
    columns = _columns(metrics)
    n = columns[0][2].shape[0]
    limits = _check_ylim(ylim)
    window_text = _window_text(window, half_life)
    band_text = _level_text(level)
    if min_periods is not None:  # as the windows check it (None: nothing hidden)
        check_window_counts(None if isinstance(window, _NotGiven) else window, min_periods)
    hidden = 0 if min_periods is None else min(int(min_periods) - 1, n)
    if rows is None:
        rows = getattr(metrics, "index", getattr(columns[0][1], "index", None))
        rows = None if callable(rows) else rows
    x_name = getattr(rows, "name", None)
    x = np.arange(n) if rows is None else np.asarray(rows)
    if x.ndim != 1 or x.shape[0] != n:
        raise ValueError(f"rows must be 1-d with one value per metric value ({n}); got shape "
                         f"{x.shape}")
    references = _references(reference)
    if bands is not None and not isinstance(bands, dict):
        raise ValueError(f"bands must be a dict of name to (lower, upper); got {bands!r}")
    if colors is not None and not isinstance(colors, dict):
        raise ValueError(f"colors must be a dict of metric name to colour; got {colors!r}")
    band_bounds = {name: _band(name, bounds, n) for name, bounds in (bands or {}).items()}
    table_bands = set()
    for around, ends in _BANDS.items():
        # A band of the metric table (DeLong's interval around the AUC).
        interval = {name: values for name, _, values in columns if name in ends}
        if len(interval) == 2 and around not in band_bounds and len(columns) > 2:
            band_bounds[around] = [interval[name].astype(np.float64) for name in ends]
            table_bands.add(around)
            columns = [column for column in columns if column[0] not in interval]

    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5), layout="constrained")
    metric_colors = {}
    for name, _, values in columns:
        values = values.copy()
        values[:hidden] = np.nan
        label = _metric_label(name)
        line = ax.plot(x, values, linewidth=1.2, label=label,
                       color=(colors or {}).get(name))[0]
        metric_colors[name] = line.get_color()
    for name, (lower, upper) in band_bounds.items():
        if name in metric_colors:
            lower[:hidden] = upper[:hidden] = np.nan
        label = _metric_label(name)
        if name in table_bands:
            label = f"{label} {band_text}"
        elif name in metric_colors:
            label = f"{label} band"
        ax.fill_between(x, lower, upper, color=metric_colors.get(name, "0.5"), alpha=0.2,
                        linewidth=0, label=label)
    for label, value in references:
        ax.axhline(value, color="0.3", linestyle="--", linewidth=0.9, label=label)

    if _is_time(x):
        import matplotlib.dates

        mdates: Any = matplotlib.dates  # (no type stubs)
        locator = mdates.AutoDateLocator()
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
        default_xlabel = "time"
    else:
        default_xlabel = "row"
    if xlabel is None:
        xlabel = x_name if isinstance(x_name, str) and x_name else default_xlabel
    ax.set_xlabel(xlabel)
    if ylabel is None:
        ylabel = _metric_label(columns[0][0]) if len(columns) == 1 else "metric value"
    ax.set_ylabel(ylabel)
    shown = [values[hidden:] for _, _, values in columns]
    shown += [bound[hidden:] if name in metric_colors else bound
              for name, bounds in band_bounds.items() for bound in bounds]
    ax.set_ylim(*_value_limits(limits, shown, [value for _, value in references]))
    ax.grid(True, color="0.9", linewidth=0.6)
    if title is None:
        title, window_text = window_text, None
    if title:
        ax.set_title(title)
    if legend:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  frameon=False, fontsize="small", title=window_text,
                  title_fontsize="small", alignment="left")
    return ax


class PrecisionRecallDisplay:
    """The precision-recall curve of one classifier, with its average precision, to plot.

    As scikit-learn's ``PrecisionRecallDisplay``: the curve is drawn as
    steps (``drawstyle="steps-post"``), whose area is the average
    precision shown in the legend.  Build it with :meth:`from_predictions`
    or :meth:`from_estimator`, which draw it at once; call :meth:`plot`
    again to draw it on other axes.

    Parameters
    ----------
    precision, recall : array-like
        The curve, as :func:`~hmeasure_stream.precision_recall_curve`
        returns it (from the lowest threshold up).
    average_precision : float
        Its :func:`~hmeasure_stream.average_precision`, shown in the legend.
    name : str, optional
        The classifier's name, shown in the legend before its AP.
    prevalence : float, optional
        The share (weight) of class 1: the precision of a classifier that
        ranks at random, the chance level line of :meth:`plot`.

    Attributes
    ----------
    line_ : matplotlib.lines.Line2D
        The curve drawn by the last :meth:`plot`.
    chance_level_ : matplotlib.lines.Line2D or None
        The chance level line drawn by the last :meth:`plot` (None without).
    ax_ : matplotlib.axes.Axes
        The axes drawn on.
    figure_ : matplotlib.figure.Figure
        Their figure.

    See Also
    --------
    hmeasure_stream.precision_recall_curve : the points drawn.
    hmeasure_stream.average_precision : the area under their steps.
    RocDisplay : the ROC curve.

    Notes
    -----
    Drawing is O(n) for n points of the curve.  The chance level is the
    weighted share of class 1 (scikit-learn's counts the points).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream.plotting import PrecisionRecallDisplay
    >>> y = [0, 0, 1, 1]
    >>> display = PrecisionRecallDisplay.from_predictions(y, [0.1, 0.4, 0.35, 0.8],
    ...                                                   name="model", chance=True)
    >>> display.line_.get_xydata().tolist()  # (recall, precision) from the lowest threshold
    [[1.0, 0.5], [1.0, 0.6666666666666666], [0.5, 0.5], [0.5, 1.0], [0.0, 1.0]]
    >>> [text.get_text() for text in display.ax_.get_legend().get_texts()]
    ['model (AP = 0.833)', 'chance level (AP = 0.500)']

    From a classifier without probabilities (its ``decision_function``):

    >>> from sklearn.svm import LinearSVC
    >>> X, y = [[0.1], [0.4], [0.35], [0.8], [0.6], [0.2]], [0, 0, 1, 1, 1, 0]
    >>> PrecisionRecallDisplay.from_estimator(LinearSVC().fit(X, y), X, y).legend_label()
    'LinearSVC (AP = 0.917)'
    """

    def __init__(self, precision: ArrayLike, recall: ArrayLike, *, average_precision: float,
                 name: str | None = None, prevalence: float | None = None) -> None:
        self.precision = np.asarray(precision, dtype=np.float64)
        self.recall = np.asarray(recall, dtype=np.float64)
        self.average_precision = float(average_precision)
        self.name = name
        self.prevalence = None if prevalence is None else float(prevalence)
        self.line_: Line2D | None = None
        self.chance_level_: Line2D | None = None
        self.ax_: Axes | None = None
        self.figure_: Figure | SubFigure | None = None

    @classmethod
    def from_predictions(cls, y_true: ArrayLike, y_score: ArrayLike, *,
                         sample_weight: ArrayLike | None = None,
                         pos_label: Hashable | None = None,
                         drop_intermediate: bool = False, name: str | None = None,
                         ax: Axes | None = None, color: ColorType | None = None,
                         chance: bool = False, **kwargs: Any) -> PrecisionRecallDisplay:
        """Compute the precision-recall curve and average precision, and plot them.

        Parameters
        ----------
        y_true, y_score, sample_weight, pos_label
            As for :func:`~hmeasure_stream.precision_recall_curve`.
        drop_intermediate : bool, default=False
            Leave out the thresholds that add no recall, as for
            :func:`~hmeasure_stream.precision_recall_curve` (the steps and
            their area are the same).
        name, ax, color, chance, **kwargs
            As for :meth:`plot`.

        Returns
        -------
        PrecisionRecallDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            If the labels, scores or weights are invalid or a class is absent.
        """
        common: dict[str, Any] = {"sample_weight": sample_weight, "pos_label": pos_label}
        precision, recall, _ = precision_recall_curve(y_true, y_score, **common,
                                                      drop_intermediate=drop_intermediate)
        # At the lowest threshold every point is predicted class 1: the precision there
        # is the weighted share of class 1 (with drop_intermediate too: it is kept).
        display = cls(precision, recall, name=name, prevalence=float(precision[0]),
                      average_precision=average_precision(y_true, y_score, **common))
        return display.plot(ax, color=color, chance=chance, **kwargs)

    @classmethod
    def from_estimator(cls, estimator: Any, X: ArrayLike, y: ArrayLike, *,
                       sample_weight: ArrayLike | None = None,
                       response_method: Literal["auto", "predict_proba",
                                                "decision_function"] = "auto",
                       pos_label: Hashable | None = None, drop_intermediate: bool = False,
                       name: str | None = None, ax: Axes | None = None,
                       color: ColorType | None = None, chance: bool = False,
                       **kwargs: Any) -> PrecisionRecallDisplay:
        """Plot the precision-recall curve of a fitted binary classifier on data.

        As scikit-learn's ``PrecisionRecallDisplay.from_estimator``.

        Parameters
        ----------
        estimator, X, y, sample_weight, response_method, pos_label, name
            As for :meth:`RocDisplay.from_estimator`.
        drop_intermediate, ax, color, chance, **kwargs
            As for :meth:`from_predictions`.

        Returns
        -------
        PrecisionRecallDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            As for :meth:`RocDisplay.from_estimator`.
        """
        scores, pos_label = _estimator_scores(estimator, X, response_method, pos_label,
                                              "PrecisionRecallDisplay.from_estimator")
        return cls.from_predictions(
            y, scores, sample_weight=sample_weight, pos_label=pos_label,
            drop_intermediate=drop_intermediate, ax=ax, color=color, chance=chance,
            name=_default_name(estimator) if name is None else name, **kwargs)

    def legend_label(self, name: str | None = None) -> str:
        """The legend text: the name (if any) then the AP to 3 decimals.

        Parameters
        ----------
        name : str, optional
            Instead of the display's own name.

        Returns
        -------
        str
            For example ``"model (AP = 0.833)"``, or ``"AP = 0.833"``
            without a name.
        """
        name = self.name if name is None else name
        value = f"AP = {self.average_precision:.3f}"
        return f"{name} ({value})" if name else value

    def plot(self, ax: Axes | None = None, *, name: str | None = None,
             color: ColorType | None = None, chance: bool = False,
             **kwargs: Any) -> PrecisionRecallDisplay:
        """Draw the curve as steps on ``ax``, with its AP in the legend.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (a new square figure when None).
        name : str, optional
            The classifier's name in the legend (default: the display's).
        color : color, optional
            The curve's colour (default: the axes' next colour).
        chance : bool, default=False
            Also draw the chance level, a horizontal line at the prevalence
            of class 1 (its AP), once per axes.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot` for the curve, e.g.
            ``linewidth`` or ``drawstyle="default"`` (straight lines between
            the points, which overstate the precision between them).

        Returns
        -------
        PrecisionRecallDisplay
            This display, with ``line_``, ``chance_level_``, ``ax_`` and
            ``figure_`` set.

        Raises
        ------
        ValueError
            If ``chance`` is asked of a display built without ``prevalence``.
        """
        if chance and self.prevalence is None:
            raise ValueError("chance=True needs the prevalence of class 1: build the display "
                             "with prevalence= (from_predictions and from_estimator do)")
        kwargs = _line_kwargs(kwargs)
        ax = _new_axes(ax, (4.8, 4.8))
        self.line_ = ax.plot(self.recall, self.precision, **{
            "drawstyle": "steps-post", "linewidth": 1.6, **kwargs, "color": color,
            "label": self.legend_label(name)})[0]
        self.chance_level_ = None
        if chance and not _has_chance_line(ax):
            prevalence = cast("float", self.prevalence)
            self.chance_level_ = ax.plot(
                [0, 1], [prevalence, prevalence], color="0.6", linewidth=0.8, linestyle=":",
                label=f"chance level (AP = {prevalence:.3f})", gid=_CHANCE_GID)[0]
        _unit_square(ax, "recall", "precision")
        ax.set_aspect("equal")
        ax.legend(loc="lower left", fontsize="small")
        self.ax_, self.figure_ = ax, ax.figure
        return self


class ReliabilityDisplay:
    """The reliability diagram of probabilities, with their ECE and Brier score, to plot.

    As scikit-learn's ``CalibrationDisplay``: one point per bin of positive
    weight of :func:`~hmeasure_stream.calibration_report`, its mean
    probability against its share of class 1, joined by a line, with the
    diagonal of perfect calibration; also the bins' weights as bars on a
    second y axis, and the expected calibration error and Brier score in the
    legend.  Build it with :meth:`from_predictions` or
    :meth:`from_estimator`, which draw it at once; call :meth:`plot` again
    to draw it on other axes.

    Parameters
    ----------
    report : CalibrationReport
        The bins and errors, as :func:`~hmeasure_stream.calibration_report`
        returns them.
    name : str, optional
        The model's name, shown in the legend before its ECE.
    weighted : bool, default=False
        The bins' weights are sums of sample weights (the bars' axis then
        says "bin weight", else "points per bin").

    Attributes
    ----------
    prob_true, prob_pred : ndarray of float64
        Each bin's share of class 1 and mean probability (the report's).
    ece, brier : float
        The expected calibration error and the Brier score (the report's).
    line_ : matplotlib.lines.Line2D
        The curve drawn by the last :meth:`plot`.
    bars_ : matplotlib.container.BarContainer or None
        The bins' weights drawn by the last :meth:`plot` (None without).
    ax_ : matplotlib.axes.Axes
        The axes of the curve.
    figure_ : matplotlib.figure.Figure
        Their figure.

    See Also
    --------
    plot_reliability : the same in one call, returning the axes.
    hmeasure_stream.calibration_report : the bins and errors drawn.

    Notes
    -----
    O(n) with uniform bins, O(n log n) with quantile bins.  The default of
    ten bins is that of :func:`~hmeasure_stream.calibration_error`
    (scikit-learn's display has five).

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream.plotting import ReliabilityDisplay
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> p = [0.1, 0.3, 0.35, 0.4, 0.6, 0.9, 0.2, 0.8]
    >>> display = ReliabilityDisplay.from_predictions(y, p, n_bins=2, name="model A")
    >>> display.line_.get_xydata().round(3).tolist()  # (mean p, share of class 1)
    [[0.27, 0.2], [0.767, 1.0]]
    >>> [text.get_text() for text in display.ax_.get_legend().get_texts()]
    ['perfectly calibrated', 'model A (ECE = 0.131, Brier = 0.117)']

    From a Pipeline, named after its classifier:

    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = [[0.1], [0.4], [0.35], [0.8], [0.6], [0.2]], [0, 0, 1, 1, 1, 0]
    >>> model = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
    >>> ReliabilityDisplay.from_estimator(model, X, y, n_bins=2).legend_label()
    'LogisticRegression (ECE = 0.157, Brier = 0.136)'
    """

    def __init__(self, report: CalibrationReport, *, name: str | None = None,
                 weighted: bool = False) -> None:
        if not isinstance(report, CalibrationReport):
            raise ValueError(f"report must be a CalibrationReport (calibration_report's); "
                             f"got {type(report).__name__}")
        self.report = report
        self.prob_true = report.prob_true
        self.prob_pred = report.prob_pred
        self.ece = report.ece
        self.brier = report.brier
        self.name = name
        self.weighted = bool(weighted)
        self.line_: Line2D | None = None
        self.bars_: BarContainer | None = None
        self.ax_: Axes | None = None
        self.figure_: Figure | SubFigure | None = None

    @classmethod
    def from_predictions(cls, y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10,
                         strategy: Literal["uniform", "quantile"] = "uniform",
                         sample_weight: ArrayLike | None = None,
                         pos_label: Hashable | None = None, name: str | None = None,
                         ax: Axes | None = None, color: ColorType | None = None,
                         counts: bool = True, diagonal: bool = True,
                         **kwargs: Any) -> ReliabilityDisplay:
        """Compute the reliability curve, ECE and Brier score of probabilities, and plot them.

        Parameters
        ----------
        y_true, y_prob, sample_weight, pos_label
            As for :func:`~hmeasure_stream.calibration_report`.
        n_bins, strategy
            The bins, as for :func:`~hmeasure_stream.calibration_error`.
        name, ax, color, counts, diagonal, **kwargs
            As for :meth:`plot`.

        Returns
        -------
        ReliabilityDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            As for :func:`~hmeasure_stream.calibration_report`.
        """
        report = calibration_report(y_true, y_prob, n_bins=n_bins, strategy=strategy,
                                    sample_weight=sample_weight, pos_label=pos_label)
        display = cls(report, name=name, weighted=sample_weight is not None)
        return display.plot(ax, color=color, counts=counts, diagonal=diagonal, **kwargs)

    @classmethod
    def from_estimator(cls, estimator: Any, X: ArrayLike, y: ArrayLike, *, n_bins: int = 10,
                       strategy: Literal["uniform", "quantile"] = "uniform",
                       sample_weight: ArrayLike | None = None,
                       pos_label: Hashable | None = None, name: str | None = None,
                       ax: Axes | None = None, color: ColorType | None = None,
                       counts: bool = True, diagonal: bool = True,
                       **kwargs: Any) -> ReliabilityDisplay:
        """Plot the reliability diagram of a fitted binary classifier's probabilities on data.

        As scikit-learn's ``CalibrationDisplay.from_estimator``: the
        probabilities are the ``predict_proba`` column of ``pos_label``.

        Parameters
        ----------
        estimator : fitted classifier
            A binary classifier with ``classes_`` and ``predict_proba`` (or
            a Pipeline ending in one).
        X, y, sample_weight, name
            As for :meth:`RocDisplay.from_estimator`.
        pos_label : hashable, optional
            The class whose probabilities are read.  Default: ``classes_[-1]``.
        n_bins, strategy, ax, color, counts, diagonal, **kwargs
            As for :meth:`from_predictions`.

        Returns
        -------
        ReliabilityDisplay
            The display, drawn (see its attributes).

        Raises
        ------
        ValueError
            If the estimator is not a fitted binary classifier with
            ``predict_proba``, or ``pos_label`` is not one of its classes;
            else as for :meth:`from_predictions`.
        """
        probabilities, pos_label = _estimator_scores(estimator, X, "predict_proba", pos_label,
                                                     "ReliabilityDisplay.from_estimator")
        return cls.from_predictions(
            y, probabilities, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight,
            pos_label=pos_label, name=_default_name(estimator) if name is None else name,
            ax=ax, color=color, counts=counts, diagonal=diagonal, **kwargs)

    def legend_label(self, name: str | None = None) -> str:
        """The legend text: the name (if any) then the ECE and Brier score to 3 digits.

        Parameters
        ----------
        name : str, optional
            Instead of the display's own name.

        Returns
        -------
        str
            For example ``"model (ECE = 0.131, Brier = 0.117)"``, or the
            values alone without a name.
        """
        name = self.name if name is None else name
        values = f"ECE = {self.ece:.3g}, Brier = {self.brier:.3g}"
        return f"{name} ({values})" if name else values

    def plot(self, ax: Axes | None = None, *, name: str | None = None,
             color: ColorType | None = None, counts: bool = True, diagonal: bool = True,
             **kwargs: Any) -> ReliabilityDisplay:
        """Draw the reliability curve on ``ax``, with its ECE and Brier score in the legend.

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw (a new figure when None).
        name : str, optional
            The model's name in the legend (default: the display's).
        color : color, optional
            The curve's colour (default: the axes' next colour).
        counts : bool, default=True
            Draw each bin's weight (its number of points without weights) as a
            bar over the bin, on a second y axis (``ax.figure`` holds it).
        diagonal : bool, default=True
            Draw the diagonal of perfect calibration (once per axes).
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.plot` for the curve.

        Returns
        -------
        ReliabilityDisplay
            This display, with ``line_``, ``bars_``, ``ax_`` and ``figure_`` set.
        """
        kwargs = _line_kwargs(kwargs)
        ax = _new_axes(ax, (4.5, 4.5))
        if diagonal and not _has_chance_line(ax):
            ax.plot([0, 1], [0, 1], color="0.6", linestyle=":", linewidth=1,
                    label="perfectly calibrated", gid=_CHANCE_GID)
        report = self.report
        self.line_ = ax.plot(report.prob_pred, report.prob_true, **{
            "marker": "o", "markersize": 4, **kwargs, "color": color,
            "label": self.legend_label(name)})[0]
        self.bars_ = None
        if counts:
            # The bins' weights behind the curve, on their own scale.
            twin = ax.twinx()
            edges = report.bin_edges
            lefts = edges[report.bin_index]
            self.bars_ = twin.bar(lefts, report.bin_weight,
                                  width=edges[report.bin_index + 1] - lefts, align="edge",
                                  color=self.line_.get_color(), alpha=0.15, linewidth=0)
            twin.set_ylabel("bin weight" if self.weighted else "points per bin")
            twin.set_ylim(0, 4 * float(report.bin_weight.max()))
            ax.set_zorder(twin.get_zorder() + 1)
            ax.patch.set_visible(False)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_xlabel("mean predicted probability")
        ax.set_ylabel("share of class 1")
        ax.legend(loc="upper left", frameon=False, fontsize="small")
        self.ax_, self.figure_ = ax, ax.figure
        return self


def plot_reliability(y_true: ArrayLike, y_prob: ArrayLike, *, n_bins: int = 10,
                     strategy: Literal["uniform", "quantile"] = "uniform",
                     sample_weight: ArrayLike | None = None,
                     pos_label: Hashable | None = None, ax: Axes | None = None,
                     name: str | None = None, color: ColorType | None = None,
                     counts: bool = True, diagonal: bool = True, label: str | None = None,
                     **kwargs: Any) -> Axes:
    """Plot the reliability diagram of probabilities: share of class 1 against mean probability.

    One point per bin of positive weight of
    :func:`~hmeasure_stream.calibration_report` (scikit-learn's
    ``calibration_curve``), joined by a line, with the diagonal of perfect
    calibration, the bins' weights as bars on a second y axis, and the ECE
    and Brier score in the legend: :meth:`ReliabilityDisplay.from_predictions`,
    returning the axes.

    Parameters
    ----------
    y_true, y_prob, sample_weight, pos_label
        As for :func:`~hmeasure_stream.calibration_report`.
    n_bins, strategy
        The bins, as for :func:`~hmeasure_stream.calibration_error`.
    ax : matplotlib.axes.Axes, optional
        Where to draw (a new figure when None).
    name : str, optional
        The model's name in the legend, before its ECE.
    color : color, optional
        The curve's colour (default: the axes' next colour).
    counts : bool, default=True
        Draw each bin's weight (its number of points without weights) as a
        bar over the bin, on a second y axis (``ax.figure`` holds it).
    diagonal : bool, default=True
        Draw the diagonal of perfect calibration (once per axes).
    label : str, optional
        Deprecated name of ``name`` (a label is a class label here); removed
        in the next release.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.plot` for the curve.

    Returns
    -------
    matplotlib.axes.Axes
        The axes of the curve (:class:`ReliabilityDisplay` gives the lines
        as well).

    Raises
    ------
    ValueError
        As for :func:`~hmeasure_stream.calibration_report`.

    See Also
    --------
    ReliabilityDisplay : the same, keeping the lines and values.
    hmeasure_stream.calibration_report : the bins and errors drawn.
    plot_metrics : the ``"ece"`` and ``"brier"`` of a window over time.

    Notes
    -----
    O(n) with uniform bins, O(n log n) with quantile bins.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream.plotting import plot_reliability
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> p = [0.1, 0.3, 0.35, 0.4, 0.6, 0.9, 0.2, 0.8]
    >>> ax = plot_reliability(y, p, n_bins=2, name="model A")
    >>> ax.get_lines()[-1].get_xydata().round(3).tolist()  # (mean p, share of class 1)
    [[0.27, 0.2], [0.767, 1.0]]
    >>> [text.get_text() for text in ax.get_legend().get_texts()]
    ['perfectly calibrated', 'model A (ECE = 0.131, Brier = 0.117)']
    """
    name = _named("plot_reliability", name, label)
    display = ReliabilityDisplay.from_predictions(
        y_true, y_prob, n_bins=n_bins, strategy=strategy, sample_weight=sample_weight,
        pos_label=pos_label, name=name, ax=ax, color=color, counts=counts, diagonal=diagonal,
        **kwargs)
    return cast("Axes", display.ax_)
