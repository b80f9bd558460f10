# The formula front end: lmDP() and glmDP() turn a formula, a data.frame and bounds by variable
# into the design matrix, its column bounds and the labels of LinearRegressionDP and
# LogisticRegressionDP, fit the R6 model and wrap it with what predict() needs (terms, factor
# levels, contrasts). No privacy arithmetic here: the noise, the clipping that the guarantee
# rests on and the accounting are the R6 model's, i.e. the core's. What R derives is public:
# the bounds of each design column, by interval arithmetic on the bounds the user gave (never
# from the data), and the design itself, as model.matrix() builds it with the factors' declared
# levels.

# Monotone functions whose bounds follow from the bounds of their argument: each with the
# smallest lower bound of the argument it is defined (and finite) for, and whether that lower
# bound itself is allowed.
.formula_monotone <- list(
  log = list(f = log, lower = 0, closed = FALSE),
  log2 = list(f = log2, lower = 0, closed = FALSE),
  log10 = list(f = log10, lower = 0, closed = FALSE),
  log1p = list(f = log1p, lower = -1, closed = FALSE),
  sqrt = list(f = sqrt, lower = 0, closed = TRUE),
  exp = list(f = exp, lower = -Inf, closed = TRUE),
  expm1 = list(f = expm1, lower = -Inf, closed = TRUE)
)

# The smallest interval c(lower, upper) holding every product of a value of `a` and one of `b`.
.interval_product <- function(a, b) {
  ends <- c(a[1] * b, a[2] * b)
  c(min(ends), max(ends))
}

# Bounds c(lower, upper) of the expression `expr` of the formula for every row whose numeric
# variables lie within `bounds` (a named list of c(lower, upper)), by interval arithmetic:
# numbers, variables, `(`, I(), + - * / ^ and the functions of .formula_monotone, plus abs().
# The interval may be wider than the values can reach (x - x gives c(l - u, u - l)), never
# narrower. Anything else stops with an error naming `term` (the variable of the formula).
.formula_interval <- function(expr, bounds, term) {
  refuse <- function(why) {
    stop("Cannot derive bounds for ", term, " from the bounds of its variables: ", why,
         call. = FALSE)
  }
  interval <- function(e) .formula_interval(e, bounds, term)
  if (is.numeric(expr) && length(expr) == 1 && is.finite(expr)) {
    return(c(expr, expr))
  }
  if (is.name(expr)) {
    name <- as.character(expr)
    if (is.null(bounds[[name]])) {
      refuse(paste0(name, " is not a numeric variable with bounds."))
    }
    return(bounds[[name]])
  }
  if (!is.call(expr) || !is.name(expr[[1]])) {
    refuse(paste0("unsupported expression ", .deparse_one(expr), "."))
  }
  f <- as.character(expr[[1]])
  args <- as.list(expr)[-1]
  if (f %in% c("(", "I") && length(args) == 1) {
    return(interval(args[[1]]))
  }
  if (f %in% c("+", "-") && length(args) == 1) {
    a <- interval(args[[1]])
    return(if (f == "+") a else c(-a[2], -a[1]))
  }
  if (f %in% c("+", "-", "*", "/", "^") && length(args) == 2) {
    a <- interval(args[[1]])
    b <- interval(args[[2]])
    out <- switch(
      f,
      "+" = a + b,
      "-" = c(a[1] - b[2], a[2] - b[1]),
      "*" = .interval_product(a, b),
      "/" = {
        if (b[1] <= 0 && b[2] >= 0) {
          refuse(paste0("the bounds of the divisor ", .deparse_one(args[[2]]),
                        " contain 0."))
        }
        .interval_product(a, c(1 / b[2], 1 / b[1]))
      },
      "^" = {
        if (b[1] != b[2]) {
          refuse("an exponent must be a number.")
        }
        k <- b[1]
        contains_zero <- a[1] <= 0 && a[2] >= 0
        if (k != round(k) && a[1] < 0) {
          refuse(paste0("a fractional power needs ", .deparse_one(args[[1]]), " >= 0."))
        }
        if (k < 0 && contains_zero) {
          refuse(paste0("a negative power needs bounds of ", .deparse_one(args[[1]]),
                        " without 0."))
        }
        if (k > 0 && k == round(k) && k %% 2 == 0 && contains_zero) {
          c(0, max(a^k))
        } else {
          range(a^k)
        }
      }
    )
  } else if (f %in% names(.formula_monotone) && length(args) == 1) {
    a <- interval(args[[1]])
    g <- .formula_monotone[[f]]
    if (a[1] < g$lower || (!g$closed && a[1] == g$lower)) {
      refuse(paste0(f, "() needs a lower bound of ", .deparse_one(args[[1]]),
                    if (g$closed) " >= " else " > ", g$lower, "."))
    }
    out <- g$f(a)
  } else if (f == "abs" && length(args) == 1) {
    a <- interval(args[[1]])
    out <- if (a[1] <= 0 && a[2] >= 0) c(0, max(abs(a))) else range(abs(a))
  } else {
    refuse(paste0(
      f, "() is not supported. Supported: + - * / ^, I(), abs(), ",
      paste0(names(.formula_monotone), "()", collapse = ", "),
      "; or add the transformed variable to data and give its bounds."
    ))
  }
  if (!all(is.finite(out))) {
    refuse("its bounds are not finite.")
  }
  out
}

