"""Audits of the l-infinity noise and the projected release of LinearRegressionAdaSSP
(tests/privacy/README.md).

With two or more features and delta = 0, the vector parts of the full release (the sums of
the features, X'y and X'X) get the exact l-infinity noise of ``_random.linf_noise`` (Hardt
and Talwar 2010) where its standard deviation is below the Laplace noise's, and where n eps
is small against d the fit uses the projected release instead: X'y at eps / 2, then the sums
of y, s, s^2 and s y for s = v'z along the released direction v, one l-infinity release at
eps / 2 (``dppack.erm.adassp``). The worst case of the l-infinity noise moves every
coordinate by its whole range at once (a corner of the cube), which the l1 audits of
``test_audit_adassp.py`` (one feature: Laplace everywhere, the full release) do not exercise.
The audits here:

* the sampler alone, V + Z for the integer vectors 0 and (D, -D, D) (every coordinate moved by
  D, the l-infinity sensitivity) at eps = 1, projected on the privacy loss statistic
  ||w - V0||_inf - ||w - V1||_inf, whose upper tail is the worst event;
* the full release's X'y with two features (60 records: the full release at eps = 8), one
  record (1, 1, -1) replaced by (1, 1, 1): both entries move by 2, their whole range;
  claimed at X'y's share eps / 4, on the same statistic and the two entries;
* the projected release's second part with the first replaced by a constant (v fixed): one
  record (s, y) = (1, -1) -> (0, 1) moves the scaled vector by its l-infinity sensitivity;
  claimed at eps / 2;
* (full sweep) X'X of the full release; the full fit's and the projected fit's coefficients
  at eps; power: the sampler audit with half the noise fails.

eps = 8 for the fits keeps the events frequent. The CI subset takes about 20 s (1,000 fits or
4,000 sampler draws per dataset each). False-failure rate 1e-3 per audit. A deterministic
check covers the grid: at binade edges of the data, every released statistic of both
releases is a multiple of one power of two far above the data's last bits (Mironov 2012).
"""

import math

import numpy as np
import pytest

import dppack
from auditor import assert_private, audit
from dppack import _random
from dppack.erm import adassp

EPS = 8.0
PART = EPS / 4
CI = dict(n_samples=1_000, n_pilot=500)
FULL = dict(n_samples=6_000, n_pilot=1_000)
BOUNDS = ([1.0, 1.0, 1.0], [-1.0, -1.0, -1.0])  # two features in [-1, 1], then y
UNITS = 3
V1 = np.array([UNITS, -UNITS, UNITS])


def _loss_statistic(v0, v1):
    v0, v1 = np.asarray(v0, dtype=float), np.asarray(v1, dtype=float)
    return lambda w: np.array([np.max(np.abs(w - v0)) - np.max(np.abs(w - v1))])


def _sampler_release(eps, sampler=None):
    statistic = _loss_statistic(np.zeros(3), V1)

    def release(data, rng):
        noise, _ = (sampler or _random.linf_noise)(UNITS, eps, 3, rng)
        out = np.asarray(data) + np.array(noise)
        return np.concatenate([statistic(out), out])
    return release


def test_linf_noise_at_a_corner():
    """0 -> (D, -D, D): every coordinate moves by the l-infinity sensitivity D = 3."""
    assert_private(_sampler_release(1.0), np.zeros(3, dtype=np.int64), V1, 1.0, charged=False,
                   labels=["loss", "z1", "z2", "z3"], n_samples=4_000, n_pilot=1_000)


@pytest.mark.audit_full
def test_power_half_noise():
    """The same audit with the noise at half its scale (eps doubled) finds eps_lb > 1."""
    doubled = lambda units, eps, size, rng: _random.linf_noise(units, 2 * eps, size, rng)
    result = audit(_sampler_release(1.0, doubled), np.zeros(3, dtype=np.int64), V1, 1.0,
                   n_samples=4_000, n_pilot=1_000)
    assert not result.passed, str(result)


_REST = np.random.default_rng(4).uniform(-0.5, 0.5, (59, 3))  # 59 fixed records


def _data(x1, x2, y):
    """60 records: n large enough for the full release at eps = 8 (d tau < 1/3)."""
    X = np.vstack([[x1, x2], _REST[:, :2]])
    return X, np.concatenate([[y], _REST[:, 2]])


def _small(x1, x2, y):
    """3 records: the projected release (d tau > 1/3 at any eps here)."""
    X = np.array([[x1, x2], [0.5, -0.25], [-0.2, 0.4]])
    return X, np.array([y, 0.3, 0.1])


def _exact_xty(data):
    X, y = data
    return X.T @ y  # the scaled records are the raw ones here (bounds [-1, 1])


def _fit_release(project, eps=EPS, method="full"):
    def release(data, rng):
        X, y = data
        model = dppack.LinearRegressionAdaSSP(eps).fit(X, y, *BOUNDS, add_bias=True,
                                                       random_state=rng)
        assert model.method_ == method
        return project(model)
    return release


def test_xty_at_a_corner():
    """(1, 1, -1) -> (1, 1, 1): X'y moves by (2, 2), its l-infinity sensitivity in both
    coordinates at once; audited at X'y's share eps / 4 on the loss statistic and entries."""
    d0, d1 = _data(1.0, 1.0, -1.0), _data(1.0, 1.0, 1.0)
    statistic = _loss_statistic(_exact_xty(d0), _exact_xty(d1))

    def project(model):
        assert model.sensitivities_["xty"] <= 2.0 + 2.0 ** -10  # the l-infinity range
        w = np.ravel(model.statistics_["xty"])
        return np.concatenate([statistic(w), w])
    assert_private(_fit_release(project), d0, d1, PART, charged=False,
                   labels=["loss", "xty1", "xty2"], **CI)


