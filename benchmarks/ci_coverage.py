"""Coverage and mean length of the private confidence intervals (``confintERM``) for the eight
combinations DP/zCDP x objective/output perturbation x logistic regression/Huber SVM.

The protocol is the spec's (confidence_intervals.md §8 "Coverage protocol", §10 "Statistical
acceptance") and the one of the CI-sized test in
tests/python/confidence_intervals/test_confidence_intervals.py, at a larger size. A synthetic
population has n rows of p features, uniform on [-1, 1], with y drawn from a
logistic model with intercept 0.5. theta_0 is DPpack's non-private fit (eps = Inf) with the
same c = 0.001 (gamma = 2nc) and an intercept. Each of k bootstrap replicates of size n runs
the full private procedure with fresh noise: h = 1, alpha = 0.05, m Monte Carlo draws, and the
paper's budgets (DP: eps = 1 split 2 : 1 : 1; zCDP: rho = 0.1875 split 4 : 1 : 1). All eight
combinations see the same replicates, so their lengths are compared on paired data.

The default is the spec's run 2: n = 30,000, p = 10, k = 1,000, m = 10,000, about 4 minutes on
one core. Acceptance (spec §10): coverage >= 0.94 and three orderings of the mean lengths
(zCDP < DP for objective and for output perturbation; DP objective < DP output). The binomial
standard error treats the k (p + 1) indicators as independent. Those of one replicate are
correlated, so the standard error across replicates ("rep se") is printed as well.
"""

import argparse
import math
import time

import numpy as np
from _readme import write_table

import dppack

C, H, LEVEL = 0.001, 1.0, 0.95
BUDGETS = {"DP": {"eps": 1.0}, "zCDP": {"rho": 0.1875}}  # spec §7 "Budget split"
CONFIGS = [(notion, method, loss) for notion in ("DP", "zCDP")
           for method in ("objective", "output") for loss in ("logistic", "huber")]


def population(n, p, seed):
    """The synthetic population (the test's logistic_data)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.0, 1.0, (n, p))
    y = (X @ rng.normal(size=p) + 0.5 + rng.logistic(size=n) > 0).astype(float)
    return X, y


def coverage(X, y, config, k, m, seed):
    """Per-replicate covered fractions and mean lengths of one combination."""
    notion, method, loss = config
    n, p = X.shape
    ub, lb, gamma = np.ones(p), -np.ones(p), 2 * n * C
    model = (dppack.LogisticRegressionDP("l2", math.inf, gamma) if loss == "logistic"
             else dppack.svmDP("l2", math.inf, gamma, huber_h=H))
    theta0 = model.fit(X, y, ub, lb, add_bias=True).coeff
    rows_rng = np.random.default_rng([seed, 1])  # the same replicates for every combination
    noise_rng = np.random.default_rng([seed, 2, CONFIGS.index(config)])
    covered, length = np.empty(k), np.empty(k)
    for i in range(k):
        rows = rows_rng.integers(0, n, n)
        r = dppack.confintERM(X[rows], y[rows], ub, lb, gamma, loss=loss,
                              perturbation_method=method, huber_h=H, add_bias=True,
                              level=LEVEL, n_draws=m, random_state=noise_rng,
                              **BUDGETS[notion])
        covered[i] = np.mean((r.lower <= theta0) & (theta0 <= r.upper))
        length[i] = np.mean(r.upper - r.lower)
    return covered, length


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=30_000, help="population size")
    parser.add_argument("--p", type=int, default=10, help="features (plus an intercept)")
    parser.add_argument("--reps", type=int, default=1000, help="bootstrap replicates k")
    parser.add_argument("--draws", type=int, default=10_000, help="Monte Carlo draws m")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    X, y = population(args.n, args.p, args.seed)
    start = time.perf_counter()
    print(f"n = {args.n:,}, p = {args.p} + intercept, k = {args.reps}, m = {args.draws:,}, "
          f"c = {C}, h = {H}, seed = {args.seed}")
    print(f"{'combination':<24} {'coverage':>8} {'binom se':>8} {'rep se':>7} "
          f"{'mean length':>11}  coverage >= 0.94")
    lengths, rows = {}, []
    for config in CONFIGS:
        covered, length = coverage(X, y, config, args.reps, args.draws, args.seed)
        cover = covered.mean()
        binom_se = math.sqrt(cover * (1 - cover) / (args.reps * (args.p + 1)))
        rep_se = covered.std(ddof=1) / math.sqrt(args.reps)
        lengths[config] = length.mean()
        print(f"{'-'.join(config):<24} {cover:8.4f} {binom_se:8.4f} {rep_se:7.4f} "
              f"{lengths[config]:11.4f}  {'yes' if cover >= 0.94 else 'NO'}")
        rows.append([*config, f"{cover:.4f}", f"{binom_se:.4f}", f"{lengths[config]:.4f}",
                     ">= 0.94"])
    orderings = []
    print("length orderings (Wang, Kifer and Lee 2019: zCDP shorter than DP, objective "
          "shorter than output):")
    for loss in ("logistic", "huber"):
        for short, long in [(("zCDP", "objective"), ("DP", "objective")),
                            (("zCDP", "output"), ("DP", "output")),
                            (("DP", "objective"), ("DP", "output"))]:
            a, b = lengths[(*short, loss)], lengths[(*long, loss)]
            print(f"  {loss:<8} {'-'.join(short):<14} < {'-'.join(long):<12} "
                  f"{a:.4f} < {b:.4f}  {'holds' if a < b else 'FAILS'}")
            orderings.append(a < b)
    print(f"{time.perf_counter() - start:.0f} s")
    write_table("ci_coverage", ["privacy", "perturbation", "loss", "coverage", "binomial se",
                                "mean length", "target"], rows,
                note=f"n = {args.n:,}, p = {args.p} + intercept, {args.reps} replicates, "
                     f"{args.draws:,} Monte Carlo draws, seed {args.seed}. The expected "
                     f"orderings of the lengths: {sum(orderings)} of {len(orderings)} hold.")


if __name__ == "__main__":
    main()
