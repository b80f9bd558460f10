"""Tests of private model selection: DPpack's tune_classification_model and
tune_linear_regression_model.

What is checked, mostly with fake models whose validation errors we control:

* the interleaved split (which rows each model was fitted on, which rows were validated), that
  every model is fitted in place and the selected one is returned, that weights slices and
  weights_upper_bound are passed only when weights are given;
* one generator per call: the models' noise in order, then the selection;
* the selection frequencies against the exponential-mechanism probabilities, with
  sensitivity 1 (classification) and (U_y - L_y)^2 (regression) (chi-square over many seeds);
* a fix of DPpack's tune_linear_regression_model: validation labels and predictions are clipped to
  [L_y, U_y], so a huge outlier
  changes a model's utility by at most (U_y - L_y)^2 per row;
* real models: LinearRegressionDP (DPpack's tuning example), LogisticRegressionDP when
  dppack.erm.models is available.

Statistical tests run at level ALPHA = 0.001 with fixed seeds, so they are deterministic; under
a fresh seed each would fail falsely (reject a correct implementation) with probability 0.001.
"""

import numpy as np
import pytest
from scipy import stats

import dppack
from accounting_checks import Untouchable
import dppack.tuning as tuning
from dppack import _random, _tuning_checks, accounting
from dppack.erm.kst import LinearRegressionDP
from dppack.tuning import tune_classification_model, tune_linear_regression_model

ALPHA = 0.001  # false-failure probability of each statistical test under a fresh seed


class FakeModel:
    """Records its fit; predicts so that a chosen number of validation rows are wrong
    (classification, labels all 0) or a constant (regression). Column 0 of X is the row id."""

    def __init__(self, eps=1.0, wrong=0, constant=0.0, draw=False):
        self.eps = eps
        self.wrong = wrong
        self.constant = constant
        self.draw = draw
        self.fitted_rows = None
        self.fit_kwargs = None
        self.predicted_rows = None
        self.drawn = None

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, **kwargs):
        self.fitted_rows = np.asarray(X)[:, 0].astype(int)
        self.fitted_y = np.asarray(y)
        self.fit_args = (upper_bounds, lower_bounds, add_bias)
        self.fit_kwargs = kwargs
        if self.draw:
            self.drawn = kwargs["random_state"].random()
        return self

    def predict(self, X, add_bias=False, raw_value=None):
        self.predicted_rows = np.asarray(X)[:, 0].astype(int)
        n = len(self.predicted_rows)
        if raw_value is not None:  # classification: the first `wrong` rows say 1
            return (np.arange(n) < self.wrong).astype(float)
        return np.full(n, self.constant)


def _rows_data(n):
    X = np.column_stack([np.arange(n), np.zeros(n)])
    return X, np.zeros(n)


@pytest.mark.parametrize("tune", ["classification", "regression"])
@pytest.mark.parametrize("m, n", [(3, 17), (1, 2), (4, 23), (2, 3)])
def test_split_and_fit_in_place(tune, m, n):
    X, y = _rows_data(n)
    models = [FakeModel() for _ in range(m)]
    if tune == "classification":
        chosen = tune_classification_model(models, X, y, [1, 1], [0, 0], random_state=1)
    else:
        chosen = tune_linear_regression_model(models, X, y, [1, 1, 1], [0, 0, 0],
                                              random_state=1)
    assert any(chosen is model for model in models)
    # R: model i (1-based) trains on seq(i, n, by = m + 1), validation seq(m + 1, n, by = m + 1).
    r_validation = np.arange(m + 1, n + 1, m + 1) - 1
    for i, model in enumerate(models, start=1):
        np.testing.assert_array_equal(model.fitted_rows, np.arange(i, n + 1, m + 1) - 1)
        np.testing.assert_array_equal(model.predicted_rows, r_validation)
        # the tuner charges the whole call: the fits inside charge no accountant
        assert set(model.fit_kwargs) == {"random_state", "accountant"}
        assert model.fit_kwargs["accountant"] is accounting.UNCHARGED
    seen = np.concatenate([model.fitted_rows for model in models] + [r_validation])
    np.testing.assert_array_equal(np.sort(seen), np.arange(n))


