"""Stability-based private validation (Chaudhuri and Vinterbo 2013: its definitions, algorithms and
theorems by number).

Random tests use fixed seeds; where a statistical test is involved its false-failure rate is
stated (it is the chance that a correct implementation fails for a given seed).
"""

import importlib.util
import math
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

import dppack
from accounting_checks import Untouchable
from dppack import _random
from dppack.model_selection import stability as validation
from dppack.erm import _cms, cms
from dppack.erm.cms import StandardNoise, objective_perturbation_parameters
from dppack.erm._design import split_rows
from dppack.model_selection.stability import HistogramTrainer, LinearClassifierTrainer, StableTrainer
from dppack.model_selection.stability import _constants, _diagnosis, _procedure

BOUNDS = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])


def _classification(n, seed, p=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (n, p))
    y = (rng.random(n) < 1 / (1 + np.exp(-X @ np.array([3.0, -2.0, 1.0][:p])))).astype(float)
    return X, y


# ---- worked numbers and formulas (Chaudhuri and Vinterbo 2013, Theorems 4 to 6) -----------


def test_magic_example_beta():
    # worked example (Theorem 4): n = 15216, m = 1902, lambda_min = 0.001, ramp score
    beta1, beta2 = dppack.stability_constants_linear(0.001, 15216, 1902, 10, 10, 1, 0.01)
    assert beta1 == pytest.approx(2000.0)
    assert beta2 == 1.0
    assert max(beta1 / 15216, beta2 / 1902) == pytest.approx(0.1314, abs=5e-5)
    # selection-noise mean 2 beta / alpha2 = 0.526 at alpha2 = 0.5; Thm 3 slack 2.79 and 0.557
    beta = max(beta1 / 15216, beta2 / 1902)
    assert 2 * beta / 0.5 == pytest.approx(0.526, abs=5e-4)
    assert 2 * beta * math.log(10 / 0.05) / 0.5 == pytest.approx(2.79, abs=5e-3)
    assert 2 * beta * math.log(10 / 0.05) / 2.5 == pytest.approx(0.557, abs=5e-4)


def test_unbounded_score_beta2_uses_the_safe_factor_two():
    # Theorem 4's norm bound B = (L / lambda_min)(1 + 2 d ln(d k / delta) / (alpha n)); beta2 is
    # the range of g for margins in [-B, B]: B for logistic, B + min(B, 1) for hinge (g(0) = 1)
    bound = 2 * (1 + 2 * 4 * math.log(4 * 5 / 0.01) / (2 * 1000))
    _, beta2 = dppack.stability_constants_linear(0.5, 1000, 100, 4, 5, 2, 0.01, "logistic")
    assert beta2 == pytest.approx(bound)
    _, beta2 = dppack.stability_constants_linear(0.5, 1000, 100, 4, 5, 2, 0.01, "hinge")
    assert beta2 == pytest.approx(bound + 1)
    small = (1 / 100) * (1 + 4 * math.log(4 / 0.01) / 10**6)
    _, beta2 = dppack.stability_constants_linear(100, 10**6, 100, 2, 2, 1, 0.01, "hinge")
    assert beta2 == pytest.approx(2 * small)
    # the ramp score is capped by g* = 1 but not raised above the norm bound
    _, beta2 = dppack.stability_constants_linear(100, 10**6, 100, 2, 2, 1, 0.01)
    assert beta2 == pytest.approx(small)


def test_hinge_beta2_covers_a_sign_flip_of_the_validation_label():
    """A worst case for Thm 4's beta2: 1-d data x = 1, y = 1, Huber SVM with output
    perturbation, lambda = 4 and R = 0 (inside the stability event): w = 1/lambda = B up to
    the (1 + ...) factor. Flipping one validation label moves the hinge score by 2w/m (the
    paper's beta2 = B is exceeded) and the logistic score by w/m."""
    n, m = 2000, 50
    T = (np.ones((n, 1)), np.ones(n))
    V, V2 = (np.ones((m, 1)), np.ones(m)), (np.ones((m, 1)), np.r_[0.0, np.ones(m - 1)])
    model = dppack.svmDP("l2", 1.0, 4.0 * n, "output")
    for score in ("hinge", "logistic"):
        trainer = LinearClassifierTrainer([1.0], [-1.0], False, score)
        fitted = trainer.fit(T, model, 1.0, StandardNoise(np.zeros(1)))
        assert fitted.coeff == pytest.approx([0.25], abs=1e-7)
        _, beta2 = trainer.stability_constants(T, V, [model], 1.0, 0.01)
        change = abs(trainer.score(fitted, V) - trainer.score(fitted, V2))
        assert change == pytest.approx((0.5 if score == "hinge" else 0.25) / m, rel=1e-6)
        assert change <= beta2 / m


def test_trainer_constants_use_the_smallest_gamma_and_noise_budget():
    """beta1 / n = 2 / min(gamma) (Thm 4 with lambda = gamma / n); B uses the smallest noise
    budget: eps' for objective perturbation, eps for output perturbation (Theorem 4)."""
    X, y = _classification(500, 13)
    T, V = (X[:400], y[:400]), (X[400:], y[400:])
    models = [dppack.LogisticRegressionDP("l2", 1.0, 5.0, "output"),
              dppack.LogisticRegressionDP("l2", 1.0, 0.5, "objective"),
              dppack.svmDP("l2", 1.0, 50.0, "output")]
    # the noise is scaled with eps' of the objective's share eps_1 (approximate minima
    # perturbation); here the extra-regularisation branch: eps' = eps_1 / 2
    eps_1 = dppack.erm._approximate.split_budget(1.0)[0]
    eps_prime = objective_perturbation_parameters(eps_1, 0.5, 0.25, 400)[0]
    assert eps_prime == pytest.approx(eps_1 / 2, rel=1e-15)
    # the fits are certified minimisers within the optimality slack tau: lambda / (1 + tau)
    # stands for lambda, and output perturbation's noise budget is eps / (1 + tau)
    slack = 1 + cms.OPTIMALITY_SLACK
    for score in ("ramp", "hinge", "logistic"):
        trainer = LinearClassifierTrainer(*BOUNDS, True, score)
        beta1, beta2 = trainer.stability_constants(T, V, models, 1.0, 0.01)
        assert beta1 / 400 == pytest.approx(2 / 0.5 * slack, rel=1e-12)
        assert (beta1, beta2) == pytest.approx(dppack.stability_constants_linear(
            0.5 / 400 / slack, 400, 100, 4, 3, eps_prime, 0.01, score), rel=1e-12)
        output_only = trainer.stability_constants(T, V, [models[0], models[2]], 1.0, 0.01)
        assert output_only == pytest.approx(dppack.stability_constants_linear(
            5.0 / 400 / slack, 400, 100, 4, 2, 1.0 / slack, 0.01, score), rel=1e-12)


def test_histogram_example():
    # worked example (Theorem 6): k = 5, h_min = 0.01, alpha = 1, delta = 0.01, n = 10000, m = 2000
    assert _constants.histogram_min_n(0.01, 5, 1, 0.01) == pytest.approx(153.0, abs=0.05)
    beta1, beta2 = dppack.stability_constants_histogram(0.01, 10000, 2000, 5, 1, 0.01)
    assert beta1 == pytest.approx(609.26, abs=5e-3)
    assert beta2 == 200.0
    assert max(beta1 / 10000, beta2 / 2000) == pytest.approx(0.1)
    with pytest.raises(ValueError, match="at least 154 training values"):
        dppack.stability_constants_histogram(0.01, 153, 2000, 5, 1, 0.01)


