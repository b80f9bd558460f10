"""Newcomer friction (issue 26, item 3): predict remembers add_bias, readable reprs, tables of
a DataFrame of Categoricals, histogram titles named after the data, bool and categorical
labels in the core classifiers, and R's notation for sets of choices in R's messages.

All fits use fixed seeds; nothing here is a distribution check (no false-failure rate).
"""

import re

import numpy as np
import pandas as pd
import pytest

import dppack
from dppack import _messages, rcompat
from dppack.erm._design import binary_codes, fitted_add_bias

RNG = np.random.default_rng(20261205)
X = RNG.uniform(0.0, 1.0, (80, 2))
Y_BOOL = X[:, 0] + 0.2 * X[:, 1] > 0.6
Y01 = Y_BOOL.astype(np.float64)
UPPER, LOWER = [1.0, 1.0], [0.0, 0.0]


def _classifiers():
    return {
        "logistic": dppack.LogisticRegressionDP("l2", 1.0, 1.0),
        "logistic-output": dppack.LogisticRegressionDP("l2", 1.0, 1.0, "output"),
        "svm": dppack.svmDP("l2", 1.0, 1.0, "output"),
        "svm-gaussian": dppack.svmDP("l2", 1.0, 1.0, "output", kernel="Gaussian", D=5,
                                     kernel_param=0.5),
        "agm-output": dppack.OutputPerturbationAGM("logistic", 1.0, 1e-5, 1.0),
        "agm-gradient": dppack.GradientPerturbationAGM("huber", 1.0, 1e-5, 1.0),
    }


# ---- 1. predict's add_bias: None means as fitted -------------------------------------------


@pytest.mark.parametrize("name", list(_classifiers()))
@pytest.mark.parametrize("add_bias", [True, False])
def test_predict_remembers_add_bias(name, add_bias):
    model = _classifiers()[name].fit(X, Y01, UPPER, LOWER, add_bias=add_bias, random_state=3)
    assert model.add_bias_ is add_bias
    remembered = model.predict(X, raw_value=True)
    np.testing.assert_array_equal(remembered, model.predict(X, add_bias=add_bias,
                                                            raw_value=True))
    if name != "svm-gaussian":  # its random features fix the width: no column-count check
        with pytest.raises(ValueError, match="the model was fitted on"):
            model.predict(X, add_bias=not add_bias)  # a different value: today's error


@pytest.mark.parametrize("name", [n for n in _classifiers() if n != "svm-gaussian"])
def test_predict_takes_x_with_its_bias_column(name):
    # DPpack's predict(X, add.bias = FALSE) after a fit with add.bias = TRUE took X with the
    # bias column: the default (None) keeps that script working
    model = _classifiers()[name].fit(X, Y01, UPPER, LOWER, add_bias=True, random_state=3)
    with_bias = np.column_stack([np.ones(len(X)), X])
    # the same coefficients; the bias added in the product or as a column rounds apart
    np.testing.assert_allclose(model.predict(with_bias, raw_value=True),
                               model.predict(X, raw_value=True), rtol=1e-13, atol=1e-15)
    with pytest.raises(ValueError, match="the model was fitted on"):
        model.predict(with_bias, add_bias=True)  # an explicit flag is taken as given


def test_predict_remembers_add_bias_regression_and_frameworks():
    target = X @ np.array([0.5, -0.25])
    linear = dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(
        X, target, [1.0, 1.0, 1.0], [0.0, 0.0, -1.0], add_bias=True, random_state=2)
    np.testing.assert_array_equal(linear.predict(X), linear.predict(X, add_bias=True))
    with pytest.raises(ValueError, match="X has 2 columns; the model was fitted on 3"):
        linear.predict(X, add_bias=False)
    np.testing.assert_allclose(linear.predict(np.column_stack([np.ones(len(X)), X])),
                               linear.predict(X), rtol=1e-13, atol=1e-15)
    cms = dppack.EmpiricalRiskMinimizationDP_CMS(dppack.mapXy_sigmoid,
                                                 dppack.loss_cross_entropy, "l2", 1.0, 1.0,
                                                 c=0.25)
    cms.fit(X, Y01, UPPER, LOWER, add_bias=True, random_state=2)
    np.testing.assert_array_equal(cms.predict(X), cms.predict(X, add_bias=True))
    assert cms.predict(X).shape == (80,)


