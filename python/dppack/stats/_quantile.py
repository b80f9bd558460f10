"""quantileDP and medianDP: the exact exponential mechanism over the quantile's
candidates (a power-of-two grid, or a public resolution)."""

import fractions
import functools
import math

import numpy as np

from .. import _backends, _checks, _messages, _quantile_fast, _random, data_access
from .._plans import Plan, register, run
from .._report import NoiseInterval
from ..accounting import PrivacyLoss
from ..data_access import check_quant
from ..mechanisms._exponential import utility_bound
from ._release import (EXPONENTIAL_MESSAGE, WHICH, WHICH_MESSAGE, check_which, minimum_size,
                       sample_bounds)


def quantileDP(x, quant, eps, lower_bound, upper_bound, which_sensitivity="bounded",
               mechanism="exponential", random_state=None, resolution=None, accountant=None):
    """Differentially private quantile (Smith 2011), by the exponential mechanism, drawn
    exactly.

    The sorted data, clipped to the bounds and padded with them, cut [lower_bound,
    upper_bound] into n + 1 intervals; interval k (k data points below it) is chosen with
    probability proportional to its width times exp(-eps abs(k - quant n) / 2), and the result
    is drawn uniformly within it. Here the widths are counted on a fine grid and
    the draw is exact (see Notes).

    Parameters
    ----------
    x : array_like, or a Dask array, Series or DataFrame
        Numeric, finite data (a matrix counts all its entries). Each entry counts as one
        person: the guarantee protects one entry, not one row, so a person with several
        entries (a row of a matrix) needs one value per person. Dask data are neither
        sorted nor loaded: one pass counts them on a fine public grid (Notes, "Dask").
    quant : float
        In [0, 1].
    eps : float
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
        The utility's sensitivity: 1 for 'bounded' (replace one record), max(quant,
        1 - quant) for 'unbounded' (add or remove one; 1/2 for the median; a deviation
        from DPpack, whose sensitivity is 1 either way: Notes). 'both' warns (DPpack's
        message) and returns one value, drawn with sensitivity 1, eps-DP under both.
    mechanism : {'exponential'}, default 'exponential'
    random_state : None, int or NumPy Generator, optional
    resolution : float, optional
        A public spacing r (e.g. 1 for whole numbers): the release is then one of the
        candidates lower_bound + i r (i = 0, ..., floor((upper_bound - lower_bound) / r),
        upper_bound included when it lies on them), and a value shared by tied data can be
        released exactly (Notes, "On a resolution"). At most 2^40 candidates, and r at
        least max(abs(lower_bound), abs(upper_bound)) / 2^40. None (default): DPpack's
        release, drawn on the fine grid below.
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps) (also for 'both', which releases one value), label
        "quantileDP"; by default the session's accountant (``with BudgetAccountant(...)``),
        if any. An overspend is refused before the data are read or any noise is drawn.

    Returns
    -------
    float
        In [lower_bound, upper_bound]: a point of the grid g = 2^j of the Notes (the
        nearest double to it where the grid is finer than the doubles); with a
        ``resolution``, one of its candidates.

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order (bound lengths, quant, which_sensitivity,
        mechanism, then the exponential mechanism's eps check), and ours for bounds and data;
        an overspend of the accountant. All before any random number is drawn; a bad
        ``resolution`` (after the bounds) before the data are read.

    Notes
    -----
    The release is the exponential mechanism (McSherry and Talwar 2007) over the points of a
    grid, with counting measure, so that it can be drawn without floating-point leaks:

    * The grid g = 2^j is the finest with max(abs(lower_bound), abs(upper_bound)) < 2^59 g; it
      depends on the bounds only (public). Every datum is clipped to the bounds and rounded
      to the grid, record by record: X_i = clip(round(x_i / g), X_0, X_{n+1}) with
      X_0 = ceil(lower_bound / g) and X_{n+1} = floor(upper_bound / g). The candidates are
      the grid points j in [X_0, X_{n+1}) (all within the bounds), and the utility of j is
      -abs(c(j) - quant n), c(j) the number of rounded data <= j. Changing one record changes
      one X_i, so c(j) by at most 1: bounded sensitivity 1. Adding a record changes c(j)
      by 0 or 1 and quant n by quant, so c(j) - quant n by -quant or 1 - quant, and
      abs(c(j) - quant n) by at most Delta = max(quant, 1 - quant); removing one, the
      reverse: unbounded sensitivity Delta (reached; ``stats._quantile.quantile_sensitivity``),
      rounding included. DPpack uses 1 under both relations; with Delta under 'unbounded'
      the release is more accurate at the same eps (a deviation from DPpack: the law
      differs, the guarantee is the same eps-DP).
    * The points with c(j) = k form interval k, [X_k, X_{k+1}) of the sorted X (X_0 and
      X_{n+1} the bounds): its width in grid points is its measure, and its utility
      -abs(k - quant n) is DPpack's. Ties (and data clipped to a bound) make intervals of width
      0, which are never chosen; an interval is chosen with probability proportional to its
      width times exp(eps u / (2 Delta')) and a grid point uniformly within it
      (``_random.exponential_interval``: utilities rounded to a grid h = 2^k <= Delta /
      2^20, Delta' = (ceil(Delta / h) + 1) h for the rounding (1 + 2^-20 for Delta = 1),
      every decision an exact comparison of integers; the rate eps / (2 Delta') is an exact
      rational).
      The float released is a function of the chosen integer point alone.
    * Speed: the mechanism is run on the candidates near quant n (found with
      ``numpy.partition``, not a full sort) and on the two unions of the intervals beyond,
      as two candidates whose utility is the largest in their union and whose width is the
      union's (the sum of its widths needs only the two order statistics at its ends). A
      point drawn in a union is kept with probability exp(-gamma b), b the gap (in grid
      units) between its own utility and the union's and gamma the mechanism's rate in those
      units, and otherwise the draw is repeated: rejection sampling, so the law of the
      release is exactly that of the mechanism on all the grid points. The window is chosen
      so that a union is drawn with probability below e^-50.

    The result therefore is eps-DP (pure, bounded or unbounded), and under 'bounded' its
    law differs from DPpack's only by the grid: widths are counted in steps of g (below
    2^-58 of the larger bound) instead of measured in floating point.

    **On a resolution** (``resolution`` = r; a deviation from DPpack, which has no such
    argument). The candidates are t_i = lower_bound + i r, i = 0, ..., N, fixed by the
    bounds and r alone (``Lattice``: computed once per index by one formula, as
    (fl(lower_bound k) + i) / k when r is the double nearest 1 / k, so that r = 0.1 gives
    0.3 and data written to one decimal tie with the candidates). Each datum, clipped to the
    bounds, is compared exactly with them: lt(t) data lie below t and le(t) at or below it.
    The utility of t is DPpack's -abs(k - quant n) at the best rank k the candidate can take
    between its tied data, -max(0, lt(t) - quant n, quant n - le(t)): DPpack's where no
    datum equals t (lt = le = k), and 0 on a value whose ties span rank quant n, so that
    the true quantile of data on the resolution is the most likely release. Sensitivity 1
    bounded: changing a record moves lt and le by at most 1 each; max(quant, 1 - quant)
    unbounded: adding or removing one moves them by 0 or 1 and quant n by quant, so
    lt - quant n and quant n - le each by at most max(quant, 1 - quant)
    (``stats._quantile.quantile_sensitivity``). The release is the exponential
    mechanism over the N + 1 candidates with counting measure (McSherry and Talwar 2007,
    Theorem 6; the quantile utility of Smith 2011), eps-DP, drawn exactly: consecutive
    candidates with the same (lt, le) form a run (at most 3 n + 1 runs, from the data's
    positions among the candidates; never N + 1 candidates listed), a run is drawn with
    weight its number of candidates times exp(eps u / (2 Delta')) and a candidate
    uniformly within it (``_random.exponential_interval``, Delta' as above). The
    release is the double t_i (post-processing of the index i). Cost: one sort of the
    data's positions, O(n log n). On Dask one pass counts the data per position (at most
    one pair per distinct position reaches the driver): the same counts, the same draws as
    in memory for the same ``random_state``.

    **Dask** (``dppack.dask.quantiles``, for data beyond one machine's memory). No sort:
    every record is rounded to cells of a coarser public grid h = 2^(j + s), s >= 0 the smallest with at most 2^20 cells
    between the bounds (from the bounds alone; h <= (upper_bound - lower_bound) / 2^19, or h =
    g), and clipped as above. One pass (one ``dask.compute``) counts the records per cell. On
    the driver the counts give the rounded records of any ranks and c(t) for any t, so the
    algorithm above runs unchanged on them (its window, unions and rejection step). Rounding
    is still record by record, so the sensitivities are those above. The
    release on Dask is therefore the in-memory release on the data rounded to h (each record
    moved by at most h / 2, the only difference), for the same ``random_state`` the same
    value; on data that lie on the cells (integers when h <= 1) it is the in-memory release
    itself. (Where the window would list more than 2^22 records, from ties over a huge n or a
    tiny eps, the driver draws from the runs of equal c(t) instead: the same law, other
    draws.) Measured on 10^4 lognormal values (bounds [0, 50], quant 0.9, eps 0.5, 200 seeds
    each; h = 2^-14, the data 0.002 apart there), the median error abs(release - sample quantile)
    is 0.0076 on Dask and 0.0067 in memory, a difference within the sampling error
    (``tests/python/dask/test_dask_quantiles.py``, two-sample KS p = 0.79). The checks that need no
    pass (bounds, numeric dtypes, the size when the chunks are known) come first, in the order
    above; then the arguments, so that a wrong argument costs no pass; the size (unknown
    chunks) and finiteness after the pass; all before the charge and the draw.

    References
    ----------
    Smith (2011), Privacy-preserving statistical estimation with optimal convergence rates;
    McSherry and Talwar (2007); Kaplan, Schnapp and Stemmer (2022), Differentially private
    approximate quantiles (add/remove sensitivity of rank utilities); Giddens and Liu
    (2023), DPpack reference manual, ``quantileDP``.

    Examples
    --------
    The first quartile of plasma glucose (true value 98.75), bounded in [50, 200]:

    >>> from dppack import quantileDP
    >>> from dppack.datasets import load_pima
    >>> q = quantileDP(load_pima()["glu"], 0.25, 1.0, 50, 200, random_state=1)
    >>> round(q, 2)
    98.83

    The glucose values are whole numbers: with resolution 1 the release is one too.

    >>> quantileDP(load_pima()["glu"], 0.25, 1.0, 50, 200, random_state=1, resolution=1)
    98.0
    """
    return run(QUANTILE, x, {"quant": quant, "eps": eps, "lower_bound": lower_bound,
                             "upper_bound": upper_bound, "which_sensitivity": which_sensitivity,
                             "mechanism": mechanism, "resolution": resolution},
               random_state, accountant)


