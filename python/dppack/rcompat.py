"""R semantics that DPpack's results depend on: rounding, ``pretty()``, ``hist()``, ``table()``.

DPpack releases histograms whose break points R computes from the data (``hist`` with
``pretty``) and contingency tables whose cells are R factor levels (``table``). A Python user
gets the same breaks, counts and cells as R 4.2.2 only if these are reproduced exactly, to the
last bit of every break point; this module does that.
:func:`hist` is R's, for the non-private ``histogramDataAccess``; ``histogramDP`` reuses its
parts (:func:`parse_breaks`, :func:`pretty`, :func:`fuzz`, :func:`cell_counts`) with breaks
from the bounds instead of the data.

Everything here was written from R's documentation and checked against R 4.2.2 run as a black
box (``tests/python/test_rcompat.py``). Deviations from R are listed in each docstring; they
concern inputs R handles badly (NA among user breaks, NA in tables) or error texts R words
obscurely.
"""

import dataclasses
import math
import sys
import warnings

import numpy as np

from . import _checks, _frames, _messages

__all__ = [
    "Histogram",
    "cell_counts",
    "check_cells",
    "factorize",
    "fuzz",
    "hist",
    "has_declared_levels",
    "hist_breaks",
    "is_equidistant",
    "nclass_fd",
    "nclass_scott",
    "nclass_sturges",
    "observed_cells",
    "parse_breaks",
    "xname_of",
    "pretty",
    "round_half_even",
    "table",
]

# R's pretty() defaults (help(pretty)): the bias towards larger units, the extra bias towards
# 5 over 2, the shrink factor of the "small range" case and the smallest acceptable cell as a
# multiple of the smallest normal double.
_HIGH_U_BIAS = 1.5
_U5_BIAS = 0.5 + 1.5 * _HIGH_U_BIAS
_SHRINK_SML = 0.75
_F_MIN = 2.0**-20
# Tolerance with which R decides that a bound already lies on a multiple of the unit. R 4.2
# uses 1e-10 (checked: pretty(c(1 - 5e-9, 2)) starts at 0.8, which 1e-7 would not give).
_ROUNDING_EPS = 1e-10
# R_pretty() caps a huge cell at DBL_MAX / 1.25 (so that a unit of 10 times the base exists).
_MAX_F = 1.25
# R coerces n and min.n with as.integer(): anything at or beyond 2^31 is NA there.
_INT_MAX = 2**31 - 1
# hist() caps a number of cells at one million, with a warning.
_MAX_CELLS = 1e6

_RULES = ("sturges", "fd", "freedman-diaconis", "scott")
# R's match.arg() message, with its curly quotes: what an R caller reads (R's hist() says it);
# a Python caller reads which argument and which values (_PYTHON_RULE_MESSAGE).
_RULE_MESSAGE = "'arg' should be one of " + ", ".join(f"\u201c{rule}\u201d" for rule in _RULES)
_PYTHON_RULE_MESSAGE = ("breaks, when a string, must be one of 'Sturges', 'Scott', 'FD' or "
                        "'Freedman-Diaconis' (in any case, or a unique prefix); got {value!r}.")
_NOT_COUNTED = "some 'x' not counted; maybe 'breaks' do not span range of 'x'"
_INVALID_NUMBER = "invalid number of 'breaks'"


# --------------------------------------------------------------------------------------------
# Rounding


def round_half_even(x):
    """R's ``round(x)`` (0 digits): halves go to the even neighbour.

    ``round(0.5) == 0``, ``round(2.5) == 2``, ``round(-1.5) == -2`` in R.
    :func:`numpy.round` and :func:`numpy.rint` round exactly this way (IEEE round-half-even),
    so this is ``numpy.rint``; ``math.floor(x + 0.5)`` would not be.

    Parameters
    ----------
    x : float or array_like of float

    Returns
    -------
    float or ndarray
        A float for a scalar input, otherwise a float ndarray of the same shape. Values beyond
        2^52, infinities and NaN come back unchanged, as in R.

    References
    ----------
    R Core Team, ``help(round)``, R 4.2.2; IEEE 754 round-half-even.

    Examples
    --------
    >>> from dppack.rcompat import round_half_even
    >>> round_half_even(2.5)
    2.0
    >>> round_half_even([0.5, 1.5, -1.5]).tolist()
    [0.0, 2.0, -2.0]
    """
    result = np.rint(np.asarray(x, dtype=np.float64))
    return float(result) if result.ndim == 0 else result


# --------------------------------------------------------------------------------------------
# pretty()


def _as_count(value, message):
    """R's as.integer() of a count argument: truncation; NA, NaN and non-numbers -> error."""
    return int(_checks.check_number(value, "n", -_INT_MAX, _INT_MAX, finite=True, strict=True,
                                    message=message))


