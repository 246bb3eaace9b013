#!/usr/bin/env node
// Build the wasm crate twice (SIMD128 and scalar) with wasm-pack, optimize each with
// binaryen's wasm-opt (explicit feature flags per variant), and place the results in
// packages/arrowsmith/wasm/: arrowsmith_{simd,scalar}.wasm plus one JS glue per variant.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'packages/arrowsmith/wasm');
const bin = join(root, 'node_modules/.bin');
const COMMON = ['--enable-bulk-memory', '--enable-bulk-memory-opt', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-reference-types', '--enable-multivalue', '--enable-mutable-globals'];
const VARIANTS = {
  simd: { rustflags: '-C target-feature=+simd128', opt: ['--enable-simd', ...COMMON] },
  scalar: { rustflags: '', opt: COMMON },
};

mkdirSync(out, { recursive: true });
const sizes = {};
for (const [variant, cfg] of Object.entries(VARIANTS)) {
  const tmp = join(root, 'target', `wasm-pack-${variant}`);
  rmSync(tmp, { recursive: true, force: true });
  execFileSync(
    'wasm-pack',
    ['build', 'crates/wasm', '--release', '--target', 'web', '--no-pack', '--no-opt', '--out-dir', tmp, '--out-name', 'arrowsmith'],
    {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: {
        ...process.env,
        PATH: `${bin}:${process.env.PATH}`,
        CARGO_TARGET_DIR: join(root, 'target', `wasm-${variant}`),
        RUSTFLAGS: cfg.rustflags,
        WASM_PACK_CACHE: join(root, 'target', 'wasm-pack-cache'),
      },
    },
  );
  const wasm = join(out, `arrowsmith_${variant}.wasm`);
  execFileSync(join(bin, 'wasm-opt'), ['-O3', ...cfg.opt, join(tmp, 'arrowsmith_bg.wasm'), '-o', wasm], { stdio: 'inherit' });
  // One glue module per variant so each keeps its own instance state.
  const glue = readFileSync(join(tmp, 'arrowsmith.js'), 'utf8').replaceAll('arrowsmith_bg.wasm', `arrowsmith_${variant}.wasm`);
  writeFileSync(join(out, `arrowsmith_${variant}.js`), glue);
  copyFileSync(join(tmp, 'arrowsmith.d.ts'), join(out, `arrowsmith_${variant}.d.ts`));
  const bytes = readFileSync(wasm);
  sizes[variant] = { raw: statSync(wasm).size, gzip: gzipSync(bytes, { level: 9 }).length };
}
writeFileSync(join(out, 'sizes.json'), JSON.stringify(sizes, null, 2) + '\n');
for (const [v, s] of Object.entries(sizes)) console.log(`arrowsmith_${v}.wasm: ${s.raw} bytes raw, ${s.gzip} bytes gzip`);
