#' Accuracy report of a release: the interval of its noise, at no privacy cost
#'
#' The half-width `h` of the `(1 - alpha)` interval of a release's noise, from the release's
#' public arguments only (the budget, the bounds, the public sample size, the mechanism):
#' `abs(release - true value) <= h` with probability at least `1 - alpha`. No data are read
#' and no noise is drawn, so it spends nothing; the releases themselves are unchanged
#' (DPpack's plain numbers). The core computes everything (`dppack.noiseIntervalDP`).
#'
#' Each report below is derived in the guide page `docs/python/guide/accuracy.rst` (one
#' section per heading); this page says what each needs and what it means.
#'
#' **Exactness.** The releases add exact discrete noise on a fine power-of-two grid
#' (discrete Laplace for `"Laplace"`, discrete Gaussian for `"Gaussian"` and `"analytic"`;
#' Canonne, Kamath and Steinke 2020), and the half-width is read from that law with the
#' release's own grid and scale: within about a grid step of `b log(1/alpha)` (Laplace, scale
#' `b`) and `sigma qnorm(1 - alpha/2)` (Gaussian). For the counts of [histogramDP()] and
#' [tableDP()], the released (rounded) counts are within the integer `h` of the true counts,
#' per cell.
#'
#' **Vectors.** `half.width` is per value; with `simultaneous = TRUE` it holds for all
#' values at once. The cells of [histogramDP()] and [tableDP()] share one law: one number for
#' every cell, at the level of `cells` cells with `simultaneous = TRUE` (a public bound such
#' as the number of rows will do, however large).
#'
#' **Post-processing.** varDP's clamp only moves the release towards the truth. For
#' [sdDP()] `half.width` is that of the variance, and the interval of a released `s` is
#' `[sqrt(max(s^2 - h, 0)), sqrt(s^2 + h)]` (given with `released`).
#'
#' **Quantiles.** [quantileDP()] and [medianDP()] (exponential mechanism) report a rank
#' error: with probability at least `1 - alpha` the released point's rank error
#' `|#{x_i <= release} - quant n|` exceeds the smallest possible one by at most `half.width`
#' (Dwork and Roth 2014, Theorem 3.11). This worst case from public values is loose (for the
#' 532 Pima glucose values in `[50, 200]` at `eps = 1` the report is 87 ranks, while the 95th
#' percentile of the actual rank error of the median is 6 to 7). [quantilesDP()] with
#' `method = "independent"` reports the same bound at `eps / m` for all `m` quantiles at once
#' (`quants`, `method` and the bounds given; `quants` and `method` are checked by the
#' release's own checks, with its messages). With `method = "joint"` (JointExp) the report
#' needs `resolution`, the public spacing `r` of the data (the data and the bounds on the
#' grid `lower.bound + r * k`, e.g. 1 for whole numbers; a promise like the bounds;
#' `(upper.bound - lower.bound) / r` within `1e-6` of a whole number); `details$total` bounds
#' the total gap deviation beyond the best and `half.width` each quantile's rank error beyond
#' the best. Equal data should be equal numbers, and `lower.bound` spelled as the data at it.
#' With `method = "recursive"` `half.width` is per quantile (all at once with
#' `simultaneous = TRUE`), and `details` gives `eps.each`, `depth` and `weight` (plain
#' vectors, one per quantile). [boundsDP()] reports the rank error of each bound beyond the
#' best grid point's (both at once with `simultaneous = TRUE`).
#'
#' **ExponentialMechanism**: the same theorem in the utility's units (`units = "utility"`):
#' the selected candidate's utility is at most `half.width` below the best one, given `size`
#' (or `candidates`) and the utility's `sensitivity`. With a base `measure` (one weight per
#' candidate, as the release takes it) the bound depends on the ratio of its total to its
#' smallest positive weight (`details$measure.ratio`).
#'
#' **Thresholded tables.** [tableDP()] with undeclared levels (`declared = FALSE`; `declared`
#' is required unless `mechanism = "Laplace"` with `delta = 0`, where the release needs
#' declared levels) releases an observed cell only when its noisy count exceeds a threshold,
#' with noise calibrated to part of `delta`; the report uses the release's own law and
#' threshold. `half.width` is that of a released count; `details` gives `threshold` and
#' `suppressed.max`, the largest true count of a suppressed cell. For each cell, with
#' probability at least `1 - alpha` over its noise, a released count is within `half.width`
#' and a suppressed cell has a count of at most `suppressed.max` (whichever happens). This
#' is not a guarantee given that the cell was released (a cell far below the threshold is
#' released only with a large noise). With `simultaneous = TRUE`, `cells` must be a public
#' bound on the number of observed cells (e.g. the number of rows), not the number of
#' released ones. A released count is above the threshold, so a 0 in the table is a
#' suppressed or unobserved cell: with `released`, its interval is `[0, suppressed.max]`.
#'
#' **Unbounded moments.** [meanDP()], [varDP()], [sdDP()] and [covDP()] with
#' `which.sensitivity = "unbounded"` release ratios of noisy sums, whose count `N` is
#' private: `n` is then a public lower bound on the number of records (a design minimum, or a
#' privately released count minus its own report's half-width, released and charged
#' separately), and the report, a worst case over every dataset of at least `n` records,
#' holds with probability at least `coverage` (the probability that every noisy part lies
#' within its half-width). `details` gives `n` and the parts' half-widths
#' (`half.width.sum`, `half.width.count`, ...). The bound is a few times the actual error;
#' for small `n` it is the clamp's range. `"both"` gives the two reports.
#'
#' **Pooled statistics, unbounded.** The `"unbounded"` [pooledVarDP()] and [pooledCovDP()]
#' release noisy sums and counts of each sample, whose sizes are private: `sizes` are then
#' public lower bounds on them, and the report, a worst case, holds for every dataset with
#' at least that many records per sample (`details`: `sizes` and the parts' half-widths).
#'
#' **Proportions.** For [histogramDP()] with `normalize = TRUE` (give `normalize`, `n`,
#' the breaks and the bounds, and `allow.negative` as the release has them; the number of
#' cells is the release's, computed from the breaks and bounds, or from a rule and the public
#' `n` under `"bounded"`, and a `cells` that differs is refused; only for a rule under
#' `"unbounded"` give `cells`, that of the released histogram): every proportion is within
#' `half.width` of the truth (`units = "proportion"`) when every noisy count is within its
#' half-width `a` (`details$half.width.count`) and there are at least `n` records (under
#' `"unbounded"` a public lower bound); `n <= cells * a` is refused (the noisy total could be
#' 0 and the release `NaN`).
#'
#' **Not covered** (an error): quantilesDP's joint method without `resolution`. Every other
#' release has a report.
#'
#' **Size and range.** A report describes `size` values: a mechanism's `size` (its noise is
#' calibrated for all its values: with `released`, `size` defaults to `length(released)` for
#' [LaplaceMechanism()] and [GaussianMechanism()]), 1 for a scalar statistic, `cells` for
#' histogramDP's proportions and for simultaneous counts, any number (`NA`) for per-cell
#' counts; a `released` of another length is refused, saying what to pass. `released` must
#' be numeric and finite (a histogram gives its counts); `lower` and `upper` keep its names
#' and a table's dims. Where the arguments give a range holding the truth (`range`: counts
#' `>= 0`, proportions in `[0, 1]`, a mean in its bounds, a variance or covariance within
#' the largest the bounded data allow), the interval is intersected with it (the truth lies
#' in both, so the coverage is kept). A required argument left out is named first
#' (`"lower.bound is required for meanDP."`).
#' For histogramDP, `breaks` go through the release's own parsing and checks (a function
#' needs `lower.bound` and `upper.bound`).
#'
#' @param statistic The release: `"LaplaceMechanism"`, `"GaussianMechanism"`, `"meanDP"`,
#'   `"varDP"`, `"sdDP"`, `"covDP"`, `"pooledVarDP"`, `"pooledCovDP"`, `"histogramDP"`,
#'   `"tableDP"`, `"quantileDP"`, `"medianDP"`, `"quantilesDP"`, `"ExponentialMechanism"` or
#'   `"boundsDP"`.
#' @param eps The release's privacy budget.
#' @param ... The release's other public arguments, named as it names them, with the data
#'   replaced by their public size: `n` (meanDP, varDP, sdDP, covDP, required: with
#'   `which.sensitivity = "unbounded"` or `"both"` a public lower bound on the number of
#'   records; optional and without effect for quantiles; histogramDP with
#'   `normalize = TRUE`), `sizes`
#'   (pooledVarDP, pooledCovDP: the size of each sample; under `"unbounded"` a public lower
#'   bound on each), `size`
#'   (LaplaceMechanism, GaussianMechanism: the number of true values, by default the number
#'   of sensitivities; ExponentialMechanism: the number of candidates), `cells`
#'   (histogramDP, tableDP, with `simultaneous = TRUE`; histogramDP with `normalize =
#'   TRUE`), `normalize` and `allow.negative` (histogramDP), `declared` (tableDP: `TRUE` when
#'   every factor is a factor, declaring its levels; `FALSE` for the thresholded release of
#'   undeclared levels, which needs `delta > 0`), and
#'   `lower.bound`, `upper.bound` (or the four bounds), `which.sensitivity`, `mechanism`,
#'   `delta`, `type.DP`, `sensitivities`, `alloc.proportions`, `analytic`, `tol`,
#'   `approx.n.max`, `breaks` (a rule name or the breaks), `quant` (quantileDP, required),
#'   `quants`, `method`,
#'   `resolution` (quantilesDP, `method = "joint"`: the data's public spacing), `grid`
#'   (boundsDP), `sensitivity`, `candidates` and `measure` (ExponentialMechanism: `size`,
#'   `candidates` or `measure`), as the release takes them. Accepted without effect on the
#'   report: `allow.negative` (tableDP), `mechanism = "exponential"` (quantileDP, medianDP),
#'   `n` (quantiles, boundsDP: it only fixes the utilities' grid).
#' @param alpha In `(0, 1)`; the interval holds with probability at least `1 - alpha`.
#' @param simultaneous `TRUE` for one half-width that holds for all the values of a vector
#'   release at once.
#' @param released Optional: the value(s) released (numeric, finite, as many as the report
#'   describes; a histogram gives its counts), to get the interval around them (`lower`,
#'   `upper`, clipped to `range`, in the shape of `released`). For LaplaceMechanism and
#'   GaussianMechanism it sets `size` to `length(released)` unless `size` is given.
#' @return A list of class `"noiseIntervalDP"`: `statistic`, `half.width` (per value; one
#'   number for every cell of histogramDP and tableDP, whose cells share one law, whatever
#'   `cells`, which is then in `details`), `alpha`, `simultaneous`, `coverage` (the exact
#'   `P(|Z| <= T)` per value; for the unbounded ratios and the proportions the exact
#'   probability that all their noises are within their half-widths at once; `NA` for the
#'   exponential mechanism), `scale` (the noise's `b`
#'   or `sigma` in the data's units; `NA` where the report is not read from a scale: the
#'   exponential mechanism, the counts and proportions of histogramDP and tableDP, the
#'   unbounded ratios of noisy sums),
#'   `grid` (`NA` for quantilesDP's joint method), `law` (with `" (ratio of noisy sums)"`
#'   or `" (proportions of noisy counts)"` for those reports), `units` (`"value"`,
#'   `"count"`, `"proportion"`, `"rank"` or
#'   `"utility"`), `details` (a named list of the other public quantities the report rests
#'   on, when there are any), `size` (the number of values it describes, `NA` for any),
#'   `range` (the public range of the truth, when known), and
#'   with `released`, `lower` and `upper`.
#'   For `which.sensitivity = "both"` (histogramDP, tableDP, meanDP, varDP, sdDP, covDP,
#'   pooledVarDP, pooledCovDP), a
#'   list of two such reports,
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
  # Load the core before converting anything (as .call_core does): a conversion would
  # otherwise start Python through reticulate's own discovery, not DPpackPy's.
  .core()
  if (inherits(released, "histogram")) {
    released <- released$counts # histogramDP's result: the report is of its counts
  }
  # A mechanism's noise is calibrated for all its values: by default the report is for as
  # many values as were released (the argument is passed; the core computes).
  if (!is.null(released) && is.character(statistic) && length(statistic) == 1 &&
      statistic %in% c("LaplaceMechanism", "GaussianMechanism") && !("size" %in% names(extra))) {
    extra$size <- length(released)
  }
  extra <- lapply(extra, .to_py)
  names(extra) <- gsub(".", "_", names(extra), fixed = TRUE)
  caller <- sys.call()
  # name = exactly: a release argument `n` would otherwise match .call_core's `name`.
  value <- do.call(.call_core, c(
    list(name = "noiseIntervalDP", statistic = .to_py(statistic), eps = .to_py(eps),
         alpha = .to_py(alpha), simultaneous = .to_py(simultaneous)),
    extra, list(.caller = sys.call())
  ), quote = TRUE) # quote: the caller is a call, not to be evaluated
  if (inherits(value, "python.builtin.object")) {
    return(.noise_interval_from_py(value, released, caller))
  }
  lapply(value, .noise_interval_from_py, released = released, caller = caller)
}

