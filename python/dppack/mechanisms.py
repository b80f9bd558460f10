"""The differential-privacy mechanisms of DPpack 0.2.2, and the analytic Gaussian calibration.

Every formula follows DPpack 0.2.2; the section is cited where it is used. All
noise is drawn through :mod:`dppack._random`.
"""

import functools
import math

import numpy as np
from scipy import special

from . import _checks, _frames, _messages, _random, accounting

__all__ = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "calibrateAnalyticGaussianMechanism",
    "check_budget",
    "discrete_gaussian_parameters",
    "discrete_gaussian_release",
    "gaussian_sigma",
    "laplace_scale",
]

_TRUE_VALUES_MESSAGE = "true.values must be numeric atomic vectors or scalars."
_TRUE_VALUES_SIZE_MESSAGE = "true.values must have at least one element."
_TYPE_DP_MESSAGE = "type.DP must be one of {'pDP', 'aDP'}."

# Caps on the AGM search (DPpack has none and can loop for ever, DPpack's
# calibrateAnalyticGaussianMechanism). 1100 doublings take s past the largest double; 2000 halvings
# exhaust any bracket's floating-point precision.
_AGM_MAX_DOUBLINGS = 1100
_AGM_MAX_BISECTIONS = 2000


def _check_type(eps, type_DP, analytic, switch="analytic is TRUE"):
    if analytic and type_DP != "aDP":
        raise _messages.value_error(f"Only approximate DP can be used when {switch}.")
    _checks.check_choice(type_DP, "type.DP", ("pDP", "aDP"), _TYPE_DP_MESSAGE)
    if not analytic and type_DP == "aDP" and eps >= 1:
        raise _messages.value_error(f"eps must be < 1 for aDP unless {switch}.")


def check_budget(eps, delta=None, type_DP="aDP", analytic=False, switch="analytic is TRUE"):
    """Check a privacy budget as :func:`LaplaceMechanism` (``delta`` None) or
    :func:`GaussianMechanism` checks its own, with the same messages.

    For a release that spends shares of one budget in several mechanism calls: the whole
    budget is checked before the first draw, as one call would check it.

    Parameters
    ----------
    eps : float
    delta : float, optional
        None for the Laplace mechanism.
    type_DP : {'aDP', 'pDP'}, default 'aDP'
    analytic : bool, default False
    switch : str, default "analytic is TRUE"
        How the messages name the choice of the analytic Gaussian mechanism: DPpack's
        ``GaussianMechanism`` text by default; the statistics, which choose it with
        ``mechanism = 'analytic'``, pass ``"mechanism is 'analytic'"``.

    Returns
    -------
    (float, float or None)
        eps and delta as floats.

    Raises
    ------
    ValueError
        DPpack's messages.

    References
    ----------
    DPpack 0.2.2's argument checks.

    Examples
    --------
    A Gaussian release at eps = 0.5 split into two: the whole budget is checked first.

    >>> from dppack.mechanisms import check_budget
    >>> check_budget(0.5, 1e-5)
    (0.5, 1e-05)
    >>> try:
    ...     check_budget(2.0, 1e-5)
    ... except ValueError as error:
    ...     print(error)
    eps must be < 1 for aDP unless analytic is True.
    """
    eps = _checks.check_finite_budget(eps, "eps")
    if delta is None:
        return eps, None
    delta = _checks.check_probability(delta, "delta")
    _check_type(eps, type_DP, analytic, switch)
    return eps, delta


def laplace_scale(eps, sensitivities, alloc_proportions=None):
    """Laplace scale b per coordinate.

    Without allocation every coordinate gets b = (sum of sensitivities) / eps, the l1 norm of
    the sensitivity vector; with allocation a, coordinate i gets b_i = Delta_i / (a_i eps).

    Parameters
    ----------
    eps : float
        The budget, > 0 (not checked).
    sensitivities : array_like of float
        The l1 sensitivity of each value.
    alloc_proportions : array_like of float, optional
        The share a_i of ``eps`` spent on value i.

    Returns
    -------
    float or numpy.ndarray
        One scale for all the values, or one per value with an allocation.

    References
    ----------
    Dwork, McSherry, Nissim and Smith (2006), Calibrating noise to sensitivity in private data
    analysis.

    Examples
    --------
    >>> from dppack.mechanisms import laplace_scale
    >>> float(laplace_scale(0.5, [1.0, 1.0]))
    4.0
    >>> laplace_scale(0.5, [1.0, 1.0], [0.75, 0.25]).tolist()
    [2.6666666666666665, 8.0]
    """
    sensitivities = np.asarray(sensitivities, dtype=np.float64)
    if alloc_proportions is None:
        return np.sum(sensitivities) / eps
    return sensitivities / (np.asarray(alloc_proportions) * eps)


