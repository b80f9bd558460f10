"""Sensitivities and budget splits of the analytic Gaussian ERM models (Ding et al., Section III):
the losses' constants, OPERA's sensitivity, strong composition, amplification by sampling and
GRPUA's per-step budget. Derivations: :ref:`guide-agm-erm`.
"""

import math

from .. import _messages, accounting
from ..erm import _losses as losses


# Lipschitz constant of the data part l(y w'x) for ||x|| <= 1: |l'| <= 1 for both losses; the
# regulariser's gradient cancels between neighbouring data sets (Ding et al., Section III).
LIPSCHITZ = losses.MarginLoss.lipschitz


# --------------------------------------------------------------------------------------------
# Losses and constants (Ding et al., Section III)
# --------------------------------------------------------------------------------------------


def loss_constants(loss, huber_h, lam):
    """(L, beta) of the loss on rows with ||x|| <= 1: L = 1, beta = sup l'' + lambda.

    Parameters
    ----------
    loss : {'logistic', 'huber'}
    huber_h : float, the Huber parameter h > 0 (ignored for logistic)
    lam : float, lambda >= 0 (gamma / n)

    Returns
    -------
    (float, float)

    Raises
    ------
    ValueError
        For another loss name or an invalid ``huber_h``.

    References
    ----------
    Ding et al., IEEE Transactions on Big Data, table "Supported losses".

    Examples
    --------
    >>> from dppack.analytic_gaussian_erm._budget import loss_constants
    >>> loss_constants("logistic", 0.5, lam=0.01)
    (1.0, 0.26)
    >>> loss_constants("huber", 0.5, lam=0.0)  # 1 / (2h)
    (1.0, 1.0)
    """
    margin = losses.margin_loss(loss, huber_h)  # the constants' one home (dppack.erm._losses)
    return margin.lipschitz, margin.curvature + lam


# --------------------------------------------------------------------------------------------
# OPERA's sensitivity (Ding et al., Algorithm 1)
# --------------------------------------------------------------------------------------------


def opera_sensitivity(n, lam, beta, iterations=None, step_size=None, bound="paper",
                      lipschitz=LIPSCHITZ):
    """L2 sensitivity of the output of T steps of full-batch gradient descent.

    Parameters
    ----------
    n : int, the number of records (replace-one neighbours)
    lam : float, the strong convexity mu = lambda (0 if not strongly convex)
    beta : float, the smoothness (lambda included)
    iterations, step_size : int, float
        T and eta; used only when ``lam == 0``.
    bound : {'paper', 'tight'}
        'paper': 5 L (mu + beta) / (n mu beta) or 3 L T eta / n (Lemmas 1 and 2); 'tight': the
        contraction bounds 2 L (mu + beta) / (n mu beta) and 2 L T eta / n.
    lipschitz : float, L

    Returns
    -------
    float

    References
    ----------
    Ding et al., IEEE Transactions on Big Data, Lemmas 1 and 2.

    Examples
    --------
    n = 532 records, lambda = 0.01, beta = 1/4 + lambda (logistic):

    >>> from dppack.analytic_gaussian_erm._budget import opera_sensitivity
    >>> round(opera_sensitivity(532, lam=0.01, beta=0.26), 6)
    0.975998
    >>> round(opera_sensitivity(532, lam=0.01, beta=0.26, bound="tight"), 6)
    0.390399
    >>> opera_sensitivity(100, lam=0.0, beta=0.25, iterations=50, step_size=4.0)  # 3 L T eta / n
    6.0
    """
    if lam > 0:
        constant = 5.0 if bound == "paper" else 2.0
        return constant * lipschitz * (lam + beta) / (n * lam * beta)
    constant = 3.0 if bound == "paper" else 2.0
    return constant * lipschitz * iterations * step_size / n


# --------------------------------------------------------------------------------------------
# GRPUA's accounting (Ding et al., Algorithm 2; the sound version in the class docstring)
# --------------------------------------------------------------------------------------------


def strong_composition(eps0, delta0, iterations, delta_prime):
    """Strong composition of T (eps0, delta0)-DP steps: (eps0 sqrt(2 T log(1/delta')) + T eps0
    (e^eps0 - 1), delta' + T delta0).

    Parameters
    ----------
    eps0, delta0 : float, the loss of one step
    iterations : int, T
    delta_prime : float, delta' in (0, 1)

    Returns
    -------
    (float, float)

    References
    ----------
    Dwork, Rothblum and Vadhan (2010), Theorem III.3.

    Examples
    --------
    >>> from dppack.analytic_gaussian_erm._budget import strong_composition
    >>> eps, delta = strong_composition(0.1, 1e-6, 100, 1e-6)
    >>> round(eps, 4), round(delta, 12)
    (6.3082, 0.000101)
    """
    return accounting.advanced_composition(eps0, delta0, iterations, delta_prime)


def amplify_by_sampling(eps_step, delta_step, n, amplification="tight"):
    """(eps0, delta0) of one step run on one record picked uniformly from n.

    Parameters
    ----------
    eps_step, delta_step : float
    n : int
    amplification : {'tight', 'paper'}, default 'tight'
        'tight': (log(1 + (e^eps - 1)/n), delta/n); 'paper': (2 eps/n, delta/n), eps <= 1.

    Returns
    -------
    (float, float)

    References
    ----------
    Balle, Barthe and Gaboardi (2018), privacy amplification by subsampling; Beimel, Brenner,
    Kasiviswanathan and Nissim (2014).

    Examples
    --------
    >>> from dppack.analytic_gaussian_erm._budget import amplify_by_sampling
    >>> eps0, delta0 = amplify_by_sampling(1.0, 1e-5, 100)
    >>> round(eps0, 6), round(delta0, 12)  # log(1 + (e - 1) / 100)
    (0.017037, 1e-07)
    >>> round(amplify_by_sampling(1.0, 1e-5, 100, "paper")[0], 6)  # 2 eps / n
    0.02
    """
    if amplification == "paper":
        return 2.0 * eps_step / n, delta_step / n
    return accounting.amplify_by_subsampling(eps_step, delta_step, 1, n)


