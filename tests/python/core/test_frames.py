"""dppack._frames: data of every in-memory kind (NumPy, pandas, polars, pyarrow) through one
conversion layer, and Dask data refused where a function cannot run on Dask (issue 14, part
"frames").

Every public data-taking function is called with its data as NumPy, then as pandas, polars,
pyarrow chunked (a ChunkedArray / a Table of two record batches) and pyarrow unchunked (an
Array / a RecordBatch), with the same ``random_state``: the releases must be exactly equal
(the same values reach the same arithmetic and the same sampler calls), and the caller's data
must be unchanged afterwards. Bad data (nulls, booleans, strings) get the messages NumPy data
get; factors declare their levels as documented in ``_frames``; Dask collections reaching a
function that cannot run on Dask raise the named ``TypeError`` before any budget is charged
and without the data being computed (their only chunk raises if it is ever computed). A
subprocess shows that dppack needs none of polars, pyarrow and Dask.

No test here is randomised beyond fixed seeds: no false failures.
"""

import copy
import dataclasses
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

import dppack  # noqa: E402
from dppack import _backends, _checks, _frames, rcompat  # noqa: E402

KINDS = ["pandas", "polars", "pyarrow", "pyarrow_unchunked"]
NAMES = ["glu", "bmi", "age"]

RNG = np.random.default_rng(20261124)
N = 240
X = RNG.uniform(-1.0, 1.0, (N, 3))
Y01 = (X[:, 0] - 0.5 * X[:, 1] + 0.4 * RNG.normal(size=N) > 0).astype(np.float64)
YREAL = np.clip(0.5 * X[:, 0] - 0.3 * X[:, 2] + 0.1 * RNG.normal(size=N), -1.0, 1.0)
W = RNG.uniform(0.0, 1.0, N)
XV = RNG.uniform(0.0, 1.0, N)
XV2 = np.clip(XV + 0.2 * RNG.normal(size=N), 0.0, 1.0)
FACTOR = np.array(["a", "b", "c"])[RNG.integers(0, 3, N)]
FACTOR2 = np.array(["x", "y"])[RNG.integers(0, 2, N)]


# --------------------------------------------------------------------------------------------
# Inputs of every kind, recorded so that the test can check them afterwards
# --------------------------------------------------------------------------------------------


class Inputs:
    """Makes the inputs of one kind; remembers each with a deep copy to check it later.

    NumPy matrices are made in the memory order in which a frame of ``like`` reaches the
    core (pandas and polars give Fortran order): the same values in the same layout go
    through the same BLAS kernels, so even a user's ``mapXy`` (KST's predict) sees the same
    bits.
    """

    def __init__(self, kind, like=None):
        self.kind = kind
        self.made = []
        self.order = "C"
        if like is not None:
            layout = _frames.as_numeric_array(Inputs(like).frame(X), "").flags
            self.order = "F" if layout.f_contiguous and not layout.c_contiguous else "C"

    def _keep(self, value):
        if self.kind == "numpy" or self.kind == "pandas":
            self.made.append((value, value.copy()))
        elif self.kind == "polars":
            self.made.append((value, value.clone()))
        else:
            self.made.append((value, copy.deepcopy(value)))
        return value

    def vec(self, x, name="x"):
        x = np.asarray(x)
        if self.kind == "numpy":
            return self._keep(x.copy())
        if self.kind == "pandas":
            return self._keep(pd.Series(x, name=name))
        if self.kind == "polars":
            return self._keep(pl.Series(name, x))
        if self.kind == "pyarrow":
            half = x.size // 2
            return self._keep(pa.chunked_array([x[:half], x[half:]]))
        return self._keep(pa.array(x))

    def frame(self, X, names=NAMES):
        names = list(names)[:X.shape[1]]
        if self.kind == "numpy":
            return self._keep(np.array(X, order=self.order))
        if self.kind == "pandas":
            return self._keep(pd.DataFrame(X, columns=names))
        if self.kind == "polars":
            return self._keep(pl.DataFrame(X, schema=names))
        if self.kind == "pyarrow":
            half = X.shape[0] // 2
            batches = [pa.RecordBatch.from_arrays([pa.array(part[:, j]) for j in range(X.shape[1])],
                                                  names=names)
                       for part in (X[:half], X[half:])]
            return self._keep(pa.Table.from_batches(batches))
        return self._keep(pa.RecordBatch.from_arrays([pa.array(X[:, j])
                                                      for j in range(X.shape[1])], names=names))

    def assert_unchanged(self):
        for value, before in self.made:
            if self.kind == "numpy":
                assert np.array_equal(value, before)
            else:
                assert value.equals(before), f"the caller's {type(value).__name__} changed"