def gaussian_sigma(eps, delta, sensitivity, type_DP="aDP", analytic=False, tol=1e-12):
    """Gaussian standard deviation for one coordinate.

    Parameters
    ----------
    eps, delta : float
        Privacy parameters of this coordinate.
    sensitivity : float
        Its l2 sensitivity s.
    type_DP : {'aDP', 'pDP'}
        'pDP' is probabilistic DP (Liu 2019): sigma = s (sqrt(z^2 + 2 eps) - z) / (2 eps) with
        z = Phi^-1(delta / 2). 'aDP' is approximate DP: sigma = s sqrt(2 ln(1.25 / delta)) / eps,
        or the analytic calibration when ``analytic`` is true.
    analytic : bool
    tol : float
        Tolerance of the analytic calibration.

    Returns
    -------
    float

    References
    ----------
    Dwork and Roth (2014), Theorem A.1; Liu (2019), Generalized Gaussian mechanism for
    undirected graphs; Balle and Wang (2018).

    Examples
    --------
    >>> from dppack.mechanisms import gaussian_sigma
    >>> round(gaussian_sigma(0.5, 1e-5, 1.0), 6)  # sqrt(2 ln(1.25e5)) / 0.5
    9.689611
    >>> round(float(gaussian_sigma(0.5, 1e-5, 1.0, type_DP="pDP")), 6)
    8.946127
    """
    if type_DP == "pDP":
        z = special.ndtri(delta / 2)
        return sensitivity * (math.sqrt(z * z + 2 * eps) - z) / (2 * eps)
    if analytic:
        return calibrateAnalyticGaussianMechanism(eps, delta, sensitivity, tol)
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps


