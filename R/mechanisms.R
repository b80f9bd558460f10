# The mechanism `name` of the core on `true.values`, the accountant first, its other
# arguments in `...` (converted), and the call's random state, as the user's call one frame up;
# the noisy values with the shape, names and dimnames of `true.values`.
.noisy_values <- function(name, true.values, accountant, ...) {
  values <- .call_core(
    name, accountant = .accountant(accountant), true_values = .to_py(true.values), ...,
    random_state = .random_state(), .caller = sys.call(-1)
  )
  .restore_shape(values, true.values)
}

#' Laplace mechanism
#'
#' Adds Laplace noise to `true.values` for eps-differential privacy. Without
#' `alloc.proportions`, every value gets noise of scale `sum(sensitivities) / eps`; with it,
#' value i gets scale `sensitivities[i] / (alloc.proportions[i] * eps)` after the proportions
#' are normalised to sum 1.
#'
#' The noise is drawn exactly, with integer arithmetic (the discrete Laplace of Canonne, Kamath
#' and Steinke 2020): each value is rounded to a power-of-two grid finer than 2^-20 of the
#' noise scale, the sensitivity is raised by one grid step per value, and the results are
#' multiples of the grid, so their low-order bits reveal nothing about the data (derived in
#' the guide page `docs/python/guide/mechanisms-derivations.rst`, "LaplaceMechanism").
#'
#' @param true.values Numeric vector, matrix or scalar of non-private values.
#' @param eps Privacy budget, a finite scalar > 0.
#' @param sensitivities l1 global sensitivity of each value, or a single one for all.
#' @param alloc.proportions Optional share of `eps` for each value; needs one sensitivity per
#'   value.
#' @param accountant A [BudgetAccountant] charged for this release, or `NULL` for the
#'   default accountant of [with_accountant()], if any (see [BudgetAccountant]).
#' @return The sanitized values, with the shape, names and dimnames of `true.values`.
#' @references Dwork C, McSherry F, Nissim K, Smith A (2006). Calibrating noise to sensitivity
#'   in private data analysis. Theory of Cryptography Conference.
#' @seealso [with_random_state()] for output bit-identical to the Python core.
#' @export
#' @examplesIf dppack_available()
#' LaplaceMechanism(5, eps = 1, sensitivities = 0.5)
#' LaplaceMechanism(c(10, 20), eps = 1, sensitivities = c(0.5, 1),
#'                  alloc.proportions = c(1, 9))
LaplaceMechanism <- function(true.values, eps, sensitivities, alloc.proportions = NULL,
                             accountant = NULL) {
  .noisy_values("LaplaceMechanism", true.values, accountant, eps = .to_py(eps),
                sensitivities = .to_py(sensitivities),
                alloc_proportions = .to_py(alloc.proportions))
}

#' Gaussian mechanism
#'
#' Adds Gaussian noise to `true.values` for (eps, delta)-differential privacy: approximate DP
#' with the classical calibration (`eps < 1`), approximate DP with the analytic calibration of
#' Balle and Wang (`analytic = TRUE`, any `eps`), or probabilistic DP (`type.DP = 'pDP'`).
#' Without `alloc.proportions` every value gets the noise of the l2 norm of `sensitivities`;
#' with it, value i spends `alloc.proportions[i]` of both `eps` and `delta`.
#'
#' The noise is the discrete Gaussian of Canonne, Kamath and Steinke (2020), drawn exactly on a
#' power-of-two grid finer than sigma / 2^13. Its variance starts from the calibration above and
#' is raised, minimally, to cover the rounding to the grid: by a relative 2^-13 sigma /
#' sensitivity or less for one value, by 6 to 18 percent for a vector released in one call,
#' nothing for the classical calibration. The calibration is derived in the guide page
#' `docs/python/guide/mechanisms-derivations.rst` ("GaussianMechanism").
#'
#' @inheritParams LaplaceMechanism
#' @param delta Privacy parameter in (0, 1).
#' @param sensitivities l2 global sensitivity of each value, or a single one for all.
#' @param type.DP `'aDP'` (approximate DP) or `'pDP'` (probabilistic DP).
#' @param alloc.proportions Optional share of `eps` and `delta` for each value.
#' @param analytic If `TRUE`, calibrate with [calibrateAnalyticGaussianMechanism()]; only
#'   for `type.DP = 'aDP'`.
#' @param tol Tolerance of the analytic calibration.
#' @return The sanitized values, with the shape, names and dimnames of `true.values`.
#' @references Dwork C, Roth A (2014). The algorithmic foundations of differential privacy.
#'
#'   Liu F (2019). Generalized Gaussian mechanism for undirected graphs.
#'
#'   Balle B, Wang Y-X (2018). Improving the Gaussian mechanism for differential privacy:
#'   analytical calibration and optimal denoising. ICML.
#' @export
#' @examplesIf dppack_available()
#' GaussianMechanism(5, eps = 0.9, delta = 0.01, sensitivities = 1)
#' GaussianMechanism(5, eps = 2, delta = 1e-5, sensitivities = 1, analytic = TRUE)
GaussianMechanism <- function(true.values, eps, delta, sensitivities, type.DP = "aDP",
                              alloc.proportions = NULL, analytic = FALSE, tol = 1e-12,
                              accountant = NULL) {
  .noisy_values("GaussianMechanism", true.values, accountant, eps = .to_py(eps),
                delta = .to_py(delta), sensitivities = .to_py(sensitivities),
                type_DP = .to_py(type.DP), alloc_proportions = .to_py(alloc.proportions),
                analytic = .to_py(analytic), tol = .to_py(tol))
}

