# R's model methods for the ERM models (R/model_methods.R, issue 15): coef(), predict(),
# print(), summary(), nobs(), confint(), factor/logical labels and clone(deep = TRUE).
# Fits use set.seed() in reproducible mode (helper-dppack.R); no test is randomised beyond a
# fixed seed, so none has a false-failure rate: each compares exact values or labels.

skip_if_not(dppack_available(), "the Python core is not available")

set.seed(101)
n_mm <- 120L
X_mm <- data.frame(age = stats::runif(n_mm, -1, 1), bmi = stats::runif(n_mm, -1, 1))
y_mm <- as.numeric(X_mm$age + X_mm$bmi + stats::rnorm(n_mm, sd = 0.3) > 0)
ub_mm <- c(1, 1)
lb_mm <- c(-1, -1)

# Every model class, built and fitted on X_mm: the fitted model and what its DPpack predict()
# gives as type "response" (a function of the model and X).
mm_models <- function() {
  domain <- list(constraints = function(coeff) sum(coeff^2) - length(coeff),
                 jacobian = function(coeff) 2 * coeff)
  list(
    EmpiricalRiskMinimizationDP.CMS = function() {
      m <- EmpiricalRiskMinimizationDP.CMS$new(
        mapXy.sigmoid, loss.cross.entropy, "l2", eps = 1, gamma = 1, "output",
        mapXy.gr = mapXy.gr.sigmoid, loss.gr = loss.gr.cross.entropy
      )
      m$fit(X_mm * 0.7, y_mm, ub_mm * 0.7, lb_mm * 0.7, add.bias = TRUE)
      m
    },
    WeightedERMDP.CMS = function() {
      m <- WeightedERMDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "l2", 1, 1, "output",
                                 mapXy.gr = mapXy.gr.linear,
                                 loss.gr = generate.loss.gr.huber(0.5))
      m$fit(X_mm * 0.7, 2 * y_mm - 1, ub_mm * 0.7, lb_mm * 0.7, add.bias = TRUE)
      m
    },
    LogisticRegressionDP = function() {
      m <- LogisticRegressionDP$new("l2", 1, 0.1)
      m$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
      m
    },
    svmDP = function() {
      m <- svmDP$new("l2", 1, 0.1, "output")
      m$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
      m
    },
    EmpiricalRiskMinimizationDP.KST = function() {
      m <- EmpiricalRiskMinimizationDP.KST$new(
        mapXy.linear, loss.squared.error, "l2", 1, 0, domain, zeta = 4, lambda = 2,
        gamma = 1, mapXy.gr = mapXy.gr.linear, loss.gr = loss.gr.squared.error
      )
      m$fit(X_mm, X_mm$age / 2, c(ub_mm, 1), c(lb_mm, -1), add.bias = TRUE)
      m
    },
    LinearRegressionDP = function() {
      m <- LinearRegressionDP$new("l2", 1, 0.01, 1)
      m$fit(X_mm, X_mm$age - X_mm$bmi, c(ub_mm, 2), c(lb_mm, -2), add.bias = TRUE)
      m
    },
    OutputPerturbationAGM = function() {
      m <- OutputPerturbationAGM$new("logistic", 1, 1e-5, 10)
      m$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
      m
    },
    GradientPerturbationAGM = function() {
      m <- GradientPerturbationAGM$new("huber", 1, 1e-5, 10, iterations = 200)
      m$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
      m
    }
  )
}

fitted_mm <- local({
  set.seed(102)
  lapply(mm_models(), function(build) build())
})

classifiers_mm <- c("LogisticRegressionDP", "svmDP", "OutputPerturbationAGM",
                    "GradientPerturbationAGM")