def test_objective_perturbation_shift():
    # Theorem 4: Magic fold n = 15216, lambda = 0.001 (gamma = n lambda) -> 2 ln(1 + c/(n lambda))
    n = 15216
    eps_prime, Delta = objective_perturbation_parameters(1.0, n * 0.001, 0.25, n)
    assert 1.0 - eps_prime == pytest.approx(0.0326, abs=5e-5)
    assert Delta == 0.0


def test_advanced_composition_levels():
    # Theorem 5 [derived]: k = 10, delta = 0.01
    for alpha, expected in ((0.3, 0.03029), (0.5, 0.04948), (1.0, 0.09445)):
        assert dppack.advanced_composition_eps(alpha, 10, 0.01) == pytest.approx(
            expected, abs=5e-6)
    # the crossover with alpha / k lies near alpha = 0.395
    assert dppack.advanced_composition_eps(0.39, 10, 0.01) > 0.039
    assert dppack.advanced_composition_eps(0.40, 10, 0.01) < 0.040


def test_privacy_accounting():
    assert dppack.selection_privacy("stability", 0.5, 0.5, 0.01) == {"eps": 1.0,
                                                                     "delta": 0.01}
    for procedure in ("alphaSplit", "dataSplit", "random"):
        assert dppack.selection_privacy(procedure, 1.0) == {"eps": 1.0, "delta": 0.0}
    with pytest.raises(ValueError, match="eps_select must be given"):
        dppack.selection_privacy("stability", 1.0)
    with pytest.raises(ValueError, match="procedure must be one of"):
        dppack.selection_privacy("control", 1.0)


# ---- the selection step (Chaudhuri and Vinterbo 2013, Algorithm 1) -------------------------------

SCORES = np.array([0.0, 0.1, 0.25, 0.3])
BETA, EPS2 = 0.05, 1.0


def _winner_probabilities(pdf, cdf, low, high):
    """P(argmax_i (q_i + noise_i)) by numerical integration, noise i.i.d. with pdf/cdf."""
    out = []
    for i, qi in enumerate(SCORES):
        others = np.delete(SCORES, i)

        def density(t, qi=qi, others=others):
            return pdf(t - qi) * np.prod(cdf(t - others))

        out.append(integrate.quad(density, qi + low, qi + high, limit=200)[0])
    return np.array(out)


def _frequencies(selector, draws=20000, seed=11):
    rng = np.random.default_rng(seed)
    picks = [dppack.stable_select(SCORES, BETA, EPS2, selector, random_state=rng)
             for _ in range(draws)]
    return np.bincount(picks, minlength=SCORES.size)


@pytest.mark.parametrize("selector", ["exponential_noise", "laplace"])
def test_noisy_max_matches_its_law(selector):
    """Chi-square goodness of fit of 20000 selections (false-failure rate 1e-3)."""
    scale = 2 * BETA / EPS2  # exponential mean and Laplace scale (Algorithm 1)
    if selector == "exponential_noise":
        law, low, high = stats.expon(scale=scale), 0.0, 60 * scale
    else:
        law, low, high = stats.laplace(scale=scale), -60 * scale, 60 * scale
    expected = _winner_probabilities(law.pdf, law.cdf, low, high)
    assert expected.sum() == pytest.approx(1.0, abs=1e-8)
    counts = _frequencies(selector)
    assert stats.chisquare(counts, expected * counts.sum()).pvalue > 1e-3


def test_gumbel_selector_is_the_softmax():
    """Chi-square against softmax(alpha2 q / (2 beta)) (false-failure rate 1e-3)."""
    weights = np.exp(EPS2 * SCORES / (2 * BETA))
    counts = _frequencies("gumbel")
    assert stats.chisquare(counts, weights / weights.sum() * counts.sum()).pvalue > 1e-3


def test_utility_guarantee():
    """Thm 3: P(q_i* < max q - 2 beta ln(k/delta0)/alpha2) <= delta0. The binomial count of
    misses over 4000 runs exceeds 2.2% with probability < 1e-6 if the true rate is <= 1%."""
    q = np.linspace(0.0, -1.0, 10)
    beta, eps2, delta0 = 0.05, 1.0, 0.01
    slack = 2 * beta * math.log(q.size / delta0) / eps2
    rng = np.random.default_rng(3)
    picks = np.array([dppack.stable_select(q, beta, eps2, random_state=rng)
                      for _ in range(4000)])
    assert np.mean(q[picks] < q.max() - slack) <= 0.022
    assert np.unique(picks).size > 1  # the selection is noisy


def test_select_refuses_bad_input_before_drawing():
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    for args, message in (
        (([], 0.1, 1), "at least one value"),
        (([0.0, np.nan], 0.1, 1), "finite"),
        (([0.0], 0.0, 1), "beta must be a scalar > 0"),
        (([0.0], 0.1, math.inf), "eps_select must be finite"),
    ):
        with pytest.raises(ValueError, match=message):
            dppack.stable_select(*args, random_state=rng)
    with pytest.raises(ValueError, match="selector must be one of"):
        dppack.stable_select([0.0], 0.1, 1, "max", random_state=rng)
    assert rng.bit_generator.state == state


# ---- the generic procedure with a toy trainer ---------------------------------------------------


class MeanTrainer(StableTrainer):
    """The paper's example: F(T, theta, alpha, r) = mean(T) * theta + r / (alpha n);
    q = -|h - mean(V)|. Records the noise every fit receives."""

    def __init__(self):
        self.seen = []

    def n_records(self, data):
        return data.size

    def draw_noise(self, T, thetas, rng):
        return _random_laplace(rng)

    def fit(self, T, theta, eps, noise):
        self.seen.append((theta, noise))
        return T.mean() * theta + noise[0] / (eps * T.size)

    def score(self, model, V):
        return -abs(model - V.mean())

    def stability_constants(self, T, V, thetas, eps, delta):
        return 2.0 * max(thetas), 1.0


def _random_laplace(rng):
    return np.array([rng.laplace()])


def test_shared_noise_is_one_draw_and_the_final_fit_is_fresh():
    T, V = np.full(50, 0.6), np.full(30, 0.6)
    trainer = MeanTrainer()
    index, model = dppack.tune_stable([0.1, 0.5, 1.0], trainer, T, V, 1, 1, random_state=1)
    noises = [noise for _, noise in trainer.seen]
    assert len(noises) == 4
    assert noises[0] is noises[1] is noises[2]
    assert noises[3] is not noises[0] and noises[3][0] != noises[0][0]
    assert trainer.seen[3][0] == [0.1, 0.5, 1.0][index]
    assert model == pytest.approx(0.6 * trainer.seen[3][0] + noises[3][0] / 50)


def test_independent_noise_draws_one_per_candidate():
    trainer = MeanTrainer()
    dppack.validate_stable([0.1, 0.5, 1.0], trainer, np.full(50, 0.6), np.full(30, 0.6), 1, 1,
                           noise="independent", random_state=1)
    values = {noise[0] for _, noise in trainer.seen}
    assert len(trainer.seen) == 3 and len(values) == 3


def test_validate_selects_the_best_candidate_when_the_noise_is_small():
    T, V = np.full(10**6, 0.5), np.full(10**6, 0.5)
    picks = {dppack.validate_stable([0.1, 1.0, 3.0], MeanTrainer(), T, V, 10, 10,
                                    random_state=seed) for seed in range(5)}
    assert picks == {1}


