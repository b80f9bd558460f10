"""Shared checks of the randomness contract: a refused call draws no random number, a valid one
does, and an error's whole text is the documented one.

Deterministic: the generators are seeded and only their states are compared.
"""

import contextlib
import re

import numpy as np
import pytest


def raises_exactly(message, exception=ValueError):
    """pytest.raises matching the whole message: a prefix or an extra period does not pass."""
    return pytest.raises(exception, match=rf"\A{re.escape(message)}\Z")


def raises_starting(message, exception=ValueError):
    """pytest.raises matching the start of the message (DPpack's text, then ours)."""
    return pytest.raises(exception, match="^" + re.escape(message))


@contextlib.contextmanager
def untouched_generator(seed):
    """A seeded generator that the block must leave where it was: nothing drawn."""
    rng = np.random.default_rng(seed)
    before = rng.bit_generator.state
    yield rng
    assert rng.bit_generator.state == before


@contextlib.contextmanager
def advanced_generator(seed):
    """A seeded generator that the block must move: the control for
    :func:`untouched_generator`, which would pass vacuously if nothing ever drew."""
    rng = np.random.default_rng(seed)
    before = rng.bit_generator.state
    yield rng
    assert rng.bit_generator.state != before