@pytest.mark.audit_full
def test_xtx_from_the_centre_to_a_corner():
    """(0, 0) -> (1, 1): the diagonal of X'X moves by its range 1 (scaled by 2 in the
    release, to the cross product's range 2), the cross product by 1."""
    d0, d1 = _data(0.0, 0.0, 0.0), _data(1.0, 1.0, 0.0)
    assert_private(_fit_release(lambda m: m.statistics_["xtx"][np.triu_indices(2)]), d0, d1,
                   PART, labels=["x11", "x12", "x22"], **FULL)


@pytest.mark.audit_full
def test_coefficients_at_eps():
    """The whole fit (post-processing of the four parts) between opposite corners."""
    assert_private(_fit_release(lambda m: m.coeff), _data(1.0, 1.0, -1.0),
                   _data(-1.0, -1.0, 1.0), EPS, labels=["b0", "b1", "b2"], **FULL)


def _grid_exponent(values):
    """The exponent of the largest power of two dividing every nonzero value."""
    out = []
    for v in np.ravel(values):
        if v != 0:
            m, e = math.frexp(float(v))
            m, e = int(math.ldexp(m, 53)), e - 53
            while m % 2 == 0:
                m, e = m // 2, e + 1
            out.append(e)
    return min(out)


@pytest.mark.parametrize("x0, x1", [(0.1, 0.3), (1 - 2.0 ** -53, 1.0), (2.0 ** -1074, 0.0)])
@pytest.mark.parametrize("eps, method", [(8.0, "full"), (1.0, "projected")])
def test_linf_parts_lie_on_a_coarse_grid(x0, x1, eps, method):
    """On both neighbours every released statistic is a multiple of one power of two at least
    2^-40 of its noise scale: no trace of the data's last bits (the full release's l-infinity
    parts at eps 8; the projected release's two at eps 1)."""
    grids = {}
    for x in (x0, x1):
        for seed in range(5):
            model = dppack.LinearRegressionAdaSSP(eps).fit(*_data(x, 0.3, 0.2), *BOUNDS,
                                                           add_bias=True, random_state=seed)
            assert model.method_ == method
            for name, values in model.statistics_.items():
                if name not in ("n", "projection"):
                    grids.setdefault(name, set()).add(_grid_exponent(values))
    for name, exponents in grids.items():
        scale = 4 * model.sensitivities_[name] / eps
        assert min(exponents) >= math.floor(math.log2(scale)) - 40, (name, exponents)


# ---- the projected release -------------------------------------------------------------------

DIRECTION = np.array([1.0, 1.0])  # a fixed first release: v = (1/2, 1/2)


def _fixed_direction(monkeypatch):
    """The first release (X'y) replaced by a constant: the second release alone, with the
    direction it would receive, is then a fixed mechanism claimed at eps / 2."""
    def release(parts, eps, delta, rng, k):
        assert [part[0] for part in parts] == ["xty"] and eps == EPS / 2
        return {"xty": DIRECTION.copy()}, {"xty": 2.0}, {"xty": 0.0}
    monkeypatch.setattr(adassp, "_release", release)


def _second_statistics(data):
    """The exact sums of the second release for v = (1/2, 1/2), and its factors f (ranges
    2, 2, 1, 2: the sum of squares is scaled by 2 before the noise)."""
    X, y = data
    s = X @ (DIRECTION / 2)
    return np.array([y.sum(), s.sum(), s @ s, s @ y]), np.array([1.0, 1.0, 2.0, 1.0])


def test_projected_second_release_at_a_corner(monkeypatch):
    """(s, y) = (1, -1) -> (0, 1) with v fixed: sum y moves by 2 (its range), sum s by 1,
    sum s^2 by 1 (its range; 2 after its factor) and sum s y by 1, so the scaled vector
    moves by the l-infinity sensitivity 2; claimed eps / 2, projected on the loss statistic
    of the scaled vector and the four values."""
    _fixed_direction(monkeypatch)
    d0, d1 = _small(1.0, 1.0, -1.0), _small(0.0, 0.0, 1.0)
    (v0, f), (v1, _) = _second_statistics(d0), _second_statistics(d1)
    statistic = _loss_statistic(v0 * f, v1 * f)
    names = ["sum_y", "sum_s", "sum_ss", "sum_sy"]

    def project(model):
        w = np.array([model.statistics_[name][0] for name in names])
        return np.concatenate([statistic(w * f), w])
    assert_private(_fit_release(project, method="projected"), d0, d1, EPS / 2, charged=False,
                   labels=["loss"] + names, **CI)


@pytest.mark.audit_full
def test_projected_fit_at_eps():
    """The whole projected fit (two releases of eps / 2, the second given the first): its
    coefficients and the released direction between opposite corners, at eps."""
    def project(model):
        return np.concatenate([model.coeff, model.statistics_["projection"]])
    assert_private(_fit_release(project, method="projected"), _small(1.0, 1.0, -1.0),
                   _small(-1.0, -1.0, 1.0), EPS, labels=["b0", "b1", "b2", "v1", "v2"], **CI)
