"""The one vocabulary of argument checks, and DPpack's message texts.

Each check takes the user's value, returns it in the form the core computes with, and raises
``ValueError`` with DPpack 0.2.2's message where DPpack has one, or a precise one of ours,
written in R's spelling (:mod:`dppack._messages`). Modelled on scikit-learn's
``check_scalar`` and parameter constraints. The type rule of one number: ``None``, booleans,
strings, bytes, lists and tuples are refused (an R list arrives as a list); Python and NumPy
numbers are accepted, and unless ``strict`` a one-element numeric array or pandas object;
NaN never.
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


