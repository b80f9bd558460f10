"""Messages in the caller's language (issue 15, item 3).

A message is written once, in R's spelling (DPpack's texts); a Python caller reads it with
Python's argument names and literals (``lower_bound``, ``True``), an R caller, through
``dppack._rbridge``, unchanged. Only the template is translated: a value put into a message
(an accountant's label, a number) reaches both callers as it is. A Python message names only
parameters of what was called (a bad value for each parameter of 76 valid calls). No
user-facing text points at our internal specs.

Nothing here is random: every call fails before any noise is drawn.
"""

import ast
import builtins
import importlib
import inspect
import io
import keyword
import re
import tokenize
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import dppack
import dppack.sklearn
from dppack import _messages, _rbridge

ROOT = Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "python" / "dppack"

X = np.array([[0.1, 0.2], [0.3, -0.4], [-0.5, 0.6], [0.7, -0.8]])
Y = np.array([0.0, 1.0, 0.0, 1.0])
x = np.array([0.5, 1.0, 2.0])

# (public function, args, kwargs, R's text, Python's text): a sample of checks across modules
PAIRS = {
    "stats-bounds": ("meanDP", [x, 1, 2, 0], {}, "lower.bound must be < upper.bound.",
                     "lower_bound must be < upper_bound."),
    "stats-which": ("meanDP", [x, 1, 0, 3], {"which_sensitivity": "x"},
                    'which.sensitivity must be one of c("bounded", "unbounded", "both").',
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
    "keyword-argument": ("accuracy_first_parameters", ["ridge", 0.1, -1, 20, 2], {},
                         "lambda must be a scalar > 0", "lambda_ must be a scalar > 0"),
    "r-match-arg": ("histogramDP", [x, 1, 0, 3], {"breaks": "zz"},
                    "'arg' should be one of \u201csturges\u201d, \u201cfd\u201d, "
                    "\u201cfreedman-diaconis\u201d, \u201cscott\u201d",
                    "breaks, when a string, must be one of 'Sturges', 'Scott', 'FD' or "
                    "'Freedman-Diaconis' (in any case, or a unique prefix); got 'zz'."),
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

SPEC = re.compile(r"spec\s*\u00a7|dppack_api|specs/|spec\s+``|\bthe spec\b|seed 00\d|"
                  r"(?:stability_validation|accuracy_first|confidence_intervals|"
                  r"analytic_gaussian_erm|exact_noise)\.md")

# A reference to the project's issue tracker ("issue 14", "Issue 16, item 2") says nothing to a
# user: user texts say the thing itself. Only NEWS.md, a changelog, may name the tracker's
# issues (its section headings "... (issue 15)"); it is exempt from this pattern alone.
ISSUE = re.compile(r"\bissues?\s+#?\d", re.IGNORECASE)


def _messages_of(path):
    """The string literals of a module that are not docstrings (messages, templates)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                       ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)
                  and isinstance(node.body[0].value.value, str)}
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings):
            yield node.lineno, node.value


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
    # before: "Numerical Optimization, 2nd ed., " then the sign and "3.1 (...)")
    book = re.compile(r"2nd ed\.,|foundations of differential privacy,")
    bare = [f"{path.relative_to(ROOT)}:{line}" for path, line, text in strings
            for sign in re.finditer("\u00a7", text)
            if not book.search(text[max(0, sign.start() - 120):sign.start()])]
    assert not bare


def test_no_issue_reference_in_python_messages():
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(PACKAGE.rglob("*.py"))
             for line, text in _messages_of(path) if ISSUE.search(text)]
    assert not found


def _public_objects():
    """The public modules (those of the Python site's API pages), their names and members."""
    modules = [dppack, dppack.sklearn]
    try:
        modules.append(importlib.import_module("dppack.dask"))
    except ImportError:  # the dask extra is not installed
        pass
    objects = list(modules)
    for module in modules:
        for name in module.__all__:
            obj = getattr(module, name)
            objects.append(obj)
            if inspect.isclass(obj):
                objects.extend(member for member_name, member in inspect.getmembers(obj)
                               if not member_name.startswith("_"))
    return objects


def _references_in_docstrings(objects):
    return [getattr(obj, "__qualname__", getattr(obj, "__name__", repr(obj))) for obj in objects
            if SPEC.search(inspect.getdoc(obj) or "") or ISSUE.search(inspect.getdoc(obj) or "")]


def test_no_spec_or_issue_reference_in_public_docstrings():
    assert not _references_in_docstrings(_public_objects())


def _references_in_r_help(root):
    """Spec and issue-tracker references in the Rd files and the roxygen lines, by line."""
    return [f"{path.relative_to(root)}:{number}"
            for folder, pattern in (("man", "*.Rd"), ("R", "*.R"))
            for path in sorted((root / folder).glob(pattern))
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if (folder == "man" or line.lstrip().startswith("#'"))
            and (SPEC.search(line) or ISSUE.search(line))]


def test_no_spec_reference_in_r_help_or_roxygen():
    assert not _references_in_r_help(ROOT)


def test_the_scans_see_a_planted_reference(tmp_path):
    # the patterns catch the forms the sources used
    for text in ("(spec \u00a76.1)", "Spec ``dppack_api.md`` \u00a72", "the spec below",
                 "spec ``stability_validation.md``", "our notes ``specs/exact_noise.md``"):
        assert SPEC.search(text), text
    module = tmp_path / "m.py"
    module.write_text('def f():\n    """Scale b (spec \u00a72.1)."""\n', encoding="utf-8")
    assert any(SPEC.search(text) for _, text in _strings(module))


# The other texts users read: NEWS.md (installed with the R package, the sites' news page), the
# README (the sites' home pages), DESCRIPTION and _pkgdown.yml (the R site's texts), the
# vignettes (installed, the pkgdown articles), the Python site's sources (the generated API
# pages come from the docstrings, scanned above) and the bundled demo scripts, comments
# included. Whole files, so that a reference broken over two lines ("(spec\n  " then the sign and
# "8.1)") is seen. The section sign is spelled \u00a7 here: the tests hold none (architecture/).
USER_TEXTS = ("NEWS.md", "README.md", "DESCRIPTION", "_pkgdown.yml", "vignettes/*.Rmd",
              "docs/**/*.md", "docs/**/*.rst", "docs/**/*.py", "docs/**/*.html",
              "pkgdown/*.md", "benchmarks/README.md", "man/*.Rd",
              "scripts/demo*.R", "scripts/demo*.py")


def _spec_references_in_user_texts(root):
    found = []
    for pattern in USER_TEXTS:
        for path in sorted(root.glob(pattern)):
            if "generated" in path.relative_to(root).parts:
                continue
            text = path.read_text(encoding="utf-8")
            matches = list(SPEC.finditer(text))
            if path.relative_to(root) != Path("NEWS.md"):  # a changelog may name issues
                matches += list(ISSUE.finditer(text))
            found += [f"{path.relative_to(root)}:{text.count(chr(10), 0, match.start()) + 1}"
                      for match in sorted(matches, key=lambda match: match.start())]
    return list(dict.fromkeys(found))  # a line once, however many references it holds


def test_no_spec_reference_in_news_readme_vignettes_docs_or_demos():
    assert not _spec_references_in_user_texts(ROOT)


@pytest.mark.parametrize("name", ["NEWS.md", "README.md", "DESCRIPTION", "_pkgdown.yml",
                                  "vignettes/intro.Rmd",
                                  "docs/tutorial.md", "docs/python/guide/models.rst",
                                  "docs/python/conf.py", "docs/python/_templates/base.html",
                                  "scripts/demo_x.R", "scripts/demo_x.py"])
def test_the_text_scan_sees_a_planted_reference(tmp_path, name):
    # one planted reference of each kind, in each kind of file, is reported at its line
    planted = {"NEWS.md": "(spec\n  \u00a78.1)", "README.md": "see `specs/exact_noise.md`",
               "vignettes/intro.Rmd": "as in `dppack_api.md`"}.get(name, "(spec \u00a72.1)")
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"Title\n\nA line {planted}.\n", encoding="utf-8")
    assert _spec_references_in_user_texts(tmp_path) == [f"{name}:3"]
    # the generated API pages are not read (their source, the docstrings, is)
    generated = tmp_path / "docs" / "python" / "api" / "generated" / "f.rst"
    generated.parent.mkdir(parents=True, exist_ok=True)
    generated.write_text("(spec \u00a72.1)\n", encoding="utf-8")
    assert _spec_references_in_user_texts(tmp_path) == [f"{name}:3"]


@pytest.mark.parametrize("name", ["README.md", "DESCRIPTION", "_pkgdown.yml",
                                  "vignettes/intro.Rmd", "docs/python/guide/models.rst",
                                  "docs/python/conf.py", "docs/python/_templates/base.html",
                                  "docs/tutorial.md", "scripts/demo_x.R", "scripts/demo_x.py"])
def test_the_text_scan_sees_a_planted_issue_reference_but_not_in_news(tmp_path, name):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("Title\n\nA line (see\n  Issue 14, item 5).\n", encoding="utf-8")
    assert _spec_references_in_user_texts(tmp_path) == [f"{name}:4"]
    # NEWS.md's section headings name the tracker's issues, and may
    (tmp_path / "NEWS.md").write_text("# 0.1.0\n\n## Data of any size (issue 14)\n",
                                      encoding="utf-8")
    assert _spec_references_in_user_texts(tmp_path) == [f"{name}:4"]


def test_the_issue_scans_see_a_planted_reference(tmp_path):
    for text in ("(issue 16)", "issue 12", "Issue 14 of DPpackPy", "issues 14 and 15",
                 "issue #3"):
        assert ISSUE.search(text), text
    for text in ("no issue here", "the issue's grid", "an issue: 14 values"):
        assert not ISSUE.search(text), text
    # a message (not a docstring) in a module
    module = tmp_path / "m.py"
    module.write_text('def f():\n    """Scale b."""\n    raise ValueError("as in issue 14")\n',
                      encoding="utf-8")
    assert [line for line, text in _messages_of(module) if ISSUE.search(text)] == [3]
    # a public docstring
    def public():
        """Dask (issue 14; ``dppack.dask._quantiles``)."""
    assert _references_in_docstrings([public, len]) == [public.__qualname__]
    # an Rd line and a roxygen line, not a plain comment
    (tmp_path / "man").mkdir()
    (tmp_path / "R").mkdir()
    (tmp_path / "man" / "f.Rd").write_text("\\references{\nIssue 14 of DPpackPy\n}\n",
                                           encoding="utf-8")
    (tmp_path / "R" / "f.R").write_text("# the tracker's issue 14\n#' @references issue 14\n",
                                        encoding="utf-8")
    assert _references_in_r_help(tmp_path) == ["man/f.Rd:2", "R/f.R:2"]


def test_messages_module_is_the_only_home_of_the_translation():
    # every raise of a message with an R spelling goes through dppack._messages: scan the
    # core's raise statements for a literal that the translation would change
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_messages.py" or path.parent.name == "sklearn":  # the sklearn package
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


# ---- values put into a message are never translated (review defect 1) ------------------------

R_LOOKING = "lower.bound run TRUE, eps.max NULL"


def test_an_accountant_label_reaches_python_verbatim():
    accountant = dppack.BudgetAccountant(1)
    with pytest.raises(ValueError) as raised:
        accountant.spend(dppack.PrivacyLoss.pure(2), R_LOOKING)
    assert f"on {R_LOOKING!r} would bring" in str(raised.value)
    # R reads the same label, in DPpack's spelling around it
    report = _rbridge.call_method(accountant, "spend", [dppack.PrivacyLoss.pure(2), R_LOOKING],
                                  {})
    assert f"on {R_LOOKING!r} would bring" in report["error"]
    assert report["error"] == _messages.r_text(raised.value)


def test_values_are_inserted_after_the_translation():
    # a column name, a path, a type name: whatever the value, both texts show it unchanged
    for value in (R_LOOKING, "data/TRUE.csv", "NULL", "eps.max", "{braces}"):
        error = _messages.value_error("Column {column!r} of lower.bound is not TRUE.",
                                      column=value)
        assert str(error) == f"Column {value!r} of lower_bound is not True."
        assert _messages.r_text(error) == f"Column {value!r} of lower.bound is not TRUE."
    error = _messages.type_error("x must be numeric, not {kind}.", kind="NULL.type")
    assert (str(error), _messages.r_text(error)) == ("x must be numeric, not NULL.type.",) * 2
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _messages.warn("Raise eps.max for {label}.", RuntimeWarning, label="eps.max")
    assert str(caught[0].message) == "Raise eps_max for eps.max."
    assert _messages.r_text(caught[0].message) == "Raise eps.max for eps.max."


def _run_time_names(node, bound):
    """The names an f-string reads in its {fields} that may hold a run-time value: every name
    but the code texts (_CODE_TEXT), constants (UPPER_CASE), builtins and the comprehension
    variables ``bound`` of the call."""
    names = set()
    for value in node.values:
        if isinstance(value, ast.FormattedValue):
            names.update(inner.id for inner in ast.walk(value.value)
                         if isinstance(inner, ast.Name) and inner.id not in bound
                         and inner.id not in _CODE_TEXT and inner.id not in dir(builtins)
                         and not re.fullmatch(r"_?[A-Z][A-Z0-9_]*", inner.id))
    return names


# The names an f-string template may read: the argument names and code texts the checks pass
# down (R-spelled, to be translated), never a value of the caller or of the run.
_CODE_TEXT = {"name", "lower_name", "upper_name", "switch", "context", "verb", "options",
              "optional", "count"}


def test_templates_read_no_run_time_value():
    # a translated message (value_error, type_error, warn, exception) built by an f-string may
    # read only code texts: a value goes in as a str.format field, after the translation
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "_messages.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "_messages"
                    and node.func.attr in ("value_error", "type_error", "warn", "exception")):
                continue
            template = node.args[1 if node.func.attr == "exception" else 0]
            bound = {target.id for inner in ast.walk(template)
                     if isinstance(inner, ast.comprehension)
                     for target in ast.walk(inner.target) if isinstance(target, ast.Name)}
            for inner in ast.walk(template):
                if isinstance(inner, ast.JoinedStr) and _run_time_names(inner, bound):
                    offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}: "
                                     f"{sorted(_run_time_names(inner, bound))}")
    assert not offenders


