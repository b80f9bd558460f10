"""Data preparation for the ERM models and methods: the one home of the design matrix.

Every private ERM in the package reads its data through this module, in one direction:
argument checks, then the data prepared here, then the loss and the solver, then the
mechanism. What is prepared, and why each privacy proof needs it:

* **Bounds per column** (:class:`ColumnBounds`): public bounds L_j < U_j, never computed from
  the data, checked once with DPpack's length messages and ours (numeric, finite, lower < upper).
  Their scale s_j = max(|L_j|, |U_j|) bounds |x_j| after clipping.
* **Clipping** (:meth:`ColumnBounds.clip`): every row inside the box, so that a replaced record
  moves the loss's gradient by a bounded amount; the result is a new array (copy-on-clip), the
  caller's data are never written.
* **Scaling** (:func:`prepare_design`): column j divided by s_j sqrt(d) puts every row in the
  unit L2 ball, ||x||_2 <= 1, the Lipschitz and curvature condition of output and objective
  perturbation (Chaudhuri, Monteleoni and Sarwate 2011); divided by s_j d, every row
  is in the unit L1 ball, ||x||_1 <= 1 (so also ||x||_2 <= 1), the setting of accuracy-first
  ridge regression; divided by s_j alone, every entry is in [-1, 1],
  LinearRegressionDP's scaled problem. Unscaled, every row has
  ||x||_2 <= sqrt(sum_j s_j^2) (:attr:`ColumnBounds.max_row_norm`), the B the CMS framework
  calibrates to.
* **Labels** (:func:`as_labels`): one finite value per row; DPpack's 0/1 check for the
  classifiers; 0/1 mapped to -1/+1 for the margin losses l(y x'theta) (Wang, Kifer and Lee 2019,
  Ding et al.).
* **Weights** (:func:`prepare_weights`): nonnegative and clipped above at the public bound
  w_bar, so that a weighted loss has slope at most w_bar.
* **The bias column** (:func:`add_bias_column`): ones, first, with bounds (1, 1): it counts in
  the row-norm bound (s = 1) and is regularised.
* **Predict time**: the linear score X theta (+ bias) without copying X
  (:func:`linear_score`), its adjoint X'v (:func:`transpose_dot`), the column checks
  (:func:`predict_matrix`), and svmDP's random Fourier features (:func:`fourier_cosines`).
* **Rows for tuning**: counting, taking and splitting rows of any supported input
  (:func:`n_rows`, :func:`take_rows`, :func:`interleaved_split`, :func:`split_rows`), so that
  the parts a tuner fits on are disjoint (parallel composition).

Everything is vectorised over whole columns: no Python loop over rows.

Messages (module constants): DPpack's ``UPPER_LENGTH_MESSAGE`` and ``LOWER_LENGTH_MESSAGE``
(bounds of X), ``UPPER_TARGET_LENGTH_MESSAGE`` and ``LOWER_TARGET_LENGTH_MESSAGE`` (bounds
of X then y), ``WEIGHTS_BOUND_MESSAGE`` and ``WEIGHTS_NEGATIVE_MESSAGE``,
``BINARY_LABELS_MESSAGE``; ours: ``TARGET_BOUNDS_MESSAGE`` (the bound on y) and
``NOT_FITTED_MESSAGE`` (predict before fit).
"""

import math

import numpy as np

from .. import _checks, _frames, _messages
from .._columns import ColumnMatrix

__all__ = [
    "ColumnBounds",
    "add_bias_column",
    "apply_design",
    "as_design_matrix",
    "as_labels",
    "binary_codes",
    "check_finite_matrix",
    "check_fitted",
    "coefficient_names",
    "design_layout",
    "fitted_add_bias",
    "fourier_cosines",
    "fourier_features",
    "interleaved_split",
    "label_values",
    "linear_score",
    "n_rows",
    "predict_matrix",
    "prepare_design",
    "prepare_weights",
    "split_rows",
    "take_rows",
    "transpose_dot",
]

# DPpack 0.2.2's messages (its ERM classes' fit and predict)
UPPER_LENGTH_MESSAGE = "Length of upper.bounds must be equal to the number of columns of X."
LOWER_LENGTH_MESSAGE = "Length of lower.bounds must be equal to the number of columns of X."
UPPER_TARGET_LENGTH_MESSAGE = ("Length of upper.bounds must be equal to the number of columns "
                               "of X plus 1 (for y).")
LOWER_TARGET_LENGTH_MESSAGE = ("Length of lower.bounds must be equal to the number of columns "
                               "of X plus 1 (for y).")
WEIGHTS_BOUND_MESSAGE = "Upper bound on weights must be given if weights vector given."
WEIGHTS_NEGATIVE_MESSAGE = "Weights must be nonnegative."
BINARY_LABELS_MESSAGE = "y must be a numeric vector of binary labels 0 and 1."
# ours
TARGET_BOUNDS_MESSAGE = ("The bounds on y (the last values of lower.bounds and upper.bounds) "
                         "must be finite with lower < upper.")
