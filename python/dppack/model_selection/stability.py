"""Stability-based private validation (Chaudhuri and Vinterbo 2013, "the paper" below).

Every candidate is trained on the *whole* training set T at the *whole* training budget
eps_train; only the index of the best candidate on the validation set V is released, by a
noisy maximum whose privacy (eps_select, delta) rests on the stability of the validation
score (Thm 1). The end-to-end procedure then retrains the selected candidate with fresh
noise (Thm 2): (eps_train + eps_select, delta)-DP in total, whatever the number of
candidates k.

A trainer is a pair (G, F): G draws the noise R, F(T, theta, eps, R) is deterministic.
:class:`StableTrainer` is that interface; two instances are provided:

* regularised linear classifiers: DPpack's ``LogisticRegressionDP`` and linear ``svmDP``
  (output or objective perturbation), R = one vector of density proportional to exp(-||r||)
  (:class:`dppack.erm.cms.StandardNoise`), which each candidate divides by its own noise rate
  (F is :func:`dppack.erm.cms.fit_with_noise`);
* histogram density estimators with a private bin width, R = standard Laplace values.

What is shared (``noise="shared"``, the default): one draw R is used by every candidate in the
selection step. For the classifiers that is the *standardised* vector R (rate 1); candidate i
uses R / rate_i, with rate_i = eps'_i / 2 (objective perturbation, eps'_i from its own gamma_i) or
gamma_i eps / (2 (1 + tau)) (output perturbation, tau = 1e-6 the optimality slack of ``erm.cms``),
so each candidate's noise has exactly the law its own fit would draw. For histograms it is one
sequence of standard Laplace values; the candidate with 1/h bins uses the first 1/h of them, times
2/eps_train. Sharing is allowed by Thm 1's proof, which holds for every fixed noise vector (R_1,
..., R_k) in the stability event; with one shared R the event's probability is at least 1 - delta/k.
Sharing makes the candidates' scores comparable (common random numbers). ``noise="independent"``
draws R_1, ..., R_k independently, as the paper's Algorithm 1 does. The final model always gets a
fresh draw.

Randomness: one generator per call; in order: the shared R (or R_1, ..., R_k, one before each
candidate's fit), the k selection noises, the fresh noise of the final fit. The noise a call
releases through numbers is exact where an exact sampler exists: the final histogram's counts
get discrete Laplace noise (:func:`dppack._random.discrete_laplace_noise`); the classifiers'
K-norm noise stays in floating point (``erm.cms``: no exact sampler of that law here). The
selection step, which releases an index, is exact: the scores are rounded to a power-of-two
grid and the noisy maximum is taken over exact integer noise (``_noisy_max``: the paper's
exponential noise as a one-sided geometric law, the Laplace noise as a discrete Laplace law),
or the index is drawn by the exact exponential mechanism (``selector="gumbel"``). The shared
noise R of the candidates' fits is data-free randomness: it enters only through the
probability of the stability event (``HistogramTrainer.draw_noise``), never a released value.

Accounting: every public release here takes a trailing ``accountant`` and charges its whole
run once under its own name (:func:`dppack.accounting.charge`): ``stable_select``
eps_select, ``validate_stable`` (eps_select, delta) (Thm 1), ``tune_stable`` and the two
tuners (eps_train + eps_select, delta) (Thm 2). The candidates' fits and the final fit inside
charge nothing (``accountant=accounting.UNCHARGED``); a returned model or histogram gets
``privacy_`` (the call's PrivacyLoss).
"""

import copy
import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from .. import _checks, _frames, _messages, _random, accounting, rcompat
from .._repr import model_repr
from ..erm import losses
from ..erm.approximate import split_budget
from ..erm.blocks import regularizer_l2
from ..erm.cms import (
    StandardNoise,
    check_parameters,
    fit_with_noise,
    objective_perturbation_parameters,
)
from ..erm.design import as_labels, n_rows, prepare_design, split_rows, take_rows
from ..erm.models import LogisticRegressionDP, svmDP
from ..erm.solvers import OPTIMALITY_SLACK
from ..mechanisms import ExponentialMechanism
from ..tuning import check_models

__all__ = [
    "NearUniformSelectionWarning",
    "StabilitySelectionDiagnosis",
    "StableTrainer",
    "advanced_composition_eps",
    "selection_privacy",
    "stability_constants_histogram",
    "stability_constants_linear",
    "stability_selection_diagnosis",
    "stable_select",
    "tune_classification_model_stable",
    "tune_histogram_bin_width_stable",
    "tune_stable",
    "validate_stable",
]

SELECTORS = ("exponential_noise", "gumbel", "laplace")
NOISE_MODES = ("shared", "independent")
SCORES = ("ramp", "hinge", "logistic")


# --------------------------------------------------------------------------------------------
# Stability constants (Theorems 4 and 6) and privacy accounting (Theorems 1, 2 and 5)
# --------------------------------------------------------------------------------------------


def stability_constants_linear(lambda_min, n, m, d, k, eps, delta, score="ramp"):
    """(beta1, beta2) of the validation score of regularised linear classifiers (Thm 4).

    Parameters
    ----------
    lambda_min : float
        Smallest regularisation weight in the paper's scale (DPpack's gamma / n).
    n, m : int
        Training and validation set sizes.
    d : int
        Dimension of the coefficients (bias included).
    k : int
        Number of candidates.
    eps : float
        Budget of the training noise (for objective perturbation, the eps' its noise uses).
    delta : float
        Overall delta of the selection (the formula includes k).
    score : {'ramp', 'hinge', 'logistic'}
        q = minus the mean loss on V; all three are 1-Lipschitz, ramp is bounded by 1.

    Returns
    -------
    (float, float)
        beta1 = 2 L / lambda_min. beta2 bounds how much one validation record can move the
        mean loss times m, i.e. the range of g over ||x|| <= 1 when ||w|| <= B, B =
        (L / lambda_min)(1 + 2 d ln(d k / delta) / (eps n)) (the paper's proof
        drops the 2): min(1, B) for ramp (g* = 1), B for logistic, B + min(B, 1) for hinge.

    Notes
    -----
    Hinge deviates from the paper's beta2 = B (Thm 4 example): its proof uses
    g_max <= L ||w||, which needs g(0, x, y) = 0; the hinge loss has g(0, x, y) = 1, and a
    validation record moved from margin +B to -B changes g by min(2B, 1 + B) > B. Logistic
    is exact with B: log(1 + e^B) - log(1 + e^-B) = B.

    Raises
    ------
    ValueError
        For an argument out of range or an unknown ``score``.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), A stability-based validation procedure for
    differentially private machine learning, NeurIPS, Theorem 4.

    Examples
    --------
    Four candidates with gamma_min / n = 0.01 on 1000 training and 200 validation rows:

    >>> from dppack import stability_constants_linear
    >>> stability_constants_linear(0.01, n=1000, m=200, d=3, k=4, eps=1.0, delta=0.01)
    (200.0, 1.0)
    """
    lambda_min = _checks.check_finite_budget(lambda_min, "lambda.min")
    n, m, d, k = (_checks.check_whole(v, name, 1, strict=True)
                  for v, name in ((n, "n"), (m, "m"), (d, "d"), (k, "k")))
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    _checks.check_choice(score, "score", SCORES)
    lipschitz = 1.0  # logistic, hinge and ramp are 1-Lipschitz in w for ||x|| <= 1
    beta1 = 2.0 * lipschitz / lambda_min
    norm_bound = (lipschitz / lambda_min) * (
        1.0 + 2.0 * d * math.log(d * k / delta) / (eps * n))  # Thm 4 (factor 2: Notes)
    # Thm 4, with beta2 = the range of g on |y w'x| <= B (g >= 0, one record replaced):
    # ramp in [1 - min(B, 1), 1] (g* = 1), logistic in [log(1 + e^-B), log(1 + e^B)], hinge in
    # [max(0, 1 - B), 1 + B]; the paper's B alone is too small for hinge (see Notes).
    if score == "ramp":
        return beta1, min(1.0, norm_bound)
    if score == "hinge":
        return beta1, norm_bound + min(norm_bound, 1.0)
    return beta1, norm_bound


def histogram_min_n(h_min, k, eps, delta):
    """Smallest training size for Thm 6: 1 + 2 ln(4k/delta) / (eps sqrt(h_min))."""
    return 1.0 + 2.0 * math.log(4.0 * k / delta) / (eps * math.sqrt(h_min))


def stability_constants_histogram(h_min, n, m, k, eps, delta):
    """(beta1, beta2) of the histogram score (Thm 6).

    beta1 = 6 / ((1 - nu) h_min), beta2 = 2 / h_min, nu = 2 ln(4k/delta) / (n eps
    sqrt(h_min)).

    Parameters
    ----------
    h_min : float
        The smallest candidate bin width, in (0, 1] (a fraction of the range).
    n, m : int
        Training and validation set sizes.
    k : int
        Number of candidates.
    eps : float
        The histograms' training budget.
    delta : float
        Overall delta of the selection, in (0, 1).

    Returns
    -------
    (float, float)
        (beta1, beta2).

    Raises
    ------
    ValueError
        When n < 1 + 2 ln(4k/delta) / (eps sqrt(h_min)), where Thm 6 gives no guarantee.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorem 6.

    Examples
    --------
    >>> from dppack import stability_constants_histogram
    >>> beta1, beta2 = stability_constants_histogram(0.1, n=400, m=100, k=3, eps=1.0,
    ...                                              delta=0.01)
    >>> round(beta1, 4), beta2
    (67.5755, 20.0)
    """
    h_min = _checks.check_finite_budget(h_min, "h.min")
    if h_min > 1:
        raise _messages.value_error("h.min must be <= 1.")
    n, m, k = (_checks.check_whole(v, name, 1, strict=True)
               for v, name in ((n, "n"), (m, "m"), (k, "k")))
    eps = _checks.check_finite_budget(eps, "eps")
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    n_min = histogram_min_n(h_min, k, eps, delta)
    if n < n_min:
        raise _messages.value_error(
            "Stability needs at least {n_min} training values for "
            "these bin widths, budget and delta (Thm 6); there are {n}.",
            n_min=math.ceil(n_min), n=n)
    nu = 2.0 * math.log(4.0 * k / delta) / (n * eps * math.sqrt(h_min))
    return 6.0 / ((1.0 - nu) * h_min), 2.0 / h_min


