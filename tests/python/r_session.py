"""Run R expressions in an embedded R (rpy2), in a subprocess, and return their values.

Tests call :func:`run_in_r`; it starts this file as a script in a fresh process. reticulate 1.28
inside an rpy2-embedded R serves calls well, but R's garbage collector frees Python objects
without the GIL (rpy2 releases it while R runs), which aborts the process. So the session runs
with heaps large enough that R never collects (R_NSIZE, R_VSIZE), and leaves through
``os._exit`` once the results are written, skipping R's own exit. The test process itself
never embeds R.

Values come back as plain data: a numeric, integer or logical vector as
``{"values": [float.hex, ...], "dim": [...] or None, "names": [...] or None}``, a character
vector or factor as ``{"strings": [...], ...}``, a list as ``{"list": {name: value}}``, and an
R error as ``{"error": message}``.

The cross-language tests share the rest: exact R literals of Python numbers (:func:`r_vector`,
:func:`r_matrix`), a module fixture that runs a table of cases in one R session
(:func:`r_results_fixture`), the comparisons (:func:`assert_same_bits`, :func:`assert_close`,
:func:`assert_core_message`) and the small classification data several of them fit
(:data:`CLASSIFICATION_X`, :data:`CLASSIFICATION_Y`).
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

__all__ = [
    "CLASSIFICATION_X",
    "CLASSIFICATION_Y",
    "assert_close",
    "assert_core_message",
    "assert_same_bits",
    "floats",
    "r_matrix",
    "r_number",
    "r_results_fixture",
    "r_vector",
    "require_r",
    "run_cases_in_r",
    "run_in_r",
]

#: 16 rows of two features with two decimals, two values outside [-1, 1] (the fits clip them),
#: and their 0/1 labels: the classification data of the ERM cases.
CLASSIFICATION_X = [
    [0.21, -0.53], [0.94, 0.12], [-0.37, 0.81], [0.58, 0.44], [-0.92, -0.15], [0.05, 0.66],
    [-0.71, 0.29], [0.33, -0.88], [1.4, -0.2], [-0.12, -0.47], [0.76, -0.61], [-0.55, 0.93],
    [0.48, 0.07], [-0.26, -1.3], [0.87, 0.35], [-0.64, -0.72],
]
CLASSIFICATION_Y = [1, 1, 0, 1, 0, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0]


def require_r():
    """Skip the calling test module when rpy2 is missing.

    `make test` sets DPPACK_REQUIRE_R, so there a missing R or rpy2 fails instead of skipping.
    """
    if os.environ.get("DPPACK_REQUIRE_R"):
        return
    try:
        import rpy2  # noqa: F401
    except ImportError:
        import pytest

        pytest.skip("rpy2 is not installed", allow_module_level=True)


def run_in_r(code, timeout=600):
    """Evaluate ``{name: R expression}`` with DPpackPy attached; return ``{name: value}``."""
    with tempfile.TemporaryDirectory() as folder:
        output = Path(folder) / "results.json"
        env = dict(os.environ, R_NSIZE="20000000", R_VSIZE="2000M")
        completed = subprocess.run(
            [sys.executable, __file__, str(output)],
            input=json.dumps(code),
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"R session failed:\n{completed.stdout}\n{completed.stderr}")
        return json.loads(output.read_text(encoding="utf-8"))


def run_cases_in_r(cases, seed, extra=None):
    """Run every case in one R session: ``cases`` maps a name to ``(R expression, Python
    function of a generator)``; each R expression runs inside ``with_random_state(seed, ...)``,
    the ``extra`` ``{name: R expression}`` as they are. Returns :func:`run_in_r`'s values."""
    code = {name: f"with_random_state({seed}, {expr})" for name, (expr, _) in cases.items()}
    code.update(extra or {})
    return run_in_r(code)


def r_results_fixture(cases, seed, extra=None):
    """A module-scoped pytest fixture ``r_results``: :func:`run_cases_in_r` of the module's
    cases, run once for all its tests. Assign it to the module's name ``r_results``."""
    import pytest  # here, not at import: the R subprocess that runs this file needs no pytest

    @pytest.fixture(scope="module", name="r_results")
    def results():
        return run_cases_in_r(cases, seed, extra)

    return results


def floats(result):
    """The numbers of a converted numeric vector, as Python floats."""
    return [float.fromhex(v) for v in result["values"]]


def r_number(value):
    """A double as an R literal that R reads as the same double: hexadecimal (exact, unlike a
    decimal, which R's parser may round differently), or NA, Inf, -Inf."""
    import math

    if math.isnan(value):
        return "NA"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    return float(value).hex()


