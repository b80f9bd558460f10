# Privacy accounting in R: the privacy-loss value, the budget accountant and the session's
# default accountant. Every rule (composition, conversion, the budget check) is the core's
# (dppack.accounting); R holds the core's objects and converts what they report.

#' Privacy losses
#'
#' What a release spends, as one value: pure eps-differential privacy, approximate
#' (eps, delta)-differential privacy, or rho-zero-concentrated differential privacy (zCDP, Bun
#' and Steinke 2016). A `privacy_loss` is a list of class `"privacy_loss"` with the element
#' `kind` (`"pure"`, `"approx"` or `"zcdp"`) and the numbers of that kind: `eps` and `delta`
#' (0 for a pure loss), or `rho`. It prints as the Python core prints it.
#'
#' The constructors check their arguments in the core: `eps` and `rho` finite and at least 0,
#' `delta` in \[0, 1); `privacy_loss_approx(eps, 0)` is the pure loss. Losses compose in
#' sequence with `+` or `privacy_loss_compose()`, in parallel, on disjoint parts of the data,
#' with `privacy_loss_parallel()`, and `privacy_loss_to_approx()` states a loss as
#' (eps, delta)-DP at a given delta (the rules and their sources are in the guide page
#' `docs/python/guide/accounting.rst`, "Privacy losses and composition"). All of this is
#' computed by the Python core (`dppack.PrivacyLoss`), so R and Python agree exactly.
#'
#' Releases report what they spent with these values: a fitted model's `$privacy`, and the
#' ledger of a [BudgetAccountant].
#'
#' @param eps Finite number >= 0.
#' @param delta For `privacy_loss_approx()`, a number in \[0, 1); for
#'   `privacy_loss_to_approx()`, in (0, 1).
#' @param rho Finite number >= 0.
#' @param loss A `privacy_loss`.
#' @param ... `privacy_loss` values.
#' @param e1,e2 `privacy_loss` values.
#' @param x A `privacy_loss`.
#' @return A `privacy_loss`; `format()` a string.
#' @references Bun M, Steinke T (2016). Concentrated differential privacy: simplifications,
#'   extensions, and lower bounds. Theory of Cryptography Conference.
#'
#'   Canonne CL, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
#'   NeurIPS 33.
#'
#'   Dwork C, Roth A (2014). The algorithmic foundations of differential privacy.
#'
#'   McSherry F (2009). Privacy integrated queries. SIGMOD.
#' @seealso [BudgetAccountant], [with_accountant()]
#' @export
#' @examplesIf dppack_available()
#' privacy_loss_pure(0.5) + privacy_loss_approx(0.25, 1e-6)
#' privacy_loss_pure(0.5) + privacy_loss_zcdp(0.125)
#' privacy_loss_parallel(privacy_loss_pure(0.5), privacy_loss_pure(1))
#' privacy_loss_to_approx(privacy_loss_zcdp(0.5), delta = 1e-6)
privacy_loss_pure <- function(eps) {
  .loss_method("pure", eps = eps, .caller = sys.call())
}

#' @rdname privacy_loss_pure
#' @export
privacy_loss_approx <- function(eps, delta) {
  .loss_method("approx", eps = eps, delta = delta, .caller = sys.call())
}

#' @rdname privacy_loss_pure
#' @export
privacy_loss_zcdp <- function(rho) {
  .loss_method("zcdp", rho = rho, .caller = sys.call())
}

#' @rdname privacy_loss_pure
#' @export
privacy_loss_compose <- function(...) {
  .privacy_loss_combine("compose", list(...), sys.call())
}

#' @rdname privacy_loss_pure
#' @export
privacy_loss_parallel <- function(...) {
  .privacy_loss_combine("parallel", list(...), sys.call())
}

#' @rdname privacy_loss_pure
#' @export
privacy_loss_to_approx <- function(loss, delta) {
  caller <- sys.call()
  .loss_method("to_approx", delta = delta, .object = .privacy_loss_to_py(loss, "loss", caller),
               .caller = caller)
}

#' @rdname privacy_loss_pure
#' @export
`+.privacy_loss` <- function(e1, e2) {
  .privacy_loss_combine("compose", list(e1, e2), sys.call())
}

#' @rdname privacy_loss_pure
#' @export
format.privacy_loss <- function(x, ...) {
  reticulate::py_str(.privacy_loss_to_py(x, "x", sys.call()))
}

#' @rdname privacy_loss_pure
#' @export
print.privacy_loss <- function(x, ...) {
  cat("<privacy loss> ", format(x), "\n", sep = "")
  invisible(x)
}

# The privacy loss that the method `name` of the core object `.object` returns, by default
# a static method of the core's PrivacyLoss (a constructor, compose, parallel).
.loss_method <- function(name, ..., .object = .privacy_loss_class(), .caller) {
  .privacy_loss_from_py(.call_core(name, ..., .object = .object, .caller = .caller))
}

