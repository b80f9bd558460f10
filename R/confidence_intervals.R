# Private confidence intervals for ERM (Wang, Kifer and Lee), over the core's confintERM and
# confintDP. No privacy arithmetic here: R converts the arguments, calls the core and turns its
# result into a data.frame in the style of confint().

# The core's ERMConfidenceIntervals as a "confintDP" data.frame: one row per coefficient,
# columns estimate and the two bounds (confint()'s labels), the level and the privacy spent
# as attributes.
.as_confint <- function(result, X, add.bias) {
  level <- result$level
  # confint()'s column labels, e.g. "2.5 %" and "97.5 %"
  labels <- paste(format(100 * c((1 - level) / 2, (1 + level) / 2), trim = TRUE,
                         scientific = FALSE, digits = 3), "%")
  frame <- data.frame(.drop_1d(result$coeff), .drop_1d(result$lower),
                      .drop_1d(result$upper))
  names(frame) <- c("estimate", labels)
  coefficient_names <- unlist(result$names)
  if (!is.null(colnames(X)) && length(colnames(X)) + isTRUE(add.bias) == nrow(frame)) {
    coefficient_names <- c(if (isTRUE(add.bias)) "(Intercept)", colnames(X))
  }
  rownames(frame) <- coefficient_names
  structure(
    frame,
    level = level,
    privacy = list(
      notion = result$notion,
      eps = result$eps,
      rho = result$rho,
      budgets = unlist(result$budgets),
      eps.objective = result$eps_objective,
      eps.prime = result$eps_prime,
      description = result$privacy(),
      loss = .core_privacy(result)
    ),
    class = c("confintDP", "data.frame")
  )
}

#' Private confidence intervals for logistic regression and the Huber SVM
#'
#' Fits the coefficients of a regularised logistic regression or Huber SVM privately, by the
#' improved objective perturbation or by output perturbation, and gives each coefficient a
#' confidence interval, after Wang, Kifer and Lee. A private Hessian and a private gradient
#' covariance at the estimate (PrivSPDMat: noise, symmetrisation, eigenvalues floored at
#' `2c`) turn into intervals by Monte Carlo, or in closed form for output perturbation under
#' zCDP. The coefficients and the intervals together satisfy `eps`-DP, or `rho`-zCDP (the
#' privacy argument: the guide page `docs/python/guide/erm-derivations.rst`, "Private
#' confidence intervals for ERM").
#'
#' The data follow [LogisticRegressionDP]: the columns of `X` are clipped to the bounds and
#' scaled so that every row has norm at most 1, labels are 0/1, and `gamma` is DPpack's
#' regularisation constant, i.e. the paper's `c = gamma / (2n)`. Objective perturbation needs
#' `gamma > t / (exp(eps_1) - 1)` (`t = 1/4` for logistic, `1/(2 huber.h)` for the SVM);
#' a smaller `gamma` is refused.
#'
#' @param X Numeric matrix or data.frame (n x p).
#' @param y Labels 0/1.
#' @param upper.bounds,lower.bounds Public bounds of the columns of `X`.
#' @param gamma Regularisation constant, as for [LogisticRegressionDP].
#' @param eps,rho Exactly one: the total budget, `eps` for pure DP or `rho` for zCDP.
#' @param loss `"logistic"` or `"huber"` (the SVM of [svmDP]).
#' @param perturbation.method `"objective"` or `"output"`.
#' @param huber.h Huber parameter of the SVM.
#' @param add.bias Prepend a column of ones (bias coefficient first).
#' @param level Confidence level.
#' @param budget.split Three positive shares of the budget for the coefficients, the Hessian
#'   and the covariance; default `c(2, 1, 1)` for DP and `c(4, 1, 1)` (of `rho`) for zCDP.
#'   Under zCDP, objective perturbation runs at `eps_1 = sqrt(2 rho_1)`.
#' @param n.draws Number of Monte Carlo draws.
#' @param sigma.bound Sensitivity of the covariance for logistic regression: `"theta"` (the
#'   paper's, from the norm of the estimate) or `"bound"` (the data-free `2/n`).
#' @param eig.floor Eigenvalue floor (> 0) of the private matrices; `NULL` for `2c`.
#' @inheritParams LaplaceMechanism
#' @return A data.frame of class `"confintDP"`, one row per coefficient, with columns
#'   `estimate` and the lower and upper bounds (labelled as by [stats::confint()]), and the
#'   attributes `level` and `privacy` (the notion, the total `eps` or `rho`, the split
#'   `budgets`, the objective perturbation's `eps.objective` and `eps.prime`, a
#'   `description`, and the `loss` spent as a [privacy_loss][privacy_loss_pure]).
#' @references Wang Y, Kifer D, Lee J (2019). Differentially private confidence intervals for
#'   empirical risk minimization. Journal of Privacy and Confidentiality 9(1).
#' @seealso [confintDP()] for a [LogisticRegressionDP] or [svmDP] model.
#' @export
#' @examplesIf dppack_available()
#' set.seed(5)
#' X <- data.frame(x1 = stats::runif(5000, -1, 1), x2 = stats::runif(5000, -1, 1)) # seed above
#' y <- as.integer(X$x1 - X$x2 + stats::rlogis(5000) > 0) # seed above
#' confintERM(X, y, c(1, 1), c(-1, -1), gamma = 10, eps = 1, add.bias = TRUE)
confintERM <- function(X, y, upper.bounds, lower.bounds, gamma, eps = NULL, rho = NULL,
                       loss = "logistic", perturbation.method = "objective", huber.h = 0.5,
                       add.bias = FALSE, level = 0.95, budget.split = NULL, n.draws = 10000,
                       sigma.bound = "theta", eig.floor = NULL, accountant = NULL) {
  result <- .call_core(
    "confintERM", accountant = .accountant(accountant), X = .to_py(X), y = .to_py(y),
    upper_bounds = .to_py(upper.bounds),
    lower_bounds = .to_py(lower.bounds), gamma = .to_py(gamma), eps = .to_py(eps),
    rho = .to_py(rho), loss = .to_py(loss), perturbation_method = .to_py(perturbation.method),
    huber_h = .to_py(huber.h), add_bias = .to_py(add.bias), level = .to_py(level),
    budget_split = .to_py(budget.split), n_draws = .to_py(n.draws),
    sigma_bound = .to_py(sigma.bound), eig_floor = .to_py(eig.floor),
    random_state = .random_state(), .caller = sys.call()
  )
  .as_confint(result, X, add.bias)
}

