"""The one design module (dppack.erm._design): bounds, clipping, scaling, labels, weights, the
bias column, predict-time checks and the rows of tuning.

Every check here is deterministic (fixed data, or data drawn once from a fixed seed and checked
exactly), so the false-failure rate is 0.
"""

import doctest
import math

import numpy as np
import pytest

import dppack
from dppack.erm import _design as design
from dppack.erm._design import (
    ColumnBounds,
    as_labels,
    interleaved_split,
    predict_matrix,
    prepare_design,
    prepare_weights,
    split_rows,
    take_rows,
)

UPPER_LENGTH = "Length of upper_bounds must be equal to the number of columns of X."
LOWER_LENGTH = "Length of lower_bounds must be equal to the number of columns of X."
UPPER_TARGET = ("Length of upper_bounds must be equal to the number of columns of X plus 1 "
                "(for y).")
LOWER_TARGET = ("Length of lower_bounds must be equal to the number of columns of X plus 1 "
                "(for y).")
TARGET = ("The bounds on y (the last values of lower_bounds and upper_bounds) must be finite "
          "with lower < upper.")
BINARY = "y must be a numeric vector of binary labels 0 and 1."
WEIGHTS_BOUND = "Upper bound on weights must be given if weights vector given."
WEIGHTS_NEGATIVE = "Weights must be nonnegative."


def _read_only(array):
    array = np.array(array, dtype=np.float64)
    array.flags.writeable = False
    return array


