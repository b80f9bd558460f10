"""Tests of ``dppack.erm._solvers``: each algorithm reaches its stopping rule on a problem with a
known answer, and refuses (``ConvergenceError``, with its message) when it cannot.

What is checked:

* the certified CMS solver (:func:`minimize_smooth`) against the ridge closed form on every
  path (Newton first, L-BFGS-B first, finite differences), certified to its ``gtol``, and its
  refusal (NOT_CONVERGED_MESSAGE) when its step limits are planted at 1;
* the shared damped Newton (:func:`damped_newton`) against the ridge closed form and, on a
  logistic problem, against a gradient evaluated independently in extended precision (also
  past a loose ``gtol``: its step rule runs on); None when it runs out of steps;
* the confidence intervals' Newton (:func:`margin_newton`) against the closed form of a
  squared margin loss and, for the logistic loss, against the extended-precision gradient
  (<= 1e-10, Wang, Kifer and Lee 2019, Algorithm 1 step 3); its refusal at 1 step;
* the KST solver (:func:`minimize_constrained`) against the closed-form projection onto a
  ball (constraint active and inactive, with and without derivatives), its refusal at one
  iteration and on an empty domain; the KKT check (:func:`kkt_residual`) rejects a feasible
  point that is not optimal and an infeasible one;
* accuracy-first's :func:`trust_region_solve` against A^-1 g (interior), the KKT
  conditions (boundary) and the closed form of a hard case, :func:`project_onto_ball` never
  above the radius after rounding;
* the finite-difference helper against analytic derivatives;
* ``ConvergenceError`` is a ValueError and a RuntimeError, one class, also in ``erm.cms``.

Everything is deterministic (fixed seeds, no statistical test): no false failures.
"""

import contextlib
import math

import numpy as np
import pytest

from dppack.erm import cms, _solvers as solvers
from dppack.erm._solvers import _smooth  # the module whose globals the smooth solvers read
from dppack.erm import _losses as dppack_losses
from dppack.erm._solvers import (
    ConvergenceError,
    central_differences,
    central_gradient,
    damped_newton,
    difference_hessian,
    kkt_residual,
    margin_newton,
    minimize_constrained,
    minimize_smooth,
    optimality_tolerance,
    project_onto_ball,
    trust_region_solve,
)


def _ridge(n=200, d=4, lam=0.05, seed=0):
    """J(theta) = ||y - X theta||^2 / (2n) + lam ||theta||^2 / 2 and its exact minimiser."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = X @ rng.normal(size=d) + rng.normal(size=n)
    A = X.T @ X / n + lam * np.eye(d)
    r = X.T @ y / n
    yy = float(y @ y) / (2 * n)

    def fun(theta):
        return float(theta @ A @ theta) / 2 - float(r @ theta) + yy, A @ theta - r

    return fun, A, r, np.linalg.solve(A, r)


def _logistic(n=400, d=3, seed=1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, d)) / math.sqrt(d)
    y = np.where(X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


def _logistic_gradient_long(X, y, lam, theta):
    """(1/n) sum -y_i x_i S(-y_i x_i'theta) + lam theta in extended precision (64-bit
    mantissa): an independent check of the solvers' float64 gradients."""
    X, y, theta = (np.asarray(a, dtype=np.longdouble) for a in (X, y, theta))
    z = y * (X @ theta)
    return (X.T @ (-y / (1 + np.exp(z)))) / X.shape[0] + lam * theta


# ---- (a) the CMS solver ---------------------------------------------------------------------


@pytest.mark.parametrize("path", ["newton", "lbfgs", "differences"])
def test_minimize_smooth_reaches_the_ridge_closed_form(path):
    fun, A, r, exact = _ridge()
    gtol = 1e-12
    if path == "differences":
        theta = minimize_smooth(lambda t: fun(t)[0], 4, None, gtol=1e-9)
        gtol = 1e-9
    else:
        theta = minimize_smooth(fun, 4, True, lambda t: A, gtol=gtol, newton=path == "newton")
    assert np.linalg.norm(A @ theta - r) <= gtol
    # strong convexity (smallest eigenvalue >= 0.05): ||theta - exact|| <= gtol / 0.05
    assert np.linalg.norm(theta - exact) <= gtol / np.linalg.eigvalsh(A)[0] * (1 + 1e-6)


