"""DPpack 0.2.2's private descriptive statistics: meanDP ... medianDP.

Every function runs four steps: input checks and clipping, the
data-access call (:mod:`dppack.data_access`: true value and sensitivities), the privacy layer
(a mechanism of :mod:`dppack.mechanisms`), and post-processing. DPpack's checks keep DPpack's
order and message texts; our own checks (finite bounds with lower < upper, numeric, non-empty,
finite data, equal lengths) come right after the bound-length checks. Every error is raised
before any random number is drawn.

Empty data: a release that claims add/remove ('unbounded') privacy never refuses data for its
size, since [] and [x] are neighbours and an error on one with a release on the other would
tell them apart with certainty. With which_sensitivity='unbounded' every function here
releases on empty data (and on one record) with the same output shape as on any other data:
the centred sums are 0 and the count 0, noised as always, then post-processed (the count
floored at 1, the result clamped to its range); an empty histogram or table releases its noisy
zero counts; an empty quantile is drawn by the exponential mechanism over the bounds. The
refusals of too few values ("x must contain at least one value", "at least two values") apply
to 'bounded' and 'both' only: under bounded (replace-one) DP, the privacy 'both' is meant for,
neighbours have the same n, so a refusal that depends on n alone tells no neighbours apart
(tests/privacy/test_audit_exact_empty.py checks both rules).

Accounting: every function takes a trailing ``accountant`` and charges it once for
the whole call (``accounting.charge`` as its first statement: an overspend is refused before the
data are read; the loss is spent after the checks, before the first draw); the mechanisms it
calls are passed ``accounting.UNCHARGED``.

Randomness: each call turns ``random_state`` into one generator and draws everything from it,
bounded noise before unbounded noise. All noise is exact, on a power-of-two grid
(the mechanisms' discrete Laplace and discrete Gaussian; the exponential mechanism of
``_random``).

Dask: meanDP, varDP, sdDP, covDP, pooledVarDP, pooledCovDP, histogramDP and tableDP
take Dask arrays, Series and DataFrame columns (chunks of known or unknown size) where they
take data. One pass (one ``dask.compute``) reduces the data to sufficient statistics
(``dppack.dask.moments``): counts, ranges, clipped sums, moments, centred sums, bin or cell
counts; the in-memory formulas of :mod:`dppack.data_access` turn them into the true value and
its sensitivity, and the release goes on as in memory: the same checks and messages, the same
accountant charge, the same sampler calls, so the same ``random_state`` gives the same release
up to the order of floating-point sums. The checks that need a pass (size of unknown chunks,
finiteness) are raised after it, before the charge and any draw. A histogram whose rule needs
a private n (unbounded DP), or an n unknown before the pass, counts in a second pass.
"""

import fractions
import math
import numbers

import numpy as np

from . import (_checks, _frames, _messages, _quantile_fast, _random, accounting, data_access,
               rcompat)
from .accounting import PrivacyLoss
from .data_access import (
    check_mechanism,
    check_quant,
    check_samples,
    table_frame,
)
from .mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    check_budget,
    discrete_gaussian_parameters,
    discrete_gaussian_release,
    gaussian_sigma,
)

__all__ = [
    "covDP",
    "histogramDP",
    "meanDP",
    "medianDP",
    "pooledCovDP",
    "pooledVarDP",
    "quantileDP",
    "sdDP",
    "tableDP",
    "varDP",
]

WHICH = ("bounded", "unbounded", "both")
WHICH_MESSAGE = "which.sensitivity must be one of {'bounded', 'unbounded', 'both'}."
IDENTICAL_MESSAGE = (
    "Sensitivity based on bounded and unbounded differential privacy is identical for this "
    "statistic. Only one value will be returned."
)
EXPONENTIAL_MESSAGE = "Mechanism must be one of {'exponential'}."
# The statistics choose the analytic Gaussian mechanism with mechanism = 'analytic': their
# budget messages say so (GaussianMechanism's say "analytic is TRUE", an argument they lack).
MECHANISM_SWITCH = "mechanism is 'analytic'"
EQUIDISTANT_MESSAGE = "Only equidistant histogram bins are supported."


# --------------------------------------------------------------------------------------------
# Shared steps
# --------------------------------------------------------------------------------------------


def _check_which(which_sensitivity, identical=False, stacklevel=3):
    """DPpack's which.sensitivity check; for a statistic whose two sensitivities are equal,
    'both' warns that one value will be returned. ``stacklevel`` makes the
    warning point at the user's call."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH, WHICH_MESSAGE)
    if identical and which_sensitivity == "both":
        _messages.warn(IDENTICAL_MESSAGE, UserWarning, stacklevel=stacklevel)


def _min_size(which_sensitivity, bounded_min):
    """The smallest sample size a statistic accepts: ``bounded_min`` (1, or 2 for a sample
    variance) where n is public ('bounded', and 'both', whose bounded release uses it), 0
    under 'unbounded' exactly. Under add/remove neighbours n is private, and refusing a
    dataset of 1 record while releasing its neighbour of 2 would be a release that depends
    on the data; the unbounded releases floor their noisy count (at 1 for the mean, 2
    otherwise) and clamp, so they need no record. A which_sensitivity that is not valid gets
    ``bounded_min`` here and its own error later, in DPpack's order."""
    return 0 if _checks.is_one_of(which_sensitivity, ("unbounded",)) else bounded_min


def _needs_clip(low, high, lower, upper):
    """Whether data of range [low, high] reach outside [lower, upper]."""
    return low < lower or high > upper


def _clip(x, low, high, lower, upper):
    """x clipped to [lower, upper]; x itself (no copy) when its range [low, high] is inside.

    (meanDP and varDP do not materialise the clipped data: their data-access cores clip
    block by block.)
    """
    if _needs_clip(low, high, lower, upper):
        return np.clip(x, lower, upper)
    return x


def _noisy(true_values, eps, sensitivity, mechanism, delta, type_DP, rng):
    """The privacy layer of DPpack 0.2.2: one call of the requested mechanism.

    Laplace consumes the sensitivity as an l1 norm, the Gaussian mechanisms as an l2 norm; a
    scalar sensitivity gives every coordinate the same noise scale. For
    'analytic', ``type_DP`` is ignored, as in DPpack.
    """
    # The statistic charged its accountant for the whole release: the mechanism charges none.
    if mechanism == "Laplace":
        return LaplaceMechanism(true_values, eps, sensitivity, random_state=rng,
                                accountant=accounting.UNCHARGED)
    if mechanism == "Gaussian":
        return GaussianMechanism(
            true_values, eps, delta, sensitivity, type_DP=type_DP, random_state=rng,
            accountant=accounting.UNCHARGED,
        )
    return GaussianMechanism(true_values, eps, delta, sensitivity, analytic=True,
                             random_state=rng, accountant=accounting.UNCHARGED)