def selection_privacy(procedure, eps, eps_select=None, delta=0.0):
    """The (eps, delta) of a whole tuning procedure (Chaudhuri and Vinterbo 2013, Theorems 2
    and 5).

    Parameters
    ----------
    procedure : {'stability', 'alphaSplit', 'dataSplit', 'random'}
    eps : float
        The training budget (stability) or the overall budget alpha (the baselines).
    eps_select : float, optional
        The selection budget of 'stability' (required there).
    delta : float
        The delta of 'stability'.

    Returns
    -------
    dict
        ``{"eps": ..., "delta": ...}``: (eps + eps_select, delta) for
        'stability', (eps, 0) for the baselines (T and V disjoint).

    Raises
    ------
    ValueError
        For an unknown procedure, a budget out of range, or 'stability' without
        ``eps_select``.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 2 and 5.

    Examples
    --------
    >>> from dppack import selection_privacy
    >>> selection_privacy("stability", 1.0, eps_select=0.5, delta=0.01)
    {'eps': 1.5, 'delta': 0.01}
    >>> selection_privacy("alphaSplit", 1.0)
    {'eps': 1.0, 'delta': 0.0}
    """
    _checks.check_choice(procedure, "procedure",
                         ("stability", "alphaSplit", "dataSplit", "random"))
    eps = _checks.check_finite_budget(eps, "eps")
    if procedure != "stability":
        return {"eps": eps, "delta": 0.0}
    if eps_select is None:
        raise _messages.value_error("eps.select must be given for the 'stability' procedure.")
    return {"eps": eps + _checks.check_finite_budget(eps_select, "eps.select"),
            "delta": _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)}


def advanced_composition_eps(eps, k, delta):
    """The per-model budget e' with k (e^e' - 1) e' + sqrt(2 k ln(1/delta)) e' = eps (the
    advanced-composition alternative to alphaSplit's eps / k), the largest with the left
    side <= eps (:func:`dppack.accounting.advanced_composition_inverse`).

    Parameters
    ----------
    eps : float
        The total budget, > 0 and finite.
    k : int
        Number of models, >= 1.
    delta : float
        The delta' of advanced composition, in (0, 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an argument out of range.

    References
    ----------
    Dwork, Rothblum and Vadhan (2010), Theorem III.3; Chaudhuri K, Vinterbo S A (2013).

    Examples
    --------
    Ten models within eps = 1 in total (alphaSplit would give each 0.1):

    >>> from dppack import advanced_composition_eps
    >>> round(advanced_composition_eps(1.0, 10, 1e-5), 6)
    0.063185
    """
    eps = _checks.check_finite_budget(eps, "eps")
    k = _checks.check_whole(k, "k", 1, strict=True)
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    return accounting.advanced_composition_inverse(eps, k, delta)


# --------------------------------------------------------------------------------------------
# Selection (Chaudhuri and Vinterbo 2013, Algorithm 1 steps 3-4)
# --------------------------------------------------------------------------------------------


def _scores_array(scores):
    q = _checks.as_numeric_array(scores, "scores must be numeric.").ravel()
    if q.size == 0:
        raise _messages.value_error("scores must contain at least one value.")
    if not np.all(np.isfinite(q)):
        raise _messages.value_error("scores must be finite.")
    return q


def stable_select(scores, beta, eps_select, selector="exponential_noise",
                  random_state=None, accountant=None):
    """The private argmax of Validate.

    Parameters
    ----------
    scores : array_like
        The k validation scores q_i (larger is better).
    beta : float
        max(beta1 / n, beta2 / m), > 0.
    eps_select : float
        The selection budget alpha_2.
    selector : {'exponential_noise', 'gumbel', 'laplace'}
        'exponential_noise' (the paper's): argmax of q_i + 2 beta Z_i, Z_i exponential with
        rate eps_select. 'gumbel': the exponential mechanism, P(i) proportional to
        exp(eps_select q_i / (2 beta)). 'laplace': argmax of q_i plus Laplace noise of
        scale 2 beta / eps_select. All three are drawn exactly: the scores are rounded to a
        grid h = 2^k <= beta / 2^20 and the noise is the integer (geometric, discrete
        Laplace) counterpart of the continuous one on that grid, drawn with integer
        arithmetic, its scale between 2 beta / eps_select and (1 + 2^-19) times that
        (for beta >= 2^-1053; 2 (beta + 2^-1073) / eps_select at most below); the
        exponential mechanism is ``dppack.ExponentialMechanism``'s exact draw. Each is
        eps_select-DP for scores of sensitivity beta (McSherry and Talwar 2007; the noisy
        maximum by the threshold argument of Chaudhuri and Vinterbo's Theorem 1), so
        (eps_select, delta)-DP on the stability event.
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps_select)`` (label ``"stable_select"``: the selection
        given scores whose sensitivity is beta; the delta of the stability event belongs to
        :func:`validate_stable`); None: the session's accountant, if any.

    Returns
    -------
    int
        The 0-based index of the selected candidate (a number: the loss is in the ledger).

    Raises
    ------
    ValueError
        For empty or non-finite scores, a budget or beta out of range, an unknown
        selector, or an overspend of the accountant.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 1 and Theorem 1; McSherry and
    Talwar (2007).

    Examples
    --------
    Three validation scores whose sensitivity is beta = 0.01; the second is best:

    >>> from dppack import stable_select
    >>> stable_select([-0.30, -0.25, -0.40], beta=0.01, eps_select=1.0, random_state=1)
    1
    """
    _frames.refuse_dask("stable_select", scores)
    bill = accounting.charge(accountant, lambda: accounting.PrivacyLoss.pure(eps_select),
                             "stable_select")
    q = _scores_array(scores)
    beta = _checks.check_finite_budget(beta, "beta")
    eps_select = _checks.check_finite_budget(eps_select, "eps.select")
    _checks.check_choice(selector, "selector", SELECTORS)
    rng = _random.as_generator(random_state)
    bill.spend()
    return _select(q, beta, eps_select, selector, rng)


def _select(q, beta, eps_select, selector, rng):
    """The selected index: Chaudhuri and Vinterbo (2013), Algorithm 1 step 3 (the paper's
    exponential noise), the exponential mechanism, or report-noisy-max with Laplace noise, each
    drawn exactly (:func:`_noisy_max`); ``q`` are the k scores, ``beta`` their sensitivity on the
    stability event."""
    if selector == "gumbel":
        # Chaudhuri and Vinterbo 2013, Section 2 ("an exponential mechanism may also be used"):
        # P(i) proportional to exp(alpha2 q_i / (2 beta)), exact (_random.exponential_mechanism)
        return int(ExponentialMechanism(q, eps_select, beta, random_state=rng,
                                        accountant=accounting.UNCHARGED))
    return _noisy_max(q, beta, eps_select, rng, one_sided=selector == "exponential_noise")


