# Accuracy-first ERM and noise reduction seen from R: signatures, result objects (1-based
# stop.index, dotted names), the accounting identities, messages without traceback, warnings,
# set.seed() reproducibility, and worked numbers at Ligett et al. (2017)'s settings;
# InteractiveAboveThreshold's R class (state fields, R query functions, errors before draws,
# its halting law). The noise
# laws and the accuracy simulation are tested in Python
# (tests/python/accuracy_first/test_noise_reduction.py, test_accuracy_first.py); bit-identity
# in test_cross_language_accuracy_first.py.

skip_if_not(dppack_available())

af_data <- function(n = 1500, seed = 11) {
  set.seed(seed)
  X <- matrix(stats::runif(3 * n, -2, 2), ncol = 3)  # seed set above
  y <- as.numeric(X %*% c(0.4, -0.3, 0.2) + stats::rnorm(n, sd = 0.5))  # seed set above
  list(X = X, y = y, ub = c(1.5, 1.5, 1.5, 3), lb = c(-1.5, -1.5, -1, -3))
}

test_that("worked numbers at Ligett et al. (2017)'s settings come through the R surface", {
  p <- accuracy_first_parameters("ridge", alpha = 0.05, lambda = 0.005, n = 1e5, d = 77,
                                 calibration = "paper")
  expect_equal(p$sensitivity, 0.0022928, tolerance = 1e-4)
  expect_equal(p$eps.test, 7.266, tolerance = 1e-4)
  expect_equal(p$eps.theory, 17.70, tolerance = 1e-3)
  expect_identical(p$doubling.levels, 24L)
  expect_equal(p$doubling.eps.test, 0.439, tolerance = 1e-3)
  tuned <- accuracy_first_parameters("ridge", 0.05, 0.005, 1e5, 77, calibration = "tuned")
  expect_equal(tuned$eps.test, 2.223, tolerance = 1e-3)
  logistic <- accuracy_first_parameters("logistic", 0.05, 0.005, 1e5, 38)
  expect_equal(logistic$sensitivity, 3.330e-4, tolerance = 1e-3)
})

test_that("the exact calibration is the default, cheaper than the paper's, and passes through", {
  # eps_A = 39.7 Delta / alpha at T = 1000, gamma = 0.1 (the paper's: 16 ln(20000) = 158.5)
  p <- accuracy_first_parameters("ridge", alpha = 0.05, lambda = 0.005, n = 1e5, d = 77)
  expect_equal(p$eps.test, 39.73 * p$sensitivity / 0.05, tolerance = 1e-3)
  expect_lte(p$failure, 0.1)
  expect_true(p$threshold.share > 0 && p$threshold.share < 1)
  expect_true(p$doubling.eps.test < 0.439 && p$doubling.threshold < 0.025)
  e <- above_threshold_calibration(0.05, 0.1, p$sensitivity, 1000)
  expect_identical(e[c("eps", "threshold", "threshold.share", "failure")],
                   list(eps = p$eps.test, threshold = p$threshold,
                        threshold.share = p$threshold.share, failure = p$failure))
  expect_identical(laplace_test_calibration(0.05, 0.1, p$sensitivity, 24)$eps,
                   p$doubling.eps.test)
  f <- above_threshold_failure(1, -0.5, 0.25, 0.3, 1)
  expect_named(f, c("failure", "all.above", "perfect.last"))
  expect_identical(f$failure, max(f$all.above, f$perfect.last))
  expect_dppack_error(above_threshold_calibration(0.1, 0.1, 0.01, 10, "fast"),
                      "calibration must be one of 'exact', 'paper' or 'tuned'.",
                      "above_threshold_calibration")
  expect_dppack_error(above_threshold_failure(0.1, 0, -1, 0.1, 10),
                      "threshold.scale must be >= 0.", "above_threshold_failure")
  # a small gamma: the exact calibration binds at it; below 1e-20 a clear error
  small <- above_threshold_calibration(0.1, 1e-12, 0.001, 10)
  expect_true(small$failure <= 1e-12 && small$failure > 0.99e-12)
  expect_dppack_error(above_threshold_calibration(0.1, 1e-21, 0.001, 10),
                      paste0("gamma must be >= 1e-20 for calibration = 'exact' (its failure ",
                             "probabilities are computed to within 1e-26); use calibration = ",
                             "'paper' for a smaller gamma."),
                      "above_threshold_calibration")
  # doubling_erm takes the calibration: "paper" tests cost 0.439 at the scale above
  d <- af_data()
  set.seed(7)
  db <- doubling_erm(d$X, d$y, "ridge", 0.02, 0.1, d$ub, d$lb, calibration = "paper")
  paper <- accuracy_first_parameters("ridge", 0.02, 0.1, 1500, 3, calibration = "paper")
  expect_equal(db$eps.test, db$stop.index * paper$doubling.eps.test)
  # InteractiveAboveThreshold takes the split
  iat <- InteractiveAboveThreshold$new(1, eps = 1, threshold = 0, sensitivity = 0.01,
                                       threshold.share = 0.3)
  expect_true(iat$query(50))
  expect_identical(
    tryCatch(InteractiveAboveThreshold$new(1, eps = 1, threshold = 0, sensitivity = 0.01,
                                           threshold.share = 1), error = conditionMessage),
    "threshold.share must be < 1.")
})

