# The formula front end lmDP() / glmDP() (R/formula.R): the same fit as the R6 models on the
# design written out by hand (same seed, same coefficients, same charge to an accountant),
# bounds of the design's columns derived from the bounds by variable, errors before any data
# is read or noise drawn, predict() on new data with factors, and the methods. The noise laws
# are the models' and are tested there (test-erm.R, tests/python).

# ---- data ---------------------------------------------------------------------------------

# n = 400 rows: a numeric age in [20, 80], a factor with three declared levels, a logical and
# responses for both models. Made once, with its own seed.
make_formula_data <- function(n = 400) {
  withr_seed <- .Random.seed
  on.exit(assign(".Random.seed", withr_seed, envir = globalenv()))
  set.seed(20261124)
  age <- stats::runif(n, 20, 80)
  group <- factor(sample(c("a", "b", "c"), n, TRUE), levels = c("a", "b", "c"))
  smoker <- stats::runif(n) < 0.3
  y <- 10 + 0.5 * age + 5 * (group == "b") - 3 * smoker + stats::rnorm(n, sd = 5)
  sick <- factor(ifelse(stats::runif(n) < stats::plogis(-3 + 0.05 * age + (group == "c")),
                        "yes", "no"), levels = c("no", "yes"))
  data.frame(age = age, group = group, smoker = smoker, y = y, sick = sick)
}
set.seed(1)
fd <- make_formula_data()

# The design of y ~ age + group + smoker written out by hand, without an intercept column.
hand_design <- function(d) {
  cbind(age = d$age, groupb = as.numeric(d$group == "b"), groupc = as.numeric(d$group == "c"),
        smokerTRUE = as.numeric(d$smoker))
}

# R's random stream as it is now.
stream <- function() get(".Random.seed", envir = globalenv())

# ---- the same fit as the R6 models ---------------------------------------------------------

test_that("glmDP() gives the R6 model's coefficients and charge, with the same seed", {
  acc_formula <- BudgetAccountant$new(eps = 5)
  acc_direct <- BudgetAccountant$new(eps = 5)
  set.seed(11)
  fit <- glmDP(sick ~ age + group + smoker, fd, eps = 1, gamma = 2,
               bounds = list(age = c(20, 80)), accountant = acc_formula)
  set.seed(11)
  model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 2)
  model$fit(hand_design(fd), as.numeric(fd$sick == "yes"), upper.bounds = c(80, 1, 1, 1),
            lower.bounds = c(20, 0, 0, 0), add.bias = TRUE, accountant = acc_direct)
  expect_identical(unname(coef(fit)), as.vector(model$coeff))
  expect_identical(names(coef(fit)),
                   c("(Intercept)", "age", "groupb", "groupc", "smokerTRUE"))
  # the charge and what the fit reports it spent are the direct call's
  expect_identical(acc_formula$ledger[, c("kind", "eps", "delta")],
                   acc_direct$ledger[, c("kind", "eps", "delta")])
  expect_identical(fit$model$privacy, model$privacy)
  expect_identical(fit$model$privacy$eps, 1)
  # another seed gives other noise (so the comparison above is not vacuous)
  set.seed(12)
  other <- glmDP(sick ~ age + group + smoker, fd, eps = 1, gamma = 2,
                 bounds = list(age = c(20, 80)))
  expect_false(isTRUE(all.equal(coef(other), coef(fit))))
})

