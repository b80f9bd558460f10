# The mechanisms seen from R: DPpack 0.2.2's validation messages (its Mechanisms.R and
# Mechanisms_test.R) and our documented deviations, the shape of the results, ExponentialMechanism's
# R semantics, the analytic Gaussian calibration, and the noise distributions.

# ---------------------------------------------------------------------------------------------
# Validation: LaplaceMechanism (DPpack 0.2.2's checks and Mechanisms_test.R)
# ---------------------------------------------------------------------------------------------

test_that("LaplaceMechanism reports a missing argument with R's own error", {
  expect_error(LaplaceMechanism(), "argument \"true.values\" is missing", fixed = TRUE)
  expect_error(LaplaceMechanism(0, 1), "argument \"sensitivities\" is missing", fixed = TRUE)
  expect_error(LaplaceMechanism(0, sensitivities = 1), "argument \"eps\" is missing",
               fixed = TRUE)
})

test_that("a missing argument is reported from the user-facing function", {
  cnd <- expect_error(LaplaceMechanism(), "missing")
  expect_identical(conditionCall(cnd)[[1]], as.name("LaplaceMechanism"))
  cnd <- expect_error(GaussianMechanism(0, 0.5, 0.01), "missing")
  expect_identical(conditionCall(cnd)[[1]], as.name("GaussianMechanism"))
})

test_that("LaplaceMechanism rejects bad true.values with DPpack's message", {
  msg <- "true.values must be numeric atomic vectors or scalars."
  # An R list is not atomic: DPpack refuses it, although its elements are numbers.
  expect_dppack_error(LaplaceMechanism(list(1, 2), 1, 1), msg, "LaplaceMechanism")
  expect_dppack_error(GaussianMechanism(list(1, 2), 0.5, 0.1, 1), msg, "GaussianMechanism")
  expect_dppack_error(LaplaceMechanism(numeric(0), 1, 1),
                      "true.values must have at least one element.", "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism("a", 1, 1), msg, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(c(TRUE, FALSE), 1, 1), msg, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(factor(c(1, 2)), 1, 1), msg, "LaplaceMechanism")
})

test_that("LaplaceMechanism rejects bad eps with DPpack's message", {
  msg <- "eps must be a scalar > 0"
  expect_dppack_error(LaplaceMechanism(0, "a", 1), msg, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(0, -1, 1), msg, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(0, 0, 1), msg, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(0, c(1, 2), 1), msg, "LaplaceMechanism")
})

test_that("LaplaceMechanism rejects bad sensitivities with DPpack's messages", {
  len <- "Length of sensitivities must match length of true.values or be length 1."
  pos <- "Global sensitivities must be > 0."
  expect_dppack_error(LaplaceMechanism(0, 1, c(1, 2)), len, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(c(0, 0, 0), 1, c(0, 1)), len, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(0, 1, -1), pos, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(c(0, 0, 0), 1, c(1, 0, 1)), pos, "LaplaceMechanism")
})

test_that("LaplaceMechanism rejects bad alloc.proportions with DPpack's messages", {
  len <- "Length of alloc.proportions, if given, must match length of sensitivities."
  pos <- "Values in alloc.proportions, if given, must be > 0."
  expect_dppack_error(LaplaceMechanism(c(0, 0), 1, 1, c(1, 2, 3)), len, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(c(0, 0), 1, c(1, 1), 1), len, "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(c(0, 0), 1, c(1, 1), c(-1, 1)), pos,
                      "LaplaceMechanism")
  expect_dppack_error(LaplaceMechanism(c(0, 0), 1, c(1, 1), c(0, 1)), pos,
                      "LaplaceMechanism")
  # DPpack fails inside sum() here; we refuse with an error too.
  expect_error(LaplaceMechanism(0, 1, 1, "a"))
})

test_that("LaplaceMechanism deviations from DPpack: eps = Inf and alloc with one sensitivity", {
  # DPpack stops in rmutil ("s must be positive"); we refuse Inf with a clear message.
  cnd <- expect_error(LaplaceMechanism(0, Inf, 1), "eps must be finite", fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("LaplaceMechanism"))
  # DPpack accepts alloc.proportions with a single sensitivity for several values and then
  # crashes on NA; we refuse it up front.
  cnd <- expect_error(LaplaceMechanism(c(0, 0), 1, 1, 1),
                      "alloc.proportions needs one sensitivity per element of true.values",
                      fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("LaplaceMechanism"))
})

# ---------------------------------------------------------------------------------------------
# Validation: GaussianMechanism (DPpack 0.2.2's checks and Mechanisms_test.R)
# ---------------------------------------------------------------------------------------------

test_that("GaussianMechanism reports a missing argument with R's own error", {
  expect_error(GaussianMechanism(), "argument \"true.values\" is missing", fixed = TRUE)
  expect_error(GaussianMechanism(0, 0.5, 0.01), "argument \"sensitivities\" is missing",
               fixed = TRUE)
  expect_error(GaussianMechanism(0, 0.5, sensitivities = 1), "argument \"delta\" is missing",
               fixed = TRUE)
})

test_that("GaussianMechanism rejects bad true.values, eps and delta with DPpack's messages", {
  tv <- "true.values must be numeric atomic vectors or scalars."
  eps <- "eps must be a scalar > 0"
  delta <- "delta must be a scalar > 0"
  expect_dppack_error(GaussianMechanism("a", 0.5, 0.01, 1), tv, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, "a", 0.01, 1), eps, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, -1, 0.01, 1), eps, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0, 0.01, 1), eps, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0.5, "a", 1), delta, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0.5, -1, 1), delta, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0.5, 0, 1), delta, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0.5, c(0.1, 0.2), 1), delta, "GaussianMechanism")
})

