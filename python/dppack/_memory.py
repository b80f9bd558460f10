"""The in-memory backend: NumPy arrays, pandas, polars, pyarrow and sequences.

The data are checked and converted once (:mod:`dppack._checks`, :mod:`dppack._frames`) and
each statistic is computed on the whole columns, vectorised, by the formulas of
:mod:`dppack.data_access`, :mod:`dppack.rcompat` and :mod:`dppack.erm`. The Dask backend
(:mod:`dppack.dask._backend`) implements the same methods on partitioned data; the core reaches
either through :func:`dppack._backends.backend_for`. This module registers itself on import
(``import dppack`` imports it).
"""

import math

import numpy as np

from . import _access_cores, _backends, _checks, _exact_sums, data_access, rcompat
from .rcompat import _factor, _hist
from .data_access import check_samples
from .erm._adassp_grid import grid_bits, grid_layout, grid_records, integer_gram
from .erm._design import (
    as_design_matrix,
    as_labels,
    check_finite_matrix,
    fourier_features,
    prepare_design,
    prepare_weights,
)
from .erm.kst import grid_regression, regression_grid, scale_regression
from .stats import _quantile as stats_quantile

__all__ = []


def needs_clip(low, high, lower, upper):
    """Whether data of range [low, high] reach outside [lower, upper]."""
    return low < lower or high > upper


def clip(x, low, high, lower, upper):
    """x clipped to [lower, upper]; x itself (no copy) when its range [low, high] is inside.

    (meanDP and varDP do not materialise the clipped data: their data-access cores clip
    block by block.)
    """
    if needs_clip(low, high, lower, upper):
        return np.clip(x, lower, upper)
    return x


class MemorySample:
    """The data of meanDP/varDP in memory, as the statistics read them (the same methods as
    :class:`dppack.dask._moments.Moments`, so that one release serves both paths): checked,
    and their exact grid sums (``dppack._exact_sums``) from the same scan as their range."""

    def __init__(self, x, lower, upper, minimum, squares=False):
        sums = _exact_sums.GridSums(lower, upper, squares)
        self.x = _checks.as_finite_data(x, "x", minimum, clip=(lower, upper),
                                        reduce=sums.add)[0]
        self.sums, self.lower, self.upper = sums, lower, upper

    def size(self):
        return self.x.size

    def mean_exact(self):
        return _access_cores.mean_exact(self.sums.n, self.sums.s1, self.lower, self.upper)

    def var_exact(self):
        s = self.sums
        return _access_cores.var_exact(s.n, s.s1, s.s2, self.lower, self.upper)

    def centred_exact(self, squares=True):
        s = self.sums
        return _access_cores.centred_exact(s.n, s.s1, s.s2, self.lower, self.upper, squares)


class MemoryPair:
    """x1 and x2 of covDP in memory, checked and clipped, as covDP reads them (the methods of
    :class:`dppack.dask._moments.Pair`)."""

    def __init__(self, x1, x2, bounds):
        self.x1, self.x2, self.bounds = x1, x2, bounds
        self._sums = None

    def sums(self):
        """(n, S1, T1, S11, S22, S12) on the grids of the bounds (``_exact_sums.pair_sums``)."""
        if self._sums is None:
            self._sums = _exact_sums.pair_sums(self.x1, self.x2, self.bounds)
        return self._sums

    def cov_exact(self):
        n, s1, t1, _, _, s12 = self.sums()
        return _access_cores.cov_exact(n, s1, t1, s12, self.bounds)

    def centred_cross_exact(self):
        n, s1, t1, _, _, s12 = self.sums()
        return _access_cores.centred_cross_exact(n, s1, t1, s12, self.bounds)


class MemoryPooled:
    """The samples of pooledVarDP (``columns`` None) or pooledCovDP (2) in memory, checked,
    with their exact grid sums (``dppack._exact_sums``), as the statistics read them (the
    methods of :class:`dppack.dask._moments.Pooled`). ``bounds`` (L, U) or (L1, U1, L2, U2)."""

    def __init__(self, samples, bounds, min_size, columns=None):
        arrays, _, _ = check_samples(samples, columns=columns, min_size=min_size)
        if columns is None:
            self.grid = [_exact_sums.sums_of(a, *bounds, squares=True) for a in arrays]
        else:
            self.grid = [_exact_sums.pair_sums(a[:, 0], a[:, 1], bounds) for a in arrays]
        self.bounds, self.columns = bounds, columns

    def sizes(self):
        return [g[0] for g in self.grid]

    def pooled_exact(self, approx_n_max):
        return _access_cores.pooled_grid_exact(self.grid, self.bounds, approx_n_max)

    def centred_rows(self):
        return _access_cores.pooled_centred_rows(self.grid, self.bounds)


