"""LinearRegressionAdaSSP (dppack.erm.adassp): exact statistics, the noise law, the checks,
accuracy. Fixed seeds throughout; the statistical tests state their false-failure rates."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack import _random
from dppack.erm import _adassp_grid, adassp
from dppack.erm._design import prepare_design


def _linear(n, p=2, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, p))
    beta = np.linspace(0.5, -0.5, p)
    return X, 1.0 + X @ beta + noise * rng.standard_normal(n), beta


def _bounds(p, y_low=-3.0, y_high=5.0):
    return [1.0] * p + [y_high], [-1.0] * p + [y_low]


# ---- exactness ------------------------------------------------------------------------------


def test_grid_bits_keep_every_partial_sum_below_2_53():
    for n in (1, 2, 3, 309, 10 ** 6, 2 ** 40):
        k = _adassp_grid.grid_bits(n)
        assert 1 <= k <= _adassp_grid.MAX_GRID_BITS
        assert n * 4 ** k <= 2 ** 52
        assert k == _adassp_grid.MAX_GRID_BITS or n * 4 ** (k + 1) > 2 ** 52
    with pytest.raises(ValueError, match="2\\^50"):
        _adassp_grid.grid_bits(2 ** 51)


@pytest.mark.parametrize("add_bias", [True, False])
def test_gram_of_grid_records_is_the_exact_integer_sum(add_bias):
    """BLAS's X'X of the grid records equals the sum computed in Python integers, in any
    order (here also reversed rows and a split into partitions)."""
    X, y, _ = _linear(5000, p=3, seed=1)
    upper, lower = _bounds(3)
    design = prepare_design(X, y, upper, lower, add_bias, target=True)
    k = _adassp_grid.grid_bits(5000)
    grid = _adassp_grid.grid_layout(design["bounds"], design["target_bounds"], add_bias, k)
    low, high = grid["low"], grid["high"]
    Xu, yu = _adassp_grid.grid_records(design["X"], design["y"], grid)
    units = np.column_stack([Xu, yu])
    assert np.array_equal(_adassp_grid.integer_gram(Xu, yu), units.T @ units)
    assert np.array_equal(units, np.rint(units))
    assert all(np.all(units[:, j] >= low[j]) and np.all(units[:, j] <= high[j])
               for j in range(units.shape[1]))
    exact = units.astype(np.int64)
    integer_gram = exact.T @ exact  # int64: no rounding (n 2^(2k) <= 2^52)
    assert np.array_equal(units.T @ units, integer_gram.astype(np.float64))
    assert np.array_equal(units[::-1].T @ units[::-1], units.T @ units)
    halves = units[:2500].T @ units[:2500] + units[2500:].T @ units[2500:]
    assert np.array_equal(halves, units.T @ units)


def test_the_callers_data_are_not_written():
    X, y, _ = _linear(100, seed=9)
    X0, y0 = X.copy(), y.copy()
    dppack.LinearRegressionAdaSSP(1.0).fit(X, y, *_bounds(2), add_bias=True, random_state=0)
    assert np.array_equal(X, X0) and np.array_equal(y, y0)


def test_a_last_bit_flip_in_one_record_changes_nothing():
    X, y, _ = _linear(200, seed=2)
    upper, lower = _bounds(2)
    flipped = X.copy()
    flipped[7, 1] = np.nextafter(flipped[7, 1], 2.0)
    y2 = y.copy()
    y2[3] = np.nextafter(y2[3], -np.inf)
    fits = [dppack.LinearRegressionAdaSSP(1.0).fit(a, b, upper, lower, add_bias=True,
                                                   random_state=5)
            for a, b in ((X, y), (flipped, y2))]
    assert np.array_equal(fits[0].coeff, fits[1].coeff)
    assert fits[0].statistics_.keys() == fits[1].statistics_.keys()
    for name in fits[0].statistics_:
        assert np.array_equal(fits[0].statistics_[name], fits[1].statistics_[name])


def _exact_parts(X, y, upper, lower, p):
    design = prepare_design(X, y, upper, lower, True, target=True)
    k = _adassp_grid.grid_bits(X.shape[0])
    grid = _adassp_grid.grid_layout(design["bounds"], design["target_bounds"], True, k)
    low, high = grid["low"].astype(np.int64).tolist(), grid["high"].astype(np.int64).tolist()
    gram = _adassp_grid.integer_gram(*_adassp_grid.grid_records(design["X"], design["y"], grid))
    return k, {name: (values, ranges)
               for name, values, _, _, ranges in adassp._parts(gram, low, high, True, k)}


def _upper(released, name, p):
    return released[np.triu_indices(p)] if name == "xtx" else np.ravel(released)


def test_released_statistics_are_exact_values_plus_integer_noise(monkeypatch):
    """The released statistics are functions of exact integers plus integer noise: the sum of
    y (one value: Laplace) is g (round(S / g) + Z), S the exact statistic (a dyadic float from
    the integer Gram matrix), g = 2^k the grid of its noise and Z the integer draw; the
    vector parts (the l-infinity noise is smaller there) are (V_i + Z_i) g / (f_i 4^k) with
    V_i = floor(f_i G_i / g + 1/2), G_i the exact integer statistic in units of 4^-k, f_i its
    integer factor, Z the draw of ``_random.linf_noise``."""
    p = 2
    X, y, _ = _linear(3000, p=p, seed=3)  # n large enough for the full release at eps 1
    upper, lower = _bounds(p)
    k, exact = _exact_parts(X, y, upper, lower, p)
    noisy = dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, add_bias=True,
                                                   random_state=0)
    assert noisy.method_ == "full"
    drawn = []
    sampler = _random.linf_noise

    def spy(units, eps, size, rng):
        z, used = sampler(units, eps, size, rng)
        drawn.append((units, z))
        return z, used

    monkeypatch.setattr(_random, "linf_noise", spy)
    again = dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, add_bias=True,
                                                   random_state=0)
    assert np.array_equal(again.coeff, noisy.coeff)
    assert len(drawn) == 3  # sum_x, xty, xtx; sum_y (one value) has Laplace noise
    for (name, (values, ranges)), (units, z) in zip(list(exact.items())[1:], drawn):
        top = max(ranges)
        factors = [max(1, top // r) for r in ranges]
        j = next(j for j in range(64) if -(-top // 2 ** j) + (1 if j else 0) == units)
        g = 2 ** j
        ints = [int(v) for v in np.ldexp(values, 2 * k)]
        assert all(v == val * 4 ** k for v, val in zip(ints, values))
        grid = [(f * v + g // 2) // g for f, v in zip(factors, ints)]
        expected = [float(Fraction((v + zi) * g, f * 4 ** k))
                    for v, zi, f in zip(grid, z, factors)]
        assert np.array_equal(_upper(again.statistics_[name], name, p), expected)
        assert again.sensitivities_[name] >= top / 4 ** k
    monkeypatch.setattr(_random, "discrete_laplace",
                        lambda t, s, size, rng: np.zeros(size, dtype=np.int64))
    monkeypatch.setattr(_random, "linf_noise",
                        lambda units, eps, size, rng: ([0] * size, Fraction(eps)))
    zero = dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, add_bias=True,
                                                  random_state=0)
    values = exact["sum_y"][0]
    grid = _random.laplace_grid(zero.sensitivities_["sum_y"], 0.25, 1)[0]
    assert np.array_equal(zero.statistics_["sum_y"],
                          np.rint(values / 2.0 ** grid) * 2.0 ** grid)
    for name in ("sum_x", "xty", "xtx"):
        # without noise, the exact value up to the rounding to the noise's grid
        released = _upper(zero.statistics_[name], name, p)
        scale = zero.sensitivities_[name]
        assert np.max(np.abs(released - exact[name][0])) <= scale * 2.0 ** -20


def test_linf_release_chosen_where_its_noise_is_smaller():
    """One value (the sum of y): discrete Laplace; the vectors: the l-infinity noise, whose
    standard deviation per coordinate is sqrt((m + 1)(m + 2) / 3) R / eps against
    sqrt(2) Delta_1 / eps for Laplace."""
    assert adassp._linf_sd([5], 3, 1.0) == math.inf
    sd = adassp._linf_sd([4 ** 3] * 10, 3, 0.5)
    assert sd == pytest.approx(math.sqrt(11 * 12 / 3) * 2)
    assert sd < math.sqrt(2) * 10 / 0.5  # Laplace of the l1 sensitivity 10


def test_linf_noise_law():
    """_random.linf_noise in two coordinates with D = 1, eps = 1 against
    P(z) proportional to exp(-eps' max|z_i|): chi-square over the cells |z_i| <= 5 and the
    rest, 6000 draws at a fixed seed, level 1e-3 (false-failure rate 1e-3)."""
    rng = _random.as_generator(11)
    draws = [tuple(_random.linf_noise(1, 1.0, 2, rng)[0]) for _ in range(6000)]
    used = float(_random.linf_noise(1, 1.0, 2, rng)[1])
    assert 1.0 - 2 ** -20 <= used <= 1.0
    q = math.exp(-used)
    cells = list(itertools.product(range(-5, 6), repeat=2))
    total = 1 + sum(q ** r * ((2 * r + 1) ** 2 - (2 * r - 1) ** 2) for r in range(1, 2000))
    expected = np.array([q ** max(abs(a), abs(b)) / total for a, b in cells]) * len(draws)
    counts = {}
    for z in draws:
        counts[z] = counts.get(z, 0) + 1
    observed = np.array([counts.get(c, 0) for c in cells])
    observed = np.append(observed, len(draws) - observed.sum())
    expected = np.append(expected, len(draws) - expected.sum())
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    big = np.array([_random.linf_noise(2 ** 20, 0.5, 10, rng)[0] for _ in range(1000)],
                   dtype=float)
    # the spread: sd of a coordinate sqrt((m + 1)(m + 2) / 3) D / eps (the radius is close to
    # Gamma(m + 1, D / eps)); 1000 draws: the sample sd's relative standard error is about
    # 1.2% (radius and direction), so a 6% band is 5 standard errors
    assert big.std() == pytest.approx(math.sqrt(11 * 12 / 3) * 2 ** 20 / 0.5, rel=0.06)


def test_projected_release_is_exact(monkeypatch):
    """The projected release: X'y, then sum y, sum s, sum s^2, sum s y for s = v'z (v the
    released direction, truncated to multiples of 2^-20 with ||v||_1 <= 1). With the noise
    replaced by zeros, the released values are the exact sums of the grid records (computed
    here in Python integers) up to the rounding to the noise's grid (2^-20 of the range)."""
    p = 3
    X, y, _ = _linear(400, p=p, seed=12)
    upper, lower = _bounds(p)
    monkeypatch.setattr(_random, "linf_noise",
                        lambda units, eps, size, rng: ([0] * size, Fraction(eps)))
    model = dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, add_bias=True,
                                                   random_state=0)
    assert model.method_ == "projected"
    assert set(model.statistics_) == {"xty", "projection", "sum_y", "sum_s", "sum_ss",
                                      "sum_sy", "n"}
    design = prepare_design(X, y, upper, lower, True, target=True)
    k = _adassp_grid.grid_bits(400)
    grid = _adassp_grid.grid_layout(design["bounds"], design["target_bounds"], True, k)
    Xu, yu = _adassp_grid.grid_records(design["X"], design["y"], grid)
    U = [[int(v) for v in row[1:]] for row in Xu.tolist()]
    Y = [int(v) for v in yu.tolist()]
    xty = [Fraction(sum(u[j] * b for u, b in zip(U, Y)), 4 ** k) for j in range(p)]
    assert np.max(np.abs(model.statistics_["xty"] - np.array(xty, dtype=float))) <= 2 * 2.0 ** -20
    v = model.statistics_["projection"]
    assert np.sum(np.abs(v)) <= 1.0
    assert all(float(x * 2 ** 20).is_integer() for x in v)
    V = [int(x * 2 ** 20) for x in v]
    S = [sum(a * b for a, b in zip(V, u)) for u in U]  # s in units 2^-(k + 20)
    exact = {"sum_y": Fraction(sum(Y), 2 ** k), "sum_s": Fraction(sum(S), 2 ** (k + 20)),
             "sum_ss": Fraction(sum(a * a for a in S), 4 ** (k + 20)),
             "sum_sy": Fraction(sum(a * b for a, b in zip(S, Y)), 2 ** (2 * k + 20))}
    for name, value in exact.items():
        released = float(model.statistics_[name][0])
        assert abs(released - float(value)) <= model.sensitivities_[name] * 2.0 ** -19, name
    # the fit is the one-dimensional regression along v
    n = 400
    ms, my = float(exact["sum_s"]) / n, float(exact["sum_y"]) / n
    var = float(exact["sum_ss"]) / n - ms * ms
    cov = float(exact["sum_sy"]) / n - ms * my
    assert model.ridge_ == 0.0 or model.ridge_ > 0
    slope = cov / (var + model.ridge_)
    scale_y = 4.0  # y in [-3, 5]: centre 1, half-width 4
    assert np.allclose(model.coeff[1:], scale_y * slope * v, rtol=1e-5, atol=1e-6)


