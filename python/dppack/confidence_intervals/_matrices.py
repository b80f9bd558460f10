"""Noise, sensitivities and the private matrices of the ERM confidence intervals (Wang, Kifer and
Lee 2019, Lemmas 2-5, Algorithm 2): the l2-Laplace sampler, eps', the sensitivities of H and
Sigma, and the private symmetric positive definite release :func:`priv_spd_mat`."""

import math

import numpy as np

from .. import _checks, _messages, _plans, _random, accounting, mechanisms
from ..erm._losses import weighted_gram


NOTIONS = ("DP", "zCDP")


def notion_loss(notion, budget):
    """The PrivacyLoss of a budget in a notion's unit: pure eps (DP) or rho (zCDP)."""
    budget = _checks.check_finite_positive_scalar(budget, "budget")
    if _checks.check_choice(notion, "notion", NOTIONS) == "DP":
        return accounting.PrivacyLoss.pure(budget)
    return accounting.PrivacyLoss.zcdp(budget)


# --------------------------------------------------------------------------------------------
# Noise, sensitivities and the private matrices (Wang, Kifer and Lee 2019, Lemmas 2-5, Alg. 2)
# --------------------------------------------------------------------------------------------


def spherical_laplace(k, rate, random_state=None, size=None):
    """Draw from the density proportional to exp(-rate ||b||_2) on R^k (a Gamma(k, rate)
    norm times a uniform direction; eps-DP at rate = eps / Delta, L2 sensitivity Delta).

    Only data-free draws use it (objective perturbation's b and its Monte Carlo law); no
    released value gets this floating-point noise.

    Parameters
    ----------
    k : int, >= 1
    rate : float, > 0
    random_state : None, int or NumPy Generator
    size : int, optional
        Number of vectors; None draws one (norm first, then k normals, as DPpack).

    Returns
    -------
    ndarray, k values or size x k

    References
    ----------
    Chaudhuri, Monteleoni and Sarwate (2011), JMLR 12; Wang, Kifer and Lee (2019), JPC 9(1).

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import spherical_laplace
    >>> spherical_laplace(3, rate=2.0, random_state=1).shape
    (3,)
    >>> spherical_laplace(3, rate=2.0, random_state=1, size=5).shape
    (5, 3)
    """
    return _random.l2_laplace(k, rate, _random.as_generator(random_state), size)


def objective_eps_prime(eps, t, n, c):
    """eps' = eps - log(1 + t / (2 n c)) of the improved objective perturbation.

    Parameters
    ----------
    eps : float, the objective's budget
    t : float, the bound on the loss's second derivative
    n : int
    c : float, the paper's regularisation weight gamma / (2n)

    Returns
    -------
    float, > 0

    Raises
    ------
    ValueError
        When eps' <= 0 (gamma too small for the budget).

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1) (improved objective perturbation).

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import objective_eps_prime
    >>> round(objective_eps_prime(1.0, t=0.25, n=100, c=0.05), 6)  # 1 - log(1 + 0.025)
    0.975307
    """
    eps_prime = eps - math.log1p(t / (2.0 * n * c))
    if not eps_prime > 0:
        gamma_min = t / math.expm1(eps)  # c > t/(2n(e^eps - 1)) with c = gamma/(2n)
        raise _messages.value_error(
            "Objective perturbation needs gamma > {gamma_min:.6g} at eps = {eps:.6g} for the "
            "objective (it needs c > t / (2n(e^eps - 1)), c = gamma/(2n)); increase gamma, the "
            "budget or its objective share, or use output perturbation.",
            gamma_min=gamma_min, eps=eps)
    return eps_prime


def hessian_sensitivity(t, n):
    """Replace-one Frobenius sensitivity of the Hessian H: 2t/n.

    Parameters
    ----------
    t : float, the bound on the loss's second derivative
    n : int

    Returns
    -------
    float

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1), Lemmas 2-3.

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import hessian_sensitivity
    >>> hessian_sensitivity(0.25, 100)
    0.005
    """
    return 2.0 * t / n