# ---- Python messages name the parameters of what was called (review defects 2 and 3) ---------

_XS = np.linspace(0.1, 2.9, 20)
_XM = np.column_stack([np.linspace(-0.9, 0.9, 20), np.cos(np.arange(20.0))])
_YB = (np.arange(20) % 2).astype(float)
_BALL = {"constraints": lambda c: np.dot(c, c) - 1.0, "jacobian": lambda c: 2.0 * np.asarray(c)}


def _logistic():
    return dppack.LogisticRegressionDP("l2", 1, 1)


def _fitted():
    return _logistic().fit(_XM, _YB, [1, 1], [-1, -1], random_state=1)


def _kst():
    return dppack.EmpiricalRiskMinimizationDP_KST(
        dppack.mapXy_linear, dppack.loss_squared_error, "l2", 1.0, 0.0, _BALL, 1.25, 0.5, 1.0,
        mapXy_gr=dppack.mapXy_gr_linear, loss_gr=dppack.loss_gr_squared_error)


def _cms(cls=dppack.EmpiricalRiskMinimizationDP_CMS):
    return cls(dppack.mapXy_sigmoid, dppack.loss_cross_entropy, "l2", 1, 1, "output",
               mapXy_gr=dppack.mapXy_gr_sigmoid, loss_gr=dppack.loss_gr_cross_entropy)


