"""The release step of the ERM fits: a minimiser rounded to a power-of-two grid plus exact
per-coordinate discrete Laplace noise, and the budget split of approximate minima
perturbation.

One home for the step that output perturbation (Chaudhuri, Monteleoni and Sarwate 2011,
Algorithm 1), objective perturbation (their Algorithm 2) and the KST framework (Kifer, Smith
and Thakurta 2012, Algorithm 1) use to release a vector whose L2 sensitivity is known: on
memory and on Dask data (:mod:`dppack.dask.erm` runs the same ``_fit`` on the driver).

The law. For a vector theta in R^d of L2 sensitivity S, the release is
g (round(theta / g) + Z), Z_j independent discrete Laplace integers
(:func:`dppack._random.discrete_laplace_noise`), calibrated to the L1 sensitivity
sqrt(d) S >= ||theta - theta'||_1 (Cauchy-Schwarz) with all d coordinates allowed to gain a
rounding step (``coordinates = d``; :func:`dppack._random.grid_units`). This is eps-DP
(Canonne, Kamath and Steinke 2020, the discrete Laplace; the release is a function of the
integer vector only, Mironov 2012). Every released value is a multiple of g = 2^k.

The cost against the l2-Laplace (K-norm) noise of Chaudhuri et al. 2011 (density
proportional to exp(-eps ||b|| / S)), which has no exact sampler here: its norm is
Gamma(d, eps / S), so each coordinate has variance E||b||^2 / d = (d + 1) S^2 / eps^2; the
per-coordinate Laplace of scale sqrt(d) S / eps has variance 2 d S^2 / eps^2. The standard
deviation grows by the factor sqrt(2 d / (d + 1)) <= sqrt(2) (1 for d = 1).

Approximate minima perturbation (Iyengar, Near, Song, Thakkar, Thakurta and Wang 2019,
"Towards practical differentially private convex optimization", IEEE S&P, Algorithm 1 and
Theorem 1). Objective perturbation's theorems assume the exact minimiser theta* of the
perturbed objective; a solver returns theta~ with a certified optimality residual. If the
perturbed objective is m-strongly convex and the certificate gives ||theta~ - theta*|| <= r
(r a data-independent number), then: the objective-perturbation proof couples the noise b
on D with a noise b' on a neighbour D' so that theta*(D, b) = theta*(D', b'), the density
ratio of b and b' being at most e^eps_1; the two approximate minimisers are then within 2r
of each other, and an output noise of L2 sensitivity 2r at eps_2 (the release above) makes
the released vector (eps_1 + eps_2)-DP (delta unchanged when the objective noise is
Gaussian). :func:`split_budget` chooses eps_2 (at least eps / 2^10, more when the certified
radius is large against the objective's noise) and leaves eps_1 = eps - eps_2 to the
objective, so the total charged is the user's eps.

Exactness. The output noise is drawn by the exact integer samplers and the released float
is a function of the private integer vector alone: no data-dependent floating-point
rounding reaches the output. The objective's own noise b (l2-Laplace or Gaussian) is drawn
in floating point: no exact sampler of a continuous density exists, and b is data-free
(drawn before the data are used); it is the one float-approximate part of those fits.

References
----------
Chaudhuri K, Monteleoni C, Sarwate AD (2011). Differentially private empirical risk
minimization. JMLR 12 (Theorems 6 and 9). Kifer D, Smith A, Thakurta A (2012). Private
convex empirical risk minimization and high-dimensional regression. COLT (Theorem 2).
Iyengar R, Near JP, Song D, Thakkar O, Thakurta A, Wang L (2019). Towards practical
differentially private convex optimization. IEEE S&P (Algorithm 1, Theorem 1). Canonne C,
Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy. NeurIPS.
Mironov I (2012). On significance of the least significant bits for differential privacy.
CCS.
"""

import math

import numpy as np

from .. import _random

__all__ = ["OUTPUT_SHARE", "l1_bound", "release_grid", "release", "split_budget",
           "strongly_convex_radius", "constrained_radius", "ball_radius"]

# eps_2 / eps of approximate minima perturbation (split_budget)
OUTPUT_SHARE = 2.0 ** -10