class MemoryHistogram:
    """The data of histogramDP in memory, checked and clipped to [lower, upper]: their size
    and the counts per cell of given breaks (the methods of
    :class:`dppack.dask._moments.Histogram`; no pass to run)."""

    def __init__(self, x, lower, upper, min_size):
        x, low, high = _checks.as_finite_data(x, "x", min_size)
        self.values = clip(x, low, high, lower, upper).reshape(-1)
        self.xmin = float(np.clip(low, lower, upper))
        self.xmax = float(np.clip(high, lower, upper))
        self.size = self.values.size

    def run(self, name, min_size, cells=()):
        return self

    def counts(self, breaks, diddle):
        return _hist.cell_counts(self.values, breaks, diddle, self.xmin, self.xmax)


class MemoryQuantile:
    """The data of quantileDP in memory, checked: their counts on a resolution's candidates
    and the records the exact release windows (the methods of the Dask quantile source)."""

    def __init__(self, x, name, min_size):
        x, _, _ = _checks.as_finite_data(x, name, min_size)
        self.values = x.ravel(order="K")

    def lattice_counts(self, lattice):
        return stats_quantile.lattice_counts(self.values, lattice)

    def records(self, j, first, last):
        """The records themselves (never too spread for the window: no
        :class:`dppack._backends.WindowTooWide`)."""
        return self.values


