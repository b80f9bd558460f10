# The R6 classes over a core object (R/core_object.R): DPpack's fields are active bindings onto
# the core, which holds the state once; clones hold their own core (models) or share the one
# mechanism (online mechanisms); read-only fields refuse assignment; no R code reaches into an
# R6 object's private environment. The fits themselves are tested in test-erm.R.

set.seed(20261124)
X_core <- matrix(stats::runif(120, -1, 1), ncol = 2)
y_core <- as.numeric(X_core[, 1] + X_core[, 2] + stats::rnorm(60, sd = 0.5) > 0)
fit_core <- function(model) model$fit(X_core, y_core, c(1, 1), c(-1, -1))

test_that("no R code of the package reaches into an R6 object's environment", {
  # every function of the namespace, and every method and active binding of its R6 classes
  ns <- asNamespace("DPpackPy")
  functions <- list()
  for (name in ls(ns, all.names = TRUE)) {
    object <- get(name, envir = ns)
    if (is.function(object)) {
      functions[[name]] <- object
    } else if (inherits(object, "R6ClassGenerator")) {
      members <- c(object$public_methods, object$private_methods, object$active)
      names(members) <- paste0(name, "$", names(members))
      functions <- c(functions, members)
    }
  }
  expect_gt(length(functions), 200) # the walk sees the package
  # (R6's own clone() method, which every class gets, is R6's code)
  functions <- functions[!endsWith(names(functions), "$clone")]
  uses <- vapply(functions, function(f) ".__enclos_env__" %in% all.names(body(f)), logical(1))
  expect_identical(names(functions)[uses], character(0))
})

test_that("the fields read and write the core's attributes", {
  m <- LogisticRegressionDP$new("l2", eps = 1, gamma = 2)
  expect_identical(m$.core$gamma, 2)
  m$gamma <- 5
  expect_identical(m$gamma, 5)
  expect_identical(m$.core$gamma, 5)
  # the core holds c and the built-in blocks, read as DPpack's R functions of the same name
  expect_identical(m$c, 1 / 4)
  expect_identical(m$mapXy, mapXy.sigmoid)
  expect_identical(m$loss.gr, loss.gr.cross.entropy)
  expect_identical(m$regularizer, regularizer.l2) # DPpack stores regularizer.l2 for "l2"
  expect_identical(m$regularizer.gr, regularizer.gr.l2)
  expect_null(m$coeff)
  expect_null(m$kernel) # a field only svmDP uses
  fit_core(m)
  expect_identical(m$coeff, as.vector(m$.core$coeff))
  # an assigned coeff goes to the core as a vector, also of length one
  m$coeff <- c(1L, 2L)
  expect_identical(m$coeff, c(1, 2))
  one <- LinearRegressionDP$new("l2", 1, 0, 1)
  one$coeff <- 0.5
  expect_equal(as.vector(one$predict(matrix(c(1, 2)))), c(0.5, 1))
  # svmDP's own Huber loss and sampler read as DPpack's R closures
  s <- svmDP$new("l2", 1, 1, huber.h = 0.25)
  expect_identical(s$c, 2)
  expect_equal(s$loss(c(-0.5, 1.2, 0.9), c(-1, 1, 1)),
               generate.loss.huber(0.25)(c(-0.5, 1.2, 0.9), c(-1, 1, 1)))
  expect_null(s$phi)
  g <- svmDP$new("l2", 1, 1, kernel = "Gaussian", D = 3, kernel.param = 2)
  expect_identical(g$phi, phi.gaussian)
  expect_null(g$sampling)
  g$fit(X_core, y_core)
  expect_true(is.function(g$sampling))
  expect_identical(dim(g$sampling(4)), NULL)
  expect_length(g$sampling(4), 5)
})

test_that("R functions given to the frameworks read back as themselves", {
  map <- function(X, coeff) X %*% coeff
  domain <- list(constraints = function(coeff) sum(coeff^2) - 1,
                 jacobian = function(coeff) 2 * coeff)
  k <- EmpiricalRiskMinimizationDP.KST$new(map, loss.squared.error, "l2", 1, 0, domain,
                                           zeta = 1, lambda = 1, gamma = 1)
  expect_identical(k$mapXy, map)
  expect_identical(k$loss, loss.squared.error)
  expect_identical(k$domain, domain)
  expect_null(k$mapXy.gr)
  other <- function(X, coeff) 2 * X %*% coeff
  k$mapXy <- other
  expect_identical(k$mapXy, other)
  k$domain$constraints <- function(coeff) sum(coeff^2) - 4
  expect_identical(k$domain$jacobian, domain$jacobian)
  expect_identical(k$domain$constraints(c(1, 1)), -2)
})

