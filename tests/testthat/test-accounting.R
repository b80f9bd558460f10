# Privacy accounting in R (issue 12): privacy_loss values, BudgetAccountant, with_accountant()
# and the `accountant` argument of every release. The rules are the core's; these tests check
# that R reaches them, converts what they report, and refuses an overspend before any draw.
# Every randomised call here uses a fixed seed (reproducible mode, helper-dppack.R) or
# with_random_state(), and the tests compare exact values: no false failures.

x_small <- c(1.2, 3.4, 2.2, 5.0, 4.1)

ledger_labels <- function(acc) acc$ledger$label

test_that("privacy losses are built, printed and composed by the core", {
  pure <- privacy_loss_pure(0.5)
  expect_s3_class(pure, "privacy_loss")
  expect_identical(unclass(pure), list(kind = "pure", eps = 0.5, delta = 0))
  expect_identical(unclass(privacy_loss_approx(1, 1e-5)),
                   list(kind = "approx", eps = 1, delta = 1e-5))
  expect_identical(unclass(privacy_loss_approx(1, 0)), unclass(privacy_loss_pure(1)))
  expect_identical(unclass(privacy_loss_zcdp(0.125)), list(kind = "zcdp", rho = 0.125))

  # closed forms: eps's and delta's add (Dwork and Roth 2014, Thm 3.16); eps-DP is
  # (eps^2 / 2)-zCDP and rho's add (Bun and Steinke 2016); parallel: the largest (McSherry 2009)
  expect_identical(unclass(pure + privacy_loss_approx(0.25, 1e-6)),
                   list(kind = "approx", eps = 0.75, delta = 1e-6))
  expect_identical(unclass(pure + privacy_loss_zcdp(0.125)),
                   list(kind = "zcdp", rho = 0.5^2 / 2 + 0.125))
  expect_identical(unclass(privacy_loss_compose(pure, pure, privacy_loss_pure(1))),
                   list(kind = "pure", eps = 2, delta = 0))
  expect_identical(unclass(privacy_loss_parallel(pure, privacy_loss_approx(0.25, 1e-6))),
                   list(kind = "approx", eps = 0.5, delta = 1e-6))
  # zCDP to (eps, delta): never above Bun and Steinke's rho + 2 sqrt(rho log(1/delta)) (P2)
  converted <- privacy_loss_to_approx(privacy_loss_zcdp(0.5), delta = 1e-6)
  expect_identical(converted$kind, "approx")
  expect_identical(converted$delta, 1e-6)
  expect_lt(converted$eps, 0.5 + 2 * sqrt(0.5 * log(1e6)))
  expect_equal(converted$eps, 5.2215, tolerance = 1e-4)

  expect_identical(format(pure), "eps = 0.5 (pure DP)")
  expect_identical(format(privacy_loss_approx(0.25, 1e-7)), "(eps, delta) = (0.25, 1e-07)")
  expect_identical(format(privacy_loss_zcdp(0.5)), "rho = 0.5 (zCDP)")
  expect_output(print(pure), "^<privacy loss> eps = 0.5 \\(pure DP\\)$")
})

test_that("privacy losses are checked by the core, with its messages", {
  expect_dppack_error(privacy_loss_pure(-1), "eps must be a finite number >= 0.",
                      "privacy_loss_pure")
  expect_dppack_error(privacy_loss_pure(NA), "eps must be a finite number >= 0.",
                      "privacy_loss_pure")
  expect_dppack_error(privacy_loss_approx(1, 1), "delta must be a number in [0, 1).",
                      "privacy_loss_approx")
  expect_dppack_error(privacy_loss_zcdp(Inf), "rho must be a finite number >= 0.",
                      "privacy_loss_zcdp")
  expect_dppack_error(
    privacy_loss_compose(privacy_loss_pure(1), 3),
    paste("argument 2 must be a privacy loss: privacy_loss_pure(), privacy_loss_approx() or",
          "privacy_loss_zcdp()."),
    "privacy_loss_compose"
  )
  # an approximate loss and a zCDP one do not compose without a delta (the core refuses)
  expect_error(privacy_loss_approx(1, 1e-6) + privacy_loss_zcdp(0.1), "Cannot compose")
})