def test_minimize_smooth_refuses_when_its_steps_are_cut_to_one(monkeypatch):
    """Planted: one L-BFGS-B iteration, one Newton step, one polish step on a logistic problem
    that needs several: ConvergenceError with the message that names the tolerance."""
    X, y = _logistic()
    lam, n = 1e-3, X.shape[0]

    def fun(theta):
        z = y * (X @ theta)
        value = float(np.mean(np.logaddexp(0, -z))) + lam * float(theta @ theta) / 2
        return value, X.T @ (-y / (1 + np.exp(z))) / n + lam * theta

    gtol = optimality_tolerance(n)
    assert minimize_smooth(fun, 3, True, gtol=gtol) is not None  # fine unplanted
    monkeypatch.setattr(_smooth, "LBFGS_OPTIONS", {**_smooth.LBFGS_OPTIONS, "maxiter": 1})
    monkeypatch.setattr(_smooth, "POLISH_STEPS", 1)
    monkeypatch.setattr(_smooth, "WARM_NEWTON_STEPS", 1)
    message = solvers.NOT_CONVERGED_MESSAGE.format(tolerance=gtol)
    with pytest.raises(ConvergenceError) as error:
        minimize_smooth(fun, 3, True, gtol=gtol)
    assert str(error.value) == message


def test_optimality_tolerance_is_the_slack_over_n():
    assert solvers.OPTIMALITY_SLACK == 1e-6
    assert optimality_tolerance(500) == 1e-6 / 500
    assert optimality_tolerance(500, 2.0, 3.0) == 1e-6 * 2.0 * 3.0 / 500
    assert optimality_tolerance(500, 1.0, 0.2) == optimality_tolerance(500)  # B < 1 counts as 1


# ---- the shared damped Newton ---------------------------------------------------------------


def test_damped_newton_reaches_the_ridge_closed_form():
    fun, A, _, exact = _ridge(d=6, seed=3)
    theta = damped_newton(fun, lambda t: A, np.zeros(6), 1e-12)
    np.testing.assert_allclose(theta, exact, rtol=1e-12, atol=1e-14)


def test_damped_newton_certifies_a_logistic_minimiser_in_extended_precision():
    X, y = _logistic(seed=4)
    lam, n = 1e-2, X.shape[0]

    def fun(theta):
        z = y * (X @ theta)
        value = float(np.mean(np.logaddexp(0, -z))) + lam * float(theta @ theta) / 2
        return value, X.T @ (-y / (1 + np.exp(z))) / n + lam * theta

    def hessian(theta):
        s = 1 / (1 + np.exp(-(X @ theta)))
        return (X.T * (s * (1 - s))) @ X / n + lam * np.eye(3)

    gtol = optimality_tolerance(n)
    theta = damped_newton(fun, hessian, np.zeros(3), gtol)
    # certified, and run on past gtol (its step rule: until the step is below 1e-10 |theta|)
    assert float(np.linalg.norm(_logistic_gradient_long(X, y, lam, theta))) <= 1e-2 * gtol
    # so even a loose gtol gives the minimiser to about 1e-10 relative
    loose = damped_newton(fun, hessian, np.zeros(3), 1e-3)
    assert float(np.linalg.norm(_logistic_gradient_long(X, y, lam, loose))) <= 1e-10
    assert damped_newton(fun, hessian, np.zeros(3), gtol, max_steps=1) is None


# ---- (b) the confidence intervals' Newton ---------------------------------------------------


