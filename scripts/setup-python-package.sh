#!/usr/bin/env bash
# Idempotent: build the Python wheel (crates/python, PyO3 + maturin, abi3) into the project's
# venv with what its tests use. Rebuilt when a Rust or Python source of it changed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
bash scripts/setup-python.sh
py="$root/.venv/bin/python"
req="crates/python/requirements-test.txt"
stamp="$root/.venv/.arrowsmith-wheel.stamp"
sum=$(cat "$req" Cargo.lock crates/python/Cargo.toml crates/python/pyproject.toml \
  $(git ls-files crates/python crates/arrow crates/core crates/tsfile crates/hdf5 crates/msgpack crates/inflate | grep -E '\.(rs|py|pyi|toml)$') | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then exit 0; fi
"$py" -m pip install --quiet --disable-pip-version-check -r "$req"
# The wheel's own Cargo target dir (its workspace is separate from the root one).
CARGO_TARGET_DIR="$root/target/python" "$py" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./crates/python
echo "$sum" > "$stamp"
echo "arrowsmith wheel installed in $root/.venv"
