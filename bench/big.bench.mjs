// Big files streamed by batches: HDF5 (uncompressed, gzip+shuffle), TsFile and MessagePack
// files of gigabytes, generated on the fly outside the repo (never committed), read by
// batches from a Blob and from a path (on the calling thread and on a pool of 2 workers, there
// also with lent batches, `lend: true`),
// the TsFile also in Chromium from a disk-backed File (bench/big-browser.mjs), against the
// raw read speed of the same bytes and the native peers (h5py, the official TsFile reader,
// msgpackr) in the same run, with each reader's CPU time; from the fastest raw Blob read and
// the decoding of the bytes from memory, the least time any Blob (or browser File) read can
// take on the machine (the "bound" lines). Each reader runs in a fresh process of its own (peak RSS
// is that process's; the time to the first batch is what a user waits for); readers are
// interleaved over ROUNDS and the best time is kept (the page cache is warm after generation;
// the machine is shared).
//
//   npm run bench:big                 # BIG_DIR=/tmp/arrowsmith-big BIG_MIB=2048 ...
// Env: BIG_DIR, BIG_MIB (HDF5 MiB each), BIG_TSFILE_ROWS, BIG_TSFILE_DEVICES, BIG_MSGPACK_ROWS,
//      BIG_ROUNDS, BIG_ONLY (comma list: hdf5,gzip,tsfile,msgpack), BIG_READERS (comma list:
//      only the readers whose name contains one of these, e.g. "Blob,C++"), BIG_PKG (another
//      build of the package, for A/B runs; a folder, relative to the repo), BIG_BROWSERS
//      (comma list, default "chromium"; "chromium,firefox" adds Firefox ESR's TsFile rows).
//      Writes bench/results/big.md.
//   node bench/big.bench.mjs --run CASE FILE KIND   # one reader, one JSON line (CASE: see `cases`)
import { execFileSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, openAsBlob, readFileSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { browserRun } from './big-browser.mjs';
import { readBatches, readInParts, sumOf } from './big-read.mjs';
import { mdTable, writeReport } from './common.mjs';

const root = join(import.meta.dirname, '..');
const py = join(root, '.venv/bin/python');
const env = process.env;
const DIR = env.BIG_DIR ?? '/tmp/arrowsmith-big';
const MIB = Number(env.BIG_MIB ?? 2048);
const TS_ROWS = Number(env.BIG_TSFILE_ROWS ?? 100_000_000);
const TS_DEVICES = Number(env.BIG_TSFILE_DEVICES ?? 100);
const MSG_ROWS = Number(env.BIG_MSGPACK_ROWS ?? 20_000_000);
const ROUNDS = Number(env.BIG_ROUNDS ?? 2);
const ONLY = (env.BIG_ONLY ?? 'hdf5,gzip,tsfile,msgpack').split(',');
const READERS = env.BIG_READERS?.split(',');
const PIECE = 8 << 20;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  // The header comment is the usage (a bare run measures everything for many minutes).
  const head = readFileSync(import.meta.filename, 'utf8').split('\n');
  console.log(head.slice(0, head.findIndex((l) => !l.startsWith('//'))).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}

// ---- one measurement, in a child process: node bench/big.bench.mjs --run CASE FILE ----
// `first()` marks the first piece or batch in hand: its time from the case's start (the open,
// after the library's import) is the "first batch" latency a user of a fresh process sees.
let t0 = 0;
let firstMs;
/** Where a case's time and CPU start (a case that loads its input first starts them again). */
let span;
const first = () => (firstMs ??= performance.now() - t0);
const cases = {
  /** The bytes themselves: Blob.slice().arrayBuffer() in 8 MiB pieces. */
  async 'raw-blob'(file) {
    const blob = await openAsBlob(file);
    let bytes = 0;
    for (let at = 0; at < blob.size; at += PIECE, first()) bytes += (await blob.slice(at, at + PIECE).arrayBuffer()).byteLength;
    return { bytes };
  },
  /**
   * The bytes as the library's pooled Blob read takes them: 4 MiB slices, 4 at once, each by
   * its stream copied into one of 4 reused SharedArrayBuffers (the fastest Blob read found:
   * about half the time of one slice at a time, and less CPU).
   */
  async 'raw-blob-4'(file) {
    return { bytes: await readInParts(await openAsBlob(file), first, false) };
  },
  /** FileHandle.read into one reused 8 MiB buffer. */
  async 'raw-fh'(file) {
    const fh = await open(file);
    const buf = new Uint8Array(PIECE);
    let bytes = 0;
    for (let n; (n = (await fh.read(buf, 0, PIECE, bytes)).bytesRead) > 0; first()) bytes += n;
    await fh.close();
    return { bytes };
  },
  async 'arrowsmith-blob'(file, kind) {
    return readWith(await openAsBlob(file), kind);
  },
  async 'arrowsmith-path'(file, kind) {
    return readWith(file, kind);
  },
  /** The same on a pool of 2 workers (started inside the timed part, as a user would). */
  async 'arrowsmith-blob-pool'(file, kind) {
    return readWith(await openAsBlob(file), kind, 2);
  },
  async 'arrowsmith-path-pool'(file, kind) {
    return readWith(file, kind, 2);
  },
  /**
   * The decoding alone: the file's bytes already in a SharedArrayBuffer (read before the time
   * and CPU start), decoded on a pool of 2 (batches lent), so no file read is counted.
   */
  async 'arrowsmith-memory-pool'(file, kind) {
    const fh = await open(file);
    const bytes = new Uint8Array(new SharedArrayBuffer((await fh.stat()).size));
    for (let at = 0; at < bytes.length; ) at += (await fh.read(bytes, at, Math.min(1 << 26, bytes.length - at), at)).bytesRead;
    await fh.close();
    span = { t: performance.now(), cpu: process.cpuUsage() };
    return readWith(bytes, kind, 2, true);
  },
  /** The pool's batches lent (`lend: true`: each valid until the loop's next turn). */
  async 'arrowsmith-blob-pool-lent'(file, kind) {
    return readWith(await openAsBlob(file), kind, 2, true);
  },
  async 'arrowsmith-path-pool-lent'(file, kind) {
    return readWith(file, kind, 2, true);
  },
  // The same in a browser (bench/big-browser.mjs): the file as a disk-backed File in a fresh
  // Chromium (or Firefox ESR) page, on the page's thread or a pool of 2 of its workers.
  'chromium-raw': (file, kind) => browserRun('chromium', file, { read: 'raw', kind }, pkgDir()),
  'chromium-raw4': (file, kind) => browserRun('chromium', file, { read: 'raw4', kind }, pkgDir()),
  'chromium-file': (file, kind) => browserRun('chromium', file, { read: 'batches', kind }, pkgDir()),
  'chromium-file-pool': (file, kind) => browserRun('chromium', file, { read: 'batches', kind, workers: 2 }, pkgDir()),
  'firefox-raw': (file, kind) => browserRun('firefox', file, { read: 'raw', kind }, pkgDir()),
  'firefox-raw4': (file, kind) => browserRun('firefox', file, { read: 'raw4', kind }, pkgDir()),
  'firefox-file': (file, kind) => browserRun('firefox', file, { read: 'batches', kind }, pkgDir()),
  'firefox-file-pool': (file, kind) => browserRun('firefox', file, { read: 'batches', kind, workers: 2 }, pkgDir()),
  async 'arrowsmith-stream'(file) {
    const { decodeMsgpackStream } = await pkg();
    t0 = performance.now();
    let rows = 0;
    let sum = 0;
    for await (const b of decodeMsgpackStream(createReadStream(file, { highWaterMark: 1 << 20 }))) {
      first();
      rows += b.numRows;
      sum += sumOf(b.getChild('v').toArray());
    }
    return { rows, sum };
  },
  async 'msgpackr-stream'(file) {
    const { UnpackrStream } = await import('msgpackr');
    t0 = performance.now();
    let rows = 0;
    let sum = 0;
    const s = createReadStream(file, { highWaterMark: 1 << 20 }).pipe(new UnpackrStream({ mapsAsObjects: true }));
    for await (const r of s) {
      first();
      rows++;
      sum += r.v;
    }
    return { rows, sum };
  },
};

/** The package under test (BIG_PKG: another build of it, for A/B runs). */
const pkgDir = () => resolve(root, process.env.BIG_PKG ?? 'packages/arrowsmith');
const pkg = () => import(pathToFileURL(join(pkgDir(), 'dist/node.js')).href);

/** Stream the file by `batches()` (on a pool of `workers` when given), summing one column. */
async function readWith(source, kind, workers, lend = false) {
  const lib = await pkg();
  t0 = performance.now(); // the first batch is timed from the open (a pool's start included)
  const pool = workers ? await lib.createPool({ size: workers }) : undefined;
  const r = await readBatches(lib, source, kind, pool, first, lend);
  pool?.close();
  return r;
}

if (process.argv[2] === '--run') {
  const [, , , name, file, kind] = process.argv;
  span = { t: performance.now(), cpu: process.cpuUsage() };
  t0 = span.t;
  const r = await cases[name](file, kind);
  const seconds = (performance.now() - span.t) / 1e3;
  // CPU seconds of every thread of the process (workers, I/O threads, GC helpers included),
  // over the same span as the time. (A browser's run brings its own time, first batch, memory
  // and CPU, measured in the page.)
  const { user, system } = process.cpuUsage(span.cpu);
  console.log(JSON.stringify({ seconds, firstMs, rssMiB: process.resourceUsage().maxRSS / 1024, cpuS: (user + system) / 1e6, ...r }));
  process.exit(0);
}

// ---- the driver ----
mkdirSync(DIR, { recursive: true });
const gib = (b) => (b / 2 ** 30).toFixed(2);

function generate(name, args) {
  const path = join(DIR, name);
  if (existsSync(path) && statSync(path).size > 0 && existsSync(`${path}.ok`)) return path;
  console.error(`generating ${path} …`);
  const out = execFileSync(py, [join(root, 'bench/big_gen.py'), ...args, path], { encoding: 'utf8' });
  execFileSync('sh', ['-c', `echo '${out.trim()}' > '${path}.ok'`]);
  return path;
}

function child(name, file, kind) {
  const out = execFileSync(process.execPath, [import.meta.filename, '--run', name, file, kind ?? ''], { encoding: 'utf8', maxBuffer: 1 << 20 });
  return JSON.parse(out.trim().split('\n').pop());
}

function native(script, args) {
  const out = execFileSync(py, ['-c', script, ...args], { encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').pop());
}

// h5py streaming the dataset 16 chunks (16M values) at a time; peak RSS of the process.
const H5PY = `
import sys, json, time, resource, h5py, numpy as np
t = time.perf_counter(); u0 = resource.getrusage(resource.RUSAGE_SELF); rows = 0; s = 0.0; first = None
with h5py.File(sys.argv[1], "r") as f:
    ds = f["x"]; n = ds.shape[0]; step = ds.chunks[0] * 16
    for a in range(0, n, step):
        v = ds[a:a + step]; rows += len(v); s += float(v.sum())
        if first is None: first = (time.perf_counter() - t) * 1e3
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": rows, "sum": s, "seconds": time.perf_counter() - t, "firstMs": first, "rssMiB": u.ru_maxrss / 1024, "cpuS": u.ru_utime + u.ru_stime - u0.ru_utime - u0.ru_stime}))
`;
// The official TsFile reader (C++ core) draining the table in Arrow batches.
const TSNATIVE = `
import sys, json, time, resource, tsfile
t = time.perf_counter(); u0 = resource.getrusage(resource.RUSAGE_SELF); rows = 0; s = 0; first = None
r = tsfile.TsFileReader(sys.argv[1])
rs = r.query_table("big", ["s1", "s2", "s3", "s4"], batch_size=65536)
while True:
    b = rs.read_arrow_batch()
    if b is None or b.num_rows == 0: break
    if first is None: first = (time.perf_counter() - t) * 1e3
    rows += b.num_rows; s += int(b.column("s4").to_numpy().sum(dtype="int64"))
rs.close(); r.close()
u = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": rows, "sum": s, "seconds": time.perf_counter() - t, "firstMs": first, "rssMiB": u.ru_maxrss / 1024, "cpuS": u.ru_utime + u.ru_stime - u0.ru_utime - u0.ru_stime}))
`;

const files = [];
if (ONLY.includes('tsfile')) files.push({ label: `TsFile ${TS_DEVICES} devices × 4 fields`, kind: 'tsfile', file: generate(`big_${TS_ROWS}_${TS_DEVICES}.tsfile`, ['tsfile', '--rows', String(TS_ROWS), '--devices', String(TS_DEVICES)]), peer: 'tsfile (C++)' });
if (ONLY.includes('msgpack')) files.push({ label: 'MessagePack records (stream)', kind: 'msgpack', file: generate(`records_${MSG_ROWS}.msgpack`, ['msgpack', '--rows', String(MSG_ROWS)]), peer: 'msgpackr UnpackrStream' });
if (ONLY.includes('gzip')) files.push({ label: 'HDF5 float64, shuffle+gzip 4 chunks', kind: 'hdf5', file: generate(`x_${MIB}_gzip.h5`, ['hdf5', '--mib', String(MIB), '--gzip']), peer: 'h5py' });
if (ONLY.includes('hdf5')) files.push({ label: 'HDF5 float64, uncompressed 8 MiB chunks', kind: 'hdf5', file: generate(`x_${MIB}.h5`, ['hdf5', '--mib', String(MIB)]), peer: 'h5py' });

const readers = (f) => allReaders(f).filter(([name]) => !READERS || READERS.some((r) => name.includes(r)));
const allReaders = (f) =>
  f.kind === 'msgpack'
    ? [['raw FileHandle.read', () => child('raw-fh', f.file)], ['arrowsmith decodeMsgpackStream', () => child('arrowsmith-stream', f.file)], [f.peer, () => child('msgpackr-stream', f.file)]]
    : [
        ['raw Blob.slice 8 MiB', () => child('raw-blob', f.file)],
        ['raw FileHandle.read 8 MiB', () => child('raw-fh', f.file)],
        ['raw Blob, 4 slices at once', () => child('raw-blob-4', f.file)],
        ['arrowsmith batches, in memory, pool of 2, lent', () => child('arrowsmith-memory-pool', f.file, f.kind)],
        ['arrowsmith batches, Blob', () => child('arrowsmith-blob', f.file, f.kind)],
        ['arrowsmith batches, path', () => child('arrowsmith-path', f.file, f.kind)],
        ['arrowsmith batches, Blob, pool of 2', () => child('arrowsmith-blob-pool', f.file, f.kind)],
        ['arrowsmith batches, path, pool of 2', () => child('arrowsmith-path-pool', f.file, f.kind)],
        ['arrowsmith batches, Blob, pool of 2, lent', () => child('arrowsmith-blob-pool-lent', f.file, f.kind)],
        ['arrowsmith batches, path, pool of 2, lent', () => child('arrowsmith-path-pool-lent', f.file, f.kind)],
        ...browserReaders(f),
        [f.peer, () => native(f.kind === 'tsfile' ? TSNATIVE : H5PY, [f.file])],
      ];
// The TsFile read in browsers from a disk-backed File (a user's drop), after the raw read of
// the same File: each run a fresh browser (~10–30 s each).
const BROWSERS = (env.BIG_BROWSERS ?? 'chromium').split(',').filter(Boolean);
const browserName = (b) => (b === 'firefox' ? 'Firefox' : 'Chromium');
const browserReaders = (f) =>
  f.kind !== 'tsfile'
    ? []
    : BROWSERS.flatMap((b) => [
        [`raw File.slice 8 MiB, ${browserName(b)}`, () => child(`${b}-raw`, f.file, f.kind)],
        [`raw File, 4 slices at once, ${browserName(b)}`, () => child(`${b}-raw4`, f.file, f.kind)],
        [`arrowsmith batches, File, ${browserName(b)}`, () => child(`${b}-file`, f.file, f.kind)],
        [`arrowsmith batches, File, ${browserName(b)}, pool of 2`, () => child(`${b}-file-pool`, f.file, f.kind)],
      ]);

/**
 * The least time any read of the file from a Blob (or a browser's File) can take on this
 * machine, from the same run: no less than the fastest raw read of its bytes, nor than that
 * read's CPU plus the least CPU measured for making batches of bytes already in JS memory
 * (the pooled read from memory, or a Blob row's CPU less the raw read's), spread over every
 * core as if none were ever idle. (A path's read is no such measure: the kernel copies its
 * bytes straight into wasm memory, where a Blob's arrive in JS buffers first.)
 */
function blobBounds(best, peer) {
  if (!peer) return [];
  const cores = availableParallelism();
  const raw4 = best.get('raw Blob, 4 slices at once');
  const fromMemory = [...best].flatMap(([name, r]) => {
    if (name.startsWith('arrowsmith batches, in memory')) return [[r.cpuMinS, 'the pooled read from memory']];
    if (raw4 && /^arrowsmith batches, Blob/.test(name)) return [[r.cpuMinS - raw4.cpuMinS, `"${name.slice('arrowsmith batches, '.length)}" less the raw read`]];
    return [];
  });
  const [decode, from] = fromMemory.sort((x, y) => x[0] - y[0])[0] ?? [];
  // Each source's fastest raw read measured.
  const fastest = (...names) => names.map((n) => best.get(n)).filter(Boolean).sort((x, y) => x.seconds - y.seconds)[0];
  const sources = [
    ['a Blob read', fastest('raw Blob, 4 slices at once', 'raw Blob.slice 8 MiB')],
    ['a File read in Chromium', fastest('raw File, 4 slices at once, Chromium', 'raw File.slice 8 MiB, Chromium')],
    ['a File read in Firefox', fastest('raw File, 4 slices at once, Firefox', 'raw File.slice 8 MiB, Firefox')],
  ];
  return sources.flatMap(([what, raw]) => {
    if (!raw) return [];
    const floor = Math.max(raw.seconds, decode === undefined ? 0 : (raw.cpuMinS + decode) / cores);
    return [
      `bound: ${what} takes ≥ ${floor.toFixed(2)} s here, at most ${(peer.seconds / floor).toFixed(2)}× the peer: its bytes alone take ${raw.seconds.toFixed(2)} s and ${raw.cpuMinS.toFixed(1)} CPU-s` +
        (decode === undefined ? '' : `, their batches at least ${decode.toFixed(1)} CPU-s more (${from}), on ${cores} cores`),
    ];
  });
}

const rows = [];
const RESULTS = join(root, 'bench/results/big.md');
// The sections written by hand below the generated table (earlier measurements, one per case,
// dated) are kept: everything from the file's first `## ` heading on.
const history = existsSync(RESULTS) ? readFileSync(RESULTS, 'utf8').split(/^(?=## )/m).slice(1).join('').trimEnd() : '';
/** 1-minute load averages seen before each reader ran. */
const loads = [];
/** Results so far (written after each file: a long run leaves what it measured). */
const HEADER = ['file', 'size', 'reader', 'GB/s', 'rows/s', 'peak RSS', 'CPU', 'first batch', 'vs raw', 'vs peer'];
// A run of some readers (BIG_READERS) prints its table and leaves the results file as it is.
const write = () => (READERS ? mdTable(HEADER, rows) : report());
const report = () =>
  writeReport(RESULTS, {
    title: 'Big files streamed by batches (#27)',
    intro:
      `\`npm run bench:big\`: files generated under ${DIR} by bench/big_gen.py (the formats' own writers; never committed), ` +
        `each read end to end by batches in a fresh process of its own, values summed (a check that every reader saw the same data): ` +
        `GB/s is therefore a first read (module compile, file open and, for the pool rows, the start of 2 workers are inside the time). ` +
        `"First batch" is the time from the open (after the library's import; a Python reader's native code loads at import) to the first batch in hand: the latency a user sees. ` +
        `The pool rows decode on 2 workers beside the consuming thread (the machine has 2 cores); every other reader, the peers included, reads on one thread. ` +
        `"Lent" rows call \`batches({ lend: true })\`: each batch a view of reused shared memory, valid until the loop's next turn (the sum reads it before then); the other rows' batches are the consumer's to keep. ` +
        `GB/s is the file's size over the time; "vs raw" is the raw read time of the same bytes (Blob pieces for HDF5/TsFile, FileHandle for MessagePack) over ours (1 = as fast as the bytes arrive); ` +
        `"vs peer" is the peer's time over ours (> 1: faster than the peer). Peak RSS is the reader process's; CPU is its CPU time (user + system, every thread: workers, I/O and GC threads) over the same span. Best of ${ROUNDS} interleaved rounds; page cache warm. ` +
        `"In memory" rows decode the file's bytes already in a SharedArrayBuffer (read before the time starts): the decoding alone. ` +
        `The "bound" lines give the least time any read from a Blob (or a browser's File) can take on this machine, from the same run: no less than the fastest raw read of its bytes (one 8 MiB slice at a time, or 4 slices of 4 MiB at once by stream into reused shared memory, as the library reads them), nor than that read's CPU plus the least CPU measured for making batches of bytes in JS memory (the "in memory" row's, or a Blob row's less the raw read's) spread over every core with none idle. ` +
        `The browser rows (TsFile) read the file in a fresh headless browser, on a cross-origin isolated page, from a disk-backed File (the page's file input given the path, as a user's drop): ` +
        `timed in the page from the open to the last batch, the same column summed; "vs raw" is against the raw File read in the same browser; peak RSS is the page's content process (its thread and workers), not the browser process that reads the file for it.` +
        // The pool rows alone keep both cores busy: only a load well above that means other work ran.
        (loads.length && Math.max(...loads) > cpus().length * 1.75 ? ' **Shared machine** (other work ran beside it): the ratios guide.' : ''),
    machineExtra: loads.length ? [`Load average (1 min) while it ran: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}`] : [],
    sections: [{ text: mdTable(HEADER, rows) }, ...(history ? [{ text: history }] : [])],
  });
for (const f of files) {
  const size = statSync(f.file).size;
  const best = new Map();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of readers(f)) {
      loads.push(loadavg()[0]);
      const r = run();
      console.error(`${f.kind} ${name}: ${r.seconds.toFixed(2)} s, first ${r.firstMs?.toFixed(0)} ms, ${r.rssMiB.toFixed(0)} MiB, CPU ${r.cpuS.toFixed(2)} s${r.threads ? " (the browser's processes)" : ''}${r.rows ? `, ${r.rows} rows, sum ${r.sum}` : ''}`);
      const b = best.get(name);
      // The best time's run, with the most RSS, the least first-batch latency and the least
      // CPU of any round (the least CPU is what the bound below may count on).
      const firstMs = Math.min(r.firstMs ?? Infinity, b?.firstMs ?? Infinity);
      const rssMiB = Math.max(r.rssMiB, b?.rssMiB ?? 0);
      const cpuMinS = Math.min(r.cpuS, b?.cpuMinS ?? Infinity);
      best.set(name, !b || r.seconds < b.seconds ? { ...r, rssMiB, firstMs, cpuMinS } : { ...b, rssMiB, firstMs, cpuMinS });
    }
  }
  const counted = [...best.values()].filter((r) => r.rows);
  const sums = counted.map((r) => `${r.rows}/${r.sum}`);
  // Float sums differ in the last digits with the order of summation.
  const agree = counted.every((r) => r.rows === counted[0].rows && Math.abs(r.sum - counted[0].sum) <= 1e-9 * Math.abs(counted[0].sum) + 1e-6);
  const nodeRaw = best.get('raw Blob.slice 8 MiB') ?? best.get('raw FileHandle.read');
  // A browser's rows against the raw read of the File in the same browser.
  const rawOf = (name) => (/Chromium|Firefox/.test(name) ? best.get(`raw File.slice 8 MiB, ${/Firefox/.test(name) ? 'Firefox' : 'Chromium'}`) : nodeRaw);
  const peer = best.get(f.peer);
  for (const [name, r] of best) {
    const ratio = (x) => (x ? `${(x.seconds / r.seconds).toFixed(2)}×` : '');
    rows.push([
      f.label,
      `${gib(size)} GiB`,
      name,
      `${(size / r.seconds / 1e9).toFixed(2)} GB/s`,
      r.rows ? `${(r.rows / r.seconds / 1e6).toFixed(1)} M` : '',
      `${r.rssMiB.toFixed(0)} MiB`,
      `${r.cpuS.toFixed(1)} s`,
      Number.isFinite(r.firstMs) ? `${r.firstMs.toFixed(0)} ms` : '',
      name.startsWith('arrowsmith') ? ratio(rawOf(name)) : '',
      name.startsWith('arrowsmith') ? ratio(peer) : '',
    ]);
  }
  rows.push([f.label, '', agree ? 'rows and value sums agree across readers' : `**sums differ**: ${sums.join(', ')}`, '', '', '', '', '', '', '']);
  for (const line of blobBounds(best, peer)) rows.push([f.label, '', line, '', '', '', '', '', '', '']);
  if (!READERS) write();
}
console.log(write());