def test_margin_newton_solves_a_squared_margin_loss_exactly():
    """f(z) = (1 - z)^2 / 2 with y = +1: (X'X/n + 2c I) theta = X'1/n, with a noise term."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4))
    y = np.ones(300)
    c, b = 0.02, rng.normal(size=4)
    theta = margin_newton(X, y, lambda z: (1 - z) ** 2 / 2, lambda z: z - 1,
                          lambda z: np.ones_like(z), c, b)
    exact = np.linalg.solve(X.T @ X / 300 + 2 * c * np.eye(4), (X.T @ y - b) / 300)
    np.testing.assert_allclose(theta, exact, rtol=1e-9, atol=1e-12)


def test_margin_newton_logistic_meets_the_spec_tolerance_in_extended_precision():
    X, y = _logistic(n=3000, d=4, seed=6)
    c = 5e-4  # the paper's scale: c = gamma / (2n)
    b = np.random.default_rng(7).normal(size=4)
    theta = margin_newton(X, y, lambda z: np.logaddexp(0, -z), lambda z: -1 / (1 + np.exp(z)),
                          lambda z: 0.5 / (1 + np.cosh(z)), c, b)
    grad = _logistic_gradient_long(X, y, 2 * c, theta) + np.asarray(b, np.longdouble) / 3000
    assert float(np.linalg.norm(grad)) <= solvers.EXACT_GRADIENT_TOLERANCE


def test_margin_newton_refuses_at_its_step_limit(monkeypatch):
    X, y = _logistic(seed=8)
    args = (X, y, lambda z: np.logaddexp(0, -z), lambda z: -1 / (1 + np.exp(z)),
            lambda z: 0.5 / (1 + np.cosh(z)), 1e-3, np.zeros(3))
    margin_newton(*args)  # fine unplanted
    monkeypatch.setattr(_smooth, "MAX_NEWTON_STEPS", 1)
    with pytest.raises(ConvergenceError) as error:
        margin_newton(*args)
    assert str(error.value) == ("Newton's method stopped at its iteration limit before the "
                                "gradient norm reached 1e-10; nothing was released.")


# ---- (c) the KST solver ---------------------------------------------------------------------


def _ball_problem(target, radius_sq):
    target = np.asarray(target, dtype=float)

    def objective(t):
        return float((t - target) @ (t - target)) / 2

    def gradient(t):
        return t - target

    def constraints(t):
        return np.array([t @ t - radius_sq])

    def jacobian(t):
        return 2 * t

    return objective, gradient, constraints, jacobian


@pytest.mark.parametrize("derivatives", [True, False])
@pytest.mark.parametrize("target", [[3.0, -1.0, 2.0], [0.2, -0.1, 0.3]])
def test_minimize_constrained_is_the_projection_onto_the_ball(derivatives, target):
    objective, gradient, constraints, jacobian = _ball_problem(target, 2.0)
    if not derivatives:
        gradient = jacobian = None
    theta = minimize_constrained(objective, gradient, constraints, jacobian, np.zeros(3))
    target = np.asarray(target)
    exact = target * min(1.0, math.sqrt(2.0) / np.linalg.norm(target))
    np.testing.assert_allclose(theta, exact, rtol=1e-6 if derivatives else 1e-4, atol=1e-9)


def test_minimize_constrained_refuses_at_one_iteration_and_on_an_empty_domain():
    objective, gradient, constraints, jacobian = _ball_problem([3.0, -1.0, 2.0], 2.0)
    message = r"^The KST optimisation did not converge to a feasible optimum \(SLSQP: .*\)\. "
    with pytest.raises(ConvergenceError, match=message):
        minimize_constrained(objective, gradient, constraints, jacobian, np.zeros(3),
                             max_iterations=1)
    with pytest.raises(ConvergenceError, match=message):
        minimize_constrained(objective, gradient, lambda t: np.array([1.0 + t @ t]), jacobian,
                             np.zeros(3))


def test_kkt_check_rejects_a_feasible_point_that_is_not_optimal():
    """min ||t - (2, 0)||^2 / 2 on the unit disc (g = 1 - ||t||^2 >= 0): (1, 0) is optimal;
    (0, 1) lies on the boundary but the gradient (-2, 1) is not a non-negative multiple of
    the constraint's gradient (0, -2): residual sqrt(5) with mu = 0 (NNLS)."""
    _, gradient, _, _ = _ball_problem([2.0, 0.0], 1.0)

    def g(t):
        return np.array([1.0 - t @ t])

    def g_jac(t):
        return -2.0 * t.reshape(1, -1)

    residual, feasible = kkt_residual(np.array([1.0, 0.0]), gradient, g, g_jac, 1e-8)
    assert feasible and residual <= 1e-15
    residual, feasible = kkt_residual(np.array([0.0, 1.0]), gradient, g, g_jac, 1e-8)
    assert feasible and residual == pytest.approx(math.sqrt(5.0), rel=1e-12)
    residual, feasible = kkt_residual(np.array([0.6, 0.0]), gradient, g, g_jac, 1e-8)
    assert feasible and residual == pytest.approx(1.4, rel=1e-12)  # interior: ||grad||
    assert kkt_residual(np.array([1.1, 0.0]), gradient, g, g_jac, 1e-8) == (np.inf, False)


# ---- (d) accuracy-first ---------------------------------------------------------------------


def test_trust_region_solve_interior_and_boundary():
    rng = np.random.default_rng(9)
    M = rng.normal(size=(4, 4))
    A = M @ M.T + 0.5 * np.eye(4)
    g = rng.normal(size=4)
    inside = np.linalg.solve(A, g)
    np.testing.assert_allclose(trust_region_solve(A, g, 2 * np.linalg.norm(inside)), inside,
                               rtol=1e-12)
    radius = 0.5 * float(np.linalg.norm(inside))
    theta = trust_region_solve(A, g, radius)
    assert float(np.linalg.norm(theta)) <= radius
    assert float(np.linalg.norm(theta)) == pytest.approx(radius, rel=1e-12)
    # KKT on the boundary: A theta - g = -mu theta with mu >= 0
    residual = A @ theta - g
    mu = -float(residual @ theta) / float(theta @ theta)
    assert mu >= 0
    np.testing.assert_allclose(residual, -mu * theta, atol=1e-10)


