"""Objective perturbation of Kifer, Smith and Thakurta (2012): the KST framework and
LinearRegressionDP.

The model minimises, over the convex domain ``constraints(theta) <= 0``,

    J(theta) = (1/n) sum_i loss(mapXy(X, theta)_i, y_i) + (gamma/n) R(theta)
               + (Delta/(2n)) ||theta||^2 + (1/n) b . theta,

with Delta = 2 lambda / eps and the noise vector b drawn once per fit, calibrated for
replace-one neighbours (below; DPpack's scale is private only for add/remove neighbours): with
eps_J = log(1 + eps/2) (0 when lambda = 0) and eps_b = eps - eps_J, for delta = 0 the norm
of b is Gamma(shape p, rate eps_b/(2 zeta)) and its direction uniform; for delta > 0 b is
N(0, sigma^2 I) with sigma = 2 zeta sqrt(2 (ln(2/delta) + eps_b)) / eps_b. eps = Inf is the
non-private mode: Delta = 0 and b = 0.

Privacy under replace-one neighbours (a deviation from DPpack 0.2.2, which draws b at rate
eps/(2 zeta), resp. with sigma^2 = zeta^2 (8 ln(2/delta) + 4 eps)/eps^2). The
neighbours of DPpack's other models and of the statistics' default ('bounded') have the same
size and differ in one record, d in D and d' in D'. Write F(theta; D) = sum_i
loss(theta; d_i) + gamma R(theta) + (Delta/2) ||theta||^2, n times the objective without its
noise term. A minimiser theta inside the domain determines the noise, b = -grad F(theta; D),
so its density is nu(b) |det hess F(theta; D)| with nu the density of b (a change of
variables; Kifer, Smith and Thakurta 2012, proof of Theorem 2, who also treat a minimiser on
the boundary of a convex domain). Between D and D', at the same theta:

* the Jacobians: hess F(theta; D) = A + H and hess F(theta; D') = A + H', with A >= Delta I
  (the shared records and R are convex) and H, H' positive semi-definite of rank one with
  eigenvalue <= lambda. By the matrix determinant lemma det(A + H)/det(A) = 1 + u'A^-1 u
  <= 1 + lambda/Delta, and det(A + H') >= det(A), so the ratio of the two Jacobians is at most
  1 + lambda/Delta = 1 + eps/2 both when a record is added or removed (H' = 0, Kifer et al.)
  and when one is replaced (Chaudhuri, Monteleoni and Sarwate 2011, the privacy proof of their
  objective perturbation, bound this ratio by the product of both rank-one factors; dropping
  H' is tighter). Cost: eps_J = log(1 + lambda/Delta) = log(1 + eps/2) (Hessians equal, cost
  0, when lambda = 0).
* the noise: the two b's differ by grad loss(theta; d') - grad loss(theta; d), of norm <= zeta
  when a record is added or removed but <= 2 zeta when one is replaced.

Kifer et al.'s Algorithm 1 (DPpack) spends eps/2 on the Jacobian (1 + eps/2 <= e^(eps/2)) and
eps/2 on a gradient shift of zeta. Under replacement the shift is 2 zeta and the same noise
costs eps: the fit is then only (eps + log(1 + eps/2))-DP, up to 1.5 eps. The bound is
attained in the limit (tests/privacy/test_audit_models.py: a one-record intercept-only Huber
fit whose record, where its gradient is +zeta and its curvature lambda, is replaced by one
with gradient -zeta and no curvature; the auditor finds eps >= 1.31 for a claimed 1 and
>= 4.6 for a claimed 4, 10^5-2x10^5 draws per data set). LinearRegressionDP's constants are
looser (its gradient bound 2 p^(3/2) is not attained jointly with its lambda = p), yet a
numerical search over its scaled problem finds worst cases above eps under DPpack's scale
too (about 1.1 eps for p = 2 and small eps), and the framework's guarantee must hold for any
zeta and lambda the user states.

Here Delta stays 2 lambda/eps (DPpack's regularisation, Jacobian share eps_J) and the noise
gets the rest, eps_b = eps - eps_J >= eps/2, for the shift 2 zeta:

* delta = 0: the noise ratio is exp(rate (||b'|| - ||b||)) <= exp(rate 2 zeta) = e^eps_b with
  rate = eps_b/(2 zeta); with the Jacobian, e^eps (pure eps-DP, Kifer et al. 2012, Theorem 2,
  with 2 zeta in place of zeta).
* delta > 0: Kifer et al.'s sigma^2 = zeta^2 (8 ln(2/delta) + 4 eps)/eps^2 is
  sigma = s sqrt(2 (L + e))/e with sensitivity s = zeta, share e = eps/2 and L = ln(2/delta).
  For any s and e this sigma makes the Gaussian privacy loss (||s||^2 + 2 <b, s>)/(2 sigma^2)
  at most v^2/2 + v sqrt(2L) (v = s/sigma) except on the tail <b, s/||s||> > sigma sqrt(2L)
  of probability <= e^-L = delta/2, and v^2/2 + v sqrt(2L) = e (r/4 + sqrt(1 - r)) <= e with
  r = e/(L + e). Here s = 2 zeta and e = eps_b: (eps, delta)-DP as in Kifer et al.'s theorem,
  whose proof (the tail bound for the direction of the gradient shift) is reused with the
  shift 2 zeta, not re-proved.

The cost in accuracy: the noise grows by the factor eps/eps_b (1.68 at eps = 1, 1.38 at
eps = 4, tending to 2 as eps -> 0; for delta > 0 times sqrt((L + eps_b)/(L + eps/2))); the
accountant's charge, pure eps or (eps, delta), is unchanged and is now the guarantee.

Deviations from DPpack 0.2.2:

* DPpack stops nloptr after its default 100 evaluations (xtol_rel 1e-4), well before the optimum.
  Here SciPy's SLSQP solves the constrained problem to tolerance (ftol 1e-16 on the objective
  rescaled to unit initial gradient), with the analytic gradient when all three gradient
  functions are given (central finite differences otherwise), and the result is checked: it must
  be feasible and satisfy the first-order (KKT) conditions to 1e-7 relative to the initial
  gradient (1e-4 with finite differences), otherwise ``ConvergenceError`` (a ``RuntimeError``;
  :func:`dppack.erm.solvers.minimize_constrained`).
* eps = Inf with delta > 0 gives b = 0 (DPpack crashes in MASS::mvrnorm).
* eps, delta, gamma, zeta, lambda, the data and the bounds are validated before any noise is
  drawn (DPpack validates none of them); predicting with the wrong number of columns is refused.
* The user's functions are evaluated once at the solver's start (theta = 0, no noise) after
  the fit is charged (they read the private data, so a refusal may depend on it) and before
  the noise is drawn: one that returns the wrong number of values (a
  per-row loss with weights, loss.gr, mapXy.gr, regularizer.gr, domain$jacobian) is refused
  there with a message naming it, not after the draw inside the solver.

Approximate minimiser and exact release (Iyengar, Near, Song, Thakkar, Thakurta and Wang 2019,
"Towards practical differentially private convex optimization", IEEE S&P, Algorithm 1 and
Theorem 1; :mod:`dppack.erm.approximate`). Theorem 2 above assumes the exact minimiser
theta*. The budget is split: eps_1 = eps - eps_2 for everything above (Delta = 2 lambda /
eps_1, the noise b at eps_1), eps_2 (:func:`dppack.erm.approximate.split_budget`, at least
eps / 2^10) for an exact output noise. The perturbed objective is m-strongly convex with
m = (Delta + gamma [R = 'l2']) / n (the loss is only convex; a private fit with m = 0, i.e.
lambda = 0 and a regularizer other than 'l2', is refused). The solver
(:func:`dppack.erm.solvers.minimize_constrained`) releases only a feasible point with
multipliers mu >= 0 whose KKT residual is at most rho = K zeta (K = max(1e-8, 1e-6 / n) with
the analytic gradient, 1e-6 with central differences, whose certificate then holds only to
their accuracy) and whose complementary slackness sum mu_i g_i is at most 12 rho^2 / m
(:func:`dppack.erm.solvers.kkt_certificate`); then ||theta - theta*|| <= r = 6 rho / m
(:func:`dppack.erm.approximate.constrained_radius`: the Lagrangian is m-strongly convex).

LinearRegressionDP with its own map, squared loss, gradients, 'l2' regularizer and ball
||theta||^2 <= p (a property of the model, fixed before the data are read) solves exactly
instead: n J(theta) = theta'(X'X + (gamma + Delta) I) theta / 2 - (X'y - b)'theta + const is a
quadratic over a ball, the trust-region subproblem
(:func:`dppack.erm.solvers.quadratic_ball_minimize`: eigendecomposition, secular equation,
hard case, then Newton steps on the KKT system with residuals computed exactly).

Its records are first put on a grid (:func:`grid_regression`, private fits only): each
scaled x~_j in [-1, 1] rounded to a multiple of 2^-20 and y~ in [-p, p] to a multiple of
2^(e - 20) (2^e >= p), clipped into that box. This per-record map is fixed by the bounds and
p alone, so neighbouring data sets map to neighbouring (or equal) rounded data sets, and the
rounded records satisfy the bounds zeta and lambda assume: the fit is Kifer et al.'s on the
rounded data, with the same zeta and lambda (no widening: the box's ends are on the grid).
In grid units every record is an integer of magnitude <= 2^20, so the sums of products of
each block of 2^13 rows are exact in floats, and X'X, X'y are the exact sums (integers
added as int64 and Python integers, :func:`dppack.erm._grid.exact_gram`), in any row order
and over any Dask partition (the same bits in memory and on Dask). The point is
certified in rational arithmetic on these exact X'X, X'y and the drawn b (no rounding in
the check): feasible, and with a multiplier nu >= 0 whose residual is at most rho = 2^-46
(zeta + sqrt(p) (lambda + m)) (the scale of the gradient's terms: the loss's zeta,
||X'X / n|| <= lambda and m times ||theta|| <= sqrt(p)), and, on the sphere,
p - ||theta||^2 in [0, p 2^-50]; r = 2 rho / m + sqrt(p 2^-50)
(:func:`dppack.erm.approximate.ball_radius`, which uses the constraint's own curvature: the
slack enters by its square root, not times the data-dependent multiplier). With sample
weights (:mod:`dppack.erm.weighting`) X'WX and X'Wy are float sums: they differ from the
exact ones by at most gamma_(n+8) times the sums of absolute values (Higham 2002, Lemma 3.1;
any order of summation), which moves the gradient by at most gamma_(n+8) zeta on the ball
(:func:`statistics_rounding`), and rho gains that term. rho, r, and so the split and the
grid, depend on n, p, eps, zeta, lambda, gamma and whether weights are given only. The
solve meets the certificate on every random problem tried (n from 10 to 10^5,
ill-conditioned X'X, minimisers inside and on the sphere; the refined residual is about
2^-52 of the scale, 2^6 below rho); a problem where it does not is refused with
``ConvergenceError`` (a refusal that depends on the data, like the general solver's, and
paid for: the fit is charged before the data are read) rather than solved to a looser,
data-chosen tolerance, which would make the noise depend on the data.

Coupling b on D with b' on D' so that theta*(D, b) = theta*(D', b') (the
proof of Theorem 2), the two approximate minimisers are within 2r, and the release
g (round(theta / g) + Z), Z per-coordinate discrete Laplace of L1 sensitivity 2r sqrt(p) at
eps_2, makes the coefficients (eps_1 + eps_2, delta)-DP: the user's (eps, delta). Every
released coefficient is a multiple of g before ``_postprocess_coeff`` (a data-independent
rescaling). r, and so the split, depend on n (public under replace-one neighbours), so
integer weights no longer give exactly the fit of repeated rows.

The cost in accuracy. r = 6 K zeta n / (Delta + gamma') is a worst case over data sets (the
data's own curvature is not data-independent), while the objective noise's effect shrinks
as 1 / n: the release noise dominates for large n with the general solver.
LinearRegressionDP's exact solve on exact statistics makes r 1700 to 85000 times smaller
and nearly independent of n (at eps = 1, p = 4, 2r = 1.2e-7, 1.2e-7, 1.3e-7 at n = 10^3,
10^4, 10^5: the sphere's slack term 2 sqrt(p 2^-50) dominates; the previous float sums'
rounding bound grew as n^2, 2r = 7.6e-6 at 10^5). Its median coefficient error
(benchmarks/erm_exact_accuracy.py: fits of 3 features and a bias, y = 0.5 + 0.3 x1 - 0.2 x2
+ 0.1 x3 + N(0, 0.1^2), eps = 1, 100 fits, the largest error of the 4 coefficients) is
1.000, 1.009 and 1.017 times that of the exact minimiser's release (the objective at the
full eps, its solver slack unaccounted) at n = 10^3, 10^4, 10^5 (1.001, 1.023, 1.248 with
the float sums, the residual 2^-40 and the slack 2^-46).

A user's loss, map or regularizer keeps the general solver, and its larger radius: 1.11,
2.1 and 24 times the exact minimiser's error at the same sizes (the same benchmark, a user
regularizer equal to 'l2'). Neither remedy of LinearRegressionDP carries over. Exact
statistics need a loss whose objective is a fixed function of a few sums of the records
(the squared loss's X'X, X'y); a user's loss is evaluated by the user's code on the rows in
floating point, with no such sums and no exact arithmetic, so its residual can only be
computed in floats, and a bound on that computation's error would rest on how the user's
code rounds. A tighter certificate of the float residual is possible but not done: SLSQP
stops well below K zeta on the problems measured (squared loss at n = 10^3 to 10^5: 10^-15
to 4 10^-10 of zeta against K = 10^-8), so a smaller K without a polishing step would refuse
some fits (a refusal that depends on the data); Newton steps after SLSQP (a Hessian from
differences of the analytic gradient, and the KKT system on the boundary) could reach the
float evaluation's own error, about n 2^-53 zeta, and K could then be set near it plus that
rounding bound, which the user's code does not guarantee.

Noise in floating point. The objective's noise vector b (Gamma-radius or Gaussian) is drawn
with the floating-point samplers: objective perturbation's proof maps b one-to-one to the
minimiser through the first-order condition and compares the densities of b under neighbouring
data sets (Kifer et al. 2012, Theorem 2); a b on a grid would break that argument. b is drawn
before the data are used (data-free): it is the one float-approximate part of the fit, as no
exact sampler of a continuous density exists. The released value carries no data-dependent
rounding (the release above).

Accounting: ``fit(..., accountant=)`` charges ``PrivacyLoss.approx(eps, delta)`` (pure eps
when delta = 0) under ``"<class name>.fit"`` and reports it in ``privacy_``
(:func:`dppack.accounting.charge`; refused before the data are read when it overspends).
"""

