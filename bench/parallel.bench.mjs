#!/usr/bin/env node
// Parallel decoding on a worker pool: TsFile seed dataset ×10 (10 devices × 1M rows, writer
// defaults) full scan, the 100k-row VL HDF5 datasets and 400k MessagePack records, read on
// the calling thread and on pools of 1, 2 and all cores. Every reader runs in its own fresh
// Node process (pool start-up, open and the first read, timed as "read 1"; then warm samples),
// the processes taking turns reader by reader for three rounds: one process's memory history
// (dropped shared outputs that V8 does not collect, a heap grown by an earlier reader) cannot
// then tax another reader. Medians of all samples. Writes bench/results/parallel.md.
//   node bench/parallel.bench.mjs [--case <label substring>] [--rounds N] [--time-scale F]
// Any of these makes a partial run, written to target/bench-partial/parallel.md instead.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from '@msgpack/msgpack';
import { createPool, decodeMsgpackAsync, openHdf5, openTsFile } from '../packages/arrowsmith/dist/node.js';
import { mdTable, medianOf as median, writeResults } from './common.mjs';
import { tsfileCases } from './cases.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const py = join(root, '.venv/bin/python');
const data = join(root, 'target/bench-data');
const tsPath = join(data, 'tsfile_A10.tsfile');
/** The seed's dataset (bench/cases.mjs, file A): 10 devices × 100k rows, what most drops are like. */
const seedPath = join(data, 'tsfile_A.tsfile');
const h5Path = join(data, 'bench_v0.h5');
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(`--${name}`);
  return i < 0 ? undefined : argv[i + 1];
};
const only = opt('case');
const selected = (c) => only === undefined || c.label.includes(only);
const ROUNDS = Number(opt('rounds') ?? 3);
/** Scales each case's sampling time and minimum samples (a quick check: 0.1). */
const SCALE = Number(opt('time-scale') ?? 1);
const partial = only !== undefined || opt('rounds') !== undefined || SCALE !== 1;

const CASES = [
  { label: 'TsFile ×10: 10M rows, full scan (TS_2DIFF/GORILLA, LZ4)', kind: 'tsfile', file: tsPath, time: 1500, min: 4 },
  { label: 'TsFile: the seed dataset, 1M rows, full scan (TS_2DIFF/GORILLA, LZ4)', kind: 'tsfile', file: seedPath, time: 1200, min: 10 },
  { label: 'HDF5 100k VL strings, contiguous', kind: 'hdf5', file: h5Path, path: '/str_contig', time: 1200, min: 20 },
  { label: 'HDF5 100k VL strings, chunked+gzip+shuffle', kind: 'hdf5', file: h5Path, path: '/str_gzip', time: 1200, min: 20 },
  { label: 'HDF5 100k VL int32 seqs, contiguous', kind: 'hdf5', file: h5Path, path: '/vint_contig', time: 1200, min: 20 },
  { label: 'HDF5 100k VL int32 seqs, chunked+gzip+shuffle', kind: 'hdf5', file: h5Path, path: '/vint_gzip', time: 1200, min: 20 },
  { label: 'MessagePack 400k records × 5 fields', kind: 'msgpack', time: 2500, min: 10 },
];
const cores = os.availableParallelism();
/** Reader name → pool options (none: the calling thread). */
const READERS = {
  'calling thread (no pool)': undefined,
  ...Object.fromEntries([...new Set([1, 2, cores])].map((size) => [`pool of ${size}`, { size }])),
  'pool of 2, shared outputs (opt-in)': { size: 2, sharedMemory: true },
  'pool of 2, every read split (minJobBytes 0)': { size: 2, minJobBytes: 0 },
};
const readersOf = (c) => Object.keys(READERS).filter((r) => c.kind !== 'tsfile' || !r.includes('every read split'));

if (process.env.ARROWSMITH_PARALLEL_CHILD) {
  // One reader, one case, in this fresh process: samples and page faults as JSON.
  const { caseIndex, reader } = JSON.parse(process.env.ARROWSMITH_PARALLEL_CHILD);
  const c = CASES[caseIndex];
  const opts = READERS[reader];
  const bytes = c.file
    ? new Uint8Array(readFileSync(c.file))
    : encode(Array.from({ length: 400_000 }, (_, i) => ({ id: i, x: i * 0.37, name: `n${i % 1000}`, ok: i % 2 === 0, m: i % 7 ? i : null })));
  // Read 1, cold: the pool's start-up (its workers), the module's load on first use, the
  // open and the first read (which also opens the file in the workers).
  const r0 = performance.now();
  const pool = opts ? await createPool(opts) : undefined;
  const f = c.kind === 'tsfile' ? await openTsFile(bytes, { pool }) : c.kind === 'hdf5' ? await openHdf5(bytes, { pool }) : undefined;
  const read = c.kind === 'tsfile' ? () => f.read() : c.kind === 'hdf5' ? () => f.read(c.path) : () => decodeMsgpackAsync(bytes, { pool });
  const rows = (await read()).numRows;
  const read1 = performance.now() - r0;
  const samples = [];
  const faults = [];
  const t0 = performance.now();
  while (samples.length < Math.max(1, Math.round(c.min * SCALE)) || performance.now() - t0 < c.time * SCALE) {
    const f0 = process.resourceUsage().minorPageFault;
    const s = performance.now();
    await read();
    samples.push(performance.now() - s);
    faults.push(process.resourceUsage().minorPageFault - f0);
  }
  pool?.close();
  process.stdout.write(JSON.stringify({ rows, read1, samples, faults }));
  process.exit(0);
}

execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });
mkdirSync(data, { recursive: true });
if (!existsSync(tsPath) && CASES.some((c) => c.kind === 'tsfile' && selected(c))) {
  console.log('writing the 10M-row TsFile with the official writer (about 90 s)…');
  execFileSync(py, [join(root, 'scripts/fixtures/tsfile/gen_bench.py'), tsPath, '--rows', '1000000', '--writer-defaults', '--compression', 'LZ4'], { stdio: 'inherit' });
}
if (!existsSync(seedPath) && CASES.some((c) => c.file === seedPath && selected(c))) tsfileCases();
if (!existsSync(h5Path) && CASES.some((c) => c.kind === 'hdf5' && selected(c))) execFileSync(py, [join(root, 'scripts/fixtures/hdf5/gen_bench.py'), data], { stdio: 'inherit' });

const rows = [];
const summary = [];
for (const [caseIndex, c] of CASES.entries()) {
  if (!selected(c)) continue;
  const readers = readersOf(c);
  const got = Object.fromEntries(readers.map((r) => [r, { samples: [], faults: [], read1: [] }]));
  let n = 0;
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < readers.length; k++) {
      const reader = readers[(round + k) % readers.length];
      const out = JSON.parse(
        execFileSync(process.execPath, [fileURLToPath(import.meta.url)], {
          env: { ...process.env, ARROWSMITH_PARALLEL_CHILD: JSON.stringify({ caseIndex, reader }) },
          stdio: ['ignore', 'pipe', 'inherit'],
          maxBuffer: 1 << 24,
        }).toString(),
      );
      n = out.rows;
      got[reader].samples.push(...out.samples);
      got[reader].faults.push(...out.faults);
      got[reader].read1.push(out.read1);
    }
  }
  const med = Object.fromEntries(readers.map((r) => [r, median(got[r].samples)]));
  const one = med['pool of 1'];
  const main = med['calling thread (no pool)'];
  for (const r of readers) {
    const ms = med[r];
    rows.push([c.label, r, String(got[r].samples.length), median(got[r].read1).toFixed(1), ms.toFixed(2), String(Math.round(median(got[r].faults))), (n / ms / 1000).toFixed(1), `${(one / ms).toFixed(2)}×`, `${(main / ms).toFixed(2)}×`]);
  }
  summary.push(`- ${c.label}: pool of 2 = ${(one / med['pool of 2']).toFixed(2)}× pool of 1, ${(main / med['pool of 2']).toFixed(2)}× the calling thread; shared outputs ${(main / med['pool of 2, shared outputs (opt-in)']).toFixed(2)}× the calling thread`);
  console.error(rows.slice(-readers.length).map((r) => r.join('  ')).join('\n'));
}

const header = ['data', 'reader', 'samples', 'read 1 ms', 'warm median ms', 'page faults/read', 'M rows/s', 'vs pool of 1', 'vs calling thread'];
const intro = `\`npm run bench:parallel\`. Files in memory; a sample is one read → Arrow table (SIMD build). Each reader runs in its own fresh Node process (pool start-up, open and the first read, then samples for a fixed time), the processes taking turns reader by reader for ${ROUNDS} rounds; medians of all samples. **read 1 ms** is the cold figure: in each fresh process, the pool's start-up (its workers), the wasm module's load on first use, the open and the first read, median over the ${ROUNDS} processes; **warm median ms** the samples after it. A pool splits TsFile reads by device (and time slices when devices are fewer than twice the workers) and HDF5 reads by chunk-aligned row ranges; by default each job returns its batch by transfer ("shared outputs": the same two workers write numeric/validity buffers in place into SharedArrayBuffers, \`sharedMemory: true\`). A read whose input is less than two jobs' worth (2 × the pool's \`minJobBytes\`, default 1 MiB; a VL cell counts 64 bytes) is not split: HDF5 and MessagePack then decode on the calling thread; "every read split" is the same two workers with \`minJobBytes: 0\`. "vs pool of 1" is the scaling figure (same code path, one worker); "vs calling thread" compares with no pool at all.`;
const note = `## Why every reader gets its own process, and why shared outputs are opt-in

V8 counts no garbage-collection pressure for SharedArrayBuffer memory, and a worker that wrote into one holds it until the worker's own next GC, which an idle worker rarely has. Dropped shared outputs therefore pile up: a 10M-row TsFile read left ~360 MB behind every time (a process grew to 3.6 GB in 6 reads), and on this VM (Firecracker with free page reporting) every fresh page costs the host as well as the guest, so reads slowed from ~360 ms to ~1,100 ms as the process grew. Sharing one process, that growth taxed whichever readers came after it, which made the earlier in-process tables swing between 0.48× and 1.75×. Transferred outputs are ordinary ArrayBuffers that V8 collects under their own pressure (60 pooled 8 MB reads: +47 MB, against +516 MB shared; \`pool.test.ts\` locks it), hence the default. Fresh output pages still cost every reader here (the page-fault column): ~330 MB per 10M-row read.`;
const out = partial ? join(root, 'target/bench-partial/parallel.md') : join(root, 'bench/results/parallel.md');
mkdirSync(dirname(out), { recursive: true });
const text = writeResults(out, 'Parallel decoding (worker pool)', intro, mdTable(header, rows) + '\n\n' + summary.join('\n') + '\n\n' + note);
console.log(text);
