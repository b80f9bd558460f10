"""Noise reduction: one query released at a sequence of increasing privacy levels, where
releasing any prefix of the sequence costs only the privacy of its last level (Koufogiannis, Han and
Pappas 2015; Ligett et al. 2017).

* :func:`privacy_level_grid` — the geometric grid of levels eps_1 < ... < eps_T;
* :func:`LaplaceNoiseReduction` — the batch Laplace path, drawn from the least private
  level down;
* :class:`LaplaceNoiseReductionOnline` — the same joint law, generated upward on demand,
  so the last level need not be fixed in advance;
* :func:`GaussianNoiseReduction` — the Brownian (Gaussian) path, an extension that is not in
  Ligett et al..

Randomness (all through ``_random``): the Laplace paths are exact and on a grid. The data are
rounded once to the grid g = 2^k of the first (most private) level, V = round(x / g), whose L1
sensitivity in grid units is D = ceil(Delta / g) + m (m entries that can differ); level t
adds integer noise Z_t ~ DL(a_t), P(z) proportional to exp(-a_t |z|) with a_t D <= eps_t, and
releases g (V + Z_t). The discrete Laplace law has the characteristic function
1 / (1 + c (2 - 2 cos w)), c = 1 / (4 sinh(a / 2)^2), of the same form as the continuous
Laplace's 1 / (1 + b^2 w^2), so the lazy walk of Koufogiannis, Han and Pappas (2015) holds
on the integers: Z_t = Z_{t+1} with probability c_{t+1} / c_t, else Z_{t+1} plus a fresh
DL(a_t) draw. The batch path draws Z_T first (one discrete Laplace per entry), then one
exact coin per entry and lower level (:func:`dppack._random.bernoulli_real_rows`, the
probability bounded by Taylor series in exact rationals), then, level by level from T-1
down, a discrete Laplace for the entries that move; the online sampler draws Z_{t+1} given
Z_t (its exact conditional law, :func:`_laplace_reduce_noise`, by sides: one word against
two constant thresholds in integers, one geometric draw for the value). A few entries
(up to ``SMALL_PATH``, ``FEW``) are drawn one at a time on Python integers, with the
one-word exact samplers of ``dppack._random`` (``discrete_laplace_one``,
``bernoulli_exp_one``, ...): each decision compares a uniform 64-bit word with a
floating-point threshold and a rigorous margin (valid while the C library's log, exp and
expm1 are within ``dppack._random.LIBM_ERROR`` = 2^-46 relative; tested), and continues on
further bits with exact rational bounds inside the margin; so each draw is a function of
its uniform bits alone, with exactly the stated law. The floats released are functions of
the integers V + Z_t only (:func:`dppack._random.release_on_grid`).

The Brownian (Gaussian) path draws exact discrete Gaussian increments
(:func:`dppack._random.discrete_gaussian_ladder`, one word per trial, or the block
samplers), but its prefix statement is not exact:
see :func:`GaussianNoiseReduction`.

Accounting: every release takes a trailing ``accountant`` (None: the session's, if any), which
is charged before any noise is drawn: the batch Laplace path its last level ``eps_T`` (the
whole path is returned), the Brownian path rho = sensitivity^2 / (2 s_T), the online sampler
as documented on :class:`LaplaceNoiseReductionOnline`.
"""

import functools
import math
import threading

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random, accounting
from .._repr import model_repr
from ._gaussian_path import (  # noqa: F401  (reached as noise_reduction.<name>)
    GaussianNoiseReduction,
    gaussian_path_grid,
    GAUSSIAN_SMALL_PATH,
    GAUSSIAN_ROWS_PATH,
    gaussian_noise_path,
)
from ._laplace_path import laplace_noise_path, level_fraction, level_grid
from ._levels import TRUE_VALUES_SIZE_MESSAGE, check_levels, common_rates  # noqa: F401

__all__ = [
    "GaussianNoiseReduction",
    "LaplaceNoiseReduction",
    "LaplaceNoiseReductionOnline",
    "privacy_level_grid",
]


# --------------------------------------------------------------------------------------------
# The grid
# --------------------------------------------------------------------------------------------


def privacy_level_grid(eps_min, eps_max, n_levels=1000):
    """The geometric privacy-level grid of Ligett et al. 2017.

    eps_k = eps_min (eps_max / eps_min)^(k / T), k = 0, ..., T-1: eps_min is the first level and
    eps_max itself is not included (as in the authors' code, Ligett et al. 2017 item 7).

    Parameters
    ----------
    eps_min, eps_max : float
        0 < eps_min < eps_max, finite.
    n_levels : int
        T >= 1.

    Returns
    -------
    ndarray
        T increasing levels.

    Raises
    ------
    ValueError
        Invalid bounds or number of levels.

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30.

    Examples
    --------
    >>> from dppack import privacy_level_grid
    >>> privacy_level_grid(0.1, 1.0, n_levels=4).round(6).tolist()  # 1.0 itself excluded
    [0.1, 0.177828, 0.316228, 0.562341]
    """
    low = _checks.check_finite_positive_scalar(eps_min, "eps.min")
    high = _checks.check_finite_positive_scalar(eps_max, "eps.max")
    if not low < high:
        raise _messages.value_error("eps.min must be < eps.max.")
    T = _checks.check_whole(n_levels, "n.levels", 1)
    return low * (high / low) ** (np.arange(T) / T)


