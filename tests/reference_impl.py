"""Independent reference computations the package is tested against.

Written without the package's algorithms: quadratic or cubic brute force in
exact rational arithmetic, numerical integration, and a direct transcription
of R hmeasure's definitions.  Meant for small inputs.
"""

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import integrate, special, stats


def exact(value):
    """A number as a Fraction: a Fraction as it is, anything else read exactly as its float."""
    return value if isinstance(value, Fraction) else Fraction(float(value))


def psi(x, y):
    """Kernel of the Mann-Whitney statistic: class 1 score x against class 0 score y."""
    if x > y:
        return Fraction(1)
    if x == y:
        return Fraction(1, 2)
    return Fraction(0)


def _unit_pairs_2u(y, s):
    """2U of unit-weight points by comparing every pair: numpy's exact comparisons of the
    arrays' own values (in slices, to bound the memory), an exact integer."""
    positives, negatives = s[y == 1], s[y == 0]
    total = 0
    for start in range(0, positives.size, 512):
        chunk = positives[start:start + 512, None]
        total += 2 * int(np.count_nonzero(chunk > negatives))
        total += int(np.count_nonzero(chunk == negatives))
    return total


def mann_whitney_2u(y, s, w=None):
    """Twice the Mann-Whitney U (class 1 over class 0, ties one half), O(n^2), exact.

    Every class 1 point is compared with every class 0 point.  Weights are read
    with ``exact`` (Fractions); unit-weight numpy arrays of numbers are
    compared by numpy (exact comparisons, integer counts), other scores (lists,
    Python integers of any size) by Python.
    """
    if w is None and isinstance(s, np.ndarray) and s.dtype.kind in "fiu":
        return Fraction(_unit_pairs_2u(np.asarray(y), s))
    w = [1] * len(y) if w is None else [exact(v) for v in w]
    negatives = [(s[i], w[i]) for i in range(len(y)) if y[i] == 0]
    positives = [(s[j], w[j]) for j in range(len(y)) if y[j] == 1]
    total = Fraction(0)
    for negative, weight_negative in negatives:
        for positive, weight_positive in positives:
            if positive > negative:
                total += 2 * weight_negative * weight_positive
            elif positive == negative:
                total += weight_negative * weight_positive
    return total


def class_weights(y, w):
    """(class 0 weight, class 1 weight), each weight read with ``exact``."""
    w = [1] * len(y) if w is None else [exact(v) for v in w]
    return (sum((wi for yi, wi in zip(y, w, strict=True) if yi == 0), Fraction(0)),
            sum((wi for yi, wi in zip(y, w, strict=True) if yi == 1), Fraction(0)))


def brute_auc(y, s, w=None):
    """Exact AUC as a Fraction, O(n^2) (ZeroDivisionError when a class has no weight)."""
    n0, n1 = class_weights(y, w)
    return mann_whitney_2u(y, s, w) / (2 * n0 * n1)


def brute_auc_value(y, s, w=None, exact=True):
    """``brute_auc`` as a float, nan when a class has no weight.

    With ``exact=False`` the weighted pairs are summed in float64 by numpy (for
    hundreds of weighted points, too many for Fractions): the same pairs, rounded.
    """
    y = np.asarray(y)
    if exact:
        n0, n1 = class_weights(y, w)
        return float(brute_auc(y, s, w)) if n0 > 0 and n1 > 0 else math.nan
    s = np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    positive, negative = y == 1, y == 0
    if not (w[positive].sum() > 0 and w[negative].sum() > 0):
        return math.nan
    difference = s[positive][:, None] - s[negative][None, :]
    kernel = (difference > 0) + 0.5 * (difference == 0)
    pairs = w[positive][:, None] * w[negative][None, :]
    return float((kernel * pairs).sum() / pairs.sum())