def _pretty_bounds(lo, up, ndiv, min_n):
    """The pretty bounds l <= lo, u >= up and the number of intervals (R's R_pretty()).

    lo <= up are finite. The unit is 1, 2, 5 or 10 times a power of ten, chosen from the
    "cell" (range / ndiv, or a shrunk magnitude when the range is nearly zero) with R's biases.
    """
    h, h5 = _HIGH_U_BIAS, _U5_BIAS
    dx = up - lo
    if dx == 0 and up == 0:
        cell, small = 1.0, True
    else:
        cell = max(abs(lo), abs(up))
        # A range below a few ulps of the magnitude is "small": the data are one value.
        factor = 1 + (1 / (1 + h) if h5 >= 1.5 * h + 0.5 else 1.5 / (1 + h5))
        factor *= max(1, ndiv) * sys.float_info.epsilon
        small = dx < cell * factor * 3
    if small:
        if cell > 10:
            cell = 9 + cell / 10
        cell *= _SHRINK_SML
        if min_n > 1:
            cell /= min_n
    elif math.isfinite(dx):
        cell = dx / ndiv if ndiv > 1 else dx
    elif ndiv > 1:
        # up - lo overflows for huge bounds of opposite signs; the cell need not.
        cell = up / ndiv - lo / ndiv
    else:
        warnings.warn(
            f"R_pretty(): infinite range; *ndiv={ndiv}, should have ndiv >= 2", stacklevel=3
        )
        cell = dx

    smallest = _F_MIN * sys.float_info.min
    if smallest == 0:
        smallest = sys.float_info.min
    if cell < smallest:
        warnings.warn(
            f"R_pretty(): very small range 'cell'={cell:g}, corrected to {smallest:g}",
            stacklevel=3,
        )
        cell = smallest
    elif cell > sys.float_info.max / _MAX_F:
        largest = sys.float_info.max / _MAX_F
        warnings.warn(
            f"R_pretty(): very large range 'cell'={cell:g}, corrected to {largest:g}",
            stacklevel=3,
        )
        cell = largest

    base = 10.0 ** math.floor(math.log10(cell))
    unit = base
    # Move up to 2, 5 and 10 times the base while the step up costs less than the biased gap.
    if 2 * base - cell < h * (cell - unit):
        unit = 2 * base
        if 5 * base - cell < h5 * (cell - unit):
            unit = 5 * base
            if 10 * base - cell < h * (cell - unit):
                unit = 10 * base

    ns = math.floor(lo / unit + _ROUNDING_EPS)
    nu = math.ceil(up / unit - _ROUNDING_EPS)
    # Near the largest double a multiple of the unit can overflow: R keeps the bounds finite
    # (the result then starts or ends at the data bound itself).
    while not math.isfinite(ns * unit):
        ns += 1
    while not math.isfinite(nu * unit):
        nu -= 1
    while ns * unit > lo + _ROUNDING_EPS * unit and math.isfinite((ns - 1) * unit):
        ns -= 1
    while nu * unit < up - _ROUNDING_EPS * unit and math.isfinite((nu + 1) * unit):
        nu += 1

    k = int(0.5 + nu - ns)
    if k < min_n:
        # Too few intervals: add the missing ones. A range starting (ending) exactly at zero
        # grows upwards (downwards) only; otherwise on both sides, the odd one downwards when
        # ns >= 0 and upwards when ns < 0 (all checked against R 4.2.2).
        k = min_n - k
        if lo == 0 and up != 0:
            nu += k
        elif up == 0 and lo != 0:
            ns -= k
        elif ns >= 0:
            nu += k // 2
            ns -= k // 2 + k % 2
        else:
            ns -= k // 2
            nu += k // 2 + k % 2
        ndiv = min_n
    else:
        ndiv = k
    # The bounds only ever widen: a bound within the rounding tolerance of a multiple of the
    # unit stays where it is (so the result can start at the data minimum itself).
    low = min(lo, ns * unit)
    high = max(up, nu * unit)
    return low, high, ndiv


def _seq_length_out(start, stop, count):
    """R's ``seq.int(start, stop, length.out = count)`` for doubles: start + i * step."""
    if count == 1:
        return np.array([start])
    steps = np.arange(count, dtype=np.float64)
    step = (stop - start) / (count - 1)
    # The last product can overflow near the largest double; that value is replaced by stop.
    with np.errstate(over="ignore", invalid="ignore"):
        if math.isfinite(step):
            values = start + steps * step
        else:
            # stop - start overflows: R then works at half scale (checked against R 4.2.2).
            half = (stop / 2 - start / 2) / (count - 1)
            values = 2 * (start / 2 + steps * half)
    values[-1] = stop
    return values


def pretty(low, high, n=5, min_n=None):
    """R's ``pretty(c(low, high), n, min.n)``: about n + 1 equally spaced round values.

    The values are multiples of a unit that is 1, 2 or 5 times a power of ten, and they cover
    [low, high]. R's default biases are used (``high.u.bias = 1.5``, ``u5.bias = 2.75``,
    ``shrink.sml = 0.75``, ``f.min = 2^-20``, ``eps.correct = 0``); the result is
    ``seq.int(l, u, length.out = ndiv + 1)`` with every value within 1e-14 steps of zero
    set to zero, as R returns it.

    Parameters
    ----------
    low, high : float
        The range to cover; their order does not matter (R takes ``range(x)``). Non-finite
        values are ignored, as in R.
    n : int, default 5
        Desired number of intervals, >= 0. Fractions are truncated, as R's ``as.integer``.
    min_n : int, optional
        Minimal number of intervals, 0 <= min_n <= n; default ``n // 3`` (R's ``n %/% 3``).

    Returns
    -------
    ndarray of float
        The break points, increasing. Empty when neither bound is finite. When low == high the
        range is widened around the value (``pretty(c(5, 5), n = 1, min.n = 1)`` is 0, 5).

    Raises
    ------
    ValueError
        R's messages "invalid 'n' argument" and "invalid 'min.n' argument".

    Warns
    -----
    UserWarning
        R's "very small range" / "very large range" corrections of the cell.

    References
    ----------
    R Core Team, ``help(pretty)``, R 4.2.2. Becker, Chambers and Wilks (1988), The New S
    Language.

    Examples
    --------
    >>> from dppack.rcompat import pretty
    >>> pretty(0.3, 9.7).tolist()
    [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    >>> pretty(5, 5, n=1, min_n=1).tolist()
    [0.0, 5.0]
    """
    ndiv = _as_count(n, "invalid 'n' argument")
    if ndiv < 0:
        raise ValueError("invalid 'n' argument")
    min_n = ndiv // 3 if min_n is None else _as_count(min_n, "invalid 'min.n' argument")
    if min_n < 0 or min_n > ndiv:
        raise ValueError("invalid 'min.n' argument")
    finite = [float(v) for v in (low, high) if math.isfinite(v)]
    if not finite:
        return np.empty(0)
    lo, up = min(finite), max(finite)
    lo, up, ndiv = _pretty_bounds(lo, up, ndiv, min_n)
    values = _seq_length_out(lo, up, ndiv + 1)
    if ndiv > 0:
        # R sets values that are zero up to rounding (like 1e-17 from 0.1 * 3 - 0.3) to zero.
        step = (up - lo) / ndiv
        if not math.isfinite(step):
            step = up / ndiv - lo / ndiv
        values[np.abs(values) < 1e-14 * step] = 0.0
    return values


# --------------------------------------------------------------------------------------------
# Numbers of classes


def _finite_values(x, name="x"):
    values = _checks.as_numeric_array(x, f"'{name}' must be numeric").ravel()
    return values if np.all(np.isfinite(values)) else values[np.isfinite(values)]


def _all_finite(x):
    """The values of ``x`` as a flat float array, refused unless numeric and all finite (the
    checks of :func:`nclass_scott` and :func:`nclass_fd`)."""
    values = _checks.as_numeric_array(x, "'x' must be numeric").ravel()
    if not np.all(np.isfinite(values)):
        raise ValueError("'x' must be finite (no NA, NaN or Inf).")
    return values


