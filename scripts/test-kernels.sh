#!/usr/bin/env bash
# Run the R-marked Python tests (R against Python) again under other OpenBLAS kernels, so that
# a result that depends on the BLAS kernel cannot land (see
# tests/python/cross_language/test_cross_language.py).
# The regular run (make test-python) uses the machine's own setting of OPENBLAS_CORETYPE, set or
# not; this adds Prescott (SSE3, runs on every x86-64) and, where the processor has AVX2,
# Haswell. The variable is set for these runs only; the machine's own run is left as it is.
# Usage: test-kernels.sh [PYTHON [KERNEL]]: with KERNEL (Prescott or Haswell), that kernel only
# (make test runs the two at once, one per core); Haswell is skipped where there is no AVX2.
set -euo pipefail
python=${1:-.venv/bin/python}
kernels=(Prescott)
if grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
  kernels+=(Haswell)
fi
if [ $# -ge 2 ]; then
  case " ${kernels[*]} " in
    *" $2 "*) kernels=("$2") ;;
    *) echo "== OPENBLAS_CORETYPE=$2: not run (not a kernel of this processor)"; exit 0 ;;
  esac
fi
for kernel in "${kernels[@]}"; do
  echo "== R-marked tests with OPENBLAS_CORETYPE=$kernel"
  OPENBLAS_CORETYPE=$kernel DPPACK_REQUIRE_R=1 "$python" -m pytest tests/python -m r -q \
    -p no:cacheprovider
done
