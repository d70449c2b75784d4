"""Crisp (hard-decision) multi-class classifiers: the volume under the ROC surface and its
one-point approximations.

A crisp classifier over c classes is its confusion matrix of rates: row i is
the distribution of the predicted class for points of actual class i.  Its c(c - 1)
off-diagonal rates are a point of the ROC space; the valid classifiers fill
V = {rates >= 0, each row's off-diagonal rates summing to at most 1}, of
volume (1 / (c - 1)!)^c (1/8 for 3 classes).  The trivial classifier T_j
predicts class j whatever the actual class; randomising between them gives
every h_0 T_0 + ... + h_{c-1} T_{c-1}.  A classifier v is discarded by a
classifier z when some h_0, ..., h_{c-1}, h_d >= 0 summing to 1 make every
off-diagonal rate of v at least the same rate of sum_j h_j T_j + h_d z (it is
never better than a mix of z and the trivial classifiers, whatever the costs).
The VUS of z is the volume of the valid classifiers it discards: 1/8 for the
perfect classifier of 3 classes, 1/180 for every trivial one.

The derivation of the exact method is in the documentation
(``docs/multiclass.rst``); in short, eliminating h_d from the system above
(Fourier-Motzkin) gives the discarded region as an explicit list of linear
inequalities, whose polytope is intersected with V and measured with Qhull.
"""

from __future__ import annotations

import itertools
import math
import numbers
from typing import Literal, NamedTuple, cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from hmeasure_stream._validation import (
    FloatArray,
    RandomState,
    check_integer,
    check_option,
    check_random_state,
    unmasked,
)

__all__ = ["CrispVUS", "crisp_auc_approximations", "crisp_vus"]

# Largest number of classes with an exact volume: the ROC space of 4 classes has
# 12 dimensions, too many for vertex enumeration.
_EXACT_MAX_CLASSES = 3
_CHUNK = 16384
# Cost directions at most in the outer test of a set's Monte Carlo.
_MAX_CHOICES = 1024
# Margin of a cut: a sample within it of a cut's plane is not separated by that cut
# (the separation problem then decides it).
_CUT_TOLERANCE = 1e-9
# Interior points tried in turn when Qhull reports a precision (topology) error.
_RETRIES = 8


class CrispVUS(NamedTuple):
    """The VUS of a crisp classifier (or a set of them), returned by :func:`crisp_vus`.

    A named tuple: exact volumes have no standard error and no samples; Monte
    Carlo estimates carry both.

    Attributes
    ----------
    vus : float
        The volume under the ROC surface: exact, or the Monte Carlo estimate.
    std_error : float
        Standard error of a Monte Carlo estimate; 0.0 for an exact volume.
    method : str
        ``"exact"`` or ``"monte carlo"``.
    n_samples : int
        Number of uniform valid classifiers drawn; 0 for an exact volume.

    See Also
    --------
    crisp_vus : computes it.

    Examples
    --------
    >>> import numpy as np
    >>> from hmeasure_stream import crisp_vus
    >>> result = crisp_vus(np.eye(3))
    >>> round(result.vus, 12), result.std_error, result.method, result.n_samples
    (0.125, 0.0, 'exact', 0)
    >>> vus, std_error, method, n_samples = crisp_vus([[0.6, 0.4], [0.2, 0.8]])
    >>> round(vus, 12), method
    (0.7, 'exact')
    """

    vus: float
    std_error: float
    method: str
    n_samples: int