def test_user_betas_warn_and_must_come_in_pairs():
    T, V = np.full(50, 0.6), np.full(30, 0.6)
    with pytest.warns(UserWarning, match="caller's proof"):
        dppack.validate_stable([1.0, 2.0], MeanTrainer(), T, V, 1, 1, beta1=1, beta2=1,
                               random_state=0)
    with pytest.raises(ValueError, match="both beta1 and beta2"):
        dppack.validate_stable([1.0], MeanTrainer(), T, V, 1, 1, beta1=1, random_state=0)
    with pytest.raises(ValueError, match="noise must be one of"):
        dppack.validate_stable([1.0], MeanTrainer(), T, V, 1, 1, noise="same")
    with pytest.raises(ValueError, match="delta must be a number"):
        dppack.validate_stable([1.0], MeanTrainer(), T, V, 1, 1, delta=0)


# ---- the noise hook of the CMS core ---------------------------------------------------------------


def test_standard_noise_has_gamma_norm_and_uniform_direction():
    """KS tests of ||R|| ~ Gamma(d, 1) and of the first coordinate of R/||R||, whose square is
    Beta(1/2, (d-1)/2) (false-failure rate 1e-3 each)."""
    rng = np.random.default_rng(8)
    draws = np.array([StandardNoise.draw(4, rng).vector for _ in range(3000)])
    norms = np.linalg.norm(draws, axis=1)
    assert stats.kstest(norms, stats.gamma(4).cdf).pvalue > 1e-3
    cos2 = (draws[:, 0] / norms) ** 2
    assert stats.kstest(cos2, stats.beta(0.5, 1.5).cdf).pvalue > 1e-3


def test_supplied_noise_is_scaled_by_each_candidates_rate_and_draws_nothing():
    X, y = _classification(400, 1)
    # R for the objective's l2-Laplace noise, L for the release's per-coordinate noise
    L = np.array([0.7, 0.1, -2.5, 1.1])
    R = StandardNoise(np.array([0.3, -1.2, 0.5, 2.0]), L)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    eps_1, eps_2 = 1.0 * (1 - 2 ** -10), 2 ** -10  # approximate minima perturbation
    for method in ("objective", "output"):
        for gamma in (0.5, 40.0):
            model = dppack.LogisticRegressionDP("l2", 1.0, gamma, method)
            _cms.fit_with_noise(model, X, y, R, *BOUNDS, True, random_state=rng)
            design = dppack.erm._design.prepare_design(X, y, *BOUNDS, True, scale="l2")
            n = X.shape[0]
            if method == "objective":
                eps_prime, Delta = objective_perturbation_parameters(eps_1, gamma, 0.25, n)
                theta = model._optimize_coeff(design["X"], y, Delta, R.vector / (eps_prime / 2))
                # release: L2 sensitivity 2 g_tol / (gamma/n + Delta) at eps_2
                S, eps_r = 2 * (1e-6 / n) / (gamma / n + Delta), eps_2
            else:
                theta = model._optimize_coeff(design["X"], y, 0.0, np.zeros(4))
                # L2 sensitivity 2 (1 + tau) / gamma: covers the optimality slack
                S, eps_r = 2 * (1 + cms.OPTIMALITY_SLACK) / gamma, 1.0
            assert model.release_sensitivity_ == pytest.approx(S, rel=1e-9)
            # per-coordinate Laplace scale sqrt(d) S / eps (rounded up by < 2^-19)
            theta = theta + L * 2 * S / eps_r
            assert model.coeff == pytest.approx(theta / design["scale"], rel=1e-5, abs=1e-9)
    assert rng.bit_generator.state == state
    with pytest.raises(ValueError, match="the fit needs 3"):
        _cms.fit_with_noise(dppack.LogisticRegressionDP("l2", 1, 1), X, y, R, *BOUNDS, False,
                            random_state=rng)


def test_fit_with_noise_refuses_other_models_and_noises_before_the_data():
    X, y = _classification(50, 1)
    R = StandardNoise(np.zeros(2))
    kst = dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0)  # a KST model: no supplied noise
    with pytest.raises(TypeError, match="model must be a model of the CMS framework"):
        _cms.fit_with_noise(kst, X, y, R, *BOUNDS)
    with pytest.raises(TypeError, match="noise must be a StandardNoise"):
        _cms.fit_with_noise(dppack.svmDP("l2", 1, 1), Untouchable(), y, np.zeros(2), *BOUNDS)
    with pytest.raises(TypeError, match="model must be a model of the CMS framework"):
        _cms.check_parameters(kst)
    model = dppack.svmDP("l2", 1, 1, "output")
    model.gamma = 0
    with pytest.raises(ValueError, match="gamma"):
        _cms.check_parameters(model)


def test_fit_without_supplied_noise_draws_as_before():
    X, y = _classification(200, 2)
    model = dppack.LogisticRegressionDP("l2", 1.0, 2.0, "output").fit(
        X, y, *BOUNDS, random_state=5)
    design = dppack.erm._design.prepare_design(X, y, *BOUNDS, False, scale="l2")
    theta = model._optimize_coeff(design["X"], y, 0.0, np.zeros(3))
    S = 2 * (1 + cms.OPTIMALITY_SLACK) / 2.0  # 2 (1 + tau) / gamma
    expected = dppack.erm._approximate.release(theta, S, 1.0, np.random.default_rng(5))
    assert model.coeff * design["scale"] == pytest.approx(expected, rel=1e-12, abs=1e-12)


# ---- stability properties (Definition 2, Thm 4, Thm 6) ------------------------------------


@pytest.mark.parametrize("method", ["objective", "output"])
def test_linear_training_and_validation_stability(method):
    """With one fixed R, replacing one training record moves the scaled coefficients by at most
    2 / gamma (= 2/(lambda n)) and the ramp score by at most beta1 / n = 2 / gamma; replacing
    one validation record moves the score by at most 1/m (g* = 1), and the hinge and logistic
    scores by at most beta2 / m (R drawn from G: ||R|| <= d ln(dk/delta) fails with
    probability <= delta/k = 0.01 per draw, i.e. the 10 draws of this seed are checked on the
    event). gamma = 20 makes 2 / gamma = 0.1 a bound the ramp score could break."""
    rng = np.random.default_rng(21 if method == "objective" else 22)
    n, m, p, gamma = 120, 40, 3, 20.0
    trainer = LinearClassifierTrainer(*BOUNDS, True)
    model = dppack.LogisticRegressionDP("l2", 1.0, gamma, method)
    others = {score: LinearClassifierTrainer(*BOUNDS, True, score) for score in
              ("hinge", "logistic")}
    beta2 = {score: t.stability_constants((np.zeros((n, p)), None), (np.zeros((m, p)), None),
                                          [model], 1.0, 0.01)[1] for score, t in others.items()}
    for _ in range(10):
        X, y = rng.uniform(-1.5, 1.5, (n, p)), (rng.random(n) < 0.5).astype(float)
        Xv, yv = rng.uniform(-1.5, 1.5, (m, p)), (rng.random(m) < 0.5).astype(float)
        R = StandardNoise.draw(p + 1, rng)
        X2, y2 = X.copy(), y.copy()
        i = rng.integers(n)
        X2[i], y2[i] = rng.uniform(-1.5, 1.5, p), 1 - y2[i]
        h1, h2 = trainer.fit((X, y), model, 1.0, R), trainer.fit((X2, y2), model, 1.0, R)
        scale = dppack.erm._design.prepare_design(X, y, *BOUNDS, True, scale="l2")["scale"]
        assert np.linalg.norm((h1.coeff - h2.coeff) * scale) <= 2 / gamma + 1e-6
        q1 = trainer.score(h1, (Xv, yv))
        assert abs(q1 - trainer.score(h2, (Xv, yv))) <= 2 / gamma + 1e-9
        Xv2, yv2 = Xv.copy(), yv.copy()
        j = rng.integers(m)
        Xv2[j], yv2[j] = rng.uniform(-1.5, 1.5, p), 1 - yv2[j]
        assert abs(q1 - trainer.score(h1, (Xv2, yv2))) <= 1 / m + 1e-12
        for score, other in others.items():
            change = abs(other.score(h1, (Xv, yv)) - other.score(h1, (Xv2, yv2)))
            assert change <= beta2[score] / m + 1e-12


