"""Privacy accounting: one value type for privacy losses, their composition and conversion,
and a budget accountant.

Small functions over numbers, no noise and no data. :class:`PrivacyLoss` states what a release
spent: pure eps-DP, approximate (eps, delta)-DP or rho-zCDP. Every composition and conversion
rule of the package lives here, once:

* sequential composition: eps's and delta's add (Dwork and Roth 2014, Theorem 3.16), rho's add
  (Bun and Steinke 2016, composition of zCDP) (P4); parallel composition on disjoint data: the
  maximum (McSherry 2009, Theorem 4);
* advanced composition of k (eps, delta)-DP steps (Dwork, Rothblum and Vadhan 2010,
  Theorem III.3; Dwork and Roth 2014, Theorem 3.20) and its inverse;
* eps-DP implies (eps^2 / 2)-zCDP (Bun and Steinke 2016, Proposition 1.4) (P1);
* rho-zCDP implies (eps, delta)-DP with the tight conversion of Canonne, Kamath and Steinke
  (2020, Corollary 13), never worse than Bun and Steinke's rho + 2 sqrt(rho log(1/delta)) (P2);
* amplification by subsampling: ln(1 + q (e^eps - 1)), q delta (Balle, Barthe and Gaboardi
  2018);
* adding N(0, sigma^2 I) to a function of L2 sensitivity Delta is rho-zCDP for
  sigma = Delta / sqrt(2 rho) (P3).

:class:`BudgetAccountant` records spends against a budget (eps, delta), composes them (basic,
or through zCDP when that is smaller) and refuses an overspend before anything is recorded.
Used as a context manager it is the session's default accountant (:func:`current_accountant`).

The older helpers (:func:`compose_dp`, :func:`dp_to_zcdp`, :func:`zcdp_to_approx_dp`, ...) keep
their signatures and results and call the same implementation. P1-P4 name the facts above, which
Wang, Kifer and Lee (2019) use for their intervals.

References
----------
Balle B, Barthe G, Gaboardi M (2018). Privacy amplification by subsampling: tight analyses via
couplings and divergences. Advances in Neural Information Processing Systems 31.

Bun M, Steinke T (2016). Concentrated differential privacy: simplifications, extensions, and
lower bounds. Theory of Cryptography Conference, 635-658. arXiv:1605.02065.

Canonne C L, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
Advances in Neural Information Processing Systems 33. arXiv:2004.00010.

Dwork C, Roth A (2014). The algorithmic foundations of differential privacy. Foundations and
Trends in Theoretical Computer Science 9(3-4).

Dwork C, Rothblum G N, Vadhan S (2010). Boosting and differential privacy. IEEE Symposium on
Foundations of Computer Science, 51-60.

McSherry F (2009). Privacy integrated queries. ACM SIGMOD International Conference on
Management of Data, 19-30.
"""

import contextvars
import functools
import math
from fractions import Fraction
import numbers
import threading

import numpy as np

from . import _checks, _messages

__all__ = [
    "BudgetAccountant",
    "BudgetExceededError",
    "PrivacyLoss",
    "advanced_composition",
    "advanced_composition_inverse",
    "amplify_by_subsampling",
    "charge",
    "compose",
    "compose_dp",
    "compose_zcdp",
    "group_loss",
    "current_accountant",
    "dp_to_zcdp",
    "parallel",
    "resolve_accountant",
    "UNCHARGED",
    "zcdp_from_approx_dp",
    "zcdp_gaussian_sd",
    "zcdp_to_approx_dp",
]


# The text of the module functions' delta above 1 (the vocabulary's other texts are its own)
_DELTA_MESSAGE = "delta must be in (0, 1)."


class BudgetExceededError(ValueError):
    """A spend refused because it would take the accountant's total over its budget.

    A subclass of ``ValueError``, so code that catches ``ValueError`` keeps working; catch
    ``BudgetExceededError`` to tell an overspend from invalid arguments. Nothing was recorded
    when it is raised. In R the error has the class ``"DPpackPy_budget_exceeded"`` (before
    ``"error"`` and ``"condition"``), for ``tryCatch(..., DPpackPy_budget_exceeded = ...)``.

    Parameters
    ----------
    message : str
        The refusal: the spend, its label, the total it would bring, the budget and the
        remainder.

    Attributes
    ----------
    r_message : str
        The same text in R's spelling (set by the accountant).

    References
    ----------
    Dwork C, Roth A (2014), Theorem 3.16 (the sequential composition the total follows).

    Examples
    --------
    >>> from dppack import BudgetAccountant, BudgetExceededError, PrivacyLoss
    >>> acc = BudgetAccountant(1.0)
    >>> try:
    ...     acc.spend(PrivacyLoss.pure(2.0))
    ... except BudgetExceededError as error:
    ...     print(type(error).__name__, isinstance(error, ValueError))
    BudgetExceededError True
    """

    def __init__(self, message):
        super().__init__(message)


# ---- exact arithmetic on the losses' floats ------------------------------------------------
#
# A budget is compared with totals, so every total is a float at least its exact value (and
# every remainder a float at most its exact value): the floats are added and subtracted exactly
# and rounded once, in the safe direction (math.fsum, then the sign of the exact residual), and
# multiplied as fractions (every float is one). Ten
# spends of 0.1 (the double 0.1000000000000000055...) then total 1.0000000000000002 > 1, not
# the nearest float 1.0, and are refused by a budget of 1; sums that fit exactly (0.5 + 0.25 +
# 0.25) give the exact float. Formulas with logarithms, roots and exponentials (conversions,
# advanced composition, amplification) are evaluated in floats, each operation within one ulp
# (IEEE 754 and the C library's log, sqrt, exp), and then raised by _MARGIN times the sum of
# the magnitudes of their terms, which covers those few roundings.

# 16 units of roundoff (2^-53 each): the formulas below take at most about 6 (a few
# operations each within half an ulp, the C library's log, exp, sqrt within one ulp)
_MARGIN = 2.0 ** -49


def _round_up(value):
    """The smallest float >= the fraction ``value`` (+inf beyond the largest float)."""
    try:
        result = float(value)  # int / int is correctly rounded in Python
    except OverflowError:
        return math.inf
    if Fraction(result) < value:
        result = math.nextafter(result, math.inf)
    return result


def _round_down(value):
    """The largest float <= the fraction ``value``."""
    result = float(value)
    if Fraction(result) > value:
        result = math.nextafter(result, -math.inf)
    return result


def _directed_sum(values, direction):
    """The exact sum of the finite floats ``values`` rounded towards ``direction`` (+inf or
    -inf). math.fsum is the sum correctly rounded (Shewchuk's exact partials); the residual
    exact sum - s, again by fsum, is a nonzero multiple of 2^-1074 unless s is exact, and its
    correct rounding keeps its sign, so one step of nextafter gives the directed rounding."""
    try:
        total = math.fsum(values)
    except OverflowError:  # a sum beyond the largest float (no budget comes near)
        return math.inf if direction > 0 else -math.inf
    residual = math.fsum(values + [-total])
    if (residual > 0.0 and direction > 0) or (residual < 0.0 and direction < 0):
        total = math.nextafter(total, direction)
    return total


def _sum_up(values):
    """The smallest float >= the exact sum of the floats ``values`` (inf if one is inf)."""
    values = [float(v) for v in values]
    if not all(math.isfinite(v) for v in values):
        return math.fsum(values)
    return _directed_sum(values, math.inf)


def _difference_down(minuend, values):
    """The largest float <= ``minuend`` minus the exact sum of the floats ``values``."""
    return _directed_sum([float(minuend)] + [-float(v) for v in values], -math.inf)


@functools.lru_cache(maxsize=4096)
def _half_square_up(eps):
    """eps^2 / 2 rounded up (the rho of eps-DP), exactly; cached: the accountant converts
    every pure spend of its ledger at each check."""
    return _round_up(Fraction(eps) ** 2 / 2)


def _raise_by_margin(value, magnitude):
    """``value`` raised above the rounding errors of its float evaluation (``magnitude``: the
    sum of the absolute values of the terms it was computed from)."""
    if not math.isfinite(value):
        return value
    return math.nextafter(value + _MARGIN * abs(magnitude), math.inf)