def sorted_count_auc(y, s):
    """The AUC as a Fraction by counting with sorted arrays, O(n log n), for inputs too long
    for ``brute_auc``: for each class 1 score, the class 0 scores below it and tied with it
    (numpy's searchsorted), exact integers.  None while a class is absent.
    """
    y, s = np.asarray(y), np.asarray(s, dtype=float)
    negatives = np.sort(s[y == 0])
    positives = s[y == 1]
    if negatives.size == 0 or positives.size == 0:
        return None
    twice_u = int(np.searchsorted(negatives, positives, "left").sum()
                  + np.searchsorted(negatives, positives, "right").sum())
    return Fraction(twice_u, 2 * negatives.size * positives.size)


def columns(points):
    """(labels, scores, weights) lists of (label, score, weight) triples (empty lists if none)."""
    return [p[0] for p in points], [p[1] for p in points], [p[2] for p in points]


def brute_auc_of_points(points):
    """``brute_auc`` of (is_pos, score, weight) triples; None when a class has no weight."""
    labels, scores, weights = columns(points)
    labels = [int(bool(p)) for p in labels]
    if 0 in class_weights(labels, weights):
        return None
    return brute_auc(labels, scores, weights)


def expected_parts(p, s, w=None):
    """Each point split into a class 1 part of weight w p and a class 0 part of weight
    w (1 - p) at its score: (labels, scores, weights), float arrays.  The expected AUC
    (and H) of the points are the AUC (and H) of their parts."""
    p, s = np.asarray(p, dtype=float), np.asarray(s, dtype=float)
    w = np.ones(len(p)) if w is None else np.asarray(w, dtype=float)
    return (np.array([1] * len(p) + [0] * len(p)), np.concatenate((s, s)),
            np.concatenate((w * p, w * (1 - p))))


def brute_expected_auc(p, s, w=None):
    """The expected AUC as a Fraction, O(n^2): ``brute_auc`` of the parts, their weights
    w p and w (1 - p) exact (each probability and weight read with ``exact``); None when
    the parts of a class have no weight."""
    p = [exact(v) for v in p]
    w = [Fraction(1)] * len(p) if w is None else [exact(v) for v in w]
    labels = [1] * len(p) + [0] * len(p)
    weights = [wi * pi for wi, pi in zip(w, p, strict=True)] + [
        wi * (1 - pi) for wi, pi in zip(w, p, strict=True)]
    if 0 in class_weights(labels, weights):
        return None
    return brute_auc(labels, list(s) + list(s), weights)


def roc_points_exact(y, s, w=None):
    """Distinct ROC points (FPR, TPR) as Fractions, one per threshold, by counting.

    With weights ``w`` the rates are weighted (each weight read exactly as its
    float).  Sorted, the points are in curve order (both rates non-decreasing).
    """
    w = [Fraction(1)] * len(y) if w is None else [exact(v) for v in w]
    n0 = sum(wi for yi, wi in zip(y, w, strict=True) if yi == 0)
    n1 = sum(wi for yi, wi in zip(y, w, strict=True) if yi == 1)
    points = {(Fraction(0), Fraction(0))}
    for t in set(s):
        fp = sum(wi for yi, si, wi in zip(y, s, w, strict=True) if yi == 0 and si >= t)
        tp = sum(wi for yi, si, wi in zip(y, s, w, strict=True) if yi == 1 and si >= t)
        points.add((fp / n0, tp / n1))
    return points


def placements_exact(y, s, w=None):
    """DeLong's placements by their definition, O(n^2), in exact fractions.

    Returns ``(v10, v01, area)``: for each class 1 point (placement, weight),
    the weighted share of class 0 it scores above (ties one half); for each
    class 0 point (placement, weight), the weighted share of class 1 scoring
    above it; and the (weighted) AUC.
    """
    w = [Fraction(1)] * len(y) if w is None else [exact(v) for v in w]
    cases = [(s[i], w[i]) for i in range(len(y)) if y[i] == 1]
    controls = [(s[j], w[j]) for j in range(len(y)) if y[j] == 0]
    total_cases = sum(wi for _, wi in cases)
    total_controls = sum(wj for _, wj in controls)
    v10 = [
        (sum(wj * psi(x, t) for t, wj in controls) / total_controls, wi) for x, wi in cases
    ]
    v01 = [(sum(wi * psi(x, t) for x, wi in cases) / total_cases, wj) for t, wj in controls]
    area = sum(
        wi * wj * psi(x, t) for x, wi in cases for t, wj in controls
    ) / (total_cases * total_controls)
    return v10, v01, area


