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
#' @section Versions:
#' Each DPpackPy carries the Python core it was built with, of the same version
#' (`packageVersion("DPpackPy")`), and [install_dppack()] installs that core. When the Python
#' found above holds another version of `dppack`, or none, `library(DPpackPy)` says so in a
#' startup message and the first call that needs the core stops with the same advice: run
#' `DPpackPy::install_dppack()` (which replaces the core in its environment `r-dppack`), or
#' point DPpackPy at a Python whose `dppack` has the package's version, then restart R.
#' `options(DPpackPy.check_core = FALSE)` turns both checks off (for development only: the R
#' functions may call what another version of the core does not have).
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
#' Python package `dppack` that this DPpackPy was built with (a wheel bundled in the R package,
#' under `python/` of its installation), its dependencies from the Python Package Index, NumPy
#' < 2 (reticulate 1.28, Debian 12's, cannot convert arrays under NumPy 2) and, where pyarrow
#' is installed, pyarrow < 23 (the last releases built for NumPy 1). DPpackPy finds the
#' environment `r-dppack` by itself in later sessions; see [dppack_python()] for the full
#' search order (another `envname` is found through `options(DPpackPy.python = ...)`).
#' Restart R after replacing a core that this session has loaded.
#'
#' @param envname Name of the virtual environment (or a path to it).
#' @param package What pip installs as the core: `NULL` (the default) for the core bundled in
#'   this R package; otherwise a path to a source checkout of DPpackPy, to a `dppack` wheel or
#'   source archive, or a pip requirement such as `"dppack==0.1.0"`.
#' @param python The Python used to create the environment; `NULL` lets reticulate choose.
#' @param extras The optional parts of the core to install with it, any of `"sklearn"` (the
#'   scikit-learn estimators of `dppack.sklearn`), `"dask"` (data beyond memory: Dask and
#'   pyarrow), `"polars"`, `"arrow"` (pyarrow inputs) and `"plot"` (matplotlib). None by
#'   default: the R functions need none of them.
#' @return The path of the environment's Python, invisibly.
#' @export
#' @examples
#' \dontrun{
#' install_dppack()                    # the bundled core
#' install_dppack(extras = "dask")     # with Dask, for data beyond memory
#' install_dppack(package = "/path/to/DPpackPy")  # from a source checkout
#' }
install_dppack <- function(envname = "r-dppack", package = NULL, python = NULL,
                           extras = character()) {
  requirement <- .core_requirement(package, extras)
  if (!reticulate::virtualenv_exists(envname)) {
    reticulate::virtualenv_create(envname, python = python, packages = FALSE)
  }
  env_python <- reticulate::virtualenv_python(envname)
  # The pins as pip constraints: they restrict what is installed without installing pyarrow
  # where no extra asks for it.
  constraints <- tempfile("dppack-constraints-", fileext = ".txt")
  on.exit(unlink(constraints), add = TRUE)
  writeLines(c("numpy<2", "pyarrow<23"), constraints)
  args <- c("-m", "pip", "install", "--upgrade", "--no-user", "--disable-pip-version-check",
            "-c", constraints, requirement, "numpy<2")
  status <- system2(env_python, shQuote(args))
  if (!identical(as.integer(status), 0L)) {
    stop("pip could not install ", requirement, " into ", env_python, " (exit status ",
         status, "); see its output above.", call. = FALSE)
  }
  invisible(env_python)
}

# The optional dependency groups of dppack (pyproject.toml) that install_dppack() offers.
.core_extras <- c("sklearn", "dask", "polars", "arrow", "plot")

# The wheel of the core bundled in the installed package (inst/python/, put there by
# `make dist`), or NULL when this installation carries none.
.bundled_core <- function() {
  dir <- system.file("python", package = "DPpackPy")
  if (!nzchar(dir)) {
    return(NULL)
  }
  wheels <- list.files(dir, pattern = "^dppack-.*\\.whl$", full.names = TRUE)
  if (length(wheels) == 0) NULL else normalizePath(wheels[[1]])
}

