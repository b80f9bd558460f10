"""Predict-time helpers and row splits for tuning (re-exported by :mod:`dppack.erm._design`)."""

import math

import numpy as np

from .. import _checks, _frames, _messages
from ._design_messages import NOT_FITTED_MESSAGE
from ._matrix import as_design_matrix


def add_bias_column(X):
    """A new matrix with a column of ones first (DPpack puts the bias first).

    Parameters
    ----------
    X : ndarray, n x p

    Returns
    -------
    ndarray, n x (p + 1)

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import add_bias_column
    >>> add_bias_column(np.array([[2.0], [3.0]]))
    array([[1., 2.],
           [1., 3.]])
    """
    out = np.empty((X.shape[0], X.shape[1] + 1))
    out[:, 0] = 1.0
    out[:, 1:] = X
    return out


# --------------------------------------------------------------------------------------------
# Scores and predict time
# --------------------------------------------------------------------------------------------


def linear_score(X, coeff, add_bias):
    """The scores X coeff, with the bias coefficient first when ``add_bias``.

    Parameters
    ----------
    X : ndarray, n x p
    coeff : ndarray, p or p + 1 values (bias first)
    add_bias : bool

    Returns
    -------
    ndarray, n scores

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import linear_score
    >>> linear_score(np.array([[1.0, 2.0]]), np.array([0.5, 1.0, -1.0]), True)
    array([-0.5])
    """
    if add_bias:
        return X @ coeff[1:] + coeff[0]
    return X @ coeff


def transpose_dot(X, v):
    """X'v, the adjoint of the linear score (one einsum pass, faster than BLAS gemv for n >> d).

    Parameters
    ----------
    X : ndarray, n x d
    v : ndarray, n values

    Returns
    -------
    ndarray, d values sum_i v_i x_i

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import transpose_dot
    >>> transpose_dot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
    array([-2., -2.])
    """
    return np.einsum("ij,i->j", X, v)


def check_fitted(coeff):
    """Refuse to predict before a fit.

    Parameters
    ----------
    coeff : ndarray or None

    Returns
    -------
    ndarray, ``coeff``

    Raises
    ------
    ValueError
        If ``coeff`` is None.

    Examples
    --------
    >>> from dppack.erm._design import check_fitted
    >>> check_fitted(None)
    Traceback (most recent call last):
    ...
    ValueError: The model must be fitted before predict: call fit() first.
    """
    if coeff is None:
        raise _messages.value_error(NOT_FITTED_MESSAGE)
    return coeff


def fitted_add_bias(model, add_bias=None, X=None):
    """The ``add_bias`` of ``predict``: None means as fitted (as R's ``predict`` remembers).

    With None, an ``X`` that already has one column per coefficient is taken to hold the bias
    column (DPpack's ``predict(X, add.bias = FALSE)`` after a fit with a bias).

    Parameters
    ----------
    model : a fitted model (its ``add_bias_``; without it, no bias)
    add_bias : None or bool
    X : array_like, optional (only its number of columns is read)

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        If ``add_bias`` is not a flag.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dppack.erm._design import fitted_add_bias
    >>> fitted_add_bias(SimpleNamespace(add_bias_=True))
    True
    >>> fitted_add_bias(SimpleNamespace(add_bias_=True), False)
    False
    >>> fitted_add_bias(SimpleNamespace())
    False
    >>> fitted_add_bias(SimpleNamespace(add_bias_=True, coeff=[0.5, 1.0, 2.0]), None,
    ...                 [[1.0, 0.2, 0.3]])  # X with its bias column
    False
    """
    if add_bias is None:
        fitted = bool(getattr(model, "add_bias_", None) or False)
        return fitted and _columns(X) != np.size(getattr(model, "coeff", None))
    return _checks.check_flag(add_bias, "add.bias")


def _columns(X):
    """X's number of columns from its shape (no pass over Dask data), or None."""
    if X is None:
        return None
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except ValueError:  # ragged rows: refused later by as_design_matrix
            return None
    return int(shape[1]) if len(shape) == 2 and isinstance(shape[1], (int, np.integer)) \
        else None


def predict_matrix(X, n_columns, add_bias):
    """X for ``predict``, converted (not clipped or scaled) and checked against the fit's columns.

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame
    n_columns : int (the fit's columns, the bias column included)
    add_bias : bool

    Returns
    -------
    ndarray, n x p (without the bias column)

    Raises
    ------
    ValueError
        If X is not a numeric matrix or has the wrong number of columns.

    Examples
    --------
    >>> from dppack.erm._design import predict_matrix
    >>> predict_matrix([[1.0, 2.0]], 3, True).shape
    (1, 2)
    >>> predict_matrix([[1.0, 2.0]], 3, False)
    Traceback (most recent call last):
    ...
    ValueError: X has 2 columns; the model was fitted on 3.
    """
    X = as_design_matrix(X)
    k = X.shape[1] + int(bool(add_bias))
    if k != n_columns:
        extra = " (counting the bias column added by add.bias)" if add_bias else ""
        raise _messages.value_error(
            "X has {k} columns" + extra + "; the model was fitted on {n_columns}.", k=k,
            n_columns=n_columns)
    return X


