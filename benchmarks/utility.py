"""Utility against the peers (issue 28): dppack, diffprivlib and OpenDP on real data.

For each task, each library's release at eps 0.1, 0.5, 1, 2 and 5 (pure eps-DP everywhere),
repeated ``RUNS`` times; the table gives the median error over the runs with a distribution-free
95% confidence interval of that median (order statistics of the runs: for 50 runs the 18th and
33rd smallest errors, coverage 96.7%). The data sets ship with the installed packages: the
Pima glucose values of ``dppack.datasets`` (n = 532, public bounds [40, 250]) and
scikit-learn's breast-cancer and diabetes sets, plus a synthetic regression problem. Every
library gets the same public bounds, the same train/test split and the same budget; each uses
its own neighbouring notion, named in the table ("replace-one": n public, one record changed;
"add/remove": n private).

Tasks: the mean (n public; n private), the variance, a 21-cell histogram (both notions), the
median and the quartiles (dppack with and without a public ``resolution`` where
``medianDP``/``quantilesDP`` accept one), logistic regression on breast cancer (test error;
dppack's objective and output perturbation), linear regression on diabetes (test RMSE, beside
the mean predictor and OLS) and on synthetic data (1 - held-out R^2; y = 1 + X b + noise, X
uniform on [-1, 1]^20), with an AdaSSP model too when ``dppack`` has one.

The peers are benchmark-only dependencies (never imported by dppack): ``pip install
'dppack[bench]'`` in a separate environment (see benchmarks/README.md); without them the
script measures dppack alone. Run: ``python benchmarks/utility.py`` (about 6 minutes; writes
the tables into benchmarks/README.md and docs/python/guide/utility.md, and the plot into
docs/python/guide/_static/utility.png) or ``--quick`` (5 runs, a small synthetic problem,
under a minute, writes nothing).
"""

import argparse
import importlib.metadata
import inspect
import math
import sys
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from _readme import README, write_table

import dppack

EPS = (0.1, 0.5, 1.0, 2.0, 5.0)
RUNS = 50
ROOT = Path(__file__).resolve().parents[1]
DOCS_PAGE = ROOT / "docs" / "python" / "guide" / "utility.md"
PLOT = ROOT / "docs" / "python" / "guide" / "_static" / "utility.png"
PEERS = ("diffprivlib", "OpenDP")
#: Pima glucose: public bounds and the 21 cells of width 10
GLU_LOWER, GLU_UPPER = 40.0, 250.0
BREAKS = np.linspace(GLU_LOWER, GLU_UPPER, 22)
QUARTILES = (0.25, 0.5, 0.75)
#: synthetic regression: features, held-out rows, noise sd
SYN_D, SYN_TEST, SYN_SD = 20, 100_000, 1.0


# --------------------------------------------------------------------------------------------
# Results


@dataclass
class Method:
    """One library's release for a task: ``run(eps, seed)`` returns its error."""

    library: str
    label: str
    neighbours: str
    run: object


@dataclass
class Task:
    key: str
    title: str
    error: str  # what the error is, for the table and the plot
    methods: list
    references: dict = field(default_factory=dict)  # non-private values of the error
    runs: int = None  # None: the script's number of runs


def ci_ranks(m, level=0.95):
    """The ranks (k, m - k + 1) of the order statistics that bound a distribution-free CI
    of the median of m runs, and its coverage: the largest k with P(Binomial(m, 1/2) < k)
    <= (1 - level)/2 (m = 50: the 18th and 33rd, 96.7%; m = 10: the 2nd and 9th, 97.9%;
    m <= 5: the min and max)."""
    from scipy.stats import binom

    k = 1
    while k + 1 <= m // 2 and binom.cdf(k, m, 0.5) <= (1 - level) / 2:
        k += 1
    return k, m - k + 1, 1.0 - 2.0 * float(binom.cdf(k - 1, m, 0.5))


def median_ci(values, level=0.95):
    """The median of ``values`` and the order-statistic CI of :func:`ci_ranks`."""
    x = np.sort(np.asarray(values, dtype=float))
    low, high, _ = ci_ranks(x.size, level)
    return float(np.median(x)), float(x[low - 1]), float(x[high - 1])


