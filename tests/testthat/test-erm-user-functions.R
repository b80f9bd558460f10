# An R user's loss, gradient or map of the wrong length is refused after the fit is charged
# (the functions read the private data: a refusal that depends on them must not be free) and
# before any noise is drawn, with a message in R's spelling (the check itself is the core's:
# tests/python/erm/test_erm_user_functions.py, which also checks the generator's state).
# Deterministic: fixed data, no statistical assertion.

n <- 40
t <- 0:(n - 1)
X_kst <- 0.5 * cbind(sin(t), cos(1.7 * t))
y_kst <- pmin(pmax(drop(X_kst %*% c(1, -0.5)) + 0.1 * sin(3.1 * t), -1), 1)
X_cms <- 0.7 * cbind(sin(t), cos(1.7 * t))
y_cms <- as.numeric(X_cms[, 1] + X_cms[, 2] > 0)

summed <- function(f) function(y.hat, y) sum(f(y.hat, y))

test_that("a KST loss.gr of one value is refused after the charge, in R's spelling", {
  ball <- list(constraints = function(c) sum(c^2) - 1, jacobian = function(c) 2 * c)
  model <- EmpiricalRiskMinimizationDP.KST$new(
    mapXy.linear, loss.squared.error, "l2", eps = 1, delta = 0, domain = ball, zeta = 1.25,
    lambda = 0.5, gamma = 1, mapXy.gr = mapXy.gr.linear,
    loss.gr = summed(loss.gr.squared.error))
  acc <- BudgetAccountant$new(10)
  err <- expect_error(model$fit(X_kst, y_kst, c(0.5, 0.5, 1), c(-0.5, -0.5, -1),
                                accountant = acc))
  expect_identical(conditionMessage(err),
                   "loss.gr returned 1 values where 40 (one per row) were expected.")
  expect_identical(acc$ledger$label, "EmpiricalRiskMinimizationDP_KST.fit")
  expect_identical(acc$ledger$eps, 1)
})

test_that("a CMS loss of one value is refused after the charge, both methods", {
  for (method in c("objective", "output")) {
    model <- EmpiricalRiskMinimizationDP.CMS$new(
      mapXy.sigmoid, summed(loss.cross.entropy), "l2", eps = 1, gamma = 1,
      perturbation.method = method, c = 0.25, mapXy.gr = mapXy.gr.sigmoid,
      loss.gr = loss.gr.cross.entropy)
    acc <- BudgetAccountant$new(10)
    err <- expect_error(model$fit(X_cms, y_cms, c(0.7, 0.7), c(-0.7, -0.7), accountant = acc))
    expect_identical(conditionMessage(err),
                     "loss returned 1 values where 40 (one per row) were expected.")
    expect_identical(acc$ledger$label, "EmpiricalRiskMinimizationDP_CMS.fit")
    expect_identical(acc$ledger$eps, 1)
  }
})

test_that("a refusal that depends on the data is charged like a fit", {
  # a loss that fails on more than 20 positive labels: the neighbouring datasets (20 and 21
  # positives) leave the same ledger
  loss <- function(y.hat, y) {
    if (sum(y) > 20) stop("more than 20 positives")
    loss.cross.entropy(y.hat, y)
  }
  y_next <- y_cms
  y_next[which.min(y_cms)] <- 1
  ledgers <- lapply(list(y_cms, y_next), function(y) {
    model <- EmpiricalRiskMinimizationDP.CMS$new(
      mapXy.sigmoid, loss, "l2", eps = 1, gamma = 1, perturbation.method = "output",
      c = 0.25, mapXy.gr = mapXy.gr.sigmoid, loss.gr = loss.gr.cross.entropy)
    acc <- BudgetAccountant$new(10)
    try(model$fit(X_cms, y, c(0.7, 0.7), c(-0.7, -0.7), accountant = acc), silent = TRUE)
    acc$ledger
  })
  expect_identical(sum(y_next), 21)
  expect_identical(ledgers[[1]], ledgers[[2]])
  expect_identical(ledgers[[2]]$label, "EmpiricalRiskMinimizationDP_CMS.fit")
})
