#!/usr/bin/env node
// The demo's SQL panel on a 1 GiB TsFile (#41 item 4), in headless Chromium. The official
// writer (PyPI tsfile, bench/big_gen.py) writes it into a temporary folder (deleted afterwards);
// it is picked in the demo, which previews 10,000 rows. A query then streams the whole table
// into DuckDB-wasm batch by batch, with progress. Checked: every device's row count and s4 sum
// equal what the writer was given, and the per-device hourly mean runs. The browser's resident
// memory must grow by at most 2× the DuckDB table's own size (DuckDB's duckdb_memory()).
//
//   npm run test:sql-big        (ARROWSMITH_BIG_MIB=256 for a quicker, smaller run)
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startServer } from '../../web-demo/serve.mjs';
import { launch } from './drivers.mjs';
import { descendantsRss, processesRss, workerHeaps } from './memory.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const python = join(root, '.venv/bin/python');
const MIB = Number(process.env.ARROWSMITH_BIG_MIB ?? 1024);
const DEVICES = 100;
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

/** Runs `sql` in the panel; resolves with its result ({ columns, rows, total, ms } or { error }). */
async function sql(page, q, onPoll = () => {}) {
  await page.evaluate(() => (window.arrowsmithDemo.sql = undefined));
  await page.fill('#sql-query', q);
  await page.click('#sql-run');
  for (;;) {
    const r = await page.evaluate(() => {
      const s = window.arrowsmithDemo.sql;
      return s && { ...s, rows: s.rows?.map((row) => row.map(String)) };
    });
    if (r) return r;
    onPoll();
    await sleep(250);
  }
}

