# Accuracy-first private ERM (Ligett et al. 2017): noise reduction, the privacy-level grid, and
# the accuracy-first fits with their baselines. All arithmetic and all noise are in the core
# (dppack.accuracy_first); R converts arguments and results.

#' @include core_object.R
NULL

#' Geometric grid of privacy levels
#'
#' `eps_k = eps.min * (eps.max / eps.min)^(k / n.levels)`, `k = 0, ..., n.levels - 1`: the
#' grid of noise reduction (Ligett et al. 2017). `eps.max` itself is not a level.
#'
#' @param eps.min,eps.max Ends of the grid, `0 < eps.min < eps.max`.
#' @param n.levels Number of levels.
#' @return The increasing levels.
#' @export
#' @examplesIf dppack_available()
#' privacy_level_grid(0.01, 10, 5)
privacy_level_grid <- function(eps.min, eps.max, n.levels = 1000) {
  .call_core("privacy_level_grid", eps_min = eps.min, eps_max = eps.max, n_levels = n.levels,
             .caller = sys.call())
}

#' Laplace noise reduction
#'
#' Releases `true.values` at every privacy level of `eps` (increasing) so that publishing the
#' releases of the first `t` levels costs only `eps[t]`: the least private release is drawn
#' first and each more private one is a lazy random walk away from it (Koufogiannis et al.
#' 2015; Ligett et al. 2017, Algorithm 1). Each release is `true.values` plus Laplace noise of
#' scale `sensitivity / eps[t]`.
#'
#' @param true.values Numeric vector or matrix, the exact answer.
#' @param eps Increasing privacy levels (most private first).
#' @param sensitivity l1-sensitivity of the whole `true.values`.
#' @param accountant A [BudgetAccountant] charged the last level of `eps` (the whole path is
#'   returned), or `NULL` for the default accountant of [with_accountant()], if any.
#' @return A matrix with one row per level (for a vector `true.values`), or an array whose
#'   first dimension is the level.
#' @references Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
#'   differential privacy level for accuracy-constrained ERM. NeurIPS 30.
#' @export
#' @examplesIf dppack_available()
#' LaplaceNoiseReduction(c(10, 20), eps = c(0.1, 0.5, 1), sensitivity = 1)
LaplaceNoiseReduction <- function(true.values, eps, sensitivity, accountant = NULL) {
  .call_core("LaplaceNoiseReduction", accountant = .accountant(accountant),
             true_values = .to_py(true.values), eps = .to_py(eps),
             sensitivity = sensitivity, random_state = .random_state(), .caller = sys.call())
}

#' Gaussian (Brownian) noise reduction
#'
#' An extension not in Ligett et al.: releases along one Brownian path with decreasing
#' variances; the prefix up to level `t` is as private as one Gaussian release of variance
#' `variances[t]` (Whitehouse et al. 2022).
#'
#' @param true.values Numeric vector or matrix.
#' @param variances Strictly decreasing noise variances (most private first).
#' @param sensitivity l2-sensitivity of the whole `true.values`; needed to charge an
#'   accountant, which the variances alone do not allow.
#' @param accountant A [BudgetAccountant] charged the path's cost, rho-zCDP with
#'   `rho = sensitivity^2 / (2 * variances[T])` (the last, least noisy level), or `NULL` for
#'   the default accountant of [with_accountant()], if any.
#' @return As [LaplaceNoiseReduction()].
#' @references Whitehouse J, Ramdas A, Wu ZS, Rogers R (2022). Brownian noise reduction:
#'   maximizing privacy subject to accuracy constraints. NeurIPS 35.
#' @export
#' @examplesIf dppack_available()
#' GaussianNoiseReduction(c(10, 20), variances = c(4, 1, 0.25))
GaussianNoiseReduction <- function(true.values, variances, sensitivity = NULL,
                                   accountant = NULL) {
  .call_core("GaussianNoiseReduction", accountant = .accountant(accountant),
             true_values = .to_py(true.values), variances = .to_py(variances),
             sensitivity = sensitivity, random_state = .random_state(),
             .caller = sys.call())
}

