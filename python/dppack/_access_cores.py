"""The checks and cores of :mod:`dppack.data_access`: DPpack's checks of ``mechanism``,
``quant`` and the samples, and each formula from sufficient statistics to a true value and
its sensitivity, written once for in-memory and Dask data.
"""

import functools
import math
from fractions import Fraction

import numpy as np

from . import _backends, _checks, _exact_sums, _frames, _messages

MECHANISMS = ("Laplace", "Gaussian", "analytic")
MECHANISM_MESSAGE = "Mechanism must be one of {'Laplace', 'Gaussian', 'analytic'}."
QUANT_MESSAGE = "quant must be between 0 and 1."
# The data checks of the pooled statistics and of covDP, in memory and on Dask
# (dppack.dask._moments): (vector, two-column matrix) where the two differ.
SAMPLES_MESSAGE = "At least one sample is required."
SAMPLE_SHAPE_MESSAGES = ("Every sample must be a numeric vector.",
                         "Every sample must be a numeric matrix with two columns.")
SAMPLE_SIZE_MESSAGES = ("Every sample must contain at least two values.",
                        "Every sample must contain at least two rows.")
SAMPLES_FINITE_MESSAGE = "Samples must be finite (no NA, NaN or Inf)."
SAME_LENGTH_MESSAGE = "x1 and x2 must have the same length."


def check_mechanism(mechanism):
    """DPpack's check of ``mechanism`` for the additive-noise statistics."""
    return _checks.check_choice(mechanism, "mechanism", MECHANISMS, MECHANISM_MESSAGE)


def check_quant(quant):
    """``quant`` as a float in [0, 1], else DPpack's message (ours for a length other than 1)."""
    if quant is not None:  # NULL gets DPpack's message
        _checks.check_bound_length(quant, "quant")
    return _checks.check_number(quant, "quant", 0, 1, message=QUANT_MESSAGE)


def check_samples(samples, columns=None, min_size=2):
    """Validate the samples of a pooled statistic (vectors, or ``columns=2`` two-column matrices,
    of at least ``min_size`` rows); return ``(arrays, lows, highs)``, each sample's range. All
    checks are ours (DPpack has none).
    """
    samples = list(samples)
    if not samples:
        raise _messages.value_error(SAMPLES_MESSAGE)
    shape_message = SAMPLE_SHAPE_MESSAGES[columns is not None]
    size_message = SAMPLE_SIZE_MESSAGES[columns is not None]
    arrays, lows, highs = [], [], []
    for sample in samples:
        array = _checks.as_numeric_array(sample, shape_message)
        if columns is None:
            if array.ndim > 1:
                raise _messages.value_error(shape_message)
            array = array.reshape(-1)
        elif array.ndim != 2 or array.shape[1] != columns:
            raise _messages.value_error(shape_message)
        if array.shape[0] < min_size:
            raise _messages.value_error(size_message)
        if columns is None:
            low, high = _checks.data_range(array)
        elif array.shape[0] == 0:  # nothing to clip
            low, high = np.full(columns, np.inf), np.full(columns, -np.inf)
        else:
            low, high = array.min(axis=0), array.max(axis=0)
        if array.size and not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
            raise _messages.value_error(SAMPLES_FINITE_MESSAGE)
        arrays.append(array)
        lows.append(low)
        highs.append(high)
    return arrays, lows, highs


# --------------------------------------------------------------------------------------------
# Cores: validated data in, DPpack's dict out
# --------------------------------------------------------------------------------------------


# Blocks of 64 Ki doubles (512 KiB) stay in cache: clipping or centring a block in a reused
# buffer and reducing it costs one pass over memory and no copy of the data.
_BLOCK = 1 << 16


def _block_sum(flat, lower, upper):
    """Sum of ``flat`` clipped to [lower, upper], one cached block at a time."""
    buffer = np.empty(min(flat.size, _BLOCK))
    total = 0.0
    for start in range(0, flat.size, _BLOCK):  # a loop over blocks, not rows
        block = flat[start:start + _BLOCK]
        out = buffer[:block.size]
        np.maximum(block, lower, out=out)
        np.minimum(out, upper, out=out)
        total += float(np.add.reduce(out))
    return total