NOT_FITTED_MESSAGE = "The model must be fitted before predict: call fit() first."
LABEL_COUNT_MESSAGE = "y must have one value per row of X: X has {n} rows, y has {size} values."
FINITE_MESSAGE = "{name} must be finite (no NA, NaN or Inf)."
EMPTY_MESSAGE = "{name} must have at least one row and one column."
LABEL_FINITE_MESSAGE = FINITE_MESSAGE.format(name="y")
WEIGHTS_NAN_MESSAGE = "weights must not contain NA or NaN."
WEIGHTS_INFINITE_MESSAGE = "weights must be finite (weights above the bound are clipped to it)."
WEIGHTS_COUNT_MESSAGE = ("weights must have one value per row of X: X has {n} rows, weights has "
                         "{size} values.")

SCALINGS = ("l2", "l1", "max")
LABELS = ("real", "binary", "signed")
CATEGORY_COUNT_MESSAGE = (
    "y is a categorical with {k} declared categories; a binary model needs exactly two (the "
    "public label set: the first is 0, the second the positive class 1)."
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
    """Public bounds L_j < U_j of the columns of a design, with their scale s_j.

    Created once from the user's vectors (:meth:`from_arguments` adds DPpack's length checks),
    then used for every step that needs them: clipping (:meth:`clip`), the bias column
    (:meth:`with_bias`), the divisors that put rows into a ball (:meth:`divisors`) and the
    row-norm bound (:attr:`max_row_norm`). The vectors are copies, read-only.

    Parameters
    ----------
    lower, upper : array_like
        One finite bound per column, lower < upper in every column.

    Attributes
    ----------
    lower, upper : ndarray
        The bounds (the bias column, if added by :meth:`with_bias`, has 1 and 1).
    scale : ndarray
        s_j = max(|L_j|, |U_j|): |x_j| <= s_j for every clipped value.
    size : int
        The number of columns.
    max_row_norm : float
        sqrt(sum_j s_j^2), the largest L2 norm a clipped row can have.

    Raises
    ------
    ValueError
        Non-numeric or non-finite bounds ("upper.bounds must be finite."), vectors of
        different lengths, or lower >= upper in some column ("lower.bounds must be <
        upper.bounds in every column (not in column j).", j 1-based).

    References
    ----------
    DPpack 0.2.2 (clipping to the bounds; s_j and the scaling);
    Wang, Kifer and Lee 2019 (public bounds, not data-dependent maxima).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import ColumnBounds
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
        """The bounds of a fit's ``upper.bounds`` and ``lower.bounds``, DPpack's checks first.

        Parameters
        ----------
        upper_bounds, lower_bounds : array_like
            The user's vectors: one bound per column of X, and with ``target`` one more, last,
            for y.
        p : int
            The number of columns of X (without a bias column).
        target : bool, default False
            The KST layout: p + 1 values, the last bounds y.

        Returns
        -------
        ColumnBounds
            p (or p + 1) columns; with ``target`` the last one is y's.

        Raises
        ------
        ValueError
            DPpack's length message (upper first: ``UPPER_LENGTH_MESSAGE``, or
            ``UPPER_TARGET_LENGTH_MESSAGE`` with ``target``), then ours: numeric, finite,
            lower < upper (for y: ``TARGET_BOUNDS_MESSAGE``).

        References
        ----------
        DPpack 0.2.2 (the length checks and messages).

        Examples
        --------
        >>> from dppack.erm.design import ColumnBounds
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
        """X clipped to the bounds, in a new C-ordered n x (size + add_bias) array (X is not
        written).

        With ``add_bias`` the new array has the bias column of ones first; with ``divisors``
        (size + add_bias values) every column of it is divided by its divisor. ``X`` is an
        array or a :class:`dppack._columns.ColumnMatrix` (an R data.frame's columns). The
        new array is filled by blocks of :data:`ASSEMBLY_ROWS` rows, each clipped (column by
        column when X's columns are contiguous) and scaled while it is in the cache: one
        pass over memory, with the values of clipping and scaling the whole array.

        With ``finite`` (the argument's name, "X"), X is also checked to be finite in that
        same pass, each block of X's values before it is clipped
        (``_checks.block_is_finite``), and :func:`check_finite_matrix`'s error is raised at
        the first block that is not: the check costs no second pass over X
        (:func:`prepare_design`).
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
        """:meth:`clip` of an array X stored by rows into ``out``, by blocks of
        :data:`TILED_ROWS` rows against the bounds (and divisors) repeated over a block: the
        ufuncs then run one contiguous loop rather than a loop of k values per row (3x faster
        than np.clip with broadcast bounds; the same values: np.clip is min(max(x, lo), up))."""
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
        """Per-column divisors that put every clipped row into a unit ball.

        ``"l2"``: s_j sqrt(d), so ||x||_2 <= 1; ``"l1"``: s_j d, so ||x||_1 <= 1; ``"max"``:
        s_j, so every |x_j| <= 1 (d = :attr:`size`).
        """
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
    """The columns of X as contiguous 1-d arrays (a ColumnMatrix's, or those of a
    Fortran-ordered array: an R matrix), or None for another layout (read by rows)."""
    if isinstance(X, ColumnMatrix):
        return X.columns
    if X.flags.f_contiguous and not X.flags.c_contiguous:
        return [X[:, j] for j in range(X.shape[1])]
    return None


def as_design_matrix(X, name="X", columns=False):
    """``X`` as a 2-d float array (not yet checked for finiteness).

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame
        A matrix, list of lists or data frame; a 1-d vector becomes one column (R's
        ``as.matrix``).
    name : str, default "X"
        The argument's name in messages.
    columns : bool, default False
        Return a :class:`dppack._columns.ColumnMatrix` (an R data.frame's columns) as it is,
        not copied into a matrix: for :func:`prepare_design`, which reads it column by
        column.

    Returns
    -------
    ndarray or ColumnMatrix
        n x p float64; the caller's own memory when ``X`` is already a float64 array (it is
        only read).

    Raises
    ------
    ValueError
        Not numeric, more than 2 dimensions, or no row or no column.

    References
    ----------
    DPpack 0.2.2 (DPpack converts X with ``as.matrix``).

    Examples
    --------
    >>> from dppack.erm.design import as_design_matrix
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
    """Raise unless every entry is finite: one blockwise pass, no temporary copy.

    Parameters
    ----------
    array : ndarray or ColumnMatrix
        A float array (:func:`as_design_matrix`), or an R data.frame's columns (checked
        column by column).
    name : str, default "X"

    Returns
    -------
    ndarray or ColumnMatrix
        The same ``array``, now known to be finite.

    Raises
    ------
    ValueError
        "X must be finite (no NA, NaN or Inf)." (ours: DPpack does not check).

    References
    ----------
    DPpack 0.2.2 (inputs DPpack leaves unchecked are refused before any draw).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import check_finite_matrix
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


def as_labels(y, n, labels="real"):
    """``y`` as a finite float vector of n values, checked and mapped as ``labels`` says.

    Parameters
    ----------
    y : array_like
        1-d, n x 1, a Series or a one-column DataFrame.
    n : int
        The number of rows of X.
    labels : {'real', 'binary', 'signed'}, default 'real'
        ``'binary'``: DPpack's 0/1 check of the classifiers; ``'signed'``: the same check,
        then 0/1 mapped to -1/+1 (2y - 1), the labels of the margin losses. For both, bool
        y and a categorical with two declared categories are first coded 0/1
        (:func:`binary_codes`: the label set from y's type, never its values).

    Returns
    -------
    ndarray
        n float values (the caller's memory for ``'real'`` and ``'binary'`` when y is a
        float64 vector; only read).

    Raises
    ------
    ValueError
        Not numeric, not a vector, the wrong length, not finite, or (``'binary'``,
        ``'signed'``) a value other than 0 and 1 (``BINARY_LABELS_MESSAGE``), or a
        categorical that does not declare exactly two categories.

    References
    ----------
    DPpack 0.2.2 (0/1 labels; svmDP maps 0 to -1).

    Examples
    --------
    >>> from dppack.erm.design import as_labels
    >>> as_labels([0, 1, 1], 3, labels="signed")
    array([-1.,  1.,  1.])
    >>> as_labels([0, 2], 2, labels="binary")
    Traceback (most recent call last):
    ...
    ValueError: y must be a numeric vector of binary labels 0 and 1.
    """
    return label_values(_checked_labels(y, n, labels), labels)


def _checked_labels(y, n, labels):
    """:func:`as_labels`'s checks; y as a float vector, not yet mapped."""
    if labels not in LABELS:
        raise _messages.value_error(f"labels must be one of {LABELS}.")
    if labels != "real":
        y = binary_codes(y)
    array = _checks.as_numeric_array(y, "y must be a numeric vector.")
    if array.ndim == 2 and array.shape[1] == 1:
        array = array[:, 0]
    if array.ndim != 1:
        raise _messages.value_error("y must be a numeric vector or a one-column matrix.")
    if array.size != n:
        raise _messages.value_error(LABEL_COUNT_MESSAGE, n=n, size=array.size)
    if not np.all(np.isfinite(array)):
        raise _messages.value_error(LABEL_FINITE_MESSAGE)
    if labels != "real" and not np.all((array == 0) | (array == 1)):
        raise _messages.value_error(BINARY_LABELS_MESSAGE)
    return array


def binary_codes(y):
    """Binary labels of a public label set as 0/1 floats; any other y unchanged.

    The label set comes from y's type, never from its values (as ``dppack.sklearn``'s
    ``classes_`` and R's factor or logical labels): bool y is 0 for False and 1 for True; a
    factor that declares its levels (pandas Categorical, polars Enum, pyarrow dictionary)
    must declare exactly two, the first coded 0 and the second 1 (the positive class, R's
    convention for a two-level factor, e.g. ``glm``'s binomial family). A missing label
    becomes NaN (refused by the finiteness check). Strings and other objects are returned
    unchanged, so they meet the numeric check ("y must be a numeric vector."): their label
    set would be read from the data.

    Parameters
    ----------
    y : array_like, pandas, polars or pyarrow vector

    Returns
    -------
    ndarray of float or ``y``

    Raises
    ------
    ValueError
        A categorical whose number of declared categories is not 2 (``CATEGORY_COUNT_MESSAGE``).

    References
    ----------
    R Core Team, ``help(glm)``, ``family = binomial``: for a factor response the first level
    denotes failure and all others success.

    Examples
    --------
    >>> import pandas as pd
    >>> from dppack.erm.design import binary_codes
    >>> binary_codes([True, False]).tolist()
    [1.0, 0.0]
    >>> binary_codes(pd.Categorical(["no", "yes"], categories=["no", "yes"])).tolist()
    [0.0, 1.0]
    """
    if _frames.declares_levels(y):
        import pandas as pd  # a declared factor arrives as (or becomes) a pandas Categorical

        factor = pd.Categorical(_frames.as_factor(y))
        k = len(factor.categories)
        if k != 2:
            raise _messages.value_error(CATEGORY_COUNT_MESSAGE, k=k)
        codes = np.asarray(factor.codes, dtype=np.float64)
        codes[codes < 0] = np.nan
        return codes
    if _frames.is_polars(y) or _frames.is_pyarrow(y):
        dtype = _frames.series_dtype(y)
        if dtype is None or str(dtype) != "Boolean":
            return y
        values = _frames.to_numpy(y)
    else:
        dtype = getattr(y, "dtype", None)
        if dtype is None:
            if isinstance(y, (str, bytes)) or not hasattr(y, "__len__"):
                return y
            dtype = np.asarray(y).dtype  # a list or tuple: its numpy type
        if getattr(dtype, "kind", None) != "b":
            return y
        values = _frames.to_numpy(y) if _frames.is_pandas(y) else np.asarray(y)
    values = np.asarray(values, dtype=object)
    missing = np.array([v is None or v is not True and v is not False and not
                        isinstance(v, np.bool_) for v in values.reshape(-1)], dtype=bool)
    out = np.zeros(values.size, dtype=np.float64)
    out[~missing] = np.array([bool(v) for v in values.reshape(-1)[~missing]], dtype=np.float64)
    out[missing] = np.nan
    return out.reshape(values.shape)


def label_values(y, labels="real"):
    """Checked labels as the losses read them: 0/1 mapped to -1/+1 (2y - 1) for
    ``'signed'``, else ``y`` itself. A per-row map (:mod:`dppack.dask.erm` applies it per
    chunk).

    Parameters
    ----------
    y : ndarray
        Labels already checked (:func:`as_labels`).
    labels : {'real', 'binary', 'signed'}, default 'real'

    Returns
    -------
    ndarray
        ``y`` (not copied) or a new array 2y - 1.

    Raises
    ------
    Nothing.

    References
    ----------
    DPpack 0.2.2 (svmDP maps 0 to -1).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import label_values
    >>> label_values(np.array([0.0, 1.0]), "signed")
    array([-1.,  1.])
    """
    return 2.0 * y - 1.0 if labels == "signed" else y


# --------------------------------------------------------------------------------------------
# The prepared design
# --------------------------------------------------------------------------------------------


def prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale=None, labels="real",
                   target=False):
    """Check and prepare the data of a fit: bounds, clipping, bias column, scaling, labels.

    In DPpack's order: X converted, the bounds (DPpack's length messages, then ours), X
    finite, y (and its label check); then X is clipped into one new n x d array, the bias
    column of ones first with ``add_bias`` (bounds 1, 1), and with ``scale`` each column
    divided by :meth:`ColumnBounds.divisors`. With ``target`` the last bound is y's and y is
    clipped to it. The caller's X and y are never written.

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame, n x p
        Or a :class:`dppack._columns.ColumnMatrix` (an R data.frame's columns, assembled
        into the new design without another copy).
    y : array_like, n values
    upper_bounds, lower_bounds : array_like
        p bounds (p + 1 with ``target``).
    add_bias : bool
    scale : {None, 'l2', 'l1', 'max'}, default None
        Rows into the unit L2 ball (s_j sqrt(d)), the unit L1 ball (s_j d), entries into
        [-1, 1] (s_j), or no scaling.
    labels : {'real', 'binary', 'signed'}, default 'real'
        See :func:`as_labels`.
    target : bool, default False
        KST's layout: the bounds end with y's, and y is clipped to it.

    Returns
    -------
    dict
        ``"X"`` (the new n x d array), ``"y"``, ``"scale"`` (the divisors of the columns, None
        without scaling: coefficients of the scaled problem divided by them act on raw X),
        ``"row_norm_bound"`` (a bound on the L2 norm of every row of ``"X"`` for any data
        within the bounds: 1 for 'l2' and 'l1', sqrt(d) for 'max', else
        :attr:`ColumnBounds.max_row_norm`), ``"bounds"`` (the :class:`ColumnBounds` of the
        d columns, bias included) and ``"target_bounds"`` (y's, or None).

    Raises
    ------
    ValueError
        As :meth:`ColumnBounds.from_arguments`, :func:`check_finite_matrix` and
        :func:`as_labels`, in that order (after X's conversion).

    References
    ----------
    DPpack 0.2.2 (L2 scaling; target,
    'max' scaling); Ligett et al. 2017 (L1).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import prepare_design
    >>> X = np.array([[3.0, -1.0], [0.5, 0.5]])
    >>> design = prepare_design(X, [0, 1], [2, 1], [-2, -1], True, scale="l2",
    ...                         labels="signed")
    >>> design["y"]
    array([-1.,  1.])
    >>> bool(np.all(np.linalg.norm(design["X"], axis=1) <= 1))
    True
    >>> design["X"] * design["scale"]  # the clipped rows, bias first
    array([[ 1. ,  2. , -1. ],
           [ 1. ,  0.5,  0.5]])
    """
    X = as_design_matrix(X, columns=True)
    n, p = X.shape
    layout = design_layout(upper_bounds, lower_bounds, p, add_bias, scale, target)
    # X is checked finite (check_finite_matrix's error) in the pass that clips it, before y
    out = layout["clip"].clip(X, layout["add_bias"], layout["scale"], finite="X")
    y = _mapped_labels(_checked_labels(y, n, labels), layout, labels)
    return {"X": out, "y": y, "scale": layout["scale"],
            "row_norm_bound": layout["row_norm_bound"], "bounds": layout["bounds"],
            "target_bounds": layout["target_bounds"]}


