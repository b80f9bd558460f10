# The R documentation site (pkgdown, configured by _pkgdown.yml).
#   Rscript scripts/pkgdown.R check   the reference index lists every exported topic, the
#                                     articles index every vignette, and every help page
#                                     renders (examples not run; a few seconds; make test)
#   Rscript scripts/pkgdown.R build   the whole site into build/docs/r/, examples and
#                                     articles run (make docs-r)
# Both fail on any warning, so that the site never builds half-right in silence.
args <- commandArgs(trailingOnly = TRUE)
mode <- if (length(args)) args[[1]] else "check"
if (!mode %in% c("check", "build")) {
  stop("Usage: Rscript scripts/pkgdown.R check|build", call. = FALSE)
}

strict <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    stop("pkgdown warned: ", conditionMessage(w), call. = FALSE)
  })
}

# The build machines and CI have no general internet: do not ask CRAN whether DPpackPy is there.
options(pkgdown.internet = FALSE)
strict(pkgdown::check_pkgdown("."))
if (mode == "check") {
  # Every help page rendered to HTML, without running the examples (R CMD check runs them),
  # into a temporary copy of the site.
  library(DPpackPy)  # the @examplesIf conditions are evaluated even so
  site <- tempfile("pkgdown-check-")
  pkg <- pkgdown::as_pkgdown(".", override = list(destination = site))
  strict(pkgdown::init_site(pkg))
  strict(pkgdown::build_reference(pkg, examples = FALSE, devel = FALSE, preview = FALSE))
  if (!file.exists(file.path(site, "reference", "index.html"))) {
    stop("pkgdown wrote no reference index", call. = FALSE)
  }
  unlink(site, recursive = TRUE)
  cat("pkgdown: reference index and help pages render\n")
} else {
  # The installed package (make install) is the one documented: the examples and the
  # articles run against its Python core.
  strict(pkgdown::build_site(".", install = FALSE, new_process = FALSE, preview = FALSE))
  index <- file.path("build", "docs", "r", "reference", "index.html")
  if (!file.exists(index)) stop("pkgdown wrote no reference index", call. = FALSE)
  cat("R documentation site written to build/docs/r/index.html\n")
}