#' Laplace noise reduction on demand
#'
#' The online form of [LaplaceNoiseReduction()]: start at a private level, then call
#' `$reduce(eps)` with a larger `eps` whenever a less noisy release is wanted; the releases
#' made so far cost only the current level. The object holds a copy of `true.values`.
#'
#' The fields are read-only active bindings onto the core's mechanism, which holds the state
#' once: a clone of the object (also a deep one) is another handle on the same mechanism, never
#' a second mechanism over the same noise.
#'
#' @field release The release at the current level (read-only).
#' @field eps The current level: the privacy cost of all releases so far (read-only).
#' @field levels The levels released so far (read-only).
#' @field privacy What all the releases so far cost together, a
#'   [privacy_loss][privacy_loss_pure] (read-only).
#' @export
#' @examplesIf dppack_available()
#' nr <- LaplaceNoiseReductionOnline$new(c(10, 20), eps = 0.1, sensitivity = 1)
#' nr$release
#' nr$reduce(1)
LaplaceNoiseReductionOnline <- R6::R6Class(
  "LaplaceNoiseReductionOnline",
  inherit = CoreObject,
  public = list(
    #' @description Draw the first release.
    #' @param true.values Numeric vector or matrix.
    #' @param eps The first (most private) level.
    #' @param sensitivity l1-sensitivity of the whole `true.values`.
    #' @param accountant A [BudgetAccountant] charged `eps` now, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    initialize = function(true.values, eps, sensitivity, accountant = NULL) {
      private$new_core(
        sys.call(-1), "LaplaceNoiseReductionOnline", accountant = .accountant(accountant),
        true_values = .to_py(true.values), eps = eps, sensitivity = sensitivity,
        random_state = .random_state()
      )
    },
    #' @description Reduce the noise to the level `eps` and return the new release. The
    #'   accountant charged by `$new()`, if any, is charged before noise is drawn: the
    #'   increment `eps` minus the current level (never rounded down) when its delta is 0;
    #'   when its delta is above 0, its one entry `"LaplaceNoiseReductionOnline"` is
    #'   restated as the whole `eps` (all the releases so far cost `eps` together, Ligett et
    #'   al. 2017, Theorem 2.7) and added to the total of the accountant's other spends by
    #'   basic composition (eps's add), never through zCDP: the path's loss is at most `eps`
    #'   at every outcome, but the path is not `eps^2 / 2`-zCDP. The entry only grows: a copy
    #'   of the object that another copy has moved past cannot reduce.
    #' @param eps A level larger than the current one.
    reduce = function(eps) {
      .call_core("reduce", eps = eps, .object = private$own_core(), .caller = sys.call(-1))
      self$release
    }
  ),
  active = c(
    .core_bindings(c(release = "release", eps = "eps"), "result"),
    .privacy_field,
    list(levels = function(value) {
      .read_only(value, "levels")
      unlist(private$own_core()$levels)
    })
  ),
  private = list(
    shared = TRUE # one mechanism: reduce() changes it in place, and clones share it
  )
)

