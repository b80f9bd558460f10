"""The quantile releases' add/remove sensitivity (issue 28): max(q, 1 - q) for quantileDP's
two utilities (fine grid, resolution), per node for quantilesDP's 'recursive', and
2 (1 - min share) for 'joint'; bounded releases unchanged (bit for bit)."""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import stats as sps

import dppack
from dppack import _random, data_access, noiseIntervalDP
from dppack.quantiles import _joint
from dppack.stats import _quantile
from dppack.datasets import load_pima

QUANTS = (0.1, 0.25, 0.3, 0.5, 0.75, 0.9)
L = 5  # data in {0, ..., L}


def _datasets(max_n=3):
    for n in range(max_n + 1):
        yield from itertools.combinations_with_replacement(range(L + 1), n)


def _lattice_utility(data, q):
    """Every candidate's utility on resolution 1 over [0, L] (the release's runs, expanded)."""
    lattice = _quantile.check_resolution(1.0, 0.0, float(L))
    utilities, widths, _ = lattice.runs(
        *_quantile.lattice_counts(np.asarray(data, dtype=np.float64), lattice), q)
    return np.repeat(utilities, widths)


def _fine_utility(data, q):
    """The fine grid's utility -abs(c(t) - q n) at points between and on the data."""
    points = np.arange(0, 2 * L + 1) / 2.0
    counts = np.searchsorted(np.sort(np.asarray(data, dtype=np.float64)), points,
                             side="right")
    return data_access.rank_utility(counts, len(data), q)


@pytest.mark.parametrize("utility", [_lattice_utility, _fine_utility],
                         ids=["resolution", "fine"])
@pytest.mark.parametrize("q", QUANTS)
def test_sensitivity_by_brute_force(utility, q):
    """Over all datasets of up to 3 values in {0..5} and every record added (unbounded) or
    changed (bounded): the largest move of a candidate's utility is max(q, 1 - q) and 1,
    and quantile_sensitivity is at least it (exactly it up to its upward rounding)."""
    added = changed = 0.0
    for data in _datasets():
        base = utility(data, q)
        for y in range(L + 1):
            added = max(added, float(np.max(np.abs(utility(data + (y,), q) - base))))
        for i, y in itertools.product(range(len(data)), range(L + 1)):
            other = data[:i] + (y,) + data[i + 1:]
            changed = max(changed, float(np.max(np.abs(utility(other, q) - base))))
    unbounded = _quantile.quantile_sensitivity(q, "unbounded")
    assert added == pytest.approx(max(q, 1 - q), abs=1e-12)
    assert unbounded >= added - 1e-12 and unbounded == pytest.approx(max(q, 1 - q), rel=1e-15)
    # (the utilities are computed in floating point: within an ulp or so, far below the
    # grid h = Delta / 2^20 they are rounded to, whose extra step covers it)
    assert changed == pytest.approx(1.0, abs=1e-12)
    assert _quantile.quantile_sensitivity(q, "bounded") == 1.0
    assert _quantile.quantile_sensitivity(q, "both") == 1.0


def test_sensitivity_rounds_up():
    # 1 - 0.1 is not a double: the sensitivity is the double at or above the exact value
    from fractions import Fraction
    for q in (0.1, 0.3, 1e-17, 0.49999999999999994, 0.0, 1.0):
        delta = _quantile.quantile_sensitivity(q, "unbounded")
        exact = max(Fraction(q), 1 - Fraction(q))
        assert Fraction(delta) >= exact and delta == pytest.approx(float(exact), rel=2 ** -52)


def _joint_utility(data, quants, outputs):
    n = len(data)
    shares = np.diff(np.concatenate([[0.0], quants, [1.0]]))
    counts = np.searchsorted(np.sort(np.asarray(data, dtype=np.float64)),
                             np.asarray(outputs), side="right")
    gaps = np.diff(np.concatenate([[0], counts, [n]]))
    return -float(np.sum(np.abs(gaps - shares * n)))


