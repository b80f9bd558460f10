"""Accuracy reports: how far a release can be from its true value, at no privacy cost.

:func:`noiseIntervalDP` takes the public arguments of a release (the budget, the bounds, the
public sample size n, the mechanism; never the data) and returns the half-width h of the
(1 - alpha) interval of its noise: P(abs(release - true value) <= h) >= 1 - alpha, for each
released value. It reads no data and draws no noise, so it spends nothing; the releases
themselves are unchanged (DPpack's return values and types).

Exactness. The releases add exact discrete noise on a power-of-two grid g = 2^k (discrete
Laplace for the Laplace mechanism, discrete Gaussian for the Gaussian and analytic ones;
Canonne, Kamath and Steinke 2020), after rounding the true value to the grid. The interval
is computed from the law the release draws, with the grid and the integer scale from the
same calibration functions the release calls (``_random.laplace_grid``,
``mechanisms.gaussian_sigma`` and ``mechanisms.discrete_gaussian_parameters``,
``stats.count_noise_laws``): T is the smallest integer with P(abs(Z) <= T) >= 1 - alpha for
the integer noise Z (from its exact tail, ``_random.discrete_laplace_tail`` or
``_random.discrete_gaussian_tail``, computed in floating point with a relative error of
about 1e-12), and h = g (T + 1/2), the half grid step covering the rounding of the true
value. The counts of histogramDP and tableDP lie on the grid when g <= 1 (no rounding) and are
released rounded to integers: their report is the integer floor(g T + 1/2) (with g / 2 more
when g > 1), which the released counts lie within.
These are the discrete forms of the textbook half-widths b ln(1 / alpha) (Laplace, scale b:
P(abs(N) > t) = exp(-t / b)) and sigma z_{1 - alpha/2} (Gaussian); they differ from them by
about a grid step (g is below 2^-12 of the scale).

Vectors. The half-width is per coordinate. With ``simultaneous = True`` it holds for all m
values at once: the noises are independent, so the per-coordinate level
1 - (1 - alpha)^(1/m) gives a joint coverage of exactly the product, at least 1 - alpha
(Sidak's product, exact for independent noise, not the union bound).

Post-processing. A clamp to a range that holds the true value (varDP's [0, v_max],
pooledVarDP's) only moves the release towards it, so the interval still holds. sdDP releases
the square root of varDP's release: h is that of the variance, and :meth:`NoiseInterval.interval`
returns [sqrt(max(s^2 - h, 0)), sqrt(s^2 + h)] for a released s.

Quantiles (exponential mechanism). There is no additive noise: quantileDP and medianDP report
the rank error, by the utility theorem of the exponential mechanism (Dwork and Roth 2014,
Theorem 3.11; McSherry and Talwar 2007): with probability at least 1 - alpha the released
point's rank error abs(c(x) - quant n) exceeds the smallest rank error over the candidates
by at most (2 Delta' / eps)(ln ``|R|`` + ln(1 / alpha)) + 2^-20, where ``|R|`` is the number of grid
points between the bounds (``stats.quantile_candidates``), Delta' = 1 + 2^-20 the
sensitivity of the utilities rounded to their grid 2^-20 (``_random.exponential_grid``), and
the last term covers that rounding. The best rank error is at most half the largest tie (0
or 1/2 for distinct data); the bound says nothing of the distance in the data's units, which
depends on the data. It is a worst-case guarantee from public values only, and loose: ``|R|`` is
the release's grid of about 2^59 points, so ln ``|R|`` is about 41 whatever the data, and the
typical rank error is much smaller (for the 532 Pima glucose values in [50, 200] at eps = 1
the report is 87 ranks, while the 95th percentile of the actual rank error of the median is
6 to 7, over 12 times less).

ExponentialMechanism (uniform measure) gets the same theorem in the utility's own units:
with ``size`` = ``|R|`` candidates and the utility's ``sensitivity``, with probability at least
1 - alpha the selected candidate's utility is at most (2 Delta' / eps)(ln ``|R|`` + ln(1 /
alpha)) + h below the best one, Delta' = (ceil(Delta / h) + 1) h and h = 2^k <= Delta /
2^20 the grid of ``_random.exponential_grid`` (for utilities below Delta 2^979 in absolute
value; larger ones coarsen the grid).

What is not covered. The 'unbounded' releases of meanDP, varDP, sdDP, covDP, pooledVarDP and
pooledCovDP are ratios of noisy sums (n is private), not a value plus noise: they are
refused. histogramDP with ``normalize = TRUE`` divides by the noisy total (the report is for
the counts). tableDP with undeclared levels (refused: ``declared = False``, or ``declared``
left out where the release could be thresholded, delta > 0 or a Gaussian mechanism)
thresholds its cells: a suppressed cell errs by up to the threshold tau, and the noise is
calibrated to part of delta (``stats._table_threshold``). quantilesDP's joint and recursive
methods have no per-quantile bound here (refused). ExponentialMechanism with a base
``measure`` is not covered (the theorem then needs the measure of the best candidates,
which depends on the data; refused as an unknown argument), nor is boundsDP (no report:
each of its two selections obeys the same theorem, sensitivity 1, ``|R|`` its grid's size, at
eps / 2, but only against the best grid point, whose own rank error depends on the data and
the grid's spacing, and its fix-up of upper <= lower moves upper beyond it). quantilesDP with
``method = 'independent'`` (quantileDP at eps / m each, then sorted) gets the quantile bound at
eps / m for all m quantiles at once (the draws are independent; sorting the outputs does not
raise the largest rank error for sorted targets).
"""

