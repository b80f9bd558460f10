# dppack_dataset(): Parquet datasets that never enter R (issue 14). The handle, its columns,
# its errors and its printing; then every statistic and model given a dataset's columns
# releases what the same call gives on the same data in memory, with the same random state
# (the Dask path's sums are merged in another order: 1e-10 relative for the statistics; the
# models' solvers stop at their tolerance: 1e-6). These comparisons are deterministic (fixed
# random states on both sides): no false failures.

skip_if_not(dppack_available(), "the Python core dppack is not available")
skip_if_not(reticulate::py_module_available("dask"), "Dask is not installed in the core")

# A dataset of 1000 rows in three Parquet files of uneven sizes (three partitions), and the
# same rows as an R data.frame.
set.seed(20261124)
sizes <- c(300, 41, 659)
n <- sum(sizes)
people <- data.frame(
  age = round(stats::runif(n, 18, 90)),
  income = stats::rlnorm(n, 10, 0.6),
  x1 = stats::runif(n, -1, 1),
  x2 = stats::runif(n, -1, 1),
  group = sample(c("a", "b", "c"), n, replace = TRUE, prob = c(0.5, 0.3, 0.2))
)
people$y <- as.numeric(people$x1 - people$x2 + stats::rnorm(n, sd = 0.3) > 0)
people$z <- 0.5 * people$x1 - 0.2 * people$x2 + stats::rnorm(n, sd = 0.1)

write_parquet_parts <- function(data, dir, sizes) {
  dir.create(dir, showWarnings = FALSE)
  pandas <- reticulate::import("pandas")
  ends <- cumsum(sizes)
  starts <- c(1, utils::head(ends, -1) + 1)
  for (k in seq_along(sizes)) {
    part <- data[starts[k]:ends[k], , drop = FALSE]
    pandas$DataFrame(part)$to_parquet(file.path(dir, sprintf("part.%d.parquet", k)),
                                      index = FALSE)
  }
  dir
}

dir <- write_parquet_parts(people, file.path(tempdir(), "people-dataset"), sizes)
ds <- dppack_dataset(dir)

test_that("a dataset is a handle: names, length, ncol, no rows, small", {
  expect_s3_class(ds, "dppack_dataset")
  expect_identical(names(ds), names(people))
  expect_identical(length(ds), ncol(people))
  expect_identical(ncol(ds), ncol(people))
  expect_identical(nrow(ds), NA_integer_)
  # Nothing of the data in R: the handle is the same size whatever the dataset's size.
  expect_lt(as.numeric(utils::object.size(ds)), 4000)
  expect_lt(as.numeric(utils::object.size(ds$income)), 2000)
  # The core holds the Dask DataFrame (lazy) with one partition per file.
  frame <- DPpackPy:::.to_py(ds)
  expect_true(grepl("^dask", class(frame)[[1]]))
  expect_identical(DPpackPy:::.to_py(ds$income)$npartitions, 3L)
})

test_that("columns: $, [[ by name and position, [ a dataset of columns in order", {
  col <- ds$income
  expect_s3_class(col, "dppack_column")
  expect_identical(DPpackPy:::.to_py(col)$name, "income")
  expect_identical(DPpackPy:::.to_py(ds[["age"]])$name, "age")
  expect_identical(DPpackPy:::.to_py(ds[[2]])$name, "income")
  sub <- ds[c("x2", "x1")]
  expect_s3_class(sub, "dppack_dataset")
  expect_identical(names(sub), c("x2", "x1"))
  expect_identical(names(ds[c(3, 4)]), c("x1", "x2"))
  expect_identical(names(ds[-(1:5)]), c("y", "z"))
  expect_identical(names(ds[]), names(people))
  expect_identical(names(dppack_dataset(dir, columns = c("z", "age"))), c("z", "age"))
  expect_identical(names(dppack_dataset(dir, columns = "age")), "age")
})

