"""A user function of an ERM model that returns the wrong number of values is refused after
the fit is charged and before any noise is drawn.

The frameworks evaluate the user's functions once at the solver's start (theta = 0, no noise;
``_check_outputs`` of :mod:`dppack.erm.cms` and :mod:`dppack.erm.kst`) after the data checks
and the charge: a loss, gradient, map, regularizer or constraint Jacobian of the wrong length
fails there with a message that names it, the generator untouched and the fit charged (the
functions read the private data: a refusal that depends on it must not be free). Every test is
deterministic (fixed data, fixed seeds; no statistical assertion).
"""

import numpy as np
import pytest

import dppack
from dppack.erm.weighting import fit_weighted

N = 40
T = np.arange(N)
X_KST = 0.5 * np.column_stack([np.sin(T), np.cos(1.7 * T)])
Y_KST = np.clip(X_KST @ [1.0, -0.5] + 0.1 * np.sin(3.1 * T), -1, 1)
KST_BOUNDS = ([0.5, 0.5, 1.0], [-0.5, -0.5, -1.0])
X_CMS = 0.7 * np.column_stack([np.sin(T), np.cos(1.7 * T)])
Y_CMS = (X_CMS[:, 0] + X_CMS[:, 1] > 0).astype(float)
CMS_BOUNDS = ([0.7, 0.7], [-0.7, -0.7])


def ball(jacobian=None):
    return {"constraints": lambda c: np.dot(c, c) - 1.0,
            "jacobian": jacobian or (lambda c: 2.0 * np.asarray(c))}


def kst(loss=dppack.loss_squared_error, loss_gr=dppack.loss_gr_squared_error,
        mapXy_gr=dppack.mapXy_gr_linear, domain=None, delta=0.0, regularizer_gr=None,
        regularizer="l2"):
    return dppack.EmpiricalRiskMinimizationDP_KST(
        dppack.mapXy_linear, loss, regularizer, eps=1.0, delta=delta, domain=domain or ball(),
        zeta=1.25, lambda_=0.5, gamma=1.0, mapXy_gr=mapXy_gr, loss_gr=loss_gr,
        regularizer_gr=regularizer_gr)


def cms(method, loss=dppack.loss_cross_entropy, loss_gr=dppack.loss_gr_cross_entropy,
        mapXy_gr=dppack.mapXy_gr_sigmoid, regularizer="l2", regularizer_gr=None):
    return dppack.EmpiricalRiskMinimizationDP_CMS(
        dppack.mapXy_sigmoid, loss, regularizer, eps=1.0, gamma=1.0, perturbation_method=method,
        c=0.25, mapXy_gr=mapXy_gr, loss_gr=loss_gr, regularizer_gr=regularizer_gr)


def summed(function):
    """``function`` summed over the rows: one value where one per row is expected."""
    return lambda y_hat, y: float(np.sum(function(y_hat, y)))


def refused_first(fit, match):
    """``fit(rng, accountant)`` raises ValueError matching ``match`` with the generator's state
    unchanged and the fit charged: the check runs the user's functions on the private data,
    so it comes after the charge (a refusal that depends on the data is paid for)."""
    rng = np.random.default_rng(11)
    state = rng.bit_generator.state
    accountant = dppack.BudgetAccountant(10.0, 1e-3)
    with pytest.raises(ValueError, match=match):
        fit(rng, accountant)
    assert rng.bit_generator.state == state, "a random number was drawn before the error"
    assert len(accountant.ledger) == 1, "the refused fit was not charged"
    label, loss = accountant.ledger[0]
    assert label.endswith(".fit") and loss.eps == 1.0
    return accountant


