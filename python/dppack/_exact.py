"""Exact samplers on the integers; private to :mod:`dppack._random`, which wraps them.

No probability is rounded: every decision compares uniform 64-bit words (the leading bits of
a uniform real U, extended when a word ties a threshold) with exact integer thresholds
floor(exp(-c / 2^m) 2^bits) (:func:`exp_floor`); no float ``exp`` or ``log`` is on a
sampling path. The samplers are Canonne, Kamath and Steinke (2020, "CKS"), Algorithms 1-3,
vectorised; an int64 product that could overflow continues in Python integers (``limit``
lets tests force that branch). Design notes: :doc:`/guide/internals`, "Exact samplers".
"""

import bisect
import functools
import math
from fractions import Fraction

import numpy as np

LIMIT = 1 << 62  # int64 products and bounds are kept at or below this
_WORD = 64
_CHUNK = 1 << 16  # outputs per batch of trials: the working arrays stay in cache
_RATES_CHUNK = 1 << 14  # outputs per batch of geometric_rates (its arrays are more)
# Up to this many draws, the Python-integer samplers (the same laws) are faster than the
# vectorised ones, whose fixed cost of a few array passes dominates a single draw.
_FEW = 4
_STEP_BITS = 4  # discrete Laplace: the geometric part counts steps of t / 16
# success rate of a discrete Laplace trial when its uniform part spans t / 2^m (m = index):
# (1 - exp(-2^-m)) 2^m, rounded down (sizes the batches only)
_LAPLACE_SUCCESS = (0.63, 0.78, 0.88, 0.93, 0.96)
_RAW_64_BIT = tuple(
    getattr(np.random, name)
    for name in ("PCG64", "PCG64DXSM", "Philox", "SFC64")
    if hasattr(np.random, name)
)


# --------------------------------------------------------------------------------------------
# Uniform bits
# --------------------------------------------------------------------------------------------


def words(rng, size):
    """``size`` uniform 64-bit words (``random_raw`` for 64-bit generators, else ``integers``)."""
    bit_generator = rng.bit_generator
    if type(bit_generator) in _RAW_64_BIT:
        return bit_generator.random_raw(size)
    return rng.integers(0, 1 << _WORD, size=size, dtype=np.uint64)


def py_uniform(rng, m):
    """A uniform integer in {0, ..., m - 1}, for a Python integer ``m >= 1`` of any size."""
    if m <= LIMIT:
        if m > _LEMIRE_MIN and type(rng.bit_generator) is _PCG64:
            return _lemire(rng.bit_generator.random_raw, m)
        return int(rng.integers(0, m))
    count = (m.bit_length() + 2 * _WORD - 1) // _WORD  # >= 64 spare bits: rejection < 2^-64
    top = 1 << (_WORD * count)
    cut = top - top % m
    while True:
        value = 0
        for word in words(rng, count).tolist():
            value = (value << _WORD) | word
        if value < cut:
            return value % m


def py_word(rng):
    """One uniform 64-bit word as a Python int (``words(rng, 1)[0]``, without the array)."""
    bit_generator = rng.bit_generator
    if type(bit_generator) in _RAW_64_BIT:
        return bit_generator.random_raw()  # one word, as a Python int: words(rng, 1)[0]
    return int(words(rng, 1)[0])


_py_word = py_word  # (the name the samplers below use)


_PCG64 = next(kind for kind in _RAW_64_BIT if kind.__name__ == "PCG64")
_LEMIRE_MIN = 1 << 32
_MASK = (1 << _WORD) - 1


def _lemire(raw, m):
    """``Generator.integers(0, m)`` of PCG64 for 2^32 < m <= 2^62 from its raw words, by NumPy's
    own method (Lemire 2019): the same words, the same value.
    """
    product = raw() * m
    if (product & _MASK) < m:
        threshold = (_MASK - (m - 1)) % m
        while (product & _MASK) < threshold:
            product = raw() * m
    return product >> _WORD