def test_histogram_stability():
    """Thm 6 on its stability event: replacing a training value moves q by <= beta1 / n, a
    validation value by <= 2 / (m h_min)."""
    rng = np.random.default_rng(31)
    widths, eps, delta = [0.25, 0.1, 0.05], 1.0, 0.05
    n, m = 400, 100
    trainer = HistogramTrainer()
    beta1, _ = dppack.stability_constants_histogram(min(widths), n, m, len(widths), eps, delta)
    checked = 0
    for _ in range(30):
        T, V = rng.beta(2, 3, n), rng.beta(2, 3, m)
        R = rng.laplace(size=20)
        T2, V2 = T.copy(), V.copy()
        T2[rng.integers(n)], V2[rng.integers(m)] = rng.random(), rng.random()
        for h in widths:
            bins = round(1 / h)
            if R[:bins].sum() < -math.log(4 * len(widths) / delta) / math.sqrt(h):
                continue  # outside the stability event
            checked += 1
            f1 = trainer.fit(T, h, eps, R)
            f2 = trainer.fit(T2, h, eps, R)
            assert abs(trainer.score(f1, V) - trainer.score(f2, V)) <= beta1 / n + 1e-12
            assert abs(trainer.score(f1, V) - trainer.score(f1, V2)) <= 2 / (m * h) + 1e-12
    assert checked > 60


# ---- the classification interface ---------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::dppack.NearUniformSelectionWarning")
def test_tuning_fits_only_the_selected_model_and_keeps_the_data():
    X, y = _classification(3000, 4)
    X0, y0 = X.copy(), y.copy()
    models = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (0.1, 10.0, 1000.0)]
    best = dppack.tune_classification_model_stable(models, X, y, *BOUNDS, 1.0,
                                                   random_state=3)
    assert any(best is m for m in models)
    assert best.coeff is not None and best.eps == 1.0
    assert all(m.coeff is None for m in models if m is not best)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)
    again = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (0.1, 10.0, 1000.0)]
    best2 = dppack.tune_classification_model_stable(again, X, y, *BOUNDS, 1.0, random_state=3)
    np.testing.assert_array_equal(best.coeff, best2.coeff)


@pytest.mark.filterwarnings("ignore::dppack.NearUniformSelectionWarning")
def test_tuning_follows_the_documented_randomness():
    """Order: shared R, the k selection noises, the fresh noise of the final fit."""
    X, y = _classification(500, 5)
    gammas = (0.5, 5.0, 50.0)
    models = [dppack.svmDP("l2", 2.0, g, "output") for g in gammas]
    best = dppack.tune_classification_model_stable(models, X, y, *BOUNDS, 1.0, add_bias=True,
                                                   random_state=7)
    rng = np.random.default_rng(7)
    training, validation_rows = split_rows(500, 0.2)
    T, V = (X[training], y[training]), (X[validation_rows], y[validation_rows])
    trainer = LinearClassifierTrainer(*BOUNDS, True)
    R = StandardNoise.draw(4, rng)
    fresh = [dppack.svmDP("l2", 2.0, g, "output") for g in gammas]
    q = [trainer.score(trainer.fit(T, m, 2.0, R), V) for m in fresh]
    beta = max(2 / 0.5, 1 / len(validation_rows))
    index = _procedure._select(np.array(q), beta, 1.0, "exponential_noise", rng)
    expected = fresh[index].fit(*T, *BOUNDS, True, random_state=rng)
    assert best.gamma == gammas[index]
    np.testing.assert_array_equal(best.coeff, expected.coeff)


def test_split_rows_is_interleaved_and_matches_tuning():
    training, held = split_rows(12, 1 / 4)
    np.testing.assert_array_equal(held, [3, 7, 11])
    assert np.intersect1d(training, held).size == 0 and training.size == 9
    with pytest.raises(ValueError, match="empty training or validation"):
        split_rows(3, 0.2)


@pytest.mark.filterwarnings("ignore::dppack.NearUniformSelectionWarning")
def test_explicit_validation_set():
    X, y = _classification(1200, 6)
    models = [dppack.LogisticRegressionDP("l2", 1.0, g, "output") for g in (1.0, 100.0)]
    best = dppack.tune_classification_model_stable(
        models, X[:1000], y[:1000], *BOUNDS, 1.0, X_validation=X[1000:],
        y_validation=y[1000:], score="hinge", selector="laplace", noise="independent",
        random_state=2)
    assert best.coeff.size == 3


@pytest.mark.parametrize("models, message", [
    (lambda: [dppack.LogisticRegressionDP("l2", 1, 1), dppack.LogisticRegressionDP("l2", 2, 1)],
     "same eps"),
    (lambda: [dppack.LogisticRegressionDP("l2", math.inf, 1)], "eps must be finite"),
    (lambda: [dppack.svmDP("l2", 1, 1, kernel="Gaussian", D=5)], "linear kernel"),
    (lambda: [dppack.LogisticRegressionDP(lambda c: float(c @ c), 1, 1)], "regularizer = 'l2'"),
    (lambda: [dppack.LinearRegressionDP("l2", 1, 0.1, 1)], "LogisticRegressionDP or svmDP"),
    (lambda: [], "at least one model"),
])
def test_bad_models_are_refused(models, message):
    X, y = _classification(100, 7)
    with pytest.raises(ValueError, match=message):
        dppack.tune_classification_model_stable(models(), X, y, *BOUNDS, 1.0, random_state=0)


def test_bad_arguments_are_refused_before_any_noise():
    X, y = _classification(100, 8)
    models = [dppack.LogisticRegressionDP("l2", 1, 1)]
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    bad = [
        ({"eps_select": 0}, "eps_select must be a scalar > 0"),
        ({"delta": 1.5}, "delta must be a number in"),
        ({"score": "zero-one"}, "score must be one of"),
        ({"selector": "max"}, "selector must be one of"),
        ({"validation_fraction": 1.0}, "validation_fraction must be"),
        ({"X_validation": X}, "both X_validation and y_validation"),
        ({"y": np.where(y == 1, 2.0, 0.0)}, "binary labels"),
        ({"upper_bounds": [1, 1]}, "Length of upper_bounds"),
    ]
    for change, message in bad:
        kwargs = {"DPmodels": models, "X": X, "y": y, "upper_bounds": BOUNDS[0],
                  "lower_bounds": BOUNDS[1], "eps_select": 1.0, "random_state": rng,
                  **change}
        with pytest.raises(ValueError, match=message):
            dppack.tune_classification_model_stable(**kwargs)
    assert rng.bit_generator.state == state
    assert models[0].coeff is None


# ---- the histogram interface ---------------------------------------------------------------------


