"""Exact samplers (dppack._random) against numpy's floating-point ones, in one run.

n = 10^7 noise values on one core (NumPy's samplers are single-threaded; no thread variable is
set). For each exact sampler: values per second, and the ratio of its time to numpy's
``Generator.laplace`` / ``Generator.normal`` for the same n, timed in the same run. Target:
at least 5e6 values per second for the discrete Laplace and the discrete Gaussian.

* integer noise alone: the discrete Laplace with scale 2^20 / 3 grid units (t = 2^56) and the
  discrete Gaussian with sigma = 6000 grid units, the sizes the grid layer uses;
* releases on the grid: ``discrete_laplace_noise`` / ``discrete_gaussian_noise`` (rounding,
  integer noise, conversion) against ``values + rng.laplace(...)`` / ``+ rng.normal(...)``;
* the exact exponential mechanism over 10^7 candidates against dppack's current float
  inverse-CDF sampler (``ExponentialMechanism``) on the same utilities.

Best of several runs, wall clock and CPU time of this process (the CPU time is what a busy
shared machine disturbs least; on an idle machine the two agree).
"""

import time

import numpy as np
from _timing import best_seconds

import dppack
from dppack import _random

N = 10_000_000
RUNS = 3


def measure(function):
    return (best_seconds(function, RUNS),
            best_seconds(function, RUNS, clock=time.process_time))


def main():
    values = np.random.default_rng(0).normal(size=N)
    rng = np.random.default_rng(1)
    cases = [
        ("discrete Laplace (integers)",
         lambda: _random.discrete_laplace(2 ** 56, 3 * 2 ** 36, N, rng),
         lambda: rng.laplace(0.0, 1.0, N)),
        ("discrete Gaussian (integers)",
         lambda: _random.discrete_gaussian(6000 ** 2, 1, N, rng),
         lambda: rng.normal(0.0, 1.0, N)),
        ("discrete_laplace_noise (release)",
         lambda: _random.discrete_laplace_noise(values, 1.0, 1.0, rng),
         lambda: values + rng.laplace(0.0, 1.0, N)),
        ("discrete_gaussian_noise (release)",
         lambda: _random.discrete_gaussian_noise(values, 4.0, rng),
         lambda: values + rng.normal(0.0, 4.0, N)),
        ("exponential mechanism (n candidates)",
         lambda: _random.exponential_mechanism(values, 1.0, 1.0, rng),
         lambda: dppack.ExponentialMechanism(values, 1.0, 1.0, random_state=rng)),
    ]
    print(f"n = {N:,}; best of {RUNS}; values/s = n / time")
    print(f"{'':38} {'wall':>22}   {'CPU':>22}   {'ratio to numpy':>16}")
    for label, exact, reference in cases:
        (wall, cpu), (ref_wall, ref_cpu) = measure(exact), measure(reference)
        print(f"{label:<38} {wall:6.3f} s {N / wall / 1e6:6.2f} M/s   "
              f"{cpu:6.3f} s {N / cpu / 1e6:6.2f} M/s   "
              f"wall {wall / ref_wall:5.2f} CPU {cpu / ref_cpu:5.2f}")


if __name__ == "__main__":
    main()
