# The thin R call (issue 29): one round trip to Python per release (dppack._rbridge.r_call),
# arguments converted once, the seed words of reproducible mode sent with the call. Its
# values, messages, condition classes and R random stream must be those of the report path it
# replaced (dppack._rbridge.call, one dict per call, and a separate round trip for the seed):
# pinned values were made by that path, and the report path itself is still there to compare
# with (`legacy` below). No timings here: benchmarks/small_calls.py measures them.

set.seed(1)
fast_x <- round(stats::runif(50), 3)

# The value of the core's `name` through the report path of before, with a generator from
# `seed` (as with_random_state(seed, ...) gives the thin path).
legacy <- function(name, ..., seed = 7) {
  core <- DPpackPy:::.core()
  kwargs <- list(...)
  kwargs$random_state <- DPpackPy:::.call_core("generator", random_state = seed)
  report <- core$call(name, list(), kwargs)
  expect_null(report$error)
  DPpackPy:::.drop_1d(report$value)
}

test_that("the thin path gives the values of the report path for a fixed generator", {
  expect_identical(unname(with_random_state(7, LaplaceMechanism(c(1, 2), 1, 1))),
                   legacy("LaplaceMechanism", true_values = array(c(1, 2)), eps = 1,
                          sensitivities = 1))
  expect_identical(with_random_state(7, GaussianMechanism(3, 0.5, 0.01, 1)),
                   legacy("GaussianMechanism", true_values = 3, eps = 0.5, delta = 0.01,
                          sensitivities = 1))
  for (stat in c("meanDP", "varDP", "sdDP")) {
    expect_identical(with_random_state(7, get(stat)(fast_x, 1, 0, 1)),
                     legacy(stat, x = array(fast_x), eps = 1, lower_bound = 0,
                            upper_bound = 1))
  }
  expect_identical(with_random_state(7, quantileDP(fast_x, 0.5, 1, 0, 1)),
                   legacy("quantileDP", x = array(fast_x), quant = 0.5, eps = 1,
                          lower_bound = 0, upper_bound = 1))
  # a result converted from a dict of the core (R's histogram) and a list ('both')
  h <- with_random_state(7, histogramDP(fast_x, 1, 0, 1))
  expect_identical(h$counts, legacy("histogramDP", x = array(fast_x), eps = 1,
                                    lower_bound = 0, upper_bound = 1)$counts)
  both <- with_random_state(7, meanDP(fast_x, 1, 0, 1, which.sensitivity = "both"))
  expect_identical(unclass(both), legacy("meanDP", x = array(fast_x), eps = 1,
                                         lower_bound = 0, upper_bound = 1,
                                         which_sensitivity = "both"))
  expect_s3_class(both, "Sanitized Mean")
})

test_that("the thin path keeps the values the report path released (pinned)", {
  # Made by the report path (DPpackPy before issue 29) with the same seeds; exact samplers on
  # power-of-two grids, so the same bits on every machine.
  expect_identical(with_random_state(7, LaplaceMechanism(c(a = 1, b = 2), 1, 1)),
                   c(a = 0.37490439414978027, b = 7.3001687526702881))
  expect_identical(with_random_state(7, GaussianMechanism(3, 0.5, 0.01, 1)), -3.6689453125)
  # meanDP and varDP re-pinned with issue 25's exact moments (the records rounded to the grid
  # of the bounds, the statistic exact): the same noise, a true value moved by the rounding
  expect_identical(with_random_state(7, meanDP(fast_x, 1, 0, 1)), 0.52009812742471695)
  expect_identical(with_random_state(7, varDP(fast_x, 1, 0, 1)), 0.061613976955413818)
  expect_identical(with_random_state(7, quantileDP(fast_x, 0.5, 1, 0, 1)), 0.62311501343380937)
  # (histogramDP is compared with the report path above only: its counts' law changed on
  # purpose, integer noise for counts, independently of the bridge)
  expect_identical(with_random_state(7, ExponentialMechanism(c(1, 2, 3), 1, 1)), 1L)
})

