"""Private linear regression by sufficient-statistics perturbation with an adaptive ridge
(AdaSSP, Wang 2018): :class:`LinearRegressionAdaSSP`.

Wang (2018), "Revisiting differentially private linear regression: optimal and adaptive
prediction & estimation in unbounded domain", UAI, Algorithm 2 (AdaSSP), releases X'X and X'y
with noise, chooses a ridge lambda from a private estimate of lambda_min(X'X) and solves
(X'X~ + lambda I) theta = X'y~. The release here keeps the method and changes five things,
each stated where it is done:

* Exact statistics. Every record is clipped to the public bounds, centred and scaled into
  [-1, 1] (``add_bias``) or scaled into [-1, 1] (without it), then rounded to the grid
  g = 2^-k with integer values u = round(z / g). k is chosen from n alone so that
  n max|u_i u_j| <= 2^52: every partial sum of X'X and X'y in grid units is then an integer
  below 2^53, so BLAS computes them exactly in any order of summation (also summed over
  Dask's partitions, ``dppack.dask.adassp``). The sensitivities are computed on these
  integers, from the integer bounds of each column, and the noise is exact discrete Laplace
  (delta = 0) or discrete Gaussian (delta > 0) on a power-of-two grid
  (:func:`dppack._random.discrete_laplace_noise`,
  :func:`dppack.mechanisms.discrete_gaussian_release`; Canonne, Kamath and Steinke 2020): no
  floating-point rounding of a released value depends on the data (Mironov 2012).
* Four released parts instead of the paper's three. With ``add_bias`` the released
  statistics are the sum of y, the sums of the features, X'y and X'X of the features (the
  upper triangle); without it X'y and X'X only. The budget is split equally between the
  parts (eps / 4 or eps / 2 each, and delta likewise); n needs no noise (neighbouring data
  sets have the same size: one record replaced). The sum of y has its own part because its
  L1 sensitivity is far smaller (2 in the scaled units, against 2 d for the features' sums
  and about d^2 / 2 for X'X): under one common noise scale the intercept would carry the
  noise of X'X (on the diabetes data, n = 309 and d = 10, that alone loses to predicting
  the mean).
* The ridge from the released statistics (post-processing) instead of a released
  lambda_min(X'X). With C~ the released X'X of the centred features over n and tau the
  high-probability bound of the paper on the operator norm of the noise E = C~ - C
  (tau = sigma sqrt(d log(2 d^2 / rho)), sigma the standard deviation of one entry's
  noise, rho = 0.05), lambda = max(0, tau - lambda_min(C~)): the matrix that is inverted,
  C~ + lambda I, never has an eigenvalue below the noise level tau, and so (Weyl, with
  ||E|| <= tau with probability >= 1 - rho) C + lambda I is positive semi-definite. The
  paper asks more, lambda_min(C) + lambda >= tau, from a noisy lower confidence bound on
  lambda_min(C) (a third of the budget); here that would be lambda = max(0, 2 tau -
  lambda_min(C~)), which spends nothing either but regularises more: it lost 0.027 of held-out
  R^2 at n = 10^6, d = 20, eps = 0.1 (0.630 against 0.657, OLS 0.685) and RMSE 1.1 on the
  diabetes data at eps = 5 (69.3 against 68.2), and gained 0.4 to 0.7 at eps 0.1 and 0.5
  there (``benchmarks/adassp_accuracy.py``). The intercept is not penalised (the centred
  solve; its coordinate of X'X is n, exact). The noisy means of the scaled columns are
  projected onto [-1, 1], where the true ones lie, before centring (post-processing: it
  keeps a large noise in them out of C~, where it would enter as -m m').
* The l-infinity noise for vectors (delta = 0). A part of m >= 2 values whose entries each
  move by at most R_i gets the K-norm mechanism of the cube (Hardt and Talwar 2010), exact
  on the integer lattice (:func:`dppack._random.linf_noise`), where its standard deviation
  per coordinate, sqrt((m + 1)(m + 2) / 3) R / eps', is below Laplace's sqrt(2) Delta_1 /
  eps' (a public comparison): for box-bounded records the cube is the shape of the
  sensitivity of X'y and of the sums, and Awan and Slavkovic (2021, Section 4) found it the
  best of the l_p K-norms for these statistics. At d = 10 it halves the noise of X'y and the
  sums of the features, and cuts that of X'X by a quarter.
* A projected release where n eps is small against d (delta = 0). When the full release's
  noise on X'X / n, summed over the d directions (d tau), exceeds 1/3, the variance of one
  feature spread uniformly over its bounds, the noisy X'X would be mostly noise (on the
  diabetes data at eps = 1, tau is about 8 where the covariance's eigenvalues are below
  0.25) and its budget is better spent on one direction. The fit then makes two releases of
  eps / 2: X'y, whose direction v = X'y~ / ||X'y~||_1 is the first weight vector of partial
  least squares (Wold 1966, Helland 1988) and, for uncorrelated features, the direction of
  least squares; then the sufficient statistics of the regression of y on s = v'z (sum y,
  sum s, sum s^2, sum s y: one l-infinity release), whose sensitivities follow from v and the
  bounds (adaptive composition: v is public once released). The slope along v is AdaSSP's
  ridge in one dimension (``_projected``). The choice depends on n, d, eps and the bounds
  only. On the diabetes data (``benchmarks/utility.py``, 50 fits) it beats the mean
  predictor from eps = 1 (median test RMSE 68.2 [66.0, 71.3] against 71.4; the full
  release's 71.2), and at eps 2 and 5 it reaches 62.1 and 59.3 (65.1 for
  ``LinearRegressionDP`` at eps 5); at eps 0.1 and 0.5 it is worse (87.6 and 73.3 against
  78.9 and 71.6), where the slope along v is mostly noise and the sum of y shares its release
  with the slope's statistics.

Neighbouring data sets differ in one record (x, y) replaced by another within the bounds,
as for DPpack's models. Post-processing of the released statistics (centring, the ridge, the
solve, the rescaling to the raw X) is free.
"""

