"""Release plans (``dppack._plans``, issue 27 item 1): one plan per release, one runner, and
``noiseIntervalDP`` asking the plan.

* Every release noiseIntervalDP names has a registered plan, and noiseIntervalDP accepts
  exactly the plan's declared report arguments (no introspection of a function's code).
* The runner charges the accountant before the plan reads anything (an overspend is refused
  with the data untouched), spends the plan's own loss, and draws the versions from one
  generator, bounded first.
* The draw and the report of a statistic use the same noise law: the law's scale and grid in
  the report are those the release draws with (checked on the draws' grid).

Deterministic (fixed seeds): no false failures.
"""

import math
import re

import numpy as np
import pytest

import dppack
from accounting_checks import Untouchable
from dppack import _plans, accounting, tuning
from dppack.confidence_intervals import _matrices, erm as _confint_erm
from dppack.model_selection.stability import (
    HistogramTrainer, _diagnosis, _histogram as _stable_histogram, _procedure)
from dppack.mechanisms._noise import LaplaceNoise, count_noise


def test_every_statistic_has_a_registered_plan():
    # noiseIntervalDP knows exactly the registered releases: no second list to keep.
    with pytest.raises(ValueError) as caught:
        dppack.noiseIntervalDP("sumDP", 1.0)
    listed = re.findall(r"'(\w+)'", str(caught.value))
    assert listed == list(_plans.REGISTRY) and len(listed) == 15
    for name in _plans.REGISTRY:
        plan = _plans.REGISTRY[name]
        assert plan.name == name
        assert set(plan.required) <= set(plan.report_arguments), name


def test_accepted_arguments_are_the_declared_ones(monkeypatch):
    plan = _plans.REGISTRY["meanDP"]
    monkeypatch.setattr(plan, "report_arguments", {**plan.report_arguments, "extra": None})
    with pytest.raises(ValueError, match="takes n, lower_bound, .*extra; not bogus"):
        dppack.noiseIntervalDP("meanDP", 1.0, n=10, lower_bound=0, upper_bound=1, bogus=1)


class _Spy(_plans.Plan):
    """A plan that records the order of the runner's steps."""

    name = "spy"

    def __init__(self, log):
        self.log = log

    def loss(self, arguments):
        self.log.append("loss")
        return accounting.PrivacyLoss.pure(arguments["eps"])

    def prepare(self, data, arguments):
        self.log.append("read")
        return [(label, lambda rng, loss, label=label: (label, rng.integers(1 << 30), loss))
                for label in ("Bounded", "Unbounded")]


def test_the_runner_charges_before_reading_then_draws_bounded_first():
    log = []
    accountant = accounting.BudgetAccountant(1.0)
    out = _plans.run(_Spy(log), None, {"eps": 0.5}, random_state=3, accountant=accountant)
    assert log == ["loss", "read"]
    rng = np.random.default_rng(3)
    assert out == {"Bounded": ("Bounded", rng.integers(1 << 30), out["Bounded"][2]),
                   "Unbounded": ("Unbounded", rng.integers(1 << 30), out["Unbounded"][2])}
    assert out["Bounded"][2] == accounting.PrivacyLoss.pure(0.5)
    assert accountant.ledger == [("spy", accounting.PrivacyLoss.pure(0.5))]
    log.clear()
    with pytest.raises(ValueError, match="budget exceeded"):
        _plans.run(_Spy(log), None, {"eps": 0.75}, random_state=3, accountant=accountant)
    assert log == ["loss"]  # refused before the plan read anything


def test_the_report_reads_the_law_the_release_draws():
    # meanDP, bounded, Laplace: the report's grid is the grid of the released values, and its
    # scale the law's (b = Delta / eps up to a relative 2^-20)
    n, eps = 50, 1.0
    report = dppack.noiseIntervalDP("meanDP", eps, n=n, lower_bound=0, upper_bound=1)
    x = np.linspace(0, 1, n)
    draws = np.array([dppack.meanDP(x, eps, 0, 1, random_state=s) for s in range(50)])
    assert np.all(np.mod(draws, report.grid) == 0)
    assert report.scale == pytest.approx(1.0 / n / eps, rel=2.0 ** -19)
    law = LaplaceNoise(1.0 / n, eps, 1).law()
    assert report.grid == math.ldexp(1.0, law["k"])


