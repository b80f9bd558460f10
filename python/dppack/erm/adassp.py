"""Private linear regression by sufficient-statistics perturbation with an adaptive ridge
(AdaSSP, Wang 2018): :class:`LinearRegressionAdaSSP`.

Wang (2018), UAI, Algorithm 2, with five changes: exact integer statistics of records on a
grid with exact discrete noise; four released parts (the sum of y apart); the ridge from the
released statistics; l-infinity K-norm noise for vectors; a projected release where n eps is
small against d. Each change, its privacy argument and its measured effect:
:ref:`guide-erm-adassp`. Neighbouring data sets differ in one record replaced within the
bounds; everything after the noise is post-processing.
"""

import functools
import math
from fractions import Fraction

import numpy as np

from .. import _backends, _checks, _plans, _random, mechanisms
from .._repr import model_repr
from ._adassp_grid import float_up, gram_sensitivities, product_range, square_range
from ._fit_plan import FitPlan
from ._design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
)

__all__ = ["LinearRegressionAdaSSP"]

# The failure probability rho of the noise's norm bound (Wang 2018, Algorithm 2's default).
NORM_BOUND_FAILURE = 0.05


class LinearRegressionAdaSSP:
    """Private linear regression by AdaSSP: noisy sufficient statistics and an adaptive ridge.

    Beside DPpack's :class:`dppack.LinearRegressionDP`, with the same ``fit`` and ``predict``
    arguments and bounds (one per column of X, then y's); its error shrinks as n grows and its
    intercept is not penalised. Dask data give the same coefficients as in memory, bit for bit.
    The method and its privacy argument: :ref:`guide-erm-adassp`.

    Parameters
    ----------
    eps : float
        > 0; ``inf`` fits ordinary least squares without noise (not private).
    delta : float, default 0
        0 for eps-DP (discrete Laplace noise), in (0, 1) for (eps, delta)-DP (discrete Gaussian).

    Attributes
    ----------
    coeff : ndarray or None
        The coefficients on the raw X (bias first with ``add_bias``).
    privacy_ : dppack.PrivacyLoss or None
        ``PrivacyLoss.approx(eps, delta)``, charged as ``"LinearRegressionAdaSSP.fit"``.
    ridge_ : float or None
        The ridge lambda of the centred, scaled problem (1-d for the projected release).
    method_ : str or None
        ``"full"`` or ``"projected"``, chosen from n, d, eps, delta and the bounds only.
    grid_bits_ : int or None
        k of the records' grid 2^-k.
    sensitivities_ : dict or None
        Per released part, its sensitivity in the scaled units.
    statistics_ : dict or None
        The released (noisy) statistics of the scaled records.

    Raises
    ------
    ValueError
        For eps, delta, data or bounds out of range, before any noise is drawn; an overspend,
        before the data are read.

    References
    ----------
    Wang (2018), UAI, Algorithm 2 (AdaSSP) and Theorem 3.
    Canonne, Kamath and Steinke (2020), NeurIPS (discrete Laplace and Gaussian).
    Mironov (2012), CCS (the least significant bits).
    Hardt and Talwar (2010), STOC (the K-norm mechanism).
    Awan and Slavkovic (2021), JASA (comparing K-norm mechanisms).
    Helland (1988), Communications in Statistics (partial least squares' first weight vector).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack import LinearRegressionAdaSSP
    >>> t = np.arange(20000)  # fixed example data in [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = 1.0 + X @ [0.5, -0.25] + 0.1 * np.sin(3.1 * t)
    >>> model = LinearRegressionAdaSSP(eps=1.0).fit(X, y, [1, 1, 3], [-1, -1, -1],
    ...                                              add_bias=True, random_state=1)
    >>> np.round(model.coeff, 2), model.privacy_, model.method_
    (array([ 1.  ,  0.5 , -0.25]), PrivacyLoss.pure(eps=1.0), 'full')
    >>> model.predict(X[:2]).shape
    (2,)
    """

    _REPR_PARAMS = ("eps", "delta")

    def __init__(self, eps, delta=0.0):
        self.eps = _checks.check_positive_scalar(eps, "eps")
        self.delta = _checks.check_probability(delta, "delta", zero=True)
        self.coeff = None
        self.privacy_ = None
        self.ridge_ = None
        self.method_ = None
        self.grid_bits_ = None
        self.sensitivities_ = None
        self.statistics_ = None
        self._n_passes = None

    def __repr__(self):
        """Class, parameters, and the coefficients once fitted."""
        return model_repr(self, self._REPR_PARAMS)

    # ---------------------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit privately; returns ``self``.

        Parameters
        ----------
        X : array_like or data frame, n x p, finite
        y : array_like, n finite responses
        upper_bounds, lower_bounds : array_like
            p + 1 public bounds each: the columns of X, then y (both clipped to them).
        add_bias : bool, default False
            Fit an intercept (first in ``coeff``).
        random_state : None, int or NumPy Generator, optional
        accountant : dppack.BudgetAccountant, optional
            Charged (eps, delta) (None: the session's), before the data are read.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad parameters, data or bounds (before any noise is drawn).
        """
        arguments = {"model": self, "upper_bounds": upper_bounds, "lower_bounds": lower_bounds,
                     "add_bias": add_bias}
        return _plans.run(ADASSP_FIT, (X, y), arguments, random_state, accountant)

    def _draw_fit(self, n, gram, grid, passes, add_bias, eps, delta, rng, privacy):
        """The noisy statistics of the records on the grid, drawn from ``rng`` once the loss is
        spent, and the fit solved from them (post-processing); returns ``self``."""
        k, centre, scale = grid["k"], grid["centre"], grid["scale"]
        low = grid["low"].astype(np.int64).tolist()
        high = grid["high"].astype(np.int64).tolist()
        parts = _parts(gram, low, high, add_bias, k)
        method = "projected" if _projection_regime(parts, n, eps, delta, k) else "full"
        if method == "projected":
            theta, ridge, released, sensitivities = _projected(parts, gram, low, high,
                                                               add_bias, k, n, eps, rng)
        else:
            released, sensitivities, sd = _release(parts, eps, delta, rng, k)
            theta, ridge = _solve(released, n, add_bias, sd)

        p = gram.shape[0] - 1
        slopes = theta[1:] if add_bias else theta
        beta = scale[p] * slopes / scale[int(add_bias):p]
        if add_bias:
            intercept = (centre[p] + scale[p] * theta[0]
                         - float(beta @ centre[1:p]))
            coeff = np.concatenate([[intercept], beta])
        else:
            coeff = beta
        self.coeff = coeff
        self.privacy_ = privacy
        self.ridge_ = float(ridge)
        self.method_ = method
        self.grid_bits_ = k
        self.sensitivities_ = sensitivities
        released["n"] = n
        self.statistics_ = released
        self._n_passes = passes
        self.add_bias_ = add_bias
        return self

    def predict(self, X, add_bias=None):
        """X coeff (intercept first with ``add_bias``), n values; lazy for Dask X."""
        add_bias = fitted_add_bias(self, add_bias, X)
        return _backends.backend_for(X).predict(self, X, self._predict_rows, add_bias=add_bias)

    def _predict_rows(self, X, add_bias):
        """:meth:`predict` on rows in memory (``add_bias`` resolved)."""
        check_fitted(self.coeff)
        # C order: the product's rounding depends on the memory layout (BLAS kernels), and R
        # passes Fortran order; one layout gives R and Python the same bits
        X = np.ascontiguousarray(predict_matrix(X, self.coeff.size, add_bias))
        if add_bias:
            X = add_bias_column(X)
        return X @ self.coeff


class _AdaSSPFit(FitPlan):
    """The fit of :class:`LinearRegressionAdaSSP`, (eps, delta)-DP in all: its released parts
    share the budget and compose basically (Wang 2018, Algorithm 2; Dwork and Roth 2014,
    Theorem 3.16; :ref:`guide-erm-adassp`). The checks, then the integer statistics read
    through the data's backend."""

    def check(self, arguments):
        model = arguments["model"]
        arguments["add_bias"] = _checks.check_flag(arguments["add_bias"], "add.bias")
        arguments["eps"] = _checks.check_positive_scalar(model.eps, "eps")
        arguments["delta"] = _checks.check_probability(model.delta, "delta", zero=True)

    def prepare(self, data, arguments):
        a = arguments
        X, y = data
        # exact integers: every partial sum below 2^53 (grid_bits)
        statistics = _backends.backend_for(X, y).adassp_statistics(
            X, y, a["upper_bounds"], a["lower_bounds"], a["add_bias"])
        draw = functools.partial(a["model"]._draw_fit, *statistics, a["add_bias"], a["eps"],
                                 a["delta"])
        return [(None, draw)]


ADASSP_FIT = _AdaSSPFit()


def _parts(gram, low, high, add_bias, k):
    """The released parts: (name, values, L1, L2 sensitivity, integer ranges)."""
    P = gram.shape[0]
    y = P - 1
    first = 1 if add_bias else 0
    features = range(first, y)
    out = []
    one = 2 ** k  # the bias column's grid value: its products are sums times 2^k
    if add_bias:
        width_y = high[y] - low[y]
        out.append(("sum_y", gram[0, y:y + 1] / 4.0 ** k, Fraction(width_y, one),
                    Fraction(width_y, one), [width_y * one]))
        widths = [high[j] - low[j] for j in features]
        out.append(("sum_x", gram[0, first:y] / 4.0 ** k, Fraction(sum(widths), one),
                    _sqrt_up(sum(w * w for w in widths)) / one, [w * one for w in widths]))
    ranges = [product_range(low[j], high[j], low[y], high[y]) for j in features]
    l2sq = sum(r * r for r in ranges)
    scale2 = Fraction(1, 4 ** k)
    out.append(("xty", gram[first:y, y] / 4.0 ** k, Fraction(sum(ranges)) * scale2,
                _sqrt_up(l2sq) * scale2, ranges))
    l1, l2sq = gram_sensitivities(low[first:y], high[first:y])
    rows, cols = np.triu_indices(y - first)
    lo = np.array(low[first:y], dtype=np.int64)  # |values| <= 2^27: products in int64
    hi = np.array(high[first:y], dtype=np.int64)
    corners = np.stack([lo[rows] * lo[cols], lo[rows] * hi[cols], hi[rows] * lo[cols],
                        hi[rows] * hi[cols]])
    spread = corners.max(axis=0) - corners.min(axis=0)
    # the diagonal: u^2 over [lo, hi], whose minimum is 0 when the interval holds 0
    square_low = np.where((lo <= 0) & (hi >= 0), 0, np.minimum(lo * lo, hi * hi))
    square = np.maximum(lo * lo, hi * hi) - square_low
    gram_ranges = np.where(rows == cols, square[rows], spread).tolist()
    out.append(("xtx", gram[first:y, first:y][rows, cols] / 4.0 ** k, l1 * scale2,
                _sqrt_up(l2sq) * scale2, gram_ranges))
    return out


def _sqrt_up(value):
    """A rational upper bound on sqrt(value), within a relative 2^-60."""
    value = Fraction(value)
    shift = 120
    root = math.isqrt(value.numerator * 4 ** shift // value.denominator) + 1
    return Fraction(root, 2 ** shift)


def _release(parts, eps, delta, rng, k):
    """Noise on each part at eps / q: released values, sensitivities and noise sd."""
    q = len(parts)
    released, sensitivities, sd = {}, {}, {}
    eps_part = eps / q
    delta_part = delta / q
    for name, values, l1, l2, ranges in parts:
        values = np.asarray(values, dtype=np.float64)
        if not math.isfinite(eps):
            noisy, spread = values.copy(), 0.0
            sensitivities[name] = None
        elif delta == 0:
            sensitivity = float_up(l1)
            laplace_sd = math.sqrt(2.0) * sensitivity / eps_part
            if _linf_sd(ranges, k, eps_part) < laplace_sd:
                noisy, spread, sensitivity = _linf_release(values, ranges, k, eps_part, rng)
            else:
                noisy = _random.discrete_laplace_noise(values, sensitivity, eps_part, rng)
                spread = laplace_sd
            sensitivities[name] = sensitivity
        else:
            sensitivity = float_up(l2)
            sigma = mechanisms.gaussian_sigma(eps_part, delta_part, sensitivity)
            noisy = mechanisms.discrete_gaussian_release(values, sigma, sensitivity, rng,
                                                         eps=eps_part, delta=delta_part)
            k2, sigma2 = mechanisms.discrete_gaussian_parameters(
                sigma, sensitivity, eps=eps_part, delta=delta_part,
                coordinates=max(values.size, 1))
            spread = math.ldexp(math.sqrt(sigma2), k2)
            sensitivities[name] = sensitivity
        released[name] = noisy
        sd[name] = spread
    return released, sensitivities, sd


# The l-infinity noise's grid: the largest range is at least 2^LINF_GRID_BITS grid steps
# (rounding then widens it by a relative 2^-20 at most), and more when m eps is large, so
# that the radius of the noise is large against m^2 (``_random.linf_noise`` accepts its
# first proposal with probability about exp(-m eps / 2^(LINF_GRID_BITS + 1))).
LINF_GRID_BITS = 20


def _linf_sd(ranges, k, eps):
    """sqrt((m + 1)(m + 2) / 3) R / eps: the l-infinity noise's largest coordinate sd."""
    m = len(ranges)
    if m < 2:
        return math.inf
    return math.sqrt((m + 1) * (m + 2) / 3.0) * math.ldexp(float(max(ranges)), -2 * k) / eps


def _linf_release(values, ranges, k, eps, rng):
    """The l-infinity K-norm release of one part: (values, sd, l-infinity sensitivity)."""
    exact = [int(v) for v in np.ldexp(values, 2 * k).tolist()]  # integers below 2^53
    out, spread, top = _linf_integers(exact, ranges, 2 * k, eps, rng)
    return out.reshape(values.shape), spread, top


def _linf_integers(exact, ranges, shift, eps, rng):
    """The exact l-infinity release of integers G_i moved by at most R_i: (released
    floats, sd of the widest coordinate, l-infinity sensitivity).
    """
    ranges = [max(int(r), 1) for r in ranges]
    m = len(ranges)
    top = max(ranges)
    factors = [max(1, top // r) for r in ranges]
    extra = max(0, math.ceil(math.log2(max(1.0, m * eps))))
    j = max(0, top.bit_length() - 1 - LINF_GRID_BITS - extra)
    g = 1 << j
    units = -(-top // g) + (1 if j else 0)
    if j:
        grid = [(f * v + (g >> 1)) >> j for f, v in zip(factors, exact)]
    else:
        grid = [f * v for f, v in zip(factors, exact)]
    noise, eps_used = _random.linf_noise(units, eps, m, rng)
    total = [v + z for v, z in zip(grid, noise)]
    if max(abs(t) for t in total) < 2 ** 53 and -1000 < j - shift < 1000:
        # one correctly rounded division of exact floats, then an exact power of two: the
        # correctly rounded (V + Z) g / (f 2^shift), as below
        out = np.ldexp(np.array(total, dtype=np.float64) / np.array(factors, dtype=np.float64),
                       j - shift)
    else:
        out = np.array([float(Fraction(t * g, f << shift)) for t, f in zip(total, factors)])
    spread = math.sqrt((m + 1) * (m + 2) / 3.0) * float(Fraction(units * g, 1 << shift)
                                                        / eps_used)
    return out, spread, float_up(Fraction(top, 1 << shift))


# The projected release (``_projected``): the direction's dyadic resolution 2^-B, and the
# level of the full method's total noise on X'X / n (d tau) above which the projection is
# used: the variance of one feature spread uniformly over its bounds, 1/3 in scaled units.
PROJECTION_BITS = 20
PROJECTION_THRESHOLD = 1.0 / 3.0


def _full_noise_bound(parts, n, eps, k):
    """(d, tau): tau bounds the operator norm of the noise of X'X / n (public quantities only)."""
    name, _, l1, _, ranges = parts[-1]
    d = int(round((math.sqrt(8 * len(ranges) + 1) - 1) / 2))
    eps_part = eps / len(parts)
    sd = min(math.sqrt(2.0) * float_up(l1) / eps_part, _linf_sd(ranges, k, eps_part))
    return d, sd / n * math.sqrt(d * math.log(2.0 * d * d / NORM_BOUND_FAILURE))


def _projection_regime(parts, n, eps, delta, k):
    """Whether to release projected: pure DP, finite eps, d >= 2 and d tau > 1/3."""
    if delta != 0 or not math.isfinite(eps) or len(parts[-1][4]) < 3:
        return False
    d, tau = _full_noise_bound(parts, n, eps, k)
    return d * tau > PROJECTION_THRESHOLD


def _projected(parts, gram, low, high, add_bias, k, n, eps, rng):
    """The projected release, two releases of eps / 2 (:ref:`guide-erm-adassp`): theta, ridge,
    statistics and sensitivities.
    """
    y = gram.shape[0] - 1
    first = 1 if add_bias else 0
    features = list(range(first, y))
    half = eps / 2
    xty = [part for part in parts if part[0] == "xty"]
    released, sensitivities, _ = _release(xty, half, 0.0, rng, k)
    c = np.asarray(released["xty"], dtype=np.float64)
    total = float(np.sum(np.abs(c)))
    bits = PROJECTION_BITS
    if total > 0 and math.isfinite(total):
        V = [int(math.ldexp(v / total, bits)) for v in c.tolist()]  # truncated: ||V||_1 <= 2^B
    else:
        V = [0] * len(features)
    G = [[int(v) for v in row] for row in gram.tolist()]  # exact integers below 2^53
    lo, hi = [low[j] for j in features], [high[j] for j in features]
    smin = sum(min(v * a, v * b) for v, a, b in zip(V, lo, hi))
    smax = sum(max(v * a, v * b) for v, a, b in zip(V, lo, hi))
    sum_ss = sum(V[a] * V[b] * G[features[a]][features[b]]
                 for a in range(len(V)) for b in range(len(V)))
    sum_sy = sum(v * G[j][y] for v, j in zip(V, features))
    # common units 2^-(2k + 2B): s in units 2^-(k + B), y and x in 2^-k, the bias column 2^k
    names = ["sum_ss", "sum_sy"]
    values = [sum_ss, sum_sy << bits]
    ranges = [square_range(smin, smax),
              product_range(smin, smax, low[y], high[y]) << bits]
    if add_bias:
        sum_s = sum(v * G[0][j] for v, j in zip(V, features))
        names = ["sum_y", "sum_s"] + names
        values = [G[0][y] << (2 * bits), sum_s << bits] + values
        ranges = [((high[y] - low[y]) << k) << (2 * bits),
                  ((smax - smin) << k) << bits] + ranges
    out, spread, sensitivity = _linf_integers(values, ranges, 2 * k + 2 * bits, half, rng)
    for name, value in zip(names, out.tolist()):
        released[name] = np.array([value])
        sensitivities[name] = sensitivity
    released["projection"] = np.array([math.ldexp(v, -bits) for v in V])
    top = max(max(int(r), 1) for r in ranges)
    sd_ss = spread / max(1, top // max(int(ranges[names.index("sum_ss")]), 1))
    var = released["sum_ss"][0] / n
    cov = released["sum_sy"][0] / n
    if add_bias:
        mean_y = min(max(released["sum_y"][0] / n, -1.0), 1.0)
        mean_s = min(max(released["sum_s"][0] / n, -1.0), 1.0)
        var -= mean_s * mean_s
        cov -= mean_s * mean_y
    tau = sd_ss / n * math.sqrt(math.log(2.0 / NORM_BOUND_FAILURE))
    ridge = max(0.0, tau - var)
    slope = cov / (var + ridge) if var + ridge > 0 else 0.0
    theta = slope * released["projection"]
    if add_bias:
        theta = np.concatenate([[mean_y - slope * mean_s], theta])
    return theta, ridge, released, sensitivities


def _solve(released, n, add_bias, sd):
    """theta of the scaled problem and the ridge lambda = max(0, tau - lambda_min(C~))."""
    xty = released["xty"] / n
    d = xty.size
    xtx = np.zeros((d, d))
    rows, cols = np.triu_indices(d)
    xtx[rows, cols] = released["xtx"]
    xtx[cols, rows] = released["xtx"]
    released["xtx"] = xtx.copy()
    C = xtx / n
    if add_bias:
        # the means lie in [-1, 1] (the records' range): projecting the noisy ones there is
        # post-processing, and keeps a large noise in them out of C~ (rank one, -m m')
        mean_x = np.clip(released["sum_x"] / n, -1.0, 1.0)
        mean_y = min(max(float(released["sum_y"][0]) / n, -1.0), 1.0)
        C = C - np.outer(mean_x, mean_x)
        xty = xty - mean_x * mean_y
    ridge = 0.0
    if d:
        values, vectors = np.linalg.eigh(C)
        tau = sd["xtx"] / n * math.sqrt(d * math.log(2.0 * d * d / NORM_BOUND_FAILURE))
        if tau > 0:
            ridge = max(0.0, tau - float(values[0]))
            theta = vectors @ ((vectors.T @ xty) / (values + ridge))
        else:  # no noise (eps = Inf): least squares
            theta = np.linalg.lstsq(C, xty, rcond=None)[0]
    else:
        theta = np.zeros(0)
    if add_bias:
        theta = np.concatenate([[mean_y - float(theta @ mean_x)], theta])
    return theta, ridge
