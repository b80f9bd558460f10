"""The vocabulary of argument checks (``dppack._checks``): what each check accepts, what it
refuses and with which text, and that the releases that call it keep their messages.

Deterministic: no randomness, no false failures.
"""

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import dppack
from dppack import _checks, accounting
from dppack.accuracy_first import above_threshold
from dppack.confidence_intervals import erm as intervals
from dppack.erm import cms
from dppack.model_selection import stability

# --------------------------------------------------------------------------------------------
# The type rule of one number
# --------------------------------------------------------------------------------------------

# (value, its float): accepted by every number check
SCALARS = [
    (0.5, 0.5),
    (2, 2.0),
    (np.float64(0.5), 0.5),
    (np.float32(0.5), 0.5),
    (np.int64(2), 2.0),
    (np.uint8(2), 2.0),
    (Fraction(1, 2), 0.5),
    (2**70, 2.0**70),
]
# accepted unless strict=True (numpy reads them as one int or float)
ONE_ELEMENT = [
    (np.array(0.5), 0.5),
    (np.array([0.5]), 0.5),
    (np.array([[2]]), 2.0),
    (pd.Series([0.5]), 0.5),
]
# refused by every number check
NOT_NUMBERS = [
    None, True, False, np.True_, np.bool_(False), "0.5", b"0.5", np.str_("0.5"), 1 + 0j,
    float("nan"), np.float64("nan"), [0.1, 0.2], np.array([]), np.array(["0.5"]),
    np.array([True]), [[1], [2, 3]], object(), {"a": 1},
    [0.5], (0.5,),  # lists and tuples: an R list(1) arrives as [1.0]
]


@pytest.mark.parametrize("value, expected", SCALARS + ONE_ELEMENT)
def test_number_accepts_one_real(value, expected):
    out = _checks.check_number(value, "x")
    assert type(out) is float and out == expected


@pytest.mark.parametrize("value, expected", SCALARS)
def test_strict_number_accepts_python_and_numpy_numbers(value, expected):
    out = _checks.check_number(value, "x", strict=True)
    assert type(out) is float and out == expected


@pytest.mark.parametrize("value", [v for v, _ in ONE_ELEMENT] + NOT_NUMBERS,
                         ids=lambda v: type(v).__name__)
def test_strict_number_refuses_containers_and_non_numbers(value):
    with pytest.raises(ValueError, match=r"^x must be a number\.$"):
        _checks.check_number(value, "x", strict=True)


@pytest.mark.parametrize("value", NOT_NUMBERS, ids=lambda v: type(v).__name__)
def test_number_refuses_non_numbers_bool_and_nan(value):
    with pytest.raises(ValueError, match=r"^x must be a number\.$"):
        _checks.check_number(value, "x")


def test_an_int_beyond_the_doubles_is_refused_with_the_text():
    with pytest.raises(ValueError, match=r"^eps must be a scalar > 0$"):
        _checks.check_positive_scalar(10**400, "eps")


def test_number_does_not_touch_the_callers_array():
    value = np.array([0.25])
    _checks.check_number(value, "x")
    assert value.dtype == np.float64 and value[0] == 0.25


# --------------------------------------------------------------------------------------------
# Intervals and their texts
# --------------------------------------------------------------------------------------------

# (low, high, closed, finite, default text, accepted values, refused values)
INTERVALS = [
    (0, 1, "neither", False, "x must be a number in (0, 1).",
     [1e-300, 0.5, math.nextafter(1, 0)], [0, 1, -0.5, 2, math.inf]),
    (0, 1, "left", False, "x must be a number in [0, 1).", [0, -0.0, 0.5], [1, -1e-300]),
    (0, 1, "right", False, "x must be a number in (0, 1].", [1, 0.5], [0, 1.5]),
    (0, 1, "both", False, "x must be a number in [0, 1].", [0, 1], [-0.1, 1.1]),
    (0, None, "both", True, "x must be a finite number >= 0.", [0, 3], [-1, math.inf]),
    (0, None, "neither", True, "x must be a finite number > 0.", [1e-9], [0, math.inf]),
    (0, None, "neither", False, "x must be a number > 0.", [math.inf], [0, -math.inf]),
    (None, 2, "both", False, "x must be a number <= 2.", [2, -math.inf], [2.5, math.inf]),
    (None, 2, "left", False, "x must be a number < 2.", [1.5], [2]),
    (None, None, "both", True, "x must be a finite number.", [-1e300, 0], [math.inf,
                                                                           -math.inf]),
    (None, None, "both", False, "x must be a number.", [math.inf, -math.inf], []),
]