import math
import numbers

import numpy as np
from scipy import special

from . import _checks, _messages, _random, data_access, mechanisms, quantiles, rcompat, stats

__all__ = ["NoiseInterval", "noiseIntervalDP"]

_ALPHA_MESSAGE = "alpha must be a number in (0, 1)."
_UNBOUNDED_MESSAGE = (
    "An accuracy report of {name} is available for which.sensitivity = 'bounded' only: its "
    "unbounded release is a ratio of noisy sums, not a value plus noise."
)
_STATISTICS = ("LaplaceMechanism", "GaussianMechanism", "meanDP", "varDP", "sdDP", "covDP",
               "pooledVarDP", "pooledCovDP", "histogramDP", "tableDP", "quantileDP",
               "medianDP", "quantilesDP", "ExponentialMechanism")


class NoiseInterval:
    """The accuracy report of one release: the half-width of the (1 - alpha) interval of its
    noise, per released value (see :mod:`dppack.accuracy`). Built by
    :func:`noiseIntervalDP`.

    Parameters
    ----------
    statistic, half_width, alpha, simultaneous, coverage, scale, grid, law, units
        As the attributes.
    transform : {None, 'sqrt'}, optional
        'sqrt' for sdDP (the half-width is that of the variance).

    Attributes
    ----------
    statistic : str
        The release it describes.
    half_width : float or numpy.ndarray
        h: abs(release - true value) <= h with probability >= 1 - alpha (per value, or for
        all values at once when ``simultaneous``); for quantiles, a rank error; for
        ExponentialMechanism, a utility shortfall.
    alpha : float
    simultaneous : bool
    coverage : float or numpy.ndarray
        The exact probability P(abs(Z) <= T) of the integer noise (per value), at least the
        per-value level; NaN for the exponential mechanism (a bound, not a law).
    scale : float or numpy.ndarray
        The scale of the noise drawn, in the data's units: g t / s for the discrete Laplace
        (its b), g s for the discrete Gaussian (its sigma); NaN for the exponential
        mechanism.
    grid : float or numpy.ndarray
        The grid g = 2^k of the release.
    law : str
        'discrete Laplace', 'discrete Gaussian', 'exponential mechanism (rank error)' or
        'exponential mechanism (utility shortfall)'.
    units : str
        What ``half_width`` measures: 'value', 'count', 'rank' or 'utility'
        (ExponentialMechanism: the shortfall of the selected candidate's utility).

    References
    ----------
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Theorem
    3.11; Canonne C L, Kamath G, Steinke T (2020), The discrete Gaussian for differential
    privacy.

    Examples
    --------
    >>> r = noiseIntervalDP("meanDP", eps=1.0, lower_bound=0, upper_bound=1, n=100)
    >>> round(float(r.half_width), 4)  # b ln(1/alpha), b = 1 / (100 eps)
    0.03
    >>> [round(v, 4) for v in r.interval(0.5)]
    [0.47, 0.53]
    """

    def __init__(self, statistic, half_width, alpha, simultaneous, coverage, scale, grid, law,
                 units="value", transform=None):
        self.statistic = statistic
        self.half_width = half_width
        self.alpha = alpha
        self.simultaneous = simultaneous
        self.coverage = coverage
        self.scale = scale
        self.grid = grid
        self.law = law
        self.units = units
        self.transform = transform

    def interval(self, released):
        """The interval around ``released`` that holds the true value with probability at
        least 1 - alpha: (released - h, released + h); for sdDP
        (sqrt(max(s^2 - h, 0)), sqrt(s^2 + h)).

        Parameters
        ----------
        released : float or array_like
            The released value(s) the report describes.

        Returns
        -------
        (float, float) or (numpy.ndarray, numpy.ndarray)

        Examples
        --------
        >>> r = noiseIntervalDP("sdDP", eps=1.0, lower_bound=0, upper_bound=1, n=100)
        >>> [round(v, 3) for v in r.interval(0.3)]  # sqrt(0.09 -+ h), h = 0.030
        [0.245, 0.346]
        """
        if self.units == "rank":
            raise _messages.value_error(
                "A quantile's report is a bound on its rank error, not an interval of values.")
        if self.units == "utility":
            raise _messages.value_error(
                "ExponentialMechanism's report is a bound on the utility shortfall of the "
                "selected candidate, not an interval of values.")
        value = np.asarray(released, dtype=np.float64)
        h = np.asarray(self.half_width, dtype=np.float64)
        if self.transform == "sqrt":
            low = np.sqrt(np.maximum(value * value - h, 0.0))
            high = np.sqrt(value * value + h)
        else:
            low, high = value - h, value + h
        if low.ndim == 0:
            return float(low), float(high)
        return low, high

    def to_dict(self):
        """The report as a dict (R's list)."""
        return {key: getattr(self, key) for key in
                ("statistic", "half_width", "alpha", "simultaneous", "coverage", "scale",
                 "grid", "law", "units")}

    def __repr__(self):
        h = np.asarray(self.half_width)
        shown = f"{float(h):.6g}" if h.ndim == 0 else f"{h.size} values"
        joint = ", simultaneous" if self.simultaneous else ""
        return (f"NoiseInterval({self.statistic}: half-width {shown} ({self.units}), "
                f"level {1 - self.alpha:g}{joint}, {self.law})")


