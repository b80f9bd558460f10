"""The ERM models fitted on Dask data (issue 14; ``dppack.dask._erm``).

What is checked:

* every model x perturbation x kernel (LogisticRegressionDP, svmDP linear and Gaussian,
  weighted svmDP, LinearRegressionDP with delta = 0 and > 0) on a Dask array of uneven chunks
  and on a Dask DataFrame whose chunk sizes are unknown: the same coefficients as in memory
  for the same random_state (CMS models: 1e-10 relative; LinearRegressionDP: its statistics
  X'X, X'y, y'y, n to 1e-12 and the coefficients to 1e-7, the certified tolerance of its
  constrained solver, which moves the in-memory result by as much when the rows are merely
  permuted), the same accountant charge and ``privacy_``;
* the passes: the private ``_n_passes`` equals the number of ``dask.compute`` calls of the fit, each
  returns only small reductions (never the data), LinearRegressionDP takes exactly one, the
  CMS models at most :data:`MAX_PASSES`;
* the errors: the in-memory messages for NaN in X (in the last chunk), labels other than 0/1,
  y and weights of the wrong length or values, bounds of the wrong length (no pass at all),
  partitions that differ; before any draw (the generator untouched, also for the Gaussian
  kernel whose features are drawn after the checks) and before any charge;
* predict: a lazy Dask array, equal to the in-memory predict; its checks before any compute;
* the refusals: models with the user's own functions, tuning and the scikit-learn estimators
  refuse Dask data with a TypeError, computing nothing.

Deterministic: fixed seeds, no statistical test (the release is the in-memory release, whose
law the in-memory tests and the privacy audits check).
"""

import math

import numpy as np
import pandas as pd
import pytest
from generator_checks import advanced_generator, raises_exactly, untouched_generator

import dppack
from dppack.erm import kst

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
import dask  # noqa: E402  (after the importorskip)

N, P = 3000, 3
CHUNKS = (700, 1100, 300, 900)  # uneven
UPPER, LOWER = [2.0, 2.0, 2.0], [-2.0, -2.0, -2.0]
Y_BOUNDS = (5.0, -5.0)
MAX_PASSES = 40  # the CMS fits here take 9-17


def _data(seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2.5, 2.5, size=(N, P))  # some values beyond the bounds: clipped
    score = X @ [1.0, -1.0, 0.5]
    y = (score + rng.normal(size=N) > 0).astype(float)
    target = score + rng.normal(size=N)
    weights = rng.uniform(0.0, 3.0, size=N)
    return X, y, target, weights


def _dask_arrays(*arrays):
    return [da.from_array(a, chunks=(CHUNKS,) + ((P,) if a.ndim == 2 else ())) for a in arrays]


def _dask_frame(X, y, target, weights):
    """A Dask DataFrame whose partitions have unknown sizes (after a filter)."""
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y, t=target, w=weights)
    frame = dd.from_pandas(frame, npartitions=5)
    frame = frame[frame["a"] > -10.0]  # keeps every row, forgets the sizes
    return frame[["a", "b", "c"]], frame["y"], frame["t"], frame["w"]


# name: (constructor, fit keyword arguments beyond the data, target as y, weighted)
CASES = {
    "logistic-objective": (lambda: dppack.LogisticRegressionDP("l2", 1.0, 1.0, "objective"),
                           False, False),
    "logistic-output": (lambda: dppack.LogisticRegressionDP("l2", 1.0, 1.0, "output"),
                        False, False),
    "svm-objective": (lambda: dppack.svmDP("l2", 1.0, 1.0, "objective"), False, False),
    "svm-output": (lambda: dppack.svmDP("l2", 1.0, 1.0, "output"), False, False),
    "svm-weighted": (lambda: dppack.svmDP("l2", 1.0, 1.0, "output"), False, True),
    "svm-gaussian-objective": (lambda: dppack.svmDP("l2", 1.0, 1.0, "objective",
                                                    kernel="Gaussian", D=15), False, False),
    "svm-gaussian-output": (lambda: dppack.svmDP("l2", 1.0, 1.0, "output", kernel="Gaussian",
                                                 D=15), False, True),
    "linear-pure": (lambda: dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0), True, False),
    "linear-approx": (lambda: dppack.LinearRegressionDP("l2", 1.0, 1e-5, 1.0), True, False),
}


