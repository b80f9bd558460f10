"""Every name in the ``__all__`` of a public module of dppack is documented API (issue 27,
item 3): it is listed in an ``autosummary`` table of docs/python/api/index.rst, under the
module that defines it or under a public module re-exporting it, so Sphinx gives it a page.

A module is public when no component of its dotted path starts with ``_``. Implementation
helpers live in private modules (``_name.py``), where ``__all__`` is not checked. A module's
``__all__`` is read by importing it; where importing needs an optional package (Dask), from
its source (``ast``: literal lists and ``__all__ += <a submodule's __all__>``). Where a name
is defined is read from the source: top-level ``def``/``class``/assignments, ``from .x import
name`` and ``from .x import *`` followed to the module that binds the name.

Deterministic: no false failures.
"""

import ast
import importlib
import pathlib
import textwrap

from test_docs_site import API_INDEX, autosummary_names

PACKAGE = pathlib.Path(__file__).resolve().parents[3] / "python" / "dppack"


class Package:
    """The modules of a package directory, read from the source."""

    def __init__(self, root):
        self.root = pathlib.Path(root)
        self.paths = {}
        for path in sorted(self.root.rglob("*.py")):
            parts = list(path.relative_to(self.root.parent).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            self.paths[".".join(parts)] = path
        self._trees = {}

    def tree(self, module):
        if module not in self._trees:
            self._trees[module] = ast.parse(self.paths[module].read_text(encoding="utf-8"))
        return self._trees[module]

    def _base(self, module, node):
        """The absolute module of ``from <dots><target> import ...`` in ``module``."""
        if not node.level:
            return node.module or ""
        parts = module.split(".")
        if self.paths[module].name != "__init__.py":
            parts.pop()
        parts = parts[:len(parts) - (node.level - 1)]
        return ".".join(parts + ([node.module] if node.module else []))

    def _statements(self, module):
        """The top-level statements, with the bodies of top-level ``try``/``if`` blocks."""
        for node in self.tree(module).body:
            if isinstance(node, (ast.Try, ast.If)):
                yield from (n for block in (node.body, getattr(node, "orelse", []))
                            for n in block)
            else:
                yield node

    def exported(self, module):
        """The module's ``__all__``: imported, or read from the source if importing fails."""
        try:
            return list(importlib.import_module(module).__all__)
        except ImportError:
            pass
        names = []
        for node in self._statements(module):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target] if isinstance(node, ast.AugAssign) else [])
            if not any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                continue
            if isinstance(node.value, (ast.List, ast.Tuple)):
                names += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
            elif isinstance(node.value, ast.Name):  # __all__ += <from .x import __all__ as y>
                source, name = self.binding(module, node.value.id)
                if name == "__all__":
                    names += self.exported(source)
        return names

    def binding(self, module, name, depth=0):
        """``(module, name)`` where ``module.name`` is defined (``name`` is ``None`` for a
        submodule); names from outside the package are their own definition."""
        if module not in self.paths or depth > 50:
            return module, name
        found = None
        for node in self._statements(module):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if node.name == name:
                    found = (module, name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    found = (module, name)
            elif isinstance(node, ast.ImportFrom):
                base = self._base(module, node)
                for alias in node.names:
                    if alias.name == "*":
                        if base in self.paths and name in self.exported(base):
                            found = self.binding(base, name, depth + 1)
                    elif (alias.asname or alias.name) == name:
                        if f"{base}.{alias.name}" in self.paths:
                            found = (f"{base}.{alias.name}", None)
                        else:
                            found = self.binding(base, alias.name, depth + 1)
        if found is None and f"{module}.{name}" in self.paths:
            found = (f"{module}.{name}", None)
        return found or (module, name)


def undocumented(package, listed):
    """``module.name`` of each name in a public module's ``__all__`` that no listed
    (autosummary) name documents."""
    pages = {package.binding(*name.rsplit(".", 1)) for name in listed}
    missing = []
    for module in package.paths:
        if any(part.startswith("_") for part in module.split(".")):
            continue
        for name in package.exported(module):
            if package.binding(module, name) not in pages:
                missing.append(f"{module}.{name}")
    return missing


def test_every_name_in_a_public_all_has_an_api_page():
    listed = autosummary_names(API_INDEX.read_text(encoding="utf-8"))
    missing = undocumented(Package(PACKAGE), listed)
    assert not missing, (f"{len(missing)} names in the __all__ of public modules have no page "
                         f"in {API_INDEX} (document them there if they are API, else move them "
                         "to a private module or drop them from __all__):\n" + "\n".join(missing))


def test_planted_case_fails(tmp_path, monkeypatch):
    package = tmp_path / "plantpkg"
    (package / "sub").mkdir(parents=True)
    (package / "_private").mkdir()
    (package / "lazy").mkdir()
    files = {
        "__init__.py": "from .sub import *\nfrom .sub import api\n"
                       "__all__ = ['release', 'Model']\n",
        "sub/__init__.py": "from .api import *\nfrom .api import __all__\n",
        "sub/api.py": "from ._impl import helper\n__all__ = ['release', 'Model', 'helper', "
                      "'CONSTANT']\nCONSTANT = 1\ndef release(): pass\nclass Model: pass\n",
        "sub/_impl.py": "__all__ = ['helper', 'hidden']\ndef helper(): pass\n"
                        "def hidden(): pass\n",
        "_private/__init__.py": "__all__ = ['tool']\ndef tool(): pass\n",
        # importing needs a package that is not installed: read from the source
        "lazy/__init__.py": "import not_installed_optional_dependency\n__all__ = []\n"
                            "from .reader import *\nfrom .reader import __all__ as _r\n"
                            "__all__ += _r\n",
        "lazy/reader.py": "__all__ = ['reader', 'schema']\ndef reader(): pass\n"
                          "def schema(): pass\n",
    }
    for name, text in files.items():
        (package / name).write_text(textwrap.dedent(text))
    monkeypatch.syspath_prepend(str(tmp_path))
    found = Package(package)
    assert found.exported("plantpkg.lazy") == ["reader", "schema"]
    assert found.binding("plantpkg", "release") == ("plantpkg.sub.api", "release")
    assert found.binding("plantpkg", "api") == ("plantpkg.sub.api", None)
    # the page of plantpkg.release documents plantpkg.sub.api.release (re-exported); the
    # page of plantpkg.lazy.reader documents plantpkg.lazy.reader.reader; private modules
    # (plantpkg.sub._impl, plantpkg._private) are not checked
    listed = ["plantpkg.release", "plantpkg.Model", "plantpkg.lazy.reader"]
    assert sorted(undocumented(found, listed)) == [
        "plantpkg.lazy.reader.schema", "plantpkg.lazy.schema", "plantpkg.sub.CONSTANT",
        "plantpkg.sub.api.CONSTANT", "plantpkg.sub.api.helper", "plantpkg.sub.helper"]