def grpua_paper_total(eps, delta, n):
    """The paper's Theorem 7 total for per-step (eps, delta) and T = n^2 steps (to reproduce its
    numbers; the printed GRPUA's noise is not private, so no model uses it).

    Parameters
    ----------
    eps, delta : float, the per-step budget
    n : int

    Returns
    -------
    (float, float)

    References
    ----------
    Ding et al., IEEE Transactions on Big Data, Theorem 7.

    Examples
    --------
    >>> from dppack.analytic_gaussian_erm._budget import grpua_paper_total
    >>> eps, delta = grpua_paper_total(0.1, 1e-6, 1000)
    >>> round(eps, 4), round(delta, 12)
    (1.3276, 0.001)
    """
    eps_total = math.sqrt(8.0 * math.log(n / delta)) * eps + 2.0 * n * eps * math.expm1(
        2.0 * eps / n)
    return eps_total, n * delta


def _unamplify(eps0, n, amplification):
    """The per-step eps whose amplified value is eps0."""
    if amplification == "paper":
        return n * eps0 / 2.0
    return math.log1p(n * math.expm1(eps0))


def grpua_per_step_budget(eps_total, delta_total, n, iterations, amplification="tight"):
    """Per-step (eps_step, delta_step) of T sampled steps for a total (eps, delta) budget.

    Half of delta goes to strong composition's delta', half to the steps; the amplified
    per-step eps0 is the largest whose composition meets eps_total (:ref:`guide-agm-erm`).

    Parameters
    ----------
    eps_total, delta_total : float, the whole run's budget
    n : int
    iterations : int, T
    amplification : {'tight', 'paper'}, default 'tight'

    Returns
    -------
    dict
        ``eps_step``, ``delta_step`` and the composed ``eps_total`` and ``delta_total`` (each <=
        the requested one).

    Raises
    ------
    ValueError
        A budget out of range, a per-step delta >= 1 (too few steps), no per-step eps > 0, or
        with ``amplification='paper'`` a per-step eps > 1.

    References
    ----------
    Dwork, Rothblum and Vadhan (2010); Balle, Barthe and Gaboardi (2018).

    Examples
    --------
    (1, 1e-5)-DP in total over 10,000 steps on 532 records:

    >>> from dppack.analytic_gaussian_erm._budget import grpua_per_step_budget
    >>> budget = grpua_per_step_budget(1.0, 1e-5, n=532, iterations=10000)
    >>> round(budget["eps_step"], 4), round(budget["delta_step"], 12)
    (0.7114, 2.66e-07)
    >>> budget["eps_total"] <= 1.0, budget["delta_total"] <= 1e-5
    (True, True)
    """
    if not (0.0 < eps_total < math.inf and 0.0 < delta_total < 1.0):
        raise _messages.value_error(
            "The total budget needs a finite eps > 0 and a delta in (0, 1).")
    delta_prime = delta_total / 2.0
    delta_step = delta_total / 2.0 * n / iterations
    # Rounding can put delta' + T delta_step / n an ulp above delta_total: step delta_step
    # down until the sum is within the budget. The accountant sums deltas exactly and rounds
    # up (dppack.accounting), so the check also uses the composed total itself; the amplified
    # delta0 does not depend on the step's eps.
    def composed_delta(step):
        delta0 = amplify_by_sampling(min(eps_total, 1.0), step, n, amplification)[1]
        return strong_composition(0.0, delta0, iterations, delta_prime)[1]

    while delta_prime + iterations * (delta_step / n) > delta_total or \
            composed_delta(delta_step) > delta_total:
        delta_step = math.nextafter(delta_step, 0.0)
    if not delta_step < 1.0:
        raise _messages.value_error(
            "delta = {delta:g} over {iterations} steps of n = {n} records "
            "gives a per-step delta of {delta_step:g} >= 1: use more iterations.",
            delta=delta_total, iterations=iterations, n=n, delta_step=delta_step)

    def total(eps_step):
        eps0, delta0 = amplify_by_sampling(eps_step, delta_step, n, amplification)
        return strong_composition(eps0, delta0, iterations, delta_prime)

    # the largest amplified per-step eps0 whose composition is <= eps_total
    low = accounting.advanced_composition_inverse(eps_total, iterations, delta_prime)
    eps_step = _unamplify(low, n, amplification)
    # Rounding in the map back may overshoot by a few ulps: step down until the total is met.
    # Bounded, so that an inconsistency between amplify_by_sampling and _unamplify fails
    # loudly instead of looping for ever.
    for _ in range(10_000):
        if not (eps_step > 0 and total(eps_step)[0] > eps_total):
            break
        eps_step = math.nextafter(eps_step, 0.0) * (1.0 - 1e-15)
    else:
        raise RuntimeError("grpua_per_step_budget: the per-step eps does not meet the total "
                           "budget (internal error).")
    if not eps_step > 0:
        raise _messages.value_error("The budget leaves no per-step eps > 0: raise eps or lower the "
                                    "number of iterations.")
    if amplification == "paper" and eps_step > 1.0:
        raise _messages.value_error(
            "amplification = 'paper' needs a per-step eps <= 1; this budget "
            "gives {eps_step:.6g}: use amplification = 'tight' or more "
            "iterations.", eps_step=eps_step)
    eps_used, delta_used = total(eps_step)
    return {"eps_step": eps_step, "delta_step": delta_step, "eps_total": eps_used,
            "delta_total": delta_used}
