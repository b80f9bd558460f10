"""Where the data live: the one dispatch point between the core and its data backends.

The core never asks what kind of data it holds. It asks :func:`backend_for` for the backend
of its data arguments and then asks that backend for what the release needs: a sample's
moments, a pair's cross-moments, the samples of a pooled statistic, a histogram's counts, a
table's cells, a quantile's records, an ERM design (rows, partitioned risk or Gram
statistics), predictions. Two backends implement the same methods (:class:`Backend`):

* in memory (:mod:`dppack._memory`): NumPy arrays, pandas, polars, pyarrow, sequences;
* Dask (:mod:`dppack.dask.backend`): arrays, DataFrames and Series, reduced to mergeable
  sufficient statistics in as few passes as each release allows.

Each backend registers itself here when its module is imported (:func:`register`), so this
module imports no backend and ``import dppack`` never imports Dask. A Dask collection is
recognised by the package its type comes from (no import of Dask). If one arrives before
:mod:`dppack.dask` was imported, :func:`backend_for` imports it through one hook,
:func:`_load` (the only import of a dppack module made inside a function).

A release that cannot run on Dask data refuses them (:func:`refuse_dask`, or
:meth:`Backend.refuse` on the backend in hand) before any data is read, without loading the
Dask backend: the message lives here, once.
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
    """A quantile's records are too spread for the in-memory window of candidates (raised by
    a backend's records before any draw; the release then draws from the runs)."""


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
    """The interface every backend implements: the methods of :data:`PROTOCOL`, which the
    core calls (:mod:`dppack.stats` and :mod:`dppack.data_access` the statistics' sources and
    data access, :mod:`dppack.erm` the designs, statistics and predictions of the models).
    Each method's contract is written on the in-memory backend
    (:class:`dppack._memory.MemoryBackend`); the Dask backend gives the same values from its
    passes.
    """

    name = MEMORY

    def refuse(self, name):
        """Raise ``TypeError`` if release ``name`` cannot run on this backend's data."""


def _library(value):
    """The top-level package that defines ``type(value)`` ("numpy", "pandas", "dask", ...)."""
    return type(value).__module__.partition(".")[0]


def is_dask(value):
    """True for a Dask collection (array, DataFrame, Series), recognised without importing
    Dask (for :mod:`dppack.dask`, which mixes in-memory and Dask arguments)."""
    return _library(value) == "dask"


def register(library, backend):
    """Make ``backend`` the backend of the collections of ``library`` (:data:`MEMORY` for the
    in-memory one)."""
    _REGISTRY[library] = backend


def _load(library):
    """The hook: import the module that registers the backend of ``library``'s collections
    (the user has that library already: its collection is in hand)."""
    importlib.import_module(_LAZY[library])


def _items(values):
    for value in values:
        if isinstance(value, (list, tuple)):
            yield from value
        else:
            yield value


def backend_for(*values):
    """The backend of the data ``values`` (None and in-memory values count for nothing): the
    Dask backend if any is a Dask collection, else the in-memory one.

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
    """Raise ``TypeError`` naming ``name`` if the data ``values`` live on a backend where
    release ``name`` does not run (:data:`DASK_MESSAGE`).

    Called first thing by every public function that cannot run on Dask data (the
    mechanisms, the tuning functions, the research methods, the scikit-learn estimators), so
    the refusal comes before any data is touched, any noise drawn and any budget charged.
    Dask data are never computed into memory behind the caller's back.

    Parameters
    ----------
    name : str
        The public function (or ``Class.method``) as the caller spells it.
    *values : object
        The data arguments; the items of a list or tuple (samples, a dataset ``(X, y)``) are
        looked at too.

    Raises
    ------
    TypeError
        ":data:`DASK_MESSAGE`" with ``name``.
    """
    if any(_library(item) in _LAZY for item in _items(values)):  # no backend loaded to refuse
        raise refusal(name)


def refusal(name):
    """The ``TypeError`` of a release ``name`` that does not run on Dask data."""
    return _messages.type_error(DASK_MESSAGE.format(name=name))
