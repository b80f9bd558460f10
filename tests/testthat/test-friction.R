# Newcomer friction (issue 26, item 3), R side: labels handled alike in R and in the Python
# core (logical and two-level factor labels; character labels refused), and messages in R's
# notation (sets of choices as c("a", "b"), TRUE/FALSE, NULL, dotted argument names).
# Fits use set.seed() in reproducible mode (helper-dppack.R): every comparison is exact, no
# test has a false-failure rate.

skip_if_not(dppack_available(), "the Python core is not available")

set.seed(2026)
n_fr <- 80L
X_fr <- data.frame(a = stats::runif(n_fr), b = stats::runif(n_fr))
y_fr <- X_fr$a + 0.2 * X_fr$b > 0.6
ub_fr <- c(1, 1)
lb_fr <- c(0, 0)

fr_fit <- function(make, y) {
  set.seed(7)
  m <- make()
  m$fit(X_fr, y, ub_fr, lb_fr, add.bias = TRUE)
  as.vector(m$coeff)
}

fr_models <- list(
  LogisticRegressionDP = function() LogisticRegressionDP$new("l2", 1, 1),
  svmDP = function() svmDP$new("l2", 1, 1, "output"),
  OutputPerturbationAGM = function() OutputPerturbationAGM$new("logistic", 1, 1e-5, 1)
)

test_that("logical and two-level factor labels fit as 0/1, the second level positive", {
  for (name in names(fr_models)) {
    make <- fr_models[[name]]
    reference <- fr_fit(make, as.numeric(y_fr))
    expect_identical(fr_fit(make, y_fr), reference, info = name)
    labels <- factor(ifelse(y_fr, "yes", "no"), levels = c("no", "yes"))
    expect_identical(fr_fit(make, labels), reference, info = name)
    flipped <- factor(ifelse(y_fr, "yes", "no"), levels = c("yes", "no"))
    expect_identical(fr_fit(make, flipped), fr_fit(make, 1 - as.numeric(y_fr)), info = name)
  }
})

test_that("the Python core takes the same labels as R (bool, pandas Categorical)", {
  core <- reticulate::import("dppack", convert = FALSE)
  pd <- reticulate::import("pandas", convert = FALSE)
  np <- reticulate::import("numpy", convert = FALSE)
  X <- np$array(as.matrix(X_fr))
  fit <- function(y) {
    m <- core$LogisticRegressionDP("l2", 1, 1)
    m$fit(X, y, ub_fr, lb_fr, add_bias = TRUE, random_state = 3L)
    reticulate::py_to_r(m$coeff)
  }
  reference <- fit(np$array(as.numeric(y_fr)))
  expect_identical(fit(np$array(y_fr)), reference)
  categorical <- pd$Categorical(ifelse(y_fr, "yes", "no"), categories = c("no", "yes"))
  expect_identical(fit(categorical), reference)
})

test_that("character labels are refused: their label set would come from the data", {
  m <- LogisticRegressionDP$new("l2", 1, 1)
  cnd <- expect_error(m$fit(X_fr, ifelse(y_fr, "yes", "no"), ub_fr, lb_fr),
                      "factor(y, levels = c(<label 0>, <label 1>))", fixed = TRUE)
  expect_false(grepl("ValueError|Traceback", conditionMessage(cnd)))
  expect_error(m$fit(X_fr, factor(c("a", "b", "c"))[rep(1:3, length.out = n_fr)], ub_fr,
                     lb_fr), "exactly two levels", fixed = TRUE)
})

test_that("R callers read sets of choices in R's notation", {
  x <- c(0.1, 0.5, 0.9)
  expect_dppack_error(meanDP(x, 1, 0, 1, which.sensitivity = "abc"),
                      'which.sensitivity must be one of c("bounded", "unbounded", "both").',
                      "meanDP")
  expect_dppack_error(meanDP(x, 1, 0, 1, mechanism = "abc"),
                      'Mechanism must be one of c("Laplace", "Gaussian", "analytic").',
                      "meanDP")
  expect_dppack_error(GaussianMechanism(1, 0.5, 0.01, 1, type.DP = "x"),
                      'type.DP must be one of c("pDP", "aDP").', "GaussianMechanism")
  for (cnd in list(
    tryCatch(meanDP(x, 1, 0, 1, which.sensitivity = "abc"), error = identity),
    tryCatch(histogramDP(x, 1, 0, 1, allow.negative = "yes"), error = identity)
  )) {
    message <- conditionMessage(cnd)
    expect_false(grepl("{'", message, fixed = TRUE))
    expect_false(grepl("\\b(True|False|None)\\b", message))
    expect_false(grepl("which_sensitivity|allow_negative", message))
  }
  expect_match(conditionMessage(tryCatch(histogramDP(x, 1, 0, 1, allow.negative = "yes"),
                                         error = identity)),
               "allow.negative must be TRUE or FALSE.", fixed = TRUE)
})

test_that("predict() remembers add.bias in R, as the core now does", {
  set.seed(3)
  m <- LogisticRegressionDP$new("l2", 1, 1)
  m$fit(X_fr, as.numeric(y_fr), ub_fr, lb_fr, add.bias = TRUE)
  expected <- as.vector(m$predict(X_fr, add.bias = TRUE))
  expect_identical(as.vector(predict(m, X_fr)), expected)
  # the core's predict() without add_bias: as fitted
  expect_identical(as.vector(m$.core$predict(as.matrix(X_fr))), expected)
  # the R6 method too; and an X that holds the bias column, as DPpack's predict(X,
  # add.bias = FALSE) took it after such a fit, is used as given
  expect_identical(as.vector(m$predict(X_fr)), expected)
  with_bias <- cbind(1, as.matrix(X_fr))
  expect_identical(as.vector(m$predict(with_bias)),
                   as.vector(m$predict(with_bias, add.bias = FALSE)))
  expect_error(m$predict(with_bias, add.bias = TRUE), "the model was fitted on")
  # a fit without a bias: FALSE, DPpack's default
  m$fit(X_fr, as.numeric(y_fr), ub_fr, lb_fr)
  expect_identical(as.vector(m$predict(X_fr)), as.vector(m$predict(X_fr, add.bias = FALSE)))
})