def group_loss(loss, size=2):
    """The privacy loss of a pure or (eps, delta) release for groups of ``size`` records.

    Parameters
    ----------
    loss : PrivacyLoss
        A pure or approximate loss (eps, delta) for neighbours differing in one record.
    size : int, default 2
        k >= 1, how many records the two datasets differ in.

    Returns
    -------
    PrivacyLoss
        (k eps, delta (1 + e^eps + ... + e^((k - 1) eps))), delta rounded up above its float
        evaluation (the accountant's rule); pure when delta = 0.

    Raises
    ------
    ValueError
        If ``size`` < 1, or if the group's delta is 1 or more (no guarantee left).

    References
    ----------
    Dwork, C. and Roth, A. (2014). The algorithmic foundations of differential privacy,
    Theorem 2.2 and its (eps, delta) form.

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
        total = _raise_by_margin(math.fsum(terms), math.fsum(terms))
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
    Bun M, Steinke T (2016), Proposition 1.3. The
    tighter conversion of Canonne, Kamath and Steinke (2020) is
    :meth:`PrivacyLoss.to_approx`.

    Examples
    --------
    >>> from dppack.accounting import zcdp_to_approx_dp
    >>> round(zcdp_to_approx_dp(0.5, 1e-6), 4)  # 0.5 + 2 sqrt(0.5 ln(1e6))
    5.7565
    """
    rho = _checks.check_finite_positive_scalar(rho, "rho")
    delta = _checks.check_probability(delta, "delta", high_message=_DELTA_MESSAGE)
    return PrivacyLoss.zcdp(rho).to_approx(delta, method="bun_steinke").eps


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
    delta = _checks.check_probability(delta, "delta", high_message=_DELTA_MESSAGE)
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
    """Total pure DP budget of mechanisms run in sequence on the same data: the sum (P4)
    (:meth:`PrivacyLoss.compose` of pure losses).

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
    """Total zCDP budget of mechanisms run in sequence on the same data: the sum (P4)
    (:meth:`PrivacyLoss.compose` of zCDP losses).

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


# --------------------------------------------------------------------------------------------
# The formulas, on plain numbers (callers check the arguments; PrivacyLoss's methods do)
# --------------------------------------------------------------------------------------------


def _float_bisection(below, low, high):
    """Bisection on floats: given below(low) true and below(high) false for a predicate that
    switches once, the adjacent pair (low, high) where it switches."""
    for _ in range(2100):  # a float bisection ends within about 1100 halvings
        mid = low + (high - low) / 2.0
        if mid in (low, high):
            break
        if below(mid):
            low = mid
        else:
            high = mid
    return low, high


def _bun_steinke_eps(rho, delta):
    """rho + 2 sqrt(rho log(1/delta)) (Bun and Steinke 2016, Proposition 1.3) (P2), rounded
    up."""
    eps = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    return _raise_by_margin(eps, eps)


def _tight_zcdp_eps(rho, delta):
    """The smallest eps >= 0 for which rho-zCDP implies (eps, delta)-DP by Canonne, Kamath and
    Steinke (2020), Corollary 13 (from their Proposition 12).

    The corollary: rho-zCDP implies (eps, delta)-DP for
    delta = inf_{a > 1} exp((a - 1)(a rho - eps)) / a * (1 - 1/a)^(a - 1). Solving for eps at a
    fixed a gives eps(a) = a rho + log(1 - 1/a) + (log(1/delta) - log a) / (a - 1), and the
    answer is the infimum over a. With u = a - 1, d eps / d a has the sign of
    h(u) = rho u^2 + log(1 + u) - log(1/delta), which increases from -log(1/delta) < 0 at u = 0:
    eps(a) has one minimum, at the root of h, found by bisection on floats. Any a gives a valid
    eps, so the value returned is eps at a computed a, never an interpolation. Bun and
    Steinke's bound is the minimum of the larger a rho + log(1/delta) / (a - 1), reached at
    u = sqrt(log(1/delta) / rho); eps is evaluated there too, so the result never exceeds it.
    """
    if rho == 0.0:
        return 0.0
    log_inv = math.log(1.0 / delta)

    def eps_at(u):
        # raised above its rounding errors: the terms have both signs
        terms = ((1.0 + u) * rho, math.log(u), -math.log1p(u), (log_inv - math.log1p(u)) / u)
        return _raise_by_margin(math.fsum(terms), sum(abs(t) for t in terms) + log_inv / u)

    u_bun_steinke = math.sqrt(log_inv) / math.sqrt(rho)  # h > 0 there: an upper bracket
    _, high = _float_bisection(lambda u: rho * u * u + math.log1p(u) - log_inv < 0.0,
                               0.0, u_bun_steinke)
    return max(0.0, min(eps_at(high), eps_at(u_bun_steinke)))


def advanced_composition(eps, delta, k, delta_prime):
    """Advanced composition of k (eps, delta)-DP steps, on numbers.

    (eps sqrt(2 k ln(1/delta')) + k eps (e^eps - 1), delta' + k delta): Dwork, Rothblum and
    Vadhan (2010), Theorem III.3; Dwork and Roth (2014), Theorem 3.20. The arguments are not
    checked (:meth:`PrivacyLoss.advanced_composition` checks them); an eps beyond about 700,
    where e^eps overflows a float, gives an infinite total.

    Parameters
    ----------
    eps, delta : float
        Per-step loss, eps >= 0, delta >= 0.
    k : int
        Number of steps.
    delta_prime : float
        The extra delta' in (0, 1) the bound pays.

    Returns
    -------
    (float, float)
        The total (eps, delta); eps may be ``inf``.

    References
    ----------
    Dwork C, Rothblum G N, Vadhan S (2010), Theorem III.3; Dwork C, Roth A (2014),
    Theorem 3.20.

    Examples
    --------
    >>> from dppack.accounting import advanced_composition
    >>> eps, delta = advanced_composition(0.1, 1e-6, 100, 1e-6)
    >>> round(eps, 4), round(delta, 12)
    (6.3082, 0.000101)
    """
    # e^eps - 1 overflows a float (OverflowError in math.expm1) beyond eps ~ 709: the total
    # is then +Inf, which keeps a bisection over eps well defined.
    growth = math.expm1(eps) if eps < 700.0 else math.inf
    eps_total = eps * math.sqrt(2.0 * k * math.log(1.0 / delta_prime)) + k * eps * growth
    # rounded up (positive terms: a relative margin), the delta exactly
    return (_raise_by_margin(eps_total, eps_total),
            _round_up(Fraction(delta_prime) + k * Fraction(delta)))


def advanced_composition_inverse(eps_total, k, delta_prime):
    """The per-step eps whose advanced composition over k steps is eps_total, on numbers.

    The largest float e >= 0 with e sqrt(2 k ln(1/delta')) + k e (e^e - 1) <= eps_total (the
    left side increases in e), by bisection on floats: composing k steps at the result never
    exceeds eps_total. The arguments are not checked
    (:meth:`PrivacyLoss.advanced_composition_inverse` checks them).

    Parameters
    ----------
    eps_total : float
        The total eps, >= 0.
    k : int
        Number of steps.
    delta_prime : float
        The delta' in (0, 1) of the bound.

    Returns
    -------
    float

    References
    ----------
    Dwork C, Rothblum G N, Vadhan S (2010), Theorem III.3; Dwork C, Roth A (2014),
    Theorem 3.20 (inverted numerically).

    Examples
    --------
    >>> from dppack.accounting import advanced_composition, advanced_composition_inverse
    >>> e = advanced_composition_inverse(1.0, 10, 0.01)
    >>> round(e, 5)
    0.09445
    >>> advanced_composition(e, 0.0, 10, 0.01)[0] <= 1.0
    True
    """
    def total(e):
        return advanced_composition(e, 0.0, k, delta_prime)[0]

    # total(e) >= e sqrt(2 k ln(1/delta')), and total(710) = +Inf: a bracket once rounding is
    # allowed for by doubling
    low = 0.0
    high = min(eps_total / math.sqrt(2.0 * k * math.log(1.0 / delta_prime)), 710.0)
    while total(high) <= eps_total:
        low, high = high, 2.0 * high
    return _float_bisection(lambda e: total(e) <= eps_total, low, high)[0]


