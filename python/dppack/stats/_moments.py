"""meanDP, varDP, sdDP and covDP."""

import math

from .. import _access_cores, _backends, _checks, _exact_sums
from .._plans import Plan, one_or_both, register, released_versions, run
from ..mechanisms._additive import mechanism_report, release_exact
from ._ratio import check_n, unbounded_moments
from ._release import (
    check_release,
    clamp,
    exact_statistics,
    max_squares,
    minimum_size,
    moment_source,
    noisy_count,
    noisy_exact_statistics,
    release_loss,
    sample_bounds,
)


def meanDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded", mechanism="Laplace",
           delta=0, type_DP="aDP", random_state=None, accountant=None):
    """Differentially private mean.

    Clips ``x`` to [lower_bound, upper_bound] and releases its mean:

    * 'bounded' (neighbours differ in the value of one record; n is public): DPpack's
      release, the mean plus noise calibrated to the sensitivity (upper_bound - lower_bound)/n.
    * 'unbounded' (neighbours differ by one record added or removed; n is private): the sum S
      of the values centred at the midpoint m of the bounds (sensitivity
      (upper_bound - lower_bound)/2) and the count n (sensitivity 1) are released by one call
      of the mechanism (Laplace: eps/2 for each; Gaussian: the pair, scaled to sensitivity 1
      each, with l2 sensitivity sqrt(2) and the whole (eps, delta)); the result is
      m + S~/max(n~, 1), clamped to the bounds. DPpack calibrates to (U - L)/n with the
      private n, which is not unbounded DP.
    * 'both': both releases, bounded first; meaningful under bounded DP only, where the pair
      spends up to 3 eps: eps for the bounded release and up to 2 eps for the unbounded one,
      a replacement being a removal and an addition (group privacy; with delta, up to
      (1 + e^eps) delta for it, (2 + e^eps) delta in all). Under unbounded DP the bounded
      release, which uses the exact n, is not private.

    Exact: the clipped values are rounded to a grid g = 2^k <= (U - L) 2^-20 of the bounds and
    the statistic is computed exactly from their integers (a float sum can move by more than
    the sensitivity: Casacuberta, Shoemate, Vadhan and Wagaman 2022), then rounded onto the
    noise grid in integers; the sensitivities are DPpack's with U - L replaced by the rounded
    range Q g <= (U - L)(1 + 2^-20) (guide: adding-a-release, Exact moments).

    Parameters
    ----------
    x : array_like, or a Dask array, Series or DataFrame
        Numeric, finite data; a matrix is averaged over all its entries (n = its size).
        Each entry counts as one person: the guarantee protects one entry, not one row, so
        a person with several entries (a row of a matrix) needs one value per person.
    eps : float
        Privacy budget, > 0 and finite (below 1 for mechanism='Gaussian' with type_DP='aDP').
    lower_bound, upper_bound : float
        Bounds on the data, lower < upper; values outside are clipped to them.
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta : float, default 0
        In (0, 1) for the Gaussian mechanisms (the default 0 is an error there, as in DPpack).
    type_DP : {'aDP', 'pDP'}, default 'aDP'
        For mechanism='Gaussian'; ignored by 'analytic'.
    random_state : None, int or NumPy Generator, optional
        With 'both', the bounded release is drawn first.
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps) for the Laplace mechanism and
        PrivacyLoss.approx(eps, delta) for the Gaussian ones (pDP implies (eps, delta)-DP;
        'analytic' is (eps, delta)-DP); for 'both' the pair's (3 eps, (2 + e^eps) delta) (3 eps
        for Laplace; a 'both' whose total delta reaches 1 is refused); label "meanDP". By
        default the session's accountant (``with BudgetAccountant(...)``), if any. An
        overspend is refused before the data are read or any noise is drawn.

    Returns
    -------
    float or dict
        The sanitized mean; for 'both', ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        DPpack's messages, in DPpack's order (bound lengths, which_sensitivity, mechanism,
        then the mechanism's eps/delta checks); and ours for bounds that are not finite numbers
        with lower < upper and for data that are not numeric, empty or not finite. All
        before any noise is drawn. Empty data are refused by 'bounded' and 'both' only (n
        is public there); 'unbounded' releases on them (the rules of the statistics:
        ``docs/python/guide/adding-a-release.md``). An overspend of the accountant, before the
        data are read.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``meanDP``. Dwork, McSherry, Nissim and Smith
    (2006), Calibrating noise to sensitivity in private data analysis.

    Examples
    --------
    The mean plasma glucose of the 532 Pima women (true mean 121.03), with the values
    bounded in [50, 200] (sensitivity 150 / 532 for bounded DP):

    >>> from dppack import meanDP
    >>> from dppack.datasets import load_pima
    >>> glucose = load_pima()["glu"]
    >>> round(meanDP(glucose, eps=1.0, lower_bound=50, upper_bound=200, random_state=1), 2)
    120.6
    """
    arguments = {"eps": eps, "lower_bound": lower_bound, "upper_bound": upper_bound,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism, "delta": delta,
                 "type_DP": type_DP}
    return run(MEAN, x, arguments, random_state, accountant)


def varDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded", mechanism="Laplace",
          delta=0, type_DP="aDP", random_state=None, accountant=None):
    """Differentially private sample variance.

    Clips ``x`` and releases its sample variance (denominator n - 1), clamped to its range
    [0, v_max], v_max = (U - L)^2 n/(4(n - 1)) for even n and (U - L)^2 (n + 1)/(4n) for odd
    n (U, L the bounds), the largest sample variance of n values in [L, U]:

    * 'bounded' (n public): DPpack's noise, calibrated to the sensitivity
      (upper_bound - lower_bound)^2/n, then the clamp.
    * 'unbounded' (n private): the sum S and the sum of squares Q of the values centred at the
      midpoint m of the bounds (sensitivities h = (U - L)/2 and h^2) and the count n
      (sensitivity 1) are released by one call of the mechanism (Laplace: eps/3 for each;
      Gaussian: the three, scaled to sensitivity 1 each, with l2 sensitivity sqrt(3) and the
      whole (eps, delta)); with n~ = max(noisy n, 2) the result is (Q~ - S~^2/n~)/(n~ - 1),
      clamped to [0, (U - L)^2 n~/(4(n~ - 1))].
    * 'both': both releases; meaningful under bounded DP only, where the pair spends up to
      3 eps (see :func:`meanDP`); under unbounded DP the bounded release is not private.

    DPpack redraws the noisy variance until it is positive: the output then follows a law
    conditioned on an event that depends on the data, which is not differentially private
    at the stated eps. The clamp is post-processing of one draw: a
    noisy value below 0 is released as exactly 0.

    Exact, as :func:`meanDP`: the variance of the values rounded to the grid of the bounds,
    sensitivity (Q g)^2 / n.

    Parameters
    ----------
    x : array_like, or a Dask array or Series
        Numeric vector (a matrix is refused, as in DPpack) of at least two finite values.
    eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta, type_DP, random_state
        As :func:`meanDP`.
    accountant : BudgetAccountant, optional
        As :func:`meanDP` (the same losses), label "varDP".

    Returns
    -------
    float or dict
        In [0, v_max]; for 'both', ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        "x must be a numeric vector." first, then as :func:`meanDP`.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``varDP``.

    Examples
    --------
    The variance of plasma glucose (true value 960.95), bounded in [50, 200]:

    >>> from dppack import varDP
    >>> from dppack.datasets import load_pima
    >>> glucose = load_pima()["glu"]
    >>> round(varDP(glucose, 1.0, lower_bound=50, upper_bound=200, random_state=1), 1)
    897.0
    """
    arguments = {"eps": eps, "lower_bound": lower_bound, "upper_bound": upper_bound,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism, "delta": delta,
                 "type_DP": type_DP}
    return run(VAR, x, arguments, random_state, accountant)


