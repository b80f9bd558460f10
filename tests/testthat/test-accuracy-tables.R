# noiseIntervalDP("tableDP", declared = FALSE) seen from R (issue 16, accuracy reports): the
# report of the thresholded release (undeclared levels) equals the core's, its details carry
# R's names, the interval of a released table gives a suppressed cell (0) [0, suppressed.max],
# the release's messages; and noiseIntervalDP's unknown-argument message in R's spelling.
# Coverage is tested in Python (tests/python/accuracy/test_accuracy_tables.py). Deterministic: one
# seeded release, no false failures.

test_that("the thresholded table's report: R == the core, R's names", {
  for (mechanism in c("Laplace", "Gaussian", "analytic")) {
    r <- noiseIntervalDP("tableDP", 0.5, mechanism = mechanism, delta = 1e-5,
                         which.sensitivity = "unbounded", declared = FALSE, alpha = 0.1)
    # the core, once DPpackPy has loaded it (its Python)
    dp <- core_module()
    py <- dp$noiseIntervalDP("tableDP", 0.5, mechanism = mechanism, delta = 1e-5,
                             which_sensitivity = "unbounded", declared = FALSE, alpha = 0.1)
    expect_identical(r$half.width, py$half_width)
    expect_identical(r$grid, py$grid)
    expect_identical(r$units, "count")
    expect_named(r$details, c("threshold", "suppressed.max"))
    expect_identical(r$details$threshold, py$details$threshold)
    expect_identical(r$details$suppressed.max, py$details$suppressed_max)
  }
  both <- noiseIntervalDP("tableDP", 1, delta = 1e-5, which.sensitivity = "both",
                          declared = FALSE)
  expect_named(both, c("Bounded", "Unbounded"))
  expect_gt(both$Bounded$details$threshold, both$Unbounded$details$threshold)
  # Laplace, bounded, eps = 1, delta = 1e-5: integer noise (issue 28), h = 6 (the discrete
  # Laplace of parameter 1/2), tau = ceil(b ln(1 / (p (1 + exp(-1 / b))))) = 24 with b = 2,
  # p = delta / 2 (the continuous law's 1 + b ln(1 / (2 p)) = 24.03), suppressed.max =
  # floor(tau + h) = 30
  r <- both$Bounded
  expect_identical(r$half.width, 6)
  expect_identical(r$details$threshold, ceiling(2 * log(1 / (5e-6 * (1 + exp(-1 / 2))))))
  expect_identical(r$details$threshold, 24)
  expect_identical(r$details$suppressed.max, 30)
  joint <- noiseIntervalDP("tableDP", 1, delta = 1e-5, declared = FALSE, cells = 5,
                           simultaneous = TRUE)
  expect_length(joint$half.width, 1) # one number for every cell
  expect_identical(joint$details$cells, 5L)
  expect_true(all(joint$half.width > r$half.width))
})

test_that("a bound such as n for cells: one number, no per-cell vector", {
  # cells = 10^12 used to allocate one entry per cell (MemoryError in the core); the report
  # is one number at the Sidak level of 10^12 cells, as the core's.
  for (declared in c(TRUE, FALSE)) {
    expect_warning(r <- noiseIntervalDP("tableDP", 1, delta = if (declared) 0 else 1e-5,
                                        declared = declared, cells = 1e12,
                                        simultaneous = TRUE), NA)
    py <- core_module()$noiseIntervalDP("tableDP", 1, delta = if (declared) 0 else 1e-5,
                                        declared = declared, cells = 1e12,
                                        simultaneous = TRUE)
    expect_identical(r$half.width, py$half_width)
    expect_length(r$half.width, 1)
    expect_equal(r$details$cells, 1e12)
    expect_true(is.na(r$scale)) # the counts' laws come without a scale
  }
  h <- noiseIntervalDP("histogramDP", 1, cells = 1e12, simultaneous = TRUE)
  level <- -expm1(log1p(-0.05) / 1e12)
  expect_identical(h$half.width, noiseIntervalDP("histogramDP", 1, alpha = level)$half.width)
})

test_that("the interval of a released table: a 0 is a suppressed cell", {
  a <- rep(c("a", "a", "b", "b"), c(200, 2, 3, 150))
  b <- rep(c("x", "y", "x", "y"), c(200, 2, 3, 150))
  released <- with_random_state(5, tableDP(a, b, eps = 1, delta = 1e-5))
  r <- noiseIntervalDP("tableDP", 1, delta = 1e-5, declared = FALSE,
                       released = released)
  shown <- as.numeric(released)
  expect_identical(as.vector(r$lower) == 0, shown == 0) # lower keeps the table's shape
  expect_identical(r$upper[shown == 0], rep(r$details$suppressed.max, sum(shown == 0)))
  expect_identical(r$upper[shown > 0] - r$lower[shown > 0],
                   rep(2 * r$half.width, sum(shown > 0)))
  one <- noiseIntervalDP("tableDP", 1, delta = 1e-5, declared = FALSE, released = 0)
  expect_identical(c(one$lower, one$upper), c(0, r$details$suppressed.max))
})

test_that("the release's own messages, in R's spelling", {
  release <- tryCatch(tableDP(c("a", "b"), eps = 1), error = conditionMessage)
  expect_dppack_error(noiseIntervalDP("tableDP", 1, declared = FALSE), release,
                      "noiseIntervalDP")
  release <- tryCatch(tableDP(c("a", "b"), eps = 1, which.sensitivity = "neither",
                              delta = 1e-5), error = conditionMessage)
  expect_dppack_error(noiseIntervalDP("tableDP", 1, which.sensitivity = "neither",
                                      delta = 1e-5, declared = FALSE),
                      release, "noiseIntervalDP")
  release <- tryCatch(tableDP(c("a", "b"), eps = 1.5, mechanism = "Gaussian", delta = 1e-5),
                      error = conditionMessage)
  expect_dppack_error(noiseIntervalDP("tableDP", 1.5, mechanism = "Gaussian", delta = 1e-5,
                                      declared = FALSE),
                      release, "noiseIntervalDP")
})

test_that("an unknown argument: noiseIntervalDP names the arguments as R spells them", {
  # Planted: the message built with Python's names (lower_bound) fails this.
  expect_dppack_error(
    noiseIntervalDP("meanDP", 1, n = 10, lower.bound = 0, upper.bnd = 1),
    paste("noiseIntervalDP for meanDP takes n, lower.bound, upper.bound, which.sensitivity,",
          "mechanism, delta, type.DP; not upper.bnd."),
    "noiseIntervalDP")
  expect_dppack_error(
    noiseIntervalDP("tableDP", 1, delta = 1e-5, declared = FALSE, lower.bound = 0),
    paste("noiseIntervalDP for tableDP takes which.sensitivity, mechanism, delta, type.DP,",
          "cells, declared, allow.negative; not lower.bound."),
    "noiseIntervalDP")
})
