#!/usr/bin/env node
// Parallel decoding on a worker pool: TsFile seed dataset ×10 (10 devices × 1M rows, writer
// defaults) full scan, the 100k-row VL HDF5 datasets and 400k MessagePack records, read on
// the calling thread and on pools of 1, 2 and all cores. Files are opened once; a sample is
// one read → Arrow table. Readers take turns sample by sample (round robin), because on a VM
// the cost of fresh memory drifts over minutes and would otherwise favour whoever ran first.
// The TsFile case runs a second time in a child process with glibc told to keep freed memory
// (see the note it writes). Medians. Writes bench/results/parallel.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from '@msgpack/msgpack';
import { createPool, decodeMsgpack, openHdf5, openTsFile } from '../packages/arrowsmith/dist/node.js';
import { mdTable, medianOf as median, writeResults } from './common.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const py = join(root, '.venv/bin/python');
const data = join(root, 'target/bench-data');
const child = process.env.ARROWSMITH_PARALLEL_CHILD === '1';
const tsPath = join(data, 'tsfile_A10.tsfile');
const h5Path = join(data, 'bench_v0.h5');
if (!child) {
  execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });
  mkdirSync(data, { recursive: true });
  if (!existsSync(tsPath)) {
    console.log('writing the 10M-row TsFile with the official writer (about 90 s)…');
    execFileSync(py, [join(root, 'scripts/fixtures/tsfile/gen_bench.py'), tsPath, '--rows', '1000000', '--writer-defaults', '--compression', 'LZ4'], { stdio: 'inherit' });
  }
  if (!existsSync(h5Path)) execFileSync(py, [join(root, 'scripts/fixtures/hdf5/gen_bench.py'), data], { stdio: 'inherit' });
}

const cores = os.availableParallelism();
const sizes = [...new Set([1, 2, cores])];
const TS = { label: 'TsFile ×10: 10M rows, full scan (TS_2DIFF/GORILLA, LZ4)', kind: 'tsfile', file: tsPath, time: 40000 };
const CASES = child
  ? [TS]
  : [
      TS,
      { label: 'HDF5 100k VL strings, contiguous', kind: 'hdf5', file: h5Path, path: '/str_contig', time: 4000 },
      { label: 'HDF5 100k VL strings, chunked+gzip+shuffle', kind: 'hdf5', file: h5Path, path: '/str_gzip', time: 4000 },
      { label: 'HDF5 100k VL int32 seqs, contiguous', kind: 'hdf5', file: h5Path, path: '/vint_contig', time: 4000 },
      { label: 'HDF5 100k VL int32 seqs, chunked+gzip+shuffle', kind: 'hdf5', file: h5Path, path: '/vint_gzip', time: 4000 },
      { label: 'MessagePack 400k records × 5 fields', kind: 'msgpack', time: 8000 },
    ];
const records = child ? undefined : encode(Array.from({ length: 400_000 }, (_, i) => ({ id: i, x: i * 0.37, name: `n${i % 1000}`, ok: i % 2 === 0, m: i % 7 ? i : null })));

const pools = new Map();
for (const size of sizes) pools.set(size, await createPool({ size }));
// The same two workers returning one transferred batch per job instead of writing into
// SharedArrayBuffers.
const transfer2 = await createPool({ size: 2, sharedMemory: false });
// The same two workers splitting every read, however small (what the default
// `minJobBytes` threshold saves the HDF5 and MessagePack cases from).
const split2 = await createPool({ size: 2, minJobBytes: 0 });
const rows = [];
const summary = [];
for (const c of CASES) {
  const bytes = c.file ? new Uint8Array(readFileSync(c.file)) : records;
  // MessagePack has no file to open: each sample decodes the whole buffer.
  const open = async (pool) => (c.kind === 'tsfile' ? openTsFile(bytes, { pool }) : c.kind === 'hdf5' ? openHdf5(bytes, { pool }) : { pool });
  const readOf = (f) => (c.kind === 'tsfile' ? () => f.read() : c.kind === 'hdf5' ? () => f.read(c.path) : async () => (f.pool ? decodeMsgpack(bytes, { pool: f.pool }) : decodeMsgpack(bytes)));
  const runners = [['calling thread (no pool)', await open(undefined)]];
  for (const size of sizes) runners.push([`pool of ${size}`, await open(pools.get(size))]);
  runners.push(['pool of 2, transferred batches', await open(transfer2)]);
  if (c.kind !== 'tsfile') runners.push(['pool of 2, every read split (minJobBytes 0)', await open(split2)]);
  let n = 0;
  const tasks = [];
  for (const [name, f] of runners) {
    const read = readOf(f);
    n = (await read()).numRows; // warm-up; opens the file in the workers
    tasks.push({ name, read, samples: [], faults: [] });
  }
  // Round robin, rotating who goes first, until the time is up (at least 5 rounds).
  const t0 = performance.now();
  for (let round = 0; round < 5 || performance.now() - t0 < c.time; round++) {
    for (let k = 0; k < tasks.length; k++) {
      const t = tasks[(round + k) % tasks.length];
      const f0 = process.resourceUsage().minorPageFault;
      const s = performance.now();
      await t.read();
      t.samples.push(performance.now() - s);
      t.faults.push(process.resourceUsage().minorPageFault - f0);
    }
  }
  const med = Object.fromEntries(tasks.map((t) => [t.name, median(t.samples)]));
  const one = med['pool of 1'];
  const main = med['calling thread (no pool)'];
  for (const t of tasks) {
    const ms = med[t.name];
    rows.push([c.label, t.name, String(t.samples.length), ms.toFixed(2), String(Math.round(median(t.faults))), (n / ms / 1000).toFixed(1), `${(one / ms).toFixed(2)}×`, `${(main / ms).toFixed(2)}×`]);
  }
  summary.push(`- ${c.label}: pool of 2 = ${(one / med['pool of 2']).toFixed(2)}× pool of 1, ${(main / med['pool of 2']).toFixed(2)}× the calling thread; transferred batches ${(main / med['pool of 2, transferred batches']).toFixed(2)}× the calling thread`);
  console.error(rows.slice(-tasks.length).map((r) => r.join('  ')).join('\n'));
}
for (const p of pools.values()) p.close();
transfer2.close();
split2.close();