@pytest.mark.parametrize("low, high, closed, finite, text, good, bad", INTERVALS)
def test_interval_bounds_and_default_texts(low, high, closed, finite, text, good, bad):
    for value in good:
        assert _checks.check_number(value, "x", low, high, closed, finite) == value
    for value in bad + [True, "1", float("nan")]:
        with pytest.raises(ValueError) as raised:
            _checks.check_number(value, "x", low, high, closed, finite)
        assert str(raised.value) == text


def test_a_finite_text_of_its_own_is_given_to_inf_only():
    kwargs = {"low": 0, "closed": "neither", "finite": "x must be finite.",
              "message": "x must be a scalar > 0"}
    for value, text in ((math.inf, "x must be finite."), (-math.inf, "x must be a scalar > 0"),
                        (0, "x must be a scalar > 0"), ("a", "x must be a scalar > 0")):
        with pytest.raises(ValueError) as raised:
            _checks.check_number(value, "x", **kwargs)
        assert str(raised.value) == text


def test_number_message_replaces_the_default_and_optional_passes_none():
    with pytest.raises(ValueError, match=r"^quant must be between 0 and 1\.$"):
        _checks.check_number(1.5, "quant", 0, 1, message="quant must be between 0 and 1.")
    assert _checks.check_number(None, "x", optional=True) is None
    with pytest.raises(ValueError, match=r"^x must be a number\.$"):
        _checks.check_number(None, "x")


def test_an_unknown_closed_is_a_programming_error():
    with pytest.raises(ValueError, match="closed must be one of"):
        _checks.check_number(0.5, "x", 0, 1, closed="open")


# --------------------------------------------------------------------------------------------
# DPpack's "scalar > 0" in its three uses, and the probability
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("check, inf_text", [
    (_checks.check_positive_scalar, None),
    (_checks.check_finite_positive_scalar, "eps must be finite."),
    (_checks.check_finite_budget,
     "eps must be finite: eps = Inf would release the true values without noise."),
])
def test_positive_scalar_family(check, inf_text):
    assert check(np.array([2]), "eps") == 2.0
    for bad in (0, -1, -math.inf, float("nan"), True, "1", None, [1, 2]):
        with pytest.raises(ValueError) as raised:
            check(bad, "eps")
        assert str(raised.value) == "eps must be a scalar > 0"  # DPpack's, no period
    if inf_text is None:
        assert check(math.inf, "eps") == math.inf
    else:
        with pytest.raises(ValueError) as raised:
            check(math.inf, "eps")
        assert str(raised.value) == inf_text


@pytest.mark.parametrize("zero, low_text", [(False, "delta must be a scalar > 0"),
                                            (True, "delta must be a scalar >= 0")])
def test_probability(zero, low_text):
    assert _checks.check_probability(1e-6, "delta", zero=zero) == 1e-6
    assert (_checks.check_probability(0, "delta", zero=True) == 0.0) is True
    for bad in ([-0.5, True, "0.1", float("nan"), None]
                + ([] if zero else [0, -0.0])):
        with pytest.raises(ValueError) as raised:
            _checks.check_probability(bad, "delta", zero=zero)
        assert str(raised.value) == low_text
    for bad in (1, 1.5, math.inf):
        with pytest.raises(ValueError) as raised:
            _checks.check_probability(bad, "delta", zero=zero)
        assert str(raised.value) == "delta must be < 1."
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\)\.$"):
        _checks.check_probability(1, "delta", high_message="delta must be in (0, 1).")


# --------------------------------------------------------------------------------------------
# Whole numbers
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value, expected", [
    (3, 3), (3.0, 3), (np.int64(3), 3), (np.float64(3.0), 3), (np.array([3]), 3),
    (2**70 + 1, 2**70 + 1), (np.int64(2**62 + 1), 2**62 + 1), (10**400, 10**400),
])
def test_whole_accepts_whole_numbers_exactly(value, expected):
    out = _checks.check_whole(value, "n", 1)
    assert type(out) is int and out == expected


