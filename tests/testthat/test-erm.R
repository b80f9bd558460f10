# The ERM classes and tuning functions seen from R: DPpack 0.2.2's R6 signatures, messages and
# fields, shapes of predictions, reproducibility under set.seed(), eps = Inf fits against
# non-private solutions computed here in R, R subclasses with R functions, and the examples of
# the DPpack paper (Giddens and Liu 2023, appendix D). The noise laws are tested in Python
# (tests/python/erm/test_erm_*.py, test_tuning.py); bit-identity with Python in
# tests/python/cross_language/test_cross_language.py.

# ---- helpers ------------------------------------------------------------------------------

# An error of an R6 method (call head `model$fit`, `svmDP$new`, ...): DPpack's exact text, no
# Python class prefix or traceback, raised from the user's call.
expect_method_error <- function(object, message, head) {
  cnd <- expect_error(object, message, fixed = TRUE)
  expect_identical(conditionMessage(cnd), message)
  expect_false(grepl("ValueError|TypeError|Traceback", conditionMessage(cnd)))
  expect_identical(deparse(conditionCall(cnd)[[1]]), head)
  invisible(cnd)
}

clip_cols <- function(X, lower, upper) {
  X <- as.matrix(X)
  pmin(pmax(X, rep(lower, each = nrow(X))), rep(upper, each = nrow(X)))
}

# Non-private logistic regression as DPpack 0.2.2's LogisticRegressionDP defines it:
# clip, scale column j by s_j sqrt(p), minimise (1/n) sum CE + (gamma/n) ||theta||^2 / 2,
# unscale. Solved by stats::optim (BFGS, reltol 1e-14) with the analytic gradient.
ref_logistic <- function(X, y, upper, lower, gamma, add.bias = FALSE) {
  X <- clip_cols(X, lower, upper)
  if (add.bias) {
    X <- cbind(1, X)
    upper <- c(1, upper)
    lower <- c(1, lower)
  }
  n <- nrow(X)
  s <- pmax(abs(upper), abs(lower)) * sqrt(ncol(X))
  Xs <- sweep(X, 2, s, "/")
  f <- function(t) {
    z <- drop(Xs %*% t)
    mean(log1p(exp(z)) - y * z) + gamma / n * sum(t^2) / 2
  }
  gr <- function(t) drop(crossprod(Xs, plogis(drop(Xs %*% t)) - y)) / n + gamma / n * t
  o <- stats::optim(rep(0, ncol(X)), f, gr, method = "BFGS",
                    control = list(reltol = 1e-14, maxit = 10000))
  o$par / s
}

# The same with gamma = 1 as the CMS base class fits it: neither scaled nor unscaled, the plain
# objective on the data clipped to the bounds (labels y_cls, defined below).
ref_logistic_plain <- function(X, upper, lower) {
  f <- function(t) {
    z <- drop(clip_cols(X, lower, upper) %*% t)
    mean(log1p(exp(z)) - y_cls * z) + sum(t^2) / 2 / nrow(X)
  }
  stats::optim(c(0, 0), f, method = "BFGS", control = list(reltol = 1e-14, maxit = 1e4))$par
}

# Non-private linear SVM with the weighted Huber loss, as DPpack 0.2.2's svmDP defines it.
# With scale = FALSE: the same objective on the clipped, unscaled data (WeightedERMDP.CMS).
ref_svm <- function(X, y, upper, lower, gamma, h = 0.5, w = rep(1, nrow(X)), scale = TRUE) {
  X <- clip_cols(X, lower, upper)
  n <- nrow(X)
  s <- if (scale) pmax(abs(upper), abs(lower)) * sqrt(ncol(X)) else rep(1, ncol(X))
  Xs <- sweep(X, 2, s, "/")
  yy <- 2 * y - 1
  hub <- function(z) ifelse(z > 1 + h, 0, ifelse(z < 1 - h, 1 - z, (1 + h - z)^2 / (4 * h)))
  dhub <- function(z) ifelse(z > 1 + h, 0, ifelse(z < 1 - h, -1, -(1 + h - z) / (2 * h)))
  f <- function(t) sum(w * hub(yy * drop(Xs %*% t))) / n + gamma / n * sum(t^2) / 2
  gr <- function(t) {
    drop(crossprod(Xs, w * yy * dhub(yy * drop(Xs %*% t)))) / n + gamma / n * t
  }
  o <- stats::optim(rep(0, ncol(X)), f, gr, method = "BFGS",
                    control = list(reltol = 1e-15, maxit = 10000))
  o$par / s
}

expect_rel_equal <- function(object, expected, tol = 1e-6) {
  expect_lt(max(abs(object - expected) / pmax(abs(expected), 1e-12)), tol)
}

# Two classes with bounded features (fixed data for every test below).
set.seed(20240607)
n_cls <- 80L
X_cls <- matrix(stats::runif(2 * n_cls, -2, 2), ncol = 2, dimnames = list(NULL, c("a", "b")))
y_cls <- as.numeric(X_cls[, 1] - 0.5 * X_cls[, 2] + stats::rnorm(n_cls, sd = 0.8) > 0)
ub_cls <- c(2, 3)
lb_cls <- c(-1.5, -2)
df_cls <- as.data.frame(X_cls)

n_reg <- 100L
x_reg <- stats::runif(n_reg, -1, 1)
y_reg <- -0.3 + 0.5 * x_reg + stats::rnorm(n_reg, sd = 0.1)
df_reg <- data.frame(x = x_reg)

# ---- signatures ---------------------------------------------------------------------------

test_that("the R6 constructors have DPpack 0.2.2's signatures and defaults", {
  expect_identical(
    formals(r6_method(EmpiricalRiskMinimizationDP.CMS, "initialize")),
    formals(function(mapXy, loss, regularizer, eps, gamma, perturbation.method = "objective",
                     c = NULL, mapXy.gr = NULL, loss.gr = NULL, regularizer.gr = NULL) NULL)
  )
  expect_identical(
    formals(r6_method(WeightedERMDP.CMS, "initialize")),
    formals(r6_method(EmpiricalRiskMinimizationDP.CMS, "initialize"))
  )
  expect_identical(
    formals(r6_method(LogisticRegressionDP, "initialize")),
    formals(function(regularizer, eps, gamma, perturbation.method = "objective",
                     regularizer.gr = NULL) NULL)
  )
  expect_identical(
    formals(r6_method(svmDP, "initialize")),
    formals(function(regularizer, eps, gamma, perturbation.method = "objective",
                     kernel = "linear", D = NULL, kernel.param = NULL, regularizer.gr = NULL,
                     huber.h = 0.5) NULL)
  )
  expect_identical(
    formals(r6_method(EmpiricalRiskMinimizationDP.KST, "initialize")),
    formals(function(mapXy, loss, regularizer, eps, delta, domain, zeta, lambda, gamma,
                     mapXy.gr = NULL, loss.gr = NULL, regularizer.gr = NULL) NULL)
  )
  expect_identical(
    formals(r6_method(LinearRegressionDP, "initialize")),
    formals(function(regularizer, eps, delta, gamma, regularizer.gr = NULL) NULL)
  )
})

