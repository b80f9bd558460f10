"""The batch Laplace noise path of noise reduction on the integer grid: one grid for all levels,
the integer lazy walk of every entry, released on the grid (Koufogiannis, Han and Pappas 2015;
Ligett et al. 2017), for :mod:`dppack.accuracy_first.noise_reduction` and the accuracy-first
models.
"""

import fractions
import functools

import numpy as np

from .. import _random
from ._levels import common_rates


# --------------------------------------------------------------------------------------------
# Laplace noise reduction on the integer grid
# --------------------------------------------------------------------------------------------
#
# The discrete Laplace law P(z) = (1 - q) / (1 + q) q^|z|, q = exp(-a), has characteristic
# function (1 - q)^2 / (1 - 2 q cos w + q^2) = 1 / (1 + c (2 - 2 cos w)) with
# c = q / (1 - q)^2 = 1 / (4 sinh(a / 2)^2): the form 1 / (1 + b^2 w^2) of the continuous
# Laplace's, with b^2 w^2 replaced by c (2 - 2 cos w). So the lazy walk of Koufogiannis, Han and
# Pappas (2015) holds on the integers: for c1 > c2, Z1 = Z2 + W with W = 0 with probability
# p = c2 / c1, else W ~ DL(q1), independent of Z2 ~ DL(q2), gives Z1 ~ DL(q1), since
# (p + (1 - p) / (1 + c1 u)) / (1 + c2 u) = 1 / (1 + c1 u), u = 2 - 2 cos w.

RATE_BITS = 21  # each level's rate s / t is eps / D rounded down by a relative 2^-20 or less


def level_grid(sensitivity, eps_first, coordinates):
    """(k, D): the grid g = 2^k of the first (most private, largest-scale) level, chosen as
    :func:`dppack._random.laplace_grid` does, and the sensitivity D in grid units after
    rounding (:func:`dppack._random.grid_units`). One grid serves every level: the data are
    rounded once, and later levels (smaller scales) are only coarser in relative terms."""
    k, units, _, _ = _random.laplace_grid(sensitivity, eps_first, coordinates)
    return k, units


