"""A Parquet dataset as a lazy Dask DataFrame, for R's ``dppack_dataset()`` (never read into R):
R holds a reference; only the Parquet metadata are read here.
"""

import os

__all__ = ["dataset", "dataset_schema", "dataset_select"]


def _path_text(path):
    """``path`` as text (a ``str`` or an ``os.PathLike``), or a TypeError."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str) or not path:
        raise TypeError("path must be the path of a Parquet file or directory, as a string.")
    return path


def _names(columns, what="columns"):
    """``columns`` (one name, or a sequence) as a list of distinct strings."""
    if isinstance(columns, str):
        columns = [columns]
    try:
        names = list(columns)
    except TypeError:
        raise TypeError(f"{what} must be a column name or a list of column names.") from None
    if not names:
        raise ValueError(f"{what} must name at least one column.")
    if not all(isinstance(name, str) for name in names):
        raise TypeError(f"{what} must be a column name or a list of column names.")
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ValueError(f"{what} names a column more than once: {', '.join(repeated)}.")
    return names


def _check_known(frame, names):
    """Refuse any of ``names`` that is not a column of ``frame``, naming them all."""
    known = [str(name) for name in frame.columns]
    unknown = [name for name in names if name not in known]
    if unknown:
        noun = "Column" if len(unknown) == 1 else "Columns"
        raise ValueError(
            f"{noun} not in the dataset: {', '.join(unknown)}. "
            f"Its columns are: {', '.join(known)}."
        )


def dataset(path, columns=None):
    """A Parquet dataset as a lazy Dask DataFrame: nothing is read but the metadata.

    Parameters
    ----------
    path : str or os.PathLike
        A Parquet file or directory, local or at any URL fsspec reads.
    columns : str or sequence of str, optional
        The columns to keep; all of them by default.

    Returns
    -------
    dask.dataframe.DataFrame

    Raises
    ------
    TypeError
        If ``path`` is not a string or ``columns`` not a list of names.
    ValueError
        If nothing exists at ``path``, or a column is not in the dataset.

    References
    ----------
    Dask's ``dask.dataframe.read_parquet``.

    Examples
    --------
    >>> from dppack.dask.dataset import dataset, dataset_schema
    >>> import os, tempfile, pandas as pd
    >>> path = os.path.join(tempfile.mkdtemp(), "people.parquet")
    >>> pd.DataFrame({"age": [31.0, 45.0, 52.0], "income": [1.0, 2.5, 4.0]}).to_parquet(path)
    >>> dataset_schema(dataset(path, columns=["income"]))
    {'columns': ['income'], 'dtypes': ['float64'], 'npartitions': 1}
    """
    path = _path_text(path)
    names = None if columns is None else _names(columns)
    from fsspec.core import url_to_fs

    filesystem, located = url_to_fs(path)
    if not filesystem.exists(located):
        raise ValueError(f"No Parquet dataset at {path}: the path does not exist.")
    import dask.dataframe as dd

    frame = dd.read_parquet(path)
    if names is None:
        return frame
    _check_known(frame, names)
    return frame[names]


def dataset_schema(frame):
    """What R shows of a dataset, from the metadata: column names, dtypes, partitions.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame

    Returns
    -------
    dict
        ``columns`` and ``dtypes`` (lists of str) and ``npartitions`` (int).

    References
    ----------
    Dask's ``dask.dataframe.DataFrame``.

    Examples
    --------
    >>> from dppack.dask.dataset import dataset_schema
    >>> import pandas as pd, dask.dataframe as dd
    >>> frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4, 5, 6]})
    >>> dataset_schema(dd.from_pandas(frame, npartitions=2))
    {'columns': ['a', 'b'], 'dtypes': ['float64', 'int64'], 'npartitions': 2}
    """
    return {
        "columns": [str(name) for name in frame.columns],
        "dtypes": [str(dtype) for dtype in frame.dtypes],
        "npartitions": int(frame.npartitions),
    }


def dataset_select(frame, columns):
    """One column of a Dask DataFrame as a lazy Series (a name), or several as a DataFrame (a list
    of names, in that order), as pandas' ``frame[key]``.

    Parameters
    ----------
    frame : dask.dataframe.DataFrame
    columns : str or sequence of str

    Returns
    -------
    dask.dataframe.Series or dask.dataframe.DataFrame

    Raises
    ------
    TypeError
        If ``columns`` is not a name or a list of names.
    ValueError
        If it is empty, repeats a name, or names a column not in ``frame``.

    References
    ----------
    Dask's ``dask.dataframe.DataFrame`` (selection by column).

    Examples
    --------
    >>> from dppack.dask.dataset import dataset_schema, dataset_select
    >>> import pandas as pd, dask.dataframe as dd
    >>> frame = dd.from_pandas(pd.DataFrame({"a": [1.0], "b": [2.0], "c": [3.0]}), npartitions=1)
    >>> dataset_select(frame, "b").name
    'b'
    >>> dataset_schema(dataset_select(frame, ["c", "a"]))["columns"]
    ['c', 'a']
    """
    names = _names(columns)
    _check_known(frame, names)
    return frame[columns] if isinstance(columns, str) else frame[names]