def _noisy_max(q, beta, eps_select, rng, one_sided):
    """Report-noisy-max on a power-of-two grid with exact integer noise (eps_select-DP for
    scores of sensitivity ``beta``).

    Parameters
    ----------
    q : ndarray
        The k finite scores.
    beta : float
        Their sensitivity: on Chaudhuri and Vinterbo's stability event every score moves by at
        most beta between neighbouring datasets (2013, Theorem 1).
    eps_select : float
    rng : NumPy Generator
    one_sided : bool
        True: the paper's noise 2 beta Z, Z exponential with rate eps_select (Algorithm 1,
        step 3), as the one-sided geometric law on the grid. False: Laplace noise of scale
        2 beta / eps_select, as the two-sided discrete Laplace law on the grid.

    Returns
    -------
    int
        The first index of the largest noisy score.

    Notes
    -----
    The scores are rounded to the grid h = 2^k of :func:`dppack._random.exponential_grid`
    (h <= beta / 2^20), U_i = round(q_i / h), an exact integer. Between neighbours each U_i
    moves by at most D = ceil(beta / h) + 1 (:func:`dppack._random.grid_units`); this also
    absorbs a floating-point error below h in each computed score. Integer noise Z_i is drawn
    exactly with P(Z_i = z) proportional to exp(-gamma' |z|), gamma' = s / t with t = 2^j and
    s = floor(t gamma), gamma = eps_select / (2 D) the rate of ``exponential_grid``, so
    gamma' <= gamma within a relative 2^-40 (:func:`dppack._random.discrete_laplace`,
    Canonne, Kamath and Steinke 2020, Algorithm 2), kept only when z >= 0 for the one-sided
    law (the geometric law P(z) proportional to exp(-gamma' z), z >= 0). The index is the
    first i maximising U_i + Z_i, in integer arithmetic.

    Privacy, the argument of Chaudhuri and Vinterbo's Theorem 1 (and of Dwork and Roth 2014,
    Claim 3.9) in integers: fix the other noises; i wins exactly when Z_i >= T, an integer
    threshold (beating the earlier indices strictly, the later ones or ties). A neighbour
    moves every U_j by at most D, so T moves by at most 2 D, and both laws satisfy
    P(Z >= T + 2 D) >= exp(-2 D gamma') P(Z >= T) >= exp(-eps_select) P(Z >= T) for every
    integer T (gamma' <= gamma); the other direction is symmetric. So the index is
    eps_select-DP on the stability event, with no floating-point step between the scores and
    the choice (Mironov 2012). In value units the noise h Z has scale 2 D h / eps_select, between
    2 beta / eps_select and (1 + 2^-19) 2 beta / eps_select (the paper's law, discretised)
    for beta >= 2^-1053; below, h cannot be finer than 2^-1074 and the scale is
    2 (beta + 2h) / eps_select at most (more noise, still eps_select-DP).
    """
    k, rate = _random.exponential_grid(float(np.max(np.abs(q))), eps_select, beta)
    units = [int(v) for v in np.rint(np.ldexp(q, -k)).tolist()]  # exact integers
    # P(z) proportional to exp(-|z| s / t) with t = 2^j (the sampler's fast case) and
    # s = floor(t gamma): s / t <= gamma, within a relative 2^-40 (s >= 2^40)
    j = max(56, (rate.denominator // rate.numerator).bit_length() + 41)
    t, s = 1 << j, (rate.numerator << j) // rate.denominator
    noise = []
    while len(noise) < len(units):
        draws = _random.discrete_laplace(t, s, 2 * len(units) if one_sided else len(units),
                                         rng).tolist()
        noise.extend(z for z in draws if z >= 0 or not one_sided)
    noisy = [u + z for u, z in zip(units, noise)]
    return noisy.index(max(noisy))


# --------------------------------------------------------------------------------------------
# The generic procedure (Chaudhuri and Vinterbo 2013, Algorithms 1 and 2)
# --------------------------------------------------------------------------------------------


class StableTrainer:
    """Interface of a private training procedure T = (G, F) with a validation score.

    Subclasses implement:

    * ``n_records(data)``: the number of individuals in T or V;
    * ``draw_noise(T, thetas, rng)``: R ~ G, usable by F for every theta in ``thetas``;
    * ``fit(T, theta, eps, noise)``: the deterministic F(T, theta, eps, R), a model;
    * ``score(model, V)``: the validation score q (larger is better);
    * ``stability_constants(T, V, thetas, eps, delta)``: (beta1, beta2) of Definition 2,
      for the overall delta.

    ``release(T, theta, eps, rng)``, the final model of Algorithm 2 with fresh noise, is
    ``fit(T, theta, eps, draw_noise(T, [theta], rng))`` unless a subclass draws it otherwise
    (the histograms: exact discrete Laplace noise).

    Attributes
    ----------
    None
        The interface holds no state; subclasses keep their settings (bounds, caches).

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), A stability-based validation procedure for
    differentially private machine learning, NeurIPS, Definitions 1-2.

    Examples
    --------
    A toy trainer: theta shrinks a noisy mean of data in [0, 1] towards 0, clipped to
    [0, 1]. One training record moves the model by at most 1/n, and the score (minus the
    mean squared distance to the validation data) is 2-Lipschitz in the model there, so
    beta1 = 2; one validation record moves the score by at most 1/m, so beta2 = 1.

    >>> from dppack import StableTrainer, tune_stable
    >>> import numpy as np
    >>> class Shrunk(StableTrainer):
    ...     def n_records(self, data):
    ...         return len(data)
    ...     def draw_noise(self, T, thetas, rng):
    ...         return rng.laplace()
    ...     def fit(self, T, theta, eps, noise):
    ...         mean = np.mean(T) + noise / (eps * len(T))
    ...         return float(np.clip(theta * mean, 0.0, 1.0))
    ...     def score(self, model, V):
    ...         return -float(np.mean((V - model) ** 2))
    ...     def stability_constants(self, T, V, thetas, eps, delta):
    ...         return 2.0, 1.0
    >>> x = (np.sin(np.arange(500)) + 1) / 2  # fixed example data in [0, 1]
    >>> index, model = tune_stable([1.0, 0.5, 0.0], Shrunk(), x[:400], x[400:],
    ...                            eps_train=1.0, eps_select=1.0, random_state=1)
    >>> index, round(model, 2)
    (0, 0.51)
    """

    def __repr__(self):
        """The class and its public settings (attributes not starting with '_')."""
        return model_repr(self, [key for key in vars(self) if not key.startswith("_")],
                          released=None)

    def n_records(self, data):
        raise NotImplementedError

    def draw_noise(self, T, thetas, rng):
        raise NotImplementedError

    def fit(self, T, theta, eps, noise):
        raise NotImplementedError

    def score(self, model, V):
        raise NotImplementedError

    def stability_constants(self, T, V, thetas, eps, delta):
        raise NotImplementedError

    def release(self, T, theta, eps, rng):
        """The released model F(T, theta, eps, R) with a fresh R."""
        return self.fit(T, theta, eps, self.draw_noise(T, [theta], rng))


def _settings(thetas, eps_train, eps_select, delta, selector, noise):
    thetas = list(thetas)
    if not thetas:
        raise _messages.value_error("thetas must contain at least one candidate.")
    return (thetas, _checks.check_finite_budget(eps_train, "eps.train"),
            _checks.check_finite_budget(eps_select, "eps.select"),
            _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True),
            _checks.check_choice(selector, "selector", SELECTORS),
            _checks.check_choice(noise, "noise", NOISE_MODES))


def _betas(trainer, T, V, thetas, eps_train, delta, beta1, beta2, stacklevel=3):
    if beta1 is None and beta2 is None:
        return trainer.stability_constants(T, V, thetas, eps_train, delta)
    if beta1 is None or beta2 is None:
        raise _messages.value_error("Give both beta1 and beta2, or neither.")
    _messages.warn("beta1 and beta2 were supplied: the privacy of the selection rests on the "
                   "caller's proof that the validation score is (beta1, beta2)-stable "
                   "(Chaudhuri and Vinterbo 2013, Theorem 1).", UserWarning, stacklevel=stacklevel)
    return _checks.check_finite_budget(beta1, "beta1"), _checks.check_finite_budget(beta2, "beta2")


def _validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2, selector,
              noise, rng):
    """Algorithm 1 on checked settings. Returns (index, scores, beta); scores and beta are
    for tests and must never be released."""
    beta = max(beta1 / trainer.n_records(T), beta2 / trainer.n_records(V))  # Algorithm 1 step 1
    shared = trainer.draw_noise(T, thetas, rng) if noise == "shared" else None
    scores = np.empty(len(thetas))
    for i, theta in enumerate(thetas):  # Algorithm 1 step 2: full T, full eps_train
        R = shared if shared is not None else trainer.draw_noise(T, [theta], rng)
        scores[i] = trainer.score(trainer.fit(T, theta, eps_train, R), V)
    return _select(scores, beta, eps_select, selector, rng), scores, beta


def _validation_loss(eps_select, delta):
    """Validate's loss (Thm 1): (eps_select, delta); ValueError for invalid arguments."""
    return accounting.PrivacyLoss.approx(
        _checks.check_finite_budget(eps_select, "eps.select"),
        _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True))


def _tuning_loss(eps_train, eps_select, delta):
    """The loss of Validate and the retraining together (Thm 2): the retrained model's
    eps_train composed with Validate's (eps_select, delta)."""
    return (accounting.PrivacyLoss.pure(_checks.check_finite_budget(eps_train, "eps.train"))
            + _validation_loss(eps_select, delta))


def _checked_validate(bill, thetas, trainer, T, V, eps_train, eps_select, delta, beta1,
                      beta2, selector, noise, random_state):
    """Validate's checks, then the spend of ``bill``, then Algorithm 1: the body that
    :func:`validate_stable` and :func:`tune_stable` share. Returns (index, the checked
    candidates, eps_train, the generator) for the retraining of Chaudhuri and Vinterbo 2013."""
    settings = _settings(thetas, eps_train, eps_select, delta, selector, noise)
    thetas, eps_train, eps_select, delta, selector, noise = settings
    beta1, beta2 = _betas(trainer, T, V, thetas, eps_train, delta, beta1, beta2, stacklevel=4)
    rng = _random.as_generator(random_state)
    bill.spend()
    index = _validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2,
                      selector, noise, rng)[0]
    return index, thetas, eps_train, rng


def validate_stable(thetas, trainer, T, V, eps_train, eps_select, delta=0.01,
                    beta1=None, beta2=None, selector="exponential_noise", noise="shared",
                    random_state=None, accountant=None):
    """Algorithm 1, Validate: the private index of the best candidate.

    Parameters
    ----------
    thetas : sequence
        The candidate parameters.
    trainer : StableTrainer
    T, V : objects the trainer understands
        Disjoint training and validation data (overlap breaks the accounting).
    eps_train, eps_select : float
        alpha_1 (each candidate's training budget) and alpha_2 (the selection's).
    delta : float
        Overall delta.
    beta1, beta2 : float, optional
        Override the trainer's stability constants (a warning says privacy then rests on the
        caller's proof).
    selector : {'exponential_noise', 'gumbel', 'laplace'}
        See :func:`stable_select`.
    noise : {'shared', 'independent'}
        One noise draw for all candidates, or one per candidate (see the module docstring).
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.approx(eps_select, delta)`` (label ``"validate_stable"``);
        None: the session's accountant, if any.

    Returns
    -------
    int
        0-based index into ``thetas``; (eps_select, delta)-DP (Thm 1).

    Raises
    ------
    ValueError
        For no candidates, budgets or delta out of range, an unknown selector or noise
        mode, only one of beta1 and beta2, or an overspend of the accountant.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 1 and Theorem 1.

    Examples
    --------
    Three bin widths for a histogram of data in [0, 1], with the module's
    ``HistogramTrainer``:

    >>> from dppack import validate_stable
    >>> import numpy as np
    >>> from dppack.model_selection.stability import HistogramTrainer
    >>> x = (np.sin(np.arange(500)) + 1) / 2  # fixed example data in [0, 1]
    >>> validate_stable([0.5, 0.25, 0.1], HistogramTrainer(), x[:400], x[400:],
    ...                 eps_train=1.0, eps_select=1.0, random_state=1)
    2
    """
    _frames.refuse_dask("validate_stable", T, V)
    bill = accounting.charge(accountant, lambda: _validation_loss(eps_select, delta),
                             "validate_stable")
    return _checked_validate(bill, thetas, trainer, T, V, eps_train, eps_select, delta, beta1,
                             beta2, selector, noise, random_state)[0]


