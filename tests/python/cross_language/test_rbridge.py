"""The Python half of R's bridge: views of R's memory, and read-only inputs everywhere.

R hands long double vectors to the core as read-only views of its own memory
(``_rbridge.r_double_view``), so every public function must accept read-only arrays and must
never write into its input. A model's data.frame X goes as read-only views of its columns
(``_rbridge.r_columns``, a ``ColumnMatrix``), from which the fit assembles its design: the
same design, bit for bit, as from the matrix in C or Fortran order, and the same fits.
Everything here is deterministic (fixed seeds, exact comparisons): no false failures.
"""

import numpy as np
import pytest

import dppack
from dppack import _rbridge

N = 50_000


def _readonly(values):
    array = np.array(values, dtype=float)
    array.flags.writeable = False
    return array


def test_r_double_view_reads_memory_in_place_and_is_read_only():
    owner_buffer = np.arange(10, dtype=float) / 3
    owner = object()
    view = _rbridge.r_double_view(float(owner_buffer.ctypes.data), 10, owner)
    assert view.dtype == np.float64 and view.shape == (10,)
    assert np.shares_memory(view, owner_buffer)
    assert np.array_equal(view, owner_buffer)
    assert not view.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        view[0] = 1.0
    # The view keeps the owner (in R: a closure over the vector) alive.
    assert view.base.owner is owner


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    return _readonly(rng.normal(size=N)), _readonly(rng.normal(size=N))


STATS = {
    "meanDP": lambda x, y: dppack.meanDP(x, 1, -3, 3, random_state=1),
    "varDP": lambda x, y: dppack.varDP(x, 1, -3, 3, random_state=1),
    "sdDP": lambda x, y: dppack.sdDP(x, 1, -3, 3, random_state=1),
    "covDP": lambda x, y: dppack.covDP(x, y, 1, -3, 3, -3, 3, random_state=1),
    "histogramDP": lambda x, y: dppack.histogramDP(x, 1, -3, 3, random_state=1),
    "tableDP": lambda x, y: dppack.tableDP(np.round(x), eps=1, delta=1e-6, random_state=1),
    "pooledVarDP": lambda x, y: dppack.pooledVarDP(x, y, eps=1, lower_bound=-3,
                                                    upper_bound=3, random_state=1),
    "pooledCovDP": lambda x, y: dppack.pooledCovDP(
        np.column_stack([x, y]), eps=1, lower_bound1=-3, upper_bound1=3, lower_bound2=-3,
        upper_bound2=3, random_state=1),
    "quantileDP": lambda x, y: dppack.quantileDP(x, 0.3, 1, -3, 3, random_state=1),
    "medianDP": lambda x, y: dppack.medianDP(x, 1, -3, 3, random_state=1),
    "LaplaceMechanism": lambda x, y: dppack.LaplaceMechanism(x, 1, 1, random_state=1),
    "meanDataAccess": lambda x, y: dppack.meanDataAccess(x, -3, 3),
    "quantileDataAccess": lambda x, y: dppack.quantileDataAccess(x, 0.3, -3, 3),
    "LogisticRegressionDP": lambda x, y: dppack.LogisticRegressionDP(
        "l2", 1, 0.1).fit(np.column_stack([x, y]), _readonly(x > 0), [3, 3], [-3, -3],
                          random_state=1),
    "LinearRegressionDP": lambda x, y: dppack.LinearRegressionDP(
        "l2", 1, 0.01, 0.1).fit(_readonly(np.column_stack([x])), y, [3, 3], [-3, -3],
                                random_state=1),
}


@pytest.mark.parametrize("name", sorted(STATS))
def test_public_functions_take_read_only_data_and_leave_it_unchanged(name, data):
    x, y = data
    before = x.copy(), y.copy()
    STATS[name](x, y)
    assert np.array_equal(x, before[0]) and np.array_equal(y, before[1])