def _sklearn(cls, **fixed):
    """Construct ``cls`` with the keyword arguments and fit it: a scikit-learn estimator
    checks its parameters in fit."""
    def fit(**kwargs):
        return cls(**{**fixed, **kwargs}).fit(_XM, _YB)
    fit.__signature__ = inspect.signature(cls)
    return fit


# name: (a function returning what to call, valid positional args, valid keyword args). Every
# parameter of what is called is replaced in turn by each of _BAD_VALUES.
_D = dppack
VALID_CALLS = {
    "meanDP": (lambda: _D.meanDP, [_XS, 1, 0, 3], {}),
    "sdDP": (lambda: _D.sdDP, [_XS, 1, 0, 3], {"mechanism": "Gaussian", "delta": 0.01}),
    "varDP": (lambda: _D.varDP, [_XS, 1, 0, 3], {}),
    "covDP": (lambda: _D.covDP, [_XS, _XS, 1, 0, 3, 0, 3], {}),
    "histogramDP": (lambda: _D.histogramDP, [_XS, 1, 0, 3], {}),
    "tableDP": (lambda: _D.tableDP, [pd.Categorical(["a", "b", "a"])], {"eps": 1}),
    "pooledVarDP": (lambda: _D.pooledVarDP, [_XS, _XS],
                    {"eps": 1, "lower_bound": 0, "upper_bound": 3}),
    "pooledCovDP": (lambda: _D.pooledCovDP, [np.column_stack([_XS, _XS])] * 2,
                    {"eps": 1, "lower_bound1": 0, "upper_bound1": 3, "lower_bound2": 0,
                     "upper_bound2": 3}),
    "quantileDP": (lambda: _D.quantileDP, [_XS, 0.5, 1, 0, 3], {}),
    "medianDP": (lambda: _D.medianDP, [_XS, 1, 0, 3], {}),
    "quantilesDP": (lambda: _D.quantilesDP, [_XS, [0.25, 0.75], 1, 0, 3], {}),
    "boundsDP": (lambda: _D.boundsDP, [_XS, 1], {}),
    "meanDataAccess": (lambda: _D.meanDataAccess, [_XS, 0, 3], {}),
    "covDataAccess": (lambda: _D.covDataAccess, [_XS, _XS, 0, 3, 0, 3], {}),
    "quantileDataAccess": (lambda: _D.quantileDataAccess, [_XS, 0.5, 0, 3], {}),
    "histogramDataAccess": (lambda: _D.histogramDataAccess, [_XS, "Sturges", "Laplace"], {}),
    "pooledVarDataAccess": (lambda: _D.pooledVarDataAccess, [[_XS, _XS], 0, 3, False], {}),
    "LaplaceMechanism": (lambda: _D.LaplaceMechanism, [[1.0, 2.0], 1, [1.0, 1.0]], {}),
    "GaussianMechanism": (lambda: _D.GaussianMechanism, [[1.0, 2.0], 0.5, 0.01, [1.0, 1.0]],
                          {}),
    "ExponentialMechanism": (lambda: _D.ExponentialMechanism, [[1.0, 2.0, 3.0], 1, 1], {}),
    "calibrateAnalyticGaussianMechanism": (lambda: _D.calibrateAnalyticGaussianMechanism,
                                           [1, 0.01, 1], {}),
    "generate_loss_huber": (lambda: _D.generate_loss_huber, [0.5], {}),
    "generate_sampling": (lambda: _D.generate_sampling, [1.0], {}),
    "LogisticRegressionDP": (lambda: _D.LogisticRegressionDP, ["l2", 1, 1], {}),
    "svmDP": (lambda: _D.svmDP, ["l2", 1, 1], {}),
    "LinearRegressionDP": (lambda: _D.LinearRegressionDP, ["l2", 1, 0.1, 1], {}),
    "LogisticRegressionDP.fit": (lambda: _logistic().fit, [_XM, _YB, [1, 1], [-1, -1]], {}),
    "LogisticRegressionDP.predict": (lambda: _fitted().predict, [_XM], {}),
    "svmDP.fit": (lambda: _D.svmDP("l2", 1, 1, "output", "Gaussian", 5).fit,
                  [_XM, _YB, [1, 1], [-1, -1]], {}),
    "LinearRegressionDP.fit": (lambda: _D.LinearRegressionDP("l2", 1, 0.1, 1).fit,
                               [_XM, _YB, [1, 1, 1], [-1, -1, -1]], {}),
    "LinearRegressionAdaSSP": (lambda: _D.LinearRegressionAdaSSP, [1, 0.1], {}),
    "LinearRegressionAdaSSP.fit": (lambda: _D.LinearRegressionAdaSSP(1, 0.1).fit,
                                   [_XM, _YB, [1, 1, 1], [-1, -1, -1]], {}),
    "EmpiricalRiskMinimizationDP_CMS": (lambda: _D.EmpiricalRiskMinimizationDP_CMS,
                                        [_D.mapXy_sigmoid, _D.loss_cross_entropy, "l2", 1, 1],
                                        {}),
    "EmpiricalRiskMinimizationDP_CMS.fit": (lambda: _cms().fit,
                                            [_XM, _YB, [1, 1], [-1, -1]], {}),
    "WeightedERMDP_CMS.fit": (lambda: _cms(_D.WeightedERMDP_CMS).fit,
                              [_XM, _YB, [1, 1], [-1, -1]],
                              {"weights": np.ones(20), "weights_upper_bound": 1.0}),
    "EmpiricalRiskMinimizationDP_KST": (lambda: _D.EmpiricalRiskMinimizationDP_KST,
                                        [_D.mapXy_linear, _D.loss_squared_error, "l2", 1.0,
                                         0.0, _BALL, 1.25, 0.5, 1.0], {}),
    "EmpiricalRiskMinimizationDP_KST.fit": (lambda: _kst().fit,
                                            [_XM / 2, _YB, [0.5, 0.5, 1], [-0.5, -0.5, -1]],
                                            {}),
    "tune_classification_model": (lambda: _D.tune_classification_model,
                                  [[_logistic(), _logistic()], _XM, _YB, [1, 1], [-1, -1]], {}),
    "tune_linear_regression_model": (lambda: _D.tune_linear_regression_model,
                                     [[_D.LinearRegressionDP("l2", 1, 0.1, 1)], _XM, _YB,
                                      [1, 1, 1], [-1, -1, -1]], {}),
    "confintERM": (lambda: _D.confintERM, [_XM, _YB, [1, 1], [-1, -1], 1],
                   {"eps": 1, "n_draws": 20}),
    "confintDP": (lambda: _D.confintDP, [_fitted(), _XM, _YB, [1, 1], [-1, -1]],
                  {"n_draws": 20}),
    "OutputPerturbationAGM": (lambda: _D.OutputPerturbationAGM, ["logistic", 0.5, 1e-5, 1],
                              {}),
    "GradientPerturbationAGM": (lambda: _D.GradientPerturbationAGM,
                                ["logistic", 0.5, 1e-5, 1], {}),
    "OutputPerturbationAGM.fit": (lambda: _D.OutputPerturbationAGM("logistic", 0.5, 1e-5,
                                                                   1).fit,
                                  [_XM, _YB, [1, 1], [-1, -1]], {}),
    "privacy_level_grid": (lambda: _D.privacy_level_grid, [0.1, 1, 5], {}),
    "LaplaceNoiseReduction": (lambda: _D.LaplaceNoiseReduction, [[1.0], [0.5, 1], 1], {}),
    "GaussianNoiseReduction": (lambda: _D.GaussianNoiseReduction, [[1.0], [2.0, 1.0], 1], {}),
    "LaplaceNoiseReductionOnline.reduce": (
        lambda: _D.LaplaceNoiseReductionOnline([1.0], 0.5, 1, random_state=1).reduce, [1.0],
        {}),
    "InteractiveAboveThreshold": (lambda: _D.InteractiveAboveThreshold, [_XS, 1, 0.5, 1], {}),
    "above_threshold_calibration": (lambda: _D.above_threshold_calibration, [0.1, 0.1, 1, 5],
                                    {}),
    "accuracy_first_parameters": (lambda: _D.accuracy_first_parameters,
                                  ["ridge", 0.1, 1, 20, 2], {"n_levels": 5}),
    "accuracy_first_erm": (lambda: _D.accuracy_first_erm,
                           [_XM, _YB, "ridge", 0.5, 1, [1, 1, 1], [-1, -1, -1]],
                           {"n_levels": 5}),
    "doubling_erm": (lambda: _D.doubling_erm,
                     [_XM, _YB, "logistic", 0.5, 1, [1, 1], [-1, -1]], {}),
    "theory_erm": (lambda: _D.theory_erm, [_XM, _YB, "ridge", 0.5, 1, [1, 1, 1], [-1, -1, -1]],
                   {}),
    "advanced_composition_eps": (lambda: _D.advanced_composition_eps, [0.5, 3, 0.01], {}),
    "selection_privacy": (lambda: _D.selection_privacy, ["stability", 0.3, 0.1, 0.02], {}),
    "stability_constants_histogram": (lambda: _D.stability_constants_histogram,
                                      [0.01, 10000, 2000, 5, 1, 0.01], {}),
    "stability_constants_linear": (lambda: _D.stability_constants_linear,
                                   [0.001, 15216, 1902, 10, 10, 1, 0.01], {}),
    "stable_select": (lambda: _D.stable_select, [[0.1, 0.2], 1.0, 1.0], {}),
    "tune_classification_model_stable": (lambda: _D.tune_classification_model_stable,
                                         [[_logistic(), _logistic()], _XM, _YB, [1, 1],
                                          [-1, -1], 0.5], {}),
    "tune_histogram_bin_width_stable": (lambda: _D.tune_histogram_bin_width_stable,
                                        [np.linspace(0.01, 0.99, 200), [0.5, 0.25], 1, 1], {}),
    "BudgetAccountant": (lambda: _D.BudgetAccountant, [1, 0.01], {}),
    "BudgetAccountant.spend": (lambda: _D.BudgetAccountant(1, 0.01).spend,
                               [_D.PrivacyLoss.pure(0.1), "mean"], {}),
    "PrivacyLoss.approx": (lambda: _D.PrivacyLoss.approx, [0.5, 0.01], {}),
    "PrivacyLoss.to_approx": (lambda: _D.PrivacyLoss.zcdp(0.5).to_approx, [0.01], {}),
    "PrivacyLoss.advanced_composition": (
        lambda: _D.PrivacyLoss.pure(0.5).advanced_composition, [3, 0.01], {}),
    "sklearn.DPLogisticRegression": (
        lambda: _sklearn(dppack.sklearn.DPLogisticRegression), [], {"feature_bounds": (-1, 1)}),
    "sklearn.DPLinearSVC": (lambda: _sklearn(dppack.sklearn.DPLinearSVC), [],
                            {"feature_bounds": (-1, 1)}),
    "sklearn.DPSVC": (lambda: _sklearn(dppack.sklearn.DPSVC), [],
                      {"feature_bounds": (-1, 1), "D": 5}),
    "sklearn.DPLinearRegression": (lambda: _sklearn(dppack.sklearn.DPLinearRegression), [],
                                   {"feature_bounds": (-1, 1), "y_bounds": (-1, 1)}),
    "sklearn.DPLinearRegressionAdaSSP": (
        lambda: _sklearn(dppack.sklearn.DPLinearRegressionAdaSSP), [],
        {"feature_bounds": (-1, 1), "y_bounds": (-1, 1)}),
    "sklearn.DPModelSelector": (
        lambda: _sklearn(dppack.sklearn.DPModelSelector), [],
        {"estimators": [dppack.sklearn.DPLogisticRegression(feature_bounds=(-1, 1), gamma=g)
                        for g in (1, 5)]}),
    "tableDataAccess": (lambda: _D.tableDataAccess, [["a", "b", "a"]], {}),
    "varDataAccess": (lambda: _D.varDataAccess, [_XS, 0, 3], {}),
    "LaplaceNoiseReductionOnline": (lambda: _D.LaplaceNoiseReductionOnline, [[1.0], 0.5, 1],
                                    {}),
    "noiseIntervalDP": (lambda: _D.noiseIntervalDP, ["meanDP", 1],
                        {"lower_bound": 0, "upper_bound": 1, "n": 10}),
    "stability_selection_diagnosis": (lambda: _D.stability_selection_diagnosis,
                                      [[0.5, 5], 1000, 200, 2, 1, 0.5], {}),
    "above_threshold_failure": (lambda: _D.above_threshold_failure,
                                [0.1, -0.05, 0.01, 0.02, 10], {}),
    "laplace_test_calibration": (lambda: _D.laplace_test_calibration,
                                 [0.05, 0.1, 0.002, 24, "paper"], {}),
}