def tune_stable(thetas, trainer, T, V, eps_train, eps_select, delta=0.01, beta1=None,
                beta2=None, selector="exponential_noise", noise="shared", random_state=None,
                accountant=None):
    """Algorithm 2: Validate, then retrain the selected candidate on T with fresh noise.

    Parameters and randomness as :func:`validate_stable`; ``accountant`` is charged
    ``PrivacyLoss.approx(eps_train + eps_select, delta)`` once (label ``"tune_stable"``).

    Parameters
    ----------
    thetas, trainer, T, V, eps_train, eps_select, delta, beta1, beta2, selector, noise
        As :func:`validate_stable`.
    random_state, accountant
        As :func:`validate_stable` (the accountant's label is ``"tune_stable"``).

    Returns
    -------
    (int, model)
        The selected index and F(T, theta_i*, eps_train, R) with a fresh R
        (:meth:`StableTrainer.release`); together (eps_train + eps_select, delta)-DP
        (Thm 2) when the trainer is eps_train-DP.

    Raises
    ------
    ValueError
        As :func:`validate_stable`.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 2 and Theorem 2.

    Examples
    --------
    See :class:`StableTrainer` for a trainer written from scratch; with the module's
    histogram trainer:

    >>> from dppack import tune_stable
    >>> import numpy as np
    >>> from dppack.model_selection.stability import HistogramTrainer
    >>> x = (np.sin(np.arange(500)) + 1) / 2  # fixed example data in [0, 1]
    >>> index, counts = tune_stable([0.5, 0.25, 0.1], HistogramTrainer(), x[:400], x[400:],
    ...                             eps_train=1.0, eps_select=1.0, random_state=1)
    >>> index, counts.shape  # 1/h = 10 bins
    (2, (10,))
    """
    _frames.refuse_dask("tune_stable", T, V)
    bill = accounting.charge(accountant, lambda: _tuning_loss(eps_train, eps_select, delta),
                             "tune_stable")
    index, thetas, eps_train, rng = _checked_validate(
        bill, thetas, trainer, T, V, eps_train, eps_select, delta, beta1, beta2, selector,
        noise, random_state)
    return index, trainer.release(T, thetas[index], eps_train, rng)


# --------------------------------------------------------------------------------------------
# Instance A: regularised linear classifiers (Chaudhuri and Vinterbo 2013, Section 4.1)
# --------------------------------------------------------------------------------------------


def _margins_loss(margins, score):
    """Per-row loss g of the margins y w'x (ramp, hinge, logistic; the logistic loss is
    :func:`dppack.erm.losses.logistic`'s)."""
    if score == "ramp":
        return np.clip(1.0 - margins, 0.0, 1.0)
    if score == "hinge":
        return np.maximum(0.0, 1.0 - margins)
    return losses.logistic().value(margins)


class LinearClassifierTrainer(StableTrainer):
    """F for DPpack's CMS classifiers: theta is one of the given (unfitted) models; F fits
    a copy of it at ``eps`` on T with the shared standard draw (``StandardNoise``: R / rate
    in the objective, L scaled and rounded to the fit's grid in the release).

    T and V are (X, y) pairs; the fits clip X to the bounds and scale rows into the unit ball,
    and the score clips V's X to the same bounds, so that ||x|| <= 1 on both sides, as Thm 4
    assumes. q = minus the mean loss of the margins y coeff'x on V, y in {-1, +1}.
    """

    def __init__(self, upper_bounds, lower_bounds, add_bias, score="ramp"):
        self.upper_bounds, self.lower_bounds = upper_bounds, lower_bounds
        self.add_bias = add_bias
        self.score_name = score
        self._validation = {}

    def n_records(self, data):
        return n_rows(data[0])

    def dimension(self, T):
        return np.shape(T[0])[1] + int(self.add_bias)

    def draw_noise(self, T, thetas, rng):
        return StandardNoise.draw(self.dimension(T), rng)

    def fit(self, T, theta, eps, noise):
        model = copy.copy(theta)
        model.eps = eps
        # With noise given, nothing is drawn: F is deterministic.
        return fit_with_noise(model, T[0], T[1], noise, self.upper_bounds, self.lower_bounds,
                              self.add_bias, accountant=accounting.UNCHARGED)

    def _validation_design(self, V):
        key = id(V)
        if key not in self._validation:
            design = prepare_design(V[0], V[1], self.upper_bounds, self.lower_bounds,
                                    self.add_bias, labels="signed")
            self._validation[key] = (V, design["X"], design["y"])
        return self._validation[key][1:]

    def score(self, model, V):
        X, y = self._validation_design(V)
        return -float(np.mean(_margins_loss(y * (X @ model.coeff), self.score_name)))

    def stability_constants(self, T, V, thetas, eps, delta):
        n = self.n_records(T)
        gamma_min = min(model.gamma for model in thetas)
        return _linear_betas(gamma_min, n, self.n_records(V), self.dimension(T), len(thetas),
                             _noise_eps(thetas, eps, n), delta, self.score_name)


def _noise_eps(models, eps, n):
    """The budget the candidates' training noise is scaled with (the smallest)."""
    # Thm 4: the norm bound of beta2 uses the budget the noise is scaled with (eps' for
    # objective perturbation, at least eps_1/2 with eps_1 the objective's share of eps
    # (dppack.erm.approximate.split_budget); eps / (1 + tau) for output perturbation,
    # whose rate covers the optimality slack tau); only the unbounded scores need it.
    return min(
        objective_perturbation_parameters(split_budget(eps)[0], model.gamma, model.c, n)[0]
        if model.perturbation_method == "objective" else eps / (1.0 + OPTIMALITY_SLACK)
        for model in models)


def _linear_betas(gamma_min, n, m, d, k, noise_eps, delta, score):
    """Thm 4's (beta1, beta2) for candidates whose smallest DPpack gamma is ``gamma_min``."""
    # Thm 4 assumes exact minimisers; the fits are minimisers certified to
    # ||grad|| <= tau / n (erm.cms), within tau / (n lambda) of the exact ones, so lambda /
    # (1 + tau) in its place bounds both ||theta(T) - theta(T')|| and ||theta||.
    return stability_constants_linear(gamma_min / n / (1.0 + OPTIMALITY_SLACK), n, m, d, k,
                                      noise_eps, delta, score)


def _check_stable_models(models):
    for model in models:
        if not isinstance(model, (LogisticRegressionDP, svmDP)):
            raise _messages.value_error("DPmodels must be LogisticRegressionDP or svmDP models.")
        if isinstance(model, svmDP) and model.kernel != "linear":
            raise _messages.value_error(
                "Stability-based tuning supports the linear kernel of svmDP only "
                "(the Gaussian kernel's random features are not covered).")
        check_parameters(model)
        if model.regularizer is not regularizer_l2:
            raise _messages.value_error(
                "Stability-based tuning needs regularizer = 'l2' (Thm 4 assumes "
                "the (gamma/n)-strongly convex l2 penalty).")
    budgets = {model.eps for model in models}
    if len(budgets) != 1:
        raise _messages.value_error("All DPmodels must have the same eps (the training budget).")
    eps = budgets.pop()
    _checks.check_finite_budget(eps, "eps")
    return eps


def _split_plan(X, X_validation, y_validation, validation_fraction):
    """The split from the shapes alone (public; no value is read): (n, m, rows), the training
    and validation sizes and the rows of X each takes (None: a separate validation set)."""
    n = n_rows(X)
    if X_validation is None and y_validation is None:
        fraction = _checks.check_number(validation_fraction, "validation.fraction", 0, 1,
                                        closed="neither", strict=True)
        training, validation = split_rows(n, fraction)
        return training.size, validation.size, (training, validation)
    if X_validation is None or y_validation is None:
        raise _messages.value_error("Give both X.validation and y.validation, or neither.")
    return n, n_rows(X_validation), None


def _data_parts(X, y, X_validation, y_validation, plan):
    y = as_labels(y, n_rows(X))
    if plan[2] is not None:
        training, validation = plan[2]
        return (take_rows(X, training), y[training]), (take_rows(X, validation), y[validation])
    return (X, y), (X_validation, as_labels(y_validation, plan[1]))


# --------------------------------------------------------------------------------------------
# How far the selection can be from uniform, from public values only
# --------------------------------------------------------------------------------------------

#: The selection is "near uniform" when its total variation distance from a uniform choice is
#: below this for scores ``score_gap`` apart (see :func:`stability_selection_diagnosis`).
NEAR_UNIFORM_TV = 0.1

#: delta_0 of the utility bound (Thm 3) in :attr:`StabilitySelectionDiagnosis.utility_slack`.
UTILITY_DELTA = 0.05


class NearUniformSelectionWarning(UserWarning):
    """Warned by :func:`tune_classification_model_stable` before any data is touched when the
    selection is near uniform (:func:`stability_selection_diagnosis`): it chooses among the
    candidates almost at random, whatever the data.

    Parameters
    ----------
    *args, **kwargs
        ``Warning``'s: the text, with the fix (a larger smallest gamma or eps_select).

    Attributes
    ----------
    r_message : str
        The text in R's spelling (``eps.select``), which an R caller reads as an R warning;
        set when the core issues it.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 1 and 3 (sensitivity and utility of
    the selection).

    Examples
    --------
    Silence it when a near-uniform choice is what you want:

    >>> from dppack import NearUniformSelectionWarning
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", NearUniformSelectionWarning)
    ...     warnings.warn("near uniform", NearUniformSelectionWarning)
    """


