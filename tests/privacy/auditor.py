"""An empirical privacy auditor: a statistical lower bound on the privacy loss of a release.

A release ``M`` is (eps, delta)-differentially private when, for every pair of neighbouring
datasets d0, d1 and every event E, P[M(d0) in E] <= e^eps P[M(d1) in E] + delta. The auditor
draws many outputs of ``release(d0, rng)`` and ``release(d1, rng)``, and for a family of events
E fixed in advance computes Clopper-Pearson bounds p0_low <= P[M(d0) in E] and
p1_high >= P[M(d1) in E]; then

    eps_lb = max over E and both orders of log((p0_low - delta) / p1_high)

is, with probability at least 1 - alpha, a lower bound on the true privacy loss (the union
bound runs over all 4m one-sided bounds of the m events: a lower and an upper bound for each
dataset). A release whose eps_lb exceeds its claimed eps is not (eps, delta)-DP, up to the
probability alpha of a false alarm. The idea is that of Ding, Wang, Wang, Zhang and Kifer (2018),
"Detecting violations of differential privacy" (CCS), and of Jagielski, Ullman and Oprea
(2020), "Auditing differentially private machine learning" (NeurIPS), who use the same
Clopper-Pearson bound.

The events are chosen without looking at the counts that enter the bound: a separate pilot
sample (its own random streams) fixes thresholds at fixed quantiles of each projection of the
output, or the list of values of a discrete output. Every draw comes from fixed seeds, so an
audit is deterministic; alpha is the false-failure rate of the audit over the seeds.

Deterministic leaks (the shape, labels or support of the output differing between neighbours)
need no statistics: :func:`assert_same_structure` compares them directly.
"""

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

import dppack

__all__ = [
    "AuditResult",
    "Event",
    "assert_private",
    "assert_same_structure",
    "audit",
    "clopper_pearson",
    "default_events",
    "draw",
    "mantissa_events",
    "quantile_grid",
]

#: Overall false-failure rate of one audit (the union bound over all its events).
DEFAULT_ALPHA = 1e-3

#: Quantiles of the pooled pilot sample used as thresholds for a continuous projection. The
#: tails carry the privacy loss of additive noise; below 0.002 the counts of n = 2e4 draws are
#: too small to bound anything after the Bonferroni correction.
QUANTILES = (0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9,
             0.95, 0.98, 0.99, 0.995, 0.998)

#: Farther tail quantiles q (and 1 - q), used when an audit draws at least TAIL_COUNT / q
#: outputs, so that the expected count in the tail is still TAIL_COUNT.
TAIL_QUANTILES = (1e-5, 2e-5, 5e-5, 1e-4, 2e-4, 5e-4, 1e-3)
TAIL_COUNT = 50

#: A projection with at most this many distinct pilot values is treated as discrete: every
#: value is an event, and so is every threshold between them.
MAX_ATOMS = 40

#: A value holding at least this share of a continuous projection's pilot sample (an atom,
#: e.g. a clamp point) is an event of its own.
ATOM_SHARE = 0.01


@dataclass(frozen=True)
class Event:
    """An event on the projected outputs: ``column`` compared with ``value``.

    kind is 'le' (x <= value), 'gt' (x > value), 'eq' (x == value), or 'bits': the output's
    binary64 representation ends in the ``bits`` low mantissa bits ``value`` (an integer in
    [0, 2^bits)) and its magnitude is in [low, high) (see :func:`mantissa_events`).
    """

    column: int
    kind: str
    value: float
    label: str = ""
    bits: int = 0
    low: float = 0.0
    high: float = math.inf

    def indicator(self, samples):
        """Boolean array: which rows of ``samples`` (n x k) fall in the event."""
        x = samples[:, self.column]
        if self.kind == "le":
            return x <= self.value
        if self.kind == "gt":
            return x > self.value
        if self.kind == "eq":
            return x == self.value
        if self.kind == "bits":
            words = np.ascontiguousarray(x, dtype=np.float64).view(np.uint64)
            ending = (words & np.uint64((1 << self.bits) - 1)) == np.uint64(int(self.value))
            magnitude = np.abs(x)
            return ending & (magnitude >= self.low) & (magnitude < self.high)
        raise ValueError(f"unknown event kind {self.kind!r}")

    def __str__(self):
        name = self.label or f"x[{self.column}]"
        if self.kind == "bits":
            return (f"{name}'s last {self.bits} mantissa bit(s) == {int(self.value)} with "
                    f"|{name}| in [{self.low:.6g}, {self.high:.6g})")
        symbol = {"le": "<=", "gt": ">", "eq": "=="}[self.kind]
        return f"{name} {symbol} {self.value:.6g}"


