"""The Python documentation site (docs/python/, built by ``make docs-python``) is complete and
its examples run.

* Every public name has a page: each name of ``dppack.__all__``, ``dppack.sklearn.__all__``,
  ``dppack.dask.__all__``, ``dppack.accounting.__all__`` and ``dppack.datasets.__all__`` is
  listed in an ``autosummary`` table of docs/python/api/index.rst, from which Sphinx generates
  one page per name (a listed name that does not exist fails the build).
* The user guide's examples (the ``>>>`` blocks of docs/python/index.rst and
  docs/python/guide/**/*.rst) run as doctests, and their ``.. code-block:: python`` blocks as
  scripts, here under NumPy 1 and in ``make test-python-numpy2`` under NumPy 2, so they
  cannot rot. Every page has an example, except the install page (shell commands). The
  guide's page on data beyond memory is docs/larger-than-memory.md, run by
  test_tutorial_larger_than_memory.py.
* The home page's example fits the page (short lines), the Differences page is the changelog's
  list (included from NEWS.md between its markers, as the R site's article reads it), and the
  two sites link each other by relative links that resolve in the ``build/docs/`` tree the
  Makefile (Sphinx) and _pkgdown.yml (pkgdown) write.
* That the site builds without a warning (nitpicky) is checked by ``make docs-python``
  (``sphinx-build -W --keep-going -n``), part of ``make test``.

Deterministic (the examples fix their seeds): no false failures.
"""

import doctest
import importlib
import re
import textwrap
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[3] / "docs" / "python"
API_INDEX = DOCS / "api" / "index.rst"
ROOT = DOCS.parents[1]
GUIDE_PAGES = [DOCS / "index.rst", *sorted((DOCS / "guide").glob("**/*.rst"))]
#: pages of shell commands only, without a Python example
NO_EXAMPLE = {"install.rst"}
CODE_BLOCK = re.compile(r"^\.\. code(?:-block)?:: python\n((?:[ \t]*:[^\n]*\n)*)\n"
                        r"((?:(?:[ \t]+[^\n]*)?\n)+)", re.MULTILINE)
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


def python_code_blocks(text):
    """The ``.. code-block:: python`` (or ``.. code:: python``) blocks of an .rst text,
    dedented, as (line number, code) pairs."""
    return [(text.count("\n", 0, match.start()) + 1, textwrap.dedent(match.group(2)))
            for match in CODE_BLOCK.finditer(text)]


def test_python_code_blocks_are_read():
    text = ("Intro\n\n.. code-block:: python\n   :caption: x\n\n   a = 1\n\n   b = a\n"
            "Text\n\n.. code-block:: sh\n\n   make\n\n.. code:: python\n\n   c = 2\n")
    assert python_code_blocks(text) == [(3, "a = 1\n\nb = a\n"), (15, "c = 2\n")]


@pytest.mark.parametrize("page", GUIDE_PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_user_guide_examples_run(page):
    text = page.read_text(encoding="utf-8")
    if "sklearn" in text:
        pytest.importorskip("sklearn")
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, {}, page.name, str(page), 0)
    blocks = python_code_blocks(text)
    assert test.examples or blocks or page.name in NO_EXAMPLE, f"{page} has no example"
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = []
    runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
    for line, code in blocks:  # each block a script of its own, self-contained
        exec(compile(code, f"{page.name}:{line}", "exec"), {"__name__": "__docs__"})


def test_the_home_page_example_fits_the_page():
    text = (DOCS / "index.rst").read_text(encoding="utf-8")
    examples = [line for line in text.splitlines() if line.startswith((">>>", "..."))]
    assert 3 <= len(examples) <= 10
    assert max(map(len, examples)) <= 72  # furo's code column shows about 80 characters


def _between(text, name):
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    assert text.count(start) == 1 and text.count(end) == 1, name
    return text[text.index(start) + len(start):text.index(end)]


