// One reader of bench:big in a browser page (bundled and driven by bench/big-browser.mjs):
// the file picked in the page's file input (a disk-backed File, as a user's drop gives it)
// read end to end, timed from the open to the last batch, one column's values summed as the
// Node readers do (bench/big.bench.mjs), so the check "rows and value sums agree" covers it.
import * as lib from 'arrowsmith';
import { readBatches, readInParts } from './big-read.mjs';

const PIECE = 8 << 20;

/** `{ read: 'raw' | 'raw4' | 'batches', kind: 'tsfile' | 'hdf5', workers?: number }` → the run's figures. */
async function run(spec) {
  const file = document.getElementById('file').files[0];
  let firstMs;
  const t0 = performance.now();
  const first = () => (firstMs ??= performance.now() - t0);
  if (spec.read === 'raw') {
    // The bytes themselves: File.slice().arrayBuffer() in 8 MiB pieces, one at a time.
    let bytes = 0;
    for (let at = 0; at < file.size; at += PIECE, first()) bytes += (await file.slice(at, at + PIECE).arrayBuffer()).byteLength;
    return { bytes, seconds: (performance.now() - t0) / 1e3, firstMs };
  }
  if (spec.read === 'raw4') {
    // The bytes as the library reads a File (BYOB where the stream has a BYOB reader).
    const bytes = await readInParts(file, first, true);
    return { bytes, seconds: (performance.now() - t0) / 1e3, firstMs };
  }
  // The first batch is timed from the open (a pool's start included), as in Node.
  const pool = spec.workers ? await lib.createPool({ size: spec.workers, workerUrl: new URL('./pool-worker.js', location.href) }) : undefined;
  const r = await readBatches(lib, file, spec.kind, pool, first);
  const seconds = (performance.now() - t0) / 1e3;
  // (The pool is left open: its workers' threads stay for the harness to read their CPU
  // time; the browser's close ends them.)
  return { ...r, seconds, firstMs, isolated: globalThis.crossOriginIsolated };
}

// The module's location only (the format's module loads at the open, inside the timing).
lib.init({ formats: [], baseUrl: new URL('./wasm/', location.href) }).then(
  () => {
    globalThis.__big = (spec) => run(spec).catch((e) => ({ error: String(e?.stack ?? e).slice(0, 500) }));
  },
  (e) => {
    globalThis.__bigError = String(e);
  },
);