def design_layout(upper_bounds, lower_bounds, p, add_bias, scale=None, target=False):
    """The part of :func:`prepare_design` that needs no data: the bounds (checked), the
    divisors of the scaling and the row-norm bound, for X of ``p`` columns.

    Parameters
    ----------
    upper_bounds, lower_bounds : array_like
        p bounds (p + 1 with ``target``).
    p : int
        The number of columns of X (without a bias column).
    add_bias, scale, target
        As :func:`prepare_design`.

    Returns
    -------
    dict
        ``"clip"`` (the :class:`ColumnBounds` X is clipped to, without the bias),
        ``"add_bias"``, ``"bounds"`` (the d columns', bias included), ``"scale"`` (the
        divisors, or None), ``"row_norm_bound"`` and ``"target_bounds"`` (as
        :func:`prepare_design`).

    Raises
    ------
    ValueError
        An unknown ``scale``; as :meth:`ColumnBounds.from_arguments`.

    References
    ----------
    DPpack 0.2.2.

    Examples
    --------
    >>> from dppack.erm.design import design_layout
    >>> layout = design_layout([2, 1], [-2, -1], 2, True, scale="l2")
    >>> layout["bounds"].size, layout["row_norm_bound"]
    (3, 1.0)
    """
    if scale is not None and scale not in SCALINGS:
        raise _messages.value_error(f"scale must be None or one of {SCALINGS}.")
    bounds = ColumnBounds.from_arguments(upper_bounds, lower_bounds, p, target)
    clip = bounds[:p] if target else bounds
    features = clip.with_bias() if add_bias else clip
    divisors = None
    if scale is None:
        row_norm_bound = features.max_row_norm
    else:
        divisors = features.divisors(scale)
        row_norm_bound = math.sqrt(features.size) if scale == "max" else 1.0
    return {"clip": clip, "add_bias": bool(add_bias), "bounds": features, "scale": divisors,
            "row_norm_bound": row_norm_bound, "target_bounds": bounds[p] if target else None}


