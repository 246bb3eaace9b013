#!/usr/bin/env node
// From a dropped file to the first SQL result in headless Chromium (#41 item 5): the built demo
// (web-demo/dist: Arrowsmith reads the TsFile in its worker, the SQL panel loads DuckDB-wasm and
// registers the shown table) against DuckDB-wasm's own paths over the same rows (bench/sql-page.mjs:
// a CSV, an Arrow IPC stream and a DuckDB file, twins written by bench/sql_gen.py from the
// official TsFile reader's values). Every path's result must equal the demo's.
//
//   npm run bench:sql            (--rounds N, default 3; --warm N runs per page, default 3)
// Writes bench/results/sql.md (fewer than 3 rounds: target/bench-partial/sql.md).
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { startServer } from '../web-demo/serve.mjs';
import { launch } from '../tests/browser/drivers.mjs';
import { dataDir, tsfileCases } from './cases.mjs';
import { fmt, machineLoad, med, resultsPath, root, versions } from './coldwarm.mjs';
import { mdTable, writeReport } from './common.mjs';

const arg = (name, dflt) => Number(process.argv[process.argv.indexOf(`--${name}`) + 1] || dflt);
const ROUNDS = process.argv.includes('--rounds') ? arg('rounds', 3) : 3;
const WARM = process.argv.includes('--warm') ? arg('warm', 3) : 3;
const QUERY = "SELECT id1, date_trunc('hour', time) AS hour, avg(s2) AS mean FROM data GROUP BY 1, 2 ORDER BY 1, 2";
const MEMORY = 'SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()';
const TIMEOUT = 120_000;
const loadStart = os.loadavg()[0];
const MiB = (n) => (n / 2 ** 20).toFixed(0);

// ---- data: the TsFile (bench/cases.mjs) and its twins (bench/sql_gen.py), made on first use.
tsfileCases();
const tsfile = join(dataDir, 'tsfile_A.tsfile');
const twin = (ext) => join(dataDir, `tsfile_A.${ext}`);
if (!['csv', 'arrows', 'duckdb'].every((e) => existsSync(twin(e)))) {
  execFileSync(join(root, '.venv/bin/python'), [join(root, 'bench/sql_gen.py'), tsfile, join(dataDir, 'tsfile_A')], { stdio: 'inherit' });
}
const dist = join(root, 'web-demo/dist');
if (!existsSync(join(dist, 'sql-engine.js'))) throw new Error('build the demo first: npm run --silent build:ts && node web-demo/build.mjs');

// ---- DuckDB-wasm's page: bundled, with its eh worker and module beside it (no CDN).
const pageDir = join(root, 'target/bench-sql');
mkdirSync(join(pageDir, 'duckdb'), { recursive: true });
await build({ entryPoints: [join(root, 'bench/sql-page.mjs')], bundle: true, format: 'esm', platform: 'browser', outfile: join(pageDir, 'sql-page.js'), logLevel: 'warning' });
for (const f of ['duckdb-browser-eh.worker.js', 'duckdb-eh.wasm']) cpSync(join(root, 'node_modules/@duckdb/duckdb-wasm/dist', f), join(pageDir, 'duckdb', f));
writeFileSync(join(pageDir, 'index.html'), '<!doctype html><input type="file" id="file"><script type="module" src="sql-page.js"></script>');
const demoServer = await startServer(0, '127.0.0.1', dist);
const pageServer = await startServer(0, '127.0.0.1', pageDir);
const urlOf = (s) => `http://127.0.0.1:${s.address().port}/`;

/**
 * Runs in both pages before their scripts: the drop's time (the file input's change event,
 * seen first in the capture phase) and DuckDB-wasm's instantiate (its worker created → the
 * INSTANTIATE request answered), so both sides are timed the same way, in the page.
 */