def test_the_regime_depends_on_public_quantities_only():
    """The projected release is chosen from n, d, eps, delta and the bounds: two data sets
    of the same size give the same choice; the threshold d tau = 1/3 (``_full_noise_bound``)
    moves with n and eps; (eps, delta)-DP and one feature always use the full release."""
    upper, lower = _bounds(4)
    methods = set()
    for seed in range(3):
        X, y, _ = _linear(500, p=4, seed=seed, noise=0.1 * (seed + 1))
        methods.add(dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, True,
                                                           random_state=0).method_)
    assert methods == {"projected"}
    X, y, _ = _linear(500, p=4)
    assert dppack.LinearRegressionAdaSSP(100.0).fit(X, y, upper, lower, True,
                                                    random_state=0).method_ == "full"
    assert dppack.LinearRegressionAdaSSP(1.0, 1e-6).fit(X, y, upper, lower, True,
                                                        random_state=0).method_ == "full"
    X1, y1, _ = _linear(50, p=1)
    assert dppack.LinearRegressionAdaSSP(0.1).fit(X1, y1, [1, 5], [-1, -3], True,
                                                  random_state=0).method_ == "full"


def test_projected_fit_beats_the_mean_on_small_correlated_data():
    """n = 300, d = 10 correlated features using a fifth of their bounds (as scikit-learn's
    diabetes data): at eps = 2 the median held-out MSE over 41 fits (seeds 0..40) is below
    0.85 of the training mean's (about 0.74 expected: medians of 41 fits of other seed
    blocks 0.73-0.77), where the full release's noisy X'X leaves about the mean's (0.985)."""
    rng = np.random.default_rng(30)
    n, d = 300, 10
    A = rng.normal(size=(d, d)) / np.sqrt(d)
    Z = np.clip(rng.normal(size=(2 * n, d)) @ A * 0.2, -1, 1)
    beta = rng.uniform(-1, 1, d)
    yy = np.clip(Z @ beta * 2 + 0.3 * rng.normal(size=2 * n), -1, 1)
    Xtr, Xte, ytr, yte = Z[:n], Z[n:], yy[:n], yy[n:]
    upper, lower = [1.0] * d + [1.0], [-1.0] * d + [-1.0]
    mean_mse = np.mean((yte - ytr.mean()) ** 2)
    mse = []
    for seed in range(41):
        model = dppack.LinearRegressionAdaSSP(2.0).fit(Xtr, ytr, upper, lower, True,
                                                       random_state=seed)
        assert model.method_ == "projected"
        mse.append(np.mean((yte - model.predict(Xte)) ** 2))
    assert np.median(mse) < 0.85 * mean_mse


