"""Joint quantiles (issue 16): error of the three methods of quantilesDP, and speed.

Error. For each data shape (uniform, normal, heavy-tailed Student t with 2 degrees of
freedom, clustered: three narrow normal clusters), n = 10,000, m = 9 quantiles
(0.1, ..., 0.9), eps = 1, public bounds [-50, 50], ``REPS`` seeds per method: the mean over
quantiles and seeds of the rank error |#{x <= release} - q n| / n (the share of data between
the release and the true quantile; 0.01 = 1%), for JointExp ("joint"), the independent
baseline (quantileDP with eps / 9 each) and the recursive splitting of Kaplan, Schnapp and
Stemmer (eps / 7 per level under bounded DP).

Speed. m = 9, n = 10^7 normal data: quantilesDP (joint) against numpy.sort of the same
data, best of 3 runs each, in the same run; target: within 5x.

Run: ``.venv/bin/python benchmarks/quantiles.py`` (about a minute); ``--quick`` runs
fewer seeds and n = 10^6 for the speed.
"""

import sys

import numpy as np
from _readme import write_table
from _timing import best_seconds

import dppack

QUANTS = np.linspace(0.1, 0.9, 9)
LOWER, UPPER = -50.0, 50.0


def shapes(n, rng):
    centres = rng.choice([-20.0, 0.0, 15.0], size=n, p=[0.3, 0.5, 0.2])
    return {
        "uniform": rng.uniform(-10.0, 10.0, n),
        "normal": rng.normal(0.0, 5.0, n),
        "heavy-tailed (t2)": rng.standard_t(2, n),
        "clustered": centres + rng.normal(0.0, 0.5, n),
    }


def rank_error(x_sorted, released):
    ranks = np.searchsorted(x_sorted, released, side="right")
    return float(np.mean(np.abs(ranks - QUANTS * x_sorted.size)) / x_sorted.size)


def main():
    quick = "--quick" in sys.argv
    reps = 10 if quick else 40
    n = 10_000
    rng = np.random.default_rng(2026)
    methods = ("joint", "independent", "recursive")
    print(f"Rank error (mean |rank - q n| / n), n = {n:,}, m = 9, eps = 1, {reps} seeds:")
    print(f"{'data':<20}" + "".join(f"{m:>14}" for m in methods))
    rows = []
    for label, x in shapes(n, rng).items():
        x_sorted = np.sort(x)
        errors = []
        for method in methods:
            errors.append(np.mean([
                rank_error(x_sorted, dppack.quantilesDP(x, QUANTS, 1.0, LOWER, UPPER,
                                                        method=method, random_state=seed))
                for seed in range(reps)]))
        print(f"{label:<20}" + "".join(f"{e:>14.4f}" for e in errors))
        rows.append([label, *(f"{e:.4f}" for e in errors)])

    big = 1_000_000 if quick else 10_000_000
    x = np.random.default_rng(1).normal(size=big)
    seeds = iter(range(100))
    joint = best_seconds(lambda: dppack.quantilesDP(x, QUANTS, 1.0, -10.0, 10.0,
                                                    method="joint",
                                                    random_state=next(seeds)), runs=3)
    sort = best_seconds(lambda: np.sort(x), runs=3)
    print(f"\nSpeed, n = {big:,}, m = 9: quantilesDP (joint) {joint:.3f} s, numpy.sort "
          f"{sort:.3f} s, ratio {joint / sort:.2f} (target <= 5)")
    if not quick:
        write_table("quantiles", ["data", *methods], rows,
                    note=f"Mean rank error as a share of n (n = {n:,}, m = 9, eps = 1, {reps} "
                         f"seeds). Speed, n = {big:,}, m = 9: `quantilesDP` (joint) "
                         f"{joint:.2f} s, `numpy.sort` {sort:.2f} s, ratio {joint / sort:.2f} "
                         f"(target <= 5).")


if __name__ == "__main__":
    main()
