"""Exact arithmetic on the floats of privacy losses: totals rounded up, remainders down."""

from fractions import Fraction
import functools
import math


# The text of the module functions' delta above 1 (the vocabulary's other texts are its own)
DELTA_MESSAGE = "delta must be in (0, 1)."

# ---- exact arithmetic on the losses' floats ------------------------------------------------
#
# A budget is compared with totals, so every total is a float at least its exact value (and
# every remainder a float at most its exact value): the floats are added and subtracted exactly
# and rounded once, in the safe direction (math.fsum, then the sign of the exact residual), and
# multiplied as fractions (every float is one). Ten
# spends of 0.1 (the double 0.1000000000000000055...) then total 1.0000000000000002 > 1, not
# the nearest float 1.0, and are refused by a budget of 1; sums that fit exactly (0.5 + 0.25 +
# 0.25) give the exact float. Formulas with logarithms, roots and exponentials (conversions,
# advanced composition, amplification) are evaluated in floats, each operation within one ulp
# (IEEE 754 and the C library's log, sqrt, exp), and then raised by _MARGIN times the sum of
# the magnitudes of their terms, which covers those few roundings.

# 16 units of roundoff (2^-53 each): the formulas below take at most about 6 (a few
# operations each within half an ulp, the C library's log, exp, sqrt within one ulp)
_MARGIN = 2.0 ** -49


def round_up(value):
    """The smallest float >= the fraction ``value`` (+inf beyond the largest float)."""
    try:
        result = float(value)  # int / int is correctly rounded in Python
    except OverflowError:
        return math.inf
    if Fraction(result) < value:
        result = math.nextafter(result, math.inf)
    return result


def round_down(value):
    """The largest float <= the fraction ``value``."""
    result = float(value)
    if Fraction(result) > value:
        result = math.nextafter(result, -math.inf)
    return result


def _directed_sum(values, direction):
    """The exact sum of the finite floats ``values`` rounded towards ``direction`` (+inf or
    -inf). math.fsum is the sum correctly rounded (Shewchuk's exact partials); the residual
    exact sum - s, again by fsum, is a nonzero multiple of 2^-1074 unless s is exact, and its
    correct rounding keeps its sign, so one step of nextafter gives the directed rounding."""
    try:
        total = math.fsum(values)
    except OverflowError:  # a sum beyond the largest float (no budget comes near)
        return math.inf if direction > 0 else -math.inf
    residual = math.fsum(values + [-total])
    if (residual > 0.0 and direction > 0) or (residual < 0.0 and direction < 0):
        total = math.nextafter(total, direction)
    return total


def sum_up(values):
    """The smallest float >= the exact sum of the floats ``values`` (inf if one is inf)."""
    values = [float(v) for v in values]
    if not all(math.isfinite(v) for v in values):
        return math.fsum(values)
    return _directed_sum(values, math.inf)


def difference_down(minuend, values):
    """The largest float <= ``minuend`` minus the exact sum of the floats ``values``."""
    return _directed_sum([float(minuend)] + [-float(v) for v in values], -math.inf)


@functools.lru_cache(maxsize=4096)
def half_square_up(eps):
    """eps^2 / 2 rounded up (the rho of eps-DP), exactly; cached: the accountant converts
    every pure spend of its ledger at each check."""
    return round_up(Fraction(eps) ** 2 / 2)


def raise_by_margin(value, magnitude):
    """``value`` raised above the rounding errors of its float evaluation (``magnitude``: the
    sum of the absolute values of the terms it was computed from)."""
    if not math.isfinite(value):
        return value
    return math.nextafter(value + _MARGIN * abs(magnitude), math.inf)