def amplify_by_subsampling(eps, delta, sampled, population=1):
    """Amplification by subsampling of an (eps, delta)-DP mechanism, on numbers.

    The mechanism runs on a subsample drawn at rate q = sampled / population; the result is
    (ln(1 + q (e^eps - 1)), q delta)-DP (Balle, Barthe and Gaboardi 2018, for Poisson sampling
    with add/remove-one neighbours, and for a uniform subset of fixed size m = q n drawn
    without replacement with replace-one neighbours). ``sampled / population`` is computed as
    ``x * sampled / population``, so that ``(1, n)`` divides by n exactly. The arguments are not
    checked (:meth:`PrivacyLoss.amplify_by_subsampling` checks them).

    Parameters
    ----------
    eps, delta : float
        The mechanism's loss on the subsample.
    sampled, population : float
        q = sampled / population in (0, 1]: m records of n, or a Poisson rate q with
        ``population=1``.

    Returns
    -------
    (float, float)
        The amplified (eps, delta).

    References
    ----------
    Balle B, Barthe G, Gaboardi M (2018), Privacy amplification by subsampling: tight
    analyses via couplings and divergences.

    Examples
    --------
    >>> from dppack.accounting import amplify_by_subsampling
    >>> eps, delta = amplify_by_subsampling(1.0, 1e-5, 1, 100)
    >>> round(eps, 6), round(delta, 15)
    (0.017037, 1e-07)
    """
    if sampled == population:  # no subsampling: the loss as it is
        return eps, delta
    # rounded up above the float evaluation's errors
    if eps < 700.0:
        eps_amplified = math.log1p(math.expm1(eps) * sampled / population)
        eps_amplified = _raise_by_margin(eps_amplified, eps_amplified)  # positive terms
    else:  # e^eps overflows: ln(q e^eps (1 + (1 - q) e^-eps / q)), q > 0
        q = sampled / population
        eps_amplified = eps + math.log(q) + math.log1p((1.0 - q) * math.exp(-eps) / q)
        eps_amplified = _raise_by_margin(eps_amplified, eps - math.log(q) + 1.0)
    ratio = Fraction(sampled) / Fraction(population)
    return eps_amplified, _round_up(Fraction(delta) * ratio)


# --------------------------------------------------------------------------------------------
# Argument checks: numbers through the vocabulary of ``_checks`` (strict: Python and numpy
# numbers only; R spells delta_prime as delta.prime); the losses' own checks here
# --------------------------------------------------------------------------------------------


def _as_loss(value, context):
    if not isinstance(value, PrivacyLoss):
        raise _messages.type_error(
            f"{context} takes PrivacyLoss values (PrivacyLoss.pure, .approx or "
            ".zcdp); got {kind}.", kind=type(value).__name__)
    return value


def _total_delta(delta):
    if not delta < 1.0:
        raise _messages.value_error("The composed delta = {delta:.6g} is >= 1: the guarantee is "
                                    "vacuous.", delta=delta)
    return delta


def _common_kind(losses, verb):
    """'zcdp' if the losses combine in zCDP (pure ones converted), else 'approx'; refuses
    approximate losses with delta > 0 mixed with zCDP ones."""
    kinds = {loss._kind for loss in losses}
    if "zcdp" not in kinds:
        return "approx"
    if "approx" in kinds:
        raise _messages.value_error(
            f"Cannot {verb} (eps, delta)-DP with delta > 0 and rho-zCDP "
            "directly: convert the zCDP losses with .to_approx(delta) first, or "
            "record both in a BudgetAccountant, which converts at its delta.")
    return "zcdp"


# --------------------------------------------------------------------------------------------
# PrivacyLoss
# --------------------------------------------------------------------------------------------


