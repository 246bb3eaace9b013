#!/usr/bin/env node
// TsFile (Arrowsmith, wasm SIMD and scalar, single thread) vs the same data as Parquet
// (bench/parquet_gen.py: pyarrow, Snappy, a row group per device) read by parquet-wasm,
// hyparquet and DuckDB-wasm (bench/parquet-readers.mjs), by pyarrow (use_threads off and on,
// bench/parquet_pyarrow.py), and the TsFile by the official native reader (bench/tsfile_native.py).
// Time = file bytes in memory → an Arrow table with JS-owned buffers (pyarrow: a pyarrow Table).
//  1. Cold: fresh Node and Python processes (bench/coldwarm.mjs):
//     import, init, reads 1–3, interleaved, --rounds N each.
//  2. Warm: tinybench medians in this process; the Python readers their own warm loop.
// Every contender's rows and sum of column s4 must equal Arrowsmith's (else it throws).
// Node and Python only: Chromium would need the wasm and worker files of parquet-wasm and
// DuckDB-wasm served to the page (bench/parquet-readers.mjs says why hyparquet is not bundled).
// Writes bench/results/parquet.md. Options: --rounds N, --only TEXT, --no-cold, --no-warm.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/cli/bench-file.js';
import { TsFile } from '../packages/arrowsmith/dist/formats/tsfile/file.js';
import { dataDir as data, TSFILE_NATIVE, tsfileCases } from './cases.mjs';
import { Cold, coldOptions, coldRounds, coldTable, fmt, machineLoad, resultsPath, root, versions } from './coldwarm.mjs';
import { mdTable, median, writeReport } from './common.mjs';
import { checksum, PARQUET_READERS } from './parquet-readers.mjs';

const opts = coldOptions();
const load0 = os.loadavg()[0];
const py = join(root, '.venv/bin/python');
const JS_PEERS = Object.keys(PARQUET_READERS);
const PYARROW = { off: 'pyarrow (1 thread)', on: 'pyarrow (use_threads)' };

// The cases of the TsFile benchmark, each with its Parquet twin; a Parquet file identical
// to an earlier case's (A and B hold the same values) is read once, under the earlier case.
const seen = new Map();
const cases = tsfileCases()
  .filter((c) => !opts.only || c.label.includes(opts.only) || c.key.includes(opts.only))
  .map((c) => {
    const pq = c.data.replace(/\.tsfile$/, '.parquet');
    if (!existsSync(join(data, pq))) execFileSync(py, [join(root, 'bench/parquet_gen.py'), join(data, c.data), join(data, pq)], { stdio: 'inherit' });
    const hash = `${createHash('sha1').update(readFileSync(join(data, pq))).digest('hex')} ${c.qname}`;
    if (!seen.has(hash)) seen.set(hash, c.key);
    return { ...c, pq, pqCase: seen.get(hash), pqSpec: { format: 'parquet', case: { q: c.qname }, warmRuns: 0, warmMs: 0 } };
  });
const ownParquet = (c) => c.pqCase === c.key;

const parquetNode = (name) => ({ name: `${name}, Node`, env: 'node', parquet: true, spec: { reader: name }, applies: ownParquet });
const contenders = [
  { name: 'arrowsmith simd, Node', env: 'node', spec: { reader: 'arrowsmith', opts: { simd: true } } },
  { name: 'arrowsmith scalar, Node', env: 'node', spec: { reader: 'arrowsmith', opts: { simd: false } } },
  ...JS_PEERS.map(parquetNode),
  ...Object.entries(PYARROW).map(([t, name]) => ({ name, env: 'python', parquet: true, script: 'parquet_pyarrow.py', args: (c, path) => [path, c.qname, t], applies: ownParquet })),
  { name: TSFILE_NATIVE, env: 'python', script: 'tsfile_native.py', args: (c, path) => [path, c.qname] },
];

// ---- 1. cold ----
let coldResults;
if (opts.cold) {
  const base = await new Cold({ browser: false }).start();
  // Parquet contenders read the case's Parquet twin.
  const cold = { runOne: (k, c) => base.runOne(k, k.parquet ? { ...c, data: c.pq, spec: c.pqSpec } : c) };
  try {
    coldResults = await coldRounds(cold, cases, contenders, opts.rounds);
  } finally {
    await base.close();
  }
}

