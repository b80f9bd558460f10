"""DPpack 0.2.2's ERM building blocks: maps, losses, regularisers and kernel samplers.

Names follow DPpack with dots turned into underscores (``mapXy.sigmoid`` -> ``mapXy_sigmoid``).
``X`` is n x p, ``coeff`` of length p; DPpack's n x 1 matrices are 1-d arrays here, its 1 x 1
matrices floats; the maps' gradients keep DPpack's p x n layout.
"""

import math

import numpy as np

from .. import _checks, _messages, _random
from ._losses import HuberLoss, logistic, sigmoid  # noqa: F401 (sigmoid: in __all__)

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


def mapXy_sigmoid(X, coeff):
    """sigma(X coeff) for each row of ``X`` (DPpack ``mapXy.sigmoid``).

    Parameters
    ----------
    X : array_like of float, n x p (a vector is one column)
    coeff : array_like of float, length p

    Returns
    -------
    numpy.ndarray, length n

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``mapXy.sigmoid``.

    Examples
    --------
    >>> from dppack import mapXy_sigmoid
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [0.5, -1.0]])
    >>> mapXy_sigmoid(X, [0.5, -0.25]).round(6).tolist()
    [0.5, 0.622459]
    """
    return sigmoid(_matrix(X) @ _checks.as_vector(coeff))


def mapXy_gr_sigmoid(X, coeff):
    """Gradient of :func:`mapXy_sigmoid` in ``coeff``: column i is sigma'(x_i' coeff) x_i.

    Parameters
    ----------
    X : array_like of float, n x p
    coeff : array_like of float, length p

    Returns
    -------
    numpy.ndarray, p x n

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``mapXy.gr.sigmoid``.

    Examples
    --------
    >>> from dppack import mapXy_gr_sigmoid
    >>> import numpy as np
    >>> X = np.array([[1.0, 2.0], [0.5, -1.0]])
    >>> mapXy_gr_sigmoid(X, [0.5, -0.25]).round(6).tolist()  # column 1: 0.25 * (1, 2)
    [[0.25, 0.117502], [0.5, -0.235004]]
    """
    X = _matrix(X)
    return X.T * logistic().second(X @ _checks.as_vector(coeff))  # S(z) S(-z): the logistic f''


def mapXy_linear(X, coeff):
    """X coeff (DPpack ``mapXy.linear``).

    Parameters
    ----------
    X : array_like of float, n x p
    coeff : array_like of float, length p

    Returns
    -------
    numpy.ndarray, length n

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``mapXy.linear``.

    Examples
    --------
    >>> from dppack import mapXy_linear
    >>> import numpy as np
    >>> mapXy_linear(np.array([[1.0, 2.0], [0.5, -1.0]]), [0.5, -0.25]).tolist()
    [0.0, 0.5]
    """
    return _matrix(X) @ _checks.as_vector(coeff)


def mapXy_gr_linear(X, coeff):
    """Gradient of :func:`mapXy_linear` in ``coeff``: X transposed.

    Parameters
    ----------
    X : array_like of float, n x p
    coeff : array_like of float, length p (unused: the map is linear)

    Returns
    -------
    numpy.ndarray, p x n

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``mapXy.gr.linear``.

    Examples
    --------
    >>> from dppack import mapXy_gr_linear
    >>> import numpy as np
    >>> mapXy_gr_linear(np.array([[1.0, 2.0], [0.5, -1.0]]), [0.5, -0.25]).tolist()
    [[1.0, 0.5], [2.0, -1.0]]
    """
    return _matrix(X).T


