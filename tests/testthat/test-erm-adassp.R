# LinearRegressionAdaSSP seen from R: its R6 signatures, fields, messages, reproducibility
# under set.seed(), eps = Inf against lm() and accuracy on a large sample. The noise laws and
# exactness are tested in Python (tests/python/erm/test_adassp.py); bit-identity with Python in
# tests/python/cross_language/test_cross_language_adassp.py.

adassp_data <- function(n = 4000, seed = 11) {
  set.seed(seed)
  X <- data.frame(a = stats::runif(n, -1, 1), b = stats::runif(n, 0, 2))
  y <- 0.5 + 0.8 * X$a - 0.3 * X$b + stats::rnorm(n, sd = 0.1)
  list(X = X, y = y, upper = c(1, 2, 3), lower = c(-1, 0, -2))
}

test_that("LinearRegressionAdaSSP has DPpack's model signatures", {
  r6_formals <- function(method) formals(LinearRegressionAdaSSP$public_methods[[method]])
  expect_identical(names(r6_formals("initialize")), c("eps", "delta"))
  expect_identical(names(r6_formals("fit")),
                   c("X", "y", "upper.bounds", "lower.bounds", "add.bias", "accountant"))
  expect_identical(names(r6_formals("predict")), c("X", "add.bias"))
  expect_identical(class(LinearRegressionAdaSSP$new(1)),
                   c("LinearRegressionAdaSSP", "CoreObject", "R6"))
})

test_that("a fit gives coefficients, predictions, the ridge and the privacy loss", {
  d <- adassp_data(20000)
  model <- LinearRegressionAdaSSP$new(eps = 1)
  expect_null(model$coeff)
  expect_invisible(model$fit(d$X, d$y, d$upper, d$lower, add.bias = TRUE))
  expect_length(model$coeff, 3)
  # the noise of the statistics at eps = 1 moves the coefficients by about 0.02 at this n
  expect_lt(max(abs(model$coeff - c(0.5, 0.8, -0.3))), 0.1)
  pred <- model$predict(d$X[1:5, ], add.bias = TRUE)
  expect_identical(dim(pred), c(5L, 1L))
  expect_equal(pred[, 1], unname(drop(cbind(1, as.matrix(d$X[1:5, ])) %*% model$coeff)))
  expect_true(model$ridge >= 0)
  expect_identical(model$method, "full")
  expect_identical(format(model$privacy), format(privacy_loss_pure(1)))
})

test_that("few rows against the features at eps = 1: the projected release", {
  d <- adassp_data(200)
  model <- LinearRegressionAdaSSP$new(eps = 1)
  model$fit(d$X, d$y, d$upper, d$lower, add.bias = TRUE)
  expect_identical(model$method, "projected")
  expect_length(model$coeff, 3)
  expect_true(all(is.finite(model$coeff)))
})

test_that("set.seed() reproduces a fit; eps = Inf is least squares", {
  d <- adassp_data(500)
  fit <- function() {
    set.seed(5)
    LinearRegressionAdaSSP$new(0.5, 1e-5)$fit(d$X, d$y, d$upper, d$lower, TRUE)$coeff
  }
  expect_identical(fit(), fit())
  exact <- LinearRegressionAdaSSP$new(Inf)$fit(d$X, d$y, d$upper, d$lower, TRUE)
  ols <- unname(stats::coef(stats::lm(d$y ~ d$X$a + d$X$b)))
  expect_equal(exact$coeff, ols, tolerance = 1e-4)
})

test_that("bad settings and data stop with the core's message before any draw", {
  expect_error(LinearRegressionAdaSSP$new(-1), "eps must be a scalar > 0", fixed = TRUE)
  expect_error(LinearRegressionAdaSSP$new(1, 2), "delta")
  d <- adassp_data(50)
  model <- LinearRegressionAdaSSP$new(1)
  cnd <- expect_error(model$fit(d$X, d$y, c(1, 1), c(-1, -1)),
                      "Length of upper.bounds must be equal", fixed = TRUE)
  expect_false(grepl("ValueError|Traceback", conditionMessage(cnd)))
  acc <- BudgetAccountant$new(1.5)
  model$fit(d$X, d$y, d$upper, d$lower, accountant = acc)
  expect_error(model$fit(d$X, d$y, d$upper, d$lower, accountant = acc), "budget")
})
