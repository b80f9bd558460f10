"""Stability-based private model selection on the bundled Pima data, Python side (Chaudhuri and
Vinterbo 2013). Mirrors scripts/demo_stable_validation.R: with the same seeds the
selected gammas and accuracies printed here equal R's bit for bit.

Both procedures get the same 399 rows and the same total budget, eps 4:
* data splitting, DPpack's tune_classification_model: 5 models at eps 4, each on 1/6 of the
  rows, selection by the exponential mechanism on the last sixth;
* stability, tune_classification_model_stable: every model at eps 2 on 80% of the rows,
  selection with eps_select = 2 on the other 20%, the chosen model retrained.
The other 133 rows are the test set.
"""

import numpy as np

import dppack
from dppack.datasets import load_pima

SEED = 2026
EPS = 4.0
GAMMAS = [1.0, 3.0, 10.0, 30.0, 100.0]
COLUMNS = ["npreg", "glu", "bmi", "ped", "age"]
# public knowledge about the measurements, not read from the data; the columns are centred
# on the middle of their range so that the scaled rows fill the unit ball
UPPER = np.array([17.0, 200.0, 70.0, 2.5, 90.0])
LOWER = np.array([0.0, 40.0, 15.0, 0.0, 20.0])
MIDDLE, HALF = (UPPER + LOWER) / 2, (UPPER - LOWER) / 2


def pima_split():
    pima = load_pima()
    X = pima[COLUMNS].to_numpy(dtype=float) - MIDDLE
    y = (pima["type"] == "Yes").to_numpy(dtype=float)
    test = np.arange(X.shape[0]) % 4 == 3  # every 4th row is the test set
    return X[~test], y[~test], X[test], y[test]


def one_run(X, y, X_test, y_test, seed):
    rng = np.random.default_rng(seed)
    split = dppack.tune_classification_model(
        [dppack.LogisticRegressionDP("l2", EPS, g) for g in GAMMAS], X, y, HALF, -HALF,
        add_bias=True, random_state=rng)
    stable = dppack.tune_classification_model_stable(
        [dppack.LogisticRegressionDP("l2", EPS / 2, g) for g in GAMMAS], X, y, HALF, -HALF,
        EPS / 2, add_bias=True, random_state=rng)
    return [(model.gamma, np.mean(model.predict(X_test, add_bias=True) == y_test))
            for model in (split, stable)]


def main():
    X, y, X_test, y_test = pima_split()
    print("== Stability-based validation on the Pima data (Python) ==")
    print(f"{X.shape[0]} tuning rows, {X_test.shape[0]} test rows; gammas {GAMMAS}; "
          f"total eps {EPS:g}")
    (g1, a1), (g2, a2) = one_run(X, y, X_test, y_test, SEED)
    print(f"seed {SEED}: data splitting selected gamma {g1:g}, test accuracy {a1:.4f}")
    print(f"seed {SEED}: stability      selected gamma {g2:g}, test accuracy {a2:.4f}")
    runs = np.array([np.ravel(one_run(X, y, X_test, y_test, SEED + r)) for r in range(1, 21)])
    for name, (g, a) in (("data splitting", (0, 1)), ("stability", (2, 3))):
        chosen = {f"{gamma:g}": int(np.sum(runs[:, g] == gamma)) for gamma in GAMMAS}
        print(f"20 seeds, {name:14s}: mean test accuracy {runs[:, a].mean():.4f}, "
              f"gamma chosen {chosen}")
    # before any data: how far from a random pick can the selection be? (public values only)
    m = X.shape[0] // 5
    for gap in (None, 0.05):  # the whole score range (most favourable), a realistic gap
        print(dppack.stability_selection_diagnosis(GAMMAS, X.shape[0] - m, m, X.shape[1] + 1,
                                                   EPS / 2, EPS / 2, score_gap=gap))
    print("Stability pays off for large gammas and large data (see the vignette).")


if __name__ == "__main__":
    main()
