"""The half-width of one integer noise law, and a report from the laws of a release's values
(the derivation: the guide page ``docs/python/guide/accuracy.rst``)."""

import math

import numpy as np
from scipy import special

from .. import _checks, _random, mechanisms
from ._report import NoiseInterval


_ALPHA_MESSAGE = "alpha must be a number in (0, 1)."
UNBOUNDED_MESSAGE = (
    "An accuracy report of {name} is available for which.sensitivity = 'bounded' only: its "
    "unbounded release is a ratio of noisy sums, not a value plus noise."
)
STATISTICS = ("LaplaceMechanism", "GaussianMechanism", "meanDP", "varDP", "sdDP", "covDP",
              "pooledVarDP", "pooledCovDP", "histogramDP", "tableDP", "quantileDP",
              "medianDP", "quantilesDP", "ExponentialMechanism", "boundsDP")

# --------------------------------------------------------------------------------------------
# The half-width of one integer noise law
# --------------------------------------------------------------------------------------------


def check_alpha(alpha):
    return _checks.check_number(alpha, "alpha", 0.0, 1.0, closed="neither",
                                message=_ALPHA_MESSAGE)


def per_value_alpha(alpha, m, simultaneous):
    """The per-value level of a joint 1 - alpha over m independent noises (Sidak's product,
    exact for independent noise)."""
    if not simultaneous or m <= 1:
        return alpha
    return -math.expm1(math.log1p(-alpha) / m)


def integer_half_width(tail, alpha, guess=1):
    """T, the smallest integer with P(abs(Z) <= T) >= 1 - alpha, and that probability, for
    an integer noise Z symmetric about 0 with P(Z >= m) = ``tail(m)``.

    P(abs(Z) > T) = 2 P(Z >= T + 1), so T + 1 is the smallest m >= 1 with
    tail(m) <= alpha / 2.

    Parameters
    ----------
    tail : callable
        m -> P(Z >= m) for integers m >= 1, non-increasing.
    alpha : float
        In (0, 1).
    guess : int, default 1
        A starting point near T + 1 (the continuous law's quantile): the search costs a
        few evaluations of ``tail`` when it is close.

    Returns
    -------
    (int, float)
        T >= 0 and P(abs(Z) <= T) = 1 - 2 tail(T + 1).

    Examples
    --------
    The discrete Laplace with P(z) proportional to exp(-abs(z)):

    >>> t, coverage = integer_half_width(lambda m: _random.discrete_laplace_tail(m, 1, 1), 0.1)
    >>> t, round(coverage, 4)  # 1 - 2 e^-3 / (1 + e^-1)
    (2, 0.9272)
    """
    first = _random.smallest_tail_index(tail, alpha / 2.0, guess)
    return first - 1, 1.0 - 2.0 * tail(first)


def laplace_law(sensitivity, eps, coordinates):
    """The law of the noise ``_random.discrete_laplace_noise`` adds for (sensitivity, eps,
    coordinates), from the release's own ``_random.laplace_grid``: a dict of the grid
    exponent k, the tail P(Z >= m), the scale t / s in grid units and a guess of the
    quantile (the continuous law's)."""
    k, _, t, s = _random.laplace_grid(float(sensitivity), float(eps), int(coordinates))
    scale = t / s
    return dict(k=k, scale=scale, law="discrete Laplace",
                tail=lambda m: _random.discrete_laplace_tail(m, t, s),
                # P(Z >= m) ~ exp(-m / scale) / 2
                guess=lambda p: math.ceil(scale * math.log(0.5 / p)))


def gaussian_law(sigma, sensitivity, eps, delta, type_DP, coordinates):
    """The law of the noise ``mechanisms.discrete_gaussian_release`` adds, from the release's
    own ``mechanisms.discrete_gaussian_parameters`` (as :func:`laplace_law`)."""
    k, sigma2 = mechanisms.discrete_gaussian_parameters(
        sigma, sensitivity, eps=eps, delta=delta, type_DP=type_DP, coordinates=coordinates)
    scale = math.sqrt(sigma2)
    return dict(k=k, scale=scale, law="discrete Gaussian",
                tail=lambda m: _random.discrete_gaussian_tail(m, sigma2),
                guess=lambda p: math.ceil(scale * float(special.ndtri(1.0 - p))))


def from_laws(statistic, laws, which, alpha, simultaneous, rounding=0.5, units="value",
              transform=None, values=1):
    """A :class:`NoiseInterval` from the laws of the values of a release: ``laws`` a list of
    the dicts of :func:`laplace_law` / :func:`gaussian_law` (or
    ``stats._histogram.count_noise_laws``:
    no scale, no guess), ``which`` the index of each value's law (None: one scalar), and the
    rounding of the true value to the grid, in grid steps (1/2, or 0 for counts on it).
    ``values``: with ``which`` None, how many values share the one law (the cells of a
    table): the report stays a scalar, at the level of ``values`` values with
    ``simultaneous``, so its size does not grow with them."""
    m = values if which is None else int(np.size(which))
    level = per_value_alpha(alpha, m, simultaneous)
    rows = []
    for law in laws:
        guess = law["guess"](level / 2.0) if law.get("guess") else 1
        t, coverage = integer_half_width(law["tail"], level, guess)
        k = law["k"]
        scale = math.ldexp(law["scale"], k) if law.get("scale") else math.nan
        rows.append((math.ldexp(t + rounding, k), coverage, scale, math.ldexp(1.0, k)))
    columns = [np.array(column) for column in zip(*rows)]
    if which is None:
        values = [float(column[0]) for column in columns]
    else:
        values = [column[np.asarray(which)] for column in columns]
    return NoiseInterval(statistic, *values[:1], alpha, bool(simultaneous), *values[1:],
                         laws[0]["law"], units, transform)
