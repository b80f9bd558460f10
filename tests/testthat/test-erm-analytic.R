# OutputPerturbationAGM (OPERA) and GradientPerturbationAGM (sound GRPUA) seen from R: the R6
# signatures, fields and predictions, Ding et al.'s sensitivity and noise scale (written here),
# eps = Inf fits against a non-private optimum computed here in R, reproducibility under
# set.seed(), and errors before any draw. The noise laws, the accountant and the accuracy
# checks are tested in Python
# (tests/python/analytic_gaussian_erm/test_analytic_gaussian_erm.py); bit-identity with
# Python in tests/python/cross_language/test_cross_language_analytic_gaussian_erm.py.

# (the two classes share fit() and predict() through their internal base AnalyticGaussianERM)
agm_method <- r6_method

agm_expect_error <- function(object, message, head) {
  cnd <- expect_error(object, message, fixed = TRUE)
  expect_false(grepl("ValueError|TypeError|Traceback", conditionMessage(cnd)))
  expect_identical(deparse(conditionCall(cnd)[[1]]), head)
  invisible(cnd)
}

# Fixed data: two features on [-2, 2], labels 0/1 (drawn once; seed fixed).
set.seed(20261121)
agm_n <- 300L
agm_X <- matrix(stats::runif(2 * agm_n, -2, 2), ncol = 2, dimnames = list(NULL, c("a", "b")))
agm_y <- as.numeric(agm_X[, 1] - agm_X[, 2] + stats::rnorm(agm_n, sd = 0.5) > 0)
agm_up <- c(2, 2)
agm_lo <- c(-2, -2)

# The regularised objective of Ding et al. (Section III) on the scaled data (rows
# x / (2 sqrt(3)) with the bias column), minimised by stats::optim; coefficients returned on
# the scale of X.
agm_reference <- function(loss, gamma, h = 0.5) {
  Xb <- cbind(1, agm_X)
  s <- c(1, 2, 2) * sqrt(3)
  Xs <- sweep(Xb, 2, s, "/")
  yy <- 2 * agm_y - 1
  n <- nrow(Xs)
  l <- function(u) {
    if (loss == "logistic") log1p(exp(-u))
    else ifelse(1 - u > h, 1 - u, ifelse(1 - u < -h, 0, (1 + h - u)^2 / (4 * h)))
  }
  dl <- function(u) {
    if (loss == "logistic") -1 / (1 + exp(u))
    else ifelse(1 - u > h, -1, ifelse(1 - u < -h, 0, -(1 + h - u) / (2 * h)))
  }
  f <- function(w) mean(l(yy * drop(Xs %*% w))) + gamma / n * sum(w^2) / 2
  gr <- function(w) drop(crossprod(Xs, yy * dl(yy * drop(Xs %*% w)))) / n + gamma / n * w
  o <- stats::optim(rep(0, 3), f, gr, method = "BFGS",
                    control = list(reltol = 1e-15, maxit = 10000))
  o$par / s
}

test_that("the constructors have the documented signatures", {
  expect_identical(
    formals(agm_method(OutputPerturbationAGM, "initialize")),
    formals(function(loss, eps, delta, gamma, huber.h = 0.5, iterations = NULL,
                     step.size = NULL, sensitivity.bound = "paper", analytic = TRUE,
                     radius = NULL) NULL)
  )
  expect_identical(
    formals(agm_method(GradientPerturbationAGM, "initialize")),
    formals(function(loss, eps, delta, gamma, huber.h = 0.5, iterations = NULL,
                     step.offset = 0, radius = NULL, amplification = "tight",
                     analytic = TRUE) NULL)
  )
  for (generator in list(OutputPerturbationAGM, GradientPerturbationAGM)) {
    expect_identical(names(formals(agm_method(generator, "fit"))),
                     c("X", "y", "upper.bounds", "lower.bounds", "add.bias", "accountant"))
    expect_identical(formals(agm_method(generator, "predict")),
                     formals(function(X, add.bias = NULL, raw.value = FALSE) NULL))
  }
})