const header = ['data', 'reader', 'samples', 'median ms', 'page faults/read', 'M rows/s', 'vs pool of 1', 'vs calling thread'];
if (child) {
  process.stdout.write(JSON.stringify({ rows, summary }));
  process.exit(0);
}

// The same TsFile case with glibc keeping freed memory for reuse instead of giving it back
// to the kernel (fresh pages are what cost most on this VM); no extra top padding either.
const retained = JSON.parse(
  execFileSync(process.execPath, [fileURLToPath(import.meta.url)], {
    env: { ...process.env, ARROWSMITH_PARALLEL_CHILD: '1', MALLOC_MMAP_MAX_: '0', MALLOC_TRIM_THRESHOLD_: '100000000000', MALLOC_TOP_PAD_: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 1 << 24,
  }).toString(),
);

const intro = `\`npm run bench:parallel\`. Files in memory, opened once per reader; a sample is one read → Arrow table (SIMD build). Readers take turns sample by sample (round robin, rotating who goes first), so a drift in the machine's memory costs hits all of them alike; medians. A pool splits TsFile reads by device (and time slices when devices are fewer than twice the workers) and HDF5 reads by chunk-aligned row ranges; workers write numeric/validity buffers in place into SharedArrayBuffers ("transferred batches": the same two workers each send their job's batch back instead, \`sharedMemory: false\`). A read whose input is less than two jobs' worth (2 × the pool's \`minJobBytes\`, default 4 MiB; a VL cell counts 64 bytes) is not split: HDF5 and MessagePack then decode on the calling thread; "every read split" is the same two workers with \`minJobBytes: 0\`. "vs pool of 1" is the scaling figure (same code path, one worker); "vs calling thread" compares with no pool at all.`;
const note = `## Why the TsFile scaling depends on the memory allocator here

A 10M-row read produces ~330 MB of Arrow buffers. glibc serves allocations that large with fresh \`mmap\` pages and unmaps them when they are freed, so every read writes ~88k never-touched pages; this VM (Firecracker, virtio-balloon with free page reporting) makes each such fault cost the host as well as the guest, and the cost grows over a process's life. Measured in the pool: the decode phase scales (pool of 1 ~215 ms, pool of 2 ~110 ms), while writing the outputs takes 20–35 ms into warm pages and 110–1,000 ms into fresh ones. The faults do not get cheaper with more threads, so with glibc's defaults they, not decoding, set the ratios above. The second table runs the same case in a child process with glibc keeping freed memory for reuse (\`MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=100000000000\`, settings a Node user can apply the same way): the calling thread and the shared-memory pool then write into warm pages (see the page-fault column) and the pool's scaling shows; transferred batches still fault, because each worker allocates them in its own malloc arena and the main thread frees them.

### TsFile ×10 with glibc keeping freed memory

${mdTable(header, retained.rows)}

${retained.summary.join('\n')}`;
const text = writeResults(join(root, 'bench/results/parallel.md'), 'Parallel decoding (worker pool)', intro, mdTable(header, rows) + '\n\n' + summary.join('\n') + '\n\n' + note);
console.log(text);
