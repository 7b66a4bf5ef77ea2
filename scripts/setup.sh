#!/usr/bin/env bash
# Installs what caliber needs to build and test, from Debian packages (apt-get). Idempotent:
# installs nothing when everything is present. nvcc is optional: without it the cuda backend is
# not built and everything else is.
set -euo pipefail

packages=(cmake ninja-build g++ pkg-config python3
          nlohmann-json3-dev libcli11-dev libfmt-dev libyaml-cpp-dev libssl-dev
          libgtest-dev libvalijson-dev libopenblas-dev libmuparser-dev
          libsqlite3-dev libpq-dev postgresql
          python3-venv python3-pytest)  # pip install . into a fresh environment, and the pytest plugin's tests
# Extra packages a caller asks for (the tests add chromium for the HTML report check).
packages+=("$@")

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
