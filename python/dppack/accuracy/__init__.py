"""Accuracy reports: how far a release can be from its true value, at no privacy cost.

:func:`noiseIntervalDP` takes the public arguments of a release (never the data) and returns a
:class:`NoiseInterval`, computed by the release's own plan from the exact laws it draws
(derivations: :doc:`/guide/accuracy`). It reads no data and draws no noise.

References
----------
Canonne C L, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
Advances in Neural Information Processing Systems 33.

Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.11.
"""

from .._report import NoiseInterval
from ._noise_interval import noiseIntervalDP

__all__ = ["NoiseInterval", "noiseIntervalDP"]

# the report keeps the public path in its name (R's class vector, repr, pickles)
NoiseInterval.__module__ = __name__
