# Stability-based private validation (Chaudhuri and Vinterbo 2013): the core selects and
# retrains; R converts arguments and results only.

#' Stability-based private tuning of classification models
#'
#' Trains every candidate model on the whole training set at its full `eps`, selects one with
#' a noisy maximum of its validation score (budget `eps.select`) and retrains the selected
#' model with fresh noise (Chaudhuri and Vinterbo 2013, Algorithms 1 and 2). The whole call is
#' `(eps + eps.select, delta)`-differentially private, whatever the number of candidates.
#' Unlike [tune_classification_model()], no candidate is trained on a fraction of the data;
#' the price is the selection's sensitivity `max(2 / min(gamma), beta2 / m)`, so this procedure
#' is the better one for large training sets, data splitting for small ones (see
#' `vignette("stable-validation")`).
#'
#' Before any data value is read, the call checks from public values (the sizes of `X` and
#' of the validation set, the gammas, `eps.select`, `delta`) whether the selection can be
#' more than a coin toss, and warns when it is near uniform: even a candidate beating all
#' others by the whole range of the ramp score (by 1 for the hinge and logistic scores, whose
#' losses can differ by more) would be chosen almost as often as a uniform choice would
#' (total variation distance from uniform below 0.1). The warning names the smallest
#' `min(gamma)` and `eps.select` that would help; see
#' [stability_selection_diagnosis()]. Prefer data splitting ([tune_classification_model()])
#' when the grid reaches small gammas (for the ramp score and 10 candidates, below about
#' `1.5 / eps.select` the selection is near uniform, and realistic score differences of a
#' few hundredths are resolved only for `min(gamma)` in the tens or more), when the
#' training set is small, or when pure eps-DP is needed; more data do not help, since the
#' selection's sensitivity `2 / min(gamma)` does not depend on `n`.
#'
#' What is shared: with `noise = "shared"` one standardised noise vector R (density
#' proportional to `exp(-||r||)`) is drawn once and every candidate uses `R / rate`, its own
#' noise rate (`eps' / 2` for objective, `gamma * eps / (2 * (1 + 1e-6))` for output
#' perturbation, see [EmpiricalRiskMinimizationDP.CMS]); with
#' `"independent"` each candidate draws its own R, as in the paper. The final model always
#' gets fresh noise. Only the selected model is fitted; the other models are left unchanged.
#'
#' @param DPmodels A list of [LogisticRegressionDP] or linear-kernel [svmDP] models with the
#'   same finite `eps` and `regularizer = "l2"`.
#' @param X,y Data and 0/1 labels.
#' @param upper.bounds,lower.bounds Bounds of the columns of `X`.
#' @param eps.select Budget of the selection.
#' @param add.bias Passed to each model's `fit()`.
#' @param delta Overall delta of the selection.
#' @param validation.fraction Share of the rows held out for validation (every
#'   `1 / validation.fraction`-th row, interleaved), unless `X.validation` is given.
#' @param X.validation,y.validation Optional separate validation data (disjoint from `X`).
#' @param score Validation loss: `"ramp"` (bounded, default), `"hinge"` or `"logistic"`.
#' @param selector `"exponential_noise"` (the paper's), `"gumbel"` (the exponential
#'   mechanism) or `"laplace"`.
#' @param noise `"shared"` or `"independent"`.
#' @inheritParams LaplaceMechanism
#' @return The selected model, fitted.
#' @section Warning: A warning "The selection is near uniform ..." (a Python
#'   `NearUniformSelectionWarning`) says that the selection will be close to a random pick,
#'   whatever the data; silence it with [suppressWarnings()] if that is what you want.
#' @references Chaudhuri K, Vinterbo SA (2013). A stability-based validation procedure for
#'   differentially private machine learning. NIPS 26.
#' @export
#' @examplesIf dppack_available()
#' set.seed(4)
#' X <- matrix(stats::runif(4000, -1, 1), ncol = 2)
#' y <- as.integer(X[, 1] + X[, 2] + stats::rnorm(2000, sd = 0.3) > 0)
#' models <- lapply(c(10, 100, 1000), function(g) LogisticRegressionDP$new("l2", 1, g))
#' best <- tune_classification_model_stable(models, X, y, c(1, 1), c(-1, -1),
#'                                          eps.select = 1)
#' best$gamma
tune_classification_model_stable <- function(DPmodels, X, y, upper.bounds, lower.bounds,
                                             eps.select, add.bias = FALSE,
                                             delta = 0.01, validation.fraction = 0.2,
                                             X.validation = NULL, y.validation = NULL,
                                             score = "ramp",
                                             selector = "exponential_noise",
                                             noise = "shared", accountant = NULL) {
  .select_model(
    "tune_classification_model_stable", DPmodels, accountant, X = .to_py(X), y = .to_py(y),
    upper_bounds = .to_py(upper.bounds), lower_bounds = .to_py(lower.bounds),
    eps_select = .to_py(eps.select), add_bias = .to_py(add.bias), delta = .to_py(delta),
    validation_fraction = .to_py(validation.fraction), X_validation = .to_py(X.validation),
    y_validation = .to_py(y.validation), score = .to_py(score), selector = .to_py(selector),
    noise = .to_py(noise), caller = sys.call()
  )
}

