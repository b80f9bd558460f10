"""Private empirical risk minimisation: DPpack 0.2.2's building blocks, the CMS frameworks
(output and objective perturbation), the KST framework (objective perturbation with a
constrained domain) and their models (spec ``dppack_api.md`` §5, §6)."""

from .blocks import (
    generate_loss_gr_huber,
    generate_loss_huber,
    generate_sampling,
    loss_cross_entropy,
    loss_gr_cross_entropy,
    loss_gr_squared_error,
    loss_squared_error,
    mapXy_gr_linear,
    mapXy_gr_sigmoid,
    mapXy_linear,
    mapXy_sigmoid,
    phi_gaussian,
    regularizer_gr_l2,
    regularizer_l2,
)
from .cms import EmpiricalRiskMinimizationDP_CMS, WeightedERMDP_CMS
from .kst import EmpiricalRiskMinimizationDP_KST, LinearRegressionDP
from .models import LogisticRegressionDP, svmDP

__all__ = [
    "EmpiricalRiskMinimizationDP_CMS",
    "EmpiricalRiskMinimizationDP_KST",
    "LinearRegressionDP",
    "LogisticRegressionDP",
    "WeightedERMDP_CMS",
    "generate_loss_gr_huber",
    "generate_loss_huber",
    "generate_sampling",
    "loss_cross_entropy",
    "loss_gr_cross_entropy",
    "loss_gr_squared_error",
    "loss_squared_error",
    "mapXy_gr_linear",
    "mapXy_gr_sigmoid",
    "mapXy_linear",
    "mapXy_sigmoid",
    "phi_gaussian",
    "regularizer_gr_l2",
    "regularizer_l2",
    "svmDP",
]