@pytest.mark.parametrize("quants", [(0.25, 0.5), (0.1, 0.9), (0.3, 0.6)])
def test_joint_sensitivity_by_brute_force(quants):
    """JointExp's utility over output pairs o1 <= o2 in {0, 0.5, ..., 5}: the largest move
    when a record is added is joint_sensitivity's 2 (1 - min share), at most 2; changed: at
    most 2."""
    quants = np.array(quants)
    outputs = [o for o in itertools.combinations_with_replacement(np.arange(0, 11) / 2.0, 2)]
    added = changed = 0.0
    for data in _datasets(2):
        base = [_joint_utility(data, quants, o) for o in outputs]
        for y in range(L + 1):
            added = max(added, max(abs(_joint_utility(data + (y,), quants, o) - b)
                                   for o, b in zip(outputs, base)))
        for i, y in itertools.product(range(len(data)), range(L + 1)):
            other = data[:i] + (y,) + data[i + 1:]
            changed = max(changed, max(abs(_joint_utility(other, quants, o) - b)
                                       for o, b in zip(outputs, base)))
    shares = np.diff(np.concatenate([[0.0], quants, [1.0]]))
    delta = _joint.joint_sensitivity(quants, "unbounded")
    assert added == pytest.approx(2 * (1 - shares.min()), abs=1e-12)
    assert delta >= added - 1e-12 and delta == pytest.approx(2 * (1 - shares.min()))
    assert changed <= 2.0 + 1e-12  # bounded: 2 (reached on larger data)
    assert _joint.joint_sensitivity(quants, "bounded") == 2.0


def _law(utilities, widths, eps, sensitivity):
    """The exact mechanism's law: widths times exp(eps u~ / (2 Delta')), u~ on the grid
    h = 2^k <= Delta / 2^20, Delta' = (ceil(Delta / h) + 1) h."""
    k, rate = _random.exponential_grid(float(np.max(np.abs(utilities))), eps, sensitivity)
    h = math.ldexp(1.0, k)
    assert rate == _random._fraction(eps) / (2 * (math.ceil(sensitivity / h) + 1))
    steps = np.rint(np.asarray(utilities) / h)
    with np.errstate(divide="ignore"):  # an empty interval: probability 0
        logw = np.log(np.asarray(widths, dtype=np.float64)) + float(rate) * steps
    p = np.exp(logw - logw.max())
    return p / p.sum()


@pytest.mark.parametrize("q", [0.1, 0.5])
def test_law_on_a_resolution(q):
    """The unbounded release on resolution 1 is the mechanism with max(q, 1 - q): the public
    call draws what the runs' mechanism draws (same seeds), and 5 000 draws of it match
    the exact law (chi-square; false-failure rate 1e-4 each); for the median, the bounded
    law's is rejected (p < 1e-6; observed p about 1e-200)."""
    data = np.array([1.0, 1.0, 2.0, 4.0, 4.0, 4.0, 7.0])
    lattice = _quantile.check_resolution(1.0, 0.0, 8.0)
    utilities, widths, starts = lattice.runs(*_quantile.lattice_counts(data, lattice), q)
    delta = _quantile.quantile_sensitivity(q, "unbounded")
    for seed in range(5):
        rng = np.random.default_rng(seed)
        i, offset = _random.exponential_interval(utilities, widths, 1.0, delta, rng)
        assert dppack.quantileDP(data, q, 1.0, 0.0, 8.0, "unbounded", random_state=seed,
                                 resolution=1.0) == float(starts[i] + offset)
    rng = np.random.default_rng(11)
    draws = [_random.exponential_interval(utilities, widths, 1.0, delta, rng)[0]
             for _ in range(5_000)]
    observed = np.bincount(draws, minlength=widths.size)
    expected = _law(utilities, widths, 1.0, delta) * len(draws)
    keep = expected >= 5
    assert sps.chisquare(observed[keep], expected[keep] * observed[keep].sum()
                         / expected[keep].sum()).pvalue > 1e-4
    if q != 0.5:  # 0.9 against 1: too close for 5 000 draws
        return
    # power: the median's draws against the bounded law (Delta = 1) are rejected
    bounded = _law(utilities, widths, 1.0, 1.0) * len(draws)
    assert sps.chisquare(observed[keep], bounded[keep] * observed[keep].sum()
                         / bounded[keep].sum()).pvalue < 1e-6


