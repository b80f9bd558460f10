# Private descriptive statistics: DPpack 0.2.2's signatures; the core computes everything.

# The call shared by meanDP, varDP and sdDP, whose arguments are the same. It is called by
# those functions only, so the core's errors name the user's call (see .call_core).
.univariate <- function(name, x, eps, lower.bound, upper.bound, which.sensitivity, mechanism,
                        delta, type.DP) {
  caller <- sys.call(-1)
  .call_core(
    name, .caller = caller,
    x = .to_py(x), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP), random_state = .random_state()
  )
}

#' Differentially private mean
#'
#' Clips `x` to `[lower.bound, upper.bound]` and releases its mean with noise calibrated to the
#' sensitivity `(upper.bound - lower.bound) / n` (the same for bounded and unbounded DP).
#'
#' @param x Numeric vector or matrix (a matrix is averaged over all its entries).
#' @param eps Privacy budget, a finite scalar > 0.
#' @param lower.bound,upper.bound Scalars bounding the data; values outside are clipped.
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (which, for this
#'   statistic, warns and returns one value).
#' @param mechanism `'Laplace'`, `'Gaussian'` or `'analytic'` (analytic Gaussian).
#' @param delta Privacy parameter of the Gaussian mechanisms, in (0, 1).
#' @param type.DP `'aDP'` or `'pDP'`, for `mechanism = 'Gaussian'`; ignored by `'analytic'`.
#' @return The sanitized mean.
#' @seealso [varDP()], [sdDP()], [covDP()], [quantileDP()]
#' @export
#' @examplesIf dppack_available()
#' x <- c(1.2, 3.4, 2.2, 5.0, 4.1)
#' meanDP(x, eps = 1, lower.bound = 0, upper.bound = 6)
#' meanDP(x, eps = 0.9, lower.bound = 0, upper.bound = 6, mechanism = "Gaussian",
#'        delta = 0.01)
meanDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                   mechanism = "Laplace", delta = 0, type.DP = "aDP") {
  .univariate("meanDP", x, eps, lower.bound, upper.bound, which.sensitivity, mechanism, delta,
              type.DP)
}

#' Differentially private variance
#'
#' Clips `x` and releases its sample variance (denominator n - 1) with noise calibrated to the
#' sensitivity `(upper.bound - lower.bound)^2 / n`; the noisy value is redrawn until it is
#' positive, as in DPpack.
#'
#' @inheritParams meanDP
#' @param x Numeric vector.
#' @return The sanitized variance.
#' @export
#' @examplesIf dppack_available()
#' varDP(c(1.2, 3.4, 2.2, 5.0, 4.1), eps = 1, lower.bound = 0, upper.bound = 6)
varDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                  mechanism = "Laplace", delta = 0, type.DP = "aDP") {
  .univariate("varDP", x, eps, lower.bound, upper.bound, which.sensitivity, mechanism, delta,
              type.DP)
}

#' Differentially private standard deviation
#'
#' The square root of [varDP()] with the same arguments.
#'
#' @inheritParams varDP
#' @return The sanitized standard deviation.
#' @export
#' @examplesIf dppack_available()
#' sdDP(c(1.2, 3.4, 2.2, 5.0, 4.1), eps = 1, lower.bound = 0, upper.bound = 6)
sdDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                 mechanism = "Laplace", delta = 0, type.DP = "aDP") {
  .univariate("sdDP", x, eps, lower.bound, upper.bound, which.sensitivity, mechanism, delta,
              type.DP)
}

#' Differentially private covariance
#'
#' Clips `x1` and `x2` to their bounds and releases their sample covariance with noise
#' calibrated to `(upper.bound1 - lower.bound1) * (upper.bound2 - lower.bound2) / n`.
#'
#' @inheritParams meanDP
#' @param x1,x2 Numeric vectors of the same length.
#' @param lower.bound1,upper.bound1 Bounds of `x1`.
#' @param lower.bound2,upper.bound2 Bounds of `x2`.
#' @return The sanitized covariance.
#' @export
#' @examplesIf dppack_available()
#' covDP(c(1, 4, 3, 2), c(-2, -3, -4, -1), eps = 1, lower.bound1 = 0, upper.bound1 = 5,
#'       lower.bound2 = -5, upper.bound2 = 0)
covDP <- function(x1, x2, eps, lower.bound1, upper.bound1, lower.bound2, upper.bound2,
                  which.sensitivity = "bounded", mechanism = "Laplace", delta = 0,
                  type.DP = "aDP") {
  .call_core(
    "covDP",
    x1 = .to_py(x1), x2 = .to_py(x2), eps = .to_py(eps),
    upper_bound1 = .to_py(upper.bound1), lower_bound1 = .to_py(lower.bound1),
    upper_bound2 = .to_py(upper.bound2), lower_bound2 = .to_py(lower.bound2),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP), random_state = .random_state()
  )
}

