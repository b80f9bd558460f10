"""Messages in the caller's language (issue 15, item 3).

A message is written once, in R's spelling (DPpack's texts); a Python caller reads it with
Python's argument names and literals (``lower_bound``, ``True``), an R caller, through
``dppack._rbridge``, unchanged. No user-facing text points at our internal specs.

Nothing here is random: every call fails before any noise is drawn.
"""

import ast
import inspect
import io
import re
import tokenize
import warnings
from pathlib import Path

import numpy as np
import pytest

import dppack
import dppack.sklearn
from dppack import _messages, _rbridge

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "python" / "dppack"

X = np.array([[0.1, 0.2], [0.3, -0.4], [-0.5, 0.6], [0.7, -0.8]])
Y = np.array([0.0, 1.0, 0.0, 1.0])
x = np.array([0.5, 1.0, 2.0])

# (public function, args, kwargs, R's text, Python's text): a sample of checks across modules
PAIRS = {
    "stats-bounds": ("meanDP", [x, 1, 2, 0], {}, "lower.bound must be < upper.bound.",
                     "lower_bound must be < upper_bound."),
    "stats-which": ("meanDP", [x, 1, 0, 3], {"which_sensitivity": "x"},
                    "which.sensitivity must be one of {'bounded', 'unbounded', 'both'}.",
                    "which_sensitivity must be one of {'bounded', 'unbounded', 'both'}."),
    "stats-flag": ("histogramDP", [x, 1, 0, 3], {"allow_negative": "yes"},
                   "allow.negative must be TRUE or FALSE.",
                   "allow_negative must be True or False."),
    "mechanism-analytic": ("GaussianMechanism", [1.0, 1.5, 0.01, 1.0], {},
                           "eps must be < 1 for aDP unless analytic is TRUE.",
                           "eps must be < 1 for aDP unless analytic is True."),
    "mechanism-alloc": ("LaplaceMechanism", [[1.0, 2.0], 1.0, [1.0, 1.0]],
                        {"alloc_proportions": [1.0, 2.0, 3.0]},
                        "Length of alloc.proportions, if given, must match length of "
                        "sensitivities.",
                        "Length of alloc_proportions, if given, must match length of "
                        "sensitivities."),
    "mechanism-empty": ("GaussianMechanism", [[], 0.5, 0.01, 1.0], {},
                        "true.values must have at least one element.",
                        "true_values must have at least one element."),
    "model-method": ("svmDP", ["l2", 1, 1], {"perturbation_method": "x"},
                     "perturbation.method must be one of 'output' or 'objective'.",
                     "perturbation_method must be one of 'output' or 'objective'."),
    "tuning-bounds": ("tune_classification_model",
                      [[dppack.LogisticRegressionDP("l2", 1, 1)], X, Y, [1, 1], [-1]], {},
                      "Length of lower.bounds must be equal to the number of columns of X.",
                      "Length of lower_bounds must be equal to the number of columns of X."),
    "accuracy-first-grid": ("privacy_level_grid", [2, 1], {}, "eps.min must be < eps.max.",
                            "eps_min must be < eps_max."),
    "intervals-draws": ("confintERM", [X, Y, [1, 1], [-1, -1], 1], {"eps": 1, "n_draws": 1.5},
                        "n.draws must be a whole number >= 2.",
                        "n_draws must be a whole number >= 2."),
    "analytic-erm": ("OutputPerturbationAGM", ["logistic", 2, 1e-5, 1], {"analytic": False},
                     "eps must be < 1 for the classical Gaussian mechanism (analytic = FALSE).",
                     "eps must be < 1 for the classical Gaussian mechanism (analytic = False)."),
}


def _python_error(name, args, kwargs):
    with pytest.raises(ValueError) as raised:
        getattr(dppack, name)(*args, **kwargs)
    return str(raised.value)


@pytest.mark.parametrize("case", PAIRS, ids=list(PAIRS))
def test_python_and_r_callers_read_their_own_spelling(case):
    name, args, kwargs, r_text, python_text = PAIRS[case]
    assert _python_error(name, args, kwargs) == python_text
    report = _rbridge.call(name, args, kwargs)
    assert report["error"] == r_text and report["value"] is None


