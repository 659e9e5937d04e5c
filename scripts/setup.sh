#!/usr/bin/env bash
# Installs what the build and the tests need from Debian bookworm, only when missing (idempotent:
# a second run installs nothing). Needs root (or sudo) only when something is missing.
# `setup.sh serve` (scripts/serve.sh) installs only what building and serving need.
set -euo pipefail

# The serve set: the compiler, CMake + Ninja, the headers and libraries of the binary (Boost 1.81
# is headers only here: Beast and Asio; libboost1.81-dev carries no compiled library), and the
# system trust store of the unchanged-client mode. About 107 MB of .deb from a minbase bookworm.
PACKAGES=(
  cmake ninja-build g++
  libboost1.81-dev nlohmann-json3-dev libabsl-dev libssl-dev ca-certificates
)
if [ "${1:-}" != "serve" ]; then PACKAGES+=(
  ccache pkg-config
  googletest libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-requests python3-google-auth python3-jsonschema python3-pytest python3-pip openssl jq
  chromium
  clang libclang-rt-14-dev
); fi
if [ "${SCHEDEMU_SETUP_EXTRA:-}" != "" ]; then
  # shellcheck disable=SC2206
  PACKAGES+=(${SCHEDEMU_SETUP_EXTRA})
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "setup: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