# --------------------------------------------------------------------------------------------
# Laplace noise reduction on the integer grid (the batch path and its law:
# dppack.accuracy_first._laplace_path)
# --------------------------------------------------------------------------------------------


def LaplaceNoiseReduction(true_values, eps, sensitivity, random_state=None, accountant=None):
    """Release ``true_values`` at every privacy level of ``eps`` by Laplace noise reduction.

    Batch form (Ligett et al. 2017, Algorithm 1), on the integer grid: the least private
    release is drawn first and each more private one is a lazy random walk away from it, so
    the release at level t is g (round(x / g) + Z_t) entrywise, Z_t discrete Laplace with
    P(z) proportional to exp(-a_t abs(z)), and publishing the releases of levels 1..t costs eps_t
    (not eps_1 + ... + eps_t).

    The grid g = 2^k is the one ``dppack._random.laplace_grid`` picks for the first level
    (g <= min(Delta / eps_1, Delta / (m + 1)) / 2^20, m = ``true_values.size``), shared by all
    levels; the rounded values have L1 sensitivity D = ceil(Delta / g) + m grid steps, and
    a_t = s_t / t_t is eps_t / D rounded down (a relative 2^-20 at most), so each level's
    noise is a little wider than Lap(Delta / eps_t): by the rounding, relatively
    (m + 1) g / Delta + 2^-20 in scale. Privacy: V + Z_t is (a_t D)-DP (discrete Laplace,
    Canonne, Kamath and Steinke 2020), a_t D <= eps_t, and the releases below t are
    V + Z_t plus independent data-free noise (the walk, exact on the integers: see the
    module docstring), so the prefix 1..t is eps_t-DP (Koufogiannis et al. 2015; Ligett et
    al. 2017, Thm 2.7). This deviates from the floating-point path of DPpack, whose
    Laplace draws added to the data in floating point leak through the low-order bits.

    Parameters
    ----------
    true_values : array_like
        The exact query answer (any shape), finite.
    eps : array_like
        Strictly increasing privacy levels eps_1 < ... < eps_T (most private first).
    sensitivity : float
        l1-sensitivity of the *whole* ``true_values`` under replacement of one record.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps_T)`` under the label 'LaplaceNoiseReduction': the whole
        path is returned, and releasing all of it costs its last level (Thm 2.7). None charges
        the session's accountant, if any. An overspend is refused before any noise is drawn.

    Returns
    -------
    ndarray
        Shape (T, ``*true_values.shape``): row t is the release at level eps_t. Publish only the
        prefix you need; the privacy cost is the level of the last row published (an
        accountant is charged eps_T, since it cannot know which prefix you publish).

    Raises
    ------
    ValueError
        Invalid values, levels or sensitivity (before any noise is drawn).

    References
    ----------
    Koufogiannis F, Han S, Pappas GJ (2015). Optimality of the Laplace mechanism in
    differential privacy. arXiv:1504.00065.
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30.
    Canonne CL, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
    NeurIPS 33 (the discrete Laplace mechanism and its exact sampler).

    Examples
    --------
    A count of sensitivity 1 at three levels; each row is less noisy than the one above,
    and publishing all three costs eps = 1:

    >>> from dppack import LaplaceNoiseReduction
    >>> path = LaplaceNoiseReduction(5.0, eps=[0.1, 0.5, 1.0], sensitivity=1.0,
    ...                              random_state=1)
    >>> path.shape
    (3,)
    >>> [round(float(v), 2) for v in path]
    [7.53, 2.01, 4.32]
    >>> LaplaceNoiseReduction([5.0, 6.0], [0.1, 0.5, 1.0], 1.0, random_state=1).shape
    (3, 2)
    """
    _backends.refuse_dask("LaplaceNoiseReduction", true_values)
    levels = check_levels(eps)  # before the charge (its loss), checked once
    return _plans.run(_LAPLACE_REDUCTION, true_values, {"eps": levels, "sensitivity": sensitivity},
                      random_state, accountant)


class _LaplaceReductionPlan(_plans.Plan):
    """:func:`LaplaceNoiseReduction`: charged its last level (``eps`` the checked levels), then
    the values and the sensitivity are checked and the whole path drawn."""

    name = "LaplaceNoiseReduction"

    def loss(self, a):
        return accounting.PrivacyLoss.pure(a["eps"][-1])

    def prepare(self, true_values, a):
        values = _checks.as_finite_data(true_values, "true.values",
                                        size_message=TRUE_VALUES_SIZE_MESSAGE)[0]
        sens = _checks.check_finite_positive_scalar(a["sensitivity"], "sensitivity")
        return [(None, lambda rng, loss: laplace_noise_path(values, sens, a["eps"], rng))]


