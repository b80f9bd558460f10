"""DPpack 0.2.2's exponential mechanism, drawn exactly, and its argument checks."""

import math

import numpy as np

from .. import _backends, _checks, _frames, _messages, _plans, _random, accounting
from .._report import NoiseInterval


def check_exponential_sensitivity(sensitivity):
    """:func:`ExponentialMechanism`'s check of its sensitivity (DPpack's messages), also
    used by its accuracy report. Returns it as a float."""
    sens = _checks.as_numeric_array(sensitivity, "sensitivity must be > 0.").ravel()
    if sens.size != 1:
        raise _messages.value_error("Length of sensitivity must be 1.")
    sens = float(sens[0])
    if not sens > 0:
        raise _messages.value_error("sensitivity must be > 0.")
    if not np.isfinite(sens):
        raise _messages.value_error("sensitivity must be finite.")
    return sens


def check_measure(measure, size):
    """ExponentialMechanism's checks of a base measure for ``size`` candidates, with DPpack's
    messages: a numeric vector of that length, no value negative, NaN or infinite. Returns it
    as a flat float array (as ``_checks.as_numeric_array`` gives it).

    Examples
    --------
    >>> check_measure([1, 2, 0], 3).tolist()
    [1.0, 2.0, 0.0]
    """
    m = _checks.as_numeric_array(measure, "Values in measure must be numeric.").ravel()
    if m.size != size:
        raise _messages.value_error("Length of measure must match length of utility.")
    if np.any(np.isnan(m)) or np.any(m < 0):
        raise _messages.value_error("Values in measure cannot be negative.")
    if not np.all(np.isfinite(m)):
        raise _messages.value_error("Values in measure must be finite.")
    return m


def ExponentialMechanism(
    utility, eps, sensitivity, measure=None, candidates=None, random_state=None,
    accountant=None,
):
    """Select one candidate with probability proportional to measure * exp(eps u / (2 Delta)),
    drawn exactly (see Notes).

    Parameters
    ----------
    utility : array_like
        Utility of each candidate (higher is better); NaN and +Inf are refused, -Inf gives a
        candidate probability 0.
    eps : float
        Privacy budget, > 0 and finite.
    sensitivity : float
        Global sensitivity of the utility, > 0.
    measure : array_like, optional
        Base measure of each candidate (>= 0, not all 0); uniform by default.
    candidates : sequence, optional
        Returned instead of the index; must have one entry per utility.
    random_state : None, int or NumPy Generator, optional
    accountant : BudgetAccountant, optional
        Charged PrivacyLoss.pure(eps), label "ExponentialMechanism"; by default the session's
        accountant, if any. An overspend is refused before the draw.

    Returns
    -------
    int or object
        The 0-based index of the selected candidate (DPpack's R index minus 1), or
        ``candidates[index]``.

    Raises
    ------
    ValueError
        With DPpack's message for each invalid argument, before the draw.

    Notes
    -----
    The derivation is in the guide: :ref:`derivation-ExponentialMechanism`
    (``docs/python/guide/mechanisms-derivations.rst``).

    References
    ----------
    McSherry and Talwar (2007), Mechanism design via differential privacy. Canonne, Kamath
    and Steinke (2020), The discrete Gaussian for differential privacy (NeurIPS). Giddens and
    Liu (2023), DPpack reference manual, ``ExponentialMechanism``.

    Examples
    --------
    Choose among three candidates by a utility of sensitivity 1; the second is the most
    likely:

    >>> from dppack import ExponentialMechanism
    >>> ExponentialMechanism([1.0, 5.0, 2.0], eps=1.0, sensitivity=1.0, random_state=1)
    1
    >>> ExponentialMechanism([1.0, 5.0, 2.0], 1.0, 1.0, candidates=["a", "b", "c"],
    ...                      random_state=1)
    'b'
    """
    _backends.refuse_dask("ExponentialMechanism", utility, measure, candidates)
    arguments = {"utility": utility, "eps": eps, "sensitivity": sensitivity,
                 "measure": measure, "candidates": candidates}
    return _plans.run(EXPONENTIAL, None, arguments, random_state, accountant)