def plain(value):
    """A comparable form of a result: arrays, pandas objects, dataclasses, plain objects."""
    if isinstance(value, (pd.Series, pd.DataFrame)):
        return ("pandas", plain(value.to_numpy()), list(map(str, value.index)),
                [str(c) for c in getattr(value, "columns", [])], [value.index.names])
    if isinstance(value, np.ndarray):
        return ("array", value.shape, value.dtype.kind, value.tobytes())
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return plain({f.name: getattr(value, f.name) for f in dataclasses.fields(value)})
    if isinstance(value, float) and value != value:
        return "nan"
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return (type(value).__name__, plain({key: item for key, item in vars(value).items()
                                             if not key.startswith("_")}))
    if isinstance(value, np.generic):
        return value.item()
    return value


# --------------------------------------------------------------------------------------------
# The public data-taking functions, each called with data made by ``inputs``
# --------------------------------------------------------------------------------------------


def _fit(model, inputs, y, upper, lower, **kwargs):
    Xk = inputs.frame(X)
    model.fit(Xk, inputs.vec(y, "y"), upper, lower, random_state=7, **kwargs)
    add_bias = kwargs.get("add_bias", False)
    return model.coeff, model.predict(inputs.frame(X), add_bias=add_bias)


def _stat(name, **kwargs):
    return lambda i: getattr(dppack, name)(i.vec(XV), eps=1.0, lower_bound=0.0, upper_bound=1.0,
                                           random_state=11, **kwargs)


def _histogram_trainer():
    from dppack.model_selection.stability import HistogramTrainer

    return HistogramTrainer()


KST_DOMAIN = {"constraints": lambda c: np.array([c @ c - c.size]),
              "jacobian": lambda c: 2.0 * np.asarray(c)}