def _quantile_loss(eps, which_sensitivity, mechanism):
    """pure(eps): one draw of the exponential mechanism; 'both' releases one value."""
    if not (_checks.is_one_of(which_sensitivity, WHICH)
            and _checks.is_one_of(mechanism, ("exponential",))):
        raise _messages.value_error("not a quantile's arguments")  # left to the quantile's checks
    if type(eps) is float and eps > 0:
        return _pure_loss(eps)
    return PrivacyLoss.pure(eps)


@functools.lru_cache(maxsize=64)
def _pure_loss(eps):
    """PrivacyLoss.pure(eps), made once per eps (a PrivacyLoss is immutable)."""
    return PrivacyLoss.pure(eps)


class _QuantilePlan(Plan):
    """quantileDP and medianDP (``quant`` 0.5 in its arguments): the checks in DPpack's
    order, the records read through the data's backend, one exact draw, and the rank-error
    report of :func:`quantile_report`."""

    spends = False  # the draw needs no loss: none computed without an accountant

    def __init__(self, name, report_arguments, required):
        self.name, self.report_arguments, self.required = name, report_arguments, required

    def loss(self, a):
        return _quantile_loss(a["eps"], a["which_sensitivity"], a["mechanism"])

    def prepare(self, x, a):
        quant, eps, lower_bound, upper_bound = (a["quant"], a["eps"], a["lower_bound"],
                                                a["upper_bound"])
        which = a["which_sensitivity"]
        if a["resolution"] is None and _quantile_fast.plain_arguments(
                x, quant, eps, lower_bound, upper_bound, which, a["mechanism"]):
            # every check below would pass and return its argument as it is (small calls)
            sensitivity = quantile_sensitivity(quant, which)
            return [(None, lambda rng, loss: exact_quantile(
                x, quant, eps, lower_bound, upper_bound, rng, sensitivity=sensitivity))]
        lower, upper = sample_bounds(upper_bound, lower_bound)
        lattice = check_resolution(a["resolution"], lower, upper)  # public: before the data
        # The checks that need no pass (in memory, all of them) come first, in the in-memory
        # order; then the arguments (quant ... eps), so that a wrong argument costs no pass
        # over Dask data; then the counts (on Dask one pass, and the size and finiteness
        # checks it allows).
        source = _backends.backend_for(x).quantile_source(x, "x", minimum_size(which, 1))
        # DPpack clips x here; the release clips the records it uses (the same result)
        quant, eps = _quantile_arguments(quant, eps, which, a["mechanism"], stacklevel=6)
        sensitivity = quantile_sensitivity(quant, which)
        if lattice is not None:  # the data's positions among the candidates, counted
            counts = source.lattice_counts(lattice)
            return [(None, lambda rng, loss: _lattice_quantile(*counts, quant, eps, lattice, rng,
                                                               sensitivity))]
        j, first, last = _quantile_grid(lower, upper)
        records = source.records(j, first, last)
        return [(None, lambda rng, loss: _records_quantile(records, quant, eps, lower, upper, j,
                                                           rng, sensitivity))]

    def report(self, statistic, eps, arguments, alpha, simultaneous):
        return quantile_report(statistic, eps, **arguments, alpha=alpha)


