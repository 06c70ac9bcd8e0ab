#!/usr/bin/env bash
# The test command: installs dependencies, builds, and runs the whole suite with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)"
