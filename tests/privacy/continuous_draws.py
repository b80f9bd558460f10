"""Registry of the continuous draws of ``python/dppack`` (issue 25), read by
``test_exactness_coverage.py``.

Every call ``_random.<sampler>(...)`` of a continuous sampler (laplace, normal, uniform,
uniform_between, l2_laplace, gamma, log_categorical) outside the package ``_random`` is listed
here by its call site, (module, enclosing function or method), with a one-line reason of one
of these kinds:

* ``"data-free: ..."`` -- randomness that never meets the data (random features, subsampling
  picks, a seed for a sub-stream, a law sampled on its own);
* ``"post-processing of released values: ..."`` -- draws that only transform what was already
  released (e.g. Monte Carlo of a public noise law around a released estimate);
* ``"documented float-approximate: <where>"`` -- a release whose floating-point behaviour is
  argued in the docstring named after the colon;
* ``"pending: issue 25"`` -- a released value still drawn in floating point; the coverage
  test rejects these.

A new continuous draw, or one that moves to another function, fails the test until it is
listed here with its reason; an entry whose call site is gone fails it too (delete it).
"""

PENDING = "pending: issue 25"

CONTINUOUS_DRAWS = {
    # ---- data-free ---------------------------------------------------------------------------
    ("dppack.erm.blocks", "generate_sampling.sampling"):
        "data-free: random Fourier features (omega ~ N(0, I / sigma^2), phi uniform), drawn "
        "before any data are read",
    ("dppack.analytic_gaussian_erm.models", "GradientPerturbationAGM._sgd"):
        "data-free: the seed words of the noise's own stream and the uniform record picks of "
        "SGD (subsampling); the gradient noise itself is the exact discrete Gaussian",
    ("dppack.confidence_intervals._matrices", "spherical_laplace"):
        "data-free: the public sampler of the l2-Laplace law, drawn on its own (no data "
        "argument)",
    # ---- post-processing ---------------------------------------------------------------------
    ("dppack.confidence_intervals.erm", "_monte_carlo_draws"):
        "post-processing of released values: Monte Carlo draws of the public noise laws "
        "around the released estimate and matrices (Wang, Kifer and Lee 2019, Algorithms 3 "
        "and 5)",
    # ---- documented float-approximate ---------------------------------------------------------
    ("dppack.confidence_intervals.erm", "_private_estimate"):
        "documented float-approximate: docs guide erm-derivations, confidence intervals (the "
        "objective's data-free l2-Laplace b; the released theta goes through the exact grid "
        "release of approximate minima perturbation)",
    ("dppack.erm._perturbation", "StandardNoise.draw"):
        "documented float-approximate: StandardNoise docstring (a data-free standard vector: "
        "the objective's noise, and a standard Laplace vector scaled and rounded to each "
        "candidate's grid)",
    ("dppack.erm._perturbation", "perturbation_noise"):
        "documented float-approximate: docs guide erm-derivations, CMS frameworks (objective "
        "perturbation's data-free noise b inside the objective; the release is exact, "
        "dppack.erm._approximate)",
    ("dppack.erm._kst_framework", "EmpiricalRiskMinimizationDP_KST._draw_fit"):
        "documented float-approximate: docs guide erm-derivations, KST framework (the objective's "
        "data-free l2-Laplace or Gaussian noise; the release is exact, dppack.erm._approximate)",
    ("dppack.model_selection.stability._histogram", "HistogramTrainer.draw_noise"):
        "documented float-approximate: HistogramTrainer.draw_noise docstring (the shared "
        "data-free standard noise R)",
    ("dppack.quantiles._joint", "_joint_windowed"):
        "data-free: an exact coin, uniform() a multiple of 2^-53 and p rounded up onto "
        "that grid, so P[uniform < p] = p exactly; the joint method's float slack (its "
        "log weights) is "
        "bounded and charged: docs guide quantiles-joint, 'Floating point', and "
        "joint_float_slack",
}
