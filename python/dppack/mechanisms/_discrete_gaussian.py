"""The discrete Gaussian: its calibration on a power-of-two grid, and the release."""

import functools
import math

import numpy as np

from .. import _checks, _messages, _random, accounting
from ._calibration import TYPE_DP_MESSAGE


# A scalar: sigma2 <= 2^28 (s <= 2^14 grid units) keeps the calibration's tail sums
# (_random._log_tail_sum, O(s) per call) fast. A vector (closed-form guarantees): sigma2 <=
# 2^42 (s <= 2^21), well inside the sampler's int64 range for variances that are multiples of
# its proposal scale (dppack._exact.discrete_gaussian, s up to about 2^28). A larger variance
# moves to the next, coarser grid.
_GAUSSIAN_MAX_SIGMA2 = 1 << 28
_GAUSSIAN_MAX_SIGMA2_VECTOR = 1 << 42
# A computed delta (or eps) must stay below the target by this relative margin: the tail
# sums are floating point, with a relative error of about 1e-12 (_random._log_tail_sum).
_FLOAT_MARGIN = 1e-9
# Integer variances up to this bound are used as found, not rounded up to a multiple of the
# sampler's proposal scale: its general acceptance exponent (``_exact.discrete_gaussian``,
# p 2^(2 j + 5) <= 2^62) stays in int64, and small counts' variances keep their precision
# (sigma^2 = 4.1 gives 5, not 6).
_INTEGER_EXACT_SIGMA2 = 1 << 26
# Counts whose sigma^2 is below this get a variance on the lattice 1 / _INTEGER_FINE_STEPS
# (a fractions.Fraction p / q, q a power of two): the sampler's p q t^2 stays in int64.
_INTEGER_FINE_BELOW = 1 << 10
_INTEGER_FINE_STEPS = 1 << 10
_GAUSSIAN_MAX_REGRIDS = 64


