#!/usr/bin/env bash
# Build the R package and run R CMD check on the tarball; fail on any ERROR or WARNING.
# Usage: check-r.sh [TARBALL]: check TARBALL (make check-r passes the one make install built
# and installed) instead of building one.
set -euo pipefail
# The check installs the package afresh: tell it which Python holds the core.
export DPPACKPY_PYTHON="${DPPACKPY_PYTHON:-$PWD/.venv/bin/python}"
out=build/check
rm -rf "$out" && mkdir -p "$out"
if [ $# -ge 1 ]; then
  cp "$1" "$out/"
  tarball=$(basename "$1")
else
  R CMD build --no-manual . > "$out/build.log" 2>&1 || { cat "$out/build.log"; exit 1; }
  tarball=$(ls DPpackPy_*.tar.gz | tail -n 1)
  mv "$tarball" "$out/"
fi
# R_CHECK_ARGS: more options of R CMD check (make test passes --no-tests: see the Makefile).
(cd "$out" && _R_CHECK_FORCE_SUGGESTS_=true R CMD check --no-manual ${R_CHECK_ARGS:-} "$tarball") > "$out/check.log" 2>&1 || true
log="$out/DPpackPy.Rcheck/00check.log"
[ -f "$log" ] || { cat "$out/check.log"; exit 1; }
status=$(grep '^Status:' "$log" || true)
echo "R CMD check: ${status:-no status}"
if [ -z "$status" ] || echo "$status" | grep -qE 'ERROR|WARNING'; then
  cat "$log"
  exit 1
fi
# The examples run only where the core loads (@examplesIf); make sure they did run here.
if ! grep -q '^\[1\] 3.730632' "$out/DPpackPy.Rcheck/DPpackPy-Ex.Rout"; then
  echo "R CMD check did not run the examples against the Python core."
  exit 1
fi
grep -B1 -A6 'NOTE$' "$log" || true
