"""R and Python give the same output for the same inputs and seed.

Each case is one R expression run inside ``with_random_state(seed, ...)`` through rpy2, and the
same calls made in Python (every public function has at least one case) with ``random_state=numpy.random.default_rng(seed)``, shared by the
calls in the order R makes them. R indices are 1-based and Python's 0-based, so an R index is
compared with Python's plus one.

What is bit-identical, and why. Where R only converts values and calls the core, both languages
run the same Python code on the same bits, in processes that load the same NumPy with the same
OpenBLAS kernel (the R session inherits the test's environment), so the results are bit for bit
the same; those cases are compared through ``float.hex``, on every kernel. Where R does
arithmetic of its own -- an R function as the map, loss or constraint of a framework
(``R_ARITHMETIC`` below) -- R's reference BLAS and R's summation order meet NumPy's OpenBLAS,
whose kernels (``OPENBLAS_CORETYPE``) round differently, so the last bits may differ and the
solver may take a slightly different path to the same optimum. Those cases are compared to an
absolute tolerance derived from the solver's stopping rule (each fit ends within its
optimality tolerance of the one minimiser of a strongly convex objective, so the two fits lie
within twice that distance of each other), computed beside the case. ``make test`` runs this
suite under two OpenBLAS kernels besides the machine's own (``make test-kernels``).
"""

import numpy as np
import pandas as pd
import pytest
from r_session import CLASSIFICATION_X, CLASSIFICATION_Y, assert_close, assert_core_message
from r_session import assert_same_bits, r_matrix, r_results_fixture, r_vector, require_r, run_in_r

import dppack

require_r()
pytestmark = pytest.mark.r

SEED = 20261121


def _rng():
    return np.random.default_rng(SEED)


# ---- data of the ERM cases, written once and spelled as R literals -------------------------

_X_CLS = np.array(CLASSIFICATION_X)  # two values outside [-1, 1]: the fits clip them
_Y_CLS = np.array(CLASSIFICATION_Y, dtype=float)
_W_CLS = np.array([1, 0.5, 1, 0.25, 1, 1, 0.5, 1, 2, 1, 1, 0.75, 1, 0, 1, 1])
_X_REG = _X_CLS[:, ::-1] * 0.9
_Y_REG = 0.3 - 0.8 * _X_REG[:, 0] + 0.5 * _X_REG[:, 1] + np.array(
    [0.1, -0.05, 0.02, 0.3, -0.2, 0.0, 0.15, -0.1, 0.05, -0.25, 0.2, -0.02, 0.07, -0.13, 0.01, 2.5]
)  # the last response lies outside the bounds [-2, 2]: the fits clip it


# An integer column (R integers reach the core as 32-bit views of a data.frame's column), and
# the data.frames R fits from: their columns reach the core without an R-side matrix copy.
_K_INT = np.array([-2, 0, 1, 3, -1, 0, 2, 1, -3, 0, 1, 2, -1, 1, 0, 2])
_X_INT = np.column_stack([_X_CLS[:, 0], _K_INT]).astype(float)

# assignments that open every ERM case's R expression
_R_DATA = (
    f"X <- {r_matrix(_X_CLS)}; y <- {r_vector(_Y_CLS)}; w <- {r_vector(_W_CLS)}; "
    f"Xr <- {r_matrix(_X_REG)}; yr <- {r_vector(_Y_REG)}; "
    "Xdf <- data.frame(a = X[, 1], b = X[, 2]); Xrdf <- as.data.frame(Xr); "
    f"Xint <- data.frame(a = X[, 1], k = c({', '.join(f'{k}L' for k in _K_INT)})); "
)


def _erm(expr):
    return "{" + _R_DATA + expr + "}"


def _py_linear(X, coeff):
    return dppack.mapXy_linear(X, coeff)


def _py_linear_gr(X, coeff):
    return dppack.mapXy_gr_linear(X, coeff)


# The optimality tolerances of the fits the R_ARITHMETIC cases run (python/dppack/erm): the CMS
# fits stop at max |gradient| <= 1e-8 (L-BFGS-B's gtol), the KST fit at a KKT residual of
# 1e-7 times the gradient norm at the start (at least 1).
_CMS_GTOL = 1e-8
_KST_KKT = 1e-7


def _two_fits_gap(residual, modulus):
    """How far apart two fits can be that both stop with an optimality residual (gradient, or
    KKT residual at a feasible point, in the l2 norm) of at most ``residual`` on an objective
    that is ``modulus``-strongly convex over a convex domain: each lies within
    residual / modulus of the one minimiser (strong convexity; to first order in the
    feasibility tolerance for the constrained fit), so within twice that of each other."""
    return 2.0 * residual / modulus


