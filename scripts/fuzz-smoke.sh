#!/usr/bin/env bash
# A short run of every fuzz target (crates/fuzz), seeded with the committed fixtures: the
# smoke `npm test` runs (longer runs: docs/robustness.md). No sanitizer (a build of the
# targets takes ~3 min with ASan, ~1 with none; a panic, a hang over -timeout s or RSS over
# -rss_limit_mb fails the run either way). The seeds are copied: libFuzzer writes new inputs
# into its first corpus folder, never into fixtures/.
#
#   bash scripts/fuzz-smoke.sh [seconds per target, default 20]
# Prints "fuzz-smoke: N passed, M failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
secs="${1:-20}"
export RUSTC_BOOTSTRAP=1 # cargo-fuzz asks for nightly features; the stable toolchain has them behind this
if ! cargo fuzz --version >/dev/null 2>&1; then
  cargo install --locked cargo-fuzz --version "=0.13.2" || { echo "fuzz-smoke: 0 passed, 1 failed"; exit 1; }
fi
cargo fuzz build -s none --fuzz-dir crates/fuzz || { echo "fuzz-smoke: 0 passed, 1 failed"; exit 1; }

# Seeds per target: a fixtures folder and a name pattern (targets not listed run unseeded).
declare -A SEEDS=([msgpack]="fixtures/msgpack *" [tsfile]="fixtures/tsfile *.tsfile" [tsfile_mods]="fixtures/tsfile *.mods*" [hdf5]="fixtures/hdf5 *" [hdf5_select]="fixtures/hdf5/select *.h5")
targets=$(cargo fuzz list --fuzz-dir crates/fuzz) || { echo "fuzz-smoke: 0 passed, 1 failed"; exit 1; }
passed=0; failed=0
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for t in $targets; do
  mkdir -p "$work/$t"
  read -r dir pattern <<<"${SEEDS[$t]:-}"
  [ -n "${dir:-}" ] && find "$dir" -maxdepth 1 -type f -name "$pattern" ! -name '*.json' -size -400k -exec cp {} "$work/$t/" \;
  # Virtual datasets (their mappings and selections) live in a folder of their own.
  [ "$t" = hdf5 ] && cp fixtures/hdf5/vds/vds_*.h5 fixtures/hdf5/vds/*.bin "$work/$t/"
  # The encoder corpus (real writers' payloads: records, streams, msgpackr structures).
  [ "$t" = msgpack ] && find fixtures/msgpack/encoders -type f -name '*.msgpack' -size -400k -exec cp {} "$work/$t/" \;
  echo "-- fuzz $t: ${secs}s from $(find "$work/$t" -type f | wc -l) seeds"
  if cargo fuzz run -s none --fuzz-dir crates/fuzz "$t" "$work/$t" -- \
      -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 2>"$work/$t.log"; then
    passed=$((passed + 1))
    grep -E '^stat::number_of_executed_units|^Done' "$work/$t.log" | tr '\n' ' '; echo
  else
    failed=$((failed + 1))
    tail -40 "$work/$t.log"
    echo "fuzz $t FAILED (reproducer under crates/fuzz/artifacts/$t/)"
  fi
done
echo "fuzz-smoke: $passed passed, $failed failed"
[ "$failed" = 0 ]