_LAPLACE_REDUCTION = _LaplaceReductionPlan()


@functools.lru_cache(maxsize=4096)
def _sinh_ratio_interval(a1, a2, bits):
    """Fraction bounds of sinh(a1) / sinh(a2) (a1 < a2, Fractions), within about 2^-bits."""
    l1, h1 = _random.exp_series_bounds(a1, 1, 2, bits + 4)
    l2, h2 = _random.exp_series_bounds(a2, 1, 2, bits + 4)
    return l1 / h2, h1 / l2


def _geometric(rate, size, rng):
    """``size`` exact draws J >= 1 with P(J = j) proportional to exp(-rate j) (``rate`` a
    dyadic Fraction): |Z| for Z ~ DL(rate) drawn again while 0 (|Z| given Z != 0 has that
    law, by symmetry)."""
    out = np.asarray(_random.discrete_laplace(rate.denominator, rate.numerator, size, rng))
    zero = np.flatnonzero(out == 0)
    while zero.size:
        out[zero] = _random.discrete_laplace(rate.denominator, rate.numerator, zero.size, rng)
        zero = zero[out[zero] == 0]
    return np.abs(out)


FEW = 16  # up to this many entries, _laplace_reduce_noise runs entry by entry on Python integers
_GRID_ONCE = 32  # beyond, the online releases reuse the rounded values (else Python floats)


def _geometric_one(rate, rng):
    """J >= 1 with P(J = j) proportional to exp(-rate j): 1 + G, P(G >= k) = exp(-rate k)."""
    return 1 + _random.geometric_words_one(rate.numerator, rate.denominator, rng)


@functools.lru_cache(maxsize=1024)
def _reduce_constants(a1, a2):
    """What :func:`_reduce_one` computes once per step: the rates delta = a2 - a1 and
    A = a1 + a2 (Fractions and floats), 1 / expm1(A), expm1(-delta)."""
    delta, total = a2 - a1, a1 + a2
    A, d = float(total), float(delta)
    return delta, total, d, 1.0 / math.expm1(A), math.expm1(-d)


def _reduce_one(x, a1, a2, ratio, rng, constants=None):
    """:func:`_laplace_reduce_noise` for one entry, on Python integers and floats (the same
    law and steps as the vectorised :func:`_step_pieces`: stay or the piece by one
    uniform, a geometric draw within the piece; ``ratio`` the float sinh ratio), without
    the arrays' fixed cost. ``constants``: :func:`_reduce_constants` (a1, a2), if computed
    by the caller (the same floats)."""
    n = abs(x)
    delta, total, d, m1, expm1_d = constants or _reduce_constants(a1, a2)
    m2 = math.expm1(-d * (n + 1.0)) / expm1_d
    decay = math.exp(-d * n)
    mass = m1 * (1.0 + decay) + m2
    stay = ratio * decay
    move = 1.0 - stay
    eta = 64 * _random.LIBM_ERROR + (d * n + 64.0) * 2.0 ** -50
    piece = _random.cumulative_index_one(
        [stay, stay + move * (m1 / mass), stay + move * ((m1 + m2) / mass)], eta,
        functools.partial(_step_bounds, a1, a2, [n], 0), rng)
    if piece == 0:
        return x
    if piece == 2:
        y = (_geometric_one(delta, rng) - 1) % (n + 1)
    else:
        j = _geometric_one(total, rng)
        y = -j if piece == 1 else n + j
    return -y if x < 0 else y


def _laplace_reduce_noise(noise, a1, a2, rng):
    """One step of the online sampler: Z_{t+1} given Z_t = ``noise`` (exact, integers).

    ``noise`` holds DL(a1) draws (rate a1 = s / t, a Fraction, of the current level); the
    new level has rate a2 > a1. With p = c(a2) / c(a1) and pi_a the DL(a) law, Bayes's rule
    on the lazy walk Z_t = Z_{t+1} + W gives, for x = Z_t,

    * stay (y = x) with probability p pi_a2(x) / pi_a1(x) = (sinh(a1) / sinh(a2))
      exp(-(a2 - a1) |x|);
    * otherwise y with weight pi_a2(y) pi_a1(x - y), proportional (for x >= 0; mirrored for
      x < 0) to exp(-A j) at y = -j (j >= 1, A = a1 + a2), exp(-delta y) for 0 <= y <= x
      (delta = a2 - a1), exp(-delta x - A j) at y = x + j.

    Drawn by sides (:func:`_step_noise`): one word picks one of three sides with constant
    probabilities, exactly, and one geometric draw X gives the value (the middle, the stay
    or a tail); no rejection rounds beyond the geometric trials'. Up to ``FEW`` entries run
    one by one on Python integers (:func:`_side_one`, the same draws), which avoids the
    arrays' fixed cost. Rates without a power-of-two common denominator take the
    three-piece inversion (:func:`_step_pieces`, :func:`_reduce_one`): the same law.
    """
    x = np.asarray(noise, dtype=np.int64)
    shape = x.shape
    x = x.ravel()
    n = np.abs(x)
    if x.size <= FEW:
        plan = _step_plan(a1, a2)
        if plan is not None:  # :func:`_step_noise`'s draws, one entry at a time
            out = [_side_one(v, plan, rng) for v in x.tolist()]
            return np.array(out, dtype=np.int64).reshape(shape)
        ratio = float(_sinh_ratio_interval(a1, a2, 60)[0])
        constants = _reduce_constants(a1, a2)
        out = [_reduce_one(v, a1, a2, ratio, rng, constants) for v in x.tolist()]
        return np.array(out, dtype=np.int64).reshape(shape)
    if x.size <= STEP_CHUNK:
        y = _step_noise(n, a1, a2, rng)
        np.putmask(y, x < 0, -y)
        return y.reshape(shape)
    # in chunks of entries, so that the working arrays stay in cache (each entry's step is
    # independent of the others': the same law)
    out = np.empty_like(x)
    for start in range(0, x.size, STEP_CHUNK):
        part = slice(start, start + STEP_CHUNK)
        y = _step_noise(n[part], a1, a2, rng)
        np.copyto(out[part], np.where(x[part] < 0, -y, y))
    return out.reshape(shape)


