# R's model idioms for the ERM models: coef(), predict(), print(), summary(),
# nobs() and confint() as S3 methods, and factor or logical labels. No privacy arithmetic
# here: the methods read what the core released (coeff, privacy) and what fit() recorded in R.
#
# What the methods read, for R/formula.R (lmDP(), glmDP()) and any other wrapper:
# * `model$.fitted` (CoreObject's internal active binding, core_object.R): NULL before a fit;
#   after every successful `fit()` (CoreObject's private `fit_data`) a list with
#     n            the number of rows of the fit (NA for a dppack_dataset, or after tuning);
#     add.bias     TRUE or FALSE, as given to fit();
#     names        X's column names (colnames of a matrix, names of a data.frame or
#                  dppack_dataset), or NULL when X had none;
#     labels       for a classifier, list(type = "factor"/"logical"/"numeric", levels = the
#                  label set, first level <-> the core's 0); NULL for the other models;
#     upper.bounds, lower.bounds   the bounds as given to fit() (NULL if omitted: svmDP's
#                  Gaussian kernel).
#   A wrapper that fits through `model$fit()` gets it for free (pass X with column names:
#   those name the coefficients). Assigning `model$.core` clears it; the tuning functions then
#   record their own (.select_model in tuning.R).
# * `model$coeff`, `model$privacy` and the settings' active bindings (eps, delta, gamma,
#   perturbation.method, regularizer, kernel, loss, analytic).
# * The R6 methods `model$predict()` (with the recorded add.bias), never the core directly, so
#   an R subclass that overrides predict() is respected.
# The helpers a wrapper may call: .model_coef(object), .model_predict(object, newdata, type,
# caller), .model_summary(object), .encode_labels(model, y, caller).

# TRUE for the models whose y is a binary label (0/1 in the core, which maps them to -1/1
# itself for the SVMs): their predict() has type = "class". The base frameworks
# (EmpiricalRiskMinimizationDP.CMS, WeightedERMDP.CMS) take whatever y their own loss takes.
.classifier <- function(model) {
  inherits(model, c("LogisticRegressionDP", "svmDP", "AnalyticGaussianERM"))
}

# The labels y of `model` as the core takes them, with the label set to remember: for a
# classifier, a two-level factor (first level -> 0, as glm()'s binomial family) or a logical
# (FALSE -> 0) becomes 0/1; numeric y goes as it is (the core checks 0/1). The label set
# comes from the factor's declared levels, never from the data (it must be public), so a
# character y is refused: its set would be read from the data. Not a classifier, or a
# dppack_dataset column: y goes as it is and no label set is recorded.
.encode_labels <- function(model, y, caller = NULL) {
  if (!.classifier(model) || !.values_in_r(y)) {
    return(list(y = y, type = NULL, levels = NULL))
  }
  if (is.factor(y)) {
    levels <- levels(y)
    if (length(levels) != 2) {
      stop(simpleError(sprintf(paste0(
        "y must be a factor with exactly two levels, the public label set; it has %d. ",
        "Declare both labels with factor(y, levels = ...)."
      ), length(levels)), call = caller))
    }
    # as.numeric: an NA stays NA (NaN for the core, which refuses it)
    return(list(y = as.numeric(y) - 1, type = "factor", levels = levels))
  }
  if (is.logical(y) && is.null(dim(y))) {
    return(list(y = as.numeric(y), type = "logical", levels = c(FALSE, TRUE)))
  }
  if (is.character(y)) {
    stop(simpleError(paste0(
      "y must be numeric 0/1, logical or a factor with two levels. For character labels give ",
      "factor(y, levels = c(<label 0>, <label 1>)): the label set must be public, not read ",
      "from the data."
    ), call = caller))
  }
  list(y = y, type = "numeric", levels = c(0, 1))
}

# The column names of a model's X, or NULL.
.design_names <- function(X) {
  names <- .data_columns(X)
  if (is.character(names) && !anyNA(names) && all(nzchar(names))) names else NULL
}

# The record of a successful fit (see the top of the file); `labels` from .encode_labels().
.fit_record <- function(X, labels, upper.bounds, lower.bounds, add.bias, n = NULL) {
  if (is.null(n)) {
    n <- .data_rows(labels$y)
  }
  list(
    n = n, add.bias = isTRUE(add.bias), names = .design_names(X),
    labels = if (!is.null(labels$type)) list(type = labels$type, levels = labels$levels),
    upper.bounds = upper.bounds, lower.bounds = lower.bounds
  )
}