test_that("errors name the missing path or column, from the user's call", {
  err <- expect_error(dppack_dataset(file.path(tempdir(), "no-such-dataset")),
                      "No Parquet dataset at", fixed = TRUE)
  expect_match(conditionMessage(err), "no-such-dataset: the path does not exist.",
               fixed = TRUE)
  expect_identical(conditionCall(err)[[1]], as.name("dppack_dataset"))
  expect_false(grepl("ValueError|Traceback", conditionMessage(err)))
  err <- expect_error(dppack_dataset(dir, columns = c("age", "wage", "sex")))
  expect_identical(conditionMessage(err), paste0(
    "Columns not in the dataset: wage, sex. Its columns are: ",
    paste(names(people), collapse = ", "), "."
  ))
  err <- expect_error(ds$wage)
  expect_identical(conditionMessage(err), paste0(
    "Column not in the dataset: wage. Its columns are: ",
    paste(names(people), collapse = ", "), "."
  ))
  expect_identical(deparse(conditionCall(err)), "ds$wage")
  expect_error(ds[["wage"]], "Column not in the dataset: wage.", fixed = TRUE)
  expect_error(ds[c("age", "wage")], "Column not in the dataset: wage.", fixed = TRUE)
  expect_error(ds[[9]], "Column position out of range: the dataset has 7 columns.",
               fixed = TRUE)
  expect_error(ds[[c("age", "income")]], "[[ selects one column", fixed = TRUE)
  expect_error(ds[1:3, "age"], "selects columns only", fixed = TRUE)
  expect_error(dppack_dataset(dir, columns = c("age", "age")),
               "columns names a column more than once: age.", fixed = TRUE)
  expect_error(dppack_dataset(dir, columns = character(0)),
               "columns must name at least one column.", fixed = TRUE)
  expect_error(dppack_dataset(3), "path must be the path of a Parquet file", fixed = TRUE)
  expect_error(ds$income * 2, "A dppack_column holds no data in R", fixed = TRUE)
  expect_error(ds$age <- 1, "A dppack_dataset cannot be modified in R", fixed = TRUE)
  expect_error(names(ds) <- letters[1:7], "cannot be modified", fixed = TRUE)
})

test_that("print shows the path, the partitions and the typed columns, no data", {
  expect_identical(
    utils::capture.output(print(ds[c("age", "income")])),
    c("<dppack_dataset> a Parquet dataset read lazily by Dask in the Python core (no data in R)",
      paste0("  path:       ", dir),
      "  partitions: 3",
      "  columns (2): age <float64>, income <float64>")
  )
  expect_identical(
    utils::capture.output(print(ds$income)),
    paste0("<dppack_column> income <float64>, a column of the Parquet dataset ", dir,
           " (3 partitions; no data in R)")
  )
  expect_identical(utils::capture.output(str(ds[c("age", "y")])),
                   "dppack_dataset of 2 columns: age, y")
})

# The same call on the dataset's column(s) and on the data in memory, with one random state.
same_release <- function(on_dataset, in_memory, tolerance = 1e-10, seed = 7) {
  got <- with_random_state(seed, on_dataset)
  want <- with_random_state(seed, in_memory)
  expect_equal(got, want, tolerance = tolerance)
}

test_that("meanDP, varDP, sdDP on a column equal the in-memory releases", {
  for (which in c("bounded", "unbounded")) {
    same_release(meanDP(ds$income, 1, 0, 1e5, which.sensitivity = which),
                 meanDP(people$income, 1, 0, 1e5, which.sensitivity = which))
    same_release(varDP(ds$age, 1, 18, 90, which.sensitivity = which),
                 varDP(people$age, 1, 18, 90, which.sensitivity = which))
  }
  same_release(sdDP(ds[["age"]], 0.9, 18, 90, mechanism = "Gaussian", delta = 1e-5),
               sdDP(people$age, 0.9, 18, 90, mechanism = "Gaussian", delta = 1e-5))
  same_release(meanDP(ds$income, 1, 0, 1e5, which.sensitivity = "both"),
               meanDP(people$income, 1, 0, 1e5, which.sensitivity = "both"))
})