# --------------------------------------------------------------------------------------------
# exp(-c) as exact integers
# --------------------------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)
def _exp_bounds(m, bits):
    """Integers lo <= exp(-2^-m) 2^bits <= hi, from the alternating series of exp(-x)."""
    k = 1
    while (1 << (m * k)) * math.factorial(k) <= (1 << (bits + 2)):
        k += 1
    partial = sum(Fraction((-1) ** i, (1 << (m * i)) * math.factorial(i)) for i in range(k))
    tail = Fraction(1, (1 << (m * k)) * math.factorial(k))
    return math.floor((partial - tail) * (1 << bits)), math.ceil((partial + tail) * (1 << bits))


@functools.lru_cache(maxsize=4096)
def exp_floor(c, bits, m=0):
    """floor(exp(-c / 2^m) 2^bits), exactly (interval bounds, refined until they agree)."""
    if c == 0:
        return 1 << bits
    if c >= bits << m:  # exp(-c / 2^m) 2^bits <= (2/e)^bits < 1
        return 0
    work = bits + 2 * c.bit_length() + _WORD
    while True:
        lo, hi = _exp_bounds(m, work)
        shift = work * c - bits
        low, high = (lo ** c) >> shift, (hi ** c) >> shift
        if low == high:
            return low
        work *= 2


@functools.lru_cache(maxsize=8)
def _thresholds(m=0):
    """T[v] = floor(exp(-v / 2^m) 2^64), v = 0, ..., K (T[K] = 0, then one more 0), as uint64."""
    work = 2 * _WORD
    lo_step, hi_step = _exp_bounds(m, work)
    lo = hi = 1 << work
    table = [(1 << _WORD) - 1]
    while table[-1]:
        lo = (lo * lo_step) >> work
        hi = -((-(hi * hi_step)) >> work)
        low, high = lo >> _WORD, hi >> _WORD
        table.append(low if low == high else exp_floor(len(table), _WORD, m))
    return np.array(table + [0], dtype=np.uint64)


@functools.lru_cache(maxsize=8)
def _bucket_starts(m):
    """Where :func:`geometric`'s search starts for each bucket of words (exponent and six leading
    fraction bits of the word): at most one threshold lies in a bucket (checked here).
    """
    descending = [int(x) for x in _thresholds(m)[1:]]
    ascending = descending[::-1]

    def at_least(value):  # #{v: T[v] >= value}
        return len(ascending) - bisect.bisect_left(ascending, value)

    starts = []
    for x in range(1, 54):
        for j in range(64):
            low, high = (64 + j) << (x + 4), (65 + j) << (x + 4)
            starts.append(at_least(high))
            if at_least(low) - starts[-1] > 1:
                raise AssertionError("two thresholds in one bucket")
    return np.array(starts, dtype=np.int64)


def py_below_exp(state, c, rng, m=0):
    """Whether U < exp(-c / 2^m) for the uniform U whose known leading bits are ``state`` =
    [value, bits]; draws further bits on a tie and updates ``state``.
    """
    if c == 0:
        return True
    while True:
        value, bits = state
        threshold = exp_floor(c, bits, m)
        if value != threshold:
            return value < threshold
        state[0] = (value << _WORD) | _py_word(rng)
        state[1] = bits + _WORD


# --------------------------------------------------------------------------------------------
# Scalar samplers on Python integers: the branch for values beyond int64, and the reference
# --------------------------------------------------------------------------------------------


def py_bernoulli_exp(n, d, rng):
    """Bernoulli(exp(-n/d)) for Python integers n >= 0, d >= 1 (CKS Algorithm 1)."""
    q, r = divmod(n, d)
    if q and not py_below_exp([_py_word(rng), _WORD], q, rng):
        return False
    k = 1
    while r and py_uniform(rng, d * k) < r:
        k += 1
    return k % 2 == 1


def py_geometric(rng, state=None, m=0):
    """V with P(V >= v) = exp(-v / 2^m); ``state`` continues an already drawn U."""
    if state is None:
        state = [_py_word(rng), _WORD]
    v = 1
    while py_below_exp(state, v, rng, m):
        v += 1
    return v - 1


def py_discrete_laplace(t, s, rng):
    """One discrete Laplace draw, P(z) ~ exp(-|z| s / t) (CKS Algorithm 2)."""
    while True:
        u = py_uniform(rng, t)
        if not py_bernoulli_exp(u, t, rng):
            continue
        y = (u + t * py_geometric(rng)) // s
        negative = py_uniform(rng, 2)
        if negative and not y:
            continue
        return -y if negative else y


