"""Private ERM with the analytic Gaussian mechanism (Ding et al.; spec
``analytic_gaussian_erm.md``): output perturbation of gradient descent (OPERA) and a sound
gradient perturbation of SGD (GRPUA), with their sensitivities and budget splits."""

from .models import (
    GradientPerturbationAGM,
    OutputPerturbationAGM,
    amplify_by_sampling,
    grpua_paper_total,
    grpua_per_step_budget,
    loss_constants,
    opera_sensitivity,
    strong_composition,
)

__all__ = [
    "GradientPerturbationAGM",
    "OutputPerturbationAGM",
    "amplify_by_sampling",
    "grpua_paper_total",
    "grpua_per_step_budget",
    "loss_constants",
    "opera_sensitivity",
    "strong_composition",
]