def apply_design(X, y, layout, labels="real"):
    """The per-row map of :func:`prepare_design` on checked data: X clipped into a new array
    (the bias column first) and scaled; y mapped (:func:`label_values`) and, with target
    bounds, clipped. Rows are mapped independently, so :mod:`dppack.dask.erm` applies this
    function to each chunk.

    Parameters
    ----------
    X : ndarray or ColumnMatrix, n x p
        Finite (checked); never written.
    y : ndarray
        n checked labels (:func:`as_labels`'s checks, not yet mapped).
    layout : dict
        From :func:`design_layout`.
    labels : {'real', 'binary', 'signed'}, default 'real'

    Returns
    -------
    (ndarray, ndarray)
        The new n x d design and the labels.

    Raises
    ------
    ValueError
        If X does not have the layout's p columns.

    References
    ----------
    DPpack 0.2.2.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import apply_design, design_layout
    >>> layout = design_layout([2, 1], [-2, -1], 2, False, scale="max")
    >>> apply_design(np.array([[3.0, -0.5]]), np.array([1.0]), layout, "signed")
    (array([[ 1. , -0.5]]), array([1.]))
    """
    out = layout["clip"].clip(X, layout["add_bias"], layout["scale"])
    return out, _mapped_labels(y, layout, labels)