# Sequential or parallel composition of R losses, by the core's PrivacyLoss.compose/parallel.
.privacy_loss_combine <- function(how, losses, caller) {
  py_losses <- lapply(seq_along(losses), function(i) {
    .privacy_loss_to_py(losses[[i]], paste0("argument ", i), caller)
  })
  .loss_method(how, .positional = py_losses, .caller = caller)
}

#' A privacy budget and its ledger
#'
#' A budget (eps, delta) and a record of what releases spent from it. Give it to a release as
#' `accountant =` (every DPpackPy release function and model `$fit()` takes this argument
#' last, so DPpack calls are unchanged), or make it the default of a block of code with
#' [with_accountant()]. Each release then checks, before it touches the data or draws noise,
#' that its loss fits what remains, and stops with an error that names the budget, the spend
#' and the remainder if it does not: nothing is recorded, no noise drawn, and R's random
#' stream is left as it was. Otherwise the release is recorded in the ledger under the
#' function's name. The error has the class `"DPpackPy_budget_exceeded"` (then `"error"`,
#' `"condition"`), so `tryCatch(..., DPpackPy_budget_exceeded = function(e) ...)` catches an
#' overspend alone (Python: `dppack.BudgetExceededError`, a `ValueError`).
#'
#' Totals are compared with the budget exactly: the spends' eps's (delta's, rho's) are added
#' as the exact values of their doubles and the total rounded up, so ten spends of 0.1 do not
#' fit a budget of 1 (the double 0.1 is slightly above 1/10) while 0.5 + 0.25 + 0.25 does.
#'
#' The state lives once, in the Python core's `dppack.BudgetAccountant`, which this object
#' holds: the total spent is the basic composition of the spends (eps's and delta's add), or,
#' when smaller, their composition in zCDP converted to (eps, delta) at the budget's delta; a
#' zCDP spend needs `delta > 0`. The one entry of a [LaplaceNoiseReductionOnline] (restated
#' as its current level) is always added basically to that total: its level is chosen as the
#' releases go, which the zCDP route does not allow for. An accountant made in R and one made
#' in Python with the same releases hold the same ledger.
#'
#' @field budget The budget, a [privacy_loss][privacy_loss_pure] (read-only).
#' @field spent The total spent so far, a [privacy_loss][privacy_loss_pure] (read-only).
#' @field composition How `spent` is composed: `"none"`, `"basic"`, `"zCDP"` or
#'   `"zCDP + basic"` (read-only).
#' @field ledger A data.frame of the spends in order, one row each: `label` (the release's
#'   function name, or the label given to `$spend()`), `kind`, `eps`, `delta` (`NA` for a zCDP
#'   spend) and `rho` (`NA` otherwise) (read-only).
#' @field .core The core's accountant (internal: for DPpackPy's own functions; read-only).
#' @references Dwork C, Roth A (2014). The algorithmic foundations of differential privacy,
#'   Theorem 3.16.
#'
#'   Bun M, Steinke T (2016). Concentrated differential privacy: simplifications,
#'   extensions, and lower bounds. TCC.
#'
#'   Canonne CL, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy,
#'   Corollary 13. NeurIPS 33.
#' @seealso [with_accountant()], [privacy_loss_pure()]
#' @export
#' @examplesIf dppack_available()
#' acc <- BudgetAccountant$new(eps = 1)
#' x <- c(1.2, 3.4, 2.2, 5.0, 4.1)
#' meanDP(x, eps = 0.5, lower.bound = 0, upper.bound = 6, accountant = acc)
#' varDP(x, eps = 0.25, lower.bound = 0, upper.bound = 6, accountant = acc)
#' acc
#' acc$remaining()
#' # An overspend is refused before the data are touched:
#' try(sdDP(x, eps = 0.5, lower.bound = 0, upper.bound = 6, accountant = acc))
#' acc$ledger
BudgetAccountant <- R6::R6Class(
  "BudgetAccountant",
  cloneable = FALSE,
  public = list(
    #' @description Create an accountant with nothing spent.
    #' @param eps The budget's eps, a finite number > 0.
    #' @param delta The budget's delta, in \[0, 1).
    initialize = function(eps, delta = 0) {
      private$py <- .call_core("BudgetAccountant", eps = eps, delta = delta,
                               .caller = sys.call(-1))
    },
    #' @description The budget minus what is spent, eps and delta each at least 0.
    #' @return A [privacy_loss][privacy_loss_pure].
    remaining = function() {
      .loss_method("remaining", .object = private$py, .caller = sys.call())
    },
    #' @description Stop with an error if spending `loss` would exceed the budget; record
    #'   nothing.
    #' @param loss A [privacy_loss][privacy_loss_pure].
    #' @return The total that the spend would bring, a [privacy_loss][privacy_loss_pure].
    check = function(loss) {
      caller <- sys.call()
      .loss_method("check", loss = .privacy_loss_to_py(loss, "loss", caller),
                   .object = private$py, .caller = caller)
    },
    #' @description Record `loss` under `label` if it fits the budget, else stop with an
    #'   error and record nothing.
    #' @param loss A [privacy_loss][privacy_loss_pure].
    #' @param label What was released, a string; by default `"spend <n>"`.
    #' @return The accountant, invisibly.
    spend = function(loss, label = NULL) {
      caller <- sys.call()
      .call_core("spend", loss = .privacy_loss_to_py(loss, "loss", caller), label = label,
                 .object = private$py, .caller = caller)
      invisible(self)
    },
    #' @description Print the budget, the ledger, the total spent and the remainder, as the
    #'   core writes them.
    #' @param ... Ignored.
    print = function(...) {
      cat(reticulate::py_str(private$py), "\n", sep = "")
      invisible(self)
    }
  ),
  active = list(
    # The internal accessor of .accountant() (as CoreObject's `.core`).
    .core = function(value) {
      .read_only(value, ".core")
      private$py
    },
    budget = function(value) {
      .read_only(value, "budget")
      .privacy_loss_from_py(reticulate::py_get_attr(private$py, "budget"))
    },
    spent = function(value) {
      .read_only(value, "spent")
      .privacy_loss_from_py(reticulate::py_get_attr(private$py, "spent"))
    },
    composition = function(value) {
      .read_only(value, "composition")
      reticulate::py_to_r(reticulate::py_get_attr(private$py, "composition"))
    },
    ledger = function(value) {
      .read_only(value, "ledger")
      .ledger_frame(reticulate::py_to_r(reticulate::py_get_attr(private$py, "ledger")))
    }
  ),
  private = list(
    py = NULL
  )
)