class PrivacyLoss:
    """What a release spends: pure eps-DP, approximate (eps, delta)-DP or rho-zCDP.

    An immutable, hashable value. Build it with :meth:`pure`, :meth:`approx` or :meth:`zcdp`;
    ``approx(eps, 0)`` is the pure loss. Losses compose in sequence with ``+`` (or
    :meth:`compose`), in parallel on disjoint data with :meth:`parallel`, k times with
    ``k * loss`` or :meth:`advanced_composition`, and convert with :meth:`to_zcdp` and
    :meth:`to_approx`.

    Attributes
    ----------
    kind : {'pure', 'approx', 'zcdp'}
    eps, delta : float
        For pure and approximate losses (``delta`` is 0 for a pure one). A zCDP loss has no
        single (eps, delta): reading them raises ``AttributeError``; use :meth:`to_approx`.
    rho : float
        For zCDP losses (a pure loss gives its rho through :meth:`to_zcdp`).

    Parameters
    ----------
    *args, **kwargs
        None accepted: the constructor is closed; build a loss with :meth:`pure`,
        :meth:`approx` or :meth:`zcdp`.

    Raises
    ------
    TypeError
        When called directly, ``PrivacyLoss(...)``.

    References
    ----------
    See the module's references: Dwork and Roth (2014), Bun and Steinke (2016), Canonne, Kamath
    and Steinke (2020), Dwork, Rothblum and Vadhan (2010), Balle, Barthe and Gaboardi (2018),
    McSherry (2009).

    Examples
    --------
    >>> from dppack import PrivacyLoss
    >>> PrivacyLoss.pure(0.5) + PrivacyLoss.approx(0.25, 1e-6)
    PrivacyLoss.approx(eps=0.75, delta=1e-06)
    >>> PrivacyLoss.pure(0.5) + PrivacyLoss.zcdp(0.03125)
    PrivacyLoss.zcdp(rho=0.15625)
    >>> print(PrivacyLoss.zcdp(0.5))
    rho = 0.5 (zCDP)
    >>> round(PrivacyLoss.zcdp(0.5).to_approx(1e-6).eps, 4)
    5.2215
    >>> PrivacyLoss.approx(1.0, 0.0) == PrivacyLoss.pure(1.0)
    True
    """

    __slots__ = ("_kind", "_eps", "_delta", "_rho")

    def __init__(self, *args, **kwargs):
        raise _messages.type_error("Build a PrivacyLoss with PrivacyLoss.pure(eps), "
                                   "PrivacyLoss.approx(eps, delta) or PrivacyLoss.zcdp(rho).")

    @classmethod
    def _make(cls, kind, eps=None, delta=None, rho=None):
        loss = object.__new__(cls)
        object.__setattr__(loss, "_kind", kind)
        object.__setattr__(loss, "_eps", eps)
        object.__setattr__(loss, "_delta", delta)
        object.__setattr__(loss, "_rho", rho)
        return loss

    def __setattr__(self, name, value):
        raise AttributeError("PrivacyLoss is immutable: build a new one.")

    def __delattr__(self, name):
        raise AttributeError("PrivacyLoss is immutable: build a new one.")

    def __reduce__(self):
        return (PrivacyLoss._make, (self._kind, self._eps, self._delta, self._rho))

    # ---- constructors ----------------------------------------------------------------------

    @classmethod
    def pure(cls, eps):
        """A pure eps-DP loss.

        Parameters
        ----------
        eps : float
            Finite, >= 0 (0 for a release that spends nothing).

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            If ``eps`` is not one finite number >= 0.

        Examples
        --------
        >>> PrivacyLoss.pure(1)
        PrivacyLoss.pure(eps=1.0)
        """
        # + 0.0: a loss never holds -0.0 (it would print as such)
        eps = _checks.check_number(eps, "eps", low=0, finite=True, strict=True) + 0.0
        return cls._make("pure", eps=eps, delta=0.0)

    @classmethod
    def approx(cls, eps, delta):
        """An approximate (eps, delta)-DP loss; with ``delta = 0`` the pure eps-DP loss.

        Parameters
        ----------
        eps : float
            Finite, >= 0.
        delta : float
            In [0, 1).

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            If ``eps`` or ``delta`` is out of range.

        Examples
        --------
        >>> PrivacyLoss.approx(1, 1e-5)
        PrivacyLoss.approx(eps=1.0, delta=1e-05)
        >>> PrivacyLoss.approx(1, 0).kind
        'pure'
        """
        eps = _checks.check_number(eps, "eps", low=0, finite=True, strict=True) + 0.0
        delta = _checks.check_number(delta, "delta", 0, 1, closed="left", strict=True) + 0.0
        if delta == 0.0:
            return cls._make("pure", eps=eps, delta=0.0)
        return cls._make("approx", eps=eps, delta=delta)

    @classmethod
    def zcdp(cls, rho):
        """A rho-zCDP loss (Bun and Steinke 2016).

        Parameters
        ----------
        rho : float
            Finite, >= 0.

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            If ``rho`` is not one finite number >= 0.

        Examples
        --------
        >>> PrivacyLoss.zcdp(0.125)
        PrivacyLoss.zcdp(rho=0.125)
        """
        rho = _checks.check_number(rho, "rho", low=0, finite=True, strict=True) + 0.0
        return cls._make("zcdp", rho=rho)

    # ---- fields ----------------------------------------------------------------------------

    @property
    def kind(self):
        """'pure', 'approx' or 'zcdp'."""
        return self._kind

    def _approx_field(self, name):
        if self._kind == "zcdp":
            raise AttributeError(f"A rho-zCDP loss has no single {name}: use .to_approx(delta) "
                                 "for its (eps, delta)-DP guarantee.")
        return getattr(self, "_" + name)

    @property
    def eps(self):
        """The eps of a pure or approximate loss."""
        return self._approx_field("eps")

    @property
    def delta(self):
        """The delta of a pure (0) or approximate loss."""
        return self._approx_field("delta")

    @property
    def rho(self):
        """The rho of a zCDP loss."""
        if self._kind != "zcdp":
            raise AttributeError(f"A {self._describe_kind()} loss has no rho: use .to_zcdp() "
                                 "(pure losses only).")
        return self._rho

    def _describe_kind(self):
        return {"pure": "pure DP", "approx": "(eps, delta)-DP", "zcdp": "zCDP"}[self._kind]

    # ---- value semantics -------------------------------------------------------------------

    def _key(self):
        return (self._kind, self._eps, self._delta, self._rho)

    def __eq__(self, other):
        if not isinstance(other, PrivacyLoss):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        if self._kind == "pure":
            return f"PrivacyLoss.pure(eps={self._eps!r})"
        if self._kind == "approx":
            return f"PrivacyLoss.approx(eps={self._eps!r}, delta={self._delta!r})"
        return f"PrivacyLoss.zcdp(rho={self._rho!r})"

    def __str__(self):
        if self._kind == "pure":
            return f"eps = {self._eps:.6g} (pure DP)"
        if self._kind == "approx":
            return f"(eps, delta) = ({self._eps:.6g}, {self._delta:.6g})"
        return f"rho = {self._rho:.6g} (zCDP)"

    # ---- composition -----------------------------------------------------------------------

    @staticmethod
    def compose(*losses):
        """Sequential composition: the loss of running all the releases on the same data.

        Pure and approximate losses add their eps's and their delta's (basic composition, Dwork
        and Roth 2014, Theorem 3.16); zCDP losses add their rho's (Bun and Steinke 2016). Pure
        losses composed with zCDP ones are converted to zCDP first (eps-DP is
        (eps^2/2)-zCDP, :meth:`to_zcdp`) and the result is zCDP. An approximate loss with
        delta > 0 and a zCDP loss are refused: no delta is given to convert at (use
        :meth:`to_approx` or a :class:`BudgetAccountant`). Adaptive choice of the later
        releases is allowed. ``a + b`` is ``compose(a, b)``; no losses compose to
        ``pure(0)``.

        Parameters
        ----------
        *losses : PrivacyLoss

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            On an approximate loss mixed with a zCDP one, or a total delta >= 1.
        TypeError
            If an argument is not a PrivacyLoss.

        References
        ----------
        Dwork C, Roth A (2014), Theorem 3.16; Bun M, Steinke T (2016), composition of zCDP
        and Proposition 1.4.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> PrivacyLoss.compose(PrivacyLoss.pure(0.5), PrivacyLoss.pure(0.25),
        ...                     PrivacyLoss.approx(0.25, 1e-6))
        PrivacyLoss.approx(eps=1.0, delta=1e-06)
        >>> PrivacyLoss.compose(PrivacyLoss.zcdp(0.1), PrivacyLoss.zcdp(0.2)).rho
        0.30000000000000004
        """
        losses = [_as_loss(loss, "compose") for loss in losses]
        if _common_kind(losses, "compose") == "zcdp":
            return PrivacyLoss.zcdp(_sum_up(loss.to_zcdp()._rho for loss in losses))
        delta = _total_delta(_sum_up(loss._delta for loss in losses))
        return PrivacyLoss.approx(_sum_up(loss._eps for loss in losses), delta)

    @staticmethod
    def parallel(*losses):
        """Parallel composition: releases on disjoint parts of the data.

        When each record can change the data of at most one part (the parts are formed by a
        rule that looks at each record alone, and neighbouring data sets differ in one part),
        the releases together spend the largest of their losses (McSherry 2009, Theorem 4):
        the maximum eps and the maximum delta, or the maximum rho. Mixing follows
        :meth:`compose`: pure with zCDP gives zCDP, approximate with zCDP is refused.

        Parameters
        ----------
        *losses : PrivacyLoss

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            On an approximate loss mixed with a zCDP one.
        TypeError
            If an argument is not a PrivacyLoss.

        References
        ----------
        McSherry F (2009), Privacy integrated queries, Theorem 4.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> PrivacyLoss.parallel(PrivacyLoss.pure(0.5), PrivacyLoss.approx(0.25, 1e-6))
        PrivacyLoss.approx(eps=0.5, delta=1e-06)
        """
        losses = [_as_loss(loss, "parallel") for loss in losses]
        if not losses:
            return PrivacyLoss.pure(0.0)
        if _common_kind(losses, "combine") == "zcdp":
            return PrivacyLoss.zcdp(max(loss.to_zcdp()._rho for loss in losses))
        return PrivacyLoss.approx(max(loss._eps for loss in losses),
                                  max(loss._delta for loss in losses))

    def __add__(self, other):
        if not isinstance(other, PrivacyLoss):
            return NotImplemented
        return PrivacyLoss.compose(self, other)

    def __radd__(self, other):
        # sum(losses) starts from the integer 0
        if isinstance(other, numbers.Integral) and not isinstance(other, bool) and other == 0:
            return self
        return NotImplemented

    def __mul__(self, k):
        """``k * loss``: k sequential runs (basic composition, as :meth:`compose` of k copies)."""
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, numbers.Integral):
            return NotImplemented
        k = _checks.check_whole(k, "k", 0, strict=True)
        if self._kind == "zcdp":
            return PrivacyLoss.zcdp(_round_up(k * Fraction(self._rho)))
        return PrivacyLoss.approx(_round_up(k * Fraction(self._eps)),
                                  _total_delta(_round_up(k * Fraction(self._delta))))

    __rmul__ = __mul__

    def advanced_composition(self, k, delta_prime):
        """Advanced composition of k runs of this (eps, delta)-DP release.

        (eps sqrt(2 k ln(1/delta')) + k eps (e^eps - 1), k delta + delta')-DP for any
        delta' > 0, also when each release is chosen adaptively (Dwork, Rothblum and Vadhan
        2010, Theorem III.3; Dwork and Roth 2014, Theorem 3.20). It beats basic composition
        (``k * loss``, k eps) for many small steps; for few or large steps it does not, and
        this method returns the advanced bound regardless. zCDP losses compose exactly by adding
        rho: use ``k * loss``.

        Parameters
        ----------
        k : int
            Number of runs, >= 1.
        delta_prime : float
            The extra delta' in (0, 1).

        Returns
        -------
        PrivacyLoss
            An approximate loss.

        Raises
        ------
        ValueError
            For a zCDP loss, an argument out of range, a total delta >= 1 or an eps so large
            that the bound overflows.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> loss = PrivacyLoss.pure(0.01).advanced_composition(1000, 1e-6)
        >>> round(loss.eps, 4), loss.delta
        (1.7628, 1e-06)
        >>> (1000 * PrivacyLoss.pure(0.01)).eps  # the double 0.01 is above 1/100: rounded up
        10.000000000000002
        """
        if self._kind == "zcdp":
            raise _messages.value_error("rho-zCDP composes exactly by adding rho: use k * loss or "
                                        "PrivacyLoss.compose.")
        k = _checks.check_whole(k, "k", 1, strict=True)
        delta_prime = _checks.check_number(delta_prime, "delta.prime", 0, 1, closed="neither",
                                           strict=True)
        eps, delta = advanced_composition(self._eps, self._delta, k, delta_prime)
        if not math.isfinite(eps):
            raise _messages.value_error(
                "The advanced composition of {k} steps at eps = {eps:.6g} "
                "overflows: use basic composition (k * loss).", k=k, eps=self._eps)
        return PrivacyLoss.approx(eps, _total_delta(delta))

    def advanced_composition_inverse(self, k, delta_prime):
        """The per-step loss whose advanced composition over k steps fits this total.

        For a total (eps, delta) and a delta' <= delta: the per-step eps_step is the largest
        with eps_step sqrt(2 k ln(1/delta')) + k eps_step (e^eps_step - 1) <= eps (a monotone
        solve, :func:`advanced_composition_inverse`), and delta_step = (delta - delta') / k,
        so that ``step.advanced_composition(k, delta_prime)`` is within this loss.

        Parameters
        ----------
        k : int
            Number of steps, >= 1.
        delta_prime : float
            The delta' in (0, 1) of the bound, <= this loss's delta.

        Returns
        -------
        PrivacyLoss
            The per-step loss (pure when delta' equals the total delta).

        Raises
        ------
        ValueError
            For a zCDP loss, an argument out of range, or a delta' above the total delta.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> total = PrivacyLoss.approx(1.0, 1e-5)
        >>> step = total.advanced_composition_inverse(100, 1e-5)
        >>> round(step.eps, 6), step.delta
        (0.019998, 0.0)
        >>> step.advanced_composition(100, 1e-5).eps <= 1.0
        True
        """
        if self._kind == "zcdp":
            raise _messages.value_error("rho-zCDP composes exactly by adding rho: divide rho by k.")
        k = _checks.check_whole(k, "k", 1, strict=True)
        delta_prime = _checks.check_number(delta_prime, "delta.prime", 0, 1, closed="neither",
                                           strict=True)
        if delta_prime > self._delta:
            raise _messages.value_error(
                "delta.prime = {delta_prime:.6g} exceeds the total delta = "
                "{delta:.6g}.", delta_prime=delta_prime, delta=self._delta)
        # rounded down, so that delta' + k delta_step <= delta exactly
        delta_step = _round_down((Fraction(self._delta) - Fraction(delta_prime)) / k)
        return PrivacyLoss.approx(advanced_composition_inverse(self._eps, k, delta_prime),
                                  delta_step)

    def amplify_by_subsampling(self, q):
        """The loss of running this release on a random subsample of the data.

        (ln(1 + q (e^eps - 1)), q delta) (Balle, Barthe and Gaboardi 2018). Valid for two
        sampling models: Poisson sampling, each record kept independently with probability q,
        with add/remove-one neighbouring data sets; and a uniformly random subset of fixed size
        m = q n drawn without replacement, with replace-one neighbours. Other pairings (e.g.
        sampling with replacement) need other bounds. zCDP has no such closed form: convert
        with :meth:`to_approx` first.

        Parameters
        ----------
        q : float
            The sampling rate, in (0, 1].

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            For a zCDP loss or q outside (0, 1].

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> loss = PrivacyLoss.approx(1.0, 1e-5).amplify_by_subsampling(0.01)
        >>> round(loss.eps, 6), round(loss.delta, 15)
        (0.017037, 1e-07)
        """
        if self._kind == "zcdp":
            raise _messages.value_error("Amplification by subsampling has no closed form for zCDP: "
                                        "convert with .to_approx(delta) first.")
        q = _checks.check_number(q, "q", 0, 1, closed="right", strict=True)
        return PrivacyLoss.approx(*amplify_by_subsampling(self._eps, self._delta, q))

    # ---- conversions -----------------------------------------------------------------------

    def to_zcdp(self):
        """The zCDP loss this loss implies: eps-DP is (eps^2 / 2)-zCDP (Bun and Steinke 2016,
        Proposition 1.4) (P1); a zCDP loss is returned as it is.

        Returns
        -------
        PrivacyLoss

        Raises
        ------
        ValueError
            For an approximate loss with delta > 0, which implies no zCDP guarantee.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> PrivacyLoss.pure(0.5).to_zcdp()
        PrivacyLoss.zcdp(rho=0.125)
        """
        if self._kind == "zcdp":
            return self
        if self._kind == "approx":
            raise _messages.value_error(
                "An (eps, delta)-DP loss with delta > 0 implies no rho-zCDP "
                "guarantee.")
        return PrivacyLoss.zcdp(_half_square_up(self._eps))

    def to_approx(self, delta, method="tight"):
        """The (eps, delta)-DP guarantee this loss gives at a delta.

        * zCDP: ``method='tight'`` (default) gives the smallest eps of Canonne, Kamath and
          Steinke (2020), Corollary 13: rho-zCDP implies (eps, delta)-DP for
          delta = min over a > 1 of exp((a - 1)(a rho - eps)) / a * (1 - 1/a)^(a - 1),
          minimised numerically over a and never above ``'bun_steinke'``,
          eps = rho + 2 sqrt(rho log(1/delta)) (Bun and Steinke 2016, Proposition 1.3) (P2).
        * pure: eps-DP is (eps, delta)-DP for every delta; the loss is returned as it is,
          unless the route through zCDP (eps^2/2, then the conversion) gives a smaller eps.
        * approximate: returned as it is if its delta <= ``delta`` (refused otherwise).

        Parameters
        ----------
        delta : float
            In (0, 1).
        method : {'tight', 'bun_steinke'}
            The zCDP conversion.

        Returns
        -------
        PrivacyLoss
            A pure or approximate loss with delta at most ``delta``.

        Raises
        ------
        ValueError
            If ``delta`` or ``method`` is out of range, or an approximate loss has a larger
            delta.

        Examples
        --------
        >>> from dppack import PrivacyLoss
        >>> loss = PrivacyLoss.zcdp(1 / 32)
        >>> round(loss.to_approx(1e-3).eps, 10)
        0.6880024555
        >>> round(loss.to_approx(1e-3, method="bun_steinke").eps, 10)
        0.9604805472
        """
        delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
        _checks.check_choice(method, "method", ("tight", "bun_steinke"))
        if self._kind == "approx":
            if self._delta > delta:
                raise _messages.value_error(
                    "An (eps, delta)-DP loss with delta = {own:.6g} "
                    "cannot be stated at the smaller delta = {delta:.6g}.", own=self._delta,
                    delta=delta)
            return self
        rho = self.to_zcdp()._rho
        convert = _tight_zcdp_eps if method == "tight" else _bun_steinke_eps
        eps = convert(rho, delta)
        if self._kind == "pure" and not eps < self._eps:
            return self
        return PrivacyLoss.approx(eps, delta)


