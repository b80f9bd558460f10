"""Data beyond one machine's memory: the statistics and models on Dask.

Users do not call this package: ``meanDP``, ``LogisticRegressionDP.fit`` and the rest accept
Dask arrays, DataFrames and Series (and so Parquet datasets read lazily by
``dask.dataframe.read_parquet``) and route them here. Each release is computed from mergeable
sufficient statistics (counts, clipped sums, sums of squares and cross-products, bin counts,
X'X and X'y, per-partition loss and gradient sums), in as few passes over the data as the
statistic allows; the noise is drawn once, on the driver, by the same samplers and charged to
the same accountant as in memory, so the privacy guarantee is the in-memory one.

Needs the optional extra ``dppack[dask]``; importing this package without Dask raises
ImportError with the install command.
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

from . import backend  # noqa: E402,F401  (registers the Dask backend in dppack._backends)