def test_count_noise_is_integer_noise_on_the_integers():
    for mechanism, delta in (("Laplace", 0), ("Gaussian", 1e-5), ("analytic", 1e-5)):
        noise = count_noise(0.5, 2.0, mechanism, delta, "aDP", 2)
        assert noise.law()["k"] == 0
        out = noise.draw(np.arange(5.0), np.random.default_rng(1))
        assert np.all(out == np.round(out))


def test_an_inner_step_is_not_charged_but_knows_its_loss():
    log = []
    with accounting.BudgetAccountant(1.0) as session:
        out = _plans.run(_Spy(log), None, {"eps": 0.5}, 3, accounting.UNCHARGED)
    assert session.ledger == [] and log == ["read", "loss"]
    assert out["Bounded"][2] == accounting.PrivacyLoss.pure(0.5)



class _Fit(_Spy):
    """A plan with the hooks of a model's fit: its own label, a refusal after the charge,
    and no spend at eps = Inf."""

    def label(self, arguments):
        return "Model.fit"

    def admit(self, bill, arguments):
        self.log.append("admit")
        if arguments.get("refuse"):
            raise ValueError("refused after the charge")

    def spend(self, bill, arguments):
        self.log.append("spend")
        return None if arguments.get("free") else bill.spend()


def test_the_hooks_label_admit_and_spend_run_in_order():
    log = []
    accountant = accounting.BudgetAccountant(1.0)
    out = _plans.run(_Fit(log), None, {"eps": 0.5}, 3, accountant)
    assert log == ["loss", "admit", "read", "spend"]
    assert accountant.ledger == [("Model.fit", accounting.PrivacyLoss.pure(0.5))]
    assert out["Bounded"][2] == accounting.PrivacyLoss.pure(0.5)
    log.clear()
    with pytest.raises(ValueError, match="refused after the charge"):
        _plans.run(_Fit(log), None, {"eps": 0.25, "refuse": True}, 3, accountant)
    assert log == ["loss", "admit"] and len(accountant.ledger) == 1  # nothing read or spent
    out = _plans.run(_Fit(log), None, {"eps": 0.25, "free": True}, 3, accountant)
    assert out["Bounded"][2] is None and len(accountant.ledger) == 1



class _OwnGenerator(_Spy):
    """A plan whose reading draws (data-free) from the generator its draws continue."""

    def prepare(self, data, arguments):
        arguments["rng"] = rng = np.random.default_rng(arguments["seed"])
        arguments["features"] = rng.integers(1 << 30)
        return super().prepare(data, arguments)

    def generator(self, random_state, arguments):
        return arguments["rng"]


def test_a_plan_can_hand_the_runner_its_generator():
    arguments = {"eps": 0.5, "seed": 11}
    out = _plans.run(_OwnGenerator([]), None, arguments, random_state=3)
    rng = np.random.default_rng(11)
    assert arguments["features"] == rng.integers(1 << 30)
    # the draws continue the plan's generator, not one made from random_state
    assert out["Bounded"][1] == rng.integers(1 << 30)
    assert out["Unbounded"][1] == rng.integers(1 << 30)


# The quantile family (quantileDP, medianDP, quantilesDP, boundsDP, ExponentialMechanism)
# are full plans too: every release in the registry checks, reads and draws through run().

def test_every_registered_release_is_a_full_plan():
    for name, plan in _plans.REGISTRY.items():
        kind = type(plan)
        assert isinstance(plan, _plans.Plan), name
        for method in ("loss", "prepare", "report"):
            assert getattr(kind, method) is not getattr(_plans.Plan, method), (name, method)
    assert not hasattr(_plans, "ReportPlan")  # no plan is a report alone


_QUANTILE_FAMILY = {
    "quantileDP": lambda x, acc: dppack.quantileDP(x, 0.5, 0.75, 0.0, 1.0, accountant=acc),
    "medianDP": lambda x, acc: dppack.medianDP(x, 0.75, 0.0, 1.0, accountant=acc),
    "quantilesDP": lambda x, acc: dppack.quantilesDP(x, [0.25, 0.75], 0.75, 0.0, 1.0,
                                                     accountant=acc),
    "boundsDP": lambda x, acc: dppack.boundsDP(x, 0.75, accountant=acc),
    "ExponentialMechanism": lambda x, acc: dppack.ExponentialMechanism(x, 0.75, 1.0,
                                                                       accountant=acc),
}


