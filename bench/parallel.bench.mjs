#!/usr/bin/env node
// Parallel decoding on a worker pool: TsFile seed dataset ×10 (10 devices × 1M rows, writer
// defaults) full scan, and the 100k-row VL HDF5 datasets, read on the calling thread and
// on pools of 1, 2 and all cores. Files are opened once; the time is one read → Arrow table.
// Medians of one run. Writes bench/results/parallel.md.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { encode } from '@msgpack/msgpack';
import { createPool, decodeMsgpack, openHdf5, openTsFile } from '../packages/arrowsmith/dist/node.js';
import { mdTable, median, writeResults } from './common.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const py = join(root, '.venv/bin/python');
const data = join(root, 'target/bench-data');
execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });
const tsPath = join(data, 'tsfile_A10.tsfile');
if (!existsSync(tsPath)) {
  console.log('writing the 10M-row TsFile with the official writer (about 90 s)…');
  execFileSync(py, [join(root, 'scripts/fixtures/tsfile/gen_bench.py'), tsPath, '--rows', '1000000', '--writer-defaults', '--compression', 'LZ4'], { stdio: 'inherit' });
}
const h5Path = join(data, 'bench_v0.h5');
if (!existsSync(h5Path)) execFileSync(py, [join(root, 'scripts/fixtures/hdf5/gen_bench.py'), data], { stdio: 'inherit' });

const cores = os.availableParallelism();
const sizes = [...new Set([1, 2, cores])];
const CASES = [
  { label: 'TsFile ×10: 10M rows, full scan (TS_2DIFF/GORILLA, LZ4)', kind: 'tsfile', file: tsPath, time: 6000 },
  { label: 'HDF5 100k VL strings, contiguous', kind: 'hdf5', file: h5Path, path: '/str_contig', time: 2000 },
  { label: 'HDF5 100k VL strings, chunked+gzip+shuffle', kind: 'hdf5', file: h5Path, path: '/str_gzip', time: 2000 },
  { label: 'HDF5 100k VL int32 seqs, contiguous', kind: 'hdf5', file: h5Path, path: '/vint_contig', time: 2000 },
  { label: 'HDF5 100k VL int32 seqs, chunked+gzip+shuffle', kind: 'hdf5', file: h5Path, path: '/vint_gzip', time: 2000 },
  { label: 'MessagePack 400k records × 5 fields', kind: 'msgpack', time: 3000 },
];
const records = encode(Array.from({ length: 400_000 }, (_, i) => ({ id: i, x: i * 0.37, name: `n${i % 1000}`, ok: i % 2 === 0, m: i % 7 ? i : null })));

const pools = new Map();
for (const size of sizes) pools.set(size, await createPool({ size }));
// The same two workers returning one transferred batch per job instead of writing into
// SharedArrayBuffers (fresh shared memory faults in slower than fresh private memory on Linux).
const transfer2 = await createPool({ size: 2, sharedMemory: false });
const rows = [];
const summary = [];
for (const c of CASES) {
  const bytes = c.file ? new Uint8Array(readFileSync(c.file)) : records;
  // MessagePack has no file to open: each sample decodes the whole buffer.
  const open = async (pool) => (c.kind === 'tsfile' ? openTsFile(bytes, { pool }) : c.kind === 'hdf5' ? openHdf5(bytes, { pool }) : { pool });
  const readOf = (f) => (c.kind === 'tsfile' ? () => f.read() : c.kind === 'hdf5' ? () => f.read(c.path) : async () => (f.pool ? decodeMsgpack(bytes, { pool: f.pool }) : decodeMsgpack(bytes)));
  const bench = new Bench({ time: c.time, warmupTime: 300 });
  let n = 0;
  const runners = [['calling thread (no pool)', await open(undefined)]];
  for (const size of sizes) runners.push([`pool of ${size}`, await open(pools.get(size))]);
  runners.push(['pool of 2, transferred batches', await open(transfer2)]);
  for (const [name, f] of runners) {
    const read = readOf(f);
    n = (await read()).numRows; // opens the file in the workers
    bench.add(name, async () => void (await read()));
  }
  await bench.run();
  const med = Object.fromEntries(bench.tasks.map((t) => [t.name, median(t)]));
  const one = med['pool of 1'];
  const main = med['calling thread (no pool)'];
  for (const t of bench.tasks) {
    const ms = med[t.name];
    rows.push([c.label, t.name, ms.toFixed(2), (n / ms / 1000).toFixed(1), `${(one / ms).toFixed(2)}×`, `${(main / ms).toFixed(2)}×`]);
  }
  summary.push(`- ${c.label}: pool of 2 = ${(one / med['pool of 2']).toFixed(2)}× pool of 1, ${(main / med['pool of 2']).toFixed(2)}× the calling thread; transferred batches ${(main / med['pool of 2, transferred batches']).toFixed(2)}× the calling thread`);
  console.log(rows.slice(-runners.length).map((r) => r.join('  ')).join('\n'));
}
for (const p of pools.values()) p.close();
transfer2.close();
const intro = `\`npm run bench:parallel\`. Files in memory, opened once per reader; each sample is one read → Arrow table (SIMD build). A pool splits TsFile reads by device (and time slices when devices are fewer than twice the workers) and HDF5 reads by chunk-aligned row ranges; workers write numeric/validity buffers in place into SharedArrayBuffers ("transferred batches": the same two workers each send their job's batch back instead, \`sharedMemory: false\`). "vs pool of 1" is the scaling figure (same code path, one worker); "vs calling thread" compares with no pool at all. Medians of one run.`;
const text = writeResults(join(root, 'bench/results/parallel.md'), 'Parallel decoding (worker pool)', intro, mdTable(['data', 'reader', 'median ms', 'M rows/s', 'vs pool of 1', 'vs calling thread'], rows) + '\n\n' + summary.join('\n'));
console.log(text);