def test_tables_reach_r_as_cells_in_column_major_order_with_their_levels():
    """A pandas table goes to R as its cells (first factor fastest) and the levels of each
    dimension, from which R rebuilds a ``table``."""
    import pandas as pd

    frame = pd.DataFrame([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], index=["a", "b"],
                         columns=[10, 20, 30])
    out = _rbridge._for_r(frame)
    assert out["cells"].tolist() == [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]
    assert [level.tolist() for level in out["levels"]] == [["a", "b"], [10, 20, 30]]
    three = pd.Series(np.arange(8.0), index=pd.MultiIndex.from_product(
        [["p", "q"], [True, False], ["x", "y"]]))
    out = _rbridge._for_r({"Bounded": three})["Bounded"]
    assert out["cells"].tolist() == [0.0, 4.0, 2.0, 6.0, 1.0, 5.0, 3.0, 7.0]
    assert [level.tolist() for level in out["levels"]] == [["p", "q"], [True, False],
                                                           ["x", "y"]]
    empty = _rbridge._for_r(pd.Series([], dtype=float))
    assert empty["cells"].size == 0 and empty["levels"][0].size == 0


def test_seed_words_generator_uses_every_word_as_entropy():
    # R's reproducible mode seeds each call with four 32-bit words of R's stream (128 bits).
    words = [3_000_000_000.0, 1.0, 2.0, 4_294_967_295.0]  # doubles, as R passes them
    reply = _rbridge.call("seed_words_generator", [], {"words": words})
    assert reply["error"] is None
    expected = np.random.default_rng([3_000_000_000, 1, 2, 4_294_967_295]).random(4)
    assert np.array_equal(reply["value"].random(4), expected)
    base = _rbridge.call("seed_words_generator", [], {"words": words})["value"].random(4)
    for i in range(4):
        changed = list(words)
        changed[i] = (changed[i] + 1) % 2**32
        other = _rbridge.call("seed_words_generator", [], {"words": changed})["value"]
        assert not np.any(other.random(4) == base)


@pytest.mark.parametrize(
    "words",
    [[1, 2, 3], [1, 2, 3, 2**32], [1, 2, 3, -1], [1, 2, 3, 0.5], [1, 2, 3, True], "abcd", 7],
)
def test_seed_words_generator_refuses_bad_words(words):
    reply = _rbridge.call("seed_words_generator", [], {"words": words})
    assert reply["error"] == (
        "random_state words must be at least four whole numbers in [0, 2^32)."
    )


# ---- data.frames: the columns of R's memory, assembled once by the core ---------------------

def _r_columns(*columns):
    """What R's bridge hands the core for a data.frame: read-only views of each column's
    memory (here NumPy buffers stand for R's), as ``.design_to_py`` in R/bridge.R makes them."""
    owner = object()
    view = _rbridge.r_columns([float(c.ctypes.data) for c in columns],
                              [c.dtype == np.int32 for c in columns], columns[0].size, owner)
    return view, owner


def test_r_columns_are_read_only_views_of_r_memory():
    doubles = np.linspace(-2, 2, 9)
    integers = np.arange(-4, 5, dtype=np.int32)
    X, owner = _r_columns(doubles, integers)
    assert X.shape == (9, 2) and len(X) == 9
    for view, memory in zip(X.columns, (doubles, integers)):
        assert view.dtype == memory.dtype and np.shares_memory(view, memory)
        assert np.array_equal(view, memory)
        assert not view.flags.writeable
        with pytest.raises(ValueError, match="read-only"):
            view[0] = 1
        assert view.base.owner is owner  # in R: a closure over the data.frame
    # Code that does not know a ColumnMatrix gets the matrix (a new array), as.matrix's values.
    assert np.array_equal(np.asarray(X), np.column_stack([doubles, integers.astype(float)]))
    single, _ = _r_columns(doubles)  # reticulate passes one column's address as a scalar
    assert _rbridge.r_columns(float(doubles.ctypes.data), False, 9, None).shape == (9, 1)
    assert single.shape == (9, 1)


@pytest.mark.parametrize("columns", [
    [], [np.zeros((2, 2))], [np.zeros(3), np.zeros(4)], [np.array(["a", "b"])],
    [np.array([True, False])],
])
def test_a_column_matrix_takes_numeric_vectors_of_one_length(columns):
    from dppack._columns import ColumnMatrix
    with pytest.raises(ValueError):
        ColumnMatrix(columns)


