"""Instance A: regularised linear classifiers (Chaudhuri and Vinterbo 2013, Section 4.1)."""

import copy

import numpy as np

from ... import _checks, _messages, accounting
from ...erm import _losses as losses
from ...erm._approximate import split_budget
from ...erm.blocks import regularizer_l2
from ...erm._cms import (
    StandardNoise,
    check_parameters,
    fit_with_noise,
    objective_perturbation_parameters,
)
from ...erm._design import as_labels, n_rows, prepare_design, split_rows, take_rows
from ...erm.models import LogisticRegressionDP, svmDP
from ...erm._solvers import OPTIMALITY_SLACK
from ._constants import stability_constants_linear
from ._procedure import StableTrainer


def _margins_loss(margins, score):
    """Per-row loss g of the margins y w'x (ramp, hinge, logistic; the logistic loss is
    :func:`dppack.erm._losses.logistic`'s)."""
    if score == "ramp":
        return np.clip(1.0 - margins, 0.0, 1.0)
    if score == "hinge":
        return np.maximum(0.0, 1.0 - margins)
    return losses.logistic().value(margins)


class LinearClassifierTrainer(StableTrainer):
    """F for DPpack's CMS classifiers: theta is one of the given (unfitted) models, fitted as a
    copy at ``eps`` on T with the shared standard draw; T and V are (X, y) pairs, X clipped to
    the bounds and scaled into the unit ball (Thm 4's ||x|| <= 1); q = minus V's mean loss."""

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

    def validation_design(self, V):
        key = id(V)
        if key not in self._validation:
            design = prepare_design(V[0], V[1], self.upper_bounds, self.lower_bounds,
                                    self.add_bias, labels="signed")
            self._validation[key] = (V, design["X"], design["y"])
        return self._validation[key][1:]

    def score(self, model, V):
        X, y = self.validation_design(V)
        return -float(np.mean(_margins_loss(y * (X @ model.coeff), self.score_name)))

    def stability_constants(self, T, V, thetas, eps, delta):
        n = self.n_records(T)
        gamma_min = min(model.gamma for model in thetas)
        return linear_betas(gamma_min, n, self.n_records(V), self.dimension(T), len(thetas),
                            training_noise_eps(thetas, eps, n), delta, self.score_name)


def training_noise_eps(models, eps, n):
    """The budget the candidates' training noise is scaled with (the smallest)."""
    # Thm 4: the norm bound of beta2 uses the budget the noise is scaled with (eps' for
    # objective perturbation, at least eps_1/2 with eps_1 the objective's share of eps
    # (dppack.erm._approximate.split_budget); eps / (1 + tau) for output perturbation,
    # whose rate covers the optimality slack tau); only the unbounded scores need it.
    return min(
        objective_perturbation_parameters(split_budget(eps)[0], model.gamma, model.c, n)[0]
        if model.perturbation_method == "objective" else eps / (1.0 + OPTIMALITY_SLACK)
        for model in models)


def linear_betas(gamma_min, n, m, d, k, noise_eps, delta, score):
    """Thm 4's (beta1, beta2) for candidates whose smallest DPpack gamma is ``gamma_min``."""
    # Thm 4 assumes exact minimisers; the fits are minimisers certified to
    # ||grad|| <= tau / n (erm.cms), within tau / (n lambda) of the exact ones, so lambda /
    # (1 + tau) in its place bounds both ||theta(T) - theta(T')|| and ||theta||.
    return stability_constants_linear(gamma_min / n / (1.0 + OPTIMALITY_SLACK), n, m, d, k,
                                      noise_eps, delta, score)


def check_stable_models(models):
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


def split_plan(X, X_validation, y_validation, validation_fraction):
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


def data_parts(X, y, X_validation, y_validation, plan):
    y = as_labels(y, n_rows(X))
    if plan[2] is not None:
        training, validation = plan[2]
        return (take_rows(X, training), y[training]), (take_rows(X, validation), y[validation])
    return (X, y), (X_validation, as_labels(y_validation, plan[1]))

