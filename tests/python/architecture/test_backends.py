"""The data backends: one interface (dppack._backends.PROTOCOL) and one dispatch point."""

import inspect

import numpy as np
import pandas as pd
import pytest

import dppack
from dppack import _backends, _memory

da = pytest.importorskip("dask.array")
from dppack.dask import _backend as dask_backend  # noqa: E402


@pytest.mark.parametrize("method", _backends.PROTOCOL)
def test_both_backends_implement_the_protocol_with_one_signature(method):
    memory = getattr(_memory.MemoryBackend, method)
    dask = getattr(dask_backend.DaskBackend, method)
    assert inspect.signature(memory) == inspect.signature(dask)


def test_backend_for_picks_dask_if_any_argument_is_dask():
    x = np.arange(4.0)
    assert _backends.backend_for(x, None, pd.Series(x)).name == "memory"
    assert _backends.backend_for(x, da.from_array(x)).name == "dask"
    assert _backends.backend_for(None, da.from_array(x)).name == "dask"
    # a sequence is data, not a list of arguments: its items are not looked at
    assert _backends.backend_for([da.from_array(x)]).name == "memory"


def test_refusal_looks_inside_lists_and_comes_before_any_charge():
    x = da.from_array(np.arange(4.0))
    with pytest.raises(TypeError, match="^LaplaceMechanism does not run on Dask data"):
        _backends.refuse_dask("LaplaceMechanism", [np.zeros(2), x])
    assert _backends.refuse_dask("LaplaceMechanism", [np.zeros(2)], None) is None
    accountant = dppack.BudgetAccountant(1.0)
    with pytest.raises(TypeError, match="does not run on Dask data"):
        dppack.LaplaceMechanism(x, 1.0, 1.0, random_state=1, accountant=accountant)
    assert len(accountant.ledger) == 0


def test_memory_and_dask_sources_give_the_same_statistic():
    x = np.linspace(-1.0, 3.0, 101)
    memory = _backends.backend_for(x).sample(x, 0.0, 2.0, "both", 1, variance=True)
    dask = _backends.backend_for(da.from_array(x, chunks=17)).sample(
        da.from_array(x, chunks=17), 0.0, 2.0, "both", 1, variance=True)
    assert memory.size() == dask.size() == 101
    # exact: integer grid sums on both backends (issue 25)
    assert dask.var_exact() == memory.var_exact()
    assert dask.centred_exact()["True.Values"] == memory.centred_exact()["True.Values"]