def _records_quantile(records, quant, eps, lower, upper, j, rng, sensitivity):
    """The in-memory algorithm on the records (on Dask counted per cell): the same draws."""
    try:
        return exact_quantile(records, quant, eps, lower, upper, rng, sensitivity=sensitivity)
    except _backends.WindowTooWide:  # raised before any draw; the same law from the runs
        ranks, widths, starts = records.runs()
        utilities = data_access.rank_utility(ranks, records.size, quant)
        i, offset = _random.exponential_interval(utilities, widths, eps, sensitivity, rng)
        return math.ldexp(float(int(starts[i]) + offset), j)


def rank_bound(eps, lower, upper, n, alpha, lattice=None, sensitivity=1.0):
    """The rank-error excess of quantileDP's exponential mechanism that fails with
    probability at most alpha (``mechanisms._exponential.utility_bound`` for the release's
    ``sensitivity``, :func:`quantile_sensitivity`) for its candidates
    (:func:`quantile_candidates`, |R| about 2^59: a worst case from public values only; with
    a ``resolution``, the N + 1 of its :class:`Lattice`, the rank error then being the
    distance from quant n to the release's ranks [lt, le])."""
    candidates = quantile_candidates(lower, upper) if lattice is None else lattice.size
    return utility_bound(eps, sensitivity, candidates, n, alpha)


