"""DPpack's data-access layer: true values and global sensitivities, no noise.

Each public function is DPpack 0.2.2's function of the same name: it reads the raw data and
returns the non-private value and its sensitivities in a dict with DPpack's list names
(``"True.Values"``, ``"Sensitivity"``, ...). Nothing is clipped except by
:func:`quantileDataAccess`, as in DPpack. Unlike DPpack, the bounds, data and mechanism are
checked, with the private statistics' messages. Each formula from sufficient statistics to a
value and its sensitivity is written once (:mod:`dppack._access_cores`), for in-memory and
Dask data alike (:func:`dppack._backends.backend_for`).
"""

import numpy as np

from . import _backends, _checks
from ._access_cores import (  # noqa: F401  (the cores, reached as data_access.<name>)
    MECHANISMS,
    MECHANISM_MESSAGE,
    QUANT_MESSAGE,
    SAMPLES_MESSAGE,
    SAMPLE_SHAPE_MESSAGES,
    SAMPLE_SIZE_MESSAGES,
    SAMPLES_FINITE_MESSAGE,
    SAME_LENGTH_MESSAGE,
    check_mechanism,
    check_quant,
    check_samples,
    mean_access,
    mean_from_sums,
    var_access,
    var_from_squares,
    cov_access,
    cov_from_products,
    midpoint,
    centred_from_sums,
    centred_cross_from_sums,
    histogram_sensitivities,
    factor_names,
    table_factors,
    table_frame,
    pooled_var_access,
    pooled_var_from_squares,
    pooled_cov_access,
    pooled_cov_from_products,
    sorted_padded,
    quantile_utility,
    rank_utility,
)

__all__ = [
    "covDataAccess",
    "histogramDataAccess",
    "meanDataAccess",
    "pooledCovDataAccess",
    "pooledVarDataAccess",
    "quantileDataAccess",
    "tableDataAccess",
    "varDataAccess",
]


def _quantile_access(x, quant, lower, upper):
    # DPpack's quantileDP steps 1-2; step 4: one value changes the rank of every candidate by at
    # most 1, bounded or unbounded, so the utility's sensitivity is 1.
    return {
        "Utility": quantile_utility(x.size, quant),
        "Sorted": sorted_padded(x, lower, upper),
        "Sensitivity": 1.0,
    }


# --------------------------------------------------------------------------------------------
# DPpack's data-access functions
# --------------------------------------------------------------------------------------------


def meanDataAccess(x, lower_bound, upper_bound):
    """True mean of ``x`` and its sensitivity (U - L)/n.

    Parameters
    ----------
    x : array_like, or a Dask array, Series or DataFrame
        Numeric data; a matrix counts all its entries. Not clipped.
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper.

    Returns
    -------
    dict
        ``{"True.Values": mean, "Sensitivity": (upper - lower)/n}``.

    Raises
    ------
    ValueError
        For bounds that are not single finite numbers with lower < upper, and for data that
        are not numeric, empty or not finite.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``meanDataAccess``.

    Examples
    --------
    >>> from dppack import meanDataAccess
    >>> out = meanDataAccess([1.0, 2.0, 3.0, 4.0], lower_bound=0, upper_bound=10)
    >>> float(out["True.Values"]), float(out["Sensitivity"])
    (2.5, 2.5)
    """
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    return _backends.backend_for(x).mean_access(x, bounds["lower.bound"],
                                                bounds["upper.bound"])


def varDataAccess(x, lower_bound, upper_bound):
    """True sample variance of ``x`` and its sensitivity (U - L)^2/n.

    Parameters
    ----------
    x : array_like, or a Dask array or Series
        Numeric vector of at least two values. Not clipped.
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper.

    Returns
    -------
    dict
        ``{"True.Values": variance (denominator n - 1), "Sensitivity": (upper - lower)^2/n}``.

    Raises
    ------
    ValueError
        "x must be a numeric vector." for a matrix; otherwise as :func:`meanDataAccess`.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``varDataAccess``.

    Examples
    --------
    >>> from dppack import varDataAccess
    >>> out = varDataAccess([1.0, 2.0, 3.0, 4.0], lower_bound=0, upper_bound=10)
    >>> round(float(out["True.Values"]), 6), float(out["Sensitivity"])  # 10^2 / 4
    (1.666667, 25.0)
    """
    _checks.check_vector(x, "x")
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    return _backends.backend_for(x).var_access(x, bounds["lower.bound"], bounds["upper.bound"])


