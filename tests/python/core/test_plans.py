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
from dppack import _plans, accounting
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


# The quantile family (quantileDP, medianDP, quantilesDP, boundsDP, ExponentialMechanism)
# are full plans too: every release in the registry checks, reads and draws through run().

def test_every_registered_release_is_a_full_plan():
    for name, plan in _plans.REGISTRY.items():
        kind = type(plan)
        assert isinstance(plan, _plans.Plan), name
        for method in ("loss", "prepare", "report"):
            assert getattr(kind, method) is not getattr(_plans.Plan, method), (name, method)
    assert not hasattr(_plans, "ReportPlan")  # no plan is a report alone


class _Unreadable:
    """Data whose reading fails loudly: a release that reads it before charging fails here."""

    def __array__(self, *args, **kwargs):
        raise AssertionError("read before the charge")


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
        release(_Unreadable(), accountant)  # refused before the data are read
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

from dppack import tuning  # noqa: E402
from dppack.confidence_intervals import _matrices, erm as _confint_erm  # noqa: E402
from dppack.model_selection.stability import (  # noqa: E402
    HistogramTrainer, _diagnosis, _histogram as _stable_histogram, _procedure)


class _Untouchable:
    """Data whose every read fails (its length, shape, values, items or columns)."""

    def __getattr__(self, name):
        raise AssertionError(f"data read before the charge ({name})")

    def __array__(self, *args, **kwargs):
        raise AssertionError("data read before the charge (values)")

    def __len__(self):
        raise AssertionError("data read before the charge (length)")

    def __iter__(self):
        raise AssertionError("data read before the charge (items)")

    def __getitem__(self, key):
        raise AssertionError("data read before the charge (items)")


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
    assert release(_Untouchable, accountant) is returned  # the public result is run's
    assert len(calls) == 1 and calls[0][0] is plan
    assert calls[0][3:] == (2, accountant)  # random_state and accountant passed on


@pytest.mark.parametrize("name", sorted(_SELECTION_RELEASES))
def test_selection_releases_refuse_an_overspend_before_reading(name):
    plan, release = _SELECTION_RELEASES[name]
    accountant = accounting.BudgetAccountant(0.5, 1e-6)
    with pytest.raises(ValueError, match="budget exceeded"):
        release(_Untouchable, accountant)
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
        [5.0, 6.0], _Unreadable()),
    "GaussianNoiseReduction": (
        _AF._gaussian_path._GAUSSIAN_REDUCTION,
        lambda x, acc: dppack.GaussianNoiseReduction(x, [4.0, 1.0], 1.0, random_state=2,
                                                     accountant=acc),
        [5.0, 6.0], _Unreadable()),
    "LaplaceNoiseReductionOnline": (
        _AF.noise_reduction._ONLINE_REDUCTION,
        lambda x, acc: dppack.LaplaceNoiseReductionOnline(x, 0.5, 1.0, random_state=2,
                                                          accountant=acc),
        [5.0, 6.0], _Unreadable()),
    "InteractiveAboveThreshold": (
        _AF.above_threshold._ABOVE_THRESHOLD,
        lambda x, acc: dppack.InteractiveAboveThreshold(x, 0.5, 3.0, 1.0, random_state=2,
                                                        accountant=acc),
        [5.0, 6.0], _Unreadable()),
    "accuracy_first_erm": (
        _AF.erm._ACCURACY_FIRST,
        lambda y, acc: dppack.accuracy_first_erm(_AF_X, y, "ridge", 0.1, 1.0, **_AF_BOUNDS,
                                                 n_levels=20, calibration="paper",
                                                 random_state=2, accountant=acc),
        _AF_Y, _Unreadable()),
    "doubling_erm": (
        _AF.erm._DOUBLING,
        lambda y, acc: dppack.doubling_erm(_AF_X, y, "ridge", 0.1, 1.0, **_AF_BOUNDS,
                                           calibration="paper", random_state=2, accountant=acc),
        _AF_Y, _Unreadable()),
    "theory_erm": (
        _AF.erm._THEORY,
        lambda y, acc: dppack.theory_erm(_AF_X, y, "ridge", 0.1, 1.0, **_AF_BOUNDS,
                                         random_state=2, accountant=acc),
        _AF_Y, _Unreadable()),
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
