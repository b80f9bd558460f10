"""The checks and cores of the data-access layer (:mod:`dppack.data_access`): DPpack's checks of
``mechanism``, ``quant`` and the samples, and the cores that turn validated data into true values
and sensitivities, each formula from sufficient statistics written once. The private statistics
of :mod:`dppack.stats` and ``dppack.dask.moments`` reach them through :mod:`dppack.data_access`.
"""

import math

import numpy as np

from . import _backends, _checks, _frames, _messages

MECHANISMS = ("Laplace", "Gaussian", "analytic")
MECHANISM_MESSAGE = "Mechanism must be one of {'Laplace', 'Gaussian', 'analytic'}."
QUANT_MESSAGE = "quant must be between 0 and 1."
# The data checks of the pooled statistics and of covDP, in memory and on Dask
# (dppack.dask.moments): (vector, two-column matrix) where the two differ.
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
    """Return ``quant`` as a float in [0, 1], else DPpack's message.

    Ours: a quant of length other than 1 gets "Length of quant must be 1."; NaN and
    non-numbers get DPpack's message (R stops on them with an unrelated one).
    """
    if quant is not None:  # NULL gets DPpack's message
        _checks.check_bound_length(quant, "quant")
    return _checks.check_number(quant, "quant", 0, 1, message=QUANT_MESSAGE)


def check_samples(samples, columns=None, min_size=2):
    """Validate the samples of a pooled statistic; return ``(arrays, lows, highs)``.

    ``columns=None`` asks for numeric vectors (pooled variance), ``columns=2`` for matrices of
    two columns (pooled covariance); ``lows``/``highs`` hold each sample's minimum and maximum
    (per column for matrices; Inf and -Inf for an empty sample), for clipping. Each sample
    needs ``min_size`` values (rows): 2, or 0 under unbounded DP, where the sizes are
    private. All checks are ours: DPpack has none, and fails
    with NA results (a sample of one value) or R errors (a vector where a matrix is due).
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
    """The values of ``flat`` (clipped to ``clip`` = (lower, upper) first, if given) minus
    ``centre``, one cached block at a time, each in the same reused buffer."""
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
    """Sum of (value - centre)^2 over ``flat`` (clipped to ``clip`` = (lower, upper) first,
    if given), one cached block at a time."""
    total = 0.0
    for out in _centred_blocks(flat, centre, clip):
        total += float(np.dot(out, out))
    return total


def _total(flat, lower, upper, clip, total):
    """Sum of ``flat`` (clipped to [lower, upper] if ``clip``). ``total``, that sum if the
    caller has it already (from its range scan), saves a pass over the data."""
    if total is not None:
        return total
    if clip:
        return _block_sum(flat, lower, upper)
    return float(np.add.reduce(flat))  # numpy.mean's sum


def mean_access(x, lower, upper, clip=False, total=None):
    """meanDataAccess on validated data: the mean and its sensitivity (U - L)/n.

    Parameters
    ----------
    x : numpy.ndarray
        Finite values (checked by the caller), any shape; read in memory order.
    lower, upper : float
        L < U, the bounds.
    clip : bool, default False
        True gives the mean of x clipped to [L, U] (what DPpack computes after clipping)
        without a clipped copy.
    total : float, optional
        The sum of the (clipped) values when the caller already has it (its range scan).

    Returns
    -------
    dict
        ``"True.Values"`` (float) and ``"Sensitivity"`` (U - L)/n.

    References
    ----------
    DPpack 0.2.2 (the bounded sensitivity, which DPpack also uses
    for unbounded DP; ``meanDataAccess``).

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
    """meanDataAccess from the sufficient statistics: the sum ``total`` of n >= 1 values in
    [lower, upper] (clipped). Both paths call it: :func:`mean_access` in memory and
    :mod:`dppack.dask.moments` on Dask, where ``total`` is the sum of per-partition sums.

    Returns
    -------
    dict
        ``"True.Values"`` total / n and ``"Sensitivity"`` (U - L)/n.

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
    """varDataAccess on validated data: the sample variance and its sensitivity (U - L)^2/n.

    Two passes, as numpy.var: the mean, then the sum of squared deviations from it.

    Parameters
    ----------
    x : numpy.ndarray
        At least two finite values (checked by the caller).
    lower, upper, clip, total
        As for :func:`mean_access`.

    Returns
    -------
    dict
        ``"True.Values"`` (denominator n - 1) and ``"Sensitivity"``.

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
    """varDataAccess from the sufficient statistics: the sum of squared deviations from their
    mean ``squares`` of n >= 2 values in [lower, upper]. Both paths call it: :func:`var_access`
    (two passes in memory) and :mod:`dppack.dask.moments` (per-partition sums merged by Chan,
    Golub and LeVeque's pairwise update).

    Returns
    -------
    dict
        ``"True.Values"`` squares / (n - 1) and ``"Sensitivity"`` (U - L)^2/n.

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
    """covDataAccess on validated data: the sample covariance and its sensitivity.

    Parameters
    ----------
    x1, x2 : numpy.ndarray
        1-d, of one length n >= 2, finite and within their bounds (checked by the caller).
    lower1, upper1, lower2, upper2 : float
        The bounds of x1 and of x2.

    Returns
    -------
    dict
        ``"True.Values"`` (denominator n - 1) and ``"Sensitivity"`` (U1 - L1)(U2 - L2)/n.

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
    """covDataAccess from the sufficient statistics: the sum of the products of the deviations
    from their means ``products`` of n >= 2 pairs. Both paths call it (:func:`cov_access`;
    :mod:`dppack.dask.moments`, which merges per-partition co-moments pairwise).

    Returns
    -------
    dict
        ``"True.Values"`` products / (n - 1) and ``"Sensitivity"`` (U1 - L1)(U2 - L2)/n.

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
    """(m, h): the midpoint of [lower, upper] and a half-width with |fl(v - m)| <= h for every
    v in [lower, upper].

    h is max(upper - m, m - lower) in the same floating-point arithmetic as the centred
    values: rounding is monotone, so no centred value exceeds it (the exact (U - L)/2 could be
    one unit in the last place too small). m = L/2 + U/2 does not overflow.
    """
    centre = 0.5 * lower + 0.5 * upper
    return centre, max(upper - centre, centre - lower)


def centred_moments(x, lower, upper, clip=False, squares=True):
    """Sum S, sum of squares Q (if ``squares``) and count n of the values of validated data
    ``x`` (clipped to [lower, upper] if ``clip``) centred at the midpoint, with the
    unbounded (add/remove) sensitivity of each.

    Adding or removing a value v moves S by c = v - m (|c| <= h), Q by c^2 <= h^2 and n by 1.
    The mean is m + S/n, and (n - 1) times the sample variance is Q - S^2/n.

    Returns
    -------
    dict
        ``{"Centre": m, "True.Values": array [S, Q, n] (or [S, n]),
        "Sensitivities": array [h, h^2, 1] (or [h, 1])}``.
    """
    flat = x.ravel(order="K")
    centre, half = midpoint(lower, upper)
    total = sum_squares = 0.0
    for out in _centred_blocks(flat, centre, (lower, upper) if clip else None):
        total += float(np.add.reduce(out))
        if squares:
            sum_squares += float(np.dot(out, out))
    return centred_from_sums(lower, upper, total, flat.size,
                             sum_squares if squares else None)


def centred_from_sums(lower, upper, total, n, sum_squares=None):
    """:func:`centred_moments` from the sums of the values centred at the midpoint: S =
    ``total``, Q = ``sum_squares`` (None: left out) and the count n, with the unbounded
    sensitivity of each. Both paths call it (in memory, and :mod:`dppack.dask.moments` with
    the sums of per-partition sums).

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