def r_vector(values):
    """R's ``c(...)`` of the numbers (flattened in C order), each exact (:func:`r_number`)."""
    import numpy as np

    return "c(" + ", ".join(r_number(v) for v in np.ravel(np.asarray(values, dtype=float))) + ")"


def r_matrix(X):
    """R's ``matrix(...)`` of a 2-d array: the same entries in the same places (R fills
    column by column)."""
    import numpy as np

    X = np.asarray(X, dtype=float)
    return f"matrix({r_vector(X.ravel(order='F'))}, ncol = {X.shape[1]})"


def assert_core_message(r_value, python_call):
    """An R call failed with the core's message: ``r_value`` (:func:`run_in_r`'s value of the
    R call) holds the R text of the ValueError that ``python_call()`` raises (the same message
    in R's spelling, :func:`dppack._messages.r_text`), without the class prefix or a Python
    traceback."""
    import pytest

    from dppack import _messages

    with pytest.raises(ValueError) as python_error:
        python_call()
    assert "error" in r_value, r_value
    message = r_value["error"]
    assert _messages.r_text(python_error.value) in message
    assert "ValueError" not in message and "Traceback" not in message


def _in_r_order(r_value, expected):
    """``expected`` as a flat float array in R's column-major order, its shape checked against
    the R value's; dicts (R lists) and histograms are walked by the callers."""
    import numpy as np  # here, not at import: the R subprocess that runs this file needs neither
    import pandas as pd

    assert "error" not in r_value, r_value.get("error")
    array = np.asarray(expected, dtype=np.float64)
    if isinstance(expected, pd.Series) and expected.index.nlevels > 1:
        array = array.reshape(expected.index.levshape)
    if r_value["dim"] is not None and array.ndim > 1:  # (R's n x 1 predictions match 1-d)
        assert r_value["dim"] == list(array.shape)
    return array.ravel(order="F")


def _walk(r_value, expected, compare):
    """Apply ``compare(r_value, expected)`` to every leaf of a (nested) expected value."""
    from dppack import rcompat

    assert "error" not in r_value, r_value.get("error")
    if isinstance(expected, rcompat.Histogram):
        expected = {"breaks": expected.breaks, "counts": expected.counts, "mids": expected.mids}
    if isinstance(expected, dict):
        for key, item in expected.items():
            _walk(r_value["list"][key], item, compare)
        return
    compare(r_value, expected)


def assert_same_bits(r_value, expected):
    """An R value (as :func:`run_in_r` returns it) equals a Python result, bit for bit.

    ``expected`` may be a number, an array (compared in R's column-major order, with its
    shape), a dict of such (an R list), a pandas table (a k-way table has the first factor
    varying slowest) or a ``dppack.rcompat.Histogram``.
    """
    def same_bits(value, leaf):
        assert value["values"] == [float(v).hex() for v in _in_r_order(value, leaf)]

    _walk(r_value, expected, same_bits)


def assert_close(r_value, expected, atol):
    """As :func:`assert_same_bits`, but to an absolute tolerance ``atol``: for results that R
    computes partly with arithmetic of its own (see ``test_cross_language.py``)."""
    import numpy as np

    def close(value, leaf):
        got = np.array(floats(value))
        want = _in_r_order(value, leaf)
        assert got.shape == want.shape
        gap = float(np.max(np.abs(got - want))) if got.size else 0.0
        assert gap <= atol, f"R and Python differ by {gap:.3g} > {atol:.3g}"

    _walk(r_value, expected, close)


def _convert(robjects, value):
    r = robjects.r
    if r["is.list"](value)[0]:
        names = r["names"](value)
        keys = list(names) if names is not robjects.NULL else [str(i) for i in range(len(value))]
        return {"list": {k: _convert(robjects, v) for k, v in zip(keys, value)}}
    dim = r["dim"](value)
    names = r["names"](value)
    shape = {
        "dim": None if dim is robjects.NULL else [int(d) for d in dim],
        "names": None if names is robjects.NULL else [str(n) for n in names],
    }
    if r["is.character"](value)[0] or r["is.factor"](value)[0]:
        return {"strings": [str(s) for s in r["as.character"](value)], **shape}
    return {"values": [float(v).hex() for v in r["as.double"](value)], **shape}


def _evaluate(robjects, code):
    try:
        value = robjects.r(code)
    except Exception as exc:  # an R error: report its text
        return {"error": str(exc)}
    return _convert(robjects, value)


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
