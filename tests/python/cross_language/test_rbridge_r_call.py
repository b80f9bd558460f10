"""R's one round trip per release (issue 29): ``dppack._rbridge.r_call``.

It must report exactly what :func:`dppack._rbridge.call` and ``call_method`` report (value,
warnings, error text, condition class), in the short form R reads: on a clean success the
float itself, or ``(value,)`` for any other value, else ``(value, warnings, error,
error_class)``; and with R's seed ``words`` it must
draw what the generator of ``seed_words_generator`` (the separate round trip it replaces)
draws.
"""

import numpy as np
import pytest

import dppack
from dppack import _random, _rbridge

X = np.round(np.random.default_rng(1).uniform(size=50), 3)
WORDS = [3_000_000_000.0, 1.0, 2.0, 4_294_967_295.0]  # doubles, as R passes them


def _kwargs(seed):
    return {"x": X, "eps": 1.0, "lower_bound": 0.0, "upper_bound": 1.0,
            "random_state": np.random.default_rng(seed)}


@pytest.mark.parametrize("name", ["meanDP", "varDP", "sdDP", "quantileDP"])
def test_a_clean_float_success_is_the_float_itself(name):
    kwargs = dict(_kwargs(7), quant=0.5) if name == "quantileDP" else _kwargs(7)
    fast = _rbridge.r_call(name, None, [], kwargs)
    report = _rbridge.call(name, [], dict(kwargs, random_state=np.random.default_rng(7)))
    assert report["warnings"] == [] and report["error"] is None
    assert type(fast) is float and fast == report["value"]


def test_any_other_clean_success_is_a_one_tuple_with_the_report_value():
    fast = _rbridge.r_call("histogramDP", None, [], _kwargs(7))
    report = _rbridge.call("histogramDP", [], _kwargs(7))
    assert type(fast) is tuple and len(fast) == 1 and report["error"] is None
    assert np.array_equal(fast[0]["counts"], report["value"]["counts"])
    assert np.array_equal(fast[0]["breaks"], report["value"]["breaks"])
    # the privacy spent as its plain fields, in R's order (no round trip per field)
    assert fast[0]["privacy"] == {"kind": "pure", "eps": 1.0, "delta": 0.0}
    gaussian = _rbridge.r_call("histogramDP", None, [], dict(
        _kwargs(7), eps=0.5, mechanism="Gaussian", delta=0.01))[0]["privacy"]
    assert list(gaussian) == ["kind", "eps", "delta"] and gaussian["delta"] == 0.01
    (vector,) = _rbridge.r_call("LaplaceMechanism", None, [],
                                {"true_values": np.zeros(2), "eps": 1.0, "sensitivities": 1.0})
    assert vector.shape == (2,)


def test_seed_words_draw_what_the_separate_generator_drew():
    generator = _rbridge.call("seed_words_generator", [], {"words": WORDS})["value"]
    before = dppack.LaplaceMechanism(np.zeros(3), 1.0, 1.0, random_state=generator)
    (now,) = _rbridge.r_call("LaplaceMechanism", None, [],
                             {"true_values": np.zeros(3), "eps": 1.0, "sensitivities": 1.0},
                             WORDS)
    assert np.array_equal(now, before)
    assert np.array_equal(now, dppack.LaplaceMechanism(
        np.zeros(3), 1.0, 1.0, random_state=_random.generator_from_words(WORDS)))


def test_errors_and_warnings_come_in_the_long_form_with_the_report_texts():
    bad = {"x": X, "eps": -1.0, "lower_bound": 0.0, "upper_bound": 1.0}
    value, warnings, error, error_class = _rbridge.r_call("meanDP", None, [], bad)
    report = _rbridge.call("meanDP", [], bad)
    assert value is None and warnings == [] and error_class is None
    assert error == report["error"] == "eps must be a scalar > 0"
    both = dict(_kwargs(3), quant=0.5, which_sensitivity="both")
    fast = _rbridge.r_call("quantileDP", None, [], both)
    report = _rbridge.call("quantileDP", [], dict(_kwargs(3), quant=0.5,
                                                   which_sensitivity="both"))
    assert len(fast) == 4 and fast[2] is None and fast[3] is None
    assert fast[0] == report["value"]
    assert fast[1] == report["warnings"] and len(fast[1]) == 1
    assert fast[1][0].startswith("Sensitivity based on bounded and unbounded")
    # bad seed words are an error of the call, not a crash
    assert _rbridge.r_call("meanDP", None, [], bad | {"eps": 1.0}, [1, 2])[2] == (
        "random_state words must be at least four whole numbers in [0, 2^32).")


def test_an_overspend_carries_its_r_condition_class():
    accountant = dppack.BudgetAccountant(1)
    out = _rbridge.r_call("meanDP", None, [], dict(_kwargs(1), eps=2.0, accountant=accountant))
    assert out[0] is None and out[3] == "DPpackPy_budget_exceeded"
    assert out[2].startswith("Privacy budget exceeded")


def test_methods_positional_arguments_and_an_empty_r_list_of_keywords():
    # R sends an empty named list as an empty Python list
    value = _rbridge.r_call("meanDP", None, [X, 1.0, 0.0, 1.0], [])
    assert np.isfinite(value)
    accountant = dppack.BudgetAccountant(1)
    assert _rbridge.r_call("spend", accountant, [dppack.PrivacyLoss.pure(0.5), "a"], []) == (
        _rbridge.call_method(dppack.BudgetAccountant(1), "spend",
                             [dppack.PrivacyLoss.pure(0.5), "a"], {})["value"],)
    with pytest.raises(AttributeError):
        _rbridge.r_call("_private", accountant, [], [])
    with pytest.raises(AttributeError):
        _rbridge.r_call("not_a_dppack_function", None, [], [])