def test_trust_region_solve_hard_case():
    """A = diag(-1, 2), g = (0, 1) orthogonal to the bottom eigenvector: mu = 1, theta =
    (sqrt(R^2 - 1/9), 1/3) up to the sign of the first coordinate."""
    theta = trust_region_solve(np.diag([-1.0, 2.0]), np.array([0.0, 1.0]), 2.0)
    assert float(np.linalg.norm(theta)) <= 2.0
    np.testing.assert_allclose(np.abs(theta), [math.sqrt(4.0 - 1.0 / 9.0), 1.0 / 3.0],
                               rtol=1e-12)


def test_project_onto_ball_never_exceeds_the_radius():
    """Plain scaling t R / ||t|| lands an ulp above R in about one case in five."""
    rng = np.random.default_rng(10)
    for _ in range(200):
        t = 3 * rng.normal(size=5)
        radius = float(rng.uniform(0.1, 1.0))
        assert float(np.linalg.norm(t)) > radius  # outside: projected
        out = project_onto_ball(t, radius)
        assert float(np.linalg.norm(out)) <= radius
        np.testing.assert_allclose(out, t * (radius / np.linalg.norm(t)), rtol=1e-15)
    inside = np.array([0.1, 0.2])
    assert project_onto_ball(inside, 1.0) is inside


# ---- finite differences ---------------------------------------------------------------------


def test_central_differences_match_analytic_derivatives():
    theta = np.array([0.7, -1.3, 2.0])

    def f(t):
        return float(np.sin(t[0]) * t[1] ** 2 + np.exp(t[2] / 2))

    def grad(t):
        return np.array([np.cos(t[0]) * t[1] ** 2, 2 * np.sin(t[0]) * t[1],
                         np.exp(t[2] / 2) / 2])

    def hess(t):
        return np.array([[-np.sin(t[0]) * t[1] ** 2, 2 * np.cos(t[0]) * t[1], 0.0],
                         [2 * np.cos(t[0]) * t[1], 2 * np.sin(t[0]), 0.0],
                         [0.0, 0.0, np.exp(t[2] / 2) / 4]])

    np.testing.assert_allclose(central_gradient(f, theta), grad(theta), atol=1e-9)
    np.testing.assert_allclose(difference_hessian(grad, theta), hess(theta), atol=1e-8)
    J = central_differences(lambda t: np.array([t[0] * t[1], t[2] ** 2]), theta, 1e-5)
    np.testing.assert_allclose(J, [[theta[1], theta[0], 0.0], [0.0, 0.0, 2 * theta[2]]],
                               atol=1e-9)
    with pytest.raises(ValueError):
        central_gradient(lambda t: t, theta)


# ---- the error ------------------------------------------------------------------------------


def test_convergence_error_is_one_class_and_both_kinds_of_error():
    assert issubclass(ConvergenceError, ValueError)
    assert issubclass(ConvergenceError, RuntimeError)
    assert cms.ConvergenceError is ConvergenceError


@pytest.mark.parametrize("newton", [True, False])
def test_minimize_smooth_evaluates_each_point_once_in_a_row(newton):
    """The polish starts where L-BFGS-B or Newton ended: the point just evaluated is not
    evaluated again (remember_last), and the answer is the same as without the memory."""
    rng = np.random.default_rng(4)  # seed: any data; deterministic
    X = rng.uniform(-1, 1, size=(400, 3)) / 2
    y = np.where(X @ np.array([1.0, -2.0, 0.5]) + rng.logistic(size=400) > 0, 1.0, -1.0)
    risk = dppack_losses.logistic().risk(X, y, ridge=0.1)
    points = []

    def fun(theta):
        points.append(np.array(theta))
        return risk(theta)

    theta = solvers.minimize_smooth(fun, 3, True, risk.hessian, gtol=1e-12, newton=newton)
    assert all(not np.array_equal(a, b) for a, b in zip(points, points[1:]))
    assert np.linalg.norm(risk(theta)[1]) <= 1e-12
    # the memory returns a copy of the gradient: a caller that changes it changes no other
    remembered = solvers.remember_last(risk)
    first = remembered(theta)[1]
    first += 1.0
    assert np.array_equal(remembered(theta)[1], risk(theta)[1])


