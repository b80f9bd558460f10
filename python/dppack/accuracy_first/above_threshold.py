"""InteractiveAboveThreshold (Ligett et al. 2017, Algorithm 2): AboveThreshold whose queries may
be chosen after seeing earlier private outputs, with its calibrations for accuracy-first ERM.

The calibrations bound exactly, in the worst case over the queries, the probability that the
test halts at a hypothesis with excess risk above alpha or fails to halt at one with excess 0
(``"exact"``), or use the union bound of Ligett et al. (``"paper"``) or the authors' code
(``"tuned"``). Derivations: :doc:`/guide/accuracy-first-derivations`.
"""

import functools
import math

import numpy as np

from .. import _checks, _messages, _plans, _random, accounting
from .._repr import model_repr

__all__ = [
    "InteractiveAboveThreshold",
    "above_threshold_calibration",
    "above_threshold_failure",
    "laplace_test_calibration",
]

CALIBRATIONS = ("exact", "paper", "tuned")
CALIBRATION_MESSAGE = "calibration must be one of 'exact', 'paper' or 'tuned'."


class InteractiveAboveThreshold:
    """AboveThreshold over queries that may depend on the data through earlier private outputs.

    The threshold gets Lap(Delta / eps_1) noise once, each query value fresh Lap(2 Delta / eps_2)
    noise (eps = eps_1 + eps_2, exact on a grid); the mechanism halts at the first noisy value
    at or above the noisy threshold. With fixed queries it is eps-DP; with queries from an
    (eps_1, ..., eps_T) prefix-private mechanism, halting at t is (eps + eps_t)-ex-post private
    (Lemma 2.8; :doc:`/guide/accuracy-first-derivations`).

    Parameters
    ----------
    data : object
        The data, handed to every query function.
    eps, threshold, sensitivity : float
        The budget eps_A (> 0), the threshold W and Delta, the largest sensitivity of any
        query (> 0), all finite.
    threshold_share : float, default 0.5
        The share eps_1 / eps of the budget spent on the threshold noise, in (0, 1); any split
        is eps-DP (Lyu, Su and Li 2017, Algorithm 1).
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps)`` once, when the object is made, however many queries
        it answers; None charges the session's accountant, if any.

    Attributes
    ----------
    privacy_ : PrivacyLoss
        ``PrivacyLoss.pure(eps)``.
    halted : bool
        True once a query passed; no query is answered after that.
    n_queries : int
    halt_index : int or None
        0-based index of the query that passed.

    Raises
    ------
    ValueError
        Invalid settings or an overspend (before the threshold noise is drawn).

    References
    ----------
    Ligett et al. (2017), Accuracy first, NeurIPS 30, Algorithm 2 and Lemma 2.8.
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Section 3.6.

    Examples
    --------
    Which of four counts (sensitivity 1) is the first above 30?

    >>> from dppack import InteractiveAboveThreshold
    >>> import numpy as np
    >>> counts = np.array([3.0, 9.0, 40.0, 80.0])
    >>> above = InteractiveAboveThreshold(counts, eps=1.0, threshold=30.0, sensitivity=1.0,
    ...                                   random_state=1)
    >>> [above.query(lambda data, i=i: data[i]) for i in range(3)]
    [False, False, True]
    >>> above.halt_index, above.privacy_
    (2, PrivacyLoss.pure(eps=1.0))
    """

    def __init__(self, data, eps, threshold, sensitivity, threshold_share=0.5,
                 random_state=None, accountant=None):
        arguments = {"test": self, "eps": eps, "threshold": threshold,
                     "sensitivity": sensitivity, "threshold_share": threshold_share}
        _plans.run(_ABOVE_THRESHOLD, data, arguments, random_state, accountant)

    def _start(self, rng, loss):
        """The threshold's noise (the plan's draw), once charged ``loss``."""
        self._rng = rng
        self.privacy_ = loss
        # Ligett et al. (2017) Algorithm 2, step 1: the threshold noise, Lap(Delta / eps_1) (Lap(2
        # Delta / eps) for the even split), is drawn once; its grid is the one every query noise
        # uses too
        self._threshold_eps = self.eps * self.threshold_share
        self._query_eps = self.eps * (1.0 - self.threshold_share) / 2.0
        self._grid = _random.laplace_grid(self.sensitivity, self._threshold_eps)[0]
        self._noisy_threshold = self._noise(self.threshold, self._threshold_eps)
        self.halted = False
        self.n_queries = 0
        self.halt_index = None
        return self

    def query(self, f):
        """Answer the query ``f`` (a function of the data returning one number, or the number
        f(D) itself): True if it is above the threshold, which halts the mechanism.

        Raises
        ------
        ValueError
            If the mechanism has already halted, or the query value is not a finite number.
        """
        if self.halted:
            raise _messages.value_error(
                "InteractiveAboveThreshold has halted: it answers no more queries.")
        value = _checks.check_number(f(self._data) if callable(f) else f, "The query value",
                                     finite=True)
        return self._answer(value)

    def _noise(self, value, budget):
        """value rounded to the grid plus exact discrete Laplace noise of scale Delta / budget."""
        return float(_random.discrete_laplace_noise(
            np.array([value]), self.sensitivity, budget, self._rng,
            coordinates=1, grid=self._grid)[0])

    def _answer(self, value):
        # Ligett et al. (2017) Algorithm 2, step 3: fresh Lap(2 Delta / eps_2) per query (Lap(4
        # Delta / eps) for the even split)
        above = self._noise(value, self._query_eps) >= self._noisy_threshold
        if above:
            self.halted = True
            self.halt_index = self.n_queries
        self.n_queries += 1
        return bool(above)

    def __repr__(self):
        """Parameters and progress; never the data or the noisy threshold."""
        state = (f"halted at query {self.halt_index}" if self.halted else "running")
        return model_repr(self, ("eps", "threshold", "sensitivity", "threshold_share"),
                          released=None, extra=(f"{self.n_queries} queries answered", state))