#' Analytic Gaussian mechanism calibration
#'
#' The smallest standard deviation of Gaussian noise that gives (epsilon, delta)-DP to a
#' query of l2 sensitivity `sensitivity`, found by the doubling and bisection search of Balle
#' and Wang (2018). Unlike DPpack, the search is capped and the inputs are checked; if the cap
#' stops the search before `tol` is reached, the more private end of the bracket is returned.
#'
#' @param epsilon Privacy budget, a finite scalar > 0.
#' @param delta Privacy parameter in (0, 1).
#' @param sensitivity l2 global sensitivity, > 0.
#' @param tol Tolerance on delta at which the bisection stops.
#' @return The noise standard deviation.
#' @references Balle B, Wang Y-X (2018). Improving the Gaussian mechanism for differential
#'   privacy: analytical calibration and optimal denoising. ICML.
#' @export
#' @examplesIf dppack_available()
#' calibrateAnalyticGaussianMechanism(1, 1e-5, 1)  # 3.7306...
calibrateAnalyticGaussianMechanism <- function(epsilon, delta, sensitivity, tol = 1e-12) {
  .call_core(
    "calibrateAnalyticGaussianMechanism",
    epsilon = .to_py(epsilon),
    delta = .to_py(delta),
    sensitivity = .to_py(sensitivity),
    tol = .to_py(tol)
  )
}

#' Exponential mechanism
#'
#' Selects one candidate with probability proportional to
#' `measure * exp(eps * utility / (2 * sensitivity))`.
#'
#' The draw is exact: the utilities are rounded to a power-of-two grid finer than 2^-20 of
#' the sensitivity (which is raised by at most two grid steps to cover the rounding), and
#' every random decision compares integers, with no floating-point weights or cumulative sums
#' (derived in the guide page `docs/python/guide/mechanisms-derivations.rst`,
#' "ExponentialMechanism").
#'
#' @param utility Numeric vector of utilities, one per candidate (higher is better).
#' @param eps Privacy budget, a finite scalar > 0.
#' @param sensitivity Global sensitivity of the utility, a scalar > 0.
#' @param measure Optional base measure of each candidate (>= 0, not all 0); uniform by
#'   default.
#' @param candidates Optional vector or list of candidates, one per utility.
#' @inheritParams LaplaceMechanism
#' @return The 1-based index of the selected candidate, or `candidates[index]` (for a list,
#'   a list of length one, as in DPpack).
#' @references McSherry F, Talwar K (2007). Mechanism design via differential privacy. FOCS.
#' @export
#' @examplesIf dppack_available()
#' ExponentialMechanism(c(-5, -1, 0, 3), eps = 1, sensitivity = 1)
#' ExponentialMechanism(c(-5, -1, 0, 3), eps = 1, sensitivity = 1,
#'                      candidates = c("a", "b", "c", "d"))
ExponentialMechanism <- function(utility, eps, sensitivity, measure = NULL,
                                 candidates = NULL, accountant = NULL) {
  # The core checks the candidates' length and returns a position; R keeps the candidates
  # themselves, so that any R object (a list of R6 models, a factor) comes back unchanged.
  index <- .call_core(
    "ExponentialMechanism",
    accountant = .accountant(accountant),
    utility = .to_py(utility),
    eps = .to_py(eps),
    sensitivity = .to_py(sensitivity),
    measure = .to_py(measure),
    candidates = if (!is.null(candidates)) as.list(seq_along(candidates)),
    random_state = .random_state()
  )
  if (is.null(candidates)) {
    return(index + 1L)
  }
  candidates[index]
}