test_that("fit and predict have DPpack 0.2.2's signatures in every class", {
  # fit: DPpack's arguments, then the accountant (test-accounting.R)
  fit_cms <- formals(function(X, y, upper.bounds, lower.bounds, add.bias = FALSE,
                              accountant = NULL) NULL)
  fit_weighted <- formals(function(X, y, upper.bounds, lower.bounds, add.bias = FALSE,
                                   weights = NULL, weights.upper.bound = NULL,
                                   accountant = NULL) NULL)
  # predict's add.bias defaults to NULL (as fitted; a deviation listed in NEWS.md): every
  # call DPpack's default answered is answered alike (test-friction.R)
  predict_plain <- formals(function(X, add.bias = NULL) NULL)
  predict_raw <- formals(function(X, add.bias = NULL, raw.value = FALSE) NULL)
  expect_identical(formals(r6_method(EmpiricalRiskMinimizationDP.CMS, "fit")), fit_cms)
  expect_identical(formals(r6_method(EmpiricalRiskMinimizationDP.CMS, "predict")),
                   predict_plain)
  expect_identical(formals(r6_method(WeightedERMDP.CMS, "fit")), fit_weighted)
  expect_identical(formals(r6_method(WeightedERMDP.CMS, "predict")), predict_plain)
  expect_identical(formals(r6_method(LogisticRegressionDP, "fit")), fit_cms)
  expect_identical(formals(r6_method(LogisticRegressionDP, "predict")), predict_raw)
  expect_identical(formals(r6_method(svmDP, "fit")), fit_weighted)
  expect_identical(formals(r6_method(svmDP, "predict")), predict_raw)
  expect_identical(names(formals(r6_method(svmDP, "XtoV"))), "X")
  expect_identical(formals(r6_method(EmpiricalRiskMinimizationDP.KST, "fit")), fit_cms)
  expect_identical(formals(r6_method(EmpiricalRiskMinimizationDP.KST, "predict")),
                   predict_plain)
  expect_identical(formals(r6_method(LinearRegressionDP, "fit")), fit_cms)
  expect_identical(formals(r6_method(LinearRegressionDP, "predict")), predict_plain)
})

test_that("the tuning functions have DPpack 0.2.2's signatures, then `accountant`", {
  expect_identical(
    formals(tune_classification_model),
    formals(function(DPmodels, X, y, upper.bounds, lower.bounds, add.bias = FALSE,
                     weights = NULL, weights.upper.bound = NULL, accountant = NULL) NULL)
  )
  expect_identical(
    formals(tune_linear_regression_model),
    formals(function(DPmodels, X, y, upper.bounds, lower.bounds, add.bias = FALSE,
                     accountant = NULL) NULL)
  )
})

test_that("the class hierarchy and public fields are DPpack's", {
  # DPpack's public fields are active bindings onto the core model (plus the read-only
  # privacy); the classes have no other fields
  cms_fields <- c("mapXy", "mapXy.gr", "loss", "loss.gr", "regularizer", "regularizer.gr",
                  "gamma", "eps", "perturbation.method", "c", "coeff", "kernel", "D",
                  "sampling", "phi", "kernel.param", "prefilter")
  expect_setequal(names(EmpiricalRiskMinimizationDP.CMS$active),
                  c(cms_fields, "privacy"))
  expect_null(EmpiricalRiskMinimizationDP.CMS$public_fields)
  expect_setequal(names(EmpiricalRiskMinimizationDP.KST$active),
                  c("mapXy", "mapXy.gr", "loss", "loss.gr", "regularizer", "regularizer.gr",
                    "gamma", "eps", "delta", "domain", "zeta", "lambda", "coeff", "privacy"))
  expect_null(EmpiricalRiskMinimizationDP.KST$public_fields)
  # DPpack's hierarchy, over DPpackPy's internal base of the classes over a core object
  expect_identical(class(svmDP$new("l2", 1, 1)),
                   c("svmDP", "WeightedERMDP.CMS", "EmpiricalRiskMinimizationDP.CMS",
                     "CoreObject", "R6"))
  expect_identical(class(LogisticRegressionDP$new("l2", 1, 1)),
                   c("LogisticRegressionDP", "EmpiricalRiskMinimizationDP.CMS", "CoreObject",
                     "R6"))
  expect_identical(class(LinearRegressionDP$new("l2", 1, 0, 1)),
                   c("LinearRegressionDP", "EmpiricalRiskMinimizationDP.KST", "CoreObject",
                     "R6"))
  m <- LogisticRegressionDP$new("l2", 1, 0.5)
  expect_identical(m$c, 1 / 4)
  expect_identical(m$perturbation.method, "objective")
  expect_true(is.function(m$clone))
  expect_identical(svmDP$new("l2", 1, 1, huber.h = 0.25)$c, 2)
})

# ---- DPpack's messages ----------------------------------------------------------------------

test_that("the constructors stop with DPpack's messages", {
  expect_method_error(LogisticRegressionDP$new("l1", 1, 0.5),
                      "regularizer must be one of c(\"l2\"), or a function.",
                      "LogisticRegressionDP$new")
  expect_method_error(svmDP$new("ridge", 1, 0.5),
                      "regularizer must be one of c(\"l2\"), or a function.", "svmDP$new")
  expect_method_error(LinearRegressionDP$new("abc", 1, 0, 1),
                      "regularizer must be one of c(\"l2\"), or a function.",
                      "LinearRegressionDP$new")
  expect_method_error(LogisticRegressionDP$new("l2", 1, 0.5, "input"),
                      "perturbation.method must be one of 'output' or 'objective'.",
                      "LogisticRegressionDP$new")
  expect_method_error(svmDP$new("l2", 1, 0.5, "both"),
                      "perturbation.method must be one of 'output' or 'objective'.",
                      "svmDP$new")
  expect_method_error(
    EmpiricalRiskMinimizationDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "l2", 1, 1),
    "c must be given for 'objective' perturbation.method.",
    "EmpiricalRiskMinimizationDP.CMS$new"
  )
  expect_method_error(
    WeightedERMDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "l2", 1, 1),
    "c must be given for 'objective' perturbation.method.", "WeightedERMDP.CMS$new"
  )
  # c is not needed for output perturbation
  expect_no_error(EmpiricalRiskMinimizationDP.CMS$new(mapXy.linear, generate.loss.huber(0.5),
                                                      "l2", 1, 1, "output"))
  expect_method_error(svmDP$new("l2", 1, 1, kernel = "Gaussian"),
                      "D must be specified for nonlinear kernel.", "svmDP$new")
  # NEWS.md: DPpack's two-line message is one line here
  expect_method_error(svmDP$new("l2", 1, 1, kernel = "polynomial"),
                      "kernel must be one of c(\"linear\", \"Gaussian\").", "svmDP$new")
})

