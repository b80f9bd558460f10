"""Audits of the three mechanisms on worst-case neighbouring inputs (values that differ by
exactly the sensitivity; tests/privacy/README.md). Each audit's false-failure rate is 1e-3."""

import numpy as np
import pytest

import dppack
from dppack.mechanisms import discrete_gaussian_release, gaussian_sigma
from auditor import assert_private

AUDITED = ["LaplaceMechanism", "GaussianMechanism", "ExponentialMechanism"]

SENS = np.array([0.5, 1.0, 2.0])


def _sum_too(values):
    """The coordinates and their sum: for noise on every coordinate the sum (a fixed linear
    statistic) carries the privacy loss of the whole vector, a single coordinate only part."""
    values = np.asarray(values, dtype=np.float64).ravel()
    return np.r_[values, values.sum()]


def _weighted(weights):
    def project(values):
        values = np.asarray(values, dtype=np.float64).ravel()
        return np.r_[values, values @ weights]
    return project


def test_laplace_scalar():
    def release(value, rng):
        return dppack.LaplaceMechanism(value, 1.0, 1.0, random_state=rng)
    assert_private(release, 0.0, 1.0, 1.0, n_samples=20_000)


def test_laplace_vector_l1():
    # Without allocation every coordinate gets scale sum(Delta)/eps (DPpack's
    # LaplaceMechanism): each value
    # moves by its own sensitivity.
    def release(values, rng):
        return dppack.LaplaceMechanism(values, 1.0, SENS, random_state=rng)
    assert_private(release, np.zeros(3), SENS, 1.0, n_samples=20_000, project=_sum_too)


def test_laplace_alloc_proportions():
    # Scale Delta_i / (a_i eps) (DPpack's LaplaceMechanism): coordinate i spends a_i eps. The
    # weighted sum
    # x_1/b_1 + x_2/b_2 is the log-likelihood-ratio direction.
    sens, alloc = np.array([0.5, 1.0]), np.array([0.1, 0.9])
    scales = sens / alloc

    def release(values, rng):
        return dppack.LaplaceMechanism(values, 1.0, sens, alloc_proportions=[1, 9],
                                       random_state=rng)
    assert_private(release, np.zeros(2), sens, 1.0, n_samples=10_000,
                   project=_weighted(1 / scales))


@pytest.mark.parametrize("type_DP, analytic, eps, delta", [
    ("aDP", False, 0.9, 1e-5),
    ("pDP", False, 0.9, 1e-3),
    ("aDP", True, 0.5, 1e-3),
    ("aDP", True, 3.0, 1e-3),  # the analytic calibration allows eps >= 1
])
def test_gaussian_batched(type_DP, analytic, eps, delta):
    # n one-value releases in one vectorised call: independent draws of the law of
    # GaussianMechanism on one value, i.e. its scalar path (DPpack's sigma, then
    # discrete_gaussian_release with one coordinate). GaussianMechanism on n values would be
    # one vector release, calibrated (and noised) for a vector of n.
    sigma = gaussian_sigma(eps, delta, 1.0, type_DP, analytic)

    def release(value, rng, n):
        if n == 1:  # one real call (the charge check makes one)
            return np.atleast_1d(dppack.GaussianMechanism(
                value, eps, delta, 1.0, type_DP=type_DP, analytic=analytic, random_state=rng))
        return discrete_gaussian_release(np.full(n, float(value)), sigma, 1.0, rng, eps=eps,
                                         delta=delta, type_DP=type_DP, coordinates=1)
    # the scalar path is GaussianMechanism's own on one value: the same draws
    same = [dppack.GaussianMechanism(0.0, eps, delta, 1.0, type_DP=type_DP, analytic=analytic,
                                     random_state=np.random.default_rng(i)) for i in range(3)]
    assert same == [float(discrete_gaussian_release(
        np.zeros(1), sigma, 1.0, np.random.default_rng(i), eps=eps, delta=delta,
        type_DP=type_DP, coordinates=1)[0]) for i in range(3)]
    assert_private(release, 0.0, 1.0, eps, delta, n_samples=1_000_000, batch=True)


def test_gaussian_single_calls():
    def release(value, rng):
        return dppack.GaussianMechanism(value, 1.0, 1e-3, 1.0, analytic=True, random_state=rng)
    assert_private(release, 0.0, 1.0, 1.0, 1e-3, n_samples=5_000)


def test_gaussian_vector_l2_and_alloc():
    # l2 norm of the sensitivities for every coordinate (DPpack's GaussianMechanism)
    def release(values, rng):
        return dppack.GaussianMechanism(values, 0.9, 1e-3, SENS, type_DP="pDP",
                                        random_state=rng)
    assert_private(release, np.zeros(3), SENS, 0.9, 1e-3, n_samples=10_000,
                   project=_weighted(SENS))

    def allocated(values, rng):
        return dppack.GaussianMechanism(values, 0.9, 1e-3, [0.5, 1.0], type_DP="pDP",
                                        alloc_proportions=[1, 9], random_state=rng)
    assert_private(allocated, np.zeros(2), np.array([0.5, 1.0]), 0.9, 1e-3,
                   n_samples=10_000)


# Candidate 0 is last on d0 and first on d1, every utility moves by the sensitivity 1.
EXP_D0 = np.r_[0.0, np.ones(19)]
EXP_D1 = np.r_[1.0, np.zeros(19)]


def test_exponential_worst_case():
    def release(utility, rng):
        return dppack.ExponentialMechanism(utility, 1.0, 1.0, random_state=rng)
    assert_private(release, EXP_D0, EXP_D1, 1.0, n_samples=20_000)


def test_exponential_measure_and_candidates():
    measure = np.r_[0.5, np.linspace(0.1, 3.0, 19)]
    candidates = [f"c{i}" for i in range(20)]

    def release(utility, rng):
        chosen = dppack.ExponentialMechanism(utility, 2.0, 0.5, measure=measure,
                                             candidates=candidates, random_state=rng)
        return candidates.index(chosen)
    assert_private(release, 0.5 * EXP_D0, 0.5 * EXP_D1, 2.0, n_samples=20_000)