class _AboveThresholdPlan(_plans.Plan):
    """:class:`InteractiveAboveThreshold`: charged ``eps`` once, then its settings are
    checked; the draw is the threshold's noise (the queries draw theirs as they come)."""

    name = "InteractiveAboveThreshold"

    def loss(self, a):
        return accounting.PrivacyLoss.pure(_checks.check_finite_positive_scalar(a["eps"], "eps"))

    def prepare(self, data, a):
        test = a["test"]
        test.eps = _checks.check_finite_positive_scalar(a["eps"], "eps")
        test.threshold = _checks.check_number(a["threshold"], "threshold", finite=True)
        test.sensitivity = _checks.check_finite_positive_scalar(a["sensitivity"], "sensitivity")
        test.threshold_share = _checks.check_probability(a["threshold_share"], "threshold.share")
        test._data = data
        return [(None, test._start)]


_ABOVE_THRESHOLD = _AboveThresholdPlan()


# --------------------------------------------------------------------------------------------
# The failure probability, exactly (guide: accuracy-first-derivations, "Calibration")
# --------------------------------------------------------------------------------------------

_LOG_HALF = math.log(0.5)
# the threshold noise is integrated over |rho| <= TAIL b1; the mass left out, exp(-TAIL), is
# added to the failure probability
_TAIL = 60.0
# the quadrature's absolute tolerance, below the tail mass exp(-60) = 8.8e-27
_FLOOR = 1e-28
# the smallest gamma the exact calibrations accept: well above the floor exp(-TAIL) of the
# failure probabilities they compute
_MIN_EXACT_GAMMA = 1e-20
# the exact calibration solves for failure <= gamma (1 - slack) in the continuous model, so
# that the discrete noises' check (_discrete_failure) passes at once
_GAMMA_SLACK = 1e-3


def _log_above(x, b):
    """log P(Lap(b) > x)."""
    if x >= 0.0:
        return _LOG_HALF - x / b
    return math.log1p(-0.5 * math.exp(x / b))


def _below(x, b):
    """P(Lap(b) <= x)."""
    if x < 0.0:
        return 0.5 * math.exp(x / b)
    return -math.expm1(_LOG_HALF - x / b)