test_that("GaussianMechanism rejects bad sensitivities with DPpack's messages", {
  expect_dppack_error(
    GaussianMechanism(0, 0.5, 0.01, c(1, 2)),
    "Length of sensitivities must match length of true.values or be length 1.",
    "GaussianMechanism"
  )
  expect_dppack_error(GaussianMechanism(0, 0.5, 0.01, -1), "Global sensitivities must be > 0.",
                      "GaussianMechanism")
})

test_that("GaussianMechanism checks type.DP and analytic with DPpack's messages, in order", {
  expect_dppack_error(GaussianMechanism(0, 0.5, 0.01, 1, type.DP = "pdp"),
                      "type.DP must be one of c(\"pDP\", \"aDP\").", "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 3, 0.01, 1),
                      "eps must be < 1 for aDP unless analytic is TRUE.", "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 1, 0.01, 1),
                      "eps must be < 1 for aDP unless analytic is TRUE.", "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0.5, 0.01, 1, type.DP = "pDP", analytic = TRUE),
                      "Only approximate DP can be used when analytic is TRUE.",
                      "GaussianMechanism")
  # DPpack checks analytic before the validity of type.DP.
  expect_dppack_error(GaussianMechanism(0, 0.5, 0.01, 1, type.DP = "pdp", analytic = TRUE),
                      "Only approximate DP can be used when analytic is TRUE.",
                      "GaussianMechanism")
  # eps >= 1 is fine with pDP or with the analytic calibration.
  expect_length(GaussianMechanism(0, 3, 0.01, 1, type.DP = "pDP"), 1)
  expect_length(GaussianMechanism(0, 3, 0.01, 1, analytic = TRUE), 1)
})

test_that("NA where a flag or a number is expected is refused, not read as TRUE", {
  expect_dppack_error(GaussianMechanism(0, 3, 0.1, 1, analytic = NA),
                      "analytic must be TRUE or FALSE.", "GaussianMechanism")
  expect_dppack_error(LaplaceMechanism(0, NA, 1), "eps must be a scalar > 0",
                      "LaplaceMechanism")
  expect_dppack_error(ExponentialMechanism(list(1, 2), 1, 1),
                      "utility must be a numeric atomic vector or scalar.",
                      "ExponentialMechanism")
})