def _mapped_labels(y, layout, labels):
    """Checked labels mapped (:func:`label_values`) and, with the layout's target bounds,
    clipped to them."""
    y = label_values(y, labels)
    target = layout["target_bounds"]
    if target is not None:
        y = np.clip(y, target.lower[0], target.upper[0])
    return y


def prepare_weights(weights, weights_upper_bound, n):
    """The weights of a weighted fit: DPpack's checks, then clipped above at the bound.

    Parameters
    ----------
    weights : array_like or None
        n nonnegative weights, or None (no weights: the bound is then 1, whatever was given).
    weights_upper_bound : float or None
        The public bound w_bar; required with ``weights``.
    n : int
        The number of rows of X.

    Returns
    -------
    dict
        ``"weights"`` (None, or a new array min(w_i, w_bar)) and ``"weights_upper_bound"``.

    Raises
    ------
    ValueError
        DPpack's ``WEIGHTS_BOUND_MESSAGE`` and ``WEIGHTS_NEGATIVE_MESSAGE``; ours for
        non-numeric, NaN or infinite weights (DPpack clipped Inf to the bound), a bound that
        is not finite and > 0, or the wrong length.

    References
    ----------
    DPpack 0.2.2 (weights clipped at w_bar: the loss's slope bound).

    Examples
    --------
    >>> from dppack.erm.design import prepare_weights
    >>> prepare_weights([0.5, 3.0], 2.0, 2)["weights"]
    array([0.5, 2. ])
    >>> prepare_weights(None, 5.0, 2)
    {'weights': None, 'weights_upper_bound': 1.0}
    """
    if weights is None:
        return {"weights": None, "weights_upper_bound": 1.0}
    if weights_upper_bound is None:
        raise _messages.value_error(WEIGHTS_BOUND_MESSAGE)
    w = _checks.as_numeric_array(weights, "weights must be numeric.").ravel()
    if np.any(np.isnan(w)):
        raise _messages.value_error(WEIGHTS_NAN_MESSAGE)
    if np.any(np.isinf(w)):  # DPpack clipped Inf to the bound; a malformed input here
        raise _messages.value_error(WEIGHTS_INFINITE_MESSAGE)
    if np.any(w < 0):
        raise _messages.value_error(WEIGHTS_NEGATIVE_MESSAGE)
    bound = _checks.check_finite_positive_scalar(weights_upper_bound, "weights.upper.bound")
    if w.size != n:
        raise _messages.value_error(WEIGHTS_COUNT_MESSAGE, n=n, size=w.size)
    return {"weights": np.minimum(w, bound), "weights_upper_bound": bound}