#' Differentially private histogram
#'
#' Clips `x`, computes `hist(x, breaks)` as R does, extends the bins to cover the bounds, and
#' adds noise to every count (sensitivity 2 bounded and 1 unbounded for Laplace; sqrt(2) and 1
#' for the Gaussian mechanisms). Negative counts become 0 unless `allow.negative`; then the
#' counts are rounded, or, with `normalize`, divided by their sum (proportions summing to 1).
#' The break points themselves are computed from the data and are not private unless given
#' as a vector.
#'
#' @inheritParams meanDP
#' @param breaks As in [graphics::hist()]: `"Sturges"`, `"Scott"`, `"FD"`, a number of cells, a
#'   vector of break points, or a function of `x`. Bins must be equidistant.
#' @param normalize If `TRUE`, return proportions instead of counts.
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (a list of two histograms).
#' @param allow.negative If `TRUE`, keep negative noisy counts.
#' @return An object of class `"histogram"` that [plot()] draws, or for `'both'` a list of two
#'   of class `"Sanitized Histogram"`.
#' @export
#' @examplesIf dppack_available()
#' set.seed(1)
#' x <- stats::rnorm(100, 3, 2)
#' h <- histogramDP(x, eps = 1, lower.bound = -3, upper.bound = 9)
#' plot(h)
histogramDP <- function(x, eps, lower.bound, upper.bound, breaks = "Sturges",
                        normalize = FALSE, which.sensitivity = "bounded",
                        mechanism = "Laplace", delta = 0, type.DP = "aDP",
                        allow.negative = FALSE) {
  value <- .call_core(
    "histogramDP",
    x = .to_py(x), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    breaks = .to_py(breaks), normalize = .to_py(normalize),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP),
    allow_negative = .to_py(allow.negative), random_state = .random_state()
  )
  if (identical(which.sensitivity, "both")) {
    return(.both(value, "Sanitized Histogram", .as_histogram))
  }
  .as_histogram(value)
}

#' Differentially private contingency table
#'
#' Computes `table(...)` and adds noise to every cell (sensitivity 2 bounded and 1 unbounded
#' for Laplace; sqrt(2) and 1 for the Gaussian mechanisms), then rounds and, unless
#' `allow.negative`, sets negative cells to 0. The cells (the factors' levels) are not private.
#'
#' @inheritParams histogramDP
#' @param ... Vectors or factors of equal length, as for [table()]. NA is refused.
#' @param eps Privacy budget, a finite scalar > 0 (must be named, as it follows `...`).
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (a list of two tables).
#' @return A `table` with the dimnames `table(...)` would have, or for `'both'` a list of two
#'   of class `"Sanitized Contingency Table"`.
#' @export
#' @examplesIf dppack_available()
#' smoker <- c("yes", "no", "no", "yes", "no", "no")
#' sex <- c("f", "m", "f", "f", "m", "m")
#' tableDP(smoker, sex, eps = 1)
tableDP <- function(..., eps = 1, which.sensitivity = "bounded", mechanism = "Laplace",
                    delta = 0, type.DP = "aDP", allow.negative = FALSE) {
  arg_names <- .table_names(as.list(substitute(list(...)))[-1])
  factors <- .as_factors(list(...))
  value <- .call_core(
    "tableDP",
    eps = .to_py(eps), which_sensitivity = .to_py(which.sensitivity),
    mechanism = .to_py(mechanism), delta = .to_py(delta), type_DP = .to_py(type.DP),
    allow_negative = .to_py(allow.negative), random_state = .random_state(),
    .positional = lapply(factors, .factor_to_py)
  )
  as_table <- function(cells) .as_table(cells, factors, arg_names)
  if (identical(which.sensitivity, "both")) {
    return(.both(value, "Sanitized Contingency Table", as_table))
  }
  as_table(value)
}

