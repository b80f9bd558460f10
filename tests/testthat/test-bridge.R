# The bridge to the Python core, seen from R: the core loads, its Python is where it says, and
# R objects go in and come back as the R objects a DPpack user expects.

test_that("the Python core is available", {
  expect_identical(dppack_available(), TRUE)
})

test_that("dppack_python() returns an existing file", {
  expect_true(dppack_available())
  python <- dppack_python()
  expect_type(python, "character")
  expect_length(python, 1)
  expect_true(file.exists(python))
  expect_false(dir.exists(python))
  # It is the interpreter reticulate actually runs.
  expect_identical(normalizePath(python), normalizePath(reticulate::py_config()$python))
})

test_that("a data.frame goes into LaplaceMechanism and comes back as a data.frame", {
  # DPpack refuses a data.frame (not atomic); DPpackPy accepts it, by choice.
  df <- data.frame(a = c(1, 2, 3), b = c(40L, 50L, 60L), row.names = c("x", "y", "z"))
  out <- LaplaceMechanism(df, 1, 1e-9)
  expect_s3_class(out, "data.frame")
  expect_identical(names(out), names(df))
  expect_identical(row.names(out), row.names(df))
  expect_identical(dim(out), dim(df))
  expect_type(out$b, "double")
  # Tiny noise: every value stays in its row and column.
  expect_equal(as.matrix(out), as.matrix(df) + 0, tolerance = 1e-6)
  set.seed(1)
  noisy <- LaplaceMechanism(df, 1, 1)
  expect_false(any(as.matrix(noisy) == as.matrix(df)))
})

test_that("a data.frame goes into GaussianMechanism and comes back as a data.frame", {
  df <- data.frame(p = c(1, 2), q = c(3, 4))
  out <- GaussianMechanism(df, 0.5, 0.01, 1e-9)
  expect_s3_class(out, "data.frame")
  expect_identical(names(out), names(df))
  expect_equal(as.matrix(out), as.matrix(df), tolerance = 1e-6)
})

test_that("the caller's data are not modified", {
  tv <- c(a = 1, b = 2)
  m <- matrix(1:4, 2)
  df <- data.frame(a = 1:2)
  tv0 <- tv; m0 <- m; df0 <- df
  LaplaceMechanism(tv, 1, 1)
  LaplaceMechanism(m, 1, 1)
  LaplaceMechanism(df, 1, 1)
  expect_identical(tv, tv0)
  expect_identical(m, m0)
  expect_identical(df, df0)
})

test_that("a missing Python gives one clear R error that says how to fix it", {
  # In a fresh R process: Python cannot be swapped once loaded in this one.
  rscript <- file.path(R.home("bin"), "Rscript")
  code <- paste(
    "options(DPpackPy.python = '/nonexistent/python')",
    "library(DPpackPy)",
    "cat('available:', dppack_available(), '\\n')",
    "LaplaceMechanism(0, 1, 1)",
    sep = "; "
  )
  out <- suppressWarnings(system2(rscript, c("-e", shQuote(code)), stdout = TRUE,
                                  stderr = TRUE))
  expect_identical(attr(out, "status"), 1L)
  expect_true(any(grepl("available: FALSE", out, fixed = TRUE)))
  expect_true(any(grepl("could not load its Python core", out, fixed = TRUE)))
  expect_true(any(grepl("/nonexistent/python", out, fixed = TRUE)))
  expect_true(any(grepl("install_dppack()", out, fixed = TRUE)))
  expect_false(any(grepl("Traceback", out, fixed = TRUE)))
})

test_that("a long double vector reaches the core as a read-only view of R's memory", {
  x <- seq(-1, 1, length.out = 1e5) + 0 # a materialised double vector (not ALTREP)
  view <- DPpackPy:::.to_py(x)
  expect_s3_class(view, "numpy.ndarray")
  expect_false(reticulate::py_to_r(view$flags$writeable))
  expect_false(reticulate::py_to_r(view$flags$owndata))
  # The view reads R's own values, bit for bit.
  expect_identical(as.vector(reticulate::py_to_r(view)), x)
  # Writing through it is refused: the core cannot change the caller's data.
  main <- reticulate::import_main(convert = FALSE)
  main$dppackpy_test_view <- view
  on.exit(reticulate::py_run_string("del dppackpy_test_view"))
  expect_error(reticulate::py_run_string("dppackpy_test_view[0] = 5.0"), "read-only")
  expect_identical(x[1], -1)
})

