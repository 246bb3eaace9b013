#!/usr/bin/env node
// Browser tests. `--browser=chromium|firefox|webkit` (default chromium; see drivers.mjs):
//  1. the suite (suite.ts: MessagePack corpora, streaming, errors, the worker pool with TsFile
//     and HDF5) against the browser entry, SIMD and scalar builds, each on a cross-origin
//     isolated page and on a plain one;
//  2. the cross-engine check (tests/engines/digest.ts), both builds, against x86-64 Node's digests;
//  3. Chromium only: the packed tarball installed into a fresh project, used from Node (ESM
//     and CJS) and from an esbuild bundle in the browser; the demo (demo.mjs).
//  4. Chromium and Firefox: arrowsmith/duckdb and arrowsmith/flechette (sql.ts) on DuckDB-wasm's
//     worker bundle, served from the page's folder, with Arquero and a Mosaic/vgplot spec, in
//     an app on apache-arrow 21 and one on 15.
//  5. the h5web viewer on arrowsmith/h5web (h5web.mjs): all of it in Chromium, the NeXus
//     default plot of a ranged URL in the others.
// `--only=sql` runs step 4 alone, `--only=h5web` step 5, `--only=demo` the demo of step 3.
// Prints "browser: N passed, M failed" and exits non-zero on failure.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildPage, buildRuntime } from '../engines/build.mjs';
import { report as crossReport } from '../engines/compare.mjs';
import { demoTests } from './demo.mjs';
import { h5webSmoke, h5webTests } from './h5web.mjs';
import { launch } from './drivers.mjs';

const which = (process.argv.find((a) => a.startsWith('--browser=')) ?? '--browser=chromium').slice('--browser='.length);
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const outDir = join(root, 'test-output/browser', which === 'chromium' ? '' : which);
mkdirSync(outDir, { recursive: true });
let passed = 0;
let failed = 0;
const report = (ok, name, detail = '') => {
  ok ? passed++ : failed++;
  console.log(`${ok ? '  ✓' : '  ✗'} ${name}${ok || !detail ? '' : `\n      ${detail}`}`);
};

