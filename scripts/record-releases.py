#!/usr/bin/env python
"""Record the outputs of the releases for several seeds (issues 29 and 27's bit-identity checks).

Usage: PYTHONPATH=python python scripts/record-releases.py OUT.json [COMMIT]
       PYTHONPATH=python python scripts/record-releases.py --all OUT.json [COMMIT]

Writes, for every case of ``tests/python/fast_path_cases.py`` (with ``--all``: of
``tests/python/release_cases.py``, every public release), the released values (floats as
``float.hex``), errors and warnings for the integer seeds there, and for a shared Generator
the two results and the generator's state after them.
``tests/python/releases/test_fast_path.py`` and ``tests/python/releases/test_bit_identical.py``
compare the current code with such files recorded at an earlier commit.
"""

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent / "tests" / "python"))

import fast_path_cases  # noqa: E402


def main(argv):
    argv = list(argv)
    every = "--all" in argv
    if every:
        argv.remove("--all")
    path = argv[1]
    commit = argv[2] if len(argv) > 2 else "unknown"
    import numpy as np

    if every:
        import release_cases

        module = release_cases
    else:
        module = fast_path_cases
    data = {
        "commit": commit,
        "numpy": np.__version__,
        "cases": {name: module.record_case(fn) for name, fn in module.cases().items()},
    }
    if every:
        data["machine"] = release_cases.machine()
    pathlib.Path(path).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv)
