"""R's rounding, ``pretty()`` and the numbers of classes ``nclass.*`` (R 4.2.2)."""

import math
import sys
import warnings

import numpy as np

from .. import _checks


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

# --------------------------------------------------------------------------------------------
# Rounding


def round_half_even(x):
    """R's ``round(x)`` (0 digits): halves go to the even neighbour (``numpy.rint``).

    Parameters
    ----------
    x : float or array_like of float

    Returns
    -------
    float or ndarray
        A float for a scalar, else a float ndarray of the same shape.

    References
    ----------
    R Core Team, ``help(round)``, R 4.2.2; IEEE 754 round-half-even.

    Examples
    --------
    >>> from dppack.rcompat._pretty import round_half_even
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
    """R's R_pretty(): the bounds l <= lo, u >= up on multiples of a unit (1, 2, 5 or 10 times a
    power of ten, chosen with R's biases) and the number of intervals.
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
    """R's ``pretty(c(low, high), n, min.n)``: about n + 1 equally spaced round values covering
    [low, high], with R's default biases.

    Parameters
    ----------
    low, high : float
        The range to cover, in any order; non-finite values are ignored, as in R.
    n : int, default 5
        Desired number of intervals, >= 0 (fractions truncated).
    min_n : int, optional
        Minimal number of intervals, 0 <= min_n <= n; default ``n // 3``.

    Returns
    -------
    ndarray of float
        The break points, increasing; empty when neither bound is finite.

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


def finite_values(x, name="x"):
    values = _checks.as_numeric_array(x, f"'{name}' must be numeric").ravel()
    return values if np.all(np.isfinite(values)) else values[np.isfinite(values)]


def _all_finite(x):
    """``x`` as a flat float array, refused unless numeric and all finite."""
    values = _checks.as_numeric_array(x, "'x' must be numeric").ravel()
    if not np.all(np.isfinite(values)):
        raise ValueError("'x' must be finite (no NA, NaN or Inf).")
    return values


def _quantile7(order_stat, n, prob):
    """R's ``quantile(x, prob, type = 7)`` (a tie gives the tied value exactly, as R)."""
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
    """10^exponent by binary powering in double: R's ``signif()`` to the bit."""
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
        The data; only its length is used.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For empty ``x``.

    References
    ----------
    Sturges (1926), The choice of a class interval, JASA 21, 65-66. R Core Team,
    ``help(nclass.Sturges)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._pretty import nclass_sturges
    >>> int(nclass_sturges(range(100)))  # ceiling(log2(100) + 1)
    8
    """
    n = np.size(x)
    if n == 0:
        raise ValueError("'x' must contain at least one value.")
    return int(math.ceil(math.log2(n) + 1))


def scott_cells(values):
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
    """Scott's number of classes, R's ``nclass.scott``: max(1, ceiling(range / h)) with
    h = 3.5 sd(x) n^(-1/3); 1 when sd(x) = 0.

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
        For non-numeric x, non-finite values or fewer than two values.

    References
    ----------
    Scott (1979), On optimal and data-based histograms, Biometrika 66, 605-610. R Core Team,
    ``help(nclass.scott)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._pretty import nclass_scott
    >>> int(nclass_scott(list(range(100))))
    5
    """
    return scott_cells(_all_finite(x))


def fd_cells(values):
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
    return scott_cells(values)


def _ranks(n, prob):
    """The 1-based order statistics R's type-7 quantile reads."""
    index = 1 + (n - 1) * prob
    return math.floor(index), math.ceil(index)


def nclass_fd(x):
    """Freedman-Diaconis number of classes, R's ``nclass.FD(x, digits = 5)``: h = 2 IQR n^(-1/3)
    on x rounded to 5 significant digits (a zero IQR widened as R does, then Scott's rule).

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
    Freedman and Diaconis (1981), Z. Wahrscheinlichkeitstheorie verw. Gebiete 57, 453-476.
    R Core Team, ``help(nclass.FD)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._pretty import nclass_fd
    >>> int(nclass_fd(list(range(100))))
    5
    """
    return fd_cells(_all_finite(x))


