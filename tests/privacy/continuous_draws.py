"""Registry of the continuous draws of ``python/dppack`` (issue 25), read by
``test_exactness_coverage.py``.

Every call ``_random.<sampler>(...)`` of a continuous sampler (laplace, normal, uniform,
uniform_between, l2_laplace, gamma, log_categorical) outside ``_random.py`` is listed here by
its call site, (module, enclosing function or method), with a one-line reason of one of these
kinds:

* ``"data-free: ..."`` -- randomness that never meets the data (random features, subsampling
  picks, a seed for a sub-stream, a law sampled on its own);
* ``"post-processing of released values: ..."`` -- draws that only transform what was already
  released (e.g. Monte Carlo of a public noise law around a released estimate);
* ``"documented float-approximate: <where>"`` -- a release whose floating-point behaviour is
  argued in the docstring named after the colon;
* ``"pending: issue 25"`` -- a released value still drawn in floating point, being converted
  to an exact sampler; the coverage test rejects these (it is marked xfail until the lead
  merges the conversions and deletes the entries).

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
    ("dppack.confidence_intervals.erm", "spherical_laplace"):
        "data-free: the public sampler of the l2-Laplace law, drawn on its own (no data "
        "argument)",
    # ---- post-processing ---------------------------------------------------------------------
    ("dppack.confidence_intervals.erm", "_monte_carlo_draws"):
        "post-processing of released values: Monte Carlo draws of the public noise laws "
        "around the released estimate and matrices (Wang, Kifer and Lee 2019, Algorithms 3 "
        "and 5)",
    # ---- released values still drawn in floating point: being converted ----------------------
    ("dppack.accuracy_first.erm", "_LogisticProblem.one_shot"): PENDING,
    ("dppack.accuracy_first.erm", "_RidgeProblem.one_shot"): PENDING,
    ("dppack.accuracy_first.erm", "doubling_erm"): PENDING,
    ("dppack.accuracy_first.noise_reduction", "GaussianNoiseReduction"): PENDING,
    ("dppack.accuracy_first.noise_reduction", "LaplaceNoiseReductionOnline.__init__"): PENDING,
    ("dppack.accuracy_first.noise_reduction", "laplace_noise_path"): PENDING,
    ("dppack.accuracy_first.noise_reduction", "laplace_reduce_noise"): PENDING,
    ("dppack.confidence_intervals.erm", "_private_estimate"): PENDING,
    ("dppack.confidence_intervals.erm", "_spd_eigen"): PENDING,
    ("dppack.erm.cms", "StandardNoise.draw"): PENDING,
    ("dppack.erm.cms", "perturbation_noise"): PENDING,
    ("dppack.erm.kst", "EmpiricalRiskMinimizationDP_KST._fit"): PENDING,
    ("dppack.model_selection.stability", "HistogramTrainer.draw_noise"): PENDING,
    ("dppack.model_selection.stability", "_select"): PENDING,
    ("dppack.quantiles", "_JointDP.sample"): PENDING,
    ("dppack.quantiles", "_joint_outputs"): PENDING,
    ("dppack.quantiles", "_joint_windowed"): PENDING,
    ("dppack.quantiles", "_recursive"): PENDING,
}