def gaussian_proposal_exponent(p, q):
    """j with t = 2^j the discrete Laplace proposal scale of CKS Algorithm 3 for sigma^2 = p/q: the
    smallest j >= 0 with 2 q 4^j >= p (acceptance about 0.65 or more).

    References
    ----------
    Canonne, Kamath and Steinke (2020), "The discrete Gaussian for differential privacy",
    NeurIPS, Algorithm 3.

    Examples
    --------
    >>> gaussian_proposal_exponent(1, 1), gaussian_proposal_exponent(9, 1)
    (0, 2)
    """
    j = 0
    while (q << (2 * j + 1)) < p:
        j += 1
    return j


def py_discrete_gaussian(p, q, rng):
    """One discrete Gaussian draw with sigma^2 = p/q (CKS Algorithm 3)."""
    t = 1 << gaussian_proposal_exponent(p, q)
    while True:
        y = py_discrete_laplace(t, 1, rng)
        w = abs(y) * t * q - p
        # CKS Algorithm 3: accept with exp(-(|y| - sigma^2/t)^2 / (2 sigma^2)), which is
        # exp(-w^2 / (2 p q t^2)) in integers.
        if py_bernoulli_exp(w * w, 2 * p * q * t * t, rng):
            return y


# --------------------------------------------------------------------------------------------
# Vectorised samplers (int64 arrays)
# --------------------------------------------------------------------------------------------


def dyadic_split(t):
    """(a, e) with t = 2^a e and e odd.

    Examples
    --------
    >>> dyadic_split(24), dyadic_split(7)
    ((3, 3), (0, 7))
    """
    a = (t & -t).bit_length() - 1
    return a, t >> a


def bernoulli_dyadic(n, a, e, rng):
    """Bernoulli(n / (2^a e)) per entry of the int64 array ``n``: the top ``a`` bits of one word,
    and a uniform draw on e values only on a tie.
    """
    if a:
        top = (words(rng, n.size) >> np.uint64(_WORD - a)).view(np.int64)
    else:
        top = np.zeros(n.size, dtype=np.int64)
    if e == 1:
        return top < n
    m = n // e
    r = n - m * e
    out = top < m
    tie = np.flatnonzero(top == m)
    if tie.size:
        out[tie] = rng.integers(0, e, size=tie.size) < r[tie]
    return out


def bernoulli_exp_fraction(n, a, e, rng, limit=LIMIT):
    """Bernoulli(exp(-n / d)) per entry, d = 2^a e, 0 <= n <= d (CKS Algorithm 1; beyond ``limit``
    the step's Bernoulli(n / (d K)) is drawn as Bernoulli(n / d) Bernoulli(1 / K)).
    """
    draw = bernoulli_dyadic(n, a, e, rng)  # K = 1, over all entries
    out = ~draw
    index = np.flatnonzero(draw)
    n = n[index]
    k = 2
    while index.size:
        if e * k <= limit:
            draw = bernoulli_dyadic(n, a, e * k, rng)
        else:
            draw = bernoulli_dyadic(n, a, e, rng) & (rng.integers(0, k, size=n.size) == 0)
        out[index[np.flatnonzero(~draw)]] = k % 2 == 1
        keep = np.flatnonzero(draw)
        index, n = index[keep], n[keep]
        k += 1
    return out


def bernoulli_exp_steps(c, m, rng):
    """Bernoulli(exp(-c / 2^m)) per entry of ``c``: one word against the exact threshold, continued
    exactly on a tie.
    """
    table = _thresholds(m)
    w = words(rng, c.size)
    exact = c
    if c.size and c.max() > table.size - 2:  # T[K] = 0 from K on
        c = np.minimum(c, table.size - 2)
    threshold = table[c.astype(np.intp, copy=False)]
    out = w < threshold
    for i in np.flatnonzero(w == threshold).tolist():
        out[i] = py_below_exp([int(w[i]), _WORD], int(exact[i]), rng, m)
    return out