def _count_noise(eps, sensitivity, mechanism, delta, type_DP, changed):
    """The exact integer noise of a release of counts (histogram cells, table cells, a noisy
    n) in which one record changes at most ``changed`` cells by 1 each (2 bounded, 1
    unbounded).

    Returns ``(noise, k, tail)``: ``noise(counts, rng)`` draws the noisy counts c + Z, integers
    (as floats, the shape of ``counts``), on the grid g = 2^k with k = 0, and ``tail(m)`` =
    P[Z >= m] exactly (floating point).

    The counts are integers, so they need no rounding and the noise is drawn on the
    integers directly: the geometric mechanism (Ghosh, Roughgarden and Sundararajan 2009,
    "Universally utility-maximizing privacy mechanisms", STOC, Section 2; the discrete
    Laplace of Canonne, Kamath and Steinke 2020, "The discrete Gaussian for differential
    privacy", NeurIPS, Section 1). Laplace: the vector of counts has integer L1 sensitivity
    Delta (DPpack's 2 bounded, 1 unbounded), and Z with P(Z = z) proportional to
    exp(-|z| eps' / Delta), eps' <= eps (``_random.laplace_grid`` with no rounding step:
    ``coordinates=0, grid=0``; eps' is eps rounded down by a relative 2^-20 at most), added
    to every cell is eps-DP: the ratio of the probabilities of any output is at most
    exp(eps' ||c - c'||_1 / Delta). Gaussian and analytic: DPpack's sigma (with s = Delta, the
    L2 sensitivity sqrt(2) bounded, 1 unbounded) is the start of
    ``mechanisms.discrete_gaussian_parameters`` with ``integers=True``: the discrete Gaussian
    N_Z(0, s^2) on the integers, s^2 >= sigma^2 the smallest multiple of 2^-10 (below
    2^10; an integer above) that meets (eps, delta) (or pDP) for the integer change: CKS
    Theorem 7 for one changed cell (D = 1, unbounded), the zCDP bound of CKS Theorem 4 with
    ||c - c'||_2 = sqrt(2) converted by CKS Corollary 13 for two (bounded). Only ``changed``
    cells differ between neighbours whatever the number of cells, so the number of cells
    does not enter the noise (the thresholded table's observed cells are private).
    """
    if mechanism == "Laplace":
        _, _, t, s = _random.laplace_grid(sensitivity, eps, 0, grid=0)

        def laplace(counts, rng):
            return _random.discrete_laplace_noise(counts, sensitivity, eps, rng,
                                                  coordinates=0, grid=0)

        return laplace, 0, lambda m: _random.discrete_laplace_tail(m, t, s)
    analytic = mechanism == "analytic"
    # 'analytic' ignores type_DP (DPpack's statistics and DPpack's manual)
    kind = "aDP" if analytic else type_DP
    sigma = gaussian_sigma(eps, delta, sensitivity, kind, analytic)
    guarantee = dict(eps=eps, delta=delta, type_DP=kind, coordinates=changed, integers=True)
    k, sigma2 = discrete_gaussian_parameters(sigma, sensitivity, **guarantee)

    def gaussian(counts, rng):
        return discrete_gaussian_release(counts, sigma, sensitivity, rng, **guarantee)

    return gaussian, k, lambda m: _random.discrete_gaussian_tail(m, sigma2)


def count_noise_laws(eps, mechanism="Laplace", delta=0, type_DP="aDP",
                     which_sensitivity="bounded", rule=False):
    """The law of the noise of each cell of :func:`histogramDP` and :func:`tableDP` (declared
    levels), for accuracy reports (``dppack.accuracy``); no data, no draw.

    Returns ``{label: (k, tail)}`` for the versions released, bounded first: the noisy cell
    is c + g Z, g = 2^k (k = 0: integer noise on the integer counts, see
    :func:`_count_noise`), and ``tail(m)`` = P[Z >= m], from :func:`_count_noise`
    with the sensitivities and changed cells the releases use (2 bounded, 1 unbounded), and
    for histogramDP's unbounded release with a rule for the breaks (``rule``), the share of
    the budget left after the noisy n. The arguments must have been checked.
    """
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)
    laws = {}
    for label, sensitivity in _versions(which_sensitivity, bounded, unbounded):
        eps_counts, delta_counts, changed = eps, delta, 2
        if label == "Unbounded":
            changed = 1
            if rule:
                (_, (eps_counts, delta_counts)) = _split_budget(eps, delta, _N_SHARE,
                                                                mechanism, type_DP)
        _, k, tail = _count_noise(eps_counts, sensitivity, mechanism, delta_counts, type_DP,
                                  changed)
        laws[label] = (k, tail)
    return laws


def _noisy_counts(counts, eps, sensitivity, mechanism, delta, type_DP, rng, changed):
    """``counts`` with the exact integer noise of :func:`_count_noise` (float array of
    integers, same shape)."""
    noise = _count_noise(eps, sensitivity, mechanism, delta, type_DP, changed)[0]
    return noise(np.asarray(counts, dtype=np.float64), rng)


MECHANISMS = ("Laplace", "Gaussian", "analytic")
BOTH_VACUOUS_MESSAGE = (
    "which.sensitivity = 'both' spends (3 eps, (2 + exp(eps)) delta) under bounded DP, which "
    "is no guarantee here (a total delta of 1 or more); release one sensitivity at a time."
)


def release_loss(eps, delta, mechanism, which_sensitivity, approximate=False):
    """The PrivacyLoss of one call of a statistic, from its arguments alone.

    One release: pure eps for the Laplace mechanism, (eps, delta) for the Gaussian ones
    (pDP implies (eps, delta)-DP; Liu 2019) and for a thresholded release
    (``approximate``, :func:`tableDP`). 'both' releases the bounded and the unbounded
    version of the statistic; under bounded DP (the only model where the pair is private) a
    replacement is a removal and an addition, so the unbounded release costs
    (2 eps, (1 + e^eps) delta) by group privacy (Dwork and Roth 2014, Theorem 2.2 and its
    (eps, delta) form), and the pair (3 eps, (2 + e^eps) delta) by basic composition
    (Theorem 3.16). Raises ValueError for arguments the statistic refuses (its own checks
    then give DPpack's message) and for a 'both' whose total delta is 1 or more.
    """
    if not (_checks.is_one_of(which_sensitivity, WHICH)
            and _checks.is_one_of(mechanism, MECHANISMS)):
        # left to the statistic's checks
        raise _messages.value_error("not a statistic's arguments")
    if mechanism == "Laplace" and not approximate:
        one = PrivacyLoss.pure(eps)
    else:
        one = PrivacyLoss.approx(eps, delta)
    if which_sensitivity != "both":
        return one
    try:
        pair = accounting.group_loss(one, 2)
    except ValueError:
        pair = None
    if pair is None or (one.delta and one.delta + pair.delta >= 1.0):
        raise _messages.value_error(BOTH_VACUOUS_MESSAGE)
    return PrivacyLoss.compose(one, pair)


def _charge(accountant, label, eps, delta, mechanism, which_sensitivity, approximate=False):
    """``accounting.charge`` for a statistic (its loss from :func:`release_loss`): an overspend is
    refused here, before the data are read."""
    return accounting.charge(
        accountant, lambda: release_loss(eps, delta, mechanism, which_sensitivity, approximate),
        label
    )


def _check_whole_budget(eps, mechanism, delta, type_DP):
    """The checks the mechanism makes of (eps, delta), with its messages, made once before a
    release that may call it more than once ('both'), so that a bad budget fails before the
    first draw. 'analytic' ignores ``type_DP``."""
    if mechanism == "Laplace":
        check_budget(eps)
    else:
        analytic = mechanism == "analytic"
        check_budget(eps, delta, "aDP" if analytic else type_DP, analytic=analytic,
                     switch=MECHANISM_SWITCH)


def _check_release(which_sensitivity, mechanism, eps, delta, type_DP):
    """DPpack's last checks of an additive-noise statistic, in its order:
    which.sensitivity, mechanism, then the mechanism's checks of (eps, delta)."""
    _check_which(which_sensitivity)
    check_mechanism(mechanism)
    _check_whole_budget(eps, mechanism, delta, type_DP)


def _sample_bounds(upper_bound, lower_bound):
    """(lower, upper) of a one-sample statistic: DPpack's length checks (upper.bound
    first), then ours (finite numbers, lower < upper)."""
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    return bounds["lower.bound"], bounds["upper.bound"]


def _summed_sample(x, lower, upper, which_sensitivity, bounded_min):
    """(x, total, clip): the checked data (numeric, finite, at least :func:`_min_size`
    values), the sum of the data clipped to [lower, upper], found by the same scan as their
    range, and whether any value lies outside the bounds."""
    minimum = _min_size(which_sensitivity, bounded_min)
    x, low, high, total = _checks.as_finite_data(x, "x", minimum, with_sum=True,
                                                 clip=(lower, upper))
    return x, total, _needs_clip(low, high, lower, upper)


class _MemorySample:
    """The data of meanDP/varDP in memory, as the statistics read them (the same methods as
    :class:`dppack.dask.moments.Moments`, so that one release serves both paths)."""

    def __init__(self, x, lower, upper, which_sensitivity, bounded_min):
        self.x, self.total, self.clip = _summed_sample(x, lower, upper, which_sensitivity,
                                                       bounded_min)
        self.lower, self.upper = lower, upper

    def size(self):
        return self.x.size

    def mean_access(self):
        return data_access.mean_access(self.x, self.lower, self.upper, clip=self.clip,
                                       total=self.total)

    def var_access(self):
        return data_access.var_access(self.x, self.lower, self.upper, clip=self.clip,
                                      total=self.total)

    def centred_moments(self, squares=True):
        return data_access.centred_moments(self.x, self.lower, self.upper, clip=self.clip,
                                           squares=squares)