test_that("coef() names the coefficients by column, (Intercept) first; coeff stays unnamed", {
  for (name in names(fitted_mm)) {
    m <- fitted_mm[[name]]
    expect_identical(names(coef(m)), c("(Intercept)", "age", "bmi"), info = name)
    expect_identical(unname(coef(m)), as.vector(m$coeff), info = name)
    expect_null(names(m$coeff), info = name) # DPpack's field as it was
  }
  # without column names: x1, ..., xp; without add.bias: no intercept
  set.seed(103)
  m <- LogisticRegressionDP$new("l2", 1, 0.1)
  m$fit(unname(as.matrix(X_mm)), y_mm, ub_mm, lb_mm)
  expect_identical(names(coef(m)), c("x1", "x2"))
  m$fit(as.matrix(X_mm), y_mm, ub_mm, lb_mm)
  expect_identical(names(coef(m)), c("age", "bmi"))
  # svmDP's Gaussian kernel: coefficients of the D random features
  g <- svmDP$new("l2", 1, 1, "output", kernel = "Gaussian", D = 5)
  g$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
  expect_identical(names(coef(g)), paste0("V", 1:5))
  # an unfitted model: a clear error, not NULL
  expect_error(coef(LogisticRegressionDP$new("l2", 1, 0.1)),
               "The LogisticRegressionDP model is not fitted: call its fit() first.",
               fixed = TRUE)
})

test_that("predict() remembers add.bias and takes newdata's columns by name", {
  reordered <- X_mm[, c("bmi", "age")]
  extra <- cbind(other = 1, X_mm[, c("bmi", "age")])
  for (name in names(fitted_mm)) {
    m <- fitted_mm[[name]]
    expected <- if (name %in% classifiers_mm) {
      m$predict(X_mm, add.bias = TRUE, raw.value = TRUE)
    } else {
      m$predict(X_mm, add.bias = TRUE)
    }
    expect_identical(predict(m, X_mm, type = "response"), as.vector(expected), info = name)
    expect_identical(predict(m, reordered, type = "response"), as.vector(expected),
                     info = name)
    expect_identical(predict(m, extra, type = "response"), as.vector(expected), info = name)
    expect_error(predict(m, X_mm[, "age", drop = FALSE]),
                 "newdata lacks the column(s) the model was fitted on: bmi.", fixed = TRUE)
    expect_error(predict(m), "newdata must be given: a private model keeps no data.",
                 fixed = TRUE)
  }
  # a matrix without names: columns in order
  m <- fitted_mm$LogisticRegressionDP
  expect_identical(predict(m, unname(as.matrix(X_mm))), predict(m, X_mm))
  # the error names the user's call
  cnd <- expect_error(predict(m, X_mm[, "age", drop = FALSE]))
  expect_identical(conditionCall(cnd)[[1]], as.name("predict"))
})

test_that("predict() types: probabilities, decision values, outputs; classes as fitted", {
  m <- fitted_mm$LogisticRegressionDP
  p <- predict(m, X_mm, type = "response")
  expect_true(all(p > 0 & p < 1))
  expect_identical(predict(m, X_mm), as.vector(m$predict(X_mm, add.bias = TRUE)))
  expect_identical(predict(m, X_mm), predict(m, X_mm, "class")) # "class" is the default
  s <- fitted_mm$svmDP
  score <- predict(s, X_mm, type = "response")
  expect_identical(predict(s, X_mm), as.numeric(score > 0))
  # the regressions and base frameworks predict outputs only
  l <- fitted_mm$LinearRegressionDP
  # (R's and NumPy's products may differ in the last bits: equal, not identical)
  expect_equal(predict(l, X_mm), as.vector(cbind(1, as.matrix(X_mm)) %*% l$coeff),
               tolerance = 1e-12)
  expect_error(predict(l, X_mm, type = "class"), "type = \"class\" is for the classifiers",
               fixed = TRUE)
  expect_error(predict(fitted_mm$EmpiricalRiskMinimizationDP.CMS, X_mm, type = "class"),
               "type = \"class\" is for the classifiers", fixed = TRUE)
})

