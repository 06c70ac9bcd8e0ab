#!/usr/bin/env bash
# The demo: installs dependencies, builds, trains a small Transformer on a synthetic copy task (data are
# generated, nothing is downloaded), then translates held-out examples with it and reports accuracy.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
mkdir -p runs/demo
build/apps/heptapod info
build/apps/heptapod demo --task copy -o runs/demo/model.htp "$@"