def delong_variance_exact(y, s, w=None):
    """DeLong's variance of the AUC by its definition, as a Fraction; None where undefined.

    Weights are frequencies: the placements of ``placements_exact`` and their
    weighted sample variances with denominators W - 1, so a class of total
    weight <= 1 leaves it undefined.
    """
    total_controls, total_cases = class_weights(y, w)
    if not (total_cases > 1 and total_controls > 1):
        return None
    v10, v01, area = placements_exact(y, s, w)
    s10 = sum(wi * (v - area) ** 2 for v, wi in v10) / (total_cases - 1)
    s01 = sum(wj * (v - area) ** 2 for v, wj in v01) / (total_controls - 1)
    return s10 / total_cases + s01 / total_controls


def delong_paired_exact(y, s1, s2, w=None):
    """DeLong's paired comparison of two scores on the same points by its definition:
    (A1 - A2, the variance of A1 - A2) as Fractions; None where undefined (a class of
    total weight <= 1).

    The variance is (1, -1) S (1, -1)' for DeLong's 2x2 covariance matrix S, i.e. the
    weighted sample variance of the differences of each point's two placements (each
    centred on its own AUC), over the cases and over the controls.
    """
    total_controls, total_cases = class_weights(y, w)
    if not (total_cases > 1 and total_controls > 1):
        return None
    (v10_1, v01_1, area1), (v10_2, v01_2, area2) = (placements_exact(y, s, w) for s in (s1, s2))

    def spread(first, second, total):
        return sum(wi * ((a - area1) - (b - area2)) ** 2
                   for (a, wi), (b, _) in zip(first, second, strict=True)) / (total - 1) / total

    return area1 - area2, spread(v10_1, v10_2, total_cases) + spread(v01_1, v01_2,
                                                                      total_controls)


def brute_upper_hull(points):
    """Vertices of the upper ROC hull by the O(n^3) definition, sorted by FPR.

    A point other than the origin is a vertex iff no other point lies straight
    above it and, for every pair of other points a, b with a.x <= p.x <= b.x
    and a.x < b.x, p lies strictly above the line through a and b.
    """
    points = sorted(points)
    vertices = []
    for p in points:
        if p == (0, 0):
            vertices.append(p)
            continue
        others = [q for q in points if q != p]
        if any(q[0] == p[0] and q[1] > p[1] for q in others):
            continue
        is_vertex = True
        for a in others:
            if a[0] > p[0]:
                continue
            for b in others:
                if b[0] < p[0] or not a[0] < b[0]:
                    continue
                line_y = a[1] + (b[1] - a[1]) * (p[0] - a[0]) / (b[0] - a[0])
                if p[1] <= line_y:
                    is_vertex = False
                    break
            if not is_vertex:
                break
        if is_vertex:
            vertices.append(p)
    return vertices


