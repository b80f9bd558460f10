"""The exponential mechanism on integer levels: an exact selection for :mod:`dppack._random`.

Every decision compares uniform integers with integers, through the samplers of
:mod:`dppack._exact` (the generator comes from :mod:`dppack._random`, the only package that
draws).
"""

import functools
import math

import numpy as np

from ._exact import exp_floor, py_bernoulli_exp, py_below_exp, py_uniform

_BUCKETS = 64  # candidates with gamma a >= 64 share the last bucket of the envelope
_BUCKET_BITS = 160  # the bucket weights are ceil(exp(-c) 2^160) >= 2^67 for c <= 64
_EXACT_FLOAT = 1 << 53  # integers below this add exactly in float64


def _bucket_sums(level, measure, length):
    """Exact integer sums of ``measure`` (None: counts) over each level, as Python ints.

    ``np.bincount`` adds in float64, exact below 2^53: a measure of total below 2^53 is summed
    as it is; a larger one (at most 2^62) in int64 by ``np.add.at`` (every partial sum is at
    most the total, so exact; one pass, faster than three float64 passes over 21-bit pieces).
    """
    if measure is None:
        return np.bincount(level, minlength=length).tolist()
    if int(measure.sum()) < _EXACT_FLOAT:  # every partial sum is an exact float64
        return np.bincount(level, weights=measure, minlength=length).astype(np.int64).tolist()
    sums = np.zeros(length, dtype=np.int64)
    np.add.at(sums, level, measure.astype(np.int64, copy=False))
    return sums.tolist()


@functools.lru_cache(maxsize=4)
def _bucket_upper(buckets, bits):
    """ceil(exp(-c) 2^bits) for c = 0, ..., ``buckets`` (exactly 2^bits for c = 0)."""
    return [1 << bits] + [exp_floor(c, bits) + 1 for c in range(1, buckets + 1)]


def select_exponential(scaled, top, gamma, measure, rng, excluded=None):
    """An index i drawn with probability proportional to M_i exp(-gamma (top - scaled_i)).

    Parameters
    ----------
    scaled : numpy.ndarray of float
        Integral values (utilities in grid units); -inf marks a candidate of probability 0.
    top : float
        The largest ``scaled`` among candidates of positive measure (integral).
    gamma : fractions.Fraction
        Positive.
    measure : numpy.ndarray of int64 or None
        Non-negative integer weights M_i (None: all 1), sum at most 2^62.
    rng : NumPy Generator
    excluded : numpy.ndarray of bool, optional
        The candidates of probability 0 (-inf or measure 0), if any.

    Returns
    -------
    int

    Notes
    -----
    Rejection sampling from an envelope, with every decision exact. Let a_i = top - scaled_i
    (an integer) and c_i <= gamma a_i an integer level, at most 64 (computed in floating
    point with a margin: it only steers the proposal, the exact check below uses integers).
    The envelope is M_i exp(-c_i). A proposal picks a level c with probability proportional
    to S_c ceil(exp(-c) 2^160), S_c the total measure at level c (exact integers, one
    uniform integer), then a candidate i of that level with probability M_i / S_c, and
    accepts it with probability exp(-c) 2^160 / ceil(exp(-c) 2^160) (a uniform compared
    lazily with the exact bits of exp(-c), :func:`py_below_exp`) times
    exp(-(gamma a_i - c)) (CKS Algorithm 1 on Python integers). The product of proposal and
    acceptance is proportional to M_i exp(-gamma a_i), so the accepted index has exactly the
    target law. Each proposal is accepted with probability above exp(-1) (1 - 2^-40) except
    at the last level, whose total envelope weight is at most 2^62 exp(-64) < 2^-30 of the
    first level's, so at most about e proposals are made on average (e - 1 when the
    fractional parts gamma a_i - c_i spread evenly), each costing one pass over the level
    array for a level not seen before.
    """
    length = _BUCKETS + 2  # levels 0..64, and 65 for candidates of probability 0
    a = top - scaled
    if excluded is not None:
        a[excluded] = 0.0
    a *= float(gamma) * (1.0 - 2.0 ** -50)  # float(gamma) and the product err by < 2^-52
    np.floor(a, out=a)
    level = np.minimum(a, _BUCKETS, out=a).astype(np.intp)
    if excluded is not None:
        level[excluded] = _BUCKETS + 1
    sums = _bucket_sums(level, measure, length)
    upper = _bucket_upper(_BUCKETS, _BUCKET_BITS)
    levels = [c for c in range(_BUCKETS + 1) if sums[c]]
    weights = [sums[c] * upper[c] for c in levels]
    total = sum(weights)
    members = {}
    numerator, denominator = gamma.numerator, gamma.denominator
    while True:
        draw = py_uniform(rng, total)
        position = 0
        while draw >= weights[position]:
            draw -= weights[position]
            position += 1
        c = levels[position]
        if c not in members:
            index = np.flatnonzero(level == c)
            members[c] = (index, None if measure is None else np.cumsum(measure[index]))
        index, cumulative = members[c]
        pick = py_uniform(rng, sums[c])
        if cumulative is not None:
            pick = int(np.searchsorted(cumulative, pick, side="right"))
        i = int(index[pick])
        if c and not py_below_exp([py_uniform(rng, upper[c]), _BUCKET_BITS], c, rng):
            continue
        # the excess gamma a_i - c in lowest terms (as a Fraction would hold it), in integers
        excess = numerator * (int(top) - int(scaled[i])) - c * denominator
        if excess < 0:  # cannot happen: the float margin keeps c <= gamma a_i
            raise AssertionError("exponential mechanism envelope below the target")
        common = math.gcd(excess, denominator)
        if py_bernoulli_exp(excess // common, denominator // common, rng):
            return i
