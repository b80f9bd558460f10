# Private descriptive statistics: DPpack 0.2.2's signatures; the core computes everything.

# The core's statistic `name`: the accountant first (checked before anything is converted),
# the statistic's own arguments in `...` (converted by the caller; the samples of the pooled
# statistics and the factors of tableDP in `.positional`), DPpack's settings of the mechanism
# and the call's random state, as the user's call `.caller`.
.statistic <- function(name, accountant, which.sensitivity, mechanism, delta, type.DP, ...,
                       .positional = list(), .caller = sys.call(-1)) {
  .call_core(
    name, accountant = .accountant(accountant), ...,
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP), random_state = .random_state(),
    .positional = .positional, .caller = .caller
  )
}

# The call shared by meanDP, varDP and sdDP, whose arguments are the same. It is called by
# those functions only, so the core's errors name the user's call (see .call_core). It calls
# .call_core itself, as .statistic would (the same arguments, converted in the same order):
# each R closure between the user's call and the core costs a small release a few
# microseconds (issue 29).
.univariate <- function(name, x, eps, lower.bound, upper.bound, which.sensitivity, mechanism,
                        delta, type.DP, accountant) {
  .call_core(
    name, accountant = .accountant(accountant), x = .to_py(x), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    delta = .to_py(delta), type_DP = .to_py(type.DP), random_state = .random_state(),
    .caller = sys.call(-1)
  )
}

# One sanitized value, or for which.sensitivity = 'both' the list of the bounded and the
# unbounded release with the class `class`.
.one_or_both <- function(value, class) {
  if (is.list(value)) {
    return(.both(value, class))
  }
  value
}

#' Differentially private mean
#'
#' Clips `x` to `[lower.bound, upper.bound]` and releases its mean.
#'
#' * `'bounded'` (neighbouring data differ in the value of one record, so n is public):
#'   DPpack's release, the mean plus noise calibrated to the sensitivity
#'   `(upper.bound - lower.bound) / n`.
#' * `'unbounded'` (a record is added or removed, so n is private): the sum S of the values
#'   centred at the midpoint m of the bounds (sensitivity `(upper.bound - lower.bound) / 2`)
#'   and the count n (sensitivity 1) are released by one call of the mechanism (Laplace: half
#'   of `eps` for each; Gaussian: both, scaled to sensitivity 1, with l2 sensitivity
#'   `sqrt(2)` and the whole `eps` and `delta`). The result is `m + S~ / max(n~, 1)`, clamped
#'   to the bounds. DPpack calibrates the noise to `(upper.bound - lower.bound) / n` with the
#'   private n, which is not unbounded differential privacy.
#' * `'both'`: a list of both releases, bounded first; meaningful under bounded DP only, where
#'   the pair spends up to `3 * eps`: `eps` for the bounded release and up to `2 * eps` for the
#'   unbounded one, a replacement being a removal and an addition (group privacy; with
#'   `delta`, up to `(1 + exp(eps)) * delta` for it). Under unbounded DP the bounded release,
#'   which uses the exact n, is not private.
#'
#' @param x Numeric vector or matrix (a matrix is averaged, counted or ranked over all its
#'   entries). Each entry counts as one person: the guarantee protects one entry, not one
#'   row, so a person with several entries (a row of a matrix) needs one value per person.
#' @param eps Privacy budget, a finite scalar > 0.
#' @param lower.bound,upper.bound Scalars bounding the data; values outside are clipped.
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (both releases in a list:
#'   up to `3 * eps` under bounded DP; under unbounded DP the bounded one is not private).
#' @param mechanism `'Laplace'`, `'Gaussian'` or `'analytic'` (analytic Gaussian).
#' @param delta Privacy parameter of the Gaussian mechanisms, in (0, 1).
#' @param type.DP `'aDP'` or `'pDP'`, for `mechanism = 'Gaussian'`; ignored by `'analytic'`.
#' @param accountant A [BudgetAccountant] charged for this release, or `NULL` for the
#'   default accountant of [with_accountant()], if any (see [BudgetAccountant]).
#' @return The sanitized mean, or for `'both'` a list (`Bounded`, `Unbounded`) of class
#'   `"Sanitized Mean"`.
#' @section Exact computation:
#' Each clipped value is rounded to a grid of step at most
#' `(upper.bound - lower.bound) * 2^-20` fixed by the bounds, and the statistic is computed
#' from whole numbers, exactly, then rounded onto the noise grid: no bit of the release
#' depends on floating-point error. The sensitivities use the rounded range, at most
#' `2^-20` (relative) wider than DPpack's. The argument: the user guide's "Adding a
#' release" page, section "Exact moments".
#' @seealso [varDP()], [sdDP()], [covDP()], [quantileDP()]
#' @export
#' @examplesIf dppack_available()
#' x <- c(1.2, 3.4, 2.2, 5.0, 4.1)
#' meanDP(x, eps = 1, lower.bound = 0, upper.bound = 6)
#' meanDP(x, eps = 0.9, lower.bound = 0, upper.bound = 6, mechanism = "Gaussian",
#'        delta = 0.01)
#' meanDP(x, eps = 1, lower.bound = 0, upper.bound = 6, which.sensitivity = "unbounded")
meanDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                   mechanism = "Laplace", delta = 0, type.DP = "aDP", accountant = NULL) {
  r_call <- .plain_call()
  if (!is.null(r_call) && is.null(accountant)) {
    # the short call (see .plain_call), arguments forced in .univariate's order
    arguments <- list(x, eps, upper.bound, lower.bound, which.sensitivity, mechanism, delta,
                      type.DP)
    if (.plain_arguments(arguments)) {
      value <- r_call("meanDP", NULL, list(.plain_data(x), eps, lower.bound, upper.bound,
                                           which.sensitivity, mechanism, delta, type.DP),
                      NULL, NULL)
      if (!is.list(value)) {
        return(value)
      }
      return(.one_or_both(.core_value(value, sys.call()), "Sanitized Mean"))
    }
  }
  value <- .univariate("meanDP", x, eps, lower.bound, upper.bound, which.sensitivity,
                       mechanism, delta, type.DP, accountant)
  .one_or_both(value, "Sanitized Mean")
}