test_that("lmDP() gives LinearRegressionDP's coefficients and charge, response bounds last", {
  acc_formula <- BudgetAccountant$new(eps = 5, delta = 0.1)
  acc_direct <- BudgetAccountant$new(eps = 5, delta = 0.1)
  set.seed(21)
  fit <- lmDP(y ~ age + group + smoker, fd, eps = 1, delta = 0.01, gamma = 1,
              bounds = list(age = c(20, 80), y = c(0, 70)), accountant = acc_formula)
  set.seed(21)
  model <- LinearRegressionDP$new("l2", eps = 1, delta = 0.01, gamma = 1)
  model$fit(hand_design(fd), fd$y, upper.bounds = c(80, 1, 1, 1, 70),
            lower.bounds = c(20, 0, 0, 0, 0), add.bias = TRUE, accountant = acc_direct)
  expect_identical(unname(coef(fit)), as.vector(model$coeff))
  expect_identical(acc_formula$ledger[, c("kind", "eps", "delta")],
                   acc_direct$ledger[, c("kind", "eps", "delta")])
  expect_identical(fit$model$privacy, model$privacy)
  expect_identical(fit$model$privacy$delta, 0.01)
  expect_identical(nobs(fit), 400L)
  expect_identical(formula(fit), y ~ age + group + smoker)
})

test_that("the response of glmDP() can be 0/1, logical or a two-level factor", {
  d <- fd
  d$sick01 <- as.numeric(d$sick == "yes")
  d$sickTF <- d$sick == "yes"
  fits <- lapply(c("sick", "sick01", "sickTF"), function(response) {
    set.seed(31)
    glmDP(stats::reformulate("age", response), d, eps = 1, bounds = list(age = c(20, 80)))
  })
  expect_identical(coef(fits[[1]]), coef(fits[[2]]))
  expect_identical(coef(fits[[1]]), coef(fits[[3]]))
  new <- data.frame(age = c(20, 80))
  expect_identical(levels(predict(fits[[1]], new)), c("no", "yes"))
  expect_type(predict(fits[[3]], new), "logical")
  expect_true(all(predict(fits[[2]], new) %in% c(0, 1)))
})

# ---- bounds of the design ------------------------------------------------------------------

test_that("transformations and interactions get bounds by interval arithmetic", {
  interval <- function(text, bounds) {
    DPpackPy:::.formula_interval(str2lang(text), bounds, text)
  }
  b <- list(x = c(-1, 2), z = c(1, 4), w = c(0.5, 3))
  expect_identical(interval("x", b), c(-1, 2))
  expect_identical(interval("I(x^2)", b), c(0, 4)) # 0 inside: the square reaches 0
  expect_identical(interval("I(z^2)", b), c(1, 16))
  expect_identical(interval("I(x^3)", b), c(-1, 8))
  expect_identical(interval("log(z)", b), log(c(1, 4)))
  expect_identical(interval("sqrt(w)", b), sqrt(c(0.5, 3)))
  expect_identical(interval("I(x * z)", b), c(-4, 8))
  expect_identical(interval("I(x / z)", b), c(-1, 2))
  expect_identical(interval("I(x - z)", b), c(-5, 1))
  expect_identical(interval("I(-x + 1)", b), c(-1, 2))
  expect_identical(interval("abs(x)", b), c(0, 2))
  expect_identical(interval("exp(I(2 * x))", b), exp(c(-2, 4)))
  expect_identical(interval("I(z^-1)", b), c(0.25, 1))
  expect_identical(interval("I(w^0.5)", b), sqrt(c(0.5, 3)))
  # every value of the expression on a grid of the box lies within its interval
  grid <- expand.grid(x = seq(-1, 2, length.out = 31), z = seq(1, 4, length.out = 31))
  for (text in c("I(x^2)", "I(x * z)", "I(x / z)", "I(x - z)", "abs(x)", "I((x - 1)^2 * z)")) {
    values <- eval(str2lang(text), grid)
    bounds <- interval(text, b)
    expect_true(all(values >= bounds[1] - 1e-12 & values <= bounds[2] + 1e-12), info = text)
  }
  # refused: outside a function's domain, division by an interval holding 0, others
  expect_error(interval("log(x)", b), "log() needs a lower bound of x > 0", fixed = TRUE)
  expect_error(interval("sqrt(x)", b), "sqrt() needs a lower bound of x >= 0", fixed = TRUE)
  expect_error(interval("I(z / x)", b), "the bounds of the divisor x contain 0", fixed = TRUE)
  expect_error(interval("I(x^-1)", b), "a negative power needs bounds of x without 0",
               fixed = TRUE)
  expect_error(interval("I(x^0.5)", b), "a fractional power needs x >= 0", fixed = TRUE)
  expect_error(interval("I(x^z)", b), "an exponent must be a number", fixed = TRUE)
  expect_error(interval("sin(x)", b), "sin() is not supported", fixed = TRUE)
  expect_error(interval("exp(I(1000 * z))", b), "its bounds are not finite", fixed = TRUE)
})

