"""LinearRegressionDP's exact solve and its certificate (dppack.erm.kst, dppack.erm._solvers).

What is checked:

* :func:`dppack.erm._solvers.quadratic_ball_minimize` meets its exact (rational) certificate at
  the tiny data-independent residual LinearRegressionDP uses, on random problems with n from
  10 to 10^5, minimisers inside the ball and on the sphere, noise from small to dominant and
  ill-conditioned X'X (two nearly equal columns), and its point is within the certified
  radius of an independent solution (the interior solve, or the secular equation solved by
  bisection on the multiplier);
* a certificate that cannot be met raises ``ConvergenceError`` (never a silent release);
* the radius (:func:`dppack.erm._approximate.ball_radius`) bounds the distance to the exact
  minimiser on random problems, also for deliberately perturbed points;
* the fit: the tolerance, radius, budget split and grid depend on n, p, eps and the model's
  functions only (two data sets of the same size give the same ones), the released law is
  unchanged in form (a multiple of 2^k plus the exact release noise), the general solver
  still serves a user regularizer, and the accuracy returns to that of the exact
  minimiser (median coefficient error at n = 10^4 within 10% of the non-released minimiser's).
"""

import math
from fractions import Fraction

import numpy as np
import pytest

import dppack
from dppack.erm import _kst_framework, _approximate as approximate, kst, _solvers as solvers
from dppack.erm.kst import LinearRegressionDP


def _problem(rng, n, p, ill=False, noise_scale=1.0):
    """G = X'X, c = X'y of a scaled LinearRegressionDP design (|x| <= 1, |y| <= p) of n rows
    (at most 2000 drawn, the sums scaled to n), and a noise vector."""
    rows = min(n, 2000)
    X = rng.uniform(-1, 1, (rows, p))
    if ill and p > 1:
        X[:, -1] = np.clip(X[:, 0] + 1e-7 * rng.standard_normal(rows), -1, 1)
    y = np.clip(X @ rng.uniform(-2, 2, p) + rng.normal(0, 0.5, rows), -p, p)
    factor = n / rows
    return factor * (X.T @ X), factor * (X.T @ y), noise_scale * rng.standard_normal(p)


def _tolerances(n, p, shift):
    zeta, lambda_ = 2 * p ** 1.5, float(p)
    rho = kst.QUADRATIC_RESIDUAL * (zeta + math.sqrt(p) * (lambda_ + shift / n))
    return Fraction(rho) * n, p * kst.QUADRATIC_GAP


def _reference(G, c, shift, p):
    """The minimiser of x'(G + s I)x/2 - c'x over ||x||^2 <= p (to about 1e-10) and its
    multiplier: the interior solution, or the secular equation ||(G + (s + nu) I)^-1 c||^2 = p
    solved by bisection on nu (no eigendecomposition: independent of the solver)."""
    A = G + shift * np.eye(p)
    x = np.linalg.solve(A, c)
    if x @ x <= p:
        return x, 0.0
    low, high = 0.0, float(np.linalg.norm(c)) / math.sqrt(p)
    for _ in range(200):
        mid = (low + high) / 2
        y = np.linalg.solve(A + mid * np.eye(p), c)
        if y @ y > p:
            low = mid
        else:
            high = mid
    return np.linalg.solve(A + high * np.eye(p), c), high


CASES = [(n, p, ill, noise)
         for n in (10, 137, 2000, 31_000, 100_000)
         for p in (1, 2, 4, 7)
         for ill in (False, True)
         for noise in (1.0, 1e3)]


