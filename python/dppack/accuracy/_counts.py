"""The reports of histogramDP and tableDP: counts, proportions and thresholded tables
(derivations: ``docs/python/guide/accuracy.rst``)."""

import math
import numbers

import numpy as np

from .. import _checks, _messages, data_access, mechanisms, rcompat, stats
from ..stats import _histogram as stats_histogram
from ..stats import _release as stats_release
from ..stats import _table as stats_table
from ._additive import checked_bounds, refuse_vacuous_both
from ._laws import from_laws, per_value_alpha
from ._report import NoiseInterval


_DECLARED_MESSAGE = (
    "declared is required for tableDP with delta > 0 or a Gaussian mechanism: TRUE when every "
    "factor declares its levels (an R factor, a pandas.Categorical), FALSE otherwise."
)


def _count_budget(which_sensitivity, mechanism, eps, delta, type_DP):
    """histogramDP's and tableDP's checks of these arguments, with their messages. Returns
    (eps, delta, type_DP)."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats_release.WHICH,
                         stats_release.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    analytic = mechanism == "analytic"
    if analytic:
        type_DP = "aDP"  # ignored by 'analytic', as in the releases
    if mechanism == "Laplace":
        eps, _ = mechanisms.check_budget(eps)
    else:
        eps, delta = mechanisms.check_budget(eps, delta, type_DP, analytic=analytic,
                                             switch=stats_release.MECHANISM_SWITCH)
    return eps, delta, type_DP


def histogram(statistic, eps, which_sensitivity="bounded", mechanism="Laplace", delta=0,
              type_DP="aDP", breaks="Sturges", cells=None, lower_bound=None,
              upper_bound=None, normalize=False, n=None, allow_negative=False, *, alpha,
              simultaneous):
    """histogramDP: the counts (normalize = FALSE), or the proportions (normalize = TRUE,
    :func:`_proportions`: ``cells`` and ``n`` required). ``breaks`` parsed by the release's
    own ``rcompat.parse_breaks`` (a function is called with the bounds, which it then needs)
    and refused as the release refuses it (non-equidistant points); a rule (k from the
    private n) makes the unbounded release spend part of eps on n."""
    normalize = _checks.check_flag(normalize, "normalize")
    allow_negative = _checks.check_flag(allow_negative, "allow.negative")
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats_release.WHICH,
                         stats_release.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if lower_bound is None and upper_bound is None:
        if callable(breaks):
            raise _messages.value_error(
                "lower.bound and upper.bound are required when breaks is a function "
                "(histogramDP calls it with the bounds).")
        argument = np.array([0.0, 1.0])  # not used: only a function reads it
    else:
        b = checked_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
        argument = np.array([b["lower.bound"], b["upper.bound"]])
    kind, value = rcompat.parse_breaks(breaks, argument, stacklevel=4)
    if kind == "points" and not rcompat.is_equidistant(value):
        raise _messages.value_error(stats_release.EQUIDISTANT_MESSAGE)
    if normalize or simultaneous or cells is not None:
        cells = _histogram_cells(kind, value, lower_bound, upper_bound, argument, cells, n,
                                 which_sensitivity)
    if normalize:
        return _proportions(statistic, eps, which_sensitivity, mechanism, delta, type_DP,
                            kind == "rule", cells, n, allow_negative, alpha=alpha)
    if n is not None:
        raise _messages.value_error("n is for the proportions only (normalize = TRUE).")
    return _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP,
                   kind == "rule", cells, alpha=alpha, simultaneous=simultaneous)


def _histogram_cells(kind, value, lower_bound, upper_bound, bounds, cells, n,
                     which_sensitivity):
    """The number of cells K of the histogram the report is for, wherever public values fix
    it: given breaks (points or a number of cells) with the bounds, or a rule with the public
    n ('bounded'), by the release's own ``stats._histogram.histogram_breaks``; a ``cells``
    that differs is
    refused (a report for fewer cells than released would not hold). Only a rule under
    'unbounded' or 'both' (k from the private n) takes ``cells`` as given: that of the
    released histogram."""
    if kind == "rule" and (which_sensitivity != "bounded" or n is None):
        return cells
    if lower_bound is None or upper_bound is None:
        raise _messages.value_error(
            "lower.bound and upper.bound are required for the number of cells of these "
            "breaks (histogramDP extends them to the bounds).")
    breaks = stats_histogram.histogram_breaks(kind, value, bounds[0], bounds[1],
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


def _proportions(statistic, eps, which_sensitivity, mechanism, delta, type_DP, rule, cells, n,
                 allow_negative, *, alpha):
    """histogramDP with normalize = TRUE: a bound on abs(p~_i - p_i) for every cell at once,
    for every dataset of at least ``n`` records, from the counts' joint half-width. ``details``: n, cells and the counts' half-width a.

    Proof: the guide page ``docs/python/guide/accuracy.rst``, "Proportions"."""
    eps, delta, type_DP = _count_budget(which_sensitivity, mechanism, eps, delta, type_DP)
    refuse_vacuous_both(which_sensitivity, eps, delta, mechanism)
    if cells is None:
        raise _messages.value_error(_PROPORTION_CELLS_MESSAGE)
    cells = _checks.check_whole(cells, "cells", 1)
    if n is None:
        raise _messages.value_error(_PROPORTION_N_MESSAGE)
    n = _checks.check_whole(n, "n", 1)
    laws = stats_histogram.count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity,
                                            rule)
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
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports


def table(statistic, eps, which_sensitivity="bounded", mechanism="Laplace", delta=0,
          type_DP="aDP", cells=None, declared=None, allow_negative=False, *, alpha,
          simultaneous):
    """tableDP: ``declared`` True when every factor declares its levels (a pandas Categorical
    / an R factor, as the release decides it, ``data_access.table_factors``): the counts of
    :func:`_counts`; False for the thresholded release of undeclared levels (its own checks,
    law and threshold, and the bound of a suppressed cell: :func:`_suppressed`). With the
    Laplace mechanism and delta = 0 the levels must be declared (the release refuses
    undeclared ones), so ``declared`` may be left out; otherwise it is required.
    ``allow_negative`` (checked, as the release checks it) does not change the report: the
    count range [0, Inf) clips the interval whatever the release does with negatives."""
    _checks.check_flag(allow_negative, "allow.negative")
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats_release.WHICH,
                         stats_release.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if declared is None:
        pure = (mechanism == "Laplace" and isinstance(delta, numbers.Real)
                and not isinstance(delta, bool) and delta == 0)
        if not pure:
            raise _messages.value_error(_DECLARED_MESSAGE)
        declared = True
    declared = _checks.check_flag(declared, "declared")
    return _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP, False, cells,
                   alpha=alpha, simultaneous=simultaneous, thresholded=not declared)


def _suppressed(half_width, threshold):
    """The details of the thresholded table's report (tableDP, undeclared levels): the
    threshold tau and the largest true count of a suppressed cell, floor(tau + H), for H the
    half-width g (T + rounding) of the noisy count before the integer rounding.

    Proof: the guide page ``docs/python/guide/accuracy.rst``, "Thresholded tables"."""
    h = float(np.max(half_width))
    return {"threshold": float(threshold), "suppressed_max": float(math.floor(threshold + h))
            if math.isfinite(threshold) else math.inf}


def _counts(statistic, eps, which_sensitivity, mechanism, delta, type_DP, rule, cells, *,
            alpha, simultaneous, thresholded=False):
    """histogramDP (counts, normalize = FALSE) and tableDP (declared levels): each cell's
    law (``stats._histogram.count_noise_laws``: integer noise on the integer counts). With
    ``thresholded`` (tableDP, undeclared levels): the release's own checks
    (``stats._table.check_table_budget``), laws and thresholds
    (``stats._table.thresholded_table_laws``),
    and the bound of a suppressed cell (:func:`_suppressed`)."""
    if thresholded:
        type_DP = "aDP" if mechanism == "analytic" else type_DP  # as the release
        eps, delta = stats_table.check_table_budget(eps, delta, mechanism, type_DP, False)
    else:
        eps, delta, type_DP = _count_budget(which_sensitivity, mechanism, eps, delta, type_DP)
    refuse_vacuous_both(which_sensitivity, eps, delta, mechanism, thresholded)
    if simultaneous and cells is None:
        raise _messages.value_error("cells (the number of cells) is required when "
                                    "simultaneous is TRUE.")
    given = cells is not None
    cells = 1 if cells is None else _checks.check_whole(cells, "cells", 1)
    if thresholded:
        laws = {label: (k, tail, tau) for label, (_, k, tail, tau) in
                stats_table.thresholded_table_laws(eps, mechanism, delta, type_DP,
                                             which_sensitivity).items()}
    else:
        laws = {label: (k, tail, None) for label, (k, tail) in
                stats_histogram.count_noise_laws(eps, mechanism, delta, type_DP, which_sensitivity,
                                       rule).items()}
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
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports
