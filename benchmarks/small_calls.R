# Per-call cost of small releases from R (issue 29), for benchmarks/small_calls.py, which runs
# it and writes the table: DPpackPy, DPpack 0.2.2 where it is installed, and a bare reticulate
# call, in one R session. Prints one line of JSON (seconds per call; totals for the loops).
#
# Usage: Rscript benchmarks/small_calls.R [calls per timing] [runs] [cpu: TRUE/FALSE] [loop]

args <- commandArgs(trailingOnly = TRUE)
calls <- if (length(args) >= 1) as.integer(args[[1]]) else 1000L
runs <- if (length(args) >= 2) as.integer(args[[2]]) else 5L
cpu <- length(args) >= 3 && as.logical(args[[3]])
loop <- if (length(args) >= 4) as.integer(args[[4]]) else 10000L

suppressPackageStartupMessages(library(DPpackPy))
have_dppack <- suppressWarnings(requireNamespace("DPpack", quietly = TRUE))

clock <- function(t) if (cpu) t[["user.self"]] + t[["sys.self"]] else t[["elapsed"]]

# The shortest of `runs` timings of `n` evaluations of `expr`, per evaluation, in seconds.
per_call <- function(expr, n = calls) {
  code <- substitute(expr)
  where <- parent.frame()
  body <- bquote(for (i in seq_len(.(n))) .(code))
  times <- vapply(seq_len(runs), function(r) clock(system.time(eval(body, where))),
                  numeric(1))
  min(times) / n
}

set.seed(1)
x <- stats::runif(100)
X <- matrix(stats::runif(200, -1, 1), ncol = 2)
y <- as.numeric(X[, 1] + X[, 2] + stats::rnorm(100, sd = 0.3) > 0)

# The calls, as an R user writes them; `pkg` is DPpackPy or DPpack (same names, same
# arguments: DPpack 0.2.2's signatures).
releases <- function(pkg) {
  f <- function(name) getExportedValue(pkg, name)
  laplace <- f("LaplaceMechanism")
  gaussian <- f("GaussianMechanism")
  mean_dp <- f("meanDP")
  var_dp <- f("varDP")
  hist_dp <- f("histogramDP")
  quantile_dp <- f("quantileDP")
  logistic <- f("LogisticRegressionDP")
  list(
    LaplaceMechanism = function() laplace(0, 1, 1),
    GaussianMechanism = function() gaussian(0, 0.5, 0.01, 1),
    meanDP = function() mean_dp(x, 1, 0, 1),
    varDP = function() var_dp(x, 1, 0, 1),
    histogramDP = function() hist_dp(x, 1, 0, 1),
    quantileDP = function() quantile_dp(x, 0.5, 1, 0, 1),
    LogisticRegressionDP = function() logistic$new("l2", 1, 1)$fit(X, y, c(1, 1), c(-1, -1))
  )
}

invisible(meanDP(x, 1, 0, 1)) # load Python and the core

out <- list()
np <- reticulate::import("numpy", convert = FALSE)
add <- np$add
out[["bare np$add(1, 2)"]] <- per_call(np$add(1, 2))
out[["bare cached add(1, 2)"]] <- per_call(add(1, 2))

packages <- c("DPpackPy", if (have_dppack) "DPpack")
for (pkg in packages) {
  for (name in names(releases(pkg))) {
    release <- releases(pkg)[[name]]
    release() # warm-up
    n <- if (name == "LogisticRegressionDP") max(10L, calls %/% 20L) else calls
    out[[paste0(pkg, " ", name)]] <- suppressWarnings(per_call(release(), n))
  }
  # DPpack's test scripts (Mechanisms_test.R, StatFunctions_test.R; not shipped with the
  # package) draw 10,000 releases in a loop and compare their histogram with the law.
  laplace <- getExportedValue(pkg, "LaplaceMechanism")
  mean_dp <- getExportedValue(pkg, "meanDP")
  out[[paste0(pkg, " loop LaplaceMechanism")]] <-
    clock(system.time(for (i in seq_len(loop)) laplace(0, 1, 1)))
  out[[paste0(pkg, " loop meanDP")]] <-
    clock(system.time(for (i in seq_len(loop)) mean_dp(x, 1, 0, 1)))
}
out[["have DPpack"]] <- have_dppack
out[["core"]] <- reticulate::import("dppack")$`__file__`

values <- vapply(out, function(v) {
  if (is.logical(v)) tolower(as.character(v))
  else if (is.character(v)) paste0('"', v, '"')
  else format(v, digits = 6)
}, character(1))
cat(paste0("{", paste0('"', names(out), '": ', values, collapse = ", "), "}"), "\n")
