"""The Python documentation site (docs/python/, built by ``make docs-python``) is complete and
its examples run.

* Every public name has a page: each name of ``dppack.__all__``, ``dppack.sklearn.__all__``,
  ``dppack.dask.__all__``, ``dppack.accounting.__all__`` and ``dppack.datasets.__all__`` is
  listed in an ``autosummary`` table of docs/python/api/index.rst, from which Sphinx generates
  one page per name (a listed name that does not exist fails the build).
* The user guide's examples (the ``>>>`` blocks of docs/python/index.rst and
  docs/python/guide/*.rst) run as doctests, here under NumPy 1 and in ``make
  test-python-numpy2`` under NumPy 2, so they cannot rot. The guide's page on data beyond
  memory is docs/larger-than-memory.md, run by test_tutorial_larger_than_memory.py.
* That the site builds without a warning (nitpicky) is checked by ``make docs-python``
  (``sphinx-build -W --keep-going -n``), part of ``make test``.

Deterministic (the examples fix their seeds): no false failures.
"""

import doctest
import importlib
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "python"
API_INDEX = DOCS / "api" / "index.rst"
GUIDE_PAGES = [DOCS / "index.rst", *sorted((DOCS / "guide").glob("*.rst"))]
DOCUMENTED_MODULES = ["dppack", "dppack.sklearn", "dppack.dask", "dppack.accounting",
                      "dppack.datasets"]


def autosummary_names(text):
    """The qualified names listed in the autosummary tables of an .rst text, in order, each
    prefixed with the ``currentmodule`` in force."""
    names, module, in_table = [], None, False
    for line in text.splitlines():
        current = re.match(r"\.\. currentmodule:: (\S+)", line)
        if current:
            module, in_table = current.group(1), False
        elif line.startswith(".. autosummary::"):
            in_table = True
        elif in_table and re.match(r"   [A-Za-z_][\w.]*$", line):
            names.append(f"{module}.{line.strip()}")
        elif in_table and line and not line.startswith(" "):
            in_table = False
    return names


def test_autosummary_names_are_read_with_their_module():
    text = (".. currentmodule:: a\n\n.. autosummary::\n   :toctree: generated\n\n   f\n   G\n\n"
            "Text\n   indented prose\n\n.. currentmodule:: a.b\n\n.. autosummary::\n\n   h\n")
    assert autosummary_names(text) == ["a.f", "a.G", "a.b.h"]


def _lookup(qualified_name):
    module_name, _, name = qualified_name.rpartition(".")
    return getattr(importlib.import_module(module_name), name)


def test_every_public_name_has_an_api_page():
    pytest.importorskip("sklearn")
    pytest.importorskip("dask")
    listed = autosummary_names(API_INDEX.read_text(encoding="utf-8"))
    assert len(listed) == len(set(listed)), "a name is listed twice"
    # a re-exported name (dppack.PrivacyLoss is dppack.accounting.PrivacyLoss) has one page
    documented = {id(_lookup(name)) for name in listed}
    missing = [f"{module_name}.{name}" for module_name in DOCUMENTED_MODULES
               for name in importlib.import_module(module_name).__all__
               if id(_lookup(f"{module_name}.{name}")) not in documented]
    assert not missing, f"public names without an API page in {API_INDEX}: {missing}"


@pytest.mark.parametrize("page", GUIDE_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_user_guide_examples_run(page):
    if "sklearn" in page.read_text(encoding="utf-8"):
        pytest.importorskip("sklearn")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(page.read_text(encoding="utf-8"), {}, page.name, str(page), 0)
    assert test.examples, f"{page} has no example"
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
