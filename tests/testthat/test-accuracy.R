# noiseIntervalDP() seen from R (issue 16, accuracy reports): the result list, R's argument
# names, the interval around a release, 'both', the messages, and that the releases are
# unchanged. The laws and coverage are tested in Python (tests/python/accuracy/test_accuracy.py);
# R == Python in tests/python/cross_language/test_cross_language_accuracy.py. Deterministic: no
# draws except the seeded releases, no false failures.

x <- c(3.1, 4.7, 2.2, 5.9, 4.4, 3.8, 5.1, 2.9, 4.0, 3.5)

test_that("a report from the public arguments: R's names, the textbook half-width", {
  r <- noiseIntervalDP("meanDP", eps = 1, n = 10, lower.bound = 0, upper.bound = 10)
  expect_s3_class(r, "noiseIntervalDP")
  expect_named(r, c("statistic", "half.width", "alpha", "simultaneous", "coverage", "scale",
                    "grid", "law", "units", "size", "range"))
  # Laplace: b log(1/alpha), b = (U - L) / (n eps) = 1, within a grid step
  expect_equal(r$half.width, log(20), tolerance = 1e-5)
  expect_equal(r$scale, 1, tolerance = 1e-5)
  expect_gte(r$coverage, 0.95)
  expect_identical(r$law, "discrete Laplace")
  g <- noiseIntervalDP("meanDP", eps = 0.5, n = 10, lower.bound = 0, upper.bound = 10,
                       mechanism = "Gaussian", delta = 1e-5, alpha = 0.1)
  sigma <- 1 * sqrt(2 * log(1.25 / 1e-5)) / 0.5
  expect_equal(g$half.width, sigma * qnorm(0.95), tolerance = 1e-3)
  expect_output(print(r), "meanDP: 95% noise interval, half-width 2.99574")  # + g / 2
})

test_that("the interval around a release, sdDP's on its own scale, vectors", {
  m <- with_random_state(3, meanDP(x, 1, 0, 10))
  r <- noiseIntervalDP("meanDP", 1, n = length(x), lower.bound = 0, upper.bound = 10,
                       released = m)
  expect_equal(c(r$lower, r$upper), m + c(-1, 1) * r$half.width)
  s <- noiseIntervalDP("sdDP", 1, n = 100, lower.bound = 0, upper.bound = 1, released = 0.3)
  expect_equal(c(s$lower, s$upper), sqrt(0.09 + c(-1, 1) * s$half.width))
  v <- noiseIntervalDP("GaussianMechanism", 0.5, delta = 1e-5, sensitivities = c(1, 2),
                       alloc.proportions = c(1, 3))
  expect_length(v$half.width, 2)
  joint <- noiseIntervalDP("GaussianMechanism", 0.5, delta = 1e-5, sensitivities = c(1, 2),
                           alloc.proportions = c(1, 3), simultaneous = TRUE)
  expect_true(all(joint$half.width > v$half.width))
  both <- noiseIntervalDP("tableDP", 1, which.sensitivity = "both")
  expect_named(both, c("Bounded", "Unbounded"))
  expect_identical(c(both$Bounded$half.width, both$Unbounded$half.width), c(6, 3))
  q <- noiseIntervalDP("medianDP", 1, lower.bound = 0, upper.bound = 10)
  expect_identical(q$units, "rank")
  expect_true(is.na(q$coverage))
  expect_error(noiseIntervalDP("medianDP", 1, lower.bound = 0, upper.bound = 10,
                               released = 5), "rank error")
})

test_that("the releases are unchanged: plain numbers, no attribute", {
  m <- with_random_state(3, meanDP(x, 1, 0, 10))
  expect_null(attributes(m))
  expect_type(m, "double")
})

