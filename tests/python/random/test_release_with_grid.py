"""The release with the rounded values computed once (``_random.grid_values``,
``_random.release_with_grid``, used by the online noise reduction) gives the floats of
``_random.release_on_grid`` bit for bit: on grids from fine to extreme, values at and beyond
the overflow of x / g, signed zeros, subnormals, and noise beyond 2^53 (deterministic)."""

import numpy as np
import pytest

import dppack
from dppack import _random


@pytest.mark.parametrize("k", [-1000, -60, -30, -2, 0, 5, 900, 1000])
@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_release_with_grid_is_release_on_grid(k):
    rng = np.random.default_rng(51)
    x = np.concatenate([rng.normal(size=200) * 10,
                        [0.0, -0.0, 1e308, -1e308, 5e-324, 2.0 ** max(k, -1022) * 1.5]])
    noises = [rng.integers(-2 ** 40, 2 ** 40, size=x.size), np.zeros(x.size, dtype=np.int64)]
    if k <= 900:  # (beyond, g 2^60 itself overflows)
        noises.append(np.where(np.arange(x.size) == 3, 2 ** 60, 1))
    for noise in noises:
        expected = _random.release_on_grid(x, noise, k)
        got = _random.release_with_grid(x, _random.grid_values(x, k), noise, k)
        assert np.array_equal(expected.view(np.int64), got.view(np.int64))


def test_online_releases_are_those_of_the_grid():
    values = np.random.default_rng(52).normal(size=(20, 30)) * 100
    online = dppack.LaplaceNoiseReductionOnline(values, 0.1, 1.0, random_state=3)
    for eps in (0.2, 0.5, 1.0):
        release = online.reduce(eps)
        expected = _random.release_on_grid(online._values, online._noise, online._grid)
        assert release.shape == values.shape
        assert np.array_equal(release.view(np.int64), expected.view(np.int64))


@pytest.mark.filterwarnings("ignore:overflow encountered")
@pytest.mark.parametrize("k", [-1000, -30, -3, 0, 7, 1000])
@pytest.mark.parametrize("n", [1, 3, 10, 32, 33])
def test_release_path_is_release_on_grid_row_by_row(k, n):
    # few values (Python floats for the rounded values, two array operations for the path)
    # and more: each row the floats of release_on_grid, also on a reversed view
    rng = np.random.default_rng(53)
    x = np.concatenate([rng.normal(size=n - 1) * 10, [-0.3]]) if n > 1 else np.array([-0.0])
    path = rng.integers(-2 ** 40, 2 ** 40, size=(5, n))
    path[0] = 0
    for p in (path, path[::-1]):
        got = _random.release_path_on_grid(x, p, k)
        expected = np.stack([_random.release_on_grid(x, row, k) for row in p])
        assert np.array_equal(got.view(np.int64), expected.view(np.int64))