#' Accuracy-first private regression
#'
#' Fits a model whose excess empirical risk is at most `alpha` with probability at least
#' `1 - gamma`, spending as little privacy as the data allow, and reports the privacy loss
#' actually spent (ex-post privacy; Ligett et al. 2017). Hypotheses of increasing privacy level
#' come from one noise-reduction path (covariance perturbation for `model = "ridge"`, output
#' perturbation for `"logistic"`); InteractiveAboveThreshold tests their excess risk and stops
#' at the first that passes. `doubling_erm()` (independent fits at doubling `eps`, each tested)
#' and `theory_erm()` (one fit at the `eps` a utility theorem gives) are the baselines.
#'
#' Bounds follow DPpack: `X` is clipped to the column bounds (ridge: `y` to the last bound)
#' and scaled inside (ridge rows to l1-norm at most 1 and `|y| <= 1`; logistic rows to
#' l2-norm at most 1, labels 0/1). `alpha` is the excess of the regularised risk
#' `mean(loss) + lambda / 2 * ||theta||^2` of that clipped, scaled problem; `coeff` acts on the
#' raw `X` (bias first). Note: `gamma` is the failure probability here, not DPpack's
#' regularisation constant, which is `lambda`.
#'
#' Exactness: output perturbation's sensitivity (logistic) assumes the exact minimiser; it is
#' computed by Newton's method and released only if its gradient norm is at most `1e-6 / n`
#' (else an error, before any noise is drawn), a slack the sensitivities include (`1 + 1e-6`
#' times the exact one for the coefficients, plus `(1e-6 / n)^2 / (2 * lambda)` for the
#' queries). The ridge hypotheses solve a trust-region problem and are projected onto the
#' ball `||theta|| <= R` the queries' sensitivity assumes. When no level passes, the warning
#' is about accuracy only: the returned model is private and its `eps` spent.
#'
#' @param X Numeric matrix or data frame, n x p.
#' @param y Responses (ridge) or 0/1 labels (logistic).
#' @param model `"ridge"` or `"logistic"`.
#' @param alpha Target excess empirical risk.
#' @param lambda Regularisation weight.
#' @param upper.bounds,lower.bounds Bounds of the columns of `X` (ridge: then of `y`).
#' @param add.bias Prepend a column of ones; its coefficient comes first.
#' @param gamma Failure probability.
#' @param n.levels Number of privacy levels of the grid.
#' @param calibration Calibration of the accuracy tests (see [above_threshold_calibration()]):
#'   `"exact"` (the default) chooses the threshold and the split of the test budget of least
#'   cost whose exact worst-case failure probability is at most `gamma`, about 4 times cheaper
#'   than `"paper"` (Algorithm 3 of Ligett et al., a union bound); `"tuned"` is the authors'
#'   code (reproduces their figures, not proven). `doubling_erm()` calibrates its Laplace tests
#'   the same way (`"tuned"` is `"paper"` there).
#' @param eps.min,eps.max Grid ends (defaults `1/n` and 4 times the theory `eps`).
#' @param accountant A [BudgetAccountant] charged the call's ex-ante bound, or `NULL` for the
#'   default accountant of [with_accountant()], if any.
#' @return An object of class `accuracy_first`: a list with `coeff`, `theta` (coefficients of
#'   the scaled problem), `success` (`FALSE` when no level met the target: the model is then
#'   not certified and the privacy is still spent), `stop.index` (1-based level),
#'   `eps.level`, `eps.generation`, `eps.test`, `eps` (the ex-post loss, their sum),
#'   `method`, `model`, `alpha`, `gamma`, `n.levels`, and `privacy`, the
#'   [privacy_loss][privacy_loss_pure] charged to the accountant: the most the call can spend,
#'   fixed before the data are read (the ex-post `eps` is a bound read off the outcome).
#' @references Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
#'   differential privacy level for accuracy-constrained ERM. NeurIPS 30.
#' @export
#' @examplesIf dppack_available()
#' set.seed(3)
#' X <- matrix(stats::runif(2000, -1, 1), ncol = 2)  # after set.seed
#' y <- as.numeric(X %*% c(0.5, -0.3) + stats::rnorm(1000, sd = 0.1))  # seed above
#' accuracy_first_erm(X, y, "ridge", alpha = 0.05, lambda = 0.1,
#'                    upper.bounds = c(1, 1, 1), lower.bounds = c(-1, -1, -1))
accuracy_first_erm <- function(X, y, model, alpha, lambda, upper.bounds, lower.bounds,
                               add.bias = FALSE, gamma = 0.1, n.levels = 1000,
                               calibration = "exact", eps.min = NULL, eps.max = NULL,
                               accountant = NULL) {
  .accuracy_first_call("accuracy_first_erm", X, y, model, alpha, lambda, upper.bounds,
                       lower.bounds, add.bias, accountant, gamma = gamma, n_levels = n.levels,
                       calibration = calibration, eps_min = eps.min, eps_max = eps.max)
}

