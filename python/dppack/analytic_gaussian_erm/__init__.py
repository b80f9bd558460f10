"""Private ERM with the analytic Gaussian mechanism (Ding et al.): output perturbation of gradient
descent (OPERA) and a sound gradient perturbation of SGD (GRPUA), with their sensitivities and
budget splits."""

from . import models
from .models import *  # noqa: F403

__all__ = [*models.__all__]
