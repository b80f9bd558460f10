"""The steps the statistics' plans share: checks, the loss, the noise of values and counts,
and the sufficient statistics of unbounded DP."""

import math

import numpy as np

from .. import _backends, _checks, _messages, accounting
from ..accounting import PrivacyLoss
from ..data_access import check_mechanism
from ..mechanisms import GaussianMechanism, LaplaceMechanism
from ..mechanisms._additive import release_exact
from ..mechanisms._calibration import check_budget
from ..mechanisms._noise import count_noise


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


def check_which(which_sensitivity, identical=False, stacklevel=3):
    """DPpack's which.sensitivity check; for a statistic whose two sensitivities are equal,
    'both' warns that one value will be returned. ``stacklevel`` makes the
    warning point at the user's call."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", WHICH, WHICH_MESSAGE)
    if identical and which_sensitivity == "both":
        _messages.warn(IDENTICAL_MESSAGE, UserWarning, stacklevel=stacklevel)


def minimum_size(which_sensitivity, bounded_min):
    """The smallest sample size a statistic accepts: ``bounded_min`` (1, or 2 for a sample
    variance) where n is public ('bounded', 'both'), 0 under 'unbounded' (n private: a
    refusal would tell neighbours apart). An invalid which_sensitivity gets its own error
    later, in DPpack's order."""
    return 0 if _checks.is_one_of(which_sensitivity, ("unbounded",)) else bounded_min


def add_noise(true_values, eps, sensitivity, mechanism, delta, type_DP, rng):
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


def noisy_counts(counts, eps, sensitivity, mechanism, delta, type_DP, rng, changed):
    """``counts`` with the exact integer noise of ``mechanisms._noise.count_noise`` (float array of
    integers, same shape)."""
    noise = count_noise(eps, sensitivity, mechanism, delta, type_DP, changed)
    return noise.draw(np.asarray(counts, dtype=np.float64), rng)


MECHANISMS = ("Laplace", "Gaussian", "analytic")
BOTH_VACUOUS_MESSAGE = (
    "which.sensitivity = 'both' spends (3 eps, (2 + exp(eps)) delta) under bounded DP, which "
    "is no guarantee here (a total delta of 1 or more); release one sensitivity at a time."
)


def release_loss(eps, delta, mechanism, which_sensitivity, approximate=False):
    """The PrivacyLoss of one call of a statistic, from its arguments alone: eps (Laplace),
    (eps, delta) (the Gaussian mechanisms; a thresholded release, ``approximate``); for 'both'
    (3 eps, (2 + e^eps) delta) by group privacy and basic composition (Dwork and Roth 2014,
    Theorems 2.2 and 3.16; derivation: ``docs/python/guide/mechanisms-derivations.rst``).
    ValueError for arguments the statistic refuses and for a vacuous 'both'.
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


def check_whole_budget(eps, mechanism, delta, type_DP):
    """The checks the mechanism makes of (eps, delta), with its messages, made once before a
    release that may call it more than once ('both'), so that a bad budget fails before the
    first draw. 'analytic' ignores ``type_DP``."""
    if mechanism == "Laplace":
        check_budget(eps)
    else:
        analytic = mechanism == "analytic"
        check_budget(eps, delta, "aDP" if analytic else type_DP, analytic=analytic,
                     switch=MECHANISM_SWITCH)


def check_release(which_sensitivity, mechanism, eps, delta, type_DP):
    """DPpack's last checks of an additive-noise statistic, in its order:
    which.sensitivity, mechanism, then the mechanism's checks of (eps, delta)."""
    check_which(which_sensitivity)
    check_mechanism(mechanism)
    check_whole_budget(eps, mechanism, delta, type_DP)


def sample_bounds(upper_bound, lower_bound):
    """(lower, upper) of a one-sample statistic: DPpack's length checks (upper.bound
    first), then ours (finite numbers, lower < upper)."""
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    return bounds["lower.bound"], bounds["upper.bound"]


def moment_source(x, lower, upper, which_sensitivity, bounded_min):
    """The data of meanDP (``bounded_min`` 1) or varDP/sdDP (2), checked as far as they can be
    without reading them, by their backend: in memory all the data checks, and the clipped
    sum from the range scan; on Dask the dtype and, for known chunks, the size (the one pass,
    with the other checks, when the release first asks for a statistic)."""
    return _backends.backend_for(x).sample(x, lower, upper, which_sensitivity,
                                           minimum_size(which_sensitivity, bounded_min),
                                           variance=bounded_min == 2)


def clamp(value, low, high):
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


_UNIT_SCALE_MESSAGE = ("The bounds are too close together or too far apart for the "
                       "sufficient statistics of unbounded DP in floating point.")


def check_unit_sensitivities(sensitivities):
    """The add/remove sensitivities of the sufficient statistics (``data_access``'s
    ``centred_exact`` and ``centred_cross_exact``), refused when floating point
    cannot scale by them (not finite, or 0: bounds too far apart or too close together).
    From the bounds only: the accuracy reports make the same check."""
    if not (np.all(np.isfinite(sensitivities)) and np.all(sensitivities > 0)):
        raise _messages.value_error(_UNIT_SCALE_MESSAGE)
    return sensitivities


def unit_sensitivity(k, mechanism):
    """The sensitivity of k sufficient statistics scaled to add/remove sensitivity 1 each,
    as :func:`noisy_exact_statistics` releases them: l1 norm k (Laplace), l2 norm sqrt(k)
    (Gaussian, analytic)."""
    return float(k) if mechanism == "Laplace" else math.sqrt(k)


def exact_statistics(access):
    """Prepare the release of the exact unit statistics of ``data_access``'s
    ``centred_exact`` / ``centred_cross_exact`` (a list for one sample, or a list of such
    lists, one per sample): (values, sensitivities), after the check of the sensitivities
    (from the bounds only)."""
    return access["True.Values"], check_unit_sensitivities(access["Sensitivities"])


def noisy_exact_statistics(prepared, eps, mechanism, delta, type_DP, rng):
    """Release the exact unit statistics prepared by :func:`exact_statistics` (each moved by
    at most 1 by one record added or removed) with one call of the mechanism's exact entry
    point (``mechanisms._additive.release_exact``; l1 sensitivity k, l2 sqrt(k); Dwork and
    Roth 2014, Theorems 3.6, 3.16 and A.1; Liu 2019; Balle and Wang 2018; derivation:
    ``docs/python/guide/mechanisms-derivations.rst``), then each noisy value times its
    sensitivity (post-processing)."""
    values, sensitivities = prepared
    rows = values if isinstance(values[0], list) else [values]
    flat = [v for row in rows for v in row]
    sensitivity = unit_sensitivity(sensitivities.size, mechanism)
    noisy = np.array(release_exact(flat, eps, sensitivity, mechanism, delta, type_DP, rng))
    noisy = noisy.reshape(len(rows), -1) * sensitivities
    return noisy if values is rows else noisy[0]


def noisy_count(count):
    """A noisy count floored at 2, the smallest size with a sample variance (each sample has
    at least two values; the floor also keeps n - 1 away from 0). Post-processing."""
    return max(float(count), 2.0)
