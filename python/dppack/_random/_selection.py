"""The exact exponential mechanism: utilities on a grid, integer decisions only."""

import functools
import math

import numpy as np

from .. import _exact_selection
from ._coins import _exact_samplers, _fraction
from ._grid import UTILITY_GRID_BITS, _times_power_of_two, grid_exponent, grid_units
from ._laplace import discrete_laplace
from ._seeding import as_generator  # for the examples


def integer_measure(measure):
    """A non-negative base measure as int64 weights with sum below 2^61.

    Integer values (an integer dtype, or integral floats) with a sum below 2^61 are kept
    exactly. Other values are scaled by one power of two, so that their sum lies in
    [2^59, 2^60), and rounded down: each weight moves by less than 2^-59 of the total. The
    exponential mechanism's guarantee takes its base measure as public (not computed from the
    data), so this rounding changes the law by that much and the privacy not at all.
    """
    raw = np.asarray(measure).ravel()
    if raw.dtype.kind in "iub" and float(raw.sum(dtype=np.float64)) < 2.0 ** 61:
        return raw.astype(np.int64)
    m = raw.astype(np.float64)
    total = float(m.sum())
    if total < 2.0 ** 61 and np.array_equal(m, np.floor(m)):
        return m.astype(np.int64)
    shift = 60 - math.frexp(total)[1]  # total * 2^shift < 2^60
    return np.floor(np.ldexp(m, shift)).astype(np.int64)


def exponential_grid(largest, eps, sensitivity):
    """The grid of the exact exponential mechanism's utilities and its rate per grid step.

    Parameters
    ----------
    largest : float
        The largest |u| over the candidates' finite utilities (>= 0; +inf when none is
        finite).
    eps : float
        > 0 and finite.
    sensitivity : float
        Delta > 0, the sensitivity of each utility.

    Returns
    -------
    k : int
        The utilities are rounded to multiples of h = 2^k: k = :func:`grid_exponent` (Delta,
        20), or larger, frexp(largest) - 1000, when a utility exceeds h 2^1000 (so that
        u / h stays finite).
    rate : fractions.Fraction
        gamma = eps / (2 D), D = :func:`grid_units` (Delta, k) = ceil(Delta / h) + 1: the
        mechanism draws a candidate a grid steps below the best with weight exp(-gamma a).
        Exact (eps is a dyadic float).

    Notes
    -----
    Between neighbouring datasets a rounded utility moves by at most D grid steps, so the
    mechanism run with Delta' = D h is eps-DP (McSherry and Talwar's argument, see
    :func:`exponential_mechanism`). Every computation that compares utilities in the
    mechanism's units (``quantileDP``'s rejection step for a union of intervals) takes k
    and gamma from here, so that it agrees with the mechanism exactly.

    References
    ----------
    McSherry and Talwar (2007), "Mechanism design via differential privacy", FOCS, Theorem 6;
    Canonne, Kamath and Steinke 2020 (the grid of the utilities).

    Examples
    --------
    >>> from fractions import Fraction
    >>> k, rate = exponential_grid(3.0, 1.0, 1.0)
    >>> k, rate == Fraction(1, 2 * (2 ** 20 + 1))
    (-20, True)
    >>> exponential_grid(2.0 ** 1010, 1.0, 1.0)[0]
    11
    """
    k = grid_exponent(sensitivity, UTILITY_GRID_BITS)
    if largest > 0:  # keep u / h finite
        k = max(k, math.frexp(largest)[1] - 1000)
    return k, _exponential_rate(float(eps), float(sensitivity), k)


@functools.lru_cache(maxsize=512)
def _exponential_rate(eps, sensitivity, k):
    """gamma = eps / (2 D) of :func:`exponential_grid`, computed once per arguments."""
    return _fraction(eps) / (2 * grid_units(sensitivity, k))