def run_tasks(tasks, eps=EPS, runs=RUNS, verbose=True):
    """errors[task key][method label][eps] = array of the runs' errors."""
    out = {}
    for task in tasks:
        start = time.perf_counter()
        n_runs = task.runs or runs
        out[task.key] = {}
        for method in list(task.methods):
            try:
                out[task.key][method.label] = {
                    e: np.array([method.run(e, seed) for seed in range(n_runs)])
                    for e in eps}
            except Exception as error:  # noqa: BLE001 - one failing release: say, go on
                print(f"  FAILED {method.label}: {type(error).__name__}: {error}")
                task.methods.remove(method)
        if verbose:
            print(f"  {task.title}: {time.perf_counter() - start:.1f} s", flush=True)
    return out


def fmt(value):
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    return f"{value:.3g}"


def results_rows(tasks, errors, eps=EPS):
    """Rows of the full table: task, library (method), neighbours, then per eps
    "median [lo, hi]"; the non-private references as rows of their own."""
    rows = []
    for task in tasks:
        for method in task.methods:
            cells = []
            for e in eps:
                med, lo, hi = median_ci(errors[task.key][method.label][e])
                cells.append(f"{fmt(med)} [{fmt(lo)}, {fmt(hi)}]")
            rows.append([f"{task.title} ({task.error})", method.label, method.neighbours,
                         *cells])
        for name, value in task.references.items():
            rows.append([f"{task.title} ({task.error})", name, "non-private",
                         *([fmt(value)] * len(eps))])
    return rows


def summary_rows(tasks, errors, eps=EPS):
    """Per task and eps: dppack's best median error over its best peer's (ratio; < 1: dppack
    is ahead), "loses" where dppack's CI lies wholly above the peer's, "wins" where wholly
    below. Tasks without a peer measured get "-"."""
    rows = []
    for task in tasks:
        cells = []
        for e in eps:
            best = {}
            for method in task.methods:
                stats = median_ci(errors[task.key][method.label][e])
                kind = "dppack" if method.library == "dppack" else "peer"
                # the lowest median; among equal medians, the lowest upper end of the CI
                if kind not in best or (stats[0], stats[2]) < (best[kind][0][0],
                                                               best[kind][0][2]):
                    best[kind] = (stats, method.label)
            if "peer" not in best or "dppack" not in best:
                cells.append("-")
                continue
            (d_med, d_lo, d_hi), _ = best["dppack"]
            (p_med, p_lo, p_hi), p_label = best["peer"]
            flag = " **loses**" if d_lo > p_hi else (" wins" if d_hi < p_lo else "")
            if p_med > 0:
                value = f"{d_med / p_med:.2f}"
            else:  # the peer's median is exact: no ratio
                value = "1" if d_med == 0 else f"{fmt(d_med)} vs 0"
            cells.append(f"{value}{flag} ({p_label.split(' ')[0]})")
        rows.append([f"{task.title} ({task.error})", *cells])
    return rows


# --------------------------------------------------------------------------------------------
# Data


def pima_glucose():
    from dppack.datasets import load_pima

    return load_pima()["glu"].to_numpy(dtype=float)


def split(X, y, stratify=False):
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.3, random_state=0,
                            stratify=y if stratify else None)


def breast_cancer():
    """Features scaled to [0, 1] by public bounds (the minimum and maximum of each feature
    listed in scikit-learn's description of the data set), then split 70/30 (stratified)."""
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    low, high = X.min(axis=0), X.max(axis=0)
    X = np.clip((X - low) / (high - low), 0.0, 1.0)
    return split(X, y, stratify=True)


def diabetes():
    """scikit-learn's diabetes data (features already centred and scaled), public bounds
    [-0.2, 0.2] on each feature and [0, 350] on y; split 70/30."""
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    return split(X, y), (-0.2, 0.2), (0.0, 350.0)


