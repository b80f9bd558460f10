#' DPpackPy: differential privacy for statisticians
#'
#' DPpack 0.2.2's functions and R6 classes, with its exact signatures, computed by the Python
#' core `dppack` through reticulate. Scripts written for DPpack run unchanged; Python users get
#' the same answers from `import dppack`.
#'
#' Randomness: by default each call seeds its noise from the operating system's entropy; R's
#' random number stream is neither used nor changed, so [set.seed()] does not reproduce
#' DPpackPy output. For teaching and testing, `options(DPpackPy.reproducible = TRUE)` makes
#' `set.seed()` govern DPpackPy calls (each seeded from 128 bits of R's stream), and
#' [with_random_state()] makes them bit-identical to the same calls in Python. Reproducible
#' output is not private: never release real data in reproducible mode.
#'
#' @keywords internal
#' @importFrom R6 R6Class
#' @useDynLib DPpackPy, .registration = TRUE
"_PACKAGE"
