"""The online noise-reduction step in chunks of entries (``noise_reduction.STEP_CHUNK``): each
entry's Z_{t+1} given Z_t keeps its exact conditional law, in its own position, whichever
chunk it falls in; and the batch path's in-place accumulation gives the path of its draws.

Chi-square tests at level ALPHA = 0.001 / 4 each (four starting values) with fixed seeds:
with fresh seeds the test would fail falsely with probability at most 0.001.
"""

import math
from fractions import Fraction

import numpy as np
from scipy import stats

from dppack.accuracy_first import _laplace_path as lp
from dppack.accuracy_first import noise_reduction as nr
from lazy_walk_checks import reduce_pmf

ALPHA = 0.001


def test_online_step_in_chunks(monkeypatch):
    monkeypatch.setattr(nr, "STEP_CHUNK", 64)
    a1, a2 = Fraction(3, 10), Fraction(1, 2)
    starts = np.array([0, 3, -7, 40])
    x = np.tile(starts, 8000).reshape(400, 80)  # 32,000 entries: 500 chunks, any shape
    y = nr._laplace_reduce_noise(x, a1, a2, np.random.default_rng(41))
    assert y.shape == x.shape and y.dtype == np.int64
    ys = np.arange(-80, 121)
    for value in starts:
        draws = y[x == value]
        expected = reduce_pmf(int(value), float(a1), float(a2), ys) * draws.size
        keep = expected >= 20
        observed = np.array([np.count_nonzero(draws == v) for v in ys[keep]])
        p_value = stats.chisquare(np.append(observed, draws.size - observed.sum()),
                                  np.append(expected[keep], draws.size - expected[keep].sum())
                                  ).pvalue
        assert p_value > ALPHA / len(starts)


def test_batch_path_accumulates_its_draws():
    # the integer path of 3000 entries (the large path): Z_t - Z_{t+1} is 0 or a fresh draw,
    # Z_T itself a draw; the rows differ where the coins failed and agree elsewhere
    units = 1 << 20
    levels = np.array([0.1, 0.2, 0.4, 0.7, 1.0])
    path = lp.integer_noise_path(3000, units, levels, np.random.default_rng(42))
    assert path.shape == (5, 3000) and path.dtype == np.int64
    moved = np.mean(path[:-1] != path[1:], axis=1)
    # the keep probability of level t is about (eps_t / eps_{t+1})^2 (rates' c ratio)
    keep = (levels[:-1] / levels[1:]) ** 2
    assert np.all(np.abs(moved - (1 - keep)) < 0.05)


def test_reduction_loss_is_the_difference_rounded_up():
    # the online charge's increment: the float difference, one ulp up exactly when it is
    # below the exact difference (Fast2Sum's error term against Fractions)
    import dppack

    rng = np.random.default_rng(43)
    online = dppack.LaplaceNoiseReductionOnline(1.0, 0.1, 1.0, random_state=1)
    eps = np.concatenate([rng.uniform(1e-3, 1, 300), 2.0 ** rng.integers(-60, 60, 300)
                          * rng.random(300)])
    steps = np.concatenate([rng.random(300) * 1e-15 + 1, rng.uniform(1.001, 9, 300)])
    rounded = 0
    for e, f in zip(eps.tolist(), steps.tolist()):
        level = math.nextafter(e, math.inf) if f < 1 + 1e-16 else e * f
        online.eps = e
        got = online._reduction_loss(level).eps
        exact = Fraction(level) - Fraction(e)
        assert Fraction(got) >= exact
        assert Fraction(math.nextafter(got, -math.inf)) < exact
        rounded += Fraction(level - e) < exact
    assert rounded > 50  # both branches are exercised