# The pip requirement install_dppack() installs: `package` (NULL: the bundled wheel) with
# `extras`, as a PEP 508 direct reference when it is a local path.
.core_requirement <- function(package = NULL, extras = character()) {
  extras <- unique(as.character(extras))
  unknown <- setdiff(extras, .core_extras)
  if (length(unknown) > 0) {
    stop("Unknown extras: ", paste(unknown, collapse = ", "), ". Choose among ",
         paste(.core_extras, collapse = ", "), ".", call. = FALSE)
  }
  suffix <- if (length(extras) > 0) paste0("[", paste(extras, collapse = ","), "]") else ""
  if (is.null(package)) {
    package <- .bundled_core()
    if (is.null(package)) {
      stop("This installation of DPpackPy carries no Python core (it was not built by ",
           "`make dist`). Pass the path of a DPpackPy source checkout or of a dppack wheel: ",
           "install_dppack(package = \"/path/to/DPpackPy\").", call. = FALSE)
    }
  }
  if (!is.character(package) || length(package) != 1 || !nzchar(package)) {
    stop("`package` must be NULL or one string.", call. = FALSE)
  }
  if (file.exists(package)) {
    path <- normalizePath(package, winslash = "/")
    url <- paste0("file://", if (startsWith(path, "/")) "" else "/", utils::URLencode(path))
    return(paste0("dppack", suffix, " @ ", url))
  }
  if (grepl("^dppack([^[:alnum:]_.-]|$)", package) && !grepl("[", package, fixed = TRUE)) {
    return(sub("^dppack", paste0("dppack", suffix), package))
  }
  package
}

# The version of dppack that `python` holds (read from its installed metadata, without
# importing dppack or loading Python in this session), or NA when it holds none.
.core_version_of <- function(python) {
  code <- "import importlib.metadata as m; print(m.version('dppack'))"
  out <- tryCatch(
    suppressWarnings(system2(python, c("-c", shQuote(code)), stdout = TRUE, stderr = FALSE,
                             timeout = 60)),
    error = function(e) character()
  )
  status <- attr(out, "status")
  if ((!is.null(status) && status != 0) || length(out) != 1) NA_character_ else out
}

# What is wrong with the core DPpackPy would load, as advice, or NULL when nothing is (or the
# check is off). `version` is the core's version when it is known already.
.core_check_message <- function(python = dppack_python(), version = NULL) {
  if (isFALSE(getOption("DPpackPy.check_core", TRUE))) {
    return(NULL)
  }
  wanted <- as.character(utils::packageVersion("DPpackPy"))
  fix <- paste0(
    "To fix it, run DPpackPy::install_dppack() (it installs the core bundled with this ",
    "DPpackPy), or point DPpackPy at a Python whose dppack is version ", wanted, " with ",
    "options(DPpackPy.python = \"/path/to/python\") or DPPACKPY_PYTHON (restart R first if ",
    "this session has loaded Python). ",
    "See ?dppack_python."
  )
  if (is.null(python)) {
    return(paste0("DPpackPy has no Python core set up yet (the Python package 'dppack' ",
                  "version ", wanted, "). ", fix))
  }
  if (is.null(version)) {
    version <- if (file.exists(python)) .core_version_of(python) else NA_character_
  }
  if (is.na(version)) {
    return(paste0("DPpackPy found no Python core (the Python package 'dppack' version ",
                  wanted, ") in ", python, ". ", fix))
  }
  if (!identical(version, wanted)) {
    return(paste0("DPpackPy ", wanted, " needs its Python core dppack ", wanted, ", but ",
                  python, " holds dppack ", version, ". ", fix))
  }
  NULL
}

.onAttach <- function(libname, pkgname) {
  # Python already loaded in this session: the first call checks it (.load_core).
  if (reticulate::py_available(initialize = FALSE)) {
    return(invisible())
  }
  message <- tryCatch(.core_check_message(), error = function(e) NULL)
  if (!is.null(message)) {
    packageStartupMessage(message)
  }
  invisible()
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
  # The core must be the version this package was built with (see ?dppack_python).
  version <- reticulate::py_to_r(reticulate::import("dppack", convert = FALSE)$`__version__`)
  problem <- .core_check_message(reticulate::py_config()$python, version)
  if (!is.null(problem)) {
    stop(problem, call. = FALSE)
  }
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
