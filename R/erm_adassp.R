#' Private linear regression by sufficient-statistics perturbation (AdaSSP)
#'
#' A linear regression beside DPpack's [LinearRegressionDP], after Wang (2018), "AdaSSP":
#' noisy sufficient statistics (the sums of `y` and of the features, `X'y` and `X'X`) and a
#' ridge chosen from them. Its error shrinks as the number of rows grows (no coefficient ball,
#' no fixed penalty; the intercept is not penalised). The same `fit()` and `predict()`
#' arguments as [LinearRegressionDP]: one bound per column of `X`, then `y`'s.
#'
#' @details
#' **Privacy.** Each record is clipped to the bounds, centred and scaled into `[-1, 1]` (with
#' `add.bias`; scaled only without it) and rounded to a fine power-of-two grid, so that the
#' statistics are exact integers on that grid (no floating-point rounding of a released value
#' depends on the data). The four statistics (two without `add.bias`) get `eps / 4` each
#' (`eps / 2`), with exact discrete Laplace noise or, for vectors where it is smaller, the
#' exact l-infinity (K-norm) noise of Hardt and Talwar (2010) (`delta = 0`), or discrete
#' Gaussian noise (`delta > 0`, `delta / 4` each), calibrated to the sensitivities of the
#' rounded records under one record replaced; the fit is eps-DP, or (eps, delta)-DP. The
#' ridge, the solve and the rescaling are post-processing of the released statistics.
#'
#' **Projected release.** With `delta = 0`, at least two features and `n * eps` small
#' against the number of features (the noise of the released `X'X` would swamp the
#' covariance of data spread over their bounds; decided from `n`, `eps` and the bounds
#' only), the fit instead releases `X'y` (`eps / 2`) and then, along its direction `v`, the
#' sufficient statistics of the regression of `y` on `v'x` (`eps / 2`), and fits that
#' one-dimensional regression with AdaSSP's ridge (`method` is then `"projected"`). On
#' scikit-learn's diabetes data (309 training rows, 10 features) this beats predicting the
#' mean from `eps = 1`.
#'
#' **Deviations from the paper.** The paper releases `X'X`, `X'y` and a noisy smallest
#' eigenvalue of `X'X` with a third of the budget each. Here the sum of `y` is released on its
#' own (its sensitivity is far smaller than that of `X'X`), and the ridge
#' `lambda = max(0, tau - lambda_min)` is computed from the released `X'X` (centred, over
#' `n`) and the paper's high-probability bound `tau` on the norm of its noise, which spends
#' nothing (derived in the guide page `docs/python/guide/erm-derivations.rst`, "AdaSSP: exact
#' sufficient statistics and an adaptive ridge").
#'
#' **Fields** are active bindings onto the core model.
#'
#' @field eps The privacy budget (a setting).
#' @field delta The privacy parameter delta (a setting; `0` for eps-DP).
#' @field coeff The private coefficients after `fit()` (intercept first with `add.bias`).
#' @field ridge The ridge `lambda` of the last fit, on the centred, scaled problem
#'   (read-only).
#' @field method `"full"` or `"projected"`: the release used by the last fit (read-only).
#' @field privacy The [privacy_loss][privacy_loss_pure] of the last fit (read-only; `NULL`
#'   before a fit, and for a fit with `eps = Inf`).
#' @references Wang Y-X (2018). Revisiting differentially private linear regression: optimal
#'   and adaptive prediction & estimation in unbounded domain. UAI.
#'
#'   Canonne C, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
#'   NeurIPS.
#'
#'   Hardt M, Talwar K (2010). On the geometry of differential privacy. STOC.
#' @seealso [LinearRegressionDP].
#' @export
#' @examplesIf dppack_available()
#' set.seed(3)
#' x <- stats::runif(5000, -1, 1)
#' y <- -0.3 + 0.5 * x + stats::rnorm(5000, sd = 0.1)
#' model <- LinearRegressionAdaSSP$new(eps = 1)
#' model$fit(data.frame(x = x), y, upper.bounds = c(1, 2), lower.bounds = c(-1, -2),
#'           add.bias = TRUE)
#' model$coeff
#' head(model$predict(data.frame(x = x), add.bias = TRUE))
LinearRegressionAdaSSP <- R6::R6Class(
  "LinearRegressionAdaSSP",
  inherit = CoreObject,
  public = list(
    #' @description Create a private linear regression; invalid settings stop with a clear
    #'   message.
    #' @param eps Privacy budget, > 0 (`Inf`: least squares without noise, not private).
    #' @param delta `0` for eps-DP (discrete Laplace noise), in (0, 1) for (eps, delta)-DP
    #'   (discrete Gaussian noise).
    initialize = function(eps, delta = 0) {
      private$new_core(sys.call(-1), "LinearRegressionAdaSSP", eps = .to_py(eps),
                       delta = .to_py(delta))
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #' @param X Numeric matrix or data.frame of features.
    #' @param y Numeric responses.
    #' @param upper.bounds,lower.bounds Public bounds of the columns of `X`, then of `y` (one
    #'   more than the columns of `X`); `X` and `y` are clipped to them.
    #' @param add.bias Fit an intercept (first in `coeff`).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description Predicted responses `X %*% coeff` for new data (n x 1, as
    #'   [LinearRegressionDP]).
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones, as in `fit()`.
    predict = function(X, add.bias = FALSE) {
      private$predict_data(sys.call(), X, add.bias)
    }
  ),
  active = c(
    .core_bindings(c(eps = "eps", delta = "delta")),
    .core_bindings(c(coeff = "coeff"), "vector"),
    .core_bindings(c(ridge = "ridge_", method = "method_"), "result"),
    .privacy_field
  )
)