# --------------------------------------------------------------------------------------------
# The half-width of one integer noise law
# --------------------------------------------------------------------------------------------


def _check_alpha(alpha):
    return _checks.check_number(alpha, "alpha", 0.0, 1.0, closed="neither",
                                message=_ALPHA_MESSAGE)


def _per_value_alpha(alpha, m, simultaneous):
    """The per-value level of a joint 1 - alpha over m independent noises (Sidak's product,
    exact for independent noise)."""
    if not simultaneous or m <= 1:
        return alpha
    return -math.expm1(math.log1p(-alpha) / m)


def integer_half_width(tail, alpha, guess=1):
    """T, the smallest integer with P(abs(Z) <= T) >= 1 - alpha, and that probability, for
    an integer noise Z symmetric about 0 with P(Z >= m) = ``tail(m)``.

    P(abs(Z) > T) = 2 P(Z >= T + 1), so T + 1 is the smallest m >= 1 with
    tail(m) <= alpha / 2.

    Parameters
    ----------
    tail : callable
        m -> P(Z >= m) for integers m >= 1, non-increasing.
    alpha : float
        In (0, 1).
    guess : int, default 1
        A starting point near T + 1 (the continuous law's quantile): the search costs a
        few evaluations of ``tail`` when it is close.

    Returns
    -------
    (int, float)
        T >= 0 and P(abs(Z) <= T) = 1 - 2 tail(T + 1).

    Examples
    --------
    The discrete Laplace with P(z) proportional to exp(-abs(z)):

    >>> t, coverage = integer_half_width(lambda m: _random.discrete_laplace_tail(m, 1, 1), 0.1)
    >>> t, round(coverage, 4)  # 1 - 2 e^-3 / (1 + e^-1)
    (2, 0.9272)
    """
    first = _random.smallest_tail_index(tail, alpha / 2.0, guess)
    return first - 1, 1.0 - 2.0 * tail(first)


def _laplace_law(sensitivity, eps, coordinates):
    """The law of the noise ``_random.discrete_laplace_noise`` adds for (sensitivity, eps,
    coordinates), from the release's own ``_random.laplace_grid``: a dict of the grid
    exponent k, the tail P(Z >= m), the scale t / s in grid units and a guess of the
    quantile (the continuous law's)."""
    k, _, t, s = _random.laplace_grid(float(sensitivity), float(eps), int(coordinates))
    scale = t / s
    return dict(k=k, scale=scale, law="discrete Laplace",
                tail=lambda m: _random.discrete_laplace_tail(m, t, s),
                # P(Z >= m) ~ exp(-m / scale) / 2
                guess=lambda p: math.ceil(scale * math.log(0.5 / p)))


def _gaussian_law(sigma, sensitivity, eps, delta, type_DP, coordinates):
    """The law of the noise ``mechanisms.discrete_gaussian_release`` adds, from the release's
    own ``mechanisms.discrete_gaussian_parameters`` (as :func:`_laplace_law`)."""
    k, sigma2 = mechanisms.discrete_gaussian_parameters(
        sigma, sensitivity, eps=eps, delta=delta, type_DP=type_DP, coordinates=coordinates)
    scale = math.sqrt(sigma2)
    return dict(k=k, scale=scale, law="discrete Gaussian",
                tail=lambda m: _random.discrete_gaussian_tail(m, sigma2),
                guess=lambda p: math.ceil(scale * float(special.ndtri(1.0 - p))))


