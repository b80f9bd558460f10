"""The design matrix of the ERM models (:mod:`dppack.erm._design`): the public bounds of the
columns (:class:`ColumnBounds`: checks, clipping, scaling) and the matrix checks."""

import math

import numpy as np

from .. import _checks, _messages
from .._columns import ColumnMatrix
from ._design_messages import (
    EMPTY_MESSAGE,
    FINITE_MESSAGE,
    LOWER_LENGTH_MESSAGE,
    LOWER_TARGET_LENGTH_MESSAGE,
    SCALINGS,
    TARGET_BOUNDS_MESSAGE,
    UPPER_LENGTH_MESSAGE,
    UPPER_TARGET_LENGTH_MESSAGE,
)


# --------------------------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------------------------


def _bound_values(value, name):
    """A new read-only float vector of finite bounds (ours: numeric, finite)."""
    array = np.array(_checks.as_numeric_array(value, f"{name} must be numeric."),
                     dtype=np.float64).ravel()
    if not np.all(np.isfinite(array)):
        raise _messages.value_error(f"{name} must be finite.")
    return array


class ColumnBounds:
    """Public bounds L_j < U_j of a design's columns, with scales s_j = max(abs(L_j), abs(U_j)).

    Used for clipping (:meth:`clip`), the bias column (:meth:`with_bias`), the scaling divisors
    (:meth:`divisors`) and the row-norm bound (:attr:`max_row_norm`); the vectors are read-only
    copies.

    Parameters
    ----------
    lower, upper : array_like
        One finite bound per column, lower < upper in every column.

    Attributes
    ----------
    lower, upper : ndarray
    scale : ndarray
        s_j, so abs(x_j) <= s_j for every clipped value.
    size : int
    max_row_norm : float
        sqrt(sum_j s_j^2), the largest L2 norm of a clipped row.

    Raises
    ------
    ValueError
        Non-numeric or non-finite bounds, different lengths, or lower >= upper in a column.

    References
    ----------
    DPpack 0.2.2 (clipping to the bounds); Wang, Kifer and Lee 2019 (public bounds).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import ColumnBounds
    >>> bounds = ColumnBounds([-1.0, 0.0], [2.0, 1.0])
    >>> bounds.scale
    array([2., 1.])
    >>> bounds.clip(np.array([[3.0, -1.0], [0.5, 0.5]]))
    array([[2. , 0. ],
           [0.5, 0.5]])
    >>> ColumnBounds([0.0], [0.0])
    Traceback (most recent call last):
    ...
    ValueError: lower_bounds must be < upper_bounds in every column (not in column 1).
    """

    __slots__ = ("lower", "upper", "scale")

    def __init__(self, lower, upper):
        upper = _bound_values(upper, "upper.bounds")
        lower = _bound_values(lower, "lower.bounds")
        if lower.size != upper.size:
            raise _messages.value_error("lower.bounds and upper.bounds must have the same length.")
        bad = np.flatnonzero(~(lower < upper))
        if bad.size:
            raise _messages.value_error(
                "lower.bounds must be < upper.bounds in every column (not in "
                "column {column}).", column=bad[0] + 1)
        self._set(lower, upper)

    def _set(self, lower, upper):
        scale = np.maximum(np.abs(lower), np.abs(upper))
        for array in (lower, upper, scale):
            array.flags.writeable = False
        self.lower, self.upper, self.scale = lower, upper, scale

    @classmethod
    def _trusted(cls, lower, upper):
        """Bounds built from checked ones (a slice, or with the bias column's 1 <= 1)."""
        bounds = cls.__new__(cls)
        bounds._set(np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64))
        return bounds

    @classmethod
    def from_arguments(cls, upper_bounds, lower_bounds, p, target=False):
        """The bounds of a fit's ``upper.bounds`` and ``lower.bounds`` (DPpack's checks first).

        Parameters
        ----------
        upper_bounds, lower_bounds : array_like
            One bound per column of X (and with ``target`` one more, last, for y).
        p : int
            The number of columns of X (without a bias column).
        target : bool, default False

        Returns
        -------
        ColumnBounds

        Raises
        ------
        ValueError
            DPpack's length messages, then ours (numeric, finite, lower < upper).

        References
        ----------
        DPpack 0.2.2 (the length checks and messages).

        Examples
        --------
        >>> from dppack.erm._design import ColumnBounds
        >>> ColumnBounds.from_arguments([1, 1, 5], [-1, 0, -5], 2, target=True).size
        3
        >>> ColumnBounds.from_arguments([1], [0], 2)
        Traceback (most recent call last):
        ...
        ValueError: Length of upper_bounds must be equal to the number of columns of X.
        """
        size = p + int(bool(target))
        messages = ((UPPER_TARGET_LENGTH_MESSAGE, LOWER_TARGET_LENGTH_MESSAGE) if target
                    else (UPPER_LENGTH_MESSAGE, LOWER_LENGTH_MESSAGE))
        for value, message in zip((upper_bounds, lower_bounds), messages):
            if _checks.r_length(value) != size:
                raise _messages.value_error(message)
        upper = _checks.as_numeric_array(upper_bounds, "upper.bounds must be numeric.").ravel()
        lower = _checks.as_numeric_array(lower_bounds, "lower.bounds must be numeric.").ravel()
        features = cls(lower[:p], upper[:p])
        if not target:
            return features
        low, high = lower[p], upper[p]
        if not (math.isfinite(low) and math.isfinite(high) and low < high):
            raise _messages.value_error(TARGET_BOUNDS_MESSAGE)
        return cls._trusted(np.append(features.lower, low), np.append(features.upper, high))

    @property
    def size(self):
        """The number of columns bounded."""
        return self.lower.size

    @property
    def max_row_norm(self):
        """sqrt(sum_j s_j^2): every clipped row has at most this L2 norm."""
        return float(np.linalg.norm(self.scale))

    def __getitem__(self, columns):
        """The bounds of some columns (an int or a slice), as ColumnBounds."""
        if isinstance(columns, (int, np.integer)):
            columns = slice(columns, columns + 1 if columns != -1 else None)
        return self._trusted(self.lower[columns], self.upper[columns])

    def with_bias(self):
        """These bounds with the bias column first: bounds (1, 1), scale 1."""
        return self._trusted(np.concatenate([[1.0], self.lower]),
                             np.concatenate([[1.0], self.upper]))

    def clip(self, X, add_bias=False, divisors=None, finite=None):
        """X clipped to the bounds in a new C-ordered array (bias column first with
        ``add_bias``, columns divided by ``divisors``, finiteness checked with ``finite``).
        """
        n, k = X.shape
        if k != self.size:
            raise _messages.value_error("X has {k} columns; the bounds have {size}.", k=k,
                                        size=self.size)
        bias = int(bool(add_bias))
        out = np.empty((n, k + bias))
        columns = _contiguous_columns(X)
        # Silences the warnings of the checks' sums (_checks.block_is_finite), once for the
        # whole loop (per block it would cost what the fused check saves); clipping and
        # scaling cannot warn: finite values, clipped into [L_j, U_j], divided by divisors
        # >= max |L_j|, |U_j|.
        with np.errstate(over="ignore", invalid="ignore"):
            if columns is None:
                return self._clip_rows(X, out, bias, divisors, finite)
            check = [finite is not None and column.dtype.kind == "f" for column in columns]
            for start in range(0, n, ASSEMBLY_ROWS):
                block = out[start:start + ASSEMBLY_ROWS]
                if bias:
                    block[:, 0] = 1.0
                for j, column in enumerate(columns):
                    values = column[start:start + ASSEMBLY_ROWS]
                    if check[j] and not _checks.block_is_finite(values):
                        raise _messages.value_error(FINITE_MESSAGE.format(name=finite))
                    np.clip(values, self.lower[j], self.upper[j], out=block[:, bias + j])
                if divisors is not None:
                    block /= divisors
        return out

    def _clip_rows(self, X, out, bias, divisors, finite=None):
        """:meth:`clip` of a row-stored X, by blocks against tiled bounds."""
        n = X.shape[0]
        rows = min(n, TILED_ROWS)
        lower, upper = np.tile(self.lower, (rows, 1)), np.tile(self.upper, (rows, 1))
        scale = None if divisors is None else np.tile(divisors, (rows, 1))
        clipped = np.empty((rows, X.shape[1])) if bias else None  # contiguous, unlike out's
        check = finite is not None and X.dtype.kind == "f"
        for start in range(0, n, TILED_ROWS):
            block = out[start:start + TILED_ROWS]
            m = block.shape[0]
            inner = clipped[:m] if bias else block
            values = X[start:start + TILED_ROWS]
            if check and not _checks.block_is_finite(values):
                raise _messages.value_error(FINITE_MESSAGE.format(name=finite))
            np.maximum(values, lower[:m], out=inner)
            np.minimum(inner, upper[:m], out=inner)
            if bias:
                block[:, 0] = 1.0
                block[:, 1:] = inner
            if scale is not None:
                np.divide(block, scale[:m], out=block)
        return out

    def divisors(self, norm):
        """Divisors into a unit ball: ``"l2"`` s_j sqrt(d), ``"l1"`` s_j d, ``"max"`` s_j."""
        if norm == "l2":
            return self.scale * math.sqrt(self.size)
        if norm == "l1":
            return self.scale * self.size
        if norm == "max":
            return self.scale.copy()
        raise _messages.value_error(f"norm must be one of {SCALINGS}.")

    def __repr__(self):
        return f"ColumnBounds(lower={self.lower.tolist()}, upper={self.upper.tolist()})"


