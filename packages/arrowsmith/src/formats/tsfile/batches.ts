/**
 * A query in RecordBatches of at most `rows` rows, device after device: on a pool, one job
 * per device window, made as the pool takes them; on this thread, each window read with a
 * limit and continued from the last time read, the device's bytes held between windows.
 */
import { int64At } from '../../arrow/int64.js';
import type { RecordBatch } from '../../arrow/lib.js';
import { ReusedBuffers } from '../../file/fetch.js';
import { abortable, checkAborted } from '../../io/abort.js';
import type { Given, Job } from '../../pool/protocol.js';
import type { TsFileQuery } from '../../types.js';
import { spanBytes, type JobQuery, type TsReads } from './core.js';
import { HOLD_BYTES, tsfileBatchRows } from './sizes.js';
import { deviceJob, windows } from './jobs.js';
import { fieldCount } from './select.js';
import type { TsFileBatchQuery } from './types.js';

/** `TsFile.batches`: see there. */
export async function* queryBatches(f: TsReads, q: TsFileBatchQuery): AsyncGenerator<RecordBatch> {
  checkAborted(q.signal);
  if (q.rows !== undefined && !(q.rows >= 1)) throw new RangeError('rows must be at least 1');
  const { core } = f;
  const devices = q.devices ?? f.devices(q.table).filter((d) => !q.table || d.table === q.table).map((d) => d.path);
  const rows = Math.floor(q.rows ?? tsfileBatchRows(fieldCount(f.tables(), q)));
  const { rows: _, lend, ...query } = q;
  // On a pool when there are two windows or more (one device of many rows included).
  if (core.pooled && q.limit === undefined && (devices.length > 1 || (devices.length === 1 && (await windows(f, devices[0]!, q, rows)).length > 1))) {
    const limited = { ...query, maxReadBytes: core.readLimit(q.maxReadBytes), mods: f.mods };
    // A window holding more rows than `rows` (times bunched up) is cut (zero-copy slices).
    // (Jobs come back in order: `done` counts those whose bytes no worker reads any more.)
    const done = { jobs: 0 };
    for await (const b of core.pooled.pool.batches(windowJobs(f, devices, q, rows, limited, done), { signal: q.signal, lend })) {
      done.jobs++;
      for (let i = 0; i < b.numRows; i += rows) yield i === 0 && b.numRows <= rows ? b : b.slice(i, i + rows);
    }
    return;
  }
  yield* threadBatches(f, devices, q, query, rows);
}

/** The batches read on this thread. */
async function* threadBatches(f: TsReads, devices: string[], q: TsFileBatchQuery, query: TsFileQuery, rows: number): AsyncGenerator<RecordBatch> {
  const { core } = f;
  let left = q.limit ?? Infinity;
  // A Blob: each device's planned bytes read at once by its stream into a reused buffer,
  // the next device's read going out while this one decodes; each window copies the pages
  // it decodes from them.
  const buffers = !core.byteHost && core.reader.fill ? new ReusedBuffers(false, 2) : undefined;
  const device = buffers && deviceBytes(f, devices, { ...query, maxReadBytes: core.readLimit(q.maxReadBytes) }, buffers, q.signal);
  try {
    for (let k = 0; k < devices.length; k++) {
      const d = devices[k]!;
      const given = device && (await device(k)).given;
      // Windows of one device share chunks: the bytes fetched for one window stay supplied
      // for the next (a Blob or URL source), up to HOLD_BYTES, instead of being fetched again.
      f.hold = !core.byteHost && !given;
      for (const [a, b] of await windows(f, d, q, rows)) {
        // A window goes on from the last time read, skipping the rows of that time already
        // yielded (`skip`): out-of-order chunk groups can hold a time more than once.
        let from = a;
        let skip = 0;
        for (;;) {
          if (left <= 0) return;
          const want = Math.min(rows, left);
          if (core.suppliedBytes > HOLD_BYTES) core.release();
          const read = await abortable(q.signal, () => f.readBatch({ ...query, devices: [d], start: from, end: b, limit: want + skip }, given));
          const batch = skip > 0 ? read.slice(Math.min(skip, read.numRows)) : read;
          left -= batch.numRows;
          if (batch.numRows > 0) yield batch;
          // Fewer rows than asked: the window is done; else go on from the last time read.
          if (read.numRows < want + skip || left <= 0) break;
          [from, skip] = lastTimes(read);
        }
      }
      f.hold = false;
      core.release();
      if (given) buffers!.give(given.bytes);
    }
  } finally {
    f.hold = false;
    core.release();
  }
}

/**
 * The time of a batch's last row (rows of one device come in time order) and how many of its
 * rows have that time.
 */
function lastTimes(b: RecordBatch): [bigint, number] {
  const time = b.getChild('time')!;
  let last: bigint | undefined;
  let n = 0;
  for (let k = time.data.length - 1; k >= 0; k--) {
    const data = time.data[k]!;
    for (let i = data.length - 1; i >= 0; i--) {
      const t = int64At(data, i);
      if (last !== undefined && t !== last) return [last, n];
      last = t;
      n++;
    }
  }
  return [last!, n];
}