def _bounds(regression):
    if regression:
        return UPPER + [Y_BOUNDS[0]], LOWER + [Y_BOUNDS[1]]
    return UPPER, LOWER


def _fit(name, X, y, target, weights, seed=3, **kwargs):
    make, regression, weighted = CASES[name]
    upper, lower = _bounds(regression)
    extra = {"weights": weights, "weights_upper_bound": 2.0} if weighted else {}
    return make().fit(X, target if regression else y, upper, lower, True, random_state=seed,
                      **extra, **kwargs)


class ComputeLog:
    """Counts ``dask.compute`` calls and the size of what they return."""

    def __init__(self, monkeypatch):
        self.calls, self.largest = 0, 0
        original = dask.compute

        def compute(*args, **kwargs):
            results = original(*args, **kwargs)
            self.calls += 1
            self.largest = max([self.largest] + [np.size(r) for r in results if r is not None])
            return results

        monkeypatch.setattr(dask, "compute", compute)


def _close(memory, on_dask, regression):
    if regression:  # the constrained solver's tolerance (ERM guide, "Solver numerics"), which can move
        # the minimiser across a point of the release grid (dppack.erm._approximate): the
        # grid is at most 2^-20 of the release noise's scale, about 1e-7 relative here
        np.testing.assert_allclose(on_dask, memory, rtol=1e-6, atol=1e-9)
    else:
        np.testing.assert_allclose(on_dask, memory, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("kind", ["array", "frame"])
@pytest.mark.parametrize("name", list(CASES))
def test_fit_equals_memory(name, kind, monkeypatch):
    X, y, target, weights = _data()
    memory = _fit(name, X, y, target, weights)
    assert memory._n_passes is None
    data = _dask_arrays(X, y, target, weights) if kind == "array" else _dask_frame(
        X, y, target, weights)
    log = ComputeLog(monkeypatch)
    budget = dppack.BudgetAccountant(5.0, 1e-3)
    on_dask = _fit(name, *data, accountant=budget)
    _close(memory.coeff, on_dask.coeff, CASES[name][1])
    assert on_dask.privacy_ == memory.privacy_
    assert budget.ledger == [(f"{type(on_dask).__name__}.fit", memory.privacy_)]
    # the passes: one compute each, of small reductions only
    assert on_dask._n_passes == log.calls
    assert log.largest <= 20 * 20 + 20 + 10  # a Hessian, a gradient, the checks: never data
    if CASES[name][1]:
        assert on_dask._n_passes == 1
    else:
        assert 2 <= on_dask._n_passes <= MAX_PASSES
    if name.startswith("svm-gaussian"):
        np.testing.assert_array_equal(on_dask.prefilter, memory.prefilter)


@pytest.mark.parametrize("add_bias", [True, False])
@pytest.mark.parametrize("block_rows", [None, 97])
def test_regression_statistics_equal_memory(add_bias, block_rows, monkeypatch):
    """The one pass of LinearRegressionDP: n, X'X, X'y, y'y of the scaled design, with and
    without the bias column (whose row of X'X comes from the product x'[t, 1]), in one block
    of rows per partition and in many (97 rows: a partial last block)."""
    from dppack.dask import _erm as erm

    if block_rows:
        monkeypatch.setattr(erm, "GRAM_ROWS", block_rows)
    X, _, target, _ = _data()
    upper, lower = _bounds(True)
    memory = dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0)
    stats = kst.GramStatistics.of(*memory._preprocess_data(X, target, upper, lower,
                                                           add_bias))
    model = dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0)
    Xd, td = _dask_frame(X, target, target, target)[:2]
    on_dask, _ = model._preprocess_data(Xd, td, upper, lower, add_bias)
    assert (on_dask.n, on_dask.passes) == (N, 1)
    for a, b in [(stats.gram, on_dask.gram), (stats.cross, on_dask.cross),
                 (stats.yy, on_dask.yy)]:
        np.testing.assert_allclose(b, a, rtol=1e-12)


