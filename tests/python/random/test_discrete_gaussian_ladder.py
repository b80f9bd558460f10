"""The one-word discrete Gaussian ladder of the Brownian noise-reduction path
(``dppack._random.discrete_gaussian_ladder``): its law on the fast path and on the exact
continuation alone (``_random.FORCE_EXACT_PATH``), its envelope (blocks of whole buckets
bounding the target), its tail piece, and the path that uses it against the row sampler
it replaced (the same law).

Statistical tests run at level ALPHA = 0.001 with fixed seeds (deterministic); with fresh
seeds each would fail falsely with probability 0.001 (chi-square tests on cells of expected
count >= 20; the two-sample KS tests at ALPHA / 3 each).
"""

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from dppack import _random
from dppack.accuracy_first import noise_reduction as nr

ALPHA = 0.001


def _chi2_gaussian(z, p, cells=24):
    """p-value of a chi-square test of the integer draws z against N_Z(0, p), in cells cut at
    -3 .. 3 sigma (exact tails: ``_random.discrete_gaussian_tail``)."""
    cuts = sorted(set(np.round(np.linspace(-3, 3, cells - 1) * math.sqrt(p)).astype(int)))
    upper = np.array([_random.discrete_gaussian_tail(int(c), float(p)) for c in cuts])
    probabilities = np.concatenate([[1 - upper[0]], upper[:-1] - upper[1:], [upper[-1]]])
    z = np.asarray(z, dtype=np.int64)
    observed = np.bincount(np.searchsorted(cuts, z, side="right"), minlength=len(cuts) + 1)
    return stats.chisquare(observed, probabilities * z.size).pvalue


# sigma 2^11 (the smallest variance of the ladder's domain), 12345, 2^19.5 and 2^20 (the
# noise-reduction grids put sigma near 2^19-2^20), in one call: each row its own law
VARIANCES = (1 << 22, 12_345 ** 2, 1 << 39, 1 << 40)


def test_ladder_law_per_row():
    rng = np.random.default_rng(31)
    z = _random.discrete_gaussian_ladder(VARIANCES, 40_000, rng)
    assert z.shape == (len(VARIANCES), 40_000) and z.dtype == np.int64
    for row, p in zip(z, VARIANCES):
        assert _chi2_gaussian(row, p) > ALPHA / len(VARIANCES)
    # the rows are independent: the correlation of two rows of the same call
    r = np.corrcoef(z[2], z[3])[0, 1]
    assert abs(r) * math.sqrt(z.shape[1]) < stats.norm.isf(ALPHA / 2)


def test_ladder_power_and_chunks():
    # more than one pass (2^16 trials), and a power check (sigma 5% larger is told apart)
    rng = np.random.default_rng(32)
    p = 1 << 30
    z = _random.discrete_gaussian_ladder((p,), _random._LADDER_CHUNK + 20_000, rng)
    assert _chi2_gaussian(z[0], p) > ALPHA
    wrong = _random.discrete_gaussian_ladder((int(p * 1.05 ** 2),), 40_000, rng)
    assert _chi2_gaussian(wrong[0], p) < ALPHA


def test_ladder_exact_path(monkeypatch):
    # every trial decided by the exact continuation (rational bounds of F exp(-v^2 / (2 p)))
    monkeypatch.setattr(_random, "FORCE_EXACT_PATH", True)
    rng = np.random.default_rng(33)
    p = 1 << 22
    z = _random.discrete_gaussian_ladder((p, p), 1200, rng).ravel()
    assert _chi2_gaussian(z, p, cells=12) > ALPHA


