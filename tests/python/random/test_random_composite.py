"""The composite samplers of ``dppack._random`` (issue 13: one home for each idea).

* ``l2_laplace``: density proportional to exp(-rate ||b||) on R^d, a Gamma(d, rate) norm
  times a uniform direction; the one sampler behind CMS, KST (delta = 0), the stability
  trainers' standardised noise and the confidence intervals.
* ``exponential_grid`` / ``exponential_coin``: the exact exponential mechanism's grid and
  rate, and the exact coin exp(-gamma b) of quantileDP's rejection step.
* No module of ``python/dppack`` reaches into another's private names.

Statistical tests: each KS or binomial test below is run at level ALPHA = 1e-4 on a fixed
seed, so the file is deterministic; over the choice of the seeds its false-failure rate is at
most (number of statistical assertions) x ALPHA = 23 x 1e-4 = 0.23% (6 norm, 12 direction,
1 one-dimensional, 1 independence and 3 coin tests).
"""

import ast
import math
import pathlib
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack import _random
from dppack.confidence_intervals._matrices import spherical_laplace
from dppack.erm import cms

ALPHA = 1e-4
SEED = 20261124
N = 20_000

# ---------------------------------------------------------------------------------------------
# Values recorded from HEAD 7d281d7, before the sampler moved into _random (the old code paths,
# erm.cms.noise_vector, confidence_intervals.erm.spherical_laplace's batch branch and the
# inline draw of EmpiricalRiskMinimizationDP_KST.fit, no longer exist): computed by running
# that commit's code with the seeds below, printed with float.hex, not typed by hand.
# ---------------------------------------------------------------------------------------------
HEAD_SINGLE = [  # noise_vector(d, rate, default_rng(seed))
    (1, 1.0, 1, ["0x1.12b207bfedc44p+0"]),
    (3, 0.7, 2, ["-0x1.26dba5bad80a2p-1", "-0x1.b3b30d213704bp+1", "0x1.412c1595fc6a4p+1"]),
    (5, 2.5, 3, ["0x1.9d6b5db3b8be5p-1", "-0x1.18b51f1d536afp+0", "-0x1.bf954933d3b72p-1",
                 "-0x1.aa5e499bf22b6p-2", "-0x1.f35831a20d0d2p+1"]),
]
HEAD_BATCH = [  # spherical_laplace(k, rate, seed, size=size)
    (3, 1.5, 4, 4, ["-0x1.223c2de3a2b6ap+0", "0x1.5d112cd96eeb3p-3", "0x1.53d7043c3db03p-3",
                    "0x1.ff25141d002fbp+1", "0x1.9ae35561ad766p-1", "0x1.4b4013135353fp+0",
                    "-0x1.e27dff73becdap-3", "0x1.6bfa72b9952b6p-2", "-0x1.3583d68fe8f8dp-2",
                    "0x1.cc37383872d91p-1", "-0x1.139903999e5cfp-2", "-0x1.6fd72b93c1ac7p-1"]),
    (2, 0.25, 6, 3, ["0x1.0750c47758980p+3", "0x1.5f38aa4c6118cp+3", "0x1.b057bd362c447p-4",
                     "0x1.ef036e1eac7a7p-3", "0x1.e4658b0145d8ap-1", "0x1.cc779e1dea9c1p+0"]),
]
HEAD_STANDARD = ["-0x1.de758d25dbd5ap-2", "0x1.94fc60c1421d7p-1", "0x1.11919be8cf2b0p+1",
                 "0x1.a6b0bcd91ec71p-3"]  # StandardNoise.draw(4, default_rng(5)).vector