def bernoulli_exp(n, d, rng, limit=LIMIT):
    """Bernoulli(exp(-n/d)) per entry of ``n >= 0`` (d <= ``limit`` / 16): exp(-c/16) by
    :func:`bernoulli_exp_steps` times exp(-r / (16 d)) by CKS Algorithm 1.
    """
    n = np.asarray(n, dtype=np.int64)
    if n.max(initial=0) < (1 << 58):  # 16 n fits in int64
        c = (n << 4) // d
        r = (n << 4) - c * d
    else:
        q = n // d
        r = n - q * d
        low = (r << 4) // d
        r = (r << 4) - low * d
        c = q * 16 + low if q.max() < (1 << 58) else q.astype(object) * 16 + low
    out = bernoulli_exp_steps(c, _STEP_BITS, rng)
    rest = np.flatnonzero(out & (r > 0))
    if rest.size:
        a, e = dyadic_split(d)
        out[rest] = bernoulli_exp_fraction(r[rest], a + 4, e, rng, limit)
    return out


def geometric(size, rng, m=0):
    """``size`` draws of V with P(V >= v) = exp(-v / 2^m) (int64, m <= 4), one word each against
    the exact thresholds (a tie or a word below 2^11 continues exactly).
    """
    table, starts = _thresholds(m), _bucket_starts(m)
    w = words(rng, size)
    # exponent and six leading fraction bits of float(w >> 11), less those of 1.0
    bucket = (((w >> np.uint64(11)).view(np.int64).astype(np.float64).view(np.int64) >> 46)
              - (1023 << 6))
    small = bucket < 0  # w < 2^11
    count = starts[np.maximum(bucket, 0)]
    following = table[count + 1]
    count += w < following
    for i in np.flatnonzero((w == following) | small).tolist():
        count[i] = py_geometric(rng, [int(w[i]), _WORD], m)
    return count