import math
from fractions import Fraction

import numpy as np

from .. import _backends, _checks, _messages, _random, accounting, mechanisms
from .._repr import model_repr
from ._grid import to_grid as _to_grid
from .cms import fit_loss, refuse_infinite_eps, spend_fit
from .design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
)

__all__ = ["LinearRegressionAdaSSP"]

# The grid of the records: z in [-1, 1] rounded to multiples of 2^-k, k at most 26
# (finer gains nothing against the noise) and such that n 2^(2k) <= 2^52.
MAX_GRID_BITS = 26
# The failure probability rho of the noise's norm bound (Wang 2018, Algorithm 2's default).
NORM_BOUND_FAILURE = 0.05
TOO_MANY_ROWS_MESSAGE = "LinearRegressionAdaSSP.fit takes at most 2^50 rows."


def grid_bits(n):
    """The exponent k of the records' grid 2^-k for n rows: the largest k <= 26 with
    n 2^(2k) <= 2^52, so that every partial sum of products of grid values (each at most
    2^(2k) in magnitude) is an integer below 2^53, exact in float64.

    Examples
    --------
    >>> grid_bits(309), grid_bits(10 ** 6)
    (21, 16)
    """
    bits = (52 - (int(n) - 1).bit_length()) // 2
    if bits < 1:
        raise _messages.value_error(TOO_MANY_ROWS_MESSAGE)
    return min(MAX_GRID_BITS, bits)


def _float_up(value):
    """The smallest float >= the rational ``value`` (a sensitivity handed on as a float)."""
    value = Fraction(value)
    out = float(value)
    if Fraction(out) < value:
        out = math.nextafter(out, math.inf)
    return out


