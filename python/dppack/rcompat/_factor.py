"""R's ``factor()`` and ``table()``: levels, codes and the counts of the cells (R 4.2.2)."""

import math

import numpy as np

from .. import _frames


# --------------------------------------------------------------------------------------------
# factor() and table()


def _missing_mask(array):
    kind = array.dtype.kind
    if kind in "fc":
        return np.isnan(array)
    if kind in "mM":
        return np.isnat(array)
    if kind == "O":
        import pandas as pd  # a dependency of dppack; only object arrays need it

        return np.asarray(pd.isna(array), dtype=bool)
    return None


def has_declared_levels(x):
    """Whether ``x`` declares its levels (a pandas Categorical, polars Enum or pyarrow dictionary
    array), observed or not, as R's factor levels; other data have only their observed values.

    Parameters
    ----------
    x : object
        A factor, as :func:`factorize` takes it.

    Returns
    -------
    bool

    References
    ----------
    R Core Team, ``help(factor)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._factor import has_declared_levels
    >>> import pandas as pd
    >>> has_declared_levels(pd.Categorical(["a"], categories=["a", "b"]))
    True
    >>> has_declared_levels(["a"])
    False
    """
    return _frames.declares_levels(x)


def factorize(x):
    """Codes and levels of ``x`` with R's ``factor()`` level set.

    Declared levels (:func:`has_declared_levels`) are kept in their order; other data get their
    sorted distinct values (strings in code-point order: pass a Categorical for another order).
    Floats equal to 15 significant digits are one level, as in R.

    Parameters
    ----------
    x : array_like, pandas.Series or pandas.Categorical, polars or pyarrow series
        One-dimensional.

    Returns
    -------
    codes : ndarray of int64
        For each element, the 0-based index of its level.
    levels : list
        The levels, as Python scalars.

    Raises
    ------
    ValueError
        For missing values (R's ``table`` drops them; refused so that the total is the data
        size), or data that are not one-dimensional.
    TypeError
        For values that cannot be ordered (strings mixed with numbers).

    References
    ----------
    R Core Team, ``help(factor)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._factor import factorize
    >>> codes, levels = factorize(["b", "a", "b"])
    >>> codes.tolist(), levels
    ([1, 0, 1], ['a', 'b'])
    >>> import pandas as pd
    >>> factorize(pd.Categorical(["b"], categories=["a", "b", "c"]))[1]  # declared levels
    ['a', 'b', 'c']
    >>> factorize([0.1 + 0.2, 0.3, 1.0])[1]  # equal to 15 digits: one level, as in R
    [0.3, 1.0]
    """
    x = _frames.as_factor(x)
    if has_declared_levels(x):
        import pandas as pd

        categorical = pd.Categorical(x)
        codes = np.asarray(categorical.codes, dtype=np.int64)
        if np.any(codes < 0):
            raise ValueError(MISSING_FACTOR)
        return codes, categorical.categories.tolist()

    array = _frames.to_numpy(x)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise ValueError("A factor must be one-dimensional.")
    missing = _missing_mask(array)
    if missing is not None and np.any(missing):
        raise ValueError(MISSING_FACTOR)
    try:
        levels, codes = np.unique(array, return_inverse=True)
    except TypeError:
        raise TypeError(
            "Cannot order the values of a factor of mixed types; convert them to one type "
            "or pass a pandas.Categorical with explicit categories."
        ) from None
    codes = codes.reshape(-1).astype(np.int64, copy=False)
    if levels.dtype.kind == "f":
        levels, codes = _merge_alike_numbers(levels, codes)
    return codes, levels.tolist()


def _merge_alike_numbers(levels, codes):
    """Merge sorted float levels that R's ``as.character()`` (15 digits) prints alike."""
    if levels.size < 2:
        return levels, codes
    left, right = levels[:-1], levels[1:]
    with np.errstate(invalid="ignore"):
        close = np.abs(right - left) <= 1e-14 * np.maximum(np.abs(left), np.abs(right))
    candidates = np.flatnonzero(close)
    if candidates.size == 0:
        return levels, codes
    same = np.zeros(levels.size - 1, dtype=bool)
    same[candidates] = [f"{levels[i]:.15g}" == f"{levels[i + 1]:.15g}" for i in candidates]
    group = np.concatenate(([0], np.cumsum(~same)))
    first = np.flatnonzero(np.concatenate(([True], ~same)))
    return levels[first], group[codes]


MISSING_FACTOR = (
    "Factors must not contain missing values (None, NaN, NA): DPpackPy refuses them in "
    "tables instead of dropping them as R's table() does."
)


