"""How far the selection can be from uniform, from public values only, and the tuner of
classifiers that warns before reading any data."""

import dataclasses
import functools
import math
from dataclasses import dataclass

import numpy as np

from ... import _backends, _checks, _frames, _messages, _plans, accounting
from ...erm._design import prepare_design
from ...erm._solvers import OPTIMALITY_SLACK
from ..._tuning_checks import check_models
from ._constants import NOISE_MODES, SCORES, SELECTORS
from ._linear import (
    LinearClassifierTrainer,
    check_stable_models,
    data_parts,
    linear_betas,
    split_plan,
    training_noise_eps,
)
from ._procedure import tuning_loss, validate


#: The selection is "near uniform" when its total variation distance from a uniform choice is
#: below this for scores ``score_gap`` apart (see :func:`stability_selection_diagnosis`).
NEAR_UNIFORM_TV = 0.1

#: delta_0 of the utility bound (Thm 3) in :attr:`StabilitySelectionDiagnosis.utility_slack`.
UTILITY_DELTA = 0.05


class NearUniformSelectionWarning(UserWarning):
    """Warned by :func:`tune_classification_model_stable`, before any data is read, when the
    selection is near uniform (:func:`stability_selection_diagnosis`).

    Parameters
    ----------
    *args, **kwargs
        ``Warning``'s: the text, with the fix (a larger smallest gamma or eps_select).

    Attributes
    ----------
    r_message : str
        The text in R's spelling (``eps.select``), set when the core issues it.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 1 and 3.

    Examples
    --------
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
    exceeds that of the other k - j by x noise scales (closed form for 'gumbel', Gauss-Legendre
    quadrature otherwise; derivation: docs/python/guide/stability-derivations.md)."""
    j = np.arange(1, k)
    if selector == "gumbel":  # the exponential mechanism: P proportional to exp(eps q / (2 beta))
        return j / (j + (k - j) * math.exp(-x))
    # beyond x = 60 every P_j is within k x e^-x < 1e-22 of its limit
    x = min(x, 60.0)
    nodes, weights = _legendre(64 + k)
    tail = math.exp(-x)

    def piece(lower, upper, shifted, jacobian=None):
        """P_j's integrand integrated over [lower, upper] (``jacobian``: a change of variable)."""
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
    """(TV, P_1): the largest total variation distance from a uniform choice over scores in an
    interval of x noise scales, max_j (P_j - j/k), and the largest probability of one candidate."""
    if k == 1:
        return 0.0, 1.0
    win = _group_win_probabilities(x, k, selector)
    # quadrature rounding can leave a probability a few ulps outside [0, 1]
    return (float(min(1.0, max(0.0, np.max(win - np.arange(1, k) / k)))),
            float(min(1.0, max(0.0, win[0]))))


