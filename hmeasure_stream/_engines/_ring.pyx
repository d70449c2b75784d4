"""The points of a window, oldest first, in a ring of buffers; the rules that make them leave.

A window of w points evicts its oldest point when a new one arrives: the
ring hands it back so that the engine can remove it (``push``).  One buffer
per field (17 bytes a point), of the window's size or, for a ring made with
fewer ``slots`` (a segment's, which may never hold many points), of fewer that
double up to the window's size as points arrive (``reserve``, before a
chunk); capacity 0 stands for an unbounded window (every prefix), which stores
nothing.

A structure with a window or decay (``Forgetting``) keeps its points in a
ring that grows by doubling (``reserve``, ``append``, ``pop_oldest``) with
their times (25 bytes a point): points leave from the oldest end only, so
each leaves in O(1) here plus one engine update.

A multi-class count window keeps its points' class codes, weights and score
rows in a ``ClassRing``, which hands back a chunk's evicted points at once.
"""

import numpy as np

from libc.math cimport exp2, floor, ldexp
from libc.stdint cimport int64_t, uint8_t, uint64_t


cdef class PointRing:
    """The last ``capacity`` points (label, score, weight) in ``slots`` slots (the
    window's size unless given, then grown by ``reserve``); see the module docstring."""

    def __cinit__(self, Py_ssize_t capacity, bint timed=False, Py_ssize_t slots=0):
        if capacity < 0 or slots < 0 or (capacity and slots > capacity):
            raise ValueError(f"a ring of {slots} slots for a window of {capacity} points "
                             "(0: unbounded)")
        self.capacity = capacity
        self.slots = slots if slots else max(capacity, 1)
        self.head = 0
        self.size = 0
        self.is_pos_buffer = np.zeros(self.slots, dtype=np.uint8)
        self.score_buffer = np.zeros(self.slots, dtype=np.float64)
        self.weight_buffer = np.zeros(self.slots, dtype=np.float64)
        self.time_buffer = np.zeros(self.slots, dtype=np.int64) if timed else None
        self._bind()

    def _bind(self):
        cdef uint8_t[::1] is_pos = self.is_pos_buffer
        cdef double[::1] score = self.score_buffer
        cdef double[::1] weight = self.weight_buffer
        cdef int64_t[::1] time
        self.slots = self.score_buffer.shape[0]
        self.is_pos = &is_pos[0]
        self.score = &score[0]
        self.weight = &weight[0]
        self.time = NULL
        if self.time_buffer is not None:
            time = self.time_buffer
            self.time = &time[0]

    cpdef int reserve(self, Py_ssize_t extra) except -1:
        """Room for ``extra`` more points: the buffers double as needed, those of a window
        up to its size (a full window's push evicts instead).  The ring's one growth;
        MemoryError leaves it as it was."""
        cdef Py_ssize_t needed, slots = self.slots, first
        if extra < 0:
            raise ValueError(f"reserve: room for {extra} points")
        if self.capacity:
            extra = min(extra, self.capacity)
        if extra > (<Py_ssize_t>1 << 60) - self.size:
            raise MemoryError(f"a ring of {self.size} + {extra} points")
        needed = self.size + extra
        if self.capacity:
            needed = min(needed, self.capacity)
        if needed <= slots:
            return 0
        while slots < needed:
            slots *= 2
        if self.capacity:
            slots = min(slots, self.capacity)
        # The points, oldest first, from slot 0: the part from the head to the end of the
        # buffers, then the part that wrapped round to their start.
        first = min(self.size, self.slots - self.head)
        grown = []
        for old in (self.is_pos_buffer, self.score_buffer, self.weight_buffer,
                    self.time_buffer):
            if old is None:
                grown.append(None)
                continue
            new = np.zeros(slots, dtype=old.dtype)
            new[:first] = old[self.head:self.head + first]
            new[first:self.size] = old[:self.size - first]
            grown.append(new)
        # (Every buffer allocated: nothing can fail from here on.)
        self.is_pos_buffer, self.score_buffer, self.weight_buffer, self.time_buffer = grown
        self.head = 0
        self._bind()
        return 0

    cdef void append(self, uint8_t is_pos, double score, double weight,
                     int64_t time) noexcept nogil:
        """Store a point as the newest (room reserved)."""
        cdef Py_ssize_t slot = ring_slot(self, self.size)
        self.is_pos[slot] = is_pos
        self.score[slot] = score
        self.weight[slot] = weight
        if self.time != NULL:
            self.time[slot] = time
        self.size += 1

    cdef void pop_oldest(self) noexcept nogil:
        """Forget the oldest point (there is one)."""
        self.head = self.head + 1 if self.head + 1 < self.slots else 0
        self.size -= 1

    cdef bint push(self, uint8_t is_pos, double score, double weight, uint8_t* out_is_pos,
                   double* out_score, double* out_weight) noexcept nogil:
        """Store a point; if that evicts the oldest, write it out and return True.

        A ring of fewer slots than its window holds as many points as its slots:
        room for more is reserved before (``reserve``), as the windows do for each
        chunk; without it the oldest leaves as from a full window, never a write
        out of the buffers.
        """
        cdef Py_ssize_t slot
        cdef bint evicted = False
        if self.capacity == 0:
            return False
        if self.size == self.slots:
            slot = self.head
            out_is_pos[0] = self.is_pos[slot]
            out_score[0] = self.score[slot]
            out_weight[0] = self.weight[slot]
            evicted = True
            # The new point takes the evicted one's slot: the next is the oldest.
            self.head = slot + 1 if slot + 1 < self.slots else 0
        else:
            slot = self.head + self.size
            if slot >= self.slots:
                slot -= self.slots
            self.size += 1
        self.is_pos[slot] = is_pos
        self.score[slot] = score
        self.weight[slot] = weight
        return evicted

    def _push_for_tests(self, uint8_t is_pos, double score, double weight):
        """``push`` from Python: the evicted point as a tuple, or None."""
        cdef uint8_t out_is_pos
        cdef double out_score, out_weight
        if self.push(is_pos, score, weight, &out_is_pos, &out_score, &out_weight):
            return (out_is_pos, out_score, out_weight)
        return None

    def points(self):
        """(is_pos, scores, weights) of the stored points, oldest first (copies)."""
        order = (self.head + np.arange(self.size)) % self.slots
        return (self.is_pos_buffer[order].copy(), self.score_buffer[order].copy(),
                self.weight_buffer[order].copy())

    def times(self):
        """The stored points' times, oldest first (a copy; None if the ring keeps none)."""
        if self.time_buffer is None:
            return None
        return self.time_buffer[(self.head + np.arange(self.size)) % self.slots].copy()

    def __reduce__(self):
        state = (self.capacity, self.head, self.size,
                 self.is_pos_buffer, self.score_buffer, self.weight_buffer, self.time_buffer)
        return (_rebuild_ring, state)


