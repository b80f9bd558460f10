"""R semantics that DPpack's results depend on: rounding, ``pretty()``, ``hist()``, ``table()``.

Histogram breaks, counts and table cells as R 4.2.2 computes them, to the last bit; written
from R's documentation and checked against R as a black box. :func:`hist` serves
``histogramDataAccess``; ``histogramDP`` reuses its parts with breaks from the bounds.
Deviations from R are in each docstring.
"""

from ._factor import factorize, has_declared_levels, observed_cells, table
from ._hist import (Histogram, cell_counts, check_cells, fuzz, hist, hist_breaks, is_equidistant,
                    parse_breaks, xname_of)
from ._pretty import nclass_fd, nclass_scott, nclass_sturges, pretty, round_half_even

__all__ = [
    "Histogram",
    "cell_counts",
    "check_cells",
    "factorize",
    "fuzz",
    "hist",
    "has_declared_levels",
    "hist_breaks",
    "is_equidistant",
    "nclass_fd",
    "nclass_scott",
    "nclass_sturges",
    "observed_cells",
    "parse_breaks",
    "xname_of",
    "pretty",
    "round_half_even",
    "table",
]