class _MemoryPair:
    """x1 and x2 of covDP in memory, checked and clipped, as covDP reads them (the methods of
    :class:`dppack.dask.moments.Pair`)."""

    def __init__(self, x1, x2, bounds):
        self.x1, self.x2, self.bounds = x1, x2, bounds

    def cov_access(self):
        return data_access.cov_access(self.x1, self.x2, *self.bounds)

    def centred_cross_moments(self):
        return data_access.centred_cross_moments(self.x1, self.x2, *self.bounds)


def _moment_source(x, lower, upper, which_sensitivity, bounded_min):
    """The data of meanDP (``bounded_min`` 1) or varDP/sdDP (2), checked as far as they can be
    without reading them: in memory (:class:`_MemorySample`: all the data checks, and the
    clipped sum from the range scan), or on Dask (the dtype and, for known chunks, the size;
    the one pass, with the other checks, when the release first asks for a statistic:
    ``dppack.dask.moments``)."""
    if not _frames.is_dask(x):
        return _MemorySample(x, lower, upper, which_sensitivity, bounded_min)
    from .dask import moments  # noqa: PLC0415 - Dask only when Dask data come

    return moments.Sample(x, "x", lower, upper, which_sensitivity,
                          _min_size(which_sensitivity, bounded_min), variance=bounded_min == 2)


def _clamp(value, low, high):
    """``value`` clamped to [low, high]: post-processing of a single noisy draw (Dwork and
    Roth 2014, Proposition 2.1), in place of DPpack's redraws."""
    return float(min(max(value, low), high))


def max_squares(count, spread):
    """The largest sum of squared deviations from their mean of ``count`` values in an
    interval of squared width ``spread``: half of the values at each end,
    spread floor(n/2) ceil(n/2)/n. Divided by n - 1 it is the largest sample variance,
    spread n/(4(n - 1)) for even n and spread (n + 1)/(4n) for odd n. For a count that is
    not an integer (a noisy count) the larger spread n/4. With spread = (U1 - L1)(U2 - L2)
    it bounds the absolute sum of cross-products of two variables (Cauchy-Schwarz)."""
    if float(count).is_integer():
        half = count // 2
        return spread * half * (count - half) / count
    return spread * count / 4


def _unit_statistics(access):
    """Prepare the release of the sufficient statistics of :func:`data_access.centred_moments`
    or :func:`data_access.centred_cross_moments` (one sample's vector, or the rows of J
    samples): each divided by its add/remove sensitivity, so that adding or removing one
    record moves each of its k coordinates (in one row: the samples are disjoint) by at most
    1. Before any draw, refuse what floating point cannot scale."""
    values = np.asarray(access["True.Values"], dtype=np.float64)
    sensitivities = check_unit_sensitivities(access["Sensitivities"])
    with np.errstate(all="ignore"):  # refused below
        unit = values / sensitivities
    if not np.all(np.isfinite(unit)):
        raise _messages.value_error(_UNIT_SCALE_MESSAGE)
    return unit, sensitivities


_UNIT_SCALE_MESSAGE = ("The bounds are too close together or too far apart for the "
                       "sufficient statistics of unbounded DP in floating point.")


def check_unit_sensitivities(sensitivities):
    """The add/remove sensitivities of the sufficient statistics (``data_access``'s
    ``centred_from_sums`` and ``centred_cross_from_sums``), refused when floating point
    cannot scale by them (not finite, or 0: bounds too far apart or too close together).
    From the bounds only: the accuracy reports make the same check."""
    if not (np.all(np.isfinite(sensitivities)) and np.all(sensitivities > 0)):
        raise _messages.value_error(_UNIT_SCALE_MESSAGE)
    return sensitivities


def unit_sensitivity(k, mechanism):
    """The sensitivity of k sufficient statistics scaled to add/remove sensitivity 1 each,
    as :func:`_noisy_statistics` releases them: l1 norm k (Laplace), l2 norm sqrt(k)
    (Gaussian, analytic)."""
    return float(k) if mechanism == "Laplace" else math.sqrt(k)


def _noisy_statistics(prepared, eps, mechanism, delta, type_DP, rng):
    """Release the sufficient statistics prepared by :func:`_unit_statistics` with one call
    of the mechanism, and return them noisy in their own units (same shape).

    After the scaling, one record moves k coordinates by at most 1 each: l1 sensitivity k and
    l2 sensitivity sqrt(k). Laplace: scale k/eps on every scaled coordinate, that is
    k Delta_i/eps on statistic i, the basic composition of k Laplace mechanisms with eps/k
    each (Dwork and Roth 2014, Theorems 3.6 and 3.16). Gaussian: one release of the vector
    with l2 sensitivity sqrt(k) and the whole (eps, delta) (Dwork and Roth 2014, Theorem
    A.1; Liu 2019 for pDP; Balle and Wang 2018 for 'analytic'), a sigma sqrt(k) times the
    single statistic's where splitting (eps, delta) k ways costs more than k times. With J
    samples a record belongs to one of them and moves one row only, so the vector of all rows
    has the same l1 and l2 sensitivities (the samples compose in parallel).
    """
    unit, sensitivities = prepared
    sensitivity = unit_sensitivity(sensitivities.size, mechanism)
    noisy = _noisy(unit.reshape(-1), eps, sensitivity, mechanism, delta, type_DP, rng)
    return np.asarray(noisy, dtype=np.float64).reshape(unit.shape) * sensitivities


def _noisy_count(count):
    """A noisy count floored at 2, the smallest size with a sample variance (each sample has
    at least two values; the floor also keeps n - 1 away from 0). Post-processing."""
    return max(float(count), 2.0)


def _versions(which_sensitivity, bounded, unbounded):
    """The (label, sensitivity) pairs to release, bounded first."""
    if which_sensitivity == "bounded":
        return [("Bounded", bounded)]
    if which_sensitivity == "unbounded":
        return [("Unbounded", unbounded)]
    return [("Bounded", bounded), ("Unbounded", unbounded)]


def _release(versions, release):
    """One result, or DPpack's 'both' list as a dict {"Bounded": ..., "Unbounded": ...}."""
    results = {label: release(sensitivity) for label, sensitivity in versions}
    if len(results) == 1:
        return next(iter(results.values()))
    return results


def _draw_versions(which_sensitivity, bounded, unbounded, random_state, bill):
    """Prepare the requested versions, then draw them from one generator, bounded first
    (as DPpack 0.2.2 does): one value, or for 'both' ``{"Bounded": ..., "Unbounded": ...}``.

    ``bounded`` and ``unbounded`` take no argument: each reads the data and makes its checks,
    and returns a function of the generator that draws. All are prepared before the first
    draw, so whatever can fail fails before any noise is drawn; then the accountant's charge
    ``bill`` is spent, and the noise drawn.
    """
    versions = _versions(which_sensitivity, bounded, unbounded)
    prepared = [(label, prepare()) for label, prepare in versions]
    rng = _random.as_generator(random_state)
    bill.spend()
    return _release(prepared, lambda draw: draw(rng))


# --------------------------------------------------------------------------------------------
# Mean, variance, standard deviation, covariance
# --------------------------------------------------------------------------------------------


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
        is public there); 'unbounded' releases on them (see the module's note). An overspend of the accountant, before the data are read.

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
    bill = _charge(accountant, "meanDP", eps, delta, mechanism, which_sensitivity)
    lower, upper = _sample_bounds(upper_bound, lower_bound)
    # The range scan also sums the data clipped to the bounds: n times the true mean.
    source = _moment_source(x, lower, upper, which_sensitivity, 1)
    _check_release(which_sensitivity, mechanism, eps, delta, type_DP)

    def bounded():
        # DPpack's meanDP: the mean of the clipped data, Delta = (U - L)/n (n public).
        access = source.mean_access()
        # DPpack's statistics: Laplace scale Delta/eps; Gaussian sigma of DPpack's
        # GaussianMechanism with s = Delta.
        return lambda rng: _noisy(access["True.Values"], eps, access["Sensitivity"], mechanism,
                                  delta, type_DP, rng)

    def unbounded():
        # Add/remove neighbours (n private): the centred sum and the count, sensitivities
        # (U - L)/2 and 1; n itself is never used.
        access = source.centred_moments(squares=False)
        prepared = _unit_statistics(access)

        def draw(rng):
            total_, count = _noisy_statistics(prepared, eps, mechanism, delta, type_DP, rng)
            # Post-processing: the noisy sum over the noisy count, within the bounds.
            return _clamp(access["Centre"] + total_ / max(count, 1.0), lower, upper)

        return draw

    return _draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)


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
    bill = _charge(accountant, "varDP", eps, delta, mechanism, which_sensitivity)
    return _var_dp(x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta,
                   type_DP, random_state, bill)