compose = PrivacyLoss.compose
parallel = PrivacyLoss.parallel


# --------------------------------------------------------------------------------------------
# BudgetAccountant
# --------------------------------------------------------------------------------------------


def _compose_within(losses, delta_budget):
    """The smallest (eps, delta <= delta_budget) total of ``losses`` over three valid routes,
    with the route's name. Every route composes by the rules of :class:`PrivacyLoss`:

    * 'basic': :meth:`PrivacyLoss.compose` (no zCDP spend);
    * 'zCDP': the pure and zCDP spends composed in zCDP and converted at the delta the
      approximate spends leave (tight conversion), then composed basically with those;
    * 'zCDP + basic': as 'zCDP', with the pure spends composed basically instead (better when
      they are large).

    Raises ``ValueError`` when zCDP spends leave no delta to convert at.
    """
    if not losses:
        return PrivacyLoss.pure(0.0), "none"
    pure = [loss for loss in losses if loss._kind == "pure"]
    approx = [loss for loss in losses if loss._kind == "approx"]
    zcdp = [loss for loss in losses if loss._kind == "zcdp"]
    candidates = []
    if not zcdp:
        candidates.append((PrivacyLoss.compose(*losses), "basic"))
    deltas = [loss._delta for loss in approx]
    # rounded down: the approximate deltas plus the slack are at most the budget, exactly
    slack = max(0.0, _difference_down(delta_budget, deltas))
    if (zcdp or pure) and slack > 0.0:
        in_zcdp = [loss.to_zcdp() for loss in pure + zcdp]  # each pure eps as eps^2 / 2
        converted = PrivacyLoss.compose(*in_zcdp).to_approx(slack)
        candidates.append((PrivacyLoss.compose(converted, *approx), "zCDP"))
        if zcdp and pure:
            converted = PrivacyLoss.compose(*zcdp).to_approx(slack)
            candidates.append((PrivacyLoss.compose(converted, *pure, *approx), "zCDP + basic"))
    if not candidates:
        if delta_budget == 0.0:
            raise _messages.value_error(
                "A rho-zCDP spend needs an accountant with delta > 0, to state "
                "it as (eps, delta)-DP; this accountant's delta is 0.")
        raise _messages.value_error(
            "The (eps, delta) spends use up the accountant's delta and leave none "
            "to convert the rho-zCDP spends at.")
    # smallest eps; on a tie the earlier (basic) route, whose delta is smaller
    return min(candidates, key=lambda candidate: candidate[0]._eps)


