"""DPpack 0.2.2's ERM building blocks: maps, losses, regularisers and kernel samplers (spec §5).

Names follow DPpack with dots turned into underscores (``mapXy.sigmoid`` -> ``mapXy_sigmoid``).
Every function is vectorised over the rows of ``X``. Where DPpack returns an n x 1 matrix (the
maps, the losses and their gradients) these return a 1-d array of length n; where DPpack returns
a 1 x 1 matrix (``regularizer.l2``, ``phi.gaussian`` on one point) they return a float. The
gradients of the maps keep DPpack's p x n layout.

Conventions (as in DPpack): ``X`` is an n x p matrix, ``coeff`` a length-p vector, ``y_hat`` the
model's outputs and ``y`` the labels (0/1 for cross-entropy, -1/+1 for the Huber loss).
"""

import math

import numpy as np

from .. import _random

__all__ = [
    "generate_loss_gr_huber",
    "generate_loss_hess_huber",
    "generate_loss_huber",
    "generate_sampling",
    "loss_cross_entropy",
    "loss_gr_cross_entropy",
    "loss_gr_squared_error",
    "loss_squared_error",
    "mapXy_gr_linear",
    "mapXy_gr_sigmoid",
    "mapXy_linear",
    "mapXy_sigmoid",
    "phi_gaussian",
    "regularizer_gr_l2",
    "regularizer_l2",
    "sigmoid",
]

HUBER_WEIGHTS_MESSAGE = "Weight vector w must be same length as label vector y."


def _matrix(X):
    X = np.asarray(X, dtype=np.float64)
    return X.reshape(-1, 1) if X.ndim == 1 else X


def _vector(v):
    return np.asarray(v, dtype=np.float64).ravel()


def sigmoid(t):
    """The logistic function 1 / (1 + exp(-t)), without overflow for large |t|."""
    t = np.asarray(t, dtype=np.float64)
    return np.exp(-np.logaddexp(0.0, -t))


def weighted_gram(X, weights=None, index=None, block=8192):
    """sum_i w_i x_i x_i' over the rows i of ``index`` (all rows by default; w_i = 1 without
    ``weights``; weights >= 0, one per row of X): the Hessians and covariances of the ERM
    solvers and intervals.

    Rows are taken ``block`` at a time, so the extra memory stays at ``block`` x d, and each
    block goes through a symmetric rank-k update of sqrt(w) x (half the work of a general
    product).
    """
    from scipy.linalg.blas import dsyrk

    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    rows = np.arange(X.shape[0]) if index is None else np.asarray(index)
    upper = np.zeros((d, d))
    for start in range(0, rows.size, block):
        chosen = rows[start:start + block]
        A = X[chosen]
        if weights is not None:
            A *= np.sqrt(weights[chosen])[:, None]  # A is a copy: X is untouched
        upper += dsyrk(1.0, A.T, trans=0)  # A.T is Fortran-ordered: no copy
    return np.triu(upper) + np.triu(upper, 1).T


def mapXy_sigmoid(X, coeff):
    """sigma(X coeff) for each row of ``X`` (DPpack ``mapXy.sigmoid``); length-n array."""
    return sigmoid(_matrix(X) @ _vector(coeff))


def mapXy_gr_sigmoid(X, coeff):
    """Gradient of :func:`mapXy_sigmoid` in ``coeff``: the p x n matrix whose column i is
    sigma'(x_i' coeff) x_i, sigma' = sigma (1 - sigma) (DPpack ``mapXy.gr.sigmoid``)."""
    X = _matrix(X)
    s = sigmoid(X @ _vector(coeff))
    return X.T * (s * (1.0 - s))


def mapXy_linear(X, coeff):
    """X coeff (DPpack ``mapXy.linear``); length-n array."""
    return _matrix(X) @ _vector(coeff)


def mapXy_gr_linear(X, coeff):
    """Gradient of :func:`mapXy_linear` in ``coeff``: X transposed, p x n."""
    return _matrix(X).T


