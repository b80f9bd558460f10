"""JointExp (quantilesDP, method 'joint'): its floating-point bound, the charge of its slack,
and its release on a public resolution (issues 25 and 28).

Randomised tests use fixed seeds, so each is deterministic; the stated false-failure rate is
the probability, over the choice of seed, that a correct implementation fails it (chi-square
tests reject at p < 1e-3).
"""

import decimal
import itertools
import math

import numpy as np
import pytest
from scipy import stats

import dppack
from dppack import BudgetAccountant
from dppack.datasets import load_pima
from dppack.quantiles import _joint, _joint_float, _release
from dppack.quantiles._joint import joint_exp as _joint_exp
from dppack.quantiles._joint_float import joint_float_slack, joint_loss_eps
from dppack.stats import _quantile as stats_quantile

ALPHA = 1e-3
GLU = np.asarray(load_pima()["glu"], dtype=np.float64)


# --------------------------------------------------------------------------------------------
# The floating-point bound
# --------------------------------------------------------------------------------------------


def _exact_dp(widths, d, beta, n, m, context):
    """The dynamic program's log weights (E_j, C_j, last) in Decimal arithmetic of
    ``context`` (60 digits), by their definitions (direct O(m n^2) sums), for the doubles
    d and beta as given: the exact mechanism the float program approximates."""
    D = decimal.Decimal
    beta, d = D(beta), [D(v) for v in d]
    size = len(widths)

    def lse(values):
        finite = [v for v in values if v is not None]
        if not finite:
            return None
        top = max(finite)
        return top + context.ln(sum(context.exp(v - top) for v in finite))

    def vol(w, r):
        return None if w == 0 else context.ln(D(math.comb(int(w) + r - 1, r)))

    c = [[-beta * abs(D(k) - d[0]) for k in range(size)]]
    e = []
    for j in range(1, m + 1):
        row = []
        for k in range(size):
            terms = []
            for r in range(1, j + 1):
                v = vol(widths[k], r)
                if v is None or c[j - r][k] is None:
                    continue
                terms.append(c[j - r][k] + v - beta * sum(d[j - r + 1:j], D(0)))
            row.append(lse(terms))
        e.append(row)
        if j < m:
            c.append([lse([None if e[-1][q] is None else
                           e[-1][q] - beta * abs(D(k - q) - d[j]) for q in range(k)])
                      for k in range(size)])
    last = [None if e[-1][k] is None else e[-1][k] - beta * abs(D(n - k) - d[m])
            for k in range(size)]
    return e, c, last


def _max_error(got, want):
    worst = 0.0
    for g, w in zip(np.asarray(got).ravel(), want):
        if w is None:
            assert g == -np.inf
        else:
            worst = max(worst, abs(float(decimal.Decimal(float(g)) - w)))
    return worst


@pytest.mark.parametrize("eps, ties", [(40.0, False), (3.0, True)])
def test_dp_log_weights_within_the_proved_bound(eps, ties):
    # Every log weight of the float program (E_j, C_j, the last terms, log Z) against the
    # exact one (60-digit Decimal): within tau_f of joint_float_slack, whose e is the error
    # of one operation. Deterministic. Large eps: log weights down to -beta n (the bound's
    # magnitude term); ties: empty intervals (-inf). The errors are also nonzero (the test
    # sees the float arithmetic).
    rng = np.random.default_rng(3)
    n, quants = 70, np.array([0.2, 0.5, 0.9])
    values = rng.random(n)
    if ties:
        values[::3] = 0.5
    m = quants.size
    beta = eps / 4.0
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    order = _joint._Order(np.clip(values, 0.0, 1.0), 0.0, 1.0)
    order.prepare([0], [n + 1])
    every = np.arange(n + 1, dtype=np.int64)
    dp = _joint._joint_dp(order, every, np.ones((m, n + 1), dtype=bool), d, beta)
    context = decimal.Context(prec=60)
    e, c, last = _exact_dp(dp.widths, d, beta, n, m, context)
    _, first, end = order.grid
    _, tau_f, _ = _joint_float._joint_error_bounds(n, m, beta, end - first)
    errors = [_max_error(dp.e["in"][j], e[j]) for j in range(m)]
    errors += [_max_error(dp.c["in"][j], c[j]) for j in range(m)]
    errors.append(_max_error(dp.last["in"], last))
    finite = [v for v in last if v is not None]
    top = max(finite)
    log_z = top + context.ln(sum(context.exp(v - top) for v in finite))
    errors.append(abs(float(decimal.Decimal(dp.log_z) - log_z)))
    assert 0 < max(errors) <= tau_f, (max(errors), tau_f)


