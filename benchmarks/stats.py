"""Private statistics: dppack against the non-private numpy computation, in one run.

Each private statistic is timed beside what a user would compute without privacy: numpy's
mean (of the clipped data where the bounds clip: that is the statistic DPpack privatises),
variance, histogram and sort of the same data (n = 10^7). The ratio is dppack's time over the
reference's; validation, the range scan (NaN / Inf detection and the clipping decision),
clipping when needed, and the mechanism are the difference. Best of several runs.
Targets: meanDP, varDP and histogramDP within 3x of their references; quantileDP, whose
exponential mechanism is drawn exactly on a grid (issue 12), within 1.5x of numpy.sort.
"""

import numpy as np
from _readme import write_table
from _timing import best_seconds

import dppack

N = 10_000_000



def main():
    inside = np.random.default_rng(0).uniform(-4.0, 4.0, size=N)  # no clipping needed
    tails = np.random.default_rng(0).normal(size=N)  # clipped to [-3, 3] (~27 000 values)
    rng = np.random.default_rng(1)
    cases = [  # (label, dppack, reference label, reference, target ratio)
        ("meanDP (data inside the bounds)",
         lambda: dppack.meanDP(inside, 1.0, -5.0, 5.0, random_state=rng),
         "numpy.mean", lambda: np.mean(inside), 3),
        ("meanDP (data clipped)",
         lambda: dppack.meanDP(tails, 1.0, -3.0, 3.0, random_state=rng),
         "numpy.mean(clip)", lambda: np.mean(np.clip(tails, -3.0, 3.0)), 3),
        ("varDP (data inside the bounds)",
         lambda: dppack.varDP(inside, 1.0, -5.0, 5.0, random_state=rng),
         "numpy.var(ddof=1)", lambda: np.var(inside, ddof=1), 3),
        ("varDP (data clipped)",
         lambda: dppack.varDP(tails, 1.0, -3.0, 3.0, random_state=rng),
         "numpy.var(ddof=1)", lambda: np.var(tails, ddof=1), 3),
        ("histogramDP (Sturges, 20 bins)",
         lambda: dppack.histogramDP(inside, 1.0, -5.0, 5.0, random_state=rng),
         "numpy.histogram", lambda: np.histogram(inside, bins=20), 3),
        ("quantileDP (data inside the bounds)",
         lambda: dppack.quantileDP(inside, 0.25, 1.0, -5.0, 5.0, random_state=rng),
         "numpy.sort", lambda: np.sort(inside), 1.5),
        ("quantileDP (data clipped)",
         lambda: dppack.quantileDP(tails, 0.25, 1.0, -3.0, 3.0, random_state=rng),
         "numpy.sort", lambda: np.sort(tails), 1.5),
    ]
    print(f"n = {N:,}")
    rows = []
    for label, private, reference_label, reference, target in cases:
        ours, theirs = best_seconds(private), best_seconds(reference)
        verdict = "meets" if ours <= target * theirs else "MISSES"
        print(f"{label:<38} {ours:7.3f} s   {reference_label:<18} {theirs:7.3f} s   "
              f"ratio {ours / theirs:5.2f}   {verdict} target <= {target}")
        rows.append([label, f"{ours:.3f} s", f"{reference_label} {theirs:.3f} s",
                     f"{ours / theirs:.2f}", f"<= {target}"])
    write_table("stats", ["what", "time", "reference", "ratio", "target"], rows,
                note=f"n = {N:,}; best of 5.")


if __name__ == "__main__":
    main()