def test_weights_passed_only_when_given():
    n = 14
    X, y = _rows_data(n)
    weights = np.arange(n) / 10
    models = [FakeModel() for _ in range(3)]
    tune_classification_model(models, X, y, [1, 1], [0, 0], add_bias=True, weights=weights,
                              weights_upper_bound=2.0, random_state=3)
    for model in models:
        np.testing.assert_array_equal(model.fit_kwargs["weights"], weights[model.fitted_rows])
        assert model.fit_kwargs["weights_upper_bound"] == 2.0
        assert model.fit_args == ([1, 1], [0, 0], True)
    # the fits' weight checks run before the call spends its budget (erm._design)
    with pytest.raises(ValueError, match="weights must have one value per row of X"):
        tune_classification_model(models, X, y, [1, 1], [0, 0], weights=weights[:-1],
                                  weights_upper_bound=2.0)
    with pytest.raises(ValueError, match="^Upper bound on weights must be given"):
        tune_classification_model(models, X, y, [1, 1], [0, 0], weights=weights)
    with pytest.raises(ValueError, match="^Weights must be nonnegative"):
        tune_classification_model(models, X, y, [1, 1], [0, 0], weights=-weights,
                                  weights_upper_bound=2.0)


def test_one_generator_models_in_order_then_selection():
    n, seed = 20, 123
    X, y = _rows_data(n)
    models = [FakeModel(draw=True, wrong=k) for k in range(3)]
    chosen = tune_classification_model(models, X, y, [1, 1], [0, 0], random_state=seed)
    rng = np.random.default_rng(seed)
    assert [model.drawn for model in models] == [rng.random() for _ in range(3)]
    # The selection draws next from the same stream (the exact exponential mechanism).
    index = _random.exponential_mechanism(-np.arange(3.0), 1.0, 1.0, rng)
    assert chosen is models[index]


def test_too_few_rows_and_bad_models():
    X, y = _rows_data(3)
    with pytest.raises(ValueError, match="needs at least 4 observations"):
        tune_classification_model([FakeModel() for _ in range(3)], X, y, [1, 1], [0, 0])
    with pytest.raises(ValueError, match="at least one model"):
        tune_classification_model([], X, y, [1, 1], [0, 0])
    with pytest.raises(ValueError, match="y must have one value per row of X"):
        tune_linear_regression_model([FakeModel()], X, y[:-1], [1, 1, 1], [0, 0, 0])


def _frequencies(run, m, repetitions):
    counts = np.zeros(m)
    for seed in range(repetitions):
        counts[run(seed)] += 1
    return counts


def test_classification_selection_frequencies():
    n, eps = 40, 0.8
    X, y = _rows_data(n)
    wrong = [0, 2, 5, 1]  # misclassified validation rows (8 validation rows for m = 4)
    models = [FakeModel(eps=eps, wrong=k) for k in wrong]

    def run(seed):
        chosen = tune_classification_model(models, X, y, [1, 1], [0, 0], random_state=seed)
        return next(i for i, model in enumerate(models) if model is chosen)

    counts = _frequencies(run, 4, 4000)
    p = np.exp(-eps * np.array(wrong) / 2)  # sensitivity 1
    p /= p.sum()
    # Chi-square goodness of fit at level ALPHA: false failure probability 0.001.
    assert stats.chisquare(counts, counts.sum() * p).pvalue > ALPHA


def test_regression_selection_frequencies():
    n, eps = 30, 1.0
    X, y = _rows_data(n)  # validation labels 0
    lower_y, upper_y = -1.0, 1.0
    constants = [0.0, 0.5, 0.8]  # squared error per validation row: c^2
    models = [FakeModel(eps=eps, constant=c) for c in constants]
    n_validation = len(np.arange(3, n, 4))

    def run(seed):
        chosen = tune_linear_regression_model(models, X, y, [1, 1, upper_y], [0, 0, lower_y],
                                              random_state=seed)
        return next(i for i, model in enumerate(models) if model is chosen)

    counts = _frequencies(run, 3, 4000)
    z = n_validation * np.array(constants) ** 2
    p = np.exp(-eps * z / (2 * (upper_y - lower_y) ** 2))
    p /= p.sum()
    # Chi-square goodness of fit at level ALPHA: false failure probability 0.001.
    assert stats.chisquare(counts, counts.sum() * p).pvalue > ALPHA


def _recorded_selection(monkeypatch):
    calls = []

    def record(utility, eps, sensitivity, candidates=None, random_state=None,
               accountant=None):
        assert accountant is accounting.UNCHARGED  # the tuner charges the whole call
        calls.append((np.asarray(utility), eps, sensitivity))
        return candidates[0]

    monkeypatch.setattr(tuning, "ExponentialMechanism", record)
    return calls