#' @rdname accuracy_first_erm
#' @export
doubling_erm <- function(X, y, model, alpha, lambda, upper.bounds, lower.bounds,
                         add.bias = FALSE, gamma = 0.1, eps.min = NULL, eps.max = NULL,
                         calibration = "exact", accountant = NULL) {
  .accuracy_first_call("doubling_erm", X, y, model, alpha, lambda, upper.bounds, lower.bounds,
                       add.bias, accountant, gamma = gamma, calibration = calibration,
                       eps_min = eps.min, eps_max = eps.max)
}

#' @rdname accuracy_first_erm
#' @export
theory_erm <- function(X, y, model, alpha, lambda, upper.bounds, lower.bounds,
                       add.bias = FALSE, accountant = NULL) {
  .accuracy_first_call("theory_erm", X, y, model, alpha, lambda, upper.bounds, lower.bounds,
                       add.bias, accountant)
}

#' Sensitivities and calibrations of accuracy-first ERM
#'
#' What [accuracy_first_erm()] and its baselines use for `n` rows and `d` columns (bias
#' included), without touching data: the query sensitivity, the AboveThreshold cost
#' (`eps_test`) and threshold, the theory `eps`, the grid ends and the doubling test.
#'
#' @inheritParams accuracy_first_erm
#' @param n,d Rows and columns (bias included) of the design.
#' @return A named list (`radius`, `sensitivity`, `theta.sensitivity`, `eps.theory`,
#'   `eps.min`, `eps.max`, `eps.test`, `threshold`, `threshold.share` (the share of
#'   `eps.test` spent on the threshold noise), `failure` (the test's worst-case failure
#'   probability, see [above_threshold_failure()]), `doubling.levels`, `doubling.eps.test`,
#'   `doubling.threshold` (a doubling fit passes when its noisy excess risk is at most this)).
#' @export
#' @examplesIf dppack_available()
#' accuracy_first_parameters("ridge", alpha = 0.05, lambda = 0.005, n = 1e5, d = 77)$eps.test
accuracy_first_parameters <- function(model, alpha, lambda, n, d, gamma = 0.1,
                                      n.levels = 1000, calibration = "exact", eps.min = NULL,
                                      eps.max = NULL) {
  # `name =` in full: a bare `n =` would partially match .call_core's `name`
  params <- .call_core(
    name = "accuracy_first_parameters", model = model, alpha = alpha, lambda_ = lambda, n = n,
    d = d, gamma = gamma, n_levels = n.levels, calibration = calibration, eps_min = eps.min,
    eps_max = eps.max, .caller = sys.call()
  )
  .dotted_names(params)
}