def exponential_coin(steps, rate, rng):
    """An exact coin that shows True with probability exp(-rate * steps) (1 for steps <= 0).

    Parameters
    ----------
    steps : int
        b, a whole number of grid steps.
    rate : fractions.Fraction
        gamma > 0, e.g. the rate of :func:`exponential_grid`.
    rng : NumPy Generator

    Returns
    -------
    bool
        Nothing is drawn when ``steps <= 0``.

    Notes
    -----
    Z of the discrete Laplace law P(Z = z) proportional to exp(-gamma |z|)
    (:func:`discrete_laplace` with t / s = 1 / gamma) is drawn until Z >= 0; then
    P[Z >= b | Z >= 0] = exp(-gamma b), and the coin is Z >= b. Integer arithmetic only,
    for any rational gamma (:func:`bernoulli_exp` needs a denominator below 2^58).
    ``quantileDP`` keeps a point drawn in a union of intervals with this probability.

    References
    ----------
    Canonne, Kamath and Steinke (2020), "The discrete Gaussian for differential privacy",
    NeurIPS, Algorithm 2 (the discrete Laplace sampler).

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> rng = as_generator(0)
    >>> exponential_coin(0, Fraction(1, 2), rng)
    True
    >>> kept = [exponential_coin(2, Fraction(1, 2), rng) for _ in range(4000)]
    >>> abs(sum(kept) / 4000 - math.exp(-1)) < 0.04
    True
    """
    if steps <= 0:
        return True
    while True:
        z = int(discrete_laplace(rate.denominator, rate.numerator, 1, rng)[0])
        if z >= 0:
            return z >= steps


def exponential_mechanism(utility, eps, sensitivity, rng, measure=None):
    """An exact draw of the exponential mechanism with utilities on a dyadic grid.

    Parameters
    ----------
    utility : array_like of float
        Finite values or -inf (probability 0); NaN and +inf must be refused by the caller.
    eps : float
        > 0 and finite.
    sensitivity : float
        Delta > 0, the sensitivity of each utility.
    rng : NumPy Generator
    measure : array_like, optional
        Non-negative base measure (:func:`integer_measure`); uniform by default. At least one
        candidate must have positive measure and a finite utility.

    Returns
    -------
    int
        The 0-based index i drawn with probability proportional to
        measure_i exp(eps u~_i / (2 Delta')).

    Notes
    -----
    Each utility is rounded to the grid h = 2^k, k = :func:`grid_exponent` (Delta, 20) (or
    coarser if a utility exceeds h 2^1000): u~ = h round(u / h). Between neighbouring
    datasets each rounded utility moves by at most Delta + h, and in grid units by at most
    D = ceil(Delta / h) + 1 (:func:`grid_units`); the mechanism is run with
    Delta' = D h <= Delta + 2h, so it is eps-DP by McSherry and Talwar's argument
    (each probability changes by a factor of at most exp(eps / 2) in its numerator and in
    its normaliser). The draw is exact: with a_i = (max u~ - u~_i) / h (integers) and
    gamma = eps / (2 D) (an exact rational, eps being a dyadic float), index i is drawn with
    probability proportional to measure_i exp(-gamma a_i) by rejection from an envelope
    whose every decision compares integers
    (:func:`dppack._exact_selection.select_exponential`): no exp of a float, no cumulative
    sum of rounded weights. Cost: a few passes over the
    utilities (about 1.6 proposals on average, each one pass over a level array).
    """
    u = np.asarray(utility, dtype=np.float64).ravel()
    high, low = float(u.max()), float(u.min())
    excluded = None
    if low == -np.inf:
        excluded = np.isneginf(u)
        low = float(np.min(u, initial=high, where=~excluded))
    k, rate = exponential_grid(max(abs(high), abs(low)), eps, sensitivity)
    scaled = np.rint(_times_power_of_two(u, -k))
    weights = None if measure is None else integer_measure(measure)
    if weights is not None:
        excluded = (weights == 0) if excluded is None else excluded | (weights == 0)
    if excluded is None:
        top = float(np.rint(math.ldexp(high, -k)))  # rounding is monotone
    else:
        top = float(np.max(scaled, initial=-np.inf, where=~excluded))
    if top == -np.inf:
        raise ValueError("At least one candidate must have positive measure and utility > -Inf.")
    return _exact_selection.select_exponential(scaled, top, rate, weights, rng, excluded)