def table(*factors):
    """R's ``table(...)``: counts of every combination of the levels of one or more factors.

    Parameters
    ----------
    *factors : array_like, pandas.Series or pandas.Categorical, polars or pyarrow series
        One or more factors of equal length; levels as R's ``factor()`` gives them (declared
        levels in their order, else the sorted distinct values).

    Returns
    -------
    counts : ndarray of int64
        Shape (L1, ..., Lk), indexed like R's table array; unobserved combinations are 0.
    levels : list of lists
        The levels of each factor, R's ``dimnames``.

    Raises
    ------
    ValueError
        R's "nothing to tabulate" and "all arguments must have the same length"; missing values
        (R drops them; refused so that the total is the data size).
    TypeError
        For values that cannot be ordered (strings mixed with numbers).

    References
    ----------
    R Core Team, ``help(table)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat import table
    >>> counts, levels = table(["a", "b", "a"], [1, 1, 2])
    >>> counts.tolist(), levels
    ([[1, 1], [1, 0]], [['a', 'b'], [1, 2]])
    """
    coded = _code_factors(factors)
    return tally([codes for codes, _ in coded], [levels for _, levels in coded])


def tally(codes, levels, weights=None, observed=False):
    """:func:`table` (or, ``observed``, :func:`observed_cells`) of coded factors, each row
    standing for ``weights`` rows if given.

    Examples
    --------
    >>> import numpy as np
    >>> counts, levels = tally([np.array([0, 1])], [["a", "b"]], weights=np.array([3, 1]))
    >>> counts.tolist(), levels
    ([3, 1], [['a', 'b']])
    """
    shape = tuple(len(level) for level in levels)
    if observed:
        return _observed(codes, levels, shape, weights)
    cells = math.prod(shape)
    if codes[0].size == 0 or cells == 0:
        return np.zeros(shape, dtype=np.int64), levels
    flat = np.ravel_multi_index(tuple(codes), shape)
    counts = np.bincount(flat, weights=weights, minlength=cells).astype(np.int64, copy=False)
    return counts.reshape(shape), levels


def _code_factors(factors):
    """:func:`factorize` of every factor, after R's checks of ``table()``'s arguments."""
    if not factors:
        raise ValueError("nothing to tabulate")
    coded = [factorize(f) for f in factors]
    size = coded[0][0].size
    if any(codes.size != size for codes, _ in coded):
        raise ValueError("all arguments must have the same length")
    return coded


def observed_cells(*factors):
    """The observed cells of the contingency table of the factors, and their counts.

    Unlike :func:`table`, only the combinations that occur in the data, in R's column-major
    order (first factor fastest), so that each noise draw lands on the same cell in R and Python.

    Parameters
    ----------
    *factors : array_like, pandas.Series or pandas.Categorical, polars or pyarrow series
        One or more factors of equal length; levels as in :func:`factorize`.

    Returns
    -------
    cells : tuple of ndarray of int64
        One array of level indices per factor, of length m (the observed combinations).
    counts : ndarray of int64
        The number of rows in each cell, all >= 1.
    levels : list of lists
        The levels of each factor.

    Raises
    ------
    ValueError
        As :func:`table`.

    References
    ----------
    R Core Team, ``help(table)``, R 4.2.2.

    Examples
    --------
    >>> from dppack.rcompat._factor import observed_cells
    >>> cells, counts, levels = observed_cells(["a", "b", "a"], [1, 1, 2])
    >>> [c.tolist() for c in cells], counts.tolist()
    ([[0, 1, 0], [0, 0, 1]], [1, 1, 1])
    """
    coded = _code_factors(factors)
    return tally([codes for codes, _ in coded], [levels for _, levels in coded], observed=True)


def _observed(codes, levels, shape, weights):
    """:func:`observed_cells` of coded factors, each row standing for ``weights`` rows."""
    if codes[0].size == 0:
        empty = np.zeros(0, dtype=np.int64)
        return tuple(empty for _ in codes), empty, levels
    if math.prod(shape) < 2**62:
        # One int64 key per row, in column-major order (first factor fastest), as R's table.
        keys = np.ravel_multi_index(tuple(codes), shape, order="F")
        keys, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
        cells = np.unravel_index(keys, shape, order="F")
    else:
        # Too many combinations for one int64 key: sort the rows, last factor slowest.
        rows, inverse, counts = np.unique(np.column_stack(codes[::-1]), axis=0,
                                          return_inverse=True, return_counts=True)
        cells = tuple(rows[:, ::-1].T)
    if weights is not None:  # rows that stand for several (merged float levels add up)
        counts = np.bincount(inverse.reshape(-1), weights=weights, minlength=counts.size)
    cells = tuple(np.asarray(c, dtype=np.int64) for c in cells)
    return cells, counts.astype(np.int64, copy=False), levels