# _kst_model().fit(...)._noise, at eps_1 = eps (1 - 2^-10) since KST releases by approximate
# minima perturbation (dppack.erm._approximate; was -0x1.a6a825ca146e4p+1, -0x1.574579339b304p+3)
HEAD_KST = ["-0x1.a71ec070e54abp+1", "-0x1.57a5ccfe4ded6p+3"]
# stats._quantile.exact_quantile(x, 0.3, 0.5, -1, 1, rng, half=2.0) 20 times on one generator
# (most draws fall in a union of intervals and go through the rejection coin), and the
# generator's PCG64 state after them.
HEAD_QUANTILE = [
    "-0x1.a45fe55fa2670p-1", "-0x1.d9cc222051331p-3", "-0x1.12d5630716b83p-1",
    "-0x1.241c652ab9eb6p-1", "-0x1.7cea5308fcf59p-1", "-0x1.5ab104560b5a0p-1",
    "-0x1.1804099ad0d78p-1", "-0x1.5b0e0ed63935bp-1", "-0x1.ca36b510f0facp-2",
    "-0x1.212a86ceebd6ep-2", "-0x1.2b21b8a97b34dp-1", "-0x1.b1e7835c30aeap-1",
    "-0x1.7aec085b3e9b3p-2", "-0x1.2007ca159e82ep-7", "-0x1.3be528421b14bp-1",
    "-0x1.e8e547f38ba07p-3", "-0x1.fbe9608050672p-2", "-0x1.10f3c5548d668p-4",
    "-0x1.1d180fda46b43p-1", "0x1.d628353dadf85p-2",
]
HEAD_QUANTILE_STATE = 282593939872396051005886076768625612719


def _floats(hexes):
    return np.array([float.fromhex(h) for h in hexes])


def _assert_recorded(values, hexes):
    # The norm of the direction is a BLAS dot product, whose last bit can differ between
    # kernels (OPENBLAS_CORETYPE): equal to HEAD's values up to a few ulps on any machine
    # (bit-identical on the machine that recorded them).
    np.testing.assert_allclose(np.ravel(values), _floats(hexes), rtol=1e-14, atol=0)


def _kst_model():
    return dppack.EmpiricalRiskMinimizationDP_KST(
        dppack.mapXy_linear, dppack.loss_squared_error, "l2", 1.0, 0.0,
        {"constraints": lambda th: th @ th - 2.0, "jacobian": lambda th: 2 * th}, 2.0, 1.0,
        1.0, mapXy_gr=dppack.mapXy_gr_linear, loss_gr=dppack.loss_gr_squared_error)


KST_X = np.array([[0.5, -0.2], [0.1, 0.9], [-0.7, 0.3], [0.2, 0.2]])
KST_Y = np.array([0.4, -0.1, 0.3, 0.0])
KST_BOUNDS = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])


# ---------------------------------------------------------------------------------------------
# l2_laplace: the law
# ---------------------------------------------------------------------------------------------


def _draws(d, rate, batch, seed=SEED):
    rng = np.random.default_rng(seed)
    if batch:
        return _random.l2_laplace(d, rate, rng, size=N)
    return np.array([_random.l2_laplace(d, rate, rng) for _ in range(N)]).reshape(N, d)


@pytest.mark.parametrize("batch", [False, True], ids=["one", "batch"])
@pytest.mark.parametrize("d, rate", [(1, 0.5), (3, 2.5), (10, 1.0)])
def test_l2_laplace_norm_is_gamma(d, rate, batch):
    """||b|| ~ Gamma(shape d, rate): KS at ALPHA (6 tests)."""
    norms = np.linalg.norm(_draws(d, rate, batch), axis=1)
    assert stats.kstest(norms, stats.gamma(d, scale=1.0 / rate).cdf).pvalue > ALPHA