#' Is stability-based selection more than a coin toss?
#'
#' From public values only (no data), how far the choice of
#' [tune_classification_model_stable()] can be from a uniform pick among the candidates.
#' Its noise, of scale `2 * beta / eps.select`, is calibrated to the sensitivity
#' `beta = max(beta1 / n, beta2 / m)` of the validation scores (Chaudhuri and Vinterbo 2013,
#' Theorems 1 and 4), and `beta1 / n = 2 / min(gammas)`: one small gamma in the grid makes the
#' noise swamp every score difference.
#'
#' The distance from uniform is the largest total variation distance between the
#' selection's distribution and a uniform choice, over all validation scores within
#' `score.gap` of each other (by default `min(beta2, 1)`: for the ramp score its whole range,
#' the most favourable case; for the hinge and logistic scores 1, though their losses can
#' differ by up to `beta2`). It is the most by which the selection can improve, in
#' expectation, any measure of the candidates' quality with range `[0, 1]` (held-out accuracy,
#' say) over a random pick. The verdict is `"near uniform"` when it is below 0.1: the
#' selection then gains at most a tenth of the quality range between the candidates, while it
#' costs `eps.select` and `delta` (a random pick costs neither). For the ramp score the
#' default gap is the most favourable case, so `"near uniform"` is certain; for the hinge and
#' logistic scores it says that mean losses up to 1 apart (a trivial classifier against a
#' perfect one) are not resolved, while losses further apart would be chosen more often.
#' `"informative"` only says that large score differences would be detected:
#' `utility.slack` and `score.gap` tell about realistic ones.
#'
#' Prefer data splitting ([tune_classification_model()]) when the verdict is
#' `"near uniform"` and `min(gamma)` cannot be raised: more data do not help, because
#' `2 / min(gamma)` does not depend on `n`.
#'
#' @param gammas The candidates' `gamma` values.
#' @param n,m Training and validation set sizes (with `validation.fraction = f` and `N` rows,
#'   `m = floor(N * f)` and `n = N - m`).
#' @param d Number of coefficients (columns of `X`, plus one with `add.bias`).
#' @param eps The candidates' training budget (it enters `beta2` only, for the hinge and
#'   logistic scores or gammas above `n`).
#' @param eps.select The selection budget.
#' @param delta Overall delta of the selection.
#' @param score,selector As for [tune_classification_model_stable()].
#' @param score.gap The difference of validation scores to assess; `NULL` (default):
#'   `min(beta2, 1)`, the whole range of the ramp score (the most favourable case), and 1 for
#'   the unbounded hinge and logistic scores (more than separates a trivial classifier from a
#'   perfect one; their range `beta2` bounds the coefficients' norm and is far larger than
#'   most real differences, but not a bound on them: not the most favourable case).
#'   Realistic differences of mean ramp losses are a few hundredths.
#' @return A list of class `"stability_selection_diagnosis"`: `verdict` (`"near uniform"`,
#'   `"informative"` or `"one candidate"`), `k`, `gamma.min`, `beta1`, `beta2`,
#'   `sensitivity` (beta), `score.gap`, `noise.scale` (`2 * beta / eps.select`),
#'   `best.probability` (the largest probability any candidate can have of being chosen;
#'   uniform: `1 / k`), `distance.from.uniform`, `utility.slack` (the chosen score is within
#'   it of the best with probability at least 0.95 whatever the scores:
#'   `2 * beta * log(k / 0.05) / eps.select` for the exponential noise, Theorem 3, and the
#'   exponential mechanism, Dwork and Roth 2014, Theorem 3.11; for Laplace noise, which
#'   neither covers, the exact worst case by quadrature), `gamma.min.needed` and
#'   `eps.select.needed` (the smallest values, each with the others unchanged, at which the
#'   selection is no longer near uniform; `NULL` when none is), `eps.select`, `selector`,
#'   `threshold` (0.1) and `text` (the diagnosis in words, which `print()` shows).
#' @references Chaudhuri K, Vinterbo SA (2013). A stability-based validation procedure for
#'   differentially private machine learning. NIPS 26.
#'
#'   Dwork C, Roth A (2014). The Algorithmic Foundations of Differential Privacy,
#'   Theorem 3.11.
#' @export
#' @examplesIf dppack_available()
#' # DPpack-style gammas on 50,000 rows: a coin toss
#' stability_selection_diagnosis(10^(-2:4), n = 40000, m = 10000, d = 9, eps = 1,
#'                               eps.select = 1)
#' # gamma >= 50: informative
#' stability_selection_diagnosis(c(50, 100, 1000), n = 40000, m = 10000, d = 9, eps = 1,
#'                               eps.select = 1)$verdict
stability_selection_diagnosis <- function(gammas, n, m, d, eps, eps.select, delta = 0.01,
                                          score = "ramp", selector = "exponential_noise",
                                          score.gap = NULL) {
  # `name =` spelled out: the argument `n` would otherwise partially match it
  result <- .call_core(
    name = "stability_selection_diagnosis", gammas = .to_py(as.numeric(gammas)),
    n = .to_py(n), m = .to_py(m), d = .to_py(d), eps = .to_py(eps),
    eps_select = .to_py(eps.select), delta = .to_py(delta), score = .to_py(score),
    selector = .to_py(selector), score_gap = .to_py(score.gap), .caller = sys.call()
  )
  # as_dict() and describe() cannot fail on a result: called directly
  fields <- .drop_1d(result$as_dict())
  names(fields) <- gsub("_", ".", names(fields), fixed = TRUE)
  fields$text <- result$describe("r")
  structure(fields, class = "stability_selection_diagnosis")
}

