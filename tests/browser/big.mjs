#!/usr/bin/env node
// The demo with a big file (#27 item 5), in headless Chromium: a 2 GiB HDF5 file written by
// h5py into a temporary folder (never committed, deleted afterwards) is picked in the demo.
// Its structure must show at once (the lazy open, a 10,000-row preview, no whole read), its
// dataset must stream with a progress bar to 100 % into a per-pixel min/max plot equal to the
// min/max h5py computes over the same row ranges (spikes included), in bounded memory; Stop
// and opening another file abort a running stream. Then a one-device TsFile (PyPI writer)
// streams a ticked measurement against time, pixel by pixel equal to the official reader.
//
//   npm run test:big          (ARROWSMITH_BIG_MIB=256 for a quicker, smaller run)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web-demo/serve.mjs';
import { launch } from './drivers.mjs';
import { descendantsRss, workerHeaps } from './memory.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const python = join(root, '.venv/bin/python');
const MIB = Number(process.env.ARROWSMITH_BIG_MIB ?? 2048);
const SPIKES = 9;
const outDir = join(root, 'test-output/browser');
mkdirSync(outDir, { recursive: true });

let passed = 0;
let failed = 0;
function report(ok, name, detail = '') {
  ok ? passed++ : failed++;
  console.log(`  ${ok ? '✓' : '✗'} ${name}${ok || !detail ? '' : `\n      ${detail}`}`);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const MiB = (n) => `${(n / 2 ** 20).toFixed(0)} MiB`;

const tmp = mkdtempSync(join(tmpdir(), 'arrowsmith-big-demo-'));
const file = join(tmp, 'big.h5');
let server;
let browser;
const t0 = Date.now();
try {
  console.log(`big file in the demo: writing ${MIB} MiB of HDF5 with h5py into ${tmp}`);
  const gen = JSON.parse(execFileSync(python, [join(root, 'bench/big_gen.py'), 'hdf5', file, '--mib', String(MIB), '--spikes', String(SPIKES)], { encoding: 'utf8' }));
  console.log(`  written: ${gen.rows.toLocaleString('en-US')} float64 values, ${MiB(gen.bytes)} in ${gen.seconds.toFixed(1)} s`);
  server = await startServer(0);
  browser = await launch('chromium');
  const page = await browser.playwright.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.arrowsmithDemo);
  const baseRss = descendantsRss();
  const heapOf = await workerHeaps(browser.playwright);

  // 1. The structure at once, then a preview (not the whole dataset).
  const picked = Date.now();
  await page.setInputFiles('#file', file); // a file-backed File: the page reads it by slices
  await page.waitForFunction(() => window.arrowsmithDemo.treeShownAt !== undefined && document.querySelector('#tree [data-path="/x"]'), null, { timeout: 60_000 });
  const treeMs = Date.now() - picked;
  report(true, `structure shown ${treeMs} ms after picking the file (/x with its shape)`);
  const detail = await page.evaluate(() => document.querySelector('#tree [data-path="/x"]').closest('li').textContent);
  report(detail.includes(`(${gen.rows})`), 'the tree shows the dataset shape from the lazy open', detail);
  await page.waitForFunction(() => !window.arrowsmithDemo.busy, null, { timeout: 120_000 });
  const preview = await page.evaluate(() => window.arrowsmithDemo.table?.numRows);
  report(preview === 10_000, 'the first read is a 10,000-row preview', `read ${preview} rows`);
  report(await page.isVisible('#stream-panel'), 'the stream panel is shown for a big file');

  // 2. Stream /x: progress to 100 %, the structure still there, memory bounded.
  await page.click('#stream-run');
  const samples = [];
  let peakRss = 0;
  let treeWhileRunning = false;
  for (;;) {
    const s = await page.evaluate(() => {
      const st = window.arrowsmithDemo.stream;
      const bar = document.getElementById('stream-progress');
      return { state: st?.state, bar: bar.value, max: bar.max, tree: !!document.querySelector('#tree [data-path="/x"]'), heap: performance.memory?.usedJSHeapSize };
    });
    peakRss = Math.max(peakRss, descendantsRss());
    Object.assign(s, await heapOf().catch(() => ({})));
    samples.push(s);
    if (s.state === 'running' && s.bar > 0 && s.bar < s.max && s.tree) treeWhileRunning = true;
    if (s.state && s.state !== 'running') break;
    if (Date.now() - picked > 15 * 60_000) throw new Error('the stream did not end in 15 minutes');
    await sleep(250);
  }
  const st = await page.evaluate(() => {
    const s = window.arrowsmithDemo.stream;
    return { ...s, plot: s.plot && { ...s.plot, min: Array.from(s.plot.min), max: Array.from(s.plot.max), count: Array.from(s.plot.count) } };
  });
  await page.screenshot({ path: join(outDir, 'demo-big-stream.png'), fullPage: true });
  report(st.state === 'done', 'the stream finished', `${st.state}: ${st.error ?? ''}`);
  const plot = st.plot;
  if (!plot) throw new Error(`no plot: ${JSON.stringify(st).slice(0, 300)}`);
  console.log(`  streamed ${plot.rows.toLocaleString('en-US')} rows in ${plot.batches} batches, ${(plot.ms / 1000).toFixed(1)} s (${((gen.bytes / 2 ** 30) / (plot.ms / 1000)).toFixed(2)} GiB/s)`);
  report(treeWhileRunning, 'the structure is shown while the stream runs (progress between 0 and 100 %)');
  const bars = st.progress;
  const rising = bars.every((v, i) => i === 0 || v >= bars[i - 1]);
  const between = new Set(bars.filter((v) => v > 0 && v < gen.rows)).size;
  report(rising && between >= 3 && bars.at(-1) === gen.rows && plot.rows === gen.rows && plot.total === gen.rows, `the progress bar advances (${between} steps between 0 and 100 %) to 100 % (${gen.rows} rows)`, JSON.stringify(bars.slice(-5)));
  const barEnd = await page.evaluate(() => ({ v: document.getElementById('stream-progress').value, max: document.getElementById('stream-progress').max, text: document.getElementById('stream-progress-text').textContent }));
  report(barEnd.v === barEnd.max && barEnd.text.startsWith('100%'), 'the bar shows 100 %', JSON.stringify(barEnd));

  // The plot against h5py's min/max over the same row ranges.
  const want = JSON.parse(execFileSync(python, [join(root, 'bench/big_minmax.py'), file, String(plot.width)], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  const bad = [];
  for (let p = 0; p < plot.width; p++) {
    if (plot.min[p] !== want.min[p] || plot.max[p] !== want.max[p] || plot.count[p] !== want.count[p]) bad.push(`pixel ${p}: [${plot.min[p]}, ${plot.max[p]}] ×${plot.count[p]} != h5py [${want.min[p]}, ${want.max[p]}] ×${want.count[p]}`);
  }
  report(plot.width > 500 && bad.length === 0, `min/max of every one of ${plot.width} pixels equal h5py's over the same rows`, bad.slice(0, 3).join('; '));
  const spikes = want.max.filter((v) => v >= 1e6).length + want.min.filter((v) => v <= -1e6).length;
  const plottedSpikes = plot.max.filter((v) => v >= 1e6).length + plot.min.filter((v) => v <= -1e6).length;
  report(spikes === SPIKES && plottedSpikes === SPIKES, `all ${SPIKES} single-value spikes are plotted`, `${plottedSpikes} plotted, h5py ${spikes}`);

  // Memory: batches folded and dropped, never the whole series.
  const wasmBound = 256 * 2 ** 20;
  report(plot.peakWasmBytes > 0 && plot.peakWasmBytes <= wasmBound, `wasm memory stays bounded: peak ${MiB(plot.peakWasmBytes)} (≤ ${MiB(wasmBound)}) for ${MiB(gen.bytes)} streamed`);
  report(plot.maxBatchRows * 8 <= 64 * 2 ** 20, `batches stay small: at most ${plot.maxBatchRows.toLocaleString('en-US')} rows`);
  const peak = (k) => Math.max(0, ...samples.map((s) => s[k] ?? 0));
  report(peak('used') > 0 && peak('used') <= wasmBound && peak('heap') <= wasmBound, `JS heap stays bounded: worker peak ${MiB(peak('used'))} (ArrayBuffers ${MiB(peak('backing'))}), page peak ${MiB(peak('heap'))} (CDP Runtime.getHeapUsage, performance.memory)`);
  const rssGrowth = peakRss - baseRss;
  const rssBound = 768 * 2 ** 20;
  report(rssGrowth <= rssBound, `the browser's resident memory grows by ${MiB(rssGrowth)} at most (≤ ${MiB(rssBound)}; ${MiB(baseRss)} before)`);

  // 3. Stop aborts a running stream; so does opening another file.
  for (const how of ['stop', 'new file']) {
    await page.click('#stream-run');
    await page.waitForFunction(() => window.arrowsmithDemo.stream?.state === 'running' && document.getElementById('stream-progress').value > 0, null, { timeout: 120_000 });
    const at = Date.now();
    if (how === 'stop') await page.click('#stream-stop');
    else await page.setInputFiles('#file', join(root, 'fixtures/hdf5/vl_latest.h5'));
    const end = await page
      .waitForFunction(() => window.arrowsmithDemo.stream.state !== 'running', null, { timeout: 60_000 })
      .then(() => page.evaluate(() => window.arrowsmithDemo.stream.state));
    const ms = Date.now() - at;
    if (how === 'stop') {
      const p = await page.evaluate(() => ({ rows: window.arrowsmithDemo.stream.plot?.rows, run: !document.getElementById('stream-run').disabled, text: document.getElementById('stream-progress-text').textContent }));
      report(end === 'stopped' && p.run && p.text.includes('stopped'), `Stop aborts the stream (${ms} ms), the page says so and can stream again`, JSON.stringify({ end, ...p }));
    } else {
      await page.waitForFunction(() => !window.arrowsmithDemo.busy && document.querySelector('#tree .node'), null, { timeout: 60_000 });
      const other = await page.evaluate(() => ({ name: document.getElementById('filename').textContent, panel: !document.getElementById('stream-panel').hidden }));
      report(end === 'stopped' && other.name === 'vl_latest.h5' && !other.panel, `opening another file aborts the stream (${ms} ms) and shows the new file (no stream panel for a small file)`, JSON.stringify({ end, ...other }));
    }
  }

  // 4. A single-device TsFile (PyPI writer, 4M rows, ~88 MiB): a ticked measurement streams
  // in several bounded batches against time; every pixel equals the official reader's.
  const ts = join(tmp, 'big.tsfile');
  const tgen = JSON.parse(execFileSync(python, [join(root, 'bench/big_gen.py'), 'tsfile', ts, '--rows', '4000000', '--devices', '1'], { encoding: 'utf8' }));
  console.log(`  TsFile written: ${tgen.rows.toLocaleString('en-US')} rows, one device, ${MiB(tgen.bytes)} in ${tgen.seconds.toFixed(1)} s`);
  await page.setInputFiles('#file', ts);
  await page.waitForFunction(() => document.querySelector('#tree [data-column="s2"]') && !window.arrowsmithDemo.busy && document.getElementById('filename').textContent === 'big.tsfile', null, { timeout: 120_000 });
  const tsPreview = await page.evaluate(() => window.arrowsmithDemo.table?.numRows);
  report(tsPreview === 10_000 && (await page.isVisible('#stream-panel')), 'TsFile: structure, a 10,000-row preview and the stream panel', `preview ${tsPreview}`);
  await page.check('#tree [data-column="s2"]');
  await page.click('#stream-run');
  await page.waitForFunction(() => window.arrowsmithDemo.stream?.state !== 'running' && window.arrowsmithDemo.stream?.plot?.label?.endsWith('s2'), null, { timeout: 600_000 });
  const tplot = await page.evaluate(() => {
    const s = window.arrowsmithDemo.stream;
    return { state: s.state, error: s.error, ...s.plot, min: Array.from(s.plot.min), max: Array.from(s.plot.max), count: Array.from(s.plot.count) };
  });
  report(tplot.state === 'done' && tplot.rows === tgen.rows && tplot.total === tgen.rows, `TsFile: ${tplot.label} streamed to 100 % (${tplot.rows} rows)`, `${tplot.state} ${tplot.error ?? ''}`);
  report(tplot.batches >= 4 && tplot.maxBatchRows < tgen.rows / 2, `TsFile: one device streams in ${tplot.batches} bounded batches (at most ${tplot.maxBatchRows.toLocaleString('en-US')} rows)`);
  const twant = JSON.parse(execFileSync(python, [join(root, 'bench/big_minmax.py'), ts, String(tplot.width), '--tsfile', 'big.s2'], { encoding: 'utf8', maxBuffer: 64 << 20 }));
  const tbad = [];
  for (let p = 0; p < tplot.width; p++) {
    if (tplot.min[p] !== twant.min[p] || tplot.max[p] !== twant.max[p] || tplot.count[p] !== twant.count[p]) tbad.push(`pixel ${p}: [${tplot.min[p]}, ${tplot.max[p]}] ×${tplot.count[p]} != [${twant.min[p]}, ${twant.max[p]}] ×${twant.count[p]}`);
  }
  report(tbad.length === 0 && twant.rows === tgen.rows, `TsFile: min/max of every one of ${tplot.width} time pixels equal the official reader's`, tbad.slice(0, 3).join('; '));
  report(errors.length === 0, 'no page errors', errors.join('; '));
} catch (e) {
  report(false, 'big-file demo test crashed', String(e?.stack ?? e).split('\n').slice(0, 3).join(' '));
} finally {
  await browser?.close();
  server?.close();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`big: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
process.exit(failed ? 1 : 0);
