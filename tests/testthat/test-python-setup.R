# Setting up the Python core: what install_dppack() asks pip for, and the check that the core
# is the version the R package was built with (at library() and at the first call).

test_that("install_dppack() asks pip for the given core with its extras, as a direct reference", {
  wheel <- file.path(tempfile("wheels"), "dppack-0.1.0-py3-none-any.whl")
  dir.create(dirname(wheel))
  file.create(wheel)
  on.exit(unlink(dirname(wheel), recursive = TRUE))
  path <- normalizePath(wheel)
  expect_identical(DPpackPy:::.core_requirement(wheel),
                   paste0("dppack @ file://", path))
  expect_identical(DPpackPy:::.core_requirement(wheel, c("sklearn", "dask")),
                   paste0("dppack[sklearn,dask] @ file://", path))
  # a requirement for the index keeps its version and gains the extras
  expect_identical(DPpackPy:::.core_requirement("dppack==0.1.0", "sklearn"),
                   "dppack[sklearn]==0.1.0")
  expect_identical(DPpackPy:::.core_requirement("dppack"), "dppack")
  expect_error(DPpackPy:::.core_requirement(wheel, "sklaern"), "Unknown extras: sklaern")
  expect_error(DPpackPy:::.core_requirement(c("a", "b")), "one string")
})

test_that("install_dppack() installs the bundled core by default, or says it has none", {
  bundled <- DPpackPy:::.bundled_core()
  if (is.null(bundled)) {
    # make install's package (built from the checkout) carries no wheel; make dist's does
    expect_error(DPpackPy:::.core_requirement(NULL), "carries no Python core")
  } else {
    version <- as.character(packageVersion("DPpackPy"))
    expect_identical(basename(bundled), paste0("dppack-", version, "-py3-none-any.whl"))
    expect_identical(DPpackPy:::.core_requirement(NULL, "dask"),
                     paste0("dppack[dask] @ file://", bundled))
  }
  expect_identical(names(formals(install_dppack)), c("envname", "package", "python", "extras"))
})

test_that("the core is the version of the R package", {
  expect_true(dppack_available())
  version <- as.character(packageVersion("DPpackPy"))
  expect_identical(reticulate::import("dppack")$`__version__`, version)
  expect_identical(DPpackPy:::.core_version_of(dppack_python()), version)
  expect_null(DPpackPy:::.core_check_message(dppack_python()))
  expect_null(DPpackPy:::.core_check_message(dppack_python(), version))
})

test_that("another version of the core, or none, is reported with the fix", {
  version <- as.character(packageVersion("DPpackPy"))
  other <- DPpackPy:::.core_check_message("/some/python", "0.0.1")
  expect_match(other, paste0("DPpackPy ", version, " needs its Python core dppack ", version,
                             ", but /some/python holds dppack 0.0.1"), fixed = TRUE)
  expect_match(other, "DPpackPy::install_dppack()", fixed = TRUE)
  missing <- DPpackPy:::.core_check_message("/nonexistent/python")
  expect_match(missing, "found no Python core", fixed = TRUE)
  expect_match(missing, "install_dppack()", fixed = TRUE)
  expect_match(DPpackPy:::.core_check_message(NULL), "no Python core set up yet", fixed = TRUE)
  withr_old <- options(DPpackPy.check_core = FALSE)
  on.exit(options(withr_old))
  expect_null(DPpackPy:::.core_check_message("/some/python", "0.0.1"))
})

test_that("library() says when the core is missing, and the first call stops at another version", {
  rscript <- file.path(R.home("bin"), "Rscript")
  run <- function(code, env = character()) {
    suppressWarnings(system2(rscript, c("-e", shQuote(code)), stdout = TRUE, stderr = TRUE,
                             env = env))
  }
  # A startup message when the Python DPpackPy would use has no dppack.
  out <- run("options(DPpackPy.python = '/nonexistent/python'); library(DPpackPy)")
  expect_true(any(grepl("found no Python core", out, fixed = TRUE)))
  expect_true(any(grepl("install_dppack()", out, fixed = TRUE)))
  # None when it has the package's version.
  expect_identical(run("library(DPpackPy)"), character())
  # A dppack of version 0.0.0 ahead on the path: the first call stops, saying how to fix it.
  fake <- tempfile("fake-core")
  dir.create(file.path(fake, "dppack"), recursive = TRUE)
  on.exit(unlink(fake, recursive = TRUE))
  writeLines('__version__ = "0.0.0"', file.path(fake, "dppack", "__init__.py"))
  file.create(file.path(fake, "dppack", "_rbridge.py"))
  out <- run("library(DPpackPy); LaplaceMechanism(0, 1, 1)", env = paste0("PYTHONPATH=", fake))
  expect_identical(attr(out, "status"), 1L)
  expect_true(any(grepl("holds dppack 0.0.0", out, fixed = TRUE)))
  expect_true(any(grepl("install_dppack()", out, fixed = TRUE)))
})

test_that("a vignette built without the core stops, saying why, rather than coming out empty", {
  vignettes <- list.files(system.file("doc", package = "DPpackPy"), pattern = "\\.Rmd$",
                          full.names = TRUE)
  skip_if(length(vignettes) == 0, "DPpackPy was installed without its vignettes")
  expect_gte(length(vignettes), 8)
  for (v in vignettes) {
    # every vignette needs the core in its set-up chunk, none evaluates conditionally on it
    text <- readLines(v)
    expect_true(any(grepl("invisible(DPpackPy:::.core())", text, fixed = TRUE)), label = v)
    expect_false(any(grepl("dppack_available()", text, fixed = TRUE)), label = v)
  }
  skip_if_not_installed("rmarkdown")
  skip_if_not(rmarkdown::pandoc_available())
  out_dir <- tempfile("vignette")
  on.exit(unlink(out_dir, recursive = TRUE))
  source <- vignettes[basename(vignettes) == "quantiles.Rmd"]
  code <- sprintf("rmarkdown::render('%s', output_dir = '%s', intermediates_dir = '%s', quiet = TRUE)",
                  source, out_dir, out_dir)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)),
                                  stdout = TRUE, stderr = TRUE,
                                  env = "DPPACKPY_PYTHON=/nonexistent/python"))
  expect_identical(attr(out, "status"), 1L)
  expect_true(any(grepl("could not load its Python core", out, fixed = TRUE)))
  expect_false(file.exists(file.path(out_dir, "quantiles.html")))
})

test_that("citation() names the DPpackPy developers, and DPpack's authors", {
  cites <- expect_silent(utils::citation("DPpackPy"))
  expect_length(cites, 2)
  expect_match(format(cites[1], style = "text"), "^DPpackPy developers \\([0-9]{4}\\)\\. ")
  expect_match(format(cites[2], style = "text"), "^Giddens S, Liu F \\(2023\\)\\. ")
  authors <- eval(parse(text = utils::packageDescription("DPpackPy")$`Authors@R`))
  expect_identical(format(authors[1], include = c("given", "role")),
                   "DPpackPy developers [aut, cre]")
  expect_setequal(vapply(authors[-1], function(p) format(p, include = c("given", "family")), ""),
                  c("Spencer Giddens", "Fang Liu"))
})
