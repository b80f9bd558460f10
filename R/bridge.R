# The bridge to the Python core: argument conversion, seeding and error translation.
# No privacy arithmetic lives here (DESIGN.md, Layers): every number that matters is computed
# by dppack; R only converts values in and out.

# Convert one argument for the core. Numeric data becomes a NumPy array that keeps its shape
# (an R matrix reaches NumPy without a copy); a data.frame is turned into a numeric matrix
# first, because reticulate's data.frame path is slow. Scalars and everything else (strings,
# logicals, NULL) go as reticulate converts them, so the core sees and rejects bad types.
.to_py <- function(x) {
  if (is.data.frame(x)) {
    x <- as.matrix(x)
  }
  if (is.factor(x)) {
    return(as.character(x))
  }
  if (is.atomic(x) && (is.numeric(x) || is.logical(x)) &&
      (!is.null(dim(x)) || length(x) != 1)) {
    return(reticulate::np_array(x))
  }
  x
}

# Give the core's values the shape, names and dimnames of the user's input, as DPpack's
# `true.values + noise` does.
.restore_shape <- function(values, like) {
  out <- like
  if (is.data.frame(out)) {
    out[] <- as.data.frame(matrix(as.vector(values), nrow = nrow(like)))
    return(out)
  }
  out[] <- as.vector(values)
  out
}

# The random_state for the next core call. Inside with_random_state() it is the shared
# generator; otherwise a seed drawn from R's own stream, so that set.seed() makes DPpackPy
# calls reproducible exactly as it does R's own random functions.
.random_state <- function() {
  if (!is.null(.dppack$generator)) {
    return(.dppack$generator)
  }
  seed <- floor(stats::runif(1) * 2^31)
  seed
}

# Call the public core function `name` with the converted arguments in `...`. The core's
# warnings become R warnings; its error message becomes an R error raised from the calling
# DPpackPy function, with DPpack's text and no Python traceback.
.call_core <- function(name, ...) {
  caller <- sys.call(-1)
  result <- .core()$call(name, list(...))
  for (message in result$warnings) {
    warning(simpleWarning(message, call = caller))
  }
  if (!is.null(result$error)) {
    stop(simpleError(result$error, call = caller))
  }
  result$value
}

#' Bit-identical results in R and Python
#'
#' Evaluates `code` with every DPpackPy call drawing its noise from one NumPy generator seeded
#' by `random_state`. The same calls made in Python with
#' `rng = numpy.random.default_rng(random_state)` passed as `random_state = rng`, in the same
#' order, give bit-identical output. Outside `with_random_state()`, each call derives its seed
#' from R's random number stream, so [set.seed()] makes DPpackPy reproducible within R.
#'
#' @param random_state A non-negative whole number: the seed of the NumPy generator.
#' @param code Code to evaluate.
#' @return The value of `code`.
#' @export
#' @examplesIf dppack_available()
#' with_random_state(42, LaplaceMechanism(c(1, 2), eps = 1, sensitivities = 1))
#' # Python, same output:
#' #   import numpy as np, dppack
#' #   dppack.LaplaceMechanism([1, 2], 1, 1, random_state=np.random.default_rng(42))
with_random_state <- function(random_state, code) {
  generator <- .call_core("generator", random_state = random_state)
  previous <- .dppack$generator
  .dppack$generator <- generator
  on.exit(.dppack$generator <- previous, add = TRUE)
  force(code)
}
