"""Every public release of ``dppack.__all__``, recorded bit for bit (issue 27's refactor check).

``cases()`` maps ``"<public name>:<variant>"`` to a function of ``random_state``; the part
before the colon is the name of ``dppack.__all__`` the case covers (``test_bit_identical``
checks that each release in ``__all__`` has one). ``record_case`` runs a case for the seeds
of ``SEEDS`` and for a shared Generator (two calls and the state it is left in), with the
summaries of ``fast_path_cases`` (floats as ``float.hex``), extended to the result objects
(fitted models, intervals, accuracy-first results). ``scripts/record-releases.py --all``
writes ``releases/data/releases_expected.json``. Data are small (80 to 200 rows): all the cases
run in about 2 s.
"""

import dataclasses
import os
import platform

import numpy as np
import pandas as pd

import dppack as d
import fast_path_cases
from fast_path_cases import _summary as _plain_summary

SEEDS = (3, 2**33 + 1)
GENERATOR_SEED = 2027

# names of dppack.__all__ that release nothing drawn at random: classes of results, errors and
# accounting, and the abstract trainer of the stability tuning
NON_RELEASES = frozenset({
    "AccuracyFirstResult", "BudgetAccountant", "BudgetExceededError", "ConvergenceError",
    "NearUniformSelectionWarning",
    "NoiseInterval", "PrivacyLoss", "StabilitySelectionDiagnosis", "StableTrainer",
})



def _data():
    rng = np.random.default_rng(20270101)
    x = rng.uniform(0.0, 1.0, 120)
    X = rng.uniform(-1.0, 1.0, (80, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] + rng.normal(0, 0.3, 80) > 0).astype(int)
    yr = np.clip(0.5 * X[:, 0] - 0.25 * X[:, 1] + rng.normal(0, 0.1, 80), -1, 1)
    return x, X, y, yr