def _cms_tolerance(d, n, gamma):
    """The CMS objective (1/n) sum loss + (gamma/n) ||theta||^2/2 (+ perturbation terms that
    only add curvature) is gamma/n-strongly convex; L-BFGS-B's rule bounds the l2 gradient by
    sqrt(d) gtol."""
    return _two_fits_gap(np.sqrt(d) * _CMS_GTOL, gamma / n)


def _cms_huber(rng, method, weighted=False, weights=None):
    cls = dppack.WeightedERMDP_CMS if weighted else dppack.EmpiricalRiskMinimizationDP_CMS
    # Python functions that are not the built-in objects, so that the Python fit takes the same
    # general path (user map and its d x n gradient) as the R closures do
    model = cls(_py_linear, dppack.generate_loss_huber(0.5), "l2", 1, 1, method, c=1,
                mapXy_gr=_py_linear_gr, loss_gr=dppack.generate_loss_gr_huber(0.5))
    kwargs = {} if weights is None else {"weights": weights, "weights_upper_bound": 1}
    return model.fit(_X_CLS / 2, 2 * _Y_CLS - 1, [0.5, 0.5], [-0.5, -0.5],
                     random_state=rng, **kwargs).coeff


def _tuned(model):
    return {"coeff": model.coeff, "gamma": model.gamma}


class _RecordedKST(dppack.EmpiricalRiskMinimizationDP_KST):
    """The KST framework, remembering the scaled data, noise vector and Delta of its last fit
    (for the tolerance of the R-arithmetic case below)."""

    def _optimize_coeff(self, X, y, noise, Delta):
        self.recorded = (X, y, noise, Delta)
        return super()._optimize_coeff(X, y, noise, Delta)


def _kst_model():
    domain = {"constraints": lambda c: c @ c - 2, "jacobian": lambda c: 2 * c}
    return _RecordedKST(
        _py_linear, dppack.loss_squared_error, "l2", 1, 0, domain, 2 * 2**1.5, 2, 1,
        mapXy_gr=_py_linear_gr, loss_gr=dppack.loss_gr_squared_error,
    )


def _kst_ball(rng):
    return _kst_model().fit(_X_REG, _Y_REG, [1, 1, 2], [-1, -1, -2], random_state=rng).coeff


def _kst_tolerance():
    """The KST objective (1/n) sum loss + ((gamma + Delta)/n) ||theta||^2/2 + b.theta/n is
    (gamma + Delta)/n-strongly convex on the ball; SLSQP's result is accepted at a KKT residual
    of 1e-7 max(1, ||gradient at 0||), the gradient at 0 being (1/n) sum loss'(0, y) x + b/n."""
    model = _kst_model()
    model.fit(_X_REG, _Y_REG, [1, 1, 2], [-1, -1, -2], random_state=_rng())
    X, y, noise, Delta = model.recorded
    n, p = X.shape
    zero = np.zeros(p)
    start = (dppack.mapXy_gr_linear(X, zero)
             @ dppack.loss_gr_squared_error(dppack.mapXy_linear(X, zero), y)) / n + noise / n
    residual = _KST_KKT * max(1.0, float(np.linalg.norm(start)))
    return _two_fits_gap(residual, (model.gamma + Delta) / n)


