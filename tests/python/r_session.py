"""Evaluate R expressions in an embedded R (rpy2) and print their values as JSON.

Run as a subprocess by the cross-language tests, never imported: reticulate 1.28 inside an
rpy2-embedded R serves calls well, but R's garbage collector frees Python objects without the
GIL (rpy2 releases it while R runs), which aborts the process. So the caller starts this script
with heaps large enough that R never collects during a session (R_NSIZE, R_VSIZE), and it leaves
through ``os._exit`` once the results are written, skipping R's own exit.

Input on stdin: a JSON object {name: R expression}. Output, to the file named by the only
argument (R's console output goes to stdout): a JSON object
{name: {"values": [float.hex, ...], "dim": [...] or null}} or {name: {"error": message}}.
"""

import json
import os
import sys


def _evaluate(robjects, code):
    try:
        value = robjects.r(code)
    except Exception as exc:  # an R error: report its text
        return {"error": str(exc)}
    dim = robjects.r["dim"](value)
    return {
        "values": [float(v).hex() for v in value],
        "dim": None if dim is robjects.NULL else [int(d) for d in dim],
    }


def main():
    cases = json.load(sys.stdin)
    import rpy2.robjects as robjects

    robjects.r("suppressPackageStartupMessages(library(DPpackPy))")
    results = {name: _evaluate(robjects, code) for name, code in cases.items()}
    with open(sys.argv[1], "w", encoding="utf-8") as output:
        json.dump(results, output)
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
