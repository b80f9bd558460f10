"""Privacy accounting of the models' ``fit`` (issue 12): every model charges a
BudgetAccountant once per fit and reports the loss in ``privacy_``.

What is checked, for every model (CMS, weighted CMS, KST frameworks, LogisticRegressionDP,
svmDP with both kernels, LinearRegressionDP with delta = 0 and > 0, the two analytic-Gaussian
ERM models):

* one ledger entry per fit, labelled ``"<class name>.fit"``, holding the model's loss (pure
  eps for CMS and KST with delta = 0, (eps, delta) otherwise), equal to ``privacy_``; the
  session's accountant (``with BudgetAccountant(...)``) is charged when none is given;
* an overspend is refused before the data are read (the data are an object that fails the
  test when read) and before any draw (the generator's state is unchanged), and nothing is
  recorded; so is a fit with eps = Inf when an accountant would be charged;
* invalid arguments give the model's own message and charge nothing; ``accountant=UNCHARGED``
  charges nothing, not even the session's accountant;
* charging changes nothing in the fit (same coefficients as without an accountant).

No test here is randomised: fits use fixed seeds and are compared for equality.
"""

import math

import numpy as np
import pytest

import dppack
from accounting_checks import Untouchable
from dppack import accounting

PLAIN_X = np.array([[0.9, -0.2], [-0.7, 0.4], [0.3, 0.8], [-0.5, -0.9], [0.6, 0.1],
                    [-0.2, 0.5], [0.8, -0.6], [-0.9, -0.3]])
LABELS = np.array([1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0])
RESPONSE = np.array([0.5, -0.3, 0.6, -0.8, 0.4, 0.0, 0.1, -0.7])
CLS_BOUNDS = ([1.0, 1.0], [-1.0, -1.0])
REG_BOUNDS = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])


def _ball(theta):
    return theta @ theta - theta.size


# name -> (make(eps), y, bounds, extra fit arguments, loss(eps))
MODELS = {
    "LogisticRegressionDP-objective": (
        lambda eps: dppack.LogisticRegressionDP("l2", eps, 1.0, "objective"),
        LABELS, CLS_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.pure(eps)),
    "LogisticRegressionDP-output": (
        lambda eps: dppack.LogisticRegressionDP("l2", eps, 1.0, "output"),
        LABELS, CLS_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.pure(eps)),
    "svmDP-linear": (
        lambda eps: dppack.svmDP("l2", eps, 1.0, "output"),
        LABELS, CLS_BOUNDS, {"weights": np.full(8, 0.5), "weights_upper_bound": 1.0},
        lambda eps: dppack.PrivacyLoss.pure(eps)),
    "svmDP-Gaussian": (
        lambda eps: dppack.svmDP("l2", eps, 1.0, "objective", kernel="Gaussian", D=4),
        LABELS, CLS_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.pure(eps)),
    "EmpiricalRiskMinimizationDP_CMS": (
        lambda eps: dppack.EmpiricalRiskMinimizationDP_CMS(
            dppack.mapXy_sigmoid, dppack.loss_cross_entropy, "l2", eps, 1.0, "output",
            mapXy_gr=dppack.mapXy_gr_sigmoid, loss_gr=dppack.loss_gr_cross_entropy),
        LABELS, ([0.7, 0.7], [-0.7, -0.7]), {}, lambda eps: dppack.PrivacyLoss.pure(eps)),
    "WeightedERMDP_CMS": (
        lambda eps: dppack.WeightedERMDP_CMS(
            dppack.mapXy_linear, dppack.generate_loss_huber(0.5), "l2", eps, 1.0, "output",
            mapXy_gr=dppack.mapXy_gr_linear, loss_gr=dppack.generate_loss_gr_huber(0.5)),
        2 * LABELS - 1, ([0.7, 0.7], [-0.7, -0.7]),
        {"weights": np.linspace(0.1, 2.0, 8), "weights_upper_bound": 2.0},
        lambda eps: dppack.PrivacyLoss.pure(eps)),
    "EmpiricalRiskMinimizationDP_KST": (
        lambda eps: dppack.EmpiricalRiskMinimizationDP_KST(
            dppack.mapXy_linear, dppack.loss_squared_error, "l2", eps, 0.0,
            {"constraints": _ball, "jacobian": lambda theta: 2 * theta}, 4.0, 2.0, 1.0,
            mapXy_gr=dppack.mapXy_gr_linear, loss_gr=dppack.loss_gr_squared_error),
        RESPONSE, REG_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.pure(eps)),
    "LinearRegressionDP-pure": (
        lambda eps: dppack.LinearRegressionDP("l2", eps, 0.0, 1.0),
        RESPONSE, REG_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.pure(eps)),
    "LinearRegressionDP-approx": (
        lambda eps: dppack.LinearRegressionDP("l2", eps, 1e-4, 1.0),
        RESPONSE, REG_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.approx(eps, 1e-4)),
    "OutputPerturbationAGM": (
        lambda eps: dppack.OutputPerturbationAGM("logistic", eps, 1e-5, 1.0, iterations=20),
        LABELS, CLS_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.approx(eps, 1e-5)),
    "GradientPerturbationAGM": (
        lambda eps: dppack.GradientPerturbationAGM("huber", eps, 1e-5, 1.0, iterations=50),
        LABELS, CLS_BOUNDS, {}, lambda eps: dppack.PrivacyLoss.approx(eps, 1e-5)),
}
NAMES = sorted(MODELS)