function pageClock() {
  const s = (globalThis.__bench = { duck: {} });
  addEventListener('change', (e) => e.target?.id === 'file' && (s.dropAt = performance.now()), true);
  const W = globalThis.Worker;
  globalThis.Worker = class extends W {
    constructor(url, opts) {
      super(url, opts);
      if (!String(url).includes('duckdb-browser')) return;
      s.duck.created = performance.now();
      const post = this.postMessage.bind(this);
      let id;
      this.postMessage = (m, t) => ((m?.type === 'INSTANTIATE' && (id = m.messageId)), post(m, t));
      this.addEventListener('message', (e) => {
        if (id !== undefined && e.data?.requestId === id && e.data.type !== 'INSTANTIATE_PROGRESS') (s.duck.done = performance.now()), (id = undefined);
      });
    }
  };
}

/**
 * The demo, driven as a user who clicks Run the moment the table shows: accessors on
 * `arrowsmithDemo` see the read end (`busy` false after a new `table`), put the query in
 * #sql-query, click #sql-run (a DOM click, no automation round trip inside the timing) and note
 * when `sql` is set for it.
 */
function demoHooks(query) {
  const d = window.arrowsmithDemo;
  const s = window.__bench;
  const val = { busy: d.busy, table: d.table, sql: d.sql };
  const on = {
    table: () => ((s.tableSet = true), (s.tableSetAt = performance.now())),
    busy: (v) => {
      if (v || !s.armed || !s.tableSet) return;
      s.tableAt = performance.now();
      s.status = document.getElementById('status')?.textContent;
      setTimeout(() => ((document.getElementById('sql-query').value = query), document.getElementById('sql-run').click()));
    },
    sql: (v) => s.armed && v?.sql === query && ((s.armed = false), (s.resultAt = performance.now())),
  };
  for (const k of Object.keys(val)) Object.defineProperty(d, k, { configurable: true, enumerable: true, get: () => val[k], set: (v) => ((val[k] = v), on[k](v)) });
}

/** The contenders: how each opens its page, runs one drop → result, and reads DuckDB's memory. */
const CONTENDERS = [
  {
    name: 'Arrowsmith demo (TsFile)',
    key: 'demo',
    file: tsfile,
    async open(page) {
      await page.goto(urlOf(demoServer));
      await page.waitForFunction(() => window.arrowsmithDemo && window.__bench);
      await page.evaluate(demoHooks, QUERY);
    },
    async drop(page) {
      await page.setInputFiles('#file', []); // picking the same file again fires no change event
      await page.evaluate(() => Object.assign(window.__bench, { armed: true, tableSet: false, resultAt: undefined }));
      await page.setInputFiles('#file', this.file);
      await page.waitForFunction(() => window.__bench.resultAt !== undefined, null, { timeout: TIMEOUT, polling: 50 });
      return page.evaluate(() => {
        const s = window.__bench;
        const r = window.arrowsmithDemo.sql;
        if (r.error) return { error: r.error };
        // BigInt and Date as numbers, so both sides' rows compare as plain JSON.
        const rows = r.rows.map((row) => row.map((v) => (typeof v === 'bigint' ? Number(v) : v instanceof Date ? v.getTime() : v)));
        return { ms: s.resultAt - s.dropAt, tableMs: s.tableAt - s.dropAt, showMs: s.tableAt - s.tableSetAt, status: s.status, rows, total: r.total };
      });
    },
    async memory(page) {
      await page.evaluate(() => (window.arrowsmithDemo.sql = undefined));
      await page.fill('#sql-query', MEMORY);
      await page.click('#sql-run');
      await page.waitForFunction((q) => window.arrowsmithDemo.sql?.sql === q, MEMORY, { timeout: TIMEOUT });
      return page.evaluate(() => Number(window.arrowsmithDemo.sql.rows?.[0]?.[0]));
    },
  },
  ...[
    ['csv', 'DuckDB-wasm: CSV, read_csv over the File', 'csv'],
    ['ipc', 'DuckDB-wasm: Arrow IPC stream, insertArrowFromIPCStream', 'arrows'],
    ['db', 'DuckDB-wasm: DuckDB file, ATTACH read-only', 'duckdb'],
  ].map(([path, name, ext]) => ({
    name,
    key: path,
    file: twin(ext),
    async open(page) {
      await page.goto(`${urlOf(pageServer)}#${encodeURIComponent(JSON.stringify({ path, query: QUERY }))}`);
      await page.waitForFunction(() => globalThis.__ready && globalThis.__bench);
    },
    async drop(page) {
      await page.setInputFiles('#file', []);
      await page.evaluate(() => (globalThis.__sql = undefined));
      await page.setInputFiles('#file', this.file);
      await page.waitForFunction(() => globalThis.__sql !== undefined, null, { timeout: TIMEOUT, polling: 50 });
      return page.evaluate(() => {
        const r = globalThis.__sql;
        return r.error ? r : { ...r, ms: r.at - globalThis.__bench.dropAt };
      });
    },
    memory: (page) => page.evaluate(() => globalThis.__duckMemory()),
  })),
];