# The call `call` of an S3 method as the user wrote it: predict(m, X), not
# predict.LogisticRegressionDP(m, X).
.generic_call <- function(call, generic) {
  call[[1]] <- as.name(generic)
  call
}

# Stop as the user's `caller` unless `object` has coefficients.
.check_fitted <- function(object, caller) {
  if (is.null(object$coeff)) {
    stop(simpleError(sprintf("The %s model is not fitted: call its fit() first.",
                             class(object)[[1]]), call = caller))
  }
}

# The names of `p` coefficients of `object`: "(Intercept)" first with add.bias, then X's
# column names (x1, ..., xp without names, or where their number does not match, e.g. after
# an assignment to coeff); V1, ..., VD for the random features of svmDP's Gaussian kernel.
.coefficient_names <- function(object, p) {
  record <- object$.fitted
  if (inherits(object, "svmDP") && identical(object$kernel, "Gaussian")) {
    return(paste0("V", seq_len(p)))
  }
  bias <- isTRUE(record$add.bias) && p >= 1
  names <- record$names
  if (is.null(names) || length(names) + bias != p) {
    names <- paste0("x", seq_len(p - bias))
  }
  c(if (bias) "(Intercept)", names)
}

# The named coefficients of a fitted model.
.model_coef <- function(object, caller = sys.call(-1)) {
  .check_fitted(object, caller)
  coeff <- as.vector(object$coeff)
  stats::setNames(coeff, .coefficient_names(object, length(coeff)))
}

# newdata as the fit's X: a data.frame or matrix with the fit's column names gets those
# columns in the fit's order (others are dropped); without names, its columns are taken in
# order.
.as_fit_columns <- function(newdata, record, caller) {
  wanted <- record$names
  given <- .design_names(newdata)
  if (is.null(wanted) || is.null(given) || !.values_in_r(newdata)) {
    return(newdata)
  }
  missing <- setdiff(wanted, given)
  if (length(missing) > 0) {
    stop(simpleError(paste0("newdata lacks the column(s) the model was fitted on: ",
                            paste(missing, collapse = ", "), "."), call = caller))
  }
  if (identical(given, wanted)) newdata else newdata[, wanted, drop = FALSE]
}

# Predictions of a fitted model for `newdata` (see predict.EmpiricalRiskMinimizationDP.CMS).
.model_predict <- function(object, newdata, type, caller) {
  if (missing(newdata) || is.null(newdata)) {
    stop(simpleError("newdata must be given: a private model keeps no data.", call = caller))
  }
  .check_fitted(object, caller)
  record <- object$.fitted
  if (is.null(record)) {
    stop(simpleError(paste0(
      "The model's coefficients were not fitted by its fit(), so predict() does not know ",
      "add.bias: use model$predict(X, add.bias = ...)."
    ), call = caller))
  }
  X <- .as_fit_columns(newdata, record, caller)
  classify <- type == "class"
  if (classify && !.classifier(object)) {
    stop(simpleError(sprintf(paste0(
      "type = \"class\" is for the classifiers (LogisticRegressionDP, svmDP and the AGM ",
      "models); a %s predicts its outputs mapXy(X, coeff): type = \"response\"."
    ), class(object)[[1]]), call = caller))
  }
  # errors of the R6 method are shown as errors of the user's predict() call
  values <- tryCatch(
    if (.classifier(object)) {
      object$predict(X, add.bias = record$add.bias, raw.value = !classify)
    } else {
      object$predict(X, add.bias = record$add.bias)
    },
    error = function(e) stop(simpleError(conditionMessage(e), call = caller))
  )
  values <- as.vector(values)
  if (!classify) {
    return(values)
  }
  labels <- record$labels
  switch(
    if (is.null(labels)) "numeric" else labels$type,
    factor = factor(labels$levels[values + 1], levels = labels$levels),
    logical = values == 1,
    values
  )
}