def test_no_noise_fits_agree():
    """eps = Inf: the minimisers themselves agree (the non-noisy part)."""
    X, y, _, _ = _data(1)
    for make in (lambda: dppack.LogisticRegressionDP("l2", math.inf, 0.5),
                 lambda: dppack.svmDP("l2", math.inf, 0.5, "output")):
        memory = make().fit(X, y, UPPER, LOWER, False)
        on_dask = make().fit(*_dask_arrays(X, y), UPPER, LOWER, False)
        np.testing.assert_allclose(on_dask.coeff, memory.coeff, rtol=1e-10)


def test_parquet_columns(tmp_path):
    """X and y as columns of one Parquet dataset: Dask may read one column in fewer
    partitions than several (here 2 against 3), so they are joined into one frame first."""
    X, y, target, weights = _data(4)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y, t=target, w=weights)
    for i, rows in enumerate(np.array_split(np.arange(N), 6)):
        frame.iloc[rows].to_parquet(tmp_path / f"part{i}.parquet")
    data = dd.read_parquet(str(tmp_path))
    assert data["y"].to_dask_array().numblocks[0] != data[["a", "b", "c"]].to_dask_array(
    ).numblocks[0]  # the case this test is for
    for name in ("svm-weighted", "linear-pure"):
        memory = _fit(name, X, y, target, weights)
        on_dask = _fit(name, data[["a", "b", "c"]], data["y"], data["t"], data["w"])
        _close(memory.coeff, on_dask.coeff, CASES[name][1])
    # the same two columns as plain Dask arrays: refused, never broadcast
    with raises_exactly("X, y and weights must be partitioned alike (the same rows in each "
                        "partition, as the columns of one Dask DataFrame are)."):
        dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(
            data[["a", "b", "c"]].to_dask_array(), data["y"].to_dask_array(), UPPER, LOWER)


@pytest.mark.parametrize("block_rows", [None, 97])
@pytest.mark.parametrize("name", ["logistic-objective", "svm-weighted", "linear-pure",
                                  "svm-gaussian-output"])
def test_partitions_inside_and_beyond_the_bounds(name, block_rows, tmp_path, monkeypatch):
    """Partitions whose values all lie within the bounds are read as they are (no clipped
    copy), the others clipped: both give the in-memory fit (the design, bias column and
    scaling included). The columns come from one Parquet dataset, read together (one
    block per column), in one block of rows per partition and in many (97 rows)."""
    from dppack.dask import _erm as erm

    if block_rows:
        monkeypatch.setattr(erm, "GRAM_ROWS", block_rows)
        monkeypatch.setattr(erm, "SUM_ROWS", block_rows)
    X, y, target, weights = _data(5)
    X[:N // 2] = np.clip(X[:N // 2], -1.9, 1.9)  # the first partitions: inside the bounds
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y, t=target, w=weights)
    for i, rows in enumerate(np.array_split(np.arange(N), 4)):
        frame.iloc[rows].to_parquet(tmp_path / f"part{i}.parquet")
    data = dd.read_parquet(str(tmp_path))
    memory = _fit(name, X, y, target, weights)
    on_dask = _fit(name, data[["a", "b", "c"]], data["y"], data["t"], data["w"])
    _close(memory.coeff, on_dask.coeff, CASES[name][1])


@pytest.mark.parametrize("case", ["nan-X", "inf-X-regression", "inf-X-nan-target",
                                  "nan-target"])
