#!/usr/bin/env bash
# Idempotent: a Python venv (.venv) with the reference writers/readers (fixtures, peer benchmarks).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
venv="$root/.venv"
req="$root/scripts/requirements.txt"
stamp="$venv/.requirements.stamp"
if [ -f "$stamp" ] && cmp -s "$req" "$stamp"; then exit 0; fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req"
cp "$req" "$stamp"
echo "python venv ready: $venv"
