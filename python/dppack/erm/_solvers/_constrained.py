"""Minimisation over a convex domain or an L2 ball with a certificate: KST's SLSQP fit (KKT
conditions), accuracy-first's trust-region problems and the exact quadratic solve.
"""

import math
from fractions import Fraction

import numpy as np

from ._common import ConvergenceError, GRADIENT_STEP, central_differences, central_gradient


# --------------------------------------------------------------------------------------------
# (c) KST: SLSQP, certified by the KKT conditions
# --------------------------------------------------------------------------------------------


FTOL = 1e-16  # SLSQP stops on changes of f: the gradient then reaches ~sqrt(FTOL)
KST_NOT_CONVERGED_MESSAGE = (
    "The KST optimisation did not converge to a feasible optimum (SLSQP: {message}). Check "
    "that the domain is convex and contains a feasible point, and that loss and regularizer "
    "(and their gradients) are correct."
)


def kkt_residual(theta, f_jac, g, g_jac, feasibility_tol):
    """The first-order optimality residual at ``theta`` for min f subject to g(theta) >= 0, and
    whether theta is feasible.

    The residual is min over mu >= 0 of ||grad f - J_A' mu|| over the near-active constraints A
    (non-negative least squares); infeasible points give (inf, False).

    Parameters
    ----------
    theta : ndarray
    f_jac : callable, the objective's gradient
    g : callable, the m constraints (>= 0 on the domain)
    g_jac : callable, their m x d Jacobian
    feasibility_tol : float

    Returns
    -------
    residual : float
    feasible : bool

    References
    ----------
    Nocedal and Wright (2006), Numerical Optimization, 2nd ed., Theorem 12.1 (KKT conditions).

    Examples
    --------
    min ||theta - (2, 0)||^2 / 2 over the unit disc, g = 1 - ||theta||^2: the optimum (1, 0)
    meets the conditions, the feasible point (0.5, 0) does not.

    >>> from dppack.erm._solvers import kkt_residual
    >>> import numpy as np
    >>> f_jac = lambda t: t - np.array([2.0, 0.0])
    >>> g = lambda t: np.array([1.0 - t @ t])
    >>> g_jac = lambda t: -2.0 * t.reshape(1, -1)
    >>> residual, feasible = kkt_residual(np.array([1.0, 0.0]), f_jac, g, g_jac, 1e-8)
    >>> feasible, residual < 1e-12
    (True, True)
    >>> kkt_residual(np.array([0.5, 0.0]), f_jac, g, g_jac, 1e-8)
    (1.5, True)
    """
    from scipy import optimize

    values = g(theta)
    if not np.all(values >= -feasibility_tol):
        return np.inf, False
    grad = f_jac(theta)
    active = values <= max(1e-6, 1e3 * feasibility_tol)
    if not np.any(active):
        return float(np.linalg.norm(grad)), True
    J = g_jac(theta)[active]
    _, residual = optimize.nnls(J.T, grad)
    return float(residual), True


def pull_inside(theta, g, theta0, g0):
    """The point nearest ``theta`` on the segment from the strictly feasible ``theta0``
    where g >= 0 as computed, or None.
    """
    if np.all(g(theta) >= 0):
        return theta
    if not np.all(g0 > 0):
        return None
    for j in range(52, 8, -4):
        s = 1.0 - 2.0 ** -j
        point = theta0 + s * (theta - theta0)
        if np.all(g(point) >= 0):
            return point
    return None


# kkt_certificate's bound on the complementary slackness, sigma <= SLACKNESS_FACTOR rho^2 / m:
# then sqrt(rho^2 + 2 m sigma) = 5 rho and the certified radius is 6 rho / m. A boundary point
# is only as close to the boundary as the constraint's rounding (g of about 1e-15 with
# multipliers of about 10), which rho^2 / m (about 1e-15) alone would not admit.
SLACKNESS_FACTOR = 12.0


def push_to_boundary(theta, g, theta0):
    """``theta`` moved outwards from ``theta0`` onto the boundary as computed, or None."""
    values = g(theta)
    start = float(np.min(values))
    if not start > 0:
        return None
    low, high = 1.0, None
    step = 1e-12
    while step < 1.0:  # an s > 1 where some constraint is violated
        if float(np.min(g(theta0 + (1.0 + step) * (theta - theta0)))) < 0:
            high = 1.0 + step
            break
        step *= 4.0
    if high is None:
        return None
    for _ in range(60):
        mid = (low + high) / 2.0
        if not low < mid < high:
            break
        if float(np.min(g(theta0 + mid * (theta - theta0)))) < 0:
            high = mid
        else:
            low = mid
    point = theta0 + low * (theta - theta0)
    return point if float(np.min(g(point))) >= 0 else None


