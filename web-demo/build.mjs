#!/usr/bin/env node
// Bundle the demo with esbuild into web-demo/dist: a static folder that works from any
// static host (the .wasm files and samples are copied beside the bundle).
import { build } from 'esbuild';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const dist = join(here, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(join(dist, 'wasm'), { recursive: true });
const common = {
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
};
await build({
  ...common,
  entryPoints: { app: join(here, 'src/main.ts'), worker: join(here, 'src/worker.ts'), h5web: join(here, 'src/h5web-page.ts') },
  // Heavy peers (h5wasm, jsfive) are split into chunks loaded only when benchmarked.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
// The SQL panel's engine (src/sql.ts: DuckDB-wasm and arrowsmith/duckdb) is a bundle of its
// own, loaded by URL on first use: sharing apache-arrow's modules with the app's chunks breaks
// their initialisation order (its modules import each other in a cycle).
await build({ ...common, entryPoints: { 'sql-engine': join(here, 'src/sql.ts') } });
// The peers' multi-megabyte source maps (h5wasm embeds its wasm) are not worth shipping.
for (const f of readdirSync(join(dist, 'chunks'))) if (f.endsWith('.map') && statSync(join(dist, 'chunks', f)).size > 2e6) rmSync(join(dist, 'chunks', f));
const wasmDir = join(here, '../packages/arrowsmith/wasm');
for (const f of readdirSync(wasmDir)) if (f.endsWith('.wasm')) cpSync(join(wasmDir, f), join(dist, 'wasm', f));
cpSync(join(here, 'public'), dist, { recursive: true });
// DuckDB-wasm's worker and module for the SQL panel (src/sql.ts), served from here: no CDN.
mkdirSync(join(dist, 'duckdb'));
const duck = dirname(createRequire(import.meta.url).resolve('@duckdb/duckdb-wasm'));
for (const f of ['duckdb-browser-eh.worker.js', 'duckdb-eh.wasm']) cpSync(join(duck, f), join(dist, 'duckdb', f));
// h5web's stylesheet, linked when a viewer opens (src/h5web-view.ts).
cpSync(createRequire(import.meta.url).resolve('@h5web/app/styles.css'), join(dist, 'h5web.css'));
const samples = join(here, '../fixtures/samples');
if (existsSync(samples)) cpSync(samples, join(dist, 'samples'), { recursive: true });
// Extra samples owned by the demo (web-demo/samples.json), taken from the test fixtures when
// they exist, appended to the shared samples index.
{
  const indexFile = join(dist, 'samples/index.json');
  mkdirSync(join(dist, 'samples'), { recursive: true });
  const index = existsSync(indexFile) ? JSON.parse(readFileSync(indexFile, 'utf8')) : [];
  for (const s of JSON.parse(readFileSync(join(here, 'samples.json'), 'utf8'))) {
    const src = join(here, s.src);
    if (!existsSync(src) || index.some((x) => x.file === s.file)) continue;
    cpSync(src, join(dist, 'samples', s.file));
    index.push({ file: s.file, label: s.label, format: s.format });
  }
  writeFileSync(indexFile, JSON.stringify(index, null, 1));
}
console.log(`demo built: ${dist}`);
