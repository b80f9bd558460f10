# Finding and loading the Python core.
#
# DPpackPy follows the reticulate-package convention: nothing touches Python until the first
# call that needs it, and the interpreter is chosen from a documented list of places.

# Evaluated once, while R CMD INSTALL builds the package (top-level code of a lazy-loaded
# package runs at installation). `make install` sets DPPACKPY_PYTHON to the repository's
# virtual environment, so an installed package remembers its Python without any variable set.
.installed_python <- Sys.getenv("DPPACKPY_PYTHON", unset = "")

.dppack <- new.env(parent = emptyenv())

#' Where DPpackPy looks for Python
#'
#' DPpackPy runs its numerics in the Python package `dppack`, through reticulate. The first call
#' that needs it loads Python, taking the first of:
#' 1. the R option `DPpackPy.python` (a path to a Python executable);
#' 2. the environment variable `DPPACKPY_PYTHON`;
#' 3. the environment variable `RETICULATE_PYTHON` (reticulate's own convention);
#' 4. the Python recorded when DPpackPy was installed (`DPPACKPY_PYTHON` at installation, which
#'    the repository's `make install` sets to its `.venv`);
#' 5. the virtual environment `r-dppack` made by [install_dppack()];
#' 6. whatever Python reticulate finds by itself.
#'
#' Once Python is loaded in an R session it cannot be swapped; restart R to change it.
#'
#' @return `dppack_python()` returns the path of the Python that DPpackPy will use (or uses),
#'   or `NULL` when it leaves the choice to reticulate.
#' @seealso [install_dppack()]
#' @export
#' @examples
#' dppack_python()
dppack_python <- function() {
  if (reticulate::py_available(initialize = FALSE)) {
    return(reticulate::py_config()$python)
  }
  candidates <- c(
    getOption("DPpackPy.python", default = ""),
    Sys.getenv("DPPACKPY_PYTHON"),
    Sys.getenv("RETICULATE_PYTHON"),
    .installed_python
  )
  candidates <- candidates[nzchar(candidates)]
  if (length(candidates) > 0) {
    return(path.expand(candidates[[1]]))
  }
  if (reticulate::virtualenv_exists("r-dppack")) {
    return(reticulate::virtualenv_python("r-dppack"))
  }
  NULL
}

#' Install the Python core of DPpackPy
#'
#' Creates (or updates) a Python virtual environment, by default `r-dppack`, holding the
#' Python package `dppack` and NumPy < 2 (reticulate 1.28, Debian 12's, cannot convert arrays
#' under NumPy 2). DPpackPy finds this environment by itself in later sessions; see
#' [dppack_python()] for the full search order.
#'
#' @param envname Name of the virtual environment.
#' @param package What pip installs as the core: `"dppack"`, or a path to a source checkout of
#'   this repository, which is installed from there.
#' @param python The Python used to create the environment; `NULL` lets reticulate choose.
#' @return The path of the environment's Python, invisibly.
#' @export
#' @examples
#' \dontrun{
#' install_dppack(package = "/path/to/DPpackPy")
#' }
install_dppack <- function(envname = "r-dppack", package = "dppack", python = NULL) {
  if (!reticulate::virtualenv_exists(envname)) {
    reticulate::virtualenv_create(envname, python = python, packages = NULL)
  }
  reticulate::virtualenv_install(envname, c("numpy<2", package), ignore_installed = FALSE)
  invisible(reticulate::virtualenv_python(envname))
}

.no_core_message <- function(python, reason) {
  paste0(
    "DPpackPy could not load its Python core (the Python package 'dppack')",
    if (!is.null(python)) paste0(" from ", python) else "", ": ", reason, "\n",
    "To fix it, run DPpackPy::install_dppack(), or point DPpackPy at a Python that has ",
    "dppack and NumPy < 2 with options(DPpackPy.python = \"/path/to/python\") or the ",
    "environment variable DPPACKPY_PYTHON, then restart R. See ?dppack_python."
  )
}

.load_core <- function() {
  python <- dppack_python()
  if (!is.null(python) && !reticulate::py_available(initialize = FALSE)) {
    if (!file.exists(python)) {
      stop(.no_core_message(python, "that file does not exist."), call. = FALSE)
    }
    reticulate::use_python(python, required = TRUE)
  }
  # reticulate 1.28 looks for a Poetry project (a pyproject.toml above the working directory)
  # before it honours use_python(), and warns when it finds one without Poetry, as it does in
  # this repository. Point that search at an empty place while Python starts.
  old_options <- options(reticulate.poetry.project = tempfile("no-poetry-project"))
  on.exit(options(old_options), add = TRUE)
  bridge <- tryCatch(
    reticulate::import("dppack._rbridge"),
    error = function(e) stop(.no_core_message(python, conditionMessage(e)), call. = FALSE)
  )
  # reticulate converts arrays only under a NumPy it was built for; probe once so that the
  # user gets this message rather than a failure deep inside the first call.
  tryCatch(
    reticulate::np_array(c(0, 1)),
    error = function(e) stop(.no_core_message(python, conditionMessage(e)), call. = FALSE)
  )
  bridge
}

# The Python module `dppack._rbridge`, loading Python on first use.
.core <- function() {
  if (is.null(.dppack$bridge)) {
    .dppack$bridge <- .load_core()
  }
  .dppack$bridge
}

#' Is the Python core available?
#'
#' @return `TRUE` if DPpackPy can load its Python core in this session, `FALSE` otherwise
#'   (then any DPpackPy call stops with a message that says how to fix it).
#' @export
#' @examples
#' dppack_available()
dppack_available <- function() {
  tryCatch({
    .core()
    TRUE
  }, error = function(e) FALSE)
}
