// The benchmark datasets and the readers compared on them, one definition for the per-format
// benchmarks (bench/{msgpack,tsfile,hdf5}.bench.mjs) and the cold summary (bench/cold.bench.mjs).
// A case: { key, label, format, data (file name in target/bench-data), spec (what a cold run
// reads), … }. A contender: { name, env: 'node' | 'chromium' | 'python', spec | script+args }.
import { encode } from '@msgpack/msgpack';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Packr } from 'msgpackr';
import { root } from './coldwarm.mjs';

export const dataDir = join(root, 'target/bench-data');
const py = join(root, '.venv/bin/python');

// ---- MessagePack ----

/**
 * The MessagePack datasets, generated (seeded) in memory: first those of the foundation issue
 * (`detail`: also cold in Chromium, and the zero-copy / fast-path-off warm rows), then the
 * encoding matrix of #23 item 5: each int encoding alone (written byte by byte, so each row is
 * exactly that encoding, values within 2^53 so that every peer decodes them exactly), small
 * ints with one large value first/middle/last, bool, ints mixed with nil, short strings,
 * records with a uint32 and an epoch-ms field, and records that each bring a key of their own.
 * `int`: counted in "no int encoding slower per element than 2× the uint64 row" (`base`).
 */
export function msgpackDatasets(quick = false) {
  const N = quick ? 100_000 : 1_000_000;
  const R = quick ? 10_000 : 100_000;
  const M = `${N / 1e6}M`;
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const packr = new Packr({ useRecords: false });
  const packr32 = new Packr({ useRecords: false, useFloat32: 1 });
  const foundation = [
    { id: 'fixint', name: `${M} fixint array`, rows: N, int: true, bytes: packr.pack(Array.from({ length: N }, () => int(-32, 127))) },
    {
      id: 'mixed',
      name: `${M} mixed ints (fixint/uint16/int32)`,
      rows: N,
      bytes: packr.pack(Array.from({ length: N }, () => [int(-32, 127), int(256, 65535), int(-(2 ** 31), -(2 ** 16))][int(0, 2)])),
      fastOff: true,
    },
    { id: 'f64', name: `${M} float64`, rows: N, bytes: encode(Array.from({ length: N }, () => (rand() - 0.5) * 1e6)) },
    { id: 'f32', name: `${M} float32`, rows: N, bytes: packr32.pack(Array.from({ length: N }, () => Math.fround((rand() - 0.5) * 1e3) + 0.5)) },
    {
      id: 'records',
      name: `${R / 1e3}k records × 5 fields`,
      rows: R,
      bytes: packr.pack(Array.from({ length: R }, (_, i) => ({ id: i, value: rand() * 100, name: `dev-${i % 100}`, ok: i % 3 === 0, maybe: i % 4 ? int(0, 1e6) : null }))),
    },
  ].map((d) => ({ ...d, detail: true }));
  const tagged = (tag, w, lo, hi) => encoded(N, (o) => (o.u8(tag), o.be(int(lo, hi), w)));
  /** Small ints (fixint) with one uint32 above 2^31 at index `at`. */
  const oneLarge = (at) => encoded(N, (o, i) => (i === at ? (o.u8(0xce), o.be(int(2 ** 31, 2 ** 32 - 1), 4)) : o.u8(int(0, 127))));
  const ints = [
    { id: 'uint8', name: `${M} uint8 (0xcc)`, bytes: tagged(0xcc, 1, 128, 255) },
    { id: 'uint16', name: `${M} uint16 (0xcd)`, bytes: tagged(0xcd, 2, 256, 65535) },
    { id: 'uint32', name: `${M} uint32 (0xce, 2^16..2^32)`, bytes: tagged(0xce, 4, 2 ** 16, 2 ** 32 - 1) },
    { id: 'uint64', name: `${M} uint64 (0xcf, 2^32..2^53)`, bytes: tagged(0xcf, 8, 2 ** 32, 2 ** 53 - 1), base: true },
    { id: 'int8', name: `${M} int8 (0xd0)`, bytes: tagged(0xd0, 1, -128, -33) },
    { id: 'int16', name: `${M} int16 (0xd1)`, bytes: tagged(0xd1, 2, -32768, -129) },
    { id: 'int32', name: `${M} int32 (0xd2)`, bytes: tagged(0xd2, 4, -(2 ** 31), -32769) },
    { id: 'int64', name: `${M} int64 (0xd3, -2^53..-2^31)`, bytes: tagged(0xd3, 8, -(2 ** 53), -(2 ** 31) - 1) },
    { id: 'large-first', name: `${M} small ints, one uint32 > 2^31 first`, bytes: oneLarge(0) },
    { id: 'large-middle', name: `${M} small ints, one uint32 > 2^31 middle`, bytes: oneLarge(N >> 1) },
    { id: 'large-last', name: `${M} small ints, one uint32 > 2^31 last`, bytes: oneLarge(N - 1) },
  ].map((d) => ({ ...d, rows: N, int: true }));
  return [
    ...foundation,
    ...ints,
    { id: 'bool', name: `${M} bool`, rows: N, bytes: encode(Array.from({ length: N }, () => rand() < 0.5)) },
    { id: 'nil-ints', name: `${M} ints with 25% nil`, rows: N, bytes: encode(Array.from({ length: N }, () => (rand() < 0.25 ? null : int(-1000, 100000)))) },
    { id: 'short-str', name: `${M} short strings (1-12 chars)`, rows: N, bytes: encode(Array.from({ length: N }, () => 'abcdefghijkl'.slice(0, int(1, 12)))) },
    {
      id: 'id-ts',
      name: `${R / 1e3}k records {id: uint32, ts: epoch ms}`,
      rows: R,
      // @msgpack/msgpack writes ids above 2^31 as uint32 (0xce) and epoch ms as uint64 (0xcf).
      bytes: encode(Array.from({ length: R }, (_, i) => ({ id: 2 ** 31 + i * 7919, ts: 1_767_225_600_000 + i * 1000 }))),
    },
    {
      // Past maxKeys (1024) one Map<Utf8, value> column: cost linear in the input (#23 item 6).
      id: 'own-keys',
      name: '20k records, each with a key of its own',
      rows: 20_000,
      bytes: encode(Array.from({ length: 20_000 }, (_, i) => ({ [`k${i}`]: i }))),
    },
  ];
}

