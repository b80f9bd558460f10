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
  on.exit(options(old), add = TRUE, after = FALSE)  # before the block's own restore
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

# The value, error (text and call) and warnings (text and call) of `code`.
call_outcome <- function(code) {
  warnings <- list()
  outcome <- withCallingHandlers(
    tryCatch(list(value = force(code)), error = function(e) {
      list(error = conditionMessage(e), call = conditionCall(e))
    }),
    warning = function(w) {
      warnings[[length(warnings) + 1L]] <<- list(conditionMessage(w), conditionCall(w))
      invokeRestart("muffleWarning")
    }
  )
  c(outcome, list(warnings = warnings))
}

test_that("the short call releases, refuses and warns as the general path, bit for bit", {
  local_default_randomness()
  # the core's generator for random_state None seeded at 42 for a while (in the default mode
  # each call seeds from the operating system), so that both paths draw the same numbers
  reticulate::py_run_string(paste(
    "import numpy as _np, dppack._random as _dppackpy_random",
    "_dppackpy_real = _dppackpy_random.as_generator",
    "_dppackpy_random.as_generator = lambda random_state=None: (_np.random.default_rng(42)",
    "    if random_state is None else _dppackpy_real(random_state))", sep = "\n"))
  on.exit(reticulate::py_run_string(
    "_dppackpy_random.as_generator = _dppackpy_real"), add = TRUE)
  x <- c(0.3, 1.7, 2.2, 5, -1, 9)
  ten <- seq(0.5, 9.5, length.out = 10)
  calls <- alist(
    quantileDP(x, 0.5, 1, 0, 10), quantileDP(x, 0.25, 1, 0, 10, "unbounded"),
    quantileDP(x, 0.5, 1, 0, 10, "both"), quantileDP(c(x, NA), 0.5, 1, 0, 10),
    quantileDP(x, NA_real_, 1, 0, 10), quantileDP(x, 0.5, Inf, 0, 10),
    quantileDP(x, 0.5, 1, 10, 0), quantileDP(x, -0, 1, -0, 10), quantileDP(3, 1, 1, 0, 10),
    quantileDP(numeric(0), 0.5, 1, 0, 10, "unbounded"), quantileDP(ten, 0.5, 1e308, 0, 10),
    quantileDP(x, 0.5, 5e-324, 0, 10), quantileDP(x, 0.5, 1, 0, 10, mechanism = "Laplace"),
    meanDP(x, 1, 0, 10), meanDP(x, 1, 0, 10, "both"), meanDP(c(x, NaN), 1, 0, 10),
    meanDP(x, 1, 0, 10, mechanism = "Gaussian"), meanDP(x, 1, 0, 10, delta = NA_real_)
  )
  short <- lapply(calls, function(code) call_outcome(eval(code)))
  # the general path: .plain_call() answers NULL (testthat 3.1.6 has no local_mocked_bindings)
  namespace <- asNamespace("DPpackPy")
  plain_call <- namespace$.plain_call
  set_plain_call <- function(f) {
    unlockBinding(".plain_call", namespace)
    assign(".plain_call", f, envir = namespace)
    lockBinding(".plain_call", namespace)
  }
  set_plain_call(function() NULL)
  on.exit(set_plain_call(plain_call), add = TRUE)
  general <- lapply(calls, function(code) call_outcome(eval(code)))
  for (i in seq_along(calls)) {
    expect_identical(short[[i]], general[[i]], label = deparse(calls[[i]]))
  }
  expect_identical(short[[1]]$value, call_outcome(quantileDP(x, 0.5, 1, 0, 10))$value)
  expect_length(short[[11]]$warnings, 0) # no NumPy overflow warning at eps 1e308
  expect_true(is.double(short[[12]]$value)) # a tiny eps releases a value
})