def _from_laws(statistic, laws, which, alpha, simultaneous, rounding=0.5, units="value",
               transform=None):
    """A :class:`NoiseInterval` from the laws of the values of a release: ``laws`` a list of
    the dicts of :func:`_laplace_law` / :func:`_gaussian_law` (or ``stats.count_noise_laws``:
    no scale, no guess), ``which`` the index of each value's law (None: one scalar), and the
    rounding of the true value to the grid, in grid steps (1/2, or 0 for counts on it)."""
    m = 1 if which is None else int(np.size(which))
    level = _per_value_alpha(alpha, m, simultaneous)
    rows = []
    for law in laws:
        guess = law["guess"](level / 2.0) if law.get("guess") else 1
        t, coverage = integer_half_width(law["tail"], level, guess)
        k = law["k"]
        scale = math.ldexp(law["scale"], k) if law.get("scale") else math.nan
        rows.append((math.ldexp(t + rounding, k), coverage, scale, math.ldexp(1.0, k)))
    columns = [np.array(column) for column in zip(*rows)]
    if which is None:
        values = [float(column[0]) for column in columns]
    else:
        values = [column[np.asarray(which)] for column in columns]
    return NoiseInterval(statistic, *values[:1], alpha, bool(simultaneous), *values[1:],
                         laws[0]["law"], units, transform)


# --------------------------------------------------------------------------------------------
# The releases
# --------------------------------------------------------------------------------------------


def _laplace_mechanism(statistic, eps, sensitivities, size=None, alloc_proportions=None, *,
                       alpha, simultaneous):
    """LaplaceMechanism's laws (its checks and its release's arguments): without allocation
    one release of the whole vector, L1 sensitivity sum(Delta), all ``size`` values
    (``_random.discrete_laplace_noise`` with coordinates = size); with it, value i at
    (Delta_i, a_i eps) alone."""
    eps = _checks.check_finite_budget(eps, "eps")
    sens = _checks.as_numeric_array(sensitivities, "Global sensitivities must be numeric.")
    size = sens.size if size is None else _checks.check_whole(size, "size", 1)
    sens = _checks.check_sensitivities(sensitivities, size)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, size)
    if alloc is None:
        law = _laplace_law(float(np.sum(sens)), eps, size)
        return _from_laws(statistic, [law], None if size == 1 else np.zeros(size, int), alpha,
                          simultaneous)
    pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
    laws = [_laplace_law(float(s), float(a * eps), 1) for s, a in pairs.T]
    return _from_laws(statistic, laws, which.ravel(), alpha, simultaneous)


def _gaussian_mechanism(statistic, eps, delta, sensitivities, type_DP="aDP",
                        alloc_proportions=None, analytic=False, tol=1e-12, size=None, *,
                        alpha, simultaneous):
    """GaussianMechanism's laws: without allocation one sigma for the L2 norm of the
    sensitivities and the whole vector (``mechanisms.discrete_gaussian_release`` with
    coordinates = size); with it, value i a scalar release at (a_i eps, a_i delta), sigma
    linear in Delta_i."""
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_probability(delta, "delta")
    sens = _checks.as_numeric_array(sensitivities, "Global sensitivities must be numeric.")
    size = sens.size if size is None else _checks.check_whole(size, "size", 1)
    sens = _checks.check_sensitivities(sensitivities, size)
    analytic = _checks.check_flag(analytic, "analytic")
    mechanisms.check_budget(eps, delta, type_DP, analytic)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, size)
    tol = _checks.check_positive_scalar(tol, "tol")
    if alloc is None:
        norm = float(np.linalg.norm(sens))
        sigma = mechanisms.gaussian_sigma(eps, delta, norm, type_DP, analytic, tol)
        law = _gaussian_law(sigma, norm, eps, delta, type_DP, size)
        return _from_laws(statistic, [law], None if size == 1 else np.zeros(size, int), alpha,
                          simultaneous)
    pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
    laws = []
    for s, a in pairs.T:
        unit = mechanisms.gaussian_sigma(a * eps, a * delta, 1.0, type_DP, analytic, tol)
        laws.append(_gaussian_law(float(unit * s), float(s), a * eps, a * delta, type_DP, 1))
    return _from_laws(statistic, laws, which.ravel(), alpha, simultaneous)


def _scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP, alpha,
                      transform=None):
    """The law of one value released as the statistics release it (``stats._noisy``: the
    Laplace mechanism, the Gaussian one with type_DP, or the analytic one)."""
    if mechanism == "Laplace":
        out = _laplace_mechanism(statistic, eps, sensitivity, alpha=alpha, simultaneous=False)
    else:
        analytic = mechanism == "analytic"
        out = _gaussian_mechanism(statistic, eps, delta, sensitivity,
                                  "aDP" if analytic else type_DP, analytic=analytic,
                                  alpha=alpha, simultaneous=False)
    out.transform = transform
    return out