def test_prefix_logsumexp_blocks():
    # The blocked prefix against a running logaddexp (close) and its chain length; sizes
    # below, at and above one and two block levels; -inf entries.
    rng = np.random.default_rng(4)
    for size in (1, 5, 64, 65, 200, 4097, 5000):
        x = rng.normal(0, 30, size)
        x[rng.random(size) < 0.1] = -np.inf
        got = _joint._prefix_logsumexp(x)
        want = np.logaddexp.accumulate(x)
        finite = np.isfinite(want)
        assert np.array_equal(np.isfinite(got), finite)
        assert np.allclose(got[finite], want[finite], rtol=0, atol=1e-9)
    assert _joint.prefix_chain(64) == 63 and _joint.prefix_chain(65) == 65
    assert _joint.prefix_chain(5000) == 64 + 64 + 1  # 5000 -> 79 -> 2 blocks


def test_slack_grows_with_n_beta_and_m():
    small = joint_float_slack(532, 3, 1.0)
    assert 0 < small < 1e-9
    assert joint_float_slack(10 ** 6, 3, 1.0) > 100 * small
    assert joint_float_slack(532, 3, 5.0) > joint_float_slack(532, 3, 1.0)
    assert joint_float_slack(532, 9, 1.0) > small
    # under 'unbounded' n is private: the slack of UNBOUNDED_RECORDS whatever n is
    assert (joint_float_slack(5, 3, 1.0, 1.5, which_sensitivity="unbounded")
            == joint_float_slack(10 ** 6, 3, 1.0, 1.5, which_sensitivity="unbounded")
            >= joint_float_slack(_joint_float.UNBOUNDED_RECORDS, 3, 1.0, 1.5))


def test_joint_charges_eps_and_runs_below_it_by_its_slack(monkeypatch):
    """The release is eps-DP with its slack: JointExp runs at eps' with eps' + slack(eps')
    <= eps, and the accountant is charged eps exactly (a budget of exactly eps suffices)."""
    seen = []
    real = _joint.joint_exp

    def spy(values, quants, eps, *args, **kwargs):
        seen.append(eps)
        return real(values, quants, eps, *args, **kwargs)

    monkeypatch.setattr(_release, "joint_exp", spy)
    q = [0.25, 0.5, 0.75]
    _, first, last = _joint.joint_grid(40.0, 250.0)
    cases = [({}, GLU.size, last - first, "bounded"),
             ({"resolution": 1}, GLU.size, 211 * _joint.SUBPOINTS, "bounded"),
             ({"which_sensitivity": "unbounded"}, _joint_float.UNBOUNDED_RECORDS, last - first,
              "unbounded")]
    for kwargs, n, points, which in cases:
        acc = BudgetAccountant(1.0)  # exactly eps: no room for a slack on top
        dppack.quantilesDP(GLU, q, 1.0, 40, 250, method="joint", random_state=1,
                           accountant=acc, **kwargs)
        assert acc.ledger[-1][1].eps == 1.0
        sensitivity = _joint.joint_sensitivity(np.asarray(q), which)
        assert seen[-1] < 1.0
        assert joint_loss_eps(seen[-1], n, 3, sensitivity, points, which) <= 1.0
        assert seen[-1] > 1.0 - (1e-3 if which == "unbounded" else 1e-8)
    # 'unbounded': the same eps' for 10 records and for 532 (n is private)
    for data in (GLU[:10], GLU):
        dppack.quantilesDP(data, q, 1.0, 40, 250, method="joint", random_state=1,
                           which_sensitivity="unbounded")
    assert seen[-1] == seen[-2]
    # eps too small to hold the slack: refused before anything is charged or drawn
    acc = BudgetAccountant(1.0)
    with pytest.raises(ValueError, match="too small"):
        dppack.quantilesDP(GLU, q, 1e-300, 40, 250, method="joint", accountant=acc)
    assert acc.ledger == []


