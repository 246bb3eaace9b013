#!/usr/bin/env node
// Bundle the demo with esbuild into web-demo/dist: a static folder that works from any
// static host (the .wasm files and samples are copied beside the bundle).
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'wasm'), { recursive: true });
await build({
  entryPoints: { app: join(here, 'src/main.ts'), worker: join(here, 'src/worker.ts') },
  bundle: true,
  format: 'esm',
  target: 'es2022',
  outdir: dist,
  sourcemap: true,
  minify: true,
  logLevel: 'warning',
  // Node-only code paths of dependencies must never reach the browser bundle.
  platform: 'browser',
  mainFields: ['browser', 'module', 'main'],
  conditions: ['browser', 'import', 'default'],
});
const wasmDir = join(here, '../packages/arrowsmith/wasm');
for (const f of readdirSync(wasmDir)) if (f.endsWith('.wasm')) cpSync(join(wasmDir, f), join(dist, 'wasm', f));
cpSync(join(here, 'public'), dist, { recursive: true });
const samples = join(here, '../fixtures/samples');
if (existsSync(samples)) cpSync(samples, join(dist, 'samples'), { recursive: true });
console.log(`demo built: ${dist}`);
