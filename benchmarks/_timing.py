"""Timing shared by the benchmark scripts: the best of several runs."""

import time


def best_seconds(function, runs=5):
    """The shortest wall-clock time of ``runs`` calls of ``function()``, in seconds."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)
