#!/usr/bin/env bash
# Install the Debian packages DPpackPy needs, only those that are missing (run as root).
# Usage: install-system.sh PYTHON
set -euo pipefail
python=${1:-python3}

packages=(r-base-core r-base-dev r-cran-r6 r-cran-reticulate r-cran-testthat r-cran-roxygen2
          r-cran-knitr r-cran-rmarkdown r-cran-mass r-cran-pkgbuild r-cran-pkgdown pandoc)
# Debian's own Python needs its venv and header packages; a Python built elsewhere has both.
if ! "$python" -m venv --help > /dev/null 2>&1; then
  packages+=(python3 python3-venv python3-dev)
fi

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null | grep -q '^install ok installed' \
    || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing Debian packages: ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "Installing them needs root: run 'make install' as root, or install them with sudo apt-get." >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
