"""Private statistics and a private model on a Parquet dataset read lazily by Dask, on a
LocalCluster of two worker processes (the tutorial is docs/larger-than-memory.md,
the R side scripts/demo_larger_than_memory.R).

The dataset is written in pieces (never whole in memory), read lazily with
``dask.dataframe.read_parquet`` and analysed under one budget. The non-private values,
computed by Dask beside them for comparison only, show what the noise costs. Needs the
optional extra ``dppack[dask]``.
"""

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import dppack

PIECES, ROWS = 8, 25_000
REGIONS = ["north", "south", "east", "west"]


def write_registry(path):
    """PIECES Parquet files of ROWS synthetic people each, written one at a time."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(2026)
    for part in range(PIECES):
        age = rng.integers(18, 91, size=ROWS).astype(float)
        income = np.round(rng.lognormal(10 + 0.01 * (age - 18), 0.5))
        hours = np.clip(np.round(rng.normal(38, 8, size=ROWS)), 0, 80)
        region = rng.choice(REGIONS, size=ROWS)
        high = (income > 40_000).astype(float)
        pq.write_table(pa.table({"age": age, "income": income, "hours": hours,
                                 "region": region, "high": high}),
                       path / f"part-{part:02d}.parquet")


def main():
    try:
        import dask.dataframe as dd
        import pandas as pd
        from dask.distributed import Client, LocalCluster
    except ImportError:
        print("This demo needs Dask: pip install 'dppack[dask]'.")
        return 0
    start = time.perf_counter()
    path = Path(tempfile.mkdtemp()) / "registry"
    path.mkdir()
    write_registry(path)
    print(f"== A Parquet dataset of {PIECES * ROWS:,} rows in {PIECES} files ==")

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster):
        frame = dd.read_parquet(path)  # the metadata only
        accountant = dppack.BudgetAccountant(eps=3.0)
        income = frame["income"]

        print("\n== Private statistics on the cluster (eps 0.5 each) ==")
        print(f"{'':<16}{'private':>12}{'not private':>14}")
        rows = [
            ("mean income", dppack.meanDP(income, 0.5, 0, 200_000, random_state=1,
                                          accountant=accountant), income.mean()),
            ("sd income", dppack.sdDP(income, 0.5, 0, 200_000, random_state=2,
                                      accountant=accountant), income.std()),
            ("median income", dppack.medianDP(income, 0.5, 0, 200_000, random_state=3,
                                              accountant=accountant),
             income.quantile(0.5)),
        ]
        for label, private, exact in rows:
            print(f"{label:<16}{private:>12,.0f}{float(exact.compute()):>14,.0f}")

        levels = pd.CategoricalDtype(REGIONS + ["islands"])
        table = dppack.tableDP(frame["region"].astype(levels), eps=0.5, random_state=4,
                               accountant=accountant)
        print("\nregions (declared levels; nobody lives on the islands):")
        print(table.round(0).to_string())

        print("\n== A private logistic regression (eps 1): high income ~ age + hours ==")
        model = dppack.LogisticRegressionDP("l2", 1.0, 0.01).fit(
            frame[["age", "hours"]], frame["high"], [90, 80], [18, 0], add_bias=True,
            random_state=5, accountant=accountant)
        predicted = model.predict(frame[["age", "hours"]], add_bias=True)  # lazy
        print(f"coefficients {np.round(model.coeff, 4)}; predicted high {float(predicted.mean().compute()):.3f} "
              f"(observed, not private: {float(frame['high'].mean().compute()):.3f})")

        print(f"\n== The budget: spent {accountant.spent} of eps 3 ==")
        for name, loss in accountant.ledger:
            print(f"  {name}: {loss}")
    print(f"\n({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":  # the workers are processes that import this script
    sys.exit(main())