class _Exponential(_plans.Plan):
    """ExponentialMechanism: its checks in DPpack's order (utility, eps, sensitivity,
    measure, candidates), one exact draw, and the report of :func:`exponential_report`."""

    name = "ExponentialMechanism"
    report_arguments = dict(sensitivity=None, size=None, measure=None, candidates=None)
    required = ("sensitivity",)
    spends = False  # the draw needs no loss: none computed without an accountant

    def loss(self, a):
        return accounting.PrivacyLoss.pure(_checks.check_finite_budget(a["eps"], "eps"))

    def prepare(self, data, a):
        u = _checks.as_numeric_array(
            a["utility"], "utility must be a numeric atomic vector or scalar."
        ).ravel()
        if u.size == 0:
            raise _messages.value_error("utility must have at least one element.")
        if not (u < np.inf).all():  # one pass catches NaN and +Inf
            raise _messages.value_error("utility must not contain NA, NaN or Inf.")
        if u.max() == -np.inf:
            raise _messages.value_error(
                "At least one candidate must have positive measure and utility > -Inf.")
        eps = _checks.check_finite_budget(a["eps"], "eps")
        sens = check_exponential_sensitivity(a["sensitivity"])
        measure, candidates = a["measure"], a["candidates"]
        if measure is not None:
            measure = check_measure(measure, u.size)
        if candidates is not None and not hasattr(candidates, "__len__"):
            raise _messages.value_error(
                "candidates must be a sequence with one entry per utility.")
        if candidates is not None and len(candidates) != u.size:
            raise _messages.value_error("Length of candidates must match length of utility")
        if measure is not None and not np.any((measure > 0) & (u > -np.inf)):
            raise _messages.value_error(
                "At least one candidate must have positive measure and utility > -Inf.")

        def draw(rng, loss):
            # DPpack's ExponentialMechanism steps 2-3, exactly: P(k) proportional to
            # measure_k exp(eps u~_k / (2 Delta')).
            index = _random.exponential_mechanism(u, eps, sens, rng, measure=measure)
            return index if candidates is None else _frames.element(candidates, index)
        return [(None, draw)]

    def report(self, statistic, eps, arguments, alpha, simultaneous):
        return exponential_report(statistic, eps, **arguments, alpha=alpha)


def utility_bound(eps, sensitivity, candidates, largest, alpha):
    """The utility shortfall OPT - u(output) of the exact exponential mechanism
    (``_random.exponential_mechanism``, uniform measure) that is exceeded with probability
    at most alpha: (2 Delta' / eps)(ln |R| + ln(1 / alpha)) + h (Dwork and Roth 2014, Theorem
    3.11, for the rounded utilities u~ and Delta' = D h; rounding each utility to the grid
    h moves it by at most h / 2, so OPT and u(output) each by h / 2). ``largest`` bounds
    abs(u) (it fixes the grid, ``_random.exponential_grid``). Returns (bound, h)."""
    k, rate = _random.exponential_grid(float(largest), eps, float(sensitivity))
    step = math.ldexp(1.0, k)  # h: the grid of the utilities
    # rate = eps / (2 D) per step h, D h = Delta': (2 Delta' / eps) = h / rate
    return (math.log(candidates) + math.log(1.0 / alpha)) * step / float(rate) + step, step


def exponential_report(statistic, eps, sensitivity, size=None, measure=None, candidates=None,
                       *, alpha):
    """ExponentialMechanism's report: the bound on OPT - u(output) of :func:`utility_bound`
    in the utility's units, with ln |R| replaced by ln(M / mu_min) for a base ``measure`` (M
    its total, mu_min its smallest positive weight, both after the release's rounding to
    integers, ``_random.integer_measure``; |R| = ``size`` for the uniform measure).

    Proof (McSherry and Talwar 2007; Dwork and Roth 2014, Theorem 3.11 with a base measure):
    with S the best candidates the release can select (positive weight, finite utility) and
    OPT their utility, P(u(output) <= c) <= M exp(eps' c) / (mu(S) exp(eps' OPT)),
    eps' = eps / (2 Delta'), and mu(S) >= mu_min whatever the data. So the shortfall exceeds
    (2 Delta' / eps)(ln(M / mu_min) + ln(1 / alpha)) with probability at most alpha; OPT is
    over the candidates of positive weight. The grid assumes abs(u) <= sensitivity 2^979
    (beyond, the release coarsens it)."""
    eps = _checks.check_finite_budget(eps, "eps")
    sensitivity = check_exponential_sensitivity(sensitivity)
    if candidates is not None:  # the release's checks: one per utility, so size = their number
        if not hasattr(candidates, "__len__"):
            raise _messages.value_error(
                "candidates must be a sequence with one entry per utility.")
        if size is not None and _checks.check_whole(size, "size", 1) != len(candidates):
            raise _messages.value_error("Length of candidates must match length of utility")
        size = len(candidates)
    if measure is None:
        if size is None:
            raise _messages.value_error(
                "size (the number of candidates) or measure is required for "
                "ExponentialMechanism.")
        size = _checks.check_whole(size, "size", 1)
        ratio = float(size)
    else:
        raw = np.ravel(np.asarray(measure, dtype=object))
        if size is not None:
            size = _checks.check_whole(size, "size", 1)
        weights = _random.integer_measure(
            check_measure(measure, raw.size if size is None else size))
        positive = weights[weights > 0]
        if not positive.size:
            raise _messages.value_error(
                "At least one candidate must have positive measure and utility > -Inf.")
        ratio = float(weights.sum(dtype=np.float64)) / float(positive.min())
    width, step = utility_bound(eps, sensitivity, ratio, 0.0, alpha)
    details = {} if measure is None else {"measure_ratio": ratio}
    return NoiseInterval(statistic, width, alpha, False, math.nan, math.nan, step,
                         "exponential mechanism (utility shortfall)", "utility",
                         details=details)


EXPONENTIAL = _plans.register(_Exponential())
