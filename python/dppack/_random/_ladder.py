"""The discrete Gaussian ladder: one 64-bit word per trial, for the Brownian noise-reduction path."""

import functools
import math

import numpy as np

from ._seeding import as_generator  # for the examples
from ._coins import (
    FORCE_EXACT_PATH, LIBM_ERROR, _below, _exact_samplers, _exp_neg_bounds, bernoulli_exp_one,
    exp_series_bounds,
)
from ._laplace import geometric_one
from ._blocks import _BLOCK_BITS, _rounded_up_powers


_LADDER_GUIDE = 12  # 2^12 buckets of [0, 2^63) per variance; each block is whole buckets
_LADDER_CHUNK = 1 << 16  # trials per pass of discrete_gaussian_ladder (measured best)
LADDER_MIN_P = 1 << 22  # the smallest variance: q < F, about 2^63 / (1.3 sigma), below 2^52
_LADDER_SIGMAS = 6  # blocks up to 6 sigma, a geometric envelope beyond
_MAX63 = (1 << 63) - 1


@functools.lru_cache(maxsize=64)
def _ladder_envelope(p):
    """The envelope of :func:`discrete_gaussian_ladder` for the variance p (2^22 <= p < 2^56):
    (b, beta, kmax, F, M, tail_start, w_tail) with M the list of the blocks' M_k.

    Block k < kmax holds y in [b k, b k + b), b = 2^beta in (sigma / 16, sigma / 8], with
    e_hi[k] >= exp(-(b k)^2 / (2 p)) 2^96 (the upward-rounded powers of
    :func:`_gaussian_blocks`) and M_k >= F e_hi[k] 2^-96 rounded up to a multiple of
    2^(51 - beta), so that its weight b M_k is a whole number of buckets of 2^51. The tail
    y >= Y0 = b kmax (Y0 >= 6 sigma) has the envelope exp(-Y0^2 / (2 p) - (y - Y0) Y0 / p)
    >= exp(-y^2 / (2 p)), of mass at most tail = e_hi[kmax] 2^-96 / (1 - exp(-Y0 / p)),
    weight w_tail = ceil(F tail), at the top of [0, 2^63): [tail_start, 2^63) (whole buckets
    are reserved for it). The rest, between the blocks and the tail, rejects. F is the
    largest integer with the weights' total at most 2^63."""
    from fractions import Fraction

    sigma = math.sqrt(p)
    beta = max(0, int(math.floor(math.log2(sigma / 8.0))))
    b = 1 << beta
    kmax = math.isqrt(_LADDER_SIGMAS ** 2 * p) // b + 1
    P = _BLOCK_BITS
    e_hi = _rounded_up_powers(b, p, kmax)
    q_lo, _ = exp_series_bounds(Fraction(b * kmax, p), 0, 1, 64)  # exp(Y0 / p) >= q_lo
    tail = Fraction(e_hi[kmax], 1 << P) / (1 - 1 / q_lo)
    unit = 1 << (63 - _LADDER_GUIDE)  # a bucket
    quantum = unit >> beta  # M_k's step

    def weights(F):
        M = [-(-(-(-(F * v) >> P)) // quantum) * quantum for v in e_hi[:kmax]]
        return M, -(-math.ceil(F * tail) // unit) * unit

    def total(F):
        M, w_tail = weights(F)
        return b * sum(M) + w_tail

    mass = Fraction(b * sum(e_hi[:kmax]), 1 << P) + tail
    low, high = 1, int(Fraction(1 << 63) / mass) + 1  # total(low) <= 2^63 < total(high)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if total(middle) <= (1 << 63) else (low, middle)
    M, _ = weights(low)
    if not max(M) < (1 << 52):
        raise AssertionError("ladder envelope out of range")
    w_tail = math.ceil(low * tail)  # the tail's trials: the top w_tail of the last buckets
    return b, beta, kmax, low, tuple(M), (1 << 63) - w_tail, w_tail


# the float acceptance's relative margin beyond x_max 2^-50 (the roundings of v^2,
# -1 / (2 p) and their product move exp by a relative x 2^-51 at most): exp within
# LIBM_ERROR, F, (1 -+ eta) and the products within 2^-53 each, generously
_LADDER_SLACK = 2 * LIBM_ERROR + 8 * 2.0 ** -50


@functools.lru_cache(maxsize=64)
def _ladder_tables(ps):
    """The tables of :func:`discrete_gaussian_ladder` for the tuple of variances ``ps``,
    flattened over the rows and the two signs (row j's buckets at (2 j + 1) 2^12 for the
    words with the sign bit clear, 2 j 2^12 for the others): per bucket, the first value
    b k of its block (-b (k + 1) for the sign bit set) and 1 - C_k / b (C_k the block's
    start: q + 1 = u / b + that; plus 2^(63 - beta) for the sign bit set, where w >> beta
    is u >> beta - 2^(63 - beta); 2^53 for the buckets that reject and the tail's: never
    accepted by the floats); per row, (J, 1) columns of the offsets, masks, -1 / (2 p),
    F (1 -+ eta) and the tail's start; the smallest tail start."""
    ybase, qbase = [], []
    columns = {name: [] for name in ("offset", "mask", "beta", "half", "f_lo", "f_hi", "tail")}
    unit = 1 << (63 - _LADDER_GUIDE)
    for j, p in enumerate(ps):
        b, beta, kmax, F, M, tail_start, _ = _ladder_envelope(p)
        y = np.zeros(1 << _LADDER_GUIDE, dtype=np.int64)
        q = np.full(1 << _LADDER_GUIDE, 1 << 53, dtype=np.int64)
        bucket = 0
        for k, m in enumerate(M):
            count = b * m // unit
            y[bucket:bucket + count] = b * k
            q[bucket:bucket + count] = 1 - ((bucket * unit) >> beta)  # 1 - C_k / b
            bucket += count
        # the half of the words with the sign bit set first: w >> 51 is the bucket - 2^12
        # there, and w >> beta is u >> beta - 2^(63 - beta); their value is r - b (k + 1)
        ybase += [-y - b, y]
        qbase += [q + (1 << (63 - beta)), q]  # (beta >= 8: no overflow)
        x_max = (b * kmax) ** 2 / (2 * p) + 1.0
        eta = _LADDER_SLACK + x_max * 2.0 ** -50
        for name, value in (("offset", (2 * j + 1) << _LADDER_GUIDE), ("mask", b - 1),
                            ("beta", beta),
                            ("half", -0.5 / p), ("f_lo", float(F) * (1.0 - eta)),
                            ("f_hi", float(F) * (1.0 + eta)), ("tail", tail_start)):
            columns[name].append(value)
    out = [np.concatenate(ybase), np.concatenate(qbase)]
    for name in ("offset", "mask", "beta", "tail"):
        out.append(np.array(columns[name], dtype=np.int64)[:, None])
    for name in ("half", "f_lo", "f_hi"):
        out.append(np.array(columns[name], dtype=np.float64)[:, None])
    for array in out:
        array.flags.writeable = False
    return tuple(out) + (min(columns["tail"]),)


def _ladder_accept_bounds(p, v, F, bits):
    """Fraction bounds of F exp(-v^2 / (2 p))."""
    from fractions import Fraction

    lo, hi = _exp_neg_bounds(Fraction(v * v, 2 * p), bits)
    return lo * F, hi * F


def _ladder_exact(p, u, negative, rng):
    """The trial of :func:`discrete_gaussian_ladder` for the word (``negative``, u) when
    the floats cannot decide it (or it falls in the tail), on Python integers: the value,
    or None when rejected."""
    from fractions import Fraction

    b, beta, kmax, F, M, tail_start, w_tail = _ladder_envelope(p)
    exact = _exact_samplers()
    if u >= tail_start:  # the tail: y = Y0 + G, P(G >= g) = exp(-g Y0 / p)
        Y0 = b * kmax
        g = geometric_one(exact.py_word(rng) >> 1, Y0, p, rng)
        v = -(Y0 + g + 1) if negative else Y0 + g
        # accepted w.p. exp(-(v^2 - Y0^2 - 2 Y0 g) / (2 p)) c, c = F exp(-Y0^2 / (2 p)) /
        # (w_tail (1 - exp(-Y0 / p))) <= 1: then P(v) is F exp(-v^2 / (2 p)) / 2^64
        if not bernoulli_exp_one(v * v - Y0 * Y0 - 2 * Y0 * g, 2 * p, rng):
            return None

        def bounds(bits):
            e_lo, e_hi = _exp_neg_bounds(Fraction(Y0 * Y0, 2 * p), bits + 8)
            q_lo, q_hi = _exp_neg_bounds(Fraction(Y0, p), bits + 8)
            return (F * e_lo / (w_tail * (1 - q_lo)), F * e_hi / (w_tail * (1 - q_hi)))
        return v if _below([exact.py_word(rng), 64], bounds, rng) else None
    unit = 1 << (63 - _LADDER_GUIDE)
    start, k = 0, 0
    while k < kmax and u >= start + b * M[k]:
        start, k = start + b * M[k], k + 1
    if k == kmax:  # between the blocks and the tail: rejected
        return None
    o = u - start
    r = o & (b - 1)
    v = r - b * (k + 1) if negative else b * k + r  # -(y + 1), y = b k + b - 1 - r
    accept = _below([o >> beta, 0], functools.partial(_ladder_accept_bounds, p, v, F), rng)
    return v if accept else None


def discrete_gaussian_ladder(ps, size, rng):
    """A (len(ps), ``size``) int64 array: row j holds ``size`` exact draws Z with
    P(Z = z) proportional to exp(-z^2 / (2 ps[j])) (each 2^22 <= p < 2^56), one 64-bit
    word per trial.

    A trial is one word: its top bit s, its other 63 bits u uniform on [0, 2^63). u falls
    in block k (:func:`_ladder_envelope`) with probability b M_k / 2^63 (the blocks are
    whole buckets of 2^51, so the bucket u >> 51 names the block), and its offset
    o = u - C_k is uniform on {0, ..., b M_k - 1}: r = o mod b (u's low beta bits) and
    q = floor(o / b) are independent and uniform on {0, ..., b - 1} and {0, ..., M_k - 1}.
    The value is v = b k + r (s = 0) or r - b (k + 1) = -(y + 1), y = b k + (b - 1 - r)
    (s = 1; r -> b - 1 - r is a bijection of the offsets): each integer v comes from one
    (block, sign, r), with probability M_k / 2^64, and is accepted iff
    q + U' < F exp(-v^2 / (2 p)) (U' uniform on [0, 1): further bits, read only when q
    cannot decide), probability F exp(-v^2 / (2 p)) / M_k <= 1 (|v| >= b k). So
    P(v proposed and accepted) = F exp(-v^2 / (2 p)) / 2^64, proportional to the discrete
    Gaussian (Canonne, Kamath and Steinke 2020), independently per accepted trial. The
    tail (|v| >= 6 sigma) has its own geometric envelope with the same property; the
    remaining buckets reject. The comparison is decided in floating point outside a
    rigorous margin (exp within ``LIBM_ERROR``, the roundings within (x_max + 8) 2^-50,
    x = v^2 / (2 p) <= x_max), exactly with rational bounds inside it (probability about
    2 / M_k per trial, M_k >= 2^(51 - beta) >= 2^27; :func:`_ladder_exact`). Row j takes
    its accepted trials in order: the law of ``discrete_gaussian(ps[j], 1, size, rng)``,
    about 1.07 words per draw.

    Examples
    --------
    >>> z = discrete_gaussian_ladder([2 ** 40, 2 ** 30], 20000, as_generator(0))
    >>> [abs(float(row.std()) / sd - 1) < 0.03 for row, sd in zip(z, (2 ** 20, 2 ** 15))]
    [True, True]
    """
    ps, size = tuple(map(int, ps)), int(size)
    if not (LADDER_MIN_P <= min(ps) and max(ps) < (1 << 56)):
        raise ValueError("discrete_gaussian_ladder takes 2^22 <= p < 2^56.")
    out = np.empty((len(ps), size), dtype=np.int64)
    step = ladder_columns(len(ps))
    for start in range(0, size, step):
        _ladder_fill(ps, out, start, min(size, start + step), rng)
    return out


def ladder_columns(rows):
    """The columns of one pass of :func:`discrete_gaussian_ladder` for ``rows`` variances:
    a call of ``size`` columns draws the same values as calls of this many columns in turn."""
    return max(1, int(_LADDER_CHUNK / (1.07 * rows)))


def _ladder_fill(ps, out, start, stop, rng):
    """Columns start..stop of :func:`discrete_gaussian_ladder`'s ``out``: one round of
    trials for every row, then the rows still short by themselves (their trials in order)."""
    ybase, qbase, offset, mask, beta, tail, half, f_lo, f_hi, tail_min = _ladder_tables(ps)
    J, need = len(ps), stop - start
    m = int(need * 1.07) + 16
    w = _exact_samplers().words(rng, J * m).view(np.int64).reshape(J, m)
    # the bucket with the sign: the bucket of u = w mod 2^63 in its sign's half
    bucket = (w >> (63 - _LADDER_GUIDE)) + offset
    # (take: the gathers, bucket being within the tables)
    value = ybase.take(bucket, mode="clip") + (w & mask)  # b k + r, or r - b (k + 1)
    q1 = (w >> beta) + qbase.take(bucket, mode="clip")  # q + 1 = (u - C_k) / b + 1
    e = value.astype(np.float64)
    np.multiply(e, e, out=e)
    e *= half
    np.exp(e, out=e)  # exp(-v^2 / (2 p))
    qf = q1.astype(np.float64)
    yes = qf < e * f_lo  # q + 1 < F exp(-v^2 / (2 p)): accepted
    qf -= 1.0  # q (exact: q + 1 < 2^52)
    maybe = qf < e * f_hi  # else q >= F exp(-v^2 / (2 p)): rejected
    # trials in the tail (never, nearly): looked for only when some u = w mod 2^63 reaches
    # the lowest start (2u = w << 1 as an unsigned word)
    tailed = int((w << 1).view(np.uint64).max()) >= 2 * tail_min
    if FORCE_EXACT_PATH or tailed or np.count_nonzero(maybe) > np.count_nonzero(yes):
        u, sign = w & _MAX63, w < 0
        undecided = (maybe & ~yes) | (u >= tail)
        if FORCE_EXACT_PATH:
            undecided[:] = True
        for j, i in zip(*np.nonzero(undecided)):
            drawn = _ladder_exact(ps[j], int(u[j, i]), bool(sign[j, i]), rng)
            yes[j, i] = drawn is not None
            if drawn is not None:
                if abs(drawn) >= (1 << 62):  # (p < 2^56: about 2^34 sigma; never)
                    raise OverflowError("discrete Gaussian draw beyond 2^62")
                value[j, i] = drawn
    counts = yes.sum(axis=1).tolist()  # each row's accepted trials
    accepted = value[yes]  # row by row, in trial order
    first = 0
    for j in range(J):  # each row's first accepted trials; (rare) then more for it alone
        take = min(counts[j], need)
        out[j, start:start + take] = accepted[first:first + take]
        first += counts[j]
        if take < need:
            _ladder_fill((ps[j],), out[j:j + 1], start + take, stop, rng)