def test_parquet_columns_errors(case, tmp_path, monkeypatch):
    """The checks on a Parquet dataset's columns (read one block per column): X's
    finiteness from the sums' range check, or apart when y fails its own; the in-memory
    message, nothing drawn."""
    name, (X, y, target, weights), message = _bad_inputs()[case]
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y, t=target, w=weights)
    for i, rows in enumerate(np.array_split(np.arange(N), 3)):
        frame.iloc[rows].to_parquet(tmp_path / f"part{i}.parquet")
    data = dd.read_parquet(str(tmp_path))
    log = ComputeLog(monkeypatch)
    with untouched_generator(0) as rng, raises_exactly(message):
        _fit(name, data[["a", "b", "c"]], data["y"], data["t"], data["w"], seed=rng)
    assert log.calls == 1


def test_columns_of_one_dataset_read_together(tmp_path):
    """X, y and weights taken as columns of one Dask DataFrame are reduced from the
    partitions of one selection of its columns (no join by assign, which copies every
    partition); the fit reads each partition's float64 values without copying them: a
    Parquet read's columns as views of Arrow's buffers (read with pyarrow's split_blocks,
    not copied into one block), another frame's one 2-d block as it is."""
    from dppack.dask import _erm as erm

    X, y, target, weights = _data(6)
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(y=y, t=target, w=weights)
    frame.to_parquet(tmp_path / "part.parquet")
    data = dd.read_parquet(str(tmp_path))
    fit = erm.DaskData(data[["a", "b", "c"]], data["y"], data["w"])
    assert (fit.frame is not None, fit.p, fit.weighted) == (True, 3, True)
    assert list(fit.frame.columns) == ["a", "b", "c", "y", "w"]
    assert "Assign" not in fit.frame.expr.tree_repr()
    seen = []

    def block(X, y, w):
        seen.append((X, y, w))
        return np.zeros(1)

    fit.compute(fit.blocks(block, 1))
    (Xb, yb, wb), = seen
    assert isinstance(Xb, list) and len(Xb) == 3  # X's columns
    assert not any(column.flags.owndata for column in Xb + [yb, wb])  # Arrow's buffers
    np.testing.assert_array_equal(np.column_stack(Xb + [yb, wb]),
                                  frame[["a", "b", "c", "y", "w"]].to_numpy())
    # Dask writes into the read's options on every read: the next read (pass) still finds
    # only the user's type mapper (none here), and the read's name does not change
    from dask.tokenize import _tokenize_deterministic

    read = fit.frame.expr.frame
    name = _tokenize_deterministic(*read.operands)
    for _ in range(2):
        fit.compute(fit.blocks(block, 1))
    assert read.operand("kwargs")["arrow_to_pandas"].get("types_mapper") is None
    assert _tokenize_deterministic(*read.operands) == name
    # the same read, whose one block per column the user chose: as it is
    split = dd.read_parquet(str(tmp_path), arrow_to_pandas={"split_blocks": False})
    fit = erm.DaskData(split[["a", "b", "c"]], split["y"], split["w"])
    seen.clear()
    fit.compute(fit.blocks(block, 1))
    (Xb, yb, wb), = seen
    assert Xb.base is not None and Xb.base is yb.base is wb.base  # views of one 2-d block
    np.testing.assert_array_equal(np.column_stack([Xb, yb, wb]),
                                  frame[["a", "b", "c", "y", "w"]].to_numpy())
    # y not a column of X's dataset (another collection): joined by assign, still correct
    other = dd.from_pandas(pd.Series(y), npartitions=1)
    fit = erm.DaskData(dd.from_pandas(frame[["a", "b", "c"]], npartitions=1), other)
    assert fit.frame is not None and "Assign" in fit.frame.expr.tree_repr()


