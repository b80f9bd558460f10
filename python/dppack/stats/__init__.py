"""DPpack 0.2.2's private descriptive statistics: meanDP ... medianDP.

Every function runs four steps: input checks and clipping, the
data-access call (:mod:`dppack.data_access`: true value and sensitivities), the privacy layer
(a mechanism of :mod:`dppack.mechanisms`), and post-processing. DPpack's checks keep DPpack's
order and message texts; our own checks (finite bounds with lower < upper, numeric, non-empty,
finite data, equal lengths) come right after the bound-length checks. Every error is raised
before any random number is drawn.

Empty data: a release that claims add/remove ('unbounded') privacy never refuses data for its
size, since [] and [x] are neighbours and an error on one with a release on the other would
tell them apart with certainty. With which_sensitivity='unbounded' every function here
releases on empty data (and on one record) with the same output shape as on any other data:
the centred sums are 0 and the count 0, noised as always, then post-processed (the count
floored at 1, the result clamped to its range); an empty histogram or table releases its noisy
zero counts; an empty quantile is drawn by the exponential mechanism over the bounds. The
refusals of too few values ("x must contain at least one value", "at least two values") apply
to 'bounded' and 'both' only: under bounded (replace-one) DP, the privacy 'both' is meant for,
neighbours have the same n, so a refusal that depends on n alone tells no neighbours apart
(tests/privacy/test_audit_exact_empty.py checks both rules).

Accounting: every function takes a trailing ``accountant`` and charges it once for
the whole call (``accounting.charge`` as its first statement: an overspend is refused before the
data are read; the loss is spent after the checks, before the first draw); the mechanisms it
calls are passed ``accounting.UNCHARGED``.

Randomness: each call turns ``random_state`` into one generator and draws everything from it,
bounded noise before unbounded noise. All noise is exact, on a power-of-two grid
(the mechanisms' discrete Laplace and discrete Gaussian; the exponential mechanism of
``_random``).

Dask: meanDP, varDP, sdDP, covDP, pooledVarDP, pooledCovDP, histogramDP and tableDP
take Dask arrays, Series and DataFrame columns (chunks of known or unknown size) where they
take data. One pass (one ``dask.compute``) reduces the data to sufficient statistics
(``dppack.dask.moments``): counts, ranges, clipped sums, moments, centred sums, bin or cell
counts; the in-memory formulas of :mod:`dppack.data_access` turn them into the true value and
its sensitivity, and the release goes on as in memory: the same checks and messages, the same
accountant charge, the same sampler calls, so the same ``random_state`` gives the same release
up to the order of floating-point sums. The checks that need a pass (size of unknown chunks,
finiteness) are raised after it, before the charge and any draw. A histogram whose rule needs
a private n (unbounded DP), or an n unknown before the pass, counts in a second pass.
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