# --------------------------------------------------------------------------------------------
# The discrete Gaussian: its calibration on a power-of-two grid, and the release
# --------------------------------------------------------------------------------------------

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
        (P[|L| > eps] <= delta for the privacy loss L).
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
    Sensitivity in grid units. Rounding moves each value by at most g / 2, so a scalar
    (m = 1) has integer sensitivity D = ceil(Delta / g) + 1 (``_random.grid_units``), and a
    vector of m values with L2 sensitivity Delta has ||V - V'||_2 <= r = Delta / g + sqrt(m).

    The guarantee checked for each case, with s^2 = sigma2:

    * 'aDP', scalar: CKS Theorem 7, the exact delta of the discrete Gaussian with integer
      sensitivity D, delta(eps) = P[Y > eps s^2 / D - D / 2] - e^eps P[Y > eps s^2 / D + D / 2],
      Y ~ N_Z(0, s^2) (``_random.discrete_gaussian_delta``), must be <= delta.
    * 'aDP', vector: the release is (r^2 / (2 s^2))-zCDP (CKS Theorem 4 with the
      composition of the coordinates' Renyi divergences, r bounding ||V - V'||_2); converted to
      (eps', delta) by CKS Corollary 13 (``PrivacyLoss.zcdp(rho).to_approx(delta)``), eps'
      must be <= eps.
    * 'pDP', scalar: the privacy loss of an integer shift d is L = (d^2 + 2 d Y) / (2 s^2),
      so P[|L| > eps] = P[Y > eps s^2 / d - d / 2] + P[Y > eps s^2 / d + d / 2] exactly
      (discrete Gaussian tails, ``_random.discrete_gaussian_tail``). Both thresholds fall as
      d grows while d^2 <= 2 eps s^2, so the maximum over d in 1..D is at d = D then; otherwise
      every d is checked. Must be <= delta.
    * 'pDP', vector: the loss is (||d||^2 + 2 <d, Y>) / (2 s^2) and <d, Y> is subgaussian with
      variance proxy s^2 ||d||^2 (CKS Corollary 9 / Proposition 5, coordinatewise), so with
      ||d|| <= r: P[|L| > eps] <= exp(-(eps s^2 - r^2/2)^2 / (2 s^2 r^2))
      + exp(-(eps s^2 + r^2/2)^2 / (2 s^2 r^2)) (increasing in ||d|| while r^2 <= 2 eps s^2,
      which is required). Must be <= delta.
    * rho: D^2 / (2 s^2) (scalar) or r^2 / (2 s^2) (vector) must be <= rho (CKS Theorem 4).

    Computed tails are floating point; each bound must hold with a relative margin of 1e-9.
    When the starting s^2 falls short it is raised by steps of 2^-10, 2^-9, ... (relative)
    until the bound holds, then bisected over the integers to the smallest s^2 that holds
    (the bounds decrease as s^2 grows), at most 2^28 for a scalar (its tail sums cost O(s))
    and 2^42 for a vector; if even that falls short, the grid doubles and the search goes on
    there. The s^2 found is then rounded up to a multiple of the sampler's proposal scale
    t < sqrt(2) s (a relative change below 2^-12: more noise, the guarantee still holds). The
    results are cached (a release repeated in a loop calibrates once).

    How much sigma grows: for a scalar, the raised sensitivity (D g against Delta) costs a
    relative 2 g / Delta <= (sigma / Delta) 2^-12 where the continuous calibration is tight
    (analytic: 1e-4 to 4e-3 measured for eps from 3 down to 0.1); the classical and pDP
    formulas have slack, which usually absorbs it. For a vector, the zCDP conversion
    (aDP) costs 5 to 13 percent against the analytic calibration (nothing against the
    classical one), and the subgaussian bound (pDP) 6 to 16 percent (the Chernoff bound
    against the exact Gaussian tail). The sqrt(m) rounding steps cost a relative 2^-12 or
    less up to about 10^6 values (the vector grid, down to s of about 2^20, see
    ``_random.discrete_gaussian_grid``): measured at Delta = 1, 10^3 to 10^6 values, eps in
    {0.1, 1, 3}, sigma grows by 0 (classical), 6.5 to 14 (analytic) or 6.9 to 18 (pDP)
    percent, the larger figures at 10^6 values and eps = 0.1.
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
        _checks.check_choice(type_DP, "type.DP", ("pDP", "aDP"), _TYPE_DP_MESSAGE)
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
    >>> from dppack.mechanisms import _random, discrete_gaussian_release
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


def LaplaceMechanism(true_values, eps, sensitivities, alloc_proportions=None, random_state=None,
                     accountant=None):
    """Add exact discrete Laplace noise on a fine power-of-two grid to ``true_values`` for
    eps-differential privacy (the noise scale of DPpack's Laplace mechanism).

    Parameters
    ----------
    true_values : float, array_like, pandas, polars or pyarrow series or data frame
        The non-private values.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivities : float or array_like
        l1 global sensitivity of each value, or one for all of them.
    alloc_proportions : array_like, optional
        Share of ``eps`` spent on each value (normalised to sum 1). Without it every value
        gets noise of scale sum(sensitivities) / eps.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps), label "LaplaceMechanism"; by default the session's
        accountant (``with BudgetAccountant(...)``), if any. An overspend is refused before
        any noise is drawn.

    Returns
    -------
    float, ndarray or pandas object
        The sanitized values, shaped like ``true_values``; every value is a multiple of the
        grid g (a power of two, below 2^-20 of the noise scale).

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before any noise is drawn;
        an overspend of ``accountant``.

    Examples
    --------
    A mean of values in [0, 10] over n = 100 rows has sensitivity 10 / 100:

    >>> from dppack import LaplaceMechanism
    >>> x = LaplaceMechanism(5.0, eps=1.0, sensitivities=0.1, random_state=1)
    >>> round(float(x), 2)
    4.85
    >>> x == LaplaceMechanism(5.0, eps=1.0, sensitivities=0.1, random_state=1)  # reproducible
    True
    >>> LaplaceMechanism([1.0, 2.0, 3.0], 1.0, [1.0, 1.0, 1.0], random_state=2).shape
    (3,)

    Notes
    -----
    The noise scales are DPpack's: b = sum(Delta) / eps for the whole vector, or
    b_i = Delta_i / (a_i eps) with an allocation. The noise is drawn exactly
    (``_random.discrete_laplace_noise``; Canonne, Kamath and Steinke 2020, Algorithm 2, in
    integer arithmetic): each value is rounded to the grid g = 2^k, which raises the L1
    sensitivity in grid units to D = ceil(Delta / g) + m (each of the m values that can
    differ gains at most one step), and integer noise with P(z) proportional to
    exp(-abs(z) eps' / D), eps' <= eps, is added, which is eps'-DP for an integer vector of L1
    sensitivity D. Without allocation, the vector is one release (Delta = sum of the
    sensitivities, m = its size); with allocation, value i is its own release at
    (Delta_i, a_i eps) with m = 1, and the releases compose to eps. The scale grows by a
    relative 2^-20 or less; the float released is a function of the noisy integer alone,
    so its low-order bits reveal nothing (Mironov 2012).

    References
    ----------
    Dwork, McSherry, Nissim and Smith (2006), Calibrating noise to sensitivity in private data
    analysis. Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential
    privacy (NeurIPS). Giddens and Liu (2023), DPpack reference manual,
    ``LaplaceMechanism``.
    """
    _frames.refuse_dask("LaplaceMechanism", true_values)
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.pure(_checks.check_finite_budget(eps, "eps")),
        "LaplaceMechanism")
    values = _checks.as_finite_data(true_values, "true.values", message=_TRUE_VALUES_MESSAGE,
                                    size_message=_TRUE_VALUES_SIZE_MESSAGE)[0]
    eps = _checks.check_finite_budget(eps, "eps")
    sens = _checks.check_sensitivities(sensitivities, values.size)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, values.size)
    rng = _random.as_generator(random_state)
    bill.record()

    if alloc is None:
        # DPpack's LaplaceMechanism: one release of the whole vector, L1 sensitivity sum(Delta),
        # scale sum / eps
        total = float(sens[0]) if sens.size == 1 else float(np.sum(sens))
        out = _random.discrete_laplace_noise(values, total, eps, rng, coordinates=values.size)
    else:
        # DPpack's LaplaceMechanism: value i at (Delta_i, a_i eps); equal (Delta_i, a_i) share one
        # vectorised draw
        flat = values.ravel()
        out = np.empty(flat.size)
        pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
        for j, (sens_j, share) in enumerate(pairs.T):
            index = np.flatnonzero(which.ravel() == j)
            out[index] = _random.discrete_laplace_noise(flat[index], float(sens_j),
                                                        float(share * eps), rng,
                                                        coordinates=1)
        out = out.reshape(values.shape)
    return _checks.restore_like(out, true_values)


