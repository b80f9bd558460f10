"""The checks of one argument value (a number, a whole number, a probability, a choice, a flag,
a function, positive values, a user's function's result) and the mechanisms' sensitivities
and allocation (:mod:`dppack._checks` has the vocabulary).
"""

import functools
import math
import numbers

import numpy as np

from . import _frames, _messages


# The data side lives in the conversion layer (NumPy, pandas, polars, pyarrow, Dask):
# re-exported here, where the checks of every argument are looked up.
is_pandas = _frames.is_pandas
_LONG = 2 ** 63


def as_numeric_array(value, message):
    """:func:`dppack._frames.as_numeric_array`, with a fast path for a Python number or ndarray."""
    kind = type(value)
    if kind is float or (kind is int and -_LONG <= value < _LONG):
        return np.array(float(value))
    if kind is np.ndarray:  # what the general path does with a NumPy array
        if value.dtype.kind not in "iuf":
            raise _messages.value_error(message)
        return value.astype(np.float64, copy=False)
    return _frames.as_numeric_array(value, message)


# --------------------------------------------------------------------------------------------
# The vocabulary (dppack._checks's docstring): one number, a whole number, a probability, a
# choice, a flag, a function, a vector
# --------------------------------------------------------------------------------------------


_CLOSED = ("both", "left", "right", "neither")


def _one_number(value, message, strict):
    """``value`` as a float under the shared type rule (:mod:`dppack._checks`); NaN refused."""
    kind = type(value)
    if kind is float:  # the common cases first (Reals, never bools)
        number = value
    elif kind is int or (isinstance(value, numbers.Real)
                         and not isinstance(value, (bool, np.bool_))):
        try:
            number = float(value)
        except OverflowError:  # an int beyond the doubles
            raise _messages.value_error(message) from None
    elif strict or isinstance(value, (list, tuple)):
        raise _messages.value_error(message)
    else:
        array = as_numeric_array(value, message)
        if array.size != 1:
            raise _messages.value_error(message)
        number = float(array.reshape(()))
    if number != number:
        raise _messages.value_error(message)
    return number


def _interval_text(low, high, closed):
    """`` in (0, 1]``, `` >= 0``, `` < 1`` or nothing: the interval as messages say it."""
    low_in, high_in = closed in ("both", "left"), closed in ("both", "right")
    if low is not None and high is not None:
        return f" in {'[' if low_in else '('}{low:g}, {high:g}{']' if high_in else ')'}"
    if low is not None:
        return f" {'>=' if low_in else '>'} {low:g}"
    if high is not None:
        return f" {'<=' if high_in else '<'} {high:g}"
    return ""


def check_number(value, name, low=None, high=None, closed="both", finite=False, strict=False,
                 optional=False, message=None):
    """Return ``value`` as a float if it is one real number in an interval, else raise ValueError.

    ``low``/``high`` bound the interval (None: unbounded), ``closed`` in {'both', 'left',
    'right', 'neither'} (scikit-learn's ``check_scalar`` semantics); ``finite`` refuses +-Inf
    (a string: with that text); ``strict`` accepts Python and NumPy numbers only; ``optional``
    lets None through; ``message`` defaults to ``"<name> must be [a finite ]number[ interval]."``.

    Examples
    --------
    >>> check_number(0.5, "delta", 0, 1, closed="neither")
    0.5
    >>> import numpy as np
    >>> check_number(np.int64(2), "k", low=0)
    2.0
    >>> for bad in (True, "1", float("nan"), 1.0):
    ...     try:
    ...         check_number(bad, "delta", 0, 1, closed="neither")
    ...     except ValueError as error:
    ...         print(error)
    delta must be a number in (0, 1).
    delta must be a number in (0, 1).
    delta must be a number in (0, 1).
    delta must be a number in (0, 1).
    >>> try:
    ...     check_number(float("inf"), "eps", low=0, closed="neither", finite=True)
    ... except ValueError as error:
    ...     print(error)
    eps must be a finite number > 0.
    """
    if type(value) is float and value == value and closed in _CLOSED and not (
            finite and math.isinf(value)):  # a plain float: the checks below, without a text
        if (low is None or (value >= low if closed in ("both", "left") else value > low)) and (
                high is None or (value <= high if closed in ("both", "right") else value < high)):
            return value
    if optional and value is None:
        return None
    if closed not in _CLOSED:
        raise _messages.value_error(f"closed must be one of {', '.join(repr(c) for c in _CLOSED)}.")
    if message is None:
        try:
            message = _default_message(name, low, high, closed, finite is True)
        except TypeError:  # an unhashable bound
            message = _default_message.__wrapped__(name, low, high, closed, finite is True)
    number = _one_number(value, message, strict)
    if low is not None and not (number >= low if closed in ("both", "left") else number > low):
        raise _messages.value_error(message)
    if high is not None and not (number <= high if closed in ("both", "right")
                                 else number < high):
        raise _messages.value_error(message)
    if finite and math.isinf(number):
        raise _messages.value_error(finite if isinstance(finite, str) else message)
    return number


