"""The one conversion layer for data: where NumPy, pandas, polars, pyarrow and Dask inputs
become what the core computes on.

In-memory inputs (NumPy, pandas, polars, pyarrow, Python sequences) become NumPy arrays here
and nowhere else. Dask collections are never converted: the core reaches them through their
backend (:func:`dppack._backends.backend_for`), which computes each release from mergeable
sufficient statistics; a function that cannot run on Dask refuses them
(:func:`dppack._backends.refuse_dask`). polars, pyarrow and Dask are optional: each is
recognised by the module its type comes from, so nothing here imports a library the caller
has not already used.

* kinds: :func:`is_pandas`, :func:`is_polars`, :func:`is_pyarrow`, :func:`is_named_frame`;
* numbers: :func:`as_numeric_array` (the numeric check of every data argument),
  :func:`to_numpy` (any values, unchecked), :func:`shape`;
* frames: :func:`column_names`, :func:`take_rows`, :func:`element`, :func:`series_name`;
* factors: :func:`declares_levels`, :func:`as_factor`;
* Dask blocks and dtypes: ``dppack.dask.frames``.

The polars and pyarrow side goes through narwhals (``narwhals.from_native``), one API over
both. A pyarrow ``Array`` becomes a one-chunk ``ChunkedArray`` and a ``RecordBatch`` a
one-batch ``Table`` first (narwhals takes the chunked kinds). Nulls in a numeric polars or
pyarrow column become NaN, so they meet the same "must be finite (no NA, NaN or Inf)" check
as NaN in NumPy; Boolean, string, temporal, categorical and nested columns are not numeric
(R's ``is.numeric`` refuses logicals and characters too). A polars ``LazyFrame`` is refused
with the advice to ``.collect()`` it: the in-memory functions compute in memory.

Factors (``tableDP``, ``tableDataAccess``): a pandas ``Categorical`` (or categorical Series),
a polars ``Enum`` and a pyarrow dictionary array declare their levels (the categories, the
enum's categories, the dictionary: used or not, in their order). A polars ``Categorical``
does not: its categories are a string pool shared between columns (and, in polars, across a
session), not this column's level set, so its levels are its observed values, sorted as
strings are, as for any other data.
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
    """True for a pandas object (DataFrame, Series, Index, Categorical), without importing
    pandas."""
    return _top_module(value) == "pandas"


def is_polars(value):
    """True for a polars object (DataFrame, Series, LazyFrame), without importing polars."""
    return _top_module(value) == "polars"


def is_named_frame(value):
    """True for a pandas, polars or Dask object: their Series carry a ``name`` and their
    DataFrames ``columns`` (read without a pass)."""
    return _top_module(value) in ("pandas", "polars", "dask")


def is_pyarrow(value):
    """True for a pyarrow object (Table, RecordBatch, Array, ChunkedArray), without
    importing pyarrow."""
    return _top_module(value) == "pyarrow"


def _narwhals(value):
    """A polars, pyarrow or narwhals value as a narwhals DataFrame or Series, or None if it
    is none of them (or a kind narwhals does not take). A LazyFrame is refused
    (:data:`LAZY_MESSAGE`)."""
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
    """The narwhals dtype of a polars or pyarrow Series (or array), None for anything else
    (data frames, NumPy, pandas): what a label's type says without reading its values."""
    frame = _narwhals(value)
    return frame.dtype if frame is not None and _is_series(frame) else None


def _numeric_dtypes(frame):
    """The narwhals dtypes of a Series, or of each column of a DataFrame."""
    return [frame.dtype] if _is_series(frame) else list(frame.schema.values())


