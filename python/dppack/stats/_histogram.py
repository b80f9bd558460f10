"""histogramDP: breaks from the bounds, noisy counts, post-processing."""

import fractions
import functools
import math
import numbers

import numpy as np

from .. import _backends, _checks, _messages, data_access, rcompat
from ..rcompat import _hist
from .._plans import (Plan, from_laws, one_or_both, per_value_alpha, register,
                      released_versions, run)
from .._report import NoiseInterval
from ..data_access import check_mechanism
from ..mechanisms._calibration import check_budget
from ..mechanisms._noise import count_noise
from ._release import (
    EQUIDISTANT_MESSAGE,
    MECHANISM_SWITCH,
    check_which,
    check_whole_budget,
    minimum_size,
    noisy_counts,
    release_loss,
    sample_bounds,
)


def histogram_breaks(kind, value, lower, upper, n=None, stacklevel=3):
    """histogramDP's breaks and mids from public values only (never from the data): given points
    or a number of cells (``rcompat._hist.parse_breaks``'s kinds 'points' and 'cells'), extended to
    cover [lower, upper]; for a rule, those of its number of cells for n values, or None
    without n. The number of cells is ``len(breaks) - 1``.

    Examples
    --------
    >>> breaks, mids = histogram_breaks("points", np.array([0.2, 0.5, 0.8]), 0.0, 1.0)
    >>> len(breaks) - 1
    4
    """
    if kind == "points":
        return _extend_breaks(value, lower, upper)
    if kind == "cells":
        return _extend_breaks(rcompat.pretty(lower, upper, n=int(value), min_n=1), lower, upper)
    if n is None:
        return None
    cells = _hist.check_cells(_rule_cells(value, n), stacklevel=stacklevel)
    return _extend_breaks(rcompat.pretty(lower, upper, n=int(cells), min_n=1), lower, upper)


def _extend_breaks(breaks, lower, upper):
    """Breaks and mids, with cells of the same width added until they cover [lower, upper].

    DPpack prepends a break first - w (and the mid first - w/2) while lower is below the first
    break, then appends last + w (mid last + w/2) while the last break is below upper. The
    breaks are formed by the same repeated subtractions and additions (a sequential
    accumulate), so they are the same floating-point numbers as DPpack's; the mids of the
    given breaks are hist()'s. Only the breaks and the bounds are used: histogramDP extends
    before it counts (DPpack extends R's histogram of the data afterwards).
    """
    width = breaks[1] - breaks[0]
    mids = 0.5 * (breaks[1:] + breaks[:-1])
    before = _steps(breaks[0], -width, lower)
    after = _steps(breaks[-1], width, upper)
    # Prepended cell i (i = 1, 2, ...) runs from before[i] to before[i - 1], its mid is
    # before[i - 1] - w/2; they end up in reverse order of prepending.
    breaks = np.concatenate([before[:0:-1], breaks, after[1:]])
    mids = np.concatenate([(before[:-1] - width / 2)[::-1], mids, after[:-1] + width / 2])
    return breaks, mids


# Ours: DPpack extends one bin at a time without limit (for data in a tiny range and wide
# bounds it practically never ends); beyond this many added bins we stop with an error.
_MAX_EXTENSION = 10_000_000


def _steps(start, step, bound):
    """start, start + step, start + 2 step, ... (each added to the previous value), up to and
    including the first value that is not strictly on the near side of ``bound`` (below it
    for step > 0, above it for step < 0). Just ``[start]`` if start is already there."""
    def go_on(values):
        return values < bound if step > 0 else bound < values

    if not go_on(start):
        return np.array([start])
    needed = math.ceil(abs(bound - start) / abs(step))
    if needed > _MAX_EXTENSION:
        raise _messages.value_error(
            f"Extending the histogram to the bounds would add more than {_MAX_EXTENSION} "
            "empty bins; give breaks that span lower.bound and upper.bound."
        )
    count = int(needed) + 2
    while True:
        terms = np.full(count + 1, step)
        terms[0] = start
        values = np.add.accumulate(terms)  # sequential, like DPpack's loop
        stops = np.flatnonzero(~go_on(values))
        if stops.size:
            return values[: stops[0] + 1]
        if values[-1] == values[-2]:
            raise _messages.value_error(
                "The histogram bins cannot be extended to the bounds: their width is below "
                "the floating-point resolution of the bounds."
            )
        count *= 2