@functools.lru_cache(maxsize=8)
def _legendre(size):
    return np.polynomial.legendre.leggauss(size)


def _group_win_probabilities(x, k, selector):
    """P_j(x), j = 1..k-1: the probability that the winner is one of j candidates whose score
    exceeds that of the other k - j by x noise scales (scale: 2 beta / eps_select, the
    selection's noise for all three selectors).

    With F the noise's distribution function, the winner is among the j when the largest of
    their j noises, U = F(noise) distributed with density j u^(j-1), beats the others' largest
    shifted by x: P_j = int_0^1 j u^(j-1) F(F^-1(u) + x)^(k-j) du. Gumbel gives the closed
    form of the exponential mechanism; the others are integrated by Gauss-Legendre on pieces
    where the integrand is smooth (exact for the exponential noise, a polynomial in u)."""
    j = np.arange(1, k)
    if selector == "gumbel":  # the exponential mechanism: P proportional to exp(eps q / (2 beta))
        return j / (j + (k - j) * math.exp(-x))
    # beyond x = 60 every P_j is within k x e^-x < 1e-22 of its limit
    x = min(x, 60.0)
    nodes, weights = _legendre(64 + k)
    tail = math.exp(-x)

    def piece(lower, upper, shifted, jacobian=None):
        """int over [lower, upper] of the integrand at u = jacobian's first value."""
        mid, half = 0.5 * (upper + lower), 0.5 * (upper - lower)
        t = half * nodes + mid
        u, du = (t, 1.0) if jacobian is None else jacobian(t)
        values = j[:, None] * u ** (j[:, None] - 1) * shifted(t) ** (k - j[:, None]) * du
        return half * (values @ weights)

    if selector == "exponential_noise":  # F(t) = 1 - e^-t: F(F^-1(u) + x) = 1 - (1 - u) e^-x
        return piece(0.0, 1.0, lambda u: 1.0 - (1.0 - u) * tail)
    # Laplace, F^-1(u) = log(2u) below 1/2: F(F^-1(u) + x) = u e^x while F^-1(u) + x < 0,
    # i.e. u < e^-x / 2, then 1 - e^-x / (4u); above 1/2 as the exponential noise. The middle
    # piece is steep near its lower end for large x: it is integrated over t = F^-1(u) in
    # [-x, 0] (u = e^t / 2, du = e^t / 2 dt), in pieces of length at most 5.
    kink = 0.5 * tail
    total = (piece(0.0, kink, lambda u: u / (2.0 * kink))
             + piece(0.5, 1.0, lambda u: 1.0 - (1.0 - u) * tail))
    cuts = np.linspace(-x, 0.0, int(math.ceil(x / 5.0)) + 1)
    for lower, upper in zip(cuts[:-1], cuts[1:]):
        total = total + piece(lower, upper, lambda t: 1.0 - 0.5 * np.exp(-(t + x)),
                              lambda t: (0.5 * np.exp(t), 0.5 * np.exp(t)))
    return total


def _distance_from_uniform(x, k, selector):
    """(TV, P_1): the largest total variation distance between the selection and a uniform
    choice, over all scores in an interval of x noise scales, and the largest probability of
    one candidate.

    P(the winner is in S) grows with the scores in S and falls with the others, so for a set S
    its excess P(S) - |S|/k is largest with S at the top of the interval and the rest at the
    bottom; TV = max_S (P(S) - |S|/k) is the largest of these over |S| = j."""
    if k == 1:
        return 0.0, 1.0
    win = _group_win_probabilities(x, k, selector)
    # quadrature rounding can leave a probability a few ulps outside [0, 1]
    return (float(min(1.0, max(0.0, np.max(win - np.arange(1, k) / k)))),
            float(min(1.0, max(0.0, win[0]))))


def _utility_noise_scales(k, selector):
    """The slack, in noise scales 2 beta / eps_select, within which the chosen score is of
    the best with probability at least 1 - UTILITY_DELTA, whatever the scores.

    Exponential noise (the paper's selector): Chaudhuri and Vinterbo 2013, Theorem 3,
    ln(k / delta_0). Exponential mechanism: Dwork and Roth 2014, Theorem 3.11 (score
    sensitivity beta, P proportional to exp(eps q / (2 beta)), t = ln(1 / delta_0)), the same
    ln(k / delta_0). Neither proof covers Laplace noise, whose true tail at ln(k / delta_0)
    exceeds delta_0 (0.0538 for k = 10). For it the exact worst case [derived]: report-noisy-max
    with i.i.d. noise chooses a candidate in a set more often when that set's scores rise and
    the others' fall, so P(chosen score < best - s) is largest with one candidate at the best
    and the k - 1 others just below best - s, where it is 1 - P_1(s / scale); the slack is the
    root of 1 - P_1(x) = delta_0 (quadrature of :func:`_group_win_probabilities`). It is below
    the union bound ln(k / delta_0) + ln(1 / delta_0) (P(Z_best < -ln(1 / delta_0)) +
    (k - 1) P(Z > ln(k / delta_0)) < delta_0 / 2 + delta_0 / 2), the bracket of the root."""
    if selector != "laplace":
        return math.log(k / UTILITY_DELTA)
    if k == 1:
        return 0.0  # the only candidate is the best
    from scipy import optimize  # here: `import dppack` loads no optimiser

    upper = math.log(k / UTILITY_DELTA) + math.log(1.0 / UTILITY_DELTA)
    return optimize.brentq(
        lambda x: 1.0 - _group_win_probabilities(x, k, selector)[0] - UTILITY_DELTA,
        0.0, upper, xtol=1e-12, rtol=1e-12)


def _uniform_boundary(k, selector):
    """The x (score gap over noise scale) at which the distance from uniform reaches
    NEAR_UNIFORM_TV (it grows with x from 0 to 1 - 1/k)."""
    from scipy import optimize  # here: `import dppack` loads no optimiser

    upper = 1.0
    while _distance_from_uniform(upper, k, selector)[0] < NEAR_UNIFORM_TV:
        upper *= 2.0
    return optimize.brentq(lambda x: _distance_from_uniform(x, k, selector)[0] - NEAR_UNIFORM_TV,
                           0.0, upper, xtol=1e-12, rtol=1e-12)