# name: (R expression, Python function of a fresh generator returning the expected values)
CASES = {
    "laplace_scalar": (
        "LaplaceMechanism(5, 1, 0.5)",
        lambda rng: dppack.LaplaceMechanism(5, 1, 0.5, random_state=rng),
    ),
    "laplace_vector": (
        "LaplaceMechanism(c(-5, 0, 10), 0.5, c(0.5, 1, 2))",
        lambda rng: dppack.LaplaceMechanism([-5, 0, 10], 0.5, [0.5, 1, 2], random_state=rng),
    ),
    "laplace_alloc": (
        "LaplaceMechanism(c(1, 2), 1, c(0.5, 1), alloc.proportions = c(1, 9))",
        lambda rng: dppack.LaplaceMechanism(
            [1, 2], 1, [0.5, 1], alloc_proportions=[1, 9], random_state=rng
        ),
    ),
    "laplace_matrix": (
        "LaplaceMechanism(matrix(c(1, 2, 3, 4, 5, 6), nrow = 2), 1, 1)",
        lambda rng: dppack.LaplaceMechanism(
            np.array([[1.0, 3, 5], [2, 4, 6]]), 1, 1, random_state=rng
        ),
    ),
    "gaussian_adp": (
        "GaussianMechanism(c(1, 2, 3), 0.5, 0.01, c(0.5, 1, 2))",
        lambda rng: dppack.GaussianMechanism([1, 2, 3], 0.5, 0.01, [0.5, 1, 2], random_state=rng),
    ),
    "gaussian_pdp_alloc": (
        "GaussianMechanism(c(1, 2), 0.5, 0.01, c(1, 3), type.DP = 'pDP', "
        "alloc.proportions = c(1, 9))",
        lambda rng: dppack.GaussianMechanism(
            [1, 2], 0.5, 0.01, [1, 3], type_DP="pDP", alloc_proportions=[1, 9], random_state=rng
        ),
    ),
    "gaussian_analytic": (
        "GaussianMechanism(7, 3, 1e-6, 2, analytic = TRUE)",
        lambda rng: dppack.GaussianMechanism(7, 3, 1e-6, 2, analytic=True, random_state=rng),
    ),
    "exponential_index": (
        "ExponentialMechanism(c(-5, -1, 0, 3, -6, -2), 0.1, 5, "
        "measure = c(0.5, 1, 2, 0.5, 5, 1))",
        lambda rng: 1
        + dppack.ExponentialMechanism(
            [-5, -1, 0, 3, -6, -2], 0.1, 5, measure=[0.5, 1, 2, 0.5, 5, 1], random_state=rng
        ),
    ),
    "exponential_candidates": (
        "ExponentialMechanism(c(1, 2, 3), 1, 1, candidates = c(10, 20, 30))",
        lambda rng: dppack.ExponentialMechanism(
            [1, 2, 3], 1, 1, candidates=[10.0, 20.0, 30.0], random_state=rng
        ),
    ),
    "calibrate": (
        "calibrateAnalyticGaussianMechanism(0.01, 1e-5, 1)",
        lambda rng: dppack.calibrateAnalyticGaussianMechanism(0.01, 1e-5, 1),
    ),
    "meanDP": (
        "meanDP(c(1.5, 4.2, 3.3, 2.8, 0.4, 5.1), 1, 0, 5)",
        lambda rng: dppack.meanDP([1.5, 4.2, 3.3, 2.8, 0.4, 5.1], 1, 0, 5, random_state=rng),
    ),
    "meanDP_gaussian_matrix": (
        "meanDP(matrix(c(1, 2, 3, 4, 5, 6), 2), 0.5, 0, 5, mechanism = 'Gaussian', delta = 0.01)",
        lambda rng: dppack.meanDP(np.array([[1.0, 3, 5], [2, 4, 6]]), 0.5, 0, 5,
                                  mechanism="Gaussian", delta=0.01, random_state=rng),
    ),
    "varDP": (
        "varDP(c(1.5, 4.2, 3.3, 2.8, 0.4, 5.1), 1, 0, 5, which.sensitivity = 'unbounded')",
        lambda rng: dppack.varDP([1.5, 4.2, 3.3, 2.8, 0.4, 5.1], 1, 0, 5,
                                 which_sensitivity="unbounded", random_state=rng),
    ),
    "sdDP_analytic": (
        "sdDP(c(1.5, 4.2, 3.3, 2.8, 0.4, 5.1), 2, 0, 5, mechanism = 'analytic', delta = 1e-5)",
        lambda rng: dppack.sdDP([1.5, 4.2, 3.3, 2.8, 0.4, 5.1], 2, 0, 5, mechanism="analytic",
                                delta=1e-5, random_state=rng),
    ),
    "covDP": (
        "covDP(c(1, 4, 3, 2), c(-2, -3, -4, -1), 1, 0, 5, -5, 0)",
        lambda rng: dppack.covDP([1, 4, 3, 2], [-2, -3, -4, -1], 1, 0, 5, -5, 0,
                                 random_state=rng),
    ),
    # Issue 11: unbounded releases from noisy sufficient statistics; 'both' gives both.
    "meanDP_both": (
        "meanDP(c(1.5, 4.2, 3.3, 2.8, 0.4, 5.1, 7), 1, 0, 5, which.sensitivity = 'both')",
        lambda rng: dppack.meanDP([1.5, 4.2, 3.3, 2.8, 0.4, 5.1, 7], 1, 0, 5,
                                  which_sensitivity="both", random_state=rng),
    ),
    "sdDP_both_gaussian": (
        "sdDP(c(1.5, 4.2, 3.3, 2.8, 0.4, 5.1), 0.9, 0, 5, which.sensitivity = 'both', "
        "mechanism = 'Gaussian', delta = 0.01)",
        lambda rng: dppack.sdDP([1.5, 4.2, 3.3, 2.8, 0.4, 5.1], 0.9, 0, 5,
                                which_sensitivity="both", mechanism="Gaussian", delta=0.01,
                                random_state=rng),
    ),
    "covDP_unbounded_analytic": (
        "covDP(c(1, 4, 3, 2, 9), c(-2, -3, -4, -1, 0), 2, 0, 5, -5, 0, "
        "which.sensitivity = 'unbounded', mechanism = 'analytic', delta = 1e-5)",
        lambda rng: dppack.covDP([1, 4, 3, 2, 9], [-2, -3, -4, -1, 0], 2, 0, 5, -5, 0,
                                 which_sensitivity="unbounded", mechanism="analytic",
                                 delta=1e-5, random_state=rng),
    ),
    "pooledVarDP_unbounded_pdp": (
        "pooledVarDP(c(1, 4, -2, 8, -6), c(1, 2), c(-5, -7), eps = 1, lower.bound = -10, "
        "upper.bound = 10, which.sensitivity = 'unbounded', mechanism = 'Gaussian', "
        "delta = 0.01, type.DP = 'pDP')",
        lambda rng: dppack.pooledVarDP([1, 4, -2, 8, -6], [1, 2], [-5, -7], eps=1,
                                       lower_bound=-10, upper_bound=10,
                                       which_sensitivity="unbounded", mechanism="Gaussian",
                                       delta=0.01, type_DP="pDP", random_state=rng),
    ),
    "pooledCovDP_both": (
        "pooledCovDP(matrix(c(1, 4, -2, 8, -6, -3), ncol = 2), matrix(c(1, 2, -5, 7), "
        "ncol = 2), eps = 2, lower.bound1 = -10, upper.bound1 = 10, lower.bound2 = -10, "
        "upper.bound2 = 10, which.sensitivity = 'both')",
        lambda rng: dppack.pooledCovDP(
            np.array([[1, 8], [4, -6], [-2, -3]]), np.array([[1, -5], [2, 7]]), eps=2,
            lower_bound1=-10, upper_bound1=10, lower_bound2=-10, upper_bound2=10,
            which_sensitivity="both", random_state=rng,
        ),
    ),
    "histogramDP": (
        "histogramDP(c(0.3, 2.2, 2.9, 3.1, 4.4, 5.8, 6.1, 7.7), 1, -3, 9)",
        lambda rng: dppack.histogramDP([0.3, 2.2, 2.9, 3.1, 4.4, 5.8, 6.1, 7.7], 1, -3, 9,
                                       random_state=rng),
    ),
    "histogramDP_both_normalized": (
        "histogramDP(c(0.3, 2.2, 2.9, 3.1, 4.4), 1, 0, 5, breaks = 4, normalize = TRUE, "
        "which.sensitivity = 'both')",
        lambda rng: dppack.histogramDP([0.3, 2.2, 2.9, 3.1, 4.4], 1, 0, 5, breaks=4,
                                       normalize=True, which_sensitivity="both",
                                       random_state=rng),
    ),
    # A rule under unbounded DP: a noisy n first (1/20 of eps), then the counts.
    "histogramDP_unbounded_Scott_analytic": (
        "histogramDP(c(0.3, 2.2, 2.9, 3.1, 4.4, 5.8), 0.9, -3, 9, breaks = 'Scott', "
        "which.sensitivity = 'unbounded', mechanism = 'analytic', delta = 0.01)",
        lambda rng: dppack.histogramDP([0.3, 2.2, 2.9, 3.1, 4.4, 5.8], 0.9, -3, 9,
                                       breaks="Scott", which_sensitivity="unbounded",
                                       mechanism="analytic", delta=0.01, random_state=rng),
    ),
    # Declared levels (R factors, pandas Categoricals): every combination is a cell.
    "tableDP_two_way": (
        "tableDP(factor(c('a', 'b', 'b', 'c', 'a', 'b'), levels = c('a', 'b', 'c', 'd')), "
        "factor(c('u', 'u', 'v', 'v', 'v', 'u')), eps = 1, allow.negative = TRUE)",
        lambda rng: dppack.tableDP(
            pd.Categorical(["a", "b", "b", "c", "a", "b"], categories=["a", "b", "c", "d"]),
            pd.Categorical(["u", "u", "v", "v", "v", "u"]), eps=1, allow_negative=True,
            random_state=rng,
        ),
    ),
    "tableDP_three_way": (
        "tableDP(factor(c(1, 2, 2, 1)), factor(c('x', 'y', 'x', 'x')), "
        "factor(c(TRUE, FALSE, TRUE, TRUE)), eps = 2, mechanism = 'Gaussian', delta = 0.01, "
        "type.DP = 'pDP', allow.negative = TRUE)",
        lambda rng: dppack.tableDP(
            pd.Categorical(["1", "2", "2", "1"]), pd.Categorical(["x", "y", "x", "x"]),
            pd.Categorical(["TRUE", "FALSE", "TRUE", "TRUE"], categories=["FALSE", "TRUE"]),
            eps=2, mechanism="Gaussian", delta=0.01, type_DP="pDP", allow_negative=True,
            random_state=rng,
        ),
    ),
    # Undeclared levels (plain vectors): the thresholded release of the observed cells.
    "tableDP_thresholded_both": (
        "tableDP(rep(c('a', 'b', 'c', 'd'), c(9, 6, 3, 1)), rep(c('u', 'v'), c(10, 9)), "
        "eps = 1, delta = 0.1, which.sensitivity = 'both')",
        lambda rng: dppack.tableDP(
            ["a"] * 9 + ["b"] * 6 + ["c"] * 3 + ["d"], ["u"] * 10 + ["v"] * 9, eps=1,
            delta=0.1, which_sensitivity="both", random_state=rng,
        ),
    ),
    "tableDP_thresholded_Gaussian": (
        "tableDP(rep(c('a', 'b', 'c'), c(40, 12, 1)), factor(rep('x', 53), "
        "levels = c('x', 'y')), eps = 0.5, mechanism = 'Gaussian', delta = 0.2)",
        lambda rng: dppack.tableDP(
            ["a"] * 40 + ["b"] * 12 + ["c"], pd.Categorical(["x"] * 53, categories=["x", "y"]),
            eps=0.5, mechanism="Gaussian", delta=0.2, random_state=rng,
        ),
    ),
    # The released levels of numbers, in R's (numeric) order of table()'s levels.
    "tableDP_thresholded_levels": (
        "as.numeric(names(tableDP(rep(c(10, 2, 7, 3), c(8, 9, 1, 7)), eps = 2, delta = 0.2)))",
        lambda rng: np.asarray(dppack.tableDP([10.0] * 8 + [2.0] * 9 + [7.0] + [3.0] * 7,
                                              eps=2, delta=0.2, random_state=rng).index,
                               dtype=float),
    ),
    "pooledVarDP_both": (
        "pooledVarDP(c(1, 4), c(1, 2), c(-5, -7), lower.bound = -10, upper.bound = 10, "
        "which.sensitivity = 'both')",
        lambda rng: dppack.pooledVarDP([1, 4], [1, 2], [-5, -7], lower_bound=-10,
                                       upper_bound=10, which_sensitivity="both",
                                       random_state=rng),
    ),
    "pooledCovDP": (
        "pooledCovDP(matrix(c(1, 4, -2, 8, -6, -3), ncol = 2), matrix(c(1, 2, -5, 7, 3, 0), "
        "ncol = 2), lower.bound1 = -10, upper.bound1 = 10, lower.bound2 = -10, "
        "upper.bound2 = 10, approx.n.max = TRUE)",
        lambda rng: dppack.pooledCovDP(
            np.array([[1, 8], [4, -6], [-2, -3]]), np.array([[1, 7], [2, 3], [-5, 0]]),
            lower_bound1=-10, upper_bound1=10, lower_bound2=-10, upper_bound2=10,
            approx_n_max=True, random_state=rng,
        ),
    ),
    "quantileDP": (
        "quantileDP(c(1, 1, -2, 8, -6), 0.25, 1, -10, 10)",
        lambda rng: dppack.quantileDP([1, 1, -2, 8, -6], 0.25, 1, -10, 10, random_state=rng),
    ),
    "medianDP": (
        "medianDP(c(1, 1, -2, 8, -6, 3.5), 0.5, -6, 6)",
        lambda rng: dppack.medianDP([1, 1, -2, 8, -6, 3.5], 0.5, -6, 6, random_state=rng),
    ),
    "quantileDataAccess": (
        "quantileDataAccess(c(1, 1, -2, 8, -6), 0.25, -10, 10)",
        lambda rng: dppack.quantileDataAccess([1, 1, -2, 8, -6], 0.25, -10, 10),
    ),
    "pooledCovDataAccess": (
        "pooledCovDataAccess(list(matrix(c(1, 4, -2, 8, -6, -3), ncol = 2), "
        "matrix(c(1, 2, -5, 7), ncol = 2)), -10, 10, -10, 10, FALSE)",
        lambda rng: dppack.pooledCovDataAccess(
            [np.array([[1, 8], [4, -6], [-2, -3]]), np.array([[1, -5], [2, 7]])],
            -10, 10, -10, 10, False,
        ),
    ),
    "histogramDataAccess": (
        "histogramDataAccess(c(1, 4, 3, 2, 3), 'Sturges', 'Gaussian')",
        lambda rng: dppack.histogramDataAccess([1, 4, 3, 2, 3], "Sturges", "Gaussian"),
    ),
    "meanDataAccess": (
        "meanDataAccess(c(1, 4, 3, 2), 0, 5)",
        lambda rng: dppack.meanDataAccess([1, 4, 3, 2], 0, 5),
    ),
    "varDataAccess": (
        "varDataAccess(c(1, 4, 3, 2), 0, 5)",
        lambda rng: dppack.varDataAccess([1, 4, 3, 2], 0, 5),
    ),
    "covDataAccess": (
        "covDataAccess(c(1, 4, 3, 2), c(-2, -3, -4, -1), 0, 5, -5, 0)",
        lambda rng: dppack.covDataAccess([1, 4, 3, 2], [-2, -3, -4, -1], 0, 5, -5, 0),
    ),
    "pooledVarDataAccess": (
        "pooledVarDataAccess(list(c(1, 4, -2, 8, -6), c(1, 2), c(-5, -7)), -10, 10, TRUE)",
        lambda rng: dppack.pooledVarDataAccess([[1, 4, -2, 8, -6], [1, 2], [-5, -7]], -10, 10,
                                               True),
    ),
    "tableDataAccess": (
        "tableDataAccess(c('a', 'b', 'b', 'c'), c('u', 'u', 'v', 'v'), mechanism = 'analytic')",
        lambda rng: dppack.tableDataAccess(["a", "b", "b", "c"], ["u", "u", "v", "v"],
                                           mechanism="analytic"),
    ),
    "two_calls_one_stream": (
        "c(LaplaceMechanism(0, 1, 1), GaussianMechanism(0, 0.5, 0.01, 1))",
        lambda rng: [
            dppack.LaplaceMechanism(0, 1, 1, random_state=rng),
            dppack.GaussianMechanism(0, 0.5, 0.01, 1, random_state=rng),
        ],
    ),

    # ---- ERM models and tuning ---------------------------------------------------------------
    "erm_logistic_objective": (
        _erm("m <- LogisticRegressionDP$new('l2', 1, 0.5); m$fit(X, y, c(1, 1), c(-1, -1)); "
             "m$coeff"),
        lambda rng: dppack.LogisticRegressionDP("l2", 1, 0.5).fit(
            _X_CLS, _Y_CLS, [1, 1], [-1, -1], random_state=rng).coeff,
    ),
    "erm_logistic_objective_small_eps": (  # eps' <= 0: the Delta branch
        _erm("m <- LogisticRegressionDP$new('l2', 0.05, 0.5); "
             "m$fit(X, y, c(1.5, 1.5), c(-1, -1)); m$coeff"),
        lambda rng: dppack.LogisticRegressionDP("l2", 0.05, 0.5).fit(
            _X_CLS, _Y_CLS, [1.5, 1.5], [-1, -1], random_state=rng).coeff,
    ),
    "erm_logistic_output_bias": (
        _erm("m <- LogisticRegressionDP$new('l2', 2, 0.5, 'output'); "
             "m$fit(X, y, c(1, 1), c(-1, -1), add.bias = TRUE); m$coeff"),
        lambda rng: dppack.LogisticRegressionDP("l2", 2, 0.5, "output").fit(
            _X_CLS, _Y_CLS, [1, 1], [-1, -1], add_bias=True, random_state=rng).coeff,
    ),
    "erm_svm_objective_extra_regularisation": (  # 0 < eps_1'(0) < eps_1/2: Delta > 0 (DPpack: 0)
        _erm("m <- svmDP$new('l2', 2, 1); m$fit(X, y, c(1, 1), c(-1, -1), add.bias = TRUE); "
             "m$coeff"),
        lambda rng: dppack.svmDP("l2", 2, 1).fit(
            _X_CLS, _Y_CLS, [1, 1], [-1, -1], add_bias=True, random_state=rng).coeff,
    ),
    "erm_svm_linear_objective": (
        _erm("m <- svmDP$new('l2', 1, 1); m$fit(X, y, c(1, 1), c(-1, -1)); m$coeff"),
        lambda rng: dppack.svmDP("l2", 1, 1).fit(
            _X_CLS, _Y_CLS, [1, 1], [-1, -1], random_state=rng).coeff,
    ),
    "erm_logistic_data_frame_bias": (
        _erm("m <- LogisticRegressionDP$new('l2', 1, 0.5); "
             "m$fit(Xdf, y, c(1, 1), c(-1, -1), add.bias = TRUE); m$coeff"),
        lambda rng: dppack.LogisticRegressionDP("l2", 1, 0.5).fit(
            _X_CLS, _Y_CLS, [1, 1], [-1, -1], add_bias=True, random_state=rng).coeff,
    ),
    "erm_svm_data_frame_integer_column": (
        _erm("stopifnot(is.integer(Xint$k)); m <- svmDP$new('l2', 1, 1); "
             "m$fit(Xint, y, c(1, 2), c(-1, -2)); m$coeff"),
        lambda rng: dppack.svmDP("l2", 1, 1).fit(
            _X_INT, _Y_CLS, [1, 2], [-1, -2], random_state=rng).coeff,
    ),
    "erm_svm_gaussian_data_frame": (  # no bounds: the core reads the columns as one matrix
        _erm("m <- svmDP$new('l2', 1, 1, 'output', kernel = 'Gaussian', D = 5); "
             "m$fit(Xint, y); m$coeff"),
        lambda rng: dppack.svmDP("l2", 1, 1, "output", kernel="Gaussian", D=5).fit(
            _X_INT, _Y_CLS, random_state=rng).coeff,
    ),
    "erm_linreg_data_frame_bias": (
        _erm("m <- LinearRegressionDP$new('l2', 1, 0, 1); "
             "m$fit(Xrdf, yr, c(1, 1, 2), c(-1, -1, -2), add.bias = TRUE); m$coeff"),
        lambda rng: dppack.LinearRegressionDP("l2", 1, 0, 1).fit(
            _X_REG, _Y_REG, [1, 1, 2], [-1, -1, -2], add_bias=True, random_state=rng).coeff,
    ),
    "erm_svm_gaussian_output": (
        _erm("m <- svmDP$new('l2', 1, 1, 'output', kernel = 'Gaussian', D = 5); m$fit(X, y); "
             "list(coeff = m$coeff, prefilter = m$prefilter, kernel.param = m$kernel.param, "
             "score = m$predict(X, raw.value = TRUE))"),
        lambda rng: (lambda m: {
            "coeff": m.coeff, "prefilter": m.prefilter, "kernel.param": m.kernel_param,
            "score": m.predict(_X_CLS, raw_value=True).reshape(-1, 1),
        })(dppack.svmDP("l2", 1, 1, "output", kernel="Gaussian", D=5).fit(
            _X_CLS, _Y_CLS, random_state=rng)),
    ),
    "erm_svm_gaussian_objective_bias": (
        _erm("m <- svmDP$new('l2', 2, 0.5, kernel = 'Gaussian', D = 4, kernel.param = 0.3); "
             "m$fit(X, y, add.bias = TRUE); m$coeff"),
        lambda rng: dppack.svmDP("l2", 2, 0.5, kernel="Gaussian", D=4, kernel_param=0.3).fit(
            _X_CLS, _Y_CLS, add_bias=True, random_state=rng).coeff,
    ),
    "erm_svm_weighted": (
        _erm("m <- svmDP$new('l2', 1, 1, 'output'); m$fit(X, y, c(1, 1), c(-1, -1), "
             "weights = w, weights.upper.bound = 1); m$coeff"),
        lambda rng: dppack.svmDP("l2", 1, 1, "output").fit(
            _X_CLS, _Y_CLS, [1, 1], [-1, -1], weights=_W_CLS, weights_upper_bound=1,
            random_state=rng).coeff,
    ),
    "erm_linreg_pure": (
        _erm("m <- LinearRegressionDP$new('l2', 1, 0, 1); "
             "m$fit(Xr, yr, c(1, 1, 2), c(-1, -1, -2)); m$coeff"),
        lambda rng: dppack.LinearRegressionDP("l2", 1, 0, 1).fit(
            _X_REG, _Y_REG, [1, 1, 2], [-1, -1, -2], random_state=rng).coeff,
    ),
    "erm_linreg_approx_bias": (
        _erm("m <- LinearRegressionDP$new('l2', 1, 0.01, 1); "
             "m$fit(Xr, yr, c(1, 1, 2), c(-1, -1, -2), add.bias = TRUE); m$coeff"),
        lambda rng: dppack.LinearRegressionDP("l2", 1, 0.01, 1).fit(
            _X_REG, _Y_REG, [1, 1, 2], [-1, -1, -2], add_bias=True, random_state=rng).coeff,
    ),
    "erm_cms_r_wrappers_objective": (
        _erm("m <- EmpiricalRiskMinimizationDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "
             "'l2', 1, 1, 'objective', c = 1, mapXy.gr = mapXy.gr.linear, "
             "loss.gr = generate.loss.gr.huber(0.5)); "
             "m$fit(X / 2, 2 * y - 1, c(0.5, 0.5), c(-0.5, -0.5)); m$coeff"),
        lambda rng: _cms_huber(rng, "objective"),
    ),
    "erm_weighted_cms_r_wrappers_output": (
        _erm("m <- WeightedERMDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "
             "'l2', 1, 1, 'output', c = 1, mapXy.gr = mapXy.gr.linear, "
             "loss.gr = generate.loss.gr.huber(0.5)); "
             "m$fit(X / 2, 2 * y - 1, c(0.5, 0.5), c(-0.5, -0.5), weights = w, "
             "weights.upper.bound = 1); m$coeff"),
        lambda rng: _cms_huber(rng, "output", weighted=True, weights=_W_CLS),
    ),
    "erm_kst_r_wrappers": (
        _erm("m <- EmpiricalRiskMinimizationDP.KST$new(mapXy.linear, loss.squared.error, 'l2', "
             "1, 0, list(constraints = function(coeff) sum(coeff^2) - 2, "
             "jacobian = function(coeff) 2 * coeff), 2 * 2^1.5, 2, 1, "
             "mapXy.gr = mapXy.gr.linear, loss.gr = loss.gr.squared.error); "
             "m$fit(Xr, yr, c(1, 1, 2), c(-1, -1, -2)); m$coeff"),
        _kst_ball,
    ),
    "erm_tune_classification": (
        _erm("ms <- lapply(c(100, 1, 1e-4), function(g) LogisticRegressionDP$new('l2', 1, g)); "
             "b <- tune_classification_model(ms, X, y, c(1, 1), c(-1, -1)); "
             "list(coeff = b$coeff, gamma = b$gamma, "
             "all = sapply(ms, function(m) m$coeff))"),
        lambda rng: (lambda ms: {
            **_tuned(dppack.tune_classification_model(ms, _X_CLS, _Y_CLS, [1, 1], [-1, -1],
                                                      random_state=rng)),
            "all": np.column_stack([m.coeff for m in ms]),
        })([dppack.LogisticRegressionDP("l2", 1, g) for g in (100, 1, 1e-4)]),
    ),
    "erm_tune_classification_weighted_svm": (
        _erm("ms <- lapply(c(100, 1, 1e-4), function(g) svmDP$new('l2', 1, g, 'output')); "
             "b <- tune_classification_model(ms, X, y, c(1, 1), c(-1, -1), add.bias = TRUE, "
             "weights = w, weights.upper.bound = 1); list(coeff = b$coeff, gamma = b$gamma)"),
        lambda rng: _tuned(dppack.tune_classification_model(
            [dppack.svmDP("l2", 1, g, "output") for g in (100, 1, 1e-4)], _X_CLS, _Y_CLS,
            [1, 1], [-1, -1], add_bias=True, weights=_W_CLS, weights_upper_bound=1,
            random_state=rng)),
    ),
    "erm_tune_linear_regression": (
        _erm("ms <- lapply(c(100, 1, 1e-4), "
             "function(g) LinearRegressionDP$new('l2', 1, 0.01, g)); "
             "b <- tune_linear_regression_model(ms, Xr, yr, c(1, 1, 2), c(-1, -1, -2), "
             "add.bias = TRUE); list(coeff = b$coeff, gamma = b$gamma)"),
        lambda rng: _tuned(dppack.tune_linear_regression_model(
            [dppack.LinearRegressionDP("l2", 1, 0.01, g) for g in (100, 1, 1e-4)], _X_REG,
            _Y_REG, [1, 1, 2], [-1, -1, -2], add_bias=True, random_state=rng)),
    ),
}