def exponential_interval(utility, widths, eps, sensitivity, rng):
    """An interval drawn with weight width times exp(eps u / (2 Delta')), and a point in it.

    For ``quantileDP``: the data, sorted and padded with the bounds, are rounded to a grid
    g_x = 2^j (a fine power of two below (upper - lower), chosen so that the total width in
    grid units stays below 2^61), so that interval k spans the integers
    [X_k, X_{k+1}) and ``widths`` = X_{k+1} - X_k (integers >= 0; an empty interval has
    probability 0). The release is g_x (X_k + offset).

    Parameters
    ----------
    utility, eps, sensitivity, rng
        As for :func:`exponential_mechanism` (quantileDP: -|k - quant n|, Delta = 1).
    widths : array_like of int
        The interval widths in grid units.

    Returns
    -------
    (int, int)
        The interval index k and an offset uniform on {0, ..., widths[k] - 1}.

    Notes
    -----
    Choosing k with probability proportional to widths_k exp(eps u~_k / (2 Delta')) and then
    a uniform grid point in it is the exponential mechanism over the grid points
    j in [X_0, X_{n+1}), each with the rounded utility of the interval that holds it (base
    measure: counting). That utility has sensitivity Delta = 1: the rank of a grid point
    among the rounded data changes by at most one when one record changes (rounding is
    applied record by record). So the release is eps-DP with Delta' as in
    :func:`exponential_mechanism`, and exact: integer widths, no float length times a float
    exp, no uniform float inside the interval.
    """
    widths = np.asarray(widths)
    if widths.dtype.kind not in "iu" or (widths.size and np.minimum.reduce(widths) < 0):
        raise ValueError("widths must be non-negative integers.")
    total = float(np.add.reduce(widths, dtype=np.float64))  # widths.sum(dtype=np.float64)
    if total > 2.0 ** 61:  # kept exactly by integer_measure
        raise ValueError("widths must add up to at most 2^61.")
    measure = widths.astype(np.int64)
    k = planned_interval(utility, measure, eps, sensitivity, rng) if total < 2.0 ** 61 else None
    if k is None:
        k = exponential_mechanism(utility, eps, sensitivity, rng, measure=measure)
    return k, _exact_samplers().py_uniform(rng, int(widths[k]))


_PLANNED_MAX = 1024  # candidates up to this many: the utilities' levels are cached
_PLANS_KEPT = 64  # plans kept (and utilities seen once), each set cleared when full
_PLANS = {}
_SEEN = set()


def planned_interval(utility, widths, eps, sensitivity, rng):
    """:func:`exponential_interval`'s index for int64 ``widths`` (checked, sum below 2^61),
    or None where it does not apply (then nothing is drawn).

    The same draws and the same index as :func:`exponential_mechanism` with measure
    ``widths``: the grid, the rate, the rounded utilities and the envelope's levels depend
    on the utilities, eps and Delta alone, and are computed once per such arguments
    (:func:`_selection_plan`); the rejection loop of
    :func:`dppack._exact_selection.select_exponential` then runs on them
    (:func:`dppack._exact_selection.select_planned`), every decision an exact comparison of
    integers. Applies to at most 1024 utilities, all finite, whose best candidates have a
    positive width, seen before: the first time, building the plan would cost more than the
    general path saves (utilities that depend on the data are rarely seen twice).
    """
    u = utility
    if type(u) is not np.ndarray or u.dtype != np.float64 or u.ndim != 1:
        u = np.asarray(utility, dtype=np.float64).ravel()
    if u.size > _PLANNED_MAX or u.size != widths.size:
        return None
    key = (u.tobytes(), float(eps), float(sensitivity)) + _exact_selection.envelope()
    plan = _PLANS.get(key)
    if plan is None:
        if key in _PLANS or key not in _SEEN:  # not plannable; or seen for the first time
            if len(_SEEN) >= _PLANS_KEPT:
                _SEEN.clear()
            _SEEN.add(key)
            return None
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        plan = _PLANS[key] = _selection_plan(*key)
        if plan is None:
            return None
    return _exact_selection.select_planned(plan, widths, rng)


def _selection_plan(key, eps, sensitivity, buckets, bits):
    """The plan of :func:`planned_interval` for the utilities of bytes ``key`` (None when one
    is not finite, or for an envelope ``plan_levels`` does not plan); ``buckets`` and
    ``bits``, the envelope's, key the cache only."""
    u = np.frombuffer(key, dtype=np.float64)
    high, low = float(u.max()), float(u.min())
    if not (math.isfinite(high) and math.isfinite(low)):
        return None
    k, rate = exponential_grid(max(abs(high), abs(low)), eps, sensitivity)
    scaled = np.rint(_times_power_of_two(u, -k))
    return _exact_selection.plan_levels(scaled, float(scaled.max()), rate)