# Refuse an assignment to the read-only active binding `name` (`value` is missing on a read).
.read_only <- function(value, name) {
  if (!missing(value)) {
    stop(name, " is read-only.", call. = FALSE)
  }
}

# The core's ledger, a list of (label, PrivacyLoss) pairs, as a data.frame.
.ledger_frame <- function(entries) {
  losses <- lapply(entries, function(entry) .privacy_loss_from_py(entry[[2]]))
  number <- function(name) {
    vapply(losses, function(loss) if (is.null(loss[[name]])) NA_real_ else loss[[name]],
           numeric(1))
  }
  data.frame(
    label = vapply(entries, function(entry) as.character(entry[[1]]), character(1)),
    kind = vapply(losses, function(loss) loss$kind, character(1)),
    eps = number("eps"),
    delta = number("delta"),
    rho = number("rho"),
    stringsAsFactors = FALSE
  )
}

#' Charge a block of code to a budget
#'
#' Evaluates `code` with `accountant` as the default accountant of every DPpackPy release in
#' it: a release called without `accountant =` is checked against `accountant`'s budget and
#' recorded in its ledger, once per call (a release built from others, such as a tuning
#' function, is recorded once, as a whole). A release given its own `accountant =` charges
#' that one instead. Blocks nest: the innermost accountant is charged. The previous default
#' is restored when `code` finishes, also on an error. This is the R form of Python's
#' `with BudgetAccountant(...)` block, which it uses.
#'
#' @param accountant A [BudgetAccountant].
#' @param code Code to evaluate.
#' @return The value of `code`.
#' @seealso [BudgetAccountant], [with_random_state()]
#' @export
#' @examplesIf dppack_available()
#' acc <- BudgetAccountant$new(eps = 2)
#' x <- c(1.2, 3.4, 2.2, 5.0, 4.1)
#' with_accountant(acc, {
#'   m <- meanDP(x, eps = 1, lower.bound = 0, upper.bound = 6)
#'   s <- sdDP(x, eps = 0.5, lower.bound = 0, upper.bound = 6)
#' })
#' acc$ledger
with_accountant <- function(accountant, code) {
  if (!inherits(accountant, "BudgetAccountant")) {
    stop(simpleError("accountant must be a BudgetAccountant.", call = sys.call()))
  }
  py <- .accountant(accountant)
  py$`__enter__`()
  on.exit(py$`__exit__`(NULL, NULL, NULL), add = TRUE)
  force(code)
}

# The privacy loss that the core object `core` (a fitted model, an online release) reports in
# its attribute `privacy_`, as a privacy_loss; NULL before a fit or where there is none.
.core_privacy <- function(core) {
  if (is.null(core) || !reticulate::py_has_attr(core, "privacy_")) {
    return(NULL)
  }
  .privacy_loss_from_py(reticulate::py_get_attr(core, "privacy_"))
}