test_that("privacy_level_grid is the geometric grid without eps.max", {
  expect_equal(privacy_level_grid(0.01, 10, 4), 0.01 * 1000^((0:3) / 4))
  expect_dppack_error(privacy_level_grid(1, 1), "eps.min must be < eps.max.",
                      "privacy_level_grid")
})

test_that("accuracy_first_erm returns the model and its ex-post privacy loss", {
  d <- af_data()
  set.seed(5)
  r <- accuracy_first_erm(d$X, d$y, "ridge", alpha = 0.02, lambda = 0.1,
                          upper.bounds = d$ub, lower.bounds = d$lb, add.bias = TRUE)
  expect_s3_class(r, "accuracy_first")
  expect_true(r$success)
  expect_length(r$coeff, 4)
  expect_identical(r$method, "noise_reduction")
  expect_identical(r$eps, r$eps.test + r$eps.level)
  expect_identical(r$eps.generation, r$eps.level)
  grid <- privacy_level_grid(1 / 1500, accuracy_first_parameters(
    "ridge", 0.02, 0.1, 1500, 4)$eps.max, 1000)
  expect_identical(r$eps.level, grid[r$stop.index])  # 1-based in R
  expect_output(print(r), "ex-post eps")
  set.seed(5)
  again <- accuracy_first_erm(d$X, d$y, "ridge", alpha = 0.02, lambda = 0.1,
                              upper.bounds = d$ub, lower.bounds = d$lb, add.bias = TRUE)
  expect_identical(again$coeff, r$coeff)
})

test_that("logistic regression, the baselines and the failure flag", {
  d <- af_data()
  labels <- as.numeric(d$y > 0)
  set.seed(6)
  r <- accuracy_first_erm(d$X, labels, "logistic", 0.02, 0.05, d$ub[1:3], d$lb[1:3],
                          calibration = "tuned")
  expect_true(r$success)
  expect_identical(r$model, "logistic")
  db <- doubling_erm(d$X, d$y, "ridge", 0.02, 0.1, d$ub, d$lb)
  expect_equal(db$eps, db$eps.generation + db$eps.test)
  expect_equal(db$eps.generation, sum((1 / 1500) * 2^(seq_len(db$stop.index) - 1)))
  th <- theory_erm(d$X, d$y, "ridge", 0.02, 0.1, d$ub, d$lb)
  expect_null(th$stop.index)
  expect_identical(th$eps, accuracy_first_parameters("ridge", 0.02, 0.1, 1500, 3)$eps.theory)
  expect_warning(
    fail <- accuracy_first_erm(d$X, d$y, "ridge", 1e-5, 0.1, d$ub, d$lb, n.levels = 10,
                               eps.max = 0.01),
    "No privacy level met the accuracy target"
  )
  expect_false(fail$success)
  expect_identical(fail$stop.index, 10L)
  expect_output(print(fail), "NOT met")
})