def synthetic(n, seed=2026):
    """y = 1 + X b + N(0, 1) with X uniform on [-1, 1]^20 and b uniform on [-1, 1]^20 (fixed:
    ||b||^2 = 5.26, so OLS's R^2 is about 0.64); public bounds [-1, 1] on X and 1 +- 4.5
    sd(y) on y, sd(y) = sqrt(||b||^2/3 + 1) from the design ([-6.47, 8.47]; y is clipped
    to them, which moves about 2 values in 10^6); n training rows and 10^5 held-out rows."""
    rng = np.random.default_rng(seed)
    b = rng.uniform(-1.0, 1.0, SYN_D)
    half = 4.5 * math.sqrt(float(b @ b) / 3.0 + SYN_SD ** 2)
    bounds_y = (1.0 - half, 1.0 + half)
    X = rng.uniform(-1.0, 1.0, (n + SYN_TEST, SYN_D))
    y = np.clip(1.0 + X @ b + rng.normal(0.0, SYN_SD, n + SYN_TEST), *bounds_y)
    return (X[:n], X[n:], y[:n], y[n:]), (-1.0, 1.0), bounds_y


# --------------------------------------------------------------------------------------------
# Errors


def interval_error(release, x_sorted, q):
    """Distance from a released q-quantile to the interval of the true ones (every value
    between the lower and the higher empirical q-quantile counts as exact)."""
    lo = np.quantile(x_sorted, q, method="lower")
    hi = np.quantile(x_sorted, q, method="higher")
    return float(max(lo - release, release - hi, 0.0))


def quartile_error(releases, x_sorted):
    return float(np.mean([interval_error(r, x_sorted, q)
                          for r, q in zip(np.ravel(releases), QUARTILES)]))


def r2(y, prediction):
    return 1.0 - float(np.mean((y - prediction) ** 2) / np.var(y))


def rmse(y, prediction):
    return float(np.sqrt(np.mean((y - prediction) ** 2)))


def right_closed_counts(x):
    """Counts in R's cells (right-closed, the first one closed), as histogramDP counts."""
    idx = np.searchsorted(BREAKS, x, side="left") - 1
    return np.bincount(np.clip(idx, 0, BREAKS.size - 2), minlength=BREAKS.size - 1)


def left_closed_counts(x):
    """Counts in NumPy's cells (left-closed, the last one closed)."""
    return np.histogram(x, bins=BREAKS)[0]


def accepts(function, name):
    try:
        return name in inspect.signature(function).parameters
    except (TypeError, ValueError):
        return False


# --------------------------------------------------------------------------------------------
# dppack