def _data(n=400, p=3, seed=1):
    """Rows well outside the bounds [-1, 2] x [-3, 0.5] x [0.25, 4] (so clipping matters)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(0.0, 4.0, (n, p))
    y = (rng.random(n) < 0.5).astype(float)
    return _read_only(X), _read_only(y)


UPPER, LOWER = [2.0, 0.5, 4.0], [-1.0, -3.0, 0.25]


def _raises(message, call):
    with pytest.raises(ValueError) as info:
        call()
    assert str(info.value) == message


# --------------------------------------------------------------------------------------------
# Bounds
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("upper, lower, message", [
    ([1, 1], [0, 0, 0], UPPER_LENGTH),           # DPpack checks upper's length first
    ([1, 1, 1], [0, 0], LOWER_LENGTH),
    (None, [0, 0, 0], UPPER_LENGTH),            # NULL has length 0
    ([1, 1], [0, 0], UPPER_LENGTH),
    (["a", "b", "c"], [0, 0, 0], "upper_bounds must be numeric."),
    ([1, 1, 1], [0, 0, "x"], "lower_bounds must be numeric."),
    ([1, np.inf, 1], [0, 0, 0], "upper_bounds must be finite."),
    ([1, 1, 1], [0, np.nan, 0], "lower_bounds must be finite."),
    ([1, 1, 1], [0, 1, 0], "lower_bounds must be < upper_bounds in every column (not in "
                           "column 2)."),
])
def test_bounds_messages(upper, lower, message):
    _raises(message, lambda: ColumnBounds.from_arguments(upper, lower, 3))


@pytest.mark.parametrize("upper, lower, message", [
    ([1, 1], [0, 0, 0], UPPER_TARGET),
    ([1, 1, 1], [0, 0], LOWER_TARGET),
    ([1, 1, np.inf], [0, 0, 0], TARGET),
    ([1, 1, 5], [0, 0, 5], TARGET),
    ([1, 1, 5], [0, 2, -5], "lower_bounds must be < upper_bounds in every column (not in "
                            "column 2)."),
])
def test_target_bounds_messages(upper, lower, message):
    _raises(message, lambda: ColumnBounds.from_arguments(upper, lower, 2, target=True))


def test_bounds_are_copies_with_their_scale():
    upper, lower = np.array(UPPER), np.array(LOWER)
    bounds = ColumnBounds.from_arguments(upper, lower, 3)
    upper[0] = 100.0  # the caller's later change does not reach the bounds
    np.testing.assert_array_equal(bounds.upper, UPPER)
    np.testing.assert_array_equal(bounds.scale, [2.0, 3.0, 4.0])
    assert not bounds.lower.flags.writeable and not bounds.scale.flags.writeable
    assert bounds.max_row_norm == math.sqrt(4.0 + 9.0 + 16.0)
    biased = bounds.with_bias()
    np.testing.assert_array_equal(biased.lower, [1.0] + LOWER)
    np.testing.assert_array_equal(biased.scale, [1.0, 2.0, 3.0, 4.0])
    np.testing.assert_array_equal(bounds[1:].upper, UPPER[1:])
    np.testing.assert_array_equal(bounds[2].lower, LOWER[2:])


# --------------------------------------------------------------------------------------------
# Clip and scale
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("add_bias", [False, True])
def test_clip_stays_in_the_box_and_copies(add_bias):
    X, _ = _data()
    bounds = ColumnBounds(LOWER, UPPER)
    clipped = bounds.clip(X, add_bias)  # X is read-only: a write would raise
    assert clipped.shape == (X.shape[0], 3 + add_bias)
    body = clipped[:, int(add_bias):]
    assert np.all(body >= np.array(LOWER)) and np.all(body <= np.array(UPPER))
    inside = (X >= np.array(LOWER)) & (X <= np.array(UPPER))
    np.testing.assert_array_equal(body[inside], X[inside])  # values inside are kept
    if add_bias:
        np.testing.assert_array_equal(clipped[:, 0], 1.0)


@pytest.mark.parametrize("norm, order", [("l2", 2), ("l1", 1), ("max", np.inf)])
@pytest.mark.parametrize("add_bias", [False, True])
def test_scaled_rows_are_in_the_unit_ball(norm, order, add_bias):
    X, y = _data()
    X0, y0 = X.copy(), y.copy()
    out = prepare_design(X, y, UPPER, LOWER, add_bias, scale=norm)
    assert np.all(np.linalg.norm(out["X"], ord=order, axis=1) <= 1.0)
    # the worst case is reached: the corner of the box with the largest |x_j| in every column
    corner = np.array([[2.0, -3.0, 4.0]])
    worst = prepare_design(corner, [0.0], UPPER, LOWER, add_bias, scale=norm)["X"][0]
    assert np.linalg.norm(worst, ord=order) == pytest.approx(1.0, rel=1e-15)
    # the divisors map the scaled problem back to the raw X: X_scaled * divisors = clipped X
    clipped = ColumnBounds(LOWER, UPPER).clip(X, add_bias)
    np.testing.assert_allclose(out["X"] * out["scale"], clipped, rtol=1e-15)
    assert out["row_norm_bound"] == (math.sqrt(3 + add_bias) if norm == "max" else 1.0)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


def test_unscaled_design_reports_the_row_norm_bound():
    X, y = _data()
    out = prepare_design(X, y, UPPER, LOWER, True)
    assert out["scale"] is None
    assert out["row_norm_bound"] == math.sqrt(1.0 + 4.0 + 9.0 + 16.0)
    assert np.all(np.linalg.norm(out["X"], axis=1) <= out["row_norm_bound"])


def test_same_bits_as_the_former_formulas():
    """The refactor keeps every operation: clip into a new array, divide by s_j sqrt(d) (L2)
    or s_j d (L1); ridge's y clipped then divided by max(|L_y|, |U_y|)."""
    X, y = _data(p=2)
    upper, lower = np.array([2.0, 0.5, 3.0]), np.array([-1.0, -3.0, -5.0])
    for add_bias in (False, True):
        ones = np.ones(int(add_bias))
        lo, up = np.concatenate([ones, lower[:2]]), np.concatenate([ones, upper[:2]])
        s = np.maximum(np.abs(lo), np.abs(up))
        d = s.size
        clipped = np.column_stack([np.ones((X.shape[0], int(add_bias))),
                                   np.clip(X, lower[:2], upper[:2])])
        l2 = prepare_design(X, y, upper[:2], lower[:2], add_bias, scale="l2")
        np.testing.assert_array_equal(l2["X"], clipped / (s * math.sqrt(d)))
        l1 = prepare_design(X, y * 7 - 2, upper, lower, add_bias, scale="l1", target=True)
        np.testing.assert_array_equal(l1["X"], clipped / (s * d))
        np.testing.assert_array_equal(l1["y"], np.clip(y * 7 - 2, -5.0, 3.0))
        assert l1["target_bounds"].scale[0] == 5.0


