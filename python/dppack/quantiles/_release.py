"""quantilesDP: several private quantiles of one variable under one budget, and its checks."""

import math
import numbers

import numpy as np

from .. import _checks, _messages, accounting
from ..accounting import PrivacyLoss
from .._plans import Plan, per_value_alpha, register, run
from .._report import NoiseInterval
from ..mechanisms._exponential import utility_bound
from ..stats._quantile import (check_resolution, quantile_candidates,
                               quantile_candidates_within, quantile_sensitivity, quantileDP,
                               rank_bound)
from ._joint import SUBPOINTS, joint_exp, joint_grid, joint_sensitivity
from ._joint_float import UNBOUNDED_RECORDS, joint_mechanism_eps
from ._recursive import (recursion_sensitivities, recursion_weights, recursive,
                         recursive_lattice, recursive_share)



METHODS = ("joint", "independent", "recursive")
WHICH = ("bounded", "unbounded")


def check_quants(quants):
    """quants as a float array: at least one number, each in [0, 1], in increasing order."""
    message = "quants must be numbers in [0, 1]."
    if isinstance(quants, (str, bytes)) or quants is None:
        raise _messages.value_error(message)
    values = np.asarray(quants, dtype=object).ravel()
    numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in values)
    if not values.size or not numeric:
        raise _messages.value_error(message)
    values = values.astype(np.float64)
    if np.isnan(values).any() or values.min() < 0 or values.max() > 1:
        raise _messages.value_error(message)
    if np.any(np.diff(values) < 0):
        raise _messages.value_error("quants must be in increasing order.")
    return values


def _bounds(lower_bound, upper_bound):
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    return bounds["lower.bound"], bounds["upper.bound"]


def quantiles_loss(eps):
    return PrivacyLoss.pure(_checks.check_finite_budget(eps, "eps"))


def _record_count(x):
    """The number of entries from the data's shape or length, unread (None: unknown)."""
    if type(x).__module__.split(".")[0] == "dask":  # refused later; never computed here
        return None
    shape = getattr(x, "shape", None)
    try:
        if isinstance(shape, tuple) and all(isinstance(v, numbers.Integral) for v in shape):
            return int(np.prod(shape, dtype=np.int64))
        return int(np.size(x))
    except (TypeError, ValueError):
        return None


def _joint_eps(eps, quants, lower_bound, upper_bound, which_sensitivity, resolution, count):
    """The eps JointExp runs at (:func:`joint_mechanism_eps`) so that the release, its float slack
    included, costs at most ``eps``; from public values only."""
    eps = _checks.check_finite_budget(eps, "eps")
    lower, upper = _bounds(lower_bound, upper_bound)
    quants = check_quants(quants)
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH)
    lattice = check_resolution(resolution, lower, upper)
    if lattice is None:
        _, first, last = joint_grid(lower, upper)
        points = last - first
    else:
        points = lattice.size * SUBPOINTS
    n = UNBOUNDED_RECORDS if count is None else max(int(count), 1)
    return joint_mechanism_eps(eps, n, quants.size, joint_sensitivity(quants, which_sensitivity),
                               points, which_sensitivity)


# --------------------------------------------------------------------------------------------
# quantilesDP
# --------------------------------------------------------------------------------------------


