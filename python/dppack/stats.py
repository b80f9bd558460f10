"""DPpack 0.2.2's private descriptive statistics: meanDP ... medianDP.

Every function runs four steps (spec ``dppack_api.md`` §3.0): input checks and clipping, the
data-access call (:mod:`dppack.data_access`: true value and sensitivities), the privacy layer
(a mechanism of :mod:`dppack.mechanisms`), and post-processing. DPpack's checks keep DPpack's
order and message texts; our own checks (finite bounds with lower < upper, numeric, non-empty,
finite data, equal lengths) come right after the bound-length checks. Every error is raised
before any random number is drawn.

Randomness: each call turns ``random_state`` into one generator and draws everything from it,
bounded noise before unbounded noise (spec §3.0).
"""

import math
import warnings

import numpy as np

from . import _checks, _random, data_access, rcompat
from .data_access import (
    check_mechanism,
    check_quant,
    check_samples,
    factor_names,
    table_frame,
)
from .mechanisms import ExponentialMechanism, GaussianMechanism, LaplaceMechanism

__all__ = [
    "covDP",
    "histogramDP",
    "meanDP",
    "medianDP",
    "pooledCovDP",
    "pooledVarDP",
    "quantileDP",
    "sdDP",
    "tableDP",
    "varDP",
]

WHICH = ("bounded", "unbounded", "both")
WHICH_MESSAGE = "which.sensitivity must be one of {'bounded', 'unbounded', 'both'}."
IDENTICAL_MESSAGE = (
    "Sensitivity based on bounded and unbounded differential privacy is identical for this "
    "statistic. Only one value will be returned."
)
EXPONENTIAL_MESSAGE = "Mechanism must be one of {'exponential'}."
EQUIDISTANT_MESSAGE = "Only equidistant histogram bins are supported."


# --------------------------------------------------------------------------------------------
# Shared steps
# --------------------------------------------------------------------------------------------


def _check_which(which_sensitivity, identical=False, stacklevel=3):
    """DPpack's which.sensitivity check; for a statistic whose two sensitivities are equal,
    'both' warns that one value will be returned (spec §3.0). ``stacklevel`` makes the
    warning point at the user's call."""
    if not data_access.is_one_of(which_sensitivity, WHICH):
        raise ValueError(WHICH_MESSAGE)
    if identical and which_sensitivity == "both":
        warnings.warn(IDENTICAL_MESSAGE, UserWarning, stacklevel=stacklevel)


def _needs_clip(low, high, lower, upper):
    """Whether data of range [low, high] reach outside [lower, upper]."""
    return low < lower or high > upper


def _clip(x, low, high, lower, upper):
    """x clipped to [lower, upper]; x itself (no copy) when its range [low, high] is inside.

    (meanDP and varDP do not materialise the clipped data: their data-access cores clip
    block by block.)
    """
    if _needs_clip(low, high, lower, upper):
        return np.clip(x, lower, upper)
    return x


def _noisy(true_values, eps, sensitivity, mechanism, delta, type_DP, rng):
    """The privacy layer of spec §3.0: one call of the requested mechanism.

    Laplace consumes the sensitivity as an l1 norm, the Gaussian mechanisms as an l2 norm; a
    scalar sensitivity gives every coordinate the same noise scale (§2.1, §2.2). For
    'analytic', ``type_DP`` is ignored, as in DPpack (§3.0, §8.9).
    """
    if mechanism == "Laplace":
        return LaplaceMechanism(true_values, eps, sensitivity, random_state=rng)
    if mechanism == "Gaussian":
        return GaussianMechanism(
            true_values, eps, delta, sensitivity, type_DP=type_DP, random_state=rng
        )
    return GaussianMechanism(true_values, eps, delta, sensitivity, analytic=True,
                             random_state=rng)


def _positive(draw):
    """Redraw until the value is > 0 (spec §3.2, §3.7; a truncated noise law, spec §8.6).

    The true values (variances) are >= 0 and the noise is symmetric, so each draw succeeds
    with probability at least 1/2.
    """
    while True:
        value = draw()
        if value > 0:
            return value


def _versions(which_sensitivity, bounded, unbounded):
    """The (label, sensitivity) pairs to release, bounded first (spec §3.0)."""
    if which_sensitivity == "bounded":
        return [("Bounded", bounded)]
    if which_sensitivity == "unbounded":
        return [("Unbounded", unbounded)]
    return [("Bounded", bounded), ("Unbounded", unbounded)]


