"""The entry points every engine of points shares: one protocol, written once.

An engine keeps a set of (label, score, weight) points and some metrics of
them (the AUC of Tatti, "Maintaining AUC and H-measure over time", Sec. 4;
the ROC hull and H-measure of its Sec. 5).  ``PointEngine`` holds what does
not depend on how the points are ordered: the claim that refuses concurrent
use (``_guarded``: claim, run, release), the compiled fast path for single
points given as plain Python values (``Status.UNCHECKED`` for anything it
does not take: the public layer then validates and calls again; engines
never import the public layer), batches, the window ring of ``slide``,
windows and decay (``Forgetting``: points leave, weights decay by powers of
two), weights stored in the structure's own units (a power of two fixed by
the first positive weight) and the rule for an emptied structure.

A subclass keeps the points (sorted blocks, a score treap, bins) and fills
in the hooks declared in ``_protocol.pxd``: ``_update`` (one point in or
out), ``_reserve``, ``_held_points``, ``_stores_weights``, ``_count_at``,
``_emptied``, ``_scale_weights``, ``_record`` and ``_read``.
"""

import numpy as np

from cpython.pythread cimport PyThread_get_thread_ident
from libc.math cimport exp2, fabs, isfinite, ldexp
from libc.stdint cimport int32_t, int64_t, uint8_t

from hmeasure_stream._engines._numeric cimport inverse_scale_of, stored_weight
from hmeasure_stream._engines._ring cimport (
    RESCALE_EXPONENT,
    RETRACTED,
    Forgetting,
    PointRing,
    ring_slot,
)


cdef inline bint _plain_label(object value, bint* is_pos):
    """A Python bool, or the int 0 or 1, as a label; False for anything else."""
    if value is True or value is False:
        is_pos[0] = value is True
        return True
    if type(value) is int and (value == 0 or value == 1):
        is_pos[0] = value == 1
        return True
    return False


cdef inline bint _plain_score(object value, double* score):
    """A finite Python float, or an int exact as a float64, as a score."""
    if type(value) is float:
        score[0] = value
        return isfinite(score[0])
    if type(value) is int and -2**53 <= value <= 2**53:
        score[0] = value
        return True
    return False


cdef inline bint _plain_weight(object value, double* weight):
    """A finite Python float >= 0 as a weight."""
    if type(value) is float:
        weight[0] = value
        return isfinite(weight[0]) and weight[0] >= 0.0
    return False


cdef inline int _plain_point(object y_true, object y_score, object weight,
                             double inverse_scale, bint adding, bint* is_pos, double* score,
                             double* stored, double* inverse):
    """A point given as plain Python values, its weight in the structure's units.

    Returns DONE, UNCHECKED (not plain values: the public layer validates
    them) or OUT_OF_RANGE (the weight cannot be stored in these units).  An
    addition's first positive weight fixes the units while ``inverse_scale``
    is 0; ``inverse`` receives the units to keep.
    """
    cdef double weight_value
    inverse[0] = inverse_scale
    if not (_plain_label(y_true, is_pos) and _plain_score(y_score, score)
            and _plain_weight(weight, &weight_value)):
        return UNCHECKED
    return point_weight(weight_value, inverse_scale, adding, stored, inverse)


def stored_batch(weights, Py_ssize_t n, bint adding, double inverse_scale):
    """A batch's weights in a structure's units; reads only (shared by the engines).

    Returns ``(stored, inverse, refused)``: the weights times ``inverse``
    (None: all 1), the inverse scale to store them with (an addition's first
    positive weight fixes it while ``inverse_scale`` is 0: no scale yet), and
    the index of the first weight that cannot be stored, or -1.
    """
    cdef double inverse = inverse_scale
    if weights is None:
        if n == 0 or inverse == 1.0:
            return None, inverse, -1
        if inverse == 0.0:
            if adding:
                return None, 1.0, -1
            return None, inverse, 0  # unit weights, but nothing of positive weight is held
        weights = np.ones(n)
    weights = np.asarray(weights, dtype=np.float64)
    if inverse == 0.0 and adding:
        positive = np.flatnonzero(weights > 0.0)
        if positive.size:
            inverse = inverse_scale_of(weights[positive[0]])
    with np.errstate(over="ignore", under="ignore"):  # such weights are refused below
        stored = weights * inverse
    bad = np.flatnonzero((weights != 0.0) & ~((stored >= 2.0 ** -400) & (stored <= 2.0 ** 400)))
    return stored, inverse, (bad[0] if bad.size else -1)