STEP_CHUNK = 1 << 14  # entries per pass of the online step


def _step_bounds(a1, a2, n, i, k, bits):
    """Fraction bounds of the cumulative probabilities of :func:`_step_noise` for entry i
    (n = |x|), within about 2^-bits: k = 0, the stay probability
    c_0 = (sinh(a1) / sinh(a2)) e^(-delta n); k = 1, 2, c_0 + (1 - c_0) c'_k with the
    pieces' c'_1 = 1 / (1 + M2 (e^A - 1) + e^(-delta n)) and c'_2 = 1 - e^(-delta n) c'_1
    (each increasing in c_0 and in c'_k)."""
    delta, total = a2 - a1, a1 + a2
    m = int(n[i])
    work = bits + 8
    tail = _random.exp_series_bounds(delta * m, 0, 1, work)  # e^(d m)
    decay = (1 / tail[1], 1 / tail[0])  # e^(-d m)
    ratio = _sinh_ratio_interval(a1, a2, work)
    stay = (ratio[0] * decay[0], ratio[1] * decay[1])
    if k == 0:
        return stay
    expm1_total = _random.exp_series_bounds(total, 1, 1, work)  # e^A - 1
    num = _random.exp_series_bounds(delta * (m + 1), 1, 1, work)  # e^(d (m+1)) - 1
    num_exp = _random.exp_series_bounds(delta * (m + 1), 0, 1, work)  # e^(d (m+1))
    den = _random.exp_series_bounds(delta, 1, 1, work)  # e^d - 1
    den_exp = _random.exp_series_bounds(delta, 0, 1, work)  # e^d
    # M2 = (1 - e^(-d (m+1))) / (1 - e^(-d)) = ((e^(d(m+1)) - 1) / e^(d(m+1))) e^d / (e^d - 1)
    m2 = (num[0] / num_exp[1] * den_exp[0] / den[1], num[1] / num_exp[0] * den_exp[1] / den[0])
    c1 = (1 / (1 + m2[1] * expm1_total[1] + decay[1]),
          1 / (1 + m2[0] * expm1_total[0] + decay[0]))
    piece = c1 if k == 1 else (1 - decay[1] * c1[1], 1 - decay[0] * c1[0])
    return stay[0] + (1 - stay[0]) * piece[0], stay[1] + (1 - stay[1]) * piece[1]


@functools.lru_cache(maxsize=1024)
def _side_bounds(a1, a2, bits):
    """Fraction bounds (within about 2^-bits) of tau_1 = (e^delta - 1) / (e^(2 a2) - 1) and
    tau_2 = 1 - e^delta tau_1 (delta = a2 - a1): the cumulative probabilities of the sides
    of :func:`_step_noise`."""
    num = _random.exp_series_bounds(a2 - a1, 1, 1, bits + 8)  # e^delta - 1
    den = _random.exp_series_bounds(2 * a2, 1, 1, bits + 8)  # e^(2 a2) - 1
    left = (num[0] / den[1], num[1] / den[0])
    return left, (1 - (1 + num[1]) * left[1], 1 - (1 + num[0]) * left[0])


def _side_bound(a1, a2, k, bits):
    return _side_bounds(a1, a2, bits)[k]


