"""Release plans: one object per release owns its checks (in DPpack's order), its privacy loss,
its noise laws, its accuracy report and its draw. :func:`run` runs a release; :data:`REGISTRY`
finds a plan by its release's name (for :func:`dppack.accuracy.noiseIntervalDP`). How to add
a release: ``docs/python/guide/adding-a-release.md``."""

import math

import numpy as np

from . import _checks, _random, accounting
from ._report import NoiseInterval


#: The plans by the name of their release, as :func:`register` records them.
REGISTRY = {}


class Plan:
    """One release. Subclasses set the attributes and implement the methods they use.

    Attributes
    ----------
    name : str
        The release's name, the accountant's label and the key of :data:`REGISTRY`.
    report_arguments : dict
        The public arguments its accuracy report takes (besides ``eps``), with their
        defaults, in the order :func:`dppack.accuracy.noiseIntervalDP` names them.
    required : tuple of str
        The report arguments without which the report has no meaning.
    spends : bool
        True: the runner records the loss with ``Charge.spend`` and hands it to the draws;
        False: ``Charge.record`` (nothing computed without an accountant).

    A release whose cost or label depends on more than its arguments (a model's fit, a
    non-private fit at eps = Inf) overrides the hooks :meth:`label`, :meth:`admit`,
    :meth:`spend` and :meth:`generator`.
    """

    name = ""
    report_arguments = {}
    required = ()
    spends = True

    def loss(self, arguments):
        """The PrivacyLoss of one release, from its arguments alone (ValueError: invalid)."""
        raise NotImplementedError

    def label(self, arguments):
        """The accountant's label of one release (default :attr:`name`)."""
        return self.name

    def admit(self, bill, arguments):
        """Refuse, after the charge and before anything is read, what the accountant's
        presence forbids (``bill``: the :class:`dppack.accounting.Charge`); default nothing."""

    def spend(self, bill, arguments):
        """Record the loss after the checks, before the first draw; the loss the draws get."""
        return bill.spend() if self.spends else bill.record()

    def generator(self, random_state, arguments):
        """The generator of the draws, made after :meth:`prepare` (default: from
        ``random_state``); a plan whose reading already draws (data-free) returns its own."""
        return _random.as_generator(random_state)

    def prepare(self, data, arguments):
        """The checks, in DPpack's order, then the sufficient statistics read through the
        data's backend: the list of ``(label, draw)`` to release, ``draw(rng, loss)`` for
        each version (label None for a release of one version)."""
        raise NotImplementedError

    def report(self, statistic, eps, arguments, alpha, simultaneous):
        """The :class:`NoiseInterval` (or ``{label: NoiseInterval}``) of the release from its
        public ``arguments`` (every name of :attr:`report_arguments`, defaults filled in)."""
        raise NotImplementedError

    def truth_range(self, units, label, arguments):
        """The public range that holds the true value, or None (counts and proportions)."""
        if units == "count":
            return (0.0, math.inf)
        if units == "proportion":
            return (0.0, 1.0)
        return None


def register(plan):
    """Record ``plan`` in :data:`REGISTRY` under its name; returns it."""
    REGISTRY[plan.name] = plan
    return plan


def run(plan, data, arguments, random_state=None, accountant=None):
    """Run one release: the accountant is charged (an overspend refused) before anything is
    read, the plan checks its arguments and reads its sufficient statistics, the loss is
    spent, and the versions are drawn from one generator, bounded first: one value, or
    ``{"Bounded": ..., "Unbounded": ...}``. The one place a release charges an accountant."""
    bill = accounting.charge(accountant, lambda: plan.loss(arguments), plan.label(arguments))
    plan.admit(bill, arguments)
    versions = plan.prepare(data, arguments)
    rng = plan.generator(random_state, arguments)
    loss = plan.spend(bill, arguments)
    if len(versions) == 1:
        return versions[0][1](rng, loss)
    results = {}  # a loop, not a comprehension: warnings' stacklevels count frames
    for label, draw in versions:
        results[label] = draw(rng, loss)
    return results


