"""The calibration of a window's probabilities: exact sums, O(1) per point.

A window's ``brier``, ``log_loss``, ``ece`` and ``mce`` are ratios of sums
over its points of terms of each point alone: its weight w, the Brier term
w (y - p)^2, the log-loss term w (-log p') (p' the probability of its own
class, clipped to [eps, 1 - eps] as ``calibration.log_loss`` clips it), and
per uniform bin of p the weight and w (p - y) (G. W. Brier, 1950; Naeini,
Cooper and Hauskrecht, AAAI 2015).  A point in adds its terms, a point out
subtracts them: O(1) with the bin found from p by one multiplication.

Plain running sums of doubles drift: each addition rounds, a removal does not
undo it, and after 10^7 steps the error is that of 10^7 roundings.  Here each
sum is kept exactly, as an integer in units of 2**-1074 (the least double;
every double term is an integer multiple of it): ``DIGITS`` signed 64-bit
digits of radix 2**32, normalised after each term (every digit but the top
in [0, 2**32), carries and borrows passed up), so that a sum holds the exact
value of its terms whatever their order and the state is the same for the
same points, however they came and went.  A read rounds the exact sum once
(correctly, to nearest), so each value is the ratio of the correctly rounded
sums: bit for bit what ``math.fsum`` of the window's terms gives, after
10^7 updates as after one.  A bin's sums return to exactly 0 with its last
point (and are cleared then, which also drops what a decay's rescaling
rounded away).

Decay (``_scale_weights``) multiplies every stored weight by 2^-k: the exact
sums are shifted down by k bits (the ring's weights are rounded as the
sorted blocks' are, below 2**-1074 of the structure's units).

The expected AUC of the window's probabilities (``calibration.py``'s sister
``expected.expected_auc``) enters a weighted ``BlockedAUCEngine`` as each
point's two parts at its score, w p of class 1 and w (1 - p) of class 0
(a part of weight 0 absent): O(log n) per point, as exact as that engine's
weighted mode.

The scored AUC (Wu, Flach and Ferri, "An improved model selection heuristic
for AUC", ECML 2007) of the window's probabilities is
sAUC = sum over pairs of a class 1 point i and a class 0 point j with
p_i > p_j of w_i w_j (p_i - p_j), over W1 W0: the AUC with each ordered pair
counted by how far apart its probabilities are (a tie counts 0, whatever the
tie rule, as p_i - p_j = 0 there).  It is the difference of two AUC pair
weights, each kept by a weighted ``BlockedAUCEngine`` as 2U is: 2U of the
points with class 1 weighing w p and class 0 weighing w (``scored_pos``) less
2U of the points with class 1 weighing w and class 0 weighing w p
(``scored_neg``) is twice the sum over pairs of w_i w_j (p_i - p_j) ([p_i >
p_j] + [p_i = p_j] / 2), and the ties' halves cancel.  O(log n) a point,
no running sum (the state is that of the points held).  The difference of two
pair weights of at most W1 W0 each keeps their rounding: an absolute error of
a few 1e-16, so a relative one of about 1e-16 / sAUC when the probabilities
of the two classes are close together (sAUC small).  MOA's
``WindowAUCImbalancedPerformanceEvaluator`` subtracts half of the tied
probability for each tied pair as well (its sums weigh a tie by one half on
the class 1 side, by one on the class 0 side).
"""

import numpy as np

from libc.math cimport NAN, fabs, frexp, ldexp, log
from libc.stdint cimport int32_t, int64_t, uint8_t, uint64_t

from hmeasure_stream._engines._protocol cimport DONE, NOT_PRESENT, PointEngine

from hmeasure_stream._engines._blocked import BlockedAUCEngine as _Blocked

# The columns an engine may record, in this order (the metric table's names).
COLUMNS = ("brier", "log_loss", "ece", "mce", "expected_auc", "sauc")

# scikit-learn's clip of the log loss (``calibration.log_loss``): [eps, 1 - eps].
cdef double _EPS = 2.220446049250313e-16
cdef int64_t _MASK = 0xFFFFFFFF
cdef uint64_t _TOP_BIT = 0x80000000  # bit 31: the top bit of a digit

# The layout of the pickles ``__reduce__`` writes.
_FORMAT = 1