def _beta_weighted_integral(function, breakpoints, alpha, beta):
    """int_0^1 function(c) Beta(alpha, beta)-density(c) dc for a function smooth between breakpoints.

    Each piece between consecutive breakpoints is integrated on its own; the
    pieces touching 0 or 1 use quad's algebraic weights, which absorb the
    density's end-point singularities exactly (alpha or beta below 1).
    """
    edges = [0.0]
    for point in sorted(p for p in set(breakpoints) if 1e-12 < p < 1.0 - 1e-12):
        if point - edges[-1] > 1e-12:  # a sliver contributes far below any tolerance used
            edges.append(point)
    edges.append(1.0)
    options = {"limit": 200, "epsabs": 1e-14, "epsrel": 1e-12}
    total = 0.0
    for a, b in itertools.pairwise(edges):
        if a == 0.0 and b == 1.0:
            total += integrate.quad(function, a, b, weight="alg",
                                    wvar=(alpha - 1, beta - 1), **options)[0]
        elif a == 0.0:
            total += integrate.quad(lambda c: function(c) * (1 - c) ** (beta - 1), a, b,
                                    weight="alg", wvar=(alpha - 1, 0.0), **options)[0]
        elif b == 1.0:
            total += integrate.quad(lambda c: function(c) * c ** (alpha - 1), a, b,
                                    weight="alg", wvar=(0.0, beta - 1), **options)[0]
        else:
            total += integrate.quad(
                lambda c: function(c) * c ** (alpha - 1) * (1 - c) ** (beta - 1), a, b,
                **options,
            )[0]
    return total / special.beta(alpha, beta)


def h_by_integration(y, s, alpha, beta, priors=None, w=None):
    """H-measure by numerical integration of the minimum loss over ALL ROC points.

    The minimum of the (linear in c) losses over every threshold equals the
    minimum over the hull, so this never computes a hull.  The minimum is
    piecewise linear; every pairwise crossing is a breakpoint of the quadrature.
    """
    y = np.asarray(y)
    s = np.asarray(s, dtype=float)
    w = np.ones(len(y)) if w is None else np.asarray(w, dtype=float)
    n0, n1 = w[y == 0].sum(), w[y == 1].sum()
    pi0, pi1 = (n0 / (n0 + n1), n1 / (n0 + n1)) if priors is None else priors
    thresholds = np.concatenate([np.unique(s), [np.inf]])
    fpr = np.array([w[(y == 0) & (s >= t)].sum() / n0 for t in thresholds])
    fnr = np.array([1 - w[(y == 1) & (s >= t)].sum() / n1 for t in thresholds])

    def min_loss(c):
        return np.min(c * pi0 * fpr + (1 - c) * pi1 * fnr)

    def trivial_loss(c):
        return min(c * pi0, (1 - c) * pi1)

    crossings = []
    for i in range(len(fpr)):
        for j in range(i + 1, len(fpr)):
            a = pi0 * (fpr[i] - fpr[j])
            b = pi1 * (fnr[j] - fnr[i])
            if a + b != 0:
                crossings.append(b / (a + b))
    loss = _beta_weighted_integral(min_loss, crossings, alpha, beta)
    loss_max = _beta_weighted_integral(trivial_loss, [pi1], alpha, beta)
    return 1 - loss / loss_max


def _envelope_integral(lines, alpha, beta):
    """int_0^1 min_i (A_i c + B_i (1 - c)) u(c) dc, exactly, for u = Beta(alpha, beta), integer shapes.

    ``lines`` are the pairs (A_i, B_i) of Fractions.  The minimum is linear between the
    pairwise crossings; on each piece the integrand is a polynomial, integrated exactly.
    """
    cuts = {Fraction(0), Fraction(1)}
    for i, (a1, b1) in enumerate(lines):
        for a2, b2 in lines[i + 1:]:
            slope = (a1 - b1) - (a2 - b2)
            if slope != 0 and 0 < (b2 - b1) / slope < 1:
                cuts.add((b2 - b1) / slope)
    cuts = sorted(cuts)
    # The density c^(alpha - 1) (1 - c)^(beta - 1) / B(alpha, beta) as polynomial coefficients.
    inverse_beta = (alpha + beta - 1) * math.comb(alpha + beta - 2, alpha - 1)
    density = [Fraction(0)] * (alpha + beta - 1)
    for j in range(beta):
        density[alpha - 1 + j] += inverse_beta * math.comb(beta - 1, j) * (-1) ** j
    total = Fraction(0)
    for low, high in itertools.pairwise(cuts):
        middle = (low + high) / 2
        a, b = min(lines, key=lambda line: line[0] * middle + line[1] * (1 - middle))
        integrand = [Fraction(0)] * (len(density) + 1)  # (b + (a - b) c) density(c)
        for k, coefficient in enumerate(density):
            integrand[k] += b * coefficient
            integrand[k + 1] += (a - b) * coefficient
        total += sum(coefficient * (high ** (k + 1) - low ** (k + 1)) / (k + 1)
                     for k, coefficient in enumerate(integrand))
    return total