test_that("the fit clips and bounds each design column as summary() reports", {
  set.seed(41)
  fit <- glmDP(sick ~ log(age) + group:age + I(age^2), fd, eps = 1,
               bounds = list(age = c(30, 70)))
  bounds <- summary(fit)$bounds
  expect_identical(rownames(bounds),
                   c("log(age)", "I(age^2)", "groupa:age", "groupb:age", "groupc:age"))
  expect_identical(bounds$lower, c(log(30), 900, 0, 0, 0))
  expect_identical(bounds$upper, c(log(70), 4900, 70, 70, 70))
  # the same fit as the R6 model on the design of age clipped to [30, 70]
  age <- pmin(pmax(fd$age, 30), 70)
  X <- cbind(log(age), age^2, age * (fd$group == "a"), age * (fd$group == "b"),
             age * (fd$group == "c"))
  set.seed(41)
  model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 1)
  model$fit(X, fd$sick, bounds$upper, bounds$lower, add.bias = TRUE)
  expect_equal(unname(coef(fit)), as.vector(model$coeff), tolerance = 1e-12)
  # the caller's data were not changed by the clipping
  expect_identical(fd, make_formula_data())
})

test_that("factors keep their declared levels, also levels no row has", {
  d <- fd
  d$group <- factor(as.character(d$group), levels = c("a", "b", "c", "d")) # no row is "d"
  set.seed(51)
  fit <- glmDP(sick ~ age + group, d, eps = 1, bounds = list(age = c(20, 80)))
  expect_identical(names(coef(fit)), c("(Intercept)", "age", "groupb", "groupc", "groupd"))
  expect_identical(fit$xlevels, list(group = c("a", "b", "c", "d")))
  # no intercept: no bias, the first factor coded by all its levels
  set.seed(52)
  fit0 <- lmDP(y ~ group + age - 1, fd, eps = 1, bounds = list(age = c(20, 80), y = c(0, 70)))
  expect_false(fit0$add.bias)
  expect_identical(names(coef(fit0)), c("groupa", "groupb", "groupc", "age"))
})

# ---- errors, before any data is read or noise drawn -------------------------------------------