test_that("bad input stops with the core's message and draws nothing", {
  d <- af_data(200)
  set.seed(1)
  before <- .Random.seed
  expect_dppack_error(
    accuracy_first_erm(d$X, d$y, "svm", 0.1, 0.1, d$ub, d$lb),
    "model must be one of 'ridge' or 'logistic'.", "accuracy_first_erm"
  )
  expect_dppack_error(
    accuracy_first_erm(d$X, d$y, "ridge", 0.1, 0.1, d$ub[1:3], d$lb[1:3]),
    "Length of upper.bounds must be equal to the number of columns of X plus 1 (for y).",
    "accuracy_first_erm"
  )
  expect_dppack_error(doubling_erm(d$X, d$y, "ridge", 0.1, 0.1, d$ub, d$lb, gamma = 1),
                      "gamma must be < 1.", "doubling_erm")
  expect_dppack_error(theory_erm(d$X, d$y, "logistic", 0.1, 0.1, d$ub[1:3], d$lb[1:3]),
                      "y must be a numeric vector of binary labels 0 and 1.", "theory_erm")
  expect_identical(.Random.seed, before)
})

test_that("noise reduction: shapes, data independence of the walk, online form", {
  set.seed(7)
  a <- LaplaceNoiseReduction(c(0, 0), eps = c(0.5, 1, 2), sensitivity = 1)
  set.seed(7)
  b <- LaplaceNoiseReduction(c(100, -3), eps = c(0.5, 1, 2), sensitivity = 1)
  expect_identical(dim(a), c(3L, 2L))
  expect_equal(b - a, matrix(c(100, -3), 3, 2, byrow = TRUE), tolerance = 1e-12)
  expect_identical(dim(LaplaceNoiseReduction(diag(2), c(1, 2), 1)), c(2L, 2L, 2L))
  expect_dppack_error(LaplaceNoiseReduction(1, c(2, 1), 1),
                      "eps must be strictly increasing (most private level first).",
                      "LaplaceNoiseReduction")
  expect_identical(dim(GaussianNoiseReduction(c(1, 2, 3), c(4, 1))), c(2L, 3L))
  nr <- LaplaceNoiseReductionOnline$new(c(10, 20), eps = 0.1, sensitivity = 1)
  first <- nr$release
  second <- nr$reduce(1)
  expect_length(second, 2)
  expect_identical(nr$eps, 1)
  expect_identical(nr$levels, c(0.1, 1))
  expect_error(nr$reduce(0.5), "noise can only be reduced")
  expect_identical(nr$release, second)
})

test_that("InteractiveAboveThreshold: state fields, 1-based halt.index, R functions of the data", {
  d <- data.frame(a = c(1, 2, 3), b = c("x", "y", "z"))
  seen <- NULL
  set.seed(21)
  iat <- InteractiveAboveThreshold$new(d, eps = 1, threshold = 0, sensitivity = 0.01)
  expect_identical(c(iat$eps, iat$threshold, iat$sensitivity), c(1, 0, 0.01))
  expect_false(iat$halted)
  expect_null(iat$halt.index)
  expect_identical(iat$n.queries, 0L)
  # query noise Lap(0.04), threshold noise Lap(0.02): a value 50 below (above) the threshold
  # passes (fails) with probability < exp(-600)
  expect_false(iat$query(-50))
  expect_false(iat$query(function(data) {
    seen <<- data
    -50
  }))
  expect_identical(seen, d)  # the R function got the data as given, a data frame
  expect_true(iat$query(function(data) 50 + data$a[1]))
  expect_true(iat$halted)
  expect_identical(iat$halt.index, 3L)
  expect_identical(iat$n.queries, 3L)
  expect_identical(iat$answers, c(FALSE, FALSE, TRUE))
  # after the halt: the core's message, and the query function is not run
  expect_error(iat$query(function(data) stop("must not run")),
               "InteractiveAboveThreshold has halted: it answers no more queries.", fixed = TRUE)
  expect_identical(iat$n.queries, 3L)
  set.seed(21)
  again <- InteractiveAboveThreshold$new(d, eps = 1, threshold = 0, sensitivity = 0.01)
  expect_identical(vapply(c(-50, -50, 50), again$query, logical(1)), iat$answers)
})

