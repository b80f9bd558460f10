# Private statistics and a private model on a Parquet dataset that R never loads.
# The dataset is written in pieces (R holds one piece at a time), opened with dppack_dataset()
# (a handle on a lazy Dask DataFrame in the Python core), and analysed under one budget. The
# non-private values, computed by Dask for comparison only, show what the noise costs.
library(DPpackPy)
if (!dppack_available() || !reticulate::py_module_available("dask")) {
  cat("This demo needs DPpackPy's Python core with Dask: pip install 'dppack[dask]'.\n")
  quit(save = "no")
}

path <- file.path(tempdir(), "registry")
unlink(path, recursive = TRUE)
dir.create(path)
pandas <- reticulate::import("pandas")
set.seed(2026)
pieces <- 8
rows <- 50000
for (part in seq_len(pieces)) {
  age <- round(stats::runif(rows, 18, 90))
  income <- round(stats::rlnorm(rows, 10 + 0.01 * (age - 18), 0.5))
  hours <- pmin(80, pmax(0, round(stats::rnorm(rows, 38, 8))))
  region <- sample(c("north", "south", "east", "west"), rows, replace = TRUE)
  high <- as.numeric(income > 40000)
  pandas$DataFrame(data.frame(age, income, hours, region, high))$to_parquet(
    file.path(path, sprintf("part-%02d.parquet", part)), index = FALSE
  )
}

cat(sprintf("== A Parquet dataset of %d rows in %d files, never loaded into R ==\n",
            pieces * rows, pieces))
registry <- dppack_dataset(path)
print(registry)
cat("The handle in R:", format(object.size(registry), units = "Kb"), "\n\n")

# For comparison only: the non-private values, computed by Dask in the core.
exact <- function(column, what) {
  lazy <- reticulate::py_call(reticulate::py_get_attr(DPpackPy:::.to_py(column), what))
  reticulate::py_to_r(reticulate::py_call(reticulate::py_get_attr(lazy, "compute")))
}

budget <- BudgetAccountant$new(eps = 3, delta = 1e-5)
started <- Sys.time()
with_accountant(budget, {
  mean_income <- meanDP(registry$income, eps = 0.5, lower.bound = 0, upper.bound = 2e5)
  sd_hours <- sdDP(registry$hours, eps = 0.5, lower.bound = 0, upper.bound = 80)
  median_age <- medianDP(registry$age, eps = 0.5, lower.bound = 18, upper.bound = 90)
  regions <- tableDP(registry$region, eps = 0.5, delta = 1e-6)
})
cat("Private (eps = 0.5 each)  vs  non-private:\n")
cat(sprintf("  mean income   %10.1f  %10.1f\n", mean_income, exact(registry$income, "mean")))
cat(sprintf("  sd of hours   %10.3f  %10.3f\n", sd_hours, exact(registry$hours, "std")))
cat(sprintf("  median age    %10.3f  %10.3f\n", median_age,
            exact(registry$age, "median_approximate")))
cat("  people by region (private):\n")
print(regions)

model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 0.01)
model$fit(registry[c("age", "hours")], registry$high, upper.bounds = c(90, 80),
          lower.bounds = c(18, 0), add.bias = TRUE, accountant = budget)
cat("\nPrivate logistic regression of income > 40000 on age and hours (eps = 1):\n")
print(stats::setNames(model$coeff, c("(bias)", "age", "hours")))
cat(sprintf("\nAll releases took %.1f s (Dask, threads of the R session's Python).\n\n",
            as.numeric(difftime(Sys.time(), started, units = "secs"))))
print(budget)