def _product_range(a, b, c, d):
    """max - min of u v over the integer box u in [a, b], v in [c, d] (exact integers)."""
    corners = (a * c, a * d, b * c, b * d)
    return max(corners) - min(corners)


def _square_range(a, b):
    """max - min of u^2 over the integers u in [a, b]."""
    low = 0 if a <= 0 <= b else min(a * a, b * b)
    return max(a * a, b * b) - low


def gram_sensitivities(low, high):
    """L1 and squared-L2 sensitivities of the upper triangle of Z'Z, diagonal included, for
    integer records z with low_j <= z_j <= high_j, under one record replaced.

    Parameters
    ----------
    low, high : sequence of int

    Returns
    -------
    (Fraction, Fraction)
        The L1 bound: the smaller of the sum of each entry's range and the rank-two bound
        (1/2) U (2 M - U) + sum of the diagonal's ranges, with M = sum_j m_j,
        m_j = max(|low_j|, |high_j|), U = min(M, sum_j (high_j - low_j)); the squared L2
        bound: the smaller of the sum of the squared ranges and R^4 + (1/2) sum of the
        diagonal's squared ranges, R^2 = sum_j m_j^2.

    Notes
    -----
    A = z z' - z~ z~' = (a b' + b a') / 2 with a = z - z~, b = z + z~, and
    |a_j| + |b_j| = 2 max(|z_j|, |z~_j|) <= 2 m_j, |a_j| <= high_j - low_j. Off the diagonal,
    sum_{i != j} |A_ij| <= ||a||_1 ||b||_1 <= U (2 M - U) (the product is largest when ||a||_1
    is as close to M as the widths allow), and the upper triangle holds half of it.
    For L2, ||A||_F^2 = ||z||^4 + ||z~||^4 - 2 (z'z~)^2 <= 2 R^4, and the upper triangle's
    squared norm is (||A||_F^2 + sum_i A_ii^2) / 2.

    Examples
    --------
    >>> l1, l2sq = gram_sensitivities([-1, -1], [1, 1])
    >>> l1, l2sq  # entries (1,1), (1,2), (2,2): ranges 1, 2, 1; rank-two bound 2 + 2
    (Fraction(4, 1), Fraction(5, 1))
    """
    low = [int(v) for v in low]
    high = [int(v) for v in high]
    p = len(low)
    diagonal = [_square_range(low[i], high[i]) for i in range(p)]
    off = [_product_range(low[i], high[i], low[j], high[j])
           for i in range(p) for j in range(i + 1, p)]
    m = [max(abs(a), abs(b)) for a, b in zip(low, high)]
    total, widths = sum(m), sum(b - a for a, b in zip(low, high))
    u = min(total, widths)
    l1 = min(Fraction(sum(off) + sum(diagonal)),
             Fraction(u * (2 * total - u), 2) + sum(diagonal))
    r2 = sum(v * v for v in m)
    l2sq = min(Fraction(sum(v * v for v in off) + sum(v * v for v in diagonal)),
               Fraction(r2 * r2) + Fraction(sum(v * v for v in diagonal), 2))
    return l1, l2sq