@pytest.mark.parametrize("value", [0, 2.5, -1, math.inf, float("nan"), True, np.True_, "3",
                                   None, [1, 2], [3], np.array(["3"])],
                         ids=lambda v: repr(v))
def test_whole_refuses(value):
    with pytest.raises(ValueError) as raised:
        _checks.check_whole(value, "n.levels", 1)
    assert str(raised.value) == "n_levels must be a whole number >= 1."


def test_whole_strict_message_and_optional():
    with pytest.raises(ValueError, match=r"^k must be a whole number >= 0\.$"):
        _checks.check_whole(np.array([2]), "k", 0, strict=True)
    assert _checks.check_whole(np.int64(0), "k", 0, strict=True) == 0
    with pytest.raises(ValueError, match=r"^D must be a positive integer\.$"):
        _checks.check_whole(0.5, "D", 1, message="D must be a positive integer.")
    assert _checks.check_whole(None, "iterations", 1, optional=True) is None


# --------------------------------------------------------------------------------------------
# Choices, flags, functions, vectors
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["Shared", "", None, 1, ["shared"], b"shared",
                                   ("shared",)], ids=repr)
def test_choice_refuses_anything_but_an_option(value):
    assert not _checks.is_one_of(value, ("shared", "independent"))
    with pytest.raises(ValueError) as raised:
        _checks.check_choice(value, "noise", ("shared", "independent"))
    assert str(raised.value) == "noise must be one of 'shared', 'independent'."


def test_choice_accepts_options_and_takes_a_text():
    assert _checks.check_choice("shared", "noise", ("shared", "independent")) == "shared"
    assert _checks.check_choice(np.str_("rbf"), "kernel", {"rbf": 1}) == "rbf"
    with pytest.raises(ValueError, match=r"^type_DP must be one of \{'pDP', 'aDP'\}\.$"):
        _checks.check_choice("pdp", "type.DP", ("pDP", "aDP"),
                             "type_DP must be one of {'pDP', 'aDP'}.")


@pytest.mark.parametrize("value, expected", [(True, True), (np.False_, False),
                                             (np.array([True]), True), (np.array(False), False)])
def test_flag_accepts_one_logical(value, expected):
    assert _checks.check_flag(value, "add.bias") is expected


@pytest.mark.parametrize("value", [1, 0, 1.0, "TRUE", None, np.array([True, False]),
                                   np.array([1]), [True], (False,)], ids=repr)
def test_flag_refuses(value):
    with pytest.raises(ValueError) as raised:
        _checks.check_flag(value, "add.bias")
    assert str(raised.value) == "add_bias must be True or False."


def test_strict_flag_refuses_arrays_with_its_text():
    assert _checks.check_flag(np.True_, "fit_intercept", strict=True) is True
    with pytest.raises(ValueError, match=r"^fit_intercept must be True or False\.$"):
        _checks.check_flag(np.array([True]), "fit_intercept", strict=True,
                           message="fit_intercept must be True or False.")


def test_callable():
    assert _checks.check_callable(len, "loss") is len
    assert _checks.check_callable(None, "loss.gr", optional=True) is None
    for value, optional, text in ((None, False, "loss must be a function."),
                                  ("l2", False, "loss must be a function."),
                                  ("l2", True, "loss must be a function or None.")):
        with pytest.raises(ValueError) as raised:
            _checks.check_callable(value, "loss", optional=optional)
        assert str(raised.value) == text


@pytest.mark.parametrize("values, text", [
    ([0.0, 1.0], "s must be > 0."), ([1.0, -2.0], "s must be > 0."),
    ([np.nan, 1.0], "s must be > 0."), ([np.inf, np.nan], "s must be > 0."),
    ([1.0, np.inf], "s must be finite."),
])
def test_positive_values(values, text):
    array = np.array([0.5, 2.0])
    assert _checks.check_positive_values(array, "s must be > 0.") is array
    with pytest.raises(ValueError) as raised:
        _checks.check_positive_values(np.array(values), "s must be > 0.", "s must be finite.")
    assert str(raised.value) == text


