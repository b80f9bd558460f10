"""The reports of the moments: meanDP, varDP, sdDP, covDP, pooledVarDP and pooledCovDP,
bounded and unbounded (ratios of noisy sums; derivations: ``docs/python/guide/accuracy.rst``)."""

import math

import numpy as np

from .. import _checks, _messages, data_access
from ._additive import (
    checked_bounds, by_sensitivity, check_n, scalar_statistic, statistic_checks, unbounded_parts,
)
from ._report import NoiseInterval


def one_sample(statistic, eps, n=None, lower_bound=None, upper_bound=None,
               which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP", *,
               alpha, simultaneous):
    """meanDP, varDP, sdDP. Bounded: the sensitivity of data_access's formulas for the public
    n (``mean_from_sums``, ``var_from_squares``: their sums do not enter it). Unbounded: n
    a public lower bound on the number of records, and the ratio bound of
    :func:`_unbounded_moments` ('both': the two reports)."""
    bounds = checked_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP,
                     unbounded=True)
    mean = statistic == "meanDP"
    n = check_n(n, 1 if mean else 2)

    def bounded():
        if mean:
            sensitivity = data_access.mean_from_sums(0.0, n, lower, upper)["Sensitivity"]
        else:
            sensitivity = data_access.var_from_squares(0.0, n, lower, upper)["Sensitivity"]
        return scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP,
                                alpha, "sqrt" if statistic == "sdDP" else None)

    def unbounded():
        # the release's statistics and sensitivities: [h, 1] or [h, h^2, 1]
        access = data_access.centred_from_sums(lower, upper, 0.0, n, None if mean else 0.0)
        return _unbounded_moments(statistic, eps, access["Sensitivities"], n, mechanism,
                                  delta, type_DP, alpha)

    return by_sensitivity(which_sensitivity, bounded, unbounded)


def covariance(statistic, eps, n=None, lower_bound1=None, upper_bound1=None,
               lower_bound2=None, upper_bound2=None, which_sensitivity="bounded",
               mechanism="Laplace", delta=0, type_DP="aDP", *, alpha, simultaneous):
    """covDP. Bounded: ``data_access.cov_from_products``'s sensitivity for the public n.
    Unbounded: n a public lower bound on the number of records, and the ratio bound of
    :func:`_unbounded_moments` ('both': the two reports)."""
    b = checked_bounds(("upper.bound1", upper_bound1), ("lower.bound1", lower_bound1),
                       ("upper.bound2", upper_bound2), ("lower.bound2", lower_bound2))
    bounds = (b["lower.bound1"], b["upper.bound1"], b["lower.bound2"], b["upper.bound2"])
    statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP,
                     unbounded=True)
    n = check_n(n, 2)

    def bounded():
        sensitivity = data_access.cov_from_products(0.0, n, *bounds)["Sensitivity"]
        return scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP,
                                alpha)

    def unbounded():
        # the release's statistics and sensitivities: [h1, h2, h1 h2, 1]
        access = data_access.centred_cross_from_sums(bounds, 0.0, 0.0, 0.0, n)
        return _unbounded_moments(statistic, eps, access["Sensitivities"], n, mechanism,
                                  delta, type_DP, alpha)

    return by_sensitivity(which_sensitivity, bounded, unbounded)


def _mean_ratio_bound(n, h, t_sum, t_count):
    """The unbounded mean's error bound for every N >= n (see :func:`_unbounded_moments`):
    with d = max(n - t_N, 1), (t_S + h t_N) / (d + t_N) when t_S <= h d, else
    min(t_S / d, 2 h)."""
    least = max(n - t_count, 1.0)
    if t_sum <= h * least:
        return (t_sum + h * t_count) / (least + t_count)
    return min(t_sum / least, 2.0 * h)


def _unbounded_moments(statistic, eps, sensitivities, n, mechanism, delta, type_DP, alpha):
    """The unbounded meanDP, varDP, sdDP, covDP: a bound on abs(release - truth) that holds
    with probability >= 1 - alpha for every dataset of N >= n records (n a public lower
    bound: n itself is private under add/remove neighbours).

    With probability >= 1 - alpha every part's noise is within its half-width
    (:func:`unbounded_parts`): abs(Z_S) <= t_S, abs(Z_Q) <= t_Q (or t_1, t_2, t_P for
    covDP), abs(Z_N) <= t_N, the rounding to the grid included. On that event, for every
    N >= n and every dataset (h = (U - L) / 2, the values centred at the midpoint; the
    proof is in :mod:`dppack.accuracy`):

    * mean: abs(error) <= (t_S + h t_N) / max(n - t_N, 1), and <= U - L
      (:func:`_mean_ratio_bound`);
    * variance (sdDP: its transform), covariance: :func:`ratio_of_sums_bound` for one
      sample of at least n records (the pooled release's J = 1).

    ``details``: n and the parts' half-widths."""
    parts, joint = unbounded_parts(statistic, eps, sensitivities, mechanism, delta, type_DP,
                                   alpha)
    if statistic == "meanDP":
        width = _mean_ratio_bound(float(n), float(sensitivities[0]), float(parts[0]),
                                  float(parts[-1]))
    else:
        width = _ratio_of_sums_width(sensitivities, parts, [n])
    return _ratio_report(statistic, width, alpha, joint, parts, {"n": n},
                         "sqrt" if statistic == "sdDP" else None)


