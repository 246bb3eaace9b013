#!/usr/bin/env node
// HDF5 variable-length data: Arrowsmith in Node (wasm SIMD and scalar) vs h5wasm, jsfive
// (where it can read) and h5py (native, timed inside Python), one run, same files.
// Time = file bytes in memory → usable table / array (open included). Writes
// bench/results/hdf5.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import h5wasm from 'h5wasm/node';
import * as jsfive from 'jsfive';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/bench-file.js';
import { Hdf5File } from '../packages/arrowsmith/dist/hdf5.js';
import { mdTable, median, writeResults } from './common.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const py = join(root, '.venv/bin/python');
const data = join(root, 'target/bench-data');
execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });
const file = join(data, 'bench_v0.h5');
if (!existsSync(file)) execFileSync(py, [join(root, 'scripts/fixtures/hdf5/gen_bench.py'), data], { stdio: 'inherit' });
const bytes = new Uint8Array(readFileSync(file));

const DATASETS = {
  str_contig: '100k VL UTF-8 strings, contiguous',
  str_gzip: '100k VL UTF-8 strings, chunked+gzip+shuffle',
  vstruct_contig: '600 VL seqs × 200 {i32,f32,f32}, contiguous',
  vstruct_gzip: '600 VL seqs × 200 {i32,f32,f32}, chunked+gzip+shuffle',
  vint_contig: '100k VL int32 seqs (0–19), contiguous',
  vint_gzip: '100k VL int32 seqs (0–19), chunked+gzip+shuffle',
};

const { FS } = await h5wasm.ready;
const simd = instantiateVariant('simd', 'hdf5');
const scalar = instantiateVariant('scalar', 'hdf5');
let fsCounter = 0;
const rows = [];
for (const [name, label] of Object.entries(DATASETS)) {
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
  rows.push([label, 'h5py (native)', native.median_ms.toFixed(2), `${(base / native.median_ms).toFixed(1)}×`, '']);
  for (const t of bench.tasks) {
    const ms = median(t);
    const err = t.result?.error ?? (t.result?.state === 'errored' ? t.result.error : undefined);
    rows.push([label, t.name, err || !Number.isFinite(ms) ? `fails: ${String(err?.message ?? err).slice(0, 60)}` : ms.toFixed(2), Number.isFinite(ms) && !err ? `${(base / ms).toFixed(1)}×` : '–', Number.isFinite(ms) && !err && t.name.startsWith('arrowsmith') ? `${(native.median_ms / ms).toFixed(1)}×` : '']);
  }
  console.log(`${label}: h5py ${native.median_ms.toFixed(1)} ms, ` + bench.tasks.map((t) => `${t.name} ${median(t)?.toFixed?.(1)} ms`).join(', '));
}
const text = writeResults(
  join(root, 'bench/results/hdf5.md'),
  'HDF5 variable-length benchmark',
  '`npm run bench:hdf5`. Files written by h5py (scripts/fixtures/hdf5/gen_bench.py). Time from file bytes in memory to a usable table/array, open included (h5wasm: also writing the bytes into its in-memory FS). Medians of one run. "vs h5wasm" = h5wasm median / this median; "vs h5py" = h5py median / this median.',
  mdTable(['dataset', 'reader', 'median ms', 'vs h5wasm', 'vs h5py'], rows),
);
console.log('\n' + text);