def test_vector():
    coeff = np.array([1.0, 2.0])
    assert np.shares_memory(_checks.as_vector(coeff), coeff)  # no copy of a float vector
    assert _checks.as_vector(np.array([[1], [2]]), 2).tolist() == [1.0, 2.0]
    assert _checks.as_vector(3).tolist() == [3.0]
    with pytest.raises(ValueError, match=r"^Expected 3 values, got 2\.$"):
        _checks.as_vector(coeff, 3)
    with pytest.raises(ValueError) as raised:
        _checks.as_vector(coeff, 5, cms.MODEL_OUTPUT_MESSAGE)
    assert str(raised.value) == "A model function returned 2 values where 5 were expected."


def test_finite_data_texts():
    array, low, high = _checks.as_finite_data([2, 1], "x")
    assert array.tolist() == [2.0, 1.0] and (low, high) == (1.0, 2.0)
    for value, kwargs, text in (
            ("a", {}, "x must be numeric."),
            ([], {}, "x must contain at least one value."),
            ([1, math.inf], {}, "x must be finite (no NA, NaN or Inf)."),
            ("a", {"message": "x is not numeric"}, "x is not numeric"),
            ([], {"size_message": "x is empty"}, "x is empty")):
        with pytest.raises(ValueError) as raised:
            _checks.as_finite_data(value, "x", **kwargs)
        assert str(raised.value) == text


def test_bound():
    assert _checks.as_bound(np.array([1]), "upper.bound") == 1.0
    for bad in ("1", True, math.inf, float("nan"), None):
        with pytest.raises(ValueError, match=r"^upper_bound must be a finite number\.$"):
            _checks.as_bound(bad, "upper.bound")


# --------------------------------------------------------------------------------------------
# The releases keep their texts (the call sites of the old private copies)
# --------------------------------------------------------------------------------------------