def kkt_certificate(theta, f_jac, g, g_jac, residual_tol, modulus):
    """Whether feasible ``theta`` certifies ||theta - theta*|| <= 6 ``residual_tol`` / m
    (:ref:`guide-erm-solver-numerics`).
    """
    from scipy import optimize

    values = g(theta)
    if not np.all(values >= 0):
        return False
    grad = f_jac(theta)
    slack_tol = SLACKNESS_FACTOR * residual_tol * residual_tol / modulus
    if float(np.linalg.norm(grad)) <= residual_tol:
        return True
    J = None
    for a in (1e-6, 1e-9, 1e-12, 0.0):
        active = values <= a
        if not np.any(active):
            continue
        if J is None:
            J = g_jac(theta)
        mu, residual = optimize.nnls(J[active].T, grad)
        if residual <= residual_tol and float(mu @ values[active]) <= slack_tol:
            return True
    return False


def minimize_constrained(objective, gradient, constraints, jacobian, theta0,
                         max_iterations=None, residual_tol=None, modulus=None):
    """Minimise ``objective`` subject to ``constraints(theta) <= 0`` with SciPy's SLSQP, and
    certify the result by the KKT conditions.

    The solver of Kifer, Smith and Thakurta's objective perturbation; a result that fails the
    certificate is restarted, up to four runs (:ref:`guide-erm-solver-numerics`).

    Parameters
    ----------
    objective : callable, one number
    gradient : callable or None (None: :func:`central_gradient`)
    constraints : callable, m values, <= 0 on the domain
    jacobian : callable or None (None: :func:`central_differences`)
    theta0 : ndarray, the start
    max_iterations : int, optional (SLSQP's limit per run; default max(1000, 50 d))
    residual_tol, modulus : float, optional
        Both given (the KST fits): the absolute certificate of :func:`kkt_certificate`, so the
        point is within 6 residual_tol / modulus of the exact minimiser; else a relative check.

    Returns
    -------
    ndarray
        A feasible point satisfying the KKT conditions to the tolerance.

    Raises
    ------
    ConvergenceError
        When no run gives a certified feasible point, or a run returns non-finite values.

    References
    ----------
    Kifer, Smith and Thakurta (2012), COLT, Theorem 2 and Algorithm 1; Kraft (1988), SLSQP.

    Examples
    --------
    The point of the unit disc closest to (2, 0):

    >>> from dppack.erm._solvers import minimize_constrained
    >>> import numpy as np
    >>> theta = minimize_constrained(lambda t: float((t - [2.0, 0.0]) @ (t - [2.0, 0.0])) / 2,
    ...                              lambda t: t - np.array([2.0, 0.0]),
    ...                              lambda t: np.array([t @ t - 1.0]), lambda t: 2.0 * t,
    ...                              np.zeros(2))
    >>> np.allclose(theta, [1.0, 0.0], atol=1e-6)
    True
    """
    from scipy import optimize  # lazily: keeps `import dppack` fast

    p = theta0.size
    max_iterations = max(1000, 50 * p) if max_iterations is None else max_iterations

    def g(theta):
        return -np.asarray(constraints(theta), dtype=np.float64).reshape(-1)

    constraint = {"type": "ineq", "fun": g}
    if jacobian is not None:
        def g_jac(theta):
            return -np.asarray(jacobian(theta), dtype=np.float64).reshape(-1, p)
    else:
        def g_jac(theta):
            return central_differences(g, theta, GRADIENT_STEP)
    constraint["jac"] = g_jac

    if gradient is not None:
        f_jac = gradient
    else:
        def f_jac(theta):
            return central_gradient(objective, theta)

    g0 = g(theta0)
    feasibility_tol = 1e-8 * max(1.0, float(np.max(np.abs(g0))))
    grad_scale = max(1.0, float(np.linalg.norm(f_jac(theta0))))
    kkt_tol = (1e-7 if gradient is not None else 1e-4) * grad_scale

    def scaled(theta):
        return objective(theta) / grad_scale

    def scaled_jac(theta):
        return f_jac(theta) / grad_scale

    theta = theta0
    message = ""
    for _ in range(4):
        result = optimize.minimize(
            scaled, theta, jac=scaled_jac, method="SLSQP", constraints=[constraint],
            options={"ftol": FTOL, "maxiter": max_iterations},
        )
        theta = np.asarray(result.x, dtype=np.float64)
        message = result.message
        if not np.all(np.isfinite(theta)):
            break
        if residual_tol is not None:
            inside = pull_inside(theta, g, theta0, g0)
            if inside is None:
                continue
            if kkt_certificate(inside, f_jac, g, g_jac, residual_tol, modulus):
                return inside
            pushed = push_to_boundary(inside, g, theta0)
            if pushed is not None and kkt_certificate(pushed, f_jac, g, g_jac, residual_tol,
                                                      modulus):
                return pushed
            continue
        residual, feasible = kkt_residual(theta, f_jac, g, g_jac, feasibility_tol)
        if feasible and residual <= kkt_tol:
            return theta
    raise ConvergenceError(KST_NOT_CONVERGED_MESSAGE.format(message=message))