cdef inline void _carry(int64_t* digits, Py_ssize_t index, Py_ssize_t changed) noexcept nogil:
    """Normalise from ``index`` up: every digit below the top in [0, 2**32).  The
    ``changed`` digits from ``index`` on are visited; above them, only while a carry
    or borrow is left."""
    cdef int64_t carry = 0
    cdef Py_ssize_t i = index
    while i < DIGITS - 1:
        digits[i] += carry
        carry = digits[i] >> 32  # (arithmetic: a borrow is -1, -2, ...)
        digits[i] &= _MASK
        i += 1
        if carry == 0 and i >= index + changed:
            return
    digits[DIGITS - 1] += carry


cdef void exact_add(int64_t* digits, double value, bint negate) noexcept nogil:
    """Add (``negate``: subtract) a finite double >= 0 to the exact sum, exactly."""
    cdef int exponent
    cdef double fraction
    cdef uint64_t mantissa, low, high
    cdef int64_t position, first, second, third
    cdef Py_ssize_t index
    if value == 0.0:
        return
    fraction = frexp(value, &exponent)
    mantissa = <uint64_t>ldexp(fraction, 53)  # an integer in [2**52, 2**53)
    position = exponent - 53 + LOWEST
    if position < 0:
        # A subnormal double: its low bits are 0, the shift is exact.
        mantissa >>= -position
        position = 0
    index = position >> 5
    low = (mantissa & <uint64_t>_MASK) << (position & 31)
    high = (mantissa >> 32) << (position & 31)
    first = <int64_t>(low & <uint64_t>_MASK)
    second = <int64_t>((low >> 32) + (high & <uint64_t>_MASK))
    third = <int64_t>(high >> 32)
    if negate:
        digits[index] -= first
        digits[index + 1] -= second
        digits[index + 2] -= third
    else:
        digits[index] += first
        digits[index + 1] += second
        digits[index + 2] += third
    _carry(digits, index, 3)


cdef inline void _negated(const int64_t* digits, int64_t* out) noexcept nogil:
    """``out`` = -``digits`` (normalised), by the two's complement of the digits."""
    cdef Py_ssize_t i
    for i in range(DIGITS - 1):
        out[i] = _MASK - digits[i]
    out[DIGITS - 1] = -1 - digits[DIGITS - 1]
    out[0] += 1
    _carry(out, 0, 1)


cdef double exact_value(const int64_t* digits) noexcept nogil:
    """The exact sum rounded to the nearest double (ties to even).

    The 64 bits from the highest set bit down, the bits below ORed into the
    last one (below the rounding position: it breaks a tie upward only when
    something is left below), converted by the one rounding of uint64 to
    double, then scaled exactly (results in the normal range).
    """
    cdef int64_t magnitude[DIGITS]
    cdef const int64_t* m = digits
    cdef bint negative = digits[DIGITS - 1] < 0
    cdef Py_ssize_t top, i
    cdef uint64_t head, second, third, bits
    cdef int zeros = 0
    cdef bint sticky = False
    cdef double value
    if negative:
        _negated(digits, magnitude)
        m = magnitude
    top = DIGITS - 1
    while top >= 0 and m[top] == 0:
        top -= 1
    if top < 0:
        return 0.0
    head = <uint64_t>m[top]
    second = <uint64_t>m[top - 1] if top >= 1 else 0
    third = <uint64_t>m[top - 2] if top >= 2 else 0
    while zeros < 32 and not (head << zeros) & _TOP_BIT:
        zeros += 1
    bits = ((head << 32) | second) << zeros
    if zeros:
        bits |= third >> (32 - zeros)
        sticky = (third & ((<uint64_t>1 << (32 - zeros)) - 1)) != 0
    else:
        sticky = third != 0
    for i in range(top - 2):
        if m[i] != 0:
            sticky = True
            break
    if sticky:
        bits |= 1
    value = ldexp(<double>bits, <int>(32 * (top - 1) - zeros - LOWEST))
    return -value if negative else value


cdef void exact_shift_down(int64_t* digits, int64_t bits) noexcept nogil:
    """The exact sum times 2**-``bits`` (``bits`` >= 0), its magnitude truncated."""
    cdef int64_t magnitude[DIGITS]
    cdef bint negative = digits[DIGITS - 1] < 0
    cdef Py_ssize_t i, whole = bits >> 5
    cdef int part = bits & 31
    cdef int64_t low, high
    if negative:
        _negated(digits, magnitude)
    else:
        for i in range(DIGITS):
            magnitude[i] = digits[i]
    for i in range(DIGITS):
        low = magnitude[i + whole] if i + whole < DIGITS else 0
        high = magnitude[i + whole + 1] if i + whole + 1 < DIGITS else 0
        digits[i] = ((low >> part) | (high << (32 - part))) & _MASK if part else low
    if negative:
        for i in range(DIGITS):
            magnitude[i] = digits[i]
        _negated(magnitude, digits)


