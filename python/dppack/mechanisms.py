"""The differential-privacy mechanisms of DPpack 0.2.2, and the analytic Gaussian calibration.

Every formula follows ``specs/dppack_api.md`` §2; the section is cited where it is used. All
noise is drawn through :mod:`dppack._random`.
"""

import math

import numpy as np
from scipy import special

from . import _checks, _random

__all__ = [
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "calibrateAnalyticGaussianMechanism",
    "check_budget",
    "gaussian_sigma",
    "laplace_scale",
]

_TRUE_VALUES_MESSAGE = "true.values must be numeric atomic vectors or scalars."

# Caps on the AGM search (DPpack has none and can loop for ever, spec §2.3). 1100 doublings
# take s past the largest double; 2000 halvings exhaust any bracket's floating-point precision.
_AGM_MAX_DOUBLINGS = 1100
_AGM_MAX_BISECTIONS = 2000


def _true_values(true_values):
    values = _checks.as_numeric_array(true_values, _TRUE_VALUES_MESSAGE)
    if values.size == 0:
        raise ValueError("true.values must have at least one element.")
    if not np.all(np.isfinite(values)):
        raise ValueError("true.values must be finite (no NA, NaN or Inf).")
    return values


def _eps(eps):
    return _checks.check_finite_budget(_checks.check_positive_scalar(eps, "eps"), "eps")


def _delta(delta):
    delta = _checks.check_positive_scalar(delta, "delta")
    if delta >= 1:
        raise ValueError("delta must be < 1.")
    return delta


def _check_type(eps, type_DP, analytic):
    if analytic and type_DP != "aDP":
        raise ValueError("Only approximate DP can be used when analytic is TRUE.")
    if type_DP not in ("pDP", "aDP"):
        raise ValueError("type.DP must be one of {'pDP', 'aDP'}.")
    if not analytic and type_DP == "aDP" and eps >= 1:
        raise ValueError("eps must be < 1 for aDP unless analytic is TRUE.")


def check_budget(eps, delta=None, type_DP="aDP", analytic=False):
    """Check a privacy budget as :func:`LaplaceMechanism` (``delta`` None) or
    :func:`GaussianMechanism` checks its own, with the same messages.

    For a release that spends shares of one budget in several mechanism calls: the whole
    budget is checked before the first draw, as one call would check it.

    Parameters
    ----------
    eps : float
    delta : float, optional
        None for the Laplace mechanism.
    type_DP : {'aDP', 'pDP'}, default 'aDP'
    analytic : bool, default False

    Returns
    -------
    (float, float or None)
        eps and delta as floats.

    Raises
    ------
    ValueError
        DPpack's messages (spec §2.1, §2.2).
    """
    eps = _eps(eps)
    if delta is None:
        return eps, None
    delta = _delta(delta)
    _check_type(eps, type_DP, analytic)
    return eps, delta


def laplace_scale(eps, sensitivities, alloc_proportions=None):
    """Laplace scale b per coordinate, spec §2.1.

    Without allocation every coordinate gets b = (sum of sensitivities) / eps, the l1 norm of
    the sensitivity vector; with allocation a, coordinate i gets b_i = Delta_i / (a_i eps).
    """
    sensitivities = np.asarray(sensitivities, dtype=np.float64)
    if alloc_proportions is None:
        return np.sum(sensitivities) / eps
    return sensitivities / (np.asarray(alloc_proportions) * eps)


def gaussian_sigma(eps, delta, sensitivity, type_DP="aDP", analytic=False, tol=1e-12):
    """Gaussian standard deviation for one coordinate, spec §2.2.

    Parameters
    ----------
    eps, delta : float
        Privacy parameters of this coordinate.
    sensitivity : float
        Its l2 sensitivity s.
    type_DP : {'aDP', 'pDP'}
        'pDP' is probabilistic DP (Liu 2019): sigma = s (sqrt(z^2 + 2 eps) - z) / (2 eps) with
        z = Phi^-1(delta / 2). 'aDP' is approximate DP: sigma = s sqrt(2 ln(1.25 / delta)) / eps,
        or the analytic calibration when ``analytic`` is true.
    analytic : bool
    tol : float
        Tolerance of the analytic calibration.

    Returns
    -------
    float
    """
    if type_DP == "pDP":
        z = special.ndtri(delta / 2)
        return sensitivity * (math.sqrt(z * z + 2 * eps) - z) / (2 * eps)
    if analytic:
        return calibrateAnalyticGaussianMechanism(eps, delta, sensitivity, tol)
    return sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps


def LaplaceMechanism(true_values, eps, sensitivities, alloc_proportions=None, random_state=None):
    """Add Laplace noise to ``true_values`` for eps-differential privacy.

    Parameters
    ----------
    true_values : float, array_like, pandas.Series or pandas.DataFrame
        The non-private values.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivities : float or array_like
        l1 global sensitivity of each value, or one for all of them.
    alloc_proportions : array_like, optional
        Share of ``eps`` spent on each value (normalised to sum 1). Without it every value
        gets noise of scale sum(sensitivities) / eps.
    random_state : None, int or NumPy Generator, optional

    Returns
    -------
    float, ndarray or pandas object
        The sanitized values, shaped like ``true_values``.

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument (spec §2.1), before any noise is drawn.

    References
    ----------
    Dwork, McSherry, Nissim and Smith (2006), Calibrating noise to sensitivity in private data
    analysis.
    """
    values = _true_values(true_values)
    eps = _eps(eps)
    sens = _checks.check_sensitivities(sensitivities, values.size)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, values.size)
    rng = _random.as_generator(random_state)

    scale = laplace_scale(eps, sens, alloc)
    noise = _random.laplace(scale, values.size, rng).reshape(values.shape)
    return _checks.restore_like(values + noise, true_values)


def GaussianMechanism(
    true_values,
    eps,
    delta,
    sensitivities,
    type_DP="aDP",
    alloc_proportions=None,
    analytic=False,
    tol=1e-12,
    random_state=None,
):
    """Add Gaussian noise to ``true_values`` for (eps, delta)-differential privacy.

    Parameters
    ----------
    true_values : float, array_like, pandas.Series or pandas.DataFrame
    eps : float
        > 0; below 1 for the classical approximate-DP calibration.
    delta : float
        In (0, 1).
    sensitivities : float or array_like
        l2 global sensitivity of each value, or one for all of them.
    type_DP : {'aDP', 'pDP'}, default 'aDP'
        Approximate or probabilistic differential privacy.
    alloc_proportions : array_like, optional
        Share of ``eps`` and ``delta`` spent on each value. Without it every value gets the
        noise of the whole vector's l2 sensitivity.
    analytic : bool, default False
        Calibrate with the analytic Gaussian mechanism (Balle and Wang 2018); aDP only.
    tol : float, default 1e-12
        Tolerance of the analytic calibration.
    random_state : None, int or NumPy Generator, optional

    Returns
    -------
    float, ndarray or pandas object
        The sanitized values, shaped like ``true_values``.

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument (spec §2.2), before any noise is drawn.

    References
    ----------
    Dwork and Roth (2014); Liu (2019), Generalized Gaussian mechanism for undirected graphs;
    Balle and Wang (2018), Improving the Gaussian mechanism for differential privacy.
    """
    values = _true_values(true_values)
    eps = _eps(eps)
    delta = _delta(delta)
    sens = _checks.check_sensitivities(sensitivities, values.size)
    analytic = _checks.check_flag(analytic, "analytic")
    _check_type(eps, type_DP, analytic)
    alloc = _checks.check_allocation(alloc_proportions, sens.size, values.size)
    tol = _checks.check_positive_scalar(tol, "tol")
    rng = _random.as_generator(random_state)

    if alloc is None:
        # §2.2: one sigma from the l2 norm of the sensitivity vector, for every coordinate.
        sigma = gaussian_sigma(eps, delta, float(np.linalg.norm(sens)), type_DP, analytic, tol)
    else:
        # §2.2: coordinate i spends eps_i = a_i eps and delta_i = a_i delta on sensitivity s_i.
        # sigma is linear in s, so each distinct share is calibrated once, with s = 1.
        shares, which = np.unique(alloc, return_inverse=True)
        unit = np.array(
            [gaussian_sigma(a * eps, a * delta, 1.0, type_DP, analytic, tol) for a in shares]
        )
        sigma = unit[which] * sens
    noise = _random.normal(sigma, values.size, rng).reshape(values.shape)
    return _checks.restore_like(values + noise, true_values)