_CURRENT = contextvars.ContextVar("dppack_accountant", default=None)


class BudgetAccountant:
    """A privacy budget (eps, delta) and a ledger of what has been spent from it.

    Each spend is a :class:`PrivacyLoss` with a label. The total of the spends is their basic
    composition (eps's and delta's add), or, when it is smaller, their composition in zCDP
    (pure spends as eps^2/2, rho's add) converted to (eps, delta) at the accountant's delta by
    the tight conversion (:meth:`PrivacyLoss.to_approx`); zCDP spends always take that route
    and need ``delta > 0``. A running entry (``RunningCharge``, restated as its release's
    cost grows) is kept apart and composed basically with that total. A spend that would take
    the total over the budget is refused with a :class:`BudgetExceededError` (a
    ``ValueError``) and nothing is recorded.

    The comparison is exact: the spends' eps's, delta's and rho's are added as the exact
    values of their doubles and the total is rounded up to a double (the remainder down), so
    a spend that takes the exact total over the budget is refused even when the nearest double
    of the total equals the budget: ten spends of 0.1 (each the double
    0.1000000000000000055...) do not fit a budget of 1, while 0.5 + 0.25 + 0.25 does. The
    conversions through zCDP, evaluated with logarithms and roots in floating point, are
    raised by 16 units of roundoff of their terms, above their rounding errors.

    Releases use it in two steps, so that an overspend is refused before any data is touched
    or noise drawn::

        acc = accounting.resolve_accountant(accountant)   # the argument, or the session's
        loss = PrivacyLoss.pure(eps)                       # from the arguments alone
        if acc is not None:
            acc.check(loss)                                # raises on an overspend
        ...                                                # checks, data, noise
        if acc is not None:
            acc.spend(loss, "meanDP")                      # checks again and records

    ``with BudgetAccountant(...) as acc:`` makes ``acc`` the session's default accountant
    (:func:`~dppack.accounting.current_accountant`) inside the block; blocks nest, and leaving
    one restores the accountant that was active before. Releases charge the innermost accountant only.

    Parameters
    ----------
    eps : float
        The budget's eps, finite and > 0.
    delta : float, default 0
        The budget's delta, in [0, 1).

    Attributes
    ----------
    budget : PrivacyLoss
        The budget (pure when delta is 0).
    ledger : list of (str, PrivacyLoss)
        The spends in order (a copy).
    spent : PrivacyLoss
        The total of the spends (``PrivacyLoss.pure(0)`` before any).
    composition : str
        How ``spent`` was composed: 'none', 'basic', 'zCDP' or 'zCDP + basic' (pure spends
        composed basically, zCDP ones converted).

    Raises
    ------
    ValueError
        If ``eps`` or ``delta`` is out of range.

    References
    ----------
    Dwork C, Roth A (2014), Theorem 3.16; Bun M, Steinke T (2016); Canonne C L, Kamath G,
    Steinke T (2020), Corollary 13 (see the module's references).

    Examples
    --------
    >>> from dppack import BudgetAccountant, PrivacyLoss
    >>> from dppack.accounting import current_accountant
    >>> acc = BudgetAccountant(1.0, 1e-6)
    >>> acc.spend(PrivacyLoss.pure(0.5), "mean")
    >>> acc.spend(PrivacyLoss.approx(0.25, 1e-7), "variance")
    >>> acc.spent
    PrivacyLoss.approx(eps=0.75, delta=1e-07)
    >>> acc.remaining()
    PrivacyLoss.approx(eps=0.25, delta=9e-07)
    >>> try:
    ...     acc.spend(PrivacyLoss.pure(0.5), "median")
    ... except ValueError as error:
    ...     print(error)  # doctest: +NORMALIZE_WHITESPACE
    Privacy budget exceeded: spending eps = 0.5 (pure DP) on 'median' would bring the total
    to (eps, delta) = (1.25, 1e-07), over the budget (eps, delta) = (1, 1e-06); remaining:
    (eps, delta) = (0.25, 9e-07). Nothing was recorded.
    >>> print(acc)
    BudgetAccountant: budget (eps, delta) = (1, 1e-06)
        #  label     spend
        1  mean      eps = 0.5 (pure DP)
        2  variance  (eps, delta) = (0.25, 1e-07)
    spent (basic composition): (eps, delta) = (0.75, 1e-07)
    remaining: (eps, delta) = (0.25, 9e-07)
    >>> len(acc.ledger)
    2
    >>> with BudgetAccountant(2.0) as session:
    ...     current_accountant() is session
    True
    >>> current_accountant() is None
    True
    """

    def __init__(self, eps, delta=0.0):
        eps = _checks.check_number(eps, "eps", low=0, closed="neither", finite=True, strict=True)
        self._budget = PrivacyLoss.approx(eps, delta)
        self._ledger = []
        self._running = set()  # indices of the RunningCharge entries (composed basically)
        self._lock = threading.Lock()
        self._tokens = []

    # ---- state -----------------------------------------------------------------------------

    @property
    def budget(self):
        """The budget as a PrivacyLoss."""
        return self._budget

    @property
    def eps(self):
        """The budget's eps."""
        return self._budget.eps

    @property
    def delta(self):
        """The budget's delta."""
        return self._budget.delta

    @property
    def ledger(self):
        """The spends in order, as a new list of (label, PrivacyLoss)."""
        with self._lock:
            return list(self._ledger)

    def _total(self, extra=None, replacing=None, running=False):
        """The total and its route: the one rule of composition.

        ``extra``: a further loss (a running entry when ``running``); ``replacing``: the index
        of a ledger entry left out (restated by ``extra``). The running entries
        (``RunningCharge``) are composed basically with the total of the other spends,
        whatever route that total takes; they never enter the zCDP route (see there why).
        """
        rest, held = [], []
        for i, (_, loss) in enumerate(self._ledger):
            if i != replacing:
                (held if i in self._running else rest).append(loss)
        if extra is not None:
            (held if running else rest).append(extra)
        # the zCDP route converts at the delta the running entries leave
        room = max(0.0, _difference_down(self._budget.delta, [loss._delta for loss in held]))
        total, route = _compose_within(rest, room)
        if not held:
            return total, route
        # basic composition with each running entry's pointwise-bounded loss
        total = PrivacyLoss.compose(total, *held)
        return total, {"none": "basic", "zCDP": "zCDP + basic"}.get(route, route)

    @property
    def spent(self):
        """The total of the spends, a pure or approximate PrivacyLoss."""
        with self._lock:
            return self._total()[0]

    @property
    def composition(self):
        """How ``spent`` is composed: 'none', 'basic', 'zCDP' or 'zCDP + basic' (the latter
        also when running entries are added basically to a zCDP total)."""
        with self._lock:
            return self._total()[1]

    def _remaining(self, spent):
        # rounded down: a spend that fits the remainder fits the budget
        return PrivacyLoss.approx(
            max(0.0, _difference_down(self._budget.eps, [spent.eps])),
            max(0.0, _difference_down(self._budget.delta, [spent.delta])))

    def remaining(self):
        """The budget minus what is spent, (eps, delta) each at least 0.

        For pure and approximate spends composed basically, a further spend fits exactly when
        it fits this remainder; through zCDP composition a further spend may fit even when it
        looks larger (the check composes the whole ledger).

        Returns
        -------
        PrivacyLoss
        """
        with self._lock:
            return self._remaining(self._total()[0])

    # ---- spending --------------------------------------------------------------------------

    def _check(self, loss, label, replacing=None, running=False):
        total, _ = self._total(loss, replacing, running)
        budget = self._budget
        if total.eps > budget.eps or total.delta > budget.delta:
            # the label is the caller's text: a value of the message, never translated
            on = " on {label!r}" if label is not None else ""
            what = "restating the entry as" if replacing is not None else "spending"
            # a total that prints as the budget is above it by rounding: show its float
            exact = (f" (the exact sum of the spends' floats, eps = {total.eps!r} and "
                     f"delta = {total.delta!r}, is above it)" if str(total) == str(budget)
                     else "")
            raise _messages.exception(
                BudgetExceededError,
                "Privacy budget exceeded: " + what + " {loss}" + on + " would bring the total to "
                "{total}, over the budget {budget}{exact}; remaining: {remaining}. Nothing was "
                "recorded.", loss=loss, label=label, total=total, budget=budget, exact=exact,
                remaining=self._remaining(self._total()[0]))
        return total

    def check(self, loss):
        """Refuse ``loss`` if spending it would exceed the budget; record nothing.

        Parameters
        ----------
        loss : PrivacyLoss

        Returns
        -------
        PrivacyLoss
            The total the spend would bring.

        Raises
        ------
        BudgetExceededError
            On an overspend (the message names the budget, the spend, the total and the
            remainder).
        ValueError
            For a zCDP spend that the accountant's delta cannot convert.
        TypeError
            If ``loss`` is not a PrivacyLoss.
        """
        loss = _as_loss(loss, "BudgetAccountant.check")
        with self._lock:
            return self._check(loss, None)

    def spend(self, loss, label=None):
        """Record ``loss`` under ``label`` if it fits the budget (checked again, atomically).

        Parameters
        ----------
        loss : PrivacyLoss
        label : str, optional
            What was released (default: "spend <n>").

        Raises
        ------
        BudgetExceededError
            On an overspend (nothing is recorded), as :meth:`check`.
        TypeError
            If ``loss`` is not a PrivacyLoss or ``label`` not a string.
        """
        loss = _as_loss(loss, "BudgetAccountant.spend")
        if label is not None and not isinstance(label, str):
            raise _messages.type_error("label must be a string.")
        with self._lock:
            if label is None:
                label = f"spend {len(self._ledger) + 1}"
            self._check(loss, label)
            self._ledger.append((label, loss))

    # ---- display ---------------------------------------------------------------------------

    def __str__(self):
        with self._lock:
            ledger = list(self._ledger)
            spent, route = self._total()
        lines = [f"BudgetAccountant: budget {self._budget}"]
        if ledger:
            width = max(5, max(len(label) for label, _ in ledger))
            lines.append(f"  {'#':>3}  {'label':<{width}}  spend")
            for i, (label, loss) in enumerate(ledger, start=1):
                mark = " (running: composed basically)" if i - 1 in self._running else ""
                lines.append(f"  {i:>3}  {label:<{width}}  {loss}{mark}")
        else:
            lines.append("  (no spends)")
        how = f" ({route} composition)" if ledger else ""
        lines.append(f"spent{how}: {spent}")
        lines.append(f"remaining: {self._remaining(spent)}")
        return "\n".join(lines)

    def __repr__(self):
        with self._lock:
            n = len(self._ledger)
        return (f"<BudgetAccountant eps={self._budget.eps!r}, delta={self._budget.delta!r}: "
                f"{n} spend{'' if n == 1 else 's'}>")

    def _repr_pretty_(self, printer, cycle):
        printer.text(str(self))

    # ---- session default -------------------------------------------------------------------

    def __enter__(self):
        self._tokens.append(_CURRENT.set(self))
        return self

    def __exit__(self, exc_type, exc_value, traceback):
        _CURRENT.reset(self._tokens.pop())
        return False