@pytest.mark.parametrize("args, kwargs, r_text, python_text", [
    ([X, Y, [1], [0]], {},
     "Length of upper.bounds must be equal to the number of columns of X.",
     "Length of upper_bounds must be equal to the number of columns of X."),
    ([X, Y, [1, 1], [-1, -1]], {"add_bias": "yes"},
     "add.bias must be TRUE or FALSE.", "add_bias must be True or False."),
])
def test_model_methods_speak_the_callers_language(args, kwargs, r_text, python_text):
    model = dppack.LogisticRegressionDP("l2", 1, 1)
    with pytest.raises(ValueError, match=f"^{re.escape(python_text)}$"):
        model.fit(*args, **kwargs)
    assert _rbridge.call_method(model, "fit", args, kwargs)["error"] == r_text


def test_statistics_name_their_own_switch_of_the_analytic_mechanism():
    # meanDP has no argument 'analytic': its text names mechanism = 'analytic', in both
    # languages; GaussianMechanism keeps DPpack's text (PAIRS)
    text = "eps must be < 1 for aDP unless mechanism is 'analytic'."
    for name, args in (("meanDP", [x, 1.5, 0, 3]), ("histogramDP", [x, 1.5, 0, 3])):
        kwargs = {"mechanism": "Gaussian", "delta": 0.01}
        assert _python_error(name, args, kwargs) == text
        assert _rbridge.call(name, args, kwargs)["error"] == text


def test_advice_names_what_the_caller_has():
    # Dask data: a dppack_dataset's columns in R, to be computed with x.compute() in Python
    dask_array = pytest.importorskip("dask.array")
    column = dask_array.from_array(np.array([0.1, 0.5]), chunks=1)
    with pytest.raises(TypeError) as raised:
        dppack.LaplaceMechanism(column, 1, 1)
    assert str(raised.value) == (
        "LaplaceMechanism does not run on Dask data: compute it into memory (x.compute()) if "
        "it fits, or use a statistic or model that runs on Dask (see dppack.dask).")
    assert _rbridge.call("LaplaceMechanism", [column, 1, 1], {})["error"] == (
        "LaplaceMechanism does not run on Dask data (a dppack_dataset's columns): read them "
        "into memory if they fit, or use a statistic or model that runs on Dask "
        "(see ?dppack_dataset).")


def test_sklearn_estimators_keep_python_texts():
    estimator = dppack.sklearn.DPLogisticRegression(perturbation_method="x",
                                                    feature_bounds=(-1, 1))
    with pytest.raises(ValueError) as raised:
        estimator.fit(X, Y)
    assert str(raised.value) == "perturbation_method must be one of 'output' or 'objective'."


def test_warnings_speak_the_callers_language():
    # accuracy-first's warning when no level meets the target (eps.max, n.levels, FALSE)
    rng = np.random.default_rng(0)
    Xa = rng.uniform(-1, 1, (40, 2))
    ya = Xa @ np.array([0.5, -0.5])
    kwargs = {"alpha": 1e-12, "lambda_": 1.0, "upper_bounds": [1, 1, 1],
              "lower_bounds": [-1, -1, -1], "n_levels": 2, "eps_min": 0.001, "eps_max": 0.01,
              "random_state": 1}
    with pytest.warns(RuntimeWarning) as caught:
        dppack.accuracy_first_erm(Xa, ya, "ridge", **kwargs)
    python_text = str(caught[0].message)
    assert "Raise eps_max, alpha or n_levels." in python_text and "success = False" in python_text
    report = _rbridge.call("accuracy_first_erm", [Xa, ya, "ridge"], kwargs)
    assert report["error"] is None
    assert any("Raise eps.max, alpha or n.levels." in w and "success = FALSE" in w
               for w in report["warnings"])


# ---- the translation is exact ------------------------------------------------------------


def test_the_table_comes_from_the_signatures():
    table = _messages.dotted_names()
    assert table["lower.bound"] == "lower_bound"
    assert table["EmpiricalRiskMinimizationDP.CMS"] == "EmpiricalRiskMinimizationDP_CMS"
    for name in dppack.__all__:
        if "_" in name.strip("_"):
            assert table[name.replace("_", ".")] == name
    parameters = set(inspect.signature(dppack.confintERM).parameters)
    assert {table[p.replace("_", ".")] for p in parameters if "_" in p} <= parameters


@pytest.mark.parametrize("text", [
    "e.g. 1.5, 2.0 or 1e-5.",
    "pima.csv and data/README.md",
    "True.Values and Bounded.Sensitivities are DPpack's list names.",
    "TRUEish NULLable FALSEly",
    "numpy.random.Generator",
])
def test_only_table_entries_and_literals_change(text):
    assert _messages.python_spelling(text) == text