CALL_SITES = [
    # mechanisms: DPpack's texts and ours (DPpack's R/Mechanisms.R)
    (lambda: dppack.LaplaceMechanism(1.0, 0, 1.0), "eps must be a scalar > 0"),
    (lambda: dppack.LaplaceMechanism(1.0, math.inf, 1.0),
     "eps must be finite: eps = Inf would release the true values without noise."),
    (lambda: dppack.LaplaceMechanism([], 1.0, 1.0), "true_values must have at least one element."),
    (lambda: dppack.LaplaceMechanism("a", 1.0, 1.0),
     "true_values must be numeric atomic vectors or scalars."),
    (lambda: dppack.LaplaceMechanism(1.0, 1.0, math.nan), "Global sensitivities must be > 0."),
    (lambda: dppack.LaplaceMechanism(1.0, 1.0, math.inf), "Global sensitivities must be finite."),
    (lambda: dppack.LaplaceMechanism([1.0, 2.0], 1.0, [1.0, 1.0], [1.0, -1.0]),
     "Values in alloc_proportions, if given, must be > 0."),
    (lambda: dppack.GaussianMechanism(1.0, 0.5, 0, 1.0), "delta must be a scalar > 0"),
    (lambda: dppack.GaussianMechanism(1.0, 0.5, 1, 1.0), "delta must be < 1."),
    (lambda: dppack.GaussianMechanism(1.0, 0.5, 0.1, 1.0, type_DP="pdp"),
     "type_DP must be one of {'pDP', 'aDP'}."),
    (lambda: dppack.calibrateAnalyticGaussianMechanism(0, 0.1, 1.0),
     "epsilon must be a scalar > 0"),
    (lambda: dppack.mechanisms.discrete_gaussian_parameters(1.0, 1.0, eps=1.0, delta=1e-5,
                                                            coordinates=np.True_),
     "coordinates must be a positive integer."),
    # statistics
    (lambda: dppack.meanDP([1.0], 1.0, 0.0, 1.0, which_sensitivity="Bounded"),
     "which_sensitivity must be one of {'bounded', 'unbounded', 'both'}."),
    (lambda: dppack.meanDP([1.0], 1.0, 0.0, 1.0, mechanism="laplace"),
     "Mechanism must be one of {'Laplace', 'Gaussian', 'analytic'}."),
    (lambda: dppack.quantileDP([1.0], [0.5, 0.6], 1.0, 0.0, 1.0), "Length of quant must be 1."),
    (lambda: dppack.quantileDP([1.0], [[0.5], [0.5, 0.6]], 1.0, 0.0, 1.0),
     "Length of quant must be 1."),
    (lambda: dppack.quantileDP([1.0], None, 1.0, 0.0, 1.0), "quant must be between 0 and 1."),
    (lambda: dppack.quantileDP([1.0], True, 1.0, 0.0, 1.0), "quant must be between 0 and 1."),
    (lambda: dppack.quantileDP([1.0], 0.5, 1.0, 0.0, 1.0, mechanism="Laplace"),
     "Mechanism must be one of {'exponential'}."),
    # accounting (strict: Python and numpy numbers only)
    (lambda: accounting.PrivacyLoss.pure([1.0]), "eps must be a finite number >= 0."),
    (lambda: accounting.PrivacyLoss.approx(1.0, 1.0), "delta must be a number in [0, 1)."),
    (lambda: accounting.PrivacyLoss.pure(1.0).amplify_by_subsampling(0),
     "q must be a number in (0, 1]."),
    (lambda: accounting.PrivacyLoss.pure(1.0).to_approx(1e-6, method="exact"),
     "method must be one of 'tight', 'bun_steinke'."),
    (lambda: accounting.PrivacyLoss.approx(1.0, 1e-6).advanced_composition(2.5, 1e-6),
     "k must be a whole number >= 1."),
    (lambda: accounting.BudgetAccountant(np.array([1.0])), "eps must be a finite number > 0."),
    (lambda: accounting.zcdp_to_approx_dp(0.5, 1), "delta must be in (0, 1)."),
    (lambda: accounting.zcdp_to_approx_dp(0.5, 0), "delta must be a scalar > 0"),
    # model selection (strict)
    (lambda: stability.stability_constants_linear(1.0, 10, 10, 2, 2, 1.0, np.array([0.1])),
     "delta must be a number in (0, 1)."),
    (lambda: stability.stability_constants_linear(1.0, 10.5, 10, 2, 2, 1.0, 0.1),
     "n must be a whole number >= 1."),
    (lambda: stability.stability_constants_linear(1.0, 10, 10, 2, 2, 1.0, 0.1, "Ramp"),
     "score must be one of 'ramp', 'hinge', 'logistic'."),
    (lambda: stability.stability_constants_linear(1.0, 10, 10, 2, 2, math.inf, 0.1),
     "eps must be finite: eps = Inf would release the true values without noise."),
    # ERM frameworks and models
    (lambda: dppack.LogisticRegressionDP("l2", 1.0, 1.0, perturbation_method="both"),
     "perturbation_method must be one of 'output' or 'objective'."),
    (lambda: dppack.LogisticRegressionDP("l1", 1.0, 1.0),
     "regularizer must be one of {'l2'}, or a function."),
    (lambda: dppack.LogisticRegressionDP(len, 1.0, 1.0, regularizer_gr="l2"),
     "regularizer_gr must be a function or None."),
    (lambda: dppack.svmDP("l2", 1.0, 1.0, kernel="rbf"),
     "kernel must be one of {'linear', 'Gaussian'}."),
    (lambda: dppack.svmDP("l2", 1.0, 1.0, kernel="Gaussian", D=2.5),
     "D must be a positive integer."),
    (lambda: dppack.LinearRegressionDP("l2", 1.0, -0.1, 1.0), "delta must be a scalar >= 0"),
    (lambda: dppack.LinearRegressionDP("l2", 1.0, 1.0, 1.0), "delta must be < 1."),
    (lambda: dppack.LinearRegressionDP("l2", 1.0, 0.0, 0.0), "gamma must be a scalar > 0"),
    (lambda: dppack.LinearRegressionDP("l2", 1.0, 0.0, math.inf), "gamma must be finite."),
    (lambda: dppack.OutputPerturbationAGM("logistic", 0.5, 1e-5, -1.0),
     "gamma must be a finite scalar >= 0"),
    (lambda: dppack.OutputPerturbationAGM("logistic", 0.5, 1e-5, 1.0, iterations=0),
     "iterations must be a positive whole number or None."),
    (lambda: dppack.OutputPerturbationAGM("hinge", 0.5, 1e-5, 1.0),
     "loss must be one of {'logistic', 'huber'}."),
    (lambda: dppack.OutputPerturbationAGM("logistic", 0.5, 1e-5, 1.0, sensitivity_bound="x"),
     "sensitivity_bound must be one of {'paper', 'tight'}."),
    (lambda: dppack.OutputPerturbationAGM("logistic", 0.5, 1e-5, 1.0, radius=0),
     "radius must be a scalar > 0"),
    # accuracy first
    (lambda: dppack.privacy_level_grid(0.1, 1.0, 2.5), "n_levels must be a whole number >= 1."),
    (lambda: dppack.above_threshold_calibration(1.0, 1.0, 1.0, 10), "gamma must be < 1."),
    (lambda: dppack.above_threshold_calibration(1.0, 0.1, 1.0, 10, "fast"),
     "calibration must be one of 'exact', 'paper' or 'tuned'."),
    (lambda: dppack.accuracy_first_parameters("lasso", 1.0, 1.0, 10, 2),
     "model must be one of 'ridge' or 'logistic'."),
    (lambda: dppack.accuracy_first_parameters("ridge", 1.0, 1.0, 10.5, 2),
     "n must be a whole number >= 1."),
    (lambda: dppack.InteractiveAboveThreshold([1.0], 1.0, math.nan, 1.0),
     "threshold must be a finite number."),
    (lambda: dppack.LaplaceNoiseReduction([], [0.5, 1.0], 1.0),
     "true_values must hold at least one value."),
    (lambda: dppack.LaplaceNoiseReduction("a", [0.5, 1.0], 1.0), "true_values must be numeric."),
    # confidence intervals
    (lambda: intervals.priv_spd_mat(np.eye(2), 1.0, 1.0, "DP", floor=-1.0),
     "floor must be a finite number >= 0."),
    (lambda: intervals.priv_spd_mat(np.eye(2), 1.0, 1.0, "Rényi"),
     "notion must be one of 'DP', 'zCDP'."),
]