def discrete_gaussian_parameters(sigma, sensitivity, *, eps=None, delta=None, type_DP="aDP",
                                 rho=None, coordinates=1, integers=False):
    """The grid and the integer variance with which the discrete Gaussian meets a guarantee.

    The calibration formulas of DPpack (classical, pDP, analytic; ``dppack.mechanisms.gaussian_sigma``)
    are stated for the continuous Gaussian. The release draws the discrete Gaussian of
    Canonne, Kamath and Steinke (2020, "CKS") on a power-of-two grid instead
    (``dppack.mechanisms.discrete_gaussian_release``), so its guarantee is checked here for the discrete
    law, with the sensitivity the rounding to the grid leaves, and the variance is raised
    (minimally) where it falls short.

    Parameters
    ----------
    sigma : float
        The continuous calibration (> 0, finite), the starting point:
        ``_random.discrete_gaussian_grid(sigma, sensitivity, coordinates)`` gives g = 2^k
        (for a scalar, sigma / g in [2^13, 2^14); for a vector, finer, so that its sqrt(m)
        rounding steps cost a relative 2^-12, down to sigma / g in [2^19, 2^20)) and
        s^2 = ceil((sigma / g)^2), rounded up to a multiple of the sampler's proposal scale.
    sensitivity : float
        Delta > 0, the L2 sensitivity of the release (of one value when ``coordinates`` = 1).
    eps, delta : float, optional
        The (eps, delta) to meet (required unless ``rho`` is given).
    type_DP : {'aDP', 'pDP'}, default 'aDP'
        Approximate DP (also for the analytic calibration), or probabilistic DP
        (P[abs(L) > eps] <= delta for the privacy loss L).
    rho : float, optional
        Meet rho-zCDP instead (eps, delta and type_DP are then ignored).
    coordinates : int, default 1
        m, how many values are released with this noise (each can gain one grid step).
    integers : bool, default False
        The values are integers (counts) and ``sensitivity`` is the L2 norm of a change of
        integers (an integer when m = 1): the release is on the grid 1 (k = 0), where
        rounding moves nothing, so D = Delta (scalar) and r = Delta (vector), without the
        rounding steps. Where sigma is so large that the usual grid is coarser than 1
        (sigma >= 2^14 for one value), or no variance up to the cap meets the guarantee at
        k = 0, the usual grid (a power of two >= 2, still integers) and its rounding steps
        are used.

    Returns
    -------
    k : int
        The grid g = 2^k.
    sigma2 : int or fractions.Fraction
        s^2 in grid units: the release adds g Z, Z ~ N_Z(0, s^2), to g round(x / g). A
        multiple of the exact sampler's proposal scale t = 2^j (``_random.gaussian_variance``),
        which keeps its arithmetic in int64; with ``integers`` at k = 0, the smallest integer
        >= sigma^2 that meets the guarantee (as found up to 2^26), or for sigma^2 < 2^10 the
        smallest multiple of 2^-10 (a Fraction when not whole).

    Raises
    ------
    ValueError
        For arguments out of range.

    References
    ----------
    Canonne C L, Kamath G, Steinke T (2020), The discrete Gaussian for differential privacy,
    Theorems 4 and 7, Corollaries 9 and 13.

    Examples
    --------
    A scalar of sensitivity 1 at (0.5, 1e-5)-DP: the grid g = 2^k and the variance in grid
    units (the continuous sigma is about 9.69, here sqrt(sigma2) g).

    >>> from dppack.mechanisms import discrete_gaussian_parameters, gaussian_sigma
    >>> sigma = gaussian_sigma(0.5, 1e-5, 1.0)
    >>> k, sigma2 = discrete_gaussian_parameters(sigma, 1.0, eps=0.5, delta=1e-5)
    >>> k, round(sigma2 ** 0.5 * 2.0 ** k, 2)
    (-10, 9.69)

    Notes
    -----
    The derivation is in the guide: :ref:`derivation-discrete_gaussian_parameters`
    (``docs/python/guide/mechanisms-derivations.rst``).
    """
    sigma = _checks.check_finite_positive_scalar(sigma, "sigma")
    sensitivity = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
    coordinates = _checks.check_whole(coordinates, "coordinates", 1,
                                      message="coordinates must be a positive integer.")
    if rho is not None:
        rho = _checks.check_finite_positive_scalar(rho, "rho")
        eps = delta = None
        type_DP = "zCDP"
    else:
        if eps is None or delta is None:
            raise _messages.value_error("eps and delta are required unless rho is given.")
        eps = _checks.check_finite_budget(eps, "eps")
        delta = _checks.check_probability(delta, "delta")
        _checks.check_choice(type_DP, "type.DP", ("pDP", "aDP"), TYPE_DP_MESSAGE)
    return _discrete_gaussian_parameters(sigma, sensitivity, eps, delta, type_DP, rho,
                                         coordinates, bool(integers))


