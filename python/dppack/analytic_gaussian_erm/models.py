"""Private ERM with the analytic Gaussian mechanism (Ding et al.): OPERA
(:class:`OutputPerturbationAGM`, gradient descent then aGM noise) and a sound GRPUA
(:class:`GradientPerturbationAGM`, noisy single-sample SGD for a total budget), each for the
logistic and the Huber-smoothed hinge loss. Why the paper's printed GRPUA is not shipped,
the data preparation and the exact discrete Gaussian noise: :ref:`guide-agm-erm`.
"""

import math

import numpy as np

from .. import _backends, _checks, _messages, _plans, _random
from .._repr import model_repr
from ..mechanisms import (
    calibrateAnalyticGaussianMechanism,
    discrete_gaussian_parameters,
    discrete_gaussian_release,
    gaussian_sigma,
)
from ..erm import _losses as losses
from ..erm._fit_plan import FitPlan
from ..erm._design import (
    check_fitted,
    fitted_add_bias,
    linear_score,
    predict_matrix,
    prepare_design,
)
from ._budget import (
    LIPSCHITZ,
    grpua_per_step_budget,
    loss_constants,
    opera_sensitivity,
)

__all__ = [
    "GradientPerturbationAGM",
    "OutputPerturbationAGM",
]

LOSS_MESSAGE = "loss must be one of {'logistic', 'huber'}."
SENSITIVITY_MESSAGE = "sensitivity.bound must be one of {'paper', 'tight'}."
AMPLIFICATION_MESSAGE = "amplification must be one of {'tight', 'paper'}."


# Default number of gradient-descent steps of OPERA when gamma > 0 (OPERA, Ding et al. Algorithm 1:
# the sensitivity does not depend on T, so T only has to be large enough to converge).
DEFAULT_OPERA_ITERATIONS = 1000

# SGD steps whose indices and noise are drawn at once (memory: block x d doubles).
_SGD_BLOCK = 4096


# --------------------------------------------------------------------------------------------
# OPERA's sensitivity (Ding et al., Algorithm 1)
# --------------------------------------------------------------------------------------------


def _opera_default_iterations(n, d, eps, delta, beta, radius, lipschitz=LIPSCHITZ):
    """OPERA's default T for gamma = 0 ("Choice of T", constant 1; :ref:`guide-agm-erm`)."""
    alpha = calibrateAnalyticGaussianMechanism(eps, delta, 1.0) * math.sqrt(2.0 * eps)
    value = (beta ** 2 * n ** 2 * radius ** 2 * eps / (lipschitz ** 2 * d * alpha ** 2))
    return max(1, math.ceil(value ** (1.0 / 3.0)))


# --------------------------------------------------------------------------------------------
# Shared base: parameters, data preparation, predict
# --------------------------------------------------------------------------------------------


