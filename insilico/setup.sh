#!/usr/bin/env bash
# Creates insilico/.venv with the pinned packages of requirements.txt (PyPI). Idempotent: a venv
# whose requirements are already installed is left as it is.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv"
stamp="$venv/.requirements.sha256"
want=$(sha256sum "$here/requirements.txt" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then exit 0; fi
command -v python3 >/dev/null || { echo "insilico/setup.sh: python3 is required" >&2; exit 1; }
python3 -m venv "$venv" 2>/dev/null || {
  echo "insilico/setup.sh: python3 -m venv failed; installing Debian's python3-venv" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv "$venv"
}
"$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
echo "$want" > "$stamp"
