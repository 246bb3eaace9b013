#!/usr/bin/env bash
# The engine matrix, beyond x86-64 Node and Chromium (scripts/test.sh runs those):
#   arm64    the decoder suites (vitest) in both builds on ARM64 Node under qemu-user
#   bun      the Node suite (vitest) under Bun (JavaScriptCore)
#   deno     the Node suite (vitest) under Deno (V8, its own worker_threads)
#   firefox  the browser suite (SIMD and scalar, isolated and plain pages) in Firefox ESR
#   webkit   the same in WebKitGTK's MiniBrowser
# and on each of them (and x86-64 Node's scalar build) the cross-check: every fixture decoded,
# its values and tableToIPC bytes hashed, compared with x86-64 Node's SIMD build.
#
#   bash scripts/test-engines.sh            every engine
#   ARROWSMITH_ENGINES="bun deno" bash scripts/test-engines.sh   some ("none" skips all)
#
# Prints one line per engine with its counts and wall time, a timing table, and ends with
# "engines: N passed, M failed".
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$root/node_modules/.bin:$PATH"
out="$root/test-output/engines"
mkdir -p "$out"
engines="${ARROWSMITH_ENGINES:-arm64 bun deno firefox webkit}"
[ "$engines" = none ] && engines=""
passed=0; failed=0
table=()

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
now() { date +%s; }
# Adds the counts of one engine and remembers its row for the timing table.
tally() { # name passed failed seconds
  passed=$((passed + $2)); failed=$((failed + $3))
  table+=("$(printf '| %-34s | %5d | %5d | %3dm%02ds |' "$1" "$2" "$3" $(($4 / 60)) $(($4 % 60)))")
  printf -- '-- %s: %d passed, %d failed in %dm%02ds\n' "$1" "$2" "$3" $(($4 / 60)) $(($4 % 60))
}
# vitest's JSON report → "passed failed" (a missing report counts as one failure).
vitest_counts() {
  if [ -f "$1" ]; then node -e 'const r=require(process.argv[1]); console.log(r.numPassedTests, r.numFailedTests + (r.numTotalTestSuites && r.success === false && r.numFailedTests === 0 ? 1 : 0))' "$1"
  else echo 0 1; fi
}
# A digest on a runtime compared with the reference → adds to the engine's counts in p/f.
digest() { # label outfile simd(0|1) runtime...
  local label="$1" file="$2" simd="$3"; shift 3
  if "$@" "$out/digest-run.mjs" --simd="$simd" --fixtures="$root/fixtures" --out="$file" && node tests/engines/compare.mjs "$out/digest-node-x64-simd.json" "$file" "$label"; then
    p=$((p + 1))
  else
    f=$((f + 1))
  fi
}
# vitest on a runtime → adds its counts to p/f.
suite() { # report-name runtime-and-args...
  local report="$out/vitest-$1.json"; shift
  rm -f "$report"
  "$@" run --root packages/arrowsmith --reporter=dot --reporter=json --outputFile="$report" ${files:-}
  read -r a b < <(vitest_counts "$report")
  p=$((p + a)); f=$((f + b))
}

if [ -n "$engines" ]; then
  step "engine set-up: $engines"
  t=$(now)
  # shellcheck disable=SC2086
  if bash scripts/setup-engines.sh $engines; then setup_ok=1; else setup_ok=0; fi
  table+=("$(printf '| %-34s | %5s | %5s | %3dm%02ds |' "set-up (installs, once per machine)" - - $((($(now) - t) / 60)) $((($(now) - t) % 60)))")
  [ "$setup_ok" = 1 ] || { failed=$((failed + 1)); echo "engine set-up failed"; }
fi

step "cross-check reference: x86-64 Node, SIMD build (and its scalar build against it)"
t=$(now); p=0; f=0
node tests/engines/build.mjs >/dev/null &&
  node "$out/digest-run.mjs" --simd=1 --fixtures="$root/fixtures" --out="$out/digest-node-x64-simd.json" || f=$((f + 1))
digest "node x64 scalar" "$out/digest-node-x64-scalar.json" 0 node
tally "Node $(node --version) x86-64 (cross-check)" $p $f $(($(now) - t))

for e in $engines; do
  t=$(now); p=0; f=0
  case "$e" in
    arm64)
      step "ARM64 Node under qemu-user (emulated: correctness only): decoder suites and cross-check, both builds"
      qnode=(env NODE_PATH="$root/.engines/arm64/node_modules" qemu-aarch64-static "$root/.engines/arm64/node/bin/node")
      for simd in 1 0; do
        # --pool=threads: without binfmt_misc the emulated node cannot spawn itself.
        files="test/msgpack.test.ts test/tsfile.test.ts test/hdf5.test.ts" suite "arm64-simd$simd" \
          env ARROWSMITH_SIMD=$simd "${qnode[@]}" node_modules/vitest/vitest.mjs --pool=threads --testTimeout=600000 --hookTimeout=600000
        digest "arm64 $([ $simd = 1 ] && echo SIMD || echo scalar)" "$out/digest-arm64-simd$simd.json" $simd "${qnode[@]}"
      done
      name="Node $("${qnode[@]}" --version 2>/dev/null) ARM64 (qemu, emulated)"
      ;;
    bun|deno)
      if [ "$e" = bun ]; then rt=("$root/.engines/bun/bin/bun" --bun); name="Bun $("${rt[0]}" --version 2>/dev/null)"
      else rt=("$root/.engines/deno/deno" run -A); name="$("${rt[0]}" --version 2>/dev/null | head -1 | cut -d' ' -f1-2 | sed 's/^deno/Deno/')"; fi
      step "$name: the Node suite, and the cross-check in both builds"
      files="" suite "$e" "${rt[@]}" node_modules/vitest/vitest.mjs --testTimeout=120000 --hookTimeout=120000
      for simd in 1 0; do
        digest "$e $([ $simd = 1 ] && echo SIMD || echo scalar)" "$out/digest-$e-simd$simd.json" $simd "${rt[@]}"
      done
      ;;
    firefox|webkit)
      step "$e: the browser suite (SIMD and scalar, isolated and plain pages) and the cross-check"
      ARROWSMITH_DIGEST_REF="$out/digest-node-x64-simd.json" node tests/browser/run.mjs --browser="$e" | tee "$out/browser-$e.log"
      read -r a b < <(awk '/^browser: / { print $2, $4 }' "$out/browser-$e.log")
      p=${a:-0}; f=${b:-1}
      name="$(awk 'NR == 1' "$out/browser-$e.log")"
      ;;
    *)
      echo "unknown engine '$e' (arm64 bun deno firefox webkit)"; f=1; name="$e"
      ;;
  esac
  tally "$name" $p $f $(($(now) - t))
done

step "engine matrix: wall time per engine (this run)"
printf '| %-34s | %5s | %5s | %7s |\n|%s|%s|%s|%s|\n' engine passed failed time "$(printf -- '-%.0s' {1..36})" "-------" "-------" "---------"
printf '%s\n' "${table[@]}"
echo
echo "engines: $passed passed, $failed failed"
[ "$failed" = 0 ]
