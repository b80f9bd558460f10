# DPpack's ERM R6 classes over the core's models (dppack.erm): each R6 object holds its core
# model once (CoreObject, core_object.R) and DPpack's public fields are active bindings onto
# it. Built-in maps and losses run entirely in Python; an R subclass that supplies R functions
# for them works too (reticulate calls them from the core).

# The function fields of both frameworks (DPpack 0.2.2's EmpiricalRiskMinimizationDP.CMS and
# EmpiricalRiskMinimizationDP.KST) and the core's attributes.
.erm_functions <- c(mapXy = "mapXy", mapXy.gr = "mapXy_gr", loss = "loss", loss.gr = "loss_gr",
                    regularizer = "regularizer", regularizer.gr = "regularizer_gr")

# The active bindings of an ERM framework: its functions, its numbers (`values`, field name =
# the core's attribute), coeff and privacy.
.erm_bindings <- function(values) {
  c(.core_bindings(.erm_functions, "function"), .core_bindings(values),
    .core_bindings(c(coeff = "coeff"), "vector"), .privacy_field)
}

# Arguments that DPpack lets a caller omit (bounds of the Gaussian-kernel SVM).
.optional <- function(missing_arg, value) if (missing_arg) NULL else value

#' Differentially private empirical risk minimization (Chaudhuri et al.)
#'
#' DPpack's `EmpiricalRiskMinimizationDP.CMS`: output or objective perturbation for a loss
#' and map given as functions, following Chaudhuri, Monteleoni and Sarwate (2011), with
#' DPpack's convention that `gamma` is n times their regularisation weight. Subclass it with R
#' functions for the map and the loss, or use [LogisticRegressionDP] and [svmDP].
#'
#' @details
#' **What the guarantee assumes** (Chaudhuri et al. 2011, Theorems 6 and 9). With `z = x'coeff` the linear score of a row `x` of the clipped data:
#' * the map acts through `z` and the loss, as a function of `z`, is convex and differentiable
#'   with `|dloss/dz| <= 1` for every label in the data; objective perturbation also needs it
#'   twice differentiable with `|d2loss/dz2| <= c`. [mapXy.sigmoid] with [loss.cross.entropy]
#'   (`c = 1/4`) and [mapXy.linear] with the Huber loss of [generate.loss.huber] (labels -1/1,
#'   `c = 1/(2h)`) qualify; [loss.squared.error] does not (its slope is unbounded);
#' * the regularizer is 1-strongly convex and differentiable (twice for objective
#'   perturbation); `"l2"` is.
#'
#' These are the user's responsibility: the class cannot verify them, nor the gradients.
#'
#' **What the class checks and does.** It checks `eps`, `gamma`, `c`, the bounds and the data,
#' and clips `X` to the bounds. It does not scale `X`: it calibrates the noise to the largest
#' norm `B` a clipped row can have (the bias column included), when that exceeds 1 (DPpack used
#' `B = 1` whatever the bounds).
#' A fit is released only if the solver certifies that it is close enough to the exact
#' minimiser the theorems assume, else it stops with an error (never a warning); the noise
#' covers that slack. Output perturbation needs `mapXy.gr`, `loss.gr` and `regularizer.gr`
#' for the certificate; objective perturbation without gradients checks it by central
#' differences. The sensitivities, the noise and the certificates are derived in the guide
#' page `docs/python/guide/erm-derivations.rst` ("The CMS frameworks").
#'
#' **Fields.** DPpack's public fields are active bindings onto the core model, which holds the
#' state once: reading one converts the core's value to R, assigning one (`model$gamma <- 50`)
#' sets the core's value, which the next `fit()` checks and uses; an assigned `coeff` is used by
#' `predict()`, as in DPpack. The built-in functions read as DPpack's R functions of the same
#' name (e.g. `regularizer` as [regularizer.l2] for `"l2"`, as in DPpack), and an R function
#' given reads back as itself.
#'
#' @field mapXy The map, a function `(X, coeff)`.
#' @field mapXy.gr Its gradient in `coeff`, or `NULL`.
#' @field loss The loss, a function `(y.hat, y)`.
#' @field loss.gr Its derivative in `y.hat`, or `NULL`.
#' @field regularizer The regularizer, a function of the coefficients ([regularizer.l2] for
#'   `"l2"`).
#' @field regularizer.gr Its gradient, or `NULL` (assigning `regularizer` leaves it as it is,
#'   as in DPpack).
#' @field gamma The regularisation constant.
#' @field eps The privacy budget.
#' @field perturbation.method `"objective"` or `"output"`.
#' @field c The bound on the loss's curvature (objective perturbation).
#' @field coeff The private coefficients after `fit()`.
#' @field kernel Used by [svmDP]: the kernel.
#' @field D Used by [svmDP]: the number of random features.
#' @field sampling Used by [svmDP]: the sampler of the random features.
#' @field phi Used by [svmDP]: the feature map of the Gaussian kernel.
#' @field kernel.param Used by [svmDP]: the Gaussian kernel's parameter.
#' @field prefilter Used by [svmDP]: the random frequencies and phases of the last fit.
#' @field privacy The [privacy_loss][privacy_loss_pure] of the last fit (read-only; `NULL`
#'   before a fit, and for a fit with `eps = Inf`).
#' @references Chaudhuri K, Monteleoni C, Sarwate AD (2011). Differentially private empirical
#'   risk minimization. Journal of Machine Learning Research 12, 1069-1109.
#' @export
#' @examplesIf dppack_available()
#' # logistic regression on the base class: bounds of norm sqrt(0.7^2 + 0.7^2) < 1
#' set.seed(1)
#' X <- matrix(stats::runif(400, -0.7, 0.7), ncol = 2)
#' y <- as.integer(X[, 1] + X[, 2] > 0)
#' model <- EmpiricalRiskMinimizationDP.CMS$new(
#'   mapXy.sigmoid, loss.cross.entropy, "l2", eps = 1, gamma = 1, "output",
#'   mapXy.gr = mapXy.gr.sigmoid, loss.gr = loss.gr.cross.entropy
#' )
#' model$fit(X, y, c(0.7, 0.7), c(-0.7, -0.7))
#' model$coeff
EmpiricalRiskMinimizationDP.CMS <- R6::R6Class(
  "EmpiricalRiskMinimizationDP.CMS",
  inherit = CoreObject,
  public = list(
    #' @description Create a model; invalid settings stop with DPpack's messages.
    #' @param mapXy Function `(X, coeff)` giving the n model outputs, through the linear
    #'   scores `x'coeff` (see Details).
    #' @param loss Function `(y.hat, y)` giving the n losses; slope at most 1 in the score
    #'   (see Details).
    #' @param regularizer `"l2"` or a 1-strongly convex function of the coefficients.
    #' @param eps Privacy budget (`Inf` for a non-private fit).
    #' @param gamma Regularisation constant (n times Chaudhuri et al.'s Lambda).
    #' @param perturbation.method `"objective"` or `"output"`.
    #' @param c Bound on the loss's second derivative in the score (objective perturbation).
    #' @param mapXy.gr,loss.gr,regularizer.gr Gradients; optional, except for output
    #'   perturbation with a finite `eps`.
    initialize = function(mapXy, loss, regularizer, eps, gamma,
                          perturbation.method = "objective", c = NULL, mapXy.gr = NULL,
                          loss.gr = NULL, regularizer.gr = NULL) {
      private$new_core(
        sys.call(-1), private$core_class, mapXy = mapXy, loss = loss,
        regularizer = regularizer, eps = .to_py(eps), gamma = .to_py(gamma),
        perturbation_method = .to_py(perturbation.method), c = .to_py(c), mapXy_gr = mapXy.gr,
        loss_gr = loss.gr, regularizer_gr = regularizer.gr
      )
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #' @param X Numeric matrix or data.frame.
    #' @param y Labels or responses.
    #' @param upper.bounds,lower.bounds Bounds of the columns of `X`.
    #' @param add.bias Prepend a column of ones (bias coefficient first).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description The model's outputs `mapXy(X, coeff)` for new data.
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    predict = function(X, add.bias = NULL) {
      private$predict_data(sys.call(), X, add.bias)
    }
  ),
  active = c(
    .erm_bindings(c(gamma = "gamma", eps = "eps", perturbation.method = "perturbation_method",
                    c = "c", kernel = "kernel", D = "D", kernel.param = "kernel_param")),
    .core_bindings(c(sampling = "sampling", phi = "phi"), "function"),
    .core_bindings(c(prefilter = "prefilter"), "matrix")
  ),
  private = list(
    # The core class the constructor builds; WeightedERMDP.CMS names its own.
    core_class = "EmpiricalRiskMinimizationDP_CMS"
  )
)

#' Weighted differentially private ERM
#'
#' DPpack's `WeightedERMDP.CMS`: [EmpiricalRiskMinimizationDP.CMS] whose loss takes a third
#' argument, the weights, for output perturbation.
#'
#' @details The guarantee needs the assumptions of [EmpiricalRiskMinimizationDP.CMS] for the
#' weighted loss `loss(y.hat, y, w) = w * l(z, y)`, with `l` of slope at most 1 in the score
#' `z` (the user's responsibility). The weights are checked (non-negative) and clipped at
#' `weights.upper.bound` (`w.bar`); the output noise rate is
#' `gamma * eps / (2 * w.bar * B * (1 + 1e-6))`, `B` and the `1e-6` optimality slack as in
#' [EmpiricalRiskMinimizationDP.CMS] (DPpack: `gamma * eps / (2 * w.bar)`).
#' @export
#' @examplesIf dppack_available()
#' set.seed(2)
#' X <- data.frame(x1 = stats::runif(200, -1, 1), x2 = stats::runif(200, -1, 1))
#' y <- ifelse(X$x1 + X$x2 > 0, 1, -1)
#' w <- ifelse(X$x1 > 0, 1, 0.5)
#' # a weighted Huber SVM by output perturbation
#' model <- WeightedERMDP.CMS$new(mapXy.linear, generate.loss.huber(0.5), "l2", eps = 1,
#'                                gamma = 10, perturbation.method = "output",
#'                                mapXy.gr = mapXy.gr.linear,
#'                                loss.gr = generate.loss.gr.huber(0.5))
#' model$fit(X, y, c(1, 1), c(-1, -1), weights = w, weights.upper.bound = 1)
#' model$coeff
#' mean(sign(model$predict(X)) == y)
WeightedERMDP.CMS <- R6::R6Class(
  "WeightedERMDP.CMS",
  inherit = EmpiricalRiskMinimizationDP.CMS,
  public = list(
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #' @param X,y,upper.bounds,lower.bounds,add.bias As for the parent class.
    #' @param weights Optional non-negative weights (output perturbation only).
    #' @param weights.upper.bound Upper bound on the weights, required with `weights`.
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, weights = NULL,
                   weights.upper.bound = NULL, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias,
                       weights = .to_py(weights),
                       weights_upper_bound = .to_py(weights.upper.bound))
    }
  ),
  private = list(
    core_class = "WeightedERMDP_CMS"
  )
)

