"""LinearRegressionDP (:mod:`dppack.erm.kst`): its scaled records, their grid, their exact
sufficient statistics (:class:`GramStatistics`) and the model."""

import math
from fractions import Fraction

import numpy as np

from .. import _backends
from ._grid import exact_gram, to_grid
from ._kst_framework import (QUADRATIC_GAP, EmpiricalRiskMinimizationDP_KST, domain_part,
                             uses_framework_solver)
from .blocks import (
    loss_gr_squared_error,
    loss_squared_error,
    mapXy_gr_linear,
    mapXy_linear,
    regularizer_l2,
)
from ._losses import weighted_gram
from ._solvers import quadratic_ball_minimize


# --------------------------------------------------------------------------------------------
# Linear regression
# --------------------------------------------------------------------------------------------


def scale_regression(X, y, scales, shift, scale):
    """LinearRegressionDP's scaled rows: X / s (in place: X is the fit's
    own clipped copy) and (y - shift) / scale. A per-row map (:mod:`dppack.dask._erm` applies
    it per chunk)."""
    X /= scales
    return X, (y - shift) / scale


# LinearRegressionDP's records on a grid (:func:`grid_regression`): x~ on multiples of
# 2^-GRID_BITS, y~ on multiples of 2^(e - GRID_BITS), 2^e >= p; the grid units are then at
# most 2^GRID_BITS in magnitude and X'X, X'y, y'y are exact integers in blocks of
# 2^(53 - 2 GRID_BITS) rows (dppack.erm._grid.exact_gram). 2^-20 of the scaled range moves a
# coefficient by far less than the noise (the rounding errors are bounded by 2^-21 per entry).
GRID_BITS = 20


def regression_grid(p):
    """(k, e) of LinearRegressionDP's grid for p columns (bias included): k = GRID_BITS and
    the smallest e >= 0 with 2^e >= p (y~ in [-p, p] has grid units in
    [-p 2^(k - e), p 2^(k - e)], within [-2^k, 2^k])."""
    return GRID_BITS, (int(p) - 1).bit_length()


def grid_regression(X, y, scales, shift, scale, bits, exponent):
    """LinearRegressionDP's records on the grid, in grid units (u = round(2^k x / s) in place, v a
    new array): a per-record map fixed by the bounds and p, keeping every record in the box that
    zeta and lambda assume (:ref:`guide-erm-kst`).
    """
    top = 2.0 ** bits
    # x / (s 2^-k) = (x / s) 2^k exactly when s 2^-k is a normal float: one pass; |x| <= s
    # (clipped to bounds within [-s, s]) then gives |x| / (s 2^-k) <= 2^k in correctly
    # rounded division (monotone). The clip keeps the box for bounds so small that s 2^-k
    # is subnormal (the division is then inexact); elsewhere it changes nothing.
    X /= scales * (1.0 / top)
    np.rint(X, out=X)
    np.clip(X, -top, top, out=X)
    t = to_grid((y - shift) / scale, 0.0, 2.0 ** (bits - exponent))
    y_top = X.shape[1] * 2.0 ** (bits - exponent)
    np.clip(t, -y_top, y_top, out=t)
    return X, t


class GramStatistics:
    """n, X'X, X'y and y'y of a design (all the squared loss needs); ``shape`` is (n, p)."""

    __slots__ = ("n", "gram", "cross", "yy", "passes", "exact")

    def __init__(self, n, gram, cross, yy, passes=None, exact=None):
        self.n, self.gram, self.cross, self.yy = int(n), gram, cross, float(yy)
        self.passes = passes  # passes over Dask data that computed them (None in memory)
        # (X'X, X'y) as exact rationals (rows of Fractions, Fractions) when the sums are
        # exact (:meth:`of_grid`); None when gram and cross carry rounding
        self.exact = exact

    @classmethod
    def from_integers(cls, n, integers, bits, exponent, passes=None):
        """The statistics of grid records from the exact integer W'W, W = [u, v] (exact in
        ``exact``, correctly rounded in the float fields).
        """
        integers = np.asarray(integers, dtype=object)
        p = integers.shape[0] - 1
        two_k = 2 * int(bits)
        gram = np.array([[math.ldexp(float(integers[i, j]), -two_k) for j in range(p)]
                         for i in range(p)]).reshape(p, p)
        cross = np.array([math.ldexp(float(integers[i, p]), exponent - two_k)
                          for i in range(p)])
        yy = math.ldexp(float(integers[p, p]), 2 * exponent - two_k)
        denominator = 2 ** two_k
        exact = ([[Fraction(int(integers[i, j]), denominator) for j in range(p)]
                  for i in range(p)],
                 [Fraction(int(integers[i, p]) * 2 ** exponent, denominator)
                  for i in range(p)])
        return cls(n, gram, cross, yy, passes=passes, exact=exact)

    @classmethod
    def of_grid(cls, X, y, bits, exponent):
        """The exact statistics of LinearRegressionDP's grid records, X = u 2^-k and
        y = v 2^(e - k) (:func:`grid_regression`), summed as integers in blocks
        (:func:`dppack.erm._grid.exact_gram`): no rounding in any number of rows."""
        return cls.from_integers(y.size, exact_gram(X, y, bits, exponent), bits, exponent)

    @classmethod
    def of(cls, X, y, weights=None):
        """The statistics of an n x p design X and n values y; with ``weights`` w, the
        weighted X'WX, X'Wy and y'Wy (n stays the number of rows)."""
        if weights is None:
            return cls(y.size, X.T @ X, X.T @ y, y @ y)
        wy = weights * y
        return cls(y.size, weighted_gram(X, weights), X.T @ wy, wy @ y)

    @property
    def shape(self):
        """(n, p)."""
        return self.n, self.gram.shape[0]