#' Differentially private variance
#'
#' Clips `x` and releases its sample variance (denominator n - 1), clamped to the range of
#' the sample variances of n values in the bounds (derived in the guide page
#' `docs/python/guide/statistics.rst`, "Variances: their range and unbounded DP").
#'
#' * `'bounded'` (n public): DPpack's noise, calibrated to the sensitivity
#'   `(upper.bound - lower.bound)^2 / n`, then the clamp.
#' * `'unbounded'` (n private): a noisy count and noisy sums of the values and of their
#'   squares, centred at the midpoint of the bounds, released in one call of the mechanism;
#'   the variance computed from them is clamped likewise.
#' * `'both'`: a list of both releases; meaningful under bounded DP only, where the pair
#'   spends up to `3 * eps` (see [meanDP()]); under unbounded DP the bounded release is not
#'   private.
#'
#' DPpack redraws the noisy variance until it is positive, and so releases a value whose law
#' is conditioned on an event that depends on the data: that is not differentially private
#' at the stated `eps`. Here a noisy value below 0 is released as exactly 0 (post-processing
#' of a single draw).
#'
#' @inheritParams meanDP
#' @param x Numeric vector.
#' @return The sanitized variance, in `[0, v.max]`; for `'both'` a list (`Bounded`,
#'   `Unbounded`) of class `"Sanitized Variance"`.
#' @inheritSection meanDP Exact computation
#' @export
#' @examplesIf dppack_available()
#' varDP(c(1.2, 3.4, 2.2, 5.0, 4.1), eps = 1, lower.bound = 0, upper.bound = 6)
varDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                  mechanism = "Laplace", delta = 0, type.DP = "aDP", accountant = NULL) {
  value <- .univariate("varDP", x, eps, lower.bound, upper.bound, which.sensitivity,
                       mechanism, delta, type.DP, accountant)
  .one_or_both(value, "Sanitized Variance")
}