def test_within_bounds_reads_in_place():
    """The range check of a block: the block itself when no value needs clipping, a
    clipped copy otherwise (never written)."""
    from dppack.dask._erm import _within
    from dppack.erm._design import ColumnBounds

    bounds = ColumnBounds.from_arguments([1.0, 2.0], [-1.0, -2.0], 2)
    inside = np.array([[1.0, -2.0], [0.5, 2.0]])
    assert _within(inside, bounds) is inside
    beyond = np.array([[1.5, -2.0], [0.5, 2.5]])
    clipped = _within(beyond, bounds)
    assert clipped.tolist() == [[1.0, -2.0], [0.5, 2.0]] and beyond[0, 0] == 1.5
    # its per-column range is also X's finiteness check (NaN and +-Inf, in any column)
    for found, block in [(True, inside), (True, beyond), (False, _with_last(inside, (1, 1),
                                                                            np.nan)),
                         (False, _with_last(inside, (0, 0), -np.inf)),
                         (False, _with_last(beyond, (1, 1), np.inf))]:
        finite = [True]
        _within(block, bounds, finite)
        assert finite == [found]
        # X given as its columns (a Parquet read's): the same values and finiteness, a
        # column within its bounds not copied
        columns, finite_columns = [block[:, 0].copy(), block[:, 1].copy()], [True]
        apart = _within(columns, bounds, finite_columns)
        np.testing.assert_array_equal(np.column_stack(apart), _within(block, bounds))
        assert finite_columns == [found]
        assert [a is c for a, c in zip(apart, columns)] == [
            bool(np.all((c >= lo) & (c <= up))) for c, lo, up in zip(columns, bounds.lower,
                                                                       bounds.upper)]


def test_chunks_of_one_row_and_in_memory_labels():
    """Tiny and single-row chunks; y in memory beside X of known chunks."""
    X, y, _, _ = _data(2)
    X, y = X[:40], y[:40]
    Xd = da.from_array(X, chunks=((1, 1, 19, 1, 18), (2, 1)))  # column chunks merged too
    memory = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(X, y, UPPER, LOWER, True,
                                                             random_state=5)
    on_dask = dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(Xd, y, UPPER, LOWER, True,
                                                              random_state=5)
    _close(memory.coeff, on_dask.coeff, False)


# --------------------------------------------------------------------------------------------
# Errors: the in-memory messages, before any draw and any charge
# --------------------------------------------------------------------------------------------


def _with_last(values, index, value):
    values = values.copy()
    values[index] = value
    return values


def _bad_inputs():
    X, y, target, weights = _data()
    last = N - 5  # in the last chunk
    return {
        "nan-X": ("logistic-output", (_with_last(X, (last, 1), np.nan), y, target, weights),
                  "X must be finite (no NA, NaN or Inf)."),
        "inf-X-regression": ("linear-pure", (_with_last(X, (last, 0), np.inf), y, target,
                                             weights), "X must be finite (no NA, NaN or Inf)."),
        "labels": ("svm-objective", (X, _with_last(y, last, 2.0), target, weights),
                   "y must be a numeric vector of binary labels 0 and 1."),
        "labels-gaussian": ("svm-gaussian-objective", (X, _with_last(y, last, -1.0), target,
                                                       weights),
                            "y must be a numeric vector of binary labels 0 and 1."),
        "nan-y": ("logistic-objective", (X, _with_last(y, last, np.nan), target, weights),
                  "y must be finite (no NA, NaN or Inf)."),
        # a chunk that fails y's check is not summed: X's finiteness is checked apart, and
        # X's error comes first (as in memory)
        "inf-X-nan-target": ("linear-pure", (_with_last(X, (last, 2), -np.inf), y,
                                             _with_last(target, last, np.nan), weights),
                             "X must be finite (no NA, NaN or Inf)."),
        "nan-X-bad-labels": ("logistic-output", (_with_last(X, (last, 1), np.nan),
                                                 _with_last(y, last, 3.0), target, weights),
                             "X must be finite (no NA, NaN or Inf)."),
        "nan-target": ("linear-approx", (X, y, _with_last(target, last, np.nan), weights),
                       "y must be finite (no NA, NaN or Inf)."),
        "negative-weights": ("svm-weighted", (X, y, target, _with_last(weights, last, -1.0)),
                             "Weights must be nonnegative."),
        "nan-weights": ("svm-gaussian-output", (X, y, target, _with_last(weights, last,
                                                                         np.nan)),
                        "weights must not contain NA or NaN."),
    }


