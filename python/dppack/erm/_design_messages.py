"""The messages and option names of the ERM design (:mod:`dppack.erm._design`)."""

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
