"""Data shipped with the package: a real classifier's scores on a real public dataset."""

from __future__ import annotations

from importlib import resources
from typing import Any

import numpy as np

from hmeasure_stream._validation import import_optional

__all__ = ["load_default_stream"]


def load_default_stream(*, as_frame: bool = False) -> Any:
    """Load the embedded stream of (label, score) pairs.

    The UCI optical recognition of handwritten digits data (the 1797 8x8
    images shipped with scikit-learn as ``load_digits``), with the task
    "is the digit 5 or more?", scored by a Gaussian naive Bayes classifier:
    each score is the log-odds of class 1 predicted by a model fitted on the
    other four of five folds (out-of-fold), so the scores are honest.  The
    points are in the dataset's order.  This is the stream the command-line
    monitor runs on when it is given no file.

    Parameters
    ----------
    as_frame : bool, default=False
        Return a pandas DataFrame with columns ``label`` and ``score``
        instead of two arrays (needs pandas).

    Returns
    -------
    y_true : numpy.ndarray of shape (1797,) and dtype int8
        The labels: 1 for the digits 5 to 9, 0 for the digits 0 to 4.
        Returned with ``y_score`` unless ``as_frame`` is true.
    y_score : numpy.ndarray of shape (1797,) and dtype float64
        The out-of-fold log-odds of class 1 (higher for class 1).
    frame : pandas.DataFrame
        With ``as_frame=True`` only: the columns ``label`` and ``score``.

    Raises
    ------
    ImportError
        With ``as_frame=True`` when pandas is not installed.

    See Also
    --------
    hmeasure_stream.sliding_window : the metrics over every window of the stream.

    Notes
    -----
    O(n) to read the 1797 rows of the CSV file in the package's ``data``
    folder.  The data set is by E. Alpaydin and C. Kaynak, *Optical
    Recognition of Handwritten Digits*, UCI Machine Learning Repository
    (1998).

    Examples
    --------
    >>> from hmeasure_stream import auc
    >>> from hmeasure_stream.datasets import load_default_stream
    >>> y, s = load_default_stream()
    >>> y.shape, y.dtype, int(y.sum())
    ((1797,), dtype('int8'), 896)
    >>> round(auc(y, s), 4)
    0.7887
    >>> frame = load_default_stream(as_frame=True)
    >>> list(frame.columns), len(frame)
    (['label', 'score'], 1797)
    """
    path = resources.files("hmeasure_stream") / "data" / "default_stream.csv"
    with path.open("r") as handle:
        table = np.loadtxt(handle, delimiter=",", comments="#", skiprows=3)
    y_true, y_score = table[:, 0].astype(np.int8), table[:, 1]
    if not as_frame:
        return y_true, y_score
    pd = import_optional("pandas", needed_by="load_default_stream(as_frame=True)",
                         install="pandas")
    return pd.DataFrame({"label": y_true, "score": y_score})