test_that("a BudgetAccountant records spends and reports them from the core", {
  acc <- BudgetAccountant$new(eps = 1, delta = 1e-6)
  expect_identical(nrow(acc$ledger), 0L)
  expect_identical(names(acc$ledger), c("label", "kind", "eps", "delta", "rho"))
  expect_identical(acc$composition, "none")
  acc$spend(privacy_loss_pure(0.5), "mean")
  acc$spend(privacy_loss_approx(0.25, 1e-7), "variance")
  expect_identical(
    acc$ledger,
    data.frame(label = c("mean", "variance"), kind = c("pure", "approx"), eps = c(0.5, 0.25),
               delta = c(0, 1e-7), rho = c(NA_real_, NA_real_), stringsAsFactors = FALSE)
  )
  expect_identical(unclass(acc$spent), list(kind = "approx", eps = 0.75, delta = 1e-7))
  expect_identical(unclass(acc$remaining()), list(kind = "approx", eps = 0.25, delta = 9e-7))
  expect_identical(unclass(acc$budget), list(kind = "approx", eps = 1, delta = 1e-6))
  expect_identical(acc$composition, "basic")
  # check() returns the total a spend would bring and records nothing
  expect_identical(unclass(acc$check(privacy_loss_pure(0.125))),
                   list(kind = "approx", eps = 0.875, delta = 1e-7))
  expect_identical(nrow(acc$ledger), 2L)
  # a zCDP spend: rho column, NA eps and delta
  acc$spend(privacy_loss_zcdp(0.001))
  expect_identical(acc$ledger$label[3], "spend 3")
  expect_identical(acc$ledger$rho[3], 0.001)
  expect_true(is.na(acc$ledger$eps[3]) && is.na(acc$ledger$delta[3]))

  expect_error(acc$spent <- privacy_loss_pure(0), "spent is read-only")
  expect_error(acc$ledger <- NULL, "ledger is read-only")
  expect_error(BudgetAccountant$new(eps = 0), "^eps must be a finite number > 0\\.$")
  expect_error(acc$spend(0.5), "loss must be a privacy loss")
})

test_that("an overspend is refused with the core's message and nothing recorded", {
  acc <- BudgetAccountant$new(eps = 1, delta = 1e-6)
  acc$spend(privacy_loss_pure(0.5), "mean")
  acc$spend(privacy_loss_approx(0.25, 1e-7), "variance")
  expect_error(
    acc$spend(privacy_loss_pure(0.5), "median"),
    paste0("Privacy budget exceeded: spending eps = 0.5 (pure DP) on 'median' would bring the ",
           "total to (eps, delta) = (1.25, 1e-07), over the budget (eps, delta) = (1, 1e-06); ",
           "remaining: (eps, delta) = (0.25, 9e-07). Nothing was recorded."),
    fixed = TRUE
  )
  expect_identical(ledger_labels(acc), c("mean", "variance"))
})

test_that("an overspend is a DPpackPy_budget_exceeded error; bad arguments are not", {
  acc <- BudgetAccountant$new(eps = 1)
  acc$spend(privacy_loss_pure(0.75), "mean")
  cnd <- tryCatch(acc$spend(privacy_loss_pure(0.5), "median"), error = function(e) e)
  expect_s3_class(cnd, "DPpackPy_budget_exceeded")
  expect_identical(class(cnd), c("DPpackPy_budget_exceeded", "error", "condition"))
  expect_match(conditionMessage(cnd), "^Privacy budget exceeded: spending eps = 0.5")
  expect_identical(conditionCall(cnd)[[1]][[3]], as.name("spend"))
  # the class alone catches it, from a release too
  caught <- tryCatch(
    meanDP(x_small, eps = 0.5, lower.bound = 0, upper.bound = 6, accountant = acc),
    DPpackPy_budget_exceeded = function(e) "refused"
  )
  expect_identical(caught, "refused")
  # an invalid argument is a plain error, not caught by that handler
  other <- tryCatch(
    tryCatch(meanDP(x_small, eps = -1, lower.bound = 0, upper.bound = 6, accountant = acc),
             DPpackPy_budget_exceeded = function(e) "refused"),
    error = function(e) e
  )
  expect_false(inherits(other, "DPpackPy_budget_exceeded"))
  expect_identical(ledger_labels(acc), "mean")
})

test_that("the accountant compares the exact sum of the spends with the budget (issue 25)", {
  # the exact sum of ten doubles 0.1 is 1 + 5.6e-17 > 1: the tenth spend is refused
  acc <- BudgetAccountant$new(eps = 1)
  for (i in 1:9) acc$spend(privacy_loss_pure(0.1))
  expect_error(acc$spend(privacy_loss_pure(0.1)), class = "DPpackPy_budget_exceeded")
  expect_identical(nrow(acc$ledger), 9L)
  # spends that fit exactly go through, to the last one
  exact <- BudgetAccountant$new(eps = 1)
  exact$spend(privacy_loss_pure(0.5))
  exact$spend(privacy_loss_pure(0.25))
  exact$spend(privacy_loss_pure(0.25))
  expect_identical(exact$spent$eps, 1)
})