test_that("GaussianMechanism rejects bad alloc.proportions with DPpack's messages", {
  len <- "Length of alloc.proportions, if given, must match length of sensitivities."
  pos <- "Values in alloc.proportions, if given, must be > 0."
  expect_dppack_error(GaussianMechanism(c(0, 0), 0.5, 0.01, 1, alloc.proportions = c(1, 2, 3)),
                      len, "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(c(0, 0), 0.5, 0.01, c(1, 1),
                                        alloc.proportions = c(1, -1)),
                      pos, "GaussianMechanism")
  expect_error(GaussianMechanism(c(0, 0), 0.5, 0.01, c(1, 1), alloc.proportions = c("a", "b")))
})

test_that("GaussianMechanism deviations from DPpack: eps = Inf, delta >= 1, alloc with one sensitivity", {
  cnd <- expect_error(GaussianMechanism(0, Inf, 0.01, 1, analytic = TRUE), "eps must be finite",
                      fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("GaussianMechanism"))
  expect_dppack_error(GaussianMechanism(0, 0.5, 1, 1), "delta must be < 1.",
                      "GaussianMechanism")
  expect_dppack_error(GaussianMechanism(0, 0.5, 1.5, 1, type.DP = "pDP"), "delta must be < 1.",
                      "GaussianMechanism")
  cnd <- expect_error(GaussianMechanism(c(0, 0), 0.5, 0.01, 1, alloc.proportions = 1),
                      "alloc.proportions needs one sensitivity per element of true.values",
                      fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("GaussianMechanism"))
})

# ---------------------------------------------------------------------------------------------
# Validation: ExponentialMechanism (DPpack 0.2.2's checks and Mechanisms_test.R)
# ---------------------------------------------------------------------------------------------

test_that("ExponentialMechanism reports a missing argument with R's own error", {
  expect_error(ExponentialMechanism(), "argument \"utility\" is missing", fixed = TRUE)
  expect_error(ExponentialMechanism(c(1, 2), 1), "argument \"sensitivity\" is missing",
               fixed = TRUE)
})

test_that("ExponentialMechanism rejects bad arguments with DPpack's messages", {
  u <- c(1, 2, 3)
  fun <- "ExponentialMechanism"
  expect_dppack_error(ExponentialMechanism("a", 1, 1),
                      "utility must be a numeric atomic vector or scalar.", fun)
  expect_dppack_error(ExponentialMechanism(u, "a", 1), "eps must be a scalar > 0", fun)
  expect_dppack_error(ExponentialMechanism(u, -1, 1), "eps must be a scalar > 0", fun)
  expect_dppack_error(ExponentialMechanism(u, 0, 1), "eps must be a scalar > 0", fun)
  expect_dppack_error(ExponentialMechanism(u, 1, c(1, 2)), "Length of sensitivity must be 1.",
                      fun)
  expect_dppack_error(ExponentialMechanism(u, 1, -1), "sensitivity must be > 0.", fun)
  expect_dppack_error(ExponentialMechanism(u, 1, 1, measure = c(1, 2)),
                      "Length of measure must match length of utility.", fun)
  expect_dppack_error(ExponentialMechanism(u, 1, 1, measure = c(1, -1, 1)),
                      "Values in measure cannot be negative.", fun)
  expect_dppack_error(ExponentialMechanism(u, 1, 1, candidates = c("a", "b")),
                      "Length of candidates must match length of utility", fun)
  expect_dppack_error(ExponentialMechanism(u, 1, 1, candidates = list("a", "b", "c", "d")),
                      "Length of candidates must match length of utility", fun)
})