def test_fitted_add_bias_default_and_checks():
    model = dppack.LogisticRegressionDP("l2", 1.0, 1.0)
    assert fitted_add_bias(model) is False  # never fitted (coefficients assigned by hand)
    with pytest.raises(ValueError, match="add_bias must be True or False"):
        fitted_add_bias(model, "yes")


# ---- 2. readable reprs ---------------------------------------------------------------------


def _objects():
    fitted = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(X, Y01, UPPER, LOWER,
                                                            add_bias=True, random_state=1)
    linear = dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0)
    above = dppack.InteractiveAboveThreshold(X[:, 0], 1.0, 0.5, 1.0, random_state=1)
    above.query(0.0)
    from dppack.model_selection.stability import HistogramTrainer, LinearClassifierTrainer

    return {
        "logistic-unfitted": dppack.LogisticRegressionDP("l2", 1.0, 1.0),
        "logistic-fitted": fitted,
        "svm": dppack.svmDP("l2", 1.0, 1.0, kernel="Gaussian", D=5),
        "cms": dppack.EmpiricalRiskMinimizationDP_CMS(dppack.mapXy_sigmoid,
                                                      dppack.loss_cross_entropy, "l2", 1.0,
                                                      1.0, c=1.0),
        "weighted": dppack.WeightedERMDP_CMS(dppack.mapXy_sigmoid, dppack.loss_cross_entropy,
                                             "l2", 1.0, 1.0, "output"),
        "linear": linear,
        "agm": dppack.OutputPerturbationAGM("logistic", 1.0, 1e-5, 1.0),
        "agm-gradient": dppack.GradientPerturbationAGM("logistic", 1.0, 1e-5, 1.0),
        "above-threshold": above,
        "noise-reduction": dppack.LaplaceNoiseReductionOnline([1.0, 2.0], 1.0, 1.0,
                                                              random_state=1),
        "linear-trainer": LinearClassifierTrainer(UPPER, LOWER, True),
        "histogram-trainer": HistogramTrainer(),
        "privacy-loss": dppack.PrivacyLoss.pure(1.0),
        "accountant": dppack.BudgetAccountant(1.0),
        "bounds": dppack.boundsDP(X[:, 0], 1.0, random_state=1),
        "histogram": dppack.histogramDP(X[:, 0], 1.0, 0.0, 1.0, random_state=1),
        "noise-interval": dppack.noiseIntervalDP("meanDP", eps=1.0, lower_bound=0.0,
                                                 upper_bound=1.0, n=80),
    }


@pytest.mark.parametrize("name", list(_objects()))
def test_repr_is_readable(name):
    obj = _objects()[name]
    text = repr(obj)
    assert "object at 0x" not in text
    assert type(obj).__name__ in text


def test_model_repr_shows_parameters_and_state():
    assert repr(dppack.LogisticRegressionDP("l2", 1.0, 2.0)) == (
        "LogisticRegressionDP(regularizer=regularizer_l2, eps=1, gamma=2, "
        "perturbation_method='objective', c=0.25; not fitted)")
    model = dppack.LinearRegressionDP("l2", 0.5, 0.0, 1.0).fit(
        X, X[:, 0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0], add_bias=True, random_state=1)
    text = repr(model)
    assert text.startswith("LinearRegressionDP(regularizer=regularizer_l2, eps=0.5, delta=0, "
                           "gamma=1; fitted, coeff = [")
    assert text.endswith("; add_bias=True)")
    shown = [float(v) for v in re.search(r"coeff = \[([^\]]*)\]", text).group(1).split(", ")]
    np.testing.assert_allclose(shown, model.coeff, rtol=1e-5)


def test_reprs_hide_the_hidden_state():
    above = dppack.InteractiveAboveThreshold(X[:, 0], 1.0, 0.5, 1.0, random_state=1)
    noisy = repr(above._noisy_threshold)
    assert noisy not in repr(above)
    assert repr(above).endswith("0 queries answered; running)")
    reduction = dppack.LaplaceNoiseReductionOnline([1.0, 2.0], 1.0, 1.0, random_state=1)
    assert "1 level released" in repr(reduction)
    assert "[1, 2]" not in repr(reduction)  # the true values never appear


