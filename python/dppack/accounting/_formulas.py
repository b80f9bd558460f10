"""Advanced composition, its inverse, amplification and zCDP-to-DP conversion on numbers."""

from fractions import Fraction
import math

from ._arithmetic import raise_by_margin, round_up


# --------------------------------------------------------------------------------------------
# The formulas, on plain numbers (callers check the arguments; PrivacyLoss's methods do)
# --------------------------------------------------------------------------------------------


def _float_bisection(below, low, high):
    """The adjacent floats (low, high) where ``below`` switches from true to false."""
    for _ in range(2100):  # a float bisection ends within about 1100 halvings
        mid = low + (high - low) / 2.0
        if mid in (low, high):
            break
        if below(mid):
            low = mid
        else:
            high = mid
    return low, high


def bun_steinke_eps(rho, delta):
    """rho + 2 sqrt(rho log(1/delta)) (Bun and Steinke 2016, Proposition 1.3), rounded up."""
    eps = rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    return raise_by_margin(eps, eps)


def tight_zcdp_eps(rho, delta):
    """The smallest eps with rho-zCDP implying (eps, delta)-DP by Canonne, Kamath and Steinke
    (2020), Corollary 13; never above :func:`bun_steinke_eps`. Derivation:
    :doc:`/guide/accounting`, "The tight zCDP conversion".
    """
    if rho == 0.0:
        return 0.0
    log_inv = math.log(1.0 / delta)

    def eps_at(u):
        # raised above its rounding errors: the terms have both signs
        terms = ((1.0 + u) * rho, math.log(u), -math.log1p(u), (log_inv - math.log1p(u)) / u)
        return raise_by_margin(math.fsum(terms), sum(abs(t) for t in terms) + log_inv / u)

    u_bun_steinke = math.sqrt(log_inv) / math.sqrt(rho)  # h > 0 there: an upper bracket
    _, high = _float_bisection(lambda u: rho * u * u + math.log1p(u) - log_inv < 0.0,
                               0.0, u_bun_steinke)
    return max(0.0, min(eps_at(high), eps_at(u_bun_steinke)))


def advanced_composition(eps, delta, k, delta_prime):
    """Advanced composition of k (eps, delta)-DP steps, on numbers (unchecked):
    (eps sqrt(2 k ln(1/delta')) + k eps (e^eps - 1), delta' + k delta).

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
        The total (eps, delta); eps is ``inf`` where e^eps overflows.

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
    return (raise_by_margin(eps_total, eps_total),
            round_up(Fraction(delta_prime) + k * Fraction(delta)))


def advanced_composition_inverse(eps_total, k, delta_prime):
    """The largest per-step eps whose advanced composition over k steps is at most ``eps_total``
    (bisection on floats; unchecked).

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
    """Amplification by subsampling at rate q = sampled / population, on numbers (unchecked):
    (ln(1 + q (e^eps - 1)), q delta), for Poisson sampling or a fixed-size subset drawn
    without replacement (:meth:`PrivacyLoss.amplify_by_subsampling`).

    Parameters
    ----------
    eps, delta : float
        The mechanism's loss on the subsample.
    sampled, population : float
        q = sampled / population in (0, 1] (a Poisson rate with ``population=1``).

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
        eps_amplified = raise_by_margin(eps_amplified, eps_amplified)  # positive terms
    else:  # e^eps overflows: ln(q e^eps (1 + (1 - q) e^-eps / q)), q > 0
        q = sampled / population
        eps_amplified = eps + math.log(q) + math.log1p((1.0 - q) * math.exp(-eps) / q)
        eps_amplified = raise_by_margin(eps_amplified, eps - math.log(q) + 1.0)
    ratio = Fraction(sampled) / Fraction(population)
    return eps_amplified, round_up(Fraction(delta) * ratio)
