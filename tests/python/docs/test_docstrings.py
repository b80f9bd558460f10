"""Every public function and class of dppack has a numpy-style docstring with the sections a
user needs, and an Examples section that runs as a doctest (``make test`` runs the doctests,
with ``pytest --doctest-modules python/dppack``, under NumPy 1 and NumPy 2).

"Public" is: every name in the ``__all__`` of ``dppack`` and of each of its modules and
subpackages whose dotted path has no component starting with an underscore. Constants (names
bound to neither a function nor a class, e.g. ``accounting.UNCHARGED``) are documented in their
module's docstring and are not checked here.

Required sections (the numpy docstring standard,
https://numpydoc.readthedocs.io/en/latest/format.html):

* Parameters: functions with at least one parameter, classes whose constructor takes one;
  every parameter of the signature is named in it;
* Returns or Yields (functions), Attributes (classes);
* Raises: functions whose own body has a ``raise`` statement (a lower bound: a function that
  raises through a helper should have it too, which review, not this test, checks);
* References where a paper is the source: required on every release (``RELEASES``: the names
  of ``dppack.__all__`` but ``release_cases.NON_RELEASES``, which draw noise or are models,
  and the estimators of ``dppack.sklearn``), allowed elsewhere; a helper that is not a release
  needs none (a References section citing only DPpack's manual is filler there);
* Examples, with at least one ``>>>`` line.

The checks are deterministic: no false failures.
"""

import dis
import importlib
import inspect
import pkgutil
import re

import pytest

import dppack
import dppack.sklearn
import release_cases

SECTION = re.compile(r"^([A-Z][A-Za-z ]+)\n-{3,}\s*$", re.M)