def test_regression_clips_validation_labels_and_predictions(monkeypatch):
    calls = _recorded_selection(monkeypatch)
    n = 24
    X, y = _rows_data(n)
    lower_y, upper_y = -2.0, 3.0
    models = [FakeModel(constant=0.5), FakeModel(constant=1e6), FakeModel(constant=-1e6)]
    tune_linear_regression_model(models, X, y, [1, 1, upper_y], [0, 0, lower_y])
    y_outlier = y.copy()
    y_outlier[3] = 1e9  # a validation row (m = 3: rows 3, 7, ...)
    tune_linear_regression_model(models, X, y_outlier, [1, 1, upper_y], [0, 0, lower_y])
    (u_clean, _, sens), (u_outlier, _, _) = calls
    assert sens == (upper_y - lower_y) ** 2
    n_validation = len(np.arange(3, n, 4))
    # Predictions clipped to [L_y, U_y] before squaring:
    np.testing.assert_allclose(-u_clean, n_validation * np.array([0.25, 9.0, 4.0]))
    # One changed validation row changes every utility by at most (U_y - L_y)^2.
    assert np.all(np.abs(u_clean - u_outlier) <= (upper_y - lower_y) ** 2)
    np.testing.assert_allclose(-u_outlier, -u_clean + [
        (3 - 0.5) ** 2 - 0.25, (3 - 3) ** 2 - 9.0, (3 + 2) ** 2 - 4.0])


def test_classification_utility_and_shared_eps(monkeypatch):
    calls = _recorded_selection(monkeypatch)
    X, y = _rows_data(30)
    models = [FakeModel(eps=0.3, wrong=2), FakeModel(eps=0.3, wrong=4)]
    tune_classification_model(models, X, y, [1, 1], [0, 0])
    utility, eps, sens = calls[0]
    np.testing.assert_array_equal(utility, [-2, -4])
    assert eps == 0.3 and sens == 1.0


def _fake_regression(eps, delta):
    model = FakeModel(eps=eps)
    model.delta = delta
    return model


@pytest.mark.parametrize("tuner, models, message", [
    # DPpack selects with the first model's eps: a second model with a larger eps would make
    # the call 5-DP, not the 0.3-DP its first model suggests
    (tune_classification_model, [FakeModel(eps=0.3), FakeModel(eps=5)], "same eps"),
    (tune_classification_model, [FakeModel(eps=np.inf), FakeModel(eps=np.inf)],
     "eps must be finite"),
    (tune_linear_regression_model, [_fake_regression(1, 0.01), _fake_regression(2, 0.01)],
     "same eps"),
    (tune_linear_regression_model, [_fake_regression(1, 0.01), _fake_regression(1, 0.1)],
     "same delta"),
])
def test_budgets_must_agree_before_any_fit(tuner, models, message):
    X, y = _rows_data(30)
    bounds = ([1, 1], [0, 0]) if tuner is tune_classification_model else ([1, 1], [0, -1])
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match=message):
        tuner(models, X, y, *bounds, random_state=rng)
    assert all(model.fitted_rows is None for model in models)  # no data touched
    assert rng.bit_generator.state == state  # nothing drawn


def test_linear_regression_models_real():
    # DPpack's tuning example: LinearRegressionDP with gamma in {100, 1, 1e-4}, eps 1, delta .01.
    rng = np.random.default_rng(5)
    n = 600
    X = rng.uniform(-1, 1, size=(n, 1))
    y = -0.3 + 0.5 * X[:, 0] + rng.normal(0, 0.1, n)
    models = [LinearRegressionDP("l2", 1, 0.01, gamma) for gamma in (100, 1, 1e-4)]
    chosen = tune_linear_regression_model(models, X, y, [1, 2], [-1, -2], add_bias=True,
                                          random_state=2)
    assert any(chosen is model for model in models)
    assert all(model.coeff is not None and model.coeff.shape == (2,) for model in models)
    again = [LinearRegressionDP("l2", 1, 0.01, gamma) for gamma in (100, 1, 1e-4)]
    chosen_again = tune_linear_regression_model(again, X, y, [1, 2], [-1, -2], add_bias=True,
                                                random_state=2)
    assert models.index(chosen) == again.index(chosen_again)
    for a, b in zip(models, again):
        np.testing.assert_array_equal(a.coeff, b.coeff)


def test_logistic_regression_models_real():
    models_module = pytest.importorskip("dppack.erm.models")
    rng = np.random.default_rng(6)
    n = 600
    X = rng.uniform(-1, 1, size=(n, 2))
    y = (X @ [2.0, -1.0] + rng.normal(0, 0.3, n) > 0).astype(float)
    models = [models_module.LogisticRegressionDP("l2", 1, gamma) for gamma in (100, 1, 1e-4)]
    chosen = tune_classification_model(models, X, y, [1, 1], [-1, -1], add_bias=True,
                                       random_state=4)
    assert any(chosen is model for model in models)
    assert all(model.coeff is not None for model in models)


