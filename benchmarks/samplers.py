"""Exact samplers (dppack._random) against numpy's floating-point ones, in one run.

n = 10^7 noise values on one core (NumPy's samplers are single-threaded; no thread variable is
set). For each exact sampler: values per second, and the ratio of its time to numpy's
``Generator.laplace`` / ``Generator.normal`` for the same n, timed in the same run. Target:
at least 5e6 values per second for the discrete Laplace and the discrete Gaussian.

* integer noise alone: the discrete Laplace with scale 2^20 / 3 grid units (t = 2^56) and the
  discrete Gaussian with sigma = 12000 grid units, the sizes the grid layer uses (the Gaussian
  grid puts sigma in [2^13, 2^14) grid units);
* releases on the grid: ``discrete_laplace_noise`` / ``discrete_gaussian_noise`` (rounding,
  integer noise, conversion) against ``values + rng.laplace(...)`` / ``+ rng.normal(...)``;
* the exact exponential mechanism over 10^7 candidates against a float inverse-CDF
  selection (numpy's cumsum of exp and searchsorted, DPpack's method) on the same utilities;
* end to end on N_MECHANISM = 10^6 values: ``LaplaceMechanism`` and ``GaussianMechanism``
  (classical and analytic: calibration, discrete-Gaussian check, rounding, exact noise)
  against ``values + rng.laplace`` / ``+ rng.normal`` with the same scale.

Best of several runs, wall clock and CPU time of this process (the CPU time is what a busy
shared machine disturbs least; on an idle machine the two agree).
"""

import time

import numpy as np
from _readme import write_table
from _timing import best_seconds

import dppack
from dppack import _random

N = 10_000_000
N_MECHANISM = 1_000_000
RUNS = 3


def measure(function):
    return (best_seconds(function, RUNS),
            best_seconds(function, RUNS, clock=time.process_time))


def float_selection(utility, rng):
    """DPpack's selection in floating point: inverse CDF of exp(eps u / (2 Delta)), eps = 1."""
    cumulative = np.cumsum(np.exp(0.5 * (utility - utility.max())))
    return int(np.searchsorted(cumulative, rng.random() * cumulative[-1]))


def main():
    values = np.random.default_rng(0).normal(size=N)
    rng = np.random.default_rng(1)
    cases = [
        ("discrete Laplace (integers)",
         lambda: _random.discrete_laplace(2 ** 56, 3 * 2 ** 36, N, rng),
         lambda: rng.laplace(0.0, 1.0, N)),
        ("discrete Gaussian (integers)",
         lambda: _random.discrete_gaussian(12000 ** 2, 1, N, rng),
         lambda: rng.normal(0.0, 1.0, N)),
        ("discrete_laplace_noise (release)",
         lambda: _random.discrete_laplace_noise(values, 1.0, 1.0, rng),
         lambda: values + rng.laplace(0.0, 1.0, N)),
        ("discrete_gaussian_noise (release)",
         lambda: _random.discrete_gaussian_noise(values, 4.0, rng),
         lambda: values + rng.normal(0.0, 4.0, N)),
        ("exponential mechanism (n candidates)",
         lambda: _random.exponential_mechanism(values, 1.0, 1.0, rng),
         lambda: float_selection(values, rng)),
    ]
    small = values[:N_MECHANISM]
    sigma = dppack.calibrateAnalyticGaussianMechanism(1.0, 1e-6, 1.0)
    classical = 1.0 * np.sqrt(2 * np.log(1.25 / 1e-6)) / 0.5
    mechanisms = [
        ("LaplaceMechanism",
         lambda: dppack.LaplaceMechanism(small, 1.0, 1.0, random_state=rng),
         lambda: small + rng.laplace(0.0, 1.0, N_MECHANISM)),
        ("GaussianMechanism (classical)",
         lambda: dppack.GaussianMechanism(small, 0.5, 1e-6, 1.0, random_state=rng),
         lambda: small + rng.normal(0.0, classical, N_MECHANISM)),
        ("GaussianMechanism (analytic)",
         lambda: dppack.GaussianMechanism(small, 1.0, 1e-6, 1.0, analytic=True,
                                          random_state=rng),
         lambda: small + rng.normal(0.0, sigma, N_MECHANISM)),
    ]
    header = f"{'':38} {'wall':>22}   {'CPU':>22}   {'ratio to numpy':>16}"
    table = []
    for n, rows in ((N, cases), (N_MECHANISM, mechanisms)):
        print(f"n = {n:,}; best of {RUNS}; values/s = n / time")
        print(header)
        for label, exact, reference in rows:
            (wall, cpu), (ref_wall, ref_cpu) = measure(exact), measure(reference)
            print(f"{label:<38} {wall:6.3f} s {n / wall / 1e6:6.2f} M/s   "
                  f"{cpu:6.3f} s {n / cpu / 1e6:6.2f} M/s   "
                  f"wall {wall / ref_wall:5.2f} CPU {cpu / ref_cpu:5.2f}")
            table.append([label, f"{n:,}", f"{wall:.3f} s", f"{n / wall / 1e6:.2f} M/s",
                          f"{cpu / ref_cpu:.2f}"])
    write_table("samplers", ["what", "n", "time", "values per second",
                             "CPU ratio to numpy's floating-point draw"], table,
                note=f"Best of {RUNS}.")


if __name__ == "__main__":
    main()