def _fit(name, eps=0.5, X=PLAIN_X, y=None, random_state=1, **kwargs):
    make, labels, bounds, extra, _ = MODELS[name]
    return make(eps).fit(X, labels if y is None else y, *bounds, random_state=random_state,
                         **extra, **kwargs)


def _label(name):
    return f"{type(MODELS[name][0](1.0)).__name__}.fit"


@pytest.mark.parametrize("name", NAMES)
def test_fit_charges_once_and_reports_privacy(name):
    loss = MODELS[name][4](0.5)
    budget = dppack.BudgetAccountant(2.0, 1e-3)
    model = _fit(name, accountant=budget)
    assert budget.ledger == [(_label(name), loss)]
    assert model.privacy_ == loss
    # the session's accountant when none is given
    with dppack.BudgetAccountant(2.0, 1e-3) as session:
        _fit(name)
        _fit(name)
    assert session.ledger == [(_label(name), loss)] * 2
    # charging changes nothing in the fit; without an accountant privacy_ is still reported
    plain = _fit(name)
    np.testing.assert_array_equal(plain.coeff, model.coeff)
    assert plain.privacy_ == loss


@pytest.mark.parametrize("name", NAMES)
def test_overspend_refused_before_the_data_and_the_generator(name):
    budget = dppack.BudgetAccountant(0.4, 1e-3)
    rng = np.random.default_rng(7)
    state = rng.bit_generator.state
    make, labels, bounds, extra, _ = MODELS[name]
    model = make(0.5)
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        model.fit(Untouchable(), Untouchable(), *bounds, random_state=rng,
                  accountant=budget, **extra)
    assert rng.bit_generator.state == state
    assert budget.ledger == [] and model.coeff is None and model.privacy_ is None
    # the same through the session's accountant
    with dppack.BudgetAccountant(0.4, 1e-3) as session:
        with pytest.raises(ValueError, match="Privacy budget exceeded"):
            make(0.5).fit(Untouchable(), Untouchable(), *bounds, random_state=rng, **extra)
    assert rng.bit_generator.state == state and session.ledger == []


@pytest.mark.parametrize("name", NAMES)
def test_infinite_eps_cannot_be_charged(name):
    budget = dppack.BudgetAccountant(2.0, 1e-3)
    make, labels, bounds, extra, _ = MODELS[name]
    with pytest.raises(ValueError, match="eps = Inf fits without noise"):
        make(math.inf).fit(Untouchable(), Untouchable(), *bounds, accountant=budget, **extra)
    assert budget.ledger == []
    model = _fit(name, eps=math.inf)  # no accountant: fitted, no guarantee to report
    assert model.coeff is not None and model.privacy_ is None


@pytest.mark.parametrize("name", NAMES)
def test_invalid_arguments_and_uncharged(name):
    budget = dppack.BudgetAccountant(2.0, 1e-3)
    with pytest.raises(ValueError, match="add.bias"):
        _fit(name, add_bias="yes", accountant=budget)
    X_nan = PLAIN_X.copy()
    X_nan[0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        _fit(name, X=X_nan, accountant=budget)
    assert budget.ledger == []
    with pytest.raises(TypeError, match="BudgetAccountant"):
        _fit(name, accountant=object())
    # an inner step of a release that charges the whole: not even the session is charged
    with dppack.BudgetAccountant(2.0, 1e-3) as session:
        model = _fit(name, accountant=accounting.UNCHARGED)
    assert session.ledger == [] and model.privacy_ == MODELS[name][4](0.5)


def test_the_callers_data_are_not_modified():
    X, y = PLAIN_X.copy(), LABELS.copy()
    budget = dppack.BudgetAccountant(10.0, 1e-3)
    for name in NAMES:
        _fit(name, X=X, accountant=budget)
        np.testing.assert_array_equal(X, PLAIN_X)
        np.testing.assert_array_equal(y, LABELS)
    assert len(budget.ledger) == len(NAMES)