#' Private confidence intervals for a LogisticRegressionDP or svmDP model
#'
#' [confintERM()] with the model's settings: its `gamma`, `perturbation.method` and (SVM)
#' `huber.h`; the model's `eps` is the total budget of the coefficients and the intervals
#' together (pure DP), unless `rho` is given, which makes the release `rho`-zCDP instead. The
#' model must use the `"l2"` regularizer (and, for [svmDP], the linear kernel). The model is
#' neither fitted nor changed: the returned `estimate` column holds the released private
#' coefficients. `confint(model, X = , y = , upper.bounds = , lower.bounds = )` does the same.
#'
#' @section Privacy, a new release:
#' `confintDP()` and `confint()` of a model are not summaries of its fit: each call releases
#' new private coefficients and intervals from `X` and `y`, and spends the model's `eps` (or
#' `rho`, if given) in full, on top of what `fit()` spent (`model$privacy`). The charge goes to
#' `accountant` if given, else to the default accountant of [with_accountant()], if any: a
#' model with `eps = 1`, fitted once and then given intervals once on the same data, has
#' spent `eps = 2` on it. To spend `eps` once, skip `fit()`: the `estimate` column is a private
#' fit. Missing data arguments, unknown arguments and bad settings stop the call before
#' anything is released; the data must be given again (a model keeps none).
#'
#' @param model A [LogisticRegressionDP] or [svmDP] object.
#' @param X,y,upper.bounds,lower.bounds,add.bias As for the model's `fit()`.
#' @param level Confidence level.
#' @param rho Optional total zCDP budget, used instead of the model's `eps`.
#' @param budget.split,n.draws As for [confintERM()].
#' @inheritParams LaplaceMechanism
#' @return As [confintERM()].
#' @export
#' @examplesIf dppack_available()
#' set.seed(6)
#' X <- data.frame(x1 = stats::runif(5000, -1, 1), x2 = stats::runif(5000, -1, 1)) # seed above
#' y <- as.integer(X$x1 - X$x2 + stats::rlogis(5000) > 0) # seed above
#' model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 10)
#' confintDP(model, X, y, c(1, 1), c(-1, -1), add.bias = TRUE)
#' confint(model, X = X, y = y, upper.bounds = c(1, 1), lower.bounds = c(-1, -1),
#'         add.bias = TRUE, rho = 0.2)
confintDP <- function(model, X, y, upper.bounds, lower.bounds, add.bias = FALSE,
                      level = 0.95, rho = NULL, budget.split = NULL, n.draws = 10000,
                      accountant = NULL) {
  caller <- sys.call()
  .confint_check_class(model, caller)
  .confint_check_data(model, c(X = missing(X), y = missing(y),
                               upper.bounds = missing(upper.bounds),
                               lower.bounds = missing(lower.bounds)), caller)
  # the model's core, which the core reads and leaves unchanged; anything else goes as it is
  # and the core refuses it
  core <- .core_of(model)
  if (is.null(core)) {
    core <- .to_py(model)
  }
  # factor or logical labels as for the model's fit() (model_methods.R)
  y <- .encode_labels(model, y, caller)$y
  result <- .call_core(
    "confintDP", accountant = .accountant(accountant), model = core, X = .to_py(X), y = .to_py(y),
    upper_bounds = .to_py(upper.bounds), lower_bounds = .to_py(lower.bounds),
    add_bias = .to_py(add.bias), level = .to_py(level), rho = .to_py(rho),
    budget_split = .to_py(budget.split), n_draws = .to_py(n.draws),
    random_state = .random_state(), .caller = caller
  )
  .as_confint(result, X, add.bias)
}