@pytest.mark.parametrize("kind", ["array", "frame"])
@pytest.mark.parametrize("case", list(_bad_inputs()))
def test_data_errors_before_any_draw_or_charge(case, kind, monkeypatch):
    name, data, message = _bad_inputs()[case]
    # the control: in memory the same message, nothing drawn
    with untouched_generator(0) as rng, raises_exactly(message):
        _fit(name, *data, seed=rng)
    data = _dask_arrays(*data) if kind == "array" else _dask_frame(*data)
    log = ComputeLog(monkeypatch)
    budget = dppack.BudgetAccountant(5.0, 1e-3)
    with untouched_generator(0) as rng, raises_exactly(message):
        _fit(name, *data, seed=rng, accountant=budget)
    assert log.calls == 1  # the first pass found it
    assert budget.ledger == []


def test_nullable_columns():
    """pandas' nullable numbers in a Dask DataFrame: read as floats, a missing value as NaN
    (refused as in memory)."""
    X, y, _, _ = _data()
    frame = pd.DataFrame({"a": pd.array(X[:, 0], dtype="Float64"),
                          "b": pd.array(np.round(X[:, 1]).astype(int), dtype="Int64")})
    upper, lower = UPPER[:2], LOWER[:2]
    memory = dppack.svmDP("l2", 1.0, 1.0, "output").fit(frame.astype(float), y, upper, lower,
                                                        random_state=2)
    data = dd.from_pandas(frame.assign(y=y), npartitions=3)
    on_dask = dppack.svmDP("l2", 1.0, 1.0, "output").fit(data[["a", "b"]], data["y"], upper,
                                                         lower, random_state=2)
    _close(memory.coeff, on_dask.coeff, False)
    frame.loc[N - 1, "a"] = pd.NA
    data = dd.from_pandas(frame.assign(y=y), npartitions=3)
    with untouched_generator(0) as rng, raises_exactly("X must be finite (no NA, NaN or Inf)."):
        dppack.svmDP("l2", 1.0, 1.0, "output").fit(data[["a", "b"]], data["y"], upper, lower,
                                                   random_state=rng)


def test_valid_fit_draws():
    """The control of the tests above: a valid Dask fit does draw."""
    X, y, target, weights = _data()
    with advanced_generator(0) as rng:
        _fit("svm-gaussian-objective", *_dask_arrays(X, y, target, weights), seed=rng)


def test_errors_without_the_data(monkeypatch):
    """Bounds, types, column counts, weights' bound: from the metadata, no pass at all."""
    X, y, target, weights = _data()
    Xd, yd, td, wd = _dask_arrays(X, y, target, weights)
    log = ComputeLog(monkeypatch)
    model = dppack.LogisticRegressionDP("l2", 1.0, 1.0)
    with raises_exactly("Length of upper_bounds must be equal to the number of columns of X."):
        model.fit(Xd, yd, UPPER[:2], LOWER)
    with raises_exactly("Length of upper_bounds must be equal to the number of columns of X "
                        "plus 1 (for y)."):
        dppack.LinearRegressionDP("l2", 1.0, 0.0, 1.0).fit(Xd, td, UPPER, LOWER)
    with raises_exactly("X must be a numeric matrix or data frame."):
        model.fit(Xd > 0, yd, UPPER, LOWER)
    with raises_exactly("y must be a numeric vector."):  # bool labels are taken (0/1)
        model.fit(Xd, yd.astype(str), UPPER, LOWER)
    with raises_exactly("y must have one value per row of X: X has 3000 rows, y has 2999 "
                        "values."):
        model.fit(Xd, y[1:], UPPER, LOWER)
    svm = dppack.svmDP("l2", 1.0, 1.0, "output")
    with raises_exactly("Upper bound on weights must be given if weights vector given."):
        svm.fit(Xd, yd, UPPER, LOWER, weights=wd)
    frame = _dask_frame(X, y, target, weights)
    with raises_exactly("X must be a numeric matrix or data frame."):
        model.fit(frame[0].assign(s="text"), frame[1], UPPER + [1.0], LOWER + [0.0])
    assert log.calls == 0