test_that("covDP, pooledVarDP, pooledCovDP on columns equal the in-memory releases", {
  same_release(covDP(ds$x1, ds$z, 1, -1, 1, -2, 2),
               covDP(people$x1, people$z, 1, -1, 1, -2, 2))
  same_release(pooledVarDP(ds$x1, ds$x2, eps = 1, lower.bound = -1, upper.bound = 1),
               pooledVarDP(people$x1, people$x2, eps = 1, lower.bound = -1, upper.bound = 1))
  same_release(
    pooledCovDP(ds[c("x1", "z")], ds[c("x2", "z")], eps = 1, lower.bound1 = -1,
                upper.bound1 = 1, lower.bound2 = -2, upper.bound2 = 2),
    pooledCovDP(as.matrix(people[c("x1", "z")]), as.matrix(people[c("x2", "z")]), eps = 1,
                lower.bound1 = -1, upper.bound1 = 1, lower.bound2 = -2, upper.bound2 = 2)
  )
})

test_that("histogramDP and tableDP on a column equal the in-memory releases", {
  # the dataset's histogram is named after its column; the in-memory vector's is "x"
  unnamed <- function(h) { h$xname <- NULL; h }
  on_column <- with_random_state(7, histogramDP(ds$age, 1, 18, 90))
  expect_identical(on_column$xname, "age")
  same_release(unnamed(histogramDP(ds$age, 1, 18, 90)),
               unnamed(histogramDP(people$age, 1, 18, 90)))
  same_release(unnamed(histogramDP(ds$x1, 1, -1, 1, breaks = 8, normalize = TRUE)),
               unnamed(histogramDP(people$x1, 1, -1, 1, breaks = 8, normalize = TRUE)))
  # Undeclared levels (text): the thresholded release; the levels come from the core.
  same_release(tableDP(ds$group, eps = 1, delta = 1e-5),
               tableDP(people$group, eps = 1, delta = 1e-5))
})

test_that("quantileDP and medianDP on a column are private quantiles of the data", {
  # The Dask path counts the values in public cells (no global sort) and runs the in-memory
  # mechanism on the counts: the in-memory release on the values rounded to the cells. Ages
  # are integers, which lie on the cells (72 / 2^19 wide here): the in-memory release itself.
  for (q in c(0.25, 0.5, 0.9)) {
    same_release(quantileDP(ds$age, q, 1, 18, 90), quantileDP(people$age, q, 1, 18, 90),
                 tolerance = 0, seed = q * 100)
  }
  same_release(medianDP(ds[["age"]], 0.5, 18, 90, which.sensitivity = "unbounded"),
               medianDP(people$age, 0.5, 18, 90, which.sensitivity = "unbounded"),
               tolerance = 0)
  # Incomes are moved by at most 1e5 / 2^20 (about 0.1): with eps = 10 and 1000 rows the
  # release is within a few grid steps of the sample median (false-failure rate < 1e-6: the
  # exponential mechanism's tail at eps = 10, n = 1000).
  got <- with_random_state(4, medianDP(ds$income, 10, 0, 1e5))
  expect_lt(abs(got - stats::median(people$income)), 2000)
})

test_that("the models fit on a dataset's columns as on the data in memory", {
  X <- people[c("x1", "x2")]
  ub <- c(1, 1)
  lb <- c(-1, -1)
  fit <- function(model, X, y, ...) {
    model$fit(X, y, ub, lb, ...)
    model$coeff
  }
  same_release(
    fit(LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1), ds[c("x1", "x2")], ds$y,
        add.bias = TRUE),
    fit(LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1), X, people$y, add.bias = TRUE),
    tolerance = 1e-6
  )
  same_release(
    fit(svmDP$new("l2", eps = 1, gamma = 0.1, perturbation.method = "output"),
        ds[c("x1", "x2")], ds$y),
    fit(svmDP$new("l2", eps = 1, gamma = 0.1, perturbation.method = "output"), X, people$y),
    tolerance = 1e-6
  )
  lin <- function(X, y) {
    model <- LinearRegressionDP$new("l2", eps = 1, delta = 0.01, gamma = 1)
    model$fit(X, y, c(1, 1, 2), c(-1, -1, -2), add.bias = TRUE)
    model$coeff
  }
  same_release(lin(ds[c("x1", "x2")], ds$z), lin(X, people$z), tolerance = 1e-6)
})