# The models with private confidence intervals (the core's confintDP() takes these).
.confint_classes <- c("LogisticRegressionDP", "svmDP")

# "a" or "an" before a class name, as it is read: "an svmDP", "an EmpiricalRiskMinimizationDP.CMS".
.article <- function(word) {
  if (grepl("^([AEIOUaeiou]|svm)", word)) "an" else "a"
}

# Stop as `caller` (confintDP() or confint()), before the data are looked at or anything is
# released, when `model` is an R6 model of a class without private confidence intervals
# (e.g. the base frameworks EmpiricalRiskMinimizationDP.CMS and WeightedERMDP.CMS): which
# models have them. Anything else goes on, and the core refuses what it cannot take.
.confint_check_class <- function(model, caller) {
  if (!inherits(model, "R6") || inherits(model, .confint_classes)) {
    return(invisible(NULL))
  }
  generic <- as.character(caller[[1]])
  generic <- generic[[length(generic)]]
  name <- class(model)[[1]]
  stop(simpleError(paste0(
    generic, "() is defined for LogisticRegressionDP and svmDP models (private intervals, ",
    "see confintDP()); ", .article(name), " ", name, " has none."
  ), call = caller))
}

# Stop as `caller` (confintDP() or confint()) when the data of the release are missing
# (`absent`: a logical vector by argument name), before anything is converted or released:
# what is missing, that the call is a new release spending the model's budget, and how to
# call it.
.confint_check_data <- function(model, absent, caller) {
  if (!any(absent)) {
    return(invisible(NULL))
  }
  # the function's name, also when called as DPpackPy::confintDP()
  generic <- as.character(caller[[1]])
  generic <- generic[[length(generic)]]
  what <- if (inherits(model, "R6")) {
    paste0(.article(class(model)[[1]]), " ", class(model)[[1]], " model")
  } else {
    "a model"
  }
  eps <- tryCatch(model$eps, error = function(e) NULL)
  budget <- if (is.numeric(eps) && length(eps) == 1) paste0("eps = ", format(eps)) else "eps"
  stop(simpleError(paste0(
    generic, "() of ", what, " needs the data to release intervals from; missing: ",
    paste(names(absent)[absent], collapse = ", "), ". It is a new private release, not a ",
    "summary of the fit: it fits the coefficients again and spends the model's ", budget,
    " (or the rho you give). Give the data as to fit(): ", generic,
    "(model, X = X, y = y, upper.bounds = ub, lower.bounds = lb)."
  ), call = caller))
}

