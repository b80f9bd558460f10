"""DPpack 0.2.2's private descriptive statistics: meanDP ... medianDP.

Each is one plan (``dppack._plans``) run by one runner; their common rules (check order,
empty data, accounting, randomness, Dask) are in ``docs/python/guide/adding-a-release.md``.
"""

from ._histogram import histogramDP
from ._moments import covDP, meanDP, sdDP, varDP
from ._pooled import pooledCovDP, pooledVarDP
from ._quantile import medianDP, quantileDP
from ._table import tableDP

__all__ = [
    "covDP",
    "histogramDP",
    "meanDP",
    "medianDP",
    "pooledCovDP",
    "pooledVarDP",
    "quantileDP",
    "sdDP",
    "tableDP",
    "varDP",
]
