"""Sphinx configuration of dppack's Python documentation (built by ``make docs-python``).

The site is built warning-free and nitpicky (``sphinx-build -W --keep-going -n``): every
cross-reference to a dppack name must resolve. References to other projects (NumPy, pandas,
scikit-learn, Dask, the standard library) cannot be checked offline (no intersphinx inventory is
fetched), so they are listed in ``nitpick_ignore_regex`` and render as plain text.
"""

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "python"))

import dppack  # noqa: E402
from sphinx.util.nodes import make_refnode  # noqa: E402

project = "dppack"
author = "The DPpackPy authors"
copyright = "2026, the DPpackPy authors (GPL-3.0-or-later)"
release = dppack.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build"]
# the stubs of the API reference, one page per public name, written at build time
autosummary_generate = True
autosummary_generate_overwrite = True
autosummary_imported_members = False
autodoc_default_options = {"members": False}
autodoc_typehints = "none"
# The site builds with only the ``docs`` extra installed (``pip install 'dppack[docs]'``):
# Dask, which ``dppack.dask`` imports when it is loaded, is mocked when it is missing (only
# Dask: a mocked pyarrow or polars would look installed to pandas, which imports them
# optionally; dppack imports those two only when given their data). scikit-learn is part of
# the ``docs`` extra: the estimators' pages need its base classes.
autodoc_mock_imports = [name for name in ("dask", "distributed")
                        if importlib.util.find_spec(name) is None]

# numpydoc renders the docstrings; the class template lists the public methods itself, so
# numpydoc's own member tables (which would need a stub page per method) are off.
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

myst_heading_anchors = 3

# Nitpicky: dppack's own references must resolve; other projects' names are plain text here.
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|pandas|pd|scipy|sklearn|dask|distributed|polars|pyarrow|narwhals|matplotlib)(\..*)?"),
    (r"py:.*", r"(int|float|str|bool|list|tuple|dict|callable|object|None|Generator|RandomState|Path)"),
]



def _resolve_reexported(app, env, node, contnode):
    """Resolve a reference to a name dppack re-exports (``PrivacyLoss.compose`` written in
    ``dppack.accounting``) to its page under ``dppack`` (``dppack.PrivacyLoss.compose``)."""
    if node.get("refdomain") != "py":
        return None
    objects = env.get_domain("py").objects
    target = node["reftarget"].lstrip(".~")
    parts = target.split(".")
    candidates = [".".join(["dppack", *parts[i:]]) for i in range(len(parts))]
    if node.get("py:class"):
        candidates.append(f"dppack.{node['py:class']}.{target}")
    found = [name for name in candidates if name in objects]
    if not found:  # a method named from its class's page (``to_zcdp``): a unique match only
        found = [name for name in objects if name.endswith("." + target)]
        found = found if len(found) == 1 else []
    if not found:
        return None
    entry = objects[found[0]]
    return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id, contnode,
                        found[0])


def setup(app):
    app.connect("missing-reference", _resolve_reexported)


html_theme = "furo"
html_title = f"dppack {release}"
html_static_path = []
html_show_sourcelink = False
