# The bridge to the Python core: argument conversion, seeding and error translation.
# No privacy arithmetic lives here (DESIGN.md, Layers): every number that matters is computed
# by dppack; R only converts values in and out.

# Convert one argument for the core. Numeric data becomes a NumPy array that keeps its shape:
# an R matrix or array reaches NumPy as a Fortran-ordered view, without a copy (reticulate's
# np_array() would copy it into C order); a long double vector as a read-only view too (see
# .double_view); a short vector gets a dim attribute, which costs R one (cheap) copy. A
# data.frame is turned into a numeric matrix first, because reticulate's data.frame path is
# slow (a model's X goes by its columns instead: .design_to_py). Scalars and everything else
# (strings, logicals, NULL) go as reticulate converts them, so the core sees and rejects bad
# types. NA of any type arrives as NaN or None (see .without_na).
#
# A double array .to_py returns as it is: reticulate converts it when the call is made (to
# the NumPy array reticulate::r_to_py() would make), so no R handle on a Python object is
# built for an argument that is used once.
.to_py <- function(x) {
  if (length(x) == 1L && is.atomic(x) && is.null(attributes(x)) && !is.na(x)) {
    return(x) # a plain number, string or flag: the common case, first
  }
  if (is.double(x) && is.null(attributes(x)) && length(x) != 1L &&
      length(x) < .view_min_length) {
    return(as.array(x)) # a short plain double vector, as the steps below convert it
  }
  if (!is.object(x)) {
    return(.memory_to_py(x)) # no class, so no method of its own: skip the S3 dispatch
  }
  .data_to_py(x) # the data's own conversion (R/backends.R): in memory, .memory_to_py()
}

# The conversion of .to_py() for data in memory (the default of .data_to_py(), R/backends.R).
.memory_to_py <- function(x) {
  if (is.data.frame(x)) {
    x <- as.matrix(x)
  }
  if (is.factor(x)) {
    return(.without_na(as.character(x)))
  }
  if (is.list(x)) {
    # An R list is not numeric data (DPpack refuses it); as a Python list it would pass for
    # one, so it goes as a NumPy object array, which the core refuses as non-numeric.
    return(.numpy()$array(reticulate::r_to_py(x), dtype = "object"))
  }
  x <- .without_na(x)
  if (is.atomic(x) && (is.numeric(x) || is.logical(x)) &&
      (!is.null(dim(x)) || length(x) != 1)) {
    if (is.double(x) && is.null(dim(x)) && length(x) >= .view_min_length) {
      view <- .double_view(x)
      if (!is.null(view)) {
        return(view)
      }
    }
    x <- if (is.array(x)) unclass(x) else as.array(x)
    # (an integer or logical array goes converted: .call_core would scan it for NA again)
    return(if (is.double(x)) x else reticulate::r_to_py(x))
  }
  x
}

# R's NA has no NumPy counterpart that reticulate keeps: an integer NA arrives as the valid
# number -2147483648, a logical NA as True, a character NA as the text "NA". So an argument
# holding NA is converted first: an integer or logical one to double (NA becomes NaN, which
# the core refuses wherever a number or a flag is expected, naming the argument), a single NA
# of any type to NaN, and a character vector to a NumPy object array with None for NA, which
# the core refuses as missing (in a table) or as not numeric. A double NA is NaN already.
# Anything else, and every argument without NA, is returned unchanged.
.without_na <- function(x) {
  if (!is.atomic(x) || is.double(x) || !anyNA(x)) {
    return(x)
  }
  if (length(x) == 1 && is.null(dim(x))) {
    return(NaN)
  }
  if (is.integer(x) || is.logical(x)) {
    storage.mode(x) <- "double"
    return(x)
  }
  if (is.character(x)) {
    values <- as.list(x)
    values[is.na(x)] <- list(NULL)
    array <- .numpy()$array(reticulate::r_to_py(unname(values)), dtype = "object")
    if (!is.null(dim(x))) {
      array <- array$reshape(as.list(dim(x)), order = "F")
    }
    return(array)
  }
  x
}

