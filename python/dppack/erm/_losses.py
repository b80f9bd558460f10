"""The margin losses of private ERM, with the constants their privacy proofs use.

Every classifier of the package minimises or scores a margin loss f(z) of z = y x'theta,
labels y in {-1, +1}, rows with ||x||_2 <= 1: the logistic loss (:func:`logistic`) and
DPpack's Huber-smoothed hinge (:func:`huber`). Each carries ``lipschitz`` = sup abs(f') and
``curvature`` = sup abs(f''); :meth:`MarginLoss.risk` evaluates the empirical risk fused over
a design. Where the constants enter the proofs: :ref:`guide-erm-losses`. DPpack's own
(y_hat, y) blocks stay in :mod:`dppack.erm.blocks`.
"""

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from .. import _checks, _messages
from ._design import transpose_dot

__all__ = [
    "NAMES",
    "EmpiricalRisk",
    "HuberLoss",
    "LogisticLoss",
    "MarginLoss",
    "huber",
    "logistic",
    "margin_loss",
    "sigmoid",
    "weighted_gram",
]

# The margin losses by name (the ``loss`` argument of the confidence intervals and of the
# analytic-Gaussian ERM).
NAMES = ("logistic", "huber")
LOSS_MESSAGE = "loss must be one of {'logistic', 'huber'}."


def sigmoid(t):
    """The logistic function S(t) = 1 / (1 + e^-t), elementwise, without overflow.

    One exponential of -abs(t), no cancellation: a few units in the last place for every t.

    Parameters
    ----------
    t : array_like or float

    Returns
    -------
    ndarray or float
        S(t), the shape of ``t`` (a NumPy float for a scalar).

    References
    ----------
    DPpack 0.2.2 (``mapXy.sigmoid``), Wang, Kifer and Lee 2019 (S).

    Examples
    --------
    >>> from dppack.erm.blocks import sigmoid
    >>> float(sigmoid(0.0))
    0.5
    >>> [round(float(s), 6) for s in sigmoid([-2.0, 2.0, 1000.0])]
    [0.119203, 0.880797, 1.0]
    >>> float(sigmoid(-1000.0))  # exp(-1000) underflows: 0, without a warning
    0.0
    """
    t = np.asarray(t, dtype=np.float64)
    e = np.exp(-np.abs(t))
    s = 1.0 / (1.0 + e)
    out = np.where(t < 0.0, e * s, s)
    return out[()] if out.ndim == 0 else out


def weighted_gram(X, weights=None, index=None, block=8192):
    """sum_i w_i x_i x_i' over the rows i of ``index``: the Hessians and covariances of ERM.

    Parameters
    ----------
    X : array_like, n x d (never modified)
    weights : ndarray, optional (n values >= 0; ones by default)
    index : array_like of int, optional (all rows by default)
    block : int, default 8192 (rows per symmetric rank-k update)

    Returns
    -------
    ndarray, d x d

    References
    ----------
    Wang, Kifer and Lee 2019, Eq. 5 and 6 (H and Sigma are such sums).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._losses import weighted_gram
    >>> X = np.array([[1.0, 2.0], [3.0, 4.0]])
    >>> weighted_gram(X, np.array([4.0, 0.25])).tolist()
    [[6.25, 11.0], [11.0, 20.0]]
    """
    from scipy.linalg.blas import dsyrk

    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    upper = np.zeros((d, d))
    if index is None and X.flags.c_contiguous:
        # All rows of a C-ordered X (the fits' Hessians): the blocks are slices of X, and with
        # weights sqrt(w) x goes into one reused buffer; no gathered copy of each block (the
        # same blocks, the same values)
        buffer = np.empty((min(block, X.shape[0]), d)) if weights is not None else None
        for start in range(0, X.shape[0], block):
            A = X[start:start + block]
            if weights is not None:
                A = np.multiply(A, np.sqrt(weights[start:start + block])[:, None],
                                out=buffer[:A.shape[0]])
            upper += dsyrk(1.0, A.T, trans=0)  # A.T is Fortran-ordered: no copy
        return np.triu(upper) + np.triu(upper, 1).T
    rows = np.arange(X.shape[0]) if index is None else np.asarray(index)
    for start in range(0, rows.size, block):
        chosen = rows[start:start + block]
        A = X[chosen]
        if weights is not None:
            A *= np.sqrt(weights[chosen])[:, None]  # A is a copy: X is untouched
        upper += dsyrk(1.0, A.T, trans=0)  # A.T is Fortran-ordered: no copy
    return np.triu(upper) + np.triu(upper, 1).T