#' Differentially private standard deviation
#'
#' The square root of [varDP()] with the same arguments (post-processing): exactly 0 where
#' the noisy variance was clamped to 0. `'both'`: as for [varDP()].
#'
#' @inheritParams varDP
#' @return The sanitized standard deviation; for `'both'` a list (`Bounded`, `Unbounded`) of
#'   class `"Sanitized Standard Deviation"`.
#' @inheritSection meanDP Exact computation
#' @export
#' @examplesIf dppack_available()
#' sdDP(c(1.2, 3.4, 2.2, 5.0, 4.1), eps = 1, lower.bound = 0, upper.bound = 6)
sdDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                 mechanism = "Laplace", delta = 0, type.DP = "aDP", accountant = NULL) {
  value <- .univariate("sdDP", x, eps, lower.bound, upper.bound, which.sensitivity,
                       mechanism, delta, type.DP, accountant)
  .one_or_both(value, "Sanitized Standard Deviation")
}

#' Differentially private covariance
#'
#' Clips `x1` and `x2` to their bounds and releases their sample covariance (denominator
#' n - 1).
#'
#' * `'bounded'` (n public): DPpack's release, with noise calibrated to
#'   `(upper.bound1 - lower.bound1) * (upper.bound2 - lower.bound2) / n`.
#' * `'unbounded'` (n private): the sums S1, S2 of the two variables centred at the midpoints
#'   of their bounds (sensitivities h1 = `(upper.bound1 - lower.bound1) / 2` and
#'   h2 = `(upper.bound2 - lower.bound2) / 2`), the sum P of their products (sensitivity
#'   h1 * h2) and the count n (sensitivity 1) are released by one call of the mechanism
#'   (Laplace: a quarter of `eps` for each; Gaussian: the four, scaled to sensitivity 1, with
#'   l2 sensitivity 2 and the whole `eps` and `delta`). With n~ the noisy count, at least 2,
#'   the result is `(P~ - S1~ * S2~ / n~) / (n~ - 1)`, clamped to the range of a covariance,
#'   plus or minus `(upper.bound1 - lower.bound1) * (upper.bound2 - lower.bound2) * n~ /
#'   (4 * (n~ - 1))`.
#' * `'both'`: a list of both releases; meaningful under bounded DP only, where the pair
#'   spends up to `3 * eps` (see [meanDP()]); under unbounded DP the bounded release is not
#'   private.
#'
#' @inheritParams meanDP
#' @param x1,x2 Numeric vectors of the same length.
#' @param lower.bound1,upper.bound1 Bounds of `x1`.
#' @param lower.bound2,upper.bound2 Bounds of `x2`.
#' @return The sanitized covariance; for `'both'` a list (`Bounded`, `Unbounded`) of class
#'   `"Sanitized Covariance"`.
#' @inheritSection meanDP Exact computation
#' @export
#' @examplesIf dppack_available()
#' covDP(c(1, 4, 3, 2), c(-2, -3, -4, -1), eps = 1, lower.bound1 = 0, upper.bound1 = 5,
#'       lower.bound2 = -5, upper.bound2 = 0)
covDP <- function(x1, x2, eps, lower.bound1, upper.bound1, lower.bound2, upper.bound2,
                  which.sensitivity = "bounded", mechanism = "Laplace", delta = 0,
                  type.DP = "aDP", accountant = NULL) {
  value <- .statistic(
    "covDP", accountant, which.sensitivity, mechanism, delta, type.DP,
    x1 = .to_py(x1), x2 = .to_py(x2), eps = .to_py(eps),
    upper_bound1 = .to_py(upper.bound1), lower_bound1 = .to_py(lower.bound1),
    upper_bound2 = .to_py(upper.bound2), lower_bound2 = .to_py(lower.bound2)
  )
  .one_or_both(value, "Sanitized Covariance")
}

