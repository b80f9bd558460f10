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

# The framework and LinearRegressionDP live in private modules; every name is importable from
# here, as before the split (weighting, dask/erm, the tests).
from ._kst_framework import (  # noqa: F401
    KST_RESIDUAL,
    KST_RESIDUAL_DIFFERENCES,
    KST_RESIDUAL_SMALL_N,
    NOT_STRONGLY_CONVEX_MESSAGE,
    QUADRATIC_GAP,
    QUADRATIC_RESIDUAL,
    UNIT_ROUNDOFF,
    EmpiricalRiskMinimizationDP_KST,
    statistics_rounding,
    weighted_fit,
)
from ._kst_regression import (  # noqa: F401
    GRID_BITS,
    GramStatistics,
    LinearRegressionDP,
    grid_regression,
    regression_grid,
    scale_regression,
)

__all__ = ["EmpiricalRiskMinimizationDP_KST", "LinearRegressionDP"]

for _cls in (EmpiricalRiskMinimizationDP_KST, LinearRegressionDP):
    _cls.__module__ = __name__
