"""The import graph of ``python/dppack``, read from the source (AST), and the backend layer.

* Every import of a dppack module, at module level or inside a function, is an edge; the
  graph of all of them is acyclic (a module imports only from the layers below it). Package
  ``__init__`` aggregators are nodes like the others: they import their submodules, and no
  submodule imports its package's ``__init__`` back (an edge to a package is an edge to its
  ``__init__``), so no exclusion is needed.
* No function-local import of a dppack module. The one exception is the documented hook
  :func:`dppack._backends._load`, which imports the module that registers the Dask backend
  (``_backends._LAZY``) when a Dask collection arrives before ``dppack.dask`` was imported.
  Its edge ``dppack._backends -> dppack.dask`` is counted here: it is the only edge that
  closes a cycle (``dppack.dask._backend`` registers itself in ``dppack._backends``).
* No module outside the backend layer (``dppack._backends``, ``dppack.dask``) mentions
  ``is_dask``: the core asks :func:`dppack._backends.backend_for` for its data's backend.
"""

import ast
import pathlib
import subprocess
import sys
import textwrap

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parents[3] / "python" / "dppack"

# The documented hook: (module, function) allowed to import a dppack module at run time.
HOOKS = {("dppack._backends", "_load")}
BACKEND_LAYER = ("dppack._backends", "dppack.dask")


def _module_name(path, package=PACKAGE):
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules(package=PACKAGE):
    return {_module_name(path, package): path for path in sorted(package.rglob("*.py"))}


def _base(module, is_package, level, target):
    """The absolute module of ``from <level dots><target> import ...`` in ``module``."""
    parts = module.split(".")
    if not is_package:
        parts.pop()
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([target] if target else []))


class _Imports(ast.NodeVisitor):
    """The dppack modules a module imports: (target, function or None, line)."""

    def __init__(self, module, is_package, modules):
        self.module, self.is_package, self.modules = module, is_package, modules
        self.function, self.found, self.dynamic = None, [], []

    def _add(self, target, line):
        while target and target not in self.modules:  # a name imported from a module
            target = target.rpartition(".")[0]
        if target:
            self.found.append((target, self.function, line))

    def visit_FunctionDef(self, node):
        outer, self.function = self.function, self.function or node.name
        self.generic_visit(node)
        self.function = outer

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Import(self, node):
        for alias in node.names:
            if alias.name.partition(".")[0] == "dppack":
                self._add(alias.name, node.lineno)

    def visit_ImportFrom(self, node):
        if node.level:
            base = _base(self.module, self.is_package, node.level, node.module)
        else:
            base = node.module or ""
        if base.partition(".")[0] != "dppack":
            return
        for alias in node.names:
            name = f"{base}.{alias.name}"
            self._add(name if name in self.modules else base, node.lineno)

    def visit_Call(self, node):
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if name in ("import_module", "__import__"):
            self.dynamic.append((self.function, node.lineno))
        self.generic_visit(node)


def _lazy_targets(tree):
    """The values of ``_LAZY`` in dppack._backends: the modules its hook may import."""
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
                and any(getattr(t, "id", None) == "_LAZY" for t in node.targets)):
            return [value.value for value in node.value.values]
    return []


def import_graph(package=PACKAGE):
    """(edges, local, dynamic): edges {(source, target): kind} with kind "module",
    "function" or "hook"; the function-local imports [(module, function, target, line)];
    the run-time imports [(module, function, line)]."""
    modules = _modules(package)
    edges, local, dynamic = {}, [], []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        visitor = _Imports(module, path.name == "__init__.py", modules)
        visitor.visit(tree)
        for target, function, line in visitor.found:
            if target == module:
                continue
            if function is None:
                edges[(module, target)] = "module"
            else:
                edges.setdefault((module, target), "function")
                local.append((module, function, target, line))
        for function, line in visitor.dynamic:
            dynamic.append((module, function, line))
        if module == "dppack._backends":
            for target in _lazy_targets(tree):
                edges[(module, target)] = "hook"
    return edges, local, dynamic


def find_cycle(edges):
    """One cycle of the directed graph ``edges`` (a list of modules), or None."""
    graph = {}
    for source, target in edges:
        graph.setdefault(source, []).append(target)
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        state[node] = "done"
        stack.pop()
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


GRAPH = import_graph()


def test_the_graph_is_read():
    edges, _, _ = GRAPH
    assert ("dppack.stats._release", "dppack._backends") in edges
    assert ("dppack.dask._backend", "dppack._backends") in edges
    assert ("dppack._memory", "dppack.data_access") in edges
    assert len(edges) > 100


def test_import_graph_is_acyclic_with_function_local_imports_counted():
    edges, _, _ = GRAPH
    counted = [edge for edge, kind in edges.items() if kind != "hook"]
    assert find_cycle(counted) is None, " -> ".join(find_cycle(counted))


def test_the_hook_is_the_only_edge_that_closes_a_cycle():
    edges, _, _ = GRAPH
    hooks = [edge for edge, kind in edges.items() if kind == "hook"]
    assert hooks == [("dppack._backends", "dppack.dask")]
    cycle = find_cycle(list(edges))  # with the hook: ... -> _backends -> dask -> ... -> (start)
    assert cycle is not None and ("dppack._backends", "dppack.dask") in zip(cycle, cycle[1:])


def test_no_function_local_import_of_a_dppack_module():
    _, local, dynamic = GRAPH
    assert local == [], local
    assert {(module, function) for module, function, _ in dynamic} == HOOKS, dynamic


def test_the_core_never_asks_whether_data_are_dask():
    mentions = [
        f"{name}:{number}"
        for name, path in _modules().items()
        if not name.startswith(BACKEND_LAYER)
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if "is_dask" in line
    ]
    assert mentions == [], mentions


def test_a_planted_cycle_is_found():
    edges, _, _ = GRAPH
    planted = [edge for edge, kind in edges.items() if kind != "hook"]
    planted.append(("dppack._checks", "dppack.stats"))  # stats imports _checks
    cycle = find_cycle(planted)
    assert cycle is not None and "dppack._checks" in cycle and "dppack.stats" in cycle


LAZY = textwrap.dedent("""
    import sys
    import dppack
    from dppack import _backends
    assert "dask" not in sys.modules and "dppack.dask" not in sys.modules
    assert _backends.backend_for([1.0], None).name == "memory"
    import dask.array as da
    assert "dppack.dask" not in sys.modules  # Dask in use, its backend not yet loaded
    assert _backends.backend_for([1.0], da.ones(3)).name == "dask"  # the hook loads it
    assert "dppack.dask" in sys.modules
    print("ok")
""")


def test_the_dask_backend_is_loaded_by_the_hook_on_first_dask_data():
    pytest.importorskip("dask.array")
    done = subprocess.run([sys.executable, "-c", LAZY], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