def add_bias_column(X):
    """A new matrix with a column of ones first (DPpack puts the bias first).

    Parameters
    ----------
    X : ndarray, n x p

    Returns
    -------
    ndarray
        n x (p + 1), a new array.

    Raises
    ------
    ValueError
        If ``X`` is not 2-d (numpy's error).

    References
    ----------
    DPpack 0.2.2 and ``predict`` (the bias column comes first).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import add_bias_column
    >>> add_bias_column(np.array([[2.0], [3.0]]))
    array([[1., 2.],
           [1., 3.]])
    """
    out = np.empty((X.shape[0], X.shape[1] + 1))
    out[:, 0] = 1.0
    out[:, 1:] = X
    return out


# --------------------------------------------------------------------------------------------
# Scores and predict time
# --------------------------------------------------------------------------------------------


def linear_score(X, coeff, add_bias):
    """The scores X coeff, with the bias coefficient first when ``add_bias``, X not copied.

    Parameters
    ----------
    X : ndarray, n x p
    coeff : ndarray
        p values, or p + 1 with the bias first.
    add_bias : bool

    Returns
    -------
    ndarray
        n scores x_i'coeff[1:] + coeff[0] (or x_i'coeff).

    Raises
    ------
    ValueError
        If the shapes do not match (numpy's error).

    References
    ----------
    DPpack 0.2.2 (``predict``: the score of the raw X).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import linear_score
    >>> linear_score(np.array([[1.0, 2.0]]), np.array([0.5, 1.0, -1.0]), True)
    array([-0.5])
    """
    if add_bias:
        return X @ coeff[1:] + coeff[0]
    return X @ coeff


def transpose_dot(X, v):
    """X'v for an n x d float array X and n values v: the adjoint of the linear score.

    einsum's one streaming pass beats BLAS gemv here: on C-ordered X with n >> d OpenBLAS's
    X'v took 2-4x as long as X theta (60 ms against 15 ms at n = 10^6, d = 20; 40 against 29
    ms at n = 10^5, d = 500), einsum about as long as X theta.

    Parameters
    ----------
    X : ndarray, n x d
    v : ndarray, n values

    Returns
    -------
    ndarray
        d values, sum_i v_i x_i (the chain rule of a loss of the scores X theta).

    Raises
    ------
    ValueError
        Unless v has one value per row of X (numpy's error).

    References
    ----------
    DPpack 0.2.2 (the gradient X'(sigma(X theta) - y)/n).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import transpose_dot
    >>> transpose_dot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
    array([-2., -2.])
    """
    return np.einsum("ij,i->j", X, v)


def check_fitted(coeff):
    """Refuse to predict before a fit (ours; DPpack fails obscurely).

    Parameters
    ----------
    coeff : ndarray or None
        The model's coefficients (None before fit).

    Returns
    -------
    ndarray
        ``coeff``.

    Raises
    ------
    ValueError
        ``NOT_FITTED_MESSAGE`` if ``coeff`` is None.

    References
    ----------
    DPpack 0.2.2 (predict checks).

    Examples
    --------
    >>> from dppack.erm.design import check_fitted
    >>> check_fitted(None)
    Traceback (most recent call last):
    ...
    ValueError: The model must be fitted before predict: call fit() first.
    """
    if coeff is None:
        raise _messages.value_error(NOT_FITTED_MESSAGE)
    return coeff