def _centred_blocks(flat, centre, clip=None):
    """The values of ``flat`` (clipped to ``clip`` first) minus ``centre``, by cached blocks."""
    buffer = np.empty(min(flat.size, _BLOCK))
    for start in range(0, flat.size, _BLOCK):
        block = flat[start:start + _BLOCK]
        out = buffer[:block.size]
        if clip is None:
            np.subtract(block, centre, out=out)
        else:
            np.maximum(block, clip[0], out=out)
            np.minimum(out, clip[1], out=out)
            np.subtract(out, centre, out=out)
        yield out


def _block_squares(flat, centre, clip=None):
    """Sum of (value - centre)^2 over ``flat`` (clipped to ``clip`` first), by blocks."""
    total = 0.0
    for out in _centred_blocks(flat, centre, clip):
        total += float(np.dot(out, out))
    return total


def _total(flat, lower, upper, clip, total):
    """Sum of ``flat`` (clipped if ``clip``), or ``total`` when the caller has it already."""
    if total is not None:
        return total
    if clip:
        return _block_sum(flat, lower, upper)
    return float(np.add.reduce(flat))  # numpy.mean's sum


def mean_access(x, lower, upper, clip=False, total=None):
    """meanDataAccess on validated data: the mean (of x clipped to [L, U] if ``clip``, without a
    copy) and its sensitivity (U - L)/n; ``total`` the sum if the caller has it.

    References
    ----------
    DPpack 0.2.2, ``meanDataAccess`` (the bounded sensitivity, also used for unbounded DP).

    Examples
    --------
    >>> import numpy as np
    >>> out = mean_access(np.array([0.0, 1.0, 5.0]), 0.0, 2.0, clip=True)
    >>> round(out["True.Values"], 6), round(out["Sensitivity"], 6)
    (1.0, 0.666667)
    """
    flat = x.ravel(order="K")
    return mean_from_sums(_total(flat, lower, upper, clip, total), flat.size, lower, upper)


def mean_from_sums(total, n, lower, upper):
    """meanDataAccess from the sum ``total`` of n >= 1 clipped values: total / n, (U - L)/n.

    References
    ----------
    DPpack 0.2.2 (``meanDataAccess``).

    Examples
    --------
    >>> mean_from_sums(3.0, 3, 0.0, 2.0)["True.Values"]
    1.0
    """
    # DPpack's meanDP and DPpack's sensitivities: the mean of n values in [L, U] moves by at most
    # (U - L)/n when one value changes (bounded); DPpack uses the same for unbounded.
    return {"True.Values": total / n, "Sensitivity": (upper - lower) / n}


def var_access(x, lower, upper, clip=False, total=None):
    """varDataAccess on validated data (two passes, as numpy.var): the sample variance and its
    sensitivity (U - L)^2/n; ``clip`` and ``total`` as :func:`mean_access`.

    References
    ----------
    DPpack 0.2.2 (``varDataAccess``).

    Examples
    --------
    >>> import numpy as np
    >>> out = var_access(np.array([0.0, 1.0, 2.0]), 0.0, 2.0)
    >>> round(out["True.Values"], 6), round(out["Sensitivity"], 6)
    (1.0, 1.333333)
    """
    flat = x.ravel(order="K")
    n = flat.size
    centre = _total(flat, lower, upper, clip, total) / n
    squares = _block_squares(flat, centre, (lower, upper) if clip else None)
    return var_from_squares(squares, n, lower, upper)


def var_from_squares(squares, n, lower, upper):
    """varDataAccess from the sum of squared deviations ``squares`` of n >= 2 values:
    squares / (n - 1), (U - L)^2/n.

    References
    ----------
    DPpack 0.2.2 (``varDataAccess``).

    Examples
    --------
    >>> var_from_squares(2.0, 3, 0.0, 2.0)["True.Values"]
    1.0
    """
    # DPpack's varDP and DPpack's sensitivities: sample variance (denominator n - 1), sensitivity
    # (U - L)^2/n.
    width = upper - lower
    return {"True.Values": squares / (n - 1), "Sensitivity": width * width / n}


