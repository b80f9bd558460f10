"""The entry point the R package calls: one public function, its warnings and its error.

reticulate's rendering of a Python exception depends on its version and it drops warnings,
so R calls :func:`r_call`, which reports what happened as plain data; the R bridge raises
DPpack's message as an R error and re-issues each warning.
"""

import functools
import numbers
import warnings

import numpy as np

import dppack
from dppack import _checks, _messages, _random, rcompat
from dppack._columns import ColumnMatrix

__all__ = ["call", "call_method", "r_call", "r_columns", "r_double_view"]


def _generator(random_state):
    """The shared generator of R's ``with_random_state()``, from a seed given in R."""
    if isinstance(random_state, bool) or not isinstance(random_state, numbers.Real):
        raise TypeError("random_state must be a non-negative whole number.")
    try:
        return _random.as_generator(random_state)
    except TypeError:
        raise TypeError("random_state must be a non-negative whole number.") from None


def _seed_words_generator(words):
    """The generator of one R call in reproducible mode, from R's 32-bit ``words``."""
    return _random.generator_from_words(words)


def _apply(factory, factory_kwargs, kwargs):
    """Call what a public ``generate_*`` factory makes (R's closures over the factories)."""
    if factory not in dppack.__all__ or not factory.startswith("generate_"):
        raise AttributeError(f"dppack has no public factory {factory!r}")
    return getattr(dppack, factory)(**factory_kwargs)(**kwargs)


@functools.lru_cache(maxsize=1)
def _public_names():
    """``dppack.__all__`` as a set (one lookup per call instead of a scan)."""
    return frozenset(dppack.__all__)


def _callable(name):
    if name == "generator":
        return _generator
    if name == "seed_words_generator":
        return _seed_words_generator
    if name == "apply":
        return _apply
    if name in _public_names():
        return getattr(dppack, name)
    raise AttributeError(f"dppack has no public function {name!r}")


def call(name, args, kwargs):
    """Run ``dppack.<name>(*args, **kwargs)`` and report its value, warnings and error.

    ``name`` is a name of ``dppack.__all__``, or ``"generator"``, ``"seed_words_generator"`` or
    ``"apply"`` (R's seeding and factories). Returns a dict: ``value`` (None on error),
    ``warnings`` and ``error`` in R's spelling, and ``error_class``
    (``"DPpackPy_budget_exceeded"`` or None). Only ``ValueError`` and ``TypeError`` are
    reported; anything else is a bug and propagates.
    """
    return _report(_callable(name), args, kwargs)


def call_method(obj, name, args, kwargs):
    """Run ``obj.<name>(*args, **kwargs)`` (a public method) and report as :func:`call`."""
    return _report(_method(obj, name), args, kwargs)


def _method(obj, name):
    if name.startswith("_"):
        raise AttributeError(f"{name!r} is not a public method")
    return getattr(obj, name)


