# Parquet datasets that never enter R: R holds a handle on a lazy Dask DataFrame of
# the core (dppack.dask.dataset) and hands it, or one of its columns, to the statistics and
# the models, which compute on Dask. No data is read into R, and no arithmetic happens here:
# R only keeps the handle, the column names and the number of partitions. What the rest of
# the package asks of a handle (its conversion, rows, columns; that its values are not in R)
# it asks through the generics of R/backends.R.

#' Parquet datasets that are never loaded into R
#'
#' `dppack_dataset()` opens a Parquet file, or a directory of Parquet files, as a handle on a
#' lazy Dask DataFrame held by the Python core: only the metadata (column names and types,
#' partitions) is read, and the data never enter R. The statistics and models of DPpackPy
#' compute on it in the core, with Dask, one partition at a time, so the dataset may be
#' larger than memory. A release spends what the same call on the data in memory spends, with
#' the same sensitivities and noise, and gives the same value from the same random state;
#' [quantileDP()] and [medianDP()], which cannot sort the data, release from counts in a fine
#' public grid of cells between the bounds: the in-memory release on the data rounded to the
#' cells (the same value from the same random state), each value moved by at most
#' `(upper.bound - lower.bound) / 2^20`.
#'
#' * `ds$income` or `ds[["income"]]` (or `ds[[2]]`) is a `"dppack_column"`, a handle on one
#'   column (a Dask Series). [meanDP()], [varDP()], [sdDP()], [covDP()], [histogramDP()],
#'   [quantileDP()], [medianDP()], [tableDP()], [pooledVarDP()] accept it where they accept
#'   a vector.
#' * `ds[c("age", "income")]` is a `"dppack_dataset"` of those columns, in that order: the
#'   `X` of a model's `$fit(X, y)` (with a `"dppack_column"` as `y`), or a sample of
#'   [pooledCovDP()].
#' * `names()` gives the column names, `length()` and `ncol()` their number; `nrow()` is `NA`,
#'   as the number of rows is not known without reading the data (and is itself private under
#'   unbounded differential privacy). `print()` shows the path, the columns with their types
#'   and the number of partitions, never data.
#'
#' A column not in the dataset is an error that names it, raised before any data are read.
#' Rows cannot be selected in R (the data are not there): filter the Parquet data upstream.
#' A handle is valid in the R session that made it; it cannot be saved with [saveRDS()].
#'
#' Needs Dask in the core's Python (the optional extra: `pip install 'dppack[dask]'`).
#'
#' @param path Path of a Parquet file or of a directory of Parquet files (one dataset); any
#'   URL that Dask's `read_parquet` reads (`s3://...`, with the matching Python package).
#' @param columns Names of the columns to keep, or `NULL` for all.
#' @param x,object A `"dppack_dataset"` (or for `print()` and `str()`, a `"dppack_column"`).
#' @param name,i Column names (character) or positions (numbers, as for a list; `[[` takes
#'   one).
#' @param j,value,...,e1,e2,na.rm Not used: rows cannot be selected, a dataset cannot be
#'   modified, and a column holds no data in R for arithmetic.
#' @return `dppack_dataset()` and `[` a `"dppack_dataset"`; `$` and `[[` a `"dppack_column"`.
#' @references Dask's `dask.dataframe.read_parquet` (<https://docs.dask.org>), which reads
#'   the dataset lazily, in partitions, so that data beyond one machine's memory never enter R.
#' @seealso `vignette("larger-than-memory", package = "DPpackPy")`
#' @export
#' @examplesIf dppack_available() && reticulate::py_module_available("dask")
#' path <- file.path(tempdir(), "people.parquet")
#' pandas <- reticulate::import("pandas")
#' set.seed(1)
#' people <- data.frame(age = round(stats::runif(500, 18, 90)),
#'                      income = stats::rlnorm(500, 10, 0.5))
#' pandas$DataFrame(people)$to_parquet(path)
#'
#' ds <- dppack_dataset(path)
#' ds
#' meanDP(ds$income, eps = 1, lower.bound = 0, upper.bound = 1e5)
#' quantileDP(ds[["age"]], quant = 0.5, eps = 1, lower.bound = 18, upper.bound = 90)
dppack_dataset <- function(path, columns = NULL) {
  caller <- sys.call()
  if (is.character(path) && length(path) == 1 && !is.na(path)) {
    path <- path.expand(path)
  }
  frame <- .call_core("dataset", path = path, columns = .column_list(columns),
                      .object = .dask_module(caller), .caller = caller)
  .new_dataset(frame, path, caller)
}