def centred_cross_moments(x1, x2, lower1, upper1, lower2, upper2):
    """Sums S1, S2, the sum of products P and the count n of two validated, clipped variables
    of the same length, each centred at the midpoint of its bounds, with the unbounded
    (add/remove) sensitivity of each.

    Adding or removing a pair (v1, v2) moves S1 by c1 = v1 - m1 (|c1| <= h1), S2 by c2
    (|c2| <= h2), P by c1 c2 (|c1 c2| <= h1 h2 = (U1 - L1)(U2 - L2)/4) and n by 1.
    (n - 1) times the sample covariance is P - S1 S2/n.

    Returns
    -------
    dict
        ``{"Centre": (m1, m2), "True.Values": array [S1, S2, P, n],
        "Sensitivities": array [h1, h2, h1 h2, 1]}``.
    """
    centred1 = x1 - midpoint(lower1, upper1)[0]
    centred2 = x2 - midpoint(lower2, upper2)[0]
    return centred_cross_from_sums(
        (lower1, upper1, lower2, upper2), float(np.sum(centred1)), float(np.sum(centred2)),
        float(np.dot(centred1, centred2)), x1.size,
    )


def centred_cross_from_sums(bounds, total1, total2, products, n):
    """:func:`centred_cross_moments` from the sums S1 = ``total1``, S2 = ``total2``, P =
    ``products`` of the values centred at the midpoints of ``bounds`` = (L1, U1, L2, U2) and
    the count n, with the unbounded sensitivity of each. Both paths call it (in memory, and
    :mod:`dppack.dask.moments` with the sums of per-partition sums).

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
    """(bounded, unbounded) sensitivities of a vector of counts.

    Changing one record moves one count by 1 and another by 1 (bounded): l1 norm 2, l2 norm
    sqrt(2); adding or removing one record moves one count by 1 (unbounded). Laplace consumes
    the l1 value, the Gaussian mechanisms the l2 value.
    """
    if mechanism == "Laplace":
        return 2.0, 1.0
    return math.sqrt(2.0), 1.0


def factor_names(factors):
    """The name of each factor for the table's dimnames: a pandas or polars Series' name, else
    None (:func:`dppack._frames.series_name`)."""
    return [_frames.series_name(f) for f in factors]


def table_factors(factors):
    """(factors, declared, names, tabulate) of tableDP and tableDataAccess, read without a
    pass: whether each factor declares its levels, the factors' names, and
    ``tabulate(observed)``, which counts them (:func:`rcompat.table`, or with ``observed``
    :func:`rcompat.observed_cells`). Dask factors (Dask Series, or the columns of one Dask
    DataFrame) are counted by one pass of ``dppack.dask.moments.combinations``."""
    factors = _frames.factor_columns(factors)  # one data frame: its columns (R's table(df))
    return _backends.backend_for(*factors).table_factors(factors)


def table_frame(cells, levels, names):
    """Label an array of cells of shape (L1, ..., Lk) with the factors' levels, in pandas.

    One factor gives a Series indexed by its levels, two a DataFrame (rows: levels of the first
    factor, columns: levels of the second), three or more a Series over a MultiIndex of every
    combination of levels, the first factor varying slowest. Index (and column) names are the
    factors' names.
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
    """pooledVarDataAccess on validated samples: the pooled variance and its sensitivities.

    Parameters
    ----------
    samples : list of numpy.ndarray
        J 1-d samples of finite values (checked by :func:`check_samples`), N values in all.
    lower, upper : float
        The bounds of every value.
    approx_n_max : bool
        DPpack's ``approx.n.max``: the bounded sensitivity without its factor 1 - 1/n_max.

    Returns
    -------
    dict
        ``"True.Values"`` sum_j (n_j - 1) s_j^2 / (N - J), ``"Bounded.Sensitivities"`` and
        ``"Unbounded.Sensitivities"`` (floats; Inf or NaN where DPpack's formulas give them).

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
    """pooledVarDataAccess from the sufficient statistics: the sample sizes n_j and
    ``squares`` = sum_j (n_j - 1) s_j^2, the squared deviations of each sample from its own
    mean, summed. Both paths call it (:func:`pooled_var_access`; :mod:`dppack.dask.moments`).

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
    """pooledCovDataAccess on validated samples: the pooled covariance and its sensitivities.

    Parameters
    ----------
    samples : list of numpy.ndarray
        J samples, each n_j x 2 (the two variables), finite (checked by
        :func:`check_samples`), N rows in all.
    lower1, upper1, lower2, upper2 : float
        The bounds of the first and of the second variable.
    approx_n_max : bool
        DPpack's ``approx.n.max`` (the bounded sensitivity only).

    Returns
    -------
    dict
        ``"True.Values"`` sum_j (n_j - 1) c_j / (N - J), ``"Bounded.Sensitivities"`` and
        ``"Unbounded.Sensitivities"`` (floats; NaN where DPpack's formula gives it).

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
    """pooledCovDataAccess from the sufficient statistics: the sample sizes n_j and
    ``products`` = sum_j (n_j - 1) c_j, the products of the deviations of each sample from its
    own means, summed. Both paths call it (:func:`pooled_cov_access`;
    :mod:`dppack.dask.moments`).

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
    """(L, sort(x) clipped to [L, U], U): DPpack 0.2.2, in one new array.

    The data are copied once into the result and sorted there; the values below L form a
    prefix and those above U a suffix of the sorted copy, so clipping touches only them.
    """
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
    """Utilities -|k - quant n| of the candidates k = start, ..., stop - 1 (default: 0..n),
    as DPpack 0.2.2's quantileDP scores them. Any slice has exactly the values of the same
    entries of the full vector."""
    return rank_utility(np.arange(start, n + 1 if stop is None else stop), n, quant)


def rank_utility(ranks, n, quant):
    """Utilities -|k - quant n| of candidates with k = ``ranks`` data below them, as a new
    float array: the same values, entry by entry, as :func:`quantile_utility` at the same k
    (the Dask quantile passes only the ranks of the intervals that are not empty)."""
    utility = np.array(ranks, dtype=np.float64)
    utility -= quant * n
    np.abs(utility, out=utility)
    np.negative(utility, out=utility)
    return utility