def _check_confusion(confusion: ArrayLike, allow_set: bool) -> tuple[FloatArray, bool]:
    """Rates of shape (m, c, c), each row normalised, and whether a set was given."""
    confusion = unmasked(confusion, "confusion")
    try:
        array = np.asarray(confusion)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"confusion could not be read as an array: {exc}") from None
    if array.dtype.kind == "O":
        try:
            array = array.astype(np.float64)
        except (TypeError, ValueError):
            for index in np.ndindex(array.shape):
                value = array[index]
                if isinstance(value, (bool, np.bool_)) or not isinstance(
                    value, (numbers.Real, np.number)
                ):
                    where = ", ".join(str(int(k)) for k in index)
                    raise ValueError(
                        f"confusion must be numeric; found {value!r} at [{where}]"
                    ) from None
            raise
    if array.dtype.kind not in "biuf":
        raise ValueError(f"confusion must be numeric, got an array of dtype {array.dtype}")
    shape = array.shape
    is_set = array.ndim == 3
    if not (array.ndim == 2 or (allow_set and is_set)):
        expected = "(c, c) or a set of shape (m, c, c)" if allow_set else "(c, c)"
        raise ValueError(f"confusion must have shape {expected}; got shape {shape}")
    if shape[-1] != shape[-2]:
        raise ValueError(
            f"confusion must be square (rows: actual class, columns: predicted class); "
            f"got shape {shape}"
        )
    if shape[-1] < 2:
        raise ValueError(f"confusion must cover at least 2 classes; got shape {shape}")
    if is_set and shape[0] == 0:
        raise ValueError("confusion is an empty set of classifiers")
    matrices = array.astype(np.float64).reshape((-1, shape[-1], shape[-1]))

    def at(index: NDArray[np.intp]) -> str:
        k, i, j = (int(x) for x in index)
        return f"[{k}, {i}, {j}]" if is_set else f"[{i}, {j}]"

    bad = np.argwhere(~np.isfinite(matrices))
    if bad.size:
        raise ValueError(
            f"confusion must contain only finite values; found "
            f"{matrices[tuple(bad[0])].item()!r} at {at(bad[0])}"
        )
    bad = np.argwhere(matrices < 0)
    if bad.size:
        raise ValueError(
            f"confusion must be non-negative; found {matrices[tuple(bad[0])].item()!r} at "
            f"{at(bad[0])}"
        )
    # Each row over a power of two that brings its largest entry into [0.5, 1)
    # (exact): the rates are unchanged and a row of entries near the float64
    # maximum sums without overflow.
    matrices = np.ldexp(matrices, -np.frexp(matrices.max(axis=2, keepdims=True))[1])
    totals = matrices.sum(axis=2)
    empty = np.argwhere(~(totals > 0))
    if empty.size:
        k, i = (int(x) for x in empty[0])
        row = f"row {i} of classifier {k}" if is_set else f"row {i}"
        raise ValueError(
            f"confusion {row} sums to 0: actual class {i} has no points, so its rates "
            "are undefined"
        )
    return matrices / totals[:, :, None], is_set


def _off_diagonal(n_classes: int) -> list[tuple[int, int]]:
    """(row, column) of each coordinate of the ROC space, row-major."""
    return [(i, j) for i in range(n_classes) for j in range(n_classes) if i != j]


def _valid_space(n_classes: int) -> FloatArray:
    """Inequalities a.v + b <= 0 of V beyond v >= 0: each row's off-diagonal sum <= 1."""
    index = _off_diagonal(n_classes)
    rows = np.zeros((n_classes, len(index) + 1))
    for k, (i, _) in enumerate(index):
        rows[i, k] = 1.0
    rows[:, -1] = -1.0
    return rows


def _interior_point(n_classes: int) -> FloatArray:
    """Every off-diagonal rate halfway between 1/c and 1/(c - 1): strictly inside V and
    strictly inside the region the trivial classifiers discard (the column minima sum to
    more than 1), hence inside every discarded region."""
    value = (1.0 / n_classes + 1.0 / (n_classes - 1)) / 2.0
    return np.full(n_classes * (n_classes - 1), value)


