"""A numeric matrix given by its columns: how an R data.frame reaches the core without an R-side
matrix copy (R's bridge hands read-only views of the columns; the design is assembled from
them in the one copy the fit makes anyway).
"""

import numpy as np

__all__ = ["ColumnMatrix"]

# The numeric kinds a column may have: R's doubles and integers (NumPy's float64 and int32).
_KINDS = "if"


class ColumnMatrix:
    """An n x p numeric matrix held as p one-dimensional integer or float ``columns`` (views of the
    caller's memory, only read, never copied); ``np.asarray`` gives the n x p float64 matrix, as
    R's ``as.matrix``. ValueError for no column, or columns not numeric vectors of one length.

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