# ---- sensitivities --------------------------------------------------------------------------


@pytest.mark.parametrize("low, high", [([-2, -1], [2, 1]), ([0, -3, 1], [2, 1, 2]),
                                       ([-1, -1, -1], [1, 1, 1]), ([1, -2], [1, 3])])
def test_gram_sensitivities_bound_every_pair_of_integer_records(low, high):
    """Brute force over all pairs of integer records in the box: the L1 and squared L2
    distance of the upper triangles never exceed the bounds."""
    l1, l2sq = _adassp_grid.gram_sensitivities(low, high)
    p = len(low)
    points = list(itertools.product(*[range(a, b + 1) for a, b in zip(low, high)]))
    rows, cols = np.triu_indices(p)
    tri = [np.outer(z, z)[rows, cols] for z in points]
    worst1 = max(np.abs(a - b).sum() for a in tri for b in tri)
    worst2 = max(((a - b) ** 2).sum() for a in tri for b in tri)
    assert worst1 <= l1 and worst2 <= l2sq
    ranges = sum(max(v) - min(v) for v in zip(*tri))
    assert l1 <= ranges  # never worse than the entries' ranges


# ---- the noise law --------------------------------------------------------------------------


def test_noise_of_a_statistic_is_discrete_laplace():
    """The noise of the released sum of y over 3000 fits (seeds 0..2999), in units of its
    grid, against the discrete Laplace law of scale t / s: chi-square on |z| binned (and the
    sign), level 1e-3 (false-failure rate 1e-3 at this fixed seed set)."""
    X = np.array([[0.25], [-0.5]])
    y = np.array([0.5, -0.25])
    upper, lower = [1.0, 1.0], [-1.0, -1.0]
    eps = 2.0
    rng = _random.as_generator(7)
    model = dppack.LinearRegressionAdaSSP(eps)
    noise = []
    for _ in range(3000):
        model.fit(X, y, upper, lower, add_bias=True, random_state=rng)
        noise.append(float(model.statistics_["sum_y"][0]))
    sens = model.sensitivities_["sum_y"]
    k, _, t, s = _random.laplace_grid(sens, eps / 4, 1)
    z = np.rint((np.array(noise) - 0.25) / 2.0 ** k).astype(np.int64)  # exact sum: 0.25
    assert np.array_equal(z * 2.0 ** k + 0.25, np.array(noise))
    q = math.exp(-s / t)
    edges = np.unique(np.quantile(np.abs(z), np.linspace(0, 1, 11)[1:-1]).astype(np.int64))
    bins = np.concatenate([[0], edges, [np.iinfo(np.int64).max]])
    observed = np.histogram(np.abs(z), bins=bins)[0]

    def p_abs_at_least(m):  # P[|Z| >= m] = 2 q^m / (1 + q) for m >= 1
        return 1.0 if m <= 0 else 2 * q ** m / (1 + q)

    expected = np.array([p_abs_at_least(a) - (p_abs_at_least(b) if b < 2 ** 62 else 0.0)
                         for a, b in zip(bins[:-1], bins[1:])]) * z.size
    assert stats.chisquare(observed, expected).pvalue > 1e-3
    assert stats.binomtest(int(np.sum(z > 0)), int(np.sum(z != 0))).pvalue > 1e-3


