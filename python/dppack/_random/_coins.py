"""Exact coins and uniform integers: 64-bit words compared with rational bounds."""

import functools
import math

import numpy as np

from .. import _exact
from ._seeding import as_generator  # for the examples


def uniform_integer(m, rng):
    """An exact uniform integer in {0, ..., m - 1}, for a whole number ``m >= 1`` of any size.

    Integer arithmetic only (:func:`dppack._exact.py_uniform`: ``Generator.integers`` up to
    2^62, beyond that rejection from whole 64-bit words), so every value has probability
    exactly 1 / m. JointExp (``dppack.quantiles``) draws its outputs' grid points with it.

    Examples
    --------
    >>> import numpy as np
    >>> rng = as_generator(0)
    >>> sorted({uniform_integer(3, rng) for _ in range(200)})
    [0, 1, 2]
    >>> 0 <= uniform_integer(2 ** 70, rng) < 2 ** 70
    True
    """
    m = int(m)
    if m < 1:
        raise ValueError("m must be a positive whole number.")
    return _exact_samplers().py_uniform(rng, m)


def uniform_bits(bits, size, rng):
    """Exact uniform integers in {0, ..., 2^bits - 1} (int64), vectorised: the top ``bits``
    of independent uniform 64-bit words (:func:`dppack._exact.words`), 1 <= bits <= 62.
    JointExp on a resolution (``dppack.quantiles``) places each record on a value of the
    resolution at a uniform position among its ties with it.

    Examples
    --------
    >>> import numpy as np
    >>> v = uniform_bits(2, 4000, as_generator(0))
    >>> sorted(set(v.tolist())), abs(float(np.mean(v == 3)) - 0.25) < 0.03
    ([0, 1, 2, 3], True)
    """
    if not 1 <= bits <= 62:
        raise ValueError("bits must be in 1 ... 62.")
    words = _exact_samplers().words(rng, int(size))
    return (words >> np.uint64(64 - bits)).astype(np.int64)


def _exact_samplers():
    """The module :mod:`dppack._exact` (integer internals of the exact samplers)."""
    return _exact


def _fraction(x):
    """``x`` as an exact fractions.Fraction (a float is a dyadic rational)."""
    from fractions import Fraction

    return Fraction(x)


def bernoulli(n, d, rng):
    """Exact Bernoulli(n / d) per entry of the integer array ``n`` (0 <= n <= d, d <= 2^62).

    ``d = 2^a e`` (e odd): the top a bits of one word decide, and a tie (probability 2^-a)
    is settled by ``integers(0, e)`` (:func:`dppack._exact.bernoulli_dyadic`).
    """
    exact = _exact_samplers()
    a, e = exact.dyadic_split(int(d))
    return exact.bernoulli_dyadic(np.asarray(n, dtype=np.int64), a, e, rng)


def bernoulli_exp(n, d, rng):
    """Exact Bernoulli(exp(-n / d)) per entry of the integer array ``n >= 0`` (d <= 2^58).

    CKS Algorithm 1, with the integer part exp(-floor(16 n / d) / 16) decided by one exact
    comparison (:func:`dppack._exact.bernoulli_exp`).
    """
    return _exact_samplers().bernoulli_exp(n, d, rng)


