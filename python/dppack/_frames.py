"""The one conversion layer for data: NumPy, pandas, polars, pyarrow and Python sequences become
NumPy arrays here and nowhere else.

Dask collections are never converted: the core reaches them through their backend
(:func:`dppack._backends.backend_for`). polars and pyarrow go through narwhals and are
recognised by their module, so nothing is imported that the caller has not used. Nulls in a
numeric polars or pyarrow column become NaN (refused as not finite); Boolean, string,
temporal and categorical columns are not numeric (as R's ``is.numeric``); a polars
``LazyFrame`` is refused. A pandas ``Categorical``, a polars ``Enum`` and a pyarrow
dictionary array declare their levels; a polars ``Categorical`` does not (its categories are
a shared string pool), so its levels are its observed values.
"""

import numpy as np

from . import _backends, _messages

__all__ = [
    "as_factor",
    "as_numeric_array",
    "column_names",
    "declares_levels",
    "element",
    "factor_columns",
    "is_named_frame",
    "is_pandas",
    "is_polars",
    "is_pyarrow",
    "series_name",
    "shape",
    "take_rows",
    "to_numpy",
]

LAZY_MESSAGE = (
    "A LazyFrame is a query, not data: collect it first (lazy_frame.collect()). "
    "For data beyond memory, use Dask (see dppack.dask)."
)


def _top_module(value):
    """The top-level package that defines ``type(value)`` ("numpy", "pandas", "dask", ...)."""
    return type(value).__module__.partition(".")[0]


def is_pandas(value):
    """True for a pandas object, without importing pandas."""
    return _top_module(value) == "pandas"


def is_polars(value):
    """True for a polars object, without importing polars."""
    return _top_module(value) == "polars"


def is_named_frame(value):
    """True for a pandas, polars or Dask object (named Series, frames with ``columns``)."""
    return _top_module(value) in ("pandas", "polars", "dask")


def is_pyarrow(value):
    """True for a pyarrow object, without importing pyarrow."""
    return _top_module(value) == "pyarrow"


def _narwhals(value):
    """A polars, pyarrow or narwhals value as a narwhals DataFrame or Series, else None."""
    library = _top_module(value)
    if library in ("polars", "narwhals") and type(value).__name__ == "LazyFrame":
        raise TypeError(LAZY_MESSAGE)
    if library == "pyarrow":
        import pyarrow as pa  # the caller's value is already a pyarrow object

        if isinstance(value, pa.Array):
            value = pa.chunked_array([value], type=value.type)
        elif isinstance(value, pa.RecordBatch):
            value = pa.Table.from_batches([value])
    elif library not in ("polars", "narwhals"):  # narwhals' own objects pass through
        return None
    import narwhals as nw  # lazily: importing dppack must stay fast

    try:
        return nw.from_native(value, allow_series=True, eager_only=True)
    except TypeError:  # a kind narwhals does not take (a pyarrow Scalar, a Dataset, ...)
        return None


def _is_series(frame):
    return not hasattr(frame, "columns")


def series_dtype(value):
    """The narwhals dtype of a polars or pyarrow Series, None for anything else."""
    frame = _narwhals(value)
    return frame.dtype if frame is not None and _is_series(frame) else None


def _numeric_dtypes(frame):
    """The narwhals dtypes of a Series, or of each column of a DataFrame."""
    return [frame.dtype] if _is_series(frame) else list(frame.schema.values())


def _frame_to_numpy(frame, numeric):
    """A narwhals frame or Series as an ndarray; with ``numeric``, None unless all numeric."""
    import narwhals as nw

    if numeric:
        dtypes = _numeric_dtypes(frame)
        if not all(dtype.is_numeric() for dtype in dtypes):
            return None
        if any(dtype == nw.Decimal for dtype in dtypes):
            frame = (frame.cast(nw.Float64) if _is_series(frame)
                     else frame.select(nw.all().cast(nw.Float64)))
    array = frame.to_numpy()
    if numeric and array.dtype.kind == "O":  # numbers with nulls read as objects: None -> NaN
        array = array.astype(np.float64)
    return array


