"""Tests of noise reduction (Koufogiannis, Han and Pappas 2015; Ligett et al. 2017).

What is checked:

* the geometric level grid, against the formula written out here;
* the batch Laplace path: every level's marginal is close to Lap(Delta / eps_t) (KS; the grid
  noise is discrete Laplace on a grid 2^-20 of the scale), an entry stays unchanged between
  consecutive levels with about probability (eps_t / eps_{t+1})^2 (chi-square),
  Cov(eta_t, eta_s) = Var(eta_s) for s >= t, and the walk between levels does not depend on the
  data (what prefix privacy rests on);
* the online sampler: same marginals, same stay probability, and the same joint law of
  consecutive levels as the batch path (two-sample KS on the differences);
* the exact paths on the integer grid (the last section): the exact coins and series bounds,
  the discrete Laplace marginal of every level at small scales (chi-square, with a power
  check), the online step's joint law against the batch path's (chi-square of homogeneity),
  releases on one grid, the Gaussian path's grid, variances and charge;
* the Gaussian (Brownian) extension: variances and covariances of consecutive levels;
* validation: bad input raises before any noise is drawn, the caller's data are not modified;
* accounting: each release charges its accountant what its prefix costs (the last level; the
  online sampler per level), an overspend is refused with the generator untouched.

Statistical tests run at level ALPHA = 0.001 with fixed seeds, so the suite is deterministic;
under a fresh seed each would reject a correct implementation with probability 0.001.
"""

import math
import numpy as np
import pytest
from scipy import stats

import dppack
from accounting_checks import assert_refused_untouched
from dppack import (
    GaussianNoiseReduction,
    LaplaceNoiseReduction,
    LaplaceNoiseReductionOnline,
    privacy_level_grid,
)

ALPHA = 0.001
N = 20_000  # entries per statistical check
LEVELS = np.array([0.25, 0.5, 0.8, 2.0])
SENS = 1.5


def _chi2_keep(kept, total, p):
    """p-value of a chi-square goodness-of-fit test of `kept` successes out of `total`."""
    observed = [kept, total - kept]
    expected = [total * p, total * (1 - p)]
    return stats.chisquare(observed, expected).pvalue


# ---- grid ----------------------------------------------------------------------------------


def test_grid_is_geometric_without_eps_max():
    grid = privacy_level_grid(0.01, 10.0, 5)
    expected = [0.01 * 1000.0 ** (k / 5) for k in range(5)]
    np.testing.assert_allclose(grid, expected, rtol=1e-14)
    assert grid[0] == 0.01 and grid[-1] < 10.0
    assert np.all(np.diff(grid) > 0)


@pytest.mark.parametrize("args, message", [
    ((0, 1), "eps_min must be a scalar > 0"),
    ((1, 1), "eps_min must be < eps_max."),
    ((0.1, np.inf), "eps_max must be finite."),
    ((0.1, 1, 0), "n_levels must be a whole number >= 1."),
    ((0.1, 1, 2.5), "n_levels must be a whole number >= 1."),
])
def test_grid_errors(args, message):
    with pytest.raises(ValueError, match=message):
        privacy_level_grid(*args)


# ---- batch Laplace path --------------------------------------------------------------------


@pytest.fixture(scope="module")
def batch():
    """Releases of a vector of N zeros at LEVELS: row t is the noise at level t."""
    return LaplaceNoiseReduction(np.zeros(N), LEVELS, SENS, random_state=101)


def test_batch_marginals_are_laplace(batch):
    assert batch.shape == (LEVELS.size, N)
    for t, eps in enumerate(LEVELS):
        pvalue = stats.kstest(batch[t], stats.laplace(scale=SENS / eps).cdf).pvalue
        assert pvalue > ALPHA, (t, pvalue)


def test_batch_marginal_check_has_power(batch):
    # the same KS check rejects the law of the next level (a 60 % wrong scale)
    assert stats.kstest(batch[1], stats.laplace(scale=SENS / LEVELS[2]).cdf).pvalue < ALPHA


def test_batch_stay_probability(batch):
    for t in range(LEVELS.size - 1):
        kept = int(np.sum(batch[t] == batch[t + 1]))
        p = (LEVELS[t] / LEVELS[t + 1]) ** 2
        assert _chi2_keep(kept, N, p) > ALPHA, (t, kept / N, p)