def current_accountant():
    """The session's default accountant: the innermost ``with BudgetAccountant(...)`` block's,
    or None outside every block.

    Returns
    -------
    BudgetAccountant or None

    References
    ----------
    ``docs/design-notes.md``, "One privacy-loss type, one accountant, one charging path":
    every release charges the accountant passed to it, or this one.

    Examples
    --------
    >>> from dppack import BudgetAccountant
    >>> from dppack.accounting import current_accountant
    >>> current_accountant() is None
    True
    >>> with BudgetAccountant(1.0) as outer:
    ...     with BudgetAccountant(0.5) as inner:
    ...         current_accountant() is inner
    ...     current_accountant() is outer
    True
    True
    """
    return _CURRENT.get()


class _Uncharged:
    """The type of :data:`UNCHARGED`."""

    __slots__ = ()

    def __repr__(self):
        return "accounting.UNCHARGED"

    def __reduce__(self):
        return "UNCHARGED"


UNCHARGED = _Uncharged()
"""Passed as ``accountant`` by a release to the releases it is built from: they charge no
accountant, not even the session's, because the outer release charges the whole once."""


def resolve_accountant(accountant):
    """The accountant a release charges: ``accountant`` if given, else the session's default;
    none for :data:`UNCHARGED` (an inner step of a release that charges the whole).

    Parameters
    ----------
    accountant : BudgetAccountant, None or UNCHARGED

    Returns
    -------
    BudgetAccountant or None

    Raises
    ------
    TypeError
        If ``accountant`` is neither None nor a BudgetAccountant.

    References
    ----------
    ``docs/design-notes.md``, "One privacy-loss type, one accountant, one charging path".

    Examples
    --------
    >>> from dppack import BudgetAccountant
    >>> from dppack.accounting import UNCHARGED, resolve_accountant
    >>> acc = BudgetAccountant(1.0)
    >>> resolve_accountant(acc) is acc
    True
    >>> with BudgetAccountant(2.0) as session:
    ...     resolve_accountant(None) is session, resolve_accountant(UNCHARGED) is None
    (True, True)
    """
    if accountant is None:
        return current_accountant()
    if accountant is UNCHARGED:
        return None
    if not isinstance(accountant, BudgetAccountant):
        raise _messages.type_error("accountant must be a BudgetAccountant or None.")
    return accountant


class Charge:
    """One release's charge: the budget checked when the charge is made, the spend recorded
    by :meth:`spend` at the release point. Made by :func:`charge`."""

    __slots__ = ("accountant", "label", "_loss_of", "_loss")

    def __init__(self, accountant, loss_of, label):
        self.accountant = resolve_accountant(accountant)
        self.label = label
        self._loss_of = loss_of
        self._loss = None
        if self.accountant is not None:
            try:
                self._loss = loss_of()
            except (TypeError, ValueError):
                # The release's own checks will refuse these arguments with their own
                # message, in their own order, before any data is touched.
                return
            self.accountant.check(self._loss)

    @property
    def loss(self):
        """The release's PrivacyLoss (computed from its arguments)."""
        if self._loss is None:
            self._loss = self._loss_of()
        return self._loss

    def spend(self):
        """Record the loss with the accountant, if any (checked again, atomically), and return
        it. Call it once the arguments are valid and before the first noise draw: a release
        that fails after this point is charged, since its failure may depend on the data."""
        loss = self.loss
        if self.accountant is not None:
            self.accountant.spend(loss, self.label)
        return loss

    def record(self):
        """:meth:`spend` for a release that does not report its loss: with no accountant,
        nothing is computed. Only for a release whose ``loss_of`` cannot fail once its
        arguments are valid (its checks are then the whole validation)."""
        if self.accountant is not None:
            self.accountant.spend(self.loss, self.label)