/**
 * The pool jobs of `batches()`, one per device window, made as the pool takes them. A
 * worker reads a path (or bytes in memory) itself, page by page straight into its own
 * wasm memory. A Blob or URL is read here instead, each device's chunks once (a worker
 * reading for itself fetches whole chunks, so the windows of one chunk would each fetch it
 * again), into shared memory that every window of the device reads the pages it decodes
 * from; without shared memory each window gets the ranges it plans to read, by transfer.
 */
async function* windowJobs(f: TsReads, devices: string[], q: TsFileBatchQuery, rows: number, limited: JobQuery, done: { jobs: number }): AsyncGenerator<Job> {
  const { core } = f;
  const { pool, ref } = core.pooled!;
  // (A Blob workers cannot be sent, Node's file-backed ones, is read here all the same.)
  const fetchHere = ref.kind === 'blob' || ref.kind === 'url' || core.reader.origin?.kind === 'blob';
  if (!fetchHere) {
    for (const d of devices) for (const [a, b] of await windows(f, d, q, rows)) yield deviceJob(ref, limited, d, a, b);
    return;
  }
  // Each device's planned ranges, fetched at once when they fit the hold budget: with
  // shared memory into one SharedArrayBuffer that all its windows read (each copies the
  // pages it decodes), the next device's read going out while this one's windows decode;
  // the buffers go back for reuse once the jobs that read them are done.
  const buffers = pool.sharesInput ? new ReusedBuffers(true) : undefined;
  const reading: { last: number; bytes: Uint8Array }[] = [];
  let made = 0;
  const device = deviceBytes(f, devices, limited, buffers, q.signal, () => {
    while (reading.length && reading[0]!.last < done.jobs) buffers!.give(reading.shift()!.bytes);
  });
  for (let k = 0; k < devices.length; k++) {
    const d = devices[k]!;
    const { all, given: shared } = await device(k);
    const ws = await windows(f, d, q, rows);
    if (shared) {
      for (const [a, b] of ws) {
        made++;
        yield deviceJob(ref, limited, d, a, b, shared);
      }
      reading.push({ last: made - 1, bytes: shared.bytes });
      continue;
    }
    // Without shared memory: each window gets the ranges it plans to read, by transfer.
    const held = all && spanBytes(all) <= HOLD_BYTES ? await core.fetchOwned(all, q.signal) : undefined;
    for (let i = 0; i < ws.length; i++) {
      const [a, b] = ws[i]!;
      const mine = ws.length === 1 ? all : await f.plan({ ...limited, devices: [d], start: a, end: b }, q.signal);
      // A plan that fails is left to the worker's read, which reports it as this thread would.
      if (!mine) {
        made++;
        yield deviceJob(ref, limited, d, a, b);
        continue;
      }
      const last = i === ws.length - 1;
      const bytes = (held && cut(all!, held, mine, last)) ?? (await core.fetchOwned(mine, q.signal));
      made++;
      yield deviceJob(ref, limited, d, a, b, { ranges: mine, bytes });
    }
  }
}

/**
 * Each device's planned ranges (`all`; undefined when planning fails) and, when `buffers`
 * are given and the ranges fit HOLD_BYTES, their bytes in one of them (`given`), device
 * after device: asking for device k also sends device k+1's read out, so it arrives while
 * device k decodes. `recycle` runs before each read (to give buffers back).
 */
function deviceBytes(f: TsReads, devices: string[], q: TsFileQuery, buffers: ReusedBuffers | undefined, signal: AbortSignal | undefined, recycle = () => {}) {
  type Got = { all?: number[]; given?: Given<Uint8Array> };
  const fetch = async (d: string): Promise<Got> => {
    const all = await f.plan({ ...q, devices: [d] }, signal);
    if (!buffers || !all || spanBytes(all) > HOLD_BYTES) return { all };
    recycle();
    return { all, given: await f.core.fetchGiven(all, buffers, signal) };
  };
  const started = new Map<number, Promise<Got>>();
  const start = (k: number) => {
    if (k >= devices.length || started.has(k)) return;
    const p = fetch(devices[k]!);
    p.catch(() => {}); // awaited at its turn (or dropped with the caller)
    started.set(k, p);
  };
  return (k: number): Promise<Got> => {
    start(k);
    start(k + 1);
    const p = started.get(k)!;
    started.delete(k);
    return p;
  };
}

/**
 * The bytes of ranges `want` (flat [start, end, ...]) out of `bytes`, those of ranges `have`
 * one after another: `bytes` itself when the ranges are the same and it may be given away
 * (`last`), else a copy; undefined when a wanted range is not within one of `have`.
 */
function cut(have: number[], bytes: Uint8Array, want: number[], last: boolean): Uint8Array | undefined {
  if (last && want.length === have.length && want.every((x, i) => x === have[i])) return bytes;
  const out = new Uint8Array(spanBytes(want));
  let at = 0;
  for (let i = 0; i + 1 < want.length; i += 2) {
    const [s, e] = [want[i]!, want[i + 1]!];
    let from = 0;
    let k = 0;
    for (; k + 1 < have.length; k += 2) {
      if (have[k]! <= s && e <= have[k + 1]!) break;
      from += have[k + 1]! - have[k]!;
    }
    if (k + 1 >= have.length) return undefined;
    out.set(bytes.subarray(from + s - have[k]!, from + e - have[k]!), at);
    at += e - s;
  }
  return out;
}