@functools.lru_cache(maxsize=256)
def _default_message(name, low, high, closed, finite):
    """The default text of :func:`check_number` (cached per constraint)."""
    kind = "a finite number" if finite else "a number"
    return f"{name} must be {kind}{_interval_text(low, high, closed)}."


def check_positive_scalar(value, name, optional=False):
    """``value`` as a float if it is one number > 0 (+Inf included), else DPpack's
    ``"<name> must be a scalar > 0"`` (also for NaN); ``optional`` lets None through.

    Examples
    --------
    >>> check_positive_scalar(float("inf"), "eps")
    inf
    >>> try:
    ...     check_positive_scalar(0, "eps")
    ... except ValueError as error:
    ...     print(error)
    eps must be a scalar > 0
    """
    if type(value) is float and value > 0.0:  # passes (+Inf included), as check_number finds
        return value
    return check_number(value, name, low=0, closed="neither", optional=optional,
                        message=f"{name} must be a scalar > 0")


def check_finite_positive_scalar(value, name, optional=False):
    """:func:`check_positive_scalar`, and ``"<name> must be finite."`` for +Inf.

    Examples
    --------
    >>> check_finite_positive_scalar(2, "sensitivity")
    2.0
    >>> try:
    ...     check_finite_positive_scalar(float("inf"), "sensitivity")
    ... except ValueError as error:
    ...     print(error)
    sensitivity must be finite.
    """
    return check_number(value, name, low=0, closed="neither", finite=f"{name} must be finite.",
                        optional=optional, message=f"{name} must be a scalar > 0")


def check_finite_budget(value, name):
    """:func:`check_positive_scalar` for a privacy budget, refusing +Inf with the reason.

    Examples
    --------
    >>> try:
    ...     check_finite_budget(float("inf"), "eps")
    ... except ValueError as error:
    ...     print(error)
    eps must be finite: eps = Inf would release the true values without noise.
    """
    if type(value) is float and 0.0 < value < math.inf:  # passes, as check_number finds
        return value
    return check_number(
        value, name, low=0, closed="neither",
        finite=f"{name} must be finite: {name} = Inf would release the true values without "
               "noise.",
        message=f"{name} must be a scalar > 0")


