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
.as_factors <- function(args) {
  lapply(args, function(a) if (is.factor(a)) a else factor(a))
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

# The core's cells (in R's column-major order) as an R table with the factors' levels.
.as_table <- function(cells, factors, arg_names, integer_counts = FALSE) {
  levels <- stats::setNames(lapply(factors, levels), arg_names)
  if (integer_counts) {
    cells <- as.integer(cells)
  }
  table <- array(as.vector(cells), dim = lengths(levels, use.names = FALSE),
                 dimnames = levels)
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