PARTITIONS = ("X, y and weights must be partitioned alike (the same rows in each partition, "
              "as the columns of one Dask DataFrame are).")


def test_partitions_must_match(monkeypatch):
    X, y, _, weights = _data()
    frame = _dask_frame(X, y, y, y)
    memory = dppack.svmDP("l2", 1.0, 1.0, "output").fit(X, y, UPPER, LOWER, weights=weights,
                                                        weights_upper_bound=2.0,
                                                        random_state=1)
    # Dask Series of other partitions but known divisions: matched by index, as pandas does
    other = dd.from_pandas(pd.Series(weights), npartitions=3)
    other = other[other > -1.0]
    on_dask = dppack.svmDP("l2", 1.0, 1.0, "output").fit(frame[0], frame[1], UPPER, LOWER,
                                                         weights=other,
                                                         weights_upper_bound=2.0,
                                                         random_state=1)
    _close(memory.coeff, on_dask.coeff, False)
    # unknown divisions and another number of partitions: refused without a pass
    log = ComputeLog(monkeypatch)
    unknown = frame[0].clear_divisions()
    with raises_exactly(PARTITIONS):
        dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(
            unknown, dd.from_pandas(pd.Series(y), npartitions=3).clear_divisions(), UPPER,
            LOWER)
    Xd, yd = frame[0].to_dask_array(), other.to_dask_array()  # arrays: never broadcast
    with raises_exactly(PARTITIONS):
        dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(Xd, yd, UPPER, LOWER)
    with pytest.raises(TypeError, match="X's chunk sizes are unknown"):
        dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(Xd, y, UPPER, LOWER)
    assert log.calls == 0
    # the same number of chunks, other rows in each: found by the first pass
    shifted = da.from_array(y, chunks=((100, 900, 1000, 500, 500),))
    shifted = shifted[shifted > -1.0]  # unknown sizes
    wshifted = da.from_array(weights, chunks=((100, 900, 1000, 500, 500),))
    wshifted = wshifted[wshifted > -1.0]
    y_frame = frame[1].to_dask_array()
    with untouched_generator(0) as rng, raises_exactly(PARTITIONS):
        dppack.LogisticRegressionDP("l2", 1.0, 1.0).fit(Xd, shifted, UPPER, LOWER,
                                                        random_state=rng)
    with untouched_generator(0) as rng, raises_exactly(PARTITIONS):
        dppack.svmDP("l2", 1.0, 1.0, "output").fit(Xd, y_frame, UPPER, LOWER,
                                                   weights=wshifted, weights_upper_bound=2.0,
                                                   random_state=rng)
    assert log.calls == 2


# --------------------------------------------------------------------------------------------
# predict
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["logistic-objective", "svm-output",
                                  "svm-gaussian-objective", "linear-pure"])