def _rebuild_ring(capacity, head, size, is_pos, score, weight, time=None):
    cdef PointRing ring = PointRing(0)
    try:
        ring.capacity = capacity
        ring.head = head
        ring.size = size
        ring.is_pos_buffer = np.array(is_pos, copy=True)
        ring.score_buffer = np.array(score, copy=True)
        ring.weight_buffer = np.array(weight, copy=True)
        ring.time_buffer = None if time is None else np.array(time, copy=True)
        _check_ring(ring)
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this window's ring: {error}") from None
    ring._bind()
    return ring


def _check_ring(PointRing ring):
    """The sizes and ranges ``push``, ``append`` and ``pop_oldest`` rely on (a pickle's)."""
    slots = ring.score_buffer.shape[0] if isinstance(ring.score_buffer, np.ndarray) else 0
    for name, dtype in (("is_pos", np.uint8), ("score", np.float64), ("weight", np.float64),
                        ("time", np.int64)):
        buffer = getattr(ring, name + "_buffer")
        if buffer is None and name == "time":
            continue
        if not (isinstance(buffer, np.ndarray) and buffer.dtype == dtype
                and buffer.shape == (slots,) and slots >= 1):
            raise ValueError(f"its {name} buffer is not {slots} >= 1 values of {np.dtype(dtype)}")
    if not (ring.capacity == 0 or 0 < slots <= ring.capacity):
        raise ValueError(f"a window of {ring.capacity} points in {slots} slots")
    if not (0 <= ring.head < slots and 0 <= ring.size <= slots):
        raise ValueError(f"head {ring.head} and size {ring.size} out of {slots} slots")
    if np.any(ring.is_pos_buffer > RETRACTED):
        raise ValueError("a label other than 0, 1 or retracted")


