"""The one place that draws random numbers.

Every public function takes ``random_state`` and hands it to :func:`as_generator`; the noise
itself comes from the samplers below. Keeping every draw here means a stronger sampler (exact,
floating-point-safe) can replace the textbook ones without touching the mechanisms.

Two families live here. The textbook samplers (:func:`laplace`, :func:`normal`, ...) draw
floats, and so does the composite law built from them, the l2-Laplace vector
(:func:`l2_laplace`: a Gamma norm times a uniform direction). The exact ones draw integers
with integer arithmetic only (Canonne, Kamath and Steinke 2020; the machinery is in the
private module :mod:`dppack._exact`, used only through this one): :func:`bernoulli`,
:func:`bernoulli_exp`, :func:`discrete_laplace`, :func:`discrete_gaussian`; on top of them,
releases on a power-of-two grid (:func:`discrete_laplace_noise`,
:func:`discrete_gaussian_noise`), an exact exponential mechanism
(:func:`exponential_mechanism`, :func:`exponential_interval`, with its grid
:func:`exponential_grid`) and an exact coin of probability exp(-gamma b)
(:func:`exponential_coin`).

Callers use the samplers as ``_random.name(...)`` (never ``from ._random import name``), and
the composite samplers call the basic ones through this module's namespace: the privacy
auditor (``tests/privacy``) replaces a sampler here and must reach every release.
"""

import contextlib
import functools
import math
import numbers
import os

import numpy as np
from numpy.random.bit_generator import ISpawnableSeedSequence

from . import _exact, _exact_selection

__all__ = [
    "as_generator",
    "bernoulli",
    "bernoulli_exp",
    "discrete_gaussian",
    "discrete_gaussian_delta",
    "discrete_gaussian_grid",
    "discrete_gaussian_noise",
    "discrete_gaussian_noise_on_grid",
    "discrete_gaussian_tail",
    "discrete_laplace",
    "discrete_laplace_noise",
    "discrete_laplace_tail",
    "exponential_coin",
    "exponential_grid",
    "exponential_interval",
    "exponential_mechanism",
    "gamma",
    "gaussian_variance",
    "generator_from_words",
    "grid_exponent",
    "grid_units",
    "integer_measure",
    "l2_laplace",
    "laplace",
    "laplace_grid",
    "linf_noise",
    "log_categorical",
    "normal",
    "uniform",
    "uniform_between",
    "uniform_integer",
]


class _SeedWords(ISpawnableSeedSequence):
    """The seed words of a PCG64, handed to it as its seed sequence (no hashing).

    ``PCG64(seed_sequence)`` asks for four 64-bit words (``generate_state(4, uint64)``) and
    takes them as its initial state and increment. For an integer seed the words are those
    of ``SeedSequence(seed)``, computed once per seed (:func:`_integer_seed_words`), so the
    generator is the one ``default_rng(seed)`` makes; for fresh entropy they are 256 bits
    read from the operating system (``os.urandom``), which is what SeedSequence would hash
    to the same size. ``Generator.spawn`` works as for ``default_rng``: the children come
    from ``SeedSequence(seed)`` (or of the fresh words), made on first use.
    """

    __slots__ = ("words", "_entropy", "_sequence")

    def __init__(self, words, entropy):
        self.words = words
        self._entropy = entropy
        self._sequence = None

    def generate_state(self, n_words, dtype=np.uint32):
        if n_words != 4 or np.dtype(dtype) != np.uint64:  # PCG64's request, and only it
            raise ValueError("seed words: PCG64 asks for four 64-bit words.")
        return self.words

    def spawn(self, n_children):
        if self._sequence is None:
            entropy = self._entropy  # an int seed, or the fresh words' bytes
            if isinstance(entropy, bytes):
                entropy = int.from_bytes(entropy, "little")
            self._sequence = np.random.SeedSequence(entropy)
        return self._sequence.spawn(n_children)


@functools.lru_cache(maxsize=1024)
def _integer_seed_words(seed):
    """The four 64-bit words SeedSequence(seed) gives PCG64 (read-only; cached per seed)."""
    words = np.random.SeedSequence(seed).generate_state(4, np.uint64)
    words.flags.writeable = False
    return words


def _generator(words, entropy):
    return np.random.Generator(np.random.PCG64(_SeedWords(words, entropy)))


def _fresh_generator():
    entropy = os.urandom(32)
    return _generator(np.frombuffer(entropy, dtype=np.uint64), entropy)


def _seeded_generator(seed):
    return _generator(_integer_seed_words(seed), seed)


_RANDOM_STATE_MESSAGE = (
    "random_state must be None, a non-negative integer or a numpy.random.Generator."
)


def as_generator(random_state=None):
    """Turn a ``random_state`` argument into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int or NumPy Generator
        ``None`` seeds from operating-system entropy; a non-negative integer (or an integral
        float, as R passes numbers) seeds a new PCG64 generator, the one
        ``default_rng(random_state)`` makes; a Generator is used as is, so successive calls
        sharing it continue one stream.

    Returns
    -------
    NumPy Generator

    Raises
    ------
    TypeError
        If ``random_state`` is of any other kind, or a negative or fractional number.

    Notes
    -----
    A PCG64 seeded from 256 bits of ``os.urandom`` for ``None``; for an integer the seed
    words of ``SeedSequence(random_state)``, cached per seed, so that a call costs about
    2 us instead of the 14-26 us of ``default_rng`` (issue 29's small calls).
    """
    if random_state is None:
        return _fresh_generator()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, bool):
        raise TypeError(_RANDOM_STATE_MESSAGE)
    if isinstance(random_state, numbers.Integral) and random_state >= 0:
        return _seeded_generator(int(random_state))
    if isinstance(random_state, numbers.Real):
        value = float(random_state)
        if np.isfinite(value) and value >= 0 and value == int(value):
            return _seeded_generator(int(value))
    raise TypeError(_RANDOM_STATE_MESSAGE)


def generator_from_words(words):
    """A generator seeded by several 32-bit words, all of them entropy of its SeedSequence.

    R's reproducible mode (``options(DPpackPy.reproducible = TRUE)``) seeds each call from
    four 32-bit words of R's random stream, 128 bits, more than one Python integer seed made
    from an R double could carry. NumPy's ``SeedSequence`` takes a sequence of integers as its
    entropy and mixes every word into the generator's state, so streams differing in any one
    word differ.

    Parameters
    ----------
    words : sequence of int or integral float
        At least four whole numbers in [0, 2**32), as R passes them (doubles).

    Returns
    -------
    numpy.random.Generator
        A PCG64 generator whose SeedSequence entropy is ``words``, as integers.

    Raises
    ------
    TypeError
        If ``words`` is not such a sequence.
    """
    message = "random_state words must be at least four whole numbers in [0, 2^32)."
    if isinstance(words, (str, bytes)) or not hasattr(words, "__len__") or len(words) < 4:
        raise TypeError(message)
    entropy = []
    for word in words:
        if isinstance(word, bool) or not isinstance(word, numbers.Real):
            raise TypeError(message)
        value = float(word)
        if not (0 <= value < 2**32) or value != math.floor(value):
            raise TypeError(message)
        entropy.append(int(value))
    return np.random.default_rng(entropy)


def laplace(scale, size, rng):
    """Draw centred Laplace noise with density exp(-|x|/b)/(2b), b = ``scale`` (broadcast)."""
    return rng.laplace(0.0, scale, size)


