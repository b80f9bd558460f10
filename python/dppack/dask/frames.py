"""The Dask side of :mod:`dppack._frames`: Dask blocks and dtypes read as the in-memory
conversions read data.

* :func:`dask_numeric`: the numeric check, from the metadata (no pass);
* :func:`block_floats`: one partition or chunk as floats, not copied when it holds float64
  already.
"""

import numpy as np

__all__ = []


def dask_numeric(x):
    """Whether a Dask array, Series or DataFrame holds real numbers, read from its dtypes (no
    pass): integers and floats, pandas' nullable ones included; not Booleans, complex
    numbers, dates, strings or categories (as :func:`as_numeric_array` in memory).

    Parameters
    ----------
    x : dask.array.Array, dask.dataframe.Series or dask.dataframe.DataFrame

    Returns
    -------
    bool

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
    """One block of a Dask collection (a NumPy chunk, or a pandas Series or DataFrame
    partition) as float64 values: the block's own memory when it holds float64 already (a
    partition of float64 columns read together is one 2-d block: its values are a view),
    else a converted copy (pandas' nullable numbers become floats, a missing value NaN).

    Parameters
    ----------
    block : ndarray, pandas.Series or pandas.DataFrame
    columns : int, optional
        None: the values flat (all of them, in memory order); else an array of shape
        (rows, ``columns``) (a 1-d block becomes its rows; a 2-d block is kept as it is).

    Returns
    -------
    ndarray
        Not to be written: it may be the block's memory.

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
