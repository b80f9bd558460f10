# Shared helpers of the DPpackPy tests (testthat sources helper-*.R before the test files).

# The tests opt in to reproducible mode, for the whole run: they use set.seed() to make
# DPpackPy's noise reproducible, which only options(DPpackPy.reproducible = TRUE) allows (the
# default seeds every call from the operating system). Tests of the default mode switch it off
# locally with local_default_randomness().
options(DPpackPy.reproducible = TRUE)

# Switch to the default, secure randomness until the calling function (a test_that() block)
# exits.
local_default_randomness <- function(envir = parent.frame()) {
  old <- options(DPpackPy.reproducible = FALSE)
  do.call(on.exit, list(bquote(options(.(old))), add = TRUE), envir = envir)
  invisible(old)
}

# A validation error as a DPpack user sees it: DPpack's text exactly (so no Python traceback and
# no "ValueError: " prefix), raised from the user-facing function `fun`.
expect_dppack_error <- function(object, message, fun) {
  cnd <- expect_error(object, message, fixed = TRUE)
  expect_identical(conditionMessage(cnd), message)
  expect_false(grepl("ValueError|TypeError|Traceback", conditionMessage(cnd)))
  expect_false(is.null(conditionCall(cnd)))
  expect_identical(conditionCall(cnd)[[1]], as.name(fun))
  invisible(cnd)
}

# CDF of the centred Laplace distribution with density exp(-|x|/b) / (2b), b = `scale`.
plaplace <- function(q, scale) {
  ifelse(q < 0, 0.5 * exp(q / scale), 1 - 0.5 * exp(-q / scale))
}

# Gaussian noise scales of DPpack 0.2.2's GaussianMechanism, written out here so that the
# tests do not depend on the package's own arithmetic.
sigma_aDP <- function(s, eps, delta) s * sqrt(2 * log(1.25 / delta)) / eps
sigma_pDP <- function(s, eps, delta) {
  z <- stats::qnorm(delta / 2)
  s * (sqrt(z^2 + 2 * eps) - z) / (2 * eps)
}

# Exact selection probabilities of DPpack 0.2.2's ExponentialMechanism.
exp_mech_probs <- function(utility, eps, sensitivity, measure = rep(1, length(utility))) {
  w <- measure * exp(eps * (utility - max(utility)) / (2 * sensitivity))
  w / sum(w)
}

# The method `name` of an R6 class generator, looked up through the inheritance chain.
r6_method <- function(generator, name) {
  while (!is.null(generator)) {
    if (!is.null(generator$public_methods[[name]])) {
      return(generator$public_methods[[name]])
    }
    generator <- generator$get_inherit()
  }
  NULL
}

# The core module as DPpackPy loaded it (its Python first), to compare R with the core.
core_module <- function() {
  .core()
  reticulate::import("dppack", convert = TRUE)
}
