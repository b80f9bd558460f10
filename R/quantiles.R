#' Differentially private quantiles, several at once
#'
#' Releases m quantiles of one variable under one budget `eps`, sorted, by one of three
#' methods (the core's `dppack.quantilesDP`):
#'
#' * `"recursive"` (default): ApproximateQuantiles (Kaplan, Schnapp and Stemmer 2022): the
#'   middle quantile by [quantileDP()], then the data below and above it with their quantiles
#'   rescaled, recursively; the `L = ceiling(log2(m + 1))` levels share `eps`: `eps / L` each
#'   under `which.sensitivity = "unbounded"`, `eps / (2 L - 1)` under `"bounded"` (a changed
#'   record may move from one half to the other, changing two releases per level). Every
#'   release is [quantileDP()]'s exact sampler on a grid (a part with no data included).
#' * `"joint"`: JointExp (Gillenwater, Joseph and Kulesza 2021), one draw of the
#'   exponential mechanism over the sorted vectors of m outputs. Its utility is minus the sum,
#'   over the m + 1 gaps the outputs cut, of the distance between the number of data in the
#'   gap and the number the quantiles ask for; its sensitivity is 2 (the density is
#'   `exp(eps * u / 4)`), and under `which.sensitivity = "unbounded"`
#'   `2 * (1 - min(diff(c(0, quants, 1))))`. It is sampled exactly by a dynamic program over
#'   the intervals between the sorted, clipped data: the derivation is in the guide page
#'   `docs/python/guide/quantiles-joint.md`.
#' * `"independent"`: the baseline, [quantileDP()] for each quantile with `eps / m` (basic
#'   composition), then sorted.
#'
#' The accountant is charged `privacy_loss_pure(eps)` once, label `"quantilesDP"`.
#' `"joint"` computes the weights of its interval selection in floating point, within an
#' error bounded from public values only, and runs at `eps` less that slack, so it is
#' `eps`-DP (the slack is about 7e-10 for quartiles of 532 records at `eps = 1`, 2e-6 for a
#' million records; not in DPpack; derived in the same guide page). `"recursive"` and
#' `"independent"` are exact.
#' [noiseIntervalDP()] bounds the rank errors of each method from public values
#' (`"joint"` needs the data's public `resolution`, e.g. 1 for whole numbers).
#'
#' @param x Numeric vector (a matrix counts all its entries).
#' @param quants Numeric vector of quantiles in `[0, 1]`, in increasing order.
#' @param eps Positive, finite privacy budget for the whole release.
#' @param lower.bound,upper.bound Public bounds on the data, `lower.bound < upper.bound`;
#'   the data are clipped to them.
#' @param method `"recursive"` (default), `"joint"` or `"independent"`.
#' @param which.sensitivity `"bounded"` or `"unbounded"`: the neighbouring relation of the
#'   guarantee. Under `"unbounded"` every draw uses its utility's add/remove sensitivity
#'   (`max(q, 1 - q)` for each [quantileDP()] draw, with each recursive node's rescaled `q`;
#'   the smaller one above for `"joint"`; not in DPpack), and `"recursive"` splits `eps`
#'   by levels as above.
#' @param accountant A [BudgetAccountant] charged for this release, or `NULL` for the
#'   default accountant of [with_accountant()], if any.
#' @param resolution `NULL` (default) or a positive public spacing r (not in DPpack): every
#'   release is one of the candidates `lower.bound + i * r`. `"recursive"` and
#'   `"independent"` draw as [quantileDP()] draws with a `resolution` (a recursive node
#'   chooses among the candidates between the releases around it); `"joint"` runs JointExp
#'   on the candidates, the records on a candidate spread at random over 65 refined copies
#'   of it, so that a value shared by tied data (the true quantile of integer data) can be
#'   released.
#' @return The m sanitized quantiles, in increasing order.
#' @references Gillenwater J, Joseph M, Kulesza A (2021). Differentially private quantiles.
#'   ICML. Kaplan H, Schnapp S, Stemmer U (2022). Differentially private approximate
#'   quantiles. ICML.
#' @seealso [quantileDP()], [boundsDP()]
#' @export
#' @examplesIf dppack_available()
#' x <- c(2.1, 3.4, 0.5, 5.0, 4.1, 1.7, 2.9, 3.3, 4.4, 0.9)
#' quantilesDP(x, c(0.25, 0.5, 0.75), eps = 1, lower.bound = 0, upper.bound = 6)
#' quantilesDP(x, c(0.25, 0.5, 0.75), eps = 1, lower.bound = 0, upper.bound = 6,
#'             method = "joint")
#' quantilesDP(round(x), c(0.25, 0.5, 0.75), eps = 1, lower.bound = 0, upper.bound = 6,
#'             resolution = 1)
#' quantilesDP(round(x), c(0.25, 0.5, 0.75), eps = 1, lower.bound = 0, upper.bound = 6,
#'             method = "joint", resolution = 1)
quantilesDP <- function(x, quants, eps, lower.bound, upper.bound, method = "recursive",
                        which.sensitivity = "bounded", resolution = NULL, accountant = NULL) {
  value <- .call_core(
    "quantilesDP",
    accountant = .accountant(accountant),
    x = .to_py(x), quants = .to_py(quants), eps = .to_py(eps),
    upper_bound = .to_py(upper.bound), lower_bound = .to_py(lower.bound),
    method = .to_py(method), which_sensitivity = .to_py(which.sensitivity),
    random_state = .random_state(), resolution = .to_py(resolution)
  )
  as.numeric(value)
}