def dppack_methods(task, data):
    """dppack's releases for ``task`` (a list of Method)."""
    glu = data["glu"]
    L, U = GLU_LOWER, GLU_UPPER
    if task == "mean_public":
        true = glu.mean()
        return [Method("dppack", "dppack meanDP", "replace-one",
                       lambda e, s: abs(dppack.meanDP(glu, e, L, U, random_state=s) - true))]
    if task == "mean_private":
        true = glu.mean()
        return [Method("dppack", "dppack meanDP unbounded", "add/remove",
                       lambda e, s: abs(dppack.meanDP(glu, e, L, U, "unbounded",
                                                      random_state=s) - true))]
    if task == "variance":
        true = glu.var(ddof=1)
        return [Method("dppack", "dppack varDP", "replace-one",
                       lambda e, s: abs(dppack.varDP(glu, e, L, U, random_state=s) - true))]
    if task in ("hist_addremove", "hist_replace"):
        which = "unbounded" if task == "hist_addremove" else "bounded"
        true = right_closed_counts(glu)

        def hist(e, s):
            h = dppack.histogramDP(glu, e, L, U, breaks=BREAKS, which_sensitivity=which,
                                   random_state=s)
            return float(np.abs(np.asarray(h.counts, dtype=float) - true).sum())

        return [Method("dppack", "dppack histogramDP",
                       "add/remove" if which == "unbounded" else "replace-one", hist)]
    x_sorted = np.sort(glu)
    if task == "median":
        out = [Method("dppack", "dppack medianDP", "both",
                      lambda e, s: interval_error(dppack.medianDP(glu, e, L, U, random_state=s),
                                                  x_sorted, 0.5))]
        if accepts(dppack.medianDP, "resolution"):
            out.append(Method("dppack", "dppack medianDP resolution=1", "both",
                              lambda e, s: interval_error(
                                  dppack.medianDP(glu, e, L, U, random_state=s, resolution=1),
                                  x_sorted, 0.5)))
            out.append(Method("dppack", "dppack medianDP resolution=1 unbounded", "add/remove",
                              lambda e, s: interval_error(
                                  dppack.medianDP(glu, e, L, U, which_sensitivity="unbounded",
                                                  random_state=s, resolution=1),
                                  x_sorted, 0.5)))
        return out
    if task == "quartiles":
        out = [Method("dppack", "dppack quantilesDP joint", "both",
                      lambda e, s: quartile_error(dppack.quantilesDP(
                          glu, list(QUARTILES), e, L, U, method="joint", random_state=s),
                          x_sorted))]
        if accepts(dppack.quantilesDP, "resolution"):
            # the joint method where it takes a resolution, else the default (recursive)
            for method in ("joint", "recursive"):
                try:
                    dppack.quantilesDP(glu, list(QUARTILES), 1.0, L, U, method=method,
                                       random_state=0, resolution=1)
                except ValueError:
                    continue
                out.append(Method(
                    "dppack", f"dppack quantilesDP {method} resolution=1", "both",
                    lambda e, s, method=method: quartile_error(dppack.quantilesDP(
                        glu, list(QUARTILES), e, L, U, method=method, random_state=s,
                        resolution=1), x_sorted)))
                break
            for method in ("recursive", "independent"):
                out.append(Method(
                    "dppack", f"dppack quantilesDP {method} resolution=1 unbounded",
                    "add/remove",
                    lambda e, s, method=method: quartile_error(dppack.quantilesDP(
                        glu, list(QUARTILES), e, L, U, method=method,
                        which_sensitivity="unbounded", random_state=s, resolution=1),
                        x_sorted)))
        return out
    if task == "logistic":
        Xtr, Xte, ytr, yte = data["cancer"]
        d = Xtr.shape[1]

        def logistic(method):
            def fit(e, s):
                model = dppack.LogisticRegressionDP("l2", e, 1.0, perturbation_method=method)
                model.fit(Xtr, ytr, upper_bounds=np.ones(d), lower_bounds=np.zeros(d),
                          add_bias=True, random_state=s)
                return float(np.mean(model.predict(Xte, add_bias=True) != yte))
            return fit

        return [Method("dppack", f"dppack LogisticRegressionDP {m}", "replace-one",
                       logistic(m)) for m in ("objective", "output")]
    if task in ("diabetes", "synthetic"):
        (Xtr, Xte, ytr, yte), (xl, xu), (yl, yu) = data[task]
        score = rmse if task == "diabetes" else lambda y, p: 1.0 - r2(y, p)
        d = Xtr.shape[1]
        upper, lower = [xu] * d + [yu], [xl] * d + [yl]

        def kst(e, s):
            model = dppack.LinearRegressionDP("l2", e, 0.0, 1.0)
            model.fit(Xtr, ytr, upper, lower, add_bias=True, random_state=s)
            return score(yte, model.predict(Xte, add_bias=True))

        out = [Method("dppack", "dppack LinearRegressionDP", "replace-one", kst)]
        adassp = adassp_method(Xtr, Xte, ytr, yte, (xl, xu), (yl, yu), score)
        if adassp is not None:
            out.append(adassp)
        return out
    raise KeyError(task)


def adassp_class():
    """A dppack model whose name contains "AdaSSP" (another piece of issue 28), or None."""
    for name in sorted(dir(dppack)):
        if "adassp" in name.lower() and inspect.isclass(getattr(dppack, name)):
            return getattr(dppack, name)
    return None


def adassp_method(Xtr, Xte, ytr, yte, xb, yb, score):
    """The AdaSSP model called by the names its signature uses (eps, delta = 0, bounds as
    LinearRegressionDP's, add_bias, random_state); None if dppack has none or the call fails."""
    cls = adassp_class()
    if cls is None:
        return None
    d = Xtr.shape[1]
    upper, lower = [xb[1]] * d + [yb[1]], [xb[0]] * d + [yb[0]]

    def fit(e, s):
        init = inspect.signature(cls).parameters
        kwargs = {"eps": e}
        if "delta" in init:
            kwargs["delta"] = 0.0
        model = cls(**kwargs)
        fit_params = inspect.signature(model.fit).parameters
        extra = {k: v for k, v in (("add_bias", True), ("random_state", s))
                 if k in fit_params}
        model.fit(Xtr, ytr, upper, lower, **extra)
        pred = (model.predict(Xte, add_bias=True) if accepts(model.predict, "add_bias")
                else model.predict(Xte))
        return score(yte, pred)

    try:
        fit(1.0, 0)
    except Exception as error:  # noqa: BLE001 - an unknown API: report and skip
        print(f"  ({cls.__name__} skipped: {type(error).__name__}: {error})")
        return None
    return Method("dppack", f"dppack {cls.__name__}", "replace-one", fit)