@pytest.mark.parametrize("batch", [False, True], ids=["one", "batch"])
@pytest.mark.parametrize("d", [2, 3, 6])
def test_l2_laplace_direction_is_uniform(d, batch):
    """On the sphere S^(d-1), (u_1 + 1) / 2 ~ Beta((d-1)/2, (d-1)/2) (Uniform(-1, 1) for d = 3,
    Archimedes): KS at ALPHA on the first and on the last coordinate (12 tests)."""
    b = _draws(d, 1.0, batch, seed=SEED + d)
    u = b / np.linalg.norm(b, axis=1, keepdims=True)
    law = stats.beta((d - 1) / 2, (d - 1) / 2, loc=-1, scale=2)
    assert stats.kstest(u[:, 0], law.cdf).pvalue > ALPHA
    assert stats.kstest(u[:, -1], law.cdf).pvalue > ALPHA


def test_l2_laplace_one_dimension_is_laplace():
    """d = 1: the law is Laplace(0, 1/rate), both signs equally likely (KS at ALPHA)."""
    b = _draws(1, 2.0, batch=True).ravel()
    assert stats.kstest(b, stats.laplace(scale=0.5).cdf).pvalue > ALPHA


def test_l2_laplace_norm_and_direction_are_independent():
    """The first coordinate's direction has the same law below and above the norm's median
    (two-sample KS at ALPHA)."""
    b = _draws(3, 1.0, batch=True)
    norms = np.linalg.norm(b, axis=1)
    u = b[:, 0] / norms
    small = norms < np.median(norms)
    assert stats.ks_2samp(u[small], u[~small]).pvalue > ALPHA


def test_l2_laplace_infinite_rate_and_shapes():
    rng = np.random.default_rng(1)
    assert np.all(_random.l2_laplace(4, math.inf, rng) == 0)
    assert np.all(_random.l2_laplace(4, math.inf, rng, size=3) == 0)
    assert _random.l2_laplace(np.int64(2), 1.0, rng, size=np.int64(5)).shape == (5, 2)


# ---------------------------------------------------------------------------------------------
# l2_laplace: the draw order, so seeded results do not change
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("d, rate, seed", [(1, 1.0, 1), (4, 0.3, 2)])
def test_l2_laplace_draws_the_norm_then_the_normals(d, rate, seed):
    """Bit-identical to the calls on the generator that DPpack's order prescribes: one
    Gamma(d, 1/rate) draw, then d standard normals (R's rgamma, then rnorm); the batch draws
    every norm first, then the normals row by row. The generator ends in the same state."""
    rng, reference = np.random.default_rng(seed), np.random.default_rng(seed)
    one = _random.l2_laplace(d, rate, rng)
    r = reference.gamma(d, 1.0 / rate)
    g = reference.normal(0.0, 1.0, d)
    assert np.array_equal(one, r * g / np.linalg.norm(g))
    batch = _random.l2_laplace(d, rate, rng, size=3)
    r = reference.gamma(d, 1.0 / rate, 3)
    g = reference.normal(0.0, 1.0, (3, d))
    assert np.array_equal(batch, g * (r / np.linalg.norm(g, axis=1))[:, None])
    assert rng.bit_generator.state == reference.bit_generator.state


@pytest.mark.parametrize("d, rate, seed, hexes", HEAD_SINGLE)
def test_l2_laplace_equals_head_single(d, rate, seed, hexes):
    _assert_recorded(_random.l2_laplace(d, rate, np.random.default_rng(seed)), hexes)


@pytest.mark.parametrize("k, rate, seed, size, hexes", HEAD_BATCH)
def test_l2_laplace_equals_head_batch(k, rate, seed, size, hexes):
    _assert_recorded(_random.l2_laplace(k, rate, np.random.default_rng(seed), size=size), hexes)
    # the confidence-intervals module keeps its public name, with random_state
    _assert_recorded(spherical_laplace(k, rate, seed, size=size), hexes)


def test_users_of_the_sampler_equal_head():
    """The CMS standardised noise, the KST noise (delta = 0) and spherical_laplace give
    HEAD's values for HEAD's seeds."""
    _assert_recorded(cms.StandardNoise.draw(4, np.random.default_rng(5)).vector, HEAD_STANDARD)
    model = _kst_model().fit(KST_X, KST_Y, *KST_BOUNDS, random_state=7)
    _assert_recorded(model._noise, HEAD_KST)
    d, rate, seed, hexes = HEAD_SINGLE[1]
    _assert_recorded(spherical_laplace(d, rate, seed), hexes)


