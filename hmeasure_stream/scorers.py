"""scikit-learn scorers for the H-measure and the partial AUC.

Each factory returns a scorer made by :func:`sklearn.metrics.make_scorer`
with ``response_method=("decision_function", "predict_proba")``
(scikit-learn >= 1.4), the scores scikit-learn's own ranking scorers
(``"roc_auc"``, ``"average_precision"``) read, so it goes where a
``scoring=`` string goes: :func:`~sklearn.model_selection.cross_val_score`,
:class:`~sklearn.model_selection.GridSearchCV`, ...  scikit-learn is
imported when a scorer is made, not with ``hmeasure_stream``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from hmeasure_stream._validation import (
    Correction,
    Label,
    Priors,
    RateRange,
    SeverityRatio,
    check_cost,
    check_partial_correction,
    check_pos_label,
    check_rate_range,
    import_optional,
)
from hmeasure_stream.metrics import h_measure
from hmeasure_stream.partial import partial_auc

__all__ = ["h_scorer", "partial_auc_scorer"]

#: The responses asked for, the first the estimator has: those of scikit-learn's "roc_auc".
_RESPONSE_METHOD = ("decision_function", "predict_proba")


def _class_one(y_true: ArrayLike, pos_label: Label) -> Label:
    """The label of class 1: ``pos_label``, or the class scikit-learn's scores are of.

    For a binary classifier scikit-learn scores ``classes_[1]``, the larger
    of the two sorted labels (its ``predict_proba`` column, or
    ``decision_function`` as it is); without ``pos_label`` that label is
    class 1 here too.
    """
    if pos_label is not None:
        return pos_label
    return np.unique(np.asarray(y_true))[-1].item()


def _h_score(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Label = None,
             **options: Any) -> float:
    return h_measure(y_true, y_score, pos_label=_class_one(y_true, pos_label), **options)


def _partial_auc_score(y_true: ArrayLike, y_score: ArrayLike, *, pos_label: Label = None,
                       **options: Any) -> float:
    return partial_auc(y_true, y_score, pos_label=_class_one(y_true, pos_label), **options)


def _scorer_or_score(score: Callable[..., float], pos_label: Label, options: dict[str, Any],
                     scoring: tuple[Any, ...], score_params: dict[str, Any]) -> Any:
    """The scorer of ``score``, or, called as a scorer itself (``scoring=h_scorer``, as
    scikit-learn calls ``scorer(estimator, X, y, **score_params)``), its value."""
    scorer = _make(score, pos_label, options)
    if not scoring:
        if score_params:
            raise TypeError(f"unexpected keyword arguments {sorted(score_params)}")
        return scorer
    if len(scoring) != 3:
        raise TypeError(f"a scorer is called as scorer(estimator, X, y), got {len(scoring)} "
                        "positional arguments")
    return scorer(*scoring, **score_params)


def _make(score: Callable[..., float], pos_label: Label, options: dict[str, Any]) -> Any:
    pos_label = check_pos_label(pos_label)
    make_scorer = import_optional("sklearn.metrics", needed_by="hmeasure_stream.scorers",
                                  install="scikit-learn>=1.4").make_scorer
    if pos_label is not None:
        options["pos_label"] = pos_label
    # scikit-learn's order for ranking metrics: decision_function when the
    # estimator has one (negated when pos_label is classes_[0]), else the
    # pos_label column of predict_proba.  The metrics read only the order of
    # the scores, which the probabilities of such an estimator share.
    return make_scorer(score, response_method=_RESPONSE_METHOD, **options)


def h_scorer(*scoring: Any, alpha: float = 2.0, beta: float = 2.0,
             severity_ratio: SeverityRatio = None, priors: Priors = None,
             pos_label: Label = None, **score_params: Any) -> Any:
    """A scikit-learn scorer of Hand's H-measure on ``decision_function`` or ``predict_proba``.

    The scorer asks the fitted classifier for its scores of class 1 as
    scikit-learn's ``"roc_auc"`` scorer does: ``decision_function(X)`` when
    it has one (so ``LinearSVC`` and other classifiers without
    probabilities are scored), otherwise the class 1 column of
    ``predict_proba(X)``; it returns :func:`~hmeasure_stream.h_measure` of
    them against ``y``.  Pass it as ``scoring=`` to cross-validation and
    searches, made (``scoring=h_scorer(alpha=3)``) or as it is
    (``scoring=h_scorer``, the defaults).

    Parameters
    ----------
    *scoring : (estimator, X, y), optional
        Given, ``h_scorer`` is the scorer with the defaults (and the options
        given) and returns the score: scikit-learn calls
        ``scoring(estimator, X, y, **score_params)``.
    alpha, beta, severity_ratio, priors
        As for :func:`~hmeasure_stream.h_measure`.
    pos_label : hashable, optional
        The label of class 1: its probability column is scored, or
        ``decision_function`` negated when it is ``classes_[0]``, as
        scikit-learn does.  Default: the larger of the two labels, the class
        scikit-learn scores (``classes_[1]``).
    **score_params
        With ``scoring``: what scikit-learn passes to a scorer
        (``sample_weight``).

    Returns
    -------
    callable or float
        A scorer ``scorer(estimator, X, y)``, greater is better; with
        ``scoring``, its value.

    Raises
    ------
    ValueError
        If an option is invalid, as for :func:`~hmeasure_stream.h_measure`
        (checked here, before any scoring).
    ImportError
        If scikit-learn (>= 1.4) is not installed.

    See Also
    --------
    partial_auc_scorer : the partial AUC's scorer.
    hmeasure_stream.h_measure : the metric it computes.

    Notes
    -----
    The H-measure depends on the scores only through their order, and a
    classifier's probabilities are an increasing function of its decision
    function (the logistic function for ``LogisticRegression``), so both
    give the same value, except where the probabilities round distinct
    decision values to one float (a tie).  Each call costs one
    ``decision_function`` (or ``predict_proba``) and one
    :func:`~hmeasure_stream.h_measure`, O(n log n).

    References
    ----------
    D. J. Hand, "Measuring classifier performance: a coherent alternative to
    the area under the ROC curve", Machine Learning 77, 2009.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from sklearn.model_selection import cross_val_score
    >>> from hmeasure_stream import h_measure
    >>> from hmeasure_stream.scorers import h_scorer
    >>> X = [[0.0], [0.2], [0.4], [0.5], [0.6], [0.8], [0.1], [0.9]]
    >>> y = [0, 0, 1, 0, 1, 1, 0, 1]
    >>> model = LogisticRegression().fit(X, y)
    >>> h_scorer()(model, X, y) == h_measure(y, model.predict_proba(X)[:, 1])
    True
    >>> cross_val_score(LogisticRegression(), X, y, cv=2, scoring=h_scorer()).shape
    (2,)
    >>> (cross_val_score(LogisticRegression(), X, y, cv=2, scoring=h_scorer)
    ...  == cross_val_score(LogisticRegression(), X, y, cv=2, scoring=h_scorer())).all()
    np.True_
    >>> from sklearn.svm import LinearSVC  # no predict_proba: its decision_function
    >>> svm = LinearSVC().fit(X, y)
    >>> h_scorer()(svm, X, y) == h_measure(y, svm.decision_function(X))
    True
    """
    check_cost(alpha, beta, severity_ratio, priors)
    options = {"alpha": alpha, "beta": beta, "severity_ratio": severity_ratio,
               "priors": priors}
    return _scorer_or_score(_h_score, pos_label, options, scoring, score_params)


def partial_auc_scorer(*scoring: Any, fpr_range: RateRange = None,
                       tpr_range: RateRange = None, correction: Correction = None,
                       pos_label: Label = None, **score_params: Any) -> Any:
    """A scikit-learn scorer of the partial AUC on ``decision_function`` or ``predict_proba``.

    The scorer asks the fitted classifier for its scores of class 1 as
    :func:`h_scorer` does (``decision_function(X)`` when it has one,
    otherwise the class 1 column of ``predict_proba(X)``, as scikit-learn's
    ``"roc_auc"``) and returns :func:`~hmeasure_stream.partial_auc` of them
    against ``y`` over the given range.  With ``fpr_range=(0, m)`` and
    ``correction="mcclish"`` it scores as
    ``make_scorer(roc_auc_score, max_fpr=m, response_method=("decision_function",
    "predict_proba"))``.

    Parameters
    ----------
    *scoring : (estimator, X, y), optional
        Given, the scorer's value, as for :func:`h_scorer`
        (``scoring=partial_auc_scorer``: the whole AUC).
    fpr_range, tpr_range, correction
        As for :func:`~hmeasure_stream.partial_auc`.
    pos_label : hashable, optional
        The label of class 1, as for :func:`h_scorer`.
    **score_params
        With ``scoring``, as for :func:`h_scorer`.

    Returns
    -------
    callable or float
        A scorer ``scorer(estimator, X, y)``, greater is better; with
        ``scoring``, its value.

    Raises
    ------
    ValueError
        If a range or the correction is invalid, as for
        :func:`~hmeasure_stream.partial_auc` (checked here, before any
        scoring).
    ImportError
        If scikit-learn (>= 1.4) is not installed.

    See Also
    --------
    h_scorer : the H-measure's scorer.
    hmeasure_stream.partial_auc : the metric it computes.

    Notes
    -----
    Like the H-measure, the partial AUC depends on the scores only through
    their order (see :func:`h_scorer`).  Each call costs one
    ``decision_function`` (or ``predict_proba``) and one
    :func:`~hmeasure_stream.partial_auc`, O(n log n).

    References
    ----------
    D. K. McClish, "Analyzing a portion of the ROC curve", Medical Decision
    Making 9, 1989.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from hmeasure_stream import partial_auc
    >>> from hmeasure_stream.scorers import partial_auc_scorer
    >>> X = [[0.0], [0.2], [0.4], [0.5], [0.6], [0.8], [0.1], [0.9]]
    >>> y = ["no", "no", "yes", "no", "yes", "yes", "no", "yes"]
    >>> model = LogisticRegression().fit(X, y)
    >>> scorer = partial_auc_scorer(fpr_range=(0.0, 0.5))
    >>> scorer(model, X, y) == partial_auc(y, model.predict_proba(X)[:, 1],
    ...                                    fpr_range=(0.0, 0.5), pos_label="yes")
    True
    """
    check_rate_range(fpr_range, "fpr_range")
    check_rate_range(tpr_range, "tpr_range")
    check_partial_correction(correction, fpr_range, tpr_range)
    options = {"fpr_range": fpr_range, "tpr_range": tpr_range, "correction": correction}
    return _scorer_or_score(_partial_auc_score, pos_label, options, scoring, score_params)
