"""The one vocabulary of argument checks, and DPpack's message texts.

Each check takes the user's value, returns it in the form the core computes with, and raises
``ValueError`` with DPpack 0.2.2's message where DPpack has one, or a precise message of our
own where DPpack has none. The messages are written once, in R's spelling (``true.values``,
``TRUE``), and raised through :mod:`dppack._messages`: a Python caller reads them in Python's
spelling (``true_values``, ``True``), an R caller unchanged.

The vocabulary is modelled on scikit-learn's ``utils.check_scalar`` and the constraints of its
parameter validation (an ``Interval`` of reals or integers, closed on either side; a set of
string options): a check names the argument and the values it accepts, and a caller that has
its own text (DPpack's, or an older one of ours) passes it as ``message``.

* :func:`check_number` -- one real number, optionally in an interval and finite;
  :func:`check_positive_scalar`, :func:`check_finite_positive_scalar` and
  :func:`check_finite_budget` are DPpack's "scalar > 0" in its three uses;
* :func:`check_whole` -- a whole number >= a minimum;
* :func:`check_probability` -- DPpack's two-step check of a delta (> 0, then < 1);
* :func:`check_choice` (and the test :func:`is_one_of`) -- one of a few strings;
* :func:`check_flag` -- TRUE or FALSE; :func:`check_callable` -- a function;
* :func:`check_positive_values` -- an array of finite numbers > 0;
* :func:`as_vector` -- what a user's function returned, as a vector of known length;
* data: :func:`as_numeric_array`, :func:`as_finite_data`, :func:`check_vector`, and the
  bounds of the statistics (:func:`check_bounds` and its parts).

The type rule of one number is shared by all of them: ``None``, booleans (Python's and
numpy's), strings, bytes, lists and tuples are refused (an R list arrives as a Python list,
and R's ``is.numeric`` refuses a list); a Python or numpy number is accepted; so, unless
``strict=True``, is a 0-d or one-element numpy array or pandas object of ints or floats (an R
matrix of one value arrives as one). NaN is always refused.
"""

from ._check_values import (
    as_numeric_array,
    as_vector,
    check_allocation,
    check_callable,
    check_choice,
    check_finite_budget,
    check_finite_positive_scalar,
    check_flag,
    check_number,
    check_positive_scalar,
    check_positive_values,
    check_probability,
    check_sensitivities,
    check_whole,
    is_one_of,
    is_pandas,
    restore_like,
)
from ._check_data import (  # noqa: F401
    as_bound,
    as_finite_data,
    block_is_finite,
    check_bound_length,
    check_bound_order,
    check_bounds,
    check_data_finite,
    check_data_size,
    check_vector,
    data_range,
    r_length,
)

__all__ = [
    "as_bound",
    "as_finite_data",
    "as_numeric_array",
    "as_vector",
    "check_allocation",
    "check_bound_length",
    "check_bound_order",
    "check_bounds",
    "check_callable",
    "check_choice",
    "check_data_finite",
    "check_data_size",
    "check_finite_budget",
    "check_finite_positive_scalar",
    "check_flag",
    "check_number",
    "check_positive_scalar",
    "check_positive_values",
    "check_probability",
    "check_sensitivities",
    "check_vector",
    "check_whole",
    "data_range",
    "is_one_of",
    "is_pandas",
    "r_length",
    "restore_like",
]


