"""dppack.dask.dataset: a Parquet dataset as a lazy Dask DataFrame, the core of R's
dppack_dataset() (issue 14).

The checks: the frame is lazy (one partition per file, no task run to open it or to check
its columns), the column helpers select what they say in the order given, and every error
(missing path, unknown, repeated or no columns, a path that is not text) is raised before
any data are read: a Dask callback counts the graphs run and must count none. All checks are
deterministic: no false failures.
"""

import os
import pathlib

import numpy as np
import pandas as pd
import pytest

dd = pytest.importorskip("dask.dataframe")
from dask_checks import ComputeCounter  # noqa: E402

from dppack.dask import dataset, dataset_schema, dataset_select  # noqa: E402


def dataset_columns(frame):
    return dataset_schema(frame)["columns"]


def dataset_npartitions(frame):
    return dataset_schema(frame)["npartitions"]

SIZES = (120, 7, 305)  # uneven partitions, one per file


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(20261124)
    n = sum(SIZES)
    return pd.DataFrame({
        "age": rng.integers(18, 91, n).astype(float),
        "income": rng.lognormal(10, 0.6, n),
        "group": rng.choice(["a", "b", "c"], n),
    })


@pytest.fixture(scope="module")
def folder(data, tmp_path_factory):
    path = tmp_path_factory.mktemp("dataset")
    start = 0
    for k, size in enumerate(SIZES):
        data.iloc[start:start + size].to_parquet(path / f"part.{k}.parquet", index=False)
        start += size
    return path


def test_a_dataset_is_lazy_with_one_partition_per_file(folder, data):
    with ComputeCounter() as graphs:
        frame = dataset(str(folder))
        schema = dataset_schema(frame)
        column = dataset_select(frame, "income")
        sub = dataset_select(frame, ["income", "age"])
    assert graphs.count == 0  # nothing computed: only the metadata was read
    assert type(frame).__module__.startswith("dask")
    assert schema["columns"] == ["age", "income", "group"]
    assert schema["dtypes"][:2] == ["float64", "float64"]
    assert schema["npartitions"] == len(SIZES)
    assert column.name == "income" and column.npartitions == len(SIZES)
    assert dataset_columns(sub) == ["income", "age"]
    # The handle reads the same data (checked here by computing them, which users do not).
    np.testing.assert_array_equal(column.compute().to_numpy(), data["income"].to_numpy())
    np.testing.assert_array_equal(sub.compute().to_numpy(),
                                  data[["income", "age"]].to_numpy())


def test_columns_and_path_forms(folder):
    assert dataset_columns(dataset(folder, columns=["group", "age"])) == ["group", "age"]
    assert dataset_columns(dataset(pathlib.Path(folder), columns="age")) == ["age"]
    one_file = os.path.join(folder, "part.1.parquet")
    assert dataset_npartitions(dataset(one_file)) == 1
    # A relative path is read from the working directory.
    here = os.getcwd()
    try:
        os.chdir(folder)
        assert dataset_npartitions(dataset("part.2.parquet")) == 1
    finally:
        os.chdir(here)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda f: dataset(os.path.join(f, "missing")), ValueError,
         "the path does not exist."),
        (lambda f: dataset(f, columns=["age", "wage", "sex"]), ValueError,
         "Columns not in the dataset: wage, sex. Its columns are: age, income, group."),
        (lambda f: dataset(f, columns="wage"), ValueError,
         "Column not in the dataset: wage. Its columns are: age, income, group."),
        (lambda f: dataset(f, columns=["age", "age"]), ValueError,
         "columns names a column more than once: age."),
        (lambda f: dataset(f, columns=[]), ValueError,
         "columns must name at least one column."),
        (lambda f: dataset(f, columns=[1, 2]), TypeError,
         "columns must be a column name or a list of column names."),
        (lambda f: dataset(f, columns=3), TypeError,
         "columns must be a column name or a list of column names."),
        (lambda f: dataset(3.0), TypeError,
         "path must be the path of a Parquet file or directory, as a string."),
        (lambda f: dataset(""), TypeError,
         "path must be the path of a Parquet file or directory, as a string."),
        (lambda f: dataset_select(dataset(f), "wage"), ValueError,
         "Column not in the dataset: wage."),
        (lambda f: dataset_select(dataset(f), 2), TypeError,
         "columns must be a column name or a list of column names."),
        (lambda f: dataset_select(dataset(f), ["income", "wage"]), ValueError,
         "Column not in the dataset: wage."),
    ],
)
def test_errors_before_any_data_are_read(folder, call, error, message):
    with ComputeCounter() as graphs:
        with pytest.raises(error) as caught:
            call(str(folder))
    assert message in str(caught.value)
    assert graphs.count == 0


def test_the_missing_path_is_named(folder):
    missing = os.path.join(folder, "no-such-dataset")
    with pytest.raises(ValueError, match="No Parquet dataset at .*no-such-dataset"):
        dataset(missing)


@pytest.mark.parametrize("select", [lambda f: f[["group"]], lambda f: f["group"]])
def test_thresholded_table_of_a_dataset_column_matches_memory(folder, data, select):
    # The thresholded tableDP (undeclared levels, delta > 0) of one dataset column: pandas
    # counts one column's combinations over a one-level MultiIndex, whose keys are tuples;
    # the release must label its cells with the levels themselves, as in memory.
    from dppack import tableDP

    arguments = dict(eps=0.5, mechanism="Gaussian", delta=1e-5, random_state=3)
    # One file, one partition: no merge of partitions' counts rebuilds the index.
    one_file = dataset(os.path.join(folder, "part.2.parquet"))
    lazy = tableDP(select(dataset_select(one_file, ["group"])), **arguments)
    in_memory = tableDP(data["group"].iloc[SIZES[0] + SIZES[1]:], **arguments)
    pd.testing.assert_series_equal(lazy, in_memory, check_names=False)
    assert list(lazy.index) == ["a", "b", "c"]