test_that("ExponentialMechanism refuses eps = Inf (deviation from DPpack)", {
  cnd <- expect_error(ExponentialMechanism(c(1, 2, 3), Inf, 1), "eps must be finite",
                      fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("ExponentialMechanism"))
})

# ---------------------------------------------------------------------------------------------
# Results keep the shape of true.values (DPpack returns true.values + noise)
# ---------------------------------------------------------------------------------------------

test_that("a scalar gives a plain double scalar", {
  out <- LaplaceMechanism(5, 1, 1)
  expect_type(out, "double")
  expect_length(out, 1)
  expect_null(attributes(out))
  out <- GaussianMechanism(5, 0.5, 0.01, 1)
  expect_type(out, "double")
  expect_length(out, 1)
  expect_null(attributes(out))
})

test_that("a named vector keeps its names, values in place", {
  tv <- c(a = 1, b = 20, c = 300)
  out <- LaplaceMechanism(tv, 1, 1e-9)
  expect_identical(names(out), names(tv))
  expect_equal(out, tv, tolerance = 1e-6)   # tiny noise: each value stays where it was
  out <- GaussianMechanism(tv, 0.5, 0.01, 1e-9)
  expect_identical(names(out), names(tv))
  expect_equal(out, tv, tolerance = 1e-6)
})

test_that("a matrix keeps dim and dimnames, values in column-major place", {
  m <- matrix(c(1, 2, 3, 40, 50, 60), nrow = 2,
              dimnames = list(c("r1", "r2"), c("x", "y", "z")))
  out <- LaplaceMechanism(m, 1, 1e-9)
  expect_true(is.matrix(out))
  expect_identical(dim(out), dim(m))
  expect_identical(dimnames(out), dimnames(m))
  expect_equal(out, m, tolerance = 1e-6)
  out <- GaussianMechanism(m, 0.5, 0.01, 1e-9, type.DP = "pDP")
  expect_identical(dim(out), dim(m))
  expect_identical(dimnames(out), dimnames(m))
  expect_equal(out, m, tolerance = 1e-6)
})

test_that("a 3-d array keeps its dim", {
  a <- array(as.numeric(1:12), dim = c(2, 3, 2))
  out <- LaplaceMechanism(a, 1, 1e-9)
  expect_identical(dim(out), c(2L, 3L, 2L))
  expect_equal(out, a, tolerance = 1e-6)
})

test_that("integer input returns double", {
  out <- LaplaceMechanism(5L, 1, 1)
  expect_type(out, "double")
  out <- LaplaceMechanism(1:3, 1, 1)
  expect_type(out, "double")
  expect_length(out, 3)
  mi <- matrix(1:6, nrow = 2)
  out <- GaussianMechanism(mi, 0.5, 0.01, 1)
  expect_type(out, "double")
  expect_identical(dim(out), c(2L, 3L))
})

test_that("noise is actually added", {
  set.seed(11)
  out <- LaplaceMechanism(c(0, 0, 0), 1, 1)
  expect_true(all(out != 0))
  out <- GaussianMechanism(c(0, 0, 0), 0.5, 0.01, 1)
  expect_true(all(out != 0))
})

# ---------------------------------------------------------------------------------------------
# ExponentialMechanism's R semantics (DPpack 0.2.2: a 1-based index or candidates[k])
# ---------------------------------------------------------------------------------------------

test_that("ExponentialMechanism returns a 1-based integer index in 1..m", {
  set.seed(3)
  draws <- replicate(200, ExponentialMechanism(c(0, 0, 0), 1, 1))
  expect_type(draws, "integer")
  expect_true(all(draws %in% 1:3))
  expect_setequal(unique(draws), 1:3)   # both ends reachable: no 0, no m + 1
  one <- ExponentialMechanism(c(0, 0, 0), 1, 1)
  expect_type(one, "integer")
  expect_length(one, 1)
  expect_null(attributes(one))
  # A single candidate is always selected, as index 1.
  expect_identical(ExponentialMechanism(7, 1, 1), 1L)
})

