#' Accuracy report of a release: the interval of its noise, at no privacy cost
#'
#' The half-width `h` of the `(1 - alpha)` interval of a release's noise, from the release's
#' public arguments only (the budget, the bounds, the public sample size, the mechanism):
#' `abs(release - true value) <= h` with probability at least `1 - alpha`. No data are read
#' and no noise is drawn, so it spends nothing; the releases themselves are unchanged
#' (DPpack's plain numbers). The core computes everything (`dppack.noiseIntervalDP`).
#'
#' **Exactness.** The releases add exact discrete noise on a fine power-of-two grid `g`
#' (discrete Laplace for `"Laplace"`, discrete Gaussian for `"Gaussian"` and `"analytic"`;
#' Canonne, Kamath and Steinke 2020). The half-width comes from that law, with the grid and
#' scale of the release's own calibration: `T` is the smallest integer with
#' `P(|Z| <= T) >= 1 - alpha` for the integer noise `Z`, and `h = g (T + 1/2)` (half a step
#' for rounding the true value to the grid). These are the discrete forms of `b log(1/alpha)`
#' (Laplace, scale `b`) and `sigma qnorm(1 - alpha/2)` (Gaussian), within about a grid step.
#' For the counts of [histogramDP()] and [tableDP()], the released (rounded) counts are
#' within the integer `h` of the true counts, per cell.
#'
#' **Vectors.** `half.width` is per value; with `simultaneous = TRUE` it holds for all
#' values at once (per-value level `1 - (1 - alpha)^(1/m)`, exact for independent noises).
#'
#' **Post-processing.** varDP's clamp only moves the release towards the truth. For
#' [sdDP()] `half.width` is that of the variance, and the interval of a released `s` is
#' `[sqrt(max(s^2 - h, 0)), sqrt(s^2 + h)]` (given with `released`).
#'
#' **Quantiles.** [quantileDP()] and [medianDP()] (exponential mechanism) report a rank
#' error: with probability at least `1 - alpha` the released point's rank error
#' `|#{x_i <= release} - quant n|` exceeds the smallest possible one by at most
#' `(2 Delta' / eps)(log |R| + log(1/alpha))` plus `2^-20`, with `|R|` the release's grid
#' points between the bounds and `Delta' = 1 + 2^-20` (Dwork and Roth 2014, Theorem 3.11).
#' This is a worst-case guarantee from public values only, and loose: `|R|` is the release's
#' grid of about `2^59` points (`log |R|` about 41 whatever the data), so typical rank errors
#' are much smaller (for the 532 Pima glucose values in `[50, 200]` at `eps = 1` the report is
#' 87 ranks, while the 95th percentile of the actual rank error of the median is 6 to 7).
#' [quantilesDP()] with `method = "independent"` reports the same bound at `eps / m` for all
#' `m` quantiles at once (`quants`, `method` and the bounds given; `quants` and `method` are
#' checked by the release's own checks, with its messages).
#'
#' **ExponentialMechanism** (uniform measure): the same theorem in the utility's units. With
#' `size` candidates and the utility's `sensitivity`, with probability at least `1 - alpha`
#' the selected candidate's utility is at most `(2 Delta' / eps)(log(size) + log(1/alpha)) + h`
#' below the best one, `h <= sensitivity / 2^20` the release's grid of the utilities and
#' `Delta' = (ceiling(sensitivity / h) + 1) h` (`units = "utility"`; for utilities below
#' `sensitivity * 2^979` in absolute value, beyond which the release coarsens its grid).
#'
#' **Not covered** (an error): the `"unbounded"` releases of meanDP, varDP, sdDP, covDP,
#' pooledVarDP and pooledCovDP (ratios of noisy sums); tableDP with undeclared levels
#' (`declared = FALSE`; `declared` is required unless `mechanism = "Laplace"` with
#' `delta = 0`, where the release needs declared levels), whose release thresholds its cells
#' (a suppressed cell errs by up to the threshold) with noise calibrated to part of `delta`;
#' quantilesDP's joint and recursive methods; ExponentialMechanism with a `measure` (the
#' theorem then needs the measure of the best candidates, which depends on the data).
#' [boundsDP()] has no report: each of its two selections obeys the same theorem
#' (sensitivity 1, `|R|` its grid's size, `eps / 2`) but only against the best grid point,
#' whose own rank error depends on the data and the grid's spacing, and its fix-up of
#' `upper <= lower` moves `upper` beyond it.
#' For histogramDP the report is for the counts (`normalize = FALSE`); `breaks` go through
#' the release's own parsing and checks (a function needs `lower.bound` and `upper.bound`).
#'
#' @param statistic The release: `"LaplaceMechanism"`, `"GaussianMechanism"`, `"meanDP"`,
#'   `"varDP"`, `"sdDP"`, `"covDP"`, `"pooledVarDP"`, `"pooledCovDP"`, `"histogramDP"`,
#'   `"tableDP"`, `"quantileDP"`, `"medianDP"`, `"quantilesDP"` or `"ExponentialMechanism"`.
#' @param eps The release's privacy budget.
#' @param ... The release's other public arguments, named as it names them, with the data
#'   replaced by their public size: `n` (meanDP, varDP, sdDP, covDP; optional for
#'   quantiles), `sizes` (pooledVarDP, pooledCovDP: the size of each sample), `size`
#'   (LaplaceMechanism, GaussianMechanism: the number of true values, by default the number
#'   of sensitivities; ExponentialMechanism: the number of candidates), `cells`
#'   (histogramDP, tableDP, with `simultaneous = TRUE`), `declared` (tableDP: `TRUE` when
#'   every factor is a factor, declaring its levels), and
#'   `lower.bound`, `upper.bound` (or the four bounds), `which.sensitivity`, `mechanism`,
#'   `delta`, `type.DP`, `sensitivities`, `alloc.proportions`, `analytic`, `tol`,
#'   `approx.n.max`, `breaks` (a rule name or the breaks), `quant`, `quants`, `method` and
#'   `sensitivity` (ExponentialMechanism), as the release takes them.
#' @param alpha In `(0, 1)`; the interval holds with probability at least `1 - alpha`.
#' @param simultaneous `TRUE` for one half-width that holds for all the values of a vector
#'   release at once.
#' @param released Optional: the value(s) released, to get the interval around them
#'   (`lower`, `upper`).
#' @return A list of class `"noiseIntervalDP"`: `statistic`, `half.width` (per value),
#'   `alpha`, `simultaneous`, `coverage` (the exact `P(|Z| <= T)` per value; `NA` for
#'   the exponential mechanism), `scale` (the noise's `b` or `sigma` in the data's units),
#'   `grid`, `law`, `units` (`"value"`, `"count"`, `"rank"` or `"utility"`), and with
#'   `released`, `lower` and `upper`.
#'   For `which.sensitivity = "both"` (histogramDP, tableDP), a list of two such reports,
#'   `Bounded` and `Unbounded`.
#' @references Dwork C, Roth A (2014), The algorithmic foundations of differential privacy,
#'   Theorem 3.11. Canonne C L, Kamath G, Steinke T (2020), The discrete Gaussian for
#'   differential privacy.
#' @seealso [meanDP()], [histogramDP()], [LaplaceMechanism()]
#' @export
#' @examplesIf dppack_available()
#' x <- c(3.1, 4.7, 2.2, 5.9, 4.4, 3.8, 5.1, 2.9, 4.0, 3.5)
#' m <- meanDP(x, eps = 1, lower.bound = 0, upper.bound = 10)
#' r <- noiseIntervalDP("meanDP", eps = 1, n = length(x), lower.bound = 0, upper.bound = 10,
#'                      released = m)
#' r$half.width # log(1/0.05) * 10 / 10 / 1
#' c(r$lower, r$upper)
#' noiseIntervalDP("GaussianMechanism", eps = 0.5, delta = 1e-5, sensitivities = c(1, 1),
#'                 simultaneous = TRUE)$half.width
#' noiseIntervalDP("histogramDP", eps = 1)$half.width
#' noiseIntervalDP("medianDP", eps = 1, lower.bound = 0, upper.bound = 10)$half.width
noiseIntervalDP <- function(statistic, eps, ..., alpha = 0.05, simultaneous = FALSE,
                            released = NULL) {
  extra <- list(...)
  if (length(extra) && (is.null(names(extra)) || any(names(extra) == ""))) {
    stop(simpleError("The release's arguments in ... must be named.", call = sys.call()))
  }
  extra <- lapply(extra, .to_py)
  names(extra) <- gsub(".", "_", names(extra), fixed = TRUE)
  # name = exactly: a release argument `n` would otherwise match .call_core's `name`.
  value <- do.call(.call_core, c(
    list(name = "noiseIntervalDP", statistic = .to_py(statistic), eps = .to_py(eps),
         alpha = .to_py(alpha), simultaneous = .to_py(simultaneous)),
    extra, list(.caller = sys.call())
  ), quote = TRUE) # quote: the caller is a call, not to be evaluated
  if (inherits(value, "python.builtin.object")) {
    return(.noise_interval_from_py(value, released))
  }
  lapply(value, .noise_interval_from_py, released = released)
}