def test_users_draw_through_the_module(monkeypatch):
    """CMS, KST and the confidence intervals call ``_random.l2_laplace`` through the module,
    and it calls ``_random.gamma`` through the module: a patched sampler (the privacy
    auditor's halved noise) reaches every one of them."""
    calls = []
    original = _random.l2_laplace

    def spy(*args, **kwargs):
        calls.append(args[:2])
        return original(*args, **kwargs)

    monkeypatch.setattr(_random, "l2_laplace", spy)
    X, y = np.array([[0.5], [-0.5], [0.8], [-0.3]]), np.array([1.0, 0.0, 1.0, 0.0])
    dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(X, y, [1.0], [-1.0], random_state=1)
    dppack.svmDP("l2", 1.0, 1.0, "output").fit(X, y, [1.0], [-1.0], random_state=1)
    _kst_model().fit(KST_X, KST_Y, *KST_BOUNDS, random_state=1)
    cms.StandardNoise.draw(2, np.random.default_rng(1))
    dppack.confintERM(X, y, [1.0], [-1.0], 1.0, eps=1.0, n_draws=5, random_state=1)
    dppack.confintERM(X, y, [1.0], [-1.0], 1.0, eps=1.0, perturbation_method="output",
                      n_draws=5, random_state=1)
    # objective, KST, standard noise (output perturbation's release is exact discrete
    # Laplace, dppack.erm._approximate); the objective confint: its objective's noise b and
    # the Monte Carlo draws of b (the matrices and output perturbation's theta~ get exact
    # discrete Laplace noise under pure DP)
    assert len(calls) == 3 + 2

    monkeypatch.setattr(_random, "l2_laplace", original)
    full = _random.l2_laplace(3, 1.0, np.random.default_rng(3))
    monkeypatch.setattr(_random, "gamma", lambda *args, **kwargs: 0.0)
    assert np.all(_random.l2_laplace(3, 1.0, np.random.default_rng(3)) == 0) and np.any(full)


# ---------------------------------------------------------------------------------------------
# The exponential mechanism's grid and the exact coin
# ---------------------------------------------------------------------------------------------


def test_exponential_grid_is_the_mechanisms_grid():
    """The grid h = 2^k is 2^-20 Delta rounded down to a power of two, coarser when a utility
    exceeds h 2^1000; gamma = eps / (2 (ceil(Delta / h) + 1)) exactly."""
    assert _random.exponential_grid(0.0, 1.0, 1.0) == (-20, Fraction(1, 2 * (2 ** 20 + 1)))
    assert _random.exponential_grid(5.0, 0.5, 3.0) == (-19, Fraction(1, 4 * (3 * 2 ** 19 + 1)))
    k, rate = _random.exponential_grid(2.0 ** 990, 1.0, 1.0)
    assert k == -9 and rate == Fraction(1, 2 * (2 ** 9 + 1))
    assert _random.exponential_grid(math.inf, 1.0, 1.0)[0] == -20  # no finite utility


def test_exponential_mechanism_rounds_on_the_grid():
    """Two utilities closer than half a grid step are one candidate to the mechanism: the same
    draws for u and for u moved by less than h / 2 (the grid is the mechanism's)."""
    k, _ = _random.exponential_grid(3.0, 1.0, 1.0)
    shift = math.ldexp(0.49, k)
    utility = np.array([0.0, 1.0, 3.0, 2.5])
    first = [_random.exponential_mechanism(utility, 1.0, 1.0, np.random.default_rng(s))
             for s in range(30)]
    moved = [_random.exponential_mechanism(utility + shift, 1.0, 1.0, np.random.default_rng(s))
             for s in range(30)]
    assert first == moved and len(set(first)) > 1