def sigma_sensitivity(sup_first, n):
    """Replace-one Frobenius sensitivity of Sigma: 2 (sup abs(f'))^2 / n.

    Parameters
    ----------
    sup_first : float
        The bound on abs(f') (S(||theta~||) for logistic, 1 for Huber).
    n : int

    Returns
    -------
    float

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1), Lemmas 4-5.

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import sigma_sensitivity
    >>> sigma_sensitivity(1.0, 100)
    0.02
    """
    return 2.0 * sup_first * sup_first / n


def regularized_hessian(X, y, theta, loss, c):
    """H(theta) = (1/n) sum_i f''(z_i) x_i x_i' + 2c I, z_i = y_i theta'x_i.

    Parameters
    ----------
    X : ndarray, n x d (rows of norm <= 1)
    y : ndarray, n labels -1/+1
    theta : ndarray, d coefficients
    loss : dppack.erm._losses.MarginLoss
    c : float, the regularisation weight

    Returns
    -------
    ndarray, d x d

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1), Eq. 5.

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import regularized_hessian
    >>> import numpy as np
    >>> from dppack.erm._losses import margin_loss
    >>> X = np.array([[0.5, 0.1], [-0.3, 0.4], [0.2, -0.6]])
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> H = regularized_hessian(X, y, np.array([0.3, -0.2]), margin_loss("logistic"), 0.05)
    >>> H.round(6).tolist()
    [[0.131498, -0.015698], [-0.015698, 0.143826]]
    """
    n, d = X.shape
    H = weighted_gram(X, loss.second(y * (X @ theta)) / n)
    H[np.diag_indices(d)] += 2.0 * c
    return H


def gradient_covariance(X, y, theta, loss, c):
    """Sigma(theta) = (1/n) sum_i g_i g_i' - 4c^2 theta theta', g_i = f'(z_i) y_i x_i.

    Parameters
    ----------
    X, y, theta, loss, c
        As :func:`regularized_hessian`.

    Returns
    -------
    ndarray, d x d

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1), Eq. 6.

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import gradient_covariance
    >>> import numpy as np
    >>> from dppack.erm._losses import margin_loss
    >>> X = np.array([[0.5, 0.1], [-0.3, 0.4], [0.2, -0.6]])
    >>> y = np.array([1.0, -1.0, 1.0])
    >>> S = gradient_covariance(X, y, np.array([0.3, -0.2]), margin_loss("logistic"), 0.05)
    >>> S.round(6).tolist()
    [[0.02636, -0.012418], [-0.012418, 0.036353]]
    """
    n = X.shape[0]
    first = loss.first(y * (X @ theta))
    return weighted_gram(X, first * first / n) - 4.0 * c * c * np.outer(theta, theta)


def gaussian_release(values, sensitivity, rho, rng):
    """``values`` + exact discrete Gaussian noise for rho-zCDP at L2 sensitivity ``sensitivity``
    (Bun and Steinke 2016, Proposition 1.6; Canonne, Kamath and Steinke 2020, Theorem 4).
    """
    sigma = accounting.zcdp_gaussian_sd(sensitivity, rho)
    values = np.asarray(values, dtype=np.float64)
    return mechanisms.discrete_gaussian_release(values, sigma, sensitivity, rng, rho=rho)


def gaussian_release_variance(values_size, sensitivity, rho):
    """An upper bound g^2 s^2 >= s^2 / (2 rho) on the variance of :func:`gaussian_release`'s noise
    per entry (Canonne, Kamath and Steinke 2020, Corollary 9).
    """
    sigma = accounting.zcdp_gaussian_sd(sensitivity, rho)
    k, sigma2 = mechanisms.discrete_gaussian_parameters(sigma, sensitivity, rho=rho,
                                                        coordinates=values_size)
    return math.ldexp(float(sigma2), 2 * k)