cdef class ClassRing:
    """The last ``capacity`` points of a multi-class window: class codes (intp), weights
    and, with ``n_columns`` > 0, each point's row of scores (one-vs-one removes a point
    from the engines of its pairs by its scores); allocated once at the window's size.

    ``push`` takes a chunk and hands back the points it evicts, in eviction
    order: the window's oldest first, then those of the chunk that leave within
    it (one point leaves at each step once the window is full).
    """

    def __cinit__(self, Py_ssize_t capacity, Py_ssize_t n_columns=0):
        if capacity < 1 or n_columns < 0:
            raise ValueError(f"a class ring of {capacity} points (>= 1) and {n_columns} score "
                             "columns (>= 0)")
        self.capacity = capacity
        self.n_columns = n_columns
        self.head = 0
        self.size = 0
        self.code_buffer = np.zeros(capacity, dtype=np.intp)
        self.weight_buffer = np.zeros(capacity, dtype=np.float64)
        self.row_buffer = np.zeros((capacity, n_columns)) if n_columns else None

    def push(self, codes, weights, rows=None):
        """Append a chunk (codes >= 0, finite weights >= 0, and a row of ``n_columns``
        scores per point if the ring keeps rows, else None); returns (codes, weights, rows
        or None) of the points evicted, in eviction order.  A refused chunk (ValueError)
        changes nothing."""
        codes = np.ascontiguousarray(codes)
        weights = np.ascontiguousarray(weights)
        cdef const Py_ssize_t[::1] new_codes = codes
        cdef const double[::1] new_weights = weights
        cdef const double[:, ::1] new_rows = None
        cdef Py_ssize_t n = new_codes.shape[0]
        cdef bint keep_rows = self.n_columns > 0
        if new_weights.shape[0] != n:
            raise ValueError(f"push: {n} codes and {new_weights.shape[0]} weights")
        if keep_rows:
            if rows is None:
                raise ValueError(f"push: this ring keeps rows of {self.n_columns} scores")
            rows = np.ascontiguousarray(rows)
            new_rows = rows
            if new_rows.shape[0] != n or new_rows.shape[1] != self.n_columns:
                raise ValueError(f"push: rows of shape {rows.shape} for {n} points of "
                                 f"{self.n_columns} scores")
        elif rows is not None:
            raise ValueError("push: this ring keeps no rows")
        if n and (codes.min() < 0 or not np.all(weights >= 0.0)
                  or not np.all(np.isfinite(weights))):
            raise ValueError("push: a code below 0, or a weight negative or not finite")
        cdef Py_ssize_t evicted = max(0, self.size + n - self.capacity)
        out_codes = np.empty(evicted, dtype=np.intp)
        out_weights = np.empty(evicted, dtype=np.float64)
        out_rows = np.empty((evicted, self.n_columns)) if keep_rows else None
        cdef Py_ssize_t[::1] left_codes = out_codes, stored_codes = self.code_buffer
        cdef double[::1] left_weights = out_weights, stored_weights = self.weight_buffer
        cdef double[:, ::1] left_rows = out_rows, stored_rows = self.row_buffer
        cdef Py_ssize_t index, column, slot, left = 0
        cdef Py_ssize_t capacity = self.capacity, head = self.head, size = self.size
        with nogil:
            for index in range(n):
                if size == capacity:
                    # The oldest leaves; the new point takes its slot.
                    slot = head
                    left_codes[left] = stored_codes[slot]
                    left_weights[left] = stored_weights[slot]
                    if keep_rows:
                        for column in range(stored_rows.shape[1]):
                            left_rows[left, column] = stored_rows[slot, column]
                    left += 1
                    head = slot + 1 if slot + 1 < capacity else 0
                else:
                    slot = head + size
                    if slot >= capacity:
                        slot -= capacity
                    size += 1
                stored_codes[slot] = new_codes[index]
                stored_weights[slot] = new_weights[index]
                if keep_rows:
                    for column in range(stored_rows.shape[1]):
                        stored_rows[slot, column] = new_rows[index, column]
        self.head = head
        self.size = size
        return out_codes, out_weights, out_rows

    def points(self):
        """(codes, weights, rows or None) of the window, oldest first (copies)."""
        order = (self.head + np.arange(self.size)) % self.capacity
        return (self.code_buffer[order], self.weight_buffer[order],
                None if self.row_buffer is None else self.row_buffer[order])

    @property
    def nbytes(self):
        """Bytes of the buffers."""
        return sum(buffer.nbytes for buffer in (self.code_buffer, self.weight_buffer,
                                                self.row_buffer) if buffer is not None)

    def _check(self):
        """What ``push`` relies on and keeps (a pickle's too): the buffers' types and
        sizes, the head and size in range, the window's codes >= 0 and weights finite and
        >= 0; ValueError otherwise."""
        slots = self.capacity
        shapes = (("code", np.intp, (slots,)), ("weight", np.float64, (slots,)),
                  ("row", np.float64, (slots, self.n_columns)))
        for name, dtype, shape in shapes:
            buffer = getattr(self, name + "_buffer")
            if buffer is None and name == "row" and self.n_columns == 0:
                continue
            if not (isinstance(buffer, np.ndarray) and buffer.dtype == dtype
                    and buffer.shape == shape and buffer.flags.c_contiguous):
                raise ValueError(f"its {name} buffer is not {shape} values of "
                                 f"{np.dtype(dtype)}")
        if not (slots >= 1 and self.n_columns >= 0 and 0 <= self.head < slots
                and 0 <= self.size <= slots):
            raise ValueError(f"head {self.head} and size {self.size} out of {slots} slots")
        codes, weights, _ = self.points()
        if np.any(codes < 0) or not np.all(np.isfinite(weights) & (weights >= 0.0)):
            raise ValueError("a code below 0, or a weight negative or not finite")
        return True

    def __reduce__(self):
        state = (self.capacity, self.n_columns, self.head, self.size, self.code_buffer,
                 self.weight_buffer, self.row_buffer)
        return (_rebuild_class_ring, state)


