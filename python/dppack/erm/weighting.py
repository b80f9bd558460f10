"""Weighted private ERM: sample weights for every ERM model, with the privacy argument.

``fit_weighted`` is the one entry point for a weighted fit of dppack's ERM models
(``LogisticRegressionDP``, ``svmDP`` with either perturbation method and either kernel,
``WeightedERMDP_CMS``, ``LinearRegressionDP`` and the KST framework); the scikit-learn
estimators (``dppack.sklearn``) call it. DPpack's own ``fit`` methods keep DPpack's
behaviour (weights only for svmDP and ``WeightedERMDP_CMS`` with output perturbation). The
weighted losses live where the unweighted ones do (``dppack.erm.losses``, the fused risks
take ``weights``); the calibrations below are the frameworks' own formulas
(``dppack.erm.cms``, ``dppack.erm.kst``) with a weight bound W.

The setting. A record is (x_i, y_i, w_i) with a weight w_i in [0, W]; W
(``weights_upper_bound``) is public, chosen without looking at the data. Neighbouring data
sets have the same number of rows n (public) and differ in one record, its weight included
(bounded, replace-one neighbours, as every model here). The weighted objective is

    J(theta) = (1/n) sum_i w_i l(x_i'theta, y_i) + (gamma/n) R(theta) + perturbation terms,

normalised by the row count n, never by sum(w) (which depends on the data: the weight of the
penalty would then change between neighbours). Weights above W are clipped to W, as features
are clipped to their bounds: a clipped record is a valid record of the domain, so nothing
about the data decides whether the fit runs. Negative, NaN or infinite weights, and a weight
vector of the wrong shape, are malformed input and refused before any noise is drawn.

Write l for the per-record loss as a function of the score z = x'theta, with abs(l') <= 1
(and abs(l'') <= c for objective perturbation), and B for the bound on the norm of a clipped
(and, for the DPpack models, scaled) row. The weighted loss w l(x'theta, y) of one record then
has gradient norm abs(w l') ||x|| <= W B and Hessian w l'' x x', rank one with eigenvalue at
most W c B^2. Every argument below is the unweighted proof with these two constants.

Output perturbation (Chaudhuri, Monteleoni and Sarwate 2011, Corollary 8 and Theorem 6).
The objective without noise is (gamma/n)-strongly convex (DPpack's gamma = n Lambda).
Replacing one record adds to it g(theta) = (1/n)(w' l(x''theta, y') - w l(x'theta, y)),
whose gradient has norm at most 2 W B / n; by Corollary 8's argument the two minimisers
differ by at most (2 W B / n) / (gamma / n) = 2 W B / gamma. The noise, density proportional
to exp(-rate ||b||), has rate gamma eps / (2 W B) (times 1 / (1 + tau) for the solver's
certified tolerance, ``dppack.erm.cms.output_perturbation_rate``); DPpack's
svmDP rate gamma eps / (2 w_bar) is the case B = 1.

Objective perturbation (Chaudhuri, Monteleoni and Sarwate 2011, Theorem 9 and Algorithm 2).
The proof maps the released minimiser theta back to the noise b through the first-order
condition and bounds two ratios between neighbours at the same theta:

* the noise: b = -n grad(data + penalty)(theta) - n Delta theta, so the two b's differ by the
  difference of one record's weighted gradients, of norm at most 2 W B (2 in the paper);
  noise of rate eps' / (2 W B) keeps this ratio below e^eps';
* the Jacobian: the Hessians differ by a rank-two matrix whose two eigenvalues are at most
  W c B^2 (c in the paper), so the determinant ratio is at most (1 + W c B^2 / gamma)^2.

So c_W = W c B^2 takes the place of c in every formula: eps' = eps - log(1 + 2 c_W / gamma +
c_W^2 / gamma^2) and, when that is below eps/2, Delta = c_W / (n (e^(eps/4) - 1)) - gamma / n
with eps' = eps/2 (``dppack.erm.cms.objective_perturbation_parameters``, the one home of
the rule; DPpack switches only when eps' <= 0). The result is eps-DP, as without
weights. The same holds for the Gaussian kernel's random features (rows of norm <= 1 by
construction).

Kifer, Smith and Thakurta (2012), Theorem 2 (the KST framework and ``LinearRegressionDP``).
The framework's constants are a bound zeta on the norm of a record's loss gradient and a
bound lambda on the eigenvalue of its Hessian; the weighted loss w_i l_i has W zeta and
W lambda. The framework's calibration (``dppack.erm.kst``, replace-one neighbours) is
applied to them: Delta = 2 W lambda / eps, so the Jacobian ratio 1 + W lambda / Delta =
1 + eps/2 is unchanged, and the noise is calibrated to the gradient shift 2 W zeta. For
``LinearRegressionDP`` (rows scaled to ||x|| <= sqrt(p), abs(y) <= p: zeta = 2 p^(3/2),
lambda = p) the weighted squared error enters through the weighted statistics X'WX, X'Wy
and y'Wy, each row's contribution bounded as before times W.

Weights as counts. In DPpack's convention n J(theta) = sum_i w_i l_i + gamma R(theta) +
b'theta + (n Delta / 2) ||theta||^2, and neither the law of b nor n Delta depends on n (the
rates above; n Delta = c_W / (e^(eps/4) - 1) - gamma; KST's Delta / (2n) term is
Delta / 2 after the product). So, for the same W and the same noise draw, a record of integer
weight k gives the same minimiser as k copies of it with weight 1. (The privacy unit differs:
k copies are k records, one weighted record is one.)

All-zero weights are a degenerate but valid input: the data term vanishes and the fit
releases the minimiser of the penalty and the noise (for output perturbation, 0 plus noise).
They are not refused, since whether every weight is 0 is a property of the data, and an error
there would be an outcome that depends on it.

Not covered: ``EmpiricalRiskMinimizationDP_CMS`` itself, whose user loss takes no weight
argument (use ``WeightedERMDP_CMS``, whose loss is ``loss(y_hat, y, w)`` = w l); such a model
is refused.
"""

