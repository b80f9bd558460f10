"""The Python core as a user gets it from the wheel (scripts/test-dist.sh runs this in a fresh
virtual environment outside the checkout): dppack itself, its [sklearn] extra and its [dask]
extra. Exits non-zero on any failure."""

import os
import sys

import numpy as np

import dppack

# The installed wheel, not a checkout on the path.
here = os.path.realpath(sys.prefix)
where = os.path.realpath(dppack.__file__)
assert where.startswith(here + os.sep), f"dppack imported from {where}, not from {here}"
expected = os.environ.get("DPPACK_EXPECTED_VERSION")
assert expected is None or dppack.__version__ == expected, (dppack.__version__, expected)

# dppack itself: a private mean of values in [0, 1].
x = np.linspace(0, 1, 101)
mean = dppack.meanDP(x, 1.0, 0, 1, random_state=1)
assert np.isfinite(mean), mean
print(f"dppack {dppack.__version__} from {where}: meanDP = {mean:.4f}")

# [sklearn]: a private logistic regression as a scikit-learn classifier.
from dppack.sklearn import DPLogisticRegression  # noqa: E402

rows = np.random.default_rng(0).uniform(-1, 1, size=(200, 2))  # test data, not released
labels = (rows[:, 0] + rows[:, 1] > 0).astype(int)
model = DPLogisticRegression(eps=1.0, gamma=1.0, feature_bounds=(-1, 1), random_state=2)
model.fit(rows, labels)
assert model.coef_.shape == (1, 2), model.coef_.shape
accuracy = float(np.mean(model.predict(rows) == labels))
print(f"DPLogisticRegression: coef {np.round(model.coef_.ravel(), 3)}, accuracy {accuracy:.2f}")

# [dask]: the same mean over a Dask array and over a Dask data frame's column (the data frame
# needs pyarrow built for the installed NumPy).
import dask  # noqa: E402
import dask.array as da  # noqa: E402
import dask.dataframe as dd  # noqa: E402
import pandas as pd  # noqa: E402

dask.config.set(scheduler="synchronous")
lazy = da.from_array(x, chunks=25)
dask_mean = dppack.meanDP(lazy, 1.0, 0, 1, random_state=1)
frame = dd.from_pandas(pd.DataFrame({"x": x}), npartitions=4)
frame_mean = dppack.meanDP(frame["x"], 1.0, 0, 1, random_state=1)
print(f"Dask {dask.__version__}: meanDP over an array {dask_mean:.4f}, "
      f"over a data frame column {frame_mean:.4f}")
assert np.isfinite(dask_mean) and np.isfinite(frame_mean)
print("python dist check: ok")