r_results = r_results_fixture(CASES, SEED)  # every case's R expression, in one R session


# The cases whose R expression does arithmetic in R (R functions as map, loss, constraint):
# name -> the absolute tolerance, from the solver's stopping rule (the ERM guide page, "Solver numerics").
R_ARITHMETIC = {
    "erm_cms_r_wrappers_objective": lambda: _cms_tolerance(d=2, n=_X_CLS.shape[0], gamma=1),
    "erm_weighted_cms_r_wrappers_output": lambda: _cms_tolerance(d=2, n=_X_CLS.shape[0],
                                                                 gamma=1),
    "erm_kst_r_wrappers": _kst_tolerance,
}


@pytest.mark.parametrize("name", sorted(set(CASES) - set(R_ARITHMETIC)))
def test_r_and_python_agree_bit_for_bit(r_results, name):
    assert_same_bits(r_results[name], CASES[name][1](_rng()))


@pytest.mark.parametrize("name", sorted(R_ARITHMETIC))
def test_r_arithmetic_agrees_to_the_solver_tolerance(r_results, name):
    """R functions in the frameworks: R's BLAS and NumPy's kernels may round differently, so
    the two fits agree to the solver's optimality tolerance, not bit for bit."""
    atol = R_ARITHMETIC[name]()
    assert 0 < atol < 1e-4  # a tolerance that still tells a wrong fit from a right one
    assert_close(r_results[name], CASES[name][1](_rng()), atol)