test_that("a two-level factor or a logical y fits as 0/1 and predicts in its own type", {
  y_factor <- factor(ifelse(y_mm == 1, "yes", "no"), levels = c("no", "yes"))
  for (build in list(function() LogisticRegressionDP$new("l2", 1, 0.1),
                     function() svmDP$new("l2", 1, 0.1, "output"),
                     function() OutputPerturbationAGM$new("logistic", 1, 1e-5, 10))) {
    numeric <- build()
    set.seed(104)
    numeric$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
    labelled <- build()
    set.seed(104)
    labelled$fit(X_mm, y_factor, ub_mm, lb_mm, add.bias = TRUE)
    # first level <-> 0: the same release as the 0/1 labels
    expect_identical(labelled$coeff, numeric$coeff)
    predicted <- predict(labelled, X_mm)
    expect_s3_class(predicted, "factor")
    expect_identical(levels(predicted), c("no", "yes"))
    expect_identical(predicted == "yes", predict(numeric, X_mm) == 1)
    logical <- build()
    set.seed(104)
    logical$fit(X_mm, y_mm == 1, ub_mm, lb_mm, add.bias = TRUE)
    expect_identical(logical$coeff, numeric$coeff)
    expect_identical(predict(logical, X_mm), predict(numeric, X_mm) == 1)
  }
  # the levels are the declared ones: the data may show one of the two
  m <- LogisticRegressionDP$new("l2", 1, 0.1)
  m$fit(X_mm, factor(rep("no", n_mm), levels = c("no", "yes")), ub_mm, lb_mm)
  expect_identical(levels(predict(m, X_mm)), c("no", "yes"))
  expect_output(print(summary(m)), "Labels (0, 1): no, yes (factor)", fixed = TRUE)
})

test_that("labels without a public two-level set are refused before any noise", {
  m <- LogisticRegressionDP$new("l2", 1, 0.1)
  stream <- .Random.seed
  expect_error(m$fit(X_mm, factor(rep(c("a", "b", "c"), 40)), ub_mm, lb_mm),
               "y must be a factor with exactly two levels, the public label set; it has 3.",
               fixed = TRUE)
  expect_error(m$fit(X_mm, ifelse(y_mm == 1, "yes", "no"), ub_mm, lb_mm),
               "the label set must be public, not read from the data.", fixed = TRUE)
  expect_error(tune_classification_model(list(m), X_mm, factor(rep("a", n_mm)), ub_mm, lb_mm),
               "it has 1.", fixed = TRUE)
  expect_identical(.Random.seed, stream)
  expect_null(m$coeff)
  expect_null(m$.fitted)
})

test_that("nobs() is the fit's n; print() is short; summary() has its own print", {
  for (name in names(fitted_mm)) {
    m <- fitted_mm[[name]]
    expect_identical(nobs(m), n_mm, info = name)
    out <- capture.output(print(m))
    expect_lte(length(out), 7)
    expect_match(out[[1]], paste0("^<", name, "> eps = 1, "))
    expect_true(any(grepl("Fitted on n = 120; privacy spent: ", out, fixed = TRUE)))
    expect_true(any(grepl("(Intercept)", out, fixed = TRUE)))
    expect_false(any(grepl("Methods:|mapXy|prefilter", out))) # not the field dump
    s <- summary(m)
    expect_s3_class(s, paste0("summary.", name))
    expect_s3_class(s, "summary.dppack_model")
    expect_identical(s$coefficients, coef(m))
    expect_identical(s$n, n_mm)
    expect_identical(s$privacy, m$privacy)
    expect_output(print(s), paste0("Private model: ", name), fixed = TRUE)
    expect_output(print(s), "Bounds of the fit (public):", fixed = TRUE)
    expect_output(print(s), paste("Privacy spent:", format(m$privacy)), fixed = TRUE)
  }
  expect_output(print(fitted_mm$LinearRegressionDP),
                "eps = 1, delta = 0.01, gamma = 1, regularizer = l2", fixed = TRUE)
  expect_identical(rownames(summary(fitted_mm$LinearRegressionDP)$bounds),
                   c("age", "bmi", "(response)"))
  expect_output(print(summary(fitted_mm$svmDP)), "output perturbation", fixed = TRUE)
  expect_output(print(LogisticRegressionDP$new("l2", 2, 0.1)), "Not fitted.", fixed = TRUE)
  # eps = Inf releases without privacy, and says so
  m <- LogisticRegressionDP$new("l2", Inf, 0.1)
  m$fit(X_mm, y_mm, ub_mm, lb_mm)
  expect_output(print(m), "privacy spent: none: eps = Inf", fixed = TRUE)
})