def cov_access(x1, x2, lower1, upper1, lower2, upper2):
    """covDataAccess on validated, clipped data: the sample covariance and its sensitivity
    (U1 - L1)(U2 - L2)/n.

    References
    ----------
    DPpack 0.2.2 (``covDataAccess``).

    Examples
    --------
    >>> import numpy as np
    >>> out = cov_access(np.array([0.0, 1.0, 2.0]), np.array([0.0, 2.0, 4.0]), 0, 2, 0, 4)
    >>> round(out["True.Values"], 6), round(out["Sensitivity"], 6)
    (2.0, 2.666667)
    """
    centred = x1 - x1.mean()
    products = float(np.dot(centred, x2 - x2.mean()))
    return cov_from_products(products, x1.size, lower1, upper1, lower2, upper2)


def cov_from_products(products, n, lower1, upper1, lower2, upper2):
    """covDataAccess from the sum of products of deviations ``products`` of n >= 2 pairs:
    products / (n - 1), (U1 - L1)(U2 - L2)/n.

    References
    ----------
    DPpack 0.2.2 (``covDataAccess``).

    Examples
    --------
    >>> cov_from_products(4.0, 3, 0, 2, 0, 4)["True.Values"]
    2.0
    """
    # DPpack's covDP and DPpack's sensitivities: sample covariance (denominator n - 1), sensitivity
    # (U1-L1)(U2-L2)/n.
    return {"True.Values": products / (n - 1),
            "Sensitivity": (upper1 - lower1) * (upper2 - lower2) / n}


# --------------------------------------------------------------------------------------------
# Centred sufficient statistics for unbounded DP: no sensitivity depends on n
# --------------------------------------------------------------------------------------------
#
# Under unbounded DP neighbouring datasets differ by one record added or removed, so the
# sample size n is private and a sensitivity such as (U - L)/n may not be used to calibrate
# noise. The statistics below are sums over the records; adding or removing one record
# changes each sum by that record's term alone, which is bounded by the public bounds
# (global sensitivity, Dwork and Roth 2014, Definition 3.1). Centring at the midpoint m of
# [L, U] halves the bound on a record's term: |v - m| <= h = (U - L)/2 for v in [L, U].


def midpoint(lower, upper):
    """(m, h): the midpoint of [lower, upper] and a half-width with |fl(v - m)| <= h for every v
    in it (max(upper - m, m - lower) in floats: rounding is monotone).
    """
    centre = 0.5 * lower + 0.5 * upper
    return centre, max(upper - centre, centre - lower)


def centred_from_sums(lower, upper, total, n, sum_squares=None):
    """The centred sums S = ``total``, Q = ``sum_squares`` (None: left out) and n of values in
    [lower, upper] centred at the midpoint m, with their unbounded (add/remove) sensitivities
    [h, h^2, 1]: one record moves S by c = v - m, |c| <= h (Dwork and Roth 2014, Definition
    3.1). Returns ``{"Centre", "True.Values", "Sensitivities"}`` (the accuracy reports read
    the sensitivities; the releases use :func:`centred_exact`).

    Examples
    --------
    >>> centred_from_sums(0.0, 2.0, -1.0, 3, 2.0)["Sensitivities"].tolist()
    [1.0, 1.0, 1.0]
    """
    centre, half = midpoint(lower, upper)
    if sum_squares is not None:
        values, sensitivities = [total, sum_squares, n], [half, half * half, 1.0]
    else:
        values, sensitivities = [total, n], [half, 1.0]
    return {
        "Centre": centre,
        "True.Values": np.array(values, dtype=np.float64),
        "Sensitivities": np.array(sensitivities, dtype=np.float64),
    }


def centred_cross_from_sums(bounds, total1, total2, products, n):
    """:func:`centred_from_sums` of two variables: the centred sums ``total1``, ``total2``,
    ``products`` and n, with ``bounds`` = (L1, U1, L2, U2) and the unbounded sensitivities
    [h1, h2, h1 h2, 1].

    Examples
    --------
    >>> centred_cross_from_sums((0, 2, 0, 4), 0.0, 0.0, 4.0, 3)["Sensitivities"].tolist()
    [1.0, 2.0, 2.0, 1.0]
    """
    lower1, upper1, lower2, upper2 = bounds
    centre1, half1 = midpoint(lower1, upper1)
    centre2, half2 = midpoint(lower2, upper2)
    return {
        "Centre": (centre1, centre2),
        "True.Values": np.array([total1, total2, products, n], dtype=np.float64),
        "Sensitivities": np.array([half1, half2, half1 * half2, 1.0]),
    }