def test_histogram_picks_a_fine_width_for_a_peaked_density():
    rng = np.random.default_rng(9)
    x = 10 + 5 * rng.beta(2, 30, 40000)  # on [10, 15], concentrated near 10
    widths = [0.5, 0.02]
    picks = []
    for seed in range(3):
        h = dppack.tune_histogram_bin_width_stable(x, widths, 2, 2, 10, 15, random_state=seed)
        picks.append(np.diff(h.breaks)[0])
        assert h.breaks[0] == 10 and h.breaks[-1] == 15
        assert np.all(h.counts >= 0)
        np.testing.assert_allclose(h.mids, (h.breaks[1:] + h.breaks[:-1]) / 2)
    assert picks == pytest.approx([0.1] * 3)


def test_histogram_tuning_follows_the_documented_randomness():
    """Order: the shared standard Laplace values, the k selection noises, then fresh noise for
    the released histogram (Algorithm 2: the selection's noise is never reused)."""
    x = np.random.default_rng(14).beta(2, 5, 3000) * 8
    widths = [0.5, 0.25, 0.125]
    released = dppack.tune_histogram_bin_width_stable(x, widths, 1.0, 1.0, 0, 8,
                                                      random_state=5)
    rng = np.random.default_rng(5)
    training, held = split_rows(x.size, 0.2)
    T, V = x[training] / 8, x[held] / 8
    trainer = HistogramTrainer()
    R = trainer.draw_noise(T, widths, rng)
    q = [trainer.score(trainer.fit(T, h, 1.0, R), V) for h in widths]
    beta1, beta2 = dppack.stability_constants_histogram(0.125, T.size, V.size, 3, 1.0, 0.01)
    index = _procedure._select(np.array(q), max(beta1 / T.size, beta2 / V.size), 1.0,
                               "exponential_noise", rng)
    bins = round(1 / widths[index])
    true = np.histogram(T, bins=bins, range=(0, 1))[0]  # no value on an inner break here
    # the released counts get exact discrete Laplace noise: L1 sensitivity 2 on 2 counts
    fresh = _random.discrete_laplace_noise(true, 2.0, 1.0, rng, coordinates=2)
    np.testing.assert_array_equal(released.counts, np.maximum(0, fresh))
    assert released.breaks.size == bins + 1
    assert released.privacy_ == dppack.PrivacyLoss.approx(2.0, 0.01)


def test_histogram_score_is_minus_ise_up_to_a_constant():
    """Eq. 6: q(f, V) estimates -ISE(f) + const; for exact counts of a large uniform sample
    every width scores about 1 (= int f^2 of the uniform density)."""
    rng = np.random.default_rng(10)
    T, V = rng.random(200000), rng.random(200000)
    trainer = HistogramTrainer()
    for h in (0.5, 0.1, 0.02):
        f = trainer.fit(T, h, 1.0, np.zeros(50))
        assert trainer.score(f, V) == pytest.approx(1.0, abs=0.01)
    assert trainer.score(np.zeros(10), V) == pytest.approx(1.0)  # no mass: uniform density


def test_histogram_noise_scale_is_two_over_eps():
    """KS test of the noisy count minus the true count, clipped at 0 (false-failure 1e-3)."""
    trainer = HistogramTrainer()
    T = np.full(500, 0.3)  # one full bin of 500 among 1/h = 2: the other bin is 0
    rng = np.random.default_rng(12)
    noise = np.array([trainer.fit(T, 0.5, 0.5, trainer.draw_noise(T, [0.5], rng))[0] - 500
                      for _ in range(2000)])
    assert stats.kstest(noise, stats.laplace(scale=4.0).cdf).pvalue > 1e-3


def test_histogram_bad_arguments():
    x = np.random.default_rng(0).random(1000)
    for kwargs, message in (
        ({"bin_widths": [0.3]}, "1/h a whole number"),
        ({"bin_widths": [0.0]}, "finite numbers > 0"),
        ({"bin_widths": [2.0]}, "<= 1"),
        ({"x": x[:40]}, "Stability needs at least"),
        ({"lower_bound": 1, "upper_bound": 0}, "lower_bound must be < upper_bound"),
        ({"x": np.append(x, np.nan)}, "x must be finite"),
    ):
        args = {"x": x, "bin_widths": [0.5, 0.1], "eps_train": 1, "eps_select": 1,
                **kwargs}
        with pytest.raises(ValueError, match=message):
            dppack.tune_histogram_bin_width_stable(**args)


# ---- qualitative replication (Chaudhuri and Vinterbo 2013, Section 5) ----------------------------
# The protocol is benchmarks/stable_validation.py's ``one_split`` (design, candidates, the five
# procedures); this test runs it at the CI size, the benchmark at a larger one.


def _stable_validation_benchmark():
    """benchmarks/stable_validation.py as a module (a script, not a package)."""
    path = Path(__file__).resolve().parents[3] / "benchmarks" / "stable_validation.py"
    if str(path.parent) not in sys.path:  # its helper _readme, as when run as a script
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("stable_validation_benchmark", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("alpha, splits", [(1.0, 8), (2.0, 4)])
@pytest.mark.slow
def test_stability_is_no_worse_than_data_splitting(alpha, splits):
    """Section 5: over 8 splits at alpha = 1 (training n = 50000, validation n / 8, test 20000,
    k = 10), Stability's mean Brier score is no larger than dataSplit's and alphaSplit's and
    its mean AUC no smaller (within 0.005: AUC hardly depends on lambda), and Control
    bounds it (Brier within 0.01). Deterministic for these splits (the benchmark's seeds).
    Over the next five sets of 8 splits (8 to 47), Stability's Brier score was below
    dataSplit's by 0.05-0.09 and below alphaSplit's by 0.023-0.080, and its AUC was never
    below theirs, so a failure means a regression, not bad luck. At alpha = 2 (4 splits; Section 5
    asks for alpha >= 1) the means were: Stability 0.8908 / 0.1352, dataSplit
    0.8899 / 0.2444, alphaSplit 0.8905 / 0.2175, Control 0.8908 / 0.1352 (AUC / Brier), and
    over the next five sets of 4 splits Stability's Brier score was below dataSplit's by
    0.07-0.11 and below alphaSplit's by 0.05-0.11."""
    one_split = _stable_validation_benchmark().one_split
    runs = [one_split(split, alpha, n_train=50000, n_test=20000) for split in range(splits)]
    mean = {name: np.mean([run[name] for run in runs], axis=0) for name in runs[0]}
    auc, brier = mean["stability"]
    for baseline in ("dataSplit", "alphaSplit"):
        assert brier <= mean[baseline][1]
        assert auc >= mean[baseline][0] - 0.005
    assert mean["control"][1] <= brier + 0.01


# ---- privacy accounting (issue 12) ------------------------------------------------------------



@pytest.mark.filterwarnings("ignore::dppack.NearUniformSelectionWarning")
def test_every_release_charges_its_whole_run_once():
    X, y = _classification(1500, 21)
    x = np.random.default_rng(22).beta(2, 5, 2000)
    T, V = np.full(50, 0.6), np.full(30, 0.6)
    with dppack.BudgetAccountant(20.0, 0.1) as session:
        best = dppack.tune_classification_model_stable(
            [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (1.0, 10.0)], X, y, *BOUNDS,
            0.5, random_state=1)
        hist = dppack.tune_histogram_bin_width_stable(x, [0.5, 0.25], 1.0, 0.5,
                                                      random_state=2)
        dppack.validate_stable([0.1, 1.0], MeanTrainer(), T, V, 1.0, 0.5, random_state=3)
        dppack.tune_stable([0.1, 1.0], MeanTrainer(), T, V, 1.0, 0.5, random_state=4)
        dppack.stable_select([0.0, 1.0], 0.1, 0.5, "gumbel", random_state=5)
    total = dppack.PrivacyLoss.approx(1.5, 0.01)  # Thm 2: eps_train + eps_select, delta
    assert session.ledger == [
        ("tune_classification_model_stable", total),
        ("tune_histogram_bin_width_stable", total),
        ("validate_stable", dppack.PrivacyLoss.approx(0.5, 0.01)),  # Thm 1
        ("tune_stable", total),
        ("stable_select", dppack.PrivacyLoss.pure(0.5)),
    ]
    assert best.privacy_ == total and hist.privacy_ == total
    assert dppack.model_selection.selection_privacy("stability", 1.0, 0.5, 0.01) == {
        "eps": total.eps, "delta": total.delta}


def test_stable_tuning_overspend_refused_before_the_data_and_the_generator():
    budget = dppack.BudgetAccountant(1.0, 0.1)
    rng = np.random.default_rng(8)
    state = rng.bit_generator.state
    models = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (1.0, 10.0)]
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        dppack.tune_classification_model_stable(models, Untouchable(), Untouchable(), *BOUNDS,
                                                0.5, random_state=rng, accountant=budget)
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        dppack.tune_histogram_bin_width_stable(Untouchable(), [0.5], 1.0, 0.5,
                                               random_state=rng, accountant=budget)
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        dppack.tune_stable([1.0], MeanTrainer(), Untouchable(), Untouchable(), 1.0, 0.5,
                           random_state=rng, accountant=budget)
    with pytest.raises(ValueError, match="Privacy budget exceeded"):
        dppack.stable_select(Untouchable(), 0.1, 1.5, random_state=rng, accountant=budget)
    assert rng.bit_generator.state == state and budget.ledger == []
    assert all(model.coeff is None for model in models)
    # invalid arguments keep their own message and charge nothing
    with pytest.raises(ValueError, match="delta must be a number"):
        dppack.tune_histogram_bin_width_stable(np.ones(10), [0.5], 0.1, 0.1, delta=2,
                                               accountant=budget)
    assert budget.ledger == []