# --------------------------------------------------------------------------------------------
# X and y
# --------------------------------------------------------------------------------------------


# Rows per block when the design is assembled (ColumnBounds.clip): 16384 rows of 21 doubles,
# 2.8 MB, stay in the cache while every column is clipped into them and scaled (at 10^6 x 20,
# 0.08 s of CPU against 0.09 s with 4096 rows and 0.16 s for the whole array at once).
ASSEMBLY_ROWS = 16384
# Rows per block when rows are clipped against the tiled bounds (ColumnBounds._clip_rows): the
# block and the three tiled arrays of 8192 x 20 doubles stay in the cache (10^6 x 20 clipped
# and scaled in 0.02 s, against 0.06 s by np.clip with broadcast bounds).
TILED_ROWS = 8192


def _contiguous_columns(X):
    """X's columns as contiguous 1-d arrays (ColumnMatrix or Fortran order), or None."""
    if isinstance(X, ColumnMatrix):
        return X.columns
    if X.flags.f_contiguous and not X.flags.c_contiguous:
        return [X[:, j] for j in range(X.shape[1])]
    return None


def as_design_matrix(X, name="X", columns=False):
    """``X`` as a 2-d float array (not yet checked for finiteness).

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame (a vector becomes one column)
    name : str, default "X" (in messages)
    columns : bool, default False
        Return a :class:`dppack._columns.ColumnMatrix` as it is, not copied into a matrix.

    Returns
    -------
    ndarray or ColumnMatrix
        n x p float64 (the caller's memory when X is already one; only read).

    Raises
    ------
    ValueError
        Not numeric, more than 2 dimensions, or no row or no column.

    Examples
    --------
    >>> from dppack.erm._design import as_design_matrix
    >>> as_design_matrix([1, 2, 3]).shape
    (3, 1)
    >>> as_design_matrix([["a"]])
    Traceback (most recent call last):
    ...
    ValueError: X must be a numeric matrix or data frame.
    """
    if columns and isinstance(X, ColumnMatrix):
        array = X  # numeric, 2-d and p >= 1 by construction
    else:
        array = _checks.as_numeric_array(X, f"{name} must be a numeric matrix or data frame.")
    if array.ndim == 1:
        array = array.reshape(-1, 1)
    if array.ndim != 2:
        raise _messages.value_error(
            f"{name} must be a numeric matrix or data frame (2 dimensions).")
    if array.shape[0] < 1 or array.shape[1] < 1:
        raise _messages.value_error(EMPTY_MESSAGE.format(name=name))
    return array


def check_finite_matrix(array, name="X"):
    """Raise unless every entry is finite (one blockwise pass, no copy); returns ``array``.

    Parameters
    ----------
    array : ndarray or ColumnMatrix
    name : str, default "X"

    Returns
    -------
    ndarray or ColumnMatrix

    Raises
    ------
    ValueError
        If an entry is NA, NaN or infinite (DPpack does not check).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import check_finite_matrix
    >>> check_finite_matrix(np.array([[1.0, np.nan]]))
    Traceback (most recent call last):
    ...
    ValueError: X must be finite (no NA, NaN or Inf).
    """
    parts = array.columns if isinstance(array, ColumnMatrix) else (array,)
    for part in parts:
        if part.dtype.kind != "f":
            continue  # integers (an R data.frame's integer columns) are finite
        low, high = _checks.data_range(part)
        if not (math.isfinite(low) and math.isfinite(high)):
            raise _messages.value_error(FINITE_MESSAGE.format(name=name))
    return array
