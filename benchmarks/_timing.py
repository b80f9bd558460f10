"""Timing shared by the benchmark scripts: the best of several runs."""

import time


def best_seconds(function, runs=5, clock=time.perf_counter):
    """The shortest time of ``runs`` calls of ``function()``, in seconds.

    Wall-clock time by default; ``clock=time.process_time`` gives the CPU time of this
    process, which a busy machine disturbs less.
    """
    times = []
    for _ in range(runs):
        start = clock()
        function()
        times.append(clock() - start)
    return min(times)