def quantile_report(statistic, eps, lower_bound, upper_bound, quant=0.5, n=None,
                    which_sensitivity="bounded", mechanism="exponential", resolution=None, *,
                    alpha):
    """quantileDP / medianDP: the rank-error bound of :func:`rank_bound` (``n`` only fixes
    the utilities' grid, whose step 2^-20 is added), after the release's checks."""
    b = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lattice = check_resolution(resolution, b["lower.bound"], b["upper.bound"])
    check_quant(quant)
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH, WHICH_MESSAGE)
    _checks.check_choice(mechanism, "mechanism", ("exponential",), EXPONENTIAL_MESSAGE)
    eps = _checks.check_finite_budget(eps, "eps")
    n = 1 if n is None else _checks.check_whole(n, "n", 1)
    width, step = rank_bound(eps, b["lower.bound"], b["upper.bound"], n, alpha, lattice,
                             quantile_sensitivity(quant, which_sensitivity))
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (rank error)", "rank")


def quantile_sensitivity(quant, which_sensitivity="bounded"):
    """The sensitivity Delta of quantileDP's utility for the neighbouring relation: 1 under
    'bounded' (and 'both', whose one value must hold under both relations), max(quant,
    1 - quant) under 'unbounded'.

    For both utilities, -abs(k - quant n) on the fine grid and -max(0, lt - quant n,
    quant n - le) on a resolution (``lt``, ``le`` the data below and at or below a
    candidate): changing one record moves k (or lt and le) by at most 1 with n fixed, so the
    utility by at most 1 (Smith 2011, Section 3; McSherry and Talwar 2007). Adding a record
    moves n to n + 1, so quant n by +quant, and each count by 0 or +1: k - quant n (and
    lt - quant n, le - quant n) moves by -quant or 1 - quant, and each utility, a 1-Lipschitz
    function of these differences, by at most max(quant, 1 - quant); removing one is the
    reverse. The bound is reached (a record added at a candidate with k > quant n moves its
    utility by quant, below the candidate with k < quant n by 1 - quant). This is the
    add/remove sensitivity of Kaplan, Schnapp and Stemmer (2022, Section 2) for a rank
    utility. DPpack 0.2.2 uses 1 under both relations: under 'unbounded' ours is smaller
    (1/2 for the median), so the same eps gives a more concentrated release.

    Exactness: quant is a double, an exact dyadic rational; 1 - quant is rounded up to a
    double (never below the exact value), so the returned Delta is at least the exact
    max(quant, 1 - quant), and the exponential mechanism takes it exactly
    (``_random.exponential_grid``: a rate eps / (2 D) with D = ceil(Delta / h) + 1 grid
    steps, a rational).

    Parameters
    ----------
    quant : float
        In [0, 1] (checked by the caller).
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'

    Returns
    -------
    float

    References
    ----------
    McSherry and Talwar (2007), Theorem 6; Smith (2011); Kaplan, Schnapp and Stemmer (2022),
    "Differentially private approximate quantiles", ICML.

    Examples
    --------
    >>> quantile_sensitivity(0.5, "unbounded"), quantile_sensitivity(0.5, "bounded")
    (0.5, 1.0)
    >>> quantile_sensitivity(0.1, "unbounded") >= 0.9
    True
    """
    if which_sensitivity != "unbounded":
        return 1.0
    q = float(quant)
    rest = 1.0 - q
    if fractions.Fraction(rest) < 1 - fractions.Fraction(q):  # round 1 - quant up
        rest = math.nextafter(rest, math.inf)
    return max(q, rest)


def _quantile_arguments(quant, eps, which_sensitivity, mechanism, stacklevel):
    """quant and eps, checked in DPpack's order (quant, which_sensitivity, mechanism, then
    the exponential mechanism's eps check); ``stacklevel`` points the 'both' warning at the
    user's call."""
    quant = check_quant(quant)
    check_which(which_sensitivity, identical=True, stacklevel=stacklevel)
    _checks.check_choice(mechanism, "mechanism", ("exponential",), EXPONENTIAL_MESSAGE)
    # The exponential mechanism's own eps check (same text, last, as in DPpack).
    eps = _checks.check_finite_budget(eps, "eps")
    return quant, eps


# A window is accepted when each union of intervals beyond it has at most e^-_MARGIN of the
# largest weight inside it (so a union is drawn with probability below 2 e^-_MARGIN).
_MARGIN = 50.0
_PARTITIONS = 4  # windows tried by numpy.partition (each 8 times wider) before one full sort