@functools.lru_cache(maxsize=1024)
def exp_series_bounds(y, start=0, step=1, bits=64):
    """Rational bounds lo <= S <= hi of S = sum of y^i / i! over i = start, start + step, ...

    Parameters
    ----------
    y : fractions.Fraction or int
        y >= 0, exact.
    start : int, default 0
        The first power.
    step : int, default 1
        1 for the exponential series (start 0: exp(y); start 1: exp(y) - 1), 2 for
        sinh(y) (start 1) and cosh(y) (start 0).
    bits : int, default 64
        The bounds are within a relative 2^-bits of each other (for S > 0).

    Returns
    -------
    (Fraction, Fraction)
        lo is a partial sum (all terms are >= 0), each term rounded down in fixed point; hi
        the same terms rounded up plus twice the first omitted term (rounded up), which bounds
        the remainder once the ratio of consecutive terms, y^step / ((i + 1)...(i + step)), is
        at most 1/2 (the remainder is then below a geometric series of ratio 1/2).

    References
    ----------
    The Taylor series of exp with a geometric remainder bound (e.g. Brent and Zimmermann
    2010, Modern Computer Arithmetic, section 4.2); used for the exact coins of
    :func:`bernoulli_real`.

    Examples
    --------
    >>> from fractions import Fraction
    >>> lo, hi = exp_series_bounds(Fraction(1), bits=30)
    >>> float(lo) <= math.e <= float(hi), float(hi - lo) < 2 ** -29
    (True, True)
    >>> lo, hi = exp_series_bounds(Fraction(1, 2), start=1, step=2)  # sinh(1/2)
    >>> s = _fraction(math.sinh(0.5))  # within a few ulps of sinh(1/2)
    >>> lo <= s * (1 + 2 ** -50) and hi >= s * (1 - 2 ** -50)
    True
    """
    from fractions import Fraction

    y = Fraction(y)
    if y < 0:
        raise ValueError("y must be >= 0.")
    if y == 0:
        return (Fraction(1), Fraction(1)) if start == 0 else (Fraction(0), Fraction(0))
    num, den = y.numerator, y.denominator
    # fixed point 2^-P: P leaves bits + 8 bits below the first term, y^start / start!
    first = start * (num.bit_length() - den.bit_length() - 1) - math.factorial(start).bit_length()
    P = max(bits + 8 - first, 8)
    low = (num ** start << P) // (den ** start * math.factorial(start))  # floor of the term
    high = -(-(num ** start << P) // (den ** start * math.factorial(start)))  # its ceiling
    total_low, total_high = 0, 0
    i = start
    while True:
        total_low += low
        total_high += high
        scale = den ** step * math.prod(range(i + 1, i + step + 1))
        low = low * num ** step // scale
        high = -(-high * num ** step // scale)
        i += step
        # the remainder from term i on is at most twice term i once the ratio of consecutive
        # terms, y^step / ((i + 1) ... (i + step)), is at most 1/2
        ratio_ok = 2 * num ** step <= den ** step * math.prod(range(i + 1, i + step + 1))
        if ratio_ok and high << (bits + 1) <= total_low:
            return Fraction(total_low, 1 << P), Fraction(total_high + 2 * high, 1 << P)


def bernoulli_real(bounds, size, rng):
    """``size`` exact Bernoulli(p) draws for a probability p known through rational bounds.

    Parameters
    ----------
    bounds : callable
        ``bounds(bits)`` returns Fractions lo <= p <= hi with hi - lo at most about 2^-bits
        (tighter as ``bits`` grows; lo = hi = p is allowed), 0 <= p <= 1.
    size : int
    rng : NumPy Generator

    Returns
    -------
    numpy.ndarray of bool

    Notes
    -----
    Each draw compares a uniform U in [0, 1) with p, reading U's bits lazily (64 at a time,
    :func:`dppack._exact.words`): with the first word w, U lies in [w, w + 1) / 2^64, so
    U < p is settled when w + 1 <= lo 2^64 and U >= p when w >= hi 2^64. Otherwise (probability
    about 2^-60 per draw) further words are appended and the bounds refined, until the interval
    of U falls on one side of the bounds: the law is exactly Bernoulli(p), with no rounding of
    p (the loop ends with probability 1 when p is irrational or the bounds become exact).

    Examples
    --------
    >>> from fractions import Fraction
    >>> rng = as_generator(3)
    >>> third = lambda bits: (Fraction(1, 3), Fraction(1, 3))
    >>> bool(bernoulli_real(third, 10000, rng).mean() > 0.31)
    True
    """
    exact = _exact_samplers()
    size = int(size)
    top = 1 << 64
    low, high = _word_thresholds(bounds)
    w = exact.words(rng, size)
    if low >= top:
        return np.ones(size, dtype=bool)
    out = w < np.uint64(max(low, 0))
    undecided = ~out if high >= top else (~out & (w < np.uint64(high)))
    for i in np.flatnonzero(undecided).tolist():
        value, nbits = int(w[i]), 64
        while True:
            value = (value << 64) | int(exact.words(rng, 1)[0])
            nbits += 64
            lo, hi = bounds(nbits + 16)
            if value + 1 <= lo * (1 << nbits):
                out[i] = True
                break
            if value >= hi * (1 << nbits):
                out[i] = False
                break
    return out


def bernoulli_exp_wide(n, d, rng):
    """Exact Bernoulli(exp(-n_i / d)) for a list ``n`` of Python integers >= 0 and a Python
    integer d >= 1 of any size (CKS Algorithm 1 on Python integers,
    :func:`dppack._exact.py_bernoulli_exp`); the branch of :func:`bernoulli_exp` for
    numerators beyond int64 or denominators beyond 2^58. Returns a bool array.

    Examples
    --------
    >>> bernoulli_exp_wide([0, 0], 1 << 70, as_generator(0)).tolist()
    [True, True]
    """
    exact = _exact_samplers()
    return np.array([exact.py_bernoulli_exp(int(v), int(d), rng) for v in n], dtype=bool)


_WORD_THRESHOLDS = {}


def _word_thresholds(bounds):
    """(low, high): floor(lo 2^64) and ceil(hi 2^64) for ``bounds(80)``, cached for bounds
    given as ``functools.partial`` of a pure function (the noise-reduction coins reuse them
    across calls)."""
    key = None
    if isinstance(bounds, functools.partial) and not bounds.keywords:
        key = (bounds.func, bounds.args)
        if key in _WORD_THRESHOLDS:
            return _WORD_THRESHOLDS[key]
    lo, hi = bounds(80)
    out = (math.floor(lo * (1 << 64)), math.ceil(hi * (1 << 64)))
    if key is not None:
        if len(_WORD_THRESHOLDS) > 65536:
            _WORD_THRESHOLDS.clear()
        _WORD_THRESHOLDS[key] = out
    return out


@functools.lru_cache(maxsize=1024)
def _threshold_arrays(thresholds):
    """The word thresholds of :func:`bernoulli_real_rows` as (rows, 1) columns (cached: the
    noise-reduction coins reuse them): low and high clipped to [0, 2^64 - 1], and whether
    each row is certain (low >= 2^64) or open at the top (high >= 2^64), None when no row
    is."""
    top = 1 << 64
    low = np.array([min(max(lo, 0), top - 1) for lo, _ in thresholds], dtype=np.uint64)
    high = np.array([min(max(hi, 0), top - 1) for _, hi in thresholds], dtype=np.uint64)
    certain = np.array([lo >= top for lo, _ in thresholds], dtype=bool)
    open_top = np.array([hi >= top for _, hi in thresholds], dtype=bool)
    low, high, certain, open_top = (a[:, None] for a in (low, high, certain, open_top))
    for array in (low, high, certain, open_top):
        array.flags.writeable = False
    return (low, high, certain if certain.any() else None,
            open_top if open_top.any() else None)


def bernoulli_real_rows(bounds, size, rng, thresholds=None):
    """Exact Bernoulli(p_i) draws, ``size`` per probability: a bool array (len(bounds), size).

    The draws of :func:`bernoulli_real` for several probabilities at once (one word per
    draw; row i compared with the 64-bit thresholds of ``bounds[i]``, the undecided draws
    refined as there). Same law as ``len(bounds)`` calls of :func:`bernoulli_real`.
    ``thresholds``, if given, are those of :func:`_word_thresholds` for ``bounds`` (a caller
    that computed them once).

    Examples
    --------
    >>> from fractions import Fraction
    >>> rows = [lambda bits: (Fraction(0), Fraction(0)), lambda bits: (Fraction(1), Fraction(1))]
    >>> bernoulli_real_rows(rows, 3, as_generator(0)).tolist()
    [[False, False, False], [True, True, True]]
    """
    exact = _exact_samplers()
    rows, size = len(bounds), int(size)
    if thresholds is None:
        thresholds = [_word_thresholds(b) for b in bounds]
    low, high, certain, open_top = _threshold_arrays(tuple(thresholds))
    w = exact.words(rng, rows * size).reshape(rows, size)
    out = w < low
    if certain is not None:
        out |= certain
    undecided = w < high
    if open_top is not None:
        undecided |= open_top
    undecided &= ~out
    if not np.count_nonzero(undecided):
        return out
    for i, j in zip(*np.nonzero(undecided)):
        value, nbits = int(w[i, j]), 64
        while True:
            value = (value << 64) | int(exact.words(rng, 1)[0])
            nbits += 64
            lo, hi = bounds[i](nbits + 16)
            if value + 1 <= lo * (1 << nbits):
                out[i, j] = True
                break
            if value >= hi * (1 << nbits):
                out[i, j] = False
                break
    return out


# The relative error allowed to the C library's float64 log, exp and expm1 (NumPy's and
# Python's math): IEEE 754 recommends correct rounding (2^-53); glibc states 1 or 2 ulps and
# NumPy's SIMD kernels at most 4 (about 2^-51). 2^-46 is 32 times the larger; the fast
# decisions below are exact whenever the library is within it
# (tests/python/random/test_noise_reduction_speed.py checks it against exact rational bounds).
LIBM_ERROR = 2.0 ** -46


# test hook: True sends every decision of the samplers below to its exact path (the same law)
FORCE_EXACT_PATH = False


def word(rng):
    """One uniform 64-bit word, a Python int (:func:`dppack._exact.py_word`)."""
    return _exact_samplers().py_word(rng)


def word_thresholds(bounds):
    """(low, high) = floor(lo 2^64), ceil(hi 2^64) of ``bounds(80)``, cached for
    ``functools.partial`` bounds (:func:`_word_thresholds`): what :func:`bernoulli_word`
    compares a word with."""
    return _word_thresholds(bounds)


def _exp_neg_bounds(y, bits):
    """Fractions lo <= exp(-y) <= hi for a Fraction y >= 0, within a relative 2^-bits."""
    lo, hi = exp_series_bounds(y, 0, 1, bits)
    return 1 / hi, 1 / lo


def _below(state, bounds, rng):
    """Whether U < p, for the uniform U whose leading bits ``state = [value, nbits]`` holds
    (U in [value, value + 1) / 2^nbits) and p known through ``bounds(bits)`` (Fractions,
    tightening as bits grow). Undecided: 64 more bits of U are drawn and ``state`` updated,
    so later comparisons of the same U stay consistent."""
    exact = _exact_samplers()
    while True:
        value, nbits = state
        lo, hi = bounds(nbits + 16)
        if (value + 1) <= lo * (1 << nbits):
            return True
        if value >= hi * (1 << nbits):
            return False
        state[0] = (value << 64) | exact.py_word(rng)
        state[1] = nbits + 64


def _exp_coin_bounds(n, a, i, k, bits):
    return _exp_neg_bounds(_fraction(int(n[i])) / (1 << a), bits)


_EXP_COIN_SLACK = 2.0 * (2 * LIBM_ERROR + 2.0 ** -49) + 2.0 ** -50


def exp_coins_dyadic(n, a, rng):
    """Exact Bernoulli(exp(-n_i / 2^a)) draws for the int64 array ``n``, 0 <= n_i < 2^(a - 4)
    (exponents below 1/16), 4 < a <= 62: a bool array, one 64-bit word per draw.

    The decision of :func:`cumulative_index` with one cumulative value: U in
    [w, w + 1) / 2^64 is compared with p_f = exp(-x_f), x_f = n_i 2^-a in float (the
    conversion of n_i errs by a relative 2^-53, the power of two is exact, so the exponent
    by less than 2^-57 absolutely), within a relative eta = 2 LIBM_ERROR + 2^-49 of
    exp(-n_i / 2^a); the words the floats cannot settle (probability about 4 eta) continue
    exactly on further bits of the same U (:func:`_below`, rational bounds of the series).
    Each coin is a function of its U alone: exactly Bernoulli(exp(-n_i / 2^a)) (the coin
    of Canonne, Kamath and Steinke 2020, Algorithm 1, in one comparison).

    Examples
    --------
    >>> coins = exp_coins_dyadic(np.full(4000, 1 << 10), 16, as_generator(0))
    >>> abs(float(coins.mean()) - math.exp(-2.0 ** -6)) < 0.01
    True
    """
    w = _exact_samplers().words(rng, n.size)
    wf = w.astype(np.float64)
    threshold = np.exp(n * -math.ldexp(1.0, -a))
    threshold *= 2.0 ** 64
    out = wf * (1.0 + 2.0 ** -52) + 1.0 < threshold * (1.0 - _EXP_COIN_SLACK)
    undecided = ~out & (wf <= threshold * (1.0 + _EXP_COIN_SLACK))
    if FORCE_EXACT_PATH:
        undecided[:] = True
    for i in np.flatnonzero(undecided).tolist():
        out[i] = _below([int(w[i]), 64], functools.partial(_exp_coin_bounds, n, a, i, 0), rng)
    return out


def bernoulli_word(word, low, high, bounds, rng):
    """Bernoulli(p) from one uniform 64-bit ``word`` (a Python int) with the thresholds
    (low, high) of :func:`_word_thresholds`: True if word < low, False if word >= high,
    else decided exactly on further bits (:func:`_below`): the draw of
    :func:`bernoulli_real` for one value, on Python integers."""
    if word < low:
        return True
    if word >= high:
        return False
    return _below([word, 64], bounds, rng)


def bernoulli_exp_one(n, d, rng):
    """One exact Bernoulli(exp(-n / d)) draw (Python integers n >= 0, d >= 1), a bool.

    With U in [w, w + 1) / 2^64 from one word w: p_f = exp(-x_f), x_f = n / d in float
    (capped at 600: exp(-600) < 2^-865 bounds the probability above there) is within a
    relative eta = 2 LIBM_ERROR + (x_f + 1) 2^-50 of p (the rate's rounding moves the
    exponent by x_f 2^-51; exp errs by LIBM_ERROR). U < p is settled when
    w (1 + 2^-52) + 1 < 2^64 p_f (1 - eta), and U >= p when w > 2^64 p_f (1 + eta) (eta also
    covers the rounding of the word and the products). Otherwise (probability about
    2 eta p) the same U is compared exactly on further bits with rational bounds of exp(-x)
    (:func:`_below`). The coin is a function of U alone: exactly Bernoulli(exp(-x)).

    Examples
    --------
    >>> rng = as_generator(0)
    >>> abs(sum(bernoulli_exp_one(1, 2, rng) for _ in range(4000)) / 4000 - math.exp(-0.5)) < 0.03
    True
    """
    w = _exact_samplers().py_word(rng)
    if not FORCE_EXACT_PATH:
        x = 600.0 if n >= 600 * d else n / d
        threshold = math.exp(-x) * 2.0 ** 64
        eta = 2 * LIBM_ERROR + (x + 1.0) * 2.0 ** -50
        wf = float(w)
        if wf * (1.0 + 2.0 ** -52) + 1.0 < threshold * (1.0 - eta):
            return True
        if wf > threshold * (1.0 + eta):
            return False
    return _below([w, 64], functools.partial(_exp_neg_bounds, _fraction(n) / d), rng)


def cumulative_index(cumulative, eta, bounds, rng):
    """Exact inverse-CDF choices: per entry, the number of k with U >= c_k for one uniform U.

    Parameters
    ----------
    cumulative : list of float arrays
        c_1 <= c_2 <= ... (per entry, probabilities in [0, 1]) in floating point: each within
        a relative ``eta`` (an array or a float) of the exact value.
    eta : float or float array
        The relative error bound of the floats (the caller's proof), at most 2^-20.
    bounds : callable
        ``bounds(i, k, bits)`` gives Fractions lo <= c_k <= hi for entry i, within about
        2^-bits: the exact values, for the draws the floats cannot decide.
    rng : NumPy Generator

    Returns
    -------
    int64 array
        The index of the piece, 0 ... len(cumulative).

    Notes
    -----
    One word w per entry, U in [w, w + 1) / 2^64. U < c_k is settled when
    w (1 + 2^-52) + 1 < 2^64 c_f (1 - 2 eta) and U >= c_k when w > 2^64 c_f (1 + 2 eta) (the
    factor 2 and the 2^-52 cover the rounding of the word and of the products); an entry
    that some comparison cannot settle (probability about 4 eta per comparison) is decided
    exactly with ``bounds``, on further bits of the same U (:func:`_below`). The index is a
    function of U alone: exactly P(index = k) = c_{k+1} - c_k.
    """
    w = _exact_samplers().words(rng, cumulative[0].size)
    wf = w.astype(np.float64)
    low_side = wf * (1.0 + 2.0 ** -52) + 1.0
    slack = 2.0 * (eta if type(eta) is float else np.asarray(eta, dtype=np.float64)) + 2.0 ** -50
    down, up = (1.0 - slack) * 2.0 ** 64, (1.0 + slack) * 2.0 ** 64
    # above_k (U >= c_k settled) implies not below_k (U < c_k not settled): an entry is
    # undecided iff it has more comparisons not below than above
    index = np.zeros(w.size, dtype=np.int64)
    not_below = np.zeros(w.size, dtype=np.int64)
    for c in cumulative:
        index += wf > c * up
        not_below += low_side >= c * down
    undecided = not_below != index
    if FORCE_EXACT_PATH:
        undecided[:] = True
    for i in np.flatnonzero(undecided).tolist():
        state = [int(w[i]), 64]
        k = 0
        while k < len(cumulative) and not _below(
                state, functools.partial(bounds, i, k), rng):
            k += 1
        index[i] = k
    return index


def cumulative_index_one(cumulative, eta, bounds, rng):
    """:func:`cumulative_index` for one entry on Python floats: ``cumulative`` a list of
    floats, ``bounds(k, bits)`` the exact bounds of c_k. The same decisions and margins."""
    w = _exact_samplers().py_word(rng)
    wf = float(w)
    low_side = wf * (1.0 + 2.0 ** -52) + 1.0
    slack = 2.0 * eta + 2.0 ** -50
    index = 0
    for c in cumulative:
        threshold = c * 2.0 ** 64
        if FORCE_EXACT_PATH or not (low_side < threshold * (1.0 - slack)
                                    or wf > threshold * (1.0 + slack)):
            break  # undecided: exactly below
        if wf > threshold * (1.0 + slack):
            index += 1
        else:
            return index
    else:
        return index
    state = [w, 64]
    k = 0
    while k < len(cumulative) and not _below(state, functools.partial(bounds, k), rng):
        k += 1
    return k


def word_index_plan(bounds):
    """What :func:`word_index` needs of constants 0 < c_1 < ... < c_K < 1, given by
    ``bounds`` (a sequence of ``bounds_k(bits)``, Fractions lo <= c_k <= hi within about
    2^-bits): the sorted uint64 array of L_k = floor(c_k 2^64) and L_k + 1, ``bounds`` and
    the L_k as Python integers; None when two constants share a word value, or one is
    within 2^-64 of 0 or 1 (the caller draws otherwise).

    Examples
    --------
    >>> from fractions import Fraction
    >>> plan = word_index_plan([lambda bits: (Fraction(1, 3), Fraction(1, 3))])
    >>> [int(v) for v in plan[0]] == [(1 << 64) // 3, (1 << 64) // 3 + 1]
    True
    """
    levels = []
    for bound in bounds:
        bits = 80
        while True:
            lo, hi = bound(bits)
            low, high = math.floor(lo * (1 << 64)), math.floor(hi * (1 << 64))
            if low == high:
                break
            if bits > 2000:  # c_k 2^64 within 2^-1900 of an integer: not expected
                return None
            bits *= 2
        levels.append(low)
    if levels[0] < 1 or levels[-1] + 2 >= 1 << 64 or any(
            b - a < 2 for a, b in zip(levels, levels[1:])):
        return None
    thresholds = np.array([v + e for v in levels for e in (0, 1)], dtype=np.uint64)
    thresholds.flags.writeable = False
    return thresholds, tuple(bounds), tuple(levels)


def word_index(plan, size, rng):
    """Exact inverse-CDF choices among constant cumulative probabilities: ``size`` draws of
    the index k (0 ... K) with P(k) = c_{k+1} - c_k (c_0 = 0, c_{K+1} = 1), one 64-bit word
    each; ``plan`` from :func:`word_index_plan`.

    The word w gives U in [w, w + 1) / 2^64, and with L_k = floor(c_k 2^64): w < L_k gives
    U < (w + 1) / 2^64 <= c_k, and w > L_k gives U >= (L_k + 1) / 2^64 > c_k, both exactly,
    in one search of the sorted L_k and L_k + 1 (an even count 2k of them <= w: index k);
    w = L_k (an odd count, probability 2^-64 per constant) is decided on further bits of
    the same U (:func:`_below`). The index is the number of k with U >= c_k, a function of
    U alone: exactly the law.

    Examples
    --------
    >>> from fractions import Fraction
    >>> plan = word_index_plan([lambda bits: (Fraction(1, 4), Fraction(1, 4)),
    ...                         lambda bits: (Fraction(3, 4), Fraction(3, 4))])
    >>> index = word_index(plan, 4000, as_generator(0))
    >>> [abs(float(np.mean(index == k)) - p) < 0.03 for k, p in enumerate((0.25, 0.5, 0.25))]
    [True, True, True]
    """
    thresholds, bounds, _ = plan
    w = _exact_samplers().words(rng, size)
    index = thresholds.searchsorted(w, side="right")
    odd = index & 1
    if FORCE_EXACT_PATH:
        odd[:] = 1
    if np.count_nonzero(odd):
        for i in np.flatnonzero(odd).tolist():
            state, k = [int(w[i]), 64], 0
            while k < len(bounds) and not _below(state, bounds[k], rng):
                k += 1
            index[i] = 2 * k
    index >>= 1
    return index


def word_index_one(plan, rng):
    """One draw of :func:`word_index` on Python integers (the same comparisons)."""
    _, bounds, levels = plan
    w = _exact_samplers().py_word(rng)
    if not FORCE_EXACT_PATH:
        for k, level in enumerate(levels):
            if w < level:
                return k
            if w == level:
                break
        else:
            return len(levels)
    state, k = [w, 64], 0
    while k < len(bounds) and not _below(state, bounds[k], rng):
        k += 1
    return k