def r_call(name, obj, args, kwargs, words=None):
    """R's one round trip per call: :func:`call` (``obj`` None) or :func:`call_method`, short.

    A float result without warnings comes back as the float, another as ``(value,)``; otherwise
    ``(value, warnings, error, error_class)``. Given R's seed ``words``, they set
    ``random_state``.

    Examples
    --------
    >>> from dppack._rbridge import r_call
    >>> type(r_call("meanDP", None, [[1.0, 2.0], 1.0, 0.0, 3.0], {"random_state": 1}))
    <class 'float'>
    >>> len(r_call("LaplaceMechanism", None, [[0.0, 0.0], 1.0, 1.0], {"random_state": 1}))
    1
    >>> r_call("meanDP", None, [[1.0, 2.0], -1.0, 0.0, 3.0], {})[2]
    'eps must be a scalar > 0'
    """
    function = _callable(name) if obj is None else _method(obj, name)
    kwargs = dict(kwargs) if kwargs else {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        error = error_class = None
        try:
            if words is not None:
                kwargs["random_state"] = _random.generator_from_words(words)
            value = function(*args, **kwargs)
        except (ValueError, TypeError) as exc:
            value, error = None, _messages.r_text(exc)  # R's spelling (dppack._messages)
            if isinstance(exc, dppack.BudgetExceededError):
                error_class = "DPpackPy_budget_exceeded"  # R's condition class
    if error is None and not caught:
        if type(value) is float:  # a tuple would cost R a list to convert and unpack
            return value
        return (_for_r(value),)
    return (_for_r(value), [_messages.r_text(w.message) for w in caught], error, error_class)


def _report(function, args, kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        error_class = None
        try:
            value, error = function(*args, **kwargs), None
        except (ValueError, TypeError) as exc:
            value, error = None, _messages.r_text(exc)  # R's spelling (dppack._messages)
            if isinstance(exc, dppack.BudgetExceededError):
                error_class = "DPpackPy_budget_exceeded"  # R's condition class
    return {
        "value": _for_r(value),
        "warnings": [_messages.r_text(w.message) for w in caught],
        "error": error,
        "error_class": error_class,
    }


class _RDoubles:
    """R's memory of a double (or int32) vector through NumPy's array interface, read-only;
    ``owner`` (a handle on an R closure over the vector) keeps it alive and copied-on-write in R.
    """

    def __init__(self, address, length, owner, dtype=np.float64):
        self.owner = owner
        self.__array_interface__ = {
            "data": (address, True),  # read-only: the core never writes into the caller's data
            "shape": (length,),
            "typestr": np.dtype(dtype).str,  # R's doubles or ints, in the machine's byte order
            "version": 3,
        }


def r_double_view(address, length, owner):
    """A read-only NumPy view of ``length`` doubles that R keeps at ``address`` (not copied)."""
    return np.asarray(_RDoubles(int(address), int(length), owner))


def r_columns(addresses, integer, length, owner):
    """A data.frame's columns as a :class:`dppack._columns.ColumnMatrix` of read-only views of R's
    memory: ``addresses`` per column, ``integer`` flags (int32 columns), ``length`` rows,
    ``owner`` keeping the frame alive.
    """
    if isinstance(addresses, numbers.Real):  # reticulate gives a scalar for one column
        addresses, integer = [addresses], [integer]
    return ColumnMatrix([
        np.asarray(_RDoubles(int(address), int(length), owner,
                             np.int32 if is_integer else np.float64))
        for address, is_integer in zip(addresses, integer)
    ])


def _loss_fields(loss):
    """A PrivacyLoss as the fields of R's "privacy_loss" (kind, eps and delta or rho), or None."""
    if loss is None:
        return None
    if loss.kind == "zcdp":
        return {"kind": loss.kind, "rho": loss.rho}
    return {"kind": loss.kind, "eps": loss.eps, "delta": loss.delta}


def _for_r(value):
    """A result as plain data reticulate converts well: a Histogram as a dict of its fields, a
    pandas table as its cells in R's column-major order with its levels, dicts entry by entry.
    """
    if isinstance(value, dict):
        return {key: _for_r(item) for key, item in value.items()}
    if isinstance(value, tuple) and hasattr(value, "_fields"):  # boundsDP's named tuple
        return list(value)  # reticulate 1.28 fails on a namedtuple
    if isinstance(value, rcompat.Histogram):
        return {
            "breaks": value.breaks,
            "counts": value.counts,
            "mids": value.mids,
            "xname": value.xname,
            "equidist": value.equidist,
            # histogramDP's release spent this (R titles the plot with it); None for the
            # true histograms of histogramDataAccess
            "privacy": _loss_fields(getattr(value, "privacy_", None)),
        }
    if _checks.is_pandas(value):
        index = value.index
        shape = list(index.levshape) if index.nlevels > 1 else [len(index)]
        if value.ndim == 2:
            shape.append(value.shape[1])
        if index.nlevels > 1:
            # The order of a product index's tuples (pandas sorts its .levels); without
            # tuples only the lengths matter.
            levels = [
                np.asarray((index.unique(i) if len(index) else index.levels[i]).tolist())
                for i in range(index.nlevels)
            ]
        else:
            levels = [np.asarray(index.tolist())]
        if value.ndim == 2:
            levels.append(np.asarray(value.columns.tolist()))
        # pandas lays the cells out with the first factor varying slowest; R, fastest.
        return {"cells": value.to_numpy().reshape(shape).ravel(order="F"), "levels": levels}
    return value