# --------------------------------------------------------------------------------------------
# The margin losses
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MarginLoss:
    """A convex margin loss f(z) of z = y x'theta, y in {-1, +1}, and its proofs' constants.

    The base of :class:`LogisticLoss` and :class:`HuberLoss` (build them with :func:`logistic`,
    :func:`huber` or :func:`margin_loss`).

    Attributes
    ----------
    name : str
        'logistic' or 'huber'.
    lipschitz : float
        sup abs(f'(z)): with ||x|| <= 1, the bound on one record's gradient norm.
    curvature : float
        sup abs(f''(z)).

    References
    ----------
    Wang, Kifer and Lee 2019 (losses and constants); Chaudhuri, Monteleoni and Sarwate 2011.

    Examples
    --------
    >>> from dppack.erm import _losses as losses
    >>> loss = losses.logistic()
    >>> isinstance(loss, losses.MarginLoss), loss.lipschitz, loss.curvature
    (True, 1.0, 0.25)
    """

    name: ClassVar[str] = ""
    lipschitz: ClassVar[float] = 1.0

    def sup_first_at(self, theta_norm):
        """sup abs(f'(y theta'x)) over ||x|| <= 1 at ||theta|| = ``theta_norm``."""
        return self.lipschitz

    def risk(self, X, y, weights=None, ridge=0.0):
        """The fused empirical risk of this loss over a design: an :class:`EmpiricalRisk`."""
        return EmpiricalRisk(self, X, y, weights, ridge)