/** Resident memory (bytes) of this process's descendants: the browser and its renderers (as tests/browser/big.mjs). */
function descendantsRss() {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(pid)]);
    } catch {}
  }
  let rss = 0;
  const todo = [...(children.get(process.pid) ?? [])];
  while (todo.length) {
    const pid = todo.pop();
    todo.push(...(children.get(pid) ?? []));
    try {
      rss += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {}
  }
  return rss;
}

/** One cold measurement in a fresh browser, its memory, then WARM drops of the same file in that page. */
async function coldRun(k) {
  const browser = await launch('chromium');
  try {
    const page = await browser.playwright.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.addInitScript(pageClock);
    await k.open(page);
    const cold = await k.drop(page);
    if (cold.error || errors.length) throw new Error(`${k.name}: ${cold.error ?? errors.join('; ')}`);
    check(k, cold);
    const duck = await page.evaluate(() => globalThis.__bench.duck);
    cold.instantiateMs = duck.done - duck.created;
    cold.duckBytes = await k.memory(page);
    cold.rss = descendantsRss();
    cold.warm = [];
    cold.warmTable = [];
    for (let i = 0; i < WARM; i++) {
      const w = await k.drop(page);
      if (w.error) throw new Error(`${k.name} (warm): ${w.error}`);
      check(k, w);
      cold.warm.push(w.ms);
      cold.warmTable.push(w.tableMs);
    }
    if (errors.length) throw new Error(`${k.name}: ${errors.join('; ')}`);
    cold.version = browser.version;
    return cold;
  } finally {
    await browser.close();
  }
}

// ---- the result every path must give: the demo's first one (rows, keys exact, means to 1e-9).
let reference;
function check(k, r) {
  if (r.total !== r.rows.length) throw new Error(`${k.name}: ${r.total} rows, ${r.rows.length} came back`);
  if (!reference) return void (reference = r.rows);
  const bad = r.rows.length !== reference.length ? `${r.rows.length} rows, the demo ${reference.length}` : r.rows.findIndex(([id, h, m], i) => id !== reference[i][0] || h !== reference[i][1] || !(Math.abs(m - reference[i][2]) <= 1e-9 * Math.abs(m)));
  if (bad !== -1) throw new Error(`${k.name}: result differs from the demo's: ${typeof bad === 'string' ? bad : `row ${bad}: ${JSON.stringify(r.rows[bad])} vs ${JSON.stringify(reference[bad])}`}`);
}

const runs = new Map(CONTENDERS.map((k) => [k.key, []]));
let browserVersion = '';
try {
  for (let r = 0; r < ROUNDS; r++) {
    // Interleaved, the first contender rotating each round; the demo runs first in round 0 (its result is the reference).
    for (let i = 0; i < CONTENDERS.length; i++) {
      const k = CONTENDERS[(r + i) % CONTENDERS.length];
      const res = await coldRun(k);
      browserVersion = res.version;
      runs.get(k.key).push(res);
      console.error(`round ${r + 1}/${ROUNDS} ${k.name}: ${fmt(res.ms)} ms (instantiate ${fmt(res.instantiateMs)}), warm ${res.warm.map(fmt).join(', ')} ms, RSS ${MiB(res.rss)} MiB, DuckDB ${MiB(res.duckBytes)} MiB`);
    }
  }
} finally {
  demoServer.close();
  pageServer.close();
}

