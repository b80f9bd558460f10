"""InteractiveAboveThreshold (Ligett et al. 2017, Algorithm 2):
AboveThreshold whose queries may be chosen after seeing earlier private outputs, with its
calibrations for accuracy-first ERM.

Randomness (through ``_random``): one exact discrete Laplace draw for the threshold when the
object is made, then one per query, all on one power-of-two grid (see
:class:`InteractiveAboveThreshold`). The calibrations draw nothing.

Calibration
-----------
Accuracy-first asks T queries f_t = -e_t, e_t the excess risk of hypothesis t (sensitivity
Delta), and halts at the first t with f_t + nu'_t >= W + rho'. With s = -W, nu = -nu',
rho = -rho' (the noises are symmetric) this is: halt at the first t with e_t + nu_t <= s + rho,
rho ~ Lap(b1) drawn once, nu_t ~ Lap(b2) fresh. Any split eps_A = eps_1 + eps_2 with
b1 = Delta / eps_1 and b2 = 2 Delta / eps_2 is eps_A-DP (Lyu, Su and Li 2017, Algorithm 1;
Ligett et al.'s Algorithm 2 is the even split, b1 = 2 Delta / eps_A, b2 = 4 Delta / eps_A),
and halting at t costs eps_A + eps_t ex post (Ligett et al. 2017, Lemma 2.8).

What the calibration guarantees. The run *fails* when

(a) it halts at a hypothesis with e_t > alpha (a wrong certificate), or
(b) it has not halted by the first hypothesis with e_t = 0 (a test without power).

The noises are independent of the e_t (those come from the noise-reduction path, drawn
separately), so it suffices to bound the failure probability for every fixed sequence e_1,
..., e_T. Let q(x) = P(nu <= x) and write m = alpha - s. Given rho, a query with e_t > alpha
halts with probability q(s + rho - e_t) <= q(rho - m), and one with e_t = 0 fails to halt with
probability 1 - q(rho + s). Levels with 0 < e_t <= alpha can neither cause (a) nor (b).
Hence the worst sequences put every other level just above alpha, and the failure
probability is at most the larger of

    F_above   = 1 - E_rho[(1 - q(rho - m))^T]                 (no e_t <= alpha: (a) only)
    F_perfect = 1 - E_rho[(1 - q(rho - m))^(T-1) q(rho + s)]  (e_T = 0 after T-1 above alpha)

with equality for the sequences e_t = alpha + 0 (t <= T), and e_t = alpha + 0 (t < T),
e_T = 0 (a level before T with e_t = 0 leaves fewer chances for (a)). These are
one-dimensional integrals over the Laplace density of rho, smooth between the kinks
rho = 0, m, -s; :func:`above_threshold_failure` computes them by adaptive quadrature
(``scipy.integrate.quad``) on |rho| <= 60 b1 and adds the quadrature's error estimate and the
neglected mass exp(-60). The integrands are the failure probabilities given rho
(1 - (1 - q)^T, not (1 - q)^T), so the relative tolerance holds however small the failure
probability is; the exact calibrations accept gamma >= 1e-20, far above the floor exp(-60).
With b1 = 0 (no threshold noise: the doubling baseline's independent tests) they are closed
forms.

The baseline is the union bound of Dwork and Roth (2014, Theorem 3.24), which Ligett et al.
use (Algorithm 3): with eps_A = 16 Delta ln(2T/gamma) / alpha and an even split,
P(|rho| > alpha/4) = (gamma / 2T)^2 and P(max_t |nu_t| > alpha/4) <= gamma/2, so with
probability >= 1 - gamma every |nu_t - rho| <= alpha/2 and, with s = alpha/2, neither (a) nor
(b) occurs. It is loose in two ways: it bounds |nu_t - rho| two-sidedly where each event needs
one side, and it splits gamma over T + 1 separate noises where (a) needs only the smallest
nu_t - rho to be small. At T = 1000, gamma = 0.1 its failure probability is 1.7e-6, not 0.1.

The exact calibration (``calibration="exact"``) chooses s and the split to minimise eps_A
subject to max(F_above, F_perfect) <= gamma. Both probabilities depend on the noises only
through m / b2, s / b2 and b1 / b2, so eps_A = c(T, gamma) Delta / alpha and
s = sigma(T, gamma) alpha: for each (sigma, b1 / b2), the largest feasible b2 is found by
root finding (the failure probabilities increase with the noise scales), and
(sigma, b1 / b2) by Nelder-Mead from the paper's (1/2, 1/2); the result is never worse than
the paper's shape, which is feasible. At T = 1000, gamma = 0.1, c = 39.7 (the paper's
16 ln(2T/gamma) = 158.5), s = 0.26 alpha and eps_1 = 0.30 eps_A.

The noises drawn are discrete Laplace on a grid g = 2^k (:class:`InteractiveAboveThreshold`).
A discrete Laplace g Z of scale b (P(Z = z) proportional to exp(-|z| g / b)) is
g (floor(E_1 / g) - floor(E_2 / g)) for E_1, E_2 ~ Exp(scale b), within g of the continuous
Laplace E_1 - E_2; rounding the query value and the threshold moves each by at most g / 2.
So the discrete mechanism halts only where the continuous one would with s moved by less
than 3 g, and its failure probability is at most max(F_above, F_perfect) at margins m - 3 g
and s - 3 g and its actual scales (``_random.laplace_grid``), which the exact calibration
checks against gamma (it solves the continuous problem for gamma (1 - 1e-3), leaving room
for the 2^-20 relative differences).

``calibration="tuned"`` (the authors' code, spec) is smaller than the paper's but not proven:
its F_above is about 0.015 at T = 1000, gamma = 0.1, but its threshold s = 0.12 alpha makes
F_perfect = 0.16 > gamma. The doubling baseline's K independent Laplace tests are calibrated
the same way (:func:`laplace_test_calibration`, b1 = 0); there the union bound is nearly
tight, and the exact calibration saves about 20 percent of eps_test.

References: Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
differential privacy level for accuracy-constrained ERM. NeurIPS 30. Dwork C, Roth A (2014).
The algorithmic foundations of differential privacy, Theorem 3.24. Lyu M, Su D, Li N (2017).
Understanding the sparse vector technique for differential privacy. PVLDB 10(6).
"""