def histogram_sensitivities(mechanism):
    """(bounded, unbounded) sensitivities of a vector of counts: changing a record moves two counts
    by 1 (l1 2, l2 sqrt(2): Laplace takes l1, the Gaussians l2); adding one moves one count (1).
    """
    if mechanism == "Laplace":
        return 2.0, 1.0
    return math.sqrt(2.0), 1.0


def factor_names(factors):
    """Each factor's name (a Series' name, else None) for the table's dimnames."""
    return [_frames.series_name(f) for f in factors]


def table_factors(factors):
    """(factors, declared, names, tabulate) of tableDP and tableDataAccess, read without a pass;
    ``tabulate(observed)`` counts them (in memory, or one Dask pass).
    """
    factors = _frames.factor_columns(factors)  # one data frame: its columns (R's table(df))
    return _backends.backend_for(*factors).table_factors(factors)


def table_frame(cells, levels, names):
    """Label cells of shape (L1, ..., Lk) with the levels, in pandas: a Series (one factor), a
    DataFrame (two) or a Series over a MultiIndex (first factor slowest), named after the factors.
    """
    import pandas as pd  # lazily: importing dppack must stay fast

    if len(levels) == 1:
        return pd.Series(cells, index=pd.Index(levels[0], name=names[0]))
    if len(levels) == 2:
        return pd.DataFrame(
            cells,
            index=pd.Index(levels[0], name=names[0]),
            columns=pd.Index(levels[1], name=names[1]),
        )
    index = pd.MultiIndex.from_product(levels, names=names)
    return pd.Series(cells.reshape(-1), index=index)  # C order: first factor slowest


def pooled_var_access(samples, lower, upper, approx_n_max):
    """pooledVarDataAccess on validated samples: sum_j (n_j - 1) s_j^2 / (N - J) and its bounded
    and unbounded sensitivities (``approx_n_max``: without the factor 1 - 1/n_max).

    References
    ----------
    DPpack 0.2.2 (both sensitivities; ``pooledVarDataAccess``).

    Examples
    --------
    >>> import numpy as np
    >>> out = pooled_var_access([np.array([0.0, 1.0]), np.array([1.0, 1.0, 2.0])], 0, 2,
    ...                         False)
    >>> [round(float(out[key]), 6) for key in out]
    [0.388889, 0.888889, 0.888889]
    """
    squares = sum(float(np.var(s) * s.size) for s in samples)  # (n_j - 1) s_j^2
    return pooled_var_from_squares([s.size for s in samples], squares, lower, upper,
                                   approx_n_max)


