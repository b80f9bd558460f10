"""Demo part: ERM with the analytic Gaussian mechanism on the Pima data (Python side).

OPERA (output perturbation) and the sound GRPUA (noisy SGD with a total budget) fit a logistic
regression and a Huber SVM at a few eps; the mean test accuracy over 10 private fits is printed
beside the non-private fit of the same algorithm (eps = Inf). The calls and their order mirror
scripts/demo_analytic_gaussian_erm.R: one generator seeded 2026, so both print the same numbers.
"""

import numpy as np

import dppack
from dppack.datasets import load_pima

FEATURES = ["glu", "bmi", "ped", "age"]
UPPER = np.array([200.0, 70.0, 2.5, 90.0])  # public bounds of the measurements
LOWER = np.array([40.0, 15.0, 0.0, 20.0])
GAMMA, DELTA, RUNS = 3.0, 1e-5, 10


def main():
    print("\n== ERM with the analytic Gaussian mechanism, Pima data, Python ==")
    pima = load_pima()
    # Centre on the bounds' midpoints (public, not read from the data): the scaling to unit
    # row norm then loses less of the signal.
    middle, half = (UPPER + LOWER) / 2, (UPPER - LOWER) / 2
    X = pima[FEATURES].to_numpy() - middle
    y = (pima["type"] == "Yes").to_numpy(dtype=float)
    test = np.arange(len(y)) < 200  # MASS's Pima.tr; train on Pima.te (332 women)
    X_train, y_train, X_test, y_test = X[~test], y[~test], X[test], y[test]
    rng = np.random.default_rng(2026)
    print(f"gamma = {GAMMA:g}, delta = {DELTA:g}; mean test accuracy of {RUNS} private fits")
    for name, cls in (("OPERA", dppack.OutputPerturbationAGM),
                      ("GRPUA", dppack.GradientPerturbationAGM)):
        for loss in ("logistic", "huber"):
            cells = []
            for eps in (1.0, 5.0, 20.0, np.inf):
                runs = 1 if np.isinf(eps) else RUNS
                # correct predictions counted as integers: the same mean to the bit in R
                correct = sum(int(np.sum(cls(loss, eps, DELTA, GAMMA)
                                         .fit(X_train, y_train, half, -half, True,
                                              random_state=rng)
                                         .predict(X_test, True) == y_test))
                              for _ in range(runs))
                acc = correct / (runs * len(y_test))
                label = "non-private" if np.isinf(eps) else f"eps {eps:g}"
                cells.append(f"{label}: {acc:.3f}")
            print(f"{name} {loss:8s} " + "  ".join(cells))


if __name__ == "__main__":
    main()
