"""R semantics that DPpack's results depend on: rounding, ``pretty()``, ``hist()``, ``table()``.

Histogram breaks, counts and table cells as R 4.2.2 computes them, to the last bit; written
from R's documentation and checked against R as a black box. :func:`hist` serves
``histogramDataAccess``; ``histogramDP`` reuses its parts with breaks from the bounds.
Deviations from R are in each docstring.
"""

# The helpers behind them (breaks, fuzz, factor codes, R's nclass.* rules and rounding) are
# imported by dppack's modules from the private modules _hist, _factor and _pretty.
from ._factor import table
from ._hist import Histogram, hist
from ._pretty import pretty

__all__ = ["Histogram", "hist", "pretty", "table"]
