"""The discrete Gaussian at float speed: rejection from a block envelope."""

import functools
import math

import numpy as np

from ._seeding import as_generator  # for the examples
from ._coins import (
    FORCE_EXACT_PATH, LIBM_ERROR, _below, _exact_samplers, _exp_neg_bounds, bernoulli_exp_one,
    exp_series_bounds,
)
from ._laplace import geometric_one


_BLOCK_BITS = 96  # fixed point of the block envelope's bounds
_BLOCK_CHUNK = 1 << 14  # draws per pass of discrete_gaussian_blocks


def _rounded_up_powers(b, p, kmax):
    """e_hi[k] >= exp(-(b k)^2 / (2 p)) 2^_BLOCK_BITS for k = 0..kmax, integers: the powers
    E^(k^2) of E = exp(-b^2 / (2 p)), built by e_{k+1} = e_k E^(2k+1), every product rounded
    up (shared by the block envelope and the ladder's)."""
    from fractions import Fraction

    P = _BLOCK_BITS
    lo, _ = exp_series_bounds(Fraction(b * b, 2 * p), 0, 1, P + 8)  # lo <= exp(b^2 / (2 p))
    E = -(-(1 << P) * lo.denominator // lo.numerator)  # ceil(2^P / lo) >= E 2^P
    e_hi, step = [1 << P], E
    for _ in range(kmax):
        e_hi.append(-(-(e_hi[-1] * step) >> P))
        step = -(-(step * E * E) >> (2 * P))
    return e_hi


@functools.lru_cache(maxsize=64)
def _gaussian_blocks(p):
    """The block envelope of :func:`discrete_gaussian_blocks` for the variance p: (b, beta,
    kmax, cumulative weights C (int64, C[0] = 0, C[-1] = S), weights W (Python ints), F,
    the float factors b F / W_k).

    Blocks k = 0..kmax-1 cover |y| in [b k, b k + b), b = 2^beta <= sigma / 8; their
    envelope is e_k = exp(-(b k)^2 / (2 p)) (the largest value in the block), bounded above
    in fixed point by e_hi[k] >= e_k 2^96 (e_k = E^(k^2), E = exp(-b^2 / (2 p)), the powers
    built by e_{k+1} = e_k E^(2k+1) with every product rounded up); W_k = ceil(b F e_hi[k] /
    2^96) >= b F e_k. The tail |y| >= Y0 = b kmax has the envelope
    exp(-Y0^2 / (2 p) - (|y| - Y0) Y0 / p) >= exp(-y^2 / (2 p)) (y^2 >= Y0^2 + 2 Y0 (|y| - Y0))
    of mass e_kmax / (1 - exp(-Y0 / p)), and W_tail >= F times it. F, an integer, puts the
    total S just below 2^63.
    """
    from fractions import Fraction

    sigma = math.sqrt(p)
    beta = max(0, int(math.floor(math.log2(sigma / 8.0))))
    b = 1 << beta
    kmax = math.isqrt(100 * p) // b + 1  # (b kmax)^2 / (2 p) >= 50
    P = _BLOCK_BITS
    e_hi = _rounded_up_powers(b, p, kmax)
    Y0 = b * kmax
    q_lo, _ = exp_series_bounds(Fraction(Y0, p), 0, 1, 64)  # exp(Y0 / p) >= q_lo
    tail = Fraction(e_hi[kmax], 1 << P) / (1 - 1 / q_lo)  # >= the tail's envelope mass
    mass = Fraction(b * sum(e_hi[:kmax]), 1 << P) + tail
    F = int((Fraction(1 << 63) * (1 - Fraction(1, 1 << 20)) - 2 * (kmax + 2)) / mass)
    W = [-(-(b * F * v) >> P) for v in e_hi[:kmax]]
    W.append(math.ceil(F * tail))
    C = np.zeros(len(W) + 1, dtype=np.int64)
    C[1:] = np.cumsum(np.array(W, dtype=object)).astype(np.int64)
    if not int(C[-1]) < (1 << 63):
        raise AssertionError("block envelope above 2^63")
    factor = np.array([float(Fraction(b * F, w)) for w in W[:kmax]] + [0.0])
    return b, beta, kmax, C, W, F, factor


_GUIDE_BITS = 12  # the block lookup's guide table: 2^12 buckets of the 63-bit range


@functools.lru_cache(maxsize=64)
def _block_guide(p):
    """For each bucket j of [0, 2^63) (width 2^51): the blocks holding its first and last
    values, and C with a sentinel, so that :func:`_block_index` finds most blocks with one
    comparison instead of a binary search."""
    C = _gaussian_blocks(p)[3]
    width = 1 << (63 - _GUIDE_BITS)
    starts = np.arange(1 << _GUIDE_BITS, dtype=np.int64) * width
    first = np.searchsorted(C, starts, side="right") - 1
    last = np.searchsorted(C, starts + (width - 1), side="right") - 1
    extended = np.append(C, np.iinfo(np.int64).max)
    return first, last, extended


@functools.lru_cache(maxsize=64)
def _block_multiple(p):
    """Per bucket of :func:`_block_guide`: whether it holds more than one block boundary."""
    first, last, _ = _block_guide(p)
    return last - first > 1


def _block_index(p, C, u):
    """k with C[k] <= u < C[k + 1] (len(C) - 1 for u >= C[-1]) per entry of u in
    [0, 2^63): ``np.searchsorted(C, u, side="right") - 1``, through the guide table of
    :func:`_block_guide` (a bucket holding at most one boundary needs one comparison; the
    others, in the far tails, the search)."""
    first, last, extended = _block_guide(p)
    bucket = u >> (63 - _GUIDE_BITS)
    k = first[bucket]
    k += u >= extended[k + 1]
    wide = np.flatnonzero(_block_multiple(p)[bucket])
    if wide.size:
        k[wide] = np.searchsorted(C, u[wide], side="right") - 1
    return k


@functools.lru_cache(maxsize=64)
def _block_thresholds(p):
    """2^L (b F / W_k) (1 -+ eta) per block (L = 64 - beta): the acceptance's float
    thresholds in :func:`discrete_gaussian_blocks` are exp(-x) times these, with one eta
    for the table, eta = 2 LIBM_ERROR + (x_max + 8) 2^-50, x_max = (b kmax)^2 / (2 p) + 1
    bounding x = y^2 / (2 p) in the table's blocks (its rounding: y^2 and the product by
    the double -1 / (2 p), each within 2^-53, move exp by a relative x 2^-51; the factor's
    and these products' roundings, 2^-53 each, are in the 8 2^-50)."""
    b, beta, kmax, C, W, F, factor = _gaussian_blocks(p)
    eta = 2 * LIBM_ERROR + ((b * kmax) ** 2 / (2 * p) + 1.0 + 8.0) * 2.0 ** -50
    scaled = factor * 2.0 ** (64 - beta)
    return scaled * (1.0 - eta), scaled * (1.0 + eta)


def _block_accept_bounds(p, y, scale, bits):
    """Fraction bounds of exp(-y^2 / (2 p)) scale (scale = b F / W_k, a Fraction)."""
    from fractions import Fraction

    lo, hi = _exp_neg_bounds(Fraction(y * y, 2 * p), bits)
    return lo * scale, hi * scale


def _gaussian_tail_draw(p, b, kmax, F, w_tail, negative, rng):
    """A trial of the tail piece |y| >= Y0 = b kmax (Python integers; probability below
    2^-60 per trial): |y| = Y0 + G, P(G >= g) = exp(-g Y0 / p), accepted with probability
    exp(-(|y| - Y0)^2 / (2 p)) times c = F exp(-Y0^2 / (2 p)) / (W_tail (1 - exp(-Y0 / p)))
    <= 1. The value (signed), or None when rejected."""
    from fractions import Fraction

    exact = _exact_samplers()
    Y0 = b * kmax
    g = geometric_one(exact.py_word(rng) >> 1, Y0, p, rng)
    if not bernoulli_exp_one(g * g, 2 * p, rng):
        return None

    def bounds(bits):
        e_lo, e_hi = _exp_neg_bounds(Fraction(Y0 * Y0, 2 * p), bits + 8)
        q_lo, q_hi = _exp_neg_bounds(Fraction(Y0, p), bits + 8)
        return (F * e_lo / (w_tail * (1 - q_lo)), F * e_hi / (w_tail * (1 - q_hi)))
    if not _below([exact.py_word(rng), 64], bounds, rng):
        return None
    return -(Y0 + g) if negative else Y0 + g


def discrete_gaussian_blocks(p, size, rng):
    """``size`` exact draws Z with P(Z = z) proportional to exp(-z^2 / (2 p)) (p a positive
    integer, sigma = sqrt(p) >= 64 and p < 2^56): the law of :func:`discrete_gaussian`
    (p, 1), by rejection from a block envelope (about 1.05 trials per draw, two words each).

    Proposal (:func:`_gaussian_blocks`): a block k with probability W_k / S by one word (its
    top 63 bits u, uniform on [0, 2^63): the block whose cumulative weights hold u; u >= S,
    probability below 2^-19, is drawn again), a sign from the word's lowest bit, and
    r uniform on {0, ..., b - 1} from the low beta bits of a second word, y = b k + r;
    accepted with probability a(y) = exp(-y^2 / (2 p)) b F / W_k <= 1, decided by the
    second word's top 64 - beta bits (U) as in :func:`bernoulli_exp_one` (a float decision
    with the margin of :func:`_block_thresholds`, exact bounds inside it). A proposed y then has probability (W_k / S) (1 / b) a(y) =
    F exp(-y^2 / (2 p)) / S, proportional to the target; y = 0 is proposed with both signs,
    so the negative zero is rejected. The tail block (|y| >= 10 sigma) is drawn by
    :func:`_gaussian_tail_draw` with the same property. Every accepted value has the
    target law, independently (Canonne, Kamath and Steinke 2020 for the discrete Gaussian;
    the envelope is a standard rejection sampler).

    Examples
    --------
    >>> z = discrete_gaussian_blocks(400 ** 2, 20000, as_generator(0))
    >>> abs(float(z.std()) - 400) < 10
    True
    """
    from fractions import Fraction

    p, size = int(p), int(size)
    if size > _BLOCK_CHUNK:  # in chunks, so that the working arrays stay in cache
        parts = [discrete_gaussian_blocks(p, min(_BLOCK_CHUNK, size - start), rng)
                 for start in range(0, size, _BLOCK_CHUNK)]
        return np.concatenate(parts) if not any(x.dtype == object for x in parts) else \
            np.array([v for x in parts for v in x.tolist()], dtype=object)
    exact = _exact_samplers()
    b, beta, kmax, C, W, F, factor = _gaussian_blocks(p)
    L = 64 - beta
    low_factor, high_factor = _block_thresholds(p)
    out = np.zeros(size, dtype=np.int64)
    filled = 0
    while filled < size:
        # independent trials, their accepted values taken in order (about 0.95 accepted)
        m = int((size - filled) * 1.08) + 16
        w1, w2 = exact.words(rng, m), exact.words(rng, m)
        negative = (w1 & np.uint64(1)).astype(bool)
        u = (w1 >> np.uint64(1)).view(np.int64)  # below 2^63: the same integers
        k = _block_index(p, C, u)  # C[k] <= u < C[k + 1]; len(W) if u >= S
        valid = k < kmax
        kk = np.where(valid, k, 0)
        r = (w2 & np.uint64(b - 1)).view(np.int64)
        acc_word = w2 >> np.uint64(beta)
        y = b * kk + r
        yf = y.astype(np.float64)
        e = np.exp(yf * yf * (-0.5 / p))
        wf = acc_word.astype(np.float64)
        yes = wf * (1.0 + 2.0 ** -52) + 1.0 < e * low_factor[kk]
        no = wf > e * high_factor[kk]
        undecided = valid & ~(yes | no)
        if FORCE_EXACT_PATH:
            undecided = valid.copy()
        for i in np.flatnonzero(undecided).tolist():
            scale = Fraction(b * F, W[int(kk[i])])
            yes[i] = _below([int(acc_word[i]), L],
                            functools.partial(_block_accept_bounds, p, int(y[i]), scale), rng)
        accepted = valid & yes & ~(negative & (y == 0))
        value = np.where(negative, -y, y)
        for i in np.flatnonzero(k == kmax).tolist():  # the tail block (never, in practice)
            drawn = _gaussian_tail_draw(p, b, kmax, F, W[kmax], bool(negative[i]), rng)
            if drawn is not None:
                if abs(drawn) >= (1 << 62) and out.dtype != object:
                    out = out.astype(object)
                accepted[i], value = True, value.astype(object)
                value[i] = drawn
        values = value[accepted][:size - filled]
        out[filled:filled + values.size] = values
        filled += values.size
    return out


_ROWS_CHUNK = 1 << 12  # draws per pass of discrete_gaussian_blocks_rows


@functools.lru_cache(maxsize=64)
def _block_tables(ps):
    """The tables of :func:`_gaussian_blocks`, :func:`_block_guide` and
    :func:`_block_thresholds` for each variance of the tuple ``ps``, stacked one row per
    variance (padded: the padding is never read for a valid block) for
    :func:`discrete_gaussian_blocks_rows`."""
    blocks = [_gaussian_blocks(p) for p in ps]
    guides = [_block_guide(p) for p in ps]
    limits = [_block_thresholds(p) for p in ps]
    width = max(len(g[2]) for g in guides)
    extended = np.full((len(ps), width), np.iinfo(np.int64).max, dtype=np.int64)
    low = np.zeros((len(ps), width))
    high = np.full((len(ps), width), np.inf)
    for j, (guide, (lo, hi)) in enumerate(zip(guides, limits)):
        extended[j, :len(guide[2])] = guide[2]
        low[j, :lo.size], high[j, :hi.size] = lo, hi
    return (blocks, np.stack([g[0] for g in guides]).ravel(),
            np.stack([g[1] for g in guides]).ravel(), extended.ravel(), low.ravel(),
            high.ravel(), width,
            np.array([b[0] for b in blocks], dtype=np.int64),
            np.array([b[1] for b in blocks], dtype=np.uint64),
            np.array([b[2] for b in blocks], dtype=np.int64),
            np.array([-0.5 / p for p in ps]))


def discrete_gaussian_blocks_rows(ps, size, rng):
    """A (len(ps), ``size``) int64 array: row j holds ``size`` exact draws of the discrete
    Gaussian with variance parameter ps[j] (each 64^2 <= p < 2^56), in one vectorised pass.

    The sampler of :func:`discrete_gaussian_blocks` (the same block envelope per variance,
    the same float decisions with their margins, exact bounds inside them, the same tail
    piece), with the trials of all rows drawn together: each trial carries its row's
    tables, and each row takes its accepted values in trial order, as
    :func:`discrete_gaussian_blocks` does for one variance. Rows and trials are independent,
    so row j has exactly the law of ``discrete_gaussian_blocks(ps[j], size, rng)`` (Canonne,
    Kamath and Steinke 2020 for the discrete Gaussian), only the fixed cost of the calls
    is shared.

    Examples
    --------
    >>> z = discrete_gaussian_blocks_rows([400 ** 2, 100 ** 2], 20000, as_generator(0))
    >>> [abs(float(row.std()) - sd) < sd / 40 for row, sd in zip(z, (400, 100))]
    [True, True]
    """
    from fractions import Fraction

    ps, size = tuple(int(p) for p in ps), int(size)
    J = len(ps)
    if J * size > _ROWS_CHUNK and size > 1:  # in column chunks: the arrays stay in cache
        step = max(1, _ROWS_CHUNK // J)
        parts = [discrete_gaussian_blocks_rows(ps, min(step, size - start), rng)
                 for start in range(0, size, step)]
        if any(x.dtype == object for x in parts):
            return np.array([[v for x in parts for v in x[j].tolist()] for j in range(J)],
                            dtype=object)
        return np.concatenate(parts, axis=1)
    exact = _exact_samplers()
    blocks, first, last, extended, low_factor, high_factor, width, b_of, beta_of, kmax_of, \
        half_of = _block_tables(ps)  # the 2-d tables flattened (row j at j * width)
    out = np.zeros((J, size), dtype=np.int64)
    filled = np.zeros(J, dtype=np.int64)
    while True:
        need = size - filled
        if not need.any():
            return out
        counts = np.where(need > 0, (need * 1.08).astype(np.int64) + 16, 0)
        g = np.repeat(np.arange(J), counts)  # the row of each trial, rows in order
        m = g.size
        w1, w2 = exact.words(rng, m), exact.words(rng, m)
        negative = (w1 & np.uint64(1)).astype(bool)
        u = (w1 >> np.uint64(1)).view(np.int64)  # below 2^63: the same integers
        bucket = (g << _GUIDE_BITS) | (u >> (63 - _GUIDE_BITS))
        lo_k, hi_k = first[bucket], last[bucket]
        row = g * width
        k = lo_k + (u >= extended[row + lo_k + 1])
        wide = np.flatnonzero(hi_k - lo_k > 1)  # the far tails: the search, row by row
        for j in (np.unique(g[wide]).tolist() if wide.size else ()):
            at = wide[g[wide] == j]
            k[at] = np.searchsorted(blocks[j][3], u[at], side="right") - 1
        kmax = kmax_of[g]
        valid = k < kmax
        kk = np.where(valid, k, 0)
        b = b_of[g]
        beta = beta_of[g]
        r = (w2 & (b.astype(np.uint64) - np.uint64(1))).view(np.int64)
        acc_word = w2 >> beta
        y = b * kk + r
        yf = y.astype(np.float64)
        e = np.exp(yf * yf * half_of[g])
        wf = acc_word.astype(np.float64)
        yes = wf * (1.0 + 2.0 ** -52) + 1.0 < e * low_factor[row + kk]
        no = wf > e * high_factor[row + kk]
        undecided = valid & ~(yes | no)
        if FORCE_EXACT_PATH:
            undecided = valid.copy()
        for i in np.flatnonzero(undecided).tolist():
            p = ps[g[i]]
            bj, betaj, _, _, W, F, _ = blocks[g[i]]
            scale = Fraction(bj * F, W[int(kk[i])])
            yes[i] = _below([int(acc_word[i]), 64 - betaj],
                            functools.partial(_block_accept_bounds, p, int(y[i]), scale), rng)
        accepted = valid & yes & ~(negative & (y == 0))
        value = np.where(negative, -y, y)
        for i in np.flatnonzero(k == kmax).tolist():  # the tail block (never, in practice)
            bj, _, kmax_j, _, W, F, _ = blocks[g[i]]
            drawn = _gaussian_tail_draw(ps[g[i]], bj, kmax_j, F, W[kmax_j],
                                        bool(negative[i]), rng)
            if drawn is not None:
                if abs(drawn) >= (1 << 62) and out.dtype != object:
                    out = out.astype(object)
                accepted[i], value = True, value.astype(object)
                value[i] = drawn
        index = np.flatnonzero(accepted)
        rows = g[index]
        start = np.searchsorted(rows, np.arange(J))  # each row's first accepted trial
        rank = np.arange(index.size) - start[rows]
        take = rank < need[rows]
        rows, rank = rows[take], rank[take]
        out[rows, filled[rows] + rank] = value[index[take]]
        filled += np.bincount(rows, minlength=J)


def discrete_gaussian_block_one(p, rng):
    """One draw of :func:`discrete_gaussian_blocks` (the same trials, decisions and margins)
    on Python integers and floats, a Python int: for a few draws, without the arrays' cost.

    Examples
    --------
    >>> rng = as_generator(0)
    >>> z = [discrete_gaussian_block_one(400 ** 2, rng) for _ in range(4000)]
    >>> abs(float(np.std(z)) - 400) < 20
    True
    """
    import bisect
    from fractions import Fraction

    exact = _exact_samplers()
    p = int(p)
    b, beta, kmax, C, W, F, factor = _gaussian_blocks(p)
    cumulative = _gaussian_blocks_list(p)
    low_factor, high_factor = _block_thresholds_lists(p)
    L = 64 - beta
    while True:
        w1, w2 = exact.py_word(rng), exact.py_word(rng)
        negative = w1 & 1
        k = bisect.bisect_right(cumulative, w1 >> 1) - 1
        if k > kmax:
            continue
        if k == kmax:
            drawn = _gaussian_tail_draw(p, b, kmax, F, W[kmax], bool(negative), rng)
            if drawn is not None:
                return drawn
            continue
        y = b * k + (w2 & (b - 1))
        acc_word = w2 >> beta
        decided = None
        if not FORCE_EXACT_PATH:
            e = math.exp(float(y) * float(y) * (-0.5 / p))
            wf = float(acc_word)
            if wf * (1.0 + 2.0 ** -52) + 1.0 < e * low_factor[k]:
                decided = True
            elif wf > e * high_factor[k]:
                decided = False
        if decided is None:
            decided = _below([acc_word, L], functools.partial(
                _block_accept_bounds, p, y, Fraction(b * F, W[k])), rng)
        if decided and not (negative and y == 0):
            return -y if negative else y


@functools.lru_cache(maxsize=64)
def _gaussian_blocks_list(p):
    return [int(c) for c in _gaussian_blocks(p)[3]]


@functools.lru_cache(maxsize=64)
def _block_thresholds_lists(p):
    return tuple(v.tolist() for v in _block_thresholds(p))