test_that("clone(deep = TRUE) gives an independent model with the record of the fit", {
  for (deep in c(FALSE, TRUE)) {
    m <- LogisticRegressionDP$new("l2", 1, 0.1)
    set.seed(105)
    m$fit(X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE)
    before <- coef(m)
    copy <- m$clone(deep = deep)
    expect_identical(coef(copy), before)
    expect_identical(predict(copy, X_mm), predict(m, X_mm))
    copy$fit(X_mm[1:60, ], y_mm[1:60] == 1, ub_mm, lb_mm)
    copy$gamma <- 5
    expect_identical(coef(m), before)
    expect_identical(nobs(m), n_mm)
    expect_identical(m$gamma, 0.1)
    expect_identical(nobs(copy), 60L)
    expect_identical(names(coef(copy)), c("age", "bmi"))
    expect_type(predict(copy, X_mm), "logical")
    expect_type(predict(m, X_mm), "double")
  }
})

test_that("confint() names rows as coef() and uses the fit's add.bias and labels", {
  m <- LogisticRegressionDP$new("l2", 1, 2)
  m$fit(X_mm, y_mm == 1, ub_mm, lb_mm, add.bias = TRUE)
  coeff <- m$coeff
  set.seed(106)
  ci <- confint(m, X = X_mm, y = y_mm == 1, upper.bounds = ub_mm, lower.bounds = lb_mm,
                n.draws = 200)
  expect_identical(rownames(ci), names(coef(m)))
  expect_identical(m$coeff, coeff) # not refitted
  set.seed(106)
  same <- confintDP(m, X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE, n.draws = 200)
  expect_equal(ci, same)
  kept <- confint(m, parm = "bmi", X = X_mm, y = y_mm, upper.bounds = ub_mm,
                  lower.bounds = lb_mm, n.draws = 200)
  expect_identical(rownames(kept), "bmi")
})

test_that("the tuning functions leave each model with a record: names, labels, n unknown", {
  models <- lapply(c(1, 10), function(g) LogisticRegressionDP$new("l2", 1, g))
  y_factor <- factor(ifelse(y_mm == 1, "yes", "no"), levels = c("no", "yes"))
  set.seed(107)
  best <- tune_classification_model(models, X_mm, y_factor, ub_mm, lb_mm, add.bias = TRUE)
  expect_identical(names(coef(best)), c("(Intercept)", "age", "bmi"))
  expect_identical(levels(predict(best, X_mm)), c("no", "yes"))
  expect_identical(nobs(models[[2]]), NA_integer_)
  # an assigned coeff without a fit: DPpack's predict() works, predict() asks for add.bias
  m <- LogisticRegressionDP$new("l2", 1, 1)
  m$coeff <- c(0.1, 0.2)
  expect_error(predict(m, X_mm), "does not know add.bias", fixed = TRUE)
  expect_identical(names(coef(m)), c("x1", "x2"))
})

test_that("confint() of the models without private intervals says so", {
  for (name in c("LinearRegressionDP", "OutputPerturbationAGM")) {
    cnd <- expect_error(confint(fitted_mm[[name]]),
                        paste0("confint() is defined for LogisticRegressionDP and svmDP ",
                               "models (private intervals, see confintDP()); a ", name,
                               " has none."), fixed = TRUE)
    expect_identical(conditionCall(cnd)[[1]], as.name("confint"))
  }
})

# ---- review fixes (issue 15) ----------------------------------------------------------------