cdef class CalibrationEngine(PointEngine):
    """Exact sums of a window's probability scores; see the module docstring.

    ``columns``: the metrics it records, among ``COLUMNS``; ``edges``: the
    ``n_bins + 1`` edges of uniform bins of ``ece`` and ``mce``
    (``numpy.linspace(0, 1, n_bins + 1)``, as ``calibration_error``'s), None
    without them.  The scores it takes are probabilities in [0, 1] (the
    public layer checks them).
    """

    def __cinit__(self, columns, edges=None):
        columns = tuple(columns)
        unknown = [column for column in columns if column not in COLUMNS]
        if unknown or not columns:
            raise ValueError(f"unknown calibration column(s) {unknown!r}")
        self.columns = tuple(column for column in COLUMNS if column in columns)
        self.with_brier = "brier" in columns
        self.with_log_loss = "log_loss" in columns
        self.with_ece = "ece" in columns
        self.with_mce = "mce" in columns
        if self.with_ece or self.with_mce:
            edges = np.array(edges, dtype=np.float64)
            if edges.ndim != 1 or edges.shape[0] < 2:
                raise ValueError(f"the bins need at least 2 edges, got {edges!r}")
        else:
            edges = np.zeros(1)
        self.edge_buffer = edges
        self.n_bins = edges.shape[0] - 1
        self.accumulators = FIRST_BIN + 2 * self.n_bins
        self.digit_buffer = np.zeros((self.accumulators, DIGITS), dtype=np.int64)
        self.count_buffer = np.zeros(max(self.n_bins, 1), dtype=np.int64)
        self.cache_buffer = np.zeros(self.accumulators, dtype=np.float64)
        self.dirty_buffer = np.zeros(self.accumulators, dtype=np.uint8)
        self.stale = False
        self.n_points = 0
        self.parts = _Blocked() if "expected_auc" in columns else None
        scored = "sauc" in columns
        self.scored_pos = _Blocked() if scored else None
        self.scored_neg = _Blocked() if scored else None
        self._bind()

    cdef int _bind(self) except -1:
        cdef int64_t[:, ::1] digits = self.digit_buffer
        cdef int64_t[::1] count = self.count_buffer
        cdef double[::1] edges = self.edge_buffer
        cdef double[::1] cache = self.cache_buffer
        cdef uint8_t[::1] dirty = self.dirty_buffer
        self.digits = &digits[0, 0]
        self.count = &count[0]
        self.edges = &edges[0]
        self.cache = &cache[0]
        self.dirty = &dirty[0]
        return 0

    cdef Py_ssize_t _bin_of(self, double probability) noexcept nogil:
        """The bin of ``probability``, as ``numpy.searchsorted(edges[1:-1], p)``: a
        probability on an inner edge in the bin below it."""
        cdef Py_ssize_t k = <Py_ssize_t>(probability * self.n_bins)
        if k >= self.n_bins:
            k = self.n_bins - 1
        elif k < 0:
            k = 0
        while k > 0 and probability <= self.edges[k]:
            k -= 1
        while k < self.n_bins - 1 and probability > self.edges[k + 1]:
            k += 1
        return k

    cdef void _refresh(self, Py_ssize_t accumulator) noexcept nogil:
        self.cache[accumulator] = exact_value(self.digits + accumulator * DIGITS)

    cdef void _settle(self) noexcept nogil:
        """Round the sums changed since the last read (the cache a read divides)."""
        cdef Py_ssize_t accumulator
        if not self.stale:
            return
        for accumulator in range(self.accumulators):
            if self.dirty[accumulator]:
                self._refresh(accumulator)
                self.dirty[accumulator] = 0
        self.stale = False

    cdef void _clear(self, Py_ssize_t accumulator) noexcept nogil:
        cdef Py_ssize_t i
        for i in range(accumulator * DIGITS, (accumulator + 1) * DIGITS):
            self.digits[i] = 0
        self.cache[accumulator] = 0.0

    # ------------------------------------------------------------------
    # The hooks of ``PointEngine``.

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        if self.parts is not None:
            # The parts always weigh: weighted mode from the first point.
            self.parts._reserve(2 * new_points, True)
        if self.scored_pos is not None:
            self.scored_pos._reserve(new_points, True)
            self.scored_neg._reserve(new_points, True)
        return 0

    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil:
        cdef bint negate = not adding
        cdef double label = 1.0 if is_pos else 0.0, own, term
        cdef Py_ssize_t b, slot
        if not adding and self.n_points == 0:
            return NOT_PRESENT
        if self.n_bins and (self.with_ece or self.with_mce):
            b = self._bin_of(score)
            if not adding and self.count[b] == 0:
                return NOT_PRESENT
            slot = FIRST_BIN + 2 * b
            self.count[b] += 1 if adding else -1
            if self.count[b] == 0:
                self._clear(slot)
                self._clear(slot + 1)
            else:
                exact_add(self.digits + slot * DIGITS, weight, negate)
                exact_add(self.digits + (slot + 1) * DIGITS, weight * score, negate)
                exact_add(self.digits + (slot + 1) * DIGITS, weight * label, not negate)
            self.dirty[slot] = self.dirty[slot + 1] = 1
        exact_add(self.digits + TOTAL * DIGITS, weight, negate)
        self.dirty[TOTAL] = 1
        self.stale = True
        if self.with_brier:
            # (y - p)^2 as numpy squares the difference of float labels and p.
            term = (label - score) * (label - score)
            exact_add(self.digits + BRIER * DIGITS, weight * term, negate)
            self.dirty[BRIER] = 1
        if self.with_log_loss:
            own = score if is_pos else 1.0 - score
            own = min(max(own, _EPS), 1.0 - _EPS)
            term = -log(own)
            exact_add(self.digits + LOG_LOSS * DIGITS, weight * term, negate)
            self.dirty[LOG_LOSS] = 1
        if self.parts is not None:
            # (In this engine's units; its emptied rule runs with this one's.)
            self.parts.inverse_scale = self.inverse_scale
            if weight * score > 0.0:
                self.parts._update(True, score, weight * score, adding)
            if weight * (1.0 - score) > 0.0:
                self.parts._update(False, score, weight * (1.0 - score), adding)
        if self.scored_pos is not None:
            self._update_scored(is_pos, score, weight, adding)
        self.n_points += 1 if adding else -1
        return DONE

    cdef int _update_scored(self, bint is_pos, double score, double weight,
                            bint adding) except -1 nogil:
        """The point in or out of the scored AUC's engines: weighing w p in the engine
        that scales its class, w in the other (a part of weight 0 absent)."""
        cdef double scaled = weight * score
        self.scored_pos.inverse_scale = self.inverse_scale
        self.scored_neg.inverse_scale = self.inverse_scale
        if is_pos:
            if scaled > 0.0:
                self.scored_pos._update(True, score, scaled, adding)
            if weight > 0.0:
                self.scored_neg._update(True, score, weight, adding)
        else:
            if weight > 0.0:
                self.scored_pos._update(False, score, weight, adding)
            if scaled > 0.0:
                self.scored_neg._update(False, score, scaled, adding)
        return 0

    cdef double _scored_auc(self) noexcept nogil:
        """sAUC of the points held (see the module docstring); nan while a class is
        absent."""
        cdef double total_neg, total_pos, pairs
        if self.scored_pos.n_blocks == 0 or self.scored_neg.n_blocks == 0:
            return NAN
        total_neg = self.scored_pos._class_total(False)
        total_pos = self.scored_neg._class_total(True)
        if not (total_neg > 0.0 and total_pos > 0.0):
            return NAN
        # (Both engines are in weighted mode: 2U is the root's third column.)
        pairs = self.scored_pos.tree[5] - self.scored_neg.tree[5]
        return min(max(pairs / (2.0 * total_neg * total_pos), 0.0), 1.0)

    cdef Py_ssize_t _held_points(self) noexcept nogil:
        return self.n_points

    cdef bint _stores_weights(self) noexcept nogil:
        return True

    cdef int32_t _count_at(self, double score, bint is_pos) noexcept nogil:
        # (The engine keeps sums, not points: a window's ring holds them and
        # removes exactly what it added.)
        return 0

    cdef double _weight_at(self, double score, bint is_pos) noexcept nogil:
        return 0.0

    cdef int _emptied_rule(self) except -1:
        """The protocol's rule, and the parts' engine's when it holds no part (every
        point held weighs 0) or none is left."""
        PointEngine._emptied_rule(self)
        if self.parts is not None:
            self.parts._emptied_rule()
        if self.scored_pos is not None:
            self.scored_pos._emptied_rule()
            self.scored_neg._emptied_rule()
        return 0

    cdef int _emptied(self) except -1:
        cdef Py_ssize_t accumulator
        for accumulator in range(self.accumulators):
            self._clear(accumulator)
        return 0

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """Every stored weight times ``factor`` (2**-k): the exact sums shifted down."""
        cdef int exponent
        cdef Py_ssize_t accumulator
        frexp(factor, &exponent)
        for accumulator in range(self.accumulators):
            if factor == 0.0 or 1 - exponent >= 32 * DIGITS:
                self._clear(accumulator)
            else:
                exact_shift_down(self.digits + accumulator * DIGITS, 1 - exponent)
                self._refresh(accumulator)
        if self.parts is not None:
            self.parts._scale_weights(factor)
        if self.scored_pos is not None:
            self.scored_pos._scale_weights(factor)
            self.scored_neg._scale_weights(factor)

    cdef double _metric(self, Py_ssize_t column) noexcept nogil:
        """Column ``column`` of ``COLUMNS`` over the points held."""
        cdef double total = self.cache[TOTAL], gap, largest = 0.0, summed = 0.0
        cdef Py_ssize_t b
        if column == 4:
            return self.parts._auc()
        if column == 5:
            return self._scored_auc()
        self._settle()
        total = self.cache[TOTAL]
        if not total > 0.0:
            return NAN
        if column == 0:
            return self.cache[BRIER] / total
        if column == 1:
            return self.cache[LOG_LOSS] / total
        for b in range(self.n_bins):
            if self.cache[FIRST_BIN + 2 * b] > 0.0:
                gap = fabs(self.cache[FIRST_BIN + 2 * b + 1])
                summed += gap
                largest = max(largest, gap / self.cache[FIRST_BIN + 2 * b])
        return summed / total if column == 2 else largest

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        cdef Py_ssize_t column = 0
        if self.with_brier:
            out[row, column] = self._metric(0)
            column += 1
        if self.with_log_loss:
            out[row, column] = self._metric(1)
            column += 1
        if self.with_ece:
            out[row, column] = self._metric(2)
            column += 1
        if self.with_mce:
            out[row, column] = self._metric(3)
            column += 1
        if self.parts is not None:
            out[row, column] = self._metric(4)
            column += 1
        if self.scored_pos is not None:
            out[row, column] = self._metric(5)

    cdef object _read(self):
        return self._metric(COLUMNS.index(self.columns[0]))

    # ------------------------------------------------------------------
    # Reads.

    def _column(self, name):
        if name not in self.columns:
            raise AttributeError(f"this engine does not record {name!r}")
        self._check_idle()
        return self._metric(COLUMNS.index(name))

    @property
    def brier(self):
        return self._column("brier")

    @property
    def log_loss(self):
        return self._column("log_loss")

    @property
    def ece(self):
        return self._column("ece")

    @property
    def mce(self):
        return self._column("mce")

    @property
    def expected_auc(self):
        return self._column("expected_auc")

    @property
    def sauc(self):
        return self._column("sauc")

    def sums(self):
        """Each exact sum rounded to nearest (in the structure's units), by accumulator."""
        return np.array([exact_value(self.digits + a * DIGITS) for a in range(self.accumulators)])

    @property
    def nbytes(self):
        parts = sum(engine.nbytes for engine in (self.parts, self.scored_pos, self.scored_neg)
                    if engine is not None)
        return (self.digit_buffer.nbytes + self.count_buffer.nbytes + self.edge_buffer.nbytes
                + self.cache_buffer.nbytes + parts)

    def _check(self):
        """The sums are normalised, non-negative where they must be, their cache current and
        in step with the counts; the parts' engine is sound.  Reads only: O(bins + n)."""
        digits = self.digit_buffer
        counts = self.count_buffer[:self.n_bins]
        if np.any(digits[:, :-1] < 0) or np.any(digits[:, :-1] > int(_MASK)):
            raise AssertionError("an exact sum is not normalised")
        sums = self.sums()
        settled = self.dirty_buffer == 0
        if not np.array_equal(sums[settled], self.cache_buffer[settled]):
            raise AssertionError("a cached sum differs from its exact sum")
        weights = sums[FIRST_BIN::2]
        if np.any(sums[:FIRST_BIN] < 0) or np.any(weights < 0):
            raise AssertionError("a negative weight or score sum")
        if self.n_points < 0 or (self.n_bins and (self.with_ece or self.with_mce)
                                 and int(counts.sum()) != self.n_points):
            raise AssertionError(f"{int(counts.sum())} points in the bins, {self.n_points} held")
        if np.any(counts < 0) or np.any(digits[FIRST_BIN:].reshape(self.n_bins, 2 * DIGITS)[
                counts == 0] != 0):
            raise AssertionError("a bin without points holds a sum")
        if self.n_points == 0 and (np.any(digits != 0) or self.inverse_scale != 0.0):
            raise AssertionError("an empty engine holds sums or units")
        # |sum of w (p - y)| <= weight in each bin; the bins add up to the total.
        if np.any(np.abs(sums[FIRST_BIN + 1::2]) > weights * (1 + 1e-12)):
            raise AssertionError("a bin's gap exceeds its weight")
        if (self.with_ece or self.with_mce) and abs(weights.sum() - sums[TOTAL]) > (
                1e-12 * sums[TOTAL]):
            raise AssertionError("the bins' weights do not add up to the total")
        for engine in (self.parts, self.scored_pos, self.scored_neg):
            if engine is not None:
                engine._check()
                if self.n_points == 0 and engine.n_points:
                    raise AssertionError("parts held without points")
        if self.scored_pos is not None:
            # Each class weighs w in one engine and w p <= w in the other; together the
            # plain weights are the total.
            plain_neg = self.scored_pos._class_total(False)
            plain_pos = self.scored_neg._class_total(True)
            if (self.scored_pos._class_total(True) > plain_pos * (1 + 1e-12)
                    or self.scored_neg._class_total(False) > plain_neg * (1 + 1e-12)
                    or abs(plain_neg + plain_pos - sums[TOTAL]) > 1e-12 * sums[TOTAL]):
                raise AssertionError("the scored AUC's engines do not hold the points")
        return True

    def check_points(self, is_pos, scores, weights):
        """Every sum equals the exact sum of the terms of these points (the window's, in
        the structure's units): the state is a function of the points alone.  O(n)."""
        fresh = CalibrationEngine(self.columns, None if self.n_bins == 0 or not (
            self.with_ece or self.with_mce) else self.edge_buffer)
        fresh.inverse_scale = self.inverse_scale
        is_pos = np.ascontiguousarray(is_pos, dtype=np.uint8)
        fresh.add_many(is_pos, np.ascontiguousarray(scores, dtype=np.float64),
                       np.ascontiguousarray(weights, dtype=np.float64) / self.inverse_scale
                       if self.inverse_scale else None)
        if fresh.n_points != self.n_points or not np.array_equal(fresh.sums(), self.sums()):
            raise AssertionError("the sums differ from those of the window's points")
        return True

    def __reduce__(self):
        self._check_idle()
        return (_rebuild_calibration, (_FORMAT, self.columns,
                                       self.edge_buffer if self.with_ece or self.with_mce
                                       else None, self.n_points, self.inverse_scale,
                                       self.newest_decay, self.digit_buffer, self.count_buffer,
                                       self.parts, self.scored_pos, self.scored_neg))


