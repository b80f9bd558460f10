"""Every continuous draw of dppack has an exactness argument on record (issue 25).

The package's rule: a released value is drawn on a data-independent grid by the exact
samplers of ``dppack._random``, or passes through a mechanism whose floating-point behaviour is
argued in its docstring. Continuous samplers (Laplace, normal, uniform, l2-Laplace, gamma,
log-space categorical) draw doubles whose low bits can depend on the data they are added to
(Mironov 2012, "On significance of the least significant bits for differential privacy",
CCS). This test parses the source of ``python/dppack`` with ``ast``, finds every call
``_random.<continuous sampler>(...)`` and requires its call site (module, enclosing function)
to be listed in ``continuous_draws.py`` with a reason of a known kind. It is deterministic.
"""

import ast
import pathlib
import textwrap

import pytest

import dppack
from continuous_draws import CONTINUOUS_DRAWS, PENDING

CONTINUOUS = ("laplace", "normal", "uniform", "uniform_between", "l2_laplace", "gamma",
              "log_categorical")
KINDS = ("data-free: ", "post-processing of released values: ",
         "documented float-approximate: ", PENDING)
PACKAGE = pathlib.Path(dppack.__file__).parent


def continuous_call_sites(root, package="dppack"):
    """{(module, enclosing function): [(line, sampler), ...]} for every call
    ``_random.<sampler>(...)`` of a continuous sampler in the modules under ``root``
    (the package ``_random/`` itself, where the samplers are defined, excluded). Nested
    functions and methods are dotted (``Class.method``, ``outer.inner``); module level is
    ``<module>``."""
    sites = {}
    for path in sorted(pathlib.Path(root).rglob("*.py")):
        if _in_random(path, root):
            continue
        module = ".".join((package,) + path.relative_to(root).with_suffix("").parts)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))

        def visit(node, scope):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    visit(child, scope + (child.name,))
                    continue
                if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                        and isinstance(child.func.value, ast.Name)
                        and child.func.value.id == "_random"
                        and child.func.attr in CONTINUOUS):
                    key = (module, ".".join(scope) or "<module>")
                    sites.setdefault(key, []).append((child.lineno, child.func.attr))
                visit(child, scope)

        visit(tree, ())
    return sites


def _in_random(path, root):
    return pathlib.Path(path).relative_to(root).parts[0] == "_random"


def hidden_samplers(root):
    """Imports that would hide a draw from :func:`continuous_call_sites`: ``_random`` imported
    under another name, one of its samplers imported by name (``from ._random import
    laplace``), or one of its modules imported (``from ._random import _continuous``,
    ``from ._random._continuous import laplace``). The package's rule (``python/dppack/_random``,
    its docstring) is ``_random.name(...)``."""
    found = []
    for path in sorted(pathlib.Path(root).rglob("*.py")):
        if _in_random(path, root):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                module = getattr(node, "module", None) or ""
                for alias in node.names:
                    if alias.name.endswith("_random") and alias.asname not in (None, "_random"):
                        found.append(f"{path.name}:{node.lineno} imports _random as "
                                     f"{alias.asname}")
                    if module.endswith("_random") and alias.name in CONTINUOUS:
                        found.append(f"{path.name}:{node.lineno} imports _random.{alias.name}")
                    elif "_random." in f"{module}.{alias.name}".lstrip("."):
                        found.append(f"{path.name}:{node.lineno} imports a module of _random")
    return found


def problems(sites, registry):
    """The unregistered, pending and stale entries, as sorted lists of text."""
    unlisted = sorted(f"{m}:{f} draws {s} with no exactness argument "
                      f"(add it to tests/privacy/continuous_draws.py)"
                      for (m, f), s in sites.items() if (m, f) not in registry)
    pending = sorted(f"{m}:{f} ({registry[(m, f)]}) draws {s}"
                     for (m, f), s in sites.items() if registry.get((m, f)) == PENDING)
    stale = sorted(f"{m}:{f} is listed ({reason!r}) but draws no continuous noise: delete "
                   f"the entry" for (m, f), reason in registry.items() if (m, f) not in sites)
    return unlisted, pending, stale


