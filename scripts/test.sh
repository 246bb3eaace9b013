#!/usr/bin/env bash
# Every test: the gates (fmt, clippy, MSRV, tsc, lint, docs), Rust (native), a fuzz smoke, the wasm
# SIMD guard, vitest in Node (both builds), browser tests (Chromium; the demo's SQL panel on a 256 MiB TsFile), the engine matrix (ARM64
# under qemu, Bun, Deno, Firefox, WebKit; scripts/test-engines.sh, ARROWSMITH_ENGINES picks some),
# consumer tests of the packed tarball (tests/consumers), differential tests against the writers
# (tests/differential: a fixed-seed run of random files from h5py, PyPI tsfile and five
# MessagePack encoders, each file one test), the Python wheel's pytest suite (crates/python).
# Ends with one summary line "all: N passed, M failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$HOME/.cargo/bin:$root/node_modules/.bin:$PATH"
rm -rf test-output && mkdir -p test-output
passed=0; failed=0; status=0

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# A gate counts as one test: passed when its command exits 0.
gate() {
  local name="$1"; shift
  printf '\n-- gate: %s\n' "$name"
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; echo "gate failed: $name"; gates_failed+=("$name"); fi
}
gates_failed=()

step "gates: formatting, lints, MSRV, types"
msrv=$(awk -F'"' '/^rust-version/ { print $2; exit }' Cargo.toml)
gate "cargo fmt --check" cargo fmt --check
gate "cargo fmt --check (fuzz, wasm-check, python)" bash -c 'cargo fmt --check --manifest-path crates/fuzz/Cargo.toml && cargo fmt --check --manifest-path crates/msgpack/wasm-check/Cargo.toml && cargo fmt --check --manifest-path crates/python/Cargo.toml'
gate "cargo clippy -D warnings (native)" cargo clippy -q --workspace --all-targets -- -D warnings
gate "cargo clippy -D warnings (wasm32, scalar and SIMD; each format module alone)" bash -c 'cargo clippy -q --target wasm32-unknown-unknown -p arrowsmith-wasm -- -D warnings &&
  RUSTFLAGS="-C target-feature=+simd128" CARGO_TARGET_DIR=target/clippy-simd cargo clippy -q --target wasm32-unknown-unknown -p arrowsmith-wasm -- -D warnings &&
  for f in msgpack tsfile hdf5; do cargo clippy -q --target wasm32-unknown-unknown -p arrowsmith-wasm --no-default-features --features "$f" -- -D warnings || exit 1; done'
gate "cargo clippy -D warnings (fuzz targets)" cargo clippy -q --manifest-path crates/fuzz/Cargo.toml -- -D warnings
gate "MSRV $msrv builds (cargo +$msrv check)" env CARGO_TARGET_DIR=target/msrv cargo "+$msrv" check -q --workspace --all-targets
gate "tsc over sources, tests, demo" tsc -p tsconfig.check.json
gate "biome lint (import cycles and more)" biome lint
gate "TS imports go down the layers (scripts/check-imports.mjs)" node scripts/check-imports.mjs
gate "docs: every backticked path exists, no diary wording" node scripts/check-docs.mjs

step "cargo test (native)"
cargo test --workspace 2>&1 | tee test-output/cargo.log
[ "${PIPESTATUS[0]}" = 0 ] || status=1
read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } } END { print p+0, f+0 }' test-output/cargo.log)
passed=$((passed + p)); failed=$((failed + f))

step "fuzz smoke: every cargo-fuzz target for 20 s, seeded with the fixtures"
bash scripts/fuzz-smoke.sh 20 2>&1 | tee test-output/fuzz.log
[ "${PIPESTATUS[0]}" = 0 ] || status=1
read -r p f < <(awk '/^fuzz-smoke: / { print $2, $4 }' test-output/fuzz.log)
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))

step "scalar .wasm modules have no v128 instruction"
if node scripts/check-wasm.mjs; then passed=$((passed + 1)); else failed=$((failed + 1)); status=1; fi

step "MessagePack SIMD kernels agree with the scalar reference inside wasm (both builds)"
for flags in "" "-C target-feature=+simd128"; do
  out=$(RUSTFLAGS="$flags" CARGO_TARGET_DIR=target/wasm-check cargo build -q --release --target wasm32-unknown-unknown \
       --manifest-path crates/msgpack/wasm-check/Cargo.toml 2>&1 &&
     node crates/msgpack/wasm-check/run.mjs target/wasm-check/wasm32-unknown-unknown/release/wasmcheck.wasm 2>&1)
  echo "$out"
  if [[ "$out" == *"check=0" ]]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1)); status=1
  fi
done

