"""The bundled Pima data equal R's MASS::Pima.tr and Pima.te, row for row."""

import subprocess
import sys

import numpy as np
import pytest
from r_session import floats, require_r, run_in_r

from dppack.datasets import load_pima

NUMERIC = ["npreg", "glu", "bp", "skin", "bmi", "ped", "age"]


def test_pima_has_the_documented_shape():
    pima = load_pima()
    assert pima.shape == (532, 8)
    assert list(pima.columns) == NUMERIC + ["type"]
    assert set(pima["type"]) == {"Yes", "No"}
    assert not pima.isna().any().any()


def test_readme_line_works_after_a_bare_import():
    # A fresh process: in this one dppack.datasets is already imported by the line above.
    # ``import dppack`` must not import pandas (startup time, benchmarks/startup.py).
    code = ("import sys, dppack; assert 'pandas' not in sys.modules; "
            "print(dppack.datasets.load_pima().shape)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "(532, 8)"


@pytest.mark.r
def test_pima_equals_mass():
    require_r()
    code = {column: f"rbind(MASS::Pima.tr, MASS::Pima.te)${column}" for column in NUMERIC}
    code["type"] = "as.character(rbind(MASS::Pima.tr, MASS::Pima.te)$type)"
    r = run_in_r(code)
    pima = load_pima()
    for column in NUMERIC:
        np.testing.assert_array_equal(pima[column].to_numpy(dtype=float), floats(r[column]))
    assert pima["type"].tolist() == r["type"]["strings"]