test_that("OPERA stores Ding et al.'s sensitivity and the aGM sigma", {
  gamma <- 30
  m <- OutputPerturbationAGM$new("logistic", eps = 0.5, delta = 1e-4, gamma = gamma,
                                 iterations = 20)
  set.seed(1)
  m$fit(agm_X, agm_y, agm_up, agm_lo, add.bias = TRUE)
  mu <- gamma / agm_n
  beta <- 1 / 4 + mu
  expect_equal(m$Delta, 5 * (mu + beta) / (agm_n * mu * beta), tolerance = 1e-12)
  expect_identical(m$sigma, calibrateAnalyticGaussianMechanism(0.5, 1e-4, m$Delta))
  expect_identical(m$n.iterations, 20L)
  expect_length(m$coeff, 3)
  h <- OutputPerturbationAGM$new("huber", 0.5, 1e-4, gamma, huber.h = 0.25, iterations = 5,
                                 sensitivity.bound = "tight")
  h$fit(agm_X, agm_y, agm_up, agm_lo, add.bias = TRUE)
  beta_h <- 1 / (2 * 0.25) + mu
  expect_equal(h$Delta, 2 * (mu + beta_h) / (agm_n * mu * beta_h), tolerance = 1e-12)
})

test_that("without noise, OPERA's gradient descent reaches the optimum computed in R", {
  for (loss in c("logistic", "huber")) {
    m <- OutputPerturbationAGM$new(loss, Inf, 1e-5, gamma = 20, iterations = 3000)
    m$fit(as.data.frame(agm_X), agm_y, agm_up, agm_lo, add.bias = TRUE)
    expect_equal(m$coeff, agm_reference(loss, 20), tolerance = 1e-5)
    expect_identical(m$sigma, 0)
  }
})

test_that("predict gives labels, probabilities or scores; fits follow set.seed()", {
  for (generator in list(OutputPerturbationAGM, GradientPerturbationAGM)) {
    for (loss in c("logistic", "huber")) {
      m <- generator$new(loss, 2, 1e-5, 10, iterations = 300)
      agm_expect_error(m$predict(agm_X), "The model must be fitted before predict",
                       "m$predict")
      set.seed(7)
      m$fit(agm_X, agm_y, agm_up, agm_lo, add.bias = TRUE)
      first <- m$coeff
      set.seed(7)
      m$fit(agm_X, agm_y, agm_up, agm_lo, add.bias = TRUE)
      expect_identical(m$coeff, first)
      labels <- m$predict(agm_X, add.bias = TRUE)
      raw <- m$predict(agm_X, add.bias = TRUE, raw.value = TRUE)
      score <- drop(cbind(1, agm_X) %*% m$coeff)
      expect_true(all(labels %in% c(0, 1)))
      expect_equal(as.vector(labels), as.numeric(score > 0))
      expected <- if (loss == "logistic") stats::plogis(score) else score
      expect_equal(as.vector(raw), expected, tolerance = 1e-12)
    }
  }
})

test_that("GRPUA reports its per-step budget and totals within the request", {
  m <- GradientPerturbationAGM$new("logistic", eps = 1, delta = 1e-5, gamma = 10)
  set.seed(3)
  m$fit(agm_X, agm_y, agm_up, agm_lo, add.bias = TRUE)
  expect_identical(m$n.iterations, 50L * agm_n)
  expect_lte(m$eps.total, 1)
  expect_lte(m$delta.total, 1e-5 * (1 + 1e-15))
  expect_equal(m$delta.step, 1e-5 / 2 * agm_n / (50 * agm_n), tolerance = 1e-12)
  expect_identical(m$sigma, calibrateAnalyticGaussianMechanism(m$eps.step, m$delta.step, 2))
  expect_identical(m$Delta, 2)
  free <- GradientPerturbationAGM$new("huber", Inf, 1e-5, 10, iterations = 100)
  free$fit(agm_X, agm_y, agm_up, agm_lo)
  expect_identical(free$sigma, 0)
  expect_null(free$delta.step)
})

test_that("invalid settings stop with the core's message and leave R's stream alone", {
  agm_expect_error(OutputPerturbationAGM$new("hinge", 1, 1e-5, 1),
                   "loss must be one of c(\"logistic\", \"huber\").", "OutputPerturbationAGM$new")
  agm_expect_error(GradientPerturbationAGM$new("logistic", 1, 1e-5, 0),
                   "radius must be given when gamma = 0", "GradientPerturbationAGM$new")
  agm_expect_error(OutputPerturbationAGM$new("logistic", 2, 1e-5, 1, analytic = FALSE),
                   "eps must be < 1 for the classical Gaussian mechanism",
                   "OutputPerturbationAGM$new")
  m <- GradientPerturbationAGM$new("logistic", 1, 1e-5, 1)
  set.seed(11)
  before <- .Random.seed
  agm_expect_error(m$fit(agm_X, c(agm_y[-1], 2), agm_up, agm_lo),
                   "y must be a numeric vector of binary labels 0 and 1.", "m$fit")
  agm_expect_error(m$fit(agm_X, agm_y, 1, agm_lo),
                   "Length of upper.bounds must be equal to the number of columns of X.",
                   "m$fit")
  expect_identical(.Random.seed, before)
})