# Public names with no entry above, and why: each is called through another entry, or has
# no argument to check.
_NOT_CALLED = {
    "PrivacyLoss": "its constructors and methods have entries (PrivacyLoss.approx, ...)",
    "StableTrainer": "an abstract base; tune_classification_model_stable runs its subclass",
    "tune_stable": "with a trainer; tune_classification_model_stable calls it",
    "validate_stable": "with a trainer; tune_classification_model_stable calls it",
    "AccuracyFirstResult": "a result, made by the core",
    "NoiseInterval": "a result, made by the core",
    "StabilitySelectionDiagnosis": "a result, made by the core",
    "NearUniformSelectionWarning": "a warning class",
    "ConvergenceError": "an error class, raised by the fits",
    "BudgetExceededError": "an exception class, raised by the accountant",
    "pooledCovDataAccess": "the checks of pooledCovDP, which has an entry",
    "generate_loss_gr_huber": "the check of generate_loss_huber, which has an entry",
    **{name: "DPpack's arithmetic on the model's own arrays: nothing to check"
       for name in ("loss_cross_entropy", "loss_gr_cross_entropy", "loss_squared_error",
                    "loss_gr_squared_error", "mapXy_linear", "mapXy_gr_linear",
                    "mapXy_sigmoid", "mapXy_gr_sigmoid", "regularizer_l2",
                    "regularizer_gr_l2", "phi_gaussian")},
}
_BAD_VALUES = ("zz", -1.5, float("nan"))


