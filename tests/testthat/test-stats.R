# The private statistics seen from R: DPpack 0.2.2's signatures, messages, warnings and R
# result objects ("histogram", table, the classed 'both' lists). The laws of the noise are
# tested in Python (tests/python/test_stats.py); bit-identity with Python in
# tests/python/test_cross_language.py.

x <- c(1.5, 4.2, 3.3, 2.8, 0.4, 5.1, 3.9, 2.2)

test_that("the signatures are DPpack 0.2.2's", {
  expect_identical(names(formals(meanDP)),
                   c("x", "eps", "lower.bound", "upper.bound", "which.sensitivity",
                     "mechanism", "delta", "type.DP"))
  expect_identical(names(formals(covDP)),
                   c("x1", "x2", "eps", "lower.bound1", "upper.bound1", "lower.bound2",
                     "upper.bound2", "which.sensitivity", "mechanism", "delta", "type.DP"))
  expect_identical(names(formals(histogramDP)),
                   c("x", "eps", "lower.bound", "upper.bound", "breaks", "normalize",
                     "which.sensitivity", "mechanism", "delta", "type.DP", "allow.negative"))
  expect_identical(names(formals(tableDP)),
                   c("...", "eps", "which.sensitivity", "mechanism", "delta", "type.DP",
                     "allow.negative"))
  expect_identical(formals(tableDP)$eps, 1)
  expect_identical(names(formals(pooledVarDP)),
                   c("...", "eps", "lower.bound", "upper.bound", "which.sensitivity",
                     "mechanism", "delta", "type.DP", "approx.n.max"))
  expect_identical(names(formals(pooledCovDP)),
                   c("...", "eps", "lower.bound1", "upper.bound1", "lower.bound2",
                     "upper.bound2", "which.sensitivity", "mechanism", "delta", "type.DP",
                     "approx.n.max"))
  expect_identical(names(formals(quantileDP)),
                   c("x", "quant", "eps", "lower.bound", "upper.bound", "which.sensitivity",
                     "mechanism"))
  expect_identical(formals(quantileDP)$mechanism, "exponential")
  expect_identical(names(formals(histogramDataAccess)), c("x", "breaks", "mechanism"))
  expect_identical(names(formals(tableDataAccess)), c("...", "mechanism"))
})

test_that("DPpack's validation messages reach R unchanged", {
  expect_dppack_error(meanDP(x, 1, c(0, 1), 6), "Length of lower.bound must be 1.", "meanDP")
  expect_dppack_error(meanDP(x, 1, 0, c(5, 6)), "Length of upper.bound must be 1.", "meanDP")
  expect_dppack_error(meanDP(x, 1, 0, 6, mechanism = "abc"),
                      "Mechanism must be one of {'Laplace', 'Gaussian', 'analytic'}.", "meanDP")
  expect_dppack_error(meanDP(x, 1, 0, 6, which.sensitivity = "abc"),
                      "which.sensitivity must be one of {'bounded', 'unbounded', 'both'}.",
                      "meanDP")
  expect_dppack_error(meanDP(x, 1, 0, 6, mechanism = "Gaussian"),
                      "delta must be a scalar > 0", "meanDP")
  expect_dppack_error(varDP(matrix(x, 2), 1, 0, 6), "x must be a numeric vector.", "varDP")
  expect_dppack_error(quantileDP(x, -1, 1, 0, 6), "quant must be between 0 and 1.",
                      "quantileDP")
  expect_dppack_error(quantileDP(x, 0.5, 1, 0, 6, mechanism = "Laplace"),
                      "Mechanism must be one of {'exponential'}.", "quantileDP")
  expect_dppack_error(histogramDP(x, 1, 0, 6, breaks = c(0, 1, 3, 6)),
                      "Only equidistant histogram bins are supported.", "histogramDP")
  expect_error(meanDP(x, 1, 0), "argument \"upper.bound\" is missing", fixed = TRUE)
})

test_that("bad data get a clear error before any noise (deviations from DPpack)", {
  expect_error(meanDP(c(1, NA, 3), 1, 0, 6), "NA", fixed = TRUE)
  expect_error(meanDP(numeric(0), 1, 0, 6), "empty|at least one")
  expect_error(meanDP(x, 1, 6, 0), "lower")
  expect_error(covDP(x, x[-1], 1, 0, 6, 0, 6), "length")
  expect_error(tableDP(c("a", NA, "b")), "NA|missing")
})

