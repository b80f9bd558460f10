# Private confidence intervals (confintERM, confintDP, confint on the models) seen from R: the
# data.frame in the style of confint(), the privacy attributes, reproducibility under
# set.seed(), the core's error texts, and agreement with the model-free call. The noise laws
# and coverage are tested in Python
# (tests/python/confidence_intervals/test_confidence_intervals.py); bit-identity with Python
# in tests/python/cross_language/test_cross_language_confidence_intervals.py.

skip_if_not(dppack_available(), "the Python core dppack is not available")

ci_data <- function(n = 2000, seed = 11) {
  set.seed(seed)
  X <- data.frame(age = stats::runif(n, -1, 1), bmi = stats::runif(n, -1, 1))  # seed set
  y <- as.integer(0.8 * X$age - 0.5 * X$bmi + stats::rlogis(n) > 0)  # seed set above
  list(X = X, y = y, ub = c(1, 1), lb = c(-1, -1))
}

test_that("confintERM returns a confint()-style data.frame with the privacy spent", {
  d <- ci_data()
  set.seed(1)
  ci <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 1, add.bias = TRUE,
                   n.draws = 2000)
  expect_s3_class(ci, "confintDP")
  expect_s3_class(ci, "data.frame")
  expect_identical(names(ci), c("estimate", "2.5 %", "97.5 %"))
  expect_identical(rownames(ci), c("(Intercept)", "age", "bmi"))
  expect_true(all(ci[["2.5 %"]] < ci$estimate & ci$estimate < ci[["97.5 %"]]))
  expect_identical(attr(ci, "level"), 0.95)
  privacy <- attr(ci, "privacy")
  expect_identical(privacy$notion, "DP")
  expect_identical(privacy$eps, 1)
  expect_null(privacy$rho)
  expect_equal(privacy$budgets, c(0.5, 0.25, 0.25))
  expect_match(privacy$description, "eps = 1 in total", fixed = TRUE)
  expect_output(print(ci), "Private 95% confidence intervals; DP with eps = 1", fixed = TRUE)
})

test_that("zCDP: the split composes to rho, another split and level are honoured", {
  d <- ci_data()
  ci <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, rho = 0.1875, level = 0.9,
                   n.draws = 500)
  privacy <- attr(ci, "privacy")
  expect_identical(names(ci), c("estimate", "5 %", "95 %"))
  expect_identical(rownames(ci), c("age", "bmi"))
  expect_equal(privacy$eps.objective, 0.5)  # the zCDP split of Wang, Kifer and Lee 2019, Section 7
  expect_equal(privacy$eps.objective^2 / 2 + sum(privacy$budgets[2:3]), 0.1875)
  out <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 2, budget.split = c(2, 1, 1),
                    perturbation.method = "output", loss = "huber")
  expect_equal(attr(out, "privacy")$budgets, c(1, 0.5, 0.5))
  expect_null(attr(out, "privacy")$eps.objective)
})

test_that("set.seed() makes the intervals reproducible", {
  d <- ci_data()
  set.seed(3)
  a <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 1, n.draws = 300)
  set.seed(3)
  b <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 1, n.draws = 300)
  c <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 1, n.draws = 300)
  expect_identical(a, b)
  expect_false(identical(a$estimate, c$estimate))
})

test_that("with a large budget the intervals cover the non-private fit", {
  # eps = 200: the privacy noise is negligible, the intervals keep the sampling spread
  d <- ci_data(n = 5000)
  fit <- LogisticRegressionDP$new("l2", Inf, 10)
  fit$fit(d$X, d$y, d$ub, d$lb, add.bias = TRUE)
  set.seed(4)
  ci <- confintERM(d$X, d$y, d$ub, d$lb, gamma = 10, eps = 200, add.bias = TRUE,
                   n.draws = 2000)
  expect_true(all(ci[["2.5 %"]] < fit$coeff & fit$coeff < ci[["97.5 %"]]))
  expect_equal(ci$estimate, fit$coeff, tolerance = 0.05)
})

test_that("confintDP and confint() use the model's settings and leave it unfitted", {
  d <- ci_data()
  model <- svmDP$new("l2", eps = 1, gamma = 5, perturbation.method = "output", huber.h = 1)
  a <- with_random_state(7, confintDP(model, d$X, d$y, d$ub, d$lb, add.bias = TRUE,
                                      n.draws = 400))
  b <- with_random_state(7, confintERM(d$X, d$y, d$ub, d$lb, gamma = 5, eps = 1,
                                       loss = "huber", huber.h = 1,
                                       perturbation.method = "output", add.bias = TRUE,
                                       n.draws = 400))
  expect_identical(a, b)
  expect_null(model$coeff)
  lr <- LogisticRegressionDP$new("l2", eps = 1, gamma = 5)
  c <- with_random_state(8, confint(lr, "bmi", X = d$X, y = d$y, upper.bounds = d$ub,
                                    lower.bounds = d$lb, rho = 0.2, n.draws = 400))
  d2 <- with_random_state(8, confintDP(lr, d$X, d$y, d$ub, d$lb, rho = 0.2, n.draws = 400))
  expect_identical(rownames(c), "bmi")
  expect_identical(c$estimate, d2["bmi", "estimate"])
  expect_identical(attr(c, "privacy")$notion, "zCDP")
})

test_that("errors carry the core's text and leave R's random stream as it was", {
  d <- ci_data(n = 100)
  set.seed(9)
  before <- .Random.seed
  expect_dppack_error(confintERM(d$X, d$y, d$ub, d$lb, gamma = 4),
                      "Give exactly one privacy budget: eps (pure DP) or rho (zCDP).",
                      "confintERM")
  expect_identical(.Random.seed, before)
  expect_dppack_error(confintERM(d$X, d$y, 1, d$lb, gamma = 4, eps = 1),
                      "Length of upper.bounds must be equal to the number of columns of X.",
                      "confintERM")
  expect_dppack_error(confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 1,
                                 budget.split = c(1, 1)),
                      paste("budget.split must be three positive finite numbers (shares of",
                            "the budget for the coefficients, the Hessian and the covariance)."),
                      "confintERM")
  expect_dppack_error(confintDP(LinearRegressionDP$new("l2", 1, 0, 1), d$X, d$y, d$ub, d$lb),
                      paste("confintDP() is defined for LogisticRegressionDP and svmDP models",
                            "(private intervals, see confintDP()); a LinearRegressionDP has",
                            "none."), "confintDP")
  expect_dppack_error(confintERM(d$X, d$y, d$ub, d$lb, gamma = 4, eps = 1, eig.floor = 0),
                      "eig.floor must be a scalar > 0", "confintERM")
  expect_identical(.Random.seed, before)
  expect_error(confintERM(d$X, d$y, d$ub, d$lb, gamma = 0.1, eps = 1),
               "Objective perturbation needs gamma > 0.390", fixed = TRUE)
})
