"""Conversions and compositions of privacy losses on plain numbers (DP, zCDP, groups)."""

import math

from .. import _checks, _messages
from ._arithmetic import DELTA_MESSAGE, raise_by_margin
from ._loss import PrivacyLoss, compose


def group_loss(loss, size=2):
    """The privacy loss of a pure or (eps, delta) release for groups of ``size`` records.

    Parameters
    ----------
    loss : PrivacyLoss
        A pure or approximate loss for neighbours differing in one record.
    size : int, default 2
        k >= 1, how many records the two datasets differ in.

    Returns
    -------
    PrivacyLoss
        (k eps, delta (1 + e^eps + ... + e^((k - 1) eps))), delta rounded up.

    Raises
    ------
    ValueError
        If ``size`` < 1, or if the group's delta is 1 or more.

    References
    ----------
    Dwork C, Roth A (2014), Theorem 2.2 and its (eps, delta) form.

    Examples
    --------
    >>> from dppack import PrivacyLoss
    >>> from dppack.accounting import group_loss
    >>> group_loss(PrivacyLoss.pure(0.5)).eps
    1.0
    """
    k = int(size)
    if k < 1:
        raise ValueError("size must be a whole number >= 1.")
    eps, delta = loss.eps, loss.delta
    if not delta:
        return PrivacyLoss.pure(k * eps)
    total = math.inf
    if (k - 1) * eps < 700:
        terms = [math.exp(i * eps) * delta for i in range(k)]
        total = raise_by_margin(math.fsum(terms), math.fsum(terms))
    if not total < 1.0:
        raise _messages.value_error(
            "The loss of a group of {size} records is vacuous (delta >= 1).", size=k)
    return PrivacyLoss.approx(k * eps, total)


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

    References
    ----------
    Bun M, Steinke T (2016), Proposition 1.4.

    Examples
    --------
    >>> from dppack.accounting import dp_to_zcdp
    >>> dp_to_zcdp(1.0)
    0.5
    """
    eps = _checks.check_finite_positive_scalar(eps, "eps")
    return PrivacyLoss.pure(eps).to_zcdp().rho


def zcdp_to_approx_dp(rho, delta):
    """The eps of the (eps, delta)-DP that rho-zCDP implies: rho + 2 sqrt(rho log(1/delta)) (P2).

    Tighter: :meth:`PrivacyLoss.to_approx`.

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

    References
    ----------
    Bun M, Steinke T (2016), Proposition 1.3.

    Examples
    --------
    >>> from dppack.accounting import zcdp_to_approx_dp
    >>> round(zcdp_to_approx_dp(0.5, 1e-6), 4)  # 0.5 + 2 sqrt(0.5 ln(1e6))
    5.7565
    """
    rho = _checks.check_finite_positive_scalar(rho, "rho")
    delta = _checks.check_probability(delta, "delta", high_message=DELTA_MESSAGE)
    return PrivacyLoss.zcdp(rho).to_approx(delta, method="bun_steinke").eps


def zcdp_from_approx_dp(eps, delta):
    """The largest rho whose zCDP implies (eps, delta)-DP through P2.

    Parameters
    ----------
    eps : float
        > 0 and finite.
    delta : float
        In (0, 1).

    Returns
    -------
    float
        (sqrt(log(1/delta) + eps) - sqrt(log(1/delta)))^2.

    Raises
    ------
    ValueError
        If ``eps`` or ``delta`` is out of range.

    References
    ----------
    Bun M, Steinke T (2016), Proposition 1.3, solved for rho.

    Examples
    --------
    >>> from dppack.accounting import zcdp_from_approx_dp, zcdp_to_approx_dp
    >>> rho = zcdp_from_approx_dp(1.0, 1e-6)
    >>> round(rho, 6)
    0.017469
    >>> zcdp_to_approx_dp(rho, 1e-6) <= 1.0 + 1e-12  # the round trip gives eps back
    True
    """
    eps = _checks.check_finite_positive_scalar(eps, "eps")
    delta = _checks.check_probability(delta, "delta", high_message=DELTA_MESSAGE)
    log_term = math.log(1.0 / delta)
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

    References
    ----------
    Bun M, Steinke T (2016), Proposition 1.6.

    Examples
    --------
    >>> from dppack.accounting import zcdp_gaussian_sd
    >>> zcdp_gaussian_sd(1.0, 0.5)
    1.0
    """
    sensitivity = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
    rho = _checks.check_finite_positive_scalar(rho, "rho")
    return sensitivity / math.sqrt(2.0 * rho)


def compose_dp(*eps):
    """Total pure DP budget of mechanisms run in sequence on the same data: the sum (P4).

    Parameters
    ----------
    *eps : float
        The mechanisms' budgets, each finite and > 0.

    Returns
    -------
    float
        The sum; 0 for no budgets.

    Raises
    ------
    ValueError
        If a budget is not one finite number > 0.

    References
    ----------
    Dwork C, Roth A (2014), Theorem 3.16.

    Examples
    --------
    >>> from dppack.accounting import compose_dp
    >>> compose_dp(0.5, 0.25, 0.25)
    1.0
    """
    return compose(*(PrivacyLoss.pure(_checks.check_finite_positive_scalar(e, "eps"))
                     for e in eps)).eps


def compose_zcdp(*rho):
    """Total zCDP budget of mechanisms run in sequence on the same data: the sum (P4).

    Parameters
    ----------
    *rho : float
        The mechanisms' zCDP budgets, each finite and > 0.

    Returns
    -------
    float
        The sum; 0 for no budgets.

    Raises
    ------
    ValueError
        If a budget is not one finite number > 0.

    References
    ----------
    Bun M, Steinke T (2016) (composition of zCDP).

    Examples
    --------
    >>> from dppack.accounting import compose_zcdp
    >>> compose_zcdp(0.125, 0.375)
    0.5
    """
    losses = [PrivacyLoss.zcdp(_checks.check_finite_positive_scalar(r, "rho")) for r in rho]
    return compose(*losses).rho if losses else 0.0