class RunningCharge:
    """One ledger entry that a release restates as its cost grows: the cost of everything it
    has released so far, never a sum of increments.

    For releases whose later outputs make the earlier ones free: online noise reduction
    (:class:`dppack.accuracy_first.noise_reduction.LaplaceNoiseReductionOnline`), whose
    releases up to level eps_t together cost pure eps_t (Ligett et al. 2017, Theorem 2.7).
    Recording them as separate spends composes them as if independent: increments under-count
    in the accountant's zCDP route (sum of their squares / 2 is below eps_t^2 / 2), whole
    levels over-count (sum of eps_i). The accountant keeps the running entries apart and
    composes each BASICALLY (eps's and delta's add) with the total of its other spends,
    whatever route that total takes (:meth:`BudgetAccountant.spent`); a running entry never
    enters the zCDP route.

    Why basic, and why that is sound. (1) Pointwise bound: whatever levels are chosen, and
    however they depend on earlier outputs of this release or of other releases, the
    product of the conditional densities of the releases made so far is the joint density of
    the lazy Laplace path at the levels reached, which is the density of the last release
    (Laplace at level eps_T) times a kernel that does not depend on the data (Ligett et al.
    2017, Thm 2.7, the path drawn downward from its last level). So the privacy loss of this
    release's part of any transcript is at most eps_T in absolute value, pointwise. (2)
    Basic composition with a pointwise-bounded mechanism, adaptively: let the other spends
    total (eps_r, delta_r) and let Q be the law of the transcript with this release run on D
    and the others on D'. P_D and Q differ only in the others' conditionals: the others form
    an adaptive (eps_r, delta_r) interaction in which this release, run on the fixed D, is
    part of the (randomised) analyst, so P_D(S) <= e^eps_r Q(S) + delta_r. Q and P_D' differ
    only in this release's conditionals, whose density ratio is at most e^eps_T at every
    transcript by (1), so Q(S) <= e^eps_T P_D'(S). Hence
    P_D(S) <= e^(eps_r + eps_T) P_D'(S) + delta_r: basic composition (as Dwork and Roth 2014,
    Theorem 3.16), with eps_T and the others' total capped by the accountant, whose refusals
    keep the composed total within the budget at every step, as for any spend. Composing the
    entry in zCDP
    (eps_T^2 / 2) is NOT sound: with the next level chosen adaptively (0.06 or 0.1, after a
    release at 0.06), a reviewer's numerical integration gives a log moment generating function
    of the privacy loss of 0.0606 at order lambda = 3, above the zCDP bound
    lambda (lambda + 1) eps_T^2 / 2 = 0.06 for eps_T <= 0.1.

    The entry only grows: :meth:`restate` refuses a loss below the current one and, given
    ``expected``, an entry that no longer holds ``expected`` (another copy of the release, or
    another thread, restated it first).

    Parameters
    ----------
    accountant : BudgetAccountant
    loss : PrivacyLoss
        The first cost, pure or approximate, recorded now under ``label`` (refused, nothing
        recorded, on an overspend).
    label : str

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30, Theorem 2.7.
    Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.16.

    Examples
    --------
    >>> acc = BudgetAccountant(3.0, 1e-6)
    >>> running = RunningCharge(acc, PrivacyLoss.pure(0.5), "online")
    >>> running.restate(PrivacyLoss.pure(2.0))
    >>> acc.ledger
    [('online', PrivacyLoss.pure(eps=2.0))]
    """

    __slots__ = ("accountant", "_index")

    def __init__(self, accountant, loss, label):
        loss = _as_loss(loss, "RunningCharge")
        if loss._kind == "zcdp":
            raise _messages.value_error("A running charge must be pure or (eps, delta).")
        self.accountant = accountant
        with accountant._lock:
            accountant._check(loss, label, running=True)
            accountant._ledger.append((label, loss))
            self._index = len(accountant._ledger) - 1
            accountant._running.add(self._index)

    @property
    def loss(self):
        """The entry's current loss."""
        with self.accountant._lock:
            return self.accountant._ledger[self._index][1]

    def check(self, loss):
        """Refuse restating the entry as ``loss`` if the total would exceed the budget."""
        loss = _as_loss(loss, "RunningCharge.check")
        with self.accountant._lock:
            self._check_restate(loss, None)

    def _check_restate(self, loss, expected):
        accountant = self.accountant
        label, current = accountant._ledger[self._index]
        if expected is not None and current != expected:
            raise _messages.value_error(
                "The entry {label!r} is at {current}, not {expected}: another copy of the "
                "release restated it. Nothing was recorded.", label=label, current=current,
                expected=expected)
        if loss._kind == "zcdp" or loss._eps < current._eps or loss._delta < current._delta:
            raise _messages.value_error(
                "A running charge can only grow: {loss} is below the entry {label!r}, at "
                "{current}. Nothing was recorded.", loss=loss, label=label, current=current)
        accountant._check(loss, label, self._index, running=True)
        return label

    def restate(self, loss, expected=None):
        """Replace the entry's loss by ``loss`` if the total fits the budget (checked with the
        entry's old loss left out), atomically; on a refusal nothing changes.

        Parameters
        ----------
        loss : PrivacyLoss
            Pure or approximate, at least the entry's current loss (eps and delta).
        expected : PrivacyLoss, optional
            Refuse unless the entry still holds ``expected`` (compare and set).

        Raises
        ------
        BudgetExceededError
            On an overspend.
        ValueError
            For a loss below the current one, or an entry that moved.
        """
        loss = _as_loss(loss, "RunningCharge.restate")
        accountant = self.accountant
        with accountant._lock:
            label = self._check_restate(loss, expected)
            accountant._ledger[self._index] = (label, loss)


def charge(accountant, loss_of, label):
    """Start charging a release: the one way every release uses an accountant.

    The accountant is ``accountant`` or, when it is None, the session's
    (:func:`resolve_accountant`). ``loss_of()`` computes the release's :class:`PrivacyLoss`
    from its arguments alone; when they are invalid (it raises ``ValueError`` or
    ``TypeError``) the check is left to the release, whose own message and order then apply.
    Otherwise an overspend is refused here, before any data is touched or noise drawn, and the
    generator is untouched. The release then calls ``Charge.spend`` after validating its
    arguments and before drawing noise; its result reports ``Charge.loss``.

    Parameters
    ----------
    accountant : BudgetAccountant or None
    loss_of : callable
        No arguments; returns a PrivacyLoss.
    label : str
        The ledger's label (the release's name).

    Returns
    -------
    Charge

    Raises
    ------
    BudgetExceededError
        On an overspend (a ``ValueError``).
    TypeError
        If ``accountant`` is neither None nor a BudgetAccountant.

    References
    ----------
    ``docs/design-notes.md``, "One privacy-loss type, one accountant, one charging path" (an
    overspend is refused before any data is touched or noise drawn).

    Examples
    --------
    >>> from dppack import BudgetAccountant, PrivacyLoss
    >>> from dppack.accounting import charge
    >>> acc = BudgetAccountant(1.0)
    >>> c = charge(acc, lambda: PrivacyLoss.pure(0.75), "mean")
    >>> c.spend()
    PrivacyLoss.pure(eps=0.75)
    >>> try:
    ...     charge(acc, lambda: PrivacyLoss.pure(0.5), "median")
    ... except ValueError as error:
    ...     print(str(error)[:33])
    Privacy budget exceeded: spending
    >>> acc.ledger
    [('mean', PrivacyLoss.pure(eps=0.75))]
    """
    return Charge(accountant, loss_of, label)