import math
from collections.abc import Mapping
from fractions import Fraction

import numpy as np

from .. import _backends, _checks, _frames, _messages, _random, accounting
from .._repr import model_repr
from .cms import fit_loss, map_jacobian, output_message, refuse_infinite_eps, spend_fit
from .blocks import (
    loss_gr_squared_error,
    loss_squared_error,
    mapXy_gr_linear,
    mapXy_linear,
    resolve_regularizer,
)
from .design import (
    add_bias_column,
    check_fitted,
    fitted_add_bias,
    predict_matrix,
    prepare_design,
    prepare_weights,
)
from .losses import weighted_gram
from .approximate import (ball_radius, constrained_radius, release, release_grid,
                          split_budget)
from ._grid import exact_gram, to_grid
from .blocks import regularizer_l2
from .solvers import SLACKNESS_FACTOR, minimize_constrained, quadratic_ball_minimize

# The KKT residual a released KST minimiser must reach, relative to zeta (absolute and
# data-independent: it sets the release's sensitivity): 1e-8 with the analytic gradient
# (SLSQP with ftol 1e-16 reaches about 1e-8 of the gradient's scale), 1e-6 with central
# differences (accurate to about 1e-10 of the objective's scale).
# For small n the tolerance is raised to 1e-6 zeta / n (KST_RESIDUAL_SMALL_N): the release's
# sensitivity, proportional to K n, stays as small against the objective's noise as at
# n = 100, while boundary minimisers with large multipliers (the noise b / n dominates the
# gradient when n is small) meet the complementary-slackness part of the certificate.
KST_RESIDUAL = 1e-8
KST_RESIDUAL_DIFFERENCES = 1e-6
KST_RESIDUAL_SMALL_N = 1e-6
# LinearRegressionDP's exact solve (squared loss, 'l2', the ball; solvers.quadratic_ball_minimize):
# the KKT residual certified in rational arithmetic on the exact X'X, X'y of the grid records,
# relative to the scale zeta + sqrt(p) (lambda + m) of the gradient's terms (the loss's,
# ||X'X / n|| <= lambda and m = (Delta + gamma) / n times ||theta|| <= sqrt(p)); the refined
# solve reaches about 2^-52 of that scale, 2^6 below (no failure on random problems with n
# from 10 to 10^5, ill-conditioned X'X included, tests/python/erm/test_kst_exact_solve.py). The
# slack of a minimiser on the sphere: p - ||theta||^2 in [0, p 2^-50] (the projection onto
# the sphere steps ||theta||^2 by about p 2^-52). Both set the radius that the release noise
# covers: at n = 10^5 (eps = 1, p = 4) 2^-40 and 2^-46 cost 8% of accuracy, these 2%
# (benchmarks/erm_exact_accuracy.py).
QUADRATIC_RESIDUAL = 2.0 ** -46
QUADRATIC_GAP = 2.0 ** -50
UNIT_ROUNDOFF = 2.0 ** -53