#' @export
print.stability_selection_diagnosis <- function(x, ...) {
  cat(x$text, "\n", sep = "")
  invisible(x)
}

#' Private histogram with a privately selected bin width
#'
#' Chaudhuri and Vinterbo's histogram density estimator (2013, appendix): noisy bin counts
#' `max(0, n_i + Laplace(2 / eps.train))` over equal bins of `[lower.bound, upper.bound]`,
#' the bin width chosen among `bin.widths` by stability-based validation on held-out data, then
#' the histogram rebuilt with fresh noise. The call is `(eps.train + eps.select,
#' delta)`-differentially private.
#'
#' @param x Numeric data; clipped to the bounds.
#' @param bin.widths Candidate bin widths as fractions of the range (`1 / h` whole numbers).
#' @param eps.train,eps.select Budgets of the histogram and of the selection.
#' @param lower.bound,upper.bound The known range of the data.
#' @param delta Overall delta of the selection.
#' @param validation.fraction Share of `x` held out (interleaved), unless `x.validation`
#'   is given.
#' @param x.validation Optional separate validation sample.
#' @param selector,noise As for [tune_classification_model_stable()]; the shared noise is one
#'   sequence of standard Laplace values.
#' @inheritParams LaplaceMechanism
#' @return An object of class `"histogram"` (noisy counts, not rounded); the density is
#'   `counts / (sum(counts) * diff(breaks))`.
#' @export
#' @examplesIf dppack_available()
#' set.seed(5)
#' x <- stats::rbeta(5000, 2, 5)
#' h <- tune_histogram_bin_width_stable(x, c(0.5, 0.1, 0.05, 0.02), 1, 1)
#' diff(h$breaks)[1]
tune_histogram_bin_width_stable <- function(x, bin.widths, eps.train, eps.select,
                                            lower.bound = 0, upper.bound = 1, delta = 0.01,
                                            validation.fraction = 0.2, x.validation = NULL,
                                            selector = "exponential_noise",
                                            noise = "shared", accountant = NULL) {
  value <- .call_core(
    "tune_histogram_bin_width_stable", accountant = .accountant(accountant),
    x = .to_py(x),
    bin_widths = .to_py(as.numeric(bin.widths)), eps_train = .to_py(eps.train),
    eps_select = .to_py(eps.select), lower_bound = .to_py(lower.bound),
    upper_bound = .to_py(upper.bound), delta = .to_py(delta),
    validation_fraction = .to_py(validation.fraction), x_validation = .to_py(x.validation),
    selector = .to_py(selector), noise = .to_py(noise), random_state = .random_state()
  )
  .as_histogram(value)
}

