# Private model selection: DPpack 0.2.2's tuning functions over R6 models.

# Select among the R6 models `DPmodels` with the core's selection function `name` (DPpack's
# tuning, or stability-based validation), its other arguments in `...` (converted), as the
# user's call `caller`. The core fits copies of the models' cores; once it has returned, every
# model gets its copy, as after a fit of its own (copy on write, see core_object.R), and the
# R6 model whose copy the core selected is returned, and each model gets `record` as the record
# of its fit (model_methods.R). A list element that is not a DPpackPy model goes as it is, for
# the core to refuse.
.select_model <- function(name, DPmodels, accountant, ..., record = NULL, caller) {
  cores <- lapply(DPmodels, function(model) {
    core <- .core_of(model)
    if (is.null(core)) .to_py(model) else .copy_core(core)
  })
  selected <- .call_core(name, accountant = .accountant(accountant, caller), DPmodels = cores,
                         ..., random_state = .random_state(), .caller = caller)
  chosen <- NULL
  for (i in seq_along(DPmodels)) {
    if (!is.null(.core_of(DPmodels[[i]]))) {
      DPmodels[[i]]$.core <- cores[[i]]
      DPmodels[[i]]$.fitted <- record
      if (reticulate::py_id(cores[[i]]) == reticulate::py_id(selected)) {
        chosen <- DPmodels[[i]]
      }
    }
  }
  chosen
}

#' Private tuning of classification models
#'
#' Splits the data into `length(DPmodels) + 1` interleaved parts, fits each model on its own
#' part (in place), counts its errors on the last part, and selects a model with the
#' exponential mechanism (sensitivity 1, the first model's `eps`), as DPpack does.
#'
#' A record is in one part only, so the call is `eps`-DP when every model is: provided all
#' models have the same `eps`. Unlike DPpack, which silently uses the first model's, models
#' with different `eps`, or an infinite `eps`, are refused before any data is touched.
#'
#' @param DPmodels A list of [LogisticRegressionDP] or [svmDP] models, all with the same
#'   finite `eps`.
#' @param X,y Data and labels: 0/1, logical or a two-level factor (see [model_methods]).
#' @param upper.bounds,lower.bounds Bounds of the columns of `X`.
#' @param add.bias Passed to each model's `fit()` and `predict()`.
#' @param weights,weights.upper.bound Optional weights ([svmDP] with output perturbation).
#' @inheritParams LaplaceMechanism
#' @return The selected model, fitted.
#' @export
#' @examplesIf dppack_available()
#' set.seed(4)
#' X <- data.frame(x1 = stats::runif(300, -1, 1), x2 = stats::runif(300, -1, 1))
#' y <- as.integer(X$x1 + X$x2 > 0)
#' models <- lapply(c(100, 1, 1e-4), function(g) LogisticRegressionDP$new("l2", 1, g))
#' best <- tune_classification_model(models, X, y, c(1, 1), c(-1, -1))
#' best$gamma
tune_classification_model <- function(DPmodels, X, y, upper.bounds, lower.bounds,
                                      add.bias = FALSE, weights = NULL,
                                      weights.upper.bound = NULL, accountant = NULL) {
  caller <- sys.call()
  # factor or logical labels as for a model's fit(), by the first model (model_methods.R)
  labels <- .encode_labels(if (is.list(DPmodels) && length(DPmodels) > 0) DPmodels[[1]],
                           y, caller)
  .select_model(
    "tune_classification_model", DPmodels, accountant, X = .to_py(X), y = .to_py(labels$y),
    upper_bounds = .to_py(upper.bounds), lower_bounds = .to_py(lower.bounds),
    add_bias = .to_py(add.bias), weights = .to_py(weights),
    weights_upper_bound = .to_py(weights.upper.bound),
    record = .fit_record(X, labels, upper.bounds, lower.bounds, add.bias, n = NA_integer_),
    caller = caller
  )
}

#' Private tuning of linear regression models
#'
#' As [tune_classification_model()], with the squared error on the validation part (responses
#' and predictions clipped to the bounds on `y`, a fix of DPpack) and sensitivity
#' `(U_y - L_y)^2`. The call is `(eps, delta)`-DP when every model is; models with different
#' `eps` or `delta`, or an infinite `eps`, are refused before any data is touched.
#'
#' @param DPmodels A list of [LinearRegressionDP] models, all with the same finite `eps` and
#'   the same `delta`.
#' @param X,y Data and responses.
#' @param upper.bounds,lower.bounds Bounds of the columns of `X`, then of `y`.
#' @param add.bias Passed to each model's `fit()` and `predict()`.
#' @inheritParams LaplaceMechanism
#' @return The selected model, fitted.
#' @export
#' @examplesIf dppack_available()
#' set.seed(4)
#' x <- stats::runif(3000, -1, 1)
#' y <- 0.2 + 0.6 * x + stats::rnorm(3000, sd = 0.1)
#' models <- lapply(c(0.1, 1, 10), function(g) LinearRegressionDP$new("l2", 1, 0.01, g))
#' best <- tune_linear_regression_model(models, data.frame(x = x), y, c(1, 2), c(-1, -2),
#'                                      add.bias = TRUE)
#' best$gamma
#' best$coeff
tune_linear_regression_model <- function(DPmodels, X, y, upper.bounds, lower.bounds,
                                         add.bias = FALSE, accountant = NULL) {
  .select_model(
    "tune_linear_regression_model", DPmodels, accountant, X = .to_py(X), y = .to_py(y),
    upper_bounds = .to_py(upper.bounds), lower_bounds = .to_py(lower.bounds),
    add_bias = .to_py(add.bias),
    record = .fit_record(X, list(y = y), upper.bounds, lower.bounds, add.bias,
                         n = NA_integer_),
    caller = sys.call()
  )
}
