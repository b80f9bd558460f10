# The R6 side of the core's objects (DESIGN.md, Layers): every R6 class of DPpackPy that stands
# for a Python object (the ERM models, the online mechanisms) inherits CoreObject, which holds
# a reference to that object, "the core", once (compare mlr3's Learner, whose fitted state is
# one object behind active bindings). DPpack's public fields are active bindings onto
# the core's attributes: reading one converts the attribute from Python, assigning one converts
# the value to Python; nothing is copied back and forth.
#
# Copy on write: R never changes a model's core in place. A fit fits a shallow copy of the core
# (then installed), an assignment sets the attribute on a copy, and the tuning functions fit
# copies; so a refused fit leaves the model as it was. R6's clone() copies the reference to the
# core (it has no hook for a shallow clone): a clone notices at its first use of the core that
# it is not the object that built it, and takes a copy of its own (own_core() below), which is
# the core as it was at the clone, as the original never changed it in place. The online
# mechanisms (LaplaceNoiseReductionOnline, InteractiveAboveThreshold) are the exception: their
# core is one mechanism with one privacy state, which every clone shares (`shared` below).

# The core's attribute `attribute` as a Python object, or NULL where it is None or absent (the
# base classes' cores lack the fields that only a subclass uses, e.g. svmDP's kernel).
.core_attribute <- function(core, attribute) {
  if (is.null(core) || !reticulate::py_has_attr(core, attribute)) {
    return(NULL)
  }
  value <- reticulate::py_get_attr(core, attribute)
  if (inherits(value, "python.builtin.NoneType")) NULL else value
}

# A shallow copy of a core object (Python's copy.copy): the attributes are shared, and the core
# only ever replaces them, never changes them in place.
# Python's copy.copy is looked up once per session (a module attribute costs a round trip).
.copy_core <- function(core) {
  if (is.null(.dppack$copy)) {
    .core()
    .dppack$copy <- reticulate::import("copy")$copy
  }
  .dppack$copy(core)
}

# The core object of `x` if `x` is an R6 object over one (see CoreObject's `.core`; a
# BudgetAccountant has one too), else NULL.
.core_of <- function(x) {
  if (inherits(x, "R6") && ".core" %in% names(x)) x$.core else NULL
}

# The R function that stands for the core's function `f`: DPpack's building blocks, which the
# core holds as its own Python functions (dppack.mapXy_sigmoid, ...), are given as the R
# exports of the same name with dots (mapXy.sigmoid, ...); NULL for NULL; anything else stays
# the Python callable, which R can call.
.r_block <- function(f) {
  if (is.null(f)) {
    return(NULL)
  }
  name <- if (reticulate::py_has_attr(f, "__name__")) {
    reticulate::py_to_r(reticulate::py_get_attr(f, "__name__"))
  }
  dppack <- .core()$dppack
  if (is.character(name) && name %in% dppack$`__all__`) {
    r_name <- gsub("_", ".", name, fixed = TRUE)
    if (r_name %in% getNamespaceExports("DPpackPy") &&
        reticulate::py_id(reticulate::py_get_attr(dppack, name)) == reticulate::py_id(f)) {
      return(get(r_name, envir = asNamespace("DPpackPy")))
    }
  }
  reticulate::py_to_r(f)
}

# Active bindings onto attributes of the core, for the `active` list of an R6 class: `fields`
# maps each R field name to the core's attribute; `kind` says how values convert (see
# CoreObject's private `read` and `write`): "value" (as reticulate converts, 1-d arrays as
# vectors; assigned through .to_py), "vector" (a numeric vector, e.g. coeff), "matrix",
# "function" (R functions given read back as themselves), "domain" (a list of functions),
# "result" (a value the core computes: read-only) and "privacy" (the core's PrivacyLoss as a
# privacy_loss: read-only).
.core_bindings <- function(fields, kind = "value") {
  bindings <- lapply(names(fields), function(name) {
    eval(bquote(function(value) private$field(.(name), .(fields[[name]]), .(kind), value)))
  })
  stats::setNames(bindings, names(fields))
}

# The field `privacy` of every class over a core: what its last release spent.
.privacy_field <- .core_bindings(c(privacy = "privacy_"), "privacy")