# An expression as one line of text.
.deparse_one <- function(expr) {
  paste(deparse(expr, width.cutoff = 500L), collapse = " ")
}

# How a column of data enters a formula: "numeric" (needs bounds), "factor" (its declared
# levels, dummies bounded by the coding), "logical" (a factor with levels FALSE and TRUE), or
# NA for anything else.
.formula_kind <- function(column) {
  if (is.factor(column)) {
    return("factor")
  }
  if (is.logical(column)) {
    return("logical")
  }
  if (is.numeric(column) && !is.object(column) && is.null(dim(column))) {
    return("numeric")
  }
  NA_character_
}

# Everything lmDP() and glmDP() decide before any value of the data is read, from the formula,
# the classes and declared levels of the columns, and the bounds: the terms, the kind of each
# variable, the checked bounds of the numeric ones (every one used must have bounds, in
# `bounds`), and the interval of each variable of the formula. `bounded_response` says whether
# the response needs bounds (lmDP) or is a label (glmDP). Errors name the function's caller.
.formula_plan <- function(formula, data, bounds, bounded_response) {
  if (!inherits(formula, "formula") || length(formula) != 3) {
    stop("formula must be a formula with a response, such as y ~ x + f.", call. = FALSE)
  }
  if (!is.data.frame(data)) {
    stop("data must be a data.frame.", call. = FALSE)
  }
  if (!is.list(bounds) || is.object(bounds) || (length(bounds) > 0 &&
      (is.null(names(bounds)) || any(names(bounds) == "")))) {
    stop("bounds must be a named list of c(lower, upper) by variable, such as ",
         "list(age = c(20, 80)).", call. = FALSE)
  }
  terms <- stats::terms(formula, data = data)
  if (!is.null(attr(terms, "offset"))) {
    stop("offset() is not supported in the formula.", call. = FALSE)
  }
  variables <- as.list(attr(terms, "variables"))[-1]
  labels <- vapply(variables, .deparse_one, character(1))
  response <- attr(terms, "response")
  # the columns each variable uses: all must be columns of data
  used <- lapply(variables, all.vars)
  names_used <- unique(unlist(used))
  absent <- setdiff(names_used, names(data))
  if (length(absent) > 0) {
    stop("The formula uses variables that are not columns of data: ",
         paste(absent, collapse = ", "), ".", call. = FALSE)
  }
  kinds <- vapply(names_used, function(name) .formula_kind(data[[name]]), character(1))
  character <- names_used[vapply(names_used, function(name) is.character(data[[name]]),
                                 logical(1))]
  if (length(character) > 0) {
    stop("Character columns have no declared levels (model.matrix would take them from the ",
         "data): make them factors with their levels, e.g. factor(x, levels = c(\"a\", ",
         "\"b\")): ", paste(character, collapse = ", "), ".", call. = FALSE)
  }
  if (anyNA(kinds)) {
    stop("Columns must be numeric, factor or logical: ",
         paste(names_used[is.na(kinds)], collapse = ", "), ".", call. = FALSE)
  }
  # the variables whose bounds matter: those of the predictors, and the response's for lmDP
  bounded <- seq_along(variables)
  if (response > 0 && !bounded_response) {
    bounded <- setdiff(bounded, response)
  }
  numeric_needed <- intersect(unique(unlist(used[bounded])), names_used[kinds == "numeric"])
  missing_bounds <- setdiff(numeric_needed, names(bounds))
  if (length(missing_bounds) > 0) {
    stop("bounds must give c(lower, upper) for every numeric variable of the formula; ",
         "missing: ", paste(missing_bounds, collapse = ", "), ".", call. = FALSE)
  }
  for (name in numeric_needed) {
    b <- bounds[[name]]
    if (!is.numeric(b) || length(b) != 2 || !all(is.finite(b)) || b[1] >= b[2]) {
      stop("bounds$", name, " must be c(lower, upper), two finite numbers with lower < ",
           "upper.", call. = FALSE)
    }
  }
  numeric_bounds <- lapply(bounds[numeric_needed], as.numeric)
  # factors or logicals inside a transformation (as.numeric(f), f == "a") have no bounds
  inside <- names_used[kinds != "numeric"]
  for (i in bounded) {
    if (!is.name(variables[[i]]) && any(used[[i]] %in% inside)) {
      stop("Cannot derive bounds for ", labels[[i]], ": factors and logicals can only enter ",
           "the formula as they are.", call. = FALSE)
    }
  }
  intervals <- vector("list", length(variables))
  for (i in bounded) {
    expr <- variables[[i]]
    name <- if (is.name(expr)) as.character(expr) else ""
    kind <- if (nzchar(name)) kinds[[name]] else "numeric"
    intervals[[i]] <- if (kind == "numeric") {
      .formula_interval(expr, numeric_bounds, labels[[i]])
    } else if (kind == "logical") {
      c(0, 1)
    } else {
      if (nlevels(data[[name]]) < 2) {
        stop("Factor ", name, " must have at least two levels.", call. = FALSE)
      }
      # the values of its dummy columns: the coding of its declared levels (0 and 1 for the
      # default treatment contrasts, or for the full indicator coding without an intercept)
      range(c(0, 1, stats::contrasts(data[[name]])))
    }
  }
  list(terms = terms, labels = labels, intervals = intervals, response = response,
       numeric_bounds = numeric_bounds, kinds = kinds)
}