def _rebuild_calibration(format_version, columns, edges, n_points, inverse_scale, newest_decay,
                         digits, counts, parts, scored_pos=None, scored_neg=None):
    cdef CalibrationEngine engine
    if format_version != _FORMAT:
        raise ValueError(f"a calibration engine pickled in format {format_version!r}; this "
                         f"version reads format {_FORMAT}")
    try:
        engine = CalibrationEngine(columns, edges)
        digits = np.array(digits, copy=True)
        counts = np.array(counts, copy=True)
        for buffer, model in ((digits, engine.digit_buffer), (counts, engine.count_buffer)):
            if buffer.dtype != model.dtype or buffer.shape != model.shape:
                raise ValueError(f"a buffer is {buffer.dtype} {buffer.shape}, not "
                                 f"{model.dtype} {model.shape}")
        if (parts is None) != (engine.parts is None):
            raise ValueError("the expected AUC's engine does not match the columns")
        if ((scored_pos is None) != (engine.scored_pos is None)
                or (scored_neg is None) != (engine.scored_neg is None)):
            raise ValueError("the scored AUC's engines do not match the columns")
        engine.digit_buffer, engine.count_buffer = digits, counts
        engine._bind()
        engine.n_points = n_points
        engine.inverse_scale = inverse_scale
        engine.newest_decay = newest_decay
        engine.parts = parts
        engine.scored_pos, engine.scored_neg = scored_pos, scored_neg
        for accumulator in range(engine.accumulators):
            engine._refresh(accumulator)
        engine._check()
    except (AssertionError, OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this calibration engine: {error}") from None
    return engine
