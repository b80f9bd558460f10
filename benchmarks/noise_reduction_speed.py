"""Noise reduction: the exact releases against the floating-point ones they replaced, one run.

The exact noise-reduction releases should stay within 1.5x of the speed of the floating-point
implementation before them (issue 25). The reference is that implementation
itself: ``python/dppack/accuracy_first/noise_reduction.py`` as of commit ``REFERENCE`` (the
parent of the exact rewrite), read with ``git show`` into a temporary directory and imported
against today's dppack (its helpers, checks and accounting are today's, so the ratio measures
the noise paths). Timed, interleaved in one run (reference, exact, reference, ...), for
n = 1, 10, 1,000 and 100,000 values:

* ``LaplaceNoiseReduction``: a ladder of 5 levels, eps = 0.1, 0.2, 0.4, 0.7, 1;
* ``LaplaceNoiseReductionOnline``: the object at eps = 0.1 and 5 reductions (0.2, 0.3, 0.5,
  0.7, 1);
* ``GaussianNoiseReduction``: 5 variances 16, 8, 4, 2, 1, sensitivity 1.

Each cell is the median over ROUNDS rounds of the best of REPEATS calls (CPU time of this
process, which a shared machine disturbs least); the ratio is exact / reference. Writes the
table ``noise_reduction_speed`` of benchmarks/README.md (``--quick``: fewer rounds, no
README).
"""

import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _readme import write_table

import dppack

REFERENCE = "c43ceab^"  # the floating-point noise reduction, before the exact rewrite
PATH = "python/dppack/accuracy_first/noise_reduction.py"
SIZES = (1, 10, 1000, 100_000)
LEVELS = [0.1, 0.2, 0.4, 0.7, 1.0]
REDUCTIONS = [0.2, 0.3, 0.5, 0.7, 1.0]
VARIANCES = [16.0, 8.0, 4.0, 2.0, 1.0]
ROUNDS, REPEATS = 7, 5


def reference_module():
    """The floating-point noise_reduction module of ``REFERENCE``, importable on its own."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(["git", "show", f"{REFERENCE}:{PATH}"], cwd=root, check=True,
                            capture_output=True, text=True).stdout
    source = source.replace("from .. import", "from dppack import").replace(
        "from .._repr import", "from dppack._repr import").replace(
        "_frames.refuse_dask", "_backends.refuse_dask").replace(
        "from dppack import _checks, _frames,", "from dppack import _backends, _checks, _frames,")
    folder = Path(tempfile.mkdtemp(prefix="dppack-nr-reference-"))
    path = folder / "noise_reduction_float.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("noise_reduction_float", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cases(module, n, seed):
    """(label, reference call, exact call) for the three releases on n values."""
    values = np.random.default_rng(seed).normal(size=n) * 10.0
    if n == 1:
        values = values[0]
    rng_ref, rng_new = np.random.default_rng(seed), np.random.default_rng(seed)

    def online(cls, rng):
        def run():
            obj = cls(values, LEVELS[0], 1.0, random_state=rng)
            for eps in REDUCTIONS:
                obj.reduce(eps)
        return run

    return [
        ("LaplaceNoiseReduction (5 levels)",
         lambda: module.LaplaceNoiseReduction(values, LEVELS, 1.0, random_state=rng_ref),
         lambda: dppack.LaplaceNoiseReduction(values, LEVELS, 1.0, random_state=rng_new)),
        ("LaplaceNoiseReductionOnline (5 reductions)",
         online(module.LaplaceNoiseReductionOnline, rng_ref),
         online(dppack.LaplaceNoiseReductionOnline, rng_new)),
        ("GaussianNoiseReduction (5 variances)",
         lambda: module.GaussianNoiseReduction(values, VARIANCES, 1.0, random_state=rng_ref),
         lambda: dppack.GaussianNoiseReduction(values, VARIANCES, 1.0,
                                               random_state=rng_new)),
    ]


def best(function, repeats):
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return min(times)


def measure(reference, exact, rounds, repeats):
    """Median over rounds of the best of ``repeats`` calls, the two interleaved."""
    reference(), exact()  # warm the caches of both
    ref_times, new_times = [], []
    for _ in range(rounds):
        ref_times.append(best(reference, repeats))
        new_times.append(best(exact, repeats))
    return statistics.median(ref_times), statistics.median(new_times)


def seconds(value):
    return f"{value * 1e3:.3f} ms" if value < 1 else f"{value:.2f} s"


def main(argv):
    quick = "--quick" in argv
    rounds, repeats = (3, 3) if quick else (ROUNDS, REPEATS)
    module = reference_module()
    rows = []
    print(f"{'release':44} {'n':>8} {'float':>12} {'exact':>12} {'ratio':>7}")
    for n in SIZES:
        reps = repeats if n < 100_000 else max(2, repeats // 2)
        for label, reference, exact in cases(module, n, seed=n):
            ref, new = measure(reference, exact, rounds, reps)
            ratio = new / ref
            print(f"{label:44} {n:>8,} {seconds(ref):>12} {seconds(new):>12} {ratio:7.2f}",
                  flush=True)
            rows.append([label, f"{n:,}", seconds(ref), seconds(new), f"{ratio:.2f}"])
    if not quick:
        write_table("noise_reduction_speed",
                    ["release", "n", "floating point (before)", "exact", "ratio"], rows,
                    note=(f"CPU time, median of {rounds} interleaved rounds of the best of "
                          f"{repeats} calls ({max(2, repeats // 2)} for n = 100,000); "
                          f"reference: noise_reduction.py at {REFERENCE}. Target: ratio "
                          f"<= 1.5."))


if __name__ == "__main__":
    main(sys.argv[1:])