def _statistic_checks(name, which_sensitivity, mechanism, eps, delta, type_DP):
    """The statistics' own checks of these arguments, with their messages, and the refusal
    of the releases that are not a value plus noise."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if mechanism == "Laplace":
        mechanisms.check_budget(eps)
    else:
        analytic = mechanism == "analytic"
        mechanisms.check_budget(eps, delta, "aDP" if analytic else type_DP, analytic=analytic,
                                switch=stats.MECHANISM_SWITCH)
    if which_sensitivity != "bounded":
        raise _messages.value_error(_UNBOUNDED_MESSAGE.format(name=name))


def _bounds(*pairs):
    """The bounds, checked as the statistics check them (finite, lower < upper)."""
    return _checks.check_bounds(*pairs)


def _one_sample(statistic, eps, n, lower_bound, upper_bound, which_sensitivity="bounded",
                mechanism="Laplace", delta=0, type_DP="aDP", *, alpha, simultaneous):
    """meanDP, varDP, sdDP (bounded): the sensitivity of data_access's formulas for the public
    n (``mean_from_sums``, ``var_from_squares``: their sums do not enter it)."""
    bounds = _bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    _statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP)
    if statistic == "meanDP":
        n = _checks.check_whole(n, "n", 1)
        sensitivity = data_access.mean_from_sums(0.0, n, lower, upper)["Sensitivity"]
    else:
        n = _checks.check_whole(n, "n", 2)
        sensitivity = data_access.var_from_squares(0.0, n, lower, upper)["Sensitivity"]
    return _scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP, alpha,
                             "sqrt" if statistic == "sdDP" else None)


def _covariance(statistic, eps, n, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP", *,
                alpha, simultaneous):
    """covDP (bounded): ``data_access.cov_from_products``'s sensitivity for the public n."""
    b = _bounds(("upper.bound1", upper_bound1), ("lower.bound1", lower_bound1),
                ("upper.bound2", upper_bound2), ("lower.bound2", lower_bound2))
    _statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP)
    n = _checks.check_whole(n, "n", 2)
    sensitivity = data_access.cov_from_products(
        0.0, n, b["lower.bound1"], b["upper.bound1"], b["lower.bound2"],
        b["upper.bound2"])["Sensitivity"]
    return _scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP, alpha)


def _check_sizes(sizes):
    sizes = np.atleast_1d(np.asarray(sizes, dtype=object)).ravel()
    if sizes.size < 1:
        raise _messages.value_error("sizes must give the size of each sample.")
    return [_checks.check_whole(v, "sizes", 2, message="sizes must be whole numbers >= 2.")
            for v in sizes]


def _pooled(statistic, eps, sizes, which_sensitivity="bounded", mechanism="Laplace", delta=0,
            type_DP="aDP", approx_n_max=False, *, bounds, alpha):
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    _statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP)
    sizes = _check_sizes(sizes)
    if statistic == "pooledVarDP":
        access = data_access.pooled_var_from_squares(sizes, 0.0, *bounds, approx_n_max)
    else:
        access = data_access.pooled_cov_from_products(sizes, 0.0, *bounds, approx_n_max)
    return _scalar_statistic(statistic, eps, access["Bounded.Sensitivities"], mechanism,
                             delta, type_DP, alpha)


def _pooled_var(statistic, eps, sizes, lower_bound, upper_bound, which_sensitivity="bounded",
                mechanism="Laplace", delta=0, type_DP="aDP", approx_n_max=False, *, alpha,
                simultaneous):
    """pooledVarDP (bounded): ``data_access.pooled_var_from_squares``'s bounded sensitivity
    for the public sample sizes."""
    b = _bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    return _pooled(statistic, eps, sizes, which_sensitivity, mechanism, delta, type_DP,
                   approx_n_max, bounds=(b["lower.bound"], b["upper.bound"]), alpha=alpha)


def _pooled_cov(statistic, eps, sizes, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
                approx_n_max=False, *, alpha, simultaneous):
    """pooledCovDP (bounded): ``data_access.pooled_cov_from_products``'s bounded sensitivity
    for the public sample sizes."""
    b = _bounds(("lower.bound1", lower_bound1), ("upper.bound1", upper_bound1),
                ("lower.bound2", lower_bound2), ("upper.bound2", upper_bound2))
    return _pooled(statistic, eps, sizes, which_sensitivity, mechanism, delta, type_DP,
                   approx_n_max, alpha=alpha, bounds=(b["lower.bound1"], b["upper.bound1"],
                                                      b["lower.bound2"], b["upper.bound2"]))


_UNDECLARED_MESSAGE = (
    "An accuracy report of tableDP is available for declared levels only (declared = TRUE: "
    "every factor an R factor, in Python a pandas.Categorical): with undeclared levels the "
    "release thresholds its cells (a suppressed cell errs by up to the threshold) and "
    "calibrates its noise to part of delta."
)
_DECLARED_MESSAGE = (
    "declared is required for tableDP with delta > 0 or a Gaussian mechanism: TRUE when every "
    "factor declares its levels (an R factor, a pandas.Categorical), FALSE otherwise."
)