# ---- checks and accounting ------------------------------------------------------------------


@pytest.mark.parametrize("eps, delta", [(0, 0), (-1, 0), (1, 1), (1, -0.1), (float("nan"), 0)])
def test_bad_parameters_are_refused_at_construction(eps, delta):
    with pytest.raises(ValueError):
        dppack.LinearRegressionAdaSSP(eps, delta)


@pytest.mark.parametrize("kind", ["bounds", "nan", "y", "order"])
def test_bad_data_are_refused_before_any_draw(kind):
    X, y, _ = _linear(20)
    upper, lower = _bounds(2)
    if kind == "bounds":
        upper = upper[:-1]
    elif kind == "nan":
        X = X.copy()
        X[3, 0] = np.nan
    elif kind == "y":
        y = y[:-1]
    else:
        lower[0] = 2.0
    rng = _random.as_generator(0)
    state = rng.bit_generator.state
    with pytest.raises(ValueError):
        dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, random_state=rng)
    assert rng.bit_generator.state == state


def test_the_fit_is_charged_and_an_overspend_refused_before_the_data():
    X, y, _ = _linear(50)
    upper, lower = _bounds(2)
    with dppack.BudgetAccountant(1.5) as accountant:
        dppack.LinearRegressionAdaSSP(1.0).fit(X, y, upper, lower, random_state=0)
        assert accountant.ledger[0][0] == "LinearRegressionAdaSSP.fit"
        with pytest.raises(dppack.BudgetExceededError):
            # X is not even an array: the refusal comes first
            dppack.LinearRegressionAdaSSP(1.0).fit(object(), y, upper, lower)
    acc = dppack.BudgetAccountant(10.0, 1e-3)
    model = dppack.LinearRegressionAdaSSP(1.0, 1e-5).fit(X, y, upper, lower, accountant=acc,
                                                         random_state=0)
    assert model.privacy_ == dppack.PrivacyLoss.approx(1.0, 1e-5)
    with pytest.raises(ValueError):
        dppack.LinearRegressionAdaSSP(float("inf")).fit(X, y, upper, lower, accountant=acc)