@dataclass(frozen=True)
class StabilitySelectionDiagnosis:
    """How far a stability-based selection can be from a uniform choice (a
    :func:`stability_selection_diagnosis` result, from public values only).

    Attributes
    ----------
    verdict : {'near uniform', 'informative', 'one candidate'}
        'near uniform' when ``distance_from_uniform`` < ``threshold``.
    k : int
        The number of candidates.
    gamma_min : float
        The smallest candidate gamma.
    beta1, beta2 : float
        Thm 4's stability constants; beta1 / n = 2 / gamma_min (up to the solver's 1e-6
        slack), beta2 the range of the validation loss.
    sensitivity : float
        beta = max(beta1 / n, beta2 / m): how much one record can move a validation score.
    score_gap : float
        The score difference the numbers below assume (by default min(beta2, 1): for the
        ramp score the whole range of the scores, the most favourable case; for the hinge and
        logistic scores 1, while their losses can differ by up to beta2).
    noise_scale : float
        2 beta / eps_select, the scale of the selection's noise.
    best_probability : float
        The probability of choosing a candidate whose score beats all others by
        ``score_gap``: the largest any candidate can have when the scores lie within
        ``score_gap`` of each other (uniform: 1 / k).
    distance_from_uniform : float
        The largest total variation distance between the selection's distribution and a
        uniform choice, over all scores within ``score_gap`` of each other: no measure of the
        candidates' quality with range [0, 1] (held-out accuracy, say) can be better in
        expectation after the selection than after a uniform choice by more than this.
    utility_slack : float
        With probability at least 0.95, whatever the scores, the selected candidate's
        validation score is within this of the best: 2 beta ln(k / 0.05) / eps_select for
        the exponential noise (Chaudhuri and Vinterbo 2013, Theorem 3) and the exponential
        mechanism (Dwork and Roth 2014, Theorem 3.11); for Laplace noise, which neither
        covers, the exact worst case (2 beta / eps_select) x with 1 - P_1(x) = 0.05, P_1(x)
        the probability that a candidate x noise scales above k - 1 others wins, solved by
        quadrature (at most (2 beta / eps_select)(ln(k / 0.05) + ln(20)) by a union bound).
        No guarantee when it exceeds the score range.
    gamma_min_needed : float or None
        The smallest gamma_min at which the selection stops being near uniform (the other
        values unchanged); None when no gamma suffices (then raise eps_select or the
        validation size m).
    eps_select_needed : float or None
        The smallest eps_select at which it stops being near uniform (None for one candidate).
    eps_select : float
    selector : str
    threshold : float
        ``NEAR_UNIFORM_TV`` (0.1).

    Parameters
    ----------
    verdict, k, gamma_min, beta1, beta2, sensitivity, score_gap, noise_scale
        The attributes above, in this order.
    best_probability, distance_from_uniform, utility_slack, gamma_min_needed
        The attributes above, in this order.
    eps_select_needed, eps_select, selector, threshold
        The attributes above, in this order.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 1, 3 and 4. Dwork C, Roth A (2014),
    The Algorithmic Foundations of Differential Privacy, Theorem 3.11.

    Examples
    --------
    >>> from dppack import stability_selection_diagnosis
    >>> diagnosis = stability_selection_diagnosis([0.01, 1, 100, 1e4], n=40000, m=10000, d=6,
    ...                                           eps=1.0, eps_select=1.0)
    >>> diagnosis.verdict, round(diagnosis.best_probability, 4)
    ('near uniform', 0.2506)
    """

    verdict: str
    k: int
    gamma_min: float
    beta1: float
    beta2: float
    sensitivity: float
    score_gap: float
    noise_scale: float
    best_probability: float
    distance_from_uniform: float
    utility_slack: float
    gamma_min_needed: object
    eps_select_needed: object
    eps_select: float
    selector: str
    threshold: float = NEAR_UNIFORM_TV

    def as_dict(self):
        """The fields as a dict (for R).

        Returns
        -------
        dict

        Examples
        --------
        >>> from dppack import stability_selection_diagnosis
        >>> stability_selection_diagnosis([50, 500], n=1000, m=250, d=3, eps=1.0,
        ...                               eps_select=1.0).as_dict()["verdict"]
        'informative'
        """
        return dataclasses.asdict(self)

    def _advice(self, language):
        """What would make a near-uniform selection informative (``language``'s spelling)."""
        fixes = []
        if self.gamma_min_needed is not None:
            fixes.append(f"the smallest gamma to at least {self.gamma_min_needed:.3g}")
        if self.eps_select_needed is not None:
            fixes.append(f"eps.select to at least {self.eps_select_needed:.3g}")
        text = "Raise " + " or ".join(fixes) + ", or tune" if fixes else "Tune"
        return _spelled(text + " by data splitting (tune_classification_model), which needs "
                        "no stability.", language)

    def describe(self, language="python"):
        """The diagnosis in words: the verdict, the numbers behind it and, when it is near
        uniform, what would help (the smallest gamma_min and eps_select, or data splitting).

        Parameters
        ----------
        language : {'python', 'r'}, default 'python'
            Whose spelling of the argument names.

        Returns
        -------
        str
            Also what ``str()`` and ``print()`` show.

        Raises
        ------
        ValueError
            For an unknown ``language``.

        Examples
        --------
        >>> from dppack import stability_selection_diagnosis
        >>> diagnosis = stability_selection_diagnosis([50, 500], n=1000, m=250, d=3, eps=1.0,
        ...                                           eps_select=1.0)
        >>> print(diagnosis.describe().splitlines()[0])
        Stability-based selection among 2 candidates: informative for validation scores 1 apart.
        """
        case = ("Most favourable case (scores the whole range beta2 apart)"
                if self.score_gap >= self.beta2 else
                f"Scores {self.score_gap:.4g} apart (they can differ by up to beta2, and "
                f"larger differences are chosen more often)")
        source = {"exponential_noise": "Chaudhuri and Vinterbo 2013, Theorem 3",
                  "gumbel": "Dwork and Roth 2014, Theorem 3.11",
                  "laplace": "the exact worst case for Laplace noise"}[self.selector]
        lines = [
            f"Stability-based selection among {self.k} candidates: {self.verdict} for "
            f"validation scores {self.score_gap:.4g} apart.",
            f"Sensitivity beta = {self.sensitivity:.4g} (beta1 = {self.beta1:.4g}, "
            f"beta2 = {self.beta2:.4g}); selection noise of scale 2 beta / eps.select = "
            f"{self.noise_scale:.4g}.",
            f"{case}: the best candidate is chosen with probability at most "
            f"{self.best_probability:.4g} (uniform: {1 / self.k:.4g}); distance from uniform "
            f"{self.distance_from_uniform:.4g} (near uniform below {self.threshold:g}).",
            f"Chosen score within {self.utility_slack:.4g} of the best with probability 0.95 "
            f"({source}).",
        ]
        if self.verdict == "near uniform":
            lines.append(self._advice("r"))
        return _spelled("\n".join(lines), language)

    def __str__(self):
        return self.describe()


def _spelled(text, language):
    """``text``, written in R's spelling, in ``language``'s."""
    _checks.check_choice(language, "language", ("python", "r"))
    return _messages.python_spelling(text) if language == "python" else text


def _diagnosis(betas, gamma_min, n, m, k, eps_select, selector, score_gap):
    """The diagnosis, with ``betas(gamma_min) -> (beta1, beta2)`` (Thm 4 for the other
    values)."""
    from scipy import optimize  # here: `import dppack` loads no optimiser

    def signal(gamma):  # x: the score gap in noise scales, nondecreasing in gamma
        beta1, beta2 = betas(gamma)
        beta = max(beta1 / n, beta2 / m)
        # the ramp score's whole range; 1 for the unbounded scores (see score_gap)
        gap = min(beta2, 1.0) if score_gap is None else score_gap
        return eps_select * gap / (2.0 * beta), beta1, beta2, beta, gap

    x, beta1, beta2, beta, gap = signal(gamma_min)
    distance, best = _distance_from_uniform(x, k, selector)
    gamma_needed = eps_needed = None
    if k > 1:
        boundary = _uniform_boundary(k, selector)
        eps_needed = eps_select * boundary / x if x > 0 else None  # x = 0: beta overflowed
        gamma_needed = gamma_min
        if x < boundary:
            upper = gamma_min
            while signal(upper)[0] < boundary and upper < 1e300 / 4:
                upper *= 4.0
            gamma_needed = None
            if signal(upper)[0] >= boundary:
                gamma_needed = math.exp(optimize.brentq(
                    lambda t: signal(math.exp(t))[0] - boundary, math.log(gamma_min),
                    math.log(upper), xtol=1e-10))
    verdict = ("one candidate" if k == 1 else
               "near uniform" if distance < NEAR_UNIFORM_TV else "informative")
    return StabilitySelectionDiagnosis(
        verdict, k, gamma_min, beta1, beta2, beta, gap, 2.0 * beta / eps_select, best,
        distance, 2.0 * beta * _utility_noise_scales(k, selector) / eps_select,
        gamma_needed, eps_needed, eps_select, selector)


def stability_selection_diagnosis(gammas, n, m, d, eps, eps_select, delta=0.01, score="ramp",
                                  selector="exponential_noise", score_gap=None):
    """How far stability-based selection (:func:`tune_classification_model_stable`) can be from
    a uniform choice among the candidates, from public values only: no data are needed.

    The selection adds noise of scale 2 beta / eps_select to validation scores whose
    sensitivity is beta = max(beta1 / n, beta2 / m) (Chaudhuri and Vinterbo 2013, Theorems 1
    and 4), and beta1 / n = 2 / gamma_min: a small gamma anywhere in the grid makes the noise
    swamp every score difference, and the choice becomes a coin toss. The scores of the
    default ramp loss lie in an interval of width beta2 <= 1; the most favourable case is one
    candidate beating all others by that whole width, and even then the selection can be close
    to uniform. The hinge and logistic losses are unbounded: their scores can differ by up to
    beta2, a bound on the coefficients' norm, usually far above 1.

    The distance from uniform reported is the largest total variation distance between the
    selection's distribution and a uniform choice over all scores within ``score_gap`` of each
    other (it is the most that the selection can improve, in expectation, any measure of the
    candidates' quality with range [0, 1] over picking one at random). The selection is called
    "near uniform" when that distance is below ``NEAR_UNIFORM_TV`` = 0.1: even in the most
    favourable case it cannot move more than a tenth of the probability away from a uniform
    choice, so it can gain at most a tenth of the quality range between the candidates, while
    it costs eps_select and delta (choosing one candidate at random, trained on all the data,
    costs neither). For the ramp score the default ``score_gap`` is the whole range of the
    scores, the most favourable case, so "near uniform" is certain: no data can move the
    selection further from uniform. For the hinge and logistic scores the default gap 1 is not
    the most favourable case: "near uniform" then says that mean losses up to 1 apart (a
    trivial classifier against a perfect one) are not resolved, while losses further apart
    (possible up to beta2) would be chosen more often. "Informative" only says that large
    score differences would be detected (see ``utility_slack`` and ``score_gap`` for
    realistic differences).

    Parameters
    ----------
    gammas : array_like
        The candidates' gamma (DPpack's regularisation constant), > 0.
    n, m : int
        Training and validation set sizes (with ``validation_fraction`` f and N rows, m =
        floor(N f), n = N - m).
    d : int
        The number of coefficients (columns of X, plus 1 with ``add_bias``).
    eps : float
        The candidates' training budget. It enters beta2 only (the bound on the coefficients'
        norm, for the hinge and logistic scores or gamma above n); objective perturbation's
        noise uses a slightly smaller eps', which :func:`tune_classification_model_stable`
        takes into account.
    eps_select : float
        The selection budget.
    delta : float, default 0.01
        Overall delta of the selection.
    score : {'ramp', 'hinge', 'logistic'}, default 'ramp'
    selector : {'exponential_noise', 'gumbel', 'laplace'}, default 'exponential_noise'
    score_gap : float, optional
        The difference between validation scores to assess. Default: min(beta2, 1), the
        whole range of the ramp score (the most favourable case); for the unbounded hinge
        and logistic scores 1, more than separates a trivial classifier (mean hinge loss 1,
        logistic log 2) from a perfect one, since their range beta2 is a bound on the
        coefficients' norm, far larger than most real differences (not the most favourable
        case: losses can differ by more than 1). For the ramp score a
        realistic difference of mean ramp losses is a few hundredths, e.g. 0.02.

    Returns
    -------
    StabilitySelectionDiagnosis
        The numbers, the verdict and the smallest gamma_min and eps_select that would make
        the selection informative (distance from uniform at least 0.1), each with the other
        values unchanged; ``print()`` gives them in words.

    Raises
    ------
    ValueError
        For an argument out of range or an unknown option.

    Notes
    -----
    All three selectors add noise of scale 2 beta / eps_select, so the distance depends on
    x = eps_select score_gap / (2 beta) and k only. The exponential mechanism ('gumbel')
    chooses the j best of k, j of them ahead of the others by x, with probability j e^x /
    (j e^x + k - j); the report-noisy-max selectors are integrated numerically. For the ramp
    score and k = 10 the selection leaves "near uniform" at about gamma_min = 1.5 /
    eps_select (the paper's exponential noise): DPpack-style grids starting at gamma = 0.01
    are far below. More training data do not help (beta1 / n = 2 / gamma_min whatever n);
    then prefer data splitting (:func:`dppack.tune_classification_model`), which needs no
    stability and whose exponential mechanism compares error counts with sensitivity 1.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), A stability-based validation procedure for
    differentially private machine learning, NeurIPS, Theorems 1, 3 and 4.

    Examples
    --------
    Seven candidates gamma = 0.01 ... 10^4 on 40,000 training and 10,000 validation rows:

    >>> from dppack import stability_selection_diagnosis
    >>> grid = [0.01, 0.1, 1, 10, 100, 1000, 10000]
    >>> wide = stability_selection_diagnosis(grid, n=40000, m=10000, d=6, eps=1.0,
    ...                                      eps_select=1.0)
    >>> wide.verdict, round(wide.sensitivity, 6), round(wide.best_probability, 4)
    ('near uniform', 200.0002, 0.1432)
    >>> round(wide.gamma_min_needed, 2), round(wide.eps_select_needed)
    (1.38, 138)
    >>> stability_selection_diagnosis([50, 100, 1000], n=40000, m=10000, d=6, eps=1.0,
    ...                               eps_select=1.0).verdict
    'informative'
    """
    values = _checks.as_numeric_array(gammas, "gammas must be numeric.").ravel()
    if values.size == 0:
        raise _messages.value_error("gammas must contain at least one value.")
    _checks.check_positive_values(values, "gammas must be finite numbers > 0.")
    n, m, d = (_checks.check_whole(v, name, 1, strict=True)
               for v, name in ((n, "n"), (m, "m"), (d, "d")))
    eps = _checks.check_finite_budget(eps, "eps")
    eps_select = _checks.check_finite_budget(eps_select, "eps.select")
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    _checks.check_choice(score, "score", SCORES)
    _checks.check_choice(selector, "selector", SELECTORS)
    if score_gap is not None:
        score_gap = _checks.check_finite_budget(score_gap, "score.gap")
    k = values.size
    noise_eps = eps / (1.0 + OPTIMALITY_SLACK)  # output perturbation's (see eps above)
    return _diagnosis(
        lambda gamma: _linear_betas(gamma, n, m, d, k, noise_eps, delta, score),
        float(values.min()), n, m, k, eps_select, selector, score_gap)