@pytest.mark.parametrize("name", sorted(_QUANTILE_FAMILY))
def test_the_quantile_family_charges_before_reading(name):
    release = _QUANTILE_FAMILY[name]
    accountant = accounting.BudgetAccountant(1.0)
    release(np.linspace(0.05, 0.95, 40), accountant)  # spends 0.75, labelled by the plan
    assert accountant.ledger == [(name, accounting.PrivacyLoss.pure(0.75))]
    with pytest.raises(ValueError, match="budget exceeded"):
        release(Untouchable(), accountant)  # refused before the data are read
    assert len(accountant.ledger) == 1


@pytest.mark.parametrize("name", sorted(_QUANTILE_FAMILY))
def test_the_quantile_family_draws_from_one_generator(name):
    # the same random_state, the same release; a Generator passed in is the one drawn from
    x = np.linspace(0.05, 0.95, 40)
    plan = _plans.REGISTRY[name]
    assert plan.name == name and not plan.spends  # the draws need no loss
    one = _plans.run(plan, x, _ARGUMENTS[name], random_state=7)
    two = _plans.run(plan, x, _ARGUMENTS[name], random_state=np.random.default_rng(7))
    assert np.all(np.asarray(one) == np.asarray(two))


_ARGUMENTS = {
    "quantileDP": dict(quant=0.5, eps=1.0, lower_bound=0.0, upper_bound=1.0,
                       which_sensitivity="bounded", mechanism="exponential", resolution=None),
    "medianDP": dict(quant=0.5, eps=1.0, lower_bound=0, upper_bound=1,
                     which_sensitivity="unbounded", mechanism="exponential", resolution=0.1),
    "quantilesDP": dict(quants=[0.25, 0.75], eps=1.0, lower_bound=0, upper_bound=1,
                        method="recursive", which_sensitivity="bounded", resolution=None),
    "boundsDP": dict(eps=1.0, quants=(0.01, 0.99), grid=None),
    "ExponentialMechanism": dict(utility=[1.0, 5.0, 2.0], eps=1.0, sensitivity=1.0,
                                 measure=None, candidates=None),
}


def test_the_plan_is_the_public_release():
    # run(plan, ...) is what the public function releases, bit for bit
    x = np.linspace(0.05, 0.95, 40)
    a = _ARGUMENTS
    assert dppack.quantileDP(x, 0.5, 1.0, 0.0, 1.0, random_state=3) == _plans.run(
        _plans.REGISTRY["quantileDP"], x, a["quantileDP"], 3)
    assert dppack.medianDP(x, 1.0, 0, 1, "unbounded", random_state=3, resolution=0.1) == (
        _plans.run(_plans.REGISTRY["medianDP"], x, a["medianDP"], 3))
    assert dppack.quantilesDP(x, [0.25, 0.75], 1.0, 0, 1, random_state=3).tolist() == (
        _plans.run(_plans.REGISTRY["quantilesDP"], x, a["quantilesDP"], 3).tolist())
    assert tuple(dppack.boundsDP(x, 1.0, random_state=3)) == tuple(
        _plans.run(_plans.REGISTRY["boundsDP"], x, a["boundsDP"], 3))
    assert dppack.ExponentialMechanism([1.0, 5.0, 2.0], 1.0, 1.0, random_state=3) == (
        _plans.run(_plans.REGISTRY["ExponentialMechanism"], None,
                   a["ExponentialMechanism"], 3))


def test_the_quantile_family_warns_at_the_callers_line():
    # the warnings' stacklevels count the runner's frames: they point at this file
    x = np.linspace(0.05, 0.95, 40)
    with pytest.warns(UserWarning) as caught:
        dppack.quantileDP(x, 0.5, 1.0, 0, 1, which_sensitivity="both", random_state=1)
    assert all(w.filename == __file__ for w in caught)
    with pytest.warns(UserWarning, match="edge of the grid") as caught:
        dppack.boundsDP(x, 1.0, grid=[0.5, 2.0, 3.0], random_state=1)
    assert all(w.filename == __file__ for w in caught)


# --------------------------------------------------------------------------------------------
# Confidence intervals, tuning and stability selection (issue 27 item 1): every release is
# run by _plans.run with its plan, and an overspend is refused before the data are read.
# --------------------------------------------------------------------------------------------



def _logistic():
    return [dppack.LogisticRegressionDP("l2", 1.0, gamma) for gamma in (1.0, 10.0)]


