"""quantilesDP: several private quantiles of one variable under one budget, and its checks."""

import numbers

import numpy as np

from .. import _checks, _messages, _random, accounting
from ..accounting import PrivacyLoss
from ..stats._quantile import check_resolution, quantileDP
from ._joint import SUBPOINTS, joint_exp, joint_grid, joint_sensitivity
from ._joint_float import UNBOUNDED_RECORDS, joint_mechanism_eps
from ._recursive import recursive, recursive_lattice, recursive_share



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
    joint = isinstance(method, str) and method == "joint"
    count = _record_count(x) if joint else None  # public under 'bounded' (the shape)
    bill = accounting.charge(accountant, lambda: quantiles_loss(eps), "quantilesDP")
    lower, upper = _bounds(lower_bound, upper_bound)
    lattice = check_resolution(resolution, lower, upper)  # public: before the data
    # Under add/remove neighbours n is private: no record is needed (refusing an empty
    # dataset while releasing its neighbour of one record would depend on the data).
    unbounded = _checks.is_one_of(which_sensitivity, ("unbounded",))
    x, _, _ = _checks.as_finite_data(x, "x", 0 if unbounded else 1)
    quants = check_quants(quants)
    _checks.check_choice(method, "method", METHODS)
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH)
    eps = _checks.check_finite_budget(eps, "eps")
    if joint and not unbounded and (count is None or x.size > count):
        # the charge's float slack was computed for `count` records (n is public here)
        raise _messages.value_error("x must be an array whose shape gives its size.")
    if joint:  # public values only: eps less its float slack
        inner_eps = _joint_eps(eps, quants, lower_bound, upper_bound, which_sensitivity,
                               resolution, None if unbounded else count)
    rng = _random.as_generator(random_state)
    bill.spend()
    if method == "joint":
        values = np.clip(x.ravel(order="K"), lower, upper)  # a copy: partitioned in place
        return joint_exp(values, quants, inner_eps, lower, upper, rng,
                          sensitivity=joint_sensitivity(quants, which_sensitivity),
                          lattice=lattice)
    if method == "independent":
        out = [quantileDP(x, q, eps / quants.size, lower, upper, which_sensitivity,
                          random_state=rng, accountant=accounting.UNCHARGED,
                          resolution=resolution) for q in quants]
        return np.sort(np.asarray(out, dtype=np.float64))
    share = recursive_share(eps, quants.size, which_sensitivity)
    out = np.empty(quants.size)
    if lattice is not None:
        recursive_lattice(lattice.positions(x.ravel(order="K")), quants,
                           np.arange(quants.size), share, 0, lattice.size - 1, lattice, rng,
                           out, which_sensitivity)
        return out
    recursive(x.ravel(order="K"), quants, np.arange(quants.size), share, lower, upper, rng,
               out, which_sensitivity)
    return out