def _release(versions, release):
    """One result, or DPpack's 'both' list as a dict {"Bounded": ..., "Unbounded": ...}."""
    results = {label: release(sensitivity) for label, sensitivity in versions}
    if len(results) == 1:
        return next(iter(results.values()))
    return results


# --------------------------------------------------------------------------------------------
# Mean, variance, standard deviation, covariance
# --------------------------------------------------------------------------------------------


def meanDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded", mechanism="Laplace",
           delta=0, type_DP="aDP", random_state=None):
    """Differentially private mean.

    Clips ``x`` to [lower_bound, upper_bound] and releases its mean with noise calibrated to
    the sensitivity (upper_bound - lower_bound)/n, the same for bounded and unbounded DP.

    Parameters
    ----------
    x : array_like
        Numeric, finite data; a matrix is averaged over all its entries (n = its size).
    eps : float
        Privacy budget, > 0 and finite (below 1 for mechanism='Gaussian' with type_DP='aDP').
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper; values outside are clipped to them.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
        'both' warns that the two coincide here and returns one value.
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta : float, default 0
        In (0, 1) for the Gaussian mechanisms (the default 0 is an error there, as in DPpack).
    type_DP : {'aDP', 'pDP'}, default 'aDP'
        For mechanism='Gaussian'; ignored by 'analytic'.
    random_state : None, int or NumPy Generator, optional

    Returns
    -------
    float

    Raises
    ------
    ValueError
        DPpack's messages, in DPpack's order (bound lengths, which_sensitivity, mechanism,
        then the mechanism's eps/delta checks); and ours for bounds that are not finite numbers
        with lower < upper and for data that are not numeric, empty or not finite.
    """
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    # The range scan also sums the data clipped to the bounds: n times the true mean.
    x, low, high, total = _checks.as_finite_data(x, "x", with_sum=True, clip=(lower, upper))
    clip = _needs_clip(low, high, lower, upper)
    _check_which(which_sensitivity, identical=True)
    check_mechanism(mechanism)

    # §3.1: the mean of the clipped data, Delta = (U - L)/n.
    access = data_access._mean_access(x, lower, upper, clip=clip, total=total)
    rng = _random.as_generator(random_state)
    # §3.0: Laplace scale Delta/eps; Gaussian sigma of §2.2 with s = Delta (l2 = l1 here).
    return _noisy(access["True.Values"], eps, access["Sensitivity"], mechanism, delta, type_DP,
                  rng)


def varDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded", mechanism="Laplace",
          delta=0, type_DP="aDP", random_state=None):
    """Differentially private sample variance.

    Clips ``x`` and releases its sample variance (denominator n - 1) with noise calibrated to
    the sensitivity (upper_bound - lower_bound)^2/n. As in DPpack, the noisy value is redrawn
    until it is positive, so the noise follows the law conditioned on a positive result.

    Parameters
    ----------
    x : array_like
        Numeric vector (a matrix is refused, as in DPpack) of at least two finite values.
    eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta, type_DP, random_state
        As :func:`meanDP`.

    Returns
    -------
    float
        > 0.

    Raises
    ------
    ValueError
        "x must be a numeric vector." first, then as :func:`meanDP`.
    """
    return _var_dp(x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta,
                   type_DP, random_state)


def _var_dp(x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta, type_DP,
            random_state):
    _checks.check_vector(x, "x")
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    x, low, high, total = _checks.as_finite_data(x, "x", min_size=2, with_sum=True,
                                                 clip=(lower, upper))
    clip = _needs_clip(low, high, lower, upper)
    _check_which(which_sensitivity, identical=True, stacklevel=4)
    check_mechanism(mechanism)

    # §3.2: the variance of the clipped data, Delta = (U - L)^2/n.
    access = data_access._var_access(x, lower, upper, clip=clip, total=total)
    rng = _random.as_generator(random_state)
    # §3.0: Laplace scale Delta/eps; Gaussian sigma of §2.2 with s = Delta (l2 = l1 here).
    return _positive(  # §3.2: redraw the whole output until it is > 0
        lambda: _noisy(access["True.Values"], eps, access["Sensitivity"], mechanism, delta,
                       type_DP, rng)
    )


def sdDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded", mechanism="Laplace",
         delta=0, type_DP="aDP", random_state=None):
    """Differentially private standard deviation: the square root of :func:`varDP`.

    Parameters and errors are those of :func:`varDP` (spec §3.3); the square root is
    post-processing.

    Returns
    -------
    float
        > 0.
    """
    return math.sqrt(_var_dp(x, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                             delta, type_DP, random_state))


def covDP(x1, x2, eps, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
          which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
          random_state=None):
    """Differentially private sample covariance of two variables.

    Clips ``x1`` to [lower_bound1, upper_bound1] and ``x2`` to [lower_bound2, upper_bound2]
    and releases their sample covariance (denominator n - 1) with noise calibrated to the
    sensitivity (upper_bound1 - lower_bound1)(upper_bound2 - lower_bound2)/n.

    Parameters
    ----------
    x1, x2 : array_like
        Numeric vectors of the same length (at least two finite values each).
    eps : float
    lower_bound1, upper_bound1, lower_bound2, upper_bound2 : float
    which_sensitivity, mechanism, delta, type_DP, random_state
        As :func:`meanDP`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        "x1 must be a numeric vector." / "x2 must be a numeric vector." for matrices, then
        the bound-length checks (upper.bound1, lower.bound1, upper.bound2, lower.bound2), our
        checks (including "x1 and x2 must have the same length."), which_sensitivity,
        mechanism.
    """
    first, second, (lower1, upper1, lower2, upper2) = data_access._cov_inputs(
        x1, x2, lower_bound1, upper_bound1, lower_bound2, upper_bound2
    )
    x1 = _clip(*first, lower1, upper1)
    x2 = _clip(*second, lower2, upper2)
    _check_which(which_sensitivity, identical=True)
    check_mechanism(mechanism)

    # §3.4: Delta = (U1 - L1)(U2 - L2)/n, bounded and unbounded.
    access = data_access._cov_access(x1, x2, lower1, upper1, lower2, upper2)
    rng = _random.as_generator(random_state)
    # §3.0: Laplace scale Delta/eps; Gaussian sigma of §2.2 with s = Delta (l2 = l1 here).
    return _noisy(access["True.Values"], eps, access["Sensitivity"], mechanism, delta, type_DP,
                  rng)


# --------------------------------------------------------------------------------------------
# Histogram and contingency table
# --------------------------------------------------------------------------------------------


def _extend_bins(histogram, lower, upper):
    """Add empty bins of the same width until the bins cover [lower, upper] (spec §3.5 step 4).

    DPpack prepends a break first - w (and the mid first - w/2, a count 0) while lower is below
    the first break, then appends last + w (mid last + w/2) while the last break is below upper.
    The breaks are formed by the same repeated subtractions and additions (a sequential
    accumulate), so they are the same floating-point numbers as DPpack's.
    """
    breaks, mids = histogram.breaks, histogram.mids
    counts = np.asarray(histogram.counts, dtype=np.float64)
    width = breaks[1] - breaks[0]
    before = _steps(breaks[0], -width, lower)
    after = _steps(breaks[-1], width, upper)
    # Prepended bin i (i = 1, 2, ...) runs from before[i] to before[i - 1], its mid is
    # before[i - 1] - w/2; they end up in reverse order of prepending.
    breaks = np.concatenate([before[:0:-1], breaks, after[1:]])
    mids = np.concatenate([(before[:-1] - width / 2)[::-1], mids, after[:-1] + width / 2])
    counts = np.concatenate([np.zeros(before.size - 1), counts, np.zeros(after.size - 1)])
    return breaks, mids, counts


# Ours: DPpack extends one bin at a time without limit (for data in a tiny range and wide
# bounds it practically never ends); beyond this many added bins we stop with an error.
_MAX_EXTENSION = 10_000_000


def _steps(start, step, bound):
    """start, start + step, start + 2 step, ... (each added to the previous value), up to and
    including the first value that is not strictly on the near side of ``bound`` (below it
    for step > 0, above it for step < 0). Just ``[start]`` if start is already there."""
    def go_on(values):
        return values < bound if step > 0 else bound < values

    if not go_on(start):
        return np.array([start])
    needed = math.ceil(abs(bound - start) / abs(step))
    if needed > _MAX_EXTENSION:
        raise ValueError(
            f"Extending the histogram to the bounds would add more than {_MAX_EXTENSION} "
            "empty bins; give breaks that span lower.bound and upper.bound."
        )
    count = int(needed) + 2
    while True:
        terms = np.full(count + 1, step)
        terms[0] = start
        values = np.add.accumulate(terms)  # sequential, like DPpack's loop
        stops = np.flatnonzero(~go_on(values))
        if stops.size:
            return values[: stops[0] + 1]
        if values[-1] == values[-2]:
            raise ValueError(
                "The histogram bins cannot be extended to the bounds: their width is below "
                "the floating-point resolution of the bounds."
            )
        count *= 2


