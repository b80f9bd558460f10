# The short call of meanDP and quantileDP (issue 29, .plain_call in R/bridge.R): in the
# default mode, plain arguments go to the core in one call without .call_core's steps; the
# values, errors, warnings and calls are those of the general path. (The other test files run
# in reproducible mode, where the general path is taken.)

# Record what reaches dppack._rbridge.r_call while `code` runs.
spy_r_call <- function(code) {
  state <- DPpackPy:::.dppack
  DPpackPy:::.r_call()
  real <- state$r_call
  seen <- list()
  state$r_call <- function(name, object, args, kwargs, words) {
    seen[[length(seen) + 1L]] <<- list(name = name, args = args, kwargs = kwargs)
    real(name, object, args, kwargs, words)
  }
  on.exit(state$r_call <- real, add = TRUE)
  force(code)
  seen
}

test_that("plain arguments take the short call: positional, no keywords, no seed words", {
  local_default_randomness()
  x <- seq(0.05, 0.95, length.out = 100)
  seen <- spy_r_call({
    m <- meanDP(x, 1, 0, 1)
    q <- quantileDP(x, 0.5, 1, 0, 1)
  })
  expect_length(seen, 2)
  expect_identical(seen[[1]]$args, list(as.array(x), 1, 0, 1, "bounded", "Laplace", 0, "aDP"))
  expect_identical(seen[[2]]$args, list(as.array(x), 0.5, 1, 0, 1, "bounded", "exponential"))
  expect_null(seen[[1]]$kwargs)
  expect_null(seen[[2]]$kwargs)
  expect_type(m, "double")
  expect_null(attributes(q))
  expect_true(q >= 0 && q <= 1)
  # one value sent as it is, as .to_py sends it
  one <- spy_r_call(quantileDP(0.3, 0.5, 1, 0, 1))
  expect_identical(one[[1]]$args[[1]], 0.3)
})

test_that("anything else takes the general path", {
  local_default_randomness()
  x <- seq(0.05, 0.95, length.out = 20)
  general <- function(code) is.list(spy_r_call(code)[[1]]$kwargs)
  expect_true(general(meanDP(as.integer(1:20), 1, 0, 30)))
  expect_true(general(meanDP(x, 1L, 0, 1)))
  expect_true(general(meanDP(matrix(x, 4), 1, 0, 1)))
  expect_true(general(quantileDP(x, 0.5, 1, 0, 1, resolution = 0.1)))
  expect_true(general(quantileDP(c(a = 1, b = 2), 0.5, 1, 0, 3)))
  acc <- BudgetAccountant$new(10)
  expect_true(general(quantileDP(x, 0.5, 1, 0, 1, accountant = acc)))
  expect_true(general(with_random_state(1, meanDP(x, 1, 0, 1))))
  old <- options(DPpackPy.reproducible = TRUE)
  on.exit(options(old), add = TRUE)
  expect_true(general(meanDP(x, 1, 0, 1)))
})

test_that("errors keep DPpack's text and the user's call on the short path", {
  local_default_randomness()
  x <- seq(0.05, 0.95, length.out = 20)
  expect_dppack_error(quantileDP(x, 2, 1, 0, 1),
                      "quant must be between 0 and 1.", "quantileDP")
  expect_dppack_error(meanDP(x, -1, 0, 1), "eps must be a scalar > 0", "meanDP")
  expect_dppack_error(meanDP(c(x, NA), 1, 0, 1), "x must be finite (no NA, NaN or Inf).",
                      "meanDP")
  expect_dppack_error(quantileDP(x, 0.5, 1, 1, 0), "lower.bound must be < upper.bound.",
                      "quantileDP")
  cnd <- expect_error(meanDP(x, 1, 0), "argument \"upper.bound\" is missing", fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("meanDP"))
  cnd <- expect_error(quantileDP(undefined_data, 0.5, 1, 0, 1), "undefined_data")
  expect_identical(conditionCall(cnd)[[1]], as.name("quantileDP"))
})

test_that("warnings and 'both' keep their form on the short path", {
  local_default_randomness()
  x <- seq(0.05, 0.95, length.out = 20)
  expect_warning(q <- quantileDP(x, 0.5, 1, 0, 1, which.sensitivity = "both"),
                 "Only one value will be returned", fixed = TRUE)
  expect_type(q, "double")
  both <- meanDP(x, 1, 0, 1, which.sensitivity = "both")
  expect_s3_class(both, "Sanitized Mean")
  expect_named(both, c("Bounded", "Unbounded"))
})
