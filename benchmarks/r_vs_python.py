"""The cost of calling the core from R: each function on n = 10^6 from R and from Python.

R's timings come from one Rscript run (after a warm-up call that loads Python); Python's from
this process, on data of the same size and law. Each timing is of REPEATS calls on REPEATS
distinct data vectors, so that the R figure includes converting fresh data every time; best
of RUNS timings. Target (issue 3): the R call within 2x of the Python call.
"""

import json
import shutil
import subprocess

import numpy as np
from _readme import write_table
from _timing import best_seconds

import dppack

N = 1_000_000
RUNS = 5
REPEATS = 10  # calls per timing, so that R's millisecond clock resolves them

# name: (R call on x, Python call on x and a generator)
CALLS = {
    "LaplaceMechanism": ("LaplaceMechanism(x, 1, 1)",
                         lambda x, rng: dppack.LaplaceMechanism(x, 1, 1, random_state=rng)),
    "meanDP": ("meanDP(x, 1, -4, 4)",
               lambda x, rng: dppack.meanDP(x, 1, -4, 4, random_state=rng)),
    "varDP": ("varDP(x, 1, -4, 4)",
              lambda x, rng: dppack.varDP(x, 1, -4, 4, random_state=rng)),
    "histogramDP": ("histogramDP(x, 1, -4, 4)",
                    lambda x, rng: dppack.histogramDP(x, 1, -4, 4, random_state=rng)),
    "quantileDP": ("quantileDP(x, 0.25, 1, -4, 4)",
                   lambda x, rng: dppack.quantileDP(x, 0.25, 1, -4, 4, random_state=rng)),
}

R_SCRIPT = """
suppressPackageStartupMessages(library(DPpackPy))
set.seed(1)
xs <- lapply(seq_len({repeats}), function(i) stats::rnorm({n}))
invisible(LaplaceMechanism(0, 1, 1))
calls <- list({calls})
best <- vapply(calls, function(f) {{
  min(vapply(seq_len({runs}), function(i) {{
    system.time(for (j in seq_len({repeats})) f(xs[[j]]))[["elapsed"]] / {repeats}
  }}, numeric(1)))
}}, numeric(1))
cat(paste0("{{", paste0('"', names(best), '": ', best, collapse = ", "), "}}"))
"""


def python_best(function, xs, rng):
    """Best time per call of ``function`` over the data ``xs``."""
    return best_seconds(lambda: [function(x, rng) for x in xs], RUNS) / REPEATS


def main():
    rscript = shutil.which("Rscript")
    if rscript is None:
        print("Rscript not found")
        return
    calls = ", ".join(f"{name} = function(x) {expr}" for name, (expr, _) in CALLS.items())
    script = R_SCRIPT.format(n=N, calls=calls, runs=RUNS, repeats=REPEATS)
    completed = subprocess.run([rscript, "-e", script], capture_output=True, text=True,
                               check=True)
    r_times = json.loads(completed.stdout.strip().splitlines()[-1])

    xs = [np.random.default_rng(seed).normal(size=N) for seed in range(REPEATS)]
    rng = np.random.default_rng(REPEATS)
    print(f"n = {N:,}; best of {RUNS} timings of {REPEATS} calls each")
    rows = []
    for name, (_, function) in CALLS.items():
        python_time = python_best(function, xs, rng)
        r_time = r_times[name]
        verdict = "meets" if r_time <= 2 * python_time else "MISSES"
        print(f"{name:<18} R {r_time:7.4f} s   Python {python_time:7.4f} s   "
              f"ratio {r_time / python_time:5.2f}   {verdict} target <= 2")
        rows.append([f"`{name}`", f"{r_time * 1000:.1f} ms", f"{python_time * 1000:.1f} ms",
                     f"{r_time / python_time:.2f}"])
    write_table("r_vs_python", ["function", "R", "Python", "ratio"], rows,
                note=f"n = {N:,}; best of {RUNS} timings of {REPEATS} calls each.")


if __name__ == "__main__":
    main()