def released_versions(which_sensitivity, bounded, unbounded):
    """The (label, value) pairs to release, bounded first."""
    if which_sensitivity == "bounded":
        return [("Bounded", bounded)]
    if which_sensitivity == "unbounded":
        return [("Unbounded", unbounded)]
    return [("Bounded", bounded), ("Unbounded", unbounded)]


def one_or_both(versions, release):
    """One result, or DPpack's 'both' list as a dict {"Bounded": ..., "Unbounded": ...}."""
    results = {label: release(value) for label, value in versions}
    if len(results) == 1:
        return next(iter(results.values()))
    return results


# --------------------------------------------------------------------------------------------
# Reports from noise laws (derivations: docs/python/guide/accuracy.rst)
# --------------------------------------------------------------------------------------------

_ALPHA_MESSAGE = "alpha must be a number in (0, 1)."


def check_alpha(alpha):
    return _checks.check_number(alpha, "alpha", 0.0, 1.0, closed="neither",
                                message=_ALPHA_MESSAGE)


def per_value_alpha(alpha, m, simultaneous):
    """The per-value level of a joint 1 - alpha over m independent noises (Sidak's product,
    exact for independent noise)."""
    if not simultaneous or m <= 1:
        return alpha
    return -math.expm1(math.log1p(-alpha) / m)


def integer_half_width(tail, alpha, guess=1):
    """T, the smallest integer with P(abs(Z) <= T) >= 1 - alpha, and that probability, for
    an integer noise Z symmetric about 0 with P(Z >= m) = ``tail(m)``.

    Parameters
    ----------
    tail : callable
        m -> P(Z >= m) for integers m >= 1, non-increasing.
    alpha : float
        In (0, 1).
    guess : int, default 1
        A starting point near T + 1 (the search is then short).

    Returns
    -------
    (int, float)
        T >= 0 and P(abs(Z) <= T) = 1 - 2 tail(T + 1).

    Examples
    --------
    >>> t, coverage = integer_half_width(lambda m: _random.discrete_laplace_tail(m, 1, 1), 0.1)
    >>> t, round(coverage, 4)  # 1 - 2 e^-3 / (1 + e^-1)
    (2, 0.9272)
    """
    first = _random.smallest_tail_index(tail, alpha / 2.0, guess)
    return first - 1, 1.0 - 2.0 * tail(first)


def from_laws(statistic, laws, which, alpha, simultaneous, rounding=0.5, units="value",
              transform=None, values=1):
    """A :class:`NoiseInterval` from the laws of the values of a release: ``laws`` a list of
    the dicts of ``Noise.law()`` (``dppack.mechanisms._noise``; for counts without scale and
    guess), ``which`` the index of each value's law (None: one scalar), ``rounding`` the
    rounding of the true value to the grid in grid steps (1/2, or 0 for counts on it).
    ``values``: with ``which`` None, how many values share the one law (the cells of a
    table), the level of ``simultaneous``; the report stays a scalar."""
    m = values if which is None else int(np.size(which))
    level = per_value_alpha(alpha, m, simultaneous)
    rows = []
    for law in laws:
        guess = law["guess"](level / 2.0) if law.get("guess") else 1
        t, coverage = integer_half_width(law["tail"], level, guess)
        k = law["k"]
        scale = math.ldexp(law["scale"], k) if law.get("scale") else math.nan
        rows.append((math.ldexp(t + rounding, k), coverage, scale, math.ldexp(1.0, k)))
    columns = [np.array(column) for column in zip(*rows)]
    if which is None:
        values = [float(column[0]) for column in columns]
    else:
        values = [column[np.asarray(which)] for column in columns]
    return NoiseInterval(statistic, *values[:1], alpha, bool(simultaneous), *values[1:],
                         laws[0]["law"], units, transform)


def charge_step(accountant, loss_of, label):
    """Charge a later step of a release that :func:`run` ran first (an online release's next
    level): ``accountant`` is the first charge's, already resolved (``bill.accountant``; None
    charges nothing, not the session's). An overspend is refused, and nothing recorded, before
    the step draws; returns the step's loss (None without an accountant)."""
    if accountant is None:
        return None
    return accounting.Charge(accountant, loss_of, label).spend()
