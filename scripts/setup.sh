#!/usr/bin/env bash
# One idempotent set-up used by the README, `npm start`, `npm test` and CI:
# Rust wasm target, wasm-bindgen-cli pinned to Cargo.lock, npm deps, then build.
# Everything comes from the package registries (crates.io, npm); nothing else is downloaded.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export PATH="$HOME/.cargo/bin:$root/node_modules/.bin:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi

# The declared MSRV (Cargo.toml rust-version) and rustfmt/clippy, for the gates in scripts/test.sh.
msrv=$(awk -F'"' '/^rust-version/ { print $2; exit }' Cargo.toml)
if ! rustup run "$msrv" rustc --version >/dev/null 2>&1; then
  say "installing Rust $msrv (the declared MSRV, checked by the tests)"
  rustup toolchain install "$msrv" --profile minimal
fi
for c in rustfmt clippy; do
  rustup component list --installed | grep -q "^$c" || rustup component add "$c"
done

# The CLI must match the wasm-bindgen crate in Cargo.lock exactly.
wbg=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
if [ -z "$wbg" ]; then echo "wasm-bindgen not found in Cargo.lock" >&2; exit 1; fi
if ! wasm-bindgen --version 2>/dev/null | grep -q " $wbg\$"; then
  say "installing wasm-bindgen-cli $wbg (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "=$wbg"
fi

# npm deps: reinstall only when the lockfile changed since the last install.
stamp="node_modules/.arrowsmith-lock-stamp"
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  say "installing npm dependencies"
  # `npm install`, not `npm ci`: the lockfile pins every version, but the registry mirror
  # lacks msgpackr's optional darwin/win32 prebuilds, so the lock cannot list them and
  # `npm ci` rejects it as out of sync.
  npm install --no-audit --no-fund
  cp package-lock.json "$stamp"
fi

say "building wasm (a module per format, SIMD + scalar)"
node scripts/build-wasm.mjs
say "building the TypeScript package"
npm run --silent build:ts
# npm links a workspace's bin only when its target exists, and dist/ is built after the install:
# link it now so `npx arrowsmith` works inside the repo.
[ -e node_modules/.bin/arrowsmith ] || npm rebuild arrowsmith --ignore-scripts >/dev/null
say "building the web demo"
npm run --silent build:demo
say "ready"