def test_the_scan_finds_the_known_draws():
    # a sanity check of the parser on sites that exist today and are not being converted
    sites = continuous_call_sites(PACKAGE)
    assert ("dppack.erm.blocks", "generate_sampling.sampling") in sites
    assert {s for _, s in sites[("dppack.erm.blocks", "generate_sampling.sampling")]} == {
        "normal", "uniform_between"}
    assert not any(m.startswith("dppack._random") for m, _ in sites)


def test_no_import_hides_a_continuous_draw(tmp_path):
    assert hidden_samplers(PACKAGE) == []
    (tmp_path / "hidden.py").write_text("from dppack._random import laplace\n"
                                        "from dppack import _random as r\n"
                                        "from dppack._random import _continuous\n"
                                        "from dppack._random._continuous import laplace\n"
                                        "from ._random._continuous import normal\n"
                                        "import dppack._random._continuous\n"
                                        "from dppack import _random\n", encoding="utf-8")
    assert [line.split(" ")[0] for line in hidden_samplers(tmp_path)] == [
        f"hidden.py:{line}" for line in range(1, 7)]


def test_every_reason_is_of_a_known_kind():
    for site, reason in CONTINUOUS_DRAWS.items():
        assert reason.startswith(KINDS), f"{site}: {reason!r}"
        assert reason == PENDING or len(reason.split(": ", 1)[1]) >= 10, site


def test_no_settled_entry_is_stale():
    # an entry with a reason whose call site is gone (moved or converted): delete it
    sites = continuous_call_sites(PACKAGE)
    _, _, stale = problems(sites, {k: v for k, v in CONTINUOUS_DRAWS.items() if v != PENDING})
    assert not stale, "\n".join(stale)


def test_every_new_draw_is_listed():
    # a continuous draw added anywhere without an entry fails here (not xfail)
    unlisted, _, _ = problems(continuous_call_sites(PACKAGE), CONTINUOUS_DRAWS)
    assert not unlisted, "\n".join(unlisted)


def test_every_continuous_draw_has_an_exactness_argument():
    unlisted, pending, stale = problems(continuous_call_sites(PACKAGE), CONTINUOUS_DRAWS)
    assert not (unlisted or pending or stale), "\n".join(unlisted + pending + stale)


PLANTED = textwrap.dedent('''
    from dppack import _random


    def noisy_sum(x, eps, rng):
        """A textbook release: the sum plus Laplace noise added in floating point."""
        return sum(x) + _random.laplace(1.0 / eps, None, rng)


    def exact_sum(x, eps, rng):
        return _random.discrete_laplace_noise(sum(x), 1.0, eps, rng)
''')


def test_a_planted_float_release_is_flagged(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "planted.py").write_text(PLANTED, encoding="utf-8")
    sites = continuous_call_sites(package, package="pkg")
    assert sites == {("pkg.planted", "noisy_sum"): [(7, "laplace")]}  # not the exact sampler
    unlisted, pending, stale = problems(sites, {})
    assert unlisted and "pkg.planted:noisy_sum" in unlisted[0]
    # listed as pending it is still rejected; listed with a reason it passes
    assert problems(sites, {("pkg.planted", "noisy_sum"): PENDING})[1]
    assert problems(sites, {("pkg.planted", "noisy_sum"): "data-free: test"}) == ([], [], [])
    # and an entry whose site is gone is stale
    assert problems({}, {("pkg.planted", "noisy_sum"): "data-free: test"})[2]


def test_only_the_package_random_is_exempt(tmp_path):
    # the samplers' own modules (pkg/_random/) are not scanned; a module beside them is
    package = tmp_path / "pkg"
    (package / "_random").mkdir(parents=True)
    (package / "_random" / "_continuous.py").write_text(PLANTED, encoding="utf-8")
    (package / "_random_helpers.py").write_text(PLANTED, encoding="utf-8")
    sites = continuous_call_sites(package, package="pkg")
    assert sites == {("pkg._random_helpers", "noisy_sum"): [(7, "laplace")]}
