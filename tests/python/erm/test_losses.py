"""The one losses module (dppack.erm._losses): values, derivatives, the proofs' constants, the
fused evaluation over a design, and numerical stability.

Everything here is deterministic (fixed seeds, fixed grids): no false failures.
"""

import math
import warnings
from decimal import Decimal, getcontext

import numpy as np
import pytest

import dppack
from dppack.analytic_gaussian_erm._budget import loss_constants
from dppack.erm import blocks, _losses as losses

LOSSES = [losses.logistic(), losses.huber(0.1), losses.huber(0.5), losses.huber(2.0)]
IDS = ["logistic", "huber0.1", "huber0.5", "huber2"]


def _away_from_kinks(loss, z):
    """The points of ``z`` where the loss is three times differentiable (not within 1e-3 of
    the Huber kinks 1 +- h)."""
    if isinstance(loss, losses.HuberLoss):
        z = z[(np.abs(z - (1 - loss.h)) > 1e-3) & (np.abs(z - (1 + loss.h)) > 1e-3)]
    return z


# ---- derivatives -----------------------------------------------------------------------------


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_derivatives_match_central_differences(loss):
    z = _away_from_kinks(loss, np.linspace(-6.0, 6.0, 1201) + 1e-4)
    step = 1e-6  # truncation ~1e-12 |f'''|, rounding ~1e-16 / 1e-6 = 1e-10
    first_fd = (loss.value(z + step) - loss.value(z - step)) / (2 * step)
    second_fd = (loss.first(z + step) - loss.first(z - step)) / (2 * step)
    np.testing.assert_allclose(loss.first(z), first_fd, atol=1e-8)
    np.testing.assert_allclose(loss.second(z), second_fd, atol=1e-7)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_first_with_labels_is_the_derivative_in_the_score(loss):
    # d/ds f(y s) = y f'(y s): the form DPpack's generate.loss.gr.huber computes
    rng = np.random.default_rng(1)
    s = rng.normal(scale=3.0, size=500)
    y = rng.choice([-1.0, 1.0], size=500)
    step = 1e-6
    numeric = (loss.value(y * (s + step)) - loss.value(y * (s - step))) / (2 * step)
    exact = loss.first(y * s, y)
    assert np.array_equal(exact, y * loss.first(y * s))
    z = y * s
    keep = np.isin(z, _away_from_kinks(loss, z))
    np.testing.assert_allclose(exact[keep], numeric[keep], atol=1e-8)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_scalar_first_agrees_with_the_vectorised_one(loss):
    z = np.concatenate([np.linspace(-40.0, 40.0, 4001), [-1000.0, 0.0, 1000.0]])
    scalar = np.array([loss.scalar_first(float(v)) for v in z])
    vector = loss.first(z)
    # the math module's exp and numpy's, and e/(1 + e) against e (1/(1 + e)), may differ in
    # the last bits: at most 2 units in the last place
    assert np.all(np.abs(scalar - vector) <= 2 * np.spacing(np.abs(vector)))
    assert all(isinstance(loss.scalar_first(float(v)), float) for v in z[:5])


def test_huber_values_at_dppack_reference_points():
    # DPpack's R/StatModels.R, verified against DPpack
    y_hat = np.array([-0.5, 1.2, -0.9, 0.8, 1.6])
    y = np.array([-1.0, 1.0, -1.0, 1.0, 1.0])
    np.testing.assert_allclose(blocks.generate_loss_huber(0.5)(y_hat, y),
                               [0.5, 0.045, 0.18, 0.245, 0.0], atol=1e-15)
    np.testing.assert_allclose(
        blocks.generate_loss_gr_huber(0.5)(y_hat, y, [0.1, 0.5, 1.0, 2.0, 1.0]),
        [0.10, -0.15, 0.60, -1.40, 0.0], atol=1e-15)
    loss = losses.huber(0.5)
    assert np.array_equal(blocks.generate_loss_huber(0.5)(y_hat, y), loss.value(y * y_hat))
    assert np.array_equal(blocks.generate_loss_hess_huber(0.5)(y_hat, y),
                          loss.second(y * y_hat))
    with pytest.raises(ValueError, match="^Weight vector w must be same length as label vector"):
        blocks.generate_loss_gr_huber(0.5)(y_hat, y, [1.0, 2.0])
    # DPpack does not check h: the blocks take it as it is
    assert blocks.generate_loss_huber(-1)([0.0], [1.0]).shape == (1,)


