"""pooledVarDP and pooledCovDP."""

import numpy as np

from .. import _backends, _checks
from ._release import (
    add_noise,
    charge,
    check_release,
    clamp,
    draw_versions,
    max_squares,
    minimum_size,
    noisy_count,
    noisy_statistics,
    unit_statistics,
)


def _pooled_unbounded(rows, eps, mechanism, delta, type_DP, combine):
    """The 'unbounded' release of a pooled statistic: the centred sufficient statistics of
    every sample (the rows of ``rows``, dicts of :mod:`data_access`), released by one call of
    the mechanism (see :func:`noisy_statistics`: a record is in one sample, so one row
    moves), each noisy count floored at 2; ``combine(noisy rows, counts)`` post-processes.
    Returns the function of the generator that draws."""
    access = {
        "True.Values": np.stack([row["True.Values"] for row in rows]),
        "Sensitivities": rows[0]["Sensitivities"],
    }
    prepared = unit_statistics(access)

    def draw(rng):
        noisy = noisy_statistics(prepared, eps, mechanism, delta, type_DP, rng)
        counts = np.array([noisy_count(count) for count in noisy[:, -1]])
        return combine(noisy, counts)

    return draw


def _pooled_source(samples, bounds, which_sensitivity, columns=None):
    """The samples of a pooled statistic, checked as far as they can be without a pass, by
    their backend: in memory checked and clipped, on Dask (any sample a Dask collection) one
    pass for all the samples, on first use."""
    min_size = minimum_size(which_sensitivity, 2)
    return _backends.backend_for(*samples).pooled(samples, bounds, which_sensitivity, min_size,
                                                  columns)


def pooledVarDP(*samples, eps=1, lower_bound, upper_bound, which_sensitivity="bounded",
                mechanism="Laplace", delta=0, type_DP="aDP", approx_n_max=False,
                random_state=None, accountant=None):
    """Differentially private pooled variance of several samples.

    Clips every sample to the bounds and releases the pooled variance
    sum_j (n_j - 1) s_j^2 / (N - J) (N = sum_j n_j, J samples), clamped to its range
    [0, sum_j m_j (U - L)^2 / (N - J)], m_j = floor(n_j/2) ceil(n_j/2)/n_j (U, L the bounds):

    * 'bounded' (the sizes n_j are public): DPpack's noise, calibrated to its bounded
      sensitivity, then the clamp.
    * 'unbounded' (a record added to or removed from one sample; the sizes are private): for
      every sample j, the sum S_j and the sum of squares Q_j of its values centred at the
      midpoint of the bounds (sensitivities h = (U - L)/2 and h^2) and its size n_j
      (sensitivity 1); a record is in one sample, so all 3J statistics are released by one
      call of the mechanism with the sensitivities of one sample's three (Laplace: eps/3 for
      each; Gaussian: scaled to sensitivity 1 each, l2 sensitivity sqrt(3), the whole
      (eps, delta)). With n~_j = max(noisy n_j, 2) the result is
      sum_j (Q~_j - S~_j^2/n~_j) / (sum_j n~_j - J), clamped to
      [0, (U - L)^2 sum_j n~_j / (4 (sum_j n~_j - J))]. DPpack's unbounded sensitivity
      depends on the private sizes.
    * 'both': both releases; meaningful under bounded DP only, where the pair spends up to
      3 eps (see :func:`meanDP`); under unbounded DP the bounded release is not private.

    DPpack redraws until the noisy value is positive, which is not differentially private at
    the stated eps; a noisy value below 0 is released as exactly 0.

    Parameters
    ----------
    *samples : array_like, or Dask arrays or Series
        J >= 1 numeric vectors, at least two finite values each (on Dask: one pass for all).
    eps : float, default 1
    lower_bound, upper_bound : float
        Keyword-only, required.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism, delta, type_DP, random_state
        As :func:`meanDP`.
    approx_n_max : bool, default False
        Use N instead of the largest sample size in the bounded sensitivity (the largest
        sample size is otherwise released unprotected). The unbounded release does
        not use it.
    accountant : BudgetAccountant, optional
        As :func:`meanDP` (the same losses), label "pooledVarDP".

    Returns
    -------
    float or dict
        In the range above; for 'both', ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order (lower.bound, then upper.bound), and ours for the
        bounds and the samples, all before any noise is drawn.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``pooledVarDP``.

    Examples
    --------
    The pooled variance of plasma glucose over the diabetic and the non-diabetic women
    (true value 717.1):

    >>> from dppack import pooledVarDP
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> yes, no = pima.loc[pima["type"] == "Yes", "glu"], pima.loc[pima["type"] == "No", "glu"]
    >>> round(pooledVarDP(yes, no, eps=1.0, lower_bound=50, upper_bound=200, random_state=1), 1)
    654.6
    """
    bill = charge(accountant, "pooledVarDP", eps, delta, mechanism, which_sensitivity)
    bounds = _checks.check_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    pooled = _pooled_source(samples, (lower, upper), which_sensitivity)
    check_release(which_sensitivity, mechanism, eps, delta, type_DP)
    spread = (upper - lower) * (upper - lower)  # Inf, not OverflowError, beyond 1e308
    groups = len(samples)

    def bounded():
        # DPpack's pooledVarDP: the pooled variance and its bounded sensitivity (sizes public).
        access = pooled.pooled_var_access(approx_n_max)
        sizes = pooled.sizes()
        top = sum(max_squares(n, spread) for n in sizes) / (sum(sizes) - groups)

        def draw(rng):
            # DPpack's statistics: Laplace scale Delta/eps; Gaussian sigma of DPpack's
            # GaussianMechanism with s = Delta.
            noisy = add_noise(access["True.Values"], eps, access["Bounded.Sensitivities"],
                              mechanism, delta, type_DP, rng)
            return clamp(noisy, 0.0, top)  # one draw, clamped: not DPpack's pooledVarDP's redraws

        return draw

    def unbounded():
        # Add/remove neighbours (sizes private): per sample, centred sum, sum of squares and
        # size (sensitivities h, h^2, 1); no size is used.
        rows = pooled.centred_rows()

        def combine(noisy, counts):
            squares = sum(q - s * s / n for (s, q, _), n in zip(noisy, counts))
            dof = counts.sum() - groups
            top = sum(max_squares(n, spread) for n in counts) / dof
            return clamp(squares / dof, 0.0, top)

        return _pooled_unbounded(rows, eps, mechanism, delta, type_DP, combine)

    return draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)


