# DPpack's ERM building blocks (DPpack 0.2.2's StatModels.R), computed by the core. Per-row
# results come back as n x 1 matrices, as in DPpack.

.column <- function(values) matrix(values, ncol = 1)

.matrix_arg <- function(X) .to_py(as.matrix(X))

#' ERM building blocks
#'
#' The maps, losses, regularizers and random-feature samplers that DPpack's ERM classes are made
#' of, for users who build their own model on [EmpiricalRiskMinimizationDP.CMS] or
#' [EmpiricalRiskMinimizationDP.KST]. Per-row results are n x 1 matrices.
#'
#' @param X Numeric matrix, n x p.
#' @param coeff Coefficients, p values.
#' @param y.hat Model outputs, n values.
#' @param y Labels or responses, n values.
#' @param h Huber loss parameter.
#' @param kernel.param Gaussian kernel parameter.
#' @param x A point (p values).
#' @param theta Frequencies and phase, p + 1 values.
#' @return `mapXy.*`, `loss.*`: n x 1 matrices; `mapXy.gr.*`: p x n matrices;
#'   `regularizer.l2`: a number; `regularizer.gr.l2`: p values; `generate.*`: functions;
#'   `phi.gaussian`: a number.
#' @name ermBlocks
#' @keywords internal
#' @examplesIf dppack_available()
#' huber <- generate.loss.huber(0.5)
#' huber(c(-0.5, 1.2, -0.9, 0.8, 1.6), c(-1, 1, -1, 1, 1))
#' phi.gaussian(c(1, 2, 3), c(0.1, 1.1, -0.8, 3))
NULL

#' @rdname ermBlocks
#' @export
mapXy.sigmoid <- function(X, coeff) {
  .column(.call_core("mapXy_sigmoid", X = .matrix_arg(X), coeff = .to_py(coeff)))
}

#' @rdname ermBlocks
#' @export
mapXy.gr.sigmoid <- function(X, coeff) {
  .call_core("mapXy_gr_sigmoid", X = .matrix_arg(X), coeff = .to_py(coeff))
}

#' @rdname ermBlocks
#' @export
mapXy.linear <- function(X, coeff) {
  .column(.call_core("mapXy_linear", X = .matrix_arg(X), coeff = .to_py(coeff)))
}

#' @rdname ermBlocks
#' @export
mapXy.gr.linear <- function(X, coeff) {
  .call_core("mapXy_gr_linear", X = .matrix_arg(X), coeff = .to_py(coeff))
}

#' @rdname ermBlocks
#' @export
loss.cross.entropy <- function(y.hat, y) {
  .column(.call_core("loss_cross_entropy", y_hat = .to_py(y.hat), y = .to_py(y)))
}

#' @rdname ermBlocks
#' @export
loss.gr.cross.entropy <- function(y.hat, y) {
  .column(.call_core("loss_gr_cross_entropy", y_hat = .to_py(y.hat), y = .to_py(y)))
}

#' @rdname ermBlocks
#' @export
loss.squared.error <- function(y.hat, y) {
  .column(.call_core("loss_squared_error", y_hat = .to_py(y.hat), y = .to_py(y)))
}

#' @rdname ermBlocks
#' @export
loss.gr.squared.error <- function(y.hat, y) {
  .column(.call_core("loss_gr_squared_error", y_hat = .to_py(y.hat), y = .to_py(y)))
}

# A closure over a core factory (`generate_*`): each call is answered by the core.
.generated <- function(factory, factory_kwargs, names) {
  force(factory)
  force(factory_kwargs)
  function(...) {
    values <- list(...)
    .column(.call_core("apply", factory = factory, factory_kwargs = factory_kwargs,
                       kwargs = stats::setNames(lapply(values, .to_py), names[seq_along(values)]),
                       .caller = sys.call()))
  }
}

#' @rdname ermBlocks
#' @export
generate.loss.huber <- function(h) {
  loss <- .generated("generate_loss_huber", list(h = h), c("y_hat", "y", "w"))
  function(y.hat, y, w = NULL) loss(y.hat, y, w)
}

#' @rdname ermBlocks
#' @export
generate.loss.gr.huber <- function(h) {
  loss.gr <- .generated("generate_loss_gr_huber", list(h = h), c("y_hat", "y", "w"))
  function(y.hat, y, w = NULL) loss.gr(y.hat, y, w)
}

#' @rdname ermBlocks
#' @export
regularizer.l2 <- function(coeff) {
  .call_core("regularizer_l2", coeff = .to_py(coeff))
}

#' @rdname ermBlocks
#' @export
regularizer.gr.l2 <- function(coeff) {
  .call_core("regularizer_gr_l2", coeff = .to_py(coeff))
}

#' @rdname ermBlocks
#' @export
generate.sampling <- function(kernel.param) {
  force(kernel.param)
  function(d) {
    .call_core("apply", factory = "generate_sampling",
               factory_kwargs = list(kernel_param = kernel.param),
               kwargs = list(d = d, rng = .random_generator()), .caller = sys.call())
  }
}

#' @rdname ermBlocks
#' @export
phi.gaussian <- function(x, theta) {
  .call_core("phi_gaussian", x = .to_py(x), theta = .to_py(theta))
}
