"""The power-of-two grid: its exponents, grid units, and the release g (round(x / g) + z)."""

import math

import numpy as np

from ._coins import _fraction


GRID_BITS = 12  # the default of grid_exponent: g <= scale / 2^12
GAUSSIAN_GRID_BITS = 13  # scalar: g <= sigma / 2^13, s < 2^14 (the calibration's tail sums are O(s))
GAUSSIAN_FINE_BITS = 19  # vector: g >= sigma / 2^20, s < 2^20 (the sampler's int64 range is s <~ 2^28)
LAPLACE_GRID_BITS = 20  # g <= min(b, Delta / (m + 1)) / 2^20, while b / g <= 2^36
LAPLACE_MAX_BITS = 36
UTILITY_GRID_BITS = 20  # exponential mechanism: utilities on h <= Delta / 2^20


def grid_exponent(scale, bits=GRID_BITS):
    """The exponent k of the grid g = 2^k: the largest power of two with g <= scale / 2^bits.

    Parameters
    ----------
    scale : float
        Positive and finite (a noise scale, or a sensitivity).
    bits : int, default 12
        How many halvings below ``scale`` the grid lies.

    Returns
    -------
    int
        k = floor(log2(scale)) - bits, so that scale / 2^(bits + 1) < g <= scale / 2^bits
        (k is read exactly from the float's exponent); at least -1074, the exponent of the
        smallest positive double.

    Notes
    -----
    The largest such power keeps the integers of the samplers smallest, which is what the
    discrete Gaussian needs (its general acceptance exponent is in int64 for sigma below
    2^14 grid units); rounding a value to the grid moves it by at most g/2 <= scale / 2^13.
    """
    scale = float(scale)
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError("scale must be positive and finite.")
    return max(math.frexp(scale)[1] - 1 - int(bits), -1074)


def grid_units(sensitivity, k, coordinates=1):
    """The sensitivity in grid units after rounding: ceil(Delta / 2^k) + ``coordinates``.

    Rounding moves each value by at most half a grid step, so two neighbouring values that
    differ by at most Delta round to integers (in grid units) that differ by at most
    floor(Delta / g) + 1 <= ceil(Delta / g) + 1. For a vector with L1 sensitivity Delta, each
    of the ``coordinates`` entries that can differ between neighbours adds at most one step.
    """
    return math.ceil(math.ldexp(float(sensitivity), -k)) + int(coordinates)


def _times_power_of_two(x, k, out=None):
    """x 2^k: a multiplication by the double 2^k (exact where the result is representable,
    which covers the grid values here: multiples of 2^k of magnitude below 2^(k + 53)), or
    ``np.ldexp`` when 2^k itself is not a normal double."""
    if -1000 <= k <= 1000:
        return np.multiply(x, math.ldexp(1.0, k), out=out)
    return np.ldexp(x, k, out=out)


def _release(values, noise, k):
    """g (round(x / g) + z) as floats, g = 2^k: the released values.

    round(x / g) is exact in floating point (x / g only shifts the exponent; a value with
    |x / g| >= 2^52 is already a multiple of g and is kept, also when x / g would overflow).
    The sum v + g z of two multiples of g is one correctly rounded operation on the exact
    dyadic number g (V + Z), so the float released is a function of the integer V + Z alone:
    post-processing of the private integer (exact whenever |V + Z| < 2^53). Noise values of
    2^53 or more (never, for the scales here) take the same path in exact rational arithmetic.
    """
    x = np.asarray(values, dtype=np.float64)
    flat = x.ravel()
    if flat.size <= _FEW_VALUES and -1000 <= k <= 1000 and noise.dtype != object:
        small = _release_few(flat.tolist(), noise.tolist(), k)
        if small is not None:
            return np.array(small).reshape(x.shape)
    with np.errstate(over="ignore"):
        grid = _times_power_of_two(flat, -k)
    finite = None  # None: every x / g is finite
    if flat.size and not (grid.max() < np.inf and grid.min() > -np.inf):
        finite = np.isfinite(grid)
    np.rint(grid, out=grid)  # in place: large arrays are costly to allocate
    grid = _times_power_of_two(grid, k, out=grid)
    if finite is not None:
        grid = np.where(finite, grid, flat)
    exact = noise
    wide = []
    if noise.dtype == object or (noise.size and max(-noise.min(), noise.max()) >= 2 ** 53):
        wide = [i for i, z in enumerate(noise.tolist()) if abs(z) >= 2 ** 53]
        noise = noise.copy()
        noise[wide] = 0
        noise = noise.astype(np.int64)
    out = noise.astype(np.float64)
    _times_power_of_two(out, k, out=out)
    out += grid
    step = _fraction(2) ** k
    for i in wide:
        out[i] = float((_fraction(float(grid[i])) / step + int(exact[i])) * step)
    return out.reshape(x.shape)