def _halfspaces_one(z: FloatArray) -> FloatArray:
    """H-representation (a.v + b <= 0) of the region one classifier ``z`` discards, in V.

    For each choice sigma of one actual class sigma(j) != j per predicted class j, let
    S_sigma(v) = sum_j v[sigma(j), j] and s_sigma = S_sigma(z).  The discard condition
    is: some h in [0, 1] has v >= h z and S_sigma(v) - 1 >= h (s_sigma - 1) for every
    sigma.  Eliminating h (every lower bound below every upper bound) leaves:
    v >= 0; S_sigma(v) >= 1 if s_sigma >= 1; and, for s_sigma < 1, S_sigma(v) >= s_sigma,
    z_m (1 - S_sigma(v)) <= v_m (1 - s_sigma) for z_m > 0, and
    (1 - S_sigma(v)) (s_tau - 1) <= (S_tau(v) - 1) (1 - s_sigma) for s_tau > 1.
    """
    n_classes = z.shape[0]
    index = _off_diagonal(n_classes)
    position = {pair: k for k, pair in enumerate(index)}
    dim = len(index)
    z_vec = np.array([z[i, j] for i, j in index])
    choices = itertools.product(*[[i for i in range(n_classes) if i != j]
                                  for j in range(n_classes)])
    sigma_rows = []
    for choice in choices:
        row = np.zeros(dim)
        for j, i in enumerate(choice):
            row[position[(i, j)]] = 1.0
        sigma_rows.append(row)
    sigma = np.array(sigma_rows)
    s = sigma @ z_vec
    rows = [np.hstack([-np.eye(dim), np.zeros((dim, 1))]), _valid_space(n_classes)]
    high = s >= 1
    rows.append(np.hstack([-sigma[high], np.ones((int(high.sum()), 1))]))
    above = np.flatnonzero(s > 1)
    positive = np.flatnonzero(z_vec > 0)
    eye = np.eye(dim)
    for k in np.flatnonzero(~high):
        rows.append(np.append(-sigma[k], s[k])[None, :])
        if positive.size:
            a = -z_vec[positive, None] * sigma[k][None, :] - (1 - s[k]) * eye[positive]
            rows.append(np.hstack([a, z_vec[positive, None]]))
        if above.size:
            a = -(s[above, None] - 1) * sigma[k][None, :] - (1 - s[k]) * sigma[above]
            rows.append(np.hstack([a, ((s[above] - 1) + (1 - s[k]))[:, None]]))
    return np.vstack(rows)


def _halfspaces_set(rates: FloatArray) -> FloatArray:
    """H-representation of the region a set of classifiers discards, in V.

    The region is (conv(trivial classifiers and the set) + nonnegative orthant)
    intersected with V.  As V lies in the unit cube, its part inside the cube is the
    convex hull of the generators with every subset of their coordinates raised to 1;
    Qhull gives that hull's facets.
    """
    n_classes = rates.shape[1]
    index = _off_diagonal(n_classes)
    dim = len(index)
    trivial = np.array([[1.0 if j == k else 0.0 for _, j in index] for k in range(n_classes)])
    given = np.array([[m[i, j] for i, j in index] for m in rates])
    generators = np.vstack([trivial, given])
    raised = np.array(list(itertools.product((False, True), repeat=dim)))
    points = np.where(raised[None, :, :], 1.0, generators[:, None, :]).reshape(-1, dim)
    points = np.unique(points, axis=0)
    from scipy.spatial import ConvexHull  # (scipy.spatial and .optimize: imported on first use)

    hull = ConvexHull(points)
    return np.vstack([hull.equations, _valid_space(n_classes)])


def _polytope_volume(halfspaces: FloatArray, interior: FloatArray) -> float:
    # Scale every inequality to a unit normal (Qhull works in the dual).
    halfspaces = halfspaces / np.linalg.norm(halfspaces[:, :-1], axis=1)[:, None]
    from scipy.spatial import ConvexHull, HalfspaceIntersection

    vertices = HalfspaceIntersection(halfspaces, interior).intersections
    return float(ConvexHull(vertices).volume)


