"""Data preparation for the ERM models and methods: the one home of the design matrix.

Public bounds per column (:class:`ColumnBounds`), clipping into a new array, scaling into the
unit L2 or L1 ball (:func:`prepare_design`), labels (:func:`as_labels`), weights
(:func:`prepare_weights`), the bias column, predict-time helpers and row splits for tuning.
What each step gives the privacy proofs: :ref:`guide-erm-design`. The messages are module
constants (DPpack's ``UPPER_LENGTH_MESSAGE``, ``LOWER_LENGTH_MESSAGE``,
``WEIGHTS_BOUND_MESSAGE``, ``BINARY_LABELS_MESSAGE``, ...; ours ``TARGET_BOUNDS_MESSAGE``,
``NOT_FITTED_MESSAGE``).
"""


import math

import numpy as np

from .. import _checks, _frames, _messages
# The messages and the design's parts live in private modules; every name is importable from
# here, as before the split (the models, dask/_erm, the tests).
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
    y : array_like (1-d, n x 1, a Series or a one-column DataFrame)
    n : int, the number of rows of X
    labels : {'real', 'binary', 'signed'}, default 'real'
        ``'binary'``: DPpack's 0/1 check; ``'signed'``: the same, then 0/1 mapped to -1/+1. Bool
        y and two-category factors are first coded 0/1 (:func:`binary_codes`).

    Returns
    -------
    ndarray, n float values (only read; may be the caller's memory)

    Raises
    ------
    ValueError
        Not numeric, not a vector, the wrong length, not finite, or not 0/1 for
        ``'binary'``/``'signed'``.

    Examples
    --------
    >>> from dppack.erm._design import as_labels
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

    The label set comes from y's type, never its values: bool y is 0/1; a factor that declares
    its levels (pandas Categorical, polars Enum, pyarrow dictionary) must declare two, coded 0
    and 1 (R's convention). A missing label becomes NaN; strings are returned unchanged (and
    refused later as not numeric).

    Parameters
    ----------
    y : array_like, pandas, polars or pyarrow vector

    Returns
    -------
    ndarray of float or ``y``

    Raises
    ------
    ValueError
        A categorical that does not declare exactly two categories.

    References
    ----------
    R Core Team, ``help(glm)``, ``family = binomial`` (first level failure, others success).

    Examples
    --------
    >>> import pandas as pd
    >>> from dppack.erm._design import binary_codes
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
    """Checked labels as the losses read them: 2y - 1 for ``'signed'``, else ``y``.

    Parameters
    ----------
    y : ndarray, labels checked by :func:`as_labels`
    labels : {'real', 'binary', 'signed'}, default 'real'

    Returns
    -------
    ndarray

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import label_values
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

    In DPpack's order (X converted, bounds, X finite, y); X is clipped into a new array, the bias
    column first, and scaled by :meth:`ColumnBounds.divisors`; the caller's X and y are never
    written.

    Parameters
    ----------
    X : array_like, data frame or ColumnMatrix, n x p
    y : array_like, n values
    upper_bounds, lower_bounds : array_like, p bounds (p + 1 with ``target``)
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
        ``"X"`` (n x d), ``"y"``, ``"scale"`` (the column divisors or None), ``"row_norm_bound"``
        (for any data within the bounds), ``"bounds"`` (:class:`ColumnBounds`, bias included) and
        ``"target_bounds"`` (y's, or None).

    Raises
    ------
    ValueError
        As :meth:`ColumnBounds.from_arguments`, :func:`check_finite_matrix` and
        :func:`as_labels`, in that order.

    References
    ----------
    DPpack 0.2.2 (L2 and 'max' scaling); Ligett et al. 2017 (L1).

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import prepare_design
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
    """The data-free part of :func:`prepare_design`: checked bounds, divisors and row-norm bound.

    Parameters
    ----------
    upper_bounds, lower_bounds : array_like, p bounds (p + 1 with ``target``)
    p : int, the columns of X (without a bias column)
    add_bias, scale, target
        As :func:`prepare_design`.

    Returns
    -------
    dict
        ``"clip"``, ``"add_bias"``, ``"bounds"``, ``"scale"``, ``"row_norm_bound"``,
        ``"target_bounds"``.

    Raises
    ------
    ValueError
        An unknown ``scale``; as :meth:`ColumnBounds.from_arguments`.

    Examples
    --------
    >>> from dppack.erm._design import design_layout
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
    """The per-row map of :func:`prepare_design` on checked data (applied per chunk on Dask).

    Parameters
    ----------
    X : ndarray or ColumnMatrix, n x p (finite; never written)
    y : ndarray, n checked labels, not yet mapped
    layout : dict, from :func:`design_layout`
    labels : {'real', 'binary', 'signed'}, default 'real'

    Returns
    -------
    (ndarray, ndarray)
        The new n x d design and the labels.

    Examples
    --------
    >>> import numpy as np
    >>> from dppack.erm._design import apply_design, design_layout
    >>> layout = design_layout([2, 1], [-2, -1], 2, False, scale="max")
    >>> apply_design(np.array([[3.0, -0.5]]), np.array([1.0]), layout, "signed")
    (array([[ 1. , -0.5]]), array([1.]))
    """
    out = layout["clip"].clip(X, layout["add_bias"], layout["scale"])
    return out, _mapped_labels(y, layout, labels)


def _mapped_labels(y, layout, labels):
    """Checked labels mapped and, with target bounds, clipped."""
    y = label_values(y, labels)
    target = layout["target_bounds"]
    if target is not None:
        y = np.clip(y, target.lower[0], target.upper[0])
    return y


def prepare_weights(weights, weights_upper_bound, n):
    """The weights of a weighted fit: DPpack's checks, then clipped above at the bound.

    Parameters
    ----------
    weights : array_like or None (None: no weights, bound 1)
    weights_upper_bound : float or None, the public bound w_bar (required with weights)
    n : int, the number of rows of X

    Returns
    -------
    dict
        ``"weights"`` (None or min(w_i, w_bar)) and ``"weights_upper_bound"``.

    Raises
    ------
    ValueError
        No bound, non-numeric, NaN, infinite or negative weights (DPpack clipped Inf), a bound
        that is not finite and > 0, or the wrong length.

    References
    ----------
    Giddens, Zhou, Krull, Brinkman, Song and Liu (2023), weighted ERM (weights clipped at w_bar).

    Examples
    --------
    >>> from dppack.erm._design import prepare_weights
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
