"""Validate and its retraining (Chaudhuri and Vinterbo 2013, Algorithms 1 and 2): the noisy
selection of the best candidate and the generic procedure over a :class:`StableTrainer`."""

import numpy as np

from ... import _backends, _checks, _messages, _plans, _random, accounting
from ..._repr import model_repr
from ...mechanisms import ExponentialMechanism
from ._constants import NOISE_MODES, SELECTORS


def _scores_array(scores):
    q = _checks.as_numeric_array(scores, "scores must be numeric.").ravel()
    if q.size == 0:
        raise _messages.value_error("scores must contain at least one value.")
    if not np.all(np.isfinite(q)):
        raise _messages.value_error("scores must be finite.")
    return q


def stable_select(scores, beta, eps_select, selector="exponential_noise",
                  random_state=None, accountant=None):
    """The private argmax of Validate: eps_select-DP when the scores have sensitivity ``beta``.

    Parameters
    ----------
    scores : array_like
        The k validation scores q_i (larger is better).
    beta : float
        max(beta1 / n, beta2 / m), > 0.
    eps_select : float
        The selection budget alpha_2.
    selector : {'exponential_noise', 'gumbel', 'laplace'}
        The noisy maximum with the paper's exponential noise, the exponential mechanism, or
        the noisy maximum with Laplace noise, all of scale 2 beta / eps_select and drawn
        exactly (:doc:`/guide/stability-derivations`).
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps_select)``; None: the session's accountant, if any.

    Returns
    -------
    int
        The 0-based index of the selected candidate.

    Raises
    ------
    ValueError
        For empty or non-finite scores, a bad budget, beta or selector, or an overspend.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 1 and Theorem 1.
    McSherry F, Talwar K (2007), FOCS, Theorem 6.

    Examples
    --------
    Three validation scores whose sensitivity is beta = 0.01; the second is best:

    >>> from dppack import stable_select
    >>> stable_select([-0.30, -0.25, -0.40], beta=0.01, eps_select=1.0, random_state=1)
    1
    """
    _backends.refuse_dask("stable_select", scores)
    arguments = {"beta": beta, "eps_select": eps_select, "selector": selector}
    return _plans.run(STABLE_SELECT, scores, arguments, random_state, accountant)


class _StableSelect(_plans.Plan):
    """stable_select: the scores' and settings' checks, then one selection."""

    name = "stable_select"

    def loss(self, a):
        return accounting.PrivacyLoss.pure(a["eps_select"])

    def prepare(self, scores, a):
        q = _scores_array(scores)
        beta = _checks.check_finite_budget(a["beta"], "beta")
        eps_select = _checks.check_finite_budget(a["eps_select"], "eps.select")
        selector = a["selector"]
        _checks.check_choice(selector, "selector", SELECTORS)
        return [(None, lambda rng, loss: _select(q, beta, eps_select, selector, rng))]


STABLE_SELECT = _StableSelect()


def _select(q, beta, eps_select, selector, rng):
    """The selected index for ``selector``: the scores ``q``, their sensitivity ``beta``."""
    if selector == "gumbel":
        # Chaudhuri and Vinterbo 2013, Section 2 ("an exponential mechanism may also be used"):
        # P(i) proportional to exp(alpha2 q_i / (2 beta)), exact (_random.exponential_mechanism)
        return int(ExponentialMechanism(q, eps_select, beta, random_state=rng,
                                        accountant=accounting.UNCHARGED))
    return _noisy_max(q, beta, eps_select, rng, one_sided=selector == "exponential_noise")


def _noisy_max(q, beta, eps_select, rng, one_sided):
    """Report-noisy-max on a power-of-two grid with exact integer noise, eps_select-DP for scores
    of sensitivity ``beta``: one-sided geometric noise (the paper's exponential noise) or discrete
    Laplace noise. Derivation: :doc:`/guide/stability-derivations`."""
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


