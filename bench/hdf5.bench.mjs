#!/usr/bin/env node
// HDF5 variable-length data: Arrowsmith (wasm SIMD and scalar) vs h5wasm, jsfive (where it
// can read) and h5py (native, timed inside Python), same files. Time = file bytes in
// memory → usable table / array (open included).
//  1. Cold: fresh Node processes, fresh Chromium pages and fresh Python processes, each
//     timing import, init and reads 1–3 (bench/coldwarm.mjs), interleaved, --rounds N each.
//  2. Warm: tinybench medians in this process (h5py: its own warm loop).
// Writes bench/results/hdf5.md. Options: --rounds N, --only TEXT, --no-browser, --no-cold,
// --no-warm.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import h5wasm from 'h5wasm/node';
import * as jsfive from 'jsfive';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/cli/bench-file.js';
import { Hdf5File } from '../packages/arrowsmith/dist/formats/hdf5/file.js';
import { dataDir, HDF5_FILE, HDF5_NATIVE, hdf5Cases, hdf5Contenders, peerOf } from './cases.mjs';
import { coldOptions, coldTable, machineLoad, resultsPath, root, runCold, versions } from './coldwarm.mjs';
import { mdTable, median, writeReport } from './common.mjs';

const opts = coldOptions();
const load0 = os.loadavg()[0];
const py = join(root, '.venv/bin/python');
const cases = hdf5Cases().filter((c) => !opts.only || c.label.includes(opts.only) || c.key.includes(opts.only));
const contenders = hdf5Contenders(opts);
const file = join(dataDir, HDF5_FILE);

// ---- 1. cold ----
const { results: coldResults, browserVersion } = opts.cold ? await runCold(cases, contenders, opts) : {};

// ---- 2. warm ----
const rows = [];
const warmMs = new Map();
if (opts.warm) {
  const bytes = new Uint8Array(readFileSync(file));
  const { FS } = await h5wasm.ready;
  const simd = instantiateVariant('simd', 'hdf5');
  const scalar = instantiateVariant('scalar', 'hdf5');
  let fsCounter = 0;
  for (const c of cases) {
    const { name, label } = c;
    const native = JSON.parse(execFileSync(py, [join(root, 'bench/hdf5_native.py'), file, name, '10']).toString());
    const bench = new Bench({ time: 1500, warmupTime: 200 });
    const sink = [];
    for (const [v, w] of [['simd', simd], ['scalar', scalar]]) {
      bench.add(`arrowsmith ${v}`, async () => {
        const f = await Hdf5File.openWith(w, bytes);
        sink.push((await f.read(`/${name}`)).numRows);
        f.close();
      });
    }
    bench.add('h5wasm', () => {
      const p = `/tmp/bench${fsCounter++ % 2}.h5`;
      FS.writeFile(p, bytes);
      const f = new h5wasm.File(p, 'r');
      sink.push(f.get(name).value.length);
      f.close();
    });
    bench.add('jsfive', () => {
      const f = new jsfive.File(bytes.buffer, 'bench.h5');
      sink.push(f.get(name).value.length);
    });
    await bench.run();
    const base = median(bench.tasks.find((t) => t.name === 'h5wasm'));
    warmMs.set(`${name}|${HDF5_NATIVE}`, native.median_ms);
    rows.push([label, HDF5_NATIVE, native.median_ms.toFixed(2), `${(base / native.median_ms).toFixed(1)}×`, '']);
    for (const t of bench.tasks) {
      const ms = median(t);
      const err = t.result?.error ?? (t.result?.state === 'errored' ? t.result.error : undefined);
      if (!err) warmMs.set(`${name}|${t.name}, Node`, ms);
      rows.push([label, t.name, err || !Number.isFinite(ms) ? `fails: ${String(err?.message ?? err).slice(0, 60)}` : ms.toFixed(2), Number.isFinite(ms) && !err ? `${(base / ms).toFixed(1)}×` : '–', Number.isFinite(ms) && !err && t.name.startsWith('arrowsmith') ? `${(native.median_ms / ms).toFixed(1)}×` : '']);
    }
    console.error(`${label} warm: h5py ${native.median_ms.toFixed(1)} ms, ` + bench.tasks.map((t) => `${t.name} ${median(t)?.toFixed?.(1)} ms`).join(', '));
  }
}

// ---- the results file ----
const sections = [];
if (coldResults) {
  const t = coldTable(cases, contenders, coldResults, {
    peer: (k) => peerOf('hdf5', k),
    warm: (c, k) => (k.env === 'chromium' ? undefined : warmMs.get(`${c.name}|${k.name}`)),
  });
  sections.push({
    title: 'Cold and warm',
    text: `Each run is a fresh process or page (${opts.rounds} runs per reader, interleaved): **import** the library, **init** (Arrowsmith: \`init({ formats: ['hdf5'] })\`, compile + instantiate the HDF5 module; h5wasm: its Emscripten module ready; jsfive and h5py have none), then **reads 1–3** of the same bytes, each timed: median (min–max) over the runs. **warm median**: Node and Python from the warm loop below; Chromium from warm reads in the same page after read 3. **read 1 CPU**: the reading thread's CPU time (Linux schedstat). **read 1 page faults**: minor faults of the process (Chromium: its renderers) during read 1. The last column divides h5wasm's read 1 by ours in the same environment, round by round (>1: ours is faster).\n\n${mdTable(t.header, t.rows)}`,
  });
}
if (rows.length) {
  sections.push({
    title: 'Warm (tinybench, Node)',
    text: `Medians of one run. h5wasm: also writing the bytes into its in-memory FS. "vs h5wasm" = h5wasm median / this median; "vs h5py" = h5py median / this median.\n\n${mdTable(['dataset', 'reader', 'median ms', 'vs h5wasm', 'vs h5py'], rows)}`,
  });
}
// The A/B checks after code changes are recorded by hand under "## Checks after code changes": kept.
const out = resultsPath('hdf5', opts);
const kept = join(root, 'bench/results/hdf5.md');
const prior = existsSync(kept) ? readFileSync(kept, 'utf8') : '';
const HAND = '\n## Checks after code changes';
if (prior.includes(HAND)) sections.push({ text: prior.slice(prior.indexOf(HAND) + 1).trimEnd() });
const load = machineLoad(load0);
const text = writeReport(out, {
  title: 'HDF5 variable-length benchmark',
  intro: '`npm run bench:hdf5`. Files written by h5py (scripts/fixtures/hdf5/gen_bench.py). Time from file bytes in memory to a usable table/array, open included.',
  machineExtra: [[browserVersion ?? '', versions({ npm: ['h5wasm', 'jsfive'], python: ['h5py'] })].filter(Boolean).join(', '), load.text],
  sections,
});
console.log('\n' + text);