def normal(scale, size, rng):
    """Draw centred Gaussian noise with standard deviation ``scale`` (broadcast)."""
    return rng.normal(0.0, scale, size)


def uniform(rng, size=None):
    """Draw Uniform[0, 1) values; a single float when ``size`` is None."""
    return rng.random(size)


def uniform_between(low, high, size, rng):
    """Draw Uniform[low, high) values."""
    return rng.uniform(low, high, size)


def uniform_integer(m, rng):
    """An exact uniform integer in {0, ..., m - 1}, for a whole number ``m >= 1`` of any size.

    Integer arithmetic only (:func:`dppack._exact.py_uniform`: ``Generator.integers`` up to
    2^62, beyond that rejection from whole 64-bit words), so every value has probability
    exactly 1 / m. JointExp (``dppack.quantiles``) draws its outputs' grid points with it.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
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
    >>> v = uniform_bits(2, 4000, np.random.default_rng(0))
    >>> sorted(set(v.tolist())), abs(float(np.mean(v == 3)) - 0.25) < 0.03
    ([0, 1, 2, 3], True)
    """
    if not 1 <= bits <= 62:
        raise ValueError("bits must be in 1 ... 62.")
    words = _exact_samplers().words(rng, int(size))
    return (words >> np.uint64(64 - bits)).astype(np.int64)


def log_categorical(log_weights, rng):
    """Draw an index with probability proportional to exp(``log_weights``), by inverse CDF.

    Parameters
    ----------
    log_weights : array_like of float
        Finite values or -inf (probability 0); at least one finite. NaN and +inf must be
        refused by the caller.
    rng : numpy.random.Generator

    Returns
    -------
    int
        The 0-based index.

    Notes
    -----
    A floating-point sampler, not one of the exact ones: the weights are shifted by their
    maximum (so the largest is 1 and none overflows), exponentiated and summed, and one
    uniform draw u in [0, 1) picks the first index whose cumulative weight exceeds u times
    the total. Each probability is therefore right to a relative error of about n 2^-52
    (n the number of weights), and a weight below e^-745 of the largest is 0. One uniform
    draw per call. Not used by the releases (JointExp draws exactly given its rounded log
    weights, ``dppack.quantiles``); kept for data-free draws.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> draws = [log_categorical([0.0, np.log(3.0), -np.inf], rng) for _ in range(4000)]
    >>> draws.count(2), abs(draws.count(1) / 4000 - 0.75) < 0.04
    (0, True)
    """
    logw = np.asarray(log_weights, dtype=np.float64).ravel()
    top = float(np.max(logw, initial=-np.inf))
    if not top > -np.inf or not np.isfinite(top):
        raise ValueError("At least one weight must be positive and finite.")
    cumulative = np.cumsum(np.exp(logw - top))
    u = uniform(rng) * float(cumulative[-1])
    index = int(np.searchsorted(cumulative, u, side="right"))
    # u < total, so index < size; an index of weight 0 (-inf) is never the first to exceed u.
    return min(index, logw.size - 1)


def gamma(shape, rate, rng, size=None):
    """Draw Gamma(shape, rate) values: density proportional to x^(shape - 1) exp(-rate x).

    An infinite rate gives 0 (no noise), as R's ``rgamma`` does.
    """
    if rate == float("inf"):
        return 0.0 if size is None else np.zeros(size)
    return rng.gamma(shape, 1.0 / rate, size)


def l2_laplace(d, rate, rng, size=None):
    """Draw from the l2-Laplace law on R^d: density proportional to exp(-rate ||b||_2).

    Also called the spherical Laplace or K-norm noise of the l2 ball: the noise of output and
    objective perturbation (CMS, KST with delta = 0) and of the private confidence
    intervals' pure-DP matrices and Monte Carlo draws.

    The norm r ~ Gamma(shape = d, rate) (:func:`gamma`) times a uniform direction
    g / ||g||, g ~ N(0, I_d) (:func:`normal`): in polar coordinates the density is
    proportional to r^(d - 1) exp(-rate r) on the radius, independent of the direction.
    Drawn in floating point: no exact sampler of this law exists here; it enters an
    optimisation or a sum with a minimiser, not a value rounded to a grid.

    Parameters
    ----------
    d : int
        The dimension, >= 1.
    rate : float
        > 0; ``inf`` gives zeros (no noise; the d normals are still drawn). With
        rate = eps / Delta, adding the draw to a vector of L2 sensitivity Delta is eps-DP.
    rng : numpy.random.Generator
    size : int, optional
        The number of independent vectors; None draws one.

    Returns
    -------
    numpy.ndarray
        d values, or a ``size`` x d array.

    Notes
    -----
    The draw order is DPpack's (R's ``rgamma`` then ``rnorm``) and fixed, so seeded results
    stay reproducible: one vector draws its norm, then its d normals; ``size`` vectors draw
    all ``size`` norms first, then the normals row by row. The norm and the direction are
    drawn through the module's :func:`gamma` and :func:`normal`, so a replacement of either
    (the privacy auditor's halved noise, ``tests/privacy``) reaches this sampler.

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), "Differentially private empirical risk
    minimization", JMLR 12 (output perturbation, Alg. 1, and objective perturbation, Alg. 2:
    the density and its sampling by a Gamma norm); Wang, Kifer and Lee 2019 (the moments used by the
    tests).

    Examples
    --------
    >>> import numpy as np
    >>> b = l2_laplace(3, 2.0, np.random.default_rng(0))
    >>> b.shape
    (3,)
    >>> l2_laplace(4, 1.0, np.random.default_rng(1), size=5).shape
    (5, 4)
    >>> bool(np.all(l2_laplace(2, float("inf"), np.random.default_rng(2)) == 0))
    True

    The norm is the Gamma(d, rate) draw that comes first from the generator:

    >>> rng, again = np.random.default_rng(3), np.random.default_rng(3)
    >>> bool(np.isclose(np.linalg.norm(l2_laplace(3, 2.0, rng)), again.gamma(3, 0.5)))
    True
    """
    d = int(d)
    if size is None:
        r = gamma(d, rate, rng)
        g = normal(1.0, d, rng)
        return r * g / np.linalg.norm(g)
    size = int(size)
    r = gamma(d, rate, rng, size=size)
    g = normal(1.0, (size, d), rng)
    return g * (r / np.linalg.norm(g, axis=1))[:, None]


# --------------------------------------------------------------------------------------------
# Exact noise on a power-of-two grid. The integer samplers live in _exact; the mechanisms
# (Laplace, Gaussian, exponential, AboveThreshold) draw through the functions below. The
# textbook samplers above remain for the draws that have no exact counterpart here.
# --------------------------------------------------------------------------------------------


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


def discrete_laplace(t, s, size, rng):
    """``size`` exact draws Z with P(Z = z) proportional to exp(-|z| s / t), t, s positive
    integers (CKS Algorithm 2; :func:`dppack._exact.discrete_laplace`). int64."""
    return _exact_samplers().discrete_laplace(t, s, size, rng)


def discrete_gaussian(p, q, size, rng):
    """``size`` exact draws Z with P(Z = z) proportional to exp(-z^2 q / (2 p)), p, q positive
    integers: the discrete Gaussian with sigma^2 = p/q (CKS Algorithm 3;
    :func:`dppack._exact.discrete_gaussian`). int64."""
    return _exact_samplers().discrete_gaussian(p, q, size, rng)


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