def _rebuild_class_ring(capacity, n_columns, head, size, codes, weights, rows):
    cdef ClassRing ring
    try:
        ring = ClassRing(1)
        ring.capacity = capacity
        ring.n_columns = n_columns
        ring.head = head
        ring.size = size
        ring.code_buffer = np.array(codes, copy=True)
        ring.weight_buffer = np.array(weights, copy=True)
        ring.row_buffer = None if rows is None else np.array(rows, copy=True)
        ring._check()
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this window's class ring: {error}") from None
    return ring


#: Points whose decay factor falls below 2^-DROP_EXPONENTS relative to the
#: newest leave the structure, in every engine (see ``_ring.pxd``).
DROP_EXPONENTS = DROP_EXPONENT
#: The stored weights are rescaled when the newest decay factor passes 2^this.
RESCALE_EXPONENTS = RESCALE_EXPONENT


cdef inline uint64_t time_distance(int64_t earlier, int64_t later) noexcept nogil:
    """``later - earlier`` for ``later >= earlier``, exact (int64 times up to 2^64 - 1 apart)."""
    return <uint64_t>later - <uint64_t>earlier


cdef inline double time_difference(int64_t later, int64_t earlier) noexcept nogil:
    """``later - earlier`` as a double, without the wrap of int64 subtraction."""
    if later >= earlier:
        return <double>time_distance(earlier, later)
    return -<double>time_distance(later, earlier)


