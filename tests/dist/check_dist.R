# The R package as a user gets it from its source tarball (scripts/test-dist.sh runs this with a
# fresh library and a fresh virtual-environment root, outside the checkout): the core it carries
# is installed by install_dppack(), then used. Stops on any failure.

lib <- Sys.getenv("DPPACK_TEST_LIB")
stopifnot(nzchar(lib), is.na(Sys.getenv("DPPACKPY_PYTHON", unset = NA)))

# Before install_dppack(): attaching says that the core is missing and how to get it.
startup <- character()
withCallingHandlers(
  library(DPpackPy, lib.loc = lib),
  packageStartupMessage = function(m) {
    startup <<- c(startup, conditionMessage(m))
    invokeRestart("muffleMessage")
  }
)
cat("startup message:", startup, "\n")
stopifnot(length(startup) == 1, grepl("install_dppack()", startup, fixed = TRUE))
stopifnot(!is.null(DPpackPy:::.bundled_core()))

python <- install_dppack()
stopifnot(identical(normalizePath(dppack_python()), normalizePath(python)))
venvs <- normalizePath(Sys.getenv("WORKON_HOME"))
stopifnot(startsWith(normalizePath(dirname(python)), venvs))
stopifnot(dppack_available())
core <- reticulate::import("dppack")
version <- core$`__version__`
stopifnot(identical(version, as.character(packageVersion("DPpackPy", lib.loc = lib))))
core_file <- core$`__file__`
stopifnot(startsWith(normalizePath(core_file), venvs))
cat("core dppack", version, "from", core_file, "\n")

set.seed(1)
x <- runif(100)
m <- meanDP(x, 1, 0, 1)
stopifnot(is.numeric(m), length(m) == 1, is.finite(m))
cat("meanDP:", m, "\n")

X <- data.frame(a = runif(200, -1, 1), b = runif(200, -1, 1))
y <- as.numeric(X$a + X$b > 0)
model <- LogisticRegressionDP$new("l2", eps = 1, gamma = 1)
model$fit(X, y, upper.bounds = c(1, 1), lower.bounds = c(-1, -1), add.bias = TRUE)
stopifnot(length(model$coeff) == 3, all(is.finite(model$coeff)))
cat("LogisticRegressionDP coefficients:", round(model$coeff, 3), "\n")

# A second session finds the core by itself, quietly.
rscript <- file.path(R.home("bin"), "Rscript")
out <- system2(rscript, c("-e", shQuote(paste0(
  "library(DPpackPy, lib.loc = '", lib, "'); ",
  "cat('available:', dppack_available(), '\\n')"))), stdout = TRUE, stderr = TRUE)
cat(out, sep = "\n")
stopifnot(identical(out, "available: TRUE "))
cat("R dist check: ok\n")