GRID_BITS = 12  # the default of grid_exponent: g <= scale / 2^12
GAUSSIAN_GRID_BITS = 13  # scalar: g <= sigma / 2^13, s < 2^14 (the calibration's tail sums are O(s))
GAUSSIAN_FINE_BITS = 19  # vector: g >= sigma / 2^20, s < 2^20 (the sampler's int64 range is s <~ 2^28)
LAPLACE_GRID_BITS = 20  # g <= min(b, Delta / (m + 1)) / 2^20, while b / g <= 2^36
LAPLACE_MAX_BITS = 36
UTILITY_GRID_BITS = 20  # exponential mechanism: utilities on h <= Delta / 2^20


def grid_exponent(scale, bits=GRID_BITS):
    """The exponent k of the grid g = 2^k: the largest power of two with g <= scale / 2^bits.

    Parameters
    ----------
    scale : float
        Positive and finite (a noise scale, or a sensitivity).
    bits : int, default 12
        How many halvings below ``scale`` the grid lies.

    Returns
    -------
    int
        k = floor(log2(scale)) - bits, so that scale / 2^(bits + 1) < g <= scale / 2^bits
        (k is read exactly from the float's exponent); at least -1074, the exponent of the
        smallest positive double.

    Notes
    -----
    The largest such power keeps the integers of the samplers smallest, which is what the
    discrete Gaussian needs (its general acceptance exponent is in int64 for sigma below
    2^14 grid units); rounding a value to the grid moves it by at most g/2 <= scale / 2^13.
    """
    scale = float(scale)
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError("scale must be positive and finite.")
    return max(math.frexp(scale)[1] - 1 - int(bits), -1074)


def grid_units(sensitivity, k, coordinates=1):
    """The sensitivity in grid units after rounding: ceil(Delta / 2^k) + ``coordinates``.

    Rounding moves each value by at most half a grid step, so two neighbouring values that
    differ by at most Delta round to integers (in grid units) that differ by at most
    floor(Delta / g) + 1 <= ceil(Delta / g) + 1. For a vector with L1 sensitivity Delta, each
    of the ``coordinates`` entries that can differ between neighbours adds at most one step.
    """
    return math.ceil(math.ldexp(float(sensitivity), -k)) + int(coordinates)


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


def _times_power_of_two(x, k, out=None):
    """x 2^k: a multiplication by the double 2^k (exact where the result is representable,
    which covers the grid values here: multiples of 2^k of magnitude below 2^(k + 53)), or
    ``np.ldexp`` when 2^k itself is not a normal double."""
    if -1000 <= k <= 1000:
        return np.multiply(x, math.ldexp(1.0, k), out=out)
    return np.ldexp(x, k, out=out)


def _release(values, noise, k):
    """g (round(x / g) + z) as floats, g = 2^k: the released values.

    round(x / g) is exact in floating point (x / g only shifts the exponent; a value with
    |x / g| >= 2^52 is already a multiple of g and is kept, also when x / g would overflow).
    The sum v + g z of two multiples of g is one correctly rounded operation on the exact
    dyadic number g (V + Z), so the float released is a function of the integer V + Z alone:
    post-processing of the private integer (exact whenever |V + Z| < 2^53). Noise values of
    2^53 or more (never, for the scales here) take the same path in exact rational arithmetic.
    """
    x = np.asarray(values, dtype=np.float64)
    flat = x.ravel()
    if flat.size <= _FEW_VALUES and -1000 <= k <= 1000 and noise.dtype != object:
        small = _release_few(flat.tolist(), noise.tolist(), k)
        if small is not None:
            return np.array(small).reshape(x.shape)
    with np.errstate(over="ignore"):
        grid = _times_power_of_two(flat, -k)
    finite = None  # None: every x / g is finite
    if flat.size and not (grid.max() < np.inf and grid.min() > -np.inf):
        finite = np.isfinite(grid)
    np.rint(grid, out=grid)  # in place: large arrays are costly to allocate
    grid = _times_power_of_two(grid, k, out=grid)
    if finite is not None:
        grid = np.where(finite, grid, flat)
    exact = noise
    wide = []
    if noise.dtype == object or (noise.size and max(-noise.min(), noise.max()) >= 2 ** 53):
        wide = [i for i, z in enumerate(noise.tolist()) if abs(z) >= 2 ** 53]
        noise = noise.copy()
        noise[wide] = 0
        noise = noise.astype(np.int64)
    out = noise.astype(np.float64)
    _times_power_of_two(out, k, out=out)
    out += grid
    step = _fraction(2) ** k
    for i in wide:
        out[i] = float((_fraction(float(grid[i])) / step + int(exact[i])) * step)
    return out.reshape(x.shape)


_FEW_VALUES = 32  # up to this many values, _release works on Python floats (faster there)


def _release_few(values, noise, k):
    """:func:`_release` on Python floats and integers, the same operations value by value
    (IEEE products by the doubles 2^-k and 2^k, round half to even, one sum), for a few
    values and |noise| < 2^53; None otherwise.

    ``float(round(y))`` is ``np.rint(y)`` for finite y (half to even; the sign of a zero may
    differ, and is lost in the sum with the noise, g z = +0 when z = 0); a product that
    overflows is infinite in both, and that value is kept unrounded as in :func:`_release`.
    """
    down, up = math.ldexp(1.0, -k), math.ldexp(1.0, k)
    out = []
    for value, z in zip(values, noise):
        if not -_WIDE < z < _WIDE:
            return None
        scaled = value * down
        on_grid = float(round(scaled)) * up if -math.inf < scaled < math.inf else value
        out.append(float(z) * up + on_grid)
    return out


_WIDE = 2 ** 53


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
    rng : numpy.random.Generator
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


def discrete_gaussian_grid(sigma, sensitivity=None, coordinates=1):
    """The grid and the integer variance of :func:`discrete_gaussian_noise`.

    Parameters
    ----------
    sigma : float
        The standard deviation (> 0, finite).
    sensitivity : float, optional
        Delta, the L2 sensitivity of a vector release of ``coordinates`` values; used only
        when ``coordinates`` > 1.
    coordinates : int, default 1
        m, how many values the release adds noise to.

    Returns
    -------
    k : int
        For a scalar (m = 1, or no sensitivity): g = 2^k = :func:`grid_exponent` (sigma, 13),
        sigma / g in [2^13, 2^14) (the raised sensitivity of a release,
        D = ceil(Delta / g) + 1, costs a relative g / Delta, so finer is better; the
        calibration's tail sums cost O(s), so not finer). For a vector, whose rounding adds
        sqrt(m) grid steps to Delta / g: the largest power of two with sqrt(m) g <= 2^-12 Delta
        and g <= sigma / 2^13, but not finer than sigma / g in [2^19, 2^20)
        (``GAUSSIAN_FINE_BITS``; the sampler stays in int64 to s of about 2^28, the vector
        guarantees are closed forms), so that the rounding costs a relative 2^-12 or
        sqrt(m) sigma 2^-19 / Delta, whichever is larger.
    sigma2 : int
        (sigma / g)^2 rounded up to an integer and then to a multiple of the sampler's
        proposal scale (:func:`gaussian_variance`): the variance parameter of the discrete
        Gaussian in grid units, rounded up (which only adds privacy), a relative change
        below 2^-12.
    """
    return _discrete_gaussian_grid(float(sigma),
                                   None if sensitivity is None else float(sensitivity),
                                   int(coordinates))


