#!/usr/bin/env bash
# Run the R-marked Python tests (R against Python) again under other OpenBLAS kernels, so that
# a result that depends on the BLAS kernel cannot land (see tests/python/test_cross_language.py).
# The regular run (make test-python) uses the machine's own setting of OPENBLAS_CORETYPE, set or
# not; this adds Prescott (SSE3, runs on every x86-64) and, where the processor has AVX2,
# Haswell. The variable is set for these runs only; the machine's own run is left as it is.
set -euo pipefail
python=${1:-.venv/bin/python}
kernels=(Prescott)
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  kernels+=(Haswell)
fi
for kernel in "${kernels[@]}"; do
  echo "== R-marked tests with OPENBLAS_CORETYPE=$kernel"
  OPENBLAS_CORETYPE=$kernel DPPACK_REQUIRE_R=1 "$python" -m pytest tests/python -m r -q \
    -p no:cacheprovider
done