@dataclass(frozen=True)
class LogisticLoss(MarginLoss):
    """The logistic loss f(z) = log(1 + e^-z): f' = -S(-z), f'' = S(z) S(-z) <= 1/4.

    Attributes
    ----------
    name : str
        'logistic'.
    lipschitz : float
        1.
    curvature : float
        1/4.

    References
    ----------
    Wang, Kifer and Lee 2019; DPpack 0.2.2 (LogisticRegressionDP's c = 1/4).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._losses import logistic
    >>> loss = logistic()
    >>> z = np.array([-1.0, 0.0, 2.0])
    >>> np.round(loss.value(z), 6).tolist()
    [1.313262, 0.693147, 0.126928]
    >>> np.round(loss.first(z), 6).tolist(), np.round(loss.second(z), 6).tolist()
    ([-0.731059, -0.5, -0.119203], [0.196612, 0.25, 0.104994])
    """

    name: ClassVar[str] = "logistic"
    curvature: ClassVar[float] = 0.25

    def value(self, z):
        """f(z) = log(1 + e^-z), as logaddexp(0, -z) (no overflow)."""
        return np.logaddexp(0.0, -np.asarray(z, dtype=np.float64))

    def first(self, z, y=1.0):
        """y f'(z) = -y S(-z): the derivative of f(y s) in the score s (y = 1: f'(z))."""
        return -y * sigmoid(-np.asarray(z, dtype=np.float64))

    def second(self, z):
        """f''(z) = e / (1 + e)^2, e = exp(-abs(z)) (accurate in the tails)."""
        e = np.exp(-np.abs(np.asarray(z, dtype=np.float64)))
        r = 1.0 / (1.0 + e)
        return e * r * r

    def scalar_first(self, z):
        """f'(z) for one float, with the math module (SGD loops)."""
        if z > 0.0:
            e = math.exp(-z)
            return -e / (1.0 + e)
        return -1.0 / (1.0 + math.exp(z))

    def sup_first_at(self, theta_norm):
        """sup abs(f'(y theta'x)) over ||x|| <= 1 = S(||theta||)."""
        return float(sigmoid(theta_norm))

    def _fused(self, X, y, weights):
        """(terms, hessian) over the design (the Hessian reuses the last exponentials)."""
        n = X.shape[0]
        u = (y + 1.0) / 2.0  # exact for y = +-1
        z, e, r = np.empty(n), np.empty(n), np.empty(n)
        negative = np.empty(n, dtype=bool)
        last = {"theta": None}  # the theta whose exp(-|X theta|) e holds

        def terms(theta, with_gradient):
            last["theta"] = None
            np.dot(X, theta, out=z)
            np.abs(z, out=e)
            np.negative(e, out=e)
            np.exp(e, out=e)
            last["theta"] = np.array(theta, dtype=np.float64)
            if weights is None:
                value = float(np.sum(np.log1p(e, out=r)))
                value += float(np.sum(np.maximum(z, 0.0, out=r))) - float(u @ z)
            else:
                value = float(weights @ (np.log1p(e) + np.maximum(z, 0.0) - u * z))
            if not with_gradient:
                return value, None
            np.add(e, 1.0, out=r)
            np.reciprocal(r, out=r)
            np.less(z, 0.0, out=negative)
            np.multiply(e, r, out=r, where=negative)
            np.subtract(r, u, out=r)
            if weights is not None:
                np.multiply(r, weights, out=r)
            return value, transpose_dot(X, r)

        def hessian(theta):
            if last["theta"] is not None and np.array_equal(last["theta"], theta):
                s = 1.0 / (1.0 + e)
                curvature = e * s * s  # second(X theta), from the e of terms(theta)
            else:
                curvature = self.second(X @ theta)
            if weights is not None:
                curvature *= weights
            return weighted_gram(X, curvature)

        return terms, hessian


