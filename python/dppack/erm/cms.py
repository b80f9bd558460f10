"""Private empirical risk minimisation by output or objective perturbation (Chaudhuri, Monteleoni
and Sarwate 2011): DPpack 0.2.2's ``EmpiricalRiskMinimizationDP.CMS`` and ``WeightedERMDP.CMS``.

``fit`` runs three overridable steps, as DPpack's private methods do:

* ``_preprocess_data(X, y, upper_bounds, lower_bounds, add_bias, weights=None,
  weights_upper_bound=None, rng=None)`` returns a dict with at least ``"X"`` (n x d) and
  ``"y"`` (the weighted class adds ``"weights"`` and ``"weights_upper_bound"``);
* ``_optimize_coeff(X, y, Delta, b, weights=None)`` returns the minimiser of
  J(theta) = (1/n) sum_i loss(mapXy(X, theta)_i, y_i) + (gamma/n) R(theta)
  + (1/n) b' theta + (Delta/2) ||theta||^2;
* ``_postprocess_coeff(coeff, preprocess)`` maps the minimiser back (identity here).

Derivations (randomness, the exact release, accounting, the privacy assumptions, the
solver's certificate): :ref:`guide-erm-cms`.

References: Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12; Iyengar, Near, Song, Thakkar,
Thakurta and Wang (2019), IEEE S&P; Canonne, Kamath and Steinke (2020), the discrete Laplace.
"""

# The frameworks live in a private module (erm/_cms.py, with their fit's plan and the fits that
# tuning and weighting share); the classes are public here.
from ._cms import EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS
# ConvergenceError is re-exported: it is public here, where fits raise it.
from ._solvers import (  # noqa: F401
    OPTIMALITY_SLACK,
    ConvergenceError,
    minimize_smooth,
    optimality_tolerance,
)
# The frameworks' shared parts, importable from here as before the split.
from ._perturbation import (  # noqa: F401
    C_MESSAGE,
    INFINITE_EPS_MESSAGE,
    METHODS,
    METHOD_MESSAGE,
    MODEL_OUTPUT_MESSAGE,
    OBJECTIVE_BRANCHES,
    OUTPUT_GRADIENT_MESSAGE,
    REGULARIZER_OUTPUT_MESSAGE,
    WEIGHTED_OBJECTIVE_MESSAGE,
    StandardNoise,
    fit_loss,
    map_jacobian,
    objective_perturbation_parameters,
    output_message,
    output_perturbation_rate,
    output_perturbation_sensitivity,
    penalised_objective,
    perturbation_noise,
)

__all__ = ["EmpiricalRiskMinimizationDP_CMS", "WeightedERMDP_CMS"]

for _cls in (EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS):
    _cls.__module__ = __name__
