# Randomness seen from R (DESIGN.md, Randomness): set.seed() governs DPpackPy calls as it does
# R's own random functions, and with_random_state() makes R output bit-identical to the
# Python core's.

test_that("set.seed() makes every mechanism reproducible", {
  set.seed(2024)
  a <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  set.seed(2024)
  b <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  expect_identical(a, b)

  set.seed(2024)
  a <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  set.seed(2024)
  b <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  expect_identical(a, b)

  u <- seq(0, 1, length.out = 50)
  set.seed(2024)
  a <- replicate(20, ExponentialMechanism(u, 1, 1))
  set.seed(2024)
  b <- replicate(20, ExponentialMechanism(u, 1, 1))
  expect_identical(a, b)
})

test_that("different seeds give different output", {
  set.seed(1)
  a <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  set.seed(2)
  b <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  expect_false(any(a == b))

  set.seed(1)
  a <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  set.seed(2)
  b <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  expect_false(any(a == b))
})

test_that("consecutive calls after one set.seed() differ", {
  set.seed(3)
  a <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  b <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  expect_false(any(a == b))
  a <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  b <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  expect_false(any(a == b))
})

test_that("with_random_state() gives the same output every time", {
  a <- with_random_state(42, LaplaceMechanism(c(0, 0, 0), 1, 1))
  # R's own seed must not matter inside the block.
  set.seed(99)
  b <- with_random_state(42, LaplaceMechanism(c(0, 0, 0), 1, 1))
  expect_identical(a, b)
  expect_false(any(a == 0))
  c <- with_random_state(43, LaplaceMechanism(c(0, 0, 0), 1, 1))
  expect_false(any(a == c))
})

test_that("calls within one with_random_state() block continue one stream", {
  block <- function() {
    with_random_state(42, {
      first <- LaplaceMechanism(c(0, 0, 0), 1, 1)
      second <- LaplaceMechanism(c(0, 0, 0), 1, 1)
      list(first, second)
    })
  }
  one <- block()
  expect_false(any(one[[1]] == one[[2]]))
  expect_identical(block(), one)
  # The first call of the block is the single call of a fresh block.
  expect_identical(one[[1]], with_random_state(42, LaplaceMechanism(c(0, 0, 0), 1, 1)))
})

test_that("with_random_state() restores set.seed() behaviour afterwards", {
  set.seed(8)
  expected <- LaplaceMechanism(c(0, 0, 0), 1, 1)

  inside <- with_random_state(42, LaplaceMechanism(c(0, 0, 0), 1, 1))
  expect_null(DPpackPy:::.dppack$generator)
  set.seed(8)
  expect_identical(LaplaceMechanism(c(0, 0, 0), 1, 1), expected)
  # Outside the block, calls no longer draw from the block's generator.
  after <- replicate(2, LaplaceMechanism(c(0, 0, 0), 1, 1), simplify = FALSE)
  block <- with_random_state(42, {
    LaplaceMechanism(c(0, 0, 0), 1, 1)
    LaplaceMechanism(c(0, 0, 0), 1, 1)
  })
  expect_false(any(after[[1]] == block))
  expect_false(any(after[[2]] == block))
})

test_that("with_random_state() restores set.seed() behaviour when the code errors", {
  expect_error(with_random_state(42, stop("boom")), "boom", fixed = TRUE)
  expect_error(
    with_random_state(42, {
      LaplaceMechanism(0, 1, 1)
      LaplaceMechanism(0, -1, 1)
    }),
    "eps must be a scalar > 0", fixed = TRUE
  )
  expect_null(DPpackPy:::.dppack$generator)
  set.seed(8)
  a <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  set.seed(8)
  b <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  expect_identical(a, b)
  c <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  expect_false(any(b == c))
})

test_that("nested with_random_state() blocks restore the outer generator", {
  outer_only <- with_random_state(1, {
    LaplaceMechanism(0, 1, 1)
    LaplaceMechanism(0, 1, 1)
  })
  nested <- with_random_state(1, {
    LaplaceMechanism(0, 1, 1)
    with_random_state(2, LaplaceMechanism(0, 1, 1))
    LaplaceMechanism(0, 1, 1)
  })
  expect_identical(nested, outer_only)
  expect_null(DPpackPy:::.dppack$generator)
})

test_that("a refused call leaves R's random stream untouched, as in DPpack", {
  set.seed(11)
  expect_error(LaplaceMechanism(0, -1, 1))
  expect_error(ExponentialMechanism(c(1, 2), 1, 1, measure = c(1, -1)))
  after_errors <- LaplaceMechanism(0, 1, 1)
  set.seed(11)
  expect_identical(LaplaceMechanism(0, 1, 1), after_errors)
})

test_that("an invalid random_state gives a clear R error", {
  for (bad in list(-1, "a", 1.5, NULL)) {
    cnd <- expect_error(with_random_state(bad, LaplaceMechanism(0, 1, 1)),
                        "random_state must be a non-negative whole number.", fixed = TRUE)
    expect_false(grepl("TypeError|ValueError|Traceback", conditionMessage(cnd)))
    expect_identical(conditionCall(cnd)[[1]], as.name("with_random_state"))
  }
  expect_null(DPpackPy:::.dppack$generator)
})

test_that("with_random_state() output is bit-identical to the Python core's", {
  expect_true(dppack_available())   # loads the core's Python before reticulate is used
  np <- reticulate::import("numpy", convert = TRUE)
  dp <- reticulate::import("dppack", convert = TRUE)

  r_value <- with_random_state(7, LaplaceMechanism(c(0, 0, 0), 1, 1))
  py_value <- dp$LaplaceMechanism(c(0, 0, 0), 1, 1, random_state = np$random$default_rng(7L))
  expect_identical(r_value, as.vector(py_value))

  # Several calls in one block match several calls sharing one generator in Python.
  r_values <- with_random_state(7, list(
    LaplaceMechanism(c(0, 0, 0), 1, 1),
    GaussianMechanism(c(1, 2), 0.5, 0.01, c(1, 2)),
    ExponentialMechanism(c(-5, -1, 0, 3, -6, -2), 1, 1)
  ))
  rng <- np$random$default_rng(7L)
  py_values <- list(
    as.vector(dp$LaplaceMechanism(c(0, 0, 0), 1, 1, random_state = rng)),
    as.vector(dp$GaussianMechanism(c(1, 2), 0.5, 0.01, c(1, 2), random_state = rng)),
    # Python's index is 0-based, R's 1-based.
    as.integer(dp$ExponentialMechanism(c(-5, -1, 0, 3, -6, -2), 1, 1, random_state = rng)) + 1L
  )
  expect_identical(r_values, py_values)
})