def _exact_volume(rates: FloatArray, is_set: bool) -> float:
    """Volume of the discarded region.

    Qhull's vertex enumeration of these highly degenerate polytopes fails now and then
    (about 1 in 3000 random classifiers) with a topology error; another interior point
    (the dual problem is then numerically different, the polytope the same) fixes it.
    """
    from scipy.spatial import QhullError

    n_classes = rates.shape[1]
    if is_set and rates.shape[0] > 1:
        halfspaces = _halfspaces_set(rates)
    else:
        halfspaces = _halfspaces_one(rates[0])
    centre = _interior_point(n_classes)
    # Within 1/(2c(c-1)) of the centre every inequality still holds strictly.
    shift = 1.0 / (2 * n_classes * (n_classes - 1)) / 2
    shifts = np.random.default_rng(0).uniform(-shift, shift, (_RETRIES, centre.shape[0]))
    shifts[0] = 0.0
    for attempt in range(_RETRIES):
        try:
            return _polytope_volume(halfspaces, centre + shifts[attempt])
        except QhullError:
            if attempt == _RETRIES - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _valid_volume(n_classes: int) -> float:
    return (1.0 / math.factorial(n_classes - 1)) ** n_classes


def _sample_valid(rng: np.random.Generator, count: int, n_classes: int) -> FloatArray:
    """``count`` classifiers uniform in V: each row's rates uniform on the simplex."""
    draws = rng.exponential(size=(count, n_classes, n_classes))
    return cast(FloatArray, draws / draws.sum(axis=2, keepdims=True))


def _discarded_one(v: FloatArray, z: FloatArray) -> NDArray[np.bool_]:
    """Whether each sampled classifier ``v`` (shape (N, c, c)) is discarded by ``z``.

    g(h) = sum_j min_{i != j} (v_ij - h z_ij) + h - 1 is concave and piecewise linear in
    h; v is discarded when g(h) >= 0 for some h in [0, h_max], h_max = min(1, v_ij / z_ij).
    The maximum is at an end of the interval or where two lines of one column's minimum
    cross, so g is evaluated at those candidates.
    """
    n_classes = z.shape[0]
    off = ~np.eye(n_classes, dtype=bool)
    positive = off & (z > 0)
    h_max = np.ones(v.shape[0])
    if positive.any():
        h_max = np.minimum(h_max, (v[:, positive] / z[positive]).min(axis=1))
    candidates = [np.zeros_like(h_max), h_max]
    for j in range(n_classes):
        rows = [i for i in range(n_classes) if i != j]
        for a, b in itertools.combinations(rows, 2):
            slope = z[a, j] - z[b, j]
            if slope != 0:
                cross = (v[:, a, j] - v[:, b, j]) / slope
                candidates.append(np.clip(cross, 0.0, h_max))
    h = np.stack(candidates, axis=1)
    g = h - 1.0
    for j in range(n_classes):
        rows = [i for i in range(n_classes) if i != j]
        lines = v[:, rows, j][:, :, None] - h[:, None, :] * z[rows, j][None, :, None]
        g += lines.min(axis=1)
    return cast("NDArray[np.bool_]", g.max(axis=1) >= 0)


def _choices(n_classes: int) -> FloatArray:
    """The cost directions of the outer test of :func:`_discarded_set`: one actual class
    sigma(j) != j per predicted class j, all (c - 1)^c of them up to ``_MAX_CHOICES``, else
    a fixed sample of them; as 0/1 masks of shape (k, c, c)."""
    per_column = [[i for i in range(n_classes) if i != j] for j in range(n_classes)]
    total = (n_classes - 1) ** n_classes
    if total <= _MAX_CHOICES:
        picks = np.array(list(itertools.product(*per_column)), dtype=np.intp)
    else:
        draws = np.random.default_rng(0).integers(0, n_classes - 1, (_MAX_CHOICES, n_classes))
        picks = np.array([[per_column[j][d] for j, d in enumerate(row)] for row in draws],
                         dtype=np.intp)
    masks = np.zeros((picks.shape[0], n_classes, n_classes))
    for j in range(n_classes):
        masks[np.arange(picks.shape[0]), picks[:, j], j] = 1.0
    return masks