def quantilesDP(x, quants, eps, lower_bound, upper_bound, method="recursive",
                which_sensitivity="bounded", random_state=None, resolution=None,
                accountant=None):
    """Differentially private quantiles: m quantiles of one variable under one budget.

    Derivations: :doc:`/guide/quantiles-joint`; accuracy: :ref:`derivation-quantilesDP`.

    Parameters
    ----------
    x : array_like
        Numeric, finite data in memory (a matrix counts all its entries); at least one value
        under 'bounded'.
    quants : array_like of float
        The quantiles q_1 <= ... <= q_m, in [0, 1], in increasing order.
    eps : float
        The whole budget, > 0 and finite.
    lower_bound, upper_bound : float
        Public bounds; the data are clipped to them.
    method : {'recursive', 'joint', 'independent'}, default 'recursive'
        'recursive': ApproximateQuantiles, the middle quantile by :func:`dppack.quantileDP`,
        then each half recursively (exact). 'joint': JointExp, one exponential mechanism over
        the sorted m-vectors of grid points, its floating-point slack charged inside eps; more
        accurate for several quantiles. 'independent': :func:`dppack.quantileDP` for each
        quantile with eps / m, sorted (exact).
    which_sensitivity : {'bounded', 'unbounded'}, default 'bounded'
        The neighbouring relation; 'unbounded' uses each utility's smaller add/remove
        sensitivity ('joint': for data of at most 2^27 records).
    random_state : None, int or NumPy Generator, optional
    resolution : float, optional
        A public spacing r (e.g. 1 for whole numbers): every release is one of the
        candidates lower_bound + i r, so the true quantiles of integer data are reachable.
        None (default): the fine grid of :func:`dppack.quantileDP`.
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps) once, before the data are read; by default the
        session's accountant, if any.

    Returns
    -------
    numpy.ndarray
        The m released quantiles, in increasing order, in [lower_bound, upper_bound].

    Raises
    ------
    ValueError
        For arguments or data that are not as above, or an overspend, before any random
        number is drawn.

    References
    ----------
    Gillenwater, Joseph and Kulesza (2021), ICML, Section 3 (JointExp).
    Kaplan, Schnapp and Stemmer (2022), ICML, Algorithm 1 (ApproximateQuantiles).

    Examples
    --------
    The quartiles of plasma glucose (true values 98.75, 115, 141.25), bounded in [50, 200]:

    >>> from dppack import quantilesDP
    >>> from dppack.datasets import load_pima
    >>> glu = load_pima()["glu"]
    >>> q = quantilesDP(glu, [0.25, 0.5, 0.75], 1.0, 50, 200, random_state=1)
    >>> [round(float(v), 1) for v in q]
    [98.2, 117.5, 145.5]
    >>> q = quantilesDP(glu, [0.25, 0.5, 0.75], 1.0, 50, 200, method="joint",
    ...                 random_state=1)
    >>> [round(float(v), 1) for v in q]
    [97.1, 112.6, 138.9]
    >>> quantilesDP(glu, [0.25, 0.5, 0.75], 5.0, 50, 200, method="joint", random_state=1,
    ...             resolution=1).tolist()
    [98.0, 115.0, 140.0]
    >>> from dppack.quantiles import joint_float_slack
    >>> print(f"{joint_float_slack(glu.size, 3, 1.0):.1e}")  # joint runs at eps less this
    7.4e-10
    >>> quantilesDP(glu, [0.25, 0.5, 0.75], 1.0, 50, 200, random_state=1,
    ...             resolution=1).tolist()
    [98.0, 115.0, 144.0]
    """
    arguments = {"quants": quants, "eps": eps, "lower_bound": lower_bound,
                 "upper_bound": upper_bound, "method": method,
                 "which_sensitivity": which_sensitivity, "resolution": resolution}
    return run(QUANTILES, x, arguments, random_state, accountant)


class _Quantiles(Plan):
    """quantilesDP: the checks in DPpack's order, the data read, one draw per method, and
    the report of :func:`quantiles_report`."""

    name = "quantilesDP"
    report_arguments = dict(quants=None, lower_bound=None, upper_bound=None,
                            method="recursive", n=None, which_sensitivity="bounded",
                            resolution=None)
    required = ("quants", "lower_bound", "upper_bound")
    spends = False  # the draw needs no loss: none computed without an accountant

    def loss(self, a):
        return quantiles_loss(a["eps"])

    def prepare(self, x, a):
        method, which_sensitivity, resolution = (a["method"], a["which_sensitivity"],
                                                 a["resolution"])
        joint = isinstance(method, str) and method == "joint"
        count = _record_count(x) if joint else None  # public under 'bounded' (the shape)
        lower, upper = _bounds(a["lower_bound"], a["upper_bound"])
        lattice = check_resolution(resolution, lower, upper)  # public: before the data
        # Under add/remove neighbours n is private: no record is needed (refusing an empty
        # dataset while releasing its neighbour of one record would depend on the data).
        unbounded = _checks.is_one_of(which_sensitivity, ("unbounded",))
        x, _, _ = _checks.as_finite_data(x, "x", 0 if unbounded else 1)
        quants = check_quants(a["quants"])
        _checks.check_choice(method, "method", METHODS)
        _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH)
        eps = _checks.check_finite_budget(a["eps"], "eps")
        if joint and not unbounded and (count is None or x.size > count):
            # the charge's float slack was computed for `count` records (n is public here)
            raise _messages.value_error("x must be an array whose shape gives its size.")
        if joint:  # public values only: eps less its float slack
            inner_eps = _joint_eps(eps, quants, a["lower_bound"], a["upper_bound"],
                                   which_sensitivity, resolution, None if unbounded else count)
            values = np.clip(x.ravel(order="K"), lower, upper)  # a copy: partitioned in place
            return [(None, lambda rng, loss: joint_exp(
                values, quants, inner_eps, lower, upper, rng,
                sensitivity=joint_sensitivity(quants, which_sensitivity), lattice=lattice))]
        if method == "independent":
            return [(None, lambda rng, loss: np.sort(np.asarray(
                [quantileDP(x, q, eps / quants.size, lower, upper, which_sensitivity,
                            random_state=rng, accountant=accounting.UNCHARGED,
                            resolution=resolution) for q in quants], dtype=np.float64)))]
        share = recursive_share(eps, quants.size, which_sensitivity)
        return [(None, lambda rng, loss: _recursive_draw(x, quants, share, lower, upper,
                                                          lattice, which_sensitivity, rng))]

    def report(self, statistic, eps, arguments, alpha, simultaneous):
        return quantiles_report(statistic, eps, **arguments, alpha=alpha,
                                simultaneous=simultaneous)


def _recursive_draw(x, quants, share, lower, upper, lattice, which_sensitivity, rng):
    """The 'recursive' method's draws (on the lattice's positions with a resolution)."""
    out = np.empty(quants.size)
    if lattice is not None:
        recursive_lattice(lattice.positions(x.ravel(order="K")), quants,
                           np.arange(quants.size), share, 0, lattice.size - 1, lattice, rng,
                           out, which_sensitivity)
        return out
    recursive(x.ravel(order="K"), quants, np.arange(quants.size), share, lower, upper, rng,
               out, which_sensitivity)
    return out