def GaussianMechanism(
    true_values,
    eps,
    delta,
    sensitivities,
    type_DP="aDP",
    alloc_proportions=None,
    analytic=False,
    tol=1e-12,
    random_state=None,
    accountant=None,
):
    """Add exact discrete Gaussian noise on a fine power-of-two grid to ``true_values`` for
    (eps, delta)-differential privacy (the noise scale of DPpack's Gaussian mechanism, raised
    where the discrete law needs it).

    Parameters
    ----------
    true_values : float, array_like, pandas, polars or pyarrow series or data frame
    eps : float
        > 0; below 1 for the classical approximate-DP calibration.
    delta : float
        In (0, 1).
    sensitivities : float or array_like
        l2 global sensitivity of each value, or one for all of them.
    type_DP : {'aDP', 'pDP'}, default 'aDP'
        Approximate or probabilistic differential privacy.
    alloc_proportions : array_like, optional
        Share of ``eps`` and ``delta`` spent on each value. Without it every value gets the
        noise of the whole vector's l2 sensitivity.
    analytic : bool, default False
        Calibrate with the analytic Gaussian mechanism (Balle and Wang 2018); aDP only.
    tol : float, default 1e-12
        Tolerance of the analytic calibration.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.approx(eps, delta) (pDP implies (eps, delta)-DP), label
        "GaussianMechanism"; by default the session's accountant, if any. An overspend is
        refused before any noise is drawn.

    Returns
    -------
    float, ndarray or pandas object
        The sanitized values, shaped like ``true_values``; every value is a multiple of the
        grid g (a power of two, g <= sigma / 2^13).

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before any noise is drawn;
        an overspend of ``accountant``.

    Notes
    -----
    sigma is DPpack's (classical, pDP or analytic, ``dppack.mechanisms.gaussian_sigma``).
    The noise is the discrete Gaussian of Canonne, Kamath and Steinke (2020) on the grid
    g = 2^k, drawn exactly (their Algorithm 3, integer arithmetic):
    ``dppack.mechanisms.discrete_gaussian_release``. Rounding to the grid raises the sensitivity by a grid
    step, and the continuous formulas are not proofs for the discrete law, so
    ``dppack.mechanisms.discrete_gaussian_parameters`` checks the discrete guarantee (CKS Theorem 7 for a
    scalar; zCDP, CKS Theorem 4 and Corollary 13, for a vector; exact tails or a subgaussian
    bound for pDP) and raises the variance minimally where it falls short. Without
    allocation the vector is one release with the L2 norm of the sensitivities; with
    allocation value i is a scalar release at (a_i eps, a_i delta), and they compose to
    (eps, delta). sigma grows by about (sigma / Delta) 2^-13 (relative) for a scalar where
    the calibration is tight (analytic), not at all where it has slack (classical, most
    pDP), by 5 to 15 percent for a vector of up to 10^3 values (the zCDP conversion or the
    subgaussian bound against the exact continuous calibration), and more for longer vectors
    (see ``dppack.mechanisms.discrete_gaussian_parameters``).

    References
    ----------
    Dwork and Roth (2014); Liu (2019), Generalized Gaussian mechanism for undirected graphs;
    Balle and Wang (2018), Improving the Gaussian mechanism for differential privacy;
    Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential privacy.
    Giddens and Liu (2023), DPpack reference manual, ``GaussianMechanism``.

    Examples
    --------
    >>> from dppack import GaussianMechanism
    >>> x = GaussianMechanism(5.0, eps=0.5, delta=1e-5, sensitivities=0.1, random_state=1)
    >>> round(float(x), 2)
    5.47
    >>> x = GaussianMechanism([1.0, 2.0], eps=2.0, delta=1e-5, sensitivities=[0.1, 0.1],
    ...                       analytic=True, random_state=1)  # eps >= 1 needs analytic
    >>> [round(float(v), 2) for v in x]
    [1.12, 2.04]
    """
    _frames.refuse_dask("GaussianMechanism", true_values)
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.approx(
            _checks.check_finite_budget(eps, "eps"), _checks.check_probability(delta, "delta")),
        "GaussianMechanism")
    values = _checks.as_finite_data(true_values, "true.values", message=_TRUE_VALUES_MESSAGE,
                                    size_message=_TRUE_VALUES_SIZE_MESSAGE)[0]
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_probability(delta, "delta")
    sens = _checks.check_sensitivities(sensitivities, values.size)
    analytic = _checks.check_flag(analytic, "analytic")
    _check_type(eps, type_DP, analytic)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, values.size)
    tol = _checks.check_positive_scalar(tol, "tol")
    rng = _random.as_generator(random_state)

    if alloc is None:
        # DPpack's GaussianMechanism: one sigma from the l2 norm of the sensitivity vector, for the
        # whole vector. one value: sqrt(s * s), the operations of numpy's norm (sqrt of the dot
        # product)
        one = float(sens[0])
        norm = math.sqrt(one * one) if sens.size == 1 else float(np.linalg.norm(sens))
        sigma = gaussian_sigma(eps, delta, norm, type_DP, analytic, tol)
        bill.record()
        out = discrete_gaussian_release(values, sigma, norm, rng, eps=eps, delta=delta,
                                        type_DP=type_DP, coordinates=values.size)
        return _checks.restore_like(out, true_values)
    # DPpack's GaussianMechanism: coordinate i spends eps_i = a_i eps and delta_i = a_i delta on
    # sensitivity s_i. sigma is linear in s, so each distinct share is calibrated once, with s = 1;
    # equal (s_i, a_i) share one vectorised draw.
    shares, which = np.unique(alloc, return_inverse=True)
    unit = np.array(
        [gaussian_sigma(a * eps, a * delta, 1.0, type_DP, analytic, tol) for a in shares]
    )
    pairs, group = np.unique(np.stack([sens, which]), axis=1, return_inverse=True)
    parameters = []
    for sens_j, share_j in pairs.T:
        a = float(shares[int(share_j)])
        parameters.append(dict(sigma=float(unit[int(share_j)] * sens_j),
                               sensitivity=float(sens_j), eps=a * eps, delta=a * delta))
    bill.record()
    flat = values.ravel()
    out = np.empty(flat.size)
    group = group.ravel()
    for j, p in enumerate(parameters):
        index = np.flatnonzero(group == j)
        out[index] = discrete_gaussian_release(
            flat[index], p["sigma"], p["sensitivity"], rng, eps=p["eps"], delta=p["delta"],
            type_DP=type_DP, coordinates=1)
    return _checks.restore_like(out.reshape(values.shape), true_values)