def _var_dp(x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta, type_DP,
            random_state, bill):
    _checks.check_vector(x, "x")
    lower, upper = _sample_bounds(upper_bound, lower_bound)
    source = _moment_source(x, lower, upper, which_sensitivity, 2)
    _check_release(which_sensitivity, mechanism, eps, delta, type_DP)
    spread = (upper - lower) * (upper - lower)  # Inf, not OverflowError, beyond 1e308

    def bounded():
        # DPpack's varDP: the variance of the clipped data, Delta = (U - L)^2/n (n public).
        access = source.var_access()
        top = max_squares(source.size(), spread) / (source.size() - 1)

        def draw(rng):
            # DPpack's statistics: Laplace scale Delta/eps; Gaussian sigma of DPpack's
            # GaussianMechanism with s = Delta.
            noisy = _noisy(access["True.Values"], eps, access["Sensitivity"], mechanism, delta,
                           type_DP, rng)
            return _clamp(noisy, 0.0, top)  # one draw, clamped: not DPpack's varDP's redraws

        return draw

    def unbounded():
        # Add/remove neighbours (n private): centred sum, sum of squares and count,
        # sensitivities h, h^2 and 1; n itself is never used.
        access = source.centred_moments()
        prepared = _unit_statistics(access)

        def draw(rng):
            total_, squares, count = _noisy_statistics(prepared, eps, mechanism, delta,
                                                       type_DP, rng)
            count = _noisy_count(count)
            variance = (squares - total_ * total_ / count) / (count - 1)
            return _clamp(variance, 0.0, max_squares(count, spread) / (count - 1))

        return draw

    return _draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)


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
    bill = _charge(accountant, "sdDP", eps, delta, mechanism, which_sensitivity)
    variance = _var_dp(x, eps, lower_bound, upper_bound, which_sensitivity, mechanism, delta,
                       type_DP, random_state, bill)
    if isinstance(variance, dict):
        return {label: math.sqrt(value) for label, value in variance.items()}
    return math.sqrt(variance)


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
    bill = _charge(accountant, "covDP", eps, delta, mechanism, which_sensitivity)
    bounds = (lower_bound1, upper_bound1, lower_bound2, upper_bound2)
    if _frames.is_dask(x1) or _frames.is_dask(x2):
        from .dask import moments  # noqa: PLC0415 - Dask only when Dask data come

        bounds = data_access.cov_bounds(x1, x2, *bounds)
        pair = moments.Pair(x1, x2, bounds, which_sensitivity, _min_size(which_sensitivity, 2))
    else:
        first, second, bounds = data_access.cov_inputs(
            x1, x2, *bounds, min_size=_min_size(which_sensitivity, 2),
        )
        pair = _MemoryPair(_clip(*first, *bounds[:2]), _clip(*second, *bounds[2:]), bounds)
    lower1, upper1, lower2, upper2 = bounds
    _check_release(which_sensitivity, mechanism, eps, delta, type_DP)

    def bounded():
        # DPpack's covDP: Delta = (U1 - L1)(U2 - L2)/n (n public).
        access = pair.cov_access()
        # DPpack's statistics: Laplace scale Delta/eps; Gaussian sigma of DPpack's
        # GaussianMechanism with s = Delta.
        return lambda rng: _noisy(access["True.Values"], eps, access["Sensitivity"], mechanism,
                                  delta, type_DP, rng)

    def unbounded():
        # Add/remove neighbours (n private): centred sums, sum of products and count,
        # sensitivities h1, h2, h1 h2 and 1; n itself is never used.
        access = pair.centred_cross_moments()
        prepared = _unit_statistics(access)
        spread = (upper1 - lower1) * (upper2 - lower2)

        def draw(rng):
            total1, total2, products, count = _noisy_statistics(prepared, eps, mechanism,
                                                                delta, type_DP, rng)
            count = _noisy_count(count)
            top = max_squares(count, spread) / (count - 1)
            return _clamp((products - total1 * total2 / count) / (count - 1), -top, top)

        return draw

    return _draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)


# --------------------------------------------------------------------------------------------
# Histogram and contingency table
# --------------------------------------------------------------------------------------------


