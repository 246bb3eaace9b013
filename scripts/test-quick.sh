#!/usr/bin/env bash
# The inner loop (README, "Contributing"): the docs and import-layer checks, the Rust tests of the crates a change touches, the
# wasm modules of the formats it touches, the TS build, then vitest in Node on the SIMD build
# (a change to the Rust decoders alone: the test files of those formats).
# `npm test` stays the full run CI calls.
#
# "Touched" is every file that differs from the merge base with main (committed or not, plus
# untracked files). ARROWSMITH_CRATES="msgpack tsfile" names the crates instead; "all" runs
# every crate. A crate's dependents count as touched: core → every crate, inflate → tsfile, hdf5.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$HOME/.cargo/bin:$root/node_modules/.bin:$PATH"
start=$(date +%s)
say() { printf '\033[1m[quick]\033[0m %s\n' "$*"; }

base=$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD)
changed=$( { git diff --name-only "$base"; git ls-files --others --exclude-standard; } | sort -u)

crates="${ARROWSMITH_CRATES:-}"
if [ -z "$crates" ]; then
  crates=$(printf '%s\n' "$changed" | awk -F/ '$1 == "crates" && NF > 2 { print $2 }' | sort -u | tr '\n' ' ')
fi
[ "$crates" = all ] && crates="core inflate msgpack tsfile hdf5 wasm"
case " $crates " in *" core "*) crates="$crates inflate msgpack tsfile hdf5 wasm" ;; esac
case " $crates " in *" inflate "*) crates="$crates tsfile hdf5" ;; esac
crates=$(printf '%s\n' $crates | grep -vxE 'fuzz|python' | sort -u | tr '\n' ' ')

# Formats whose wasm module is stale: a touched decoder crate, or a module not built yet.
formats=""
for f in msgpack tsfile hdf5; do
  case " $crates " in *" $f "* | *" wasm "*) formats="$formats $f" ;; esac
  [ -f "packages/arrowsmith/wasm/arrowsmith_${f}_simd.wasm" ] || formats="$formats $f"
done
formats=$(printf '%s\n' $formats | sort -u | tr '\n' ',' | sed 's/,$//')

status=0
say "docs (scripts/check-docs.mjs)"
node scripts/check-docs.mjs || status=1
say "TS import layers (scripts/check-imports.mjs)"
node scripts/check-imports.mjs || status=1
# The Rust tests run beside the wasm and TS builds (their own target dirs): on two cores the
# builds' serial steps (linking, wasm-bindgen, wasm-opt) leave a core to them.
cargo_pid=""
if [ -n "${crates// /}" ]; then
  pkgs=$(printf ' -p arrowsmith-%s' $crates)
  say "cargo test$pkgs (beside the builds)"
  # shellcheck disable=SC2086
  mkdir -p target
  cargo test -q $pkgs > target/test-quick-cargo.log 2>&1 &
  cargo_pid=$!
else
  say "no crate touched since $(git rev-parse --short "$base"): no cargo test"
fi

if [ -n "$formats" ]; then
  # Both builds: the MessagePack tests compare them inside one run, the CLI's bench the others.
  say "wasm modules: $formats"
  node scripts/build-wasm.mjs --format "$formats" >/dev/null || status=1
fi
say "TypeScript build"
npm run --silent build:ts >/dev/null || status=1
if [ -n "$cargo_pid" ]; then
  if wait "$cargo_pid"; then say "cargo test: passed"; else status=1; say "cargo test: failed"; cat target/test-quick-cargo.log; fi
fi
# vitest: every file when the TS package (or the core, wasm or a shared crate) changed, else
# the test files of the touched formats (by name) only.
filters=""
if ! printf '%s\n' "$changed" | grep -q '^packages/arrowsmith/' && [ -z "${ARROWSMITH_QUICK_ALL:-}" ]; then
  case " $crates " in *" core "* | *" wasm "*) ;; *)
    for c in $crates; do
      case "$c" in
        msgpack) filters="$filters msgpack encoders" ;;
        tsfile) filters="$filters tsfile" ;;
        hdf5) filters="$filters hdf5 h5web" ;;
      esac
    done ;;
  esac
fi
if [ -n "${filters// /}" ]; then
  say "vitest (Node, SIMD build): the test files named like the touched formats:$filters (ARROWSMITH_QUICK_ALL=1: every file)"
else
  say "vitest (Node, SIMD build)"
fi
# Two test files at a time at least: vitest's default (cores - 1) runs them one by one on two
# cores, where most files wait on their own workers and servers (every file: 174 s → 103 s).
workers=$(node -p 'Math.max(2, require("node:os").availableParallelism() - 1)')
# shellcheck disable=SC2086
ARROWSMITH_SIMD=1 vitest run --root packages/arrowsmith --testTimeout=60000 --hookTimeout=60000 --maxWorkers="$workers" $filters || status=1

say "done in $(($(date +%s) - start)) s"
exit $status
