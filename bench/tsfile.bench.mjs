#!/usr/bin/env node
// TsFile: Arrowsmith (wasm SIMD and scalar, single thread) vs the official native reader
// (PyPI tsfile: query_table + read_arrow_batch, timed inside Python), same files, same
// queries. Time = file bytes in memory → usable Arrow Table (open included).
//  1. Cold: fresh Node processes, fresh Chromium pages and fresh Python processes, each
//     timing import, init and reads 1–3 (bench/coldwarm.mjs), interleaved, --rounds N each.
//  2. Warm: tinybench medians in this process (the native reader: its own warm loop).
// Writes bench/results/tsfile.md. Options: --rounds N, --only TEXT (cases whose label has
// it), --no-browser, --no-cold, --no-warm.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/cli/bench-file.js';
import { TsFile } from '../packages/arrowsmith/dist/formats/tsfile/file.js';
import { dataDir as data, peerOf, TSFILE_NATIVE, tsfileCases, tsfileContenders } from './cases.mjs';
import { coldOptions, coldTable, machineLoad, resultsPath, root, runCold, versions } from './coldwarm.mjs';
import { mdTable, median, writeReport } from './common.mjs';

const opts = coldOptions();
const load0 = os.loadavg()[0];
const py = join(root, '.venv/bin/python');
const cases = tsfileCases().filter((c) => !opts.only || c.label.includes(opts.only) || c.key.includes(opts.only));
const NATIVE = TSFILE_NATIVE;
const contenders = tsfileContenders(opts);

// ---- 1. cold ----
const { results: coldResults, browserVersion } = opts.cold ? await runCold(cases, contenders, opts) : {};

// ---- 2. warm ----
const warmRows = [];
const warmMs = new Map();
if (opts.warm) {
  for (const c of cases) {
    const bytes = new Uint8Array(readFileSync(join(data, c.data)));
    const native = JSON.parse(execFileSync(py, [join(root, 'bench/tsfile_native.py'), join(data, c.data), c.qname, '10']).toString());
    const bench = new Bench({ time: 2000, warmupTime: 300 });
    let n = 0;
    for (const variant of ['simd', 'scalar']) {
      const w = instantiateVariant(variant, 'tsfile');
      bench.add(`arrowsmith ${variant}`, async () => {
        const f = await TsFile.openWith(w, bytes);
        n = (await f.read({ table: 'bench_table', ...c.query })).numRows;
        f.close();
      });
    }
    await bench.run();
    if (n !== native.rows) throw new Error(`${c.label}: ${n} rows, native reader ${native.rows}`);
    warmMs.set(`${c.key}|${NATIVE}`, native.median_ms);
    const nativeRate = native.rows / native.median_ms;
    warmRows.push([c.file, c.qname, 'official reader (C++, Python)', native.median_ms.toFixed(2), (nativeRate / 1e3).toFixed(1), '1.0×']);
    for (const t of bench.tasks) {
      const ms = median(t);
      warmMs.set(`${c.key}|${t.name}, Node`, ms);
      warmRows.push([c.file, c.qname, t.name, ms.toFixed(2), (n / ms / 1e3).toFixed(1), `${(native.median_ms / ms).toFixed(1)}×`]);
    }
    console.error(`${c.label} warm: native ${native.median_ms.toFixed(1)} ms, ` + bench.tasks.map((t) => `${t.name} ${median(t).toFixed(1)} ms`).join(', '));
  }
}

// ---- the results file ----
const sections = [];
if (coldResults) {
  const t = coldTable(cases, contenders, coldResults, {
    peer: (k) => peerOf('tsfile', k),
    warm: (c, k) => (k.env === 'chromium' ? undefined : warmMs.get(`${c.key}|${k.name}`)),
  });
  sections.push({
    title: 'Cold and warm',
    text: `Each run is a fresh process or page (${opts.rounds} runs per reader, interleaved): **import** the library, **init** (Arrowsmith: \`init({ formats: ['tsfile'] })\`, compile + instantiate; the native reader has none), then **reads 1–3** of the same bytes, each timed: median (min–max) over the runs. **warm median**: Node and Python from the warm loop below; Chromium from warm reads in the same page after read 3. **read 1 CPU**: the reading thread's CPU time (Linux schedstat; Chromium: the renderer's main thread, read from /proc around each step), steadier than wall time on a busy machine. **read 1 page faults**: minor faults of the process during read 1 (Chromium: of its renderer processes). The last column divides the native reader's read 1 by ours, round by round (>1: ours is faster).\n\n${mdTable(t.header, t.rows)}`,
  });
}
if (warmRows.length) {
  sections.push({
    title: 'Warm (tinybench, Node)',
    text: `Medians of one run; Arrowsmith single-threaded in Node, open + read to an Arrow Table with JS-owned buffers; the official reader timed inside Python (open, query_table, read_arrow_batch until done; 300 ms warm-up, then at least 10 runs and 2 s, the budget tinybench gives Arrowsmith). "vs native" = native median / this median.\n\n${mdTable(['file', 'query', 'reader', 'median ms', 'M rows/s', 'vs native'], warmRows)}`,
  });
}
const load = machineLoad(load0);
const text = writeReport(resultsPath('tsfile', opts), {
  title: 'TsFile reading benchmark',
  intro: '`npm run bench:tsfile`. 10 devices × 100,000 rows (table `bench_table`, tag `id1`, fields s1 INT64, s2 DOUBLE, s3 FLOAT, s4 INT32, time TS_2DIFF), written by the official C++ writer (PyPI tsfile): A with the writer’s default encodings and LZ4, B with PLAIN and SNAPPY (the seed dataset’s two files), C as A with 30 % of the field values null (every value page carries a null bitmap). Queries: all fields of all devices (full); one device (tag filter); one third of the time range.',
  machineExtra: [[browserVersion ?? '', versions({ python: ['tsfile'] })].filter(Boolean).join(', '), load.text],
  sections,
});
console.log('\n' + text);