// ---- the report.
const stat = (key) => {
  const rs = runs.get(key);
  const cold = med(rs.map((r) => r.ms));
  const inst = med(rs.map((r) => r.instantiateMs));
  return { cold, inst, excl: med(rs.map((r) => r.ms - r.instantiateMs)), warm: med(rs.flatMap((r) => r.warm)), rss: med(rs.map((r) => r.rss)), duck: med(rs.map((r) => r.duckBytes)), runs: rs };
};
const S = Object.fromEntries(CONTENDERS.map((k) => [k.key, stat(k.key)]));
const spread = (xs) => (xs.length > 1 ? `${fmt(med(xs))} (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})` : fmt(xs[0]));
const rows = CONTENDERS.map((k) => {
  const s = S[k.key];
  return [k.name, `${(statSync(k.file).size / 1e6).toFixed(1)} (${k.file.split('/').pop()})`, spread(s.runs.map((r) => r.ms)), fmt(s.inst), fmt(s.excl), `${fmt(s.warm)} (${s.runs.length * WARM})`, MiB(s.rss), MiB(s.duck)];
});
const x = (v) => `${v.toFixed(2)}×`;
const ratio = (a, b) => x(a / b);
const d = S.demo;
/** The demo's cold time ÷ the path's, round by round (neighbouring runs, so a load that comes and goes cancels). */
const paired = (key) => {
  const rs = d.runs.map((r, i) => r.ms / S[key].runs[i].ms);
  return rs.length > 1 ? `; round by round ${x(med(rs))} (${x(Math.min(...rs))}–${x(Math.max(...rs))})` : '';
};
const targets = [
  `- demo ÷ CSV path: cold **${ratio(d.cold, S.csv.cold)}**${paired('csv')}, excluding instantiate ${ratio(d.excl, S.csv.excl)}, warm ${ratio(d.warm, S.csv.warm)} (target ≤ 1.5×: ${d.cold <= 1.5 * S.csv.cold ? 'met' : '**not met**'} cold, ${d.warm <= 1.5 * S.csv.warm ? 'met' : '**not met**'} warm).`,
  `- demo ÷ IPC path: cold **${ratio(d.cold, S.ipc.cold)}**${paired('ipc')}, excluding instantiate ${ratio(d.excl, S.ipc.excl)}, warm ${ratio(d.warm, S.ipc.warm)} (target within 4×: ${d.cold <= 4 * S.ipc.cold ? 'met' : '**not met**'} cold, ${d.warm <= 4 * S.ipc.warm ? 'met' : '**not met**'} warm).`,
  `- demo ÷ DuckDB-file path: cold ${ratio(d.cold, S.db.cold)}${paired('db')}, warm ${ratio(d.warm, S.db.warm)} (no target).`,
];
const sum = reference.reduce((a, r) => a + r[2], 0);
const load = machineLoad(loadStart);
const intro = [
  '`npm run bench:sql` (bench/sql.bench.mjs, page bench/sql-page.mjs, data bench/sql_gen.py): the time from a dropped file to the first SQL result in headless Chromium. The data is the TsFile benchmark file A (`tsfile_A.tsfile`, bench/cases.mjs: 10 devices × 100,000 rows, tag id1, fields s1 INT64, s2 DOUBLE, s3 FLOAT, s4 INT32, time every 1000 ms) and its twins, written from the official TsFile reader\'s values (time as a TIMESTAMP): a CSV (pyarrow), an Arrow IPC stream (pyarrow, uncompressed) and a DuckDB database file (Python duckdb, storage compatible with 1.0). The query, the issue\'s target: `' + QUERY + '`.',
  '- **Arrowsmith demo**: the built demo (web-demo/dist); the TsFile picked in its file input (`setInputFiles`, a disk-backed File as a drop gives it); when the table shows (`arrowsmithDemo.busy` false after a new `table`), the query is put in #sql-query and #sql-run clicked in the page (a DOM click, as a user who clicks at once, no automation round trip); the SQL panel then loads its engine bundle and DuckDB-wasm (eh), registers the shown table as `data` (Arrow IPC through arrowsmith/duckdb) and runs the query.\n- **DuckDB-wasm** 1.32.0 alone (eh bundle served beside the page, no CDN): the twin picked in the page\'s file input, then (CSV) `registerFileHandle(name, file, BROWSER_FILEREADER, true)` and `CREATE TABLE data AS SELECT * FROM read_csv(name)` (DuckDB reads the File in its worker, no copy of it first); (IPC) `file.arrayBuffer()` and `insertArrowFromIPCStream(bytes, {name: \'data\'})`; (DuckDB file) `registerFileHandle` as for CSV, `ATTACH name AS f (READ_ONLY)`, `USE f`. Then the query.',
  `Times are measured in the page with performance.now(): from the file input's change event (a capture listener installed before the page's scripts) to the result (the demo: \`arrowsmithDemo.sql\` set for the query; DuckDB: its \`conn.query\` resolved). Every path includes instantiating DuckDB-wasm on the first file, as the demo does; **instantiate** is from DuckDB-wasm's worker being created to its INSTANTIATE request answered (the same hook on \`Worker\` in both pages), and **excl. instantiate** is the cold time less it (the demo's still includes loading its SQL engine bundle). **Cold**: a fresh Chromium per measurement, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}, contenders interleaved (the first rotating): median (min–max). **Warm**: the same drop → result again in the same page, ${WARM} times after each cold run (demo: the file opened again, its table registered again; DuckDB: the table dropped and created again from the file, or detached and attached again), median over all. **RSS**: the browser's processes (the harness's descendants, /proc) after the cold result; **DuckDB memory**: \`${MEMORY}\` then. Every run's result (cold and warm) is checked against the demo's: ${reference.length} rows, (id1, hour) exact and each mean within 1e-9 relative (Σ mean = ${sum.toFixed(6)}).`,
].join('\n\n');
const path = resultsPath('sql', { cold: true, warm: true, browser: true, quick: ROUNDS < 3 });
writeReport(path, {
  title: 'From a dropped file to the first SQL result: Arrowsmith demo vs DuckDB-wasm',
  intro,
  machineExtra: [`${browserVersion}, ${versions({ npm: ['@duckdb/duckdb-wasm', 'apache-arrow', 'esbuild'], python: ['pyarrow', 'duckdb', 'tsfile'] })}`, `${load.text} Part of the rise is this benchmark's own: a page's main thread and its worker (the demo's reader, DuckDB's) keep both cores busy at times.`],
  sections: [
    { title: 'Targets (#41 item 5)', text: targets.join('\n') + `\n\nThe demo's table is shown ${fmt(med(d.runs.map((r) => r.tableMs)))} ms after the drop (cold median; warm ${fmt(med(d.runs.flatMap((r) => r.warmTable)))} ms): the demo opening the file and Arrowsmith reading it in the demo's worker, then ${fmt(med(d.runs.map((r) => r.showMs)))} ms of it (cold median) on the page's main thread between the table arriving (\`arrowsmithDemo.table\` set) and the read's end (\`busy\` false): showing it (grid, time chart, SQL panel); the rest is the SQL panel (its engine bundle, DuckDB-wasm's instantiate when cold, registering the table, the query). The demo's status line then (last cold run): "${d.runs.at(-1).status}".` },
    { title: 'Drop → first result', text: mdTable(['path', 'file MB', 'cold ms', 'instantiate ms', 'cold excl. instantiate ms', 'warm ms (runs)', 'RSS MiB', 'DuckDB memory MiB'], rows) },
  ],
});
console.log(readFileSync(path, 'utf8'));
console.error(`written: ${path}`);