def test_batch_covariance_is_variance_of_less_private_level(batch):
    # Cov(eta_t, eta_s) = Var(eta_s) = 2 (Delta / eps_s)^2 for s >= t; the sample covariance
    # of Laplace products has sd about 2.5 Var / sqrt(N); 5 sd bounds give < 1e-4 false rate
    for t, s in [(0, 1), (0, 3), (1, 2), (2, 3)]:
        var_s = 2.0 * (SENS / LEVELS[s]) ** 2
        cov = np.mean(batch[t] * batch[s])
        assert abs(cov - var_s) < 5 * 2.5 * 2.0 * (SENS / LEVELS[t]) ** 2 / np.sqrt(N)


def test_batch_walk_does_not_depend_on_the_data():
    # prefix privacy (Thm 2.7): given the last release, the rest is data-independent noise
    a = LaplaceNoiseReduction([0.0, 0.0, 0.0], LEVELS, SENS, random_state=5)
    b = LaplaceNoiseReduction([3.0, -7.0, 1e6], LEVELS, SENS, random_state=5)
    np.testing.assert_allclose(b - a, np.broadcast_to([3.0, -7.0, 1e6], a.shape), rtol=0,
                               atol=1e-9)


def test_batch_shape_of_a_matrix_and_reproducibility():
    value = np.arange(6.0).reshape(2, 3)
    copy = value.copy()
    first = LaplaceNoiseReduction(value, [1.0, 2.0], 2.0, random_state=3)
    again = LaplaceNoiseReduction(value, [1.0, 2.0], 2.0, random_state=np.random.default_rng(3))
    assert first.shape == (2, 2, 3)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(value, copy)


@pytest.mark.parametrize("kwargs, message", [
    ({"eps": [1.0, 1.0]}, "eps must be strictly increasing"),
    ({"eps": [2.0, 1.0]}, "eps must be strictly increasing"),
    ({"eps": [0.0, 1.0]}, "Every value of eps must be finite and > 0."),
    ({"eps": [1.0, np.inf]}, "Every value of eps must be finite and > 0."),
    ({"sensitivity": -1}, "sensitivity must be a scalar > 0"),
    ({"true_values": [1.0, np.nan]}, "true_values must be finite"),
    ({"true_values": ["a"]}, "true_values must be numeric."),
])
def test_batch_errors_draw_nothing(kwargs, message):
    rng = np.random.default_rng(1)
    state = rng.bit_generator.state
    args = {"true_values": [1.0, 2.0], "eps": [0.5, 1.0], "sensitivity": 1.0}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message):
        LaplaceNoiseReduction(random_state=rng, **args)
    assert rng.bit_generator.state == state


# ---- online Laplace path -------------------------------------------------------------------


@pytest.fixture(scope="module")
def online():
    """Online releases of N zeros at LEVELS, one row per level."""
    sampler = LaplaceNoiseReductionOnline(np.zeros(N), LEVELS[0], SENS, random_state=202)
    rows = [sampler.release.copy()]
    for eps in LEVELS[1:]:
        rows.append(sampler.reduce(eps).copy())
    assert sampler.levels == list(LEVELS) and sampler.eps == LEVELS[-1]
    return np.array(rows)


def test_online_marginals_are_laplace(online):
    for t, eps in enumerate(LEVELS):
        pvalue = stats.kstest(online[t], stats.laplace(scale=SENS / eps).cdf).pvalue
        assert pvalue > ALPHA, (t, pvalue)


def test_online_stay_probability(online):
    for t in range(LEVELS.size - 1):
        kept = int(np.sum(online[t] == online[t + 1]))
        assert _chi2_keep(kept, N, (LEVELS[t] / LEVELS[t + 1]) ** 2) > ALPHA


def test_online_and_batch_have_the_same_joint_law(online, batch):
    for t in range(LEVELS.size - 1):
        moved_online = online[t] != online[t + 1]
        moved_batch = batch[t] != batch[t + 1]
        # the law of the jump where it moved, and the jump against the less private value
        d_online = (online[t] - online[t + 1])[moved_online]
        d_batch = (batch[t] - batch[t + 1])[moved_batch]
        assert stats.ks_2samp(d_online, d_batch).pvalue > ALPHA
        p_online = online[t + 1][moved_online] * np.sign(d_online)
        p_batch = batch[t + 1][moved_batch] * np.sign(d_batch)
        assert stats.ks_2samp(p_online, p_batch).pvalue > ALPHA


