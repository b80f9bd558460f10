"""The accuracy reports of the unbounded moments (meanDP, varDP, sdDP, covDP, pooledVarDP,
pooledCovDP): ratios of noisy sums, bounded for every dataset at least as large as a public
size (derivations: ``docs/python/guide/accuracy.rst``)."""

import math

import numpy as np

from .. import _access_cores, _checks, _messages
from .._report import NoiseInterval
from ..mechanisms._additive import mechanism_report
from ._release import check_unit_sensitivities, unit_sensitivity


_N_MESSAGE = ("n is required: the public sample size (which.sensitivity = 'bounded'), or a "
              "public lower bound on the number of records ('unbounded', 'both').")


def check_n(n, minimum):
    """n, required, a whole number >= ``minimum`` (1 for the mean, 2 for the others)."""
    if n is None:
        raise _messages.value_error(_N_MESSAGE)
    return _checks.check_whole(n, "n", minimum)


def unbounded_parts(statistic, eps, sensitivities, mechanism, delta, type_DP, alpha,
                    rows=1):
    """The half-widths t_i of the k noisy sufficient statistics of an unbounded release,
    all within them at once with probability >= 1 - alpha, and the joint report on the
    unit scale: the report of the release's one call of the mechanism
    (``_release.noisy_exact_statistics``: statistic i over its sensitivity Delta_i, k rows
    values, unit sensitivity l1 k or l2 sqrt(k)) for all its values at once, u, and
    t_i = Delta_i u."""
    sensitivities = check_unit_sensitivities(np.asarray(sensitivities, np.float64))
    k = sensitivities.size
    joint = mechanism_report(statistic, mechanism, eps, delta, type_DP,
                             unit_sensitivity(k, mechanism), alpha, True, k * rows)
    return float(np.max(joint.half_width)) * sensitivities, joint


def _mean_ratio_bound(n, h, t_sum, t_count):
    """The unbounded mean's error bound for every N >= n (see :func:`unbounded_moments`):
    with d = max(n - t_N, 1), (t_S + h t_N) / (d + t_N) when t_S <= h d, else
    min(t_S / d, 2 h)."""
    least = max(n - t_count, 1.0)
    if t_sum <= h * least:
        return (t_sum + h * t_count) / (least + t_count)
    return min(t_sum / least, 2.0 * h)


def unbounded_moments(statistic, eps, sensitivities, n, mechanism, delta, type_DP, alpha):
    """The unbounded meanDP, varDP, sdDP, covDP: a bound on abs(release - truth) that holds
    with probability >= 1 - alpha for every dataset of N >= n records (n a public lower
    bound: n itself is private under add/remove neighbours).

    With probability >= 1 - alpha every part's noise is within its half-width
    (:func:`unbounded_parts`): abs(Z_S) <= t_S, abs(Z_Q) <= t_Q (or t_1, t_2, t_P for
    covDP), abs(Z_N) <= t_N, the rounding to the grid included. On that event, for every
    N >= n and every dataset (h = (U - L) / 2, the values centred at the midpoint; the
    proof: ``docs/python/guide/accuracy.rst``):

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
        width = ratio_of_sums_width(sensitivities, parts, [n])
    return ratio_report(statistic, width, alpha, joint, parts, {"n": n},
                        "sqrt" if statistic == "sdDP" else None)


def ratio_of_sums_width(sensitivities, parts, sizes):
    """:func:`ratio_of_sums_bound` from the parts of a variance (sum, squares, count: the
    sensitivities h, h^2, 1) or a covariance (sum1, sum2, products, count: h_1, h_2,
    h_1 h_2, 1) and their half-widths ``parts``."""
    same = len(parts) == 3
    h1, h2 = float(sensitivities[0]), float(sensitivities[0 if same else 1])
    a1, a2 = float(parts[0]), float(parts[0 if same else 1])
    return ratio_of_sums_bound(sizes, h1, h2, a1, a2, float(parts[-2]), float(parts[-1]),
                               same)


def ratio_report(statistic, width, alpha, joint, parts, details, transform=None):
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


def check_sizes(sizes):
    if sizes is None:
        raise _messages.value_error(_SIZES_MESSAGE)
    sizes = np.atleast_1d(np.asarray(sizes, dtype=object)).ravel()
    if sizes.size < 1:
        raise _messages.value_error("sizes must give the size of each sample.")
    return [_checks.check_whole(v, "sizes", 2, message="sizes must be whole numbers >= 2.")
            for v in sizes]


def ratio_of_sums_bound(sizes, h1, h2, a1, a2, ap, an, same):
    """The one bound on abs(release - truth) of an unbounded variance or covariance (a ratio
    of noisy sums) whose parts are within their half-widths, for every dataset with
    n_j >= ``sizes[j]`` records in sample j: J = len(sizes) samples, J = 1 for varDP, sdDP
    and covDP, J >= 1 for pooledVarDP and pooledCovDP. Derived in
    ``docs/python/guide/accuracy.rst`` (Variance and covariance, J >= 1).

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


def pooled_unbounded(statistic, eps, sizes, mechanism, delta, type_DP, bounds, alpha):
    """The 'unbounded' pooledVarDP / pooledCovDP (the sizes private, ``sizes`` public lower
    bounds on them): the sums' half-widths (:func:`unbounded_parts`, with the
    sensitivities of ``_access_cores.centred_exact`` / ``centred_cross_exact``, as the
    release) through :func:`ratio_of_sums_bound`."""
    if len(bounds) == 2:
        sens = _access_cores.centred_exact(0, 0, 0, *bounds)["Sensitivities"]
    else:
        sens = _access_cores.centred_cross_exact(0, 0, 0, 0, bounds)["Sensitivities"]
    widths, joint = unbounded_parts(statistic, eps, sens, mechanism, delta, type_DP, alpha,
                                    rows=len(sizes))
    return ratio_report(statistic, ratio_of_sums_width(sens, widths, sizes), alpha, joint,
                        widths, {"sizes": [int(v) for v in sizes]})