def _quantile_grid(lower, upper):
    """j, X_0, X_{n+1}: the grid g = 2^j with max(|lower|, |upper|) < 2^59 g, and the bounds
    in grid units, ceil(lower / g) and floor(upper / g) (Python integers; their difference,
    the number of grid points, is below 2^60)."""
    j = math.frexp(max(abs(lower), abs(upper)))[1] - _GRID_BITS
    return j, int(math.ceil(math.ldexp(lower, -j))), int(math.floor(math.ldexp(upper, -j)))


_GRID_BITS = 59  # max(|lower|, |upper|) < 2^_GRID_BITS g


def quantile_candidates(lower, upper):
    """How many grid points :func:`quantileDP` chooses among for the bounds [lower, upper]
    (X_{n+1} - X_0 of its Notes; public, from the bounds alone): the |R| of the exponential
    mechanism's utility theorem, for accuracy reports (``dppack.accuracy``)."""
    _, first, last = _quantile_grid(lower, upper)
    return last - first


def quantile_candidates_within(lower, upper):
    """The most grid points :func:`quantileDP` chooses among for any range [lo, hi] within
    [lower, upper] (public, from the bounds alone): for accuracy reports of releases that
    call it on ranges set by earlier releases (``quantilesDP``'s 'recursive').

    A finer grid serves a range of smaller values, so a sub-range may have more candidates
    than [lower, upper] itself. Its grid g has M = max(abs(lo), abs(hi)) < 2^59 g
    (:func:`_quantile_grid`) and it has at most (hi - lo) / g candidates: below 2^59 when
    lo and hi have the same sign (hi - lo <= M), below 2^60 otherwise (hi - lo <= 2 M).

    Examples
    --------
    >>> quantile_candidates_within(0, 1000) == 2 ** 59 > quantile_candidates(0, 1000)
    True
    """
    return 2 ** (_GRID_BITS + (1 if lower < 0 < upper else 0))


def _to_grid(values, j, first, last):
    """clip(round(x / g), X_0, X_{n+1}) for each value: the rounded records (int64).

    x / g only shifts the exponent (exact; beyond the double range it is +-inf, clipped);
    rounding and clipping are monotone, so they commute with sorting."""
    with np.errstate(over="ignore"):
        scaled = np.ldexp(np.asarray(values, dtype=np.float64), -j)
    np.rint(scaled, out=scaled)
    np.clip(scaled, first, last, out=scaled)
    return scaled.astype(np.int64)


class _SortedRecords:
    """The rounded records of the in-memory quantile, as the candidates need them: their
    number, the ones of given ranks (:meth:`ranked`, by ``numpy.partition``) and how many
    lie at or below a grid point. ``dppack.dask.quantiles.CountedRecords`` gives the same
    from the cell counts of Dask data."""

    def __init__(self, values, j, first, last):
        self.values, self.size = values, values.size
        self._grid, self._part = (j, first, last), None

    def ranked(self, low, high):
        """The rounded records of ranks low, ..., high (0-based) in increasing order."""
        if low == 0 and high == self.size - 1:
            inner = np.sort(self.values)  # every record: one sort
        elif high < low:
            inner = self.values[:0]
        else:
            self._part = np.partition(self.values if self._part is None else self._part,
                                      (low, high))
            inner = np.sort(self._part[low:high + 1])
        return _to_grid(inner, *self._grid)

    def at_most(self, point):
        """The number of rounded records <= ``point`` (grid units)."""
        return int(np.count_nonzero(_to_grid(self.values, *self._grid) <= point))