def fitted_add_bias(model, add_bias=None, X=None):
    """The ``add_bias`` of ``predict``: None means as fitted (as R's ``predict`` remembers).

    Parameters
    ----------
    model : a fitted model
        Its ``add_bias_`` (set by ``fit``) is the flag it was fitted with; a model without it
        (coefficients assigned by hand) counts as fitted without a bias column.
    add_bias : None or bool
        None: the fit's flag, except that an ``X`` which already has as many columns as the
        model has coefficients is taken as given (False): it holds the bias column, as X did
        in DPpack's ``predict(X, add.bias = FALSE)`` after a fit with ``add.bias = TRUE``.
        A bool is checked and returned as given (a value different from the fit's then fails
        on the column count, as before).
    X : array_like, optional
        The data to predict on; only its number of columns is read.

    Returns
    -------
    bool

    Raises
    ------
    ValueError
        "add.bias must be TRUE or FALSE." style messages of :func:`dppack._checks.check_flag`.

    References
    ----------
    DPpack 0.2.2 ``predict`` methods (R6 objects that keep the fit's ``add.bias``).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from dppack.erm.design import fitted_add_bias
    >>> fitted_add_bias(SimpleNamespace(add_bias_=True))
    True
    >>> fitted_add_bias(SimpleNamespace(add_bias_=True), False)
    False
    >>> fitted_add_bias(SimpleNamespace())
    False
    >>> fitted_add_bias(SimpleNamespace(add_bias_=True, coeff=[0.5, 1.0, 2.0]), None,
    ...                 [[1.0, 0.2, 0.3]])  # X with its bias column
    False
    """
    if add_bias is None:
        fitted = bool(getattr(model, "add_bias_", None) or False)
        return fitted and _columns(X) != np.size(getattr(model, "coeff", None))
    return _checks.check_flag(add_bias, "add.bias")


def _columns(X):
    """X's number of columns from its shape (no pass over Dask data), or None."""
    if X is None:
        return None
    shape = getattr(X, "shape", None)
    if shape is None:
        try:
            shape = np.shape(X)
        except ValueError:  # ragged rows: refused later by as_design_matrix
            return None
    return int(shape[1]) if len(shape) == 2 and isinstance(shape[1], (int, np.integer)) \
        else None


def predict_matrix(X, n_columns, add_bias):
    """X for ``predict``: converted (:func:`as_design_matrix`, not clipped or scaled) and
    checked to have the columns the model was fitted on.

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame
    n_columns : int
        The columns the model was fitted on, the bias column included.
    add_bias : bool
        Whether the bias column will be added (it counts in ``n_columns``).

    Returns
    -------
    ndarray
        X as an n x p float array, without the bias column.

    Raises
    ------
    ValueError
        As :func:`as_design_matrix`, or "X has k columns (counting the bias column added by
        add.bias); the model was fitted on m.".

    References
    ----------
    DPpack 0.2.2 ``predict`` (X is not clipped or scaled).

    Examples
    --------
    >>> from dppack.erm.design import predict_matrix
    >>> predict_matrix([[1.0, 2.0]], 3, True).shape
    (1, 2)
    >>> predict_matrix([[1.0, 2.0]], 3, False)
    Traceback (most recent call last):
    ...
    ValueError: X has 2 columns; the model was fitted on 3.
    """
    X = as_design_matrix(X)
    k = X.shape[1] + int(bool(add_bias))
    if k != n_columns:
        extra = " (counting the bias column added by add.bias)" if add_bias else ""
        raise _messages.value_error(
            "X has {k} columns" + extra + "; the model was fitted on {n_columns}.", k=k,
            n_columns=n_columns)
    return X


def fourier_cosines(X, prefilter, add_bias):
    """cos(omega_j'x_i + phi_j) for every row of X and random feature j: svmDP's Gaussian
    kernel features before their factor sqrt(2/D).

    Parameters
    ----------
    X : ndarray, n x p
        Without the bias column; with ``add_bias`` it is implicit (a 1 first in every row).
    prefilter : ndarray, D x (d + 1)
        Row j: the frequencies omega_j (d values, the bias's first) and the phase phi_j.
    add_bias : bool

    Returns
    -------
    ndarray
        A new n x D array (X is not copied). Every entry is in [-1, 1], so V / sqrt(D) has
        rows of norm <= 1.

    Raises
    ------
    ValueError
        When X and ``prefilter`` disagree on the number of columns (numpy's error).

    References
    ----------
    DPpack 0.2.2 (``XtoV``: V_ij = sqrt(2/D) cos(omega_j'x_i + phi_j));
    Rahimi and Recht (2007), random features for large-scale kernel machines.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import fourier_cosines
    >>> W = np.array([[0.0, 0.0], [1.0, 0.0]])  # D = 2 features of d = 1 column
    >>> fourier_cosines(np.array([[0.0], [np.pi]]), W, False)
    array([[ 1.,  1.],
           [ 1., -1.]])
    """
    d = prefilter.shape[1] - 1
    bias = int(bool(add_bias))
    out = X @ prefilter[:, bias:d].T
    out += prefilter[:, d] + (prefilter[:, 0] if bias else 0.0)
    np.cos(out, out=out)
    return out