def _summary(value, depth=0):
    """``fast_path_cases._summary``, with result objects as their public data attributes."""
    if isinstance(value, d.PrivacyLoss):
        return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _summary(getattr(value, f.name), depth + 1)
                for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple)):
        return [_summary(v, depth + 1) for v in value]
    if isinstance(value, dict):
        return {str(k): _summary(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (np.integer, np.floating, np.ndarray, int, float, str, bool,
                          np.bool_, pd.Series, pd.DataFrame, d.rcompat.Histogram)):
        if isinstance(value, np.ndarray) and value.dtype == object:
            return [_summary(v, depth + 1) for v in value.tolist()]
        return _plain_summary(value)
    if value is None:
        return None
    if hasattr(value, "__dict__") and depth < 3:
        out = {"type": type(value).__name__}
        for key, item in sorted(vars(value).items()):
            if key.startswith("_") or callable(item) or isinstance(item, np.random.Generator):
                continue
            out[key] = _summary(item, depth + 1)
        return out
    text = repr(value)
    return {"type": type(value).__name__, "repr": text if " at 0x" not in text else ""}


def _fitted(model, X, *fit_args, **fit_kwargs):
    """A model's fitted coefficients, its predictions on ``X``, and its privacy loss."""
    model.fit(X, *fit_args, **fit_kwargs)
    out = {"coeff": model.coeff, "predict": model.predict(X)}
    if hasattr(model, "privacy_"):
        out["privacy"] = model.privacy_
    return out


def cases():
    x, X, y, yr = _data()
    x2 = x[::-1].copy()
    ub, lb = [1.0, 1.0], [-1.0, -1.0]
    fa = pd.Categorical(list("abacbaabca"), categories=["a", "b", "c"])
    fb = pd.Categorical(list("uuvvuuvuvu"), categories=["u", "v"])
    samples = (x[:40], x[40:90], x[90:])
    t = np.arange(200)
    Xk = 0.5 * np.column_stack([np.sin(t), np.cos(1.7 * t)])
    yk = np.clip(Xk @ [1.0, -0.5] + 0.1 * np.sin(3.1 * t), -1, 1)
    ball = {"constraints": lambda c: np.dot(c, c) - 1.0,
            "jacobian": lambda c: 2.0 * np.asarray(c)}

    def erm_cms(cls, method, **kw):
        def fit(rs):
            model = cls(d.mapXy_sigmoid, d.loss_cross_entropy, "l2", 1.0, 0.5,
                        perturbation_method=method, mapXy_gr=d.mapXy_gr_sigmoid,
                        loss_gr=d.loss_gr_cross_entropy)
            return _fitted(model, X, y, ub, lb, random_state=rs, **kw)
        return fit

    def kst(rs):
        model = d.EmpiricalRiskMinimizationDP_KST(
            d.mapXy_linear, d.loss_squared_error, "l2", eps=1.0, delta=0.0, domain=ball,
            zeta=1.25, lambda_=0.5, gamma=1.0, mapXy_gr=d.mapXy_gr_linear,
            loss_gr=d.loss_gr_squared_error)
        return _fitted(model, Xk, yk, [0.5, 0.5, 1.0], [-0.5, -0.5, -1.0], random_state=rs)

    def interactive(rs):
        above = d.InteractiveAboveThreshold(np.array([3.0, 9.0, 40.0, 80.0]), eps=1.0,
                                            threshold=30.0, sensitivity=1.0, random_state=rs)
        answers = [above.query(lambda data, i=i: data[i]) for i in range(3)]
        return {"answers": answers, "halt": above.halt_index, "privacy": above.privacy_}

    def online(rs):
        run = d.LaplaceNoiseReductionOnline([5.0, 1.0], eps=0.1, sensitivity=1.0,
                                            random_state=rs)
        first = np.array(run.release, copy=True)
        return {"first": first, "second": run.reduce(0.5), "third": run.reduce(2.0),
                "levels": run.levels, "privacy": run.privacy_}

    def noise_interval(statistic, **kw):
        def release(rs):
            # a report is data-free; random_state is not an argument of it
            return d.noiseIntervalDP(statistic, **kw)
        return release

    def trainer_hist():
        from dppack.model_selection.stability import HistogramTrainer
        return HistogramTrainer()

    def dask_case(fn):
        def run(rs):
            import dask
            import dask.array as da

            with dask.config.set(scheduler="synchronous"):
                return fn(rs, da)
        return run

    return {
        # mechanisms
        "LaplaceMechanism:vector": lambda rs: d.LaplaceMechanism([1.0, 2.5], 0.8, [1.0, 2.0],
                                                                 random_state=rs),
        "GaussianMechanism:analytic": lambda rs: d.GaussianMechanism(
            [1.0, -2.0], 1.5, 1e-6, [0.3, 0.4], analytic=True, random_state=rs),
        "GaussianMechanism:pdp": lambda rs: d.GaussianMechanism(0.5, 0.5, 1e-5, 1.0, "pDP",
                                                                random_state=rs),
        "ExponentialMechanism:index": lambda rs: d.ExponentialMechanism(
            [1.0, 5.0, 2.0, 4.5], eps=1.0, sensitivity=1.0, random_state=rs),
        "ExponentialMechanism:candidates": lambda rs: d.ExponentialMechanism(
            [1.0, 5.0, 2.0], 2.0, 1.0, measure=[1.0, 2.0, 1.0], candidates=["a", "b", "c"],
            random_state=rs),
        "calibrateAnalyticGaussianMechanism:one": lambda rs:
            d.calibrateAnalyticGaussianMechanism(1.0, 1e-5, 2.0),
        # statistics
        "meanDP:gauss_unbounded": lambda rs: d.meanDP(x, 0.6, 0, 1, "unbounded", "Gaussian",
                                                      1e-5, random_state=rs),
        "varDP:unbounded": lambda rs: d.varDP(x, 1.0, 0, 1, "unbounded", random_state=rs),
        "sdDP:gauss": lambda rs: d.sdDP(x, 0.5, 0, 1, mechanism="Gaussian", delta=1e-5,
                                        random_state=rs),
        "covDP:unbounded": lambda rs: d.covDP(x, x2, 1.0, 0, 1, 0, 1, "unbounded",
                                              random_state=rs),
        "covDP:gauss": lambda rs: d.covDP(x, x2, 0.5, 0, 1, 0, 1, mechanism="Gaussian",
                                          delta=1e-5, random_state=rs),
        "pooledVarDP:bounded": lambda rs: d.pooledVarDP(*samples, eps=1.0, lower_bound=0,
                                                        upper_bound=1, random_state=rs),
        "pooledVarDP:gauss_approx": lambda rs: d.pooledVarDP(
            *samples, eps=0.5, lower_bound=0, upper_bound=1, mechanism="Gaussian",
            delta=1e-5, approx_n_max=True, random_state=rs),
        "pooledCovDP:bounded": lambda rs: d.pooledCovDP(
            np.column_stack([x[:60], x2[:60]]), np.column_stack([x[60:], x2[60:]]), eps=1.0,
            lower_bound1=0, upper_bound1=1, lower_bound2=0, upper_bound2=1, random_state=rs),
        "histogramDP:bounded": lambda rs: d.histogramDP(x, 1.0, 0, 1, breaks=6,
                                                        random_state=rs),
        "histogramDP:gauss_normalize": lambda rs: d.histogramDP(
            x, 0.5, 0, 1, normalize=True, mechanism="Gaussian", delta=1e-5, random_state=rs),
        "tableDP:two": lambda rs: d.tableDP(fa, fb, eps=1.0, which_sensitivity="unbounded",
                                            random_state=rs),
        "tableDP:gauss": lambda rs: d.tableDP(fa, eps=0.5, mechanism="Gaussian", delta=1e-5,
                                              allow_negative=True, random_state=rs),
        "quantileDP:unbounded": lambda rs: d.quantileDP(x, 0.3, 1.0, 0, 1, "unbounded",
                                                        random_state=rs),
        "quantileDP:resolution": lambda rs: d.quantileDP(x, 0.7, 1.0, 0, 1, random_state=rs,
                                                         resolution=0.01),
        "medianDP:bounded": lambda rs: d.medianDP(x, 1.0, 0, 1, random_state=rs),
        "quantilesDP:recursive": lambda rs: d.quantilesDP(x, [0.25, 0.5, 0.75], 1.0, 0, 1,
                                                          random_state=rs),
        "quantilesDP:joint": lambda rs: d.quantilesDP(x, [0.1, 0.9], 1.0, 0, 1,
                                                      method="joint", random_state=rs),
        "boundsDP:default": lambda rs: d.boundsDP(np.exp(3 * x), 1.0, random_state=rs),
        # data access (deterministic)
        "meanDataAccess:x": lambda rs: d.meanDataAccess(x, 0, 1),
        "varDataAccess:x": lambda rs: d.varDataAccess(x, 0, 1),
        "covDataAccess:x": lambda rs: d.covDataAccess(x, x2, 0, 1, 0, 1),
        "histogramDataAccess:x": lambda rs: d.histogramDataAccess(x, "Sturges", "Laplace"),
        "tableDataAccess:x": lambda rs: d.tableDataAccess(fa, fb, mechanism="Gaussian"),
        "quantileDataAccess:x": lambda rs: d.quantileDataAccess(x, 0.4, 0, 1),
        "pooledVarDataAccess:x": lambda rs: d.pooledVarDataAccess(samples, 0, 1, False),
        "pooledCovDataAccess:x": lambda rs: d.pooledCovDataAccess(
            (np.column_stack([x[:60], x2[:60]]), np.column_stack([x[60:], x2[60:]])),
            0, 1, 0, 1, False),
        # ERM building blocks (deterministic, except generate_sampling's draws)
        "loss_cross_entropy:x": lambda rs: d.loss_cross_entropy(x[:5], y[:5]),
        "loss_gr_cross_entropy:x": lambda rs: d.loss_gr_cross_entropy(x[:5], y[:5]),
        "loss_squared_error:x": lambda rs: d.loss_squared_error(x[:5], yr[:5]),
        "loss_gr_squared_error:x": lambda rs: d.loss_gr_squared_error(x[:5], yr[:5]),
        "generate_loss_huber:x": lambda rs: d.generate_loss_huber(0.5)(x[:5] - 0.5, y[:5]),
        "generate_loss_gr_huber:x": lambda rs: d.generate_loss_gr_huber(0.5)(x[:5] - 0.5,
                                                                            y[:5]),
        "mapXy_linear:x": lambda rs: d.mapXy_linear(X[:4], [0.5, -1.0]),
        "mapXy_gr_linear:x": lambda rs: d.mapXy_gr_linear(X[:4], [0.5, -1.0]),
        "mapXy_sigmoid:x": lambda rs: d.mapXy_sigmoid(X[:4], [0.5, -1.0]),
        "mapXy_gr_sigmoid:x": lambda rs: d.mapXy_gr_sigmoid(X[:4], [0.5, -1.0]),
        "regularizer_l2:x": lambda rs: d.regularizer_l2([0.5, -1.0, 2.0]),
        "regularizer_gr_l2:x": lambda rs: d.regularizer_gr_l2([0.5, -1.0, 2.0]),
        "phi_gaussian:x": lambda rs: d.phi_gaussian(X[:4], [1.0, 0.5, 0.25]),
        "generate_sampling:seeded": lambda rs: d.generate_sampling(0.5)(
            2, np.random.default_rng(rs) if isinstance(rs, int) else rs, size=3),
        # ERM models: coefficients and predictions
        "LogisticRegressionDP:objective_bias": lambda rs: _fitted(
            d.LogisticRegressionDP("l2", 1.0, 0.5), X, y, ub, lb, add_bias=True,
            random_state=rs),
        "LogisticRegressionDP:output": lambda rs: _fitted(
            d.LogisticRegressionDP("l2", 1.0, 1.0, "output"), X, y, ub, lb, random_state=rs),
        "LinearRegressionDP:bias": lambda rs: _fitted(
            d.LinearRegressionDP("l2", 1.0, 1e-5, 1.0), X, yr, [1.0, 1.0, 1.0],
            [-1.0, -1.0, -1.0], add_bias=True, random_state=rs),
        "svmDP:output": lambda rs: _fitted(d.svmDP("l2", 1.0, 1.0, "output"), X, y, ub, lb,
                                           random_state=rs),
        "svmDP:gaussian_kernel": lambda rs: _fitted(
            d.svmDP("l2", 1.0, 1.0, kernel="Gaussian", D=10, kernel_param=0.5), (X + 1) / 2,
            y, random_state=rs),
        "EmpiricalRiskMinimizationDP_CMS:output": erm_cms(d.EmpiricalRiskMinimizationDP_CMS,
                                                          "output"),
        "WeightedERMDP_CMS:output": lambda rs: _fitted(
            d.WeightedERMDP_CMS(d.mapXy_linear, d.generate_loss_huber(0.5), "l2", 1.0, 10.0,
                                perturbation_method="output", mapXy_gr=d.mapXy_gr_linear,
                                loss_gr=d.generate_loss_gr_huber(0.5)),
            X, 2.0 * y - 1.0, ub, lb, weights=np.linspace(0.5, 1.5, 80),
            weights_upper_bound=1.5, random_state=rs),
        "EmpiricalRiskMinimizationDP_KST:ball": kst,
        "LinearRegressionAdaSSP:pure": lambda rs: _fitted(
            d.LinearRegressionAdaSSP(1.0), X, yr, [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0],
            add_bias=True, random_state=rs),
        "LinearRegressionAdaSSP:approx": lambda rs: _fitted(
            d.LinearRegressionAdaSSP(1.0, 1e-5), X, yr, [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0],
            random_state=rs),
        "OutputPerturbationAGM:logistic": lambda rs: _fitted(
            d.OutputPerturbationAGM("logistic", 1.0, 1e-5, 1.0, iterations=50), X, y, ub, lb,
            random_state=rs),
        "GradientPerturbationAGM:logistic": lambda rs: _fitted(
            d.GradientPerturbationAGM("logistic", 1.0, 1e-5, 1.0, iterations=20), X, y, ub,
            lb, random_state=rs),
        "tune_classification_model:logistic": lambda rs: _fitted(
            d.tune_classification_model(
                [d.LogisticRegressionDP("l2", 0.5, g, "output") for g in (0.1, 10.0)], X, y,
                ub, lb, random_state=rs), X, y, ub, lb, random_state=rs),
        "tune_linear_regression_model:linear": lambda rs: d.tune_linear_regression_model(
            [d.LinearRegressionDP("l2", 1.0, 1e-5, g) for g in (0.1, 10.0)], X, yr,
            [1.0, 1.0, 1.0], [-1.0, -1.0, -1.0], random_state=rs).coeff,
        # confidence intervals
        "confintERM:output": lambda rs: d.confintERM(
            X, y, ub, lb, gamma=1.0, eps=1.0, perturbation_method="output", n_draws=200,
            random_state=rs),
        "confintERM:objective": lambda rs: d.confintERM(
            X, y, ub, lb, gamma=1.0, eps=1.0, n_draws=200, random_state=rs),
        "confintDP:output_zcdp": lambda rs: d.confintDP(
            d.LogisticRegressionDP("l2", 1.0, 1.0, "output"), X, y, ub, lb, rho=1.0,
            n_draws=200, random_state=rs),
        "confintDP:objective_mc": lambda rs: d.confintDP(
            d.LogisticRegressionDP("l2", 1.0, 1.0), X, y, ub, lb, n_draws=200,
            random_state=rs),
        # stability selection and tuning
        "stable_select:noise": lambda rs: d.stable_select([-0.30, -0.25, -0.40], 0.01, 1.0,
                                                          random_state=rs),
        "stable_select:gumbel": lambda rs: d.stable_select(
            [-0.30, -0.25, -0.40], 0.01, 1.0, selector="gumbel", random_state=rs),
        "stable_select:laplace": lambda rs: d.stable_select(
            [-0.30, -0.25, -0.40], 0.01, 1.0, selector="laplace", random_state=rs),
        "tune_stable:histogram": lambda rs: d.tune_stable(
            [0.5, 0.25, 0.1], trainer_hist(), x[:90], x[90:], eps_train=1.0, eps_select=1.0,
            random_state=rs),
        "validate_stable:histogram": lambda rs: d.validate_stable(
            [0.5, 0.25, 0.1], trainer_hist(), x[:90], x[90:], eps_train=1.0, eps_select=1.0,
            noise="independent", random_state=rs),
        "tune_histogram_bin_width_stable:x": lambda rs: d.tune_histogram_bin_width_stable(
            x, [0.2, 0.1, 0.05], eps_train=1.0, eps_select=1.0, random_state=rs),
        "tune_classification_model_stable:svm": lambda rs: _fitted(
            d.tune_classification_model_stable(
                [d.svmDP("l2", 1.0, g, "output") for g in (10.0, 100.0)], X, y, ub, lb,
                eps_select=1.0, random_state=rs), X, y, ub, lb, random_state=rs),
        "advanced_composition_eps:x": lambda rs: d.advanced_composition_eps(1.0, 10, 1e-5),
        "selection_privacy:stability": lambda rs: d.selection_privacy("stability", 1.0, 0.5,
                                                                      0.01),
        "stability_constants_linear:x": lambda rs: d.stability_constants_linear(
            0.01, 1000, 200, 3, 4, 1.0, 0.01),
        "stability_constants_histogram:x": lambda rs: d.stability_constants_histogram(
            0.1, 400, 100, 3, 1.0, 0.01),
        "stability_selection_diagnosis:x": lambda rs: d.stability_selection_diagnosis(
            [0.01, 1, 100], n=4000, m=1000, d=3, eps=1.0, eps_select=1.0),
        # accuracy first, noise reduction
        "LaplaceNoiseReduction:vector": lambda rs: d.LaplaceNoiseReduction(
            [5.0, 6.0], [0.1, 0.5, 1.0], 1.0, random_state=rs),
        "LaplaceNoiseReductionOnline:two_steps": online,
        "GaussianNoiseReduction:scalar": lambda rs: d.GaussianNoiseReduction(
            5.0, variances=[4.0, 1.0, 0.25], sensitivity=1.0, random_state=rs),
        "InteractiveAboveThreshold:counts": interactive,
        "above_threshold_calibration:tuned": lambda rs: d.above_threshold_calibration(
            0.1, 0.05, 0.01, n_levels=100, calibration="tuned"),
        "above_threshold_failure:x": lambda rs: d.above_threshold_failure(
            0.1, -0.05, 0.002, 0.004, 100),
        "laplace_test_calibration:exact": lambda rs: d.laplace_test_calibration(
            0.05, 0.1, 0.0022928, 24),
        "accuracy_first_parameters:logistic": lambda rs: d.accuracy_first_parameters(
            "logistic", alpha=0.1, lambda_=0.5, n=532, d=3, n_levels=100, calibration="tuned"),
        "privacy_level_grid:x": lambda rs: d.privacy_level_grid(0.1, 10.0, 7),
        "theory_erm:logistic": lambda rs: d.theory_erm(X, y, "logistic", 0.1, 0.5, ub, lb,
                                                       random_state=rs),
        "accuracy_first_erm:logistic": lambda rs: d.accuracy_first_erm(
            X, y, "logistic", alpha=0.2, lambda_=0.5, upper_bounds=ub, lower_bounds=lb,
            n_levels=20, calibration="tuned", random_state=rs),
        "doubling_erm:logistic": lambda rs: d.doubling_erm(X, y, "logistic", 0.2, 0.5, ub, lb,
                                                           random_state=rs),
        # accuracy reports (data-free)
        "noiseIntervalDP:mean": noise_interval("meanDP", eps=1.0, n=532, lower_bound=50,
                                               upper_bound=200),
        "noiseIntervalDP:mean_unbounded": noise_interval(
            "meanDP", eps=1.0, n=500, lower_bound=50, upper_bound=200,
            which_sensitivity="unbounded"),
        "noiseIntervalDP:var_gauss": noise_interval(
            "varDP", eps=0.5, n=200, lower_bound=0, upper_bound=1, mechanism="Gaussian",
            delta=1e-5),
        "noiseIntervalDP:histogram": noise_interval("histogramDP", eps=1.0, lower_bound=0,
                                                    upper_bound=1, breaks=5),
        "noiseIntervalDP:laplace": noise_interval("LaplaceMechanism", eps=1.0,
                                                  sensitivities=[1.0, 2.0],
                                                  simultaneous=True),
        "noiseIntervalDP:quantile": noise_interval("quantileDP", eps=1.0, n=200, quant=0.5,
                                                   lower_bound=0, upper_bound=1),
        # Dask data
        "meanDP:dask": dask_case(lambda rs, da: d.meanDP(
            da.from_array(x, chunks=50), 1.0, 0, 1, random_state=rs)),
        "histogramDP:dask": dask_case(lambda rs, da: d.histogramDP(
            da.from_array(x, chunks=50), 1.0, 0, 1, breaks=5, random_state=rs)),
        "covDP:dask": dask_case(lambda rs, da: d.covDP(
            da.from_array(x, chunks=50), da.from_array(x2, chunks=50), 1.0, 0, 1, 0, 1,
            random_state=rs)),
        "LogisticRegressionDP:dask": dask_case(lambda rs, da: {
            k: np.asarray(v) for k, v in _fitted(
                d.LogisticRegressionDP("l2", 1.0, 1.0, "output"),
                da.from_array(X, chunks=(40, 2)), da.from_array(y, chunks=40), ub, lb,
                random_state=rs).items() if k != "privacy"}),
    }


def machine():
    """What BLAS-dependent bits depend on: NumPy's version, the CPU and a product's bits."""
    a = np.sin(np.arange(96 * 96, dtype=float)).reshape(96, 96)
    return {"numpy": np.__version__, "cpu": platform.machine(),
            "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", ""),
            "product": float((a @ a @ a).sum()).hex()}


def record(fn, random_state):
    """The summary of ``fn(random_state)``: its value or error, and its distinct warnings,
    sorted (``fast_path_cases.record`` with this module's summaries)."""
    return fast_path_cases.record(fn, random_state, summary=_summary,
                                  warning_texts=lambda texts: sorted(set(texts)))


def record_case(fn):
    """The summaries of one case: per seed, and for a shared Generator (its state after)."""
    return fast_path_cases.record_case(fn, SEEDS, GENERATOR_SEED, record)