class _SetTest:
    """Whether sampled classifiers are discarded by a set of classifiers (with the trivial).

    v is discarded when it is above a mix of the generators (the trivial classifiers and
    the set): v >= sum_g p_g g for some p on the simplex, that is, when one mixture y of
    the set's classifiers discards it alone (the region of the set is the union of the
    regions of the mixtures).  By linear programming duality it is kept exactly when a
    cost direction lambda >= 0 (summing to 1) separates it: lambda.v < min_g lambda.g.

    Samples are decided, in this order: kept if a known cut separates it; discarded if
    a known mixture discards it (:func:`_discarded_one`, exact; the set's classifiers
    are the first mixtures); otherwise the separation problem is solved (HiGHS):
    minimise lambda.v - t subject to t <= lambda.g for every generator g.  A negative
    optimum keeps v and its (lambda, t) joins the cuts; an optimum >= 0 discards v, and
    the mixture of the set that its dual solution p gives joins the mixtures.  Both
    pools grow until they decide most samples without a program.  The first cuts are
    the directions sigma (one actual class per predicted class j, lambda = 1 on
    (sigma(j), j)), where every trivial classifier scores 1.
    """

    def __init__(self, rates: FloatArray) -> None:
        n_classes = rates.shape[1]
        self.rates = rates
        self.mixtures = [z for z in rates]
        self.index = _off_diagonal(n_classes)
        rows, columns = zip(*self.index, strict=True)
        self.rows, self.columns = np.array(rows), np.array(columns)
        trivial = np.array([[1.0 if j == k else 0.0 for _, j in self.index]
                            for k in range(n_classes)])
        self.generators = np.vstack([trivial, rates[:, self.rows, self.columns]])
        masks = _choices(n_classes)[:, self.rows, self.columns]
        self.cuts = masks
        self.floors = (self.generators @ masks.T).min(axis=0)
        dim = len(self.index)
        # Variables (lambda, t): t - lambda.g <= 0, sum lambda = 1, lambda >= 0, t free.
        self.a_ub = np.hstack([-self.generators, np.ones((self.generators.shape[0], 1))])
        self.a_eq = np.append(np.ones(dim), 0.0)[None, :]
        self.bounds = [(0, None)] * dim + [(None, None)]
        self.n_programs = 0

    def _separated(self, flat: FloatArray) -> NDArray[np.bool_]:
        return cast("NDArray[np.bool_]",
                    (flat @ self.cuts.T < self.floors - _CUT_TOLERANCE).any(axis=1))

    def __call__(self, v: FloatArray) -> NDArray[np.bool_]:
        from scipy.optimize import linprog

        discarded = np.zeros(v.shape[0], dtype=bool)
        flat = v[:, self.rows, self.columns]
        open_ = np.flatnonzero(~self._separated(flat))
        for z in self.mixtures:
            caught = _discarded_one(v[open_], z)
            discarded[open_[caught]] = True
            open_ = open_[~caught]
        while open_.size:
            sample, open_ = open_[0], open_[1:]
            self.n_programs += 1
            result = linprog(np.append(flat[sample], -1.0), A_ub=self.a_ub,
                             b_ub=np.zeros(self.a_ub.shape[0]), A_eq=self.a_eq, b_eq=[1.0],
                             bounds=self.bounds, method="highs")
            if result.status != 0:  # pragma: no cover - the problem is always feasible
                raise RuntimeError(f"the separation problem failed: {result.message}")
            if result.fun >= -_CUT_TOLERANCE:
                discarded[sample] = True
                share = -result.ineqlin.marginals[self.rates.shape[1]:]
                if share.sum() > 0:
                    mixture = np.tensordot(share / share.sum(), self.rates, axes=1)
                    self.mixtures.append(mixture)
                    caught = _discarded_one(v[open_], mixture)
                    discarded[open_[caught]] = True
                    open_ = open_[~caught]
                continue
            direction = result.x[:-1]
            floor = float((self.generators @ direction).min())
            self.cuts = np.vstack([self.cuts, direction])
            self.floors = np.append(self.floors, floor)
            open_ = open_[~(flat[open_] @ direction < floor - _CUT_TOLERANCE)]
        return discarded