def test_checks_come_before_any_work_in_dppacks_order():
    X, y = _data()
    bad_X = np.array(X)
    bad_X[3, 1] = np.nan
    _raises(UPPER_LENGTH, lambda: prepare_design(bad_X, y, UPPER[:2], LOWER, False))
    _raises("X must be finite (no NA, NaN or Inf).",
            lambda: prepare_design(bad_X, y[:-1], UPPER, LOWER, False))
    _raises("y must have one value per row of X: X has 400 rows, y has 399 values.",
            lambda: prepare_design(X, y[:-1], UPPER, LOWER, False))
    _raises("X must be a numeric matrix or data frame.",
            lambda: prepare_design([["a"]], [0], [1], [0], False))


def _layouts(X):
    """X by rows, by columns (an R matrix), as a strided view, and as an R data.frame's
    columns (a ColumnMatrix, its first column R integers when they are whole)."""
    from dppack._columns import ColumnMatrix

    columns = [X[:, j] for j in range(X.shape[1])]
    if np.all(np.isfinite(X[:, 0])) and np.array_equal(X[:, 0], np.round(X[:, 0])):
        columns[0] = X[:, 0].astype(np.int32)
    wide = np.zeros((X.shape[0], 2 * X.shape[1]))
    wide[:, ::2] = X
    return {"C": np.ascontiguousarray(X), "F": np.asfortranarray(X), "strided": wide[:, ::2],
            "columns": ColumnMatrix(columns)}


