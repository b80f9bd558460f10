"""The law of one step of the Laplace noise-reduction walk, for the law tests of the samplers
and of the releases (tests/python/random, tests/python/accuracy_first)."""

import math

import numpy as np


def reduce_pmf(x, a1, a2, ys):
    """P(Z_{t+1} = y | Z_t = x) of the lazy walk (floats): p pi2(x) 1{y = x} +
    (1 - p) pi2(y) pi1(x - y), over pi1(x), with pi_a the discrete Laplace of rate a."""
    def pmf(a, k):
        q = math.exp(-a)
        return (1 - q) / (1 + q) * q ** np.abs(k)
    c = lambda a: 1 / (4 * math.sinh(a / 2) ** 2)  # noqa: E731
    p = c(a2) / c(a1)
    weights = (1 - p) * pmf(a2, ys) * pmf(a1, x - ys) + p * pmf(a2, x) * (ys == x)
    return weights / pmf(a1, x)