test_that("the accountant prints the core's ledger", {
  # The expected output written out (testthat's snapshots are skipped outside NOT_CRAN runs).
  acc <- BudgetAccountant$new(eps = 1, delta = 1e-6)
  expect_identical(capture.output(print(acc)), c(
    "BudgetAccountant: budget (eps, delta) = (1, 1e-06)",
    "  (no spends)",
    "spent: eps = 0 (pure DP)",
    "remaining: (eps, delta) = (1, 1e-06)"
  ))
  acc$spend(privacy_loss_pure(0.5), "meanDP")
  acc$spend(privacy_loss_approx(0.25, 1e-7), "GaussianMechanism")
  printed <- c(
    "BudgetAccountant: budget (eps, delta) = (1, 1e-06)",
    "    #  label              spend",
    "    1  meanDP             eps = 0.5 (pure DP)",
    "    2  GaussianMechanism  (eps, delta) = (0.25, 1e-07)",
    "spent (basic composition): (eps, delta) = (0.75, 1e-07)",
    "remaining: (eps, delta) = (0.25, 9e-07)"
  )
  expect_identical(capture.output(print(acc)), printed)
  expect_identical(capture.output(acc), printed) # auto-printing
  zcdp <- BudgetAccountant$new(eps = 1, delta = 1e-6)
  zcdp$spend(privacy_loss_zcdp(0.01), "confintERM")
  zcdp$spend(privacy_loss_pure(0.1), "meanDP")
  expect_identical(capture.output(print(zcdp)), c(
    "BudgetAccountant: budget (eps, delta) = (1, 1e-06)",
    "    #  label       spend",
    "    1  confintERM  rho = 0.01 (zCDP)",
    "    2  meanDP      eps = 0.1 (pure DP)",
    "spent (zCDP + basic composition): (eps, delta) = (0.721693, 1e-06)",
    "remaining: eps = 0.278307 (pure DP)"
  ))
  expect_identical(zcdp$composition, "zCDP + basic")
  expect_identical(capture.output(print(privacy_loss_zcdp(0.03125))),
                   "<privacy loss> rho = 0.03125 (zCDP)")
})

test_that("a release charges the accountant it is given, under its name", {
  acc <- BudgetAccountant$new(eps = 2)
  set.seed(1)
  LaplaceMechanism(c(1, 2), eps = 0.5, sensitivities = 1, accountant = acc)
  ExponentialMechanism(c(1, 2, 3), eps = 0.25, sensitivity = 1, accountant = acc)
  meanDP(x_small, eps = 0.5, lower.bound = 0, upper.bound = 6, accountant = acc)
  expect_identical(ledger_labels(acc), c("LaplaceMechanism", "ExponentialMechanism", "meanDP"))
  expect_identical(acc$ledger$eps, c(0.5, 0.25, 0.5))
  # a release without an accountant, outside with_accountant(), charges nothing
  LaplaceMechanism(1, eps = 1, sensitivities = 1)
  expect_identical(nrow(acc$ledger), 3L)
})