def _post_histogram(counts, normalize, allow_negative):
    """Spec §3.5 step 6: negatives to 0 unless allowed; then proportions or rounding."""
    if not allow_negative:
        counts = np.maximum(counts, 0.0)
    if normalize:
        with np.errstate(invalid="ignore", divide="ignore"):  # all zero: NaN, as in DPpack
            return counts / counts.sum()
    return rcompat.round_half_even(counts) + 0.0  # + 0.0 turns -0.0 into 0.0


def histogramDP(x, eps, lower_bound, upper_bound, breaks="Sturges", normalize=False,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
                allow_negative=False, random_state=None):
    """Differentially private histogram.

    Clips ``x`` to the bounds, computes R's ``hist()`` of the clipped data, extends the
    (equidistant) bins with empty ones until they cover [lower_bound, upper_bound], and adds
    noise to every count: sensitivity 2 (Laplace) or sqrt(2) (Gaussian, analytic) for bounded
    DP, 1 for unbounded DP. Then negative counts become 0 (unless ``allow_negative``) and the
    counts are rounded half to even, or divided by their sum if ``normalize``.

    Parameters
    ----------
    x : array_like
        Numeric, finite data.
    eps : float
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper.
    breaks : str, int, array_like or callable, default "Sturges"
        As R's ``hist()``. Only equidistant bins are supported. The breaks computed from the
        data are not private (spec §8.5); pass fixed break points to avoid that.
    normalize : bool, default False
        Return proportions summing to 1 (not densities: DPpack's documentation says
        densities, its code returns proportions, spec §8.4).
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta, type_DP, random_state
        As :func:`meanDP`.
    allow_negative : bool, default False

    Returns
    -------
    rcompat.Histogram or dict
        The sanitized histogram (float counts, xname "x"), or for 'both' a dict
        ``{"Bounded": Histogram, "Unbounded": Histogram}``, each with the full eps (the two
        are not jointly private).

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order, R's ``hist()`` messages for bad breaks, "Only
        equidistant histogram bins are supported.", and ours (bounds, data, flags).
    """
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    x, low, high = _checks.as_finite_data(x, "x")
    normalize = _checks.check_flag(normalize, "normalize")
    allow_negative = _checks.check_flag(allow_negative, "allow.negative")
    x = _clip(x, low, high, lower, upper)
    _check_which(which_sensitivity)
    check_mechanism(mechanism)

    access = data_access._histogram_access(x, breaks, mechanism)  # §3.5 step 2
    true = access["True.Values"]
    if not true.equidist:  # §3.5 step 3
        raise ValueError(EQUIDISTANT_MESSAGE)
    breaks_, mids, counts = _extend_bins(true, lower, upper)  # §3.5 step 4
    rng = _random.as_generator(random_state)

    def release(sensitivity):
        # §3.5 step 5: the scalar Delta for every bin, no budget split (Laplace scale
        # Delta/eps; Gaussian sigma of §2.2 with s = Delta).
        noisy = _noisy(counts, eps, sensitivity, mechanism, delta, type_DP, rng)
        return rcompat.Histogram(
            breaks=breaks_.copy(),
            counts=_post_histogram(noisy, normalize, allow_negative),
            mids=mids.copy(),
            xname=true.xname,
            equidist=True,
        )

    versions = _versions(which_sensitivity, access["Bounded.Sensitivities"],
                         access["Unbounded.Sensitivities"])
    return _release(versions, release)