def _blas_threads():
    """{folder of the library: its number of threads} of the loaded OpenBLAS libraries."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    return {library["filepath"].split("/")[-2]: library["num_threads"]
            for library in threadpoolctl.threadpool_info()
            if library["internal_api"] == "openblas"}


def test_lbfgsb_runs_scipys_own_blas_on_one_thread(monkeypatch):
    """Inside minimize_smooth's L-BFGS-B, the OpenBLAS that SciPy's wheels bundle (scipy.libs)
    runs on one thread and NumPy's keeps its threads (the objective's products use it);
    both are as before afterwards; the coefficients are the same bits as without the limit
    (issue 14, item 5)."""
    if _smooth._scipy_blas_controller() is None:
        pytest.skip("SciPy has no BLAS of its own here (or threadpoolctl is missing)")
    before = _blas_threads()
    rng = np.random.default_rng(6)  # seed: any data; deterministic
    X = rng.uniform(-1, 1, size=(3000, 30)) / 6
    y = np.where(X @ rng.normal(size=30) + rng.logistic(size=3000) > 0, 1.0, -1.0)
    risk = dppack_losses.logistic().risk(X, y, ridge=0.01)
    seen = []

    def fun(theta):
        seen.append(_blas_threads())
        return risk(theta)

    for newton in (True, False):
        seen.clear()
        theta = solvers.minimize_smooth(fun, 30, True, risk.hessian, gtol=1e-10, newton=newton)
        inside = [threads for threads in seen if threads["scipy.libs"] == 1]
        assert inside, "L-BFGS-B ran with SciPy's BLAS on its threads"
        assert all(threads["numpy.libs"] == before["numpy.libs"] for threads in seen)
        assert _blas_threads() == before
        monkeypatch.setattr(_smooth, "lbfgsb_blas_threads", contextlib.nullcontext)
        assert np.array_equal(
            solvers.minimize_smooth(risk, 30, True, risk.hessian, gtol=1e-10, newton=newton),
            theta)
        monkeypatch.undo()


# --------------------------------------------------------------------------------------------
# The certified mode of minimize_constrained (approximate minima perturbation, dppack.erm.kst)
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", [[3.0, -1.0, 2.0], [0.2, -0.1, 0.3], [1.0, 1.0, 0.0]])
def test_certified_constrained_minimiser_is_within_the_radius(target):
    # The objective ||t - target||^2 / 2 is 1-strongly convex: the certified point lies
    # within 6 tol / m of the projection (dppack.erm._approximate.constrained_radius); the
    # third target lies exactly on the sphere of radius sqrt(2) (a boundary minimiser with a
    # zero multiplier). Deterministic.
    objective, gradient, constraints, jacobian = _ball_problem(target, 2.0)
    tol = 1e-8
    theta = minimize_constrained(objective, gradient, constraints, jacobian, np.zeros(3),
                                 residual_tol=tol, modulus=1.0)
    target = np.asarray(target)
    exact = target * min(1.0, math.sqrt(2.0) / np.linalg.norm(target))
    assert theta @ theta <= 2.0  # feasible as computed
    assert np.linalg.norm(theta - exact) <= 6 * tol


def test_kkt_certificate_needs_feasibility_residual_and_slackness():
    from dppack.erm._solvers import SLACKNESS_FACTOR, kkt_certificate, pull_inside, push_to_boundary
    _, gradient, _, _ = _ball_problem([2.0, 0.0], 1.0)

    def g(t):
        return np.array([1.0 - t @ t])

    def g_jac(t):
        return -2.0 * t.reshape(1, -1)

    assert kkt_certificate(np.array([1.0, 0.0]), gradient, g, g_jac, 1e-7, 1.0)
    # outside the disc (g < 0): refused, and pulled back inside towards the start
    outside = np.array([1.0 + 1e-15, 0.0])
    assert not kkt_certificate(outside, gradient, g, g_jac, 1e-7, 1.0)
    inside = pull_inside(outside, g, np.zeros(2), g(np.zeros(2)))
    assert g(inside)[0] >= 0 and np.linalg.norm(inside - outside) < 1e-12
    # just inside the boundary: complementary slackness mu g = 1/2 * 2e-6 too large ...
    near = np.array([math.sqrt(1 - 2e-6), 0.0])
    assert 0.5 * 2e-6 > SLACKNESS_FACTOR * 1e-14
    assert not kkt_certificate(near, gradient, g, g_jac, 1e-7, 1.0)
    # ... until pushed onto it
    pushed = push_to_boundary(near, g, np.zeros(2))
    assert kkt_certificate(pushed, gradient, g, g_jac, 1e-7, 1.0)
    # a feasible point that is not optimal
    assert not kkt_certificate(np.array([0.0, 1.0]), gradient, g, g_jac, 1e-7, 1.0)