# name: (its plan, a call of the public release on data ``d()`` with accountant ``acc``),
# each release costing eps = 1
_SELECTION_RELEASES = {
    "priv_spd_mat": (_matrices.PRIV_SPD_MAT, lambda d, acc: dppack.confidence_intervals.erm
                     .priv_spd_mat(d(), 0.1, 1.0, random_state=2, accountant=acc)),
    "confintERM": (_confint_erm.CONFINT_ERM, lambda d, acc: dppack.confintERM(
        d(), d(), [1.0], [0.0], 1.0, eps=1.0, random_state=2, accountant=acc)),
    "confintDP": (_confint_erm.CONFINT_DP, lambda d, acc: dppack.confintDP(
        _logistic()[0], d(), d(), [1.0], [0.0], random_state=2, accountant=acc)),
    "tune_classification_model": (tuning.CLASSIFICATION, lambda d, acc:
                                  dppack.tune_classification_model(
                                      _logistic(), d(), d(), [1.0], [0.0], random_state=2,
                                      accountant=acc)),
    "tune_linear_regression_model": (tuning.LINEAR_REGRESSION, lambda d, acc:
                                     dppack.tune_linear_regression_model(
                                         [dppack.LinearRegressionDP("l2", 1.0, 1e-5, 1.0)],
                                         d(), d(), [1.0, 1.0], [0.0, 0.0], random_state=2,
                                         accountant=acc)),
    "stable_select": (_procedure.STABLE_SELECT, lambda d, acc: dppack.stable_select(
        d(), 0.01, 1.0, random_state=2, accountant=acc)),
    "validate_stable": (_procedure.VALIDATE_STABLE, lambda d, acc: dppack.validate_stable(
        [0.5, 0.25], HistogramTrainer(), d(), d(), 0.5, 1.0, random_state=2, accountant=acc)),
    "tune_stable": (_procedure.TUNE_STABLE, lambda d, acc: dppack.tune_stable(
        [0.5, 0.25], HistogramTrainer(), d(), d(), 0.5, 0.5, random_state=2, accountant=acc)),
    "tune_histogram_bin_width_stable": (
        _stable_histogram.TUNE_HISTOGRAM, lambda d, acc: dppack.tune_histogram_bin_width_stable(
            d(), [0.5, 0.25], 0.5, 0.5, random_state=2, accountant=acc)),
    "tune_classification_model_stable": (
        _diagnosis.TUNE_CLASSIFICATION_STABLE, lambda d, acc:
        dppack.tune_classification_model_stable(_logistic(), d(), d(), [1.0], [0.0], 0.5,
                                                random_state=2, accountant=acc)),
}


@pytest.mark.parametrize("name", sorted(_SELECTION_RELEASES))
def test_selection_releases_are_plans_run_by_the_runner(monkeypatch, name):
    plan, release = _SELECTION_RELEASES[name]
    assert isinstance(plan, _plans.Plan) and plan.name == name
    calls, returned = [], object()

    def spy(*args):
        calls.append(args)
        return returned

    monkeypatch.setattr(_plans, "run", spy)
    accountant = accounting.BudgetAccountant(2.0, 0.5)
    assert release(Untouchable, accountant) is returned  # the public result is run's
    assert len(calls) == 1 and calls[0][0] is plan
    assert calls[0][3:] == (2, accountant)  # random_state and accountant passed on


@pytest.mark.parametrize("name", sorted(_SELECTION_RELEASES))
def test_selection_releases_refuse_an_overspend_before_reading(name):
    plan, release = _SELECTION_RELEASES[name]
    accountant = accounting.BudgetAccountant(0.5, 1e-6)
    with pytest.raises(ValueError, match="budget exceeded"):
        release(Untouchable, accountant)
    assert accountant.ledger == []


# --------------------------------------------------------------------------------------------
# Accuracy-first releases (noise reductions, InteractiveAboveThreshold, the ERM methods)
# --------------------------------------------------------------------------------------------