def h_exact(y, s, w=None, alpha=2, beta=2, priors=None):
    """H-measure as an exact Fraction: the minimum loss over ALL ROC points, integrated exactly.

    For integer alpha, beta.  Each weight (and prior) is read exactly as its float, the class
    priors are by default the exact class proportions; no hull and no rounding, whatever the
    spread of the weights.
    """
    w = [1.0] * len(y) if w is None else w
    weights = [Fraction(float(v)) for v in w]
    n0 = sum(v for label, v in zip(y, weights, strict=True) if label == 0)
    n1 = sum(v for label, v in zip(y, weights, strict=True) if label == 1)
    pi0, pi1 = ((n0 / (n0 + n1), n1 / (n0 + n1)) if priors is None
                else (Fraction(float(priors[0])), Fraction(float(priors[1]))))
    lines = [(pi0 * fpr, pi1 * (1 - tpr)) for fpr, tpr in roc_points_exact(y, s, w)]
    trivial = [(Fraction(0), pi1), (pi0, Fraction(0))]
    return 1 - _envelope_integral(lines, alpha, beta) / _envelope_integral(trivial, alpha, beta)


def r_style_report(y, s, severity_ratio=None, level=0.95):
    """R hmeasure's KS, MER, MWL and fixed-level lookups, transcribed naively.

    F0 and F1 are the empirical class CDFs at every distinct score, lowest
    first, with 0 prepended (as R's Get.Score.Distributions builds them).
    """
    y = np.asarray(y)
    s = np.asarray(s, dtype=float)
    n1 = int(np.sum(y == 1))
    n0 = len(y) - n1
    pi0, pi1 = n0 / len(y), n1 / len(y)
    sr = pi1 / pi0 if severity_ratio is None else severity_ratio
    levels_f0, levels_f1 = [0.0], [0.0]
    for t in np.unique(s):
        levels_f0.append(np.sum((y == 0) & (s <= t)) / n0)
        levels_f1.append(np.sum((y == 1) & (s <= t)) / n1)
    f0, f1 = np.array(levels_f0), np.array(levels_f1)
    c = sr / (1 + sr)

    def look_up(xcurve, ycurve, x):
        index = next(i for i in range(len(xcurve)) if xcurve[i] > x)
        x1, x2, y1, y2 = xcurve[index - 1], xcurve[index], ycurve[index - 1], ycurve[index]
        if x2 - x1 > 0:
            pos = (x2 - x) / (x2 - x1)
            return (1 - pos) * y1 + pos * y2
        return y2

    return {
        "KS": max(abs(a - b) for a, b in zip(f0, f1, strict=True)),
        "MER": min(pi0 * (1 - a) + pi1 * b for a, b in zip(f0, f1, strict=True)),
        "MWL": 2 * min(c * pi0 * (1 - a) + (1 - c) * pi1 * b for a, b in zip(f0, f1, strict=True)),
        "Spec.Sens": look_up(f1, f0, 1 - level),
        "Sens.Spec": look_up(f0, 1 - f1, level),
    }


def r_threshold(threshold):
    """The package's threshold (class 1 when s >= it) that classifies as R hmeasure's
    ``s > threshold`` does: the next double above (they differ only at scores equal to
    the threshold)."""
    return float(np.nextafter(threshold, np.inf))


