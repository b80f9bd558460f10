"""The package ``dppack._random``: one layer in several modules, patched as one (issue 27).

Callers and tests reach the samplers as ``_random.name``; the package's modules call each other
by bare names. A patch of ``_random.name`` (the privacy auditor's halved noise,
``tests/privacy/conftest.py``; ``FORCE_EXACT_PATH``) must reach those internal calls as it did
when ``_random`` was one module: the package forwards an assignment to every module that binds
the name. Deterministic: no false failures.
"""

import ast
import collections
import inspect

import numpy as np
import pytest

from dppack import _random

MODULES = _random._MODULES


def _own_names(module):
    """The names ``module`` defines at its top level (defs, classes, constants)."""
    tree = ast.parse(inspect.getsource(module))
    return [target.id for node in tree.body if isinstance(node, ast.Assign)
            for target in node.targets] + [
        node.name for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


def _bound_in():
    """{name: [modules binding it]} for every name of the package bound in its modules."""
    where = collections.defaultdict(list)
    for module in MODULES:
        for name in vars(module):
            if not name.startswith("__") and hasattr(_random, name):
                where[name].append(module)
    return where


def test_every_module_is_listed_and_every_name_reexported():
    assert {m.__name__ for m in MODULES} == {
        f"dppack._random.{m}" for m in ("_seeding", "_continuous", "_coins", "_grid", "_laplace",
                                        "_gaussian", "_blocks", "_ladder", "_selection")}
    defined = [name for module in MODULES for name in _own_names(module)]
    assert len(defined) == len(set(defined)) > 100  # one home per name
    assert [name for name in defined if not hasattr(_random, name)] == []
    assert [name for name in _random.__all__ if not hasattr(_random, name)] == []


def test_every_module_binds_the_packages_objects():
    # an import in a module is the package's object: nothing shadows a sampler
    stray = [(module.__name__, name) for name, modules in _bound_in().items()
             for module in modules if getattr(module, name) is not getattr(_random, name)]
    assert stray == []


def test_a_patch_of_the_package_reaches_every_module_and_is_undone(monkeypatch):
    shared = {name: modules for name, modules in _bound_in().items() if len(modules) > 1}
    assert {"FORCE_EXACT_PATH", "discrete_laplace", "_below", "_exact_samplers"} <= set(shared)
    originals = {name: getattr(_random, name) for name in shared}
    for name in shared:
        monkeypatch.setattr(_random, name, ("patched", name))
    for name, modules in shared.items():
        assert all(getattr(module, name) == ("patched", name) for module in modules), name
    monkeypatch.undo()
    for name, modules in shared.items():
        assert all(getattr(module, name) is originals[name] for module in modules), name


def test_a_patched_sampler_reaches_a_sampler_of_another_module(monkeypatch):
    # linf_noise (_laplace) draws through discrete_laplace, and l2_laplace (_continuous)
    # through gamma: the auditor's kind of patch, made on the package
    calls = []

    def spy(t, s, size, rng):
        calls.append(size)
        return np.zeros(size, dtype=np.int64)

    monkeypatch.setattr(_random, "discrete_laplace", spy)
    monkeypatch.setattr(_random, "gamma", lambda *args, **kwargs: 0.0)
    noise, _ = _random.linf_noise(2, 1.0, 3, _random.as_generator(0))
    assert calls and set(calls) == {4} and noise == [0, 0, 0]  # c = 0: every noise is 0
    assert not _random.l2_laplace(3, 1.0, _random.as_generator(0)).any()


def test_a_deleted_name_leaves_every_module(monkeypatch):
    monkeypatch.delattr(_random, "FORCE_EXACT_PATH")
    assert not any(hasattr(module, "FORCE_EXACT_PATH") for module in MODULES)
    monkeypatch.undo()  # restored in the same modules
    modules = _random._BINDERS["FORCE_EXACT_PATH"]
    assert len(modules) >= 3 and all(module.FORCE_EXACT_PATH is False for module in modules)
    assert set(modules) == set(_bound_in()["FORCE_EXACT_PATH"])


def test_the_package_pickles_by_name():
    # Dask's distributed workers receive tasks that refer to the package through cloudpickle:
    # like a plain module it travels as its name (a copy would fail: module objects do not
    # pickle). Deterministic.
    import pickle

    assert pickle.loads(pickle.dumps(_random)) is _random
    cloudpickle = pytest.importorskip("cloudpickle")
    assert cloudpickle.loads(cloudpickle.dumps(_random)) is _random
    task = lambda: _random.LADDER_MIN_P  # noqa: E731  (a closure over the package)
    assert cloudpickle.loads(cloudpickle.dumps(task))() == _random.LADDER_MIN_P