@pytest.mark.parametrize("steps, rate", [(2, Fraction(1, 3)), (1, Fraction(5, 2)),
                                         (7, Fraction(1, 2 ** 70 + 1))])
def test_exponential_coin_probability(steps, rate):
    """P[True] = exp(-rate steps): two-sided binomial test at ALPHA (3 tests); the last rate's
    denominator is beyond bernoulli_exp's 2^58."""
    rng = np.random.default_rng(SEED + steps)
    heads = sum(_random.exponential_coin(steps, rate, rng) for _ in range(N))
    p = math.exp(-float(rate) * steps)
    assert stats.binomtest(heads, N, p).pvalue > ALPHA


def test_exponential_coin_draws_nothing_for_no_gap():
    rng = np.random.default_rng(1)
    before = rng.bit_generator.state
    assert _random.exponential_coin(0, Fraction(1, 2), rng) is True
    assert _random.exponential_coin(-3, Fraction(1, 2), rng) is True
    assert rng.bit_generator.state == before


def test_quantile_rejection_equals_head():
    """quantileDP's union rejection (now _random.exponential_grid and exponential_coin): HEAD's
    releases and HEAD's generator state after 20 draws. Grid points: exact on any machine."""
    from dppack.stats import _quantile

    x = np.random.default_rng(5).uniform(-1, 1, 30)
    rng = np.random.default_rng(SEED)
    out = [_quantile.exact_quantile(x, 0.3, 0.5, -1.0, 1.0, rng, half=2.0) for _ in range(20)]
    assert out == [float.fromhex(h) for h in HEAD_QUANTILE]
    assert rng.bit_generator.state["state"]["state"] == HEAD_QUANTILE_STATE


# ---------------------------------------------------------------------------------------------
# No private reach-throughs
# ---------------------------------------------------------------------------------------------
#
# The rule, for every module of python/dppack:
#
# 1. ``from <dppack module> import _name`` is refused unless ``_name`` is itself a module
#    (the private layers ``_random``, ``_checks``, ``_exact``, ``_rbridge`` may be imported:
#    they are the package's own layers, and their non-underscore functions are public within
#    the package).
# 2. ``<module>._name``, where <module> is a name the module bound to a dppack module by an
#    import, is refused for every dppack module, the private layers included: a layer's
#    underscore names are private to that layer.
# 3. ``<expr>._name`` on any other object (an instance of another module's class, the result
#    of a call) is refused unless <expr> is ``self``, ``cls`` or ``super()``, or ``_name``
#    is defined in the same module (a def, a class, an assigned name or attribute, a parameter,
#    or a string, as in ``__slots__`` and ``object.__setattr__``): a module may use the
#    private members of its own classes, not another module's.
# 4. A private package (``_random``) is one layer in several files: its modules, and its
#    ``__init__``, may import each other's underscore names (rule 1 does not apply inside it).
#
# A helper used by two modules is public in its one home (issue 13).

ROOT = pathlib.Path(dppack.__file__).parent


def _module_name(path, root):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(dotted, root):
    base = root.parent / dotted.replace(".", "/")
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def _absolute(current, is_package, node):
    if not node.level:
        return node.module or ""
    base = current.split(".")[: len(current.split(".")) - (node.level - int(is_package))]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name):
    return name.startswith("_") and not name.startswith("__")


def _inside_private_package(current, is_package, source):
    """Whether ``source`` is a module of the private package that holds ``current``."""
    package = current if is_package else current.rpartition(".")[0]
    return _private(package.rpartition(".")[2]) and source.startswith(package + ".")