def _quantile7(order_stat, n, prob):
    """R's ``quantile(x, prob, type = 7)``; ``order_stat(k)`` is the k-th smallest (0-based).

    R interpolates (1 - h) x[lo] + h x[hi] only when the two order statistics differ, so a
    tie gives the tied value exactly; numpy's interpolation formula differs in the last bit.
    """
    index = 1 + (n - 1) * prob  # R's 1-based position
    lo = math.floor(index)
    hi = math.ceil(index)
    value = order_stat(lo - 1)
    if index > lo:
        upper = order_stat(hi - 1)
        if upper != value:
            frac = index - lo
            value = (1 - frac) * value + frac * upper
    return value


def _power_of_ten(exponent):
    """10^exponent by binary powering in double.

    Scaling by this power reproduces R's signif() to the bit (checked on 5000 values from
    1e-30 to 1e30); the correctly rounded power 10.0 ** k does not, for k > 22.
    """
    result, factor = 1.0, 10.0
    while exponent:
        if exponent & 1:
            result *= factor
        exponent >>= 1
        if exponent:
            factor *= factor
    return result


def _signif(value, digits):
    """R's ``signif(value, digits)`` of one double: round to ``digits`` significant digits."""
    if value == 0 or not math.isfinite(value):
        return value
    shift = digits - 1 - math.floor(math.log10(abs(value)))
    scale = _power_of_ten(abs(shift))
    if not math.isfinite(scale):
        return value  # subnormal data: R rescales in two steps; not reproduced
    # round() on a float rounds half to even, as R's nearbyint().
    if shift >= 0:
        return round(value * scale) / scale
    return round(value / scale) * scale


def _sample_var(values):
    mean = values.mean()
    centred = values - mean
    return float(np.dot(centred, centred) / (values.size - 1))


def nclass_sturges(x):
    """Sturges' number of classes, R's ``nclass.Sturges``: ceiling(log2(n) + 1).

    Parameters
    ----------
    x : array_like of float
        The data; only its length is used (NaN included, as in R).

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For empty ``x`` (R returns -Inf there, which ``hist`` then rejects).

    References
    ----------
    Sturges (1926), The choice of a class interval, JASA 21, 65-66. R Core Team,
    ``help(nclass.Sturges)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import nclass_sturges
    >>> int(nclass_sturges(range(100)))  # ceiling(log2(100) + 1)
    8
    """
    n = np.size(x)
    if n == 0:
        raise ValueError("'x' must contain at least one value.")
    return int(math.ceil(math.log2(n) + 1))


def _scott(values):
    if values.size < 2:
        raise ValueError(
            "Scott's rule needs at least two finite values of 'x' "
            "(R stops with 'missing value where TRUE/FALSE needed')."
        )
    width = 3.5 * math.sqrt(_sample_var(values)) * values.size ** (-1 / 3)
    if width > 0:
        return max(1, int(math.ceil((values.max() - values.min()) / width)))
    return 1


def nclass_scott(x):
    """Scott's number of classes, R's ``nclass.scott``.

    The bin width is h = 3.5 sd(x) n^(-1/3) and the number of classes
    max(1, ceiling(range / h)); 1 when sd(x) = 0.

    Parameters
    ----------
    x : array_like of float
        At least two values, all finite.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For non-numeric x, non-finite values or fewer than two values (R stops with "missing
        value where TRUE/FALSE needed" there).

    Notes
    -----
    The variance is accumulated in double precision, R's in long double: the two could give
    different classes only if range / h fell within about 1e-15 of an integer.

    References
    ----------
    Scott (1979), On optimal and data-based histograms, Biometrika 66, 605-610. R Core Team,
    ``help(nclass.scott)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import nclass_scott
    >>> int(nclass_scott(list(range(100))))
    5
    """
    return _scott(_all_finite(x))


def _fd(values):
    if values.size < 2:
        raise ValueError(
            "The Freedman-Diaconis rule needs at least two finite values of 'x' "
            "(R stops with 'missing value where TRUE/FALSE needed')."
        )
    n = values.size
    # R takes quantiles of signif(x, 5) (help(nclass.FD)). Rounding is monotone, so the order
    # statistics of the rounded data are the rounded order statistics: only the few that the
    # quartiles need are located (a partition, not a sort) and rounded.
    ranks = sorted({r - 1 for p in (0.25, 0.75) for r in _ranks(n, p)})
    part = np.partition(values, ranks)

    def rounded(k):
        return _signif(float(part[k]), 5)

    width = 2 * (_quantile7(rounded, n, 0.75) - _quantile7(rounded, n, 0.25))
    if width == 0:
        # Zero IQR: widen to the quantiles (a, 1 - a), a = 1/8, ..., 1/512, rescaled to an IQR
        # equivalent by 1 / (1 - 2a).
        part = np.sort(values)
        alpha = 0.25
        while width == 0:
            alpha /= 2
            if alpha < 1 / 512:
                break
            spread = _quantile7(rounded, n, 1 - alpha) - _quantile7(rounded, n, alpha)
            width = spread / (1 - 2 * alpha)
    if width > 0:
        span = values.max() - values.min()
        return max(1, int(math.ceil(span / (width * n ** (-1 / 3)))))
    return _scott(values)


def _ranks(n, prob):
    """The 1-based order statistics R's type-7 quantile reads."""
    index = 1 + (n - 1) * prob
    return math.floor(index), math.ceil(index)


def nclass_fd(x):
    """Freedman-Diaconis number of classes, R's ``nclass.FD(x, digits = 5)``.

    The bin width is h = 2 IQR n^(-1/3), the IQR taken on x rounded to 5 significant digits;
    a zero IQR is replaced by the spread of the quantiles (a, 1 - a) / (1 - 2a) for
    a = 1/8, 1/16, ..., 1/512, and if that stays zero Scott's rule is used.

    Parameters
    ----------
    x : array_like of float
        At least two values, all finite.

    Returns
    -------
    int
        max(1, ceiling(range(x) / h)).

    Raises
    ------
    ValueError
        For non-numeric x, non-finite values or fewer than two values.

    References
    ----------
    Freedman and Diaconis (1981), On the histogram as a density estimator: L2 theory,
    Z. Wahrscheinlichkeitstheorie verw. Gebiete 57, 453-476. R Core Team,
    ``help(nclass.FD)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import nclass_fd
    >>> int(nclass_fd(list(range(100))))
    5
    """
    return _fd(_all_finite(x))


# --------------------------------------------------------------------------------------------
# hist()


