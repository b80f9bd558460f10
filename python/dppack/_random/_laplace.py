"""Discrete Laplace noise: geometric samplers, the grid release, tails, l-infinity noise."""

import functools
import math

import numpy as np

from ._seeding import as_generator  # for the examples
from ._coins import (
    FORCE_EXACT_PATH, _below, _exact_samplers, _exp_neg_bounds, _fraction, bernoulli_exp_one,
    exp_coins_dyadic, uniform_integer,
)
from ._grid import LAPLACE_GRID_BITS, LAPLACE_MAX_BITS, _release, grid_exponent, grid_units


def discrete_laplace(t, s, size, rng):
    """``size`` exact draws Z with P(Z = z) proportional to exp(-|z| s / t), t, s positive
    integers (CKS Algorithm 2; :func:`dppack._exact.discrete_laplace`). int64."""
    return _exact_samplers().discrete_laplace(t, s, size, rng)


def geometric_rates(t, s, size, rng):
    """``size`` exact draws G_i >= 0 with P(G_i >= k) = exp(-k s_i / t): t a positive
    integer, s a positive int or an int64 array of ``size`` values (one rate per entry);
    floor(X / s_i) of CKS Algorithm 2's X (:func:`dppack._exact.geometric_rates`), its
    uniform part kept by the one-word exact coins of :func:`exp_coins_dyadic` when t is a
    power of two (the same law as CKS Algorithm 1's coins). int64.

    Examples
    --------
    >>> g = geometric_rates(4, np.array([1, 2]), 2, as_generator(0))
    >>> g.shape, bool((g >= 0).all())
    ((2,), True)
    """
    return _exact_samplers().geometric_rates(t, s, size, rng, accept=exp_coins_dyadic)


def discrete_laplace_rates(t, s, size, rng):
    """``size`` exact draws Z_i with P(Z_i = z) proportional to exp(-|z| s_i / t), one rate
    per entry over a common t (``s`` an int or an int64 array of ``size`` positive values).

    One geometric G_i of rate s_i / t (:func:`geometric_rates`) and one fair sign B_i per
    draw; (B = 1, G = 0) is drawn again, else Z = (1 - 2B) G. Then P(Z = z) is proportional
    to P(G = |z|) / 2 for every z (z = 0 only from B = 0), that is to exp(-|z| s_i / t):
    the discrete Laplace law (Canonne, Kamath and Steinke 2020, Algorithm 2 draws it as such
    a signed geometric). int64 (object if a value reaches 2^62, never in practice).

    Examples
    --------
    >>> z = discrete_laplace_rates(1, 1, 4000, as_generator(0))
    >>> abs(float(np.mean(z == 0)) - math.tanh(0.5)) < 0.03
    True
    """
    exact = _exact_samplers()
    size = int(size)
    s = np.asarray(s, dtype=np.int64)
    if s.shape != (size,):
        s = np.broadcast_to(s, (size,))
    g = geometric_rates(t, s, size, rng)
    negative = (exact.words(rng, size) & np.uint64(1)).astype(bool)
    redo = np.flatnonzero(negative & (g == 0))
    while redo.size:  # probability (1 - exp(-s_i / t)) / 2 per draw
        again = geometric_rates(t, s[redo], redo.size, rng)
        sign = (exact.words(rng, redo.size) & np.uint64(1)).astype(bool)
        if again.dtype == object and g.dtype != object:
            g = g.astype(object)
        g[redo], negative[redo] = again, sign
        redo = redo[sign & (again == 0)]
    return np.where(negative, -g, g)


def laplace_grid(sensitivity, eps, coordinates=1, grid=None):
    """The grid and the integer scale of :func:`discrete_laplace_noise`.

    Parameters
    ----------
    sensitivity : float
        Delta > 0, the L1 sensitivity of the release.
    eps : float
        > 0 and finite.
    coordinates : int, default 1
        m, how many entries can differ between neighbours (0: values already on the grid).
    grid : int, optional
        A given exponent k (for releases whose noises must share one grid, e.g.
        AboveThreshold's threshold and query noises); chosen as below when None.

    Returns
    -------
    k : int
        g = 2^k, the largest power of two <= min(b, Delta / (m + 1)) / 2^20 (b = Delta / eps,
        m = ``coordinates``) unless that would make b / g exceed 2^36, in which case the
        largest power <= b / 2^36. Rounding then costs at most 2^-21 b, and the extra grid
        steps raise the scale by (m + 1) g / Delta <= 2^-20 (relative) in the first case.
    units : int
        D = :func:`grid_units` (Delta, k, m).
    t, s : int
        The integer noise has scale t / s >= D / eps (so its privacy parameter D s / t is at
        most eps), t = 2^j with j >= 56 and s = floor(t eps / D): the scale is rounded up by a
        relative 1/s <= 2^-20.
    """
    return _laplace_grid(float(sensitivity), float(eps), coordinates,
                         None if grid is None else int(grid))