def sdDP(x, eps, lower_bound, upper_bound, which_sensitivity="bounded", mechanism="Laplace",
         delta=0, type_DP="aDP", random_state=None, accountant=None):
    """Differentially private standard deviation: the square root of :func:`varDP`.

    Parameters and errors are those of :func:`varDP`; the square root is
    post-processing. 'both': as for :func:`varDP` (up to 3 eps under bounded DP; under
    unbounded DP the bounded release is not private). The accountant is charged as by
    :func:`varDP`, label "sdDP".

    Parameters
    ----------
    x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta, type_DP
        As :func:`varDP`.
    random_state, accountant
        As :func:`varDP` (label "sdDP").

    Returns
    -------
    float or dict
        >= 0 (exactly 0 where the noisy variance was clamped to 0); for 'both',
        ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        As :func:`varDP`.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``sdDP``.

    Examples
    --------
    The standard deviation of plasma glucose (true value 31.0), bounded in [50, 200]:

    >>> from dppack import sdDP
    >>> from dppack.datasets import load_pima
    >>> glucose = load_pima()["glu"]
    >>> round(sdDP(glucose, 1.0, lower_bound=50, upper_bound=200, random_state=1), 2)
    29.95
    """
    arguments = {"eps": eps, "lower_bound": lower_bound, "upper_bound": upper_bound,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism, "delta": delta,
                 "type_DP": type_DP}
    return run(SD, x, arguments, random_state, accountant)


def covDP(x1, x2, eps, lower_bound1, upper_bound1, lower_bound2, upper_bound2,
          which_sensitivity="bounded", mechanism="Laplace", delta=0, type_DP="aDP",
          random_state=None, accountant=None):
    """Differentially private sample covariance of two variables.

    Clips ``x1`` to [lower_bound1, upper_bound1] and ``x2`` to [lower_bound2, upper_bound2]
    and releases their sample covariance (denominator n - 1):

    * 'bounded' (n public): DPpack's release, with noise calibrated to the sensitivity
      (upper_bound1 - lower_bound1)(upper_bound2 - lower_bound2)/n.
    * 'unbounded' (n private): the sums S1, S2 of the values centred at the midpoints of their
      bounds (sensitivities h1 = (U1 - L1)/2, h2 = (U2 - L2)/2), the sum P of their products
      (sensitivity h1 h2) and the count n (sensitivity 1) are released by one call of the
      mechanism (Laplace: eps/4 for each; Gaussian: the four, scaled to sensitivity 1 each,
      with l2 sensitivity 2 and the whole (eps, delta)); with n~ = max(noisy n, 2) the result
      is (P~ - S1~ S2~/n~)/(n~ - 1), clamped to the range of the covariance,
      +-(U1 - L1)(U2 - L2) n~/(4(n~ - 1)).
    * 'both': both releases; meaningful under bounded DP only, where the pair spends up to
      3 eps (see :func:`meanDP`); under unbounded DP the bounded release is not private.

    Exact, as :func:`meanDP`: each variable rounded to the grid of its bounds, sensitivity
    Q1 g1 Q2 g2 / n.

    Parameters
    ----------
    x1, x2 : array_like, or Dask arrays or Series
        Numeric vectors of the same length (at least two finite values each). On Dask,
        partitioned alike (two columns of one Dask DataFrame, or arrays of known chunks).
    eps : float
    lower_bound1, upper_bound1, lower_bound2, upper_bound2 : float
    which_sensitivity, mechanism, delta, type_DP, random_state
        As :func:`meanDP`.
    accountant : BudgetAccountant, optional
        As :func:`meanDP` (the same losses), label "covDP".

    Returns
    -------
    float or dict
        For 'both', ``{"Bounded": v, "Unbounded": v}``.

    Raises
    ------
    ValueError
        "x1 must be a numeric vector." / "x2 must be a numeric vector." for matrices, then
        the bound-length checks (upper.bound1, lower.bound1, upper.bound2, lower.bound2), our
        checks (including "x1 and x2 must have the same length."), which_sensitivity,
        mechanism, the mechanism's eps/delta checks.

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``covDP``.

    Examples
    --------
    The covariance of plasma glucose and body-mass index (true value 52.70), bounded in
    [50, 200] and [15, 70]:

    >>> from dppack import covDP
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> cov = covDP(pima["glu"], pima["bmi"], 1.0, 50, 200, 15, 70, random_state=1)
    >>> round(cov, 2)
    29.26
    """
    arguments = {"eps": eps, "lower_bound1": lower_bound1, "upper_bound1": upper_bound1,
                 "lower_bound2": lower_bound2, "upper_bound2": upper_bound2,
                 "which_sensitivity": which_sensitivity, "mechanism": mechanism, "delta": delta,
                 "type_DP": type_DP}
    return run(COV, (x1, x2), arguments, random_state, accountant)