# --------------------------------------------------------------------------------------------
# diffprivlib (IBM): tools.mean/var/sum/count_nonzero/histogram/median/quantile, models


def diffprivlib_methods(task, data):
    import diffprivlib.models as dm
    import diffprivlib.tools as dt

    glu = data["glu"]
    bounds = (GLU_LOWER, GLU_UPPER)
    n = glu.size
    if task == "mean_public":
        true = glu.mean()
        return [Method("diffprivlib", "diffprivlib tools.mean", "replace-one",
                       lambda e, s: abs(dt.mean(glu, e, bounds, random_state=s) - true))]
    if task == "mean_private":
        true = glu.mean()

        def ratio(e, s):
            rng = np.random.default_rng(s)
            total = dt.sum(glu, e / 2, bounds, random_state=int(rng.integers(2**31)))
            count = dt.count_nonzero(glu, e / 2, random_state=int(rng.integers(2**31)))
            return abs(float(np.clip(total / max(count, 1), *bounds)) - true)

        return [Method("diffprivlib", "diffprivlib tools.sum / count_nonzero", "add/remove",
                       ratio)]
    if task == "variance":
        true = glu.var(ddof=1)
        # tools.var releases the variance with divisor n: times n/(n - 1) (post-processing)
        return [Method("diffprivlib", "diffprivlib tools.var", "replace-one",
                       lambda e, s: abs(dt.var(glu, e, bounds, random_state=s) * n / (n - 1)
                                        - true))]
    if task in ("hist_addremove", "hist_replace"):
        true = left_closed_counts(glu)
        # its histogram is private for add/remove (sensitivity 1); a replacement moves a
        # record between two cells (L1 sensitivity 2), so replace-one gets eps/2
        share = 1.0 if task == "hist_addremove" else 0.5
        return [Method("diffprivlib", "diffprivlib tools.histogram",
                       "add/remove" if share == 1.0 else "replace-one (eps/2)",
                       lambda e, s: float(np.abs(dt.histogram(
                           glu, e * share, bins=21, range=bounds, random_state=s)[0]
                           - true).sum()))]
    x_sorted = np.sort(glu)
    if task == "median":
        return [Method("diffprivlib", "diffprivlib tools.median", "both",
                       lambda e, s: interval_error(dt.median(glu, e, bounds, random_state=s),
                                                   x_sorted, 0.5))]
    if task == "quartiles":
        # three quantiles at eps/3 each (its own split)
        return [Method("diffprivlib", "diffprivlib tools.quantile", "both",
                       lambda e, s: quartile_error(dt.quantile(
                           glu, list(QUARTILES), e, bounds, random_state=s), x_sorted))]
    if task == "logistic":
        Xtr, Xte, ytr, yte = data["cancer"]
        norm = math.sqrt(Xtr.shape[1])  # rows in [0, 1]^30

        def fit(e, s):
            model = dm.LogisticRegression(epsilon=e, data_norm=norm, C=1.0, random_state=s)
            model.fit(Xtr, ytr)
            return float(np.mean(model.predict(Xte) != yte))

        return [Method("diffprivlib", "diffprivlib LogisticRegression", "replace-one", fit)]
    if task in ("diabetes", "synthetic"):
        (Xtr, Xte, ytr, yte), xb, yb = data[task]
        score = rmse if task == "diabetes" else lambda y, p: 1.0 - r2(y, p)

        def fit(e, s):
            model = dm.LinearRegression(epsilon=e, bounds_X=xb, bounds_y=yb, random_state=s)
            model.fit(Xtr, ytr)
            return score(yte, model.predict(Xte))

        return [Method("diffprivlib", "diffprivlib LinearRegression", "replace-one", fit)]
    raise KeyError(task)


# --------------------------------------------------------------------------------------------
# OpenDP: measurements chained from transformations, scales found by binary search


