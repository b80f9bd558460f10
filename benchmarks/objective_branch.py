"""Objective perturbation's branch rule on real data: DPpack's rule against dppack's (issue 28).

DPpack 0.2.2 (Chaudhuri, Monteleoni and Sarwate 2011, Algorithm 2) adds the extra
regularisation Delta only when eps'(0) = eps - 2 ln(1 + c/gamma) <= 0; dppack adds it whenever
eps'(0) < eps/2 (``dppack.erm.cms.objective_perturbation_parameters``). Data: scikit-learn's
breast-cancer set (569 x 30; ``--data pima``: dppack's Pima data, 532 x 7), each feature mapped to [-1, 1] by its min and max over the whole
set (taken as public bounds), so the bounds are [-1, 1]; one fixed 70/30 split (seed 0),
intercept added. For each gamma and eps: the median test accuracy over ``--runs`` fits
(seeds 0..runs-1) of LogisticRegressionDP and svmDP (linear, Huber h = 0.5, c = 1) by objective
perturbation under each rule. ``--fractions`` adds rules that switch at eps' < t eps with
eps' = t eps (t = 1/2 is dppack's), to see whether another member of the family does better.
``--output`` prints instead LogisticRegressionDP by output perturbation beside objective
perturbation: the exact release (per-coordinate discrete Laplace at L1 sensitivity sqrt(d) S)
and, for comparison only, DPpack's continuous l2-Laplace noise at the same L2 sensitivity S
(not exact: float noise added to a data-dependent minimiser). scikit-learn is a benchmark
dependency only. Prints Markdown tables.

    python benchmarks/objective_branch.py [--runs 30] [--fractions 0.25 0.75] [--output]
"""

import argparse
import functools
import math
import time

import numpy as np

import dppack
from dppack import _random
from dppack.erm import _cms as cms  # the module whose fit calls them (patched)

GAMMAS = (0.1, 1.0, 10.0)
EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)


def fraction_rule(eps, gamma, c, n, row_norm_bound=1.0, weights_upper_bound=1.0, t=0.5):
    """The family member that switches at eps'(0) < t eps and then spends eps' = t eps on the
    noise, Delta solving 2 ln(1 + c / (gamma + n Delta)) = (1 - t) eps (every member is
    covered by Theorem 9's proof: any Delta >= 0)."""
    c = c * weights_upper_bound * max(1.0, row_norm_bound) ** 2
    first = eps - math.log1p(2.0 * c / gamma + (c / gamma) ** 2)
    if first > t * eps:
        return first, 0.0
    return t * eps, max(0.0, c / (n * math.expm1((1.0 - t) * eps / 2.0)) - gamma / n)


def data(name="breast_cancer"):
    if name == "pima":
        from dppack.datasets import load_pima

        pima = load_pima()
        X = pima.drop(columns="type").to_numpy(dtype=float)
        y = (pima["type"] == "Yes").to_numpy(dtype=float)
    else:
        from sklearn.datasets import load_breast_cancer

        X, y = load_breast_cancer(return_X_y=True)
    lo, hi = X.min(axis=0), X.max(axis=0)
    X = 2.0 * (X - lo) / (hi - lo) - 1.0
    order = np.random.default_rng(0).permutation(len(y))
    cut = int(round(0.7 * len(y)))
    return X[order[:cut]], y[order[:cut]], X[order[cut:]], y[order[cut:]]


def median_accuracy(make, rule, runs, Xtr, ytr, Xte, yte):
    p = Xtr.shape[1]
    original = cms.objective_perturbation_parameters
    cms.objective_perturbation_parameters = rule
    try:
        accuracies = []
        for seed in range(runs):
            model = make().fit(Xtr, ytr, np.ones(p), -np.ones(p), True, random_state=seed)
            accuracies.append(np.mean(model.predict(Xte, True) == yte))
    finally:
        cms.objective_perturbation_parameters = original
    return float(np.median(accuracies)), model.eps_prime_, model.Delta_


def l2_laplace_release(values, sensitivity, eps, rng, standard=None):
    """DPpack's output noise (density proportional to exp(-eps ||b|| / S)), continuous."""
    theta = np.asarray(values, dtype=np.float64)
    return theta + _random.l2_laplace(theta.size, eps / sensitivity, rng)


def output_table(runs, Xtr, ytr, Xte, yte):
    p = Xtr.shape[1]

    def median(method, patch=None):
        original = cms.release
        if patch is not None:
            cms.release = patch
        try:
            accuracies = [np.mean(dppack.LogisticRegressionDP("l2", eps, gamma, method).fit(
                Xtr, ytr, np.ones(p), -np.ones(p), True, random_state=seed).predict(
                    Xte, True) == yte) for seed in range(runs)]
        finally:
            cms.release = original
        return float(np.median(accuracies))

    print(f"\nLogisticRegressionDP, median test accuracy over {runs} fits\n")
    print("| gamma | eps | objective | output (exact) | output (l2-Laplace, float) |")
    print("| --- | --- | --- | --- | --- |")
    for gamma in GAMMAS:
        for eps in EPSILONS:
            cells = [median("objective"), median("output"),
                     median("output", l2_laplace_release)]
            print(f"| {gamma:g} | {eps:g} | " + " | ".join(f"{c:.3f}" for c in cells) + " |",
                  flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--fractions", type=float, nargs="*", default=[])
    parser.add_argument("--output", action="store_true")
    parser.add_argument("--data", choices=("breast_cancer", "pima"), default="breast_cancer")
    args = parser.parse_args()
    Xtr, ytr, Xte, yte = data(args.data)
    if args.output:
        output_table(args.runs, Xtr, ytr, Xte, yte)
        return
    rules = {"DPpack": functools.partial(cms.objective_perturbation_parameters,
                                         branch="dppack"),
             "dppack": cms.objective_perturbation_parameters}
    for t in args.fractions:
        rules[f"t={t:g}"] = functools.partial(fraction_rule, t=t)
    models = {
        "LogisticRegressionDP": lambda eps, gamma: dppack.LogisticRegressionDP("l2", eps, gamma),
        "svmDP": lambda eps, gamma: dppack.svmDP("l2", eps, gamma),
    }
    start = time.perf_counter()
    for name, make in models.items():
        print(f"\n{name}, objective perturbation, {args.data} (n = {len(ytr)} train, "
              f"{len(yte)} test), median test accuracy over {args.runs} fits "
              f"(eps' / eps of the last fit in brackets)\n")
        print("| gamma | eps | " + " | ".join(rules) + " |")
        print("|" + " --- |" * (2 + len(rules)))
        for gamma in GAMMAS:
            for eps in EPSILONS:
                cells = []
                for rule in rules.values():
                    acc, eps_prime, _ = median_accuracy(
                        functools.partial(make, eps, gamma), rule, args.runs, Xtr, ytr, Xte, yte)
                    cells.append(f"{acc:.3f} ({eps_prime / eps:.2f})")
                print(f"| {gamma:g} | {eps:g} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