def mantissa_events(columns=(0,), exponents=range(-4, 4), bits=1, labels=None):
    """Events on the low bits of the outputs, binade by binade: for each column, each binade
    [2^e, 2^(e+1)) of the magnitude (e in ``exponents``) and each ending r of the last
    ``bits`` mantissa bits, the event {last bits == r and |x| in the binade}.

    Mironov (2012), "On significance of the least significant bits for differential privacy"
    (CCS): noise drawn and added in floating point leaves traces in the last bits of the
    output. With x0 = 0 and x1 = 2^-54, textbook Laplace noise z gives x0 + z = z, whose last
    bit in the binade [0.5, 1) is 0 or 1 about equally often, while x1 + z adds half an ulp
    there and rounds to even: the last bit is always 0. The thresholds of
    :func:`default_events` cannot see this; these events see it at once. The family depends on
    its arguments only (never on a sample), so it can be fixed in advance.
    """
    events = []
    for j in columns:
        label = labels[j] if labels is not None else ""
        for e in exponents:
            for r in range(1 << bits):
                events.append(Event(j, "bits", float(r), label, bits=bits,
                                    low=math.ldexp(1.0, e), high=math.ldexp(1.0, e + 1)))
    return events


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`audit`.

    eps_lb is the largest lower bound over the events (-inf when no event gives one); event,
    order ("d0 vs d1" means log P[M(d0) in E] / P[M(d1) in E]) and counts (k_num, k_den out of
    n_samples each) say where it was reached.
    """

    eps_lb: float
    eps: float
    delta: float
    event: str
    order: str
    counts: tuple
    n_samples: int
    n_events: int
    alpha: float

    @property
    def passed(self):
        """True when the lower bound does not exceed the claimed eps."""
        return not self.eps_lb > self.eps

    def __str__(self):
        k_num, k_den = self.counts
        verdict = "exceeds" if not self.passed else "is within"
        return (
            f"eps lower bound {self.eps_lb:.4f} {verdict} the claimed eps {self.eps:g} "
            f"(delta {self.delta:g}): event [{self.event}], {self.order}, counts {k_num} vs "
            f"{k_den} of {self.n_samples} draws each; {self.n_events} events, overall "
            f"alpha {self.alpha:g}"
        )


def clopper_pearson(k, n, level):
    """One-sided Clopper-Pearson bounds (lower, upper) for k successes in n trials.

    Each bound alone holds with probability >= 1 - ``level`` (exact binomial inversion through
    the beta quantiles; Clopper and Pearson 1934).
    """
    k = np.asarray(k, dtype=np.float64)
    lower = np.where(k > 0, stats.beta.ppf(level, np.maximum(k, 1), n - k + 1), 0.0)
    upper = np.where(k < n, stats.beta.ppf(1 - level, k + 1, np.maximum(n - k, 1)), 1.0)
    return lower, upper


def _default_project(output):
    return np.asarray(output, dtype=np.float64).ravel()


def draw(release, data, n, rng, project=None, batch=False):
    """``n`` projected outputs of ``release(data, rng)`` as an (n, k) float array.

    With ``batch``, ``release(data, rng, n)`` returns all n outputs at once (rows), already
    projected. NaN (e.g. a normalised histogram whose counts are all 0) becomes +inf, a value
    of its own; so does a refusal (ValueError or RuntimeError from a release, e.g. a solver
    that did not converge): a release that refuses on one neighbour more often than on the
    other leaks through it. If every draw is refused, the first error is raised.
    """
    if batch:
        samples = np.asarray(release(data, rng, n), dtype=np.float64).reshape(n, -1).copy()
        samples[np.isnan(samples)] = np.inf
        return samples
    project = project or _default_project
    rows, refusals, first_error = [], [], None
    for i in range(n):
        try:
            row = np.asarray(project(release(data, rng)), dtype=np.float64).ravel()
        except (ValueError, RuntimeError) as error:  # a refusal is an outcome too
            refusals.append(i)
            first_error = first_error or error
            continue
        if rows and row.size != rows[0].size:
            raise ValueError(
                f"the projection has {row.size} values in draw {i} and {rows[0].size} before; "
                "project outputs of varying shape to a fixed number of values"
            )
        rows.append(row)
    if not rows:
        raise first_error
    samples = np.empty((n, rows[0].size))
    kept = np.setdiff1d(np.arange(n), refusals)
    samples[kept] = rows
    samples[refusals] = np.nan
    samples[np.isnan(samples)] = np.inf
    return samples


def quantile_grid(n_samples):
    """QUANTILES, with the TAIL_QUANTILES whose expected counts in ``n_samples`` draws reach
    TAIL_COUNT (a choice made from the sample size only, never from the counts)."""
    tails = [q for q in TAIL_QUANTILES if q * n_samples >= TAIL_COUNT]
    return tuple(sorted(set(QUANTILES) | set(tails) | {1 - q for q in tails}))


def default_events(pilot, labels=None, quantiles=QUANTILES):
    """The event family fixed from a pilot sample (never from the counts of the audit).

    For each column: a discrete column (at most MAX_ATOMS distinct values) gives x == v for
    every value and x <= v, x > v for every value but the largest; a continuous column gives
    x <= t and x > t for t at the ``quantiles`` of the pilot, plus x == a for an atom a
    holding at least ATOM_SHARE of the pilot.
    """
    events = []
    for j in range(pilot.shape[1]):
        label = labels[j] if labels is not None else ""
        column = pilot[:, j]
        values, counts = np.unique(column, return_counts=True)
        if values.size <= MAX_ATOMS:
            atoms = values
            thresholds = values[:-1]
        else:
            atoms = values[counts >= ATOM_SHARE * column.size]
            thresholds = np.unique(np.quantile(column, quantiles, method="inverted_cdf"))
            thresholds = thresholds[thresholds < values[-1]]
        events.extend(Event(j, "eq", float(v), label) for v in atoms)
        for t in thresholds:
            events.append(Event(j, "le", float(t), label))
            events.append(Event(j, "gt", float(t), label))
    return events


def audit(release, d0, d1, eps, delta=0.0, n_samples=20_000, events=None, alpha=DEFAULT_ALPHA,
          seed=0, n_pilot=None, project=None, labels=None, batch=False):
    """Lower-bound the privacy loss of ``release`` between the neighbours ``d0`` and ``d1``.

    Parameters
    ----------
    release : callable
        ``release(data, rng)`` returns one output; ``rng`` is a NumPy Generator to pass as the
        release's ``random_state``.
    d0, d1 : object
        Neighbouring datasets (whatever ``release`` takes).
    eps, delta : float
        The claimed privacy parameters.
    n_samples : int
        Draws per dataset for the bound.
    events : list of Event or callable, optional
        A fixed family; or a function ``events(pilot, labels)`` of the pilot sample returning
        one; default :func:`default_events` with :func:`quantile_grid` (n_samples).
    alpha : float
        Overall false-failure rate (Bonferroni over all events, both datasets, both bounds).
    seed : int
        Seeds the four independent streams: pilot d0, pilot d1, audit d0, audit d1.
    n_pilot : int, optional
        Pilot draws per dataset (default n_samples / 10, at least 1000) for the events.
    project : callable, optional
        Maps an output to a fixed number of floats (default: the flattened output).
    labels : sequence of str, optional
        Names of the projected values, for the messages.
    batch : bool
        ``release(data, rng, n)`` draws n outputs at once (see :func:`draw`); for vectorised
        mechanisms, whose n outputs are then independent draws of the one-value release.

    Returns
    -------
    AuditResult
    """
    seeds = np.random.SeedSequence(seed).spawn(4)
    streams = [np.random.default_rng(s) for s in seeds]
    if events is None or callable(events):
        n_pilot = n_pilot or max(1000, n_samples // 10)
        pilot = np.vstack([draw(release, d0, n_pilot, streams[0], project, batch),
                           draw(release, d1, n_pilot, streams[1], project, batch)])
        if events is None:
            events = default_events(pilot, labels, quantile_grid(n_samples))
        else:
            events = events(pilot, labels)
    events = list(events)
    if not events:
        raise ValueError("the event family is empty")
    s0 = draw(release, d0, n_samples, streams[2], project, batch)
    s1 = draw(release, d1, n_samples, streams[3], project, batch)
    k0 = np.array([np.count_nonzero(e.indicator(s0)) for e in events])
    k1 = np.array([np.count_nonzero(e.indicator(s1)) for e in events])
    level = alpha / (4 * len(events))
    low0, high0 = clopper_pearson(k0, n_samples, level)
    low1, high1 = clopper_pearson(k1, n_samples, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        forward = np.where(low0 > delta, np.log((low0 - delta) / high1), -np.inf)
        backward = np.where(low1 > delta, np.log((low1 - delta) / high0), -np.inf)
    i, j = int(np.argmax(forward)), int(np.argmax(backward))
    if forward[i] >= backward[j]:
        best, event, order, counts = forward[i], events[i], "d0 vs d1", (int(k0[i]), int(k1[i]))
    else:
        best, event, order, counts = backward[j], events[j], "d1 vs d0", (int(k1[j]), int(k0[j]))
    return AuditResult(float(best), float(eps), float(delta), str(event), order, counts,
                       int(n_samples), len(events), float(alpha))


# A budget no release in the audits comes near: the accountant only records.
_LEDGER_BUDGET = (1e9, 0.5)


def assert_charged(release, data, eps, delta=0.0, batch=False, seed=0):
    """One call of ``release`` in a ``with BudgetAccountant(...)`` block records exactly one
    spend, at least the (eps, delta) the audit claims (a zCDP spend: converted at ``delta``
    when it is > 0). Returns the spend.

    The accountant must see every release once: an uncharged release, or one charged twice
    (an inner mechanism charging again), fails here.
    """
    rng = np.random.default_rng(seed)
    with dppack.BudgetAccountant(*_LEDGER_BUDGET) as accountant:
        if batch:
            release(data, rng, 1)
        else:
            release(data, rng)
    ledger = accountant.ledger
    assert len(ledger) == 1, f"one release recorded {len(ledger)} spends: {ledger}"
    _, loss = ledger[0]
    if loss.kind == "zcdp":
        if delta > 0:
            assert loss.to_approx(delta).eps >= eps * (1 - 1e-9), (loss, eps, delta)
    else:
        assert loss.eps >= eps * (1 - 1e-9) and loss.delta >= delta * (1 - 1e-9), (
            f"the release charged {loss}, less than the audited (eps, delta) = ({eps}, {delta})")
    return loss


def assert_private(release, d0, d1, eps, delta=0.0, charged=True, **options):
    """Run :func:`audit` and fail (AssertionError with the leaking event) if eps_lb > eps.

    With ``charged`` (the default), first :func:`assert_charged` on ``d0``: every audited
    release also charges the session's accountant what it claims.
    """
    if charged:
        assert_charged(release, d0, eps, delta, batch=options.get("batch", False))
    result = audit(release, d0, d1, eps, delta, **options)
    assert result.passed, str(result)
    return result


def _structure_of(release, data, rng, structure):
    try:
        return ("output", structure(release(data, rng)))
    except Exception as error:  # a refusal that depends on the data is a leak too
        return ("error", type(error).__name__, str(error))


def _same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return a == b


def assert_same_structure(release, d0, d1, structure, n_draws=20, seed=0):
    """Fail if the data-independent part of the output differs between neighbours.

    ``structure(output)`` extracts what must not depend on the data (shape, breaks, labels,
    the set of cells; tuples, numbers, strings or arrays). It must be the same in every one
    of ``n_draws`` draws on each dataset; an exception counts as a structure (its type and
    message), so a refusal on one neighbour only is caught as well.
    """
    rng = np.random.default_rng(seed)
    reference = _structure_of(release, d0, rng, structure)
    for name, data in (("d0", d0), ("d1", d1)):
        for i in range(n_draws):
            got = _structure_of(release, data, rng, structure)
            assert _same(got, reference), (
                f"deterministic leak: draw {i} on {name} has structure {got!r}, "
                f"draw 0 on d0 has {reference!r}"
            )