def test_law_on_the_fine_grid():
    """Fine grid, median, unbounded: the interval chosen (which data it lies between) over
    5 000 draws of the release's sampler matches widths x exp(eps u / (2 Delta')) with
    Delta = 1/2 (chi-square, false-failure rate 1e-4); the public call draws the same."""
    data = np.array([0.1, 0.2, 0.2, 0.5, 0.9])
    j, first, last = _quantile._quantile_grid(0.0, 1.0)
    utilities, widths, starts, unions = _quantile._quantile_candidates(data, 0.5, 2.0, j, first,
                                                                   last)
    assert not unions
    for seed in range(5):
        rng = np.random.default_rng(seed)
        value = _quantile.exact_quantile(data, 0.5, 1.0, 0.0, 1.0, rng, sensitivity=0.5)
        assert value == dppack.medianDP(data, 1.0, 0.0, 1.0, "unbounded", random_state=seed)
    rng = np.random.default_rng(5)
    draws = [_random.exponential_interval(utilities, widths, 1.0, 0.5, rng)[0]
             for _ in range(5_000)]
    observed = np.bincount(draws, minlength=widths.size)
    p = _law(utilities, widths, 1.0, 0.5)
    keep = p * len(draws) >= 5
    assert sps.chisquare(observed[keep], p[keep] * observed[keep].sum() / p[keep].sum()
                         ).pvalue > 1e-4


# Outputs of the code before the change (main at c9de142), Pima glucose in [40, 250]:
# quantileDP(q 0.1) and medianDP, bounded then 'both', at eps 0.5; quantilesDP recursive,
# independent (and joint on the fine grid); fine grid then resolution 1; then accuracy
# reports (medianDP; quantilesDP recursive, independent, joint with resolution 1).
# Re-recorded (s10/joint), on purpose: the joint release (its log weights rounded to 2^-40
# before each draw, blocked sums) and the joint report (the release on the resolution's
# lattice, ln((N + 1) 65 + m - 1) per quantile).
PINNED = [86.82122841838276, 113.25714524855113, 86.82122841838276, 113.25714524855113,
          86.47772989691869, 118.91281005178392, 171.1290845435019, 93.83062143697126,
          118.91281005178392, 170.06225349741666, 85.0897307798543, 116.37013154514001,
          170.60593894350927, 85.0, 112.0, 85.0, 112.0, 85.0, 115.0, 176.0, 87.0, 117.0,
          164.0, 87.38677631777544, 320.6797414724607, 262.1603270459777,
          320.67974147246065, 268.65000503112407, 63.149819487398794]


def test_bounded_releases_bit_identical():
    g = np.asarray(load_pima()["glu"], dtype=float)
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for res in (None, 1.0):
            for which in ("bounded", "both"):
                out.append(dppack.quantileDP(g, 0.1, 0.5, 40, 250, which, random_state=7,
                                             resolution=res))
                out.append(dppack.medianDP(g, 0.5, 40, 250, which, random_state=8,
                                           resolution=res))
            for method in ("recursive", "independent") + (("joint",) if res is None else ()):
                out.extend(dppack.quantilesDP(g, [0.1, 0.5, 0.9], 0.5, 40, 250,
                                              method=method, random_state=9,
                                              resolution=res).tolist())
    out.append(noiseIntervalDP("medianDP", 1.0, lower_bound=40, upper_bound=250).half_width)
    for method in ("recursive", "independent"):
        out.extend(np.atleast_1d(noiseIntervalDP(
            "quantilesDP", 1.0, quants=[0.1, 0.5, 0.9], lower_bound=40, upper_bound=250,
            method=method, n=532).half_width).tolist())
    out.extend(np.atleast_1d(noiseIntervalDP(
        "quantilesDP", 1.0, quants=[0.1, 0.5, 0.9], lower_bound=40, upper_bound=250,
        method="joint", resolution=1).half_width).tolist())
    assert [float(v) for v in out] == PINNED


def test_unbounded_releases_change():
    g = np.asarray(load_pima()["glu"], dtype=float)
    for res in (None, 1.0):
        a = [dppack.medianDP(g, 0.5, 40, 250, w, random_state=s, resolution=res)
             for w in ("bounded", "unbounded") for s in range(20)]
        assert a[:20] != a[20:]


