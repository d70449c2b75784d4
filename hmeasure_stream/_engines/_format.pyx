"""Compiled CSV rows: float64 values written as Python's ``repr`` writes them.

Private module of the command line.  ``repr`` of a float is the shortest
decimal that reads back as the same float (of those, the nearest to it);
calling it for each value of a chunk costs most of the time of the output.
Here the digits come from one 128-bit scaling of the float by a power of ten
(``_shortest``), and the decimal is laid out by Python's rules: exponent
notation when the decimal point is more than 16 digits right of the first
digit or more than 4 left of it (``1e+16``, ``1e-05``), ``.0`` after a whole
number, ``nan``, ``inf``, ``-0.0``.

The scaling is exact but for a bounded error; where a decision (is this
decimal inside the interval of the reals that round to the float? which of
two is nearer?) falls within that bound of a tie, the value is written by
CPython's own ``repr`` code (``PyOS_double_to_string``).  Such values are
those whose interval's bounds or middle are (nearly) short decimals: most
floats from about 2^41 to 2^66 (whole numbers and halves, whose scaled bounds
are exact), rarely any other (none of 10^6 random floats in [0, 1]).
"""

from libc.stdint cimport uint64_t, int64_t
from libc.string cimport memcpy
from libc.math cimport isnan, isinf, signbit
from cpython.mem cimport PyMem_Free, PyMem_Malloc
from cpython.unicode cimport PyUnicode_DecodeUTF8

cdef extern from "Python.h":
    char *PyOS_double_to_string(double val, char format_code, int precision, int flags,
                                int *type) except NULL
    int Py_DTSF_ADD_DOT_0
    const char *PyUnicode_AsUTF8AndSize(object text, Py_ssize_t *size) except NULL

cdef extern from *:
    """
    #include <stdint.h>
    #if defined(_MSC_VER) && defined(_M_X64)
    #include <intrin.h>
    #endif
    /* The 128-bit product of two 64-bit words: low word returned, high in *high. */
    static inline uint64_t hs_multiply(uint64_t a, uint64_t b, uint64_t *high) {
    #if defined(__SIZEOF_INT128__)
        unsigned __int128 product = (unsigned __int128)a * b;
        *high = (uint64_t)(product >> 64);
        return (uint64_t)product;
    #elif defined(_MSC_VER) && defined(_M_X64)
        return _umul128(a, b, high);
    #else
        uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
        uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
        uint64_t middle = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
        *high = p11 + (p01 >> 32) + (p10 >> 32) + (middle >> 32);
        return (middle << 32) | (p00 & 0xffffffffu);
    #endif
    }
    """
    uint64_t hs_multiply(uint64_t a, uint64_t b, uint64_t *high) noexcept nogil


cdef enum:
    # Decimal exponents k of the scalings: for every finite float c 2^q, k = floor(log10(W))
    # with W the width of the reals rounding to the float (2^q, or 3/4 2^q below a power of
    # two), which lies in [-324, 292].
    K_MIN = -324
    K_MAX = 292
    # A decision closer than this to a tie (in units of 2^-64 of the scaled values, whose
    # computed error is below 6 such units) goes to CPython's repr.
    MARGIN = 256
    # The longest text of a float: "-2.2250738585072014e-308".
    LONGEST = 24

# For each k: the 128 leading bits of 10^-k, floor(10^-k 2^e) in [2^127, 2^128), and e.
cdef uint64_t _high[K_MAX - K_MIN + 1]
cdef uint64_t _low[K_MAX - K_MIN + 1]
cdef int _binary[K_MAX - K_MIN + 1]


def _fill_powers():
    cdef int index
    for k in range(K_MIN, K_MAX + 1):
        index = k - K_MIN
        if k <= 0:
            power = 10 ** -k
            shift = 128 - power.bit_length()
            leading = power << shift if shift >= 0 else power >> -shift
        else:
            shift = 127 + (10 ** k).bit_length()
            leading = (1 << shift) // 10 ** k
        _high[index] = leading >> 64
        _low[index] = leading & 0xFFFFFFFFFFFFFFFF
        _binary[index] = shift