def _public_modules():
    names = ["dppack"]
    for info in pkgutil.walk_packages(dppack.__path__, prefix="dppack."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    return sorted(names)


def _public_objects():
    """(qualified name, object) for every function and class in a public ``__all__``, once."""
    found = {}
    for module_name in _public_modules():
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            key = f"{obj.__module__}.{obj.__qualname__}"
            found.setdefault(key, obj)
    return sorted(found.items())


PUBLIC = _public_objects()


def _key(obj):
    return f"{obj.__module__}.{obj.__qualname__}"


# The releases, which must cite their source: every name of dppack.__all__ that draws noise or
# is a model (release_cases covers each of them bit for bit), and the scikit-learn estimators.
RELEASES = frozenset(
    [_key(getattr(dppack, name)) for name in dppack.__all__
     if name not in release_cases.NON_RELEASES]
    + [_key(getattr(dppack.sklearn, name)) for name in dppack.sklearn.__all__])


def sections(doc):
    """The numpy-style section titles of a docstring, mapped to their text."""
    doc = inspect.cleandoc(doc or "")
    heads = list(SECTION.finditer(doc))
    out = {}
    for i, head in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(doc)
        out[head.group(1).strip()] = doc[head.end():end]
    return out


def _documented_names(text):
    """The names on the header lines of a Parameters section: the unindented lines, before
    " : type", comma-separated (``x1, x2 : array_like``, ``*args, **kwargs``); a header may
    continue on the next unindented line after a trailing comma."""
    names = set()
    for line in text.splitlines():
        if not line.strip() or line[0].isspace():
            continue
        head = line.split(" :")[0].rstrip(":").strip()
        names.update(part.strip().lstrip("*") for part in head.split(",") if part.strip())
    return names


def _signature_parameters(obj):
    target = obj.__init__ if inspect.isclass(obj) else obj
    if inspect.isclass(obj) and target is object.__init__:
        return []
    try:
        signature = inspect.signature(target)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return []
    names = []
    for parameter in signature.parameters.values():
        if parameter.name in ("self", "cls"):
            continue
        prefix = {inspect.Parameter.VAR_POSITIONAL: "*",
                  inspect.Parameter.VAR_KEYWORD: "**"}.get(parameter.kind, "")
        names.append(prefix + parameter.name)
    return names


def _raises_directly(function):
    """True when the function's own code (not a nested function's) has a raise statement:
    read from its bytecode, so that it holds whatever the source file holds now."""
    code = inspect.unwrap(function).__code__
    return any(instruction.opname == "RAISE_VARARGS"
               for instruction in dis.get_instructions(code))


def missing_sections(obj, release=False):
    """The list of problems of one public object's docstring (empty when it is complete); a
    ``release`` must have References."""
    found = sections(obj.__doc__)  # its own docstring: a class inherits none here
    problems = []
    parameters = _signature_parameters(obj)
    if parameters:
        if "Parameters" not in found:
            problems.append("no Parameters section")
        else:
            documented = _documented_names(found["Parameters"])
            for name in parameters:
                if name.lstrip("*") not in documented:
                    problems.append(f"parameter {name} not in Parameters")
    if inspect.isclass(obj):
        if "Attributes" not in found:
            problems.append("no Attributes section")
    else:
        if "Returns" not in found and "Yields" not in found:
            problems.append("no Returns/Yields section")
        if _raises_directly(obj) and "Raises" not in found:
            problems.append("raises but has no Raises section")
    if release and "References" not in found:
        problems.append("no References section")
    if "Examples" not in found:
        problems.append("no Examples section")
    elif ">>>" not in found["Examples"]:
        problems.append("Examples has no >>> line")
    return problems


def test_the_walk_finds_every_public_module_and_name():
    modules = _public_modules()
    for expected in ("dppack.accounting", "dppack.mechanisms", "dppack.stats",
                     "dppack.data_access", "dppack.rcompat", "dppack.tuning", "dppack.datasets",
                     "dppack.sklearn", "dppack.erm.blocks", "dppack.erm.cms", "dppack.erm.kst",
                     "dppack.erm.models", "dppack.confidence_intervals.erm",
                     "dppack.model_selection.stability", "dppack.accuracy_first.erm",
                     "dppack.analytic_gaussian_erm.models"):
        assert expected in modules
    assert not any("._" in name for name in modules)
    names = {key.rsplit(".", 1)[-1] for key, _ in PUBLIC}
    assert set(n for n in dppack.__all__) <= names | {"UNCHARGED"}
    assert len(PUBLIC) > 100


def test_the_releases_are_the_noisy_names_and_the_models():
    assert RELEASES <= {key for key, _ in PUBLIC}
    for name in ("meanDP", "LaplaceMechanism", "ExponentialMechanism", "LogisticRegressionDP",
                 "svmDP", "LinearRegressionDP", "OutputPerturbationAGM", "confintERM"):
        assert _key(getattr(dppack, name)) in RELEASES, name
    assert _key(dppack.sklearn.DPLogisticRegression) in RELEASES
    for helper in (dppack.PrivacyLoss, dppack.BudgetAccountant, dppack.erm._design.apply_design):
        assert _key(helper) not in RELEASES
    assert len(RELEASES) >= 70


@pytest.mark.parametrize("key,obj", PUBLIC, ids=[key for key, _ in PUBLIC])
def test_public_docstring_has_numpy_sections(key, obj):
    problems = missing_sections(obj, release=key in RELEASES)
    assert not problems, f"{key}: " + "; ".join(problems)


def test_the_check_catches_each_missing_section():
    # One complete docstring, then the same with each section taken out in turn.
    def full(a, b=1):
        """Add.

        Parameters
        ----------
        a, b : float

        Returns
        -------
        float

        Raises
        ------
        ValueError
            If ``a`` is negative.

        References
        ----------
        Nobody (2026).

        Examples
        --------
        >>> full(1)
        2
        """
        if a < 0:
            raise ValueError("a")
        return a + b

    assert missing_sections(full, release=True) == []
    template = full.__doc__
    for title in ("Parameters", "Returns", "Raises", "References", "Examples"):
        pattern = re.compile(r"\n\s*%s\n\s*-+\n.*?(?=\n\s*\n\s*[A-Z][a-z]+\n\s*-|\Z)" % title,
                             re.S)
        full.__doc__ = pattern.sub("", template)
        assert title not in full.__doc__
        assert missing_sections(full, release=True), title
        # References are required of a release only
        assert bool(missing_sections(full)) == (title != "References"), title
    full.__doc__ = template.replace(">>> full(1)", "full(1)")
    assert missing_sections(full) == ["Examples has no >>> line"]
    full.__doc__ = template.replace("a, b : float", "a : float")
    assert missing_sections(full) == ["parameter b not in Parameters"]
    # a name in a description is not a parameter's entry
    full.__doc__ = template.replace("a, b : float", "a : float\n            Added to b.")
    assert missing_sections(full) == ["parameter b not in Parameters"]
    full.__doc__ = template

    class Thing:
        """A thing.

        Parameters
        ----------
        x : int

        References
        ----------
        Nobody (2026).

        Examples
        --------
        >>> Thing(1).x
        1
        """

        def __init__(self, x):
            self.x = x

    assert missing_sections(Thing) == ["no Attributes section"]


def free_names(doc):
    """The names an Examples section uses without defining or importing them: a reader who
    pastes the example into a fresh session meets a NameError on each (doctests run in the
    module's namespace, so they would not fail). Builtins are defined; the analysis is
    static (``ast``), one namespace for the whole example."""
    import ast
    import builtins
    import doctest

    source = "\n".join(example.source for example in
                       doctest.DocTestParser().get_examples(inspect.cleandoc(doc or "")))
    try:
        tree = ast.parse(source)
    except SyntaxError:  # pragma: no cover - a doctest that does not parse fails anyway
        return set()
    defined, used = set(dir(builtins)), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else defined).add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            defined.add(node.name)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            defined.add(node.name)
    return used - defined


@pytest.mark.parametrize("key, obj", PUBLIC, ids=[key for key, _ in PUBLIC])
def test_public_examples_run_when_pasted(key, obj):
    # every name an example uses is imported or defined in it (issue: a docstring example's
    # bare meanDP failed when pasted)
    docs = [obj.__doc__] + ([member.__doc__ for _, member in inspect.getmembers(obj)
                             if inspect.isfunction(member) and member.__doc__
                             and member.__qualname__.startswith(obj.__qualname__ + ".")]
                            if inspect.isclass(obj) else [])
    assert set().union(*(free_names(doc) for doc in docs)) == set()


def test_the_pasting_check_catches_a_bare_name():
    assert free_names(">>> import numpy as np\n>>> meanDP(np.ones(3), 1, 0, 1)\n") == {"meanDP"}
    assert free_names(">>> from dppack import meanDP\n>>> x = [1]\n>>> meanDP(x, 1, 0, 1)\n"
                      ">>> [y for y in x]\n[1]\n") == set()