# --------------------------------------------------------------------------------------------
# (d) Accuracy-first: the trust-region subproblem and the projection onto the ball
# --------------------------------------------------------------------------------------------


def project_onto_ball(theta, radius):
    """The projection of ``theta`` onto the ball ||theta|| <= ``radius`` (computed norm too).

    Parameters
    ----------
    theta : ndarray
    radius : float, > 0

    Returns
    -------
    ndarray
        ``theta`` itself when inside, else a new array.

    References
    ----------
    Ligett, Neel, Roth, Waggoner and Wu (2017), Accuracy first, NeurIPS 30.

    Examples
    --------
    >>> from dppack.erm._solvers import project_onto_ball
    >>> import numpy as np
    >>> out = project_onto_ball(np.array([3.0, 4.0]), 1.0)
    >>> np.allclose(out, [0.6, 0.8]), bool(np.linalg.norm(out) <= 1.0)
    (True, True)
    """
    norm = float(np.linalg.norm(theta))
    if norm <= radius:
        return theta
    out = theta * (radius / norm)
    while float(np.linalg.norm(out)) > radius:
        out = out * (1.0 - 2.0 ** -52)
    return out


def trust_region_solve(A, g, radius):
    """argmin over ||theta|| <= R of theta'A theta / 2 - g'theta, A symmetric.

    Eigendecomposition, the secular equation (Brent), the hard case; the result is projected
    onto the ball against rounding. Details: :ref:`guide-erm-solver-numerics`.

    Parameters
    ----------
    A : ndarray, d x d, symmetric
    g : ndarray, d values
    radius : float, R > 0

    Returns
    -------
    ndarray, d values with computed norm <= R

    Raises
    ------
    numpy.linalg.LinAlgError
        If the eigendecomposition fails (non-finite A).

    References
    ----------
    Moré and Sorensen (1983), SIAM J. Sci. Stat. Comput. 4; Nocedal and Wright (2006),
    Section 4.3.

    Examples
    --------
    >>> from dppack.erm._solvers import trust_region_solve
    >>> import numpy as np
    >>> A, g = np.diag([2.0, -1.0]), np.array([1.0, 1.0])
    >>> theta = trust_region_solve(A, g, 2.0)
    >>> round(float(np.linalg.norm(theta)), 12)
    2.0
    >>> np.allclose(trust_region_solve(np.eye(2), g, 10.0), g)
    True
    """
    from scipy.optimize import brentq

    lam, Q = np.linalg.eigh(A)
    c = Q.T @ g
    if lam[0] > 0:
        inside = c / lam
        if np.linalg.norm(inside) <= radius:
            return project_onto_ball(Q @ inside, radius)
    low = max(0.0, -lam[0])
    base = lam + low if lam[0] > 0 else lam - lam[0]  # >= 0, exactly 0 at the bottom if lam0 <= 0
    c_norm = float(np.linalg.norm(c))
    spread = max(1.0, abs(lam[0]), abs(lam[-1]))

    def excess_norm(shift):
        return float(np.linalg.norm(c / (base + shift))) - radius

    start = 1e-30 * spread if lam[0] <= 0 else 0.0
    if c_norm > 0 and excess_norm(start) > 0:
        upper = c_norm / radius + 1e-14 * spread  # ||c / (base + s)|| <= ||c|| / s
        shift = brentq(excess_norm, start, upper, xtol=1e-300, rtol=4 * np.finfo(float).eps,
                       maxiter=2000)
        return project_onto_ball(Q @ (c / (base + shift)), radius)
    # hard case: mu = -lam_min, fill up the norm along the bottom eigenvector
    bottom = base <= 1e-12 * spread
    y = np.zeros_like(c)
    y[~bottom] = c[~bottom] / base[~bottom]
    y[np.flatnonzero(bottom)[0]] = math.sqrt(max(radius ** 2 - float(y @ y), 0.0))
    return project_onto_ball(Q @ y, radius)


