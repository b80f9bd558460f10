#!/usr/bin/env python
"""Record the outputs of the small releases for several seeds (issue 29's bit-identity check).

Usage: PYTHONPATH=python python scripts/record-releases.py OUT.json [COMMIT]

Writes, for every case of ``tests/python/fast_path_cases.py``, the released values (floats as
``float.hex``), errors and warnings for the integer seeds there, and for a shared Generator
the two results and the generator's state after them. ``tests/python/test_fast_path.py``
compares the current code with such a file recorded at an earlier commit.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "python"))

import fast_path_cases  # noqa: E402


def main(argv):
    path = argv[1]
    commit = argv[2] if len(argv) > 2 else "unknown"
    import numpy as np

    data = {
        "commit": commit,
        "numpy": np.__version__,
        "cases": {name: fast_path_cases.record_case(fn)
                  for name, fn in fast_path_cases.cases().items()},
    }
    pathlib.Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv)
