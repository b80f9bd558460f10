"""The analytic Gaussian calibration of Balle and Wang (2018), as DPpack 0.2.2 computes it."""

import math

from scipy import special

from .. import _checks, _messages


# Caps on the AGM search (DPpack has none and can loop for ever, DPpack's
# calibrateAnalyticGaussianMechanism). 1100 doublings take s past the largest double; 2000 halvings
# exhaust any bracket's floating-point precision.
_AGM_MAX_DOUBLINGS = 1100
_AGM_MAX_BISECTIONS = 2000


def _agm_parts(eps, s):
    """Phi(sqrt(eps s)), Phi(-sqrt(eps s)) and e^eps Phi(-sqrt(eps (s + 2))) of DPpack 0.2.2.

    The last term is formed in log space so that large eps does not overflow e^eps.
    """
    root = math.sqrt(eps * s)
    tail = math.exp(eps + special.log_ndtr(-math.sqrt(eps * (s + 2))))
    return special.ndtr(root), special.ndtr(-root), tail


def calibrateAnalyticGaussianMechanism(epsilon, delta, sensitivity, tol=1e-12):
    """Noise standard deviation of the analytic Gaussian mechanism (Balle and Wang 2018).

    Finds, by doubling and bisection on s, the smallest sigma for which Gaussian
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
    analytical calibration and optimal denoising, ICML (Algorithm 1). Giddens and Liu
    (2023), DPpack reference manual, ``calibrateAnalyticGaussianMechanism``.

    Examples
    --------
    >>> from dppack import calibrateAnalyticGaussianMechanism
    >>> round(calibrateAnalyticGaussianMechanism(1.0, 1e-5, 1.0), 6)
    3.730632
    >>> round(calibrateAnalyticGaussianMechanism(0.5, 1e-5, 1.0), 6)  # classical: 9.689611
    7.031827
    """
    epsilon = _checks.check_finite_budget(epsilon, "epsilon")
    delta = _checks.check_probability(delta, "delta")
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
            raise _messages.value_error(
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