# The model frame of `data` for `plan`, its numeric variables first clipped to their bounds (a
# copy: the caller's data is not changed), so that a transformation sees values in its domain
# and the design columns lie within the intervals of the plan; the R6 model clips the columns
# again. Rows with a missing value stop the fit (see lmDP's "Missing values").
.formula_frame <- function(plan, data, na.action) {
  na_action <- if (is.function(na.action)) {
    if (identical(na.action, stats::na.fail)) "na.fail" else "other"
  } else if (is.character(na.action) && length(na.action) == 1) {
    na.action
  } else {
    "other"
  }
  if (na_action != "na.fail") {
    stop("na.action must be na.fail: rows with missing values are not dropped, as which ",
         "rows remain would depend on the data and change the number of rows the privacy ",
         "guarantee assumes. Remove or impute them before the call, by a rule that does not ",
         "look at the data.", call. = FALSE)
  }
  used <- unique(unlist(lapply(as.list(attr(plan$terms, "variables"))[-1], all.vars)))
  incomplete <- used[vapply(used, function(name) {
    column <- data[[name]]
    if (is.numeric(column)) !all(is.finite(column)) else anyNA(column)
  }, logical(1))]
  if (length(incomplete) > 0) {
    stop("data has missing or infinite values (NA, NaN or Inf) in: ",
         paste(incomplete, collapse = ", "), ". They are refused, not dropped: remove or ",
         "impute them before the call.", call. = FALSE)
  }
  for (name in names(plan$numeric_bounds)) {
    b <- plan$numeric_bounds[[name]]
    data[[name]] <- pmin(pmax(data[[name]], b[1]), b[2])
  }
  stats::model.frame(plan$terms, data, na.action = stats::na.fail,
                     drop.unused.levels = FALSE)
}

# The design of a model frame: model.matrix() without its intercept column (the R6 model's
# add.bias stands for it), the bounds of each column (the product of the intervals of the
# variables in its term), the contrasts and factor levels for predict().
.formula_design <- function(plan, frame) {
  X <- stats::model.matrix(plan$terms, frame)
  assign <- attr(X, "assign")
  contrasts <- attr(X, "contrasts")
  add_bias <- attr(plan$terms, "intercept") == 1
  keep <- assign != 0
  factors <- attr(plan$terms, "factors")
  # the rows of `factors` are the variables of the formula, in order
  positions <- seq_len(NROW(factors))
  lower <- upper <- numeric(sum(keep))
  for (j in seq_len(sum(keep))) {
    term <- assign[keep][j]
    in_term <- positions[factors[, term] > 0]
    interval <- c(1, 1)
    for (i in in_term) {
      interval <- .interval_product(interval, plan$intervals[[i]])
    }
    lower[j] <- interval[1]
    upper[j] <- interval[2]
  }
  X <- X[, keep, drop = FALSE]
  attr(X, "assign") <- NULL
  attr(X, "contrasts") <- NULL
  names(lower) <- names(upper) <- colnames(X)
  list(X = X, lower = lower, upper = upper, add.bias = add_bias, contrasts = contrasts,
       xlevels = stats::.getXlevels(plan$terms, frame))
}

# Run `code` (the R6 model's constructor or fit) so that its errors come from `caller`, the
# user's call of lmDP() or glmDP().
.formula_as_caller <- function(code, caller) {
  tryCatch(code, error = function(e) stop(simpleError(conditionMessage(e), call = caller)))
}