# ---- the diagnosis: how far from uniform (issue 16 item 2) ---------------------------------------

ISSUE_GRID = [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0]  # DPpack-style gammas
SLACK = 1 + 1e-6  # erm.cms's optimality slack: beta1 / n = 2 (1 + tau) / gamma_min


def _hand_group_probability(x, k, j, selector):
    """P(winner among j candidates x noise scales above the other k - j), by scipy's quad on
    the noise density: an integration independent of the module's Gauss-Legendre one."""
    law = {"exponential_noise": stats.expon, "laplace": stats.laplace,
           "gumbel": stats.gumbel_r}[selector]
    low, high = law.ppf(1e-15), law.isf(1e-15)

    def density(t):  # the largest of the j top noises is at t
        return j * law.pdf(t) * law.cdf(t) ** (j - 1) * law.cdf(t + x) ** (k - j)

    kinks = [-x, 0.0] if selector == "laplace" else None  # the Laplace density's kink
    return integrate.quad(density, low, high, points=kinks, limit=400, epsabs=1e-13,
                          epsrel=1e-11)[0]


@pytest.mark.parametrize("selector", ["exponential_noise", "gumbel", "laplace"])
def test_diagnosis_two_candidates_by_hand(selector):
    """k = 2: P(best chosen) = 1 - e^-x / 2 (exponential noise: the difference of two
    exponentials is Laplace), 1 - (2 + x) e^-x / 4 (Laplace: the difference has density
    (1 + |z|) e^-|z| / 4), e^x / (e^x + 1) (exponential mechanism); x = eps_select gap /
    (2 beta) with beta = 2 (1 + tau) / gamma_min (ramp: beta2 = 1, m large)."""
    diagnosis = dppack.stability_selection_diagnosis([2.0, 30.0], n=5000, m=5000, d=3,
                                                     eps=1.0, eps_select=0.7,
                                                     selector=selector)
    beta = 2 * SLACK / 2.0
    x = 0.7 * 1.0 / (2 * beta)
    best = {"exponential_noise": 1 - math.exp(-x) / 2,
            "laplace": 1 - (2 + x) * math.exp(-x) / 4,
            "gumbel": math.exp(x) / (math.exp(x) + 1)}[selector]
    assert diagnosis.sensitivity == pytest.approx(beta, rel=1e-12)
    assert diagnosis.beta1 == pytest.approx(2 * SLACK * 5000 / 2.0, rel=1e-12)
    assert diagnosis.beta2 == 1.0 and diagnosis.score_gap == 1.0
    assert diagnosis.noise_scale == pytest.approx(2 * beta / 0.7, rel=1e-12)
    assert diagnosis.best_probability == pytest.approx(best, abs=1e-12)
    assert diagnosis.distance_from_uniform == pytest.approx(best - 0.5, abs=1e-12)
    if selector == "laplace":  # the exact worst case: (2 + x) e^-x / 4 = 0.05 at the slack
        x = diagnosis.utility_slack / diagnosis.noise_scale
        assert (2 + x) * math.exp(-x) / 4 == pytest.approx(0.05, abs=1e-10)
    else:  # Thm 3 (exponential noise), Dwork and Roth Thm 3.11 (exponential mechanism)
        assert diagnosis.utility_slack == pytest.approx(2 * beta * math.log(2 / 0.05) / 0.7)
    assert diagnosis.verdict == ("informative" if best - 0.5 >= 0.1 else "near uniform")


@pytest.mark.parametrize("selector", ["exponential_noise", "gumbel", "laplace"])
@pytest.mark.parametrize("k", [2, 10, 100])
def test_utility_slack_has_a_tail_of_at_most_five_percent(selector, k):
    """P(chosen score < best - slack) <= 0.05 whatever the scores. Its supremum is at one
    candidate at the best and k - 1 just below best - slack: 1 - P_1(slack / noise scale), by
    scipy's quad on the noise density (independent of the module's Gauss-Legendre). For
    Laplace the slack is the exact root, so the tail is 0.05; 2 beta ln(k / 0.05) / eps_select
    would give 0.0538 at k = 10 and 0.0574 at k = 100."""
    diagnosis = dppack.stability_selection_diagnosis([3.0] * k, n=5000, m=5000, d=3, eps=1.0,
                                                     eps_select=0.7, selector=selector)
    x = diagnosis.utility_slack / diagnosis.noise_scale
    tail = 1.0 - _hand_group_probability(x, k, 1, selector)
    assert tail <= 0.05 + 1e-9
    if selector == "laplace":
        assert tail == pytest.approx(0.05, abs=1e-8)


@pytest.mark.parametrize("selector", ["exponential_noise", "gumbel", "laplace"])
def test_diagnosis_many_candidates_against_quadrature(selector):
    """k = 7: the distance from uniform is max_j (P_j - j / k) over j top candidates (the
    most favourable scores); P_j by quad, and for the exponential mechanism in closed form
    j e^x / (j e^x + k - j)."""
    for gamma_min, eps_select in ((0.01, 1.0), (4.0, 0.5), (50.0, 1.0)):
        diagnosis = dppack.stability_selection_diagnosis(
            [gamma_min * 10.0**i for i in range(7)], n=40000, m=10000, d=6, eps=1.0,
            eps_select=eps_select, selector=selector)
        x = eps_select / (2 * 2 * SLACK / gamma_min)
        k = 7
        groups = np.array([_hand_group_probability(x, k, j, selector) for j in range(1, k)])
        if selector == "gumbel":
            j = np.arange(1, k)
            np.testing.assert_allclose(groups, j * np.exp(x) / (j * np.exp(x) + k - j),
                                       atol=1e-9)
        assert diagnosis.best_probability == pytest.approx(groups[0], abs=1e-9)
        tv = np.max(groups - np.arange(1, k) / k)
        assert diagnosis.distance_from_uniform == pytest.approx(tv, abs=1e-9)