# --------------------------------------------------------------------------------------------
# The law, on a resolution
# --------------------------------------------------------------------------------------------


def _lattice_law(data, quants, eps, lower, upper, resolution, bits):
    """The exact law of the lattice outputs: the average over every placement of the
    records on lattice points (2^bits cuts each) of JointExp on the refined candidates
    (G = 2^bits + 1 per lattice point), by enumeration of the refined m-tuples."""
    lattice = stats_quantile.check_resolution(resolution, lower, upper)
    g = 2 ** bits + 1
    positions = lattice.positions(np.clip(data, lower, upper))
    on = np.flatnonzero(positions % 2 == 1)
    n, m = data.size, len(quants)
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    cells = lattice.size * g
    law = {}
    for cuts in itertools.product(range(1, 2 ** bits + 1), repeat=on.size):
        coords = (positions // 2) * g
        coords[on] += np.array(cuts, dtype=np.int64)
        weights = {}
        for tup in itertools.combinations_with_replacement(range(cells), m):
            counts = [int(np.sum(coords <= t)) for t in tup]
            path = [0, *counts, n]
            u = -sum(abs(path[j] - path[j - 1] - d[j - 1]) for j in range(1, m + 2))
            weights[tup] = math.exp(eps * u / 4.0)
        total = sum(weights.values())
        for tup, w in weights.items():
            key = tuple(t // g for t in tup)
            law[key] = law.get(key, 0.0) + w / total / 2 ** (bits * on.size)
    return law


def test_joint_resolution_law_matches_enumeration(monkeypatch):
    # Chi-square of 1500 draws against the enumerated law (2 cuts per lattice point,
    # monkeypatched, so that the placements can be enumerated): ties, a record off the
    # lattice (2.5), a record clipped to the bound. False-failure rate 1e-3.
    monkeypatch.setattr(_joint, "SUBPOINT_BITS", 1)
    monkeypatch.setattr(_joint, "SUBPOINTS", 3)
    monkeypatch.setattr(_release, "SUBPOINTS", 3)
    data = np.array([1.0, 1.0, 2.0, 2.5, 2.0, 7.0])
    quants = (0.3, 0.7)
    law = _lattice_law(data, quants, 3.0, 0.0, 3.0, 1.0, 1)
    lattice = stats_quantile.check_resolution(1.0, 0.0, 3.0)
    rng = np.random.default_rng(8)
    counts = {}
    draws = 1500
    for _ in range(draws):
        out = _joint_exp(np.clip(data, 0.0, 3.0), np.array(quants), 3.0, 0.0, 3.0, rng,
                         lattice=lattice)
        key = tuple(int(v) for v in out)
        counts[key] = counts.get(key, 0) + 1
    assert all(law.get(k, 0) > 0 for k in counts)
    keys = sorted(law)
    observed = np.array([counts.get(k, 0) for k in keys])
    expected = np.array([law[k] for k in keys]) * draws
    small = expected < 5
    if small.any():
        observed = np.r_[observed[~small], observed[small].sum()]
        expected = np.r_[expected[~small], expected[small].sum()]
    assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_joint_resolution_reaches_the_true_quartiles():
    # Pima glucose (integers, ties) at eps 20: every release is the lattice point whose ties
    # span the target rank q n (lt <= q n <= le) in at least 18 of 20 draws (each quartile
    # is wrong with probability below 1e-3 by the enumerated margins: P(fail) < 1e-4).
    # Without a resolution the releases are never whole numbers.
    quants = np.array([0.25, 0.5, 0.75])
    targets = quants * GLU.size
    hits = 0
    for seed in range(20):
        out = dppack.quantilesDP(GLU, quants, 20.0, 40, 250, method="joint", resolution=1,
                                 random_state=seed)
        lt = np.array([np.sum(GLU < v) for v in out])
        le = np.array([np.sum(GLU <= v) for v in out])
        hits += bool(np.all((lt <= targets) & (targets <= le)))
    assert hits >= 18
    plain = dppack.quantilesDP(GLU, quants, 20.0, 40, 250, method="joint", random_state=0)
    assert not np.any(plain == np.round(plain))


def test_joint_resolution_checks_and_outputs():
    # outputs are candidates of the lattice (including off-integer bounds), sorted; a bad
    # resolution is refused before the data are read
    out = dppack.quantilesDP(GLU, [0.1, 0.5, 0.9], 0.5, 40.5, 250, method="joint",
                             resolution=2.0, random_state=3)
    assert np.all(np.diff(out) >= 0) and np.allclose((out - 40.5) / 2.0,
                                                     np.round((out - 40.5) / 2.0))
    with pytest.raises(ValueError, match="resolution"):
        dppack.quantilesDP("not data", [0.5], 1.0, 0, 1, method="joint", resolution=-1)
    # 'unbounded' with no data: the release on the empty dataset, a candidate
    out = dppack.quantilesDP([], [0.5], 1.0, 0, 4, method="joint", resolution=1,
                             which_sensitivity="unbounded", random_state=1)
    assert out[0] in (0.0, 1.0, 2.0, 3.0, 4.0)


# --------------------------------------------------------------------------------------------
# The windows' mixture: the outside drawn from its own program
# --------------------------------------------------------------------------------------------


def test_mixture_outside_branch_law(monkeypatch):
    # The bound U on the outside's weight is made nearly tight (monkeypatched volume), so
    # that the whole program runs with probability p < 1 and its 'out' draw is taken with
    # probability pi / p: chi-square of the interval vectors against the exact law, and
    # both branches seen. False-failure rate 1e-3.
    data = np.array([0.1, 0.35, 0.4, 0.8, 0.55, 0.9, 0.2])
    quants, eps, half = np.array([0.3, 0.6]), 6.0, 1.0
    n, m, beta = data.size, 2, 6.0 / 4.0
    order = _joint._Order(np.clip(data, 0, 1), 0.0, 1.0)
    order.prepare([0], [n + 1])
    edges = order.at(np.arange(n + 2))
    widths = np.diff(edges)
    d = np.diff(np.concatenate([[0.0], quants, [1.0]])) * n
    lo, hi = _joint._windows(quants * n, half, n)
    law, z_out = {}, 0.0
    for ks in itertools.combinations_with_replacement(range(n + 1), m):
        volume = math.prod(math.comb(int(widths[k]) + ks.count(k) - 1, ks.count(k))
                           for k in set(ks))
        path = (0, *ks, n)
        u = -sum(abs(path[j] - path[j - 1] - d[j - 1]) for j in range(1, m + 2))
        law[ks] = volume * math.exp(beta * u)
        if not all(lo[j] <= ks[j] <= hi[j] for j in range(m)):
            z_out += law[ks]
    total = sum(law.values())
    z_w = total - z_out
    assert 0.01 < z_out / total and 4 * 1.5 * z_out < z_w  # p = 6 Z_out / Z_W < 1
    log_u = math.log(1.5 * z_out)
    monkeypatch.setattr(_joint, "_log_multisets", lambda w, r: log_u + beta * half)
    taken = {"out": 0}
    original = _joint._JointDP.sample

    def counting(self, rng, flag="in"):
        taken["out"] += flag == "out"
        return original(self, rng, flag)

    monkeypatch.setattr(_joint._JointDP, "sample", counting)
    rng = np.random.default_rng(9)
    draws, counts = 1500, {}
    xs = np.sort(data)
    for _ in range(draws):
        out = _joint_exp(np.clip(data, 0, 1), quants, eps, 0.0, 1.0, rng, half=half)
        k = tuple(int(v) for v in np.searchsorted(xs, out, side="right"))
        counts[k] = counts.get(k, 0) + 1
    assert 0 < taken["out"] < draws
    keys = sorted(law)
    observed = np.array([counts.get(k, 0) for k in keys])
    expected = np.array([law[k] / total for k in keys]) * draws
    small = expected < 5
    observed = np.r_[observed[~small], observed[small].sum()]
    expected = np.r_[expected[~small], expected[small].sum()]
    assert stats.chisquare(observed, expected).pvalue > ALPHA