def statistics_rounding(n):
    """gamma_k = k u / (1 - k u) with k = n + 8 and u = 2^-53: the relative error bound of a
    computed sum of n rounded products, each entry of X'X and X'y (in any order of summation,
    over Dask's partitions too; Higham 2002, Accuracy and Stability of Numerical Algorithms,
    2nd ed., Lemma 3.1 and eq. (3.5); 8 covers the weights' square roots and products).
    With LinearRegressionDP's scaled rows (|x_ij| <= 1, |y_i| <= p, weights <= W) the
    computed gradient (X'X theta - X'y) / n then differs from the exact one by at most
    gamma_k W (p^(3/2) + p^(3/2)) = gamma_k zeta on the ball ||theta|| <= sqrt(p)."""
    k = n + 8
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)

NOT_STRONGLY_CONVEX_MESSAGE = (
    "A private KST fit needs lambda > 0 or the 'l2' regularizer with gamma > 0: the "
    "perturbed objective must be strongly convex for its approximate minimiser to be "
    "released privately.")

__all__ = ["EmpiricalRiskMinimizationDP_KST", "LinearRegressionDP"]



# --------------------------------------------------------------------------------------------
# The framework's own checks (the parts through the vocabulary of ``_checks``)
# --------------------------------------------------------------------------------------------


def _check_gamma(gamma, strict):
    """gamma > 0 (``strict``: LinearRegressionDP) or >= 0 (the framework), and finite."""
    return _checks.check_number(gamma, "gamma", low=0, closed="neither" if strict else "both",
                                finite="gamma must be finite.",
                                message=f"gamma must be a scalar {'>' if strict else '>='} 0")


def _check_zeta_lambda(zeta, lambda_):
    """zeta > 0 and lambda >= 0 (DPpack's texts), then both finite (one text for the pair)."""
    zeta = _checks.check_positive_scalar(zeta, "zeta")
    lambda_ = _checks.check_number(lambda_, "lambda", low=0,
                                   message="lambda must be a scalar >= 0")
    if not (np.isfinite(zeta) and np.isfinite(lambda_)):
        raise _messages.value_error("zeta and lambda must be finite.")
    return zeta, lambda_


def _domain_part(domain, name):
    """``domain[name]`` for a mapping (an R list arrives as a dict), else ``domain.name``."""
    if isinstance(domain, Mapping):
        return domain.get(name)
    return getattr(domain, name, None)


def _check_domain(domain):
    constraints = _domain_part(domain, "constraints")
    jacobian = _domain_part(domain, "jacobian")
    _checks.check_callable(
        constraints, "constraints",
        message="domain must have a function 'constraints' (<= 0 on the domain).")
    _checks.check_callable(jacobian, "domain$jacobian", optional=True,
                           message="domain$jacobian, if given, must be a function.")
    return constraints, jacobian


def _values(out):
    """A user function's result as a flat float array (R functions return n x 1 matrices)."""
    return np.asarray(out, dtype=np.float64).reshape(-1)


# --------------------------------------------------------------------------------------------
# The noise's calibration
# --------------------------------------------------------------------------------------------


def _calibration(eps, delta, zeta, lambda_):
    """Delta and the scale of the noise b of a private KST fit (finite eps > 0).

    Parameters
    ----------
    eps, delta : float
        The fit's guarantee: eps-DP (delta = 0) or (eps, delta)-DP, replace-one neighbours.
    zeta, lambda_ : float
        Bounds on the norm of the loss's gradient and on the eigenvalue of its Hessian.

    Returns
    -------
    Delta : float
        2 lambda / eps (Kifer, Smith and Thakurta 2012, Algorithm 1; DPpack).
    scale : float
        delta = 0: the rate eps_b/(2 zeta) of the Gamma(p) norm of b; delta > 0: the
        standard deviation 2 zeta sqrt(2 (ln(2/delta) + eps_b)) / eps_b of its coordinates;
        eps_b = eps - log(1 + lambda/Delta) is what the Jacobian leaves to the noise for the
        gradient shift 2 zeta of a replaced record (derivation in the module docstring).
    """
    Delta = 2 * lambda_ / eps
    eps_b = eps - np.log1p(eps / 2) if lambda_ > 0 else eps  # lambda = 0: equal Hessians
    if delta == 0:
        return Delta, eps_b / (2 * zeta)
    return Delta, 2 * zeta * np.sqrt(2 * (np.log(2 / delta) + eps_b)) / eps_b


# --------------------------------------------------------------------------------------------
# The framework
# --------------------------------------------------------------------------------------------