def _match_rule(name):
    """R's ``match.arg(tolower(breaks), rules)``: an exact name, else a unique prefix."""
    original, name = name, name.lower()
    if name in _RULES:
        return name
    matches = [rule for rule in _RULES if name and rule.startswith(name)]
    if len(matches) != 1:
        raise _messages.exception_pair(ValueError, _PYTHON_RULE_MESSAGE.format(value=original),
                                       _RULE_MESSAGE)
    return matches[0]


def _is_string(value):
    return isinstance(value, (str, np.str_))


def _user_breaks(values, message):
    """A vector of break points as R uses it: numeric, then sorted."""
    if any(isinstance(v, (bool, np.bool_)) for v in np.ravel(np.asarray(values, dtype=object))):
        raise ValueError(message)
    array = np.asarray(values)
    if array.dtype.kind not in "iuf":
        raise ValueError(message)
    return np.sort(array.astype(np.float64).ravel())


def check_cells(value, stacklevel=2):
    """A suggested number of cells as R's ``hist()`` checks it.

    Parameters
    ----------
    value : float
        A number of cells: from ``breaks`` itself, from a function given as ``breaks``, or from
        a rule.
    stacklevel : int, default 2
        Of the warning, as in :func:`warnings.warn` (2: the caller of this function).

    Returns
    -------
    int or float
        ``value``, capped at one million with R's warning.

    Raises
    ------
    ValueError
        R's "invalid number of 'breaks'" for anything but a finite number >= 1.

    Warns
    -----
    UserWarning
        R's "'breaks = ...' is too large and set to 1e6".

    References
    ----------
    R Core Team, ``help(hist)`` and ``hist.default``'s checks of ``breaks``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import check_cells
    >>> check_cells(10)
    10
    >>> try:
    ...     check_cells(0)
    ... except ValueError as error:
    ...     print(error)
    invalid number of 'breaks'
    """
    _checks.check_number(value, "breaks", low=1, finite=True, strict=True,
                         message=_INVALID_NUMBER)
    if value > _MAX_CELLS:
        warnings.warn(f"'breaks = {value:g}' is too large and set to 1e6",
                      stacklevel=stacklevel)
        value = _MAX_CELLS
    return value


def _scalar(value):
    """The element of a length-1 value (a scalar, a 0-d array, [5], ["Scott"]) as a Python
    object."""
    if isinstance(value, (str, bytes)):
        return value
    item = np.ravel(np.asarray(value, dtype=object))[0]
    return item.item() if isinstance(item, np.generic) else item


def _length(value):
    if value is None:
        return 0
    if isinstance(value, (str, bytes)):
        return 1
    return int(np.size(np.asarray(value, dtype=object)))


def parse_breaks(breaks, argument, stacklevel=2):
    """What R's ``hist()`` makes of its ``breaks`` argument, before any rule sees the data.

    Parameters
    ----------
    breaks : str, float, array_like or callable
        As in :func:`hist_breaks`.
    argument : ndarray
        What a callable ``breaks`` is called with: the finite data in :func:`hist`; the
        bounds in :func:`dppack.histogramDP`, whose breaks must not depend on the data.
    stacklevel : int, default 2
        Of :func:`check_cells`' warning, as in :func:`warnings.warn`.

    Returns
    -------
    (str, object)
        ``("points", ndarray)``: break points, sorted (a vector, or a callable's vector);
        ``("cells", number)``: a suggested number of cells, checked by :func:`check_cells`
        (a number, or a callable's number); ``("rule", name)``: the matched rule name,
        ``"sturges"``, ``"scott"``, ``"fd"`` or ``"freedman-diaconis"``.

    Raises
    ------
    ValueError
        As :func:`hist_breaks` for the ``breaks`` argument itself.

    References
    ----------
    R Core Team, ``help(hist)``, argument ``breaks``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import parse_breaks
    >>> import numpy as np
    >>> parse_breaks("st", np.array([0.0, 10.0]))  # a unique prefix of "Sturges"
    ('rule', 'sturges')
    >>> parse_breaks(4, np.array([0.0, 10.0]))
    ('cells', 4)
    >>> kind, points = parse_breaks([10, 0, 5], np.array([0.0, 10.0]))
    >>> kind, points.tolist()
    ('points', [0.0, 5.0, 10.0])
    """
    if _length(breaks) > 1:
        user = _user_breaks(breaks, "'breaks' must be numeric")
        if np.any(np.isnan(user)):
            # R drops NA while sorting but keeps the old length for the fuzz: garbage follows.
            raise ValueError("'breaks' must not contain NA or NaN.")
        return "points", user
    if callable(breaks):
        result = breaks(argument)
        length = _length(result)
        if length > 1:
            user = _user_breaks(result, _invalid_breakpoints(result))
            user = user[~np.isnan(user)]  # R's sort() drops NA here
            if user.size <= 1:
                raise ValueError(_invalid_breakpoints(result))
            return "points", user
        if length == 0:
            raise ValueError(_invalid_breakpoints(result))
        return "cells", check_cells(_scalar(result), stacklevel + 1)
    if _length(breaks) == 0:
        raise ValueError(_invalid_breakpoints(breaks))
    breaks = _scalar(breaks)
    if _is_string(breaks):
        return "rule", _match_rule(str(breaks))
    return "cells", check_cells(breaks, stacklevel + 1)


def _compute_breaks(values, breaks, xmin, xmax):
    """(break points, given_by_user) for finite data ``values`` with range [xmin, xmax]."""
    kind, value = parse_breaks(breaks, values, stacklevel=4)  # the warning names hist's caller
    if kind == "points":
        return value, True
    if values.size == 0:
        raise ValueError(_INVALID_NUMBER)
    if kind == "rule":
        if value == "sturges":
            cells = nclass_sturges(values)
        elif value == "scott":
            cells = _scott(values)
        else:
            cells = _fd(values)
        value = check_cells(cells, stacklevel=4)
    return pretty(xmin, xmax, n=int(value), min_n=1), False


def _invalid_breakpoints(result):
    shown = "NULL" if result is None else np.array2string(np.ravel(np.asarray(result)))
    return f"Invalid breakpoints produced by 'breaks(x)': {shown}"


def _range(values):
    if values.size == 0:
        return math.nan, math.nan
    return float(values.min()), float(values.max())