def test_issue_grid_is_a_coin_toss_and_gamma_50_is_not():
    """The issue's two regimes (n = 50,000 in all, 20% for validation)."""
    near = dppack.stability_selection_diagnosis(ISSUE_GRID, n=40000, m=10000, d=9, eps=0.5,
                                                eps_select=0.5)
    # beta = 2 (1 + tau) / 0.01 = 200: noise of scale 800 against a score range of 1
    assert near.sensitivity == pytest.approx(200 * SLACK, rel=1e-12)
    assert near.verdict == "near uniform"
    assert near.best_probability - 1 / 7 < 1e-3 and near.distance_from_uniform < 1e-3
    wide = dppack.stability_selection_diagnosis([50.0, 100.0, 1000.0, 10000.0], n=40000,
                                                m=10000, d=9, eps=0.5, eps_select=0.5)
    assert wide.verdict == "informative" and wide.best_probability > 0.99


def test_diagnosis_solves_for_gamma_and_eps_select():
    """At the proposed gamma_min or eps_select the distance from uniform is the threshold
    0.1; for the ramp score x is proportional to eps_select gamma_min (beta1 / n dominates),
    so both fixes are the same factor."""
    near = dppack.stability_selection_diagnosis(ISSUE_GRID, n=40000, m=10000, d=9, eps=1.0,
                                                eps_select=0.5)
    at_gamma = dppack.stability_selection_diagnosis(
        [near.gamma_min_needed * 10.0**i for i in range(7)], n=40000, m=10000, d=9, eps=1.0,
        eps_select=0.5)
    at_eps = dppack.stability_selection_diagnosis(ISSUE_GRID, n=40000, m=10000, d=9, eps=1.0,
                                                  eps_select=near.eps_select_needed)
    for fixed in (at_gamma, at_eps):
        assert fixed.distance_from_uniform == pytest.approx(0.1, abs=1e-8)
        assert fixed.verdict == "informative"
    assert near.gamma_min_needed / 0.01 == pytest.approx(near.eps_select_needed / 0.5)
    # an informative grid needs nothing: the numbers are its own
    wide = dppack.stability_selection_diagnosis([50.0, 100.0], n=40000, m=10000, d=9,
                                                eps=1.0, eps_select=0.5)
    assert wide.gamma_min_needed == 50.0 and wide.eps_select_needed < 0.5
    # a tiny validation set caps x at eps_select m / 2 (beta2 / m dominates): no gamma helps
    capped = dppack.stability_selection_diagnosis([0.01, 1.0], n=40000, m=1, d=9, eps=1.0,
                                                  eps_select=0.2)
    assert capped.verdict == "near uniform" and capped.gamma_min_needed is None
    assert capped.eps_select_needed > 0.2


def test_diagnosis_score_gap_and_text():
    gap = dppack.stability_selection_diagnosis([50.0, 100.0], n=40000, m=10000, d=9, eps=1.0,
                                               eps_select=1.0, score_gap=0.02)
    assert gap.score_gap == 0.02
    # unbounded scores: beta2 bounds the coefficients' norm; the default gap is 1
    logistic = dppack.stability_selection_diagnosis([0.01, 1.0], n=100, m=50, d=2, eps=1.0,
                                                    eps_select=1.0, score="logistic")
    assert logistic.beta2 > 1000 and logistic.score_gap == 1.0
    assert gap.noise_scale == pytest.approx(2 * 2 * SLACK / 50.0)
    one = dppack.stability_selection_diagnosis([5.0], n=100, m=50, d=2, eps=1.0,
                                               eps_select=1.0)
    assert one.verdict == "one candidate" and one.distance_from_uniform == 0.0
    assert one.gamma_min_needed is None and one.eps_select_needed is None
    near = dppack.stability_selection_diagnosis(ISSUE_GRID, n=40000, m=10000, d=9, eps=1.0,
                                                eps_select=1.0)
    text = str(near)
    assert "near uniform" in text and "eps_select to at least" in text
    assert "eps.select to at least" in near.describe("r")
    assert near.as_dict()["gamma_min_needed"] == near.gamma_min_needed


def test_diagnosis_best_probability_is_the_selectors_frequency():
    """The default selector on the most favourable scores (one candidate a whole score range,
    1, above four others), sensitivity 0.5 at eps_select 1: the share of 10000 selections of
    the top one against best_probability, two-sided binomial test (false-failure rate 1e-3)."""
    gamma = 4.0 * SLACK  # beta = 2 (1 + tau) / gamma = 0.5
    diagnosis = dppack.stability_selection_diagnosis([gamma] * 5, n=1000, m=1000, d=2,
                                                     eps=1.0, eps_select=1.0)
    beta = diagnosis.sensitivity
    rng = np.random.default_rng(16)
    picks = [dppack.stable_select([1.0, 0.0, 0.0, 0.0, 0.0], beta, 1.0, random_state=rng)
             for _ in range(10000)]
    top = int(np.sum(np.array(picks) == 0))
    assert stats.binomtest(top, 10000, diagnosis.best_probability).pvalue > 1e-3


@pytest.mark.parametrize(("arguments", "message"), [
    ({"gammas": []}, "gammas must contain"),
    ({"gammas": [0.0, 1.0]}, "gammas must be finite numbers > 0"),
    ({"m": 0}, "m must be"),
    ({"eps_select": -1}, "eps_select"),
    ({"selector": "max"}, "selector"),
    ({"score_gap": 0}, "score_gap"),
])
def test_diagnosis_refuses_bad_arguments(arguments, message):
    call = {"gammas": [1.0, 10.0], "n": 100, "m": 50, "d": 2, "eps": 1.0, "eps_select": 1.0,
            **arguments}
    with pytest.raises(ValueError, match=message):
        dppack.stability_selection_diagnosis(**call)


class ShapedUntouchable(Untouchable):
    """Data whose shape is public and whose values fail the test when read."""

    def __init__(self, *shape):
        self.shape = shape


def test_tuning_warns_near_uniform_before_reading_the_data():
    models = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in ISSUE_GRID]
    with pytest.warns(validation.NearUniformSelectionWarning,
                      match=r"near uniform.*Raise the smallest gamma to at least .*eps_select "
                            r"to at least .*tune_classification_model"):
        with pytest.raises(AssertionError, match="read"):
            dppack.tune_classification_model_stable(
                models, ShapedUntouchable(50000, 8), ShapedUntouchable(50000), *([[1.0] * 8,
                [-1.0] * 8]), eps_select=1.0)
    # the warning class is exported and a UserWarning
    assert issubclass(dppack.NearUniformSelectionWarning, UserWarning)


