#!/usr/bin/env bash
# Headless Chromium for the browser tests, from Debian's packages (never a downloaded build).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "browser tests need /usr/bin/chromium: run 'apt-get install -y chromium' as root" >&2
  exit 1
fi
echo "[setup] installing chromium from Debian's packages"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
