#!/usr/bin/env bash
# Installs the system libraries GlucoModel links (OpenBLAS, LAPACKE, and SQLite for GRDB) when they
# are missing.
# Idempotent: does nothing when pkg-config already finds them. Runs apt-get as root (or via sudo).
set -euo pipefail

need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if command -v pkg-config >/dev/null 2>&1; then
  pkg-config --exists openblas || need+=(libopenblas-dev)
  pkg-config --exists lapacke || need+=(liblapacke-dev)
  pkg-config --exists sqlite3 || need+=(libsqlite3-dev)
else
  need+=(libopenblas-dev liblapacke-dev libsqlite3-dev)
fi

if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]} (Debian packages)" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${need[@]}" >/dev/null
fi

command -v swift >/dev/null 2>&1 || { echo "setup: Swift 6 is required (swift not on PATH)" >&2; exit 1; }
