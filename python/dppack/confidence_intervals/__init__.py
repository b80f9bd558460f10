"""Private confidence intervals for regularised ERM (Wang, Kifer and Lee 2019): :func:`confintERM`
fits and releases intervals in one private call, :func:`confintDP` adds intervals to a DPpack
model's fit."""

from . import erm
from .erm import *  # noqa: F403

__all__ = [*erm.__all__]