@pytest.mark.parametrize("n, p, ill, noise", CASES)
def test_exact_solve_meets_the_tiny_certificate(n, p, ill, noise):
    rng = np.random.default_rng(n * 31 + p * 7 + int(ill) + int(noise))
    G, c, b = _problem(rng, n, p, ill, noise)
    shift = float(rng.uniform(0.5, 20.0))
    tol, gap = _tolerances(n, p, shift)
    x = solvers.quadratic_ball_minimize(G, c, shift, float(p), tol, gap, noise=b)
    ok, residual, slack = solvers.quadratic_ball_certificate(
        G, [Fraction(float(a)) - Fraction(float(e)) for a, e in zip(c, b)], shift, x,
        float(p), tol, gap)
    assert ok and slack >= 0
    # and it is that close to the minimiser: within the certified radius (n J scale: m = s)
    reference, _ = _reference(G, c - b, shift, p)
    radius = approximate.ball_radius(float(tol), gap, shift)
    assert np.linalg.norm(x - reference) <= radius + 1e-9 * math.sqrt(p)


def test_both_kinds_of_minimiser_are_covered():
    """The cases above include minimisers inside the ball and on the sphere."""
    kinds = set()
    for n, p, ill, noise in CASES:
        rng = np.random.default_rng(n * 31 + p * 7 + int(ill) + int(noise))
        G, c, b = _problem(rng, n, p, ill, noise)
        shift = float(rng.uniform(0.5, 20.0))
        kinds.add(_reference(G, c - b, shift, p)[1] > 0)
    assert kinds == {False, True}


def test_unreachable_certificate_raises():
    rng = np.random.default_rng(3)
    G, c, b = _problem(rng, 5000, 4)
    with pytest.raises(solvers.ConvergenceError, match="did not reach its certificate"):
        solvers.quadratic_ball_minimize(G, c, 1.0, 4.0, Fraction(1, 2 ** 200), 2.0 ** -200,
                                        noise=b)


def test_ball_radius_bounds_the_distance_of_perturbed_points():
    """Points near the minimiser, inside the ball: the exact residual (best nu >= 0) and
    slack give a radius that covers the true distance."""
    rng = np.random.default_rng(11)
    for trial in range(200):
        p = int(rng.integers(1, 6))
        G, c, b = _problem(rng, int(rng.integers(10, 1000)), p, noise_scale=100.0)
        shift = float(rng.uniform(0.5, 5.0))
        theta, _ = _reference(G, c - b, shift, p)
        x = theta + 10.0 ** rng.uniform(-8, -2) * rng.standard_normal(p)
        if x @ x > p:
            x = x * math.sqrt(p / (x @ x)) * (1 - 1e-12)
        A = G + shift * np.eye(p)
        grad = A @ x - (c - b)
        nu = max(0.0, -float(grad @ x) / float(x @ x))
        residual = float(np.linalg.norm(grad + nu * x))
        slack = p - float(x @ x) if nu > 0 else 0.0
        bound = approximate.ball_radius(residual, max(slack, 0.0), shift)
        assert np.linalg.norm(x - theta) <= bound * (1 + 1e-6) + 1e-9


def _design(n, seed):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    beta = np.array([0.5, 0.3, -0.2, 0.1])
    y = np.clip(beta[0] + X @ beta[1:] + 0.1 * rng.standard_normal(n), -2, 2)
    return X, y, beta


BOUNDS = ([1, 1, 1, 2], [-1, -1, -1, -2])


def test_certificate_and_split_do_not_depend_on_the_data():
    first = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(*_design(3000, 1)[:2], *BOUNDS,
                                                        add_bias=True, random_state=1)
    X, y, _ = _design(3000, 2)
    second = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(-X, np.sign(y), *BOUNDS,
                                                         add_bias=True, random_state=2)
    for name in ("optimality_tolerance_", "release_sensitivity_", "release_grid_",
                 "release_eps_", "Delta_"):
        assert getattr(first, name) == getattr(second, name)
    # the formulas: rho = 2^-46 (zeta + sqrt(p)(lambda + m)) (X'X and X'y of the grid records
    # are exact: no rounding term), r = 2 rho/m + sqrt(p 2^-50) (raised by 2^-40 of itself)
    n, p = 3000, 4
    zeta, m = 2 * p ** 1.5, (first.Delta_ + 1.0) / n
    rho = 2.0 ** -46 * (zeta + 2 * (p + m))
    assert first.optimality_tolerance_ == pytest.approx(rho, rel=1e-12)
    radius = (2 * rho / m + math.sqrt(p * 2.0 ** -50))
    assert first.release_sensitivity_ == pytest.approx(2 * radius, rel=1e-9)