def test_long_vectors_are_summarised():
    from dppack._repr import short_value

    assert short_value(np.arange(20.0)) == "[0, 1, 2, 3, 4, 5, ...] (20 values)"


# ---- 3. tableDP of a DataFrame of Categoricals ---------------------------------------------


def _frame():
    return pd.DataFrame({
        "a": pd.Categorical(["x", "y", "x", "x"] * 5, categories=["x", "y", "z"]),
        "b": pd.Categorical(["u", "u", "v", "u"] * 5, categories=["u", "v"]),
    })


def test_table_of_a_frame_of_categoricals_is_declared():
    df = _frame()
    separate = dppack.tableDP(df["a"], df["b"], eps=1.0, random_state=5)
    framed = dppack.tableDP(df[["a", "b"]], eps=1.0, random_state=5)
    pd.testing.assert_frame_equal(framed, separate)
    assert framed.index.name == "a" and framed.columns.name == "b"
    assert list(framed.index) == ["x", "y", "z"]  # the unobserved declared level kept


def test_table_of_a_frame_without_declared_levels_stays_thresholded():
    df = pd.DataFrame({"a": ["x", "y"] * 5, "b": ["u", "v"] * 5})
    with pytest.raises(ValueError, match="Declare the levels"):
        dppack.tableDP(df, eps=1.0)
    mixed = _frame().assign(b=["u", "v"] * 10)  # one column undeclared: the whole table is
    with pytest.raises(ValueError, match="Declare the levels"):
        dppack.tableDP(mixed, eps=1.0)


def test_table_data_access_of_a_frame():
    df = _frame()
    counts = dppack.tableDataAccess(df)
    separate = dppack.tableDataAccess(df["a"], df["b"])
    pd.testing.assert_frame_equal(counts["True.Values"], separate["True.Values"])


def test_factor_columns():
    from dppack._frames import factor_columns

    with pytest.raises(ValueError, match="nothing to tabulate"):
        factor_columns([pd.DataFrame(index=range(3))])
    assert [c.name for c in factor_columns([_frame()])] == ["a", "b"]


# ---- 4. histogram titles named after the data ----------------------------------------------


def test_histogram_named_after_the_series_or_column():
    values = X[:, 0]
    assert dppack.histogramDP(pd.Series(values, name="age"), 1.0, 0.0, 1.0,
                              random_state=1).xname == "age"
    assert dppack.histogramDP(pd.DataFrame({"glu": values}), 1.0, 0.0, 1.0,
                              random_state=1).xname == "glu"
    assert dppack.histogramDP(values, 1.0, 0.0, 1.0, random_state=1).xname == "x"
    both = dppack.histogramDP(pd.Series(values, name="bmi"), 1.0, 0.0, 1.0,
                              which_sensitivity="both", random_state=1)
    assert {h.xname for h in both.values()} == {"bmi"}


def test_xname_of_other_libraries():
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    assert rcompat._hist.xname_of(pl.Series("w", [1.0])) == "w"
    assert rcompat._hist.xname_of(pl.Series([1.0])) == "x"  # polars' empty default name
    assert rcompat._hist.xname_of(pa.table({"h": [1.0]})) == "h"
    assert rcompat._hist.xname_of(pd.Series([1.0])) == "x"


def test_histogram_plot_title_uses_the_name():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    h = dppack.histogramDP(pd.Series(X[:, 0], name="age"), 1.0, 0.0, 1.0, random_state=1)
    ax = h.plot()
    try:
        assert ax.get_title().startswith("Private histogram of age")
        assert ax.get_xlabel() == "age"
    finally:
        plt.close(ax.figure)


# ---- 5. bool and categorical labels in the core classifiers --------------------------------