test_that("ExponentialMechanism with an atomic candidates vector returns the element", {
  u <- c(-5, -1, 0, 3, -6, -2)
  cands <- c("a", "b", "c", "d", "e", "f")
  for (seed in 1:10) {
    set.seed(seed)
    index <- ExponentialMechanism(u, 1, 1)
    set.seed(seed)
    chosen <- ExponentialMechanism(u, 1, 1, candidates = cands)
    expect_identical(chosen, cands[index])
  }
  num <- ExponentialMechanism(u, 1, 1, candidates = 10 * (0:5))
  expect_type(num, "double")
  expect_length(num, 1)
  expect_true(num %in% (10 * (0:5)))
})

test_that("ExponentialMechanism with a list of candidates returns a list of length one", {
  u <- c(1, 2, 3)
  cands <- list(mean, "b", 1:3)
  for (seed in 1:10) {
    set.seed(seed)
    index <- ExponentialMechanism(u, 1, 1)
    set.seed(seed)
    chosen <- ExponentialMechanism(u, 1, 1, candidates = cands)
    expect_type(chosen, "list")
    expect_length(chosen, 1)
    expect_identical(chosen, cands[index])
  }
})

test_that("ExponentialMechanism never selects a zero-measure candidate", {
  set.seed(5)
  # The zero-measure candidates have the highest utility, and sit first, inside and last.
  draws <- replicate(200, ExponentialMechanism(c(5, 0, 5, 0, 5), 1, 1,
                                               measure = c(0, 1, 0, 1, 0)))
  expect_true(all(draws %in% c(2L, 4L)))
  expect_setequal(unique(draws), c(2L, 4L))
})

# ---------------------------------------------------------------------------------------------
# calibrateAnalyticGaussianMechanism: reference values of DPpack 0.2.2 (computed in R)
# ---------------------------------------------------------------------------------------------

test_that("calibrateAnalyticGaussianMechanism reproduces DPpack 0.2.2's values", {
  ref <- data.frame(
    epsilon = c(1, 0.5, 2, 0.1, 1, 5, 0.01),
    delta = c(1e-5, 0.01, 1e-6, 0.1, 0.5, 1e-10, 1e-5),
    sensitivity = c(1, 1, 1, 1, 1, 2, 1),
    sigma = c(3.73063163494, 3.14691309856, 2.23047623215, 2.84692443585, 0.507065031477,
              2.56185896486, 243.785436727)
  )
  for (i in seq_len(nrow(ref))) {
    sigma <- calibrateAnalyticGaussianMechanism(ref$epsilon[i], ref$delta[i],
                                                ref$sensitivity[i])
    expect_type(sigma, "double")
    expect_length(sigma, 1)
    # DPpack stops within tol = 1e-12 of delta on either side; DPpackPy only on the private
    # side (NEWS.md). Rows 3 and 7 are where DPpack's answer lies on the other side (its
    # delta(sigma) exceeds delta by ~4e-13): there the two differ by up to 1e-7.
    expect_equal(sigma, ref$sigma[i], tolerance = if (i %in% c(3, 7)) 1e-7 else 1e-10,
                 label = paste("row", i))
  }
  # Argument names are DPpack's (epsilon, sensitivity), not the mechanisms' ones.
  expect_equal(calibrateAnalyticGaussianMechanism(epsilon = 1, delta = 1e-5, sensitivity = 1,
                                                  tol = 1e-12),
               3.73063163494, tolerance = 1e-9)
})

# ---------------------------------------------------------------------------------------------
# Distributions. Every check below uses significance 0.001: for a correct implementation and a
# random seed it would fail with probability 0.001; under the fixed set.seed() the draws, and so
# the outcome, are deterministic (it passes every time or fails every time).
# ---------------------------------------------------------------------------------------------

n_draws <- 5000

