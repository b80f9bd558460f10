"""Data beyond memory: private statistics and fits on Parquet read lazily by Dask, out of core.

Targets (issue 14), on this 2-core machine with Dask's threaded scheduler and nothing persisted:

* ``meanDP``, ``varDP``, ``histogramDP`` and ``quantileDP`` of one column of a Parquet dataset
  of 2 x 10^8 rows within 1.3x the time of the same non-private Dask aggregation in the same
  run (``Series.mean``, ``Series.var``, ``dask.array.histogram``, ``Series.quantile``);
* ``LogisticRegressionDP`` and ``LinearRegressionDP`` fits on 5 x 10^7 x 20 (+ the label)
  within 1.3x of (passes over the data the fit used) x (the time of one Dask pass computing
  X'r, the cheapest pass a gradient method can make);
* peak resident memory of each measurement below 25% of the data's size (in memory, as
  float64);
* how the time grows from 10^6 to 2 x 10^8 rows.

The datasets are generated once (cached under ``build/scale/``, or ``--data-dir``), written by
pyarrow one row group at a time so that the generator never holds them either. Every
measurement runs in a fresh subprocess (this script, ``--measure``), which reports its time
(best of ``--runs``; wall-clock and CPU time of the process, which other work on the machine
disturbs less), its peak resident memory (``ru_maxrss``: the whole process, Python, NumPy,
Dask and pyarrow included) and the passes over the data (``read_parquet`` tasks run, over the
number of partitions, counted by a Dask callback). ``--quick`` runs the same measurements on
small datasets, for the smoke test in ``tests/python/docs/test_scale_benchmark.py``; its figures are
not the targets'.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
from _readme import write_table

HERE = Path(__file__).resolve().parent
FEATURES = [f"x{i}" for i in range(20)]
BOUND_T = 2.0  # |t| <= 1.5 by construction (see model_batch); the bound is public
FULL = {
    "stats_rows": 200_000_000,
    "growth_rows": [1_000_000, 10_000_000, 50_000_000, 200_000_000],
    "model_rows": 50_000_000,
    "rows_per_file": {"stats": 1_000_000, "model": 1_000_000},
    "row_group": 1_000_000,
    "runs": 3,
}
MODELS = ("LogisticRegressionDP", "LinearRegressionDP")
QUICK = {
    "stats_rows": 200_000,
    "growth_rows": [20_000, 200_000],
    "model_rows": 40_000,
    "rows_per_file": {"stats": 50_000, "model": 10_000},
    "row_group": 10_000,
    "runs": 1,
}


# -- the data ---------------------------------------------------------------------------------

def stats_batch(rng, n):
    """One column x ~ N(0, 1): about 6 records in 10^5 lie beyond the bounds [-4, 4]."""
    return {"x": rng.normal(size=n)}


def model_batch(rng, n):
    """20 features uniform on [-1, 1]; y a logistic label, t = X b / 4 + uniform noise, with
    b = (+-0.2, ...) so that |t| <= 1.5 < BOUND_T."""
    X = rng.uniform(-1.0, 1.0, size=(n, len(FEATURES)))
    b = np.where(np.arange(len(FEATURES)) % 2 == 0, 0.2, -0.2)
    columns = {name: X[:, i] for i, name in enumerate(FEATURES)}
    columns["y"] = (X @ b + rng.logistic(size=n) > 0).astype(np.float64)
    columns["t"] = X @ b / 4 + rng.uniform(-0.5, 0.5, size=n)
    return columns


def write_dataset(path, rows, batch, rows_per_file, row_group, seed=0):
    """Write a Parquet dataset of ``rows`` rows (files of ``rows_per_file`` rows, row groups
    of ``row_group`` rows) to the directory ``path``, unless it is there already; at most one
    row group is in memory at a time. Returns the directory."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    if (path / "_COMPLETE").exists():
        return path
    partial = path.with_name(path.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    rng = np.random.default_rng(seed)
    for number, start in enumerate(range(0, rows, rows_per_file)):
        in_file = min(rows_per_file, rows - start)
        writer = None
        for offset in range(0, in_file, row_group):
            table = pa.table(batch(rng, min(row_group, in_file - offset)))
            if writer is None:
                writer = pq.ParquetWriter(partial / f"part-{number:05d}.parquet", table.schema)
            writer.write_table(table)
        writer.close()
    (partial / "_COMPLETE").touch()
    shutil.rmtree(path, ignore_errors=True)
    partial.rename(path)
    return path


def datasets(data_dir, sizes):
    """The datasets of a run: {("stats", rows): path, ("model", rows): path}."""
    made = {}
    for rows in sorted(set(sizes["growth_rows"]) | {sizes["stats_rows"]}):
        made["stats", rows] = write_dataset(
            Path(data_dir) / f"stats-{rows}", rows, stats_batch,
            min(rows, sizes["rows_per_file"]["stats"]), sizes["row_group"])
    rows = sizes["model_rows"]
    made["model", rows] = write_dataset(
        Path(data_dir) / f"model-{rows}", rows, model_batch,
        min(rows, sizes["rows_per_file"]["model"]), sizes["row_group"], seed=1)
    return made


# -- one measurement, in a fresh process --------------------------------------------------------

def _statistic(kind, frame):
    """The call measured for ``kind`` on the Dask DataFrame ``frame`` (not yet called)."""
    import dask.array as da

    import dppack

    rng = np.random.default_rng(1)
    x = frame["x"]
    calls = {
        "meanDP": lambda: dppack.meanDP(x, 1.0, -4.0, 4.0, random_state=rng),
        "Series.mean": lambda: x.mean().compute(),
        "varDP": lambda: dppack.varDP(x, 1.0, -4.0, 4.0, random_state=rng),
        "Series.var": lambda: x.var().compute(),
        "histogramDP": lambda: dppack.histogramDP(x, 1.0, -4.0, 4.0, breaks=20,
                                                  random_state=rng),
        "dask.array.histogram": lambda: da.histogram(
            x.to_dask_array(), bins=20, range=(-4.0, 4.0))[0].compute(),
        "quantileDP": lambda: dppack.quantileDP(x, 0.5, 1.0, -4.0, 4.0, random_state=rng),
        "Series.quantile": lambda: x.quantile(0.5).compute(),
    }
    return calls[kind]


def _model(kind, frame):
    """The fit measured for ``kind`` (or the one pass computing X'r)."""
    import dask

    import dppack

    d = len(FEATURES)
    upper, lower = [1.0] * d, [-1.0] * d
    X = frame[FEATURES]
    if kind == "LogisticRegressionDP":
        return lambda: dppack.LogisticRegressionDP("l2", 1.0, 1e-3).fit(
            X, frame["y"], upper, lower, True, random_state=1)
    if kind == "LinearRegressionDP":
        return lambda: dppack.LinearRegressionDP("l2", 1.0, 1e-6, 1e-3).fit(
            X, frame["t"], upper + [BOUND_T], lower + [-BOUND_T], True, random_state=1)
    assert kind == "pass X'r"
    columns = frame[FEATURES + ["y"]]  # the columns read, nothing else

    def gradient_sum(partition):  # X'r with r = y - 1/2 (the logistic residual at w = 0)
        # the partition's float64 columns as one column-major block, not copied; X' a
        # row-major view: one BLAS matrix-vector product
        block = partition.to_numpy()
        return (block[:, :d].T @ (block[:, d] - 0.5))[None, :]

    def one_pass():
        # each partition read and reduced in one task, the rows summed by Dask's tree
        parts = columns.map_partitions(gradient_sum, meta=np.empty((0, d)))
        return dask.compute(parts.sum(axis=0))[0]

    return one_pass


def measure(spec):
    """Run one measurement (a dict from the parent) and return its figures."""
    import dask
    import dask.dataframe as dd
    from dask.callbacks import Callback

    dask.config.set(scheduler="threads")
    floor = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    frame = dd.read_parquet(spec["path"])
    call = (_statistic if spec["group"] == "stats" else _model)(spec["kind"], frame)
    reads = []

    class CountReads(Callback):
        def _pretask(self, key, dsk, state):
            # A task reading a partition, maybe fused with what follows ("sum-read_parquet-
            # getitem-..."); an Alias only points at another task.
            name = key[0] if isinstance(key, tuple) else key
            if "read_parquet" in str(name) and type(dsk[key]).__name__ != "Alias":
                reads.append(key)

    best = cpu = float("inf")
    for _ in range(spec["runs"]):
        reads.clear()
        with CountReads():
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            best = min(best, time.perf_counter() - start)
            cpu = min(cpu, time.process_time() - start_cpu)
    return {"seconds": best, "cpu_seconds": cpu, "passes": len(reads) / frame.npartitions,
            "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "floor_bytes": floor}


def run_measurement(spec, in_process=False):
    """``measure(spec)`` in a fresh Python process (so that its ru_maxrss is its own), or in
    this one (``--quick``: faster; the peak is then this process's so far)."""
    if in_process:
        try:
            return measure(spec)
        except Exception as error:  # reported like a failed subprocess's
            return {"error": f"{type(error).__name__}: {error}"}
    completed = subprocess.run(
        [sys.executable, str(Path(__file__).resolve()), "--measure", json.dumps(spec)],
        capture_output=True, text=True)
    if completed.returncode:
        return {"error": (completed.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(completed.stdout.strip().splitlines()[-1])


# -- the run ------------------------------------------------------------------------------------

def _size(rows, columns):
    return rows * columns * 8  # bytes as float64 in memory


def _row(label, result, data_bytes):
    if "error" in result:
        return f"{label:<24} FAILED: {result['error']}"
    return (f"{label:<24} {result['seconds']:8.2f} s (CPU {result['cpu_seconds']:7.2f} s)  "
            f"passes {result['passes']:5.1f}  "
            f"peak RSS {result['peak_bytes'] / 2**20:7.0f} MiB "
            f"({result['peak_bytes'] / data_bytes:6.1%} of the data; "
            f"{(result['peak_bytes'] - result['floor_bytes']) / 2**20:5.0f} MiB over the "
            f"{result['floor_bytes'] / 2**20:.0f} MiB of the process before the call)")


def _cells(label, result, reference_label, reference, factor, data_bytes, passes=False):
    """A row of the README's table: the release, its reference (``factor`` times it: the
    fit's passes, with ``passes``), their ratios and the peak memory."""
    seconds, cpu = result["seconds"], result["cpu_seconds"]
    scale = f"{factor:.0f} x " if passes else ""
    return [label, f"{seconds:.2f} s ({cpu:.2f} s)",
            f"{reference_label} {scale}{reference['seconds']:.2f} s "
            f"({reference['cpu_seconds']:.2f} s)",
            f"{seconds / (factor * reference['seconds']):.2f} "
            f"({cpu / (factor * reference['cpu_seconds']):.2f})", "<= 1.3",
            f"{result['peak_bytes'] / data_bytes:.1%}"]


TABLE = ["what", "time (CPU)", "reference", "ratio (CPU ratio)", "target", "peak memory / data"]


def _verdict(ratio, target):
    return f"ratio {ratio:5.2f}  {'meets' if ratio <= target else 'MISSES'} target <= {target}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small datasets (a smoke test)")
    parser.add_argument("--data-dir", default=str(HERE.parent / "build" / "scale"))
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--only", choices=("stats", "models", "growth"), action="append",
                        help="run only these parts (repeatable; all by default)")
    parser.add_argument("--model", choices=MODELS, action="append",
                        help="with the models: fit only these (repeatable; both by default)")
    parser.add_argument("--model-rows", type=int,
                        help="rows of the models' dataset (default 5 x 10^7; e.g. 5000000 for "
                             "a quicker run whose figures are not the targets')")
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure:
        print(json.dumps(measure(json.loads(args.measure))))
        return 0
    sizes = QUICK if args.quick else FULL
    if args.model_rows:
        sizes = {**sizes, "model_rows": args.model_rows}
    run = (lambda spec: run_measurement(spec, in_process=True)) if args.quick \
        else run_measurement
    start = time.perf_counter()
    made = datasets(args.data_dir, sizes)
    print(f"datasets ready in {args.data_dir} ({time.perf_counter() - start:.0f} s); "
          f"threaded scheduler, {os.cpu_count()} cores", flush=True)
    figures = {"sizes": sizes, "stats": {}, "models": {}, "growth": {}}
    failed = False
    # the README's tables: full-size runs only
    full = not args.quick and not args.model_rows
    stats_rows, model_rows = [], []

    parts = set(args.only or ("stats", "models", "growth"))
    n = sizes["stats_rows"]
    data_bytes = _size(n, 1)
    if "stats" in parts:
        print(f"\nstatistics: one column of n = {n:,} rows ({data_bytes / 2**30:.2f} GiB as "
              f"float64)")
        pairs = [("meanDP", "Series.mean"), ("varDP", "Series.var"),
                 ("histogramDP", "dask.array.histogram"), ("quantileDP", "Series.quantile")]
    else:  # the growth table's largest row only, if asked
        pairs = [("meanDP", "Series.mean")] if "growth" in parts else []
    for private, reference in pairs:
        results = {kind: run({"group": "stats", "kind": kind, "runs": sizes["runs"],
                                          "path": str(made["stats", n])})
                   for kind in (private, reference)}
        figures["stats"].update(results)
        for kind, result in results.items():
            print(_row(kind, result, data_bytes), flush=True)
        if all("error" not in r for r in results.values()):
            ratio = results[private]["seconds"] / results[reference]["seconds"]
            cpu = results[private]["cpu_seconds"] / results[reference]["cpu_seconds"]
            print(f"{'':<24} {private} / {reference}: {_verdict(ratio, 1.3)}; "
                  f"CPU ratio {cpu:5.2f}", flush=True)
            stats_rows.append(_cells(f"`{private}`", results[private], f"`{reference}`",
                                     results[reference], 1, data_bytes))
        else:
            failed = True
    if full and "stats" in parts and len(stats_rows) == len(pairs):
        write_table("scale_stats", TABLE, stats_rows,
                    note=f"One column of n = {n:,} rows ({data_bytes / 2**30:.2f} GiB as "
                         f"float64); best of {sizes['runs']}.")

    if "models" in parts:
        n = sizes["model_rows"]
        data_bytes = _size(n, len(FEATURES) + 1)
        print(f"\nmodels: n = {n:,} rows x {len(FEATURES)} features + label "
              f"({data_bytes / 2**30:.2f} GiB as float64)")
        spec = {"group": "model", "runs": 1, "path": str(made["model", n])}
        one_pass_runs = min(2, sizes["runs"])
        one_pass = run({**spec, "kind": "pass X'r", "runs": one_pass_runs})
        figures["models"]["pass X'r"] = one_pass
        print(_row("one pass X'r", one_pass, data_bytes), flush=True)
        for kind in args.model or MODELS:
            # the one-pass fit timed as the one pass is (best of the same number of runs, so
            # that neither includes the first call's warm-up the other leaves out); the
            # logistic fit's many passes once (its warm-up is a small part of its time)
            runs = one_pass_runs if kind == "LinearRegressionDP" else 1
            result = run({**spec, "kind": kind, "runs": runs})
            figures["models"][kind] = result
            print(_row(kind, result, data_bytes), flush=True)
            if "error" in result or "error" in one_pass:
                failed = True
                continue
            budget = result["passes"] * one_pass["seconds"]
            cpu = result["cpu_seconds"] / (result["passes"] * one_pass["cpu_seconds"])
            print(f"{'':<24} fit / ({result['passes']:.0f} passes x one pass "
                  f"{one_pass['seconds']:.2f} s): {_verdict(result['seconds'] / budget, 1.3)}; "
                  f"CPU ratio {cpu:5.2f}", flush=True)
            passes = f"{result['passes']:.0f} pass" + ("" if result["passes"] == 1 else "es")
            model_rows.append(_cells(f"`{kind}`, {passes}", result,
                                     "one pass computing X'r,", one_pass, result["passes"],
                                     data_bytes, passes=True))
        if full and not args.model and len(model_rows) == len(MODELS):
            write_table("scale_models", TABLE, model_rows,
                        note=f"n = {n:,} rows x {len(FEATURES)} features + the label "
                             f"({data_bytes / 2**30:.2f} GiB as float64).")

    if "growth" in parts:
        print("\ngrowth (meanDP and the reference mean, seconds):")
        for rows in sizes["growth_rows"]:
            spec = {"group": "stats", "runs": sizes["runs"], "path": str(made["stats", rows])}
            if rows == sizes["stats_rows"]:  # measured above
                private, reference = figures["stats"]["meanDP"], figures["stats"]["Series.mean"]
            else:
                private = run({**spec, "kind": "meanDP"})
                reference = run({**spec, "kind": "Series.mean"})
            figures["growth"][rows] = {"meanDP": private, "Series.mean": reference}
            if "error" in private or "error" in reference:
                failed = True
                print(f"n = {rows:>13,}  FAILED", flush=True)
                continue
            print(f"n = {rows:>13,}  meanDP {private['seconds']:8.3f} s   Series.mean "
                  f"{reference['seconds']:8.3f} s   per 10^6 rows "
                  f"{private['seconds'] / rows * 1e6:7.4f} s", flush=True)

    peaks = [r["peak_bytes"] / _size(sizes["stats_rows"], 1) for r in
             figures["stats"].values() if "error" not in r]
    peaks += [r["peak_bytes"] / _size(sizes["model_rows"], len(FEATURES) + 1) for r in
              figures["models"].values() if "error" not in r]
    peak = max(peaks, default=float("nan"))
    print(f"\nlargest peak RSS: {peak:.1%} of the data measured (target < 25%: "
          f"{'meets' if peak < 0.25 else 'MISSES'})")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
