"""R semantics that DPpack's results depend on: rounding, ``pretty()``, ``hist()``, ``table()``.

DPpack releases histograms whose break points R computes from the data (``hist`` with
``pretty``) and contingency tables whose cells are R factor levels (``table``). A Python user
gets the same breaks, counts and cells as R 4.2.2 only if these are reproduced exactly, to the
last bit of every break point; this module does that.
:func:`hist` is R's, for the non-private ``histogramDataAccess``; ``histogramDP`` reuses its
parts (:func:`parse_breaks`, :func:`pretty`, :func:`fuzz`, :func:`cell_counts`) with breaks
from the bounds instead of the data.

Everything here was written from R's documentation and checked against R 4.2.2 run as a black
box (``tests/python/rcompat/test_rcompat.py``). Deviations from R are listed in each docstring; they
concern inputs R handles badly (NA among user breaks, NA in tables) or error texts R words
obscurely.
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
