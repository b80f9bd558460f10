"""The reports of the additive-noise releases: the mechanisms, the scalar statistics and the
parts of the unbounded moments (derivations: ``docs/python/guide/accuracy.rst``)."""

import numpy as np

from .. import _checks, _messages, data_access, mechanisms, stats
from ..stats import _release as stats_release
from ._laws import UNBOUNDED_MESSAGE, from_laws, gaussian_law, laplace_law


# --------------------------------------------------------------------------------------------
# The releases
# --------------------------------------------------------------------------------------------


def laplace_mechanism(statistic, eps, sensitivities, size=None, alloc_proportions=None, *,
                      alpha, simultaneous):
    """LaplaceMechanism's laws (its checks and its release's arguments): without allocation
    one release of the whole vector, L1 sensitivity sum(Delta), all ``size`` values
    (``_random.discrete_laplace_noise`` with coordinates = size); with it, value i at
    (Delta_i, a_i eps) alone."""
    eps = _checks.check_finite_budget(eps, "eps")
    sens = _checks.as_numeric_array(sensitivities, "Global sensitivities must be numeric.")
    size = sens.size if size is None else _checks.check_whole(size, "size", 1)
    sens = _checks.check_sensitivities(sensitivities, size)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, size)
    if alloc is None:
        law = laplace_law(float(np.sum(sens)), eps, size)
        return from_laws(statistic, [law], None if size == 1 else np.zeros(size, int), alpha,
                         simultaneous)
    pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
    laws = [laplace_law(float(s), float(a * eps), 1) for s, a in pairs.T]
    return from_laws(statistic, laws, which.ravel(), alpha, simultaneous)


def gaussian_mechanism(statistic, eps, delta, sensitivities, type_DP="aDP",
                       alloc_proportions=None, analytic=False, tol=1e-12, size=None, *,
                       alpha, simultaneous):
    """GaussianMechanism's laws: without allocation one sigma for the L2 norm of the
    sensitivities and the whole vector (``mechanisms.discrete_gaussian_release`` with
    coordinates = size); with it, value i a scalar release at (a_i eps, a_i delta), sigma
    linear in Delta_i."""
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_probability(delta, "delta")
    sens = _checks.as_numeric_array(sensitivities, "Global sensitivities must be numeric.")
    size = sens.size if size is None else _checks.check_whole(size, "size", 1)
    sens = _checks.check_sensitivities(sensitivities, size)
    analytic = _checks.check_flag(analytic, "analytic")
    mechanisms.check_budget(eps, delta, type_DP, analytic)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, size)
    tol = _checks.check_positive_scalar(tol, "tol")
    if alloc is None:
        norm = float(np.linalg.norm(sens))
        sigma = mechanisms.gaussian_sigma(eps, delta, norm, type_DP, analytic, tol)
        law = gaussian_law(sigma, norm, eps, delta, type_DP, size)
        return from_laws(statistic, [law], None if size == 1 else np.zeros(size, int), alpha,
                         simultaneous)
    pairs, which = np.unique(np.stack([sens, alloc]), axis=1, return_inverse=True)
    laws = []
    for s, a in pairs.T:
        unit = mechanisms.gaussian_sigma(a * eps, a * delta, 1.0, type_DP, analytic, tol)
        laws.append(gaussian_law(float(unit * s), float(s), a * eps, a * delta, type_DP, 1))
    return from_laws(statistic, laws, which.ravel(), alpha, simultaneous)


def scalar_statistic(statistic, eps, sensitivity, mechanism, delta, type_DP, alpha,
                     transform=None):
    """The law of one value released as the statistics release it
    (``stats._release.add_noise``: the
    Laplace mechanism, the Gaussian one with type_DP, or the analytic one)."""
    if mechanism == "Laplace":
        out = laplace_mechanism(statistic, eps, sensitivity, alpha=alpha, simultaneous=False)
    else:
        analytic = mechanism == "analytic"
        out = gaussian_mechanism(statistic, eps, delta, sensitivity,
                                 "aDP" if analytic else type_DP, analytic=analytic,
                                 alpha=alpha, simultaneous=False)
    out.transform = transform
    return out