# A dppack.NoiseInterval as the R list (field names in R's dotted spelling); the interval
# around `released` is the core's.
.noise_interval_from_py <- function(report, released = NULL, caller = sys.call(-1)) {
  fields <- report$to_dict() # the core is imported with conversion
  out <- list(
    statistic = fields$statistic, half.width = as.numeric(fields$half_width),
    alpha = fields$alpha, simultaneous = fields$simultaneous,
    coverage = as.numeric(fields$coverage), scale = as.numeric(fields$scale),
    grid = as.numeric(fields$grid), law = fields$law, units = fields$units
  )
  # The report's other public quantities (a ratio's parts, a threshold ...), dotted names.
  details <- fields$details
  if (length(details)) {
    names(details) <- gsub("_", ".", names(details), fixed = TRUE)
    # plain vectors: a numpy array arrives as a 1-d array (`num [1:3(1d)]`), a Python list
    # of numbers as a list
    out$details <- lapply(details, function(v) {
      if (is.list(v) && all(vapply(v, function(e) is.atomic(e) && length(e) == 1, TRUE))) {
        v <- unlist(v)
      }
      if (is.array(v) && length(dim(v)) == 1) as.vector(v) else v
    })
  }
  out$coverage[is.nan(out$coverage)] <- NA
  out$scale[is.nan(out$scale)] <- NA
  out$grid[is.nan(out$grid)] <- NA
  # How many values the report describes (NA: any number of cells, the same law per cell)
  # and the public range of the truth that clips the interval (NULL when there is none).
  out$size <- if (is.null(fields$size)) {
    NA_integer_
  } else if (fields$size > .Machine$integer.max) {
    as.numeric(fields$size) # cells = 1e12: beyond R's integers
  } else {
    as.integer(fields$size)
  }
  out$range <- if (is.null(fields$range)) NULL else as.numeric(unlist(fields$range))
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
    # The core checks the values (numeric, finite, as many as the report describes): no
    # coercion here. The bounds keep the release's shape (names, a table's dims).
    bounds <- .call_core("interval", .positional = list(.to_py(as.vector(released))),
                         .object = report, .caller = caller)
    shape <- function(v) {
      v <- as.numeric(unlist(v))
      if (length(v) == length(released)) {
        attributes(v) <- attributes(released)[intersect(names(attributes(released)),
                                                        c("dim", "dimnames", "names"))]
      }
      v
    }
    out$lower <- shape(bounds[[1]])
    out$upper <- shape(bounds[[2]])
  }
  structure(out, class = "noiseIntervalDP")
}

