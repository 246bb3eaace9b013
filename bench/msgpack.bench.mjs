#!/usr/bin/env node
// MessagePack: Arrowsmith (SIMD and scalar wasm) vs msgpackr and @msgpack/msgpack, in one
// run, on the datasets of the foundation issue. Time = bytes in a Uint8Array → usable
// Arrow Table (copies out of wasm included) for us; → JS values for the peers.
// Medians; ratios against msgpackr measured in the same run. Writes bench/results/msgpack.md.
import { decode as msgpackDecode, encode } from '@msgpack/msgpack';
import { Packr, unpack } from 'msgpackr';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { instantiateVariant } from '../packages/arrowsmith/dist/bench-file.js';
import { decodeWith } from '../packages/arrowsmith/dist/msgpack.js';
import { mdTable, median, writeResults } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const N = quick ? 100_000 : 1_000_000;
const R = quick ? 10_000 : 100_000;

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

const packr = new Packr({ useRecords: false });
const packr32 = new Packr({ useRecords: false, useFloat32: 1 });
const datasets = [
  { name: `${N / 1e6}M fixint array`, rows: N, bytes: packr.pack(Array.from({ length: N }, () => int(-32, 127))) },
  {
    name: `${N / 1e6}M mixed ints (fixint/uint16/int32)`,
    rows: N,
    bytes: packr.pack(Array.from({ length: N }, () => [int(-32, 127), int(256, 65535), int(-(2 ** 31), -(2 ** 16))][int(0, 2)])),
    fastOff: true,
  },
  { name: `${N / 1e6}M float64`, rows: N, bytes: encode(Array.from({ length: N }, () => (rand() - 0.5) * 1e6)) },
  { name: `${N / 1e6}M float32`, rows: N, bytes: packr32.pack(Array.from({ length: N }, () => Math.fround((rand() - 0.5) * 1e3) + 0.5)) },
  {
    name: `${R / 1e3}k records × 5 fields`,
    rows: R,
    bytes: packr.pack(Array.from({ length: R }, (_, i) => ({ id: i, value: rand() * 100, name: `dev-${i % 100}`, ok: i % 3 === 0, maybe: i % 4 ? int(0, 1e6) : null }))),
  },
];

const simd = instantiateVariant('simd');
const scalar = instantiateVariant('scalar');
const rows = [];
const summary = [];
for (const d of datasets) {
  const bench = new Bench({ time: quick ? 300 : 1500, warmupTime: 200 });
  const sink = [];
  bench.add('arrowsmith simd', () => void sink.push(decodeWith(simd, d.bytes).numRows));
  bench.add('arrowsmith scalar', () => void sink.push(decodeWith(scalar, d.bytes).numRows));
  // Opt-in zero-copy: the table's buffers are views into wasm memory, valid until the next call.
  bench.add('arrowsmith simd, views (copy: false)', () => void sink.push(decodeWith(simd, d.bytes, { copy: false }).numRows));
  if (d.fastOff) bench.add('arrowsmith simd, fast path off', () => void sink.push(decodeWith(simd, d.bytes, { fastPath: false }).numRows));
  bench.add('msgpackr', () => void sink.push(unpack(d.bytes).length));
  bench.add('@msgpack/msgpack', () => void sink.push(msgpackDecode(d.bytes).length));
  await bench.run();
  const ms = Object.fromEntries(bench.tasks.map((t) => [t.name, median(t)]));
  const peer = ms['msgpackr'];
  for (const t of bench.tasks) {
    const m = ms[t.name];
    rows.push([d.name, t.name, m.toFixed(3), (t.result?.latency?.min ?? NaN).toFixed(3), ((d.rows / m) * 1e3 / 1e6).toFixed(1), (d.bytes.length / m / 1e3).toFixed(0), (peer / m).toFixed(1) + '×']);
  }
  const views = ms['arrowsmith simd, views (copy: false)'];
  summary.push(`${d.name}: simd ${(peer / ms['arrowsmith simd']).toFixed(1)}× msgpackr, ${((d.rows / ms['arrowsmith simd']) / 1e6).toFixed(2)} G elements/s; with views ${(peer / views).toFixed(1)}×, ${((d.rows / views) / 1e6).toFixed(2)} G elements/s`);
  console.log(`${d.name} (${(d.bytes.length / 1e6).toFixed(1)} MB): ` + bench.tasks.map((t) => `${t.name} ${ms[t.name].toFixed(3)} ms`).join(', '));
}
const table = mdTable(['dataset', 'decoder', 'median ms', 'min ms', 'M rows/s', 'MB/s', 'vs msgpackr'], rows);
const text = writeResults(
  join(here, 'results/msgpack.md'),
  'MessagePack decoding benchmark',
  `\`npm run bench\` (bench/msgpack.bench.mjs, tinybench${quick ? ', --quick' : ''}). Medians of one run. Arrowsmith: bytes → Arrow Table with JS-owned buffers (copies out of wasm included). Peers: bytes → JS arrays/objects. "vs msgpackr" = msgpackr's median time / this decoder's. Each Arrowsmith call allocates fresh JS-owned output buffers (4 MB for 1M Int32), so V8 garbage collections of those buffers land inside some iterations: the gap between min and median is mostly that. The "views (copy: false)" row is the documented opt-in zero-copy mode: the table's buffers are views into wasm memory, valid until the next Arrowsmith call (the input is still copied into wasm).`,
  table + '\n\n' + summary.map((s) => `- ${s}`).join('\n'),
);
console.log('\n' + text);
