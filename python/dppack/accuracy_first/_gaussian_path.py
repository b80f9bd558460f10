"""Gaussian (Brownian) noise reduction, an extension of Ligett et al. (2017): the path of
:func:`GaussianNoiseReduction` and its exact discrete Gaussian increments. Public through
:mod:`dppack.accuracy_first.noise_reduction`."""

import fractions
import functools
import math

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random, accounting
from ._levels import TRUE_VALUES_SIZE_MESSAGE, as_float_vector


# --------------------------------------------------------------------------------------------
# Gaussian (Brownian) noise reduction — extension, not in Ligett et al.
# --------------------------------------------------------------------------------------------


def _variances(variances):
    s = as_float_vector(variances, "variances must be a numeric vector.")
    if s.size < 1 or not np.isfinite(s).all() or (s <= 0).any():
        raise _messages.value_error("variances must hold finite values > 0.")
    if (s[1:] >= s[:-1]).any():  # (finite values: np.diff(s) >= 0)
        raise _messages.value_error(
            "variances must be strictly decreasing (most private level first).")
    return s


def _brownian_loss(s, sensitivity):
    """rho = Delta_2^2 / (2 s_T): the path is post-processing of its last release, one
    Gaussian mechanism with variance s_T (Bun and Steinke 2016, Prop. 1.6)."""
    if sensitivity is None:
        raise _messages.value_error("sensitivity is needed to state the privacy of the path.")
    sens = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
    return accounting.PrivacyLoss.zcdp(sens * sens / (2.0 * float(s[-1])))


def GaussianNoiseReduction(true_values, variances, sensitivity=None, random_state=None,
                           accountant=None):
    """Release ``true_values`` at decreasing noise variances along one Brownian path.

    Extension of Ligett et al. 2017 (Whitehouse, Ramdas, Wu and Rogers 2022; NOT in Ligett et al.),
    on the integer grid with exact discrete Gaussian draws: the values are rounded to the grid
    g = 2^k of the smallest variance (``dppack._random.discrete_gaussian_grid``), V =
    round(x / g); Z_T ~ N_Z(0, p_T), then Z_t = Z_{t+1} + N_Z(0, p_t) for t = T-1..1,
    entrywise, with integer variances p (``gaussian_path_grid``) such that
    g^2 (p_T + ... + p_t) >= s_t; row t is g (V + Z_t).

    Privacy, what is proven: the whole path is a function of V + Z_T plus independent
    data-free noise, and V + Z_T is the discrete Gaussian mechanism with variance p_T on an
    integer vector of L2 sensitivity at most Delta_2 / g + sqrt(m) (m entries), hence
    rho-zCDP with rho = (Delta_2 / g + sqrt(m))^2 / (2 p_T) <= Delta_2^2 / (2 s_T) (Canonne,
    Kamath and Steinke 2020, Theorem 4; p_T is raised to keep the charge of the continuous
    path). This is what an accountant is charged, and it is exact.

    What is NOT exact: the continuous path's statement that the prefix up to t < T is as
    private as one Gaussian release of variance s_t. Here Z_t is a sum of independent discrete
    Gaussians, which is not a discrete Gaussian (Canonne, Kamath and Steinke 2020 discuss such
    sums; they are close to, but not equal to, N_Z(0, p_t + ... + p_T)), and no bound for
    that closeness is charged here. The proven statement for a prefix up to t is weaker:
    (Delta_2 / g + sqrt(m))^2 / (2 max_{j >= t} p_j)-zCDP (V + Z_t is one increment's
    discrete Gaussian mechanism plus independent noise). Use
    :func:`LaplaceNoiseReduction` (exact at every prefix) when prefixes are to be published
    at their own levels; the accuracy-first ERM uses the Laplace path.

    Parameters
    ----------
    true_values : array_like
        The exact query answer, finite.
    variances : array_like
        Strictly decreasing variances s_1 > ... > s_T > 0 (most private first).
    sensitivity : float, optional
        l2-sensitivity Delta_2 of the whole ``true_values``, > 0. Needed to charge an
        accountant (the variances alone do not state the privacy).
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.zcdp(sensitivity^2 / (2 s_T))`` under the label
        'GaussianNoiseReduction' (the whole path is returned; it costs its last level). None
        charges the session's accountant, if any; then ``sensitivity`` must be given.

    Returns
    -------
    ndarray
        Shape (T, ``*true_values.shape``); row t is the release with variance s_t.

    Raises
    ------
    ValueError
        Invalid values, variances or sensitivity, an accountant without ``sensitivity``, or an
        overspend (before any noise is drawn).

    References
    ----------
    Whitehouse J, Ramdas A, Wu ZS, Rogers R (2022). Brownian noise reduction: maximizing
    privacy subject to accuracy constraints. NeurIPS 35.
    Canonne CL, Kamath G, Steinke T (2020). The discrete Gaussian for differential privacy.
    NeurIPS 33.

    Examples
    --------
    Variances 4, 1 and 1/4 for a value of l2-sensitivity 1: the whole path is
    rho = 1 / (2 * 0.25) = 2 zCDP.

    >>> from dppack import GaussianNoiseReduction
    >>> path = GaussianNoiseReduction(5.0, variances=[4.0, 1.0, 0.25], sensitivity=1.0,
    ...                               random_state=1)
    >>> [round(float(v), 2) for v in path]
    [3.87, 4.5, 4.68]
    """
    _backends.refuse_dask("GaussianNoiseReduction", true_values, variances)
    s = _variances(variances)  # before the charge (its loss), checked once
    return _plans.run(_GAUSSIAN_REDUCTION, true_values,
                      {"variances": s, "sensitivity": sensitivity}, random_state, accountant)