# The checked plan, the response and the design of a fit of `formula` to `data`: `label` is
# TRUE for glmDP's binary response (a factor with two declared levels, a logical or 0/1,
# given to the model as it is: its fit() encodes labels), FALSE for lmDP's numeric one, which
# needs bounds. Everything that can be checked without reading the data's values is checked
# before they are read (the accountant too).
.formula_data <- function(formula, data, bounds, label, na.action, accountant) {
  plan <- .formula_plan(formula, data, bounds, bounded_response = !label)
  if (plan$response == 0) {
    stop("formula must be a formula with a response, such as y ~ x + f.", call. = FALSE)
  }
  response <- as.list(attr(plan$terms, "variables"))[-1][[plan$response]]
  check_levels <- function(levels) {
    if (length(levels) != 2) {
      stop("A factor response of glmDP() must have two levels (declared with factor(y, ",
           "levels = ...)); ", plan$labels[[plan$response]], " has ", length(levels), ".",
           call. = FALSE)
    }
  }
  if (label && is.name(response) && is.factor(data[[as.character(response)]])) {
    check_levels(levels(data[[as.character(response)]]))
  }
  .accountant(accountant)
  frame <- .formula_frame(plan, data, na.action)
  y <- stats::model.response(frame)
  if (!is.null(dim(y)) || !(is.numeric(y) || (label && (is.factor(y) || is.logical(y))))) {
    stop(if (label) {
      "The response of glmDP() must be 0/1, logical or a factor with two levels."
    } else {
      "The response of lmDP() must be one numeric variable."
    }, call. = FALSE)
  }
  # A factor built inside the formula (factor(z > 100)) takes its levels from the data: the
  # label set must be public, so only a factor column of data (declared levels) is accepted.
  if (is.factor(y) && !is.name(response)) {
    stop("The response of glmDP() must be a column of data or I(<logical expression>): a ",
         "factor made inside the formula takes its levels from the data.", call. = FALSE)
  }
  if (is.factor(y)) {
    check_levels(levels(y))
  }
  list(plan = plan, y = if (is.numeric(y)) as.numeric(y) else y,
       design = .formula_design(plan, frame))
}

# The object lmDP() and glmDP() return: the fitted model and what predict() needs; no data.
.formula_fit <- function(class, model, fitted, call, formula, extra = list()) {
  structure(
    c(list(model = model, call = call, formula = formula, terms = fitted$plan$terms,
           xlevels = fitted$design$xlevels, contrasts = fitted$design$contrasts,
           bounds = fitted$plan$numeric_bounds, add.bias = fitted$design$add.bias),
      extra),
    class = c(class, "dppack_model_fit")
  )
}