#' Calibrations of the accuracy tests of accuracy-first ERM
#'
#' The AboveThreshold test of [accuracy_first_erm()] asks at most `n.levels` queries
#' `-(excess risk)` of sensitivity `sensitivity` and halts at the first whose noisy value is
#' above the noisy threshold; the doubling baseline tests each of `n.tests` fits with the
#' Laplace mechanism. The run fails when (a) it halts at a model with excess risk above
#' `alpha`, or (b) it has not halted by the first model with excess risk 0.
#' `above_threshold_failure()` computes the worst-case probability of a failure, exactly (one
#' integral over the threshold noise, by adaptive quadrature) instead of the union bound of
#' Dwork and Roth (2014, Theorem 3.24) that Ligett et al. (2017) use.
#' `above_threshold_calibration()` and `laplace_test_calibration()` give the test budget and
#' threshold: `"exact"` minimises the budget subject to that probability being at most
#' `gamma` (about 4 times less than `"paper"` for AboveThreshold, 20 percent less for the
#' doubling tests); `"paper"` is Ligett et al.'s Algorithm 3; `"tuned"` the authors' code (for
#' AboveThreshold; its failure probability can exceed `gamma`).
#'
#' @param alpha Target excess empirical risk.
#' @param gamma Failure probability; at least 1e-20 for `"exact"` (a small `gamma` such as
#'   1e-12 works; the failure probabilities are computed relative to their size).
#' @param sensitivity Sensitivity of the excess-risk queries.
#' @param n.levels,n.tests,n.queries The number of queries (levels, or doubling tests).
#' @param calibration `"exact"`, `"paper"` or `"tuned"`.
#' @param threshold The threshold `W` on `-(excess risk)`.
#' @param threshold.scale,query.scale Laplace scales of the threshold noise (0: none, as the
#'   doubling tests) and of each query's noise.
#' @return `above_threshold_calibration()`: a named list with `eps` (the AboveThreshold
#'   budget), `threshold`, `threshold.share` (the share of `eps` spent on the threshold noise)
#'   and `failure`. `laplace_test_calibration()`: `eps` (per test), `threshold` (a fit passes
#'   when its noisy excess risk is at most this) and `failure`.
#'   `above_threshold_failure()`: `failure`, and the probabilities of the two worst cases,
#'   `all.above` (every excess just above `alpha`) and `perfect.last` (all but the last just
#'   above `alpha`, the last 0).
#' @references Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
#'   differential privacy level for accuracy-constrained ERM. NeurIPS 30.
#'
#'   Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.24.
#' @export
#' @examplesIf dppack_available()
#' exact <- above_threshold_calibration(0.1, 0.05, 0.01, n.levels = 100)
#' paper <- above_threshold_calibration(0.1, 0.05, 0.01, n.levels = 100, calibration = "paper")
#' c(exact = exact$eps, paper = paper$eps)
#' above_threshold_failure(0.1, paper$threshold, 0.01 / (paper$threshold.share * paper$eps),
#'                         2 * 0.01 / ((1 - paper$threshold.share) * paper$eps), 100)$failure
above_threshold_calibration <- function(alpha, gamma, sensitivity, n.levels,
                                        calibration = "exact") {
  .dotted_names(.call_core("above_threshold_calibration", alpha = alpha, gamma = gamma,
                           sensitivity = sensitivity, n_levels = n.levels,
                           calibration = calibration, .caller = sys.call()))
}

#' @rdname above_threshold_calibration
#' @export
laplace_test_calibration <- function(alpha, gamma, sensitivity, n.tests,
                                     calibration = "exact") {
  .dotted_names(.call_core("laplace_test_calibration", alpha = alpha, gamma = gamma,
                           sensitivity = sensitivity, n_tests = n.tests,
                           calibration = calibration, .caller = sys.call()))
}

#' @rdname above_threshold_calibration
#' @export
above_threshold_failure <- function(alpha, threshold, threshold.scale, query.scale,
                                    n.queries) {
  .dotted_names(.call_core("above_threshold_failure", alpha = alpha, threshold = threshold,
                           threshold_scale = threshold.scale, query_scale = query.scale,
                           n_queries = n.queries, .caller = sys.call()))
}

# A core dict as an R list with dotted names (eps_test -> eps.test), as the result fields.
.dotted_names <- function(x) {
  stats::setNames(x, gsub("_", ".", names(x), fixed = TRUE))
}

# The call shared by accuracy_first_erm(), doubling_erm() and theory_erm(): the accountant
# first, their common arguments, their own in `...`, and the call's random state, as the
# user's call one frame up; the result as an "accuracy_first" list.
.accuracy_first_call <- function(name, X, y, model, alpha, lambda, upper.bounds, lower.bounds,
                                 add.bias, accountant, ...) {
  caller <- sys.call(-1)
  result <- .call_core(
    name, accountant = .accountant(accountant), X = .to_py(X), y = .to_py(y), model = model,
    alpha = alpha, lambda_ = lambda, upper_bounds = .to_py(upper.bounds),
    lower_bounds = .to_py(lower.bounds), add_bias = .to_py(add.bias), ...,
    random_state = .random_state(), .caller = caller
  )
  .accuracy_first_result(result, caller)
}