def test_literals_and_functions_translate_as_whole_words():
    assert (_messages.python_spelling("add.bias is TRUE, FALSE or NULL; see privacy_loss_pure().")
            == "add_bias is True, False or None; see PrivacyLoss.pure().")
    assert _messages.python_spelling("(upper.bounds)") == "(upper_bounds)"


def test_errors_made_elsewhere_reach_r_as_they_are():
    assert _messages.r_text(ValueError("x must be numeric.")) == "x must be numeric."
    error = _messages.value_error("lower.bound must be < upper.bound.")
    assert isinstance(error, ValueError)
    assert (str(error), _messages.r_text(error)) == ("lower_bound must be < upper_bound.",
                                                      "lower.bound must be < upper.bound.")


# ---- no dotted name in any Python message, from a table of bad calls -------------------------

_M = dppack.LogisticRegressionDP("l2", 1, 1)
BAD_CALLS = [
    lambda: dppack.meanDP(x, 1, [0, 1], 3),
    lambda: dppack.meanDP(x, 1, 0, None),
    lambda: dppack.varDP(x, 1, 3, 0),
    lambda: dppack.covDP(x, x, 1, 0, 3, 3, 0),
    lambda: dppack.histogramDP(x, 1, 0, 3, normalize="yes"),
    lambda: dppack.tableDP(["a", "b"], eps=1, which_sensitivity="x"),
    lambda: dppack.pooledVarDP(x, x, eps=1, lower_bound=0, upper_bound=3, approx_n_max="x"),
    lambda: dppack.quantileDP(x, 0.5, 1, 0, 3, mechanism="x"),
    lambda: dppack.LaplaceMechanism("a", 1, 1),
    lambda: dppack.LaplaceMechanism([1, 2], 1, [1, 1], alloc_proportions=[0, 1]),
    lambda: dppack.GaussianMechanism(1, 0.5, 0.01, 1, type_DP="x"),
    lambda: dppack.GaussianMechanism(1, 0.5, 0.01, 1, type_DP="pDP", analytic=True),
    lambda: dppack.LogisticRegressionDP("l2", 1, 1, perturbation_method="x"),
    lambda: dppack.LogisticRegressionDP("x", 1, 1),
    lambda: _M.fit(X, Y, [1, 1], [-1, -1], add_bias=3),
    lambda: _M.fit(X, Y, [1, 1], [2, 2]),
    lambda: dppack.svmDP("l2", 1, 1, kernel="Gaussian", D=2.5).fit(X, Y, [1, 1], [-1, -1]),
    lambda: dppack.LinearRegressionDP("l2", 1, 0.1, 1).fit(X, Y, [1, 1], [-1, -1]),
    lambda: dppack.tune_classification_model([_M], X, Y, [1, 1], [-1, -1], add_bias="x"),
    lambda: dppack.tune_classification_model([_M], X, Y, [1, 1], [-1, -1],
                                             weights=np.ones(4)),
    lambda: dppack.privacy_level_grid(0.1, 1, 0),
    lambda: dppack.LaplaceNoiseReduction([], [0.5, 1], 1),
    lambda: dppack.confintERM(X, Y, [1, 1], [-1, -1], 1, eps=1, budget_split=[1, 2]),
    lambda: dppack.confintERM(X, Y, [1, 1], [-1, -1], 1, eps=1, sigma_bound="x"),
    lambda: dppack.OutputPerturbationAGM("logistic", 1, 1e-5, 1, sensitivity_bound="x"),
    lambda: dppack.GradientPerturbationAGM("logistic", 1, 1e-5, 1, iterations=0.5),
    lambda: dppack.accuracy_first_erm(X, Y, "ridge", 0.1, 1, [1, 1, 1], [-1, -1, -1],
                                      eps_min=2, eps_max=1),
    lambda: dppack.tune_classification_model_stable([_M], X, Y, [1, 1], [-1, -1], 0.5,
                                                    X_validation=X),
    lambda: dppack.tune_histogram_bin_width_stable(x, 1, 0, 3, bin_widths=[2]),
    lambda: dppack.BudgetAccountant(1).spend(dppack.PrivacyLoss.pure(0.1), 3),
]


def _r_words():
    """The words a Python message must not contain: the table's dotted names and R's
    literals."""
    return set(_messages.dotted_names()) | {"TRUE", "FALSE", "NULL"}