test_that("'both' warns as an R warning where DPpack warns, and returns one value", {
  msg <- paste("Sensitivity based on bounded and unbounded differential privacy is identical",
               "for this statistic. Only one value will be returned.")
  expect_warning(value <- meanDP(x, 1, 0, 6, which.sensitivity = "both"), msg, fixed = TRUE)
  expect_length(value, 1)
  expect_warning(quantileDP(x, 0.5, 1, 0, 6, which.sensitivity = "both"), msg, fixed = TRUE)
})

test_that("scalar statistics are plain doubles and set.seed() reproduces them", {
  calls <- list(
    function() meanDP(x, 1, 0, 6),
    function() varDP(x, 1, 0, 6),
    function() sdDP(x, 1, 0, 6),
    function() covDP(x, rev(x), 1, 0, 6, 0, 6),
    function() quantileDP(x, 0.25, 1, 0, 6),
    function() medianDP(x, 1, 0, 6),
    function() pooledVarDP(x, x + 1, lower.bound = 0, upper.bound = 7),
    function() pooledCovDP(cbind(x, x), cbind(x, rev(x)), lower.bound1 = 0,
                           upper.bound1 = 6, lower.bound2 = 0, upper.bound2 = 6)
  )
  for (call in calls) {
    set.seed(3)
    first <- call()
    set.seed(3)
    expect_identical(call(), first)
    expect_type(first, "double")
    expect_length(first, 1)
    expect_null(attributes(first))
  }
  expect_gt(varDP(rep(2, 8), 1, 0, 6), 0)  # the positivity redraw
})

test_that("data-access functions return DPpack's named lists and reference values", {
  expect_equal(meanDataAccess(c(1, 4, 3, 2), 0, 5),
               list(True.Values = 2.5, Sensitivity = 1.25))
  v <- varDataAccess(c(1, 4, 3, 2), 0, 5)
  expect_named(v, c("True.Values", "Sensitivity"))
  expect_equal(unlist(v), c(True.Values = 5 / 3, Sensitivity = 6.25))
  expect_equal(unlist(covDataAccess(c(1, 4, 3, 2), c(-2, -3, -4, -1), 0, 5, -5, 0)),
               c(True.Values = -1, Sensitivity = 6.25))
  p <- pooledVarDataAccess(list(c(1, 4, -2, 8, -6), c(1, 2), c(-5, -7)), -10, 10, FALSE)
  expect_named(p, c("True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"))
  expect_equal(unlist(p), c(True.Values = 19.75, Bounded.Sensitivities = 160 / 3,
                            Unbounded.Sensitivities = 160 / 3))
  pc <- pooledCovDataAccess(list(matrix(c(1, 4, -2, 8, -6, -3), ncol = 2),
                                 matrix(c(1, 2, -5, 7), ncol = 2)), -10, 10, -10, 10, FALSE)
  expect_equal(pc$True.Values, -1)
  expect_equal(pc$Bounded.Sensitivities, 88.8889, tolerance = 1e-5)
  expect_equal(pc$Unbounded.Sensitivities, 122.3858, tolerance = 1e-6)
  q <- quantileDataAccess(c(1, 1, -2, 8, -6), 0.25, -10, 10)
  expect_named(q, c("Utility", "Sorted", "Sensitivity"))
  expect_equal(q$Utility, c(-1.25, -0.25, -0.75, -1.75, -2.75, -3.75))
  expect_equal(q$Sorted, c(-10, -6, -2, 1, 1, 8, 10))
  expect_equal(q$Sensitivity, 1)
})

test_that("histogramDataAccess gives R's own hist() without the density", {
  x <- c(1, 4, 3, 2, 3)
  h <- histogramDataAccess(x, "Sturges", "Laplace")
  expect_named(h, c("True.Values", "Bounded.Sensitivities", "Unbounded.Sensitivities"))
  r_hist <- graphics::hist(x, plot = FALSE)
  r_hist$density <- NULL
  # Equal values; R happens to store these breaks as integers, the core as doubles.
  expect_equal(h$True.Values, r_hist)
  expect_identical(h$True.Values$counts, r_hist$counts)
  expect_equal(h$Bounded.Sensitivities, 2)
  expect_equal(h$Unbounded.Sensitivities, 1)
  expect_equal(histogramDataAccess(c(1, 4, 3, 2, 3), "Sturges", "Gaussian")$
                 Bounded.Sensitivities, sqrt(2))
})