def test_every_r_arithmetic_case_exists():
    assert set(R_ARITHMETIC) <= set(CASES)


def test_r_error_text_is_the_core_message():
    """An R user sees the core's ValueError text, without class prefix or traceback."""
    assert_core_message(run_in_r({"bad_eps": "LaplaceMechanism(0, -1, 1)"})["bad_eps"],
                        lambda: dppack.LaplaceMechanism(0, -1, 1))


def test_r_ledger_is_the_python_ledger():
    """The same releases charged to a BudgetAccountant in R and in Python: the same ledger."""
    expr = (
        "{acc <- BudgetAccountant$new(2, 1e-5); with_random_state(1, {"
        "LaplaceMechanism(1, 0.5, 1, accountant = acc); "
        "meanDP(c(1, 2, 3), 0.25, 0, 4, accountant = acc); "
        "GaussianMechanism(1, 0.5, 1e-6, 1, accountant = acc)}); capture.output(print(acc))}"
    )
    r_lines = run_in_r({"ledger": expr})["ledger"]["strings"]
    acc = dppack.BudgetAccountant(2, 1e-5)
    rng = np.random.default_rng(1)
    dppack.LaplaceMechanism(1, 0.5, 1, random_state=rng, accountant=acc)
    dppack.meanDP([1, 2, 3], 0.25, 0, 4, random_state=rng, accountant=acc)
    dppack.GaussianMechanism(1, 0.5, 1e-6, 1, random_state=rng, accountant=acc)
    assert r_lines == str(acc).split("\n")
    assert len(acc.ledger) == 3
