"""LinearRegressionDP's records on a grid and its exact X'X, X'y (dppack.erm._grid,
dppack.erm.kst.grid_regression, GramStatistics.of_grid).

What is checked:

* the exact Gram matrix of grid records equals the Python-integer one (block edges, all
  values at the extremes, more rows than one int64 group), and the limbs that carry it
  through Dask's float sums add exactly (negative values too);
* the records stay in the box the privacy argument assumes (|x~| <= 1, |y~| <= p) and are on
  the grid;
* the fit is a function of the grid records alone: the same random_state gives the same bits
  after a permutation of the rows and after moving a record within its grid cell; on Dask
  (uneven chunks, a DataFrame) the same bits as in memory;
* the certificate: no rounding term without weights (the radius does not grow as n^2), the
  Higham term kept with weights;
* the accuracy at n = 10^5, eps = 1: the median coefficient error within 5% of the exact
  minimiser's release (paired over 40 fits; benchmarks/erm_exact_accuracy.py for the table).

Deterministic: fixed seeds; the accuracy check is a paired comparison with a fixed seed
(benchmark: 1.017 over 100 fits).
"""

import math
from unittest import mock

import numpy as np
import pytest

from dppack.erm import _grid, _kst_framework, kst, weighting
from dppack.erm.kst import GramStatistics, LinearRegressionDP

UPPER, LOWER = [1.0, 1.0, 1.0, 2.0], [-1.0, -1.0, -1.0, -1.0]


def _data(n, seed=2026):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, 3))
    y = 0.5 + X @ [0.3, -0.2, 0.1] + rng.normal(0, 0.1, n)
    return X, y