test_that("fit stops with DPpack's messages, before any noise is drawn", {
  m <- LogisticRegressionDP$new("l2", 1, 0.5)
  set.seed(1)
  before <- .Random.seed
  expect_method_error(m$fit(X_cls, y_cls, c(1, 1, 1), lb_cls),
                      "Length of upper.bounds must be equal to the number of columns of X.",
                      "m$fit")
  expect_method_error(m$fit(X_cls, y_cls, ub_cls, -1),
                      "Length of lower.bounds must be equal to the number of columns of X.",
                      "m$fit")
  expect_identical(.Random.seed, before)
  # NEWS.md: DPpack's two-line message is one line here
  expect_method_error(m$fit(X_cls, y_cls + 1, ub_cls, lb_cls),
                      "y must be a numeric vector of binary labels 0 and 1.", "m$fit")
  expect_method_error(m$fit(X_cls, 2 * y_cls - 1, ub_cls, lb_cls),
                      "y must be a numeric vector of binary labels 0 and 1.", "m$fit")
  expect_identical(.Random.seed, before)
  expect_null(m$coeff)

  s <- svmDP$new("l2", 1, 1)
  expect_method_error(s$fit(X_cls, y_cls + 2, ub_cls, lb_cls),
                      "y must be a numeric vector of binary labels 0 and 1.", "s$fit")
  expect_method_error(s$fit(X_cls, y_cls, ub_cls, lb_cls, weights = rep(1, n_cls),
                            weights.upper.bound = 1),
                      "Weighted SVM is only implemented for output perturbation.", "s$fit")
  so <- svmDP$new("l2", 1, 1, "output")
  expect_method_error(so$fit(X_cls, y_cls, ub_cls, lb_cls, weights = rep(1, n_cls)),
                      "Upper bound on weights must be given if weights vector given.",
                      "so$fit")
  expect_method_error(so$fit(X_cls, y_cls, ub_cls, lb_cls,
                             weights = c(-0.1, rep(1, n_cls - 1)), weights.upper.bound = 1),
                      "Weights must be nonnegative.", "so$fit")
  w <- WeightedERMDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "l2", 1, 1, c = 1,
                             mapXy.gr = mapXy.gr.linear, loss.gr = generate.loss.gr.huber(0.5))
  expect_method_error(
    w$fit(X_cls / 4, 2 * y_cls - 1, c(1, 1), c(-1, -1), weights = rep(1, n_cls),
          weights.upper.bound = 1),
    paste("Currently, weighting ERM samples only tested for SVM with output",
          " perturbation and should not be used with objective perturbation."),
    "w$fit"
  )
  expect_identical(.Random.seed, before)

  # LogisticRegressionDP has no weights: an R "unused argument" error, as in DPpack
  expect_error(m$fit(X_cls, y_cls, ub_cls, lb_cls, weights = rep(1, n_cls)), "unused argument")

  k <- LinearRegressionDP$new("l2", 1, 0, 1)
  expect_method_error(
    k$fit(df_reg, y_reg, c(1), c(-1, -2)),
    "Length of upper.bounds must be equal to the number of columns of X plus 1 (for y).",
    "k$fit"
  )
  expect_method_error(
    k$fit(df_reg, y_reg, c(1, 2), c(-1)),
    "Length of lower.bounds must be equal to the number of columns of X plus 1 (for y).",
    "k$fit"
  )
  expect_identical(.Random.seed, before)
})

# ---- fields and fit -------------------------------------------------------------------------

test_that("fit returns the model invisibly and fills its fields", {
  m <- LogisticRegressionDP$new("l2", 1, 0.5)
  expect_null(m$coeff)
  out <- expect_invisible(m$fit(df_cls, y_cls, ub_cls, lb_cls))
  expect_identical(out, m)
  expect_true(is.numeric(m$coeff) && is.null(dim(m$coeff)))
  expect_length(m$coeff, 2)
  expect_true(all(is.finite(m$coeff)))
  m$fit(df_cls, y_cls, ub_cls, lb_cls, add.bias = TRUE)
  expect_length(m$coeff, 3)

  s <- svmDP$new("l2", 1, 1, "output")
  s$fit(X_cls, y_cls, ub_cls, lb_cls, add.bias = TRUE)
  expect_length(s$coeff, 3)
  expect_null(s$prefilter)

  k <- LinearRegressionDP$new("l2", 1, 0.01, 1)
  expect_invisible(k$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE))
  expect_length(k$coeff, 2)
  expect_equal(k$zeta, 2 * 2^1.5)
  expect_equal(k$lambda, 2)
  k$fit(cbind(df_reg, z = x_reg^2), y_reg, c(1, 1, 2), c(-1, 0, -2), add.bias = TRUE)
  expect_length(k$coeff, 3)
  expect_equal(k$zeta, 2 * 3^1.5)
  expect_equal(k$lambda, 3)
})

test_that("Gaussian svmDP freezes kernel.param at the first fit; prefilter is D x (d+1)", {
  g <- svmDP$new("l2", 1, 1, "output", kernel = "Gaussian", D = 7)
  expect_null(g$kernel.param)
  g$fit(X_cls, y_cls) # no bounds needed
  expect_equal(g$kernel.param, 1 / 2)
  expect_identical(dim(g$prefilter), c(7L, 3L))
  expect_length(g$coeff, 7)
  expect_true(all(abs(g$prefilter[, 3]) <= pi))
  # a second fit on four columns keeps 1/2
  g$fit(cbind(X_cls, X_cls^2), y_cls)
  expect_equal(g$kernel.param, 1 / 2)
  expect_identical(dim(g$prefilter), c(7L, 5L))
  # the bias column counts in d, not in the default kernel.param
  b <- svmDP$new("l2", 1, 1, "output", kernel = "Gaussian", D = 4)
  b$fit(X_cls, y_cls, add.bias = TRUE)
  expect_equal(b$kernel.param, 1 / 2)
  expect_identical(dim(b$prefilter), c(4L, 4L))
  # a given kernel.param is kept
  k <- svmDP$new("l2", 1, 1, kernel = "Gaussian", D = 3, kernel.param = 2.5)
  k$fit(X_cls, y_cls)
  expect_equal(k$kernel.param, 2.5)
  # the frequencies have sd sqrt(2 kernel.param)
  wide <- svmDP$new("l2", 1, 1, "output", kernel = "Gaussian", D = 2000, kernel.param = 8)
  set.seed(11)
  wide$fit(X_cls, y_cls)
  expect_equal(stats::sd(as.vector(wide$prefilter[, 1:2])), 4, tolerance = 0.05)
})

test_that("public fields changed after construction are used by the next fit", {
  m <- LogisticRegressionDP$new("l2", Inf, 1)
  m$gamma <- 50
  m$fit(X_cls, y_cls, ub_cls, lb_cls)
  m50 <- LogisticRegressionDP$new("l2", Inf, 50)
  m50$fit(X_cls, y_cls, ub_cls, lb_cls)
  expect_identical(m$coeff, m50$coeff)
})

# ---- predict --------------------------------------------------------------------------------

test_that("predict returns n x 1 matrices of labels, probabilities or scores", {
  m <- LogisticRegressionDP$new("l2", 1, 0.5)
  m$fit(df_cls, y_cls, ub_cls, lb_cls)
  lab <- m$predict(df_cls)
  expect_true(is.matrix(lab))
  expect_identical(dim(lab), c(n_cls, 1L))
  expect_true(all(lab %in% c(0, 1)))
  prob <- m$predict(X_cls, raw.value = TRUE)
  expect_identical(dim(prob), c(n_cls, 1L))
  expect_equal(as.vector(prob), plogis(drop(X_cls %*% m$coeff)), tolerance = 1e-12)
  expect_identical(as.vector(lab), as.vector(round(prob)))
  m$fit(df_cls, y_cls, ub_cls, lb_cls, add.bias = TRUE)
  expect_equal(as.vector(m$predict(df_cls, add.bias = TRUE, raw.value = TRUE)),
               plogis(drop(cbind(1, X_cls) %*% m$coeff)), tolerance = 1e-12)

  s <- svmDP$new("l2", 2, 1)
  s$fit(X_cls, y_cls, ub_cls, lb_cls)
  score <- s$predict(X_cls, raw.value = TRUE)
  expect_identical(dim(score), c(n_cls, 1L))
  expect_equal(as.vector(score), drop(X_cls %*% s$coeff), tolerance = 1e-12)
  lab <- s$predict(df_cls)
  expect_identical(dim(lab), c(n_cls, 1L))
  expect_identical(as.vector(lab), as.numeric(score > 0))

  g <- svmDP$new("l2", 2, 1, "output", kernel = "Gaussian", D = 6)
  g$fit(df_cls, y_cls)
  V <- g$XtoV(X_cls)
  expect_identical(dim(V), c(n_cls, 6L))
  W <- g$prefilter
  expect_equal(V, sqrt(2 / 6) * cos(X_cls %*% t(W[, 1:2]) + rep(W[, 3], each = n_cls)),
               tolerance = 1e-12, ignore_attr = TRUE)
  gs <- g$predict(X_cls, raw.value = TRUE)
  expect_identical(dim(gs), c(n_cls, 1L))
  expect_equal(as.vector(gs), drop(V %*% g$coeff), tolerance = 1e-12)
  expect_identical(as.vector(g$predict(X_cls)), as.numeric(gs > 0))

  k <- LinearRegressionDP$new("l2", 1, 0.01, 1)
  k$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
  p <- k$predict(df_reg, add.bias = TRUE)
  expect_identical(dim(p), c(n_reg, 1L))
  expect_equal(as.vector(p), drop(cbind(1, x_reg) %*% k$coeff), tolerance = 1e-12)

  expect_method_error(LogisticRegressionDP$new("l2", 1, 1)$predict(X_cls),
                      "The model must be fitted before predict: call fit() first.",
                      "LogisticRegressionDP$new(\"l2\", 1, 1)$predict")
})