# --------------------------------------------------------------------------------------------
# The plans
# --------------------------------------------------------------------------------------------


class _Moment(Plan):
    """The shared part of the moments' plans: their loss, checks and reports by version."""

    report_arguments = dict(n=None, lower_bound=None, upper_bound=None,
                            which_sensitivity="bounded", mechanism="Laplace", delta=0,
                            type_DP="aDP")
    required = ("lower_bound", "upper_bound")
    minimum = 2
    transform = None

    def loss(self, a):
        return release_loss(a["eps"], a["delta"], a["mechanism"], a["which_sensitivity"])

    def check(self, x, a):
        """DPpack's order: (varDP, sdDP: x a vector), the bounds (upper first), the data
        through their backend (none for a report), which.sensitivity, mechanism, then the
        mechanism's checks of the budget."""
        if self.minimum == 2 and x is not None:
            _checks.check_vector(x, "x")
        lower, upper = sample_bounds(a["upper_bound"], a["lower_bound"])
        source = None if x is None else moment_source(x, lower, upper, a["which_sensitivity"],
                                                      self.minimum)
        check_release(a["which_sensitivity"], a["mechanism"], a["eps"], a["delta"],
                      a["type_DP"])
        return (lower, upper), source

    def prepare(self, data, a):
        bounds, source = self.check(data, a)
        noise = (a["eps"], a["mechanism"], a["delta"], a["type_DP"])
        if a["which_sensitivity"] == "bounded":
            return [("Bounded", self.bounded(source, bounds, *noise))]
        versions = released_versions(a["which_sensitivity"], self.bounded, self.unbounded)
        # all versions read the data before the first draw (bounded noise drawn first)
        return [(label, prepare(source, bounds, *noise)) for label, prepare in versions]

    def report(self, statistic, eps, a, alpha, simultaneous):
        a = dict(a, eps=eps)
        bounds, _ = self.check(None, a)
        if a["which_sensitivity"] == "both":  # a vacuous pair is refused as the release does
            self.loss(a)
        n = check_n(a["n"], self.minimum)
        noise = (eps, a["mechanism"], a["delta"], a["type_DP"])

        def bounded():
            sensitivity = self.sensitivity(n, bounds)
            report = mechanism_report(statistic, noise[1], eps, noise[2], noise[3],
                                      sensitivity, alpha)
            report.transform = self.transform
            report.half_width = report.half_width + self.rounding(n, bounds)
            return report

        def unbounded():
            sensitivities = self.centred(n, bounds)["Sensitivities"]
            report = unbounded_moments(statistic, eps, sensitivities, n, *noise[1:], alpha)
            report.half_width = report.half_width + self.rounding(n, bounds)
            return report

        return one_or_both(released_versions(a["which_sensitivity"], bounded, unbounded),
                           lambda version: version())

    def rounding(self, n, bounds):
        """How far the rounding of the records to the grid of the bounds moves the
        statistic at most (the report covers the truth of the data, not of the rounded
        records): ``_access_cores.rounding_error``, g / 2 for the mean."""
        return _access_cores.rounding_error([n], bounds)

    def truth_range(self, units, label, a):
        """[0, top] for a variance (Popoviciu's bound, ``max_squares``), its square root for
        sdDP, [-top, top] for a covariance (Cauchy-Schwarz), at the public n."""
        n = int(a["n"])
        top = max_squares(n, self.spread(a)) / (n - 1)
        if self.name == "sdDP":
            return (0.0, math.sqrt(top))
        return (-top, top) if self.name == "covDP" else (0.0, top)