def _post_histogram(counts, normalize, allow_negative):
    """DPpack 0.2.2: negatives to 0 unless allowed; then proportions. The noisy counts are
    integers already (integer noise, :func:`count_noise`), where DPpack rounds its
    continuous ones."""
    if not allow_negative:
        counts = np.maximum(counts, 0.0)
    if normalize:
        with np.errstate(invalid="ignore", divide="ignore"):  # all zero: NaN, as in DPpack
            return counts / counts.sum()
    return counts + 0.0  # + 0.0 turns -0.0 into 0.0


def _rule_cells(rule, n):
    """Cells of one of hist()'s rules for n values spread uniformly over the bounds.

    The rules use no statistic of the data but n, so the breaks are public wherever n is:
    * Sturges (1926), R's ``nclass.Sturges``: ceiling(log2(n) + 1);
    * Scott (1979), R's ``nclass.scott``: width h = 3.5 sd n^(-1/3) with sd = (U - L)/sqrt(12),
      the sd of the uniform law on [L, U]; cells ceiling((U - L)/h) = ceiling(sqrt(12)
      n^(1/3) / 3.5);
    * Freedman and Diaconis (1981), R's ``nclass.FD``: width 2 IQR n^(-1/3) with IQR = (U -
      L)/2, the uniform law's; cells ceiling(n^(1/3)), the smallest k with k^3 >= n
      (in integers: the float cube root of 10^15 + 1 is 100000.0).
    At least 1, as R's ``max(1, .)``.
    """
    if rule == "sturges":
        return math.ceil(math.log2(n) + 1)
    if rule == "scott":
        return max(1, math.ceil(math.sqrt(12) / 3.5 * n ** (1 / 3)))
    if n > 10**18:  # over 1e6 cells, which R's cap reduces to 1e6: the float root will do
        return math.ceil(n ** (1 / 3))
    cells = max(1, round(n ** (1 / 3)))
    while cells**3 < n:
        cells += 1
    while cells > 1 and (cells - 1) ** 3 >= n:
        cells -= 1
    return cells


# Share of eps (and, for the Gaussian mechanisms, of delta) that an unbounded histogram whose
# breaks rule needs n spends on a private n; the counts get the rest.
_N_SHARE = 1 / 20


def _split_budget(eps, delta, share, mechanism, type_DP):
    """((eps, delta) of ``share``, (eps, delta) of the rest) of one budget, after the checks
    the mechanism makes of the whole budget (so a bad budget fails before the first draw, with
    the mechanism's message). By basic composition (Dwork and Roth 2014, Theorem 3.16) the
    two releases together spend (eps, delta): the rest is stepped down where rounding made the
    exact sum exceed the total. delta is None for the Laplace mechanism."""
    check_whole_budget(eps, mechanism, delta, type_DP)
    eps = _checks.check_positive_scalar(eps, "eps")  # checked: only the float
    delta = None if mechanism == "Laplace" else _checks.check_positive_scalar(delta, "delta")

    def split(total):
        part = total * share
        rest = total - part
        if fractions.Fraction(part) + fractions.Fraction(rest) > fractions.Fraction(total):
            rest = math.nextafter(rest, 0.0)
        return part, rest

    eps_part, eps_rest = split(eps)
    if delta is None:
        return (eps_part, None), (eps_rest, None)
    delta_part, delta_rest = split(delta)
    return (eps_part, delta_part), (eps_rest, delta_rest)