def test_accuracy_reports_the_new_law():
    """noiseIntervalDP: (2 Delta' / eps)(ln |R| + ln(1 / alpha)) + h with Delta =
    max(q, 1 - q) under 'unbounded', 1 under 'bounded' and 'both'."""
    def expected(delta, candidates, eps=1.0, alpha=0.05):
        h = math.ldexp(1.0, math.frexp(delta)[1] - 1 - 20)
        prime = (math.ceil(delta / h) + 1) * h
        return 2 * prime / eps * (math.log(candidates) + math.log(1 / alpha)) + h

    lattice = _quantile.check_resolution(1.0, 40.0, 250.0)
    for res, count in ((None, _quantile.quantile_candidates(40, 250)), (1.0, lattice.size)):
        for q in (0.1, 0.5, 0.75):
            for which, delta in (("bounded", 1.0), ("both", 1.0),
                                 ("unbounded", _quantile.quantile_sensitivity(q, "unbounded"))):
                report = noiseIntervalDP("quantileDP", 1.0, quant=q, lower_bound=40,
                                         upper_bound=250, which_sensitivity=which,
                                         resolution=res)
                assert report.half_width == pytest.approx(expected(delta, count), rel=1e-12)
    # independent: one width for all, the largest sensitivity (0.9 for q = 0.1)
    report = noiseIntervalDP("quantilesDP", 1.0, quants=[0.1, 0.5], lower_bound=40,
                             upper_bound=250, method="independent",
                             which_sensitivity="unbounded")
    level = 1 - 0.95 ** 0.5
    h = 2.0 ** -21
    prime = (math.ceil(_quantile.quantile_sensitivity(0.1, "unbounded") / h) + 1) * h
    assert report.half_width == pytest.approx(
        2 * prime / 0.5 * (math.log(_quantile.quantile_candidates(40, 250)) + math.log(1 / level))
        + h, rel=1e-12)
    # joint: beta = eps / (2 Delta), Delta = 2 (1 - 1/4) = 1.5 for the quartiles
    both = [noiseIntervalDP("quantilesDP", 1.0, quants=[0.25, 0.5, 0.75], lower_bound=40,
                            upper_bound=250, method="joint", resolution=1,
                            which_sensitivity=w).details["total"]
            for w in ("bounded", "unbounded")]
    assert both[1] == pytest.approx(both[0] * 1.5 / 2.0, rel=1e-12)


def test_accuracy_covers_the_unbounded_median():
    """The unbounded median's report holds: 300 releases on resolution 1 (Pima glucose,
    eps 0.5), each rank error within the 95% report (its failure rate is far below 5%:
    the bound is loose), for which the bounded report at Delta = 1 would be twice as wide."""
    g = np.asarray(load_pima()["glu"], dtype=float)
    report = noiseIntervalDP("medianDP", 0.5, lower_bound=40, upper_bound=250,
                             which_sensitivity="unbounded", resolution=1)
    lattice = _quantile.check_resolution(1.0, 40.0, 250.0)
    positions, counts = _quantile.lattice_counts(g, lattice)
    utilities, widths, starts = lattice.runs(positions, counts, 0.5)
    rng = np.random.default_rng(3)
    errors = [-utilities[_random.exponential_interval(utilities, widths, 0.5, 0.5, rng)[0]]
              for _ in range(300)]
    assert max(errors) <= report.half_width
    assert report.half_width < 0.51 * noiseIntervalDP(
        "medianDP", 0.5, lower_bound=40, upper_bound=250, resolution=1).half_width


def test_dask_equals_memory_unbounded():
    da = pytest.importorskip("dask.array")
    g = np.asarray(load_pima()["glu"], dtype=float)
    x = da.from_array(g, chunks=100)
    for res in (None, 1.0):
        for q in (0.1, 0.5):
            for seed in range(3):
                memory = dppack.quantileDP(g, q, 0.5, 40, 250, "unbounded", random_state=seed,
                                           resolution=res)
                assert dppack.quantileDP(x, q, 0.5, 40, 250, "unbounded", random_state=seed,
                                         resolution=res) == memory
