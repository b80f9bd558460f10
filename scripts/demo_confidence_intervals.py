"""Private confidence intervals for a logistic regression on the Pima data, Python side.

The private intervals (Wang, Kifer and Lee) beside the non-private Wald intervals of the
maximum-likelihood fit, with a plot in demo-output/. The private numbers equal those of
scripts/demo_confidence_intervals.R bit for bit (same seed, one generator).
"""

from pathlib import Path

import numpy as np
import pandas as pd

import dppack
from dppack.datasets import load_pima

SEED = 2026
FEATURES = ["glu", "bmi", "ped", "age"]
# public bounds on the measurements, not read from the data; the features are centred at the
# midpoints of their bounds (public constants), which keeps the penalty's shrinkage moderate
UPPER = np.array([200, 70, 2.5, 85])
LOWER = np.array([50, 15, 0, 20])
MIDDLE = (UPPER + LOWER) / 2
HALF = (UPPER - LOWER) / 2
GAMMA = 1.0


def wald_intervals(X, y, level=0.95):
    """Non-private maximum likelihood (Newton's method) and Wald intervals, as R's
    confint.default(glm(...)): estimate +- z sqrt(diag((X'WX)^-1))."""
    from scipy.stats import norm

    X1 = np.column_stack([np.ones(len(X)), X])
    theta = np.zeros(X1.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-X1 @ theta))
        information = (X1.T * (p * (1 - p))) @ X1
        step = np.linalg.solve(information, X1.T @ (y - p))
        theta += step
        if np.max(np.abs(step)) < 1e-12:
            break
    se = np.sqrt(np.diag(np.linalg.inv(information)))
    z = norm.ppf((1 + level) / 2)
    return pd.DataFrame({"estimate": theta, "2.5 %": theta - z * se, "97.5 %": theta + z * se},
                        index=["(Intercept)"] + FEATURES)


def main():
    pima = load_pima()
    X = pima[FEATURES] - MIDDLE
    y = (pima["type"] == "Yes").astype(float).to_numpy()
    print(f"== Private confidence intervals, logistic regression on the Pima data "
          f"(n = {len(y)}), Python ==")
    rng = np.random.default_rng(SEED)
    model = dppack.LogisticRegressionDP("l2", 5.0, GAMMA)  # eps = 5 for the whole release
    dp = dppack.confintDP(model, X, y, HALF, -HALF, add_bias=True, random_state=rng)
    zcdp = dppack.confintERM(X, y, HALF, -HALF, GAMMA, rho=2.0, perturbation_method="output",
                             add_bias=True, random_state=rng)
    wald = wald_intervals(X.to_numpy(), y)
    # what the private intervals estimate: the penalised fit (gamma = 1), without noise
    penalised = dppack.LogisticRegressionDP("l2", np.inf, GAMMA).fit(
        X, y, HALF, -HALF, add_bias=True).coeff
    pd.set_option("display.float_format", "{:.4f}".format)
    for label, result in (("objective perturbation", dp), ("output perturbation", zcdp)):
        print(f"\nPrivate, {label}: {result.privacy()}")
        print(result.to_frame())
    print("\nNon-private Wald intervals (maximum likelihood, no penalty):")
    print(wald)
    print("\nNon-private penalised fit (gamma = 1), the value the private intervals target:")
    print(pd.Series(penalised, index=wald.index).to_string(float_format="{:.4f}".format))
    plot(dp.to_frame(), zcdp.to_frame(), wald, penalised)


def plot(dp, zcdp, wald, penalised):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (pip install dppack[plot])")
        return
    figure, axes = plt.subplots(1, len(FEATURES), figsize=(12, 3.2))
    rows = [("DP, eps = 5 (objective)", dp, "tab:blue"),
            ("zCDP, rho = 2 (output)", zcdp, "tab:orange"),
            ("non-private Wald", wald, "black")]
    for j, (ax, feature) in enumerate(zip(axes, FEATURES)):
        ax.axvline(penalised[j + 1], color="tab:green", linewidth=1.2,
                   label="non-private penalised fit")
        for position, (label, frame, colour) in enumerate(rows):
            low, high = frame.loc[feature, "2.5 %"], frame.loc[feature, "97.5 %"]
            ax.plot([low, high], [position, position], color=colour, linewidth=3, label=label)
            ax.plot(frame.loc[feature, "estimate"], position, "o", color=colour)
        ax.axvline(0, color="grey", linewidth=0.8, linestyle=":")
        ax.set_title(feature)
        ax.set_yticks([])
        ax.set_ylim(-0.8, len(rows) - 0.2)
    handles, labels = axes[0].get_legend_handles_labels()
    keep = [i for i, label in enumerate(labels) if label not in labels[:i]]  # one per label
    figure.legend([handles[i] for i in keep], [labels[i] for i in keep], loc="lower center",
                  ncol=4, fontsize=8, frameon=False)
    figure.suptitle("Pima: 95% intervals for the logistic regression slopes")
    figure.subplots_adjust(bottom=0.22, top=0.82, left=0.03, right=0.98, wspace=0.25)
    Path("demo-output").mkdir(exist_ok=True)
    figure.savefig("demo-output/confidence_intervals_Python.png")
    print("Interval plot saved to demo-output/confidence_intervals_Python.png")


if __name__ == "__main__":
    main()