def _monte_carlo(rates: FloatArray, n_samples: int, rng: np.random.Generator) -> CrispVUS:
    n_classes = rates.shape[1]
    test = _SetTest(rates) if rates.shape[0] > 1 else None
    hits = 0
    remaining = n_samples
    while remaining:
        count = min(remaining, _CHUNK)
        sample = _sample_valid(rng, count, n_classes)
        discarded = _discarded_one(sample, rates[0]) if test is None else test(sample)
        hits += int(np.count_nonzero(discarded))
        remaining -= count
    fraction = hits / n_samples
    volume = _valid_volume(n_classes)
    return CrispVUS(
        vus=volume * fraction,
        std_error=volume * math.sqrt(fraction * (1.0 - fraction) / n_samples),
        method="monte carlo",
        n_samples=n_samples,
    )


def crisp_vus(confusion: ArrayLike, *, method: Literal["auto", "exact", "monte carlo"] = "auto",
              n_samples: int = 200_000, random_state: RandomState = None) -> CrispVUS:
    """Volume under the ROC surface of a crisp classifier (or a set of them).

    The volume, within the space of valid classifiers, of the classifiers this
    one discards together with the trivial classifiers: those never better
    than a random choice between it and the trivial classifiers, whatever the
    class priors and costs.  Exact for 2 and 3 classes; a Monte Carlo
    estimate with its standard error for more.

    Parameters
    ----------
    confusion : array-like of shape (c, c) or (m, c, c)
        The confusion matrix, rows the actual class and columns the predicted
        class (as ``sklearn.metrics.confusion_matrix``), counts or rates; each
        row is normalised to rates.  A 3-d array is a set of m classifiers,
        whose VUS is that of their convex hull with the trivial classifiers.
    method : {"auto", "exact", "monte carlo"}, default "auto"
        ``"auto"`` is exact for 2 and 3 classes, Monte Carlo for more.
        ``"exact"`` is only available for 2 and 3 classes; ``"monte carlo"``
        for any number, for one classifier or a set.
    n_samples : int, default 200000
        Monte Carlo: number of valid classifiers drawn uniformly.
    random_state : int, numpy.random.Generator or None
        Monte Carlo: the seed or generator.

    Returns
    -------
    CrispVUS
        Named tuple ``(vus, std_error, method, n_samples)``.  ``vus`` is in
        (0, (1/(c-1)!)^c], the volume of the valid space, reached by the
        perfect classifier: 1 for 2 classes (where the VUS is the one-point
        AUC) and 1/8 for 3.  ``std_error`` and ``n_samples`` are 0 for an
        exact volume.

    Raises
    ------
    ValueError
        If ``confusion`` is not a square matrix (or a stack of them) of
        finite non-negative numbers over at least 2 classes, a row sums to 0,
        or ``method``, ``n_samples`` or ``random_state`` is invalid (checked
        for every method).

    See Also
    --------
    crisp_auc_approximations : the one-point measures used instead.
    multiclass_auc : AUCs of soft (scoring) classifiers.

    Notes
    -----
    Exact method (2 or 3 classes): the discard condition is a linear system
    in the mixing weights; eliminating the weight of the classifier
    (Fourier-Motzkin) gives the discarded region as an intersection of at
    most 66 half-spaces in the 6-dimensional ROC space of 3 classes: 6 for
    v >= 0, 3 for the rows of V, one for each of the 8 choices sigma, and
    for each sigma with s_sigma < 1 one per positive rate of the classifier
    (at most 6) and one per choice tau with s_tau > 1; at most 9 + 8 + 7 x 7
    = 66, when 7 choices have s_sigma < 1 and the eighth s_sigma > 1.
    Qhull enumerates the vertices of that polytope (``HalfspaceIntersection``)
    and measures their hull (``ConvexHull``): a few milliseconds.  For a set,
    the half-spaces are the facets of the convex hull of the trivial
    classifiers and the set with every subset of coordinates raised to 1.
    The volume is exact up to floating-point rounding (about 1e-15).

    Monte Carlo (more than 3 classes): classifiers drawn uniformly from the
    valid space, each tested exactly (a one-dimensional concave maximisation
    in the classifier's mixing weight, solved at its breakpoints);
    O(n_samples c^5) time.  The standard error is that of a binomial
    proportion times the volume of the valid space.  The estimate is
    unbiased; with the same ``random_state`` the same classifiers are drawn,
    so estimates of nested regions are ordered.

    Monte Carlo for a set: a sample is discarded exactly when a mixture of
    the set discards it alone, and kept exactly when a cost direction
    separates it from the set and the trivial classifiers (linear
    programming duality).  Samples are decided by the cuts and mixtures
    found so far (vectorised), the others by a linear program (HiGHS) whose
    solution adds a cut or a mixture; the pools soon decide almost every
    sample (about 200 programs for 200,000 samples of 4 or 5 classes,
    a few seconds).

    References
    ----------
    C. Ferri, J. Hernandez-Orallo and M. A. Salido, "Volume under the ROC
    surface for multi-class problems", ECML 2003.

    Examples
    --------
    >>> import numpy as np
    >>> from hmeasure_stream import crisp_vus
    >>> round(crisp_vus(np.eye(3)).vus, 12)  # the perfect classifier: 1/8
    0.125
    >>> round(1 / crisp_vus(np.full((3, 3), 1 / 3)).vus, 9)  # a trivial one: 1/180
    180.0
    >>> result = crisp_vus([[50, 5, 5], [10, 40, 10], [0, 10, 50]])
    >>> round(result.vus, 6), result.method
    (0.055226, 'exact')
    >>> crisp_vus([[0.6, 0.4], [0.2, 0.8]]).vus  # two classes: the one-point AUC
    0.7
    """
    method = check_option(method, "method", ("auto", "exact", "monte carlo"))
    n_samples = check_integer(n_samples, "n_samples", 1)
    rng = check_random_state(random_state)
    rates, is_set = _check_confusion(confusion, allow_set=True)
    n_classes = rates.shape[1]
    if method == "auto":
        method = "exact" if n_classes <= _EXACT_MAX_CLASSES else "monte carlo"
    if method == "exact":
        if n_classes > _EXACT_MAX_CLASSES:
            raise ValueError(
                f"method='exact' is available for 2 and 3 classes; confusion has {n_classes}"
            )
        return CrispVUS(vus=_exact_volume(rates, is_set), std_error=0.0, method="exact",
                        n_samples=0)
    return _monte_carlo(rates, n_samples, rng)