# A dppack.NoiseInterval as the R list (field names in R's dotted spelling); the interval
# around `released` is the core's.
.noise_interval_from_py <- function(report, released = NULL) {
  fields <- report$to_dict() # the core is imported with conversion
  out <- list(
    statistic = fields$statistic, half.width = as.numeric(fields$half_width),
    alpha = fields$alpha, simultaneous = fields$simultaneous,
    coverage = as.numeric(fields$coverage), scale = as.numeric(fields$scale),
    grid = as.numeric(fields$grid), law = fields$law, units = fields$units
  )
  out$coverage[is.nan(out$coverage)] <- NA
  out$scale[is.nan(out$scale)] <- NA
  if (!is.null(released)) {
    if (identical(out$units, "rank")) {
      stop(simpleError(paste("A quantile's report is a bound on its rank error, not an",
                             "interval of values: leave released NULL."), call = NULL))
    }
    if (identical(out$units, "utility")) {
      stop(simpleError(paste("ExponentialMechanism's report is a bound on the utility",
                             "shortfall of the selected candidate, not an interval of",
                             "values: leave released NULL."), call = NULL))
    }
    bounds <- report$interval(.to_py(as.numeric(released)))
    out$lower <- as.numeric(bounds[[1]])
    out$upper <- as.numeric(bounds[[2]])
  }
  structure(out, class = "noiseIntervalDP")
}

#' @export
print.noiseIntervalDP <- function(x, ...) {
  h <- x$half.width
  shown <- if (length(h) == 1) format(h, digits = 6) else paste(length(h), "values")
  cat(sprintf("%s: %s%% noise interval, half-width %s (%s; %s%s)\n", x$statistic,
              format(100 * (1 - x$alpha)), shown, x$units, x$law,
              if (isTRUE(x$simultaneous)) ", simultaneous" else ""))
  if (!is.null(x$lower)) {
    cat("interval:", format(x$lower, digits = 6), "to", format(x$upper, digits = 6), "\n")
  }
  invisible(x)
}