# Below this length a plain double vector is copied: the copy costs less than making a view.
.view_min_length <- 2^12

# A read-only NumPy view of the double vector `x`, without the copy reticulate would make (the
# dim attribute r_to_py needs makes R duplicate a vector referenced elsewhere): C code gives
# the address of the values, and the view holds a closure over `x`, which keeps `x` alive in R
# for as long as Python keeps the view. NULL where the address cannot be passed.
.double_view <- function(x) {
  address <- .Call(dppackpy_double_address, x)
  if (is.na(address)) {
    return(NULL)
  }
  owner <- function() x
  .bridge_unconverted()$r_double_view(address, length(x), owner)
}

# X of a model's fit for the core. A data.frame whose columns are all plain double or integer
# vectors (no attributes, so no factor or Date; no NA in an integer column, which R keeps as
# a valid-looking number) goes as read-only NumPy views of its columns, held by the core's
# ColumnMatrix: R makes no as.matrix copy, and the core assembles its design from the columns
# in the one copy its fit makes anyway (clipped and scaled, dppack/erm/_design.py). The views
# hold a closure over `X`, which keeps the columns alive and unmodified in R as long as
# Python keeps them (see .double_view). Anything else, and a data.frame with other columns
# (whose as.matrix is not numeric, or which the core refuses), goes through .to_py.
.design_to_py <- function(X) {
  if (!is.data.frame(X) || length(X) == 0 || nrow(X) == 0) {
    return(.to_py(X))
  }
  integer <- vapply(X, is.integer, logical(1))
  plain <- vapply(X, function(column) {
    is.null(attributes(column)) && (is.double(column) || (is.integer(column) && !anyNA(column)))
  }, logical(1))
  if (!all(plain)) {
    return(.to_py(X))
  }
  addresses <- .Call(dppackpy_column_addresses, X)
  if (anyNA(addresses)) {
    return(.to_py(X))
  }
  owner <- function() X
  .bridge_unconverted()$r_columns(unname(addresses), unname(integer), nrow(X), owner)
}