def _agm_parts(eps, s):
    """Phi(sqrt(eps s)), Phi(-sqrt(eps s)) and e^eps Phi(-sqrt(eps (s + 2))) of DPpack 0.2.2.

    The last term is formed in log space so that large eps does not overflow e^eps.
    """
    root = math.sqrt(eps * s)
    tail = math.exp(eps + special.log_ndtr(-math.sqrt(eps * (s + 2))))
    return special.ndtr(root), special.ndtr(-root), tail


def calibrateAnalyticGaussianMechanism(epsilon, delta, sensitivity, tol=1e-12):
    """Noise standard deviation of the analytic Gaussian mechanism (Balle and Wang 2018).

    Finds, by doubling and bisection on s, the smallest sigma for which Gaussian
    noise gives (epsilon, delta)-DP to a query of l2 sensitivity ``sensitivity``.

    Parameters
    ----------
    epsilon : float
        > 0 and finite (any size: the analytic mechanism has no eps < 1 restriction).
    delta : float
        In (0, 1).
    sensitivity : float
        > 0.
    tol : float, default 1e-12
        The bisection stops once the privacy curve is within ``tol`` of ``delta``.

    Returns
    -------
    float
        sigma = alpha * sensitivity / sqrt(2 epsilon).

    Raises
    ------
    ValueError
        For a non-positive or non-finite epsilon, delta outside (0, 1), a non-positive
        sensitivity or tol. (DPpack validates nothing here.)

    Notes
    -----
    DPpack's loops have no bound. Here the doubling and the bisection are capped, and the
    bisection also stops when the bracket no longer shrinks in floating point. If it stops for
    either reason before reaching ``tol``, the end of the bracket with the larger sigma is
    returned, so the answer errs on the private side.

    References
    ----------
    Balle and Wang (2018), Improving the Gaussian mechanism for differential privacy:
    analytical calibration and optimal denoising, ICML (Algorithm 1). Giddens and Liu
    (2023), DPpack reference manual, ``calibrateAnalyticGaussianMechanism``.

    Examples
    --------
    >>> from dppack import calibrateAnalyticGaussianMechanism
    >>> round(calibrateAnalyticGaussianMechanism(1.0, 1e-5, 1.0), 6)
    3.730632
    >>> round(calibrateAnalyticGaussianMechanism(0.5, 1e-5, 1.0), 6)  # classical: 9.689611
    7.031827
    """
    epsilon = _checks.check_finite_budget(epsilon, "epsilon")
    delta = _checks.check_probability(delta, "delta")
    sensitivity = _checks.check_positive_scalar(sensitivity, "sensitivity")
    tol = _checks.check_positive_scalar(tol, "tol")

    upper, lower, tail = _agm_parts(epsilon, 0.0)
    delta_0 = upper - tail
    if delta == delta_0:
        alpha = 1.0
    else:
        if delta > delta_0:
            # A(s) increases with s; a larger s means a smaller sigma.
            def curve(s):
                up, _, t = _agm_parts(epsilon, s)
                return up - t

            def alpha_of(s):
                # = sqrt(1 + s/2) - sqrt(s/2), written without the cancellation that
                # returns 0 (no noise) once s is large, as it is for tiny epsilon.
                return 1 / (math.sqrt(1 + s / 2) + math.sqrt(s / 2))

            def go_left(value):
                return value > delta

            def stop_doubling(value):
                return value >= delta

        else:
            # B(s) decreases with s; a larger s means a larger sigma.
            def curve(s):
                _, low, t = _agm_parts(epsilon, s)
                return low - t

            def alpha_of(s):
                return math.sqrt(1 + s / 2) + math.sqrt(s / 2)

            def go_left(value):
                return value < delta

            def stop_doubling(value):
                return value <= delta

        s_inf, s_sup = 0.0, 1.0
        for _ in range(_AGM_MAX_DOUBLINGS):
            if stop_doubling(curve(s_sup)):
                break
            s_inf, s_sup = s_sup, 2.0 * s_sup
        else:
            raise _messages.value_error(
                "calibrateAnalyticGaussianMechanism found no bracket for these epsilon and delta."
            )

        converged = False
        mid = s_inf + (s_sup - s_inf) / 2
        for _ in range(_AGM_MAX_BISECTIONS):
            value = curve(mid)
            # DPpack stops once |curve(mid) - delta| <= tol. We also require the private side,
            # curve(mid) <= delta (on both branches that means sigma >= the exact one), so
            # that a delta below tol is still met, not overshot by up to tol.
            if delta - tol <= value <= delta:
                converged = True
                break
            if go_left(value):
                s_sup = mid
            else:
                s_inf = mid
            new_mid = s_inf + (s_sup - s_inf) / 2
            if new_mid in (s_inf, s_sup):
                break
            mid = new_mid
        if not converged:
            # The privacy-safe end of the bracket: the larger alpha.
            mid = s_sup if delta < delta_0 else s_inf
        alpha = alpha_of(mid)
    return alpha * sensitivity / math.sqrt(2 * epsilon)