def covDataAccess(x1, x2, lower_bound1, upper_bound1, lower_bound2, upper_bound2):
    """True sample covariance of ``x1`` and ``x2`` and its sensitivity (U1 - L1)(U2 - L2)/n.

    Parameters
    ----------
    x1, x2 : array_like, or Dask arrays or Series (partitioned alike)
        Numeric vectors of the same length, at least two values. Not clipped.
    lower_bound1, upper_bound1, lower_bound2, upper_bound2 : float
        Bounds on ``x1`` and on ``x2``.

    Returns
    -------
    dict
        ``{"True.Values": covariance (denominator n - 1), "Sensitivity": ...}``.

    Raises
    ------
    ValueError
        As :func:`varDataAccess`, and "x1 and x2 must have the same length."

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``covDataAccess``.

    Examples
    --------
    >>> from dppack import covDataAccess
    >>> out = covDataAccess([1.0, 2.0, 3.0, 4.0], [2.0, 4.0, 5.0, 9.0], 0, 10, 0, 10)
    >>> round(float(out["True.Values"]), 6), float(out["Sensitivity"])  # 10 * 10 / 4
    (3.666667, 25.0)
    """
    return _backends.backend_for(x1, x2).cov_access(
        x1, x2, (lower_bound1, upper_bound1, lower_bound2, upper_bound2)
    )


def histogramDataAccess(x, breaks, mechanism):
    """R's histogram of ``x`` (breaks from the data, as ``hist()``) and the sensitivities of its
    counts; :func:`dppack.histogramDP` takes its breaks from the bounds instead.

    Parameters
    ----------
    x : array_like, or a Dask array, Series or DataFrame
        Numeric, finite data (a matrix counts all its entries). Not clipped. On Dask: two
        passes, and ``breaks`` points, a number of cells or "Sturges".
    breaks : str, int, array_like or callable
        As R's ``hist()`` (``dppack.rcompat._hist.hist_breaks``).
    mechanism : {'Laplace', 'Gaussian', 'analytic'}
        l1 sensitivities for Laplace, l2 for the Gaussian mechanisms.

    Returns
    -------
    dict
        ``{"True.Values": rcompat.Histogram, "Bounded.Sensitivities": 2 or sqrt(2),
        "Unbounded.Sensitivities": 1}``.

    Raises
    ------
    ValueError
        DPpack's mechanism message, our data checks, and R's ``hist()`` messages.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``histogramDataAccess``.

    Examples
    --------
    >>> from dppack import histogramDataAccess
    >>> out = histogramDataAccess([1.0, 2.0, 2.5, 3.0, 7.0], "Sturges", "Laplace")
    >>> h = out["True.Values"]
    >>> h.breaks.tolist(), h.counts.tolist()
    ([0.0, 2.0, 4.0, 6.0, 8.0], [2, 2, 0, 1])
    >>> float(out["Bounded.Sensitivities"]), float(out["Unbounded.Sensitivities"])
    (2.0, 1.0)
    """
    check_mechanism(mechanism)
    # DPpack's histogramDP step 2: R's hist() on the data, without the density.
    histogram = _backends.backend_for(x).hist(x, breaks)
    bounded, unbounded = histogram_sensitivities(mechanism)
    return {"True.Values": histogram, "Bounded.Sensitivities": bounded,
            "Unbounded.Sensitivities": unbounded}


def tableDataAccess(*factors, mechanism="Laplace"):
    """R's contingency table of the factors and the sensitivities of its cells (levels observed
    in the data unless declared, so not private; see :func:`dppack.tableDP`).

    Parameters
    ----------
    *factors : array_like, pandas.Series / Categorical, polars or pyarrow series, Dask Series
        One or more factors of the same length (levels as ``dppack.rcompat._factor.factorize``);
        Dask factors partitioned alike, or one Dask DataFrame, counted in one pass.
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'

    Returns
    -------
    dict
        ``{"True.Values": counts, "Bounded.Sensitivities": 2 or sqrt(2),
        "Unbounded.Sensitivities": 1}``; counts labelled as in :func:`dppack.tableDP`.

    Raises
    ------
    ValueError
        DPpack's mechanism message, and R's ``table()`` messages.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``tableDataAccess``.

    Examples
    --------
    >>> from dppack import tableDataAccess
    >>> out = tableDataAccess(["a", "b", "a"], mechanism="Gaussian")
    >>> out["True.Values"].to_dict()
    {'a': 2, 'b': 1}
    >>> round(float(out["Bounded.Sensitivities"]), 6)  # sqrt(2): l2 for the Gaussian
    1.414214
    """
    check_mechanism(mechanism)
    factors, _, names, tabulate = table_factors(factors)
    counts, levels = tabulate(observed=False)
    bounded, unbounded = histogram_sensitivities(mechanism)
    return {
        "True.Values": table_frame(counts, levels, names),
        "Bounded.Sensitivities": bounded,
        "Unbounded.Sensitivities": unbounded,
    }