test_that("missing or bad bounds stop the call before anything is read, drawn or spent", {
  acc <- BudgetAccountant$new(eps = 5)
  set.seed(61)
  before <- stream()
  expect_dppack_error(
    lmDP(y ~ age + log(bmi) + group, cbind(fd, bmi = 20), eps = 1, bounds = list(x = c(0, 1)),
         accountant = acc),
    paste0("bounds must give c(lower, upper) for every numeric variable of the formula; ",
           "missing: y, age, bmi."),
    "lmDP"
  )
  # glmDP's response needs none; factors and logicals need none
  expect_dppack_error(
    glmDP(sick ~ age + group + smoker, fd, eps = 1, bounds = list(), accountant = acc),
    "bounds must give c(lower, upper) for every numeric variable of the formula; missing: age.",
    "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ age, fd, eps = 1, bounds = list(age = c(80, 20))),
    "bounds$age must be c(lower, upper), two finite numbers with lower < upper.", "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ age, fd, eps = 1, bounds = c(age = 1)),
    "bounds must be a named list of c(lower, upper) by variable, such as list(age = c(20, 80)).",
    "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ poly(age, 2), fd, eps = 1, bounds = list(age = c(20, 80))),
    paste0("Cannot derive bounds for poly(age, 2) from the bounds of its variables: poly() ",
           "is not supported. Supported: + - * / ^, I(), abs(), log(), log2(), log10(), ",
           "log1p(), sqrt(), exp(), expm1(); or add the transformed variable to data and ",
           "give its bounds."),
    "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ log(age - 30), fd, eps = 1, bounds = list(age = c(20, 80))),
    paste0("Cannot derive bounds for log(age - 30) from the bounds of its variables: log() ",
           "needs a lower bound of age - 30 > 0."),
    "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ as.numeric(group), fd, eps = 1, bounds = list()),
    paste0("Cannot derive bounds for as.numeric(group): factors and logicals can only enter ",
           "the formula as they are."),
    "glmDP"
  )
  d <- fd
  d$city <- as.character(d$group)
  expect_dppack_error(
    glmDP(sick ~ city, d, eps = 1, bounds = list()),
    paste0("Character columns have no declared levels (model.matrix would take them from the ",
           "data): make them factors with their levels, e.g. factor(x, levels = c(\"a\", ",
           "\"b\")): city."),
    "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ age + weight, fd, eps = 1, bounds = list(age = c(20, 80))),
    "The formula uses variables that are not columns of data: weight.", "glmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ age + offset(age), fd, eps = 1, bounds = list(age = c(20, 80))),
    "offset() is not supported in the formula.", "glmDP"
  )
  # the model's own checks come first, from the user's call
  expect_dppack_error(glmDP(sick ~ age, fd, eps = -1, bounds = list(age = c(20, 80))),
                      "eps must be a scalar > 0", "glmDP")
  expect_identical(stream(), before)
  expect_identical(nrow(acc$ledger), 0L)
})

test_that("glmDP() names the families it supports", {
  message <- function(what) {
    paste0("glmDP() supports family = binomial() with the logit link (private logistic ",
           "regression), not ", what, ". For a numeric response use lmDP().")
  }
  b <- list(age = c(20, 80))
  expect_dppack_error(glmDP(sick ~ age, fd, poisson(), eps = 1, bounds = b),
                      message("poisson(link = \"log\")"), "glmDP")
  expect_dppack_error(glmDP(sick ~ age, fd, "gaussian", eps = 1, bounds = b),
                      message("gaussian(link = \"identity\")"), "glmDP")
  expect_dppack_error(glmDP(sick ~ age, fd, binomial(link = "probit"), eps = 1, bounds = b),
                      message("binomial(link = \"probit\")"), "glmDP")
  expect_dppack_error(glmDP(sick ~ age, fd, quasibinomial(), eps = 1, bounds = b),
                      message("quasibinomial(link = \"logit\")"), "glmDP")
  # binomial given as a function or a name is the default
  set.seed(71)
  a <- glmDP(sick ~ age, fd, binomial, eps = 1, bounds = b)
  set.seed(71)
  b <- glmDP(sick ~ age, fd, "binomial", eps = 1, bounds = b)
  expect_identical(coef(a), coef(b))
})

test_that("missing values are refused, not dropped", {
  acc <- BudgetAccountant$new(eps = 5)
  d <- fd
  d$age[5] <- NA
  set.seed(81)
  before <- stream()
  expect_dppack_error(
    glmDP(sick ~ age, d, eps = 1, bounds = list(age = c(20, 80)), accountant = acc),
    paste0("data has missing or infinite values (NA, NaN or Inf) in: age. They are refused, ",
           "not dropped: remove or impute them before the call."),
    "glmDP"
  )
  d <- fd
  d$group[7] <- NA
  expect_dppack_error(
    lmDP(y ~ group, d, eps = 1, bounds = list(y = c(0, 70)), accountant = acc),
    paste0("data has missing or infinite values (NA, NaN or Inf) in: group. They are ",
           "refused, not dropped: remove or impute them before the call."),
    "lmDP"
  )
  d <- fd
  d$y[9] <- Inf # not clipped to its bound: refused as the models refuse it
  expect_dppack_error(
    lmDP(y ~ age, d, eps = 1, bounds = list(age = c(20, 80), y = c(0, 70)), accountant = acc),
    paste0("data has missing or infinite values (NA, NaN or Inf) in: y. They are refused, ",
           "not dropped: remove or impute them before the call."),
    "lmDP"
  )
  expect_dppack_error(
    glmDP(sick ~ age, fd, eps = 1, bounds = list(age = c(20, 80)), na.action = na.omit),
    paste0("na.action must be na.fail: rows with missing values are not dropped, as which ",
           "rows remain would depend on the data and change the number of rows the privacy ",
           "guarantee assumes. Remove or impute them before the call, by a rule that does ",
           "not look at the data."),
    "glmDP"
  )
  expect_identical(stream(), before)
  expect_identical(nrow(acc$ledger), 0L)
})

