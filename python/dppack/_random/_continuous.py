"""Continuous draws, for data-free randomness only (tests/privacy/continuous_draws.py)."""

import numpy as np

from ._seeding import as_generator  # for the examples


def laplace(scale, size, rng):
    """Draw centred Laplace noise with density exp(-|x|/b)/(2b), b = ``scale`` (broadcast)."""
    return rng.laplace(0.0, scale, size)


def normal(scale, size, rng):
    """Draw centred Gaussian noise with standard deviation ``scale`` (broadcast)."""
    return rng.normal(0.0, scale, size)


def uniform(rng, size=None):
    """Draw Uniform[0, 1) values; a single float when ``size`` is None."""
    return rng.random(size)


def uniform_between(low, high, size, rng):
    """Draw Uniform[low, high) values."""
    return rng.uniform(low, high, size)


def log_categorical(log_weights, rng):
    """Draw an index with probability proportional to exp(``log_weights``), by inverse CDF.

    Parameters
    ----------
    log_weights : array_like of float
        Finite values or -inf (probability 0); at least one finite. NaN and +inf must be
        refused by the caller.
    rng : NumPy Generator

    Returns
    -------
    int
        The 0-based index.

    Notes
    -----
    A floating-point sampler, not one of the exact ones: the weights are shifted by their
    maximum (so the largest is 1 and none overflows), exponentiated and summed, and one
    uniform draw u in [0, 1) picks the first index whose cumulative weight exceeds u times
    the total. Each probability is therefore right to a relative error of about n 2^-52
    (n the number of weights), and a weight below e^-745 of the largest is 0. One uniform
    draw per call. Not used by the releases (JointExp draws exactly given its rounded log
    weights, ``dppack.quantiles``); kept for data-free draws.

    Examples
    --------
    >>> import numpy as np
    >>> rng = as_generator(1)
    >>> draws = [log_categorical([0.0, np.log(3.0), -np.inf], rng) for _ in range(4000)]
    >>> draws.count(2), abs(draws.count(1) / 4000 - 0.75) < 0.04
    (0, True)
    """
    logw = np.asarray(log_weights, dtype=np.float64).ravel()
    top = float(np.max(logw, initial=-np.inf))
    if not top > -np.inf or not np.isfinite(top):
        raise ValueError("At least one weight must be positive and finite.")
    cumulative = np.cumsum(np.exp(logw - top))
    u = uniform(rng) * float(cumulative[-1])
    index = int(np.searchsorted(cumulative, u, side="right"))
    # u < total, so index < size; an index of weight 0 (-inf) is never the first to exceed u.
    return min(index, logw.size - 1)


def gamma(shape, rate, rng, size=None):
    """Draw Gamma(shape, rate) values: density proportional to x^(shape - 1) exp(-rate x).

    An infinite rate gives 0 (no noise), as R's ``rgamma`` does.
    """
    if rate == float("inf"):
        return 0.0 if size is None else np.zeros(size)
    return rng.gamma(shape, 1.0 / rate, size)


def l2_laplace(d, rate, rng, size=None):
    """Draw from the l2-Laplace law on R^d: density proportional to exp(-rate ||b||_2).

    Also called the spherical Laplace or K-norm noise of the l2 ball: the noise of output and
    objective perturbation (CMS, KST with delta = 0) and of the private confidence
    intervals' pure-DP matrices and Monte Carlo draws.

    The norm r ~ Gamma(shape = d, rate) (:func:`gamma`) times a uniform direction
    g / ||g||, g ~ N(0, I_d) (:func:`normal`): in polar coordinates the density is
    proportional to r^(d - 1) exp(-rate r) on the radius, independent of the direction.
    Drawn in floating point: no exact sampler of this law exists here; it enters an
    optimisation or a sum with a minimiser, not a value rounded to a grid.

    Parameters
    ----------
    d : int
        The dimension, >= 1.
    rate : float
        > 0; ``inf`` gives zeros (no noise; the d normals are still drawn). With
        rate = eps / Delta, adding the draw to a vector of L2 sensitivity Delta is eps-DP.
    rng : NumPy Generator
    size : int, optional
        The number of independent vectors; None draws one.

    Returns
    -------
    numpy.ndarray
        d values, or a ``size`` x d array.

    Notes
    -----
    The draw order is DPpack's (R's ``rgamma`` then ``rnorm``) and fixed, so seeded results
    stay reproducible: one vector draws its norm, then its d normals; ``size`` vectors draw
    all ``size`` norms first, then the normals row by row. The norm and the direction are
    drawn through the module's :func:`gamma` and :func:`normal`, so a replacement of either
    (the privacy auditor's halved noise, ``tests/privacy``) reaches this sampler.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), "Differentially private empirical risk
    minimization", JMLR 12 (output perturbation, Alg. 1, and objective perturbation, Alg. 2:
    the density and its sampling by a Gamma norm); Wang, Kifer and Lee 2019 (the moments used by the
    tests).

    Examples
    --------
    >>> import numpy as np
    >>> b = l2_laplace(3, 2.0, as_generator(0))
    >>> b.shape
    (3,)
    >>> l2_laplace(4, 1.0, as_generator(1), size=5).shape
    (5, 4)
    >>> bool(np.all(l2_laplace(2, float("inf"), as_generator(2)) == 0))
    True

    The norm is the Gamma(d, rate) draw that comes first from the generator:

    >>> rng, again = as_generator(3), as_generator(3)
    >>> bool(np.isclose(np.linalg.norm(l2_laplace(3, 2.0, rng)), again.gamma(3, 0.5)))
    True
    """
    d = int(d)
    if size is None:
        r = gamma(d, rate, rng)
        g = normal(1.0, d, rng)
        return r * g / np.linalg.norm(g)
    size = int(size)
    r = gamma(d, rate, rng, size=size)
    g = normal(1.0, (size, d), rng)
    return g * (r / np.linalg.norm(g, axis=1))[:, None]