#' Differentially private histogram
#'
#' Clips `x` to `[lower.bound, upper.bound]`, counts it in equidistant cells that cover the
#' bounds, and adds noise to every count (sensitivity 2 bounded and 1 unbounded for Laplace;
#' sqrt(2) and 1 for the Gaussian mechanisms). The noise is integer (discrete Laplace or
#' discrete Gaussian), so the noisy counts are whole numbers without rounding (DPpack rounds
#' its continuous noise). Negative counts become 0 unless `allow.negative`; with `normalize`
#' the counts are divided by their sum (proportions summing to 1).
#'
#' The break points never depend on the data. DPpack computes `hist(x, breaks)` on the data,
#' so that one record can change the number and width of all cells; here a rule or a number
#' of cells `k` gives `pretty(c(lower.bound, upper.bound), k, min.n = 1)`, R's pretty breaks
#' of the bounds, and break points are used as given. The cells are then extended by empty
#' cells of the same width until they cover the bounds (as DPpack does), and the clipped data
#' are counted in right-closed cells, the first one closed, against breaks moved by R's fuzz,
#' which here depends on the breaks only. So, unlike DPpack, break points that do not span
#' the data are no error, and a value on a given first break above `lower.bound` falls in the
#' added cell below it.
#'
#' @inheritParams meanDP
#' @param breaks One of
#'   * `"Sturges"`, `"Scott"` or `"FD"` (matched as [graphics::hist()] matches them): `k` cells
#'     from R's rule for `n` values spread uniformly over the bounds, so that only `n` enters
#'     (derived in the guide page `docs/python/guide/statistics.rst`, "Cells of the named
#'     rules");
#'   * a number `k` of cells (at least 1; more than 1e6 is set to 1e6 with a warning);
#'   * a vector of break points, sorted and extended to the bounds; cells of unequal widths
#'     are refused;
#'   * a function, called with `c(lower.bound, upper.bound)` (never with the data) and
#'     returning a number or a vector, used as above. It must not look at the data.
#'
#'   `n` is public under bounded DP (a record is replaced), and `length(x)` is used. Under
#'   unbounded DP (a record is added or removed) `n` is private: a rule first releases a noisy
#'   `n` with 1/20 of `eps` (and of `delta` for the Gaussian mechanisms), sensitivity 1,
#'   integer noise, at least 1, and the counts get the other 19/20. A number, a vector or a
#'   function needs no `n`, and the counts get all of `eps`.
#' @param normalize If `TRUE`, return proportions instead of counts.
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'`: a list of two histograms,
#'   each what that version alone gives (with a rule, their breaks can differ); meaningful
#'   under bounded DP only, where the pair spends up to `3 * eps` (see [meanDP()]); under
#'   unbounded DP the bounded histogram is not private.
#' @param allow.negative If `TRUE`, keep negative noisy counts.
#' @param x The data, a numeric vector or matrix (counted over all its entries, each entry
#'   one person, as for [meanDP()]); for `plot()`, a result of `histogramDP()`.
#' @param ... For `plot()`: passed to R's [plot.histogram()][graphics::plot.histogram].
#' @return An object of class `c("histogramDP", "histogram")`: R's histogram, with what the
#'   release spent as the attribute `"privacy"` (a [privacy_loss][privacy_loss_pure]), that
#'   [plot()] draws titled with that loss; or for `'both'` a list of two of class
#'   `"Sanitized Histogram"`.
#' @export
#' @examplesIf dppack_available()
#' set.seed(1)
#' x <- stats::rnorm(100, 3, 2)
#' h <- histogramDP(x, eps = 1, lower.bound = -3, upper.bound = 9)
#' plot(h)
histogramDP <- function(x, eps, lower.bound, upper.bound, breaks = "Sturges",
                        normalize = FALSE, which.sensitivity = "bounded",
                        mechanism = "Laplace", delta = 0, type.DP = "aDP",
                        allow.negative = FALSE, accountant = NULL) {
  if (is.function(breaks)) {
    user_breaks <- breaks
    # The core calls it with c(lower.bound, upper.bound), which reaches R as a 1-d array.
    breaks <- function(bounds) user_breaks(as.vector(bounds))
  }
  value <- .statistic(
    "histogramDP", accountant, which.sensitivity, mechanism, delta, type.DP,
    x = .to_py(x), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    breaks = .to_py(breaks), normalize = .to_py(normalize),
    allow_negative = .to_py(allow.negative)
  )
  if (identical(which.sensitivity, "both")) {
    return(.both(value, "Sanitized Histogram", .private_histogram))
  }
  .private_histogram(value)
}

