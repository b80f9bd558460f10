"""When stability-based selection is a coin toss (issue 16 item 2), in one run.

Two candidate grids, each tuned by stability-based selection
(``tune_classification_model_stable``, eps 0.5 for training + 0.5 for the selection, delta
0.01, 20% of the rows for validation) and by DPpack's data splitting
(``tune_classification_model``, eps 1, k + 1 interleaved parts), on the same N tuning rows:

* wide   -- DPpack-style gammas 0.01, 0.1, ..., 10^4;
* large  -- gammas 50, 100, 500, 1000, 5000, 10^4, 5 10^4 (gamma >= 50).

Data: logistic labels of 8 correlated features in [-1, 1] (each the mean of its own uniform
and a shared one). Printed: ``stability_selection_diagnosis`` of each grid (public values only),
then the held-out accuracy (20,000 test rows) of the selected model over the splits, its
standard error, and the paired difference stability - data splitting (same data in a split).
Split s draws its data from seed (SEED, s) and its noise from (SEED, s, grid). The defaults
(N = 50,000, 20 splits) take about half a minute; ``--n``, ``--splits`` change the size.
"""

import argparse
import time
import warnings

import numpy as np
from _readme import write_table

import dppack

W_TRUE = np.array([4.0, -3.0, 2.0, 0.0, 1.0, 0.0, -2.0, 1.0])
P = W_TRUE.size
BOUNDS = ([1.0] * P, [-1.0] * P)
GRIDS = {"wide": [0.01, 0.1, 1.0, 10.0, 100.0, 1000.0, 10000.0],
         "large": [50.0, 100.0, 500.0, 1000.0, 5000.0, 10000.0, 50000.0]}
EPS_TRAIN, EPS_SELECT, DELTA, FRACTION = 0.5, 0.5, 0.01, 0.2
SEED = 16


def logistic_data(n, rng):
    shared = rng.uniform(-1, 1, (n, 1))
    X = 0.5 * (rng.uniform(-1, 1, (n, P)) + shared)
    return X, (rng.random(n) < 1 / (1 + np.exp(-X @ W_TRUE))).astype(float)


def one_split(split, grid, n, n_test):
    data = np.random.default_rng([SEED, split])
    X, y = logistic_data(n, data)
    Xw, yw = logistic_data(n_test, data)
    rng = np.random.default_rng([SEED, split, list(GRIDS).index(grid)])
    gammas = GRIDS[grid]
    with warnings.catch_warnings():  # the diagnosis is printed once, above the table
        warnings.simplefilter("ignore", dppack.NearUniformSelectionWarning)
        stable = dppack.tune_classification_model_stable(
            [dppack.LogisticRegressionDP("l2", EPS_TRAIN, g) for g in gammas], X, y, *BOUNDS,
            EPS_SELECT, delta=DELTA, validation_fraction=FRACTION, random_state=rng)
    split_model = dppack.tune_classification_model(
        [dppack.LogisticRegressionDP("l2", EPS_TRAIN + EPS_SELECT, g) for g in gammas], X, y,
        *BOUNDS, random_state=rng)
    return [np.mean(model.predict(Xw) == yw) for model in (stable, split_model)], \
        [stable.gamma, split_model.gamma]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--n-test", type=int, default=20_000)
    parser.add_argument("--splits", type=int, default=20)
    args = parser.parse_args()
    m = int(np.floor(args.n * FRACTION))
    print(f"N = {args.n:,} tuning rows (stability: n = {args.n - m:,}, m = {m:,}), "
          f"{args.n_test:,} test rows, {args.splits} splits; eps 0.5 + 0.5 vs 1")
    start = time.process_time()
    rows = []
    for grid, gammas in GRIDS.items():
        diagnosis = dppack.stability_selection_diagnosis(
            gammas, args.n - m, m, P, EPS_TRAIN, EPS_SELECT, DELTA)
        print(f"\n{grid}: gamma = {gammas}")
        print(diagnosis)
        runs = [one_split(s, grid, args.n, args.n_test) for s in range(args.splits)]
        accuracy = np.array([run[0] for run in runs])
        chosen = np.array([run[1] for run in runs])
        se = accuracy.std(axis=0, ddof=1) / np.sqrt(args.splits)
        difference = accuracy[:, 0] - accuracy[:, 1]
        print(f"held-out accuracy: stability {accuracy[:, 0].mean():.4f} ({se[0]:.4f}), "
              f"data splitting {accuracy[:, 1].mean():.4f} ({se[1]:.4f}); paired difference "
              f"{difference.mean():+.4f} ({difference.std(ddof=1) / np.sqrt(args.splits):.4f})")
        print(f"gammas chosen: stability {chosen[:, 0].tolist()}, "
              f"data splitting {chosen[:, 1].tolist()}")
        rows.append([f"{grid}: gamma {min(gammas):g} to {max(gammas):g}",
                     f"{accuracy[:, 0].mean():.4f} ({se[0]:.4f})",
                     f"{accuracy[:, 1].mean():.4f} ({se[1]:.4f})",
                     f"{difference.mean():+.4f}"])
    print(f"\n{time.process_time() - start:.0f} s CPU")
    write_table("stable_validation_regimes", ["grid", "stability", "data splitting",
                                              "difference"], rows,
                note=f"Held-out accuracy, mean (standard error); N = {args.n:,} tuning rows, "
                     f"{args.n_test:,} test rows, {args.splits} splits; eps 0.5 + 0.5 against 1.")


if __name__ == "__main__":
    main()