def count_noise_laws(eps, mechanism="Laplace", delta=0, type_DP="aDP",
                     which_sensitivity="bounded", rule=False):
    """The law of the noise of each cell of :func:`histogramDP` and :func:`tableDP` (declared
    levels), for accuracy reports (``dppack.accuracy``); no data, no draw.

    Returns ``{label: (k, tail)}`` for the versions released, bounded first: the noisy cell
    is c + g Z, g = 2^k (k = 0: integer noise on the integer counts, see
    :func:`count_noise`), and ``tail(m)`` = P[Z >= m], from :func:`count_noise`
    with the sensitivities and changed cells the releases use (2 bounded, 1 unbounded), and
    for histogramDP's unbounded release with a rule for the breaks (``rule``), the share of
    the budget left after the noisy n. The arguments must have been checked.
    """
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)
    laws = {}
    for label, sensitivity in released_versions(which_sensitivity, bounded, unbounded):
        eps_counts, delta_counts, changed = eps, delta, 2
        if label == "Unbounded":
            changed = 1
            if rule:
                (_, (eps_counts, delta_counts)) = _split_budget(eps, delta, _N_SHARE,
                                                                mechanism, type_DP)
        law = count_noise(eps_counts, sensitivity, mechanism, delta_counts, type_DP,
                          changed).law()
        laws[label] = (law["k"], law["tail"])
    return laws


def histogramDP(x, eps, lower_bound, upper_bound, breaks="Sturges", normalize=False,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
                allow_negative=False, random_state=None, accountant=None):
    """Differentially private histogram.

    Clips ``x`` to the bounds, counts it in equidistant cells that cover [lower_bound,
    upper_bound] and adds noise to every count: sensitivity 2 (Laplace) or sqrt(2)
    (Gaussian, analytic) for bounded DP, 1 for unbounded DP. The noise is integer (discrete
    Laplace, discrete Gaussian), so the noisy counts are integers without rounding (DPpack
    rounds continuous noise half to even). Then negative counts become 0 (unless
    ``allow_negative``), and the counts are divided by their sum if ``normalize``.

    The break points never depend on the data (DPpack takes them from the data's range, so
    that one record can change every cell): a rule or a number of cells gives
    ``pretty(c(lower_bound, upper_bound), k, min.n = 1)``, R's pretty breaks of the bounds;
    break points are used as given. Either way the cells are then extended by empty cells of
    the same width to cover the bounds, as DPpack does, and the clipped data are counted in
    right-closed cells (the first one closed) against breaks moved by R's fuzz, which here
    depends on the breaks only.

    Parameters
    ----------
    x : array_like, or a Dask array, Series or DataFrame
        Numeric, finite data; a matrix is counted over all its entries. Each entry counts
        as one person: the guarantee protects one entry, not one row, so a person with
        several entries (a row of a matrix) needs one value per person.
    eps : float
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper. They are public, and so are the breaks.
    breaks : str, int, array_like or callable, default "Sturges"
        - ``"Sturges"``, ``"Scott"``, ``"FD"`` (``"Freedman-Diaconis"``; matched as R's
          ``hist()`` matches them): k cells from R's rule for n values spread uniformly over
          the bounds, so that only n enters: Sturges ceiling(log2(n) + 1); Scott and FD R's
          widths 3.5 sd n^(-1/3) and 2 IQR n^(-1/3) with the sd (U - L)/sqrt(12) and the IQR
          (U - L)/2 of the uniform law, i.e. ceiling(sqrt(12) n^(1/3)/3.5) and
          ceiling(n^(1/3)) cells.
        - a number k: k suggested cells (R's checks: at least 1, at most 1e6).
        - a vector of break points: used as given (sorted), extended to the bounds; cells of
          unequal width are refused.
        - a callable: called with ``[lower_bound, upper_bound]`` (never with the data) and
          its result used as a number or a vector, as R's ``hist()`` uses a function's. It
          must not look at the data.

        n is public under bounded DP (neighbours differ in one record's value) and ``x.size``
        is used. Under unbounded DP (a record added or removed) n is private: a rule first
        releases a private n, with 1/20 of eps (and of delta for the Gaussian mechanisms),
        sensitivity 1, integer noise, at least 1, and the counts get the other 19/20. A number,
        a vector or a callable needs no n and the counts get all of eps.
    normalize : bool, default False
        Return proportions summing to 1 (not densities: DPpack's documentation says
        densities, its code returns proportions).
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta, type_DP, random_state
        As :func:`meanDP`.
    allow_negative : bool, default False
    accountant : BudgetAccountant, optional
        Charged the whole release, its private n included (1/20 + 19/20 of the budget): as
        :func:`meanDP`, PrivacyLoss.pure(eps) for Laplace, PrivacyLoss.approx(eps, delta)
        for the Gaussian mechanisms, the pair's (3 eps, (2 + e^eps) delta) for 'both'; label
        "histogramDP". By default the session's accountant, if any; an overspend is refused
        before the data are read or any noise is drawn.

    Returns
    -------
    rcompat.Histogram or dict
        The sanitized histogram (float counts, xname x's name), or for 'both' a dict
        ``{"Bounded": Histogram, "Unbounded": Histogram}``, each what the one version alone
        gives (so with a rule their breaks can differ); meaningful under bounded DP only,
        where the pair spends up to 3 eps (see :func:`meanDP`); under unbounded DP the
        bounded histogram is not private. Each Histogram has an attribute ``privacy_``, the
        PrivacyLoss charged for the call (for 'both', the pair's).

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order, R's ``hist()`` messages for bad breaks, "Only
        equidistant histogram bins are supported.", and ours (bounds, data, flags, more than
        10^7 cells to add). None of them depends on the values of the data, and all come
        before any noise is drawn.

    Notes
    -----
    The data are counted after the extension, in cells right-closed except the very first:
    when a given first break lies above ``lower_bound``, data equal to it fall in the added
    cell below it, where DPpack (counting before extending, in R's closed first cell) puts
    them in the cell above.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``histogramDP``.

    Examples
    --------
    Plasma glucose in cells of width 10 over the bounds [50, 200] (Sturges' rule for 532
    values, applied to the bounds, not to the data):

    >>> from dppack import histogramDP
    >>> from dppack.datasets import load_pima
    >>> h = histogramDP(load_pima()["glu"], 1.0, 50, 200, random_state=1)
    >>> h.breaks.tolist()[:4], len(h.counts)
    ([50.0, 60.0, 70.0, 80.0], 15)
    >>> h.counts.tolist()[:5]
    [0.0, 8.0, 20.0, 59.0, 80.0]
    """
    xname = _hist.xname_of(x)  # the title's name: the Series' or column's (not read)
    arguments = {"eps": eps, "lower_bound": lower_bound, "upper_bound": upper_bound,
                 "breaks": breaks, "normalize": normalize,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism,
                 "delta": delta, "type_DP": type_DP, "allow_negative": allow_negative,
                 "xname": xname}
    return run(HISTOGRAM, x, arguments, random_state, accountant)