# --------------------------------------------------------------------------------------------
# (e) KST with a quadratic objective over a ball: an exact solve, certified in rational
#     arithmetic
# --------------------------------------------------------------------------------------------


QUADRATIC_NOT_CERTIFIED_MESSAGE = (
    "The exact solve of the quadratic KST objective over the ball did not reach its "
    "certificate (KKT residual {residual:.3g} for a tolerance {tolerance:.3g}, slack "
    "{slack:.3g} for {gap:.3g}); the problem is too badly scaled for double precision.")


def _fractions(values):
    """The exact rational values of a float array (a list of Fractions)."""
    return [Fraction(float(v)) for v in np.ravel(values)]


def _exact_number(value):
    """A Fraction as it is, a float's exact rational value otherwise."""
    return value if isinstance(value, Fraction) else Fraction(float(value))


def _exact_residual(gram, cross, shift, x):
    """((G + s I) x - c, x) in exact rational arithmetic (lists of Fractions)."""
    xs = _fractions(x)
    return [sum((a * b for a, b in zip(row, xs)), Fraction(0)) + shift * xj - cj
            for row, xj, cj in zip(gram, xs, cross)], xs


def quadratic_ball_certificate(gram, cross, shift, x, radius2, residual_tol, gap_tol):
    """The exact certificate of :func:`quadratic_ball_minimize` at the float point ``x``.

    For q(x) = x'(G + s I) x / 2 - c'x over ||x||^2 <= R2, computes in rational arithmetic the
    slack h = R2 - ||x||^2, the best multiplier nu >= 0 and the residual ||grad q(x) + nu x||.

    Parameters
    ----------
    gram : ndarray or list (G, p x p; floats or rows of Fractions)
    cross : ndarray or list (c, p values)
    shift : float or Fraction (s)
    x : ndarray, p floats
    radius2 : float (R2)
    residual_tol, gap_tol : float or Fraction

    Returns
    -------
    (bool, float, float)
        Whether h >= 0 and the residual <= ``residual_tol`` (and, if nu > 0, h <= ``gap_tol``);
        the residual and h as floats.

    References
    ----------
    Nocedal and Wright (2006), Theorem 12.1; :func:`dppack.erm._approximate.ball_radius`.

    Examples
    --------
    >>> from dppack.erm._solvers import quadratic_ball_certificate
    >>> import numpy as np
    >>> quadratic_ball_certificate(np.zeros((2, 2)), np.array([2.0, 0.0]), 1.0,
    ...                            np.array([1.0, 0.0]), 1.0, 1e-12, 1e-12)
    (True, 0.0, 0.0)
    """
    gram_q = gram if isinstance(gram, list) else [_fractions(row) for row in gram]
    cross_q = cross if isinstance(cross, list) else _fractions(cross)
    base, xs = _exact_residual(gram_q, cross_q, _exact_number(shift), x)
    norm2 = sum((v * v for v in xs), Fraction(0))
    slack = _exact_number(radius2) - norm2
    tol2 = _exact_number(residual_tol) ** 2
    residual2 = sum((a * a for a in base), Fraction(0))  # nu = 0
    if slack >= 0 and residual2 <= tol2:
        return True, math.sqrt(float(residual2)), float(slack)
    along = sum((a * b for a, b in zip(base, xs)), Fraction(0))
    if norm2 > 0 and along < 0:
        nu = -along / norm2
        residual2 = sum(((a + nu * b) ** 2 for a, b in zip(base, xs)), Fraction(0))
    ok = slack >= 0 and residual2 <= tol2 and slack <= _exact_number(gap_tol)
    return ok, math.sqrt(float(residual2)), float(slack)


