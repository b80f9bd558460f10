"""Where the data live: the one dispatch point between the core and its data backends.

The core asks :func:`backend_for` for the backend of its data and asks it for what a release
needs (:data:`PROTOCOL`): in memory (:mod:`dppack._memory`) or Dask
(:mod:`dppack.dask._backend`). Backends register themselves (:func:`register`); a Dask
collection is recognised by its package, and the Dask backend imported on first use by
:func:`_load` (the one function-local import), so ``import dppack`` never imports Dask.
"""

import importlib

from . import _messages

__all__ = []

# Written for R, whose users meet Dask data as a dppack_dataset; a Python caller reads "does
# not run on Dask data: compute it into memory (x.compute()) ... (see dppack.dask)." (_messages)
DASK_MESSAGE = (
    "{name} does not run on Dask data (a dppack_dataset's columns): read them into memory if "
    "they fit, or use a statistic or model that runs on Dask (see ?dppack_dataset)."
)

MEMORY = "memory"

#: The libraries whose collections another backend computes on, and the module that
#: registers that backend (imported by :func:`_load` on first use).
_LAZY = {"dask": "dppack.dask"}

_REGISTRY = {}


class WindowTooWide(Exception):
    """A quantile's records too spread for the in-memory window (then drawn from the runs)."""


#: The methods every backend implements, with one signature (a test compares them): the
#: sources of the statistics, DPpack's data access, the models' designs and predictions.
PROTOCOL = (
    "sample", "pair", "pooled", "histogram", "quantile_source", "table_factors",
    "mean_access", "var_access", "cov_access", "hist", "pooled_var_access",
    "pooled_cov_access",
    "margin_design", "kernel_design", "regression_design", "adassp_statistics",
    "unit_weights", "predict",
    "refuse",
)


class Backend:
    """The interface of every backend: the methods of :data:`PROTOCOL`, whose contracts are written
    on :class:`dppack._memory.MemoryBackend`.
    """

    name = MEMORY

    def refuse(self, name):
        """Raise ``TypeError`` if release ``name`` cannot run on this backend's data."""


def _library(value):
    """The top-level package that defines ``type(value)`` ("numpy", "pandas", "dask", ...)."""
    return type(value).__module__.partition(".")[0]


def is_dask(value):
    """True for a Dask collection, recognised without importing Dask."""
    return _library(value) == "dask"


def register(library, backend):
    """Make ``backend`` the backend of ``library``'s collections (:data:`MEMORY` for in memory)."""
    _REGISTRY[library] = backend


def _load(library):
    """The hook: import the module that registers ``library``'s backend."""
    importlib.import_module(_LAZY[library])


def _items(values):
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from value
        else:
            yield value


def backend_for(*values):
    """The backend of the data ``values``: Dask's if any is a Dask collection, else in memory.

    Parameters
    ----------
    *values : object

    Returns
    -------
    Backend
    """
    for value in values:
        library = _library(value)
        if library in _LAZY:
            if library not in _REGISTRY:
                _load(library)
            return _REGISTRY[library]
    return _REGISTRY[MEMORY]


def refuse_dask(name, *values):
    """Raise ``TypeError`` (:data:`DASK_MESSAGE`) if any of ``values`` (or items of a list or tuple
    among them) is Dask data, for a release ``name`` that does not run on Dask: called first,
    before any data is read, noise drawn or budget charged.
    """
    if any(_library(item) in _LAZY for item in _items(values)):  # no backend loaded to refuse
        raise refusal(name)


def refusal(name):
    """The ``TypeError`` of a release ``name`` that does not run on Dask data."""
    return _messages.type_error(DASK_MESSAGE.format(name=name))
