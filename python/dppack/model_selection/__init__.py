"""Private model selection by stability (Chaudhuri and Vinterbo 2013): candidates trained on the
whole training set, the best one chosen on a validation set by a noisy maximum whose privacy rests
on the score's stability. DPpack's own private tuning (the exponential mechanism over disjoint
splits) is
:mod:`dppack.tuning`."""

from . import stability
from .stability import *  # noqa: F403

__all__ = [*stability.__all__]
