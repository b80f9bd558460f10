# The R documentation site (pkgdown, configured by _pkgdown.yml).
#   Rscript scripts/pkgdown.R check   the reference index lists every exported topic, the
#                                     articles index every vignette; every help page renders
#                                     (examples not run: R CMD check runs them), and the home
#                                     page, the news page and the articles (vignettes knitted
#                                     again) are built, into a temporary directory (make test)
#   Rscript scripts/pkgdown.R build   the whole site into build/docs/r/, examples and
#                                     articles run (make docs-r)
# Both fail on any warning, so that the site never builds half-right in silence: pkgdown's
# own warnings, and a warning printed in an article (pkgdown knits each article in a separate
# R process, whose warnings reach the article's page, not this process).
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

# Every article was built, ran its code (the vignettes evaluate their chunks only where the
# Python core loads: a page without any output would mean they silently did not), and printed
# no warning. knitr prints a warning as a comment line "#> Warning..." ("## Warning..." with
# knitr's default comment); a chunk with `error = TRUE` may show an error on purpose.
check_articles <- function(pkg) {
  for (page in file.path(pkg$dst_path, pkg$vignettes$file_out)) {
    if (!file.exists(page)) stop("pkgdown wrote no ", page, call. = FALSE)
    html <- readLines(page, warn = FALSE, encoding = "UTF-8")
    if (!any(grepl('class="co">(#&gt;|##) ', html))) {
      stop(basename(page), " shows no output of its code: did the Python core load?",
           call. = FALSE)
    }
    warned <- grep('class="co">(#&gt;|##) Warning', html, value = TRUE)
    if (length(warned)) {
      text <- gsub("&gt;", ">", gsub("&lt;", "<", gsub("<[^>]*>", "", warned[[1]])))
      stop(basename(page), " printed a warning: ", text, call. = FALSE)
    }
  }
}

# Every link of the home page (pkgdown/index.md and what pkgdown adds: the navbar, the sidebar)
# that stays inside the site leads to a page that was built: a link to a file of the
# repository (README.md's NEWS.md became NEWS.html) would not. Links that leave the site
# (another host, or ../python/, the Python site built beside it) are not checked here.
check_links <- function(site, page = "index.html") {
  html <- paste(readLines(file.path(site, page), warn = FALSE, encoding = "UTF-8"), collapse = "\n")
  hrefs <- regmatches(html, gregexpr('href="[^"]*"', html))[[1]]
  hrefs <- unique(sub("#.*$", "", gsub('^href="|"$', "", hrefs)))
  local <- hrefs[nzchar(hrefs) & !grepl("^([a-z]+:|//|\\.\\./)", hrefs)]
  missing <- local[!file.exists(file.path(site, dirname(page), local))]
  if (length(missing)) {
    stop(page, " links to pages that were not built: ", paste(missing, collapse = ", "),
         call. = FALSE)
  }
}

# The build machines and CI have no general internet: do not ask CRAN whether DPpackPy is there.
options(pkgdown.internet = FALSE)
strict(pkgdown::check_pkgdown("."))
library(DPpackPy)  # the @examplesIf conditions are evaluated even when the examples are not run
if (!dppack_available()) {
  stop("DPpackPy's Python core does not load (see ?dppack_python): the examples and articles ",
       "could not run", call. = FALSE)
}
if (mode == "check") {
  # Into a temporary copy of the site: every help page rendered to HTML without running the
  # examples, the home and news pages, and the articles, knitted again (they are the installed
  # vignettes, which R CMD build knitted too, but pkgdown renders its own pages from the .Rmd).
  site <- tempfile("pkgdown-check-")
  pkg <- pkgdown::as_pkgdown(".", override = list(destination = site))
  strict(pkgdown::init_site(pkg))
  strict(pkgdown::build_reference(pkg, examples = FALSE, devel = FALSE, preview = FALSE))
  if (!file.exists(file.path(site, "reference", "index.html"))) {
    stop("pkgdown wrote no reference index", call. = FALSE)
  }
  strict(pkgdown::build_home(pkg, preview = FALSE))
  strict(pkgdown::build_news(pkg, preview = FALSE))
  if (!file.exists(file.path(site, "news", "index.html"))) {
    stop("pkgdown wrote no news page", call. = FALSE)
  }
  strict(pkgdown::build_articles(pkg, lazy = FALSE, preview = FALSE))
  check_articles(pkg)
  check_links(site)
  unlink(site, recursive = TRUE)
  cat("pkgdown: reference index and help pages render; home, news and articles build;",
      "the home page's links lead to built pages\n")
} else {
  # The installed package (make install) is the one documented: the examples and the
  # articles run against its Python core.
  strict(pkgdown::build_site(".", install = FALSE, new_process = FALSE, preview = FALSE))
  index <- file.path("build", "docs", "r", "reference", "index.html")
  if (!file.exists(index)) stop("pkgdown wrote no reference index", call. = FALSE)
  check_articles(pkgdown::as_pkgdown("."))
  check_links(file.path("build", "docs", "r"))
  cat("R documentation site written to build/docs/r/index.html\n")
}