def opendp_methods(task, data):
    import opendp.prelude as dp

    dp.enable_features("contrib")
    glu = data["glu"]
    L, U = GLU_LOWER, GLU_UPPER
    n = glu.size
    values = [float(v) for v in glu]
    unsized = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    sized = dp.vector_domain(dp.atom_domain(T=float, nan=False), size=n)
    sym = dp.symmetric_distance()
    cache = {}

    def calibrated(key, chain, d_in, eps):
        """The measurement ``chain(scale)`` with its loss at ``d_in`` equal to eps (built
        once per eps; OpenDP draws from its own CSPRNG: runs are not seeded)."""
        if (key, eps) not in cache:
            cache[key, eps] = dp.binary_search_chain(chain, d_in=d_in, d_out=eps)
        return cache[key, eps]

    if task == "mean_public":
        true = glu.mean()
        chain = lambda scale: (dp.t.make_clamp(sized, sym, (L, U)) >> dp.t.then_mean()  # noqa
                               >> dp.m.then_laplace(scale=scale))
        return [Method("OpenDP", "OpenDP mean (sized)", "replace-one",
                       lambda e, s: abs(calibrated("mean", chain, 2, e)(values) - true))]
    if task == "mean_private":
        true = glu.mean()
        total = lambda scale: (dp.t.make_clamp(unsized, sym, (L, U)) >> dp.t.then_sum()  # noqa
                               >> dp.m.then_laplace(scale=scale))
        count = lambda scale: (dp.t.make_count(unsized, sym)  # noqa: E731
                               >> dp.m.then_laplace(scale=scale))

        def ratio(e, s):
            t = calibrated("sum", total, 1, e / 2)(values)
            c = calibrated("count", count, 1, e / 2)(values)
            return abs(float(np.clip(t / max(c, 1), L, U)) - true)

        return [Method("OpenDP", "OpenDP sum / count", "add/remove", ratio)]
    if task == "variance":
        true = glu.var(ddof=1)
        chain = lambda scale: (dp.t.make_clamp(sized, sym, (L, U))  # noqa: E731
                               >> dp.t.then_variance() >> dp.m.then_laplace(scale=scale))
        return [Method("OpenDP", "OpenDP variance (sized)", "replace-one",
                       lambda e, s: abs(calibrated("var", chain, 2, e)(values) - true))]
    if task in ("hist_addremove", "hist_replace"):
        true = left_closed_counts(glu)
        # cells as NumPy's (a public, record-by-record map), then counts by category
        cells = [int(c) for c in np.clip(np.searchsorted(BREAKS, glu, side="right") - 1, 0, 20)]
        domain = dp.vector_domain(dp.atom_domain(T=int))
        chain = lambda scale: (dp.t.make_count_by_categories(  # noqa: E731
            domain, sym, categories=list(range(21)), null_category=False)
            >> dp.m.then_laplace(scale=scale))
        d_in = 1 if task == "hist_addremove" else 2

        def hist(e, s):
            counts = np.maximum(np.asarray(calibrated("hist", chain, d_in, e)(cells), float), 0)
            return float(np.abs(counts - true).sum())

        return [Method("OpenDP", "OpenDP count_by_categories",
                       "add/remove" if d_in == 1 else "replace-one", hist)]
    x_sorted = np.sort(glu)
    # the candidates: the integers of the bounds (a public resolution of 1)
    candidates = [float(c) for c in range(int(L), int(U) + 1)]

    def quantile(alpha, domain):
        return lambda scale: dp.m.make_private_quantile(  # noqa: E731
            domain, sym, dp.max_divergence(), candidates=candidates, alpha=alpha, scale=scale)

    # replace-one: n public (sized data, a replacement is 2 in the symmetric distance), as
    # dppack's default; add/remove: the score's sensitivity is max(alpha, 1 - alpha) there,
    # half of replace-one's for the median
    notions = (("replace-one", sized, 2), ("add/remove", unsized, 1))
    if task == "median":
        return [Method("OpenDP", f"OpenDP private_quantile ({notion})", notion,
                       lambda e, s, dom=dom, d_in=d_in, notion=notion: interval_error(
                           calibrated((0.5, notion), quantile(0.5, dom), d_in, e)(values),
                           x_sorted, 0.5))
                for notion, dom, d_in in notions]
    if task == "quartiles":
        return [Method("OpenDP", f"OpenDP private_quantile x3 ({notion})", notion,
                       lambda e, s, dom=dom, d_in=d_in, notion=notion: quartile_error(
                           [calibrated((q, notion), quantile(q, dom), d_in, e / 3)(values)
                            for q in QUARTILES], x_sorted))
                for notion, dom, d_in in notions]
    return []  # no logistic or multivariate linear regression in OpenDP's core