# The words for a model's mechanism in print() and summary().
.mechanism <- function(object) {
  if (inherits(object, "OutputPerturbationAGM")) {
    return(paste0("output perturbation of gradient descent, ",
                  if (isTRUE(object$analytic)) "analytic" else "classical",
                  " Gaussian mechanism (Ding et al.)"))
  }
  if (inherits(object, "GradientPerturbationAGM")) {
    return(paste0("noisy SGD, ", if (isTRUE(object$analytic)) "analytic" else "classical",
                  " Gaussian mechanism (Ding et al.)"))
  }
  if (inherits(object, "EmpiricalRiskMinimizationDP.KST")) {
    noise <- if (isTRUE(object$delta > 0)) "Gaussian" else "Laplace-type"
    return(paste0("objective perturbation, ", noise,
                  " noise (Kifer, Smith and Thakurta 2012)"))
  }
  paste0(object$perturbation.method,
         " perturbation (Chaudhuri, Monteleoni and Sarwate 2011)")
}

# The settings of print() and summary(), as "name = value" strings.
.settings <- function(object) {
  number <- function(x) if (is.null(x)) "NULL" else format(x, digits = 4)
  settings <- c(eps = number(object$eps))
  if (inherits(object, c("EmpiricalRiskMinimizationDP.KST", "AnalyticGaussianERM"))) {
    settings <- c(settings, delta = number(object$delta))
  }
  settings <- c(settings, gamma = number(object$gamma))
  if (inherits(object, "AnalyticGaussianERM")) {
    settings <- c(settings, loss = object$loss)
  } else {
    settings <- c(settings, regularizer = if (identical(object$regularizer, regularizer.l2)) {
      "l2"
    } else {
      "function"
    })
  }
  if (inherits(object, "svmDP")) {
    settings <- c(settings, kernel = object$kernel)
  }
  settings
}

# The summary of a fitted model (see summary.EmpiricalRiskMinimizationDP.CMS).
.model_summary <- function(object, caller = sys.call(-1)) {
  coefficients <- .model_coef(object, caller)
  record <- object$.fitted
  bounds <- NULL
  if (!is.null(record$upper.bounds) && !is.null(record$lower.bounds) &&
      length(record$upper.bounds) == length(record$lower.bounds)) {
    rows <- length(record$upper.bounds)
    response <- inherits(object, "EmpiricalRiskMinimizationDP.KST")
    names <- record$names
    if (is.null(names) || length(names) != rows - response) {
      names <- paste0("x", seq_len(rows - response))
    }
    bounds <- data.frame(lower = as.vector(record$lower.bounds),
                         upper = as.vector(record$upper.bounds),
                         row.names = c(names, if (response) "(response)"))
  }
  structure(
    list(
      class = class(object)[[1]], settings = .settings(object), mechanism = .mechanism(object),
      privacy = object$privacy, n = if (is.null(record)) NA_integer_ else record$n,
      add.bias = isTRUE(record$add.bias), coefficients = coefficients, bounds = bounds,
      labels = record$labels
    ),
    class = c(paste0("summary.", class(object)[[1]]), "summary.dppack_model")
  )
}

# "eps = 1 (pure DP)" for a privacy_loss, or the words for a fit without one.
.privacy_words <- function(privacy) {
  if (is.null(privacy)) "none: eps = Inf, the fit is not private" else format(privacy)
}