def test_online_errors():
    sampler = LaplaceNoiseReductionOnline([1.0, 2.0], 1.0, 1.0, random_state=1)
    before = sampler.release.copy()
    with pytest.raises(ValueError, match="noise can only be reduced"):
        sampler.reduce(0.5)
    with pytest.raises(ValueError, match="eps must be finite."):
        sampler.reduce(np.inf)
    np.testing.assert_array_equal(sampler.release, before)
    with pytest.raises(ValueError, match="sensitivity must be a scalar > 0"):
        LaplaceNoiseReductionOnline([1.0], 1.0, 0.0)


# ---- Gaussian (Brownian) extension ---------------------------------------------------------


def test_gaussian_levels_variances_and_covariances():
    s = np.array([4.0, 1.0, 0.25])
    path = GaussianNoiseReduction(np.zeros(N), s, random_state=303)
    for t in range(3):
        assert stats.kstest(path[t], stats.norm(scale=np.sqrt(s[t])).cdf).pvalue > ALPHA
    for t in range(2):
        # Cov(eta_t, eta_{t+1}) = s_{t+1}; sample sd about sqrt(s_t s_{t+1} + s_{t+1}^2)/sqrt(N)
        sd = np.sqrt(s[t] * s[t + 1] + s[t + 1] ** 2) / np.sqrt(N)
        assert abs(np.mean(path[t] * path[t + 1]) - s[t + 1]) < 5 * sd