# The core's AccuracyFirstResult as an R list of class "accuracy_first" (1-based stop.index).
.accuracy_first_result <- function(result, caller) {
  # as_dict() takes no argument and cannot fail: called directly (the bridge needs a keyword)
  fields <- .drop_1d(result$as_dict())
  structure(
    list(
      coeff = fields$coeff, theta = fields$theta, success = fields$success,
      stop.index = if (is.null(fields$stop_index)) NULL else fields$stop_index + 1L,
      eps = fields$eps, eps.level = fields$eps_level,
      eps.generation = fields$eps_generation, eps.test = fields$eps_test,
      method = fields$method, model = fields$model, alpha = fields$alpha,
      gamma = fields$gamma, n.levels = fields$n_levels, privacy = .core_privacy(result)
    ),
    class = "accuracy_first"
  )
}

#' @export
print.accuracy_first <- function(x, ...) {
  cat(sprintf("Accuracy-first %s (%s): target alpha = %g %s\n", x$model, x$method, x$alpha,
              if (isTRUE(x$success)) "met" else "NOT met: no level passed the test"))
  cat(sprintf("ex-post eps = %.4g (generation %.4g + test %.4g)", x$eps, x$eps.generation,
              x$eps.test))
  if (!is.null(x$stop.index)) {
    cat(sprintf("; stopped at level %d of %d (eps %.4g)", x$stop.index, x$n.levels,
                x$eps.level))
  }
  cat("\ncoeff:", format(x$coeff, digits = 4), "\n")
  invisible(x)
}