def test_exported_and_repr():
    assert "LinearRegressionAdaSSP" in dppack.__all__
    model = dppack.LinearRegressionAdaSSP(0.5)
    assert repr(model) == "LinearRegressionAdaSSP(eps=0.5, delta=0; not fitted)"
    with pytest.raises(ValueError, match="fitted"):
        model.predict(np.zeros((2, 2)))


# ---- accuracy -------------------------------------------------------------------------------


def test_infinite_eps_is_least_squares_up_to_the_grid():
    X, y, _ = _linear(2000, p=3, seed=4)
    upper, lower = _bounds(3)
    model = dppack.LinearRegressionAdaSSP(float("inf")).fit(X, y, upper, lower, add_bias=True)
    ols = np.linalg.lstsq(np.column_stack([np.ones(2000), X]), y, rcond=None)[0]
    assert np.max(np.abs(model.coeff - ols)) < 1e-4  # the grid 2^-20 of the records
    assert model.ridge_ == 0.0 and model.privacy_ is None
    no_bias = dppack.LinearRegressionAdaSSP(float("inf")).fit(X, y - 1.0, upper, lower)
    assert np.max(np.abs(no_bias.coeff - np.linalg.lstsq(X, y - 1.0, rcond=None)[0])) < 1e-4


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_large_n_is_close_to_least_squares(delta):
    X, y, beta = _linear(50_000, p=5, seed=5)
    upper, lower = _bounds(5)
    model = dppack.LinearRegressionAdaSSP(1.0, delta).fit(X, y, upper, lower, add_bias=True,
                                                          random_state=1)
    # the noise of X'y and X'X over n, times C^-1 = 3 I and y's scale 4: about 0.01 at eps 1
    assert abs(model.coeff[0] - 1.0) < 0.06
    assert np.max(np.abs(model.coeff[1:] - beta)) < 0.06
    pred = model.predict(X[:10])
    assert np.allclose(pred, model.coeff[0] + X[:10] @ model.coeff[1:])