def pooledCovDP(*samples, eps=1, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
                which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
                approx_n_max=False, random_state=None, accountant=None):
    """Differentially private pooled covariance of several two-column samples.

    Clips the first column of every sample to [lower_bound1, upper_bound1] and the second to
    [lower_bound2, upper_bound2], and releases the pooled covariance
    sum_j (n_j - 1) c_j / (N - J):

    * 'bounded' (the sizes n_j are public): DPpack's release, with noise calibrated to its
      bounded sensitivity.
    * 'unbounded' (a record added to or removed from one sample; the sizes are private): for
      every sample j, the sums S1_j, S2_j of its two columns centred at the midpoints of their
      bounds (sensitivities h1 = (U1 - L1)/2, h2 = (U2 - L2)/2), the sum P_j of their
      products (sensitivity h1 h2) and its size n_j (sensitivity 1), released by one call of
      the mechanism with the sensitivities of one sample's four (Laplace: eps/4 for each;
      Gaussian: scaled to sensitivity 1 each, l2 sensitivity 2, the whole (eps, delta)).
      With n~_j = max(noisy n_j, 2) the result is
      sum_j (P~_j - S1~_j S2~_j/n~_j) / (sum_j n~_j - J), clamped to
      +-(U1 - L1)(U2 - L2) sum_j n~_j / (4 (sum_j n~_j - J)). DPpack's unbounded
      sensitivity depends on the private sizes.
    * 'both': both releases; meaningful under bounded DP only, where the pair spends up to
      3 eps (see :func:`meanDP`); under unbounded DP the bounded release is not private.

    Parameters
    ----------
    *samples : array_like, or Dask arrays or DataFrames
        J >= 1 numeric matrices of shape (n_j, 2), n_j >= 2, finite.
    eps : float, default 1
    lower_bound1, upper_bound1, lower_bound2, upper_bound2 : float
        Keyword-only, required.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism, delta, type_DP, random_state
        As :func:`meanDP`.
    approx_n_max : bool, default False
        Affects the bounded sensitivity only.
    accountant : BudgetAccountant, optional
        As :func:`meanDP` (the same losses), label "pooledCovDP".

    Returns
    -------
    float or dict
        For 'both', ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        DPpack's messages in DPpack's order (lower.bound1, lower.bound2, upper.bound1,
        upper.bound2), and ours for the bounds and the samples, all before any noise is
        drawn.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``pooledCovDP``.

    Examples
    --------
    The pooled covariance of glucose and body-mass index over the two groups:

    >>> from dppack import pooledCovDP
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> groups = [pima.loc[pima["type"] == t, ["glu", "bmi"]].to_numpy() for t in ("Yes", "No")]
    >>> cov = pooledCovDP(*groups, eps=1.0, lower_bound1=50, upper_bound1=200,
    ...                   lower_bound2=15, upper_bound2=70, random_state=1)
    >>> round(cov, 2)
    -3.05
    """
    bill = charge(accountant, "pooledCovDP", eps, delta, mechanism, which_sensitivity)
    bounds = _checks.check_bounds(
        ("lower.bound1", lower_bound1),
        ("lower.bound2", lower_bound2),
        ("upper.bound1", upper_bound1),
        ("upper.bound2", upper_bound2),
    )
    lower1, upper1 = bounds["lower.bound1"], bounds["upper.bound1"]
    lower2, upper2 = bounds["lower.bound2"], bounds["upper.bound2"]
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    pooled = _pooled_source(samples, (lower1, upper1, lower2, upper2), which_sensitivity,
                            columns=2)
    check_release(which_sensitivity, mechanism, eps, delta, type_DP)

    def bounded():
        # DPpack's pooledCovDP: the pooled covariance and its bounded sensitivity (sizes public).
        access = pooled.pooled_cov_access(approx_n_max)
        # DPpack's statistics: Laplace scale Delta/eps; Gaussian sigma of DPpack's
        # GaussianMechanism with s = Delta.
        return lambda rng: add_noise(access["True.Values"], eps, access["Bounded.Sensitivities"],
                                     mechanism, delta, type_DP, rng)

    def unbounded():
        # Add/remove neighbours (sizes private): per sample, centred sums, sum of products
        # and size (sensitivities h1, h2, h1 h2, 1); no size is used.
        rows = pooled.centred_rows()
        spread = (upper1 - lower1) * (upper2 - lower2)

        def combine(noisy, counts):
            products = sum(p - s1 * s2 / n for (s1, s2, p, _), n in zip(noisy, counts))
            dof = counts.sum() - len(rows)
            top = sum(max_squares(n, spread) for n in counts) / dof
            return clamp(products / dof, -top, top)

        return _pooled_unbounded(rows, eps, mechanism, delta, type_DP, combine)

    return draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)