#' Differentially private logistic regression
#'
#' DPpack's `LogisticRegressionDP`: [EmpiricalRiskMinimizationDP.CMS] with the logistic map and
#' cross-entropy loss (c = 1/4). The columns of `X` are clipped to their bounds and scaled so
#' that every row has norm at most 1; the coefficients are returned on the original scale.
#' Unlike DPpack 0.2.2, the fit regularises with the model's own `gamma` (see NEWS.md).
#'
#' @details The loss, map and scaling meet Chaudhuri et al.'s assumptions; a function
#' `regularizer` must be 1-strongly convex (the user's responsibility) and, for output
#' perturbation, come with `regularizer.gr`. As for [EmpiricalRiskMinimizationDP.CMS], a fit
#' is released only at a certified minimiser (gradient norm at most `1e-6 / n`), and output
#' perturbation's noise rate is `gamma * eps / (2 * (1 + 1e-6))`.
#'
#' @export
#' @examplesIf dppack_available()
#' set.seed(1)
#' X <- data.frame(x1 = stats::runif(200, -1, 1), x2 = stats::runif(200, -1, 1))
#' y <- as.integer(X$x1 + X$x2 + stats::rnorm(200, sd = 0.3) > 0)
#' model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1)
#' model$fit(X, y, upper.bounds = c(1, 1), lower.bounds = c(-1, -1), add.bias = TRUE)
#' model$coeff
#' mean(model$predict(X, add.bias = TRUE) == y)
LogisticRegressionDP <- R6::R6Class(
  "LogisticRegressionDP",
  inherit = EmpiricalRiskMinimizationDP.CMS,
  public = list(
    #' @description Create a private logistic regression.
    #' @param regularizer `"l2"` or a function of the coefficients.
    #' @param eps Privacy budget.
    #' @param gamma Regularisation constant.
    #' @param perturbation.method `"objective"` or `"output"`.
    #' @param regularizer.gr Gradient of a function regularizer.
    initialize = function(regularizer, eps, gamma, perturbation.method = "objective",
                          regularizer.gr = NULL) {
      # the core sets the map, the loss, their gradients and c = 1/4
      private$new_core(
        sys.call(-1), "LogisticRegressionDP", regularizer = regularizer, eps = .to_py(eps),
        gamma = .to_py(gamma), perturbation_method = .to_py(perturbation.method),
        regularizer_gr = regularizer.gr
      )
    },
    #' @description Fit the private coefficients (in place) by the model's
    #'   `perturbation.method`; returns the model invisibly. (The parent's `fit()`, repeated
    #'   so that `?LogisticRegressionDP` shows it.)
    #' @param X Numeric matrix or data.frame of features.
    #' @param y Labels: 0/1, a logical or a two-level factor (see [model_methods]).
    #' @param upper.bounds,lower.bounds Public bounds of the columns of `X` (not of the data:
    #'   they must not be computed from it); the columns are clipped to them.
    #' @param add.bias Prepend a column of ones (bias coefficient first).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description Predicted labels (0/1), or probabilities with `raw.value = TRUE`.
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    #' @param raw.value Return probabilities instead of labels.
    predict = function(X, add.bias = NULL, raw.value = FALSE) {
      private$predict_data(sys.call(), X, add.bias, raw_value = .to_py(raw.value))
    }
  )
)

