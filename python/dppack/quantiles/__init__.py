"""Several private quantiles at once, and a private clipping range.

:func:`quantilesDP` releases m quantiles of one variable under one budget eps, by the
recursive (Kaplan, Schnapp and Stemmer 2022), joint (Gillenwater, Joseph and Kulesza 2021) or
independent method. :func:`boundsDP` releases a range [lower, upper] from a public grid of
candidates, so that the bounds the other releases need can themselves be private.
Derivations: :doc:`/guide/quantiles-joint`.
"""

from ._bounds import Bounds, boundsDP
from ._joint_float import joint_float_slack  # noqa: F401 - in quantilesDP's example (not API)
from ._release import quantilesDP

# read by the accuracy tests as quantiles.<name> (not API)
from ._joint import SUBPOINTS  # noqa: F401
from ._recursive import recursion_weights  # noqa: F401

__all__ = ["Bounds", "boundsDP", "quantilesDP"]

# boundsDP's result keeps the public path in its name (reprs, pickles)
Bounds.__module__ = __name__