import functools
import math

import numpy as np

from .. import _checks, _messages, _random, accounting
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

    The threshold is perturbed once, W^ = W + Lap(2 Delta / eps); each query value f(D) gets
    fresh Lap(4 Delta / eps) noise (an even split of eps; ``threshold_share`` sets another)
    and the mechanism halts at the first query with
    f(D) + noise >= W^. If the queries are generated by an (eps_1, ..., eps_T)
    prefix-private mechanism and each has sensitivity <= Delta, halting at query t is
    (eps + eps_t)-ex-post private (Lemma 2.8); with fixed queries it is eps-DP.

    The noises are exact discrete Laplace draws on one grid g = 2^k
    (``_random.discrete_laplace_noise``; Canonne, Kamath and Steinke 2020, Algorithm 2),
    k chosen for the threshold noise (``_random.laplace_grid(Delta, eps_1)``). The
    threshold and each query value are rounded to the grid, so the rounded queries have
    sensitivity D = ceil(Delta / g) + 1 in grid units, and the integer noises have
    P(z) proportional to exp(-abs(z) eps' / D) (threshold) and exp(-abs(z) eps'' / (2 D))
    (queries), eps' <= eps_1, eps'' <= eps_2 (eps_1 = eps_2 = eps / 2 by default). The
    AboveThreshold argument (Dwork and Roth 2014, Theorem 3.23; Lyu, Su and Li 2017) then goes
    through in grid units: it shifts the threshold noise by D (a factor exp(eps_1)) and the
    halting query's noise by 2 D (a factor exp(eps_2)), integer shifts under which the
    discrete Laplace ratios are exactly those bounds; comparing the noisy values is
    post-processing. Each noise is the continuous one's scale raised by a relative 2^-20 or
    less, the guarantees above are unchanged, and the low-order bits of no float depend on the
    data (Mironov 2012).

    Parameters
    ----------
    data : object
        The data, handed to every query function.
    eps : float
        The AboveThreshold budget eps_A, > 0 and finite.
    threshold : float
        W, finite.
    sensitivity : float
        Delta, the largest sensitivity of any query, > 0 and finite.
    threshold_share : float, default 0.5
        The share eps_1 / eps of the budget spent on the threshold noise, in (0, 1): the
        threshold noise is Lap(Delta / eps_1) and each query noise Lap(2 Delta / eps_2),
        eps_2 = eps - eps_1 (Lyu, Su and Li 2017, Algorithm 1; any split is eps-DP). The
        default, an even split, is Ligett et al.'s Lap(2 Delta / eps) and Lap(4 Delta / eps);
        :func:`above_threshold_calibration` gives the split its ``"exact"`` calibration uses.
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged ``PrivacyLoss.pure(eps)`` once, when the object is made, under the label
        'InteractiveAboveThreshold': AboveThreshold costs eps however many queries it answers
        (Dwork and Roth 2014, Thm 3.23). Queries generated from the data by another private
        mechanism are charged by that mechanism (Lemma 2.8 adds its level). None charges the
        session's accountant, if any. An overspend is refused before the threshold noise is
        drawn.

    Attributes
    ----------
    privacy_ : PrivacyLoss
        ``PrivacyLoss.pure(eps)``.
    halted : bool
        True once a query passed; no query is answered after that.
    n_queries : int
        Number of queries answered so far.
    halt_index : int or None
        0-based index of the query that passed.

    Raises
    ------
    ValueError
        Invalid settings or an overspend (before the threshold noise is drawn).

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30.
    Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Section 3.6.

    Examples
    --------
    Which of four counts (sensitivity 1) is the first above 30? The answers are noisy, and
    the mechanism stops at the first "yes":

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
        bill = accounting.charge(
            accountant,
            lambda: accounting.PrivacyLoss.pure(_checks.check_finite_positive_scalar(eps, "eps")),
            "InteractiveAboveThreshold")
        self.eps = _checks.check_finite_positive_scalar(eps, "eps")
        self.threshold = _checks.check_number(threshold, "threshold", finite=True)
        self.sensitivity = _checks.check_finite_positive_scalar(sensitivity, "sensitivity")
        self.threshold_share = _checks.check_probability(threshold_share, "threshold.share")
        self._data = data
        self._rng = _random.as_generator(random_state)
        self.privacy_ = bill.spend()
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
        """value rounded to the grid plus exact discrete Laplace noise of scale
        Delta / budget (sensitivity Delta, one coordinate)."""
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


# --------------------------------------------------------------------------------------------
# The failure probability, exactly (module docstring, "Calibration")
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
    """The two worst-case failure probabilities of the module docstring.

    margin = alpha - s, lead = s (s = -W, the threshold on the excess risk), b1 the threshold
    noise's scale (0: none, independent tests), b2 the query noise's, T queries. Returns
    (F_above, F_perfect), each raised by the quadrature's error estimate and the truncated
    tail. The integrands are the failure probabilities given rho themselves (not 1 minus the
    success probabilities), so ``tolerance``, the quadrature's relative tolerance, is relative
    to the failure probability however small it is (the exact calibration's search uses a
    looser one than its final check); the absolute floor is the tail mass exp(-TAIL).
    """
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

    Accuracy-first asks ``n_queries`` = T queries f_t = -(excess risk e_t) and halts at the
    first t with f_t + nu_t >= W + rho, rho ~ Lap(``threshold_scale``) drawn once and
    nu_t ~ Lap(``query_scale``) fresh (continuous Laplace noises; ``threshold_scale = 0``:
    no threshold noise, T independent Laplace tests, as the doubling baseline). The guarantee
    fails when (a) it halts at a query with e_t > alpha, or (b) it has not halted by the
    first query with e_t = 0. The worst case over every sequence e_1, ..., e_T (fixed, or
    chosen from earlier private outputs, the noises being independent of them) is the larger of
    two (module docstring, "Calibration"): every e_t just above alpha, and e_1..e_{T-1} just
    above alpha followed by e_T = 0. Both are integrals over rho, computed by adaptive
    quadrature; the returned probabilities include the quadrature's error estimate and the
    neglected tail exp(-60).

    Parameters
    ----------
    alpha : float
        The accuracy target, > 0.
    threshold : float
        W, the threshold on f = -(excess): the mechanism aims to halt once the excess is below
        s = -W.
    threshold_scale : float
        b1 >= 0, the scale of the threshold noise.
    query_scale : float
        b2 > 0, the scale of every query noise.
    n_queries : int
        T >= 1.

    Returns
    -------
    dict
        ``failure``, the worst-case probability that (a) or (b) happens (the larger of the
        next two); ``all_above``, the probability that it halts at all when every e_t is just
        above alpha (event (a) alone); ``perfect_last``, the probability of (a) or (b) when
        e_1, ..., e_{T-1} are just above alpha and e_T = 0.

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30, Algorithm 2.
    Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.24
    (the union bound this computation replaces).

    Examples
    --------
    The paper's calibration for alpha = 0.1, gamma = 0.1, Delta = 0.001, T = 100 (noise
    scales 2 Delta / eps_A and 4 Delta / eps_A) fails far less often than gamma:

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
    """The largest b2 (on a log scale, relative precision 1e-10) with failure(b2) <= target,
    failure increasing in b2 (module docstring); at most 1e3."""
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
    """The exact calibration for alpha = 1, Delta = 1: (eps_A, s, threshold share).

    For Delta and alpha, eps_A scales as Delta / alpha and s as alpha (the failure
    probability depends only on the margins in units of the noise scales)."""
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
    """The exact calibration of K independent Laplace tests for alpha = 1, Delta = 1:
    (test eps = 1 / b, s)."""
    from scipy import optimize  # lazily: `import dppack` stays light

    target = gamma * (1.0 - _GAMMA_SLACK)

    def scale(s):
        return _largest_scale(lambda b: max(_worst_failure(1.0 - s, s, 0.0, b, K)), target)

    best = optimize.minimize_scalar(lambda s: -scale(s), bounds=(1e-3, 1.0 - 1e-3),
                                    method="bounded", options={"xatol": 1e-5})
    s = min((float(best.x), 0.5), key=lambda v: 1.0 / scale(v))  # never worse than alpha / 2
    return 1.0 / scale(s), s