def test_gaussian_errors():
    with pytest.raises(ValueError, match="strictly decreasing"):
        GaussianNoiseReduction([0.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="finite values > 0"):
        GaussianNoiseReduction([0.0], [1.0, 0.0])


# ---- privacy accounting: the accountant (issue 12) ------------------------------------------
#
# Deterministic: each test makes its own accountant.


def test_laplace_path_charges_its_last_level():
    values = np.array([1.0, 2.0])
    with dppack.BudgetAccountant(5.0) as accountant:
        LaplaceNoiseReduction(values, LEVELS, SENS, random_state=1)
    assert accountant.ledger == [("LaplaceNoiseReduction", dppack.PrivacyLoss.pure(LEVELS[-1]))]
    assert_refused_untouched(lambda rng, acc: LaplaceNoiseReduction(
        values, LEVELS, SENS, random_state=rng, accountant=acc))
    np.testing.assert_array_equal(values, [1.0, 2.0])


def test_online_sampler_charges_increments_to_a_pure_accountant():
    # delta = 0: the spends add (basic composition), so increments total the last level exactly
    accountant = dppack.BudgetAccountant(5.0)
    online = LaplaceNoiseReductionOnline([1.0, 2.0], LEVELS[0], SENS, random_state=1,
                                         accountant=accountant)
    assert online.privacy_ == dppack.PrivacyLoss.pure(LEVELS[0])
    for level in LEVELS[1:]:
        online.reduce(level)
        assert online.privacy_ == dppack.PrivacyLoss.pure(level)
    labels = [label for label, _ in accountant.ledger]
    assert labels == ["LaplaceNoiseReductionOnline"] + ["LaplaceNoiseReductionOnline.reduce"] * 3
    increments = [loss.eps for _, loss in accountant.ledger]
    np.testing.assert_allclose(increments, np.diff(LEVELS, prepend=0.0), rtol=1e-15)
    assert accountant.spent.eps == pytest.approx(LEVELS[-1], rel=1e-15)


def test_online_increments_never_total_below_the_level():
    # delta = 0: inexact increments are rounded up (one ulp) so that their sum is never below the
    # last level (rounded to nearest, about 1 sequence in 200 fell one ulp below: 9 of these
    # 1500 random level sequences). Deterministic given the seed.
    rng = np.random.default_rng(1)
    for _ in range(1500):
        levels = np.unique(rng.uniform(0.0, 5.0, size=rng.integers(2, 8)))
        accountant = dppack.BudgetAccountant(100.0)
        online = LaplaceNoiseReductionOnline([0.0], levels[0], SENS, random_state=1,
                                             accountant=accountant)
        for level in levels[1:]:
            online.reduce(level)
        assert accountant.spent.eps >= levels[-1]
        assert accountant.spent.eps <= levels[-1] * (1 + 1e-15)
    # an exact difference is not rounded: 0.5 - 0.125 stays 0.375
    accountant = dppack.BudgetAccountant(1.0)
    LaplaceNoiseReductionOnline([0.0], 0.125, SENS, random_state=1,
                                accountant=accountant).reduce(0.5)
    assert [loss.eps for _, loss in accountant.ledger] == [0.125, 0.375]


@pytest.mark.parametrize("budget, extra, route", [((50.0, 1e-6), 0, "basic"),
                                                   ((30.0, 1e-3), 400, "zCDP + basic")])
def test_online_sampler_restates_one_entry_of_an_accountant_with_delta(budget, extra, route):
    # delta > 0: the accountant may compose pure spends in zCDP (eps^2 / 2 each), where
    # increments would total less than the last level costs and whole levels more (sum of
    # eps_i: 3.55 for eps_T = 2 here). All releases up to eps_T cost pure eps_T (Ligett et
    # al. 2017, Thm 2.7), pointwise: one entry, restated at each reduce, composed BASICALLY
    # with the total of the other spends, whatever route that total takes (basic for the
    # first budget; zCDP for the 403 small spends of the second). The path is not
    # eps_T^2 / 2-zCDP, so the entry must not enter the zCDP route. Deterministic.
    accountant = dppack.BudgetAccountant(*budget)
    others = dppack.BudgetAccountant(*budget)  # the other spends alone
    online = LaplaceNoiseReductionOnline([1.0], LEVELS[0], SENS, random_state=1,
                                         accountant=accountant)
    for level in LEVELS[1:]:
        online.reduce(level)
        accountant.spend(dppack.PrivacyLoss.pure(0.05), "other")
        others.spend(dppack.PrivacyLoss.pure(0.05), "other")
    for _ in range(extra):
        accountant.spend(dppack.PrivacyLoss.pure(0.05), "other")
        others.spend(dppack.PrivacyLoss.pure(0.05), "other")
    assert accountant.ledger[0] == ("LaplaceNoiseReductionOnline",
                                    dppack.PrivacyLoss.pure(LEVELS[-1]))
    assert len(accountant.ledger) == 1 + 3 + extra
    assert accountant.composition == route
    expected = others.spent + dppack.PrivacyLoss.pure(LEVELS[-1])
    assert accountant.spent == expected
    assert "(running: composed basically)" in str(accountant).splitlines()[2]


def test_online_entry_never_enters_the_zcdp_route():
    # 400 spends of 0.05 and a path to 0.2: composing the entry in zCDP (0.2^2 / 2 among the
    # rho's) would give a total about 0.1 smaller than the sound one, the zCDP total of the
    # others plus 0.2 (the path is not 0.02-zCDP; the accounting guide page, "Running charges"). Deterministic.
    accountant = dppack.BudgetAccountant(30.0, 1e-3)
    others = dppack.BudgetAccountant(30.0, 1e-3)
    online = LaplaceNoiseReductionOnline([1.0], 0.1, SENS, random_state=1,
                                         accountant=accountant)
    for _ in range(400):
        accountant.spend(dppack.PrivacyLoss.pure(0.05), "other")
        others.spend(dppack.PrivacyLoss.pure(0.05), "other")
    online.reduce(0.2)
    inside = dppack.BudgetAccountant(30.0, 1e-3)  # the entry as an ordinary spend
    for _, loss in accountant.ledger:
        inside.spend(loss)
    assert others.composition == "zCDP" and accountant.composition == "zCDP + basic"
    assert accountant.spent == others.spent + dppack.PrivacyLoss.pure(0.2)
    assert inside.spent.eps < accountant.spent.eps - 0.05
    # the budget check uses the same rule: a budget between the two totals refuses
    tight = dppack.BudgetAccountant((inside.spent.eps + accountant.spent.eps) / 2, 1e-3)
    online = LaplaceNoiseReductionOnline([1.0], 0.1, SENS, random_state=1, accountant=tight)
    for _ in range(400):
        tight.spend(dppack.PrivacyLoss.pure(0.05), "other")
    with pytest.raises(ValueError, match="Privacy budget exceeded: restating the entry as"):
        online.reduce(0.2)
    assert online.levels == [0.1]


def test_online_entry_after_another_spend_is_the_one_restated():
    # the entry's index is the ledger's length when the object is made, not 0
    accountant = dppack.BudgetAccountant(10.0, 1e-6)
    accountant.spend(dppack.PrivacyLoss.approx(0.3, 1e-7), "before")
    online = LaplaceNoiseReductionOnline([1.0], 0.5, SENS, random_state=1,
                                         accountant=accountant)
    online.reduce(2.0)
    assert accountant.ledger == [("before", dppack.PrivacyLoss.approx(0.3, 1e-7)),
                                 ("LaplaceNoiseReductionOnline", dppack.PrivacyLoss.pure(2.0))]
    # 0.3 + 2 exactly (the double 0.3 plus 2), rounded up: the float after 2.3
    assert accountant.spent == dppack.PrivacyLoss.approx(math.nextafter(2.3, 3.0), 1e-7)
    assert accountant.composition == "basic"


def test_online_entry_never_goes_down_through_a_copy():
    # a shallow copy shares the accountant's entry: once one copy reduced to 2, the other
    # (still at 0.5) can neither restate the entry down to 1 nor restate it at all (its own
    # branch from 0.5 would be a second path, which one entry does not account for)
    import copy

    accountant = dppack.BudgetAccountant(5.0, 1e-6)
    first = LaplaceNoiseReductionOnline([1.0], 0.5, SENS, random_state=1,
                                        accountant=accountant)
    second = copy.copy(first)
    second.levels = list(first.levels)
    second.reduce(2.0)
    for level in (1.0, 3.0):
        with pytest.raises(ValueError, match="another copy of the release restated it"):
            first.reduce(level)
    assert accountant.ledger == [("LaplaceNoiseReductionOnline", dppack.PrivacyLoss.pure(2.0))]
    assert first.eps == 0.5 and first.levels == [0.5]
    # and the entry itself refuses to go down
    running = dppack.accounting.RunningCharge(accountant, dppack.PrivacyLoss.pure(1.0), "r")
    with pytest.raises(ValueError, match="can only grow"):
        running.restate(dppack.PrivacyLoss.pure(0.5))
    assert accountant.ledger[1] == ("r", dppack.PrivacyLoss.pure(1.0))
    with pytest.raises(ValueError, match="must be pure or"):
        dppack.accounting.RunningCharge(accountant, dppack.PrivacyLoss.zcdp(0.1), "z")
    assert len(accountant.ledger) == 2


def test_online_two_threads_cannot_both_reduce_from_one_level(monkeypatch):
    # Two threads reduce the same object at once, to 2 and to 1.5; the 1.5 request is slowed
    # inside the restatement. The level test, the charge and the state update hold one lock,
    # so the second reduce sees the first's level: 1.5 < 2 is refused, the entry stays 2.
    import threading
    import time

    accountant = dppack.BudgetAccountant(5.0, 1e-6)
    online = LaplaceNoiseReductionOnline([1.0], 0.5, SENS, random_state=1,
                                         accountant=accountant)
    restate = dppack.accounting.RunningCharge.restate

    def slow(self, loss, expected=None):
        if loss.eps < 2:
            time.sleep(0.2)
        return restate(self, loss, expected)

    monkeypatch.setattr(dppack.accounting.RunningCharge, "restate", slow)
    errors = {}

    def go(level):
        try:
            online.reduce(level)
        except ValueError as error:
            errors[level] = str(error)

    threads = [threading.Thread(target=go, args=(level,)) for level in (1.5, 2.0)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)  # 1.5 first: it holds the lock while it sleeps, then 2 follows
    for thread in threads:
        thread.join()
    assert errors == {} and online.levels == [0.5, 1.5, 2.0]
    assert accountant.ledger == [("LaplaceNoiseReductionOnline", dppack.PrivacyLoss.pure(2.0))]


def test_online_restate_overspend_leaves_everything_unchanged():
    # the restated entry is checked with its old loss left out, before any draw
    accountant = dppack.BudgetAccountant(1.0, 1e-6)
    rng = np.random.default_rng(4)
    online = LaplaceNoiseReductionOnline([1.0, 2.0], 0.5, SENS, random_state=rng,
                                         accountant=accountant)
    online.reduce(0.9)  # restated to 0.9 <= 1 (the old whole-level charge, 1.4, is over)
    release, state = online.release.copy(), rng.bit_generator.state
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        online.reduce(1.2)
    assert rng.bit_generator.state == state
    np.testing.assert_array_equal(online.release, release)
    assert online.levels == [0.5, 0.9]
    assert accountant.ledger == [("LaplaceNoiseReductionOnline", dppack.PrivacyLoss.pure(0.9))]


def test_online_reduce_overspend_leaves_everything_unchanged():
    accountant = dppack.BudgetAccountant(0.6)
    rng = np.random.default_rng(4)
    online = LaplaceNoiseReductionOnline([1.0, 2.0], 0.5, SENS, random_state=rng,
                                         accountant=accountant)
    release, state = online.release.copy(), rng.bit_generator.state
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        online.reduce(0.8)  # would bring the total to 0.8 > 0.6
    assert rng.bit_generator.state == state
    np.testing.assert_array_equal(online.release, release)
    assert online.eps == 0.5 and online.levels == [0.5]
    assert online.privacy_ == dppack.PrivacyLoss.pure(0.5)
    assert len(accountant.ledger) == 1
    # the session's accountant is not charged by an object made without one
    plain = LaplaceNoiseReductionOnline([1.0], 0.5, SENS, random_state=1)
    with dppack.BudgetAccountant(1e-3) as session:
        plain.reduce(2.0)
    assert session.ledger == []
    assert_refused_untouched(lambda rng, acc: LaplaceNoiseReductionOnline(
        [1.0], 0.5, SENS, random_state=rng, accountant=acc))


def test_gaussian_path_charges_rho_of_its_last_variance():
    s = np.array([16.0, 4.0, 1.0])
    with dppack.BudgetAccountant(100.0, 1e-6) as accountant:
        GaussianNoiseReduction([0.0, 1.0], s, sensitivity=2.0, random_state=1)
    # rho = Delta^2 / (2 s_T) = 4 / 2
    assert accountant.ledger == [("GaussianNoiseReduction", dppack.PrivacyLoss.zcdp(2.0))]
    assert_refused_untouched(lambda rng, acc: GaussianNoiseReduction(
        [0.0], s, sensitivity=2.0, random_state=rng, accountant=acc), delta=1e-6)
    # an accountant cannot be charged without the sensitivity; nothing drawn
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="needs the sensitivity"):
        GaussianNoiseReduction([0.0], s, random_state=rng, accountant=accountant)
    assert rng.bit_generator.state == state and len(accountant.ledger) == 1
    # without an accountant the sensitivity stays optional
    assert GaussianNoiseReduction([0.0], s, random_state=1).shape == (3, 1)
    with pytest.raises(ValueError, match="sensitivity must be"):
        GaussianNoiseReduction([0.0], s, sensitivity=-1.0)


