#!/usr/bin/env bash
# The Debian writers the fixture generators in scripts/fixtures/ run (tests never need them:
# they read the committed fixtures). Python writers come from scripts/setup-python.sh, npm
# ones from the root package.json, Java TsFile from Maven when a generator first runs.
# Idempotent; installs only what is missing. Needs root (apt-get).
set -euo pipefail

pkgs=(
  hdf5-tools libhdf5-dev netcdf-bin libaec-dev libaec-tools  # h5repack/h5jam, C API, nccopy, SZIP
  libmsgpack-dev ruby-msgpack php-cli php-msgpack tarantool   # MessagePack writers
  maven default-jdk-headless                                   # Java TsFile (Maven Central)
)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "[writers] all present"
  exit 0
fi
echo "[writers] installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y --no-install-recommends "${missing[@]}" || {
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
}
