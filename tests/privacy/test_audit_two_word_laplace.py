"""Audits of the noise-reduction paths on the two-word samplers (tests/privacy/README.md):
the batch Laplace path beyond MEDIUM_PATH (each level's discrete Laplace draws from
dppack._random.discrete_laplace_words), the online sampler's vectorised step (more than
16 values: the moved entries' geometric draws from geometric_words, and the first level
from discrete_laplace_words) and its entry-by-entry step (the scalar geometric_words_one).
The projections (each level's value and grain, the exponent of its lowest set bit, and a
weighted sum) and the neighbours are those of test_audit_exact_noise_reduction.py, which
expose floating-point leaks (binade neighbours, 0 against 1).

False-failure rate: alpha = 1e-3 per audit (auditor.py); the seeds are fixed.
"""

import pytest

from auditor import assert_private
from test_audit_exact_noise_reduction import LAPLACE_LEVELS, PAIRS
from test_audit_noise_reduction_paths import in_calls, laplace_path, online_path


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_laplace_noise_reduction_large_path(d0, d1):
    # calls of 2,001 values: beyond MEDIUM_PATH, one discrete_laplace_words call per level
    assert_private(in_calls(laplace_path, 2001), d0, d1, LAPLACE_LEVELS[-1],
                   n_samples=40_000, batch=True)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_laplace_noise_reduction_online_vectorised_step(d0, d1):
    # objects of 40 values: the vectorised step (0.5 -> 1), geometric_words for the moved
    assert_private(in_calls(online_path, 40), d0, d1, LAPLACE_LEVELS[-1], n_samples=10_000,
                   batch=True, charged=False)
