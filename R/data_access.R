# DPpack's data-access functions: true values and sensitivities, no noise. DPpack exports
# them as internal helpers; so does DPpackPy, with the same names and list names.

#' True values and sensitivities (data access)
#'
#' The non-private layer under the private statistics: each returns the true value of a
#' statistic and its global sensitivities, as DPpack's functions of the same names (lists with
#' the same element names). They do not clip, except `quantileDataAccess()`, and add no noise.
#'
#' `histogramDataAccess()` is R's own `hist(x, breaks, plot = FALSE)` without the density:
#' its breaks, fuzz and cells come from the data, so it is not private and [histogramDP()]
#' does not use it (its breaks come from the bounds).
#'
#' `tableDataAccess()` is R's own `table(...)`, as in DPpack: a vector's levels are its
#' observed values, so the table's cells come from the data and it is not private;
#' [tableDP()] releases such data only above a threshold (or with declared factor levels).
#'
#' @param x,x1,x2 Numeric data.
#' @param lower.bound,upper.bound,lower.bound1,upper.bound1,lower.bound2,upper.bound2 Bounds.
#' @param breaks As in [graphics::hist()]: `"Sturges"`, `"Scott"`, `"FD"`, a number of
#'   cells, a vector of break points, or a function of `x`.
#' @param mechanism `'Laplace'`, `'Gaussian'` or `'analytic'`: the sensitivities of histograms
#'   and tables depend on it.
#' @param ... Vectors or factors, as for [table()].
#' @param samples A list of samples (numeric vectors, or two-column matrices for covariance).
#' @param approx.n.max As in [pooledVarDP()].
#' @param quant Quantile in \[0, 1\].
#' @return A named list: `True.Values` and `Sensitivity`; or `True.Values`,
#'   `Bounded.Sensitivities` and `Unbounded.Sensitivities`; for quantiles `Utility`, `Sorted`
#'   and `Sensitivity`.
#' @name dataAccess
#' @keywords internal
#' @examplesIf dppack_available()
#' meanDataAccess(c(1, 4, 3, 2), 0, 5)
#' quantileDataAccess(c(1, 1, -2, 8, -6), 0.25, -10, 10)
NULL

#' @rdname dataAccess
#' @export
meanDataAccess <- function(x, lower.bound, upper.bound) {
  .call_core("meanDataAccess", x = .to_py(x), lower_bound = .to_py(lower.bound),
             upper_bound = .to_py(upper.bound))
}

#' @rdname dataAccess
#' @export
varDataAccess <- function(x, lower.bound, upper.bound) {
  .call_core("varDataAccess", x = .to_py(x), lower_bound = .to_py(lower.bound),
             upper_bound = .to_py(upper.bound))
}

#' @rdname dataAccess
#' @export
covDataAccess <- function(x1, x2, lower.bound1, upper.bound1, lower.bound2, upper.bound2) {
  .call_core("covDataAccess", x1 = .to_py(x1), x2 = .to_py(x2),
             lower_bound1 = .to_py(lower.bound1), upper_bound1 = .to_py(upper.bound1),
             lower_bound2 = .to_py(lower.bound2), upper_bound2 = .to_py(upper.bound2))
}

#' @rdname dataAccess
#' @export
histogramDataAccess <- function(x, breaks, mechanism) {
  value <- .call_core("histogramDataAccess", x = .to_py(x), breaks = .to_py(breaks),
                      mechanism = .to_py(mechanism))
  value$True.Values <- .as_histogram(value$True.Values, integer_counts = TRUE)
  value
}

#' @rdname dataAccess
#' @export
tableDataAccess <- function(..., mechanism = "Laplace") {
  arg_names <- .table_names(as.list(substitute(list(...)))[-1])
  factors <- .as_factors(list(...))
  value <- .call_core("tableDataAccess", mechanism = .to_py(mechanism),
                      .positional = lapply(factors, .factor_to_py))
  value$True.Values <- .as_table(value$True.Values, factors, arg_names,
                                 integer_counts = TRUE)
  value
}

#' @rdname dataAccess
#' @export
pooledVarDataAccess <- function(samples, lower.bound, upper.bound, approx.n.max) {
  .call_core("pooledVarDataAccess", samples = lapply(samples, .to_py),
             lower_bound = .to_py(lower.bound), upper_bound = .to_py(upper.bound),
             approx_n_max = .to_py(approx.n.max))
}

#' @rdname dataAccess
#' @export
pooledCovDataAccess <- function(samples, lower.bound1, upper.bound1, lower.bound2,
                                upper.bound2, approx.n.max) {
  .call_core("pooledCovDataAccess", samples = lapply(samples, .to_py),
             lower_bound1 = .to_py(lower.bound1), upper_bound1 = .to_py(upper.bound1),
             lower_bound2 = .to_py(lower.bound2), upper_bound2 = .to_py(upper.bound2),
             approx_n_max = .to_py(approx.n.max))
}

#' @rdname dataAccess
#' @export
quantileDataAccess <- function(x, quant, lower.bound, upper.bound) {
  .call_core("quantileDataAccess", x = .to_py(x), quant = .to_py(quant),
             lower_bound = .to_py(lower.bound), upper_bound = .to_py(upper.bound))
}