#' Private linear and logistic regression with a formula
#'
#' `lmDP()` fits a [LinearRegressionDP] and `glmDP()` a [LogisticRegressionDP] to the design
#' that a formula describes, as [stats::lm()] and [stats::glm()] would build it, with public
#' bounds given by variable. They return an object with `coef()`, `predict()`, `print()`,
#' `summary()`, `nobs()`, `formula()` and, for `glmDP()`, `confint()`. The object holds the
#' fitted R6 model (`$model`) but no data.
#'
#' @section Bounds:
#' `bounds` is a named list with `c(lower, upper)` for each numeric variable the formula uses,
#' for `lmDP()` also the response's: `list(age = c(20, 80), bmi = c(15, 60), y = c(0, 100))`.
#' Missing bounds stop the call before any value of the data is read. The bounds are public
#' (chosen without looking at the data); values outside them are clipped to them before the
#' design is built. The bounds of each column of the design follow from them, never from the
#' data:
#' * a factor is expanded by [stats::model.matrix()] with its declared levels (also levels no
#'   row has), each coding column within the range of the coding's values and 0 and 1:
#'   `[0, 1]` for the default treatment contrasts. The factor's contrasts are R's: an ordered
#'   factor gets [stats::contr.poly()] (orthogonal polynomials over all its declared levels,
#'   columns `f.L`, `f.Q`, ...), and contrasts set on the factor
#'   (`contrasts(d$f) <- contr.sum(3)`, columns `f1`, `f2` within `[-1, 1]`) or by
#'   `options(contrasts = )` are used, and kept for `predict()`. A logical is a factor with
#'   levels `FALSE` and `TRUE`. A character column is refused (its levels would come from the
#'   data): make it a factor;
#' * a transformation of numeric variables gets bounds by interval arithmetic: `+ - * / ^`,
#'   `I()`, `abs()` and the increasing functions `log()`, `log2()`, `log10()`, `log1p()`,
#'   `sqrt()`, `exp()`, `expm1()`, e.g. `log(x)` within `log` of the bounds of `x` (a lower
#'   bound > 0 is needed), `I(x^2)` within `[0, max(l^2, u^2)]` when `l < 0 < u`. The result
#'   may be wider than the values can reach (as `I(x - x)`), never narrower. Other functions
#'   (`poly()`, `ns()`, `sin()`, ...) are refused: compute the column in `data` and give its
#'   bounds;
#' * an interaction `x:z` or `x:f` is bounded by the products of its variables' bounds.
#'
#' An intercept in the formula (the default) means `add.bias = TRUE`; `y ~ x - 1` fits none.
#' Offsets are refused, as are variables that are not columns of `data`.
#'
#' @section Missing values:
#' Rows with `NA` (or `NaN`, `Inf`) in a variable of the formula are refused, not dropped
#' (`na.action` must be [stats::na.fail()]), as everywhere in DPpackPy. Dropping them, as `na.omit` does, would
#' change the number of rows with the data: the models' guarantee is for data sets that
#' differ in one replaced row, with `n` known, and a replaced row that gains an `NA` would
#' remove a row instead. Remove or impute missing values before the call, by a rule that does
#' not depend on the data (e.g. a fixed value).
#'
#' @section Privacy:
#' The fit is the R6 model's, with its guarantee and its noise: see [LinearRegressionDP]
#' (`eps`, `delta`) and [LogisticRegressionDP] (`eps`); `$model$privacy` and `summary()` say
#' what it spent, and `accountant` is charged as by the model's `fit()`. The number of rows
#' (`nobs()`), the factor levels and the bounds are treated as public, as by the models.
#' `predict()` is post-processing and costs nothing; `confint()` of a `glmDP` fit is a new
#' release (see [confint.glmDP()]), and an `lmDP` fit has none (`confint()` stops).
#'
#' @section Copies share the model:
#' The fit is a list and its `$model` an R6 object, which R does not copy: after
#' `fit2 <- fit`, both hold the same model. The methods of the fit (`coef()`, `predict()`,
#' `summary()`, `confint()`, ...) never change it, and [stats::update()] makes a new fit with
#' a new model (it calls `lmDP()` or `glmDP()` again: a new release that spends `eps` again).
#' But changing the model through one copy, as `fit2$model$fit(...)` or
#' `fit2$model$gamma <- 5`, changes it for every copy, and the formula, bounds and names of
#' the fit then no longer describe it. Refit with `update()`; for a copy with a model of its
#' own, `fit2$model <- fit$model$clone(deep = TRUE)`.
#'
#' @param formula A formula `response ~ terms`, as for [stats::lm()].
#' @param data A data.frame holding every variable of the formula.
#' @param eps Privacy budget.
#' @param delta Privacy parameter delta of [LinearRegressionDP] (`0` for eps-DP).
#' @param bounds Named list of `c(lower, upper)` by numeric variable (see Bounds).
#' @param gamma Regularisation constant, as for the models (n times the penalty weight).
#' @param regularizer `"l2"` or a function of the coefficients, as for the models.
#' @param na.action Must be [stats::na.fail()] (see Missing values).
#' @param accountant A [BudgetAccountant] charged for the fit, or `NULL` for the default
#'   accountant of [with_accountant()], if any.
#' @return An object of class `c("lmDP", "dppack_model_fit")` or
#'   `c("glmDP", "dppack_model_fit")`: a list with the fitted R6 `model` (whose
#'   [model_methods] the methods of the fit use), the `call`, `formula`, `terms`, `xlevels`
#'   and `contrasts` (for `predict()`), the numeric variables' `bounds` and `add.bias`;
#'   `glmDP()` adds `family` and `perturbation.method`. The bounds of the design's columns
#'   are in `summary()`.
#' @seealso [predict.glmDP()], [confint.glmDP()]
#' @export
#' @examplesIf dppack_available()
#' set.seed(7)
#' n <- 2000
#' d <- data.frame(age = stats::runif(n, 20, 80),
#'                 group = factor(sample(c("a", "b", "c"), n, TRUE), levels = c("a", "b", "c")))
#' d$y <- 10 + 0.5 * d$age + 5 * (d$group == "b") + stats::rnorm(n, sd = 5)
#' fit <- lmDP(y ~ age + group, d, eps = 1, gamma = 1,
#'             bounds = list(age = c(20, 80), y = c(0, 80)))
#' fit
#' new <- data.frame(age = c(30, 60), group = factor(c("a", "c"), levels = levels(d$group)))
#' predict(fit, new)
lmDP <- function(formula, data, eps, delta = 0, bounds, gamma = 1, regularizer = "l2",
                 na.action = stats::na.fail, accountant = NULL) {
  caller <- sys.call()
  call <- match.call()
  model <- .formula_as_caller(LinearRegressionDP$new(regularizer, eps, delta, gamma), caller)
  fitted <- .formula_as_caller(
    .formula_data(formula, data, bounds, FALSE, na.action, accountant), caller
  )
  design <- fitted$design
  y_bounds <- fitted$plan$intervals[[fitted$plan$response]]
  .formula_as_caller(
    model$fit(design$X, fitted$y, c(design$upper, y_bounds[2]), c(design$lower, y_bounds[1]),
              add.bias = design$add.bias, accountant = accountant),
    caller
  )
  .formula_fit("lmDP", model, fitted, call, formula)
}