class _Histogram(Plan):
    """histogramDP: public breaks (from the bounds, never the data), the counts with exact
    integer noise (``mechanisms._noise.count_noise``: one record changes 2 cells bounded, 1
    unbounded), a private n first where an unbounded rule needs it (1/20 of the budget);
    then negatives to 0 and the proportions."""

    name = "histogramDP"
    report_arguments = dict(which_sensitivity="bounded", mechanism="Laplace", delta=0,
                            type_DP="aDP", breaks="Sturges", cells=None, lower_bound=None,
                            upper_bound=None, normalize=False, n=None, allow_negative=False)

    def loss(self, a):
        return release_loss(a["eps"], a["delta"], a["mechanism"], a["which_sensitivity"])

    def prepare(self, x, a):
        eps, mechanism, delta, type_DP = a["eps"], a["mechanism"], a["delta"], a["type_DP"]
        which_sensitivity = a["which_sensitivity"]
        lower, upper = sample_bounds(a["upper_bound"], a["lower_bound"])
        # The checks without a pass here (in memory all of them, and the clipping); on Dask
        # the pass and the others before the charge.
        source = _backends.backend_for(x).histogram(x, lower, upper,
                                                    minimum_size(which_sensitivity, 1))
        normalize = _checks.check_flag(a["normalize"], "normalize")
        allow_negative = _checks.check_flag(a["allow_negative"], "allow.negative")
        check_which(which_sensitivity)
        check_mechanism(mechanism)

        # DPpack's histogramDP steps 2-4 with public breaks: from the bounds, never the data
        kind, value = _hist.parse_breaks(a["breaks"], np.array([lower, upper]), stacklevel=5)
        if kind == "points" and not _hist.is_equidistant(value):  # DPpack's step 3
            raise _messages.value_error(EQUIDISTANT_MESSAGE)
        fixed = histogram_breaks(kind, value, lower, upper)  # None for a rule: k from n
        bounded, unbounded = data_access.histogram_sensitivities(mechanism)
        versions = released_versions(which_sensitivity, (bounded, False), (unbounded, True))
        if fixed is None and which_sensitivity != "bounded":
            shares = _split_budget(eps, delta, _N_SHARE, mechanism, type_DP)
        # The mechanism's checks of (eps, delta), last as in DPpack, and before the charge.
        check_whole_budget(eps, mechanism, delta, type_DP)
        rules = {}

        def rule_breaks(n, stacklevel):
            """The breaks and mids of the rule for n values (each n once: one warning)."""
            if n not in rules:
                rules[n] = histogram_breaks(kind, value, lower, upper, n, stacklevel + 1)
            return rules[n]

        def fuzz(breaks_):
            # The fuzz depends on the breaks only; R's uses the data's range for <= 3 breaks.
            return _hist.fuzz(breaks_, breaks_[-1] - breaks_[0])

        # On Dask one pass: n, the checks, and the counts of the breaks known before it (given
        # breaks, or the rule's for the public n of known chunks); see histogramDP's Notes.
        # In memory n is known and the counts are counted when asked.
        known = [fixed] if fixed is not None else []
        if fixed is None and which_sensitivity != "unbounded" and source.size is not None:
            known = [rule_breaks(source.size, 6)]
        source.run("x", minimum_size(which_sensitivity, 1),
                   [(breaks_, fuzz(breaks_)) for breaks_, _ in known])
        size, count = source.size, source.counts

        def release(sensitivity, n_private, rng, loss):
            eps_counts, delta_counts = eps, delta
            if fixed is not None:
                breaks_, mids = fixed
            else:
                n = size
                if n_private:
                    # Adding or removing one record changes n by 1 (l1 and l2 sensitivity 1).
                    (eps_n, delta_n), (eps_counts, delta_counts) = shares
                    # An integer noisy n (one count); at least 1, at most 2^62 (also for an
                    # infinite draw, eps ~ 1e-320).
                    noisy_n = float(noisy_counts(np.array([float(n)]), eps_n, 1.0, mechanism,
                                                 delta_n, type_DP, rng, 1)[0])
                    n = max(1, int(max(noisy_n, 0.0))) if noisy_n < 2.0**62 else 2**62
                breaks_, mids = rule_breaks(n, 6)  # the warnings at the user's line
            counts = count(breaks_, fuzz(breaks_)).astype(np.float64)
            # DPpack's histogramDP step 5: the scalar Delta for every bin; one record changes
            # 2 cells (bounded) or 1 (unbounded).
            noisy = noisy_counts(counts, eps_counts, sensitivity, mechanism, delta_counts,
                                 type_DP, rng, 1 if n_private else 2)
            result = rcompat.Histogram(
                breaks=breaks_.copy(),
                counts=_post_histogram(noisy, normalize, allow_negative),
                mids=mids.copy(),
                xname=a["xname"],
                equidist=True,
            )
            result.privacy_ = loss  # the release's PrivacyLoss (the pair's for 'both')
            return result

        # bounded noise first (DPpack's statistics)
        return [(label, functools.partial(release, *version)) for label, version in versions]

    def report(self, statistic, eps, a, alpha, simultaneous):
        """The counts (normalize = FALSE), or the proportions (normalize = TRUE: ``cells`` and
        ``n`` required). ``breaks`` parsed by the release's ``rcompat._hist.parse_breaks`` (a
        function is called with the bounds, which it then needs); a rule (k from the private
        n) makes the unbounded release spend part of eps on n."""
        which_sensitivity, mechanism = a["which_sensitivity"], a["mechanism"]
        lower_bound, upper_bound, n, cells = a["lower_bound"], a["upper_bound"], a["n"], a["cells"]
        normalize = _checks.check_flag(a["normalize"], "normalize")
        allow_negative = _checks.check_flag(a["allow_negative"], "allow.negative")
        check_which(which_sensitivity)
        check_mechanism(mechanism)
        if lower_bound is None and upper_bound is None:
            if callable(a["breaks"]):
                raise _messages.value_error(
                    "lower.bound and upper.bound are required when breaks is a function "
                    "(histogramDP calls it with the bounds).")
            argument = np.array([0.0, 1.0])  # not used: only a function reads it
        else:
            argument = np.array(sample_bounds(upper_bound, lower_bound))
        kind, value = _hist.parse_breaks(a["breaks"], argument, stacklevel=4)
        if kind == "points" and not _hist.is_equidistant(value):
            raise _messages.value_error(EQUIDISTANT_MESSAGE)
        if normalize or simultaneous or cells is not None:
            cells = _histogram_cells(kind, value, lower_bound, upper_bound, argument, cells, n,
                                     which_sensitivity)
        if not normalize and n is not None:
            raise _messages.value_error("n is for the proportions only (normalize = TRUE).")
        eps, delta, type_DP = count_budget(which_sensitivity, mechanism, eps, a["delta"],
                                           a["type_DP"])
        if which_sensitivity == "both":  # a vacuous pair is refused as the release does
            release_loss(eps, delta, mechanism, "both")
        laws = count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity,
                                kind == "rule")
        if normalize:
            return _proportions(statistic, laws, mechanism, cells, n, allow_negative, alpha)
        laws = {label: (k, tail, None) for label, (k, tail) in laws.items()}
        return count_report(statistic, laws, mechanism, cells, alpha, simultaneous)