def test_predict_is_a_lazy_per_row_map(name, monkeypatch):
    X, y, target, weights = _data()
    model = _fit(name, X, y, target, weights)
    regression = CASES[name][1]
    Xd = _dask_frame(X, y, target, weights)[0]
    log = ComputeLog(monkeypatch)
    options = [{}] if regression else [{}, {"raw_value": True}]
    for option in options:
        lazy = model.predict(Xd, add_bias=True, **option)
        assert isinstance(lazy, da.Array) and log.calls == 0
        expected = model.predict(X, add_bias=True, **option)
        coeff = model.coeff.copy()
        model.coeff = coeff * 2.0  # a later change of the model does not reach the lazy array
        np.testing.assert_array_equal(lazy.compute(), expected)
        model.coeff = coeff
    with raises_exactly("X has 3 columns; the model was fitted on 4."):
        model.predict(Xd, add_bias=False)
    with raises_exactly("The model must be fitted before predict: call fit() first."):
        CASES[name][0]().predict(Xd, add_bias=True)


# --------------------------------------------------------------------------------------------
# What does not run on Dask
# --------------------------------------------------------------------------------------------


def test_refusals(monkeypatch):
    X, y, _, _ = _data()
    Xd, yd = _dask_arrays(X, y)
    log = ComputeLog(monkeypatch)
    base = dppack.EmpiricalRiskMinimizationDP_CMS(
        dppack.mapXy_sigmoid, dppack.loss_cross_entropy, "l2", eps=1, gamma=1,
        perturbation_method="output", mapXy_gr=dppack.mapXy_gr_sigmoid,
        loss_gr=dppack.loss_gr_cross_entropy)
    with pytest.raises(TypeError, match="EmpiricalRiskMinimizationDP_CMS.fit does not run on "
                                        "Dask data"):
        base.fit(Xd, yd, UPPER, LOWER)
    svm = dppack.svmDP("l2", 1.0, 1.0, "output")
    svm.loss = dppack.generate_loss_huber(0.5)  # the user's own function: rows needed
    with pytest.raises(TypeError, match="svmDP.fit with its own loss or map functions does "
                                        "not run on Dask"):
        svm.fit(Xd, yd, UPPER, LOWER)
    with pytest.raises(TypeError, match="tune_classification_model does not run on Dask"):
        dppack.tune_classification_model(
            [dppack.LogisticRegressionDP("l2", 1.0, g) for g in (0.5, 1.0)], Xd, yd, UPPER,
            LOWER)
    sklearn = pytest.importorskip("dppack.sklearn")
    with pytest.raises(TypeError, match="DPLogisticRegression.fit does not run on Dask"):
        sklearn.DPLogisticRegression(feature_bounds=(-2.0, 2.0)).fit(Xd, yd)
    assert log.calls == 0


@pytest.mark.parametrize("name", ["LogisticRegressionDP", "svmDP"])
def test_bool_and_categorical_labels_as_in_memory(name):
    # the label set comes from y's type on Dask as in memory (design.binary_codes): bool and
    # a two-category Categorical give the fit of the 0/1 floats, bit for bit
    rng = np.random.default_rng(7)
    X = rng.uniform(-1, 1, (120, 2))
    labels = X[:, 0] + 0.3 * rng.standard_normal(120) > 0
    frame = dd.from_pandas(pd.DataFrame({"a": X[:, 0], "b": X[:, 1], "y": labels}),
                           npartitions=3)

    def coeff(X_, y_):
        model = getattr(dppack, name)("l2", 1, 1)
        model.fit(X_, y_, np.ones(2), -np.ones(2), random_state=5)
        return model.coeff

    expected = coeff(X, labels.astype(float))
    np.testing.assert_array_equal(coeff(da.from_array(X, chunks=(40, 2)),
                                        da.from_array(labels, chunks=40)), expected)
    for y in (frame["y"], frame["y"].astype(pd.CategoricalDtype([False, True]))):
        np.testing.assert_array_equal(coeff(frame[["a", "b"]], y), expected)
    with pytest.raises(ValueError, match="categories are unknown"):
        coeff(frame[["a", "b"]], frame["y"].astype("category"))
    with pytest.raises(ValueError, match="3 declared categories"):
        coeff(frame[["a", "b"]], frame["y"].astype(str).astype(
            pd.CategoricalDtype(["False", "True", "other"])))