#' Base of the R6 classes over a Python core object (internal)
#'
#' Every R6 class of DPpackPy that stands for an object of the Python core (the ERM models, the
#' online mechanisms) inherits `CoreObject`, which holds a reference to that object, the
#' "core", once. The classes' fields (DPpack's public fields for the ERM models) are active
#' bindings onto the core's attributes: reading one converts the attribute from Python,
#' assigning one converts the value to Python. A model never changes its core in place: a fit
#' fits a copy, which then replaces the core, and an assignment sets the attribute on a copy;
#' so a `clone()` of a model, deep or not, is independent of the original. The online
#' mechanisms' core is one mechanism with one privacy state: their fields are read-only and
#' their clones share it.
#'
#' DPpackPy's own functions (the tuning functions, [confintDP()]) reach the core through the
#' active binding `.core`; it is internal, not part of the API.
#'
#' @field .core The core object (internal: for DPpackPy's own functions). Assigning one
#'   installs it (the tuning functions install the copies they fitted).
#' @field .fitted What the last `fit()` recorded in R for the model methods ([coef()],
#'   [predict()], ...): the sample size, `add.bias`, the column names, the label set and the
#'   bounds; `NULL` before a fit (internal).
#' @keywords internal
CoreObject <- R6::R6Class(
  "CoreObject",
  public = list(
    #' @description Print the class and its fields, as the core holds them now (for the
    #'   models, `model$print()`; `print(model)` is their short S3 method, see
    #'   [model_methods]).
    #' @param ... Ignored.
    print = function(...) {
      cat("<", class(self)[[1]], ">\n", sep = "")
      names <- ls(self, sorted = TRUE)
      methods <- vapply(names, function(name) {
        !bindingIsActive(name, self) && is.function(self[[name]])
      }, logical(1))
      for (name in names[!methods]) {
        cat("  ", name, ": ", .field_summary(self[[name]]), "\n", sep = "")
      }
      cat("  Methods: ", paste(names[methods], collapse = ", "), "\n", sep = "")
      invisible(self)
    }
  ),
  active = list(
    # The internal accessor of DPpackPy's own functions (tuning, confidence intervals,
    # .core_of()); assigning installs a core (the tuning functions install the fitted copies).
    .core = function(value) {
      if (missing(value)) {
        return(private$own_core())
      }
      if (!inherits(value, "python.builtin.object")) {
        stop(".core must be a Python object of the core.", call. = FALSE)
      }
      private$core <- value
      private$owner <- self
      # an installed core was fitted elsewhere (tuning): the record of the last fit() is
      # stale; the installer records its own (.select_model in tuning.R)
      private$fitted <- NULL
    },
    # What the last fit() recorded in R for the S3 methods (model_methods.R): n, add.bias,
    # the column names, the label set, the bounds; NULL before a fit (internal, read-only
    # except for DPpackPy's own functions, which may record a fit they made).
    .fitted = function(value) {
      if (missing(value)) {
        return(private$fitted)
      }
      private$fitted <- value
    }
  ),
  private = list(
    core = NULL,
    # The R6 object the core belongs to: a clone finds the original here (see own_core()).
    owner = NULL,
    # The record of the last fit (see the active binding .fitted and model_methods.R).
    fitted = NULL,
    # TRUE where the core is one mechanism with a privacy state (the online mechanisms, whose
    # fields are all read-only): clones share it, even deep ones, for a copy would answer again
    # from the same noise; FALSE for the models (copy on write).
    shared = FALSE,
    # The R functions given for the core's function attributes, by attribute: each with the
    # Python callable that reticulate made of it, so that reading the field gives the R function
    # back while the core still holds that callable.
    r_functions = list(),
    # The R values of the core's arrays (coeff, prefilter), by attribute, each with the array
    # it was converted from (see read_array()).
    arrays = list(),

    # Build the core: the core's class `.class` called with `...`, as the user's call `.caller`
    # (dotted names: `c = ` must not match them).
    new_core = function(.caller, .class, ...) {
      private$core <- .call_core(.class, ..., .caller = .caller)
      private$owner <- self
      arguments <- list(...)
      for (attribute in names(arguments)) {
        private$remember(attribute, arguments[[attribute]])
      }
      invisible(self)
    },

    # The core of this object: a clone's first use gives it a copy of its own (top of the file).
    own_core = function() {
      if (!identical(private$owner, self)) {
        if (!private$shared && !is.null(private$core)) {
          private$core <- .copy_core(private$core)
        }
        private$owner <- self
      }
      private$core
    },

    # Record the R function `value` given for `attribute` with the callable the core now holds,
    # `py`; for a domain (a list of functions) each function with the dict's entry.
    remember = function(attribute, value,
                        py = .core_attribute(private$own_core(), attribute)) {
      if (is.function(value)) {
        private$r_functions[[attribute]] <- list(r = value, py = py)
      } else if (is.list(value) && !is.object(value) && inherits(py, "python.builtin.dict")) {
        for (name in names(value)) {
          private$remember(paste0(attribute, "$", name), value[[name]],
                           reticulate::py_get_item(py, name, silent = TRUE))
        }
      }
    },

    # The active binding of the field `name` (the core's `attribute`, converted as `kind`):
    # read it, or, with `value`, assign it.
    field = function(name, attribute, kind, value) {
      if (missing(value)) {
        return(private$read(attribute, kind))
      }
      if (kind %in% c("result", "privacy")) {
        .read_only(value, name)
      }
      private$write(attribute, kind, value)
    },

    read = function(attribute, kind) {
      value <- .core_attribute(private$own_core(), attribute)
      switch(
        kind,
        "function" = private$read_function(attribute, value),
        domain = if (inherits(value, "python.builtin.dict")) {
          names <- names(reticulate::py_to_r(value))
          stats::setNames(lapply(names, function(name) {
            private$read_function(paste0(attribute, "$", name),
                                  reticulate::py_get_item(value, name))
          }), names)
        } else if (!is.null(value)) {
          reticulate::py_to_r(value)
        },
        privacy = .privacy_loss_from_py(value),
        vector = ,
        matrix = private$read_array(attribute, value),
        .drop_1d(if (!is.null(value)) reticulate::py_to_r(value))
      )
    },

    # The R value of the core's array `value` in `attribute`, converted once per array: the
    # core replaces its arrays and never changes them in place, and a conversion from NumPy
    # costs about a millisecond (reticulate 1.28), too much for every read of model$coeff.
    read_array = function(attribute, value) {
      seen <- private$arrays[[attribute]]
      if (is.null(value) || is.null(seen$py) ||
          reticulate::py_id(seen$py) != reticulate::py_id(value)) {
        seen <- list(py = value, r = .drop_1d(if (!is.null(value)) reticulate::py_to_r(value)))
        private$arrays[[attribute]] <- seen
      }
      seen$r
    },

    # The R form of the core's function in `attribute`: the R function given for it if the
    # core still holds that one, else the core's own (see .r_block and builtin_function).
    read_function = function(attribute, value) {
      given <- private$r_functions[[attribute]]
      if (!is.null(value) && !is.null(given$py) &&
          reticulate::py_id(given$py) == reticulate::py_id(value)) {
        return(given$r)
      }
      builtin <- if (!is.null(value)) private$builtin_function(attribute)
      if (!is.null(builtin)) builtin else .r_block(value)
    },

    # A class's R form of its core's own closures (svmDP's Huber loss); NULL here.
    builtin_function = function(attribute) NULL,

    # Assign `value` to the core's `attribute`, on a copy of the core (see the top of the file).
    write = function(attribute, kind, value) {
      if (is.null(private$own_core())) {
        stop("The model's core is not built yet: call the parent's initialize() first.",
             call. = FALSE)
      }
      # functions and domains go as reticulate converts them, as to the constructor
      converted <- switch(
        kind,
        vector = .py_vector(value),
        matrix = if (!is.null(value)) reticulate::r_to_py(as.matrix(value)),
        "function" = ,
        domain = value,
        .to_py(value)
      )
      core <- .copy_core(private$core)
      reticulate::py_set_attr(core, attribute, converted)
      private$core <- core
      private$remember(attribute, value)
      invisible(self)
    },

    # Fit a copy of the core with the data arguments DPpack's fit methods share, plus `...`
    # (converted by the caller); the copy replaces the core once the fit has succeeded. The
    # accountant is checked first, before anything else is converted.
    fit_data = function(caller, accountant, X, y, upper.bounds, lower.bounds, add.bias, ...) {
      accountant <- .accountant(accountant, caller)
      # a factor or logical y of a classifier becomes the core's 0/1 (model_methods.R)
      labels <- .encode_labels(self, y, caller)
      core <- .copy_core(private$own_core())
      .call_core("fit", accountant = accountant, X = .design_to_py(X), y = .to_py(labels$y),
                 upper_bounds = .to_py(upper.bounds), lower_bounds = .to_py(lower.bounds),
                 add_bias = .to_py(add.bias), ..., random_state = .random_state(),
                 .object = core, .caller = caller)
      private$core <- core
      private$fitted <- .fit_record(X, labels, upper.bounds, lower.bounds, add.bias)
      invisible(self)
    },

    # Predictions of the core (n x 1, as DPpack), from its current coeff: like DPpack's predict,
    # they use model$coeff as it is now, also when the user assigned it.
    predict_data = function(caller, X, add.bias, ...) {
      if (!.values_in_r(X)) {
        # The predictions of a dataset are as large as the dataset: R would have to hold them.
        stop("predict() does not take a dppack_dataset: its predictions would be loaded into ",
             "R. Predict on the rows you need as a data.frame or matrix, or from Python, ",
             "where predict() on Dask data returns a lazy Dask array.", call. = FALSE)
      }
      .column(.call_core("predict", X = .to_py(X), add_bias = .to_py(add.bias), ...,
                         .object = private$own_core(), .caller = caller))
    },

    # clone(deep = TRUE): the core and its owner as for clone() (see own_core()); R6 objects in
    # the fields of an R subclass are cloned deeply, as R6 does.
    deep_clone = function(name, value) {
      if (name %in% c("core", "owner")) {
        return(value)
      }
      if (inherits(value, "R6") && is.function(value$clone)) {
        return(value$clone(deep = TRUE))
      }
      value
    }
  )
)

# One line of print() for a field's value.
.field_summary <- function(value) {
  if (is.null(value)) {
    return("NULL")
  }
  if (inherits(value, "privacy_loss")) {
    return(format(value))
  }
  if (is.function(value)) {
    return(if (inherits(value, "python.builtin.object")) "Python function" else "function")
  }
  if (is.atomic(value)) {
    shown <- paste(format(as.vector(value)[seq_len(min(6, length(value)))]), collapse = " ")
    return(if (length(value) > 6) paste(shown, "...") else shown)
  }
  class(value)[[1]]
}

# A numeric vector as a 1-d NumPy array (also of length one), or None for NULL.
.py_vector <- function(x) {
  if (is.null(x)) NULL else reticulate::r_to_py(as.array(as.numeric(x)))
}
