#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/check-layers.sh   # no folder uses a folder above it (README, "Architecture")
swift build --build-tests
swift test --skip-build "$@"
