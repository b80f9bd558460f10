"""Privacy accounting: conversions between pure DP, zero-concentrated DP and (eps, delta)-DP.

Small functions over numbers, no noise and no data. Facts (spec ``confidence_intervals.md`` §1):

* (P1) eps-DP implies (eps^2 / 2)-zCDP;
* (P2) rho-zCDP implies (rho + 2 sqrt(rho log(1/delta)), delta)-DP;
* (P3) adding N(0, sigma^2 I) to a function of L2 sensitivity Delta is rho-zCDP for
  sigma = Delta / sqrt(2 rho);
* (P4) composition adds the eps's (pure DP) or the rho's (zCDP).

References
----------
Bun M, Steinke T (2016). Concentrated differential privacy: simplifications, extensions, and
lower bounds. Theory of Cryptography Conference, 635-658.
"""

import math

from . import _checks

__all__ = [
    "compose_dp",
    "compose_zcdp",
    "dp_to_zcdp",
    "zcdp_from_approx_dp",
    "zcdp_gaussian_sd",
    "zcdp_to_approx_dp",
]


def _delta(delta):
    number = _checks.check_positive_scalar(delta, "delta")
    if not number < 1:
        raise ValueError("delta must be in (0, 1).")
    return number


def dp_to_zcdp(eps):
    """The rho of the zCDP that eps-DP implies: rho = eps^2 / 2 (P1).

    Parameters
    ----------
    eps : float
        Pure DP budget, > 0 and finite.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``eps`` is not one finite number > 0.
    """
    eps = _checks.check_finite_positive_scalar(eps, "eps")
    return eps * eps / 2.0


def zcdp_to_approx_dp(rho, delta):
    """The eps of the (eps, delta)-DP that rho-zCDP implies: rho + 2 sqrt(rho log(1/delta)) (P2).

    Parameters
    ----------
    rho : float
        zCDP budget, > 0 and finite.
    delta : float
        In (0, 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``rho`` or ``delta`` is out of range.
    """
    rho = _checks.check_finite_positive_scalar(rho, "rho")
    delta = _delta(delta)
    return rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))


def zcdp_from_approx_dp(eps, delta):
    """The largest rho whose zCDP implies (eps, delta)-DP through P2:
    sqrt(rho) = sqrt(log(1/delta) + eps) - sqrt(log(1/delta)).

    Parameters
    ----------
    eps : float
        > 0 and finite.
    delta : float
        In (0, 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``eps`` or ``delta`` is out of range.
    """
    eps = _checks.check_finite_positive_scalar(eps, "eps")
    log_term = math.log(1.0 / _delta(delta))
    # sqrt(a + eps) - sqrt(a) written as eps / (sqrt(a + eps) + sqrt(a)): no cancellation
    root = eps / (math.sqrt(log_term + eps) + math.sqrt(log_term))
    return root * root


def zcdp_gaussian_sd(sensitivity, rho):
    """Standard deviation of the rho-zCDP Gaussian mechanism: Delta / sqrt(2 rho) (P3).

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity Delta, > 0 and finite.
    rho : float
        > 0 and finite.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If an argument is out of range.
    """
    sensitivity = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
    rho = _checks.check_finite_positive_scalar(rho, "rho")
    return sensitivity / math.sqrt(2.0 * rho)


def compose_dp(*eps):
    """Total pure DP budget of mechanisms run in sequence on the same data: the sum (P4)."""
    return math.fsum(_checks.check_finite_positive_scalar(e, "eps") for e in eps)


def compose_zcdp(*rho):
    """Total zCDP budget of mechanisms run in sequence on the same data: the sum (P4)."""
    return math.fsum(_checks.check_finite_positive_scalar(r, "rho") for r in rho)