class LinearRegressionAdaSSP:
    """Private linear regression by AdaSSP: noisy sufficient statistics and an adaptive ridge.

    A model beside DPpack's :class:`dppack.LinearRegressionDP`: the same ``fit`` and
    ``predict`` arguments and bounds (one per column of X, then y's), a different method
    (Wang 2018, Algorithm 2, with the changes stated in ``dppack.erm.adassp``). Its
    error shrinks as n grows (no coefficient ball, no fixed penalty), and its intercept is
    not penalised.

    Parameters
    ----------
    eps : float
        > 0; ``inf`` fits ordinary least squares without noise (not private).
    delta : float, default 0
        0 for eps-DP (discrete Laplace noise), in (0, 1) for (eps, delta)-DP (discrete
        Gaussian noise, as the paper).

    Attributes
    ----------
    coeff : ndarray or None
        The coefficients on the raw X (bias first with ``add_bias``); None before a fit.
    privacy_ : dppack.PrivacyLoss or None
        ``PrivacyLoss.approx(eps, delta)`` (pure eps when delta = 0), charged to the
        accountant as ``"LinearRegressionAdaSSP.fit"``; None after a fit with eps = Inf.
    ridge_ : float or None
        lambda, the ridge of the centred, scaled problem (0 when the released X'X is well
        conditioned against its noise); for the projected release, the ridge of the
        one-dimensional problem along the released direction.
    method_ : str or None
        ``"full"`` (X'X and X'y released) or ``"projected"`` (X'y, then the regression along
        its direction; pure eps-DP with n eps small against d), chosen from n, d, eps, delta
        and the bounds only (``dppack.erm.adassp``).
    grid_bits_ : int or None
        k of the records' grid 2^-k (``dppack.erm.adassp.grid_bits``).
    sensitivities_ : dict or None
        Per released part, its sensitivity in the scaled units (L1 for the Laplace parts,
        l-infinity for the l-infinity ones, L2 for delta > 0).
    statistics_ : dict or None
        The released (noisy) statistics of the scaled records: ``"sum_y"``, ``"sum_x"``
        (with ``add_bias``), ``"xty"``, ``"xtx"`` (the symmetric matrix), and ``"n"``; for
        the projected release ``"xty"``, ``"projection"`` (the direction v),
        ``"sum_y"``, ``"sum_s"`` (with ``add_bias``), ``"sum_ss"``, ``"sum_sy"`` and ``"n"``.
    n_passes_ : int or None
        2 after a fit on Dask data (the checks and n, then the Gram matrix;
        ``dppack.dask.adassp``); None in memory.

    Notes
    -----
    Dask data (a Dask array or DataFrame X, a Dask array or Series y): the exact integer
    Gram matrix of each partition's grid records, summed over the partitions (exact in any
    order), then the same draws on the driver: the same ``random_state`` gives the same
    coefficients as in memory, bit for bit (``dppack.dask.adassp``).

    Privacy. Records are clipped to the bounds, then z = (x - c) / s per column (c the
    midpoint and s the half-width of the bounds with ``add_bias``; c = 0 and
    s = max(abs(L), abs(U)) without) and u = round(z 2^k), clipped to the integer images of the
    bounds (computed by the same operations). The released parts are integer-valued
    functions of the u's with the L1 (delta = 0) or L2 sensitivities computed exactly from
    those integer bounds (``dppack.erm.adassp.gram_sensitivities``; the sums: the columns'
    widths); each part gets eps / q (and delta / q), q = 4 parts with ``add_bias`` and 2
    without, and the discrete Laplace (Canonne, Kamath and Steinke 2020), l-infinity
    (Hardt and Talwar 2010; on the integer lattice, the vector's l-infinity sensitivity from
    the entries' integer ranges) or discrete Gaussian (ibid., Theorem 4 with the zCDP
    conversion of their Corollary 13) noise on a power-of-two grid, whose rounding of the
    exact input adds one grid step per coordinate to the sensitivity. The parts compose to
    eps-DP, or (eps, delta)-DP (basic composition). The projected release: X'y at eps / 2,
    then, given its direction v (post-processing), the four sums of s = v'z at eps / 2 with
    ranges computed from v and the integer bounds (adaptive composition). Everything after
    the noise is post-processing.

    Raises
    ------
    ValueError
        For eps, delta, data or bounds out of range, before any noise is drawn; an overspend
        of the accountant, before the data are read.

    References
    ----------
    Wang Y-X (2018), Revisiting differentially private linear regression: optimal and
    adaptive prediction & estimation in unbounded domain, UAI, Algorithm 2 (AdaSSP) and its
    Theorem 3; Canonne, Kamath and Steinke (2020), The discrete Gaussian for differential
    privacy, NeurIPS; Mironov (2012), On significance of the least significant bits for
    differential privacy, CCS; Hardt and Talwar (2010), On the geometry of differential
    privacy, STOC (the K-norm mechanism); Awan and Slavkovic (2021), Structure and sensitivity
    in differential privacy: comparing K-norm mechanisms, JASA; Helland (1988), On the
    structure of partial least squares regression, Communications in Statistics (the first
    weight vector X'y).

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
        self.n_passes_ = None

    def __repr__(self):
        """Class, parameters, and the coefficients once fitted."""
        return model_repr(self, self._REPR_PARAMS)

    # ---------------------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit privately; returns ``self``.

        Parameters
        ----------
        X : array_like or data frame, n x p
            Finite features.
        y : array_like
            n finite responses.
        upper_bounds, lower_bounds : array_like
            p + 1 public bounds each: the columns of X, then y (lower < upper). X and y are
            clipped to them.
        add_bias : bool, default False
            Fit an intercept (first in ``coeff``).
        random_state : None, int or NumPy Generator, optional
        accountant : dppack.BudgetAccountant, optional
            Charged (eps, delta) as ``"LinearRegressionAdaSSP.fit"`` (None: the session's);
            an overspend, or eps = Inf with an accountant, is refused before the data are
            read.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Bad parameters, data or bounds (before any noise is drawn).
        """
        bill = accounting.charge(accountant, lambda: fit_loss(self.eps, self.delta),
                                 f"{type(self).__name__}.fit")
        add_bias = _checks.check_flag(add_bias, "add.bias")
        eps = _checks.check_positive_scalar(self.eps, "eps")
        delta = _checks.check_probability(self.delta, "delta", zero=True)
        refuse_infinite_eps(bill, eps)
        n, gram, grid, passes = _backends.backend_for(X, y).adassp_statistics(
            X, y, upper_bounds, lower_bounds, add_bias)
        # exact integers: every partial sum below 2^53 (grid_bits)
        rng = _random.as_generator(random_state)
        privacy = spend_fit(bill, eps)  # after the checks, before the first draw
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
        self.n_passes_ = passes
        self.add_bias_ = add_bias
        return self

    def predict(self, X, add_bias=None):
        """X coeff (with the intercept first when ``add_bias``; None: as fitted), a 1-d
        array of n values; X is neither clipped nor scaled. For Dask X, a lazy Dask array
        (this function applied to each chunk)."""
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