_FEW_VALUES = 32  # up to this many values, _release works on Python floats (faster there)


def _release_few(values, noise, k):
    """:func:`_release` on Python floats and integers, the same operations value by value
    (IEEE products by the doubles 2^-k and 2^k, round half to even, one sum), for a few
    values and |noise| < 2^53; None otherwise.

    ``float(round(y))`` is ``np.rint(y)`` for finite y (half to even; the sign of a zero may
    differ, and is lost in the sum with the noise, g z = +0 when z = 0); a product that
    overflows is infinite in both, and that value is kept unrounded as in :func:`_release`.
    """
    down, up = math.ldexp(1.0, -k), math.ldexp(1.0, k)
    out = []
    for value, z in zip(values, noise):
        if not -_WIDE < z < _WIDE:
            return None
        scaled = value * down
        on_grid = float(round(scaled)) * up if -math.inf < scaled < math.inf else value
        out.append(float(z) * up + on_grid)
    return out


_WIDE = 2 ** 53


def release_on_grid(values, noise, k):
    """g (round(x / g) + z) entrywise, g = 2^k, for integer noise ``noise`` (one per entry of
    ``values``, flat): the release of :func:`discrete_laplace_noise` with the integer noise
    drawn by the caller (e.g. the noise-reduction paths). The floats released are functions
    of the integers round(x / g) + z only (see ``_release``).

    Examples
    --------
    >>> release_on_grid([0.3, -1.0], np.array([1, 2]), -2).tolist()
    [0.5, -0.5]
    """
    x = np.asarray(values, dtype=np.float64)
    return _release(x, np.asarray(noise).ravel(), int(k))