#' @rdname lmDP
#' @param family `binomial()` (the default; also `"binomial"` or `binomial`) with the logit
#'   link: private logistic regression. Other families are refused.
#' @param perturbation.method `"objective"` or `"output"`, as for [LogisticRegressionDP].
#' @details The response of `glmDP()` is binary and needs no bounds: `0`/`1` numbers, a
#' logical, or a factor with two declared levels (the first is 0, as for [stats::glm()]).
#' @export
#' @examplesIf dppack_available()
#' set.seed(8)
#' n <- 2000
#' d <- data.frame(age = stats::runif(n, 20, 80),
#'                 smoker = factor(sample(c("no", "yes"), n, TRUE), levels = c("no", "yes")))
#' d$sick <- stats::runif(n) < stats::plogis(-3 + 0.04 * d$age + (d$smoker == "yes"))
#' fit <- glmDP(sick ~ age + smoker, d, family = binomial(), eps = 1, gamma = 1,
#'              bounds = list(age = c(20, 80)))
#' summary(fit)
#' predict(fit, d[1:3, ], type = "response")
glmDP <- function(formula, data, family = stats::binomial(), eps, bounds, gamma = 1,
                  regularizer = "l2", perturbation.method = "objective",
                  na.action = stats::na.fail, accountant = NULL) {
  caller <- sys.call()
  call <- match.call()
  .formula_as_caller({
    if (is.character(family) && length(family) == 1) {
      family <- get(family, mode = "function", envir = asNamespace("stats"))
    }
    if (is.function(family)) {
      family <- family()
    }
    if (!inherits(family, "family") || family$family != "binomial" || family$link != "logit") {
      what <- if (inherits(family, "family")) {
        paste0(family$family, "(link = \"", family$link, "\")")
      } else {
        "this family"
      }
      stop("glmDP() supports family = binomial() with the logit link (private logistic ",
           "regression), not ", what, ". For a numeric response use lmDP().", call. = FALSE)
    }
  }, caller)
  model <- .formula_as_caller(
    LogisticRegressionDP$new(regularizer, eps, gamma, perturbation.method), caller
  )
  fitted <- .formula_as_caller(
    .formula_data(formula, data, bounds, TRUE, na.action, accountant), caller
  )
  design <- fitted$design
  .formula_as_caller(
    model$fit(design$X, fitted$y, design$upper, design$lower, add.bias = design$add.bias,
              accountant = accountant),
    caller
  )
  .formula_fit("glmDP", model, fitted, call, formula,
               list(family = family, perturbation.method = perturbation.method))
}

# The design of `newdata` for predict(): the stored terms without the response, the factor
# levels and contrasts of the fit; no clipping (predictions are post-processing, as the
# models' predict()). Only its complete rows (`rows`) go to the model.
.formula_newdata <- function(object, newdata) {
  if (missing(newdata) || is.null(newdata)) {
    stop("predict() needs newdata: a fit of lmDP() or glmDP() keeps no data.", call. = FALSE)
  }
  if (!is.data.frame(newdata)) {
    stop("newdata must be a data.frame.", call. = FALSE)
  }
  terms <- stats::delete.response(object$terms)
  newdata <- .formula_check_newdata(object, terms, newdata)
  frame <- stats::model.frame(terms, newdata, na.action = stats::na.pass,
                              xlev = object$xlevels)
  X <- stats::model.matrix(terms, frame, contrasts.arg = object$contrasts)
  X <- X[, attr(X, "assign") != 0, drop = FALSE]
  rows <- stats::complete.cases(X)
  list(X = X[rows, , drop = FALSE], rows = rows, names = rownames(newdata))
}

# `newdata` checked against the variables of the fit's right-hand side `terms`, so that a
# variable it lacks or has in another kind is named in the user's terms (not as model.frame()
# says it: "object 'x' not found"). The kinds are those of the fit: its numeric variables have
# bounds, its factors have levels (a factor or character column of newdata is taken with the
# fit's levels), the others are logicals. A column with only NA becomes one of the right kind.
.formula_check_newdata <- function(object, terms, newdata) {
  variables <- all.vars(attr(terms, "variables"))
  absent <- setdiff(variables, names(newdata))
  if (length(absent) > 0) {
    stop("newdata must have every variable of the right-hand side of the formula ",
         .deparse_one(stats::formula(terms)), "; missing: ", paste(absent, collapse = ", "),
         ".", call. = FALSE)
  }
  for (name in variables) {
    column <- newdata[[name]]
    kind <- if (name %in% names(object$xlevels)) {
      "factor"
    } else if (name %in% names(object$bounds)) {
      "numeric"
    } else {
      "logical"
    }
    if (is.logical(column) && all(is.na(column)) && kind != "logical") {
      newdata[[name]] <- if (kind == "numeric") as.numeric(column) else as.character(column)
      next
    }
    ok <- switch(kind,
                 factor = is.factor(column) || is.character(column),
                 numeric = .formula_kind(column) %in% "numeric",
                 logical = is.logical(column))
    if (!ok) {
      stop("newdata$", name, " must be ", switch(
        kind,
        factor = paste0("a factor (or character) with levels among those of the fit: ",
                        paste(object$xlevels[[name]], collapse = ", ")),
        numeric = "numeric, as in the fit",
        logical = "logical (TRUE/FALSE), as in the fit"
      ), "; it is ", class(column)[[1]], ".", call. = FALSE)
    }
  }
  newdata
}