def fourier_features(X, prefilter, add_bias):
    """svmDP's scaled design of the Gaussian kernel: :func:`fourier_cosines` / sqrt(D), so
    every row has norm <= 1 (V / (sqrt(2/D) sqrt(D))). A per-row map (:mod:`dppack.dask.erm`
    applies it per chunk).

    Parameters
    ----------
    X, prefilter, add_bias
        As :func:`fourier_cosines` (D = the rows of ``prefilter``).

    Returns
    -------
    ndarray
        A new n x D array.

    Raises
    ------
    ValueError
        As :func:`fourier_cosines`.

    References
    ----------
    DPpack 0.2.2 (rows scaled to norm <= 1).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm.design import fourier_features
    >>> fourier_features(np.array([[0.0]]), np.array([[1.0, 0.0]] * 4), False)
    array([[0.5, 0.5, 0.5, 0.5]])
    """
    V = fourier_cosines(X, prefilter, add_bias)
    V /= math.sqrt(prefilter.shape[0])
    return V


def coefficient_names(X, p, add_bias):
    """Names of the coefficients: the data frame's column names, or x1, ..., xp; with
    ``add_bias`` "(Intercept)" first (R's ``coef()`` convention).

    Parameters
    ----------
    X : array_like, pandas, polars or pyarrow data frame
        The caller's X (its column names are used when it has p of them).
    p : int
        The number of columns of X.
    add_bias : bool

    Returns
    -------
    list of str

    Raises
    ------
    Nothing.

    References
    ----------
    Wang, Kifer and Lee 2019 (one interval per coefficient, intercept first).

    Examples
    --------
    >>> from dppack.erm.design import coefficient_names
    >>> coefficient_names([[1.0, 2.0]], 2, True)
    ['(Intercept)', 'x1', 'x2']
    """
    columns = _frames.column_names(X)
    names = (columns if columns is not None and len(columns) == p
             else [f"x{j + 1}" for j in range(p)])
    return ["(Intercept)"] + names if add_bias else names


# --------------------------------------------------------------------------------------------
# Rows for tuning
# --------------------------------------------------------------------------------------------


def n_rows(X):
    """The number of rows of X (an array, a data frame or a sequence), without converting it.

    Parameters
    ----------
    X : array_like or a pandas, polars or pyarrow data frame

    Returns
    -------
    int
        The length of X's first dimension.

    Raises
    ------
    ValueError
        For a scalar: "X must be a matrix (or a data frame).".

    References
    ----------
    DPpack 0.2.2.

    Examples
    --------
    >>> from dppack.erm.design import n_rows
    >>> n_rows([[1, 2], [3, 4], [5, 6]])
    3
    """
    shape = _frames.shape(X)
    if len(shape) == 0:
        raise _messages.value_error("X must be a matrix (or a data frame).")
    return shape[0]


# The rows of X (of any kind) for the tuning functions' parts: the conversion layer's.
take_rows = _frames.take_rows


def interleaved_split(m, n):
    """The rows of m training parts and a validation part of n rows, interleaved.

    Part i (0-based) holds rows i, i + (m + 1), i + 2(m + 1), ...; validation holds rows m,
    2m + 1, ... (DPpack's ``seq(m + 1, n, by = m + 1)`` minus 1). The parts are disjoint, so
    each record reaches one fit or the validation only (parallel composition).

    Parameters
    ----------
    m : int
        The number of models.
    n : int
        The number of rows.

    Returns
    -------
    (list of ndarray, ndarray)
        The m training row sets and the validation rows.

    Raises
    ------
    ValueError
        If n < m + 1.

    References
    ----------
    DPpack 0.2.2.

    Examples
    --------
    >>> from dppack.erm.design import interleaved_split
    >>> training, validation = interleaved_split(2, 7)
    >>> [rows.tolist() for rows in training], validation.tolist()
    ([[0, 3, 6], [1, 4]], [2, 5])
    """
    if n < m + 1:
        raise _messages.value_error(
            "Tuning {m} models needs at least {n_min} observations (one part per model plus "
            "a validation part).", m=m, n_min=m + 1)
    training = [np.arange(i, n, m + 1) for i in range(m)]
    validation = np.arange(m, n, m + 1)
    return training, validation


def split_rows(n, fraction):
    """A deterministic, interleaved split of rows 0..n-1 into training and validation.

    Row i goes to validation when floor((i + 1) f) > floor(i f), so validation holds
    floor(n f) rows spread evenly. With f = 1/(k + 1) these are
    :func:`interleaved_split`'s validation rows k, 2k + 1, ...

    Parameters
    ----------
    n : int
        The number of rows.
    fraction : float
        f, the share of the rows held out for validation, in (0, 1).

    Returns
    -------
    (ndarray, ndarray)
        The training rows and the validation rows (disjoint).

    Raises
    ------
    ValueError
        When either part is empty.

    References
    ----------
    Chaudhuri and Vinterbo 2013 (training and validation sets disjoint).

    Examples
    --------
    >>> from dppack.erm.design import split_rows
    >>> [rows.tolist() for rows in split_rows(8, 0.25)]
    [[0, 1, 2, 4, 5, 6], [3, 7]]
    """
    index = np.arange(n)
    in_v = np.floor((index + 1) * fraction) > np.floor(index * fraction)
    training, validation = index[~in_v], index[in_v]
    if training.size == 0 or validation.size == 0:
        raise _messages.value_error(
            "Splitting {n} rows with validation.fraction = {fraction} leaves an "
            "empty training or validation set.", n=n, fraction=fraction)
    return training, validation