def tableDP(*factors, eps=1, which_sensitivity="bounded", mechanism="Laplace", delta=0,
            type_DP="aDP", allow_negative=False, random_state=None):
    """Differentially private contingency table.

    Cross-tabulates the factors as R's ``table()`` does and adds noise to every cell:
    sensitivity 2 (Laplace) or sqrt(2) (Gaussian, analytic) for bounded DP, 1 for unbounded
    DP. The noisy cells are rounded half to even, then negative cells become 0 unless
    ``allow_negative``.

    Parameters
    ----------
    *factors : array_like or pandas.Series / Categorical
        One or more factors of the same length, without missing values. A pandas Categorical
        keeps all its categories as levels (empty ones give 0 cells); other data get their
        sorted distinct values. The levels themselves are not private (spec §8.5).
    eps : float, default 1
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta, type_DP, random_state
        As :func:`meanDP`.
    allow_negative : bool, default False

    Returns
    -------
    pandas.Series, pandas.DataFrame or dict
        One factor: a Series indexed by its levels. Two: a DataFrame, rows the levels of the
        first factor, columns those of the second. Three or more: a Series over a MultiIndex
        of every combination of levels, the first factor varying slowest. Index and column
        names are the factors' names (a pandas Series' ``.name``), else None. The cells are
        floats, as in DPpack. For 'both', ``{"Bounded": table, "Unbounded": table}``.

    Notes
    -----
    The noise is drawn as one vector over the cells in R's column-major order (the first
    factor varying fastest: numpy ``order='F'`` on the (L1, ..., Lk) array of counts), as
    DPpack flattens its table, so that the i-th noise draw lands on the same cell as in R.
    """
    _check_which(which_sensitivity)
    check_mechanism(mechanism)
    allow_negative = _checks.check_flag(allow_negative, "allow.negative")

    counts, levels = rcompat.table(*factors)  # §3.6: R's table(...)
    names = factor_names(factors)
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)  # §3.6: as §3.5
    cells = np.asarray(counts, dtype=np.float64).ravel(order="F")  # R's column-major cells
    rng = _random.as_generator(random_state)

    def release(sensitivity):
        # §3.6: scalar Delta on every cell, then round (half to even) first, negatives to 0.
        noisy = _noisy(cells, eps, sensitivity, mechanism, delta, type_DP, rng)
        noisy = rcompat.round_half_even(noisy) + 0.0  # + 0.0 turns -0.0 into 0.0
        if not allow_negative:
            noisy = np.maximum(noisy, 0.0)
        return table_frame(noisy.reshape(counts.shape, order="F"), levels, names)

    return _release(_versions(which_sensitivity, bounded, unbounded), release)


# --------------------------------------------------------------------------------------------
# Pooled variance and covariance
# --------------------------------------------------------------------------------------------


def _check_finite_sensitivities(versions, statistic, samples):
    """Ours: refuse before any draw a sensitivity that is not finite and > 0 (DPpack's are
    Inf / NaN for some tiny sample sizes, spec §3.7, §3.8, and its mechanisms then fail)."""
    total = sum(s.shape[0] for s in samples)
    for label, sensitivity in versions:
        if not (np.isfinite(sensitivity) and sensitivity > 0):
            raise ValueError(
                f"The {label.lower()} sensitivity of the pooled {statistic} is not finite for "
                f"N = {total} observations in J = {len(samples)} samples; it needs more "
                "observations."
            )


def pooledVarDP(*samples, eps=1, lower_bound, upper_bound, which_sensitivity="bounded",
                mechanism="Laplace", delta=0, type_DP="aDP", approx_n_max=False,
                random_state=None):
    """Differentially private pooled variance of several samples.

    Clips every sample to the bounds and releases sum_j (n_j - 1) s_j^2 / (N - J), redrawn
    until positive, as in DPpack (spec §3.7).

    Parameters
    ----------
    *samples : array_like
        J >= 1 numeric vectors, at least two finite values each.
    eps : float, default 1
    lower_bound, upper_bound : float
        Keyword-only, required.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
        The unbounded sensitivity differs from the bounded one only when every sample has
        two values (N = 2J); otherwise 'both' warns and returns one value.
    mechanism, delta, type_DP, random_state
        As :func:`meanDP`.
    approx_n_max : bool, default False
        Use N instead of the largest sample size in the bounded sensitivity (the largest
        sample size is otherwise released unprotected, spec §8.5).

    Returns
    -------
    float or dict
        > 0; for 'both' with different sensitivities, ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order (lower.bound, then upper.bound), and ours for the
        bounds, the samples, and a sensitivity that is infinite (a single sample of two
        values, unbounded).
    """
    bounds = _checks.check_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    arrays, lows, highs = check_samples(samples)
    arrays = [_clip(a, lo, hi, lower, upper) for a, lo, hi in zip(arrays, lows, highs)]
    _check_which(which_sensitivity)
    check_mechanism(mechanism)

    access = data_access._pooled_var_access(arrays, lower, upper, approx_n_max)  # §3.7
    bounded = access["Bounded.Sensitivities"]
    unbounded = access["Unbounded.Sensitivities"]
    if which_sensitivity == "both" and bounded == unbounded:  # §3.0: exact equality
        warnings.warn(IDENTICAL_MESSAGE, UserWarning, stacklevel=2)
        which_sensitivity = "bounded"
    versions = _versions(which_sensitivity, bounded, unbounded)
    _check_finite_sensitivities(versions, "variance", arrays)
    rng = _random.as_generator(random_state)

    def release(sensitivity):
        # §3.7 / §3.0: Laplace scale Delta/eps; Gaussian sigma of §2.2 with s = Delta.
        return _positive(  # §3.7: redraw until > 0, per requested version
            lambda: _noisy(access["True.Values"], eps, sensitivity, mechanism, delta, type_DP,
                           rng)
        )

    return _release(versions, release)