test_that("an overspent release is refused before any draw: R's stream and the generator stay", {
  acc <- BudgetAccountant$new(eps = 1)
  set.seed(11)
  LaplaceMechanism(c(1, 2), eps = 0.75, sensitivities = 1, accountant = acc)
  stream <- .Random.seed
  expect_dppack_error(
    LaplaceMechanism(c(1, 2), eps = 0.5, sensitivities = 1, accountant = acc),
    paste0("Privacy budget exceeded: spending eps = 0.5 (pure DP) would bring the total to ",
           "eps = 1.25 (pure DP), over the budget eps = 1 (pure DP); remaining: eps = 0.25 ",
           "(pure DP). Nothing was recorded."),
    "LaplaceMechanism"
  )
  # The seed words drawn for the refused call were given back: R's stream is where it was,
  # and the next release draws what it would have drawn without the refused call.
  expect_identical(.Random.seed, stream)
  after_refusal <- LaplaceMechanism(c(1, 2), eps = 0.25, sensitivities = 1, accountant = acc)
  set.seed(11)
  LaplaceMechanism(c(1, 2), eps = 0.75, sensitivities = 1)
  expect_identical(LaplaceMechanism(c(1, 2), eps = 0.25, sensitivities = 1), after_refusal)
  expect_identical(acc$ledger$eps, c(0.75, 0.25))

  # A model's fit and a statistic, refused the same way.
  model <- LogisticRegressionDP$new("l2", eps = 0.5, gamma = 1)
  X <- matrix(c(-0.5, 0.2, 0.9, -0.1, 0.3, -0.8), ncol = 2)
  stream <- .Random.seed
  expect_error(model$fit(X, c(0, 1, 1), c(1, 1), c(-1, -1), accountant = acc),
               "Privacy budget exceeded")
  expect_error(medianDP(x_small, 0.5, 0, 6, accountant = acc), "Privacy budget exceeded")
  expect_identical(.Random.seed, stream)
  expect_null(model$privacy)

  # Under with_random_state(), the shared generator is not advanced by a refused call.
  full <- BudgetAccountant$new(eps = 0.1)
  full$spend(privacy_loss_pure(0.1))
  with_refusal <- with_random_state(3, {
    try(LaplaceMechanism(0, eps = 1, sensitivities = 1, accountant = full), silent = TRUE)
    LaplaceMechanism(0, eps = 1, sensitivities = 1)
  })
  without <- with_random_state(3, LaplaceMechanism(0, eps = 1, sensitivities = 1))
  expect_identical(with_refusal, without)
})

test_that("a bad accountant is refused before any argument is converted", {
  for (bad in list(1, "acc", list(), privacy_loss_pure(1))) {
    expect_dppack_error(
      LaplaceMechanism(stop("data touched"), 1, 1, accountant = bad),
      "accountant must be a BudgetAccountant or NULL.", "LaplaceMechanism"
    )
  }
  expect_dppack_error(meanDP(stop("data touched"), 1, 0, 1, accountant = 2),
                      "accountant must be a BudgetAccountant or NULL.", "meanDP")
  model <- svmDP$new("l2", eps = 1, gamma = 1)
  expect_error(model$fit(stop("data touched"), 1, 1, 1, accountant = 2),
               "accountant must be a BudgetAccountant or NULL.", fixed = TRUE)
  expect_dppack_error(with_accountant(NULL, 1), "accountant must be a BudgetAccountant.",
                      "with_accountant")
})

test_that("with_accountant() charges the releases inside it and restores the default", {
  acc <- BudgetAccountant$new(eps = 3)
  own <- BudgetAccountant$new(eps = 1, delta = 1e-5)
  set.seed(2)
  value <- with_accountant(acc, {
    LaplaceMechanism(1, eps = 0.5, sensitivities = 1)
    varDP(x_small, eps = 0.25, lower.bound = 0, upper.bound = 6)
    GaussianMechanism(1, eps = 0.5, delta = 1e-6, sensitivities = 1, accountant = own)
    "done"
  })
  expect_identical(value, "done")
  expect_identical(ledger_labels(acc), c("LaplaceMechanism", "varDP"))
  expect_identical(ledger_labels(own), "GaussianMechanism")
  # after the block, no default accountant
  LaplaceMechanism(1, eps = 0.5, sensitivities = 1)
  expect_identical(nrow(acc$ledger), 2L)

  # nested blocks charge the innermost; an error inside restores the outer default
  inner <- BudgetAccountant$new(eps = 1)
  with_accountant(acc, {
    expect_error(with_accountant(inner, {
      LaplaceMechanism(1, eps = 0.5, sensitivities = 1)
      stop("inside")
    }), "inside")
    LaplaceMechanism(1, eps = 0.25, sensitivities = 1)
  })
  expect_identical(ledger_labels(inner), "LaplaceMechanism")
  expect_identical(acc$ledger$eps, c(0.5, 0.25, 0.25))
  LaplaceMechanism(1, eps = 0.5, sensitivities = 1)
  expect_identical(nrow(acc$ledger), 3L)
  expect_identical(nrow(inner$ledger), 1L)
})

test_that("a release built from others is one ledger entry", {
  set.seed(4)
  X <- matrix(stats::runif(600, -1, 1), ncol = 2)
  y <- as.integer(X[, 1] + X[, 2] > 0)
  models <- lapply(c(100, 1, 1e-4), function(g) LogisticRegressionDP$new("l2", 0.5, g))
  acc <- BudgetAccountant$new(eps = 1)
  with_accountant(acc, tune_classification_model(models, X, y, c(1, 1), c(-1, -1)))
  expect_identical(ledger_labels(acc), "tune_classification_model")
  expect_identical(acc$ledger$eps, 0.5)
})