def hist_breaks(x, breaks="Sturges"):
    """The break points R's ``hist(x, breaks)`` uses.

    Parameters
    ----------
    x : array_like of float
        The data. Non-finite values are dropped first, as ``hist`` does.
    breaks : str, float, array_like or callable, default "Sturges"
        - ``"Sturges"``, ``"Scott"``, ``"FD"`` or ``"Freedman-Diaconis"``: the number of cells
          from :func:`nclass_sturges`, :func:`nclass_scott` or :func:`nclass_fd`. Matched
          as R's ``match.arg(tolower(breaks))``: case-insensitive, and a unique prefix
          (``"st"``, ``"fr"``) is enough.
        - a single number: the suggested number of cells (fractions truncated, capped at 1e6
          with a warning).
        - a vector of two or more numbers: the break points themselves, sorted.
        - a callable: called with the finite data, returning a number or a vector as above.

        A number of cells k becomes ``pretty(min(x), max(x), n=k, min_n=1)``.

    Returns
    -------
    ndarray of float

    Raises
    ------
    ValueError
        R's messages: "'x' must be numeric", "invalid number of 'breaks'", "'arg' should be one
        of ...", "Invalid breakpoints produced by 'breaks(x)': ...". Clearer messages than
        R's for: non-numeric break vectors (R: "non-numeric argument to binary operator"),
        NaN among user break points (R drops them while sorting but not from its fuzz vector,
        and counts wrongly), and Scott or FD with fewer than two finite values (R: "missing
        value where TRUE/FALSE needed"). No finite data at all with computed breaks gives
        "invalid number of 'breaks'", R's text for the default rule.

    References
    ----------
    R Core Team, ``help(hist)``, R 4.2.2.

    Examples
    --------
    R's ``hist(c(1, 2, 2.5, 3, 7))$breaks``:

    >>> from dppack.rcompat import hist_breaks
    >>> hist_breaks([1.0, 2.0, 2.5, 3.0, 7.0]).tolist()
    [0.0, 2.0, 4.0, 6.0, 8.0]
    """
    values = _finite_values(x)
    xmin, xmax = _range(values)
    return _compute_breaks(values, breaks, xmin, xmax)[0]


def xname_of(x, default="x"):
    """The name a histogram of ``x`` is titled with (R's ``xname``): a pandas, polars or Dask
    Series' name, the column name of a one-column data frame, else ``default``.

    R's ``hist`` names the data by the expression passed (``deparse(substitute(x))``); Python
    has no such expression, so the name comes from the data's own label.

    Parameters
    ----------
    x : object
        The data of a histogram, as :func:`dppack.histogramDP` takes them.
    default : str, default "x"

    Returns
    -------
    str

    References
    ----------
    R Core Team, ``help(hist)``, argument ``xname``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import xname_of
    >>> import pandas as pd
    >>> xname_of(pd.Series([1.0], name="age")), xname_of([1.0])
    ('age', 'x')
    >>> xname_of(pd.DataFrame({"glu": [1.0]}))
    'glu'
    """
    name = None
    kind = type(x).__name__
    if _frames.is_named_frame(x):
        if kind in ("Series", "Index"):
            name = getattr(x, "name", None)
        elif kind == "DataFrame" and len(x.columns) == 1:
            name = list(x.columns)[0]
    elif _frames.is_pyarrow(x) and kind in ("Table", "RecordBatch") and x.num_columns == 1:
        name = x.column_names[0]
    if name is None or (isinstance(name, str) and not name):
        return default
    return str(name)


@dataclasses.dataclass(eq=False)
class Histogram:
    """The result of :func:`hist`: R's "histogram" object without ``density``.

    DPpack removes ``density`` from R's histogram before adding noise, so it is
    not part of this object; the fields are those of DPpack's result, in R's order.

    Attributes
    ----------
    breaks : ndarray of float
        The k + 1 break points; cell i is (breaks[i], breaks[i + 1]], the first one closed.
    counts : ndarray
        The k counts (int64 from :func:`hist`; DPpack's sanitized histograms hold floats).
    mids : ndarray of float
        The cell midpoints.
    xname : str, default "x"
        The name of the data, used by :meth:`plot`.
    equidist : bool, default True
        Whether the cells have equal widths (always True for computed breaks).

    Parameters
    ----------
    breaks, counts, mids, xname, equidist
        The attributes, in this order.

    References
    ----------
    R Core Team, ``help(hist)``, section Value, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import hist
    >>> h = hist([1.0, 2.0, 2.5, 3.0, 7.0])
    >>> h.counts.tolist(), h.mids.tolist()
    ([2, 2, 0, 1], [1.0, 3.0, 5.0, 7.0])
    """

    breaks: np.ndarray
    counts: np.ndarray
    mids: np.ndarray
    xname: str = "x"
    equidist: bool = True

    def __repr__(self):
        def show(array):
            return np.array2string(np.asarray(array), threshold=20, max_line_width=88)

        return (
            f"Histogram(xname={self.xname!r}, equidist={self.equidist}, "
            f"{len(self.counts)} cells)\n"
            f"  breaks: {show(self.breaks)}\n"
            f"  counts: {show(self.counts)}\n"
            f"  mids:   {show(self.mids)}"
        )

    def plot(self, ax=None, **kwargs):
        """Draw the histogram as bars over its cells, as R's ``plot(hist(x))`` does.

        A release of :func:`dppack.histogramDP` is titled with what it spent, e.g.
        "Private histogram of x, eps = 1 (pure DP)" (for ``which_sensitivity='both'``, the
        pair's total); a true histogram, "Histogram of x".

        Parameters
        ----------
        ax : matplotlib.axes.Axes, optional
            Where to draw; a new figure's axes by default.
        **kwargs
            Passed to :meth:`matplotlib.axes.Axes.bar` (defaults: light grey bars with black
            edges, as R's ``hist``).

        Returns
        -------
        matplotlib.axes.Axes

        Raises
        ------
        ImportError
            When matplotlib is not installed (``pip install dppack[plot]``).
        """
        try:
            import matplotlib.pyplot as plt
        except ImportError as exc:
            raise ImportError(
                "Histogram.plot needs matplotlib: pip install dppack[plot]"
            ) from exc
        if ax is None:
            _, ax = plt.subplots()
        breaks = np.asarray(self.breaks, dtype=np.float64)
        options = {"color": "lightgray", "edgecolor": "black", **kwargs}
        ax.bar(breaks[:-1], self.counts, width=np.diff(breaks), align="edge", **options)
        # A release of dppack.histogramDP carries what it spent: the title says so.
        privacy = getattr(self, "privacy_", None)
        ax.set_title(f"Histogram of {self.xname}" if privacy is None
                     else f"Private histogram of {self.xname}, {privacy}")
        ax.set_xlabel(self.xname)
        ax.set_ylabel("Frequency")
        return ax