def _parameters_of(function):
    """What a message may name: the parameters of ``function``; for a method, those of its
    class's constructor too (a fit checks the constructor's arguments again)."""
    signature = inspect.signature(function)
    names = set(signature.parameters)
    if any(p.kind == p.VAR_KEYWORD for p in signature.parameters.values()):
        # arguments passed on (noiseIntervalDP's, of the statistic named)
        names |= set().union(*(_messages._parameters(getattr(dppack, public))
                               for public in dppack.__all__))
    owner = getattr(function, "__self__", None)
    if owner is not None and not inspect.isclass(owner):
        names |= set(inspect.signature(type(owner)).parameters)
    return names


def _bad_call_messages():
    """(call, parameter, message) for every message (error or warning) of every bad call."""
    messages = []
    for case, (make, args, kwargs) in VALID_CALLS.items():
        signature = inspect.signature(make())
        valid = signature.bind(*args, **kwargs).arguments
        for name, parameter in signature.parameters.items():
            if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
                continue
            for bad in _BAD_VALUES:
                function = make()
                call = dict(valid, **{name: bad})
                positional = [call.pop(p) for p, q in signature.parameters.items()
                              if q.kind == q.VAR_POSITIONAL and p in call]
                for p, q in signature.parameters.items():
                    if q.kind == q.VAR_KEYWORD and p in call:
                        call.update(call.pop(p))
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    try:
                        function(*(positional[0] if positional else ()), **call)
                    except (ValueError, TypeError) as error:
                        messages.append((case, function, str(error)))
                messages.extend((case, function, str(w.message)) for w in caught)
    return messages


