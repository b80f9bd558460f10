"""Stability-based private validation (Chaudhuri and Vinterbo 2013, "the paper" below).

Every candidate is trained on the *whole* training set T at the *whole* training budget
eps_train; only the index of the best candidate on the validation set V is released, by a
noisy maximum whose privacy (eps_select, delta) rests on the stability of the validation
score (Thm 1). The end-to-end procedure then retrains the selected candidate with fresh
noise (Thm 2): (eps_train + eps_select, delta)-DP in total, whatever the number of
candidates k.

A trainer is a pair (G, F): G draws the noise R, F(T, theta, eps, R) is deterministic.
:class:`StableTrainer` is that interface; two instances are provided:

* regularised linear classifiers: DPpack's ``LogisticRegressionDP`` and linear ``svmDP``
  (output or objective perturbation), R = one vector of density proportional to exp(-||r||)
  (:class:`dppack.erm.cms.StandardNoise`), which each candidate divides by its own noise rate
  (F is :func:`dppack.erm.cms.fit_with_noise`);
* histogram density estimators with a private bin width, R = standard Laplace values.

What is shared (``noise="shared"``, the default): one draw R is used by every candidate in the
selection step. For the classifiers that is the *standardised* vector R (rate 1); candidate i
uses R / rate_i, with rate_i = eps'_i / 2 (objective perturbation, eps'_i from its own gamma_i) or
gamma_i eps / (2 (1 + tau)) (output perturbation, tau = 1e-6 the optimality slack of ``erm.cms``),
so each candidate's noise has exactly the law its own fit would draw. For histograms it is one
sequence of standard Laplace values; the candidate with 1/h bins uses the first 1/h of them, times
2/eps_train. Sharing is allowed by Thm 1's proof, which holds for every fixed noise vector (R_1,
..., R_k) in the stability event; with one shared R the event's probability is at least 1 - delta/k.
Sharing makes the candidates' scores comparable (common random numbers). ``noise="independent"``
draws R_1, ..., R_k independently, as the paper's Algorithm 1 does. The final model always gets a
fresh draw.

Randomness: one generator per call; in order: the shared R (or R_1, ..., R_k, one before each
candidate's fit), the k selection noises, the fresh noise of the final fit. The noise a call
releases through numbers is exact where an exact sampler exists: the final histogram's counts
get discrete Laplace noise (:func:`dppack._random.discrete_laplace_noise`); the classifiers'
K-norm noise stays in floating point (``erm.cms``: no exact sampler of that law here). The
selection step, which releases an index, is exact: the scores are rounded to a power-of-two
grid and the noisy maximum is taken over exact integer noise (``_noisy_max``: the paper's
exponential noise as a one-sided geometric law, the Laplace noise as a discrete Laplace law),
or the index is drawn by the exact exponential mechanism (``selector="gumbel"``). The shared
noise R of the candidates' fits is data-free randomness: it enters only through the
probability of the stability event (``HistogramTrainer.draw_noise``), never a released value.

Accounting: every public release here takes a trailing ``accountant`` and charges its whole
run once under its own name (:func:`dppack.accounting.charge`): ``stable_select``
eps_select, ``validate_stable`` (eps_select, delta) (Thm 1), ``tune_stable`` and the two
tuners (eps_train + eps_select, delta) (Thm 2). The candidates' fits and the final fit inside
charge nothing (``accountant=accounting.UNCHARGED``); a returned model or histogram gets
``privacy_`` (the call's PrivacyLoss).
"""

from ._constants import (advanced_composition_eps, selection_privacy,
                         stability_constants_histogram, stability_constants_linear)
from ._diagnosis import (NEAR_UNIFORM_TV, NearUniformSelectionWarning, StabilitySelectionDiagnosis,
                         UTILITY_DELTA, stability_selection_diagnosis,
                         tune_classification_model_stable)
from ._histogram import HistogramTrainer, tune_histogram_bin_width_stable
from ._linear import LinearClassifierTrainer
from ._procedure import StableTrainer, stable_select, tune_stable, validate_stable

__all__ = [
    "NearUniformSelectionWarning",
    "StabilitySelectionDiagnosis",
    "StableTrainer",
    "advanced_composition_eps",
    "selection_privacy",
    "stability_constants_histogram",
    "stability_constants_linear",
    "stability_selection_diagnosis",
    "stable_select",
    "tune_classification_model_stable",
    "tune_histogram_bin_width_stable",
    "tune_stable",
    "validate_stable",
]