test_that("an assigned field gets the constructor's checks at the next fit", {
  m <- LogisticRegressionDP$new("l2", 1, 1)
  m$regularizer <- "l1"
  cnd <- expect_error(fit_core(m), "regularizer must be one of c(\"l2\"), or a function.",
                      fixed = TRUE)
  expect_identical(deparse(conditionCall(cnd)[[1]]), "model$fit")
  # "l2" assigned after construction is DPpack's pair again
  m$regularizer <- "l2"
  fit_core(m)
  expect_identical(m$regularizer, regularizer.l2)
  base <- EmpiricalRiskMinimizationDP.CMS$new(mapXy.sigmoid, loss.cross.entropy, "l2", 1, 1,
                                              c = 1 / 4)
  base$mapXy <- 5
  expect_error(fit_core(base), "mapXy must be a function.", fixed = TRUE)
  s <- svmDP$new("l2", 1, 1)
  s$kernel <- "polynomial"
  expect_error(fit_core(s), "kernel must be one of c(\"linear\", \"Gaussian\").", fixed = TRUE)
  s$kernel <- "Gaussian"
  expect_error(fit_core(s), "D must be specified for nonlinear kernel.", fixed = TRUE)
  k <- LinearRegressionDP$new("l2", 1, 0, 1)
  k$regularizer <- "abc"
  expect_error(k$fit(X_core[, 1, drop = FALSE], X_core[, 2], c(1, 1), c(-1, -1)),
               "regularizer must be one of c(\"l2\"), or a function.", fixed = TRUE)
  k$eps <- -1
  k$regularizer <- "l2"
  expect_error(k$fit(X_core[, 1, drop = FALSE], X_core[, 2], c(1, 1), c(-1, -1)), "^eps")
})

test_that("a refused fit leaves the model as it was", {
  m <- LogisticRegressionDP$new("l2", 1, 1)
  fit_core(m)
  coeff <- m$coeff
  privacy <- m$privacy
  expect_error(m$fit(X_core, y_core + 2, c(1, 1), c(-1, -1)))
  expect_identical(m$coeff, coeff)
  expect_identical(m$privacy, privacy)
})

test_that("a clone, shallow or deep, holds its own core", {
  for (deep in c(FALSE, TRUE)) {
    m <- LogisticRegressionDP$new("l2", Inf, 1)
    fit_core(m)
    coeff <- m$coeff
    copy <- m$clone(deep = deep)
    # the original refits, then changes a setting, before the clone is used: the clone keeps
    # the state it had when cloned
    m$fit(X_core[1:30, ], y_core[1:30], c(1, 1), c(-1, -1))
    refit <- m$coeff
    expect_false(isTRUE(all.equal(refit, coeff)))
    m$gamma <- 50
    expect_identical(copy$coeff, coeff)
    expect_identical(copy$gamma, 1)
    # a clone holds another core object from its first use on
    other <- m$clone(deep = deep)
    expect_false(reticulate::py_id(other$.core) == reticulate::py_id(m$.core))
    expect_false(reticulate::py_id(copy$.core) == reticulate::py_id(m$.core))
    # and the other way round
    copy$coeff <- c(3, 4)
    copy$eps <- 2
    expect_false(identical(m$coeff, c(3, 4)))
    expect_identical(m$eps, Inf)
    fit_core(copy)
    expect_identical(m$coeff, refit)
    expect_identical(copy$privacy, privacy_loss_pure(2))
    expect_null(m$privacy)
  }
})

test_that("a clone of an online mechanism is the same mechanism, never a second one", {
  with_random_state(1, {
    iat <- InteractiveAboveThreshold$new(NULL, eps = 1, threshold = 100, sensitivity = 1)
    twin <- iat$clone()
    deep <- iat$clone(deep = TRUE)
    expect_false(twin$halted || deep$halted) # used before the queries
    iat$query(0)
    twin$query(1000)
  })
  for (handle in list(iat, twin, deep)) {
    expect_identical(handle$n.queries, 2L)
    expect_true(handle$halted)
    expect_identical(handle$answers, c(FALSE, TRUE))
    expect_identical(handle$halt.index, 2L)
  }
  expect_error(deep$query(0), "InteractiveAboveThreshold has halted", fixed = TRUE)
  nr <- LaplaceNoiseReductionOnline$new(c(1, 2), eps = 0.5, sensitivity = 1)
  copy <- nr$clone(deep = TRUE)
  expect_identical(copy$eps, 0.5)
  copy$reduce(1)
  expect_identical(nr$eps, 1)
  expect_identical(nr$levels, c(0.5, 1))
  expect_identical(nr$release, copy$release)
})

test_that("what the core computes is read-only", {
  nr <- LaplaceNoiseReductionOnline$new(c(1, 2), eps = 0.5, sensitivity = 1)
  expect_error(nr$eps <- 5, "eps is read-only.", fixed = TRUE)
  expect_error(nr$levels <- 1, "levels is read-only.", fixed = TRUE)
  iat <- InteractiveAboveThreshold$new(NULL, eps = 1, threshold = 0, sensitivity = 1)
  expect_error(iat$halted <- TRUE, "halted is read-only.", fixed = TRUE)
  expect_error(iat$answers <- TRUE, "answers is read-only.", fixed = TRUE)
  expect_identical(iat$n.queries, 0L)
  agm <- OutputPerturbationAGM$new("logistic", eps = 1, delta = 1e-5, gamma = 10)
  expect_error(agm$sigma <- 1, "sigma is read-only.", fixed = TRUE)
  expect_error(agm$privacy <- NULL, "privacy is read-only.", fixed = TRUE)
  # the settings are not
  agm$gamma <- 20
  expect_identical(agm$gamma, 20)
})

test_that("the print method shows the fields as the core holds them", {
  # m$print() lists every field; print(m) of a model is the short S3 method
  # (test-model-methods.R)
  m <- LogisticRegressionDP$new("l2", eps = 1, gamma = 2)
  out <- capture.output(m$print())
  expect_identical(out[[1]], "<LogisticRegressionDP>")
  expect_true(all(c("  gamma: 2", "  c: 0.25", "  coeff: NULL", "  privacy: NULL",
                    "  regularizer: function") %in% out))
  expect_match(out[[length(out)]], "Methods: .*fit.*predict")
  m$gamma <- 3
  expect_true("  gamma: 3" %in% capture.output(m$print()))
})