def r_misclass_counts(y, s, threshold=0.5, w=None, at_or_above=False):
    """R hmeasure's ``misclassCounts(as.numeric(s > threshold), y)``, transcribed naively.

    Point by point over the confusion matrix of "class 1 when s > threshold"
    (with ``at_or_above``, the package's rule "s >= threshold");
    with ``w`` every point counts with its weight.  R's 0/0 is nan and its
    1/0 infinite (numpy float64 arithmetic).
    """
    tp = fp = tn = fn = np.float64(0.0)
    w = [1.0] * len(y) if w is None else w
    for label, score, weight in zip(y, s, w, strict=True):
        predicted = 1 if score > threshold or (at_or_above and score == threshold) else 0
        if predicted == 1 and label == 1:
            tp += weight
        elif predicted == 1 and label == 0:
            fp += weight
        elif predicted == 0 and label == 0:
            tn += weight
        else:
            fn += weight
    with np.errstate(divide="ignore", invalid="ignore"):
        sens = tp / (tp + fn)
        spec = tn / (tn + fp)
        precision = tp / (tp + fp)
        f_score = 2 / (1 / precision + 1 / sens)
    return {"ER": (fp + fn) / (tp + fp + tn + fn), "Sens": sens, "Spec": spec,
            "Precision": precision, "Recall": sens, "TPR": sens, "FPR": 1 - spec,
            "F": f_score, "Youden": sens + spec - 1, "TP": tp, "FP": fp, "TN": tn, "FN": fn}


# ---------------------------------------------------------------------------
# Calibration: bins, and the metrics of probabilities


def brute_bins(p, edges):
    """The bin of each probability, point by point: the number of inner edges below it."""
    return [sum(1 for edge in edges[1:-1] if edge < value) for value in p]


def brute_edges(p, w, n_bins, strategy):
    """The bin edges: n_bins equal bins of [0, 1], or (quantile) the percentiles of the
    probabilities of positive weight, as scikit-learn's calibration_curve."""
    if strategy == "uniform":
        return [k / n_bins for k in range(n_bins + 1)]
    # calibration_curve's edges, from the points of positive weight.
    kept = np.asarray(p)[np.asarray(w) > 0]
    return np.percentile(kept, np.linspace(0, 1, n_bins + 1) * 100).tolist()


def brute_report(y, p, w, n_bins, strategy):
    """Every value of the report from plain loops over the points (the Brier score, ECE
    and MCE from ``exact_brier`` and ``brute_ece``)."""
    w = [1.0] * len(y) if w is None else list(w)
    y = [float(v) for v in y]
    p = [float(v) for v in p]
    edges = brute_edges(p, w, n_bins, strategy)
    bins = brute_bins(p, edges)
    ece, mce = brute_ece(y, p, w, edges=edges)
    total = sum(w)
    weight, sum_p, sum_y = {}, {}, {}
    for b, yi, pi, wi in zip(bins, y, p, w, strict=True):
        weight[b] = weight.get(b, 0.0) + wi
        sum_p[b] = sum_p.get(b, 0.0) + wi * pi
        sum_y[b] = sum_y.get(b, 0.0) + wi * yi
    filled = sorted(b for b in weight if weight[b] > 0)
    f = {b: sum_p[b] / weight[b] for b in filled}
    o = {b: sum_y[b] / weight[b] for b in filled}
    share = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / total
    wbv = wbc = 0.0
    for b, yi, pi, wi in zip(bins, y, p, w, strict=True):
        if wi > 0:
            wbv += wi * (pi - f[b]) ** 2
            wbc += 2 * wi * (pi - f[b]) * (yi - o[b])
    return {
        "prob_true": [o[b] for b in filled],
        "prob_pred": [f[b] for b in filled],
        "bin_weight": [weight[b] for b in filled],
        "bin_index": filled,
        "brier": exact_brier(np.array(y), np.array(p), np.array(w)),
        "ece": ece,
        "mce": mce,
        "reliability": sum(weight[b] * (f[b] - o[b]) ** 2 for b in filled) / total,
        "resolution": sum(weight[b] * (o[b] - share) ** 2 for b in filled) / total,
        "uncertainty": share * (1 - share),
        "within_bin_variance": wbv / total,
        "within_bin_covariance": wbc / total,
    }


