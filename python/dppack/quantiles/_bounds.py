"""boundsDP: a private clipping range from a public grid of candidates."""

import collections
import math
import warnings

import numpy as np

from .. import _checks, _messages, _random
from .._plans import Plan, per_value_alpha, register, run
from .._report import NoiseInterval
from ..mechanisms._exponential import utility_bound
from ._release import check_quants, quantiles_loss



Bounds = collections.namedtuple("Bounds", ["lower", "upper"])
Bounds.__doc__ = """The private range that :func:`boundsDP` returns: a named pair of floats.

Attributes
----------
lower, upper : float
    The released bounds, ``lower <= upper``, points of the public grid.

Examples
--------
>>> from dppack.quantiles import Bounds
>>> bounds = Bounds(-1.0, 2.0)
>>> bounds.upper - bounds.lower
3.0
>>> lower, upper = bounds
"""
Bounds.lower.__doc__ = "The released lower bound (float)."
Bounds.upper.__doc__ = "The released upper bound (float)."


def default_grid(smallest=1e-6, largest=1e10, per_decade=4):
    """The public grid of :func:`boundsDP`: 0 and +-10^(t / per_decade) from ``smallest`` to
    ``largest`` (powers of ten), sorted.

    Examples
    --------
    >>> g = default_grid(1, 100, 1)
    >>> [float(v) for v in g]
    [-100.0, -10.0, -1.0, 0.0, 1.0, 10.0, 100.0]
    """
    low = round(math.log10(smallest) * per_decade)
    high = round(math.log10(largest) * per_decade)
    positive = 10.0 ** (np.arange(low, high + 1) / per_decade)
    return np.concatenate([-positive[::-1], [0.0], positive])


def boundsDP(x, eps, quants=(0.01, 0.99), grid=None, random_state=None, accountant=None):
    """A differentially private clipping range [lower, upper] for the data.

    Two draws of the exact exponential mechanism, eps / 2 each, over a public grid (default 0
    and +-10^(t/4) from 10^-6 to 10^10): ``lower`` makes #{x < g} closest to quants[0] n,
    ``upper`` makes #{x <= g} closest to quants[1] n (sensitivity 1). Accuracy:
    :ref:`derivation-boundsDP`.

    Parameters
    ----------
    x : array_like
        Numeric, finite data; may be empty (then each bound is uniform on the grid).
    eps : float
        The whole budget, > 0 and finite.
    quants : pair of float, default (0.01, 0.99)
        The share of the data meant to lie below ``lower`` and at or below ``upper``.
    grid : array_like, optional
        The public candidates (at least two, finite, distinct), chosen without the data.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps) once, label "boundsDP".

    Returns
    -------
    Bounds
        A named tuple ``(lower, upper)`` of floats, lower < upper, both grid points.

    Raises
    ------
    ValueError
        For arguments that are not as above, or an overspend, before any draw.

    Warns
    -----
    UserWarning
        When a released bound is the grid's smallest (``lower``) or largest (``upper``)
        candidate: eps * n too small to locate the quantile, or data beyond the grid.

    References
    ----------
    McSherry and Talwar (2007), FOCS, Theorem 6.

    Examples
    --------
    The bounds, then the mean and quartiles of 20,000 incomes, 2 in all:

    >>> from dppack import boundsDP, quantilesDP
    >>> import numpy as np
    >>> from dppack import BudgetAccountant, meanDP
    >>> from scipy.stats import norm
    >>> income = np.exp(10.0 + 0.8 * norm.ppf((np.arange(20_000) + 0.5) / 20_000))
    >>> acc = BudgetAccountant(2.0)
    >>> lo, hi = boundsDP(income, 0.5, random_state=1, accountant=acc)
    >>> round(lo), round(hi)
    (3162, 177828)
    >>> mean = meanDP(income, 1.0, lo, hi, random_state=1, accountant=acc)
    >>> q = quantilesDP(income, [0.25, 0.5, 0.75], 0.5, lo, hi, random_state=1,
    ...                 accountant=acc)
    >>> float(acc.spent.eps)
    2.0
    """
    return run(BOUNDS, x, {"eps": eps, "quants": quants, "grid": grid}, random_state,
               accountant)