# Stop as `caller` unless `parm` picks coefficients of the release for `args` (confint()'s
# further arguments), before it is made: names as .as_confint() gives them ("(Intercept)"
# with add.bias, then X's column names, else x1, ..., xp) or indices among them.
.confint_check_parm <- function(parm, args, object, caller) {
  if (!.values_in_r(args$X)) {
    return(invisible(NULL))
  }
  add_bias <- if ("add.bias" %in% names(args)) {
    isTRUE(args$add.bias)
  } else {
    isTRUE(object$.fitted$add.bias)
  }
  columns <- .design_names(args$X)
  if (is.null(columns)) {
    columns <- paste0("x", seq_len(NCOL(args$X)))
  }
  coefficients <- c(if (add_bias) "(Intercept)", columns)
  bad <- if (is.character(parm)) {
    setdiff(parm, coefficients)
  } else if (is.numeric(parm) && all(is.finite(parm))) {
    parm[parm < 1 | parm > length(coefficients) | parm != round(parm)]
  } else {
    parm
  }
  if (length(parm) == 0 || length(bad) > 0) {
    stop(simpleError(paste0(
      "parm must give names or indices of the coefficients: ",
      paste(coefficients, collapse = ", "), " (1 to ", length(coefficients), "); not ",
      if (length(bad) > 0) paste(bad, collapse = ", ") else "empty", "."
    ), call = caller))
  }
  invisible(NULL)
}

#' @rdname confintDP
#' @param object A [LogisticRegressionDP] or [svmDP] object (for `confint()`).
#' @param parm Optional names or indices of the coefficients to keep.
#' @param ... Further arguments of `confintDP()`, by name: `X`, `y`, `upper.bounds`,
#'   `lower.bounds` (required), `add.bias` (by default that of the model's last `fit()`, as for
#'   [predict()][model_methods], else `FALSE`), `rho`, `budget.split`, `n.draws`,
#'   `accountant`.
#' @importFrom stats confint
#' @export
confint.EmpiricalRiskMinimizationDP.CMS <- function(object, parm, level = 0.95, ...) {
  caller <- .generic_call(sys.call(), "confint")
  # the base frameworks (and WeightedERMDP.CMS) have no intervals: say so first
  .confint_check_class(object, caller)
  dots <- match.call(expand.dots = FALSE)$...
  given <- if (is.null(names(dots))) rep("", length(dots)) else names(dots)
  allowed <- setdiff(names(formals(confintDP)), c("model", "level"))
  unknown <- setdiff(given, allowed)
  if (length(unknown) > 0 || (length(given) > 0 && any(given == ""))) {
    stop(simpleError(paste0(
      "confint() of a model takes its further arguments by name, among: ",
      paste(allowed, collapse = ", "), if (length(setdiff(unknown, "")) > 0) {
        paste0("; unknown: ", paste(setdiff(unknown, ""), collapse = ", "))
      }, "."
    ), call = caller))
  }
  needed <- c("X", "y", "upper.bounds", "lower.bounds")
  .confint_check_data(object, stats::setNames(!needed %in% given, needed), caller)
  if (!missing(parm)) {
    .confint_check_parm(parm, list(...), object, caller)
  }
  # add.bias as in the model's last fit, as predict() does (model_methods.R); errors of
  # confintDP() are shown as errors of the user's confint() call
  out <- tryCatch(
    if ("add.bias" %in% given || is.null(object$.fitted)) {
      confintDP(object, level = level, ...)
    } else {
      confintDP(object, level = level, add.bias = object$.fitted$add.bias, ...)
    },
    error = function(e) stop(simpleError(conditionMessage(e), call = caller))
  )
  if (missing(parm)) {
    return(out)
  }
  kept <- out[parm, , drop = FALSE]
  attr(kept, "level") <- attr(out, "level")
  attr(kept, "privacy") <- attr(out, "privacy")
  kept
}

#' @export
print.confintDP <- function(x, ...) {
  privacy <- attr(x, "privacy")
  cat(sprintf("Private %s%% confidence intervals; %s\n", format(100 * attr(x, "level")),
              privacy$description))
  frame <- x
  attr(frame, "level") <- NULL
  attr(frame, "privacy") <- NULL
  class(frame) <- "data.frame"
  print(frame, ...)
  invisible(x)
}
