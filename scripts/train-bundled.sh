#!/usr/bin/env bash
# Installs what is missing, builds in release mode, and trains a personal model for every
# patient of the bundled cohort (datasets/) at 30, 60, 90 and 120 minutes. Extra arguments
# go to glucomodel-train (e.g. --out DIR, --generations N).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
swift build -c release --product glucomodel-train
.build/release/glucomodel-train "$@"