@pytest.mark.parametrize("call, text", CALL_SITES, ids=[t for _, t in CALL_SITES])
def test_call_sites_keep_their_texts(call, text):
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == text


# The texts this refactor changed (NEWS, "Argument checks"): one text per argument
CHANGED = [
    # was "n.draws must be a finite number >= 0." for a negative or non-numeric n.draws
    ({"n_draws": -1.5}, "n_draws must be a whole number >= 2."),
    ({"n_draws": "many"}, "n_draws must be a whole number >= 2."),
    # was "level must be a finite number >= 0." for a negative or non-numeric level
    ({"level": -0.5}, "level must be in (0, 1)."),
    ({"level": "95%"}, "level must be in (0, 1)."),
    ({"level": 0}, "level must be in (0, 1)."),
]


@pytest.mark.parametrize("kwargs, text", CHANGED, ids=[str(k) for k, _ in CHANGED])
def test_confint_has_one_text_per_argument(kwargs, text):
    X = np.array([[0.1], [0.2]])
    with pytest.raises(ValueError) as raised:
        dppack.confintERM(X, [0.0, 1.0], [1.0], [0.0], 1.0, eps=1.0, **kwargs)
    assert str(raised.value) == text


@pytest.mark.parametrize("value", ["3", np.array(["3"])], ids=repr)
def test_a_count_given_as_a_string_is_refused(value):
    # numpy read "3" as 3 before, so n.levels = "3" was accepted
    with pytest.raises(ValueError, match=r"^n_levels must be a whole number >= 1\.$"):
        dppack.privacy_level_grid(0.1, 1.0, value)


def test_a_boolean_array_is_not_a_threshold():
    # np.array([True]) was read as the threshold 1.0
    with pytest.raises(ValueError, match=r"^threshold must be a finite number\.$"):
        above_threshold.InteractiveAboveThreshold([1.0], 1.0, np.array([True]), 1.0)
