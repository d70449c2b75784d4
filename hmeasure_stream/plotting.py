"""Plots of ROC curves with their convex hull, and of metrics over time.

Requires matplotlib (``pip install hmeasure_stream[cli]``); it is imported
only when a plot is drawn.
"""

import numpy as np

from hmeasure_stream import roc_hull, roc_points
from hmeasure_stream.streaming._base import PointSet

__all__ = ["plot_metrics", "plot_roc"]


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError(
            "plotting needs matplotlib: pip install matplotlib (or hmeasure_stream[cli])"
        ) from None
    return plt


def _roc_of(source, y_score, sample_weight):
    """(fpr, tpr) of the ROC points and of the hull, from arrays or a structure."""
    if isinstance(source, PointSet):
        if y_score is not None or sample_weight is not None:
            raise ValueError(
                f"pass either a {type(source).__name__} or arrays (y_true, y_score), not both"
            )
        return (*source.roc_points(), *source.hull())
    if y_score is None:
        raise ValueError("y_score is required with arrays (y_true, y_score)")
    return (*roc_points(source, y_score, sample_weight=sample_weight),
            *roc_hull(source, y_score, sample_weight=sample_weight))


def plot_roc(y_true, y_score=None, *, sample_weight=None, ax=None, hull=True, label=None):
    """Plot the ROC curve and its convex hull.

    The curve joins the ROC points of the distinct scores (ties as diagonal
    segments); the hull is the one :func:`~hmeasure_stream.h_measure` and the
    AUCH are computed on.

    Parameters
    ----------
    y_true : array-like of shape (n,), or DynamicAUC, DynamicH or ApproxH
        Labels (0/1 or bool), or a structure whose current points to plot.
    y_score : array-like of shape (n,), optional
        Scores; required with labels, not allowed with a structure.
    sample_weight : array-like of shape (n,), optional
        Weights of the points (arrays only).
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).
    hull : bool, default=True
        Also draw the convex hull the H-measure is computed on.
    label : str, optional
        Legend label of the curve.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    See Also
    --------
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
    >>> ax = plot_roc([0, 0, 1, 0, 1, 1], [0.1, 0.2, 0.3, 0.4, 0.5, 0.9], label="model")
    >>> ax.get_xlabel(), len(ax.lines)
    ('false positive rate', 3)
    """
    plt = _pyplot()
    fpr, tpr, hull_fpr, hull_tpr = _roc_of(y_true, y_score, sample_weight)
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5), constrained_layout=True)
    ax.plot([0, 1], [0, 1], color="0.75", linewidth=0.8, linestyle=":")
    line = ax.plot(fpr, tpr, linewidth=1.2, label=label or "ROC")[0]
    if hull:
        ax.plot(hull_fpr, hull_tpr, color=line.get_color(),
                linestyle="--", linewidth=1.0, marker="o", markersize=2.5,
                label=f"{label} hull" if label else "convex hull")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    ax.set_xlabel("false positive rate")
    ax.set_ylabel("true positive rate")
    ax.legend(loc="lower right")
    return ax


def plot_metrics(metrics, *, rows=None, ax=None, title=None):
    """Plot metrics over time, e.g. the result of :func:`~hmeasure_stream.sliding_window`.

    One line per metric, on a shared [0, 1] axis, against the stream position.

    Parameters
    ----------
    metrics : dict of str to array-like
        Each metric's values in stream order (nan where undefined).
    rows : array-like, optional
        The stream position of each value (default 0, 1, 2, ...).
    ax : matplotlib Axes, optional
        Where to draw (a new figure when None).
    title : str, optional
        Title of the axes.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    See Also
    --------
    hmeasure_stream.sliding_window : the metrics over every window of an array.

    Notes
    -----
    O(n) for n values.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from hmeasure_stream import sliding_window
    >>> from hmeasure_stream.plotting import plot_metrics
    >>> result = sliding_window([0, 1, 0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3, 0.8, 0.1], 3)
    >>> ax = plot_metrics(result, title="window of 3")
    >>> [line.get_label() for line in ax.lines]
    ['AUC']
    """
    plt = _pyplot()
    if ax is None:
        _, ax = plt.subplots(figsize=(8, 3.5), constrained_layout=True)
    for name, values in metrics.items():
        values = np.asarray(values, dtype=np.float64)
        x = np.arange(values.shape[0]) if rows is None else np.asarray(rows)
        ax.plot(x, values, linewidth=1, label=name.upper())
    ax.set_xlabel("row")
    ax.set_ylim(0, 1)
    if title:
        ax.set_title(title)
    ax.legend(loc="lower left")
    return ax
