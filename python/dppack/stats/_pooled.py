"""pooledVarDP and pooledCovDP."""

import numpy as np

from .. import _access_cores, _backends, _checks
from .._plans import Plan, one_or_both, register, released_versions, run
from ..mechanisms._additive import mechanism_report, release_exact
from ._ratio import check_sizes, pooled_unbounded
from ._release import (
    check_release,
    clamp,
    exact_statistics,
    max_squares,
    minimum_size,
    noisy_count,
    noisy_exact_statistics,
    release_loss,
)


def _pooled_unbounded(access, eps, mechanism, delta, type_DP, combine):
    """The 'unbounded' release of a pooled statistic: the exact centred sufficient statistics
    of every sample (``access``: rows of ``_access_cores.pooled_centred_rows``), released by
    one call of the mechanism's exact entry point (see :func:`noisy_exact_statistics`: a
    record is in one sample, so one row moves), each noisy count floored at 2;
    ``combine(noisy rows, counts)`` post-processes. Returns the function of the generator
    that draws."""
    prepared = exact_statistics(access)

    def draw(rng, loss):
        noisy = noisy_exact_statistics(prepared, eps, mechanism, delta, type_DP, rng)
        counts = np.array([noisy_count(count) for count in noisy[:, -1]])
        return combine(noisy, counts)

    return draw


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

    Exact, as :func:`meanDP`: the values rounded to the grid of the bounds, DPpack's
    sensitivities with U - L replaced by the rounded range Q g.

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
    arguments = {"eps": eps, "lower_bound": lower_bound, "upper_bound": upper_bound,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism, "delta": delta,
                 "type_DP": type_DP, "approx_n_max": approx_n_max}
    return run(POOLED_VAR, samples, arguments, random_state, accountant)


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

    Exact, as :func:`meanDP`: each column rounded to the grid of its bounds.

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
    arguments = {"eps": eps, "lower_bound1": lower_bound1, "upper_bound1": upper_bound1,
                 "lower_bound2": lower_bound2, "upper_bound2": upper_bound2,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism, "delta": delta,
                 "type_DP": type_DP, "approx_n_max": approx_n_max}
    return run(POOLED_COV, samples, arguments, random_state, accountant)