def loss_cross_entropy(y_hat, y):
    """-(y log y_hat + (1 - y) log(1 - y_hat)) elementwise (DPpack ``loss.cross.entropy``).

    As in R, 0 log 0 gives NaN; the built-in LogisticRegressionDP does not use this function
    (it optimises a closed form on the linear score that cannot overflow).
    """
    y_hat, y = _vector(y_hat), _vector(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(y * np.log(y_hat) + (1.0 - y) * np.log(1.0 - y_hat))


def loss_gr_cross_entropy(y_hat, y):
    """Derivative of :func:`loss_cross_entropy` in ``y_hat``: -y / y_hat + (1 - y) / (1 - y_hat)."""
    y_hat, y = _vector(y_hat), _vector(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -y / y_hat + (1.0 - y) / (1.0 - y_hat)


def loss_squared_error(y_hat, y):
    """(y_hat - y)^2 / 2 elementwise (DPpack ``loss.squared.error``)."""
    return (_vector(y_hat) - _vector(y)) ** 2 / 2.0


def loss_gr_squared_error(y_hat, y):
    """Derivative of :func:`loss_squared_error` in ``y_hat``: y_hat - y."""
    return _vector(y_hat) - _vector(y)


def _huber_weights(w, y):
    if w is None:
        return 1.0
    w = _vector(w)
    if w.size != y.size:
        raise ValueError(HUBER_WEIGHTS_MESSAGE)
    return w


def generate_loss_huber(h):
    """Return the (weighted) Huber-smoothed hinge loss with smoothing ``h`` (spec §5).

    The returned ``f(y_hat, y, w=None)`` computes, with z = y y_hat elementwise, 0 where
    z > 1 + h, w (1 + h - z)^2 / (4h) where |1 - z| <= h, and w (1 - z) where z < 1 - h. ``w``
    defaults to all ones; a ``w`` whose length differs from ``y``'s raises DPpack's message.
    """
    h = float(h)

    def loss_huber(y_hat, y, w=None):
        y_hat, y = _vector(y_hat), _vector(y)
        weights = _huber_weights(w, y)
        z = y * y_hat
        value = np.where(
            z > 1.0 + h, 0.0, np.where(z < 1.0 - h, 1.0 - z, (1.0 + h - z) ** 2 / (4.0 * h))
        )
        return weights * value

    return loss_huber


def generate_loss_gr_huber(h):
    """Return the derivative in ``y_hat`` of :func:`generate_loss_huber`'s loss (spec §5).

    ``f(y_hat, y, w=None)``: 0 where z > 1 + h, -w y (1 + h - z) / (2h) where |1 - z| <= h,
    and -w y where z < 1 - h (z = y y_hat); same ``w`` handling and message as the loss.
    """
    h = float(h)

    def loss_gr_huber(y_hat, y, w=None):
        y_hat, y = _vector(y_hat), _vector(y)
        weights = _huber_weights(w, y)
        z = y * y_hat
        value = np.where(
            z > 1.0 + h, 0.0, np.where(z < 1.0 - h, -y, -y * (1.0 + h - z) / (2.0 * h))
        )
        return weights * value

    return loss_gr_huber


def generate_loss_hess_huber(h):
    """Return the second derivative in ``y_hat`` of :func:`generate_loss_huber`'s loss.

    ``f(y_hat, y, w=None)``: w / (2h) where |1 - z| <= h, else 0 (z = y y_hat, labels
    -1/+1, so y^2 = 1). Undefined at the two kinks z = 1 +- h, where it takes the inner value,
    as Chaudhuri et al. and the confidence-interval spec (§2) accept.
    """
    h = float(h)

    def loss_hess_huber(y_hat, y, w=None):
        y_hat, y = _vector(y_hat), _vector(y)
        weights = _huber_weights(w, y)
        z = y * y_hat
        return weights * np.where(np.abs(1.0 - z) <= h, 1.0 / (2.0 * h), 0.0)

    return loss_hess_huber


def regularizer_l2(coeff):
    """coeff' coeff / 2 as a float (DPpack ``regularizer.l2`` returns a 1 x 1 matrix)."""
    coeff = _vector(coeff)
    return float(coeff @ coeff) / 2.0


def regularizer_gr_l2(coeff):
    """Gradient of :func:`regularizer_l2`: coeff itself, as a 1-d array."""
    return _vector(coeff).copy()


def generate_sampling(kernel_param):
    """Return the random-Fourier-feature sampler of the Gaussian kernel
    exp(-kernel_param ||x - x'||^2).

    The returned ``g(d, rng, size=None)`` draws omega_1..omega_d ~ N(0, sd = sqrt(2 kernel_param))
    i.i.d., then phi ~ Uniform(-pi, pi), and returns the length-(d + 1) array
    (omega_1, ..., omega_d, phi), as DPpack's ``generate.sampling``. ``rng`` is a
    NumPy ``Generator`` or anything :func:`dppack._random.as_generator` accepts. With
    ``size = D`` it returns D such rows as a D x (d + 1) matrix in one vectorised call; the
    draw order is then all D x d normals (row by row) first, then the D uniforms.
    """
    sd = math.sqrt(2.0 * float(kernel_param))

    def sampling(d, rng=None, size=None):
        rng = _random.as_generator(rng)
        d = int(d)
        if size is None:
            omega = _random.normal(sd, d, rng)
            phi = _random.uniform_between(-math.pi, math.pi, 1, rng)
            return np.concatenate([omega, phi])
        size = int(size)
        omega = _random.normal(sd, (size, d), rng)
        phi = _random.uniform_between(-math.pi, math.pi, (size, 1), rng)
        return np.hstack([omega, phi])

    return sampling


def phi_gaussian(x, theta):
    """cos(x' theta[:d] + theta[d]) with d = len(x) (DPpack ``phi.gaussian``).

    For one point ``x`` (length d) returns a float; for an n x d matrix of points returns a
    length-n array (one feature per row).
    """
    theta = _vector(theta)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim <= 1:
        x = x.ravel()
        d = x.size
        return float(math.cos(float(x @ theta[:d]) + theta[d]))
    d = x.shape[1]
    return np.cos(x @ theta[:d] + theta[d])


REGULARIZER_MESSAGE = "regularizer must be one of {'l2'}, or a function."


def resolve_regularizer(regularizer, regularizer_gr):
    """DPpack's regularizer argument (spec §6.1 step 2, shared by KST §6.5): ``'l2'`` gives
    :func:`regularizer_l2` and its gradient (a given ``regularizer_gr`` is ignored); a function
    is kept with the given gradient (a function or None). Returns (regularizer, gradient)."""
    if isinstance(regularizer, str):
        if regularizer != "l2":
            raise ValueError(REGULARIZER_MESSAGE)
        return regularizer_l2, regularizer_gr_l2
    if not callable(regularizer):
        raise ValueError(REGULARIZER_MESSAGE)
    if regularizer_gr is not None and not callable(regularizer_gr):
        raise ValueError("regularizer.gr must be a function or NULL.")
    return regularizer, regularizer_gr
