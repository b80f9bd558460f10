"""A numeric matrix given by its columns: how an R data.frame reaches the core without an
R-side matrix copy.

An R data.frame is a list of column vectors, each in its own block of R's memory. Turning it
into a matrix (R's ``as.matrix``) copies all of it, and the fit then copies it once more, when
it clips and scales the design (:func:`dppack.erm.design.prepare_design`). R's bridge instead
hands the core read-only NumPy views of the columns (``r_columns`` in
:mod:`dppack._rbridge`), held here in a :class:`ColumnMatrix`; the design is then assembled
from the columns directly, in that one copy the fit makes anyway.

A :class:`ColumnMatrix` is array-like (``__array__``): code that does not know it gets the
n x p float64 matrix, a new array, as it would have from R's ``as.matrix``.
"""

import numpy as np

__all__ = ["ColumnMatrix"]

# The numeric kinds a column may have: R's doubles and integers (NumPy's float64 and int32).
_KINDS = "if"


class ColumnMatrix:
    """An n x p numeric matrix held as p one-dimensional column arrays, never copied.

    Parameters
    ----------
    columns : sequence of ndarray
        p >= 1 one-dimensional arrays of n values each, of integer or floating dtype. They
        are kept as given (views of the caller's memory are not copied) and only read.

    Attributes
    ----------
    columns : tuple of ndarray
        The columns, as given.
    shape : tuple of int
        (n, p).
    ndim : int
        2.

    Raises
    ------
    ValueError
        No column, a column that is not one-dimensional or not numeric, or columns of
        different lengths.

    References
    ----------
    R data.frames reach the core without an R-side matrix copy (module docstring); DPpack 0.2.2
    (DPpack converts X with ``as.matrix``: the values are the same).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack._columns import ColumnMatrix
    >>> X = ColumnMatrix([np.array([1.0, 2.0]), np.array([3, 4], dtype=np.int32)])
    >>> X.shape
    (2, 2)
    >>> np.asarray(X)
    array([[1., 3.],
           [2., 4.]])
    """

    __slots__ = ("columns", "shape")
    ndim = 2

    def __init__(self, columns):
        columns = tuple(columns)
        if not columns:
            raise ValueError("A ColumnMatrix needs at least one column.")
        n = columns[0].shape[0] if columns[0].ndim == 1 else -1
        for column in columns:
            if column.ndim != 1 or column.shape[0] != n or column.dtype.kind not in _KINDS:
                raise ValueError("The columns of a ColumnMatrix must be numeric vectors of "
                                 "one length.")
        self.columns = columns
        self.shape = (n, len(columns))

    def __len__(self):
        return self.shape[0]

    def __array__(self, dtype=None, copy=None):
        """The n x p matrix, a new C-ordered float64 array (or of ``dtype``)."""
        out = np.empty(self.shape, dtype=np.float64 if dtype is None else dtype)
        for j, column in enumerate(self.columns):
            out[:, j] = column
        return out

    def __repr__(self):
        return f"ColumnMatrix(n={self.shape[0]}, p={self.shape[1]})"