def _ratio_of_sums_width(sensitivities, parts, sizes):
    """:func:`ratio_of_sums_bound` from the parts of a variance (sum, squares, count: the
    sensitivities h, h^2, 1) or a covariance (sum1, sum2, products, count: h_1, h_2,
    h_1 h_2, 1) and their half-widths ``parts``."""
    same = len(parts) == 3
    h1, h2 = float(sensitivities[0]), float(sensitivities[0 if same else 1])
    a1, a2 = float(parts[0]), float(parts[0 if same else 1])
    return ratio_of_sums_bound(sizes, h1, h2, a1, a2, float(parts[-2]), float(parts[-1]),
                               same)


def _ratio_report(statistic, width, alpha, joint, parts, details, transform=None):
    """The report of an unbounded ratio of noisy sums: ``details`` and the parts'
    half-widths (named as the release's statistics), ``coverage`` the probability that
    every part is within its half-width (a lower bound on the report's)."""
    names = {2: ("sum", "count"), 3: ("sum", "squares", "count"),
             4: ("sum1", "sum2", "products", "count")}[len(parts)]
    details = dict(details)
    details.update((f"half_width_{name}", float(t)) for name, t in zip(names, parts))
    return NoiseInterval(statistic, width, alpha, False, float(np.prod(joint.coverage)),
                         math.nan, float(np.max(joint.grid)),
                         f"{joint.law} (ratio of noisy sums)", "value", transform, details)


_SIZES_MESSAGE = (
    "sizes is required: the size of each sample (under which.sensitivity = 'unbounded', where "
    "the sizes are private, a public lower bound on each)."
)


def _check_sizes(sizes):
    if sizes is None:
        raise _messages.value_error(_SIZES_MESSAGE)
    sizes = np.atleast_1d(np.asarray(sizes, dtype=object)).ravel()
    if sizes.size < 1:
        raise _messages.value_error("sizes must give the size of each sample.")
    return [_checks.check_whole(v, "sizes", 2, message="sizes must be whole numbers >= 2.")
            for v in sizes]


def _pooled(statistic, eps, sizes, which_sensitivity="bounded", mechanism="Laplace", delta=0,
            type_DP="aDP", approx_n_max=False, *, bounds, alpha):
    """pooledVarDP, pooledCovDP: 'bounded' from the bounded sensitivity for the public sizes
    (``data_access.pooled_var_from_squares`` / ``pooled_cov_from_products``), 'unbounded'
    from :func:`_pooled_unbounded` with ``sizes`` as public lower bounds, 'both' the two
    (as the release: each at the whole budget)."""
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    statistic_checks(statistic, which_sensitivity, mechanism, eps, delta, type_DP,
                     unbounded=True)
    sizes = _check_sizes(sizes)
    reports = {}
    if which_sensitivity != "unbounded":
        if statistic == "pooledVarDP":
            access = data_access.pooled_var_from_squares(sizes, 0.0, *bounds, approx_n_max)
        else:
            access = data_access.pooled_cov_from_products(sizes, 0.0, *bounds, approx_n_max)
        reports["Bounded"] = scalar_statistic(statistic, eps, access["Bounded.Sensitivities"],
                                              mechanism, delta, type_DP, alpha)
    if which_sensitivity != "bounded":
        reports["Unbounded"] = _pooled_unbounded(statistic, eps, sizes, mechanism, delta,
                                                 type_DP, bounds, alpha)
    if len(reports) == 1:
        return next(iter(reports.values()))
    return reports