def _keyword_parameters():
    """{"lambda": "lambda_"}: the public parameters whose name is a Python keyword plus _."""
    names = set().union(*(_messages._parameters(getattr(dppack, name))
                          for name in dppack.__all__))
    return {name[:-1]: name for name in names
            if name.endswith("_") and keyword.iskeyword(name[:-1])}


_DOTTED_WORD = re.compile(r"(?<![\w.])[a-z]\w*(?:\.[A-Za-z]\w*)+(?![\w(])")
_SUBJECT = re.compile(r"(?:^|[.;:] )(?:Length of )?([A-Za-z]\w*)"
                      r"(?:,? and ([A-Za-z]\w*))?(?:, when [a-z ]+,)? must\b")
# dotted words a Python message may say: Python's own names, not R's arguments
_PYTHON_DOTTED = {"x.compute", "e.g", "i.e"}  # and the modules dppack.* and numpy.*


def _offences(text, parameters):
    """What in a Python message ``text`` is R's, or names an argument the call has not."""
    found = [word for word in re.findall(r"\b(?:TRUE|FALSE|NULL)\b", text)]
    found += [word for word in _DOTTED_WORD.findall(text)
              if word not in _PYTHON_DOTTED and not word.startswith(("dppack.", "numpy."))]
    found += ["'arg'"] * ("'arg'" in text)
    for stem, name in _keyword_parameters().items():
        formula_free = text
        for formula in _messages._FORMULAS:
            formula_free = formula_free.replace(formula, "")
        found += [stem] * bool(re.search(rf"(?<![\w.]){stem}(?!\w)", formula_free))
    for match in _SUBJECT.finditer(text):
        for word in filter(None, match.groups()):
            # the argument a sentence is about: a parameter of the call (a capital is the
            # sentence's: "Mechanism must be one of ...")
            if word not in parameters and word.lower() not in parameters and (
                    word[0].islower() or word == word.upper()):
                found.append(word)
    return found