def _utility_noise_scales(k, selector):
    """The slack, in noise scales, within which the chosen score is of the best with probability
    at least 1 - UTILITY_DELTA: ln(k / delta_0) (Chaudhuri and Vinterbo 2013, Theorem 3; Dwork and
    Roth 2014, Theorem 3.11), or for Laplace noise the exact worst case, the root of
    1 - P_1(x) = delta_0 (docs/python/guide/stability-derivations.md)."""
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
    """The x at which the distance from uniform reaches NEAR_UNIFORM_TV (it grows with x)."""
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
        Thm 4's stability constants (beta1 / n = 2 / gamma_min).
    sensitivity : float
        beta = max(beta1 / n, beta2 / m): how much one record can move a validation score.
    score_gap : float
        The score difference the numbers below assume.
    noise_scale : float
        2 beta / eps_select, the scale of the selection's noise.
    best_probability : float
        The probability of choosing a candidate whose score beats all others by
        ``score_gap`` (uniform: 1 / k).
    distance_from_uniform : float
        The largest total variation distance between the selection and a uniform choice over
        scores within ``score_gap`` of each other.
    utility_slack : float
        With probability at least 0.95, whatever the scores, the selected candidate's
        validation score is within this of the best.
    gamma_min_needed, eps_select_needed : float or None
        The smallest gamma_min, or eps_select, at which the selection stops being near uniform
        (the other values unchanged); None when none suffices.
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
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 1, 3 and 4.
    Dwork C, Roth A (2014), The Algorithmic Foundations of Differential Privacy, Theorem 3.11.

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
        """The diagnosis in words: the verdict, the numbers behind it and, when it is near uniform,
        what would help.

        Parameters
        ----------
        language : {'python', 'r'}, default 'python'
            Whose spelling of the argument names.

        Returns
        -------
        str
            Also what ``str()`` and ``print()`` show.

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
    """The diagnosis, with ``betas(gamma_min) -> (beta1, beta2)``."""
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

    The selection's noise is scaled to max(2 / gamma_min, beta2 / m): a small gamma makes the
    choice a coin toss, whatever n. It is "near uniform" when, even for scores ``score_gap``
    apart, its total variation distance from a uniform choice is below 0.1; then data
    splitting (:func:`dppack.tune_classification_model`) is the better tuner
    (:doc:`/guide/stability-derivations`).

    Parameters
    ----------
    gammas : array_like
        The candidates' gamma (DPpack's regularisation constant), > 0.
    n, m : int
        Training and validation set sizes (m = floor(N f), n = N - m for N rows and
        ``validation_fraction`` f).
    d : int
        The number of coefficients (columns of X, plus 1 with ``add_bias``).
    eps, eps_select : float
        The candidates' training budget (it enters beta2 only) and the selection budget.
    delta : float, default 0.01
        Overall delta of the selection.
    score : {'ramp', 'hinge', 'logistic'}, default 'ramp'
    selector : {'exponential_noise', 'gumbel', 'laplace'}, default 'exponential_noise'
    score_gap : float, optional
        The difference between validation scores to assess; default min(beta2, 1), the
        whole range of the ramp score (a realistic difference is a few hundredths).

    Returns
    -------
    StabilitySelectionDiagnosis
        The numbers, the verdict and the smallest gamma_min and eps_select that would make
        the selection informative; ``print()`` gives them in words.

    Raises
    ------
    ValueError
        For an argument out of range or an unknown option.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Theorems 1, 3 and 4.

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
        lambda gamma: linear_betas(gamma, n, m, d, k, noise_eps, delta, score),
        float(values.min()), n, m, k, eps_select, selector, score_gap)


def _warn_near_uniform(models, eps_train, n, m, d, eps_select, delta, score, selector):
    """A NearUniformSelectionWarning, from public values, when the selection is near uniform."""
    k = len(models)
    noise_eps = training_noise_eps(models, eps_train, n)
    diagnosis = _diagnosis(
        lambda gamma: linear_betas(gamma, n, m, d, k, noise_eps, delta, score),
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
            NearUniformSelectionWarning, stacklevel=5, gap=diagnosis.score_gap,
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

    Better than data splitting (:func:`dppack.tune_classification_model`) when the smallest
    gamma and n are large (:func:`stability_selection_diagnosis`).

    Parameters
    ----------
    DPmodels : sequence of LogisticRegressionDP or linear svmDP models
        The candidates: same finite ``eps``, regularizer 'l2'. The selected one is fitted in
        place with fresh noise.
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
        Overall delta of the selection.
    validation_fraction : float, default 0.2
        Share of the rows held out for validation, unless ``X_validation`` and
        ``y_validation`` are given.
    X_validation, y_validation : array_like, optional
        A separate validation set (disjoint from X).
    score : {'ramp', 'hinge', 'logistic'}, default 'ramp'
        The validation loss; ramp is bounded, hence the smallest beta2.
    selector : {'exponential_noise', 'gumbel', 'laplace'}
    noise : {'shared', 'independent'}
        One standardised noise vector for all candidates' fits, or one per candidate.
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.approx(eps + eps_select, delta)`` once, before any data is
        touched; None: the session's accountant, if any.

    Returns
    -------
    model
        The selected model, fitted on the training set with fresh noise; the call is
        (eps + eps_select, delta)-DP (Thm 2, Thm 4), held in its ``privacy_``.

    Warns
    -----
    NearUniformSelectionWarning
        Before any data value is read, when the selection is near uniform.

    Raises
    ------
    ValueError
        For candidates, budgets or options not as above, or an overspend (before the data
        are read); for bad data or bounds (before any noise is drawn).

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 2, Theorems 2 and 4.

    Examples
    --------
    Three linear SVMs; each trains on 80% of the rows at eps = 1, the selection spends 1 more:

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
    _backends.refuse_dask("tune_classification_model_stable", X, y)
    arguments = dict(DPmodels=DPmodels, upper_bounds=upper_bounds, lower_bounds=lower_bounds,
                     eps_select=eps_select, add_bias=add_bias, delta=delta,
                     validation_fraction=validation_fraction, score=score, selector=selector,
                     noise=noise)
    return _plans.run(TUNE_CLASSIFICATION_STABLE, (X, y, X_validation, y_validation),
                      arguments, random_state, accountant)


class _TuneClassificationStable(_plans.Plan):
    """tune_classification_model_stable: the checks and the near-uniform warning before any
    value is read, the data's checks, then one draw of Algorithm 2."""

    name = "tune_classification_model_stable"

    def loss(self, a):
        models = check_stable_models(check_models(a["DPmodels"]))
        return tuning_loss(models, a["eps_select"], a["delta"])

    def prepare(self, data, a):
        X, y, X_validation, y_validation = data
        upper_bounds, lower_bounds, score = a["upper_bounds"], a["lower_bounds"], a["score"]
        selector, noise = a["selector"], a["noise"]
        models = check_models(a["DPmodels"])
        eps_train = check_stable_models(models)
        eps_select = _checks.check_finite_budget(a["eps_select"], "eps.select")
        add_bias = _checks.check_flag(a["add_bias"], "add.bias")
        delta = _checks.check_number(a["delta"], "delta", 0, 1, closed="neither", strict=True)
        _checks.check_choice(score, "score", SCORES)
        _checks.check_choice(selector, "selector", SELECTORS)
        _checks.check_choice(noise, "noise", NOISE_MODES)
        plan = split_plan(X, X_validation, y_validation, a["validation_fraction"])
        shape = _frames.shape(X)
        if plan[0] >= 1 and plan[1] >= 1 and len(shape) == 2:  # else the data checks refuse
            # the near-uniform warning: from public values (sizes, gammas, budgets), before
            # any value is read
            _warn_near_uniform(models, eps_train, plan[0], plan[1], shape[1] + int(add_bias),
                               eps_select, delta, score, selector)
        T, V = data_parts(X, y, X_validation, y_validation, plan)
        # All data checks before any noise: the fits' own checks on T, and V's.
        prepare_design(T[0], T[1], upper_bounds, lower_bounds, add_bias, labels="binary")
        trainer = LinearClassifierTrainer(upper_bounds, lower_bounds, add_bias, score)
        trainer.validation_design(V)
        beta1, beta2 = trainer.stability_constants(T, V, models, eps_train, delta)

        def draw(rng, privacy):
            index = validate(models, trainer, T, V, eps_train, eps_select, beta1, beta2,
                             selector, noise, rng)[0]
            chosen = models[index]
            # Algorithm 2 step 2: a fresh R (the model's own draw has the law of R / rate);
            # charged by the runner
            chosen.fit(T[0], T[1], upper_bounds, lower_bounds, add_bias, random_state=rng,
                       accountant=accounting.UNCHARGED)
            chosen.privacy_ = privacy
            return chosen
        return [(None, draw)]


TUNE_CLASSIFICATION_STABLE = _TuneClassificationStable()