@functools.lru_cache(maxsize=1024)
def _step_plan(a1, a2):
    """What :func:`_step_noise` needs of the rates a1 < a2 (Fractions), once per step: the
    side choice (``dppack._random.word_index_plan`` of tau_1 < tau_2), the exponent a of the
    common denominator t = 2^a of A = a1 + a2 and delta = a2 - a1 (raised to 5 with the
    numerators, as ``dppack._random.geometric_words`` does) and the numerators s_A, s_delta
    over it; None if t is not a power of two up to 2^62 or the thresholds are extreme."""
    delta, total = a2 - a1, a1 + a2
    t = max(total.denominator, delta.denominator)
    a = t.bit_length() - 1
    if t != 1 << a or a > 62:
        return None
    scale = 1 << max(5 - a, 0)
    s_total = total.numerator * (t // total.denominator) * scale
    s_delta = delta.numerator * (t // delta.denominator) * scale
    if s_total >= 1 << 62:
        return None
    choice = _random.word_index_plan([functools.partial(_side_bound, a1, a2, k) for k in (0, 1)])
    if choice is None:
        return None
    return choice, max(a, 5), s_total, s_delta


def _step_noise(n, a1, a2, rng):
    """Z_{t+1} given Z_t = n >= 0 entrywise (the caller mirrors it for Z_t = -n): one word
    for the side, one draw X with P(X >= x) = exp(-x / t) for the value.

    By Bayes's rule on the lazy walk (:func:`_laplace_reduce_noise`), P(y | n) is
    c_0 = (sinh(a1) / sinh(a2)) e^(-delta n) at y = n, plus K w(y), with w(y) = e^(-A j) at
    y = -j (j >= 1), e^(-delta y) for 0 <= y <= n, e^(-delta n - A j) at y = n + j, and the
    constant K = (1 - p) tanh(a2 / 2) = 2 sinh(A / 2) sinh(delta / 2) / sinh(a2) (p the
    keep probability sinh(a1 / 2)^2 / sinh(a2 / 2)^2; A = a1 + a2, delta = a2 - a1). With
    tau_1 = K / (e^A - 1) = (e^delta - 1) / (e^(2 a2) - 1) and tau_2 = 1 - e^delta tau_1
    (so tau_2 - tau_1 = e^delta sinh(a1) / sinh(a2), and K = (1 - tau_1)(1 - e^(-delta))),
    the law is that of: a side S, 0 with probability tau_1, 1 with tau_2 - tau_1, 2 with
    1 - tau_2 (:func:`dppack._random.word_index`, exact integer comparisons of one word);
    and one X, P(X >= x) = exp(-x / t) (:func:`dppack._random.geometric_unit_words`, over
    the common denominator t of A = s_A / t and delta = s_delta / t), independent of S:

    * S = 0: y = -(1 + floor(X / s_A)) (the left tail: tau_1 (1 - e^(-A)) e^(-A (j - 1))
      = K e^(-A j) at y = -j);
    * S > 0 and G = floor(X / s_delta) <= n: y = G (G is geometric of rate delta:
      (1 - tau_1)(1 - e^(-delta)) e^(-delta y) = K e^(-delta y));
    * S = 1 and G > n: y = n (probability (tau_2 - tau_1) e^(-delta (n + 1)) = c_0);
    * S = 2 and G > n: y = n + 1 + floor(X' / s_A), X' = X - s_delta (n + 1), which given
      X >= s_delta (n + 1) has the law of X (X is geometric on the integers: memoryless):
      (1 - tau_2) e^(-delta (n + 1)) (1 - e^(-A)) e^(-A (j - 1)) = K e^(-delta n - A j) at
      y = n + j.

    Each y has its exact conditional probability; the draws use integers only, beyond the
    two samplers' own exact decisions. Where the plan does not apply
    (:func:`_step_plan`): :func:`_step_pieces`, the same law.
    """
    plan = _step_plan(a1, a2)
    if plan is None:
        return _step_pieces(n, a1, a2, rng)
    choice, a, s_total, s_delta = plan
    side = _random.word_index(choice, n.size, rng)
    x = _random.geometric_unit_words(a, n.size, rng)
    if x.dtype == object:  # X reaches 2^62 (never, nearly): on Python integers
        return _step_python(n, side, x, s_total, s_delta)
    g = x // s_delta
    right = g > n
    right &= side == 2
    shift = n * s_delta  # s_delta (n + 1) where right (at most X there; elsewhere unused)
    shift += s_delta
    shift *= right
    x -= shift
    x //= s_total
    x += 1  # J = 1 + floor(X / s_A), or 1 + floor(X' / s_A) where right
    y = np.minimum(g, n, out=g)
    right = np.multiply(x, right)
    y += right
    np.negative(x, out=x)
    np.putmask(y, side == 0, x)  # (putmask: the masked copy, faster than a where= ufunc)
    return y


def _side_one(x, plan, rng):
    """:func:`_step_noise` for one entry x (a Python int; ``plan`` of :func:`_step_plan`):
    the side by one word (``dppack._random.word_index_one``), X by one two-word trial
    (``dppack._random.geometric_words_one`` of rate 1 / t), the same cases on Python
    integers, mirrored for x < 0."""
    choice, a, s_total, s_delta = plan
    side = _random.word_index_one(choice, rng)
    v = _random.geometric_words_one(1, 1 << a, rng)
    n = abs(x)
    if side == 0:
        y = -(1 + v // s_total)
    else:
        y = v // s_delta
        if y > n:
            y = n if side == 1 else n + 1 + (v - s_delta * (n + 1)) // s_total
    return -y if x < 0 else y


def _step_python(n, side, x, s_total, s_delta):
    """The cases of :func:`_step_noise` on Python integers (X as objects)."""
    out = []
    for m, k, v in zip(n.tolist(), side.tolist(), x.tolist()):
        g = v // s_delta
        if k == 0:
            out.append(-(1 + v // s_total))
        elif g <= m or k == 1:
            out.append(min(g, m))
        else:
            out.append(m + 1 + (v - s_delta * (m + 1)) // s_total)
    return np.array(out, dtype=object if max(map(abs, out), default=0) >= 1 << 62 else np.int64)


def _step_pieces(n, a1, a2, rng):
    """:func:`_step_noise` where its plan does not apply (rates without a power-of-two
    common denominator up to 2^62, extreme thresholds), by inversion: with one uniform,
    stay (y = n) with probability c_0 = (sinh(a1) / sinh(a2)) e^(-delta n), else the piece
    of the moved law, proportional to exp(-A j) at y = -j (j >= 1), exp(-delta y) for
    0 <= y <= n, exp(-delta n - A j) at y = n + j (A = a1 + a2, delta = a2 - a1;
    :func:`_laplace_reduce_noise`).

    The pieces have masses M1 = 1 / (e^A - 1), M2 = (1 - e^(-delta (n + 1))) /
    (1 - e^(-delta)) and M3 = e^(-delta n) M1 (S their sum, c'_1 = M1 / S,
    c'_2 = (M1 + M2) / S); one uniform U compared with c_0, c_0 + (1 - c_0) c'_1 and
    c_0 + (1 - c_0) c'_2 (:func:`dppack._random.cumulative_index`) picks stay or a piece,
    with exactly these probabilities. The floats: the sinh ratio from its exact bounds
    (within 2^-52), the rest with three library calls and a dozen correctly rounded
    operations on positive terms (c_1 = c_0 + q M1, c_2 = c_1 + q M2, q = (1 - c_0) / S);
    expm1 and the reciprocal err relatively by as much as their arguments (at most 2^-51),
    exp by delta n times as much, and 1 - c_0 errs by at most c_0's error in absolute
    terms, so each cumulative value is within a relative
    eta = 64 LIBM_ERROR + (delta max(n) + 64) 2^-50 (generous; one bound for the pass);
    exactly with
    :func:`_step_bounds` where the floats cannot decide. Then, with G >= 0,
    P(G >= k) = exp(-rate k) (one draw per moved entry, of its piece's rate):
    y = -(G_A + 1) in the first piece, G_delta mod (n + 1) in the middle (a geometric
    reduced mod n + 1 is the truncated geometric on 0..n: P(r) proportional to the sum over
    k of exp(-delta (r + k (n + 1))), that is to exp(-delta r)), n + G_A + 1 in the last.
    Each value is drawn with probability (its piece's mass / S) (its weight / the piece's
    mass): exactly the conditional law.
    """
    # (the scalars once per step, :func:`_reduce_constants`: expm1 within LIBM_ERROR as
    # NumPy's; any floats within the bounds give the same draws, decided exactly)
    delta, total, d, m1, expm1_d = _reduce_constants(a1, a2)
    ratio = float(_sinh_ratio_interval(a1, a2, 60)[0])
    nf = n.astype(np.float64)
    nf *= -d  # -delta n
    decay = np.exp(nf)
    nf -= d  # -delta (n + 1)
    m2 = np.expm1(nf, out=nf)
    m2 /= expm1_d
    stay = ratio * decay
    decay += 1.0
    decay *= m1
    decay += m2  # S = M1 (1 + e^(-delta n)) + M2
    q = 1.0 - stay
    q /= decay  # (1 - c_0) / S
    m2 *= q
    c1 = q
    c1 *= m1
    c1 += stay  # c_0 + (1 - c_0) M1 / S
    m2 += c1  # c_1 + (1 - c_0) M2 / S
    eta = 64 * _random.LIBM_ERROR + (d * float(n.max(initial=0)) + 64.0) * 2.0 ** -50
    piece = _random.cumulative_index(
        [stay, c1, m2], eta, functools.partial(_step_bounds, a1, a2, n), rng)
    out = n.copy()
    moved = np.flatnonzero(piece > 0)
    if not moved.size:
        return out
    piece, m = piece[moved], n[moved]
    # one geometric draw per moved entry, of rate A in the tails and delta in the middle,
    # over the common denominator t of the two dyadic rates
    # (:func:`dppack._random.geometric_words`; beyond t = 2^58, one call per rate)
    middle = piece == 2
    t = max(total.denominator, delta.denominator)
    if t <= (1 << 58):
        s = np.where(middle, delta.numerator * (t // delta.denominator),
                     total.numerator * (t // total.denominator))
        g = _random.geometric_words(t, s.astype(np.int64), m.size, rng)
    else:
        g = np.zeros(m.size, dtype=np.int64)
        for mask, rate in ((~middle, total), (middle, delta)):
            index = np.flatnonzero(mask)
            if index.size:
                g[index] = _geometric(rate, index.size, rng) - 1
    # y = -(G + 1) in the first piece, G mod (n + 1) in the middle, n + G + 1 in the last
    # (in place: the same integers)
    g += 1
    np.negative(g, out=g, where=piece == 1)
    np.add(g, m, out=g, where=piece == 3)
    middle = np.flatnonzero(middle)
    if middle.size:
        g[middle] = (g[middle] - 1) % (m[middle] + 1)
    out[moved] = g
    return out


class LaplaceNoiseReductionOnline:
    """Laplace noise reduction generated on demand: start at a private level and
    reduce the noise whenever a less private release is wanted, without fixing the last level
    in advance.

    The joint law of the releases equals that of :func:`LaplaceNoiseReduction` on the same
    levels (the same grid, from the first level, and the same integer rates), so releasing
    everything up to the current level costs only the current level. Each :meth:`reduce`
    draws the next level's integer noise from its exact conditional law given the current
    one (``_laplace_reduce_noise``: Bayes's rule on the integer lazy walk, sampled exactly
    with one word for the side and one geometric draw per entry), not from floats.

    Parameters
    ----------
    true_values : array_like
        The exact query answer (any shape), finite. The object keeps a copy: it is needed to
        release at later levels, so hold the object as you would hold the data.
    eps : float
        The first (most private) level, > 0 and finite.
    sensitivity : float
        l1-sensitivity of the whole ``true_values``.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps)`` under the label 'LaplaceNoiseReductionOnline' when
        the object is made (None: the session's accountant, if any); every :meth:`reduce` then
        charges the same accountant (see there). An overspend is refused before noise is drawn.

    Attributes
    ----------
    release : ndarray
        The release at the current level, g (round(x / g) + Z) entrywise, Z discrete Laplace
        with P(z) proportional to exp(-a abs(z)), a D <= eps (see :func:`LaplaceNoiseReduction`).
    eps : float
        The current level: the privacy cost of every release made so far.
    levels : list of float
        The levels released so far, in order.
    privacy_ : PrivacyLoss
        ``PrivacyLoss.pure(eps)``: what all the releases so far cost together.

    Raises
    ------
    ValueError
        Invalid values, level or sensitivity (before any noise is drawn); an overspend.

    References
    ----------
    Koufogiannis F, Han S, Pappas GJ (2015), arXiv:1504.00065; Ligett et al. (2017),
    NeurIPS 30; Canonne, Kamath and Steinke (2020), NeurIPS 33 (discrete Laplace).

    Examples
    --------
    Start at eps = 0.1, then ask for a less noisy answer at eps = 1: both releases together
    cost eps = 1.

    >>> from dppack import LaplaceNoiseReductionOnline
    >>> online = LaplaceNoiseReductionOnline(5.0, eps=0.1, sensitivity=1.0, random_state=1)
    >>> round(float(online.release), 2)
    -10.12
    >>> round(float(online.reduce(1.0)), 2)
    5.14
    >>> online.levels, online.privacy_
    ([0.1, 1.0], PrivacyLoss.pure(eps=1.0))
    """

    def __init__(self, true_values, eps, sensitivity, random_state=None, accountant=None):
        _backends.refuse_dask("LaplaceNoiseReductionOnline", true_values)
        _plans.run(_ONLINE_REDUCTION, true_values,
                   {"online": self, "eps": eps, "sensitivity": sensitivity}, random_state,
                   accountant)

    def _start(self, values, level, rng, loss):
        """The first level's release (the plan's draw), once charged ``loss``."""
        self._rng = rng
        self.privacy_ = loss
        self._values = values.copy()
        # reduce holds it from its level test to its state update (a copy gets its own: the
        # accountant's entry refuses a copy that another copy moved past, RunningCharge)
        self._lock = threading.Lock()
        # one grid for every level, from the first (largest-scale) one, as the batch path
        self._grid, self._units = level_grid(self.sensitivity, level, max(values.size, 1))
        self._rate = self._rate_of(level)
        t, s = self._rate.denominator, self._rate.numerator
        self._noise = _random.discrete_laplace_words(t, s, values.size, self._rng)
        self.eps = level
        self.levels = [level]
        self.release = self._released()
        return self

    def __getstate__(self):
        # the lock is not state: a pickled copy gets its own (as before the lock, an object
        # holding an accountant cannot be pickled: the accountant's lock refuses)
        state = dict(self.__dict__)
        state.pop("_lock", None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __repr__(self):
        """Current level, sensitivity and release (public); never the values or the noise."""
        n = len(self.levels)
        return model_repr(self, ("eps", "sensitivity"), released="release",
                          extra=(f"{n} level{'' if n == 1 else 's'} released",))

    def _reduction_loss(self, level):
        """What moving from the current level to ``level`` charges a pure accountant.

        All releases up to ``level`` together cost ``level`` (Thm 2.7). An accountant with
        delta 0 composes its spends basically (eps's add): it is charged the increment
        ``level - self.eps``, and its total is exact. An accountant with delta > 0 may compose
        pure spends in zCDP (eps^2 / 2 each), where increments would add up to less than
        level^2 / 2 (an under-count) and whole levels to more (sum of eps_i^2 / 2, and sum of
        eps_i basically: an over-count); its one entry is restated as ``level`` instead
        (``dppack.accounting.RunningCharge``), composed basically with the other spends.

        The increment is rounded up (one ulp, when the floating-point difference is below the
        exact one): the spends' sum is then never below ``level`` (each increment is at least
        the exact difference, the exact differences add up to ``level``, and the accountant
        sums with ``math.fsum``, correctly rounded).
        """
        increment = level - self.eps
        # the exact difference is increment + ((level - increment) - eps), the second term
        # computed exactly (Dekker's Fast2Sum: level > eps > 0, rounding to nearest)
        if (level - increment) - self.eps > 0:
            increment = math.nextafter(increment, math.inf)
        return accounting.PrivacyLoss.pure(increment)

    def reduce(self, eps):
        """Move to the less private level ``eps`` (> the current level) and return its release.

        The accountant charged when the object was made (if any) is charged under the label
        'LaplaceNoiseReductionOnline.reduce', before any noise is drawn, the increment
        ``eps`` - current level, rounded up, when its delta is 0 (its spends then add, and the
        total is ``eps``, never below). An accountant with delta > 0 (which may compose pure
        spends in zCDP, where increments would under-count and whole levels over-count) holds
        one entry, 'LaplaceNoiseReductionOnline', restated as ``PrivacyLoss.pure(eps)`` and
        composed basically with the total of its other spends (the path is not eps^2 / 2-zCDP;
        ``dppack.accounting.RunningCharge`` gives the proof). ``privacy_`` becomes
        ``PrivacyLoss.pure(eps)``. The level test, the charge and the state update hold one
        lock: two threads cannot both reduce from the same level; and a copy of the object,
        which shares the accountant's entry, cannot restate it after another copy moved it.

        Raises
        ------
        ValueError
            If ``eps`` is not finite or not larger than the current level; on an overspend, or
            when a copy of the object moved the accountant's entry first (the object is then
            unchanged).
        """
        level = _checks.check_finite_positive_scalar(eps, "eps")
        with self._lock:
            if not level > self.eps:
                raise _messages.value_error(
                    "eps must be larger than the current level {level!r}: noise "
                    "can only be reduced.", level=self.eps)
            if self._running is not None:
                # refused if a copy of this object moved the shared entry first
                self._running.restate(accounting.PrivacyLoss.pure(level),
                                      expected=self.privacy_)
            else:
                _plans.charge_step(self._accountant, lambda: self._reduction_loss(level),
                                   "LaplaceNoiseReductionOnline.reduce")
            self.privacy_ = accounting.PrivacyLoss.pure(level)
            rate = self._rate_of(level)
            if rate > self._rate:  # else: levels closer than the rates' resolution
                self._noise = _laplace_reduce_noise(self._noise, self._rate, rate, self._rng)
                self._rate = rate
            self.eps = level
            self.levels.append(level)
            self.release = self._released()
            return self.release

    def _rate_of(self, level):
        return level_fraction(self._units, level)

    def _released(self):
        if self._values.size <= _GRID_ONCE:
            return _random.release_on_grid(self._values, self._noise, self._grid)
        if getattr(self, "_on_grid", None) is None:  # round(x / g) g, once (the same floats)
            self._on_grid = _random.grid_values(self._values, self._grid)
        return _random.release_with_grid(self._values, self._on_grid, self._noise, self._grid)


class _OnlineReductionPlan(_plans.Plan):
    """:class:`LaplaceNoiseReductionOnline`'s first level: charged ``eps``, then the values,
    the level and the sensitivity are checked; an accountant with delta > 0 holds one running
    entry instead (:meth:`LaplaceNoiseReductionOnline._reduction_loss`). Later levels:
    :meth:`LaplaceNoiseReductionOnline.reduce` (``dppack._plans.charge_step``)."""

    name = "LaplaceNoiseReductionOnline"

    def loss(self, a):
        return accounting.PrivacyLoss.pure(_checks.check_finite_positive_scalar(a["eps"], "eps"))

    def prepare(self, true_values, a):
        values = _checks.as_finite_data(true_values, "true.values",
                                        size_message=TRUE_VALUES_SIZE_MESSAGE)[0]
        level = _checks.check_finite_positive_scalar(a["eps"], "eps")
        online = a["online"]
        online.sensitivity = _checks.check_finite_positive_scalar(a["sensitivity"], "sensitivity")
        return [(None, functools.partial(online._start, values, level))]

    def spend(self, bill, a):
        online = a["online"]
        online._accountant = bill.accountant
        online._running = None
        if bill.accountant is not None and bill.accountant.delta > 0:
            # one entry, restated at each reduce (_reduction_loss)
            online._running = accounting.RunningCharge(bill.accountant, bill.loss, bill.label)
            return bill.loss
        return bill.spend()


_ONLINE_REDUCTION = _OnlineReductionPlan()