# The handle of the lazy frame `frame` read from `path`, with what print() and names() need.
.new_dataset <- function(frame, path, caller) {
  schema <- .call_core("dataset_schema", frame = frame, .object = .dask_module(caller),
                        .caller = caller)
  structure(
    list(
      dask = frame, path = path, columns = as.character(unlist(schema$columns)),
      types = as.character(unlist(schema$dtypes)),
      npartitions = as.integer(schema$npartitions)
    ),
    class = "dppack_dataset"
  )
}

# The handle of the column `name` of the dataset `x` (a Dask Series of the core).
.new_column <- function(x, name, caller) {
  series <- .call_core("dataset_select", frame = .subset2(x, "dask"), columns = name,
                       .object = .dask_module(caller), .caller = caller)
  structure(
    list(
      dask = series, name = name, path = .subset2(x, "path"),
      type = .subset2(x, "types")[match(name, .subset2(x, "columns"))],
      npartitions = .subset2(x, "npartitions")
    ),
    class = "dppack_column"
  )
}

# The core's package dppack.dask, imported on first use; without Dask in the core's Python,
# an error (raised from `caller`) that says how to install it.
.dask_module <- function(caller) {
  if (is.null(.dppack$dask)) {
    .core()
    .dppack$dask <- tryCatch(
      reticulate::import("dppack.dask"),
      error = function(e) {
        stop(simpleError(paste0(
          "Parquet datasets need Dask in DPpackPy's Python (", dppack_python(), "): ",
          "pip install 'dppack[dask]' there, then restart R."
        ), call = caller))
      }
    )
  }
  .dppack$dask
}

# Column names for the core: a list (reticulate would send one name as a bare string, which
# the core accepts too, but a list keeps the type the same for one and several), or NULL.
.column_list <- function(columns) {
  if (is.character(columns)) as.list(columns) else columns
}

# The column names that the positions or names `i` select from the dataset `x`, with R's
# rules for a list (negative positions drop, logicals recycle); a position out of range is an
# error from `caller`. Names go as they are: the core checks them.
.selected_columns <- function(x, i, caller) {
  if (is.character(i)) {
    return(i)
  }
  if (!(is.numeric(i) || is.logical(i))) {
    stop(simpleError("Columns are selected by name or by position.", call = caller))
  }
  columns <- .subset2(x, "columns")
  selected <- columns[i]
  if (anyNA(selected)) {
    stop(simpleError(paste0(
      "Column position out of range: the dataset has ", length(columns), " columns."
    ), call = caller))
  }
  selected
}

# The user's call `caller` of the method of `generic` (sys.call() in an S3 method of `$` names
# the method), as the user wrote it.
.as_written <- function(caller, generic) {
  caller[[1]] <- as.name(generic)
  caller
}

#' @rdname dppack_dataset
#' @export
`$.dppack_dataset` <- function(x, name) {
  .new_column(x, name, .as_written(sys.call(), "$"))
}

#' @rdname dppack_dataset
#' @export
`[[.dppack_dataset` <- function(x, i, ...) {
  caller <- .as_written(sys.call(), "[[")
  if (length(i) != 1) {
    stop(simpleError("[[ selects one column: use [ for several.", call = caller))
  }
  .new_column(x, .selected_columns(x, i, caller), caller)
}

#' @rdname dppack_dataset
#' @export
`[.dppack_dataset` <- function(x, i, j, ...) {
  caller <- .as_written(sys.call(), "[")
  if (nargs() > 2) {
    stop(simpleError(paste0(
      "A dppack_dataset selects columns only, as ds[columns]: its rows are not in R. ",
      "Filter the data before writing the Parquet dataset."
    ), call = caller))
  }
  if (missing(i)) {
    return(x)
  }
  frame <- .call_core("dataset_select", frame = .subset2(x, "dask"),
                      columns = as.list(.selected_columns(x, i, caller)),
                      .object = .dask_module(caller), .caller = caller)
  .new_dataset(frame, .subset2(x, "path"), caller)
}