def test_predict_with_data_frames_and_without_bias():
    pd = pytest.importorskip("pandas")
    X, y, _ = _linear(500, seed=6)
    upper, lower = _bounds(2)
    model = dppack.LinearRegressionAdaSSP(2.0).fit(pd.DataFrame(X), pd.Series(y - 1.0), upper,
                                                   lower, random_state=3)
    assert model.coeff.shape == (2,)
    assert np.allclose(model.predict(pd.DataFrame(X[:3])), X[:3] @ model.coeff)


@pytest.mark.parametrize("add_bias, delta, eps", [(True, 0.0, 1.0), (False, 1e-5, 1.0),
                                                  (True, 0.0, 0.2)])
def test_dask_is_the_in_memory_fit_bit_for_bit(add_bias, delta, eps):
    """Dask arrays in uneven chunks and a Dask DataFrame with a Series: the exact integer
    Gram matrix summed over partitions, so the same seed gives the same coefficients."""
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, y, _ = _linear(3001, p=3, seed=8)
    upper, lower = _bounds(3)
    y[5] = 9.0  # outside the bounds: clipped on both paths
    memory = dppack.LinearRegressionAdaSSP(eps, delta).fit(X, y, upper, lower, add_bias,
                                                           random_state=2)
    assert memory.method_ == ("projected" if eps < 1 else "full")
    chunked = dppack.LinearRegressionAdaSSP(eps, delta).fit(
        da.from_array(X, chunks=((1000, 2000, 1),  (3,))), da.from_array(y, chunks=1000),
        upper, lower, add_bias, random_state=2)
    frame = dppack.LinearRegressionAdaSSP(eps, delta).fit(
        dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "c"]), npartitions=4),
        dd.from_pandas(pd.Series(y), npartitions=4), upper, lower, add_bias, random_state=2)
    for model in (chunked, frame):
        assert np.array_equal(model.coeff, memory.coeff)
        assert model._n_passes == 2
    assert memory._n_passes is None
    with pytest.raises(ValueError, match="finite"):
        bad = X.copy()
        bad[2000, 1] = np.nan
        dppack.LinearRegressionAdaSSP(1.0).fit(da.from_array(bad, chunks=(1000, 3)),
                                               da.from_array(y, chunks=1000), upper, lower)


def test_predict_on_dask_is_lazy_and_equals_memory():
    # as the other models: a lazy Dask array, the in-memory predict applied to each chunk
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(4)
    X = rng.uniform(-1, 1, (120, 2))
    y = X @ np.array([1.0, -0.5]) + 0.1 * rng.standard_normal(120)
    model = dppack.LinearRegressionAdaSSP(2.0).fit(X, y, [1.0, 1.0, 3.0], [-1.0, -1.0, -3.0],
                                                   add_bias=True, random_state=1)
    lazy = model.predict(da.from_array(X, chunks=(50, 2)))
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), model.predict(X))
