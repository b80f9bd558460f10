"""Shared checks of the accountant wiring (issue 12): an overspend is refused before the data
are read or noise drawn, with nothing recorded and the caller's generator untouched.

Deterministic: no randomness is involved (the generator must not move at all).
"""

import pytest
from generator_checks import untouched_generator

import dppack

#: An accountant's eps that every release of the tests overspends.
TINY_EPS = 1e-3


class Untouchable:
    """Data that fail the test when read (values, length, items, columns or any attribute): an
    overspend must be refused before."""

    def __getattr__(self, name):
        raise AssertionError(f"the data were read before the budget check ({name})")

    def __array__(self, *args, **kwargs):
        raise AssertionError("the data were read before the budget check")

    def __len__(self):
        raise AssertionError("the data were read before the budget check")

    def __iter__(self):
        raise AssertionError("the data were read before the budget check")

    def __getitem__(self, key):
        raise AssertionError("the data were read before the budget check")


def assert_refused_untouched(call, delta=0.0):
    """``call(rng, accountant)`` with a BudgetAccountant(TINY_EPS, delta): it must raise the
    budget's ValueError, record nothing and leave ``rng`` where it was."""
    accountant = dppack.BudgetAccountant(TINY_EPS, delta)
    overspend = pytest.raises(ValueError, match="Privacy budget exceeded")
    with untouched_generator(12) as rng, overspend:
        call(rng, accountant)
    assert accountant.ledger == []