def _worst_failure(margin, lead, b1, b2, T, tolerance=1e-11):
    """(F_above, F_perfect) for margin = alpha - s, lead = s, scales b1 (0: independent tests) and
    b2, T queries; each raised by the quadrature's error estimate and the truncated tail.
    ``tolerance`` is relative to the failure probability itself."""
    from scipy import integrate  # lazily: `import dppack` stays light

    if b1 == 0.0:
        log_pass = _log_above(-margin, b2)
        return (-math.expm1(T * log_pass),
                1.0 - math.exp((T - 1) * log_pass) * _below(lead, b2))

    def density(rho):
        return math.exp(-abs(rho) / b1) / (2.0 * b1)

    # given rho: 1 - S^T, and 1 - S^(T-1) (1 - A) = (1 - S^(T-1)) + S^(T-1) A, with
    # S = P(one query above alpha does not halt), A = P(the query at 0 does not halt); sums of
    # non-negative terms, computed without cancellation
    def above(rho):
        return density(rho) * -math.expm1(T * _log_above(rho - margin, b2))

    def perfect(rho):
        log_pass = (T - 1) * _log_above(rho - margin, b2)
        return density(rho) * (-math.expm1(log_pass)
                               + math.exp(log_pass + _log_above(rho + lead, b2)))

    end = _TAIL * b1
    # the kinks of the integrands, and where (1 - P(halt))^T turns from 1 to 0
    points = sorted({p for p in (0.0, margin, -lead, margin - b2 * math.log(T))
                     if -end < p < end})
    out = []
    for f in (above, perfect):
        value, error = integrate.quad(f, -end, end, points=points or None, limit=500,
                                      epsabs=_FLOOR, epsrel=tolerance)
        out.append(min(1.0, max(0.0, value + error + math.exp(-_TAIL))))
    return tuple(out)


def above_threshold_failure(alpha, threshold, threshold_scale, query_scale, n_queries):
    """The probability that AboveThreshold's accuracy guarantee fails, exactly, in the worst
    case over the queries.

    The test fails when (a) it halts at a query whose excess risk e_t exceeds alpha, or (b) it
    has not halted by the first query with e_t = 0 (continuous Laplace noises; derivation:
    :doc:`/guide/accuracy-first-derivations`).

    Parameters
    ----------
    alpha : float
        The accuracy target, > 0.
    threshold : float
        W, the threshold on f = -(excess): it aims to halt once the excess is below -W.
    threshold_scale, query_scale : float
        b1 >= 0 and b2 > 0, the scales of the threshold noise (0: none) and of each query's.
    n_queries : int
        T >= 1.

    Returns
    -------
    dict
        ``failure``, the worst-case probability of (a) or (b), the larger of ``all_above``
        (every e_t just above alpha) and ``perfect_last`` (then e_T = 0).

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett et al. (2017), Accuracy first, NeurIPS 30, Algorithm 2.
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Theorem 3.24.

    Examples
    --------
    The paper's calibration for alpha = gamma = 0.1, Delta = 0.001, T = 100 fails far less
    often than gamma:

    >>> from dppack import above_threshold_failure
    >>> import math
    >>> eps = 16 * 0.001 * math.log(2 * 100 / 0.1) / 0.1
    >>> out = above_threshold_failure(0.1, -0.05, 2 * 0.001 / eps, 4 * 0.001 / eps, 100)
    >>> out["failure"] < 1e-3
    True
    """
    alpha = _checks.check_finite_positive_scalar(alpha, "alpha")
    s = -_checks.check_number(threshold, "threshold", finite=True)
    b1 = _checks.check_number(threshold_scale, "threshold.scale", finite=True)
    if b1 < 0.0:
        raise _messages.value_error("threshold.scale must be >= 0.")
    b2 = _checks.check_finite_positive_scalar(query_scale, "query.scale")
    T = _checks.check_whole(n_queries, "n.queries", 1)
    above, perfect = _worst_failure(alpha - s, s, float(b1), b2, T)
    return {"failure": max(above, perfect), "all_above": above, "perfect_last": perfect}


# --------------------------------------------------------------------------------------------
# The calibrations
# --------------------------------------------------------------------------------------------


def _largest_scale(failure, target):
    """The largest b2 <= 1e3 (to a relative 1e-10) with failure(b2) <= target (increasing)."""
    from scipy import optimize  # lazily: `import dppack` stays light

    low, high = math.log(1e-7), math.log(1e3)
    if failure(math.exp(high)) <= target:
        return math.exp(high)
    if failure(math.exp(low)) > target:  # pragma: no cover - gamma >= _MIN_EXACT_GAMMA
        raise _messages.value_error(
            "The exact calibration found no noise scale small enough for this gamma.")
    root = optimize.brentq(lambda x: failure(math.exp(x)) - target, low, high, xtol=1e-10)
    while failure(math.exp(root)) > target:  # the feasible side of the root
        root -= 1e-10
    return math.exp(root)