def check_whole(value, name, minimum=0, strict=False, optional=False, message=None):
    """``value`` as an int (exact at any size) if it is a whole number >= ``minimum``, else raise.

    Floats with no fractional part pass, as R passes counts; ``strict``, ``optional`` and
    ``message`` as in :func:`check_number`.

    Examples
    --------
    >>> check_whole(3.0, "n.levels", 1)
    3
    >>> try:
    ...     check_whole(2.5, "n.draws", 2)
    ... except ValueError as error:
    ...     print(error)
    n_draws must be a whole number >= 2.
    """
    if optional and value is None:
        return None
    if type(value) is int and value >= minimum:  # the common case, before any text is made
        return value
    if message is None:
        message = f"{name} must be a whole number >= {minimum}."
    if isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_)):
        if not value >= minimum:  # exact, for integers of any size
            raise _messages.value_error(message)
        return int(value)
    number = _one_number(value, message, strict)
    if not (math.isfinite(number) and number == int(number) and number >= minimum):
        raise _messages.value_error(message)
    return int(number)


def check_probability(value, name, zero=False, high_message=None):
    """A delta as a float in (0, 1) (``zero``: [0, 1)), with DPpack's ``"<name> must be a scalar
    > 0"`` below and ``high_message`` (default ``"<name> must be < 1."``) at 1 or more.

    Examples
    --------
    >>> check_probability(1e-6, "delta")
    1e-06
    >>> check_probability(0, "delta", zero=True)
    0.0
    >>> for bad in (0, 1):
    ...     try:
    ...         check_probability(bad, "delta")
    ...     except ValueError as error:
    ...         print(error)
    delta must be a scalar > 0
    delta must be < 1.
    """
    number = check_number(value, name, low=0, closed="left" if zero else "neither",
                          message=f"{name} must be a scalar {'>=' if zero else '>'} 0")
    if not number < 1:
        raise _messages.value_error(high_message or f"{name} must be < 1.")
    return number


def is_one_of(value, options):
    """True if ``value`` is one of the strings ``options`` (exact match, as R's ``%in%``).

    Examples
    --------
    >>> is_one_of("Laplace", ("Laplace", "Gaussian")), is_one_of("laplace", ("Laplace",))
    (True, False)
    """
    return isinstance(value, str) and value in options


def check_choice(value, name, options, message=None):
    """``value`` if it is one of the strings ``options``, else raise (``message`` or a default).

    Examples
    --------
    >>> check_choice("shared", "noise", ("shared", "independent"))
    'shared'
    >>> try:
    ...     check_choice("Shared", "noise", ("shared", "independent"))
    ... except ValueError as error:
    ...     print(error)
    noise must be one of 'shared', 'independent'.
    """
    if not is_one_of(value, options):
        raise _messages.value_error(message or f"{name} must be one of "
                                    f"{', '.join(f'{option!r}' for option in options)}.")
    return value


def check_flag(value, name, strict=False, message=None):
    """``value`` as a bool if it is one logical value (a one-element boolean array too unless
    ``strict``; never a list or a number), else raise.

    Examples
    --------
    >>> import numpy as np
    >>> check_flag(np.array([True]), "add.bias")
    True
    >>> try:
    ...     check_flag(1, "add.bias")
    ... except ValueError as error:
    ...     print(error)
    add_bias must be True or False.
    """
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if not (strict or isinstance(value, (list, tuple))):  # lists: as in the number rule
        array = np.asarray(value)
        if array.size == 1 and array.dtype.kind == "b":
            return bool(array.reshape(()))
    raise _messages.value_error(message or f"{name} must be TRUE or FALSE.")


def check_callable(value, name, optional=False, message=None):
    """``value`` if it is a function (or None with ``optional``), else raise.

    Examples
    --------
    >>> check_callable(None, "regularizer.gr", optional=True) is None
    True
    >>> try:
    ...     check_callable("l2", "regularizer.gr", optional=True)
    ... except ValueError as error:
    ...     print(error)
    regularizer_gr must be a function or None.
    """
    if optional and value is None:
        return None
    if not callable(value):
        raise _messages.value_error(
            message or f"{name} must be a function{' or NULL' if optional else ''}.")
    return value


