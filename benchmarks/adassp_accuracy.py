"""Accuracy of LinearRegressionAdaSSP against LinearRegressionDP, the mean and OLS.

Diabetes (scikit-learn's ``load_diabetes``, split 70/30 by ``train_test_split(test_size=0.3,
random_state=0)``; public bounds: each feature's min/max over the whole data set rounded
outward to 0.01, y in [20, 350]): median test RMSE over ``--runs`` fits at eps 0.1 ... 5,
pure eps-DP. Synthetic: n x 20 rows, X uniform in [-1, 1], y = 1 + X b + N(0, 1.75^2) with
b_j = (-1)^j (OLS R^2 about 0.685), public bounds [-1, 1] and [-24, 26] for y (wider than
1 +- 20 + 3 sd), held-out R^2 on 10^5 fresh rows.

    PYTHONPATH=python python benchmarks/adassp_accuracy.py [--runs 100] [--n 1000000]
"""

import argparse
import time

import numpy as np

import dppack


def diabetes(runs):
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import train_test_split

    X, y = load_diabetes(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0)
    lower = np.append(np.floor(X.min(0) * 100) / 100, 20.0)
    upper = np.append(np.ceil(X.max(0) * 100) / 100, 350.0)

    def rmse(pred):
        return float(np.sqrt(np.mean((pred - yte) ** 2)))

    print(f"diabetes: n_train = {ytr.size}, mean predictor RMSE {rmse(ytr.mean()):.1f}, "
          f"OLS {rmse(LinearRegression().fit(Xtr, ytr).predict(Xte)):.1f}")
    print("eps   AdaSSP  LinearRegressionDP")
    for eps in (0.1, 0.5, 1.0, 2.0, 5.0):
        ada, kst = [], []
        for seed in range(runs):
            m = dppack.LinearRegressionAdaSSP(eps).fit(Xtr, ytr, upper, lower, add_bias=True,
                                                       random_state=seed)
            ada.append(rmse(m.predict(Xte)))
            k = dppack.LinearRegressionDP("l2", eps, 0.0, 1.0).fit(
                Xtr, ytr, upper, lower, add_bias=True, random_state=seed)
            kst.append(rmse(k.predict(Xte)))
        print(f"{eps:<5} {np.median(ada):6.1f}  {np.median(kst):6.1f}")


def synthetic(n, runs, deltas=(0.0,)):
    rng = np.random.default_rng(2026)
    p = 20
    b = np.array([(-1.0) ** j for j in range(p)])

    def draw(m):
        X = rng.uniform(-1, 1, (m, p))
        return X, 1 + X @ b + rng.normal(0, 1.75, m)

    X, y = draw(n)
    Xt, yt = draw(100_000)
    lower, upper = np.append(np.full(p, -1.0), -24.0), np.append(np.full(p, 1.0), 26.0)

    def r2(pred):
        return 1 - np.mean((pred - yt) ** 2) / np.var(yt)

    A = np.column_stack([np.ones(n), X])
    ols = np.linalg.lstsq(A, y, rcond=None)[0]
    print(f"synthetic {n} x {p}: OLS held-out R^2 {r2(Xt @ ols[1:] + ols[0]):.4f}")
    for eps in (0.1, 1.0):
        kst = dppack.LinearRegressionDP("l2", eps, 0.0, 1.0).fit(X, y, upper, lower,
                                                                add_bias=True, random_state=0)
        print(f"  LinearRegressionDP eps {eps}: R^2 {r2(kst.predict(Xt)):.4f}")
    for delta in deltas:
        for eps in (0.1, 1.0):
            scores, times = [], []
            for seed in range(runs):
                start = time.perf_counter()
                m = dppack.LinearRegressionAdaSSP(eps, delta).fit(X, y, upper, lower,
                                                                  add_bias=True,
                                                                  random_state=seed)
                times.append(time.perf_counter() - start)
                scores.append(r2(m.predict(Xt)))
            print(f"  AdaSSP eps {eps} delta {delta}: R^2 median {np.median(scores):.4f} "
                  f"(min {np.min(scores):.4f}), fit {np.median(times):.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--only", choices=("diabetes", "synthetic"))
    args = parser.parse_args()
    if args.only != "synthetic":
        diabetes(args.runs)
    if args.only != "diabetes":
        synthetic(args.n, 5, deltas=(0.0, 1e-6))