class _GaussianReductionPlan(_plans.Plan):
    """:func:`GaussianNoiseReduction`: charged rho = Delta_2^2 / (2 s_T) (``variances`` the
    checked ones), then the values and the sensitivity are checked; without a sensitivity
    nothing is charged, and an accountant is refused after the values' checks."""

    name = "GaussianNoiseReduction"

    def loss(self, a):
        return _brownian_loss(a["variances"], a["sensitivity"])

    def admit(self, bill, a):
        a["charged"] = bill.accountant is not None  # (refused in prepare, after the values' checks)

    def prepare(self, true_values, a):
        values = _checks.as_finite_data(true_values, "true.values",
                                        size_message=TRUE_VALUES_SIZE_MESSAGE)[0]
        sensitivity = a["sensitivity"]
        if sensitivity is not None:
            _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
        elif a["charged"]:
            raise _messages.value_error("GaussianNoiseReduction needs the sensitivity to charge "
                                        "an accountant: give sensitivity (the l2-sensitivity of "
                                        "true.values).")
        return [(None, lambda rng, loss: gaussian_noise_path(values, a["variances"], sensitivity,
                                                             rng))]

    def spend(self, bill, a):
        if a["sensitivity"] is not None:
            return bill.spend()
        return None


_GAUSSIAN_REDUCTION = _GaussianReductionPlan()


def gaussian_path_grid(s, sensitivity, coordinates):
    """The grid exponent k and the integer variances of the path (:func:`_gaussian_path_grid`,
    computed once per arguments)."""
    return _gaussian_path_grid(tuple(np.asarray(s, dtype=np.float64).tolist()),
                               None if sensitivity is None else float(sensitivity),
                               int(coordinates))


@functools.lru_cache(maxsize=256)
def _gaussian_path_grid(s, sensitivity, coordinates):
    """The grid exponent k and the integer variances p_T, p_{T-1}, ..., p_1 of the path.

    g = 2^k is ``dppack._random.discrete_gaussian_grid`` (sqrt(s_T), Delta, m) (the last,
    smallest variance's grid). The first draw has p_T >= (s_T / g^2) ((Delta / g + r) /
    (Delta / g))^2, r = ceil(sqrt(m)) (rounding adds at most sqrt(m) grid steps to the L2
    sensitivity), so that (Delta / g + sqrt(m))^2 / (2 p_T) <= Delta^2 / (2 s_T): the charge
    of the continuous path is kept. The increments have p_t >= (s_t - s_{t+1}) / g^2. Each is
    rounded up to the sampler's proposal scale (``dppack._random.gaussian_variance``).
    Without a sensitivity, p_T >= s_T / g^2.
    """
    m = max(int(coordinates), 1)
    last = float(s[-1])
    if sensitivity is None:
        k = _random.discrete_gaussian_grid(math.sqrt(last))[0]
        widen = fractions.Fraction(1)
    else:
        k = _random.discrete_gaussian_grid(math.sqrt(last), float(sensitivity), m)[0]
        units = fractions.Fraction(float(sensitivity)) / fractions.Fraction(2) ** k
        r = math.isqrt(m - 1) + 1
        widen = ((units + r) / units) ** 2
    inverse_g2 = fractions.Fraction(2) ** (-2 * k)
    variances = [_random.gaussian_variance(
        math.ceil(fractions.Fraction(last) * inverse_g2 * widen))]
    for t in range(len(s) - 2, -1, -1):
        step = fractions.Fraction(float(s[t])) - fractions.Fraction(float(s[t + 1]))
        variances.append(_random.gaussian_variance(math.ceil(step * inverse_g2)))
    return k, tuple(variances)