test_that("InteractiveAboveThreshold: bad settings and values stop before any draw", {
  set.seed(22)
  before <- .Random.seed
  bad_new <- function(...) {
    cnd <- expect_error(InteractiveAboveThreshold$new(...))
    expect_false(grepl("ValueError|TypeError|Traceback", conditionMessage(cnd)))
    conditionMessage(cnd)
  }
  expect_identical(bad_new(1, eps = 0, threshold = 0, sensitivity = 1),
                   bad_new(1, eps = -1, threshold = 0, sensitivity = 1))
  expect_match(bad_new(1, eps = 0, threshold = 0, sensitivity = 1), "^eps")
  expect_identical(bad_new(1, eps = 1, threshold = Inf, sensitivity = 1),
                   "threshold must be a finite number.")
  expect_identical(bad_new(1, eps = 1, threshold = "a", sensitivity = 1),
                   "threshold must be a finite number.")
  expect_match(bad_new(1, eps = 1, threshold = 0, sensitivity = NA), "^sensitivity")
  expect_identical(.Random.seed, before)
  # a refused query value draws nothing from the core's generator: the next draw of the
  # shared generator is the same as without the refused queries
  after_queries <- function(bad) {
    with_random_state(5, {
      iat <- InteractiveAboveThreshold$new(1:3, eps = 1, threshold = 100, sensitivity = 1)
      if (bad) {
        for (value in list(NA, NaN, Inf, "1", c(1, 2), list(1), NULL, function(d) "a",
                           function(d) d, function(d) mean)) {
          cnd <- expect_error(iat$query(value), "The query value must be a finite number.",
                              fixed = TRUE)
          expect_identical(deparse(conditionCall(cnd)[[1]]), "iat$query")
        }
      }
      iat$query(function(d) sum(d))
      LaplaceMechanism(0, eps = 1, sensitivities = 1)
    })
  }
  expect_identical(after_queries(TRUE), after_queries(FALSE))
})

test_that("InteractiveAboveThreshold halts with the Laplace law of Ligett et al. (2017)", {
  # Query v = W + 4 s (s = sensitivity / eps): halts when 4 s + Lap(4 s) >= Lap(2 s), i.e.
  # with probability 1 - P(Lap(2 s) + Lap(4 s) > 4 s) = 1 - (4 e^-2 - 16 e^-1) / (2 (4 - 16))
  # = 0.777. eps or sensitivity off by a factor 2 gives 0.913 or 0.657, 6 standard errors
  # away. Binomial test at level 1e-3 on 400 objects: false-failure rate 1e-3.
  p <- 1 - (4 * exp(-2) - 16 * exp(-1)) / (2 * (4 - 16))
  set.seed(23)
  halts <- vapply(seq_len(400), function(i) {
    iat <- InteractiveAboveThreshold$new(NULL, eps = 0.5, threshold = 3, sensitivity = 0.25)
    iat$query(3 + 4 * 0.25 / 0.5)
  }, logical(1))
  expect_gt(stats::binom.test(sum(halts), 400, p)$p.value, 1e-3)
})