test_that("reproducible mode: set.seed() gives the values and the stream of before", {
  # helper-dppack.R turns reproducible mode on; the seed words now travel with the call.
  set.seed(3)
  expect_identical(LaplaceMechanism(0, 1, 1), -0.30869913101196289)
  expect_identical(meanDP(fast_x, 1, 0, 1), 0.48434627801179886)  # issue 25's exact mean
  expect_identical(stats::runif(1), 0.57760991901159286) # 4 draws per call, as before
  # A nested generator (ERM sampling blocks) is still a generator of the core.
  set.seed(3)
  expect_true(inherits(DPpackPy:::.random_generator(), "numpy.random._generator.Generator"))
})

test_that("errors keep their text, class and call, and give R's stream back", {
  set.seed(3)
  cnd <- expect_dppack_error(meanDP(fast_x, -1, 0, 1), "eps must be a scalar > 0", "meanDP")
  expect_identical(class(cnd), c("simpleError", "error", "condition"))
  expect_identical(conditionCall(cnd), quote(meanDP(fast_x, -1, 0, 1)))
  expect_identical(stats::runif(1), 0.16804152633994818) # as if the call was not made
  # an error of R's conversion (before any round trip), raised from the user's call
  cnd <- expect_dppack_error(LaplaceMechanism(0, 1, 1, accountant = 3),
                             "accountant must be a BudgetAccountant or NULL.",
                             "LaplaceMechanism")
  expect_identical(class(cnd), c("simpleError", "error", "condition"))
  expect_dppack_error(LaplaceMechanism(c(1, NA), 1, 1),
                      "true.values must be finite (no NA, NaN or Inf).", "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(NA_integer_, 1, 1),
                      "true.values must be finite (no NA, NaN or Inf).", "LaplaceMechanism")
  expect_dppack_error(meanDP(list(1, 2), 1, 0, 1), "x must be numeric.", "meanDP")
  expect_dppack_error(meanDP(factor(c("a", "b")), 1, 0, 1), "x must be numeric.", "meanDP")
  # an overspend: its own condition class, first
  acc <- BudgetAccountant$new(eps = 1)
  cnd <- expect_error(meanDP(fast_x, 2, 0, 1, accountant = acc),
                      class = "DPpackPy_budget_exceeded")
  expect_identical(class(cnd), c("DPpackPy_budget_exceeded", "error", "condition"))
  expect_match(conditionMessage(cnd), "^Privacy budget exceeded: spending eps = 2")
  expect_identical(conditionCall(cnd), quote(meanDP(fast_x, 2, 0, 1, accountant = acc)))
})

test_that("warnings keep their text and call, and the value still comes back", {
  expect_warning(
    value <- with_random_state(7, quantileDP(fast_x, 0.5, 1, 0, 1, which.sensitivity = "both")),
    paste("Sensitivity based on bounded and unbounded differential privacy is identical for",
          "this statistic. Only one value will be returned."),
    fixed = TRUE
  )
  expect_identical(value, with_random_state(7, quantileDP(fast_x, 0.5, 1, 0, 1)))
  cnd <- tryCatch(quantileDP(fast_x, 0.5, 1, 0, 1, which.sensitivity = "both"),
                  warning = function(w) w)
  expect_identical(class(cnd), c("simpleWarning", "warning", "condition"))
  expect_identical(conditionCall(cnd)[[1]], as.name("quantileDP"))
})

test_that("the bridge's handles are looked up once and reused", {
  LaplaceMechanism(0, 1, 1)
  handle <- DPpackPy:::.dppack$r_call
  expect_true(is.function(handle))
  meanDP(fast_x, 1, 0, 1)
  expect_identical(DPpackPy:::.dppack$r_call, handle)
  # a vector goes to the call as an R array (reticulate converts it there, once)
  expect_identical(DPpackPy:::.to_py(c(1, 2)), array(c(1, 2)))
  expect_identical(DPpackPy:::.to_py(2), 2)
  # a model fit goes through the same call (a method of the core object)
  set.seed(1)
  X <- matrix(stats::runif(200, -1, 1), ncol = 2)
  y <- as.numeric(X[, 1] + X[, 2] > 0)
  fit <- function() {
    with_random_state(5, LogisticRegressionDP$new("l2", 1, 1)$fit(X, y, c(1, 1), c(-1, -1)))
  }
  expect_identical(fit()$coeff, fit()$coeff)
})