# ---- reproducibility ------------------------------------------------------------------------

test_that("set.seed() makes every fit reproducible", {
  b2 <- c(1, 2)
  fits <- list(
    logistic_objective = function() {
      LogisticRegressionDP$new("l2", 1, 0.5)$fit(X_cls, y_cls, ub_cls, lb_cls)
    },
    logistic_output = function() {
      LogisticRegressionDP$new("l2", 1, 0.5, "output")$fit(X_cls, y_cls, ub_cls, lb_cls)
    },
    svm_objective = function() svmDP$new("l2", 1, 1)$fit(X_cls, y_cls, ub_cls, lb_cls),
    svm_weighted = function() {
      svmDP$new("l2", 1, 1, "output")$fit(X_cls, y_cls, ub_cls, lb_cls,
                                          weights = rep(c(1, 0.5), n_cls / 2),
                                          weights.upper.bound = 1)
    },
    svm_gaussian = function() {
      svmDP$new("l2", 1, 1, kernel = "Gaussian", D = 5)$fit(X_cls, y_cls)
    },
    linreg_pure = function() {
      LinearRegressionDP$new("l2", 1, 0, 1)$fit(df_reg, y_reg, b2, -b2)
    },
    linreg_approx = function() {
      LinearRegressionDP$new("l2", 1, 0.01, 1)$fit(df_reg, y_reg, b2, -b2, TRUE)
    }
  )
  for (name in names(fits)) {
    set.seed(42)
    a <- fits[[name]]()
    set.seed(42)
    b <- fits[[name]]()
    set.seed(43)
    c <- fits[[name]]()
    expect_identical(a$coeff, b$coeff, label = name)
    expect_false(identical(a$coeff, c$coeff), label = name)
    if (!is.null(a$prefilter)) expect_identical(a$prefilter, b$prefilter)
  }
})

# ---- eps = Inf against non-private solutions computed in R ----------------------------------

test_that("LogisticRegressionDP with eps = Inf is the non-private regularised fit", {
  for (gamma in c(0.01, 1, 25)) {
    for (method in c("objective", "output")) {
      m <- LogisticRegressionDP$new("l2", Inf, gamma, method)
      m$fit(X_cls, y_cls, ub_cls, lb_cls)
      expect_rel_equal(m$coeff, ref_logistic(X_cls, y_cls, ub_cls, lb_cls, gamma))
    }
  }
  m <- LogisticRegressionDP$new("l2", Inf, 0.5)
  m$fit(df_cls, y_cls, ub_cls, lb_cls, add.bias = TRUE)
  expect_rel_equal(m$coeff, ref_logistic(X_cls, y_cls, ub_cls, lb_cls, 0.5, add.bias = TRUE))
  # a user regularizer without gradient (finite differences): same optimum to 1e-5
  f <- LogisticRegressionDP$new(function(coeff) sum(coeff^2) / 2, Inf, 1)
  f$fit(X_cls, y_cls, ub_cls, lb_cls)
  expect_rel_equal(f$coeff, ref_logistic(X_cls, y_cls, ub_cls, lb_cls, 1), tol = 1e-5)
})

test_that("DPpack's gamma bug is fixed: eps = Inf fits depend on gamma", {
  coeffs <- sapply(c(1e-4, 1, 100), function(gamma) {
    m <- LogisticRegressionDP$new("l2", Inf, gamma)
    m$fit(X_cls, y_cls, ub_cls, lb_cls)
    m$coeff
  })
  expect_false(isTRUE(all.equal(coeffs[, 1], coeffs[, 2])))
  expect_false(isTRUE(all.equal(coeffs[, 2], coeffs[, 3])))
  # more regularisation, smaller coefficients
  norms <- sqrt(colSums(coeffs^2))
  expect_true(all(diff(norms) < 0))
})

test_that("linear svmDP with eps = Inf is the non-private Huber SVM, weighted or not", {
  for (gamma in c(0.1, 1, 10)) {
    s <- svmDP$new("l2", Inf, gamma, "output")
    s$fit(X_cls, y_cls, ub_cls, lb_cls)
    expect_rel_equal(s$coeff, ref_svm(X_cls, y_cls, ub_cls, lb_cls, gamma))
  }
  s <- svmDP$new("l2", Inf, 1, huber.h = 0.2)
  s$fit(X_cls, y_cls, ub_cls, lb_cls)
  expect_rel_equal(s$coeff, ref_svm(X_cls, y_cls, ub_cls, lb_cls, 1, h = 0.2))

  w <- rep(c(1, 0.3), n_cls / 2)
  s <- svmDP$new("l2", Inf, 1, "output")
  s$fit(X_cls, y_cls, ub_cls, lb_cls, weights = w, weights.upper.bound = 1)
  expect_rel_equal(s$coeff, ref_svm(X_cls, y_cls, ub_cls, lb_cls, 1, w = w), tol = 1e-5)
  # weights are clipped at weights.upper.bound: all 2 with bound 1 is the unweighted fit
  s2 <- svmDP$new("l2", Inf, 1, "output")
  s2$fit(X_cls, y_cls, ub_cls, lb_cls, weights = rep(2, n_cls), weights.upper.bound = 1)
  expect_rel_equal(s2$coeff, ref_svm(X_cls, y_cls, ub_cls, lb_cls, 1))
  # weight 0 drops a row: (1/n) sum_kept + (gamma/n) R has the argmin of the kept rows alone
  keep <- rep(c(TRUE, FALSE), n_cls / 2)
  s3 <- svmDP$new("l2", Inf, 2, "output")
  s3$fit(X_cls, y_cls, ub_cls, lb_cls, weights = as.numeric(keep), weights.upper.bound = 1)
  s4 <- svmDP$new("l2", Inf, 2, "output")
  s4$fit(X_cls[keep, ], y_cls[keep], ub_cls, lb_cls)
  expect_rel_equal(s3$coeff, s4$coeff)
})

test_that("LinearRegressionDP with eps = Inf is the ridge solution of the scaled problem", {
  # scaled: x / 1, y -> (y - 0) / (2 * 2 / 4) = y; ||theta||^2 <= 2 is not active here
  for (gamma in c(1e-4, 1, 30)) {
    k <- LinearRegressionDP$new("l2", Inf, 0, gamma)
    k$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
    Xb <- cbind(1, x_reg)
    shift <- 0
    scale <- 4 / (2 * 2)
    theta <- solve(crossprod(Xb) + gamma * diag(2), crossprod(Xb, (y_reg - shift) / scale))
    expect_rel_equal(k$coeff, drop(theta) * scale + c(shift, 0))
  }
  # DPpack 0.2.2's eps = Inf fit is close to OLS (checked in R)
  k <- LinearRegressionDP$new("l2", Inf, 0, 1e-4)
  k$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
  expect_equal(k$coeff, unname(stats::coef(stats::lm(y_reg ~ x_reg))), tolerance = 1e-4)
})

# ---- R subclasses with R functions ----------------------------------------------------------

