#!/usr/bin/env bash
# make test-dist: installs the artefacts of make dist as a user would, in a temporary
# directory outside the checkout (no PYTHONPATH, no DPPACKPY_PYTHON, a fresh R library and a
# fresh root for reticulate's virtual environments), and runs tests/dist/check_dist.py (the
# wheel with its [sklearn] and [dask] extras) and tests/dist/check_dist.R (the R source package,
# then install_dppack() with the core it carries). pip reaches PyPI for the dependencies, from
# its cache where it can.
# Usage: scripts/test-dist.sh [PYTHON]   (the Python that makes the virtual environments)
set -euo pipefail
python=$(command -v "${1:-python3}")
repo=$(cd "$(dirname "$0")/.." && pwd)
version=$(sed -n 's/^Version: *//p' "$repo/DESCRIPTION")
wheel=$repo/dist/dppack-$version-py3-none-any.whl
rpkg=$repo/dist/DPpackPy_$version.tar.gz
for f in "$wheel" "$rpkg"; do
  [ -f "$f" ] || { echo "test-dist: $f is missing; run make dist" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/dppack-dist-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
cp "$repo/tests/dist/check_dist.py" "$repo/tests/dist/check_dist.R" "$work/"
cd "$work"
# Nothing may lead back to the checkout or its environments.
unset PYTHONPATH DPPACKPY_PYTHON RETICULATE_PYTHON VIRTUAL_ENV R_LIBS R_LIBS_USER PYTHONHOME
export DPPACK_EXPECTED_VERSION=$version
# The versions the R package pins (install_dppack()): NumPy 1 and a pyarrow built for it.
printf 'numpy<2\npyarrow<23\n' > constraints.txt
pip_install=(-m pip install -q --disable-pip-version-check -c constraints.txt)

# The two languages at once (one per core), each into its log, printed when both are done.
python_part() {
  echo "== Python: dppack[sklearn,dask] from $(basename "$wheel") into a fresh virtual environment"
  local start=$SECONDS
  "$python" -m venv py
  py/bin/python "${pip_install[@]}" "dppack[sklearn,dask] @ file://$wheel"
  echo "   installed in $((SECONDS - start)) s"
  py/bin/python check_dist.py
}

r_part() {
  echo "== R: $(basename "$rpkg") into a fresh library, then install_dppack()"
  local start=$SECONDS
  mkdir -p rlib venvs
  export DPPACK_TEST_LIB=$work/rlib WORKON_HOME=$work/venvs
  # reticulate makes the environment with the first python3 on the PATH: the one given here.
  PATH=$(dirname "$python"):$PATH
  Rscript -e "install.packages('$rpkg', lib = '$work/rlib', repos = NULL, type = 'source', quiet = TRUE)"
  echo "   R package installed in $((SECONDS - start)) s"
  Rscript check_dist.R
  echo "   R part done in $((SECONDS - start)) s"
}

# pip's byte-compilation of the dependencies is most of its CPU time, and not under test.
export PIP_NO_COMPILE=1
# An index that cannot be reached answers at once: no retries with back-off (where pip's
# Python lacks TLS, each package otherwise waits about 6 s before the next index).
export PIP_RETRIES=0
(set -e; python_part) > python.log 2>&1 & python_pid=$!
set +e  # (so that `set -e` holds inside the parts, whose statuses are read here)
(set -e; r_part) > r.log 2>&1; r_status=$?
wait "$python_pid"; python_status=$?
set -e
cat python.log r.log
if [ "$python_status" -ne 0 ] || [ "$r_status" -ne 0 ]; then
  echo "== test-dist: FAILED (Python part: exit $python_status, R part: exit $r_status)" >&2
  exit 1
fi
echo "== test-dist: ok"
