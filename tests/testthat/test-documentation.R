# What an R user reads: the plots' titles, the help pages of the R6 classes, the installed
# vignettes and the examples of every exported function (issue 15, items 4 and 5). The site
# built from them is checked by scripts/pkgdown.R (make test-docs-r).

# The title that plot() gives to a private histogram, read from the recorded plot.
histogram_title <- function(h, ...) {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  grDevices::dev.control("enable")
  plot(h, ...)
  titles <- Filter(function(item) identical(item[[2]][[1]]$name, "C_title"),
                   grDevices::recordPlot()[[1]])
  expect_length(titles, 1)
  titles[[1]][[2]][[2]]
}

test_that("a private histogram's plot is titled with what the release spent", {
  set.seed(1)
  x <- stats::rnorm(50)
  h <- histogramDP(x, 1, -3, 3)
  expect_s3_class(h, c("histogramDP", "histogram"), exact = TRUE)
  expect_equal(attr(h, "privacy"), privacy_loss_pure(1))
  expect_identical(histogram_title(h), "Private histogram of x, eps = 1 (pure DP)")
  gauss <- histogramDP(x, 0.5, -3, 3, mechanism = "Gaussian", delta = 1e-5)
  expect_identical(histogram_title(gauss),
                   "Private histogram of x, (eps, delta) = (0.5, 1e-05)")
  # 'both': each histogram states what the pair spent (up to 3 eps under bounded DP)
  both <- histogramDP(x, 1, -3, 3, which.sensitivity = "both")
  expect_equal(attr(both$Bounded, "privacy"), attr(both$Unbounded, "privacy"))
  expect_match(histogram_title(both$Unbounded), "^Private histogram of x, eps = 3 ",
               fixed = FALSE)
  # a title of the caller's wins; the bars are R's own
  expect_identical(histogram_title(h, main = "Glucose"), "Glucose")
  plain <- structure(unclass(h), class = "histogram", privacy = NULL)
  expect_identical(histogram_title(plain), "Histogram of x")
})

# The text of the installed help page `topic`.
help_text <- function(topic) {
  rd <- tools::Rd_db("DPpackPy")[[paste0(topic, ".Rd")]]
  paste(utils::capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE))),
        collapse = "\n")
}

test_that("the models' help pages show fit() and predict() with their arguments", {
  models <- c("EmpiricalRiskMinimizationDP.CMS", "WeightedERMDP.CMS", "LogisticRegressionDP",
              "svmDP", "EmpiricalRiskMinimizationDP.KST", "LinearRegressionDP",
              "OutputPerturbationAGM", "GradientPerturbationAGM")
  for (model in models) {
    text <- help_text(model)
    usage <- paste0(model, "$fit(")
    expect_true(grepl(usage, text, fixed = TRUE), label = paste(usage, "in ?", model))
    for (argument in c("upper.bounds, lower.bounds", "add.bias", "accountant")) {
      expect_true(grepl(argument, text, fixed = TRUE),
                  label = paste(argument, "in ?", model))
    }
    if (model != "WeightedERMDP.CMS") {  # its predict() is the parent's
      usage <- paste0(model, "$predict(")
      expect_true(grepl(usage, text, fixed = TRUE), label = paste(usage, "in ?", model))
    }
  }
})

test_that("every exported function's help page has examples", {
  db <- tools::Rd_db("DPpackPy")
  tag <- function(rd, name) Filter(function(x) identical(attr(x, "Rd_tag"), name), rd)
  aliases <- lapply(db, function(rd) unlist(lapply(tag(rd, "\\alias"), as.character)))
  with_examples <- vapply(db, function(rd) length(tag(rd, "\\examples")) > 0, logical(1))
  documented <- unlist(aliases[with_examples])
  missing <- setdiff(getNamespaceExports("DPpackPy"), documented)
  expect_identical(missing, character(0))
})

test_that("the guide pages the help pages cite exist, with the sections they name", {
  # The help pages state what a release does and cite the shared guide page that derives it
  # (docs/python/guide/, issue 27): a cited page must exist in the repository, and a section
  # cited by name ("The KST framework") must be a heading of that page.
  root <- testthat::test_path("..", "..")
  skip_if_not(dir.exists(file.path(root, "docs", "python", "guide")),
              "the repository's docs are not beside the tests")
  db <- tools::Rd_db("DPpackPy")
  text <- vapply(db, function(rd) paste(capture.output(tools::Rd2txt(rd, options = list(
    underline_titles = FALSE, width = 1000))), collapse = " "), character(1))
  cites <- regmatches(text, gregexpr("docs/python/guide/[A-Za-z0-9_-]+[.](rst|md)[^.;]*",
                                     text))
  cites <- unique(unlist(cites))
  expect_gte(length(cites), 8)
  for (cite in cites) {
    page <- sub("^(docs/python/guide/[A-Za-z0-9_-]+[.](rst|md)).*$", "\\1", cite)
    expect_true(file.exists(file.path(root, page)), info = cite)
    section <- regmatches(cite, regexpr("\"[^\"]+\"", cite))
    if (length(section) == 1) {
      lines <- readLines(file.path(root, page), warn = FALSE)
      heading <- gsub("\"", "", section)
      expect_true(any(startsWith(sub("^#+ ", "", lines), heading)), info = cite)
    }
  }
})

test_that("the vignettes are installed, the get-started one among them", {
  index <- utils::vignette(package = "DPpackPy")$results
  expect_true(all(c("get-started", "DPpackPy", "confidence-intervals") %in% index[, "Item"]))
  doc <- system.file("doc", package = "DPpackPy")
  expect_true(file.exists(file.path(doc, "get-started.html")))
})

test_that("the interval figure of the confidence-intervals vignette has a legend", {
  # The installed vignette's code (purled by R CMD build), run with legend() recorded: the
  # figure must name the three kinds of interval and the penalised fit it is drawn against.
  code <- system.file("doc", "confidence-intervals.R", package = "DPpackPy")
  skip_if(code == "", "the vignettes were not built")
  skip_if_not(DPpackPy::dppack_available())
  skip_if_not_installed("MASS")
  calls <- list()
  env <- new.env(parent = globalenv())
  env$legend <- function(...) {
    calls[[length(calls) + 1L]] <<- list(...)
    invisible(NULL)
  }
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  set.seed(1)
  sys.source(code, envir = env)
  expect_length(calls, 1)
  labels <- calls[[1]]$legend
  expect_true(any(grepl("non-private", labels)))
  expect_true(any(grepl("DP, eps", labels)))
  expect_true(any(grepl("zCDP", labels)))
})