test_that("Laplace noise has scale sum(sensitivities) / eps (KS test)", {
  # False-failure rate 0.001 per ks.test; deterministic under the fixed seed.
  set.seed(101)
  x <- LaplaceMechanism(numeric(n_draws), eps = 0.1, sensitivities = 0.5)   # b = 5
  expect_gt(stats::ks.test(x, plaplace, scale = 5)$p.value, 0.001)

  x <- LaplaceMechanism(rep(-5, n_draws), eps = 0.1, sensitivities = 1)     # b = 10
  expect_gt(stats::ks.test(x + 5, plaplace, scale = 10)$p.value, 0.001)

  # A vector of sensitivities: every value gets b = sum(Delta) / eps, here 3.5 / 1
  # (Mechanisms_test.R's Delta = (.5, 1, 2) case, over 3000 values so that the sum stays 3.5).
  sens <- rep(c(0.5, 1, 2) / 1000, length.out = 3000)
  x <- LaplaceMechanism(numeric(3000), eps = 1, sensitivities = sens)
  expect_gt(stats::ks.test(x, plaplace, scale = 3.5)$p.value, 0.001)
})

test_that("Laplace noise with alloc.proportions has scale Delta_i / (a_i eps) (KS test)", {
  # False-failure rate 0.001; deterministic under the fixed seed.
  set.seed(102)
  pairs <- 2500
  # Shares (1, 9) repeated `pairs` times normalise to (1, 9) / (10 * pairs); with eps = pairs
  # the per-value budgets are (0.1, 0.9), so b = (0.5 / 0.1, 1 / 0.9) = (5, 1.111) as in
  # DPpack's Mechanisms_test.R alloc (1, 9), Delta (.5, 1), eps 1 case.
  x <- LaplaceMechanism(numeric(2 * pairs), eps = pairs, sensitivities = rep(c(0.5, 1), pairs),
                        alloc.proportions = rep(c(1, 9), pairs))
  b <- rep(c(0.5 / 0.1, 1 / 0.9), pairs)
  expect_gt(stats::ks.test(x / b, plaplace, scale = 1)$p.value, 0.001)
})

test_that("Gaussian aDP noise has DPpack's sigma (KS test)", {
  # The formula written in the helper reproduces DPpack 0.2.2's value (computed in R).
  expect_equal(sigma_aDP(1, 0.5, 0.01), 6.21502292018, tolerance = 1e-9)
  # False-failure rate 0.001 per ks.test; deterministic under the fixed seed.
  set.seed(103)
  x <- GaussianMechanism(numeric(n_draws), eps = 0.5, delta = 0.01, sensitivities = 1)
  expect_gt(stats::ks.test(x, "pnorm", sd = sigma_aDP(1, 0.5, 0.01))$p.value, 0.001)

  x <- GaussianMechanism(rep(-5, n_draws), eps = 0.1, delta = 0.01, sensitivities = 1)
  expect_gt(stats::ks.test(x + 5, "pnorm", sd = sigma_aDP(1, 0.1, 0.01))$p.value, 0.001)

  # A vector of sensitivities: every value gets the sigma of their l2 norm, here
  # sqrt(0.25 + 1 + 4) (Mechanisms_test.R's Delta = (.5, 1, 2) case, over 3000 values).
  sens <- rep(c(0.5, 1, 2) / sqrt(1000), length.out = 3000)
  x <- GaussianMechanism(numeric(3000), eps = 0.5, delta = 0.01, sensitivities = sens)
  expect_gt(stats::ks.test(x, "pnorm", sd = sigma_aDP(sqrt(5.25), 0.5, 0.01))$p.value, 0.001)
})