def fuzz(breaks, span):
    """R's fuzz size of ``hist()``: how far the breaks are moved so that values on a break,
    rounded in their last bits, fall into the intended cell.

    1e-7 times the median cell width (more than 5 breaks), ``span`` (at most 3 breaks) or the
    smallest positive width (4 or 5 breaks).

    Parameters
    ----------
    breaks : ndarray of float
        The break points, increasing.
    span : float
        What R uses for 3 breaks or fewer: the range of the data in :func:`hist` (NaN for no
        data: no fuzz); :func:`dppack.histogramDP` passes the span of the breaks, so that the
        fuzz, and with it the cell of every value, does not depend on the other values.

    Returns
    -------
    float

    References
    ----------
    R Core Team, ``hist.default`` (its ``fuzz``), R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import fuzz
    >>> import numpy as np
    >>> fuzz(np.array([0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0]), span=1.0)  # 1e-7 * 10
    1e-06
    """
    widths = np.diff(breaks)
    if breaks.size > 5:
        return 1e-7 * float(np.median(widths))
    if breaks.size <= 3:
        return 0.0 if math.isnan(span) else 1e-7 * span
    positive = widths[widths > 0]
    # R's min() of nothing is Inf (with a warning): every value then falls in the first cell.
    return 1e-7 * float(positive.min()) if positive.size else math.inf


def is_equidistant(breaks):
    """R's ``equidist`` of user break points: the cell widths differ by less than 1e-7 times
    their mean (``diff(range(h)) < 1e-7 * mean(h)``; False for infinite widths, where R has
    NA).

    Parameters
    ----------
    breaks : ndarray of float
        The break points, increasing.

    Returns
    -------
    bool

    References
    ----------
    R Core Team, ``hist.default`` (its ``equidist``), R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import is_equidistant
    >>> import numpy as np
    >>> is_equidistant(np.array([0.0, 1.0, 2.0, 3.0])), is_equidistant(np.array([0.0, 1.0, 3.0]))
    (True, False)
    """
    widths = np.diff(breaks)
    return bool(
        np.all(np.isfinite(widths))
        and np.ptp(widths) < 1e-7 * (math.fsum(widths) / widths.size)
    )


_BLOCK = 1 << 14  # values per block: the per-block temporaries stay in the CPU cache


def _affine_model(points, fuzzy, xmin, xmax):
    """(origin, width) such that the inner fuzzy breaks are origin + k * width up to well under
    a quarter of a cell, or None.

    Then the cell of x is floor((x - origin) / width) up to one, which two comparisons with the
    exact fuzzy breaks settle. The bound covers the breaks' deviation from equal spacing and
    the rounding of (x - origin) / width, so the shortcut never changes a count.
    """
    cells = points.size - 1
    if cells < 3 or not np.all(np.isfinite(points)):
        return None
    width = (points[-1] - points[0]) / cells
    if not (math.isfinite(width) and width > 0):
        return None
    origin = fuzzy[1] - width
    model = origin + np.arange(1, cells) * width
    deviation = float(np.max(np.abs(fuzzy[1:-1] - model)))
    magnitude = max(abs(points[0]), abs(points[-1]), abs(xmin), abs(xmax))
    slack = (deviation + 16 * sys.float_info.epsilon * magnitude) / width
    return (origin, width) if slack < 0.25 else None


def _bin_counts(points, fuzzy, values, xmin, xmax):
    """Counts of the cells (fuzzy[i], fuzzy[i + 1]], the first one closed; every value lies in
    [fuzzy[0], fuzzy[-1]].

    The cell of x is the number of inner fuzzy breaks strictly below it. For (nearly) equally
    spaced breaks it is computed arithmetically and corrected by one where the exact comparison
    says so; otherwise by binary search (searchsorted, side "left"). Both are exact.
    """
    cells = fuzzy.size - 1
    counts = np.zeros(cells, dtype=np.int64)
    if cells == 1:
        counts[0] = values.size
        return counts
    model = _affine_model(points, fuzzy, xmin, xmax)
    if model is None:
        inner = fuzzy[1:-1]
        for start in range(0, values.size, _BLOCK):
            index = np.searchsorted(inner, values[start : start + _BLOCK], side="left")
            counts += np.bincount(index, minlength=cells)
        return counts
    origin, width = model
    scale = 1.0 / width
    # Cell j is (lower[j], upper[j]]: the outer bounds are open so the correction cannot leave
    # the first or last cell.
    lower = np.concatenate(([-np.inf], fuzzy[1:-1]))
    upper = np.concatenate((fuzzy[1:-1], [np.inf]))
    for start in range(0, values.size, _BLOCK):
        block = values[start : start + _BLOCK]
        index = ((block - origin) * scale).astype(np.intp)
        np.clip(index, 0, cells - 1, out=index)
        index -= block <= lower[index]
        index += block > upper[index]
        counts += np.bincount(index, minlength=cells)
    return counts


def hist(x, breaks="Sturges", xname="x"):
    """R's ``hist(x, breaks, plot = FALSE)``, without the density.

    Cells are right-closed, (b[i-1], b[i]], the first one closed (R's ``right = TRUE,
    include.lowest = TRUE``). Values are compared with R's "fuzzy" breaks, so that data on a
    break point rounded in the last bits still land in the intended cell: every break but the
    first is raised, and the first lowered, by 1e-7 times the median cell width (more than 5
    breaks), the data range (at most 3 breaks) or the smallest positive width (4 or 5 breaks).

    Parameters
    ----------
    x : array_like of float
        The data; non-finite values are dropped, as R does.
    breaks : str, float, array_like or callable, default "Sturges"
        See :func:`hist_breaks`.
    xname : str, default "x"
        Stored in the result (DPpack's histograms always say "x").

    Returns
    -------
    Histogram
        ``breaks``, ``counts`` (int64), ``mids`` and ``equidist``: True for computed breaks,
        and for user breaks whose widths differ by less than 1e-7 times their mean.

    Raises
    ------
    ValueError
        "some 'x' not counted; maybe 'breaks' do not span range of 'x'" when user breaks do not
        cover the data, and the errors of :func:`hist_breaks`.

    Notes
    -----
    Repeated user break points are accepted, as in R, and give empty zero-width cells. R's
    ``equidist`` is NA for infinite break points; it is False here.

    References
    ----------
    R Core Team, ``help(hist)``, R 4.2.2.

    Examples
    --------
    R's ``hist(c(1, 2, 2.5, 3, 7), plot = FALSE)``:

    >>> from dppack.rcompat import hist
    >>> h = hist([1.0, 2.0, 2.5, 3.0, 7.0])
    >>> h.breaks.tolist(), h.counts.tolist()
    ([0.0, 2.0, 4.0, 6.0, 8.0], [2, 2, 0, 1])
    >>> h = hist([1.0, 2.0, 2.5, 3.0, 7.0], breaks=[0, 5, 10])
    >>> h.counts.tolist(), h.equidist
    ([4, 1], True)
    """
    values = _finite_values(x)
    xmin, xmax = _range(values)
    points, user = _compute_breaks(values, breaks, xmin, xmax)
    equidist = is_equidistant(points) if user else True
    counts = cell_counts(values, points, fuzz(points, xmax - xmin), xmin, xmax)
    mids = 0.5 * (points[1:] + points[:-1])
    return Histogram(points, counts, mids, xname, equidist)


