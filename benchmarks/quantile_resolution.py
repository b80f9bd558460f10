"""Median of whole-number data with and without a public resolution (issue 28, item 2).

Pima plasma glucose (n = 532, whole numbers, true median 115), public bounds [40, 250]:
the median absolute error of ``medianDP`` over 200 runs (seeds 0-199) at each eps, with
``resolution=None`` (DPpack's release on a fine grid) and ``resolution=1`` (candidates 40,
41, ..., 250). Also the exact probability of releasing the true median with resolution 1
(from the mechanism's law, no sampling). Each with ``which_sensitivity`` 'bounded' (the
utility's sensitivity 1; before issue 28's follow-up, 'unbounded' drew the same law, with
the same draws) and 'unbounded' (sensitivity max(q, 1 - q) = 1/2 for the median).

Second table: the quartiles of the same data by ``quantilesDP`` (bounded), each method with
and without the resolution: the median over 100 runs (seeds 0-99) of the largest of the
three errors, an error being the distance from the release to the nearest whole value v
whose ties span the target rank (#{x < v} <= q n <= #{x <= v}): 0 when the release is a
true quartile. Run:

    PYTHONPATH=python python benchmarks/quantile_resolution.py
"""

import numpy as np

import dppack
from dppack.datasets import load_pima
from dppack.stats import _quantile

EPSILONS = (0.1, 0.5, 1.0, 2.0, 5.0)
RUNS = 200
LOWER, UPPER = 40.0, 250.0


def exact_probability(x, eps, value, which="bounded"):
    """P(release == value) under the law of medianDP with resolution 1 (Delta' = Delta (1 +
    2^-20), Delta = ``stats._quantile.quantile_sensitivity``)."""
    lattice = _quantile.check_resolution(1.0, LOWER, UPPER)
    utilities, widths, starts = lattice.runs(*_quantile.lattice_counts(x, lattice), 0.5)
    u = np.repeat(utilities, widths)
    delta = _quantile.quantile_sensitivity(0.5, which) * (1.0 + 2.0 ** -20)
    w = np.exp(eps * (u - u.max()) / (2.0 * delta))
    return float(w[lattice.points(np.arange(lattice.size)) == value].sum() / w.sum())


def main():
    x = np.asarray(load_pima()["glu"], dtype=np.float64)
    truth = float(np.median(x))
    print(f"Pima glucose: n = {x.size}, median {truth}, bounds [{LOWER:g}, {UPPER:g}], "
          f"{RUNS} runs")
    print("| eps | median abs error: bounded, resolution None | bounded, 1 | "
          "unbounded, None | unbounded, 1 | P(exact median), resolution 1: bounded | "
          "unbounded |")
    print("|---|---|---|---|---|---|---|")
    for eps in EPSILONS:
        errors = {}
        for which in ("bounded", "unbounded"):
            for resolution in (None, 1):
                out = np.array([dppack.medianDP(x, eps, LOWER, UPPER, which,
                                                random_state=seed, resolution=resolution)
                                for seed in range(RUNS)])
                errors[which, resolution] = float(np.median(np.abs(out - truth)))
        print(f"| {eps:g} | {errors['bounded', None]:.3f} | {errors['bounded', 1]:.3f} | "
              f"{errors['unbounded', None]:.3f} | {errors['unbounded', 1]:.3f} | "
              f"{exact_probability(x, eps, truth):.3f} | "
              f"{exact_probability(x, eps, truth, 'unbounded'):.3f} |")


QUARTILES = np.array([0.25, 0.5, 0.75])
QUARTILE_RUNS = 100


def quartile_error(x, out):
    """The largest distance from a release to a whole value whose ties span its target."""
    values = np.arange(LOWER, UPPER + 1)
    lt = np.searchsorted(np.sort(x), values, side="left")
    le = np.searchsorted(np.sort(x), values, side="right")
    worst = 0.0
    for q, v in zip(QUARTILES, out):
        true = values[(lt <= q * x.size) & (q * x.size <= le)]
        worst = max(worst, float(np.min(np.abs(true - v))))
    return worst


def quartiles():
    x = np.asarray(load_pima()["glu"], dtype=np.float64)
    methods = [("joint", None), ("joint", 1), ("recursive", None), ("recursive", 1),
               ("independent", 1)]
    print(f"Pima glucose quartiles, {QUARTILE_RUNS} runs: median of the largest error "
          "(mg/dL; 0: every release a true quartile)")
    print("| eps | " + " | ".join(f"{m}, resolution {r}" for m, r in methods) + " |")
    print("|---" * (len(methods) + 1) + "|")
    for eps in EPSILONS:
        cells = []
        for method, resolution in methods:
            errors = [quartile_error(x, dppack.quantilesDP(
                x, QUARTILES, eps, LOWER, UPPER, method=method, random_state=seed,
                resolution=resolution)) for seed in range(QUARTILE_RUNS)]
            cells.append(f"{np.median(errors):.2f}")
        print(f"| {eps:g} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
    quartiles()