# --------------------------------------------------------------------------------------------


TASKS = [
    ("mean_public", "mean, n public", "abs. error, mg/dL"),
    ("mean_private", "mean, n private", "abs. error, mg/dL"),
    ("variance", "variance", "abs. error, (mg/dL)^2"),
    ("hist_addremove", "histogram, 21 cells, add/remove", "L1 error, counts"),
    ("hist_replace", "histogram, 21 cells, replace-one", "L1 error, counts"),
    ("median", "median", "abs. error, mg/dL"),
    ("quartiles", "quartiles", "mean abs. error, mg/dL"),
    ("logistic", "logistic regression, breast cancer", "test error rate"),
    ("diabetes", "linear regression, diabetes", "test RMSE"),
    ("synthetic", "linear regression, synthetic", "1 - held-out R^2"),
]


def available_peers():
    found = []
    for name, module in (("diffprivlib", "diffprivlib"), ("OpenDP", "opendp")):
        try:
            __import__(module)
            found.append(name)
        except Exception:  # noqa: BLE001 - a broken install counts as missing
            pass
    return found


def versions(libraries):
    names = {"dppack": "dppack", "diffprivlib": "diffprivlib", "OpenDP": "opendp"}
    out = {lib: importlib.metadata.version(names[lib]) if lib != "dppack"
           else dppack.__version__ for lib in libraries}
    out["scikit-learn"] = importlib.metadata.version("scikit-learn")
    out["numpy"] = np.__version__
    return out


def references(key, data):
    """The non-private values of a task's error (models only)."""
    from sklearn.linear_model import LinearRegression, LogisticRegression

    if key == "logistic":
        Xtr, Xte, ytr, yte = data["cancer"]
        model = LogisticRegression(C=1.0, max_iter=1000).fit(Xtr, ytr)
        return {"scikit-learn LogisticRegression": float(np.mean(model.predict(Xte) != yte))}
    if key in ("diabetes", "synthetic"):
        (Xtr, Xte, ytr, yte), _, _ = data[key]
        score = rmse if key == "diabetes" else lambda y, p: 1.0 - r2(y, p)
        ols = LinearRegression().fit(Xtr, ytr)
        return {"mean predictor": score(yte, np.full(yte.size, ytr.mean())),
                "OLS": score(yte, ols.predict(Xte))}
    return {}


def build_tasks(libraries=("dppack", *PEERS), synthetic_n=1_000_000, synthetic_runs=None,
                keys=None):
    """The tasks with the methods of ``libraries`` (the peers that are importable)."""
    data = {"glu": pima_glucose(), "cancer": breast_cancer(), "diabetes": diabetes(),
            "synthetic": synthetic(synthetic_n)}
    makers = {"dppack": dppack_methods, "diffprivlib": diffprivlib_methods,
              "OpenDP": opendp_methods}
    tasks = []
    for key, title, error in TASKS:
        if keys is not None and key not in keys:
            continue
        methods = []
        for library in libraries:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                methods += makers[library](key, data)
        if key == "synthetic":
            title = f"{title} n = {synthetic_n:,} x {SYN_D}"
        tasks.append(Task(key, title, error, methods, references(key, data),
                          runs=synthetic_runs if key == "synthetic" else None))
    return tasks