def cell_counts(values, breaks, diddle, xmin, xmax):
    """Counts of ``values`` in the cells of ``breaks`` as R's ``hist()`` counts them.

    Cells are right-closed, (b[i-1], b[i]], the first one closed, compared with the fuzzy
    breaks: every break but the first raised, and the first lowered, by ``diddle``.

    Parameters
    ----------
    values : ndarray of float
        Finite values.
    breaks : ndarray of float
        The break points, increasing.
    diddle : float
        The fuzz, see :func:`fuzz`.
    xmin, xmax : float
        The range of ``values`` (NaN when empty).

    Returns
    -------
    ndarray of int64

    Raises
    ------
    ValueError
        "some 'x' not counted; maybe 'breaks' do not span range of 'x'" when the fuzzy breaks
        do not cover the values.

    References
    ----------
    R Core Team, ``help(hist)`` (``right = TRUE``, ``include.lowest = TRUE``), R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import cell_counts, fuzz
    >>> import numpy as np
    >>> values = np.array([1.0, 2.0, 2.5, 3.0, 7.0])
    >>> breaks = np.array([0.0, 2.0, 4.0, 6.0, 8.0])
    >>> cell_counts(values, breaks, fuzz(breaks, 6.0), 1.0, 7.0).tolist()  # 2.0 in (0, 2]
    [2, 2, 0, 1]
    """
    fuzzy = breaks + diddle
    fuzzy[0] = breaks[0] - diddle
    if values.size and not (fuzzy[0] <= xmin and xmax <= fuzzy[-1]):
        raise ValueError(_NOT_COUNTED)
    return _bin_counts(breaks, fuzzy, values, xmin, xmax)


# --------------------------------------------------------------------------------------------
# factor() and table()


def _missing_mask(array):
    kind = array.dtype.kind
    if kind in "fc":
        return np.isnan(array)
    if kind in "mM":
        return np.isnat(array)
    if kind == "O":
        import pandas as pd  # a dependency of dppack; only object arrays need it

        return np.asarray(pd.isna(array), dtype=bool)
    return None


def has_declared_levels(x):
    """Whether ``x`` declares its levels: a ``pandas.Categorical``, or a categorical Series or
    Index, whose categories are the levels whether observed or not (R's factor levels reach
    the core as such a Categorical); a polars Enum or a pyarrow dictionary array likewise
    (:func:`dppack._frames.declares_levels`). Any other data have only their observed values.

    Parameters
    ----------
    x : object
        A factor, as :func:`factorize` takes it.

    Returns
    -------
    bool

    References
    ----------
    R Core Team, ``help(factor)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import has_declared_levels
    >>> import pandas as pd
    >>> has_declared_levels(pd.Categorical(["a"], categories=["a", "b"]))
    True
    >>> has_declared_levels(["a"])
    False
    """
    return _frames.declares_levels(x)


def factorize(x):
    """Codes and levels of ``x`` with R's ``factor()`` level set.

    Parameters
    ----------
    x : array_like, pandas.Series or pandas.Categorical, polars or pyarrow series
        One-dimensional. A ``pandas.Categorical`` (or a categorical Series or Index), a polars
        Enum or a pyarrow dictionary array keeps all its categories, in their order, used or
        not, as R keeps factor levels (:mod:`dppack._frames`). Anything else
        gets its sorted distinct values: numbers numerically, strings in code-point order.
        R sorts character levels in the collation of the locale (``"a" < "B"`` in en_US,
        ``"B" < "a"`` in C), so the R wrapper passes factors with R's own levels, and Python
        callers who need a particular order pass a Categorical. Floats that R's
        ``as.character()`` prints alike, i.e. equal to 15 significant digits (``0.1 + 0.2`` and
        ``0.3``), are one level, as in R; the level is the smallest of them.

    Returns
    -------
    codes : ndarray of int64
        For each element, the 0-based index of its level.
    levels : list
        The levels, as Python scalars.

    Raises
    ------
    ValueError
        For missing values (None, NaN, NaT, pandas.NA, a Categorical code -1). R's ``table``
        drops them; DPpackPy refuses them, so that the table's total is the data size. Also
        for data that are not one-dimensional.
    TypeError
        For values that cannot be ordered (strings mixed with numbers).

    References
    ----------
    R Core Team, ``help(factor)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import factorize
    >>> codes, levels = factorize(["b", "a", "b"])
    >>> codes.tolist(), levels
    ([1, 0, 1], ['a', 'b'])
    >>> import pandas as pd
    >>> factorize(pd.Categorical(["b"], categories=["a", "b", "c"]))[1]  # declared levels
    ['a', 'b', 'c']
    >>> factorize([0.1 + 0.2, 0.3, 1.0])[1]  # equal to 15 digits: one level, as in R
    [0.3, 1.0]
    """
    x = _frames.as_factor(x)
    if has_declared_levels(x):
        import pandas as pd

        categorical = pd.Categorical(x)
        codes = np.asarray(categorical.codes, dtype=np.int64)
        if np.any(codes < 0):
            raise ValueError(MISSING_FACTOR)
        return codes, categorical.categories.tolist()

    array = _frames.to_numpy(x)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise ValueError("A factor must be one-dimensional.")
    missing = _missing_mask(array)
    if missing is not None and np.any(missing):
        raise ValueError(MISSING_FACTOR)
    try:
        levels, codes = np.unique(array, return_inverse=True)
    except TypeError:
        raise TypeError(
            "Cannot order the values of a factor of mixed types; convert them to one type "
            "or pass a pandas.Categorical with explicit categories."
        ) from None
    codes = codes.reshape(-1).astype(np.int64, copy=False)
    if levels.dtype.kind == "f":
        levels, codes = _merge_alike_numbers(levels, codes)
    return codes, levels.tolist()


