"""Shared by tests/python/dask/test_dask_quantiles.py and
tests/privacy/test_audit_dask_quantiles.py: thousands of draws of the Dask quantile without
thousands of passes over the data."""

import importlib

import dask


def reuse_the_pass(monkeypatch):
    """Make ``dppack.dask._quantiles.cell_counts`` run the real pass once per dataset (and
    grid) and hand out copies of its counts afterwards.

    The pass is a deterministic function of the data; the checks, the candidates, the charge
    and the draw of ``quantileDP`` still run on every call. Undone with ``monkeypatch``.
    """
    quantiles = importlib.import_module("dppack.dask._quantiles")
    real, cache = quantiles.cell_counts, {}

    def cell_counts(x, cells, name, min_size):
        key = (dask.base.tokenize(x), cells.j, cells.first, cells.last, cells.shift)
        if key not in cache:
            cache[key] = real(x, cells, name, min_size)
        return tuple(array.copy() for array in cache[key])

    monkeypatch.setattr(quantiles, "cell_counts", cell_counts)