test_that("a view keeps its R vector alive, and R copies the vector before changing it", {
  x <- rnorm(1e5) # seed: any values
  expected <- sum(x)
  first <- x[1]
  view <- DPpackPy:::.to_py(x)
  x[1] <- 1e6 # R copies: the view's vector is referenced by the view too
  expect_identical(reticulate::py_to_r(view[0L]), first)
  rm(x)
  invisible(gc(full = TRUE))
  invisible(lapply(1:20, function(i) rnorm(1e5))) # seed: reuse freed memory, if any
  expect_equal(reticulate::py_to_r(view$sum()), expected, tolerance = 1e-12)
})

test_that("short vectors, integers, ALTREP sequences and NA go through the core correctly", {
  # A short vector is copied (cheaper than a view); a long one is viewed.
  # (.to_py leaves a short vector an R array, which reticulate converts in the call itself)
  base_class <- function(x) class(reticulate::r_to_py(DPpackPy:::.to_py(x))$base)[1]
  expect_false(grepl("_RDoubles", base_class(c(1, 2, 3))))
  expect_match(base_class(rnorm(1e4)), "_RDoubles") # seed: any values
  z <- as.numeric(seq_len(1e5)) # may be an ALTREP compact sequence: materialised for the view
  expect_identical(reticulate::py_to_r(DPpackPy:::.to_py(z)$sum()), sum(z))
  expect_equal(meanDP(z, 1e9, 0, 1e5), mean(z), tolerance = 1e-6)
  w <- c(rep(0.5, 1e5 - 1), NA)
  expect_error(meanDP(w, 1, 0, 1), "NaN|NA|missing|finite")
  expect_equal(meanDP(seq_len(1e5), 1e9, 0, 1e5), mean(seq_len(1e5)), tolerance = 1e-6)
})