// ---- 2. warm ----
const warmMs = new Map();
const warmRows = [];
if (opts.warm) {
  const libs = {};
  for (const [name, r] of Object.entries(PARQUET_READERS)) {
    libs[name] = await r.load();
    await r.init(libs[name]);
  }
  const wasm = { simd: instantiateVariant('simd', 'tsfile'), scalar: instantiateVariant('scalar', 'tsfile') };
  for (const c of cases) {
    const bytes = new Uint8Array(readFileSync(join(data, c.data)));
    const pqBytes = new Uint8Array(readFileSync(join(data, c.pq)));
    const arrowsmith = async (w) => {
      const f = await TsFile.openWith(w, bytes);
      try {
        return await f.read({ table: 'bench_table', ...c.query });
      } finally {
        f.close();
      }
    };
    const want = checksum(await arrowsmith(wasm.simd));
    const same = (name, got) => {
      if (got.rows !== want.rows || got.s4sum !== want.s4sum) throw new Error(`${c.label}: ${name} gives ${got.rows} rows, s4 sum ${got.s4sum}; Arrowsmith ${want.rows}, ${want.s4sum}`);
    };
    same('arrowsmith scalar', checksum(await arrowsmith(wasm.scalar)));
    const fast = new Bench({ time: 2000, warmupTime: 300 });
    // hyparquet takes seconds per read: a few runs (after one warm-up) instead of 2 s.
    const slow = new Bench({ time: 0, iterations: 3, warmupTime: 0, warmupIterations: 1 });
    for (const v of ['simd', 'scalar']) fast.add(`arrowsmith ${v}, Node`, () => arrowsmith(wasm[v]));
    if (ownParquet(c)) {
      for (const name of JS_PEERS) {
        const read = () => PARQUET_READERS[name].table(libs[name], pqBytes, { q: c.qname });
        same(name, checksum(await read()));
        (name === 'hyparquet' ? slow : fast).add(`${name}, Node`, read);
      }
    }
    await fast.run();
    await slow.run();
    const rowsOf = (name, ms, check) => [c.file, c.qname, name, ms.toFixed(2), (want.rows / ms / 1e3).toFixed(1), check];
    for (const t of [...fast.tasks, ...slow.tasks]) {
      warmMs.set(`${c.key}|${t.name}`, median(t));
      warmRows.push(rowsOf(t.name, median(t), t.name.startsWith('arrowsmith simd') ? 'reference' : 'rows, s4 sum ✓'));
    }
    const python = [[TSFILE_NATIVE, 'tsfile_native.py', [join(data, c.data), c.qname, '10']]];
    if (ownParquet(c)) for (const [t, name] of Object.entries(PYARROW)) python.push([name, 'parquet_pyarrow.py', [join(data, c.pq), c.qname, t, '5']]);
    for (const [name, script, args] of python) {
      const r = JSON.parse(execFileSync(py, [join(root, 'bench', script), ...args]).toString());
      if (r.rows !== want.rows) throw new Error(`${c.label}: ${name} gives ${r.rows} rows, Arrowsmith ${want.rows}`);
      if (r.s4sum !== undefined) same(name, r);
      warmMs.set(`${c.key}|${name}`, r.median_ms);
      warmRows.push(rowsOf(name, r.median_ms, r.s4sum !== undefined ? 'rows, s4 sum ✓' : 'rows ✓'));
    }
    console.error(`${c.label} warm: ` + warmRows.filter((r) => r[0] === c.file && r[1] === c.qname).map((r) => `${r[2]} ${r[3]} ms`).join(', '));
  }
}

