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
# The messages and the design's parts live in private modules; every name is importable from
# here, as before the split (the models, dask/erm, the tests).
from ._design_messages import (  # noqa: F401
    BINARY_LABELS_MESSAGE,
    CATEGORY_COUNT_MESSAGE,
    EMPTY_MESSAGE,
    FINITE_MESSAGE,
    LABEL_COUNT_MESSAGE,
    LABEL_FINITE_MESSAGE,
    LABELS,
    LOWER_LENGTH_MESSAGE,
    LOWER_TARGET_LENGTH_MESSAGE,
    NOT_FITTED_MESSAGE,
    SCALINGS,
    TARGET_BOUNDS_MESSAGE,
    UPPER_LENGTH_MESSAGE,
    UPPER_TARGET_LENGTH_MESSAGE,
    WEIGHTS_BOUND_MESSAGE,
    WEIGHTS_COUNT_MESSAGE,
    WEIGHTS_INFINITE_MESSAGE,
    WEIGHTS_NAN_MESSAGE,
    WEIGHTS_NEGATIVE_MESSAGE,
)
from ._matrix import (  # noqa: F401
    ASSEMBLY_ROWS,
    TILED_ROWS,
    ColumnBounds,
    as_design_matrix,
    check_finite_matrix,
)
from ._predict import (
    add_bias_column,
    check_fitted,
    coefficient_names,
    fitted_add_bias,
    fourier_cosines,
    fourier_features,
    interleaved_split,
    linear_score,
    n_rows,
    predict_matrix,
    split_rows,
    take_rows,
    transpose_dot,
)

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

ColumnBounds.__module__ = __name__


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