def check_positive_values(array, message, finite_message=None):
    """The float ``array`` itself if all its values are > 0 and finite; else ``message`` (a value
    <= 0 or NaN) or ``finite_message`` (+Inf).

    Examples
    --------
    >>> import numpy as np
    >>> check_positive_values(np.array([0.5, 2.0]), "s must be > 0.").tolist()
    [0.5, 2.0]
    >>> try:
    ...     check_positive_values(np.array([1.0, np.inf]), "s must be > 0.", "s must be finite.")
    ... except ValueError as error:
    ...     print(error)
    s must be finite.
    """
    if array.size == 1:  # one value: the same tests on a Python float
        value = array.item()
        if not value > 0:
            raise _messages.value_error(message)
        if value == math.inf:
            raise _messages.value_error(finite_message or message)
    elif array.size:
        # the smallest value is NaN if any is (a NaN or a value <= 0 fails "> 0"); then only
        # +Inf can be infinite
        if not np.minimum.reduce(array, axis=None) > 0:
            raise _messages.value_error(message)
        if np.maximum.reduce(array, axis=None) == np.inf:
            raise _messages.value_error(finite_message or message)
    return array


def as_vector(value, size=None, message=None):
    """A user's function's result (number, vector, n x 1 matrix) as a flat float array, of
    ``size`` values if given (``message`` has ``{size}`` and ``{expected}``).

    Examples
    --------
    >>> as_vector([[1], [2]]).tolist()
    [1.0, 2.0]
    >>> try:
    ...     as_vector([1.0, 2.0], 1, "The regularizer returned {size} values where one was "
    ...                              "expected.")
    ... except ValueError as error:
    ...     print(error)
    The regularizer returned 2 values where one was expected.
    """
    array = np.asarray(value, dtype=np.float64).ravel()
    if size is not None and array.size != size:
        raise _messages.value_error(message or "Expected {expected} values, got {size}.",
                                    size=array.size, expected=size)
    return array


# --------------------------------------------------------------------------------------------
# The mechanisms' arguments (DPpack's LaplaceMechanism)
# --------------------------------------------------------------------------------------------


def check_sensitivities(sensitivities, n_values):
    """Validate global sensitivities against ``n_values`` true values."""
    sens = as_numeric_array(sensitivities, "Global sensitivities must be numeric.").ravel()
    if sens.size != n_values and sens.size != 1:
        raise _messages.value_error(
            "Length of sensitivities must match length of true.values or be length 1."
        )
    return check_positive_values(sens, "Global sensitivities must be > 0.",
                                 "Global sensitivities must be finite.")


def check_allocation(alloc_proportions, n_sensitivities, n_values):
    """Validate and normalise ``alloc.proportions``; None passes through.

    Refused with one sensitivity for several values (DPpack then crashes or returns NaN).
    """
    if alloc_proportions is None:
        return None
    alloc = as_numeric_array(
        alloc_proportions, "Values in alloc.proportions, if given, must be numeric."
    ).ravel()
    if alloc.size != n_sensitivities:
        raise _messages.value_error(
            "Length of alloc.proportions, if given, must match length of sensitivities."
        )
    check_positive_values(alloc, "Values in alloc.proportions, if given, must be > 0.",
                          "Values in alloc.proportions, if given, must be finite.")
    if n_sensitivities != n_values:
        raise _messages.value_error(
            "alloc.proportions needs one sensitivity per element of true.values; "
            "with a single sensitivity for several values, leave alloc.proportions NULL."
        )
    return alloc / alloc.sum()


def restore_like(values, like):
    """``values`` in the shape and container (scalar, ndarray, pandas) of the user's ``like``."""
    if is_pandas(like):
        if hasattr(like, "columns"):
            return type(like)(values.reshape(like.shape), index=like.index, columns=like.columns)
        return type(like)(values.reshape(like.shape), index=like.index, name=like.name)
    shape = () if type(like) in (float, int) or isinstance(like, numbers.Number) \
        else _frames.shape(like)
    if not shape:
        return float(values.reshape(()))
    return values.reshape(shape)
