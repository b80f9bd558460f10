"""Discrete Gaussian noise: the grid and variance, the release, tails and exact delta."""

import functools
import math

import numpy as np

from ._seeding import as_generator  # for the examples
from ._coins import _exact_samplers, _fraction, bernoulli_exp_one
from ._grid import GAUSSIAN_FINE_BITS, GAUSSIAN_GRID_BITS, GRID_BITS, _release, grid_exponent
from ._laplace import discrete_laplace_one


def discrete_gaussian(p, q, size, rng):
    """``size`` exact draws Z with P(Z = z) proportional to exp(-z^2 q / (2 p)), p, q positive
    integers: the discrete Gaussian with sigma^2 = p/q (CKS Algorithm 3;
    :func:`dppack._exact.discrete_gaussian`). int64."""
    return _exact_samplers().discrete_gaussian(p, q, size, rng)


def discrete_gaussian_grid(sigma, sensitivity=None, coordinates=1):
    """The grid and the integer variance of :func:`discrete_gaussian_noise`.

    Parameters
    ----------
    sigma : float
        The standard deviation (> 0, finite).
    sensitivity : float, optional
        Delta, the L2 sensitivity of a vector release of ``coordinates`` values; used only
        when ``coordinates`` > 1.
    coordinates : int, default 1
        m, how many values the release adds noise to.

    Returns
    -------
    k : int
        For a scalar (m = 1, or no sensitivity): g = 2^k = :func:`grid_exponent` (sigma, 13),
        sigma / g in [2^13, 2^14) (the raised sensitivity of a release,
        D = ceil(Delta / g) + 1, costs a relative g / Delta, so finer is better; the
        calibration's tail sums cost O(s), so not finer). For a vector, whose rounding adds
        sqrt(m) grid steps to Delta / g: the largest power of two with sqrt(m) g <= 2^-12 Delta
        and g <= sigma / 2^13, but not finer than sigma / g in [2^19, 2^20)
        (``GAUSSIAN_FINE_BITS``; the sampler stays in int64 to s of about 2^28, the vector
        guarantees are closed forms), so that the rounding costs a relative 2^-12 or
        sqrt(m) sigma 2^-19 / Delta, whichever is larger.
    sigma2 : int
        (sigma / g)^2 rounded up to an integer and then to a multiple of the sampler's
        proposal scale (:func:`gaussian_variance`): the variance parameter of the discrete
        Gaussian in grid units, rounded up (which only adds privacy), a relative change
        below 2^-12.
    """
    return _discrete_gaussian_grid(float(sigma),
                                   None if sensitivity is None else float(sensitivity),
                                   int(coordinates))


@functools.lru_cache(maxsize=512)
def _discrete_gaussian_grid(sigma, sensitivity, coordinates):
    """:func:`discrete_gaussian_grid` on floats, computed once per arguments."""
    k = grid_exponent(sigma, GAUSSIAN_GRID_BITS)
    if sensitivity is not None and coordinates > 1:
        fine = grid_exponent(sensitivity / math.sqrt(coordinates), GRID_BITS)
        k = max(min(k, fine), grid_exponent(sigma, GAUSSIAN_FINE_BITS))
    scaled = _fraction(math.ldexp(float(sigma), -k))
    return k, gaussian_variance(math.ceil(scaled * scaled))


