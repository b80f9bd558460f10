"""Data beyond one machine's memory: the statistics and models on Dask.

Users do not call this package: ``meanDP``, ``LogisticRegressionDP.fit`` and the rest accept
Dask arrays, DataFrames and Series and route them here. Each release is computed from
mergeable sufficient statistics in few passes; the noise is drawn once, on the driver, by
the same samplers and charged as in memory. Needs ``dppack[dask]``.
"""

try:
    import dask  # noqa: F401
except ImportError as error:  # pragma: no cover - exercised in a subprocess by test_frames
    raise ImportError(
        "Dask data need the optional dependency Dask: pip install 'dppack[dask]'."
    ) from error

__all__ = []

from .dataset import *  # noqa: E402,F401,F403  (dppack.dask.dataset: the function)
from .dataset import __all__ as _dataset_all  # noqa: E402

__all__ += _dataset_all

from . import _backend  # noqa: E402,F401  (registers the Dask backend in dppack._backends)