# The standard deviation of the exact discrete Gaussian that the core draws for `m` values
# released in one call: DPpack's sigma, raised until the discrete noise on its grid meets
# the same guarantee (the core's mechanisms.discrete_gaussian_parameters).
# The integer variance of a vector can pass R's integer range (2^31): it is read as a double.
discrete_sd <- function(sigma, sensitivity, eps, delta, type.DP, m) {
  mechanisms <- reticulate::import("dppack.mechanisms", convert = FALSE)
  as_double <- reticulate::import_builtins(convert = TRUE)$float
  grid <- mechanisms$discrete_gaussian_parameters(sigma, sensitivity, eps = eps, delta = delta,
                                                  type_DP = type.DP, coordinates = as.integer(m))
  2^as_double(reticulate::py_get_item(grid, 0L)) *
    sqrt(as_double(reticulate::py_get_item(grid, 1L)))
}

test_that("Gaussian pDP and analytic noise have DPpack's sigma (KS test)", {
  expect_equal(sigma_pDP(1, 0.5, 0.01), 5.33896096907, tolerance = 1e-9)
  # False-failure rate 0.001 per ks.test; deterministic under the fixed seed. n_draws values
  # in one call are one vector release: the discrete calibration raises DPpack's sigma
  # (zCDP or a subgaussian bound for a vector, and one rounding step per value).
  set.seed(104)
  x <- GaussianMechanism(numeric(n_draws), eps = 0.5, delta = 0.01, sensitivities = 1,
                         type.DP = "pDP")
  sd <- discrete_sd(5.33896096907, 1, 0.5, 0.01, "pDP", n_draws)
  expect_true(sd >= 5.33896096907 && sd <= 1.5 * 5.33896096907)
  expect_gt(stats::ks.test(x, "pnorm", sd = sd)$p.value, 0.001)

  # Analytic calibration, eps >= 1 allowed: sigma from the table above.
  x <- GaussianMechanism(numeric(n_draws), eps = 2, delta = 1e-6, sensitivities = 1,
                         analytic = TRUE)
  sd <- discrete_sd(2.23047623215, 1, 2, 1e-6, "aDP", n_draws)
  expect_true(sd >= 2.23047623215 && sd <= 1.5 * 2.23047623215)
  expect_gt(stats::ks.test(x, "pnorm", sd = sd)$p.value, 0.001)
})

test_that("Gaussian pDP noise with alloc.proportions spends a_i eps and a_i delta (KS test)", {
  # False-failure rate 0.001; deterministic under the fixed seed.
  set.seed(105)
  pairs <- 2500
  eps <- 0.5 * 10 * pairs      # per-value eps (0.5, 4.5)
  delta <- 0.5                 # per-value delta (0.5, 4.5) / (10 * pairs)
  x <- GaussianMechanism(numeric(2 * pairs), eps = eps, delta = delta,
                         sensitivities = rep(c(1, 2), pairs), type.DP = "pDP",
                         alloc.proportions = rep(c(1, 9), pairs))
  a <- c(1, 9) / (10 * pairs)
  sigma <- rep(c(1, 2) * sigma_pDP(1, a * eps, a * delta), pairs)
  expect_gt(stats::ks.test(x / sigma, "pnorm")$p.value, 0.001)
})

test_that("ExponentialMechanism selects with probability measure * exp(eps u / (2 Delta)) (chi-square)", {
  # False-failure rate 0.001 per chisq.test; deterministic under the fixed seed.
  draws <- 2000
  set.seed(106)
  u <- -abs(1:6 - 3.5)
  sel <- replicate(draws, ExponentialMechanism(u, eps = 1, sensitivity = 1))
  p <- exp_mech_probs(u, 1, 1)
  expect_gt(stats::chisq.test(tabulate(sel, nbins = 6), p = p)$p.value, 0.001)

  u <- c(-5, -1, 0, 3, -6, -2)
  measure <- c(0.5, 1, 2, 0.5, 5, 1)
  sel <- replicate(draws, ExponentialMechanism(u, eps = 1, sensitivity = 2, measure = measure))
  p <- exp_mech_probs(u, 1, 2, measure)
  expect_gt(stats::chisq.test(tabulate(sel, nbins = 6), p = p)$p.value, 0.001)
})
