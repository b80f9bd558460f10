"""The one place that draws random numbers.

Every public function takes ``random_state`` and hands it to :func:`as_generator`; the noise
itself comes from the samplers below. Keeping every draw here means a stronger sampler (exact,
floating-point-safe) can replace the textbook ones without touching the mechanisms.
"""

import numbers

import numpy as np

__all__ = ["as_generator", "gamma", "laplace", "normal", "uniform", "uniform_between"]


def as_generator(random_state=None):
    """Turn a ``random_state`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or numpy.random.Generator
        ``None`` seeds from operating-system entropy; a non-negative integer (or an integral
        float, as R passes numbers) seeds a new PCG64 generator; a Generator is used as is, so
        successive calls sharing it continue one stream.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    TypeError
        If ``random_state`` is of any other kind, or a negative or fractional number.
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, bool):
        raise TypeError(
            "random_state must be None, a non-negative integer or a numpy.random.Generator."
        )
    if isinstance(random_state, numbers.Integral) and random_state >= 0:
        return np.random.default_rng(int(random_state))
    if isinstance(random_state, numbers.Real):
        value = float(random_state)
        if np.isfinite(value) and value >= 0 and value == int(value):
            return np.random.default_rng(int(value))
    raise TypeError(
        "random_state must be None, a non-negative integer or a numpy.random.Generator."
    )


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


def gamma(shape, rate, rng, size=None):
    """Draw Gamma(shape, rate) values: density proportional to x^(shape - 1) exp(-rate x).

    An infinite rate gives 0 (no noise), as R's ``rgamma`` does.
    """
    if rate == float("inf"):
        return 0.0 if size is None else np.zeros(size)
    return rng.gamma(shape, 1.0 / rate, size)