@functools.lru_cache(maxsize=4096)
def _level_rate(units, eps):
    """The rate a = s / t (t = 2^j) of the integer noise of level ``eps``: P(z) ~ exp(-a |z|).

    s = floor(t eps / D) with t chosen so that s >= 2^20: a D <= eps (the level's privacy
    eps' = a D is at most eps), lowered by a relative 2^-20 at most."""
    e = fractions.Fraction(float(eps))
    j = (units * e.denominator // e.numerator).bit_length() + RATE_BITS
    return 1 << j, (e.numerator << j) // (units * e.denominator)


@functools.lru_cache(maxsize=4096)
def level_fraction(units, eps):
    """The rate of :func:`_level_rate` as a Fraction (computed once per level)."""
    t, s = _level_rate(units, eps)
    return fractions.Fraction(s, t)


@functools.lru_cache(maxsize=4096)
def _keep_interval(a1, a2, bits):
    l1, h1 = _random.exp_series_bounds(a1 / 2, 1, 2, bits + 4)
    l2, h2 = _random.exp_series_bounds(a2 / 2, 1, 2, bits + 4)
    return (l1 / h2) ** 2, (h1 / l2) ** 2


def _keep_bounds(a1, a2):
    """Bounds of p = c(a2) / c(a1) = sinh(a1 / 2)^2 / sinh(a2 / 2)^2 (a1 < a2, Fractions):
    the probability that the noise of the less private level (rate a2) is kept unchanged at
    the more private one (rate a1). (Cached: a level grid is often reused.)"""
    return functools.partial(_keep_interval, a1, a2)


@functools.lru_cache(maxsize=256)
def _batch_plan(units, levels):
    """What the batch path needs of the levels ``levels`` (a tuple of floats) and the
    sensitivity ``units``, computed once: the rates (t_i, s_i) of :func:`_level_rate`, and
    for the lower levels T-1, ..., 1 (the order of the coins) the keep-probability bounds
    with their 64-bit thresholds (``dppack._random.word_thresholds``)."""
    rates = tuple(_level_rate(units, e) for e in levels)
    a = [fractions.Fraction(s, t) for t, s in rates]
    one = functools.partial(_certain, fractions.Fraction(1))
    bounds = tuple(one if a[i] >= a[i + 1] else _keep_bounds(a[i], a[i + 1])
                   for i in range(len(levels) - 2, -1, -1))
    thresholds = tuple(_random.word_thresholds(b) for b in bounds)
    return rates, bounds, thresholds


def _certain(p, bits):
    return p, p


# up to this many entries, the batch path runs entry by entry on Python integers
SMALL_PATH = 6
# up to this many entries, the batch path draws all its discrete Laplace noise in one call
MEDIUM_PATH = 2000
# The largest common denominator t of the rates the one-call path takes: its geometric draws
# (dppack._exact.geometric_rates) are defined for t <= 2^62; beyond (tiny levels) the
# per-level samplers, which take any t, draw the same law.
MEDIUM_PATH_LARGEST_T = 1 << 62


def integer_noise_path(size, units, levels, rng):
    """The integer noise Z_1, ..., Z_T of the batch Laplace path: a (T, size) array.

    Z_T ~ DL(a_T) entrywise (exact); for t = T-1, ..., 1 each entry keeps Z_{t+1} with
    probability p_t = c(a_{t+1}) / c(a_t) (exact coins, one 64-bit word each against the
    thresholds of the bounds of p_t, refined exactly when the word cannot decide) and
    otherwise adds a fresh DL(a_t) draw. Then Z_t ~ DL(a_t) for every t, with
    a_t D <= eps_t (:func:`_level_rate`). Levels closer than the rates' resolution
    (a_t >= a_{t+1}) keep the noise (p = 1).

    The draws: for more than ``MEDIUM_PATH`` entries, Z_T
    (:func:`dppack._random.discrete_laplace_words`), then the coins of levels T-1, ..., 1 (one
    row each, :func:`dppack._random.bernoulli_real_rows`), then the fresh draws of levels
    T-1, ..., 1 where a coin failed; from ``SMALL_PATH`` + 1 to ``MEDIUM_PATH`` entries, the
    coins, then every discrete Laplace draw in one call (:func:`_medium_noise_path`); up to
    ``SMALL_PATH``, entry by entry, Z_T and then, level by level, the coin and the fresh
    draw if it failed, on Python integers (:func:`dppack._random.discrete_laplace_one`,
    :func:`dppack._random.bernoulli_word`). All are the same law: every draw is exact and
    independent of the others.
    """
    T = len(levels)
    rates, bounds, thresholds = _batch_plan(units, tuple(np.asarray(levels, dtype=float).tolist()))
    if size <= SMALL_PATH:
        return _small_noise_path(size, rates, bounds, thresholds, rng)
    if size <= MEDIUM_PATH and max(t for t, _ in rates) <= MEDIUM_PATH_LARGEST_T:
        return _medium_noise_path(size, rates, bounds, thresholds, rng)
    steps = np.zeros((T, size), dtype=np.int64)
    steps[T - 1] = _random.discrete_laplace_words(*rates[-1], size, rng)
    order = list(range(T - 2, -1, -1))
    keep = (_random.bernoulli_real_rows(bounds, size, rng, thresholds=thresholds)
            if order else None)
    wide = False
    for row, i in enumerate(order):
        fresh = np.flatnonzero(~keep[row])
        if fresh.size:
            draws = _random.discrete_laplace_words(*rates[i], fresh.size, rng)
            if draws.dtype == object and not wide:  # beyond int64 (never, in practice)
                steps, wide = steps.astype(object), True
            steps[i, fresh] = draws
    # Z_t = Z_T + the fresh draws of levels T-1, ..., t (in place, row by row)
    for i in range(T - 2, -1, -1):
        steps[i] += steps[i + 1]
    return steps


def _medium_noise_path(size, rates, bounds, thresholds, rng):
    """:func:`integer_noise_path` with every discrete Laplace draw in one call (a few
    thousand entries, where the calls' fixed cost dominates): the coins of levels T-1, ...,
    1 (one row each), then the geometric draws of all levels at once
    (:func:`dppack._random.discrete_laplace_words` with the rates a_t = s_t / t_t over the
    common t = max t_t, s_t scaled by t / t_t: the same rates; a signed geometric per draw,
    exactly DL(a_t))."""
    T = len(rates)
    top, scaled = common_rates(rates)
    # moved[r]: the entries that draw at level T-1-r (all of them at T, then the failed coins)
    moved = np.empty((T, size), dtype=bool)
    moved[0] = True
    if T > 1:
        np.logical_not(_random.bernoulli_real_rows(bounds, size, rng, thresholds=thresholds),
                       out=moved[1:])
    # row r's rate for its moved entries, in order
    s_all = np.repeat(scaled, moved.sum(axis=1))
    z = _random.discrete_laplace_words(top, s_all, s_all.size, rng)
    steps = np.zeros((T, size), dtype=z.dtype)
    steps[moved] = z
    _random.accumulate_rows(steps)  # the path, in place (the same integers)
    return steps[::-1]


def _small_noise_path(size, rates, bounds, thresholds, rng):
    """:func:`integer_noise_path` entry by entry on Python integers (a few entries)."""
    T = len(rates)
    columns = []
    for _ in range(size):
        t, s = rates[-1]
        z = _random.discrete_laplace_one(s, t, rng)
        column = [z]
        for row, i in enumerate(range(T - 2, -1, -1)):
            low, high = thresholds[row]
            if not _random.bernoulli_word(_random.word(rng), low, high, bounds[row], rng):
                t, s = rates[i]
                z += _random.discrete_laplace_one(s, t, rng)
            column.append(z)
        columns.append(column[::-1])
    wide = any(abs(v) >= (1 << 62) for column in columns for v in column)
    out = np.array(columns, dtype=object if wide else np.int64).reshape(size, T)
    return out.T.copy()


def laplace_noise_path(values, sensitivity, eps, rng, coordinates=None):
    """The batch Laplace path released on the grid: shape (T, ``*values.shape``).

    Row t is g (round(x / g) + Z_t) (:func:`dppack._random.release_on_grid`) with the grid
    of :func:`level_grid` and the integer path of :func:`integer_noise_path`. ``eps`` (a
    strictly increasing float array) and ``sensitivity`` (the L1 sensitivity of ``values``
    as a whole) are assumed checked; ``coordinates`` (m, how many entries can differ between
    neighbours) defaults to all of them.

    Privacy: the rounded V = round(x / g) has L1 sensitivity at most D in grid units, and
    V + Z_t with Z_t ~ DL(a_t) is (a_t D)-DP, a_t D <= eps_t (Canonne, Kamath and Steinke
    2020, discrete Laplace); the releases of the levels below t are V + Z_t plus independent
    data-free noise (the walk runs from t downward), so the prefix 1..t is eps_t-DP
    (post-processing; Koufogiannis et al. 2015, Ligett et al. 2017 Thm 2.7). The float
    releases are functions of the integers V + Z_t only.
    """
    x = np.asarray(values, dtype=np.float64)
    m = x.size if coordinates is None else int(coordinates)
    k, units = level_grid(float(sensitivity), float(eps[0]), max(m, 1))
    path = integer_noise_path(x.size, units, eps, rng)
    T = path.shape[0]
    return _random.release_path_on_grid(x, path, k).reshape((T,) + x.shape)