def test_online_sampler_pickles_without_its_lock():
    # the lock that reduce holds is not state: a pickled object gets its own and continues
    # the same path (same generator state). Deterministic.
    import pickle

    online = LaplaceNoiseReductionOnline([1.0, 2.0], 0.5, SENS, random_state=3)
    restored = pickle.loads(pickle.dumps(online))
    assert restored._lock is not online._lock
    np.testing.assert_array_equal(restored.reduce(2.0), online.reduce(2.0))


# --------------------------------------------------------------------------------------------
# Exact paths on the integer grid (the lazy walk of the discrete Laplace, exact coins)
# --------------------------------------------------------------------------------------------

from decimal import Decimal, getcontext  # noqa: E402
from fractions import Fraction  # noqa: E402

from dppack import _random  # noqa: E402
from dppack.accuracy_first import _laplace_path as lp  # noqa: E402
from dppack.accuracy_first import noise_reduction as nr  # noqa: E402


def _dl_pmf(rate, ks):
    q = np.exp(-float(rate))
    return (1 - q) / (1 + q) * q ** np.abs(ks)


def _chi2_dl(z, rate, width=8):
    """p-value of a chi-square test of the draws z against DL(rate) on -width..width plus the
    two tails pooled."""
    ks = np.arange(-width, width + 1)
    p = _dl_pmf(rate, ks)
    p = np.append(p, 1 - p.sum())
    observed = np.array([np.count_nonzero(z == k) for k in ks]
                        + [np.count_nonzero(np.abs(z) > width)])
    return stats.chisquare(observed, p * z.size).pvalue


