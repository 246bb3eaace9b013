#!/usr/bin/env node
// TsFile: Arrowsmith in Node (wasm SIMD and scalar, single thread) vs the official native
// reader (PyPI tsfile: query_table + read_arrow_batch, timed inside Python), same files,
// same queries, one run. Time = file bytes in memory → usable Arrow Table (open included).
// Writes bench/results/tsfile.md.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/bench-file.js';
import { TsFile } from '../packages/arrowsmith/dist/tsfile.js';
import { mdTable, median, writeResults } from './common.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const py = join(root, '.venv/bin/python');
const data = join(root, 'target/bench-data');
mkdirSync(data, { recursive: true });
execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });

const FILES = {
  'A (writer defaults: TS_2DIFF/GORILLA, LZ4)': ['tsfile_A.tsfile', ['--writer-defaults', '--compression', 'LZ4']],
  'B (PLAIN, SNAPPY)': ['tsfile_B.tsfile', ['--encoding', 'PLAIN', '--compression', 'SNAPPY']],
  // Null bitmaps on every value page: the validity/expansion path instead of the one-copy path.
  'C (as A, 30% of field values null)': ['tsfile_C.tsfile', ['--writer-defaults', '--compression', 'LZ4', '--nulls', '0.3']],
};
const T0 = 1_700_000_000_000n;
const QUERIES = {
  full: {},
  device: { tags: { id1: 'device03' } },
  third: { start: T0 + 100_000n * 1000n / 3n, end: T0 + (2n * 100_000n * 1000n) / 3n - 1n },
};

const rows = [];
for (const [label, [file, args]] of Object.entries(FILES)) {
  const path = join(data, file);
  if (!existsSync(path)) execFileSync(py, [join(root, 'scripts/fixtures/tsfile/gen_bench.py'), path, ...args], { stdio: 'inherit' });
  const bytes = new Uint8Array(readFileSync(path));
  for (const [qname, q] of Object.entries(QUERIES)) {
    const native = JSON.parse(execFileSync(py, [join(root, 'bench/tsfile_native.py'), path, qname, '10']).toString());
    const bench = new Bench({ time: 2000, warmupTime: 300 });
    let n = 0;
    for (const variant of ['simd', 'scalar']) {
      const w = instantiateVariant(variant, 'tsfile');
      bench.add(`arrowsmith ${variant}`, async () => {
        const f = await TsFile.openWith(w, bytes);
        n = (await f.read({ table: 'bench_table', ...q })).numRows;
        f.close();
      });
    }
    await bench.run();
    if (n !== native.rows) throw new Error(`${label} ${qname}: ${n} rows, native reader ${native.rows}`);
    const nativeRate = native.rows / native.median_ms;
    rows.push([label, qname, 'official reader (C++, Python)', native.median_ms.toFixed(2), (nativeRate / 1e3).toFixed(1), '1.0×']);
    for (const t of bench.tasks) {
      const ms = median(t);
      rows.push([label, qname, t.name, ms.toFixed(2), (n / ms / 1e3).toFixed(1), `${(native.median_ms / ms).toFixed(1)}×`]);
    }
    console.log(`${label} ${qname}: native ${native.median_ms.toFixed(1)} ms, ` + bench.tasks.map((t) => `${t.name} ${median(t).toFixed(1)} ms`).join(', '));
  }
}
const text = writeResults(
  join(root, 'bench/results/tsfile.md'),
  'TsFile reading benchmark',
  '`npm run bench:tsfile`. 10 devices × 100,000 rows (table `bench_table`, tag `id1`, fields s1 INT64, s2 DOUBLE, s3 FLOAT, s4 INT32, time TS_2DIFF), written by the official C++ writer (PyPI tsfile): A with the writer’s default encodings and LZ4, B with PLAIN and SNAPPY (the seed dataset’s two files), C as A with 30 % of the field values null (every value page carries a null bitmap). Queries: all fields of all devices; one device (tag filter); one third of the time range. Medians of one run; Arrowsmith single-threaded in Node, open + read to an Arrow Table with JS-owned buffers; the official reader timed inside Python (open, query_table, read_arrow_batch until done; 300 ms warm-up, then at least 10 runs and 2 s, the budget tinybench gives Arrowsmith). "vs native" = native median / this median.',
  mdTable(['file', 'query', 'reader', 'median ms', 'M rows/s', 'vs native'], rows),
);
console.log('\n' + text);