def histogram_breaks(kind, value, lower, upper, n=None, stacklevel=3):
    """histogramDP's breaks and mids from public values only (never from the data): given points
    or a number of cells (``rcompat.parse_breaks``'s kinds 'points' and 'cells'), extended to
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
    cells = rcompat.check_cells(_rule_cells(value, n), stacklevel=stacklevel)
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
    integers already (integer noise, :func:`_count_noise`), where DPpack rounds its
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
    _check_whole_budget(eps, mechanism, delta, type_DP)
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
    xname = rcompat.xname_of(x)  # the title's name: the Series' or column's (not read)
    bill = _charge(accountant, "histogramDP", eps, delta, mechanism, which_sensitivity)
    lower, upper = _sample_bounds(upper_bound, lower_bound)
    on_dask = _frames.is_dask(x)
    if on_dask:  # the checks without a pass here; the pass and the others before the charge
        from .dask import moments  # noqa: PLC0415 - Dask only when Dask data come

        moments.check_sample(x, "x", _min_size(which_sensitivity, 1))
    else:
        x, low, high = _checks.as_finite_data(x, "x", _min_size(which_sensitivity, 1))
    normalize = _checks.check_flag(normalize, "normalize")
    allow_negative = _checks.check_flag(allow_negative, "allow.negative")
    if not on_dask:
        x = _clip(x, low, high, lower, upper)
    _check_which(which_sensitivity)
    check_mechanism(mechanism)

    # DPpack's histogramDP steps 2-4 with public breaks: from the bounds, never from the data.
    kind, value = rcompat.parse_breaks(breaks, np.array([lower, upper]), stacklevel=3)
    if kind == "points" and not rcompat.is_equidistant(value):  # DPpack's histogramDP step 3
        raise _messages.value_error(EQUIDISTANT_MESSAGE)
    fixed = histogram_breaks(kind, value, lower, upper)  # None for a rule: k from n, below
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)
    versions = _versions(which_sensitivity, (bounded, False), (unbounded, True))
    if fixed is None and which_sensitivity != "bounded":
        shares = _split_budget(eps, delta, _N_SHARE, mechanism, type_DP)
    # The mechanism's checks of (eps, delta), last as in DPpack, and before the charge.
    _check_whole_budget(eps, mechanism, delta, type_DP)
    rules = {}

    def rule_breaks(n, stacklevel):
        """The breaks and mids of the rule for n values (each n once: one warning)."""
        if n not in rules:
            rules[n] = histogram_breaks(kind, value, lower, upper, n, stacklevel + 1)
        return rules[n]

    def fuzz(breaks_):
        # The fuzz depends on the breaks only; R's uses the data's range for <= 3 breaks.
        return rcompat.fuzz(breaks_, breaks_[-1] - breaks_[0])

    if on_dask:
        # One pass: n, the checks, and the counts of the breaks known before it (given
        # breaks, or the rule's for the public n of known chunks); see histogramDP's Notes.
        source = moments.Histogram(x, lower, upper)
        known = [fixed] if fixed is not None else []
        if fixed is None and which_sensitivity != "unbounded" and source.size is not None:
            known = [rule_breaks(source.size, 4)]
        source.run("x", _min_size(which_sensitivity, 1),
                   [(breaks_, fuzz(breaks_)) for breaks_, _ in known])
        size, count = source.size, source.counts
    else:
        values = x.reshape(-1)
        xmin, xmax = float(np.clip(low, lower, upper)), float(np.clip(high, lower, upper))
        size = values.size

        def count(breaks_, diddle):
            return rcompat.cell_counts(values, breaks_, diddle, xmin, xmax)

    rng = _random.as_generator(random_state)
    loss = bill.spend()

    def release(sensitivity, n_private):
        eps_counts, delta_counts = eps, delta
        if fixed is not None:
            breaks_, mids = fixed
        else:
            n = size
            if n_private:
                # Adding or removing one record changes n by 1 (l1 and l2 sensitivity 1).
                (eps_n, delta_n), (eps_counts, delta_counts) = shares
                # An integer noisy n (one count, :func:`_count_noise`); at least 1, at most
                # 2^62 (also for an infinite draw, eps ~ 1e-320).
                noisy_n = float(_noisy_counts(np.array([float(n)]), eps_n, 1.0, mechanism,
                                              delta_n, type_DP, rng, 1)[0])
                n = max(1, int(max(noisy_n, 0.0))) if noisy_n < 2.0**62 else 2**62
            breaks_, mids = rule_breaks(n, 5)  # the warnings at the user's line
        counts = count(breaks_, fuzz(breaks_)).astype(np.float64)
        # DPpack's histogramDP step 5: the scalar Delta for every bin (Laplace scale Delta/eps;
        # Gaussian sigma of DPpack's GaussianMechanism with s = Delta); one record changes 2 cells
        # (bounded) or 1 (unbounded).
        noisy = _noisy_counts(counts, eps_counts, sensitivity, mechanism, delta_counts,
                              type_DP, rng, 1 if n_private else 2)
        result = rcompat.Histogram(
            breaks=breaks_.copy(),
            counts=_post_histogram(noisy, normalize, allow_negative),
            mids=mids.copy(),
            xname=xname,
            equidist=True,
        )
        result.privacy_ = loss  # the release's PrivacyLoss (the pair's for 'both')
        return result

    results = []  # a loop, not a comprehension: the warnings' stacklevel counts frames
    for label, (sensitivity, n_private) in versions:  # bounded noise first (DPpack's statistics)
        results.append((label, release(sensitivity, n_private)))
    return _release(results, lambda result: result)


UNDECLARED_MESSAGE = (
    "The levels of data that are not a factor come from the data, so a record with a new "
    "category would add a cell. Declare the levels (an R factor; in Python a pandas."
    "Categorical) or give delta > 0 for the thresholded release of the observed cells."
)


def check_table_budget(eps, delta, mechanism, type_DP, declared):
    """eps and delta of tableDP, checked before the data are tabulated (the mechanism's
    messages, and ours for the thresholded release); also the checks of its accuracy report
    (``dppack.accuracy``). Returns (eps, delta); delta is None for a pure release."""
    if mechanism != "Laplace":
        return check_budget(eps, delta, type_DP, analytic=mechanism == "analytic",
                            switch=MECHANISM_SWITCH)
    eps, _ = check_budget(eps)
    if declared:
        return eps, None  # delta unused, as in DPpack
    if isinstance(delta, numbers.Real) and not isinstance(delta, bool) and delta == 0:
        raise _messages.value_error(UNDECLARED_MESSAGE)
    return eps, _checks.check_probability(delta, "delta")


def table_threshold_law(mechanism, eps, delta, type_DP, bounded, sensitivity):
    """The noise and the threshold of the thresholded table release (unknown domain).

    Returns ``(noise, k, tail, threshold)``: ``noise(counts, rng)`` draws the noisy counts of
    the observed cells, exactly as released, c + Z with integer noise Z on the grid g = 2^k,
    k = 0 (discrete Laplace or discrete Gaussian, :func:`_count_noise`; only a discrete
    Gaussian of sigma >= 2^14 takes a grid g >= 2, where the release is g (round(c / g) + Z),
    still integers), ``tail(m)`` = P[Z >= m] exactly (floating
    point), and an observed cell is released only if its noisy count exceeds the threshold
    tau. :func:`tableDP` (through :func:`thresholded_table_laws`) and the accuracy report
    (``dppack.accuracy``) call it, after the checks of (eps, delta).

    Derivation (the argument of Korolova, Kenthapadi, Mishra and Ntoulas 2009, "Releasing
    search queries and clicks privately", and of Wilson, Zhang, Lam, Desfontaines,
    Simmons-Marengo and Gipson 2020, "Differentially private SQL with bounded user
    contribution", Section 3, here for one record that touches at most two cells). Let C be
    the cells observed in both neighbours D and D', A those observed in D only, B those in D'
    only; a cell of A or B has count 1 where it exists. Let p bound the probability that a
    count-1 cell is released, p >= P(noisy count of 1 > tau), and let y = P[M(D') in S] for
    a set S of outputs. An unreleased cell and an unobserved one look alike, and the noise of
    B is independent of C's, so with R_C the release restricted to C:
        P[M(D) in S] <= P[R_C(D) in S] + p|A|,
        P[R_C(D') in S] <= y + p|B|   and   P[R_C(D') in S] <= y / (1 - p|B|).
    R_C is the noisy count vector of C, thresholded (post-processing), so
    P[R_C(D) in S] <= e^eps_C P[R_C(D') in S] + delta_C, where (eps_C, delta_C) is the
    guarantee of the noise for the change of C's counts.

    Bounded neighbours (one record changes cell): (i) |A| = |B| = 1, C unchanged: y + 2p;
    (ii) |A| = 1, B empty, one cell of C changes by 1: e^eps_C y + delta_C + p; (iii) A
    empty, |B| = 1, one cell of C changes by 1: e^eps_C (y + p) + delta_C, or
    e^eps_C y / (1 - p) + delta_C; (iv) A, B empty, two cells of C change by 1: the noise's
    full guarantee. Unbounded neighbours (one record added or removed): either one cell of C
    changes by 1 (the noise's guarantee), or C is unchanged and one cell is in A or B: y + p.

    The noise is drawn for a public number of changed cells (2 bounded, 1 unbounded), not
    for the number of observed cells, which depends on the data; the counts of the other
    cells are equal in D and D'. The counts are integers: the noise is integer noise added
    to them, with no rounding (the geometric mechanism of Ghosh, Roughgarden and
    Sundararajan 2009; Canonne, Kamath and Steinke 2020).

    * Laplace (DPpack 0.2.2 sensitivity: 2 bounded, 1 unbounded), pure (delta_C = 0):
      ``_random.discrete_laplace_noise`` (``coordinates=0, grid=0``) adds Z with P(z)
      proportional to exp(-|z| s / t), s / t = eps' / Delta <= eps / Delta, to the integer
      counts: eps-DP for their integer L1 sensitivity D = Delta. Bounded (D = 2): a change
      of one cell by 1 costs eps_C = eps' / 2 <= eps / 2; so (ii) needs p <= delta
      and (iii) needs e^(eps/2) / (1 - p) <= e^eps, i.e. p <= 1 - e^(-eps/2), or
      e^(eps/2) p <= delta; p = delta/2 meets (i) and (ii), and (iii) by the first condition
      when eps > 2 ln 2 (then 1 - e^(-eps/2) > 1/2), by the second otherwise. Unbounded:
      p = delta.
    * Gaussian (l2 sensitivity sqrt(2) bounded, 1 unbounded; a change of one cell
      by 1 is within it): DPpack's sigma for (eps, delta_noise), then the discrete Gaussian
      N_Z(0, s^2) on the integers that ``mechanisms.discrete_gaussian_parameters``
      (``integers=True``) finds to meet (eps, delta_noise) (or pDP) for that sensitivity and
      m = 2 or 1 changed cells (CKS Theorem 7 for one, Theorem 4 and Corollary 13 for two).
      Bounded:
      delta_noise = delta/2 and p = delta e^(-eps)/2, so that 2p, delta/2 + p and
      delta/2 + e^eps p are all <= delta. Unbounded: the two cases are exclusive, so
      delta_noise = delta and p = delta.

    The threshold, from the exact tail of the integer noise Z the release draws
    (``_random.discrete_laplace_tail``: P[Z >= m] = q^m / (1 + q), q = exp(-s / t), for
    m >= 1; ``_random.discrete_gaussian_tail``): with m* the smallest integer such that
    P[Z >= m*] <= p (with a relative margin of 1e-9 for the floating-point tails), a count
    of 1 has the noisy count 1 + Z, and tau = m*, so that 1 + Z > tau exactly when Z >= m*,
    of probability at most p. For the Laplace law m* = ceil((t / s) ln(1 / (p (1 + q)))),
    about b ln(1 / (2 p)) with b = Delta / eps: the continuous law's 1 + b ln(1 / (2p)) less
    about one. On a grid g >= 2 (a discrete Gaussian of sigma >= 2^14 only) a count of 1
    is V = round(1 / g) = 0 grid units, its noisy count g Z, and tau = g (m* - 1).
    """
    # see the derivation above
    if mechanism == "Laplace":
        delta_noise, p = None, (delta / 2 if bounded else delta)
    elif bounded:
        delta_noise, p = delta / 2, delta * math.exp(-eps) / 2
    else:
        delta_noise, p = delta, delta
    # C's counts: 2 cells change (bounded) or 1 (unbounded), whatever the observed cells
    noise, k, tail = _count_noise(eps, sensitivity, mechanism, delta_noise, type_DP,
                                  2 if bounded else 1)
    first = _random.smallest_tail_index(tail, p * (1.0 - 1e-9))
    # tau = g (V + m* - 1) with g V = round(1 / g) g: 1 for g <= 1, 0 for g >= 2 (1 / g <= 1/2
    # rounds to 0); the sum is exact (multiples of g below 2^53 g) for every practical eps.
    try:
        threshold = math.ldexp(float(first - 1), k) + (1.0 if k <= 0 else 0.0)
    except OverflowError:  # beyond the doubles (eps near 1e-300): no cell is released
        threshold = math.inf
    return noise, k, tail, threshold


def thresholded_table_laws(eps, mechanism, delta, type_DP, which_sensitivity):
    """The law and threshold of each version of tableDP's thresholded release (undeclared
    levels), bounded first: ``{label: (noise, k, tail, threshold)}`` of
    :func:`table_threshold_law` with the sensitivities of the releases (2 or sqrt(2) bounded,
    1 unbounded; ``data_access.histogram_sensitivities``). No data, no draw: :func:`tableDP`
    and its accuracy report (``dppack.accuracy``) call it, after :func:`check_table_budget`
    (``type_DP`` 'aDP' for 'analytic')."""
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)
    return {label: table_threshold_law(mechanism, eps, delta, type_DP, label == "Bounded", s)
            for label, s in _versions(which_sensitivity, bounded, unbounded)}


def tableDP(*factors, eps=1, which_sensitivity="bounded", mechanism="Laplace", delta=0,
            type_DP="aDP", allow_negative=False, random_state=None, accountant=None):
    """Differentially private contingency table.

    The cells of the table must not come from the data (DPpack takes them from the
    observed levels, so a record with a new category adds a cell, a deterministic leak).

    * Declared levels (every factor a pandas Categorical or categorical Series; R factors
      reach the core as such): the cells are all combinations of the declared levels, used
      or not, and every cell gets noise as in DPpack: sensitivity 2 (Laplace) or sqrt(2)
      (Gaussian, analytic) for bounded DP, 1 for unbounded DP, integer noise (discrete
      Laplace or discrete Gaussian), so the noisy cells are integers (DPpack rounds its
      continuous noise half to even); negative cells become 0 unless ``allow_negative``.
      This is eps-DP (Laplace) or (eps, delta)-DP.
    * Undeclared levels (any factor a list, array or non-categorical Series): the domain is
      unknown, so only the observed cells get noise, and a cell is released only if its noisy
      count exceeds a threshold tau chosen so that the whole release is (eps, delta)-DP
      (derivation in the Notes). This needs ``delta > 0``; with the Laplace mechanism's
      default ``delta = 0`` the call is refused. The released table's levels are those of the
      released cells (a declared factor keeps all its levels); unreleased cells show 0.

    Parameters
    ----------
    *factors : array_like, pandas.Series / Categorical, polars or pyarrow series, Dask Series
        One or more factors of the same length, without missing values (on Dask: Series
        partitioned alike, or one Dask DataFrame whose columns are the factors; a categorical
        column with known categories declares its levels; one pass). A pandas Categorical
        (or categorical Series), a polars Enum or a pyarrow dictionary array declares its
        categories as levels (empty ones give 0 cells); a polars Categorical does not
        (``dppack._frames``).
        Declared levels are treated as public: they must not be derived from the data
        (``pd.Categorical(x)`` without ``categories=`` takes them from ``x``). Other data
        have only their observed values, sorted.
    eps : float, default 1
    which_sensitivity : {'bounded', 'unbounded', 'both'}, default 'bounded'
    mechanism : {'Laplace', 'Gaussian', 'analytic'}, default 'Laplace'
    delta : float, default 0
        For the Gaussian mechanisms, as in :func:`meanDP`. With undeclared levels, the delta
        of the whole thresholded release, in (0, 1) (the Gaussian mechanisms spend part of it
        on the noise, see Notes).
    type_DP, random_state
        As :func:`meanDP`.
    allow_negative : bool, default False
        Declared levels only (a released cell of the thresholded release is > tau >= 1).
    accountant : BudgetAccountant, optional
        Charged, label "tableDP": with declared levels as :func:`meanDP`
        (PrivacyLoss.pure(eps) for Laplace, PrivacyLoss.approx(eps, delta) for the Gaussian
        mechanisms); the thresholded release PrivacyLoss.approx(eps, delta) whatever the
        mechanism; for 'both' the pair's (3 eps, (2 + e^eps) delta) (3 eps for declared
        levels with Laplace). By default the session's accountant, if any; an overspend is
        refused before the data are read or any noise is drawn.

    Returns
    -------
    pandas.Series, pandas.DataFrame or dict
        One factor: a Series indexed by its levels. Two: a DataFrame, rows the levels of the
        first factor, columns those of the second. Three or more: a Series over a MultiIndex
        of every combination of levels, the first factor varying slowest. Index and column
        names are the factors' names (a pandas Series' ``.name``), else None. The cells are
        floats, as in DPpack. For 'both', ``{"Bounded": table, "Unbounded": table}``:
        meaningful under bounded DP only, where the pair spends up to 3 eps (see
        :func:`meanDP`); under unbounded DP the bounded table is not private.

    Raises
    ------
    ValueError
        DPpack's messages (which.sensitivity, mechanism, the mechanism's eps and delta), R's
        ``table()`` messages, ours for missing values, and, with undeclared levels and the
        Laplace mechanism, one that says what to do when ``delta`` is 0. All before the data
        are tabulated (missing values: while they are) and before any noise is drawn.
        Two of these refusals depend on values outside the data's domain, which the caller is
        responsible for excluding: with undeclared levels, values of mixed types ("Cannot
        order the values of a factor of mixed types"); with a declared Categorical, a value
        outside its categories, which pandas turns into a missing value, refused as such.

    Notes
    -----
    The noise is drawn as one vector over the cells in R's column-major order (the first
    factor varying fastest: numpy ``order='F'`` on the (L1, ..., Lk) array of counts), as
    DPpack flattens its table, so that the i-th noise draw lands on the same cell as in R;
    with undeclared levels, over the observed cells in that order.

    Thresholded release (undeclared levels): the noise is exact integer noise (discrete
    Laplace, or the discrete Gaussian for DPpack's sigma at (eps, delta_noise)),
    calibrated for the cells that can change between neighbours (two bounded, one
    unbounded), and a count of 1 must be released with probability at most p:

    =========  ==========  ===========  =====================
    mechanism  neighbours  delta_noise  p
    =========  ==========  ===========  =====================
    Laplace    bounded     (pure)       delta / 2
    Laplace    unbounded   (pure)       delta
    Gaussian   bounded     delta / 2    delta e^(-eps) / 2
    Gaussian   unbounded   delta        delta
    =========  ==========  ===========  =====================

    The threshold tau is the smallest integer above which a noisy count of 1 lies with
    probability at most p, computed from the exact tail of the integer noise (about
    1 + b ln(1 / (2p)) for the Laplace scale b, 1 + sigma Phi^-1(1 - p) for the Gaussian).
    With bounded neighbours one record changes cell: at most two cells change by one each,
    and a cell observed in one dataset only has count 1 there; tau makes the probability
    that such a cell is released small enough that, with the noise's guarantee on the other
    cells, the release is (eps, delta)-DP (Korolova et al. 2009; Wilson et al. 2020; the
    derivation is in the source, ``table_threshold_law``).

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``tableDP``. Korolova, Kenthapadi, Mishra and
    Ntoulas (2009), Releasing search queries and clicks privately; Wilson et al. (2020),
    Differentially private SQL with bounded user contribution.

    Examples
    --------
    Declared levels (a Categorical): every cell is released, with noise (true counts 355
    and 177):

    >>> from dppack import tableDP
    >>> import pandas as pd
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> diabetic = pd.Categorical(pima["type"], categories=["No", "Yes"])
    >>> tableDP(diabetic, eps=1.0, random_state=1).to_dict()
    {'No': 352.0, 'Yes': 171.0}

    Undeclared levels need ``delta > 0``: only cells whose noisy count passes a threshold
    are released.

    >>> t = tableDP(pima["type"], pima["npreg"] > 2, eps=1.0, delta=1e-5, random_state=1)
    >>> t.shape
    (2, 2)
    """
    factors, declared, names, tabulate = data_access.table_factors(factors)
    bill = _charge(accountant, "tableDP", eps, delta, mechanism, which_sensitivity,
                   approximate=not all(declared))
    _check_which(which_sensitivity)
    check_mechanism(mechanism)
    allow_negative = _checks.check_flag(allow_negative, "allow.negative")
    if mechanism == "analytic":
        # ignored for 'analytic', as in DPpack (DPpack's statistics and DPpack's manual)
        type_DP = "aDP"
    eps, delta = check_table_budget(eps, delta, mechanism, type_DP, all(declared))
    # DPpack's tableDP: as DPpack's histogramDP
    bounded, unbounded = data_access.histogram_sensitivities(mechanism)
    versions = _versions(which_sensitivity, bounded, unbounded)
    if not all(declared):
        return _thresholded_table(tabulate, declared, names, which_sensitivity, eps, delta,
                                  mechanism, type_DP, random_state, bill)

    counts, levels = tabulate(observed=False)  # DPpack's tableDP: R's table(...)
    cells = np.asarray(counts, dtype=np.float64).ravel(order="F")  # R's column-major cells
    rng = _random.as_generator(random_state)
    bill.spend()

    def release(sensitivity, changed):
        # DPpack's tableDP: scalar Delta on every cell, then negatives to 0; one record changes 2
        # cells (bounded) or 1 (unbounded). The noisy counts are integers (DPpack rounds them).
        noisy = _noisy_counts(cells, eps, sensitivity, mechanism, delta, type_DP, rng, changed)
        noisy = noisy + 0.0  # + 0.0 turns -0.0 into 0.0
        if not allow_negative:
            noisy = np.maximum(noisy, 0.0)
        return table_frame(noisy.reshape(counts.shape, order="F"), levels, names)

    return _release([(label, (s, 2 if label == "Bounded" else 1)) for label, s in versions],
                    lambda version: release(*version))


def _thresholded_table(tabulate, declared, names, which_sensitivity, eps, delta, mechanism,
                       type_DP, random_state, bill):
    """tableDP's release for undeclared levels: noise on the observed cells only, and a cell
    released only above the threshold of :func:`table_threshold_law`."""
    # The noise and thresholds of the versions (they depend on the arguments only).
    plans = list(thresholded_table_laws(eps, mechanism, delta, type_DP,
                                        which_sensitivity).items())
    cells, counts, levels = tabulate(observed=True)
    counts = counts.astype(np.float64)
    rng = _random.as_generator(random_state)
    bill.spend()

    def release(noise, k, tail, threshold):
        if counts.size:  # no observed cell (no data): nothing to noise, nothing released
            noisy = noise(counts, rng)
            keep = noisy > threshold  # the integer noisy count, as in the derivation
        else:
            noisy, keep = counts, np.zeros(0, dtype=bool)
        # The released table: a declared factor keeps all its (public) levels, an undeclared
        # one shows the levels of the released cells only; every other cell is 0.
        shown = [
            np.arange(len(level)) if public else np.unique(codes[keep])
            for codes, level, public in zip(cells, levels, declared)
        ]
        table = np.zeros(tuple(used.size for used in shown), dtype=np.float64)
        where = tuple(np.searchsorted(used, codes[keep]) for used, codes in zip(shown, cells))
        table[where] = noisy[keep] + 0.0  # integers already
        shown_levels = [[level[i] for i in used] for used, level in zip(shown, levels)]
        return table_frame(table, shown_levels, names)

    # bounded noise first (DPpack's statistics)
    return _release(plans, lambda plan: release(*plan))


# --------------------------------------------------------------------------------------------
# Pooled variance and covariance
# --------------------------------------------------------------------------------------------


def _pooled_unbounded(rows, eps, mechanism, delta, type_DP, combine):
    """The 'unbounded' release of a pooled statistic: the centred sufficient statistics of
    every sample (the rows of ``rows``, dicts of :mod:`data_access`), released by one call of
    the mechanism (see :func:`_noisy_statistics`: a record is in one sample, so one row
    moves), each noisy count floored at 2; ``combine(noisy rows, counts)`` post-processes.
    Returns the function of the generator that draws."""
    access = {
        "True.Values": np.stack([row["True.Values"] for row in rows]),
        "Sensitivities": rows[0]["Sensitivities"],
    }
    prepared = _unit_statistics(access)

    def draw(rng):
        noisy = _noisy_statistics(prepared, eps, mechanism, delta, type_DP, rng)
        counts = np.array([_noisy_count(count) for count in noisy[:, -1]])
        return combine(noisy, counts)

    return draw


class _MemoryPooled:
    """The samples of pooledVarDP (``columns`` None) or pooledCovDP (2) in memory, checked
    and clipped, as the statistics read them (the methods of
    :class:`dppack.dask.moments.Pooled`). ``bounds`` (L, U) or (L1, U1, L2, U2)."""

    def __init__(self, samples, bounds, min_size, columns=None):
        arrays, lows, highs = check_samples(samples, columns=columns, min_size=min_size)
        lower, upper = np.array(bounds[0::2]), np.array(bounds[1::2])  # per column
        self.arrays = [
            np.clip(a, lower, upper) if np.any(lo < lower) or np.any(hi > upper) else a
            for a, lo, hi in zip(arrays, lows, highs)
        ]
        self.bounds, self.columns = bounds, columns

    def sizes(self):
        return [a.shape[0] for a in self.arrays]

    def pooled_var_access(self, approx_n_max):
        return data_access.pooled_var_access(self.arrays, *self.bounds, approx_n_max)

    def pooled_cov_access(self, approx_n_max):
        return data_access.pooled_cov_access(self.arrays, *self.bounds, approx_n_max)

    def centred_rows(self):
        if self.columns is None:
            return [data_access.centred_moments(a, *self.bounds) for a in self.arrays]
        return [data_access.centred_cross_moments(a[:, 0], a[:, 1], *self.bounds)
                for a in self.arrays]


def _pooled_source(samples, bounds, which_sensitivity, columns=None):
    """The samples of a pooled statistic, checked as far as they can be without a pass:
    :class:`_MemoryPooled`, or on Dask (any sample a Dask collection)
    ``dppack.dask.moments.Pooled`` (one pass for all the samples, on first use)."""
    min_size = _min_size(which_sensitivity, 2)
    if not any(_frames.is_dask(sample) for sample in samples):
        return _MemoryPooled(samples, bounds, min_size, columns)
    from .dask import moments  # noqa: PLC0415 - Dask only when Dask data come

    return moments.Pooled(samples, bounds, which_sensitivity, min_size, columns)


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
    bill = _charge(accountant, "pooledVarDP", eps, delta, mechanism, which_sensitivity)
    bounds = _checks.check_bounds(("lower.bound", lower_bound), ("upper.bound", upper_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    approx_n_max = _checks.check_flag(approx_n_max, "approx.n.max")
    pooled = _pooled_source(samples, (lower, upper), which_sensitivity)
    _check_release(which_sensitivity, mechanism, eps, delta, type_DP)
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
            noisy = _noisy(access["True.Values"], eps, access["Bounded.Sensitivities"],
                           mechanism, delta, type_DP, rng)
            return _clamp(noisy, 0.0, top)  # one draw, clamped: not DPpack's pooledVarDP's redraws

        return draw

    def unbounded():
        # Add/remove neighbours (sizes private): per sample, centred sum, sum of squares and
        # size (sensitivities h, h^2, 1); no size is used.
        rows = pooled.centred_rows()

        def combine(noisy, counts):
            squares = sum(q - s * s / n for (s, q, _), n in zip(noisy, counts))
            dof = counts.sum() - groups
            top = sum(max_squares(n, spread) for n in counts) / dof
            return _clamp(squares / dof, 0.0, top)

        return _pooled_unbounded(rows, eps, mechanism, delta, type_DP, combine)

    return _draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)


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
    bill = _charge(accountant, "pooledCovDP", eps, delta, mechanism, which_sensitivity)
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
    _check_release(which_sensitivity, mechanism, eps, delta, type_DP)

    def bounded():
        # DPpack's pooledCovDP: the pooled covariance and its bounded sensitivity (sizes public).
        access = pooled.pooled_cov_access(approx_n_max)
        # DPpack's statistics: Laplace scale Delta/eps; Gaussian sigma of DPpack's
        # GaussianMechanism with s = Delta.
        return lambda rng: _noisy(access["True.Values"], eps, access["Bounded.Sensitivities"],
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
            return _clamp(products / dof, -top, top)

        return _pooled_unbounded(rows, eps, mechanism, delta, type_DP, combine)

    return _draw_versions(which_sensitivity, bounded, unbounded, random_state, bill)


# --------------------------------------------------------------------------------------------
# Quantiles
# --------------------------------------------------------------------------------------------


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
      reverse: unbounded sensitivity Delta (reached; ``dppack.stats.quantile_sensitivity``),
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
    (``dppack.stats.quantile_sensitivity``). The release is the exponential
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

    **Dask** (``dppack.dask.quantiles``, for data beyond one machine's memory). No sort: every record is rounded to cells
    of a coarser public grid h = 2^(j + s), s >= 0 the smallest with at most 2^20 cells
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
    (``tests/python/test_dask_quantiles.py``, two-sample KS p = 0.79). The checks that need no
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
    bill = accounting.charge(
        accountant, lambda: _quantile_loss(eps, which_sensitivity, mechanism), "quantileDP"
    )
    return _quantile_dp(x, quant, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                        random_state, bill, resolution)


def _quantile_loss(eps, which_sensitivity, mechanism):
    """pure(eps): one draw of the exponential mechanism; 'both' releases one value."""
    if not (_checks.is_one_of(which_sensitivity, WHICH)
            and _checks.is_one_of(mechanism, ("exponential",))):
        raise _messages.value_error("not a quantile's arguments")  # left to the quantile's checks
    return PrivacyLoss.pure(eps)


def _quantile_dp(x, quant, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                 random_state, bill, resolution=None):
    lower, upper = _sample_bounds(upper_bound, lower_bound)
    lattice = check_resolution(resolution, lower, upper)  # public: before the data
    if _frames.is_dask(x):
        return _dask_quantile(x, quant, eps, lower, upper, which_sensitivity, mechanism,
                              random_state, bill, lattice)
    x, _, _ = _checks.as_finite_data(x, "x", _min_size(which_sensitivity, 1))
    # DPpack clips x here; the release clips the records it uses, which gives the same result
    # without a copy of the data.
    quant, eps, rng = _quantile_arguments(quant, eps, which_sensitivity, mechanism,
                                          random_state, stacklevel=5)
    sensitivity = quantile_sensitivity(quant, which_sensitivity)
    bill.spend()
    if lattice is not None:
        return _lattice_quantile(*lattice_counts(x.ravel(order="K"), lattice), quant, eps,
                                 lattice, rng, sensitivity)
    return _exact_quantile(x.ravel(order="K"), quant, eps, lower, upper, rng,
                           sensitivity=sensitivity)


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


def _quantile_arguments(quant, eps, which_sensitivity, mechanism, random_state, stacklevel):
    """quant, eps and the generator, checked in DPpack's order (quant, which_sensitivity,
    mechanism, then the exponential mechanism's eps check); ``stacklevel`` points the 'both'
    warning at the user's call."""
    quant = check_quant(quant)
    _check_which(which_sensitivity, identical=True, stacklevel=stacklevel)
    _checks.check_choice(mechanism, "mechanism", ("exponential",), EXPONENTIAL_MESSAGE)
    # The exponential mechanism's own eps check (same text, last, as in DPpack).
    eps = _checks.check_finite_budget(eps, "eps")
    return quant, eps, _random.as_generator(random_state)


def _dask_quantile(x, quant, eps, lower, upper, which_sensitivity, mechanism, random_state,
                   bill, lattice=None):
    """quantileDP on Dask data (see quantileDP's Notes, "Dask"): the in-memory release on
    the records counted per cell by one pass (``dppack.dask.quantiles``).

    The checks that need no pass (bounds, numeric dtypes, the size when the chunks are known)
    come first, in the in-memory order; then the arguments (quant ... eps, random_state), so
    that a wrong argument costs no pass over the data; then the pass, and the size and
    finiteness checks it allows; then the charge and the draw."""
    from .dask import moments, quantiles  # noqa: PLC0415 - Dask only when Dask data come

    moments.check_sample(x, "x", _min_size(which_sensitivity, 1))
    quant, eps, rng = _quantile_arguments(quant, eps, which_sensitivity, mechanism,
                                          random_state, stacklevel=6)
    sensitivity = quantile_sensitivity(quant, which_sensitivity)
    if lattice is not None:  # one pass: the data's positions among the candidates, counted
        counts = quantiles.lattice_counts(x, lattice, "x", _min_size(which_sensitivity, 1))
        bill.spend()
        return _lattice_quantile(*counts, quant, eps, lattice, rng, sensitivity)
    j, first, last = _quantile_grid(lower, upper)
    cells = quantiles.Cells(j, first, last, quantiles.cell_shift(first, last))
    occupied, counts = quantiles.cell_counts(x, cells, "x", _min_size(which_sensitivity, 1))
    bill.spend()
    try:  # the in-memory algorithm on the counted records: the same draws
        return _exact_quantile(quantiles.CountedRecords(cells.points(occupied), counts),
                               quant, eps, lower, upper, rng, sensitivity=sensitivity)
    except quantiles.WindowTooWide:  # raised before any draw; the same law from the runs
        ranks, widths, starts = cells.runs(occupied, counts)
        utilities = data_access.rank_utility(ranks, int(counts.sum()), quant)
        i, offset = _random.exponential_interval(utilities, widths, eps, sensitivity, rng)
        return math.ldexp(float(int(starts[i]) + offset), j)


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
        half = 2.0 * (_MARGIN + math.log(n + 2.0)) / eps + 2.0
    if type(records) is _SortedRecords and records.values.ndim == 1 and 2 * (
            min(n + 1, math.ceil(centre + half) + 1) - max(0, math.floor(centre - half))) >= n:
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
    (``dppack.stats.quantile_sensitivity``; Delta' its rounding, ``_random.exponential_grid``).
    ``values``: an array, or records (:func:`_records`) of the grid of (lower, upper);
    ``half``: see :func:`_quantile_candidates`. No checks (``quantilesDP``'s recursion
    calls it on parts of checked data)."""
    j, first, last = _quantile_grid(lower, upper)
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


_exact_quantile = exact_quantile


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
    ``sensitivity`` Delta (``dppack.stats.quantile_sensitivity``) rounded up to the utilities' grid
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
    bill = accounting.charge(
        accountant, lambda: _quantile_loss(eps, which_sensitivity, mechanism), "medianDP"
    )
    return _quantile_dp(x, 0.5, eps, lower_bound, upper_bound, which_sensitivity, mechanism,
                        random_state, bill, resolution)