class _AnalyticGaussianERM:
    """Parameters, data preparation and prediction shared by the two models."""

    def _check_common(self):
        self.loss = _checks.check_choice(self.loss, "loss", ("logistic", "huber"),
                                         LOSS_MESSAGE)
        self.eps = _checks.check_positive_scalar(self.eps, "eps")
        self.delta = _checks.check_probability(self.delta, "delta")
        self.gamma = _checks.check_number(self.gamma, "gamma", low=0, finite=True,
                                          message="gamma must be a finite scalar >= 0")
        self.huber_h = _checks.check_finite_positive_scalar(self.huber_h, "huber.h")
        self.iterations = _checks.check_whole(
            self.iterations, "iterations", 1, optional=True,
            message="iterations must be a positive whole number or NULL.")
        self.radius = _checks.check_finite_positive_scalar(self.radius, "radius", optional=True)
        self.analytic = _checks.check_flag(self.analytic, "analytic")

    def _start_unfitted(self, fitted):
        """The end of __init__: fitted attributes to None, then the parameters checked."""
        for name in ("coeff", *fitted, "privacy_"):
            setattr(self, name, None)
        self._check_parameters()

    def _run_fit(self, X, y, upper_bounds, lower_bounds, add_bias, random_state, accountant):
        """A fit run by its plan (:class:`_AGMFit`): Dask refused, then the accountant charged,
        the settings checked, eps = Inf refused with an accountant, the data read, the draws."""
        _backends.refuse_dask(f"{type(self).__name__}.fit", X, y)
        arguments = {"model": self, "upper_bounds": upper_bounds, "lower_bounds": lower_bounds,
                     "add_bias": add_bias}
        return _plans.run(AGM_FIT, (X, y), arguments, random_state, accountant)

    def _begin_fit(self, X, y, upper_bounds, lower_bounds, add_bias):
        """A fit's shared start after the settings' checks: the data.
        Returns (X, y, scale, lambda = gamma / n, (L, beta)).
        """
        add_bias = _checks.check_flag(add_bias, "add.bias")
        prepared = self._prepare(X, y, upper_bounds, lower_bounds, add_bias)
        lam = self.gamma / prepared["X"].shape[0]
        return (prepared["X"], prepared["y"], prepared["scale"], lam,
                loss_constants(self.loss, self.huber_h, lam))

    def _prepare(self, X, y, upper_bounds, lower_bounds, add_bias):
        """LogisticRegressionDP's preparation, labels mapped to -1/+1."""
        return prepare_design(X, y, upper_bounds, lower_bounds, add_bias, scale="l2",
                              labels="signed")

    def _sigma(self, eps, delta, sensitivity):
        """Noise sd: the aGM, or the classical Gaussian mechanism for the baselines."""
        if math.isinf(eps):
            return 0.0
        return gaussian_sigma(eps, delta, sensitivity, "aDP", self.analytic)

    @staticmethod
    def _grid(sigma, sensitivity, eps, delta, d):
        """(k, s^2) of the discrete Gaussian meeting (eps, delta) from ``sigma``, or None."""
        if not sigma > 0:
            return None
        return discrete_gaussian_parameters(sigma, sensitivity, eps=eps, delta=delta,
                                            coordinates=d)

    def _noise_sd(self, sigma, sensitivity, eps, delta, d):
        """g s, the scale of the discrete Gaussian noise (0 without noise)."""
        grid = self._grid(sigma, sensitivity, eps, delta, d)
        if grid is None:
            return 0.0
        k, sigma2 = grid
        return math.ldexp(math.sqrt(sigma2), k)

    def __repr__(self):
        """Class, key parameters, and the coefficients once fitted."""
        return model_repr(self, ("loss", "eps", "delta", "gamma", "huber_h"))

    def predict(self, X, add_bias=None, raw_value=False):
        """Predictions for new data (X not clipped): logistic, probabilities (``raw_value``) or
        0/1 labels; Huber, scores or labels (score > 0). ``add_bias`` None: as fitted.
        """
        check_fitted(self.coeff)
        add_bias = fitted_add_bias(self, add_bias, X)
        raw_value = _checks.check_flag(raw_value, "raw.value")
        # C order: the product's rounding depends on the memory layout, and R passes Fortran
        # order; one layout gives R and Python the same bits.
        X = np.ascontiguousarray(predict_matrix(X, self.coeff.size, add_bias))
        score = linear_score(X, self.coeff, add_bias)
        if self.loss == "logistic":
            probabilities = losses.sigmoid(score)
            return probabilities if raw_value else np.round(probabilities)
        return score if raw_value else (score > 0).astype(np.float64)


# --------------------------------------------------------------------------------------------
# OPERA
# --------------------------------------------------------------------------------------------