def pooledCovDP(*samples, eps=1, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
                approx_n_max=False, random_state=None):
    """Differentially private pooled covariance of several two-column samples.

    Clips the first column of every sample to [lower_bound1, upper_bound1] and the second to
    [lower_bound2, upper_bound2], and releases sum_j (n_j - 1) c_j / (N - J) (spec §3.8).

    Parameters
    ----------
    *samples : array_like
        J >= 1 numeric matrices of shape (n_j, 2), n_j >= 2, finite.
    eps : float, default 1
    lower_bound1, upper_bound1, lower_bound2, upper_bound2 : float
        Keyword-only, required.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
        'both' always returns both values (no warning).
    mechanism, delta, type_DP, random_state
        As :func:`meanDP`.
    approx_n_max : bool, default False
        Affects the bounded sensitivity only.

    Returns
    -------
    float or dict
        For 'both', ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order (lower.bound1, lower.bound2, upper.bound1,
        upper.bound2), and ours for the bounds, the samples, and an unbounded sensitivity
        that is not finite (N - J - 1 = 0).
    """
    bounds = _checks.check_bounds(
        ("lower.bound1", lower_bound1),
        ("lower.bound2", lower_bound2),
        ("upper.bound1", upper_bound1),
        ("upper.bound2", upper_bound2),
    )
    lower = np.array([bounds["lower.bound1"], bounds["lower.bound2"]])
    upper = np.array([bounds["upper.bound1"], bounds["upper.bound2"]])
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    arrays, lows, highs = check_samples(samples, columns=2)
    arrays = [
        np.clip(a, lower, upper) if np.any(lo < lower) or np.any(hi > upper) else a
        for a, lo, hi in zip(arrays, lows, highs)
    ]
    _check_which(which_sensitivity)
    check_mechanism(mechanism)

    access = data_access._pooled_cov_access(  # §3.8
        arrays, lower[0], upper[0], lower[1], upper[1], approx_n_max
    )
    versions = _versions(which_sensitivity, access["Bounded.Sensitivities"],
                         access["Unbounded.Sensitivities"])
    _check_finite_sensitivities(versions, "covariance", arrays)
    rng = _random.as_generator(random_state)

    def release(sensitivity):
        # §3.8 / §3.0: Laplace scale Delta/eps; Gaussian sigma of §2.2 with s = Delta.
        return _noisy(access["True.Values"], eps, sensitivity, mechanism, delta, type_DP, rng)

    return _release(versions, release)


# --------------------------------------------------------------------------------------------
# Quantiles
# --------------------------------------------------------------------------------------------


def quantileDP(x, quant, eps, lower_bound, upper_bound, which_sensitivity="bounded",
               mechanism="exponential", random_state=None):
    """Differentially private quantile (Smith 2011), by the exponential mechanism.

    The sorted data, clipped to the bounds and padded with them, cut [lower_bound,
    upper_bound] into n + 1 intervals; interval k (k data points below it) is chosen with
    probability proportional to its width times exp(-eps |k - quant n| / 2), and the result
    is drawn uniformly within it (spec §3.9).

    Parameters
    ----------
    x : array_like
        Numeric, finite data (a matrix counts all its entries).
    quant : float
        In [0, 1].
    eps : float
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
        The sensitivity is 1 either way; 'both' warns and returns one value.
    mechanism : {'exponential'}, default 'exponential'
    random_state : None, int or NumPy Generator, optional
        Two uniforms are drawn: the exponential mechanism's, then the position in the
        interval.

    Returns
    -------
    float
        In [lower_bound, upper_bound].

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order (bound lengths, quant, which_sensitivity,
        mechanism, then the exponential mechanism's eps check), and ours for bounds and data.
    """
    return _quantile_dp(x, quant, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                        random_state)


