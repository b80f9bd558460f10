# ERM with the analytic Gaussian mechanism (Ding et al., IEEE Transactions on Big Data): R6
# classes over the core's OutputPerturbationAGM and GradientPerturbationAGM. Like the ERM
# classes of erm.R, each R6 object holds its core model (CoreObject, core_object.R) and its
# fields are active bindings onto it; all arithmetic runs in the core.

# The settings both classes share (field name = the core's attribute).
.agm_settings <- c(loss = "loss", eps = "eps", delta = "delta", gamma = "gamma",
                   huber.h = "huber_h", iterations = "iterations", radius = "radius",
                   analytic = "analytic")

#' Base of the analytic-Gaussian ERM classes (internal)
#'
#' The class [OutputPerturbationAGM] and [GradientPerturbationAGM] share, as their core
#' classes share theirs; each defines its own `fit()` and `predict()` (the same calls), so
#' that its help page shows them.
#'
#' @keywords internal
AnalyticGaussianERM <- R6::R6Class(
  "AnalyticGaussianERM",
  inherit = CoreObject
)

#' Private ERM by output perturbation with the analytic Gaussian mechanism (OPERA)
#'
#' OPERA (Ding et al.): a fixed number of full-batch gradient-descent steps on the regularised
#' logistic or Huber-SVM objective, then Gaussian noise calibrated by the analytic Gaussian
#' mechanism (Balle and Wang 2018) to the sensitivity of the gradient-descent output,
#' `5 L (mu + beta) / (n mu beta)` for `gamma > 0` (`3 L T eta / n` for `gamma = 0`). The
#' release is (eps, delta)-differentially private for replace-one neighbours, for every
#' `eps > 0`: unlike the classical Gaussian mechanism, the analytic one needs no `eps < 1`.
#' The sensitivity and the calibration are derived in the guide page
#' `docs/python/guide/erm-derivations.rst` ("ERM with the analytic Gaussian mechanism").
#'
#' Data are prepared as in [LogisticRegressionDP]: the columns of `X` are clipped to the
#' public bounds and scaled so that every row has norm at most 1; labels are 0/1; the
#' coefficients are returned on the scale of `X`. Regularisation follows DPpack: the penalty is
#' `(gamma / n) ||w||^2 / 2`, so the paper's lambda is `gamma / n`.
#'
#' The fields are active bindings onto the core model, which holds the state once: the
#' settings (the arguments of `$new()`) may be assigned, and the next fit checks and uses them;
#' the statistics of the last fit are read-only.
#'
#' @field loss The loss (a setting: see `$new()`).
#' @field eps The privacy budget (a setting).
#' @field delta The privacy parameter delta (a setting).
#' @field gamma The regularisation constant (a setting).
#' @field huber.h The Huber parameter (a setting).
#' @field iterations The number of gradient steps, or `NULL` (a setting).
#' @field step.size The step size, or `NULL` (a setting).
#' @field sensitivity.bound `"paper"` or `"tight"` (a setting).
#' @field analytic Whether the Gaussian mechanism is the analytic one (a setting).
#' @field radius The bound on the coefficients' norm, or `NULL` (a setting).
#' @field coeff The private coefficients after `fit()` (bias first with `add.bias`).
#' @field Delta The sensitivity of the last fit (on the scaled problem; read-only).
#' @field sigma The noise standard deviation of the last fit (on the scaled problem;
#'   read-only).
#' @field n.iterations The number of gradient steps of the last fit (read-only).
#' @field privacy The [privacy_loss][privacy_loss_pure] of the last fit (read-only; `NULL`
#'   before a fit, and for a fit with `eps = Inf`).
#' @references Ding J, Errapotu SM, Guo Y, Zhang H, Yuan D, Pan M. Private empirical risk
#'   minimization with analytic Gaussian mechanism for healthcare system. IEEE Transactions
#'   on Big Data.
#'
#'   Balle B, Wang Y-X (2018). Improving the Gaussian mechanism for differential privacy:
#'   analytical calibration and optimal denoising. ICML.
#' @seealso [GradientPerturbationAGM], `vignette("analytic-gaussian-erm")`.
#' @export
#' @examplesIf dppack_available()
#' set.seed(1)
#' X <- data.frame(x1 = stats::runif(500, -1, 1), x2 = stats::runif(500, -1, 1))
#' y <- as.integer(X$x1 + X$x2 + stats::rnorm(500, sd = 0.3) > 0)
#' model <- OutputPerturbationAGM$new("logistic", eps = 1, delta = 1e-5, gamma = 50)
#' model$fit(X, y, upper.bounds = c(1, 1), lower.bounds = c(-1, -1), add.bias = TRUE)
#' model$coeff
#' mean(model$predict(X, add.bias = TRUE) == y)
OutputPerturbationAGM <- R6::R6Class(
  "OutputPerturbationAGM",
  inherit = AnalyticGaussianERM,
  public = list(
    #' @description Create a model; invalid settings stop with a clear message.
    #' @param loss `"logistic"` or `"huber"` (Huber-smoothed hinge loss, an SVM).
    #' @param eps Privacy budget, > 0 (`Inf` for a non-private fit).
    #' @param delta Privacy parameter in (0, 1).
    #' @param gamma Regularisation constant, >= 0 (penalty `(gamma / n) ||w||^2 / 2`).
    #' @param huber.h Huber parameter h (the paper's 0.5).
    #' @param iterations Number of gradient steps T; `NULL`: 1000 when `gamma > 0`, else the
    #'   paper's rate formula (needs `radius`).
    #' @param step.size Step size; `NULL` and maximum: `1 / (beta + lambda)` (`1 / beta` when
    #'   `gamma = 0`).
    #' @param sensitivity.bound `"paper"` (the paper's constants 5 and 3) or `"tight"` (the
    #'   contraction bounds, constant 2).
    #' @param analytic `TRUE` for the analytic Gaussian mechanism; `FALSE` for the classical
    #'   one (the paper's OutPert baseline; needs `eps < 1`).
    #' @param radius Bound R on the norm of the coefficients, for the default T when
    #'   `gamma = 0`.
    initialize = function(loss, eps, delta, gamma, huber.h = 0.5, iterations = NULL,
                          step.size = NULL, sensitivity.bound = "paper", analytic = TRUE,
                          radius = NULL) {
      private$new_core(
        sys.call(-1), "OutputPerturbationAGM", loss = .to_py(loss), eps = .to_py(eps),
        delta = .to_py(delta), gamma = .to_py(gamma), huber_h = .to_py(huber.h),
        iterations = .to_py(iterations), step_size = .to_py(step.size),
        sensitivity_bound = .to_py(sensitivity.bound), analytic = .to_py(analytic),
        radius = .to_py(radius)
      )
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #'   (The same in both analytic-Gaussian classes.)
    #' @param X Numeric matrix or data.frame of features.
    #' @param y Labels: 0/1, a logical or a two-level factor (see [model_methods]).
    #' @param upper.bounds,lower.bounds Public bounds of the columns of `X`; the columns are
    #'   clipped to them.
    #' @param add.bias Prepend a column of ones (bias coefficient first).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description Predicted labels (0/1), or with `raw.value = TRUE` probabilities
    #'   (logistic) or scores (Huber).
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    #' @param raw.value Return probabilities or scores instead of labels.
    predict = function(X, add.bias = NULL, raw.value = FALSE) {
      private$predict_data(sys.call(), X, add.bias, raw_value = .to_py(raw.value))
    }
  ),
  active = c(
    .core_bindings(c(.agm_settings, step.size = "step_size",
                     sensitivity.bound = "sensitivity_bound")),
    .core_bindings(c(coeff = "coeff"), "vector"),
    .core_bindings(c(Delta = "Delta_", sigma = "sigma_", n.iterations = "n_iterations_"),
                   "result"),
    .privacy_field
  )
)

#' Private ERM by noisy SGD with the analytic Gaussian mechanism (sound GRPUA)
#'
#' The sound version of GRPUA (Ding et al., IEEE Transactions on Big Data): `iterations` steps of SGD, each
#' on one record drawn uniformly from the `n`, whose n-scaled gradient gets Gaussian noise of
#' standard deviation `n * sigma`, `sigma` the analytic Gaussian calibration of the per-step
#' budget to the replace-one sensitivity `2 L` of one record's gradient. `(eps, delta)` is the
#' *total* budget: it is split into per-step parameters by privacy amplification by sampling
#' and strong composition, and the accountant's totals are stored in `eps.total` and
#' `delta.total` (derived in the guide page `docs/python/guide/erm-derivations.rst`, "ERM
#' with the analytic Gaussian mechanism").
#'
#' The algorithm as printed in the paper is not offered: it calibrates the noise to
#' sensitivity `L` instead of `2 n L` (about `2 n` times too little noise) and its `delta` is
#' per step (`n delta` in total), so it is not differentially private as claimed (see
#' `vignette("analytic-gaussian-erm")`).
#'
#' Data preparation, labels, coefficients and `gamma` are as in [OutputPerturbationAGM].
#'
#' The fields are active bindings onto the core model, as for [OutputPerturbationAGM].
#'
#' @field loss The loss (a setting: see `$new()`).
#' @field eps The total privacy budget (a setting).
#' @field delta The total privacy parameter delta (a setting).
#' @field gamma The regularisation constant (a setting).
#' @field huber.h The Huber parameter (a setting).
#' @field iterations The number of SGD steps, or `NULL` (a setting).
#' @field step.offset The offset of the step sizes (a setting).
#' @field radius The radius of the projection, or `NULL` (a setting).
#' @field amplification `"tight"` or `"paper"` (a setting).
#' @field analytic Whether the Gaussian mechanism is the analytic one (a setting).
#' @field coeff The private coefficients after `fit()`.
#' @field eps.step The per-step eps of the last fit (read-only).
#' @field delta.step The per-step delta of the last fit (read-only).
#' @field sigma Noise standard deviation per coordinate of the average-scale gradient (the
#'   n-scaled gradient gets `n * sigma`; read-only).
#' @field Delta `2 L`, the sensitivity of one record's gradient (read-only).
#' @field eps.total The accountant's total eps of the last fit (at most `eps`; read-only).
#' @field delta.total The accountant's total delta of the last fit (at most `delta`;
#'   read-only).
#' @field n.iterations The number of SGD steps of the last fit (read-only).
#' @field privacy The [privacy_loss][privacy_loss_pure] of the last fit (read-only; `NULL`
#'   before a fit, and for a fit with `eps = Inf`).
#' @references Ding J, Errapotu SM, Guo Y, Zhang H, Yuan D, Pan M. Private empirical risk
#'   minimization with analytic Gaussian mechanism for healthcare system. IEEE Transactions
#'   on Big Data.
#'
#'   Balle B, Barthe G, Gaboardi M (2018). Privacy amplification by subsampling: tight
#'   analyses via couplings and divergences. NeurIPS.
#'
#'   Dwork C, Rothblum GN, Vadhan S (2010). Boosting and differential privacy. FOCS.
#' @seealso [OutputPerturbationAGM].
#' @export
#' @examplesIf dppack_available()
#' set.seed(1)
#' X <- data.frame(x1 = stats::runif(500, -1, 1), x2 = stats::runif(500, -1, 1))
#' y <- as.integer(X$x1 + X$x2 + stats::rnorm(500, sd = 0.3) > 0)
#' model <- GradientPerturbationAGM$new("huber", eps = 1, delta = 1e-5, gamma = 20)
#' model$fit(X, y, upper.bounds = c(1, 1), lower.bounds = c(-1, -1), add.bias = TRUE)
#' c(model$eps.step, model$eps.total)
#' mean(model$predict(X, add.bias = TRUE) == y)
GradientPerturbationAGM <- R6::R6Class(
  "GradientPerturbationAGM",
  inherit = AnalyticGaussianERM,
  public = list(
    #' @description Create a model; invalid settings stop with a clear message.
    #' @param loss `"logistic"` or `"huber"`.
    #' @param eps,delta Total privacy budget (`eps = Inf`: the same SGD without noise).
    #' @param gamma Regularisation constant, >= 0 (penalty `(gamma / n) ||w||^2 / 2`).
    #' @param huber.h Huber parameter h.
    #' @param iterations Number of SGD steps T; `NULL`: `min(n^2, 50 n)`.
    #' @param step.offset Offset t0 >= 0 of the step sizes `1 / (lambda n (t + t0))`.
    #' @param radius Optional bound R: every iterate is projected onto the ball of radius R
    #'   (required when `gamma = 0`, where it sets the step sizes).
    #' @param amplification `"tight"` (Balle, Barthe and Gaboardi) or `"paper"` (`2 eps / n`,
    #'   needs a per-step eps <= 1).
    #' @param analytic `TRUE` for the analytic Gaussian mechanism; `FALSE` for the classical
    #'   one at every step (the loop of the paper's SgdPert baseline; needs a per-step
    #'   eps < 1).
    initialize = function(loss, eps, delta, gamma, huber.h = 0.5, iterations = NULL,
                          step.offset = 0, radius = NULL, amplification = "tight",
                          analytic = TRUE) {
      private$new_core(
        sys.call(-1), "GradientPerturbationAGM", loss = .to_py(loss), eps = .to_py(eps),
        delta = .to_py(delta), gamma = .to_py(gamma), huber_h = .to_py(huber.h),
        iterations = .to_py(iterations), step_offset = .to_py(step.offset),
        radius = .to_py(radius), amplification = .to_py(amplification),
        analytic = .to_py(analytic)
      )
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #'   (The same in both analytic-Gaussian classes.)
    #' @param X Numeric matrix or data.frame of features.
    #' @param y Labels: 0/1, a logical or a two-level factor (see [model_methods]).
    #' @param upper.bounds,lower.bounds Public bounds of the columns of `X`; the columns are
    #'   clipped to them.
    #' @param add.bias Prepend a column of ones (bias coefficient first).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description Predicted labels (0/1), or with `raw.value = TRUE` probabilities
    #'   (logistic) or scores (Huber).
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    #' @param raw.value Return probabilities or scores instead of labels.
    predict = function(X, add.bias = NULL, raw.value = FALSE) {
      private$predict_data(sys.call(), X, add.bias, raw_value = .to_py(raw.value))
    }
  ),
  active = c(
    .core_bindings(c(.agm_settings, step.offset = "step_offset",
                     amplification = "amplification")),
    .core_bindings(c(coeff = "coeff"), "vector"),
    .core_bindings(c(eps.step = "eps_step_", delta.step = "delta_step_", sigma = "sigma_",
                     Delta = "Delta_", eps.total = "eps_total_", delta.total = "delta_total_",
                     n.iterations = "n_iterations_"), "result"),
    .privacy_field
  )
)