def count_budget(which_sensitivity, mechanism, eps, delta, type_DP):
    """histogramDP's and tableDP's checks of these arguments, with their messages. Returns
    (eps, delta, type_DP); 'analytic' ignores ``type_DP``."""
    check_which(which_sensitivity)
    check_mechanism(mechanism)
    analytic = mechanism == "analytic"
    if analytic:
        type_DP = "aDP"
    if mechanism == "Laplace":
        eps, _ = check_budget(eps)
    else:
        eps, delta = check_budget(eps, delta, type_DP, analytic=analytic,
                                  switch=MECHANISM_SWITCH)
    return eps, delta, type_DP


def _histogram_cells(kind, value, lower_bound, upper_bound, bounds, cells, n,
                     which_sensitivity):
    """The number of cells K of the histogram the report is for, wherever public values fix
    it (given breaks with the bounds, or a rule with the public n under 'bounded': the
    release's own :func:`histogram_breaks`); a ``cells`` that differs is refused. A rule
    under 'unbounded' or 'both' (k from the private n) takes ``cells`` as given."""
    if kind == "rule" and (which_sensitivity != "bounded" or n is None):
        return cells
    if lower_bound is None or upper_bound is None:
        raise _messages.value_error(
            "lower.bound and upper.bound are required for the number of cells of these "
            "breaks (histogramDP extends them to the bounds).")
    breaks = histogram_breaks(kind, value, bounds[0], bounds[1],
                              None if n is None else int(n), stacklevel=5)[0]
    count = breaks.size - 1
    if cells is not None and (isinstance(cells, bool) or not isinstance(cells, numbers.Real)
                              or cells != count):
        raise _messages.value_error(
            "cells must be {count}: the histogram of these breaks and bounds has {count} "
            "cells.", count=count)
    return count