@functools.lru_cache(maxsize=1024)
def _discrete_gaussian_parameters(sigma, sensitivity, eps, delta, type_DP, rho, m,
                                  integers=False):
    k, sigma2 = _random.discrete_gaussian_grid(sigma, sensitivity, m)
    cap = _GAUSSIAN_MAX_SIGMA2 if m == 1 else _GAUSSIAN_MAX_SIGMA2_VECTOR
    if integers and k <= 0:
        # counts on the grid 1: no rounding step (CKS Theorems 4 and 7 with integer D)
        square = _fraction_square(sigma)
        holds = _discrete_gaussian_guarantee(0, sensitivity, eps, delta, type_DP, rho, m,
                                             steps=False)
        if square < _INTEGER_FINE_BELOW:
            # a small variance on the lattice 2^-10 (the sampler takes p / q): an integer
            # would cost up to 1 / sigma^2 of the variance (0.8 -> 1)
            fine = _smallest_variance(lambda v: holds(_fraction_of(v, _INTEGER_FINE_STEPS)),
                                      max(math.ceil(square * _INTEGER_FINE_STEPS), 1),
                                      cap)
            if fine is not None:
                return 0, _fraction_of(fine, _INTEGER_FINE_STEPS)
        start = max(math.ceil(square), 1)
        found = _smallest_variance(holds, start, cap)
        if found is not None and found > _INTEGER_EXACT_SIGMA2:
            found = _random.gaussian_variance(found)
            while not holds(found):  # pragma: no cover (the bounds fall as sigma2 grows)
                found = _random.gaussian_variance(found + 1)
        if found is not None:
            return 0, found
        k, sigma2 = 1, -(-start // 4)  # the usual search from the grid 2, with its steps
    for _ in range(_GAUSSIAN_MAX_REGRIDS):
        holds = _discrete_gaussian_guarantee(k, sensitivity, eps, delta, type_DP, rho, m)
        found = _smallest_variance(holds, sigma2, cap)
        if found is not None:
            # up to a multiple of the sampler's proposal scale (its int64 form): more noise,
            # so the guarantee still holds (checked all the same)
            found = _random.gaussian_variance(found)
            while not holds(found):  # pragma: no cover (the bounds fall as sigma2 grows)
                found = _random.gaussian_variance(found + 1)
            return k, found
        k, sigma2 = k + 1, -(-sigma2 // 4)
    raise _messages.value_error(
        "The discrete Gaussian calibration found no variance.")  # pragma: no cover


def _smallest_variance(holds, sigma2, cap=_GAUSSIAN_MAX_SIGMA2):
    """The smallest integer >= sigma2 where ``holds`` (monotone), or None past ``cap``."""
    if holds(sigma2):
        return sigma2
    low, step = sigma2, 2.0 ** -10
    while True:
        high = max(low + 1, math.ceil(low * (1.0 + step)))
        if high > cap:
            if low >= cap or not holds(cap):
                return None
            high = cap
            break
        if holds(high):
            break
        low, step = high, 2.0 * step
    while high - low > 1:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle
    return high


def _fraction_square(x):
    """x^2 exactly, as a fractions.Fraction."""
    from fractions import Fraction  # noqa: PLC0415

    return Fraction(x) ** 2


def _fraction_of(numerator, denominator):
    """numerator / denominator: an int when whole, else a fractions.Fraction."""
    from fractions import Fraction  # noqa: PLC0415

    value = Fraction(numerator, denominator)
    return value.numerator if value.denominator == 1 else value


def _discrete_gaussian_guarantee(k, sensitivity, eps, delta, type_DP, rho, m, steps=True):
    """The predicate sigma2 -> whether N_Z(0, sigma2) on the grid 2^k meets the guarantee
    (the cases of :func:`discrete_gaussian_parameters`); ``steps`` False for values already
    on the grid (integers at k = 0): no rounding step is added to the sensitivity."""
    if m == 1:
        units = _random.grid_units(sensitivity, k, 1 if steps else 0)  # D, an integer
    else:
        # r = Delta / g + sqrt(m), rounded up past the float error of sqrt and the sum
        extra = math.sqrt(m) if steps else 0.0
        units = (math.ldexp(sensitivity, -k) + extra) * (1.0 + 2.0 ** -50)
    below_delta = None if delta is None else delta * (1.0 - _FLOAT_MARGIN)
    if type_DP == "zCDP":
        return lambda sigma2: units * units / (2.0 * sigma2) <= rho * (1.0 - _FLOAT_MARGIN)
    if type_DP == "aDP" and m == 1:
        return lambda sigma2: _random.discrete_gaussian_delta(
            eps, units, math.sqrt(sigma2)) <= below_delta
    if type_DP == "aDP":
        def holds(sigma2):
            loss = accounting.PrivacyLoss.zcdp(units * units / (2.0 * sigma2))
            return loss.to_approx(delta).eps <= eps * (1.0 - _FLOAT_MARGIN)
        return holds
    if m == 1:
        return lambda sigma2: _pdp_scalar_tail(eps, units, sigma2) <= below_delta

    def subgaussian(sigma2):
        r2 = units * units
        if r2 >= 2.0 * eps * sigma2:
            return False
        bound = (math.exp(-(eps * sigma2 - r2 / 2) ** 2 / (2 * sigma2 * r2))
                 + math.exp(-(eps * sigma2 + r2 / 2) ** 2 / (2 * sigma2 * r2)))
        return bound <= below_delta
    return subgaussian


def _pdp_scalar_tail(eps, units, sigma2):
    """max over d in 1..D of P[|L_d| > eps] for the discrete Gaussian (see
    :func:`discrete_gaussian_parameters`, 'pDP', scalar); P[Y > x] = P[Y >= floor(x) + 1]."""

    def tail(d):
        centre = eps * sigma2 / d
        return (_random.discrete_gaussian_tail(math.floor(centre - d / 2) + 1, sigma2)
                + _random.discrete_gaussian_tail(math.floor(centre + d / 2) + 1, sigma2))

    if units * units <= 2.0 * eps * sigma2:
        return tail(units)
    return max(tail(d) for d in range(1, units + 1))


def discrete_gaussian_release(values, sigma, sensitivity, rng, *, eps=None, delta=None,
                              type_DP="aDP", rho=None, coordinates=None, integers=False):
    """Release ``values`` with exact discrete Gaussian noise meeting a stated guarantee.

    g (round(x / g) + Z) entrywise, Z ~ N_Z(0, s^2) independent, with (g = 2^k, s^2) from
    :func:`discrete_gaussian_parameters` (which states the bound used for each case), drawn
    by the exact sampler of Canonne, Kamath and Steinke (2020, Algorithm 3) in integer
    arithmetic (``_random.discrete_gaussian_noise_on_grid``). The float released is a
    function of the integer round(x / g) + Z alone, so the low-order bits carry nothing about
    the data (Mironov 2012).

    Parameters
    ----------
    values : array_like of float
        The true values (finite), any shape.
    sigma : float
        The continuous calibration (classical, pDP or analytic, :func:`gaussian_sigma`).
    sensitivity : float
        The L2 sensitivity of ``values`` (of each one, when ``coordinates`` = 1).
    rng : NumPy Generator
    eps, delta, type_DP, rho
        The guarantee, as for :func:`discrete_gaussian_parameters`.
    coordinates : int, optional
        m: 1 when each value is a separate scalar release; by default all of ``values``
        form one vector release.
    integers : bool, default False
        ``values`` are integers (counts): released on the grid 1, see
        :func:`discrete_gaussian_parameters`.

    Returns
    -------
    numpy.ndarray of float
        Shaped like ``values``; every entry a multiple of g.

    Raises
    ------
    ValueError
        As :func:`discrete_gaussian_parameters`.

    References
    ----------
    Canonne C L, Kamath G, Steinke T (2020), Algorithm 3; Mironov I (2012), On significance
    of the least significant bits for differential privacy.

    Examples
    --------
    >>> from dppack import _random
    >>> from dppack.mechanisms import discrete_gaussian_release
    >>> rng = _random.as_generator(1)
    >>> out = discrete_gaussian_release([1.0, 2.0], 5.0, 1.0, rng, eps=0.5, delta=1e-5)
    >>> out.shape, [round(float(v), 2) for v in out]
    ((2,), [4.79, 0.85])
    """
    x = np.asarray(values, dtype=np.float64)
    m = max(x.size, 1) if coordinates is None else coordinates
    k, sigma2 = discrete_gaussian_parameters(sigma, sensitivity, eps=eps, delta=delta,
                                             type_DP=type_DP, rho=rho, coordinates=m,
                                             integers=integers)
    return _random.discrete_gaussian_noise_on_grid(x, k, sigma2, rng)
