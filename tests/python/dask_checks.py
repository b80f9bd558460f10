"""Shared helper of the Dask tests: count the graphs Dask runs.

A test that must not read data (an error raised from metadata only) or must read them in a
given number of passes counts the runs of Dask's local scheduler with :class:`ComputeCounter`.
"""

from dask.callbacks import Callback

__all__ = ["ComputeCounter"]


class ComputeCounter(Callback):
    """Counts the runs of Dask's local scheduler while it is active: each ``dask.compute``
    (or ``.compute()``) starts one (``_start``)."""

    def __init__(self):
        super().__init__()
        self.count = 0

    def _start(self, dsk):
        self.count += 1
