"""Shared setup of the LinearRegressionDP audits (test_audit_exact_kst.py,
test_audit_lrdp_grid.py): the audit sizes, the bounds, the base data set and its
replace-one neighbours, the release, its certificate and the check that the certificate does
not move with the data."""

import numpy as np

import dppack
from auditor import assert_same_structure

CI = dict(n_samples=500, n_pilot=200)
FULL = dict(n_samples=10_000, n_pilot=2_000)
BOUNDS = ([1.0, 1.0, 2.0], [-1.0, -1.0, -2.0])


def base(n=8):
    """Eight rows of two columns inside the bounds, and y their first column."""
    t = np.arange(n, dtype=np.float64)
    X = np.column_stack([np.sin(t), np.cos(1.3 * t)])
    return X, X[:, 0].copy()


def replace(last_x, last_y, n=8):
    """The base data set with its last record replaced by (last_x, last_y)."""
    X, y = base(n)
    X[-1], y[-1] = last_x, last_y
    return X, y


def release(eps=1.0, delta=0.0, gamma=0.01):
    """The audited release: LinearRegressionDP's fit with a bias, from the auditor's rng."""
    def fit(data, rng):
        X, y = data
        return dppack.LinearRegressionDP("l2", eps, delta, gamma).fit(
            X, y, *BOUNDS, add_bias=True, random_state=rng)
    return fit


def certificate(model):
    """What must not depend on the data: the certificate, the grid and the budget split."""
    return (model.optimality_tolerance_, model.release_sensitivity_, model.release_grid_,
            model.release_eps_, model.Delta_, model.coeff.shape)


def assert_certificate_is_data_independent(d0, d1):
    """The certificate of the default release is the same on the neighbours d0 and d1."""
    assert_same_structure(release(), d0, d1, certificate, n_draws=5)


def scaled_coefficients(model):
    """The fitted coefficients on the clipped, scaled problem the model solves."""
    scaled = model.coeff.copy()
    scaled[0] -= model._shift
    return scaled * model._scales / model._scale