def gaussian_variance(sigma2):
    """The smallest multiple of the sampler's proposal scale t that is >= ``sigma2``.

    Parameters
    ----------
    sigma2 : int
        A variance parameter s^2 >= 1 (grid units).

    Returns
    -------
    int
        p >= sigma2 with t = 2^j dividing p, where t is the proposal scale of the exact
        sampler for p (CKS Algorithm 3; ``dppack._exact.gaussian_proposal_exponent``: the
        smallest power of two with 2 t^2 >= p). The sampler then computes its acceptance
        exponent as (|Y| - p / t)^2 / (2 p), in int64 up to s of about 2^28 (see
        :func:`dppack._exact.discrete_gaussian`). The change, below t <= sqrt(2) s + 1, is a
        relative 2 / s or less for s >= 2, and only adds noise (privacy).

    Notes
    -----
    t(sigma2) serves for the result too: 2 t^2 >= sigma2 is itself a multiple of t, so the
    result is at most 2 t^2 and keeps the same proposal scale.
    """
    sigma2 = int(sigma2)
    if sigma2 < 1:
        raise ValueError("sigma2 must be a positive integer.")
    t = 1 << _exact_samplers().gaussian_proposal_exponent(sigma2, 1)
    return -(-sigma2 // t) * t


def discrete_gaussian_noise(values, sigma, rng):
    """Release ``values`` with exact discrete Gaussian noise on a power-of-two grid.

    Parameters
    ----------
    values : array_like of float
        The true values (finite), any shape.
    sigma : float
        The standard deviation of the continuous calibration (> 0, finite).
    rng : NumPy Generator

    Returns
    -------
    numpy.ndarray of float
        g (round(x / g) + Z) entrywise, Z independent draws of the discrete Gaussian
        N_Z(0, s^2), P(Z = z) proportional to exp(-z^2 / (2 s^2)), with (g, s^2) =
        (2^k, sigma2) from :func:`discrete_gaussian_grid`: s >= sigma / g.

    Notes
    -----
    The privacy statement is the discrete Gaussian's, in grid units, with the sensitivity
    D = ceil(Delta / g) + 1 of the rounded value (:func:`grid_units`; Delta the L2
    sensitivity of a scalar release):

    * CKS (Canonne, Kamath and Steinke 2020) Theorem 4 with its corollary: adding
      N_Z(0, s^2) to an integer-valued query of sensitivity D is (D^2 / (2 s^2))-zCDP. For a
      vector with L2 sensitivity Delta, of which m entries can differ between neighbours,
      ||V - V'||_2 <= Delta / g + sqrt(m), and the Renyi divergences of the independent
      coordinates add, so the release is ((Delta / g + sqrt(m))^2 / (2 s^2))-zCDP.
    * CKS Theorem 7: for integer sensitivity D the scalar release is (eps, delta)-DP with
      delta = P[Y > eps s^2 / D - D / 2] - exp(eps) P[Y > eps s^2 / D + D / 2],
      Y ~ N_Z(0, s^2), the smallest such delta; :func:`discrete_gaussian_delta` computes it.

    The classical, pDP and analytic calibrations are stated for the continuous Gaussian;
    the calibration step must check its (eps, delta) against these statements (with D, not
    Delta / g), raising sigma where they fall short. Rounding to the grid costs at most
    g / 2 <= sigma / 2^14; the extra grid step raises the sensitivity by a relative
    g / Delta <= sigma / (2^13 Delta).
    """
    return _gaussian_on_grid(values, *discrete_gaussian_grid(sigma), rng)


def _gaussian_on_grid(values, k, sigma2, rng):
    x = np.asarray(values, dtype=np.float64)
    p, q = (sigma2.numerator, sigma2.denominator) if hasattr(sigma2, "denominator") else (
        int(sigma2), 1)
    return _release(x, discrete_gaussian(p, q, x.size, rng), k)


def discrete_gaussian_noise_on_grid(values, k, sigma2, rng):
    """Release ``values`` with exact discrete Gaussian noise of integer variance parameter
    ``sigma2`` on the grid g = 2^k: g (round(x / g) + Z), Z ~ N_Z(0, sigma2) entrywise.

    The draw of :func:`discrete_gaussian_noise` with the grid and the variance given, as
    ``mechanisms.discrete_gaussian_parameters`` calibrates them (sigma2 at most 2^28 for a
    scalar and 2^42 for a vector, a multiple of the sampler's proposal scale, so that its
    arithmetic stays in int64: :func:`gaussian_variance`; counts on the integers may take
    any integer up to 2^26, or a Fraction p / q below 2^10, where the sampler's general
    path stays in int64).

    Parameters
    ----------
    values : array_like of float
        The true values (finite), any shape.
    k : int
        The grid exponent.
    sigma2 : int or fractions.Fraction
        s^2 in grid units: a whole number >= 1, or a Fraction p / q (the small variances
        of counts, ``integers=True``).
    rng : NumPy Generator

    Returns
    -------
    numpy.ndarray of float
        Shaped like ``values``; every entry a multiple of 2^k.
    """
    if not (hasattr(sigma2, "denominator") and sigma2.denominator != 1):
        sigma2 = int(sigma2)
    return _gaussian_on_grid(values, int(k), sigma2, rng)


def _log_tail_sum(m, sigma2):
    """log of sum_{y >= m} exp(-y^2 / (2 sigma2)) for an integer m >= 1 (floating point).

    The terms after y = m are exp(-m^2 / (2 sigma2)) exp(-(2 m i + i^2) / (2 sigma2)), i >= 0;
    they are summed while i < min(12 sigma + 12, 60 sigma2 / m + 2): beyond, each factor is
    below exp(-60) and their sum below exp(-60) max(sigma, sigma2 / m) relative to the first
    term (1), far below the double precision of the sum for sigma < 2^20. In blocks of 2^20.
    """
    sigma = math.sqrt(sigma2)
    length = int(min(12.0 * sigma + 12.0, 60.0 * sigma2 / m + 2.0)) + 2
    total = 0.0
    for start in range(0, length, 1 << 20):
        i = np.arange(start, min(length, start + (1 << 20)), dtype=np.float64)
        total += float(np.exp(-(2.0 * m * i + i * i) / (2.0 * sigma2)).sum())
    return -m * m / (2.0 * sigma2) + math.log(total)


def _log_normaliser(sigma2):
    """log of sum over all integers y of exp(-y^2 / (2 sigma2)): Poisson summation,
    s sqrt(2 pi) (1 + 2 sum_{j >= 1} exp(-2 pi^2 s^2 j^2)), for s >= 1 and direct summation
    below."""
    if sigma2 >= 1.0:
        theta = 1.0 + 2.0 * sum(math.exp(-2.0 * math.pi ** 2 * sigma2 * j * j)
                                for j in range(1, 4))
        return 0.5 * math.log(2.0 * math.pi * sigma2) + math.log(theta)
    return math.log1p(2.0 * math.exp(_log_tail_sum(1, sigma2)))


def discrete_gaussian_tail(m, sigma2):
    """P[Y >= m] for Y ~ N_Z(0, sigma2), P(Y = y) proportional to exp(-y^2 / (2 sigma2)).

    Parameters
    ----------
    m : float
        The threshold (a real m means P[Y >= ceil(m)]).
    sigma2 : float
        The variance parameter s^2 > 0 (in grid units for a release on a grid).

    Returns
    -------
    float
        Computed in floating point (relative error about 1e-12): the tail sum of the
        probabilities beyond max(m, 1 - m) (:func:`_log_tail_sum`, cost O(s)) over the
        normalising constant, and the complement by symmetry for m <= 0 (Canonne, Kamath and
        Steinke 2020, the tail sums of their Theorem 7).

    Examples
    --------
    >>> round(discrete_gaussian_tail(0, 4.0) + discrete_gaussian_tail(1, 4.0), 12)
    1.0
    """
    sigma2 = float(sigma2)
    if not (sigma2 > 0 and math.isfinite(sigma2)):
        raise ValueError("sigma2 must be positive and finite.")
    first = math.ceil(float(m))
    log_z = _log_normaliser(sigma2)
    if first >= 1:
        return math.exp(_log_tail_sum(first, sigma2) - log_z)
    return 1.0 - math.exp(_log_tail_sum(1 - first, sigma2) - log_z)


def discrete_gaussian_delta(eps, sensitivity, sigma):
    """The exact delta of the discrete Gaussian mechanism at eps (CKS Theorem 7).

    Parameters
    ----------
    eps : float
        >= 0.
    sensitivity : int
        D >= 1, the sensitivity of the integer-valued query (in grid units).
    sigma : float
        s > 0, the scale of N_Z(0, s^2) (in grid units; pass sqrt(sigma2) of
        :func:`discrete_gaussian_grid`).

    Returns
    -------
    float
        delta = P[Y > eps s^2 / D - D / 2] - exp(eps) P[Y > eps s^2 / D + D / 2],
        Y ~ N_Z(0, s^2): adding Y to a query with integer sensitivity D is (eps, delta)-DP,
        and no smaller delta holds (Canonne, Kamath and Steinke 2020, Theorem 7).

    Notes
    -----
    Computed in floating point (relative error about 1e-12), not exactly: P[Y >= m] from
    sums of the probabilities (:func:`_log_tail_sum`, cost O(s)), the normalising constant
    sum_y exp(-y^2 / (2 s^2)) = s sqrt(2 pi) (1 + 2 sum_{j >= 1} exp(-2 pi^2 s^2 j^2))
    (Poisson summation) for s >= 1 and by direct summation below.
    """
    d = int(sensitivity)
    if d != sensitivity or d < 1:
        raise ValueError("sensitivity must be a positive integer (grid units).")
    sigma2 = float(sigma) ** 2
    log_z = _log_normaliser(sigma2)
    threshold = eps * sigma2 / d - d / 2.0
    first = math.floor(threshold) + 1  # P[Y > threshold] = P[Y >= first]
    second = first + d  # P[Y > threshold + D]
    log_second = float(eps) + _log_tail_sum(second, sigma2)
    if first >= 1:
        log_first = _log_tail_sum(first, sigma2)
        if log_second >= log_first:
            return 0.0
        return math.exp(log_first - log_z) * -math.expm1(log_second - log_first)
    # first <= 0: P[Y >= first] = 1 - P[Y >= 1 - first] by symmetry.
    delta = 1.0 - math.exp(_log_tail_sum(1 - first, sigma2) - log_z)
    return max(delta - math.exp(log_second - log_z), 0.0)


def discrete_gaussian_one(p, rng):
    """One exact draw Z with P(Z = z) proportional to exp(-z^2 / (2 p)) (p a positive integer,
    a multiple of the proposal scale t = 2^j of :func:`gaussian_variance`): the law of
    :func:`discrete_gaussian` (p, 1), on Python integers.

    Canonne, Kamath and Steinke (2020), Algorithm 3: Y ~ DL with scale t
    (:func:`discrete_laplace_one`), accepted with probability exp(-(|Y| - p / t)^2 / (2 p))
    (:func:`bernoulli_exp_one`; p / t is an integer); the accepted Y have the discrete
    Gaussian law for any t > 0.

    Examples
    --------
    >>> rng = as_generator(0)
    >>> z = [discrete_gaussian_one(gaussian_variance(400), rng) for _ in range(4000)]
    >>> abs(float(np.std(z)) - 20) < 1
    True
    """
    exact = _exact_samplers()
    p = int(p)
    t = 1 << exact.gaussian_proposal_exponent(p, 1)
    if p % t:
        raise ValueError("p must be a multiple of the proposal scale (gaussian_variance).")
    centre = p // t
    while True:
        y = discrete_laplace_one(1, t, rng)
        w = abs(y) - centre
        if bernoulli_exp_one(w * w, 2 * p, rng):
            return y