GAUSSIAN_SMALL_PATH = 4  # up to this many values, the Brownian path runs entry by entry
# up to this many values, every increment is drawn in one call (the calls' fixed cost dominates)
GAUSSIAN_ROWS_PATH = 640


def _gaussian_increments(p, size, rng):
    """``size`` exact N_Z(0, p) draws: the block sampler
    (:func:`dppack._random.discrete_gaussian_blocks`) for sigma >= 64 and p < 2^56, CKS
    Algorithm 3 (:func:`dppack._random.discrete_gaussian`) otherwise; the same law."""
    if 64 * 64 <= p < (1 << 56):
        return _random.discrete_gaussian_blocks(p, size, rng)
    return np.asarray(_random.discrete_gaussian(p, 1, size, rng))


def _gaussian_increment_one(p, rng):
    """One draw of :func:`_gaussian_increments`, on Python integers."""
    if 64 * 64 <= p < (1 << 56):
        return _random.discrete_gaussian_block_one(p, rng)
    return _random.discrete_gaussian_one(p, rng)


def gaussian_noise_path(values, s, sensitivity, rng):
    """The Brownian path on the grid: shape (T, ``*values.shape``).

    Z_T ~ N_Z(0, p_T) and Z_t = Z_{t+1} + N_Z(0, p_t) entrywise (exact discrete Gaussian
    draws, :func:`_gaussian_increments`, with the grid and integer variances of
    :func:`gaussian_path_grid`; up to ``GAUSSIAN_SMALL_PATH`` values entry by entry on Python
    integers; beyond, every increment in one call of
    :func:`dppack._random.discrete_gaussian_ladder` (one word per trial) when every
    p_t >= 2^22, else up to ``GAUSSIAN_ROWS_PATH`` values of
    :func:`dppack._random.discrete_gaussian_blocks_rows`: the same law); row t is
    g (round(x / g) + Z_t).
    """
    x = np.asarray(values, dtype=np.float64)
    k, variances = gaussian_path_grid(s, sensitivity, x.size)
    T = len(variances)
    out = np.empty((T,) + x.shape)
    if x.size <= GAUSSIAN_SMALL_PATH:  # entry by entry on Python integers: the same law
        columns = []
        for _ in range(x.size):
            z, column = 0, []
            for p in variances:
                z += _gaussian_increment_one(p, rng)
                column.append(z)
            columns.append(column)
        wide = any(abs(v) >= (1 << 62) for column in columns for v in column)
        path = np.array(columns, dtype=object if wide else np.int64).reshape(x.size, T).T
        # row T-1-i of the release is path[i] (release_path_on_grid: the same floats as
        # release_on_grid row by row)
        out[...] = _random.release_path_on_grid(x, path[::-1], k).reshape(out.shape)
        return out
    if _random.LADDER_MIN_P <= min(variances) and max(variances) < (1 << 56):
        # the increments one word per trial (the same law, row by row), a pass of the
        # ladder at a time (the same words as one call); the path accumulated in place,
        # row i = Z_(T-i), and released pass by pass (no large temporaries)
        flat, released = x.ravel(), out.reshape(T, x.size)
        step = _random.ladder_columns(T)
        for start in range(0, x.size, step):
            stop = min(x.size, start + step)
            steps = _random.discrete_gaussian_ladder(variances, stop - start, rng)
            _random.accumulate_rows(steps)
            _random.release_path_on_grid(flat[start:stop], steps[::-1], k,
                                         out=released[:, start:stop])
        return out
    if x.size <= GAUSSIAN_ROWS_PATH and all(64 * 64 <= p < (1 << 56) for p in variances):
        # every increment in one call of the block sampler (the same law, row by row)
        steps = _random.discrete_gaussian_blocks_rows(variances, x.size, rng)
        path = np.cumsum(steps, axis=0)[::-1]
        out[...] = _random.release_path_on_grid(x, path, k).reshape(out.shape)
        return out
    rows = [_gaussian_increments(variances[0], x.size, rng)]
    for p in variances[1:]:
        rows.append(rows[-1] + _gaussian_increments(p, x.size, rng))
    path = np.stack(rows[::-1]) if not any(r.dtype == object for r in rows) else \
        np.array([r.tolist() for r in rows[::-1]], dtype=object)
    out[...] = _random.release_path_on_grid(x, path, k).reshape(out.shape)
    return out