def test_tuning_does_not_warn_for_large_gammas():
    models = [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (50.0, 100.0, 1000.0, 1e4)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", validation.NearUniformSelectionWarning)
        with pytest.raises(AssertionError, match="read"):
            dppack.tune_classification_model_stable(
                models, ShapedUntouchable(50000, 8), ShapedUntouchable(50000), [1.0] * 8,
                [-1.0] * 8, eps_select=1.0)
        X, y = _classification(2000, 31)  # and a whole run on real data stays quiet
        dppack.tune_classification_model_stable(models[:2], X, y, *BOUNDS, 1.0,
                                                random_state=1)


@pytest.mark.parametrize("score", ["ramp", "hinge", "logistic"])
@pytest.mark.parametrize("method", ["output", "objective"])
@pytest.mark.parametrize("add_bias", [False, True])
def test_warning_diagnosis_uses_the_constants_of_the_run(monkeypatch, score, method, add_bias):
    """The diagnosis behind the warning must describe the selection that follows: its beta1,
    beta2, sensitivity and noise scale equal those Algorithm 1 then uses. Large gammas on few
    rows make beta2 = B < 1 depend on d (add_bias) and on the training noise's budget (eps'
    for objective perturbation), so a diagnosis with another d or budget fails."""
    seen = {}
    warn, validate = _diagnosis._warn_near_uniform, _procedure.validate

    def warn_spy(*args, **kwargs):
        seen["diagnosis"] = warn(*args, **kwargs)
        return seen["diagnosis"]

    def validate_spy(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2, *rest):
        seen["run"] = (beta1, beta2)
        result = validate(thetas, trainer, T, V, eps_train, eps_select, beta1, beta2, *rest)
        seen["beta"] = result[2]
        return result

    # the names tune_classification_model_stable calls, in its module
    monkeypatch.setattr(_diagnosis, "_warn_near_uniform", warn_spy)
    monkeypatch.setattr(_diagnosis, "validate", validate_spy)
    X, y = _classification(75, 41)  # n = 60 training, m = 15 validation rows
    model = dppack.svmDP if score == "hinge" else dppack.LogisticRegressionDP
    models = [model("l2", 0.8, gamma, method) for gamma in (200.0, 900.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", validation.NearUniformSelectionWarning)
        dppack.tune_classification_model_stable(models, X, y, *BOUNDS, 0.6, add_bias=add_bias,
                                                score=score, random_state=5)
    diagnosis, (beta1, beta2), beta = seen["diagnosis"], seen["run"], seen["beta"]
    assert beta2 < 1.0 or score == "hinge"  # B < 1: beta2 depends on d and the budget
    assert diagnosis.beta1 == pytest.approx(beta1, rel=1e-12)
    assert diagnosis.beta2 == pytest.approx(beta2, rel=1e-12)
    assert diagnosis.sensitivity == pytest.approx(beta, rel=1e-12)
    assert diagnosis.noise_scale == pytest.approx(2 * beta / 0.6, rel=1e-12)


def test_best_probability_is_clipped_to_a_probability():
    """Seven candidates 40 noise scales apart: the quadrature gives P_1 = 1 + 9e-15 for the
    exponential noise, which must not be printed as a probability above 1."""
    diagnosis = dppack.stability_selection_diagnosis([4.0] * 7, n=5000, m=5000, d=3, eps=1.0,
                                                     eps_select=40.0 * SLACK)
    assert diagnosis.noise_scale * 40.0 == pytest.approx(1.0)
    assert 0.0 <= diagnosis.best_probability <= 1.0
    assert 0.0 <= diagnosis.distance_from_uniform <= 1.0 - 1.0 / 7 + 1e-12


def test_unbounded_scores_do_not_claim_the_most_favourable_case():
    """For hinge and logistic the default gap 1 is below beta2 (losses can differ by more):
    the text and the warning must not call it the most favourable case; for ramp it is."""
    hinge = dppack.stability_selection_diagnosis([0.01, 1.0], n=1000, m=250, d=3, eps=1.0,
                                                 eps_select=1.0, score="hinge")
    ramp = dppack.stability_selection_diagnosis([0.01, 1.0], n=1000, m=250, d=3, eps=1.0,
                                                eps_select=1.0)
    assert hinge.beta2 > 1 and hinge.score_gap == 1.0 and hinge.verdict == "near uniform"
    assert "favourable" not in str(hinge) and "up to beta2" in str(hinge)
    assert "Most favourable case" in str(ramp)
    models = [dppack.svmDP("l2", 1.0, g) for g in ISSUE_GRID]
    with pytest.warns(validation.NearUniformSelectionWarning) as caught:
        with pytest.raises(AssertionError, match="read"):
            dppack.tune_classification_model_stable(
                models, ShapedUntouchable(50000, 8), ShapedUntouchable(50000), [1.0] * 8,
                [-1.0] * 8, eps_select=1.0, score="hinge")
    text = str(caught[0].message)
    assert "favourable" not in text and "chosen more often" in text


# ---- the exact noisy maximum (issue 25) ----------------------------------------------------


@pytest.mark.parametrize("selector", ["exponential_noise", "laplace"])
@pytest.mark.parametrize("shift, unit", [(2.0**60, 2.0**8), (0.0, 2.0**-1070)],
                         ids=["huge", "subnormal"])
def test_noisy_max_law_holds_where_floats_round(selector, shift, unit):
    """The law of the selection is the continuous noisy maximum's at scores 2^60 + j 256
    (where a float sum q + noise keeps only whole steps of 256 of a noise of scale 512) and
    at subnormal scores j 2^-1070 (where a float noise 2 beta Z underflows to multiples of
    2^-1074): the scores are rounded to a grid of beta / 2^20 or finer (2^-1074 at least),
    and the noise is drawn in integers, its scale 2 D h / eps_select. Chi-square of 6000
    selections against the integral of the continuous law (false-failure rate 1e-3). The
    float code before issue 25 fails the huge case (ties at whole steps of 256)."""
    # SCORES / BETA = (0, 2, 5, 6) scaled by unit, with beta = unit: the same law as SCORES
    scores = shift + unit * (SCORES / BETA)
    beta = unit
    assert np.array_equal(scores - shift, unit * np.array([0.0, 2.0, 5.0, 6.0]))  # exact
    # the noise scale in value units is 2 D h / eps (h = 2^k the score grid, D = ceil(beta /
    # h) + 1): 2 beta / eps (1 + 2^-20) for the huge scores; for the subnormal ones h cannot
    # be finer than 2^-1074 = beta / 16, so D h = 17 beta / 16 (more noise: still private)
    k, rate = _random.exponential_grid(float(np.max(np.abs(scores))), EPS2, beta)
    factor = math.ldexp(EPS2 / (2 * float(rate)), k) / beta  # D h / beta
    assert factor == pytest.approx(1 + 2.0**-20 if shift else 17 / 16, rel=1e-12)
    scale = 2 * BETA * factor / EPS2
    if selector == "exponential_noise":
        law, low, high = stats.expon(scale=scale), 0.0, 60 * scale
    else:
        law, low, high = stats.laplace(scale=scale), -60 * scale, 60 * scale
    expected = _winner_probabilities(law.pdf, law.cdf, low, high)  # on SCORES, BETA
    rng = np.random.default_rng(13)
    picks = [dppack.stable_select(scores, beta, EPS2, selector, random_state=rng)
             for _ in range(6000)]
    counts = np.bincount(picks, minlength=scores.size)
    assert stats.chisquare(counts, expected * counts.sum()).pvalue > 1e-3


@pytest.mark.parametrize("selector", ["exponential_noise", "gumbel", "laplace"])
def test_selection_draws_no_float_noise(monkeypatch, selector):
    """The selection never calls a floating-point sampler (the noise is integer)."""
    from dppack import _random

    def refuse(*args, **kwargs):
        raise AssertionError("a float draw in the selection")

    for name in ("laplace", "gamma", "uniform", "normal", "log_categorical"):
        monkeypatch.setattr(_random, name, refuse)
    assert dppack.stable_select(SCORES, BETA, EPS2, selector, random_state=3) in range(4)
