"""The reports of the exponential mechanism: ExponentialMechanism, quantileDP, medianDP,
quantilesDP and boundsDP, as bounds on the utility or rank error (derivations:
``docs/python/guide/accuracy.rst``)."""

import math

import numpy as np

from .. import _checks, _messages, _random, data_access, mechanisms, quantiles
from .._plans import ReportPlan, per_value_alpha, register
from .._report import NoiseInterval
from ..stats import _quantile as stats_quantile
from ..stats import _release as stats_release


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


def _rank_bound(eps, lower, upper, n, alpha, lattice=None, sensitivity=1.0):
    """The rank-error excess of quantileDP's exponential mechanism that fails with
    probability at most alpha (:func:`_utility_bound` for the release's ``sensitivity``,
    ``stats._quantile.quantile_sensitivity``: 1, Delta' = 1 + 2^-20, under 'bounded'; max(quant,
    1 - quant) under 'unbounded') for the release's candidates
    (``stats._quantile.quantile_candidates``, |R| about 2^59: the bound is a worst case from public
    values only, typically an order of magnitude above the rank errors seen; with a
    ``resolution``, its N + 1 candidates, ``stats._quantile.Lattice``, and the rank error is the
    distance from quant n to the release's ranks [lt, le])."""
    candidates = (stats_quantile.quantile_candidates(lower, upper) if lattice is None
                  else lattice.size)
    return _utility_bound(eps, sensitivity, candidates, n, alpha)


def exponential(statistic, eps, sensitivity, size=None, measure=None, candidates=None, *,
                alpha, simultaneous):
    """ExponentialMechanism: the bound on OPT - u(output) of :func:`_utility_bound` in the
    utility's units, with ln |R| replaced by ln(M / mu_min) for a base ``measure`` (M its
    total, mu_min its smallest positive weight, both after the release's rounding to integers,
    ``_random.integer_measure``; |R| = ``size`` for the uniform measure, where M / mu_min = |R|).

    Proof (McSherry and Talwar 2007; Dwork and Roth 2014, Theorem 3.11 with a base measure):
    with S the best candidates the release can select (positive weight, finite utility) and
    OPT their utility, P(u(output) <= c) <= M exp(eps' c) / (mu(S) exp(eps' OPT)),
    eps' = eps / (2 Delta'), and mu(S) >= mu_min whatever the data. So the shortfall exceeds
    (2 Delta' / eps)(ln(M / mu_min) + ln(1 / alpha)) with probability at most alpha; OPT is
    over the candidates of positive weight. The grid assumes abs(u) <= sensitivity 2^979
    (beyond, the release coarsens it)."""
    eps = _checks.check_finite_budget(eps, "eps")
    sensitivity = mechanisms.check_exponential_sensitivity(sensitivity)
    if candidates is not None:  # the release's checks: one per utility, so size = their number
        if not hasattr(candidates, "__len__"):
            raise _messages.value_error(
                "candidates must be a sequence with one entry per utility.")
        if size is not None and _checks.check_whole(size, "size", 1) != len(candidates):
            raise _messages.value_error("Length of candidates must match length of utility")
        size = len(candidates)
    if measure is None:
        if size is None:
            raise _messages.value_error(
                "size (the number of candidates) or measure is required for "
                "ExponentialMechanism.")
        size = _checks.check_whole(size, "size", 1)
        ratio = float(size)
    else:
        raw = np.ravel(np.asarray(measure, dtype=object))
        if size is not None:
            size = _checks.check_whole(size, "size", 1)
        weights = _random.integer_measure(
            mechanisms.check_measure(measure, raw.size if size is None else size))
        positive = weights[weights > 0]
        if not positive.size:
            raise _messages.value_error(
                "At least one candidate must have positive measure and utility > -Inf.")
        ratio = float(weights.sum(dtype=np.float64)) / float(positive.min())
    width, step = _utility_bound(eps, sensitivity, ratio, 0.0, alpha)
    details = {} if measure is None else {"measure_ratio": ratio}
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (utility shortfall)", "utility",
                         details=details)