def _quantile_candidates(values, quant, eps, j, first, last, half=None):
    """The candidates of the exponential mechanism: (utilities, widths, starts, unions).

    Candidate i covers the grid points starts[i], ..., starts[i] + widths[i] - 1. They are
    the intervals k = start, ..., stop - 1 of the window, preceded and followed by the union
    of the intervals before and after it, if any, with the largest utility of the union
    (that of its interval nearest quant n). ``unions`` lists the indices of the unions
    (their draws are thinned by :func:`_keep_union_point`). See :func:`quantileDP`.

    ``values``: the data (an array) or their :class:`_SortedRecords` (or Dask's
    ``CountedRecords``). ``half`` (tests only) fixes the window's half-width, used whatever
    the weights.
    """
    records = _records(values, j, first, last)
    n = records.size
    centre = quant * n
    fixed = half is not None
    if not fixed:
        half = _half_window(n, eps)
    if type(records) is _SortedRecords and records.values.ndim == 1 and _every_interval(
            n, centre, half):
        # the first window below is every interval, and has no union: the same arrays, fast
        return _quantile_fast.all_intervals(records.values, quant, j, first, last, _to_grid)
    for attempt in range(_PARTITIONS + 1):
        start = max(0, math.floor(centre - half))
        stop = min(n + 1, math.ceil(centre + half) + 1)
        if attempt == _PARTITIONS or 2 * (stop - start) >= n:
            start, stop = 0, n + 1  # every interval
        # Data ranks start - 1, ..., stop - 1 give the edges X_start, ..., X_stop.
        inner = records.ranked(max(start - 1, 0), min(stop - 1, n - 1))
        edges = np.concatenate([np.array([first] if start == 0 else [], dtype=np.int64),
                                inner,
                                np.array([last] if stop == n + 1 else [], dtype=np.int64)])
        utility = data_access.quantile_utility(n, quant, start, stop)
        widths = np.diff(edges)
        lead = [] if start == 0 else [(start - 1, int(edges[0]) - first)]
        tail = [] if stop == n + 1 else [(stop, last - int(edges[-1]))]
        unions = [(data_access.quantile_utility(n, quant, k, k + 1)[0], width)
                  for k, width in lead + tail]
        if fixed or _window_suffices(utility, widths, unions, eps):
            break
        half *= 8.0
    before, after = unions[:len(lead)], unions[len(lead):]
    utilities = np.concatenate([np.array([u for u, _ in before], dtype=np.float64), utility,
                                np.array([u for u, _ in after], dtype=np.float64)])
    sizes = np.concatenate([np.array([w for _, w in before], dtype=np.int64), widths,
                            np.array([w for _, w in after], dtype=np.int64)])
    starts = np.concatenate([np.array([first] if lead else [], dtype=np.int64), edges[:-1],
                             np.array([edges[-1]] if tail else [], dtype=np.int64)])
    index = ([0] if lead else []) + ([utilities.size - 1] if tail else [])
    return utilities, sizes, starts, index


def _half_window(n, eps):
    """The first window's half-width for n records at rate ``eps`` per rank (see
    :func:`_quantile_candidates`); at most 2^62 (more than any n: every interval), so that
    a tiny eps (below about 1e-306) gives no infinite window, whose ends are no integers."""
    return min(2.0 * (_MARGIN + math.log(n + 2.0)) / eps + 2.0, 2.0 ** 62)


def _every_interval(n, centre, half):
    """Whether the window of ``half`` around rank ``centre`` holds every interval (at least
    half of them: the first window is then widened to all n + 1)."""
    return 2 * (min(n + 1, math.ceil(centre + half) + 1) - max(0, math.floor(centre - half))) >= n


def _window_suffices(utility, widths, unions, eps):
    """Whether each union's log weight is _MARGIN below the window's largest (floating point:
    this only decides how much work the draw does, never its law)."""
    if not unions:
        return True
    with np.errstate(divide="ignore"):
        inside = float(np.max(np.log(widths) + 0.5 * eps * utility, initial=-np.inf))
        outside = max(math.log(width) + 0.5 * eps * u if width else -math.inf
                      for u, width in unions)
    return outside < inside - _MARGIN


def _records(values, j, first, last):
    """``values`` as records with ``size``, ``ranked`` and ``at_most`` (see
    :class:`_SortedRecords`): an array is wrapped, records are kept."""
    return values if hasattr(values, "ranked") else _SortedRecords(values, j, first, last)


def exact_quantile(values, quant, eps, lower, upper, rng, half=None, sensitivity=1.0):
    """The release of :func:`quantileDP` (see its Notes): a grid point, as a float, drawn
    with weight exp(eps u / (2 Delta')) for the utility's ``sensitivity`` Delta
    (``quantile_sensitivity``; Delta' its rounding, ``_random.exponential_grid``).
    ``values``: an array, or records (:func:`_records`) of the grid of (lower, upper);
    ``half``: see :func:`_quantile_candidates`. No checks (``quantilesDP``'s recursion
    calls it on parts of checked data)."""
    j, first, last = _quantile_grid(lower, upper)
    if half is None and type(values) is np.ndarray and values.ndim == 1 and _every_interval(
            values.size, quant * values.size, _half_window(values.size, eps / sensitivity)):
        # what _quantile_candidates returns for an array whose window is every interval
        utilities, widths, starts = _quantile_fast.all_intervals(values, quant, j, first, last,
                                                                 _to_grid)[:3]
        i, offset = _random.exponential_interval(utilities, widths, eps, sensitivity, rng)
        return math.ldexp(float(int(starts[i]) + offset), j)
    records = _records(values, j, first, last)
    # the window only decides how much work the draw does: the rate per rank is eps / (2 Delta)
    utilities, widths, starts, unions = _quantile_candidates(records, quant, eps / sensitivity,
                                                             j, first, last, half)
    while True:
        i, offset = _random.exponential_interval(utilities, widths, eps, sensitivity, rng)
        point = int(starts[i]) + offset
        if i not in unions or _keep_union_point(records, point, quant, eps, utilities[i],
                                                utilities, rng, sensitivity):
            return math.ldexp(float(point), j)