class StableTrainer:
    """Interface of a private training procedure T = (G, F) with a validation score.

    Subclasses implement:

    * ``n_records(data)``: the number of individuals in T or V;
    * ``draw_noise(T, thetas, rng)``: R ~ G, usable by F for every theta in ``thetas``;
    * ``fit(T, theta, eps, noise)``: the deterministic F(T, theta, eps, R), a model;
    * ``score(model, V)``: the validation score q (larger is better);
    * ``stability_constants(T, V, thetas, eps, delta)``: (beta1, beta2) of Definition 2,
      for the overall delta.

    ``release(T, theta, eps, rng)``, the final model with fresh noise, may be overridden.

    Attributes
    ----------
    None
        The interface holds no state.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Definitions 1-2.

    Examples
    --------
    A toy trainer: theta shrinks a noisy mean of data in [0, 1] towards 0. One training
    record moves the model by at most 1/n and the score is 2-Lipschitz in it (beta1 = 2); one
    validation record moves the score by at most 1/m (beta2 = 1).

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


def check_settings(thetas, eps_train, eps_select, delta, selector, noise):
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


def validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2, selector,
             noise, rng):
    """Algorithm 1 on checked settings: (index, scores, beta); only the index is released."""
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


def tuning_loss(eps_train, eps_select, delta):
    """Validate's (eps_select, delta) composed with the retrained model's eps_train (Thm 2)."""
    return (accounting.PrivacyLoss.pure(_checks.check_finite_budget(eps_train, "eps.train"))
            + _validation_loss(eps_select, delta))


class _Validate(_plans.Plan):
    """validate_stable (``retrain`` False) and tune_stable: Validate's checks, then one draw of
    Algorithm 1, and for tune_stable the selected candidate retrained with fresh noise."""

    def __init__(self, name, retrain):
        self.name, self.retrain = name, retrain

    def loss(self, a):
        if self.retrain:
            return tuning_loss(a["eps_train"], a["eps_select"], a["delta"])
        return _validation_loss(a["eps_select"], a["delta"])

    def prepare(self, data, a):
        T, V = data
        trainer = a["trainer"]
        settings = check_settings(a["thetas"], a["eps_train"], a["eps_select"], a["delta"],
                                  a["selector"], a["noise"])
        thetas, eps_train, eps_select, delta, selector, noise = settings
        # the warning's frames: _betas, prepare, run, the public function, the caller
        beta1, beta2 = _betas(trainer, T, V, thetas, eps_train, delta, a["beta1"], a["beta2"],
                              stacklevel=5)

        def draw(rng, loss):
            index = validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2,
                             selector, noise, rng)[0]
            if not self.retrain:
                return index
            return index, trainer.release(T, thetas[index], eps_train, rng)
        return [(None, draw)]


VALIDATE_STABLE = _Validate("validate_stable", retrain=False)
TUNE_STABLE = _Validate("tune_stable", retrain=True)


def _validate_arguments(thetas, trainer, eps_train, eps_select, delta, beta1, beta2, selector,
                        noise):
    return dict(thetas=thetas, trainer=trainer, eps_train=eps_train, eps_select=eps_select,
                delta=delta, beta1=beta1, beta2=beta2, selector=selector, noise=noise)


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
        Disjoint training and validation data.
    eps_train, eps_select : float
        alpha_1 (each candidate's training budget) and alpha_2 (the selection's).
    delta : float
    beta1, beta2 : float, optional
        Override the trainer's stability constants (privacy then rests on the caller's proof).
    selector : {'exponential_noise', 'gumbel', 'laplace'}
        See :func:`stable_select`.
    noise : {'shared', 'independent'}
        One noise draw for all candidates, or one per candidate.
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged ``PrivacyLoss.approx(eps_select, delta)``; None: the session's accountant.

    Returns
    -------
    int
        0-based index into ``thetas``; (eps_select, delta)-DP (Thm 1).

    Raises
    ------
    ValueError
        For no candidates, a bad budget, delta, selector or noise mode, only one of beta1
        and beta2, or an overspend.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 1 and Theorem 1.

    Examples
    --------
    Three bin widths for a histogram of data in [0, 1]:

    >>> from dppack import validate_stable
    >>> import numpy as np
    >>> from dppack.model_selection.stability import HistogramTrainer
    >>> x = (np.sin(np.arange(500)) + 1) / 2  # fixed example data in [0, 1]
    >>> validate_stable([0.5, 0.25, 0.1], HistogramTrainer(), x[:400], x[400:],
    ...                 eps_train=1.0, eps_select=1.0, random_state=1)
    2
    """
    _backends.refuse_dask("validate_stable", T, V)
    arguments = _validate_arguments(thetas, trainer, eps_train, eps_select, delta, beta1, beta2,
                                    selector, noise)
    return _plans.run(VALIDATE_STABLE, (T, V), arguments, random_state, accountant)


def tune_stable(thetas, trainer, T, V, eps_train, eps_select, delta=0.01, beta1=None,
                beta2=None, selector="exponential_noise", noise="shared", random_state=None,
                accountant=None):
    """Algorithm 2: Validate, then retrain the selected candidate on T with fresh noise.

    Parameters
    ----------
    thetas, trainer, T, V, eps_train, eps_select, delta, beta1, beta2, selector, noise
        As :func:`validate_stable`.
    random_state, accountant
        As :func:`validate_stable`; the accountant is charged
        ``PrivacyLoss.approx(eps_train + eps_select, delta)`` once (label ``"tune_stable"``).

    Returns
    -------
    (int, model)
        The selected index and the candidate refitted with fresh noise; together
        (eps_train + eps_select, delta)-DP (Thm 2) when the trainer is eps_train-DP.

    Raises
    ------
    ValueError
        As :func:`validate_stable`.

    References
    ----------
    Chaudhuri K, Vinterbo S A (2013), NeurIPS, Algorithm 2 and Theorem 2.

    Examples
    --------
    >>> from dppack import tune_stable
    >>> import numpy as np
    >>> from dppack.model_selection.stability import HistogramTrainer
    >>> x = (np.sin(np.arange(500)) + 1) / 2  # fixed example data in [0, 1]
    >>> index, counts = tune_stable([0.5, 0.25, 0.1], HistogramTrainer(), x[:400], x[400:],
    ...                             eps_train=1.0, eps_select=1.0, random_state=1)
    >>> index, counts.shape  # 1/h = 10 bins
    (2, (10,))
    """
    _backends.refuse_dask("tune_stable", T, V)
    arguments = _validate_arguments(thetas, trainer, eps_train, eps_select, delta, beta1, beta2,
                                    selector, noise)
    return _plans.run(TUNE_STABLE, (T, V), arguments, random_state, accountant)