test_that("NA of every R type is refused before any draw (issue 11)", {
  # reticulate turns an integer NA into the valid number -2147483648, a logical NA into True
  # and a character NA into the text "NA": the bridge sends NaN or None instead, which the
  # core refuses with its usual message, naming the argument.
  finite <- function(name) sprintf("%s must be finite (no NA, NaN or Inf).", name)
  missing_factor <- paste("Factors must not contain missing values (None, NaN, NA):",
                          "DPpackPy refuses them in tables instead of dropping them as R's",
                          "table() does.")
  X <- matrix(c(1L, 2L, 3L, 4L, 5L, NA, 1L, 2L), 4)
  y <- c(0, 1, 0, 1)
  model <- LogisticRegressionDP$new("l2", 1, 0.5)
  set.seed(11)
  before <- .Random.seed
  for (x in list(c(1L, NA, 3L), c(TRUE, NA, FALSE), c(1, NA, 3), c(1, NaN, 3),
                 matrix(c(1L, NA, 3L, 4L), 2), data.frame(a = c(1L, NA), b = c(2L, 3L)))) {
    expect_dppack_error(meanDP(x, 1, 0, 5), finite("x"), "meanDP")
    expect_dppack_error(LaplaceMechanism(x, 1, 1), finite("true.values"), "LaplaceMechanism")
  }
  for (x in list(c(1L, NA, 3L), c(TRUE, NA, FALSE), c(1, NA, 3), c(1, NaN, 3))) {
    expect_dppack_error(varDP(x, 1, 0, 5), finite("x"), "varDP")
  }
  expect_dppack_error(LaplaceMechanism(NA_integer_, 1, 1), finite("true.values"),
                      "LaplaceMechanism")
  expect_dppack_error(meanDP(c("1", NA), 1, 0, 5), "x must be numeric.", "meanDP")
  expect_dppack_error(meanDP(1:3, 1, NA_integer_, 5), "lower.bound must be a finite number.",
                      "meanDP")
  expect_dppack_error(meanDP(1:3, NA_integer_, 0, 5), "eps must be a scalar > 0", "meanDP")
  expect_dppack_error(LaplaceMechanism(1, NA_integer_, 1), "eps must be a scalar > 0",
                      "LaplaceMechanism")
  # Tables: NA in a factor, and in undeclared vectors of every type (a character NA does not
  # become the category "NA").
  expect_dppack_error(tableDP(factor(c("a", NA, "b"))), missing_factor, "tableDP")
  for (x in list(c("a", NA, NA, NA), c(1L, NA), c(TRUE, NA), c(1, NA), c(1, NaN),
                 NA_character_)) {
    expect_dppack_error(tableDP(x, eps = 1, delta = 0.1), missing_factor, "tableDP")
  }
  expect_dppack_error(tableDP(factor("a"), eps = 1, mechanism = NA_character_),
                      "Mechanism must be one of c(\"Laplace\", \"Gaussian\", \"analytic\").",
                      "tableDP")
  # A model fit: NA in X (matrix or data.frame), in y (integer, logical), in the bounds.
  expect_method_error <- function(object, message) {
    cnd <- expect_error(object, message, fixed = TRUE)
    expect_identical(conditionMessage(cnd), message)
  }
  expect_method_error(model$fit(X, y, c(5, 5), c(0, 0)), finite("X"))
  expect_method_error(model$fit(as.data.frame(X), y, c(5, 5), c(0, 0)), finite("X"))
  expect_method_error(model$fit(matrix(1:8, 4), c(0L, 1L, NA, 1L), c(8, 8), c(0, 0)),
                      finite("y"))
  expect_method_error(model$fit(matrix(1:8, 4), c(FALSE, TRUE, NA, TRUE), c(8, 8), c(0, 0)),
                      finite("y"))
  expect_method_error(model$fit(matrix(1:8, 4), y, c(8L, NA), c(0, 0)),
                      "upper.bounds must be finite.")
  expect_null(model$coeff)
  # Arguments the R functions pass unconverted (not through .to_py) are checked as well.
  expect_method_error(InteractiveAboveThreshold$new(1:5, eps = 1, threshold = NA_integer_,
                                                    sensitivity = 1),
                      "threshold must be a finite number.")
  above <- InteractiveAboveThreshold$new(1:5, eps = 1, threshold = 3, sensitivity = 1)
  set.seed(11)
  before <- .Random.seed
  expect_method_error(above$query(NA_integer_), "The query value must be a finite number.")
  expect_method_error(above$query(function(d) d[6]), # an integer NA
                      "The query value must be a finite number.")
  expect_identical(.Random.seed, before)
})

test_that(".without_na converts only what holds NA", {
  expect_identical(DPpackPy:::.without_na(c(1L, 2L)), c(1L, 2L))
  expect_identical(DPpackPy:::.without_na(c(TRUE, FALSE)), c(TRUE, FALSE))
  expect_identical(DPpackPy:::.without_na(c("a", "b")), c("a", "b"))
  expect_identical(DPpackPy:::.without_na(c(1, NA)), c(1, NA))
  m <- DPpackPy:::.without_na(matrix(c(1L, NA, 3L, 4L), 2))
  expect_identical(m, matrix(c(1, NA, 3, 4), 2))
  expect_identical(DPpackPy:::.without_na(NA), NaN)
  expect_identical(DPpackPy:::.without_na(NA_character_), NaN)
  text <- DPpackPy:::.without_na(matrix(c("a", NA, "b", "c"), 2))
  expect_identical(reticulate::py_to_r(text$shape), list(2L, 2L))
  expect_identical(reticulate::py_to_r(text$ravel(order = "F")$tolist()),
                   list("a", NULL, "b", "c"))
  expect_null(DPpackPy:::.without_na(NULL))
})