@functools.lru_cache(maxsize=512)
def _laplace_grid(sensitivity, eps, coordinates, grid):
    """:func:`laplace_grid` on floats, computed once per arguments (small calls repeat them)."""
    b = sensitivity / eps
    if grid is None:
        k = max(grid_exponent(min(b, sensitivity / (coordinates + 1)), LAPLACE_GRID_BITS),
                grid_exponent(b, LAPLACE_MAX_BITS))
    else:
        k = grid
    units = grid_units(sensitivity, k, coordinates)
    numerator, denominator = eps.as_integer_ratio()  # eps exactly, in lowest terms
    j = max(56, (units * denominator // numerator).bit_length() + 21)
    s = (numerator << j) // (units * denominator)
    return k, units, 1 << j, s


def discrete_laplace_noise(values, sensitivity, eps, rng, coordinates=None, grid=None):
    """Release ``values`` with exact discrete Laplace noise on a power-of-two grid (eps-DP).

    Parameters
    ----------
    values : array_like of float
        The true values (finite), any shape.
    sensitivity : float
        Delta > 0, the L1 sensitivity of ``values`` as a whole.
    eps : float
        > 0 and finite.
    rng : NumPy Generator
    coordinates : int, optional
        m >= 1, how many entries of ``values`` can differ between neighbouring datasets
        (each can gain one grid step in rounding); all of them by default. m = 0 when the
        values are already multiples of g = 2^``grid`` (counts on ``grid=0``): rounding
        moves none of them, and D = ceil(Delta / g), the integer sensitivity itself.
    grid : int, optional
        The exponent k of g = 2^k, when several noises of one release must share a grid
        (:func:`laplace_grid`), or the grid the values lie on (m = 0); by default chosen
        from ``sensitivity``, ``eps`` and m.

    Returns
    -------
    numpy.ndarray of float
        g (round(x / g) + Z) entrywise, Z independent integers with
        P(Z = z) proportional to exp(-|z| eps' / D); every entry is a multiple of g.

    Notes
    -----
    The argument (Canonne, Kamath and Steinke 2020,
    discrete Laplace): g = 2^k and the integers t, s come from :func:`laplace_grid`. The
    rounded vector V = round(x / g) has L1 sensitivity at most D = ceil(Delta / g) + m in grid
    units (:func:`grid_units`). Integer noise with P(z) proportional to exp(-|z| eps' / D)
    added to an integer vector of L1 sensitivity D is eps'-DP (the ratio of the two
    probabilities of any output is at most exp(eps' ||V - V'||_1 / D)); here
    eps' = D s / t <= eps. The draws are exact (:func:`dppack._exact.discrete_laplace`, scale
    t / s in grid units), and the float released is a function of the integer V + Z only
    (:func:`_release`), so no floating-point rounding depends on the data (Mironov 2012).
    """
    x = np.asarray(values, dtype=np.float64)
    m = max(x.size, 1) if coordinates is None else int(coordinates)
    if m == 0 and grid is None:
        raise ValueError("coordinates = 0 needs the grid the values lie on.")
    k, _, t, s = laplace_grid(float(sensitivity), float(eps), m, grid)
    return _release(x, discrete_laplace(t, s, x.size, rng), k)


def discrete_laplace_tail(m, t, s):
    """P[Z >= m] for the discrete Laplace with P(Z = z) proportional to exp(-|z| s / t).

    Closed form, with q = exp(-s / t): the normaliser is (1 + q) / (1 - q), so
    P[Z >= m] = q^m / (1 + q) for m >= 1 and 1 - q^(1 - m) / (1 + q) for m <= 0 (a real m
    means P[Z >= ceil(m)]).

    Parameters
    ----------
    m : float
    t, s : float
        Positive: the scale t / s (in grid units for a release on a grid).

    Returns
    -------
    float

    Examples
    --------
    >>> round(discrete_laplace_tail(1, 1, 1), 12) == round(math.exp(-1) / (1 + math.exp(-1)), 12)
    True
    """
    if not (float(t) > 0 and float(s) > 0):
        raise ValueError("t and s must be positive.")
    rate = float(s) / float(t)
    if not math.isfinite(rate):
        raise ValueError("t and s must be positive and s / t finite.")
    first = math.ceil(float(m))
    log1p_q = math.log1p(math.exp(-rate))
    if first >= 1:
        return math.exp(-rate * first - log1p_q)
    return -math.expm1(-rate * (1 - first) - log1p_q)


def smallest_tail_index(tail, p, guess=1):
    """The smallest integer m >= 1 with tail(m) <= p, for a non-increasing ``tail`` that
    tends to 0: from ``guess`` outwards by doubling steps, then bisection (a few evaluations
    of ``tail`` when the guess is close). The thresholds of ``stats.tableDP`` (guess 1) and
    the accuracy reports (``dppack.accuracy``) search the exact tails of the noises here.

    Examples
    --------
    >>> smallest_tail_index(lambda m: 0.5 ** m, 0.01)
    7
    """
    guess = max(int(guess), 1)
    if tail(guess) <= p:
        high, step = guess, 1
        low = guess - step
        while low >= 1 and tail(low) <= p:
            high, step = low, 2 * step
            low = high - step
        low = max(low, 0)  # tail(low) > p, or low = 0
    else:
        low, step = guess, 1
        high = guess + step
        while tail(high) > p:
            low, step = high, 2 * step
            high = low + step
    while high - low > 1:
        middle = (low + high) // 2
        if tail(middle) <= p:
            high = middle
        else:
            low = middle
    return high


_FAST_MIN_WORD = 1 << 20  # below, the uniform's leading bits are too few for the float decision
_FAST_LARGEST = 2.0 ** 61  # geometric values beyond go to the exact path
_SPLIT_RATE_BITS = 16  # geometric rates below 2^-16 are split (the float L would be too coarse)


def _geometric_exact(value, nbits, rate, guess, rng):
    """G = #{k >= 1: U < exp(-k rate)} exactly, for U with leading bits value / 2^nbits and
    a Fraction ``rate`` > 0: a search from ``guess`` (doubling steps, then bisection), every
    comparison exact (:func:`_below`)."""
    state = [value, nbits]

    def below(k):
        return k <= 0 or _below(state, functools.partial(_exp_neg_bounds, k * rate), rng)

    low = max(int(guess), 0)
    if below(low):  # G >= low: find the first k above with U >= exp(-k rate)
        step = 1
        high = low + step
        while below(high):
            low, step = high, 2 * step
            high = low + step
    else:  # G < low
        high, step = low, 1
        low = max(high - step, 0)
        while not below(low):
            high, step = low, 2 * step
            low = max(high - step, 0)
    while high - low > 1:  # below(low), not below(high)
        middle = (low + high) // 2
        if below(middle):
            low = middle
        else:
            high = middle
    return low


def _geometric_one_word(v, s, t, rng):
    """G = #{k >= 1: U < exp(-k s / t)} for the uniform U in [v, v + 1) / 2^63 (v its
    leading 63 bits; s, t positive Python integers): P(G >= k) = exp(-k s / t).

    Fast path: G = floor(L), L = -ln(U) t / s (not an integer, almost surely), from
    L_f = (63 ln 2 - ln(v)) / a_f in floating point. For every U of the word's interval,
    -ln(U) lies within E = 1.01 / v + 2^-40 of 63 ln 2 - ln(v) as computed (the interval's
    width ln(1 + 1/v) <= 1 / v; the log within 44 LIBM_ERROR < 2^-40.5, since ln(v) < 44;
    the constant, the conversion of v and the subtraction within 2^-45), and a_f = s / t
    within a relative 2^-51 of the rate, the division as well, so L lies within
    M0 = E (1 + 2^-49) / a_f + |L_f| 2^-49 of L_f. The margin taken,
    M = 1.001 E / a_f + |L_f| 2^-47, also covers the rounding of L_f - M and L_f + M; where
    floor(L_f - M) = floor(L_f + M), every U of the interval gives that G. Elsewhere
    (probability about 2 M, below 2^-20 for rates of 2^-16 or more; and v < 2^20), the same
    U is continued exactly (:func:`_geometric_exact`). G is a function of U alone either way.
    """
    if v >= _FAST_MIN_WORD and not FORCE_EXACT_PATH:
        rate = s / t
        L = (63.0 * math.log(2.0) - math.log(v)) / rate
        margin = (1.001 * (1.01 / v + 2.0 ** -40)) / rate + L * 2.0 ** -47
        low = math.floor(L - margin)
        if low == math.floor(L + margin) and L + margin < _FAST_LARGEST:
            return low
        guess = low if L + margin < _FAST_LARGEST else 0
    else:
        guess = 0
    return _geometric_exact(v, 63, _fraction(s) / t, guess, rng)


def _split(s, t):
    """m = 2^j with s m / t in (2^-5, 2^-4] when s / t < 2^-16, else 1."""
    if s << _SPLIT_RATE_BITS >= t:
        return 1
    return 1 << ((t // (16 * s)).bit_length() - 1)


def geometric_one(v, s, t, rng):
    """G with P(G >= k) = exp(-k s / t) from the 63-bit uniform ``v`` (and further words).

    For a rate a = s / t below 2^-16 the float decision of :func:`_geometric_one_word` would
    be too coarse (L about 44 / a), so G = m H + R with m = 2^j (:func:`_split`, m a in
    (2^-5, 2^-4]): H with P(H >= k) = exp(-k m a) from ``v``, and R on {0, ..., m - 1} with
    P(R = r) proportional to exp(-a r): a uniform r (the top j bits of a word) kept with
    probability exp(-a r) >= exp(-1/16) (:func:`bernoulli_exp_one`), drawn again otherwise.
    H and R are independent and P(G = m h + r) is proportional to
    exp(-a m h) exp(-a r) = exp(-a (m h + r)): the law of G (CKS Algorithm 2 builds its
    geometric from a uniform part and a coarser geometric in the same way).
    """
    m = _split(s, t)
    if m == 1:
        return _geometric_one_word(v, s, t, rng)
    h = _geometric_one_word(v, s * m, t, rng)
    exact = _exact_samplers()
    j = m.bit_length() - 1
    while True:
        r = exact.py_word(rng) >> (64 - j)
        if bernoulli_exp_one(r * s, t, rng):
            return m * h + r


def discrete_laplace_one(s, t, rng):
    """One exact draw Z with P(Z = z) proportional to exp(-|z| s / t) (s, t positive Python
    integers), a Python int: the law of :func:`discrete_laplace`, without the arrays' cost.

    Each word gives a fair sign B (its lowest bit) and, from its other 63 bits, G with
    P(G >= k) = q^k, q = exp(-s / t) (:func:`geometric_one`); (B = 1, G = 0) is rejected
    and drawn again, else Z = (1 - 2B) G. Then P(Z = z) is proportional to (1 - q) q^|z| / 2
    for every z (z = 0 only from B = 0): the discrete Laplace law (Canonne, Kamath and
    Steinke 2020, Algorithm 2 draws it as such a signed geometric too).

    Examples
    --------
    >>> rng = as_generator(0)
    >>> z = [discrete_laplace_one(1, 1, rng) for _ in range(4000)]
    >>> abs(sum(v == 0 for v in z) / 4000 - math.tanh(0.5)) < 0.03
    True
    """
    exact = _exact_samplers()
    while True:
        w = exact.py_word(rng)
        g = geometric_one(w >> 1, s, t, rng)
        if w & 1:
            if g:
                return -g
        else:
            return g


def linf_noise(units, eps, size, rng):
    """Exact integer noise of the l-infinity K-norm mechanism: Z in Z^size with
    P(Z = z) proportional to exp(-eps' max_i |z_i| / D), D = ``units``, eps' <= eps.

    Parameters
    ----------
    units : int
        D >= 1: the l-infinity sensitivity, in grid units, of the integer vector the noise is
        added to (every coordinate moves by at most D between neighbours).
    eps : float
        > 0 and finite.
    size : int
        m >= 1, the number of coordinates.
    rng : NumPy Generator

    Returns
    -------
    (list of int, Fraction)
        The m integers (Python ints) and eps' = D s / t, the privacy parameter the noise has
        (t = 2^j, s = floor(t eps / D): eps' is eps rounded down by a relative 2^-20 at most).

    Notes
    -----
    The K-norm mechanism of Hardt and Talwar (2010) with K the cube (the l-infinity ball),
    on the integer lattice: for integer vectors V, V' with max_i |V_i - V'_i| <= D, the
    probabilities of V + Z = w and V' + Z = w differ by the factor
    exp(eps' (||w - V'||_inf - ||w - V||_inf) / D) <= exp(eps') (triangle inequality), so
    V + Z is eps'-DP. For box-bounded records the cube is the shape of the sensitivity of
    sums such as X'y, and its noise is up to sqrt(6) times smaller per coordinate than the
    Laplace noise of the l1 sensitivity m D (Awan and Slavkovic 2021, "Structure and
    sensitivity in differential privacy: comparing K-norm mechanisms", JASA, Section 4).

    The draw is exact. With q = exp(-eps' / D), exp(-eps' r / D) = sum over c >= r of
    (1 - q) q^c, so Z is a mixture: a radius C with P(C = c) proportional to
    (2c + 1)^m q^c, then Z uniform on the cube {-C, ..., C}^m. C is drawn by rejection from
    the sum of m + 1 geometric variables (P(c) proportional to binom(c + m, m) q^c), accepted
    with probability prod_{i=1..m} (2c + 1) / (2c + 2i) <= 1 (m exact coins: uniform
    integers U_i in {0, ..., 2c + 2i - 1}, all below 2c + 1); the
    geometric variables are discrete Laplace draws Y folded as Y (Y >= 0) or -Y - 1 (Y < 0),
    which has P(k) proportional to q^k exactly.

    Examples
    --------
    >>> z, eps_used = linf_noise(4, 1.0, 3, as_generator(1))
    >>> len(z), 0.999 < eps_used <= 1.0
    (3, True)
    """
    units, size = int(units), int(size)
    if units < 1 or size < 1:
        raise ValueError("units and size must be positive integers.")
    eps = float(eps)
    if not (eps > 0 and math.isfinite(eps)):
        raise ValueError("eps must be positive and finite.")
    numerator, denominator = eps.as_integer_ratio()
    j = max(56, (units * denominator // numerator).bit_length() + 21)
    t = 1 << j
    s = (numerator << j) // (units * denominator)
    while True:
        draws = discrete_laplace(t, s, size + 1, rng)
        c = sum(int(y) if y >= 0 else -int(y) - 1 for y in draws.tolist())
        if 2 * c + 2 * size <= 2 ** 62:  # the m coins at once: U_i < 2c + 1, U_i uniform
            highs = 2 * c + 2 * np.arange(1, size + 1, dtype=np.int64)
            accepted = bool(np.all(rng.integers(0, highs, dtype=np.int64) < 2 * c + 1))
        else:
            accepted = all(uniform_integer(2 * c + 2 * i, rng) < 2 * c + 1
                           for i in range(1, size + 1))
        if accepted:
            break
    if 2 * c + 1 <= 2 ** 62:
        noise = (rng.integers(0, 2 * c + 1, size=size, dtype=np.int64) - c).tolist()
    else:
        noise = [uniform_integer(2 * c + 1, rng) - c for _ in range(size)]
    return noise, _fraction(units) * s / t


# --------------------------------------------------------------------------------------------
# Two words per trial: CKS Algorithm 2's X with one uniform for its coin and geometric part
# --------------------------------------------------------------------------------------------

_WORDS_MARGIN = 2.0 ** -26  # bounds |D_f - D| (< 2^-27.9: geometric_words) with room
_WORDS_MIN = np.uint64(1 << 32)  # smaller second words go to the exact path (2^32)
_SHIFTS = tuple(np.uint64(i) for i in range(64))
_WORDS_CHUNK = 1 << 14  # draws per pass (the working arrays stay in cache)
_WORDS_FEW = 4  # up to this many draws of one rate, discrete_laplace (Python integers there)
_SIXTEEN_LN2_64 = 1024.0 * math.log(2.0)  # 16 * 64 ln 2, within 2^-44
_MARGINS = np.array([-_WORDS_MARGIN, _WORDS_MARGIN])
_WORDS_TOP = 353  # V_f of a word below 2^32 is at least 353 (16 * 32 ln 2 - 1 = 353.9)


def _x_exact(w, u, t, guess, rng):
    """The trial of :func:`geometric_words` for a word ``w`` the floats cannot decide, on
    Python integers: None (rejected: U' >= exp(-u / t)), else V = #{k >= 1:
    U' < exp(-u / t - k / 16)}, every comparison of U' in [w, w + 1) / 2^64 exact
    (:func:`_below`, further bits of the same U'); ``guess`` only starts the search."""
    from fractions import Fraction

    state, base = [w, 64], Fraction(u, t)

    def below(k):
        return _below(state, functools.partial(_exp_neg_bounds, base + Fraction(k, 16)), rng)

    if not below(0):
        return None
    low = max(int(guess), 0)
    while low > 0 and not below(low):
        low -= 1
    while below(low + 1):
        low += 1
    return low


def _x_trials(a, count, rng, signs=True):
    """``count`` trials of :func:`geometric_words` for t = 2^a: (X, B) of the accepted ones
    in trial order (int64, or object where X reaches 2^62), B the fair sign bits (None
    unless ``signs``). A second word w below 2^32 (exact path) has D_f >= 16 * 32 ln 2 - 1
    > 353: such words are looked for only when some floor(D_f - 2^-26) reaches 353."""
    w = _exact_samplers().words(rng, 2 * count)
    first, second = w[:count], w[count:]
    u = (first >> _SHIFTS[68 - a]).view(np.int64)  # the top a - 4 bits: uniform on [0, r)
    d = np.log(np.maximum(second, _SHIFTS[1]))  # (no log of 0: words below 2^32 go exact)
    d *= -16.0
    d += _SIXTEEN_LN2_64  # 16 E, E = -ln(U')
    d -= u * math.ldexp(1.0, 4 - a)  # D = 16 (E - u / t)
    low = np.add.outer(_MARGINS, d)  # D - 2^-26, D + 2^-26
    np.floor(low, out=low)
    undecided = low[0] != low[1]
    v = low[0].astype(np.int64)
    top = int(v.max(initial=0))
    if top >= _WORDS_TOP:  # some word may be below 2^32 (its D_f is then at least 353.8)
        undecided |= second < _WORDS_MIN
    if FORCE_EXACT_PATH:
        undecided[:] = True
    if np.count_nonzero(undecided):
        for i in np.flatnonzero(undecided).tolist():
            drawn = _x_exact(int(second[i]), int(u[i]), 1 << a, max(int(v[i]), 0), rng)
            v[i] = -1 if drawn is None else drawn
            top = max(top, int(v[i]))
    kept = v >= 0
    sign = (first[kept] & _SHIFTS[1]).view(np.int64) if signs else None
    r = 1 << (a - 4)
    if top > ((1 << 62) - r) // r and int(v[kept].max(initial=0)) > ((1 << 62) - r) // r:
        # X reaches 2^62 (never, nearly)
        x = np.array([int(ui) + r * int(vi) for ui, vi in zip(u[kept].tolist(),
                                                              v[kept].tolist())], dtype=object)
        return x, sign
    v *= r
    v += u
    return v[kept], sign


def _x_draws(a, size, rng, signs=True):
    """``size`` values of CKS Algorithm 2's X for t = 2^a (P(X = x) proportional to
    exp(-x / t)) and as many fair signs (None unless ``signs``): the accepted trials of
    :func:`_x_trials` in order."""
    xs, bits, filled = [], [], 0
    while filled < size:
        need = min(size - filled, _WORDS_CHUNK)
        x, sign = _x_trials(a, int(need * 1.05) + 8, rng, signs)
        if not xs and x.size >= size:  # one pass, almost always
            return x[:size], sign[:size] if signs else None
        xs.append(x[:need])
        bits.append(sign[:need] if signs else None)
        filled += min(need, x.size)
    sign = (bits[0] if len(bits) == 1 else np.concatenate(bits)) if signs else None
    if len(xs) == 1:
        return xs[0], sign
    if any(x.dtype == object for x in xs):
        return np.array([v for x in xs for v in x.tolist()], dtype=object), sign
    return np.concatenate(xs), sign


def _words_exponent(t, s):
    """(a, scale): t scale = 2^a with 5 <= a <= 62 and s scale within int64, or None (then
    the samplers of :func:`geometric_rates` take the draw)."""
    a = t.bit_length() - 1
    if t != 1 << a or a > 62:
        return None
    if a >= 5:
        return a, 1
    scale = 1 << (5 - a)
    if int(s.max()) * scale >= 1 << 62:
        return None
    return 5, scale


def geometric_words(t, s, size, rng):
    """``size`` exact draws G_i >= 0 with P(G_i >= k) = exp(-k s_i / t): t a positive
    integer, s a positive int or an int64 array of ``size`` values (one rate per entry), as
    :func:`geometric_rates`, with two 64-bit words per trial when t is a power of two.

    G = floor(X / s_i) for CKS Algorithm 2's X, P(X >= x) = exp(-x / t) (so
    P(G >= k) = P(X >= k s_i) = exp(-k s_i / t)). For t = 2^a (a >= 5; smaller t and s
    are scaled by the same power of two), X = u + r V with r = t / 16: the first word's top
    a - 4 bits give u uniform on {0, ..., r - 1}; the second word gives a uniform U' in
    [w, w + 1) / 2^64 and the trial is accepted with V = k >= 0 iff
    exp(-u / t - (k + 1) / 16) <= U' < exp(-u / t - k / 16), that is
    k = floor(D), D = 16 (-ln U' - u / t) >= 0 (rejected iff D < 0). So
    P(accepted, X = u + r k) = (1 / r) exp(-(u + r k) / t) (1 - exp(-1/16)): each x >= 0
    once, proportional to exp(-x / t), and the accepted trials in order are independent
    draws of X (the coin and the geometric part of CKS Algorithm 2 read from one uniform).

    The floats: D_f = 1024 ln 2 - 16 log(w) - u 2^(4 - a), with w >= 2^32, is within
    2^-27.9 of D for every U' of the word's interval (its width 16 ln(1 + 1 / w) <= 2^-28;
    the log within LIBM_ERROR 44.4 < 2^-40.5, times 16; the conversions, the constant and
    the two subtractions within 2^-44 each); where floor(D_f - 2^-26) = floor(D_f + 2^-26)
    (the roundings of those sums are below 2^-43) that is floor(D) for every such U'.
    Otherwise (probability about 2^-24, and w < 2^32) the same U' is compared exactly
    (:func:`_x_exact`). Each trial is a function of its two words alone: exactly the law.

    Examples
    --------
    >>> g = geometric_words(1 << 20, np.array([1 << 20, 1 << 19]), 2, as_generator(0))
    >>> g.shape, bool((g >= 0).all())
    ((2,), True)
    """
    t, size = int(t), int(size)
    s_array = np.asarray(s, dtype=np.int64)
    plan = _words_exponent(t, s_array) if size else None
    if plan is None:
        return geometric_rates(t, s_array, size, rng)
    a, scale = plan
    x, _ = _x_draws(a, size, rng)
    if scale != 1:
        s_array = s_array * scale
    if x.dtype == object:
        return _wide_quotient(x, s_array, size)
    return x // s_array


def _wide_quotient(x, s, size):
    """x // s entrywise in Python integers (int64 when every quotient fits)."""
    s = np.broadcast_to(s, (size,)).tolist()
    out = [int(xi) // si for xi, si in zip(x.tolist(), s)]
    return np.array(out, dtype=object if max(map(abs, out)) >= 1 << 62 else np.int64)


def discrete_laplace_words(t, s, size, rng):
    """``size`` exact draws Z_i with P(Z_i = z) proportional to exp(-|z| s_i / t) (``s`` an
    int or an int64 array of ``size`` positive values, t a positive integer): the law of
    :func:`discrete_laplace_rates`, with the trials of :func:`geometric_words` (two words
    each) when t is a power of two up to 2^62 (else, and for up to four draws of one rate,
    :func:`discrete_laplace` or :func:`discrete_laplace_rates`).

    Z = (1 - 2B) G with G = floor(X / s_i) (:func:`geometric_words`) and B the fair bit
    of the trial's first word (its lowest bit: independent of u, its top bits, and of X);
    (B = 1, G = 0) is drawn again, so P(Z = z) is proportional to P(G = |z|) / 2 for every
    z, that is to exp(-|z| s_i / t) (Canonne, Kamath and Steinke 2020, Algorithm 2).
    int64 (object if a value reaches 2^62, never in practice).

    Examples
    --------
    >>> z = discrete_laplace_words(1 << 10, 1 << 10, 4000, as_generator(0))
    >>> abs(float(np.mean(z == 0)) - math.tanh(0.5)) < 0.03
    True
    """
    t, size = int(t), int(size)
    s_array = np.asarray(s, dtype=np.int64)
    plan = _words_exponent(t, s_array) if size else None
    if not s_array.ndim and (plan is None or size <= _WORDS_FEW):
        return discrete_laplace(t, int(s), size, rng)  # any t; Python integers for a few
    if plan is None:
        return discrete_laplace_rates(t, s_array, size, rng)
    a, scale = plan
    if scale != 1:
        s_array = s_array * scale
    x, sign = _x_draws(a, size, rng)
    if x.dtype == object or s_array.ndim:
        if s_array.shape != (size,):
            s_array = np.broadcast_to(s_array, (size,))
        g = _wide_quotient(x, s_array, size) if x.dtype == object else x // s_array
    else:  # one rate (the same quotients)
        g = x // int(s_array)
    redo = ()
    if int(g.min()) == 0:  # some G = 0: those with B = 1 are drawn again
        redo = g == 0
        redo &= sign.astype(bool)
        redo = np.flatnonzero(redo) if np.count_nonzero(redo) else ()
        if len(redo) and not s_array.ndim:
            s_array = np.broadcast_to(s_array, (size,))
    while len(redo):  # probability (1 - exp(-s_i / t)) / 2 per draw
        x, again = _x_draws(a, redo.size, rng)
        s_redo = s_array[redo]
        g_redo = (_wide_quotient(x, s_redo, redo.size) if x.dtype == object
                  else x // s_redo)
        if g_redo.dtype == object and g.dtype != object:
            g = g.astype(object)
        g[redo], sign[redo] = g_redo, again
        redo = redo[(again == 1) & (g_redo == 0)]
    if g.dtype == object:
        return np.array([-v if b else v for v, b in zip(g.tolist(), sign.tolist())],
                        dtype=object)
    g ^= -sign  # (1 - 2B) G: -G - 1 + 1 for B = 1
    g += sign
    return g


def geometric_words_one(s, t, rng):
    """One draw of :func:`geometric_words` (rate s / t, Python integers), a Python int:
    the same two-word trial and float decision on Python floats (``math.log`` within
    LIBM_ERROR, as NumPy's), exact inside the margin (:func:`_x_exact`); t not a power of
    two, beyond 2^62 or below 2^5 takes :func:`geometric_one` (the same law).

    Examples
    --------
    >>> rng = as_generator(0)
    >>> g = [geometric_words_one(1, 2, rng) for _ in range(4000)]
    >>> abs(sum(v == 0 for v in g) / 4000 - (1 - math.exp(-0.5))) < 0.03
    True
    """
    a = t.bit_length() - 1
    exact = _exact_samplers()
    if t != 1 << a or not 5 <= a <= 62:
        return geometric_one(exact.py_word(rng) >> 1, s, t, rng)
    scale, shift = math.ldexp(1.0, 4 - a), 68 - a
    while True:
        u, w = exact.py_word(rng) >> shift, exact.py_word(rng)
        if w < 1 << 32:  # (log(0) is not defined)
            low = _x_exact(w, u, t, 0, rng)
        else:
            d = _SIXTEEN_LN2_64 - 16.0 * math.log(w) - u * scale
            low = math.floor(d - _WORDS_MARGIN)
            if FORCE_EXACT_PATH or low != math.floor(d + _WORDS_MARGIN):
                low = _x_exact(w, u, t, max(low, 0), rng)
        if low is not None and low >= 0:
            return (u + (t >> 4) * low) // s


def geometric_unit_words(a, size, rng):
    """``size`` exact draws X >= 0 with P(X >= x) = exp(-x / 2^a) (5 <= a <= 62), int64
    (object if a value reaches 2^62, never in practice): CKS Algorithm 2's X of
    :func:`geometric_words`, two words per trial (the accepted trials in order), for a
    caller that divides it by several rates (floor(X / s) is geometric of rate s / 2^a).

    Examples
    --------
    >>> x = geometric_unit_words(10, 4000, as_generator(0))
    >>> abs(float(np.mean(x >= 1024)) - math.exp(-1)) < 0.03
    True
    """
    return _x_draws(a, int(size), rng, signs=False)[0]
