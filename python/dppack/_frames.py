"""The one conversion layer for data: where NumPy, pandas, polars, pyarrow and Dask inputs
become what the core computes on (issue 14).

In-memory inputs (NumPy, pandas, polars, pyarrow, Python sequences) become NumPy arrays here
and nowhere else. Dask collections are never converted: they are recognised here
(:func:`is_dask`) and routed to :mod:`dppack.dask`, which computes each release from mergeable
sufficient statistics. polars, pyarrow and Dask are optional: each is recognised by the module
its type comes from, so nothing here imports a library the caller has not already used.
"""

__all__ = ["is_dask"]


def _top_module(value):
    """The top-level package that defines ``type(value)`` ("numpy", "pandas", "dask", ...)."""
    return type(value).__module__.partition(".")[0]


def is_dask(value):
    """True for a Dask collection (array, DataFrame, Series), detected without importing Dask.

    Parameters
    ----------
    value : object

    Returns
    -------
    bool

    Raises
    ------
    Nothing.

    References
    ----------
    Issue 14 (data beyond one machine's memory); Dask's collections are defined in the
    ``dask`` package (``dask.array``, ``dask.dataframe``).

    Examples
    --------
    >>> import numpy as np
    >>> is_dask(np.zeros(3)), is_dask([1.0, 2.0])
    (False, False)
    """
    return _top_module(value) == "dask"
