# Where the data live, for R: the one file that knows the kinds of data DPpackPy takes. Data
# in memory (vectors, matrices, data frames, factors) get the default methods below; the
# handles of dppack_dataset() (R/dataset.R), whose data stay in the core as Dask collections,
# get their own. The rest of the package never asks what kind of data it holds: it asks the
# data the four questions of this file (the R side of python/dppack/_backends.py;
# tests/testthat/test-backends.R checks that no other file tests the kind).

# The data `x` as the core takes them. In memory: converted by the bridge (.memory_to_py in
# R/bridge.R); a handle: the core's Dask object, as it is. .to_py() asks this of every
# argument with a class (one without has only the default, which .to_py() calls directly).
.data_to_py <- function(x) {
  UseMethod(".data_to_py")
}

.data_to_py.default <- function(x) {
  .memory_to_py(x)
}

.data_to_py.dppack_dataset <- function(x) {
  .subset2(x, "dask")
}

.data_to_py.dppack_column <- .data_to_py.dppack_dataset

# The number of rows of the data `x` (NROW), or NA for a handle: R does not count the rows of
# a dataset (the count is read only with the data, and is private under unbounded
# differential privacy).
.data_rows <- function(x) {
  UseMethod(".data_rows")
}

.data_rows.default <- function(x) {
  NROW(x)
}

.data_rows.dppack_dataset <- function(x) {
  NA_integer_
}

.data_rows.dppack_column <- .data_rows.dppack_dataset

# The column names of the data `x` (a model's X), or NULL: a data.frame's names, a matrix's
# colnames, a dataset's columns (read from its schema); a column handle has none.
.data_columns <- function(x) {
  UseMethod(".data_columns")
}

.data_columns.default <- function(x) {
  if (is.data.frame(x)) names(x) else colnames(x)
}

.data_columns.dppack_dataset <- function(x) {
  .subset2(x, "columns")
}

.data_columns.dppack_column <- function(x) {
  NULL
}

# TRUE when the values of `x` are in R: R may read them (to encode labels, reorder or count
# columns, make factor levels) and hold what is as long as they are (predictions, residuals).
# FALSE for a handle: R passes it to the core as it is and leaves every check to the core,
# which refuses the releases that need the rows in memory.
.values_in_r <- function(x) {
  UseMethod(".values_in_r")
}

.values_in_r.default <- function(x) {
  TRUE
}

.values_in_r.dppack_dataset <- function(x) {
  FALSE
}

.values_in_r.dppack_column <- .values_in_r.dppack_dataset