def _agm_parts(eps, s):
    """Phi(sqrt(eps s)), Phi(-sqrt(eps s)) and e^eps Phi(-sqrt(eps (s + 2))) of spec §2.3.

    The last term is formed in log space so that large eps does not overflow e^eps.
    """
    root = math.sqrt(eps * s)
    tail = math.exp(eps + special.log_ndtr(-math.sqrt(eps * (s + 2))))
    return special.ndtr(root), special.ndtr(-root), tail


def calibrateAnalyticGaussianMechanism(epsilon, delta, sensitivity, tol=1e-12):
    """Noise standard deviation of the analytic Gaussian mechanism (Balle and Wang 2018).

    Finds, by doubling and bisection on s (spec §2.3), the smallest sigma for which Gaussian
    noise gives (epsilon, delta)-DP to a query of l2 sensitivity ``sensitivity``.

    Parameters
    ----------
    epsilon : float
        > 0 and finite (any size: the analytic mechanism has no eps < 1 restriction).
    delta : float
        In (0, 1).
    sensitivity : float
        > 0.
    tol : float, default 1e-12
        The bisection stops once the privacy curve is within ``tol`` of ``delta``.

    Returns
    -------
    float
        sigma = alpha * sensitivity / sqrt(2 epsilon).

    Raises
    ------
    ValueError
        For a non-positive or non-finite epsilon, delta outside (0, 1), a non-positive
        sensitivity or tol. (DPpack validates nothing here.)

    Notes
    -----
    DPpack's loops have no bound. Here the doubling and the bisection are capped, and the
    bisection also stops when the bracket no longer shrinks in floating point. If it stops for
    either reason before reaching ``tol``, the end of the bracket with the larger sigma is
    returned, so the answer errs on the private side.

    References
    ----------
    Balle and Wang (2018), Improving the Gaussian mechanism for differential privacy:
    analytical calibration and optimal denoising, ICML.
    """
    epsilon = _eps_named(epsilon)
    delta = _checks.check_positive_scalar(delta, "delta")
    if delta >= 1:
        raise ValueError("delta must be < 1.")
    sensitivity = _checks.check_positive_scalar(sensitivity, "sensitivity")
    tol = _checks.check_positive_scalar(tol, "tol")

    upper, lower, tail = _agm_parts(epsilon, 0.0)
    delta_0 = upper - tail
    if delta == delta_0:
        alpha = 1.0
    else:
        if delta > delta_0:
            # A(s) increases with s; a larger s means a smaller sigma.
            def curve(s):
                up, _, t = _agm_parts(epsilon, s)
                return up - t

            def alpha_of(s):
                # = sqrt(1 + s/2) - sqrt(s/2), written without the cancellation that
                # returns 0 (no noise) once s is large, as it is for tiny epsilon.
                return 1 / (math.sqrt(1 + s / 2) + math.sqrt(s / 2))

            def go_left(value):
                return value > delta

            def stop_doubling(value):
                return value >= delta

        else:
            # B(s) decreases with s; a larger s means a larger sigma.
            def curve(s):
                _, low, t = _agm_parts(epsilon, s)
                return low - t

            def alpha_of(s):
                return math.sqrt(1 + s / 2) + math.sqrt(s / 2)

            def go_left(value):
                return value < delta

            def stop_doubling(value):
                return value <= delta

        s_inf, s_sup = 0.0, 1.0
        for _ in range(_AGM_MAX_DOUBLINGS):
            if stop_doubling(curve(s_sup)):
                break
            s_inf, s_sup = s_sup, 2.0 * s_sup
        else:
            raise ValueError(
                "calibrateAnalyticGaussianMechanism found no bracket for these epsilon and delta."
            )

        converged = False
        mid = s_inf + (s_sup - s_inf) / 2
        for _ in range(_AGM_MAX_BISECTIONS):
            value = curve(mid)
            # DPpack stops once |curve(mid) - delta| <= tol. We also require the private side,
            # curve(mid) <= delta (on both branches that means sigma >= the exact one), so
            # that a delta below tol is still met, not overshot by up to tol.
            if delta - tol <= value <= delta:
                converged = True
                break
            if go_left(value):
                s_sup = mid
            else:
                s_inf = mid
            new_mid = s_inf + (s_sup - s_inf) / 2
            if new_mid in (s_inf, s_sup):
                break
            mid = new_mid
        if not converged:
            # The privacy-safe end of the bracket: the larger alpha.
            mid = s_sup if delta < delta_0 else s_inf
        alpha = alpha_of(mid)
    return alpha * sensitivity / math.sqrt(2 * epsilon)