test_that("models report the privacy loss of their last fit", {
  set.seed(5)
  X <- matrix(stats::runif(400, -1, 1), ncol = 2)
  y <- as.integer(X[, 1] > X[, 2])
  model <- LogisticRegressionDP$new("l2", eps = 0.5, gamma = 1)
  expect_null(model$privacy)
  acc <- BudgetAccountant$new(eps = 1)
  model$fit(X, y, c(1, 1), c(-1, -1), accountant = acc)
  expect_identical(unclass(model$privacy), list(kind = "pure", eps = 0.5, delta = 0))
  expect_identical(acc$ledger$eps, 0.5)
  expect_error(model$privacy <- NULL, "privacy is read-only")
  # without an accountant the loss is still reported
  linear <- LinearRegressionDP$new("l2", eps = 1, delta = 0.01, gamma = 1)
  linear$fit(X[, 1, drop = FALSE], X[, 2], c(1, 1), c(-1, -1))
  expect_identical(unclass(linear$privacy), list(kind = "approx", eps = 1, delta = 0.01))
})

test_that("every release takes `accountant = NULL` last and passes it to the core", {
  # A release is an exported function, or a public method of an exported R6 class, that
  # draws noise: its body, or that of an internal helper it calls (.univariate, .select_model)
  # or of a private method of its class (CoreObject's fit_data), asks for a random state.
  ns <- asNamespace("DPpackPy")
  # the private methods of an R6 class and its ancestors, the nearest definition first
  private_methods <- function(generator) {
    methods <- list()
    while (!is.null(generator)) {
      own <- generator$private_methods
      methods <- c(methods, own[setdiff(names(own), names(methods))])
      generator <- generator$get_inherit()
    }
    methods
  }
  draws_noise <- function(f, depth = 2, private = list()) {
    names <- all.names(body(f))
    if (".random_state" %in% names) {
      return(TRUE)
    }
    helpers <- Filter(function(n) startsWith(n, ".") && exists(n, envir = ns, inherits = FALSE),
                      setdiff(names, ".random_state"))
    called <- c(lapply(stats::setNames(nm = helpers), function(n) ns[[n]]),
                if ("private" %in% names) private[intersect(names, names(private))])
    depth > 0 && any(vapply(called, function(g) {
      is.function(g) && draws_noise(g, depth - 1, private)
    }, logical(1)))
  }
  check_release <- function(f, where) {
    formals <- names(formals(f))
    expect_identical(formals[length(formals)], "accountant", label = where)
    expect_null(formals(f)$accountant, label = where)
    expect_true(any(grepl("accountant", deparse(body(f)), fixed = TRUE)), label = where)
  }
  releases <- character(0)
  for (name in getNamespaceExports("DPpackPy")) {
    object <- get(name, envir = ns)
    if (inherits(object, "R6ClassGenerator")) {
      generator <- object
      private <- private_methods(object)
      while (!is.null(generator)) {
        for (method in names(generator$public_methods)) {
          f <- generator$public_methods[[method]]
          if (draws_noise(f, private = private)) {
            check_release(f, paste0(name, "$", method))
            releases <- c(releases, paste0(name, "$", method))
          }
        }
        generator <- generator$get_inherit()
      }
    } else if (is.function(object) && draws_noise(object) && name != "generate.sampling") {
      # (generate.sampling() makes DPpack's sampler of random Fourier features, which are
      # drawn without the data: not a release)
      check_release(object, name)
      releases <- c(releases, name)
    }
  }
  # the walk finds the releases of every kind (so the criterion above is not vacuous)
  expect_true(all(c(
    "LaplaceMechanism", "GaussianMechanism", "ExponentialMechanism", "meanDP", "varDP", "sdDP",
    "covDP", "histogramDP", "tableDP", "pooledVarDP", "pooledCovDP", "quantileDP", "medianDP",
    "tune_classification_model", "tune_linear_regression_model",
    "tune_classification_model_stable", "tune_histogram_bin_width_stable", "confintERM",
    "confintDP", "LaplaceNoiseReduction", "GaussianNoiseReduction", "accuracy_first_erm",
    "doubling_erm", "theory_erm", "LogisticRegressionDP$fit", "svmDP$fit",
    "LinearRegressionDP$fit", "WeightedERMDP.CMS$fit", "OutputPerturbationAGM$fit",
    "GradientPerturbationAGM$fit", "LaplaceNoiseReductionOnline$initialize",
    "InteractiveAboveThreshold$initialize"
  ) %in% releases))
  # and nothing that draws no noise
  expect_false(any(c("calibrateAnalyticGaussianMechanism", "meanDataAccess",
                     "LaplaceNoiseReductionOnline$reduce", "svmDP$predict") %in% releases))
})