class _Mean(_Moment):
    """meanDP: 'bounded' the mean plus DPpack's noise for Delta = (U - L)/n (n public);
    'unbounded' the centred sum and the count (sensitivities (U - L)/2 and 1) in one call
    of the mechanism, then m + S~/max(n~, 1) clamped to the bounds."""

    name = "meanDP"
    minimum = 1

    def sensitivity(self, n, bounds):
        return _access_cores.mean_exact(n, 0, *bounds)["Sensitivity"]  # the release's

    def centred(self, n, bounds):
        return _access_cores.centred_exact(n, 0, 0, *bounds, squares=False)

    def rounding(self, n, bounds):
        return math.ldexp(1.0, _exact_sums.data_grid(*bounds)[0] - 1)  # g / 2

    def bounded(self, source, bounds, eps, mechanism, delta, type_DP):
        access = source.mean_exact()  # exact: the noise is added in integers
        return lambda rng, loss: release_exact([access["True.Values"]], eps,
                                               access["Sensitivity"], mechanism, delta,
                                               type_DP, rng)[0]

    def unbounded(self, source, bounds, eps, mechanism, delta, type_DP):
        # n itself is never used
        access = source.centred_exact(squares=False)
        prepared = exact_statistics(access)

        def draw(rng, loss):
            total_, count = noisy_exact_statistics(prepared, eps, mechanism, delta, type_DP,
                                                   rng)
            # post-processing: the noisy sum over the noisy count, within the bounds
            return clamp(access["Centre"] + total_ / max(count, 1.0), *bounds)

        return draw

    def truth_range(self, units, label, a):
        return (float(a["lower_bound"]), float(a["upper_bound"]))


class _Variance(_Moment):
    """varDP (sdDP its square root): 'bounded' DPpack's noise for Delta = (U - L)^2/n, then
    the clamp to [0, v_max]; 'unbounded' the centred sum, sum of squares and count
    (sensitivities h, h^2, 1) in one call, then (Q~ - S~^2/n~)/(n~ - 1) clamped."""

    def __init__(self, name, transform=None):
        self.name, self.transform = name, transform

    def sensitivity(self, n, bounds):
        return _access_cores.var_exact(n, 0, 0, *bounds)["Sensitivity"]

    def centred(self, n, bounds):
        return _access_cores.centred_exact(n, 0, 0, *bounds)

    def spread(self, a):
        return (float(a["upper_bound"]) - float(a["lower_bound"])) ** 2

    def _finish(self, value):
        return math.sqrt(value) if self.transform == "sqrt" else value

    def bounded(self, source, bounds, eps, mechanism, delta, type_DP):
        access = source.var_exact()
        lower, upper = bounds
        spread = (upper - lower) * (upper - lower)  # Inf, not OverflowError, beyond 1e308
        top = max_squares(source.size(), spread) / (source.size() - 1)

        def draw(rng, loss):
            noisy = release_exact([access["True.Values"]], eps, access["Sensitivity"],
                                  mechanism, delta, type_DP, rng)[0]
            return self._finish(clamp(noisy, 0.0, top))  # one draw clamped, not redraws

        return draw

    def unbounded(self, source, bounds, eps, mechanism, delta, type_DP):
        access = source.centred_exact()
        prepared = exact_statistics(access)
        lower, upper = bounds
        spread = (upper - lower) * (upper - lower)

        def draw(rng, loss):
            total_, squares, count = noisy_exact_statistics(prepared, eps, mechanism, delta,
                                                            type_DP, rng)
            count = noisy_count(count)
            variance = (squares - total_ * total_ / count) / (count - 1)
            return self._finish(clamp(variance, 0.0, max_squares(count, spread) / (count - 1)))

        return draw