@pytest.mark.filterwarnings("error")  # the check's sums must not warn (overflow, inf - inf)
def test_finiteness_is_checked_in_the_pass_that_clips():
    """prepare_design checks X finite block by block while it clips it (issue 14, item 5):
    a NaN, Inf or -Inf anywhere (first block, last row of the last block, in any layout) is
    refused with check_finite_matrix's message, before y's checks, without a warning; finite
    values whose block sum overflows (1e308) are accepted and clipped as np.clip does."""
    n = design.ASSEMBLY_ROWS + design.TILED_ROWS + 5  # blocks of both assembly loops
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.integers(-3, 4, n), rng.normal(0.0, 4.0, (n, 2))]).astype(float)
    y = (rng.random(n) < 0.5).astype(float)
    upper, lower = [2.0, 0.5, 4.0], [-1.0, -3.0, 0.25]
    with pytest.raises(ValueError) as info:
        design.check_finite_matrix(np.array([[np.nan]]))
    message = str(info.value)  # "X must be finite (no NA, NaN or Inf)."
    for row, column, value in ((0, 1, np.nan), (n - 1, 2, np.inf), (n - 1, 1, -np.inf),
                               (design.ASSEMBLY_ROWS, 2, np.nan), (n // 2, 1, np.inf)):
        bad = X.copy()
        bad[row, column] = value
        for name, layout in _layouts(bad).items():
            for add_bias in (False, True):
                _raises(message, lambda: prepare_design(layout, y[:-1], upper, lower,
                                                        add_bias, scale="l2", labels="binary"))
    huge = X.copy()
    huge[: n // 2, 1] = 1.7e308  # block sums overflow to Inf
    huge[:, 2] = np.where(np.arange(n) // 1000 % 2 == 0, 1e308, -1e308)  # Inf - Inf: NaN
    scale = np.maximum(np.abs(lower), np.abs(upper)) * math.sqrt(3)
    want = np.clip(huge, lower, upper) / scale
    for name, layout in _layouts(huge).items():
        out = prepare_design(layout, y, upper, lower, False, scale="l2", labels="binary")
        np.testing.assert_array_equal(out["X"], want, err_msg=name)


# --------------------------------------------------------------------------------------------
# Labels
# --------------------------------------------------------------------------------------------


def test_labels_mapping_and_refusal():
    y = _read_only([0, 1, 1, 0])
    np.testing.assert_array_equal(as_labels(y, 4, "signed"), [-1.0, 1.0, 1.0, -1.0])
    np.testing.assert_array_equal(as_labels(y, 4, "binary"), y)
    np.testing.assert_array_equal(as_labels(y.reshape(-1, 1), 4), y)  # n x 1 is a vector
    _raises(BINARY, lambda: as_labels([0, 1, 0.5, 1], 4, "binary"))
    _raises(BINARY, lambda: as_labels([-1, 1, 1, 1], 4, "signed"))
    _raises("y must be finite (no NA, NaN or Inf).", lambda: as_labels([0, np.nan], 2))
    _raises("y must be a numeric vector or a one-column matrix.",
            lambda: as_labels(np.zeros((2, 2)), 2))
    _raises("y must be a numeric vector.", lambda: as_labels(["a", "b"], 2))
    design_y = prepare_design(np.zeros((4, 1)), y, [1], [-1], False, labels="signed")["y"]
    np.testing.assert_array_equal(design_y, [-1.0, 1.0, 1.0, -1.0])


# --------------------------------------------------------------------------------------------
# Weights
# --------------------------------------------------------------------------------------------


def test_weights_checks_and_clipping():
    w = _read_only([0.0, 0.5, 3.0])
    out = prepare_weights(w, 2, 3)
    np.testing.assert_array_equal(out["weights"], [0.0, 0.5, 2.0])
    assert out["weights_upper_bound"] == 2.0
    np.testing.assert_array_equal(w, [0.0, 0.5, 3.0])
    assert prepare_weights(None, 7.0, 3) == {"weights": None, "weights_upper_bound": 1.0}
    _raises(WEIGHTS_BOUND, lambda: prepare_weights(w, None, 3))
    _raises(WEIGHTS_NEGATIVE, lambda: prepare_weights([1.0, -0.1, 1.0], 2, 3))
    _raises("weights must not contain NA or NaN.", lambda: prepare_weights([1.0, np.nan], 2, 2))
    _raises("weights_upper_bound must be a scalar > 0", lambda: prepare_weights(w, 0, 3))
    _raises("weights must have one value per row of X: X has 4 rows, weights has 3 values.",
            lambda: prepare_weights(w, 2, 4))


# --------------------------------------------------------------------------------------------
# Predict time and rows
# --------------------------------------------------------------------------------------------


def test_predict_matrix_and_linear_score():
    X = _read_only([[1.0, 2.0], [3.0, -1.0]])
    coeff = np.array([0.5, 2.0, -1.0])
    np.testing.assert_array_equal(design.linear_score(predict_matrix(X, 3, True), coeff, True),
                                  design.add_bias_column(X) @ coeff)
    _raises("X has 2 columns; the model was fitted on 3.", lambda: predict_matrix(X, 3, False))
    _raises("X has 3 columns (counting the bias column added by add_bias); the model was "
            "fitted on 2.", lambda: predict_matrix(X, 2, True))
    _raises("The model must be fitted before predict: call fit() first.",
            lambda: design.check_fitted(None))


def test_rows_for_tuning():
    training, validation = interleaved_split(3, 10)
    assert [rows.tolist() for rows in training] == [[0, 4, 8], [1, 5, 9], [2, 6]]
    assert validation.tolist() == [3, 7]
    # split_rows with f = 1/(m + 1) holds out the same rows
    np.testing.assert_array_equal(split_rows(10, 1 / 4)[1], validation)
    with pytest.raises(ValueError, match="needs at least 4 observations"):
        interleaved_split(3, 3)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": range(5)}, index=list("vwxyz"))
    assert take_rows(frame, np.array([1, 3]))["a"].tolist() == [1, 3]
    assert design.n_rows(frame) == 5
    np.testing.assert_array_equal(take_rows([[1], [2], [3]], np.array([2])), [[3]])


def test_models_read_the_data_without_writing_it():
    """Read-only X, y and weights through the fits that prepare data (a write would raise)."""
    X, y = _data(200, 2, 3)
    upper, lower = [2.0, 0.5], [-1.0, -3.0]
    w = _read_only(np.linspace(0.0, 2.0, 200))
    dppack.LogisticRegressionDP("l2", 1, 1).fit(X, y, upper, lower, True, random_state=1)
    dppack.svmDP("l2", 1, 1, "output").fit(X, y, upper, lower, True, weights=w,
                                           weights_upper_bound=1.5, random_state=1)
    dppack.svmDP("l2", 1, 1, kernel="Gaussian", D=5).fit(X, y, random_state=1)
    dppack.LinearRegressionDP("l2", 1, 0, 1).fit(X, y, upper + [1.0], lower + [0.0], True,
                                                 random_state=1)
    dppack.accuracy_first.theory_erm(X, y, "ridge", 0.5, 0.1, upper + [1.0], lower + [0.0],
                                     random_state=1)


def test_doctests():
    failures, tried = doctest.testmod(design, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert tried > 0 and failures == 0
