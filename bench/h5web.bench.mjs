// h5web on a big remote HDF5 file (#38): a 3-D uint16 stack (gzip + shuffle) of at least
// 5 GiB, generated under /tmp by bench/h5web_gen.py (h5py; never committed), served with HTTP
// Range from loopback, opened in headless Chromium by h5web's data provider API:
// ArrowsmithApi on the URL (by ranges) against h5web's H5WasmBufferProvider way (the whole
// file fetched, then h5web's own provider code on h5wasm) on a 1 GiB file it can hold, in the
// same run. Each measurement is a fresh browser (its caches empty): "cold" is the first frame
// from `new ArrowsmithApi(url)`; "warm" the median of the next frames. Writes
// bench/results/h5web.md.
//   npm run bench:h5web          # H5WEB_DIR=/tmp/arrowsmith-h5web H5WEB_GIB=5 H5WEB_ROUNDS=3
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { launch } from '../tests/browser/drivers.mjs';
import { startServer } from '../web-demo/serve.mjs';
import { mdTable, writeReport } from './common.mjs';

const root = join(import.meta.dirname, '..');
const DIR = process.env.H5WEB_DIR ?? '/tmp/arrowsmith-h5web';
const GIB = Number(process.env.H5WEB_GIB ?? 5);
const ROUNDS = Number(process.env.H5WEB_ROUNDS ?? 3);
const MiB = 2 ** 20;

function file(name, gib) {
  const path = join(DIR, name);
  if (!existsSync(path)) {
    mkdirSync(DIR, { recursive: true });
    console.log(`writing ${path} (${gib} GiB) with h5py...`);
    execFileSync(join(root, '.venv/bin/python'), [join(root, 'bench/h5web_gen.py'), path, '--gib', String(gib)], { stdio: 'inherit' });
  }
  return path;
}
const big = file(`stack-${GIB}g.h5`, GIB);
const small = file('stack-1g.h5', 1);