def l1_bound(l2_sensitivity, d):
    """An upper bound on sqrt(d) S, the L1 sensitivity of d values of L2 sensitivity S.

    Parameters
    ----------
    l2_sensitivity : float
        S > 0.
    d : int
        The number of values.

    Returns
    -------
    float
        sqrt(d) S rounded up by a relative 2^-50, so that the float product is never below
        the real one (two correctly rounded operations err by less than 2^-52 each).

    References
    ----------
    The Cauchy-Schwarz inequality, ||v||_1 <= sqrt(d) ||v||_2.

    Examples
    --------
    >>> from dppack.erm.approximate import l1_bound
    >>> l1_bound(1.0, 4) >= 2.0
    True
    """
    return math.sqrt(int(d)) * float(l2_sensitivity) * (1.0 + 2.0 ** -50)


def release_grid(l2_sensitivity, eps, d):
    """The grid and the integer scale of :func:`release`.

    Parameters
    ----------
    l2_sensitivity : float
        S > 0.
    eps : float
        > 0 and finite.
    d : int
        The number of values released.

    Returns
    -------
    (int, int, int, int)
        (k, units, t, s) of :func:`dppack._random.laplace_grid` for the L1 sensitivity
        :func:`l1_bound` (S, d), all d coordinates able to gain a rounding step.

    References
    ----------
    Canonne, Kamath and Steinke 2020 (the discrete Laplace).

    Examples
    --------
    >>> from dppack.erm.approximate import release_grid
    >>> k, units, t, s = release_grid(0.5, 1.0, 2)
    >>> t / s >= units  # the integer scale is at least D / eps
    True
    """
    return _random.laplace_grid(l1_bound(l2_sensitivity, d), float(eps), int(d))


