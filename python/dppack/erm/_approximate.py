"""The release step of the ERM fits and the budget split of approximate minima perturbation.

A vector of known L2 sensitivity S is rounded to a power-of-two grid and released with exact
per-coordinate discrete Laplace noise of L1 sensitivity sqrt(d) S (eps-DP); output
perturbation, objective perturbation and the KST framework share this step, in memory and on
Dask. Derivations (the law, its cost against l2-Laplace noise, the approximate-minimum
argument, the certified radii): :ref:`guide-erm-release`.

References
----------
Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Theorems 6 and 9.
Kifer, Smith and Thakurta (2012), COLT, Theorem 2.
Iyengar, Near, Song, Thakkar, Thakurta and Wang (2019), IEEE S&P, Algorithm 1, Theorem 1.
Canonne, Kamath and Steinke (2020), NeurIPS (the discrete Laplace).
Mironov (2012), CCS (the least significant bits).
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
    l2_sensitivity : float, S > 0
    d : int

    Returns
    -------
    float
        sqrt(d) S rounded up by a relative 2^-50 (never below the real product).

    References
    ----------
    The Cauchy-Schwarz inequality, ||v||_1 <= sqrt(d) ||v||_2.

    Examples
    --------
    >>> from dppack.erm._approximate import l1_bound
    >>> l1_bound(1.0, 4) >= 2.0
    True
    """
    return math.sqrt(int(d)) * float(l2_sensitivity) * (1.0 + 2.0 ** -50)


def release_grid(l2_sensitivity, eps, d):
    """The grid and the integer scale of :func:`release`.

    Parameters
    ----------
    l2_sensitivity : float, S > 0
    eps : float, > 0 and finite
    d : int, the number of values released

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
    >>> from dppack.erm._approximate import release_grid
    >>> k, units, t, s = release_grid(0.5, 1.0, 2)
    >>> t / s >= units  # the integer scale is at least D / eps
    True
    """
    return _random.laplace_grid(l1_bound(l2_sensitivity, d), float(eps), int(d))


def release(values, l2_sensitivity, eps, rng, standard=None):
    """Release a vector of L2 sensitivity S with exact noise on a power-of-two grid (eps-DP).

    Parameters
    ----------
    values : array_like of float, theta (d finite values)
    l2_sensitivity : float, S > 0
    eps : float, > 0 and finite
    rng : NumPy Generator (unused when ``standard`` is given)
    standard : array_like, optional
        d shared standard Laplace values (:class:`dppack.erm.cms.StandardNoise`): the integer
        noise is then round(L_j t / s) instead of an exact draw (still eps-DP:
        :ref:`guide-erm-release`).

    Returns
    -------
    numpy.ndarray
        g (round(theta / g) + Z): d multiples of g = 2^k (k from :func:`release_grid`).

    Raises
    ------
    ValueError
        If ``standard`` does not have d values, or the values are too large for the grid.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate 2011, Theorem 6; Canonne, Kamath and Steinke 2020 (the
    discrete Laplace); Mironov 2012.

    Examples
    --------
    >>> from dppack.erm._approximate import _random, release, release_grid
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
    """(eps_1, eps_2) of approximate minima perturbation: eps_2 for the exact output noise,
    eps_1 = eps - eps_2 for the objective.

    eps_2 = eps s with s = min(1/2, max(2^-10, q^(2/3) / (1 + q^(2/3)))), the split that
    minimises the total variance (:ref:`guide-erm-release`).

    Parameters
    ----------
    eps : float, > 0 (infinite: (inf, inf), no noise)
    ratio : float, default 0
        q, the output noise's standard deviation over the objective noise's effect on the
        minimiser, both at the same eps (data-independent).

    Returns
    -------
    (float, float)

    References
    ----------
    Iyengar, Near, Song, Thakkar, Thakurta and Wang 2019, Algorithm 1, Theorem 1.

    Examples
    --------
    >>> from dppack.erm._approximate import split_budget
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
    """The certified distance r = g_tol / m to the minimiser of an m-strongly convex function.

    Parameters
    ----------
    gradient_tolerance : float, g_tol >= 0, a bound on ||grad f(x)||
    modulus : float, m > 0

    Returns
    -------
    float

    References
    ----------
    Iyengar et al. 2019, Algorithm 1 (the gradient-norm stopping rule).

    Examples
    --------
    >>> from dppack.erm._approximate import strongly_convex_radius
    >>> strongly_convex_radius(1e-6, 0.5)
    2e-06
    """
    return float(gradient_tolerance) / float(modulus)


def constrained_radius(residual, slackness, modulus):
    """The certified distance (rho + sqrt(rho^2 + 2 m sigma)) / m to the minimiser of an
    m-strongly convex f over a convex domain, from a feasible KKT point.

    Parameters
    ----------
    residual : float, rho >= 0, the norm of the Lagrangian's gradient
    slackness : float, sigma >= 0, the complementary slackness sum_i mu_i abs(c_i(x))
    modulus : float, m > 0

    Returns
    -------
    float

    References
    ----------
    Boyd and Vandenberghe 2004, Convex Optimization, Section 5.5 (KKT conditions). Proof:
    :ref:`guide-erm-release`.

    Examples
    --------
    >>> from dppack.erm._approximate import constrained_radius
    >>> constrained_radius(1e-6, 0.0, 2.0)  # 2 rho / m: this argument loses a factor 2
    1e-06
    """
    rho, sigma, m = float(residual), float(slackness), float(modulus)
    return (rho + math.sqrt(rho * rho + 2.0 * m * sigma)) / m


def ball_radius(residual, gap, modulus):
    """The certified distance 2 rho / m + sqrt(h) to the minimiser of an m-strongly convex f
    over a ball, from a point with multiplier nu >= 0, residual rho and gap h (if nu > 0).

    Parameters
    ----------
    residual : float, rho >= 0
    gap : float, h >= 0 (0 when nu = 0)
    modulus : float, m > 0

    Returns
    -------
    float

    References
    ----------
    Iyengar, Near, Song, Thakkar, Thakurta and Wang 2019, Theorem 1. Proof:
    :ref:`guide-erm-release`.

    Examples
    --------
    >>> from dppack.erm._approximate import ball_radius
    >>> ball_radius(1e-6, 0.0, 2.0)
    1e-06
    >>> ball_radius(0.0, 0.25, 2.0)
    0.5
    """
    return 2.0 * float(residual) / float(modulus) + math.sqrt(float(gap))