test_that("histogramDP returns a plottable 'histogram' extended to the bounds", {
  set.seed(5)
  data <- stats::rnorm(100, 3, 2)
  h <- histogramDP(data, 1, -3, 9)
  expect_s3_class(h, "histogram")
  expect_named(h, c("breaks", "counts", "mids", "xname", "equidist"))
  width <- diff(h$breaks)[1]
  expect_equal(min(h$breaks), -3)
  expect_equal(max(h$breaks), 9)
  expect_equal(diff(h$breaks), rep(width, length(h$breaks) - 1))
  expect_equal(h$mids, h$breaks[-1] - width / 2)
  expect_true(all(h$counts >= 0))
  expect_equal(h$counts, round(h$counts))
  # R's own hist() on the clipped data gives the interior breaks.
  inner <- graphics::hist(pmin(pmax(data, -3), 9), plot = FALSE)$breaks
  expect_true(all(inner %in% h$breaks))
  file <- tempfile(fileext = ".png")
  grDevices::png(file)
  expect_silent(plot(h))
  grDevices::dev.off()
  expect_gt(file.size(file), 0)

  normalized <- histogramDP(data, 1, -3, 9, normalize = TRUE)
  expect_equal(sum(normalized$counts), 1)

  both <- histogramDP(data, 1, -3, 9, which.sensitivity = "both")
  expect_s3_class(both, "Sanitized Histogram")
  expect_named(both, c("Bounded", "Unbounded"))
  expect_s3_class(both$Bounded, "histogram")
})

test_that("histogramDP takes R functions and numbers as breaks, as hist() does", {
  set.seed(6)
  data <- stats::runif(50, 0, 10)
  by_function <- histogramDP(data, 1, 0, 10, breaks = function(v) 4)
  by_number <- histogramDP(data, 1, 0, 10, breaks = 4)
  expect_identical(by_function$breaks, by_number$breaks)
  expect_identical(by_number$breaks, graphics::hist(data, breaks = 4, plot = FALSE)$breaks)
})

test_that("tableDP returns a table with table()'s dimnames, levels and names", {
  smoker <- c("yes", "no", "no", "yes", "no", "no")
  sex <- factor(c("f", "m", "f", "f", "m", "m"), levels = c("m", "f", "x"))
  set.seed(8)
  tab <- tableDP(smoker, sex, eps = 1)
  reference <- table(smoker, sex)
  expect_s3_class(tab, "table")
  expect_identical(dimnames(tab), dimnames(reference))
  expect_identical(dim(tab), dim(reference))
  expect_type(unclass(tab), "double")
  expect_true(all(tab >= 0) && all(tab == round(tab)))
  expect_identical(names(dimnames(tableDP(smoker, eps = 1))), "smoker")
  expect_identical(names(dimnames(tableDP(a = smoker, eps = 1))), "a")
  three <- tableDP(smoker, sex, rev(smoker), eps = 1)
  expect_identical(dim(three), c(2L, 3L, 2L))
  both <- tableDP(smoker, sex, eps = 1, which.sensitivity = "both")
  expect_s3_class(both, "Sanitized Contingency Table")
  expect_s3_class(both$Unbounded, "table")
  true <- tableDataAccess(smoker, sex)
  expect_identical(true$True.Values, reference)
})

test_that("tableDP puts each cell's count in its place (almost no noise)", {
  a <- rep(c("p", "q", "r"), times = c(30, 60, 90))
  b <- rep(c("u", "v"), times = 90)
  tab <- tableDP(a, b, eps = 1e6)
  expect_equal(unclass(tab), unclass(table(a, b)), ignore_attr = TRUE)
  named <- tableDP(first = a, second = b, eps = 1e6)
  expect_equal(unclass(named), unclass(table(first = a, second = b)))
  pooled <- pooledVarDP(one = c(1, 3, 5), two = c(2, 2, 8), eps = 1e6, lower.bound = 0,
                        upper.bound = 10)
  expect_equal(pooled, pooledVarDataAccess(list(c(1, 3, 5), c(2, 2, 8)), 0, 10,
                                           FALSE)$True.Values, tolerance = 1e-3)
})

test_that("'both' lists carry DPpack's classes", {
  pooled <- pooledCovDP(cbind(x, x), cbind(x, rev(x)), lower.bound1 = 0, upper.bound1 = 6,
                        lower.bound2 = 0, upper.bound2 = 6, which.sensitivity = "both")
  expect_s3_class(pooled, "Sanitized Pooled Covariance")
  expect_named(pooled, c("Bounded", "Unbounded"))
  # Samples of size 2 make the bounded and unbounded pooled-variance sensitivities differ.
  pv <- pooledVarDP(c(1, 4), c(1, 2), c(-5, -7), lower.bound = -10, upper.bound = 10,
                    which.sensitivity = "both")
  expect_s3_class(pv, "Sanitized Pooled Variance")
})