#' Differentially private support vector machine
#'
#' DPpack's `svmDP`: a Huber-loss SVM by output or objective perturbation, with a linear
#' kernel or a Gaussian kernel approximated by `D` random Fourier features (no bounds needed
#' then), and optional sample weights for output perturbation.
#'
#' @details The Huber loss (slope at most 1, curvature at most `c = 1/(2 * huber.h)`) and the
#' scaling to rows of norm at most 1 meet Chaudhuri et al.'s assumptions; a function
#' `regularizer` must be 1-strongly convex (the user's responsibility) and, for output
#' perturbation, come with `regularizer.gr`. A fit is released only at a certified minimiser
#' (gradient norm at most `1e-6 * w.bar / n`); output perturbation's noise rate is
#' `gamma * eps / (2 * w.bar * (1 + 1e-6))`, `w.bar` the weights' upper bound (1 without).
#'
#' @export
#' @examplesIf dppack_available()
#' set.seed(2)
#' X <- data.frame(x1 = stats::runif(200, -1, 1), x2 = stats::runif(200, -1, 1))
#' y <- as.integer(X$x1 - X$x2 > 0)
#' model <- svmDP$new("l2", eps = 1, gamma = 0.1, perturbation.method = "output")
#' model$fit(X, y, upper.bounds = c(1, 1), lower.bounds = c(-1, -1))
#' mean(model$predict(X) == y)
svmDP <- R6::R6Class(
  "svmDP",
  inherit = WeightedERMDP.CMS,
  public = list(
    #' @description Create a private SVM.
    #' @param regularizer `"l2"` or a function of the coefficients.
    #' @param eps Privacy budget.
    #' @param gamma Regularisation constant.
    #' @param perturbation.method `"objective"` or `"output"`.
    #' @param kernel `"linear"` or `"Gaussian"`.
    #' @param D Number of random features for the Gaussian kernel.
    #' @param kernel.param Kernel parameter of `exp(-kernel.param ||x - x'||^2)`; by default
    #'   `1/ncol(X)`, fixed at the first fit.
    #' @param regularizer.gr Gradient of a function regularizer.
    #' @param huber.h Huber loss parameter.
    initialize = function(regularizer, eps, gamma, perturbation.method = "objective",
                          kernel = "linear", D = NULL, kernel.param = NULL,
                          regularizer.gr = NULL, huber.h = 0.5) {
      # the core sets the map, the Huber loss of huber.h, their gradients, c = 1/(2 huber.h)
      # and, for the Gaussian kernel, phi
      private$new_core(
        sys.call(-1), "svmDP", regularizer = regularizer, eps = .to_py(eps),
        gamma = .to_py(gamma), perturbation_method = .to_py(perturbation.method),
        kernel = .to_py(kernel), D = .to_py(D), kernel_param = .to_py(kernel.param),
        regularizer_gr = regularizer.gr, huber_h = .to_py(huber.h)
      )
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #' @param X,y,add.bias As for the parent class; `y` holds labels: 0/1, a logical or a
    #'   two-level factor (see [model_methods]).
    #' @param upper.bounds,lower.bounds Bounds of the columns of `X` (not needed for the
    #'   Gaussian kernel without `add.bias`).
    #' @param weights,weights.upper.bound Optional weights and their bound (output
    #'   perturbation).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, weights = NULL,
                   weights.upper.bound = NULL, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y,
                       .optional(missing(upper.bounds), upper.bounds),
                       .optional(missing(lower.bounds), lower.bounds), add.bias,
                       weights = .to_py(weights),
                       weights_upper_bound = .to_py(weights.upper.bound))
    },
    #' @description Predicted labels (0/1), or raw scores with `raw.value = TRUE`.
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    #' @param raw.value Return the scores instead of labels.
    predict = function(X, add.bias = NULL, raw.value = FALSE) {
      private$predict_data(sys.call(), X, add.bias, raw_value = .to_py(raw.value))
    },
    #' @description The random Fourier features of `X` (Gaussian kernel, after a fit).
    #' @param X Numeric matrix.
    XtoV = function(X) {
      .call_core("XtoV", X = .to_py(X), .object = private$own_core(), .caller = sys.call())
    }
  ),
  private = list(
    # The core holds its own Huber loss and sampler (Python closures): read as DPpack's R
    # closures of the same parameters.
    builtin_function = function(attribute) {
      core <- private$own_core()
      switch(
        attribute,
        loss = generate.loss.huber(core$huber_h),
        loss_gr = generate.loss.gr.huber(core$huber_h),
        sampling = generate.sampling(core$kernel_param)
      )
    }
  )
)