def ratio_of_sums_bound(sizes, h1, h2, a1, a2, ap, an, same):
    """The one bound on abs(release - truth) of an unbounded variance or covariance (a ratio
    of noisy sums) whose parts are within their half-widths, for every dataset with
    n_j >= ``sizes[j]`` records in sample j: J = len(sizes) samples, J = 1 for varDP, sdDP
    and covDP, J >= 1 for pooledVarDP and pooledCovDP. Derived in :mod:`dppack.accuracy`
    (Variance and covariance, J >= 1).

    Parameters
    ----------
    sizes : sequence of int
        The public lower bounds m_j >= 2 on the sample sizes.
    h1, h2 : float
        The half-ranges of the two variables (h1 = h2 for a variance).
    a1, a2, ap, an : float
        The half-widths of the noises of the centred sums S1, S2 (a1 = a2 for a variance),
        of the sum of products P (of squares Q) and of the count.
    same : bool
        True for a variance (S1 = S2), False for a covariance.

    Returns
    -------
    float
        min(max(B, E), cap): B the bound before the clamp, E the clamp's own error, cap the
        largest distance between the release and the truth.

    Examples
    --------
    One sample of at least 1000 values in [0, 1] (h = 1/2), sums within 0.1 and the count
    within 5: about (0.1 + 5 / 4 + 2 (0.1 / 2)) / (1000 - 5 - 1).

    >>> round(ratio_of_sums_bound([1000], 0.5, 0.5, 0.1, 0.1, 0.1, 5.0, True), 5)
    0.00147
    """
    m = np.asarray(sizes, dtype=np.float64)
    groups = m.size
    total = float(m.sum())  # M
    floors = np.maximum(m - an, 2.0)  # f_j
    worst = np.maximum(m, an + 2.0)  # n*_j
    rho = worst / np.maximum(worst - an, 2.0)  # rho*_j
    spread = h1 * h2  # H
    vmax = spread * total / (total - groups)
    # C_j: the count's term; the max form for a variance, and for a covariance when J = 1
    # (the truth is then the same sample's covariance); the sum when J > 1
    if same or groups == 1:
        mixed = np.maximum(rho * spread, vmax)
    else:
        mixed = rho * spread + vmax
    terms = ap + an * mixed + rho * (h1 * a2 + h2 * a1) + a1 * a2 / floors
    low = float(floors.sum())  # F
    raw = float(terms.sum()) / (low - groups)  # B
    if groups == 1:
        clamp = spread * (1.0 / (total - 1.0) - 1.0 / (total + an))  # E, J = 1
    else:
        recip = float(np.sum(1.0 / floors))  # R
        clamp = spread * (groups / (total - groups)
                          - (groups - recip) / (total + groups * an - groups))
    cap = spread * low / (low - groups)
    if not same:
        cap += vmax
    return min(max(raw, clamp), cap)


def _pooled_unbounded(statistic, eps, sizes, mechanism, delta, type_DP, bounds, alpha):
    """The 'unbounded' pooledVarDP / pooledCovDP (the sizes private, ``sizes`` public lower
    bounds on them): the sums' half-widths (:func:`unbounded_parts`, with the
    sensitivities of ``data_access.centred_from_sums`` / ``centred_cross_from_sums``, as the
    release) through :func:`ratio_of_sums_bound`."""
    if len(bounds) == 2:
        sens = data_access.centred_from_sums(*bounds, 0.0, 0, 0.0)["Sensitivities"]
    else:
        sens = data_access.centred_cross_from_sums(bounds, 0.0, 0.0, 0.0, 0)["Sensitivities"]
    widths, joint = unbounded_parts(statistic, eps, sens, mechanism, delta, type_DP, alpha,
                                    rows=len(sizes))
    return _ratio_report(statistic, _ratio_of_sums_width(sens, widths, sizes), alpha, joint,
                         widths, {"sizes": [int(v) for v in sizes]})


def pooled_var(statistic, eps, sizes=None, lower_bound=None, upper_bound=None,
               which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
               approx_n_max=False, *, alpha, simultaneous):
    """pooledVarDP: see :func:`_pooled` (``sizes`` the public sample sizes; under
    'unbounded' public lower bounds on them)."""
    b = checked_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    return _pooled(statistic, eps, sizes, which_sensitivity, mechanism, delta, type_DP,
                   approx_n_max, bounds=(b["lower.bound"], b["upper.bound"]), alpha=alpha)


def pooled_cov(statistic, eps, sizes=None, lower_bound1=None, upper_bound1=None,
               lower_bound2=None, upper_bound2=None, which_sensitivity="bounded",
               mechanism="Laplace", delta=0, type_DP="aDP", approx_n_max=False, *, alpha,
               simultaneous):
    """pooledCovDP: see :func:`_pooled` (``sizes`` the public sample sizes; under
    'unbounded' public lower bounds on them)."""
    b = checked_bounds(("lower.bound1", lower_bound1), ("upper.bound1", upper_bound1),
                       ("lower.bound2", lower_bound2), ("upper.bound2", upper_bound2))
    return _pooled(statistic, eps, sizes, which_sensitivity, mechanism, delta, type_DP,
                   approx_n_max, alpha=alpha, bounds=(b["lower.bound1"], b["upper.bound1"],
                                                      b["lower.bound2"], b["upper.bound2"]))