_AF_X = np.random.default_rng(5).uniform(-1.0, 1.0, (100, 2))
_AF_Y = _AF_X @ np.array([0.5, -0.2])
_AF_BOUNDS = dict(upper_bounds=[1.0, 1.0, 1.0], lower_bounds=[-1.0, -1.0, -1.0])
_AF = dppack.accuracy_first
# name: (the plan, release(data, accountant) -> the public result, data, unreadable data);
# the ERM methods read X's shape for their charge: their y is the unreadable part
_ACCURACY_FIRST = {
    "LaplaceNoiseReduction": (
        _AF.noise_reduction._LAPLACE_REDUCTION,
        lambda x, acc: dppack.LaplaceNoiseReduction(x, [0.1, 0.5, 1.0], 1.0, random_state=2,
                                                    accountant=acc),
        [5.0, 6.0], Untouchable()),
    "GaussianNoiseReduction": (
        _AF._gaussian_path._GAUSSIAN_REDUCTION,
        lambda x, acc: dppack.GaussianNoiseReduction(x, [4.0, 1.0], 1.0, random_state=2,
                                                     accountant=acc),
        [5.0, 6.0], Untouchable()),
    "LaplaceNoiseReductionOnline": (
        _AF.noise_reduction._ONLINE_REDUCTION,
        lambda x, acc: dppack.LaplaceNoiseReductionOnline(x, 0.5, 1.0, random_state=2,
                                                          accountant=acc),
        [5.0, 6.0], Untouchable()),
    "InteractiveAboveThreshold": (
        _AF.above_threshold._ABOVE_THRESHOLD,
        lambda x, acc: dppack.InteractiveAboveThreshold(x, 0.5, 3.0, 1.0, random_state=2,
                                                        accountant=acc),
        [5.0, 6.0], Untouchable()),
    "accuracy_first_erm": (
        _AF.erm._ACCURACY_FIRST,
        lambda y, acc: dppack.accuracy_first_erm(_AF_X, y, "ridge", 0.1, 1.0, **_AF_BOUNDS,
                                                 n_levels=20, calibration="paper",
                                                 random_state=2, accountant=acc),
        _AF_Y, Untouchable()),
    "doubling_erm": (
        _AF.erm._DOUBLING,
        lambda y, acc: dppack.doubling_erm(_AF_X, y, "ridge", 0.1, 1.0, **_AF_BOUNDS,
                                           calibration="paper", random_state=2, accountant=acc),
        _AF_Y, Untouchable()),
    "theory_erm": (
        _AF.erm._THEORY,
        lambda y, acc: dppack.theory_erm(_AF_X, y, "ridge", 0.1, 1.0, **_AF_BOUNDS,
                                         random_state=2, accountant=acc),
        _AF_Y, Untouchable()),
}


@pytest.mark.parametrize("name", sorted(_ACCURACY_FIRST))
def test_the_accuracy_first_releases_are_plans(name, monkeypatch):
    plan, release, data, unreadable = _ACCURACY_FIRST[name]
    calls, run = [], _plans.run

    def spy(*args, **kwargs):  # records each run (accuracy_first_erm's test runs inside it)
        call = {"plan": args[0]}
        calls.append(call)
        call["result"] = run(*args, **kwargs)
        return call["result"]

    monkeypatch.setattr(_plans, "run", spy)
    accountant = accounting.BudgetAccountant(1e3, 1e-3)
    result = release(data, accountant)
    assert calls[0]["plan"] is plan and plan.name == name
    assert result is calls[0]["result"]  # the public result is the run's
    assert [label for label, _ in accountant.ledger] == [name]  # charged once, by the run
    with pytest.raises(ValueError, match="budget exceeded"):
        release(unreadable, accounting.BudgetAccountant(1e-3, 1e-6))  # refused before reading


# The ERM group: the models' fits and the scikit-learn estimators' charge are plans
# --------------------------------------------------------------------------------------------

_ERM_T = np.arange(60)
_ERM_X = 0.5 * np.column_stack([np.sin(_ERM_T), np.cos(1.7 * _ERM_T)])
_ERM_LABELS = (_ERM_X[:, 0] + _ERM_X[:, 1] > 0).astype(float)
_ERM_RESPONSE = np.clip(_ERM_X @ [1.0, -0.5] + 0.1 * np.sin(3.1 * _ERM_T), -1, 1)
_ERM_BOUNDS = ([0.5, 0.5], [-0.5, -0.5])
_ERM_Y_BOUNDS = ([0.5, 0.5, 1.0], [-0.5, -0.5, -1.0])


def _erm_plan(module, name):
    return lambda: getattr(pytest.importorskip(module), name)


def _sklearn_fit(name, y, **parameters):
    # the estimator's plan checks the budget; the core's fit, run by its own plan, charges
    def fit(X, y_, random_state, accountant):
        estimator = getattr(pytest.importorskip("dppack.sklearn"), name)
        return estimator(random_state=random_state, accountant=accountant,
                         **parameters).fit(X, y_)
    return fit, y