class MemoryBackend(_backends.Backend):
    """Data in memory: the contracts of the backend methods (:class:`dppack._backends.Backend`).
    Each method makes the in-memory checks at its position and returns what the release
    reads."""

    name = _backends.MEMORY

    # ---- statistics ------------------------------------------------------------------------

    def sample(self, x, lower, upper, which_sensitivity, min_size, variance=False):
        """meanDP's (``variance`` False) or varDP's data: all the data checks, and the
        clipped sum from the range scan (:class:`MemorySample`)."""
        return MemorySample(x, lower, upper, min_size, squares=variance)

    def pair(self, x1, x2, bounds, which_sensitivity, min_size):
        """covDP's x1 and x2 checked (``_access_cores.cov_inputs``): (pair, bounds (L1, U1,
        L2, U2))."""
        first, second, bounds = _access_cores.cov_inputs(x1, x2, *bounds, min_size=min_size)
        # not clipped: the grid map of ``_exact_sums.to_grid`` clips the records' integers
        return MemoryPair(first[0], second[0], bounds), bounds

    def pooled(self, samples, bounds, which_sensitivity, min_size, columns=None):
        """The samples of a pooled statistic, checked and clipped (:class:`MemoryPooled`)."""
        return MemoryPooled(samples, bounds, min_size, columns)

    def histogram(self, x, lower, upper, min_size):
        """histogramDP's data, checked and clipped (:class:`MemoryHistogram`)."""
        return MemoryHistogram(x, lower, upper, min_size)

    def quantile_source(self, x, name, min_size):
        """quantileDP's data, checked (:class:`MemoryQuantile`)."""
        return MemoryQuantile(x, name, min_size)

    def table_factors(self, factors):
        """(factors, declared, names, tabulate) of a table (see
        ``data_access.table_factors``): ``tabulate(observed)`` counts the cells
        (:func:`dppack.rcompat.table`, or the observed ones)."""
        def tabulate(observed):
            return _factor.observed_cells(*factors) if observed else rcompat.table(*factors)

        return (factors, [_factor.has_declared_levels(f) for f in factors],
                data_access.factor_names(factors), tabulate)

    # ---- DPpack's data access (not clipped) ------------------------------------------------

    def mean_access(self, x, lower, upper):
        x, _, _ = _checks.as_finite_data(x, "x")
        return data_access.mean_access(x, lower, upper)

    def var_access(self, x, lower, upper):
        x, _, _ = _checks.as_finite_data(x, "x", min_size=2)
        return data_access.var_access(x.reshape(-1), lower, upper)

    def cov_access(self, x1, x2, bounds):
        """covDataAccess on the unchecked bounds (lower1, upper1, lower2, upper2)."""
        first, second, bounds = _access_cores.cov_inputs(x1, x2, *bounds)
        return data_access.cov_access(first[0], second[0], *bounds)

    def hist(self, x, breaks):
        """R's ``hist()`` of the checked data (histogramDataAccess: breaks from the data)."""
        x, _, _ = _checks.as_finite_data(x, "x")
        return rcompat.hist(x.reshape(-1), breaks=breaks, xname="x")

    def pooled_var_access(self, samples, bounds, approx_n_max):
        arrays, _, _ = check_samples(samples)
        return data_access.pooled_var_access(arrays, *bounds, approx_n_max)

    def pooled_cov_access(self, samples, bounds, approx_n_max):
        arrays, _, _ = check_samples(samples, columns=2)
        return data_access.pooled_cov_access(arrays, *bounds, approx_n_max)

    # ---- models ----------------------------------------------------------------------------

    def margin_design(self, X, y, upper_bounds, lower_bounds, add_bias, loss, with_gradient,
                      newton, labels, weights=None, weights_upper_bound=None):
        """The preprocess dict of LogisticRegressionDP (``labels`` 'binary') and linear svmDP
        ('signed'): the rows checked, clipped and scaled into the unit ball, and the weights
        (the fit builds the risk of ``loss`` from the rows)."""
        preprocess = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale="l2",
                                    labels=labels)
        # weights reach a fit only through dppack.erm.weighting.fit_weighted (DPpack's
        # LogisticRegressionDP.fit takes none): without them, w_bar = 1 and nothing changes
        preprocess.update(prepare_weights(weights, weights_upper_bound,
                                          preprocess["X"].shape[0]))
        return preprocess

    def kernel_design(self, X, y, add_bias, loss, with_gradient, draw_prefilter, weights=None,
                      weights_upper_bound=None):
        """The preprocess dict of Gaussian-kernel svmDP: no bounds, no clipping (DPpack);
        everything validated, then ``draw_prefilter(p)`` (the random features), then the
        features of the rows."""
        X = check_finite_matrix(as_design_matrix(X))
        n, p = X.shape
        y = as_labels(y, n, labels="signed")
        preprocess = prepare_weights(weights, weights_upper_bound, n)
        prefilter = draw_prefilter(p)
        # V / (sqrt(2/D) sqrt(D)) = cos(.) / sqrt(D): every row has norm <= 1
        V = fourier_features(X, prefilter, add_bias)
        preprocess.update({"X": V, "y": y,
                           "scale": np.full(prefilter.shape[0], math.sqrt(2.0))})
        return preprocess

    def regression_design(self, X, y, upper_bounds, lower_bounds, add_bias, set_scaling,
                          on_grid=False):
        """LinearRegressionDP's scaled rows (X, y): checked and clipped, the model's scaling
        set from the bounds by ``set_scaling(bounds, target_bounds)``, then applied; with
        ``on_grid`` the records on its grid (``erm.kst.grid_regression``), in the scaled
        units (exact: powers of two)."""
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, target=True)
        scaling = set_scaling(design["bounds"], design["target_bounds"])
        if not on_grid:
            return scale_regression(design["X"], design["y"], *scaling)
        bits, exponent = regression_grid(design["bounds"].size)
        X, y = grid_regression(design["X"], design["y"], *scaling, bits, exponent)
        X *= 2.0 ** -bits
        y *= 2.0 ** (exponent - bits)
        return X, y

    def adassp_statistics(self, X, y, upper_bounds, lower_bounds, add_bias):
        """(n, gram, grid, passes) of LinearRegressionAdaSSP: the exact integer Gram matrix
        of the grid records (passes None: no pass in memory)."""
        design = prepare_design(X, y, upper_bounds, lower_bounds, add_bias, target=True)
        n = design["y"].size
        grid = grid_layout(design["bounds"], design["target_bounds"], add_bias, grid_bits(n))
        gram = integer_gram(*grid_records(design["X"], design["y"], grid))
        return n, gram, grid, None

    def unit_weights(self, X, y):
        """Weights of 1 for every record (a weighted fit given only a bound)."""
        return np.ones(len(y))

    def predict(self, model, X, rows, **options):
        """The fitted ``model``'s predictions on the rows of X: ``rows(X, **options)``, the
        model's own in-memory prediction."""
        return rows(X, **options)


_backends.register(_backends.MEMORY, MemoryBackend())
