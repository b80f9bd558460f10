"""Shared helpers of the privacy audits (tests/privacy/README.md)."""

import numpy as np
import pytest

from dppack import _random


def _halved_scale(original):
    def sampler(scale, size, rng):
        return original(0.5 * np.asarray(scale, dtype=np.float64), size, rng)
    return sampler


def _halved_gamma(original):
    def sampler(shape, rate, rng, size=None):
        return 0.5 * np.asarray(original(shape, rate, rng, size))
    return sampler


def _doubled_eps(original):
    # exact samplers on a grid (issue 12): their noise scale is sensitivity / eps
    def sampler(values, sensitivity, eps, rng, *args, **kwargs):
        return original(values, sensitivity, 2.0 * eps, rng, *args, **kwargs)
    return sampler


def _halved_sigma(original):
    def sampler(values, sigma, rng, *args, **kwargs):
        return original(values, 0.5 * sigma, rng, *args, **kwargs)
    return sampler


def _quartered_variance(original):
    # the calibrated discrete Gaussian (grid 2^k, integer variance sigma2 in grid units)
    def sampler(values, k, sigma2, rng, *args, **kwargs):
        return original(values, k, max(1, int(sigma2) // 4), rng, *args, **kwargs)
    return sampler


# family -> [(sampler in dppack._random, how to halve its noise)]; the exact samplers are
# patched too where they exist, so the patch reaches a release whichever family it draws from.
FAMILIES = {
    "laplace": [("laplace", _halved_scale), ("discrete_laplace_noise", _doubled_eps)],
    "normal": [("normal", _halved_scale), ("discrete_gaussian_noise", _halved_sigma),
               ("discrete_gaussian_noise_on_grid", _quartered_variance)],
    "gamma": [("gamma", _halved_gamma)],
}


def halve_sampler(monkeypatch, family):
    """Make every sampler of ``family`` in ``dppack._random`` draw noise half as large.

    laplace / normal: the scale (standard deviation) is halved; gamma: the draw is halved.
    ``_random.l2_laplace`` (the l2-Laplace vector of CMS, KST with delta = 0, the stability
    trainers and the confidence intervals) draws its norm through ``_random.gamma``, so halving
    gamma halves that vector; stability-based selection's exponential noise is a gamma draw
    too. Every release draws its noise through these samplers, so the patch reaches them all:
    the package forwards an assignment to each of its modules that binds the name.
    """
    for name, halve in FAMILIES[family]:
        if hasattr(_random, name):
            monkeypatch.setattr(_random, name, halve(getattr(_random, name)))


@pytest.fixture
def halve(monkeypatch):
    """``halve("laplace")`` halves that family's noise for the rest of the test."""
    return lambda family: halve_sampler(monkeypatch, family)