def _discrete_failure(alpha, s, eps, share, delta, T):
    """The worst-case failure probability of :class:`InteractiveAboveThreshold` as drawn:
    its discrete noises on the grid g = 2^k, with their actual scales; the rounding of the
    two values and the coupling of each discrete Laplace with a continuous one of the same
    scale move the comparison by less than 3 g (module docstring)."""
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

    The queries are f_t = -(excess risk of hypothesis t), sensitivity Delta, over T levels;
    the threshold noise is Lap(Delta / eps_1), each query noise Lap(2 Delta / eps_2),
    eps_A = eps_1 + eps_2 (``threshold_share`` = eps_1 / eps_A).

    * ``"exact"`` (default; module docstring, "Calibration"): the threshold W and the split
      that minimise eps_A subject to the exact worst-case failure probability
      (:func:`above_threshold_failure`, for the discrete noises the mechanism draws) being
      <= gamma. On success the run halts only at a hypothesis with excess <= alpha, and no
      later than the first with excess 0. About 4 times smaller than ``"paper"``.
    * ``"paper"`` (Algorithm 3): eps_A = 16 Delta ln(2T/gamma) / alpha, W = -alpha/2, an even
      split; a union bound over all the noises (Dwork and Roth 2014, Theorem 3.24) gives the
      same guarantee.
    * ``"tuned"`` (the authors' code): b = alpha / (4 ln(1.5^(3/4) sqrt(T) / gamma)),
      s = alpha/4 + (3/4) b ln 1.5 - (1/2) b ln T, W = -s, eps_A = 2 Delta / b (threshold
      noise Lap(b), query noise Lap(2b)). Reproduces the paper's figures; its failure
      probability is not proven <= gamma (at T = 1000, gamma = 0.1 it is 0.16 for event (b)).

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
        ``failure``, the worst-case failure probability of :func:`above_threshold_failure`
        for the continuous noises (``"exact"``: checked <= gamma for the discrete ones too).

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30, Algorithm 3.
    Dwork C, Roth A (2014). The algorithmic foundations of differential privacy, Theorem 3.24.

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
    """:func:`above_threshold_calibration` for checked arguments (cached: every fit asks
    twice, once for the accountant's check and once to run)."""
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

    A hypothesis passes when its excess risk plus Lap(Delta / eps_test) is <= s; the
    guarantee and its failure are those of :func:`above_threshold_failure` with no threshold
    noise.

    * ``"exact"`` (default): s and eps_test minimising eps_test subject to the exact
      worst-case failure probability <= gamma (module docstring, "Calibration").
    * ``"paper"`` and ``"tuned"`` (Ligett et al. 2017, the doubling baseline as the authors'
      code runs it): s = alpha/2, eps_test = Delta / b, b = (alpha/2) / ln(K / (2 gamma)), a
      union bound over the K tests.

    Parameters
    ----------
    alpha, gamma, sensitivity, calibration
        As :func:`above_threshold_calibration`.
    n_tests : int
        K, the number of tests at most.

    Returns
    -------
    dict
        ``eps`` (eps_test, paid per test), ``threshold`` (s, on the excess risk: a test
        passes when the noisy excess is <= s) and ``failure``.

    Raises
    ------
    ValueError
        Invalid arguments.

    References
    ----------
    Ligett K, Neel S, Roth A, Waggoner B, Wu ZS (2017). Accuracy first: selecting a
    differential privacy level for accuracy-constrained ERM. NeurIPS 30, Section 3.

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