class _Covariance(_Moment):
    """covDP: 'bounded' DPpack's noise for Delta = (U1 - L1)(U2 - L2)/n; 'unbounded' the
    centred sums, sum of products and count (sensitivities h1, h2, h1 h2, 1) in one call,
    then (P~ - S1~ S2~/n~)/(n~ - 1) clamped to +-top."""

    name = "covDP"
    report_arguments = dict(n=None, lower_bound1=None, upper_bound1=None, lower_bound2=None,
                            upper_bound2=None, which_sensitivity="bounded",
                            mechanism="Laplace", delta=0, type_DP="aDP")
    required = ("lower_bound1", "upper_bound1", "lower_bound2", "upper_bound2")

    def check(self, data, a):
        """DPpack's order: the vectors, the bounds (upper.bound1, lower.bound1, upper.bound2,
        lower.bound2) and the data through their backend, which.sensitivity, mechanism, the
        mechanism's checks of the budget."""
        bounds = (a["lower_bound1"], a["upper_bound1"], a["lower_bound2"], a["upper_bound2"])
        if data is None:
            b = _checks.check_bounds(("upper.bound1", bounds[1]), ("lower.bound1", bounds[0]),
                                     ("upper.bound2", bounds[3]), ("lower.bound2", bounds[2]))
            pair = None
            bounds = (b["lower.bound1"], b["upper.bound1"], b["lower.bound2"], b["upper.bound2"])
        else:
            x1, x2 = data
            pair, bounds = _backends.backend_for(x1, x2).pair(
                x1, x2, bounds, a["which_sensitivity"], minimum_size(a["which_sensitivity"], 2))
        check_release(a["which_sensitivity"], a["mechanism"], a["eps"], a["delta"],
                      a["type_DP"])
        return bounds, pair

    def sensitivity(self, n, bounds):
        return _access_cores.cov_exact(n, 0, 0, 0, bounds)["Sensitivity"]

    def centred(self, n, bounds):
        return _access_cores.centred_cross_exact(n, 0, 0, 0, bounds)

    def spread(self, a):
        return ((float(a["upper_bound1"]) - float(a["lower_bound1"]))
                * (float(a["upper_bound2"]) - float(a["lower_bound2"])))

    def bounded(self, pair, bounds, eps, mechanism, delta, type_DP):
        access = pair.cov_exact()
        return lambda rng, loss: release_exact([access["True.Values"]], eps,
                                               access["Sensitivity"], mechanism, delta,
                                               type_DP, rng)[0]

    def unbounded(self, pair, bounds, eps, mechanism, delta, type_DP):
        access = pair.centred_cross_exact()
        prepared = exact_statistics(access)
        lower1, upper1, lower2, upper2 = bounds
        spread = (upper1 - lower1) * (upper2 - lower2)

        def draw(rng, loss):
            total1, total2, products, count = noisy_exact_statistics(
                prepared, eps, mechanism, delta, type_DP, rng)
            count = noisy_count(count)
            top = max_squares(count, spread) / (count - 1)
            return clamp((products - total1 * total2 / count) / (count - 1), -top, top)

        return draw


MEAN = register(_Mean())
VAR = register(_Variance("varDP"))
SD = register(_Variance("sdDP", "sqrt"))
COV = register(_Covariance())