def test_exp_series_bounds_enclose_the_functions():
    getcontext().prec = 120
    functions = {(0, 1): lambda v: v.exp(), (1, 1): lambda v: v.exp() - 1,
                 (1, 2): lambda v: (v.exp() - (-v).exp()) / 2,
                 (0, 2): lambda v: (v.exp() + (-v).exp()) / 2}
    for y in [Fraction(1), Fraction(3, 7), Fraction(123456789, 2 ** 60), Fraction(20, 3)]:
        for (start, step), f in functions.items():
            lo, hi = _random.exp_series_bounds(y, start, step, 100)
            value = f(Decimal(y.numerator) / Decimal(y.denominator))
            assert Decimal(lo.numerator) / lo.denominator <= value
            assert value <= Decimal(hi.numerator) / hi.denominator
            assert (hi - lo) / lo < Fraction(1, 2 ** 99)


@pytest.mark.parametrize("loose", [False, True])
def test_bernoulli_real_frequency(loose):
    # p = exp(-1); loose bounds (width 2^-6 at the first look) force the refinement loop on
    # about 1/32 of the draws. Two-sided binomial test at ALPHA.
    def bounds(bits):
        lo, hi = _random.exp_series_bounds(Fraction(1), 0, 1, bits)
        lo, hi = 1 / hi, 1 / lo
        if loose and bits <= 80:
            return lo - Fraction(1, 128), hi + Fraction(1, 128)
        return lo, hi
    draws = _random.bernoulli_real(bounds, 100_000, np.random.default_rng(11))
    assert stats.binomtest(int(draws.sum()), draws.size, np.exp(-1.0)).pvalue > ALPHA