@functools.lru_cache(maxsize=128)
def _exact_shape(T, gamma):
    """The exact calibration for alpha = 1, Delta = 1: (eps_A, s, threshold share); eps_A scales as
    Delta / alpha and s as alpha."""
    from scipy import optimize  # lazily: `import dppack` stays light

    target = gamma * (1.0 - _GAMMA_SLACK)

    def shape(x):
        s = 1.0 / (1.0 + math.exp(-x[0]))
        ratio = math.exp(x[1])  # b1 / b2
        b2 = _largest_scale(
            lambda b: max(_worst_failure(1.0 - s, s, ratio * b, b, T, 1e-8)), target)
        return (1.0 / ratio + 2.0) / b2, s, (1.0 / ratio) / (1.0 / ratio + 2.0)

    # from the paper's shape: s = alpha / 2, b1 = b2 / 2 (an even split of eps_A)
    start = np.array([0.0, math.log(0.5)])
    best = optimize.minimize(lambda x: shape(x)[0], start, method="Nelder-Mead",
                             options={"xatol": 1e-3, "fatol": 1e-2})
    return min(shape(best.x), shape(start))


@functools.lru_cache(maxsize=128)
def _exact_test_shape(K, gamma):
    """The exact calibration of K independent Laplace tests, alpha = Delta = 1: (1 / b, s)."""
    from scipy import optimize  # lazily: `import dppack` stays light

    target = gamma * (1.0 - _GAMMA_SLACK)

    def scale(s):
        return _largest_scale(lambda b: max(_worst_failure(1.0 - s, s, 0.0, b, K)), target)

    best = optimize.minimize_scalar(lambda s: -scale(s), bounds=(1e-3, 1.0 - 1e-3),
                                    method="bounded", options={"xatol": 1e-5})
    s = min((float(best.x), 0.5), key=lambda v: 1.0 / scale(v))  # never worse than alpha / 2
    return 1.0 / scale(s), s


def _discrete_failure(alpha, s, eps, share, delta, T):
    """The worst-case failure probability of :class:`InteractiveAboveThreshold` as drawn: its grid
    noises' actual scales, margins narrowed by 3 g."""
    k, _, t, u = _random.laplace_grid(delta, share * eps)
    g = 2.0 ** k
    _, _, t2, u2 = _random.laplace_grid(delta, (1.0 - share) * eps / 2.0, 1, k)
    return max(_worst_failure(alpha - s - 3.0 * g, s - 3.0 * g, g * t / u, g * t2 / u2, T))


def _calibration_arguments(alpha, gamma, sensitivity, count, count_name, calibration):
    """The checked arguments of the two calibrations, in order."""
    out = (_checks.check_finite_positive_scalar(alpha, "alpha"),
           _checks.check_probability(gamma, "gamma"),
           _checks.check_finite_positive_scalar(sensitivity, "sensitivity"),
           _checks.check_whole(count, count_name, 1),
           _checks.check_choice(calibration, "calibration", CALIBRATIONS, CALIBRATION_MESSAGE))
    if out[4] == "exact" and out[1] < _MIN_EXACT_GAMMA:
        raise _messages.value_error(
            "gamma must be >= 1e-20 for calibration = 'exact' (its failure probabilities are "
            "computed to within 1e-26); use calibration = 'paper' for a smaller gamma.")
    return out


def above_threshold_calibration(alpha, gamma, sensitivity, n_levels, calibration="exact"):
    """The AboveThreshold budget, threshold and budget split that make accuracy-first meet
    its target.

    On success the run halts only at a hypothesis with excess risk <= alpha, and no later
    than the first with excess 0. ``"exact"`` (default): the threshold and split of least
    eps_A whose exact worst-case failure probability is <= gamma, about 4 times smaller than
    ``"paper"`` (Algorithm 3, a union bound); ``"tuned"``: the authors' code, not proven
    (:doc:`/guide/accuracy-first-derivations`).

    Parameters
    ----------
    alpha : float
        Target excess empirical risk, > 0.
    gamma : float
        Failure probability, in (0, 1); >= 1e-20 for ``"exact"``.
    sensitivity : float
        Delta of the excess-risk queries.
    n_levels : int
        T, the number of privacy levels (queries) at most.
    calibration : {'exact', 'paper', 'tuned'}

    Returns
    -------
    dict
        ``eps`` (eps_A), ``threshold`` (W), ``threshold_share`` (eps_1 / eps_A) and
        ``failure`` (:func:`above_threshold_failure`).

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett et al. (2017), Accuracy first, NeurIPS 30, Algorithm 3.
    Dwork C, Roth A (2014), The algorithmic foundations of differential privacy, Theorem 3.24.

    Examples
    --------
    Excess risk within alpha = 0.1 with probability 0.95, queries of sensitivity 0.01, at
    most 100 levels:

    >>> from dppack import above_threshold_calibration
    >>> c = above_threshold_calibration(0.1, 0.05, 0.01, n_levels=100)
    >>> round(c["eps"], 2), round(c["threshold"], 2), round(c["threshold_share"], 2)
    (3.82, -0.03, 0.33)
    >>> c["failure"] <= 0.05
    True
    >>> c = above_threshold_calibration(0.1, 0.05, 0.01, n_levels=100, calibration="paper")
    >>> round(c["eps"], 4), c["threshold"]  # 16 * 0.01 * ln(4000) / 0.1, -alpha / 2
    (13.2705, -0.05)
    >>> c = above_threshold_calibration(0.1, 0.05, 0.01, n_levels=100, calibration="tuned")
    >>> round(c["eps"], 4), round(c["threshold"], 4)
    (4.4819, -0.0161)
    """
    return dict(_above_threshold_calibration(
        *_calibration_arguments(alpha, gamma, sensitivity, n_levels, "n.levels", calibration)))