_ERM_RELEASES = {
    # name -> (the plan, fit(X, y, random_state, accountant), y)
    "LinearRegressionAdaSSP": (
        _erm_plan("dppack.erm.adassp", "ADASSP_FIT"),
        lambda X, y, rs, acc: dppack.LinearRegressionAdaSSP(1.0).fit(
            X, y, *_ERM_Y_BOUNDS, random_state=rs, accountant=acc), _ERM_RESPONSE),
    "LogisticRegressionDP": (
        _erm_plan("dppack.erm._cms", "CMS_FIT"),
        lambda X, y, rs, acc: dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(
            X, y, *_ERM_BOUNDS, random_state=rs, accountant=acc), _ERM_LABELS),
    "svmDP": (
        _erm_plan("dppack.erm._cms", "CMS_FIT"),
        lambda X, y, rs, acc: dppack.svmDP("l2", 1.0, 1.0, "output", kernel="Gaussian",
                                           D=3).fit(X, y, random_state=rs, accountant=acc),
        _ERM_LABELS),
    "LinearRegressionDP": (
        _erm_plan("dppack.erm._kst_framework", "KST_FIT"),
        lambda X, y, rs, acc: dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(
            X, y, *_ERM_Y_BOUNDS, random_state=rs, accountant=acc), _ERM_RESPONSE),
    "OutputPerturbationAGM": (
        _erm_plan("dppack.analytic_gaussian_erm.models", "AGM_FIT"),
        lambda X, y, rs, acc: dppack.OutputPerturbationAGM(
            "logistic", 1.0, 1e-5, 1.0, iterations=20).fit(
            X, y, *_ERM_BOUNDS, random_state=rs, accountant=acc), _ERM_LABELS),
    "GradientPerturbationAGM": (
        _erm_plan("dppack.analytic_gaussian_erm.models", "AGM_FIT"),
        lambda X, y, rs, acc: dppack.GradientPerturbationAGM(
            "huber", 1.0, 1e-5, 1.0, iterations=50).fit(
            X, y, *_ERM_BOUNDS, random_state=rs, accountant=acc), _ERM_LABELS),
    "DPLogisticRegression": (
        _erm_plan("dppack.sklearn._base", "ESTIMATOR_FIT"),
        *_sklearn_fit("DPLogisticRegression", _ERM_LABELS, feature_bounds=(-0.5, 0.5),
                      classes=(0, 1))),
    "DPLinearRegressionAdaSSP": (
        _erm_plan("dppack.sklearn._base", "ESTIMATOR_FIT"),
        *_sklearn_fit("DPLinearRegressionAdaSSP", _ERM_RESPONSE, feature_bounds=(-0.5, 0.5),
                      y_bounds=(-1, 1))),
    "DPLinearRegression": (
        _erm_plan("dppack.sklearn._base", "ESTIMATOR_FIT"),
        *_sklearn_fit("DPLinearRegression", _ERM_RESPONSE, feature_bounds=(-0.5, 0.5),
                      y_bounds=(-1, 1))),
    "DPModelSelector": (  # the tuner, inside, charges; the candidates' fits are plans
        _erm_plan("dppack.sklearn._base", "ESTIMATOR_FIT"),
        lambda X, y, rs, acc: pytest.importorskip("dppack.sklearn").DPModelSelector(
            [pytest.importorskip("dppack.sklearn").DPLogisticRegression(
                gamma=g, feature_bounds=(-0.5, 0.5), classes=(0, 1)) for g in (1, 10)],
            random_state=rs, accountant=acc).fit(X, y), _ERM_LABELS),
}


@pytest.mark.parametrize("name", sorted(_ERM_RELEASES))
def test_the_erm_fits_are_run_by_their_plans(name, monkeypatch):
    # the public fit is what _plans.run returns for its plan; an overspend is refused by the
    # runner before the data are read (Untouchable) and before any draw
    plan_of, fit, y = _ERM_RELEASES[name]
    real, plans, results = _plans.run, [], []

    def spy(plan, data, arguments, random_state=None, accountant=None):
        plans.append(plan)
        results.append(real(plan, data, arguments, random_state, accountant))
        return results[-1]

    monkeypatch.setattr(_plans, "run", spy)
    budget = accounting.BudgetAccountant(2.0, 1e-3)
    fitted = fit(_ERM_X, y, 3, budget)
    assert plans[0] is plan_of() and fitted is results[-1]  # results: innermost first
    assert (len(plans) > 1) == name.startswith("DP")  # an estimator's core fits are plans
    assert len(budget.ledger) == 1 and fitted.privacy_ == budget.ledger[0][1]
    plans.clear()
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    tiny = accounting.BudgetAccountant(1e-3, 1e-9)
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        fit(Untouchable(), Untouchable(), rng, tiny)
    assert plans == [plan_of()] and tiny.ledger == [] and rng.bit_generator.state == state