def test_weighted_kst_loss_with_one_value_is_refused_before_the_draw():
    # The closing note's defect: with sample weights each row's loss is multiplied by its
    # weight, so a loss that returns the sum is refused, and now before any draw.
    def fit(rng, accountant):
        fit_weighted(kst(loss=summed(dppack.loss_squared_error)), X_KST, Y_KST, *KST_BOUNDS,
                     weights=1.0 + T % 2, weights_upper_bound=2.0, random_state=rng,
                     accountant=accountant)

    refused_first(fit, r"^loss returned 1 values where 40 \(one per row, each multiplied by "
                       r"its weight\) were expected\.$")


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_kst_gradient_of_wrong_length_is_refused_before_the_draw(delta):
    # Without weights too (before: a numpy matmul error after the draw and the charge), for
    # both noise laws.
    def fit(rng, accountant):
        kst(loss_gr=summed(dppack.loss_gr_squared_error), delta=delta).fit(
            X_KST, Y_KST, *KST_BOUNDS, random_state=rng, accountant=accountant)

    refused_first(fit, r"^loss_gr returned 1 values where 40 \(one per row\) were expected\.$")


def test_kst_transposed_map_gradient_is_refused():
    # An n x p mapXy_gr is refused by its shape, never silently reshaped to p x n.
    def fit(rng, accountant):
        kst(mapXy_gr=lambda X, coeff: np.asarray(X)).fit(
            X_KST, Y_KST, *KST_BOUNDS, random_state=rng, accountant=accountant)

    refused_first(fit, r"mapXy_gr returned an array of shape \(40, 2\) where a 2 x 40 matrix")


def test_kst_regularizer_gradient_and_domain_jacobian_lengths():
    def regularizer_gr(rng, accountant):
        kst(regularizer=lambda c: float(c @ c) / 2, regularizer_gr=lambda c: 0.0).fit(
            X_KST, Y_KST, *KST_BOUNDS, random_state=rng, accountant=accountant)

    def jacobian(rng, accountant):
        kst(domain=ball(lambda c: np.zeros(3))).fit(
            X_KST, Y_KST, *KST_BOUNDS, random_state=rng, accountant=accountant)

    refused_first(regularizer_gr, r"^regularizer_gr returned 1 values where 2 \(one per "
                                  r"coefficient\)")
    refused_first(jacobian, r"^domain\$jacobian returned 3 values where 2 \(the p derivatives")


def test_kst_dppack_scalar_loss_still_fits_without_weights():
    # DPpack's computation, sum(loss) / n whatever the loss returns, is kept without weights:
    # the check looks only at what must have one value per row.
    per_row = kst().fit(X_KST, Y_KST, *KST_BOUNDS, random_state=3)
    scalar = kst(loss=summed(dppack.loss_squared_error)).fit(X_KST, Y_KST, *KST_BOUNDS,
                                                             random_state=3)
    assert np.allclose(per_row.coeff, scalar.coeff, rtol=0, atol=1e-6)


@pytest.mark.parametrize("method", ["objective", "output"])
@pytest.mark.parametrize("which", ["loss", "loss.gr"])
def test_cms_user_function_of_wrong_length_is_refused_before_the_draw(method, which):
    # Objective perturbation drew b before the solver; output perturbation charged the
    # accountant before it. Both now refuse first.
    model = (cms(method, loss=summed(dppack.loss_cross_entropy)) if which == "loss"
             else cms(method, loss_gr=summed(dppack.loss_gr_cross_entropy)))

    def fit(rng, accountant):
        model.fit(X_CMS, Y_CMS, *CMS_BOUNDS, random_state=rng, accountant=accountant)

    name = which.replace(".", "_")
    refused_first(fit, rf"^{name} returned 1 values where 40 \(one per row\) were expected\.$")


def test_weighted_cms_and_svm_with_user_loss_are_refused_before_the_draw():
    def weighted(rng, accountant):
        dppack.WeightedERMDP_CMS(
            dppack.mapXy_linear, lambda y_hat, y, w: float(np.sum(w)), "l2", eps=1.0,
            gamma=1.0, perturbation_method="output", mapXy_gr=dppack.mapXy_gr_linear,
            loss_gr=dppack.generate_loss_gr_huber(0.5)).fit(
                X_CMS, 2 * Y_CMS - 1, *CMS_BOUNDS, weights=np.ones(N), weights_upper_bound=1.0,
                random_state=rng, accountant=accountant)

    def svm(rng, accountant):
        model = dppack.svmDP("l2", 1.0, 1.0, "output")
        model.loss = lambda y_hat, y, w=None: 0.0  # a user's loss in place of the fused Huber
        model.fit(X_CMS, Y_CMS, *CMS_BOUNDS, random_state=rng, accountant=accountant)

    refused_first(weighted, r"^loss returned 1 values where 40 \(one per row\)")
    refused_first(svm, r"^loss returned 1 values where 40 \(one per row\)")