#' Differentially private pooled variance
#'
#' The pooled variance `sum((n_j - 1) s_j^2) / (N - J)` of J samples, clipped to the bounds,
#' with noise calibrated to its bounded or unbounded sensitivity (spec: DPpack's formulas); the
#' noisy value is redrawn until it is positive.
#'
#' @inheritParams meanDP
#' @param ... Numeric vectors, one per sample.
#' @param eps Privacy budget (must be named, as it follows `...`).
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'`: a list of class
#'   `"Sanitized Pooled Variance"` when the two sensitivities differ, else a warning and one
#'   value.
#' @param approx.n.max If `TRUE`, use the sensitivity that does not depend on the largest
#'   sample size (which is then not released).
#' @return The sanitized pooled variance, or a list for `'both'`.
#' @export
#' @examplesIf dppack_available()
#' pooledVarDP(c(1, 4, -2, 8, -6), c(1, 2), c(-5, -7), eps = 1, lower.bound = -10,
#'             upper.bound = 10)
pooledVarDP <- function(..., eps = 1, lower.bound, upper.bound,
                        which.sensitivity = "bounded", mechanism = "Laplace", delta = 0,
                        type.DP = "aDP", approx.n.max = FALSE) {
  value <- .call_core(
    "pooledVarDP",
    eps = .to_py(eps),
    lower_bound = .to_py(lower.bound), upper_bound = .to_py(upper.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP),
    approx_n_max = .to_py(approx.n.max), random_state = .random_state(),
    .positional = lapply(list(...), .to_py)
  )
  if (is.list(value)) {
    return(.both(value, "Sanitized Pooled Variance"))
  }
  value
}

#' Differentially private pooled covariance
#'
#' The pooled covariance of J two-column samples, each column clipped to its bounds, with
#' noise calibrated to its bounded or unbounded sensitivity.
#'
#' @inheritParams pooledVarDP
#' @param ... Two-column numeric matrices, one per sample.
#' @param lower.bound1,upper.bound1 Bounds of the first column.
#' @param lower.bound2,upper.bound2 Bounds of the second column.
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (a list of class
#'   `"Sanitized Pooled Covariance"`).
#' @return The sanitized pooled covariance, or a list for `'both'`.
#' @export
#' @examplesIf dppack_available()
#' x1 <- matrix(c(1, 4, -2, 8, -6, -3), ncol = 2)
#' x2 <- matrix(c(1, 2, -5, 7), ncol = 2)
#' pooledCovDP(x1, x2, eps = 1, lower.bound1 = -10, upper.bound1 = 10,
#'             lower.bound2 = -10, upper.bound2 = 10)
pooledCovDP <- function(..., eps = 1, lower.bound1, upper.bound1, lower.bound2, upper.bound2,
                        which.sensitivity = "bounded", mechanism = "Laplace", delta = 0,
                        type.DP = "aDP", approx.n.max = FALSE) {
  value <- .call_core(
    "pooledCovDP",
    eps = .to_py(eps),
    lower_bound1 = .to_py(lower.bound1), lower_bound2 = .to_py(lower.bound2),
    upper_bound1 = .to_py(upper.bound1), upper_bound2 = .to_py(upper.bound2),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP),
    approx_n_max = .to_py(approx.n.max), random_state = .random_state(),
    .positional = lapply(list(...), .to_py)
  )
  if (is.list(value)) {
    return(.both(value, "Sanitized Pooled Covariance"))
  }
  value
}

#' Differentially private quantile
#'
#' Selects an interval between consecutive order statistics of the clipped data with the
#' exponential mechanism (utility `-|k - quant * n|`, sensitivity 1, the interval widths as
#' base measure; Smith 2011), then draws the release uniformly within it.
#'
#' @inheritParams meanDP
#' @param quant Quantile in \[0, 1\].
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (identical here: warns).
#' @param mechanism Only `'exponential'`.
#' @return The sanitized quantile.
#' @references Smith A (2011). Privacy-preserving statistical estimation with optimal
#'   convergence rates. STOC.
#' @export
#' @examplesIf dppack_available()
#' quantileDP(c(1, 1, -2, 8, -6), quant = 0.25, eps = 1, lower.bound = -10, upper.bound = 10)
quantileDP <- function(x, quant, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                       mechanism = "exponential") {
  .call_core(
    "quantileDP",
    x = .to_py(x), quant = .to_py(quant), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    random_state = .random_state()
  )
}

#' Differentially private median
#'
#' [quantileDP()] at `quant = 0.5`.
#'
#' @inheritParams quantileDP
#' @return The sanitized median.
#' @export
#' @examplesIf dppack_available()
#' medianDP(c(1, 1, -2, 8, -6), eps = 1, lower.bound = -10, upper.bound = 10)
medianDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                     mechanism = "exponential") {
  .call_core(
    "medianDP",
    x = .to_py(x), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    random_state = .random_state()
  )
}