def quantiles_report(statistic, eps, quants, lower_bound, upper_bound, method="recursive",
                     n=None, which_sensitivity="bounded", resolution=None, *, alpha,
                     simultaneous):
    """quantilesDP: the release's checks (bounds, quants, method, which.sensitivity, eps),
    then the method's report, in ranks; ``method`` defaults to the release's ('recursive').

    'independent' (quantileDP at eps / m for each quantile, then sorted):
    ``stats._quantile.rank_bound`` at eps / m for every quantile at once, the m draws being
    independent (per-quantile level 1 - (1 - alpha)^(1/m)). Sorting keeps it: for sorted
    targets, sorting the outputs does not raise the largest rank error. 'joint':
    :func:`_joint_quantiles` (needs ``resolution``); 'recursive':
    :func:`_recursive_quantiles`."""
    b = _checks.check_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    quants = check_quants(quants)  # the release's checks, in its order
    m = quants.size
    _checks.check_choice(method, "method", METHODS)
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    lower, upper = b["lower.bound"], b["upper.bound"]
    if method == "joint":
        return _joint_quantiles(statistic, eps, m, lower, upper, resolution, alpha,
                                joint_sensitivity(quants, which_sensitivity))
    # 'recursive' and 'independent': the release's resolution (its candidates)
    lattice = check_resolution(resolution, lower, upper)
    if method == "recursive":
        return _recursive_quantiles(statistic, eps, quants, lower, upper, n, which_sensitivity,
                                    alpha, simultaneous, lattice)
    # one width for all m draws: the largest of their sensitivities
    sensitivity = max(quantile_sensitivity(q, which_sensitivity) for q in quants)
    width, step = rank_bound(eps / m, lower, upper, n, per_value_alpha(alpha, m, True),
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
    (``joint_sensitivity``: 2 bounded, 2 (1 - min_i (q_i - q_{i-1})) unbounded)."""
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
    j, first, last = joint_grid(lower, upper)
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
        lattice = check_resolution(r, lower, upper)
    except ValueError:
        lattice = None
    lattice_cells = 1.0 if lattice is None else lattice.size * SUBPOINTS + m - 1
    log_ratio = max(math.log(2.0 * steps), math.log((last - first + m - 1) / points),
                    math.log(lattice_cells))
    total = (m * (log_ratio + _JOINT_SLACK) + math.log(1.0 / level)) / beta
    return NoiseInterval(statistic, total / 2.0, alpha, True, math.nan, math.nan, math.nan,
                         "exponential mechanism (rank error)", "rank",
                         details={"total": total, "resolution": r, "grid_points": count})


def _recursive_quantiles(statistic, eps, quants, lower, upper, n, which_sensitivity, alpha,
                         simultaneous, lattice=None):
    """quantilesDP, 'recursive': per quantile, the sum over the nodes on its path of their
    weights (``recursion_weights``) times each node's quantileDP bound
    (``mechanisms._exponential.utility_bound`` at the release's share, ``recursive_share``; the root
    with the candidates of [lower, upper], the other nodes with the most any sub-range has,
    ``stats._quantile.quantile_candidates_within``). Each node's bound holds with probability at
    least 1 - alpha' given the releases before it, so all m of them (``simultaneous``) with
    1 - alpha' = (1 - alpha)^(1/m), or the d on one quantile's path with
    (1 - alpha)^(1/d). See :doc:`/guide/accuracy`, "Recursive quantiles"."""
    m = quants.size
    share = recursive_share(eps, m, which_sensitivity)
    weights = recursion_weights(quants)
    sensitivities = recursion_sensitivities(quants, which_sensitivity)
    root = quantile_candidates(lower, upper)
    inner = quantile_candidates_within(lower, upper)
    if lattice is not None:  # every node chooses among a subset of the N + 1 candidates
        root = inner = lattice.size
    widths = np.empty(m)
    for j, (w, delta) in enumerate(zip(weights, sensitivities)):
        level = per_value_alpha(alpha, m if simultaneous else w.size, True)
        # each node's bound with its own sensitivity (_recursive.node_sensitivity)
        top, step = utility_bound(share, float(delta[0]), root, n, level)
        if np.all(delta[1:] == delta[0]):  # one bound for the nodes below the root
            below, _ = utility_bound(share, float(delta[0]), inner, n, level)
            widths[j] = w[0] * top + float(np.sum(w[1:])) * below
        else:
            widths[j] = w[0] * top + sum(
                float(wv) * utility_bound(share, float(d), inner, n, level)[0]
                for wv, d in zip(w[1:], delta[1:]))
    return NoiseInterval(statistic, widths, alpha, simultaneous, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank",
                         details={"eps_each": share,
                                  "depth": np.array([w.size for w in weights]),
                                  "weight": np.array([float(np.sum(w)) for w in weights])})


QUANTILES = register(_Quantiles())
