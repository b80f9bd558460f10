"""The exponential mechanism on integer levels: an exact selection for :mod:`dppack._random`
(every decision compares uniform integers with integers, through :mod:`dppack._exact`;
the generator comes from :mod:`dppack._random`, the only package that draws)."""

import functools
import math

import numpy as np

from ._exact import LIMIT, exp_floor, py_bernoulli_exp, py_below_exp, py_uniform, words

_BUCKETS = 64  # candidates with gamma a >= 64 share the last bucket of the envelope
_BUCKET_BITS = 160  # the bucket weights are ceil(exp(-c) 2^160) >= 2^67 for c <= 64
_EXACT_FLOAT = 1 << 53  # integers below this add exactly in float64


def _bucket_sums(level, measure, length):
    """Exact integer sums of ``measure`` (None: counts) over each level, as Python ints (float64
    below a total of 2^53, int64 above)."""
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


_NO_OVERFLOW = 2.0 ** 20  # the gaps are below 2^1002 grid units (_random.exponential_grid)


def _times_rate(a, gamma):
    """``a *= float(gamma) (1 - 2^-50)`` in place (float(gamma) and the product err by
    < 2^-52). A product beyond the double range (eps near it) is inf, whose level is the last,
    as for any product >= 64: without NumPy's overflow warning, which would reach the user."""
    factor = float(gamma) * (1.0 - 2.0 ** -50)
    if factor < _NO_OVERFLOW:
        a *= factor
    else:
        with np.errstate(over="ignore"):
            a *= factor


def select_exponential(scaled, top, gamma, measure, rng, excluded=None):
    """An index i drawn with probability proportional to M_i exp(-gamma (top - scaled_i)):
    ``scaled`` integral floats (-inf: probability 0), ``top`` the largest among candidates of
    positive measure, ``gamma`` a positive Fraction, ``measure`` the integer weights M_i (None: all
    1; sum at most 2^62), ``excluded`` the candidates of probability 0 (optional).

    Rejection sampling from the envelope M_i exp(-c_i), c_i <= gamma a_i an integer level at most
    64 (a_i = top - scaled_i): a level c with probability proportional to S_c ceil(exp(-c) 2^160)
    (S_c its total measure), a candidate with probability M_i / S_c, accepted with probability
    exp(-c) 2^160 / ceil(exp(-c) 2^160) times exp(-(gamma a_i - c)) (Canonne, Kamath and Steinke
    2020, Algorithm 1, on Python integers): exactly the target law, about e proposals on average.
    """
    length = _BUCKETS + 2  # levels 0..64, and 65 for candidates of probability 0
    a = top - scaled
    if excluded is not None:
        a[excluded] = 0.0
    _times_rate(a, gamma)
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


def envelope():
    """(buckets, bits) of the envelope :func:`select_exponential` uses now (tests vary them):
    a plan (:func:`plan_levels`) holds for these only."""
    return _BUCKETS, _BUCKET_BITS


class _Plan:
    """What :func:`select_planned` needs of the utilities alone (see :func:`plan_levels`)."""

    __slots__ = ("gaps", "best", "order", "cuts", "segments", "uppers", "numerator",
                 "denominator")

    def __init__(self, gaps, best, order, cuts, segments, gamma):
        self.gaps, self.best, self.order, self.cuts = gaps, best, order, cuts
        self.segments = segments
        self.uppers = [segment[3] for segment in segments]
        self.numerator, self.denominator = gamma.numerator, gamma.denominator