/** An array32 of `n` values, each written by `put(w, i)` with `w.u8(byte)` / `w.be(int, width)`. */
function encoded(n, put) {
  let out = new Uint8Array(5 + n * 2);
  let at = 0;
  const room = (k) => {
    if (at + k <= out.length) return;
    const grown = new Uint8Array(Math.max(out.length * 2, at + k));
    grown.set(out);
    out = grown;
  };
  const w = {
    u8: (b) => {
      room(1);
      out[at++] = b & 0xff;
    },
    /** Big-endian two's complement of a safe integer in `width` bytes. */
    be: (v, width) => {
      room(width);
      const hi = Math.floor(v / 2 ** 32);
      const lo = v - hi * 2 ** 32;
      for (let i = width - 1; i >= 0; i--) out[at++] = i >= 4 ? (hi >>> ((i - 4) * 8)) & 0xff : (lo >>> (i * 8)) & 0xff;
    },
  };
  w.u8(0xdd);
  w.be(n, 4);
  for (let i = 0; i < n; i++) put(w, i);
  return out.slice(0, at);
}

/**
 * Cold cases of the MessagePack datasets (written to target/bench-data for fresh processes
 * and pages). Cases without `detail` skip the warm reads of the cold run: their warm figures
 * come from the benchmark's own tinybench run.
 */
export function msgpackCases(datasets) {
  mkdirSync(dataDir, { recursive: true });
  return datasets.map((d) => {
    const data = `msgpack_${d.id}_${d.rows}.msgpack`;
    writeFileSync(join(dataDir, data), d.bytes);
    return { key: data, label: d.name, format: 'msgpack', data, detail: !!d.detail, spec: { format: 'msgpack', case: {}, ...(d.detail ? {} : { warmRuns: 0, warmMs: 0 }) } };
  });
}

export const MSGPACK_PEER = 'msgpackr';

export function msgpackContenders({ browser }) {
  const envs = browser ? ['Node', 'Chromium'] : ['Node'];
  return envs.flatMap((e) => [
    { name: `arrowsmith simd, ${e}`, env: e.toLowerCase(), spec: { reader: 'arrowsmith', opts: { simd: true } } },
    ...(e === 'Node' ? [{ name: `arrowsmith scalar, ${e}`, env: 'node', spec: { reader: 'arrowsmith', opts: { simd: false } } }] : []),
    { name: `msgpackr, ${e}`, env: e.toLowerCase(), spec: { reader: 'msgpackr' } },
    { name: `@msgpack/msgpack, ${e}`, env: e.toLowerCase(), spec: { reader: '@msgpack/msgpack' } },
  ].map((k) => (e === 'Node' ? k : { ...k, applies: (c) => c.detail !== false })));
}

// ---- TsFile ----

const TSFILE_FILES = {
  'A (writer defaults, LZ4)': ['tsfile_A.tsfile', ['--writer-defaults', '--compression', 'LZ4']],
  'B (PLAIN, SNAPPY)': ['tsfile_B.tsfile', ['--encoding', 'PLAIN', '--compression', 'SNAPPY']],
  // Null bitmaps on every value page: the validity/expansion path instead of the one-copy path.
  'C (as A, 30% of field values null)': ['tsfile_C.tsfile', ['--writer-defaults', '--compression', 'LZ4', '--nulls', '0.3']],
};
const T0 = 1_700_000_000_000;
const TSFILE_QUERIES = {
  full: {},
  device: { tags: { id1: 'device03' } },
  third: { start: T0 + Math.floor((100_000 * 1000) / 3), end: T0 + Math.floor((2 * 100_000 * 1000) / 3) - 1 },
};