def _merge_alike_numbers(levels, codes):
    """Merge sorted float levels that R's factor() cannot tell apart.

    R's levels are ``as.character()`` of the sorted distinct values, 15 significant digits,
    and equal strings are one level. Two doubles with the same 15 digits differ by less than
    1e-14 relatively, so only such neighbours are formatted and compared.
    """
    if levels.size < 2:
        return levels, codes
    left, right = levels[:-1], levels[1:]
    with np.errstate(invalid="ignore"):
        close = np.abs(right - left) <= 1e-14 * np.maximum(np.abs(left), np.abs(right))
    candidates = np.flatnonzero(close)
    if candidates.size == 0:
        return levels, codes
    same = np.zeros(levels.size - 1, dtype=bool)
    same[candidates] = [f"{levels[i]:.15g}" == f"{levels[i + 1]:.15g}" for i in candidates]
    group = np.concatenate(([0], np.cumsum(~same)))
    first = np.flatnonzero(np.concatenate(([True], ~same)))
    return levels[first], group[codes]


MISSING_FACTOR = (
    "Factors must not contain missing values (None, NaN, NA): DPpackPy refuses them in "
    "tables instead of dropping them as R's table() does."
)


def table(*factors):
    """R's ``table(...)``: counts of every combination of the levels of one or more factors.

    Parameters
    ----------
    *factors : array_like, pandas.Series or pandas.Categorical, polars or pyarrow series
        One or more factors of equal length; levels as in :func:`factorize`.

    Returns
    -------
    counts : ndarray of int64
        Shape (L1, ..., Lk); ``counts[i1, ..., ik]`` is the number of rows whose factors take
        levels ``levels[0][i1], ..., levels[k-1][ik]``. Unobserved combinations are 0 cells.
        Indexed like R's table array (R stores it column-major, numpy row-major; the R
        wrapper converts).
    levels : list of lists
        The levels of each factor, R's ``dimnames``.

    Raises
    ------
    ValueError
        "nothing to tabulate" without factors, "all arguments must have the same length" (R's
        texts), and the errors of :func:`factorize`.

    References
    ----------
    R Core Team, ``help(table)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import table
    >>> counts, levels = table(["a", "b", "a"], [1, 1, 2])
    >>> counts.tolist(), levels
    ([[1, 1], [1, 0]], [['a', 'b'], [1, 2]])
    """
    coded = _code_factors(factors)
    return tally([codes for codes, _ in coded], [levels for _, levels in coded])


def tally(codes, levels, weights=None, observed=False):
    """The counts of coded factors: :func:`table` (``observed`` False) or
    :func:`observed_cells` (``observed`` True) from the codes of each factor, their levels
    and, optionally, the number of rows ``weights`` that each coded row stands for (the Dask
    table passes the distinct combinations of its pass and their counts).

    Examples
    --------
    >>> import numpy as np
    >>> counts, levels = tally([np.array([0, 1])], [["a", "b"]], weights=np.array([3, 1]))
    >>> counts.tolist(), levels
    ([3, 1], [['a', 'b']])
    """
    shape = tuple(len(level) for level in levels)
    if observed:
        return _observed(codes, levels, shape, weights)
    cells = math.prod(shape)
    if codes[0].size == 0 or cells == 0:
        return np.zeros(shape, dtype=np.int64), levels
    flat = np.ravel_multi_index(tuple(codes), shape)
    counts = np.bincount(flat, weights=weights, minlength=cells).astype(np.int64, copy=False)
    return counts.reshape(shape), levels


def _code_factors(factors):
    """:func:`factorize` of every factor, after R's checks of ``table()``'s arguments."""
    if not factors:
        raise ValueError("nothing to tabulate")
    coded = [factorize(f) for f in factors]
    size = coded[0][0].size
    if any(codes.size != size for codes, _ in coded):
        raise ValueError("all arguments must have the same length")
    return coded


def observed_cells(*factors):
    """The observed cells of the contingency table of the factors, and their counts.

    Unlike :func:`table`, which counts every combination of levels (most of them empty for
    factors with many levels), this lists only the combinations that occur in the data.

    Parameters
    ----------
    *factors : array_like, pandas.Series or pandas.Categorical, polars or pyarrow series
        One or more factors of equal length; levels as in :func:`factorize`.

    Returns
    -------
    cells : tuple of ndarray of int64
        One array per factor, of length m (the number of observed combinations): cell j is
        the combination of levels ``levels[0][cells[0][j]], ..., levels[k-1][cells[k-1][j]]``.
        The cells come in R's column-major order of the full table (the first factor varying
        fastest), so that the j-th noise draw lands on the same cell in R and in Python.
    counts : ndarray of int64
        The number of rows in each cell, all >= 1.
    levels : list of lists
        The levels of each factor, as :func:`factorize` gives them.

    Raises
    ------
    ValueError
        As :func:`table`.

    References
    ----------
    R Core Team, ``help(table)``, R 4.2.2.

    Examples
    --------
    The three observed cells of the 2 x 2 table above, in R's order (first factor fastest):

    >>> from dppack.rcompat import observed_cells
    >>> cells, counts, levels = observed_cells(["a", "b", "a"], [1, 1, 2])
    >>> [c.tolist() for c in cells], counts.tolist()
    ([[0, 1, 0], [0, 0, 1]], [1, 1, 1])
    """
    coded = _code_factors(factors)
    return tally([codes for codes, _ in coded], [levels for _, levels in coded], observed=True)


def _observed(codes, levels, shape, weights):
    """:func:`observed_cells` of coded factors, each row standing for ``weights`` rows (1 if
    None)."""
    if codes[0].size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return tuple(empty for _ in codes), empty, levels
    if math.prod(shape) < 2**62:
        # One int64 key per row, in column-major order (first factor fastest), as R's table.
        keys = np.ravel_multi_index(tuple(codes), shape, order="F")
        keys, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        cells = np.unravel_index(keys, shape, order="F")
    else:
        # Too many combinations for one int64 key: sort the rows, last factor slowest.
        rows, inverse, counts = np.unique(np.column_stack(codes[::-1]), axis=0,
                                          return_inverse=True, return_counts=True)
        cells = tuple(rows[:, ::-1].T)
    if weights is not None:  # rows that stand for several (merged float levels add up)
        counts = np.bincount(inverse.reshape(-1), weights=weights, minlength=counts.size)
    cells = tuple(np.asarray(c, dtype=np.int64) for c in cells)
    return cells, counts.astype(np.int64, copy=False), levels