def pooled_var_from_squares(sizes, squares, lower, upper, approx_n_max):
    """pooledVarDataAccess from the sizes n_j and ``squares`` = sum_j (n_j - 1) s_j^2.

    Examples
    --------
    >>> round(float(pooled_var_from_squares([2, 3], 1.1666667, 0, 2, False)["True.Values"]), 4)
    0.3889
    """
    # DPpack's pooledVarDP: pooled variance sum_j (n_j - 1) s_j^2 / (N - J) and its sensitivities.
    n = np.array(sizes, dtype=np.float64)
    total, groups, n_max = n.sum(), float(n.size), n.max()
    spread = np.float64((upper - lower) ** 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        # DPpack's pooledVarDP: bounded (U-L)^2 (1 - 1/n_max)/(N - J), or (U-L)^2/(N - J) with
        # approx.n.max.
        if approx_n_max:
            bounded = spread / (total - groups)
        else:
            bounded = spread * (1 - 1 / n_max) / (total - groups)
        # DPpack's pooledVarDP: unbounded (U-L)^2 (N - 1)/(N (N - 2)) when N = 2J, else the bounded
        # value (Inf, as in DPpack, for a single sample of two values).
        if total == 2 * groups:
            unbounded = spread * (total - 1) / (total * (total - 2))
        else:
            unbounded = bounded
    return {
        "True.Values": squares / (total - groups),
        "Bounded.Sensitivities": float(bounded),
        "Unbounded.Sensitivities": float(unbounded),
    }


def pooled_cov_access(samples, lower1, upper1, lower2, upper2, approx_n_max):
    """pooledCovDataAccess on validated n_j x 2 samples: sum_j (n_j - 1) c_j / (N - J) and its
    sensitivities (``approx_n_max`` changes the bounded one only).

    References
    ----------
    DPpack 0.2.2 (both sensitivities; ``pooledCovDataAccess``).

    Examples
    --------
    >>> import numpy as np
    >>> sample = np.array([[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]])
    >>> out = pooled_cov_access([sample, sample], 0, 2, 0, 4, True)
    >>> [round(float(out[key]), 6) for key in out]
    [2.0, 2.0, 1.845299]
    """
    products = 0.0
    for s in samples:  # (n_j - 1) c_j, one sample at a time
        products += float(np.dot(s[:, 0] - s[:, 0].mean(), s[:, 1] - s[:, 1].mean()))
    return pooled_cov_from_products([s.shape[0] for s in samples], products, lower1, upper1,
                                    lower2, upper2, approx_n_max)


def pooled_cov_from_products(sizes, products, lower1, upper1, lower2, upper2, approx_n_max):
    """pooledCovDataAccess from the sizes n_j and ``products`` = sum_j (n_j - 1) c_j.

    Examples
    --------
    >>> float(pooled_cov_from_products([3, 3], 8.0, 0, 2, 0, 4, True)["True.Values"])
    2.0
    """
    # DPpack's pooledCovDP: pooled covariance sum_j (n_j - 1) c_j / (N - J) and its sensitivities.
    n = np.array(sizes, dtype=np.float64)
    total, groups, n_max = n.sum(), float(n.size), n.max()
    spread = np.float64((upper1 - lower1) * (upper2 - lower2))
    with np.errstate(divide="ignore", invalid="ignore"):
        # DPpack's pooledCovDP: bounded R/(N - J) with approx.n.max, else R (1 - 1/n_max)/(N - J).
        if approx_n_max:
            bounded = spread / (total - groups)
        else:
            bounded = spread * (1 - 1 / n_max) / (total - groups)
        # DPpack's pooledCovDP: unbounded R [1 + N/(4(N - 1 - J)) - 1/sqrt(N - J - 1)]/(N - J),
        # whatever approx.n.max (NaN, as in DPpack, when N - J - 1 = 0).
        rest = np.float64(total - groups - 1)
        unbounded = spread * (1 + total / (4 * rest) - 1 / np.sqrt(rest)) / (total - groups)
    return {
        "True.Values": products / (total - groups),
        "Bounded.Sensitivities": float(bounded),
        "Unbounded.Sensitivities": float(unbounded),
    }


def sorted_padded(x, lower, upper):
    """(L, sort(x) clipped to [L, U], U) as DPpack 0.2.2, in one new array."""
    n = x.size
    padded = np.empty(n + 2)
    padded[0], padded[-1] = lower, upper
    inner = padded[1:-1]
    inner[...] = x.ravel(order="K")
    inner.sort()  # in place, in our copy
    if n and inner[0] < lower:
        inner[: np.searchsorted(inner, lower, side="left")] = lower
    if n and inner[-1] > upper:
        inner[np.searchsorted(inner, upper, side="right"):] = upper
    return padded


def quantile_utility(n, quant, start=0, stop=None):
    """Utilities -|k - quant n| of k = start, ..., stop - 1 (default 0..n), as DPpack's."""
    return rank_utility(np.arange(start, n + 1 if stop is None else stop), n, quant)


def rank_utility(ranks, n, quant):
    """Utilities -|k - quant n| of candidates with k = ``ranks`` data below them (a new array)."""
    utility = np.array(ranks, dtype=np.float64)
    utility -= quant * n
    np.abs(utility, out=utility)
    np.negative(utility, out=utility)
    return utility


def cov_inputs(x1, x2, lower_bound1, upper_bound1, lower_bound2, upper_bound2, min_size=2):
    """The checks covDP and covDataAccess share, in DPpack's order (ours last); ``min_size`` 2, or
    0 for covDP under unbounded DP. Returns ``(x1, low1, high1)``, ``(x2, low2, high2)`` and the
    bounds ``(L1, U1, L2, U2)``.

    Examples
    --------
    >>> first, second, bounds = cov_inputs([0, 1, 2], [0, 2, 4], 0, 2, 0, 4)
    >>> first[0].tolist(), [float(b) for b in bounds]
    ([0.0, 1.0, 2.0], [0.0, 2.0, 0.0, 4.0])
    >>> cov_inputs([0, 1], [0], 0, 1, 0, 1)
    Traceback (most recent call last):
    ...
    ValueError: x1 and x2 must have the same length.
    """
    ordered = cov_bounds(x1, x2, lower_bound1, upper_bound1, lower_bound2, upper_bound2)
    x1 = _checks.as_numeric_array(x1, "x1 must be numeric.").reshape(-1)
    x2 = _checks.as_numeric_array(x2, "x2 must be numeric.").reshape(-1)
    if x1.size != x2.size:
        raise _messages.value_error(SAME_LENGTH_MESSAGE)
    x1, low1, high1 = _checks.as_finite_data(x1, "x1", min_size)
    x2, low2, high2 = _checks.as_finite_data(x2, "x2", min_size)
    return (x1, low1, high1), (x2, low2, high2), ordered


def cov_bounds(x1, x2, lower_bound1, upper_bound1, lower_bound2, upper_bound2):
    """The data-free checks of :func:`cov_inputs` (shapes, bounds); returns (L1, U1, L2, U2)."""
    _checks.check_vector(x1, "x1")
    _checks.check_vector(x2, "x2")
    bounds = _checks.check_bounds(
        ("upper.bound1", upper_bound1),
        ("lower.bound1", lower_bound1),
        ("upper.bound2", upper_bound2),
        ("lower.bound2", lower_bound2),
    )
    return (
        bounds["lower.bound1"], bounds["upper.bound1"],
        bounds["lower.bound2"], bounds["upper.bound2"],
    )


# --------------------------------------------------------------------------------------------
# Exact cores of the releases: integer sums of the records on the grid of their bounds
# --------------------------------------------------------------------------------------------
#
# The records x in [L, U] are rounded to origin + g q, q in {0, ..., Q} (``_exact_sums``:
# g = 2^k <= (U - L) 2^-20 from the bounds alone, Q g <= U - L + g); the statistics are
# exact rationals (num, den, e) of the integers n, S1 = sum q, S2 = sum q^2 and
# S12 = sum q1 q2, and DPpack's sensitivities hold with U - L replaced by Q g (the width of
# the rounded records' range), rounded up to a float.


@functools.lru_cache(maxsize=256)
def _mean_sensitivity(lower, upper, n):
    (top, _, k), _ = _exact_sums.grid_width(lower, upper)
    return _exact_sums.float_up((top, n, k))


def mean_exact(n, s1, lower, upper):
    """meanDP's exact mean origin + g S1 / n of n >= 1 records on the grid of [L, U] and its
    bounded sensitivity Q g / n (DPpack's (U - L)/n for the rounded records, whose range is
    Q g wide: Dwork, McSherry, Nissim and Smith 2006, Section 3).

    Examples
    --------
    >>> out = mean_exact(2, 3 * 2 ** 19, 0.0, 1.0)
    >>> _exact_sums.to_fraction(out["True.Values"]), out["Sensitivity"]
    (Fraction(3, 4), 0.5)
    """
    k, _ = _exact_sums.data_grid(lower, upper)
    origin = _exact_sums.grid_origin(lower, upper)
    return {"True.Values": _exact_sums.mean_value(origin, k, s1, n),
            "Sensitivity": _mean_sensitivity(lower, upper, n)}


def var_exact(n, s1, s2, lower, upper):
    """varDP's exact sample variance g^2 (n S2 - S1^2) / (n (n - 1)) of n >= 2 records on
    the grid of [L, U] and its bounded sensitivity (Q g)^2 / n (DPpack's (U - L)^2/n for
    the rounded records).

    Examples
    --------
    >>> out = var_exact(3, 3 * 2 ** 19, 5 * 2 ** 38, 0.0, 2.0)  # 0, 1, 2 on g = 2^-19
    >>> float(_exact_sums.to_fraction(out["True.Values"])), out["Sensitivity"]
    (1.0, 1.3333333333333335)
    """
    k, top = _exact_sums.data_grid(lower, upper)
    return {"True.Values": (n * s2 - s1 * s1, n * (n - 1), 2 * k),
            "Sensitivity": _exact_sums.float_up((top * top, n, 2 * k))}


def cov_exact(n, s1, t1, s12, bounds):
    """covDP's exact sample covariance g1 g2 (n S12 - S1 T1) / (n (n - 1)) of n >= 2 pairs
    on the grids of ``bounds`` (L1, U1, L2, U2) and its bounded sensitivity
    Q1 g1 Q2 g2 / n (DPpack's (U1 - L1)(U2 - L2)/n for the rounded records)."""
    k1, top1 = _exact_sums.data_grid(bounds[0], bounds[1])
    k2, top2 = _exact_sums.data_grid(bounds[2], bounds[3])
    return {"True.Values": (n * s12 - s1 * t1, n * (n - 1), k1 + k2),
            "Sensitivity": _exact_sums.float_up((top1 * top2, n, k1 + k2))}


def _half_width(lower, upper):
    """(centre, h): the midpoint origin + Q g / 2 of the rounded records' range (a float, for
    post-processing) and its half-width h = Q g / 2 (exact in floats, or inf)."""
    k, top = _exact_sums.data_grid(lower, upper)
    half = _exact_sums.to_fraction((top, 1, k - 1))
    origin = _exact_sums.to_fraction(_exact_sums.grid_origin(lower, upper))
    return float(origin + half), _exact_sums.float_up((top, 1, k - 1))


def centred_exact(n, s1, s2, lower, upper, squares=True):
    """The unbounded sufficient statistics of the records origin + g q centred at the
    midpoint origin + Q g / 2 of their range and divided by their add/remove sensitivities h = Q g / 2,
    h^2 and 1: S / h = (2 S1 - n Q) / Q, (with ``squares``) Q2 / h^2 =
    (4 S2 - 4 Q S1 + n Q^2) / Q^2 and n, exact (num, den, e); adding or removing a record
    moves each by at most 1 (Dwork and Roth 2014, Definition 3.1). Returns ``{"Centre",
    "True.Values", "Sensitivities"}`` as :func:`centred_from_sums` (the values exact).

    Examples
    --------
    >>> out = centred_exact(2, 2 ** 20, 2 ** 40, 0.0, 1.0)  # 0 and 1
    >>> out["Centre"], out["True.Values"], out["Sensitivities"].tolist()
    (0.5, [(0, 1048576, 0), (2199023255552, 1099511627776, 0), (2, 1, 0)], [0.5, 0.25, 1.0])
    """
    _, top = _exact_sums.data_grid(lower, upper)
    centre, half = _half_width(lower, upper)
    values = [(2 * s1 - n * top, top, 0)]
    sensitivities = [half]
    if squares:
        values.append((4 * s2 - 4 * top * s1 + n * top * top, top * top, 0))
        sensitivities.append(half * half)
    values.append((n, 1, 0))
    sensitivities.append(1.0)
    return {"Centre": centre, "True.Values": values,
            "Sensitivities": np.array(sensitivities, dtype=np.float64)}


def centred_cross_exact(n, s1, t1, s12, bounds):
    """:func:`centred_exact` of two variables (``bounds`` (L1, U1, L2, U2)): S1 / h1,
    S2 / h2, P / (h1 h2) = (4 S12 - 2 Q2 S1 - 2 Q1 T1 + n Q1 Q2) / (Q1 Q2) and n, each moved
    by at most 1 by one pair added or removed."""
    _, top1 = _exact_sums.data_grid(bounds[0], bounds[1])
    _, top2 = _exact_sums.data_grid(bounds[2], bounds[3])
    centre1, half1 = _half_width(bounds[0], bounds[1])
    centre2, half2 = _half_width(bounds[2], bounds[3])
    values = [(2 * s1 - n * top1, top1, 0), (2 * t1 - n * top2, top2, 0),
              (4 * s12 - 2 * top2 * s1 - 2 * top1 * t1 + n * top1 * top2, top1 * top2, 0),
              (n, 1, 0)]
    return {"Centre": (centre1, centre2), "True.Values": values,
            "Sensitivities": np.array([half1, half2, half1 * half2, 1.0])}


def pooled_exact(sizes, firsts, seconds, crosses, widths, approx_n_max):
    """pooledVarDP's (``seconds`` None, ``crosses`` the S2_j) or pooledCovDP's exact pooled
    statistic sum_j (S12_j - S1_j T1_j / n_j) g1 g2 / (N - J) of the grid sums of each sample,
    and DPpack's bounded sensitivity Q1 g1 Q2 g2 (1 - 1/n_max) / (N - J) (without the factor
    with ``approx_n_max``) for the widths ``widths`` = (k1, Q1, k2, Q2) of the rounded
    records' ranges, as an exact rational rounded up (a float formula rounds to nearest,
    below the exact value about half the time)."""
    k1, top1, k2, top2 = widths
    seconds = firsts if seconds is None else seconds
    total = sum(Fraction(n * c - a * b, n) for n, a, b, c in zip(sizes, firsts, seconds,
                                                                 crosses))
    value = total / (sum(sizes) - len(sizes))
    n_max = max(sizes)
    bounded = Fraction(top1 * top2, sum(sizes) - len(sizes))
    if not approx_n_max:
        bounded *= Fraction(n_max - 1, n_max)
    return {"True.Values": (value.numerator, value.denominator, k1 + k2),
            "Bounded.Sensitivities": _exact_sums.float_up(
                (bounded.numerator, bounded.denominator, k1 + k2))}


def pooled_grid_exact(grid, bounds, approx_n_max):
    """:func:`pooled_exact` of the grid sums ``grid`` of every sample: (n, S1, S2) for
    pooledVarDP (``bounds`` (L, U)), (n, S1, T1, S11, S22, S12) for pooledCovDP."""
    sizes = [g[0] for g in grid]
    if len(bounds) == 2:
        k, top = _exact_sums.data_grid(*bounds)
        return pooled_exact(sizes, [g[1] for g in grid], None, [g[2] for g in grid],
                            (k, top, k, top), approx_n_max)
    widths = _exact_sums.data_grid(*bounds[:2]) + _exact_sums.data_grid(*bounds[2:])
    return pooled_exact(sizes, [g[1] for g in grid], [g[2] for g in grid],
                        [g[5] for g in grid], widths, approx_n_max)


def pooled_centred_rows(grid, bounds):
    """The exact unbounded statistics of every sample (:func:`centred_exact` or
    :func:`centred_cross_exact` of its grid sums ``grid``), as rows of one release."""
    if len(bounds) == 2:
        rows = [centred_exact(g[0], g[1], g[2], *bounds) for g in grid]
    else:
        rows = [centred_cross_exact(g[0], g[1], g[2], g[5], bounds) for g in grid]
    return {"True.Values": [row["True.Values"] for row in rows],
            "Sensitivities": rows[0]["Sensitivities"]}


def rounding_error(sizes, bounds):
    """A bound on how far the rounding of the records to the grid of ``bounds`` (L, U) or
    (L1, U1, L2, U2) moves a (pooled) variance or covariance of samples of ``sizes``
    (decreasing in each size: it holds for larger samples too), a float rounded up. With
    e_i the rounding of record i (abs(e_i) <= g / 2) and d_i its deviation from the mean
    (sum abs(d_i) <= n (U - L) / 2), a sample's sum of squares moves by at most
    2 sum abs(d_i e_i) + sum e_i^2 <= n ((U - L) g / 2 + g^2 / 4), and its sum of products
    by n ((U1 - L1) g2 + (U2 - L2) g1 + g1 g2) / 4 (Cauchy-Schwarz); over N - J. The mean
    moves by at most g / 2 (:func:`dppack._exact_sums.data_grid`).

    Examples
    --------
    >>> rounding_error([2], (0.0, 1.0)) == 2 * (2.0 ** -21 + 2.0 ** -42)
    True
    """
    def grid(lower, upper):
        return Fraction(upper) - Fraction(lower), Fraction(2) ** _exact_sums.data_grid(
            lower, upper)[0]

    if len(bounds) == 2:
        width, g = grid(*bounds)
        per_record = width * g / 2 + g * g / 4
    else:
        (width1, g1), (width2, g2) = grid(*bounds[:2]), grid(*bounds[2:])
        per_record = (width1 * g2 + width2 * g1 + g1 * g2) / 4
    bound = per_record * sum(sizes) / (sum(sizes) - len(sizes))
    return _exact_sums.float_up((bound.numerator, bound.denominator, 0))
