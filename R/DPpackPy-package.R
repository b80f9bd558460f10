#' DPpackPy: differential privacy for statisticians
#'
#' DPpack 0.2.2's functions and R6 classes, with its exact signatures, computed by the Python
#' core `dppack` through reticulate. Scripts written for DPpack run unchanged; Python users get
#' the same answers from `import dppack`.
#'
#' Randomness: [set.seed()] makes DPpackPy calls reproducible within R, and
#' [with_random_state()] makes them bit-identical to the same calls in Python.
#'
#' @keywords internal
#' @importFrom R6 R6Class
#' @useDynLib DPpackPy, .registration = TRUE
"_PACKAGE"