# The bridge module without reticulate's conversion of results, for Python objects that
# must stay Python objects (the views of .double_view).
.bridge_unconverted <- function() {
  if (is.null(.dppack$bridge_unconverted)) {
    .core()
    .dppack$bridge_unconverted <- reticulate::import("dppack._rbridge", convert = FALSE)
  }
  .dppack$bridge_unconverted
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
# generator. Otherwise, by default, NULL: the core seeds the call from the operating system's
# entropy and R's random stream is not touched, so no R seed can be brute-forced to recover
# the noise (a seed from 31 bits of R's stream could). Only with
# options(DPpackPy.reproducible = TRUE), for teaching and testing, does set.seed() govern: the
# call's generator is then seeded with .seed_words() from R's stream, which are sent with the
# call as they are (class "DPpackPy_seed_words"; .call_core gives them to the core, which
# makes the generator: dppack._random.generator_from_words).
.random_state <- function() {
  if (!is.null(.dppack$generator)) {
    return(.dppack$generator)
  }
  if (!.reproducible()) {
    return(NULL)
  }
  structure(.seed_words(), class = "DPpackPy_seed_words")
}

# As .random_state(), but a generator of the core (not seed words) in reproducible mode: for a
# random_state that does not reach the core as an argument of .call_core's (nested in a list).
.random_generator <- function() {
  state <- .random_state()
  if (!inherits(state, "DPpackPy_seed_words")) {
    return(state)
  }
  .call_core("seed_words_generator", words = unclass(state), .caller = sys.call(-1))
}

# TRUE when the user asked for reproducible calls with options(DPpackPy.reproducible = TRUE).
.reproducible <- function() {
  isTRUE(getOption("DPpackPy.reproducible", FALSE))
}

# Four 32-bit words (128 bits) from R's random stream, the entropy of the NumPy SeedSequence
# in reproducible mode. With R's default generator, the Mersenne Twister, runif() returns one
# 32-bit output of the twister times 2^-32 (R's RNG.c; only an exact 0 is nudged into (0, 1)),
# so floor(runif(1) * 2^32) is that output, all 32 bits of it. Doubles, not R integers,
# because R's integers are signed and stop at 2^31 - 1.
.seed_words <- function() {
  seed <- floor(stats::runif(4) * 2^32)
  seed
}

# Call the public core function `name`, or the method `name` of the core object `.object`, with
# the converted arguments in `...` (and R's `...` of the user's call in `.positional`). The
# core's warnings become R warnings; its error message becomes an R error raised from
# `.caller`, the user's call of a DPpackPy function, with DPpack's text and no Python
# traceback.
#
# One round trip to Python per call (dppack._rbridge.r_call, whose handle is looked up once
# per session): on success without warnings it answers a list of one element, the value, and
# nothing else is read or converted; warnings and errors come in a longer list. The seed words
# of reproducible mode travel with the call (see .random_state).
#
# An invalid call leaves R's random stream as it found it, as in DPpack, whose checks come
# before any draw: the seed drawn for the core is given back when the core refuses the call.
.call_core <- function(name, ..., .positional = list(), .caller = sys.call(-1),
                       .object = NULL) {
  caller <- .caller
  # Load the core before the arguments are converted: a conversion would otherwise start
  # Python through reticulate's own discovery, not DPpackPy's (see ?dppack_python).
  r_call <- .dppack$r_call
  if (is.null(r_call)) {
    r_call <- .r_call()
  }
  stream <- .save_random_stream()
  # (A calling handler costs the success path less than tryCatch; it raises the error from
  # the user's call in place of the original, which goes no further.)
  arguments <- withCallingHandlers(
    list(...),
    error = function(e) {
      .restore_random_stream(stream)
      stop(simpleError(conditionMessage(e), call = caller))
    }
  )
  # NA, also in the arguments given as they are, not by .to_py (.without_na changes only an
  # atomic vector other than double that holds NA; a loop finds none faster than lapply).
  for (argument in arguments) {
    if (is.atomic(argument) && !is.double(argument) && anyNA(argument)) {
      arguments <- lapply(arguments, .without_na)
      break
    }
  }
  # An absent accountant is not sent: the core's default (None, the session's accountant)
  # applies, as it would to a Python call that leaves the argument out. (Setting an absent
  # entry to NULL changes nothing.)
  if (is.null(arguments[["accountant"]])) {
    arguments[["accountant"]] <- NULL
  }
  words <- NULL
  if (inherits(arguments[["random_state"]], "DPpackPy_seed_words")) {
    words <- unclass(arguments[["random_state"]])
    arguments[["random_state"]] <- NULL
  }
  # unnamed: else a Python dict
  positional <- if (length(.positional)) unname(lapply(.positional, .without_na)) else list()
  result <- r_call(name, .object, positional, arguments, words)
  if (length(result) == 1L) {
    if (!is.list(result)) {
      return(result) # a double the core returned as it is (r_call's common case)
    }
    value <- result[[1L]]
    if (inherits(value, "python.builtin.object")) {
      value <- reticulate::py_to_r(value) # as reticulate converts a dict's entries
    }
    return(.drop_1d(value))
  }
  .core_report(result, stream, caller)
}

# The short call of a small release (meanDP, quantileDP; issue 29): the handle of
# dppack._rbridge.r_call when the release may send its arguments to the core as they are,
# without .call_core's steps, else NULL: before the core is loaded, inside
# with_random_state() (the call needs the shared generator) and in reproducible mode (the
# call needs seed words from R's stream). The release forces its arguments first, in the
# order .call_core would convert them (list() is a primitive, so an error is raised from the
# user's call, as .call_core raises it), and takes this path when .plain_arguments() allows.
.plain_call <- function() {
  if (is.null(.dppack$generator) && !isTRUE(getOption("DPpackPy.reproducible", FALSE))) {
    .dppack$r_call
  }
}

# TRUE when .to_py would pass every argument as it is, and .call_core find no NA to convert:
# the first (the data) a double vector without attributes, shorter than .view_min_length
# (sent as .to_py sends it: .plain_data); each other one double, or one string that is not
# NA, without attributes.
.plain_arguments <- function(arguments) {
  x <- arguments[[1L]]
  if (!is.double(x) || !is.null(attributes(x)) || length(x) >= .view_min_length) {
    return(FALSE)
  }
  for (value in arguments[-1L]) {
    if (length(value) != 1L || !is.null(attributes(value)) ||
        !(is.double(value) || (is.character(value) && !is.na(value)))) {
      return(FALSE)
    }
  }
  TRUE
}

# Plain double data (.plain_arguments) as .to_py sends them: one value as it is, any other
# length as an R array.
.plain_data <- function(x) {
  if (length(x) == 1L) x else as.array(x)
}

# What .call_core makes of r_call's `result` when it is not a plain double: the value of a
# tuple (value,), or the warnings and error of a longer one, raised from `caller`. No seed
# was drawn from R's stream on the short path, so the stream saved here is the one the call
# found.
.core_value <- function(result, caller) {
  if (!is.list(result)) {
    return(result)
  }
  if (length(result) == 1L) {
    value <- result[[1L]]
    if (inherits(value, "python.builtin.object")) {
      value <- reticulate::py_to_r(value)
    }
    return(.drop_1d(value))
  }
  .core_report(result, .save_random_stream(), caller)
}

# The rest of .call_core when the core warned or refused the call: `result` is r_call's
# (value, warnings, error, error_class).
.core_report <- function(result, stream, caller) {
  for (message in result[[2L]]) {
    warning(simpleWarning(message, call = caller))
  }
  if (!is.null(result[[3L]])) {
    .restore_random_stream(stream)
    .stop_core(result[[3L]], result[[4L]], caller)
  }
  value <- result[[1L]]
  if (inherits(value, "python.builtin.object")) {
    value <- reticulate::py_to_r(value)
  }
  .drop_1d(value)
}

# dppack._rbridge.r_call as an R function, loading Python on first use. Looked up once per
# session and kept: each lookup of a module's attribute costs reticulate about as much as a
# call.
.r_call <- function() {
  if (is.null(.dppack$r_call)) {
    .dppack$r_call <- .core()$r_call
  }
  .dppack$r_call
}

# Stop with the core's error `message`, raised from `caller`: a plain simpleError, or, when the
# core names a condition class (`error_class`, "DPpackPy_budget_exceeded" for an overspend
# refused by an accountant), an error of that class first, so that
# tryCatch(..., DPpackPy_budget_exceeded = function(e) ...) catches overspends alone.
.stop_core <- function(message, error_class, caller) {
  if (is.null(error_class)) {
    stop(simpleError(message, call = caller))
  }
  stop(structure(list(message = message, call = caller),
                 class = c(error_class, "error", "condition")))
}

# The accountant argument of a release for the core: NULL stays NULL (the session's
# accountant, if any, from with_accountant()); a BudgetAccountant gives its Python object, where
# its state lives. Anything else stops here, before any data is converted or noise drawn:
# the releases give it to .call_core first among their arguments, which are converted in order.
# The error is raised from `caller` (.call_core raises it from the user's call anyway).
.accountant <- function(accountant, caller = NULL) {
  if (is.null(accountant)) {
    return(NULL)
  }
  if (!inherits(accountant, "BudgetAccountant")) {
    stop(simpleError("accountant must be a BudgetAccountant or NULL.", call = caller))
  }
  .core_of(accountant)
}

# A privacy loss of the core (dppack.PrivacyLoss) as the R value "privacy_loss": a list of
# its kind and numbers, copied, not computed. NULL for NULL or None. A loss the core sent as
# its fields already (kind, then eps and delta or rho: dppack._rbridge's _loss_fields, for a
# histogram) is only given its class, without a round trip per field.
.privacy_loss_from_py <- function(loss) {
  if (is.null(loss) || inherits(loss, "python.builtin.NoneType")) {
    return(NULL)
  }
  if (is.list(loss) && !inherits(loss, "python.builtin.object")) {
    return(structure(loss, class = "privacy_loss"))
  }
  field <- function(name) reticulate::py_to_r(reticulate::py_get_attr(loss, name))
  kind <- field("kind")
  values <- if (identical(kind, "zcdp")) {
    list(rho = field("rho"))
  } else {
    list(eps = field("eps"), delta = field("delta"))
  }
  structure(c(list(kind = kind), values), class = "privacy_loss")
}

# An R "privacy_loss" as the core's PrivacyLoss, rebuilt by the core's constructor of its kind
# (which checks the numbers); a core PrivacyLoss is passed as it is. `what` names the argument
# in the error for anything else, raised from `caller`.
.privacy_loss_to_py <- function(loss, what = "loss", caller = sys.call(-1)) {
  if (inherits(loss, "dppack.accounting.PrivacyLoss")) {
    return(loss)
  }
  if (!inherits(loss, "privacy_loss") || !is.character(loss$kind)) {
    stop(simpleError(paste0(
      what, " must be a privacy loss: privacy_loss_pure(), privacy_loss_approx() or ",
      "privacy_loss_zcdp()."
    ), call = caller))
  }
  class <- .privacy_loss_class()
  switch(
    loss$kind,
    pure = .call_core("pure", eps = loss$eps, .object = class, .caller = caller),
    approx = .call_core("approx", eps = loss$eps, delta = loss$delta, .object = class,
                        .caller = caller),
    zcdp = .call_core("zcdp", rho = loss$rho, .object = class, .caller = caller),
    stop(simpleError(paste0(what, " has an unknown kind: ", loss$kind, "."), call = caller))
  )
}

# The core's PrivacyLoss class, whose static methods build and compose losses.
.privacy_loss_class <- function() {
  .core()$dppack$PrivacyLoss
}

.save_random_stream <- function() {
  get0(".Random.seed", envir = globalenv(), inherits = FALSE)
}

.restore_random_stream <- function(stream) {
  if (is.null(stream)) {
    suppressWarnings(rm(".Random.seed", envir = globalenv()))
  } else {
    assign(".Random.seed", stream, envir = globalenv())
  }
}

.numpy <- function() {
  if (is.null(.dppack$numpy)) {
    .core()
    .dppack$numpy <- reticulate::import("numpy", convert = FALSE)
  }
  .dppack$numpy
}

#' Bit-identical results in R and Python
#'
#' Evaluates `code` with every DPpackPy call drawing its noise from one NumPy generator seeded
#' by `random_state`. The same calls made in Python with
#' `rng = numpy.random.default_rng(random_state)` passed as `random_state = rng`, in the same
#' order, give bit-identical output. Like `options(DPpackPy.reproducible = TRUE)`, it is for
#' teaching and testing: output that anyone can reproduce from a known seed is not private, so
#' never use it to release real data.
#'
#' Outside `with_random_state()`, by default, each call seeds its noise from the operating
#' system's entropy, and R's random number stream is neither used nor changed: [set.seed()] has
#' no effect on DPpackPy, and two calls after the same `set.seed()` give different output. With
#' `options(DPpackPy.reproducible = TRUE)`, each call instead seeds its noise from 128 bits of
#' R's random number stream (four 32-bit draws), so `set.seed()` makes DPpackPy calls
#' reproducible within R, as it does R's own random functions; a call refused for invalid input
#' then leaves R's stream as it was, as in DPpack.
#'
#' Bit identity holds where R only converts values and the core computes, with the same NumPy
#' and OpenBLAS kernel in both sessions. R functions given to the ERM frameworks as map, loss,
#' regularizer or constraint do arithmetic in R, whose BLAS may round the last bits differently
#' from NumPy's: such fits agree with Python's to the solver's optimality tolerance, not bit
#' for bit.
#'
#' @param random_state A non-negative whole number: the seed of the NumPy generator.
#' @param code Code to evaluate.
#' @return The value of `code`.
#' @export
#' @examplesIf dppack_available()
#' with_random_state(42, LaplaceMechanism(c(1, 2), eps = 1, sensitivities = 1))
#' # Reproducible within R through set.seed(), for teaching and testing only:
#' old <- options(DPpackPy.reproducible = TRUE)
#' set.seed(1)
#' LaplaceMechanism(c(1, 2), eps = 1, sensitivities = 1)
#' options(old)
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