@pytest.mark.parametrize("p", [1 << 22, 12_345 ** 2, (1 << 56) - 1])
def test_ladder_envelope(p):
    # M_k >= F exp(-(b k)^2 / (2 p)) exactly, every block a whole number of buckets, the
    # total (blocks, tail's buckets) at most 2^63, q + 1 <= M_k < 2^52 exact in floats
    b, beta, kmax, F, M, tail_start, w_tail = _random._ladder_envelope(p)
    unit = 1 << (63 - _random._LADDER_GUIDE)
    assert b * kmax >= _random._LADDER_SIGMAS * math.sqrt(p) and 16 * b > math.sqrt(p) >= 8 * b
    for k in (0, 1, kmax // 2, kmax - 1):
        lo, hi = _random.exp_series_bounds(Fraction((b * k) ** 2, 2 * p), 0, 1, 80)
        assert M[k] * hi >= F  # M_k >= F / exp((b k)^2 / (2 p))
    assert all((b * m) % unit == 0 for m in M) and max(M) < 2 ** 52
    assert b * sum(M) <= tail_start < 2 ** 63 and 2 ** 63 - tail_start == w_tail
    # the tail's weight bounds F times its envelope's mass (floats, with room)
    Y0 = b * kmax
    mass = math.exp(-Y0 ** 2 / (2 * p)) / -math.expm1(-Y0 / p)
    assert w_tail >= F * mass * (1 - 1e-9)


def test_ladder_tables_name_the_blocks():
    # the buckets of each row give the block of every u: y's first value, and q + 1 =
    # u / b + qbase (the offset's q, for u anywhere in the bucket), against the cumulative
    # weights (bisection on Python integers)
    ps = (1 << 22, 1 << 40)
    ybase, qbase, offset = _random._ladder_tables(ps)[:3]
    unit = 1 << (63 - _random._LADDER_GUIDE)
    for j, p in enumerate(ps):
        b, beta, kmax, F, M, tail_start, _ = _random._ladder_envelope(p)
        starts = np.cumsum([0] + [b * m for m in M])
        for bucket in range(0, 1 << _random._LADDER_GUIDE, 7):
            u = bucket * unit
            k = int(np.searchsorted(starts, u, side="right")) - 1
            index = int(offset[j, 0]) + bucket
            if k < kmax:
                assert ybase[index] == b * k
                for v in (u, u + unit // 3, u + unit - 1):
                    assert (v >> beta) + int(qbase[index]) == 1 + ((v - int(starts[k])) >> beta)
            else:  # rejecting buckets and the tail's: never accepted by the floats
                assert qbase[index] == 1 << 53


def test_ladder_tail_piece():
    # the tail (|v| >= 6 sigma, about 2e-9 of the trials, never reached by chance) draws the
    # target there: accepted values against P(v) proportional to exp(-v^2 / (2 p)) on
    # v >= Y0 and v <= -(Y0 + 1). A large F makes the tail's constant coin near 1 (the same
    # law) and the accepted draws plentiful.
    p = 1 << 22
    b, beta, kmax, F, M, tail_start, w_tail = _random._ladder_envelope(p)
    Y0 = b * kmax
    rng = np.random.default_rng(34)
    mass = math.exp(-Y0 ** 2 / (2 * p)) / -math.expm1(-Y0 / p)
    big = 2 ** 120
    envelope = (b, beta, kmax, big, M, (1 << 63) - math.ceil(big * mass * (1 + 1e-9)),
                math.ceil(big * mass * (1 + 1e-9)))
    original = _random._ladder_envelope
    try:
        _random._ladder_envelope = lambda q: envelope
        drawn = [_random._ladder_exact(p, (1 << 63) - 1, bool(i % 2), rng) for i in range(3000)]
    finally:
        _random._ladder_envelope = original
    values = np.array([v for v in drawn if v is not None])
    assert values.size > 2500
    assert (values[values >= 0] >= Y0).all() and (values[values < 0] <= -(Y0 + 1)).all()
    depth = np.where(values >= 0, values - Y0, -values - Y0 - 1)  # 0, 1, ... into each tail
    ys = np.arange(0, 4000)
    weights = {0: np.exp(-((Y0 + ys) ** 2 - Y0 ** 2) / (2 * p)),
               1: np.exp(-((Y0 + 1 + ys) ** 2 - Y0 ** 2) / (2 * p))}
    cuts = np.array([100, 250, 450, 700, 1000, 1400])
    for side, chosen in ((0, values >= 0), (1, values < 0)):
        pmf = weights[side] / weights[side].sum()
        cells = np.searchsorted(cuts, ys, side="right")
        expected = np.bincount(cells, weights=pmf, minlength=len(cuts) + 1) * chosen.sum()
        observed = np.bincount(np.searchsorted(cuts, depth[chosen], side="right"),
                               minlength=len(cuts) + 1)
        assert stats.chisquare(observed, expected).pvalue > ALPHA / 2
    # the mass of each side: v >= Y0 against v <= -(Y0 + 1)
    share = weights[0].sum() / (weights[0].sum() + weights[1].sum())
    test = stats.binomtest(int((values >= 0).sum()), values.size, share)
    assert test.pvalue > ALPHA


def test_brownian_path_uses_the_ladder_with_the_same_law():
    # the path of 20 values (the ladder) against the row sampler it replaced (up to 640
    # values before) and the entry-by-entry path: the same marginal law per level
    s = np.array([16.0, 8.0, 4.0, 2.0, 1.0])
    k, variances = nr.gaussian_path_grid(s, 1.0, 20)
    assert all(_random.LADDER_MIN_P <= p < 2 ** 56 for p in variances)
    rng = np.random.default_rng(35)
    ladder = np.concatenate([nr.gaussian_noise_path(np.zeros(20), s, 1.0, rng)
                             for _ in range(400)], axis=1)
    rows = _random.discrete_gaussian_blocks_rows(variances, 8000, rng)
    path = np.cumsum(rows, axis=0)[::-1] * 2.0 ** k
    for t in range(len(s)):
        assert stats.ks_2samp(ladder[t], path[t]).pvalue > ALPHA / 3
    # each level's grid units: Z_t against N_Z(0, p_T + ... + p_t)'s standard deviation
    z = np.rint(ladder / 2.0 ** k)
    for t in range(len(s)):
        sd = math.sqrt(sum(variances[:len(s) - t]))
        assert abs(z[t].std() / sd - 1) < 0.05


class _Scripted:
    """A generator whose first words are given (then those of a seeded PCG64): the words of
    ``dppack._exact.words`` through ``integers``, as for any bit generator without 64-bit raw
    output."""

    def __init__(self, first, seed):
        self.queue = [int(w) for w in first]
        self.rng = np.random.default_rng(seed)
        self.bit_generator = object()

    def integers(self, low, high, size=None, dtype=np.int64):
        out = self.rng.integers(low, high, size=size, dtype=dtype)
        k = min(len(self.queue), out.size)
        out.flat[:k] = self.queue[:k]
        del self.queue[:k]
        return out


@pytest.mark.parametrize("q,accepted", [(-2, True), (-1, True), (0, False), (1, False)])
def test_ladder_decides_at_the_boundary(q, accepted):
    # the trial v = 0 in block 0 with q = F - 2, F - 1 (q + U' < F for every U': accepted;
    # F - 1 is the float decision's undecided band, settled exactly), F, F + 1 (rejected):
    # the first value released is 0 exactly when the scripted trial is accepted
    p = 1 << 22
    b, beta, kmax, F, M, tail_start, _ = _random._ladder_envelope(p)
    word = (F + q) << beta  # sign 0, r = 0, the offset's q = F + q
    z = _random.discrete_gaussian_ladder((p,), 1, _Scripted([word], 36))
    assert (int(z[0, 0]) == 0) == accepted


def test_ladder_accepts_below_the_threshold():
    # X = F exp(-v^2 / (2 p)) with a fractional part in (0.9, 0.99) and q = floor(X): the
    # trial is accepted with probability X - q (U' < X - q), although q + 1 > X (the float
    # decision must leave it to the exact continuation, never reject it): accepted in most
    # of 40 runs (binomial, p > 0.9: fewer than 28 has probability below 1e-6)
    p = (1 << 55) + (1 << 40)
    p = _random.gaussian_variance(p)
    b, beta, kmax, F, M, tail_start, _ = _random._ladder_envelope(p)
    for v in range(1 << 18, b, 1 << 16):
        lo, hi = _random.exp_series_bounds(Fraction(v * v, 2 * p), 0, 1, 90)
        X = F / hi
        if Fraction(9, 10) < X - math.floor(X) < Fraction(99, 100):
            break
    else:
        raise AssertionError("no v found")
    word = (math.floor(X) << beta) | v
    runs = [_random.discrete_gaussian_ladder((p,), 1, _Scripted([word], seed))[0, 0]
            for seed in range(40)]
    assert sum(int(z) == v for z in runs) >= 28


def test_ladder_fine_structure():
    # the law at the scale of single values, where the cells of _chi2_gaussian see nothing:
    # v mod b (r = u's low bits, the block edges, a sign tied to u's bits would empty the
    # odd residues) and the values -3 .. 3 one by one (the negative values are -(y + 1):
    # v = -y would double P(0)); 2,000,000 draws at the smallest variance, chi-square at
    # ALPHA / 2 each
    p = _random.LADDER_MIN_P
    b = _random._ladder_envelope(p)[0]
    z = _random.discrete_gaussian_ladder((p,), 2_000_000, np.random.default_rng(37))[0]
    v = np.arange(-16 * 2048, 16 * 2048 + 1)
    pmf = np.exp(-(v.astype(np.float64) ** 2) / (2 * p))
    pmf /= pmf.sum()
    expected = np.bincount(np.mod(v, b), weights=pmf, minlength=b) * z.size
    observed = np.bincount(np.mod(z, b), minlength=b)
    assert stats.chisquare(observed, expected).pvalue > ALPHA / 2
    near = np.abs(v) <= 3
    expected = np.append(pmf[near], 1 - pmf[near].sum()) * z.size
    observed = np.array([np.count_nonzero(z == value) for value in v[near]])
    observed = np.append(observed, z.size - observed.sum())
    assert stats.chisquare(observed, expected).pvalue > ALPHA / 2


class _Batch:
    """A generator whose first batch of words is given (padded with ``pad``), every later
    batch zeros (u = 0: v = 0, q = 0, accepted by the floats)."""

    def __init__(self, words, pad):
        self.words, self.pad, self.bit_generator = list(words), pad, object()

    def integers(self, low, high, size=None, dtype=np.int64):
        out = np.zeros(size, dtype=np.uint64)
        if self.words:
            out[:] = self.pad
            out[:len(self.words)] = self.words
            self.words = []
        return out


@pytest.mark.parametrize("p", [1 << 22, 12_345 ** 2, (1 << 40) + 7, (1 << 56) - 1])
def test_ladder_float_decisions_are_exact(p, monkeypatch):
    # the trials at the acceptance boundary, deterministically: for the first and last y of
    # every block, both signs, the word with q = floor(X) + d (X = F exp(-v^2 / (2 p)),
    # exact bounds), d = -1, 0, 1. A trial the floats accept must have q + 1 <= X, one
    # they reject q >= X; q = floor(X) (q < X < q + 1) is never decided by the floats.
    # The exact continuation is replaced by a recorder (its own law is tested above).
    b, beta, kmax, F, M, tail_start, _ = _random._ladder_envelope(p)
    starts = np.cumsum([0] + [b * m for m in M]).tolist()
    ys = sorted({y for k in range(kmax) for y in (b * k, b * k + b - 1)})
    trials = {}  # v -> (u, X's floor)
    for v in [y for y in ys if y > 0] + [-(y + 1) for y in ys]:
        y = v if v >= 0 else -v - 1
        lo, hi = _random._ladder_accept_bounds(p, v, F, 110)
        if math.floor(lo) == math.floor(hi):  # (v < 0 has the offset r = b - 1 - y mod b)
            trials[v] = (y // b, y % b if v >= 0 else b - 1 - y % b, math.floor(lo))
    recorded = []
    monkeypatch.setattr(_random, "_ladder_exact",
                        lambda p_, u, negative, rng: recorded.append((u, negative)))
    decided = {-1: 0, 0: 0, 1: 0}
    for d in (-1, 0, 1):
        words, where = [], {}
        for v, (k, r, floor) in trials.items():
            q = floor + d
            if 0 <= q < M[k]:
                u = starts[k] + q * b + r
                words.append(((1 << 63) if v < 0 else 0) | u)
                where[(u, v < 0)] = v
        recorded.clear()
        z = _random.discrete_gaussian_ladder((p,), len(words), _Batch(words, (1 << 63) - 1))
        accepted = set(z[0].tolist()) - {0}
        undecided = {where[key] for key in recorded if key in where}
        assert not accepted & undecided
        for v in where.values():
            floor = trials[v][2]
            q = floor + d
            if v in accepted:
                assert q + 1 <= floor, (p, v, d)  # q + 1 <= X
            elif v not in undecided:
                assert q >= floor + 1, (p, v, d)  # q >= X
        decided[d] = len(where) - len(undecided)
    assert decided[0] == 0 and decided[-1] > 0 and decided[1] > 0


def test_ladder_tail_constant_coin():
    # the tail's second coin, accepted with c = F exp(-Y0^2 / (2 p)) / (w_tail (1 - q)):
    # an envelope with twice the tail's weight halves c, and the tail trials are accepted
    # at the rate c E[exp(-(v^2 - Y0^2 - 2 Y0 g) / (2 p))] (g geometric), per side
    # (binomial tests at ALPHA / 2; a dropped coin doubles the rate)
    p = 1 << 22
    b, beta, kmax, F, M, tail_start, w_tail = _random._ladder_envelope(p)
    Y0 = b * kmax
    q = math.exp(-Y0 / p)
    mass = math.exp(-Y0 ** 2 / (2 * p)) / (1 - q)
    big = 2 ** 120
    w = 2 * math.ceil(big * mass)
    envelope = (b, beta, kmax, big, M, (1 << 63) - w, w)
    c = big * mass / w
    g = np.arange(0, 40_000, dtype=np.float64)
    weights = (1 - q) * q ** g
    first = {False: np.sum(weights * np.exp(-g ** 2 / (2 * p))),
             True: np.sum(weights * np.exp(-(g ** 2 + 2 * g + 2 * Y0 + 1) / (2 * p)))}
    original = _random._ladder_envelope
    rng = np.random.default_rng(38)
    try:
        _random._ladder_envelope = lambda _: envelope
        for negative in (False, True):
            drawn = [_random._ladder_exact(p, (1 << 63) - 1, negative, rng) for _ in range(1500)]
            hits = sum(v is not None for v in drawn)
            assert stats.binomtest(hits, 1500, c * first[negative]).pvalue > ALPHA / 2
    finally:
        _random._ladder_envelope = original