def test_the_differences_page_is_the_changelogs_list_in_both_sites():
    news = (ROOT / "NEWS.md").read_text(encoding="utf-8")
    for name in ("differences", "fixes"):
        bullets = [line for line in _between(news, name).splitlines() if line.startswith("* ")]
        assert len(bullets) >= 3, name
    page = (DOCS / "guide" / "differences.md").read_text(encoding="utf-8")
    for name in ("differences", "fixes"):
        assert (f"```{{include}} ../../../NEWS.md\n:start-after: <!-- {name}:start -->\n"
                f":end-before: <!-- {name}:end -->\n```") in page
    assert "guide/differences" in (DOCS / "index.rst").read_text(encoding="utf-8")
    vignette = (ROOT / "vignettes" / "differences-from-dppack.Rmd").read_text(encoding="utf-8")
    assert '"../NEWS.md"' in vignette and 'block("differences")' in vignette
    assert 'block("fixes")' in vignette
    assert "- differences-from-dppack" in (ROOT / "_pkgdown.yml").read_text(encoding="utf-8")


def _site_dirs():
    """The directories of the two built sites, as the Makefile and _pkgdown.yml write them."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    python = re.search(r"-m sphinx .* docs/python (\S+)$", makefile, re.MULTILINE).group(1)
    r = re.search(r"^destination: (\S+)$", (ROOT / "_pkgdown.yml").read_text(encoding="utf-8"),
                  re.MULTILINE).group(1)
    return ROOT / python, ROOT / r


def test_the_two_sites_link_each_other():
    python_site, r_site = _site_dirs()
    index = (DOCS / "index.rst").read_text(encoding="utf-8")
    to_r = re.search(r"<(\.\./[^>]*r[^>]*index\.html)>`_", index).group(1)
    assert (python_site / to_r).resolve() == (r_site / "index.html").resolve()
    assert ":doc:`guide/install`" in index  # the install page (docs/python/guide/install.rst)
    assert (DOCS / "guide" / "install.rst").exists()
    home = (ROOT / "pkgdown" / "index.md").read_text(encoding="utf-8")
    to_python = re.search(r"\]\((\.\./[^)]*index\.html)\)", home).group(1)
    assert (r_site / to_python).resolve() == (python_site / "index.html").resolve()
    assert "](articles/get-started.html#install)" in home  # its install section
    assert "](news/index.html)" in home
    # where the sites are built, the links lead to their pages
    for site, link, target in ((python_site, to_r, r_site), (r_site, to_python, python_site)):
        if (site / "index.html").exists() and (target / "index.html").exists():
            assert link in (site / "index.html").read_text(encoding="utf-8")


def test_the_site_builds_without_dask_and_the_docs_extra_is_complete(monkeypatch):
    # conf.py mocks Dask for autodoc when it is missing (the docs extra does not bring it)...
    pytest.importorskip("sphinx")  # the NumPy 2 environment has no docs extra
    import importlib.util
    real = importlib.util.find_spec
    def find_spec(name, *args):
        return None if name in ("dask", "distributed") else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    config = {"__file__": str(DOCS / "conf.py")}
    exec(compile((DOCS / "conf.py").read_text(encoding="utf-8"), "conf.py", "exec"), config)
    assert config["autodoc_mock_imports"] == ["dask", "distributed"]
    # ... and the docs extra holds what the build imports: Sphinx, its extensions and theme,
    # and scikit-learn, whose base classes the estimators' pages need
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    extra = re.search(r"^docs = \[(.*)\]$", pyproject, re.MULTILINE).group(1)
    for requirement in ("sphinx", "numpydoc", "furo", "myst-parser", "scikit-learn"):
        assert f'"{requirement}>=' in extra, requirement
    extensions = {name.split(".")[0] for name in config["extensions"]}
    assert extensions <= {"sphinx", "numpydoc", "myst_parser"}
    assert config["html_theme"] == "furo"