def check_exponential_sensitivity(sensitivity):
    """:func:`ExponentialMechanism`'s check of its sensitivity (DPpack's messages), also
    used by its accuracy report (``dppack.accuracy``). Returns it as a float."""
    sens = _checks.as_numeric_array(sensitivity, "sensitivity must be > 0.").ravel()
    if sens.size != 1:
        raise _messages.value_error("Length of sensitivity must be 1.")
    sens = float(sens[0])
    if not sens > 0:
        raise _messages.value_error("sensitivity must be > 0.")
    if not np.isfinite(sens):
        raise _messages.value_error("sensitivity must be finite.")
    return sens


def check_measure(measure, size):
    """ExponentialMechanism's checks of a base measure for ``size`` candidates, with DPpack's
    messages: a numeric vector of that length, no value negative, NaN or infinite. Returns it
    as a flat float array (as ``_checks.as_numeric_array`` gives it).

    Examples
    --------
    >>> check_measure([1, 2, 0], 3).tolist()
    [1.0, 2.0, 0.0]
    """
    m = _checks.as_numeric_array(measure, "Values in measure must be numeric.").ravel()
    if m.size != size:
        raise _messages.value_error("Length of measure must match length of utility.")
    if np.any(np.isnan(m)) or np.any(m < 0):
        raise _messages.value_error("Values in measure cannot be negative.")
    if not np.all(np.isfinite(m)):
        raise _messages.value_error("Values in measure must be finite.")
    return m


