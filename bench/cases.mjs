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

/** The MessagePack datasets of the foundation issue, generated (seeded) in memory. */
export function msgpackDatasets(quick = false) {
  const N = quick ? 100_000 : 1_000_000;
  const R = quick ? 10_000 : 100_000;
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
  const packr = new Packr({ useRecords: false });
  const packr32 = new Packr({ useRecords: false, useFloat32: 1 });
  return [
    { id: 'fixint', name: `${N / 1e6}M fixint array`, rows: N, bytes: packr.pack(Array.from({ length: N }, () => int(-32, 127))) },
    {
      id: 'mixed',
      name: `${N / 1e6}M mixed ints (fixint/uint16/int32)`,
      rows: N,
      bytes: packr.pack(Array.from({ length: N }, () => [int(-32, 127), int(256, 65535), int(-(2 ** 31), -(2 ** 16))][int(0, 2)])),
      fastOff: true,
    },
    { id: 'f64', name: `${N / 1e6}M float64`, rows: N, bytes: encode(Array.from({ length: N }, () => (rand() - 0.5) * 1e6)) },
    { id: 'f32', name: `${N / 1e6}M float32`, rows: N, bytes: packr32.pack(Array.from({ length: N }, () => Math.fround((rand() - 0.5) * 1e3) + 0.5)) },
    {
      id: 'records',
      name: `${R / 1e3}k records × 5 fields`,
      rows: R,
      bytes: packr.pack(Array.from({ length: R }, (_, i) => ({ id: i, value: rand() * 100, name: `dev-${i % 100}`, ok: i % 3 === 0, maybe: i % 4 ? int(0, 1e6) : null }))),
    },
  ];
}

/** Cold cases of the MessagePack datasets (written to target/bench-data for fresh processes and pages). */
export function msgpackCases(datasets) {
  mkdirSync(dataDir, { recursive: true });
  return datasets.map((d) => {
    const data = `msgpack_${d.id}_${d.rows}.msgpack`;
    writeFileSync(join(dataDir, data), d.bytes);
    return { key: data, label: d.name, format: 'msgpack', data, spec: { format: 'msgpack', case: {} } };
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
  ]);
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
  const env = k.name.split(', ')[1]?.replace(' 2nd visit', '');
  if (format === 'tsfile') return k.name === TSFILE_NATIVE ? undefined : TSFILE_NATIVE;
  if (format === 'hdf5') return k.name.startsWith('h5wasm') ? undefined : k.name === HDF5_NATIVE ? undefined : `h5wasm, ${env ?? 'Node'}`;
  return k.name.startsWith(MSGPACK_PEER) ? undefined : `${MSGPACK_PEER}, ${env}`;
}