# Predictions `values` of the complete rows of `design` spread over all its rows, NA for the
# others (the type of `values` kept: a factor stays a factor).
.formula_spread <- function(values, design) {
  out <- values[rep(NA_integer_, length(design$rows))]
  out[design$rows] <- values
  names(out) <- design$names
  out
}

# Predictions of the fit's R6 model for `newdata` (its S3 predict(), see model_methods.R),
# errors raised from `caller`. type = "link" is the linear score x'coeff (with the intercept
# column when the fit has one), computed by the core's mapXy_linear: finite also where the
# probability rounds to 0 or 1, where qlogis() of the probability would be -Inf or Inf.
.formula_predict <- function(object, newdata, type, caller) {
  design <- .formula_as_caller(.formula_newdata(object, newdata), caller)
  if (!any(design$rows)) {
    # NA of the type the rows would have had: the label type for "class", else a number
    labels <- object$model$.fitted$labels
    empty <- if (type != "class" || is.null(labels) || labels$type == "numeric") {
      NA_real_
    } else if (labels$type == "factor") {
      factor(NA, levels = labels$levels)
    } else {
      NA
    }
    return(.formula_spread(empty, design))
  }
  if (type != "link") {
    return(.formula_spread(.model_predict(object$model, design$X, type, caller), design))
  }
  .check_fitted(object$model, caller)
  X <- if (isTRUE(object$add.bias)) cbind(1, design$X) else design$X
  link <- .formula_as_caller(mapXy.linear(X, as.vector(object$model$coeff)), caller)
  .formula_spread(as.vector(link), design)
}

#' Predictions of a formula fit
#'
#' Predictions for `newdata` from a fit of [lmDP()] or [glmDP()]: the design is built with the
#' stored terms, factor levels and contrasts (a factor in `newdata` must have levels among
#' those of the fit), the intercept as in the fit, and predicted by the fitted model's
#' `predict()` (see [model_methods]). Post-processing: costs no privacy. The fit keeps no
#' data, so `newdata` is required. Rows with `NA` predict `NA`.
#'
#' @param object A fit of [lmDP()] or [glmDP()].
#' @param newdata A data.frame with the variables of the formula's right-hand side.
#' @param type For `glmDP`: `"class"` (the predicted label, of the response's own type: a
#'   factor with its levels, a logical, or 0/1), `"response"` (the probability of the second
#'   level, `TRUE` or 1) or `"link"` (the linear score `x'coef`, the log-odds: finite also
#'   for rows whose probability rounds to 0 or 1). For `lmDP`:
#'   `"response"`.
#' @param ... Ignored.
#' @return A vector with one value per row of `newdata`.
#' @export
#' @examplesIf dppack_available()
#' set.seed(9)
#' d <- data.frame(x = stats::runif(500, -1, 1))
#' d$y <- factor(ifelse(d$x + stats::rnorm(500, sd = 0.3) > 0, "high", "low"),
#'               levels = c("low", "high"))
#' fit <- glmDP(y ~ x, d, eps = 1, bounds = list(x = c(-1, 1)))
#' predict(fit, data.frame(x = c(-0.8, 0, 0.8)))
#' predict(fit, data.frame(x = c(-0.8, 0, 0.8)), type = "response")
predict.glmDP <- function(object, newdata, type = c("class", "response", "link"), ...) {
  .formula_predict(object, newdata, match.arg(type), .generic_call(sys.call(), "predict"))
}

#' @rdname predict.glmDP
#' @export
predict.lmDP <- function(object, newdata, type = "response", ...) {
  .formula_predict(object, newdata, match.arg(type), .generic_call(sys.call(), "predict"))
}

#' Model methods of a formula fit
#'
#' `coef()`, `nobs()`, `formula()`, `print()` and `summary()` of a fit of [lmDP()] or
#' [glmDP()] are those of its fitted model (see [model_methods]): the private coefficients,
#' named by the columns of the design (`"(Intercept)"`, `"age"`, `"groupb"`, `"log(x)"`,
#' ...), the number of rows, the privacy spent. `print()` and `summary()` add the call, and
#' `summary()` the bounds by variable the design's bounds were derived from.
#'
#' @param object,x A fit of [lmDP()] or [glmDP()], or its summary.
#' @param digits Significant digits of the printed numbers.
#' @param ... Ignored.
#' @name formula_methods
#' @examplesIf dppack_available()
#' set.seed(11)
#' d <- data.frame(x = stats::runif(1000, 1, 10))
#' d$y <- 2 + 3 * log(d$x) + stats::rnorm(1000, sd = 0.5)
#' fit <- lmDP(y ~ log(x), d, eps = 1, bounds = list(x = c(1, 10), y = c(0, 12)))
#' coef(fit)
#' nobs(fit)
#' formula(fit)
#' summary(fit)
NULL