def quantile(statistic, eps, lower_bound, upper_bound, quant=0.5, n=None,
             which_sensitivity="bounded", mechanism="exponential", resolution=None, *, alpha,
             simultaneous):
    """quantileDP / medianDP: the rank-error bound of :func:`_rank_bound` (``quant``
    required for quantileDP, by :func:`noiseIntervalDP`; ``n`` does not change the bound,
    it only fixes the utilities' grid, whose step 2^-20 is added)."""
    b = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lattice = stats_quantile.check_resolution(resolution, b["lower.bound"], b["upper.bound"])
    data_access.check_quant(quant)
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats_release.WHICH,
                         stats_release.WHICH_MESSAGE)
    _checks.check_choice(mechanism, "mechanism", ("exponential",),
                         stats_release.EXPONENTIAL_MESSAGE)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = _rank_bound(eps, b["lower.bound"], b["upper.bound"], n, alpha, lattice,
                              stats_quantile.quantile_sensitivity(quant, which_sensitivity))
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


def multiple_quantiles(statistic, eps, quants, lower_bound, upper_bound, method="recursive", n=None,
                       which_sensitivity="bounded", resolution=None, *, alpha, simultaneous):
    """quantilesDP: the release's checks (bounds, quants, method, which.sensitivity, eps),
    then the method's report, in ranks; ``method`` defaults to the release's ('recursive').

    'independent' (quantileDP at eps / m for each quantile, then sorted):
    :func:`_rank_bound` at eps / m for every quantile at once, the m draws being
    independent (per-quantile level 1 - (1 - alpha)^(1/m)). Sorting keeps it: for sorted
    targets, sorting the outputs does not raise the largest rank error. 'joint':
    :func:`_joint_quantiles` (needs ``resolution``); 'recursive':
    :func:`_recursive_quantiles`."""
    b = _checks.check_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    quants = quantiles.check_quants(quants)  # the release's checks, in its order
    m = quants.size
    _checks.check_choice(method, "method", quantiles.METHODS)
    _checks.check_choice(which_sensitivity, "which.sensitivity", quantiles.WHICH)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    lower, upper = b["lower.bound"], b["upper.bound"]
    if method == "joint":
        return _joint_quantiles(statistic, eps, m, lower, upper, resolution, alpha,
                                quantiles.joint_sensitivity(quants, which_sensitivity))
    # 'recursive' and 'independent': the release's resolution (its candidates)
    lattice = stats_quantile.check_resolution(resolution, lower, upper)
    if method == "recursive":
        return _recursive_quantiles(statistic, eps, quants, lower, upper, n, which_sensitivity,
                                    alpha, simultaneous, lattice)
    # one width for all m draws: the largest of their sensitivities
    sensitivity = max(stats_quantile.quantile_sensitivity(q, which_sensitivity) for q in quants)
    width, step = _rank_bound(eps / m, lower, upper, n, per_value_alpha(alpha, m, True),
                              lattice, sensitivity)
    return NoiseInterval(statistic, width, alpha, True, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


_RESOLUTION_MESSAGE = (
    "An accuracy report of quantilesDP with method = 'joint' needs resolution, the public "
    "spacing r of the data (the data and the bounds lie on the grid lower.bound + r * k, "
    "e.g. r = 1 for whole numbers): without it the rank error has no bound from public "
    "values, as it depends on the gaps between the data.")
# The floating-point sampler of JointExp gets each probability right within a factor of
# about 1 +- 1e-9 (dppack.quantiles), and data on the grid in floating point make widths of
# r within a relative 1e-15 or so: both covered by this slack, generously.
_JOINT_SLACK = 2.0 ** -20
# How far (b - a) / r may be from a whole number N, in steps: floating-point spellings of the
# bounds (0.1 * 3) only, far below the r / 2 the volume argument allows.
_JOINT_GRID_TOLERANCE = 1e-6


def _joint_quantiles(statistic, eps, m, lower, upper, resolution, alpha, sensitivity=2.0):
    """quantilesDP, 'joint' (JointExp): a bound on every quantile's rank error at once, for
    data on the public grid a + r Z (r = ``resolution``). See :doc:`/guide/accuracy`,
    "Joint quantiles", for the derivation: with N = (b - a) / r (within 1e-6 of a whole
    number, ``_JOINT_GRID_TOLERANCE``),

        t = (2 Delta / eps)(m (ln(2 N) + s) + ln(1 / alpha')),
        alpha' = alpha / (1 + s) - m 2^-50 (1 + max(|a|, |b|) / r),  s = 2^-20,

    (with ln(2 N) replaced by ln((W + m - 1) / l) where that is larger: W the release's grid
    points, l = r / (2 g) - 2 those of an interval at least r / 2 wide)
    bounds the total gap deviation's excess over T*, the best total over outputs in
    intervals at least r / 2 wide (for data on the grid, even with floating-point error,
    the best over the intervals that are not rounding artefacts), and t / 2 the excess of
    each quantile's rank error over T* / 2. Delta = ``sensitivity``
    (``quantiles.joint_sensitivity``: 2 bounded, 2 (1 - min_i (q_i - q_{i-1})) unbounded)."""
    if resolution is None:
        raise _messages.value_error(_RESOLUTION_MESSAGE)
    r = _checks.check_number(resolution, "resolution", 0.0, None, closed="neither",
                             finite=True, message="resolution must be a positive number.")
    steps = (upper - lower) / r
    count = round(steps) if math.isfinite(steps) else 0
    # absolute, in steps: a relative check lets the bounds miss the grid by many steps'
    # fractions when there are many grid points (a narrow top interval [x_n, b))
    if count < 1 or abs(steps - count) > _JOINT_GRID_TOLERANCE:
        raise _messages.value_error(
            "resolution must divide upper.bound - lower.bound: the data and the bounds lie "
            "on the grid lower.bound + resolution * k.")
    # an output rounded onto its interval's upper end (a uniform double in an interval at
    # least r / 2 wide): at most 2^-50 (1 + max(|a|, |b|) / r) for each of the m outputs
    rounding = m * 2.0 ** -50 * (1.0 + max(abs(lower), abs(upper)) / r)
    level = alpha / (1.0 + _JOINT_SLACK) - rounding
    # the release's grid g = 2^j: W candidates, at least r / (2 g) - 2 in an interval at
    # least r / 2 wide (a float: ldexp stays finite, r / g <= 2^1100 or so)
    j, first, last = quantiles.joint_grid(lower, upper)
    points = math.ldexp(r, -j - 1) - 2.0
    if level <= 0 or points < 1:
        raise _messages.value_error(
            "resolution is too fine for the bounds: the release's floating-point outputs "
            "cannot resolve it (alpha would be spent on rounding).")
    beta = eps / (2.0 * sensitivity)  # JointExp's density exp(eps u / (2 Delta))
    # vol(all) / vol(S) <= ((W + m - 1) / l)^m, about (2 N)^m, N = (b - a) / r; the release
    # with this resolution (JointExp on the lattice's N + 1 points, G refined candidates
    # each, quantiles._lattice_coordinates): ((N + 1) G + m - 1)^m, an output's best
    # refined candidates being at least one (its T* at most the one above); only where
    # that release exists (a resolution it accepts)
    try:
        lattice = stats_quantile.check_resolution(r, lower, upper)
    except ValueError:
        lattice = None
    lattice_cells = 1.0 if lattice is None else lattice.size * quantiles.SUBPOINTS + m - 1
    log_ratio = max(math.log(2.0 * steps), math.log((last - first + m - 1) / points),
                    math.log(lattice_cells))
    total = (m * (log_ratio + _JOINT_SLACK) + math.log(1.0 / level)) / beta
    return NoiseInterval(statistic, total / 2.0, alpha, True, math.nan, math.nan, math.nan,
                         "exponential mechanism (rank error)", "rank",
                         details={"total": total, "resolution": r, "grid_points": count})


def _recursive_quantiles(statistic, eps, quants, lower, upper, n, which_sensitivity, alpha,
                         simultaneous, lattice=None):
    """quantilesDP, 'recursive': per quantile, the sum over the nodes on its path of their
    weights (``quantiles.recursion_weights``) times each node's quantileDP bound
    (:func:`_utility_bound` at the release's share, ``quantiles.recursive_share``; the root
    with the candidates of [lower, upper], the other nodes with the most any sub-range has,
    ``stats._quantile.quantile_candidates_within``). Each node's bound holds with probability at
    least 1 - alpha' given the releases before it, so all m of them (``simultaneous``) with
    1 - alpha' = (1 - alpha)^(1/m), or the d on one quantile's path with
    (1 - alpha)^(1/d). See :doc:`/guide/accuracy`, "Recursive quantiles"."""
    m = quants.size
    share = quantiles.recursive_share(eps, m, which_sensitivity)
    weights = quantiles.recursion_weights(quants)
    sensitivities = quantiles.recursion_sensitivities(quants, which_sensitivity)
    root = stats_quantile.quantile_candidates(lower, upper)
    inner = stats_quantile.quantile_candidates_within(lower, upper)
    if lattice is not None:  # every node chooses among a subset of the N + 1 candidates
        root = inner = lattice.size
    widths = np.empty(m)
    for j, (w, delta) in enumerate(zip(weights, sensitivities)):
        level = per_value_alpha(alpha, m if simultaneous else w.size, True)
        # each node's bound with its own sensitivity (quantiles.node_sensitivity)
        top, step = _utility_bound(share, float(delta[0]), root, n, level)
        if np.all(delta[1:] == delta[0]):  # one bound for the nodes below the root
            below, _ = _utility_bound(share, float(delta[0]), inner, n, level)
            widths[j] = w[0] * top + float(np.sum(w[1:])) * below
        else:
            widths[j] = w[0] * top + sum(
                float(wv) * _utility_bound(share, float(d), inner, n, level)[0]
                for wv, d in zip(w[1:], delta[1:]))
    return NoiseInterval(statistic, widths, alpha, simultaneous, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank",
                         details={"eps_each": share,
                                  "depth": np.array([w.size for w in weights]),
                                  "weight": np.array([float(np.sum(w)) for w in weights])})


def bounds_dp(statistic, eps, quants=(0.01, 0.99), grid=None, n=None, *, alpha,
              simultaneous):
    """boundsDP: each of its two selections is the exponential mechanism (sensitivity 1,
    uniform measure on the G candidates, at ``quantiles.bounds_share`` (eps)), so
    :func:`_utility_bound` bounds its rank error's excess over the best candidate's; with
    ``simultaneous`` both at once (independent draws: per-bound level
    1 - (1 - alpha)^(1/2)). The fix-up of upper <= lower only widens the range: see
    :doc:`/guide/accuracy`, "boundsDP"."""
    quantiles.check_bounds_quants(quants)  # the release's checks, in its order
    size = quantiles.check_grid(grid).size
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = _utility_bound(quantiles.bounds_share(eps), 1.0, size, n,
                                 per_value_alpha(alpha, 2, simultaneous))
    return NoiseInterval(statistic, width, alpha, simultaneous, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank",
                         details={"candidates": size})


_QUANTILE = dict(lower_bound=None, upper_bound=None, quant=None, n=None,
                 which_sensitivity="bounded", mechanism="exponential", resolution=None)
register(ReportPlan("quantileDP", quantile, _QUANTILE, ("lower_bound", "upper_bound", "quant")))
register(ReportPlan("medianDP", quantile,
                    {name: v for name, v in _QUANTILE.items() if name != "quant"},
                    ("lower_bound", "upper_bound")))
register(ReportPlan("quantilesDP", multiple_quantiles,
                    dict(quants=None, lower_bound=None, upper_bound=None, method="recursive",
                         n=None, which_sensitivity="bounded", resolution=None),
                    ("quants", "lower_bound", "upper_bound")))
register(ReportPlan("ExponentialMechanism", exponential,
                    dict(sensitivity=None, size=None, measure=None, candidates=None),
                    ("sensitivity",)))
register(ReportPlan("boundsDP", bounds_dp, dict(quants=(0.01, 0.99), grid=None, n=None)))