_PROPORTION_CELLS_MESSAGE = (
    "cells is required for the proportions (normalize = TRUE): the number of cells of the "
    "histogram (with a rule for the breaks, that of the released histogram)."
)
_PROPORTION_N_MESSAGE = (
    "n is required for the proportions (normalize = TRUE): the number of records "
    "(which.sensitivity = 'bounded'), or a public lower bound on it ('unbounded', 'both')."
)


def _proportions(statistic, laws, mechanism, cells, n, allow_negative, alpha):
    """histogramDP with normalize = TRUE: a bound on abs(p~_i - p_i) for every cell at once,
    for every dataset of at least ``n`` records, from the counts' joint half-width a.
    ``details``: n, cells and a. Proof: ``docs/python/guide/accuracy.rst``, "Proportions"."""
    if cells is None:
        raise _messages.value_error(_PROPORTION_CELLS_MESSAGE)
    cells = _checks.check_whole(cells, "cells", 1)
    if n is None:
        raise _messages.value_error(_PROPORTION_N_MESSAGE)
    n = _checks.check_whole(n, "n", 1)
    reports = {}
    for label, (k, tail) in laws.items():
        law = dict(k=k, tail=tail, law="discrete Laplace" if mechanism == "Laplace"
                   else "discrete Gaussian")
        # the counts are not rounded here: a = g (T + 1/2 if g > 1), jointly over the cells
        counts = from_laws(statistic, [law], None, per_value_alpha(alpha, cells, True),
                           False, rounding=0.0 if k <= 0 else 0.5, units="count")
        a = counts.half_width
        if n <= cells * a:
            raise _messages.value_error(
                "n must exceed cells times the counts' half-width ({need:.6g}) for a report "
                "of the proportions: below, the noisy total can be 0 (the release is then "
                "NaN) or, with allow.negative, of either sign.", need=cells * a)
        if cells == 1:
            width = 0.0
        elif allow_negative:
            width = (cells - 1) * a / (n - cells * a)
        else:
            width = min((cells - 1) * a / n, 1.0)
        reports[label] = NoiseInterval(
            statistic, width, alpha, True,
            # the joint probability that every count is within a (independent noises), as
            # the ratio reports' coverage
            float(counts.coverage) ** cells, counts.scale, counts.grid,
            f"{counts.law} (proportions of noisy counts)", "proportion",
            details={"n": n, "cells": cells, "half_width_count": a})
    return one_or_both(list(reports.items()), lambda report: report)