CASES = {
    # statistics (DPpack's R/StatFunctions.R)
    "meanDP": _stat("meanDP"),
    "varDP": _stat("varDP"),
    "sdDP": lambda i: dppack.sdDP(i.vec(XV), 0.9, 0.0, 1.0, mechanism="Gaussian", delta=1e-5,
                                  random_state=11),
    "covDP": lambda i: dppack.covDP(i.vec(XV, "a"), i.vec(XV2, "b"), 1.0, 0, 1, 0, 1,
                                    random_state=11),
    "histogramDP": _stat("histogramDP"),
    "quantileDP": lambda i: dppack.quantileDP(i.vec(XV), 0.3, 1.0, 0.0, 1.0, random_state=11),
    "medianDP": _stat("medianDP"),
    "pooledVarDP": lambda i: dppack.pooledVarDP(i.vec(XV[:100]), i.vec(XV[100:]), eps=1.0,
                                                lower_bound=0, upper_bound=1, random_state=11),
    "pooledCovDP": lambda i: dppack.pooledCovDP(
        i.frame(np.column_stack([XV, XV2])[:120]), i.frame(np.column_stack([XV, XV2])[120:]),
        eps=1.0, lower_bound1=0, upper_bound1=1, lower_bound2=0, upper_bound2=1,
        random_state=11),
    "tableDP": lambda i: dppack.tableDP(i.vec(FACTOR, "g"), i.vec(FACTOR2, "h"), eps=1.0,
                                        delta=1e-3, random_state=11),
    # data access (DPpack's R/DataAccess.R)
    "meanDataAccess": lambda i: dppack.meanDataAccess(i.vec(XV), 0, 1),
    "varDataAccess": lambda i: dppack.varDataAccess(i.vec(XV), 0, 1),
    "covDataAccess": lambda i: dppack.covDataAccess(i.vec(XV), i.vec(XV2), 0, 1, 0, 1),
    "histogramDataAccess": lambda i: dppack.histogramDataAccess(i.vec(XV), "Sturges",
                                                                "Laplace"),
    "quantileDataAccess": lambda i: dppack.quantileDataAccess(i.vec(XV), 0.3, 0, 1),
    "pooledVarDataAccess": lambda i: dppack.pooledVarDataAccess(
        [i.vec(XV[:100]), i.vec(XV[100:])], 0, 1, False),
    "pooledCovDataAccess": lambda i: dppack.pooledCovDataAccess(
        [i.frame(np.column_stack([XV, XV2])[:120]), i.frame(np.column_stack([XV, XV2])[120:])],
        0, 1, 0, 1, False),
    "tableDataAccess": lambda i: dppack.tableDataAccess(i.vec(FACTOR, "g"), i.vec(FACTOR2)),
    # mechanisms (DPpack's R/Mechanisms.R)
    "LaplaceMechanism": lambda i: dppack.LaplaceMechanism(i.vec(XV[:5]), 1.0, 1.0,
                                                          random_state=11),
    "GaussianMechanism": lambda i: dppack.GaussianMechanism(i.vec(XV[:5]), 0.9, 1e-5, 1.0,
                                                            random_state=11),
    "ExponentialMechanism": lambda i: dppack.ExponentialMechanism(i.vec(XV[:5]), 1.0, 1.0,
                                                                  random_state=11),
    "ExponentialMechanism_candidates": lambda i: dppack.ExponentialMechanism(
        i.vec(XV[:5]), 1.0, 1.0, candidates=i.vec(np.array(list("abcde"))), random_state=11),
    # models: fit, then predict (DPpack's ERM classes)
    "LogisticRegressionDP": lambda i: _fit(dppack.LogisticRegressionDP("l2", 1.0, 1.0), i, Y01,
                                           [1, 1, 1], [-1, -1, -1], add_bias=True),
    "svmDP": lambda i: _fit(dppack.svmDP("l2", 1.0, 1.0, "output"), i, Y01, [1, 1, 1],
                            [-1, -1, -1], weights=i.vec(W, "w"), weights_upper_bound=1.0),
    "svmDP_gaussian": lambda i: _fit(dppack.svmDP("l2", 1.0, 1.0, kernel="Gaussian", D=10), i,
                                     Y01, [1, 1, 1], [-1, -1, -1]),
    "LinearRegressionDP": lambda i: _fit(dppack.LinearRegressionDP("l2", 1.0, 0.01, 1.0), i,
                                         YREAL, [1, 1, 1, 1], [-1, -1, -1, -1], add_bias=True),
    "WeightedERMDP_CMS": lambda i: _fit(
        dppack.WeightedERMDP_CMS(dppack.mapXy_linear, dppack.generate_loss_huber(0.5), "l2",
                                 1.0, 1.0, "output", mapXy_gr=dppack.mapXy_gr_linear,
                                 loss_gr=dppack.generate_loss_gr_huber(0.5)),
        i, 2.0 * Y01 - 1.0, [1, 1, 1], [-1, -1, -1], weights=i.vec(W),
        weights_upper_bound=1.0),
    "EmpiricalRiskMinimizationDP_KST": lambda i: _fit(
        dppack.EmpiricalRiskMinimizationDP_KST(
            dppack.mapXy_linear, dppack.loss_squared_error, "l2", 1.0, 0.01, KST_DOMAIN, 2.0,
            2.0, 1.0, mapXy_gr=dppack.mapXy_gr_linear, loss_gr=dppack.loss_gr_squared_error),
        i, YREAL, [1, 1, 1, 1], [-1, -1, -1, -1]),
    "GradientPerturbationAGM": lambda i: _fit(dppack.GradientPerturbationAGM(
        "logistic", 1.0, 1e-5, 1.0, iterations=20), i, Y01, [1, 1, 1], [-1, -1, -1]),
    "OutputPerturbationAGM": lambda i: _fit(dppack.OutputPerturbationAGM(
        "logistic", 1.0, 1e-5, 1.0), i, Y01, [1, 1, 1], [-1, -1, -1]),
    # tuning (DPpack's tune_classification_model, tune_linear_regression_model)
    "tune_classification_model": lambda i: dppack.tune_classification_model(
        [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (0.1, 1.0)], i.frame(X),
        i.vec(Y01), [1, 1, 1], [-1, -1, -1], random_state=11).coeff,
    "tune_linear_regression_model": lambda i: dppack.tune_linear_regression_model(
        [dppack.LinearRegressionDP("l2", 1.0, 0.01, g) for g in (0.1, 1.0)], i.frame(X),
        i.vec(YREAL), [1, 1, 1, 1], [-1, -1, -1, -1], random_state=11).coeff,
    # the research methods
    "confintERM": lambda i: dppack.confintERM(i.frame(X), i.vec(Y01), [1, 1, 1], [-1, -1, -1],
                                              gamma=1.0, eps=2.0, add_bias=True, n_draws=200,
                                              random_state=11),
    "confintDP": lambda i: dppack.confintDP(dppack.LogisticRegressionDP("l2", 2.0, 1.0, "output"),
                                            i.frame(X), i.vec(Y01), [1, 1, 1], [-1, -1, -1],
                                            rho=1.0, random_state=11),
    "accuracy_first_erm": lambda i: dppack.accuracy_first_erm(
        i.frame(X), i.vec(Y01), "logistic", 0.1, 0.5, [1, 1, 1], [-1, -1, -1], n_levels=20,
        calibration="tuned", random_state=11),
    "doubling_erm": lambda i: dppack.doubling_erm(i.frame(X), i.vec(YREAL), "ridge", 0.1, 0.5,
                                                  [1, 1, 1, 1], [-1, -1, -1, -1],
                                                  random_state=11),
    "theory_erm": lambda i: dppack.theory_erm(i.frame(X), i.vec(Y01), "logistic", 0.1, 0.5,
                                              [1, 1, 1], [-1, -1, -1], random_state=11),
    "tune_classification_model_stable": lambda i: dppack.tune_classification_model_stable(
        [dppack.svmDP("l2", 1.0, g, "output") for g in (1.0, 10.0)], i.frame(X), i.vec(Y01),
        [1, 1, 1], [-1, -1, -1], eps_select=1.0, random_state=11).coeff,
    "tune_histogram_bin_width_stable": lambda i: dppack.tune_histogram_bin_width_stable(
        i.vec(XV), [0.25, 0.1], 1.0, 1.0, random_state=11),
    "stable_select": lambda i: dppack.stable_select(i.vec(-XV[:4]), 0.01, 1.0, random_state=11),
    "LaplaceNoiseReduction": lambda i: dppack.LaplaceNoiseReduction(i.vec(XV[:3]), [0.5, 1.0],
                                                                    1.0, random_state=11),
    "GaussianNoiseReduction": lambda i: dppack.GaussianNoiseReduction(
        i.vec(XV[:3]), i.vec([4.0, 1.0]), 1.0, random_state=11),
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_same_release_as_numpy(case, kind):
    """The same random_state gives exactly the NumPy release; the caller's data unchanged."""
    expected = CASES[case](Inputs("numpy", like=kind))
    inputs = Inputs(kind)
    got = CASES[case](inputs)
    assert plain(got) == plain(expected) or _same_but_names(case, got, expected)
    inputs.assert_unchanged()


def _unlabelled(value):
    """The values of a pandas result without its index and names."""
    return plain(value.to_numpy() if isinstance(value, (pd.Series, pd.DataFrame)) else value)


def _same_but_names(case, got, expected):
    """Results that carry the frame's names (a table's dimnames, intervals' coefficient
    names, a pandas index) agree once the names are set aside: their own tests check them."""
    if case in ("tableDP", "tableDataAccess", "LaplaceMechanism", "GaussianMechanism"):
        if isinstance(got, dict):
            return ({key: _unlabelled(value) for key, value in got.items()}
                    == {key: _unlabelled(value) for key, value in expected.items()})
        return _unlabelled(got) == _unlabelled(expected)
    if case in ("confintERM", "confintDP"):
        return ({**plain(got), "names": None} == {**plain(expected), "names": None}
                and expected.names[-3:] == ["x1", "x2", "x3"] and got.names[-3:] == NAMES)
    return False


@pytest.mark.parametrize("kind", ["polars", "pyarrow", "pyarrow_unchunked"])
def test_column_names_reach_coefficient_names(kind):
    ci = CASES["confintERM"](Inputs(kind))
    assert ci.names == ["(Intercept)", *NAMES]
    assert CASES["confintERM"](Inputs("numpy")).names == ["(Intercept)", "x1", "x2", "x3"]


@pytest.mark.parametrize("kind", ["polars"])
def test_factor_names_reach_dimnames(kind):
    table = dppack.tableDataAccess(pl.Series("g", FACTOR), pl.Series(FACTOR2))["True.Values"]
    assert table.index.name == "g" and table.columns.name is None  # polars' "" is no name


# --------------------------------------------------------------------------------------------
# scikit-learn estimators
# --------------------------------------------------------------------------------------------


def _sklearn_cases():
    dps = pytest.importorskip("dppack.sklearn")
    bounds = {"feature_bounds": (-1, 1)}
    return {
        "DPLogisticRegression": (lambda: dps.DPLogisticRegression(**bounds, random_state=3),
                                 Y01),
        "DPLinearSVC": (lambda: dps.DPLinearSVC(**bounds, random_state=3), Y01),
        "DPSVC": (lambda: dps.DPSVC(D=10, random_state=3), Y01),
        "DPLinearRegression": (lambda: dps.DPLinearRegression(
            **bounds, y_bounds=(-1, 1), delta=1e-5, random_state=3), YREAL),
        "DPModelSelector": (lambda: dps.DPModelSelector(
            [dps.DPLogisticRegression(**bounds, gamma=g) for g in (0.1, 1.0)],
            random_state=3), Y01),
    }


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("name", ["DPLogisticRegression", "DPLinearSVC", "DPSVC",
                                  "DPLinearRegression", "DPModelSelector"])
def test_sklearn_same_fit_as_numpy(name, kind):
    make, y = _sklearn_cases()[name]
    X_like = Inputs("numpy", like=kind).frame(X)  # the layout in which X reaches the core
    expected = make().fit(X_like, y)
    inputs = Inputs(kind)
    got = make().fit(inputs.frame(X), inputs.vec(y, "y"))
    assert np.array_equal(got.predict(inputs.frame(X)), expected.predict(X_like))
    best = getattr(got, "best_estimator_", got)
    if hasattr(best, "coef_"):
        assert np.array_equal(best.coef_, getattr(expected, "best_estimator_", expected).coef_)
    if kind not in ("numpy", "pyarrow_unchunked"):
        assert list(got.feature_names_in_) == NAMES
    inputs.assert_unchanged()


# --------------------------------------------------------------------------------------------
# Bad data: the messages NumPy data get
# --------------------------------------------------------------------------------------------

BAD_X_CALLS = {
    "meanDP": (lambda x: dppack.meanDP(x, 1.0, 0, 1, random_state=1), "x"),
    "quantileDP": (lambda x: dppack.quantileDP(x, 0.5, 1.0, 0, 1, random_state=1), "x"),
    "varDataAccess": (lambda x: dppack.varDataAccess(x, 0, 1), "x"),
}


def _message(call, value):
    with pytest.raises(ValueError) as error:
        call(value)
    return str(error.value)


@pytest.mark.parametrize("name", sorted(BAD_X_CALLS))
@pytest.mark.parametrize("make", [pl.Series, pa.array, lambda v: pa.chunked_array([v])],
                         ids=["polars", "pyarrow", "pyarrow_chunked"])
def test_nulls_booleans_and_strings_in_a_vector(name, make):
    call, arg = BAD_X_CALLS[name]
    assert _message(call, make([0.5, None])) == f"{arg} must be finite (no NA, NaN or Inf)."
    assert _message(call, make([1, None])) == _message(call, np.array([1.0, np.nan]))
    assert _message(call, make([True, False])) == _message(call, np.array([True, False]))
    assert _message(call, make(["a", "b"])) == f"{arg} must be numeric."


@pytest.mark.parametrize("frame", ["polars", "pyarrow"])
def test_bad_columns_of_a_design_matrix(frame):
    model = dppack.LogisticRegressionDP("l2", 1.0, 1.0)
    make = pl.DataFrame if frame == "polars" else pa.table

    def fit(X):
        model.fit(X, [0.0, 1.0], [1, 1], [-1, -1], random_state=1)

    assert _message(fit, make({"a": [0.5, None], "b": [0.1, 0.2]})) == \
        "X must be finite (no NA, NaN or Inf)."
    # a Boolean column among floats is not numeric (polars would cast it to 0/1)
    numeric = "X must be a numeric matrix or data frame."
    assert _message(fit, make({"a": [0.5, 0.1], "b": [True, False]})) == numeric
    assert _message(fit, make({"a": [0.5, 0.1], "b": ["u", "v"]})) == numeric
    assert _message(fit, pd.DataFrame({"a": [0.5, 0.1], "b": ["u", "v"]})) == numeric
    y_null = pl.Series([0.0, None]) if frame == "polars" else pa.array([0.0, None])
    with pytest.raises(ValueError, match=r"^y must be finite \(no NA, NaN or Inf\)\.$"):
        model.fit(make({"a": [0.5, 0.1]}), y_null, [1], [-1], random_state=1)


def test_integers_decimals_and_unsigned_columns_are_numbers():
    import decimal

    table = pa.table({"i": pa.array([1, 2], pa.int8()), "u": pa.array([3, 4], pa.uint64()),
                      "d": pa.array([decimal.Decimal("0.5"), decimal.Decimal("1.5")])})
    assert _frames.as_numeric_array(table, "m").tolist() == [[1, 3, 0.5], [2, 4, 1.5]]
    assert _frames.as_numeric_array(pl.Series([1, None], dtype=pl.UInt16), "m")[1] != \
        _frames.as_numeric_array(pl.Series([1, None], dtype=pl.UInt16), "m")[1]  # NaN


def test_lazy_frame_refused_with_advice():
    lazy = pl.DataFrame({"x": XV}).lazy()
    with pytest.raises(TypeError, match=r"collect it first \(lazy_frame\.collect\(\)\)"):
        dppack.meanDP(lazy, 1.0, 0, 1)
    with pytest.raises(TypeError, match="LazyFrame"):
        dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(lazy, Y01, [1], [-1])


def test_vector_shape_checks_see_frames():
    """varDP and covDP refuse a matrix (DPpack's is.vector): frames of two columns too."""
    for two_columns in (pl.DataFrame({"a": XV, "b": XV2}), pa.table({"a": XV, "b": XV2})):
        with pytest.raises(ValueError, match=r"^x must be a numeric vector\.$"):
            dppack.varDP(two_columns, 1.0, 0, 1)
    assert _checks.r_length(pa.array([1.0, 2.0])) == 2
    assert _checks.r_length(pl.DataFrame({"a": [1.0], "b": [2.0]})) == 2


# --------------------------------------------------------------------------------------------
# Factors
# --------------------------------------------------------------------------------------------

LEVELS = ["a", "b", "c", "d"]  # "d" never occurs


def test_declared_levels_polars_enum_and_pyarrow_dictionary():
    expected = dppack.tableDP(pd.Categorical(FACTOR, categories=LEVELS), random_state=5)
    assert list(expected.index) == LEVELS
    enum = pl.Series("g", FACTOR, dtype=pl.Enum(LEVELS))
    dictionary = pa.DictionaryArray.from_arrays(
        pa.array([LEVELS.index(v) for v in FACTOR], pa.int32()), pa.array(LEVELS))
    chunked = pa.chunked_array([dictionary[:100], dictionary[100:]])
    for factor in (enum, dictionary, chunked):
        assert rcompat._factor.has_declared_levels(factor)
        got = dppack.tableDP(factor, random_state=5)  # declared: no delta needed
        assert np.array_equal(got.to_numpy(), expected.to_numpy())
        assert list(got.index) == LEVELS
    assert dppack.tableDP(enum, random_state=5).index.name == "g"


def test_polars_categorical_does_not_declare_levels():
    categorical = pl.Series("g", FACTOR, dtype=pl.Categorical)
    assert not rcompat._factor.has_declared_levels(categorical)
    with pytest.raises(ValueError, match="Declare the levels"):
        dppack.tableDP(categorical, random_state=5)  # undeclared levels need delta > 0
    got = dppack.tableDataAccess(categorical)["True.Values"]
    assert list(got.index) == ["a", "b", "c"]
    assert np.array_equal(got.to_numpy(),
                          dppack.tableDataAccess(list(FACTOR))["True.Values"].to_numpy())


@pytest.mark.parametrize("factor", [
    pl.Series(["a", None]), pl.Series(["a", None], dtype=pl.Enum(["a", "b"])),
    pa.array(["a", None]), pa.array(["a", None]).dictionary_encode(), pl.Series([1, None]),
], ids=["polars_str", "polars_enum", "pyarrow_str", "pyarrow_dictionary", "polars_int"])
def test_missing_values_in_factors_refused(factor):
    with pytest.raises(ValueError, match="Factors must not contain missing values"):
        dppack.tableDataAccess(factor)


def test_numeric_factor_levels_as_numpy():
    values = np.array([3, 1, 3, 2])
    for factor in (pl.Series(values), pa.array(values), pa.chunked_array([values])):
        assert rcompat._factor.factorize(factor)[1] == rcompat._factor.factorize(values)[1] == [1, 2, 3]


# --------------------------------------------------------------------------------------------
# Dask: refused by the functions that cannot run on it, before any charge, never computed
# --------------------------------------------------------------------------------------------


def _dask_data(shape):
    """A Dask array whose only chunk raises if it is ever computed."""
    da = pytest.importorskip("dask.array")
    import dask

    def boom():
        raise AssertionError("the Dask data were computed")

    return da.from_delayed(dask.delayed(boom)(), shape=shape, dtype=np.float64)


REFUSALS = {
    "LaplaceMechanism": lambda d, a: dppack.LaplaceMechanism(d((5,)), 1.0, 1.0, accountant=a),
    "GaussianMechanism": lambda d, a: dppack.GaussianMechanism(d((5,)), 1.0, 1e-5, 1.0,
                                                               accountant=a),
    "ExponentialMechanism": lambda d, a: dppack.ExponentialMechanism(d((5,)), 1.0, 1.0,
                                                                     accountant=a),
    "tune_classification_model": lambda d, a: dppack.tune_classification_model(
        [dppack.LogisticRegressionDP("l2", 1.0, 1.0)] * 2, d((N, 3)), Y01, [1] * 3, [-1] * 3,
        accountant=a),
    "tune_linear_regression_model": lambda d, a: dppack.tune_linear_regression_model(
        [dppack.LinearRegressionDP("l2", 1.0, 0.01, 1.0)] * 2, X, d((N,)), [1] * 4, [-1] * 4,
        accountant=a),
    "confintERM": lambda d, a: dppack.confintERM(d((N, 3)), Y01, [1] * 3, [-1] * 3, 1.0,
                                                 eps=1.0, accountant=a),
    "confintDP": lambda d, a: dppack.confintDP(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X,
                                               d((N,)), [1] * 3, [-1] * 3, accountant=a),
    "accuracy_first_erm": lambda d, a: dppack.accuracy_first_erm(
        d((N, 3)), Y01, "logistic", 0.1, 0.5, [1] * 3, [-1] * 3, accountant=a),
    "doubling_erm": lambda d, a: dppack.doubling_erm(d((N, 3)), YREAL, "ridge", 0.1, 0.5,
                                                     [1] * 4, [-1] * 4, accountant=a),
    "theory_erm": lambda d, a: dppack.theory_erm(d((N, 3)), Y01, "logistic", 0.1, 0.5,
                                                 [1] * 3, [-1] * 3, accountant=a),
    "tune_classification_model_stable": lambda d, a: dppack.tune_classification_model_stable(
        [dppack.svmDP("l2", 1.0, 1.0, "output")] * 2, d((N, 3)), Y01, [1] * 3, [-1] * 3,
        eps_select=1.0, accountant=a),
    "tune_histogram_bin_width_stable": lambda d, a: dppack.tune_histogram_bin_width_stable(
        d((N,)), [0.25, 0.1], 1.0, 1.0, accountant=a),
    "validate_stable": lambda d, a: dppack.validate_stable(
        [0.5, 0.25], _histogram_trainer(), d((200,)), XV[200:], 1.0, 1.0, accountant=a),
    "tune_stable": lambda d, a: dppack.tune_stable(
        [0.5, 0.25], _histogram_trainer(), XV[:200], d((40,)), 1.0, 1.0, accountant=a),
    "stable_select": lambda d, a: dppack.stable_select(d((4,)), 0.01, 1.0, accountant=a),
    "LaplaceNoiseReduction": lambda d, a: dppack.LaplaceNoiseReduction(d((3,)), [0.5, 1.0], 1.0,
                                                                       accountant=a),
    "LaplaceNoiseReductionOnline": lambda d, a: dppack.LaplaceNoiseReductionOnline(
        d((3,)), [0.5, 1.0], 1.0, accountant=a),
    "GaussianNoiseReduction": lambda d, a: dppack.GaussianNoiseReduction(d((3,)), [4.0, 1.0],
                                                                         1.0, accountant=a),
    "GradientPerturbationAGM.fit": lambda d, a: dppack.GradientPerturbationAGM(
        "logistic", 1.0, 1e-5, 1.0).fit(d((N, 3)), Y01, [1] * 3, [-1] * 3, accountant=a),
    "OutputPerturbationAGM.fit": lambda d, a: dppack.OutputPerturbationAGM(
        "logistic", 1.0, 1e-5, 1.0).fit(X, d((N,)), [1] * 3, [-1] * 3, accountant=a),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_dask_refused_by_name_before_any_charge(name):
    accountant = dppack.BudgetAccountant(100.0, 0.5)
    message = (f"{name} does not run on Dask data: compute it into memory (x.compute()) if it "
               "fits, or use a statistic or model that runs on Dask (see dppack.dask).")
    with pytest.raises(TypeError) as error:
        REFUSALS[name](_dask_data, accountant)
    assert str(error.value) == message
    assert accountant.ledger == [] or len(accountant.ledger) == 0


@pytest.mark.parametrize("name", ["DPLogisticRegression", "DPLinearSVC", "DPSVC",
                                  "DPLinearRegression", "DPModelSelector"])
def test_dask_refused_by_the_sklearn_estimators(name):
    make, y = _sklearn_cases()[name]
    accountant = dppack.BudgetAccountant(100.0, 0.5)
    estimator = make().set_params(accountant=accountant)
    with pytest.raises(TypeError, match=rf"^{name}\.fit does not run on Dask data"):
        estimator.fit(_dask_data((N, 3)), y)
    assert len(accountant.ledger) == 0
    estimator.fit(X, y)
    with pytest.raises(TypeError, match=r"\.(predict|decision_function) does not run on Dask"):
        estimator.predict(_dask_data((N, 3)))


def test_dask_reaching_the_numeric_conversion_is_refused_not_computed():
    with pytest.raises(TypeError, match=r"^This function does not run on Dask data"):
        _frames.as_numeric_array(_dask_data((4,)), "x must be numeric.")
    dd = pytest.importorskip("dask.dataframe")
    frame = dd.from_pandas(pd.DataFrame({"a": XV}), npartitions=3)
    assert _backends.is_dask(frame) and _backends.is_dask(frame["a"])
    with pytest.raises(TypeError, match="^confintERM does not run on Dask data"):
        _backends.refuse_dask("confintERM", [X, frame])  # inside a list of samples too


# --------------------------------------------------------------------------------------------
# No hard dependency on polars, pyarrow or Dask
# --------------------------------------------------------------------------------------------

BLOCKED = textwrap.dedent("""
    import importlib.abc, sys

    class Block(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in ("polars", "pyarrow", "dask"):
                raise ModuleNotFoundError(f"No module named {name!r} (blocked)", name=name)
            return None

    sys.meta_path.insert(0, Block())
    import numpy as np, pandas as pd
    import dppack, dppack.sklearn
    x = np.linspace(0, 1, 50)
    a = dppack.meanDP(x, 1.0, 0, 1, random_state=3)
    assert a == dppack.meanDP(pd.Series(x), 1.0, 0, 1, random_state=3)
    X = np.column_stack([x, x[::-1]])
    m = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit
    dppack.tableDP(pd.Categorical(["a", "b"], categories=["a", "b"]), random_state=1)
    ci = dppack.confintERM(pd.DataFrame(X, columns=["u", "v"]), (x > 0.5).astype(float),
                           [1, 1], [0, 0], 1.0, eps=1.0, n_draws=50, random_state=1)
    assert ci.names == ["u", "v"], ci.names
    assert not any(n.partition(".")[0] in ("polars", "pyarrow", "dask") for n in sys.modules)

    class FakeDask:  # what a Dask collection looks like to dppack, without Dask
        __module__ = "dask.array.core"
        shape = (50,)

    try:
        dppack.confintERM(FakeDask(), x, [1], [0], 1.0, eps=1.0)
    except TypeError as error:
        assert str(error).startswith("confintERM does not run on Dask data"), error
    else:
        raise AssertionError("no refusal")
    calls = [lambda: __import__("dppack.dask"),
             lambda: dppack.meanDP(FakeDask(), 1.0, 0, 1),
             lambda: dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(FakeDask(), x, [1], [0])]
    for call in calls:  # Dask data go to dppack.dask, whose import names the extra
        try:
            call()
        except ImportError as error:
            assert "pip install 'dppack[dask]'" in str(error), error
        else:
            raise AssertionError("dppack.dask imported without Dask")
    print("ok")
""")


def test_no_hard_dependency_on_polars_pyarrow_dask():
    done = subprocess.run([sys.executable, "-c", BLOCKED], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_import_dppack_imports_no_optional_library():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, dppack; print(sorted({n.partition('.')[0] for n in "
         "sys.modules} & {'polars', 'pyarrow', 'dask', 'narwhals'}))"],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