@dataclass(frozen=True)
class HuberLoss(MarginLoss):
    """DPpack's Huber-smoothed hinge with parameter ``h`` (svmDP's loss, in margin form).

    f(z) = 0 for z > 1 + h, (1 + h - z)^2 / (4h) for abs(1 - z) <= h, 1 - z for z < 1 - h;
    f'' = 1/(2h) on the quadratic piece (the inner value at the kinks). The constructor does not
    check ``h``; :func:`huber` does.

    Parameters
    ----------
    h : float, > 0

    Attributes
    ----------
    name : str
        'huber'.
    h : float
        The smoothing parameter.
    lipschitz : float
        1.
    curvature : float
        1/(2h).

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Section 3.4.2 (the Huber SVM); DPpack
    0.2.2 ``generate.loss.huber``.

    Examples
    --------
    >>> from dppack.erm._losses import huber
    >>> loss = huber(0.5)
    >>> loss.curvature
    1.0
    >>> [float(v) for v in loss.value([0.0, 1.0, 2.0])]
    [1.0, 0.125, 0.0]
    >>> [float(v) for v in loss.first([0.0, 1.0, 2.0])]
    [-1.0, -0.5, 0.0]
    """

    h: float
    name: ClassVar[str] = "huber"

    @property
    def curvature(self):
        """1/(2h)."""
        return 1.0 / (2.0 * self.h)

    def value(self, z):
        """f(z), elementwise."""
        z = np.asarray(z, dtype=np.float64)
        h = self.h
        return np.where(z > 1.0 + h, 0.0,
                        np.where(z < 1.0 - h, 1.0 - z, (1.0 + h - z) ** 2 / (4.0 * h)))

    def first(self, z, y=1.0):
        """y f'(z): the derivative of f(y s) in the score s (y = 1: f'(z))."""
        z = np.asarray(z, dtype=np.float64)
        h = self.h
        return np.where(z > 1.0 + h, 0.0,
                        np.where(z < 1.0 - h, -y, -y * (1.0 + h - z) / (2.0 * h)))

    def second(self, z):
        """f''(z): 1/(2h) where abs(1 - z) <= h, else 0."""
        z = np.asarray(z, dtype=np.float64)
        return np.where(np.abs(1.0 - z) <= self.h, 1.0 / (2.0 * self.h), 0.0)

    def scalar_first(self, z):
        """f'(z) for one float (SGD loops): :meth:`first`'s formula."""
        h = self.h
        if z > 1.0 + h:
            return 0.0
        if z < 1.0 - h:
            return -1.0
        return -(1.0 + h - z) / (2.0 * h)

    def _fused(self, X, y, weights):
        """(terms, hessian) over the design (the Hessian updated with changed rows)."""
        n = X.shape[0]
        h = self.h
        z, t, q = np.empty(n), np.empty(n), np.empty(n)
        last = {"inside": None, "G": None}

        def terms(theta, with_gradient):
            np.dot(X, theta, out=z)
            np.multiply(z, y, out=z)
            np.subtract(1.0 + h, z, out=t)
            np.multiply(t, 0.5 / h, out=q)
            np.clip(q, 0.0, 1.0, out=q)
            np.multiply(q, -h, out=z)  # the margins are no longer needed: z holds the losses
            np.add(z, t, out=z)
            np.multiply(z, q, out=z)
            value = float(z.sum() if weights is None else weights @ z)
            if not with_gradient:
                return value, None
            np.multiply(q, y, out=q)
            if weights is not None:
                np.multiply(q, weights, out=q)
            np.negative(q, out=q)
            return value, transpose_dot(X, q)

        def hessian(theta):
            margin = X @ theta
            np.multiply(margin, y, out=margin)
            inside = np.abs(1.0 - margin) <= h
            previous = last["inside"]
            changed = None if previous is None else np.flatnonzero(inside != previous)
            if changed is None or 4 * changed.size > np.count_nonzero(inside):
                G = weighted_gram(X, weights, np.flatnonzero(inside))
            else:
                entering = changed[inside[changed]]
                leaving = changed[~inside[changed]]
                G = (last["G"] + weighted_gram(X, weights, entering)
                     - weighted_gram(X, weights, leaving))
            last["inside"], last["G"] = inside, G
            return G / (2.0 * h)

        return terms, hessian


