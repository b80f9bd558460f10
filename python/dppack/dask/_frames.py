"""The Dask side of :mod:`dppack._frames`: the numeric check from dtypes, blocks as floats."""

import numpy as np

__all__ = []


def dask_numeric(x):
    """Whether a Dask array, Series or DataFrame holds real numbers, from its dtypes (no pass):
    integers and floats, pandas' nullable ones included.

    Examples
    --------
    >>> import dask.array as da
    >>> dask_numeric(da.zeros(3)), dask_numeric(da.zeros(3, dtype=bool))
    (True, False)
    """
    dtypes = getattr(x, "dtypes", None)
    if dtypes is None or not hasattr(dtypes, "__iter__"):
        dtypes = [x.dtype]
    return all(getattr(dtype, "kind", "O") in "iuf" for dtype in dtypes)


def block_floats(block, columns=None):
    """One block (NumPy chunk or pandas partition) as float64 values, not copied when it holds
    float64 already (then not to be written); flat, or of shape (rows, ``columns``).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [1.0, 2.0], "b": pd.array([3, None], dtype="Int64")})
    >>> block_floats(frame, 2).tolist()
    [[1.0, 3.0], [2.0, nan]]
    >>> block_floats(frame["a"]).tolist()
    [1.0, 2.0]
    """
    if hasattr(block, "to_numpy") and not isinstance(block, np.ndarray):
        dtypes = block.dtypes if hasattr(block, "columns") else [block.dtype]
        if all(dtype == np.float64 for dtype in dtypes):
            block = block.to_numpy()
        else:
            block = block.to_numpy(dtype=np.float64, na_value=np.nan)
    block = np.asarray(block, dtype=np.float64)
    if columns is None:
        return block.ravel(order="K")
    return block.reshape(-1, columns) if block.ndim < 2 else block