def _defined_names(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            names.add(node.value)
    return names


def private_reach_throughs(path, root=ROOT):
    """(file, what) for every use of another module's private name in the file at ``path``
    (a module of the package whose directory is ``root``)."""
    current, is_package = _module_name(path, root), path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    where = path.relative_to(root).as_posix()
    found, modules = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _absolute(current, is_package, node)
            if source.split(".")[0] != "dppack":
                continue
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if _is_module(full, root):
                    modules[alias.asname or alias.name] = full
                elif _private(alias.name) and not _inside_private_package(
                        current, is_package, source):
                    found.append((where, full))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "dppack":
                    bound = alias.asname or alias.name.split(".")[0]
                    modules[bound] = alias.name if alias.asname else "dppack"
    defined = _defined_names(tree)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Attribute) and _private(node.attr)):
            continue
        value = node.value
        if isinstance(value, ast.Name) and value.id in modules:
            found.append((where, f"{modules[value.id]}.{node.attr}"))
        elif isinstance(value, ast.Name) and value.id in ("self", "cls"):
            continue
        elif (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
              and value.func.id == "super"):
            continue
        elif node.attr not in defined:
            found.append((where, f"{ast.unparse(node)} (line {node.lineno})"))
    return found


def test_no_module_uses_another_modules_private_names():
    found = {item for path in sorted(ROOT.rglob("*.py")) for item in private_reach_throughs(path)}
    assert sorted(found) == []


@pytest.mark.parametrize("source, expected", [
    ("from .tuning import _check_models\n", "dppack.tuning._check_models"),
    ("from dppack.erm.cms import _scalar as s\n", "dppack.erm.cms._scalar"),
    ("from . import _exact\nx = _exact._split(8)\n", "dppack._exact._split"),
    ("from . import data_access\ndata_access._mean_access(1)\n",
     "dppack.data_access._mean_access"),
    ("def f(model):\n    return model._fit(1)\n", "model._fit (line 2)"),
    ("def f():\n    return g()._hidden\n", "g()._hidden (line 2)"),
])
def test_the_rule_catches_reach_throughs(tmp_path, source, expected):
    """Each kind of reach-through, planted in a module of a copy of the package's layout."""
    package = tmp_path / "dppack"
    package.mkdir()
    for name in ("__init__", "_exact", "tuning", "data_access"):
        (package / f"{name}.py").write_text("")
    (package / "erm").mkdir()
    (package / "erm" / "__init__.py").write_text("")
    (package / "erm" / "cms.py").write_text("")
    planted = package / "planted.py"
    planted.write_text(source)
    assert private_reach_throughs(planted, package) == [("planted.py", expected)]


def test_a_private_package_shares_its_underscore_names(tmp_path):
    """Rule 4: inside ``_pkg`` a module and the ``__init__`` import a sibling's private name;
    outside it the same import is a reach-through."""
    package = tmp_path / "dppack"
    (package / "_pkg").mkdir(parents=True)
    for name in ("__init__.py", "_pkg/_b.py"):
        (package / name).write_text("")
    source = "from ._b import _x\n"
    for name in ("_pkg/__init__.py", "_pkg/_a.py"):
        (package / name).write_text(source)
        assert private_reach_throughs(package / name, package) == []
    (package / "outside.py").write_text("from ._pkg._b import _x\n")
    assert private_reach_throughs(package / "outside.py", package) == [
        ("outside.py", "dppack._pkg._b._x")]


@pytest.mark.parametrize("source", [
    "from . import _random, _checks\nx = _random.l2_laplace\n",
    "class A:\n    def _f(self):\n        return 1\n\ndef g(a):\n    return a._f()\n",
    "class B:\n    def f(self):\n        return super()._g() + self._h + type(self)._k\n"
    "    _h = 1\n    _k = 2\n    def _g(self):\n        return 0\n",
    "from .tuning import check_models\n",
])
def test_the_rule_allows_own_and_public_names(tmp_path, source):
    package = tmp_path / "dppack"
    package.mkdir()
    for name in ("__init__", "_random", "_checks", "tuning"):
        (package / f"{name}.py").write_text("")
    planted = package / "planted.py"
    planted.write_text(source)
    assert private_reach_throughs(planted, package) == []
