"""The Python half of R's bridge: views of R's memory, and read-only inputs everywhere.

R hands long double vectors to the core as read-only views of its own memory
(``_rbridge.r_double_view``), so every public function must accept read-only arrays and must
never write into its input.
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