def to_numpy(value):
    """The values of ``value`` as an ndarray, unchecked (TypeError for a polars LazyFrame).

    Examples
    --------
    >>> to_numpy([1, 2]).tolist()
    [1, 2]
    """
    if is_pandas(value):
        return np.asarray(value.to_numpy())
    frame = _narwhals(value)
    if frame is not None:
        return _frame_to_numpy(frame, numeric=False)
    return np.asarray(value)


def as_numeric_array(value, message):
    """``value`` (numbers, sequences, NumPy, pandas, polars or pyarrow data of real numbers) as a
    float ndarray, else ``ValueError(message)``; Booleans, strings, dates and categories are
    refused as R's ``is.numeric`` refuses them. The caller's object is never modified.
    TypeError for Dask data no Dask path took, and for a polars LazyFrame.

    Examples
    --------
    >>> as_numeric_array([1, 2], "x must be numeric.").tolist()
    [1.0, 2.0]
    >>> as_numeric_array([True], "x must be numeric.")
    Traceback (most recent call last):
    ...
    ValueError: x must be numeric.
    """
    if value is None or isinstance(value, (str, bytes, bool, np.bool_)):
        raise _messages.value_error(message)
    _backends.refuse_dask("This function", value)
    frame = None if is_pandas(value) else _narwhals(value)
    try:
        if frame is not None:
            array = _frame_to_numpy(frame, numeric=True)
            if array is None:
                raise _messages.value_error(message)
        else:
            array = np.asarray(value.to_numpy() if is_pandas(value) else value)
    except (TypeError, ValueError):
        raise _messages.value_error(message) from None
    if array.dtype.kind not in "iuf":
        raise _messages.value_error(message)
    return array.astype(np.float64, copy=False)


def shape(value):
    """The shape of ``value`` without converting it.

    Examples
    --------
    >>> shape([[1, 2], [3, 4], [5, 6]])
    (3, 2)
    """
    if is_pandas(value):
        return tuple(value.shape)
    frame = _narwhals(value)
    if frame is not None:
        return tuple(frame.shape)
    return np.shape(value)


def column_names(X):
    """The column names of a pandas, polars or pyarrow data frame (as str), else None.

    Examples
    --------
    >>> import pandas as pd
    >>> column_names(pd.DataFrame({"age": [1.0], "bmi": [2.0]}))
    ['age', 'bmi']
    >>> column_names([[1.0, 2.0]]) is None
    True
    """
    if is_pandas(X):
        columns = getattr(X, "columns", None)
    else:
        frame = _narwhals(X)
        columns = None if frame is None or _is_series(frame) else frame.columns
    return None if columns is None else [str(c) for c in columns]


def take_rows(data, rows):
    """The given rows of an array, a data frame or a sequence, keeping its kind.

    Parameters
    ----------
    data : ndarray, pandas, polars or pyarrow object, or sequence
    rows : ndarray of int
        0-based row positions.

    Returns
    -------
    ndarray or data frame
        A pandas (by ``iloc``), polars or pyarrow object for such input, else an ndarray.

    Raises
    ------
    IndexError
        For a row out of range.

    Examples
    --------
    >>> from dppack._frames import take_rows
    >>> import numpy as np
    >>> take_rows([[1, 2], [3, 4], [5, 6]], np.array([0, 2]))
    array([[1, 2],
           [5, 6]])
    """
    if is_pandas(data):
        return data.iloc[rows]
    if isinstance(data, np.ndarray):
        return data[rows]
    frame = _narwhals(data)
    if frame is not None:
        rows = np.asarray(rows)
        if rows.size and (rows.min() < -frame.shape[0] or rows.max() >= frame.shape[0]):
            raise IndexError(f"row {int(rows.max())} out of range for {frame.shape[0]} rows")
        return frame[rows].to_native() if _is_series(frame) else frame[rows, :].to_native()
    return np.asarray(data)[rows]