def _keep_union_point(records, point, quant, eps, union_utility, utilities, rng,
                      sensitivity=1.0):
    """Rejection step for a point drawn in a union of intervals: keep it with probability
    exp(gamma (s(u) - s(u_union))), u its own interval's utility, s the utilities in the
    units of the exponential mechanism's grid and gamma its rate per unit (the grid and
    rate ``_random.exponential_grid`` gives ``_random.exponential_interval`` for the same
    candidates). Then each kept point has the weight of its own utility. Drawn exactly
    (``_random.exponential_coin``)."""
    k = records.at_most(point)  # its interval
    own = data_access.quantile_utility(records.size, quant, k, k + 1)[0]
    exponent, rate = _random.exponential_grid(float(np.max(np.abs(utilities))), eps,
                                              sensitivity)
    gap = int(np.rint(math.ldexp(union_utility, -exponent))) - int(
        np.rint(math.ldexp(own, -exponent)))
    return _random.exponential_coin(gap, rate, rng)


# --------------------------------------------------------------------------------------------
# Quantiles on a public resolution (candidates lower + i * resolution)
# --------------------------------------------------------------------------------------------

#: The most candidates a resolution may give, and the finest it may be against the bounds'
#: magnitude (resolution >= max(abs(lower), abs(upper)) / 2^RESOLUTION_BITS, so that the
#: candidates, computed in floating point, are strictly increasing).
RESOLUTION_BITS = 40

_RESOLUTION_MESSAGE = "resolution must be NULL or a positive finite number."


class Lattice:
    """The public candidates of a quantile on a resolution r: t_i = lower + i r, i = 0, ...,
    N, N = floor((upper - lower) / r) (upper included when it lies on the lattice, to
    floating-point rounding), from the bounds and r alone (data-independent).

    The candidates are computed once per index by one fixed formula, so every caller sees
    the same doubles: t_0 = lower; t_i = min((fl(lower k) + i) / k, upper) when r is the
    double nearest 1 / k for a whole k (r = 0.1 gives 0.3, not 0.1 + 2 * 0.1 =
    0.30000000000000004, so data written to the resolution tie with the candidates), else
    min(lower + i r, upper). Both are non-decreasing in i and, for r >= max(abs(lower),
    abs(upper)) / 2^40 (checked), strictly increasing.
    """

    def __init__(self, lower, upper, resolution):
        self.lower, self.upper, self.resolution = lower, upper, resolution
        k = round(1.0 / resolution)
        self.k = k if k >= 1 and 1.0 / k == resolution else 0
        self.base = lower * k if self.k else 0.0
        steps = (upper * k - self.base) if self.k else (upper - lower) / resolution
        near = round(steps)
        # upper is a candidate if it lies on the lattice up to rounding (far below a step)
        self.size = (near if abs(steps - near) <= 1e-6 + steps * 2.0 ** -45
                     else math.floor(steps)) + 1  # N + 1 candidates

    def points(self, index):
        """t_i for the indices ``index`` (int array in [0, N]), as doubles."""
        i = np.asarray(index, dtype=np.int64).astype(np.float64)
        t = (self.base + i) / self.k if self.k else self.lower + i * self.resolution
        np.minimum(t, self.upper, out=t)
        np.maximum(t, self.lower, out=t)
        t[np.asarray(index) == 0] = self.lower
        return t

    def _at(self, index):
        """t_i for int64 ``index`` in [-1, N + 1]: -inf below the first, +inf above the last."""
        top = self.size - 1
        t = self.points(np.clip(index, 0, top))
        t[index < 0] = -np.inf
        t[index > top] = np.inf
        return t

    def positions(self, values):
        """p = L + R for each value (finite) clipped to [lower, upper] (int64 in
        [0, 2N + 2]): L the number of candidates below it, R those at or below it, so
        p = 2L between candidates and 2L + 1 on candidate L. Exact comparisons of doubles
        with the candidates: a guess of L from (x - lower) / r (within a candidate or so),
        then moved until t_{L-1} < x <= t_L."""
        x = np.clip(np.asarray(values, dtype=np.float64), self.lower, self.upper)
        guess = np.floor((x - self.lower) / self.resolution)
        low = np.clip(guess, 0, self.size).astype(np.int64)
        here = self._at(low)  # t_L
        move = np.flatnonzero(here < x)
        while move.size:  # up while t_L < x
            low[move] += 1
            here[move] = self._at(low[move])
            move = move[here[move] < x[move]]
        before = self._at(low - 1)  # t_{L-1}
        move = np.flatnonzero(before >= x)
        while move.size:  # down while t_{L-1} >= x (then t_L >= x still)
            low[move] -= 1
            here[move] = before[move]
            before[move] = self._at(low[move] - 1)
            move = move[before[move] >= x[move]]
        return 2 * low + (here == x)

    def runs(self, positions, counts, quant):
        """(utilities, widths, starts) of the runs of candidates with one utility:
        :func:`lattice_runs` on all N + 1 candidates."""
        return lattice_runs(positions, counts, self.size, quant)


