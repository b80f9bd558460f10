"""Accuracy reports: how far a release can be from its true value, at no privacy cost.

:func:`noiseIntervalDP` takes the public arguments of a release (the budget, the bounds, the
public sample size n, the mechanism; never the data) and returns a :class:`NoiseInterval`:
the half-width h of the (1 - alpha) interval of its noise, P(abs(release - true value) <= h)
>= 1 - alpha, for each released value. It reads no data and draws no noise, so it spends
nothing; the releases themselves are unchanged (DPpack's return values and types).

The reports are computed from the exact law each release draws (discrete Laplace or discrete
Gaussian on a power-of-two grid, integer noise for counts), from the same calibration
functions the release calls; quantiles and the exponential mechanism get bounds on the rank
error or the utility shortfall. Vectors, simultaneous coverage, post-processing, ratios of
noisy sums (unbounded moments, pooled statistics), proportions, thresholded tables and
several quantiles are derived in the guide page :doc:`/guide/accuracy`
(``docs/python/guide/accuracy.rst``).

References
----------
Canonne C L, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
Advances in Neural Information Processing Systems 33.

Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.11.

McSherry F, Talwar K (2007). Mechanism design via differential privacy. FOCS, 94-103.
"""

from ._noise_interval import noiseIntervalDP
from .._report import NoiseInterval

__all__ = ["NoiseInterval", "noiseIntervalDP"]

# the report keeps the public path in its name (R's class vector, repr, pickles)
NoiseInterval.__module__ = __name__
