#!/usr/bin/env node
// The browser pool worker as one self-contained file (dist/worker/browser.js, after tsc):
// bundlers that only copy what `new URL('../worker/browser.js', import.meta.url)` names
// (Rollup's import-meta-assets, esbuild's file loader through arrowsmith/esbuild) then ship
// a worker that runs, and anyone hosting it by hand copies one file. Vite and webpack bundle
// it again as a worker entry, which changes nothing. The worker needs no wasm URL: the main
// thread sends it the compiled module of each format.
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '../packages/arrowsmith');
const out = join(pkg, 'dist/worker/browser.js');
await build({
  entryPoints: [join(pkg, 'src/worker/browser.ts')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  legalComments: 'eof',
  outfile: out,
  logLevel: 'warning',
  // Node built-ins never reach the browser worker; fail the build if one does.
  conditions: ['browser', 'import', 'default'],
});
const code = readFileSync(out, 'utf8');
if (/import\.meta|^import\s|\bimport\(/m.test(code)) throw new Error('bundle-worker: the browser worker must be self-contained (no imports, no import.meta)');
console.log(`dist/worker/browser.js: ${code.length} bytes, self-contained`);