#' InteractiveAboveThreshold
#'
#' AboveThreshold whose queries may be chosen after seeing earlier answers (Ligett et al.
#' 2017, Algorithm 2): the threshold gets Laplace noise of scale `2 * sensitivity / eps` once,
#' when the object is made; each query value `f(data)` gets fresh Laplace noise of scale
#' `4 * sensitivity / eps`, and the mechanism halts at the first query whose noisy value is at
#' least the noisy threshold. With fixed queries of sensitivity at most `sensitivity` this is
#' `eps`-DP; when the queries come from an `(eps_1, ..., eps_T)` prefix-private mechanism (such
#' as [LaplaceNoiseReduction()]), halting at query `t` costs `eps + eps_t` ex post.
#' [accuracy_first_erm()] uses it to test hypotheses; [accuracy_first_parameters()] gives its
#' calibrations (`eps.test`, `threshold`).
#'
#' A query is a number, the value `f(data)` computed by the caller, or an R function of the
#' data, evaluated in R on `data` as given (a data frame stays a data frame). All noise is drawn
#' by the core: the threshold noise by `$new()` (reproducible only under [with_random_state()],
#' or [set.seed()] with `options(DPpackPy.reproducible = TRUE)`),
#' the query noise by each `$query()` from the same stream, also after `with_random_state()`
#' has returned. Invalid settings and invalid query values stop before any noise is drawn.
#'
#' The fields are read-only active bindings onto the core's mechanism, which holds the state
#' once: a clone of the object (also a deep one) is another handle on the same mechanism, never
#' a second mechanism over the same noise.
#'
#' The budget is split between the threshold noise, Laplace of scale
#' `sensitivity / (threshold.share * eps)`, and the query noise, of scale
#' `2 * sensitivity / ((1 - threshold.share) * eps)`; any split is `eps`-DP (Lyu, Su and Li
#' 2017), the default `0.5` is the scales above. [above_threshold_calibration()] gives the
#' split of the `"exact"` calibration.
#'
#' @field eps The budget, as the core checked it (read-only).
#' @field threshold The threshold, as the core checked it (read-only).
#' @field sensitivity The queries' sensitivity, as the core checked it (read-only).
#' @field halted `TRUE` once a query passed; no query is answered after that (read-only).
#' @field n.queries Number of queries answered (read-only).
#' @field halt.index 1-based index of the query that passed (`NULL` before; read-only).
#' @field answers The answers so far (logical, one per query; read-only).
#' @field privacy What the mechanism costs, `eps` however many queries it answers, a
#'   [privacy_loss][privacy_loss_pure] (read-only).
#' @references Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
#'   differential privacy level for accuracy-constrained ERM. NeurIPS 30.
#'
#'   Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Section 3.6.
#' @export
#' @examplesIf dppack_available()
#' x <- c(0.2, 0.9, 0.4, 0.7, 0.8)
#' # the first cut-off with about half of x above it; a share has sensitivity 1 / length(x)
#' iat <- InteractiveAboveThreshold$new(x, eps = 5, threshold = 0.5, sensitivity = 1 / 5)
#' iat$query(mean(x > 0.95))  # a value computed beforehand
#' for (cut in c(0.85, 0.6, 0.3)) {
#'   if (!iat$halted) iat$query(function(d) mean(d > cut))  # an R function of the data
#' }
#' iat$answers
#' iat$halt.index
InteractiveAboveThreshold <- R6::R6Class(
  "InteractiveAboveThreshold",
  inherit = CoreObject,
  public = list(
    #' @description Check the settings and draw the threshold noise.
    #' @param data The data, handed to every query function (any R object).
    #' @param eps The AboveThreshold budget, > 0.
    #' @param threshold The threshold W, a finite number.
    #' @param sensitivity The largest sensitivity of any query, > 0.
    #' @param threshold.share The share of `eps` spent on the threshold noise, in (0, 1).
    #' @param accountant A [BudgetAccountant] charged `eps` now, or `NULL` for the default
    #'   accountant of [with_accountant()], if any.
    initialize = function(data, eps, threshold, sensitivity, threshold.share = 0.5,
                          accountant = NULL) {
      # The core never sees the data: query functions run in R (see query()).
      private$new_core(
        sys.call(-1), "InteractiveAboveThreshold", accountant = .accountant(accountant),
        data = NULL, eps = eps, threshold = threshold, sensitivity = sensitivity,
        threshold_share = threshold.share, random_state = .random_state()
      )
      private$data <- data
    },
    #' @description Answer a query: `TRUE` if its noisy value is above the noisy threshold,
    #'   which halts the mechanism.
    #' @param f A number, or an R function of the data returning one number.
    query = function(f) {
      # An R function runs here, on the R data, so that it sees the data as the user gave it
      # and its errors are plain R errors; the core checks the value it returns (one finite
      # number) and adds the noise. Once halted, the function is not run: the core refuses.
      # The value goes as reticulate converts it (not .to_py): an R list or a longer vector
      # becomes a Python list, which the core refuses.
      value <- if (is.function(f) && !self$halted) f(private$data) else f
      if (is.function(value)) {
        value <- NaN  # a function is not a query value: the core refuses NaN
      }
      .call_core("query", f = value, .object = private$own_core(), .caller = sys.call())
    }
  ),
  active = c(
    .core_bindings(c(eps = "eps", threshold = "threshold", sensitivity = "sensitivity",
                     halted = "halted", n.queries = "n_queries"), "result"),
    .privacy_field,
    list(
      halt.index = function(value) {
        .read_only(value, "halt.index")
        index <- private$own_core()$halt_index
        if (is.null(index)) NULL else as.integer(index) + 1L
      },
      # Every query before the halt was answered FALSE, the one that halted it TRUE.
      answers = function(value) {
        .read_only(value, "answers")
        seq_len(private$own_core()$n_queries) %in% self$halt.index
      }
    )
  ),
  private = list(
    shared = TRUE, # one mechanism: query() changes it in place, and clones share it
    data = NULL
  )
)
