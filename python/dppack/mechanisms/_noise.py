"""The noise laws of the releases: one object per mechanism call, which both draws the noise
and describes its law (grid, scale, exact tail) for the accuracy reports."""

import math

import numpy as np
from scipy import special

from .. import _checks, _exact_sums, _random
from ._calibration import gaussian_sigma
from ._discrete_gaussian import discrete_gaussian_parameters, discrete_gaussian_release


class LaplaceNoise:
    """Exact discrete Laplace noise on a power-of-two grid for L1 ``sensitivity`` and ``eps``
    (``_random.discrete_laplace_noise``; ``coordinates`` m values may move, m = 0 for values
    already on the grid 2^``grid``, e.g. counts on ``grid=0``).

    References
    ----------
    Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential privacy,
    Section 1 (the discrete Laplace); Ghosh, Roughgarden and Sundararajan (2009), Section 2.
    """

    name = "discrete Laplace"
    __slots__ = ("sensitivity", "eps", "coordinates", "grid")

    def __init__(self, sensitivity, eps, coordinates=1, grid=None):
        self.sensitivity, self.eps = sensitivity, eps
        self.coordinates, self.grid = coordinates, grid

    def draw(self, values, rng):
        return _random.discrete_laplace_noise(values, self.sensitivity, self.eps, rng,
                                              coordinates=self.coordinates, grid=self.grid)

    def release(self, values, like, rng, loss=None):
        """:meth:`draw`, shaped like the user's ``like`` (a runner's draw)."""
        return _checks.restore_like(_random.discrete_laplace_noise(
            values, self.sensitivity, self.eps, rng, coordinates=self.coordinates,
            grid=self.grid), like)

    def draw_exact(self, values, rng):
        """:meth:`draw` of exact rationals ``values`` ((num, den, e) = num 2^e / den,
        ``dppack._exact_sums``): each rounded half to even onto the grid 2^k in integers
        (moving it by at most half a step, the step :func:`_random.grid_units` counts),
        the same integer noise Z (drawn by ``_random.discrete_laplace_noise`` on zeros, in
        grid units), and the float of the integer round(v / 2^k) + Z (Canonne, Kamath and
        Steinke 2020, discrete Laplace). A list of floats."""
        k = _random.laplace_grid(float(self.sensitivity), float(self.eps),
                                 int(self.coordinates), self.grid)[0]
        # the same integers in grid units: the sensitivity over 2^k (exact) on the grid 1
        # has the same D, t and s (grid_units, laplace_grid), so Z itself comes back
        noise = _random.discrete_laplace_noise(
            np.zeros(len(values)), math.ldexp(float(self.sensitivity), -k), self.eps, rng,
            coordinates=self.coordinates, grid=0)
        return _exact_sums.add_grid_noise(values, noise, k)

    def law(self):
        """The grid exponent k, the tail P(Z >= m), the scale t / s in grid units and a guess
        of the quantile (the continuous law's), from the draw's own ``_random.laplace_grid``."""
        k, _, t, s = _random.laplace_grid(float(self.sensitivity), float(self.eps),
                                          int(self.coordinates), self.grid)
        scale = t / s
        return dict(k=k, scale=scale, law=self.name,
                    tail=lambda m: _random.discrete_laplace_tail(m, t, s),
                    # P(Z >= m) ~ exp(-m / scale) / 2
                    guess=lambda p: math.ceil(scale * math.log(0.5 / p)))


class GaussianNoise:
    """Exact discrete Gaussian noise for the continuous ``sigma`` and L2 ``sensitivity``, with
    the variance raised until the discrete law meets (eps, delta) or pDP
    (``mechanisms.discrete_gaussian_release``; ``integers`` for counts).

    References
    ----------
    Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential privacy,
    Theorems 4 and 7, Corollary 13.
    """

    name = "discrete Gaussian"
    __slots__ = ("sigma", "sensitivity", "eps", "delta", "type_DP", "coordinates", "integers")

    def __init__(self, sigma, sensitivity, eps, delta, type_DP, coordinates=1, integers=False):
        self.sigma, self.sensitivity, self.eps, self.delta = sigma, sensitivity, eps, delta
        self.type_DP, self.coordinates, self.integers = type_DP, coordinates, integers

    def draw(self, values, rng):
        return discrete_gaussian_release(values, self.sigma, self.sensitivity, rng, eps=self.eps,
                                         delta=self.delta, type_DP=self.type_DP,
                                         coordinates=self.coordinates, integers=self.integers)

    def release(self, values, like, rng, loss=None):
        """:meth:`draw`, shaped like the user's ``like`` (a runner's draw)."""
        return _checks.restore_like(discrete_gaussian_release(
            values, self.sigma, self.sensitivity, rng, eps=self.eps, delta=self.delta,
            type_DP=self.type_DP, coordinates=self.coordinates, integers=self.integers), like)

    def draw_exact(self, values, rng):
        """:meth:`LaplaceNoise.draw_exact` with this law's grid and integer variance
        (``discrete_gaussian_parameters``; Canonne, Kamath and Steinke 2020, Theorems 4
        and 7): round(v / 2^k) + Z exactly, Z ~ N_Z(0, s^2) (drawn by
        ``_random.discrete_gaussian_noise_on_grid`` on zeros, on the grid 1). A list of
        floats."""
        k, sigma2 = discrete_gaussian_parameters(
            self.sigma, self.sensitivity, eps=self.eps, delta=self.delta, type_DP=self.type_DP,
            coordinates=self.coordinates, integers=self.integers)
        noise = _random.discrete_gaussian_noise_on_grid(np.zeros(len(values)), 0, sigma2, rng)
        return _exact_sums.add_grid_noise(values, noise, k)  # Z in grid units (grid 1)

    def law(self):
        """As :meth:`LaplaceNoise.law`, from the draw's own ``discrete_gaussian_parameters``."""
        k, sigma2 = discrete_gaussian_parameters(
            self.sigma, self.sensitivity, eps=self.eps, delta=self.delta, type_DP=self.type_DP,
            coordinates=self.coordinates, integers=self.integers)
        scale = math.sqrt(sigma2)
        return dict(k=k, scale=scale, law=self.name,
                    tail=lambda m: _random.discrete_gaussian_tail(m, sigma2),
                    guess=lambda p: math.ceil(scale * float(special.ndtri(1.0 - p))))


def count_noise(eps, sensitivity, mechanism, delta, type_DP, changed):
    """The exact integer noise of a release of counts (histogram or table cells, a noisy n) in
    which one record changes at most ``changed`` cells by 1 each (2 bounded, 1 unbounded):
    a :class:`LaplaceNoise` on the integers (the geometric mechanism, L1 sensitivity
    Delta), or a :class:`GaussianNoise` with ``integers`` for DPpack's sigma with s = Delta
    ('analytic' ignores ``type_DP``). Only ``changed`` cells differ between neighbours, so
    the number of cells does not enter the noise. Derivation:
    ``docs/python/guide/mechanisms-derivations.rst`` (Counts: integer noise).

    References
    ----------
    Ghosh, Roughgarden and Sundararajan (2009), Universally utility-maximizing privacy
    mechanisms, Section 2; Canonne, Kamath and Steinke (2020), Theorems 4 and 7, Corollary 13.
    """
    if mechanism == "Laplace":
        return LaplaceNoise(sensitivity, eps, 0, grid=0)
    analytic = mechanism == "analytic"
    kind = "aDP" if analytic else type_DP
    sigma = gaussian_sigma(eps, delta, sensitivity, kind, analytic)
    return GaussianNoise(sigma, sensitivity, eps, delta, kind, changed, integers=True)