class OutputPerturbationAGM(_AnalyticGaussianERM):
    """Private linear classifier by output perturbation with the analytic Gaussian mechanism
    (OPERA, Ding et al.).

    T steps of full-batch gradient descent from 0, then N(0, sigma^2 I) noise (exact discrete
    Gaussian), sigma the aGM calibration of (eps, delta) to the sensitivity of the output:
    (eps, delta)-DP under replace-one neighbours (paper Theorems 3 and 5). Derivations:
    :ref:`guide-agm-erm`.

    Parameters
    ----------
    loss : {'logistic', 'huber'}
    eps : float
        > 0; ``Inf`` fits without noise (not private).
    delta : float
        In (0, 1).
    gamma : float
        >= 0, finite; the penalty is (gamma/n) ||w||^2 / 2 (the paper's lambda = gamma / n).
    huber_h : float, default 0.5
        Huber parameter h; beta = 1/(2h) + lambda.
    iterations : int, optional
        T; default 1000 when gamma > 0, the paper's choice when gamma = 0 (needs ``radius``).
    step_size : float, optional
        eta; default and maximum 1/(beta + mu) (gamma > 0) or 1/beta (gamma = 0).
    sensitivity_bound : {'paper', 'tight'}, default 'paper'
        'tight' uses the contraction bounds (opt-in).
    analytic : bool, default True
        False calibrates the classical Gaussian mechanism (the paper's OutPert; eps < 1).
    radius : float, optional
        R, a bound on ||w|| for the default T when gamma = 0.

    Attributes
    ----------
    coeff : ndarray or None
        The private coefficients on the raw X's scale (bias first with ``add_bias``).
    Delta_, sigma_ : float
        The sensitivity and the continuous noise sd of the last fit (scaled problem).
    noise_sd_ : float
        The scale of the exact discrete Gaussian noise actually added (>= ``sigma_``).
    n_iterations_, step_size_ : int, float
        T and eta of the last fit.
    privacy_ : dppack.PrivacyLoss or None
        ``PrivacyLoss.approx(eps, delta)`` after a private fit.

    References
    ----------
    Ding, Errapotu, Guo, Zhang, Yuan and Pan, Private empirical risk minimization with analytic
    Gaussian mechanism for healthcare system, IEEE Transactions on Big Data, Lemmas 1-2,
    Theorems 3 and 5.
    Balle and Wang (2018), ICML (the analytic Gaussian mechanism).
    Zhang, Zheng, Mou and Wang (2017), IJCAI (efficient private ERM for smooth objectives).

    Examples
    --------
    >>> from dppack import OutputPerturbationAGM
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> model = OutputPerturbationAGM("logistic", eps=1.0, delta=1e-5, gamma=1.0)
    >>> model = model.fit(X, y, [200, 70], [50, 15], add_bias=True, random_state=1)
    >>> model.coeff.shape, model.n_iterations_, model.privacy_
    ((3,), 1000, PrivacyLoss.approx(eps=1.0, delta=1e-05))
    >>> round(model.Delta_, 4), bool(model.noise_sd_ >= model.sigma_)  # 5 L (mu + beta)/(n mu beta)
    (5.0373, True)
    """

    def __init__(self, loss, eps, delta, gamma, huber_h=0.5, iterations=None, step_size=None,
                 sensitivity_bound="paper", analytic=True, radius=None):
        self.loss = loss
        self.eps = eps
        self.delta = delta
        self.gamma = gamma
        self.huber_h = huber_h
        self.iterations = iterations
        self.step_size = step_size
        self.sensitivity_bound = sensitivity_bound
        self.analytic = analytic
        self.radius = radius
        self._start_unfitted(("Delta_", "sigma_", "noise_sd_", "n_iterations_", "step_size_"))

    def _check_parameters(self):
        self._check_common()
        self.step_size = _checks.check_finite_positive_scalar(self.step_size, "step.size",
                                                             optional=True)
        self.sensitivity_bound = _checks.check_choice(self.sensitivity_bound, "sensitivity.bound",
                                                     ("paper", "tight"), SENSITIVITY_MESSAGE)
        if not self.analytic and not self.eps < 1:
            raise _messages.value_error("eps must be < 1 for the classical Gaussian mechanism "
                             "(analytic = FALSE).")
        if self.gamma == 0 and self.iterations is None:
            if self.radius is None or math.isinf(self.eps):
                raise _messages.value_error(
                    "With gamma = 0, give iterations, or radius and a finite eps "
                    "for the default number of iterations.")

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit the private coefficients; returns ``self``.

        Parameters
        ----------
        X : array_like or data frame, n x p
            Never modified; clipped to the bounds and scaled to rows of norm <= 1.
        y : array_like, n labels 0/1
        upper_bounds, lower_bounds : array_like, p public bounds of X's columns
        add_bias : bool
            Prepend a column of ones; the bias coefficient comes first.
        random_state : None, int or NumPy Generator
        accountant : dppack.BudgetAccountant, optional
            Charged ``PrivacyLoss.approx(eps, delta)`` (None: the session's) before the data
            are read; eps = Inf cannot be charged.

        Raises
        ------
        ValueError
            For invalid settings or data, before any noise is drawn.
        """
        return self._run_fit(X, y, upper_bounds, lower_bounds, add_bias, random_state,
                             accountant)

    def _prepare_fit(self, X, y, upper_bounds, lower_bounds, add_bias):
        """The data read and OPERA's sensitivity and noise scale; returns the draw."""
        Xs, ys, scale, lam, (L, beta) = self._begin_fit(X, y, upper_bounds, lower_bounds,
                                                        add_bias)
        n, d = Xs.shape
        # OPERA step 1: eta <= 1/(beta + mu) (strongly convex) or 1/beta
        eta_max = 1.0 / (beta + lam) if lam > 0 else 1.0 / beta
        eta = eta_max if self.step_size is None else self.step_size
        if eta > eta_max:
            raise _messages.value_error(
                "step.size must be <= {eta_max:.6g} (1/(beta + lambda), or "
                "1/beta when gamma = 0) for the sensitivity bound.", eta_max=eta_max)
        T = self.iterations
        if T is None:
            T = (DEFAULT_OPERA_ITERATIONS if lam > 0 else _opera_default_iterations(
                n, d, self.eps, self.delta, beta, self.radius, L))
        Delta = opera_sensitivity(n, lam, beta, T, eta, self.sensitivity_bound, L)
        sigma = self._sigma(self.eps, self.delta, Delta)  # OPERA step 2
        return lambda rng, privacy: self._draw_fit(Xs, ys, scale, lam, eta, T, Delta, sigma,
                                                   add_bias, rng, privacy)

    def _draw_fit(self, Xs, ys, scale, lam, eta, T, Delta, sigma, add_bias, rng, privacy):
        """OPERA's steps 3 and 4 once the loss is spent: descent, then the noise."""
        d = Xs.shape[1]
        w = self._gradient_descent(Xs, ys, lam, eta, T)
        noise_sd = self._noise_sd(sigma, Delta, self.eps, self.delta, d)
        if sigma > 0:
            # OPERA step 4, with exact discrete Gaussian noise meeting (eps, delta) for the
            # d-vector of L2 sensitivity Delta (guide, erm-derivations, "Exact noise")
            w = discrete_gaussian_release(w, sigma, Delta, rng, eps=self.eps, delta=self.delta)
        self.coeff = w / scale
        self.Delta_, self.sigma_, self.n_iterations_, self.step_size_ = Delta, sigma, T, eta
        self.noise_sd_ = noise_sd
        self.privacy_ = privacy
        self.add_bias_ = bool(add_bias)  # checked by _begin_fit; predict's default
        return self

    def _gradient_descent(self, X, y, lam, eta, T):
        """T steps of full-batch gradient descent from 0 (fixed T, no projection)."""
        n, d = X.shape
        margin = losses.margin_loss(self.loss, self.huber_h)
        w = np.zeros(d)
        for _ in range(T):
            slope = margin.first(y * (X @ w), y)  # l'(y_i w'x_i) y_i
            w = w - eta * (slope @ X / n + lam * w)
        return w


# --------------------------------------------------------------------------------------------
# GRPUA (sound version)
# --------------------------------------------------------------------------------------------


class GradientPerturbationAGM(_AnalyticGaussianERM):
    """Private linear classifier by noisy single-sample SGD with the analytic Gaussian mechanism:
    the sound version of GRPUA (Ding et al.).

    Each of T steps samples one record and adds aGM noise (exact discrete Gaussian) to its
    n-scaled gradient, calibrated to the replace-one sensitivity 2 n L; the per-step budget comes
    from the total (eps, delta) by amplification by sampling and strong composition. The last
    iterate is released. The paper's printed GRPUA is not private and is not offered. The
    algorithm and accounting: :ref:`guide-agm-erm`; the draws: :ref:`guide-agm-erm-sgd`.

    Parameters
    ----------
    loss, eps, delta, gamma, huber_h :
        As :class:`OutputPerturbationAGM`; (eps, delta) is the total budget of the T steps.
    iterations : int, optional
        T; default min(n^2, 50 n).
    step_offset : float, default 0
        t0 >= 0 in the step sizes.
    radius : float, optional
        R: every iterate is projected onto ||w|| <= R; required when gamma = 0.
    amplification : {'tight', 'paper'}, default 'tight'
        Balle, Barthe and Gaboardi's log(1 + (e^eps - 1)/n), or the paper's 2 eps / n.
    analytic : bool, default True
        False: the classical Gaussian mechanism (the paper's SgdPert; per-step eps < 1).

    Attributes
    ----------
    coeff : ndarray or None
        The private coefficients on the raw X's scale.
    eps_step_, delta_step_ : float
        Per-step budget of the last fit.
    sigma_ : float
        The continuous noise sd per coordinate of the average-scale gradient.
    noise_sd_ : float
        The scale of the exact discrete Gaussian noise actually added per step.
    Delta_ : float
        2L, the replace-one sensitivity of one record's gradient.
    eps_total_, delta_total_ : float
        The composed total of the per-step values (<= eps, delta).
    n_iterations_ : int
        T of the last fit.
    privacy_ : dppack.PrivacyLoss or None
        ``PrivacyLoss.approx(eps, delta)``, the total budget charged.

    References
    ----------
    Ding et al., as :class:`OutputPerturbationAGM`.
    Balle, Barthe and Gaboardi (2018), NeurIPS (amplification by subsampling).
    Dwork, Rothblum and Vadhan (2010), FOCS (strong composition).

    Examples
    --------
    5000 noisy SGD steps within (1, 1e-5)-DP in total:

    >>> from dppack import GradientPerturbationAGM
    >>> from dppack.datasets import load_pima
    >>> pima = load_pima()
    >>> X, y = pima[["glu", "bmi"]], (pima["type"] == "Yes").astype(int)
    >>> model = GradientPerturbationAGM("logistic", eps=1.0, delta=1e-5, gamma=1.0,
    ...                                 iterations=5000)
    >>> model = model.fit(X, y, [200, 70], [50, 15], add_bias=True, random_state=1)
    >>> model.coeff.shape, model.privacy_
    ((3,), PrivacyLoss.approx(eps=1.0, delta=1e-05))
    >>> round(model.eps_step_, 4), round(model.delta_step_, 12)  # before amplification
    (0.903, 5.32e-07)
    """

    def __init__(self, loss, eps, delta, gamma, huber_h=0.5, iterations=None, step_offset=0,
                 radius=None, amplification="tight", analytic=True):
        self.loss = loss
        self.eps = eps
        self.delta = delta
        self.gamma = gamma
        self.huber_h = huber_h
        self.iterations = iterations
        self.step_offset = step_offset
        self.radius = radius
        self.amplification = amplification
        self.analytic = analytic
        self._start_unfitted(("eps_step_", "delta_step_", "sigma_", "noise_sd_", "Delta_",
                              "eps_total_", "delta_total_", "n_iterations_"))

    def _check_parameters(self):
        self._check_common()
        self.step_offset = _checks.check_number(
            self.step_offset, "step.offset", low=0, finite=True,
            message="step.offset must be a finite scalar >= 0")
        self.amplification = _checks.check_choice(self.amplification, "amplification",
                                                 ("tight", "paper"), AMPLIFICATION_MESSAGE)
        if self.gamma == 0 and self.radius is None:
            raise _messages.value_error(
                "radius must be given when gamma = 0 (it sets the step sizes).")

    def fit(self, X, y, upper_bounds, lower_bounds, add_bias=False, random_state=None,
            accountant=None):
        """Fit privately; returns ``self`` (arguments as :meth:`OutputPerturbationAGM.fit`; the
        total budget is charged once).
        """
        return self._run_fit(X, y, upper_bounds, lower_bounds, add_bias, random_state,
                             accountant)

    def _prepare_fit(self, X, y, upper_bounds, lower_bounds, add_bias):
        """The data read and the per-step budget and noise scale; returns the draw."""
        Xs, ys, scale, lam, (L, _) = self._begin_fit(X, y, upper_bounds, lower_bounds, add_bias)
        n, d = Xs.shape
        T = self.iterations if self.iterations is not None else min(n * n, 50 * n)
        Delta = 2.0 * L  # one record's gradient, replace-one (GRPUA's sound sensitivity)
        if math.isinf(self.eps):
            budget = {"eps_step": math.inf, "delta_step": None, "eps_total": math.inf,
                      "delta_total": None}
            sigma = 0.0
        else:
            budget = grpua_per_step_budget(self.eps, self.delta, n, T, self.amplification)
            if not self.analytic and not budget["eps_step"] < 1:
                raise _messages.value_error(
                    "analytic = FALSE needs a per-step eps < 1 (classical Gaussian "
                    "mechanism); this budget gives {eps_step:.6g}.",
                    eps_step=budget["eps_step"])
            sigma = self._sigma(budget["eps_step"], budget["delta_step"], Delta)
        return lambda rng, privacy: self._draw_fit(Xs, ys, scale, lam, L, T, Delta, budget,
                                                   sigma, add_bias, rng, privacy)

    def _draw_fit(self, Xs, ys, scale, lam, L, T, Delta, budget, sigma, add_bias, rng, privacy):
        """The noisy SGD once the loss is spent."""
        d = Xs.shape[1]
        # each step's noisy gradient is a discrete Gaussian release of a d-vector of L2
        # sensitivity Delta meeting (eps_step, delta_step) (guide, erm-derivations, "Exact noise")
        grid = self._grid(sigma, Delta, budget["eps_step"], budget["delta_step"], d)
        w = self._sgd(Xs, ys, lam, L, grid, T, rng)
        self.coeff = w / scale
        self.eps_step_, self.delta_step_ = budget["eps_step"], budget["delta_step"]
        self.eps_total_, self.delta_total_ = budget["eps_total"], budget["delta_total"]
        self.sigma_, self.Delta_, self.n_iterations_ = sigma, Delta, T
        self.noise_sd_ = 0.0 if grid is None else math.ldexp(math.sqrt(grid[1]), grid[0])
        self.privacy_ = privacy
        self.add_bias_ = bool(add_bias)  # checked by _begin_fit; predict's default
        return self

    def _sgd(self, X, y, lam, L, grid, T, rng):
        """The noisy SGD loop (:ref:`guide-agm-erm`)."""
        n, d = X.shape
        t0 = self.step_offset
        radius = self.radius
        first = losses.margin_loss(self.loss, self.huber_h).scalar_first
        w = np.zeros(d)
        noise_sd = 0.0 if grid is None else math.ldexp(math.sqrt(grid[1]), grid[0])
        if lam == 0:
            # GRPUA's step size, with the sound noise:
            # eta(t) n = R / sqrt((t + t0) (L^2 + d sigma^2))
            scale = radius / math.sqrt(L * L + d * noise_sd * noise_sd)
        # the noise's own stream: 8 words of 32 bits from the first (class docstring)
        words = np.floor(_random.uniform(rng, 8) * 2.0 ** 32)
        noise_rng = _random.generator_from_words(words)
        t = 0
        while t < T:
            block = min(_SGD_BLOCK, T - t)
            picks = np.minimum(np.floor(_random.uniform(rng, block) * n), n - 1).astype(np.intp)
            if grid is None:
                noise = np.zeros((block, d))
            else:
                k_grid, sigma2 = grid
                noise = _random.discrete_gaussian_noise_on_grid(np.zeros((block, d)), k_grid,
                                                                sigma2, noise_rng)
            for k in range(block):
                t += 1
                i = int(picks[k])
                x = X[i]
                yi = float(y[i])
                gradient = (first(yi * float(x @ w)) * yi) * x
                if grid is not None:  # the value released with the noise: on the grid
                    gradient = np.ldexp(np.rint(np.ldexp(gradient, -k_grid)), k_grid)
                if lam > 0:
                    step = 1.0 / (lam * (t + t0))  # n eta(t), eta(t) = 1/(mu n (t + t0))
                    w = (1.0 - step * lam) * w - step * (gradient + noise[k])
                else:
                    step = scale / math.sqrt(t + t0)
                    w = w - step * (gradient + noise[k])
                if radius is not None:
                    norm = math.sqrt(float(w @ w))
                    if norm > radius:
                        w = w * (radius / norm)  # projection: post-processing
        return w


# --------------------------------------------------------------------------------------------
# The fit as a release plan
# --------------------------------------------------------------------------------------------


class _AGMFit(FitPlan):
    """The fit of either model, (eps, delta)-DP: OPERA's output noise (Ding et al., Theorems 3
    and 5) or the T noisy steps of GRPUA composed (Balle, Barthe and Gaboardi 2018; Dwork,
    Rothblum and Vadhan 2010, Theorem III.3). :meth:`check` runs the settings' checks."""

    def check(self, arguments):
        model = arguments["model"]
        model._check_parameters()
        arguments["eps"] = model.eps

    def prepare(self, data, arguments):
        a = arguments
        return [(None, a["model"]._prepare_fit(*data, a["upper_bounds"], a["lower_bounds"],
                                                a["add_bias"]))]


AGM_FIT = _AGMFit()