def grid_layout(bounds, target_bounds, add_bias, k):
    """The map of the records to the grid 2^-k, from the bounds alone: per column (bias
    first with ``add_bias``, y last) the centre c, the scale s, the factor f = 2^k / s and
    the integer bounds low and high of u = round((x - c) f).

    c is the midpoint and s the half-width of the bounds with ``add_bias`` (the bias column:
    c = 0, s = 1), c = 0 and s = max(abs(L), abs(U)) without. The computed u may differ from
    round((x - c) 2^k / s) by the rounding of f; the records are whatever integers this
    per-record map gives, and the sensitivities are those of the integer bounds, computed by
    the same operations (the map is monotone)."""
    lower = np.append(bounds.lower, target_bounds.lower[0])
    upper = np.append(bounds.upper, target_bounds.upper[0])
    if add_bias:
        centre = (lower + upper) / 2
        scale = (upper - lower) / 2
        centre[0], scale[0] = 0.0, 1.0  # the bias column: 1
    else:
        centre = np.zeros_like(lower)
        scale = np.maximum(np.abs(lower), np.abs(upper))
    factor = math.ldexp(1.0, k) / scale
    low, high = _to_grid(lower, centre, factor), _to_grid(upper, centre, factor)
    return {"k": k, "centre": centre, "scale": scale, "factor": factor, "low": low,
            "high": high}