#' @rdname dppack_dataset
#' @export
names.dppack_dataset <- function(x) {
  .subset2(x, "columns")
}

#' @rdname dppack_dataset
#' @export
length.dppack_dataset <- function(x) {
  length(.subset2(x, "columns"))
}

#' @rdname dppack_dataset
#' @export
dim.dppack_dataset <- function(x) {
  c(NA_integer_, length(.subset2(x, "columns")))
}

# A dataset is read-only: assignments would corrupt the handle.
.read_only_dataset <- function(caller) {
  stop(simpleError(paste0(
    "A dppack_dataset cannot be modified in R: its data are in the Parquet files. ",
    "Select columns with ds[columns]."
  ), call = caller))
}

#' @rdname dppack_dataset
#' @export
`$<-.dppack_dataset` <- function(x, name, value) {
  .read_only_dataset(.as_written(sys.call(), "$<-"))
}

#' @rdname dppack_dataset
#' @export
`[[<-.dppack_dataset` <- function(x, i, ..., value) {
  .read_only_dataset(.as_written(sys.call(), "[[<-"))
}

#' @rdname dppack_dataset
#' @export
`[<-.dppack_dataset` <- function(x, i, j, ..., value) {
  .read_only_dataset(.as_written(sys.call(), "[<-"))
}

#' @rdname dppack_dataset
#' @export
`names<-.dppack_dataset` <- function(x, value) {
  .read_only_dataset(.as_written(sys.call(), "names<-"))
}

#' @rdname dppack_dataset
#' @export
print.dppack_dataset <- function(x, ...) {
  columns <- .subset2(x, "columns")
  cat("<dppack_dataset> a Parquet dataset read lazily by Dask in the Python core (no data ",
      "in R)\n", sep = "")
  cat("  path:       ", .subset2(x, "path"), "\n", sep = "")
  cat("  partitions: ", .subset2(x, "npartitions"), "\n", sep = "")
  cat("  columns (", length(columns), "): ",
      paste0(columns, " <", .subset2(x, "types"), ">", collapse = ", "), "\n", sep = "")
  invisible(x)
}

#' @rdname dppack_dataset
#' @export
print.dppack_column <- function(x, ...) {
  cat("<dppack_column> ", .subset2(x, "name"), " <", .subset2(x, "type"), ">, a column of ",
      "the Parquet dataset ", .subset2(x, "path"), " (", .subset2(x, "npartitions"),
      " partitions; no data in R)\n", sep = "")
  invisible(x)
}

#' @rdname dppack_dataset
#' @method str dppack_dataset
#' @export
str.dppack_dataset <- function(object, ...) {
  cat("dppack_dataset of ", length(.subset2(object, "columns")), " columns: ",
      paste(.subset2(object, "columns"), collapse = ", "), "\n", sep = "")
  invisible(NULL)
}

#' @rdname dppack_dataset
#' @method str dppack_column
#' @export
str.dppack_column <- function(object, ...) {
  cat("dppack_column ", .subset2(object, "name"), " <", .subset2(object, "type"), ">\n",
      sep = "")
  invisible(NULL)
}

# Arithmetic on a column handle would need its data in R: a clear error instead of R's
# "non-numeric argument".
.no_column_arithmetic <- function(caller) {
  stop(simpleError(paste0(
    "A dppack_column holds no data in R: pass it to a DPpackPy statistic or model, ",
    "or transform the data before writing the Parquet dataset."
  ), call = caller))
}

#' @rdname dppack_dataset
#' @export
Ops.dppack_column <- function(e1, e2) {
  .no_column_arithmetic(.as_written(sys.call(), .Generic))
}

#' @rdname dppack_dataset
#' @export
Math.dppack_column <- function(x, ...) {
  .no_column_arithmetic(.as_written(sys.call(), .Generic))
}

#' @rdname dppack_dataset
#' @export
Summary.dppack_column <- function(..., na.rm = FALSE) {
  .no_column_arithmetic(.as_written(sys.call(), .Generic))
}
