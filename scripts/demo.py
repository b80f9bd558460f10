"""DPpackPy demo, Python side: the mechanisms of DPpack 0.2.2 from the core `dppack`.

The calls mirror scripts/demo.R. With the same seed through one generator, the sanitized
values printed here equal those printed by R's with_random_state() block bit for bit.
"""

from pathlib import Path

import numpy as np

import dppack

SEED = 2026


def main():
    print("== dppack (Python) ==")
    rng = np.random.default_rng(SEED)
    print("Laplace, eps 1, sensitivity 0.5, on 5:      ",
          dppack.LaplaceMechanism(5, 1, 0.5, random_state=rng))
    print("Laplace with allocation (1, 9) on (10, 20): ",
          dppack.LaplaceMechanism([10, 20], 1, [0.5, 1], alloc_proportions=[1, 9],
                                  random_state=rng))
    print("Gaussian aDP, eps 0.9, delta 0.01, on 5:    ",
          dppack.GaussianMechanism(5, 0.9, 0.01, 1, random_state=rng))
    print("Gaussian pDP, eps 0.9, delta 0.01, on 5:    ",
          dppack.GaussianMechanism(5, 0.9, 0.01, 1, type_DP="pDP", random_state=rng))
    print("Analytic Gaussian, eps 2, delta 1e-5, on 5: ",
          dppack.GaussianMechanism(5, 2, 1e-5, 1, analytic=True, random_state=rng))
    print("Exponential mechanism, utilities (-5,-1,0,3):",
          dppack.ExponentialMechanism([-5, -1, 0, 3], 1, 1, candidates=["a", "b", "c", "d"],
                                      random_state=rng))
    print("AGM sigma for eps 1, delta 1e-5, sensitivity 1:",
          dppack.calibrateAnalyticGaussianMechanism(1, 1e-5, 1))


def pima_summary():
    """Private statistics of the bundled Pima data beside the non-private ones."""
    import pandas as pd

    from dppack.datasets import load_pima

    print("\n== Private summary of the Pima data (n = 532), Python ==")
    pima = load_pima()
    # Public knowledge about the measurements, not read from the data.
    bounds = {"glu": (40, 200), "bp": (30, 120), "bmi": (15, 70), "age": (20, 90)}
    rng = np.random.default_rng(SEED)
    rows = []
    for name, (low, high) in bounds.items():
        x = pima[name].to_numpy(dtype=float)
        rows.append({
            "variable": name,
            "mean": x.mean(), "mean.DP": dppack.meanDP(x, 0.5, low, high, random_state=rng),
            "sd": x.std(ddof=1), "sd.DP": dppack.sdDP(x, 0.5, low, high, random_state=rng),
            "median": np.median(x),
            "median.DP": dppack.medianDP(x, 0.5, low, high, random_state=rng),
        })
    print(pd.DataFrame(rows).to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    print("cov(glu, bmi):", np.cov(pima["glu"], pima["bmi"])[0, 1], "  private:",
          dppack.covDP(pima["glu"], pima["bmi"], 0.5, 40, 200, 15, 70, random_state=rng))
    print("Diabetic (type) counts, true and private:")
    print(pima["type"].value_counts().sort_index().to_string())
    # Declared levels (known beforehand, not taken from the data): every level is a cell.
    diabetic = pd.Series(pd.Categorical(pima["type"], categories=["No", "Yes"]), name="type")
    print(dppack.tableDP(diabetic, eps=0.5, random_state=rng).to_string())

    histogram = dppack.histogramDP(pima["glu"], 1, 40, 200, random_state=rng)
    try:
        import matplotlib

        matplotlib.use("Agg")
        ax = histogram.plot()
    except ImportError:
        print("matplotlib is not installed: no plot (pip install dppack[plot])")
        return
    ax.set_title("Private histogram of plasma glucose (eps = 1), Python")
    ax.set_xlabel("glucose")
    Path("demo-output").mkdir(exist_ok=True)
    ax.figure.savefig("demo-output/pima_glucose_Python.png")
    print("Private histogram saved to demo-output/pima_glucose_Python.png")


def pima_logistic_regression():
    """Private logistic regression with private tuning of gamma, beside a non-private fit."""
    from dppack.datasets import load_pima

    print("\n== Private logistic regression with private tuning, Pima data, Python ==")
    pima = load_pima()
    features = ["glu", "bmi", "ped", "age"]
    upper, lower = [200, 70, 2.5, 90], [40, 15, 0, 20]
    # The first 200 rows are MASS's Pima.tr (the test set here), the other 332 Pima.te.
    train, test = pima.iloc[200:], pima.iloc[:200]
    y_train = (train["type"] == "Yes").to_numpy(dtype=float)
    y_test = (test["type"] == "Yes").to_numpy(dtype=float)
    rng = np.random.default_rng(SEED)
    for eps in (1, 5):
        models = [dppack.LogisticRegressionDP("l2", eps, gamma) for gamma in (0.1, 1, 10, 100)]
        best = dppack.tune_classification_model(models, train[features], y_train, upper, lower,
                                                add_bias=True, random_state=rng)
        accuracy = np.mean(best.predict(test[features], add_bias=True) == y_test)
        print(f"eps = {eps}: selected gamma = {best.gamma:g}, test accuracy {accuracy:.3f}")
    reference = dppack.LogisticRegressionDP("l2", float("inf"), 1e-6).fit(
        train[features], y_train, upper, lower, add_bias=True)
    accuracy = np.mean(reference.predict(test[features], add_bias=True) == y_test)
    print(f"non-private logistic regression (eps = Inf): test accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
    pima_summary()
    pima_logistic_regression()