test_that("a factor response of glmDP() needs two declared levels", {
  d <- fd
  d$sick3 <- factor(as.character(d$sick), levels = c("no", "yes", "maybe"))
  expect_dppack_error(
    glmDP(sick3 ~ age, d, eps = 1, bounds = list(age = c(20, 80))),
    paste0("A factor response of glmDP() must have two levels (declared with factor(y, ",
           "levels = ...)); sick3 has 3."),
    "glmDP"
  )
  expect_dppack_error(
    lmDP(sick ~ age, fd, eps = 1, bounds = list(age = c(20, 80))),
    "The response of lmDP() must be one numeric variable.", "lmDP"
  )
  # A factor made in the formula would take its levels from the data: refused whatever the
  # data hold (one value or two), so the error itself releases nothing; I(<logical>) works.
  made <- paste0("The response of glmDP() must be a column of data or I(<logical expression>): ",
                 "a factor made inside the formula takes its levels from the data.")
  expect_dppack_error(glmDP(factor(age > 1000) ~ group, fd, eps = 1, bounds = list()),
                      made, "glmDP")
  expect_dppack_error(glmDP(factor(age > 50) ~ group, fd, eps = 1, bounds = list()),
                      made, "glmDP")
  expect_s3_class(glmDP(I(age > 50) ~ group, fd, eps = 1, bounds = list()), "glmDP")
})

# ---- predict and the methods ---------------------------------------------------------------

test_that("predict() builds newdata's design with the fit's levels and the model's coefficients", {
  set.seed(91)
  fit <- glmDP(sick ~ age + group + smoker, fd, eps = 1, bounds = list(age = c(20, 80)))
  # new rows: group given as text and as a factor with fewer levels, one row with NA
  new <- data.frame(age = c(25, 50, 75, NA), group = c("c", "a", "b", "a"),
                    smoker = c(TRUE, FALSE, TRUE, FALSE), row.names = c("p", "q", "r", "s"))
  theta <- coef(fit)
  X <- cbind(1, c(25, 50, 75), c(0, 0, 1), c(1, 0, 0), c(1, 0, 1))
  link <- drop(X %*% theta)
  expect_equal(predict(fit, new, type = "link")[1:3], stats::setNames(link, c("p", "q", "r")),
               tolerance = 1e-10)
  expect_equal(predict(fit, new, type = "response"),
               c(p = stats::plogis(link[1]), q = stats::plogis(link[2]),
                 r = stats::plogis(link[3]), s = NA), tolerance = 1e-12)
  classes <- expect_silent(predict(fit, new)) # the NA row is not sent to the core (a warning)
  expect_identical(levels(classes), c("no", "yes"))
  expect_identical(as.character(classes)[1:3], ifelse(link > 0, "yes", "no"))
  expect_true(is.na(classes[[4]]))
  new_factor <- new[1:3, ]
  new_factor$group <- factor(new_factor$group, levels = c("c", "b", "a"))
  expect_identical(predict(fit, new_factor), classes[1:3])
  expect_error(predict(fit, data.frame(age = 30, group = "z", smoker = TRUE)),
               "factor group has new level z", fixed = TRUE)
  expect_dppack_error(predict(fit),
                      "predict() needs newdata: a fit of lmDP() or glmDP() keeps no data.",
                      "predict")

  set.seed(92)
  lfit <- lmDP(y ~ log(age) + group, fd, eps = 1, bounds = list(age = c(20, 80), y = c(0, 70)))
  newl <- data.frame(age = c(30, 60), group = factor(c("b", "c"), levels = c("a", "b", "c")))
  expect_equal(unname(predict(lfit, newl)),
               drop(cbind(1, log(c(30, 60)), c(1, 0), c(0, 1)) %*% coef(lfit)),
               tolerance = 1e-12)
  # the fit holds no data
  expect_false(any(vapply(unclass(fit), is.data.frame, logical(1))))
  expect_null(fit$model$X)
})