def plan_levels(scaled, top, gamma):
    """The envelope levels of :func:`select_exponential` for utilities without exclusions,
    grouped once: a plan that :func:`select_planned` reuses for any measure.

    ``scaled``, ``top`` and ``gamma`` as for :func:`select_exponential` (no -inf). The levels
    c_i are computed by the same float operations, so they are the same integers; the
    candidates are ordered by level (stably, so by index within a level). None (no plan)
    for an envelope whose weights reach down to 2^62, below which ``py_uniform`` draws by
    other means than the whole words :func:`select_planned` takes.
    """
    upper = _bucket_upper(_BUCKETS, _BUCKET_BITS)
    if upper[-1] <= LIMIT:
        return None
    a = top - scaled
    _times_rate(a, gamma)
    np.floor(a, out=a)
    level = np.minimum(a, _BUCKETS, out=a).astype(np.intp)
    order = np.argsort(level, kind="stable")
    ordered = level[order]
    cuts = np.flatnonzero(np.diff(ordered, prepend=-1))
    bounds = cuts.tolist() + [int(level.size)]
    segments = []
    for s, c in enumerate(ordered[cuts].tolist()):
        m = upper[c]
        count = (m.bit_length() + 127) // 64  # as py_uniform draws below m (m > 2^62)
        whole = 1 << (64 * count)
        segments.append((c, bounds[s], bounds[s + 1], m, count, whole - whole % m,
                         exp_floor(c, _BUCKET_BITS)))
    gaps = [int(top) - int(v) for v in scaled.tolist()]
    best = [i for i, gap in enumerate(gaps) if gap == 0]
    return _Plan(gaps, best, order, cuts, segments, gamma)


def _big_uniform(draw_words, m, count, cut):
    """``py_uniform(rng, m)`` for m > 2^62 of ``count`` words and rejection bound ``cut``,
    with ``draw_words(count)`` = ``words(rng, count)``: the same words, the same value."""
    while True:
        value = 0
        for word in draw_words(count).tolist():
            value = (value << 64) | word
        if value < cut:
            return value % m


def select_planned(plan, measure, rng):
    """:func:`select_exponential` (scaled, top, gamma, measure, rng, measure == 0) with the
    levels of ``plan`` (:func:`plan_levels`): the same draws, the same index; None (nothing
    drawn) when every candidate of the largest utility has measure 0, where ``top`` would
    differ.

    ``measure``: int64 weights (sum below 2^61). A candidate of measure 0 is kept in its
    level: it adds 0 to the level's sum and is never picked within it, as when excluded; a
    level of sum 0 keeps weight 0, which the scan passes over, as when left out.
    """
    if not any(measure[i] for i in plan.best):
        return None
    ordered = measure[plan.order]
    sums = np.add.reduceat(ordered, plan.cuts).tolist()
    weights = [level_sum * upper for level_sum, upper in zip(sums, plan.uppers)]
    total = sum(weights)
    count = (total.bit_length() + 127) // 64
    whole = 1 << (64 * count)
    cut = whole - whole % total
    gaps, numerator, denominator = plan.gaps, plan.numerator, plan.denominator
    draw_words = functools.partial(words, rng)
    while True:
        draw = _big_uniform(draw_words, total, count, cut)
        position = 0
        while draw >= weights[position]:
            draw -= weights[position]
            position += 1
        c, begin, end, m, m_count, m_cut, threshold = plan.segments[position]
        pick = py_uniform(rng, sums[position])
        for offset, width in enumerate(ordered[begin:end].tolist()):
            pick -= width
            if pick < 0:
                break
        i = int(plan.order[begin + offset])
        if c:
            value = _big_uniform(draw_words, m, m_count, m_cut)
            if value != threshold:
                if value > threshold:
                    continue
            elif not py_below_exp([value, _BUCKET_BITS], c, rng):  # more bits decide
                continue
        excess = numerator * gaps[i] - c * denominator
        if excess < 0:  # cannot happen: the float margin keeps c <= gamma a_i
            raise AssertionError("exponential mechanism envelope below the target")
        common = math.gcd(excess, denominator)
        n, d = excess // common, denominator // common
        if n >= d:  # CKS Algorithm 1 with an integer part: py_bernoulli_exp's own way
            if py_bernoulli_exp(n, d, rng):
                return i
            continue
        k = 1  # n < d: py_bernoulli_exp's loop, the same draws
        while n and py_uniform(rng, d * k) < n:
            k += 1
        if k % 2 == 1:
            return i