def loss_cross_entropy(y_hat, y):
    """-(y log y_hat + (1 - y) log(1 - y_hat)) elementwise (DPpack ``loss.cross.entropy``).

    As in R, 0 log 0 gives NaN.

    Parameters
    ----------
    y_hat : array_like of float, probabilities in (0, 1)
    y : array_like of float, labels in {0, 1}

    Returns
    -------
    numpy.ndarray, one loss per observation

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``loss.cross.entropy``.

    Examples
    --------
    >>> from dppack import loss_cross_entropy
    >>> loss_cross_entropy([0.8, 0.3], [1, 0]).round(6).tolist()  # -log 0.8, -log 0.7
    [0.223144, 0.356675]
    """
    y_hat, y = _checks.as_vector(y_hat), _checks.as_vector(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(y * np.log(y_hat) + (1.0 - y) * np.log(1.0 - y_hat))


def loss_gr_cross_entropy(y_hat, y):
    """Derivative of :func:`loss_cross_entropy` in ``y_hat``: -y / y_hat + (1 - y) / (1 - y_hat).

    Parameters
    ----------
    y_hat : array_like of float, probabilities in (0, 1)
    y : array_like of float, labels in {0, 1}

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``loss.gr.cross.entropy``.

    Examples
    --------
    >>> from dppack import loss_gr_cross_entropy
    >>> loss_gr_cross_entropy([0.8, 0.3], [1, 0]).round(6).tolist()  # -1/0.8, 1/0.7
    [-1.25, 1.428571]
    """
    y_hat, y = _checks.as_vector(y_hat), _checks.as_vector(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -y / y_hat + (1.0 - y) / (1.0 - y_hat)


def loss_squared_error(y_hat, y):
    """(y_hat - y)^2 / 2 elementwise (DPpack ``loss.squared.error``).

    Parameters
    ----------
    y_hat, y : array_like of float, of one length

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``loss.squared.error``.

    Examples
    --------
    >>> from dppack import loss_squared_error
    >>> loss_squared_error([1.5, 0.0], [1.0, 2.0]).tolist()
    [0.125, 2.0]
    """
    return (_checks.as_vector(y_hat) - _checks.as_vector(y)) ** 2 / 2.0


def loss_gr_squared_error(y_hat, y):
    """Derivative of :func:`loss_squared_error` in ``y_hat``: y_hat - y.

    Parameters
    ----------
    y_hat, y : array_like of float, of one length

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``loss.gr.squared.error``.

    Examples
    --------
    >>> from dppack import loss_gr_squared_error
    >>> loss_gr_squared_error([1.5, 0.0], [1.0, 2.0]).tolist()
    [0.5, -2.0]
    """
    return _checks.as_vector(y_hat) - _checks.as_vector(y)


def _huber_block(h, part):
    """DPpack's weighted Huber block ``f(y_hat, y, w=None)`` (``part`` 0, 1 or 2)."""
    loss = HuberLoss(float(h))

    def block(y_hat, y, w=None):
        y_hat, y = _checks.as_vector(y_hat), _checks.as_vector(y)
        weights = 1.0
        if w is not None:
            weights = _checks.as_vector(w)
            if weights.size != y.size:
                raise _messages.value_error(HUBER_WEIGHTS_MESSAGE)
        z = y * y_hat
        if part == 0:
            return weights * loss.value(z)
        if part == 1:
            return weights * loss.first(z, y)
        return weights * loss.second(z)

    block.__name__ = ("loss_huber", "loss_gr_huber", "loss_hess_huber")[part]
    return block


def generate_loss_huber(h):
    """Return the (weighted) Huber-smoothed hinge loss with smoothing ``h``.

    The returned ``f(y_hat, y, w=None)`` gives, with z = y y_hat (labels -1/+1), 0 where
    z > 1 + h, w (1 + h - z)^2 / (4h) where abs(1 - z) <= h, and w (1 - z) where z < 1 - h;
    ``w`` defaults to ones and must have the length of ``y``.

    Parameters
    ----------
    h : float, the smoothing, > 0

    Returns
    -------
    callable

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (the Huber loss); Giddens and Liu
    (2023), DPpack reference manual, ``generate.loss.huber``.

    Examples
    --------
    With h = 0.5, at margins z = 2 (past 1 + h), 1 (the smoothed kink) and 0 (linear part):

    >>> from dppack import generate_loss_huber
    >>> loss = generate_loss_huber(0.5)
    >>> loss([2.0, 1.0, 0.0], [1, 1, 1]).tolist()
    [0.0, 0.125, 1.0]
    >>> loss([2.0, 1.0, 0.0], [1, 1, 1], w=[1, 2, 1]).tolist()
    [0.0, 0.25, 1.0]
    """
    return _huber_block(h, 0)


def generate_loss_gr_huber(h):
    """Return the derivative in ``y_hat`` of :func:`generate_loss_huber`'s loss.

    Parameters
    ----------
    h : float, the smoothing, > 0

    Returns
    -------
    callable

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``generate.loss.gr.huber``.

    Examples
    --------
    >>> from dppack import generate_loss_gr_huber
    >>> generate_loss_gr_huber(0.5)([2.0, 1.0, 0.0], [1, 1, 1]).tolist()
    [0.0, -0.5, -1.0]
    """
    return _huber_block(h, 1)


def generate_loss_hess_huber(h):
    """Return the second derivative in ``y_hat`` of :func:`generate_loss_huber`'s loss.

    ``f(y_hat, y, w=None)`` is w / (2h) where abs(1 - z) <= h (z = y y_hat), else 0.

    Parameters
    ----------
    h : float, the smoothing, > 0

    Returns
    -------
    callable

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12 (the Huber loss, c = 1/(2h)).

    Examples
    --------
    >>> from dppack.erm.blocks import generate_loss_hess_huber
    >>> generate_loss_hess_huber(0.5)([2.0, 1.0, 0.0], [1, 1, 1]).tolist()  # 1/(2h) inside
    [0.0, 1.0, 0.0]
    """
    return _huber_block(h, 2)


def regularizer_l2(coeff):
    """coeff' coeff / 2 as a float (DPpack ``regularizer.l2``).

    Parameters
    ----------
    coeff : array_like of float

    Returns
    -------
    float

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``regularizer.l2``.

    Examples
    --------
    >>> from dppack import regularizer_l2
    >>> regularizer_l2([3.0, 4.0])
    12.5
    """
    coeff = _checks.as_vector(coeff)
    return float(coeff @ coeff) / 2.0


def regularizer_gr_l2(coeff):
    """Gradient of :func:`regularizer_l2`: a copy of coeff.

    Parameters
    ----------
    coeff : array_like of float

    Returns
    -------
    numpy.ndarray

    References
    ----------
    Giddens and Liu (2023), DPpack reference manual, ``regularizer.gr.l2``.

    Examples
    --------
    >>> from dppack import regularizer_gr_l2
    >>> regularizer_gr_l2([3.0, 4.0]).tolist()
    [3.0, 4.0]
    """
    return _checks.as_vector(coeff).copy()


def generate_sampling(kernel_param):
    """Return the random-Fourier-feature sampler of the kernel exp(-kernel_param ||x - x'||^2).

    The returned ``g(d, rng=None, size=None)`` draws omega_1..omega_d ~ N(0, 2 kernel_param)
    then phi ~ Uniform(-pi, pi) and returns (omega_1, ..., omega_d, phi); with ``size = D``, a
    D x (d + 1) matrix (all normals first, then the uniforms). ``rng``: a NumPy Generator or a
    seed.

    Parameters
    ----------
    kernel_param : float, > 0

    Returns
    -------
    callable

    References
    ----------
    Rahimi and Recht (2007), Random features for large-scale kernel machines; Giddens and Liu
    (2023), DPpack reference manual, ``generate.sampling``.

    Examples
    --------
    >>> from dppack import generate_sampling
    >>> sample = generate_sampling(0.5)
    >>> sample(2, 1).shape  # (omega_1, omega_2, phi) for 2 features
    (3,)
    >>> sample(2, 1, size=100).shape
    (100, 3)
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

    Parameters
    ----------
    x : array_like of float, one point (length d) or n points (n x d)
    theta : array_like of float, length d + 1 (a row of :func:`generate_sampling`)

    Returns
    -------
    float (one point) or numpy.ndarray (n points)

    References
    ----------
    Rahimi and Recht (2007); Giddens and Liu (2023), DPpack reference manual, ``phi.gaussian``.

    Examples
    --------
    >>> from dppack import phi_gaussian
    >>> phi_gaussian([0.0, 0.0], [1.0, 1.0, 0.0])
    1.0
    >>> import numpy as np
    >>> phi_gaussian(np.zeros((3, 2)), [1.0, 1.0, np.pi]).tolist()
    [-1.0, -1.0, -1.0]
    """
    theta = _checks.as_vector(theta)
    x = np.asarray(x, dtype=np.float64)
    if x.ndim <= 1:
        x = x.ravel()
        d = x.size
        return float(math.cos(float(x @ theta[:d]) + theta[d]))
    d = x.shape[1]
    return np.cos(x @ theta[:d] + theta[d])