def test_bernoulli_real_rows_frequencies():
    # rows p = exp(-1) (loose first bounds: the refinement loop), 1/3 and 0.999; each row a
    # binomial test at ALPHA / 3
    def e_inv(bits):
        lo, hi = _random.exp_series_bounds(Fraction(1), 0, 1, bits)
        if bits <= 80:
            return 1 / hi - Fraction(1, 128), 1 / lo + Fraction(1, 128)
        return 1 / hi, 1 / lo
    rows = [e_inv, lambda bits: (Fraction(1, 3),) * 2, lambda bits: (Fraction(999, 1000),) * 2]
    draws = _random.bernoulli_real_rows(rows, 50_000, np.random.default_rng(12))
    for row, p in zip(draws, [np.exp(-1.0), 1 / 3, 0.999]):
        assert stats.binomtest(int(row.sum()), row.size, p).pvalue > ALPHA / 3


def test_bernoulli_real_extremes():
    rng = np.random.default_rng(0)
    assert _random.bernoulli_real(lambda bits: (Fraction(1), Fraction(1)), 50, rng).all()
    assert not _random.bernoulli_real(lambda bits: (Fraction(0), Fraction(0)), 50, rng).any()


# Small scales (D = 1 grid unit) make the discreteness visible: rates 0.4 and 1.3 per unit.
SMALL_LEVELS = [0.4, 1.3]


def test_integer_path_marginals_are_discrete_laplace():
    rng = np.random.default_rng(21)
    levels = [0.3, 0.7, 1.3]
    path = lp.integer_noise_path(N, 1, levels, rng)
    for z, eps in zip(path, levels):
        t, s = lp._level_rate(1, eps)
        assert s / t <= eps and s / t > eps * (1 - 2.0 ** -20)
        assert _chi2_dl(np.asarray(z), Fraction(s, t)) > ALPHA


def test_integer_path_keep_probability_is_the_ratio_of_c():
    # P(Z_t = Z_{t+1} exactly) = p + (1 - p) P(fresh = 0); p = sinh(a1/2)^2 / sinh(a2/2)^2
    rng = np.random.default_rng(22)
    path = lp.integer_noise_path(N, 1, SMALL_LEVELS, rng)
    (t1, s1), (t2, s2) = [lp._level_rate(1, e) for e in SMALL_LEVELS]
    a1, a2 = s1 / t1, s2 / t2
    p = np.sinh(a1 / 2) ** 2 / np.sinh(a2 / 2) ** 2
    same = p + (1 - p) * _dl_pmf(a1, 0)
    kept = int(np.count_nonzero(path[0] == path[1]))
    assert stats.binomtest(kept, N, same).pvalue > ALPHA


def test_integer_path_marginal_check_has_power():
    # the continuous keep probability (eps_t / eps_{t+1})^2 instead of c_{t+1} / c_t gives
    # a wrong marginal at small scales: the chi-square test must see it
    # (levels 1 and 3 per grid unit: keep 0.111 instead of 0.060)
    rng = np.random.default_rng(23)
    levels = [1.0, 3.0]
    (t1, s1), (t2, s2) = [lp._level_rate(1, e) for e in levels]
    z2 = np.asarray(_random.discrete_laplace(t2, s2, N, rng))
    keep = rng.random(N) < (levels[0] / levels[1]) ** 2
    z1 = z2 + np.where(keep, 0, np.asarray(_random.discrete_laplace(t1, s1, N, rng)))
    assert _chi2_dl(z1, Fraction(s1, t1)) < ALPHA
    # and the exact walk passes at these levels
    path = lp.integer_noise_path(N, 1, levels, rng)
    assert _chi2_dl(np.asarray(path[0]), Fraction(s1, t1)) > ALPHA


