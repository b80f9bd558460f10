#!/usr/bin/env bash
# make dist: the Python core's sdist and wheel, and the R source package carrying that wheel
# (under inst/python/, installed by install_dppack()), all into dist/.
# Usage: scripts/build-dist.sh PYTHON [R_TARBALL]
#   PYTHON: a Python with the `build` package. R_TARBALL: the package R CMD build made from this
#   checkout; without it R CMD build runs here (building the vignettes, which needs
#   DPPACKPY_PYTHON to name a Python with the core).
set -euo pipefail
python=${1:?usage: scripts/build-dist.sh PYTHON}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"

# One version for both languages: DESCRIPTION's Version is dppack.__version__.
r_version=$(sed -n 's/^Version: *//p' DESCRIPTION)
py_version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' python/dppack/__init__.py)
if [ "$r_version" != "$py_version" ]; then
  echo "build-dist: DESCRIPTION has Version $r_version but python/dppack/__init__.py has" \
       "__version__ $py_version; make them equal." >&2
  exit 1
fi

rm -rf dist build/dist-stage
mkdir -p dist build/dist-stage

# The Python artefacts: the sdist, then the wheel built from it (python -m build's default).
"$python" -m build --outdir dist . > build/dist-python.log 2>&1 || { cat build/dist-python.log; exit 1; }
wheel=dist/dppack-$py_version-py3-none-any.whl
[ -f "$wheel" ] && [ -f "dist/dppack-$py_version.tar.gz" ] || {
  echo "build-dist: python -m build did not make $wheel and its sdist" >&2; ls dist >&2; exit 1; }

# The R package: the source package R CMD build makes from the checkout (or the one given,
# which make dist takes from make install: the tarball check-r checks), with the wheel added
# under inst/python/, where install_dppack() finds it.
stage=build/dist-stage
if [ -n "${2:-}" ]; then
  cp "$2" "$stage/"
else
  (cd "$stage" && R CMD build --no-manual "$repo") > build/dist-r.log 2>&1 \
    || { cat build/dist-r.log; exit 1; }
fi
mkdir -p "$stage/unpacked"
tar -xzf "$stage/DPpackPy_$r_version.tar.gz" -C "$stage/unpacked"
mkdir -p "$stage/unpacked/DPpackPy/inst/python"
cp "$wheel" "$stage/unpacked/DPpackPy/inst/python/"
tar -C "$stage/unpacked" --owner=0 --group=0 -czf "dist/DPpackPy_$r_version.tar.gz" DPpackPy
contents=$(tar -tzf "dist/DPpackPy_$r_version.tar.gz")
grep -qx "DPpackPy/inst/python/dppack-$py_version-py3-none-any.whl" <<< "$contents" \
  || { echo "build-dist: the R package does not carry the wheel" >&2; exit 1; }
rm -rf build/dist-stage
ls -l dist
