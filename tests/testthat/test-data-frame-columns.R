# A model's X given as a data.frame reaches the core as read-only views of its columns, with
# no R-side matrix copy (issue 14, item 5; .design_to_py in R/bridge.R). The fits are the fits
# from the matrix, bit for bit; tests/python/cross_language/test_cross_language.py compares
# them with Python.

# Per column of a ColumnMatrix: dtype, writeable, owns its data, address.
py_views <- function(x) {
  reticulate::py_eval(
    "lambda X: [[c.dtype.str, bool(c.flags.writeable), bool(c.flags.owndata),
                 float(c.ctypes.data)] for c in X.columns]"
  )(x)
}

fit_coeff <- function(model, X, y, upper, lower, ...) {
  with_random_state(3, model$fit(X, y, upper, lower, ...)$coeff)
}

set.seed(14) # seed: any data; every comparison below is exact
n <- 5000
df <- data.frame(a = stats::runif(n, -1.2, 1.2), k = sample(-3:3, n, replace = TRUE),
                 b = stats::rnorm(n))
y <- as.numeric(df$a + df$k / 3 + stats::rlogis(n) > 0)
upper <- c(1, 2, 2); lower <- c(-1, -2, -2)

test_that("a data.frame's columns reach the core as read-only views of R's memory", {
  X <- DPpackPy:::.design_to_py(df)
  expect_s3_class(X, "dppack._columns.ColumnMatrix")
  views <- py_views(X)
  expect_identical(vapply(views, `[[`, "", 1), c("<f8", "<i4", "<f8"))
  expect_false(any(vapply(views, `[[`, TRUE, 2))) # not writeable
  expect_false(any(vapply(views, `[[`, TRUE, 3))) # R's memory, not a copy
  # the very addresses R keeps the columns at
  expect_identical(vapply(views, function(v) as.numeric(v[[4]]), 0),
                   .Call(DPpackPy:::dppackpy_column_addresses, df))
  # writing through a view is refused: the core cannot change the caller's data
  main <- reticulate::import_main(convert = FALSE)
  main$dppackpy_test_columns <- X
  on.exit(reticulate::py_run_string("del dppackpy_test_columns"))
  expect_error(reticulate::py_run_string("dppackpy_test_columns.columns[0][0] = 5.0"),
               "read-only")
  expect_error(reticulate::py_run_string("dppackpy_test_columns.columns[1][0] = 5"),
               "read-only")
})

test_that("a fit leaves the data.frame as it was, and R copies a column before changing it", {
  before <- df
  LogisticRegressionDP$new("l2", 1, 1)$fit(df, y, upper, lower, add.bias = TRUE)
  svmDP$new("l2", 1, 1)$fit(df, y, upper, lower)
  LinearRegressionDP$new("l2", 1, 0, 1)$fit(df, df$b, c(upper, 3), c(lower, -3))
  expect_identical(df, before)
  copy <- df
  X <- DPpackPy:::.design_to_py(copy)
  first <- copy$a[1]
  copy$a[1] <- 1e6 # the view's column is referenced by the view too: R copies it
  expect_identical(reticulate::py_to_r(reticulate::py_get_attr(X, "columns")[0][0]), first)
})

