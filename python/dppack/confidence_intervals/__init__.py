"""Private confidence intervals for regularised ERM (Wang, Kifer and Lee 2019; spec
``confidence_intervals.md``): :func:`confintERM` fits and releases intervals in one private
call, :func:`confintDP` adds intervals to a DPpack model's fit."""

from .erm import confintDP, confintERM

__all__ = ["confintDP", "confintERM"]