def release(values, l2_sensitivity, eps, rng, standard=None):
    """Release a vector of L2 sensitivity S with exact noise on a power-of-two grid (eps-DP).

    Parameters
    ----------
    values : array_like of float
        theta, d finite values (the minimiser).
    l2_sensitivity : float
        S > 0: ||theta(D) - theta(D')||_2 <= S for neighbours D, D'.
    eps : float
        > 0 and finite.
    rng : NumPy Generator
        For the exact draw; unused when ``standard`` is given.
    standard : array_like, optional
        d standard Laplace values L_j (density exp(-|x|)/2), drawn beforehand and shared
        (stability-based validation, :class:`dppack.erm.cms.StandardNoise`): the integer
        noise is then round(L_j t / s) (t / s >= D / eps, the scale of the exact draw in
        grid units) instead of an exact discrete Laplace draw.

    Returns
    -------
    numpy.ndarray
        g (round(theta / g) + Z): d multiples of g = 2^k (k from :func:`release_grid`).

    Notes
    -----
    Without ``standard``: :func:`dppack._random.discrete_laplace_noise` with L1 sensitivity
    sqrt(d) S and ``coordinates = d``, exact (module docstring).

    With ``standard``: Z_j = round(L_j a), a = t / s. For integer vectors V, V' with
    ||V - V'||_1 <= D, the law of the rounded Laplace satisfies
    P(Z = z - V) <= exp(||V - V'||_1 / a) P(Z = z - V'), since shifting the interval
    [z - 1/2, z + 1/2) by an integer u changes the Laplace density pointwise by at most
    exp(|u| / a); with a >= D / eps the release is eps-DP. What is not exact: L_j and the
    product L_j a are floats (data-free; the law of round(L_j a) is the ideal rounded
    Laplace up to the float sampler's error); the released float is a function of the
    integer V + Z alone, as without ``standard``.

    Raises
    ------
    ValueError
        If ``standard`` does not have d values, or the values are too large for the grid.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate 2011 (Theorem 6: the L2 sensitivity of the minimiser);
    Canonne, Kamath and Steinke 2020 (the discrete Laplace); Mironov 2012.

    Examples
    --------
    >>> from dppack.erm.approximate import _random, release, release_grid
    >>> import numpy as np
    >>> out = release([0.25, -1.0], 0.5, 1.0, _random.as_generator(0))
    >>> k = release_grid(0.5, 1.0, 2)[0]
    >>> bool(np.all(np.ldexp(out, -k) == np.rint(np.ldexp(out, -k))))
    True
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    d = x.size
    if standard is None:
        return _random.discrete_laplace_noise(x, l1_bound(l2_sensitivity, d), eps, rng,
                                              coordinates=d)
    k, _, t, s = release_grid(l2_sensitivity, eps, d)
    standard = np.asarray(standard, dtype=np.float64).ravel()
    if standard.size != d:
        raise ValueError(f"standard has {standard.size} values where {d} were expected.")
    units = np.rint(standard * (t / s))  # data-free integers (floats), |units| << 2^53
    grid = np.rint(np.ldexp(x, -k))  # exact: x / 2^k only shifts the exponent
    total = grid + units  # an exact integer sum below 2^53
    if not (np.all(np.isfinite(total)) and np.all(np.abs(total) < 2.0 ** 53)):
        raise ValueError("The values are too large for the release grid.")
    # g (V + Z), exact: a function of the integer vector V + Z alone (as
    # dppack._random.discrete_laplace_noise releases)
    return np.ldexp(total, k)


def split_budget(eps, ratio=0.0):
    """(eps_1, eps_2) of approximate minima perturbation (Iyengar et al. 2019, Algorithm 1):
    eps_2 for the exact output noise, eps_1 = eps - eps_2 for the objective, so that the
    total is the user's eps.

    Parameters
    ----------
    eps : float
        > 0; an infinite eps gives (inf, inf) (no noise).
    ratio : float, default 0
        q, the output noise's standard deviation over the objective noise's effect on the
        minimiser when both are calibrated at the same eps (data-independent).

    Returns
    -------
    (float, float)
        eps_2 = eps s with s = min(1/2, max(2^-10, q^(2/3) / (1 + q^(2/3)))).

    Notes
    -----
    The total variance is about A / eps_1^2 + q^2 A / eps_2^2; it is smallest at
    eps_2 / eps_1 = q^(2/3), and there the standard deviation grows by about
    (1 + q^(2/3))^(3/2) over the objective noise alone. The floor 2^-10 keeps the output
    noise's scale within a factor 2^10 of its sensitivity. CMS fits certify g_tol = tau w_bar B
    / n (tau = 1e-6, :func:`dppack.erm.solvers.optimality_tolerance`), so q is about
    sqrt(2) tau and the floor applies: the objective noise grows by 0.1% and the release
    noise is about 1.4e-3 of the objective's effect. KST fits certify an absolute KKT
    residual (:mod:`dppack.erm.kst`), whose radius 6 K zeta n / (Delta + gamma) grows with n
    while the objective noise's effect shrinks as 1 / n: q grows as n^2
    (:meth:`dppack.erm.kst.EmpiricalRiskMinimizationDP_KST._noise_ratio`), and eps_2 reaches
    the cap eps / 2 for LinearRegressionDP from n of a few thousand (the objective's noise
    then doubles; its effect on the fit is small there). The cap keeps half the budget for
    the objective.

    References
    ----------
    Iyengar, Near, Song, Thakkar, Thakurta and Wang 2019 (Algorithm 1, Theorem 1).

    Examples
    --------
    >>> from dppack.erm.approximate import split_budget
    >>> split_budget(1.0)
    (0.9990234375, 0.0009765625)
    >>> eps_1, eps_2 = split_budget(1.0, 0.001)
    >>> round(eps_2 / eps_1, 6)
    0.01
    """
    eps = float(eps)
    if not math.isfinite(eps):
        return math.inf, math.inf
    power = float(ratio) ** (2.0 / 3.0)
    share = min(0.5, max(OUTPUT_SHARE, power / (1.0 + power)))
    eps_2 = eps * share
    return eps - eps_2, eps_2


def strongly_convex_radius(gradient_tolerance, modulus):
    """The certified distance to the minimiser of an m-strongly convex function.

    Parameters
    ----------
    gradient_tolerance : float
        g_tol >= 0, a bound on ||grad f(x)||.
    modulus : float
        m > 0, the strong convexity modulus.

    Returns
    -------
    float
        r = g_tol / m >= ||x - x*|| (strong monotonicity of the gradient,
        (grad f(x) - grad f(x*))'(x - x*) >= m ||x - x*||^2, and grad f(x*) = 0).

    References
    ----------
    Iyengar et al. 2019 (Algorithm 1: the gradient-norm stopping rule).

    Examples
    --------
    >>> from dppack.erm.approximate import strongly_convex_radius
    >>> strongly_convex_radius(1e-6, 0.5)
    2e-06
    """
    return float(gradient_tolerance) / float(modulus)


def constrained_radius(residual, slackness, modulus):
    """The certified distance r to the minimiser x* of an m-strongly convex f over a convex
    domain {c(x) <= 0}, from a feasible point x with multipliers mu >= 0 such that
    ||grad f(x) + sum_i mu_i grad c_i(x)|| <= rho and sum_i mu_i |c_i(x)| <= sigma.

    Parameters
    ----------
    residual : float
        rho >= 0, the certified norm of the Lagrangian's gradient.
    slackness : float
        sigma >= 0, the certified complementary slackness.
    modulus : float
        m > 0, the strong convexity modulus of f.

    Returns
    -------
    float
        (rho + sqrt(rho^2 + 2 m sigma)) / m >= ||x - x*||.

    Notes
    -----
    The Lagrangian L = f + sum mu_i c_i is m-strongly convex with ||grad L(x)|| <= rho, so
    L(x*) >= L(x) - rho t + (m/2) t^2, t = ||x - x*||; and L(x*) <= f(x*) <= f(x)
    <= L(x) + sigma (c_i(x*) <= 0, x feasible, mu_i c_i(x) >= -sigma). Hence
    (m/2) t^2 - rho t - sigma <= 0: t <= (rho + sqrt(rho^2 + 2 m sigma)) / m.

    References
    ----------
    Boyd and Vandenberghe 2004, Convex Optimization, Section 5.5 (KKT conditions).

    Examples
    --------
    >>> from dppack.erm.approximate import constrained_radius
    >>> constrained_radius(1e-6, 0.0, 2.0)  # 2 rho / m: this argument loses a factor 2
    1e-06
    """
    rho, sigma, m = float(residual), float(slackness), float(modulus)
    return (rho + math.sqrt(rho * rho + 2.0 * m * sigma)) / m


def ball_radius(residual, gap, modulus):
    """The certified distance r = 2 rho / m + sqrt(h) to the minimiser x* of an m-strongly
    convex f over the ball ||x||^2 <= R2, from a point x of the ball with a multiplier
    nu >= 0 such that ||grad f(x) + 2 nu x|| <= rho and, if nu > 0, R2 - ||x||^2 <= h.

    The Lagrangian L = f + nu (||x||^2 - R2) is M-strongly convex, M = m + 2 nu (the
    constraint's own curvature, which :func:`constrained_radius` leaves out), so as there
    (M/2) t^2 - rho t - nu h' <= 0 with h' = R2 - ||x||^2 and t = ||x - x*||:
    t <= (rho + sqrt(rho^2 + 2 M nu h')) / M <= 2 rho / M + sqrt(2 nu h' / M)
    <= 2 rho / m + sqrt(h), as 2 nu <= M. The slack enters through its square root and
    is not multiplied by the (data-dependent) multiplier: a point on the sphere to
    h = p 2^-50 costs sqrt(p) 2^-25 whatever nu is.

    Parameters
    ----------
    residual : float
        rho >= 0.
    gap : float
        h >= 0 (0 when nu = 0).
    modulus : float
        m > 0.

    Returns
    -------
    float
        2 rho / m + sqrt(h).

    References
    ----------
    Iyengar R, Near JP, Song D, Thakkar O, Thakurta A, Wang L (2019). Towards practical
    differentially private convex optimization. IEEE S&P (Theorem 1: the release of an
    approximate minimiser within a data-independent radius).

    Examples
    --------
    >>> from dppack.erm.approximate import ball_radius
    >>> ball_radius(1e-6, 0.0, 2.0)
    1e-06
    >>> ball_radius(0.0, 0.25, 2.0)
    0.5
    """
    return 2.0 * float(residual) / float(modulus) + math.sqrt(float(gap))