def fourier_cosines(X, prefilter, add_bias):
    """cos(omega_j'x_i + phi_j) for every row i and feature j: svmDP's kernel features.

    Parameters
    ----------
    X : ndarray, n x p (without the bias column)
    prefilter : ndarray, D x (d + 1) (row j: omega_j, bias first, then phi_j)
    add_bias : bool

    Returns
    -------
    ndarray, n x D, entries in [-1, 1]

    References
    ----------
    DPpack 0.2.2 ``XtoV``; Rahimi and Recht (2007), random features for kernel machines.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import fourier_cosines
    >>> W = np.array([[0.0, 0.0], [1.0, 0.0]])  # D = 2 features of d = 1 column
    >>> fourier_cosines(np.array([[0.0], [np.pi]]), W, False)
    array([[ 1.,  1.],
           [ 1., -1.]])
    """
    d = prefilter.shape[1] - 1
    bias = int(bool(add_bias))
    out = X @ prefilter[:, bias:d].T
    out += prefilter[:, d] + (prefilter[:, 0] if bias else 0.0)
    np.cos(out, out=out)
    return out


def fourier_features(X, prefilter, add_bias):
    """svmDP's kernel design, :func:`fourier_cosines` / sqrt(D): rows of norm <= 1.

    Parameters
    ----------
    X, prefilter, add_bias
        As :func:`fourier_cosines`.

    Returns
    -------
    ndarray, n x D

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import fourier_features
    >>> fourier_features(np.array([[0.0]]), np.array([[1.0, 0.0]] * 4), False)
    array([[0.5, 0.5, 0.5, 0.5]])
    """
    V = fourier_cosines(X, prefilter, add_bias)
    V /= math.sqrt(prefilter.shape[0])
    return V


def coefficient_names(X, p, add_bias):
    """Coefficient names: the data frame's columns or x1, ..., xp; "(Intercept)" first.

    Parameters
    ----------
    X : array_like or data frame
    p : int
    add_bias : bool

    Returns
    -------
    list of str

    References
    ----------
    R's ``coef()`` convention.

    Examples
    --------
    >>> from dppack.erm._design import coefficient_names
    >>> coefficient_names([[1.0, 2.0]], 2, True)
    ['(Intercept)', 'x1', 'x2']
    """
    columns = _frames.column_names(X)
    names = (columns if columns is not None and len(columns) == p
             else [f"x{j + 1}" for j in range(p)])
    return ["(Intercept)"] + names if add_bias else names


# --------------------------------------------------------------------------------------------
# Rows for tuning
# --------------------------------------------------------------------------------------------


def n_rows(X):
    """The number of rows of X (an array, a data frame or a sequence), without converting it.

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame

    Returns
    -------
    int

    Raises
    ------
    ValueError
        For a scalar.

    Examples
    --------
    >>> from dppack.erm._design import n_rows
    >>> n_rows([[1, 2], [3, 4], [5, 6]])
    3
    """
    shape = _frames.shape(X)
    if len(shape) == 0:
        raise _messages.value_error("X must be a matrix (or a data frame).")
    return shape[0]


# The rows of X (of any kind) for the tuning functions' parts: the conversion layer's.
take_rows = _frames.take_rows


def interleaved_split(m, n):
    """The rows of m training parts and a validation part, interleaved (DPpack's tuning split).

    Part i holds rows i, i + (m + 1), ...; validation rows m, 2m + 1, ... The parts are
    disjoint, so each record reaches one fit or the validation (parallel composition).

    Parameters
    ----------
    m : int, the number of models
    n : int, the number of rows

    Returns
    -------
    (list of ndarray, ndarray)
        The m training row sets and the validation rows.

    Raises
    ------
    ValueError
        If n < m + 1.

    Examples
    --------
    >>> from dppack.erm._design import interleaved_split
    >>> training, validation = interleaved_split(2, 7)
    >>> [rows.tolist() for rows in training], validation.tolist()
    ([[0, 3, 6], [1, 4]], [2, 5])
    """
    if n < m + 1:
        raise _messages.value_error(
            "Tuning {m} models needs at least {n_min} observations (one part per model plus "
            "a validation part).", m=m, n_min=m + 1)
    training = [np.arange(i, n, m + 1) for i in range(m)]
    validation = np.arange(m, n, m + 1)
    return training, validation


def split_rows(n, fraction):
    """A deterministic interleaved split of rows 0..n-1: floor(n f) validation rows spread evenly.

    Parameters
    ----------
    n : int
    fraction : float, the validation share f in (0, 1)

    Returns
    -------
    (ndarray, ndarray)
        The training rows and the validation rows (disjoint).

    Raises
    ------
    ValueError
        When either part is empty.

    References
    ----------
    Chaudhuri and Vinterbo 2013 (training and validation sets disjoint).

    Examples
    --------
    >>> from dppack.erm._design import split_rows
    >>> [rows.tolist() for rows in split_rows(8, 0.25)]
    [[0, 1, 2, 4, 5, 6], [3, 7]]
    """
    index = np.arange(n)
    in_v = np.floor((index + 1) * fraction) > np.floor(index * fraction)
    training, validation = index[~in_v], index[in_v]
    if training.size == 0 or validation.size == 0:
        raise _messages.value_error(
            "Splitting {n} rows with validation.fraction = {fraction} leaves an "
            "empty training or validation set.", n=n, fraction=fraction)
    return training, validation
