"""Several private quantiles at once, and a private clipping range (issue 16).

:func:`quantilesDP` releases m quantiles of one variable under one budget eps, by one of three
methods:

* ``"recursive"`` (the default): ApproximateQuantiles of Kaplan, Schnapp and Stemmer (2022),
  the middle quantile first, then each half of the data on its own, every level with its
  share of eps; every release is :func:`dppack.quantileDP`'s exact sampler on a grid (a part
  with no data included), so the guarantee holds exactly;
* ``"joint"``: JointExp of Gillenwater, Joseph and Kulesza (2021), one draw of the exponential
  mechanism over the sorted m-vectors of outputs, on a grid (or on a public resolution's
  lattice); its interval selection weighs candidates by log-sums computed in floating
  point, whose error is bounded from public values: the release is (eps + slack)-DP and
  charges that (see "Floating point" below; slack below 1e-9 for a thousand records);
* ``"independent"``: the baseline, :func:`dppack.quantileDP` for each quantile with eps / m
  (basic composition), sorted afterwards (post-processing); exact.

:func:`boundsDP` releases a range [lower, upper] for the data from a public grid of candidates
spanning many orders of magnitude (both signs), so that the bounds the other releases need can
themselves be private, charged to the same accountant.

The derivation of JointExp on the grid, its windows, the lattice of a public resolution and
the bound on its floating-point error (charged inside eps) is in the guide, "JointExp in
quantilesDP: the derivation" (``docs/python/guide/quantiles-joint.md``).

References
----------
Gillenwater, Joseph and Kulesza (2021), "Differentially private quantiles", ICML;
Kaplan, Schnapp and Stemmer (2022), "Differentially private approximate quantiles", ICML;
McSherry and Talwar (2007), "Mechanism design via differential privacy", FOCS;
Smith (2011), "Privacy-preserving statistical estimation with optimal convergence rates".
"""

from ._bounds import Bounds, boundsDP
from ._joint_float import joint_float_slack  # noqa: F401 - in quantilesDP's example (not API)
from ._release import quantilesDP

# used as quantiles.<name> by the accuracy reports (dppack.accuracy; not API)
from ._bounds import bounds_share, check_bounds_quants, check_grid  # noqa: F401
from ._joint import SUBPOINTS, joint_grid, joint_sensitivity  # noqa: F401
from ._recursive import (node_sensitivity, recursion_sensitivities,  # noqa: F401
                         recursion_weights, recursive_share)
from ._release import METHODS, WHICH, check_quants  # noqa: F401

__all__ = ["boundsDP", "quantilesDP"]

# boundsDP's result keeps the public path in its name (reprs, pickles)
Bounds.__module__ = __name__
