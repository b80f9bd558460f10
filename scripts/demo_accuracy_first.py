"""Accuracy-first private logistic regression on the Pima data, Python side.

The analyst states the accuracy wanted (excess empirical risk alpha, failure probability gamma)
and gets a model that meets it together with the privacy loss actually spent, beside the
doubling and theory-inversion baselines. The same calls in scripts/demo_accuracy_first.R, inside
with_random_state(2026, ...), print the same numbers.
"""

import numpy as np

import dppack
from dppack.datasets import load_pima

SEED = 2026
REPS = 10
FEATURES = ["glu", "bp", "bmi", "ped", "age"]
# Public knowledge about the measurements, not read from the data.
UPPER = [200, 120, 70, 2.5, 90]
LOWER = [40, 30, 15, 0, 20]
ALPHA, LAMBDA, GAMMA = 0.1, 0.1, 0.1


def _row(label, results, tested=True):
    eps = [r.eps for r in results]
    met = f"{sum(r.success for r in results)}/{len(results)}" if tested else "untested"
    test = np.mean([r.eps_test for r in results])
    print(f"{label:<36} {np.mean(eps):8.3f} {np.min(eps):8.3f} {np.max(eps):8.3f} "
          f"{test:8.3f}   {met}")


def main():
    pima = load_pima()
    X = pima[FEATURES].to_numpy(dtype=float)
    y = (pima["type"] == "Yes").to_numpy(dtype=float)
    print("== Accuracy first: private logistic regression of diabetes on the Pima data ==")
    print(f"n = {len(y)}; target: excess empirical risk <= {ALPHA} with probability >= "
          f"{1 - GAMMA}; lambda = {LAMBDA}; {REPS} runs each")
    print(f"{'method':<36} {'mean eps':>8} {'min':>8} {'max':>8} {'test eps':>8}   passed")
    rng = np.random.default_rng(SEED)
    args = (X, y, "logistic", ALPHA, LAMBDA, UPPER, LOWER)
    kw = {"add_bias": True, "gamma": GAMMA}
    # the default calibration is "exact" (the least test cost with failure probability
    # <= gamma, computed exactly); "paper" is Ligett et al.'s union bound, "tuned" their code's
    exact = [dppack.accuracy_first_erm(*args, **kw, random_state=rng) for _ in range(REPS)]
    paper = [dppack.accuracy_first_erm(*args, **kw, calibration="paper", random_state=rng)
             for _ in range(REPS)]
    tuned = [dppack.accuracy_first_erm(*args, **kw, calibration="tuned", random_state=rng)
             for _ in range(REPS)]
    doubling = [dppack.doubling_erm(*args, **kw, random_state=rng) for _ in range(REPS)]
    theory = dppack.theory_erm(*args, add_bias=True, random_state=rng)
    _row("noise reduction (exact calibration)", exact)
    _row("noise reduction (paper calibration)", paper)
    _row("noise reduction (tuned calibration)", tuned)
    _row("doubling (exact calibration)", doubling)
    _row("theory inversion (expected risk)", [theory], tested=False)
    first = exact[0]
    print("first run:", first)
    print("coefficients (bias, " + ", ".join(FEATURES) + "):", np.round(first.coeff, 4))
    print("At n = 532 noise reduction spends less than doubling, not less than theory inversion"
          "\n(which promises only the expected risk and tests nothing): the accuracy test "
          "dominates\n(its sensitivity uses the worst-case norm of the hypotheses).")


if __name__ == "__main__":
    main()