// ---- the results file ----
const warmOf = (c, name) => warmMs.get(`${(contenders.find((k) => k.name === name)?.parquet ? c.pqCase : c.key)}|${name}`);
const coldOf = (c, name) => {
  const key = contenders.find((k) => k.name === name)?.parquet ? c.pqCase : c.key;
  const runs = (coldResults?.get(key)?.get(name) ?? []).filter((r) => !r.error).map((r) => r.steps?.read1?.ms);
  return runs.length ? runs.sort((a, b) => a - b)[runs.length >> 1] : undefined;
};
const ratio = (theirs, ours) => (Number.isFinite(theirs) && Number.isFinite(ours) ? `${(theirs / ours).toFixed(2)}×` : '–');
const fastest = (c, of, names) => names.map((n) => [n, of(c, n)]).filter(([, v]) => Number.isFinite(v)).sort((a, b) => a[1] - b[1])[0] ?? ['–', NaN];
const sections = [];
const summary = cases.map((c) => {
  const ours = warmOf(c, 'arrowsmith simd, Node');
  const [jsName, jsMs] = fastest(c, warmOf, JS_PEERS.map((n) => `${n}, Node`));
  const [coldName, coldMs] = fastest(c, coldOf, JS_PEERS.map((n) => `${n}, Node`));
  return [
    c.label,
    fmt(ours),
    `${ratio(jsMs, ours)} (${jsName.replace(', Node', '')})`,
    ratio(warmOf(c, PYARROW.off), ours),
    ratio(warmOf(c, PYARROW.on), ours),
    `${ratio(coldMs, coldOf(c, 'arrowsmith simd, Node'))} (${coldName.replace(', Node', '')})`,
    ratio(coldOf(c, TSFILE_NATIVE), coldOf(c, 'arrowsmith simd, Node')),
  ];
});
sections.push({
  title: 'Summary',
  text: `× = their time ÷ Arrowsmith's (SIMD, Node, single thread): >1 means Arrowsmith is faster. Warm: medians of the warm section; cold: medians of read 1 in fresh processes. The fastest JS Parquet reader is picked per query.\n\n${mdTable(['case', 'Arrowsmith warm ms', 'warm vs fastest JS Parquet (Node)', 'warm vs pyarrow 1 thread', 'warm vs pyarrow use_threads', 'read 1 vs fastest JS Parquet (Node)', 'read 1 vs official TsFile reader'], summary)}`,
});
const files = [...new Set(cases.map((c) => c.data))].map((f) => {
  const c = cases.find((x) => x.data === f);
  return [c.file, f, (statSync(join(data, f)).size / 1e6).toFixed(1), c.pq, (statSync(join(data, c.pq)).size / 1e6).toFixed(1)];
});
sections.push({ title: 'Files', text: mdTable(['data', 'TsFile', 'MB', 'Parquet (pyarrow, Snappy, 10 row groups)', 'MB'], files) });
if (coldResults) {
  const t = coldTable(cases, contenders, coldResults, {
    peer: (k) => (k.name.startsWith('arrowsmith') ? 'parquet-wasm, Node' : undefined),
    warm: (c, k) => warmMs.get(`${k.parquet ? c.pqCase : c.key}|${k.name}`),
  });
  sections.push({
    title: 'Cold',
    text: `Each run is a fresh process (${opts.rounds} runs per reader, interleaved): **import** the library, **init** (Arrowsmith: \`init({ formats: ['tsfile'] })\`; DuckDB-wasm: instantiate + connect; parquet-wasm instantiates at import), then **reads 1–3** of the same bytes, each timed: median (min–max). Cases whose Parquet file is the same bytes as an earlier case's (A and B) read the Parquet once, under the earlier case. **warm median**: from the warm section. The last column divides the peer's read 1 by ours, round by round.\n\n${mdTable(t.header, t.rows)}`,
  });
}
if (warmRows.length) {
  sections.push({
    title: 'Warm',
    text: `Medians of one run. JS readers in this Node process (tinybench: 300 ms warm-up, then 2 s; hyparquet: one warm-up read, then 3), each from the file's bytes to an apache-arrow Table with JS-owned buffers: Arrowsmith \`TsFile.open\` + \`read\`; parquet-wasm \`readParquet\` → \`intoIPCStream\` → \`tableFromIPC\`; hyparquet \`parquetRead\` (columnar chunks) → \`makeVector\`/\`vectorFromArray\` per column; DuckDB-wasm \`registerFileBuffer\` + \`SELECT * FROM read_parquet(…) [WHERE …]\` (its Arrow table). Tag and time queries: parquet-wasm and hyparquet read the row groups whose footer statistics (parsed by hyparquet) can match, then keep the matching rows (runs sliced, zero-copy); DuckDB-wasm and pyarrow push the filter into the scan (row-group statistics, then rows). pyarrow: \`pq.read_table(BufferReader(bytes), filters=…, use_threads=…)\` in Python; the official TsFile reader: open + query_table + read_arrow_batch until done. Each result's rows and sum of column s4 equal Arrowsmith's (checked in the run).\n\n${mdTable(['file', 'query', 'reader', 'median ms', 'M rows/s', 'check'], warmRows)}`,
  });
}
const load = machineLoad(load0);
const text = writeReport(resultsPath('parquet', { ...opts, browser: true }), {
  title: 'TsFile (Arrowsmith) vs the same data as Parquet',
  intro: `\`npm run bench:parquet\`. The TsFile benchmark's files (bench/results/tsfile.md: 10 devices × 100,000 rows, tag id1, fields s1 INT64, s2 DOUBLE, s3 FLOAT, s4 INT32; B is the seed dataset: time TS_2DIFF, values PLAIN, SNAPPY) and each one's values as Parquet, written by pyarrow from the official TsFile reader's output (bench/parquet_gen.py: Snappy, one row group per device as the TsFile has a chunk group per device, min/max statistics). Queries: all rows (full); one device (tag filter, id1 = device03); the middle third of the time range (time filter).`,
  machineExtra: [
    [versions({ npm: ['parquet-wasm', 'hyparquet', 'duckdb-wasm-parquet', 'apache-arrow'], python: ['pyarrow', 'tsfile'] })].filter(Boolean).join(', ') +
      ' (duckdb-wasm-parquet is @duckdb/duckdb-wasm 1.28.0, the newest release with Parquet built in: 1.29.0–1.32.0 load the parquet extension from the network, unreachable here)',
    load.text,
  ],
  sections,
});
console.log('\n' + text);
