"""The solvers of private ERM: named algorithms, each ending with the certificate its privacy
proof needs (a point that fails it is never released: :class:`ConvergenceError`).

:func:`minimize_smooth` (CMS), :func:`margin_newton` (confidence intervals),
:func:`minimize_constrained` (KST), :func:`trust_region_solve` and :func:`project_onto_ball`
(accuracy-first), :func:`quadratic_ball_minimize` (KST's exact quadratic solve). They take
callables and draw no random numbers. Tolerances and why: :ref:`guide-erm-solvers`.
"""

# Names outside __all__ are imported from here, as before the split (kst, the tests).
from ._common import (  # noqa: F401
    GRADIENT_STEP,
    HESSIAN_STEP,
    ConvergenceError,
    NOT_CONVERGED_MESSAGE,
    OPTIMALITY_SLACK,
    central_differences,
    central_gradient,
    difference_hessian,
    optimality_tolerance,
)
from ._smooth import (
    EXACT_GRADIENT_TOLERANCE,
    LBFGS_OPTIONS,
    MAX_NEWTON_STEPS,
    damped_newton,
    lbfgsb_blas_threads,
    margin_newton,
    minimize_smooth,
    newton_polish,
    remember_last,
)
from ._constrained import (  # noqa: F401
    SLACKNESS_FACTOR,
    kkt_certificate,
    kkt_residual,
    minimize_constrained,
    project_onto_ball,
    pull_inside,
    push_to_boundary,
    quadratic_ball_certificate,
    quadratic_ball_minimize,
    trust_region_solve,
)

__all__ = [
    "ConvergenceError",
    "EXACT_GRADIENT_TOLERANCE",
    "LBFGS_OPTIONS",
    "MAX_NEWTON_STEPS",
    "NOT_CONVERGED_MESSAGE",
    "OPTIMALITY_SLACK",
    "central_differences",
    "central_gradient",
    "damped_newton",
    "difference_hessian",
    "kkt_residual",
    "lbfgsb_blas_threads",
    "margin_newton",
    "minimize_constrained",
    "minimize_smooth",
    "newton_polish",
    "optimality_tolerance",
    "project_onto_ball",
    "quadratic_ball_certificate",
    "quadratic_ball_minimize",
    "remember_last",
    "trust_region_solve",
]