#' @export
print.noiseIntervalDP <- function(x, ...) {
  shown <- function(v) {
    v <- unlist(v)
    if (!is.numeric(v) && !is.logical(v)) {
      return(paste(v, collapse = ", "))
    }
    if (length(v) <= 10) {
      return(paste(format(v, digits = 6, trim = TRUE), collapse = " "))
    }
    sprintf("%d values in [%s, %s]", length(v), format(min(v), digits = 6),
            format(max(v), digits = 6))
  }
  level <- paste0(format(100 * (1 - x$alpha)), "%")
  joint <- if (isTRUE(x$simultaneous)) ", all values at once" else ""
  head <- switch(
    x$units,
    rank = sprintf("%s bound%s: rank error beyond the best point at most %s", level, joint,
                   shown(x$half.width)),
    utility = sprintf("%s bound: utility shortfall at most %s", level, shown(x$half.width)),
    sprintf("%s noise interval%s, half-width %s (%s)", level, joint, shown(x$half.width),
            x$units)
  )
  cat(sprintf("%s: %s\n  law: %s\n", x$statistic, head, x$law))
  for (name in names(x$details)) {
    cat(sprintf("  %s: %s\n", name, shown(x$details[[name]])))
  }
  if (!is.null(x$range)) {
    cat(sprintf("  range of the truth: [%s, %s]\n", format(x$range[1], digits = 6),
                format(x$range[2], digits = 6)))
  }
  if (!is.null(x$lower)) {
    if (length(x$lower) == 1) {
      cat(sprintf("  interval: [%s, %s]\n", format(x$lower, digits = 6),
                  format(x$upper, digits = 6)))
    } else {
      cat("  interval (lower, upper):\n")
      shown_bounds <- cbind(lower = as.vector(x$lower), upper = as.vector(x$upper))
      rownames(shown_bounds) <- names(x$lower)
      print(shown_bounds, digits = 6)
    }
  }
  invisible(x)
}