def ExponentialMechanism(
    utility, eps, sensitivity, measure=None, candidates=None, random_state=None,
    accountant=None,
):
    """Select one candidate with probability proportional to measure * exp(eps u / (2 Delta)),
    drawn exactly (see Notes).

    Parameters
    ----------
    utility : array_like
        Utility of each candidate (higher is better); NaN and +Inf are refused, -Inf gives a
        candidate probability 0.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivity : float
        Global sensitivity of the utility, > 0.
    measure : array_like, optional
        Base measure of each candidate (>= 0, not all 0); uniform by default.
    candidates : sequence, optional
        Returned instead of the index; must have one entry per utility.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps), label "ExponentialMechanism"; by default the session's
        accountant, if any. An overspend is refused before the draw.

    Returns
    -------
    int or object
        The 0-based index of the selected candidate (DPpack's R index minus 1), or
        ``candidates[index]``.

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before the draw.

    Notes
    -----
    DPpack draws one float uniform against the cumulative sum of float weights
    exp(eps (u - max u) / (2 Delta)) measure, so which candidates are reachable, and with what
    probability, depends on rounding (and a weight can underflow to 0). Here the draw is exact
    (``_random.exponential_mechanism``): each utility is rounded to a dyadic grid
    h <= Delta / 2^20, so that neighbouring utilities differ by at most
    Delta' = (ceil(Delta / h) + 1) h <= Delta + 2h after rounding, and candidate i is drawn
    with probability proportional to measure_i exp(eps u~_i / (2 Delta')) by rejection
    sampling whose every decision compares integers (exact Bernoulli(exp(-gamma)) draws of
    Canonne, Kamath and Steinke 2020, Algorithm 1). By McSherry and Talwar's argument
    (numerator and normaliser each move by at most exp(eps / 2)) the selection is eps-DP.
    A non-integer measure is scaled and rounded to integers (it is public; the law moves by
    less than 2^-59). The selection probabilities are DPpack's up to the factor
    Delta / Delta' >= 1 - 2^-19 in the exponent.

    References
    ----------
    McSherry and Talwar (2007), Mechanism design via differential privacy. Canonne, Kamath
    and Steinke (2020), The discrete Gaussian for differential privacy (NeurIPS). Giddens and
    Liu (2023), DPpack reference manual, ``ExponentialMechanism``.

    Examples
    --------
    Choose among three candidates by a utility of sensitivity 1; the second is the most
    likely:

    >>> from dppack import ExponentialMechanism
    >>> ExponentialMechanism([1.0, 5.0, 2.0], eps=1.0, sensitivity=1.0, random_state=1)
    1
    >>> ExponentialMechanism([1.0, 5.0, 2.0], 1.0, 1.0, candidates=["a", "b", "c"],
    ...                      random_state=1)
    'b'
    """
    _frames.refuse_dask("ExponentialMechanism", utility, measure, candidates)
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.pure(_checks.check_finite_budget(eps, "eps")),
        "ExponentialMechanism")
    u = _checks.as_numeric_array(
        utility, "utility must be a numeric atomic vector or scalar."
    ).ravel()
    if u.size == 0:
        raise _messages.value_error("utility must have at least one element.")
    if not (u < np.inf).all():  # one pass catches NaN and +Inf
        raise _messages.value_error("utility must not contain NA, NaN or Inf.")
    if u.max() == -np.inf:
        raise _messages.value_error(
            "At least one candidate must have positive measure and utility > -Inf.")
    eps = _checks.check_finite_budget(eps, "eps")
    sens = check_exponential_sensitivity(sensitivity)
    if measure is not None:
        m = check_measure(measure, u.size)
    if candidates is not None and not hasattr(candidates, "__len__"):
        raise _messages.value_error("candidates must be a sequence with one entry per utility.")
    if candidates is not None and len(candidates) != u.size:
        raise _messages.value_error("Length of candidates must match length of utility")
    if measure is not None and not np.any((m > 0) & (u > -np.inf)):
        raise _messages.value_error(
            "At least one candidate must have positive measure and utility > -Inf.")
    rng = _random.as_generator(random_state)
    bill.spend()
    # DPpack's ExponentialMechanism steps 2-3, exactly: P(k) proportional to measure_k exp(eps u~_k
    # / (2 Delta')).
    index = _random.exponential_mechanism(u, eps, sens, rng,
                                          measure=None if measure is None else m)
    if candidates is None:
        return index
    return _frames.element(candidates, index)