_fill_powers()


cdef inline bint _near(uint64_t a_high, uint64_t a_low, uint64_t b_high,
                       uint64_t b_low) noexcept nogil:
    """Whether two 64.64 fixed-point numbers are closer than MARGIN units."""
    cdef uint64_t high, low
    if a_high < b_high or (a_high == b_high and a_low < b_low):
        a_high, a_low, b_high, b_low = b_high, b_low, a_high, a_low
    low = a_low - b_low
    high = a_high - b_high - (a_low < b_low)
    return high == 0 and low < MARGIN


cdef inline bint _below(uint64_t a_high, uint64_t a_low, uint64_t b_high,
                        uint64_t b_low) noexcept nogil:
    return a_high < b_high or (a_high == b_high and a_low < b_low)


cdef inline void _shift_right(uint64_t high, uint64_t low, int shift, uint64_t *out_high,
                              uint64_t *out_low) noexcept nogil:
    """(high, low) >> shift, for shift in [1, 127]."""
    if shift >= 64:
        out_high[0] = 0
        out_low[0] = high >> (shift - 64) if shift > 64 else high
    else:
        out_high[0] = high >> shift
        out_low[0] = (low >> shift) | (high << (64 - shift))


cdef bint _shortest(uint64_t significand, int binary_exponent, bint irregular,
                    uint64_t *digits, int *exponent) noexcept nogil:
    """The shortest decimal digits * 10^exponent of c 2^q in the reals rounding to it,
    the nearest of them to it; False when a decision is too close to call.

    The reals that round to c 2^q are those within 2^(q-1) of it (2^(q-2) below a power
    of two, ``irregular``).  Scaled by 10^-k, with k such that the interval's width W is
    below 10 (at least 1 when k is floor(log10 W), as computed), it holds at most one
    multiple of 10, which is then the shortest decimal; otherwise the shortest are the
    integers in it, of which the nearest to the scaled value is its floor or ceiling.
    """
    cdef int64_t q = binary_exponent, k
    cdef int index, shift
    cdef uint64_t x0, x1, x2, p_high, carry, v_high, v_low, d_high, d_low
    cdef uint64_t l_high, l_low, u_high, u_low, w_high, w_low, t_high, t_low
    cdef uint64_t tens, candidate
    # floor(q log10(2)) and floor(q log10(2) + log10(3/4)), written for non-negative
    # operands (right shifts of negative integers are the compiler's choice in C).
    if irregular:
        k = ((q * 78913 - 32752 + (2000 << 18)) >> 18) - 2000
    else:
        k = ((q * 78913 + (2000 << 18)) >> 18) - 2000
    if k < K_MIN or k > K_MAX:
        return False
    index = <int>(k - K_MIN)
    # V = c 2^q 10^-k = c M 2^(q - e), M the power's 128 bits, in 64.64 fixed point.
    shift = <int>(_binary[index] - q - 64)
    if shift < 1 or shift > 63:
        return False
    x0 = hs_multiply(significand, _low[index], &carry)
    x1 = hs_multiply(significand, _high[index], &p_high)
    x1 += carry
    x2 = p_high + (x1 < carry)
    if x2 >> shift:
        return False
    v_low = (x0 >> shift) | (x1 << (64 - shift))
    v_high = (x1 >> shift) | (x2 << (64 - shift))
    # D = 2^(q-2) 10^-k: the interval is [V - 2D, V + 2D] ([V - D, V + 2D] irregular).
    _shift_right(_high[index], _low[index], shift + 2, &d_high, &d_low)
    # 2D
    t_high = (d_high << 1) | (d_low >> 63)
    t_low = d_low << 1
    u_low = v_low + t_low
    u_high = v_high + t_high + (u_low < v_low)
    if irregular:
        t_high, t_low = d_high, d_low
    l_low = v_low - t_low
    l_high = v_high - t_high - (v_low < t_low)
    # The width must be below 10: one multiple of 10 at most.
    w_low = u_low - l_low
    w_high = u_high - l_high - (u_low < l_low)
    if w_high >= 10 or (w_high == 9 and w_low > ~(<uint64_t>MARGIN)):
        return False
    # The least multiple of 10 at or above the lower end, if not too close to it.
    tens = (l_high // 10 + 1) * 10
    if _near(tens, 0, l_high, l_low) or (tens >= 10 and _near(tens - 10, 0, l_high, l_low)):
        return False
    if _near(tens, 0, u_high, u_low):
        return False
    if _below(tens, 0, u_high, u_low):
        digits[0] = tens
        exponent[0] = <int>k
        return True
    # The integers around V.
    candidate = v_high
    if _near(candidate, 0, l_high, l_low) or _near(candidate + 1, 0, u_high, u_low):
        return False
    if _below(l_high, l_low, candidate, 0):  # the floor is inside
        if _below(candidate + 1, 0, u_high, u_low):  # and the ceiling: the nearer
            if v_low > (<uint64_t>1 << 63) - MARGIN and v_low < (<uint64_t>1 << 63) + MARGIN:
                return False
            if v_low >= (<uint64_t>1 << 63):
                candidate += 1
    elif _below(candidate + 1, 0, u_high, u_low):
        candidate += 1
    else:
        return False
    digits[0] = candidate
    exponent[0] = <int>k
    return True


cdef Py_ssize_t _write_float(double value, char *out) except -1:
    """Write ``repr(value)`` at ``out`` (LONGEST bytes at most); return its length."""
    cdef uint64_t bits, significand, digits
    cdef int biased, exponent, count, point, position, i, shown
    cdef char text[20]
    cdef char *fallback
    cdef bint ok
    cdef Py_ssize_t length = 0
    if isnan(value):
        memcpy(out, b"nan", 3)
        return 3
    if signbit(value):
        out[0] = b"-"
        out += 1
        length = 1
        value = -value
    if isinf(value):
        memcpy(out, b"inf", 3)
        return length + 3
    if value == 0.0:
        memcpy(out, b"0.0", 3)
        return length + 3
    memcpy(&bits, &value, 8)
    biased = <int>(bits >> 52)
    significand = bits & ((<uint64_t>1 << 52) - 1)
    if biased == 0:
        ok = _shortest(significand, -1074, False, &digits, &exponent)
    else:
        ok = _shortest(significand | (<uint64_t>1 << 52), biased - 1075,
                       significand == 0 and biased > 1, &digits, &exponent)
    if not ok:
        fallback = _repr_text(value)
        i = 0
        while fallback[i]:
            out[i] = fallback[i]
            i += 1
        PyMem_Free(fallback)
        return length + i
    while digits % 10 == 0:
        digits //= 10
        exponent += 1
    count = 0
    while digits:
        text[19 - count] = <char>(48 + digits % 10)
        digits //= 10
        count += 1
    # Python's decimal point: value = 0.DIGITS * 10^point.
    point = count + exponent
    position = 20 - count
    if point > 16 or point < -3:
        out[0] = text[position]
        shown = 1
        if count > 1:
            out[1] = b"."
            memcpy(out + 2, text + position + 1, count - 1)
            shown = count + 1
        out[shown] = b"e"
        shown += 1
        point -= 1
        out[shown] = b"-" if point < 0 else b"+"
        shown += 1
        if point < 0:
            point = -point
        if point >= 100:
            out[shown] = <char>(48 + point // 100)
            shown += 1
        out[shown] = <char>(48 + point // 10 % 10)
        out[shown + 1] = <char>(48 + point % 10)
        return length + shown + 2
    if point <= 0:
        out[0] = b"0"
        out[1] = b"."
        for i in range(-point):
            out[2 + i] = b"0"
        memcpy(out + 2 - point, text + position, count)
        return length + 2 - point + count
    if point < count:
        memcpy(out, text + position, point)
        out[point] = b"."
        memcpy(out + point + 1, text + position + point, count - point)
        return length + count + 1
    memcpy(out, text + position, count)
    for i in range(count, point):
        out[i] = b"0"
    out[point] = b"."
    out[point + 1] = b"0"
    return length + point + 2


cdef char *_repr_text(double value) except NULL:
    return PyOS_double_to_string(value, b"r", 0, Py_DTSF_ADD_DOT_0, NULL)


cdef inline Py_ssize_t _write_integer(int64_t value, char *out) noexcept nogil:
    cdef char text[20]
    cdef int count = 0
    cdef uint64_t magnitude
    cdef Py_ssize_t length = 0
    if value < 0:
        out[0] = b"-"
        out += 1
        length = 1
        magnitude = <uint64_t>(-(value + 1)) + 1
    else:
        magnitude = <uint64_t>value
    while True:
        text[19 - count] = <char>(48 + magnitude % 10)
        magnitude //= 10
        count += 1
        if magnitude == 0:
            break
    memcpy(out, text + 20 - count, count)
    return length + count


def format_float(double value):
    """``repr(value)`` of a float, by this module's digits."""
    cdef char out[LONGEST]
    cdef Py_ssize_t length = _write_float(value, out)
    return out[:length].decode("ascii")


def format_rows(const int64_t[::1] rows, list fields, list columns):
    """The CSV lines ``row,FIELD...,VALUE...`` of a chunk, one per row, each ending in ``\\n``.

    Parameters
    ----------
    rows : int64 array of shape (n,)
        The row numbers, written as integers.
    fields : list of lists of str
        Text columns copied as they are (already quoted for CSV), each of n fields.
    columns : list of float64 arrays of shape (n,)
        The values, each written as ``repr`` writes it.

    Returns
    -------
    str
        The lines, as ``"%d,%s,...,%r\\n" % ...`` would give them.
    """
    cdef Py_ssize_t n = rows.shape[0], n_fields = len(fields), n_columns = len(columns)
    cdef Py_ssize_t i, j, size, length, position = 0
    cdef const double[::1] column
    cdef const double **starts
    cdef const char *field
    cdef char *out = NULL
    for values in fields:
        if len(<list?>values) != n:
            raise ValueError(f"fields: a column of {len(values)} fields for {n} rows")
    size = n * (21 + n_columns * (LONGEST + 1) + n_fields + 1)
    for values in fields:
        for text in values:
            PyUnicode_AsUTF8AndSize(text, &length)  # (TypeError unless a str)
            size += length
    views = []  # (holding the buffers while their starts are read)
    starts = <const double **>PyMem_Malloc(max(n_columns, 1) * sizeof(double *))
    if starts == NULL:
        raise MemoryError()
    try:
        for j in range(n_columns):
            column = columns[j]
            if column.shape[0] != n:
                raise ValueError(f"columns: a column of {column.shape[0]} values for {n} rows")
            views.append(column)
            starts[j] = &column[0] if n else NULL
        out = <char *>PyMem_Malloc(max(size, 1))
        if out == NULL:
            raise MemoryError()
        for i in range(n):
            position += _write_integer(rows[i], out + position)
            for j in range(n_fields):
                field = PyUnicode_AsUTF8AndSize((<list>fields[j])[i], &length)
                out[position] = b","
                memcpy(out + position + 1, field, length)
                position += length + 1
            for j in range(n_columns):
                out[position] = b","
                position += 1 + _write_float(starts[j][i], out + position + 1)
            out[position] = b"\n"
            position += 1
        return PyUnicode_DecodeUTF8(out, position, NULL)
    finally:
        PyMem_Free(out)
        PyMem_Free(starts)