test_that("refusals name R's arguments", {
  expect_dppack_error(
    noiseIntervalDP("meanDP", 1, lower.bound = 0, upper.bound = 1,
                    which.sensitivity = "unbounded"),
    paste("n is required: the public sample size (which.sensitivity = 'bounded'), or a",
          "public lower bound on the number of records ('unbounded', 'both')."),
    "noiseIntervalDP")
  expect_dppack_error(noiseIntervalDP("meanDP", 1, n = 10, lower.bound = 1, upper.bound = 0),
                      "lower.bound must be < upper.bound.", "noiseIntervalDP")
  expect_dppack_error(noiseIntervalDP("tableDP", 1, simultaneous = TRUE),
                      "cells (the number of cells) is required when simultaneous is TRUE.",
                      "noiseIntervalDP")
  expect_error(noiseIntervalDP("meanDP", 1, 10), "must be named")
})

test_that("tableDP: declared levels only; the releases' own checks of breaks and quants", {
  # Undeclared levels: the thresholded release's report (test-accuracy-tables.R)
  expect_named(noiseIntervalDP("tableDP", 1, delta = 1e-5, declared = FALSE)$details,
               c("threshold", "suppressed.max"))
  expect_error(noiseIntervalDP("tableDP", 0.5, mechanism = "Gaussian", delta = 1e-5),
               "declared is required")
  expect_identical(noiseIntervalDP("tableDP", 1, delta = 1e-5, declared = TRUE)$half.width,
                   noiseIntervalDP("tableDP", 1)$half.width)
  # the release's messages for its arguments
  release <- tryCatch(histogramDP(1:4, 1, 0, 5, breaks = "nonsense"),
                      error = conditionMessage)
  expect_error(noiseIntervalDP("histogramDP", 1, breaks = "nonsense"), release, fixed = TRUE)
  expect_error(noiseIntervalDP("histogramDP", 1, breaks = c(0, 1, 3)),
               "Only equidistant histogram bins are supported.", fixed = TRUE)
  expect_error(noiseIntervalDP("quantilesDP", 1, quants = c(0.5, 0.1), lower.bound = 0,
                               upper.bound = 1, method = "independent"),
               "quants must be in increasing order.", fixed = TRUE)
})

test_that("ExponentialMechanism: a utility-shortfall bound, not an interval", {
  r <- noiseIntervalDP("ExponentialMechanism", 1, sensitivity = 1, size = 3)
  expect_identical(r$units, "utility")
  expect_true(is.na(r$coverage))
  # (2 Delta' / eps)(log 3 + log 20) + h, Delta' = 1 + 2^-20, h = 2^-20
  expect_equal(r$half.width, 2 * (1 + 2^-20) * (log(3) + log(20)) + 2^-20, tolerance = 1e-12)
  expect_error(noiseIntervalDP("ExponentialMechanism", 1, sensitivity = 1, size = 3,
                               released = 0), "utility shortfall")
})

test_that("noiseIntervalDP as the first call of a session loads DPpackPy's Python", {
  # In a fresh R process: a vector argument converted before the core is loaded would start
  # reticulate's own choice of Python (a project's or the system's), not DPpackPy's.
  # Planted: noiseIntervalDP without .core() before its conversions -> the call fails.
  rscript <- file.path(R.home("bin"), "Rscript")
  code <- paste(
    "library(DPpackPy)",
    "r <- noiseIntervalDP('quantilesDP', 1, quants = c(0.25, 0.5, 0.75),",
    "lower.bound = 18, upper.bound = 90, method = 'joint', resolution = 1)",
    "cat('half.width:', r$half.width, '\\n')",
    sep = " "
  )
  code <- sub("library(DPpackPy) ", "library(DPpackPy); ", code, fixed = TRUE)
  code <- sub("resolution = 1) ", "resolution = 1); ", code, fixed = TRUE)
  out <- suppressWarnings(system2(rscript, c("-e", shQuote(code)), stdout = TRUE,
                                  stderr = TRUE))
  expect_null(attr(out, "status"))
  expect_true(any(grepl("half.width: [0-9]", out)))
})
