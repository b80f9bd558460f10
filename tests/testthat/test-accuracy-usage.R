# noiseIntervalDP() usability (issue 16, accuracy reports): `released` (its checks, its shape,
# a mechanism's default size), the messages for missing arguments in R's spelling, print(),
# the range of the truth, and R == Python for the same reports. Deterministic: no false
# failures (the coverage is tested in tests/python/accuracy/test_accuracy_usage.py).

test_that("a mechanism's report defaults to as many values as were released", {
  r <- noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1,
                       type.DP = "pDP", released = c(1, 2, 3))
  three <- noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1,
                           type.DP = "pDP", size = 3)
  expect_identical(r$size, 3L)
  expect_identical(r$half.width, three$half.width)
  expect_equal(r$lower, c(1, 2, 3) - three$half.width)
  # the one-value report is narrower: given for three values it is refused
  one <- noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1,
                         type.DP = "pDP")
  expect_lt(one$half.width, three$half.width[1])
  expect_error(noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1,
                               type.DP = "pDP", size = 1, released = c(1, 2, 3)),
               "computed for 1: pass size = 3", fixed = TRUE)
  expect_error(noiseIntervalDP("meanDP", 1, n = 10, lower.bound = 0, upper.bound = 1,
                               released = c(0.5, 0.6)), "a report of meanDP describes 1")
})

test_that("released is checked without coercion, and keeps its shape", {
  args <- list("meanDP", 1, n = 10, lower.bound = 0, upper.bound = 1)
  expect_error(expect_no_warning(do.call(noiseIntervalDP, c(args, released = "a"))),
               "released must be numeric")
  expect_error(do.call(noiseIntervalDP, c(args, released = NA)), "released must be finite")
  expect_error(do.call(noiseIntervalDP, c(args, released = NaN)), "released must be finite")
  t <- table(c("a", "b", "b"), c("x", "y", "y"))
  r <- noiseIntervalDP("tableDP", eps = 1, released = t)
  expect_identical(dim(r$lower), dim(t))
  expect_identical(dimnames(r$upper), dimnames(t))
  expect_equal(as.vector(r$upper), as.vector(t) + 6)
  expect_equal(as.vector(r$lower), pmax(as.vector(t) - 6, 0)) # counts >= 0
  v <- noiseIntervalDP("LaplaceMechanism", eps = 1, sensitivities = 1, released = c(a = 1, b = 2))
  expect_named(v$lower, c("a", "b"))
  h <- with_random_state(1, histogramDP(seq(0, 1, length.out = 50), 1, 0, 1))
  from_object <- noiseIntervalDP("histogramDP", eps = 1, released = h)
  expect_equal(from_object$upper, h$counts + 6)
})

test_that("missing arguments are named in R's spelling", {
  expect_error(noiseIntervalDP("meanDP", eps = 1, n = 10),
               "lower.bound is required for meanDP.", fixed = TRUE)
  expect_error(noiseIntervalDP("GaussianMechanism", eps = 0.5, sensitivities = 1),
               "delta is required for GaussianMechanism.", fixed = TRUE)
  expect_error(noiseIntervalDP("quantileDP", eps = 1, lower.bound = 0, upper.bound = 1),
               "quant is required for quantileDP.", fixed = TRUE)
  expect_error(noiseIntervalDP("histogramDP", eps = 1, breaks = function(x) c(0, 1)),
               "lower.bound and upper.bound are required when breaks is a function",
               fixed = TRUE)
  expect_error(noiseIntervalDP("medianDP", eps = 1, lower.bound = 0, upper.bound = 1,
                               quant = 0.5),
               paste("takes lower.bound, upper.bound, n, which.sensitivity, mechanism,",
                     "resolution; not quant."),
               fixed = TRUE)
})

test_that("DPpack's arguments that do not change the report are accepted", {
  expect_identical(noiseIntervalDP("tableDP", eps = 1, allow.negative = TRUE)$half.width,
                   noiseIntervalDP("tableDP", eps = 1)$half.width)
  expect_identical(noiseIntervalDP("medianDP", eps = 1, lower.bound = 0, upper.bound = 1,
                                   mechanism = "exponential")$half.width,
                   noiseIntervalDP("medianDP", eps = 1, lower.bound = 0,
                                   upper.bound = 1)$half.width)
  expect_identical(noiseIntervalDP("ExponentialMechanism", eps = 1, sensitivity = 1,
                                   candidates = c("a", "b", "c"))$half.width,
                   noiseIntervalDP("ExponentialMechanism", eps = 1, sensitivity = 1,
                                   size = 3)$half.width)
})

test_that("print shows the values, the details and the wording by unit", {
  r <- noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1,
                       type.DP = "pDP", size = 3)
  h <- format(r$half.width[1], digits = 6)
  expect_output(print(r), paste0("95% noise interval, half-width ", h, " ", h, " ", h,
                                 " (value)"), fixed = TRUE)
  u <- noiseIntervalDP("meanDP", eps = 1, n = 500, lower.bound = 0, upper.bound = 1,
                       which.sensitivity = "unbounded", released = 0.99)
  expect_output(print(u), "  n: 500\n  half.width.sum: 3.67614", fixed = TRUE)
  expect_output(print(u), "range of the truth: [0, 1]", fixed = TRUE)
  expect_output(print(u), "interval: [0.975295, 1]", fixed = TRUE)
  expect_output(print(noiseIntervalDP("medianDP", eps = 1, lower.bound = 0, upper.bound = 1)),
                "95% bound: rank error beyond the best point at most 86.3966", fixed = TRUE)
  expect_output(print(noiseIntervalDP("ExponentialMechanism", eps = 1, sensitivity = 1,
                                      size = 2)), "utility shortfall at most", fixed = TRUE)
})

test_that("NaN fields are NA; the range clips the interval; R == Python", {
  m <- noiseIntervalDP("medianDP", eps = 1, lower.bound = 0, upper.bound = 1)
  expect_true(all(is.na(c(m$coverage, m$scale)) & !is.nan(c(m$coverage, m$scale))))
  j <- noiseIntervalDP("quantilesDP", eps = 1, quants = c(0.2, 0.8), lower.bound = 0,
                       upper.bound = 100, method = "joint", resolution = 1)
  expect_true(is.na(j$grid) && !is.nan(j$grid)) # NaN in the core
  p <- noiseIntervalDP("histogramDP", eps = 1, normalize = TRUE, cells = 4, n = 1000,
                       which.sensitivity = "unbounded", released = c(0, 0.5, 0.5, 1))
  expect_identical(p$range, c(0, 1))
  expect_equal(p$lower[1], 0)
  expect_equal(p$upper[4], 1)
  expect_gte(p$coverage, 0.95)
  expect_lt(p$coverage, 0.975) # the joint probability, not the per-count one
  py <- reticulate::import("dppack")$noiseIntervalDP(
    "GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1, type_DP = "pDP",
    size = 3L)
  r <- noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = 1,
                       type.DP = "pDP", size = 3)
  expect_identical(r$half.width, as.numeric(py$half_width))
  expect_identical(r$coverage, as.numeric(py$coverage))
})