// The page, the wasm files and the data, in one served folder.
const site = join(root, 'target/bench-h5web');
rmSync(site, { recursive: true, force: true });
mkdirSync(join(site, 'wasm'), { recursive: true });
mkdirSync(join(site, 'data'));
await build({ entryPoints: [join(root, 'bench/h5web-page.mjs')], bundle: true, format: 'esm', platform: 'browser', conditions: ['browser', 'import', 'default'], outfile: join(site, 'page.js'), logLevel: 'error' });
const wasm = join(root, 'packages/arrowsmith/wasm');
for (const f of readdirSync(wasm)) if (f.endsWith('.wasm')) cpSync(join(wasm, f), join(site, 'wasm', f));
writeFileSync(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><script type="module" src="page.js"></script>');
symlinkSync(big, join(site, 'data/big.h5'));
symlinkSync(small, join(site, 'data/small.h5'));
const server = await startServer(0, '127.0.0.1', site);
const base = `http://127.0.0.1:${server.address().port}/`;

/** One measurement in a fresh browser. */
async function run(what, url, opts) {
  const b = await launch('chromium');
  try {
    const page = await b.playwright.newPage();
    await page.goto(base);
    await page.waitForFunction(() => window.benchReady, null, { timeout: 60_000 });
    return await page.evaluate(([w, u, o]) => window.bench[w](u, o), [what, new URL(url, base).href, opts]);
  } finally {
    await b.close();
  }
}

const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const load = [];
const runs = { big: [], small: [], h5wasm: [] };
for (let r = 0; r < ROUNDS; r++) {
  load.push(loadavg()[0]);
  runs.big.push(await run('arrowsmith', 'data/big.h5', { frames: 6, slice: r === 0 }));
  runs.small.push(await run('arrowsmith', 'data/small.h5', { frames: 3, slice: false }));
  runs.h5wasm.push(await run('h5wasm', 'data/small.h5'));
  console.log(`round ${r + 1}: big first ${runs.big[r].firstMs.toFixed(0)} ms, 1 GiB first ${runs.small[r].firstMs.toFixed(0)} ms vs h5wasm ${runs.h5wasm[r].firstMs.toFixed(0)} ms`);
}
server.close();

const ms = (x) => `${x < 10 ? x.toFixed(1) : x.toFixed(0)} ms`;
const mib = (x) => `${(x / MiB).toFixed(1)} MiB`;
const bestOf = (a, k) => a.reduce((m, x) => (x[k] < m[k] ? x : m));
const B = bestOf(runs.big, 'firstMs');
const S = bestOf(runs.small, 'firstMs');
const H = bestOf(runs.h5wasm, 'firstMs');
const warm = (rs) => median(rs.flatMap((r) => r.next.map((n) => n.ms)));
const slice = runs.big[0].slice;
const gi = (p) => (statSync(p).size / 2 ** 30).toFixed(2);
const rows = [
  [`${gi(big)} GiB, ${B.shape.join(' × ')}`, 'ArrowsmithApi, first frame (cold)', ms(B.firstMs), `${B.first.requests}`, mib(B.first.bytes), mib(B.memoryGrowth), ''],
  [`${gi(big)} GiB`, 'ArrowsmithApi, next frames (warm median)', ms(warm(runs.big)), `${median(runs.big.flatMap((r) => r.next.map((n) => n.requests)))}`, mib(median(runs.big.flatMap((r) => r.next.map((n) => n.bytes)))), '', ''],
  [`${gi(big)} GiB`, 'ArrowsmithApi, slice ":,512,:" across frames', ms(slice.ms), `${slice.requests}`, mib(slice.bytes), '', ''],
  [`${gi(small)} GiB, ${S.shape.join(' × ')}`, 'ArrowsmithApi, first frame (cold)', ms(S.firstMs), `${S.first.requests}`, mib(S.first.bytes), mib(S.memoryGrowth), `${(H.firstMs / S.firstMs).toFixed(0)}× sooner`],
  [`${gi(small)} GiB`, 'h5web H5WasmBufferProvider way, first frame (cold)', ms(H.firstMs), `${H.first.requests}`, mib(H.first.bytes), mib(H.memoryGrowth), ''],
  [`${gi(small)} GiB`, 'h5wasm, next frame', ms(median(runs.h5wasm.map((r) => r.next.ms))), '', '', '', ''],
];
const equal = runs.h5wasm.every((r) => r.equal) && runs.small.every((r) => r.frame0Sum === runs.h5wasm[0].frame0Sum);
const targets = [
  ['first frame of the big file < 1 s', B.firstMs < 1000],
  ['≤ 20 range requests', B.first.requests <= 20],
  ['≤ 64 MiB memory growth', B.memoryGrowth <= 64 * MiB],
  ['a later frame < 150 ms', warm(runs.big) < 150],
  ['1 GiB: ≥ 10× sooner than the buffer provider', H.firstMs / S.firstMs >= 10],
  ['same values (frame 0, h5wasm vs Arrowsmith)', equal],
];
const table = mdTable(['file', 'reader', 'time', 'requests', 'fetched', 'memory growth', 'vs h5wasm'], rows);
console.log(table);
for (const [t, ok] of targets) console.log(`${ok ? '✓' : '✗'} ${t}`);
writeReport(join(root, 'bench/results/h5web.md'), {
  title: 'h5web on a big remote HDF5 file (#38)',
  intro:
    '`npm run bench:h5web`: a 3-D uint16 stack (chunks of 1 × 256 × 2048, shuffle + gzip 4; a frame is 8 chunks) written by h5py (bench/h5web_gen.py, never committed), served with HTTP Range from loopback, read in headless Chromium through h5web\'s data provider API: `ArrowsmithApi` on the URL, and the way h5web\'s `H5WasmBufferProvider` works (the whole file fetched into one ArrayBuffer, then h5web v17\'s own provider code on h5wasm) on a 1 GiB file it can hold. Each measurement is a fresh browser. "First frame" is from `new ArrowsmithApi(url)` (or the fetch) to the values of frame 0 (`getEntity` then `getValue` of `"0,:,:"`); requests and bytes from Resource Timing; memory growth is the JS heap plus wasm memory, after a GC. Best of the rounds for the cold rows, median for the warm ones.',
  machineExtra: [`Load average (1 min) while it ran: ${Math.min(...load).toFixed(1)}–${Math.max(...load).toFixed(1)}; ${ROUNDS} rounds`],
  sections: [{ text: table }, { title: 'Targets', text: targets.map(([t, ok]) => `- ${ok ? 'met' : 'not met'}: ${t}`).join('\n') }],
});