def lattice_runs(positions, counts, size, quant):
    """(utilities, widths, starts) of the maximal runs of consecutive candidates 0, ...,
    ``size`` - 1 with the same utility, from the distinct ``positions`` of the data
    (:meth:`Lattice.positions`, increasing) and their ``counts``.

    Candidate i has lt = #{p <= 2i} data below it and le = #{p <= 2i + 1} at or below it;
    its utility is -max(0, lt - quant n, quant n - le): DPpack's -abs(k - quant n) where
    lt = le = k, and 0 on a value whose ties span rank quant n. lt changes at i only for
    data at p in {2i - 1, 2i}, le only for p in {2i, 2i + 1}: the runs start at 0, at
    ceil(p / 2) and, for odd p, at floor(p / 2)."""
    top = size - 1
    starts = np.concatenate([[0], (positions + 1) // 2, positions[positions % 2 == 1] // 2])
    starts = np.unique(starts[starts <= top]).astype(np.int64)
    widths = np.diff(np.append(starts, top + 1))
    cumulative = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    n = int(cumulative[-1])
    lt = cumulative[np.searchsorted(positions, 2 * starts, side="right")]
    le = cumulative[np.searchsorted(positions, 2 * starts + 1, side="right")]
    centre = quant * n
    shortfall = np.maximum(lt.astype(np.float64) - centre, centre - le.astype(np.float64))
    return -np.maximum(shortfall, 0.0), widths, starts


def check_resolution(resolution, lower, upper):
    """The :class:`Lattice` of ``resolution`` for checked bounds, or None for None: a
    positive finite number with at most 2^40 candidates, and at least 2^-40 of the bounds'
    magnitude. Raised before any data are read."""
    if resolution is None:
        return None
    r = _checks.check_number(resolution, "resolution", 0.0, None, closed="neither",
                             finite=True, message=_RESOLUTION_MESSAGE)
    limit = 2.0 ** RESOLUTION_BITS
    if not ((upper - lower) / r <= limit and max(abs(lower), abs(upper)) / r <= limit):
        raise _messages.value_error(
            "resolution is too fine for the bounds: (upper.bound - lower.bound) / resolution "
            "and max(abs(lower.bound), abs(upper.bound)) / resolution must be at most 2^40.")
    return Lattice(lower, upper, r)


def lattice_counts(values, lattice):
    """(positions, counts): the distinct :meth:`Lattice.positions` of the data, increasing,
    and how many data have each (the sufficient statistic of the release on a resolution;
    Dask merges them over blocks)."""
    return np.unique(lattice.positions(values), return_counts=True)


def _lattice_quantile(positions, counts, quant, eps, lattice, rng, sensitivity=1.0):
    """The release of quantileDP with a resolution (see its Notes): a run of candidates
    drawn with weight (its number of candidates) times exp(eps u / (2 Delta')), Delta' the
    ``sensitivity`` Delta (``quantile_sensitivity``) rounded up to the utilities' grid
    (1 + 2^-20 for Delta = 1), and a candidate uniformly within it
    (``_random.exponential_interval``, exact): the exponential mechanism on the candidates,
    counting measure."""
    utilities, widths, starts = lattice.runs(positions, counts, quant)
    i, offset = _random.exponential_interval(utilities, widths, eps, sensitivity, rng)
    return float(lattice.points(np.array([int(starts[i]) + offset]))[0])


def medianDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded",
             mechanism="exponential", random_state=None, resolution=None, accountant=None):
    """Differentially private median: :func:`quantileDP` with quant = 0.5.

    The accountant is charged PrivacyLoss.pure(eps), label "medianDP".

    Parameters
    ----------
    x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, random_state
        As :func:`quantileDP`.
    resolution : float, optional
        As :func:`quantileDP`: the public spacing of the candidates (e.g. 1 for whole
        numbers; the exponential mechanism of McSherry and Talwar 2007 on them).
    accountant : BudgetAccountant, optional
        As :func:`quantileDP` (label "medianDP").

    Returns
    -------
    float

    Raises
    ------
    ValueError
        As :func:`quantileDP`.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``medianDP``; McSherry and Talwar
    (2007); Smith (2011).

    Examples
    --------
    The median plasma glucose (true value 115), bounded in [50, 200]:

    >>> from dppack import medianDP
    >>> from dppack.datasets import load_pima
    >>> round(medianDP(load_pima()["glu"], 1.0, 50, 200, random_state=1), 2)
    116.78
    >>> medianDP(load_pima()["glu"], 1.0, 50, 200, random_state=1, resolution=1)
    115.0
    """
    return run(MEDIAN, x, {"quant": 0.5, "eps": eps, "lower_bound": lower_bound,
                           "upper_bound": upper_bound, "which_sensitivity": which_sensitivity,
                           "mechanism": mechanism, "resolution": resolution},
               random_state, accountant)


_QUANTILE = dict(lower_bound=None, upper_bound=None, quant=None, n=None,
                 which_sensitivity="bounded", mechanism="exponential", resolution=None)
QUANTILE = register(_QuantilePlan("quantileDP", _QUANTILE,
                                  ("lower_bound", "upper_bound", "quant")))
MEDIAN = register(_QuantilePlan("medianDP", {k: v for k, v in _QUANTILE.items() if k != "quant"},
                                ("lower_bound", "upper_bound")))