def element(values, index):
    """The element at position ``index`` of a sequence, array or series (a pyarrow scalar as a
    Python value).

    Examples
    --------
    >>> element(["a", "b"], 1)
    'b'
    """
    if is_pandas(values):
        return values.iloc[index]
    if is_pyarrow(values):
        return values[index].as_py()
    return values[index]


def series_name(value):
    """The name of a pandas or polars Series; None if unnamed ("" in polars) or not a Series.

    Examples
    --------
    >>> import pandas as pd
    >>> series_name(pd.Series([1], name="sex")), series_name([1])
    ('sex', None)
    """
    if is_pandas(value):
        return getattr(value, "name", None)
    if is_polars(value) and type(value).__name__ == "Series":
        return value.name or None
    return None


def factor_columns(factors):
    """The factors of ``table(...)``: the columns of one data frame (R's ``table(df)``, each column
    a named factor), else the factors as given; R's "nothing to tabulate" for no columns.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": pd.Categorical(["x"]), "b": pd.Categorical(["u"])})
    >>> [column.name for column in factor_columns([df])]
    ['a', 'b']
    >>> factor_columns([[1, 2], [3, 4]])
    [[1, 2], [3, 4]]
    """
    factors = list(factors)
    if len(factors) != 1:
        return factors
    frame = factors[0]
    kind = type(frame).__name__
    if is_pandas(frame) and kind == "DataFrame":
        columns = [frame.iloc[:, j] for j in range(frame.shape[1])]
    elif is_polars(frame) and kind == "DataFrame":
        columns = list(frame.get_columns())
    elif is_pyarrow(frame) and kind in ("Table", "RecordBatch"):
        columns = list(frame.columns)
    else:
        return factors
    if not columns:
        raise ValueError("nothing to tabulate")  # R's table() of no factor
    return columns


def declares_levels(x):
    """Whether in-memory factor ``x`` declares its levels (a pandas Categorical, polars Enum or
    pyarrow dictionary array), without reading it.

    Examples
    --------
    >>> import pandas as pd
    >>> declares_levels(pd.Categorical(["a"], categories=["a", "b"])), declares_levels(["a"])
    (True, False)
    """
    if is_pandas(x):
        return str(getattr(x, "dtype", "")) == "category"
    if is_polars(x):
        return type(getattr(x, "dtype", None)).__name__ == "Enum"
    if is_pyarrow(x):
        return type(getattr(x, "type", None)).__name__ == "DictionaryType"
    return False


def as_factor(x):
    """Factor ``x`` as :func:`dppack.rcompat._factor.factorize` reads it: declared levels as a pandas
    ``Categorical`` (missing as code -1), other polars or pyarrow data as an ndarray, anything
    else unchanged.

    Examples
    --------
    >>> as_factor(["a", "b"])
    ['a', 'b']
    """
    if is_pandas(x):
        return x
    frame = _narwhals(x)
    if frame is None:
        return x
    if declares_levels(x):
        import pandas as pd  # a dependency of dppack

        if is_polars(x):
            codes = x.to_physical().to_numpy()  # nulls read as NaN: code -1
            codes = np.where(np.isnan(codes), -1, codes) if codes.dtype.kind == "f" else codes
            return pd.Categorical.from_codes(codes.astype(np.int64),
                                             categories=list(x.dtype.categories))
        return pd.Categorical(frame.to_native().to_pandas())  # chunks' dictionaries unified
    import narwhals as nw

    if not _is_series(frame):
        return _frame_to_numpy(frame, numeric=False)
    if frame.dtype == nw.Categorical:  # undeclared levels: the observed strings
        frame = frame.cast(nw.String)
    return _frame_to_numpy(frame, numeric=False)
