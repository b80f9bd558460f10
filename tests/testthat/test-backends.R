# The data backends of R (R/backends.R): the package asks its data four questions through S3
# generics and never tests the kind of data itself, as python/dppack/_backends.py does for the
# core (tests/python/architecture/test_backends.py).

# The package's R sources, when the tests run from the source tree (make test-r,
# testthat::test_file()); NULL under R CMD check, which runs the installed package.
r_sources <- function() {
  dir <- testthat::test_path("..", "..", "R")
  files <- list.files(dir, pattern = "[.][Rr]$", full.names = TRUE)
  if (length(files) == 0) NULL else files
}

test_that("only R/backends.R and R/dataset.R ask what kind of data they hold", {
  files <- r_sources()
  skip_if(is.null(files), "the package's R sources are not beside the tests")
  expect_true("backends.R" %in% basename(files))
  others <- files[!basename(files) %in% c("backends.R", "dataset.R")]
  kinds <- c("\\.is_dask_handle\\(", "inherits\\([^)]*dppack_(dataset|column)",
             "\\$dask\\b", "\"dask\"\\)")
  found <- unlist(lapply(others, function(file) {
    lines <- readLines(file, warn = FALSE)
    code <- sub("#.*$", "", lines)
    hits <- which(Reduce(`|`, lapply(kinds, grepl, x = code, perl = TRUE)))
    if (length(hits)) paste0(basename(file), ":", hits, ": ", trimws(lines[hits]))
  }))
  expect_identical(found, NULL, info = paste(found, collapse = "\n"))
  # the handle no longer has a kind test at all: the generics dispatch on it
  all_code <- unlist(lapply(files, readLines, warn = FALSE))
  expect_false(any(grepl("\\.is_dask_handle\\(", sub("#.*$", "", all_code))))
})

test_that("data in memory answer the backend questions with R's defaults", {
  ns <- asNamespace("DPpackPy")
  X <- data.frame(a = 1:3, b = c(0.5, 1, 2))
  M <- matrix(1:6, 3, dimnames = list(NULL, c("u", "v")))
  expect_identical(ns$.data_rows(X), 3L)
  expect_identical(ns$.data_rows(1:5), 5L)
  expect_identical(ns$.data_columns(X), c("a", "b"))
  expect_identical(ns$.data_columns(M), c("u", "v"))
  expect_null(ns$.data_columns(1:5))
  expect_true(ns$.values_in_r(X))
  expect_true(ns$.values_in_r(factor(c("a", "b"))))
  expect_true(ns$.values_in_r(NULL))
})

test_that("a dataset handle answers the backend questions without reading data", {
  # A handle built by hand, with a stand-in for the core's Dask object: the answers come
  # from the handle's fields, never from the data (none are read: the "dask" field is a
  # string here).
  ns <- asNamespace("DPpackPy")
  ds <- structure(list(dask = "frame", path = "p", columns = c("x1", "x2"),
                       types = c("float64", "float64"), npartitions = 2L),
                  class = "dppack_dataset")
  column <- structure(list(dask = "series", name = "x1", path = "p", type = "float64",
                           npartitions = 2L), class = "dppack_column")
  expect_identical(ns$.to_py(ds), "frame")
  expect_identical(ns$.to_py(column), "series")
  # a table's argument goes as the core's column, not as the text of an R object's values
  expect_identical(ns$.table_arg_to_py(column), "series")
  expect_identical(ns$.data_rows(ds), NA_integer_)
  expect_identical(ns$.data_rows(column), NA_integer_)
  expect_identical(ns$.data_columns(ds), c("x1", "x2"))
  expect_null(ns$.data_columns(column))
  expect_false(ns$.values_in_r(ds))
  expect_false(ns$.values_in_r(column))
})