def _power_mean(values: FloatArray, t: float) -> float:
    """Generalised mean (mean of values^t)^(1/t), the geometric mean at t = 0.

    Written as exp(log1p(mean(expm1(t log a))) / t), accurate also for t near 0.
    """
    positive = values > 0
    if not positive.all() and (t <= 0 or not positive.any()):
        return 0.0
    logs = np.log(values[positive])
    if t == 0:
        return float(np.exp(np.mean(logs)))
    terms = np.full(values.shape, -1.0)  # a zero value: 0^t - 1 for t > 0
    terms[positive] = np.expm1(t * logs)
    return float(np.exp(np.log1p(np.mean(terms)) / t))


def crisp_auc_approximations(confusion: ArrayLike, *, t: float = 0.76) -> dict[str, float]:
    """The one-point approximations of the VUS of a crisp classifier.

    The six measures that Ferri, Hernandez-Orallo and Salido compare with the
    exact volume under the ROC surface: the macro-average of the per-class
    accuracies, its generalised-mean variant, a trivial one-point extension of
    the two-class AUC, and three one-point versions of Hand and Till's M and
    of one-vs-rest.

    Parameters
    ----------
    confusion : array-like of shape (c, c)
        The confusion matrix, rows the actual class and columns the predicted
        class, counts or rates; each row is normalised to rates r[i, j] (the
        share of class i predicted as j).
    t : float, default 0.76
        Exponent of the generalised mean in ``macro_average_modified``
        (0 is the geometric mean; the slides found t near 0.76 best).

    Returns
    -------
    dict
        In this order:

        - ``macro_average``: the mean of the per-class accuracies r[i, i];
        - ``macro_average_modified``: their generalised mean,
          (mean of r[i, i]^t)^(1/t);
        - ``one_point_trivial``: max(1/c, 1 - (sum of off-diagonal r) / c);
        - ``hand_till_1b``: the mean over pairs {i, j} of
          max(1/2, 1 - (r[i, j] + r[j, i]) / 2);
        - ``hand_till_2``: the same on the two classes' points predicted as
          one of them: max(1/2, 1 - (r[i, j] / (r[i, i] + r[i, j]) +
          r[j, i] / (r[j, j] + r[j, i])) / 2); NaN when a class of a pair has
          no point predicted as either;
        - ``hand_till_3``: the mean over classes i of the one-vs-rest
          one-point AUC max(1/2, 1 - (1 - r[i, i]) / 2 - (sum over j != i of
          r[j, i]) / (2 (c - 1))).

    Raises
    ------
    ValueError
        If ``confusion`` is not a square matrix of finite non-negative
        numbers over at least 2 classes, a row sums to 0, or ``t`` is not a
        finite real number.

    See Also
    --------
    crisp_vus : the exact volume these approximate.

    Notes
    -----
    O(c^2) time.  The formulas are those of Ferri, Hernandez-Orallo and
    Salido's slides for 3 classes, written for c classes.  The slides'
    ``one_point_trivial`` lacks only a closing parenthesis; its
    generalisation to c classes (the floor 1/c, the value of every trivial
    classifier, and the division by c) is this package's choice.  The
    slides' ``hand_till_3`` has a garbled denominator: in AUC_{a,rest} it
    reads "v_ba + v_ca + v_bb + v_bc + v_cb + v_cb", read here as ending in
    v_cc, so the denominators are the totals of the rates of the class and
    of the other classes, 1 and c - 1 (see the documentation).  For 2
    classes ``one_point_trivial``, ``hand_till_1b`` and ``hand_till_3`` are
    the one-point AUC max(1/2, 1 - (r[0, 1] + r[1, 0]) / 2).

    References
    ----------
    C. Ferri, J. Hernandez-Orallo and M. A. Salido, "Volume under the ROC
    surface for multi-class problems", ECML 2003.  D. J. Hand and R. J. Till,
    "A simple generalisation of the area under the ROC curve for multiple
    class classification problems", Machine Learning 45 (2001).

    Examples
    --------
    >>> from hmeasure_stream import crisp_auc_approximations
    >>> measures = crisp_auc_approximations([[8, 1, 1], [2, 6, 2], [0, 2, 8]], t=1)
    >>> for name, value in measures.items():
    ...     print(f"{name:24s} {value:.4f}")
    macro_average            0.7333
    macro_average_modified   0.7333
    one_point_trivial        0.7333
    hand_till_1b             0.8667
    hand_till_2              0.8463
    hand_till_3              0.8000
    """
    if isinstance(t, bool) or not isinstance(t, numbers.Real) or not math.isfinite(t):
        raise ValueError(f"t must be a finite real number, got {t!r}")
    rates = _check_confusion(confusion, allow_set=False)[0][0]
    n_classes = rates.shape[0]
    accuracy = np.diag(rates).copy()
    off_total = float(rates.sum() - accuracy.sum())
    pairs = list(itertools.combinations(range(n_classes), 2))
    ht1 = [max(0.5, 1 - (rates[i, j] + rates[j, i]) / 2) for i, j in pairs]
    ht2 = []
    for i, j in pairs:
        kept_i, kept_j = rates[i, i] + rates[i, j], rates[j, j] + rates[j, i]
        if kept_i > 0 and kept_j > 0:
            ht2.append(max(0.5, 1 - (rates[i, j] / kept_i + rates[j, i] / kept_j) / 2))
        else:
            ht2.append(math.nan)
    ht3 = [
        max(0.5, 1 - (1 - accuracy[i]) / 2
            - (rates[:, i].sum() - accuracy[i]) / (2 * (n_classes - 1)))
        for i in range(n_classes)
    ]
    return {
        "macro_average": float(np.mean(accuracy)),
        "macro_average_modified": _power_mean(accuracy, float(t)),
        "one_point_trivial": max(1.0 / n_classes, 1.0 - off_total / n_classes),
        "hand_till_1b": float(np.mean(ht1)),
        "hand_till_2": float(np.mean(ht2)),
        "hand_till_3": float(np.mean(ht3)),
    }
