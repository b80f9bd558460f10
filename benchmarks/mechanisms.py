"""Mechanism throughput: dppack against numpy's own noise addition, in one run.

The reference is what a user would write without dppack: draw the noise with numpy and add
it. The ratio is dppack's time over the reference's; validation and shape handling are the
difference. Best of several runs.
"""

import numpy as np
from _readme import write_table
from _timing import best_seconds

import dppack

N = 10_000_000



def main():
    values = np.random.default_rng(0).normal(size=N)
    rng = np.random.default_rng(1)
    cases = [
        ("LaplaceMechanism",
         lambda: dppack.LaplaceMechanism(values, 1.0, 1.0, random_state=rng),
         lambda: values + rng.laplace(0.0, 1.0, N)),
        ("GaussianMechanism (analytic)",
         lambda: dppack.GaussianMechanism(values, 1.0, 1e-6, 1.0, analytic=True,
                                          random_state=rng),
         lambda: values + rng.normal(0.0, 4.0, N)),
        ("ExponentialMechanism (n candidates)",
         lambda: dppack.ExponentialMechanism(values, 1.0, 1.0, random_state=rng),
         lambda: np.searchsorted(np.cumsum(np.exp(values - values.max())), 0.5)),
    ]
    print(f"n = {N:,}")
    rows = []
    for label, private, reference in cases:
        ours, theirs = best_seconds(private), best_seconds(reference)
        print(f"{label:<38} {ours:7.3f} s   numpy reference {theirs:7.3f} s   "
              f"ratio {ours / theirs:5.2f}")
        rows.append([label, f"{ours:.3f} s", f"{theirs:.3f} s", f"{ours / theirs:.2f}"])
    write_table("mechanisms", ["what", "time", "numpy reference", "ratio"], rows,
                note=f"n = {N:,}; best of 5.")


if __name__ == "__main__":
    main()
