"""DPpackPy demo, Python side: the mechanisms of DPpack 0.2.2 from the core `dppack`.

The calls mirror scripts/demo.R. With the same seed through one generator, the sanitized
values printed here equal those printed by R's with_random_state() block bit for bit.
"""

import numpy as np

import dppack

SEED = 2026


def main():
    print("== dppack (Python) ==")
    rng = np.random.default_rng(SEED)
    print("Laplace, eps 1, sensitivity 0.5, on 5:      ",
          dppack.LaplaceMechanism(5, 1, 0.5, random_state=rng))
    print("Laplace with allocation (1, 9) on (10, 20): ",
          dppack.LaplaceMechanism([10, 20], 1, [0.5, 1], alloc_proportions=[1, 9],
                                  random_state=rng))
    print("Gaussian aDP, eps 0.9, delta 0.01, on 5:    ",
          dppack.GaussianMechanism(5, 0.9, 0.01, 1, random_state=rng))
    print("Gaussian pDP, eps 0.9, delta 0.01, on 5:    ",
          dppack.GaussianMechanism(5, 0.9, 0.01, 1, type_DP="pDP", random_state=rng))
    print("Analytic Gaussian, eps 2, delta 1e-5, on 5: ",
          dppack.GaussianMechanism(5, 2, 1e-5, 1, analytic=True, random_state=rng))
    print("Exponential mechanism, utilities (-5,-1,0,3):",
          dppack.ExponentialMechanism([-5, -1, 0, 3], 1, 1, candidates=["a", "b", "c", "d"],
                                      random_state=rng))
    print("AGM sigma for eps 1, delta 1e-5, sensitivity 1:",
          dppack.calibrateAnalyticGaussianMechanism(1, 1e-5, 1))


if __name__ == "__main__":
    main()
