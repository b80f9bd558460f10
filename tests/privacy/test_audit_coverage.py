"""Every public release function of dppack has an audit case.

A release is anything that draws noise and returns something computed from the data. The
names below that are not releases are listed with the reason; a new public name must be
added to an audit file's AUDITED list (or to this list, with its reason) or this test fails.
"""

import dppack
import test_audit_adassp
import test_audit_beyond
import test_audit_mechanisms
import test_audit_models
import test_audit_quantiles
import test_audit_stats

NOT_RELEASES = {
    # data access: the true values and sensitivities, no noise (internal, as in DPpack)
    "covDataAccess", "histogramDataAccess", "meanDataAccess", "pooledCovDataAccess",
    "pooledVarDataAccess", "quantileDataAccess", "tableDataAccess", "varDataAccess",
    # the ERM building blocks: deterministic functions of their arguments
    "generate_loss_gr_huber", "generate_loss_huber", "loss_cross_entropy",
    "loss_gr_cross_entropy", "loss_gr_squared_error", "loss_squared_error", "mapXy_gr_linear",
    "mapXy_gr_sigmoid", "mapXy_linear", "mapXy_sigmoid", "phi_gaussian", "regularizer_gr_l2",
    "regularizer_l2",
    # random Fourier features: random, but they never see the data
    "generate_sampling",
    # calibration and accounting: functions of public parameters only
    "calibrateAnalyticGaussianMechanism", "advanced_composition_eps", "selection_privacy",
    "stability_constants_histogram", "stability_constants_linear",
    "above_threshold_calibration", "accuracy_first_parameters", "privacy_level_grid",
    "above_threshold_failure", "laplace_test_calibration",
    # accuracy reports and the selection diagnosis: public arguments only, no data read
    "noiseIntervalDP", "stability_selection_diagnosis",
    "PrivacyLoss", "BudgetAccountant",
    # a base class to subclass, and a result container
    "StableTrainer", "AccuracyFirstResult", "NoiseInterval", "StabilitySelectionDiagnosis",
    "NearUniformSelectionWarning",
    # privacy accounting: budgets and their composition, no data; the overspend's exception
    "BudgetAccountant", "PrivacyLoss", "BudgetExceededError",
    # the exception a fit raises when it cannot certify its minimiser (nothing released)
    "ConvergenceError",
}

AUDIT_FILES = (test_audit_mechanisms, test_audit_stats, test_audit_models, test_audit_beyond,
               test_audit_adassp,
               test_audit_quantiles)


def audited_names():
    names = [name for module in AUDIT_FILES for name in module.AUDITED]
    return names + list(test_audit_beyond.AUDITED_THROUGH)


def test_every_release_function_has_an_audit_case():
    public = set(dppack.__all__)
    missing = sorted(public - NOT_RELEASES - set(audited_names()))
    assert not missing, f"public release functions without an audit case: {missing}"


def test_the_lists_name_public_functions_once():
    names = audited_names()
    assert len(names) == len(set(names))
    assert not set(names) & NOT_RELEASES
    unknown = sorted((set(names) | NOT_RELEASES) - set(dppack.__all__))
    assert not unknown, f"names that dppack does not export: {unknown}"


def test_the_parts_of_composite_releases_are_audited():
    audited = {name for module in AUDIT_FILES for name in module.AUDITED}
    for name, parts in test_audit_beyond.AUDITED_THROUGH.items():
        assert set(parts) <= audited, name


def _release_callable(name):
    """The callable of a public release that takes the accountant: the function itself, or a
    class's ``fit`` (models) or constructor (releases made when the object is built)."""
    obj = getattr(dppack, name)
    if isinstance(obj, type):
        return getattr(obj, "fit", obj.__init__)
    return obj


def test_every_release_takes_a_trailing_accountant():
    """Issue 12: every public release (and every model's fit) takes ``accountant=None`` as
    its last parameter, so DPpack's positional calls are unchanged."""
    import inspect

    releases = sorted(set(dppack.__all__) - NOT_RELEASES)
    wrong = []
    for name in releases:
        parameters = list(inspect.signature(_release_callable(name)).parameters.values())
        named = [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        last = named[-1] if named else None
        if last is None or last.name != "accountant" or last.default is not None:
            wrong.append(name)
    assert not wrong, f"releases without a trailing accountant=None: {wrong}"