class EmpiricalRisk:
    """The empirical risk (1/n) sum_i w_i f(y_i x_i'theta) + (ridge/2)||theta||^2 over a fixed
    design, value and gradient from one product X theta.

    Build it with :meth:`MarginLoss.risk`.

    Parameters
    ----------
    loss : MarginLoss
    X : array_like, n x d (not modified)
    y : array_like, n labels in {-1, +1}
    weights : array_like, optional (n weights >= 0; ones by default)
    ridge : float, default 0
    order : {'C', 'any'}, default 'C'
        'any' keeps a Fortran-ordered design as it is; 'C' copies it into a C-ordered one.

    Attributes
    ----------
    loss : MarginLoss
    X : ndarray, n x d
    y : ndarray
    weights : ndarray or None
    ridge : float
    n : int

    References
    ----------
    DPpack 0.2.2 (the objectives of LogisticRegressionDP and svmDP); Wang, Kifer and Lee 2019.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm import _losses as losses
    >>> X = np.array([[0.6, 0.0], [0.0, -0.8], [0.3, 0.4]])
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> risk = losses.logistic().risk(X, y)
    >>> theta = np.array([1.0, 2.0])
    >>> value, gradient = risk(theta)
    >>> z = y * (X @ theta)
    >>> bool(np.isclose(value, np.mean(losses.logistic().value(z))))
    True
    >>> bool(np.allclose(gradient, X.T @ (losses.logistic().first(z) * y) / 3))
    True
    >>> risk.hessian(theta).shape
    (2, 2)
    """

    def __init__(self, loss, X, y, weights=None, ridge=0.0, order="C"):
        self.loss = loss
        X = np.asarray(X, dtype=np.float64)
        keep = order == "any" and X.ndim == 2 and X.flags.f_contiguous
        self.X = X if keep else np.ascontiguousarray(X)
        self.y = np.asarray(y, dtype=np.float64)
        self.weights = None if weights is None else np.asarray(weights, dtype=np.float64)
        self.ridge = float(ridge)
        self.n = self.X.shape[0]
        self._terms, self._hessian = loss._fused(self.X, self.y, self.weights)

    def __call__(self, theta, with_gradient=True):
        """(R(theta), grad R(theta)), the gradient None unless ``with_gradient``."""
        value, gradient = self._terms(theta, with_gradient)
        n, ridge = self.n, self.ridge
        value = value / n
        if ridge:
            value += 0.5 * ridge * float(theta @ theta)
        if gradient is None:
            return value, None
        gradient = gradient / n
        if ridge:
            gradient += ridge * theta
        return value, gradient

    @property
    def shape(self):
        """(n, d) of the design."""
        return self.X.shape

    def sums(self, theta, with_gradient=True, with_hessian=False):
        """The plain sums (value, gradient, Hessian) without 1/n and ridge (additive)."""
        value, gradient = self._terms(theta, with_gradient)
        return value, gradient, (self._hessian(theta) if with_hessian else None)

    def hessian(self, theta):
        """(1/n) sum_i w_i f''(y_i x_i'theta) x_i x_i' + ridge I, a new d x d array."""
        H = self._hessian(theta) / self.n
        if self.ridge:
            H[np.diag_indices(H.shape[0])] += self.ridge
        return H


# --------------------------------------------------------------------------------------------
# Constructors
# --------------------------------------------------------------------------------------------


def logistic():
    """The logistic loss f(z) = log(1 + e^-z): a :class:`LogisticLoss`.

    Returns
    -------
    LogisticLoss

    References
    ----------
    Wang, Kifer and Lee 2019; DPpack 0.2.2 (c = 1/4).

    Examples
    --------
    >>> from dppack.erm._losses import logistic
    >>> logistic().curvature
    0.25
    >>> round(logistic().sup_first_at(1.0), 6)
    0.731059
    """
    return LogisticLoss()


def huber(h):
    """DPpack's Huber-smoothed hinge with parameter ``h``: a :class:`HuberLoss`.

    Parameters
    ----------
    h : float, finite and > 0

    Returns
    -------
    HuberLoss

    Raises
    ------
    ValueError
        If ``h`` is not a finite number > 0.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12, Section 3.4.2 (the Huber loss, c = 1/(2h)).

    Examples
    --------
    >>> from dppack.erm._losses import huber
    >>> huber(0.25).curvature
    2.0
    >>> huber(0.5).sup_first_at(10.0)
    1.0
    """
    return HuberLoss(_checks.check_finite_positive_scalar(h, "huber.h"))


def margin_loss(name, huber_h=0.5):
    """The margin loss called ``name``: :func:`logistic` or :func:`huber`.

    Parameters
    ----------
    name : {'logistic', 'huber'}
    huber_h : float, default 0.5 (checked for 'huber' only)

    Returns
    -------
    MarginLoss

    Raises
    ------
    ValueError
        For another name, or an invalid ``huber_h`` with 'huber'.

    References
    ----------
    Wang, Kifer and Lee 2019.

    Examples
    --------
    >>> from dppack.erm._losses import margin_loss
    >>> margin_loss("logistic").name, margin_loss("huber", 0.1).curvature
    ('logistic', 5.0)
    """
    if name == "logistic":
        return logistic()
    if name == "huber":
        return huber(huber_h)
    raise _messages.value_error(LOSS_MESSAGE)