def pooledVarDataAccess(samples, lower_bound, upper_bound, approx_n_max):
    """Pooled variance of the samples and its bounded and unbounded sensitivities.

    Parameters
    ----------
    samples : sequence of array_like, or of Dask arrays or Series
        J >= 1 numeric vectors of at least two values each. Not clipped.
    lower_bound, upper_bound : float
    approx_n_max : bool
        Bound the largest sample size by N (True) instead of using it.

    Returns
    -------
    dict
        ``{"True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"}`` (the last Inf
        for a single sample of two values, as in DPpack).

    Raises
    ------
    ValueError
        For invalid bounds, a non-logical ``approx_n_max``, or samples that are not numeric
        vectors of at least two finite values.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``pooledVarDataAccess``.

    Examples
    --------
    >>> from dppack import pooledVarDataAccess
    >>> out = pooledVarDataAccess([[1.0, 2.0, 3.0], [4.0, 6.0]], 0, 10, approx_n_max=False)
    >>> round(float(out["True.Values"]), 6)
    1.333333
    """
    bounds = _checks.check_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    return _backends.backend_for(*samples).pooled_var_access(
        samples, (bounds["lower.bound"], bounds["upper.bound"]), approx_n_max
    )


def pooledCovDataAccess(samples, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
                        approx_n_max):
    """Pooled covariance of the samples and its sensitivities.

    Parameters
    ----------
    samples : sequence of array_like, or of Dask arrays or DataFrames
        J >= 1 numeric matrices of shape (n_j, 2), n_j >= 2. Not clipped.
    lower_bound1, upper_bound1, lower_bound2, upper_bound2 : float
        Bounds on the first and on the second column.
    approx_n_max : bool

    Returns
    -------
    dict
        ``{"True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"}`` (the last NaN
        when N - J - 1 = 0, as in DPpack).

    Raises
    ------
    ValueError
        For invalid bounds, a non-logical ``approx_n_max``, or samples that are not numeric
        two-column matrices of at least two finite rows.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``pooledCovDataAccess``.

    Examples
    --------
    >>> from dppack import pooledCovDataAccess
    >>> import numpy as np
    >>> a = np.array([[1.0, 2.0], [2.0, 3.0], [3.0, 5.0]])
    >>> b = np.array([[4.0, 1.0], [6.0, 0.0]])
    >>> out = pooledCovDataAccess([a, b], 0, 10, 0, 10, approx_n_max=False)
    >>> round(float(out["True.Values"]), 6)
    0.666667
    """
    bounds = _checks.check_bounds(
        ("lower.bound1", lower_bound1),
        ("lower.bound2", lower_bound2),
        ("upper.bound1", upper_bound1),
        ("upper.bound2", upper_bound2),
    )
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    ordered = (bounds["lower.bound1"], bounds["upper.bound1"], bounds["lower.bound2"],
               bounds["upper.bound2"])
    return _backends.backend_for(*samples).pooled_cov_access(samples, ordered, approx_n_max)


def quantileDataAccess(x, quant, lower_bound, upper_bound):
    """Utilities, sorted padded data and sensitivity of the exponential-mechanism quantile.

    Parameters
    ----------
    x : array_like
        Numeric, finite data (a matrix counts all its entries).
    quant : float
        In [0, 1].
    lower_bound, upper_bound : float

    Returns
    -------
    dict
        ``{"Utility": -|k - quant n| for k = 0..n, "Sorted": (L, sorted x clipped to [L, U],
        U), "Sensitivity": 1}``.

    Raises
    ------
    ValueError
        For invalid bounds, data that are not numeric, empty or not finite, and ``quant``
        outside [0, 1] (DPpack's message).

    References
    ----------
    Smith (2011), Privacy-preserving statistical estimation with optimal convergence rates;
    Giddens and Liu (2023), DPpack reference manual, ``quantileDataAccess``.

    Examples
    --------
    >>> from dppack import quantileDataAccess
    >>> out = quantileDataAccess([3.0, 1.0, 2.0], 0.5, lower_bound=0, upper_bound=10)
    >>> out["Sorted"].tolist(), out["Utility"].tolist()
    ([0.0, 1.0, 2.0, 3.0, 10.0], [-1.5, -0.5, -0.5, -1.5])
    """
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    x, _, _ = _checks.as_finite_data(x, "x")
    quant = check_quant(quant)
    return _quantile_access(x, quant, bounds["lower.bound"], bounds["upper.bound"])
