#!/usr/bin/env node
// The MessagePack encoding matrix (#23 item 5): Arrowsmith (SIMD and scalar wasm) vs msgpackr and @msgpack/msgpack, in one
// run. Time = bytes in a Uint8Array → usable Arrow Table with JS-owned buffers (copies out
// of wasm included) for us; → JS values for the peers. Medians; ratios against each peer
// measured in the same run. Writes bench/results/msgpack-matrix.md (bench/msgpack.bench.mjs: the cold/warm datasets).
//
// The matrix: 1M-value arrays of each int encoding alone (written byte by byte here, so
// each row is exactly that encoding), small ints with one large value first/middle/last,
// float32, float64, bool, ints mixed with nil, short strings, and records with a uint32 and
// an epoch-ms field; then the datasets of the foundation issue.
// `--quick`: 100k values and shorter timings. `--only <substring>`: just those rows.
import { decode as msgpackDecode, encode } from '@msgpack/msgpack';
import { Packr, unpack } from 'msgpackr';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { Bench } from 'tinybench';
import { wasmFile } from '../packages/arrowsmith/dist/wasm-files.js';
import { standalone } from '../packages/arrowsmith/dist/wasm.js';
import { decodeWith } from '../packages/arrowsmith/dist/msgpack.js';
import { mdTable, median, writeResults } from './common.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');
const only = process.argv.includes('--only') ? process.argv[process.argv.indexOf('--only') + 1] : undefined;
const N = quick ? 100_000 : 1_000_000;
const R = quick ? 10_000 : 100_000;
const M = `${N / 1e6}M`;

let seed = 12345;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));