def test_bad_calls_raise_python_spelled_messages():
    words = _r_words()
    pattern = re.compile(r"(?<![\w.])[A-Za-z]\w*(?:\.[A-Za-z]\w*)+(?![\w(])|\b[A-Z]+\b")
    texts = []
    for call in BAD_CALLS:
        with pytest.raises((ValueError, TypeError)) as raised:
            call()
        texts.append(str(raised.value))
    found = {(text, word) for text in texts for word in pattern.findall(text) if word in words}
    assert not found
    # the table really spans these calls: their R texts differ in at least 10 of them
    differ = 0
    for call in BAD_CALLS:
        try:
            call()
        except (ValueError, TypeError) as error:
            differ += _messages.r_text(error) != str(error)
    assert differ >= 10


# ---- no internal spec reference in user-facing text -------------------------------------------

SPEC = re.compile(r"spec\s*§|dppack_api|specs/|spec\s+``|\bthe spec\b|seed 00\d|"
                  r"(?:stability_validation|accuracy_first|confidence_intervals|"
                  r"analytic_gaussian_erm|exact_noise)\.md")


def _strings(path):
    """Every string literal of a module (docstrings, messages), not its comments."""
    source = path.read_text(encoding="utf-8")
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.STRING:
            yield token.start[0], token.string


def test_no_spec_reference_in_python_strings():
    strings = [(path, line, text) for path in sorted(PACKAGE.rglob("*.py"))
               for line, text in _strings(path)]
    found = [f"{path.relative_to(ROOT)}:{line}" for path, line, text in strings
             if SPEC.search(text)]
    assert not found
    # nor a bare section sign of ours (a book's sections are cited with the book, shortly
    # before: "Numerical Optimization, 2nd ed., §3.1 (...), §3.3 (...)")
    book = re.compile(r"2nd ed\.,|foundations of differential privacy,")
    bare = [f"{path.relative_to(ROOT)}:{line}" for path, line, text in strings
            for sign in re.finditer("§", text)
            if not book.search(text[max(0, sign.start() - 120):sign.start()])]
    assert not bare


def test_no_spec_reference_in_public_docstrings():
    objects = [dppack, dppack.sklearn]
    for module in (dppack, dppack.sklearn):
        for name in module.__all__:
            obj = getattr(module, name)
            objects.append(obj)
            if inspect.isclass(obj):
                objects.extend(member for member_name, member in inspect.getmembers(obj)
                               if not member_name.startswith("_"))
    found = [getattr(obj, "__qualname__", repr(obj)) for obj in objects
             if SPEC.search(inspect.getdoc(obj) or "")]
    assert not found


def test_no_spec_reference_in_r_help_or_roxygen():
    found = [f"{path.relative_to(ROOT)}:{number}"
             for folder, pattern in (("man", "*.Rd"), ("R", "*.R"))
             for path in sorted((ROOT / folder).glob(pattern))
             for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if (folder == "man" or line.lstrip().startswith("#'")) and SPEC.search(line)]
    assert not found


def test_the_scans_see_a_planted_reference(tmp_path):
    # the patterns catch the forms the sources used
    for text in ("(spec §6.1)", "Spec ``dppack_api.md`` §2", "the spec below",
                 "spec ``stability_validation.md``", "our notes ``specs/exact_noise.md``"):
        assert SPEC.search(text), text
    module = tmp_path / "m.py"
    module.write_text('def f():\n    """Scale b (spec §2.1)."""\n', encoding="utf-8")
    assert any(SPEC.search(text) for _, text in _strings(module))


def test_messages_module_is_the_only_home_of_the_translation():
    # every raise of a message with an R spelling goes through dppack._messages: scan the
    # core's raise statements for a literal that the translation would change
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in ("_messages.py", "sklearn.py"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call)
                    and isinstance(node.exc.func, ast.Name)
                    and node.exc.func.id in ("ValueError", "TypeError")):
                for inner in ast.walk(node.exc):
                    if (isinstance(inner, ast.Constant) and isinstance(inner.value, str)
                            and _messages.python_spelling(inner.value) != inner.value
                            and "R stops with" not in inner.value):
                        offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not offenders


def test_warning_texts_carry_both_spellings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _messages.warn("Raise eps.max or n.levels.", RuntimeWarning)
    assert caught[0].category is RuntimeWarning
    assert str(caught[0].message) == "Raise eps_max or n_levels."
    assert _messages.r_text(caught[0].message) == "Raise eps.max or n.levels."