def _quantile_dp(x, quant, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                 random_state):
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    x, _, _ = _checks.as_finite_data(x, "x")
    # DPpack clips x here; the data access clips its sorted copy, which gives the same result
    # without a second copy of the data.
    quant = check_quant(quant)
    _check_which(which_sensitivity, identical=True, stacklevel=4)
    if not data_access.is_one_of(mechanism, ("exponential",)):
        raise ValueError(EXPONENTIAL_MESSAGE)

    # §3.9 step 2: sorted data, clipped, padded with the bounds.
    ordered = data_access.sorted_padded(x, lower, upper)
    n = x.size
    # The exponential mechanism's own eps check, made before eps is used below (same text,
    # same place in the order of checks: the mechanism checks nothing else that can fail).
    eps = _checks.check_finite_budget(_checks.check_positive_scalar(eps, "eps"), "eps")
    start, stop = _quantile_window(ordered, n, quant, eps, upper - lower)
    # §3.9 step 1 on the window: utilities -|k - quant n|.
    utility = data_access.quantile_utility(n, quant, start, stop)
    widths = np.diff(ordered[start:stop + 1])  # §3.9 step 3: interval widths are the measure
    rng = _random.as_generator(random_state)
    # §3.9 step 4: Delta = 1 for bounded and unbounded DP; a 0-based interval index.
    k = start + ExponentialMechanism(utility, eps, 1.0, measure=widths, random_state=rng)
    # §3.9 step 5: uniform within [sorted[k], sorted[k + 1]].
    return float(ordered[k] + _random.uniform(rng) * (ordered[k + 1] - ordered[k]))


# exp(x) is exactly 0 in double precision for x < -745.2; with this margin a candidate whose
# log weight is this far below the largest one has weight exactly 0 in ExponentialMechanism.
_UNDERFLOW = 800.0


def _quantile_window(ordered, n, quant, eps, spread):
    """Candidates [start, stop) outside which every exponential-mechanism weight is exactly 0.

    Candidate k (interval [sorted[k], sorted[k + 1]]) has log weight
    eps (u_k - max u) / 2 + log(width_k), and ExponentialMechanism subtracts the largest log
    weight before exponentiating. Outside the window, u_k is at most the utility of the nearest
    outside candidate and width_k at most U - L; inside it, the largest log weight is at least
    that of the window. When the first bound is more than _UNDERFLOW below the second, every
    outside weight is exactly 0 in the mechanism, and calling it on the window selects,
    from the same single uniform, the same interval as calling it on all n + 1 candidates
    (the cumulative sums inside the window are bit for bit the same). The window grows
    until that holds, up to all candidates.

    Returns
    -------
    (start, stop) : candidates start, ..., stop - 1.
    """
    centre = quant * n
    # A first guess: widths near (U - L)/n, so log weights fall by eps |k - qn| / 2 from
    # about log((U - L)/n).
    half = 2.0 * (_UNDERFLOW + math.log(n + 1.0)) / eps + 2.0
    with np.errstate(divide="ignore"):
        log_spread = math.log(spread)
        while half < n + 1:
            start = max(0, int(math.floor(centre - half)))
            stop = min(n + 1, int(math.ceil(centre + half)) + 1)
            utility = data_access.quantile_utility(n, quant, start, stop)
            log_weight = 0.5 * eps * (utility - utility.max()) + np.log(
                np.diff(ordered[start:stop + 1])
            )
            top = log_weight.max()
            edges = [k for k in (start - 1, stop) if 0 <= k <= n]
            if not edges:
                return start, stop
            outside = max(-abs(k - centre) for k in edges)
            if 0.5 * eps * (outside - utility.max()) + log_spread - top < -_UNDERFLOW:
                return start, stop
            half *= 4.0
    return 0, n + 1


def medianDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded",
             mechanism="exponential", random_state=None):
    """Differentially private median: :func:`quantileDP` with quant = 0.5 (spec §3.10).

    Returns
    -------
    float
    """
    return _quantile_dp(x, 0.5, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                        random_state)