# Logistic regression written from scratch in R on the CMS base class (data already scaled so
# that ||x|| <= 1 after clipping).
LogisticR <- R6::R6Class(
  "LogisticR",
  inherit = EmpiricalRiskMinimizationDP.CMS,
  public = list(
    initialize = function(eps, gamma, perturbation.method = "objective", gradients = FALSE) {
      sig <- function(X, coeff) 1 / (1 + exp(-X %*% coeff))
      ce <- function(y.hat, y) -(y * log(y.hat) + (1 - y) * log(1 - y.hat))
      if (gradients) {
        super$initialize(
          sig, ce, function(coeff) sum(coeff^2) / 2, eps, gamma, perturbation.method,
          c = 1 / 4,
          mapXy.gr = function(X, coeff) {
            s <- as.vector(sig(X, coeff))
            t(X * (s * (1 - s)))
          },
          loss.gr = function(y.hat, y) -y / y.hat + (1 - y) / (1 - y.hat),
          regularizer.gr = function(coeff) coeff
        )
      } else {
        super$initialize(sig, ce, function(coeff) sum(coeff^2) / 2, eps, gamma,
                         perturbation.method, c = 1 / 4)
      }
    }
  )
)

test_that("an R subclass of EmpiricalRiskMinimizationDP.CMS with R functions trains and predicts", {
  Xs <- X_cls / 4
  ub <- c(0.5, 0.5)
  lb <- c(-0.5, -0.5)
  ref <- ref_logistic_plain(Xs, ub, lb)
  plain <- LogisticR$new(Inf, 1)
  plain$fit(Xs, y_cls, ub, lb)
  expect_rel_equal(plain$coeff, ref, tol = 1e-5)
  grad <- LogisticR$new(Inf, 1, gradients = TRUE)
  grad$fit(Xs, y_cls, ub, lb)
  expect_rel_equal(grad$coeff, ref, tol = 1e-6)
  # the built-in blocks in the base class give the same optimum
  base <- EmpiricalRiskMinimizationDP.CMS$new(
    mapXy.sigmoid, loss.cross.entropy, "l2", Inf, 1, c = 1 / 4,
    mapXy.gr = mapXy.gr.sigmoid, loss.gr = loss.gr.cross.entropy
  )
  base$fit(Xs, y_cls, ub, lb)
  expect_rel_equal(base$coeff, ref, tol = 1e-6)
  p <- grad$predict(Xs)
  expect_identical(dim(p), c(n_cls, 1L))
  expect_equal(as.vector(p), plogis(drop(Xs %*% grad$coeff)), tolerance = 1e-12)
  # private fits, both methods, reproducible
  for (method in c("objective", "output")) {
    set.seed(5)
    a <- LogisticR$new(1, 1, method, gradients = TRUE)$fit(Xs, y_cls, ub, lb)
    set.seed(5)
    b <- LogisticR$new(1, 1, method, gradients = TRUE)$fit(Xs, y_cls, ub, lb)
    expect_identical(a$coeff, b$coeff)
    expect_true(all(is.finite(a$coeff)))
  }
  set.seed(6)
  o <- LogisticR$new(2, 1)$fit(Xs, y_cls, ub, lb)
  expect_length(o$coeff, 2)
  expect_true(all(is.finite(o$coeff)))
})

test_that("an R subclass that replaces fields after construction fits with them", {
  # DPpack's pattern: the parent's constructor, then the subclass's own fields, here an R loss
  # and its derivative for the built-in ones and another gamma
  calls <- new.env()
  calls$n <- 0
  CrossEntropyR <- R6::R6Class(
    "CrossEntropyR",
    inherit = EmpiricalRiskMinimizationDP.CMS,
    public = list(
      initialize = function(eps, gamma) {
        super$initialize(mapXy.sigmoid, loss.cross.entropy, "l2", eps, 1000, c = 1 / 4,
                         mapXy.gr = mapXy.gr.sigmoid, loss.gr = loss.gr.cross.entropy)
        self$loss <- function(y.hat, y) {
          calls$n <- calls$n + 1
          -(y * log(y.hat) + (1 - y) * log(1 - y.hat))
        }
        self$loss.gr <- function(y.hat, y) -y / y.hat + (1 - y) / (1 - y.hat)
        self$gamma <- gamma
      }
    )
  )
  Xs <- X_cls / 4
  ub <- c(0.5, 0.5)
  lb <- c(-0.5, -0.5)
  ref <- ref_logistic_plain(Xs, ub, lb)
  m <- CrossEntropyR$new(Inf, 1)
  expect_identical(m$gamma, 1)
  expect_false(identical(m$loss, loss.cross.entropy))
  expect_identical(m$mapXy, mapXy.sigmoid)
  m$fit(Xs, y_cls, ub, lb)
  expect_gt(calls$n, 0) # the core called the R loss
  expect_rel_equal(m$coeff, ref, tol = 1e-6)
  expect_s3_class(m, "EmpiricalRiskMinimizationDP.CMS")
  # a clone of the subclass is independent too
  copy <- m$clone()
  copy$gamma <- 1000
  expect_identical(m$gamma, 1)
})

test_that("WeightedERMDP.CMS with the R Huber wrappers and weights trains", {
  Xs <- X_cls / 4
  w <- WeightedERMDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "l2", Inf, 1, "output",
                             mapXy.gr = mapXy.gr.linear, loss.gr = generate.loss.gr.huber(0.5))
  weights <- rep(c(1, 0.3), n_cls / 2)
  w$fit(Xs, 2 * y_cls - 1, c(0.5, 0.5), c(-0.5, -0.5), weights = weights,
        weights.upper.bound = 1)
  # svmDP's objective without its scaling
  ref <- ref_svm(Xs, y_cls, c(0.5, 0.5), c(-0.5, -0.5), 1, w = weights, scale = FALSE)
  expect_rel_equal(w$coeff, ref, tol = 1e-5)
  expect_identical(dim(w$predict(Xs)), c(n_cls, 1L))
})