def test_weighted_svm_models_real():
    # DPpack's tuning example: svmDP with output perturbation, gamma in {100, 1, 1e-4}, half the
    # weights 0.5,
    # weights upper bound 1.
    models_module = pytest.importorskip("dppack.erm.models")
    rng = np.random.default_rng(7)
    n = 400
    X = rng.uniform(-1, 1, size=(n, 2))
    y = (X[:, 0] - X[:, 1] > 0).astype(float)
    weights = np.where(np.arange(n) % 2 == 0, 0.5, 1.0)
    models = [models_module.svmDP("l2", 1, gamma, perturbation_method="output")
              for gamma in (100, 1, 1e-4)]
    chosen = tune_classification_model(models, X, y, [1, 1], [-1, -1], add_bias=True,
                                       weights=weights, weights_upper_bound=1.0, random_state=9)
    assert any(chosen is model for model in models)
    assert all(model.coeff is not None for model in models)


# ---- privacy accounting (issue 12) ------------------------------------------------------------



def _accounting_data(n=90):
    X = np.column_stack([np.linspace(-1, 1, n), np.cos(np.arange(n))])
    return X, (X[:, 0] + 0.3 * X[:, 1] > 0).astype(float), 0.5 * X[:, 0] - 0.2 * X[:, 1]


def _classifiers(eps=0.5):
    return [dppack.LogisticRegressionDP("l2", eps, 1.0), dppack.svmDP("l2", eps, 1.0, "output"),
            dppack.LogisticRegressionDP("l2", eps, 10.0, "output")]


def _regressions(eps=0.5, delta=1e-4):
    return [dppack.LinearRegressionDP("l2", eps, delta, gamma) for gamma in (0.1, 1.0, 10.0)]


def test_tuners_charge_the_whole_call_once():
    X, y, r = _accounting_data()
    with dppack.BudgetAccountant(5.0, 1e-3) as session:
        chosen = tune_classification_model(_classifiers(), X, y, [1, 1], [-1, -1],
                                           random_state=1)
        fitted = _regressions()
        best = tune_linear_regression_model(fitted, X, r, [1, 1, 1], [-1, -1, -1],
                                            random_state=2)
    # one entry per call: the fits and the selection on disjoint parts compose in parallel
    pure, approx = dppack.PrivacyLoss.pure(0.5), dppack.PrivacyLoss.approx(0.5, 1e-4)
    assert session.ledger == [("tune_classification_model", pure),
                              ("tune_linear_regression_model", approx)]
    assert chosen.privacy_ == pure and best.privacy_ == approx
    assert all(model.privacy_ == approx for model in fitted)  # each fit's own loss
    # an explicit accountant is charged instead of the session's
    budget = dppack.BudgetAccountant(1.0)
    with dppack.BudgetAccountant(5.0) as session:
        tune_classification_model(_classifiers(), X, y, [1, 1], [-1, -1], random_state=1,
                                  accountant=budget)
    assert session.ledger == [] and budget.ledger == [("tune_classification_model", pure)]
    # models with a delta: the classification tuner charges the largest
    mixed = [dppack.OutputPerturbationAGM("logistic", 0.5, 1e-6, 1.0, iterations=5),
             dppack.LogisticRegressionDP("l2", 0.5, 1.0)]
    assert _tuning_checks.tuning_loss(mixed) == dppack.PrivacyLoss.approx(0.5, 1e-6)


@pytest.mark.parametrize("tune", ["classification", "regression"])
def test_tuner_overspend_refused_before_the_data_and_the_generator(tune):
    budget = dppack.BudgetAccountant(0.4, 1e-3)
    rng = np.random.default_rng(3)
    state = rng.bit_generator.state
    if tune == "classification":
        models = _classifiers()
        call = lambda: tune_classification_model(  # noqa: E731
            models, Untouchable(), Untouchable(), [1, 1], [-1, -1], random_state=rng,
            accountant=budget)
    else:
        models = _regressions()
        call = lambda: tune_linear_regression_model(  # noqa: E731
            models, Untouchable(), Untouchable(), [1, 1, 1], [-1, -1, -1], random_state=rng,
            accountant=budget)
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        call()
    assert rng.bit_generator.state == state and budget.ledger == []
    assert all(model.coeff is None for model in models)


def test_tuner_invalid_models_keep_their_message_and_charge_nothing():
    X, y, _ = _accounting_data()
    budget = dppack.BudgetAccountant(5.0)
    mixed = [dppack.LogisticRegressionDP("l2", 0.5, 1.0), dppack.LogisticRegressionDP("l2", 1, 1)]
    with pytest.raises(ValueError, match="same eps"):
        tune_classification_model(mixed, X, y, [1, 1], [-1, -1], accountant=budget)
    with pytest.raises(ValueError, match="must be finite"):
        tune_classification_model([dppack.LogisticRegressionDP("l2", np.inf, 1.0)], X, y,
                                  [1, 1], [-1, -1], accountant=budget)
    with pytest.raises(ValueError, match="needs at least 4 observations"):
        tune_classification_model(_classifiers(), X[:3], y[:3], [1, 1], [-1, -1],
                                  accountant=budget)
    assert budget.ledger == []
