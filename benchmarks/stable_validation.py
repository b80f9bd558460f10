"""Stability-based selection against the baselines of Chaudhuri and Vinterbo (2013, §5) on
synthetic data (spec stability_validation.md §5, §6, §8), in one run.

The spec's qualitative replication; the CI test
(tests/python/model_selection/test_stability.py) runs the same protocol, ``one_split``, at
training n = 50,000 over a few splits. A logistic design in
which the regularisation weight matters, k = 10 candidates lambda in linspace(0.001, 1, 10),
training set T, validation set V (|T| / 8), a separate test set W. Every procedure gets T, V
and the total budget alpha:

* stability   -- tune_classification_model_stable, alpha1 = alpha2 = alpha / 2, delta = 0.01,
                 ramp score (§5): (alpha, 0.01)-DP;
* dataSplit   -- DPpack's tune_classification_model on T and V (11 interleaved parts);
* alphaSplit  -- every candidate trained on T at alpha / k, exponential mechanism on V's errors;
* random      -- one candidate drawn uniformly, trained on T at alpha;
* control     -- not private: all candidates trained on T at alpha, best ramp score on V.

Printed: mean AUC and Brier score (mean squared error of the predicted probabilities, §7.6) on
W with their standard errors over the splits, and each procedure's paired difference to
stability (same data and test set in every split), whose standard error is much smaller than
that of the means. Split s draws its data from seed (SEED, s), the same at every alpha, and
its noise from seed (SEED, s, alpha). The defaults take about 2.5 minutes on one core;
``--n-train``, ``--n-test``, ``--splits``, ``--alphas`` change the size.
"""

import argparse
import time

import numpy as np
from _readme import write_table
from scipy import stats

import dppack

LAMBDAS = np.linspace(0.001, 1, 10)  # §6: Theta
W_TRUE = np.array([3.0, -2.0, 1.5, 0.0, 1.0])
BOUNDS = ([1.0] * W_TRUE.size, [-1.0] * W_TRUE.size)
PROCEDURES = ("stability", "dataSplit", "alphaSplit", "random", "control")
SEED = 2013


def logistic_data(n, rng):
    X = rng.uniform(-1, 1, (n, W_TRUE.size))
    return X, (rng.random(n) < 1 / (1 + np.exp(-X @ W_TRUE))).astype(float)


def auc(p, y):
    """Mann-Whitney form of the area under the ROC curve (ties count one half)."""
    ranks = stats.rankdata(p)
    n1 = y.sum()
    return (ranks[y == 1].sum() - n1 * (n1 + 1) / 2) / (n1 * (y.size - n1))


def ramp_score(model, X, y):
    # the model scales X into the unit ball itself; coeff is on the scale of X
    return -np.mean(np.clip(1 - (2 * y - 1) * (X @ model.coeff), 0, 1))


def models(eps, n):
    # lambda (the paper's weight on (1/2)||w||^2) = DPpack's gamma / n
    return [dppack.LogisticRegressionDP("l2", eps, lam * n) for lam in LAMBDAS]


def one_split(split, alpha, n_train, n_test):
    """The five procedures on one draw of (T, V, W); {procedure: (AUC, Brier)} on W."""
    data = np.random.default_rng([SEED, split])
    n_valid = n_train // 8
    X, y = logistic_data(n_train + n_valid, data)
    Xw, yw = logistic_data(n_test, data)
    Xt, yt, Xv, yv = X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    rng = np.random.default_rng([SEED, split, round(1000 * alpha)])
    k = LAMBDAS.size
    chosen = {"stability": dppack.tune_classification_model_stable(
        models(alpha / 2, n_train), Xt, yt, *BOUNDS, alpha / 2, X_validation=Xv,
        y_validation=yv, random_state=rng)}
    # dataSplit trains each candidate on one of k + 1 parts; lambda refers to that part's size
    chosen["dataSplit"] = dppack.tune_classification_model(
        models(alpha, X.shape[0] // (k + 1)), X, y, *BOUNDS, random_state=rng)
    fits = [m.fit(Xt, yt, *BOUNDS, random_state=rng) for m in models(alpha / k, n_train)]
    errors = np.array([np.count_nonzero(m.predict(Xv) != yv) for m in fits])
    # exponential mechanism on -errors, sensitivity 1 (§5)
    chosen["alphaSplit"] = fits[dppack.ExponentialMechanism(-errors, alpha, 1,
                                                            random_state=rng)]
    index = int(rng.integers(k))  # uniform, independent of the data
    chosen["random"] = models(alpha, n_train)[index].fit(Xt, yt, *BOUNDS, random_state=rng)
    fits = [m.fit(Xt, yt, *BOUNDS, random_state=rng) for m in models(alpha, n_train)]
    chosen["control"] = fits[int(np.argmax([ramp_score(m, Xv, yv) for m in fits]))]
    out = {}
    for name, model in chosen.items():
        p = model.predict(Xw, raw_value=True)
        out[name] = (auc(p, yw), np.mean((p - yw) ** 2))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-train", type=int, default=100_000)
    parser.add_argument("--n-test", type=int, default=20_000)
    parser.add_argument("--splits", type=int, default=100)
    parser.add_argument("--alphas", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    args = parser.parse_args()
    print(f"training n = {args.n_train:,}, validation m = {args.n_train // 8:,}, test "
          f"{args.n_test:,}, k = {LAMBDAS.size}, {args.splits} splits; mean (standard error)")
    print("the last two columns: paired differences procedure - stability (same data)")
    print(f"{'procedure':<11} {'alpha':>5}  {'AUC':>15}  {'Brier':>15}  {'AUC - stab.':>18}  "
          f"{'Brier - stab.':>18}")
    start = time.perf_counter()
    rows = []
    for alpha in args.alphas:
        runs = [one_split(s, alpha, args.n_train, args.n_test) for s in range(args.splits)]
        stable = np.array([run["stability"] for run in runs])
        for name in PROCEDURES:
            values = np.array([run[name] for run in runs])
            cells = []
            for x in (values[:, 0], values[:, 1], values[:, 0] - stable[:, 0],
                      values[:, 1] - stable[:, 1]):
                se = x.std(ddof=1) / np.sqrt(x.size)  # NaN for one split
                cells.append(f"{x.mean():+.5f} ({se:.5f})" if len(cells) > 1
                             else f"{x.mean():.4f} ({se:.4f})")
            print(f"{name:<11} {alpha:5g}  " + "  ".join(cells))
            rows.append([name, f"{alpha:g}", *cells])
    print(f"{time.perf_counter() - start:.0f} s")
    write_table("stable_validation", ["procedure", "alpha", "AUC", "Brier", "AUC - stability",
                                      "Brier - stability"], rows,
                note=f"Training n = {args.n_train:,}, validation m = {args.n_train // 8:,}, "
                     f"test {args.n_test:,}, k = {LAMBDAS.size}, {args.splits} splits; means "
                     f"(standard errors); the last two columns are paired differences.")


if __name__ == "__main__":
    main()