#' Differentially private bounds for the data
#'
#' A private clipping range `c(lower, upper)`, so that the bounds the other releases need
#' can themselves be private and charged to the same accountant. Two releases of the
#' exponential mechanism over a public grid of candidates (by default 0 and
#' `+-10^(t/4)` from `1e-6` to `1e10`, both signs), `eps / 2` each: `lower` makes the number
#' of data below it closest to `quants[1] * n`, `upper` the number at or below it closest to
#' `quants[2] * n` (each utility has sensitivity 1). If `upper <= lower`, `upper` is the next
#' grid point above `lower`. The accountant is charged `privacy_loss_pure(eps)`, label
#' `"boundsDP"`.
#'
#' **What it guarantees.** With G candidates, with probability at least `1 - beta` each bound
#' misses its rank by at most the grid's own error plus `(4 / eps) * log(G / beta)` records
#' (31 records for the default grid, `eps = 1`, `beta = 0.05`); so the bounds are reliable
#' when that is well below the `min(quants[1], 1 - quants[2]) * n` records each is meant to
#' leave out: `eps * n >= 3200` or so with the defaults. Below that, a bound can land anywhere
#' among the many candidates beyond the data (they all have the same utility).
#' `noiseIntervalDP("boundsDP", eps, quants = , grid = )` reports this bound; the fix-up of
#' `upper <= lower` only widens the range, so it still bounds the data left outside (derived
#' in the guide page `docs/python/guide/mechanisms-derivations.rst`, "boundsDP").
#' **What it does not.** The
#' range is not the minimum and maximum: about `quants[1]` of the data lie below it and
#' `1 - quants[2]` above it (2% with the defaults, more on small samples) and are clipped by
#' the statistics that use it; neighbouring grid points are a factor 1.78 apart, so a bound
#' may be up to that factor away from the data's quantile; data beyond `1e10` in size, or
#' finer than `1e-6`, need a `grid` of their own.
#'
#' A bound at the grid's smallest or largest candidate gets a warning (eps * n too small,
#' or data beyond the grid). Empty data are released (n is private).
#'
#' @param x Numeric vector (may be empty).
#' @param eps Positive, finite privacy budget for both bounds.
#' @param quants Two numbers in `[0, 1]`, in increasing order: the share of the data meant to
#'   lie below `lower` and at or below `upper`.
#' @param grid Optional numeric vector of public candidates (at least two distinct finite
#'   values), chosen without looking at the data.
#' @param accountant A [BudgetAccountant], or `NULL` (see [quantilesDP()]).
#' @return A named numeric vector `c(lower = , upper = )`, `lower < upper`.
#' @seealso [quantilesDP()], [meanDP()]
#' @export
#' @examplesIf dppack_available()
#' set.seed(1)
#' x <- rlnorm(20000, meanlog = 3)
#' acc <- BudgetAccountant$new(eps = 2)
#' b <- boundsDP(x, eps = 0.5, accountant = acc)
#' b
#' meanDP(x, eps = 1, lower.bound = b[["lower"]], upper.bound = b[["upper"]],
#'        accountant = acc)
#' quantilesDP(x, c(0.25, 0.5, 0.75), eps = 0.5, lower.bound = b[["lower"]],
#'             upper.bound = b[["upper"]], accountant = acc)
boundsDP <- function(x, eps, quants = c(0.01, 0.99), grid = NULL, accountant = NULL) {
  value <- .call_core(
    "boundsDP",
    accountant = .accountant(accountant),
    x = .to_py(x), eps = .to_py(eps), quants = .to_py(quants),
    grid = if (is.null(grid)) NULL else .to_py(as.numeric(grid)),
    random_state = .random_state()
  )
  c(lower = value[[1]], upper = value[[2]])
}