# histogramDP's release: R's "histogram" (DPpack's fields) with what the release spent as the
# attribute "privacy", of class "histogramDP" so that plot() says so in its title.
.private_histogram <- function(fields) {
  h <- .as_histogram(fields)
  attr(h, "privacy") <- .privacy_loss_from_py(fields$privacy)
  class(h) <- c("histogramDP", class(h))
  h
}

#' @rdname histogramDP
#' @param main For `plot()`: the title; by default "Private histogram of x", followed by what
#'   the release spent (for `'both'`, the pair's total).
#' @export
plot.histogramDP <- function(x, main = NULL, ...) {
  if (is.null(main)) {
    main <- paste0("Private histogram of ", paste(x$xname, collapse = " "))
    privacy <- attr(x, "privacy")
    if (!is.null(privacy)) {
      main <- paste0(main, ", ", format(privacy))
    }
  }
  # R's own plot of a "histogram": the same bars, axes and labels
  plot(structure(unclass(x), class = "histogram", privacy = NULL), main = main, ...)
}

#' Differentially private contingency table
#'
#' Computes the contingency table of the factors in `...` and releases it privately. Its
#' cells must not come from the data: DPpack takes them from the observed values, so that a
#' record with a new category adds a cell, which no noise hides. DPpackPy releases:
#'
#' * **Declared levels** (every argument a factor): the cells are all combinations of the
#'   factors' [levels()], empty ones included, and every cell gets noise as in DPpack
#'   (sensitivity 2 bounded and 1 unbounded for Laplace; sqrt(2) and 1 for the Gaussian
#'   mechanisms; integer noise, so whole numbers without rounding), then, unless
#'   `allow.negative`, is set to 0 if negative: eps-DP
#'   (Laplace) or (eps, delta)-DP. The levels are treated as public: they must not be
#'   derived from the data (`factor(x)` takes its levels from `x`; write
#'   `factor(x, levels = ...)` with the levels known beforehand).
#' * **Undeclared levels** (any argument a character, numeric or logical vector): only the
#'   observed cells get noise, and a cell is released only if its noisy count exceeds a
#'   threshold chosen so that the whole release is (eps, delta)-DP (Korolova et al. 2009;
#'   Wilson et al. 2020). This needs `delta > 0`: with the Laplace mechanism's default
#'   `delta = 0` the call is refused. The table shows the levels of the released cells (a
#'   factor argument keeps all its levels); cells not released are 0. The noise is the exact
#'   discrete Laplace or Gaussian noise on a power-of-two grid, calibrated for the cells one
#'   record can change (two bounded, one unbounded); the threshold is the smallest grid point
#'   above which a noisy count of 1 lies with probability at most p, computed from the exact
#'   tail of that noise: p = `delta / 2` (bounded) or `delta` (unbounded) for Laplace, and
#'   `delta * exp(-eps) / 2` or `delta` for the Gaussian mechanisms (the derivation is in the
#'   Python core's `tableDP`). With `which.sensitivity = 'both'` a total delta of 1 or more
#'   states no guarantee and is refused.
#'
#' Every error comes before the data are tabulated and before any noise is drawn. Two
#' refusals concern values outside the data's domain, which the caller is responsible for
#' excluding: with undeclared levels, values of mixed types ("Cannot order the values of a
#' factor of mixed types"); with a factor, a value outside its levels, which [factor()] turns
#' into `NA`, refused as a missing value.
#'
#' @inheritParams histogramDP
#' @param ... Factors (declared levels) or vectors (undeclared levels) of equal length, as
#'   for [table()]. NA is refused.
#' @param eps Privacy budget, a finite scalar > 0 (must be named, as it follows `...`).
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (a list of two tables;
#'   up to `3 * eps` under bounded DP, see [meanDP()]; under unbounded DP the bounded table
#'   is not private).
#' @param delta For the Gaussian mechanisms, as in [meanDP()]; with undeclared levels, the
#'   delta of the whole thresholded release, in (0, 1).
#' @param allow.negative Keep negative noisy cells (declared levels; a released cell of the
#'   thresholded release is positive).
#' @return A `table` with the factors' levels (declared) or the released levels (undeclared)
#'   as dimnames, named as `table(...)` names them, or for `'both'` a list of two of class
#'   `"Sanitized Contingency Table"`.
#' @export
#' @examplesIf dppack_available()
#' smoker <- factor(c("yes", "no", "no", "yes", "no", "no"), levels = c("no", "yes"))
#' sex <- factor(c("f", "m", "f", "f", "m", "m"), levels = c("f", "m", "x"))
#' tableDP(smoker, sex, eps = 1)
#' # Undeclared levels: only cells above the threshold are released.
#' tableDP(sample(c("a", "b", "c"), 200, replace = TRUE), eps = 1, delta = 1e-5)
tableDP <- function(..., eps = 1, which.sensitivity = "bounded", mechanism = "Laplace",
                    delta = 0, type.DP = "aDP", allow.negative = FALSE, accountant = NULL) {
  arg_names <- .table_names(as.list(substitute(list(...)))[-1])
  args <- list(...)
  value <- .statistic(
    "tableDP", accountant, which.sensitivity, mechanism, delta, type.DP,
    eps = .to_py(eps), allow_negative = .to_py(allow.negative),
    .positional = lapply(args, .table_arg_to_py)
  )
  as_table <- function(cells) .as_table(cells, args, arg_names)
  if (identical(which.sensitivity, "both")) {
    return(.both(value, "Sanitized Contingency Table", as_table))
  }
  as_table(value)
}

#' Differentially private pooled variance
#'
#' The pooled variance `sum((n_j - 1) s_j^2) / (N - J)` of J samples (N values in all),
#' clipped to the bounds, clamped to its range `[0, sum(m_j) * (upper.bound - lower.bound)^2 /
#' (N - J)]`, `m_j = floor(n_j / 2) * ceiling(n_j / 2) / n_j`.
#'
#' * `'bounded'` (the sample sizes are public): DPpack's noise, calibrated to its bounded
#'   sensitivity, then the clamp.
#' * `'unbounded'` (a record is added to or removed from one sample, so the sizes are
#'   private): for every sample, the sum and the sum of squares of its values centred at the
#'   midpoint of the bounds (sensitivities h = `(upper.bound - lower.bound) / 2` and h^2) and
#'   its size (sensitivity 1). A record is in one sample, so all of them are released by one
#'   call of the mechanism with the sensitivities of one sample's three (Laplace: a third of
#'   `eps` for each; Gaussian: scaled to sensitivity 1, l2 sensitivity `sqrt(3)`, the whole
#'   `eps` and `delta`). With the noisy sizes n~_j, each at least 2, the result is
#'   `sum(Q~_j - S~_j^2 / n~_j) / (sum(n~_j) - J)`, clamped to
#'   `[0, (upper.bound - lower.bound)^2 * sum(n~_j) / (4 * (sum(n~_j) - J))]`. DPpack's
#'   unbounded sensitivity uses the private sizes.
#' * `'both'`: a list of both releases; meaningful under bounded DP only, where the pair
#'   spends up to `3 * eps` (see [meanDP()]); under unbounded DP the bounded release is not
#'   private.
#'
#' DPpack redraws the noisy value until it is positive, which is not differentially private at
#' the stated `eps`; here a noisy value below 0 is released as exactly 0.
#'
#' @inheritParams meanDP
#' @param ... Numeric vectors, one per sample.
#' @param eps Privacy budget (must be named, as it follows `...`).
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (a list of class
#'   `"Sanitized Pooled Variance"`; see the description).
#' @param approx.n.max If `TRUE`, use the bounded sensitivity that does not depend on the
#'   largest sample size (which is then not released). The unbounded release does not use it.
#' @return The sanitized pooled variance, or a list for `'both'`.
#' @inheritSection meanDP Exact computation
#' @export
#' @examplesIf dppack_available()
#' pooledVarDP(c(1, 4, -2, 8, -6), c(1, 2), c(-5, -7), eps = 1, lower.bound = -10,
#'             upper.bound = 10)
pooledVarDP <- function(..., eps = 1, lower.bound, upper.bound,
                        which.sensitivity = "bounded", mechanism = "Laplace", delta = 0,
                        type.DP = "aDP", approx.n.max = FALSE, accountant = NULL) {
  value <- .statistic(
    "pooledVarDP", accountant, which.sensitivity, mechanism, delta, type.DP,
    eps = .to_py(eps), lower_bound = .to_py(lower.bound), upper_bound = .to_py(upper.bound),
    approx_n_max = .to_py(approx.n.max), .positional = lapply(list(...), .to_py)
  )
  .one_or_both(value, "Sanitized Pooled Variance")
}

#' Differentially private pooled covariance
#'
#' The pooled covariance `sum((n_j - 1) c_j) / (N - J)` of J two-column samples, each column
#' clipped to its bounds.
#'
#' * `'bounded'` (the sample sizes are public): DPpack's release, with noise calibrated to its
#'   bounded sensitivity.
#' * `'unbounded'` (the sizes are private): for every sample, the sums of its two columns
#'   centred at the midpoints of their bounds (sensitivities h1 =
#'   `(upper.bound1 - lower.bound1) / 2`, h2 = `(upper.bound2 - lower.bound2) / 2`), the sum
#'   of their products (sensitivity h1 * h2) and its size (sensitivity 1), released by one
#'   call of the mechanism with the sensitivities of one sample's four (Laplace: a quarter of
#'   `eps` for each; Gaussian: scaled to sensitivity 1, l2 sensitivity 2, the whole `eps` and
#'   `delta`). With the noisy sizes n~_j, each at least 2, the result is
#'   `sum(P~_j - S1~_j * S2~_j / n~_j) / (sum(n~_j) - J)`, clamped to plus or minus
#'   `(upper.bound1 - lower.bound1) * (upper.bound2 - lower.bound2) * sum(n~_j) /
#'   (4 * (sum(n~_j) - J))`. DPpack's unbounded sensitivity uses the private sizes.
#' * `'both'`: a list of both releases; meaningful under bounded DP only, where the pair
#'   spends up to `3 * eps` (see [meanDP()]); under unbounded DP the bounded release is not
#'   private.
#'
#' @inheritParams pooledVarDP
#' @param ... Two-column numeric matrices, one per sample.
#' @param lower.bound1,upper.bound1 Bounds of the first column.
#' @param lower.bound2,upper.bound2 Bounds of the second column.
#' @param which.sensitivity `'bounded'`, `'unbounded'` or `'both'` (a list of class
#'   `"Sanitized Pooled Covariance"`; see the description).
#' @return The sanitized pooled covariance, or a list for `'both'`.
#' @inheritSection meanDP Exact computation
#' @export
#' @examplesIf dppack_available()
#' x1 <- matrix(c(1, 4, -2, 8, -6, -3), ncol = 2)
#' x2 <- matrix(c(1, 2, -5, 7), ncol = 2)
#' pooledCovDP(x1, x2, eps = 1, lower.bound1 = -10, upper.bound1 = 10,
#'             lower.bound2 = -10, upper.bound2 = 10)
pooledCovDP <- function(..., eps = 1, lower.bound1, upper.bound1, lower.bound2, upper.bound2,
                        which.sensitivity = "bounded", mechanism = "Laplace", delta = 0,
                        type.DP = "aDP", approx.n.max = FALSE, accountant = NULL) {
  value <- .statistic(
    "pooledCovDP", accountant, which.sensitivity, mechanism, delta, type.DP,
    eps = .to_py(eps), lower_bound1 = .to_py(lower.bound1), lower_bound2 = .to_py(lower.bound2),
    upper_bound1 = .to_py(upper.bound1), upper_bound2 = .to_py(upper.bound2),
    approx_n_max = .to_py(approx.n.max), .positional = lapply(list(...), .to_py)
  )
  .one_or_both(value, "Sanitized Pooled Covariance")
}

#' Differentially private quantile
#'
#' Selects an interval between consecutive order statistics of the clipped data with the
#' exponential mechanism (utility `-|k - quant * n|`, the interval widths as base measure;
#' Smith 2011), then draws the release uniformly within it. The utility's sensitivity is 1
#' under `which.sensitivity = 'bounded'` and `max(quant, 1 - quant)` under `'unbounded'` (a
#' record added or removed moves `quant * n` by `quant`; 1/2 for the median): a deviation
#' from DPpack, which uses 1 for both, so unbounded releases are more accurate at the same
#' `eps`.
#'
#' A column of a [dppack_dataset()] is not sorted: one pass counts its values in at most 2^20
#' public cells between the bounds, and the same mechanism runs on the counts (the in-memory
#' release on the values rounded to the cells, each moved by at most
#' `(upper.bound - lower.bound) / 2^20`).
#'
#' With a `resolution` r (not in DPpack; e.g. `1` for whole numbers), the release is one of
#' the public candidates `lower.bound + i * r` (`upper.bound` included when it lies on them),
#' chosen by the exponential mechanism with DPpack's utility at the best rank a candidate
#' can take between tied data: `-max(0, lt - quant * n, quant * n - le)`, `lt` and `le` the
#' data below and at or below it. Where no datum equals the candidate this is DPpack's
#' `-|k - quant * n|`; a value whose ties span rank `quant * n` gets utility 0, so the exact
#' quantile of data on the resolution is the most likely release. Sensitivities as above
#' (McSherry and Talwar 2007; Smith 2011), drawn exactly over runs of candidates of equal
#' utility. At
#' most 2^40 candidates, and `r` at least `max(abs(lower.bound), abs(upper.bound)) / 2^40`.
#'
#' @inheritParams meanDP
#' @param quant Quantile in \[0, 1\].
#' @param which.sensitivity `'bounded'` (sensitivity 1), `'unbounded'` (sensitivity
#'   `max(quant, 1 - quant)`; DPpack: 1) or `'both'` (warns; one value, sensitivity 1).
#' @param mechanism Only `'exponential'`.
#' @param resolution `NULL` (default: DPpack's release) or a positive public spacing of
#'   the candidates, e.g. `1` for whole numbers.
#' @return The sanitized quantile.
#' @references Smith A (2011). Privacy-preserving statistical estimation with optimal
#'   convergence rates. STOC. McSherry F, Talwar K (2007). Mechanism design via
#'   differential privacy. FOCS.
#' @export
#' @examplesIf dppack_available()
#' quantileDP(c(1, 1, -2, 8, -6), quant = 0.25, eps = 1, lower.bound = -10, upper.bound = 10)
#' quantileDP(c(1, 1, -2, 8, -6), quant = 0.25, eps = 1, lower.bound = -10, upper.bound = 10,
#'            resolution = 1)
quantileDP <- function(x, quant, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                       mechanism = "exponential", resolution = NULL, accountant = NULL) {
  r_call <- .plain_call()
  if (!is.null(r_call) && is.null(accountant)) {
    # the short call (see .plain_call), arguments forced in .call_core's order below
    arguments <- list(x, quant, eps, upper.bound, lower.bound, which.sensitivity, mechanism)
    if (is.null(resolution) && .plain_arguments(arguments)) {
      value <- r_call("quantileDP", NULL, list(.plain_data(x), quant, eps, lower.bound,
                                               upper.bound, which.sensitivity, mechanism),
                      NULL, NULL)
      if (!is.list(value)) {
        return(value)
      }
      return(.core_value(value, sys.call()))
    }
  }
  .call_core(
    "quantileDP",
    accountant = .accountant(accountant),
    x = .to_py(x), quant = .to_py(quant), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    random_state = .random_state(), resolution = .to_py(resolution)
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
#' medianDP(c(1, 1, -2, 8, -6), eps = 1, lower.bound = -10, upper.bound = 10, resolution = 1)
medianDP <- function(x, eps, lower.bound, upper.bound, which.sensitivity = "bounded",
                     mechanism = "exponential", resolution = NULL, accountant = NULL) {
  .call_core(
    "medianDP",
    accountant = .accountant(accountant),
    x = .to_py(x), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    which_sensitivity = .to_py(which.sensitivity), mechanism = .to_py(mechanism),
    random_state = .random_state(), resolution = .to_py(resolution)
  )
}