class _Bounds(Plan):
    """boundsDP: the checks (data, quants, grid, eps), the counts below and at or below each
    candidate, two exact draws, and the report of :func:`bounds_report`."""

    name = "boundsDP"
    report_arguments = dict(quants=(0.01, 0.99), grid=None, n=None)
    spends = False  # the draw needs no loss: none computed without an accountant

    def loss(self, a):
        return quantiles_loss(a["eps"])

    def prepare(self, x, a):
        # add/remove privacy: an empty dataset is released, like its neighbour of one record
        x, _, _ = _checks.as_finite_data(x, "x", 0)
        pair = check_bounds_quants(a["quants"])
        candidates = check_grid(a["grid"])
        eps = _checks.check_finite_budget(a["eps"], "eps")
        values = x.ravel(order="K")
        n = values.size
        # #{x < g_i} and #{x <= g_i} for every candidate, by counting (no sort of the data):
        # x < g_i exactly when fewer than i + 1 candidates are <= x, and x <= g_i when fewer
        # than i + 1 are < x.
        size = candidates.size
        less = np.cumsum(np.bincount(np.searchsorted(candidates, values, side="right"),
                                     minlength=size + 1))[:size]
        at_most = np.cumsum(np.bincount(np.searchsorted(candidates, values, side="left"),
                                        minlength=size + 1))[:size]
        u_low = -np.abs(less - pair[0] * n)
        u_high = -np.abs(at_most - pair[1] * n)
        return [(None, lambda rng, loss: _draw_bounds(u_low, u_high, eps, candidates, rng))]

    def report(self, statistic, eps, arguments, alpha, simultaneous):
        return bounds_report(statistic, eps, **arguments, alpha=alpha,
                             simultaneous=simultaneous)


def _draw_bounds(u_low, u_high, eps, candidates, rng):
    """The two selections, lower then upper, and the fix-up of upper <= lower."""
    i = _random.exponential_mechanism(u_low, bounds_share(eps), 1.0, rng)
    j = _random.exponential_mechanism(u_high, bounds_share(eps), 1.0, rng)
    if j <= i:
        j = min(i + 1, candidates.size - 1)
        i = j - 1
    _warn_at_edge(i, j, candidates)
    return Bounds(float(candidates[i]), float(candidates[j]))


def _warn_at_edge(i, j, candidates):
    """boundsDP's warning when a bound is at the grid's edge (from the release only)."""
    edges = []
    if i == 0:
        edges.append(f"lower = {float(candidates[0]):.6g} is the grid's smallest candidate")
    if j == candidates.size - 1:
        edges.append(f"upper = {float(candidates[-1]):.6g} is the grid's largest candidate")
    if edges:
        warnings.warn(
            "boundsDP: " + " and ".join(edges) + ": the bound is at the edge of the grid, "
            "not near the data's quantile. Either eps * n is too small for the mechanism to "
            "locate the quantile (every candidate beyond the data has the same utility, so "
            "the bound lands anywhere among them), or the data reach beyond the grid. Use a "
            "larger eps, more data, or a grid that suits the data.",
            UserWarning, stacklevel=6)


def bounds_share(eps):
    """The budget of each of boundsDP's two selections: eps / 2 (basic composition)."""
    return eps / 2.0


def check_bounds_quants(quants):
    """boundsDP's quants: two numbers in [0, 1] in increasing order (a float array)."""
    pair = check_quants(quants)
    if pair.size != 2:
        raise _messages.value_error("quants must be two numbers in [0, 1] in increasing order.")
    return pair


def check_grid(grid):
    """boundsDP's candidates: the default grid, or ``grid`` sorted, at least two distinct
    finite values."""
    if grid is None:
        return default_grid()
    values = _checks.as_numeric_array(grid, "grid must be numeric.").ravel()
    values = np.unique(values)
    if values.size < 2 or not np.isfinite(values).all():
        raise _messages.value_error("grid must hold at least two distinct finite values.")
    return values


def bounds_report(statistic, eps, quants=(0.01, 0.99), grid=None, n=None, *, alpha,
                  simultaneous):
    """boundsDP: each of its two selections is the exponential mechanism (sensitivity 1,
    uniform measure on the G candidates, at ``bounds_share`` (eps)), so
    ``mechanisms._exponential.utility_bound`` bounds its rank error's excess over the best candidate's; with
    ``simultaneous`` both at once (independent draws: per-bound level
    1 - (1 - alpha)^(1/2)). The fix-up of upper <= lower only widens the range: see
    :doc:`/guide/accuracy`, "boundsDP"."""
    check_bounds_quants(quants)  # the release's checks, in its order
    size = check_grid(grid).size
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = utility_bound(bounds_share(eps), 1.0, size, n,
                                 per_value_alpha(alpha, 2, simultaneous))
    return NoiseInterval(statistic, width, alpha, simultaneous, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank",
                         details={"candidates": size})


BOUNDS = register(_Bounds())