import numpy as np

from .. import _backends, _checks, _messages
from . import cms as _cms
from . import kst as _kst
from .cms import EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS
from .design import WEIGHTS_BOUND_MESSAGE
from .kst import EmpiricalRiskMinimizationDP_KST
from .models import LogisticRegressionDP

__all__ = ["fit_weighted"]

MODEL_MESSAGE = (
    "fit_weighted needs LogisticRegressionDP, svmDP, WeightedERMDP_CMS (a loss with a weight "
    "argument), LinearRegressionDP or EmpiricalRiskMinimizationDP_KST; {cls} has a loss "
    "without weights."
)
DASK_ONES_MESSAGE = (
    "With Dask data and weights_upper_bound, give the weights explicitly (an array of ones "
    "for unweighted rows)."
)


def fit_weighted(model, X, y, upper_bounds=None, lower_bounds=None, add_bias=False,
                 weights=None, weights_upper_bound=None, random_state=None, accountant=None):
    """Fit an ERM model privately with sample weights in [0, W]; returns ``model``.

    The objective is (1/n) sum_i w_i loss_i + (gamma/n) R + the perturbation terms, with n the
    number of rows, and the noise is calibrated to the public bound W (module docstring:
    the derivation for each perturbation method).

    Parameters
    ----------
    model : LogisticRegressionDP, svmDP, WeightedERMDP_CMS, LinearRegressionDP or
        EmpiricalRiskMinimizationDP_KST
        Fitted in place, as by its ``fit``, both perturbation methods.
    X, y, upper_bounds, lower_bounds, add_bias :
        As the model's ``fit`` (for the KST models the bounds list X's columns, then y's).
    weights : array_like, optional
        n weights >= 0 and finite; those above ``weights_upper_bound`` are clipped to it.
        None: every weight 1 (still calibrated to ``weights_upper_bound`` when that is given,
        so that the noise depends on the parameters only), clipped to the bound W like any
        weight: min(1, W), so with W < 1 the data term is scaled by W (the weights of an
        unweighted record never exceed the bound the noise is calibrated to).
    weights_upper_bound : float, optional
        The public bound W > 0, required with ``weights``. Without both, the plain fit
        (W = 1).
    random_state : None, int or NumPy Generator
    accountant : dppack.BudgetAccountant, optional
        Charged as the model's ``fit`` charges (the same guarantee and label,
        ``"<class name>.fit"``).

    Returns
    -------
    model

    Raises
    ------
    TypeError
        A model whose loss takes no weights (``EmpiricalRiskMinimizationDP_CMS`` itself).
    ValueError
        Before the data are read: weights without ``weights_upper_bound``, a bound that is not
        finite and > 0; before any noise is drawn: negative, NaN or infinite weights, or not
        one per row; and the model's own errors.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), Differentially private empirical risk
    minimization, JMLR 12 (Corollary 8, Theorems 6 and 9); Kifer, Smith and Thakurta (2012),
    Private convex empirical risk minimization and high-dimensional regression, COLT
    (Theorem 2); Giddens, Zhou, Krull, Brinkman, Song and Liu (2023), A differentially private
    weighted empirical risk minimization procedure (weights clipped at a public bound).

    Examples
    --------
    A logistic regression by objective perturbation, weights at most 3: integer weights
    give the fit of repeated rows (same seed, so the same noise):

    >>> import numpy as np, dppack
    >>> from dppack.erm.weighting import fit_weighted
    >>> t = np.arange(300)  # fixed example data in [-1, 1]^2
    >>> X = np.column_stack([np.sin(t), np.cos(1.7 * t)])
    >>> y = (X[:, 0] + X[:, 1] > 0).astype(float)
    >>> w = 1 + t % 3
    >>> weighted = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X, y,
    ...                         [1, 1], [-1, -1], weights=w, weights_upper_bound=3,
    ...                         random_state=1)
    >>> rows = np.repeat(t, w)
    >>> repeated = fit_weighted(dppack.LogisticRegressionDP("l2", 1.0, 1.0), X[rows],
    ...                         y[rows], [1, 1], [-1, -1], weights_upper_bound=3,
    ...                         random_state=1)
    >>> bool(np.allclose(weighted.coeff, repeated.coeff, atol=1e-6))
    True
    """
    cms = isinstance(model, EmpiricalRiskMinimizationDP_CMS)
    if cms and not isinstance(model, (LogisticRegressionDP, WeightedERMDP_CMS)):
        raise _messages.type_error(MODEL_MESSAGE, cls=type(model).__name__)
    if not cms and not isinstance(model, EmpiricalRiskMinimizationDP_KST):
        raise _messages.type_error(MODEL_MESSAGE, cls=type(model).__name__)
    if weights is not None and weights_upper_bound is None:  # before the data are read
        raise _messages.value_error(WEIGHTS_BOUND_MESSAGE)
    if weights_upper_bound is not None:
        weights_upper_bound = _checks.check_finite_positive_scalar(weights_upper_bound,
                                                                   "weights.upper.bound")
        if weights is None:  # on Dask: DASK_ONES_MESSAGE
            weights = _backends.backend_for(X, y).unit_weights(X, y)
    framework = _cms if cms else _kst
    return framework.weighted_fit(model, X, y, upper_bounds, lower_bounds, add_bias, weights,
                                  weights_upper_bound, random_state, accountant)