def _label_forms():
    strings = np.where(Y_BOOL, "yes", "no")
    forms = {
        "bool": Y_BOOL,
        "bool-list": Y_BOOL.tolist(),
        "bool-series": pd.Series(Y_BOOL),
        "nullable-boolean": pd.Series(Y_BOOL, dtype="boolean"),
        "categorical": pd.Categorical(strings, categories=["no", "yes"]),
        "categorical-series": pd.Series(pd.Categorical(strings, categories=["no", "yes"])),
    }
    pl = pytest.importorskip("polars")
    forms["polars-bool"] = pl.Series(Y_BOOL)
    forms["polars-enum"] = pl.Series(strings).cast(pl.Enum(["no", "yes"]))
    return forms


@pytest.mark.parametrize("name", ["logistic", "svm", "agm-output"])
def test_bool_and_categorical_labels_fit_as_zero_one(name):
    reference = _classifiers()[name].fit(X, Y01, UPPER, LOWER, random_state=4).coeff
    for form, y in _label_forms().items():
        coeff = _classifiers()[name].fit(X, y, UPPER, LOWER, random_state=4).coeff
        np.testing.assert_array_equal(coeff, reference, err_msg=form)


def test_second_category_is_the_positive_class():
    strings = np.where(Y_BOOL, "yes", "no")
    flipped = pd.Categorical(strings, categories=["yes", "no"])  # "no" is now the class 1
    reference = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(
        X, 1.0 - Y01, UPPER, LOWER, random_state=4).coeff
    coeff = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(
        X, flipped, UPPER, LOWER, random_state=4).coeff
    np.testing.assert_array_equal(coeff, reference)


def test_labels_without_a_public_set_are_refused():
    model = dppack.LogisticRegressionDP("l2", 1.0, 1.0)
    with pytest.raises(ValueError, match=r"^y must be a numeric vector\.$"):
        model.fit(X, np.where(Y_BOOL, "yes", "no"), UPPER, LOWER)
    three = pd.Categorical(np.where(Y_BOOL, "yes", "no"), categories=["no", "yes", "maybe"])
    with pytest.raises(ValueError, match="3 declared categories"):
        dppack.svmDP("l2", 1.0, 1.0).fit(X, three, UPPER, LOWER)
    missing = pd.Series(Y_BOOL, dtype="boolean")
    missing[3] = pd.NA
    with pytest.raises(ValueError, match="y must be finite"):
        model.fit(X, missing, UPPER, LOWER)
    assert np.isnan(binary_codes(pd.Categorical(["a", None], categories=["a", "b"]))[1])


def test_core_and_sklearn_agree_on_categorical_labels():
    from dppack.sklearn import DPLogisticRegression

    y = pd.Categorical(np.where(Y_BOOL, "yes", "no"), categories=["no", "yes"])
    clf = DPLogisticRegression(eps=1.0, gamma=1.0, feature_bounds=(LOWER, UPPER),
                               fit_intercept=False, random_state=4).fit(X, y)
    assert list(clf.classes_) == ["no", "yes"]  # the second category positive, as the core
    core = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(X, y, UPPER, LOWER, random_state=4)
    np.testing.assert_allclose(clf.coef_.ravel(), core.coeff, rtol=1e-9)


# ---- 6. sets of choices in R's notation for R callers --------------------------------------


def test_r_callers_read_r_notation_for_sets():
    error = _messages.value_error(
        "which.sensitivity must be one of {'bounded', 'unbounded', 'both'}.")
    assert str(error) == "which_sensitivity must be one of {'bounded', 'unbounded', 'both'}."
    assert _messages.r_text(error) == (
        'which.sensitivity must be one of c("bounded", "unbounded", "both").')
    with_values = _messages.value_error("mode {{'a', 'b'}}, got {value!r}.", value="{'c'}")
    assert str(with_values) == "mode {'a', 'b'}, got \"{'c'}\"."
    assert _messages.r_text(with_values) == "mode c(\"a\", \"b\"), got \"{'c'}\"."


def test_r_notation_through_the_bridge():
    from dppack import _rbridge

    report = _rbridge.call("meanDP", [X[:, 0], 1.0, 0.0, 1.0], {"mechanism": "abc"})
    assert report["error"] == 'Mechanism must be one of c("Laplace", "Gaussian", "analytic").'
    report = _rbridge.call("LogisticRegressionDP", ["l2", 1.0, 1.0],
                           {"perturbation_method": "x"})
    assert report["error"] == "perturbation.method must be one of 'output' or 'objective'."
