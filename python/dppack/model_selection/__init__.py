"""Private model selection by stability (Chaudhuri and Vinterbo 2013); DPpack's own private
tuning (the exponential mechanism over disjoint splits) is :mod:`dppack.tuning`."""

from . import stability
from .stability import *  # noqa: F403

__all__ = [*stability.__all__]