# Batches through a window (``Forgetting``) reserve room for _BLOCK points at a time.
cdef Py_ssize_t _BLOCK = 4096


cdef class Guarded:
    """The claim against concurrent use: one engine, or one structure's engines, to one thread.

    An engine's operation claims it for its whole run (``_claim``, then
    ``_release``), preparation and compiled loops without the GIL included:
    another thread's call meanwhile is refused with ``RuntimeError``.  A
    structure whose operation spans several calls or engines (a check then a
    removal, the engines of the classes) claims them all for the calling
    thread first (``claim``, then ``release``): that thread's calls then
    enter, every other thread's are refused, so the structure changes whole
    or not at all.
    """

    def __cinit__(self, *args, **kwargs):
        self.claims = 0
        self.owner = 0

    cdef int _check_idle(self) except -1:
        """Refuse while an operation of another thread (or of the engine's own) holds it."""
        if self.claims and self.owner != PyThread_get_thread_ident():
            raise RuntimeError(
                "the structure is being modified by another thread (a batch operation "
                "is running); share it between threads only under a lock"
            )
        return 0

    cdef int _claim(self) except -1:
        """Check and claim with the GIL held and nothing in between: two threads can
        never both pass."""
        self._check_idle()
        self.claims += 1
        return 0

    cdef void _release(self) noexcept:
        self.claims -= 1
        if self.claims == 0:
            self.owner = 0


cdef int _claim_all(tuple engines) except -1:
    cdef Guarded engine
    cdef unsigned long thread = PyThread_get_thread_ident()
    for engine in engines:  # every check before any claim, the GIL held throughout
        engine._check_idle()
    for engine in engines:
        engine.claims += 1
        engine.owner = thread
    return 0


cdef int _release_all(tuple engines) except -1:
    cdef Guarded engine
    for engine in engines:
        engine._release()
    return 0


def claim(engines):
    """Claim every engine of a structure for the calling thread: all of them, or none and
    ``RuntimeError`` (another thread holds one).  ``release`` ends the claim."""
    _claim_all(tuple(engines))


def release(engines):
    """End a ``claim`` of these engines."""
    _release_all(tuple(engines))


cdef class Claim:
    """``with Claim(*engines):`` holds ``claim(engines)`` for the block (a structure's
    operation of several engine calls), then releases it."""

    cdef tuple engines

    def __cinit__(self, *engines):
        self.engines = engines

    def __enter__(self):
        _claim_all(self.engines)
        return self

    def __exit__(self, *exception):
        _release_all(self.engines)
        return False


