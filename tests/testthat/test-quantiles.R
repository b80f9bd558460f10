# quantilesDP() and boundsDP() seen from R (issue 16): signatures, sorted results, R's
# argument names in the messages, the accountant, reproducibility. The laws are tested in
# Python (tests/python/quantiles/test_quantiles.py); bit-identity with Python in
# tests/python/cross_language/test_cross_language_quantiles.py. Deterministic: fixed seeds, no
# false failures.

x <- c(2.1, 3.4, 0.5, 5.0, 4.1, 1.7, 2.9, 3.3, 4.4, 0.9, 2.5, 3.8)

test_that("the signatures", {
  expect_identical(names(formals(quantilesDP)),
                   c("x", "quants", "eps", "lower.bound", "upper.bound", "method",
                     "which.sensitivity", "resolution", "accountant"))
  expect_identical(names(formals(boundsDP)),
                   c("x", "eps", "quants", "grid", "accountant"))
})

test_that("every method returns the quantiles sorted, within the bounds, reproducibly", {
  for (method in c("joint", "independent", "recursive")) {
    q <- with_random_state(7, quantilesDP(x, c(0.1, 0.5, 0.9, 0.9), 1, 0, 6, method = method))
    expect_type(q, "double")
    expect_length(q, 4)
    expect_false(is.unsorted(q))
    expect_true(all(q >= 0 & q <= 6))
    again <- with_random_state(7, quantilesDP(x, c(0.1, 0.5, 0.9, 0.9), 1, 0, 6,
                                              method = method))
    expect_identical(q, again)
  }
})

test_that("bad arguments stop with R's names, before any draw", {
  expect_error(quantilesDP(x, c(0.5, 0.2), 1, 0, 6), "quants must be in increasing order.",
               fixed = TRUE)
  expect_error(quantilesDP(x, c(0.5, 2), 1, 0, 6), "quants must be numbers in [0, 1].",
               fixed = TRUE)
  expect_error(quantilesDP(x, 0.5, 1, 0, 6, method = "joint-exp"), "method must be one of")
  expect_error(quantilesDP(x, 0.5, 1, 0, 6, which.sensitivity = "both"),
               "which.sensitivity must be one of")
  expect_error(quantilesDP(x, 0.5, 1, 6, 0), "lower.bound")
  expect_error(quantilesDP(c(x, NA), 0.5, 1, 0, 6), "x must be finite")
  expect_error(boundsDP(x, 1, quants = 0.5), "quants must be two numbers")
  expect_error(boundsDP(x, 1, grid = 3), "grid must hold at least two")
})

test_that("bounds then statistics, through one accountant", {
  set.seed(3)
  y <- rnorm(20000, mean = 50, sd = 10)
  acc <- BudgetAccountant$new(eps = 2)
  b <- with_random_state(1, boundsDP(y, eps = 0.5, accountant = acc))
  expect_named(b, c("lower", "upper"))
  expect_lt(b[["lower"]], b[["upper"]])
  expect_lt(b[["lower"]], quantile(y, 0.05))
  expect_gt(b[["upper"]], quantile(y, 0.95))
  m <- with_random_state(2, meanDP(y, 1, b[["lower"]], b[["upper"]], accountant = acc))
  q <- with_random_state(3, quantilesDP(y, c(0.25, 0.75), 0.5, b[["lower"]], b[["upper"]],
                                        accountant = acc))
  expect_equal(acc$spent$eps, 2)
  expect_error(quantilesDP(y, 0.5, 0.1, 0, 100, accountant = acc), "budget")
  expect_equal(m, 50, tolerance = 0.1)
  expect_equal(q, unname(quantile(y, c(0.25, 0.75))), tolerance = 0.05)
})

test_that("quantilesDP's default method is the exact 'recursive'", {
  expect_identical(formals(quantilesDP)$method, "recursive")
})

test_that("boundsDP releases on empty data and warns at the grid's edge", {
  # n is private: no data is released like one record; a bound at the grid's largest (or
  # smallest) candidate is a core warning, shown as an R warning
  b <- suppressWarnings(with_random_state(1, boundsDP(numeric(0), 1, grid = 0:4)))
  expect_named(b, c("lower", "upper"))
  expect_lt(b[["lower"]], b[["upper"]])
  expect_warning(with_random_state(1, boundsDP(c(rep(2.5, 99), 50), 1e6, grid = 0:3)),
                 "upper = 3 is the grid's largest candidate")
})