def release_path_on_grid(values, path, k, out=None):
    """Rows g (round(x / g) + z_t) of an integer ``path`` (T, size) for the values x (size):
    :func:`release_on_grid` of each row, with round(x / g) computed once (the same float
    operations entrywise, so the same floats). Paths with an entry of 2^53 or more, values
    whose x / g overflows, or few values take :func:`release_on_grid` row by row. ``out``:
    a float64 array of the path's shape to write the rows into (returned).

    Examples
    --------
    >>> release_path_on_grid([0.3, -1.0], np.array([[1, 2], [0, 0]]), -2).tolist()
    [[0.5, -0.5], [0.25, -1.0]]
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    path = np.asarray(path)
    k = int(k)
    if (0 < x.size <= _FEW_VALUES and -1000 <= k <= 1000 and path.dtype != object
            and (path.size == 0 or max(-int(path.min()), int(path.max())) < _WIDE)):
        # _release_few's operations, round(x / g) once
        down, up = math.ldexp(1.0, -k), math.ldexp(1.0, k)
        grid = []
        for value in x.tolist():
            scaled = value * down
            grid.append(float(round(scaled)) * up if -math.inf < scaled < math.inf else value)
        rows = path.reshape(-1, x.size)
        result = np.empty(rows.shape) if out is None else out.reshape(rows.shape)
        # float(z) * up + v entrywise (float(z) exact: |z| < 2^53): the same two IEEE
        # operations
        if k > 900:
            with np.errstate(over="ignore"):
                np.multiply(rows, up, out=result)
        else:
            np.multiply(rows, up, out=result)
        result += np.array(grid)
        return result.reshape(path.shape) if out is None else out
    simple = (x.size > _FEW_VALUES and -1000 <= k <= 1000 and path.dtype != object
              and (path.size == 0 or max(-int(path.min()), int(path.max())) < _WIDE))
    if simple:
        simple = _scales_finitely(x, k)
        if simple:
            grid = _times_power_of_two(x, -k)
        else:
            with np.errstate(over="ignore"):
                grid = _times_power_of_two(x, -k)
            simple = bool(grid.size == 0 or (grid.max() < np.inf and grid.min() > -np.inf))
    if not simple:
        rows = np.stack([_release(x, np.asarray(row).ravel(), k) for row in path])
        if out is None:
            return rows
        out[...] = rows
        return out
    np.rint(grid, out=grid)
    grid = _times_power_of_two(grid, k, out=grid)
    result = np.empty(path.shape) if out is None else out
    _times_power_of_two(path, k, out=result)  # float(z) 2^k: the same floats as astype
    result += grid
    return result


def _scales_finitely(x, k):
    """Whether x 2^-k is finite for every value of the finite array ``x`` (-1000 <= k <=
    1000), checked before the product (no floating-point state to set): the scaling is exact
    while normal, so it overflows iff |x| >= 2^(1024 + k); False when unsure."""
    if not -1000 <= k <= 1000:
        return False
    if k >= 0 or not x.size:
        return bool(x.size == 0 or (x.max() < np.inf and x.min() > -np.inf))
    limit = math.ldexp(1.0, 1024 + k)
    return bool(x.max() < limit and x.min() > -limit)


def grid_values(values, k):
    """g round(x / g) entrywise (flat), g = 2^k: the rounded values of :func:`_release`
    (a value whose x / g overflows kept as it is), for :func:`release_with_grid`."""
    x = np.asarray(values, dtype=np.float64).ravel()
    k = int(k)
    finite = None
    if _scales_finitely(x, k):
        grid = _times_power_of_two(x, -k)
    else:
        with np.errstate(over="ignore"):
            grid = _times_power_of_two(x, -k)
        if grid.size and not (grid.max() < np.inf and grid.min() > -np.inf):
            finite = np.isfinite(grid)
    np.rint(grid, out=grid)
    grid = _times_power_of_two(grid, int(k), out=grid)
    return grid if finite is None else np.where(finite, grid, x)


def release_with_grid(values, grid, noise, k):
    """:func:`release_on_grid` (values, noise, k) with ``grid`` = :func:`grid_values`
    (values, k) computed once by the caller: the same floats (g z + g round(x / g), one
    correctly rounded sum of two multiples of g; |z| >= 2^53 or an extreme k take
    :func:`release_on_grid` itself).

    Examples
    --------
    >>> x = [0.3, -1.0]
    >>> release_with_grid(x, grid_values(x, -2), np.array([1, 2]), -2).tolist()
    [0.5, -0.5]
    """
    noise = np.asarray(noise).ravel()
    k = int(k)
    if (noise.dtype == object or not -1000 <= k <= 1000
            or (noise.size and max(-int(noise.min()), int(noise.max())) >= _WIDE)):
        return release_on_grid(values, noise, k)
    out = noise.astype(np.float64)
    _times_power_of_two(out, k, out=out)
    out += grid
    return out.reshape(np.shape(values))


_CUMSUM_COLUMNS = 64  # up to this many columns, one cumsum; beyond, row by row (faster there)


def accumulate_rows(steps):
    """Row i of the 2-d array ``steps`` becomes the sum of its rows 0..i, in place: the
    integer paths of noise reduction from their increments (the same integers either way).

    Examples
    --------
    >>> a = np.array([[1, 2], [3, 4], [5, 6]])
    >>> accumulate_rows(a).tolist()
    [[1, 2], [4, 6], [9, 12]]
    """
    if steps.shape[1] <= _CUMSUM_COLUMNS:
        return np.cumsum(steps, axis=0, out=steps)
    for i in range(1, steps.shape[0]):
        np.add(steps[i], steps[i - 1], out=steps[i])
    return steps