test_that("print() and summary() show the call, the privacy spent and the bounds", {
  set.seed(101)
  fit <- glmDP(sick ~ age + group, fd, eps = 0.5, bounds = list(age = c(20, 80)))
  expect_output(print(fit), "Call: glmDP(formula = sick ~ age + group", fixed = TRUE)
  expect_output(print(fit), "privacy spent: eps = 0.5", fixed = TRUE)
  s <- summary(fit)
  expect_s3_class(s, "summary.dppack_model_fit")
  expect_identical(s$coefficients, coef(fit))
  expect_identical(s$n, 400L)
  out <- capture.output(print(s))
  expect_true(any(grepl("Call: glmDP(formula = sick ~ age + group", out, fixed = TRUE)))
  expect_true(any(grepl("Privacy spent: eps = 0.5", out, fixed = TRUE)))
  expect_true(any(grepl("Bounds by variable", out, fixed = TRUE)))
  expect_true(any(grepl("^groupb +0 +1$", out)))
  expect_true(any(grepl("^age +20 +80$", out)))
})

test_that("confint() of a glmDP fit is a new release on the fit's design", {
  set.seed(111)
  fit <- glmDP(sick ~ age + group, fd, eps = 1, gamma = 10, bounds = list(age = c(20, 80)))
  acc <- BudgetAccountant$new(eps = 3)
  set.seed(112)
  ci <- confint(fit, data = fd, accountant = acc, n.draws = 2000)
  set.seed(112)
  X <- hand_design(fd)[, 1:3]
  direct <- confintDP(fit$model, X, fd$sick, c(80, 1, 1), c(20, 0, 0), add.bias = TRUE,
                      n.draws = 2000)
  expect_identical(rownames(ci), c("(Intercept)", "age", "groupb", "groupc"))
  expect_identical(unname(as.matrix(ci)), unname(as.matrix(direct)))
  expect_identical(acc$spent$eps, 1)
  expect_identical(rownames(confint(fit, "age", data = fd, n.draws = 2000)), "age")
  expect_dppack_error(
    confint(fit),
    paste0("confint() of a glmDP fit needs data (the fit keeps none): give the data of the ",
           "fit, e.g. confint(fit, data = d). It is a new private release that spends the ",
           "model's eps = 1 again (or the rho you give)."),
    "confint"
  )
})

test_that("confint() of an lmDP fit says LinearRegressionDP has none, releasing nothing", {
  acc <- BudgetAccountant$new(eps = 5, delta = 0.1)
  set.seed(113)
  fit <- lmDP(y ~ age + group, fd, eps = 1, delta = 0.01, gamma = 1,
              bounds = list(age = c(20, 80), y = c(0, 70)), accountant = acc)
  message <- paste0("confint() of an lmDP fit: LinearRegressionDP has no private confidence ",
                    "intervals. confint() is defined for glmDP fits and for ",
                    "LogisticRegressionDP and svmDP models (private intervals, see ",
                    "confintDP()).")
  ledger <- acc$ledger
  stream <- get(".Random.seed", envir = globalenv())
  expect_dppack_error(confint(fit), message, "confint")
  expect_dppack_error(confint(fit, "age", level = 0.9, data = fd, accountant = acc), message,
                      "confint")
  expect_identical(acc$ledger, ledger)
  expect_identical(get(".Random.seed", envir = globalenv()), stream)
})

# ---- review fixes (issue 15): link, newdata errors, copies, contrasts ------------------------