# ---- the constants against their definition ------------------------------------------------


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_constants_are_the_suprema_of_the_derivatives(loss):
    # lipschitz = sup |f'|, curvature = sup |f''| (Wang, Kifer and Lee 2019;
    # Ding et al.): bounds on a fine grid, and attained (or approached)
    z = np.linspace(-60.0, 60.0, 1_200_001)
    first, second = np.abs(loss.first(z)), np.abs(loss.second(z))
    assert first.max() <= loss.lipschitz
    assert first.max() >= loss.lipschitz - 1e-12  # approached as z -> -inf / on z < 1 - h
    assert second.max() <= loss.curvature
    assert second.max() == pytest.approx(loss.curvature, rel=1e-9)


def test_constants_values_and_their_readers():
    assert losses.logistic().curvature == 0.25 and losses.logistic().lipschitz == 1.0
    for h in (0.1, 0.5, 3.0):
        assert losses.huber(h).curvature == 1.0 / (2.0 * h)
        assert losses.huber(h).lipschitz == 1.0
        # the CMS models' c and the analytic-Gaussian ERM's (L, beta) are the loss's
        assert dppack.svmDP("l2", 1.0, 1.0, huber_h=h).c == losses.huber(h).curvature
        assert loss_constants("huber", h, 0.01) == (1.0, 1.0 / (2.0 * h) + 0.01)
    assert dppack.LogisticRegressionDP("l2", 1.0, 1.0).c == losses.logistic().curvature
    assert loss_constants("logistic", 0.5, 0.01) == (1.0, 0.25 + 0.01)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_sup_first_at_bounds_the_slope_over_the_unit_ball(loss):
    # sup over ||x|| <= 1 of |f'(y theta'x)|: the margins fill [-r, r], r = ||theta||
    for r in (0.0, 0.3, 2.0, 7.5):
        margins = np.linspace(-r, r, 20001)
        worst = float(np.max(np.abs(loss.first(margins))))
        assert worst <= loss.sup_first_at(r) * (1 + 1e-15)
        if isinstance(loss, losses.LogisticLoss):
            assert loss.sup_first_at(r) == pytest.approx(worst, rel=1e-15)  # S(r), attained
        else:
            assert loss.sup_first_at(r) == 1.0  # the data-free bound: the loss's Lipschitz constant


# ---- constructors ----------------------------------------------------------------------------


def test_constructors_and_their_checks():
    assert isinstance(losses.margin_loss("logistic"), losses.LogisticLoss)
    assert losses.margin_loss("logistic", huber_h=-1).name == "logistic"  # h not used
    assert losses.margin_loss("huber", 0.25) == losses.huber(0.25) == losses.HuberLoss(0.25)
    with pytest.raises(ValueError, match=r"^loss must be one of \{'logistic', 'huber'\}\.$"):
        losses.margin_loss("hinge")
    for bad in (0, -1.0, math.inf, math.nan, "a", None, [0.5, 1.0]):
        with pytest.raises(ValueError, match="huber.h"):
            losses.huber(bad)
    with pytest.raises(ValueError, match="huber.h"):
        loss_constants("huber", 0.0, 0.1)
    loss = losses.huber(0.5)
    with pytest.raises(AttributeError):
        loss.h = 1.0  # frozen


# ---- the fused evaluation over a design ----------------------------------------------------