class EmpiricalRiskMinimizationDP_KST:
    """Privacy-preserving ERM by objective perturbation (Kifer, Smith and Thakurta 2012).

    Parameters
    ----------
    mapXy : callable
        ``mapXy(X, coeff)``: the predictions (length n) for an n x p matrix X.
    loss : callable
        ``loss(y_hat, y)``: the loss of each observation (length n).
    regularizer : 'l2' or callable
        ``'l2'`` uses ``regularizer_l2`` (theta.theta/2) and its gradient (a given
        ``regularizer_gr`` is then ignored, as in DPpack); a callable ``R(coeff)`` must be
        convex.
    eps : float
        Privacy budget, > 0; ``inf`` fits without noise (non-private mode).
    delta : float
        0 for pure eps-DP (Gamma-norm noise), in (0, 1) for (eps, delta)-DP (Gaussian noise).
    domain : mapping or object
        With the function ``constraints(coeff)`` (<= 0 exactly on the convex domain; scalar or
        vector) and, optionally, ``jacobian(coeff)`` (its derivative: a length-p vector or an
        m x p matrix). An R list with these names arrives as a dict.
    zeta : float
        Bound on the l2 norm of the gradient of the loss in coeff over the domain and the
        clipped data, > 0.
    lambda_ : float
        Bound on the eigenvalues of the (rank-one) Hessian of the loss, >= 0. DPpack's
        argument is named
        ``lambda``, which Python cannot spell; the R wrapper maps ``lambda`` to it. The
        attribute is ``lambda_`` too.
    gamma : float
        Regularisation constant, >= 0 (the penalty is (gamma/n) R(coeff)).
    mapXy_gr, loss_gr, regularizer_gr : callable, optional
        Gradients: ``mapXy_gr(X, coeff)`` a p x n matrix, ``loss_gr(y_hat, y)`` length n,
        ``regularizer_gr(coeff)`` length p. The solver uses the analytic gradient when all three
        are given, finite differences otherwise.

    Attributes
    ----------
    mapXy, mapXy_gr, loss, loss_gr, regularizer, regularizer_gr, gamma, eps, delta, domain,
    zeta, lambda_ : as given (DPpack's fields).
    coeff : ndarray or None
        The fitted coefficients (bias first when fitted with ``add_bias``); None before fit.
    noise_ : ndarray or None
        The noise vector b drawn by the last fit (zeros for eps = Inf), in the coordinates of
        the optimisation (after any pre-processing).
    Delta_ : float or None
        The regularisation Delta of the last fit's objective, 2 lambda / eps_1 (2 W lambda /
        eps_1 with sample weights bounded by W, :mod:`dppack.erm.weighting`; Kifer, Smith and
        Thakurta 2012, Theorem 2; eps_1 = eps - ``release_eps_``); 0 for eps = Inf, None
        before a fit.
    optimality_tolerance_ : float or None
        After ``fit``: the KKT residual rho of the exact objective that the released minimiser
        is certified to (K zeta for the general solver; LinearRegressionDP's exact solve: the
        certified 2^-46 (zeta + sqrt(p) (lambda + m)), plus the rounding bound of X'WX and
        X'Wy with weights; module docstring, "Approximate minimiser and exact release").
    release_sensitivity_, release_grid_, release_eps_ : float, int, float or None
        After a private ``fit``: the L2 sensitivity 2r of the released minimiser (r = 6 rho / m
        for the general solver, 2 rho / m + sqrt(p 2^-50) for LinearRegressionDP's exact
        solve), the exponent k of its grid g = 2^k and eps_2, the eps of the release noise;
        None after a fit with eps = Inf.
    privacy_ : dppack.PrivacyLoss or None
        After ``fit``: ``PrivacyLoss.approx(eps, delta)`` (pure eps when delta = 0), also
        charged to the accountant; None before a fit and after a fit with eps = Inf.
    n_passes_ : int or None
        After a fit of ``LinearRegressionDP`` on Dask data: 1, the one pass over the data
        that summed X'X, X'y and y'y (``dppack.dask.erm``); None before a fit and after
        one in memory.

    Notes
    -----
    Privacy assumptions (Kifer, Smith and Thakurta 2012, Theorem 2 and Algorithm 1). The guarantee,
    eps-DP (delta = 0) or (eps, delta)-DP for neighbours that differ in one replaced record (and so
    also for one added or removed), holds when, for every (x, y) with x and y within the bounds (the
    framework clips X and y to them) and every coeff in the domain,

    * the per-row loss loss(mapXy(x, coeff), y) is convex in coeff and twice continuously
      differentiable, with gradient norm <= ``zeta`` and a Hessian of rank at most one whose
      eigenvalue is <= ``lambda_`` (e.g. l(x'coeff, y) with a convex scalar l);
    * the regularizer is convex and differentiable;
    * the domain {coeff : constraints(coeff) <= 0} is closed and convex (and non-empty).

    The framework checks eps, delta, gamma, zeta > 0 and lambda >= 0 (both finite), the data
    and the bounds; it cannot check that ``zeta`` and ``lambda_`` really bound the user's loss,
    nor convexity: these are the user's responsibility (LinearRegressionDP sets them from
    its own scaling). The noise is calibrated for replace-one neighbours, a gradient shift of
    2 ``zeta``: larger than DPpack's, whose scale is private only when a record is added or
    removed (module docstring, "Privacy under replace-one neighbours"). The theorem assumes
    the exact constrained minimiser: the fit is released
    only if it is feasible (constraints <= 1e-8 max(1, abs(constraints(0)))) and its KKT residual
    is at most 1e-7 (1e-4 without gradient functions) times max(1, ||grad J(0)||); otherwise
    ``ConvergenceError`` (a ``RuntimeError``), never a warning. That residual is not
    accounted for in the noise.

    ``fit`` runs three overridable steps, as DPpack's private methods: ``_preprocess_data(X,
    y, upper_bounds, lower_bounds, add_bias)`` returns the (new) matrix and label vector the
    objective sees; ``_optimize_coeff(X, y, noise, Delta)`` returns the minimiser;
    ``_postprocess_coeff(coeff)`` maps it back to the user's units. Subclasses may also
    override ``_data_loss(X, y)`` to supply a faster closed form of the mean loss.

    Raises
    ------
    ValueError
        For invalid hyper-parameters or domain (here and in ``fit``); ``fit`` also for bad
        data or bounds, before any noise is drawn, and on an overspend.
    ConvergenceError
        From ``fit``, when the constrained minimiser is not certified (feasibility and KKT
        residual, see Notes).

    References
    ----------
    Kifer, Smith and Thakurta (2012), Private convex empirical risk minimization and
    high-dimensional regression, COLT, Theorem 2 and Algorithm 1; Giddens and Liu (2023),
    DPpack reference manual, ``EmpiricalRiskMinimizationDP.KST``.

    Examples
    --------
    Least squares over the unit ball. With rows in [-0.5, 0.5]^2 (norm <= 0.71), labels in
    [-1, 1] and ||coeff|| <= 1, the gradient (x'coeff - y) x has norm <= 1.71 * 0.71 < 1.25
    and the Hessian x x' has eigenvalue <= 0.5:

    >>> from dppack import EmpiricalRiskMinimizationDP_KST
    >>> import numpy as np, dppack
    >>> t = np.arange(200)  # fixed example data
    >>> X = 0.5 * np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = np.clip(X @ [1.0, -0.5] + 0.1 * np.sin(3.1 * t), -1, 1)
    >>> ball = {"constraints": lambda c: np.dot(c, c) - 1.0,
    ...         "jacobian": lambda c: 2.0 * np.asarray(c)}
    >>> model = EmpiricalRiskMinimizationDP_KST(
    ...     dppack.mapXy_linear, dppack.loss_squared_error, "l2", eps=1.0, delta=0.0,
    ...     domain=ball, zeta=1.25, lambda_=0.5, gamma=1.0, mapXy_gr=dppack.mapXy_gr_linear,
    ...     loss_gr=dppack.loss_gr_squared_error)
    >>> model = model.fit(X, y, [0.5, 0.5, 1.0], [-0.5, -0.5, -1.0], random_state=1)
    >>> bool(model.coeff @ model.coeff <= 1.0 + 1e-8), model.privacy_  # in the domain
    (True, PrivacyLoss.pure(eps=1.0))
    """

    _strict_gamma = False  # LinearRegressionDP requires gamma > 0

    def __init__(self, mapXy, loss, regularizer, eps, delta, domain, zeta, lambda_, gamma,
                 mapXy_gr=None, loss_gr=None, regularizer_gr=None):
        self.mapXy = mapXy
        self.mapXy_gr = mapXy_gr
        self.loss = loss
        self.loss_gr = loss_gr
        self.regularizer, self.regularizer_gr = resolve_regularizer(regularizer,
                                                                    regularizer_gr)
        self.eps = _checks.check_positive_scalar(eps, "eps")
        self.delta = _checks.check_probability(delta, "delta", zero=True)
        _check_domain(domain)
        self.domain = domain
        if zeta is not None or lambda_ is not None:
            _check_zeta_lambda(zeta, lambda_)
        self.zeta = zeta
        self.lambda_ = lambda_
        self.gamma = _check_gamma(gamma, self._strict_gamma)
        self.coeff = None
        self.noise_ = None
        self.Delta_ = None
        self.optimality_tolerance_ = None
        self.release_sensitivity_ = None
        self.release_grid_ = None
        self.release_eps_ = None
        self.privacy_ = None
        self.n_passes_ = None

    # ---------------------------------------------------------------------------------------
    # fit / predict
    # ---------------------------------------------------------------------------------------

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit the model privately; returns ``self``.

        Parameters
        ----------
        X : array_like
            n x k numeric, finite matrix of features.
        y : array_like
            n numeric, finite labels.
        upper_bounds, lower_bounds : array_like
            Length k + 1: bounds on each column of X, then on y (lower < upper). X columns and
            y are clipped to them.
        add_bias : bool, default False
            Prepend a column of ones (bounds 1, 1); its coefficient comes first.
        random_state : None, int or NumPy Generator, optional
        accountant : dppack.BudgetAccountant, optional
            Charged (eps, delta) (pure eps when delta = 0; Kifer et al. 2012, Theorem 2,
            with the noise calibrated for replace-one neighbours, module docstring)
            under the label ``"<class name>.fit"``; None: the session's accountant, if any.
            An overspend is refused before the data are read and before any draw; a fit with
            eps = Inf cannot be charged and is refused too.

        Returns
        -------
        self

        Raises
        ------
        ValueError
            Invalid parameters, data or bounds (before any noise is drawn).
        RuntimeError
            If the solver fails to reach a feasible point satisfying the optimality conditions.
        """
        return self._fit(X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant)

    def _fit(self, X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant,
             weights=None, weights_upper_bound=None):
        # weights: only through dppack.erm.weighting.fit_weighted (DPpack's fit has none);
        # the loss of row i is then w_i loss_i with w_i in [0, W], and zeta and lambda are
        # scaled by W (derivation in dppack.erm.weighting)
        bill = accounting.charge(accountant, lambda: fit_loss(self.eps, self.delta),
                                 f"{type(self).__name__}.fit")
        add_bias = _checks.check_flag(add_bias, "add.bias")
        eps = _checks.check_positive_scalar(self.eps, "eps")
        delta = _checks.check_probability(self.delta, "delta", zero=True)
        _check_gamma(self.gamma, self._strict_gamma)
        _check_domain(self.domain)
        # the constructor's 'l2' again: the attributes are public and may be assigned in between
        self.regularizer, self.regularizer_gr = resolve_regularizer(self.regularizer,
                                                                    self.regularizer_gr)
        refuse_infinite_eps(bill, eps)
        if weights is not None:
            _frames.refuse_dask(f"{type(self).__name__}.fit with weights", X, y, weights)
        X, y = self._preprocess_data(X, y, upper_bounds, lower_bounds, add_bias)
        zeta, lambda_ = _check_zeta_lambda(self.zeta, self.lambda_)
        n, p = X.shape
        weighting = prepare_weights(weights, weights_upper_bound, n)
        weights, w_bar = weighting["weights"], weighting["weights_upper_bound"]
        # public (the call's form): weighted sums carry rounding (:meth:`_certificate`)
        self._weighted_fit = weights is not None
        zeta, lambda_ = w_bar * zeta, w_bar * lambda_
        modulus = None
        if np.isfinite(eps):
            # the perturbed objective J is modulus-strongly convex (Delta/n from the added
            # quadratic, gamma/n from 'l2'; the loss is only convex)
            l2 = self.regularizer is regularizer_l2
            eps_1 = split_budget(eps, self._noise_ratio(n, p, eps, lambda_, zeta))[0]
            modulus = (_calibration(eps_1, delta, zeta, lambda_)[0]
                       + (float(self.gamma) if l2 else 0.0)) / n
            if not modulus > 0:
                raise _messages.value_error(NOT_STRONGLY_CONVEX_MESSAGE)
            # fixed before the data are read: n, p, zeta, lambda, eps and the model's functions
            certified_residual, residual, radius = self._certificate(n, p, zeta, lambda_,
                                                                     modulus)
        rng = _random.as_generator(random_state)
        privacy = spend_fit(bill, eps)  # after the checks, before the first draw
        # the user's functions read the private data: after the charge (a refusal that
        # depends on the data is paid for), before the first draw
        self._check_outputs(X, y, weights)

        # Kifer et al.'s Algorithm 1 at eps_1, calibrated for replace-one neighbours (module
        # docstring), then the exact release at eps_2 (approximate minima perturbation)
        eps_1, eps_2 = split_budget(eps, self._noise_ratio(n, p, eps, lambda_, zeta))
        if np.isinf(eps):
            Delta = 0.0
            noise = np.zeros(p)
        else:
            Delta, scale = _calibration(eps_1, delta, zeta, lambda_)
            if delta == 0:
                noise = _random.l2_laplace(p, scale, rng)  # scale: the rate of the norm
            else:
                noise = _random.normal(scale, p, rng)
        self.noise_ = noise
        self.Delta_ = float(Delta)
        if np.isfinite(eps):
            self.optimality_tolerance_ = residual
            self._certified_residual = certified_residual
            self._modulus = modulus
        else:
            self.optimality_tolerance_ = self._residual_factor(n) * zeta
            self._certified_residual = None
            self._modulus = None
        # without weights, DPpack's four arguments (a subclass may override the step)
        theta = (self._optimize_coeff(X, y, noise, Delta) if weights is None
                 else self._optimize_coeff(X, y, noise, Delta, weights))
        if np.isfinite(eps):
            # certified ||theta - theta*|| <= r (:meth:`_certificate`); neighbours' within 2r
            sensitivity = 2.0 * radius
            theta = release(theta, sensitivity, eps_2, rng)
            self.release_sensitivity_, self.release_eps_ = sensitivity, eps_2
            self.release_grid_ = release_grid(sensitivity, eps_2, p)[0]
        else:
            self.release_sensitivity_, self.release_grid_, self.release_eps_ = None, None, None
        self.coeff = self._postprocess_coeff(theta)
        self.privacy_ = privacy
        self.n_passes_ = getattr(X, "passes", None)
        self.add_bias_ = add_bias  # predict's default (None: as fitted)
        return self

    def predict(self, X, add_bias=None):
        """Predictions ``mapXy(X, coeff)`` as a 1-d array (X is neither clipped nor scaled);
        for Dask X, a lazy Dask array (this function applied to each chunk). ``add_bias``
        None: as fitted."""
        add_bias = fitted_add_bias(self, add_bias, X)
        return _backends.backend_for(X).predict(self, X, self._predict_rows, add_bias=add_bias)

    def _predict_rows(self, X, add_bias):
        """:meth:`predict` on rows in memory (``add_bias`` resolved)."""
        check_fitted(self.coeff)
        X = predict_matrix(X, self.coeff.size, add_bias)
        if add_bias:
            X = add_bias_column(X)
        return _values(self.mapXy(X, self.coeff))

    # shown by repr (LinearRegressionDP's functions are fixed: fewer)
    _REPR_PARAMS = ("mapXy", "loss", "regularizer", "eps", "delta", "gamma")

    def __repr__(self):
        """Class, key parameters, and the coefficients once fitted."""
        return model_repr(self, self._REPR_PARAMS)

    # ---------------------------------------------------------------------------------------
    # Overridable steps
    # ---------------------------------------------------------------------------------------

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias):
        """Check the data and bounds, add the bias column (first), clip X and y.

        Returns a new n x p float matrix (never the caller's memory: subclasses may scale it
        in place) and a new length-n float vector (:func:`dppack.erm.design.prepare_design`
        with the bounds of X then y). The bounds, bias column included, are kept for the
        subclasses' scaling: ``_bounds`` (X's) and ``_target_bounds`` (y's).
        """
        _frames.refuse_dask(f"{type(self).__name__}.fit", X, y)  # user functions: rows needed
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, target=True)
        self._bounds, self._target_bounds = design["bounds"], design["target_bounds"]
        return design["X"], design["y"]

    def _data_loss(self, X, y, weights=None):
        """The mean loss (1/n) sum w_i loss(mapXy(X, theta), y)_i (w_i = 1 without
        ``weights``; n the number of rows, never sum(w)) and its gradient (None without all
        gradient functions), as functions of theta. Without ``weights``, DPpack's computation
        as it is (sum(loss) / n, whatever the number of values the loss returns); with them,
        the loss must return one value per row (a weight per value; ``ValueError`` otherwise,
        :func:`dppack.erm.cms.output_message`). The gradient of the loss always returns one
        value per row, and ``mapXy_gr`` a p x n matrix."""
        n = y.size
        mapXy, loss = self.mapXy, self.loss
        if weights is None:
            def per_row(values):
                return _values(values)
        else:
            def per_row(values):
                return weights * _checks.as_vector(
                    values, n, output_message("loss", "one per row, each multiplied by its "
                                                      "weight"))

        def value(theta):
            y_hat = np.asarray(mapXy(X, theta), dtype=np.float64)
            target = y.reshape(y_hat.shape) if y_hat.size == n else y
            return float(np.sum(per_row(loss(y_hat, target)))) / n

        if self.mapXy_gr is None or self.loss_gr is None:
            return value, None
        mapXy_gr, loss_gr = self.mapXy_gr, self.loss_gr

        p = X.shape[1]
        scale = 1.0 if weights is None else weights

        def gradient(theta):
            y_hat = np.asarray(mapXy(X, theta), dtype=np.float64)
            target = y.reshape(y_hat.shape) if y_hat.size == n else y
            slopes = _checks.as_vector(loss_gr(y_hat, target), n,
                                       output_message("loss.gr", "one per row"))
            return (map_jacobian(mapXy_gr(X, theta), p, n) @ (scale * slopes)) / n

        return value, gradient

    def _check_outputs(self, X, y, weights=None):
        """Evaluate the objective, its gradient, the constraints and their Jacobian once at
        theta = 0 (the solver's start) with no noise, so that a user function returning the
        wrong number of values is refused before the noise is drawn (after the charge: the
        functions read the private data, and a refusal may depend on them).
        Only lengths are checked (the values depend on the data; the solver's certificate
        judges them). Skipped when a subclass solves with its own :meth:`_optimize_coeff`."""
        if type(self)._optimize_coeff is not EmpiricalRiskMinimizationDP_KST._optimize_coeff:
            return
        p = X.shape[1]
        objective, gradient = self._objective(X, y, np.zeros(p), 0.0, weights)
        objective(np.zeros(p))
        if gradient is not None:
            gradient(np.zeros(p))
        constraints, jacobian = _check_domain(self.domain)
        m = _values(constraints(np.zeros(p))).size
        if jacobian is not None:
            _checks.as_vector(jacobian(np.zeros(p)), m * p,
                              output_message("domain$jacobian",
                                             "the p derivatives of each constraint"))

    def _noise_ratio(self, n, p, eps, lambda_, zeta=1.0):
        """q, the release noise's per-coordinate standard deviation over the objective noise's
        effect on the minimiser at equal eps (for :func:`dppack.erm.approximate.split_budget`;
        data-independent: n is public under replace-one neighbours). With the certified radius
        r (:meth:`_certificate`, at m = (Delta + gamma') / n, gamma' = gamma for 'l2', else 0;
        Delta = 2 lambda / eps) the release's Laplace has standard deviation sqrt(2 p) 2 r / eps
        per coordinate. b moves the minimiser by about ||b|| / (n (h + m)) with h the data's
        curvature, at most lambda; E||b||^2 = p (p + 1) (2 zeta / eps)^2. With h = lambda (the
        smallest effect, so the largest q): q = sqrt(2 p / (p + 1)) r n (lambda + m) / zeta
        (6 K sqrt(2 p / (p + 1)) n^2 (lambda + m) / (Delta + gamma') for the general solver's
        r = 6 K zeta / m, which does not depend on zeta)."""
        gamma = float(self.gamma) if self.regularizer is regularizer_l2 else 0.0
        Delta = 2.0 * lambda_ / eps if np.isfinite(eps) else 0.0
        if not Delta + gamma > 0:
            return 0.0
        m = (Delta + gamma) / n
        radius = self._certificate(n, p, zeta, lambda_, m)[2]
        return np.sqrt(2.0 * p / (p + 1.0)) * radius * n * (lambda_ + m) / zeta

    def _quadratic_ball(self):
        """Whether the fit solves exactly (:meth:`LinearRegressionDP._optimize_coeff`): a
        property of the model's functions, never of the data."""
        return False

    def _certificate(self, n, p, zeta, lambda_, modulus):
        """(rho_c, rho, r): the KKT residual the solver certifies, the residual it bounds for
        the exact objective, and the certified radius ||theta - theta*|| <= r; all
        data-independent (n, p, zeta, lambda, m and the model's functions).

        The general solver (:func:`dppack.erm.solvers.minimize_constrained`): rho_c = rho =
        K zeta (:meth:`_residual_factor`), complementary slackness <= 12 rho^2 / m, and
        r = 6 rho / m (:func:`dppack.erm.approximate.constrained_radius`). LinearRegressionDP's
        exact solve (:meth:`_quadratic_ball`; :func:`dppack.erm.solvers.quadratic_ball_minimize`):
        rho_c = 2^-46 (zeta + sqrt(p) (lambda + m)) in exact arithmetic on the exact X'X and
        X'y of the grid records, rho = rho_c without weights, rho_c + gamma_(n+8) zeta with
        them (:func:`statistics_rounding`: the float sums' rounding), and
        r = 2 rho / m + sqrt(p 2^-50) (:func:`dppack.erm.approximate.ball_radius`), raised
        by 2^-40 of itself against the rounding of m and of this formula.
        """
        if self._quadratic_ball():
            certified = QUADRATIC_RESIDUAL * (zeta + math.sqrt(p) * (lambda_ + modulus))
            # exact X'X and X'y of the grid records without weights (GramStatistics.of_grid)
            rounding = statistics_rounding(n) if getattr(self, "_weighted_fit", False) else 0.0
            residual = certified + rounding * zeta
            radius = ball_radius(residual, p * QUADRATIC_GAP, modulus) * (1.0 + 2.0 ** -40)
            return certified, residual, radius
        residual = self._residual_factor(n) * zeta
        radius = constrained_radius(residual, SLACKNESS_FACTOR * residual * residual / modulus,
                                    modulus)
        return residual, residual, radius

    def _residual_factor(self, n):
        """K: the certified KKT residual is K zeta, K = max(1e-8, 1e-6 / n) with the
        analytic gradient, 1e-6 with central differences (data-independent)."""
        with_gradient = (self.mapXy_gr is not None and self.loss_gr is not None
                         and self.regularizer_gr is not None)
        if not with_gradient:
            return KST_RESIDUAL_DIFFERENCES
        return max(KST_RESIDUAL, KST_RESIDUAL_SMALL_N / n)

    def _optimize_coeff(self, X, y, noise, Delta, weights=None):
        """argmin of the perturbed objective over the domain: LinearRegressionDP's exact solve
        when it applies (:meth:`_quadratic_ball`), else SLSQP from theta = 0."""
        modulus = getattr(self, "_modulus", None)
        if modulus is not None and self._quadratic_ball():
            return self._solve_quadratic(X, y, noise, Delta, weights)
        objective, gradient = self._objective(X, y, noise, Delta, weights)
        constraints, jacobian = _check_domain(self.domain)
        if modulus is None:  # eps = Inf: no release noise, the relative KKT check
            return minimize_constrained(objective, gradient, constraints, jacobian,
                                        np.zeros(X.shape[1]))
        return minimize_constrained(objective, gradient, constraints, jacobian,
                                    np.zeros(X.shape[1]), residual_tol=self.optimality_tolerance_,
                                    modulus=modulus)

    def _objective(self, X, y, noise, Delta, weights=None):
        """The perturbed objective J(theta) and its gradient (None without all three gradient
        functions), as functions of theta (module docstring)."""
        n, p = X.shape
        gamma = float(self.gamma)
        data_value, data_gradient = (self._data_loss(X, y) if weights is None
                                     else self._data_loss(X, y, weights))
        regularizer, regularizer_gr = self.regularizer, self.regularizer_gr

        def objective(theta):
            return (data_value(theta) + gamma / n * float(np.sum(regularizer(theta)))
                    + Delta / (2 * n) * float(theta @ theta) + float(noise @ theta) / n)

        gradient = None
        if data_gradient is not None and regularizer_gr is not None:
            def gradient(theta):
                return (data_gradient(theta) + gamma / n * self._regularizer_gradient(theta)
                        + (Delta / n) * theta + noise / n)

        return objective, gradient

    def _regularizer_gradient(self, theta):
        """``regularizer_gr(theta)`` as p values (``ValueError`` naming it otherwise)."""
        return _checks.as_vector(self.regularizer_gr(theta), theta.size,
                                 output_message("regularizer.gr", "one per coefficient"))

    def _postprocess_coeff(self, coeff):
        """Identity in the base class."""
        return coeff


# --------------------------------------------------------------------------------------------
# Linear regression
# --------------------------------------------------------------------------------------------


def weighted_fit(model, X, y, upper_bounds, lower_bounds, add_bias, weights,
                 weights_upper_bound, random_state, accountant):
    """The fit of a KST ``model`` with weights in [0, ``weights_upper_bound``] (zeta and
    lambda scaled by the bound); called by :func:`dppack.erm.weighting.fit_weighted`, which
    checks the model and the bound first and holds the privacy argument."""
    return model._fit(X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant,
                      weights, weights_upper_bound)


def scale_regression(X, y, scales, shift, scale):
    """LinearRegressionDP's scaled rows: X / s (in place: X is the fit's
    own clipped copy) and (y - shift) / scale. A per-row map (:mod:`dppack.dask.erm` applies
    it per chunk)."""
    X /= scales
    return X, (y - shift) / scale


# LinearRegressionDP's records on a grid (:func:`grid_regression`): x~ on multiples of
# 2^-GRID_BITS, y~ on multiples of 2^(e - GRID_BITS), 2^e >= p; the grid units are then at
# most 2^GRID_BITS in magnitude and X'X, X'y, y'y are exact integers in blocks of
# 2^(53 - 2 GRID_BITS) rows (dppack.erm._grid.exact_gram). 2^-20 of the scaled range moves a
# coefficient by far less than the noise (the rounding errors are bounded by 2^-21 per entry).
GRID_BITS = 20


def regression_grid(p):
    """(k, e) of LinearRegressionDP's grid for p columns (bias included): k = GRID_BITS and
    the smallest e >= 0 with 2^e >= p (y~ in [-p, p] has grid units in
    [-p 2^(k - e), p 2^(k - e)], within [-2^k, 2^k])."""
    return GRID_BITS, (int(p) - 1).bit_length()


def grid_regression(X, y, scales, shift, scale, bits, exponent):
    """LinearRegressionDP's records on the grid, in grid units: u = round(2^k x / s),
    in [-2^k, 2^k] (X in place: the fit's own clipped copy; bias column included),
    and v = round(2^(k - e) (y - shift) / scale), clipped to [-p 2^(k - e), p 2^(k - e)]
    (a new array). A per-record map fixed by the bounds and p (no data: the same on every
    data set and on each Dask chunk), which keeps every record within the box
    |x~_j| <= 1, |y~| <= p that zeta and lambda assume (Kifer, Smith and Thakurta 2012,
    Theorem 2: the fit is that of the rounded data set, whose neighbours are the images of
    neighbours)."""
    top = 2.0 ** bits
    # x / (s 2^-k) = (x / s) 2^k exactly when s 2^-k is a normal float: one pass; |x| <= s
    # (clipped to bounds within [-s, s]) then gives |x| / (s 2^-k) <= 2^k in correctly
    # rounded division (monotone). The clip keeps the box for bounds so small that s 2^-k
    # is subnormal (the division is then inexact); elsewhere it changes nothing.
    X /= scales * (1.0 / top)
    np.rint(X, out=X)
    np.clip(X, -top, top, out=X)
    t = to_grid((y - shift) / scale, 0.0, 2.0 ** (bits - exponent))
    y_top = X.shape[1] * 2.0 ** (bits - exponent)
    np.clip(t, -y_top, y_top, out=t)
    return X, t


class GramStatistics:
    """n, X'X, X'y and y'y of a design: all the squared loss needs.

    ``shape`` is (n, p), so a fit reads it as it reads its design's. Built from an in-memory
    design with :meth:`of`, or from the partitions of a Dask one
    (:func:`dppack.dask.erm.regression_statistics`, the sums added over partitions).
    """

    __slots__ = ("n", "gram", "cross", "yy", "passes", "exact")

    def __init__(self, n, gram, cross, yy, passes=None, exact=None):
        self.n, self.gram, self.cross, self.yy = int(n), gram, cross, float(yy)
        self.passes = passes  # passes over Dask data that computed them (None in memory)
        # (X'X, X'y) as exact rationals (rows of Fractions, Fractions) when the sums are
        # exact (:meth:`of_grid`); None when gram and cross carry rounding
        self.exact = exact

    @classmethod
    def from_integers(cls, n, integers, bits, exponent, passes=None):
        """The statistics of grid records from W'W, W = [u, v] in grid units
        (:func:`grid_regression`; exact Python integers, (p + 1) x (p + 1)): X'X = U'U 4^-k,
        X'y = U'v 2^(e - 2k), y'y = v'v 4^(e - k), exactly in ``exact`` and correctly
        rounded in the float fields."""
        integers = np.asarray(integers, dtype=object)
        p = integers.shape[0] - 1
        two_k = 2 * int(bits)
        gram = np.array([[math.ldexp(float(integers[i, j]), -two_k) for j in range(p)]
                         for i in range(p)]).reshape(p, p)
        cross = np.array([math.ldexp(float(integers[i, p]), exponent - two_k)
                          for i in range(p)])
        yy = math.ldexp(float(integers[p, p]), 2 * exponent - two_k)
        denominator = 2 ** two_k
        exact = ([[Fraction(int(integers[i, j]), denominator) for j in range(p)]
                  for i in range(p)],
                 [Fraction(int(integers[i, p]) * 2 ** exponent, denominator)
                  for i in range(p)])
        return cls(n, gram, cross, yy, passes=passes, exact=exact)

    @classmethod
    def of_grid(cls, X, y, bits, exponent):
        """The exact statistics of LinearRegressionDP's grid records, X = u 2^-k and
        y = v 2^(e - k) (:func:`grid_regression`), summed as integers in blocks
        (:func:`dppack.erm._grid.exact_gram`): no rounding in any number of rows."""
        return cls.from_integers(y.size, exact_gram(X, y, bits, exponent), bits, exponent)

    @classmethod
    def of(cls, X, y, weights=None):
        """The statistics of an n x p design X and n values y; with ``weights`` w, the
        weighted X'WX, X'Wy and y'Wy (n stays the number of rows)."""
        if weights is None:
            return cls(y.size, X.T @ X, X.T @ y, y @ y)
        wy = weights * y
        return cls(y.size, weighted_gram(X, weights), X.T @ wy, wy @ y)

    @property
    def shape(self):
        """(n, p)."""
        return self.n, self.gram.shape[0]


def _ball_constraints(coeff):
    """||coeff||^2 - p <= 0: LinearRegressionDP's domain."""
    return np.array([coeff @ coeff - coeff.size])


def _ball_jacobian(coeff):
    return 2 * coeff


class LinearRegressionDP(EmpiricalRiskMinimizationDP_KST):
    """Privacy-preserving linear regression: KST with the linear map, the squared
    error loss and the domain ||theta||^2 <= p of the scaled problem.

    Parameters
    ----------
    regularizer : 'l2' or callable
        See :class:`EmpiricalRiskMinimizationDP_KST`; any other string raises
        "regularizer must be one of {'l2'}, or a function.".
    eps : float
        Privacy budget, > 0 (``inf``: no noise).
    delta : float
        0, or in (0, 1) for Gaussian noise.
    gamma : float
        Regularisation constant, > 0.
    regularizer_gr : callable, optional
        Gradient of a callable regularizer.

    Notes
    -----
    At fit time p = ncol(X) (bias included), zeta = 2 p^(3/2) and lambda = p. Each column of X
    is divided by s_j = max(abs(L_j), abs(U_j)); y is mapped to [-p, p] by ỹ = (y - shift)/scale
    with shift = (L_y + U_y)/2, scale = (U_y - L_y)/(2p) when ``add_bias`` and shift = 0,
    scale = max(abs(L_y), abs(U_y))/p otherwise. The coefficients are mapped back:
    theta_j = theta~_j scale / s_j, then the bias (first) coefficient gets + shift.

    The noise is that of the framework, calibrated for replace-one neighbours (one (x, y)
    replaced): DPpack's smaller noise is private for an added or removed record, but under
    replacement its privacy loss can exceed eps here too (by about 10% for small eps and
    p = 2, found by numerical search over the worst cases of the scaled problem), so
    LinearRegressionDP keeps the framework's proven calibration.

    A private fit rounds the scaled records onto a grid (x~ to multiples of 2^-20, y~ to
    multiples of 2^(e - 20) with 2^e >= p; a per-record map fixed by the bounds) and sums
    X'X and X'y exactly, so the certified radius of the exact solve does not grow with n
    (``dppack.erm.kst``, "Approximate minimiser and exact release"). eps = Inf fits the
    scaled records as they are.

    Dask data (a Dask array or DataFrame X, a Dask array or Series y) are fitted from n,
    X'X, X'y and y'y of the clipped, scaled grid records, summed exactly over the
    partitions in one pass (``n_passes_`` = 1; ``dppack.dask.erm``); the noise and the
    solve run on the driver as in memory, so the same ``random_state`` gives the same
    coefficients bit for bit (eps = Inf: float sums, the same up to the solver's tolerance).
    ``predict`` on Dask X returns a lazy Dask array.

    Attributes
    ----------
    coeff, noise_, Delta_, privacy_, n_passes_
        As :class:`EmpiricalRiskMinimizationDP_KST`, and its fields; ``zeta`` and ``lambda_``
        are set by each fit.

    Raises
    ------
    ValueError
        As :class:`EmpiricalRiskMinimizationDP_KST`; gamma must be > 0.

    References
    ----------
    Kifer, Smith and Thakurta (2012), COLT; Giddens and Liu (2023), DPpack reference manual,
    ``LinearRegressionDP``.

    Examples
    --------
    Body-mass index on plasma glucose; the bounds list the columns of X, then y:

    >>> from dppack import LinearRegressionDP
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> model = LinearRegressionDP("l2", eps=1.0, delta=0.0, gamma=1.0)
    >>> model = model.fit(pima[["glu"]], pima["bmi"], upper_bounds=[200, 70],
    ...                   lower_bounds=[50, 15], add_bias=True, random_state=1)
    >>> model.coeff.shape, model.privacy_  # intercept, slope
    ((2,), PrivacyLoss.pure(eps=1.0))
    >>> model.predict(pima[["glu"]].iloc[:3], add_bias=True).shape
    (3,)
    """

    _strict_gamma = True

    _REPR_PARAMS = ("regularizer", "eps", "delta", "gamma")

    def __init__(self, regularizer, eps, delta, gamma, regularizer_gr=None):
        super().__init__(mapXy_linear, loss_squared_error, regularizer, eps, delta,
                         {"constraints": _ball_constraints, "jacobian": _ball_jacobian},
                         None, None, gamma, mapXy_gr=mapXy_gr_linear,
                         loss_gr=loss_gr_squared_error, regularizer_gr=regularizer_gr)

    def _preprocess_data(self, X, y, upper_bounds, lower_bounds, add_bias):
        # In memory the scaled rows (on the grid for a private fit with the built-in map and
        # loss: grid_regression, handed on in the scaled units, exact); on Dask X'X, X'y, y'y
        # and n of those rows from one pass (the solver needs nothing else).
        backend = _backends.backend_for(X, y)
        if not self._closed_form():
            backend.refuse(f"{type(self).__name__}.fit with its own loss or map functions")
        self._on_grid = self._grid_records()
        return backend.regression_design(
            X, y, upper_bounds, lower_bounds, add_bias,
            lambda bounds, target: self._set_scaling(bounds, target, add_bias),
            on_grid=self._on_grid)

    def _set_scaling(self, bounds, target_bounds, add_bias):
        """zeta, lambda and the scaling of DPpack 0.2.2 from the bounds of X (bias included)
        and of y: no data needed. Returns (scales, shift, scale) of :func:`scale_regression`."""
        p = bounds.size
        self._bounds, self._target_bounds = bounds, target_bounds
        self.zeta = 2 * p ** 1.5
        self.lambda_ = float(p)
        self._grid = regression_grid(p)
        # s_j: every entry in [-1, 1] (DPpack's LinearRegressionDP scaling)
        self._scales = bounds.divisors("max")
        if add_bias:
            self._shift = (target_bounds.lower[0] + target_bounds.upper[0]) / 2
            self._scale = (target_bounds.upper[0] - target_bounds.lower[0]) / (2 * p)
        else:
            self._shift = 0.0
            self._scale = target_bounds.scale[0] / p
        self._add_bias = add_bias
        return self._scales, self._shift, self._scale

    def _grid_records(self):
        """Whether the records go onto the grid (:func:`grid_regression`): a private fit
        (finite eps) with the built-in map and loss, whose X'X and X'y are then exact (a
        non-private fit keeps its records as they are)."""
        return self._closed_form() and bool(np.isfinite(float(self.eps)))

    def _closed_form(self):
        """Whether the built-in linear map and squared error are in place (the closed form
        of :meth:`_data_loss` applies)."""
        return self.mapXy is mapXy_linear and self.loss is loss_squared_error

    def _check_outputs(self, X, y, weights=None):
        """With the built-in map, loss and domain (the closed form of :meth:`_data_loss`),
        only a user's ``regularizer_gr`` is evaluated (at theta = 0), so X'X is not computed
        twice; with the user's own map or loss, the framework's check."""
        if not self._closed_form():
            super()._check_outputs(X, y, weights)
        elif self.regularizer_gr is not None:
            self._regularizer_gradient(np.zeros(X.shape[1]))

    def _quadratic_ball(self):
        """The exact solve applies: the built-in map, squared error and their gradients, the
        'l2' regularizer, the built-in ball and the framework's ``_optimize_coeff`` (the
        model's configuration, fixed before the data are read)."""
        return (self._closed_form() and self.mapXy_gr is mapXy_gr_linear
                and self.loss_gr is loss_gr_squared_error
                and self.regularizer is regularizer_l2
                and _domain_part(self.domain, "constraints") is _ball_constraints
                and type(self)._optimize_coeff is EmpiricalRiskMinimizationDP_KST._optimize_coeff)

    def _solve_quadratic(self, X, y, noise, Delta, weights=None):
        """The exact minimiser of n J(theta) = theta'(X'X + (gamma + Delta) I) theta / 2
        - (X'y - b)'theta + const over ||theta||^2 <= p
        (:func:`dppack.erm.solvers.quadratic_ball_minimize`), certified in rational arithmetic
        to n rho_c (:meth:`_certificate`); ``ConvergenceError`` when not certified."""
        stats = self._statistics(X, y, weights)
        n, p = stats.shape
        shift = Fraction(float(self.gamma)) + Fraction(float(Delta))
        return quadratic_ball_minimize(stats.gram, stats.cross, shift, float(p),
                                       Fraction(self._certified_residual) * n,
                                       p * QUADRATIC_GAP, noise=noise, exact=stats.exact)

    def _statistics(self, X, y, weights=None):
        """n, X'X, X'y, y'y of the design: as given (Dask data, from one pass), exact from
        the grid records without weights (:meth:`GramStatistics.of_grid`), else summed in
        floats (weighted: X'WX, X'Wy)."""
        if isinstance(X, GramStatistics):
            return X
        if weights is None and getattr(self, "_on_grid", False):
            return GramStatistics.of_grid(X, y, *self._grid)
        return GramStatistics.of(X, y, weights)

    def _data_loss(self, X, y, weights=None):
        """Closed form for the built-in linear map and squared error: with G = X^T W X and
        c = X^T W y (W = diag(weights), the identity without them), the mean loss is
        (theta^T G theta - 2 c^T theta + y^T W y)/(2n) and its gradient (G theta - c)/n, so
        the solver never touches X."""
        if not self._closed_form():
            return super()._data_loss(X, y, weights)
        # X is the design, or already its statistics (Dask data, from one pass)
        stats = self._statistics(X, y, weights)
        n, gram, cross, yy = stats.n, stats.gram, stats.cross, stats.yy

        def value(theta):
            return (float(theta @ (gram @ theta)) - 2 * float(cross @ theta) + yy) / (2 * n)

        if self.mapXy_gr is not mapXy_gr_linear or self.loss_gr is not loss_gr_squared_error:
            return value, None

        def gradient(theta):
            return (gram @ theta - cross) / n

        return value, gradient

    def _postprocess_coeff(self, coeff):
        coeff = coeff * self._scale / self._scales
        if self._add_bias:
            coeff[0] += self._shift
        return coeff