def _frame_to_numpy(frame, numeric):
    """A narwhals DataFrame or Series as an ndarray; with ``numeric``, None unless every
    column is numeric (Decimal columns are read as Float64; nulls become NaN)."""
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
    """The values of ``value`` as an ndarray, unchecked (strings stay strings, nulls of
    polars/pyarrow become None or NaN as those libraries read them).

    Parameters
    ----------
    value : array_like, pandas, polars or pyarrow object

    Returns
    -------
    ndarray

    Raises
    ------
    TypeError
        For a polars LazyFrame (:data:`LAZY_MESSAGE`); numpy's errors for what it cannot
        read.

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
    """Return ``value`` as a float ndarray, or raise ``ValueError(message)``.

    Accepts Python numbers, sequences, numpy arrays, pandas objects and polars or pyarrow
    data frames, series and arrays whose values are real numbers. Booleans, strings, complex
    numbers, dates, categories and objects are rejected, as R's ``is.numeric`` rejects them;
    nulls of polars and pyarrow become NaN (refused later as not finite). The caller's object
    is never modified: the result is a new array whenever a conversion happens, and callers
    only read it.

    Parameters
    ----------
    value : array_like, pandas, polars or pyarrow object
    message : str
        The ``ValueError`` text for data that are not numeric.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        ``message``.
    TypeError
        For Dask data that no Dask path took (the backend's refusal: never computed), and
        for a polars LazyFrame (:data:`LAZY_MESSAGE`).

    References
    ----------
    DPpack 0.2.2 (the data checks); NumPy, pandas, polars, pyarrow and Dask inputs alike.

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
    """The shape of ``value`` without converting it (numpy's ``shape`` for anything else).

    Parameters
    ----------
    value : array_like, pandas, polars or pyarrow object

    Returns
    -------
    tuple of int

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

    Parameters
    ----------
    X : object

    Returns
    -------
    list of str or None

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
        A pandas (by position, ``iloc``), polars or pyarrow object for such input (a pyarrow
        Array comes back chunked, a RecordBatch as a Table), else an ndarray.

    Raises
    ------
    IndexError
        For a row out of range.

    References
    ----------
    DPpack 0.2.2 ("X rows selected keeping it a data.frame").

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
    """The element at position ``index`` of a sequence, array, pandas, polars or pyarrow
    series, as that library gives it (a pyarrow scalar as a Python value).

    Parameters
    ----------
    values : sequence, ndarray, pandas, polars or pyarrow series
    index : int

    Returns
    -------
    object

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
    """The name of a pandas or polars Series (None for an unnamed one or anything else).

    Parameters
    ----------
    value : object

    Returns
    -------
    hashable or None
        A polars Series' empty default name "" counts as no name.

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
    """The factors of ``table(...)``: the columns of one data frame (R's ``table(df)``, each
    column a factor, in order, with its name), else the factors as given.

    A pandas DataFrame whose columns are Categoricals is thus a table of declared levels, as
    the same columns passed one by one (and as a Dask DataFrame): the categories are declared
    by the user's dtype, not read from the data.

    Parameters
    ----------
    factors : sequence
        The positional arguments of ``tableDP`` or ``tableDataAccess``.

    Returns
    -------
    list
        One entry per factor: a pandas DataFrame gives its columns (Series, named), a polars
        DataFrame its Series, a pyarrow Table or RecordBatch its columns.

    Raises
    ------
    ValueError
        "nothing to tabulate" (R's text) for a data frame without columns.

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
    """Whether in-memory factor ``x`` declares its levels (module docstring): a pandas
    Categorical or categorical Series, a polars Enum, or a pyarrow dictionary array; not read
    (Dask factors: their backend's ``table_factors``).

    Parameters
    ----------
    x : object

    Returns
    -------
    bool

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
    """Factor ``x`` in the forms :func:`dppack.rcompat.factorize` reads: a factor that
    declares its levels (:func:`declares_levels`) as a pandas ``Categorical`` with those
    levels (missing values as code -1), any other polars or pyarrow data as an ndarray of
    its values; anything else unchanged.

    Parameters
    ----------
    x : array_like, pandas, polars or pyarrow object

    Returns
    -------
    pandas.Categorical, ndarray or ``x``

    Raises
    ------
    TypeError
        For a polars LazyFrame.

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