@pytest.mark.parametrize("levels,width,size", [
    ([0.4, 1.3], 1, N), ([0.05, 0.08], 8, N), ([0.02, 0.5], 10, N),
    # one entry at a time: the Python-integer branch (_reduce_one), fewer draws
    ([0.4, 1.3], 1, 1), ([0.02, 0.5], 10, 1)])
def test_online_step_has_the_joint_law_of_the_batch_path(levels, width, size):
    # (Z_t, Z_{t+1}) from the batch path and from Z_t ~ DL then the online step: the joint
    # histograms (binned by width, clipped to 13 x 13 cells) are compared by a chi-square
    # test of homogeneity. The three cases reach the uniform and the geometric middle
    # proposals and both tails of laplace_reduce_noise.
    rng = np.random.default_rng(24)
    path = lp.integer_noise_path(N, 1, levels, rng)
    (t1, s1), (t2, s2) = [lp._level_rate(1, e) for e in levels]
    z1 = np.asarray(_random.discrete_laplace(t1, s1, N, rng))
    if size == 1:
        z1 = z1[:4000]
        z2 = np.concatenate([nr._laplace_reduce_noise(z1[i:i + 1], Fraction(s1, t1),
                                                     Fraction(s2, t2), rng)
                             for i in range(z1.size)])
    else:
        z2 = nr._laplace_reduce_noise(z1, Fraction(s1, t1), Fraction(s2, t2), rng)

    def cells(a, b):
        return np.clip(a // width, -6, 6) * 13 + np.clip(b // width, -6, 6)
    A, B = cells(path[0], path[1]), cells(z1, z2)
    keys = np.union1d(A, B)
    table = np.array([[np.count_nonzero(A == k) for k in keys],
                      [np.count_nonzero(B == k) for k in keys]])
    table = table[:, table.sum(axis=0) >= 20]
    assert stats.chi2_contingency(table)[1] > ALPHA
    assert _chi2_dl(z2, Fraction(s2, t2)) > ALPHA


def test_releases_lie_on_one_grid_shared_by_all_levels():
    x = np.array([0.1, 0.3, 1.0 + 2.0 ** -52, -7.25])
    path = LaplaceNoiseReduction(x, LEVELS, SENS, random_state=5)
    k, units = lp.level_grid(SENS, LEVELS[0], x.size)
    g = 2.0 ** k
    assert units == int(np.ceil(SENS / g)) + x.size
    steps = path / g
    assert np.array_equal(steps, np.round(steps))
    online = LaplaceNoiseReductionOnline(x, LEVELS[0], SENS, random_state=5)
    for eps in LEVELS[1:]:
        online.reduce(eps)
        assert np.array_equal(online.release / g, np.round(online.release / g))


def test_gaussian_path_is_on_the_grid_and_keeps_its_charge():
    variances = np.array([16.0, 4.0, 1.0])
    x = np.array([0.1, 1.0 + 2.0 ** -52])
    path = GaussianNoiseReduction(x, variances, sensitivity=1.0, random_state=3)
    k, p = nr.gaussian_path_grid(variances, 1.0, x.size)
    g = 2.0 ** k
    assert np.array_equal(path / g, np.round(path / g))
    # every level's integer variance covers its continuous variance; the first draw is
    # raised so that (Delta / g + sqrt(m))^2 / (2 p_T) <= Delta^2 / (2 s_T)
    assert np.all(np.cumsum(p)[::-1] * g * g >= variances)
    assert (1.0 / g + np.sqrt(x.size)) ** 2 / (2 * p[0]) <= 1.0 / (2 * variances[-1])


def test_gaussian_path_last_level_variance():
    # the last level is one discrete Gaussian of variance parameter p_T (about s_T): its
    # sample variance within 4 standard errors (false failure about 6e-5)
    variances = np.array([4.0, 1.0])
    path = GaussianNoiseReduction(np.zeros(N), variances, sensitivity=None, random_state=4)
    k, p = nr.gaussian_path_grid(variances, None, N)
    target = p[0] * 4.0 ** k
    se = target * np.sqrt(2.0 / N)
    assert abs(path[-1].var() - target) < 4 * se
    assert abs(path[0].var() - (p[0] + p[1]) * 4.0 ** k) < 4 * se * 4