def test_release_is_on_the_grid_with_exact_noise(monkeypatch):
    """The released law keeps its form: release(theta, 2r, eps_2) of the certified point
    (dppack.erm._approximate.release: g (round(theta/g) + Z))."""
    seen = {}
    original = _kst_framework.release

    def spy(values, sensitivity, eps, rng, standard=None):
        out = original(values, sensitivity, eps, rng, standard)
        seen.update(values=np.array(values), sensitivity=sensitivity, eps=eps, out=out)
        return out

    monkeypatch.setattr(_kst_framework, "release", spy)
    X, y, _ = _design(2000, 5)
    model = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X, y, *BOUNDS, add_bias=True,
                                                        random_state=3)
    assert seen["sensitivity"] == model.release_sensitivity_
    assert seen["eps"] == model.release_eps_
    units = np.ldexp(seen["out"], -model.release_grid_)
    assert np.array_equal(units, np.rint(units))
    assert float(seen["values"] @ seen["values"]) <= 4.0  # the certified point is feasible


def test_user_regularizer_keeps_the_general_solver():
    X, y, _ = _design(500, 6)
    model = LinearRegressionDP(lambda c: float(c @ c) / 2, 1.0, 0.0, 1.0,
                               regularizer_gr=lambda c: np.asarray(c))
    model.fit(X, y, *BOUNDS, add_bias=True, random_state=1)
    assert not model._quadratic_ball()
    assert model.optimality_tolerance_ == pytest.approx(
        max(kst.KST_RESIDUAL, kst.KST_RESIDUAL_SMALL_N / 500) * 2 * 4 ** 1.5)
    assert LinearRegressionDP("l2", 1.0, 0.0, 1.0)._quadratic_ball()


def test_failed_certificate_is_a_convergence_error(monkeypatch):
    """A fit whose solve cannot be certified is refused (ConvergenceError), not released with
    another radius."""
    monkeypatch.setattr(_kst_framework, "QUADRATIC_RESIDUAL", 2.0 ** -200)
    X, y, _ = _design(2000, 7)
    with pytest.raises(solvers.ConvergenceError):
        LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X, y, *BOUNDS, add_bias=True,
                                                    random_state=1)


def test_accuracy_returns_to_that_of_the_exact_minimiser(monkeypatch):
    """n = 10^4, eps = 1: the median (over 40 fits) of the median absolute coefficient error
    is within 10% of that of the same fits without the release step (the exact objective
    perturbation; the split's eps_2 then 0). Each fit's release noise is below 1e-4 of the
    error scale, so the difference is the budget split alone (eps_1 about 0.99 eps)."""
    errors = []
    for s in range(40):
        X, y, beta = _design(10_000, 100 + s)
        model = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X, y, *BOUNDS, add_bias=True,
                                                            random_state=s)
        errors.append(np.median(np.abs(model.coeff - beta)))
    monkeypatch.setattr(kst.EmpiricalRiskMinimizationDP_KST, "_noise_ratio",
                        lambda self, *args: 0.0)
    monkeypatch.setattr(_kst_framework, "release", lambda values, *args, **kw: np.asarray(values))
    exact = []
    for s in range(40):
        X, y, beta = _design(10_000, 100 + s)
        model = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X, y, *BOUNDS, add_bias=True,
                                                            random_state=s)
        exact.append(np.median(np.abs(model.coeff - beta)))
    assert np.median(errors) <= 1.1 * np.median(exact)