def _warn_near_uniform(models, eps_train, n, m, d, eps_select, delta, score, selector):
    """tune_classification_model_stable's check, on public values: a
    NearUniformSelectionWarning when the selection is near uniform."""
    k = len(models)
    noise_eps = _noise_eps(models, eps_train, n)
    diagnosis = _diagnosis(
        lambda gamma: _linear_betas(gamma, n, m, d, k, noise_eps, delta, score),
        min(model.gamma for model in models), n, m, k, eps_select, selector, None)
    if diagnosis.verdict == "near uniform":
        # ramp: the gap is the whole score range; hinge, logistic: 1, while beta2 is larger
        case = ("the most favourable case" if diagnosis.score_gap >= diagnosis.beta2 else
                "mean losses that far apart; a larger gap, possible for this score, would be "
                "chosen more often")
        _messages.warn(
            "The selection is near uniform: even a candidate whose validation score beat all "
            "others by {gap:.3g} (" + case + ") would be chosen with probability "
            "{best:.3g} "
            "(uniform: {uniform:.3g}), because the noise is scaled to the scores' sensitivity "
            "max(2 / min(gamma), beta2 / m) = {beta:.4g} (see "
            "stability_selection_diagnosis()). " + diagnosis._advice("r"),
            NearUniformSelectionWarning, stacklevel=3, gap=diagnosis.score_gap,
            best=diagnosis.best_probability,
            uniform=1.0 / k, beta=diagnosis.sensitivity)
    return diagnosis



def tune_classification_model_stable(DPmodels, X, y, upper_bounds, lower_bounds,
                                     eps_select, add_bias=False, delta=0.01,
                                     validation_fraction=0.2, X_validation=None,
                                     y_validation=None, score="ramp",
                                     selector="exponential_noise", noise="shared",
                                     random_state=None, accountant=None):
    """Stability-based private selection of a classifier (Chaudhuri and Vinterbo 2013): every
    candidate trains on the whole training set, one is selected privately and retrained.

    Parameters
    ----------
    DPmodels : sequence of LogisticRegressionDP or linear svmDP models
        The candidates: same ``eps`` (the training budget eps_train), finite;
        regularizer 'l2'; they differ in gamma (or perturbation method). Not modified,
        except the selected one, which is fitted in place with fresh noise.
    X : array_like
        n x p features (ndarray or pandas DataFrame).
    y : array_like
        n labels in {0, 1}.
    upper_bounds, lower_bounds : array_like
        Bounds of the p columns; X is clipped to them (training and validation).
    eps_select : float
        The selection budget alpha_2.
    add_bias : bool, default False
    delta : float, default 0.01
        Overall delta of the selection (the paper's experiments use 0.01).
    validation_fraction : float, default 0.2
        Share of the rows held out for validation (interleaved, see
        ``dppack.erm.design.split_rows``), unless ``X_validation`` and ``y_validation`` are given;
        then X, y is the training set.
    X_validation, y_validation : array_like, optional
        A separate validation set (disjoint from X).
    score : {'ramp', 'hinge', 'logistic'}, default 'ramp'
        The validation loss; ramp is bounded, hence the smallest beta2.
    selector : {'exponential_noise', 'gumbel', 'laplace'}
    noise : {'shared', 'independent'}
        See the module docstring: what is shared is the standardised noise vector R.
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.approx(eps + eps_select, delta)`` once (label
        ``"tune_classification_model_stable"``), before any data is touched; None: the
        session's accountant, if any.

    Returns
    -------
    model
        The selected model of ``DPmodels``, fitted on the training set with fresh noise.
        The whole call is (eps + eps_select, delta)-DP (Thm 2, Thm 4); the model's
        ``privacy_`` holds that loss.

    Warns
    -----
    NearUniformSelectionWarning
        Before any data value is read (from the sizes, the gammas and the budgets), when the
        selection is near uniform (:func:`stability_selection_diagnosis`): even a candidate
        beating all others by the whole score range (ramp; by 1 for the hinge and logistic
        scores, whose losses can differ by more) would be chosen with a probability so close
        to 1 / k that the distance from a uniform choice is below 0.1. The warning names the
        smallest gamma_min and eps_select that would help.

    Notes
    -----
    With beta = max(2 / gamma_min, beta2 / m) (Thm 4; 2 / gamma_min = beta1 / n), the
    selection is accurate when 2 beta ln(k) / eps_select is small against the score
    differences (Thm 3): not too small gamma (more data do not help: 2 / gamma_min does not
    depend on n) and a large enough eps_select. Prefer data splitting
    (:func:`dppack.tune_classification_model`) when the grid reaches small gammas (for the
    ramp score and k = 10, the selection is near uniform below about gamma_min = 1.5 /
    eps_select, and it resolves realistic score differences of a few hundredths only for
    gamma_min in the tens or more), when the training set is small, or when pure eps-DP is
    required; this procedure is better when gamma_min is large and n is large, because
    each candidate trains on all n rows rather than n / (k + 1).
    :func:`stability_selection_diagnosis` tells which regime a grid is in.

    Raises
    ------
    ValueError
        Before any data is touched: models that are not LogisticRegressionDP or linear
        svmDP with regularizer 'l2' and one finite eps, bad budgets or options, an
        overspend; then bad data or bounds, before any noise is drawn.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 2, Theorems 2 and 4.

    Examples
    --------
    Three linear SVMs (output perturbation) that differ in gamma; each trains on 80% of the
    rows at eps = 1, the selection spends 1 more (gamma >= 10: not near uniform, see
    :func:`stability_selection_diagnosis`):

    >>> from dppack import tune_classification_model_stable
    >>> import dppack
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> models = [dppack.svmDP("l2", 1.0, gamma, "output") for gamma in (10.0, 100.0, 1000.0)]
    >>> best = tune_classification_model_stable(models, X, y, [200, 70], [50, 15],
    ...                                         eps_select=1.0, add_bias=True, random_state=1)
    >>> best.gamma in (10.0, 100.0, 1000.0), best.privacy_
    (True, PrivacyLoss.approx(eps=2.0, delta=0.01))
    """
    _frames.refuse_dask("tune_classification_model_stable", X, y)
    bill = accounting.charge(
        accountant,
        lambda: _tuning_loss(_check_stable_models(check_models(DPmodels)), eps_select, delta),
        "tune_classification_model_stable")
    models = check_models(DPmodels)
    eps_train = _check_stable_models(models)
    eps_select = _checks.check_finite_budget(eps_select, "eps.select")
    add_bias = _checks.check_flag(add_bias, "add.bias")
    delta = _checks.check_number(delta, "delta", 0, 1, closed="neither", strict=True)
    _checks.check_choice(score, "score", SCORES)
    _checks.check_choice(selector, "selector", SELECTORS)
    _checks.check_choice(noise, "noise", NOISE_MODES)
    plan = _split_plan(X, X_validation, y_validation, validation_fraction)
    shape = _frames.shape(X)
    if plan[0] >= 1 and plan[1] >= 1 and len(shape) == 2:  # else the data checks refuse
        # the near-uniform warning: from public values (sizes, gammas, budgets), before any
        # value is read
        _warn_near_uniform(models, eps_train, plan[0], plan[1], shape[1] + int(add_bias),
                           eps_select, delta, score, selector)
    T, V = _data_parts(X, y, X_validation, y_validation, plan)
    # All data checks before any noise: the fits' own checks on T, and V's.
    prepare_design(T[0], T[1], upper_bounds, lower_bounds, add_bias, labels="binary")
    trainer = LinearClassifierTrainer(upper_bounds, lower_bounds, add_bias, score)
    trainer._validation_design(V)
    beta1, beta2 = trainer.stability_constants(T, V, models, eps_train, delta)
    rng = _random.as_generator(random_state)
    privacy = bill.spend()  # after every check, before the first draw
    index = _validate(models, trainer, T, V, eps_train, eps_select, beta1, beta2,
                      selector, noise, rng)[0]
    chosen = models[index]
    # Algorithm 2 step 2: a fresh R (the model's own draw has the law of R / rate); charged above
    chosen.fit(T[0], T[1], upper_bounds, lower_bounds, add_bias, random_state=rng,
               accountant=accounting.UNCHARGED)
    chosen.privacy_ = privacy
    return chosen