def grid_records(X, y, grid):
    """The clipped design X (bias column first with ``add_bias``; transformed in place: the
    caller's own copy) and responses y (a new array) as float arrays of whole numbers on the
    grid of ``grid_layout``, clipped to its integer bounds (a no-op for data within the
    bounds: belt and braces)."""
    p = X.shape[1]
    centre, factor, low, high = grid["centre"], grid["factor"], grid["low"], grid["high"]
    _to_grid(X, centre[:p], factor[:p], out=X)
    y = _to_grid(y, centre[p], factor[p])  # a new array: never the caller's y
    np.clip(X, low[:p], high[:p], out=X)
    np.clip(y, low[p], high[p], out=y)
    return X, y


def integer_gram(X, y):
    """The (p + 1) x (p + 1) Gram matrix of the grid records [X, y]: X'X, X'y and y'y by
    BLAS, exact integers when n max|u_i u_j| <= 2^52 (``dppack.erm.adassp.grid_bits``), in any
    order of summation."""
    p = X.shape[1]
    gram = np.empty((p + 1, p + 1))
    gram[:p, :p] = X.T @ X
    gram[:p, p] = gram[p, :p] = X.T @ y
    gram[p, p] = y @ y
    return gram


def _parts(gram, low, high, add_bias, k):
    """The released parts: (name, exact values in the scaled units, L1, L2 sensitivity,
    integer range of each value in units of 4^-k).

    ``gram`` is the exact integer Gram matrix of the grid records [1, u_x, u_y] (or
    [u_x, u_y]); values and sensitivities are scaled back by 2^-k per factor (exact). The
    ranges (max - min of each entry's contribution of one record, over the integer box) are
    the l-infinity view of the same sensitivity (``_linf_release``)."""
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
    ranges = [_product_range(low[j], high[j], low[y], high[y]) for j in features]
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
    """A rational upper bound on sqrt(value) (value a non-negative rational), within a
    relative 2^-60."""
    value = Fraction(value)
    shift = 120
    root = math.isqrt(value.numerator * 4 ** shift // value.denominator) + 1
    return Fraction(root, 2 ** shift)


def _release(parts, eps, delta, rng, k):
    """Noise on each part at eps / q (and delta / q): the released values by name, the
    sensitivities used, and the standard deviation of one entry's noise per part (the
    largest, for the l-infinity noise)."""
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
            sensitivity = _float_up(l1)
            laplace_sd = math.sqrt(2.0) * sensitivity / eps_part
            if _linf_sd(ranges, k, eps_part) < laplace_sd:
                noisy, spread, sensitivity = _linf_release(values, ranges, k, eps_part, rng)
            else:
                noisy = _random.discrete_laplace_noise(values, sensitivity, eps_part, rng)
                spread = laplace_sd
            sensitivities[name] = sensitivity
        else:
            sensitivity = _float_up(l2)
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
    """The standard deviation of the l-infinity noise of the coordinate with the largest
    range (scaled units): sqrt((m + 1)(m + 2) / 3) R / eps, R = max range / 4^k, for m
    coordinates (the radius is about Gamma(m + 1, R / eps), the direction uniform on the
    cube: E z_i^2 = E C^2 / 3). Infinite for a single value (Laplace is the same there)."""
    m = len(ranges)
    if m < 2:
        return math.inf
    return math.sqrt((m + 1) * (m + 2) / 3.0) * math.ldexp(float(max(ranges)), -2 * k) / eps


def _linf_release(values, ranges, k, eps, rng):
    """The l-infinity K-norm release of one part (Hardt and Talwar 2010; Awan and Slavkovic
    2021): (released values, sd of the widest coordinate, l-infinity sensitivity used), in
    the scaled units. The values are exact integers in units of 4^-k (``_linf_integers``)."""
    exact = [int(v) for v in np.ldexp(values, 2 * k).tolist()]  # integers below 2^53
    out, spread, top = _linf_integers(exact, ranges, 2 * k, eps, rng)
    return out.reshape(values.shape), spread, top


def _linf_integers(exact, ranges, shift, eps, rng):
    """The l-infinity release of the exact integers G_i (values G_i 2^-shift), each moved by
    at most R_i (``ranges``, same units) by one record replaced: (released floats, sd of the
    widest coordinate, l-infinity sensitivity), in the units of the values.

    Each G_i is scaled by the integer f_i = floor(R / R_i) (R the largest range), so that
    every scaled coordinate moves by at most R; the scaled values are rounded to the grid
    g = 2^j (floor(x + 1/2): one step of widening, none when j = 0) and get the exact integer
    noise of :func:`dppack._random.linf_noise` with D = ceil(R / g) (+ 1): eps-DP. The
    released float of coordinate i is (V_i + Z_i) g / (f_i 2^shift) rounded once: a function
    of the noisy integer only."""
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
    return out, spread, _float_up(Fraction(top, 1 << shift))


# The projected release (``_projected``): the direction's dyadic resolution 2^-B, and the
# level of the full method's total noise on X'X / n (d tau) above which the projection is
# used: the variance of one feature spread uniformly over its bounds, 1/3 in scaled units.
PROJECTION_BITS = 20
PROJECTION_THRESHOLD = 1.0 / 3.0


def _full_noise_bound(parts, n, eps, k):
    """(d, tau) of the full method (``_solve``): tau bounds the operator norm of the noise of
    X'X / n at its share eps / q, from public quantities only (n, eps, the bounds)."""
    name, _, l1, _, ranges = parts[-1]
    d = int(round((math.sqrt(8 * len(ranges) + 1) - 1) / 2))
    eps_part = eps / len(parts)
    sd = min(math.sqrt(2.0) * _float_up(l1) / eps_part, _linf_sd(ranges, k, eps_part))
    return d, sd / n * math.sqrt(d * math.log(2.0 * d * d / NORM_BOUND_FAILURE))


def _projection_regime(parts, n, eps, delta, k):
    """Whether the fit uses the projected release: pure eps-DP, finite eps, at least two
    features, and d tau > 1/3 (``_full_noise_bound``): the full method's noise on X'X / n,
    summed over the d directions, exceeds the variance of a single feature spread uniformly
    over its bounds, so that its noisy X'X would not resolve the covariance of such data. A
    function of public quantities only (n, d, eps, the bounds)."""
    if delta != 0 or not math.isfinite(eps) or len(parts[-1][4]) < 3:
        return False
    d, tau = _full_noise_bound(parts, n, eps, k)
    return d * tau > PROJECTION_THRESHOLD


def _projected(parts, gram, low, high, add_bias, k, n, eps, rng):
    """The projected release: theta of the scaled problem, the ridge, the released
    statistics and their sensitivities.

    Two releases of eps / 2 each. First X'y (``_release``: l-infinity noise); its direction
    v = c~ / ||c~||_1, truncated to multiples of 2^-B (||v||_1 <= 1), is post-processing.
    Then the one-dimensional regression of y on s = v'z (z the scaled record, |s| <= 1): the
    exact integers sum y, sum s, sum s^2 and sum s y (the last two without ``add_bias``),
    all from the exact Gram matrix (v'(Z'Z)v, v'Z'y, ...), with one l-infinity release
    (``_linf_integers``) and each value's range over the integer box of the records given v.
    v depends on the first release only, so the second is eps / 2-DP for every v (adaptive
    composition). The slope along v is AdaSSP's ridge in one dimension:
    a = cov / (var + lambda), lambda = max(0, tau - var), tau = sd(sum s^2) / n
    sqrt(log(2 / rho)); the intercept (with ``add_bias``) mean(y) - a mean(s)."""
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
    ranges = [_square_range(smin, smax),
              _product_range(smin, smax, low[y], high[y]) << bits]
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
    """theta of the scaled problem (intercept first with ``add_bias``) and the ridge lambda:
    the centred normal equations (C~ + lambda I) theta = c~ with lambda = max(0, tau -
    lambda_min(C~)) (module docstring)."""
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
