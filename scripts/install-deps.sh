#!/usr/bin/env bash
# Installs every Debian 12 package Heptapod needs to build and test (the list is also in README.md and
# cmake/Dependencies.cmake). Runs apt-get as root, or through sudo. dpkg-dev (dpkg-shlibdeps), binutils (objdump,
# readelf) and file are for the packaging: cpack -G DEB and tests/package/deb.sh. chromium, chromium-driver and
# python3-selenium run the web page's browser test (tests/browser). pybind11-dev and python3-dev build the Python
# module (python/), python3-pytest tests it, python3-venv is for `pip install` into a virtual environment.
set -euo pipefail
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
PACKAGES=(
  build-essential cmake
  libdnnl-dev libopenblas-openmp-dev
  nlohmann-json3-dev libcli11-dev libsentencepiece-dev libcpp-httplib-dev pkg-config
  libgtest-dev libgmock-dev libbenchmark-dev
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-pytest python3-venv python3-setuptools
  dpkg-dev binutils file
  chromium chromium-driver python3-selenium
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