def quadratic_ball_minimize(gram, cross, shift, radius2, residual_tol, gap_tol, noise=None,
                            refinements=4, exact=None):
    """argmin over ||x||^2 <= R2 of x'(G + s I) x / 2 - c'x, certified in exact arithmetic.

    :func:`trust_region_solve`, then Newton steps with exactly computed residuals (interior, or
    the KKT system on the sphere). Details: :ref:`guide-erm-solver-numerics`.

    Parameters
    ----------
    gram : ndarray, p x p, symmetric positive semi-definite
    cross : ndarray, p values (c = cross - noise, formed exactly)
    shift : float or Fraction, s > 0
    radius2 : float, R2 > 0
    residual_tol, gap_tol : float
        The certificate of :func:`quadratic_ball_certificate`.
    noise : ndarray, optional (p values; zeros when omitted)
    refinements : int, default 4 (Newton steps per candidate)
    exact : (list, list), optional
        G and c as Fractions, of which ``gram`` and ``cross`` are roundings (then used for the
        residuals and the certificate).

    Returns
    -------
    ndarray, the certified point

    Raises
    ------
    ConvergenceError
        When no candidate meets the certificate (a data-dependent refusal; the tolerance is not).

    References
    ----------
    Moré and Sorensen (1983); Higham (2002), Accuracy and Stability of Numerical Algorithms, 2nd
    ed., ch. 12 (iterative refinement).

    Examples
    --------
    >>> from dppack.erm._solvers import quadratic_ball_minimize
    >>> import numpy as np
    >>> x = quadratic_ball_minimize(np.zeros((2, 2)), np.array([3.0, 4.0]), 1.0, 1.0,
    ...                             2.0 ** -40, 2.0 ** -46)
    >>> np.allclose(x, [0.6, 0.8]), bool(x @ x <= 1.0)
    (True, True)
    """
    gram = np.asarray(gram, dtype=np.float64)
    cross = np.asarray(cross, dtype=np.float64).ravel()
    p = cross.size
    if exact is None:
        gram_q = [_fractions(row) for row in gram]
        cross_q = _fractions(cross)
    else:
        gram_q = [list(row) for row in exact[0]]
        cross_q = list(exact[1])
    if noise is not None:
        noise = np.asarray(noise, dtype=np.float64).ravel()
        cross_q = [c - b for c, b in zip(cross_q, _fractions(noise))]
        cross = cross - noise  # rounded: the solve's start; the certificate is exact
    shift_q = _exact_number(shift)
    A = (gram + gram.T) / 2 + float(shift_q) * np.eye(p)
    lam, Q = np.linalg.eigh(A)
    radius2 = float(radius2)

    def certify(x):
        return quadratic_ball_certificate(gram_q, cross_q, shift_q, x, radius2, residual_tol,
                                          gap_tol)

    x0 = trust_region_solve(A, cross, math.sqrt(radius2))
    best = (math.inf, math.nan)
    # interior candidate: refine (G + s I) x = c
    if lam[0] > 0:
        x = Q @ ((Q.T @ cross) / lam)
        for _ in range(refinements):
            residual = np.array([float(v) for v in _exact_residual(gram_q, cross_q, shift_q,
                                                                    x)[0]])
            x = x - Q @ ((Q.T @ residual) / lam)
        if float(x @ x) <= radius2:
            ok, res, slack = certify(x)
            if ok:
                return x
            best = min(best, (res, slack))
    # boundary candidate: Newton on the KKT system in (x, nu)
    x = np.array(x0, dtype=np.float64)
    norm2 = float(x @ x)
    if norm2 > 0:
        residual = np.array([float(v) for v in _exact_residual(gram_q, cross_q, shift_q,
                                                                x)[0]])
        nu = max(0.0, -float(residual @ x) / norm2)
        for _ in range(refinements):
            base = _exact_residual(gram_q, cross_q, shift_q, x)
            nu_q = Fraction(nu)
            top = np.array([float(v + nu_q * w) for v, w in zip(*base)])
            bottom = float((sum((w * w for w in base[1]), Fraction(0))
                            - Fraction(radius2)) / 2)
            K = np.zeros((p + 1, p + 1))
            K[:p, :p] = A + nu * np.eye(p)
            K[:p, p] = x
            K[p, :p] = x
            step = np.linalg.solve(K, -np.concatenate([top, [bottom]]))
            x = x + step[:p]
            nu = max(0.0, nu + float(step[p]))
        # onto the sphere from inside, exactly: 0 <= R2 - ||x||^2 <= gap_tol
        for j in range(-16, 257):
            candidate = x * (1.0 - j * 2.0 ** -53) if j >= 0 else x * (1.0 - j * 2.0 ** -52)
            ok, res, slack = certify(candidate)
            if ok:
                return candidate
            if slack >= 0:
                best = min(best, (res, slack))
                if slack > gap_tol:
                    break
    raise ConvergenceError(QUADRATIC_NOT_CERTIFIED_MESSAGE.format(
        residual=best[0], tolerance=float(residual_tol), slack=best[1],
        gap=float(gap_tol)))