def _count_budget(which_sensitivity, mechanism, eps, delta, type_DP):
    """histogramDP's and tableDP's checks of these arguments, with their messages. Returns
    (eps, delta, type_DP)."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    analytic = mechanism == "analytic"
    if analytic:
        type_DP = "aDP"  # ignored by 'analytic', as in the releases
    if mechanism == "Laplace":
        eps, _ = mechanisms.check_budget(eps)
    else:
        eps, delta = mechanisms.check_budget(eps, delta, type_DP, analytic=analytic,
                                             switch=stats.MECHANISM_SWITCH)
    return eps, delta, type_DP


def _histogram(statistic, eps, which_sensitivity="bounded", mechanism="Laplace", delta=0,
               type_DP="aDP", breaks="Sturges", cells=None, lower_bound=None,
               upper_bound=None, *, alpha, simultaneous):
    """histogramDP (counts, normalize = FALSE): ``breaks`` parsed by the release's own
    ``rcompat.parse_breaks`` (a function is called with the bounds, which it then needs) and
    refused as the release refuses it (non-equidistant points); a rule (k from the private
    n) makes the unbounded release spend part of eps on n."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if lower_bound is None and upper_bound is None:
        if callable(breaks):
            raise _messages.value_error(
                "lower_bound and upper_bound are required when breaks is a function "
                "(histogramDP calls it with the bounds).")
        argument = np.array([0.0, 1.0])  # not used: only a function reads it
    else:
        b = _bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
        argument = np.array([b["lower.bound"], b["upper.bound"]])
    kind, value = rcompat.parse_breaks(breaks, argument, stacklevel=4)
    if kind == "points" and not rcompat.is_equidistant(value):
        raise _messages.value_error(stats.EQUIDISTANT_MESSAGE)
    return _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP,
                   kind == "rule", cells, alpha=alpha, simultaneous=simultaneous)