def plot(tasks, errors, eps, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"dppack": "tab:blue", "diffprivlib": "tab:orange", "OpenDP": "tab:green"}
    styles = ["-", "--", ":", "-."]
    cols = 2
    rows = math.ceil(len(tasks) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(11, 3.1 * rows), squeeze=False)
    for ax, task in zip(axes.flat, tasks):
        stats = {m.label: np.array([median_ci(errors[task.key][m.label][e]) for e in eps])
                 for m in task.methods}
        regression = task.key in ("diabetes", "synthetic")
        if regression:  # zoom on dppack and the best reference; a peer beyond is marked
            shown = [stats[m.label] for m in task.methods if m.library == "dppack"]
            best_ref = min(task.references.values())
            top = 1.15 * max([best_ref, *(s[:, 2].max() for s in shown)])
            bottom = 0.95 * min([best_ref, *(s[:, 1].min() for s in shown)])
        seen = {}
        for method in task.methods:
            st = stats[method.label]
            style = styles[seen.get(method.library, 0) % len(styles)]
            seen[method.library] = seen.get(method.library, 0) + 1
            label = method.label
            if regression and st[:, 0].max() > top:
                label += " (off the scale)"
            ax.errorbar(eps, st[:, 0], yerr=[st[:, 0] - st[:, 1], st[:, 2] - st[:, 0]],
                        color=colours[method.library], linestyle=style, marker="o",
                        markersize=3, capsize=2, label=label)
        for i, (name, value) in enumerate(task.references.items()):
            off = regression and not bottom <= value <= top
            ax.axhline(value, color="grey", linestyle=styles[i % len(styles)], linewidth=1,
                       label=name + (" (off the scale)" if off else ""))
        ax.set_xscale("log")
        ax.set_xticks(list(eps))
        ax.set_xticklabels([f"{e:g}" for e in eps])
        ax.minorticks_off()
        if regression:
            ax.set_ylim(bottom, top)
        elif task.key == "logistic":
            ax.set_ylim(bottom=0)
        else:
            ax.set_yscale("symlog", linthresh=1e-2)
            ax.set_ylim(bottom=0)
        ax.set_title(task.title, fontsize=9)
        ax.set_xlabel("eps", fontsize=8)
        ax.set_ylabel(task.error, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=6)
    for ax in list(axes.flat)[len(tasks):]:
        ax.set_visible(False)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)
    print(f"(plot written to {path})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="5 runs, small synthetic data")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--synthetic-n", type=int, default=None)
    parser.add_argument("--synthetic-runs", type=int, default=None)
    parser.add_argument("--dppack-only", action="store_true")
    parser.add_argument("--tasks", nargs="+", choices=[key for key, _, _ in TASKS],
                        help="only these tasks (writes nothing)")
    args = parser.parse_args(argv)
    runs = args.runs or (5 if args.quick else RUNS)
    syn_n = args.synthetic_n or (20_000 if args.quick else 1_000_000)
    syn_runs = args.synthetic_runs or (runs if args.quick else 10)
    libraries = ["dppack"] + ([] if args.dppack_only else available_peers())
    found = versions(libraries)
    print("Versions: " + ", ".join(f"{k} {v}" for k, v in found.items()))
    print(f"{runs} runs per eps ({syn_runs} for the synthetic regression), eps {EPS}")
    start = time.perf_counter()
    tasks = build_tasks(libraries, syn_n, syn_runs, keys=args.tasks)
    errors = run_tasks(tasks, EPS, runs)
    total = time.perf_counter() - start
    header = ["task (error)", "library, method", "neighbours", *(f"eps {e:g}" for e in EPS)]
    rows = results_rows(tasks, errors)
    summary = summary_rows(tasks, errors)
    from _readme import markdown_table

    print(markdown_table(header, rows))
    print()
    print(markdown_table(["task (error)", *(f"eps {e:g}" for e in EPS)], summary))
    print(f"\nTotal {total:.0f} s")
    if args.quick or args.runs or args.dppack_only or args.tasks:
        return tasks, errors
    k, _, cover = ci_ranks(runs)
    k_syn, h_syn, cover_syn = ci_ranks(syn_runs)
    note = (f"Median error over {runs} runs [CI of the median: order statistics {k} and "
            f"{runs - k + 1} of the {runs} errors, coverage {cover:.1%}] ({syn_runs} runs "
            f"for the synthetic regression: order statistics {k_syn} and {h_syn}, "
            f"{cover_syn:.1%}); "
            "lower is better. Versions: " + ", ".join(f"{k} {v}" for k, v in found.items())
            + f". Whole run {total / 60:.1f} min.")
    note_summary = ("dppack's best median error over the best peer's (the peer named); "
                    "< 1: dppack is ahead. **loses**: dppack's CI lies wholly above the "
                    "peer's; wins: wholly below.")
    for path in (README, DOCS_PAGE):
        write_table("utility", header, rows, note=note, path=path)
        write_table("utility_summary", ["task (error)", *(f"eps {e:g}" for e in EPS)],
                    summary, note=note_summary, path=path)
    plot(tasks, errors, EPS, PLOT)
    return tasks, errors


if __name__ == "__main__":
    sys.exit(main() and None)