# Every layout of the data the design is assembled from (ColumnBounds.clip): C order (Python),
# Fortran order (an R matrix), R's columns (a data.frame, an integer column among them).
@pytest.mark.parametrize("n", [1, 7, 4096, 4097, 10_001])  # around the block of rows
@pytest.mark.parametrize("options", [
    {}, {"scale": "l2", "labels": "binary"}, {"scale": "l1", "labels": "signed"},
    {"scale": "max", "target": True},
])
@pytest.mark.parametrize("add_bias", [False, True])
def test_the_design_is_the_same_from_every_layout_bit_for_bit(n, options, add_bias,
                                                               monkeypatch):
    from dppack.erm import _matrix
    from dppack.erm._design import prepare_design
    monkeypatch.setattr(_matrix, "ASSEMBLY_ROWS", 4096)  # several blocks, a shorter last one
    rng = np.random.default_rng(n)  # seed: any data; the comparisons are exact
    doubles = rng.uniform(-2, 2, size=(n, 2))
    integers = rng.integers(-3, 4, size=n).astype(np.int32)
    X = np.column_stack([doubles[:, 0], integers, doubles[:, 1]])
    y = (rng.uniform(size=n) < 0.5).astype(float)
    target = options.get("target", False)
    upper, lower = [1.5, 2, 1] + [1] * target, [-1, -2.5, -1.5] + [0.5] * target
    memory = doubles[:, 0].copy(), integers, doubles[:, 1].copy()  # R's, alive while used
    X_r, _ = _r_columns(*memory)
    kept = [column.copy() for column in X_r.columns]
    # The reference: clip the whole matrix, then scale, as the core did before issue 14.
    p = X.shape[1]
    expected = np.empty((n, p + add_bias))
    expected[:, 0] = 1.0
    np.clip(X, lower[:p], upper[:p], out=expected[:, add_bias:])
    scale = prepare_design(X, y, upper, lower, add_bias, **options)["scale"]
    if scale is not None:
        expected /= scale
    for data in (X, np.asfortranarray(X), X_r):
        design = prepare_design(data, y, upper, lower, add_bias, **options)
        assert design["X"].flags.c_contiguous  # the solver's layout
        assert np.array_equal(design["X"], expected)
    assert all(np.array_equal(a, b) for a, b in zip(X_r.columns, kept))  # R's data unchanged


def test_r_columns_are_checked_like_a_matrix():
    from dppack.erm._design import prepare_design
    X, _ = _r_columns(np.array([0.5, np.nan, 0.1]), np.array([1, 2, 3], dtype=np.int32))
    with pytest.raises(ValueError, match=r"^X must be finite \(no NA, NaN or Inf\)\.$"):
        prepare_design(X, [0, 1, 1], [1, 1], [-1, -1], False)
    # DPpack's order: the bounds' lengths first, then X finite, then y.
    with pytest.raises(ValueError, match="Length of upper.bounds"):
        prepare_design(X, [0, 1, 1], [1], [-1, -1], False)
    with pytest.raises(ValueError, match="X must be finite"):
        prepare_design(X, [0, np.nan, 1], [1, 1], [-1, -1], False)


@pytest.mark.parametrize("fit", [
    lambda X, y: dppack.LogisticRegressionDP("l2", 1, 0.5).fit(
        X, y, [1, 3], [-1, -3], add_bias=True, random_state=5).coeff,
    lambda X, y: dppack.svmDP("l2", 1, 0.5, "output").fit(
        X, y, [1, 3], [-1, -3], random_state=5).coeff,
    lambda X, y: dppack.svmDP("l2", 1, 0.5, kernel="Gaussian", D=6).fit(
        X, y, random_state=5).coeff,  # no bounds: the matrix from __array__
    lambda X, y: dppack.LinearRegressionDP("l2", 1, 0, 0.5).fit(
        X, y * 2 - 1, [1, 3, 1], [-1, -3, -1], random_state=5).coeff,
    lambda X, y: dppack.EmpiricalRiskMinimizationDP_CMS(
        dppack.mapXy_sigmoid, dppack.loss_cross_entropy, "l2", 1, 0.5, c=0.25,
        mapXy_gr=dppack.mapXy_gr_sigmoid, loss_gr=dppack.loss_gr_cross_entropy).fit(
        X, y, [1, 3], [-1, -3], random_state=5).coeff,
])
def test_fits_from_r_columns_are_the_fits_from_the_matrix(fit):
    rng = np.random.default_rng(11)  # seed: any data; the comparison is exact
    doubles = rng.uniform(-1.2, 1.2, size=6000)
    integers = rng.integers(-3, 4, size=6000).astype(np.int32)
    y = (doubles + integers / 3 + rng.logistic(size=6000) > 0).astype(float)
    X_r, _ = _r_columns(doubles, integers)
    matrix = np.column_stack([doubles, integers]).astype(float)
    assert np.array_equal(fit(X_r, y), fit(np.asfortranarray(matrix), y))
