"""Releases whose outputs must stay bit-identical for a given ``random_state`` (issue 29).

``cases()`` maps a name to a function of ``random_state``; ``record(fn, random_state)`` runs
one and returns a JSON-ready summary (floats as ``float.hex``, integers as decimal strings,
errors and warnings as their class and text). ``scripts/record-releases.py`` writes the
summaries of every case for several seeds, and for a passed Generator the state it is left
in (the draws consumed); ``tests/python/releases/test_fast_path.py`` compares the current code
with a file recorded at an earlier commit.
"""

import math
import warnings

import numpy as np
import pandas as pd

import dppack as d

SEEDS = (1, 7, 12345, 2**40 + 3)
GENERATOR_SEED = 2024

# results of these cases pass through BLAS (the solver's floating point): kernels may differ
# in the last bits (OPENBLAS_CORETYPE), so their values are compared to a relative 1e-9
SOLVER_CASES = ("logistic_objective", "logistic_output")


def _data():
    rng = np.random.default_rng(20260101)
    x = rng.uniform(0.0, 1.0, 100)
    wide = rng.uniform(-1.0, 2.0, 50)  # clipped to [0, 1]
    X = rng.uniform(-1.0, 1.0, (100, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return x, wide, X, y


def cases():
    x, wide, X, y = _data()
    edge = np.array([0.0, 0.0, 1.0, 1.0])
    x2 = x[::-1].copy()
    fa = pd.Categorical(["a", "b", "a", "c", "b", "a"], categories=["a", "b", "c"])
    fb = pd.Categorical(["u", "u", "v", "v", "u", "u"], categories=["u", "v"])

    def logistic(method):
        def fit(rs):
            model = d.LogisticRegressionDP("l2", 1.0, 1.0, perturbation_method=method)
            model.fit(X, y, upper_bounds=[1.0, 1.0], lower_bounds=[-1.0, -1.0],
                      random_state=rs)
            return model.coeff
        return fit

    return {
        # LaplaceMechanism
        "lap_scalar": lambda rs: d.LaplaceMechanism(0, 1, 1, random_state=rs),
        "lap_scalar_float": lambda rs: d.LaplaceMechanism(5.0, 1.0, 0.1, random_state=rs),
        "lap_large_value": lambda rs: d.LaplaceMechanism(1e6, 0.5, 3.0, random_state=rs),
        "lap_tiny_eps": lambda rs: d.LaplaceMechanism(0.25, 1e-3, 1.0, random_state=rs),
        "lap_big_eps": lambda rs: d.LaplaceMechanism(-2.5, 50, 1e-3, random_state=rs),
        "lap_odd_eps": lambda rs: d.LaplaceMechanism(0.1, 0.3, 0.7, random_state=rs),
        "lap_list1": lambda rs: d.LaplaceMechanism([2.0], 1, [1], random_state=rs),
        "lap_vector": lambda rs: d.LaplaceMechanism([1, 2, 3], 1, [1, 1, 1], random_state=rs),
        "lap_vector_one_sens": lambda rs: d.LaplaceMechanism([1.5, -2.0, 3.25], 1.0, 0.5,
                                                              random_state=rs),
        "lap_alloc": lambda rs: d.LaplaceMechanism([1, 2, 3], 1, [1, 2, 1], [0.2, 0.3, 0.5],
                                                   random_state=rs),
        "lap_matrix": lambda rs: d.LaplaceMechanism(np.array([[1.0, 2.0], [3.0, 4.0]]), 2.0,
                                                    1.0, random_state=rs),
        "lap_series": lambda rs: d.LaplaceMechanism(pd.Series([1.0, 2.0], index=["p", "q"]),
                                                    1.0, 1.0, random_state=rs),
        "lap_np_scalar": lambda rs: d.LaplaceMechanism(np.float64(0.5), np.float64(1.0),
                                                       np.float64(0.25), random_state=rs),
        # GaussianMechanism
        "gauss_scalar": lambda rs: d.GaussianMechanism(0, 0.5, 1e-5, 1, random_state=rs),
        "gauss_pdp": lambda rs: d.GaussianMechanism(1.0, 0.5, 1e-5, 1, "pDP", random_state=rs),
        "gauss_analytic": lambda rs: d.GaussianMechanism(1.0, 2.0, 1e-5, 0.1, analytic=True,
                                                         random_state=rs),
        "gauss_vector": lambda rs: d.GaussianMechanism([1, 2], 0.5, 1e-5, [0.1, 0.1],
                                                       random_state=rs),
        "gauss_vector_analytic": lambda rs: d.GaussianMechanism(
            [1.0, 2.0, 3.0], 2.0, 1e-6, [0.1, 0.2, 0.3], analytic=True, random_state=rs),
        "gauss_alloc": lambda rs: d.GaussianMechanism([1, 2, 3], 0.5, 1e-5, [1, 1, 1],
                                                      alloc_proportions=[0.2, 0.3, 0.5],
                                                      random_state=rs),
        # meanDP, varDP, sdDP, covDP
        "mean_bounded": lambda rs: d.meanDP(x, 1, 0, 1, random_state=rs),
        "mean_unbounded": lambda rs: d.meanDP(x, 0.7, 0, 1, "unbounded", random_state=rs),
        "mean_gauss": lambda rs: d.meanDP(x, 0.5, 0, 1, mechanism="Gaussian", delta=1e-5,
                                          random_state=rs),
        "mean_gauss_pdp_unbounded": lambda rs: d.meanDP(x, 0.5, 0, 1, "unbounded", "Gaussian",
                                                        1e-5, "pDP", random_state=rs),
        "mean_edge": lambda rs: d.meanDP(edge, 1, 0, 1, random_state=rs),
        "mean_clip": lambda rs: d.meanDP(wide, 1, 0, 1, random_state=rs),
        "mean_negative": lambda rs: d.meanDP(-x - 1, 2, -2, -1, random_state=rs),
        "mean_list": lambda rs: d.meanDP([0.1, 0.2, 0.9], 1, 0, 1, random_state=rs),
        "var_bounded": lambda rs: d.varDP(x, 1, 0, 1, random_state=rs),
        "var_unbounded": lambda rs: d.varDP(x, 1, 0, 1, "unbounded", random_state=rs),
        "var_gauss": lambda rs: d.varDP(x, 0.5, 0, 1, mechanism="Gaussian", delta=1e-5,
                                        random_state=rs),
        "var_edge": lambda rs: d.varDP(edge, 1, 0, 1, random_state=rs),
        "sd_bounded": lambda rs: d.sdDP(x, 1, 0, 1, random_state=rs),
        "cov_bounded": lambda rs: d.covDP(x, x2, 1, 0, 1, 0, 1, random_state=rs),
        # histogramDP, tableDP
        "hist_default": lambda rs: d.histogramDP(x, 1, 0, 1, random_state=rs),
        "hist_normalize": lambda rs: d.histogramDP(x, 1, 0, 1, normalize=True, random_state=rs),
        "hist_breaks": lambda rs: d.histogramDP(wide, 1, 0, 1, breaks=5, random_state=rs),
        "hist_unbounded": lambda rs: d.histogramDP(x, 1, 0, 1, which_sensitivity="unbounded",
                                                   allow_negative=True, random_state=rs),
        "hist_gauss": lambda rs: d.histogramDP(x, 0.5, 0, 1, mechanism="Gaussian", delta=1e-5,
                                               random_state=rs),
        "table_declared": lambda rs: d.tableDP(fa, fb, eps=1, random_state=rs),
        "table_one": lambda rs: d.tableDP(fa, eps=0.5, allow_negative=True, random_state=rs),
        "table_thresholded": lambda rs: d.tableDP(np.array(list("a" * 40 + "b" * 30 + "cd")),
                                                  eps=1, delta=1e-3, random_state=rs),
        # quantileDP, medianDP
        "quantile_median": lambda rs: d.quantileDP(x, 0.5, 1, 0, 1, random_state=rs),
        "quantile_low_unbounded": lambda rs: d.quantileDP(x, 0.1, 1, 0, 1, "unbounded",
                                                          random_state=rs),
        "quantile_high": lambda rs: d.quantileDP(wide, 0.9, 2, 0, 1, random_state=rs),
        "quantile_edge": lambda rs: d.quantileDP(edge, 0.25, 1, 0, 1, random_state=rs),
        "median": lambda rs: d.medianDP(x, 0.5, -1, 2, random_state=rs),
        # LogisticRegressionDP, 100 x 2
        "logistic_objective": logistic("objective"),
        "logistic_output": logistic("output"),
        # bad input: the same error, raised before any draw
        "error_lap_eps": lambda rs: d.LaplaceMechanism(0, -1, 1, random_state=rs),
        "error_lap_eps_inf": lambda rs: d.LaplaceMechanism(0, float("inf"), 1, random_state=rs),
        "error_lap_nan": lambda rs: d.LaplaceMechanism(float("nan"), 1, 1, random_state=rs),
        "error_lap_sens": lambda rs: d.LaplaceMechanism(0, 1, 0, random_state=rs),
        "error_lap_sens_len": lambda rs: d.LaplaceMechanism([1, 2], 1, [1, 1, 1],
                                                            random_state=rs),
        "error_lap_alloc": lambda rs: d.LaplaceMechanism([1, 2], 1, [1, 1], [1, 2, 3],
                                                         random_state=rs),
        "error_lap_string": lambda rs: d.LaplaceMechanism("a", 1, 1, random_state=rs),
        "error_lap_empty": lambda rs: d.LaplaceMechanism([], 1, 1, random_state=rs),
        "error_gauss_delta": lambda rs: d.GaussianMechanism(0, 0.5, 0, 1, random_state=rs),
        "error_gauss_eps": lambda rs: d.GaussianMechanism(0, 2, 1e-5, 1, random_state=rs),
        "error_mean_bounds": lambda rs: d.meanDP(x, 1, 1, 0, random_state=rs),
        "error_mean_eps": lambda rs: d.meanDP(x, 0, 0, 1, random_state=rs),
        "error_mean_mechanism": lambda rs: d.meanDP(x, 1, 0, 1, mechanism="laplace",
                                                    random_state=rs),
        "error_mean_nan": lambda rs: d.meanDP([0.1, float("nan")], 1, 0, 1, random_state=rs),
        "var_both": lambda rs: d.varDP(x, 1, 0, 1, "both", random_state=rs),
        "error_var_which": lambda rs: d.varDP(x, 1, 0, 1, "neither", random_state=rs),
        "error_hist_bounds": lambda rs: d.histogramDP(x, 1, 1, 1, random_state=rs),
        "error_quantile_quant": lambda rs: d.quantileDP(x, 1.5, 1, 0, 1, random_state=rs),
        "error_quantile_eps": lambda rs: d.quantileDP(x, 0.5, -1, 0, 1, random_state=rs),
        "error_random_state": lambda rs: d.LaplaceMechanism(0, 1, 1, random_state=-1),
        "error_random_state_float": lambda rs: d.meanDP(x, 1, 0, 1, random_state=1.5),
    }


def _summary(value):
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return float(value).hex()
    if isinstance(value, str):
        return value
    if isinstance(value, np.ndarray):
        return {"shape": list(value.shape), "dtype": value.dtype.kind,
                "values": [_summary(v) for v in value.ravel().tolist()]}
    if isinstance(value, pd.DataFrame):
        return {"frame": _summary(value.to_numpy()), "index": [str(i) for i in value.index],
                "columns": [str(c) for c in value.columns]}
    if isinstance(value, pd.Series):
        return {"series": _summary(value.to_numpy()), "index": [str(i) for i in value.index]}
    if isinstance(value, d.rcompat.Histogram):
        return {"breaks": _summary(value.breaks), "counts": _summary(value.counts),
                "mids": _summary(value.mids)}
    if isinstance(value, dict):
        return {str(k): _summary(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_summary(v) for v in value]
    return {"type": type(value).__name__, "repr": repr(value)}


def record(fn, random_state, summary=None, warning_texts=list):
    """The summary of ``fn(random_state)``: its value or error, and its warnings.

    ``summary`` turns the value into JSON (default: this module's); ``warning_texts`` turns the
    texts of the warnings caught, in order, into the list recorded (default: all, in order).
    """
    summary = _summary if summary is None else summary
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = {"value": summary(fn(random_state))}
        except Exception as error:  # noqa: BLE001 -- the error is part of the record
            out = {"error": f"{type(error).__name__}: {error}"}
    if caught:
        out["warnings"] = warning_texts([f"{w.category.__name__}: {w.message}" for w in caught])
    return out


def record_case(fn, seeds=SEEDS, generator_seed=GENERATOR_SEED, record_one=record):
    """All the summaries of one case: per seed, and for a shared Generator (its state after).

    ``record_one(fn, random_state)`` records one call (default: :func:`record`).
    """
    out = {str(seed): record_one(fn, seed) for seed in seeds}
    rng = np.random.default_rng(generator_seed)
    first = record_one(fn, rng)
    second = record_one(fn, rng)
    out["generator"] = {"first": first, "second": second,
                        "state": str(rng.bit_generator.state["state"]["state"])}
    return out


def close(expected, actual):
    """Recorded and current summaries of a case: equal structure, floats (hex strings) to a
    relative 1e-9 (BLAS kernels may differ in the last bits)."""
    if isinstance(expected, dict):
        return isinstance(actual, dict) and expected.keys() == actual.keys() and all(
            close(expected[k], actual[k]) for k in expected)
    if isinstance(expected, list):
        return isinstance(actual, list) and len(expected) == len(actual) and all(
            map(close, expected, actual))
    if isinstance(expected, str) and expected.startswith(("0x", "-0x")) and isinstance(
            actual, str) and actual.startswith(("0x", "-0x")):
        a, b = float.fromhex(expected), float.fromhex(actual)
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    return expected == actual