def test_cms_transposed_map_gradient_and_regularizer_gradient_are_refused():
    def transposed(rng, accountant):
        cms("objective", mapXy_gr=lambda X, coeff: np.asarray(X)).fit(
            X_CMS, Y_CMS, *CMS_BOUNDS, random_state=rng, accountant=accountant)

    def regularizer_gr(rng, accountant):
        dppack.LogisticRegressionDP(lambda c: float(c @ c) / 2, 1.0, 1.0,
                                    regularizer_gr=lambda c: np.zeros(5)).fit(
            X_CMS, Y_CMS, *CMS_BOUNDS, random_state=rng, accountant=accountant)

    refused_first(transposed, r"mapXy_gr returned an array of shape \(40, 2\) where a 2 x 40")
    refused_first(regularizer_gr, r"^regularizer_gr returned 5 values where 2 \(one per "
                                  r"coefficient\)")


def test_valid_fits_draw_what_they_drew_before():
    # The check draws nothing: a valid fit's noise is the first draw of its generator
    # (objective perturbation: b = l2_laplace(d, rate) from a fresh generator of the seed).
    model = kst().fit(X_KST, Y_KST, *KST_BOUNDS, random_state=5)
    # at eps_1 = eps - eps_2 (approximate minima perturbation, dppack.erm._approximate)
    Delta, rate = dppack.erm._kst_framework._calibration(1.0 - model.release_eps_, 0.0, 1.25, 0.5)
    expected = dppack._random.l2_laplace(2, rate, dppack._random.as_generator(5))
    assert np.array_equal(model._noise, expected)
    assert model.Delta_ == Delta


def test_linear_regression_checks_its_regularizer_gradient_without_a_second_gram(monkeypatch):
    # LinearRegressionDP's built-in map and loss use X'X (closed form): the check before the
    # draw evaluates only a user's regularizer gradient, so X'X is computed once per fit.
    # (private fits sum the grid records' statistics exactly: GramStatistics.of_grid)
    calls = []
    for name in ("of", "of_grid"):
        original = getattr(dppack.erm.kst.GramStatistics, name).__func__

        def counting(cls, *args, _original=original, **kwargs):
            calls.append(1)
            return _original(cls, *args, **kwargs)

        monkeypatch.setattr(dppack.erm.kst.GramStatistics, name, classmethod(counting))
    dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X_KST, Y_KST, *KST_BOUNDS,
                                                       add_bias=True, random_state=1)
    assert len(calls) == 1

    def fit(rng, accountant):
        dppack.LinearRegressionDP(lambda c: float(c @ c) / 2, 1.0, 0.0, 1.0,
                                  regularizer_gr=lambda c: 0.0).fit(
            X_KST, Y_KST, *KST_BOUNDS, add_bias=True, random_state=rng, accountant=accountant)

    refused_first(fit, r"^regularizer_gr returned 1 values where 3 \(one per coefficient\)")