def statistic_checks(name, which_sensitivity, mechanism, eps, delta, type_DP,
                     unbounded=False):
    """The statistics' own checks of these arguments, with their messages, and the refusal
    of the unbounded releases (ratios of noisy sums) for a statistic whose handler has no
    report of them (``unbounded`` False)."""
    _checks.check_choice(which_sensitivity, "which.sensitivity", stats_release.WHICH,
                         stats_release.WHICH_MESSAGE)
    data_access.check_mechanism(mechanism)
    if mechanism == "Laplace":
        mechanisms.check_budget(eps)
    else:
        analytic = mechanism == "analytic"
        mechanisms.check_budget(eps, delta, "aDP" if analytic else type_DP, analytic=analytic,
                                switch=stats_release.MECHANISM_SWITCH)
    if which_sensitivity != "bounded" and not unbounded:
        raise _messages.value_error(UNBOUNDED_MESSAGE.format(name=name))
    refuse_vacuous_both(which_sensitivity, eps, delta, mechanism)


def refuse_vacuous_both(which_sensitivity, eps, delta, mechanism, approximate=False):
    """'both' whose total delta is 1 or more is refused by the release (its loss,
    ``stats._release.release_loss``): the report refuses it with the same message."""
    if which_sensitivity == "both":
        stats_release.release_loss(eps, delta, mechanism, "both", approximate)


def checked_bounds(*pairs):
    """The bounds, checked as the statistics check them (finite, lower < upper)."""
    return _checks.check_bounds(*pairs)


_N_MESSAGE = ("n is required: the public sample size (which.sensitivity = 'bounded'), or a "
              "public lower bound on the number of records ('unbounded', 'both').")


def check_n(n, minimum):
    """n, required, a whole number >= ``minimum`` (1 for the mean, 2 for the others)."""
    if n is None:
        raise _messages.value_error(_N_MESSAGE)
    return _checks.check_whole(n, "n", minimum)


def by_sensitivity(which_sensitivity, bounded, unbounded):
    """The report of ``which_sensitivity``: one, or for 'both' ``{"Bounded": ...,
    "Unbounded": ...}`` (the release draws the two independently)."""
    if which_sensitivity == "bounded":
        return bounded()
    if which_sensitivity == "unbounded":
        return unbounded()
    return {"Bounded": bounded(), "Unbounded": unbounded()}


def unbounded_parts(statistic, eps, sensitivities, mechanism, delta, type_DP, alpha,
                    rows=1):
    """The half-widths t_i of the k noisy sufficient statistics of an unbounded release,
    all within them at once with probability >= 1 - alpha, and the joint report on the
    unit scale.

    The release (``stats._release.noisy_statistics``) divides statistic i by its add/remove
    sensitivity Delta_i and adds noise to the k scaled values in one call of the mechanism
    with the sensitivity ``stats._release.unit_sensitivity`` (l1 norm k for Laplace, l2 norm
    sqrt(k) for the Gaussian ones): the same law for each coordinate, independent. The
    mechanism's report of that call (:func:`laplace_mechanism` /
    :func:`gaussian_mechanism`, ``simultaneous``: per-coordinate level
    1 - (1 - alpha)^(1/k), Sidak's product) gives u, and t_i = Delta_i u. The bounds are
    refused as the release refuses them (``stats._release.check_unit_sensitivities``). A pooled
    release of ``rows`` samples (``stats._pooled._pooled_unbounded``) noises k rows values in the
    one call: size k rows, per-coordinate level 1 - (1 - alpha)^(1/(k rows))."""
    sensitivities = stats_release.check_unit_sensitivities(np.asarray(sensitivities, np.float64))
    k = sensitivities.size
    unit = stats_release.unit_sensitivity(k, mechanism)
    if mechanism == "Laplace":
        joint = laplace_mechanism(statistic, eps, unit, size=k * rows, alpha=alpha,
                                  simultaneous=True)
    else:
        analytic = mechanism == "analytic"
        joint = gaussian_mechanism(statistic, eps, delta, unit,
                                   "aDP" if analytic else type_DP, analytic=analytic,
                                   size=k * rows, alpha=alpha, simultaneous=True)
    return float(np.max(joint.half_width)) * sensitivities, joint