def test_every_keyword_parameter_is_translated():
    # a public parameter named after a Python keyword (lambda_) is R's bare word (lambda)
    assert _messages._KEYWORDS == _keyword_parameters() == {"lambda": "lambda_"}


def test_the_offence_scan_sees_r_spellings_and_foreign_names():
    parameters = {"lambda_", "eps", "breaks", "lower_bound", "mechanism"}
    for text, offence in [("lambda must be a scalar > 0", "lambda"),
                          ("eps.max must be > 0.", "eps.max"),
                          ("eps must be < 1 unless analytic is TRUE.", "TRUE"),
                          ("'arg' should be one of 'sturges'", "'arg'"),
                          ("Length of sensitivities must be 1.", "sensitivities"),
                          ("zeta and lambda must be finite.", "zeta")]:
        assert offence in _offences(text, parameters), text
    for text in ("lambda_ must be > 0; see x.compute() and numpy.random.Generator.",
                 "step_size must be <= 1 (1/(beta + lambda), or 1/beta when gamma = 0).",
                 "Every sample must contain at least two values.",
                 "Mechanism must be one of 'Laplace'.",
                 "breaks, when a string, must be one of 'Sturges'."):
        assert not _offences(text, parameters | {"step_size"}), text


def test_every_public_name_is_called_with_bad_arguments():
    called = {case.split(".")[1] if case.startswith("sklearn.") else case.split(".")[0]
              for case in VALID_CALLS}
    public = set(dppack.__all__) | set(dppack.sklearn.__all__)
    assert public - called - set(_NOT_CALLED) == set()
    assert set(_NOT_CALLED) <= public


def test_python_messages_name_the_callers_parameters():
    # every argument-validation message of the public API, triggered by replacing each
    # parameter of a valid call in turn by a bad value
    messages = _bad_call_messages()
    assert len(messages) > 1000 and len({case for case, _, _ in messages}) == len(VALID_CALLS)
    found = {(case, text, tuple(offences)) for case, function, text in messages
             if (offences := _offences(text, _parameters_of(function)))}
    assert not found, "\n".join(map(str, sorted(found)))