def test_a_refusal_that_depends_on_the_data_is_charged():
    # The check runs the user's functions on the private data: a function that fails on one
    # dataset and not on its neighbour (here: on more than 20 positive labels) must not make
    # the refusal free, or the ledger would reveal which dataset it was. Both fits are
    # charged the same; the refused one draws nothing.
    def loss(y_hat, y):
        if np.sum(y) > 20:
            raise RuntimeError("more than 20 positives")
        return dppack.loss_cross_entropy(y_hat, y)

    neighbour = Y_CMS.copy()
    neighbour[np.argmin(Y_CMS)] = 1.0
    assert Y_CMS.sum() == 20 and neighbour.sum() == 21
    ledgers = []
    for labels in (Y_CMS, neighbour):
        rng = np.random.default_rng(11)
        state = rng.bit_generator.state
        accountant = dppack.BudgetAccountant(10.0, 1e-3)
        try:
            cms("output", loss=loss).fit(X_CMS, labels, *CMS_BOUNDS, random_state=rng,
                                         accountant=accountant)
        except RuntimeError:
            assert rng.bit_generator.state == state, "drawn before the refusal"
        ledgers.append(accountant.ledger)
    assert ledgers[0] == ledgers[1] == [("EmpiricalRiskMinimizationDP_CMS.fit",
                                         dppack.PrivacyLoss.pure(1.0))]


def test_kst_refusal_is_charged_after_the_data_checks():
    # KST: the same order (charged, nothing drawn), through refused_first's ledger check
    def fit(rng, accountant):
        kst(loss_gr=lambda y_hat, y: 0.0).fit(X_KST, Y_KST, *KST_BOUNDS, random_state=rng,
                                              accountant=accountant)

    accountant = refused_first(fit, r"^loss_gr returned 1 values")
    assert accountant.ledger[0][0] == "EmpiricalRiskMinimizationDP_KST.fit"


def test_cms_subclass_with_its_own_solver_is_not_checked():
    # _optimize_coeff is a documented hook: a subclass that minimises its own objective (here
    # with a loss that returns the total, not one value per row) is not held to the
    # library's J, as the KST framework already skips its check for such subclasses.
    from scipy.optimize import minimize

    class OwnSolver(dppack.EmpiricalRiskMinimizationDP_CMS):
        def _optimize_coeff(self, X, y, Delta, b, weights=None):
            n = len(y)

            def objective(theta):
                return (self.loss(self.mapXy(X, theta), y) / n + self.gamma / n
                        * self.regularizer(theta) + b @ theta / n + Delta / 2 * theta @ theta)

            return minimize(objective, np.zeros(X.shape[1])).x

    model = OwnSolver(dppack.mapXy_sigmoid, summed(dppack.loss_cross_entropy), "l2", eps=1.0,
                      gamma=1.0, perturbation_method="objective", c=0.25)
    model.fit(X_CMS, Y_CMS, *CMS_BOUNDS, random_state=1)
    assert model.coeff.shape == (2,) and np.all(np.isfinite(model.coeff))


@pytest.mark.parametrize("make", [
    lambda: dppack.LogisticRegressionDP("l2", 1.0, 1.0),
    lambda: dppack.svmDP("l2", 1.0, 1.0, "output"),
    lambda: dppack.svmDP("l2", 1.0, 1.0, "objective", kernel="Gaussian", D=5)],
    ids=["logistic", "svm", "svm-gaussian"])
def test_built_in_losses_take_no_extra_data_pass(monkeypatch, make):
    # LogisticRegressionDP and svmDP fuse their built-in loss (one risk over the margins): the
    # check evaluates only the regularizer, never the generic J over the data (which would be
    # one more pass over X, costly on Dask data). Spy on the generic J and on the fused risk.
    generic, fused = [], []
    objective = dppack.erm.cms.EmpiricalRiskMinimizationDP_CMS._objective
    risk = dppack.erm._losses.MarginLoss.risk

    def spy_objective(self, *args, **kwargs):
        generic.append(1)
        return objective(self, *args, **kwargs)

    def spy_risk(self, *args, **kwargs):
        fused.append(1)
        return risk(self, *args, **kwargs)

    monkeypatch.setattr(dppack.erm.cms.EmpiricalRiskMinimizationDP_CMS, "_objective",
                        spy_objective)
    monkeypatch.setattr(dppack.erm._losses.MarginLoss, "risk", spy_risk)
    make().fit(X_CMS, Y_CMS, *CMS_BOUNDS, random_state=1)
    assert generic == [] and fused == [1]