test_that("fits from a data.frame and from its matrix are identical", {
  M <- as.matrix(df)
  models <- list(
    function() LogisticRegressionDP$new("l2", 1, 0.5),
    function() LogisticRegressionDP$new("l2", 1, 0.5, "output"),
    function() svmDP$new("l2", 1, 0.5),
    function() EmpiricalRiskMinimizationDP.CMS$new(
      mapXy.sigmoid, loss.cross.entropy, "l2", 1, 0.5, c = 0.25, mapXy.gr = mapXy.gr.sigmoid,
      loss.gr = loss.gr.cross.entropy)
  )
  for (model in models) {
    for (bias in c(FALSE, TRUE)) {
      expect_identical(fit_coeff(model(), df, y, upper, lower, add.bias = bias),
                       fit_coeff(model(), M, y, upper, lower, add.bias = bias))
    }
  }
  yr <- df$b + 0.2 * df$k
  expect_identical(
    fit_coeff(LinearRegressionDP$new("l2", 1, 0, 1), df, yr, c(upper, 3), c(lower, -3)),
    fit_coeff(LinearRegressionDP$new("l2", 1, 0, 1), M, yr, c(upper, 3), c(lower, -3))
  )
  # the Gaussian kernel takes no bounds: the core reads the columns as one matrix
  gaussian <- function() svmDP$new("l2", 1, 0.5, "output", kernel = "Gaussian", D = 8)
  expect_identical(with_random_state(3, gaussian()$fit(df, y)$coeff),
                   with_random_state(3, gaussian()$fit(M, y)$coeff))
})

test_that("integer columns work, as the same values in doubles", {
  as_double <- df
  as_double$k <- as.double(df$k)
  expect_identical(fit_coeff(svmDP$new("l2", 1, 0.5), df, y, upper, lower),
                   fit_coeff(svmDP$new("l2", 1, 0.5), as_double, y, upper, lower))
  only_integers <- data.frame(k = df$k, j = rev(df$k))
  expect_identical(
    fit_coeff(LogisticRegressionDP$new("l2", 1, 0.5), only_integers, y, c(2, 2), c(-2, -2)),
    fit_coeff(LogisticRegressionDP$new("l2", 1, 0.5), as.matrix(only_integers) + 0, y,
              c(2, 2), c(-2, -2))
  )
})

test_that("one column, and ALTREP sequences, work", {
  altrep <- data.frame(k = seq_len(n), a = df$a) # k: a compact sequence, expanded for the view
  expect_identical(
    fit_coeff(LogisticRegressionDP$new("l2", 1, 1), altrep, y, c(n, 1), c(0, -1)),
    fit_coeff(LogisticRegressionDP$new("l2", 1, 1), as.matrix(altrep) + 0, y, c(n, 1), c(0, -1))
  )
  one <- data.frame(a = df$a)
  expect_identical(fit_coeff(svmDP$new("l2", 1, 1), one, y, 1, -1),
                   fit_coeff(svmDP$new("l2", 1, 1), as.matrix(one), y, 1, -1))
})

test_that("factor, character and missing values in X give the errors they gave before", {
  model <- LogisticRegressionDP$new("l2", 1, 1)
  with_factor <- data.frame(df, f = factor(sample(c("u", "v"), n, replace = TRUE)))
  expect_error(model$fit(with_factor, y, c(upper, 1), c(lower, -1)),
               "^X must be a numeric matrix or data frame\\.$")
  with_text <- data.frame(df, s = "u")
  expect_error(model$fit(with_text, y, c(upper, 1), c(lower, -1)),
               "^X must be a numeric matrix or data frame\\.$")
  missing_integer <- df
  missing_integer$k[7] <- NA
  expect_error(model$fit(missing_integer, y, upper, lower),
               "^X must be finite \\(no NA, NaN or Inf\\)\\.$")
  missing_double <- df
  missing_double$a[7] <- NA
  expect_error(model$fit(missing_double, y, upper, lower),
               "^X must be finite \\(no NA, NaN or Inf\\)\\.$")
  # DPpack's length message comes before anything about the data
  expect_error(model$fit(missing_double, y, upper[-1], lower),
               "Length of upper.bounds must be equal to the number of columns of X.",
               fixed = TRUE)
  # a data.frame of other columns still goes through as.matrix (a logical one: numbers)
  with_logical <- data.frame(df, l = df$a > 0)
  expect_identical(fit_coeff(model, with_logical, y, c(upper, 1), c(lower, 0)),
                   fit_coeff(model, as.matrix(with_logical), y, c(upper, 1), c(lower, 0)))
})