test_that("the ledger of releases made in R equals the ledger of the same releases in Python", {
  dp <- reticulate::import("dppack", convert = TRUE)
  np <- reticulate::import("numpy", convert = TRUE)
  X <- matrix(c(-0.5, 0.2, 0.9, -0.1, 0.3, -0.8, 0.6, -0.7), ncol = 2)
  y <- c(0, 1, 1, 0)
  r_acc <- BudgetAccountant$new(eps = 5, delta = 1e-5)
  with_random_state(9, {
    LaplaceMechanism(c(1, 2), eps = 0.5, sensitivities = 1, accountant = r_acc)
    GaussianMechanism(1, eps = 0.5, delta = 1e-6, sensitivities = 1, accountant = r_acc)
    meanDP(x_small, eps = 0.25, lower.bound = 0, upper.bound = 6, accountant = r_acc)
    LogisticRegressionDP$new("l2", eps = 0.5, gamma = 1)$fit(X, y, c(1, 1), c(-1, -1),
                                                             accountant = r_acc)
  })
  py_acc <- dp$BudgetAccountant(5, 1e-5)
  rng <- np$random$default_rng(9L)
  dp$LaplaceMechanism(c(1, 2), 0.5, 1, random_state = rng, accountant = py_acc)
  dp$GaussianMechanism(1, 0.5, 1e-6, 1, random_state = rng, accountant = py_acc)
  dp$meanDP(x_small, 0.25, 0, 6, random_state = rng, accountant = py_acc)
  dp$LogisticRegressionDP("l2", 0.5, 1)$fit(X, y, c(1, 1), c(-1, -1), random_state = rng,
                                             accountant = py_acc)
  expect_identical(capture.output(print(r_acc)),
                   strsplit(reticulate::py_str(py_acc), "\n", fixed = TRUE)[[1]])
  expect_identical(r_acc$ledger, DPpackPy:::.ledger_frame(py_acc$ledger))
})

test_that("online releases and structured results report what they charged", {
  set.seed(6)
  acc <- BudgetAccountant$new(eps = 1)
  nr <- LaplaceNoiseReductionOnline$new(c(1, 2), eps = 0.125, sensitivity = 1,
                                        accountant = acc)
  expect_identical(unclass(nr$privacy), list(kind = "pure", eps = 0.125, delta = 0))
  nr$reduce(0.5) # charges the same accountant the increment (its delta is 0)
  expect_identical(unclass(nr$privacy), list(kind = "pure", eps = 0.5, delta = 0))
  expect_identical(ledger_labels(acc),
                   c("LaplaceNoiseReductionOnline", "LaplaceNoiseReductionOnline.reduce"))
  expect_identical(acc$ledger$eps, c(0.125, 0.375))
  iat <- InteractiveAboveThreshold$new(1:3, eps = 0.25, threshold = 2, sensitivity = 1,
                                       accountant = acc)
  expect_identical(unclass(iat$privacy), list(kind = "pure", eps = 0.25, delta = 0))
  expect_identical(nrow(acc$ledger), 3L)

  # the Brownian path costs rho = sensitivity^2 / (2 * last variance) (Bun and Steinke 2016)
  zacc <- BudgetAccountant$new(eps = 10, delta = 1e-6)
  GaussianNoiseReduction(c(1, 2), variances = c(4, 1), sensitivity = 1, accountant = zacc)
  expect_identical(zacc$ledger$kind, "zcdp")
  expect_identical(zacc$ledger$rho, 1 / (2 * 1))

  X <- matrix(stats::runif(400, -1, 1), ncol = 2)
  y <- as.integer(X[, 1] + X[, 2] > 0)
  ci <- confintERM(X, y, c(1, 1), c(-1, -1), gamma = 10, eps = 1, n.draws = 100,
                   accountant = BudgetAccountant$new(eps = 1))
  expect_identical(unclass(attr(ci, "privacy")$loss), list(kind = "pure", eps = 1, delta = 0))
})