@pytest.mark.parametrize("n", [1, 8191, 8192, 8193, 30_001])
def test_exact_gram_equals_integer_arithmetic(n):
    rng = np.random.default_rng(n)
    k, e = 20, 2
    U = rng.integers(-2 ** k, 2 ** k + 1, (n, 2)).astype(np.float64)
    v = rng.integers(-2 ** k, 2 ** k + 1, n).astype(np.float64)
    U[: n // 2] = 2.0 ** k  # extremes: block sums at 2^53
    v[: n // 2] = -(2.0 ** k)
    gram = _grid.exact_gram(U * 2.0 ** -k, v * 2.0 ** (e - k), k, e)
    W = np.column_stack([U, v]).astype(np.int64).astype(object)
    assert (gram == W.T.dot(W)).all()
    if n > 2 ** 14:  # a float sum would have rounded
        assert int(gram[0, 0]) > 2 ** 53


def test_exact_gram_beyond_one_int64_group():
    """More than 2^9 blocks (two int64 groups) at the extremes u = +-2^k: the sums are
    4^k times sums of signs, computed apart in small integers."""
    n, k = 8192 * 513 + 5, 20
    signs = np.where(np.random.default_rng(2).random((n, 3)) < 0.7, 1, -1)
    gram = _grid.exact_gram(signs[:, :2].astype(np.float64), signs[:, 2].astype(np.float64),
                            k)
    small = signs.T.astype(np.int64) @ signs.astype(np.int64)
    assert (gram == small.astype(object) * 4 ** k).all()


def test_limbs_add_exactly():
    rng = np.random.default_rng(1)
    values = [[int(v) for v in rng.integers(-2 ** 62, 2 ** 62, 5)] for _ in range(7)]
    values[0][0] = -(2 ** 70) - 12345
    summed = sum(_grid.to_limbs(v) for v in values)  # a float sum, as Dask's
    assert list(_grid.from_limbs(summed)) == [sum(col) for col in zip(*values)]


def test_records_in_the_box_and_on_the_grid():
    model = LinearRegressionDP("l2", 1.0, 0.0, 1.0)
    X = np.array([[5.0, -7.0, 1.0 - 2.0 ** -53], [0.0, 2.0 ** -21, -2.0 ** -21 - 2.0 ** -40]])
    y = np.array([2.0, -1.0])
    Xs, ys = model._preprocess_data(X, y, UPPER, LOWER, add_bias=True)
    k, e = model._grid
    p = Xs.shape[1]
    assert np.all(np.abs(Xs) <= 1.0) and np.all(np.abs(ys) <= p)
    units = Xs * 2.0 ** k
    assert np.array_equal(units, np.rint(units))
    assert np.array_equal(ys * 2.0 ** (k - e), np.rint(ys * 2.0 ** (k - e)))
    # the bounds of y map onto the ends of [-p, p]; half a step rounds half to even
    assert ys.tolist() == [p, -p]
    assert Xs[1, 2] == 0.0 and Xs[1, 3] == -(2.0 ** -20)


def test_fit_depends_on_the_grid_records_only():
    X, y = _data(30_000)
    first = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X, y, UPPER, LOWER, True,
                                                        random_state=5)
    order = np.random.default_rng(0).permutation(y.size)
    moved = X[order].copy()
    moved[0] += 2.0 ** -23 * np.sign(np.rint(moved[0] * 2.0 ** 20) - moved[0] * 2.0 ** 20)
    second = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(moved, y[order], UPPER, LOWER, True,
                                                         random_state=5)
    assert np.array_equal(first.coeff, second.coeff)


@pytest.mark.parametrize("kind", ["array", "frame"])
def test_dask_gives_the_memory_bits(kind):
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd

    X, y = _data(20_011)
    memory = LinearRegressionDP("l2", 1.0, 1e-5, 1.0).fit(X, y, UPPER, LOWER, True,
                                                          random_state=3)
    if kind == "array":
        chunks = (7000, 11, 9000, 4000)
        Xd, yd = da.from_array(X, chunks=(chunks, 3)), da.from_array(y, chunks=(chunks,))
    else:
        frame = dd.from_pandas(pd.DataFrame(X, columns=list("abc")).assign(t=y),
                               npartitions=5)
        Xd, yd = frame[list("abc")], frame["t"]
    on_dask = LinearRegressionDP("l2", 1.0, 1e-5, 1.0).fit(Xd, yd, UPPER, LOWER, True,
                                                           random_state=3)
    assert on_dask._n_passes == 1
    assert np.array_equal(on_dask.coeff, memory.coeff)


def test_certificate_has_no_rounding_term_without_weights():
    X, y = _data(50_000)
    model = LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(X, y, UPPER, LOWER, True,
                                                        random_state=1)
    n, p = y.size, 4
    zeta, m = 2 * p ** 1.5, (model.Delta_ + 1.0) / n
    assert model.optimality_tolerance_ == pytest.approx(
        kst.QUADRATIC_RESIDUAL * (zeta + math.sqrt(p) * (p + m)), rel=1e-12)
    # with weights, X'WX and X'Wy are float sums: the Higham term stays
    weighted = weighting.fit_weighted(LinearRegressionDP("l2", 1.0, 0.0, 1.0), X, y, UPPER,
                                      LOWER, True, np.ones(n), 1.0, random_state=1)
    m_w = (weighted.Delta_ + 1.0) / n
    assert weighted.optimality_tolerance_ == pytest.approx(
        kst.QUADRATIC_RESIDUAL * (zeta + math.sqrt(p) * (p + m_w))
        + kst.statistics_rounding(n) * zeta, rel=1e-12)


def test_exact_statistics_match_rationals():
    X, y = _data(20_000)
    model = LinearRegressionDP("l2", 1.0, 0.0, 1.0)
    Xs, ys = model._preprocess_data(X, y, UPPER, LOWER, add_bias=True)
    stats = GramStatistics.of_grid(Xs, ys, *model._grid)
    from fractions import Fraction

    rows = [[Fraction(float(v)) for v in row] for row in Xs[:500]]
    # the exact statistics of the first 500 rows, against a direct rational sum
    part = GramStatistics.of_grid(Xs[:500], ys[:500], *model._grid)
    assert part.exact[0][1][2] == sum(r[1] * r[2] for r in rows)
    assert part.exact[1][3] == sum(r[3] * Fraction(float(t)) for r, t in zip(rows, ys[:500]))
    assert stats.gram[0, 0] == y.size and stats.exact[0][0][0] == y.size


def test_accuracy_at_large_n_is_that_of_the_exact_minimiser():
    X, y = _data(100_000)
    beta = np.array([0.5, 0.3, -0.2, 0.1])

    def errors():
        return [float(np.max(np.abs(LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(
            X, y, UPPER, LOWER, True, random_state=s).coeff - beta))) for s in range(40)]

    released = errors()
    with mock.patch.object(_kst_framework, "split_budget", lambda e, ratio=0.0: (e, math.inf)), \
            mock.patch.object(_kst_framework, "release",
                              lambda theta, *a, **k: np.asarray(theta)), \
            mock.patch.object(_kst_framework, "release_grid", lambda *a, **k: (0, 0, 0, 0)):
        exact = errors()
    assert np.median(released) <= 1.05 * np.median(exact)


def test_grid_keeps_the_box_for_subnormal_bounds():
    """Bounds so small that s 2^-20 is subnormal make the division inexact: the grid units
    are clipped to [-2^20, 2^20], so the box |x~| <= 1 that zeta and lambda assume holds
    (1.35 without the clip at s = 7e-318)."""
    s = 7e-318
    X = np.array([[s], [-s], [s / 3]])
    y = np.zeros(3)
    bits, exponent = kst.regression_grid(1)
    u, _ = kst.grid_regression(X, y, np.array([s]), 0.0, 1.0, bits, exponent)
    assert np.abs(u).max() <= 2.0 ** bits