cdef class Forgetting:
    """When a structure's points leave: a count window, a time window, decay.

    ``count`` > 0 keeps the last ``count`` points added (steps); ``period``
    > 0 (nanoseconds) keeps the points whose time is in (t - period, t] for
    the newest time t; ``half_life`` > 0 weighs a point of age a (in steps,
    or in nanoseconds with ``decay_by_time``) 2^(-a / half_life) relative to
    the newest, and drops it once a > ``drop_exponent`` half-lives.  The engine
    (``AUCEngine.forget_*``) adds and removes the points; this object keeps
    them in order in ``ring`` (retracted ones marked ``RETRACTED`` until
    they reach the oldest end) and decides which leave.  Times are int64
    nanoseconds, checked non-decreasing by the caller.
    """

    def __cinit__(self, int64_t count=0, int64_t period=0, double half_life=0.0,
                  bint decay_by_time=False, bint needs_time=False,
                  double drop_exponent=DROP_EXPONENT):
        self.ring = PointRing(0, True)
        self.count = count
        self.period = period
        self.half_life = half_life
        self.decay_by_time = decay_by_time
        self.needs_time = needs_time
        self.drop_exponent = drop_exponent
        self.step = 0
        self.newest_time = 0
        self.has_time = False
        self.live = 0
        self.anchor = 0
        self.anchor_fraction = 0.0
        self.rescales = 0

    cdef double exponent(self, int64_t x) noexcept nogil:
        """log2 of the decay factor a point at ``x`` (step or time) is stored with."""
        return (time_difference(x, self.anchor) - self.anchor_fraction) / self.half_life

    cdef double decay_to(self, int64_t position, bint empty, int* shift) noexcept nogil:
        """The decay factor, relative to the anchor, of a point arriving at ``position``
        (step or time; the newest).

        A structure holding no point (``empty``) anchors the decay at
        ``position``.  When the factor would pass 2^RESCALE_EXPONENT, the anchor
        moves k = floor(exponent) half-lives and the ring's weights are
        multiplied by 2^-k (exact), so that stored weights stay within 2^64 of
        each other's scale; ``shift[0]`` is k (0: no rescale), by which the caller
        divides the weights it keeps itself (the engine's).
        """
        cdef double exponent, whole, moved, factor
        cdef Py_ssize_t slot
        cdef double* ring_weights
        shift[0] = 0
        if empty:
            self.anchor = position
            self.anchor_fraction = 0.0
        exponent = self.exponent(position)
        if exponent > RESCALE_EXPONENT:
            whole = floor(exponent)
            shift[0] = <int>whole
            factor = ldexp(1.0, -shift[0])
            ring_weights = self.ring.weight
            for slot in range(self.ring.slots):
                ring_weights[slot] *= factor
            # The anchor moves by ``whole`` half-lives: an integer part and a fraction
            # below 1 (0 when the half-life is an integer).
            moved = self.anchor_fraction + whole * self.half_life
            # (In unsigned 64 bits: the anchor may lie more than 2^63 ns behind
            # ``position``, which it does not pass.)
            self.anchor = <int64_t>(<uint64_t>self.anchor + <uint64_t>floor(moved))
            self.anchor_fraction = moved - floor(moved)
            self.rescales += 1
            exponent = self.exponent(position)
        return exp2(exponent)

    def decay_newest(self, int64_t position, bint empty):
        """Decay of points kept outside the ring (``DelayedAUC``, whose points enter its
        engines in the order their labels arrive, not the order they age): the newest
        point is at ``position`` (a time in ns with ``decay_by_time``, else a step; not
        before the newest).  ``empty``: the structure holds no point, so the anchor
        moves to ``position``.

        Returns ``(factor, rescale)``: the decay factor a point at ``position`` is
        stored with, relative to the anchor, and None or ``(shift, scale)``: every
        weight stored before was multiplied by ``scale`` = 2^-shift (an engine's
        through ``set_decay(shift, factor)``).
        """
        cdef int shift
        cdef double factor
        if self.half_life <= 0.0:
            raise ValueError("decay_newest: this Forgetting has no half-life")
        if self.decay_by_time and self.has_time and position < self.newest_time:
            raise ValueError(f"decay_newest: the time {position} is before the newest, "
                             f"{self.newest_time}")
        if not self.decay_by_time and position < self.step:
            raise ValueError(f"decay_newest: the step {position} is not after the newest, "
                             f"{self.step - 1}")
        if self.decay_by_time:
            self.newest_time = position
            self.has_time = True
        else:
            self.step = position + 1
        factor = self.decay_to(position, empty, &shift)
        return factor, None if shift == 0 else (shift, ldexp(1.0, -shift))

    def newest_position(self):
        """The decay position (time or step) of the newest point: ``newest_time`` with
        ``decay_by_time``, else ``step - 1``."""
        return self.newest_time if self.decay_by_time else self.step - 1

    def exponent_at(self, int64_t position):
        """log2 of the decay factor, relative to the anchor, of a point at ``position``."""
        if self.half_life <= 0.0:
            raise ValueError("exponent_at: this Forgetting has no half-life")
        return self.exponent(position)

    def factor_at(self, int64_t position):
        """The decay factor, relative to the anchor, of a point at ``position``: the
        factor ``decay_newest`` gave it while the anchor has not moved since."""
        return exp2(self.exponent_at(position))

    cdef int64_t position(self, Py_ssize_t offset) noexcept nogil:
        """The decay position (time or step) of the ``offset``-th oldest point."""
        if self.decay_by_time:
            return self.ring.time[ring_slot(self.ring, offset)]
        return self.step - self.ring.size + offset

    cdef bint expired(self) noexcept nogil:
        """Whether the oldest point leaves before the next one (``step``, ``newest_time``)
        arrives."""
        cdef int64_t newest, oldest
        cdef double drop_age
        if self.ring.size == 0:
            return False
        if self.count > 0 and self.ring.size >= self.count:
            return True
        # (Times span up to 2^64 ns: compared by their distance in unsigned 64 bits, which
        # cannot wrap, rather than by ``newest_time - period``, which can.)
        if self.period > 0 and self.has_time and (
                time_distance(self.ring.time[self.ring.head], self.newest_time)
                >= <uint64_t>self.period):
            return True
        if self.half_life > 0.0:
            newest = self.newest_time if self.decay_by_time else self.step
            oldest = self.position(0)
            # An age of whole steps or nanoseconds is past the drop age D (a double) when
            # it exceeds floor(D), compared in integers: as a double the age of a point
            # 2**53 ns (104 days) or more away would round, and one just past D stay.
            drop_age = floor(self.drop_exponent * self.half_life)
            return (newest >= oldest and drop_age < 18446744073709551616.0
                    and time_distance(oldest, newest) > <uint64_t>drop_age)
        return False

    def newest_factor(self):
        """The decay factor the newest point is stored with (1 without decay or points):
        stored weights divided by it are relative to the newest point."""
        if self.half_life == 0.0 or self.live == 0:
            return 1.0
        return 2.0 ** self.exponent(self.newest_position())

    def positions(self):
        """Decay positions (times or steps) of the ring's points, oldest first."""
        if self.decay_by_time:
            return self.ring.times()
        return self.step - self.ring.size + np.arange(self.ring.size, dtype=np.int64)

    def __reduce__(self):
        state = (self.count, self.period, self.half_life, self.decay_by_time, self.needs_time,
                 self.drop_exponent, self.step, self.newest_time, self.has_time, self.live,
                 self.anchor,
                 self.anchor_fraction, self.rescales, self.ring)
        return (_rebuild_forgetting, state)