test_that("type = \"link\" is the linear score, finite where the probability rounds to 0 or 1", {
  set.seed(121)
  fit <- glmDP(sick ~ age + group, fd, eps = 1, bounds = list(age = c(20, 80)))
  theta <- coef(fit)
  # age = 1e5 lies far outside the bounds (predict does not clip): the probability is 0 or 1
  # in double precision, where qlogis() of it would be -Inf or Inf
  new <- data.frame(age = c(30, 1e5, -1e5), group = factor(c("a", "b", "c"),
                                                           levels = c("a", "b", "c")))
  X <- cbind(1, new$age, c(0, 1, 0), c(0, 0, 1))
  link <- predict(fit, new, type = "link")
  expect_true(all(is.finite(link)))
  expect_equal(unname(link), drop(X %*% theta), tolerance = 1e-12)
  prob <- predict(fit, new, type = "response")
  expect_equal(prob, stats::plogis(link), tolerance = 1e-12)
  expect_true(all(prob[2:3] %in% c(0, 1)))
})

test_that("predict(type = \"response\") of glmDP is the probability of the second label", {
  d <- fd
  d$sick01 <- as.numeric(d$sick == "yes")
  d$sickTF <- d$sick == "yes"
  new <- data.frame(age = c(20, 50, 80))
  for (response in c("sick", "sick01", "sickTF")) {
    set.seed(122)
    fit <- glmDP(stats::reformulate("age", response), d, eps = 1,
                 bounds = list(age = c(20, 80)))
    prob <- predict(fit, new, type = "response")
    expect_type(prob, "double")
    expect_equal(unname(prob), stats::plogis(drop(cbind(1, new$age) %*% coef(fit))),
                 tolerance = 1e-12, info = response)
    # the class is the label of probability >= 1/2 (the model's rounding), in its own type
    classes <- predict(fit, new)
    second <- switch(response, sick = "yes", sick01 = 1, sickTF = TRUE)
    expect_identical(unname(classes == second), unname(prob > 0.5), info = response)
  }
})

test_that("predict() names what newdata lacks in the user's terms, before the core", {
  set.seed(123)
  fit <- glmDP(sick ~ age + group + smoker, fd, eps = 1, bounds = list(age = c(20, 80)))
  expect_dppack_error(
    predict(fit, data.frame(group = "a", smoker = TRUE)),
    paste0("newdata must have every variable of the right-hand side of the formula ",
           "~age + group + smoker; missing: age."),
    "predict"
  )
  expect_dppack_error(
    predict(fit, data.frame(x = 1)),
    paste0("newdata must have every variable of the right-hand side of the formula ",
           "~age + group + smoker; missing: age, group, smoker."),
    "predict"
  )
  expect_dppack_error(predict(fit, data.frame(age = "30", group = "a", smoker = TRUE)),
                      "newdata$age must be numeric, as in the fit; it is character.",
                      "predict")
  expect_dppack_error(
    predict(fit, data.frame(age = 30, group = 2, smoker = TRUE)),
    paste0("newdata$group must be a factor (or character) with levels among those of the ",
           "fit: a, b, c; it is numeric."),
    "predict"
  )
  expect_dppack_error(predict(fit, data.frame(age = 30, group = "a", smoker = 1)),
                      "newdata$smoker must be logical (TRUE/FALSE), as in the fit; it is numeric.",
                      "predict")
  # a column of NA only is of any kind: its rows predict NA, of the type of the predictions
  only_na <- data.frame(age = NA, group = "a", smoker = TRUE)
  expect_identical(unname(predict(fit, only_na, type = "response")), NA_real_)
  expect_identical(unname(predict(fit, only_na)), factor(NA, levels = c("no", "yes")))
  set.seed(124)
  lfit <- lmDP(y ~ log(age), fd, eps = 1, bounds = list(age = c(20, 80), y = c(0, 70)))
  expect_dppack_error(predict(lfit, data.frame(y = 1)),
                      paste0("newdata must have every variable of the right-hand side of the ",
                             "formula ~log(age); missing: age."), "predict")
})

