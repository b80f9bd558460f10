"""Audits of LaplaceNoiseReductionOnline on its step by sides (noise_reduction._step_noise:
one word for the side among three constant probabilities, one geometric X for the value,
the right tail from X's excess; tests/privacy/README.md). Objects of 1,000 values (the
array step) reduced three times: close levels (0.5 -> 0.55, mostly stays and short moves),
then far ones (0.55 -> 1 -> 2); each level's value and grain (the exponent of its lowest set
bit) and a weighted sum, as in test_audit_exact_noise_reduction.py, whose neighbours expose
floating-point leaks. The releases up to level 2 cost eps = 2.

False-failure rate: alpha = 1e-3 per audit (auditor.py); the seeds are fixed.
"""

import numpy as np
import pytest

import dppack
from auditor import assert_private
from test_audit_exact_noise_reduction import PAIRS, _project

LEVELS = np.array([0.5, 0.55, 1.0, 2.0])
SIZE = 1000


def online_sides(value, rng, n):
    rows = []
    while sum(len(r[0]) for r in rows) < n:
        online = dppack.LaplaceNoiseReductionOnline(np.full(SIZE, value), LEVELS[0], 1.0,
                                                    random_state=rng)
        path = [online.release.copy()]
        for level in LEVELS[1:]:
            path.append(online.reduce(level).copy())
        rows.append(path)
    path = np.hstack([np.vstack(r) for r in rows])[:, :n]
    return _project(path, LEVELS)


@pytest.mark.parametrize("d0,d1", PAIRS)
def test_online_sides_path(d0, d1):
    assert_private(online_sides, d0, d1, LEVELS[-1], n_samples=40_000, batch=True,
                   charged=False)