#' Differentially private ERM with a constrained domain (Kifer et al.)
#'
#' DPpack's `EmpiricalRiskMinimizationDP.KST`: objective perturbation after Kifer, Smith and
#' Thakurta (2012), with Laplace-type noise for eps-DP (`delta = 0`) and Gaussian noise for
#' (eps, delta)-DP, the solution constrained to `domain`. The bounds have one entry more than
#' `X` has columns: the last bounds `y`. Solved to tolerance (DPpack stops after 100
#' evaluations).
#'
#' @details
#' **What the guarantee assumes** (Kifer, Smith and Thakurta 2012, Theorem 2), for every row and label within the bounds (`X` and `y` are clipped to them) and
#' every `coeff` in the domain:
#' * the loss `loss(mapXy(x, coeff), y)` is convex in `coeff`, twice continuously
#'   differentiable, with gradient norm at most `zeta` and a Hessian of rank at most one
#'   whose eigenvalue is at most `lambda`;
#' * the regularizer is convex and differentiable;
#' * the domain `{coeff: domain$constraints(coeff) <= 0}` is closed, convex and not empty.
#'
#' The class checks `eps`, `delta`, `gamma`, `zeta > 0`, `lambda >= 0`, the bounds and the
#' data; that `zeta` and `lambda` really bound the loss, and convexity, are the user's
#' responsibility ([LinearRegressionDP] sets them from its own scaling). A fit is released
#' only if it is feasible and its KKT residual is at most `1e-7` (`1e-4` without gradients)
#' times `max(1, ||grad J(0)||)`, else it stops with an error (never a warning).
#'
#' **Neighbours and noise** (a deviation from DPpack 0.2.2). The fit is eps-DP (or
#' (eps, delta)-DP) for data sets that differ in one replaced record, the neighbours of
#' DPpack's other models, and so also for one record added or removed; DPpack's noise is
#' private only for a record added or removed. The noise is 1.4 to 2 times DPpack's (1.68
#' times at `eps = 1`); its derivation is in the guide page
#' `docs/python/guide/erm-derivations.rst` ("The KST framework").
#'
#' **Fields** are active bindings onto the core model, as for
#' [EmpiricalRiskMinimizationDP.CMS].
#'
#' @field mapXy The map, a function `(X, coeff)`.
#' @field mapXy.gr Its gradient in `coeff`, or `NULL`.
#' @field loss The loss, a function `(y.hat, y)`.
#' @field loss.gr Its derivative in `y.hat`, or `NULL`.
#' @field regularizer The regularizer, a function of the coefficients ([regularizer.l2] for
#'   `"l2"`).
#' @field regularizer.gr Its gradient, or `NULL` (assigning `regularizer` leaves it as it is,
#'   as in DPpack).
#' @field gamma The regularisation constant.
#' @field eps The privacy budget.
#' @field delta The privacy parameter delta (`0` for eps-DP).
#' @field domain The domain: a list of the functions `constraints` and `jacobian`.
#' @field zeta The bound on the gradient of the loss.
#' @field lambda The bound on the eigenvalues of the loss's Hessian.
#' @field coeff The private coefficients after `fit()`.
#' @field privacy The [privacy_loss][privacy_loss_pure] of the last fit (read-only; `NULL`
#'   before a fit, and for a fit with `eps = Inf`).
#' @references Kifer D, Smith A, Thakurta A (2012). Private convex empirical risk minimization
#'   and high-dimensional regression. COLT.
#' @export
#' @examplesIf dppack_available()
#' set.seed(3)
#' x <- stats::runif(1000, -1, 1)
#' y <- -0.3 + 0.5 * x + stats::rnorm(1000, sd = 0.1)
#' # LinearRegressionDP's settings: coefficients in the ball ||coeff||^2 <= p, p = 2
#' p <- 2
#' domain <- list(constraints = function(coeff) sum(coeff^2) - p,
#'                jacobian = function(coeff) 2 * coeff)
#' model <- EmpiricalRiskMinimizationDP.KST$new(
#'   mapXy.linear, loss.squared.error, "l2", eps = 1, delta = 0.01, domain = domain,
#'   zeta = 2 * p^1.5, lambda = p, gamma = 1, mapXy.gr = mapXy.gr.linear,
#'   loss.gr = loss.gr.squared.error
#' )
#' model$fit(data.frame(x = x), y, upper.bounds = c(1, 2), lower.bounds = c(-1, -2),
#'           add.bias = TRUE)
#' model$coeff
EmpiricalRiskMinimizationDP.KST <- R6::R6Class(
  "EmpiricalRiskMinimizationDP.KST",
  inherit = CoreObject,
  public = list(
    #' @description Create a model; invalid settings stop with a clear message.
    #' @param mapXy,loss,regularizer As for [EmpiricalRiskMinimizationDP.CMS].
    #' @param eps,delta Privacy parameters (`delta = 0` for eps-DP).
    #' @param domain A list with functions `constraints` (<= 0 inside) and `jacobian`.
    #' @param zeta Bound on the gradient of the loss.
    #' @param lambda Bound on the eigenvalues of the loss's Hessian.
    #' @param gamma Regularisation constant.
    #' @param mapXy.gr,loss.gr,regularizer.gr Optional gradients.
    initialize = function(mapXy, loss, regularizer, eps, delta, domain, zeta, lambda, gamma,
                          mapXy.gr = NULL, loss.gr = NULL, regularizer.gr = NULL) {
      private$new_core(
        sys.call(-1), "EmpiricalRiskMinimizationDP_KST", mapXy = mapXy, loss = loss,
        regularizer = regularizer, eps = .to_py(eps), delta = .to_py(delta), domain = domain,
        zeta = .to_py(zeta), lambda_ = .to_py(lambda), gamma = .to_py(gamma),
        mapXy_gr = mapXy.gr, loss_gr = loss.gr, regularizer_gr = regularizer.gr
      )
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #' @param X Numeric matrix or data.frame.
    #' @param y Responses.
    #' @param upper.bounds,lower.bounds Bounds of the columns of `X`, then of `y`.
    #' @param add.bias Prepend a column of ones (bias coefficient first).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description The model's outputs `mapXy(X, coeff)` for new data.
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    predict = function(X, add.bias = NULL) {
      private$predict_data(sys.call(), X, add.bias)
    }
  ),
  active = c(
    .erm_bindings(c(gamma = "gamma", eps = "eps", delta = "delta", zeta = "zeta",
                    lambda = "lambda_")),
    .core_bindings(c(domain = "domain"), "domain")
  )
)

#' Differentially private linear regression
#'
#' DPpack's `LinearRegressionDP`: [EmpiricalRiskMinimizationDP.KST] with the linear map and
#' squared-error loss, coefficients constrained to `||theta||^2 <= p` on the scaled problem,
#' `zeta = 2 p^(3/2)` and `lambda = p`. `X` and `y` are clipped to their bounds and scaled; the
#' coefficients are returned on the original scale. The noise is calibrated for one replaced
#' record (see "Neighbours and noise" in [EmpiricalRiskMinimizationDP.KST]), larger than
#' DPpack's, whose privacy loss under replacement can exceed `eps` here too.
#'
#' @export
#' @examplesIf dppack_available()
#' set.seed(3)
#' x <- stats::runif(200, -1, 1)
#' y <- -0.3 + 0.5 * x + stats::rnorm(200, sd = 0.1)
#' model <- LinearRegressionDP$new("l2", eps = 1, delta = 0.01, gamma = 1)
#' model$fit(data.frame(x = x), y, upper.bounds = c(1, 2), lower.bounds = c(-1, -2),
#'           add.bias = TRUE)
#' model$coeff
LinearRegressionDP <- R6::R6Class(
  "LinearRegressionDP",
  inherit = EmpiricalRiskMinimizationDP.KST,
  public = list(
    #' @description Create a private linear regression.
    #' @param regularizer `"l2"` or a function of the coefficients.
    #' @param eps,delta Privacy parameters (`delta = 0` for eps-DP).
    #' @param gamma Regularisation constant.
    #' @param regularizer.gr Gradient of a function regularizer.
    initialize = function(regularizer, eps, delta, gamma, regularizer.gr = NULL) {
      # the core sets the map, the loss, their gradients and the domain
      private$new_core(
        sys.call(-1), "LinearRegressionDP", regularizer = regularizer, eps = .to_py(eps),
        delta = .to_py(delta), gamma = .to_py(gamma), regularizer_gr = regularizer.gr
      )
    },
    #' @description Fit the private coefficients (in place); returns the model invisibly.
    #'   (The parent's `fit()`, repeated so that `?LinearRegressionDP` shows it.)
    #' @param X Numeric matrix or data.frame of features.
    #' @param y Numeric responses.
    #' @param upper.bounds,lower.bounds Public bounds of the columns of `X`, then of `y` (one
    #'   more than the columns of `X`); `X` and `y` are clipped to them.
    #' @param add.bias Prepend a column of ones (bias coefficient first).
    #' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    fit = function(X, y, upper.bounds, lower.bounds, add.bias = FALSE, accountant = NULL) {
      private$fit_data(sys.call(), accountant, X, y, upper.bounds, lower.bounds, add.bias)
    },
    #' @description Predicted responses `X %*% coeff` for new data.
    #' @param X Numeric matrix or data.frame.
    #' @param add.bias Prepend a column of ones. `NULL` (the default): as in `fit()`, except for
    #'   an `X` that already has a column per coefficient (the bias column included, as
    #'   DPpack's `predict(X, add.bias = FALSE)` took it), used as given.
    predict = function(X, add.bias = NULL) {
      private$predict_data(sys.call(), X, add.bias)
    }
  )
)