test_that("predict() refuses a dataset, whose predictions R would have to hold", {
  model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1)
  model$fit(ds[c("x1", "x2")], ds$y, c(1, 1), c(-1, -1), add.bias = TRUE)
  expect_error(model$predict(ds[c("x1", "x2")], add.bias = TRUE),
               "predict\\(\\) does not take a dppack_dataset")
  # an in-memory predict of the fitted model still works
  expect_equal(dim(model$predict(as.matrix(people[c("x1", "x2")]), add.bias = TRUE)),
               c(nrow(people), 1L))
  # R's model methods (model_methods.R): the dataset's column names name the coefficients
  # and select newdata's columns; n is unknown (R does not count the dataset's rows)
  model$fit(ds[c("x2", "x1")], ds$y, c(1, 1), c(-1, -1), add.bias = TRUE)
  expect_identical(names(coef(model)), c("(Intercept)", "x2", "x1"))
  expect_identical(nobs(model), NA_integer_)
  expect_output(print(model), "Fitted on n = (unknown)", fixed = TRUE)
  expect_identical(predict(model, people),
                   as.vector(model$predict(people[c("x2", "x1")], add.bias = TRUE)))
  expect_error(predict(model, ds), "does not take a dppack_dataset", fixed = TRUE)
})

test_that("confint() leaves a dataset's data to the core", {
  # R asks a handle whether its values are in R (R/backends.R) and, as they are not, checks
  # nothing of them itself: confint()'s parm is not matched against the columns (a wrong
  # name would be R's error), and the core refuses the release that needs rows in memory,
  # before anything is drawn or charged. Deterministic: no false failures.
  model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1)
  model$fit(people[c("x1", "x2")], people$y, c(1, 1), c(-1, -1), add.bias = TRUE)
  acc <- BudgetAccountant$new(eps = 5)
  expect_error(confint(model, parm = "no-such-column", X = ds[c("x1", "x2")], y = ds$y,
                       upper.bounds = c(1, 1), lower.bounds = c(-1, -1), accountant = acc),
               "does not run on Dask data", fixed = TRUE)
  expect_equal(acc$spent$eps, 0)
})

test_that("a fit on a dataset does not publish its passes over the data", {
  # The solver's passes depend on the data (an iteration count outside the guarantee): the
  # fitted model shows coeff, not them. Deterministic: no false failures.
  model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1)
  model$fit(ds[c("x1", "x2")], ds$y, c(1, 1), c(-1, -1), add.bias = TRUE)
  expect_length(model$coeff, 3)
  expect_false(any(grepl("pass", names(model))))
  lin <- LinearRegressionDP$new("l2", eps = 1, delta = 0.01, gamma = 1)
  lin$fit(ds[c("x1", "x2")], ds$z, c(1, 1, 2), c(-1, -1, -2), add.bias = TRUE)
  expect_false(any(grepl("pass", names(lin))))
})

test_that("a fit on many small Parquet files, whose column subsets Dask partitions apart", {
  # Dask fuses the small partitions of a projection of few columns: X (two columns) and y
  # (one) of one dataset of 12 small files can reach the core with different partitions
  # unless the core aligns them. The fit must still equal the in-memory one.
  many <- write_parquet_parts(people, file.path(tempdir(), "people-many"), rep(n / 10, 10))
  dm <- dppack_dataset(many)
  lr <- function(X, y) {
    model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 0.1)
    model$fit(X, y, c(1, 1), c(-1, -1), add.bias = TRUE)
    model$coeff
  }
  same_release(lr(dm[c("x1", "x2")], dm$y), lr(people[c("x1", "x2")], people$y),
               tolerance = 1e-6)
})

test_that("an accountant is charged for a release on a dataset as in memory", {
  acc <- BudgetAccountant$new(eps = 2)
  meanDP(ds$income, 0.5, 0, 1e5, accountant = acc)
  mem <- BudgetAccountant$new(eps = 2)
  meanDP(people$income, 0.5, 0, 1e5, accountant = mem)
  expect_equal(acc$spent, mem$spent)
})