def _rebuild_forgetting(count, period, half_life, decay_by_time, needs_time, drop_exponent,
                        step, newest_time, has_time, live, anchor, anchor_fraction, rescales,
                        ring):
    cdef Forgetting forgetting
    try:
        forgetting = Forgetting(count, period, half_life, decay_by_time, needs_time,
                                drop_exponent)
        forgetting.step = step
        forgetting.newest_time = newest_time
        forgetting.has_time = has_time
        forgetting.live = live
        forgetting.anchor = anchor
        forgetting.anchor_fraction = anchor_fraction
        forgetting.rescales = rescales
        forgetting.ring = ring
        _check_forgetting(forgetting)
    except (OverflowError, TypeError, ValueError) as error:
        raise ValueError(f"cannot unpickle this window: {error}") from None
    return forgetting


def _check_forgetting(Forgetting forgetting):
    """What the rules of leaving rely on (a pickle's): a growing ring with times, in order,
    its live points counted, the window and half-life in range."""
    cdef PointRing ring = forgetting.ring
    if ring.capacity != 0 or ring.time_buffer is None:
        raise ValueError("its ring must grow and keep times")
    if not (forgetting.count >= 0 and forgetting.period >= 0 and forgetting.half_life >= 0.0
            and forgetting.drop_exponent > 0.0):
        raise ValueError("a negative window, half-life or drop age")
    times = ring.times()
    if np.any(times[1:] < times[:-1]) or (times.size and times[-1] > forgetting.newest_time):
        raise ValueError("its times go backwards")
    live = int(np.count_nonzero(ring.points()[0] != RETRACTED))
    if forgetting.live != live or forgetting.step < ring.size:
        raise ValueError(f"{forgetting.live} live points counted, {live} in the ring")