test_that("clone() and clone(deep = TRUE) give an independent model for every class", {
  # refit each class on the first 60 rows, with the data its fit takes
  half <- 1:60
  refit <- list(
    EmpiricalRiskMinimizationDP.CMS = function(m) {
      m$fit(X_mm[half, ] * 0.7, y_mm[half], ub_mm * 0.7, lb_mm * 0.7, add.bias = TRUE)
    },
    WeightedERMDP.CMS = function(m) {
      m$fit(X_mm[half, ] * 0.7, 2 * y_mm[half] - 1, ub_mm * 0.7, lb_mm * 0.7, add.bias = TRUE)
    },
    EmpiricalRiskMinimizationDP.KST = function(m) {
      m$fit(X_mm[half, ], X_mm$age[half] / 2, c(ub_mm, 1), c(lb_mm, -1), add.bias = TRUE)
    },
    LinearRegressionDP = function(m) {
      m$fit(X_mm[half, ], X_mm$age[half] - X_mm$bmi[half], c(ub_mm, 2), c(lb_mm, -2),
            add.bias = TRUE)
    }
  )
  classify <- function(m) m$fit(X_mm[half, ], y_mm[half], ub_mm, lb_mm, add.bias = TRUE)
  for (name in names(fitted_mm)) {
    for (deep in c(FALSE, TRUE)) {
      set.seed(131)
      m <- mm_models()[[name]]()
      before <- coef(m)
      eps <- m$eps
      copy <- m$clone(deep = deep)
      info <- paste(name, "deep =", deep)
      expect_s3_class(copy, name)
      expect_identical(coef(copy), before, info = info)
      expect_identical(predict(copy, X_mm, type = "response"),
                       predict(m, X_mm, type = "response"), info = info)
      copy$eps <- 2 * eps
      set.seed(132)
      if (name %in% names(refit)) refit[[name]](copy) else classify(copy)
      expect_identical(coef(m), before, info = info)
      expect_identical(nobs(m), n_mm, info = info)
      expect_identical(m$eps, eps, info = info)
      expect_identical(nobs(copy), 60L, info = info)
      expect_identical(copy$privacy$eps, 2 * eps, info = info)
      expect_false(isTRUE(all.equal(coef(copy), before)), info = info)
    }
  }
})

# What a refused release leaves unchanged: the accountant's ledger and R's random stream.
expect_nothing_released <- function(object, message, acc) {
  stream <- get(".Random.seed", envir = globalenv())
  cnd <- expect_dppack_error(object, message, "confint")
  expect_identical(nrow(acc$ledger), 0L)
  expect_identical(get(".Random.seed", envir = globalenv()), stream)
  invisible(cnd)
}

test_that("confint() of a model without data or with bad arguments says so, releasing nothing", {
  acc <- BudgetAccountant$new(eps = 10)
  set.seed(133)
  for (name in c("LogisticRegressionDP", "svmDP")) {
    m <- fitted_mm[[name]]
    expect_nothing_released(
      confint(m, accountant = acc),
      paste0("confint() of ", if (name == "svmDP") "an " else "a ", name,
             " model needs the data to release intervals from; ",
             "missing: X, y, upper.bounds, lower.bounds. It is a new private release, not a ",
             "summary of the fit: it fits the coefficients again and spends the model's eps = ",
             "1 (or the rho you give). Give the data as to fit(): confint(model, X = X, y = y, ",
             "upper.bounds = ub, lower.bounds = lb)."),
      acc
    )
  }
  m <- fitted_mm$LogisticRegressionDP
  expect_nothing_released(confint(m, X = X_mm, y = y_mm, accountant = acc),
                          paste0("confint() of a LogisticRegressionDP model needs the data to ",
                                 "release intervals from; missing: upper.bounds, lower.bounds. ",
                                 "It is a new private release, not a summary of the fit: it ",
                                 "fits the coefficients again and spends the model's eps = 1 ",
                                 "(or the rho you give). Give the data as to fit(): ",
                                 "confint(model, X = X, y = y, upper.bounds = ub, ",
                                 "lower.bounds = lb)."), acc)
  allowed <- paste0("X, y, upper.bounds, lower.bounds, add.bias, rho, budget.split, n.draws, ",
                    "accountant")
  expect_nothing_released(
    confint(m, X = X_mm, y = y_mm, upper.bounds = ub_mm, lower.bounds = lb_mm, n.draw = 10,
            accountant = acc),
    paste0("confint() of a model takes its further arguments by name, among: ", allowed,
           "; unknown: n.draw."), acc
  )
  expect_nothing_released(
    confint(m, "age", 0.9, X_mm, y_mm, ub_mm, lb_mm, accountant = acc),
    paste0("confint() of a model takes its further arguments by name, among: ", allowed, "."),
    acc
  )
  for (parm in list("weight", 4, c(1, 2.5))) {
    expect_nothing_released(
      confint(m, parm, X = X_mm, y = y_mm, upper.bounds = ub_mm, lower.bounds = lb_mm,
              accountant = acc),
      paste0("parm must give names or indices of the coefficients: (Intercept), age, bmi ",
             "(1 to 3); not ", paste(setdiff(parm, c(1, "age")), collapse = ", "), "."),
      acc
    )
  }
  # confintDP() says the same in its own name
  cnd <- expect_error(confintDP(m, X_mm), "confintDP() of a LogisticRegressionDP model needs",
                      fixed = TRUE)
  expect_match(conditionMessage(cnd), "missing: y, upper.bounds, lower.bounds.", fixed = TRUE)
  expect_identical(conditionCall(cnd)[[1]], as.name("confintDP"))
  expect_error(DPpackPy::confintDP(m), "^confintDP\\(\\) of a LogisticRegressionDP model")
  # the Gaussian kernel's svmDP has no intervals, and the core says so before any release
  g <- svmDP$new("l2", 1, 0.1, "output", kernel = "Gaussian", D = 5)
  expect_nothing_released(
    confint(g, X = X_mm, y = y_mm, upper.bounds = ub_mm, lower.bounds = lb_mm,
            accountant = acc),
    "confintDP needs an svmDP with the linear kernel.", acc
  )
})