def _design(n, d, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    y = rng.choice([-1.0, 1.0], size=n)
    return X, y, rng.uniform(0.0, 2.0, size=n)


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("ridge", [0.0, 0.3])
def test_fused_risk_equals_a_loop_over_the_rows(loss, weighted, ridge):
    n, d = 200, 4
    X, y, w = _design(n, d, 2)
    weights = w if weighted else None
    risk = loss.risk(X, y, weights, ridge)
    rng = np.random.default_rng(3)
    for scale in (0.1, 1.0, 5.0):
        theta = rng.normal(size=d) * scale
        value, grad, hess = 0.0, np.zeros(d), np.zeros((d, d))
        for i in range(n):  # the plain loop, with the scalar functions
            wi = 1.0 if weights is None else w[i]
            z = y[i] * float(X[i] @ theta)
            value += wi * float(loss.value(z)) / n
            grad += wi * float(loss.first(z)) * y[i] * X[i] / n
            hess += wi * float(loss.second(z)) * np.outer(X[i], X[i]) / n
        value += ridge / 2 * float(theta @ theta)
        grad += ridge * theta
        hess += ridge * np.eye(d)
        fused_value, fused_grad = risk(theta)
        assert fused_value == pytest.approx(value, rel=1e-12, abs=1e-15)
        np.testing.assert_allclose(fused_grad, grad, rtol=1e-11, atol=1e-15)
        np.testing.assert_allclose(risk.hessian(theta), hess, rtol=1e-11, atol=1e-15)
        only_value, none = risk(theta, with_gradient=False)
        assert only_value == fused_value and none is None


def test_fused_risk_leaves_the_design_alone_and_reuses_a_contiguous_one():
    X, y, w = _design(50, 3, 4)
    before = (X.copy(), y.copy(), w.copy())
    risk = losses.huber(0.5).risk(X, y, w)
    risk(np.ones(3))
    risk.hessian(np.ones(3))
    assert risk.X is X  # no copy of a C-ordered float design
    assert all(np.array_equal(a, b) for a, b in zip(before, (X, y, w)))
    fortran = losses.logistic().risk(np.asfortranarray(X), y)
    assert fortran.X.flags.c_contiguous
    assert fortran(np.ones(3))[0] == losses.logistic().risk(X, y)(np.ones(3))[0]


def test_incremental_huber_hessian_equals_the_direct_sum_along_a_path():
    # svmDP's Newton steps: the Hessian is updated with the rows that enter or leave the
    # quadratic piece; along a path of small and large moves it must equal the full sum
    X, y, w = _design(3000, 5, 5)
    loss = losses.huber(0.5)
    for weights in (None, w):
        risk = loss.risk(X, y, weights)
        theta = np.zeros(5)
        rng = np.random.default_rng(6)
        for step in (1.0, 0.01, 0.01, 0.3, 0.001, 2.0, 0.001):
            theta = theta + step * rng.normal(size=5)
            z = y * (X @ theta)
            inside = np.abs(1.0 - z) <= loss.h
            ww = np.ones(3000) if weights is None else weights
            direct = (X[inside].T * ww[inside]) @ X[inside] / (2 * loss.h) / 3000
            np.testing.assert_allclose(risk.hessian(theta), direct, rtol=1e-10, atol=1e-15)


def test_fused_logistic_matches_dppack_cross_entropy_objective():
    # LogisticRegressionDP's objective: (1/n) sum loss.cross.entropy(sigmoid(X theta), y01)
    X, y, _ = _design(400, 3, 7)
    theta = np.array([0.4, -1.0, 2.0])
    y01 = (y + 1) / 2
    value, grad = losses.logistic().risk(X, y)(theta)
    p = blocks.mapXy_sigmoid(X, theta)
    assert value == pytest.approx(float(np.mean(blocks.loss_cross_entropy(p, y01))), rel=1e-13)
    np.testing.assert_allclose(
        grad, blocks.mapXy_gr_sigmoid(X, theta) @ blocks.loss_gr_cross_entropy(p, y01) / 400,
        rtol=1e-11)


# ---- numerical stability ---------------------------------------------------------------------


@pytest.mark.parametrize("loss", LOSSES, ids=IDS)
def test_no_overflow_at_large_margins(loss):
    z = np.array([-1000.0, -745.0, -40.0, 0.0, 40.0, 745.0, 1000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="raise", divide="raise", invalid="raise"):
            value, first, second = loss.value(z), loss.first(z), loss.second(z)
            scalar = [loss.scalar_first(float(v)) for v in z]
            X = np.array([[1.0], [-1.0]])
            risk = loss.risk(X, np.array([1.0, 1.0]))
            fused_value, fused_grad = risk(np.array([1000.0]))
            hessian = risk.hessian(np.array([1000.0]))
    for array in (value, first, second, np.array(scalar), fused_grad, hessian):
        assert np.all(np.isfinite(array))
    assert math.isfinite(fused_value)
    assert value[0] == pytest.approx(1001.0 if loss.name == "huber" else 1000.0)
    assert value[-1] == 0.0 and first[-1] == 0.0 and first[0] == -1.0
    assert second[0] == 0.0 and second[-1] == 0.0
    # the fused value at margins +-1000: f(1000) + f(-1000) over two rows
    assert fused_value == pytest.approx(float(loss.value(1000.0) + loss.value(-1000.0)) / 2)


def _exact_sigmoid(t):
    getcontext().prec = 60
    return float(1 / (1 + (-Decimal(float(t))).exp()))


def test_sigmoid_is_accurate_to_a_few_ulps_everywhere():
    # planted check: the former exp(-logaddexp(0, -t)) erred by up to 30 ulps at |t| ~ 700
    rng = np.random.default_rng(8)
    t = np.concatenate([rng.uniform(-1, 1, 2000), rng.uniform(-40, 40, 2000),
                        rng.uniform(-740, 740, 2000), [0.0, -745.0, 745.0]])
    exact = np.array([_exact_sigmoid(v) for v in t])
    positive = exact > 0
    ulps = np.abs(losses.sigmoid(t) - exact)[positive] / np.spacing(exact[positive])
    assert ulps.max() <= 4
    assert float(losses.sigmoid(0.0)) == 0.5
    assert blocks.sigmoid is losses.sigmoid  # DPpack's blocks export the one sigmoid
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        assert losses.sigmoid(np.array([-1000.0, 1000.0])).tolist() == [0.0, 1.0]
    assert np.ndim(losses.sigmoid(1.0)) == 0 and losses.sigmoid([[1.0]]).shape == (1, 1)


def test_logistic_second_is_accurate_in_the_tails():
    # S(z) S(-z) = e / (1 + e)^2: relative accuracy also where S(z)(1 - S(z)) has no digits
    getcontext().prec = 60
    z = np.array([-700.0, -60.0, -36.0, -5.0, 0.0, 1.5, 36.0, 60.0, 700.0])
    exact = []
    for v in z:
        e = (-abs(Decimal(float(v)))).exp()
        exact.append(float(e / (1 + e) ** 2))
    np.testing.assert_allclose(losses.logistic().second(z), exact, rtol=1e-15)
    value = losses.logistic().value(np.array([-50.0, 50.0]))
    assert value[1] == pytest.approx(math.exp(-50.0), rel=1e-15)  # log1p, not log(1 + x)
    assert value[0] == pytest.approx(50.0, rel=1e-15)


@pytest.mark.parametrize("weighted", [False, True])
def test_logistic_hessian_is_the_same_after_terms_at_any_point(weighted):
    """The logistic Hessian at the point of the last evaluation reads f'' from that
    evaluation's buffers: the same values, bit for bit, as from X theta afresh; at another
    point it does not reuse them."""
    rng = np.random.default_rng(9)  # seed: any data; the comparisons are exact
    X = rng.uniform(-1, 1, size=(500, 4)) / 2
    y = np.where(rng.uniform(size=500) < 0.5, 1.0, -1.0)
    w = rng.uniform(0, 2, size=500) if weighted else None
    risk = losses.logistic().risk(X, y, w)
    a, b = rng.normal(size=4), rng.normal(size=4)

    def fresh(theta):
        curvature = losses.logistic().second(X @ theta) * (1.0 if w is None else w)
        return losses.weighted_gram(X, curvature) / 500

    risk(a)
    assert np.array_equal(risk.hessian(a), fresh(a))  # reuses the evaluation at a
    assert np.array_equal(risk.hessian(b), fresh(b))  # not a's buffers
    risk(b, with_gradient=False)
    assert np.array_equal(risk.hessian(b), fresh(b))



def test_risk_keeps_a_fortran_design_when_asked():
    """order="any": a Fortran-ordered design is read as it is (the Dask fits' blocks), with
    the values of its C-ordered copy; by default it is copied into a C-ordered one."""
    X, y, w = _design(40, 3, 5)
    fortran = np.asfortranarray(X)
    kept = losses.EmpiricalRisk(losses.logistic(), fortran, y, w, order="any")
    assert kept.X is fortran
    assert losses.EmpiricalRisk(losses.logistic(), fortran, y, w).X.flags.c_contiguous
    copied = losses.EmpiricalRisk(losses.logistic(), X, y, w)
    theta = np.array([0.5, -1.0, 2.0])
    for a, b in zip(kept.sums(theta, True, True), copied.sums(theta, True, True)):
        np.testing.assert_allclose(a, b, rtol=1e-13)