#' R's model methods for the private ERM models
#'
#' `coef()`, `predict()`, `print()`, `summary()` and `nobs()` for [LogisticRegressionDP],
#' [svmDP], [LinearRegressionDP], [OutputPerturbationAGM], [GradientPerturbationAGM] and
#' their base frameworks [EmpiricalRiskMinimizationDP.CMS], [WeightedERMDP.CMS] and
#' [EmpiricalRiskMinimizationDP.KST] (`confint()` of [LogisticRegressionDP] and [svmDP]: see
#' [confintDP()], a new release that needs the data and spends the model's `eps` again; the
#' other models have none and say so). They read the released
#' coefficients and what `fit()` recorded: the number of rows, `add.bias`, the column names of
#' `X` and the label set. DPpack's own fields and methods are unchanged: `model$coeff` stays
#' DPpack's unnamed vector (`coef()` is the named view) and `model$predict(X, add.bias)` keeps
#' DPpack's signature, so DPpack scripts run as before.
#'
#' @details
#' **Labels.** The classifiers ([LogisticRegressionDP], [svmDP], the AGM models) accept as
#' `y` in `fit()` 0/1 numbers (as DPpack), a logical (`FALSE` is 0) or a factor with two
#' levels (the first level is 0, as for [stats::glm()]'s binomial family; the core's SVM
#' maps 0/1 to -1/1 itself). The label set must be public: it is taken from the factor's
#' declared levels, never from the data, so a factor whose data show one level but whose
#' levels declare two works, a factor with another number of levels is refused, and a
#' character `y` is refused (give `factor(y, levels = ...)`). `predict(type = "class")`
#' returns labels of the type fitted: a factor with the same levels, a logical, or 0/1.
#'
#' **Prediction.** `predict()` uses the `add.bias` of the fit and, when the fit's `X` had
#' column names, takes those columns from `newdata` by name (in any order; other columns are
#' ignored); without names, the columns are taken in order. `type = "response"` gives the
#' probability of label 1 for logistic regression (and the logistic AGM models), the decision
#' value `x'coeff` (its sign is the class) for [svmDP] and the Huber AGM models, which have
#' no probability, and the model's outputs `mapXy(X, coeff)` for the base frameworks and
#' [LinearRegressionDP] (fitted values), whose only type it is. Predicting spends no privacy.
#'
#' **Sample size.** `nobs()` is the number of rows the model was fitted on. The models are
#' private for neighbouring data sets that differ in one replaced record (bounded DP), under
#' which `n` is public; [EmpiricalRiskMinimizationDP.KST] is also private for one record added
#' or removed, but then `n` is not public, and printing it releases it. It is `NA` for a fit
#' on a [dppack_dataset()] (R does not count its rows) and after [tune_classification_model()]
#' or [tune_linear_regression_model()] (each model saw a part of the data).
#'
#' **Summary.** `summary()` returns a `"summary.<class>"` object (also of class
#' `"summary.dppack_model"`, whose `print()` it uses): the class, the settings, the mechanism,
#' the privacy spent by the fit (`model$privacy`), `n`, `add.bias`, the named coefficients,
#' the bounds of the fit (the last row, `(response)`, bounds `y` for the KST models) and the
#' label set. There are no standard errors: private intervals cost privacy, see [confintDP()].
#'
#' **Copies.** `model$clone()` and `model$clone(deep = TRUE)` give an independent model
#' (refitting one leaves the other as it was), with the same record of the fit.
#'
#' @param object,x A fitted model (an R6 object of one of the classes above); for
#'   `print.summary.dppack_model()`, a summary.
#' @param newdata A data.frame or matrix with the columns of the fit's `X` (required: a
#'   private model keeps no data).
#' @param type `"class"` (the default of the classifiers: labels) or `"response"`
#'   (probabilities, decision values or outputs, see Details).
#' @param digits Significant digits of the printed numbers.
#' @param ... Ignored.
#' @return `coef()`: the named coefficients; `predict()`: a vector (a factor for
#'   factor labels); `summary()`: a `"summary.dppack_model"` list; `nobs()`: an integer;
#'   `print()`: its argument, invisibly.
#' @name model_methods
#' @seealso [confintDP()] for private confidence intervals.
#' @examplesIf dppack_available()
#' set.seed(1)
#' X <- data.frame(age = stats::runif(300, 20, 80), bmi = stats::runif(300, 18, 45))
#' diabetes <- factor(ifelse(0.05 * (X$age - 50) + 0.1 * (X$bmi - 30) +
#'                             stats::rlogis(300) > 0, "yes", "no"), levels = c("no", "yes"))
#' model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 1)
#' model$fit(X, diabetes, upper.bounds = c(80, 45), lower.bounds = c(20, 18),
#'           add.bias = TRUE)
#' model
#' coef(model)
#' head(predict(model, X[, c("bmi", "age")]))   # columns by name; add.bias remembered
#' head(predict(model, X, type = "response"))   # probabilities of "yes"
#' summary(model)
#' nobs(model)
NULL

#' @rdname model_methods
#' @importFrom stats coef
#' @export
coef.EmpiricalRiskMinimizationDP.CMS <- function(object, ...) {
  .model_coef(object, .generic_call(sys.call(), "coef"))
}

#' @rdname model_methods
#' @export
coef.EmpiricalRiskMinimizationDP.KST <- coef.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @export
coef.AnalyticGaussianERM <- coef.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @importFrom stats predict
#' @export
predict.LogisticRegressionDP <- function(object, newdata, type = c("class", "response"),
                                         ...) {
  .model_predict(object, newdata, match.arg(type), .generic_call(sys.call(), "predict"))
}