# --------------------------------------------------------------------------------------------
# Instance B: histogram density estimation (Chaudhuri and Vinterbo 2013, Theorem 6)
# --------------------------------------------------------------------------------------------


def _bins(h):
    """1/h, which must be a whole number."""
    count = 1.0 / h
    bins = int(round(count))
    if bins < 1 or abs(count - bins) > 1e-9 * count:
        raise _messages.value_error(
            "Every bin width h must have 1/h a whole number (not h = {h}).", h=h)
    return bins


class HistogramTrainer(StableTrainer):
    """F of Chaudhuri and Vinterbo 2013 (Alg. 5): noisy counts max(0, n_i + 2 R_i / eps) over
    1/h equal bins of [0, 1] (R's hist() cells, right-closed, the first closed); data are already in
    [0, 1]. theta is the bin width h; the model is the array of noisy counts."""

    def __init__(self):
        self._counts = {}

    def n_records(self, data):
        return data.size

    def counts(self, data, bins):
        key = (id(data), bins)
        if key not in self._counts:
            breaks = np.linspace(0.0, 1.0, bins + 1)
            self._counts[key] = (data, rcompat.hist(data, breaks=breaks).counts.astype(float))
        return self._counts[key][1]

    def draw_noise(self, T, thetas, rng):
        """R: standard Laplace values; the candidate with 1/h bins uses the first 1/h.

        Data-free randomness, drawn in floating point (``_random.laplace``): R is never added
        to a released value. The candidates' noisy counts feed only their scores, and the
        released index is eps_select-DP for every fixed R in the stability event (Chaudhuri
        and Vinterbo 2013, Theorem 1; the selection itself is exact, ``_noisy_max``). R's law
        enters only through the probability of that event, bounded by Laplace tails in
        Theorem 6; NumPy's inverse-CDF sampler (log of a uniform on multiples of 2^-53) has
        tails P(|R| > t) within a relative 2^-45 of exp(-t) (the uniform's grid, and one ulp of
        the logarithm at |t| <= 38), far below the rounding of delta.
        The final histogram gets fresh exact noise (:meth:`release`).
        """
        return _random.laplace(1.0, max(_bins(h) for h in thetas), rng)

    def fit(self, T, theta, eps, noise):
        bins = _bins(theta)
        # Algorithm 5: Laplace scale 2/eps (a replacement moves one count down and one up)
        return np.maximum(0.0, self.counts(T, bins) + 2.0 * noise[:bins] / eps)

    def release(self, T, theta, eps, rng):
        """The released histogram: the counts with exact discrete Laplace noise, then
        clamped at 0 (post-processing). Replacing one value moves one count down and one up:
        L1 sensitivity 2 over 2 coordinates, the argument of
        :func:`dppack._random.discrete_laplace_noise` (eps-DP, its scale at least 2/eps)."""
        counts = self.counts(T, _bins(theta))
        noisy = _random.discrete_laplace_noise(counts, 2.0, eps, rng, coordinates=2)
        return np.maximum(0.0, noisy)

    def score(self, model, V):
        bins = model.size
        h = 1.0 / bins
        total = model.sum()
        # no mass left gives the uniform density (our choice; the paper leaves it open)
        density = model / (h * total) if total > 0 else np.ones(bins)
        # Eq. 6: q = -int f^2 + (2/m) sum_j f(z_j)
        return float(-h * np.sum(density ** 2)
                     + 2.0 / V.size * np.dot(density, self.counts(V, bins)))

    def stability_constants(self, T, V, thetas, eps, delta):
        return stability_constants_histogram(min(thetas), T.size, V.size, len(thetas),
                                             eps, delta)


def _unit_data(x, name, lower, upper):
    values = _checks.as_finite_data(x, name)[0].ravel()
    return (np.clip(values, lower, upper) - lower) / (upper - lower)


def tune_histogram_bin_width_stable(x, bin_widths, eps_train, eps_select,
                                    lower_bound=0.0, upper_bound=1.0, delta=0.01,
                                    validation_fraction=0.2, x_validation=None,
                                    selector="exponential_noise", noise="shared",
                                    random_state=None, accountant=None):
    """A private histogram density estimate with a privately selected bin width.

    Parameters
    ----------
    x : array_like
        Numeric, finite data; clipped to [lower_bound, upper_bound].
    bin_widths : array_like
        Candidate widths h as fractions of the range (1/h whole numbers, e.g. 0.1, 0.05).
    eps_train, eps_select : float
        The histogram's budget alpha_1 and the selection's alpha_2.
    lower_bound, upper_bound : float
        The known range of the data.
    delta : float, default 0.01
    validation_fraction : float, default 0.2
        Share of ``x`` held out (interleaved), unless ``x_validation`` is given.
    x_validation : array_like, optional
        A separate validation sample (disjoint from x).
    selector, noise, random_state
        As :func:`tune_classification_model_stable`; the shared noise of the selection is
        one sequence of standard Laplace values.
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.approx(eps_train + eps_select, delta)`` once (label
        ``"tune_histogram_bin_width_stable"``), before any data is touched; None: the
        session's accountant, if any.

    Returns
    -------
    rcompat.Histogram
        Breaks at lower_bound + j h (upper_bound - lower_bound), counts max(0, n_i + Z_i)
        with fresh exact discrete Laplace noise Z of scale at least 2 / eps_train on a
        power-of-two grid (``HistogramTrainer.release``; floats, not rounded to
        integers). The density on the original scale is counts / (sum(counts) h
        (upper_bound - lower_bound)) (uniform when all counts are 0). The call is
        (eps_train + eps_select, delta)-DP (Thm 2, Thm 6); the histogram's ``privacy_``
        holds that loss.

    Raises
    ------
    ValueError
        For bad arguments, and when the training set is too small for Thm 6.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 2, Theorems 2 and 6.

    Examples
    --------
    Plasma glucose in [50, 200] with 5, 10 or 20 bins:

    >>> from dppack import tune_histogram_bin_width_stable
    >>> from dppack.datasets import load_pima
    >>> h = tune_histogram_bin_width_stable(load_pima()["glu"], [0.2, 0.1, 0.05],
    ...                                     eps_train=1.0, eps_select=1.0, lower_bound=50,
    ...                                     upper_bound=200, random_state=1)
    >>> h.breaks.size - 1, h.breaks[:3].tolist(), h.privacy_  # 10 bins of width 15
    (10, [50.0, 65.0, 80.0], PrivacyLoss.approx(eps=2.0, delta=0.01))
    """
    _frames.refuse_dask("tune_histogram_bin_width_stable", x)
    bill = accounting.charge(accountant, lambda: _tuning_loss(eps_train, eps_select, delta),
                             "tune_histogram_bin_width_stable")
    bounds = _checks.check_bounds(("upper.bound", upper_bound), ("lower.bound", lower_bound))
    lower, upper = bounds["lower.bound"], bounds["upper.bound"]
    widths = _checks.as_numeric_array(bin_widths, "bin_widths must be numeric.").ravel()
    if widths.size == 0:
        raise _messages.value_error("bin.widths must be finite numbers > 0.")
    _checks.check_positive_values(widths, "bin.widths must be finite numbers > 0.")
    if np.any(widths > 1):
        raise _messages.value_error("bin.widths must be <= 1 (fractions of the range).")
    thetas = [float(h) for h in widths]
    for h in thetas:
        _bins(h)
    settings = _settings(thetas, eps_train, eps_select, delta, selector, noise)
    thetas, eps_train, eps_select, delta, selector, noise = settings
    values = _unit_data(x, "x", lower, upper)
    if x_validation is None:
        fraction = _checks.check_number(validation_fraction, "validation.fraction", 0, 1,
                                        closed="neither", strict=True)
        training, validation = split_rows(values.size, fraction)
        T, V = values[training], values[validation]
    else:
        T, V = values, _unit_data(x_validation, "x_validation", lower, upper)
    trainer = HistogramTrainer()
    beta1, beta2 = trainer.stability_constants(T, V, thetas, eps_train, delta)
    rng = _random.as_generator(random_state)
    privacy = bill.spend()  # after every check, before the first draw
    index = _validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2,
                      selector, noise, rng)[0]
    counts = trainer.release(T, thetas[index], eps_train, rng)  # fresh noise
    breaks = lower + (upper - lower) * np.linspace(0.0, 1.0, counts.size + 1)
    histogram = rcompat.Histogram(breaks, counts, 0.5 * (breaks[1:] + breaks[:-1]))
    histogram.privacy_ = privacy
    return histogram
