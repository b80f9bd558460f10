"""R's dppack_dataset() and Python's Dask path give the same releases (issue 14).

One Parquet dataset (three files of uneven sizes) is written here; each case runs in R on
``dppack_dataset(path)``'s columns inside ``with_random_state(seed, ...)``, and in Python on
``dppack.dask.dataset(path)``'s columns with ``random_state=np.random.default_rng(seed)``.
Both run the same core code on the same Dask graph, so the numbers agree bit for bit; they are
compared to 1e-12 absolute (their scale is at most 1e4), which leaves room only for the order
of Dask's sums. Deterministic: no false failures.
"""

import numpy as np
import pandas as pd
import pytest
from r_session import assert_close, require_r, run_cases_in_r

import dppack

require_r()
pytest.importorskip("dask.dataframe")
import dppack.dask  # noqa: E402

pytestmark = pytest.mark.r

SEED = 20261124
SIZES = (400, 33, 567)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    rng = np.random.default_rng(SEED)
    n = sum(SIZES)
    data = pd.DataFrame({
        "age": rng.integers(18, 91, n).astype(float),
        "x1": rng.uniform(-1, 1, n),
        "x2": rng.uniform(-1, 1, n),
    })
    data["y"] = (data["x1"] - data["x2"] + rng.normal(0, 0.3, n) > 0).astype(float)
    path = tmp_path_factory.mktemp("cross-language-dataset")
    start = 0
    for k, size in enumerate(SIZES):
        data.iloc[start:start + size].to_parquet(path / f"part.{k}.parquet", index=False)
        start += size
    return str(path)


def _cases(folder):
    ds = f"dppack_dataset('{folder}')"

    def frame():
        return dppack.dask.dataset(folder)

    def logistic(rng):
        model = dppack.LogisticRegressionDP("l2", 1, 0.1)
        model.fit(frame()[["x1", "x2"]], frame()["y"], [1, 1], [-1, -1], True,
                  random_state=rng)
        return model.coeff

    return {
        "mean": (f"meanDP({ds}$age, 1, 18, 90)",
                 lambda rng: dppack.meanDP(frame()["age"], 1, 18, 90, random_state=rng)),
        "var_unbounded": (
            f"varDP({ds}[['x1']], 1, -1, 1, which.sensitivity = 'unbounded')",
            lambda rng: dppack.varDP(frame()["x1"], 1, -1, 1, "unbounded", random_state=rng),
        ),
        "cov": (f"covDP({ds}$x1, {ds}$x2, 1, -1, 1, -1, 1)",
                lambda rng: dppack.covDP(frame()["x1"], frame()["x2"], 1, -1, 1, -1, 1,
                                         random_state=rng)),
        "histogram": (f"histogramDP({ds}$age, 1, 18, 90)$counts",
                      lambda rng: dppack.histogramDP(frame()["age"], 1, 18, 90,
                                                     random_state=rng).counts),
        "median": (f"medianDP({ds}$age, 1, 18, 90)",
                   lambda rng: dppack.medianDP(frame()["age"], 1, 18, 90, random_state=rng)),
        "logistic": (
            f"{{m <- LogisticRegressionDP$new('l2', 1, 0.1); "
            f"m$fit({ds}[c('x1', 'x2')], {ds}$y, c(1, 1), c(-1, -1), TRUE); m$coeff}}",
            logistic,
        ),
    }


@pytest.fixture(scope="module")
def cases(folder):
    return _cases(folder)


@pytest.fixture(scope="module")
def r_results(cases):
    return run_cases_in_r(cases, SEED)


@pytest.mark.parametrize(
    "name", ["mean", "var_unbounded", "cov", "histogram", "median", "logistic"]
)
def test_r_dataset_equals_python_dask(name, cases, r_results):
    _, python = cases[name]
    assert_close(r_results[name], python(np.random.default_rng(SEED)), atol=1e-12)