@functools.lru_cache(maxsize=256)
def _above_threshold_calibration(alpha, gamma, delta, T, calibration):
    """:func:`above_threshold_calibration` for checked arguments (cached: every fit asks twice)."""
    if calibration == "exact":
        cost, s, share = _exact_shape(T, gamma)
        eps, s = cost * delta / alpha, s * alpha
        # the discrete noises as drawn (scales raised by <= 2^-19, comparisons moved by < 3 g)
        for _ in range(100):
            if _discrete_failure(alpha, s, eps, share, delta, T) <= gamma:
                break
            eps *= 1.0 + 1e-4
        else:  # pragma: no cover - the slack of _GAMMA_SLACK makes one pass enough
            raise _messages.value_error("The exact AboveThreshold calibration failed.")
    elif calibration == "paper":
        eps, s, share = 16.0 * delta * math.log(2.0 * T / gamma) / alpha, alpha / 2.0, 0.5
    else:
        b = alpha / (4.0 * math.log(1.5 ** 0.75 * math.sqrt(T) / gamma))
        s = alpha / 4.0 + 0.75 * b * math.log(1.5) - 0.5 * b * math.log(T)
        eps, share = 2.0 * delta / b, 0.5
    b1, b2 = delta / (share * eps), 2.0 * delta / ((1.0 - share) * eps)
    return {"eps": eps, "threshold": -s, "threshold_share": share,
            "failure": max(_worst_failure(alpha - s, s, b1, b2, T))}


def laplace_test_calibration(alpha, gamma, sensitivity, n_tests, calibration="exact"):
    """The budget and threshold of the doubling baseline's K independent Laplace tests.

    A hypothesis passes when its excess risk plus Lap(Delta / eps_test) is <= s. ``"exact"``
    (default): the least eps_test whose exact worst-case failure probability is <= gamma;
    ``"paper"`` and ``"tuned"``: a union bound (:doc:`/guide/accuracy-first-derivations`).

    Parameters
    ----------
    alpha, gamma, sensitivity, calibration
        As :func:`above_threshold_calibration`.
    n_tests : int
        K, the number of tests at most.

    Returns
    -------
    dict
        ``eps`` (eps_test, paid per test), ``threshold`` (s) and ``failure``.

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett et al. (2017), Accuracy first, NeurIPS 30, Section 3.

    Examples
    --------
    >>> from dppack import laplace_test_calibration
    >>> c = laplace_test_calibration(0.05, 0.1, 0.0022928, 24)
    >>> round(c["eps"], 3), round(c["threshold"], 3)  # exact
    (0.352, 0.015)
    >>> round(laplace_test_calibration(0.05, 0.1, 0.0022928, 24, "paper")["eps"], 3)
    0.439
    """
    return dict(_laplace_test_calibration(
        *_calibration_arguments(alpha, gamma, sensitivity, n_tests, "n.tests", calibration)))


@functools.lru_cache(maxsize=256)
def _laplace_test_calibration(alpha, gamma, delta, K, calibration):
    """:func:`laplace_test_calibration` for checked arguments (cached)."""
    if calibration == "exact":
        cost, s = _exact_test_shape(K, gamma)
        eps, s = cost * delta / alpha, s * alpha
    else:
        # the doubling method's test (Ligett et al. 2017, Section 3): b_test = (alpha/2) / ln(K /
        # (2 gamma)), eps_test = Delta / b_test
        eps, s = delta * math.log(K / (2.0 * gamma)) / (alpha / 2.0), alpha / 2.0
    return {"eps": eps, "threshold": s,
            "failure": max(_worst_failure(alpha - s, s, 0.0, delta / eps, K))}