test_that("an R subclass of EmpiricalRiskMinimizationDP.KST with an R domain trains and predicts", {
  RidgeKST <- R6::R6Class(
    "RidgeKST",
    inherit = EmpiricalRiskMinimizationDP.KST,
    public = list(
      initialize = function(eps, delta, gamma, radius2 = 2, gradients = TRUE) {
        domain <- list(constraints = function(coeff) sum(coeff^2) - radius2,
                       jacobian = function(coeff) 2 * coeff)
        if (gradients) {
          super$initialize(mapXy.linear, loss.squared.error, "l2", eps, delta, domain,
                           zeta = 2 * 2^1.5, lambda = 2, gamma = gamma,
                           mapXy.gr = mapXy.gr.linear, loss.gr = loss.gr.squared.error)
        } else {
          super$initialize(function(X, coeff) X %*% coeff,
                           function(y.hat, y) (y.hat - y)^2 / 2,
                           function(coeff) sum(coeff^2) / 2, eps, delta, domain,
                           zeta = 2 * 2^1.5, lambda = 2, gamma = gamma)
        }
      }
    )
  )
  Xb <- cbind(1, x_reg)
  ridge <- drop(solve(crossprod(Xb) + 0.5 * diag(2), crossprod(Xb, y_reg)))
  for (gradients in c(TRUE, FALSE)) {
    k <- RidgeKST$new(Inf, 0, 0.5, gradients = gradients)
    k$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
    expect_rel_equal(k$coeff, ridge, tol = if (gradients) 1e-6 else 1e-4)
    p <- k$predict(df_reg, add.bias = TRUE)
    expect_identical(dim(p), c(n_reg, 1L))
    expect_equal(as.vector(p), drop(Xb %*% k$coeff), tolerance = 1e-12)
  }
  # an active constraint: the optimum lies on ||theta||^2 = 0.01
  small <- RidgeKST$new(Inf, 0, 0.5, radius2 = 0.01)
  small$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
  expect_equal(sum(small$coeff^2), 0.01, tolerance = 1e-6)
  # the minimum over the circle of radius 0.1, found in R by the angle
  f <- function(a) {
    theta <- 0.1 * c(cos(a), sin(a))
    mean((Xb %*% theta - y_reg)^2) / 2 + 0.5 / n_reg * sum(theta^2) / 2
  }
  grid <- seq(-pi, pi, length.out = 721)
  a0 <- grid[which.min(vapply(grid, f, 0))]
  a <- stats::optimize(f, c(a0 - 0.01, a0 + 0.01), tol = 1e-12)$minimum
  expect_equal(small$coeff, 0.1 * c(cos(a), sin(a)), tolerance = 1e-6)
  # private fits stay in the domain and are reproducible
  for (delta in c(0, 0.01)) {
    set.seed(8)
    a <- RidgeKST$new(1, delta, 1)$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
    set.seed(8)
    b <- RidgeKST$new(1, delta, 1)$fit(df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
    expect_identical(a$coeff, b$coeff)
    expect_lte(sum(a$coeff^2), 2 + 1e-7)
  }
})

# ---- tuning ---------------------------------------------------------------------------------

test_that("tune_classification_model fits every model in place and returns one of them", {
  set.seed(5)
  X <- data.frame(x1 = stats::runif(300, -1, 1), x2 = stats::runif(300, -1, 1))
  y <- as.integer(X$x1 + X$x2 > 0)
  make <- function() lapply(c(100, 1, 1e-4), function(g) LogisticRegressionDP$new("l2", 1, g))
  models <- make()
  set.seed(9)
  best <- tune_classification_model(models, X, y, c(1, 1), c(-1, -1))
  expect_true(any(vapply(models, identical, logical(1), best)))
  expect_s3_class(best, "LogisticRegressionDP")
  for (m in models) expect_length(m$coeff, 2)
  again <- make()
  set.seed(9)
  best2 <- tune_classification_model(again, X, y, c(1, 1), c(-1, -1))
  expect_identical(best2$gamma, best$gamma)
  expect_identical(lapply(again, `[[`, "coeff"), lapply(models, `[[`, "coeff"))

  # each model trains on rows i, i + 4, ...: the same draws in the same order reproduce it
  tuned <- make()
  with_random_state(3, tune_classification_model(tuned, X, y, c(1, 1), c(-1, -1)))
  alone <- make()
  with_random_state(3, for (i in 1:3) {
    alone[[i]]$fit(X[seq(i, 300, by = 4), ], y[seq(i, 300, by = 4)], c(1, 1), c(-1, -1))
  })
  expect_identical(lapply(tuned, `[[`, "coeff"), lapply(alone, `[[`, "coeff"))

  # weighted svmDP models with output perturbation, DPpack's tuning example
  svms <- lapply(c(100, 1, 1e-4), function(g) svmDP$new("l2", 1, g, "output"))
  w <- rep(c(1, 0.5), 150)
  chosen <- tune_classification_model(svms, X, y, c(1, 1), c(-1, -1), add.bias = TRUE,
                                      weights = w, weights.upper.bound = 1)
  expect_true(any(vapply(svms, identical, logical(1), chosen)))
  for (m in svms) expect_length(m$coeff, 3)
})

test_that("tune_linear_regression_model fits every model in place and returns one of them", {
  make <- function() lapply(c(100, 1, 1e-4), function(g) LinearRegressionDP$new("l2", 1, 0.01, g))
  models <- make()
  set.seed(10)
  best <- tune_linear_regression_model(models, df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
  expect_true(any(vapply(models, identical, logical(1), best)))
  expect_s3_class(best, "LinearRegressionDP")
  for (m in models) expect_length(m$coeff, 2)
  again <- make()
  set.seed(10)
  best2 <- tune_linear_regression_model(again, df_reg, y_reg, c(1, 2), c(-1, -2), add.bias = TRUE)
  expect_identical(best2$gamma, best$gamma)
  expect_identical(best2$coeff, best$coeff)
  tuned <- make()
  with_random_state(4, tune_linear_regression_model(tuned, df_reg, y_reg, c(1, 2), c(-1, -2)))
  alone <- make()
  with_random_state(4, for (i in 1:3) {
    rows <- seq(i, n_reg, by = 4)
    alone[[i]]$fit(df_reg[rows, , drop = FALSE], y_reg[rows], c(1, 2), c(-1, -2))
  })
  expect_identical(lapply(tuned, `[[`, "coeff"), lapply(alone, `[[`, "coeff"))
})

test_that("tuning refuses models with different eps or delta before touching the data", {
  set.seed(5)
  X <- data.frame(x1 = stats::runif(60, -1, 1), x2 = stats::runif(60, -1, 1))
  y <- as.integer(X$x1 + X$x2 > 0)
  models <- list(LogisticRegressionDP$new("l2", 1, 1), LogisticRegressionDP$new("l2", 2, 1))
  expect_dppack_error(
    tune_classification_model(models, X, y, c(1, 1), c(-1, -1)),
    "All DPmodels must have the same eps: the selection spends the first model's eps, which must be every model's.",
    "tune_classification_model"
  )
  for (m in models) expect_null(m$coeff)
  regs <- list(LinearRegressionDP$new("l2", 1, 0.01, 1), LinearRegressionDP$new("l2", 1, 0.1, 1))
  expect_dppack_error(
    tune_linear_regression_model(regs, df_reg, y_reg, c(1, 2), c(-1, -2)),
    "All DPmodels must have the same delta: the result is (eps, delta)-DP only if no model has a larger delta.",
    "tune_linear_regression_model"
  )
  for (m in regs) expect_null(m$coeff)
})

# ---- privacy assumptions enforced by the frameworks (issue 11) -------------------------------

test_that("output perturbation needs the gradients, and an uncertified fit is refused", {
  Xs <- X_cls / 4
  ub <- c(0.5, 0.5)
  lb <- c(-0.5, -0.5)
  no_gradients <- LogisticR$new(1, 1, "output")
  set.seed(3)
  before <- .Random.seed
  expect_method_error(
    no_gradients$fit(Xs, y_cls, ub, lb),
    paste("perturbation.method 'output' needs mapXy.gr, loss.gr and regularizer.gr: the fit",
          "checks with the gradient that it reached the minimiser the noise is calibrated to."),
    "no_gradients$fit"
  )
  expect_identical(.Random.seed, before)
  expect_null(no_gradients$coeff)
  # the hinge loss is not differentiable: no certified minimiser, an error, not a warning
  hinge <- function(y.hat, y) pmax(0, 1 - y * y.hat)
  hinge.gr <- function(y.hat, y) ifelse(y * y.hat < 1, -y, 0)
  h <- EmpiricalRiskMinimizationDP.CMS$new(mapXy.linear, hinge, "l2", 1, 0.1, "output",
                                           mapXy.gr = mapXy.gr.linear, loss.gr = hinge.gr)
  cnd <- expect_error(h$fit(Xs, 2 * y_cls - 1, ub, lb),
                      "did not reach a minimiser to the required tolerance", fixed = TRUE)
  expect_false(grepl("Error:|Traceback", conditionMessage(cnd)))  # a DPpack-style error,
  expect_identical(deparse(conditionCall(cnd)[[1]]), "h$fit")     # from the user's call
  expect_null(h$coeff)
  # the README's example: logistic pieces on bounds of norm < 1, with the gradients
  m <- EmpiricalRiskMinimizationDP.CMS$new(
    mapXy.sigmoid, loss.cross.entropy, "l2", 1, 1, "output",
    mapXy.gr = mapXy.gr.sigmoid, loss.gr = loss.gr.cross.entropy
  )
  m$fit(Xs, y_cls, ub, lb)
  expect_length(m$coeff, 2)
  expect_true(all(is.finite(m$coeff)))
})

# ---- building blocks ------------------------------------------------------------------------

test_that("the building blocks give DPpack 0.2.2's values and n x 1 shapes", {
  huber <- generate.loss.huber(0.5)
  huber.gr <- generate.loss.gr.huber(0.5)
  y.hat <- c(-0.5, 1.2, -0.9, 0.8, 1.6)
  y <- c(-1, 1, -1, 1, 1)
  w <- c(0.1, 0.5, 1, 2, 1)
  v <- huber(y.hat, y)
  expect_identical(dim(v), c(5L, 1L))
  expect_equal(as.vector(v), c(0.5, 0.045, 0.18, 0.245, 0), tolerance = 1e-12)
  expect_equal(as.vector(huber(y.hat, y, w)), w * c(0.5, 0.045, 0.18, 0.245, 0),
               tolerance = 1e-12)
  g <- huber.gr(y.hat, y, w)
  expect_identical(dim(g), c(5L, 1L))
  expect_equal(as.vector(g), c(0.10, -0.15, 0.60, -1.40, 0), tolerance = 1e-12)
  cnd <- expect_error(huber(y.hat, y, c(1, 2)), fixed = TRUE,
                      "Weight vector w must be same length as label vector y.")
  expect_identical(conditionMessage(cnd), "Weight vector w must be same length as label vector y.")
  expect_error(huber.gr(y.hat, y, 1), "Weight vector w must be same length as label vector y.",
               fixed = TRUE)
  expect_equal(phi.gaussian(c(1, 2, 3), c(0.1, 1.1, -0.8, 3)), -0.9709582, tolerance = 1e-7)

  X <- matrix(c(0.2, -0.4, 0.9, 0.1, 0.5, -0.7), nrow = 3)
  coeff <- c(0.3, -1.2)
  s <- mapXy.sigmoid(X, coeff)
  expect_identical(dim(s), c(3L, 1L))
  expect_equal(as.vector(s), 1 / (1 + exp(-drop(X %*% coeff))), tolerance = 1e-14)
  gs <- mapXy.gr.sigmoid(X, coeff)
  expect_identical(dim(gs), c(2L, 3L))
  expect_equal(gs, t(X * as.vector(s * (1 - s))), tolerance = 1e-14, ignore_attr = TRUE)
  l <- mapXy.linear(X, coeff)
  expect_identical(dim(l), c(3L, 1L))
  expect_equal(as.vector(l), drop(X %*% coeff), tolerance = 1e-14)
  expect_equal(mapXy.gr.linear(X, coeff), t(X), ignore_attr = TRUE)
  yy <- c(1, 0, 1)
  ce <- loss.cross.entropy(s, yy)
  expect_identical(dim(ce), c(3L, 1L))
  s <- as.vector(s)
  expect_equal(as.vector(ce), -(yy * log(s) + (1 - yy) * log(1 - s)), tolerance = 1e-14)
  expect_equal(as.vector(loss.gr.cross.entropy(s, yy)), -yy / s + (1 - yy) / (1 - s),
               tolerance = 1e-14)
  se <- loss.squared.error(l, yy)
  expect_identical(dim(se), c(3L, 1L))
  expect_equal(as.vector(se), (drop(l) - yy)^2 / 2, tolerance = 1e-14)
  expect_equal(as.vector(loss.gr.squared.error(l, yy)), drop(l) - yy, tolerance = 1e-14)
  expect_equal(as.numeric(regularizer.l2(coeff)), sum(coeff^2) / 2)
  expect_equal(as.vector(regularizer.gr.l2(coeff)), coeff)

  sampler <- generate.sampling(2)
  set.seed(3)
  a <- sampler(4)
  set.seed(3)
  b <- sampler(4)
  expect_length(a, 5)
  expect_identical(a, b)
  expect_true(abs(a[5]) <= pi)
})

# ---- the DPpack paper's examples (Giddens and Liu 2023, appendix D) -------------------------
# Run as printed, except: `coeff%%coeff/2` (an extraction typo for %*%, as in D.4) and
# `svmDP$predict` (the class instead of the object `svmdp`) in D.4.

# The simulated two-class data of D.2, D.4 and D.6.
paper_two_classes <- function() {
  N <- 200
  K <- 2
  X <- data.frame()
  y <- data.frame()
  for (j in (1:K)) {
    t <- seq(-.25, .25, length.out = N)
    if (j == 1) m <- rnorm(N, -.2, .1)
    if (j == 2) m <- rnorm(N, .2, .1)
    Xtemp <- data.frame(x1 = 3 * t, x2 = m - t)
    ytemp <- data.frame(matrix(j - 1, N, 1))
    X <- rbind(X, Xtemp)
    y <- rbind(y, ytemp)
  }
  list(X = X, y = y, N = N, K = K)
}

test_that("the paper's LogisticRegressionDP example (D.2) runs and classifies", {
  set.seed(1)
  d <- paper_two_classes()
  X <- d$X; y <- d$y; N <- d$N; K <- d$K
  upper.bounds <- c(1, 1)
  lower.bounds <- c(-1, -1)
  Xtest <- X[seq(1, (N * K), 10), ]
  ytest <- y[seq(1, (N * K), 10), , drop = FALSE]
  X <- X[-seq(1, (N * K), 10), ]
  y <- y[-seq(1, (N * K), 10), , drop = FALSE]
  regularizer <- function(coeff) coeff %*% coeff / 2
  regularizer.gr <- function(coeff) coeff
  eps <- 1
  gamma <- 0.1
  lrdp <- LogisticRegressionDP$new(regularizer, eps, gamma,
                                   regularizer.gr = regularizer.gr)
  lrdp$fit(X, y, upper.bounds, lower.bounds) # No bias term
  expect_length(lrdp$coeff, 2)
  predicted.y <- lrdp$predict(Xtest)
  n.errors <- sum(predicted.y != ytest)
  expect_lte(n.errors, 6) # of 40 test points (3 with this seed)
  expect_gt(lrdp$coeff[2], 0) # class 1 has the larger x2
})

test_that("the paper's Gaussian-kernel svmDP example (D.3) runs without bounds and classifies", {
  set.seed(1)
  N <- 400
  X <- data.frame()
  y <- data.frame()
  for (i in (1:N)) {
    Xtemp <- data.frame(x1 = rnorm(1, sd = .28), x2 = rnorm(1, sd = .28))
    if (sum(Xtemp^2) < .15) ytemp <- data.frame(y = 0)
    else ytemp <- data.frame(y = 1)
    X <- rbind(X, Xtemp)
    y <- rbind(y, ytemp)
  }
  Xtest <- X[seq(1, N, 10), ]
  ytest <- y[seq(1, N, 10), , drop = FALSE]
  X <- X[-seq(1, N, 10), ]
  y <- y[-seq(1, N, 10), , drop = FALSE]
  regularizer <- "l2"
  eps <- 1
  gamma <- 0.1
  kernel <- "Gaussian"
  D <- 20
  svmdp <- svmDP$new(regularizer, eps, gamma, kernel = kernel, D = D)
  svmdp$fit(X, y) # No bias term
  predicted.y <- svmdp$predict(Xtest)
  n.errors <- sum(predicted.y != ytest)
  expect_identical(dim(predicted.y), c(40L, 1L))
  expect_lt(n.errors, 20) # of 40 (15 with this seed)
  # eps = 1 with gamma = 0.1 is noisy; on average over fits it beats the majority class
  train.errors <- replicate(10, {
    m <- svmDP$new(regularizer, eps, gamma, kernel = kernel, D = D)
    m$fit(X, y)
    mean(m$predict(X) != y$y)
  })
  expect_lt(mean(train.errors), min(mean(y$y), 1 - mean(y$y)))
  expect_identical(dim(svmdp$prefilter), c(20L, 3L))
  # without noise the kernel SVM learns the circle
  exact <- svmDP$new(regularizer, Inf, gamma, kernel = kernel, D = D)
  exact$fit(X, y)
  expect_gte(mean(exact$predict(Xtest) == ytest$y), 0.8)
})

test_that("the paper's weighted svmDP example (D.4) runs", {
  set.seed(2)
  d <- paper_two_classes()
  X <- d$X; y <- d$y; N <- d$N; K <- d$K
  upper.bounds <- c(1, 1)
  lower.bounds <- c(-1, -1)
  Xtest <- X[seq(1, (N * K), 10), ]
  ytest <- y[seq(1, (N * K), 10), , drop = FALSE]
  X <- X[-seq(1, (N * K), 10), ]
  y <- y[-seq(1, (N * K), 10), , drop = FALSE]
  weights <- rep(1, nrow(y)) # Uniform weighting
  weights[nrow(y)] <- 0.5 # Half weight for last observation
  wub <- 1 # Upper bound on weights
  regularizer <- function(coeff) coeff %*% coeff / 2
  regularizer.gr <- function(coeff) coeff
  eps <- 1
  gamma <- 0.1
  perturbation.method <- "output"
  svmdp <- svmDP$new(regularizer, eps, gamma, perturbation.method,
                     regularizer.gr = regularizer.gr)
  svmdp$fit(X, y, upper.bounds, lower.bounds, weights = weights,
            weights.upper.bound = wub)
  expect_length(svmdp$coeff, 2)
  expect_true(all(is.finite(svmdp$coeff)))
  predicted.y <- svmdp$predict(Xtest)
  n.errors <- sum(predicted.y != ytest)
  expect_true(all(predicted.y %in% c(0, 1)))
  # gamma eps / 2 = 0.05 is a lot of noise (the paper's coefficients are 1.5, 13.5); without
  # noise the same weighted SVM separates the classes
  exact <- svmDP$new(regularizer, Inf, gamma, perturbation.method,
                     regularizer.gr = regularizer.gr)
  exact$fit(X, y, upper.bounds, lower.bounds, weights = weights, weights.upper.bound = wub)
  expect_lte(sum(exact$predict(Xtest) != ytest), 4)
})

test_that("the paper's LinearRegressionDP example (D.5) runs and is close to the truth", {
  set.seed(1)
  n <- 500
  X <- data.frame(X = seq(-1, 1, length.out = n))
  true.theta <- c(-.3, .5) # First element is bias term
  p <- length(true.theta)
  y <- true.theta[1] + as.matrix(X) %*% true.theta[2:p] + rnorm(n = n, sd = .1)
  upper.bounds <- c(1, p) # Bounds for X and y
  lower.bounds <- c(-1, -p) # Bounds for X and y
  regularizer <- "l2"
  eps <- 1
  delta <- 0.01 # Indicates to use approximate (1,0.01)-DP
  gamma <- 1
  lrdp <- LinearRegressionDP$new("l2", eps, delta, gamma)
  lrdp$fit(X, y, upper.bounds, lower.bounds, add.bias = TRUE)
  expect_length(lrdp$coeff, 2)
  expect_lt(max(abs(lrdp$coeff - true.theta)), 0.3) # (-0.31, 0.33) with this seed
  Xtest <- data.frame(X = c(-.5, -.25, .1, .4))
  predicted.y <- lrdp$predict(Xtest, add.bias = TRUE)
  expect_identical(dim(predicted.y), c(4L, 1L))
  expect_lt(max(abs(predicted.y - (-0.3 + 0.5 * Xtest$X))), 0.3)
})

test_that("the paper's tuning examples (D.6) run and return a fitted candidate", {
  set.seed(1)
  d <- paper_two_classes()
  X <- d$X; y <- d$y; N <- d$N; K <- d$K
  upper.bounds <- c(1, 1)
  lower.bounds <- c(-1, -1)
  Xtest <- X[seq(1, (N * K), 10), ]
  ytest <- y[seq(1, (N * K), 10), , drop = FALSE]
  X <- X[-seq(1, (N * K), 10), ]
  y <- y[-seq(1, (N * K), 10), , drop = FALSE]
  y <- as.matrix(y)
  grid.search <- c(100, 1, .0001)
  eps <- 1 # Privacy budget should be the same for all models
  lr1 <- LogisticRegressionDP$new("l2", eps, grid.search[1])
  lr2 <- LogisticRegressionDP$new("l2", eps, grid.search[2])
  lr3 <- LogisticRegressionDP$new("l2", eps, grid.search[3])
  models <- c(lr1, lr2, lr3)
  tuned.model <- tune_classification_model(models, X, y,
                                           upper.bounds, lower.bounds)
  expect_true(tuned.model$gamma %in% grid.search)
  expect_true(any(vapply(models, identical, logical(1), tuned.model)))
  for (m in models) expect_length(m$coeff, 2)
  predicted.y <- tuned.model$predict(Xtest)
  n.errors <- sum(predicted.y != ytest)
  expect_lte(n.errors, 8) # of 40 (3 with this seed)

  n <- 500
  X <- data.frame(X = seq(-1, 1, length.out = n))
  true.theta <- c(-.3, .5) # First element is bias term
  p <- length(true.theta)
  y <- true.theta[1] + as.matrix(X) %*% true.theta[2:p] + rnorm(n = n, sd = .1)
  upper.bounds <- c(1, 2) # Bounds for X and y
  lower.bounds <- c(-1, -2) # Bounds for X and y
  grid.search <- c(100, 1, .0001)
  eps <- 1
  delta <- 0.01
  linrdp1 <- LinearRegressionDP$new("l2", eps, delta, grid.search[1])
  linrdp2 <- LinearRegressionDP$new("l2", eps, delta, grid.search[2])
  linrdp3 <- LinearRegressionDP$new("l2", eps, delta, grid.search[3])
  models <- c(linrdp1, linrdp2, linrdp3)
  tuned.model <- tune_linear_regression_model(models, X, y, upper.bounds,
                                              lower.bounds, add.bias = TRUE)
  expect_true(tuned.model$gamma %in% grid.search)
  expect_true(any(vapply(models, identical, logical(1), tuned.model)))
  for (m in models) expect_length(m$coeff, 2)
  expect_true(all(is.finite(tuned.model$coeff)))
  Xtest <- data.frame(X = c(-.5, -.25, .1, .4))
  predicted.y <- tuned.model$predict(Xtest, add.bias = TRUE)
  expect_identical(dim(predicted.y), c(4L, 1L))
})

# ---- DPpack's public fields drive predict, and svmDP keeps phi and sampling ---------------------

test_that("predict uses the public coeff field, as DPpack's self$coeff", {
  m <- LogisticRegressionDP$new("l2", Inf, 1)
  m$fit(X_cls, y_cls, ub_cls, lb_cls)
  m$coeff <- c(10, -10)
  expect_equal(as.vector(m$predict(X_cls, raw.value = TRUE)), plogis(drop(X_cls %*% c(10, -10))))
  unfitted <- LogisticRegressionDP$new("l2", 1, 1)
  unfitted$coeff <- c(1, 2)
  expect_equal(as.vector(unfitted$predict(X_cls, raw.value = TRUE)),
               plogis(drop(X_cls %*% c(1, 2))))
})

test_that("svmDP stores phi and sampling, as DPpack does", {
  g <- svmDP$new("l2", 1, 1, kernel = "Gaussian", D = 3)
  expect_true(is.function(g$phi))
  g$fit(X_cls, y_cls)
  expect_true(is.function(g$sampling))
})