# The whole suite once per build (ARROWSMITH_SIMD picks the module the Node entry loads, so
# TsFile and HDF5 are tested on both; the MessagePack tests cover both builds in each run).
# A test's time limit is 60 s, not vitest's 5 s: it only catches hangs, and a machine shared by
# parallel builds stretches a worker pool's start-up well past 5 s.
for build in simd scalar; do
  step "vitest (Node, $build build)"
  t=$(date +%s)
  rm -f "test-output/vitest-$build.json"
  ARROWSMITH_SIMD=$([ "$build" = simd ] && echo 1 || echo 0) vitest run --root packages/arrowsmith --testTimeout=60000 --hookTimeout=60000 --reporter=default --reporter=json --outputFile="../../test-output/vitest-$build.json" || status=1
  if [ -f "test-output/vitest-$build.json" ]; then
    read -r p f < <(node -e 'const r=require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests)' "./test-output/vitest-$build.json")
    passed=$((passed + p)); failed=$((failed + f))
  else
    failed=$((failed + 1))
  fi
  echo "-- vitest ($build): $((($(date +%s) - t)))s"
done

# Random valid files from the writers, each compared value by value with the writer's own reader
# (docs/robustness.md, "Differential testing"). Fixed seed; ~1 min on 2 idle cores.
# DIFFERENTIAL_EXCLUDE can name generator dimensions to leave out while a bug is open (printed
# in the output; docs/robustness.md lists the names); none is left out now.
step "differential tests: random files from the writers vs their own readers (tests/differential)"
t=$(date +%s)
if bash scripts/setup-python.sh; then
  # The Java TsFile writer (~45 s of CPU for 300 files) runs in the long runs only.
  node tests/differential/run.mjs --seed 1 --count 300 --quiet --tsfile-writers cpp --exclude "${DIFFERENTIAL_EXCLUDE:-}" 2>&1 | tee test-output/differential.log
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  read -r p f < <(awk '/^differential: [0-9]+ passed/ { print $2, $4 }' test-output/differential.log)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))
else
  status=1; failed=$((failed + 1))
fi
echo "-- differential tests: $((($(date +%s) - t)))s"

# The Python wheel (crates/python) against the writers' readers (tsfile, h5py, msgpack),
# through Polars and DuckDB, against the Node package on every fixture, and as Spark and Ray
# sources on a standalone Spark cluster (a master, two workers) and a 2-CPU Ray cluster
# (docs/python.md; ~3 min).
step "Python package: pytest (crates/python/tests)"
t=$(date +%s)
if bash scripts/setup-python-package.sh; then
  .venv/bin/python -m pytest -q -p no:cacheprovider crates/python/tests 2>&1 | tee test-output/python.log
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  p=$(grep -Eo '[0-9]+ passed' test-output/python.log | tail -1 | cut -d' ' -f1)
  f=$(grep -Eo '[0-9]+ (failed|error)' test-output/python.log | awk '{ s += $1 } END { print s+0 }')
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
  [ -n "$p" ] || { failed=$((failed + 1)); status=1; }
else
  status=1; failed=$((failed + 1))
fi
echo "-- Python package: $((($(date +%s) - t)))s"

step "browser tests (headless Chromium)"
t=$(date +%s)
if bash scripts/setup-browser.sh; then
  node tests/browser/run.mjs | tee test-output/browser.log
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  read -r p f < <(awk '/^browser: / { print $2, $4 }' test-output/browser.log)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))
else
  status=1; failed=$((failed + 1))
fi
echo "-- browser tests (Chromium): $((($(date +%s) - t)))s"

step "the demo's SQL panel streaming a 256 MiB TsFile into DuckDB-wasm (tests/browser/sql-big.mjs; npm run test:sql-big for 1 GiB)"
t=$(date +%s)
if bash scripts/setup-browser.sh >/dev/null; then
  ARROWSMITH_BIG_MIB=256 node tests/browser/sql-big.mjs | tee test-output/sql-big.log
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  read -r p f < <(awk '/^sql-big: / { print $2, $4 }' test-output/sql-big.log)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))
else
  status=1; failed=$((failed + 1))
fi
echo "-- SQL panel, big TsFile: $((($(date +%s) - t)))s"

step "engine matrix (scripts/test-engines.sh)"
bash scripts/test-engines.sh | tee test-output/engines.log
[ "${PIPESTATUS[0]}" = 0 ] || status=1
read -r p f < <(awk '/^engines: / { print $2, $4 }' test-output/engines.log)
passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))

t=$(date +%s)
step "consumer tests: the packed tarball in Vite, webpack, Rollup, esbuild (Chromium), Node ESM/CJS, TypeScript, publint, attw, Arrow peer range"
if bash scripts/setup-browser.sh >/dev/null; then
  node tests/consumers/run.mjs 2>&1 | tee test-output/consumers.log
  [ "${PIPESTATUS[0]}" = 0 ] || status=1
  read -r p f < <(awk '/^consumers: / { print $2, $4 }' test-output/consumers.log)
  passed=$((passed + ${p:-0})); failed=$((failed + ${f:-1}))
else
  status=1; failed=$((failed + 1))
fi
echo "-- consumer tests: $((($(date +%s) - t)))s"

echo
# What failed, by name, next to the summary (a CI excerpt may keep only the end of the log).
for g in "${gates_failed[@]}"; do echo "gate failed: $g"; done
node scripts/failures.mjs test-output
echo "all: $passed passed, $failed failed"
[ "$failed" = 0 ] || status=1
exit $status
