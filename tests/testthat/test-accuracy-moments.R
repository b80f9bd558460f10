# noiseIntervalDP() for the unbounded meanDP, varDP, sdDP, covDP (issue 16, item 5), seen
# from R: the same report as the core (R == Python), R's names for the arguments and the
# details, 'both', the interval around a release, and the messages. The derivation, the
# coverage and the planted bugs are tested in Python
# (tests/python/accuracy/test_accuracy_moments.py).
# Deterministic: no draws except one seeded release, no false failures.


test_that("R gives the core's report, with R's names", {
  dp <- core_module()
  cases <- list(
    list("meanDP", list(n = 200L, lower.bound = 0, upper.bound = 10),
         list(n = 200L, lower_bound = 0, upper_bound = 10)),
    list("varDP", list(n = 500L, lower.bound = -1, upper.bound = 1, mechanism = "Gaussian",
                       delta = 1e-6, type.DP = "pDP", eps = 0.5),
         list(n = 500L, lower_bound = -1, upper_bound = 1, mechanism = "Gaussian",
              delta = 1e-6, type_DP = "pDP", eps = 0.5)),
    list("sdDP", list(n = 300L, lower.bound = 0, upper.bound = 1, mechanism = "analytic",
                      delta = 1e-5),
         list(n = 300L, lower_bound = 0, upper_bound = 1, mechanism = "analytic",
              delta = 1e-5)),
    list("covDP", list(n = 1000L, lower.bound1 = 0, upper.bound1 = 1, lower.bound2 = -2,
                       upper.bound2 = 2, alpha = 0.1),
         list(n = 1000L, lower_bound1 = 0, upper_bound1 = 1, lower_bound2 = -2,
              upper_bound2 = 2, alpha = 0.1))
  )
  for (case in cases) {
    r_args <- case[[2]]
    py_args <- case[[3]]
    if (is.null(r_args$eps)) r_args$eps <- 1
    if (is.null(py_args$eps)) py_args$eps <- 1
    r <- do.call(noiseIntervalDP, c(list(case[[1]], which.sensitivity = "unbounded"), r_args))
    py <- do.call(dp$noiseIntervalDP,
                  c(list(case[[1]], which_sensitivity = "unbounded"), py_args))
    expect_identical(r$half.width, py$half_width)
    expect_identical(r$coverage, py$coverage)
    expect_true(is.na(r$scale))
    expect_identical(r$law, py$law)
    # details in R's dotted names, the same numbers
    expect_identical(names(r$details), gsub("_", ".", names(py$details), fixed = TRUE))
    expect_identical(unname(unlist(r$details)), unname(unlist(py$details)))
  }
  r <- noiseIntervalDP("varDP", 1, n = 100, lower.bound = 0, upper.bound = 1,
                       which.sensitivity = "unbounded")
  expect_named(r$details, c("n", "half.width.sum", "half.width.squares", "half.width.count"))
  expect_identical(r$details$n, 100L)
})

test_that("'both', and the interval around a release", {
  both <- noiseIntervalDP("meanDP", 1, n = 50, lower.bound = 0, upper.bound = 1,
                          which.sensitivity = "both")
  expect_named(both, c("Bounded", "Unbounded"))
  expect_identical(both$Bounded$half.width,
                   noiseIntervalDP("meanDP", 1, n = 50, lower.bound = 0,
                                   upper.bound = 1)$half.width)
  expect_gt(both$Unbounded$half.width, both$Bounded$half.width)
  x <- c(rep(0.2, 100), rep(0.9, 100))
  s <- with_random_state(7, sdDP(x, 1, 0, 1, which.sensitivity = "unbounded"))
  r <- noiseIntervalDP("sdDP", 1, n = length(x), lower.bound = 0, upper.bound = 1,
                       which.sensitivity = "unbounded", released = s)
  expect_equal(c(r$lower, r$upper), sqrt(c(max(s^2 - r$half.width, 0), s^2 + r$half.width)))
})

test_that("refusals name R's arguments", {
  expect_dppack_error(
    noiseIntervalDP("covDP", 1, lower.bound1 = 0, upper.bound1 = 1, lower.bound2 = 0,
                    upper.bound2 = 1, which.sensitivity = "unbounded"),
    paste("n is required: the public sample size (which.sensitivity = 'bounded'), or a",
          "public lower bound on the number of records ('unbounded', 'both')."),
    "noiseIntervalDP")
  release <- tryCatch(varDP(c(1, 2, 3), 1, -1e160, 1e160, which.sensitivity = "unbounded"),
                      error = conditionMessage)
  expect_dppack_error(
    noiseIntervalDP("varDP", 1, n = 3, lower.bound = -1e160, upper.bound = 1e160,
                    which.sensitivity = "unbounded"),
    release, "noiseIntervalDP")
})
