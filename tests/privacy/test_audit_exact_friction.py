"""Audits of the newcomer-friction changes (issue 26): the inputs they now accept reach the
same mechanisms as before, with the same guarantee (tests/privacy/README.md).

* ``tableDP`` of a pandas DataFrame of Categoricals: the cells come from the declared
  categories (the dtype), not from the data, so a record moved into a combination that is
  empty in the other neighbour keeps the cells; the counts are eps-DP.
* The core classifiers with bool or two-category labels: the label set comes from the dtype,
  never from the values, so a neighbour whose changed record carries the other label gives the
  same outcome space (no refusal that depends on the data); the coefficient is eps-DP.

Each audit's false-failure rate is 1e-3 (auditor.py); the seeds are fixed.
"""

import numpy as np
import pandas as pd
import pytest

import dppack
from auditor import assert_private, assert_same_structure

LEVELS_A, LEVELS_B = ["x", "y"], ["u", "v", "w"]


def _frame(a, b):
    return pd.DataFrame({"a": pd.Categorical(a, categories=LEVELS_A),
                         "b": pd.Categorical(b, categories=LEVELS_B)})


# One record moved from (x, u) to (y, w): a combination never seen in d0 (an empty cell).
TABLE_D0 = _frame(["x", "x", "y", "x"], ["u", "v", "u", "u"])
TABLE_D1 = _frame(["x", "x", "y", "y"], ["u", "v", "u", "w"])


def _table(data, rng):
    return dppack.tableDP(data, eps=1.0, allow_negative=True, random_state=rng)


def _cells(out):
    counts = out.to_numpy().ravel()
    return np.r_[counts, counts[0] - counts[-1]]  # (x, u) and (y, w) moved in opposite ways


def _shape(out):
    return (tuple(out.index), tuple(out.columns))


def test_table_of_a_categorical_frame_keeps_its_cells():
    assert_same_structure(_table, TABLE_D0, TABLE_D1, _shape)


def test_table_of_a_categorical_frame_is_private():
    assert_private(_table, TABLE_D0, TABLE_D1, 1.0, n_samples=2_000, n_pilot=500,
                   project=_cells)


# One record moved from (x = 1, label True) to (x = -1, label True): as the 0/1 audit of
# test_audit_models.py, with the labels given as bool and as a Categorical.
X0 = np.array([[1.0], [1.0], [-1.0], [-1.0], [0.5], [1.0]])
X1 = np.array([[1.0], [1.0], [-1.0], [-1.0], [0.5], [-1.0]])
LABELS = np.array([True, True, False, False, True, True])


def _logistic(data, rng):
    X, y = data
    model = dppack.LogisticRegressionDP("l2", 1.0, 1.0, "output")
    return model.fit(X, y, [1.0], [-1.0], random_state=rng).coeff


@pytest.mark.parametrize("form", ["bool", "categorical"])
def test_logistic_with_typed_labels_is_private(form):
    y = LABELS if form == "bool" else pd.Categorical(
        np.where(LABELS, "yes", "no"), categories=["no", "yes"])
    assert_private(_logistic, (X0, y), (X1, y), 1.0, n_samples=400, n_pilot=200)


def test_one_label_class_is_no_refusal():
    # all labels one class in d1: the label set is the dtype's, so the fit still runs
    only_true = np.ones(6, dtype=bool)
    assert_same_structure(_logistic, (X0, LABELS), (X0, only_true), lambda coeff: coeff.shape)