test_that("confint() and confintDP() of the base frameworks say they have none, first", {
  # the class is checked before the data: without data, with data and with bad arguments
  # the message is the same, nothing is charged and R's random stream is left as it was
  acc <- BudgetAccountant$new(eps = 10)
  set.seed(134)
  for (name in c("EmpiricalRiskMinimizationDP.CMS", "WeightedERMDP.CMS")) {
    m <- fitted_mm[[name]]
    article <- c(EmpiricalRiskMinimizationDP.CMS = "an", WeightedERMDP.CMS = "a")[[name]]
    message <- paste0("confint() is defined for LogisticRegressionDP and svmDP models (private ",
                      "intervals, see confintDP()); ", article, " ", name, " has none.")
    expect_nothing_released(confint(m, accountant = acc), message, acc)
    expect_nothing_released(
      confint(m, X = X_mm, y = y_mm, upper.bounds = ub_mm, lower.bounds = lb_mm,
              accountant = acc),
      message, acc
    )
    expect_nothing_released(confint(m, "age", 0.9, X_mm, n.draw = 1, accountant = acc),
                            message, acc)
    stream <- get(".Random.seed", envir = globalenv())
    expect_dppack_error(confintDP(m, accountant = acc), sub("^confint", "confintDP", message),
                        "confintDP")
    expect_dppack_error(confintDP(m, X_mm, y_mm, ub_mm, lb_mm, accountant = acc),
                        sub("^confint", "confintDP", message), "confintDP")
    expect_identical(nrow(acc$ledger), 0L)
    expect_identical(get(".Random.seed", envir = globalenv()), stream)
  }
})

test_that("confint() of an svmDP through S3: the fit's add.bias and labels, eps charged", {
  m <- svmDP$new("l2", 1, 0.1, "output")
  y_factor <- factor(ifelse(y_mm == 1, "yes", "no"), levels = c("no", "yes"))
  m$fit(X_mm, y_factor, ub_mm, lb_mm, add.bias = TRUE)
  coeff <- m$coeff
  acc <- BudgetAccountant$new(eps = 5)
  set.seed(134)
  ci <- confint(m, X = X_mm, y = y_factor, upper.bounds = ub_mm, lower.bounds = lb_mm,
                n.draws = 200, accountant = acc)
  expect_s3_class(ci, "confintDP")
  expect_identical(rownames(ci), c("(Intercept)", "age", "bmi"))
  expect_identical(m$coeff, coeff) # the model is not refitted
  expect_identical(acc$spent$eps, 1) # the model's eps, spent again
  set.seed(134)
  same <- confintDP(m, X_mm, y_mm, ub_mm, lb_mm, add.bias = TRUE, n.draws = 200)
  expect_equal(ci, same)
  expect_true(all(ci[[2]] <= ci$estimate & ci$estimate <= ci[[3]]))
  kept <- confint(m, c("bmi", "age"), level = 0.9, X = X_mm, y = y_mm, upper.bounds = ub_mm,
                  lower.bounds = lb_mm, n.draws = 200)
  expect_identical(rownames(kept), c("bmi", "age"))
  expect_identical(attr(kept, "level"), 0.9)
})