def spd_eigen(M, sensitivity, budget, notion, floor, rng):
    """PrivSPDMat as (eigenvalues, eigenvectors) of the released matrix."""
    d = M.shape[0]
    if notion == "DP":
        # The paper's spherical Laplace on R^(d^2) (Wang, Kifer and Lee 2019, Algorithm 2)
        # replaced by exact discrete Laplace noise on a grid: the d^2 entries have Frobenius
        # (L2) sensitivity s, so L1 sensitivity at most d s (Cauchy-Schwarz over d^2 entries)
        noisy = _random.discrete_laplace_noise(M, d * sensitivity, budget, rng)
    else:
        # N(0, s^2 / (2 phi) I_{d^2}) (Algorithm 2 step 1; the paper's I_d must be I_{d^2}),
        # drawn exactly: the discrete Gaussian on a grid, phi-zCDP for the d^2 entries as one
        # vector with the sensitivity the rounding leaves (gaussian_release)
        noisy = gaussian_release(M, sensitivity, budget, rng)
    noisy = (noisy + noisy.T) / 2.0  # steps 3-5 are post-processing
    values, vectors = np.linalg.eigh(noisy)
    return np.maximum(values, floor), vectors


def priv_spd_mat(M, sensitivity, budget, notion="DP", floor=0.0, random_state=None,
                 accountant=None):
    """PrivSPDMat: a private symmetric positive-definite version of M (Algorithm 2).

    Exact noise on all d^2 entries on a power-of-two grid (discrete Laplace at L1 sensitivity
    d s for DP, at most sqrt(2) times the paper's spherical Laplace per entry; the discrete
    Gaussian for zCDP), then symmetrisation and eigenvalues clipped at ``floor``
    (post-processing). Derivation: :ref:`guide-confint-erm`.

    Parameters
    ----------
    M : array_like, d x d
    sensitivity : float, the Frobenius L2 sensitivity of M, > 0
    budget : float, eps (``notion='DP'``) or rho (``notion='zCDP'``), > 0
    notion : {'DP', 'zCDP'}
    floor : float, the eigenvalue floor (the intervals use 2c)
    random_state : None, int or NumPy Generator
    accountant : BudgetAccountant, optional
        Charged under 'priv_spd_mat' (None: the session's) before ``M`` is read.

    Returns
    -------
    ndarray, d x d
        Symmetric, every eigenvalue >= ``floor`` (up to rounding).

    Raises
    ------
    ValueError
        A matrix that is not square and numeric, a parameter out of range, an unknown notion,
        or an overspend.

    References
    ----------
    Wang, Kifer and Lee (2019), JPC 9(1), Algorithm 2 (PrivSPDMat).

    Examples
    --------
    >>> from dppack.confidence_intervals._matrices import priv_spd_mat
    >>> import numpy as np
    >>> M = np.array([[2.0, 0.5], [0.5, 1.0]])
    >>> P = priv_spd_mat(M, sensitivity=0.02, budget=1.0, floor=0.1, random_state=1)
    >>> bool(np.allclose(P, P.T)), bool(np.linalg.eigvalsh(P).min() >= 0.1 - 1e-12)
    (True, True)
    >>> bool(abs(P[0, 0] - 2.0) < 0.5)  # discrete Laplace noise of scale d s / eps = 0.04
    True
    """
    arguments = {"sensitivity": sensitivity, "budget": budget, "notion": notion,
                 "floor": floor}
    return _plans.run(PRIV_SPD_MAT, M, arguments, random_state, accountant)


class _PrivSPDMat(_plans.Plan):
    """priv_spd_mat: the matrix and parameter checks, then one draw of :func:`spd_eigen`."""

    name = "priv_spd_mat"

    def loss(self, a):
        return notion_loss(a["notion"], a["budget"])

    def prepare(self, M, a):
        M = _checks.as_numeric_array(M, "M must be a numeric matrix.")
        if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 1:
            raise _messages.value_error("M must be a square matrix.")
        sensitivity = _checks.check_finite_positive_scalar(a["sensitivity"], "sensitivity")
        budget = _checks.check_finite_positive_scalar(a["budget"], "budget")
        notion = _checks.check_choice(a["notion"], "notion", NOTIONS)
        floor = _checks.check_number(a["floor"], "floor", low=0, finite=True)

        def draw(rng, loss):
            values, vectors = spd_eigen(M, sensitivity, budget, notion, floor, rng)
            out = (vectors * values) @ vectors.T
            return (out + out.T) / 2.0  # exactly symmetric, despite the rounding of the product
        return [(None, draw)]


PRIV_SPD_MAT = _PrivSPDMat()