def _table(statistic, eps, which_sensitivity="bounded", mechanism="Laplace", delta=0,
           type_DP="aDP", cells=None, declared=None, *, alpha, simultaneous):
    """tableDP with declared levels (``declared``: every factor a pandas Categorical / an R
    factor, as the release decides it, ``data_access.table_factors``). The thresholded
    release of undeclared levels is refused: its noise is calibrated to part of delta
    (``stats._table_threshold``) and a suppressed cell errs by up to the threshold. With the
    Laplace mechanism and delta = 0 the levels must be declared (the release refuses
    undeclared ones), so ``declared`` may be left out; otherwise it is required."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if declared is None:
        pure = (mechanism == "Laplace" and isinstance(delta, numbers.Real)
                and not isinstance(delta, bool) and delta == 0)
        if not pure:
            raise _messages.value_error(_DECLARED_MESSAGE)
        declared = True
    if not _checks.check_flag(declared, "declared"):
        raise _messages.value_error(_UNDECLARED_MESSAGE)
    return _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP, False, cells,
                   alpha=alpha, simultaneous=simultaneous)


def _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP, rule, cells, *,
            alpha, simultaneous):
    """histogramDP (counts, normalize = FALSE) and tableDP (declared levels): each cell's
    law (``stats.count_noise_laws``), the released counts rounded to integers."""
    eps, delta, type_DP = _count_budget(which_sensitivity, mechanism, eps, delta, type_DP)
    if simultaneous and cells is None:
        raise _messages.value_error("cells (the number of cells) is required when "
                                    "simultaneous is TRUE.")
    cells = 1 if cells is None else _checks.check_whole(cells, "cells", 1)
    laws = stats.count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity, rule)
    reports = {}
    for label, (k, tail) in laws.items():
        # the counts lie on the grid when g <= 1; else rounding them costs half a step
        law = dict(k=k, tail=tail, law="discrete Laplace" if mechanism == "Laplace"
                   else "discrete Gaussian")
        report = _from_laws(statistic, [law], None if cells == 1 else np.zeros(cells, int),
                            alpha, simultaneous, rounding=0.0 if k <= 0 else 0.5,
                            units="count")
        # the released counts are integers (rounded half to even): within floor(h + 1/2)
        report.half_width = np.floor(np.asarray(report.half_width) + 0.5)
        if report.half_width.ndim == 0:
            report.half_width = float(report.half_width)
        reports[label] = report
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports


def _utility_bound(eps, sensitivity, candidates, largest, alpha):
    """The utility shortfall OPT - u(output) of the exact exponential mechanism
    (``_random.exponential_mechanism``, uniform measure) that is exceeded with probability
    at most alpha: (2 Delta' / eps)(ln |R| + ln(1 / alpha)) + h (Dwork and Roth 2014, Theorem
    3.11, for the rounded utilities u~ and Delta' = D h; rounding each utility to the grid
    h moves it by at most h / 2, so OPT and u(output) each by h / 2). ``largest`` bounds
    abs(u) (it fixes the grid, ``_random.exponential_grid``). Returns (bound, h)."""
    k, rate = _random.exponential_grid(float(largest), eps, float(sensitivity))
    step = math.ldexp(1.0, k)  # h: the grid of the utilities
    # rate = eps / (2 D) per step h, D h = Delta': (2 Delta' / eps) = h / rate
    return (math.log(candidates) + math.log(1.0 / alpha)) * step / float(rate) + step, step


def _rank_bound(eps, lower, upper, n, alpha):
    """The rank-error excess of quantileDP's exponential mechanism that fails with
    probability at most alpha (:func:`_utility_bound`, sensitivity 1, Delta' = 1 + 2^-20)
    for the release's candidates (``stats.quantile_candidates``, |R| about 2^59: the
    bound is a worst case from public values only, typically an order of magnitude above
    the rank errors seen)."""
    return _utility_bound(eps, 1.0, stats.quantile_candidates(lower, upper), n, alpha)


def _exponential(statistic, eps, sensitivity, size, *, alpha, simultaneous):
    """ExponentialMechanism with the uniform measure: ``size`` candidates (|R|), the
    utility's ``sensitivity``; the bound on OPT - u(output) of :func:`_utility_bound` in the
    utility's units. The grid assumes abs(u) <= sensitivity 2^979 (beyond, the release
    coarsens it). A base ``measure`` is not covered (the theorem then depends on the
    measure of the best candidates, which depends on the data)."""
    eps = _checks.check_finite_budget(eps, "eps")
    sensitivity = mechanisms.check_exponential_sensitivity(sensitivity)
    size = _checks.check_whole(size, "size", 1)
    width, step = _utility_bound(eps, sensitivity, size, 0.0, alpha)
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (utility shortfall)", "utility")


def _quantile(statistic, eps, lower_bound, upper_bound, quant=0.5, n=None,
              which_sensitivity="bounded", *, alpha, simultaneous):
    """quantileDP / medianDP: the rank-error bound of :func:`_rank_bound`."""
    b = _bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    data_access.check_quant(quant)
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = _rank_bound(eps, b["lower.bound"], b["upper.bound"], n, alpha)
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


def _quantiles(statistic, eps, quants, lower_bound, upper_bound, method="joint", n=None,
               which_sensitivity="bounded", *, alpha, simultaneous):
    """quantilesDP with method = 'independent' (quantileDP at eps / m for each quantile,
    then sorted): :func:`_rank_bound` at eps / m for every quantile at once, the m draws
    being independent (per-quantile level 1 - (1 - alpha)^(1/m)). Sorting keeps it: for
    sorted targets, sorting the outputs does not raise the largest rank error."""
    b = _bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    m = quantiles.check_quants(quants).size  # the release's checks, in its order
    _checks.check_choice(method, "method", quantiles.METHODS)
    if method != "independent":
        raise _messages.value_error(
            "An accuracy report of quantilesDP is available for method = 'independent' only.")
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats.WHICH,
                         stats.WHICH_MESSAGE)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = _rank_bound(eps / m, b["lower.bound"], b["upper.bound"], n,
                              _per_value_alpha(alpha, m, True))
    return NoiseInterval(statistic, width, alpha, True, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


_HANDLERS = {
    "LaplaceMechanism": _laplace_mechanism,
    "GaussianMechanism": _gaussian_mechanism,
    "meanDP": _one_sample,
    "varDP": _one_sample,
    "sdDP": _one_sample,
    "covDP": _covariance,
    "pooledVarDP": _pooled_var,
    "pooledCovDP": _pooled_cov,
    "histogramDP": _histogram,
    "tableDP": _table,
    "quantileDP": _quantile,
    "medianDP": _quantile,
    "quantilesDP": _quantiles,
    "ExponentialMechanism": _exponential,
}


def noiseIntervalDP(statistic, eps, alpha=0.05, simultaneous=False, **arguments):
    """The (1 - alpha) interval of a release's noise, from its public arguments: an accuracy
    report at no privacy cost (no data are read, no noise is drawn).

    Parameters
    ----------
    statistic : str
        The release: 'LaplaceMechanism', 'GaussianMechanism', 'meanDP', 'varDP', 'sdDP',
        'covDP', 'pooledVarDP', 'pooledCovDP', 'histogramDP', 'tableDP', 'quantileDP',
        'medianDP', 'quantilesDP' or 'ExponentialMechanism'.
    eps : float
        The release's budget.
    alpha : float, default 0.05
        In (0, 1): the interval holds with probability at least 1 - alpha.
    simultaneous : bool, default False
        For a vector release: one half-width that holds for all values at once (the
        per-value level 1 - (1 - alpha)^(1/m), exact for independent noises), instead of
        per value.
    **arguments
        The release's other public arguments, named as it names them (``delta``,
        ``type_DP``, ``mechanism``, ``which_sensitivity``, ``lower_bound`` ...), with the
        data replaced by their public size:

        * LaplaceMechanism: ``sensitivities``, ``alloc_proportions``, ``size`` (the number
          of true values; by default the number of sensitivities).
        * GaussianMechanism: ``delta``, ``sensitivities``, ``type_DP``,
          ``alloc_proportions``, ``analytic``, ``tol``, ``size``.
        * meanDP, varDP, sdDP: ``n`` (the public sample size), ``lower_bound``,
          ``upper_bound``, ``which_sensitivity`` ('bounded' only), ``mechanism``, ``delta``,
          ``type_DP``.
        * covDP: ``n``, the four bounds, and the same.
        * pooledVarDP, pooledCovDP: ``sizes`` (the public size of each sample), the bounds,
          ``approx_n_max``, and the same.
        * histogramDP: ``which_sensitivity``, ``mechanism``, ``delta``, ``type_DP``,
          ``breaks`` (a rule name or the breaks: with a rule, the unbounded release spends
          part of eps on n), ``cells`` (needed with ``simultaneous``).
        * histogramDP's ``breaks`` go through the release's own parsing
          (``rcompat.parse_breaks``; non-equidistant points refused with its message); a
          function needs ``lower_bound`` and ``upper_bound`` (it is called with them).
        * tableDP (declared levels): ``which_sensitivity``, ``mechanism``, ``delta``,
          ``type_DP``, ``cells``, ``declared`` (True when every factor declares its levels,
          a pandas Categorical or an R factor; required unless mechanism = 'Laplace' with
          delta = 0, where the release needs declared levels; False is refused).
        * ExponentialMechanism (uniform measure): ``sensitivity`` and ``size`` (the number
          of candidates); the report bounds the utility shortfall (units 'utility').
        * quantileDP: ``quant``, ``lower_bound``, ``upper_bound``, ``n`` (optional);
          medianDP the same without ``quant``; quantilesDP (``method = 'independent'``):
          ``quants``, the bounds, ``method``, ``n``, for all the quantiles at once.

    Returns
    -------
    NoiseInterval or dict
        The report (``half_width``, per value for a vector; ``interval(released)``); for
        which_sensitivity = 'both' (histogramDP, tableDP), ``{"Bounded": ...,
        "Unbounded": ...}``.

    Raises
    ------
    ValueError
        For an unknown statistic or argument, arguments the release would refuse (its
        messages), and the releases that are not a value plus noise (see
        :mod:`dppack.accuracy`).

    Notes
    -----
    See :mod:`dppack.accuracy` for the derivation: the half-width is computed exactly from
    the discrete law the release draws (grid and scale from the release's own calibration),
    plus half a grid step for rounding the true value; for quantiles, a rank-error bound
    (Dwork and Roth 2014, Theorem 3.11).

    References
    ----------
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Theorem
    3.11 and Section 3.3; Canonne C L, Kamath G, Steinke T (2020), The discrete Gaussian for
    differential privacy; Sidak Z (1967), Rectangular confidence regions for the means of
    multivariate normal distributions.

    Examples
    --------
    The mean plasma glucose of the 532 Pima women, bounded in [50, 200], at eps = 1: the
    Laplace scale is b = 150 / 532 / 1, and b ln(1 / 0.05) = 0.845.

    >>> from dppack.datasets import load_pima
    >>> from dppack import meanDP
    >>> r = noiseIntervalDP("meanDP", eps=1.0, n=532, lower_bound=50, upper_bound=200)
    >>> round(r.half_width, 3)
    0.845
    >>> m = meanDP(load_pima()["glu"], eps=1.0, lower_bound=50, upper_bound=200,
    ...            random_state=1)
    >>> [round(v, 2) for v in r.interval(m)]
    [119.76, 121.45]

    A histogram's counts (one record changes two cells, sensitivity 2): each count is
    within 6 of the truth with probability 0.95.

    >>> noiseIntervalDP("histogramDP", eps=1.0).half_width
    6.0

    The rank error of a median of 532 values in [50, 200] (a worst case from public values
    only: the actual 95th percentile is 6 to 7 ranks):

    >>> round(noiseIntervalDP("medianDP", eps=1.0, lower_bound=50, upper_bound=200).half_width)
    87
    """
    if not isinstance(statistic, str) or statistic not in _HANDLERS:
        raise _messages.value_error(
            "statistic must be one of {" + ", ".join(f"'{s}'" for s in _STATISTICS) + "}.")
    alpha = _check_alpha(alpha)
    simultaneous = _checks.check_flag(simultaneous, "simultaneous")
    handler = _HANDLERS[statistic]
    accepted = handler.__code__.co_varnames[2:handler.__code__.co_argcount]
    unknown = [name for name in arguments if name not in accepted]
    if unknown:
        raise _messages.value_error(
            "noiseIntervalDP for {statistic} takes {accepted}; not {unknown}.",
            statistic=statistic, accepted=", ".join(accepted), unknown=", ".join(unknown))
    if statistic == "medianDP" and "quant" in arguments:
        raise _messages.value_error("medianDP takes no quant.")
    return handler(statistic, eps, **arguments, alpha=alpha, simultaneous=simultaneous)