#' @rdname model_methods
#' @export
predict.svmDP <- predict.LogisticRegressionDP

#' @rdname model_methods
#' @export
predict.AnalyticGaussianERM <- predict.LogisticRegressionDP

#' @rdname model_methods
#' @export
predict.EmpiricalRiskMinimizationDP.CMS <- function(object, newdata, type = "response", ...) {
  .model_predict(object, newdata, match.arg(type, c("response", "class")),
                 .generic_call(sys.call(), "predict"))
}

#' @rdname model_methods
#' @export
predict.EmpiricalRiskMinimizationDP.KST <- predict.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @importFrom stats nobs
#' @export
nobs.EmpiricalRiskMinimizationDP.CMS <- function(object, ...) {
  .check_fitted(object, .generic_call(sys.call(), "nobs"))
  record <- object$.fitted
  if (is.null(record)) NA_integer_ else record$n
}

#' @rdname model_methods
#' @export
nobs.EmpiricalRiskMinimizationDP.KST <- nobs.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @export
nobs.AnalyticGaussianERM <- nobs.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @export
print.EmpiricalRiskMinimizationDP.CMS <- function(x, digits = 4, ...) {
  settings <- .settings(x)
  cat("<", class(x)[[1]], "> ", paste(names(settings), settings, sep = " = ", collapse = ", "),
      "\n", sep = "")
  cat("  ", .mechanism(x), "\n", sep = "")
  if (is.null(x$coeff)) {
    cat("  Not fitted.\n")
    return(invisible(x))
  }
  n <- nobs(x)
  cat("  Fitted on n = ", if (is.na(n)) "(unknown)" else n, "; privacy spent: ",
      .privacy_words(x$privacy), "\n", sep = "")
  cat("Coefficients:\n")
  print(coef(x), digits = digits)
  invisible(x)
}

#' @rdname model_methods
#' @export
print.EmpiricalRiskMinimizationDP.KST <- print.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @export
print.AnalyticGaussianERM <- print.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @export
summary.EmpiricalRiskMinimizationDP.CMS <- function(object, ...) {
  .model_summary(object, .generic_call(sys.call(), "summary"))
}

#' @rdname model_methods
#' @export
summary.EmpiricalRiskMinimizationDP.KST <- summary.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @export
summary.AnalyticGaussianERM <- summary.EmpiricalRiskMinimizationDP.CMS

#' @rdname model_methods
#' @param parm,level As for [stats::confint()].
#' @importFrom stats confint
#' @export
confint.EmpiricalRiskMinimizationDP.KST <- function(object, parm, level = 0.95, ...) {
  # without this, stats' default method would call coef() and then fail on vcov()
  stop(simpleError(sprintf(paste0(
    "confint() is defined for LogisticRegressionDP and svmDP models (private intervals, see ",
    "confintDP()); a %s has none."
  ), class(object)[[1]]), call = .generic_call(sys.call(), "confint")))
}

#' @rdname model_methods
#' @export
confint.AnalyticGaussianERM <- confint.EmpiricalRiskMinimizationDP.KST

#' @rdname model_methods
#' @export
print.summary.dppack_model <- function(x, digits = 4, ...) {
  cat("Private model: ", x$class, "\n", sep = "")
  cat("Settings: ", paste(names(x$settings), x$settings, sep = " = ", collapse = ", "), "\n",
      sep = "")
  cat("Mechanism: ", x$mechanism, "\n", sep = "")
  cat("Privacy spent: ", .privacy_words(x$privacy), "\n", sep = "")
  cat("n = ", if (is.na(x$n)) "(unknown)" else x$n, ", add.bias = ", x$add.bias, "\n",
      sep = "")
  if (!is.null(x$labels)) {
    cat("Labels (0, 1): ", paste(x$labels$levels, collapse = ", "), " (",
        x$labels$type, ")\n", sep = "")
  }
  cat("\nCoefficients (private):\n")
  print(x$coefficients, digits = digits)
  if (!is.null(x$bounds)) {
    cat("\nBounds of the fit (public):\n")
    print(x$bounds, digits = digits)
  }
  cat("\nNo standard errors: private intervals spend privacy (see confintDP()).\n")
  invisible(x)
}
