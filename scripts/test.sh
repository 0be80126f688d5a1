#!/usr/bin/env bash
# Installs what is missing, then builds and runs the whole test suite, then a one-patient,
# one-day in-silico trial of the dose suggestions (insilico/, real simulator, real executables).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/check-layers.sh   # no folder uses a folder above it (README, "How the code is laid out")
swift build --build-tests
swift test --skip-build "$@"
# The smoke trial drives the debug executables the build above made (a release build would add
# minutes to every run; the trial's figures do not depend on the build mode).
bash insilico/setup.sh
insilico/.venv/bin/python insilico/trial.py --smoke --bin "$(swift build --show-bin-path)" --out .build/insilico-smoke
