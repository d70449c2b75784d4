"""scipy's regularized incomplete beta functions, handed to ``_cost`` on first use.

``_cost`` evaluates the H-measure's loss terms in closed form for integer
Beta shapes (the default Beta(2, 2)); other shapes need scipy's betainc and
betaincc.  Cimporting ``scipy.special.cython_special`` imports scipy.special,
which costs most of a second of start-up, so it is cimported here only, and
``_cost`` imports this module the first time a non-integer shape reaches it.
"""

from cpython.pycapsule cimport PyCapsule_New
from scipy.special.cython_special cimport betainc, betaincc

from hmeasure_stream._engines._cost cimport IncompleteBeta, incomplete_beta_capsule


cdef double _lower(double a, double b, double x) noexcept nogil:
    return betainc(a, b, x)


cdef double _upper(double a, double b, double x) noexcept nogil:
    return betaincc(a, b, x)


cdef IncompleteBeta _functions
_functions.lower = _lower
_functions.upper = _upper

#: The two functions, as a capsule of an ``IncompleteBeta`` struct.
functions = PyCapsule_New(&_functions, incomplete_beta_capsule(), NULL)