LOG_LOSS_EPS = float(np.finfo(np.float64).eps)


def exact_brier(y, p, w):
    """The weighted Brier score, its sums correctly rounded (math.fsum)."""
    return math.fsum((w * np.square(y - p)).tolist()) / math.fsum(w.tolist())


def exact_log_loss(y, p, w):
    """The weighted log loss, the probabilities clipped to [eps, 1 - eps], the sums
    correctly rounded (math.fsum)."""
    own = np.where(y == 1, p, 1 - p)
    terms = [wi * -math.log(min(max(o, LOG_LOSS_EPS), 1 - LOG_LOSS_EPS)) for wi, o in zip(w, own, strict=True)]
    return math.fsum(terms) / math.fsum(w.tolist())


def brute_ece(y, p, w, n_bins=10, edges=None):
    """ECE and MCE by the definition, in exact rationals: bins between ``edges`` (by
    default n_bins uniform bins, edges by np.linspace; a probability on an inner edge in
    the bin below it), |sum w p - sum w y| per bin."""
    y, p, w = np.asarray(y), np.asarray(p, dtype=float), np.asarray(w, dtype=float)
    edges = np.linspace(0, 1, n_bins + 1) if edges is None else edges
    n_bins = len(edges) - 1
    index = np.array(brute_bins(p, edges), dtype=int)
    gaps, largest = Fraction(0), Fraction(0)
    total = sum(Fraction(wi) for wi in w)
    for b in range(n_bins):
        members = index == b
        weight = sum(Fraction(wi) for wi in w[members])
        if weight > 0:
            gap = abs(sum(Fraction(wi) * Fraction(pi) - Fraction(wi) * int(yi)
                          for wi, pi, yi in zip(w[members], p[members], y[members],
                                                strict=True)))
            gaps += gap
            largest = max(largest, gap / weight)
    return float(gaps / total), float(largest)


def to_unit_interval(s):
    """A strictly increasing map of real scores into (0, 1), for the hmeasure port.

    Uses ranks so that distinct scores stay distinct after rounding.
    """
    ranks = stats.rankdata(s, method="dense")
    return ranks / (ranks.max() + 1)


# The binned AUC's bin rule (Bouckaert, Sec. 4, with the continuous log-log
# transform), written from the definitions with Python floats and math.log
# (the C library's log, as the compiled kernel uses).
LOG_LOG_2 = math.log(math.log(2.0))


def naive_loglog(r, a):
    if r <= 0.5:
        return 0.5 - a * (math.log(-math.log(r)) - LOG_LOG_2)
    return 0.5 + a * (math.log(-math.log(1.0 - r)) - LOG_LOG_2)


def naive_bin(s, m, lo=0.0, hi=1.0, alpha=None):
    r = (s - lo) / (hi - lo)
    if alpha is not None:
        if r <= 0.0:
            return 0
        if r >= 1.0:
            return m - 1
        r = naive_loglog(r, alpha)
        r = min(max(r, 0.0), 1.0)
    return min(max(math.floor(m * r), 0), m - 1)


def window_points(y, s, end, window, half_life):
    """(labels, scores, weights) a count window and decay hold after points 0..end.

    The last ``window`` points (all without a window), weighted 2^(-age / half_life)
    with the age in points; decayed points leave at 2^-60 of the newest (the
    DROP_EXPONENT of every engine).
    """
    start = 0 if window is None else max(0, end + 1 - window)
    ages = end - np.arange(start, end + 1)
    weights = np.ones(ages.size) if half_life is None else 2.0 ** (-ages / half_life)
    kept = ages / (half_life or np.inf) <= 60
    return y[start:end + 1][kept], s[start:end + 1][kept], weights[kept]