const tmp = mkdtempSync(join(tmpdir(), 'arrowsmith-sql-big-'));
const file = join(tmp, 'big.tsfile');
let server;
let browser;
const t0 = Date.now();
try {
  // The file holds about 23 bytes a row.
  const rows = Math.round((MIB * 2 ** 20) / 23 / DEVICES / 1000) * 1000 * DEVICES;
  console.log(`SQL panel on a big TsFile: writing ${rows.toLocaleString('en-US')} rows (${DEVICES} devices) with the official writer into ${tmp}`);
  const gen = JSON.parse(execFileSync(python, [join(root, 'bench/big_gen.py'), 'tsfile', file, '--rows', String(rows), '--devices', String(DEVICES)], { encoding: 'utf8' }));
  console.log(`  written: ${MiB(gen.bytes)} in ${gen.seconds.toFixed(1)} s`);
  server = await startServer(0);
  browser = await launch('chromium');
  const page = await browser.playwright.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`http://127.0.0.1:${server.address().port}/${process.env.ARROWSMITH_SQL_ROWS ? `?sqlRows=${process.env.ARROWSMITH_SQL_ROWS}` : ''}`);
  await page.waitForFunction(() => window.arrowsmithDemo);
  const baseRss = descendantsRss();

  await page.setInputFiles('#file', file);
  await page.waitForFunction(() => !window.arrowsmithDemo.busy && window.arrowsmithDemo.table?.numRows === 10_000, null, { timeout: 120_000 });
  report(true, 'the demo previews 10,000 rows of the big file');

  // The whole table into DuckDB, checked against what the writer was given.
  let peakRss = 0;
  let atPeak = [];
  const heapOf = await workerHeaps(browser.playwright);
  const heapPeak = new Map();
  let polls = 0;
  const poll = () => {
    const ps = processesRss();
    const rss = ps.reduce((a, p) => a + p.rss, 0);
    if (rss > peakRss) [peakRss, atPeak] = [rss, ps];
    // Every 8th poll (2 s): each worker's JS heap and ArrayBuffers (wasm memories among them).
    if (polls++ % 8 === 0) {
      void heapOf().then((h) => {
        for (const w of h.workers) {
          const name = w.url.split('/').pop().split('?')[0];
          if (process.env.ARROWSMITH_SQL_TRACE) console.log(`    ${((Date.now() - t0) / 1000).toFixed(1)} s ${name}: JS ${MiB(w.used)}, ArrayBuffers ${MiB(w.backing)}; rss ${MiB(rss)}`);
          const p = heapPeak.get(name) ?? { used: 0, backing: 0 };
          heapPeak.set(name, { used: Math.max(p.used, w.used), backing: Math.max(p.backing, w.backing) });
        }
      }, () => {});
    }
  };
  const check = await sql(page, 'SELECT id1, count(*)::BIGINT AS n, sum(s4)::HUGEINT AS s4 FROM data GROUP BY 1 ORDER BY 1', poll);
  poll();
  const feed = await page.evaluate(() => window.arrowsmithDemo.sqlFeed);
  report(feed?.state === 'done' && feed.rows === gen.rows && feed.total === gen.rows, `the whole table streams into DuckDB: ${feed?.rows?.toLocaleString('en-US')} of ${gen.rows.toLocaleString('en-US')} rows, ${((feed?.ms ?? 0) / 1000).toFixed(1)} s (${((feed?.rows ?? 0) / ((feed?.ms ?? 1) / 1000) / 1e6).toFixed(1)} M rows/s)`, JSON.stringify(feed).slice(0, 300));
  const steps = new Set(feed?.progress ?? []).size;
  report(steps >= 10, `progress advances in ${steps} steps`);
  const want = Array.from({ length: DEVICES }, (_, d) => [`d${String(d).padStart(3, '0')}`, String(gen.device_rows), String(gen.device_s4_sum)]);
  report(JSON.stringify(check.rows) === JSON.stringify(want), `every device's rows and s4 sum equal the writer's (${DEVICES} devices × ${gen.device_rows.toLocaleString('en-US')} rows)`, JSON.stringify(check.error ?? check.rows?.slice(0, 2)));

  const hourly = await sql(page, "SELECT id1, date_trunc('hour', time) AS hour, avg(s2) AS mean FROM data GROUP BY 1, 2 ORDER BY 1, 2", poll);
  const hours = Math.ceil((gen.device_rows * 10) / 3_600_000);
  report(!hourly.error && hourly.total >= DEVICES * hours && hourly.total <= DEVICES * (hours + 1), `the per-device hourly mean: ${hourly.total} rows in ${hourly.ms?.toFixed(0)} ms`, JSON.stringify(hourly).slice(0, 300));

  // Memory: DuckDB's table, and what the browser's processes grew by to hold it.
  const duck = await sql(page, 'SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()');
  poll();
  const tableBytes = Number(duck.rows?.[0]?.[0]);
  const growth = peakRss - baseRss;
  report(tableBytes > 0 && growth <= 2 * tableBytes, `the browser's resident memory grew by ${MiB(growth)} at its peak, ≤ 2× DuckDB's ${MiB(tableBytes)} (${(growth / tableBytes).toFixed(2)}×; ${MiB(baseRss)} before)`, JSON.stringify(duck).slice(0, 200));
  const kinds = new Map();
  for (const p of atPeak) kinds.set(p.type, (kinds.get(p.type) ?? 0) + p.rss);
  console.log(`  at the peak: ${[...kinds].map(([k, v]) => `${k} ${MiB(v)}`).join(', ')}`);
  console.log(`  the decoding worker's wasm memory at most ${MiB(feed.peakWasmBytes)}; batches of at most ${MiB(feed.maxBatchBytes)} as IPC`);
  console.log(`  workers' peaks: ${[...heapPeak].map(([k, v]) => `${k}: JS ${MiB(v.used)}, ArrayBuffers ${MiB(v.backing)}`).join('; ')}`);
  await page.locator('#sql-panel').screenshot({ path: join(outDir, 'demo-sql-big.png') });
  report(errors.length === 0, 'no page errors', errors.join('; '));
} catch (e) {
  report(false, 'big SQL demo test crashed', String(e?.stack ?? e).split('\n').slice(0, 3).join(' '));
} finally {
  await browser?.close();
  server?.close();
  rmSync(tmp, { recursive: true, force: true });
}
console.log(`sql-big: ${passed} passed, ${failed} failed (${((Date.now() - t0) / 1000).toFixed(0)} s)`);
process.exit(failed ? 1 : 0);