def count_report(statistic, laws, mechanism, cells, alpha, simultaneous):
    """The report of noisy counts (histogramDP, tableDP): ``laws`` ``{label: (k, tail,
    threshold)}`` (threshold None but for tableDP's thresholded release, whose report gets
    the bound of a suppressed cell, :func:`_suppressed`); one scalar for every cell."""
    if simultaneous and cells is None:
        raise _messages.value_error("cells (the number of cells) is required when "
                                    "simultaneous is TRUE.")
    given = cells is not None
    cells = 1 if cells is None else _checks.check_whole(cells, "cells", 1)
    reports = {}
    for label, (k, tail, threshold) in laws.items():
        # the counts lie on the grid when g <= 1; else rounding them costs half a step
        law = dict(k=k, tail=tail, law="discrete Laplace" if mechanism == "Laplace"
                   else "discrete Gaussian")
        # one law for every cell: a scalar half-width, however many cells (10^12 is fine)
        report = from_laws(statistic, [law], None, alpha, simultaneous,
                           rounding=0.0 if k <= 0 else 0.5, units="count", values=cells)
        if threshold is not None:
            report.details = _suppressed(report.half_width, threshold)
        if given:
            report.details["cells"] = cells
        # the released counts are integers: within floor(h + 1/2) (h = T itself on g = 1)
        report.half_width = float(math.floor(report.half_width + 0.5))
        reports[label] = report
    return one_or_both(list(reports.items()), lambda report: report)


def _suppressed(half_width, threshold):
    """The threshold tau and the largest true count of a suppressed cell, floor(tau + H), for
    H the half-width of the noisy count (tableDP, undeclared levels). Proof:
    ``docs/python/guide/accuracy.rst``, "Thresholded tables"."""
    h = float(np.max(half_width))
    return {"threshold": float(threshold), "suppressed_max": float(math.floor(threshold + h))
            if math.isfinite(threshold) else math.inf}


HISTOGRAM = register(_Histogram())