class _Pooled(Plan):
    """pooledVarDP (``columns`` None) and pooledCovDP (2): 'bounded' DPpack's noise for its
    bounded sensitivity (the sizes public), then the clamp; 'unbounded' every sample's centred
    statistics and size in one call of the mechanism (a record is in one sample: one row
    moves), each noisy size floored at 2, then the pooled ratio clamped to its range."""

    def __init__(self, name, names, columns=None):
        self.name, self.names, self.columns = name, names, columns
        self.report_arguments = dict(sizes=None, **dict.fromkeys(names),
                                     which_sensitivity="bounded", mechanism="Laplace",
                                     delta=0, type_DP="aDP", approx_n_max=False)
        self.required = tuple(names)

    def loss(self, a):
        return release_loss(a["eps"], a["delta"], a["mechanism"], a["which_sensitivity"])

    def check(self, samples, a):
        """DPpack's order: the bounds (pooledCovDP: lower.bound1, lower.bound2, upper.bound1,
        upper.bound2), approx.n.max, the samples through their backend (none for a report),
        which.sensitivity, mechanism, the mechanism's checks of the budget."""
        order = self.names if self.columns is None else [self.names[i] for i in (0, 2, 1, 3)]
        checked = _checks.check_bounds(*((name.replace("_", "."), a[name]) for name in order))
        bounds = tuple(checked[name.replace("_", ".")] for name in self.names)
        approx_n_max = _checks.check_flag(a["approx_n_max"], "approx.n.max")
        pooled = None
        if samples is not None:
            which = a["which_sensitivity"]
            pooled = _backends.backend_for(*samples).pooled(
                samples, bounds, which, minimum_size(which, 2), self.columns)
        check_release(a["which_sensitivity"], a["mechanism"], a["eps"], a["delta"],
                      a["type_DP"])
        return bounds, approx_n_max, pooled

    def spread(self, bounds):
        if self.columns is None:
            return (bounds[1] - bounds[0]) * (bounds[1] - bounds[0])  # Inf beyond 1e308
        return (bounds[1] - bounds[0]) * (bounds[3] - bounds[2])

    def prepare(self, samples, a):
        bounds, approx_n_max, pooled = self.check(samples, a)
        eps, mechanism, delta, type_DP = a["eps"], a["mechanism"], a["delta"], a["type_DP"]
        spread, groups = self.spread(bounds), len(samples)

        def bounded():
            # DPpack's pooled statistic (exact, on the grid of the bounds) and its bounded
            # sensitivity (sizes public)
            access = pooled.pooled_exact(approx_n_max)
            if self.columns is not None:
                return lambda rng, loss: noisy_value(access, rng)
            sizes = pooled.sizes()
            top = sum(max_squares(n, spread) for n in sizes) / (sum(sizes) - groups)

            def draw(rng, loss):
                return clamp(noisy_value(access, rng), 0.0, top)  # one draw, no redraws

            return draw

        def noisy_value(access, rng):
            return release_exact([access["True.Values"]], eps, access["Bounded.Sensitivities"],
                                 mechanism, delta, type_DP, rng)[0]

        def unbounded():
            # per sample: centred sums, sum of squares or products and size; no size is used
            return _pooled_unbounded(pooled.centred_rows(), eps, mechanism, delta, type_DP,
                                     self._combine(spread, groups))

        versions = released_versions(a["which_sensitivity"], bounded, unbounded)
        return [(label, prepare()) for label, prepare in versions]

    def _combine(self, spread, groups):
        def combine(noisy, counts):
            if self.columns is None:
                value = sum(q - s * s / n for (s, q, _), n in zip(noisy, counts))
            else:
                value = sum(p - s1 * s2 / n for (s1, s2, p, _), n in zip(noisy, counts))
            dof = counts.sum() - groups
            top = sum(max_squares(n, spread) for n in counts) / dof
            return clamp(value / dof, 0.0 if self.columns is None else -top, top)

        return combine

    def report(self, statistic, eps, a, alpha, simultaneous):
        a = dict(a, eps=eps)
        bounds, approx_n_max, _ = self.check(None, a)
        if a["which_sensitivity"] == "both":  # a vacuous pair is refused as the release does
            self.loss(a)
        sizes = check_sizes(a["sizes"])
        noise = (a["mechanism"], a["delta"], a["type_DP"])

        def bounded():
            # the release's sensitivities (of the records on the grid of the bounds)
            zeros = [(n, 0, 0) if self.columns is None else (n, 0, 0, 0, 0, 0) for n in sizes]
            access = _access_cores.pooled_grid_exact(zeros, bounds, approx_n_max)
            report = mechanism_report(statistic, noise[0], eps, *noise[1:],
                                      access["Bounded.Sensitivities"], alpha)
            report.half_width = report.half_width + rounding
            return report

        def unbounded():
            report = pooled_unbounded(statistic, eps, sizes, *noise, bounds, alpha)
            report.half_width = report.half_width + rounding
            return report

        # the truth is the data's: the rounding of the records to the grid is added
        rounding = _access_cores.rounding_error(sizes, bounds)

        return one_or_both(released_versions(a["which_sensitivity"], bounded, unbounded),
                           lambda version: version())

    def truth_range(self, units, label, a):
        """[0, top] for the pooled variance, [-top, top] for the covariance: at the public
        sizes ('Bounded'), or for J > 1 over every size above them ('Unbounded':
        spread M / (4 (M - J)), M their total)."""
        spread = self.spread([float(a[name]) for name in self.names])
        sizes = [int(v) for v in np.ravel(np.asarray(a["sizes"], dtype=object))]
        total, groups = sum(sizes), len(sizes)
        if label == "Unbounded" and groups > 1:
            top = spread * total / (4.0 * (total - groups))
        else:
            top = sum(max_squares(m, spread) for m in sizes) / (total - groups)
        return (0.0, top) if self.columns is None else (-top, top)


POOLED_VAR = register(_Pooled("pooledVarDP", ("lower_bound", "upper_bound")))
POOLED_COV = register(_Pooled("pooledCovDP", ("lower_bound1", "upper_bound1", "lower_bound2",
                                              "upper_bound2"), columns=2))
