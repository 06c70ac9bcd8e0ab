#!/usr/bin/env bash
# Configures and builds Heptapod (Release) into build/. Extra arguments go to the CMake configure step.
# BUILD_TARGET builds one target (the demo builds only `heptapod`); the default is everything, tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build build -j"$(nproc)" ${BUILD_TARGET:+--target "$BUILD_TARGET"}
