"""Start-up cost: `import dppack`, and `library(DPpackPy)` with a first call.

Each is timed as a whole fresh process, best of several runs, beside a non-private reference
timed in the same run: `import numpy` for Python, an R session that only starts for R.
Targets (issue 2): import under 0.5 s; library(DPpackPy) plus a first call under 3 s.
"""

import shutil
import subprocess
import sys

from _readme import write_table
from _timing import best_seconds


def process_seconds(command):
    """Best wall-clock time of running ``command`` as a fresh process."""
    return best_seconds(lambda: subprocess.run(command, check=True, capture_output=True))


def report(label, seconds, reference_label, reference, target):
    verdict = "meets" if seconds < target else "MISSES"
    print(f"{label:<44} {seconds:6.3f} s   {reference_label} {reference:6.3f} s   "
          f"ratio {seconds / reference:5.2f}   {verdict} target < {target} s")
    ROWS.append([label, f"{seconds:.2f} s", f"{reference_label} {reference:.2f} s",
                 f"{seconds / reference:.2f}", f"< {target} s"])


HEADER = ["what", "time", "reference", "ratio", "target"]
ROWS = []


def main():
    python = sys.executable
    numpy_import = process_seconds([python, "-c", "import numpy"])
    dppack_import = process_seconds([python, "-c", "import dppack"])
    report("python: import dppack", dppack_import, "import numpy", numpy_import, 0.5)

    rscript = shutil.which("Rscript")
    if rscript is None:
        print("Rscript not found: R start-up not measured")
        return write_table("startup", HEADER, ROWS)
    r_bare = process_seconds([rscript, "-e", "invisible(0)"])
    r_first_call = process_seconds(
        [rscript, "-e", "library(DPpackPy); invisible(LaplaceMechanism(0, 1, 1))"]
    )
    report("R: library(DPpackPy) + LaplaceMechanism()", r_first_call, "bare Rscript",
           r_bare, 3.0)
    write_table("startup", HEADER, ROWS)


if __name__ == "__main__":
    main()