#' @rdname formula_methods
#' @export
coef.dppack_model_fit <- function(object, ...) {
  coef(object$model)
}

#' @rdname formula_methods
#' @export
nobs.dppack_model_fit <- function(object, ...) {
  nobs(object$model)
}

#' @rdname formula_methods
#' @importFrom stats formula
#' @export
formula.dppack_model_fit <- function(x, ...) {
  x$formula
}

#' @rdname formula_methods
#' @export
print.dppack_model_fit <- function(x, digits = 4, ...) {
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n", sep = "")
  print(x$model, digits = digits)
  invisible(x)
}

#' @rdname formula_methods
#' @export
summary.dppack_model_fit <- function(object, ...) {
  out <- .model_summary(object$model, sys.call())
  out$call <- object$call
  out$variable.bounds <- object$bounds
  class(out) <- c("summary.dppack_model_fit", class(out))
  out
}

#' @rdname formula_methods
#' @export
print.summary.dppack_model_fit <- function(x, digits = 4, ...) {
  cat("Call: ", paste(deparse(x$call), collapse = "\n"), "\n", sep = "")
  if (length(x$variable.bounds) > 0) {
    cat("Bounds by variable (public; the bounds of the fit below follow from them):\n")
    bounds <- do.call(rbind, x$variable.bounds)
    colnames(bounds) <- c("lower", "upper")
    print(bounds, digits = digits)
  }
  cat("\n")
  NextMethod()
}

#' Private confidence intervals for a glmDP fit
#'
#' [confintDP()] for the model of a [glmDP()] fit, on the design that the fit's formula,
#' factor levels and bounds give for `data`. This is a **new release**, not a summary of the
#' fit: it fits the coefficients again and spends the model's `eps` again (or `rho`, under
#' zCDP), so the intervals surround a new private estimate (the `estimate` column), not
#' `coef(object)`. Give it the data of the fit (or other data). The release is charged to
#' `accountant` if given, else to the default accountant of [with_accountant()], if any: after
#' `glmDP(eps = 1)` and one `confint()`, the data have spent `eps = 2` in all. Missing values
#' are refused as by [glmDP()], and every argument is checked before anything is released.
#'
#' @param object A fit of [glmDP()] (with the `"l2"` regularizer), or of [lmDP()] (which has
#'   no intervals: `confint()` stops).
#' @param parm Optional names or indices of the coefficients to keep.
#' @param level Confidence level.
#' @param data A data.frame with the variables of the formula, response included.
#' @param ... Further arguments of [confintDP()]: `rho`, `budget.split`, `n.draws`,
#'   `accountant`.
#' @return As [confintDP()].
#' @export
#' @examplesIf dppack_available()
#' set.seed(10)
#' d <- data.frame(x = stats::runif(5000, -1, 1))
#' d$y <- as.integer(d$x + stats::rlogis(5000) > 0)
#' fit <- glmDP(y ~ x, d, eps = 1, gamma = 10, bounds = list(x = c(-1, 1)))
#' acc <- BudgetAccountant$new(eps = 2)
#' confint(fit, data = d, accountant = acc)
#' acc$spent
confint.glmDP <- function(object, parm, level = 0.95, data, ...) {
  caller <- .generic_call(sys.call(), "confint")
  if (missing(data)) {
    stop(simpleError(paste0(
      "confint() of a glmDP fit needs data (the fit keeps none): give the data of the fit, ",
      "e.g. confint(fit, data = d). It is a new private release that spends the model's eps = ",
      format(object$model$eps), " again (or the rho you give)."
    ), call = caller))
  }
  fitted <- .formula_as_caller(
    .formula_data(object$formula, data, object$bounds, TRUE, stats::na.fail, NULL), caller
  )
  design <- fitted$design
  # the model's confint(): confintDP() on the design, then the coefficients in `parm`
  .formula_as_caller(
    confint(object$model, parm, level = level, X = design$X, y = fitted$y,
            upper.bounds = design$upper, lower.bounds = design$lower,
            add.bias = design$add.bias, ...),
    caller
  )
}

#' @rdname confint.glmDP
#' @section An lmDP fit:
#' An [lmDP()] fit has no private confidence intervals ([LinearRegressionDP] has none):
#' `confint()` of it stops with a message, before anything is released or charged.
#' @export
confint.lmDP <- function(object, parm, level = 0.95, ...) {
  # without this, stats' default method would call coef() and then fail on vcov()
  stop(simpleError(paste0(
    "confint() of an lmDP fit: LinearRegressionDP has no private confidence intervals. ",
    "confint() is defined for glmDP fits and for LogisticRegressionDP and svmDP models ",
    "(private intervals, see confintDP())."
  ), call = .generic_call(sys.call(), "confint")))
}