def _ball_constraints(coeff):
    """||coeff||^2 - p <= 0: LinearRegressionDP's domain."""
    return np.array([coeff @ coeff - coeff.size])


def _ball_jacobian(coeff):
    return 2 * coeff


class LinearRegressionDP(EmpiricalRiskMinimizationDP_KST):
    """Privacy-preserving linear regression: KST with the linear map, the squared error loss and
    the domain ||theta||^2 <= p of the scaled problem.

    At fit time p = ncol(X) (bias included), zeta = 2 p^(3/2) and lambda = p; each column of X is
    divided by s_j = max(abs(L_j), abs(U_j)) and y mapped to [-p, p] (centred on the middle of
    its bounds with ``add_bias``); the coefficients are mapped back to the user's units. The noise
    is the framework's, calibrated for replace-one neighbours (DPpack's smaller noise is not
    private under replacement). A private fit rounds the scaled records onto a grid and solves
    exactly on exact X'X and X'y; Dask data give the same coefficients bit for bit in one pass.
    Derivations: :ref:`guide-erm-kst`.

    Parameters
    ----------
    regularizer : 'l2' or callable
        See :class:`EmpiricalRiskMinimizationDP_KST`.
    eps : float
        > 0 (``inf``: no noise).
    delta : float
        0, or in (0, 1) for Gaussian noise.
    gamma : float
        > 0.
    regularizer_gr : callable, optional
        Gradient of a callable regularizer.

    Attributes
    ----------
    coeff, Delta_, privacy_
        As :class:`EmpiricalRiskMinimizationDP_KST`, and its fields; ``zeta`` and ``lambda_``
        are set by each fit.

    Raises
    ------
    ValueError
        As :class:`EmpiricalRiskMinimizationDP_KST`; gamma must be > 0.

    References
    ----------
    Kifer, Smith and Thakurta (2012), COLT; Giddens and Liu (2023), DPpack reference manual,
    ``LinearRegressionDP``.

    Examples
    --------
    Body-mass index on plasma glucose; the bounds list the columns of X, then y:

    >>> from dppack import LinearRegressionDP
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> model = LinearRegressionDP("l2", eps=1.0, delta=0.0, gamma=1.0)
    >>> model = model.fit(pima[["glu"]], pima["bmi"], upper_bounds=[200, 70],
    ...                   lower_bounds=[50, 15], add_bias=True, random_state=1)
    >>> model.coeff.shape, model.privacy_  # intercept, slope
    ((2,), PrivacyLoss.pure(eps=1.0))
    >>> model.predict(pima[["glu"]].iloc[:3], add_bias=True).shape
    (3,)
    """

    _strict_gamma = True

    _REPR_PARAMS = ("regularizer", "eps", "delta", "gamma")

    def __init__(self, regularizer, eps, delta, gamma, regularizer_gr=None):
        super().__init__(mapXy_linear, loss_squared_error, regularizer, eps, delta,
                         {"constraints": _ball_constraints, "jacobian": _ball_jacobian},
                         None, None, gamma, mapXy_gr=mapXy_gr_linear,
                         loss_gr=loss_gr_squared_error, regularizer_gr=regularizer_gr)

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias):
        # In memory the scaled rows (on the grid for a private fit with the built-in map and
        # loss: grid_regression, handed on in the scaled units, exact); on Dask X'X, X'y, y'y
        # and n of those rows from one pass (the solver needs nothing else).
        backend = _backends.backend_for(X, y)
        if not self._closed_form():
            backend.refuse(f"{type(self).__name__}.fit with its own loss or map functions")
        self._on_grid = self._grid_records()
        return backend.regression_design(
            X, y, upper_bounds, lower_bounds, add_bias,
            lambda bounds, target: self._set_scaling(bounds, target, add_bias),
            on_grid=self._on_grid)

    def _set_scaling(self, bounds, target_bounds, add_bias):
        """zeta, lambda and the scaling of DPpack 0.2.2 from the bounds of X (bias included)
        and of y: no data needed. Returns (scales, shift, scale) of :func:`scale_regression`."""
        p = bounds.size
        self._bounds, self._target_bounds = bounds, target_bounds
        self.zeta = 2 * p ** 1.5
        self.lambda_ = float(p)
        self._grid = regression_grid(p)
        # s_j: every entry in [-1, 1] (DPpack's LinearRegressionDP scaling)
        self._scales = bounds.divisors("max")
        if add_bias:
            self._shift = (target_bounds.lower[0] + target_bounds.upper[0]) / 2
            self._scale = (target_bounds.upper[0] - target_bounds.lower[0]) / (2 * p)
        else:
            self._shift = 0.0
            self._scale = target_bounds.scale[0] / p
        self._add_bias = add_bias
        return self._scales, self._shift, self._scale

    def _grid_records(self):
        """Whether the records go onto the grid (:func:`grid_regression`): a private fit
        (finite eps) with the built-in map and loss, whose X'X and X'y are then exact (a
        non-private fit keeps its records as they are)."""
        return self._closed_form() and bool(np.isfinite(float(self.eps)))

    def _closed_form(self):
        """Whether the built-in linear map and squared error are in place (the closed form
        of :meth:`_data_loss` applies)."""
        return self.mapXy is mapXy_linear and self.loss is loss_squared_error

    def _check_outputs(self, X, y, weights=None):
        """With the built-in map, loss and domain (the closed form of :meth:`_data_loss`),
        only a user's ``regularizer_gr`` is evaluated (at theta = 0), so X'X is not computed
        twice; with the user's own map or loss, the framework's check."""
        if not self._closed_form():
            super()._check_outputs(X, y, weights)
        elif self.regularizer_gr is not None:
            self._regularizer_gradient(np.zeros(X.shape[1]))

    def _quadratic_ball(self):
        """The exact solve applies: the built-in map, squared error and their gradients, the
        'l2' regularizer, the built-in ball and the framework's ``_optimize_coeff`` (the
        model's configuration, fixed before the data are read)."""
        return (self._closed_form() and self.mapXy_gr is mapXy_gr_linear
                and self.loss_gr is loss_gr_squared_error
                and self.regularizer is regularizer_l2
                and domain_part(self.domain, "constraints") is _ball_constraints
                and uses_framework_solver(self))

    def _solve_quadratic(self, X, y, noise, Delta, weights=None):
        """The exact minimiser of the quadratic n J over ||theta||^2 <= p, certified in rational
        arithmetic (:func:`dppack.erm._solvers.quadratic_ball_minimize`).
        """
        stats = self._statistics(X, y, weights)
        n, p = stats.shape
        shift = Fraction(float(self.gamma)) + Fraction(float(Delta))
        return quadratic_ball_minimize(stats.gram, stats.cross, shift, float(p),
                                       Fraction(self._certified_residual) * n,
                                       p * QUADRATIC_GAP, noise=noise, exact=stats.exact)

    def _statistics(self, X, y, weights=None):
        """n, X'X, X'y, y'y of the design: as given (Dask data, from one pass), exact from
        the grid records without weights (:meth:`GramStatistics.of_grid`), else summed in
        floats (weighted: X'WX, X'Wy)."""
        if isinstance(X, GramStatistics):
            return X
        if weights is None and getattr(self, "_on_grid", False):
            return GramStatistics.of_grid(X, y, *self._grid)
        return GramStatistics.of(X, y, weights)

    def _data_loss(self, X, y, weights=None):
        """Closed form of the mean squared loss and its gradient from G = X'WX and c = X'Wy."""
        if not self._closed_form():
            return super()._data_loss(X, y, weights)
        # X is the design, or already its statistics (Dask data, from one pass)
        stats = self._statistics(X, y, weights)
        n, gram, cross, yy = stats.n, stats.gram, stats.cross, stats.yy

        def value(theta):
            return (float(theta @ (gram @ theta)) - 2 * float(cross @ theta) + yy) / (2 * n)

        if self.mapXy_gr is not mapXy_gr_linear or self.loss_gr is not loss_gr_squared_error:
            return value, None

        def gradient(theta):
            return (gram @ theta - cross) / n

        return value, gradient

    def _postprocess_coeff(self, coeff):
        coeff = coeff * self._scale / self._scales
        if self._add_bias:
            coeff[0] += self._shift
        return coeff