/** An array32 of `n` values, each written by `put(out, i)` (exact encodings, no encoder choice). */
function array(n, put) {
  const out = [0xdd, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
  for (let i = 0; i < n; i++) put(out, i);
  return Uint8Array.from(out);
}
/** Big-endian bytes of an integer (safe-integer range) in `w` bytes. */
function be(out, v, w) {
  let x = BigInt.asUintN(w * 8, BigInt(v));
  const bytes = [];
  for (let i = 0; i < w; i++, x >>= 8n) bytes.push(Number(x & 0xffn));
  out.push(...bytes.reverse());
}
const tagged = (tag, w, lo, hi) => array(N, (o) => (o.push(tag), be(o, int(lo, hi), w)));
/** Small ints (fixint) with one uint32 above 2^31 at index `at`. */
const oneLarge = (at) => array(N, (o, i) => (i === at ? (o.push(0xce), be(o, int(2 ** 31, 2 ** 32 - 1), 4)) : o.push(int(0, 127))));

const packr = new Packr({ useRecords: false });
const packr32 = new Packr({ useRecords: false, useFloat32: 1 });
const ints = [
  { name: `${M} fixint`, bytes: array(N, (o) => o.push(int(-32, 127) & 0xff)) },
  { name: `${M} uint8 (0xcc)`, bytes: tagged(0xcc, 1, 128, 255) },
  { name: `${M} uint16 (0xcd)`, bytes: tagged(0xcd, 2, 256, 65535) },
  { name: `${M} uint32 (0xce, 2^16..2^32)`, bytes: tagged(0xce, 4, 2 ** 16, 2 ** 32 - 1) },
  { name: `${M} uint64 (0xcf, 2^32..2^53)`, bytes: tagged(0xcf, 8, 2 ** 32, 2 ** 53 - 1), base: true },
  { name: `${M} int8 (0xd0)`, bytes: tagged(0xd0, 1, -128, -33) },
  { name: `${M} int16 (0xd1)`, bytes: tagged(0xd1, 2, -32768, -129) },
  { name: `${M} int32 (0xd2)`, bytes: tagged(0xd2, 4, -(2 ** 31), -32769) },
  { name: `${M} int64 (0xd3, -2^53..-2^31)`, bytes: tagged(0xd3, 8, -(2 ** 53), -(2 ** 31) - 1) },
  { name: `${M} small ints, one uint32 > 2^31 first`, bytes: oneLarge(0) },
  { name: `${M} small ints, one uint32 > 2^31 middle`, bytes: oneLarge(N >> 1) },
  { name: `${M} small ints, one uint32 > 2^31 last`, bytes: oneLarge(N - 1) },
].map((d) => ({ ...d, rows: N, int: true }));
const datasets = [
  ...ints,
  { name: `${M} float32`, rows: N, bytes: packr32.pack(Array.from({ length: N }, () => Math.fround((rand() - 0.5) * 1e3) + 0.5)) },
  { name: `${M} float64`, rows: N, bytes: encode(Array.from({ length: N }, () => (rand() - 0.5) * 1e6)) },
  { name: `${M} bool`, rows: N, bytes: encode(Array.from({ length: N }, () => rand() < 0.5)) },
  { name: `${M} ints with 25% nil`, rows: N, bytes: encode(Array.from({ length: N }, () => (rand() < 0.25 ? null : int(-1000, 100000)))) },
  { name: `${M} short strings (1-12 chars)`, rows: N, bytes: encode(Array.from({ length: N }, () => 'abcdefghijkl'.slice(0, int(1, 12)))) },
  {
    name: `${R / 1e3}k records {id: uint32, ts: epoch ms}`,
    rows: R,
    // @msgpack/msgpack writes ids above 2^31 as uint32 (0xce) and epoch ms as uint64 (0xcf).
    bytes: encode(Array.from({ length: R }, (_, i) => ({ id: 2 ** 31 + i * 7919, ts: 1_767_225_600_000 + i * 1000 }))),
  },
  {
    name: `${M} mixed ints (fixint/uint16/int32)`,
    rows: N,
    bytes: packr.pack(Array.from({ length: N }, () => [int(-32, 127), int(256, 65535), int(-(2 ** 31), -(2 ** 16))][int(0, 2)])),
  },
  {
    name: `${R / 1e3}k records × 5 fields`,
    rows: R,
    bytes: packr.pack(Array.from({ length: R }, (_, i) => ({ id: i, value: rand() * 100, name: `dev-${i % 100}`, ok: i % 3 === 0, maybe: i % 4 ? int(0, 1e6) : null }))),
  },
  {
    // Past maxKeys (1024) one Map<Utf8, value> column: cost linear in the input (#23 item 6).
    name: '20k records, each with a key of its own',
    rows: 20_000,
    bytes: encode(Array.from({ length: 20_000 }, (_, i) => ({ [`k${i}`]: i }))),
  },
].filter((d) => !only || d.name.includes(only));

// Compiled once; `fresh` gives a new instance (its memory not yet grown) for the cold call.
const compiled = { simd: new WebAssembly.Module(readFileSync(wasmFile('msgpack', 'simd'))), scalar: new WebAssembly.Module(readFileSync(wasmFile('msgpack', 'scalar'))) };
const fresh = (v) => standalone('msgpack', compiled[v], v === 'simd');
const simd = fresh('simd');
const scalar = fresh('scalar');
/** Milliseconds of one call. */
const once = (f) => {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
};
const rows = [];
const perElement = {};
const below = [];
for (const d of datasets) {
  // Cold: the first call on these bytes, Arrowsmith on a fresh instance; the peers' JIT is
  // warm from earlier rows, so for them this is only the first call on new bytes.
  const [cs, cc] = [fresh('simd'), fresh('scalar')];
  const cold = {
    'arrowsmith simd': once(() => decodeWith(cs, d.bytes)),
    'arrowsmith scalar': once(() => decodeWith(cc, d.bytes)),
    msgpackr: once(() => unpack(d.bytes)),
    '@msgpack/msgpack': once(() => msgpackDecode(d.bytes)),
  };
  const bench = new Bench({ time: quick ? 300 : 1000, warmupTime: 200 });
  const sink = [];
  bench.add('arrowsmith simd', () => void sink.push(decodeWith(simd, d.bytes).numRows));
  bench.add('arrowsmith scalar', () => void sink.push(decodeWith(scalar, d.bytes).numRows));
  bench.add('msgpackr', () => void sink.push(unpack(d.bytes).length));
  bench.add('@msgpack/msgpack', () => void sink.push(msgpackDecode(d.bytes).length));
  await bench.run();
  sink.length = 0;
  const ms = Object.fromEntries(bench.tasks.map((t) => [t.name, median(t)]));
  const [r, m] = [ms.msgpackr, ms['@msgpack/msgpack']];
  for (const v of ['arrowsmith simd', 'arrowsmith scalar']) {
    const t = ms[v];
    const c = cold[v];
    const [cr, cm] = [cold.msgpackr, cold['@msgpack/msgpack']];
    rows.push([d.name, v, t.toFixed(3), ((t * 1e6) / d.rows).toFixed(2), (d.bytes.length / t / 1e3).toFixed(0), r.toFixed(3), (r / t).toFixed(1) + '×', m.toFixed(3), (m / t).toFixed(1) + '×', c.toFixed(2), (cr / c).toFixed(1) + '×', (cm / c).toFixed(1) + '×']);
    if (r / t < 3) below.push(`${d.name} (${v}): ${(r / t).toFixed(1)}× msgpackr`);
    if (d.int) (perElement[v] ??= []).push([d.name, t / d.rows, d.base]);
  }
  console.log(`${d.name} (${(d.bytes.length / 1e6).toFixed(1)} MB): ` + bench.tasks.map((t) => `${t.name} ${ms[t.name].toFixed(3)} ms`).join(', '));
}
const notes = [];
for (const [v, list] of Object.entries(perElement)) {
  const base = list.find((x) => x[2]);
  if (!base) continue;
  const worst = list.reduce((a, b) => (b[1] > a[1] ? b : a));
  notes.push(`${v}: slowest int row per element is "${worst[0]}" at ${(worst[1] / base[1]).toFixed(2)}× the uint64 row (target ≤ 2×)`);
}
notes.push(below.length ? `rows below 3× msgpackr: ${below.join('; ')}` : 'every row is at least 3× msgpackr (target)');
const table = mdTable(['dataset', 'decoder', 'warm median ms', 'ns/value', 'MB/s', 'msgpackr ms', 'vs msgpackr', '@msgpack/msgpack ms', 'vs @msgpack/msgpack', 'cold ms', 'cold vs msgpackr', 'cold vs @msgpack/msgpack'], rows);
const text = writeResults(
  join(here, 'results/msgpack-matrix.md'),
  'MessagePack decoding benchmark',
  `\`npm run bench\` (bench/msgpack-matrix.bench.mjs, tinybench${quick ? ', --quick' : ''}${only ? `, --only ${only}` : ''}). Medians of one run; the peers are timed in the same run, on the same bytes, right after Arrowsmith. Arrowsmith: bytes → Arrow Table with JS-owned buffers (copies out of wasm included). Peers: bytes → JS arrays/objects. "vs X" = X's median time / Arrowsmith's. Cold = one call, the first on the row's bytes: Arrowsmith on a fresh module instance (memory not yet grown), the peers right after (their JIT is already warm from earlier rows). The machine is shared with other engineers' builds and tests, so absolute times are noisy; the ratios come from one interleaved run. The int rows are written byte by byte, one encoding each (the values are in the range that encoding covers, within 2^53 so that every peer decodes them exactly). Each Arrowsmith call allocates fresh JS-owned output buffers, so V8 garbage collections of those buffers land inside some iterations.`,
  table + '\n\n' + notes.map((s) => `- ${s}`).join('\n'),
);
console.log('\n' + text);
