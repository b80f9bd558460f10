"""dppack: differential privacy for statisticians.

The numeric core of DPpackPy: DPpack 0.2.2's mechanisms, statistics and models, with the same
names and arguments (dots become underscores) and a trailing ``random_state`` on every function
that draws noise. ``None`` draws fresh operating-system entropy; an int or a
NumPy ``Generator`` makes a call reproducible.
"""

from .accounting import BudgetAccountant, PrivacyLoss
from .accuracy_first import (
    AccuracyFirstResult,
    GaussianNoiseReduction,
    InteractiveAboveThreshold,
    LaplaceNoiseReduction,
    LaplaceNoiseReductionOnline,
    above_threshold_calibration,
    accuracy_first_erm,
    accuracy_first_parameters,
    doubling_erm,
    privacy_level_grid,
    theory_erm,
)
from .analytic_gaussian_erm import GradientPerturbationAGM, OutputPerturbationAGM
from .confidence_intervals import confintDP, confintERM
from .data_access import (
    covDataAccess,
    histogramDataAccess,
    meanDataAccess,
    pooledCovDataAccess,
    pooledVarDataAccess,
    quantileDataAccess,
    tableDataAccess,
    varDataAccess,
)
from .erm import (
    EmpiricalRiskMinimizationDP_CMS,
    EmpiricalRiskMinimizationDP_KST,
    LinearRegressionDP,
    LogisticRegressionDP,
    WeightedERMDP_CMS,
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
    svmDP,
)
from .mechanisms import (
    ExponentialMechanism,
    GaussianMechanism,
    LaplaceMechanism,
    calibrateAnalyticGaussianMechanism,
)
from .stats import (
    covDP,
    histogramDP,
    meanDP,
    medianDP,
    pooledCovDP,
    pooledVarDP,
    quantileDP,
    sdDP,
    tableDP,
    varDP,
)
from .tuning import tune_classification_model, tune_linear_regression_model
from .model_selection import (
    StableTrainer,
    advanced_composition_eps,
    selection_privacy,
    stability_constants_histogram,
    stability_constants_linear,
    stable_select,
    tune_classification_model_stable,
    tune_histogram_bin_width_stable,
    tune_stable,
    validate_stable,
)

__version__ = "0.1.0"

__all__ = [
    "EmpiricalRiskMinimizationDP_CMS",
    "EmpiricalRiskMinimizationDP_KST",
    "ExponentialMechanism",
    "GaussianMechanism",
    "LaplaceMechanism",
    "LinearRegressionDP",
    "LogisticRegressionDP",
    "WeightedERMDP_CMS",
    "calibrateAnalyticGaussianMechanism",
    "covDP",
    "covDataAccess",
    "generate_loss_gr_huber",
    "generate_loss_huber",
    "generate_sampling",
    "histogramDP",
    "histogramDataAccess",
    "loss_cross_entropy",
    "loss_gr_cross_entropy",
    "loss_gr_squared_error",
    "loss_squared_error",
    "mapXy_gr_linear",
    "mapXy_gr_sigmoid",
    "mapXy_linear",
    "mapXy_sigmoid",
    "meanDP",
    "meanDataAccess",
    "medianDP",
    "phi_gaussian",
    "pooledCovDP",
    "pooledCovDataAccess",
    "pooledVarDP",
    "pooledVarDataAccess",
    "quantileDP",
    "quantileDataAccess",
    "regularizer_gr_l2",
    "regularizer_l2",
    "sdDP",
    "svmDP",
    "tableDP",
    "tableDataAccess",
    "tune_classification_model",
    "tune_linear_regression_model",
    "varDP",
    "varDataAccess",
    # beyond DPpack: privacy accounting
    "BudgetAccountant",
    "PrivacyLoss",
    # beyond DPpack: confidence intervals for ERM (spec confidence_intervals.md)
    "confintDP",
    "confintERM",
    # beyond DPpack: stability-based validation (spec stability_validation.md)
    "StableTrainer",
    "advanced_composition_eps",
    "selection_privacy",
    "stability_constants_histogram",
    "stability_constants_linear",
    "stable_select",
    "tune_classification_model_stable",
    "tune_histogram_bin_width_stable",
    "tune_stable",
    "validate_stable",
    # beyond DPpack: accuracy first (spec accuracy_first.md)
    "AccuracyFirstResult",
    "GaussianNoiseReduction",
    "InteractiveAboveThreshold",
    "LaplaceNoiseReduction",
    "LaplaceNoiseReductionOnline",
    "above_threshold_calibration",
    "accuracy_first_erm",
    "accuracy_first_parameters",
    "doubling_erm",
    "privacy_level_grid",
    "theory_erm",
    # beyond DPpack: ERM with the analytic Gaussian mechanism (spec analytic_gaussian_erm.md)
    "GradientPerturbationAGM",
    "OutputPerturbationAGM",
]
