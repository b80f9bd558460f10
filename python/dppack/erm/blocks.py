"""DPpack 0.2.2's ERM building blocks: maps, losses, regularisers and kernel samplers.

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

from .. import _checks, _messages, _random
from .losses import HuberLoss, logistic, sigmoid  # noqa: F401 (sigmoid: in __all__)

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
    """sigma(X coeff) for each row of ``X`` (DPpack ``mapXy.sigmoid``); length-n array.

    Parameters
    ----------
    X : array_like of float
        n x p design (a vector is one column).
    coeff : array_like of float
        Length p.

    Returns
    -------
    numpy.ndarray
        Length n.

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
    """Gradient of :func:`mapXy_sigmoid` in ``coeff``: the p x n matrix whose column i is
    sigma'(x_i' coeff) x_i, sigma' = sigma (1 - sigma) (DPpack ``mapXy.gr.sigmoid``).

    Parameters
    ----------
    X : array_like of float
        n x p design.
    coeff : array_like of float
        Length p.

    Returns
    -------
    numpy.ndarray
        p x n.

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
    """X coeff (DPpack ``mapXy.linear``); length-n array.

    Parameters
    ----------
    X : array_like of float
        n x p design.
    coeff : array_like of float
        Length p.

    Returns
    -------
    numpy.ndarray
        Length n.

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
    """Gradient of :func:`mapXy_linear` in ``coeff``: X transposed, p x n.

    Parameters
    ----------
    X : array_like of float
        n x p design.
    coeff : array_like of float
        Length p (not used: the map is linear).

    Returns
    -------
    numpy.ndarray
        p x n.

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

    As in R, 0 log 0 gives NaN; the built-in LogisticRegressionDP does not use this function
    (it optimises a closed form on the linear score that cannot overflow).

    Parameters
    ----------
    y_hat : array_like of float
        Predicted probabilities, in (0, 1).
    y : array_like of float
        Labels in {0, 1}, as many as ``y_hat``.

    Returns
    -------
    numpy.ndarray
        One loss per observation.

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
    y_hat : array_like of float
        Predicted probabilities, in (0, 1).
    y : array_like of float
        Labels in {0, 1}.

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
    y_hat, y : array_like of float
        Predictions and labels, of one length.

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
    y_hat, y : array_like of float
        Predictions and labels, of one length.

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
    """DPpack's weighted Huber block ``f(y_hat, y, w=None)``: w times the value (``part`` 0),
    the derivative in y_hat (1) or the second derivative (2, y^2 = 1) of the margin loss
    :class:`dppack.erm.losses.HuberLoss` at z = y y_hat. DPpack does not check h."""
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

    The returned ``f(y_hat, y, w=None)`` computes, with z = y y_hat elementwise, 0 where
    z > 1 + h, w (1 + h - z)^2 / (4h) where abs(1 - z) <= h, and w (1 - z) where z < 1 - h. ``w``
    defaults to all ones; a ``w`` whose length differs from ``y``'s raises DPpack's message.

    Parameters
    ----------
    h : float
        The smoothing, > 0.

    Returns
    -------
    callable
        ``f(y_hat, y, w=None)`` -> numpy.ndarray, labels y in {-1, +1}.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), Differentially private empirical risk
    minimization, JMLR 12 (the Huber loss); Giddens and Liu (2023), DPpack reference manual,
    ``generate.loss.huber``.

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

    ``f(y_hat, y, w=None)``: 0 where z > 1 + h, -w y (1 + h - z) / (2h) where abs(1 - z) <= h,
    and -w y where z < 1 - h (z = y y_hat); same ``w`` handling and message as the loss.

    Parameters
    ----------
    h : float
        The smoothing, > 0.

    Returns
    -------
    callable
        ``f(y_hat, y, w=None)`` -> numpy.ndarray.

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

    ``f(y_hat, y, w=None)``: w / (2h) where |1 - z| <= h, else 0 (z = y y_hat, labels
    -1/+1, so y^2 = 1). Undefined at the two kinks z = 1 +- h, where it takes the inner value,
    as Chaudhuri et al. (2011) and Wang, Kifer and Lee (2019) accept.

    Parameters
    ----------
    h : float
        The smoothing, > 0.

    Returns
    -------
    callable
        ``f(y_hat, y, w=None)`` -> numpy.ndarray.

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
    """coeff' coeff / 2 as a float (DPpack ``regularizer.l2`` returns a 1 x 1 matrix).

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
    """Gradient of :func:`regularizer_l2`: coeff itself, as a 1-d array.

    Parameters
    ----------
    coeff : array_like of float

    Returns
    -------
    numpy.ndarray
        A copy of ``coeff``.

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
    """Return the random-Fourier-feature sampler of the Gaussian kernel
    exp(-kernel_param ||x - x'||^2).

    The returned ``g(d, rng, size=None)`` draws omega_1..omega_d ~ N(0, sd = sqrt(2 kernel_param))
    i.i.d., then phi ~ Uniform(-pi, pi), and returns the length-(d + 1) array
    (omega_1, ..., omega_d, phi), as DPpack's ``generate.sampling``. ``rng`` is a
    NumPy ``Generator`` or anything ``dppack._random.as_generator`` accepts. With
    ``size = D`` it returns D such rows as a D x (d + 1) matrix in one vectorised call; the
    draw order is then all D x d normals (row by row) first, then the D uniforms.

    Parameters
    ----------
    kernel_param : float
        The kernel's parameter, > 0.

    Returns
    -------
    callable
        ``g(d, rng=None, size=None)`` -> numpy.ndarray.

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

    For one point ``x`` (length d) returns a float; for an n x d matrix of points returns a
    length-n array (one feature per row).

    Parameters
    ----------
    x : array_like of float
        One point (length d) or n points (n x d).
    theta : array_like of float
        Length d + 1: the frequencies, then the phase (a row of :func:`generate_sampling`).

    Returns
    -------
    float or numpy.ndarray

    References
    ----------
    Rahimi and Recht (2007); Giddens and Liu (2023), DPpack reference manual,
    ``phi.gaussian``.

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


REGULARIZER_MESSAGE = "regularizer must be one of {'l2'}, or a function."


def resolve_regularizer(regularizer, regularizer_gr):
    """DPpack's regularizer argument (shared by KST DPpack 0.2.2): ``'l2'`` gives
    :func:`regularizer_l2` and its gradient (a given ``regularizer_gr`` is ignored); a function
    is kept with the given gradient (a function or None). Returns (regularizer, gradient)."""
    if isinstance(regularizer, str):
        _checks.check_choice(regularizer, "regularizer", ("l2",), REGULARIZER_MESSAGE)
        return regularizer_l2, regularizer_gr_l2
    _checks.check_callable(regularizer, "regularizer", message=REGULARIZER_MESSAGE)
    _checks.check_callable(regularizer_gr, "regularizer.gr", optional=True)
    return regularizer, regularizer_gr
