"""The Dask backend: the methods of :class:`dppack._backends.Backend` on Dask collections.

Each method makes the checks that need no pass at the in-memory position and returns a
source whose statistics come from one pass (:mod:`dppack.dask._moments`,
:mod:`dppack.dask._quantiles`, :mod:`dppack.dask._erm`, :mod:`dppack.dask._adassp`), with the
values the in-memory backend (:mod:`dppack._memory`) gives. Registered in
:mod:`dppack._backends` when :mod:`dppack.dask` is imported.
"""

from .. import _access_cores, _backends, _messages
from ..erm.weighting import DASK_ONES_MESSAGE
from . import _adassp as adassp, _erm as erm, _moments as moments, _quantiles as quantiles

__all__ = []


def declares_levels(x):
    """Whether Dask factor ``x`` declares its levels: a categorical Series whose categories
    are known (in its metadata: no pass)."""
    return str(getattr(x, "dtype", "")) == "category" and bool(x.cat.known)


class QuantileSource:
    """quantileDP's data on Dask: the checks that need no pass at construction
    (:func:`dppack.dask._moments.check_sample`), then one pass for the counts on a
    resolution's candidates or per cell of the grid (with the size and finiteness checks)."""

    def __init__(self, x, name, min_size):
        self.x, self.name, self.min_size = moments.check_sample(x, name, min_size), name, min_size

    def lattice_counts(self, lattice):
        return quantiles.lattice_counts(self.x, lattice, self.name, self.min_size)

    def records(self, j, first, last):
        cells = quantiles.Cells(j, first, last, quantiles.cell_shift(first, last))
        occupied, counts = quantiles.cell_counts(self.x, cells, self.name, self.min_size)
        return CellRecords(cells, occupied, counts)


class CellRecords(quantiles.CountedRecords):
    """The records counted per cell (:class:`dppack.dask._quantiles.CountedRecords`), with
    the runs of the grid the release draws from when they are too spread for the window
    (:class:`dppack._backends.WindowTooWide`): :meth:`runs`."""

    def __init__(self, cells, occupied, counts):
        super().__init__(cells.points(occupied), counts)
        self.cells, self.occupied = cells, occupied

    def runs(self):
        """(ranks, widths, starts) of :meth:`dppack.dask._quantiles.Cells.runs`."""
        return self.cells.runs(self.occupied, self.counts)


class DaskBackend(_backends.Backend):
    """Dask arrays, DataFrames and Series (the contracts:
    :class:`dppack._memory.MemoryBackend`)."""

    name = "dask"

    def refuse(self, name):
        raise _backends.refusal(name)

    # ---- statistics ------------------------------------------------------------------------

    def sample(self, x, lower, upper, which_sensitivity, min_size, variance=False):
        return moments.Sample(x, "x", lower, upper, which_sensitivity, min_size,
                              variance=variance)

    def pair(self, x1, x2, bounds, which_sensitivity, min_size):
        bounds = _access_cores.cov_bounds(x1, x2, *bounds)
        return moments.Pair(x1, x2, bounds, which_sensitivity, min_size), bounds

    def pooled(self, samples, bounds, which_sensitivity, min_size, columns=None):
        return moments.Pooled(samples, bounds, which_sensitivity, min_size, columns)

    def histogram(self, x, lower, upper, min_size):
        moments.check_sample(x, "x", min_size)
        return moments.Histogram(x, lower, upper)

    def quantile_source(self, x, name, min_size):
        return QuantileSource(x, name, min_size)

    def table_factors(self, factors):
        factors = moments.factors_of(factors)
        declared = [declares_levels(f) for f in factors]

        def tabulate_dask(observed):
            return moments.combinations(factors, declared, observed)

        return factors, declared, moments.factor_names(factors), tabulate_dask

    # ---- DPpack's data access (not clipped) ------------------------------------------------

    def mean_access(self, x, lower, upper):
        return moments.Sample(x, "x", lower, upper, "bounded", 1, clip=False).mean_access()

    def var_access(self, x, lower, upper):
        return moments.Sample(x, "x", lower, upper, "bounded", 2, variance=True,
                              clip=False).var_access()

    def cov_access(self, x1, x2, bounds):
        bounds = _access_cores.cov_bounds(x1, x2, *bounds)
        return moments.Pair(x1, x2, bounds, "bounded", 2, clip=False).cov_access()

    def hist(self, x, breaks):
        return moments.hist(x, breaks)

    def pooled_var_access(self, samples, bounds, approx_n_max):
        return moments.Pooled(samples, bounds, "bounded", 2,
                              clip=False).pooled_var_access(approx_n_max)

    def pooled_cov_access(self, samples, bounds, approx_n_max):
        return moments.Pooled(samples, bounds, "bounded", 2, columns=2,
                              clip=False).pooled_cov_access(approx_n_max)

    # ---- models ----------------------------------------------------------------------------

    def margin_design(self, X, y, upper_bounds, lower_bounds, add_bias, loss, with_gradient,
                      newton, labels, weights=None, weights_upper_bound=None):
        return erm.margin_design(X, y, upper_bounds, lower_bounds, add_bias, loss,
                                 with_gradient, newton, weights, weights_upper_bound)

    def kernel_design(self, X, y, add_bias, loss, with_gradient, draw_prefilter, weights=None,
                      weights_upper_bound=None):
        return erm.kernel_design(X, y, add_bias, loss, with_gradient, draw_prefilter, weights,
                                 weights_upper_bound)

    def regression_design(self, X, y, upper_bounds, lower_bounds, add_bias, set_scaling,
                          on_grid=False):
        """X'X, X'y, y'y and n of the scaled rows (on the grid with ``on_grid``) from one
        pass (:func:`dppack.dask._erm.regression_statistics`; the solver needs nothing
        else)."""
        return erm.regression_statistics(X, y, upper_bounds, lower_bounds, add_bias,
                                         set_scaling, on_grid=on_grid), None

    def adassp_statistics(self, X, y, upper_bounds, lower_bounds, add_bias):
        return adassp.grid_statistics(X, y, upper_bounds, lower_bounds, add_bias)

    def unit_weights(self, X, y):
        raise _messages.value_error(DASK_ONES_MESSAGE)

    def predict(self, model, X, rows, **options):
        """``model.predict`` block by block (``rows``, the in-memory prediction, is reached
        through it)."""
        return erm.predict(model, X, **options)


_backends.register("dask", DaskBackend())
