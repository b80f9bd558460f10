# Conversions of the core's results into the R objects a DPpack user expects: "histogram"
# objects, contingency tables, DPpack's classed 'both' lists. No arithmetic happens here.

# A 1-d NumPy array arrives as a 1-d R array; DPpack returns plain vectors.
.drop_1d <- function(x) {
  if (is.list(x) && !inherits(x, "python.builtin.object")) {
    return(lapply(x, .drop_1d))
  }
  if (is.array(x) && length(dim(x)) == 1) {
    return(as.vector(x))
  }
  x
}

# The core's histogram fields as R's "histogram" object, without the density (as DPpack).
.as_histogram <- function(fields, integer_counts = FALSE) {
  counts <- fields$counts
  if (integer_counts) {
    counts <- as.integer(counts)
  }
  structure(
    list(
      breaks = fields$breaks,
      counts = counts,
      mids = fields$mids,
      xname = fields$xname,
      equidist = fields$equidist
    ),
    class = "histogram"
  )
}

# DPpack's list of a bounded and an unbounded result, with its class.
.both <- function(value, class, convert = identity) {
  structure(
    list(Bounded = convert(value$Bounded), Unbounded = convert(value$Unbounded)),
    class = class
  )
}

# The arguments of `...` as factors, as table() makes them: factors keep all their levels,
# anything else gets factor()'s levels (sorted in R's collation, which the core cannot know).
# For tableDataAccess(), DPpack's non-private accessor.
.as_factors <- function(args) {
  lapply(args, function(a) if (is.factor(a)) a else factor(a))
}

# One argument of tableDP() for the core: a factor declares its levels (a pandas Categorical);
# anything else goes as its plain values, whose levels are not declared (the core then
# releases only observed cells above a threshold). A classed vector (a Date, ...) goes as the
# text factor() would make its levels of; NA of any type is refused by the core.
.table_arg_to_py <- function(a) {
  if (is.factor(a)) {
    return(.factor_to_py(a))
  }
  if (!.values_in_r(a)) {
    return(.to_py(a)) # a dppack_dataset column: its values are in the core
  }
  .to_py(if (is.object(a)) as.character(a) else as.vector(a))
}

# One factor for the core: a pandas Categorical with R's levels; NA goes as code -1, which the
# core refuses with a clear message.
.factor_to_py <- function(f) {
  codes <- as.integer(f) - 1L
  codes[is.na(codes)] <- -1L
  .pandas()$Categorical$from_codes(reticulate::np_array(codes), as.list(levels(f)))
}

# The dimnames names table() gives to the arguments in `exprs` (the expressions of `...`):
# an argument's name if it has one, the symbol if the argument is a bare symbol, else "".
.table_names <- function(exprs) {
  given <- names(exprs)
  if (is.null(given)) {
    given <- rep("", length(exprs))
  }
  vapply(seq_along(exprs), function(i) {
    if (nzchar(given[[i]])) {
      given[[i]]
    } else if (is.symbol(exprs[[i]])) {
      as.character(exprs[[i]])
    } else {
      ""
    }
  }, character(1))
}

# The core's table (its cells in R's column-major order and the levels of each dimension) as
# an R table. A factor's dimension has the factor's levels (the core kept them all, in their
# order); another argument's has the levels the core released, put in the order factor()
# would give them (R's collation for text, which the core cannot know): a permutation of the
# released cells, no arithmetic.
.as_table <- function(value, args, arg_names, integer_counts = FALSE) {
  core_levels <- lapply(value$levels, function(l) unlist(l, use.names = FALSE))
  cells <- array(as.vector(value$cells), dim = lengths(core_levels, use.names = FALSE))
  order_of <- lapply(seq_along(args), function(i) {
    if (is.factor(args[[i]])) seq_along(core_levels[[i]]) else order(core_levels[[i]])
  })
  levels <- lapply(seq_along(args), function(i) {
    if (is.factor(args[[i]])) {
      levels(args[[i]])
    } else {
      as.character(core_levels[[i]][order_of[[i]]])
    }
  })
  cells <- do.call(`[`, c(list(cells), order_of, list(drop = FALSE)))
  if (integer_counts) {
    storage.mode(cells) <- "integer"
  }
  table <- array(as.vector(cells), dim = dim(cells),
                 dimnames = stats::setNames(levels, arg_names))
  class(table) <- "table"
  table
}

.pandas <- function() {
  if (is.null(.dppack$pandas)) {
    .core()
    .dppack$pandas <- reticulate::import("pandas", convert = FALSE)
  }
  .dppack$pandas
}