/** TsFile cases: each file (written by the official writer on first use) × each query. */
export function tsfileCases() {
  mkdirSync(dataDir, { recursive: true });
  const cases = [];
  for (const [label, [file, args]] of Object.entries(TSFILE_FILES)) {
    const path = join(dataDir, file);
    if (!existsSync(path)) execFileSync(py, [join(root, 'scripts/fixtures/tsfile/gen_bench.py'), path, ...args], { stdio: 'inherit' });
    for (const [qname, query] of Object.entries(TSFILE_QUERIES)) {
      cases.push({ key: `${file} ${qname}`, label: `${label.split(' ')[0]} ${qname}`, file: label, qname, query, format: 'tsfile', data: file, spec: { format: 'tsfile', case: { query } } });
    }
  }
  return cases;
}

export const TSFILE_NATIVE = 'official reader (Python)';

export function tsfileContenders({ browser }) {
  return [
    { name: 'arrowsmith simd, Node', env: 'node', spec: { reader: 'arrowsmith', opts: { simd: true } } },
    { name: 'arrowsmith scalar, Node', env: 'node', spec: { reader: 'arrowsmith', opts: { simd: false } } },
    { name: TSFILE_NATIVE, env: 'python', script: 'tsfile_native.py', args: (c, path) => [path, c.qname] },
    ...(browser
      ? [
          { name: 'arrowsmith simd, Chromium', env: 'chromium', spec: { reader: 'arrowsmith', opts: { simd: true } } },
          { name: 'arrowsmith scalar, Chromium', env: 'chromium', spec: { reader: 'arrowsmith', opts: { simd: false } } },
        ]
      : []),
  ];
}

// ---- HDF5 ----

export const HDF5_DATASETS = {
  str_contig: '100k VL UTF-8 strings, contiguous',
  str_gzip: '100k VL UTF-8 strings, chunked+gzip+shuffle',
  vstruct_contig: '600 VL seqs × 200 {i32,f32,f32}, contiguous',
  vstruct_gzip: '600 VL seqs × 200 {i32,f32,f32}, chunked+gzip+shuffle',
  vint_contig: '100k VL int32 seqs (0–19), contiguous',
  vint_gzip: '100k VL int32 seqs (0–19), chunked+gzip+shuffle',
};
export const HDF5_FILE = 'bench_v0.h5';

/** HDF5 cases: each dataset of the file h5py writes (scripts/fixtures/hdf5/gen_bench.py). */
export function hdf5Cases() {
  if (!existsSync(join(dataDir, HDF5_FILE))) {
    execFileSync('bash', [join(root, 'scripts/setup-python.sh')], { stdio: 'inherit' });
    execFileSync(py, [join(root, 'scripts/fixtures/hdf5/gen_bench.py'), dataDir], { stdio: 'inherit' });
  }
  return Object.entries(HDF5_DATASETS).map(([name, label]) => ({ key: name, name, label, format: 'hdf5', data: HDF5_FILE, spec: { format: 'hdf5', case: { path: `/${name}` } } }));
}

export const HDF5_NATIVE = 'h5py (native)';

export function hdf5Contenders({ browser }) {
  const envs = browser ? ['Node', 'Chromium'] : ['Node'];
  return [
    ...envs.flatMap((e) => [
      { name: `arrowsmith simd, ${e}`, env: e.toLowerCase(), spec: { reader: 'arrowsmith', opts: { simd: true } } },
      ...(e === 'Node' ? [{ name: `arrowsmith scalar, ${e}`, env: 'node', spec: { reader: 'arrowsmith', opts: { simd: false } } }] : []),
      { name: `h5wasm, ${e}`, env: e.toLowerCase(), spec: { reader: 'h5wasm' } },
      { name: `jsfive, ${e}`, env: e.toLowerCase(), spec: { reader: 'jsfive' } },
    ]),
    { name: HDF5_NATIVE, env: 'python', script: 'hdf5_native.py', args: (c, path) => [path, c.name] },
  ];
}

/** Arrowsmith's SIMD build in a returning visitor's page (Chromium's code cache; bench/coldwarm.mjs). */
export const REVISIT = { name: 'arrowsmith simd, Chromium 2nd visit', env: 'chromium-revisit', spec: { reader: 'arrowsmith', opts: { simd: true } } };

/** The peer a contender's read 1 is compared with: the same library family's peer in the same environment. */
export function peerOf(format, k) {
  // The environment is the name's last part: 'arrowsmith simd, warm start, Node' → Node.
  const env = k.name.split(', ').slice(1).at(-1)?.replace(' 2nd visit', '');
  if (format === 'tsfile') return k.name === TSFILE_NATIVE ? undefined : TSFILE_NATIVE;
  if (format === 'hdf5') return k.name.startsWith('h5wasm') ? undefined : k.name === HDF5_NATIVE ? undefined : `h5wasm, ${env ?? 'Node'}`;
  return k.name.startsWith(MSGPACK_PEER) ? undefined : `${MSGPACK_PEER}, ${env}`;
}