test_that("nobs() of lmDP and glmDP fits is the number of rows of data", {
  set.seed(125)
  expect_identical(nobs(glmDP(sick ~ age, fd, eps = 1, bounds = list(age = c(20, 80)))), 400L)
  set.seed(126)
  expect_identical(nobs(lmDP(y ~ age, fd[1:150, ], eps = 1,
                             bounds = list(age = c(20, 80), y = c(0, 70)))), 150L)
})

test_that("copies of a fit share its model; update() and clone(deep = TRUE) do not", {
  set.seed(127)
  fit <- glmDP(sick ~ age + group, fd, eps = 1, bounds = list(age = c(20, 80)))
  before <- coef(fit)
  # the documented sharing: a change through one copy shows in the other
  shared <- fit
  shared$model$gamma <- 5
  expect_identical(fit$model$gamma, 5)
  fit$model$gamma <- 1
  # update() is a new fit with a model of its own (a new release)
  acc <- BudgetAccountant$new(eps = 5)
  set.seed(128)
  refit <- update(fit, eps = 2, accountant = acc)
  expect_false(identical(refit$model, fit$model))
  expect_identical(refit$model$eps, 2)
  expect_identical(fit$model$eps, 1)
  expect_identical(coef(fit), before)
  expect_identical(acc$spent$eps, 2)
  # the documented recipe for an independent copy
  own <- fit
  own$model <- fit$model$clone(deep = TRUE)
  set.seed(129)
  own$model$fit(hand_design(fd)[, 1:3], fd$sick, c(80, 1, 1), c(20, 0, 0), add.bias = TRUE)
  expect_identical(coef(fit), before)
  expect_false(isTRUE(all.equal(coef(own), before)))
  expect_identical(names(coef(own)), names(before))
})

test_that("ordered factors and contr.sum contrasts: model.matrix's coding, public levels", {
  d <- fd
  # an ordered factor with a declared level no row has, and sum-to-zero contrasts on group
  d$grade <- factor(c("low", "mid", "high")[1 + as.integer(d$age > 40) + (d$age > 60)],
                    levels = c("low", "mid", "high", "top"), ordered = TRUE)
  stats::contrasts(d$group) <- stats::contr.sum(3)
  set.seed(130)
  fit <- lmDP(y ~ age + grade + group, d, eps = 1, gamma = 1,
              bounds = list(age = c(20, 80), y = c(0, 70)))
  # what model.matrix does: orthogonal polynomials over the 4 declared levels, sum coding
  X <- stats::model.matrix(~ age + grade + group, d)[, -1]
  expect_identical(names(coef(fit)), c("(Intercept)", colnames(X)))
  expect_identical(colnames(X), c("age", "grade.L", "grade.Q", "grade.C", "group1", "group2"))
  expect_identical(fit$xlevels$grade, c("low", "mid", "high", "top"))
  # the bounds of each coding column: the range of its coding with 0 and 1
  poly <- stats::contr.poly(4)
  lower <- c(20, rep(min(0, poly), 3), -1, -1)
  upper <- c(80, rep(max(1, poly), 3), 1, 1)
  bounds <- summary(fit)$bounds
  expect_equal(bounds$lower, c(lower, 0))
  expect_equal(bounds$upper, c(upper, 70))
  # the same fit as the R6 model on model.matrix's design
  set.seed(130)
  model <- LinearRegressionDP$new("l2", eps = 1, delta = 0, gamma = 1)
  model$fit(X, d$y, c(upper, 70), c(lower, 0), add.bias = TRUE)
  expect_identical(unname(coef(fit)), as.vector(model$coeff))
  # predict codes newdata as the fit did, also the level no row had, given as text
  new <- data.frame(age = c(30, 70), grade = c("top", "low"), group = c("c", "a"))
  coding <- cbind(1, new$age, poly[c(4, 1), ], rbind(c(-1, -1), c(1, 0)))
  expect_equal(unname(predict(fit, new)), drop(coding %*% coef(fit)), tolerance = 1e-12)
})