def _eps_named(epsilon):
    return _checks.check_finite_budget(
        _checks.check_positive_scalar(epsilon, "epsilon"), "epsilon"
    )


def ExponentialMechanism(
    utility, eps, sensitivity, measure=None, candidates=None, random_state=None
):
    """Select one candidate with probability proportional to measure * exp(eps u / (2 Delta)).

    Parameters
    ----------
    utility : array_like
        Utility of each candidate (higher is better); NaN and +Inf are refused, -Inf gives a
        candidate probability 0.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivity : float
        Global sensitivity of the utility, > 0.
    measure : array_like, optional
        Base measure of each candidate (>= 0, not all 0); uniform by default.
    candidates : sequence, optional
        Returned instead of the index; must have one entry per utility.
    random_state : None, int or NumPy Generator, optional

    Returns
    -------
    int or object
        The 0-based index of the selected candidate (DPpack's R index minus 1), or
        ``candidates[index]``.

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument (spec §2.4), before the draw.

    Notes
    -----
    The weights are formed in log space, log(measure) + eps (u - max u) / (2 Delta), so that
    no selectable candidate underflows to probability 0 (DPpack can return an empty result
    there). One Uniform[0, 1) draw selects by inverse CDF, as in DPpack.

    References
    ----------
    McSherry and Talwar (2007), Mechanism design via differential privacy.
    """
    u = _checks.as_numeric_array(
        utility, "utility must be a numeric atomic vector or scalar."
    ).ravel()
    if u.size == 0:
        raise ValueError("utility must have at least one element.")
    if not (u < np.inf).all():  # one pass catches NaN and +Inf
        raise ValueError("utility must not contain NA, NaN or Inf.")
    if u.max() == -np.inf:
        raise ValueError("At least one candidate must have positive measure and utility > -Inf.")
    eps = _eps(eps)
    sens = _checks.as_numeric_array(sensitivity, "sensitivity must be > 0.").ravel()
    if sens.size != 1:
        raise ValueError("Length of sensitivity must be 1.")
    sens = float(sens[0])
    if not sens > 0:
        raise ValueError("sensitivity must be > 0.")
    if not np.isfinite(sens):
        raise ValueError("sensitivity must be finite.")
    if measure is not None:
        m = _checks.as_numeric_array(measure, "Values in measure must be numeric.").ravel()
        if m.size != u.size:
            raise ValueError("Length of measure must match length of utility.")
        if np.any(np.isnan(m)) or np.any(m < 0):
            raise ValueError("Values in measure cannot be negative.")
        if not np.all(np.isfinite(m)):
            raise ValueError("Values in measure must be finite.")
    if candidates is not None and not hasattr(candidates, "__len__"):
        raise ValueError("candidates must be a sequence with one entry per utility.")
    if candidates is not None and len(candidates) != u.size:
        raise ValueError("Length of candidates must match length of utility")
    # §2.4 step 2, in log space: log w_k = eps (u_k - max u) / (2 Delta) + log(measure_k).
    log_weight = u - u.max()
    log_weight *= eps / (2 * sens)
    if measure is not None:
        with np.errstate(divide="ignore"):
            log_weight += np.log(m)
        top = log_weight.max()
        if top == -np.inf:
            raise ValueError(
                "At least one candidate must have positive measure and utility > -Inf."
            )
        log_weight -= top
    rng = _random.as_generator(random_state)

    weight = np.exp(log_weight, out=log_weight)
    cumulative = np.cumsum(weight)
    # §2.4 step 3: the first k whose cumulative weight exceeds U * total. 'right' never picks
    # a zero-weight candidate; should rounding put U * total at the very top, take the last
    # candidate of positive weight.
    index = int(np.searchsorted(cumulative, _random.uniform(rng) * cumulative[-1], side="right"))
    if index == u.size:
        index = u.size - 1 - int(np.argmax(weight[::-1] > 0))
    if candidates is None:
        return index
    return candidates.iloc[index] if _checks.is_pandas(candidates) else candidates[index]