#' Stability constants of the validation scores
#'
#' `stability_constants_linear()` gives Theorem 4's `(beta1, beta2)` for regularised linear
#' classifiers (`lambda.min` is the smallest `gamma / n`); `stability_constants_histogram()`
#' Theorem 6's for histograms (an error when `n` is too small). The selection's sensitivity
#' is `max(beta1 / n, beta2 / m)`.
#'
#' @param lambda.min Smallest regularisation weight (DPpack's `gamma` divided by `n`).
#' @param h.min Smallest bin width (fraction of the range).
#' @param n,m Training and validation sizes.
#' @param d Number of coefficients (bias included).
#' @param k Number of candidates.
#' @param eps Training budget.
#' @param delta Overall delta.
#' @param score `"ramp"`, `"hinge"` or `"logistic"`.
#' @return A numeric vector `c(beta1, beta2)`.
#' @export
#' @examplesIf dppack_available()
#' stability_constants_linear(0.001, 15216, 1902, 10, 10, 1, 0.01)
#' stability_constants_histogram(0.01, 10000, 2000, 5, 1, 0.01)
stability_constants_linear <- function(lambda.min, n, m, d, k, eps, delta,
                                       score = "ramp") {
  # `name =` spelled out: the argument `n` would otherwise partially match it
  value <- .call_core(
    name = "stability_constants_linear", lambda_min = .to_py(lambda.min), n = .to_py(n),
    m = .to_py(m), d = .to_py(d), k = .to_py(k), eps = .to_py(eps),
    delta = .to_py(delta), score = .to_py(score)
  )
  unlist(value)
}

#' @rdname stability_constants_linear
#' @export
stability_constants_histogram <- function(h.min, n, m, k, eps, delta) {
  value <- .call_core(
    name = "stability_constants_histogram", h_min = .to_py(h.min), n = .to_py(n),
    m = .to_py(m), k = .to_py(k), eps = .to_py(eps), delta = .to_py(delta)
  )
  unlist(value)
}

#' Privacy of a whole tuning procedure
#'
#' The `(eps, delta)` of the selection procedures compared by Chaudhuri and Vinterbo
#' (2013): `"stability"` (Algorithm 2, Theorem 2: training budget `eps` plus selection
#' budget `eps.select`, with the selection's `delta`) and the baselines `"alphaSplit"`,
#' `"dataSplit"` ([tune_classification_model()]) and `"random"` (Theorem 5: `eps` with
#' `delta = 0`, training and validation data disjoint).
#'
#' @param procedure One of `"stability"`, `"alphaSplit"`, `"dataSplit"`, `"random"`.
#' @param eps The training budget (`"stability"`) or the overall budget (the baselines).
#' @param eps.select The selection budget; required for `"stability"`, ignored otherwise.
#' @param delta The selection's delta for `"stability"`.
#' @return A list with elements `eps` and `delta`.
#' @references Chaudhuri K, Vinterbo SA (2013). A stability-based validation procedure for
#'   differentially private machine learning. NIPS 26.
#' @export
#' @examplesIf dppack_available()
#' selection_privacy("stability", 0.5, eps.select = 0.5, delta = 0.01)
#' selection_privacy("dataSplit", 1)
selection_privacy <- function(procedure, eps, eps.select = NULL, delta = 0) {
  .call_core(
    name = "selection_privacy", procedure = .to_py(procedure), eps = .to_py(eps),
    eps_select = .to_py(eps.select), delta = .to_py(delta)
  )
}

#' Per-model budget under advanced composition
#'
#' The budget `e` at which `k` models trained at `e` each are together
#' `(eps, delta)`-differentially private by the advanced composition theorem (derived in the
#' guide page `docs/python/guide/stability-derivations.md`, "Per-model budget of the
#' baselines").
#'
#' @param eps The overall budget.
#' @param k The number of models.
#' @param delta The overall delta, in (0, 1).
#' @return The per-model budget (a number).
#' @references Chaudhuri K, Vinterbo SA (2013). A stability-based validation procedure for
#'   differentially private machine learning. NIPS 26.
#' @export
#' @examplesIf dppack_available()
#' advanced_composition_eps(0.3, 10, 0.01)  # 0.0303 > 0.3 / 10
#' advanced_composition_eps(1, 10, 0.01)    # 0.0944 < 1 / 10
advanced_composition_eps <- function(eps, k, delta) {
  .call_core(
    name = "advanced_composition_eps", eps = .to_py(eps), k = .to_py(k),
    delta = .to_py(delta)
  )
}