cdef class PointEngine(Guarded):
    """The shared entry points of the engines; see the module docstring."""

    def __cinit__(self, *args, **kwargs):
        self.inverse_scale = 0.0
        self.newest_decay = 1.0

    cdef object _guarded(self, Operation operation, object first, object second, object third,
                         object fourth):
        """Claim the structure, run one operation, apply the emptied rule, release.

        Every entry point runs here.  The claim (``Guarded._claim``) covers the
        whole operation, its preparation (which may run Python code, where
        threads switch) included.
        """
        self._claim()
        try:
            if operation == ADD_POINT or operation == REMOVE_POINT:
                result = self._point(first, second, third, operation == ADD_POINT)
            elif operation == ADD_BATCH or operation == REMOVE_BATCH:
                result = self._batch(first, second, third, operation == ADD_BATCH)
            elif operation == SLIDE:
                result = self._slide(first[0], first[1], first[2], second, third)
            elif operation == FORGET_POINT:
                result = self._forget_point(first[0], first[1], second, third, fourth)
            elif operation == FORGET_BATCH:
                result = self._forget_batch(first[0], first[1], first[2], first[3], second,
                                            third, fourth)
            elif operation == FORGET_REMOVE:
                result = self._forget_remove(first, second, third, fourth)
            else:
                result = self._read()
            self._emptied_rule()
        finally:
            self._release()
        return result

    cdef int _emptied_rule(self) except -1:
        """The one emptied-structure rule: an empty structure returns to exact unit mode
        and forgets the units of its weights."""
        if self._held_points() == 0:
            self.inverse_scale = 0.0
            self._emptied()
        return 0

    # ------------------------------------------------------------------
    # Hooks: what a subclass keeping the points provides.

    cdef int _reserve(self, Py_ssize_t new_points, bint weighted) except -1:
        """With the GIL, before a mutation: weighted mode if needed, room for the points."""
        raise NotImplementedError

    cdef int _update(self, bint is_pos, double score, double weight,
                     bint adding) except -1 nogil:
        """One point in or out (room reserved); returns its Status."""
        with gil:
            raise NotImplementedError

    cdef Py_ssize_t _held_points(self) noexcept nogil:
        """The number of points held."""
        return 0

    cdef bint _stores_weights(self) noexcept nogil:
        """Whether weights other than 1 are stored (weighted mode)."""
        return False

    cdef int32_t _count_at(self, double score, bint is_pos) noexcept nogil:
        """The number of points of one class at ``score``."""
        return 0

    cdef double _weight_at(self, double score, bint is_pos) noexcept nogil:
        """The weight of one class at ``score`` in stored units (its count in unit mode),
        0 where absent."""
        return 0.0

    cdef int _emptied(self) except -1:
        """The structure just emptied: return to exact unit mode (``_guarded`` calls it)."""
        return 0

    cdef void _scale_weights(self, double factor) noexcept nogil:
        """Multiply every stored weight by ``factor``, a power of two (exact)."""
        pass

    cdef void _record(self, double[:, ::1] out, Py_ssize_t row) noexcept nogil:
        """Write the metrics of ``columns`` into ``out[row]``."""
        pass

    cdef object _read(self):
        """The engine's main metric."""
        return None

    def value(self, name):
        """The current value of the column ``name`` of ``columns``."""
        return getattr(self, name)

    # ------------------------------------------------------------------
    # Single points and batches.

    cdef int _point(self, object y_true, object y_score, object weight, bint adding) except -1:
        cdef bint is_pos
        cdef double score, point_weight, inverse
        cdef int status = _plain_point(y_true, y_score, weight, self.inverse_scale, adding,
                                       &is_pos, &score, &point_weight, &inverse)
        if status == OUT_OF_RANGE and not adding:
            return WEIGHT_EXCEEDS if self._count_at(score, is_pos) else NOT_PRESENT
        if status != DONE:
            return status
        if adding:
            self._reserve(1, point_weight != 1.0)
            self.inverse_scale = inverse
        elif point_weight != 1.0 and not self._stores_weights():
            # Every point present weighs 1.
            return WEIGHT_EXCEEDS if self._count_at(score, is_pos) else NOT_PRESENT
        return self._update(is_pos, score, point_weight, adding)

    cdef object _stored_weights(self, object weights, Py_ssize_t n, bint adding,
                                double* inverse, Py_ssize_t* refused):
        """A batch's weights in the structure's units (``stored_batch``), reading only."""
        stored, inverse[0], refused[0] = stored_batch(weights, n, adding, self.inverse_scale)
        return stored

    cdef Py_ssize_t _batch(self, object is_pos_array, object scores_array,
                           object weights_array, bint adding) except -2:
        """A checked batch; returns -1, or the index of a refused point (none of the batch
        run for a weight out of range; the rest not run for a refused removal).

        The arrays are taken as objects and viewed here, so that ``_guarded``,
        on every single point's path, holds no buffer views of its own.
        """
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef Py_ssize_t index, n = scores.shape[0], refused
        cdef double inverse
        cdef int status = DONE
        stored = self._stored_weights(weights_array, n, adding, &inverse, &refused)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] stored_view = None if unit else stored
        if adding:
            self._reserve(n, not unit and bool(np.any(stored != 1.0)))
            self.inverse_scale = inverse
        with nogil:
            for index in range(n):
                status = self._update(is_pos[index], scores[index],
                                      1.0 if unit else stored_view[index], adding)
                if status != DONE:
                    break
        return index if status != DONE else -1

    cdef Py_ssize_t _slide(self, PointRing ring, object is_pos_array, object scores_array,
                           object weights_array, object out_array) except -2:
        """Add each point, remove the one it evicts from ``ring``, record the metrics.

        ``out[i]`` receives the metrics after point i (``_record``; ``columns``
        names them).  The ring keeps the weights in the structure's units.
        Returns -1, or the index of a weight that cannot be stored (nothing done).
        """
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef double[:, ::1] out = out_array
        cdef Py_ssize_t index, n = scores.shape[0], refused
        cdef double weight, left_score, left_weight, inverse
        cdef uint8_t left_is_pos
        stored = self._stored_weights(weights_array, n, True, &inverse, &refused)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] stored_view = None if unit else stored
        self._reserve(n if ring.capacity == 0 else min(n, ring.capacity + 1),
                      not unit and bool(np.any(stored != 1.0)))
        if ring.capacity:  # (a window's ring grows to the window as its points arrive)
            ring.reserve(n)
        self.inverse_scale = inverse
        with nogil:
            for index in range(n):
                weight = 1.0 if unit else stored_view[index]
                self._update(is_pos[index], scores[index], weight, True)
                if ring.push(is_pos[index], scores[index], weight,
                             &left_is_pos, &left_score, &left_weight):
                    self._update(left_is_pos, left_score, left_weight, False)
                self._record(out, index)
        return -1

    # ------------------------------------------------------------------
    # Windows and decay: the points of a ``Forgetting`` leave here.

    cdef int _forget_one(self, Forgetting forgetting, uint8_t is_pos, double score,
                         double weight, int64_t time, bint has_time) except -1 nogil:
        """One point in, through ``forgetting`` (a slot and a ring slot reserved).

        The points that leave before it arrives go first (oldest first; the
        retracted ones are only dropped from the ring); with decay its weight
        is stored times its decay factor, after rescaling every stored weight
        by 2^-k when that factor would pass 2^RESCALE_EXPONENT.
        """
        cdef Py_ssize_t slot
        cdef int shift
        cdef double factor
        if has_time:
            forgetting.newest_time = time
            forgetting.has_time = True
        else:
            time = forgetting.newest_time
        while forgetting.expired():
            slot = forgetting.ring.head
            if forgetting.ring.is_pos[slot] != RETRACTED:
                self._update(forgetting.ring.is_pos[slot], forgetting.ring.score[slot],
                             forgetting.ring.weight[slot], False)
                forgetting.live -= 1
            forgetting.ring.pop_oldest()
        if forgetting.half_life > 0.0:
            # (The anchor and the rescale are Forgetting's rule: it rescales the ring's
            # weights, the engine its own by the same power of two.)
            factor = forgetting.decay_to(time if forgetting.decay_by_time else forgetting.step,
                                         forgetting.live == 0, &shift)
            if shift:
                self._scale_weights(ldexp(1.0, -shift))
            weight = weight * factor
            self.newest_decay = factor
        self._update(is_pos, score, weight, True)
        forgetting.ring.append(is_pos, score, weight, time)
        forgetting.step += 1
        forgetting.live += 1
        return 0

    cdef object _forget_point(self, Forgetting forgetting, object time, object y_true,
                              object y_score, object weight):
        """One point given as plain Python values (``time``: int nanoseconds or None)."""
        cdef bint is_pos
        cdef double score, point_weight, inverse
        cdef int status = _plain_point(y_true, y_score, weight, self.inverse_scale, True,
                                       &is_pos, &score, &point_weight, &inverse)
        if status != DONE:
            return status
        self._reserve(1, point_weight != 1.0 or forgetting.half_life > 0.0)
        self.inverse_scale = inverse
        forgetting.ring.reserve(1)
        self._forget_one(forgetting, is_pos, score, point_weight,
                         0 if time is None else time, time is not None)
        return DONE

    cdef Py_ssize_t _forget_batch(self, Forgetting forgetting, object times, object out,
                                  object held, object is_pos_array, object scores_array,
                                  object weights_array) except -2:
        """A checked batch through ``forgetting``; ``out[i]`` (unless None) gets the metrics
        after point i and ``held[i]`` (unless None) the number of points then held.  In
        blocks, so that a long batch on a short window reserves room for one block only:
        memory follows the window, not the batch.  Weights are stored in the structure's
        units (as ``_batch``); returns -1, or the index of a weight that cannot be
        stored (nothing done)."""
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef const int64_t[::1] time_view = times
        cdef double[:, ::1] out_view = out
        cdef int64_t[::1] held_view = held
        cdef Py_ssize_t index, start, stop, n = scores.shape[0], refused
        cdef double inverse
        cdef bint timed = times is not None, record = out is not None
        cdef bint count = held is not None
        stored = self._stored_weights(weights_array, n, True, &inverse, &refused)
        if refused >= 0:
            return refused
        cdef bint unit = stored is None
        cdef const double[::1] weights = stored
        self._reserve(0, forgetting.half_life > 0.0
                      or (not unit and bool(np.any(stored != 1.0))))
        self.inverse_scale = inverse
        for start in range(0, n, _BLOCK):
            stop = min(start + _BLOCK, n)
            self._reserve(stop - start, False)
            forgetting.ring.reserve(stop - start)
            with nogil:
                for index in range(start, stop):
                    self._forget_one(forgetting, is_pos[index], scores[index],
                                     1.0 if unit else weights[index],
                                     time_view[index] if timed else 0, timed)
                    if record:
                        self._record(out_view, index)
                    if count:
                        held_view[index] = forgetting.live
        return -1

    cdef object _forget_remove(self, Forgetting forgetting, object is_pos_array,
                               object scores_array, object weights_array):
        """Retract a checked batch from the window: each point is the oldest one there with
        its label, score and weight, not yet retracted.  Returns (-1, DONE), or (index,
        status) of the first point not found (nothing retracted)."""
        cdef const uint8_t[::1] is_pos = is_pos_array
        cdef const double[::1] scores = scores_array
        cdef const double[::1] weights = weights_array
        cdef PointRing ring = forgetting.ring
        cdef Py_ssize_t index, offset, slot, n = scores.shape[0]
        cdef double expected, stored
        cdef bint seen
        taken = np.zeros(ring.slots, dtype=np.uint8)
        cdef uint8_t[::1] taken_view = taken
        found = np.empty(n, dtype=np.intp)
        for index in range(n):
            seen = False
            found[index] = -1
            for offset in range(ring.size):
                slot = ring_slot(ring, offset)
                if (ring.is_pos[slot] != is_pos[index] or ring.score[slot] != scores[index]
                        or taken_view[slot]):
                    continue
                seen = True
                stored = ring.weight[slot]
                expected = (1.0 if weights is None else weights[index]) * self.inverse_scale
                if forgetting.half_life > 0.0:
                    expected *= exp2(forgetting.exponent(forgetting.position(offset)))
                if stored == expected or fabs(stored - expected) <= 1e-9 * max(stored, expected):
                    taken_view[slot] = 1
                    found[index] = slot
                    break
            if found[index] < 0:
                return index, WEIGHT_EXCEEDS if seen else NOT_PRESENT
        for index in range(n):
            slot = found[index]
            self._update(ring.is_pos[slot], ring.score[slot], ring.weight[slot], False)
            ring.is_pos[slot] = RETRACTED
            forgetting.live -= 1
        return -1, DONE

    def forget_add(self, Forgetting forgetting, y_true, y_score, weight=1.0, time=None):
        """Add one point (plain Python values) through ``forgetting``: DONE, UNCHECKED or
        OUT_OF_RANGE.

        ``time``: int nanoseconds, not before ``forgetting.newest_time`` (the
        caller checks), or None.
        """
        return self._guarded(FORGET_POINT, (forgetting, time), y_true, y_score, weight)

    def forget_add_many(self, Forgetting forgetting, is_pos, scores, weights=None, times=None,
                        out=None, held=None):
        """Add a checked batch through ``forgetting`` (``times``: int64 ns, non-decreasing
        from ``forgetting.newest_time``, or None); ``out[i]`` gets the metrics after point i
        (as ``slide``), ``held[i]`` (int64) the number of points then held.  Returns -1,
        or the index of a weight out of range (nothing is done)."""
        return self._guarded(FORGET_BATCH, (forgetting, times, out, held), is_pos, scores, weights)

    def forget_remove_many(self, Forgetting forgetting, is_pos, scores, weights=None):
        """Retract a checked batch from the window: (-1, DONE) or (index, Status)."""
        return self._guarded(FORGET_REMOVE, forgetting, is_pos, scores, weights)

    # ------------------------------------------------------------------
    # Entry points for the validated public layer.

    def add(self, y_true, y_score, weight=1.0):
        """Add one point given as plain Python values; returns DONE or UNCHECKED."""
        return self._guarded(ADD_POINT, y_true, y_score, weight, None)

    def remove(self, y_true, y_score, weight=1.0):
        """Remove one point; returns its Status (nothing changes unless DONE)."""
        return self._guarded(REMOVE_POINT, y_true, y_score, weight, None)

    def add_many(self, is_pos, scores, weights=None):
        """Add a checked batch (uint8 labels, float64 scores, float64 weights or None).

        Returns -1, or the index of a weight out of range (nothing is added).
        """
        return self._guarded(ADD_BATCH, is_pos, scores, weights, None)

    def remove_many(self, is_pos, scores, weights=None):
        """Remove a checked batch; returns -1, or the index of the first refusal."""
        return self._guarded(REMOVE_BATCH, is_pos, scores, weights, None)

    def slide(self, PointRing ring, is_pos, scores, weights, out):
        """Feed a checked chunk through a window ``ring``; ``out[i]`` gets the metrics.

        Returns -1, or the index of a weight out of range (nothing is done).
        """
        return self._guarded(SLIDE, (ring, is_pos, scores), weights, out, None)

    def read(self):
        """The engine's main metric, read under the claim (the AUC here)."""
        return self._guarded(READ, None, None, None, None)

    def set_decay(self, int shift, double newest_factor):
        """Decay kept by the caller, who adds each point with its decay factor in its weight
        (``DelayedAUC``, whose points are not added in the order they age).

        Every stored weight is divided by ``2**shift`` (exact; the caller divides
        its own record of the weights alike, so removals find them), and
        ``newest_factor`` is the factor the newest point's weight carries: the
        caller's weights divided by it are relative to the newest point, as
        ``Forgetting`` makes them (DeLong's variance reads them so).
        """
        if not (0 <= shift <= RESCALE_EXPONENT + 64 and newest_factor > 0.0
                and isfinite(newest_factor)):
            raise ValueError(f"set_decay: shift {shift} or newest factor {newest_factor} "
                             "out of range")
        self._claim()
        try:
            if shift and self._held_points():
                self._reserve(0, True)  # (unit mode cannot scale its weights)
                self._scale_weights(ldexp(1.0, -shift))
            self.newest_decay = newest_factor
        finally:
            self._release()

    def counts_at(self, const double[::1] scores, bint is_pos):
        """Number of points of one class at each of ``scores``."""
        counts = np.empty(scores.shape[0], dtype=np.int64)
        cdef int64_t[::1] out = counts
        cdef Py_ssize_t index
        with nogil:
            for index in range(scores.shape[0]):
                out[index] = self._count_at(scores[index], is_pos)
        return counts

    def weights_at(self, const double[::1] scores, bint is_pos):
        """Weight of one class at each of ``scores`` (0 where absent), in the caller's units."""
        weights = np.zeros(scores.shape[0], dtype=np.float64)
        cdef double[::1] out = weights
        cdef Py_ssize_t index
        with nogil:
            for index in range(scores.shape[0]):
                out[index] = self._weight_at(scores[index], is_pos)
        return weights * self.scale

    def first_excess(self, const double[::1] scores, bint is_pos, const double[::1] removed):
        """The first index whose ``removed`` weight (stored units) exceeds what its score
        holds, or -1."""
        cdef Py_ssize_t index
        for index in range(scores.shape[0]):
            if removal_exceeds(removed[index], self._weight_at(scores[index], is_pos)):
                return index
        return -1

    def holds(self, bint is_pos, double score, double weight=1.0):
        """Whether ``remove`` would take this point: a point of that class at that score,
        and the weight there (``weight`` in the caller's units)."""
        cdef double stored
        if self._count_at(score, is_pos) == 0:
            return False
        if not stored_weight(weight, self.inverse_scale, &stored):
            return False
        if not self._stores_weights():
            return stored == 1.0
        return not removal_exceeds(stored, self._weight_at(score, is_pos))

    def stored_weights(self, weights, Py_ssize_t n, bint adding):
        """(weights in the structure's units or None for all 1, index of the first that
        cannot be stored or -1); reads only."""
        cdef double inverse
        cdef Py_ssize_t refused
        stored = self._stored_weights(weights, n, adding, &inverse, &refused)
        return stored, refused

    @property
    def scale(self):
        """What a stored weight of 1 stands for (a power of two; 1 while none is fixed)."""
        return 1.0 / self.inverse_scale if self.inverse_scale > 0.0 else 1.0

    @property
    def newest_factor(self):
        """The decay factor the newest point's weight carries (1 without decay)."""
        return self.newest_decay
