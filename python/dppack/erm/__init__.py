"""Private empirical risk minimisation: DPpack 0.2.2's building blocks, the CMS frameworks
(output and objective perturbation), the KST framework (objective perturbation with a
constrained domain) and their models."""

from . import blocks
from .adassp import LinearRegressionAdaSSP
from .blocks import *  # noqa: F403
from .cms import EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS
from .kst import EmpiricalRiskMinimizationDP_KST, LinearRegressionDP
from .models import LogisticRegressionDP, svmDP

# DPpack 0.2.2's names; the blocks that DPpack does not have (the sigmoid, the Huber loss's
# second derivative) are public in erm.blocks but not re-exported.
_NOT_DPPACK = {"generate_loss_hess_huber", "sigmoid"}
__all__ = sorted([
    *(name for name in blocks.__all__ if name not in _NOT_DPPACK),
    "EmpiricalRiskMinimizationDP_CMS",
    "EmpiricalRiskMinimizationDP_KST",
    "LinearRegressionDP",
    "LogisticRegressionDP",
    "WeightedERMDP_CMS",
    "svmDP",
])
