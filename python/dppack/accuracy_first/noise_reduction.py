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

Randomness (all through ``_random``): the batch Laplace path draws the least private level's
noise first (one Laplace per entry), then for each lower level, in order T-1, ..., 1, one
uniform per entry (keep or redraw) followed by one Laplace per entry (used only where redrawn).

Floating point, on purpose: the constructions rest on continuous laws (the lazy Laplace walk
needs Lap(b_t) = mixture of Lap(b_{t+1}) and Lap(b_{t+1}) + Lap(b_t) exactly, and the Brownian
path needs Gaussian increments that add up to Gaussians), which the discrete Laplace and
discrete Gaussian of ``_random`` do not satisfy (a sum of discrete Gaussians is not a discrete
Gaussian), so the exact samplers cannot be dropped in without a new privacy proof.

Accounting: every release takes a trailing ``accountant`` (None: the session's, if any), which
is charged before any noise is drawn: the batch Laplace path its last level ``eps_T`` (the
whole path is returned), the Brownian path rho = sensitivity^2 / (2 s_T), the online sampler
as documented on :class:`LaplaceNoiseReductionOnline`.
"""

import fractions
import math
import threading

import numpy as np

from .. import _checks, _frames, _messages, _random, accounting
from .._repr import model_repr

__all__ = [
    "GaussianNoiseReduction",
    "LaplaceNoiseReduction",
    "LaplaceNoiseReductionOnline",
    "privacy_level_grid",
]


# --------------------------------------------------------------------------------------------
# Checks
# --------------------------------------------------------------------------------------------


def check_levels(eps, name="eps"):
    """``eps`` as a 1-d float array of finite, strictly increasing levels > 0."""
    levels = _checks.as_numeric_array(eps, f"{name} must be a numeric vector.").ravel()
    if levels.size < 1:
        raise _messages.value_error(f"{name} must hold at least one privacy level.")
    _checks.check_positive_values(levels, f"Every value of {name} must be finite and > 0.")
    if np.any(np.diff(levels) <= 0):
        raise _messages.value_error(
            f"{name} must be strictly increasing (most private level first).")
    return levels


TRUE_VALUES_SIZE_MESSAGE = "true.values must hold at least one value."


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
# Laplace noise reduction
# --------------------------------------------------------------------------------------------


def laplace_noise_path(shape, sensitivity, eps, rng):
    """The noise eta_1, ..., eta_T of the batch Laplace path, shape (T, *shape).

    eta_T ~ Lap(Delta / eps_T) entrywise; for t = T-1..1 each entry keeps eta_{t+1} with
    probability (eps_t / eps_{t+1})^2, else adds a fresh Lap(Delta / eps_t). Then every eta_t is
    Lap(Delta / eps_t) and releasing v + eta_1..v + eta_t is eps_t-DP (Thm 2.7). ``eps`` and
    ``sensitivity`` are assumed checked.
    """
    T = eps.size
    path = np.empty((T,) + tuple(shape))
    path[T - 1] = _random.laplace(sensitivity / eps[T - 1], shape, rng)
    for t in range(T - 2, -1, -1):
        keep = _random.uniform(rng, shape) < (eps[t] / eps[t + 1]) ** 2
        fresh = _random.laplace(sensitivity / eps[t], shape, rng)
        path[t] = np.where(keep, path[t + 1], path[t + 1] + fresh)
    return path


def LaplaceNoiseReduction(true_values, eps, sensitivity, random_state=None, accountant=None):
    """Release ``true_values`` at every privacy level of ``eps`` by Laplace noise reduction.

    Batch form (Ligett et al. 2017, Algorithm 1): the least private release is
    drawn first and each more private one is a lazy random walk away from it, so the release
    at level t is ``true_values`` + Lap(sensitivity / eps_t) entrywise and publishing the
    releases of levels 1..t costs eps_t (not eps_1 + ... + eps_t).

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

    Examples
    --------
    A count of sensitivity 1 at three levels; each row is less noisy than the one above,
    and publishing all three costs eps = 1:

    >>> path = LaplaceNoiseReduction(5.0, eps=[0.1, 0.5, 1.0], sensitivity=1.0,
    ...                              random_state=1)
    >>> path.shape
    (3,)
    >>> [round(float(v), 2) for v in path]
    [-2.18, 2.54, 5.02]
    >>> LaplaceNoiseReduction([5.0, 6.0], [0.1, 0.5, 1.0], 1.0, random_state=1).shape
    (3, 2)
    """
    _frames.refuse_dask("LaplaceNoiseReduction", true_values)
    bill = accounting.charge(
        accountant, lambda: accounting.PrivacyLoss.pure(check_levels(eps)[-1]),
        "LaplaceNoiseReduction")
    values = _checks.as_finite_data(true_values, "true.values",
                                    size_message=TRUE_VALUES_SIZE_MESSAGE)[0]
    levels = check_levels(eps)
    sens = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
    rng = _random.as_generator(random_state)
    bill.spend()
    return values + laplace_noise_path(values.shape, sens, levels, rng)


def laplace_reduce_noise(noise, scale_from, scale_to, rng):
    """One step of the online sampler: eta_{t+1} given eta_t = ``noise``.

    ``noise`` has Lap(b1) entries, b1 = ``scale_from`` > b2 = ``scale_to``. Each entry stays
    unchanged with probability w0 = (b2/b1) exp(-|x| (1/b2 - 1/b1)); otherwise it is drawn from
    the density proportional to exp(-|y|/b2 - |x - y|/b1), in three exponential pieces (for
    x >= 0; mirrored for x < 0). Draws three uniforms per entry: stay, piece, position.
    """
    x = np.asarray(noise, dtype=np.float64)
    b1, b2 = scale_from, scale_to
    a = np.abs(x)
    sign = np.where(x < 0, -1.0, 1.0)
    r1 = 1.0 / b2 + 1.0 / b1
    r2 = 1.0 / b2 - 1.0 / b1
    u_stay = _random.uniform(rng, x.shape)
    u_piece = _random.uniform(rng, x.shape)
    u_value = _random.uniform(rng, x.shape)
    stay = u_stay < (b2 / b1) * np.exp(-a * r2)
    # masses of the three pieces, all divided by exp(-a/b1) (§2.2): y < 0, 0 <= y <= a, y > a
    m1 = np.full(x.shape, 1.0 / r1)
    m2 = -np.expm1(-r2 * a) / r2
    m3 = np.exp(-r2 * a) / r1
    pick = u_piece * (m1 + m2 + m3)
    # inverse CDFs: Exp(r1) for the tails, Exp(r2) truncated to [0, a] in the middle
    tail = -np.log1p(-u_value) / r1
    middle = -np.log1p(u_value * np.expm1(-r2 * a)) / r2
    y = np.where(pick < m1, -tail, np.where(pick < m1 + m2, np.minimum(middle, a), a + tail))
    return np.where(stay, x, sign * y)


class LaplaceNoiseReductionOnline:
    """Laplace noise reduction generated on demand: start at a private level and
    reduce the noise whenever a less private release is wanted, without fixing the last level
    in advance.

    The joint law of the releases equals that of :func:`LaplaceNoiseReduction` on the same
    levels, so releasing everything up to the current level costs only the current level.

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
        The release at the current level (``true_values`` + Lap(sensitivity / eps) entrywise).
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
    NeurIPS 30.

    Examples
    --------
    Start at eps = 0.1, then ask for a less noisy answer at eps = 1: both releases together
    cost eps = 1.

    >>> online = LaplaceNoiseReductionOnline(5.0, eps=0.1, sensitivity=1.0, random_state=1)
    >>> round(float(online.release), 2)
    5.24
    >>> round(float(online.reduce(1.0)), 2)
    2.3
    >>> online.levels, online.privacy_
    ([0.1, 1.0], PrivacyLoss.pure(eps=1.0))
    """

    def __init__(self, true_values, eps, sensitivity, random_state=None, accountant=None):
        _frames.refuse_dask("LaplaceNoiseReductionOnline", true_values)
        bill = accounting.charge(
            accountant,
            lambda: accounting.PrivacyLoss.pure(_checks.check_finite_positive_scalar(eps, "eps")),
            "LaplaceNoiseReductionOnline")
        values = _checks.as_finite_data(true_values, "true.values",
                                        size_message=TRUE_VALUES_SIZE_MESSAGE)[0]
        level = _checks.check_finite_positive_scalar(eps, "eps")
        self.sensitivity = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
        self._rng = _random.as_generator(random_state)
        self._accountant = bill.accountant
        if bill.accountant is not None and bill.accountant.delta > 0:
            # one entry, restated at each reduce (_reduction_loss)
            self._running = accounting.RunningCharge(bill.accountant, bill.loss, bill.label)
            self.privacy_ = bill.loss
        else:
            self._running = None
            self.privacy_ = bill.spend()
        self._values = values.copy()
        # reduce holds it from its level test to its state update (a copy gets its own: the
        # accountant's entry refuses a copy that another copy moved past, RunningCharge)
        self._lock = threading.Lock()
        self._noise = _random.laplace(self.sensitivity / level, values.shape, self._rng)
        self.eps = level
        self.levels = [level]
        self.release = self._values + self._noise

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
        exact = fractions.Fraction(level) - fractions.Fraction(self.eps)
        if fractions.Fraction(increment) < exact:
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
                accountant = (accounting.UNCHARGED if self._accountant is None
                              else self._accountant)
                accounting.charge(accountant, lambda: self._reduction_loss(level),
                                  "LaplaceNoiseReductionOnline.reduce").spend()
            self.privacy_ = accounting.PrivacyLoss.pure(level)
            self._noise = laplace_reduce_noise(self._noise, self.sensitivity / self.eps,
                                               self.sensitivity / level, self._rng)
            self.eps = level
            self.levels.append(level)
            self.release = self._values + self._noise
            return self.release


# --------------------------------------------------------------------------------------------
# Gaussian (Brownian) noise reduction — extension, not in Ligett et al.
# --------------------------------------------------------------------------------------------


def _variances(variances):
    s = _checks.as_numeric_array(variances, "variances must be a numeric vector.").ravel()
    if s.size < 1 or not np.all(np.isfinite(s)) or np.any(s <= 0):
        raise _messages.value_error("variances must hold finite values > 0.")
    if np.any(np.diff(s) >= 0):
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

    Extension of Ligett et al. 2017 (Whitehouse, Ramdas, Wu and Rogers 2022; NOT in Ligett et al.):
    eta_T ~ N(0, s_T), then eta_t = eta_{t+1} + N(0, s_t - s_{t+1}) for t = T-1..1, entrywise.
    Releasing the prefix up to t is as private as one Gaussian release with variance s_t:
    rho_t-zCDP with rho_t = Delta_2^2 / (2 s_t) for l2-sensitivity Delta_2.

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

    Examples
    --------
    Variances 4, 1 and 1/4 for a value of l2-sensitivity 1: the whole path is
    rho = 1 / (2 * 0.25) = 2 zCDP.

    >>> path = GaussianNoiseReduction(5.0, variances=[4.0, 1.0, 0.25], sensitivity=1.0,
    ...                               random_state=1)
    >>> [round(float(v), 2) for v in path]
    [6.46, 5.88, 5.17]
    """
    _frames.refuse_dask("GaussianNoiseReduction", true_values, variances)
    bill = accounting.charge(
        accountant, lambda: _brownian_loss(_variances(variances), sensitivity),
        "GaussianNoiseReduction")
    values = _checks.as_finite_data(true_values, "true.values",
                                    size_message=TRUE_VALUES_SIZE_MESSAGE)[0]
    s = _variances(variances)
    if sensitivity is not None:
        _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
    elif bill.accountant is not None:
        raise _messages.value_error("GaussianNoiseReduction needs the sensitivity to charge an "
                         "accountant: give sensitivity (the l2-sensitivity of true.values).")
    rng = _random.as_generator(random_state)
    if sensitivity is not None:
        bill.spend()
    T = s.size
    path = np.empty((T,) + values.shape)
    path[T - 1] = _random.normal(math.sqrt(s[T - 1]), values.shape, rng)
    for t in range(T - 2, -1, -1):
        path[t] = path[t + 1] + _random.normal(math.sqrt(s[t] - s[t + 1]), values.shape, rng)
    return values + path