def _laplace_trials(count, t, s, rng, limit):
    """``count`` trials of CKS Algorithm 2 (X = U + r V, r = t / 16 for t = 2^a): the successes in
    trial order (int64), and {position: Python int} for values reaching ``limit``.
    """
    a, e = dyadic_split(t)
    m = min(_STEP_BITS, a) if e == 1 else 0
    r = t >> m  # X = U + r V, U uniform on {0, ..., r - 1}, P(V >= v) = exp(-v / 2^m)
    if e == 1:  # U is the top a - m bits of a word, the sign its lowest bit
        w = words(rng, count)
        if a > m:
            u = (w >> np.uint64(_WORD - a + m)).view(np.int64)
        else:
            u = np.zeros(count, dtype=np.int64)
        negative = (w & np.uint64(1)).view(np.int64)  # 0 or 1
    else:
        u = rng.integers(0, t, size=count)
        negative = rng.integers(0, 2, size=count)
    keep = np.flatnonzero(bernoulli_exp_fraction(u, a, e, rng, limit))  # U kept w.p. exp(-U/t)
    u, negative = u[keep], negative[keep]
    v = geometric(u.size, rng, m)
    wide = np.flatnonzero(v > (limit - r) // r)  # u + r v could pass limit (rare)
    if wide.size:
        v_wide = v[wide].tolist()
        v = v.copy()
        v[wide] = 0
    y = (u + v * r) // s
    big = {}
    for i, v_i in zip(wide.tolist(), v_wide if wide.size else []):
        value = (int(u[i]) + r * v_i) // s  # in Python integers
        y[i] = value if value < limit else 1  # 1: a placeholder that is not 0
        if value >= limit:
            big[i] = value
    z = y - 2 * y * negative
    zero = y == 0
    if not zero.any():
        return z, {i: -value if negative[i] else value for i, value in big.items()}
    keep = np.flatnonzero(~(zero & (negative == 1)))  # (B = 1, Y = 0) is rejected
    return z[keep], {int(np.searchsorted(keep, i)): -value if negative[i] else value
                     for i, value in big.items()}


def _discrete_laplace_parts(t, s, size, rng, limit):
    """``size`` discrete Laplace draws as (int64 array, {index: Python int})."""
    if 2 * t > limit or s > limit or size <= _FEW:
        return _python_draws(size, lambda: py_discrete_laplace(t, s, rng), limit)
    a, e = dyadic_split(t)
    rate = _LAPLACE_SUCCESS[min(_STEP_BITS, a) if e == 1 else 0]
    return _fill(size, lambda count: _laplace_trials(count, t, s, rng, limit), rate)


def _python_draws(size, draw, limit):
    """``size`` calls of ``draw()`` (Python integers) as (int64 array, {index: wide value})."""
    out = np.zeros(size, dtype=np.int64)
    big = {}
    for i in range(size):
        value = draw()
        if abs(value) < limit:
            out[i] = value
        else:
            big[i] = value
    return out, big


def _fill(size, trials, rate):
    """``size`` draws taken in order from batches of ``trials(count)`` (successes in trial order,
    wide values by position); ``rate`` sizes the batches.
    """
    out = np.zeros(size, dtype=np.int64)
    big = {}
    filled = 0
    while filled < size:
        need = min(size - filled, _CHUNK)
        values, wide = trials(int(need * 1.03 / rate) + 16)
        take = min(values.size, need)
        out[filled:filled + take] = values[:take]
        big.update((filled + i, value) for i, value in wide.items() if i < take)
        filled += take
    return out, big


def _merge(out, big):
    if not big:
        return out
    merged = out.astype(object)
    for i, value in big.items():
        merged[i] = value
    return merged


def discrete_laplace(t, s, size, rng, limit=LIMIT):
    """``size`` draws Z with P(Z = z) proportional to exp(-|z| s / t) (CKS Algorithm 2).

    Trials take r = t / 16 for t = 2^a >= 16 (U kept with probability >= exp(-1/16), V from
    one word): about 1.03 trials per draw, the same law. Returns int64 (object only if a
    |value| reaches ``limit``, never in practice).
    """
    t, s = int(t), int(s)
    if t < 1 or s < 1:
        raise ValueError("t and s must be positive integers.")
    return _merge(*_discrete_laplace_parts(t, s, int(size), rng, limit))


def geometric_rates(t, s, size, rng, limit=LIMIT, accept=None):
    """``size`` draws floor(X_i / s_i) with P(X >= x) = exp(-x / t) (CKS Algorithm 2's X), one
    rate s_i per entry (an int64 array, or an int): P(G_i >= k) = exp(-k s_i / t). ``accept``
    (for t = 2^a, a > 4) replaces CKS Algorithm 1 to keep U by exact Bernoulli(exp(-u / 2^a))
    coins, with the same law.
    """
    t, size = int(t), int(size)
    if not 0 < t <= (1 << 62):  # the uniform part below is formed in 64-bit words
        raise ValueError("geometric_rates takes 0 < t <= 2^62.")
    if size > _RATES_CHUNK:  # in chunks, so that the working arrays stay in cache
        s_array = np.asarray(s, dtype=np.int64)
        parts = [geometric_rates(t, s_array[i:i + _RATES_CHUNK] if s_array.ndim else s_array,
                                 min(_RATES_CHUNK, size - i), rng, limit, accept)
                 for i in range(0, size, _RATES_CHUNK)]
        if any(x.dtype == object for x in parts):
            return np.array([v for x in parts for v in x.tolist()], dtype=object)
        return np.concatenate(parts)
    a, e = dyadic_split(t)
    m = min(_STEP_BITS, a) if e == 1 else 0
    r = t >> m
    rate = _LAPLACE_SUCCESS[m]
    if accept is not None and not (e == 1 and a > m):
        accept = None
    parts_u, parts_v = [], []
    filled = 0
    while filled < size:  # one round almost always
        need = size - filled
        count = int(need * 1.03 / rate) + 16
        if e == 1:
            w = words(rng, count)
            u = ((w >> np.uint64(_WORD - a + m)).view(np.int64) if a > m
                 else np.zeros(count, dtype=np.int64))
        else:
            u = rng.integers(0, t, size=count)
        if accept is not None:
            u = u[accept(u, a, rng)]
        else:
            u = u[np.flatnonzero(bernoulli_exp_fraction(u, a, e, rng, limit))]
        v = geometric(u.size, rng, m)
        take = min(u.size, need)
        parts_u.append(u[:take])
        parts_v.append(v[:take])
        filled += take
    if len(parts_u) == 1:
        U, V = parts_u[0], parts_v[0]
    else:
        U, V = np.concatenate(parts_u), np.concatenate(parts_v)
    s_array = np.asarray(s, dtype=np.int64)
    if s_array.ndim and s_array.shape != (size,):
        s_array = np.broadcast_to(s_array, (size,))
    if V.max(initial=0) <= (limit - r) // r:
        return (U + V * r) // s_array
    s_array = np.broadcast_to(s_array, (size,))
    wide = np.flatnonzero(V > (limit - r) // r)
    V_safe = V.copy()
    V_safe[wide] = 0
    out = (U + V_safe * r) // s_array
    values = [(int(U[i]) + r * int(V[i])) // int(s_array[i]) for i in wide.tolist()]
    if any(v >= limit for v in values):
        out = out.astype(object)
    out[wide] = values
    return out


def _gaussian_trials(count, p, q, j, rng, limit):
    """``count`` trials of CKS Algorithm 3 (proposal scale 2^j): the accepted values, as
    :func:`_laplace_trials`; the exponent reduced to (|Y| - p/t)^2 / (2p) when q = 1 and t | p.
    """
    t = 1 << j
    y, y_big = _laplace_trials(count, t, 1, rng, limit)
    magnitude = np.abs(y)
    root = math.isqrt(limit)
    if q == 1 and p % t == 0:
        centre, scale, d = p >> j, 1, 2 * p  # w = |Y| - p / t, exponent w^2 / (2 p)
    else:
        centre, scale, d = p, t * q, (p * q) << (2 * j + 1)  # w = |Y| t q - p, 2 p q t^2
    # safe: w = |Y| scale - centre lies in [-centre, sqrt(limit)], and centre <= sqrt(limit)
    # (p <= 2 q t^2 and 16 d <= limit, checked by discrete_gaussian), so w^2 <= limit
    safe = magnitude <= (root + centre) // scale
    safe[list(y_big)] = False
    w = magnitude * scale if safe.all() else magnitude * safe * scale
    w -= centre
    w[~safe] = 0
    accepted = bernoulli_exp(w * w, d, rng, limit)
    wide = {}
    for i in np.flatnonzero(~safe).tolist():
        value = y_big.get(i, int(y[i]))
        w_i = abs(value) * scale - centre
        accepted[i] = py_bernoulli_exp(w_i * w_i, d, rng)
        if accepted[i] and i in y_big:
            wide[int(np.count_nonzero(accepted[:i]))] = value
    return y[np.flatnonzero(accepted)], wide


def discrete_gaussian(p, q, size, rng, limit=LIMIT):
    """``size`` draws Z with P(Z = z) proportional to exp(-z^2 / (2 sigma^2)), sigma^2 = p/q.

    CKS Algorithm 3 with proposal scale t = 2^j (:func:`gaussian_proposal_exponent`), the
    acceptance exponent exact in int64 where it fits (else Python integers). Returns int64
    (object only if a |value| reaches ``limit``).
    """
    p, q = int(p), int(q)
    if p < 1 or q < 1:
        raise ValueError("p and q must be positive integers.")
    size = int(size)
    j = gaussian_proposal_exponent(p, q)
    t = 1 << j
    if q == 1 and p % t == 0:
        a, e = 1, p  # the reduced exponent's denominator 2 p
    else:
        a, e = 2 * j + 1, p * q  # the exponent's denominator 2 p q t^2 = 2^a e
    if (e << (a + 4)) > limit or t * q > limit or size <= _FEW:
        return _merge(*_python_draws(size, lambda: py_discrete_gaussian(p, q, rng), limit))
    ratio = math.sqrt(p / q) / t  # sigma / t: the acceptance is 0.65 to 0.76 for sigma >= 0.7
    accept = 0.72 if 0.85 <= ratio <= 1.2 else 0.65 if 2 * p >= q else 0.43
    rate = accept * _LAPLACE_SUCCESS[min(_STEP_BITS, j)]
    return _merge(*_fill(size, lambda count: _gaussian_trials(count, p, q, j, rng, limit), rate))