const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
function serveDir(dir, { isolated = false } = {}) {
  const server = createServer((req, res) => {
    // Cross-origin isolation (SharedArrayBuffer) for the pages that test it.
    if (isolated) {
      res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
      res.setHeader('Cross-Origin-Embedder-Policy', 'require-corp');
    }
    let path = join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path.endsWith('/')) path = join(path, 'index.html');
    try {
      const body = readFileSync(path);
      res.writeHead(200, { 'Content-Type': MIME[extname(path)] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const urlOf = (server) => `http://127.0.0.1:${server.address().port}/`;

const browser = await launch(which);
console.log(`${browser.version}`);

async function pageResults(url, name) {
  const page = await browser.open(url);
  try {
    const results = await page.waitFor('window.__results', 180_000);
    for (const r of results) report(r.ok, `${name}: ${r.name}`, r.detail);
    if (page.errors.length) report(false, `${name}: page errors`, page.errors.join('; '));
  } catch (e) {
    report(false, `${name}: page did not finish`, String(e?.message ?? e).split('\n')[0]);
  } finally {
    await page.close();
  }
}

/**
 * x86-64 Node's digests of the fixtures (the reference): made afresh from the current build,
 * unless ARROWSMITH_DIGEST_REF names one just made (scripts/test-engines.sh).
 */
async function referenceDigest() {
  let file = process.env.ARROWSMITH_DIGEST_REF;
  if (!file) {
    file = join(root, 'test-output/engines/digest-node-x64-simd.json');
    await buildRuntime();
    execFileSync(process.execPath, [join(root, 'test-output/engines/digest-run.mjs'), '--simd=1', `--fixtures=${join(root, 'fixtures')}`, `--out=${file}`], { stdio: 'inherit' });
  }
  return JSON.parse(readFileSync(file, 'utf8'));
}

try {
  // 1. The suite against the browser entry.
  if (!only) {
    console.log(`suite and worker pool in ${browser.version}`);
    const dir = join(outDir, 'suite');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'fixtures'), { recursive: true });
    await build({
      entryPoints: [join(root, 'tests/browser/suite.ts')],
      bundle: true, format: 'esm', platform: 'browser', outfile: join(dir, 'suite.js'), logLevel: 'warning',
      conditions: ['browser', 'import', 'default'],
    });
    // The pool's worker script, bundled as an app would ship it.
    await build({
      entryPoints: [join(root, 'packages/arrowsmith/src/worker/browser.ts')],
      bundle: true, format: 'esm', platform: 'browser', outfile: join(dir, 'pool-worker.js'), logLevel: 'warning',
    });
    cpSync(join(root, 'packages/arrowsmith/wasm'), join(dir, 'wasm'), { recursive: true });
    const fixtures = readdirSync(join(root, 'fixtures/msgpack')).filter((f) => f.endsWith('.msgpack'));
    for (const f of fixtures) cpSync(join(root, 'fixtures/msgpack', f), join(dir, 'fixtures', f));
    cpSync(join(root, 'fixtures/tsfile/cpp_many_devices_ts2diff.tsfile'), join(dir, 'fixtures/many_devices.tsfile'));
    // Every TsFile fixture with its expected JSON (the official readers' values).
    const tsfiles = readdirSync(join(root, 'fixtures/tsfile')).filter((f) => f.endsWith('.tsfile'));
    cpSync(join(root, 'fixtures/tsfile'), join(dir, 'fixtures/tsfile'), { recursive: true, filter: (p) => !p.includes('regressions') });
    writeFileSync(join(dir, 'fixtures/tsfile-index.json'), JSON.stringify(tsfiles));
    cpSync(join(root, 'fixtures/hdf5/vl_latest.h5'), join(dir, 'fixtures/vl_latest.h5'));
    writeFileSync(join(dir, 'fixtures/index.json'), JSON.stringify(fixtures));
    // Every HDF5 fixture with its writer's expected values (the same loop as vitest's).
    // Files only: fixtures/hdf5/external/ is a folder (the targets of external links).
    const h5 = readdirSync(join(root, 'fixtures/hdf5'), { withFileTypes: true })
      .filter((e) => e.isFile() && /\.[^.]+$/.test(e.name) && !e.name.endsWith('.json') && existsSync(join(root, 'fixtures/hdf5', e.name.replace(/\.[^.]+$/, '.json'))))
      .map((e) => e.name);
    cpSync(join(root, 'fixtures/hdf5'), join(dir, 'fixtures/hdf5'), { recursive: true });
    writeFileSync(join(dir, 'fixtures/hdf5/index.json'), JSON.stringify(h5));
    // The real-encoder fixtures: bytes plus the writer's reader's values (encoders.ts).
    cpSync(join(root, 'fixtures/msgpack/encoders'), join(dir, 'fixtures/encoders'), { recursive: true });
    const encoders = readdirSync(join(root, 'fixtures/msgpack/encoders')).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
    writeFileSync(join(dir, 'fixtures/encoders.json'), JSON.stringify(encoders));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="suite.js"></script>');
    // Each build on a cross-origin isolated page (pool output in shared memory where the
    // engine can post SharedArrayBuffers) and on a plain page (transferred batches).
    const isolated = await serveDir(dir, { isolated: true });
    const plain = await serveDir(dir);
    for (const simd of [1, 0]) {
      await pageResults(`${urlOf(isolated)}?simd=${simd}&isolated=1`, `${simd ? 'simd' : 'scalar'}, isolated`);
      await pageResults(`${urlOf(plain)}?simd=${simd}&isolated=0`, `${simd ? 'simd' : 'scalar'}, not isolated`);
    }
    isolated.close();
    plain.close();
  }

  // 2. The cross-engine check: every fixture's digests equal x86-64 Node's.
  if (!only) {
    console.log('cross-engine check');
    const dir = join(outDir, 'digest');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'digest-fixtures'), { recursive: true });
    const want = await referenceDigest();
    await buildPage(dir);
    cpSync(join(root, 'packages/arrowsmith/wasm'), join(dir, 'wasm'), { recursive: true });
    const names = Object.keys(want.items).map((k) => k.split(/[:@]/)[0]).filter((n, i, a) => a.indexOf(n) === i && existsSync(join(root, 'fixtures', n)));
    for (const n of names) cpSync(join(root, 'fixtures', n), join(dir, 'digest-fixtures', n));
    writeFileSync(join(dir, 'digest-fixtures/index.json'), JSON.stringify(names));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="digest.js"></script>');
    const server = await serveDir(dir);
    for (const simd of [1, 0]) {
      const name = `${which} ${simd ? 'SIMD' : 'scalar'}`;
      const page = await browser.open(`${urlOf(server)}?simd=${simd}`);
      try {
        const got = await page.waitFor('window.__digest ?? (window.__digestError && { error: window.__digestError })', 300_000);
        if (got.error) report(false, `cross-check ${name}: page failed`, got.error);
        else if (got.simd !== !!simd) report(false, `cross-check ${name}: the ${simd ? 'SIMD' : 'scalar'} build did not load`);
        else crossReport(name, want, got, (line) => (line.startsWith('  ✓') ? passed++ : failed++, console.log(line)));
      } catch (e) {
        report(false, `cross-check ${name}: page did not finish`, String(e?.message ?? e).split('\n')[0]);
      } finally {
        await page.close();
      }
    }
    server.close();
  }

  // 3. Chromium: the packed tarball in a fresh project, and the demo.
  if (which === 'chromium' && !only) {
    console.log('packed tarball in a fresh project');
    const tmp = mkdtempSync(join(tmpdir(), 'arrowsmith-pack-'));
    const tgz = execFileSync('npm', ['pack', '--silent', '--pack-destination', tmp], { cwd: join(root, 'packages/arrowsmith') }).toString().trim().split('\n').pop();
    writeFileSync(join(tmp, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--silent', join(tmp, tgz)], { cwd: tmp, stdio: 'inherit' });
    const fixture = join(root, 'fixtures/msgpack/py_records.msgpack');
    // The reference: the same file decoded by @msgpack/msgpack (from this repo's deps).
    const { decode } = await import('@msgpack/msgpack');
    const rows = decode(readFileSync(fixture));
    const want = JSON.stringify({ rows: rows.length, id7: rows[7].id, name7: rows[7].name, temp7: rows[7].temp });
    const probe = (t) => JSON.stringify({ rows: t.numRows, id7: t.get(7).id, name7: t.get(7).name, temp7: t.get(7).temp });
    writeFileSync(join(tmp, 'esm.mjs'), `import { readFileSync } from 'node:fs'; import { decodeMsgpack } from 'arrowsmith';
const t = decodeMsgpack(readFileSync(${JSON.stringify(fixture)})); console.log((${probe})(t));`);
    writeFileSync(join(tmp, 'cjs.cjs'), `const { readFileSync } = require('node:fs'); const { decodeMsgpack } = require('arrowsmith');
const t = decodeMsgpack(readFileSync(${JSON.stringify(fixture)})); console.log((${probe})(t));`);
    for (const f of ['esm.mjs', 'cjs.cjs']) {
      let got = '';
      try {
        got = execFileSync('node', [f], { cwd: tmp }).toString().trim();
      } catch (e) {
        got = String(e.stderr ?? e);
      }
      report(got === want, `node ${f.endsWith('cjs') ? 'require (CJS)' : 'import (ESM)'} of the installed tarball`, `${got} != ${want}`);
    }
    // An app bundled by esbuild from the installed package, run in Chromium.
    const web = join(tmp, 'web');
    mkdirSync(web);
    writeFileSync(join(tmp, 'app.js'), `import { init, decodeMsgpack, decodeMsgpackAsync, createPool } from 'arrowsmith';
const probe = ${probe};
(async () => { const results = []; try { await init({ baseUrl: new URL('./wasm/', location.href) });
  const bytes = new Uint8Array(await (await fetch('f.msgpack')).arrayBuffer());
  const t = decodeMsgpack(bytes);
  results.push({ name: 'decodes', ok: probe(t) === ${JSON.stringify(want)}, detail: probe(t) });
  const pool = await createPool({ size: 2, workerUrl: new URL('./pool-worker.js', location.href), minJobBytes: 0 });
  const p = await decodeMsgpackAsync(bytes, { pool });
  pool.close();
  results.push({ name: 'decodes on a worker pool (worker bundled from arrowsmith/pool-worker.js)', ok: probe(p) === ${JSON.stringify(want)}, detail: probe(p) });
} catch (e) { results.push({ name: 'decodes', ok: false, detail: String(e) }); } window.__results = results; })();`);
    writeFileSync(join(tmp, 'worker.js'), `import 'arrowsmith/pool-worker.js';`);
    await build({ entryPoints: [join(tmp, 'app.js')], bundle: true, format: 'esm', platform: 'browser', outfile: join(web, 'app.js'), absWorkingDir: tmp, logLevel: 'warning' });
    await build({ entryPoints: [join(tmp, 'worker.js')], bundle: true, format: 'esm', platform: 'browser', outfile: join(web, 'pool-worker.js'), absWorkingDir: tmp, logLevel: 'warning' });
    cpSync(join(tmp, 'node_modules/arrowsmith/wasm'), join(web, 'wasm'), { recursive: true });
    cpSync(fixture, join(web, 'f.msgpack'));
    writeFileSync(join(web, 'index.html'), '<!doctype html><script type="module" src="app.js"></script>');
    const server = await serveDir(web);
    await pageResults(urlOf(server), 'esbuild bundle of the installed tarball');
    server.close();
    rmSync(tmp, { recursive: true, force: true });
  }

  if (which === 'chromium' && (!only || only === 'demo')) {
    console.log('web demo');
    await demoTests({ browser: browser.playwright, report, outDir });
  }
  // 5. The h5web viewer on Arrowsmith's provider: the whole check in Chromium, the NeXus
  // default plot of a ranged URL in the other engines; the differential against h5web's
  // h5wasm provider in Chromium and Firefox.
  if ((!only || only === 'h5web') && which !== 'webkit') {
    console.log('h5web differential');
    const dir = join(outDir, 'h5web-diff');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'fixtures'), { recursive: true });
    await build({ entryPoints: [join(root, 'tests/browser/h5web-diff-page.ts')], bundle: true, format: 'esm', platform: 'browser', outfile: join(dir, 'page.js'), logLevel: 'error', conditions: ['browser', 'import', 'default'] });
    cpSync(join(root, 'packages/arrowsmith/wasm'), join(dir, 'wasm'), { recursive: true });
    cpSync(join(root, 'node_modules/h5wasm/dist/esm'), join(dir, 'h5wasm'), { recursive: true });
    cpSync(join(root, 'fixtures/hdf5'), join(dir, 'fixtures/hdf5'), { recursive: true });
    const list = (d, at = '') => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? list(join(d, e.name), `${at}${e.name}/`) : /\.(h5|hdf5|nc|h5ad|mat)$/.test(e.name) ? [`${at}${e.name}`] : []));
    writeFileSync(join(dir, 'fixtures/h5web-index.json'), JSON.stringify(list(join(root, 'fixtures/hdf5')).sort()));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><script type="module" src="page.js"></script>');
    const server = await serveDir(dir);
    await pageResults(urlOf(server), `h5web differential (${which})`);
    server.close();
  }
  if (!only || only === 'h5web') {
    console.log('h5web on arrowsmith/h5web');
    if (which === 'chromium') await h5webTests({ browser: browser.playwright, report, outDir });
    else await h5webSmoke({ browser, report, outDir, engine: which });
  }
  // 4. Chromium and Firefox: SQL over the decoded tables in DuckDB-wasm, and Arquero over flechette.
  if ((which === 'chromium' || which === 'firefox') && (!only || only === 'sql')) {
    // The app (and so arrowsmith) on apache-arrow 15; DuckDB-wasm keeps its own (17), as npm installs it.
    const appArrow15 = {
      name: 'app-arrow-15',
      setup(b) {
        b.onResolve({ filter: /^apache-arrow(\/.*)?$/ }, (args) =>
          args.importer.includes('@duckdb') || args.pluginData === 'arrow15' ? undefined : b.resolve(args.path.replace('apache-arrow', 'apache-arrow-15'), { resolveDir: args.resolveDir, kind: args.kind, pluginData: 'arrow15' }));
      },
    };
    console.log('arrowsmith/duckdb and arrowsmith/flechette');
    const dir = join(outDir, 'sql');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, 'fixtures/tsfile'), { recursive: true });
    mkdirSync(join(dir, 'fixtures/hdf5'), { recursive: true });
    mkdirSync(join(dir, 'duckdb'), { recursive: true });
    for (const arrow of ['21', '15']) {
      await build({
        entryPoints: [join(root, 'tests/browser/sql.ts')],
        bundle: true, format: 'esm', platform: 'browser', outfile: join(dir, `sql-${arrow}.js`), logLevel: 'warning',
        conditions: ['browser', 'import', 'default'],
        plugins: arrow === '15' ? [appArrow15] : [],
      });
    }
    cpSync(join(root, 'packages/arrowsmith/wasm'), join(dir, 'wasm'), { recursive: true });
    const duck = join(root, 'node_modules/@duckdb/duckdb-wasm/dist');
    for (const f of ['duckdb-browser-eh.worker.js', 'duckdb-eh.wasm']) cpSync(join(duck, f), join(dir, 'duckdb', f));
    for (const f of ['py_record_stream.msgpack', 'py_records.msgpack']) cpSync(join(root, 'fixtures/msgpack', f), join(dir, 'fixtures', f));
    for (const f of ['cpp_dictionary_gzip.tsfile', 'cpp_dictionary_gzip.json']) cpSync(join(root, 'fixtures/tsfile', f), join(dir, 'fixtures/tsfile', f));
    for (const f of ['types_latest.h5', 'types_latest.json']) cpSync(join(root, 'fixtures/hdf5', f), join(dir, 'fixtures/hdf5', f));
    const server = await serveDir(dir);
    for (const arrow of ['21', '15']) {
      writeFileSync(join(dir, `index-${arrow}.html`), `<!doctype html><script type="module" src="sql-${arrow}.js"></script>`);
      await pageResults(`${urlOf(server)}index-${arrow}.html?arrow=${arrow}`, `SQL and Arquero, apache-arrow ${arrow}${which === 'chromium' ? '' : ` (${which})`}`);
    }
    server.close();
  }
} finally {
  await browser.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