@functools.lru_cache(maxsize=512)
def _discrete_gaussian_grid(sigma, sensitivity, coordinates):
    """:func:`discrete_gaussian_grid` on floats, computed once per arguments."""
    k = grid_exponent(sigma, GAUSSIAN_GRID_BITS)
    if sensitivity is not None and coordinates > 1:
        fine = grid_exponent(sensitivity / math.sqrt(coordinates), GRID_BITS)
        k = max(min(k, fine), grid_exponent(sigma, GAUSSIAN_FINE_BITS))
    scaled = _fraction(math.ldexp(float(sigma), -k))
    return k, gaussian_variance(math.ceil(scaled * scaled))


def gaussian_variance(sigma2):
    """The smallest multiple of the sampler's proposal scale t that is >= ``sigma2``.

    Parameters
    ----------
    sigma2 : int
        A variance parameter s^2 >= 1 (grid units).

    Returns
    -------
    int
        p >= sigma2 with t = 2^j dividing p, where t is the proposal scale of the exact
        sampler for p (CKS Algorithm 3; ``dppack._exact.gaussian_proposal_exponent``: the
        smallest power of two with 2 t^2 >= p). The sampler then computes its acceptance
        exponent as (|Y| - p / t)^2 / (2 p), in int64 up to s of about 2^28 (see
        :func:`dppack._exact.discrete_gaussian`). The change, below t <= sqrt(2) s + 1, is a
        relative 2 / s or less for s >= 2, and only adds noise (privacy).

    Notes
    -----
    t(sigma2) serves for the result too: 2 t^2 >= sigma2 is itself a multiple of t, so the
    result is at most 2 t^2 and keeps the same proposal scale.
    """
    sigma2 = int(sigma2)
    if sigma2 < 1:
        raise ValueError("sigma2 must be a positive integer.")
    t = 1 << _exact_samplers().gaussian_proposal_exponent(sigma2, 1)
    return -(-sigma2 // t) * t


def discrete_gaussian_noise(values, sigma, rng):
    """Release ``values`` with exact discrete Gaussian noise on a power-of-two grid.

    Parameters
    ----------
    values : array_like of float
        The true values (finite), any shape.
    sigma : float
        The standard deviation of the continuous calibration (> 0, finite).
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of float
        g (round(x / g) + Z) entrywise, Z independent draws of the discrete Gaussian
        N_Z(0, s^2), P(Z = z) proportional to exp(-z^2 / (2 s^2)), with (g, s^2) =
        (2^k, sigma2) from :func:`discrete_gaussian_grid`: s >= sigma / g.

    Notes
    -----
    The privacy statement is the discrete Gaussian's, in grid units, with the sensitivity
    D = ceil(Delta / g) + 1 of the rounded value (:func:`grid_units`; Delta the L2
    sensitivity of a scalar release):

    * CKS (Canonne, Kamath and Steinke 2020) Theorem 4 with its corollary: adding
      N_Z(0, s^2) to an integer-valued query of sensitivity D is (D^2 / (2 s^2))-zCDP. For a
      vector with L2 sensitivity Delta, of which m entries can differ between neighbours,
      ||V - V'||_2 <= Delta / g + sqrt(m), and the Renyi divergences of the independent
      coordinates add, so the release is ((Delta / g + sqrt(m))^2 / (2 s^2))-zCDP.
    * CKS Theorem 7: for integer sensitivity D the scalar release is (eps, delta)-DP with
      delta = P[Y > eps s^2 / D - D / 2] - exp(eps) P[Y > eps s^2 / D + D / 2],
      Y ~ N_Z(0, s^2), the smallest such delta; :func:`discrete_gaussian_delta` computes it.

    The classical, pDP and analytic calibrations are stated for the continuous Gaussian;
    the calibration step must check its (eps, delta) against these statements (with D, not
    Delta / g), raising sigma where they fall short. Rounding to the grid costs at most
    g / 2 <= sigma / 2^14; the extra grid step raises the sensitivity by a relative
    g / Delta <= sigma / (2^13 Delta).
    """
    return _gaussian_on_grid(values, *discrete_gaussian_grid(sigma), rng)


def _gaussian_on_grid(values, k, sigma2, rng):
    x = np.asarray(values, dtype=np.float64)
    p, q = (sigma2.numerator, sigma2.denominator) if hasattr(sigma2, "denominator") else (
        int(sigma2), 1)
    return _release(x, discrete_gaussian(p, q, x.size, rng), k)


def discrete_gaussian_noise_on_grid(values, k, sigma2, rng):
    """Release ``values`` with exact discrete Gaussian noise of integer variance parameter
    ``sigma2`` on the grid g = 2^k: g (round(x / g) + Z), Z ~ N_Z(0, sigma2) entrywise.

    The draw of :func:`discrete_gaussian_noise` with the grid and the variance given, as
    ``mechanisms.discrete_gaussian_parameters`` calibrates them (sigma2 at most 2^28 for a
    scalar and 2^42 for a vector, a multiple of the sampler's proposal scale, so that its
    arithmetic stays in int64: :func:`gaussian_variance`; counts on the integers may take
    any integer up to 2^26, or a Fraction p / q below 2^10, where the sampler's general
    path stays in int64).

    Parameters
    ----------
    values : array_like of float
        The true values (finite), any shape.
    k : int
        The grid exponent.
    sigma2 : int or fractions.Fraction
        s^2 in grid units: a whole number >= 1, or a Fraction p / q (the small variances
        of counts, ``integers=True``).
    rng : numpy.random.Generator

    Returns
    -------
    numpy.ndarray of float
        Shaped like ``values``; every entry a multiple of 2^k.
    """
    if not (hasattr(sigma2, "denominator") and sigma2.denominator != 1):
        sigma2 = int(sigma2)
    return _gaussian_on_grid(values, int(k), sigma2, rng)


def _log_tail_sum(m, sigma2):
    """log of sum_{y >= m} exp(-y^2 / (2 sigma2)) for an integer m >= 1 (floating point).

    The terms after y = m are exp(-m^2 / (2 sigma2)) exp(-(2 m i + i^2) / (2 sigma2)), i >= 0;
    they are summed while i < min(12 sigma + 12, 60 sigma2 / m + 2): beyond, each factor is
    below exp(-60) and their sum below exp(-60) max(sigma, sigma2 / m) relative to the first
    term (1), far below the double precision of the sum for sigma < 2^20. In blocks of 2^20.
    """
    sigma = math.sqrt(sigma2)
    length = int(min(12.0 * sigma + 12.0, 60.0 * sigma2 / m + 2.0)) + 2
    total = 0.0
    for start in range(0, length, 1 << 20):
        i = np.arange(start, min(length, start + (1 << 20)), dtype=np.float64)
        total += float(np.exp(-(2.0 * m * i + i * i) / (2.0 * sigma2)).sum())
    return -m * m / (2.0 * sigma2) + math.log(total)


def _log_normaliser(sigma2):
    """log of sum over all integers y of exp(-y^2 / (2 sigma2)): Poisson summation,
    s sqrt(2 pi) (1 + 2 sum_{j >= 1} exp(-2 pi^2 s^2 j^2)), for s >= 1 and direct summation
    below."""
    if sigma2 >= 1.0:
        theta = 1.0 + 2.0 * sum(math.exp(-2.0 * math.pi ** 2 * sigma2 * j * j)
                                for j in range(1, 4))
        return 0.5 * math.log(2.0 * math.pi * sigma2) + math.log(theta)
    return math.log1p(2.0 * math.exp(_log_tail_sum(1, sigma2)))


def discrete_gaussian_tail(m, sigma2):
    """P[Y >= m] for Y ~ N_Z(0, sigma2), P(Y = y) proportional to exp(-y^2 / (2 sigma2)).

    Parameters
    ----------
    m : float
        The threshold (a real m means P[Y >= ceil(m)]).
    sigma2 : float
        The variance parameter s^2 > 0 (in grid units for a release on a grid).

    Returns
    -------
    float
        Computed in floating point (relative error about 1e-12): the tail sum of the
        probabilities beyond max(m, 1 - m) (:func:`_log_tail_sum`, cost O(s)) over the
        normalising constant, and the complement by symmetry for m <= 0 (Canonne, Kamath and
        Steinke 2020, the tail sums of their Theorem 7).

    Examples
    --------
    >>> round(discrete_gaussian_tail(0, 4.0) + discrete_gaussian_tail(1, 4.0), 12)
    1.0
    """
    sigma2 = float(sigma2)
    if not (sigma2 > 0 and math.isfinite(sigma2)):
        raise ValueError("sigma2 must be positive and finite.")
    first = math.ceil(float(m))
    log_z = _log_normaliser(sigma2)
    if first >= 1:
        return math.exp(_log_tail_sum(first, sigma2) - log_z)
    return 1.0 - math.exp(_log_tail_sum(1 - first, sigma2) - log_z)


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


def discrete_gaussian_delta(eps, sensitivity, sigma):
    """The exact delta of the discrete Gaussian mechanism at eps (CKS Theorem 7).

    Parameters
    ----------
    eps : float
        >= 0.
    sensitivity : int
        D >= 1, the sensitivity of the integer-valued query (in grid units).
    sigma : float
        s > 0, the scale of N_Z(0, s^2) (in grid units; pass sqrt(sigma2) of
        :func:`discrete_gaussian_grid`).

    Returns
    -------
    float
        delta = P[Y > eps s^2 / D - D / 2] - exp(eps) P[Y > eps s^2 / D + D / 2],
        Y ~ N_Z(0, s^2): adding Y to a query with integer sensitivity D is (eps, delta)-DP,
        and no smaller delta holds (Canonne, Kamath and Steinke 2020, Theorem 7).

    Notes
    -----
    Computed in floating point (relative error about 1e-12), not exactly: P[Y >= m] from
    sums of the probabilities (:func:`_log_tail_sum`, cost O(s)), the normalising constant
    sum_y exp(-y^2 / (2 s^2)) = s sqrt(2 pi) (1 + 2 sum_{j >= 1} exp(-2 pi^2 s^2 j^2))
    (Poisson summation) for s >= 1 and by direct summation below.
    """
    d = int(sensitivity)
    if d != sensitivity or d < 1:
        raise ValueError("sensitivity must be a positive integer (grid units).")
    sigma2 = float(sigma) ** 2
    log_z = _log_normaliser(sigma2)
    threshold = eps * sigma2 / d - d / 2.0
    first = math.floor(threshold) + 1  # P[Y > threshold] = P[Y >= first]
    second = first + d  # P[Y > threshold + D]
    log_second = float(eps) + _log_tail_sum(second, sigma2)
    if first >= 1:
        log_first = _log_tail_sum(first, sigma2)
        if log_second >= log_first:
            return 0.0
        return math.exp(log_first - log_z) * -math.expm1(log_second - log_first)
    # first <= 0: P[Y >= first] = 1 - P[Y >= 1 - first] by symmetry.
    delta = 1.0 - math.exp(_log_tail_sum(1 - first, sigma2) - log_z)
    return max(delta - math.exp(log_second - log_z), 0.0)


def integer_measure(measure):
    """A non-negative base measure as int64 weights with sum below 2^61.

    Integer values (an integer dtype, or integral floats) with a sum below 2^61 are kept
    exactly. Other values are scaled by one power of two, so that their sum lies in
    [2^59, 2^60), and rounded down: each weight moves by less than 2^-59 of the total. The
    exponential mechanism's guarantee takes its base measure as public (not computed from the
    data), so this rounding changes the law by that much and the privacy not at all.
    """
    raw = np.asarray(measure).ravel()
    if raw.dtype.kind in "iub" and float(raw.sum(dtype=np.float64)) < 2.0 ** 61:
        return raw.astype(np.int64)
    m = raw.astype(np.float64)
    total = float(m.sum())
    if total < 2.0 ** 61 and np.array_equal(m, np.floor(m)):
        return m.astype(np.int64)
    shift = 60 - math.frexp(total)[1]  # total * 2^shift < 2^60
    return np.floor(np.ldexp(m, shift)).astype(np.int64)


def exponential_grid(largest, eps, sensitivity):
    """The grid of the exact exponential mechanism's utilities and its rate per grid step.

    Parameters
    ----------
    largest : float
        The largest |u| over the candidates' finite utilities (>= 0; +inf when none is
        finite).
    eps : float
        > 0 and finite.
    sensitivity : float
        Delta > 0, the sensitivity of each utility.

    Returns
    -------
    k : int
        The utilities are rounded to multiples of h = 2^k: k = :func:`grid_exponent` (Delta,
        20), or larger, frexp(largest) - 1000, when a utility exceeds h 2^1000 (so that
        u / h stays finite).
    rate : fractions.Fraction
        gamma = eps / (2 D), D = :func:`grid_units` (Delta, k) = ceil(Delta / h) + 1: the
        mechanism draws a candidate a grid steps below the best with weight exp(-gamma a).
        Exact (eps is a dyadic float).

    Notes
    -----
    Between neighbouring datasets a rounded utility moves by at most D grid steps, so the
    mechanism run with Delta' = D h is eps-DP (McSherry and Talwar's argument, see
    :func:`exponential_mechanism`). Every computation that compares utilities in the
    mechanism's units (``quantileDP``'s rejection step for a union of intervals) takes k
    and gamma from here, so that it agrees with the mechanism exactly.

    References
    ----------
    McSherry and Talwar (2007), "Mechanism design via differential privacy", FOCS, Theorem 6;
    Canonne, Kamath and Steinke 2020 (the grid of the utilities).

    Examples
    --------
    >>> from fractions import Fraction
    >>> k, rate = exponential_grid(3.0, 1.0, 1.0)
    >>> k, rate == Fraction(1, 2 * (2 ** 20 + 1))
    (-20, True)
    >>> exponential_grid(2.0 ** 1010, 1.0, 1.0)[0]
    11
    """
    k = grid_exponent(sensitivity, UTILITY_GRID_BITS)
    if largest > 0:  # keep u / h finite
        k = max(k, math.frexp(largest)[1] - 1000)
    return k, _exponential_rate(float(eps), float(sensitivity), k)


@functools.lru_cache(maxsize=512)
def _exponential_rate(eps, sensitivity, k):
    """gamma = eps / (2 D) of :func:`exponential_grid`, computed once per arguments."""
    return _fraction(eps) / (2 * grid_units(sensitivity, k))


def exponential_coin(steps, rate, rng):
    """An exact coin that shows True with probability exp(-rate * steps) (1 for steps <= 0).

    Parameters
    ----------
    steps : int
        b, a whole number of grid steps.
    rate : fractions.Fraction
        gamma > 0, e.g. the rate of :func:`exponential_grid`.
    rng : numpy.random.Generator

    Returns
    -------
    bool
        Nothing is drawn when ``steps <= 0``.

    Notes
    -----
    Z of the discrete Laplace law P(Z = z) proportional to exp(-gamma |z|)
    (:func:`discrete_laplace` with t / s = 1 / gamma) is drawn until Z >= 0; then
    P[Z >= b | Z >= 0] = exp(-gamma b), and the coin is Z >= b. Integer arithmetic only,
    for any rational gamma (:func:`bernoulli_exp` needs a denominator below 2^58).
    ``quantileDP`` keeps a point drawn in a union of intervals with this probability.

    References
    ----------
    Canonne, Kamath and Steinke (2020), "The discrete Gaussian for differential privacy",
    NeurIPS, Algorithm 2 (the discrete Laplace sampler).

    Examples
    --------
    >>> import numpy as np
    >>> from fractions import Fraction
    >>> rng = np.random.default_rng(0)
    >>> exponential_coin(0, Fraction(1, 2), rng)
    True
    >>> kept = [exponential_coin(2, Fraction(1, 2), rng) for _ in range(4000)]
    >>> abs(sum(kept) / 4000 - math.exp(-1)) < 0.04
    True
    """
    if steps <= 0:
        return True
    while True:
        z = int(discrete_laplace(rate.denominator, rate.numerator, 1, rng)[0])
        if z >= 0:
            return z >= steps


def exponential_mechanism(utility, eps, sensitivity, rng, measure=None):
    """An exact draw of the exponential mechanism with utilities on a dyadic grid.

    Parameters
    ----------
    utility : array_like of float
        Finite values or -inf (probability 0); NaN and +inf must be refused by the caller.
    eps : float
        > 0 and finite.
    sensitivity : float
        Delta > 0, the sensitivity of each utility.
    rng : numpy.random.Generator
    measure : array_like, optional
        Non-negative base measure (:func:`integer_measure`); uniform by default. At least one
        candidate must have positive measure and a finite utility.

    Returns
    -------
    int
        The 0-based index i drawn with probability proportional to
        measure_i exp(eps u~_i / (2 Delta')).

    Notes
    -----
    Each utility is rounded to the grid h = 2^k, k = :func:`grid_exponent` (Delta, 20) (or
    coarser if a utility exceeds h 2^1000): u~ = h round(u / h). Between neighbouring
    datasets each rounded utility moves by at most Delta + h, and in grid units by at most
    D = ceil(Delta / h) + 1 (:func:`grid_units`); the mechanism is run with
    Delta' = D h <= Delta + 2h, so it is eps-DP by McSherry and Talwar's argument
    (each probability changes by a factor of at most exp(eps / 2) in its numerator and in
    its normaliser). The draw is exact: with a_i = (max u~ - u~_i) / h (integers) and
    gamma = eps / (2 D) (an exact rational, eps being a dyadic float), index i is drawn with
    probability proportional to measure_i exp(-gamma a_i) by rejection from an envelope
    whose every decision compares integers
    (:func:`dppack._exact_selection.select_exponential`): no exp of a float, no cumulative
    sum of rounded weights. Cost: a few passes over the
    utilities (about 1.6 proposals on average, each one pass over a level array).
    """
    u = np.asarray(utility, dtype=np.float64).ravel()
    high, low = float(u.max()), float(u.min())
    excluded = None
    if low == -np.inf:
        excluded = np.isneginf(u)
        low = float(np.min(u, initial=high, where=~excluded))
    k, rate = exponential_grid(max(abs(high), abs(low)), eps, sensitivity)
    scaled = np.rint(_times_power_of_two(u, -k))
    weights = None if measure is None else integer_measure(measure)
    if weights is not None:
        excluded = (weights == 0) if excluded is None else excluded | (weights == 0)
    if excluded is None:
        top = float(np.rint(math.ldexp(high, -k)))  # rounding is monotone
    else:
        top = float(np.max(scaled, initial=-np.inf, where=~excluded))
    if top == -np.inf:
        raise ValueError("At least one candidate must have positive measure and utility > -Inf.")
    return _exact_selection.select_exponential(scaled, top, rate, weights, rng, excluded)


def exponential_interval(utility, widths, eps, sensitivity, rng):
    """An interval drawn with weight width times exp(eps u / (2 Delta')), and a point in it.

    For ``quantileDP``: the data, sorted and padded with the bounds, are rounded to a grid
    g_x = 2^j (a fine power of two below (upper - lower), chosen so that the total width in
    grid units stays below 2^61), so that interval k spans the integers
    [X_k, X_{k+1}) and ``widths`` = X_{k+1} - X_k (integers >= 0; an empty interval has
    probability 0). The release is g_x (X_k + offset).

    Parameters
    ----------
    utility, eps, sensitivity, rng
        As for :func:`exponential_mechanism` (quantileDP: -|k - quant n|, Delta = 1).
    widths : array_like of int
        The interval widths in grid units.

    Returns
    -------
    (int, int)
        The interval index k and an offset uniform on {0, ..., widths[k] - 1}.

    Notes
    -----
    Choosing k with probability proportional to widths_k exp(eps u~_k / (2 Delta')) and then
    a uniform grid point in it is the exponential mechanism over the grid points
    j in [X_0, X_{n+1}), each with the rounded utility of the interval that holds it (base
    measure: counting). That utility has sensitivity Delta = 1: the rank of a grid point
    among the rounded data changes by at most one when one record changes (rounding is
    applied record by record). So the release is eps-DP with Delta' as in
    :func:`exponential_mechanism`, and exact: integer widths, no float length times a float
    exp, no uniform float inside the interval.
    """
    widths = np.asarray(widths)
    if widths.dtype.kind not in "iu" or (widths.size and np.minimum.reduce(widths) < 0):
        raise ValueError("widths must be non-negative integers.")
    total = float(np.add.reduce(widths, dtype=np.float64))  # widths.sum(dtype=np.float64)
    if total > 2.0 ** 61:  # kept exactly by integer_measure
        raise ValueError("widths must add up to at most 2^61.")
    measure = widths.astype(np.int64)
    k = planned_interval(utility, measure, eps, sensitivity, rng) if total < 2.0 ** 61 else None
    if k is None:
        k = exponential_mechanism(utility, eps, sensitivity, rng, measure=measure)
    return k, _exact_samplers().py_uniform(rng, int(widths[k]))


# --------------------------------------------------------------------------------------------
# Exact coins of irrational probability (noise reduction): a probability known only through
# rigorous rational bounds, refined on demand.
# --------------------------------------------------------------------------------------------


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
    rng : numpy.random.Generator

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


def release_on_grid(values, noise, k):
    """g (round(x / g) + z) entrywise, g = 2^k, for integer noise ``noise`` (one per entry of
    ``values``, flat): the release of :func:`discrete_laplace_noise` with the integer noise
    drawn by the caller (e.g. the noise-reduction paths). The floats released are functions
    of the integers round(x / g) + z only (see ``_release``).

    Examples
    --------
    >>> release_on_grid([0.3, -1.0], np.array([1, 2]), -2).tolist()
    [0.5, -0.5]
    """
    x = np.asarray(values, dtype=np.float64)
    return _release(x, np.asarray(noise).ravel(), int(k))


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
    """The word thresholds of :func:`bernoulli_real_rows` as arrays (cached: the
    noise-reduction coins reuse them): low and high clipped to [0, 2^64 - 1], and whether
    each row is certain (low >= 2^64) or open at the top (high >= 2^64)."""
    top = 1 << 64
    low = np.array([min(max(lo, 0), top - 1) for lo, _ in thresholds], dtype=np.uint64)
    high = np.array([min(max(hi, 0), top - 1) for _, hi in thresholds], dtype=np.uint64)
    certain = np.array([lo >= top for lo, _ in thresholds], dtype=bool)
    open_top = np.array([hi >= top for _, hi in thresholds], dtype=bool)
    for array in (low, high, certain, open_top):
        array.flags.writeable = False
    return low, high, certain, open_top


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
    out = (w < low[:, None]) | certain[:, None]
    undecided = ~out & ((w < high[:, None]) | open_top[:, None])
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


# --------------------------------------------------------------------------------------------
# Exact samplers at float speed (noise reduction): one 64-bit word per decision, decided in
# floating point with a rigorous margin, and exactly, on further bits of the same uniform,
# inside the margin. For few draws (no arrays' fixed cost) and for the online step's choice
# of a piece; in bulk the vectorised CKS samplers above are as fast.
# --------------------------------------------------------------------------------------------

# The relative error allowed to the C library's float64 log, exp and expm1 (NumPy's and
# Python's math): IEEE 754 recommends correct rounding (2^-53); glibc states 1 or 2 ulps and
# NumPy's SIMD kernels at most 4 (about 2^-51). 2^-46 is 32 times the larger; the fast
# decisions below are exact whenever the library is within it
# (tests/python/random/test_noise_reduction_speed.py checks it against exact rational bounds).
LIBM_ERROR = 2.0 ** -46
_FAST_MIN_WORD = 1 << 20  # below, the uniform's leading bits are too few for the float decision
_FAST_LARGEST = 2.0 ** 61  # geometric values beyond go to the exact path
_SPLIT_RATE_BITS = 16  # geometric rates below 2^-16 are split (the float L would be too coarse)
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


def discrete_gaussian_one(p, rng):
    """One exact draw Z with P(Z = z) proportional to exp(-z^2 / (2 p)) (p a positive integer,
    a multiple of the proposal scale t = 2^j of :func:`gaussian_variance`): the law of
    :func:`discrete_gaussian` (p, 1), on Python integers.

    Canonne, Kamath and Steinke (2020), Algorithm 3: Y ~ DL with scale t
    (:func:`discrete_laplace_one`), accepted with probability exp(-(|Y| - p / t)^2 / (2 p))
    (:func:`bernoulli_exp_one`; p / t is an integer); the accepted Y have the discrete
    Gaussian law for any t > 0.

    Examples
    --------
    >>> rng = as_generator(0)
    >>> z = [discrete_gaussian_one(gaussian_variance(400), rng) for _ in range(4000)]
    >>> abs(float(np.std(z)) - 20) < 1
    True
    """
    exact = _exact_samplers()
    p = int(p)
    t = 1 << exact.gaussian_proposal_exponent(p, 1)
    if p % t:
        raise ValueError("p must be a multiple of the proposal scale (gaussian_variance).")
    centre = p // t
    while True:
        y = discrete_laplace_one(1, t, rng)
        w = abs(y) - centre
        if bernoulli_exp_one(w * w, 2 * p, rng):
            return y


_BLOCK_BITS = 96  # fixed point of the block envelope's bounds
_BLOCK_CHUNK = 1 << 14  # draws per pass of discrete_gaussian_blocks


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
    lo, _ = exp_series_bounds(Fraction(b * b, 2 * p), 0, 1, P + 8)  # lo <= exp(b^2 / (2 p))
    E = -(-(1 << P) * lo.denominator // lo.numerator)  # ceil(2^P / lo) >= E 2^P
    e_hi, step = [1 << P], E
    for _ in range(kmax):
        e_hi.append(-(-(e_hi[-1] * step) >> P))
        step = -(-(step * E * E) >> (2 * P))
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
    slack = 2.0 * np.asarray(eta, dtype=np.float64) + 2.0 ** -50
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


def release_path_on_grid(values, path, k):
    """Rows g (round(x / g) + z_t) of an integer ``path`` (T, size) for the values x (size):
    :func:`release_on_grid` of each row, with round(x / g) computed once (the same float
    operations entrywise, so the same floats). Paths with an entry of 2^53 or more, values
    whose x / g overflows, or few values take :func:`release_on_grid` row by row.

    Examples
    --------
    >>> release_path_on_grid([0.3, -1.0], np.array([[1, 2], [0, 0]]), -2).tolist()
    [[0.5, -0.5], [0.25, -1.0]]
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    path = np.asarray(path)
    k = int(k)
    if (0 < x.size <= _FEW_VALUES and -1000 <= k <= 1000 and path.dtype != object
            and (path.size == 0 or max(-int(path.min()), int(path.max())) < _WIDE)):
        # _release_few's operations, round(x / g) once
        down, up = math.ldexp(1.0, -k), math.ldexp(1.0, k)
        grid = []
        for value in x.tolist():
            scaled = value * down
            grid.append(float(round(scaled)) * up if -math.inf < scaled < math.inf else value)
        out = path.reshape(-1, x.size).astype(np.float64)  # exact: |z| < 2^53
        with np.errstate(over="ignore") if k > 900 else contextlib.nullcontext():
            out *= up  # float(z) * up + v entrywise: the same two IEEE operations
        out += np.array(grid)
        return out.reshape(path.shape)
    simple = (x.size > _FEW_VALUES and -1000 <= k <= 1000 and path.dtype != object
              and (path.size == 0 or max(-int(path.min()), int(path.max())) < _WIDE))
    if simple:
        with np.errstate(over="ignore"):
            grid = _times_power_of_two(x, -k)
        simple = bool(grid.size == 0 or (grid.max() < np.inf and grid.min() > -np.inf))
    if not simple:
        return np.stack([_release(x, np.asarray(row).ravel(), k) for row in path])
    np.rint(grid, out=grid)
    grid = _times_power_of_two(grid, k, out=grid)
    out = path.astype(np.float64)
    _times_power_of_two(out, k, out=out)
    out += grid
    return out


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
# The discrete Gaussian ladder: one 64-bit word per trial (the Brownian noise-reduction path)
# --------------------------------------------------------------------------------------------

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
    lo, _ = exp_series_bounds(Fraction(b * b, 2 * p), 0, 1, P + 8)  # lo <= exp(b^2 / (2 p))
    E = -(-(1 << P) * lo.denominator // lo.numerator)  # ceil(2^P / lo) >= E 2^P
    e_hi, step = [1 << P], E
    for _ in range(kmax):
        e_hi.append(-(-(e_hi[-1] * step) >> P))
        step = -(-(step * E * E) >> (2 * P))
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
    flattened over the rows (row j's buckets at j 2^12): per bucket, the first value b k of
    its block and 1 - C_k / b (C_k the block's start: q + 1 = u / b + that; 2^53 for the
    buckets that reject and the tail's: never accepted by the floats); per row, (J, 1)
    columns of the offsets,
    masks, -1 / (2 p), F (1 -+ eta) and the tail's start."""
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
        ybase.append(y)
        qbase.append(q)
        x_max = (b * kmax) ** 2 / (2 * p) + 1.0
        eta = _LADDER_SLACK + x_max * 2.0 ** -50
        for name, value in (("offset", j << _LADDER_GUIDE), ("mask", b - 1), ("beta", beta),
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
    return tuple(out)


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
    y = b * k + (o & (b - 1))
    v = -(y + 1) if negative else y
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
    y = b k + r and the value is v = y (s = 0) or -(y + 1) (s = 1): each integer v comes
    from one (block, sign), with probability M_k / 2^64, and is accepted iff
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
    ps, size = tuple(int(p) for p in ps), int(size)
    if not all(LADDER_MIN_P <= p < (1 << 56) for p in ps):
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
    ybase, qbase, offset, mask, beta, tail, half, f_lo, f_hi = _ladder_tables(ps)
    J, need = len(ps), stop - start
    m = int(need * 1.07) + 16
    w = _exact_samplers().words(rng, J * m).view(np.int64).reshape(J, m)
    sign = w >> 63  # 0 or -1
    u = w & _MAX63
    bucket = (u >> (63 - _LADDER_GUIDE)) + offset
    value = (ybase[bucket] + (u & mask)) ^ sign  # y, or -(y + 1)
    q1 = (u >> beta) + qbase[bucket]  # q + 1 = (u - C_k) / b + 1 (b divides C_k)
    e = value.astype(np.float64)
    np.multiply(e, e, out=e)
    e *= half
    np.exp(e, out=e)  # exp(-v^2 / (2 p))
    qf = q1.astype(np.float64)
    yes = qf < e * f_lo  # q + 1 < F exp(-v^2 / (2 p)): accepted
    qf -= 1.0  # q (exact: q + 1 < 2^52)
    maybe = qf < e * f_hi  # else q >= F exp(-v^2 / (2 p)): rejected
    tailed = bool((u.max(axis=1) >= tail[:, 0]).any())  # a trial in the tail (never, nearly)
    if FORCE_EXACT_PATH or tailed or np.count_nonzero(maybe) > np.count_nonzero(yes):
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
    rank = np.cumsum(yes, axis=1)  # each row's accepted trials, counted in order
    if (rank[:, -1] >= need).all():
        first = rank <= need
        first &= yes
        out[:, start:stop] = value[first].reshape(J, need)
        return
    counts = rank[:, -1]
    accepted = value[yes]
    starts = np.cumsum(counts) - counts
    for j in range(J):  # (rare) what the round gave, then more trials for this row alone
        take = min(int(counts[j]), need)
        out[j, start:start + take] = accepted[starts[j]:starts[j] + take]
        if take < need:
            _ladder_fill((ps[j],), out[j:j + 1], start + take, stop, rng)


# --------------------------------------------------------------------------------------------
# Releases on the grid with the rounded values computed once (the online noise reduction)
# --------------------------------------------------------------------------------------------


def grid_values(values, k):
    """g round(x / g) entrywise (flat), g = 2^k: the rounded values of :func:`_release`
    (a value whose x / g overflows kept as it is), for :func:`release_with_grid`."""
    x = np.asarray(values, dtype=np.float64).ravel()
    with np.errstate(over="ignore"):
        grid = _times_power_of_two(x, -int(k))
    finite = None
    if grid.size and not (grid.max() < np.inf and grid.min() > -np.inf):
        finite = np.isfinite(grid)
    np.rint(grid, out=grid)
    grid = _times_power_of_two(grid, int(k), out=grid)
    return grid if finite is None else np.where(finite, grid, x)


def release_with_grid(values, grid, noise, k):
    """:func:`release_on_grid` (values, noise, k) with ``grid`` = :func:`grid_values`
    (values, k) computed once by the caller: the same floats (g z + g round(x / g), one
    correctly rounded sum of two multiples of g; |z| >= 2^53 or an extreme k take
    :func:`release_on_grid` itself).

    Examples
    --------
    >>> x = [0.3, -1.0]
    >>> release_with_grid(x, grid_values(x, -2), np.array([1, 2]), -2).tolist()
    [0.5, -0.5]
    """
    noise = np.asarray(noise).ravel()
    k = int(k)
    if (noise.dtype == object or not -1000 <= k <= 1000
            or (noise.size and max(-int(noise.min()), int(noise.max())) >= _WIDE)):
        return release_on_grid(values, noise, k)
    out = noise.astype(np.float64)
    _times_power_of_two(out, k, out=out)
    out += grid
    return out.reshape(np.shape(values))


# --------------------------------------------------------------------------------------------
# The exponential mechanism over a few intervals, with its levels planned once per utilities
# (issue 29: a small quantileDP draws from the same utilities call after call).
# --------------------------------------------------------------------------------------------

_PLANNED_MAX = 1024  # candidates up to this many: the utilities' levels are cached
_PLANS_KEPT = 64  # plans kept (and utilities seen once), each set cleared when full
_PLANS = {}
_SEEN = set()


def planned_interval(utility, widths, eps, sensitivity, rng):
    """:func:`exponential_interval`'s index for int64 ``widths`` (checked, sum below 2^61),
    or None where it does not apply (then nothing is drawn).

    The same draws and the same index as :func:`exponential_mechanism` with measure
    ``widths``: the grid, the rate, the rounded utilities and the envelope's levels depend
    on the utilities, eps and Delta alone, and are computed once per such arguments
    (:func:`_selection_plan`); the rejection loop of
    :func:`dppack._exact_selection.select_exponential` then runs on them
    (:func:`dppack._exact_selection.select_planned`), every decision an exact comparison of
    integers. Applies to at most 1024 utilities, all finite, whose best candidates have a
    positive width, seen before: the first time, building the plan would cost more than the
    general path saves (utilities that depend on the data are rarely seen twice).
    """
    u = utility
    if type(u) is not np.ndarray or u.dtype != np.float64 or u.ndim != 1:
        u = np.asarray(utility, dtype=np.float64).ravel()
    if u.size > _PLANNED_MAX or u.size != widths.size:
        return None
    key = (u.tobytes(), float(eps), float(sensitivity)) + _exact_selection.envelope()
    plan = _PLANS.get(key)
    if plan is None:
        if key in _PLANS or key not in _SEEN:  # not plannable; or seen for the first time
            if len(_SEEN) >= _PLANS_KEPT:
                _SEEN.clear()
            _SEEN.add(key)
            return None
        if len(_PLANS) >= _PLANS_KEPT:
            _PLANS.clear()
        plan = _PLANS[key] = _selection_plan(*key)
        if plan is None:
            return None
    return _exact_selection.select_planned(plan, widths, rng)


def _selection_plan(key, eps, sensitivity, buckets, bits):
    """The plan of :func:`planned_interval` for the utilities of bytes ``key`` (None when one
    is not finite); ``buckets`` and ``bits``, the envelope's, key the cache only."""
    u = np.frombuffer(key, dtype=np.float64)
    high, low = float(u.max()), float(u.min())
    if not (math.isfinite(high) and math.isfinite(low)):
        return None
    k, rate = exponential_grid(max(abs(high), abs(low)), eps, sensitivity)
    scaled = np.rint(_times_power_of_two(u, -k))
    return _exact_selection.plan_levels(scaled, float(scaled.max()), rate)
