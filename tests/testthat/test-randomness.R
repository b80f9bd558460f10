# Randomness seen from R (DESIGN.md, Randomness): by default every call is seeded from the
# operating system and R's random stream is left alone; with options(DPpackPy.reproducible =
# TRUE), which helper-dppack.R sets for the test run, set.seed() governs DPpackPy calls as it
# does R's own random functions; with_random_state() makes R output bit-identical to the
# Python core's.

test_that("by default, DPpackPy neither uses nor changes R's random stream", {
  local_default_randomness()
  set.seed(1)
  expected <- runif(3)
  set.seed(1)
  first <- runif(1)
  LaplaceMechanism(c(0, 0, 0), 1, 1)
  GaussianMechanism(c(0, 0), 0.5, 0.01, 1)
  ExponentialMechanism(c(1, 2, 3), 1, 1)
  expect_error(LaplaceMechanism(0, -1, 1))
  expect_identical(c(first, runif(2)), expected)
  # (Where no .Random.seed exists yet, reticulate's C++ wrappers, which bracket every Python
  # call with R's GetRNGstate()/PutRNGstate(), create one seeded from the clock, as R's first
  # runif() would; an existing stream they leave exactly as it was, as tested here.)
})

test_that("by default, calls after the same set.seed() give different output", {
  local_default_randomness()
  set.seed(2024)
  a <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  set.seed(2024)
  b <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  # Continuous noise from two independent OS-seeded generators: equal with probability 0.
  expect_false(any(a == b))
  u <- seq(0, 1, length.out = 1000)
  set.seed(2024)
  a <- replicate(20, ExponentialMechanism(u, 1, 1))
  set.seed(2024)
  b <- replicate(20, ExponentialMechanism(u, 1, 1))
  # 20 near-uniform draws among 1000 indices: all 20 equal with probability < 1e-50.
  expect_false(identical(a, b))
})

test_that("in reproducible mode, each call is seeded by four 32-bit words of R's stream", {
  expect_true(dppack_available())
  np <- reticulate::import("numpy", convert = TRUE)
  dp <- reticulate::import("dppack", convert = TRUE)
  int <- reticulate::import_builtins(convert = FALSE)$int
  set.seed(5)
  words <- floor(runif(4) * 2^32)
  # Each word is a 32-bit output of the Mersenne Twister: whole, in [0, 2^32), and the four
  # are not all below 2^31 (what a 31-bit seed would allow) for this seed.
  expect_true(all(words == floor(words) & words >= 0 & words < 2^32))
  expect_true(any(words >= 2^31))
  set.seed(5)
  expect_identical(DPpackPy:::.seed_words(), words)

  # The call's generator is NumPy's default_rng with the four words as its entropy.
  set.seed(5)
  r_value <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  py_value <- dp$LaplaceMechanism(c(0, 0, 0), 1, 1,
                                  random_state = np$random$default_rng(lapply(words, int)))
  expect_identical(r_value, as.vector(py_value))
  # Four words drawn: the stream moved on by exactly four runif() draws.
  after <- runif(1)
  set.seed(5)
  expect_identical(runif(5)[5], after)

  # Every word counts: changing any one of them changes the noise.
  noise <- function(w) {
    generator <- DPpackPy:::.call_core("seed_words_generator", words = w)
    dp$LaplaceMechanism(c(0, 0, 0), 1, 1, random_state = generator)
  }
  base <- noise(words)
  expect_identical(as.vector(base), r_value)
  for (i in 1:4) {
    changed <- words
    changed[i] <- (changed[i] + 1) %% 2^32
    expect_false(any(noise(changed) == base))
  }
})

test_that("the seed words are checked", {
  for (bad in list(c(1, 2, 3), c(1, 2, 3, 2^32), c(1, 2, 3, -1), c(1, 2, 3, 0.5), "a")) {
    expect_error(DPpackPy:::.call_core("seed_words_generator", words = bad),
                 "random_state words must be at least four whole numbers in [0, 2^32).",
                 fixed = TRUE)
  }
})

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

test_that("in reproducible mode, a refused call leaves R's random stream untouched, as in DPpack", {
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
